//! Crash and restart: the real `dopis serve` process dies at the risky
//! points (as with `kill -9`) and is started again. No accepted move may be
//! lost or applied twice, and every answer goes out at least once, with the
//! same Message-ID when it goes out twice.

use std::process::Output;

use crate::club::Club;
use crate::support::{TestDb, ok};

fn died(out: &Output) -> bool {
    !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("DOPIS_CRASH_AT")
}

async fn a_crash_at_any_risky_point_loses_no_move_and_applies_none_twice(db: &TestDb) {
    let s = Club::new(db);
    ok(&s.serve_once(db, None));
    assert_eq!(s.sent().len(), 2, "the game's first mails");

    // 1. Dies after the move is committed but before the mail is marked done:
    //    on restart the mail is read again and recognised as handled.
    s.reply("alice@players.test", "e4");
    assert!(died(&s.serve_once(db, Some("after-inbound-commit"))));
    assert_eq!(s.moves(db), vec!["e4"]);
    ok(&s.serve_once(db, None));
    ok(&s.serve_once(db, None));
    assert_eq!(s.moves(db), vec!["e4"], "applied once");
    let to_bob: Vec<_> = s
        .sent()
        .into_iter()
        .filter(|m| m.0 == "bob@players.test" && m.1.contains("Your move"))
        .collect();
    assert_eq!(to_bob.len(), 1, "{to_bob:?}");

    // 2. Dies after sending but before recording the mail as sent: the
    //    restarted daemon sees that the lease's holder is gone and sends the
    //    mail again at once (not after the five-minute lease), with the same
    //    Message-ID.
    s.reply("bob@players.test", "e5");
    let before_crash = s.sent().len();
    assert!(died(&s.serve_once(db, Some("after-send"))));
    let sent_before_dying = s.sent().len();
    assert!(sent_before_dying > before_crash, "it sent before it died");
    let last_before_dying = s.sent()[sent_before_dying - 1].2.clone();
    ok(&s.serve_once(db, None));
    let copies = s.sent().iter().filter(|m| m.2 == last_before_dying).count();
    assert_eq!(copies, 2, "resent at once by the restarted daemon");
    assert_eq!(s.moves(db), vec!["e4", "e5"]);
    let sent = s.sent();
    let ids: Vec<&str> = sent.iter().map(|m| m.2.as_str()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert!(ids.len() > unique.len(), "a mail was sent twice: {ids:?}");
    for id in &unique {
        let copies: Vec<_> = sent.iter().filter(|m| m.2 == *id).collect();
        assert!(
            copies
                .windows(2)
                .all(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1),
            "same mail each time: {copies:?}"
        );
    }

    // 3. Dies inside the transaction, before it commits: nothing of the mail
    //    is in the database, and the restart applies it once.
    s.reply("alice@players.test", "Nf3");
    assert!(died(&s.serve_once(db, Some("before-inbound-commit"))));
    assert_eq!(s.moves(db), vec!["e4", "e5"], "nothing half-done");
    ok(&s.serve_once(db, None));
    assert_eq!(s.moves(db), vec!["e4", "e5", "Nf3"]);
    ok(&s.serve_once(db, None));
    assert_eq!(s.moves(db), vec!["e4", "e5", "Nf3"]);
}

crate::on_both_backends!(
    a_crash_at_any_risky_point_loses_no_move_and_applies_none_twice,
    a_crash_while_entries_close_starts_the_event_once,
);

/// Entries by mail through the real binary on a Maildir: four players
/// enter and confirm; `serve` dies (as with `kill -9`) as the entries
/// close, before their transaction commits, and after sending; restarted,
/// the event starts once, with each entrant told once.
async fn a_crash_while_entries_close_starts_the_event_once(db: &TestDb) {
    let s = Club::new(db);
    ok(&s.serve_once(db, None));
    let start = s.sent().len();
    for (email, name) in [("carla@players.test", "Carla"), ("dan@players.test", "Dan")] {
        s.add_player(db, email, name);
    }
    let file = s.path().join("open.toml");
    std::fs::write(
        &file,
        "name = \"Spring\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
         [entries]\ncloses = \"2099-01-01\"\nmax = 3\nstart_when_full = true\n",
    )
    .unwrap();
    let out = ok(&crate::support::dopis(
        s.path(),
        db,
        &["event", "open", "open.toml"],
    ));
    let event = out.lines().next().unwrap().trim().to_string();
    for who in [
        "alice@players.test",
        "bob@players.test",
        "carla@players.test",
    ] {
        let raw = format!(
            "From: {who}\r\nTo: chess@chess.test\r\nSubject: entry\r\nMessage-ID: <{:016x}@players.test>\r\n\
             Content-Type: text/plain; charset=utf-8\r\n\r\nenter {event}\r\n",
            rand::random::<u64>()
        );
        s.deliver(raw.as_bytes());
    }
    ok(&s.serve_once(db, None));
    let asks: Vec<_> = s.sent_mails()[start..]
        .iter()
        .filter(|m| m.subject.contains("Please confirm your entry"))
        .cloned()
        .collect();
    assert_eq!(asks.len(), 3, "{asks:?}");
    for ask in &asks {
        s.reply_to_mail(ask, "yes");
    }
    // The third confirmation fills the event: it closes in the same pass,
    // and the daemon dies before that commits.
    assert!(died(&s.serve_once(db, Some("before-entries-commit"))));
    let started = |s: &Club| {
        s.sent_mails()
            .iter()
            .filter(|m| m.subject.contains("has started: you are in"))
            .count()
    };
    assert_eq!(started(&s), 0, "nothing of the closing went out");
    assert!(died(&s.serve_once(db, Some("after-send"))));
    ok(&s.serve_once(db, None));
    ok(&s.serve_once(db, None));
    let pairings = ok(&crate::support::dopis(
        s.path(),
        db,
        &["event", "pairings", &event, "--format", "json"],
    ));
    let games: serde_json::Value = serde_json::from_str(&pairings).unwrap();
    let games = games.as_array().unwrap();
    assert_eq!(
        games.iter().filter(|g| !g["game"].is_null()).count(),
        3,
        "one round robin of three, created once: {pairings}"
    );
    // Each entrant told once (a mail resent after the crash keeps its
    // Message-ID: count the distinct ones).
    let mut told: Vec<(String, String)> = s
        .sent_mails()
        .iter()
        .filter(|m| m.subject.contains("has started: you are in"))
        .map(|m| (m.to.clone(), m.message_id.clone()))
        .collect();
    told.sort();
    told.dedup();
    assert_eq!(told.len(), 3, "{told:?}");
}
