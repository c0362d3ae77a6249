//! `dopis web` as an admin meets it: it starts on the address the config
//! names, refuses to serve plain HTTP beyond the loopback unless a proxy is
//! said to be in front, and `dopis player link` gives and revokes a
//! player's private links.

use std::path::Path;

use crate::support::web::{WebServer, request};
use crate::support::{TestDb, dopis, ok, sqlite};

/// A config for `dopis web` on a free loopback port; `extra` is appended.
pub fn write_config(dir: &Path, extra: &str) -> std::path::PathBuf {
    let path = dir.join("dopis.toml");
    std::fs::write(
        &path,
        format!(
            "[mail]\naddress = \"chess@club.test\"\nsecret = \"web-test-secret\"\n\n\
             [web]\nlisten = \"127.0.0.1:0\"\n{extra}"
        ),
    )
    .expect("write config");
    path
}

/// A database set up by `dopis init` with one player.
fn club(dir: &Path, config: &Path) -> TestDb {
    let db = sqlite();
    let cfg = config.to_str().expect("utf-8 path");
    ok(&dopis(dir, &db, &["--config", cfg, "init"]));
    ok(&dopis(
        dir,
        &db,
        &[
            "--config",
            cfg,
            "player",
            "add",
            "--email",
            "ana@club.test",
            "--name",
            "Ana Novak",
        ],
    ));
    db
}

/// The `/me/…` segment in `dopis player link` output.
fn segment(out: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("pages:"))
        .unwrap_or_else(|| panic!("no pages line in {out}"));
    line.rsplit("/me/").next().expect("a /me/ link").to_string()
}

#[test]
fn web_starts_and_player_links_are_revoked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write_config(dir.path(), "base_url = \"https://chess.club.test/\"\n");
    let db = club(dir.path(), &config);
    let cfg = config.to_str().expect("utf-8 path");
    let link = |revoke: bool| {
        let mut args = vec!["--config", cfg, "player", "link", "ana@club.test"];
        if revoke {
            args.push("--revoke");
        }
        ok(&dopis(dir.path(), &db, &args))
    };
    let first = link(false);
    assert!(
        first.contains("https://chess.club.test/me/"),
        "whole links with the base URL, no double slash: {first}"
    );
    assert!(first.contains("/deadlines.ics"), "{first}");
    let seg = segment(&first);
    assert_eq!(segment(&link(false)), seg, "stable until revoked");
    let revoked = link(true);
    assert!(revoked.starts_with("revoked"), "{revoked}");
    let new = segment(&revoked);
    assert_ne!(new, seg, "a revoked link changes");
    assert!(new.len() > 20, "an unguessable token: {new}");
    assert_eq!(segment(&link(false)), new);

    let web = WebServer::start(dir.path(), &db, &config);
    let (status, _) = web.get("/");
    assert_eq!(status, 200);
    let r = request(web.address(), "GET", "/", &[], b"");
    assert!(r.header("content-type").is_some(), "{:?}", r.headers);
    assert!(!r.text().is_empty());
    // An address nothing serves: a short page, not an empty answer.
    for path in ["/nothing/here", "/games/1/pgn/x", "/me", "/%FF"] {
        let r = request(web.address(), "GET", path, &[], b"");
        assert_eq!(r.status, 404, "{path}");
        assert!(r.text().contains("</html>"), "{path}: {}", r.text());
    }
}

