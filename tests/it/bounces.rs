//! Headers that must not be trusted and mail that must not start a loop, on
//! both backends: a NUL in From is unreadable and blocks nothing;
//! auto-replies without RFC 3834 headers and our own mails sent back are
//! never answered, a person's reply still is; a player whose address keeps
//! bouncing is paused (their mail held, not lost), their TDs told in their
//! language, and resumed by a mail of theirs or by `dopis player resume`.

use chrono::Duration;

use dopis::domain::address::EmailAddress;
use dopis::domain::ids::GameId;
use dopis::service::app::{Clock, SystemClock};
use dopis::service::inbox::{BounceNote, Handled, Ignored};

use crate::support::app::{TestApp, outbox_rows_of};
use crate::support::{TestDb, dopis, ok};

const SECRET: &str = "bounce test secret";

/// Spring cup (TD Tina, who reads German; Ana, Bor and Cene: games #1 to
/// #3) and one game outside events, Dana against Eva (#4).
struct Club {
    dir: tempfile::TempDir,
    app: TestApp,
}

/// A mail as the test reads it from the outbox.
#[derive(Debug)]
struct Sent {
    to: String,
    message_id: String,
    subject: String,
    text: String,
    auto_submitted: String,
    x_loop: String,
    in_reply_to: Option<String>,
}

impl Club {
    async fn new(db: &TestDb) -> Club {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("dopis.toml"),
            format!(
                "[mail]\naddress = \"chess@chess.test\"\nsecret = \"{SECRET}\"\n\n\
                 [mail.maildir]\npath = \"mail\"\n"
            ),
        )
        .unwrap();
        ok(&dopis(d, db, &["init"]));
        ok(&dopis(
            d,
            db,
            &[
                "player",
                "add",
                "--email",
                "tina@club.test",
                "--name",
                "Tina",
                "--lang",
                "de",
            ],
        ));
        std::fs::write(
            d.join("spring.toml"),
            "name = \"Spring cup\"\nkind = \"round-robin\"\ntds = [\"tina@club.test\"]\n\
             [[players]]\nemail = \"ana@players.test\"\nname = \"Ana\"\n\
             [[players]]\nemail = \"bor@players.test\"\nname = \"Bor\"\n\
             [[players]]\nemail = \"cene@players.test\"\nname = \"Cene\"\n",
        )
        .unwrap();
        ok(&dopis(d, db, &["event", "create", "spring.toml"]));
        ok(&dopis(d, db, &["event", "start", "1"]));
        for (email, name) in [("dana@players.test", "Dana"), ("eva@players.test", "Eva")] {
            ok(&dopis(
                d,
                db,
                &["player", "add", "--email", email, "--name", name],
            ));
        }
        ok(&dopis(
            d,
            db,
            &[
                "game",
                "new",
                "--white",
                "dana@players.test",
                "--black",
                "eva@players.test",
            ],
        ));
        // The CLI made the games at the real time: the app goes on from there.
        let app = TestApp::builder()
            .at(SystemClock.now())
            .secret(SECRET)
            .answers_per_hour(100)
            .bounces(3, 7)
            .open(db)
            .await;
        Club { dir, app }
    }

    /// Every mail that can be sent now (held mail stays), marked sent.
    async fn sent(&mut self) -> Vec<Sent> {
        self.app
            .sent()
            .await
            .into_iter()
            .map(|m| Sent {
                auto_submitted: m.header("Auto-Submitted"),
                x_loop: m.header("X-Loop"),
                to: m.to,
                message_id: m.message_id,
                subject: m.subject,
                text: m.text,
                in_reply_to: m.in_reply_to,
            })
            .collect()
    }

    async fn handle(&mut self, raw: &[u8]) -> Handled {
        self.app.advance(Duration::minutes(1));
        self.app.deliver(raw).await
    }

    /// The reply address of a player in a game.
    async fn reply_address(&self, game: i64, email: &str) -> String {
        let player = self.app.player_by_email(email).await;
        self.app.reply_address(GameId(game), &player)
    }

    /// The first game (of the four) in which `email` plays, as White when
    /// `white`, else as either colour.
    async fn game_of(&self, email: &str, white: bool) -> i64 {
        let player = self.app.player_by_email(email).await;
        for id in 1..=4 {
            let g = self.app.game_row(GameId(id)).await;
            if g.white == player.id || (!white && g.black == player.id) {
                return id;
            }
        }
        panic!("{email} plays no game");
    }

    /// Moves played in a game.
    async fn moves(&self, game: i64) -> usize {
        self.app.game_row(GameId(game)).await.moves.len()
    }
}

