use super::*;
use crate::domain::chess::game::CHESS960_POSITIONS;
use crate::domain::chess::game::{Game, StartPosition};
use crate::domain::chess::outcome::{EndReason, GameResult, Outcome};
use chrono::TimeZone;
use chrono::Utc;

fn game_of(ucis: &[&str]) -> Game {
    Game::replay(StartPosition::Standard, ucis).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn tag_values_are_escaped_and_read_back() {
    let tags = PgnTags {
        event: r#"The "Back\slash" Cup"#.to_owned(),
        white: "Novak,\nJan".to_owned(),
        other: vec![
            ("Annotator".to_owned(), "a ] b".to_owned()),
            ("Result".to_owned(), "forged".to_owned()),
            ("Bad Name!".to_owned(), "x".to_owned()),
        ],
        ..PgnTags::default()
    };
    let text = export(&game_of(&["e2e4"]), &tags);
    assert!(
        text.contains(r#"[Event "The \"Back\\slash\" Cup"]"#),
        "{text}"
    );
    assert!(text.contains("[White \"Novak, Jan\"]"), "{text}");
    assert!(text.contains("[BadName \"x\"]"), "{text}");
    assert_eq!(text.matches("[Result ").count(), 1, "{text}");
    let back = import(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.tags.event, tags.event);
    assert_eq!(back.tags.white, "Novak, Jan");
    assert_eq!(
        back.tags.other,
        vec![
            ("Annotator".to_owned(), "a ] b".to_owned()),
            ("BadName".to_owned(), "x".to_owned())
        ]
    );
}

#[test]
fn move_times_are_comments_that_read_back() {
    let mut game = game_of(&["e2e4", "e7e5"]);
    let at = |h| Utc.with_ymd_and_hms(2026, 11, 29, h, 2, 13).single();
    game.set_received_at(0, at(17).unwrap_or_else(|| panic!("date")))
        .unwrap_or_else(|e| panic!("{e}"));
    game.set_sent_at(0, at(18).unwrap_or_else(|| panic!("date")))
        .unwrap_or_else(|e| panic!("{e}"));
    game.set_received_at(1, at(19).unwrap_or_else(|| panic!("date")))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = export(&game, &PgnTags::default());
    assert!(
        text.contains(
            "1. e4 {[%rcv 2026-11-29T17:02:13Z] [%snt 2026-11-29T18:02:13Z]} 1... e5\n{[%rcv 2026-11-29T19:02:13Z]} *"
        ),
        "{text}"
    );
    let back = import(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.game, game);
}

#[test]
fn movetext_lines_stay_under_80_columns() {
    let mut game = game_of(&[]);
    let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).single();
    for uci in "g1f3 g8f6 f3g1 f6g8 ".repeat(3).split_whitespace() {
        game.play_uci(uci, at).unwrap_or_else(|e| panic!("{e}"));
    }
    game.adjudicate(GameResult::Draw, "a very long reason, ".repeat(10).trim());
    let text = export(&game, &PgnTags::default());
    for line in text.lines() {
        assert!(line.chars().count() < 80, "{line:?}");
    }
    assert_eq!(import(&text).map(|g| g.game), Ok(game));
}

#[test]
fn typical_movetext_forms_are_read() {
    // (movetext, UCI moves expected)
    let table = [
        ("1.e4 e5 2.Nf3 *", "e2e4 e7e5 g1f3"),
        (
            "1. e4 $1 {best by test} 1... e5 ; a comment\n 2. Nf3!? *",
            "e2e4 e7e5 g1f3",
        ),
        (
            "1. e4 (1. d4 d5 (1... Nf6 {x)} 2. c4)) 1... e5 2. Nf3 1-0",
            "e2e4 e7e5 g1f3",
        ),
        (
            "e4 e5 Nf3 Nc6 Bc4 Bc5 0-0 Nf6 *",
            "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1 g8f6",
        ),
        ("%escaped line\n1. e4 e5 2. Nf3", "e2e4 e7e5 g1f3"),
        (
            "1. e4 e5 2. Nf3\n\n[Event \"next\"]\n1. d4 *",
            "e2e4 e7e5 g1f3",
        ),
    ];
    for (movetext, expected) in table {
        let game = import(movetext)
            .unwrap_or_else(|e| panic!("{movetext}: {e}"))
            .game;
        let ucis: Vec<&str> = game.plies().iter().map(|p| p.uci.as_str()).collect();
        assert_eq!(ucis.join(" "), expected, "{movetext}");
    }
}

#[test]
fn broken_pgn_errors_say_which_move_or_line_failed() {
    let table = [
        ("1. e4 e5 2. Ke3 *", "line 1, move 2. \"Ke3\""),
        (
            "1. e4 e5\n2. Nf3 Nc6 3. Xx9 *",
            "line 2, move 3. \"Xx9\": not a move in SAN",
        ),
        (
            "1. e4 e5 2. Nf3 Nc6 3. Nd5 *",
            "line 1, move 3. \"Nd5\": no legal move matches it",
        ),
        (
            "1. e4 -- *",
            "line 1, move 1... \"--\": null moves are not supported",
        ),
        ("1. e4 } e5 *", "line 1: '}' without an opening '{'"),
        (
            "1. e4\n]e5 *",
            "line 2, move 1... \"]e5\": not a move in SAN",
        ),
        ("[Event \"x\"]\n1. e4 {open", "line 2: a comment"),
        (
            "[Event \"x]\n",
            "line 1: the value of tag \"Event\" is not closed",
        ),
        ("1. e4 (1. d4", "line 1: a variation"),
        ("1. e4 )", "never opened"),
        ("[FEN \"not a fen\"]\n*", "the FEN tag is not usable"),
        (
            "[Variant \"Atomic\"]\n*",
            "variant \"Atomic\" is not supported",
        ),
        ("", "no game found"),
    ];
    for (text, needle) in table {
        let message = match import(text) {
            Ok(g) => panic!("{text:?} read as {:?}", g.game.plies()),
            Err(e) => e.to_string(),
        };
        assert!(message.contains(needle), "{text:?}: {message}");
    }
}

/// A game of random legal moves from a random start, with random mail
/// times and a random way of ending (or none).
fn random_game(start: u16, choices: &[(u8, Option<u32>)], ending: u8) -> Game {
    let start = if start >= CHESS960_POSITIONS {
        StartPosition::Standard
    } else {
        StartPosition::Chess960(start)
    };
    let mut game = Game::new(start).unwrap_or_else(|e| panic!("{e}"));
    let base = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).single();
    for (index, (pick, minutes)) in choices.iter().enumerate() {
        let moves = game.legal_moves();
        let Some(m) = moves.get(usize::from(*pick) % moves.len().max(1)).copied() else {
            break;
        };
        let at = minutes
            .and_then(|m| base.map(|b| b + chrono::Duration::minutes(i64::from(m) + index as i64)));
        game.play(&m, at).unwrap_or_else(|e| panic!("{e}"));
        if let (Some(at), true) = (at, pick % 3 == 0) {
            game.set_sent_at(index, at + chrono::Duration::seconds(5))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    if !game.is_over() {
        let turn = game.turn();
        let _ = match ending % 5 {
            0 => game.resign(turn),
            1 => game.agree_draw(),
            2 => game.time_forfeit(turn),
            3 => Ok(game.adjudicate(GameResult::BlackWins, "TD decision {x}")),
            _ => Ok(Outcome::draw(EndReason::Agreement)),
        };
    }
    game
}

proptest::proptest! {
    #[test]
    fn random_games_survive_export_and_import(
        start in 0u16..1100,
        choices in proptest::collection::vec((proptest::prelude::any::<u8>(), proptest::option::of(0u32..100_000)), 0..120),
        ending in 0u8..5,
    ) {
        let game = random_game(start, &choices, ending);
        let tags = PgnTags { white: "A \"B\" C".to_owned(), ..PgnTags::default() };
        let text = export(&game, &tags);
        let back = import(&text).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{text}")))?;
        // `}` in a comment becomes `)`, the one documented loss.
        let mut expected = game.clone();
        if let Some(Outcome { reason: EndReason::Adjudication(why), result }) = game.outcome() {
            expected.adjudicate(*result, why.replace('}', ")"));
        }
        proptest::prop_assert_eq!(back.game, expected, "{}", text);
        proptest::prop_assert_eq!(back.tags, tags);
    }

    #[test]
    fn import_never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        let _ = import(&text);
    }

    #[test]
    fn import_never_panics_on_cut_and_spliced_pgn(cut in 0usize..2000, splice in "[\\[\\]{}();%$.0-9a-hKQRBNOx=+#!? \n\"\\\\]{0,20}") {
        let source = export(&random_game(518, &[(1, Some(1)), (2, None), (3, Some(9))], 0), &PgnTags::default());
        let cut = source.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(source.len());
        let (head, tail) = source.split_at(cut);
        let _ = import(&format!("{head}{splice}{tail}"));
    }
}

#[test]
fn extreme_move_numbers_export_and_import_without_overflow() {
    let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 4294967295";
    let mut game = Game::new(StartPosition::Fen(fen.to_owned())).unwrap_or_else(|e| panic!("{e}"));
    game.play_uci("e8d8", None)
        .unwrap_or_else(|e| panic!("{e}"));
    game.play_uci("e2e4", None)
        .unwrap_or_else(|e| panic!("{e}"));
    let text = export(&game, &PgnTags::default());
    assert!(text.contains("4294967295... Kd8 4294967295. e4"), "{text}");
    assert_eq!(import(&text).map(|g| g.game.plies().len()), Ok(2));
}

#[test]
fn ambiguous_san_is_an_error_not_a_guess() {
    let text = "[FEN \"4k3/8/8/8/8/8/4K3/R6R w - - 0 1\"]\n1. Rd1 *";
    let message = import(text).map(|_| ()).map_err(|e| e.to_string());
    assert!(
        message.as_ref().is_err_and(|m| m.contains("ambiguous")),
        "{message:?}"
    );
}

#[test]
fn results_without_a_rule_get_a_recorded_reason() {
    // (movetext with tags, expected outcome)
    let table = [
        (
            "1. e4 e5 1-0",
            Outcome::new(GameResult::WhiteWins, EndReason::Resignation),
        ),
        ("1. e4 e5 1/2-1/2", Outcome::draw(EndReason::Agreement)),
        (
            "[Termination \"time forfeit\"]\n1. e4 e5 0-1",
            Outcome::new(GameResult::BlackWins, EndReason::TimeForfeit),
        ),
        (
            "1. e4 e5 {Black lost on time, White wins.} 1-0",
            Outcome::new(GameResult::WhiteWins, EndReason::TimeForfeit),
        ),
        (
            "1. f3 e5 2. g4 Qh4# 0-1",
            Outcome::new(GameResult::BlackWins, EndReason::Checkmate),
        ),
        (
            "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2",
            Outcome::draw(EndReason::ThreefoldRepetition),
        ),
    ];
    for (text, expected) in table {
        let game = import(text).unwrap_or_else(|e| panic!("{text}: {e}")).game;
        assert_eq!(game.outcome(), Some(&expected), "{text}");
    }
    let unfinished = import("1. e4 *").unwrap_or_else(|e| panic!("{e}")).game;
    assert_eq!(unfinished.outcome(), None);
}

#[test]
fn players_messages_are_comments_after_their_moves_and_read_back() {
    use super::{Remark, export_with_remarks, import};
    let mut game = Game::new(StartPosition::Standard).unwrap();
    for san in ["e4", "e5", "Nf3"] {
        let pos = game.position().clone();
        let m = shakmaty::san::San::from_ascii(san.as_bytes())
            .unwrap()
            .to_move(&pos)
            .unwrap();
        game.play(&m, None).unwrap();
    }
    let remarks = [
        Remark {
            after: 0,
            text: "Ana: have fun".into(),
        },
        Remark {
            after: 2,
            text: "Piotr: thanks {really}\nsee [%rcv 2020-01-01T00:00:00Z] you".into(),
        },
    ];
    let pgn = export_with_remarks(&game, &PgnTags::default(), &remarks);
    assert!(
        pgn.contains("{Ana: have fun} 1. e4 e5 {Piotr: thanks {really) see [ %rcv"),
        "{pgn}"
    );
    assert!(pgn.contains("you} 2. Nf3 *"), "{pgn}");
    let back = import(&pgn).expect("parses");
    assert_eq!(back.game.plies().len(), 3);
    assert!(
        back.game.plies().iter().all(|p| p.received_at.is_none()),
        "no time was made up"
    );
}

#[test]
fn a_message_never_starts_a_pgn_line_with_a_percent_nor_makes_a_long_line() {
    use super::{Remark, export_with_remarks};
    let game = game_of(&["e2e4"]);
    // Words placed so that "%off" would fall at the start of a line.
    let mut text = "word ".repeat(14);
    text.push_str("%off the record ");
    text.push_str(&"x".repeat(700));
    let remarks = [Remark { after: 1, text }];
    let pgn = export_with_remarks(&game, &PgnTags::default(), &remarks);
    for line in pgn.lines() {
        assert!(!line.starts_with('%'), "{line:?} in\n{pgn}");
        assert!(line.chars().count() < 255, "{} chars in\n{pgn}", line.len());
    }
    assert!(pgn.contains("%off"), "{pgn}");
    assert_eq!(pgn.matches('x').count(), 700, "{pgn}");
}
