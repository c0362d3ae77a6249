//! Outbound mails: one fixed [`Letter`] per mail kind, composed to bytes and
//! compared with a golden `tests/fixtures/outbound/NAME.eml` (English) or
//! `tests/fixtures/outbound/<lang>/NAME.eml` (the translations, driven from
//! `outbound_lang.rs` with the same letters). On a mismatch
//! the new bytes are written beside it as `NAME.eml.failed`; `DOPIS_BLESS=1`
//! accepts them as the new golden file.
//!
//! Every mail is also parsed back with mail-parser, so the checks hold
//! whatever the golden bytes are: the subject and its tag, threading and
//! Reply-To as given, the parts a client needs (the inline board's
//! Content-ID is the one the HTML refers to, the PGN attachment is the
//! game), the text lines fit a terminal, and every mail says how to reply.

use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use mail_parser::{HeaderValue, MessageParser, MimeHeaders};
use shakmaty::{Color, Role, Square};

use dopis::adapter::mail::compose::{
    DigestGame, GameListEntry, GameView, Letter, LetterKind, MovePoint, Party, RejectionKind,
    ReplacementRole, Talk, compose, subject,
};
use dopis::adapter::mail::inbound::MessageId;
use dopis::domain::address::EmailAddress;
use dopis::domain::arbiter::{ConditionalNote, Reason};
use dopis::domain::chess::game::{ClaimRejected, Game, StartPosition};
use dopis::domain::chess::notation::{IllegalReason, MoveTextError};
use dopis::domain::chess::pgn::{self, PgnTags};
use dopis::domain::clock::{LeaveError, TimeControl};
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::locale::{describe_control, describe_deadline};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outbound")
}

fn addr(text: &str) -> EmailAddress {
    EmailAddress::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn mid(text: &str) -> MessageId {
    MessageId::parse(text).unwrap_or_else(|| panic!("bad test id {text}"))
}

fn date() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 17, 5, 0)
        .single()
        .expect("fixed date")
}

/// Morphy's Opera game, as our PGN fixture has it.
fn opera() -> Game {
    let text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pgn/opera_game.pgn"),
    )
    .expect("opera game fixture");
    pgn::import(&text).expect("opera game imports").game
}

/// The Opera game after its first `plies` half-moves.
fn opera_after(plies: usize) -> Game {
    let ucis: Vec<String> = opera()
        .plies()
        .iter()
        .take(plies)
        .map(|p| p.uci.clone())
        .collect();
    Game::replay(StartPosition::Standard, &ucis).expect("prefix replays")
}

/// The clocks line as the daemon writes it for a reader of `lang`, under
/// 3 days per move: each half-move of `game` took a day and 3 hours, the
/// last arrived on 29 November 17:05 UTC (so the move due is due on 2
/// December 17:05 UTC, the deadline the mails show), and the side to move
/// has thought for a day and 6 hours; a finished game ended with its last
/// move.
fn clocks_in(lang: Lang, game: &Game) -> String {
    use chrono::TimeDelta;
    use dopis::domain::clock::{GameClock, Timeline};
    let last = Utc
        .with_ymd_and_hms(2026, 11, 29, 17, 5, 0)
        .single()
        .expect("fixed instant");
    let each = TimeDelta::hours(27);
    let plies = game.plies().len();
    let start = last - each * i32::try_from(plies).expect("a short game");
    let timeline = (1..=plies).fold(Timeline::new(start), |t, n| {
        t.with_move(start + each * i32::try_from(n).expect("a short game"), None)
    });
    let control = TimeControl::default();
    let clock = GameClock::new(control, timeline);
    let clocks = if game.is_over() {
        clock.final_clocks(last)
    } else {
        clock.clocks(last + TimeDelta::hours(30))
    };
    dopis::domain::locale::describe_clocks(&clocks, control, lang)
}

fn view(game: Game, recipient: Option<Color>) -> GameView {
    let clocks = clocks_in(Lang::En, &game);
    GameView {
        id: 42,
        white: "Alice Novak".to_owned(),
        black: "Bojan Kralj".to_owned(),
        recipient,
        pgn: None,
        ratings: [None, None],
        tables: None,
        pairing: None,
        game,
        time_control: "3d".to_owned(),
        deadline: Some("2026-12-02 18:05 CET (17:05 UTC)".to_owned()),
        deadline_at: Utc.with_ymd_and_hms(2026, 12, 2, 17, 5, 0).single(),
        analysis_url: None,
        clocks: Some(clocks),
        draw_offer_from: None,
    }
}

fn with_pgn(mut v: GameView) -> GameView {
    let tags = PgnTags {
        event: "dopis game 42".to_owned(),
        site: "chess.test".to_owned(),
        white: v.white.clone(),
        black: v.black.clone(),
        ..PgnTags::default()
    };
    v.pgn = Some(pgn::export(&v.game, &tags));
    v
}

fn party(name: &str, address: &str) -> Party {
    Party {
        name: name.to_owned(),
        address: addr(address),
    }
}

fn letter(kind: LetterKind, lang: Lang, to: Color, game: Option<GameView>) -> Letter {
    let (name, address) = match to {
        Color::White => ("Alice Novak", "alice@players.test"),
        Color::Black => ("Bojan Kralj", "bojan@players.test"),
    };
    Letter {
        kind,
        lang,
        from: party("dopis chess", "chess@chess.test"),
        to: party(name, address),
        reply_to: Some(addr(&format!(
            "chess+g42.{}@chess.test",
            if to == Color::White {
                "k7f3q9ab2c"
            } else {
                "p2x8m4nv7d"
            }
        ))),
        message_id: mid("dopis.g42.p7.mail1@chess.test"),
        in_reply_to: Some(mid("CAJ1x=player.reply@mail.players.test")),
        references: vec![
            mid("dopis.g42.p0.start@chess.test"),
            mid("CAJ1x=player.reply@mail.players.test"),
        ],
        date: date(),
        game,
        talk: None,
        page: None,
        calendar: None,
        unsubscribe: None,
    }
}

/// One golden mail and what must be true of it.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) letter: Letter,
    /// Texts the plain part must contain.
    pub(crate) text_has: Vec<&'static str>,
    /// How many boards the mail shows (inline PNGs in the HTML, diagrams in
    /// the text): one for a game's mail, one per game for the digest.
    pub(crate) boards: usize,
    /// Whether the game's PGN is attached.
    pub(crate) pgn: bool,
}

/// The knight's letter in `lang`, for move texts a player of it writes.
fn knight(lang: Lang) -> &'static str {
    match lang {
        Lang::Lv => "Z",
        Lang::En => "N",
        _ => "S",
    }
}

/// How a player of `lang` claims a draw (the first of the words read).
fn claim_words(lang: Lang) -> &'static str {
    match lang {
        Lang::Sl => "zahtevam remi",
        Lang::Pl => "żądam remisu",
        Lang::Lv => "pieprasu neizšķirtu",
        Lang::De => "remis reklamieren",
        _ => "claim draw",
    }
}

/// The English mails. (The Slovenian `your_move_sl` that stood here before
/// the translations is now `sl/your_move`.)
fn cases() -> Vec<Case> {
    let mut cases = cases_in(Lang::En, english);
    // With `[web] base_url` set, a game's mail links to the game's page
    // from the recipient's side (their private link); unset, no line.
    let linked = cases.iter().find(|c| c.name == "your_move").map(|c| {
        let mut letter = c.letter.clone();
        letter.page = Some(PAGE.into());
        Case {
            name: "your_move_with_page",
            letter,
            text_has: vec![
                "On the web: https://chess.example.org/me/7.k2m9c4x8q3z7a5ndyw6p/games/42",
            ],
            boards: c.boards,
            pgn: c.pgn,
        }
    });
    cases.extend(linked);
    // The mail that starts a game gives the player's calendar feed too.
    let with_calendar = cases.iter().find(|c| c.name == "game_started").map(|c| {
        let mut letter = c.letter.clone();
        letter.page = Some(PAGE.into());
        letter.calendar = Some(CALENDAR.into());
        Case {
            name: "game_started_with_calendar",
            letter,
            text_has: vec![
                "On the web: https://chess.example.org/me/7.k2m9c4x8q3z7a5ndyw6p/games/42",
                "Your deadlines as a calendar (add this address to your calendar app):",
                CALENDAR,
            ],
            boards: c.boards,
            pgn: c.pgn,
        }
    });
    cases.extend(with_calendar);
    cases
}

/// The calendar feed a welcome mail gives.
const CALENDAR: &str = "https://chess.example.org/me/7.k2m9c4x8q3z7a5ndyw6p/deadlines.ics";

/// The private game page a linked mail points to.
const PAGE: &str = "https://chess.example.org/me/7.k2m9c4x8q3z7a5ndyw6p/games/42";

