//! `dopis move` run as the real binary: arguments, exit codes, stdout and
//! stderr, and `--batch` over stdin.

use std::io::Write;
use std::process::{Command, Stdio};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn dopis(args: &[&str], stdin: &str) -> Ran {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .arg("move")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start dopis: {e}"));
    if let Some(mut input) = child.stdin.take() {
        input
            .write_all(stdin.as_bytes())
            .unwrap_or_else(|e| panic!("cannot write stdin: {e}"));
    }
    let output = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("dopis did not finish: {e}"));
    Ran {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn move_command_prints_uci_and_san_or_explains_why_not() {
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let pinned = "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1";
    // (arguments, exit code, stdout, words on stderr)
    // Pawn b3 and bishop f1 can both take on c4; pawn h4 and queen g4 on g5.
    let bc4 = "4k3/8/8/8/2p5/1P6/8/4KB2 w - - 0 1";
    let hg5 = "4k3/8/8/6p1/6QP/8/8/4K3 w - - 0 1";
    let table: [(&[&str], i32, &str, &str); 12] = [
        (&["Nf3"], 0, "g1f3 Nf3\n", ""),
        // In SAN a lower-case file letter is the pawn's file.
        (&["--fen", bc4, "bxc4"], 0, "b3c4 bxc4\n", ""),
        (
            &["--fen", hg5, "--lang", "pl", "hxg5"],
            0,
            "h4g5 hxg5\n",
            "",
        ),
        (
            &["--fen", hg5, "--lang", "pl", "Hxg5"],
            0,
            "g4g5 Qxg5\n",
            "",
        ),
        (&["--fen", START, "e2-e4"], 0, "e2e4 e4\n", ""),
        (
            &["--fen", after_e4, "--lang", "sl", "1...", "Sf6"],
            0,
            "g8f6 Nf6\n",
            "",
        ),
        (&["--lang", "cs", "Jc3"], 0, "b1c3 Nc3\n", ""),
        (
            &[
                "--chess960",
                "--fen",
                "r2k3r/8/8/8/8/8/8/RK5R w HAha - 0 1",
                "O-O",
            ],
            0,
            "b1h1 O-O\n",
            "",
        ),
        (
            &["--fen", pinned, "Nf3"],
            1,
            "",
            "the knight on d2 is pinned",
        ),
        (
            &["--fen", START, "Nd2"],
            1,
            "",
            "d2 is taken by your own pawn",
        ),
        (&["--fen", "not/a/fen", "e4"], 2, "", "cannot read the FEN"),
        (
            &["--lang", "klingon", "e4"],
            2,
            "",
            "unknown language 'klingon'",
        ),
    ];
    for (args, code, stdout, words) in table {
        let ran = dopis(args, "");
        assert_eq!(ran.code, Some(code), "{args:?}: {}", ran.stderr);
        assert_eq!(ran.stdout, stdout, "{args:?}");
        assert!(ran.stderr.contains(words), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn move_batch_answers_one_line_per_input_line() {
    let input = [
        format!("{START}\ten\tNf3"),
        format!("{START}\tpl\tSf3"),
        format!("{START}\ten\tKe2"),
        "4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1\ten\tNb3".to_string(),
        format!("{START}\ten\t???"),
        "just one field".to_string(),
        format!("{START}\ten\t5254"),
    ]
    .join("\n");
    let ran = dopis(&["--batch"], &input);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let kinds: Vec<&str> = ran
        .stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    assert_eq!(
        kinds,
        [
            "ok",
            "ok",
            "illegal",
            "ambiguous",
            "unreadable",
            "error",
            "ok"
        ],
        "{}",
        ran.stdout
    );
    let first: Vec<&str> = ran.stdout.lines().take(1).collect();
    assert_eq!(first, ["ok\tg1f3\tNf3"]);
}
