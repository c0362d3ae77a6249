//! The pages for everyone: every page kind of a club that has them all
//! (`support::pages`), in each of the five languages, read in headless
//! Chromium (Debian's) at a desktop's and a phone's width, with axe-core
//! run on each (`support/browse.mjs`, driven by playwright-core; both from
//! npm, installed by `scripts/stack.sh`). The test holds that:
//!
//! - axe-core finds no serious or critical violation of WCAG 2.x A/AA
//!   (contrast included), at the reader's text size and at 200%;
//! - the page does not scroll sideways at 200% text (tables scroll in
//!   their own box, which the keyboard can reach);
//! - the keyboard reaches every link and button, the first stop skips to
//!   the content, and every stop shows where it is; the one action a page
//!   offers (the unsubscribe button) is done by Tab and Enter alone;
//! - every table has headers, each column's scoped;
//! - the board has a text alternative: its label, then the FEN and the
//!   moves in order (the same moves as the table beside it);
//! - no English word is left on a page in another language (the same rule
//!   as the mails, `english_left.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::english_left::english_left;
use crate::support::pages::{Club, config};
use crate::support::web::WebServer;
use crate::support::{TestDb, postgres, sqlite};

#[tokio::test(flavor = "multi_thread")]
async fn every_page_in_every_language_is_usable_by_screen_reader_keyboard_and_phone() {
    walk(&sqlite()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pages_from_postgres_are_as_usable() {
    if let Some(db) = postgres().await {
        walk(&db).await;
    }
}

/// Where `scripts/stack.sh` installs playwright-core and axe-core.
fn node_modules() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME");
    cache.join("dopis/node/node_modules")
}

/// Whether the browser parts are installed; in CI their absence fails.
fn browser_parts() -> Option<PathBuf> {
    let modules = node_modules();
    let ready = Path::new("/usr/bin/chromium").exists()
        && modules.join("playwright-core").is_dir()
        && modules.join("axe-core/axe.min.js").is_file();
    if ready {
        return Some(modules);
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "CI=true but chromium, playwright-core or axe-core is missing: run the tests with scripts/test.sh"
    );
    eprintln!(
        "SKIPPED: accessibility test (chromium, or playwright-core and axe-core in {}; scripts/stack.sh installs them)",
        modules.display()
    );
    None
}

async fn walk(db: &TestDb) {
    let Some(modules) = browser_parts() else {
        return;
    };
    let club = Club::play(db).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), db);
    let server = WebServer::start(dir.path(), db, &cfg);
    let mut pages = Vec::new();
    for (kind, path) in &club.pages {
        for lang in ["en", "sl", "pl", "lv", "de"] {
            pages.push(serde_json::json!({
                "name": format!("{kind} ({lang})"),
                "url": format!("{}{path}?lang={lang}", server.base),
                "lang": lang,
            }));
        }
    }
    // A page with faint text and a too-wide box, so the test is seen to
    // find what it looks for (its problems are required, not reported).
    pages.push(serde_json::json!({
        "name": "canary",
        "url": "data:text/html;charset=utf-8,<!DOCTYPE html><html lang=\"en\"><title>canary</title>\
                <main><h1>canary</h1><p style=\"color:%23c8c8c8\">faint text</p>\
                <div style=\"width:3000px\">a box too wide</div></main></html>",
        "lang": "en",
    }));
    // The one action a page offers: the unsubscribe page's button, by
    // keyboard alone (Tab to it, Enter), after every page was read.
    let unsubscribe = club
        .pages
        .iter()
        .find(|(kind, _)| *kind == "unsubscribe")
        .map(|(_, path)| format!("{}{path}", server.base))
        .expect("the unsubscribe page");
    let forms = [serde_json::json!({"name": "unsubscribe", "url": unsubscribe})];
    let profile = tempfile::tempdir().unwrap();
    let input = dir.path().join("pages.json");
    std::fs::write(
        &input,
        serde_json::json!({
            "chromium": "/usr/bin/chromium",
            "profile": profile.path(),
            "axe": modules.join("axe-core/axe.min.js"),
            "pages": pages,
            "forms": forms,
        })
        .to_string(),
    )
    .unwrap();
    let out = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/browse.mjs"))
        .arg(&input)
        .env("NODE_PATH", &modules)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "browse.mjs failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON reports");
    assert_eq!(
        reports.len(),
        pages.len() * 2 + forms.len(),
        "every page at two widths, and the forms"
    );
    let mut problems = Vec::new();
    for r in reports.iter().filter(|r| r["form"] == true) {
        let after = &r["after"];
        let done = r["reached"] == true
            && after["method"] == "POST"
            && after["status"] == 200
            && after["buttons"] == 0
            && after["url"] == unsubscribe.as_str();
        if !done {
            problems.push(format!("{}: not done by keyboard: {r}", r["name"]));
        }
    }
    for r in reports.iter().filter(|r| r["form"] != true) {
        let at = format!(
            "{} at {}",
            r["name"].as_str().unwrap_or("?"),
            r["width"].as_str().unwrap_or("?")
        );
        let found = judge(r);
        if r["name"] == "canary" {
            let all = found.join("\n");
            assert!(
                all.contains("serious \"color-contrast\"") && all.contains("scrolls sideways"),
                "the canary's faint text and wide box were not found: {all}"
            );
            continue;
        }
        problems.extend(found.into_iter().map(|p| format!("{at}: {p}")));
    }
    club.app.close().await;
    drop(server);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// What is wrong with one page at one width.
