//! The web pages of `dopis web` read by a real browser: Debian's Chromium,
//! headless, dumps each page's DOM as it parsed it (`--dump-dom`) and
//! takes screenshots at desktop and phone widths. A small round robin is
//! played in-process on a SQLite file (mate by mail, a TD's adjudication,
//! games still running with a conditional move), then `dopis web` serves
//! that database and the tests check:
//!
//! - the standings on the event page are the cells `dopis event standings
//!   --format html` prints, row by row;
//! - a game page's board is the game's position: its `data-fen` is the
//!   stored game's FEN, and the SVG draws one piece per piece of the FEN;
//! - every link on the pages answers 200;
//! - a private page without its token, with a wrong one, or after `dopis
//!   player link --revoke` is refused (404), and so are an unlisted event
//!   without its token, a private event and a game outside events;
//! - no page shows a player's address, and no public page has an `@`;
//! - bad paths (huge numbers, signs, non-UTF-8) get short 4xx pages and the
//!   server goes on.
//!
//! Screenshots go to `$DOPIS_TEST_WEB_SHOTS` when set (else a temp dir), to be
//! looked at.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::Duration;
use dopis::domain::address::EmailAddress;
use dopis::domain::chess::game::GameResult;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::service::Handled;

use crate::support::app::TestApp;
use crate::support::mail::Mail;
use crate::support::pages::{rule, rule_as};
use crate::support::web::WebServer;
use crate::support::{TestDb, dopis, ok, postgres, sqlite};

/// Four players, 3 days a move, public. Berger for 4: round 1 Ana-Dora
/// (game 1), Bor-Cene (2); round 2 Dora-Cene (3), Ana-Bor (4); round 3
/// Bor-Dora (5), Cene-Ana (6).
const CUP: &str = r#"
name = "Web cup <2027>"
kind = "round-robin"
time_control = "3d"
tds = ["td@club.test"]
visibility = "public"

[[players]]
email = "ana@club.test"
name = "Ana Novak"

[[players]]
email = "bor@club.test"
name = "Bor Kralj"

[[players]]
email = "cene@club.test"
name = "Cene Zupan"

[[players]]
email = "dora@club.test"
name = "Dora Lah"
"#;

const EMAILS: [&str; 4] = [
    "ana@club.test",
    "bor@club.test",
    "cene@club.test",
    "dora@club.test",
];

/// The same four in an unlisted and in a private event.
fn cup(name: &str, visibility: &str) -> String {
    CUP.replace("Web cup <2027>", name).replace(
        "visibility = \"public\"",
        &format!("visibility = \"{visibility}\""),
    )
}

/// Chromium's path; the test command installs it (scripts/stack.sh).
fn chromium() -> &'static str {
    for path in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(path).exists() {
            return path;
        }
    }
    panic!(
        "chromium is not installed: `apt-get install chromium` (scripts/stack.sh does it for the test command)"
    );
}