/// What the English mail of each case must say.
fn english(name: &str) -> Vec<&'static str> {
    match name {
        "entry_confirm" => vec![
            "We got a request to enter this event from your address:",
            "\"Open 12\" (#12): 3 days per move.",
            "registered as a player, as \"Alice Novak\"",
        ],
        "entry_entered_queue" => vec!["You are number 3 in the queue: a section of 7"],
        "entry_refused_rating" => vec!["your rating (1650) is outside its"],
        "swiss_bye_granted" => vec![
            "The tournament director has given you a half-point bye in round 4",
            "it scores ½ for you. You",
            "> Asked by phone.",
        ],
        "swiss_bye_paired" => vec!["so you are not paired this round", "comes with round 5"],
        "swiss_bye_refused_paired" => vec![
            "nothing was changed",
            "The next round to be paired is round",
            "write \"bye 12 round 5\".",
        ],
        "swiss_bye_refused_limit" => vec!["you have used all 2 half-point byes \"Spring Open\""],
        "entry_qualified" => vec!["you are through: you play"],
        "entry_refused_qualification" => {
            vec![
                "only players holding the \"Higher\"",
                "you hold none to spare",
            ]
        }
        "entry_promoted" => vec![
            "\"Open 12/3\" (event #16) has ended: you finished in place 1 with 3.5 of 4",
            "earns you the \"Higher\" qualification",
        ],
        "your_move_thematic" => vec![
            "This is a thematic game: it starts after the line 1. e4 c5 2. Nf3 d6,",
            "It is your move: 3. ?",
        ],
        "game_started_thematic" => vec![
            "This is a thematic game: it starts after the line 1. e4 c5 2. Nf3 d6,",
            "Alice Novak moves next: 3.",
        ],
        "your_move_chess960" | "game_started_chess960" => vec![
            "This is a Chess960 game: start position number 3.",
            "Castle by writing O-O or",
        ],
        "your_move_tables_say" => vec![
            "The endgame tables (KRvK) now hold this position",
            "White may claim the win: write \"claim win\".",
        ],
        "game_over_by_tables" => vec![
            "Decided by the endgame tables",
            "(KRvK, DTZ 23, ICCF rule), on White's claim.",
        ],
        "refused_table_claim" => vec![
            "the win claim is not valid: the endgame tables (KBBvKN) say: a draw",
            "50-move rule stands",
        ],
        "game_started" => vec![
            "You play Black",
            "White moves first",
            "Time control: 3 days per move",
        ],
        "your_move" => vec![
            "Open the position on an analysis board:",
            "https://lichess.org/analysis/standard/rn1qkbnr/ppp2ppp/3p4/4p3/3PP1b1/5N2/PPP2PPP/RNBQKB1R_w_KQkq_-_1_4?color=white",
            "Bojan Kralj played 3... Bg4.",
            "It is your move: 4.",
            "offers a draw",
            "1. e4 e5 2. Nf3 d6 3. d4 Bg4",
            "Deadline: 2026-12-02 18:05 CET (17:05 UTC)",
        ],
        "move_accepted" => vec![
            "Your move 10. Nxb5 in game #42 is played.",
            "Bojan Kralj has been told and has the move now.",
        ],
        "move_accepted_conditional" => vec![
            "Your move 3... Bg4 in game #42 is played.",
            "4. dxe5. It is your move now: 4... ?",
            "Deadline: 2026-12-02 18:05 CET (17:05 UTC)",
        ],
        "your_move_with_message" => vec![
            "Bojan Kralj writes:",
            "(The message was longer than 2000 characters and was cut there.)",
            "Bojan Kralj played 3... Bg4.",
        ],
        "move_accepted_message_passed" => {
            vec!["Your message was passed on to Bojan Kralj."]
        }
        "message_from_opponent" => vec![
            "Bojan Kralj writes:",
            "This message came without a move, in game #42. It is your move: 4. ?",
        ],
        "message_passed" => vec![
            "Your message was passed on to Alice Novak.",
            "held no move and no command, so it was read as a",
        ],
        "message_held" => vec!["Your message was not passed on: in this event players may not"],
        "rejected_message_on_next_line" => vec![
            "> Nf3 thanks",
            "a line that starts with a move holds the move alone",
            "Nothing was played. To send a message with your move, write the move on the",
        ],
        "game_over_won" => vec![
            "Result: 1-0. Alice Novak wins by checkmate.",
            "Congratulations!",
            "game-42.pgn",
            "17. Rd8#",
        ],
        "game_over_lost" => vec![
            "Result: 1-0. Alice Novak wins by checkmate.",
            "Better luck in the next game.",
            "game-42.pgn",
            "17. Rd8#",
        ],
        "draw_offer_declined" => vec![
            "Alice Novak declined your draw offer in game #42 by playing 5. Qxf3.",
            "It is your move: 5... ?",
        ],
        "rejected_game_over" => vec![
            "This game is over, so nothing can be played in it any more.",
            "Result: 1-0. Alice Novak wins by checkmate.",
            "How to reply: no reply is needed.",
        ],
        "rejected_claim" => vec![
            "> claim draw Nc3",
            "How a draw claim works:",
            "(FIDE 9.2)",
            "e.g. \"claim draw Nd4\": the move",
            "Your move 3. ? is still due",
        ],
        "rejected_illegal" => vec![
            "> Qxb7",
            "How to write it right:",
            "Your move 6. ? is still due",
            "ICCF",
        ],
        "rejected_not_your_turn" => vec!["It is not your turn: Alice Novak has the move."],
        "rejected_unknown_game" => vec!["There is no game of yours", "write to chess@chess.test"],
        "confirm_request" => vec!["> Nf3", "reply to this mail"],
        "confirm_stale" => vec![
            "> Nc3",
            "our mail about White's move 2, but the game has moved on",
            "to White's move 4.",
            "    4. Nc3",
        ],
        "repeated" => vec![
            "> d4",
            "came on 2026-11-29 12:01 CET (11:01 UTC), and it was answered",
            "so nothing was done now.",
        ],
        "refused" => vec!["not accepted", "went to an address with a wrong token"],
        "help" => vec![
            "e.g. Nf3, e4, O-O",
            "accept draw",
            "language sl",
            "Messages: write your move on the first line and a message to your",
        ],
        "status" => vec!["It is your move: 7... ?", "marks the last move, 7. Qb3."],
        "games" => vec![
            "#42 Alice Novak - Bojan Kralj: move 7, your move, deadline 2026-12-02",
            "#45 Bojan Kralj - Cecilija Zorman (Club championship 2027): move 21,",
            "opponent's move, deadline 2026-12-09",
        ],
        "pgn" => vec!["[White \"Alice Novak\"]", "7. Qb3 Qe7 *"],
        "language_changed" => vec!["From now on our mails to you are in English."],
        "conditionals" => vec![
            "Your conditional moves are set",
            "  if 3...Bg4 4.dxe5",
            "\"cancel conditionals\" drops them",
        ],
        "conditionals_unexpected" => vec!["Your opponent played 3... Bg4, which none of your"],
        "conditional_played" => vec![
            "Your opponent played 3... Bg4, the move your conditional line expected",
            "answer 4. dxe5 in game #42 was played at once",
            "Bojan Kralj has the move now.",
        ],
        "standings_bye" => vec![
            "You have the bye in round 3 of Club championship 2027",
            "It scores 1 for you.",
            "Rk  No  Name",
            "R1   R2   R3  Pts  BH-C1",
            "PAB is the pairing-allocated bye",
        ],
        "standings" => vec![
            "The standings of Club championship 2027",
            "Rank  No  Name",
            "1   1  Alice Novak  X  1  1    2",
        ],
        "withdrawal_opponent" => vec![
            "Bojan Kralj has withdrawn from Club championship 2027",
            "a win for you by forfeit",
            "> Moved abroad",
        ],
        "withdrawal_player" => vec![
            "withdrawn you from Club championship 2027",
            "game #43 against Carla Rossi: annulled",
        ],
        "replaced_substitute" => vec!["You replace Carla Rossi", "It is your move: 3..."],
        "deadline_extended" => {
            vec!["given Bojan Kralj 7 more days in game #42", "> In hospital"]
        }
        "game_cancelled" => vec![
            "The tournament director has cancelled game #42",
            "No more moves can be played in it",
            "> Both players were paired twice",
        ],
        "reminder" => vec![
            "your deadline is 24 hours away",
            "Deadline: 2026-12-02 18:05 CET (17:05 UTC)",
            "Clocks: White 4 days used, 1 left for this move;",
        ],
        "silence" => vec!["has run for 14 days", "Deadline: 2026-12-30 18:05 CET"],
        "leave_notice" => vec![
            "Bojan Kralj is on leave from today",
            "stands",
            "2027-01-03 00:00 CET",
        ],
        "leave_booked" => vec![
            "2026-12-24 to 2027-01-02, 10 days",
            "37 days of leave left in 2026",
        ],
        "leave_refused" => vec![
            "> leave 2026-11-29 2026-12-05",
            "the earliest first day is 2026-11-30",
        ],
        "digest" => vec![
            "It is your move in 2 games.",
            "== Game #42: Alice Novak - Bojan Kralj ==",
            "Bojan Kralj played 3... Bg4.",
            "== Game #45: Cecilija Zorman - Alice Novak ==",
            "Cecilija Zorman played 3. d4.",
            "write to: chess+g42.k7f3q9ab2c@chess.test",
            "write to: chess+g45.r5t2w8yz3e@chess.test",
            "Deadline: 2026-12-03 10:00 CET (09:00 UTC)",
            "Open the position on an analysis board:",
            "reply to this mail with one line per game",
            "\"#42 Nc3\" or \"42: Nc3\"",
            "\"notify each\"",
        ],
        "notify_digest" => vec![
            "one mail a day listing every game",
            "\"notify each\"",
            "soon after 07:00 (Europe/Ljubljana)",
            "Your clock in a game starts when the digest",
        ],
        "notify_each" => vec!["as soon as it is your move", "\"notify digest\""],
        "deadline_report" => vec![
            "The deadline report of Club championship 2027:",
            "Deadline report at 2026-12-02 12:00 UTC",
            "On leave now and next (1):",
            "  Bojan Kralj <bojan@players.test>: 2026-12-24 to 2027-01-02",
            "  #43     Alice Novak - Carla Rossi 1-0",
            "          at 2026-12-01 17:00 UTC: lost on time",
            "\"report\" on the first line",
        ],
        "report_instructions" => vec!["so no report was sent", "\"report\" on the first line"],
        "swiss_round_warn" => vec![
            "Round 3 of Autumn open 2027 closes on 2027-01-31 12:00 UTC",
            "#42     Bor <bor@players.test> to move against Ana (10/50d)",
            "deadline 2027-02-20 12:00 UTC, 17 moves",
            "dopis game result GAME RESULT --kind adjudication \\",
        ],
        "swiss_round_closed" => vec![
            "Round 3 of Autumn open 2027 closed on 2027-01-31 12:00 UTC",
            "deadline 2027-02-20 12:00 UTC",
        ],
        "swiss_round_unpaired" => vec![
            "The pairing says:",
            "> event 3: no pairing meets the absolute criteria",
        ],
        "address_bounces" => vec![
            "Our mails to Bojan Kralj <bojan@players.test> are not being delivered",
            "(last status 5.1.1)",
            "their mail is now held",
            "#43: Bojan Kralj - Carla Rossi (Club championship 2027)",
            "    dopis player resume bojan@players.test",
        ],
        "not_handled_too_complex" => vec![
            "Your mail was not read: it has 151 MIME parts, and this server reads mails",
            "of up to 100. Nothing was changed.",
            "The subject of your mail: Re: [dopis #42] Your move",
            "kept for the server's administrator",
        ],
        "not_handled_too_slow" => vec![
            "could not be read: reading it took",
            "kept for the server's administrator",
        ],
        "not_handled_failed" => vec![
            "could not be handled because of a",
            "kept for the server's administrator",
        ],
        other => panic!("no English phrases for {other}"),
    }
}

