//! Events from the command line, on both databases: an event file becomes
//! an event, all its games start at once with their first mails, and the
//! TD's tools change games, are logged, and tell the players by mail.

use std::path::Path;

use mail_parser::{MessageParser, MimeHeaders};

use crate::support::app::outbox_rows_of;
use crate::support::mail::Sent;
use crate::support::{TestDb, dopis, fails, ok};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/events")
        .join(name)
        .display()
        .to_string()
}

/// A single round robin of four, forfeits for withdrawals. Berger for 4:
/// round 1 A-D, B-C; round 2 D-C, A-B; round 3 B-D, C-A (games 1-6).
const FOUR: &str = r#"
name = "Club cup"
kind = "round-robin"
tds = ["td@club.test"]
withdrawal = "forfeit-all"

[[players]]
email = "a@club.test"
name = "Ana"

[[players]]
email = "b@club.test"
name = "Bor"

[[players]]
email = "c@club.test"
name = "Cene"

[[players]]
email = "d@club.test"
name = "Dora"
"#;

/// Every mail in the outbox, read as the test reads them; nothing is claimed.
async fn outbox(db: &TestDb) -> Vec<Sent> {
    outbox_rows_of(db)
        .await
        .iter()
        .map(|r| Sent::parse(&r.mail_key, &r.recipient, &r.raw))
        .collect()
}

fn setup(db: &TestDb) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&dopis(dir.path(), db, &["init"]));
    dir
}

async fn an_event_file_becomes_an_event_whose_games_all_start_at_once(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    let id = ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("round-robin.toml")],
    ));
    let id = id.trim();
    assert_eq!(id, "1");
    let shown = ok(&dopis(d, db, &["event", "show", id]));
    for want in [
        "Slovenian correspondence championship 2027",
        "time control: 10/50d",
        "scoring:      win 3, draw 1, loss 0",
        "    1. Ana Novak <ana.novak@example.si>",
        "    6. Tomasz Nowak <tomasz.nowak@example.pl>",
    ] {
        assert!(shown.contains(want), "{want:?} in {shown}");
    }
    // Before the start the pairings are the Berger table's; double: 30 games.
    let pairings: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["event", "pairings", id, "--format", "json"],
    )))
    .unwrap();
    let games = pairings.as_array().unwrap();
    assert_eq!(games.len(), 30);
    assert_eq!(games[0]["white"]["name"], "Ana Novak");
    assert_eq!(games[0]["black"]["name"], "Tomasz Nowak");
    assert!(games[0]["game"].is_null());

    let started = ok(&dopis(d, db, &["event", "start", id]));
    assert!(started.contains("event #1 started: 30 games"), "{started}");
    let again = fails(&dopis(d, db, &["event", "start", id]));
    assert!(again.contains("has started already"), "{again}");
    let late = fails(&dopis(
        d,
        db,
        &[
            "event",
            "add-player",
            id,
            "--email",
            "x@club.test",
            "--name",
            "X",
        ],
    ));
    assert!(late.contains("use `dopis event replace`"), "{late}");

    let listed = ok(&dopis(d, db, &["event", "pairings", id]));
    assert!(
        listed.contains("board 1: Ana Novak - Tomasz Nowak  game #1  active"),
        "{listed}"
    );
    // Every game's two first mails, all queued together.
    let mails = outbox(db).await;
    assert_eq!(mails.len(), 60);
    assert!(mails.iter().all(|m| m.key.contains(".start.")));
    let first = mails.iter().find(|m| m.key == "g1.start.white").unwrap();
    assert_eq!(first.to, "ana.novak@example.si");
    assert!(first.subject.starts_with("[dopis #1]"), "{}", first.subject);

    let standings = ok(&dopis(d, db, &["event", "standings", id]));
    assert!(
        standings.contains(" 1-6   1  Ana Novak      X  **"),
        "{standings}"
    );
    let list = ok(&dopis(d, db, &["event", "list"]));
    assert!(list.contains("1\tSlovenian correspondence championship 2027\tround-robin\tstarted"));
}