/// A person's plain mail.
fn mail(from: &str, to: &str, subject: &str, body: &str, headers: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{:016x}@players.test>\r\n\
         Date: Mon, 2 Mar 2026 12:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\
         {headers}\r\n{body}\r\n",
        rand::random::<u64>()
    )
    .into_bytes()
}

/// A Postfix delivery status notification: `failed` did not take the mail
/// with Message-ID `returned`.
fn dsn(failed: &str, status: &str, returned: &str) -> Vec<u8> {
    let id = rand::random::<u64>();
    format!(
        "Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.players.test (Mail Delivery System)\r\n\
         To: chess@chess.test\r\nSubject: Undelivered Mail Returned to Sender\r\n\
         Message-Id: <{id:016x}@mx.players.test>\r\nAuto-Submitted: auto-replied\r\n\
         MIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"b{id}\"\r\n\r\n\
         --b{id}\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n\r\n\
         --b{id}\r\nContent-Type: message/delivery-status\r\n\r\n\
         Reporting-MTA: dns; mx.players.test\r\n\r\n\
         Final-Recipient: rfc822; {failed}\r\nOriginal-Recipient: rfc822;{failed}\r\n\
         Action: failed\r\nStatus: {status}\r\n\
         Diagnostic-Code: smtp; 550 {status} User unknown\r\n\r\n\
         --b{id}\r\nContent-Type: text/rfc822-headers\r\n\r\n\
         From: dopis <chess@chess.test>\r\nTo: {failed}\r\nMessage-ID: <{returned}>\r\n\
         X-Loop: chess@chess.test\r\n\r\n--b{id}--\r\n"
    )
    .into_bytes()
}

async fn paused(club: &Club, email: &str) -> bool {
    club.app
        .store
        .pause_of(&EmailAddress::parse(email).unwrap())
        .await
        .unwrap()
        .is_some()
}