/// Every mail kind, written to a player of `lang`; `says(name)` gives the
/// texts the plain part of each must contain. The deadline and the time
/// control are written as the daemon writes them for a reader of `lang` in
/// Ljubljana.
pub(crate) fn cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name, mut letter: Letter, board, pgn| {
        localize(&mut letter, lang);
        cases.push(Case {
            name,
            letter,
            text_has: says(name),
            boards: usize::from(board),
            pgn,
        })
    };

    let mut started = letter(
        LetterKind::GameStarted,
        lang,
        Color::Black,
        Some(view(opera_after(0), Some(Color::Black))),
    );
    started.in_reply_to = None;
    started.references = Vec::new();
    add("game_started", started, true, false);

    // Black's 3... Bg4 reaches White, who also sees Black's draw offer.
    let mut offered = view(opera_after(6), Some(Color::White));
    offered.draw_offer_from = Some(Color::Black);
    // With the analysis board link on (`[mail] analysis_link = "lichess"`).
    offered.analysis_url = dopis::domain::chess::analysis::AnalysisLink::parse("lichess")
        .expect("a known setting")
        .url(offered.game.position(), Color::White, false);
    let mut your_move = letter(LetterKind::YourMove, lang, Color::White, Some(offered));
    your_move.in_reply_to = None;
    add("your_move", your_move, true, false);

    add(
        "move_accepted",
        letter(
            LetterKind::MoveAccepted { ply: 18 },
            lang,
            Color::White,
            Some(view(opera_after(19), Some(Color::White))),
        ),
        true,
        false,
    );
    // Black's 3... Bg4 set off White's conditional answer 4. dxe5: Black
    // is told of both, and that it is Black's move again.
    add(
        "move_accepted_conditional",
        letter(
            LetterKind::MoveAccepted { ply: 5 },
            lang,
            Color::Black,
            Some(view(opera_after(7), Some(Color::Black))),
        ),
        true,
        false,
    );

    for (name, to) in [
        ("game_over_won", Color::White),
        ("game_over_lost", Color::Black),
    ] {
        add(
            name,
            letter(
                LetterKind::GameOver,
                lang,
                to,
                Some(with_pgn(view(opera(), Some(to)))),
            ),
            true,
            true,
        );
    }

    add(
        "draw_offer_declined",
        letter(
            LetterKind::DrawOfferDeclined,
            lang,
            Color::Black,
            Some(view(opera_after(9), Some(Color::Black))),
        ),
        true,
        false,
    );

    add(
        "rejected_illegal",
        letter(
            LetterKind::Rejected {
                wrote: "Qxb7".to_owned(),
                reason: Reason::Move(MoveTextError::Illegal {
                    text: "Qxb7".to_owned(),
                    reason: IllegalReason::CannotReach {
                        role: Role::Queen,
                        from: Some(Square::F3),
                        to: Square::B7,
                    },
                }),
                kind: RejectionKind::Illegal,
            },
            lang,
            Color::White,
            Some(view(opera_after(10), Some(Color::White))),
        ),
        true,
        false,
    );

    add(
        "rejected_not_your_turn",
        letter(
            LetterKind::Rejected {
                wrote: "Nf6".to_owned(),
                reason: Reason::NotYourTurn {
                    to_move: Color::White,
                },
                kind: RejectionKind::NotYourTurn,
            },
            lang,
            Color::Black,
            Some(view(opera_after(10), Some(Color::Black))),
        ),
        true,
        false,
    );

    // Black writes a move to the finished game: told the result, and
    // nothing about writing moves.
    let finished = opera();
    let outcome = finished.outcome().expect("mate").clone();
    add(
        "rejected_game_over",
        letter(
            LetterKind::Rejected {
                wrote: format!("{}c6", knight(lang)),
                reason: Reason::GameOver(outcome),
                kind: RejectionKind::GameOver,
            },
            lang,
            Color::Black,
            Some(view(finished, Some(Color::Black))),
        ),
        true,
        false,
    );

    // White claims a draw with a knight move that makes no repetition:
    // told how claims work, not how to write moves.
    add(
        "rejected_claim",
        letter(
            LetterKind::Rejected {
                wrote: format!("{} {}c3", claim_words(lang), knight(lang)),
                reason: Reason::ClaimInvalid {
                    why: ClaimRejected::NotYet {
                        with_move: true,
                        occurrences: 1,
                        quiet_moves: 0,
                    },
                    with_move: true,
                },
                kind: RejectionKind::Claim,
            },
            lang,
            Color::White,
            Some(view(opera_after(4), Some(Color::White))),
        ),
        true,
        false,
    );

    let mut unknown = letter(
        LetterKind::Rejected {
            wrote: "e4".to_owned(),
            reason: Reason::NotYourGame { game: GameId(77) },
            kind: RejectionKind::UnknownGame,
        },
        lang,
        Color::White,
        None,
    );
    unknown.reply_to = None;
    add("rejected_unknown_game", unknown, false, false);

    add(
        "confirm_request",
        letter(
            LetterKind::ConfirmRequest {
                command: "Nf3".to_owned(),
            },
            lang,
            Color::White,
            Some(view(opera_after(2), Some(Color::White))),
        ),
        false,
        false,
    );

    add(
        "refused",
        letter(
            LetterKind::Refused {
                reason: Reason::WrongToken { game: GameId(42) },
            },
            lang,
            Color::Black,
            Some(view(opera_after(3), Some(Color::Black))),
        ),
        false,
        false,
    );

    let mut help = letter(
        LetterKind::Help {
            examples: vec![
                format!("{}f3", knight(lang)),
                "e4".to_owned(),
                "O-O".to_owned(),
            ],
        },
        lang,
        Color::White,
        None,
    );
    help.reply_to = None;
    add("help", help, false, false);

    add(
        "status",
        letter(
            LetterKind::Status,
            lang,
            Color::Black,
            Some(view(opera_after(13), Some(Color::Black))),
        ),
        true,
        false,
    );

    let mut games = letter(
        LetterKind::Games {
            games: vec![
                GameListEntry {
                    id: 42,
                    white: "Alice Novak".to_owned(),
                    black: "Bojan Kralj".to_owned(),
                    event: None,
                    move_number: 7,
                    your_move: true,
                    deadline: Some(deadline_in(lang, 2026, 12, 2, 17, 5)),
                },
                GameListEntry {
                    id: 45,
                    white: "Bojan Kralj".to_owned(),
                    black: "Cecilija Zorman".to_owned(),
                    event: Some("Club championship 2027".to_owned()),
                    move_number: 21,
                    your_move: false,
                    deadline: Some(deadline_in(lang, 2026, 12, 9, 9, 30)),
                },
            ],
        },
        lang,
        Color::Black,
        None,
    );
    games.reply_to = None;
    add("games", games, false, false);

    add(
        "pgn",
        letter(
            LetterKind::Pgn,
            lang,
            Color::White,
            Some(with_pgn(view(opera_after(14), Some(Color::White)))),
        ),
        true,
        true,
    );

    let mut language = letter(LetterKind::LanguageChanged, lang, Color::Black, None);
    language.reply_to = None;
    add("language_changed", language, false, false);

    // White answered our mail about move 2 with a knight move; the game
    // is at move 4 now. The reply address is the confirmation's.
    let knight_move = format!("{}c3", knight(lang));
    let mut stale = letter(
        LetterKind::ConfirmStale {
            command: knight_move.clone(),
            answered: MovePoint {
                number: 2,
                black: false,
            },
            current: MovePoint {
                number: 4,
                black: false,
            },
            example: Some(format!("4. {knight_move}")),
        },
        lang,
        Color::White,
        Some(view(opera_after(6), Some(Color::White))),
    );
    stale.reply_to = Some(addr("chess+c17.m4q8w2ex7a@chess.test"));
    stale.message_id = mid("dopis.g42.p6.mail1@chess.test");
    add("confirm_stale", stale, true, false);

    add(
        "repeated",
        letter(
            LetterKind::Repeated {
                wrote: "d4".to_owned(),
                first: deadline_in(lang, 2026, 11, 29, 11, 1),
            },
            lang,
            Color::White,
            Some(view(opera_after(6), Some(Color::White))),
        ),
        true,
        false,
    );
    cases
}