fn browser(profile: &Path) -> Command {
    let mut c = Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// The DOM of a page as Chromium parsed it.
fn dom(profile: &Path, url: &str) -> String {
    let out = browser(profile)
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium --dump-dom {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A screenshot of a page `width` pixels wide.
fn screenshot(profile: &Path, url: &str, file: &Path, width: u32, height: u32) {
    let out = browser(profile)
        .arg(format!("--screenshot={}", file.display()))
        .arg(format!("--window-size={width},{height}"))
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success() && file.exists(),
        "chromium --screenshot {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A plain HTTP/1.1 GET of a raw request target: the status and the body.
fn get(base: &str, target: &[u8]) -> (u16, String) {
    let host = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(host).expect("connect to dopis web");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .expect("timeout");
    let mut request = b"GET ".to_vec();
    request.extend_from_slice(target);
    request.extend_from_slice(
        format!(" HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    stream.write_all(&request).expect("send");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    (status, body)
}

fn status(base: &str, path: &str) -> u16 {
    get(base, path.as_bytes()).0
}

/// Text of HTML with its tags taken out and the five entities read.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&")
        .trim()
        .to_string()
}

/// The rows of the first `<table class="…">` (head and body), as cell texts.
fn table(html: &str, class: &str) -> Vec<Vec<String>> {
    let start = html
        .find(&format!("<table class=\"{class}\""))
        .unwrap_or_else(|| panic!("no table {class} in {html}"));
    let end = html[start..].find("</table>").expect("table ends") + start;
    html[start..end]
        .split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<t")
                .skip(1)
                .filter(|c| c.starts_with('d') || c.starts_with('h'))
                .map(|c| text(&format!("<t{c}")))
                .collect()
        })
        .collect()
}

/// Every `<table class="…">` of a page, in order, as [`table`] reads one.
fn tables(html: &str, class: &str) -> Vec<Vec<Vec<String>>> {
    let marker = format!("<table class=\"{class}\"");
    html.match_indices(&marker)
        .map(|(at, _)| table(&html[at..], class))
        .collect()
}

/// Every `href` of a page that leaves it (not `#main`, the skip link).
fn links(html: &str) -> Vec<String> {
    html.split(" href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|s| !s.starts_with('#'))
        .map(|s| s.replace("&amp;", "&"))
        .collect()
}

/// The value of the first `name="…"` attribute.
fn attribute(html: &str, name: &str) -> String {
    html.split(&format!("{name}=\""))
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("no {name} in {html}"))
        .to_string()
}

/// Pieces of a FEN's board, by SVG id (`wK`, `bP`, …), counted.
fn fen_pieces(fen: &str) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for c in fen.split(' ').next().unwrap_or("").chars() {
        if c.is_ascii_alphabetic() {
            let colour = if c.is_ascii_uppercase() { 'w' } else { 'b' };
            *out.entry(format!("{colour}{}", c.to_ascii_uppercase()))
                .or_default() += 1;
        }
    }
    out
}

/// Pieces the SVG places (`<use xlink:href="#wK" …>`), counted.
fn svg_pieces(html: &str) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for part in html.split("<use ").skip(1) {
        let id = attribute(part, "href");
        *out.entry(id.trim_start_matches('#').to_string())
            .or_default() += 1;
    }
    out
}

struct Played {
    app: TestApp,
    /// The public team match (event 4) and its games.
    team: (i64, Vec<GameId>),
    games: Vec<GameId>,
    unlisted: (i64, Vec<GameId>),
    private: (i64, Vec<GameId>),
    loose: GameId,
}

impl Played {
    /// `email` writes `text` to their reply address of `game`.
    async fn says(&self, game: GameId, email: &str, text: &str) {
        crate::support::pages::says(&self.app, game, email, text).await;
    }
}

/// The public cup with finished and running games, an unlisted and a
/// private event of the same players, and a game outside events.
async fn play(db: &TestDb) -> Played {
    let app = TestApp::builder().open(db).await;
    let (_, games) = app.event(CUP).await;
    let unlisted = app.event(&cup("Quiet cup", "unlisted")).await;
    let private = app.event(&cup("Closed cup", "private")).await;
    let ana = app.player_by_email(EMAILS[0]).await;
    let bor = app.player_by_email(EMAILS[1]).await;
    let loose = app
        .game(
            &bor,
            &ana,
            dopis::domain::clock::TimeControl::DaysPerMove { days: 5 },
        )
        .await;
    let team_file = include_str!("../fixtures/events/team-match.toml").replacen(
        "kind = ",
        "visibility = \"public\"\nkind = ",
        1,
    );
    let team = app.event(&team_file).await;
    let played = Played {
        team: (team.0.0, team.1),
        app,
        games,
        unlisted: (unlisted.0.0, unlisted.1),
        private: (private.0.0, private.1),
        loose,
    };
    let [a, b, c, d] = EMAILS;
    // Game 1: Ana mates Dora.
    crate::support::pages::scholars_mate(&played.app, played.games[0], a, d).await;
    // Game 2: Bor-Cene adjudicated a draw after a move each.
    played.says(played.games[1], b, "d4").await;
    played.says(played.games[1], c, "d5").await;
    rule(
        &played.app,
        played.games[1],
        GameResult::Draw,
        "dead equal",
        "td@club.test",
    )
    .await;
    // The team match: board 1's first game won by White on time.
    rule_as(
        &played.app,
        played.team.1[0],
        GameResult::WhiteWins,
        dopis::domain::chess::outcome::ResultKind::Time,
        "no move in time",
        "td@example.org",
    )
    .await;
    // Game 3 runs: Dora-Cene after 1. Nf3.
    played.says(played.games[2], d, "Nf3").await;
    // Game 4 runs: Ana-Bor after 1. e4 c5, and Bor sets a conditional.
    played.says(played.games[3], a, "e4").await;
    played.says(played.games[3], b, "c5").await;
    played.says(played.games[3], b, "if Nf3 d6").await;
    // The loose game: Bor (White) opens.
    played.says(played.loose, b, "c4").await;
    played
}

/// The config `dopis web` and the CLI read: the test app's database,
/// address and secret.
fn config(dir: &Path, db: &TestDb) -> PathBuf {
    let path = dir.join("dopis.toml");
    std::fs::write(
        &path,
        format!(
            "[database]\nurl = \"{}\"\n\n[mail]\naddress = \"chess@chess.test\"\nsecret = \"test-secret\"\nname = \"Chess club\"\n\n[web]\nlisten = \"127.0.0.1:0\"\n",
            db.url
        ),
    )
    .unwrap();
    path
}

/// The private link's path of a player, as `dopis player link` prints it.
fn link_of(dir: &Path, db: &TestDb, email: &str, revoke: bool) -> String {
    let mut args = vec!["--config", "dopis.toml", "player", "link", email];
    if revoke {
        args.push("--revoke");
    }
    let out = ok(&dopis(dir, db, &args));
    let at = out
        .find("/me/")
        .unwrap_or_else(|| panic!("no /me/ link in {out}"));
    out[at..]
        .split(char::is_whitespace)
        .next()
        .unwrap()
        .to_string()
}

fn shots_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    match std::env::var_os("DOPIS_TEST_WEB_SHOTS") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            std::fs::create_dir_all(&dir).unwrap();
            (dir, None)
        }
        None => {
            let t = tempfile::tempdir().unwrap();
            (t.path().to_path_buf(), Some(t))
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_browser_reads_standings_boards_and_links_and_private_pages_stay_private() {
    browse_everything(&sqlite(), true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_pages_read_the_same_from_postgres() {
    if let Some(db) = postgres().await {
        browse_everything(&db, false).await;
    }
}

/// The whole walk through the pages on `db`; `shots`: take the screenshots.
async fn browse_everything(db: &TestDb, shots: bool) {
    let played = play(db).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), db);
    let server = WebServer::start(dir.path(), db, &cfg);
    let base = server.base.clone();
    let profile = tempfile::tempdir().unwrap();
    let browse = |path: &str| dom(profile.path(), &format!("{base}{path}"));

    // The index lists the public cup only.
    let index = browse("/");
    assert!(index.contains("Web cup &lt;2027&gt;"), "{index}");
    assert!(!index.contains("Quiet cup") && !index.contains("Closed cup"));

    // The standings are the CLI's, cell for cell.
    let event = browse("/events/1");
    let cli = ok(&dopis(
        dir.path(),
        db,
        &[
            "--config",
            "dopis.toml",
            "event",
            "standings",
            "1",
            "--format",
            "html",
        ],
    ));
    let shown = table(&event, "crosstable");
    assert_eq!(shown, table(&cli, "crosstable"), "{event}");
    // And they are right: Ana won, Bor and Cene drew.
    let row = |name: &str| {
        shown
            .iter()
            .find(|r| r.iter().any(|c| c == name))
            .unwrap_or_else(|| panic!("{name} in {shown:?}"))
            .clone()
    };
    let pts = shown[0]
        .iter()
        .position(|h| h == "Pts")
        .expect("a Pts column");
    assert_eq!(row("Ana Novak")[pts], "1");
    assert_eq!(row("Dora Lah")[pts], "0");
    assert_eq!(row("Bor Kralj")[pts], "½");
    assert_eq!(row("Cene Zupan")[pts], "½");
    assert!(event.contains("1-0") && event.contains("1/2-1/2"));

    // A team event: the match table and every board's table, as the CLI's.
    let (team, team_games) = &played.team;
    let match_page = browse(&format!("/events/{team}"));
    let cli_boards = ok(&dopis(
        dir.path(),
        db,
        &[
            "--config",
            "dopis.toml",
            "event",
            "standings",
            &team.to_string(),
            "--format",
            "html",
            "--boards",
        ],
    ));
    let shown_tables = tables(&match_page, "crosstable");
    assert_eq!(shown_tables.len(), 7, "the match table and 6 board tables");
    assert_eq!(shown_tables, tables(&cli_boards, "crosstable"));
    assert!(match_page.contains("Match table") && match_page.contains("Board tables"));
    assert!(links(&match_page).contains(&format!("/games/{}", team_games[0].0)));

    // Every link on the event page works, the games' pages among them.
    let hrefs = links(&event);
    for g in &played.games {
        assert!(
            hrefs.contains(&format!("/games/{}", g.0)),
            "game {} linked: {hrefs:?}",
            g.0
        );
    }
    for href in &hrefs {
        assert_eq!(status(&base, href), 200, "{href}");
    }

    // A game page's board is the game's position.
    for g in [played.games[0], played.games[3]] {
        let page = browse(&format!("/games/{}", g.0));
        let record = played.app.game_row(g).await;
        let game = record.to_game().unwrap();
        let fen =
            shakmaty::fen::Fen::from_position(game.position(), shakmaty::EnPassantMode::Legal)
                .to_string();
        assert_eq!(attribute(&page, "data-fen"), fen, "game {}", g.0);
        assert_eq!(svg_pieces(&page), fen_pieces(&fen), "game {}", g.0);
        for href in links(&page) {
            assert_eq!(status(&base, &href), 200, "{href} on game {}", g.0);
        }
        assert!(!page.contains('@'), "an @ on a public game page");
    }
    let mate = browse(&format!("/games/{}", played.games[0].0));
    assert!(mate.contains("Qxf7#") && mate.contains("1-0"), "{mate}");
    let pgn = get(
        &base,
        format!("/games/{}/pgn", played.games[0].0).as_bytes(),
    );
    assert_eq!(pgn.0, 200);
    assert!(pgn.1.contains("4. Qxf7#") && pgn.1.contains("[Result \"1-0\"]"));
    let event_pgn = get(&base, b"/events/1/pgn");
    assert_eq!(event_pgn.0, 200);
    assert_eq!(event_pgn.1.matches("[Event ").count(), 6);

    // Unlisted: by its link only; private and loose: never by number.
    let (quiet, quiet_games) = &played.unlisted;
    assert_eq!(status(&base, &format!("/events/{quiet}")), 404);
    assert_eq!(status(&base, &format!("/events/{quiet}.aaaaaaaaaa")), 404);
    assert_eq!(status(&base, &format!("/games/{}", quiet_games[0].0)), 404);
    let quiet_link = ok(&dopis(
        dir.path(),
        db,
        &[
            "--config",
            "dopis.toml",
            "event",
            "visibility",
            &quiet.to_string(),
        ],
    ));
    let quiet_path = &quiet_link[quiet_link.find("/events/").expect("a path")..]
        .trim()
        .to_string();
    let quiet_page = browse(quiet_path);
    assert!(quiet_page.contains("Quiet cup"), "{quiet_page}");
    for href in links(&quiet_page) {
        assert_eq!(status(&base, &href), 200, "{href} on the unlisted event");
    }
    let (closed, closed_games) = &played.private;
    assert_eq!(status(&base, &format!("/events/{closed}")), 404);
    assert_eq!(status(&base, &format!("/games/{}", closed_games[0].0)), 404);
    assert_eq!(status(&base, &format!("/games/{}", played.loose.0)), 404);
    // 404 says nothing of whether the thing exists.
    assert_eq!(
        get(&base, format!("/events/{closed}").as_bytes()).1,
        get(&base, b"/events/999999").1
    );

    // A player's private pages: their games, their side, their reply address.
    let bor = link_of(dir.path(), db, EMAILS[1], false);
    let mine = browse(&bor);
    assert!(
        mine.contains("Bor Kralj") && mine.contains("deadlines.ics"),
        "{mine}"
    );
    // (The calendar feed is tested with the feeds, tests/it/calendar.rs.)
    for href in links(&mine).iter().filter(|h| !h.ends_with(".ics")) {
        assert_eq!(status(&base, href), 200, "{href} on Bor's page");
    }
    assert!(mine.contains(&format!("{bor}/games/{}", played.loose.0)));
    let bor_player = played.app.player_by_email(EMAILS[1]).await;
    let g4 = played.games[3];
    let own = browse(&format!("{bor}/games/{}", g4.0));
    assert!(
        own.contains(&played.app.reply_address(g4, &bor_player)),
        "Bor's reply address on his game page: {own}"
    );
    assert!(own.contains("if 2.Nf3 2...d6"), "Bor's conditional: {own}");
    assert_eq!(attribute(&own, "data-orientation"), "black");
    let ana = link_of(dir.path(), db, EMAILS[0], false);
    let theirs = browse(&format!("{ana}/games/{}", g4.0));
    assert!(
        !theirs.contains("if 2.Nf3"),
        "Ana never sees Bor's conditional"
    );
    // Their events, private ones included, and the loose game.
    assert_eq!(status(&base, &format!("{bor}/events/{closed}")), 200);
    assert_eq!(
        status(&base, &format!("{bor}/games/{}", closed_games[0].0)),
        200
    );
    assert_eq!(
        status(&base, &format!("{ana}/games/{}", played.loose.0)),
        200
    );
    // Cene plays in neither the loose game nor... he is in the events: but
    // the loose game is Ana's and Bor's alone.
    let cene = link_of(dir.path(), db, EMAILS[2], false);
    assert_eq!(
        status(&base, &format!("{cene}/games/{}", played.loose.0)),
        404
    );

    // No page shows a player's address.
    let pages = [
        index.clone(),
        event.clone(),
        mine.clone(),
        own.clone(),
        theirs.clone(),
        quiet_page.clone(),
        browse(&format!("{bor}/events/{closed}")),
    ];
    for page in &pages {
        for email in EMAILS {
            assert!(!page.contains(email), "{email} shown");
        }
    }
    for page in [&index, &event, &quiet_page] {
        assert!(!page.contains('@'), "an @ on a public page: {page}");
    }

    // Refused: no token, a wrong one, a revoked one.
    let id = bor
        .trim_start_matches("/me/")
        .split('.')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(status(&base, &format!("/me/{id}")), 404);
    assert_eq!(status(&base, &format!("/me/{id}.aaaaaaaaaa")), 404);
    let refused = browse(&format!("/me/{id}.aaaaaaaaaa"));
    assert!(
        refused.contains("Not found") && !refused.contains("Bor"),
        "{refused}"
    );
    let renewed = link_of(dir.path(), db, EMAILS[1], true);
    assert_ne!(renewed, bor);
    assert_eq!(status(&base, &bor), 404, "the revoked link");
    assert_eq!(status(&base, &format!("{bor}/games/{}", g4.0)), 404);
    assert_eq!(status(&base, &renewed), 200, "the new link");

    // Bad paths: short refusals, and the server goes on.
    for bad in [
        &b"/games/99999999999999999999999999"[..],
        b"/games/-1",
        b"/games/0",
        b"/games/abc",
        b"/events/1.%FF%FE",
        b"/me/%FF%FE",
        b"/me/%FF/games/1",
        b"/games/1/pgn/x",
        b"/events/%00",
        b"/nothing/here",
    ] {
        let (code, body) = get(&base, bad);
        assert!(
            (400..500).contains(&code),
            "{}: {code}",
            String::from_utf8_lossy(bad)
        );
        assert!(body.len() < 4000, "a short page");
    }
    assert_eq!(status(&base, "/"), 200);

    // Screenshots of the event, a game and a player page, desktop and phone.
    if !shots {
        played.app.close().await;
        return;
    }
    let (shots, _keep) = shots_dir();
    for (name, path) in [
        ("event", "/events/1".to_string()),
        ("team-event", format!("/events/{team}")),
        ("game", format!("/games/{}", played.games[0].0)),
        ("player", renewed.clone()),
        ("own-game", format!("{renewed}/games/{}", g4.0)),
    ] {
        for (size, w, h) in [("desktop", 1280, 1000), ("phone", 390, 1400)] {
            let file = shots.join(format!("{name}-{size}.png"));
            screenshot(profile.path(), &format!("{base}{path}"), &file, w, h);
        }
    }
    played.app.close().await;
    drop(server);
}

/// The club's address, the one `@` a public page of an event open for
/// entries carries: where to write `enter N`.
const CLUB: &str = "chess@chess.test";

/// A round robin open for entries; `entries` is its `[entries]` table.
fn open_file(name: &str, visibility: &str, entries: &str) -> String {
    format!(
        "name = \"{name}\"\nkind = \"round-robin\"\ntime_control = \"10/50d\"\n\
         tds = [\"td@club.test\"]\nvisibility = \"{visibility}\"\n\n[entries]\n{entries}\n"
    )
}

/// `from` writes `text` to the club; then replies `reply` to the mail it
/// got back, if given.
async fn enter(app: &TestApp, from: &str, text: &str, reply: Option<&str>) {
    app.advance(Duration::minutes(5));
    let done = app
        .deliver(&Mail::new(from, CLUB).subject("entry").body(text).bytes())
        .await;
    assert!(matches!(done, Handled::Done(_)), "{from}: {done:?}");
    let sent = app.sent().await;
    let bare = from
        .rsplit('<')
        .next()
        .unwrap_or(from)
        .trim_end_matches('>');
    let address = EmailAddress::parse(bare).unwrap().to_string();
    let ask = sent
        .iter()
        .find(|m| m.to == address)
        .unwrap_or_else(|| panic!("a mail to {address}: {sent:#?}"));
    assert!(ask.subject.contains("confirm"), "{}", ask.subject);
    if let Some(reply) = reply {
        app.advance(Duration::minutes(5));
        let id = format!("{:016x}@players.test", rand::random::<u64>());
        let done = app.deliver(&ask.reply(from, reply, &id)).await;
        assert!(
            matches!(done, Handled::Done(_)),
            "{from} confirms: {done:?}"
        );
        app.sent().await;
    }
}

/// The names in a page's list of entrants.
fn entrants(html: &str) -> Vec<String> {
    let Some(start) = html.find("<ol class=\"entrants\">") else {
        return Vec::new();
    };
    let list = &html[start..];
    let list = &list[..list.find("</ol>").expect("the list ends")];
    list.split("<li>")
        .skip(1)
        .map(|item| text(item.split("</li>").next().unwrap_or_default()))
        .collect()
}

/// Events open for entries on the pages: how to enter and who has, the
/// index listing the public ones; an entrant's address never shows, nor an
/// entry waiting for its confirmation, refused or withdrawn.
async fn entries_on_the_pages(db: &TestDb, shots: bool) {
    use dopis::service::entries::{EntryChange, change};
    let app = TestApp::builder().open(db).await;
    for (email, name, lang, tz) in [
        ("ana@club.test", "Ana Novak", Lang::En, None),
        ("bor@club.test", "Bor Kralj", Lang::En, None),
        ("cene@club.test", "Cene Zupan", Lang::En, None),
        (
            "dora@club.test",
            "Dora Lah",
            Lang::Sl,
            Some("Europe/Ljubljana"),
        ),
        ("eva@club.test", "Eva Kos", Lang::En, None),
    ] {
        app.player(email, name, lang, tz).await;
    }
    let (spring, _) = app
        .open_event(&open_file(
            "Spring open <2027>",
            "public",
            "closes = \"2099-06-30\"\nmin = 4\nmax = 10\nopen_to = \"anyone\"",
        ))
        .await;
    let (quiet, _) = app
        .open_event(&open_file(
            "Quiet open",
            "unlisted",
            "closes = \"2099-06-30\"",
        ))
        .await;
    let (members, _) = app
        .open_event(&open_file(
            "Members open",
            "public",
            "opens = \"2099-01-01\"\ncloses = \"2099-06-30\"\nmax = 3\nstart_when_full = true\n\
             rating_min = 1800\nrating_max = 2200\ninvited = [\"ana@club.test\", \"bor@club.test\"]",
        ))
        .await;
    let (hidden, _) = app
        .open_event(&open_file(
            "Hidden open",
            "private",
            "closes = \"2099-06-30\"",
        ))
        .await;
    let (small, _) = app
        .open_event(&open_file(
            "Small open",
            "public",
            "closes = \"2026-12-01\"",
        ))
        .await;

    let (class, _) = app
        .open_event(&open_file(
            "Open class",
            "public",
            "closes = \"2099-06-30\"\nsection_size = 3\nsection_bands = [1800]\n\
             promotes = { place = 1, percent = 75, to = \"Higher\" }",
        ))
        .await;
    enter(
        &app,
        "ana@club.test",
        &format!("enter {}", class.0),
        Some("yes"),
    )
    .await;

    // Spring: Ana and Zoe (a stranger) confirm; Cene never does; Bor
    // confirms and is refused; Eva confirms and withdraws; Dora is added by
    // the TD.
    let n = spring.0;
    let entry = format!("enter {n}");
    let withdrawal = format!("withdraw entry {n}");
    enter(&app, "ana@club.test", &entry, Some("yes")).await;
    enter(&app, "cene@club.test", &entry, None).await;
    enter(&app, "bor@club.test", &entry, Some("yes")).await;
    enter(&app, "Zoe Zupan <zoe@outside.test>", &entry, Some("yes")).await;
    enter(&app, "eva@club.test", &entry, Some("yes")).await;
    enter(&app, "eva@club.test", &withdrawal, Some(&withdrawal)).await;
    let td = EmailAddress::parse("td@club.test").unwrap();
    let mut tx = app.store.begin().await.unwrap();
    for c in [
        EntryChange::Add {
            email: EmailAddress::parse("dora@club.test").unwrap(),
            register: None,
        },
        EntryChange::Refuse {
            email: EmailAddress::parse("bor@club.test").unwrap(),
            reason: "plays in the other section".into(),
        },
    ] {
        change(&mut tx, app.post(), spring, Some(c), &td, app.now())
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    // Small: one entry, and entries close with too few.
    enter(
        &app,
        "ana@club.test",
        &format!("enter {}", small.0),
        Some("yes"),
    )
    .await;
    app.set(chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 12, 2, 0, 0, 0).unwrap());
    assert_eq!(app.close_entries().await, 1);
    app.sent().await;

    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), db);
    let server = WebServer::start(dir.path(), db, &cfg);
    let base = server.base.clone();
    let profile = tempfile::tempdir().unwrap();
    let browse = |path: &str| dom(profile.path(), &format!("{base}{path}"));

    // The index: the public events, those taking entries saying so.
    let index = browse("/");
    let rows = table(&index, "list events");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.iter().any(|c| c == name))
            .unwrap_or_else(|| panic!("{name} on the index: {rows:?}"))
            .clone()
    };
    assert_eq!(
        row("Spring open <2027>")[3],
        "open for entries until 2099-06-30 23:59 UTC: 3 of at most 10 entered"
    );
    assert_eq!(
        row("Members open")[3],
        "open for entries until 2099-06-30 23:59 UTC: 0 of at most 3 entered"
    );
    assert_eq!(row("Small open")[3], "not started yet");
    assert!(!index.contains("Quiet open") && !index.contains("Hidden open"));
    assert!(
        text(&index).contains("3 events are open for entries: their pages say how to enter."),
        "{index}"
    );
    assert!(links(&index).contains(&format!("/events/{n}#entries")));

    // Spring's page: how to enter, the rules, and who has entered.
    let page = browse(&format!("/events/{n}"));
    let words = text(&page);
    for want in [
        "Open for entries",
        &format!("To enter, write enter {n} to {CLUB}."),
        "reply to it and your entry counts",
        "If you are not registered yet, confirming registers you as a player.",
        "Entries close 2099-06-30 23:59 UTC",
        "Entered: 3 of at most 10 (the event starts with at least 4)",
        "Who may enter: anyone with an e-mail address",
        "Entered so far",
    ] {
        assert!(words.contains(want), "{want:?} in {words}");
    }
    assert!(!words.contains("(or "), "English only once: {words}");
    assert!(page.contains(&format!("href=\"mailto:{CLUB}\"")), "{page}");
    assert_eq!(entrants(&page), ["Ana Novak", "Zoe Zupan", "Dora Lah"]);
    for never in [
        "Cene Zupan",
        "Bor Kralj",
        "Eva Kos",
        "plays in the other section",
    ] {
        assert!(!page.contains(never), "{never} on the page");
    }
    assert!(!page.contains("Standings") && !page.contains("Pairings"));
    assert!(
        !page.replace(CLUB, "").contains('@'),
        "an @ beyond the club's address: {page}"
    );
    for href in links(&page).iter().filter(|h| !h.starts_with("mailto:")) {
        assert_eq!(status(&base, href), 200, "{href}");
    }

    // Members: invitation, rating band, opening later, starting when full.
    let page = browse(&format!("/events/{}", members.0));
    let words = text(&page);
    for want in [
        &format!(
            "From 2099-01-01 00:00 UTC, to enter, write enter {} to {CLUB}.",
            members.0
        ),
        "Entries open 2099-01-01 00:00 UTC",
        "Entries close 2099-06-30 23:59 UTC, or as soon as 3 have entered",
        "Entered: 0 of at most 3 (the event starts with at least 3)",
        "Who may enter: registered players, by invitation only, rated 1800 to 2200 (the unrated may not enter)",
        "No one yet.",
    ] {
        assert!(words.contains(want), "{want:?} in {words}");
    }
    assert!(
        !page.contains("ana@club.test"),
        "the invited are not listed"
    );

    // An open class: sections start by themselves; who waits.
    let page = browse(&format!("/events/{}", class.0));
    let words = text(&page);
    for want in [
        "An open class: each time 3 players wait in one rating band (below 1800, 1800 and up; \
         the unrated wait in the lowest), a section of them starts by itself as an event of its own",
        "Waiting: 1",
        "Waiting for a section",
        "Promotion: first place or 75% of the points → Higher (recorded when a section's last game ends",
    ] {
        assert!(words.contains(want), "{want:?} in {words}");
    }
    assert!(!words.contains("of at most"), "{words}");
    assert_eq!(entrants(&page), ["Ana Novak"]);

    // Small: closed with too few, so it never started.
    let words = text(&browse(&format!("/events/{}", small.0)));
    assert!(
        words.contains("Entries closed")
            && words.contains("Fewer than 3 entered by the closing time"),
        "{words}"
    );
    assert!(!words.contains("To enter"), "{words}");

    // Dora's own view: in her language, with her words for the command
    // (and English's, always read), in her time zone.
    let dora = link_of(dir.path(), db, "dora@club.test", false);
    let words = text(&browse(&format!("{dora}/events/{n}")));
    assert!(
        words.contains(&format!(
            "Prijavite se tako, da na {CLUB} napišete prijava {n} (ali enter {n})."
        )),
        "{words}"
    );
    assert!(
        words.contains("Prijave se zaprejo 1. 7. 2099 01:59 CEST (30. 6. 2099 23:59 UTC)"),
        "{words}"
    );
    assert!(
        !words.contains("Če še niste registrirani"),
        "Dora is registered: {words}"
    );

    // Unlisted: by its link only; private: not by number.
    assert_eq!(status(&base, &format!("/events/{}", quiet.0)), 404);
    let quiet_link = ok(&dopis(
        dir.path(),
        db,
        &[
            "--config",
            "dopis.toml",
            "event",
            "visibility",
            &quiet.0.to_string(),
        ],
    ));
    let quiet_path = quiet_link[quiet_link.find("/events/").expect("a path")..]
        .trim()
        .to_string();
    let words = text(&browse(&quiet_path));
    assert!(
        words.contains(&format!("To enter, write enter {} to {CLUB}", quiet.0)),
        "{words}"
    );
    assert_eq!(status(&base, &format!("/events/{}", hidden.0)), 404);

    if shots {
        let (shots, _keep) = shots_dir();
        for (name, path) in [
            ("entries-index", "/".to_string()),
            ("entries-event", format!("/events/{n}")),
            ("entries-members", format!("/events/{}", members.0)),
            ("entries-class", format!("/events/{}", class.0)),
            ("entries-own", format!("{dora}/events/{n}")),
        ] {
            for (size, w, h) in [("desktop", 1280, 900), ("phone", 390, 1200)] {
                let file = shots.join(format!("{name}-{size}.png"));
                screenshot(profile.path(), &format!("{base}{path}"), &file, w, h);
            }
        }
    }
    app.close().await;
    drop(server);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_event_open_for_entries_says_how_to_enter_and_who_has() {
    entries_on_the_pages(&sqlite(), true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn entries_read_the_same_from_postgres() {
    if let Some(db) = postgres().await {
        entries_on_the_pages(&db, false).await;
    }
}
