//! A TD's batch work from the command line, on both databases: who sits
//! out each round of an odd round robin or olympiad.

use std::path::Path;

use crate::support::{TestDb, dopis, ok};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/events")
        .join(name)
        .display()
        .to_string()
}

fn setup(db: &TestDb) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&dopis(dir.path(), db, &["init"]));
    dir
}

/// A single round robin of five: the 6-table, whoever meets 6 sits out
/// (round 1: 1-6, round 2: 6-4, round 3: 2-6, round 4: 6-5, round 5: 3-6).
const FIVE: &str = r#"
name = "Odd cup"
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

[[players]]
email = "e@club.test"
name = "Eva"
"#;

async fn odd_round_robin_pairings_say_who_has_the_bye_in_each_round(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    std::fs::write(d.join("five.toml"), FIVE).unwrap();
    ok(&dopis(d, db, &["event", "create", "five.toml"]));
    let want = ["Ana", "Dora", "Bor", "Eva", "Cene"];
    for started in [false, true] {
        if started {
            ok(&dopis(d, db, &["event", "start", "1"]));
        }
        let text = ok(&dopis(d, db, &["event", "pairings", "1"]));
        for (i, name) in want.iter().enumerate() {
            let round = format!("round {}\n  bye: {name}\n", i + 1);
            assert!(text.contains(&round), "{round:?} in {text}");
        }
        let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
            d,
            db,
            &["event", "pairings", "1", "--format", "json"],
        )))
        .unwrap();
        // Still one entry per game (10), each carrying its round's bye.
        let games = json.as_array().unwrap();
        assert_eq!(games.len(), 10);
        for g in games {
            let round = g["round"].as_u64().unwrap() as usize;
            assert_eq!(g["bye"], want[round - 1], "{g}");
            assert_ne!(g["white"]["name"], want[round - 1]);
            assert_ne!(g["black"]["name"], want[round - 1]);
        }
        // Round 1's board 1 is Ana's bye; board 2 is the table's 2-5.
        assert_eq!(games[0]["board"], 2);
        assert_eq!(games[0]["white"]["name"], "Bor");
        assert_eq!(games[0]["black"]["name"], "Eva");
    }
}

async fn even_round_robins_and_odd_olympiads(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    // Six players: no byes, and no `bye` key in the JSON.
    ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("round-robin.toml")],
    ));
    let text = ok(&dopis(d, db, &["event", "pairings", "1"]));
    assert!(!text.contains("bye"), "{text}");
    let json = ok(&dopis(
        d,
        db,
        &["event", "pairings", "1", "--format", "json"],
    ));
    assert!(!json.contains("\"bye\""), "{json}");
    // Seven teams: the 8-table over teams; round 1 team 1 sits out, round 2 team 5.
    ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("olympiad.toml")],
    ));
    let text = ok(&dopis(d, db, &["event", "pairings", "2"]));
    assert!(text.contains("round 1\n  bye: Slovenia\n"), "{text}");
    assert!(text.contains("round 2\n  bye: Czechia\n"), "{text}");
}

crate::on_both_backends!(
    odd_round_robin_pairings_say_who_has_the_bye_in_each_round,
    even_round_robins_and_odd_olympiads,
);
