//! Result kinds from the command line, on both databases: a TD enters a
//! result on time, by default, adjudicated, or cancels a game; the kind is
//! stored, shown by `game show`, written in PGN and marked in the
//! crosstable as ICCF does, and the players are told in their language.

use crate::support::app::outbox_rows_of;
use crate::support::mail::Sent;
use crate::support::{TestDb, dopis, fails, ok};

/// A single round robin of four. Berger for 4: round 1 A-D, B-C; round 2
/// D-C, A-B; round 3 B-D, C-A (games 1-6).
pub const FOUR: &str = r#"
name = "Club cup"
kind = "round-robin"
tds = ["td@club.test"]
withdrawal = "forfeit-all"
tie_breaks = ["wins", "sonneborn-berger"]

[[players]]
email = "a@club.test"
name = "Ana"

[[players]]
email = "b@club.test"
name = "Bor"
lang = "de"

[[players]]
email = "c@club.test"
name = "Cene"

[[players]]
email = "d@club.test"
name = "Dora"
"#;

/// Creates and starts FOUR in a fresh data directory.
pub fn started_four(db: &TestDb) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    std::fs::write(d.join("four.toml"), FOUR).unwrap();
    ok(&dopis(d, db, &["event", "create", "four.toml"]));
    ok(&dopis(d, db, &["event", "start", "1"]));
    dir
}

async fn a_tds_result_kinds_are_stored_shown_and_marked_as_iccf_does(db: &TestDb) {
    let dir = started_four(db);
    let d = dir.path();
    let td = ["--by", "td@club.test"];
    let rule = |args: &[&str]| {
        let mut all = vec!["game", "result"];
        all.extend(args);
        all.extend(td);
        dopis(d, db, &all)
    };
    // Game 1 A-D: Dora lost on time; game 2 B-C: Cene never started;
    // game 3 D-C: adjudicated a draw; game 4 A-B: cancelled.
    let out = ok(&rule(&[
        "1",
        "1-0",
        "--kind",
        "time",
        "--reason",
        "no move in 40 days",
    ]));
    assert!(out.contains("set to 1-0 (time)"), "{out}");
    ok(&rule(&[
        "2",
        "1-0",
        "--kind",
        "default",
        "--reason",
        "Cene never started",
    ]));
    ok(&rule(&["3", "1/2-1/2", "--reason", "dead drawn ending"]));
    let out = ok(&rule(&[
        "4",
        "--kind",
        "cancelled",
        "--reason",
        "paired by mistake",
    ]));
    assert!(out.contains("game #4 cancelled"), "{out}");

    // Refused, nothing changed: a result for a cancelled game, a
    // cancellation with a result, a draw on time, no result at all.
    for (args, says) in [
        (&["4", "1-0", "--reason", "x"][..], "game #4 was cancelled"),
        (
            &["5", "1-0", "--kind", "cancelled", "--reason", "x"][..],
            "a cancelled game has no result",
        ),
        (
            &["5", "1/2-1/2", "--kind", "time", "--reason", "x"][..],
            "kind 'time' is a win for one side",
        ),
        (&["5", "--reason", "x"][..], "give the result"),
    ] {
        let err = fails(&rule(args));
        assert!(err.contains(says), "{args:?}: {err}");
    }

    let shown = ok(&dopis(d, db, &["game", "show", "4"]));
    assert!(
        shown.contains("status:       cancelled by the TD (paired by mistake)"),
        "{shown}"
    );
    let shown = ok(&dopis(d, db, &["game", "show", "1"]));
    assert!(
        shown.contains("finished 1-0 (Lost on time, by the TD's ruling: no move in 40 days)"),
        "{shown}"
    );

    // Ana: 1E (Dora), x (Bor); Bor: + (Cene), x; Cene: - (Bor), ½A (Dora);
    // Dora: 0E (Ana), ½A (Cene). Games 5 and 6 go on.
    let text = ok(&dopis(d, db, &["event", "standings", "1"]));
    let row = |name: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} in {text}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    for (name, marks) in [
        ("Ana", ["1E", "x"]),
        ("Bor", ["+", "x"]),
        ("Cene", ["-", "½A"]),
        ("Dora", ["0E", "½A"]),
    ] {
        let cells = row(name);
        for m in marks {
            assert!(cells.iter().any(|c| c == m), "{name}: {m} in {text}");
        }
    }

    // The cancelled game's players are told, each in their language.
    let rows = outbox_rows_of(db).await;
    let mails: Vec<Sent> = rows
        .iter()
        .map(|r| Sent::parse(&r.mail_key, &r.recipient, &r.raw))
        .filter(|m| m.key.contains(".g4.cancelled."))
        .collect();
    assert_eq!(mails.len(), 2, "one to each player");
    let to = |who: &str| mails.iter().find(|m| m.to == who).unwrap();
    assert!(to("a@club.test").text.contains("cancelled game #4"));
    assert!(
        to("b@club.test").text.contains("Partie #4"),
        "{}",
        to("b@club.test").text
    );
    assert!(to("b@club.test").text.contains("gestrichen"));

    // Survives a restart: a new process reads the kinds back from the rows.
    let pgn = ok(&dopis(
        d,
        db,
        &["event", "standings", "1", "--format", "json"],
    ));
    assert!(pgn.contains("\"0E\""), "{pgn}");
}

