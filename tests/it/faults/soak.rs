//! The soak (issue 27): `dopis bench --only soak`, a running `dopis serve`
//! on SQLite under a steady load of move mails, three minutes here and an
//! hour in the long run, its figures printed every minute. A leak check,
//! not a timing test: what is asserted is that every mail was answered,
//! that the daemon's memory and open files stayed within a generous bound
//! of the first minute's, and that retention pruned what it should (and
//! kept what is newer than its day). Latency is printed, never asserted.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use super::{Scale, figure};

/// The `key=value` pairs of the bench's summary line.
fn summary(line: &str) -> HashMap<String, f64> {
    line.split_whitespace()
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            Some((k.to_string(), v.parse().ok()?))
        })
        .collect()
}

#[test]
fn a_daemon_under_steady_mail_keeps_memory_and_files_flat_and_prunes_as_retention_says() {
    let scale = Scale::from_env();
    let minutes: u32 = scale.pick(3, 60);
    let rate: u32 = scale.pick(5, 20);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dopis"));
    cmd.args(["bench", "--only", "soak"])
        .arg(format!("--soak-minutes={minutes}"))
        .arg(format!("--soak-rate={rate}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, _) in std::env::vars() {
        if key.starts_with("DOPIS_") && key != "DOPIS_FAULT_FIGURES" {
            cmd.env_remove(key);
        }
    }
    let mut child = cmd.spawn().expect("run dopis bench --only soak");
    let stdout = child.stdout.take().expect("the bench's stdout");
    // Each minute's line as it comes (cargo shows it with --nocapture).
    let mut printed = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read the bench's output");
        eprintln!("{line}");
        printed.push(line);
    }
    let output = child.wait_with_output().expect("the bench ends");
    let all = printed.join("\n");
    assert!(
        output.status.success(),
        "dopis bench --only soak failed:\n{all}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !all.contains("NOT exercised"),
        "the soak needs libfaketime to move the daemon's clock (Debian's faketime; \
         scripts/stack.sh installs it):\n{all}"
    );
    for n in 1..=minutes {
        let start = format!("soak SQLite minute {n}/{minutes}: ");
        assert!(
            printed.iter().any(|l| l.starts_with(&start)
                && l.contains("MB resident")
                && l.contains("open files")
                && l.contains("p99")
                && l.contains("database")
                && l.contains("bodies pruned")),
            "no figures for minute {n} in:\n{all}"
        );
    }
    let line = printed
        .iter()
        .find(|l| l.starts_with("soak SQLite summary: "))
        .unwrap_or_else(|| panic!("no summary in:\n{all}"));
    let s = summary(line);
    let get = |k: &str| *s.get(k).unwrap_or_else(|| panic!("no {k} in {line}"));
    let test = "soak (SQLite)";
    for key in [
        "offered",
        "answered",
        "rss_first_mb",
        "rss_last_mb",
        "rss_max_mb",
        "files_first",
        "files_last",
        "p99_first_ms",
        "p99_last_ms",
        "p99_max_ms",
        "db_first_mb",
        "db_last_mb",
        "outbox_bodies_pruned",
        "inbound_pruned",
    ] {
        figure(test, key, s.get(key).copied().unwrap_or(f64::NAN));
    }
    // Every mail answered: nothing lost under load.
    assert_eq!(get("unanswered"), 0.0, "{line}");
    assert!(get("answered") > 0.0, "{line}");
    assert!(
        get("answered") >= get("offered") - 2.0 * f64::from(rate),
        "{line}"
    );
    // Flat: generous bounds over the first minute, for a leak, not noise.
    let (first, last) = (get("rss_first_mb"), get("rss_last_mb"));
    assert!(
        last <= first + (first / 2.0).max(32.0),
        "the daemon's memory grew from {first} MB to {last} MB: {line}"
    );
    assert!(
        get("files_last") <= get("files_first") + 16.0,
        "the daemon's open files grew: {line}"
    );
    // Retention: each minute's jump of the clock passes the day the soak
    // keeps, so bodies and records are pruned, but not those handled
    // since the last jump.
    assert!(get("outbox_bodies_pruned") > 0.0, "{line}");
    assert!(get("inbound_pruned") > 0.0, "{line}");
    assert!(get("outbox_bodies_pruned") < get("outbox_sent"), "{line}");
    assert!(get("inbound_pruned") < get("inbound"), "{line}");
}