async fn a_player_whose_address_keeps_bouncing_is_paused_and_the_td_told_in_their_language(
    db: &TestDb,
) {
    let mut club = Club::new(db).await;
    // Three mails to Bor: his first game mails, and an answer to "games".
    club.handle(&mail(
        "bor@players.test",
        "chess@chess.test",
        "games",
        "games",
        "",
    ))
    .await;
    let to_bor: Vec<String> = club
        .sent()
        .await
        .into_iter()
        .filter(|m| m.to == "bor@players.test")
        .map(|m| m.message_id)
        .collect();
    assert!(to_bor.len() >= 3, "{to_bor:?}");

    // A forged bounce names a mail we never sent: it counts for nothing.
    let h = club
        .handle(&dsn(
            "bor@players.test",
            "5.1.1",
            "dopis.g1.guessedguess@chess.test",
        ))
        .await;
    assert!(
        matches!(&h, Handled::Ignored(Ignored::Bounce(Some(notes))) if notes.iter().any(|n| matches!(n, BounceNote::NotCounted { .. }))),
        "{h:?}"
    );
    // A soft failure (mailbox full, for now) does not count either.
    club.handle(&dsn("bor@players.test", "4.2.2", &to_bor[0]))
        .await;
    // Two reports of one mail count once; two hard bounces do not pause.
    for returned in [&to_bor[0], &to_bor[0], &to_bor[1]] {
        let h = club
            .handle(&dsn("bor@players.test", "5.1.1", returned))
            .await;
        assert!(matches!(h, Handled::Ignored(_)), "{h:?}");
    }
    assert!(!paused(&club, "bor@players.test").await);
    assert!(club.sent().await.is_empty(), "a bounce is never answered");

    // The third pauses Bor and tells Tina, the TD, in German.
    let h = club
        .handle(&dsn("bor@players.test", "5.1.1", &to_bor[2]))
        .await;
    assert!(
        matches!(&h, Handled::Ignored(Ignored::Bounce(Some(notes))) if notes.iter().any(|n| matches!(n, BounceNote::Paused { address, tds: 1, .. } if address == "bor@players.test"))),
        "{h:?}"
    );
    assert!(paused(&club, "bor@players.test").await);
    let told = club.sent().await;
    assert_eq!(told.len(), 1, "{told:?}");
    let tina = &told[0];
    assert_eq!(tina.to, "tina@club.test");
    assert_eq!(
        tina.subject,
        "[dopis] Mails an Bor kommen zurück: zurückgehalten bis zur Freigabe"
    );
    assert!(
        tina.text.contains("Bor <bor@players.test>"),
        "{}",
        tina.text
    );
    assert!(tina.text.contains("(Spring cup)"), "{}", tina.text);
    assert!(
        tina.text.contains("dopis player resume bor@players.test"),
        "{}",
        tina.text
    );
    assert_eq!(tina.auto_submitted, "auto-generated");
    let shown = ok(&dopis(
        club.dir.path(),
        db,
        &["player", "show", "bor@players.test"],
    ));
    assert!(
        shown.contains("mail:      paused since") && shown.contains("3 of our mails bounced"),
        "{shown}"
    );

    // Mail to Bor is held while paused; everyone else's goes out.
    club.handle(&mail(
        "bor@players.test",
        "chess@chess.test",
        "games",
        "games",
        "",
    ))
    .await;
    assert!(club.sent().await.is_empty(), "held, not sent");
    // Bor writes in one of his games with his reply address: that
    // authenticates, so he is resumed, and the held mail goes out first.
    let game = club.game_of("bor@players.test", false).await;
    let bor_in = club.reply_address(game, "bor@players.test").await;
    club.handle(&mail(
        "bor@players.test",
        &bor_in,
        "Re: [dopis]",
        "status",
        "",
    ))
    .await;
    assert!(!paused(&club, "bor@players.test").await);
    let released = club.sent().await;
    assert!(
        released.len() >= 2 && released.iter().all(|m| m.to == "bor@players.test"),
        "{released:?}"
    );
    // Bounces before the resume no longer count: one more does not pause.
    club.handle(&dsn("bor@players.test", "5.1.1", &released[0].message_id))
        .await;
    assert!(!paused(&club, "bor@players.test").await);
}

async fn dopis_player_resume_releases_the_held_mail_and_a_game_outside_events_tells_no_td(
    db: &TestDb,
) {
    let mut club = Club::new(db).await;
    for _ in 0..2 {
        club.handle(&mail(
            "dana@players.test",
            "chess@chess.test",
            "games",
            "games",
            "",
        ))
        .await;
    }
    let to_dana: Vec<String> = club
        .sent()
        .await
        .into_iter()
        .filter(|m| m.to == "dana@players.test")
        .map(|m| m.message_id)
        .collect();
    assert_eq!(to_dana.len(), 3, "{to_dana:?}");
    for (i, returned) in to_dana.iter().enumerate() {
        let h = club
            .handle(&dsn("dana@players.test", "5.1.1", returned))
            .await;
        if i == 2 {
            // Dana plays only outside events: no TD to tell.
            assert!(
                matches!(&h, Handled::Ignored(Ignored::Bounce(Some(notes))) if notes.iter().any(|n| matches!(n, BounceNote::Paused { address, tds: 0, .. } if address == "dana@players.test"))),
                "{h:?}"
            );
        }
    }
    assert!(club.sent().await.is_empty(), "nobody is mailed");
    club.handle(&mail(
        "dana@players.test",
        "chess@chess.test",
        "games",
        "games",
        "",
    ))
    .await;
    assert!(club.sent().await.is_empty(), "held");
    let said = ok(&dopis(
        club.dir.path(),
        db,
        &["player", "resume", "dana@players.test"],
    ));
    assert!(said.contains("resumed dana@players.test"), "{said}");
    let released: Vec<String> = club.sent().await.into_iter().map(|m| m.to).collect();
    assert_eq!(released, vec!["dana@players.test"]);
    let again = ok(&dopis(
        club.dir.path(),
        db,
        &["player", "resume", "dana@players.test"],
    ));
    assert!(again.contains("is not paused"), "{again}");
    let shown = ok(&dopis(
        club.dir.path(),
        db,
        &["player", "show", "dana@players.test"],
    ));
    assert!(shown.contains("mail:      sent as usual"), "{shown}");
}

