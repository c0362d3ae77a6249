//! Issue 12's story of a conditional answer, by mail on both backends:
//! Ana (White, Slovenian letters) plays `c3` and sets `če Te8 Sf1` and
//! `če a6 La4`; Piotr (Black, Polish) answers `We8`, so her `Sf1` is played
//! at once. Each side must be told exactly that, in their own letters:
//! Piotr that his 8... We8 was played, then Ana's pre-set 9. Sf1, and that
//! it is his move again; Ana that her 9. Sf1 followed Piotr's 8... Te8.
//! Then Piotr's own line is cancelled by a move it did not expect, and the
//! notice names that move in Polish letters. And the draw and game-over
//! answers of the same issue (item 5): a declined offer is told to the
//! offerer, an invalid claim is answered with how claims work, a move to a
//! finished game with the result and nothing about writing moves. Every
//! mail runs through `Inbox::handle` and the outbox, as the daemon runs
//! them.

use chrono::{Duration, TimeZone, Utc};

use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent as Received;

/// Ana (White) is player 0, Piotr (Black) player 1.
const ANA: usize = 0;
const PIOTR: usize = 1;

struct Story {
    app: TestApp,
    players: [Player; 2],
    game: GameId,
    mails: Vec<Received>,
}

impl Story {
    async fn new(db: &TestDb) -> Story {
        Story::with(db, ("Piotr Nowak", Lang::Pl, "Europe/Warsaw")).await
    }

    /// Ana (Slovenian) plays White against Black, `(name, language, zone)`.
    async fn with(db: &TestDb, black: (&str, Lang, &str)) -> Story {
        let app = TestApp::builder()
            .at(Utc.with_ymd_and_hms(2026, 11, 29, 9, 0, 0).unwrap())
            .address("chess@dopis.test")
            .name("dopis")
            .secret("a test secret that is long enough")
            .open(db)
            .await;
        let ana = app
            .player(
                "ana@players.test",
                "Ana Novak",
                Lang::Sl,
                Some("Europe/Ljubljana"),
            )
            .await;
        let piotr = app
            .player("black@players.test", black.0, black.1, Some(black.2))
            .await;
        let game = app.game(&ana, &piotr, TimeControl::default()).await;
        let mut story = Story {
            app,
            players: [ana, piotr],
            game,
            mails: Vec::new(),
        };
        story.mails.extend(story.app.sent().await);
        story
    }

    fn email(&self, who: usize) -> String {
        self.players[who].email.to_string()
    }

    /// The player answers the latest mail they got that wants a reply, as
    /// a mail client does; returns the mails this sent to each player.
    async fn reply(&mut self, who: usize, text: &str) -> [Vec<Received>; 2] {
        self.app.advance(Duration::hours(5));
        let from = self.email(who);
        let last = self
            .mails
            .iter()
            .rev()
            .find(|m| m.to == from && m.reply_to.is_some())
            .unwrap_or_else(|| panic!("{from} got no mail to answer"))
            .clone();
        let raw = last.reply(
            &from,
            text,
            &format!("story.{}@players.test", self.mails.len()),
        );
        self.app.deliver(&raw).await;
        let sent = self.app.sent().await;
        self.mails.extend(sent.iter().cloned());
        let to = |who: usize| {
            let email = self.email(who);
            sent.iter().filter(|m| m.to == email).cloned().collect()
        };
        [to(ANA), to(PIOTR)]
    }
}

/// The one mail whose subject has `wanted`, with the subjects for a failure.
fn the<'a>(mails: &'a [Received], wanted: &str) -> &'a Received {
    let found: Vec<&Received> = mails
        .iter()
        .filter(|m| m.subject.contains(wanted))
        .collect();
    match found.as_slice() {
        [one] => one,
        _ => panic!(
            "want one mail with {wanted:?}, got {:?}",
            mails.iter().map(|m| &m.subject).collect::<Vec<_>>()
        ),
    }
}

