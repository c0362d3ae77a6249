//! Each public event's Atom feed (`/events/{id}/feed.atom`), read by a
//! real feed parser, Python's `feedparser` (from PyPI; `scripts/stack.sh`
//! installs it): a well-formed Atom 1.0 feed in the event's language, one
//! entry for each round as it started and each result as it came, newest
//! first; a result that comes later is the feed's newest entry at the
//! next fetch, and nothing else changed. The event page links it (for
//! people and for feed readers); an unlisted event's feed needs its
//! token, a private event has none.

use crate::support::pages::{Club, config, rule};
use crate::support::web::{WebServer, request};
use crate::support::{python_reads, python_with, sqlite};

/// Prints what feedparser reads of the feed on its input, as JSON; the
/// feed's address (`URL`, replaced) resolves its relative links, as a
/// reader that fetched it there would.
const READ: &str = r#"
import sys, json, feedparser
d = feedparser.parse(sys.stdin.read(), response_headers={
    "content-location": "URL", "content-type": "application/atom+xml; charset=utf-8"})
print(json.dumps({
    "bozo": d.bozo, "problem": str(d.get("bozo_exception", "")), "version": d.version,
    "title": d.feed.get("title"), "language": d.feed.get("language"), "id": d.feed.get("id"),
    "updated": d.feed.get("updated"),
    "links": [[l.get("rel"), l.get("type"), l.href] for l in d.feed.get("links", [])],
    "entries": [{"id": e.id, "title": e.title, "updated": e.updated, "link": e.get("link"),
                 "summary": e.get("summary")} for e in d.entries],
}))
"#;

fn feedparser() -> Option<&'static str> {
    let python = python_with("feedparser");
    if python.is_none() {
        assert!(
            !std::env::var("CI").is_ok_and(|v| v == "true"),
            "CI=true but Python's feedparser is missing: run the tests with scripts/test.sh"
        );
        eprintln!("SKIPPED: event feed test (Python's feedparser; scripts/stack.sh installs it)");
    }
    python
}

fn read(python: &str, url: &str, xml: &str) -> serde_json::Value {
    let script = READ.replace("URL", url);
    let out = python_reads(python, &script, xml).unwrap_or_else(|e| panic!("feedparser: {e}"));
    serde_json::from_str(&out).expect("JSON")
}

fn titles(feed: &serde_json::Value) -> Vec<String> {
    feed["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["title"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_feed_reader_follows_an_events_rounds_and_results_as_they_come() {
    let Some(python) = feedparser() else {
        return;
    };
    let db = sqlite();
    let club = Club::play(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &db);
    let server = WebServer::start(dir.path(), &db, &cfg);
    let (cup, games) = &club.cup;
    let path = format!("/events/{}/feed.atom", cup.0);

    // The event page links it, for readers and for their feed programs.
    let (_, page) = server.get(&format!("/events/{}", cup.0));
    assert!(
        page.contains(&format!(
            "<link rel=\"alternate\" type=\"application/atom+xml\" href=\"{path}\""
        )),
        "{page}"
    );
    assert!(page.contains(&format!("<a href=\"{path}\"")), "{page}");

    // No browser language: the event's own (`lang = "sl"`).
    let answer = request(server.address(), "GET", &path, &[], b"");
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.header("content-type"),
        Some("application/atom+xml; charset=utf-8")
    );
    let url = format!("{}{path}", server.base);
    let feed = read(python, &url, &answer.text());
    assert_eq!(feed["bozo"], false, "well-formed: {}", feed["problem"]);
    assert_eq!(feed["version"], "atom10");
    assert_eq!(feed["language"], "sl");
    assert_eq!(feed["title"], "Pokal Triglava 2027: izidi in kola");
    assert!(
        feed["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("tag:chess.test,")),
        "{}",
        feed["id"]
    );
    let before = titles(&feed);
    // Three rounds started and two results came: game 1 mated, game 2 a draw.
    for want in [
        "1. kolo se je začelo",
        "2. kolo se je začelo",
        "3. kolo se je začelo",
        "1. kolo, 1. deska: Ana Novak – Dörte Müller 1-0",
        "1. kolo, 2. deska: Bożena Wiśniewska – Jānis Bērziņš 1/2-1/2",
    ] {
        assert!(before.iter().any(|t| t == want), "{want:?} in {before:?}");
    }
    assert_eq!(before.len(), 5, "{before:?}");
    // Newest first: the draw came last.
    assert_eq!(
        before[0],
        "1. kolo, 2. deska: Bożena Wiśniewska – Jānis Bērziņš 1/2-1/2"
    );
    let mate = &feed["entries"][1];
    assert_eq!(mate["summary"], "Mat: zmaga Ana Novak.");
    assert_eq!(
        mate["link"],
        format!("{}/games/{}", server.base, games[0].0)
    );
    let rounds = feed["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["title"] == "2. kolo se je začelo")
        .expect("round 2");
    assert!(
        rounds["summary"]
            .as_str()
            .is_some_and(|s| s.contains("Dörte Müller – Jānis Bērziņš")),
        "{rounds}"
    );

    // A result comes: the next fetch has it on top, the rest as it was.
    club.app.advance(chrono::Duration::hours(2));
    rule(
        &club.app,
        games[2],
        dopis::domain::chess::game::GameResult::BlackWins,
        "predaja",
        "td@club.test",
    )
    .await;
    let after = read(python, &url, &server.get(&path).1);
    let now = titles(&after);
    assert_eq!(now.len(), 6, "{now:?}");
    assert_eq!(
        now[0],
        "2. kolo, 1. deska: Dörte Müller – Jānis Bērziņš 0-1"
    );
    assert_eq!(&now[1..], &before[..]);
    assert!(after["updated"].as_str() > feed["updated"].as_str());

    // A German reader's browser: the German words.
    let german = request(
        server.address(),
        "GET",
        &path,
        &[("Accept-Language", "de-DE,de;q=0.9")],
        b"",
    );
    let german = read(python, &url, &german.text());
    assert_eq!(german["language"], "de");
    assert!(
        titles(&german).contains(&"Runde 3 hat begonnen".to_owned()),
        "{german}"
    );

    // Only where the event page may be seen: an unlisted event's by its
    // token, a private event's and a missing one's never.
    assert_eq!(server.get("/events/999999/feed.atom").0, 404);
    for (visibility, by_number) in [("unlisted", 404), ("private", 404)] {
        let file = include_str!("../fixtures/events/team-match.toml")
            .replacen(
                "kind = ",
                &format!("visibility = \"{visibility}\"\nkind = "),
                1,
            )
            .replace("Ljubljana v Kraków 2027", "Zaprti dvoboj");
        let (event, _) = club.app.event(&file).await;
        assert_eq!(
            server.get(&format!("/events/{}/feed.atom", event.0)).0,
            by_number
        );
        let with_token = dopis::service::links::event_path(
            &club.app.post().tokens,
            event,
            dopis::domain::event::Visibility::Unlisted,
        );
        let want = if visibility == "unlisted" { 200 } else { 404 };
        assert_eq!(
            server.get(&format!("{with_token}/feed.atom")).0,
            want,
            "{visibility}"
        );
    }
    club.app.close().await;
}