async fn auto_replies_without_rfc_3834_headers_and_our_own_mail_sent_back_are_never_answered(
    db: &TestDb,
) {
    let mut club = Club::new(db).await;
    club.sent().await;
    let game = club.game_of("ana@players.test", true).await;
    let ana = club.reply_address(game, "ana@players.test").await;
    // Twenty answers an hour went to such a responder before: now none.
    let cases = [
        ("Automatic reply: [dopis #1] Your move", ""),
        ("Samodejni odgovor: [dopis #1] Na potezi ste", ""),
        ("Odsotnost: [dopis #1] Na potezi ste", ""),
        ("Autoodpowiedź: [dopis #1] Twój ruch", ""),
        ("Automātiskā atbilde: [dopis #1] Jūsu gājiens", ""),
        ("Abwesenheitsnotiz: [dopis #1] Sie sind am Zug", ""),
        ("Out of Office: Re: [dopis #1] Your move", ""),
        (
            "Re: [dopis #1] Your move",
            "X-MS-Exchange-Inbox-Rules-Loop: ana@players.test\r\n",
        ),
        ("Re: [dopis #1] Your move", "X-Loop: chess@chess.test\r\n"),
        ("[dopis #1] Your move", "X-Loop: CHESS@chess.test\r\n"),
    ];
    for (subject, headers) in cases {
        for _ in 0..3 {
            let h = club
                .handle(&mail(
                    "ana@players.test",
                    &ana,
                    subject,
                    "I am away until Monday. e4",
                    headers,
                ))
                .await;
            assert!(
                matches!(h, Handled::Ignored(_)),
                "{subject} {headers}: {h:?}"
            );
        }
    }
    assert!(club.sent().await.is_empty(), "nothing answered");
    assert_eq!(club.moves(game).await, 0);
    // A person whose subject merely starts like one is read: the move is played.
    let h = club
        .handle(&mail(
            "ana@players.test",
            &ana,
            "Out of office: back on Monday",
            "e4",
            "",
        ))
        .await;
    assert!(matches!(h, Handled::Done(_)), "{h:?}");
    assert_eq!(club.moves(game).await, 1);
    // What we sent: the answer to Ana is auto-replied to her mail, the
    // notice to her opponent auto-generated; both name us in X-Loop.
    let sent = club.sent().await;
    assert_eq!(sent.len(), 2, "{sent:?}");
    for m in &sent {
        assert_eq!(m.x_loop, "chess@chess.test", "{m:?}");
        if m.to == "ana@players.test" {
            assert_eq!(m.auto_submitted, "auto-replied", "{m:?}");
            assert!(m.in_reply_to.is_some(), "{m:?}");
        } else {
            assert_eq!(m.auto_submitted, "auto-generated", "{m:?}");
            assert_eq!(m.in_reply_to, None, "{m:?}");
        }
    }
}

