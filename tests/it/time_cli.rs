//! Leave and the deadline report from the command line, on both databases.
//! The binary runs on the real clock, so dates are far in the future (leave
//! must start after today) and the report is made `--at` a fixed time.

use crate::support::{TestDb, dopis, fails, ok};

fn setup(d: &std::path::Path, db: &TestDb) -> String {
    ok(&dopis(d, db, &["init"]));
    for (email, name, tz) in [
        ("ana@players.test", "Ana", "Europe/Ljubljana"),
        ("bob@players.test", "Bob", "America/New_York"),
    ] {
        ok(&dopis(
            d,
            db,
            &[
                "player", "add", "--email", email, "--name", name, "--tz", tz,
            ],
        ));
    }
    ok(&dopis(
        d,
        db,
        &[
            "game",
            "new",
            "--white",
            "ana@players.test",
            "--black",
            "bob@players.test",
            "--control",
            "10/50d",
        ],
    ))
    .trim()
    .to_string()
}

async fn leave_is_booked_listed_refused_and_cancelled_from_the_command_line(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d, db);
    let booked = ok(&dopis(
        d,
        db,
        &[
            "leave",
            "add",
            "--email",
            "bob@players.test",
            "2099-07-01",
            "2099-07-10",
        ],
    ));
    assert!(
        booked.contains("booked leave 2099-07-01 to 2099-07-10 (10 days)"),
        "{booked}"
    );
    assert!(booked.contains("35 days of leave left in 2099"), "{booked}");
    assert!(booked.contains("1 active game(s) rescheduled"), "{booked}");
    // Each refusal names the rule and the way out.
    for (args, says) in [
        (
            vec!["2099-07-05", "2099-07-12"],
            "overlaps your leave 2099-07-01",
        ),
        (
            vec!["2099-08-01", "2099-09-30"],
            "you have 35 days of leave left in 2099",
        ),
        (vec!["2099-08-02", "2099-08-01"], "before it starts"),
        (
            vec!["2000-01-01", "2000-01-02"],
            "the earliest first day is",
        ),
    ] {
        let mut all = vec!["leave", "add", "--email", "bob@players.test"];
        all.extend(args);
        let err = fails(&dopis(d, db, &all));
        assert!(err.contains(says), "{all:?}: {err}");
    }
    // A TD grants special leave beyond the allowance.
    let special = ok(&dopis(
        d,
        db,
        &[
            "leave",
            "add",
            "--email",
            "bob@players.test",
            "2099-08-01",
            "2099-09-30",
            "--special",
            "--by",
            "td@chess.test",
            "--reason",
            "hospital",
        ],
    ));
    assert!(special.contains("booked special leave"), "{special}");
    let listed = ok(&dopis(d, db, &["leave", "list"]));
    assert!(
        listed.contains(
            "bob@players.test\t2099-07-01 to 2099-07-10\t10 days\tregular\tby bob@players.test"
        ),
        "{listed}"
    );
    assert!(
        listed.contains("special\tby td@chess.test (hospital)"),
        "{listed}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&dopis(d, db, &["leave", "list", "--format", "json"]))).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(2));
    let cancelled = ok(&dopis(
        d,
        db,
        &[
            "leave",
            "cancel",
            "--email",
            "bob@players.test",
            "2099-07-01",
            "2099-07-10",
        ],
    ));
    assert!(cancelled.contains("cancelled leave"), "{cancelled}");
    let err = fails(&dopis(
        d,
        db,
        &[
            "leave",
            "cancel",
            "--email",
            "bob@players.test",
            "2099-07-01",
            "2099-07-10",
        ],
    ));
    assert!(err.contains("there is no leave"), "{err}");
}

async fn the_deadline_report_lists_late_games_silence_and_leave_as_text_and_json(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let id = setup(d, db);
    // Ana's first move is due 51 days after the game started; shown in
    // `game show` with both clocks.
    let shown: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["game", "show", &id, "--format", "json"],
    )))
    .unwrap();
    assert_eq!(shown["clocks"]["to_move"], "white");
    assert_eq!(shown["clocks"]["white"]["days_left"], 50);
    assert_eq!(shown["clocks"]["black"]["days_used"], 0);
    assert!(shown["clocks"]["next_deadline"].is_string(), "{shown}");
    let text = ok(&dopis(d, db, &["game", "show", &id]));
    assert!(
        text.contains(
            "clocks:       White 0 days used, 50 left until move 10; \
             Black 0 days used, 50 left until move 10"
        ),
        "{text}"
    );
    assert!(text.contains("(Ana to move)"), "{text}");
    ok(&dopis(
        d,
        db,
        &[
            "leave",
            "add",
            "--email",
            "bob@players.test",
            "2099-07-01",
            "2099-07-10",
        ],
    ));

    // Long after: Ana is past her deadline and silent for 35+ days; Bob on leave.
    let at = "2099-07-05 12:00";
    let report = ok(&dopis(d, db, &["report", "deadlines", "--at", at]));
    assert!(report.contains("Past the deadline (1):"), "{report}");
    assert!(report.contains(&format!("#{id}")), "{report}");
    assert!(
        report.contains("Ana <ana@players.test> to move against Bob (10/50d)"),
        "{report}"
    );
    assert!(
        report.contains("Bob <bob@players.test>: 2099-07-01 to 2099-07-10 (now)"),
        "{report}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["report", "deadlines", "--at", at, "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["games"][0]["urgency"], "overdue");
    assert_eq!(json["games"][0]["player"], "Ana");
    assert_eq!(json["leave"][0]["now"], true);
    let csv = ok(&dopis(
        d,
        db,
        &["report", "deadlines", "--at", at, "--format", "csv"],
    ));
    assert!(csv.starts_with("section,game,player"), "{csv}");
    assert!(
        csv.contains(&format!("overdue,{id},Ana,ana@players.test,Bob,10/50d,")),
        "{csv}"
    );
    // Right after the start nothing is due within 3 days; within 60 it is.
    let now = ok(&dopis(d, db, &["report", "deadlines", "--format", "json"]));
    let now: serde_json::Value = serde_json::from_str(&now).unwrap();
    assert_eq!(now["games"].as_array().map(Vec::len), Some(0), "{now}");
    let soon: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["report", "deadlines", "--within", "60d", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(soon["games"][0]["urgency"], "due_soon");
    let err = fails(&dopis(
        d,
        db,
        &["report", "deadlines", "--at", "next tuesday"],
    ));
    assert!(err.contains("is not a time: write 2026-12-24"), "{err}");
}

crate::on_both_backends!(
    leave_is_booked_listed_refused_and_cancelled_from_the_command_line,
    the_deadline_report_lists_late_games_silence_and_leave_as_text_and_json,
);
