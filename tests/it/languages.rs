//! Players who write in their own language play whole games by mail:
//! moves in their piece letters, commands in their words, and every mail
//! they get in their language. Each game runs in process through
//! `Inbox::handle` (routing, reply tokens, the arbiter, the outbox, compose),
//! on both database backends; the players answer the latest mail they got
//! the way a mail client replies.

use chrono::{Duration, TimeZone, Utc};

use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{Done, Handled};

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent as Received;

/// Two players, one game, and every mail sent so far.
struct Board {
    app: TestApp,
    players: [Player; 2],
    game: GameId,
    mails: Vec<Received>,
}

/// White is player 0, Black player 1.
const WHITE: usize = 0;
const BLACK: usize = 1;

impl Board {
    async fn new(db: &TestDb, langs: [Lang; 2]) -> Board {
        let app = TestApp::builder()
            .at(Utc.with_ymd_and_hms(2026, 11, 29, 9, 0, 0).unwrap())
            .address("chess@dopis.test")
            .name("dopis")
            .secret("a test secret that is long enough")
            .open(db)
            .await;
        let white = app
            .player(
                "ana@players.test",
                "Ana Novak",
                langs[0],
                Some("Europe/Ljubljana"),
            )
            .await;
        let black = app
            .player(
                "jan@players.test",
                "Jan Kowalski",
                langs[1],
                Some("Europe/Warsaw"),
            )
            .await;
        let game = app.game(&white, &black, TimeControl::default()).await;
        let mut board = Board {
            app,
            players: [white, black],
            game,
            mails: Vec::new(),
        };
        board.send_outbox().await;
        board
    }

    /// Sends everything in the outbox (to the test's mail list).
    async fn send_outbox(&mut self) {
        let sent = self.app.sent().await;
        self.mails.extend(sent);
    }

    fn email(&self, who: usize) -> String {
        self.players[who].email.to_string()
    }

    /// The mails one player got, oldest first.
    fn mails_to(&self, who: usize) -> Vec<&Received> {
        let email = self.email(who);
        self.mails.iter().filter(|m| m.to == email).collect()
    }

    /// The player replies to the latest mail they got that wants a reply,
    /// quoting it below their text, as a mail client does.
    async fn reply(&mut self, who: usize, text: &str) -> Handled {
        self.app.advance(Duration::hours(5));
        let from = self.email(who);
        let last = self
            .mails_to(who)
            .into_iter()
            .rev()
            .find(|m| m.reply_to.is_some())
            .unwrap_or_else(|| panic!("{from} got no mail to answer"))
            .clone();
        let raw = last.reply(
            &from,
            text,
            &format!("reply.{}.{who}@players.test", self.mails.len()),
        );
        let handled = self.app.deliver(&raw).await;
        self.send_outbox().await;
        handled
    }
}

/// One game: who writes what, and what the players must read.
struct Script {
    /// White's and Black's languages.
    langs: [Lang; 2],
    /// The replies in order: (player, first line).
    replies: &'static [(usize, &'static str)],
    /// Words the game must end with, in the stored (English) outcome.
    ends: &'static str,
    /// Phrases somewhere in the mails to White, then to Black.
    white_reads: &'static [&'static str],
    black_reads: &'static [&'static str],
    /// Phrases in the very last mail to White, then to Black.
    white_last: &'static [&'static str],
    black_last: &'static [&'static str],
}

