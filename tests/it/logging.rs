//! `dopis serve`'s log as a collector reads it: with `[log] format =
//! "json"` every line is one JSON object, and the lines about a mail name
//! its mailbox reference, its key, the player who sent it and the game.

use std::process::Command;

use crate::club::Club;
use crate::support::TestDb;

fn serve_once_logging(club: &Club, db: &TestDb) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(club.path())
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_LOG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .args(["serve", "--once"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

async fn json_log_lines_name_the_mail_its_player_and_its_game(db: &TestDb) {
    let club = Club::with_config(db, "\n[log]\nformat = \"json\"\nlevel = \"info\"");
    serve_once_logging(&club, db);
    club.reply("alice@players.test", "e4");
    let log = serve_once_logging(&club, db);
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let handled = lines
        .iter()
        .find(|l| l["fields"]["message"] == "handled mail")
        .unwrap_or_else(|| panic!("no 'handled mail' line in {log}"));
    let span = &handled["span"];
    assert_eq!(span["player"], "alice@players.test", "{handled}");
    assert_eq!(span["game"], 1, "{handled}");
    assert!(
        span["key"].as_str().is_some_and(|k| !k.is_empty()) && span["mail"].is_string(),
        "{handled}"
    );
    assert_eq!(handled["level"], "INFO");
    // The replies it sent name their outbox keys.
    assert!(
        lines
            .iter()
            .any(|l| l["fields"]["message"] == "sent" && l["fields"]["key"].is_string()),
        "{log}"
    );
}

/// A `[log] level` typo stops `serve` at once with what to write.
async fn a_misspelt_log_level_stops_serve_saying_what_to_write(db: &TestDb) {
    let club = Club::with_config(db, "\n[log]\nlevel = \"infoo\"");
    let out = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(club.path())
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_LOG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .args(["serve", "--once"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("[log] level 'infoo'") && err.contains("error, warn, info, debug or trace"),
        "{err}"
    );
}

crate::on_both_backends!(
    json_log_lines_name_the_mail_its_player_and_its_game,
    a_misspelt_log_level_stops_serve_saying_what_to_write,
);
