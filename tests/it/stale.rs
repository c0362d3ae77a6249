//! Stale replies, on both databases: a reply written for an earlier position
//! of a game (a reply to an old "your move" mail, a mail resent from a
//! client's outbox) is never played blindly, even when its move happens to
//! be legal again; the player is asked to confirm against the board as it is
//! now, unless the mail carries the current move number.
//!
//! The game used: 1. Nf3 Nf6 2. Ng1 Ng8, after which White's first move
//! `Nf3` is legal again, so a stale "Nf3" would be played if nothing
//! stopped it.

use std::collections::HashMap;

use chrono::Duration;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{Done, Handled};

use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent as Out;

/// A game between Alice (White) and Bob (Black), and a daemon's inbox.
struct World {
    app: TestApp,
    game: GameId,
    alice: Player,
    bob: Player,
    /// The newest "your move" mail each player got.
    your_move: HashMap<String, Out>,
}

/// A player's mail: to an address, maybe in reply to one of ours.
struct Mail<'a> {
    from: &'a str,
    to: &'a str,
    /// Our mail it answers (In-Reply-To and References), if any.
    parent: Option<&'a str>,
    body: &'a str,
    /// Its own Message-ID (without `<>`).
    id: String,
    /// Its Date header.
    date: &'a str,
}

impl Mail<'_> {
    fn raw(&self) -> Vec<u8> {
        let threading = match self.parent {
            Some(p) => format!("In-Reply-To: <{p}>\r\nReferences: <{p}>\r\n"),
            None => String::new(),
        };
        format!(
            "From: {from}\r\nTo: {to}\r\nSubject: Re: [dopis #1] Your move\r\nMessage-ID: <{id}>\r\n\
             {threading}Date: {date}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
             {body}\r\n\r\nOn Sunday dopis wrote:\r\n> Your move\r\n",
            from = self.from,
            to = self.to,
            id = self.id,
            date = self.date,
            body = self.body,
        )
        .into_bytes()
    }
}

/// A mail's text on one line: phrases are found wherever it was wrapped.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn new_id() -> String {
    format!("{:016x}@players.test", rand::random::<u64>())
}

impl World {
    async fn new(db: &TestDb) -> World {
        let app = TestApp::builder().answers_per_hour(50).open(db).await;
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
            your_move: HashMap::new(),
        };
        world.outbox().await;
        world
    }

    /// A new game between the same two players, in place of the last.
    async fn new_game(&mut self) {
        self.game = self
            .app
            .game(&self.alice, &self.bob, TimeControl::default())
            .await;
        self.outbox().await;
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
        for one in &out {
            if one.subject.contains("Your move") {
                self.your_move.insert(one.to.clone(), one.clone());
            }
        }
        out
    }

    /// The newest "your move" mail of a player.
    fn your_move_of(&self, player: &Player) -> Out {
        self.your_move
            .get(player.email.as_str())
            .cloned()
            .expect("a your-move mail")
    }

    /// `player` replies to their newest "your move" mail with `text`, and
    /// the move is played.
    async fn play(&mut self, player: &Player, text: &str) {
        let parent = self.your_move_of(player);
        let to = parent.reply_to.clone().expect("a reply address");
        let raw = Mail {
            from: player.email.as_str(),
            to: &to,
            parent: Some(&parent.message_id),
            body: text,
            id: new_id(),
            date: "Sun, 29 Nov 2026 12:00:00 +0000",
        }
        .raw();
        let handled = self.handle(&raw).await;
        assert!(
            matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move().is_some()),
            "{text}: {handled:?}"
        );
        self.outbox().await;
    }

    async fn moves(&self) -> Vec<String> {
        self.app.moves(self.game).await
    }

    /// Plays 1. Nf3 Nf6 2. Ng1 Ng8, each a reply to the newest "your move"
    /// mail, and returns Alice's first "your move" mail (the start position).
    async fn knights_out_and_back(&mut self) -> Out {
        let (alice, bob) = (self.alice.clone(), self.bob.clone());
        let first = self.your_move_of(&alice);
        for (player, text) in [
            (&alice, "Nf3"),
            (&bob, "Nf6"),
            (&alice, "Ng1"),
            (&bob, "Ng8"),
        ] {
            self.play(player, text).await;
        }
        assert_eq!(self.moves().await, ["Nf3", "Nf6", "Ng1", "Ng8"]);
        first
    }
}