/// The olympiad fixture with ICCF's annulment rule.
fn annulling_olympiad(d: &std::path::Path) {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/events/olympiad.toml");
    let text = std::fs::read_to_string(file).unwrap().replace(
        "withdrawal = \"forfeit-all\"",
        "withdrawal = \"annul-if-under-half\"",
    );
    std::fs::write(d.join("olympiad.toml"), text).unwrap();
}

async fn a_withdrawn_boards_opponents_are_told_the_truth_in_team_events(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    annulling_olympiad(d);
    ok(&dopis(d, db, &["event", "create", "olympiad.toml"]));
    ok(&dopis(d, db, &["event", "start", "1"]));
    let pairings: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["event", "pairings", "1", "--format", "json"],
    )))
    .unwrap();
    let me = "board1@chess.example.si";
    let mine: Vec<String> = pairings
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["white"]["email"] == me || p["black"]["email"] == me)
        .map(|p| p["game"].to_string())
        .collect();
    assert_eq!(mine.len(), 6, "board 1 meets six teams");
    let td = ["--by", "olympiad-td@example.org"];
    for g in &mine[..2] {
        let mut args = vec!["game", "result", g, "1/2-1/2", "--reason", "agreed"];
        args.extend(td);
        ok(&dopis(d, db, &args));
    }
    // 2 of 6 finished, under half: every game of the board is annulled.
    let mut args = vec!["event", "withdraw", "1", "--email", me, "--reason", "ill"];
    args.extend(td);
    ok(&dopis(d, db, &args));
    for g in &mine[2..] {
        let shown = ok(&dopis(d, db, &["game", "show", g]));
        assert!(
            shown.contains("status:       annulled by a withdrawal"),
            "game {g}: {shown}"
        );
    }
    let rows = outbox_rows_of(db).await;
    for g in &mine {
        let told: Vec<Sent> = rows
            .iter()
            .filter(|r| r.mail_key.ends_with(&format!(".g{g}.withdrawal")))
            .map(|r| Sent::parse(&r.mail_key, &r.recipient, &r.raw))
            .collect();
        assert_eq!(told.len(), 1, "game {g}: its opponent is told");
        assert_ne!(told[0].to, me);
        // Every opponent reads that the game is annulled, none a forfeit win.
        let lang_says_annulled = ["annul", "anul", "razveljav"];
        assert!(
            lang_says_annulled.iter().any(|w| told[0].text.contains(w)),
            "game {g}: {}",
            told[0].text
        );
    }
}

crate::on_both_backends!(
    a_tds_result_kinds_are_stored_shown_and_marked_as_iccf_does,
    a_withdrawn_boards_opponents_are_told_the_truth_in_team_events,
);