fn judge(r: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let lang = r["lang"].as_str().unwrap_or("");
    if r["htmlLang"].as_str() != Some(lang) {
        out.push(format!("<html lang> is {}", r["htmlLang"]));
    }
    for list in ["violations", "largeViolations"] {
        for v in r[list].as_array().into_iter().flatten() {
            let impact = v["impact"].as_str().unwrap_or("");
            if impact == "serious" || impact == "critical" {
                out.push(format!(
                    "{list} {impact} {}: {} {}",
                    v["id"], v["help"], v["targets"]
                ));
            }
        }
    }
    for size in ["base", "large"] {
        if !r["overflow"][size].is_null() {
            out.push(format!(
                "the page scrolls sideways ({size} text): {}",
                r["overflow"][size]
            ));
        }
    }
    if r["width"] != "desktop" {
        return out;
    }
    let focus = &r["focus"];
    if focus["skipFirst"] != Value::Bool(true) {
        out.push("the first Tab stop is not the skip link".into());
    }
    let stops = focus["stops"].as_u64().unwrap_or(0);
    let focusable = focus["focusable"].as_u64().unwrap_or(0);
    // The skip link is focusable though off-screen until focused.
    if stops + 1 < focusable {
        out.push(format!(
            "the keyboard reaches {stops} of {focusable} links and buttons"
        ));
    }
    for hidden in focus["invisible"].as_array().into_iter().flatten() {
        out.push(format!("a Tab stop does not show focus: {hidden}"));
    }
    let headers = &r["headers"];
    if headers["withoutHeaders"].as_u64() != Some(0) || headers["unscoped"].as_u64() != Some(0) {
        out.push(format!("tables without (scoped) headers: {headers}"));
    }
    if let Some(board) = r["board"].as_object() {
        let fen = board["fen"].as_str().unwrap_or("");
        let caption = board["caption"].as_str().unwrap_or("");
        if board["label"].as_str().is_none_or(str::is_empty) {
            out.push("the board has no label".into());
        }
        if fen.is_empty() || !caption.contains(fen) {
            out.push(format!("the board's caption lacks its FEN: {caption}"));
        }
        // The moves follow the FEN in the caption, in the table's order.
        let mut rest = caption.split(fen).nth(1).unwrap_or("");
        for san in board["tableMoves"].as_array().into_iter().flatten() {
            let san = san.as_str().unwrap_or("");
            match rest.find(san) {
                Some(at) => rest = &rest[at + san.len()..],
                None => {
                    out.push(format!("the board's text lacks {san} in order: {caption}"));
                    break;
                }
            }
        }
    }
    if lang != "en" {
        let left = english_left(lang, r["text"].as_str().unwrap_or(""));
        if !left.is_empty() {
            out.push(format!("English left: {left:?}"));
        }
    }
    out
}