async fn a_from_with_a_nul_is_unreadable_to_both_databases_and_the_next_mail_plays(db: &TestDb) {
    let mut club = Club::new(db).await;
    club.sent().await;
    for raw in [
        &b"From: stranger\0@nowhere.test\r\nTo: chess@chess.test\r\nSubject: hi\0\r\n\r\ne4\r\n"[..],
        b"From: ana@players.test\0evil\r\nTo: chess@chess.test\r\n\r\ne4\r\n",
        b"From: bor@players.test\r\nFrom: ana@players.test\r\nTo: chess@chess.test\r\n\r\ne4\r\n",
        b"From: <ana@players.test\r\nTo: chess@chess.test\r\n\r\ne4\r\n",
    ] {
        let h = club.handle(raw).await;
        assert!(
            matches!(&h, Handled::Ignored(Ignored::Unreadable(e)) if !e.contains('\0')),
            "{h:?}"
        );
    }
    assert!(club.sent().await.is_empty(), "nobody is answered");
    let game = club.game_of("ana@players.test", true).await;
    let ana = club.reply_address(game, "ana@players.test").await;
    let h = club
        .handle(&mail("ana@players.test", &ana, "Re: [dopis]", "e4", ""))
        .await;
    assert!(matches!(h, Handled::Done(_)), "{h:?}");
    assert_eq!(club.moves(game).await, 1);
}

crate::on_both_backends!(
    a_from_with_a_nul_is_unreadable_to_both_databases_and_the_next_mail_plays,
    a_player_whose_address_keeps_bouncing_is_paused_and_the_td_told_in_their_language,
    dopis_player_resume_releases_the_held_mail_and_a_game_outside_events_tells_no_td,
    auto_replies_without_rfc_3834_headers_and_our_own_mail_sent_back_are_never_answered,
);

/// Our SMTP server refuses a player's address at once (5xx at RCPT, as the
/// test mail stack does for an unknown user): three such refusals count as
/// three hard bounces, so the player is paused and the TD told, as with
/// returned DSNs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_our_smtp_server_refuses_at_once_pauses_its_player_and_tells_the_td() {
    let Some(stack) = crate::support::mailstack() else {
        return;
    };
    let db = crate::support::sqlite();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("dopis.toml"),
        format!(
            "[mail]\naddress = \"chess@chess.test\"\nsecret = \"{SECRET}\"\n\n\
             [mail.maildir]\npath = \"mail\"\n\n\
             [mail.smtp]\nhost = \"127.0.0.1\"\nport = {}\ntls = \"none\"\n",
            stack.smtp_port
        ),
    )
    .unwrap();
    ok(&dopis(d, &db, &["init"]));
    ok(&dopis(
        d,
        &db,
        &[
            "player",
            "add",
            "--email",
            "carol@players.test",
            "--name",
            "Carol",
        ],
    ));
    let dana = crate::support::scratch_user();
    std::fs::write(
        d.join("cup.toml"),
        format!(
            "name = \"Cup\"\nkind = \"round-robin\"\ntds = [\"carol@players.test\"]\n\
             [[players]]\nemail = \"alice@players.test\"\nname = \"Alice\"\n\
             [[players]]\nemail = \"bob@players.test\"\nname = \"Bob\"\n\
             [[players]]\nemail = \"zed@players.test\"\nname = \"Zed\"\n\
             [[players]]\nemail = \"{dana}\"\nname = \"Dana\"\n"
        ),
    )
    .unwrap();
    ok(&dopis(d, &db, &["event", "create", "cup.toml"]));
    ok(&dopis(d, &db, &["event", "start", "1"]));
    // Zed's three first game mails are refused by the server.
    let serve = std::process::Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(d)
        .env_remove("DOPIS_CONFIG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .env("DOPIS_LOG", "warn")
        .args(["serve", "--once"])
        .output()
        .unwrap();
    ok(&serve);
    let shown = ok(&dopis(d, &db, &["player", "show", "zed@players.test"]));
    assert!(shown.contains("paused"), "{shown}");
    let rows = outbox_rows_of(&db).await;
    let to_carol: Vec<_> = rows
        .iter()
        .filter(|m| m.recipient == "carol@players.test" && m.mail_key.starts_with("bounce."))
        .collect();
    assert_eq!(to_carol.len(), 1, "the TD is told once: {to_carol:?}");
    assert_eq!(to_carol[0].status, "sent");
    let refused = rows
        .iter()
        .filter(|m| m.recipient == "zed@players.test" && m.status == "failed")
        .count();
    assert_eq!(refused, 3, "each refused once, none retried");
}