async fn team_events_pair_board_against_board(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    let olympiad = ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("olympiad.toml")],
    ));
    let pairings: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["event", "pairings", olympiad.trim(), "--format", "json"],
    )))
    .unwrap();
    // 7 teams: 21 matches of 6 boards.
    assert_eq!(pairings.as_array().unwrap().len(), 126);
    let m = ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("team-match.toml")],
    ));
    let m = m.trim();
    let started = ok(&dopis(d, db, &["event", "start", m]));
    assert!(started.contains("12 games"), "{started}");
    let listed = ok(&dopis(d, db, &["event", "pairings", m]));
    assert!(listed.contains("(ŠK Ljubljana)"), "{listed}");
    let table = ok(&dopis(d, db, &["event", "standings", m, "--format", "csv"]));
    assert!(table.starts_with("Rank,No,Name,"), "{table}");
    let full = fails(&dopis(
        d,
        db,
        &[
            "event",
            "add-team",
            m,
            "--name",
            "Third",
            "--board",
            "a1@ljubljana.example",
        ],
    ));
    assert!(full.contains("has started"), "{full}");
}

async fn a_bad_event_file_is_refused_with_its_line_and_key(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    std::fs::write(
        d.join("bad.toml"),
        "name = \"X\"\nkind = \"round-robin\"\ntds = [\"td@x.test\"]\nwithdrawal = \"never\"\n",
    )
    .unwrap();
    let err = fails(&dopis(d, db, &["event", "create", "bad.toml"]));
    assert!(err.contains("event file bad.toml"), "{err}");
    assert!(
        err.contains("line 4, withdrawal: unknown rule 'never'"),
        "{err}"
    );
    assert!(err.contains("players: is missing"), "{err}");
    let none = fails(&dopis(d, db, &["event", "show", "9"]));
    assert!(none.contains("no event #9"), "{none}");
}

fn row_of<'a>(csv: &'a str, name: &str) -> Vec<&'a str> {
    csv.lines()
        .find(|l| l.split(',').nth(2) == Some(name))
        .unwrap_or_else(|| panic!("{name} not in {csv}"))
        .split(',')
        .collect()
}

