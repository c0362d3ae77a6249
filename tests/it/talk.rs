//! Players talk: a message written below a move reaches the opponent with
//! the mail about that move (text and HTML), a mail of prose alone is passed
//! on by itself, a move with words on its line is refused, messages are
//! kept in the PGN, and an event may forbid them. In process through
//! `Inbox::handle`, on both backends; `e2e.rs` plays the same over real mail.

use chrono::{Duration, TimeZone, Utc};

use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::Handled;

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent;

async fn app(db: &TestDb) -> TestApp {
    TestApp::builder()
        .at(Utc.with_ymd_and_hms(2026, 11, 29, 9, 0, 0).unwrap())
        .address("chess@dopis.test")
        .name("dopis")
        .secret("a test secret that is long enough")
        .open(db)
        .await
}

/// `who` writes `text` to `game`'s reply address, the mail they answer
/// quoted below with an "On … wrote:" line, as a client replies.
async fn write(app: &TestApp, game: GameId, who: &Player, text: &str) -> Handled {
    app.advance(Duration::hours(3));
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [dopis #{game}]\r\n\
         Message-ID: <{n:016x}@players.test>\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\
         {text}\r\n\r\nOn Sunday dopis wrote:\r\n> It is your move: 1. ?\r\n> Nf3 is legal\r\n",
        from = who.email,
        to = app.reply_address(game, who),
        game = game.0,
        n = rand::random::<u64>(),
    );
    app.deliver(raw.as_bytes()).await
}

fn to<'a>(mails: &'a [Sent], who: &Player) -> Vec<&'a Sent> {
    mails
        .iter()
        .filter(|m| m.to == who.email.to_string())
        .collect()
}

async fn a_message_with_a_move_reaches_the_opponent_and_the_pgn(db: &TestDb) {
    let app = app(db).await;
    let ana = app
        .player("ana@players.test", "Ana Novak", Lang::Sl, None)
        .await;
    let jan = app
        .player("jan@players.test", "Jan Kowalski", Lang::Pl, None)
        .await;
    let game = app.game(&ana, &jan, TimeControl::default()).await;
    app.sent().await;

    // Ana's move, a message below it, her signature and the quoted mail.
    let handled = write(
        &app,
        game,
        &ana,
        "e4\r\nHvala za igro & <b>srečno</b>!\r\n\r\nAna\r\n-- \r\nSent from my phone",
    )
    .await;
    assert!(matches!(handled, Handled::Done(_)), "{handled:?}");
    assert_eq!(app.moves(game).await, ["e4"]);
    let mails = app.sent().await;
    let told = to(&mails, &jan);
    assert_eq!(
        told.len(),
        1,
        "one mail tells Jan of the move and the message"
    );
    let jans = told[0];
    assert!(jans.text.contains("Ana Novak pisze:"), "{}", jans.text);
    assert!(
        jans.text
            .replace("\r\n", "\n")
            .contains("    Hvala za igro & <b>srečno</b>!\n\n    Ana"),
        "{}",
        jans.text
    );
    for gone in ["Sent from my phone", "Nf3 is legal", "On Sunday"] {
        assert!(!jans.text.contains(gone), "{gone}: {}", jans.text);
    }
    assert!(
        jans.html
            .contains("Hvala za igro &amp; &lt;b&gt;srečno&lt;"),
        "{}",
        jans.html
    );
    assert!(!jans.html.contains("<b>srečno"), "{}", jans.html);
    let anas = to(&mails, &ana);
    assert_eq!(anas.len(), 1, "{anas:?}");
    assert!(
        anas[0]
            .text
            .contains("Vaše sporočilo smo posredovali naprej (prejme ga Jan Kowalski)."),
        "{}",
        anas[0].text
    );

    // Jan answers with a message alone: passed on, nothing played.
    let handled = write(&app, game, &jan, "Dziękuję, nawzajem, powodzenia!").await;
    assert!(matches!(handled, Handled::Done(_)), "{handled:?}");
    assert_eq!(app.moves(game).await, ["e4"]);
    let mails = app.sent().await;
    let for_ana = to(&mails, &ana);
    assert_eq!(for_ana.len(), 1);
    assert!(
        for_ana[0].subject.contains("Sporočilo: Jan Kowalski"),
        "{}",
        for_ana[0].subject
    );
    assert!(
        for_ana[0]
            .text
            .contains("    Dziękuję, nawzajem, powodzenia!")
    );
    let for_jan = to(&mails, &jan);
    assert_eq!(for_jan.len(), 1);
    assert!(
        for_jan[0]
            .subject
            .contains("Twoja wiadomość została przekazana"),
        "{}",
        for_jan[0].subject
    );

    // A move with words on its line is refused; nothing is played or passed on.
    write(&app, game, &jan, "e5 dzięki").await;
    assert_eq!(app.moves(game).await, ["e4"]);
    let mails = app.sent().await;
    assert!(to(&mails, &ana).is_empty());
    let refused = to(&mails, &jan);
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].text.contains("> e5 dzięki"),
        "{}",
        refused[0].text
    );
    assert!(
        refused[0]
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains("wpisz ruch w pierwszym wierszu, a wiadomość w wierszach pod nim"),
        "{}",
        refused[0].text
    );

    // Written right, the move is played and the message told.
    write(&app, game, &jan, "e5\r\nTo był literówka.").await;
    assert_eq!(app.moves(game).await, ["e4", "e5"]);
    let mails = app.sent().await;
    assert!(to(&mails, &ana)[0].text.contains("To był literówka."));

    // The PGN carries every message after the move it came with.
    write(&app, game, &ana, "pgn").await;
    let mails = app.sent().await;
    let pgn = &to(&mails, &ana)[0].text;
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("1. e4 {[%rcv")
            && flat.contains("{Ana Novak: Hvala za igro & <b>srečno</b>! Ana}")
            && flat.contains("{Jan Kowalski: Dziękuję, nawzajem, powodzenia!} 1... e5")
            && flat.contains("{Jan Kowalski: To był literówka.} *"),
        "{pgn}"
    );
    let start = pgn.find("[Event").expect("the PGN");
    let parsed = dopis::domain::chess::pgn::import(&pgn[start..]).expect("the PGN reads back");
    assert_eq!(parsed.game.plies().len(), 2);
    app.close().await;
}