/// The message-ids of a threading header as mail-parser reads them.
fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    match value {
        HeaderValue::Text(t) => vec![t.to_string()],
        HeaderValue::TextList(list) => list.iter().map(|t| t.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// How each language says "How to reply" and begins the board's alt text.
fn words_of(lang: Lang) -> (&'static str, &'static str) {
    match lang {
        Lang::Sl => ("Kako odgovoriti", "Šahovnica"),
        Lang::Pl => ("Jak odpowiedzieć", "Szachownica"),
        Lang::Lv => ("Kā atbildēt", "Šaha galdiņš"),
        Lang::De => ("So antworten Sie", "Schachbrett"),
        _ => ("How to reply", "Chess board"),
    }
}

/// Everything a client relies on, checked on the parsed mail; returns problems.
fn check_parsed(case: &Case, bytes: &[u8]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fail = |p: String| problems.push(format!("{}: {p}", case.name));
    let letter = &case.letter;
    let Some(mail) = MessageParser::default().parse(bytes) else {
        fail("mail-parser cannot parse it".to_owned());
        return problems;
    };

    let want_subject = subject(letter);
    if mail.subject() != Some(want_subject.as_str()) {
        fail(format!(
            "subject {:?}, subject() says {want_subject:?}",
            mail.subject()
        ));
    }
    let tag = match &letter.game {
        Some(g) => format!("[dopis #{}] ", g.id),
        None => "[dopis] ".to_owned(),
    };
    if !want_subject.starts_with(&tag) {
        fail(format!(
            "subject {want_subject:?} does not start with {tag:?}"
        ));
    }
    if let Some(g) = &letter.game
        && dopis::adapter::mail::route::game_in_subject(&want_subject) != Some(g.id)
    {
        fail("routing cannot read the game back from the subject".to_owned());
    }

    let reply_to = mail
        .reply_to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(str::to_owned);
    if reply_to.as_deref() != letter.reply_to.as_ref().map(EmailAddress::as_str) {
        fail(format!(
            "Reply-To {reply_to:?}, given {:?}",
            letter.reply_to
        ));
    }
    if mail.message_id() != Some(letter.message_id.as_str()) {
        fail(format!("Message-ID {:?}", mail.message_id()));
    }
    let in_reply_to = ids(mail.in_reply_to());
    let want: Vec<String> = letter
        .in_reply_to
        .iter()
        .map(|m| m.as_str().to_owned())
        .collect();
    if in_reply_to != want {
        fail(format!("In-Reply-To {in_reply_to:?}, given {want:?}"));
    }
    let references = ids(mail.references());
    let want: Vec<String> = letter
        .references
        .iter()
        .map(|m| m.as_str().to_owned())
        .collect();
    if references != want {
        fail(format!("References {references:?}, given {want:?}"));
    }
    let auto = mail.header_raw("Auto-Submitted").map(str::trim);
    let want_auto = if letter.in_reply_to.is_some() {
        "auto-replied"
    } else {
        "auto-generated"
    };
    if auto != Some(want_auto) {
        fail(format!("Auto-Submitted {auto:?}, want {want_auto}"));
    }
    if mail.header_raw("X-Auto-Response-Suppress").map(str::trim) != Some("All") {
        fail("no X-Auto-Response-Suppress: All".to_owned());
    }
    if mail.header_raw("X-Loop").map(str::trim) != Some(letter.from.address.as_str()) {
        fail(format!(
            "X-Loop {:?}, want our address",
            mail.header_raw("X-Loop")
        ));
    }
    if mail.date().map(|d| d.to_timestamp()) != Some(letter.date.timestamp()) {
        fail(format!("Date {:?}", mail.date()));
    }

    let text = mail
        .body_text(0)
        .map(|t| t.into_owned())
        .unwrap_or_default();
    for want in &case.text_has {
        if !text.contains(want) {
            fail(format!("text part lacks {want:?}"));
        }
    }
    let (how_to_reply, board_alt) = words_of(letter.lang);
    if !text.contains(how_to_reply) {
        fail(format!("text part does not say {how_to_reply:?}"));
    }
    // PGN keeps its own limit of 79 columns; everything else fits 78.
    let limit = if case.pgn { 79 } else { 78 };
    for line in text.lines() {
        // A link stands whole on its own line: broken, it would not open.
        let link = line.starts_with("https://") && !line.contains(' ');
        if (line.chars().count() > limit && !link) || line.contains('\t') {
            fail(format!("text line too long or with a tab: {line:?}"));
        }
    }
    // Each diagram has its files written above and below it.
    let file_rows = text
        .lines()
        .filter(|l| l.contains("a  b  c  d  e  f  g  h") || l.contains("h  g  f  e"))
        .count();
    if file_rows < 2 * case.boards {
        fail(format!(
            "text part has {file_rows} rows of files for {} boards",
            case.boards
        ));
    }

    let html = mail
        .body_html(0)
        .map(|t| t.into_owned())
        .unwrap_or_default();
    if !html.contains(how_to_reply) {
        fail(format!("HTML part does not say {how_to_reply:?}"));
    }
    let images: Vec<_> = mail
        .attachments()
        .filter(|p| p.content_type().is_some_and(|c| c.ctype() == "image"))
        .collect();
    if images.len() != case.boards {
        fail(format!(
            "boards wanted: {}, images found: {}",
            case.boards,
            images.len()
        ));
    }
    for image in &images {
        let cid = image.content_id().unwrap_or("");
        if cid.is_empty() || !html.contains(&format!("src=\"cid:{cid}\"")) {
            fail(format!("the HTML does not show the inline image {cid:?}"));
        }
        if !image.contents().starts_with(b"\x89PNG\r\n\x1a\n") {
            fail("the inline image is not a PNG".to_owned());
        }
    }
    let alts = html.matches(&format!("alt=\"{board_alt}")).count();
    if alts != case.boards {
        fail(format!(
            "{alts} images with the alt text {board_alt:?}, {} boards",
            case.boards
        ));
    }

    let pgns: Vec<_> = mail
        .attachments()
        .filter(|p| p.attachment_name().is_some_and(|n| n.ends_with(".pgn")))
        .collect();
    match (case.pgn, pgns.as_slice()) {
        (false, []) => {}
        (true, [file]) => {
            let given = letter
                .game
                .as_ref()
                .and_then(|g| g.pgn.clone())
                .unwrap_or_default();
            if file.attachment_name() != Some("game-42.pgn") {
                fail(format!("PGN named {:?}", file.attachment_name()));
            }
            let got = String::from_utf8_lossy(file.contents()).replace("\r\n", "\n");
            if got != given {
                fail(format!(
                    "attached PGN differs:\n{got}\n--- given ---\n{given}"
                ));
            }
        }
        (want, found) => fail(format!(
            "PGN wanted: {want}, attachments found: {}",
            found.len()
        )),
    }

    // A "your move" mail carries its deadline as a calendar event that a
    // real parser reads back (see tests/it/calendar.rs for the rest).
    let calendars: Vec<_> = mail
        .attachments()
        .filter(|p| {
            p.content_type()
                .is_some_and(|c| c.ctype() == "text" && c.subtype() == Some("calendar"))
        })
        .collect();
    // A mail telling a player their move was played (and it is not their
    // move again), or that the game is over, cancels that event.
    let wants_calendar = matches!(letter.kind, LetterKind::YourMove)
        && letter.game.as_ref().is_some_and(|g| {
            g.deadline_at.is_some() && !g.game.is_over() && g.recipient == Some(g.game.turn())
        });
    let wants_cancel = letter.game.as_ref().is_some_and(|g| {
        g.recipient.is_some()
            && match letter.kind {
                LetterKind::MoveAccepted { .. } => {
                    !g.game.is_over() && g.recipient != Some(g.game.turn())
                }
                LetterKind::GameOver => g.game.is_over(),
                _ => false,
            }
    });
    match (wants_calendar || wants_cancel, calendars.as_slice()) {
        (false, []) => {}
        (true, [ics]) => {
            let text = String::from_utf8_lossy(ics.contents()).into_owned();
            let game = letter.game.as_ref().expect("a game");
            let method = ics.content_type().and_then(|c| c.attribute("method"));
            let checked = if wants_cancel {
                let above = u32::try_from(game.game.plies().len()).unwrap_or(u32::MAX) - 1;
                crate::calendar::check_cancel_event(&text, game, &letter.from, above).and(
                    match method {
                        Some("CANCEL") => Ok(()),
                        other => Err(format!("MIME method {other:?}, want CANCEL")),
                    },
                )
            } else {
                crate::calendar::check_deadline_event(&text, game, &letter.from)
            };
            if let Err(e) = checked {
                fail(format!("calendar: {e}\n{text}"));
            }
            if ics.attachment_name() != Some(format!("dopis-{}.ics", game.id).as_str()) {
                fail(format!("calendar named {:?}", ics.attachment_name()));
            }
        }
        (want, found) => fail(format!("calendar wanted: {want}, found: {}", found.len())),
    }
    problems
}

/// Composes every case, checks it parsed back, and compares it with its
/// golden file in `tests/fixtures/outbound/` (`subdir` for a translation);
/// panics with every problem found.
pub(crate) fn check_golden(cases: Vec<Case>, subdir: Option<&str>) {
    let problems = golden_problems(cases, subdir);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What is wrong with `cases` against their golden files in `subdir` (none
/// under `DOPIS_BLESS=1`, which writes them): each problem named by case.
pub(crate) fn golden_problems(cases: Vec<Case>, subdir: Option<&str>) -> Vec<String> {
    let bless = std::env::var("DOPIS_BLESS").is_ok_and(|v| v == "1");
    let dir = subdir.map_or_else(dir, |d| dir().join(d));
    let mut problems = Vec::new();
    for case in cases {
        let bytes = compose(&case.letter).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        problems.extend(check_parsed(&case, &bytes));
        problems.extend(check_raw(&case, &bytes));

        let golden = dir.join(format!("{}.eml", case.name));
        let failed = dir.join(format!("{}.eml.failed", case.name));
        if bless {
            fs::create_dir_all(&dir).expect("create golden dir");
            fs::write(&golden, &bytes).expect("write golden");
            let _ = fs::remove_file(&failed);
            continue;
        }
        match fs::read(&golden) {
            Ok(expected) if expected == bytes => {
                let _ = fs::remove_file(&failed);
            }
            Ok(_) | Err(_) => {
                let _ = fs::create_dir_all(&dir);
                fs::write(&failed, &bytes).expect("write .failed");
                problems.push(format!(
                    "{}: differs from {} (new bytes in {}; DOPIS_BLESS=1 accepts them)",
                    case.name,
                    golden.display(),
                    failed.display()
                ));
            }
        }
    }
    problems
}

/// The raw bytes are 7-bit with CRLF line ends and no line over 998 octets.
fn check_raw(case: &Case, bytes: &[u8]) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(text) = std::str::from_utf8(bytes) else {
        return vec![format!("{}: not UTF-8, let alone ASCII", case.name)];
    };
    if !text.is_ascii() {
        problems.push(format!("{}: raw mail must be 7-bit", case.name));
    }
    for line in text.split("\r\n") {
        if line.contains('\n') || line.contains('\r') {
            problems.push(format!("{}: bare LF or CR", case.name));
        }
        if line.len() > 998 {
            problems.push(format!("{}: line over 998 octets", case.name));
        }
    }
    problems
}

#[test]
fn every_mail_kind_matches_its_golden_file_and_parses_back() {
    check_golden(cases(), None);
}

/// A fixed instant, written as the daemon writes deadlines for a reader of
/// `lang` in Ljubljana.
fn deadline_in(lang: Lang, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> String {
    let at = Utc
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("fixed instant");
    describe_deadline(at, Some(chrono_tz::Europe::Ljubljana), lang)
}

/// A letter's game as the daemon writes it for a reader of `lang` in
/// Ljubljana: its deadline (where it has one), time control and clocks (where
/// it shows them) in the reader's language.
fn localize(letter: &mut Letter, lang: Lang) {
    if let Some(game) = letter.game.as_mut() {
        if game.deadline.is_some() {
            game.deadline = Some(deadline_in(lang, 2026, 12, 2, 17, 5));
        }
        game.time_control = describe_control(&TimeControl::default(), lang);
        if game.clocks.is_some() {
            game.clocks = Some(clocks_in(lang, &game.game));
        }
    }
}

/// The bishop's letter in `lang`.
fn bishop(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "B",
        Lang::Pl => "G",
        _ => "L",
    }
}

/// The mails of conditional moves, events, TD actions and the clock, written
/// to a player of `lang`; `says(name)` gives the texts the plain part of each
/// must contain. What the daemon still hands over in English (the note on
/// conditional moves, a TD's reason, the leave left, why leave was refused,
/// how long before a deadline a reminder comes) is English here too.
pub(crate) fn event_and_time_cases_in(
    lang: Lang,
    says: fn(&str) -> Vec<&'static str>,
) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut add = |name, mut letter: Letter, board, pgn| {
        localize(&mut letter, lang);
        cases.push(Case {
            name,
            letter,
            text_has: says(name),
            boards: usize::from(board),
            pgn,
        })
    };

    // White set two lines after 3. d4 (the arbiter shows them with the
    // language's `if` word and piece letters), then one of them fired.
    let (b, n) = (bishop(lang), knight(lang));
    let when = dopis::domain::command::if_word(lang);
    add(
        "conditionals",
        letter(
            LetterKind::Conditionals {
                note: ConditionalNote::Set,
                lines: vec![
                    format!("{when} 3...{b}g4 4.dxe5"),
                    format!("{when} 3...exd4 4.{n}xd4"),
                ],
            },
            lang,
            Color::White,
            Some(view(opera_after(5), Some(Color::White))),
        ),
        false,
        false,
    );
    // Black played 3... Bg4, which none of White's lines expected.
    add(
        "conditionals_unexpected",
        letter(
            LetterKind::Conditionals {
                note: ConditionalNote::Unexpected { ply: 5 },
                lines: Vec::new(),
            },
            lang,
            Color::White,
            Some(view(opera_after(6), Some(Color::White))),
        ),
        false,
        false,
    );
    add(
        "conditional_played",
        letter(
            LetterKind::ConditionalPlayed { ply: 6 },
            lang,
            Color::White,
            Some(view(opera_after(7), Some(Color::White))),
        ),
        true,
        false,
    );

    // The crosstable of a small finished round robin, as `standings` gets it.
    let table = standings_table();
    let mut standings = letter(
        LetterKind::Standings {
            event: table.title.clone(),
            table,
            over: false,
            bye: None,
        },
        lang,
        Color::White,
        None,
    );
    standings.reply_to = None;
    add("standings", standings, false, false);

    // A Swiss event's table told to its player who has round 3's bye.
    let table = swiss_table();
    let mut bye = letter(
        LetterKind::Standings {
            event: table.title.clone(),
            table,
            over: false,
            bye: Some((3, "1".to_string())),
        },
        lang,
        Color::White,
        None,
    );
    bye.reply_to = None;
    add("standings_bye", bye, false, false);

    // TD actions: the opponent of a withdrawn player, and the player.
    add(
        "withdrawal_opponent",
        letter(
            LetterKind::Withdrawal {
                event: "Club championship 2027".to_owned(),
                player: "Bojan Kralj".to_owned(),
                effect: "forfeit_win".to_owned(),
                reason: "Moved abroad and cannot play on.".to_owned(),
                games: Vec::new(),
            },
            lang,
            Color::White,
            Some(view(opera_after(4), Some(Color::White))),
        ),
        true,
        false,
    );
    let mut withdrawn = letter(
        LetterKind::Withdrawal {
            event: "Club championship 2027".to_owned(),
            player: "Bojan Kralj".to_owned(),
            effect: String::new(),
            reason: "Moved abroad and cannot play on.".to_owned(),
            games: vec![
                dopis::adapter::mail::compose::WithdrawnGame {
                    game: 42,
                    opponent: "Alice Novak".to_owned(),
                    forfeit: true,
                },
                dopis::adapter::mail::compose::WithdrawnGame {
                    game: 43,
                    opponent: "Carla Rossi".to_owned(),
                    forfeit: false,
                },
            ],
        },
        lang,
        Color::Black,
        None,
    );
    withdrawn.reply_to = None;
    add("withdrawal_player", withdrawn, false, false);

    // A substitute takes over Carla's seat: the mails to the substitute, to
    // the opponent, and to Carla.
    let replaced = |role| LetterKind::Replaced {
        event: "Club championship 2027".to_owned(),
        old: "Carla Rossi".to_owned(),
        new: "Bojan Kralj".to_owned(),
        role,
        reason: "Carla asked to be replaced.".to_owned(),
    };
    add(
        "replaced_substitute",
        letter(
            replaced(ReplacementRole::Substitute),
            lang,
            Color::Black,
            Some(view(opera_after(5), Some(Color::Black))),
        ),
        true,
        false,
    );
    if lang != Lang::En {
        add(
            "replaced_opponent",
            letter(
                replaced(ReplacementRole::Opponent),
                lang,
                Color::White,
                Some(view(opera_after(5), Some(Color::White))),
            ),
            true,
            false,
        );
        let mut gone = letter(
            replaced(ReplacementRole::Replaced),
            lang,
            Color::Black,
            None,
        );
        gone.to = party("Carla Rossi", "carla@players.test");
        gone.reply_to = None;
        add("replaced_player", gone, false, false);
    }
    add(
        "deadline_extended",
        letter(
            LetterKind::DeadlineExtended {
                player: "Bojan Kralj".to_owned(),
                days: 7,
                reason: "In hospital for a week.".to_owned(),
            },
            lang,
            Color::White,
            Some(view(opera_after(5), Some(Color::White))),
        ),
        true,
        false,
    );
    add(
        "game_cancelled",
        letter(
            LetterKind::GameCancelled {
                reason: "Both players were paired twice by mistake.".to_owned(),
            },
            lang,
            Color::White,
            Some(view(opera_after(5), Some(Color::White))),
        ),
        true,
        false,
    );

    // The scheduler's mails: no player's mail is answered.
    let mut reminder = letter(
        LetterKind::Reminder {
            deadline: deadline_in(lang, 2026, 12, 2, 17, 5),
            before_minutes: 24 * 60,
        },
        lang,
        Color::White,
        Some(view(opera_after(6), Some(Color::White))),
    );
    reminder.in_reply_to = None;
    add("reminder", reminder, true, false);
    let mut silence = letter(
        LetterKind::Silence {
            days: 14,
            deadline: Some(deadline_in(lang, 2026, 12, 30, 17, 5)),
        },
        lang,
        Color::White,
        Some(view(opera_after(6), Some(Color::White))),
    );
    silence.in_reply_to = None;
    add("silence", silence, false, false);
    let mut leave_notice = letter(
        LetterKind::LeaveNotice {
            player: "Bojan Kralj".to_owned(),
            until: deadline_in(lang, 2027, 1, 2, 23, 0),
        },
        lang,
        Color::White,
        Some(view(opera_after(6), Some(Color::White))),
    );
    leave_notice.in_reply_to = None;
    add("leave_notice", leave_notice, false, false);
    let mut booked = letter(
        LetterKind::LeaveBooked {
            from: "2026-12-24".to_owned(),
            to: "2027-01-02".to_owned(),
            days: 10,
            left: vec![(2026, 37), (2027, 43)],
        },
        lang,
        Color::Black,
        None,
    );
    booked.reply_to = None;
    add("leave_booked", booked, false, false);
    let mut leave_refused = letter(
        LetterKind::LeaveRefused {
            wrote: "leave 2026-11-29 2026-12-05".to_owned(),
            reason: Reason::Leave(LeaveError::NotInFuture {
                today: chrono::NaiveDate::from_ymd_opt(2026, 11, 29).expect("a date"),
            }),
        },
        lang,
        Color::Black,
        None,
    );
    leave_refused.reply_to = None;
    add("leave_refused", leave_refused, false, false);

    // A TD's mails: the daily deadline report, sent unasked, and the answer
    // to "report" sent to the wrong address. Both carry the TD's own report
    // address as Reply-To.
    // A TD's mail sent unasked: their report address as Reply-To, in
    // reply to nothing.
    let unasked = |kind: LetterKind| {
        let mut l = letter(kind, lang, Color::White, None);
        l.reply_to = Some(addr(TD_REPORT_ADDRESS));
        l.in_reply_to = None;
        l.references = Vec::new();
        l
    };
    let report = deadline_report();
    let daily = unasked(LetterKind::DeadlineReport {
        event: "Club championship 2027".to_owned(),
        report: report.view(),
    });
    add("deadline_report", daily, false, false);
    let mut how = letter(
        LetterKind::ReportInstructions {
            event: "Club championship 2027".to_owned(),
        },
        lang,
        Color::White,
        None,
    );
    how.reply_to = Some(addr(TD_REPORT_ADDRESS));
    add("report_instructions", how, false, false);
    // To a Swiss event's TD: a round's closing date near (then come) with
    // a game still played, and a round that cannot be paired.
    for (name, closed) in [("swiss_round_warn", false), ("swiss_round_closed", true)] {
        let round = unasked(LetterKind::SwissRoundClosing {
            event: "Autumn open 2027".to_owned(),
            round: 3,
            closes: "2027-01-31 12:00 UTC".to_owned(),
            closed,
            games: vec![dopis::adapter::mail::compose::ReportGame {
                game: 42,
                tag: "#42    ".to_owned(),
                player: "Bor".to_owned(),
                email: "bor@players.test".to_owned(),
                opponent: "Ana".to_owned(),
                time_control: "10/50d".to_owned(),
                deadline: "2027-02-20 12:00 UTC".to_owned(),
                silent_days: 0,
                band: 0,
                moves: Some(17),
            }],
        });
        add(name, round, false, false);
    }
    let unpaired = unasked(LetterKind::SwissRoundUnpaired {
        event: "Autumn open 2027".to_owned(),
        round: 4,
        why: "event 3: no pairing meets the absolute criteria".to_owned(),
    });
    add("swiss_round_unpaired", unpaired, false, false);
    // To a TD: a player's address bounces, so their mail is held. A notice
    // of our own, needing no reply.
    let mut bounces = letter(
        LetterKind::AddressBounces {
            player: "Bojan Kralj".to_owned(),
            address: "bojan@players.test".to_owned(),
            bounces: 3,
            days: 7,
            status: "5.1.1".to_owned(),
            games: vec![
                "#42: Alice Novak - Bojan Kralj (Club championship 2027)".to_owned(),
                "#43: Bojan Kralj - Carla Rossi (Club championship 2027)".to_owned(),
            ],
        },
        lang,
        Color::White,
        None,
    );
    bounces.reply_to = None;
    bounces.in_reply_to = None;
    bounces.references = Vec::new();
    add("address_bounces", bounces, false, false);
    // A mail of theirs that could not be handled, kept for the admin: one
    // for each cause.
    for (name, cause) in [
        (
            "not_handled_too_complex",
            dopis::adapter::mail::compose::NotHandledCause::TooComplex {
                cap: "parts",
                found: "151".to_owned(),
                max: "100".to_owned(),
            },
        ),
        (
            "not_handled_too_slow",
            dopis::adapter::mail::compose::NotHandledCause::TooSlow,
        ),
        (
            "not_handled_failed",
            dopis::adapter::mail::compose::NotHandledCause::Failed,
        ),
    ] {
        let mut not_handled = letter(
            LetterKind::NotHandled {
                // The player answered our mail in their language.
                subject: match lang {
                    Lang::De => "Re: [dopis #42] Sie sind am Zug: Bojan Kralj spielte Lg4",
                    Lang::Sl => "Re: [dopis #42] Na potezi ste: Bojan Kralj igra Lg4",
                    Lang::Pl => "Re: [dopis #42] Twój ruch: Bojan Kralj gra Gg4",
                    Lang::Lv => "Re: [dopis #42] Jūsu gājiens: Bojan Kralj spēlēja Lg4",
                    _ => "Re: [dopis #42] Your move",
                }
                .to_owned(),
                cause,
            },
            lang,
            Color::White,
            None,
        );
        not_handled.reply_to = None;
        add(name, not_handled, false, false);
    }
    cases
}

/// Alice's report address as TD of event 3 (`local+r<event>.<token>`).
const TD_REPORT_ADDRESS: &str = "chess+r3.h6d2k9w4q1@chess.test";

/// A deadline report with a player on leave and a game lost on time, and no
/// game near its deadline: a game's line is longer than a text line may be
/// (its own wrapping is the report's business, not the mail's).
fn deadline_report() -> dopis::service::report::DeadlineReport {
    use dopis::service::report::{DeadlineReport, LeaveLine, TimeoutLine};
    let at = |d, h| {
        Utc.with_ymd_and_hms(2026, 12, d, h, 0, 0)
            .single()
            .expect("fixed instant")
    };
    let day = |y, m, d| chrono::NaiveDate::from_ymd_opt(y, m, d).expect("fixed day");
    DeadlineReport {
        at: at(2, 12),
        due_until: at(5, 12),
        timeouts_since: at(1, 12),
        in_tables: None,
        games: Vec::new(),
        leave: vec![LeaveLine {
            player: "Bojan Kralj".to_owned(),
            email: "bojan@players.test".to_owned(),
            from: day(2026, 12, 24),
            to: day(2027, 1, 2),
            now: false,
            special: false,
        }],
        timeouts: vec![TimeoutLine {
            game: 43,
            white: "Alice Novak".to_owned(),
            black: "Carla Rossi".to_owned(),
            result: "1-0".to_owned(),
            reason: "time forfeit".to_owned(),
            at: at(1, 17),
        }],
    }
}

/// Three players, all games over: Alice beat both, Bojan drew Carla.
fn standings_table() -> dopis::domain::event::crosstable::Crosstable {
    use dopis::domain::chess::game::GameResult;
    use dopis::domain::event::standings::{Rules, ScoredGame, individual};
    use dopis::domain::event::{Decision, GameState};
    let played = |white, black, outcome| ScoredGame {
        round: 1,
        white,
        black,
        state: GameState::Finished {
            outcome,
            decision: Decision::Played,
        },
    };
    let games = [
        played(0, 1, GameResult::WhiteWins),
        played(2, 0, GameResult::BlackWins),
        played(1, 2, GameResult::Draw),
    ];
    let rules = Rules {
        scoring: dopis::domain::event::Scoring::default(),
        tie_breaks: dopis::domain::event::tiebreak::TieBreak::ICCF.to_vec(),
        withdrawal: dopis::domain::event::WithdrawalRule::default(),
        sb_counts_unplayed: true,
    };
    let table = individual(3, &games, &[], &rules);
    let names: Vec<String> = ["Alice Novak", "Bojan Kralj", "Carla Rossi"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    dopis::domain::event::crosstable::individual("Club championship 2027", &names, &[], &table)
}

/// The table of a Swiss of five as round 3 is paired: rounds 1 and 2
/// played, a pairing-allocated bye in each, round 3's games under way and
/// its bye Alice's.
fn swiss_table() -> dopis::domain::event::crosstable::Crosstable {
    use dopis::domain::event::swiss::{
        Entry, Player, PointSystem, Tournament, crosstable, tiebreaks,
    };
    use dopis::domain::event::tiebreak::TieBreak;
    use dopis::domain::event::{Side, SideResult};
    let game = |opponent: usize, colour, result| Entry::Game {
        opponent: opponent - 1,
        colour,
        result,
        played: true,
    };
    let (w, b) = (Side::White, Side::Black);
    let (win, draw, loss) = (
        Some(SideResult::Win),
        Some(SideResult::Draw),
        Some(SideResult::Loss),
    );
    // Pairing numbers 1 to 5: Bojan, Carla, Dana, Alice, Erik. Round 1:
    // 1-4 1-0, 2-5 ½-½, 3 the bye; round 2: 3-1 ½-½, 4-2 0-1, 5 the bye;
    // round 3: 2-1 and 5-3 being played, 4 the bye.
    let rounds = [
        vec![game(4, w, win), game(3, b, draw), game(2, b, None)],
        vec![game(5, w, draw), game(4, b, win), game(1, w, None)],
        vec![Entry::PairingBye, game(1, w, draw), game(5, b, None)],
        vec![game(1, b, loss), game(2, w, loss), Entry::PairingBye],
        vec![game(2, b, draw), Entry::PairingBye, game(3, w, None)],
    ];
    let t = Tournament {
        players: rounds
            .into_iter()
            .map(|rounds| Player {
                rating: 0,
                rounds,
                accelerations: Vec::new(),
            })
            .collect(),
        rounds: 5,
        points: PointSystem::default(),
        initial_colour: Side::White,
        acceleration: Default::default(),
        forbidden: Vec::new(),
    };
    let tie_breaks = [
        TieBreak::BuchholzCut1,
        TieBreak::Buchholz,
        TieBreak::SonnebornBerger,
    ];
    let table = tiebreaks::table(&t, 3, &tie_breaks);
    let names: Vec<String> = [
        "Bojan Kralj",
        "Carla Rossi",
        "Dana Horvat",
        "Alice Novak",
        "Erik Zupan",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    crosstable::crosstable("Club championship 2027", &t, &table, &names, &[], &[])
}

#[test]
fn event_and_time_mails_match_their_golden_files_and_parse_back() {
    check_golden(event_and_time_cases_in(Lang::En, english), None);
}

/// The daily digest (two games where it is Alice's move, each with its own
/// reply address) and the answers to `notify digest` and `notify each`,
/// written to a player of `lang`; `says(name)` gives the texts the plain
/// part of each must contain.
pub(crate) fn notify_cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    let in_lang = |mut v: GameView, deadline: (u32, u32, u32)| {
        let (d, h, mi) = deadline;
        v.deadline = Some(deadline_in(lang, 2026, 12, d, h, mi));
        v.time_control = describe_control(&TimeControl::default(), lang);
        v.clocks = Some(clocks_in(lang, &v.game));
        v
    };
    // Alice is White in game 42 (after 3... Bg4) and Black in game 45
    // (after 3. d4), and has the move in both.
    let mut first = in_lang(view(opera_after(6), Some(Color::White)), (2, 17, 5));
    // Game 42's event allows the analysis board link.
    first.analysis_url = dopis::domain::chess::analysis::AnalysisLink::parse("lichess")
        .expect("a known setting")
        .url(first.game.position(), Color::White, false);
    let mut second = view(opera_after(5), Some(Color::Black));
    second.id = 45;
    second.white = "Cecilija Zorman".to_owned();
    second.black = "Alice Novak".to_owned();
    let second = in_lang(second, (3, 9, 0));
    // The scheduler sends it unasked; a reply to it names each game on
    // its line, and each game also gives its own address.
    let mut digest = letter(
        LetterKind::Digest {
            games: vec![
                DigestGame {
                    view: first,
                    reply_to: addr("chess+g42.k7f3q9ab2c@chess.test"),
                },
                DigestGame {
                    view: second,
                    reply_to: addr("chess+g45.r5t2w8yz3e@chess.test"),
                },
            ],
        },
        lang,
        Color::White,
        None,
    );
    digest.reply_to = Some(addr("chess+d1.w3k8x2m9qa@chess.test"));
    digest.in_reply_to = None;
    digest.references = Vec::new();
    // The pages at an https address: a one-click unsubscribe link (RFC 8058).
    digest.unsubscribe = Some(
        "https://chess.test/unsubscribe/7.digest.1796212800.k7f3q9ab2cp2x8m4nv7dk7f3q9".into(),
    );

    let mut cases = vec![Case {
        name: "digest",
        letter: digest,
        text_has: says("digest"),
        boards: 2,
        pgn: false,
    }];
    for (name, chosen) in [("notify_digest", true), ("notify_each", false)] {
        let mut answer = letter(
            LetterKind::NotifyChanged {
                digest: chosen,
                at: "07:00 (Europe/Ljubljana)".to_owned(),
            },
            lang,
            Color::White,
            None,
        );
        answer.reply_to = None;
        cases.push(Case {
            name,
            letter: answer,
            text_has: says(name),
            boards: 0,
            pgn: false,
        });
    }
    cases
}

/// A digest to Alice, written in `lang`, listing `n` games (one position,
/// numbered from 42): for the counts its subject and first line decline.
pub(crate) fn digest_of(lang: Lang, n: usize) -> Letter {
    let games = (42..)
        .take(n)
        .map(|id| {
            let mut v = view(opera_after(6), Some(Color::White));
            v.id = id;
            // The first game's event allows the analysis board link.
            if id == 42 {
                v.analysis_url = dopis::domain::chess::analysis::AnalysisLink::parse("lichess")
                    .expect("a known setting")
                    .url(v.game.position(), Color::White, false);
            }
            DigestGame {
                view: v,
                reply_to: addr(&format!("chess+g{id}.k7f3q9ab2c@chess.test")),
            }
        })
        .collect();
    let mut digest = letter(LetterKind::Digest { games }, lang, Color::White, None);
    digest.reply_to = None;
    digest.in_reply_to = None;
    digest.references = Vec::new();
    digest
}

#[test]
fn digest_and_notify_mails_match_their_golden_files_and_parse_back() {
    check_golden(notify_cases_in(Lang::En, english), None);
}

/// A message between the players, with a move or alone, as a player of
/// `lang` writes it: with characters HTML must escape, a blank line and an
/// indented line.
pub(crate) fn talk_in(lang: Lang) -> &'static str {
    match lang {
        Lang::De => "Viel Glück & <b>danke</b> für die Partie!\n\nBis bald,\n  Bojan",
        Lang::Sl => "Srečno & <b>hvala</b> za partijo!\n\nLep pozdrav,\n  Bojan",
        Lang::Pl => "Powodzenia & <b>dzięki</b> za partię!\n\nDo usłyszenia,\n  Bojan",
        Lang::Lv => "Veiksmi & <b>paldies</b> par partiju!\n\nUz tikšanos,\n  Bojan",
        _ => "Good luck & <b>thanks</b> for the game!\n\nSee you,\n  Bojan",
    }
}

/// The mails that carry a message between the players, to a player of
/// `lang`: with the opponent's move, the mover's confirmation, a message
/// alone (to the opponent, and the answer to its writer), a message held
/// by an event without messages, and a move with words on its line.
pub(crate) fn talk_cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    let from = |shortened| Talk::From {
        name: "Bojan Kralj".into(),
        text: talk_in(lang).into(),
        shortened,
    };
    let mut cases = Vec::new();
    let mut add = |name, mut letter: Letter, talk, board| {
        letter.talk = talk;
        localize(&mut letter, lang);
        cases.push(Case {
            name,
            letter,
            text_has: says(name),
            boards: usize::from(board),
            pgn: false,
        });
    };
    let mut your_move = letter(
        LetterKind::YourMove,
        lang,
        Color::White,
        Some(view(opera_after(6), Some(Color::White))),
    );
    your_move.in_reply_to = None;
    add("your_move_with_message", your_move, Some(from(true)), true);
    add(
        "move_accepted_message_passed",
        letter(
            LetterKind::MoveAccepted { ply: 18 },
            lang,
            Color::White,
            Some(view(opera_after(19), Some(Color::White))),
        ),
        Some(Talk::Passed {
            to: "Bojan Kralj".into(),
            shortened: false,
        }),
        true,
    );
    let mut alone = letter(
        LetterKind::Message { alone: true },
        lang,
        Color::White,
        Some(view(opera_after(6), Some(Color::White))),
    );
    alone.in_reply_to = None;
    add("message_from_opponent", alone, Some(from(false)), false);
    add(
        "message_passed",
        letter(
            LetterKind::Message { alone: true },
            lang,
            Color::Black,
            Some(view(opera_after(6), Some(Color::Black))),
        ),
        Some(Talk::Passed {
            to: "Alice Novak".into(),
            shortened: false,
        }),
        false,
    );
    add(
        "message_held",
        letter(
            LetterKind::Message { alone: false },
            lang,
            Color::Black,
            Some(view(opera_after(6), Some(Color::Black))),
        ),
        Some(Talk::Held),
        false,
    );
    add(
        "rejected_message_on_next_line",
        letter(
            LetterKind::Rejected {
                wrote: format!("{}f3 thanks", knight(lang)),
                reason: Reason::MessageOnNextLine,
                kind: RejectionKind::Unreadable,
            },
            lang,
            Color::White,
            Some(view(opera_after(6), Some(Color::White))),
        ),
        None,
        true,
    );
    cases
}

/// The mails of the endgame tables in `lang`: a "your move" that says what
/// the tables say as the game enters them, the game over by a claim on
/// them, and a claim they deny.
pub(crate) fn tables_cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    use dopis::domain::arbiter::{Claimed, TableRefusal};
    use dopis::domain::chess::outcome::{GameResult, Outcome};
    use dopis::domain::chess::tablebase::{
        Decider, Dtz, Reading, TableNews, TableProof, TablebaseRule, Wdl, Wdl50,
    };
    // Black's king has just stepped to d5: White to move in K+R v K.
    let krvk = || {
        let mut game =
            Game::new(StartPosition::fen("8/8/8/4k3/8/8/8/R3K3 b - - 0 1").unwrap()).unwrap();
        game.play_uci("e5d5", None).unwrap();
        game
    };
    let reading = Reading {
        material: "KRvK".into(),
        pieces: 3,
        turn: Color::White,
        halfmoves: 0,
        wdl: Wdl::Win,
        wdl50: Some(Wdl50::Win),
        dtz: Some(Dtz {
            plies: 23,
            rounded: false,
        }),
    };
    let mut cases = Vec::new();
    let mut in_tables = view(krvk(), Some(Color::White));
    in_tables.tables = Some(TableNews {
        reading: reading.clone(),
        rule: TablebaseRule::Iccf,
    });
    cases.push(Case {
        name: "your_move_tables_say",
        letter: letter(LetterKind::YourMove, lang, Color::White, Some(in_tables)),
        text_has: says("your_move_tables_say"),
        boards: 1,
        pgn: false,
    });
    let mut won = krvk();
    let proof = TableProof::of(&reading, TablebaseRule::Iccf, Decider::Claim(Color::White));
    won.rule(Outcome::new(GameResult::WhiteWins, proof.end_reason()));
    cases.push(Case {
        name: "game_over_by_tables",
        letter: letter(
            LetterKind::GameOver,
            lang,
            Color::Black,
            Some(with_pgn(view(won, Some(Color::Black)))),
        ),
        text_has: says("game_over_by_tables"),
        boards: 1,
        pgn: true,
    });
    let cursed = Reading {
        material: "KBBvKN".into(),
        pieces: 5,
        wdl: Wdl::CursedWin,
        wdl50: Some(Wdl50::CursedWin),
        dtz: Some(Dtz {
            plies: 107,
            rounded: false,
        }),
        ..reading
    };
    cases.push(Case {
        name: "refused_table_claim",
        letter: letter(
            LetterKind::Rejected {
                wrote: match lang {
                    Lang::Sl => "zahtevam zmago",
                    Lang::Pl => "żądam wygranej",
                    Lang::Lv => "pieprasu uzvaru",
                    Lang::De => "reklamiere Gewinn",
                    _ => "claim win",
                }
                .into(),
                reason: Reason::TableClaimInvalid {
                    claimed: Claimed::Win,
                    why: TableRefusal::TablesSay {
                        reading: cursed,
                        rule: TablebaseRule::FiftyMove,
                        result: GameResult::Draw,
                    },
                    with_move: false,
                    fide: None,
                },
                kind: RejectionKind::Claim,
            },
            lang,
            Color::White,
            Some(view(krvk(), Some(Color::White))),
        ),
        text_has: says("refused_table_claim"),
        boards: 1,
        pgn: false,
    });
    for case in &mut cases {
        localize(&mut case.letter, lang);
    }
    cases
}

