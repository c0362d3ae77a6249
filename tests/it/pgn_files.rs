//! PGN fixtures (famous games, a Chess960 game, one of our correspondence
//! exports, an annotated download): each imports to the game we expect,
//! survives export -> import unchanged, and its export loads in
//! `pgn-extract` with the same moves (skipped with a notice when the tool is
//! not installed).

use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{TimeZone, Utc};
use dopis::domain::chess::game::{EndReason, GameResult, Outcome, StartPosition};
use dopis::domain::chess::pgn::{PgnGame, export, import};

/// One fixture file and what it must read as.
struct Expected {
    file: &'static str,
    plies: usize,
    start: StartPosition,
    outcome: Outcome,
    last_san: &'static str,
}

fn expected() -> Vec<Expected> {
    let mate = |result| Outcome::new(result, EndReason::Checkmate);
    vec![
        Expected {
            file: "opera_game.pgn",
            plies: 33,
            start: StartPosition::Standard,
            outcome: mate(GameResult::WhiteWins),
            last_san: "Rd8#",
        },
        Expected {
            file: "opera_game_annotated.pgn",
            plies: 33,
            start: StartPosition::Standard,
            outcome: mate(GameResult::WhiteWins),
            last_san: "Rd8#",
        },
        Expected {
            file: "immortal_game.pgn",
            plies: 45,
            start: StartPosition::Standard,
            outcome: mate(GameResult::WhiteWins),
            last_san: "Be7#",
        },
        Expected {
            file: "evergreen_game.pgn",
            plies: 47,
            start: StartPosition::Standard,
            outcome: mate(GameResult::WhiteWins),
            last_san: "Bxe7#",
        },
        Expected {
            file: "kasparov_topalov_1999.pgn",
            plies: 87,
            start: StartPosition::Standard,
            outcome: Outcome::new(GameResult::WhiteWins, EndReason::Resignation),
            last_san: "Qa7",
        },
        Expected {
            // python-chess numbers this FEN 63 too: an independent check of
            // our Scharnagl numbering.
            file: "chess960_castling_both_ways.pgn",
            plies: 50,
            start: StartPosition::Chess960(63),
            outcome: Outcome::new(GameResult::BlackWins, EndReason::Resignation),
            last_san: "Bxb3",
        },
        Expected {
            file: "correspondence_time_forfeit.pgn",
            plies: 9,
            start: StartPosition::Standard,
            outcome: Outcome::new(GameResult::WhiteWins, EndReason::TimeForfeit),
            last_san: "a3",
        },
    ]
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pgn")
}

fn load(file: &str) -> PgnGame {
    let path = fixture_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    import(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn ucis(game: &PgnGame) -> Vec<String> {
    game.game.plies().iter().map(|p| p.uci.clone()).collect()
}

#[test]
fn every_fixture_imports_to_the_expected_game() {
    for case in expected() {
        let pgn = load(case.file);
        let game = &pgn.game;
        assert_eq!(game.plies().len(), case.plies, "{}", case.file);
        assert_eq!(game.start(), &case.start, "{}", case.file);
        assert_eq!(game.outcome(), Some(&case.outcome), "{}", case.file);
        assert_eq!(
            game.plies().last().map(|p| p.san.as_str()),
            Some(case.last_san),
            "{}",
            case.file
        );
    }
}

#[test]
fn export_then_import_gives_the_same_game_and_tags() {
    for case in expected() {
        let original = load(case.file);
        let text = export(&original.game, &original.tags);
        let back = import(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.file));
        assert_eq!(back.game, original.game, "{}\n{text}", case.file);
        assert_eq!(back.tags, original.tags, "{}\n{text}", case.file);
        assert_eq!(
            export(&back.game, &back.tags),
            text,
            "{}: a second export differs",
            case.file
        );
        for line in text.lines() {
            assert!(line.chars().count() < 80, "{}: {line:?}", case.file);
        }
    }
}

#[test]
fn an_annotated_download_reads_as_the_plain_score() {
    let plain = load("opera_game.pgn");
    let annotated = load("opera_game_annotated.pgn");
    assert_eq!(ucis(&annotated), ucis(&plain));
    assert_eq!(
        annotated.tags.other,
        vec![("Annotator".to_owned(), "dopis tests".to_owned())]
    );
}

#[test]
fn correspondence_times_and_tags_are_read_from_our_export_format() {
    let pgn = load("correspondence_time_forfeit.pgn");
    let first = pgn.game.plies().first().cloned();
    let at = |d, h, m, s| Utc.with_ymd_and_hms(2026, 10, d, h, m, s).single();
    assert_eq!(
        first.map(|p| (p.received_at, p.sent_at)),
        Some((at(1, 8, 15, 2), at(1, 8, 15, 9)))
    );
    assert!(
        pgn.game
            .plies()
            .iter()
            .all(|p| p.received_at.is_some() && p.sent_at.is_some())
    );
    assert_eq!(pgn.tags.time_control.as_deref(), Some("1/259200"));
    assert_eq!(pgn.tags.end_date.as_deref(), Some("2026.10.19"));
    assert_eq!(pgn.tags.other, vec![("Mode".to_owned(), "EM".to_owned())]);
}

/// `pgn-extract` from PATH, or from /usr/games where Debian puts it (not on
/// every PATH).
fn pgn_extract() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("pgn-extract"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let debian = PathBuf::from("/usr/games/pgn-extract");
        debian.is_file().then_some(debian)
    })
}

#[test]
fn exported_pgn_loads_in_pgn_extract_with_the_same_moves() {
    let Some(tool) = pgn_extract() else {
        // scripts/test.sh installs it; in CI a missing tool is a failure.
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but pgn-extract is not installed: run the tests with scripts/test.sh"
        );
        println!("NOTICE: pgn-extract is not installed; external PGN check skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for case in expected() {
        let pgn = load(case.file);
        let path = dir.path().join(case.file);
        std::fs::write(&path, export(&pgn.game, &pgn.tags)).unwrap_or_else(|e| panic!("{e}"));
        // -Wuci makes pgn-extract replay every move itself and print it as
        // UCI; it reports problems on stderr but still exits 0.
        let output = Command::new(&tool)
            .arg("-s")
            .arg("-Wuci")
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", tool.display()));
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stderr.trim().is_empty(),
            "{}: pgn-extract complained:\n{stderr}",
            case.file
        );
        let moves: Vec<String> = stdout
            .lines()
            .filter(|line| !line.starts_with('[') && !line.trim().is_empty())
            .flat_map(|line| line.split_whitespace().map(str::to_owned))
            .collect();
        let mut ours = ucis(&pgn);
        ours.push(case.outcome.result.as_pgn().to_owned());
        assert_eq!(moves, ours, "{}: pgn-extract read other moves", case.file);
    }
}