const QUIET_EVENT: &str = r#"
name = "Quiet cup"
kind = "round-robin"
tds = ["td@example.org"]
messages = false

[[players]]
email = "ana@players.test"
name = "Ana Novak"
lang = "de"

[[players]]
email = "jan@players.test"
name = "Jan Kowalski"

[[players]]
email = "liga@players.test"
name = "Līga Bērziņa"
"#;

async fn an_event_without_messages_plays_the_move_and_says_why_the_message_stayed(db: &TestDb) {
    let app = app(db).await;
    let (_, games) = app.event(QUIET_EVENT).await;
    app.sent().await;
    let ana = app.player_by_email("ana@players.test").await;
    let mut found = None;
    for g in games {
        let record = app.game_row(g).await;
        if record.white == ana.id {
            found = Some((g, record));
            break;
        }
    }
    let (game, record) = found.expect("a game with Ana as White");
    let black = app.player_row(record.black).await;
    write(&app, game, &ana, "e4\r\nViel Glück!").await;
    assert_eq!(app.moves(game).await, ["e4"]);
    let mails = app.sent().await;
    let theirs = to(&mails, &black);
    assert_eq!(theirs.len(), 1);
    assert!(!theirs[0].text.contains("Viel Glück"), "{}", theirs[0].text);
    let hers = to(&mails, &ana);
    assert_eq!(hers.len(), 1);
    let flat = hers[0]
        .text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("Ihre Nachricht wurde nicht weitergegeben: In diesem Turnier"),
        "{}",
        hers[0].text
    );
    // A message alone is not passed on either, and says so.
    write(&app, game, &black, "Thanks for the game, good luck!").await;
    let mails = app.sent().await;
    assert!(to(&mails, &ana).is_empty());
    let answer = to(&mails, &black);
    assert!(
        answer[0].subject.contains("Your message was not passed on"),
        "{}",
        answer[0].subject
    );
    app.close().await;
}

/// An auto-reply to a game's address is never read for a message, and a
/// player's messages alone stop at their hourly answers: the loop guards
/// hold for the mails a message makes us send.
async fn machines_are_never_passed_on_and_messages_alone_are_rate_limited(db: &TestDb) {
    let app = TestApp::builder()
        .at(Utc.with_ymd_and_hms(2026, 11, 29, 9, 0, 0).unwrap())
        .address("chess@dopis.test")
        .secret("a test secret that is long enough")
        .answers_per_hour(2)
        .open(db)
        .await;
    let ana = app
        .player("ana@players.test", "Ana Novak", Lang::En, None)
        .await;
    let jan = app
        .player("jan@players.test", "Jan Kowalski", Lang::En, None)
        .await;
    let game = app.game(&ana, &jan, TimeControl::default()).await;
    app.sent().await;
    let auto = format!(
        "From: {}\r\nTo: {}\r\nSubject: Out of office\r\nAuto-Submitted: auto-replied\r\n\
         Message-ID: <ooo@players.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         I am away until Monday and will answer your mail then.\r\n",
        jan.email,
        app.reply_address(game, &jan)
    );
    let handled = app.deliver(auto.as_bytes()).await;
    assert!(matches!(handled, Handled::Ignored(_)), "{handled:?}");
    assert!(app.sent().await.is_empty());
    // Within the hour, two messages alone are passed on; the third is not.
    for n in 0..3 {
        app.advance(Duration::minutes(5));
        let raw = format!(
            "From: {}\r\nTo: {}\r\nSubject: Re: [dopis #{}]\r\nMessage-ID: <m{n}@players.test>\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\nThanks again for the game, number {n}.\r\n",
            jan.email,
            app.reply_address(game, &jan),
            game.0
        );
        let handled = app.deliver(raw.as_bytes()).await;
        let to_ana = to(&app.sent().await, &ana).len();
        if n < 2 {
            assert!(matches!(handled, Handled::Done(_)), "{n}: {handled:?}");
            assert_eq!(to_ana, 1, "{n}");
        } else {
            assert!(matches!(handled, Handled::Ignored(_)), "{n}: {handled:?}");
            assert_eq!(to_ana, 0, "{n}");
        }
    }
    app.close().await;
}

on_both_backends!(
    machines_are_never_passed_on_and_messages_alone_are_rate_limited,
    a_message_with_a_move_reaches_the_opponent_and_the_pgn,
    an_event_without_messages_plays_the_move_and_says_why_the_message_stayed,
);
