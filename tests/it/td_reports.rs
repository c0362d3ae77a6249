//! The TD deadline report by mail, on both backends: mailed once a day to
//! each TD of each event with games in progress, on request to a TD who
//! replies `report` to the report address, and explained (not sent) to a
//! TD who writes without it; `dopis report deadlines --event` keeps to the
//! event's games.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use dopis::service::app::{Clock, SystemClock};
use dopis::service::inbox::{Done, Handled};

use crate::support::app::TestApp;
use crate::support::mail::Mail;
use crate::support::{TestDb, dopis, fails, ok};

const SECRET: &str = "td report secret";

/// Two events made by the CLI: "Spring cup" (started, three games in
/// progress) and "Autumn cup" (not started: no games), and one game
/// outside events.
struct Setup {
    dir: tempfile::TempDir,
    app: TestApp,
    /// When the games started (the CLI's real clock).
    started: DateTime<Utc>,
}

/// A mail as the test reads it from the outbox.
#[derive(Debug)]
struct Sent {
    key: String,
    to: String,
    subject: String,
    reply_to: String,
    text: String,
    html: String,
}

impl Setup {
    async fn new(db: &TestDb) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("dopis.toml"),
            format!(
                "[mail]\naddress = \"chess@chess.test\"\nsecret = \"{SECRET}\"\n\n\
                 [mail.maildir]\npath = \"mail\"\n"
            ),
        )
        .unwrap();
        ok(&dopis(d, db, &["init"]));
        let started = SystemClock.now();
        std::fs::write(
            d.join("spring.toml"),
            "name = \"Spring cup\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\", \"second@chess.test\"]\n\
             [[players]]\nemail = \"ana@players.test\"\nname = \"Ana\"\n\
             [[players]]\nemail = \"bor@players.test\"\nname = \"Bor\"\n\
             [[players]]\nemail = \"cene@players.test\"\nname = \"Cene\"\n",
        )
        .unwrap();
        std::fs::write(
            d.join("autumn.toml"),
            "name = \"Autumn cup\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
             [[players]]\nemail = \"dana@players.test\"\nname = \"Dana\"\n\
             [[players]]\nemail = \"eva@players.test\"\nname = \"Eva\"\n\
             [[players]]\nemail = \"fred@players.test\"\nname = \"Fred\"\n",
        )
        .unwrap();
        let spring = ok(&dopis(d, db, &["event", "create", "spring.toml"]));
        assert_eq!(spring.trim(), "1");
        ok(&dopis(d, db, &["event", "start", "1"]));
        assert_eq!(
            ok(&dopis(d, db, &["event", "create", "autumn.toml"])).trim(),
            "2"
        );
        // A game outside events.
        ok(&dopis(
            d,
            db,
            &[
                "game",
                "new",
                "--white",
                "dana@players.test",
                "--black",
                "eva@players.test",
            ],
        ));
        let app = TestApp::builder()
            .at(started)
            .secret(SECRET)
            .answers_per_hour(100)
            .open(db)
            .await;
        let mut setup = Setup { dir, app, started };
        // The games' first mails are not what these tests look at.
        setup.sent().await;
        setup
    }

    /// The mails queued since the last call (each is seen once).
    async fn sent(&mut self) -> Vec<Sent> {
        let mut out: Vec<Sent> = self
            .app
            .sent()
            .await
            .into_iter()
            .map(|m| Sent {
                key: m.key,
                to: m.to,
                subject: m.subject,
                reply_to: m.reply_to.unwrap_or_default(),
                text: m.text,
                html: m.html,
            })
            .collect();
        out.sort_by(|a, b| a.to.cmp(&b.to));
        out
    }

    /// The daily report step at `at`; returns how many events got one.
    async fn daily(&self, at: DateTime<Utc>) -> usize {
        self.app.daily_reports(at).await
    }

    /// A mail from `from` to `to` with `text`, handled at `at`.
    async fn mail(&self, from: &str, to: &str, text: &str, at: DateTime<Utc>) -> Handled {
        let raw = Mail::new(from, to)
            .subject("Re: report")
            .date(Some("Mon, 2 Mar 2026 12:00:00 +0000"))
            .body(text)
            .bytes();
        self.app.deliver_as_at(&raw, at).await
    }
}

/// `day` at `h`:`m` UTC.
fn at(day: NaiveDate, h: u32, m: u32) -> DateTime<Utc> {
    day.and_hms_opt(h, m, 0).unwrap().and_utc()
}