/// The mails about entries by mail: a stranger asked to confirm, an entry
/// confirmed in an open class's queue, a refusal by rating, and the news
/// that a player is through to a final.
pub(crate) fn entry_cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    use dopis::adapter::mail::compose::{EntryNews, OpenEvent};
    let event = OpenEvent {
        id: 12,
        name: "Open 12".into(),
        time_control: describe_control(&TimeControl::default(), lang),
        closes: "2027-02-01 23:59 UTC".into(),
        entered: 5,
        min: 3,
        max: 7,
        start_when_full: true,
        anyone: true,
        rating: Some("1800–2200".into()),
    };
    let entry = |name: &'static str, news: EntryNews, reply: bool| {
        let mut letter = letter(LetterKind::Entry { news }, lang, Color::White, None);
        if !reply {
            letter.reply_to = None;
        }
        Case {
            name,
            letter,
            text_has: says(name),
            boards: 0,
            pgn: false,
        }
    };
    vec![
        entry(
            "entry_confirm",
            EntryNews::Confirm {
                event: event.clone(),
                stranger: true,
                name: "Alice Novak".into(),
            },
            true,
        ),
        entry(
            "entry_entered_queue",
            EntryNews::Entered {
                event: event.clone(),
                queue: Some((7, 3)),
            },
            true,
        ),
        entry(
            "entry_refused_rating",
            EntryNews::Refused {
                number: 12,
                event: Some(event.clone()),
                why: "rating",
                detail: Some("1650".into()),
            },
            false,
        ),
        entry(
            "entry_refused_qualification",
            EntryNews::Refused {
                number: 12,
                event: Some(event.clone()),
                why: "needs-qualification",
                detail: Some("Higher".into()),
            },
            false,
        ),
        entry(
            "entry_promoted",
            EntryNews::Promoted {
                event: event.clone(),
                section: ("Open 12/3".into(), 16),
                to: "Higher".into(),
                place: 1,
                points: "3.5".into(),
                possible: "4".into(),
            },
            false,
        ),
        entry(
            "entry_qualified",
            EntryNews::Qualified {
                event,
                stage: Some(("Open 12/F".into(), 15)),
            },
            false,
        ),
    ]
}