/// The text with its lines joined, as a reader reads wrapped sentences.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn says(mail: &Received, phrases: &[&str]) {
    let text = flat(&mail.text);
    for phrase in phrases {
        assert!(
            text.contains(phrase),
            "{:?} lacks {phrase:?}:\n{}",
            mail.subject,
            mail.text
        );
    }
}

/// The METHOD and UID of the calendar file a mail carries, if any.
fn calendar(mail: &Received) -> Option<(String, String)> {
    use mail_parser::MimeHeaders;
    let parsed = mail_parser::MessageParser::default().parse(&mail.raw)?;
    let part = parsed
        .attachments()
        .find(|p| p.attachment_name().is_some_and(|n| n.ends_with(".ics")))?;
    let text = String::from_utf8_lossy(part.contents()).into_owned();
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_owned())
            .unwrap_or_default()
    };
    Some((field("METHOD:"), field("UID:")))
}

fn never_says(mail: &Received, words: &[&str]) {
    for word in words {
        assert!(
            !mail.subject.contains(word) && !mail.text.contains(word) && !mail.html.contains(word),
            "{:?} says {word:?}:\n{}",
            mail.subject,
            mail.text
        );
    }
}

async fn a_conditional_answer_is_told_to_each_side_as_it_happened_in_their_letters(db: &TestDb) {
    let mut s = Story::new(db).await;
    let opening = [
        (ANA, "e4"),
        (PIOTR, "e5"),
        (ANA, "Sf3"),
        (PIOTR, "Sc6"),
        (ANA, "Lb5"),
        (PIOTR, "Sf6"),
        (ANA, "d3"),
        (PIOTR, "Gc5"),
        (ANA, "O-O"),
        (PIOTR, "d6"),
        (ANA, "Te1"),
        (PIOTR, "O-O"),
        (ANA, "Sbd2"),
        (PIOTR, "h6"),
    ];
    for (who, text) in opening {
        s.reply(who, text).await;
    }
    let [to_ana, _] = s.reply(ANA, "c3\r\nče Te8 Sf1\r\nče a6 La4").await;
    // Her "your move" entry in the calendar goes: the confirmation cancels it.
    let white_entry = format!("dopis.g{}.white@dopis.test", s.game.0);
    assert_eq!(
        calendar(the(&to_ana, "Poteza sprejeta: c3")),
        Some(("CANCEL".into(), white_entry.clone()))
    );
    says(
        the(&to_ana, "Pogojne poteze"),
        &["8...Te8 9.Sf1", "8...a6 9.La4"],
    );

    // Piotr plays 8... Re8: Ana's 9. Nf1 follows at once.
    let [to_ana, to_piotr] = s.reply(PIOTR, "We8").await;
    assert_eq!(
        s.app.moves(s.game).await[14..],
        ["c3", "Re8", "Nf1"],
        "the conditional answer was played"
    );

    let accepted = the(&to_piotr, "Ruch przyjęty: We8");
    says(
        accepted,
        &[
            "Twój ruch 8... We8 w partii",
            "została wykonana od razu: 9. Sf1.",
            "Teraz znowu Twój ruch: 9... ?",
            "oznacza ostatni ruch, 9. Sf1.",
            "Termin: ",
        ],
    );
    never_says(
        accepted,
        &[
            "Twój ruch 9. Sf1",
            "teraz ruch ma",
            "Termin na ruch przeciwnika",
            "Nf1",
        ],
    );
    // It is his move again: his "your move" mail updates his calendar
    // entry, and the confirmation leaves it alone.
    assert_eq!(calendar(accepted), None);
    // His "your move" mail shows Ana's answer in his letters too.
    let your_move = the(&to_piotr, "Twój ruch");
    assert_eq!(
        calendar(your_move),
        Some((
            "PUBLISH".into(),
            format!("dopis.g{}.black@dopis.test", s.game.0)
        ))
    );
    assert!(your_move.subject.contains("Sf1"), "{}", your_move.subject);
    never_says(your_move, &["Nf1"]);

    let played = the(&to_ana, "Pogojna poteza odigrana: Sf1");
    says(
        played,
        &[
            "Nasprotnikova poteza 8... Te8 je bila tista",
            "odgovor 9. Sf1 v partiji",
            "Na potezi je zdaj Piotr Nowak.",
        ],
    );
    never_says(played, &["Nf1", "Re8", "We8"]);

    // Piotr answers 9... Bb6 and sets "if Ng3 Be6"; Ana plays 10. Bc4,
    // which his line did not expect: the notice names it in Polish letters.
    let [_, to_piotr] = s.reply(PIOTR, "Gb6\r\njeśli Sg3 Ge6").await;
    says(the(&to_piotr, "Ruchy warunkowe"), &["10.Sg3 10...Ge6"]);
    let [_, to_piotr] = s.reply(ANA, "Lc4").await;
    let cancelled = the(&to_piotr, "Ruchy warunkowe");
    says(cancelled, &["Przeciwnik zagrał 10. Gc4"]);
    never_says(cancelled, &["Bc4", "Lc4"]);
}