/// Légal's mate (Paris 1750), as each language writes it, with a draw offer
/// that the opponent declines in words and one illegal bishop move.
fn scripts() -> Vec<(&'static str, Script)> {
    vec![
        (
            "sl",
            Script {
                langs: [Lang::Sl, Lang::Sl],
                replies: &[
                    (BLACK, "stanje"),
                    (WHITE, "e4"),
                    (BLACK, "e5"),
                    (WHITE, "Sf3 remi"),
                    (BLACK, "zavrnem remi"),
                    (BLACK, "d6"),
                    (WHITE, "Lxf7+"),
                    (WHITE, "Lc4"),
                    (BLACK, "Lg4"),
                    (WHITE, "Sc3"),
                    (BLACK, "g6"),
                    (WHITE, "Sxe5"),
                    (BLACK, "Lxd1"),
                    (WHITE, "Lxf7+"),
                    (BLACK, "Ke7"),
                    (WHITE, "Sd5#"),
                ],
                ends: "checkmate",
                white_reads: &[
                    "Na potezi ste",
                    "Jan Kowalski ne sprejme vaše ponudbe remija",
                    "Ni odigrano: »Lxf7+«",
                    "Pojasnilo:",
                    "»Lxf7+« ni mogoče odigrati",
                    "Vaša poteza 3. Lc4 v partiji",
                    "Rok: 2. 12. 2026",
                    "Tempo igre: 3 dnevi na potezo",
                ],
                black_reads: &[
                    "Na potezi je Ana Novak: 1. ?",
                    "Ana Novak ponuja remi.",
                    "Ana Novak igra 6. Lxf7+, šah.",
                ],
                white_last: &["Izid: 1-0. Mat: zmaga Ana Novak.", "Čestitamo!"],
                black_last: &["Mat: zmaga Ana Novak.", "Več sreče v naslednji partiji."],
            },
        ),
        (
            "pl",
            Script {
                langs: [Lang::Pl, Lang::Pl],
                replies: &[
                    (WHITE, "e4"),
                    (BLACK, "e5"),
                    (WHITE, "Sf3 remis"),
                    (BLACK, "odrzucam remis"),
                    (BLACK, "d6"),
                    (WHITE, "Gxf7+"),
                    (WHITE, "Gc4"),
                    (BLACK, "Gg4"),
                    (WHITE, "Sc3"),
                    (BLACK, "g6"),
                    (WHITE, "Sxe5"),
                    (BLACK, "Gxd1"),
                    (WHITE, "Gxf7+"),
                    (BLACK, "Ke7"),
                    (WHITE, "Sd5#"),
                ],
                ends: "checkmate",
                white_reads: &[
                    "Twój ruch",
                    "Jan Kowalski odrzuca Twoją propozycję remisu",
                    "Nie wykonano: „Gxf7+”",
                    "Twój ruch 3. Gc4 w partii",
                    "Termin: 02.12.2026",
                    "Tempo gry: 3 dni na ruch",
                ],
                black_reads: &[
                    "Ana Novak proponuje remis.",
                    "Ana Novak gra 6. Gxf7+, szach.",
                ],
                white_last: &["Wynik: 1-0. Mat: wygrywa Ana Novak.", "Gratulacje!"],
                black_last: &["Mat: wygrywa Ana Novak.", "Powodzenia w następnej partii!"],
            },
        ),
        (
            "lv",
            Script {
                langs: [Lang::Lv, Lang::Lv],
                replies: &[
                    (WHITE, "e4"),
                    (BLACK, "e5"),
                    (WHITE, "Zf3 neizšķirts"),
                    (BLACK, "noraidu neizšķirtu"),
                    (BLACK, "d6"),
                    (WHITE, "Lxf7+"),
                    (WHITE, "Lc4"),
                    (BLACK, "Lg4"),
                    (WHITE, "Zc3"),
                    (BLACK, "g6"),
                    (WHITE, "Zxe5"),
                    (BLACK, "Lxd1"),
                    (WHITE, "Lxf7+"),
                    (BLACK, "Ke7"),
                    (WHITE, "Zd5#"),
                ],
                ends: "checkmate",
                white_reads: &[
                    "Jūsu gājiens",
                    "Jan Kowalski noraidīja Jūsu neizšķirta piedāvājumu",
                    "Nav izdarīts: „Lxf7+“",
                    "Jūsu gājiens 3. Lc4 partijā",
                    "Termiņš: 02.12.2026.",
                    "Laika kontrole: 3 dienas katram gājienam",
                ],
                black_reads: &[
                    "Ana Novak piedāvā neizšķirtu.",
                    "Ana Novak spēlēja 6. Lxf7+, šahs.",
                ],
                white_last: &["Rezultāts: 1-0. Mats: uzvar Ana Novak.", "Apsveicam!"],
                black_last: &["Mats: uzvar Ana Novak.", "Lai veicas nākamajā partijā!"],
            },
        ),
        (
            "de",
            Script {
                langs: [Lang::De, Lang::De],
                replies: &[
                    (WHITE, "e4"),
                    (BLACK, "e5"),
                    (WHITE, "Sf3 Remis"),
                    (BLACK, "Remis abgelehnt"),
                    (BLACK, "d6"),
                    (WHITE, "Lxf7+"),
                    (WHITE, "Lc4"),
                    (BLACK, "Lg4"),
                    (WHITE, "Sc3"),
                    (BLACK, "g6"),
                    (WHITE, "Sxe5"),
                    (BLACK, "Lxd1"),
                    (WHITE, "Lxf7+"),
                    (BLACK, "Ke7"),
                    (WHITE, "Sd5#"),
                ],
                ends: "checkmate",
                white_reads: &[
                    "Sie sind am Zug",
                    "Jan Kowalski hat Ihr Remisangebot in Partie",
                    "Nicht gespielt: „Lxf7+“",
                    "Ihr Zug 3. Lc4 in Partie",
                    "Frist: 02.12.2026",
                    "Bedenkzeit: 3 Tage pro Zug",
                ],
                black_reads: &[
                    "Ana Novak bietet Remis an.",
                    "Ana Novak spielte 6. Lxf7+, Schach.",
                ],
                white_last: &[
                    "Ergebnis: 1-0. Matt: Ana Novak gewinnt.",
                    "Herzlichen Glückwunsch!",
                ],
                black_last: &[
                    "Matt: Ana Novak gewinnt.",
                    "Viel Glück in der nächsten Partie!",
                ],
            },
        ),
        (
            "pl_resigns",
            Script {
                langs: [Lang::Pl, Lang::Pl],
                replies: &[(WHITE, "e4"), (BLACK, "poddaję się")],
                ends: "resign",
                white_reads: &[],
                black_reads: &["Twój ruch: 1... ?"],
                white_last: &[
                    "Jan Kowalski poddaje partię: wygrywa Ana Novak.",
                    "Gratulacje!",
                ],
                black_last: &["Jan Kowalski poddaje partię: wygrywa Ana Novak."],
            },
        ),
        (
            "de_agree_draw",
            Script {
                langs: [Lang::De, Lang::En],
                replies: &[(WHITE, "e4 Remis"), (BLACK, "accept draw")],
                ends: "agreement",
                white_reads: &["Ihr Remisangebot wurde weitergeleitet."],
                black_reads: &["Ana Novak offers a draw."],
                white_last: &["Ergebnis: ½-½. Remis durch Vereinbarung."],
                black_last: &["Drawn by agreement."],
            },
        ),
        (
            "sl_agree_draw",
            Script {
                langs: [Lang::En, Lang::Sl],
                replies: &[(WHITE, "e4 draw"), (BLACK, "sprejmem remi")],
                ends: "agreement",
                white_reads: &["Your draw offer has been passed on."],
                black_reads: &["Ana Novak ponuja remi."],
                white_last: &["Drawn by agreement."],
                black_last: &["Izid: ½-½. Remi po dogovoru."],
            },
        ),
        (
            "lv_resigns",
            Script {
                langs: [Lang::Lv, Lang::Lv],
                replies: &[(WHITE, "e4"), (BLACK, "padodos")],
                ends: "resign",
                white_reads: &[],
                black_reads: &[],
                white_last: &["Jan Kowalski padevās: uzvar Ana Novak."],
                black_last: &["Jan Kowalski padevās: uzvar Ana Novak."],
            },
        ),
    ]
}