#[test]
fn the_entry_mails_match_their_golden_files() {
    check_golden(entry_cases_in(Lang::En, english), None);
}

/// The mails about a half-point bye in a Swiss event: given by a TD (with
/// the reason), its round paired, and two refusals (the round paired
/// already, naming the next; the limit reached).
pub(crate) fn bye_cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    use dopis::adapter::mail::compose::ByeNews;
    let news = |kind: &'static str, why: &'static str| ByeNews {
        kind,
        event: 12,
        name: "Spring Open".into(),
        round: 4,
        points: "½".into(),
        used: if kind == "granted" { 1 } else { 2 },
        max: 2,
        rounds: 7,
        next: 5,
        why,
        by_td: kind == "granted",
        reason: if kind == "granted" {
            "Asked by phone.".into()
        } else {
            String::new()
        },
    };
    [
        ("swiss_bye_granted", news("granted", "")),
        ("swiss_bye_paired", news("paired", "")),
        ("swiss_bye_refused_paired", news("refused", "paired")),
        ("swiss_bye_refused_limit", news("refused", "limit")),
    ]
    .into_iter()
    .map(|(name, news)| {
        let mut letter = letter(LetterKind::SwissBye { news }, lang, Color::White, None);
        letter.reply_to = None;
        Case {
            name,
            letter,
            text_has: says(name),
            boards: 0,
            pgn: false,
        }
    })
    .collect()
}

