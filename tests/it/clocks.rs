//! Time in the real daemon, under a controlled clock: the scheduler step of
//! `dopis serve` ([`Daemon::schedule`]) and inbound handling
//! ([`Inbox::handle`]) with explicit arrival times, on both backends.
//! Reminders before the deadline, a `3d` game that times out by itself with
//! mails to both, leave that pauses it, and an ICCF `10/50d` game lost on
//! cumulative time.

use chrono::{DateTime, Duration, TimeZone, Utc};

use dopis::adapter::store::games::GameStatus;
use dopis::domain::address::EmailAddress;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{Done, Handled};

use crate::support::TestDb;
use crate::support::app::TestApp;

/// A game between two players in a daemon whose clock the test moves.
struct World {
    app: TestApp,
    white: Player,
    black: Player,
    game: GameId,
    mails: usize,
}

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap()
}

/// The app these tests share: its clock at [`start`].
async fn app(db: &TestDb) -> TestApp {
    TestApp::builder()
        .at(start())
        .secret("a test secret")
        .answers_per_hour(100)
        .open(db)
        .await
}

impl World {
    async fn new(db: &TestDb, control: &str) -> World {
        let app = app(db).await;
        let white = app
            .player(
                "ana@players.test",
                "Ana",
                Lang::En,
                Some("Europe/Ljubljana"),
            )
            .await;
        let black = app
            .player(
                "bob@players.test",
                "Bob",
                Lang::En,
                Some("America/New_York"),
            )
            .await;
        let control: TimeControl = control.parse().unwrap();
        let game = app.game(&white, &black, control).await;
        let mut world = World {
            app,
            white,
            black,
            game,
            mails: 0,
        };
        world.new_mails().await;
        world
    }

    /// Sets the clock and runs the scheduler as a daemon pass would.
    async fn at(&self, t: DateTime<Utc>) -> usize {
        self.app.set(t);
        self.app.schedule().await
    }

    /// A player's mail with `text`, reaching the mailbox at `arrived`,
    /// handled at the clock's time.
    async fn mail(&self, from: &Player, text: &str, arrived: DateTime<Utc>) -> Handled {
        let reply = self.app.reply_address(self.game, from);
        self.mail_to(from, &reply, text, arrived).await
    }

    /// The same, to the address `to`.
    async fn mail_to(
        &self,
        from: &Player,
        to: &str,
        text: &str,
        arrived: DateTime<Utc>,
    ) -> Handled {
        let raw = format!(
            "From: {} <{}>\r\nTo: {to}\r\nSubject: Re: [dopis #{}]\r\nMessage-ID: <{}.{}@players.test>\r\n\
             Date: Mon, 2 Mar 2026 12:00:00 +0000\r\n\r\n{text}\r\n",
            from.name,
            from.email,
            self.game.0,
            arrived.timestamp(),
            rand::random::<u32>()
        );
        self.app.deliver_at(raw.as_bytes(), arrived).await
    }

    /// The mails queued since the last call: (recipient, key).
    async fn new_mails(&mut self) -> Vec<(String, String)> {
        let all = self.app.outbox_rows().await;
        let fresh = all[self.mails..]
            .iter()
            .map(|m| (m.recipient.clone(), m.mail_key.clone()))
            .collect();
        self.mails = all.len();
        fresh
    }

    async fn ending(&self) -> (GameStatus, Option<String>, Option<String>) {
        let g = self.app.game_row(self.game).await;
        (g.status, g.result, g.end_reason)
    }
}

fn keys(mails: &[(String, String)]) -> Vec<String> {
    mails
        .iter()
        .map(|(to, key)| {
            format!(
                "{to} {}",
                key.split_once('.').map_or(key.as_str(), |(_, k)| k)
            )
        })
        .collect()
}

