//! The endgame tables from outside, on the real binary and the real Syzygy
//! files of `../shared/syzygy` (every 3- and 4-piece table, KBBvKN, KBNvKN
//! and KRBvKR): `dopis tablebase probe` against python-chess's own reader on
//! random positions, its answers and refusals, and what `dopis doctor` and
//! `dopis serve` say of folders and files that are missing or broken.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared tables (CI has `shared/` beside the clone).
pub(crate) fn tables() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/syzygy");
    assert!(
        dir.join("KRvK.rtbw").is_file(),
        "the test tables are missing: {} (shared/ beside the repository)",
        dir.display()
    );
    dir
}

fn probe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dopis"))
        .env_remove("DOPIS_CONFIG")
        .current_dir(std::env::temp_dir())
        .args(["tablebase", "probe", "--syzygy-path"])
        .arg(tables())
        .args(args)
        .output()
        .expect("run dopis")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_verdict_and_dtz_equals_python_chess_on_random_positions() {
    // Debian's python3-chess or pip's, as scripts/stack.sh installs it.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tablebase/compare.py");
    let out = Command::new("/usr/bin/python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_dopis"))
        .arg(tables())
        .args(["--per-table", "60", "--seed", "26"])
        .output()
        .expect("run python3");
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 38 tables × 60 positions, some with en passant to take.
    let line = text
        .lines()
        .find(|l| l.starts_with("tablebase comparison:"))
        .unwrap_or_else(|| panic!("no summary in {text}"));
    println!("{line}");
    assert!(line.contains("2160 positions"), "{line}");
    assert!(line.contains("2160 agree"), "{line}");
    assert!(!line.contains(" 0 with en passant"), "{line}");
}

