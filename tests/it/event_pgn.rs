//! `dopis event pgn`: every game of an event in one PGN file, on both
//! databases, read back by python-chess (a reader we did not write).

use chrono::{Duration, TimeZone, Utc};

use dopis::domain::ids::GameId;
use dopis::domain::player::Player;

use crate::support::app::TestApp;
use crate::support::{TestDb, dopis, fails, ok};

/// A round robin of four: round 1 Ana-Dora, Bor-Cene; round 2 Dora-Cene,
/// Ana-Bor; round 3 Bor-Dora, Cene-Ana (games 1-6).
const FOUR: &str = r#"
name = "Pomladni pokal – Šentjur"
kind = "round-robin"
tds = ["td@club.test"]

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

/// Two teams of two boards, two games per board (games 7-10): board 1
/// Kim-Pia, Pia-Kim; board 2 Pavel-Kaja, Kaja-Pavel.
const MATCH: &str = r#"
name = "Koper - Piran"
kind = "team-match"
boards = 2
tds = ["td@club.test"]

[[teams]]
name = "Koper"
[[teams.boards]]
email = "k1@club.test"
name = "Kim"
[[teams.boards]]
email = "k2@club.test"
name = "Kaja"

[[teams]]
name = "Piran"
[[teams.boards]]
email = "p1@club.test"
name = "Pia"
[[teams.boards]]
email = "p2@club.test"
name = "Pavel"
"#;

async fn write(app: &TestApp, game: GameId, who: &Player, text: &str) {
    app.advance(Duration::hours(3));
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [dopis #{game}]\r\n\
         Message-ID: <{n:016x}@club.test>\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
        from = who.email,
        to = app.reply_address(game, who),
        game = game.0,
        n = rand::random::<u64>(),
    );
    app.deliver(raw.as_bytes()).await;
}

/// The first python with the `chess` package (python-chess), if any.
fn python_with_chess() -> Option<&'static str> {
    let found = crate::support::python_with("chess.pgn");
    if found.is_none() && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but no python3 has python-chess: scripts/stack.sh installs it");
    }
    found
}

/// Reads every game with python-chess and prints, per game, its headers
/// and moves as JSON, and whatever python-chess found wrong with it.
const READ_PGN: &str = r#"
import io, json, sys, chess.pgn
text = sys.stdin.read()
pgn = io.StringIO(text)
games = []
while True:
    g = chess.pgn.read_game(pgn)
    if g is None:
        break
    games.append({
        "headers": dict(g.headers),
        "moves": [m.uci() for m in g.mainline_moves()],
        "errors": [str(e) for e in g.errors],
    })
print(json.dumps(games))
"#;

fn python_reads(python: &str, text: &str) -> serde_json::Value {
    let out = crate::support::python_reads(python, READ_PGN, text)
        .unwrap_or_else(|e| panic!("python-chess failed: {e}"));
    serde_json::from_str(&out).expect("JSON")
}