async fn a_3d_game_reminds_then_times_out_by_itself_with_mails_to_both(db: &TestDb) {
    let mut w = World::new(db, "3d").await;
    let h = Duration::hours;
    // Nothing is due before the 24 h reminder.
    w.at(start() + h(47)).await;
    assert_eq!(w.new_mails().await, vec![]);
    w.at(start() + h(48)).await;
    assert_eq!(
        keys(&w.new_mails().await),
        vec!["ana@players.test due.reminder/ply1/24h/20260305T120000Z"]
    );
    // Each reminder is sent once, however often the scheduler runs.
    w.at(start() + h(60)).await;
    assert_eq!(w.new_mails().await, vec![]);
    assert_eq!(w.ending().await.0, GameStatus::Active);
    // At the deadline the game ends by itself: a loss on time.
    w.at(start() + h(72)).await;
    assert_eq!(
        keys(&w.new_mails().await),
        vec!["ana@players.test over.white", "bob@players.test over.black"]
    );
    let (status, result, reason) = w.ending().await;
    assert_eq!(status, GameStatus::Finished);
    assert_eq!(result.as_deref(), Some("0-1"));
    assert!(reason.unwrap_or_default().contains("time"));
    let g = w.app.game_row(w.game).await;
    assert_eq!(g.finished_at, Some(start() + h(72)));
    // A finished game is never due again.
    w.at(start() + h(200)).await;
    assert_eq!(w.new_mails().await, vec![]);
}

async fn a_move_that_reached_the_mailbox_in_time_counts_even_if_handled_late(db: &TestDb) {
    let mut w = World::new(db, "3d").await;
    let h = Duration::hours;
    // The daemon was down: the move arrived at 71 h, is read at 80 h.
    w.app.advance(h(80));
    let done = w.mail(&w.white.clone(), "e4", start() + h(71)).await;
    assert!(
        matches!(&done, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("e4")),
        "{done:?}"
    );
    w.at(start() + h(80)).await;
    assert_eq!(w.ending().await.0, GameStatus::Active);
    // A move that arrived after the deadline loses on time instead.
    let late_db = crate::support::sqlite();
    let late = World::new(&late_db, "3d").await;
    late.app.advance(h(80));
    let done = late.mail(&late.white.clone(), "e4", start() + h(73)).await;
    assert!(
        matches!(&done, Handled::Done(Done::Ruled(r)) if r.out_of_time.is_some()),
        "{done:?}"
    );
    assert_eq!(late.ending().await.1.as_deref(), Some("0-1"));
    let _ = w.new_mails().await;
}

async fn leave_pauses_the_clock_and_the_opponent_is_told(db: &TestDb) {
    let mut w = World::new(db, "3d").await;
    let h = Duration::hours;
    let (white, black) = (w.white.clone(), w.black.clone());
    w.app.advance(h(1));
    w.mail(&white, "e4", start() + h(1)).await;
    // Bob (New York) books 4-6 March: three days.
    let done = w
        .mail(&black, "leave 2026-03-04 2026-03-06", start() + h(1))
        .await;
    assert!(
        matches!(&done, Handled::Done(Done::Ruled(r)) if !r.leave_booked.is_empty()),
        "{done:?}"
    );
    let mails = keys(&w.new_mails().await);
    assert!(
        mails
            .iter()
            .any(|m| m.starts_with("bob@players.test") && m.ends_with(".leave.2026-03-04")),
        "{mails:?}"
    );
    // Booking leave that starts today is refused with the fix.
    let refused = w
        .mail(&black, "leave 2026-03-02 2026-03-03", start() + h(2))
        .await;
    assert!(
        matches!(&refused, Handled::Done(Done::Ruled(r)) if !r.leave_refused.is_empty()),
        "{refused:?}"
    );
    assert_eq!(w.new_mails().await.len(), 1, "one refusal mail");
    // Leave begins at New York midnight, 05:00 UTC on 4 March: Ana is told.
    w.at(Utc.with_ymd_and_hms(2026, 3, 4, 5, 0, 0).unwrap())
        .await;
    let mails = keys(&w.new_mails().await);
    assert_eq!(
        mails,
        vec!["ana@players.test due.leave/black/20260304T050000Z"],
        "{mails:?}"
    );
    // Without leave Bob would have lost at 5 March 13:00; with three days
    // of leave his deadline is 8 March 13:00 (reminder 24 h before).
    w.at(Utc.with_ymd_and_hms(2026, 3, 6, 12, 0, 0).unwrap())
        .await;
    assert_eq!(w.ending().await.0, GameStatus::Active);
    w.at(Utc.with_ymd_and_hms(2026, 3, 7, 13, 0, 0).unwrap())
        .await;
    assert_eq!(
        keys(&w.new_mails().await),
        vec!["bob@players.test due.reminder/ply2/24h/20260308T130000Z"]
    );
    w.at(Utc.with_ymd_and_hms(2026, 3, 8, 12, 59, 0).unwrap())
        .await;
    assert_eq!(w.ending().await.0, GameStatus::Active);
    w.at(Utc.with_ymd_and_hms(2026, 3, 8, 13, 0, 0).unwrap())
        .await;
    assert_eq!(w.ending().await.1.as_deref(), Some("1-0"));
}