#[test]
fn a_probe_says_the_verdict_by_each_rule_and_the_moves_best_first() {
    let out = probe(&["--fen", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"]);
    assert!(out.status.success());
    let text = stdout(&out);
    for line in [
        "KRvK, White to move (3 pieces;",
        "WDL: win for White (the side to move)",
        "by ICCF's rule: 1-0; by the 50-move rule: 1-0",
        "moves, best first:",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    // A cursed win: a win by ICCF's rule, a draw by the 50-move rule.
    let out = probe(&[
        "--fen",
        "1K6/1B6/4k3/4B3/8/8/8/2n5 w - - 0 1",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["reading"]["material"], "KBBvKN");
    assert_eq!(json["reading"]["wdl"], "cursed-win");
    assert_eq!(json["reading"]["dtz"]["plies"], 113);
    assert_eq!(json["result"]["iccf"], "1-0");
    assert_eq!(json["result"]["fifty-move"], "1/2-1/2");
    let best = &json["moves"][0];
    assert_eq!(best["wdl"], "cursed-win", "{best}");
}

#[test]
fn a_probe_of_king_bishop_and_knight_gives_the_win_and_its_distance_either_side_to_move() {
    let out = probe(&["--fen", "8/8/8/8/8/8/8/KBN4k w - - 0 1"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for line in [
        "KBNvK, White to move (4 pieces;",
        "WDL: win for White (the side to move)",
        "DTZ: ~44",
        "by ICCF's rule: 1-0; by the 50-move rule: 1-0",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    let out = probe(&["--fen", "8/8/8/8/8/8/8/KBN4k b - - 0 1", "--format", "json"]);
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["reading"]["material"], "KBNvK");
    assert_eq!(json["reading"]["wdl"], "loss");
    assert_eq!(json["reading"]["dtz"]["plies"], -47);
    assert_eq!(json["reading"]["dtz"]["rounded"], true);
    assert_eq!(json["result"]["iccf"], "1-0");
    // Every legal move of the lone king, each a loss, longest first.
    let moves = json["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 3, "{moves:?}");
    assert!(moves.iter().all(|m| m["wdl"] == "loss"), "{moves:?}");
    assert_eq!(moves[0]["san"], "Kg2", "{moves:?}");
    assert_eq!(moves[0]["dtz"]["plies"], 46, "{moves:?}");
}

#[test]
fn a_batch_answers_every_line_even_the_ones_it_refuses() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .env_remove("DOPIS_CONFIG")
        .current_dir(std::env::temp_dir())
        .args(["tablebase", "probe", "--batch", "--syzygy-path"])
        .arg(tables())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run dopis");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(
                b"8/8/8/8/8/8/8/KBN4k w - - 0 1\nnot a fen\n\n\
                  4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\n\
                  8/p6p/8/4k3/8/8/1P6/R3K3 w - - 0 1\n\
                  8/8/8/4k3/8/8/1P6/R1Q1K3 w - - 0 1\n\
                  8/8/8/4k3/8/8/8/R3K3 b - - 0 1\n",
            )
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(
        lines.len(),
        6,
        "one line per FEN, none for the blank: {lines:?}"
    );
    assert_eq!(
        (lines[0]["wdl"].as_i64(), lines[0]["dtz"].as_i64()),
        (Some(2), Some(44))
    );
    assert!(lines[1]["error"].as_str().unwrap().contains("is not a FEN"));
    assert_eq!(lines[2]["unread"]["key"], "castling");
    assert_eq!(lines[3]["unread"]["key"], "too_many_pieces");
    assert!(
        lines[4]["error"]
            .as_str()
            .unwrap()
            .contains("no table for KQRPvK")
    );
    assert_eq!(lines[5]["wdl"].as_i64(), Some(-2));
}

#[test]
fn positions_the_tables_do_not_hold_and_bad_fens_are_refused_plainly() {
    for (fen, says) in [
        (
            "8/p6p/8/4k3/8/8/1P6/R3K3 w - - 0 1",
            "the position has 6 pieces and the tables here hold at most 5",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
            "the position still has castling rights",
        ),
        (
            "8/8/8/4k3/8/8/1P6/R1Q1K3 w - - 0 1",
            "there is no table for KQRPvK here",
        ),
    ] {
        let out = probe(&["--fen", fen]);
        assert_eq!(out.status.code(), Some(1), "{fen}");
        assert!(stdout(&out).contains(says), "{fen}: {}", stdout(&out));
    }
    let out = probe(&["--fen", "8/8/8 w"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not a FEN"),
        "{out:?}"
    );
}

/// `dopis doctor` (checks cut short) and `dopis serve --once` in a folder
/// whose config names `folders`.
fn doctor_and_serve(dir: &Path, folders: &[&str]) -> (String, Output) {
    let list: Vec<String> = folders.iter().map(|f| format!("{f:?}")).collect();
    std::fs::write(
        dir.join("dopis.toml"),
        format!(
            "[mail]\nsecret = \"a test secret that is long enough\"\n[tablebase]\nsyzygy_path = [{}]\n",
            list.join(", ")
        ),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dopis"))
            .env_remove("DOPIS_CONFIG")
            .env_remove("DOPIS_DATABASE_URL")
            .current_dir(dir)
            .args(args)
            .output()
            .expect("run dopis")
    };
    let doctor = run(&["doctor", "--wait", "1"]);
    (stdout(&doctor), run(&["serve", "--once"]))
}

#[test]
fn missing_empty_and_broken_tables_are_named_with_the_fix_and_nothing_panics() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("empty")).unwrap();
    let bad = d.join("bad");
    std::fs::create_dir(&bad).unwrap();
    let shared = tables();
    let copy = |from: &str, to: &str| {
        std::fs::copy(shared.join(from), bad.join(to)).unwrap();
    };
    copy("KRvK.rtbw", "KRvK.rtbw");
    copy("KRvK.rtbz", "KRvK.rtbz");
    // Truncated to a size the file-size check lets through (64k + 16).
    let whole = std::fs::read(shared.join("KBNvK.rtbw")).unwrap();
    std::fs::write(bad.join("KBNvK.rtbw"), &whole[..64 * 16 + 16]).unwrap();
    copy("KBNvK.rtbz", "KBNvK.rtbz");
    // Another table's contents under this name.
    copy("KRvK.rtbw", "KQvK.rtbw");
    copy("KQvK.rtbz", "KQvK.rtbz");
    // Cut at a size no table has.
    std::fs::write(bad.join("KPvK.rtbw"), &whole[..1000]).unwrap();
    std::fs::write(bad.join("README.txt"), "not a table").unwrap();

    let (doctor, serve) = doctor_and_serve(d, &["nowhere"]);
    assert!(
        doctor.contains("FAIL  tablebase: [tablebase] syzygy_path: nowhere does not exist"),
        "{doctor}"
    );
    let err = String::from_utf8_lossy(&serve.stderr);
    assert!(!serve.status.success());
    assert!(err.contains("nowhere does not exist"), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let (doctor, serve) = doctor_and_serve(d, &["empty"]);
    assert!(doctor.contains("no usable Syzygy table in"), "{doctor}");
    assert!(!serve.status.success());

    let (doctor, _) = doctor_and_serve(d, &["bad"]);
    for line in [
        "ok    tablebase: 3 pieces: 1 tables (WDL and DTZ)",
        "KBNvK.rtbw left out: not a good KBNvK table: corrupt, truncated",
        "KQvK.rtbw left out: not a good KQvK table",
        "KPvK.rtbw left out: its size is not that of a whole table",
        "KBNvK has a DTZ file but no WDL file",
    ] {
        assert!(doctor.contains(line), "{line:?} not in\n{doctor}");
    }
    assert!(
        !doctor.contains("panicked") && !doctor.contains("backtrace"),
        "{doctor}"
    );
    // What is left still judges: K+R v K, not the broken K+Q v K.
    let out = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(d)
        .env_remove("DOPIS_DATABASE_URL")
        .args([
            "tablebase",
            "probe",
            "--fen",
            "8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("no table for KQvK"),
        "{}",
        stdout(&out)
    );
}
