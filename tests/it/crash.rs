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

crate::on_both_backends!(a_crash_at_any_risky_point_loses_no_move_and_applies_none_twice);