/// The Reply-To of the newest mail queued to `to` (taken from the outbox
/// as a sender would).
async fn reply_to_of_last_mail(app: &TestApp, to: &str) -> String {
    let sent = app.sent().await;
    let last = sent
        .iter()
        .rev()
        .find(|m| m.to == to)
        .unwrap_or_else(|| panic!("no mail to {to}"));
    last.reply_to
        .clone()
        .unwrap_or_else(|| panic!("{} has no Reply-To", last.key))
}

async fn a_leave_mail_read_late_is_judged_on_the_day_it_arrived(db: &TestDb) {
    let mut w = World::new(db, "3d").await;
    let ana = w.white.clone();
    // Ana (Ljubljana, UTC+1) asks on 2 March at 21:00 her time for leave
    // from the next day; the daemon was down and reads it on 3 March at
    // 01:00 her time, when "tomorrow" has begun.
    let asked = Utc.with_ymd_and_hms(2026, 3, 2, 20, 0, 0).unwrap();
    let read = Utc.with_ymd_and_hms(2026, 3, 3, 0, 0, 0).unwrap();
    w.app.advance(read - start());
    let done = w.mail(&ana, "leave 2026-03-03 2026-03-04", asked).await;
    assert!(
        matches!(&done, Handled::Done(Done::Ruled(r)) if r.leave_booked == [(day(2026, 3, 3), day(2026, 3, 4))]),
        "{done:?}"
    );
    let mails = keys(&w.new_mails().await);
    assert!(
        mails
            .iter()
            .any(|m| m.starts_with("ana@players.test") && m.ends_with(".leave.2026-03-03")),
        "{mails:?}"
    );
    // The leave runs from Ljubljana midnight (23:00 UTC on 2 March), before
    // the mail was read: Bob hears of it at once, and Ana's deadline
    // (5 March 12:00 without leave) moves two days.
    w.at(read).await;
    assert_eq!(
        keys(&w.new_mails().await),
        vec!["bob@players.test due.leave/white/20260302T230000Z"]
    );
    w.at(Utc.with_ymd_and_hms(2026, 3, 7, 11, 59, 0).unwrap())
        .await;
    assert_eq!(w.ending().await.0, GameStatus::Active);
    w.at(Utc.with_ymd_and_hms(2026, 3, 7, 12, 0, 0).unwrap())
        .await;
    assert_eq!(w.ending().await.1.as_deref(), Some("0-1"));
}

async fn a_confirmed_leave_is_judged_when_the_confirming_reply_arrived(db: &TestDb) {
    let mut w = World::new(db, "3d").await;
    let ana = w.white.clone();
    // Ana writes without her reply address: she is asked to confirm.
    let asked = Utc.with_ymd_and_hms(2026, 3, 2, 20, 0, 0).unwrap();
    w.app.advance(asked - start());
    let done = w
        .mail_to(
            &ana,
            "chess@chess.test",
            "leave 2026-03-03 2026-03-04",
            asked,
        )
        .await;
    assert!(
        matches!(&done, Handled::Done(Done::AskedToConfirm { .. })),
        "{done:?}"
    );
    let confirm = reply_to_of_last_mail(&w.app, "ana@players.test").await;
    // She confirms at 22:30 her time; the daemon reads it after midnight.
    let confirmed = Utc.with_ymd_and_hms(2026, 3, 2, 21, 30, 0).unwrap();
    w.app
        .advance(Utc.with_ymd_and_hms(2026, 3, 3, 0, 0, 0).unwrap() - asked);
    let done = w.mail_to(&ana, &confirm, "yes", confirmed).await;
    assert!(
        matches!(&done, Handled::Done(Done::Ruled(r)) if r.leave_booked.first().is_some_and(|(from, _)| *from == day(2026, 3, 3))),
        "{done:?}"
    );
    w.new_mails().await;

    // A confirmation that arrives once the first day has begun is too late,
    // though the request came the day before: confirming (or not) after the
    // fact must not choose days already past.
    let done = w
        .mail_to(
            &ana,
            "chess@chess.test",
            "leave 2026-03-06 2026-03-06",
            asked,
        )
        .await;
    assert!(
        matches!(&done, Handled::Done(Done::AskedToConfirm { .. })),
        "{done:?}"
    );
    let confirm = reply_to_of_last_mail(&w.app, "ana@players.test").await;
    let late = Utc.with_ymd_and_hms(2026, 3, 5, 23, 30, 0).unwrap();
    w.app.advance(late - w.app.now());
    let done = w.mail_to(&ana, &confirm, "yes", late).await;
    assert!(
        matches!(&done, Handled::Done(Done::Ruled(r)) if r.leave_refused.first().is_some_and(|(from, _)| *from == day(2026, 3, 6))),
        "{done:?}"
    );
}