#[test]
fn the_swiss_bye_mails_match_their_golden_files() {
    check_golden(bye_cases_in(Lang::En, english), None);
}

/// The first mails of a thematic game (after 1.e4 c5 2.Nf3 d6, already
/// played: White's first move is move 3) and of a Chess960 game (position
/// 3): they name the line, or say it is Chess960 with its number.
pub(crate) fn start_cases_in(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    let thematic = || {
        let mut game = Game::replay(StartPosition::Standard, &["e2e4", "c7c5", "g1f3", "d7d6"])
            .expect("a legal line");
        game.set_opening_plies(4).expect("four plies");
        game
    };
    let chess960 = || Game::new(StartPosition::Chess960(3)).expect("position 3");
    let mut cases = Vec::new();
    for (name, kind, to, game) in [
        (
            "your_move_thematic",
            LetterKind::YourMove,
            Color::White,
            thematic(),
        ),
        (
            "game_started_thematic",
            LetterKind::GameStarted,
            Color::Black,
            thematic(),
        ),
        (
            "your_move_chess960",
            LetterKind::YourMove,
            Color::White,
            chess960(),
        ),
        (
            "game_started_chess960",
            LetterKind::GameStarted,
            Color::Black,
            chess960(),
        ),
    ] {
        let mut view = view(game, Some(to));
        view.time_control = describe_control(&TimeControl::default(), lang);
        view.clocks = None;
        view.deadline = None;
        let mut first = letter(kind, lang, to, Some(view));
        first.in_reply_to = None;
        first.references = Vec::new();
        cases.push(Case {
            name,
            letter: first,
            text_has: says(name),
            boards: 1,
            pgn: false,
        });
    }
    cases
}