async fn a_reply_to_an_old_your_move_mail_asks_to_confirm_and_confirming_plays_it(db: &TestDb) {
    let mut w = World::new(db).await;
    let old = w.knights_out_and_back().await;
    // Alice replies to her very first "your move" mail once more: Nf3 is
    // legal again, but she wrote it for the start position.
    let to = w.token_address(&w.alice.clone());
    let stale = Mail {
        from: "alice@players.test",
        to: &to,
        parent: Some(&old.message_id),
        body: "Nf3",
        id: new_id(),
        date: "Sun, 29 Nov 2026 13:00:00 +0000",
    };
    let handled = w.handle(&stale.raw()).await;
    assert!(
        matches!(&handled, Handled::Done(Done::AskedToConfirm { .. })),
        "{handled:?}"
    );
    assert_eq!(
        w.moves().await,
        ["Nf3", "Nf6", "Ng1", "Ng8"],
        "nothing is played before the confirmation"
    );
    let out = w.outbox().await;
    assert_eq!(out.len(), 1, "{out:?}");
    let ask = &out[0];
    assert_eq!(ask.to, "alice@players.test");
    assert!(ask.subject.contains("[dopis #1]"), "{}", ask.subject);
    assert!(ask.subject.contains("Nf3"), "{}", ask.subject);
    // It says why it asks, and shows the board as it is now.
    for says in [
        "our mail about White's move 1,",
        "the game has moved on to White's move 3.",
        "3. Nf3",
    ] {
        assert!(
            flat(&ask.text).contains(says),
            "lacks {says:?}:\n{}",
            ask.text
        );
    }
    assert!(ask.text.contains("a  b  c  d  e  f  g  h"), "{}", ask.text);
    let confirm_to = ask.reply_to.clone().expect("a confirmation address");
    assert!(confirm_to.starts_with("chess+c"), "{confirm_to}");
    // Confirming plays it, as of when the stale mail came.
    let received = w.app.now();
    let handled = w
        .handle(
            &Mail {
                from: "alice@players.test",
                to: &confirm_to,
                parent: Some(&ask.message_id),
                body: "yes",
                id: new_id(),
                date: "Sun, 29 Nov 2026 14:00:00 +0000",
            }
            .raw(),
        )
        .await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("Nf3")),
        "{handled:?}"
    );
    assert_eq!(w.moves().await, ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"]);
    let game = w.app.game_row(w.game).await;
    assert_eq!(game.moves[4].received_at, Some(received));
    let out = w.outbox().await;
    assert!(
        out.iter()
            .any(|m| m.to == "bob@players.test" && m.subject.contains("Your move")),
        "{out:?}"
    );
}

async fn the_same_mail_resent_with_a_new_message_id_is_not_played_twice(db: &TestDb) {
    let mut w = World::new(db).await;
    let first = w.your_move_of(&w.alice.clone());
    let to = w.token_address(&w.alice.clone());
    let mut sent = Mail {
        from: "alice@players.test",
        to: &to,
        parent: Some(&first.message_id),
        body: "Nf3",
        id: new_id(),
        date: "Sun, 29 Nov 2026 12:30:00 +0000",
    };
    let handled = w.handle(&sent.raw()).await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("Nf3")),
        "{handled:?}"
    );
    w.outbox().await;
    // Her mail program sends it again at once (same mail, new Message-ID):
    // not her turn, and the same mail besides.
    sent.id = new_id();
    w.handle(&sent.raw()).await;
    let out = w.outbox().await;
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].subject.contains("Already received"), "{out:?}");
    assert!(
        flat(&out[0].text).contains("nothing was done"),
        "{}",
        out[0].text
    );
    // The game goes on until Nf3 is legal for Alice again.
    let (alice, bob) = (w.alice.clone(), w.bob.clone());
    w.play(&bob, "Nf6").await;
    w.play(&alice, "Ng1").await;
    w.play(&bob, "Ng8").await;
    // And once more, as an outbox retry would: still played only once.
    sent.id = new_id();
    let handled = w.handle(&sent.raw()).await;
    assert!(
        !matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move().is_some()),
        "{handled:?}"
    );
    assert_eq!(w.moves().await, ["Nf3", "Nf6", "Ng1", "Ng8"]);
    let out = w.outbox().await;
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].to, "alice@players.test");
    assert!(out[0].subject.contains("Already received"), "{out:?}");
    // It says when the first copy came, and where the game stands.
    assert!(out[0].text.contains("2026-11-29"), "{}", out[0].text);
    assert!(
        out[0].text.contains("a  b  c  d  e  f  g  h"),
        "{}",
        out[0].text
    );
}

