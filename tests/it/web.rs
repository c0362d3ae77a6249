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