async fn an_events_pgn_has_every_game_with_its_tags_and_reads_in_python_chess(db: &TestDb) {
    let app = TestApp::builder()
        .at(Utc.with_ymd_and_hms(2027, 3, 1, 9, 0, 0).unwrap())
        .open(db)
        .await;
    let (_, games) = app.event(FOUR).await;
    let (_, team_games) = app.event(MATCH).await;
    assert_eq!((games.len(), team_games.len()), (6, 4));
    let ana = app.player_by_email("a@club.test").await;
    let dora = app.player_by_email("d@club.test").await;
    let bor = app.player_by_email("b@club.test").await;
    // Game 1 (Ana-Dora): 1. e4 e5 2. Nf3, still going. Game 2 (Bor-Cene): Bor resigns.
    write(&app, games[0], &ana, "e4").await;
    write(&app, games[0], &dora, "e5").await;
    write(&app, games[0], &ana, "Nf3").await;
    write(&app, games[1], &bor, "resign").await;
    app.close().await;

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    // Ana brings a FIDE rating; the others are unrated.
    ok(&dopis(
        d,
        db,
        &["rating", "set", "a@club.test", "2100", "--source", "fide"],
    ));
    let text = ok(&dopis(d, db, &["event", "pgn", "1"]));
    let Some(python) = python_with_chess() else {
        eprintln!("no python with python-chess: the PGN is checked by text only");
        assert!(
            text.contains("[Event \"Pomladni pokal – Šentjur\"]"),
            "{text}"
        );
        return;
    };
    let read = python_reads(python, &text);
    let read = read.as_array().unwrap();
    assert_eq!(read.len(), 6, "{text}");
    for g in read {
        assert_eq!(g["errors"], serde_json::json!([]), "{g}");
        let h = &g["headers"];
        assert_eq!(h["Event"], "Pomladni pokal – Šentjur");
        assert_eq!(
            h["Site"], "localhost",
            "the domain of the default [mail] address"
        );
        assert_eq!(h["EventDate"], "2027.03.01");
        assert_eq!(h["Date"], "2027.03.01");
        assert!(h.get("Board").is_none(), "no boards in a round robin: {h}");
        // Only Ana's rating is known: her tag is written, nobody else's.
        for (side, elo) in [("White", "WhiteElo"), ("Black", "BlackElo")] {
            let want = (h[side] == "Ana").then_some("2100");
            assert_eq!(h.get(elo).and_then(|v| v.as_str()), want, "{h}");
        }
    }
    let first = &read[0];
    assert_eq!(first["headers"]["Round"], "1");
    assert_eq!(first["headers"]["White"], "Ana");
    assert_eq!(first["headers"]["Black"], "Dora");
    assert_eq!(first["headers"]["Result"], "*");
    assert_eq!(first["moves"], serde_json::json!(["e2e4", "e7e5", "g1f3"]));
    let second = &read[1];
    assert_eq!(second["headers"]["White"], "Bor");
    assert_eq!(second["headers"]["Result"], "0-1");
    assert_eq!(second["headers"]["Termination"], "normal");
    let rounds: Vec<&str> = read
        .iter()
        .map(|g| g["headers"]["Round"].as_str().unwrap())
        .collect();
    assert_eq!(rounds, ["1", "1", "2", "2", "3", "3"]);

    // A team event: Board, WhiteTeam and BlackTeam; --site and --output.
    let out = ok(&dopis(
        d,
        db,
        &[
            "event",
            "pgn",
            "2",
            "--site",
            "ICCF",
            "--output",
            "match.pgn",
        ],
    ));
    assert!(out.contains("match.pgn"), "{out}");
    let text = std::fs::read_to_string(d.join("match.pgn")).unwrap();
    let read = python_reads(python, &text);
    let read = read.as_array().unwrap();
    assert_eq!(read.len(), 4, "{text}");
    let boards: Vec<(&str, &str, &str, &str)> = read
        .iter()
        .map(|g| {
            let h = &g["headers"];
            assert_eq!(h["Site"], "ICCF");
            assert_eq!(h["Round"], "1");
            assert_eq!(h["Result"], "*");
            (
                h["Board"].as_str().unwrap(),
                h["White"].as_str().unwrap(),
                h["WhiteTeam"].as_str().unwrap(),
                h["BlackTeam"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        boards,
        [
            ("1", "Kim", "Koper", "Piran"),
            ("1", "Pia", "Piran", "Koper"),
            ("2", "Pavel", "Piran", "Koper"),
            ("2", "Kaja", "Koper", "Piran"),
        ]
    );
}

async fn an_event_that_has_not_started_has_no_pgn_yet(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    std::fs::write(d.join("four.toml"), FOUR).unwrap();
    ok(&dopis(d, db, &["event", "create", "four.toml"]));
    let err = fails(&dopis(d, db, &["event", "pgn", "1"]));
    assert!(err.contains("has not started"), "{err}");
    assert!(err.contains("dopis event start 1"), "{err}");
    let err = fails(&dopis(d, db, &["event", "pgn", "7"]));
    assert!(err.contains("no event #7"), "{err}");
}

crate::on_both_backends!(
    an_events_pgn_has_every_game_with_its_tags_and_reads_in_python_chess,
    an_event_that_has_not_started_has_no_pgn_yet,
);