async fn a_declined_offer_a_bad_claim_and_a_move_after_the_end_are_answered_as_they_are(
    db: &TestDb,
) {
    let mut s = Story::with(db, ("Klaus Weber", Lang::De, "Europe/Berlin")).await;
    const KLAUS: usize = PIOTR;
    let white_entry = format!("dopis.g{}.white@dopis.test", s.game.0);
    // Ana offers a draw with her move; Klaus plays on without accepting.
    s.reply(ANA, "e4 remi").await;
    let [to_ana, _] = s.reply(KLAUS, "e5").await;
    let declined = the(&to_ana, "ne sprejme remija");
    says(
        declined,
        &[
            "Klaus Weber ne sprejme vaše ponudbe remija v partiji #1 in igra 1... e5.",
            "Na potezi ste: 2. ?",
        ],
    );
    the(&to_ana, "Na potezi ste");

    // A claim that no rule supports: how claims work, not how to write moves.
    let [to_ana, _] = s.reply(ANA, "zahtevam remi Sf3").await;
    let refused = the(&to_ana, "Ni odigrano");
    says(
        refused,
        &[
            "Kako deluje zahteva za remi:",
            "»zahtevam remi",
            "Vaša poteza 2. ? še čaka",
        ],
    );
    never_says(refused, &["Kako pravilno zapisati"]);
    assert_eq!(s.app.moves(s.game).await, ["e4", "e5"]);

    // Klaus resigns, then sends a move anyway: the result, no move hints.
    s.reply(ANA, "Sf3").await;
    s.reply(KLAUS, "aufgeben").await;
    let [_, to_klaus] = s.reply(KLAUS, "Sc6").await;
    let over = the(&to_klaus, "Die Partie ist beendet");
    says(
        over,
        &[
            "Diese Partie ist beendet; in ihr kann nichts mehr gespielt werden.",
            "Ergebnis: 1-0.",
            "Eine Antwort ist nicht nötig.",
        ],
    );
    never_says(over, &["z. B.", "So schreiben Sie es richtig", "Ihren Zug"]);
    // The game-over mails cancel both players' deadline entries.
    let black_entry = format!("dopis.g{}.black@dopis.test", s.game.0);
    let ended: Vec<&Received> = s
        .mails
        .iter()
        .filter(|m| m.subject.contains("Konec partije") || m.subject.contains("Partie beendet"))
        .collect();
    assert_eq!(
        ended.len(),
        2,
        "{:?}",
        s.mails.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    for mail in ended {
        let entry = if mail.to.starts_with("ana@") {
            &white_entry
        } else {
            &black_entry
        };
        assert_eq!(calendar(mail), Some(("CANCEL".into(), entry.clone())));
    }
}

on_both_backends!(
    a_conditional_answer_is_told_to_each_side_as_it_happened_in_their_letters,
    a_declined_offer_a_bad_claim_and_a_move_after_the_end_are_answered_as_they_are,
);
