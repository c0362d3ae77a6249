//! `dopis bench --quick`: every figure line is printed, with its unit.
//! Timing never fails a test: only the lines' presence is checked.

use std::process::Command;

#[test]
fn bench_with_tiny_sizes_prints_every_figure() {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dopis"));
    cmd.args(["bench", "--quick"]);
    for (key, _) in std::env::vars() {
        if key.starts_with("DOPIS_") {
            cmd.env_remove(key);
        }
    }
    let output = cmd.output().expect("run dopis bench");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "dopis bench --quick failed:\n{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = [
        ("parse SAN on a prebuilt board: ", "moves/s"),
        ("parse SAN with FEN: ", "moves/s"),
        ("parse figurine on a prebuilt board: ", "moves/s"),
        ("parse figurine with FEN: ", "moves/s"),
        ("parse long on a prebuilt board: ", "moves/s"),
        ("parse long with FEN: ", "moves/s"),
        ("parse UCI on a prebuilt board: ", "moves/s"),
        ("parse UCI with FEN: ", "moves/s"),
        ("parse ICCF on a prebuilt board: ", "moves/s"),
        ("parse ICCF with FEN: ", "moves/s"),
        ("move --batch: ", "lines/CPU s"),
        ("SAN written on a prebuilt board: ", "moves/s"),
        ("PNG board: ", "boards/s"),
        ("SVG board: ", "boards/s"),
        ("CLI player add: ", " ms "),
        ("CLI game new: ", " ms "),
        (
            "CLI game list (opens the database, reads, commits nothing): ",
            " ms ",
        ),
        ("SQLite 200 games: report deadlines", " s "),
        ("SQLite 200 games: due-scan", " ms "),
        ("report SQLite 200 games: peak memory", " MB "),
        ("report PostgreSQL", ""),
        ("e2e SQLite: ", "move mails/s"),
        ("e2e SQLite: ", "ms CPU per mail"),
        ("e2e SQLite: ", "KB written per mail"),
        ("e2e SQLite reference: Python's `email` ", "x that"),
        ("e2e SQLite latency at 20/s offered: p50 ", "ms, p99 "),
        ("e2e PostgreSQL", ""),
    ];
    for (start, unit) in expected {
        assert!(
            printed
                .lines()
                .any(|l| l.starts_with(start) && l.contains(unit)),
            "no line starting {start:?} with {unit:?} in:\n{printed}"
        );
    }
    // Every python reference is either measured or said to be missing.
    for line in printed.lines().filter(|l| l.starts_with("parse SAN")) {
        assert!(line.contains("python-chess"), "{line}");
    }
}
