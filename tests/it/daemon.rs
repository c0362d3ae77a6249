//! Handling inbound mail as the daemon does, on both databases: who may
//! move, what forged, replayed, automatic and broken mail do (nothing), and
//! what gets answered.

use chrono::Duration;
use dopis::domain::arbiter::Reason;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{Done, Handled, Refused};

use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent as Out;

/// A game between Alice (White) and Bob (Black), and a daemon's inbox.
struct World {
    app: TestApp,
    game: GameId,
    alice: Player,
    bob: Player,
    sent: usize,
}

impl World {
    async fn new(db: &TestDb) -> World {
        let app = TestApp::builder().answers_per_hour(5).open(db).await;
        let alice = app
            .player("alice@players.test", "Alice", Lang::En, None)
            .await;
        let bob = app.player("bob@players.test", "Bob", Lang::En, None).await;
        let game = app.game(&alice, &bob, TimeControl::default()).await;
        let mut world = World {
            app,
            game,
            alice,
            bob,
            sent: 0,
        };
        let start = world.outbox().await;
        assert_eq!(
            start.len(),
            2,
            "White gets 'your move', Black 'game started'"
        );
        world
    }

    fn token_address(&self, player: &Player) -> String {
        self.app.reply_address(self.game, player)
    }

    async fn handle(&mut self, raw: &[u8]) -> Handled {
        self.app.advance(Duration::minutes(1));
        self.app.deliver(raw).await
    }

    /// The mails queued since the last call.
    async fn outbox(&mut self) -> Vec<Out> {
        let out = self.app.sent().await;
        self.sent += out.len();
        out
    }

    async fn moves(&self) -> Vec<String> {
        self.app.moves(self.game).await
    }
}

/// A plain-text mail as a client sends it.
fn mail(from: &str, to: &str, subject: &str, body: &str, extra_headers: &str) -> Vec<u8> {
    let id = format!("<{:016x}@players.test>", rand::random::<u64>());
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: {id}\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n{extra_headers}\r\n{body}\r\n"
    )
    .into_bytes()
}

async fn the_player_to_move_moves_by_replying_and_both_are_told(db: &TestDb) {
    let mut w = World::new(db).await;
    let to = w.token_address(&w.alice.clone());
    let handled = w
        .handle(&mail(
            "Alice <alice@players.test>",
            &to,
            "Re: [dopis #1] Your move",
            "e4\r\n\r\n> old text",
            "",
        ))
        .await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("e4")),
        "{handled:?}"
    );
    assert_eq!(w.moves().await, vec!["e4"]);
    let out = w.outbox().await;
    let to_bob = out
        .iter()
        .find(|m| m.to == "bob@players.test")
        .expect("bob is told");
    assert!(to_bob.subject.contains("Your move"), "{}", to_bob.subject);
    assert_eq!(
        to_bob.reply_to.as_deref(),
        Some(w.token_address(&w.bob.clone()).as_str())
    );
    let to_alice = out
        .iter()
        .find(|m| m.to == "alice@players.test")
        .expect("alice gets a confirmation");
    assert!(
        to_alice.subject.contains("Move accepted"),
        "{}",
        to_alice.subject
    );
    // One thread per game: both refer to the game's thread root.
    assert!(
        to_bob.message_id.starts_with("dopis.g"),
        "{}",
        to_bob.message_id
    );
}

async fn a_forged_from_never_moves_a_piece(db: &TestDb) {
    let mut w = World::new(db).await;
    let to = w.token_address(&w.alice.clone());
    // Mallory knows Alice's reply address but cannot send from Alice's address.
    let handled = w
        .handle(&mail("mallory@evil.test", &to, "Re: [dopis #1]", "e4", ""))
        .await;
    assert!(
        matches!(&handled, Handled::Done(Done::Refused(_))),
        "{handled:?}"
    );
    assert!(w.moves().await.is_empty());
    let out = w.outbox().await;
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        out[0].to, "alice@players.test",
        "the refusal goes to the registered address only"
    );
    assert!(out[0].text.contains("mallory@evil.test"), "{}", out[0].text);
}