async fn td_tools_change_games_are_logged_and_tell_the_players(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    std::fs::write(d.join("four.toml"), FOUR).unwrap();
    ok(&dopis(d, db, &["event", "create", "four.toml"]));
    ok(&dopis(
        d,
        db,
        &["player", "add", "--email", "e@club.test", "--name", "Eva"],
    ));
    ok(&dopis(d, db, &["event", "start", "1"]));

    let td = ["--by", "td@club.test"];
    let result = |game: &str, r: &str, why: &str| {
        let mut args = vec!["game", "result", game, r, "--reason", why];
        args.extend(td);
        ok(&dopis(d, db, &args))
    };
    assert!(result("1", "1-0", "Dora resigned by phone").contains("set to 1-0"));
    result("2", "1/2-1/2", "agreed with the TD");
    result("4", "0-1", "Ana lost on time");
    let not_td = fails(&dopis(
        d,
        db,
        &[
            "game",
            "result",
            "6",
            "1-0",
            "--reason",
            "x",
            "--by",
            "a@club.test",
        ],
    ));
    assert!(
        not_td.contains("a@club.test is not a TD of event #1"),
        "{not_td}"
    );

    let out = ok(&dopis(
        d,
        db,
        &[
            "event",
            "withdraw",
            "1",
            "--email",
            "d@club.test",
            "--reason",
            "Left the club",
        ]
        .into_iter()
        .chain(td)
        .collect::<Vec<_>>(),
    ));
    assert!(out.contains("d@club.test withdrawn"), "{out}");
    let out = ok(&dopis(
        d,
        db,
        &[
            "event",
            "replace",
            "1",
            "--email",
            "c@club.test",
            "--with",
            "e@club.test",
            "--reason",
            "Cene is ill",
        ]
        .into_iter()
        .chain(td)
        .collect::<Vec<_>>(),
    ));
    assert!(out.contains("e@club.test replaces c@club.test"), "{out}");
    ok(&dopis(
        d,
        db,
        &[
            "game",
            "extend",
            "6",
            "--days",
            "4",
            "--reason",
            "Eva needs time to catch up",
        ]
        .into_iter()
        .chain(td)
        .collect::<Vec<_>>(),
    ));

    // Ana 1 (beat Dora); Bor ½ + 1 (Ana) + 1 (Dora's forfeit) = 2½;
    // Eva in Cene's seat ½ + 1 (Dora's forfeit) = 1½; Dora 0.
    let csv = ok(&dopis(
        d,
        db,
        &["event", "standings", "1", "--format", "csv"],
    ));
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let pts = header.iter().position(|h| *h == "Pts").unwrap();
    for (name, rank, points) in [
        ("Bor", "1", "2.5"),
        ("Eva", "2", "1.5"),
        ("Ana", "3", "1"),
        ("Dora (withdrawn)", "4", "0"),
    ] {
        let row = row_of(&csv, name);
        assert_eq!((row[0], row[pts]), (rank, points), "{name} in {csv}");
    }
    let text = ok(&dopis(d, db, &["event", "standings", "1"]));
    let dora = text
        .lines()
        .find(|l| l.contains("Dora (withdrawn)"))
        .unwrap();
    assert_eq!(
        dora.split_whitespace().filter(|c| *c == "-").count(),
        2,
        "{text}"
    );
    let html = ok(&dopis(
        d,
        db,
        &["event", "standings", "1", "--format", "html"],
    ));
    assert!(html.starts_with("<table class=\"crosstable\">"), "{html}");

    let shown = ok(&dopis(d, db, &["event", "show", "1"]));
    for want in [
        "result by td@club.test: set game #1 to 1-0 (why: Dora resigned by phone)",
        "withdraw by td@club.test: withdrew Dora <d@club.test> under rule forfeit-all; 2 unfinished games closed (why: Left the club)",
        "replace by td@club.test: replaced Cene <c@club.test> by Eva <e@club.test> in 3 games (why: Cene is ill)",
        "extend by td@club.test: gave Eva (white) 4 more days in game #6 (why: Eva needs time to catch up)",
        "3. Eva <e@club.test>",
    ] {
        assert!(shown.contains(want), "{want:?} in {shown}");
    }
    let pairings = ok(&dopis(d, db, &["event", "pairings", "1"]));
    assert!(pairings.contains("Dora - Eva  game #3  0-1"), "{pairings}");
    assert!(
        pairings.contains("Eva - Ana  game #6  active"),
        "{pairings}"
    );

    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let ext = tx
        .deadline_extensions(dopis::domain::ids::GameId(6))
        .await
        .unwrap();
    tx.commit().await.unwrap();
    store.close().await;
    assert_eq!(ext.len(), 1);
    assert_eq!((ext[0].side.as_str(), ext[0].days), ("white", 4));
    assert_eq!(ext[0].granted_by, "td@club.test");

    // Who was told what.
    let mails = outbox(db).await;
    let told = |to: &str, subject: &str, text: &str| {
        assert!(
            mails
                .iter()
                .any(|m| m.to == to && m.subject.contains(subject) && m.text.contains(text)),
            "no mail to {to} with {subject:?} and {text:?}; mails: {:?}",
            mails
                .iter()
                .filter(|m| m.to == to)
                .map(|m| &m.subject)
                .collect::<Vec<_>>()
        );
    };
    told(
        "a@club.test",
        "[dopis #1] Game over",
        "Dora resigned by phone",
    );
    told(
        "d@club.test",
        "[dopis #1] Game over",
        "Adjudicated: Ana wins.",
    );
    told(
        "b@club.test",
        "[dopis #5] Dora withdrew",
        "a win for you by forfeit",
    );
    told(
        "d@club.test",
        "You are withdrawn from Club cup",
        "game #5 against Bor: lost by forfeit",
    );
    told("e@club.test", "You take over game #6", "It is your move");
    told("a@club.test", "Eva replaces Cene", "you now play Eva");
    told(
        "c@club.test",
        "You are replaced in Club cup",
        "Eva takes over your",
    );
    told(
        "a@club.test",
        "Deadline extended by 4 days for Eva",
        "Eva needs time",
    );
    // Finished games are not mailed about on a replacement.
    assert!(!mails.iter().any(|m| m.key.contains(".g2.substitute")));
}