async fn a_confirmation_answered_after_the_game_moved_on_asks_again(db: &TestDb) {
    let mut w = World::new(db).await;
    let old = w.knights_out_and_back().await;
    let to = w.token_address(&w.alice.clone());
    w.handle(
        &Mail {
            from: "alice@players.test",
            to: &to,
            parent: Some(&old.message_id),
            body: "Nf3",
            id: new_id(),
            date: "Sun, 29 Nov 2026 13:00:00 +0000",
        }
        .raw(),
    )
    .await;
    let ask = w.outbox().await.remove(0);
    let confirm_to = ask.reply_to.clone().expect("a confirmation address");
    // Alice plays another move instead, and Bob answers it.
    let (alice, bob) = (w.alice.clone(), w.bob.clone());
    w.play(&alice, "Nc3").await;
    w.play(&bob, "Nc6").await;
    // Now she confirms the old question: Nf3 is legal, but the board is not
    // the one she was asked about. She is asked again, nothing is played.
    let handled = w
        .handle(
            &Mail {
                from: "alice@players.test",
                to: &confirm_to,
                parent: Some(&ask.message_id),
                body: "yes",
                id: new_id(),
                date: "Sun, 29 Nov 2026 15:00:00 +0000",
            }
            .raw(),
        )
        .await;
    assert!(
        matches!(&handled, Handled::Done(Done::AskedToConfirm { .. })),
        "{handled:?}"
    );
    assert_eq!(w.moves().await, ["Nf3", "Nf6", "Ng1", "Ng8", "Nc3", "Nc6"]);
    let out = w.outbox().await;
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        flat(&out[0].text).contains("our mail about White's move 3,"),
        "{}",
        out[0].text
    );
    assert!(
        flat(&out[0].text).contains("the game has moved on to White's move 4."),
        "{}",
        out[0].text
    );
    let again = out[0].reply_to.clone().expect("a new confirmation address");
    assert_ne!(again, confirm_to);
    // The new question, answered at once, plays the move.
    let handled = w
        .handle(
            &Mail {
                from: "alice@players.test",
                to: &again,
                parent: Some(&out[0].message_id),
                body: "yes",
                id: new_id(),
                date: "Sun, 29 Nov 2026 15:10:00 +0000",
            }
            .raw(),
        )
        .await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("Nf3")),
        "{handled:?}"
    );
}

/// Who writes a case's mail.
#[derive(Clone, Copy)]
enum Who {
    Alice,
    Bob,
}

/// One row of the table below: after 1. Nf3 Nf6 2. Ng1 Ng8 (and maybe more
/// moves played as usual), a player's mail, and what it must come to.
struct Case {
    what: &'static str,
    /// Moves played as usual after the knights came back.
    then: &'static [&'static str],
    /// Days that pass before the mail comes.
    days_later: i64,
    from: Who,
    /// Whether the mail replies to Alice's first "your move" mail (the start
    /// position); if not, it is a new mail, not a reply.
    replies_to_the_first_mail: bool,
    body: &'static str,
    /// What the inbox made of the mail.
    handled: fn(&Handled) -> bool,
    /// The game's moves after it.
    moves: &'static [&'static str],
    result: Option<&'static str>,
}