async fn an_iccf_10_in_50_days_game_is_lost_on_cumulative_time(db: &TestDb) {
    let mut w = World::new(db, "10/50d").await;
    let d = Duration::days;
    let (white, black) = (w.white.clone(), w.black.clone());
    // White thinks 45 days on move 1 (45 charged), Black answers at once.
    let t1 = start() + d(45);
    w.app.advance(d(45));
    w.mail(&white, "e4", t1).await;
    w.mail(&black, "e5", t1 + Duration::hours(1)).await;
    // White has 5 days left of the first 50: late once 6 whole days have run.
    let flag = t1 + Duration::hours(1) + d(6);
    w.at(flag - Duration::minutes(1)).await;
    assert_eq!(w.ending().await.0, GameStatus::Active);
    w.at(flag).await;
    let (status, result, _) = w.ending().await;
    assert_eq!(
        (status, result.as_deref()),
        (GameStatus::Finished, Some("0-1"))
    );
    let mails = keys(&w.new_mails().await);
    assert!(
        mails.contains(&"ana@players.test over.white".to_string()),
        "{mails:?}"
    );
}

crate::on_both_backends!(
    a_3d_game_reminds_then_times_out_by_itself_with_mails_to_both,
    a_move_that_reached_the_mailbox_in_time_counts_even_if_handled_late,
    leave_pauses_the_clock_and_the_opponent_is_told,
    a_leave_mail_read_late_is_judged_on_the_day_it_arrived,
    a_confirmed_leave_is_judged_when_the_confirming_reply_arrived,
    an_iccf_10_in_50_days_game_is_lost_on_cumulative_time,
    a_timeout_in_an_event_game_is_mailed_to_the_event_tds,
    a_td_extension_moves_the_deadline_of_the_side_to_move,
);

async fn a_timeout_in_an_event_game_is_mailed_to_the_event_tds(db: &TestDb) {
    let app = app(db).await;
    let event_file = r#"
name = "Club cup"
kind = "round-robin"
time_control = "3d"
tds = ["td@clubs.test"]

[[players]]
email = "ana@players.test"
name = "Ana"

[[players]]
email = "bob@players.test"
name = "Bob"

[[players]]
email = "cene@players.test"
name = "Cene"
"#;
    let (_, games) = app.event(event_file).await;
    assert_eq!(
        games.len(),
        3,
        "three players, a bye each round: three games"
    );
    let before = app.outbox_rows().await.len();
    // Nobody moves: three days later every game is lost on time by White.
    app.advance(Duration::hours(72));
    app.schedule().await;
    let mails = app.outbox_rows().await;
    let to_td: Vec<_> = mails[before..]
        .iter()
        .filter(|m| m.recipient == "td@clubs.test")
        .map(|m| m.mail_key.clone())
        .collect();
    assert_eq!(to_td.len(), 3, "the TD hears of each timeout: {to_td:?}");
    for id in games {
        let g = app.game_row(id).await;
        assert_eq!(g.result.as_deref(), Some("0-1"));
    }
}

async fn a_td_extension_moves_the_deadline_of_the_side_to_move(db: &TestDb) {
    let mut w = World::new(db, "3d").await;
    let h = Duration::hours;
    let td = EmailAddress::parse("td@clubs.test").unwrap();
    let mut tx = w.app.store.begin().await.unwrap();
    dopis::service::td::extend(
        &mut tx,
        w.app.post(),
        w.game,
        2,
        None,
        "illness",
        &td,
        start() + h(1),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    w.new_mails().await;
    // Without the extension White would lose at 72 h; with it, at 120 h.
    w.at(start() + h(100)).await;
    assert_eq!(w.ending().await.0, GameStatus::Active);
    w.at(start() + h(121)).await;
    let (status, result, _) = w.ending().await;
    assert_eq!(
        (status, result.as_deref()),
        (GameStatus::Finished, Some("0-1"))
    );
}

/// A calendar day.
fn day(year: i32, month: u32, day: u32) -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(year, month, day).expect("a day")
}