/// The server turns the analysis board link on; an event that forbids
/// engines turns it off for its games. Every first "your move" mail carries
/// its deadline as a calendar file either way.
async fn an_event_may_turn_off_the_analysis_link_the_server_turns_on(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    let config = d.join("dopis.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("analysis_link = \"off\""), "{text}");
    std::fs::write(
        &config,
        text.replace("analysis_link = \"off\"", "analysis_link = \"lichess\""),
    )
    .unwrap();
    // Event 1 forbids engines; event 2 (other players) leaves it to the server.
    let no_engines = FOUR.replace(
        "withdrawal = \"forfeit-all\"",
        "withdrawal = \"forfeit-all\"\nanalysis_link = \"off\"\nmessages = false",
    );
    let open = FOUR
        .replace("Club cup", "Open cup")
        .replace("@club.test\"\nname", "@open.test\"\nname");
    std::fs::write(d.join("closed.toml"), no_engines).unwrap();
    std::fs::write(d.join("open.toml"), open).unwrap();
    for file in ["closed.toml", "open.toml"] {
        let id = ok(&dopis(d, db, &["event", "create", file]));
        ok(&dopis(d, db, &["event", "start", id.trim()]));
    }
    // The TD sees each event's setting.
    let closed = ok(&dopis(d, db, &["event", "show", "1"]));
    assert!(closed.contains("analysis:     off"), "{closed}");
    assert!(
        closed.contains("messages:     none between players (messages = false)"),
        "{closed}"
    );
    let shown = ok(&dopis(d, db, &["event", "show", "2"]));
    assert!(
        shown.contains("messages:     players may pass messages with their moves"),
        "{shown}"
    );
    assert!(
        shown.contains("analysis:     the server's [mail] analysis_link"),
        "{shown}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["event", "show", "1", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["analysis_link"], "off");
    assert_eq!(json["messages"], false);
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let rows = dopis::adapter::store::sql::query(
        "SELECT recipient, mail_key, raw FROM outbox ORDER BY id",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    store.close().await;
    let mut checked = 0;
    for row in &rows {
        let key: String = row.try_get("mail_key").unwrap();
        if !key.ends_with(".start.white") {
            continue;
        }
        let to: String = row.try_get("recipient").unwrap();
        let raw: Vec<u8> = row.try_get("raw").unwrap();
        let mail = MessageParser::default().parse(&raw).unwrap();
        let text = mail.body_text(0).unwrap_or_default().into_owned();
        let html = mail.body_html(0).unwrap_or_default().into_owned();
        let linked = text.contains("https://lichess.org/analysis/standard/");
        let open = to.ends_with("@open.test");
        assert_eq!(linked, open, "{to}: link in text {linked}\n{text}");
        assert_eq!(html.contains("lichess.org"), open, "{to}: link in HTML");
        let calendars = mail
            .attachments()
            .filter(|p| p.attachment_name().is_some_and(|n| n.ends_with(".ics")))
            .count();
        assert_eq!(calendars, 1, "{to}: the deadline as a calendar");
        checked += 1;
    }
    assert_eq!(checked, 12, "six games in each event");
}

crate::on_both_backends!(
    an_event_may_turn_off_the_analysis_link_the_server_turns_on,
    an_event_file_becomes_an_event_whose_games_all_start_at_once,
    team_events_pair_board_against_board,
    a_bad_event_file_is_refused_with_its_line_and_key,
    td_tools_change_games_are_logged_and_tell_the_players,
);