#[test]
fn the_first_mails_of_thematic_and_chess960_games_match_their_golden_files() {
    check_golden(start_cases_in(Lang::En, english), None);
}

#[test]
fn the_endgame_tables_mails_match_their_golden_files() {
    check_golden(tables_cases_in(Lang::En, english), None);
}

#[test]
fn mails_with_messages_between_players_match_their_golden_files() {
    check_golden(talk_cases_in(Lang::En, english), None);
}

#[test]
fn a_message_is_escaped_in_the_html_part_and_quoted_whole_in_the_text() {
    for case in talk_cases_in(Lang::En, english) {
        if case.name != "your_move_with_message" {
            continue;
        }
        let bytes = compose(&case.letter).expect("composes");
        let mail = MessageParser::default().parse(&bytes).expect("parses");
        let html = mail.body_html(0).expect("html").into_owned();
        assert!(
            html.contains("Good luck &amp; &lt;b&gt;thanks&lt;&#x2f;b&gt; for the game!")
                || html.contains("Good luck &amp; &lt;b&gt;thanks&lt;/b&gt; for the game!"),
            "{html}"
        );
        assert!(!html.contains("<b>thanks"), "{html}");
        let text = mail.body_text(0).expect("text").into_owned();
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        assert!(
            lines.windows(4).any(|w| w
                == [
                    "    Good luck & <b>thanks</b> for the game!",
                    "",
                    "    See you,",
                    "      Bojan"
                ]),
            "{text}"
        );
    }
}