#[test]
fn web_refuses_plain_http_beyond_the_loopback_and_bad_settings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write_config(dir.path(), "");
    let db = club(dir.path(), &config);
    let cases = [
        (
            "[web]\nlisten = \"0.0.0.0:0\"\n",
            "not a loopback address",
            "behind_proxy = true",
        ),
        (
            "[web]\nlisten = \"localhost\"\n",
            "listen = \"localhost\"",
            "127.0.0.1:8080",
        ),
        (
            "[web]\nlisten = \"127.0.0.1:0\"\nbase_url = \"chess.club.test\"\n",
            "base_url",
            "https://chess.example.org",
        ),
        (
            "[web]\nlisten = \"127.0.0.1:0\"\nxfcc_path = \"xfcc?x=1\"\n",
            "xfcc_path",
            "/xfcc/xfccbasic.asmx",
        ),
    ];
    for (web, what, fix) in cases {
        let path = dir.path().join("bad.toml");
        std::fs::write(
            &path,
            format!("[mail]\naddress = \"chess@club.test\"\nsecret = \"web-test-secret\"\n\n{web}"),
        )
        .expect("write config");
        let out = dopis(
            dir.path(),
            &db,
            &["--config", path.to_str().expect("utf-8"), "web"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{web}: must refuse");
        assert!(err.contains(what) && err.contains(fix), "{web}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// What python's `icalendar` reads in a feed: per event its UID, start in
/// UTC, start in the calendar's zone, summary, description and URL.
const PYTHON_FEED: &str = r#"
import sys, icalendar, zoneinfo
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
zone = cal.get("X-WR-TIMEZONE")
print("zone", zone)
for e in cal.walk("VEVENT"):
    start = e.decoded("DTSTART")
    assert start.utcoffset().total_seconds() == 0, start
    local = start.astimezone(zoneinfo.ZoneInfo(str(zone))) if zone else start
    print("event", e.get("UID"), start.strftime("%Y-%m-%dT%H:%M:%SZ"), local.strftime("%Y-%m-%d %H:%M"), local.tzname())
    print("summary", e.get("SUMMARY"))
    print("description", str(e.get("DESCRIPTION")).replace("\n", " | "))
    print("url", e.get("URL"))
"#;

#[test]
fn a_players_calendar_feed_has_their_deadlines_in_utc_and_their_zone() {
    let Some(python) = crate::support::python_with("icalendar") else {
        assert!(
            std::env::var("CI").is_err(),
            "CI installs python3-icalendar (scripts/stack.sh)"
        );
        eprintln!("SKIPPED: no python with the icalendar package");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let config = write_config(dir.path(), "base_url = \"https://chess.club.test\"\n");
    let db = club(dir.path(), &config);
    let cfg = config.to_str().expect("utf-8 path");
    let run = |args: &[&str]| {
        let mut all = vec!["--config", cfg];
        all.extend_from_slice(args);
        ok(&dopis(dir.path(), &db, &all))
    };
    run(&[
        "player",
        "add",
        "--email",
        "bor@club.test",
        "--name",
        "Bor Kos",
        "--tz",
        "Europe/Ljubljana",
    ]);
    let game = run(&[
        "game",
        "new",
        "--white",
        "bor@club.test",
        "--black",
        "ana@club.test",
    ]);
    let game = game.trim();
    let shown: serde_json::Value =
        serde_json::from_str(&run(&["game", "show", game, "--format", "json"])).expect("json");
    let deadline = shown["clocks"]["next_deadline"]
        .as_str()
        .expect("a deadline")
        .to_string();
    let bor = segment(&run(&["player", "link", "bor@club.test"]));
    let ana = segment(&run(&["player", "link", "ana@club.test"]));

    let web = WebServer::start(dir.path(), &db, &config);
    let feed = request(
        web.address(),
        "GET",
        &format!("/me/{bor}/deadlines.ics"),
        &[],
        b"",
    );
    assert_eq!(feed.status, 200, "{}", feed.text());
    assert_eq!(
        feed.header("content-type"),
        Some("text/calendar; charset=utf-8")
    );
    let read = crate::support::python_reads(python, PYTHON_FEED, &feed.text())
        .unwrap_or_else(|e| panic!("python's icalendar refused the feed: {e}\n{}", feed.text()));
    let events: Vec<&str> = read.lines().filter(|l| l.starts_with("event ")).collect();
    assert_eq!(events.len(), 1, "one game where it is Bor's move:\n{read}");
    let fields: Vec<&str> = events[0].split(' ').collect();
    // The deadline to the second, in UTC ...
    assert_eq!(fields[2], format!("{}Z", &deadline[..19]), "{read}");
    // ... and in the player's zone, as the description says it.
    assert!(read.contains("zone Europe/Ljubljana"), "{read}");
    let local = format!("{} {}", fields[3], fields[4]);
    let description = read
        .lines()
        .find(|l| l.starts_with("description "))
        .expect("a description");
    assert!(
        description.contains(&fields[4][..5]),
        "the description gives the deadline in Bor's zone ({local}): {description}"
    );
    assert!(
        description.contains(&format!("https://chess.club.test/me/{bor}/games/{game}")),
        "the game's link: {description}"
    );
    assert!(
        description.contains("chess+g"),
        "the reply address: {description}"
    );
    assert!(
        read.contains(&format!(
            "url https://chess.club.test/me/{bor}/games/{game}"
        )),
        "{read}"
    );
    assert!(
        events[0].contains(&format!("dopis.g{game}.white@")),
        "the same UID as the mail's calendar entry: {read}"
    );
    // Stable: the same feed twice is the same events.
    let again = request(
        web.address(),
        "GET",
        &format!("/me/{bor}/deadlines.ics"),
        &[],
        b"",
    );
    let again = crate::support::python_reads(python, PYTHON_FEED, &again.text()).expect("reads");
    assert_eq!(
        again
            .lines()
            .filter(|l| l.starts_with("event "))
            .collect::<Vec<_>>(),
        events
    );

    // Not Ana's move: her feed is a calendar with no events.
    let hers = request(
        web.address(),
        "GET",
        &format!("/me/{ana}/deadlines.ics"),
        &[],
        b"",
    );
    assert_eq!(hers.status, 200);
    let read = crate::support::python_reads(python, PYTHON_FEED, &hers.text()).expect("reads");
    assert!(!read.contains("event "), "{read}");

    // Wrong, forged and revoked links: 404, alike.
    let (id, _) = bor.split_once('.').expect("id.token");
    let revoked = segment(&run(&["player", "link", "bor@club.test", "--revoke"]));
    for wrong in [
        bor.clone(),
        format!("{id}.aaaaaaaaaaaaaaaaaaaaaaaaaa"),
        id.to_string(),
        "999.x".to_string(),
        "-1.x".to_string(),
        "..".to_string(),
        format!("{}.{}", "9".repeat(40), "x"),
    ] {
        let r = request(
            web.address(),
            "GET",
            &format!("/me/{wrong}/deadlines.ics"),
            &[],
            b"",
        );
        assert_eq!(r.status, 404, "{wrong}: {}", r.text());
    }
    let r = request(
        web.address(),
        "GET",
        &format!("/me/{revoked}/deadlines.ics"),
        &[],
        b"",
    );
    assert_eq!(r.status, 200, "the new link works");
}
