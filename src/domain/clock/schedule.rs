//! When a game next needs the scheduler, as one instant to store.
//!
//! The daemon keeps this instant in the game's row and selects only the
//! games whose instant has come, so a scheduler pass costs what is due, not
//! the number of games. The instant is the earliest *future* moment at which
//! [`GameClock::due`] could return something new: the deadline (timeout), a
//! reminder before it, a silence reminder, or the start of either player's
//! leave. What is due at or before `now` has been done by the time this is
//! asked (or was superseded: a catching-up scheduler sends only the latest
//! reminder), so only later instants count.

use chrono::{DateTime, TimeDelta, Utc};
use shakmaty::Color;

use super::due::ReminderPlan;
use super::timeline::GameClock;

/// What the store keeps of a game's clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The next instant the scheduler must look at the game; `None` when
    /// nothing can ever become due (no deadline and no leave ahead).
    pub next_due_at: Option<DateTime<Utc>>,
    /// The side to move.
    pub to_move: Color,
    /// Its deadline; `None` once it has flagged.
    pub deadline: Option<DateTime<Utc>>,
    /// When its clock started on the move it owes (for silence reports).
    pub waiting_since: DateTime<Utc>,
}

impl GameClock {
    /// The schedule of this game as of `now`.
    pub fn schedule(&self, plan: &ReminderPlan, now: DateTime<Utc>) -> Schedule {
        let clocks = self.clocks(now);
        let to_move = clocks.to_move;
        let waiting_since = self.timeline.clock_start(self.timeline.moves.len());
        let deadline = clocks.players.get(to_move).next_deadline;
        if let Some((_, at)) = clocks.timeout() {
            // Out of time: due at once (the instant it ran out is in the past).
            return Schedule {
                next_due_at: Some(at),
                to_move,
                deadline: None,
                waiting_since,
            };
        }
        let pauses = self.pauses.get(to_move);
        let reminders = deadline.into_iter().flat_map(|d| {
            plan.before
                .iter()
                .filter_map(move |before| d.checked_sub_signed(*before))
        });
        let silences = plan.silence_days.iter().filter(|d| **d > 0).map(|days| {
            let span = TimeDelta::try_days(i64::from(*days)).unwrap_or(TimeDelta::MAX);
            pauses.advance(waiting_since, span)
        });
        let leave_starts = [Color::White, Color::Black].into_iter().flat_map(|side| {
            self.pauses
                .get(side)
                .spans()
                .iter()
                .map(|(start, _)| *start)
        });
        let next_due_at = deadline
            .into_iter()
            .chain(reminders)
            .chain(silences)
            .chain(leave_starts)
            .filter(|at| *at > now)
            .min();
        Schedule {
            next_due_at,
            to_move,
            deadline,
            waiting_since,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::due::{DueKey, parse_reminders};
    use crate::domain::clock::leave::{Leave, Pauses};
    use crate::domain::clock::timeline::Timeline;
    use chrono::{NaiveDate, NaiveDateTime};

    fn at(text: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
            .unwrap()
            .and_utc()
    }

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn the_next_due_instant_is_the_earliest_future_reminder_silence_leave_or_deadline() {
        let plan = ReminderPlan {
            before: parse_reminders("24h,6h").unwrap(),
            silence_days: vec![14, 28, 35],
        };
        let game = |control: &str| {
            GameClock::new(
                control.parse().unwrap(),
                Timeline::new(at("2026-03-01 12:00")),
            )
        };
        let mut on_leave = game("3d");
        on_leave.pauses.black = Pauses::from_leave(
            &[Leave::new(day("2026-03-02"), day("2026-03-05")).unwrap()],
            None,
        );
        let mut white_leave = game("3d");
        white_leave.pauses.white = Pauses::from_leave(
            &[Leave::new(day("2026-03-02"), day("2026-03-02")).unwrap()],
            None,
        );
        for (clock, now, next, deadline) in [
            // 3d from 1 March 12:00: reminders at 3 March 12:00 and 4 March 06:00.
            (
                game("3d"),
                "2026-03-01 12:00",
                Some("2026-03-03 12:00"),
                Some("2026-03-04 12:00"),
            ),
            (
                game("3d"),
                "2026-03-03 12:00",
                Some("2026-03-04 06:00"),
                Some("2026-03-04 12:00"),
            ),
            (
                game("3d"),
                "2026-03-04 06:00",
                Some("2026-03-04 12:00"),
                Some("2026-03-04 12:00"),
            ),
            // The opponent's leave starts before White's first reminder.
            (
                on_leave,
                "2026-03-01 12:00",
                Some("2026-03-02 00:00"),
                Some("2026-03-04 12:00"),
            ),
            // White's own leave pushes the deadline a day, and starts first.
            (
                white_leave,
                "2026-03-01 12:00",
                Some("2026-03-02 00:00"),
                Some("2026-03-05 12:00"),
            ),
            // 10/50d: 51 days to the deadline; the 14-day silence comes first.
            (
                game("10/50d"),
                "2026-03-01 12:00",
                Some("2026-03-15 12:00"),
                Some("2026-04-21 12:00"),
            ),
            // Flagged: due at once, no deadline left.
            (
                game("3d"),
                "2026-03-05 00:00",
                Some("2026-03-04 12:00"),
                None,
            ),
        ] {
            let schedule = clock.schedule(&plan, at(now));
            assert_eq!(
                schedule.next_due_at,
                next.map(at),
                "{now} {:?}",
                clock.control
            );
            assert_eq!(schedule.deadline, deadline.map(at), "{now}");
            assert_eq!(schedule.to_move, Color::White);
            assert_eq!(schedule.waiting_since, at("2026-03-01 12:00"));
        }
    }

    #[test]
    fn nothing_is_due_before_the_scheduled_instant_and_something_is_due_at_it() {
        // Walk a 3d game with leave hour by hour: whenever due() has work,
        // the schedule computed after the previous step pointed at that hour
        // or earlier; so selecting games by next_due_at never misses work.
        let plan = ReminderPlan::default();
        let mut clock =
            GameClock::new("3d".parse().unwrap(), Timeline::new(at("2026-03-01 12:00")));
        clock.pauses.white = Pauses::from_leave(
            &[Leave::new(day("2026-03-03"), day("2026-03-04")).unwrap()],
            None,
        );
        clock.pauses.black = Pauses::from_leave(
            &[Leave::new(day("2026-03-02"), day("2026-03-02")).unwrap()],
            None,
        );
        let mut done: Vec<DueKey> = Vec::new();
        let mut next = clock.schedule(&plan, at("2026-03-01 12:00")).next_due_at;
        let mut now = at("2026-03-01 12:00");
        let mut seen = 0;
        while now <= at("2026-03-10 00:00") {
            let due = clock.due(&plan, &done, now);
            if !due.is_empty() {
                assert!(
                    next.is_some_and(|n| n <= now),
                    "work at {now} but next was {next:?}"
                );
                seen += due.len();
                done.extend(due.iter().map(|d| d.key()));
                next = clock.schedule(&plan, now).next_due_at;
            }
            now += TimeDelta::hours(1);
        }
        // Two leave notices, one reminder, one timeout.
        assert_eq!(seen, 4, "{done:?}");
    }
}
