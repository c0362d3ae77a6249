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

async fn a_results_file_goes_in_whole_or_not_at_all(db: &TestDb) {
    let dir = started_four(db);
    let d = dir.path();
    let import = |file: &str, extra: &[&str]| {
        let mut args = vec!["event", "import-results", "1", file, "--by", "td@club.test"];
        args.extend(extra);
        dopis(d, db, &args)
    };
    let write = |name: &str, text: &str| std::fs::write(d.join(name), text).unwrap();
    let untouched = || {
        for g in 1..=6 {
            let shown = ok(&dopis(d, db, &["game", "show", &g.to_string()]));
            assert!(shown.contains("status:       active"), "game {g}: {shown}");
        }
    };
    let head = "round,white,black,result,kind,reason\n";
    // Hostile files: each refused with its line and what to do; nothing changes.
    write("missing.csv", "round,white,black\n1,Ana,Dora\n");
    write(
        "player.csv",
        &format!("{head}1,Ana,Dora,1-0,,\n1,Bor,Zoran,1-0,,\n"),
    );
    write(
        "nogame.csv",
        &format!("{head}1,Ana,Dora,1-0,,\n1,Dora,Ana,1-0,,\n"),
    );
    write(
        "twice.csv",
        &format!("{head}1,Ana,Dora,1-0,,\n1,a@club.test,d@club.test,0-1,,\n"),
    );
    std::fs::write(d.join("binary.csv"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    let huge = std::fs::File::create(d.join("huge.csv")).unwrap();
    huge.set_len(50 * 1024 * 1024).unwrap();
    for (file, says) in [
        ("missing.csv", "line 1: column 'result' is missing"),
        ("player.csv", "line 3: 'Zoran' plays in no seat of event #1"),
        (
            "nogame.csv",
            "line 3: no game in round 1 with White Dora and Black Ana",
        ),
        ("twice.csv", "line 3: game #1 is on line 2 already"),
        ("binary.csv", "is not a text file"),
        ("huge.csv", "a results file may have at most"),
        ("absent.csv", "cannot read absent.csv"),
    ] {
        let err = fails(&import(file, &[]));
        assert!(err.contains(says), "{file}: {err}");
    }
    untouched();

    // A cancelled game takes no result from a file either.
    ok(&dopis(
        d,
        db,
        &[
            "game",
            "result",
            "4",
            "--kind",
            "cancelled",
            "--reason",
            "x",
            "--by",
            "td@club.test",
        ],
    ));
    write(
        "cancelled.csv",
        &format!("{head}1,Ana,Dora,1-0,,\n2,Ana,Bor,1-0,,\n"),
    );
    let err = fails(&import("cancelled.csv", &[]));
    assert!(err.contains("line 3: game #4 was cancelled"), "{err}");
    assert!(err.contains("nothing was imported"), "{err}");
    untouched_but_4(d, db);

    // Round 1 A-D time, B-C default; round 2 D-C drawn over the board;
    // round 3 B-D adjudicated, C-A played.
    write(
        "results.csv",
        &format!(
            "{head}1,Ana,Dora,1-0,time,no move for 40 days\n\
             1,b@club.test,c@club.test,1-0,default,Cene never started\n\
             2,Dora,Cene,1/2-1/2,,\n\
             3,Bor,Dora,0-1,adjudication,\"won ending, by the book\"\n"
        ),
    );
    let dry = ok(&import("results.csv", &["--dry-run"]));
    assert!(
        dry.contains("line 2: game #1 Ana - Dora: * -> 1-0 (time)"),
        "{dry}"
    );
    assert!(
        dry.contains("line 4: game #3 Dora - Cene: * -> 1/2-1/2 (board)"),
        "{dry}"
    );
    assert!(
        dry.contains("dry run: 4 games would change; nothing changed"),
        "{dry}"
    );
    untouched_but_4(d, db);
    let before = outbox_rows_of(db).await.len();
    let out = ok(&import("results.csv", &["--no-mail"]));
    assert!(
        out.contains("4 results imported into event #1; no mail sent"),
        "{out}"
    );
    assert_eq!(
        outbox_rows_of(db).await.len(),
        before,
        "--no-mail sends nothing"
    );
    // With mail, the players of a result get the game-over mail.
    write("late.csv", &format!("{head}3,Cene,Ana,0-1,board,\n"));
    ok(&import("late.csv", &[]));
    let over = outbox_rows_of(db)
        .await
        .iter()
        .filter(|r| r.mail_key.contains(".g6.over."))
        .count();
    assert_eq!(over, 2, "both players of game 6 are told");
    let text = ok(&dopis(d, db, &["event", "standings", "1"]));
    // Ana: 1E (Dora), x (Bor), 1 (Cene) = 2; Bor: + (Cene), x, 0A (Dora) = 1;
    // Dora: 0E, ½ (Cene), 1A (Bor) = 1½; Cene: -, ½, 0 = ½.
    for (name, points, marks) in [
        ("Ana", "2", &["1E", "x", "1"][..]),
        ("Bor", "1", &["+", "x", "0A"][..]),
        ("Dora", "1½", &["0E", "½", "1A"][..]),
        ("Cene", "½", &["-", "½", "0"][..]),
    ] {
        let cells: Vec<&str> = text
            .lines()
            .find(|l| l.contains(name))
            .unwrap()
            .split_whitespace()
            .collect();
        for m in marks {
            assert!(cells.contains(m), "{name}: {m} in {text}");
        }
        assert!(cells.contains(&points), "{name}: {points} in {text}");
    }
    let shown = ok(&dopis(d, db, &["game", "show", "5"]));
    assert!(shown.contains("won ending, by the book"), "{shown}");

    // A game that has its result takes a new one from a file (the TD's
    // word is final), and the dry run shows what it was.
    write(
        "again.csv",
        &format!("{head}3,Cene,Ana,1/2-1/2,adjudication,appeal\n"),
    );
    let dry = ok(&import("again.csv", &["--dry-run"]));
    assert!(
        dry.contains("game #6 Cene - Ana: 0-1 (board) -> 1/2-1/2 (adjudication)"),
        "{dry}"
    );
}

/// Every game but the cancelled #4 is still being played.
fn untouched_but_4(d: &std::path::Path, db: &TestDb) {
    for g in [1, 2, 3, 5, 6] {
        let shown = ok(&dopis(d, db, &["game", "show", &g.to_string()]));
        assert!(shown.contains("status:       active"), "game {g}: {shown}");
    }
}

async fn a_pgn_results_file_brings_its_results_kinds_and_moves(db: &TestDb) {
    let dir = started_four(db);
    let d = dir.path();
    let pgn = "[Event \"Club cup\"]\n[Round \"1\"]\n[White \"Ana\"]\n[Black \"Dora\"]\n\
               [Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
               [Event \"Club cup\"]\n[Round \"1\"]\n[White \"Bor\"]\n[Black \"Cene\"]\n\
               [Result \"1-0\"]\n[Termination \"time forfeit\"]\n\n1-0\n";
    std::fs::write(d.join("round1.pgn"), pgn).unwrap();
    let import = |file: &str, extra: &[&str]| {
        let mut args = vec!["event", "import-results", "1", file, "--by", "td@club.test"];
        args.extend(extra);
        ok(&dopis(d, db, &args))
    };
    let out = import("round1.pgn", &["--no-mail"]);
    assert!(
        out.contains("line 1: game #1 Ana - Dora: * -> 0-1 (board)"),
        "{out}"
    );
    assert!(
        out.contains("line 9: game #2 Bor - Cene: * -> 1-0 (time)"),
        "{out}"
    );
    let shown = ok(&dopis(d, db, &["game", "show", "1"]));
    assert!(
        shown.contains("moves:        1. f3 e5 2. g4 Qh4#"),
        "{shown}"
    );
    assert!(shown.contains("checkmate"), "{shown}");
    let text = ok(&dopis(d, db, &["event", "standings", "1"]));
    let bor = text.lines().find(|l| l.contains("Bor")).unwrap();
    assert!(bor.split_whitespace().any(|c| c == "1E"), "{text}");
    // Again: the game has its moves now; the file's are ignored, with a note.
    let again = import("round1.pgn", &["--dry-run"]);
    assert!(
        again.contains("note: game #1 has moves already; the file's moves are ignored"),
        "{again}"
    );
    std::fs::write(d.join("bad.pgn"), "[Round \"x\"]\n[White \"Ana\"]\n\n1-0\n").unwrap();
    let err = fails(&dopis(
        d,
        db,
        &[
            "event",
            "import-results",
            "1",
            "bad.pgn",
            "--by",
            "td@club.test",
        ],
    ));
    assert!(
        err.contains("line 1: Round \"x\" is not a round number"),
        "{err}"
    );
}

crate::on_both_backends!(
    a_pgn_results_file_brings_its_results_kinds_and_moves,
    a_results_file_goes_in_whole_or_not_at_all,
    a_tds_result_kinds_are_stored_shown_and_marked_as_iccf_does,
    a_withdrawn_boards_opponents_are_told_the_truth_in_team_events,
);