async fn each_td_gets_the_report_once_a_day_only_for_events_in_play(db: &TestDb) {
    let mut s = Setup::new(db).await;
    let day1 = s.started.date_naive() + Duration::days(1);
    let day2 = day1 + Duration::days(1);
    // Only Spring cup has games in progress; both its TDs get the report.
    assert_eq!(s.daily(at(day1, 0, 30)).await, 1);
    let mails = s.sent().await;
    let table: Vec<(&str, &str, &str)> = mails
        .iter()
        .map(|m| (m.to.as_str(), m.key.as_str(), m.subject.as_str()))
        .collect();
    let key = |td: &str| format!("e1.report.{day1}.{td}");
    assert_eq!(
        table,
        vec![
            (
                "second@chess.test",
                key("second@chess.test").as_str(),
                "[dopis] Deadline report: Spring cup"
            ),
            (
                "td@chess.test",
                key("td@chess.test").as_str(),
                "[dopis] Deadline report: Spring cup"
            ),
        ]
    );
    let report = &mails[1];
    // Each TD has a report address of their own.
    assert!(
        report.reply_to.starts_with("chess+r1."),
        "{}",
        report.reply_to
    );
    assert_ne!(report.reply_to, mails[0].reply_to);
    // The three event games are due within three days (White to move in
    // each); the game outside the event is not in its report.
    for game in ["#1 ", "#2 ", "#3 "] {
        assert!(report.text.contains(game), "{game}\n{}", report.text);
    }
    assert!(!report.text.contains("#4 "), "{}", report.text);
    assert!(!report.text.contains("Dana"), "{}", report.text);
    assert!(
        report.html.contains("<table class=\"report\""),
        "{}",
        report.html
    );
    // Later the same day: nothing; the next day: the next report.
    assert_eq!(s.daily(at(day1, 23, 59)).await, 0);
    assert!(s.sent().await.is_empty());
    assert_eq!(s.daily(at(day2, 0, 1)).await, 1);
    let keys: Vec<String> = s.sent().await.into_iter().map(|m| m.key).collect();
    assert_eq!(
        keys,
        vec![
            format!("e1.report.{day2}.second@chess.test"),
            format!("e1.report.{day2}.td@chess.test")
        ]
    );
}

async fn a_td_gets_the_report_by_replying_report_and_only_with_the_token(db: &TestDb) {
    let mut s = Setup::new(db).await;
    let day1 = s.started.date_naive() + Duration::days(1);
    s.daily(at(day1, 6, 0)).await;
    let daily = s.sent().await;
    let own = daily[1].reply_to.clone();
    let other_tds = daily[0].reply_to.clone();
    let t = at(day1, 9, 0);
    // The TD replies "report" to the report mail: the report comes back.
    let done = s.mail("td@chess.test", &own, "report", t).await;
    assert!(matches!(done, Handled::Done(_)), "{done:?}");
    let mails = s.sent().await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0].to, "td@chess.test");
    assert_eq!(mails[0].subject, "[dopis] Deadline report: Spring cup");
    assert!(mails[0].text.contains("#1 "), "{}", mails[0].text);
    // From the TD's address without the token: how to ask, with the token.
    // Without any report address, for every event the TD directs.
    for (to, events) in [
        ("chess@chess.test", vec!["Spring cup", "Autumn cup"]),
        (other_tds.as_str(), vec!["Spring cup"]),
    ] {
        let done = s.mail("TD@chess.test", to, "report", t).await;
        assert!(matches!(done, Handled::Done(_)), "{to}: {done:?}");
        let mut mails = s.sent().await;
        mails.sort_by(|a, b| a.key.cmp(&b.key));
        let subjects: Vec<String> = mails.iter().map(|m| m.subject.clone()).collect();
        let wanted: Vec<String> = events
            .iter()
            .map(|e| format!("[dopis] How to ask for the deadline report of {e}"))
            .collect();
        assert_eq!(subjects, wanted, "{to}");
        assert_eq!(mails[0].reply_to, own, "{to}");
        assert!(
            mails.iter().all(|m| !m.text.contains("#1 ")),
            "{to}: no report"
        );
    }
    // Anyone else writing to a report address is not answered at all.
    for from in ["ana@players.test", "stranger@elsewhere.test"] {
        let done = s.mail(from, &own, "report", t).await;
        assert!(matches!(done, Handled::Ignored(_)), "{from}: {done:?}");
    }
    assert!(s.sent().await.is_empty());
    // A player's "report" without a report address is not a TD's business.
    let done = s
        .mail("ana@players.test", "chess@chess.test", "report", t)
        .await;
    assert!(
        !matches!(
            &done,
            Handled::Done(
                Done::ReportSent { .. } | Done::ToldHowToAsk { .. } | Done::WrongReportToken { .. }
            )
        ),
        "{done:?}"
    );
}