/// The mail played Nf3.
fn played_nf3(handled: &Handled) -> bool {
    matches!(handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("Nf3"))
}

/// A command of the mail was turned down.
fn rejected(handled: &Handled) -> bool {
    matches!(handled, Handled::Done(Done::Ruled(r)) if r.rejected)
}

/// The player was asked to confirm.
fn asked_to_confirm(handled: &Handled) -> bool {
    matches!(handled, Handled::Done(Done::AskedToConfirm { .. }))
}

/// The game ended on time before the mail came.
fn out_of_time(handled: &Handled) -> bool {
    matches!(handled, Handled::Done(Done::Ruled(r)) if r.out_of_time.is_some())
}

const CASES: &[Case] = &[
    Case {
        what: "a stale reply that names the current move number is played",
        then: &[],
        days_later: 0,
        from: Who::Alice,
        replies_to_the_first_mail: true,
        body: "3. Nf3",
        handled: played_nf3,
        moves: &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"],
        result: None,
    },
    Case {
        what: "a stale reply that names an old move number is refused: it names another move",
        then: &["Nf3"],
        days_later: 0,
        from: Who::Bob,
        replies_to_the_first_mail: true,
        body: "1... Nf6",
        handled: rejected,
        moves: &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"],
        result: None,
    },
    Case {
        what: "a new mail to the reply address, not a reply, is not stale: \
               we cannot know which position it was written for",
        then: &[],
        days_later: 0,
        from: Who::Alice,
        replies_to_the_first_mail: false,
        body: "Nf3",
        handled: played_nf3,
        moves: &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"],
        result: None,
    },
    Case {
        what: "a stale resignation is asked about before it ends the game",
        then: &[],
        days_later: 0,
        from: Who::Alice,
        replies_to_the_first_mail: true,
        body: "resign",
        handled: asked_to_confirm,
        moves: &["Nf3", "Nf6", "Ng1", "Ng8"],
        result: None,
    },
    Case {
        what: "a stale reply after the deadline (three days per move, four \
               days later) ends the game on time without asking",
        then: &[],
        days_later: 4,
        from: Who::Alice,
        replies_to_the_first_mail: true,
        body: "Nf3",
        handled: out_of_time,
        moves: &["Nf3", "Nf6", "Ng1", "Ng8"],
        result: Some("0-1"),
    },
];

/// Each case on a game of its own between the same two players.
async fn a_reply_is_judged_by_the_position_it_was_written_for(db: &TestDb) {
    let mut w = World::new(db).await;
    for (n, case) in CASES.iter().enumerate() {
        if n > 0 {
            w.new_game().await;
        }
        let first = w.knights_out_and_back().await;
        let (alice, bob) = (w.alice.clone(), w.bob.clone());
        for (i, text) in case.then.iter().enumerate() {
            let player = if i % 2 == 0 { &alice } else { &bob };
            w.play(player, text).await;
        }
        w.app.advance(Duration::days(case.days_later));
        let player = match case.from {
            Who::Alice => &alice,
            Who::Bob => &bob,
        };
        let to = w.token_address(player);
        let handled = w
            .handle(
                &Mail {
                    from: player.email.as_str(),
                    to: &to,
                    parent: case
                        .replies_to_the_first_mail
                        .then_some(first.message_id.as_str()),
                    body: case.body,
                    id: new_id(),
                    date: "Sun, 29 Nov 2026 13:00:00 +0000",
                }
                .raw(),
            )
            .await;
        assert!((case.handled)(&handled), "{}: {handled:?}", case.what);
        assert_eq!(w.moves().await, case.moves, "{}", case.what);
        let game = w.app.game_row(w.game).await;
        assert_eq!(game.result.as_deref(), case.result, "{}", case.what);
        w.outbox().await;
    }
}

crate::on_both_backends!(
    a_reply_is_judged_by_the_position_it_was_written_for,
    a_reply_to_an_old_your_move_mail_asks_to_confirm_and_confirming_plays_it,
    the_same_mail_resent_with_a_new_message_id_is_not_played_twice,
    a_confirmation_answered_after_the_game_moved_on_asks_again,
);