fn has_all(what: &str, mails: &[&Received], phrases: &[&str]) -> Vec<String> {
    let all: String = mails
        .iter()
        .map(|m| format!("{}\n{}\n", m.subject, m.text))
        .collect();
    phrases
        .iter()
        .filter(|p| !all.contains(*p))
        .map(|p| format!("{what}: no {p:?}"))
        .collect()
}

async fn players_play_whole_games_in_their_own_language(db: &TestDb) {
    for (name, script) in scripts() {
        // A fresh database per game: the scripts share player addresses.
        let db = match db.url.starts_with("sqlite") {
            true => crate::support::sqlite(),
            false => crate::support::postgres().await.expect("postgres"),
        };
        let mut board = Board::new(&db, script.langs).await;
        for (who, text) in script.replies {
            let handled = board.reply(*who, text).await;
            assert!(
                matches!(handled, Handled::Done(_)),
                "{name}: {text:?} was {handled:?}"
            );
        }
        let record = board.app.game_row(board.game).await;
        let reason = record.end_reason.clone().unwrap_or_default();
        assert!(
            reason.contains(script.ends),
            "{name}: ended {reason:?}, want {:?}",
            script.ends
        );
        let mut problems = Vec::new();
        for (who, reads, last) in [
            (WHITE, script.white_reads, script.white_last),
            (BLACK, script.black_reads, script.black_last),
        ] {
            let mails = board.mails_to(who);
            problems.extend(has_all(&format!("{name} {who}"), &mails, reads));
            let final_mail = mails.last().copied().expect("a mail");
            problems.extend(has_all(&format!("{name} {who} last"), &[final_mail], last));
            // Every mail is in the reader's language, HTML included.
            let lang = script.langs[who].code();
            for m in &mails {
                if !m.html.contains(&format!("<html lang=\"{lang}\">")) {
                    problems.push(format!("{name}: {:?} is not marked {lang}", m.subject));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
        board.app.close().await;
    }
}

/// `language pl` by mail: the answer comes in Polish, later mails too, moves
/// are read in Polish letters, and the Polish word for it switches back.
async fn a_player_changes_language_by_mail(db: &TestDb) {
    let mut board = Board::new(db, [Lang::En, Lang::En]).await;
    let handled = board.reply(WHITE, "language pl").await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.lang == Some(Lang::Pl)),
        "{handled:?}"
    );
    let stored = board.app.player_row(board.players[WHITE].id).await;
    assert_eq!(stored.lang, Lang::Pl);
    let answer = board
        .mails_to(WHITE)
        .last()
        .copied()
        .cloned()
        .expect("answer");
    assert!(
        answer.subject.contains("Język: polski"),
        "{}",
        answer.subject
    );
    assert!(
        answer
            .text
            .contains("Od teraz piszemy do Ciebie po polsku."),
        "{}",
        answer.text
    );

    // A Polish knight move (S = skoczek); the confirmation comes in Polish.
    board.reply(WHITE, "Sf3").await;
    let accepted = board
        .mails_to(WHITE)
        .last()
        .copied()
        .cloned()
        .expect("mail");
    assert!(
        accepted.subject.contains("Ruch przyjęty: Sf3"),
        "{}",
        accepted.subject
    );
    // The opponent still reads English, with the move in English letters.
    let theirs = board
        .mails_to(BLACK)
        .last()
        .copied()
        .cloned()
        .expect("mail");
    assert!(
        theirs.text.contains("Ana Novak played 1. Nf3."),
        "{}",
        theirs.text
    );

    // In Polish the command is "język"; German from now on.
    board.reply(BLACK, "e5").await;
    board.reply(WHITE, "język de").await;
    let answer = board
        .mails_to(WHITE)
        .last()
        .copied()
        .cloned()
        .expect("answer");
    assert!(
        answer.subject.contains("Sprache: Deutsch"),
        "{}",
        answer.subject
    );
    board.app.close().await;
}

/// An unknown language changes nothing and gets the usual explanation.
async fn an_unknown_language_changes_nothing(db: &TestDb) {
    let mut board = Board::new(db, [Lang::Sl, Lang::En]).await;
    board.reply(WHITE, "jezik klingonsko").await;
    let stored = board.app.player_row(board.players[WHITE].id).await;
    assert_eq!(stored.lang, Lang::Sl);
    let answer = board
        .mails_to(WHITE)
        .last()
        .copied()
        .cloned()
        .expect("answer");
    assert!(answer.subject.contains("Ne razumemo"), "{}", answer.subject);
    board.app.close().await;
}

/// `games` lists each game in progress with the opponent, the move, whose
/// move it is and the deadline, in the player's words: asked in a reply to
/// a game's mail and asked of the server's address.
async fn the_games_list_says_whose_move_and_the_deadline_in_the_players_words(db: &TestDb) {
    let mut board = Board::new(db, [Lang::Pl, Lang::De]).await;
    board.reply(WHITE, "e4").await;
    // White asks in a reply to the game's mail: it is Black's move.
    board.reply(WHITE, "partie").await;
    let list = board
        .mails_to(WHITE)
        .last()
        .copied()
        .cloned()
        .expect("list");
    assert!(list.subject.contains("Twoje partie"), "{}", list.subject);
    let text = list.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(&format!(
            "#{} Ana Novak - Jan Kowalski: ruch 1, ruch przeciwnika, termin 02.12.2026",
            board.game.0
        )),
        "{text}"
    );
    // Black asks the server's address: it is his move, with his deadline.
    let raw = crate::support::mail::Mail::new("jan@players.test", "chess@dopis.test")
        .subject("Partien")
        .body("Partien")
        .bytes();
    board.app.deliver(&raw).await;
    board.send_outbox().await;
    let list = board
        .mails_to(BLACK)
        .last()
        .copied()
        .cloned()
        .expect("list");
    let text = list.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(&format!(
            "#{} Ana Novak - Jan Kowalski: Zug 1, Sie sind am Zug, Frist 02.12.2026",
            board.game.0
        )),
        "{text}"
    );
    assert!(list.html.contains("Sie sind am Zug"), "{}", list.html);
    board.app.close().await;
}

/// The scheduler's mails write the deadline as the reader's language
/// writes dates (they wrote ISO dates to everyone).
async fn a_reminder_writes_the_deadline_in_the_readers_dates(db: &TestDb) {
    let mut board = Board::new(db, [Lang::Sl, Lang::De]).await;
    board
        .app
        .set(Utc.with_ymd_and_hms(2026, 12, 1, 10, 0, 0).unwrap());
    board.app.schedule().await;
    board.send_outbox().await;
    let reminder = board
        .mails_to(WHITE)
        .into_iter()
        .find(|m| m.subject.contains("Opomnik"))
        .cloned()
        .expect("a reminder");
    assert!(
        reminder.text.contains("2. 12. 2026 10:00 CET (09:00 UTC)")
            && !reminder.text.contains("2026-12-02"),
        "{}",
        reminder.text
    );
    board.app.close().await;
}

on_both_backends!(
    a_reminder_writes_the_deadline_in_the_readers_dates,
    the_games_list_says_whose_move_and_the_deadline_in_the_players_words,
    players_play_whole_games_in_their_own_language,
    a_player_changes_language_by_mail,
    an_unknown_language_changes_nothing,
);