async fn the_cli_report_keeps_to_the_event_asked_for(db: &TestDb) {
    let s = Setup::new(db).await;
    let d = s.dir.path();
    let soon = (s.started + Duration::days(2)).to_rfc3339();
    let all = ok(&dopis(
        d,
        db,
        &["report", "deadlines", "--at", &soon, "--format", "json"],
    ));
    let spring = ok(&dopis(
        d,
        db,
        &[
            "report",
            "deadlines",
            "--at",
            &soon,
            "--event",
            "1",
            "--format",
            "json",
        ],
    ));
    let games = |json: &str| -> Vec<i64> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let mut ids: Vec<i64> = v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["game"].as_i64().unwrap())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(games(&all), vec![1, 2, 3, 4]);
    assert_eq!(games(&spring), vec![1, 2, 3]);
    let autumn = ok(&dopis(
        d,
        db,
        &["report", "deadlines", "--at", &soon, "--event", "2"],
    ));
    assert!(
        autumn.contains("Due by") && !autumn.contains('#'),
        "{autumn}"
    );
    let err = fails(&dopis(d, db, &["report", "deadlines", "--event", "9"]));
    assert!(err.contains("there is no event #9"), "{err}");
}

/// The CLI writes the report while it reads it (memory flat in the number
/// of games); what it writes is byte for byte the report made whole in
/// memory (as text, CSV and JSON), most urgent first with no game twice.
async fn the_report_written_as_it_is_read_is_the_report_made_whole(db: &TestDb) {
    use chrono::TimeZone;
    use dopis::service::report::{
        Format, ReportAsk, SILENCE_DAYS, Urgency, deadlines, seed_for_bench, write_deadlines,
    };
    let store = dopis::service::create_store(&db.url).await.unwrap();
    let seeded = Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0).unwrap();
    seed_for_bench(&store, 600, seeded).await.unwrap();
    // A day later some 3-day games are past their deadline.
    let at = seeded + Duration::days(1);
    let ask = ReportAsk {
        at,
        within: Duration::days(3),
        since: at - Duration::days(7),
        silence_days: SILENCE_DAYS,
    };
    let whole = deadlines(&store, ask).await.unwrap();
    let written = |format| {
        let store = &store;
        async move {
            let mut out = Vec::new();
            let games = write_deadlines(store, ask, None, None, format, &mut out)
                .await
                .unwrap();
            (games, String::from_utf8(out).unwrap())
        }
    };
    let (games, text) = written(Format::Text).await;
    assert_eq!(games, whole.games.len() as u64);
    assert_eq!(text, whole.to_text());
    assert_eq!(written(Format::Csv).await.1, whole.to_csv());
    assert_eq!(
        written(Format::Json).await.1,
        format!("{}\n", serde_json::to_string_pretty(&whole).unwrap())
    );
    // Every section has lines, leave and timeouts too, so all were compared.
    for urgency in [Urgency::Overdue, Urgency::DueSoon, Urgency::Silent] {
        assert!(
            whole.games.iter().any(|g| g.urgency == urgency),
            "{urgency:?}"
        );
    }
    assert!(!whole.leave.is_empty() && !whole.timeouts.is_empty());
    // Most urgent first, each band in its order, no game twice, each in its band.
    let mut seen = std::collections::HashSet::new();
    for pair in whole.games.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let key = |g: &dopis::service::report::GameLine| match g.urgency {
            Urgency::Silent => (g.urgency, g.waiting_since, g.game),
            _ => (g.urgency, g.deadline, g.game),
        };
        assert!(key(a) < key(b), "{a:?} before {b:?}");
    }
    for g in &whole.games {
        assert!(seen.insert(g.game), "game {} twice", g.game);
        let deadline = g.deadline.expect("seeded games have deadlines");
        match g.urgency {
            Urgency::Overdue => assert!(deadline <= at),
            Urgency::DueSoon => assert!(deadline > at && deadline <= at + ask.within),
            Urgency::Silent => {
                assert!(deadline > at + ask.within);
                assert!(g.silent_days >= 14);
            }
        }
    }
    store.close().await;
}

crate::on_both_backends!(
    the_report_written_as_it_is_read_is_the_report_made_whole,
    each_td_gets_the_report_once_a_day_only_for_events_in_play,
    a_td_gets_the_report_by_replying_report_and_only_with_the_token,
    the_cli_report_keeps_to_the_event_asked_for,
);