async fn a_wrong_token_is_refused_and_changes_nothing(db: &TestDb) {
    let mut w = World::new(db).await;
    let handled = w
        .handle(&mail(
            "alice@players.test",
            "chess+g1.zzzzzzzzzz@chess.test",
            "Re: [dopis #1]",
            "e4",
            "",
        ))
        .await;
    assert!(
        matches!(
            &handled,
            Handled::Done(Done::Refused(Refused::Route {
                why: Reason::WrongToken { .. },
                ..
            }))
        ),
        "{handled:?}"
    );
    assert!(w.moves().await.is_empty());
    let out = w.outbox().await;
    assert_eq!(
        out.iter().map(|m| m.to.as_str()).collect::<Vec<_>>(),
        vec!["alice@players.test"]
    );
    // A stranger with a made-up token gets no answer at all.
    let handled = w
        .handle(&mail(
            "stranger@else.test",
            "chess+g1.zzzzzzzzzz@chess.test",
            "hi",
            "e4",
            "",
        ))
        .await;
    assert!(matches!(handled, Handled::Ignored(_)), "{handled:?}");
    assert!(w.outbox().await.is_empty());
}

async fn the_right_address_without_the_token_is_asked_to_confirm(db: &TestDb) {
    let mut w = World::new(db).await;
    // A fresh mail (not a reply) with the subject tag, to the plain address.
    let first = mail(
        "alice@players.test",
        "chess@chess.test",
        "[dopis #1] my move",
        "Nf3",
        "",
    );
    let handled = w.handle(&first).await;
    let received = w.app.now();
    assert!(
        matches!(&handled, Handled::Done(Done::AskedToConfirm { .. })),
        "{handled:?}"
    );
    assert!(
        w.moves().await.is_empty(),
        "nothing is played before the confirmation"
    );
    let out = w.outbox().await;
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to, "alice@players.test");
    let confirm_to = out[0].reply_to.clone().expect("a confirmation address");
    assert!(confirm_to.starts_with("chess+c"), "{confirm_to}");
    // Someone else replying to the confirmation address does nothing.
    let handled = w
        .handle(&mail(
            "mallory@evil.test",
            &confirm_to,
            "Re: confirm",
            "yes",
            "",
        ))
        .await;
    assert!(
        !matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move().is_some()),
        "{handled:?}"
    );
    assert!(w.moves().await.is_empty());
    w.outbox().await;
    // Alice confirms: the move is played, as of when her first mail came.
    let handled = w
        .handle(&mail(
            "alice@players.test",
            &confirm_to,
            "Re: confirm",
            "yes",
            "",
        ))
        .await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("Nf3")),
        "{handled:?}"
    );
    let game = w.app.game_row(w.game).await;
    assert_eq!(game.moves[0].received_at, Some(received));
    // Confirming twice plays nothing more.
    w.handle(&mail(
        "alice@players.test",
        &confirm_to,
        "Re: confirm",
        "yes",
        "",
    ))
    .await;
    assert_eq!(w.moves().await, vec!["Nf3"]);
}

async fn a_replayed_mail_acts_once(db: &TestDb) {
    let mut w = World::new(db).await;
    let raw = mail(
        "alice@players.test",
        &w.token_address(&w.alice.clone()),
        "Re: [dopis #1]",
        "d4",
        "",
    );
    assert!(matches!(w.handle(&raw).await, Handled::Done(_)));
    let first = w.outbox().await.len();
    assert_eq!(w.handle(&raw).await, Handled::Duplicate);
    assert_eq!(w.moves().await, vec!["d4"]);
    assert!(w.outbox().await.is_empty());
    assert_eq!(first, 2);
}

async fn bounces_auto_replies_and_lists_are_never_answered(db: &TestDb) {
    let mut w = World::new(db).await;
    let to = w.token_address(&w.alice.clone());
    for (from, headers) in [
        ("MAILER-DAEMON@players.test", "Return-Path: <>\r\n"),
        ("alice@players.test", "Auto-Submitted: auto-replied\r\n"),
        ("alice@players.test", "X-Autoreply: yes\r\n"),
        (
            "alice@players.test",
            "Precedence: bulk\r\nList-Id: <chess.lists.test>\r\n",
        ),
    ] {
        let handled = w
            .handle(&mail(
                from,
                &to,
                "Out of office",
                "I am away until Monday. e4",
                headers,
            ))
            .await;
        assert!(
            matches!(handled, Handled::Ignored(_)),
            "{headers}: {handled:?}"
        );
    }
    assert!(w.moves().await.is_empty());
    assert!(w.outbox().await.is_empty());
}

async fn illegal_and_unreadable_moves_get_an_explanation_and_change_nothing(db: &TestDb) {
    let mut w = World::new(db).await;
    let to = w.token_address(&w.alice.clone());
    for (text, says) in [
        ("e5", "cannot be played"),
        ("Ke2", "cannot be played"),
        ("hello", "move"),
    ] {
        w.handle(&mail("alice@players.test", &to, "Re: [dopis #1]", text, ""))
            .await;
        let out = w.outbox().await;
        assert_eq!(out.len(), 1, "{text}: {out:?}");
        assert_eq!(out[0].to, "alice@players.test");
        assert!(
            out[0].subject.contains(&format!("\"{text}\"")),
            "{text}: {}",
            out[0].subject
        );
        assert!(out[0].text.contains(says), "{text}: {}", out[0].text);
    }
    assert!(w.moves().await.is_empty());
    // Moving out of turn is explained too.
    let bob_to = w.token_address(&w.bob.clone());
    w.handle(&mail(
        "bob@players.test",
        &bob_to,
        "Re: [dopis #1]",
        "e5",
        "",
    ))
    .await;
    let out = w.outbox().await;
    assert!(out[0].text.contains("not your turn"), "{}", out[0].text);
}

async fn answers_to_one_address_are_rate_limited(db: &TestDb) {
    let mut w = World::new(db).await;
    let to = w.token_address(&w.alice.clone());
    let mut answered = 0;
    for i in 0..8 {
        let h = w
            .handle(&mail(
                "alice@players.test",
                &to,
                "Re: [dopis #1]",
                &format!("nonsense {i}"),
                "",
            ))
            .await;
        if matches!(h, Handled::Done(_)) {
            answered += 1;
        }
    }
    assert_eq!(answered, 5, "answers_per_hour = 5");
    assert_eq!(w.outbox().await.len(), 5);
}

async fn broken_mail_is_logged_and_refused_without_a_panic(db: &TestDb) {
    let mut w = World::new(db).await;
    for raw in [
        &b""[..],
        b"\x00\x01\x02 binary junk",
        b"Subject: no sender\r\n\r\ne4\r\n",
    ] {
        let handled = w.handle(raw).await;
        assert!(matches!(handled, Handled::Ignored(_)), "{handled:?}");
    }
    assert!(w.moves().await.is_empty());
    assert!(w.outbox().await.is_empty());
}

async fn with_require_dkim_an_unsigned_mail_moves_nothing(db: &TestDb) {
    let mut w = World::new(db).await;
    w.app.daemon.inbox.post.require_dkim = true;
    let to = w.token_address(&w.alice.clone());
    let handled = w
        .handle(&mail("alice@players.test", &to, "Re: [dopis #1]", "e4", ""))
        .await;
    assert_eq!(handled, Handled::Done(Done::Refused(Refused::Unsigned)));
    assert!(w.moves().await.is_empty());
    let out = w.outbox().await;
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].to, "alice@players.test");
    assert!(out[0].text.contains("DKIM"), "{}", out[0].text);
    // A stranger without a signature gets nothing.
    let handled = w
        .handle(&mail("stranger@else.test", &to, "hi", "e4", ""))
        .await;
    assert!(matches!(handled, Handled::Ignored(_)), "{handled:?}");
}

crate::on_both_backends!(
    with_require_dkim_an_unsigned_mail_moves_nothing,
    the_player_to_move_moves_by_replying_and_both_are_told,
    a_forged_from_never_moves_a_piece,
    a_wrong_token_is_refused_and_changes_nothing,
    the_right_address_without_the_token_is_asked_to_confirm,
    a_replayed_mail_acts_once,
    bounces_auto_replies_and_lists_are_never_answered,
    illegal_and_unreadable_moves_get_an_explanation_and_change_nothing,
    answers_to_one_address_are_rate_limited,
    broken_mail_is_logged_and_refused_without_a_panic,
);
