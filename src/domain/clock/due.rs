//! The scheduler's pure step: what is due in a game at an instant.
//!
//! The daemon calls [`GameClock::due`] with the keys of what it already did
//! for the game and acts on each [`Due`] it gets back, recording its
//! [`DueKey`] in the same transaction as the mails it causes. Keys are built
//! from the game's data only (the half-move awaited, the deadline), so two
//! daemons, or one that restarts, agree on them and nothing is sent twice.
//!
//! A daemon that was down catches up with one mail, not a burst: of the
//! reminders whose time has passed only the latest one is due, and likewise
//! for silence reminders; a deadline that has passed makes only the timeout
//! due.

use crate::domain::chess::side;
use std::fmt;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use shakmaty::Color;

use super::timeline::GameClock;

/// When reminders go out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReminderPlan {
    /// Remind the player to move this long before their deadline.
    pub before: Vec<TimeDelta>,
    /// Remind a player who has not moved for this many days of clock time
    /// (ICCF: 14, 28 and 35).
    pub silence_days: Vec<u32>,
}

impl Default for ReminderPlan {
    fn default() -> Self {
        ReminderPlan {
            before: vec![TimeDelta::hours(24)],
            silence_days: vec![14, 28, 35],
        }
    }
}

/// A reminder list that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read reminder time '{0}': write hours or days, e.g. 72h,24h,6h or 3d")]
pub struct BadReminder(pub String);

/// Reads a list of reminder times such as `72h,24h,6h` or `2d, 90m`.
pub fn parse_reminders(spec: &str) -> Result<Vec<TimeDelta>, BadReminder> {
    spec.split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            let bad = || BadReminder(part.chars().take(20).collect());
            let split = part.len().saturating_sub(1);
            let (number, unit) = (part.get(..split).ok_or_else(bad)?, part.get(split..));
            let n: i64 = number.trim().parse().map_err(|_| bad())?;
            if !(1..=100_000).contains(&n) {
                return Err(bad());
            }
            match unit {
                Some("m") => Ok(TimeDelta::minutes(n)),
                Some("h") => Ok(TimeDelta::hours(n)),
                Some("d") => Ok(TimeDelta::days(n)),
                _ => Err(bad()),
            }
        })
        .collect()
}

/// Something the scheduler must do for a game now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Due {
    /// Tell the player to move that their deadline is near.
    Reminder {
        /// The player to move.
        #[serde(serialize_with = "color_name")]
        side: Color,
        /// The half-move awaited, from 1.
        ply: usize,
        /// How long before the deadline this reminder is.
        #[serde(serialize_with = "minutes")]
        before: TimeDelta,
        /// The deadline.
        deadline: DateTime<Utc>,
    },
    /// Tell the player to move (and the TD) that they have been silent long.
    Silence {
        /// The player to move.
        #[serde(serialize_with = "color_name")]
        side: Color,
        /// The half-move awaited, from 1.
        ply: usize,
        /// Days of clock time without a move.
        days: u32,
        /// When their clock started on this move.
        since: DateTime<Utc>,
    },
    /// A player's leave has begun: tell the opponent (ICCF does).
    LeaveBegins {
        /// The player on leave.
        #[serde(serialize_with = "color_name")]
        side: Color,
        /// When the leave began.
        from: DateTime<Utc>,
        /// When it ends (the first instant the clock runs again).
        until: DateTime<Utc>,
    },
    /// The player ran out of time: end the game.
    Timeout {
        /// The player whose time ran out.
        #[serde(serialize_with = "color_name")]
        side: Color,
        /// The instant it ran out.
        at: DateTime<Utc>,
    },
}

fn color_name<S: serde::Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(side::key(*color))
}

fn minutes<S: serde::Serializer>(d: &TimeDelta, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_i64(d.num_minutes())
}

/// What a [`Due`] is remembered by once done: unique within a game.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct DueKey(String);

impl DueKey {
    /// A key as stored by the daemon.
    pub fn new(key: impl Into<String>) -> DueKey {
        DueKey(key.into())
    }

    /// The key's text, for storing.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DueKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn span_text(d: TimeDelta) -> String {
    let minutes = d.num_minutes();
    if minutes % 60 == 0 {
        format!("{}h", minutes / 60)
    } else {
        format!("{minutes}m")
    }
}

impl Due {
    /// The key to record once this is done.
    ///
    /// A reminder's key holds its deadline: when leave moves the deadline,
    /// the player is reminded again before the new one.
    pub fn key(&self) -> DueKey {
        DueKey(match self {
            Due::Reminder {
                ply,
                before,
                deadline,
                ..
            } => format!(
                "reminder/ply{ply}/{}/{}",
                span_text(*before),
                deadline.format("%Y%m%dT%H%M%SZ")
            ),
            Due::Silence { ply, days, .. } => format!("silence/ply{ply}/{days}d"),
            Due::LeaveBegins { side, from, .. } => format!(
                "leave/{}/{}",
                side::key(*side),
                from.format("%Y%m%dT%H%M%SZ")
            ),
            Due::Timeout { .. } => "timeout".to_string(),
        })
    }
}

impl GameClock {
    /// What is due at `now`, leaving out what `done` already holds.
    pub fn due(&self, plan: &ReminderPlan, done: &[DueKey], now: DateTime<Utc>) -> Vec<Due> {
        let clocks = self.clocks(now);
        let fresh = |due: Due| (!done.contains(&due.key())).then_some(due);
        if let Some((side, at)) = clocks.timeout() {
            return fresh(Due::Timeout { side, at }).into_iter().collect();
        }
        // Leave under way, of either player, once per leave.
        let leave = [Color::White, Color::Black].map(|side| {
            let (from, until) = self.pauses.get(side).current(now)?;
            Some(Due::LeaveBegins { side, from, until })
        });
        let side = clocks.to_move;
        let Some(deadline) = clocks.players.get(side).next_deadline else {
            return leave.into_iter().flatten().filter_map(fresh).collect();
        };
        let ply = self.timeline.moves.len() + 1;
        let since = self.timeline.clock_start(ply - 1);

        // The latest reminder whose time has come; one that would fall at or
        // before the start of the clock says nothing the move mail didn't.
        let reminder = plan
            .before
            .iter()
            .filter(|before| **before > TimeDelta::zero())
            .filter_map(|before| {
                let fires = deadline.checked_sub_signed(*before)?;
                (since < fires && fires <= now).then_some((fires, *before))
            })
            .max_by_key(|(fires, _)| *fires)
            .map(|(_, before)| Due::Reminder {
                side,
                ply,
                before,
                deadline,
            });

        // Silence is clock time: days on leave are not silence.
        let pauses = self.pauses.get(side);
        let silence = plan
            .silence_days
            .iter()
            .filter(|days| {
                let span = TimeDelta::try_days(i64::from(**days)).unwrap_or(TimeDelta::MAX);
                **days > 0 && pauses.advance(since, span) <= now
            })
            .max()
            .map(|&days| Due::Silence {
                side,
                ply,
                days,
                since,
            });

        leave
            .into_iter()
            .chain([reminder, silence])
            .flatten()
            .filter_map(fresh)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::leave::{Leave, Pauses};
    use crate::domain::clock::timeline::Timeline;
    use chrono::NaiveDateTime;

    fn at(text: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
            .unwrap()
            .and_utc()
    }

    fn plan(before: &str) -> ReminderPlan {
        ReminderPlan {
            before: parse_reminders(before).unwrap(),
            ..ReminderPlan::default()
        }
    }

    /// Runs the scheduler every `step` from `from` to `to` as the daemon
    /// would, recording each key after those in `done`; returns what it did, with the instant.
    fn run(
        clock: &GameClock,
        plan: &ReminderPlan,
        mut done: Vec<DueKey>,
        from: &str,
        to: &str,
        step: TimeDelta,
    ) -> Vec<(DateTime<Utc>, String)> {
        let mut did = Vec::new();
        let mut now = at(from);
        while now <= at(to) {
            for due in clock.due(plan, &done, now) {
                did.push((now, due.key().to_string()));
                done.push(due.key());
            }
            now += step;
        }
        did
    }

    fn expect(list: &[(&str, &str)]) -> Vec<(DateTime<Utc>, String)> {
        list.iter().map(|(t, k)| (at(t), k.to_string())).collect()
    }

    #[test]
    fn reminder_lists_read_hours_days_and_minutes() {
        let h = TimeDelta::hours;
        for (spec, expected) in [
            ("24h", Ok(vec![h(24)])),
            ("72h,24h,6h", Ok(vec![h(72), h(24), h(6)])),
            (" 2d , 90m ", Ok(vec![h(48), TimeDelta::minutes(90)])),
            ("", Ok(vec![])),
            ("24", Err(BadReminder("24".into()))),
            ("0h", Err(BadReminder("0h".into()))),
            ("-5h", Err(BadReminder("-5h".into()))),
            ("ž", Err(BadReminder("ž".into()))),
            (
                "99999999999999d",
                Err(BadReminder("99999999999999d".into())),
            ),
        ] {
            assert_eq!(parse_reminders(spec), expected, "{spec}");
        }
    }

    #[test]
    fn a_three_day_game_gets_one_reminder_then_times_out_once() {
        // 3d from 1 Mar 2026 12:00; White never moves. Deadline 4 Mar 12:00;
        // the default reminder 24 h before it, at 3 Mar 12:00. A 72 h reminder
        // would fall on the start itself and is left out.
        let clock = GameClock::new("3d".parse().unwrap(), Timeline::new(at("2026-03-01 12:00")));
        let did = run(
            &clock,
            &plan("72h,24h"),
            Vec::new(),
            "2026-03-01 12:00",
            "2026-03-06 12:00",
            TimeDelta::minutes(30),
        );
        assert_eq!(
            did,
            expect(&[
                ("2026-03-03 12:00", "reminder/ply1/24h/20260304T120000Z"),
                ("2026-03-04 12:00", "timeout"),
            ])
        );
        let due = clock.due(&ReminderPlan::default(), &[], at("2026-03-05 00:00"));
        assert_eq!(
            due,
            [Due::Timeout {
                side: Color::White,
                at: at("2026-03-04 12:00")
            }]
        );
    }

    #[test]
    fn each_reminder_and_silence_notice_comes_once_per_move() {
        // 10/50d from 1 Jan 2026 00:00; White's move 1 is due before 21 Feb
        // 00:00 (51 days). Reminders 72h, 24h, 6h; silence after 14, 28, 35 days.
        let mut timeline = Timeline::new(at("2026-01-01 00:00"));
        let clock = GameClock::new("10/50d".parse().unwrap(), timeline.clone());
        let did = run(
            &clock,
            &plan("72h,24h,6h"),
            Vec::new(),
            "2026-01-01 00:00",
            "2026-02-22 00:00",
            TimeDelta::hours(1),
        );
        assert_eq!(
            did,
            expect(&[
                ("2026-01-15 00:00", "silence/ply1/14d"),
                ("2026-01-29 00:00", "silence/ply1/28d"),
                ("2026-02-05 00:00", "silence/ply1/35d"),
                ("2026-02-18 00:00", "reminder/ply1/72h/20260221T000000Z"),
                ("2026-02-20 00:00", "reminder/ply1/24h/20260221T000000Z"),
                ("2026-02-20 18:00", "reminder/ply1/6h/20260221T000000Z"),
                ("2026-02-21 00:00", "timeout"),
            ])
        );
        // White moves on 20 Jan; Black's clock starts then and its own
        // silence notice comes 14 days later, under a new key.
        timeline = timeline.with_move(at("2026-01-20 00:00"), None);
        let clock = GameClock::new("10/50d".parse().unwrap(), timeline);
        let did = run(
            &clock,
            &plan("24h"),
            Vec::new(),
            "2026-01-20 00:00",
            "2026-02-04 00:00",
            TimeDelta::hours(1),
        );
        assert_eq!(did, expect(&[("2026-02-03 00:00", "silence/ply2/14d")]));
    }

    #[test]
    fn a_daemon_that_was_down_catches_up_with_the_latest_notice_only() {
        // Same 10/50d game; the daemon wakes on 20 Feb 20:00 having done
        // nothing: of 14/28/35 days only the 35-day notice, of 72h/24h/6h
        // reminders only the 6 h one (due 20 Feb 18:00).
        let clock = GameClock::new(
            "10/50d".parse().unwrap(),
            Timeline::new(at("2026-01-01 00:00")),
        );
        let due = clock.due(&plan("72h,24h,6h"), &[], at("2026-02-20 20:00"));
        let deadline = at("2026-02-21 00:00");
        assert_eq!(
            due,
            [
                Due::Reminder {
                    side: Color::White,
                    ply: 1,
                    before: TimeDelta::hours(6),
                    deadline
                },
                Due::Silence {
                    side: Color::White,
                    ply: 1,
                    days: 35,
                    since: at("2026-01-01 00:00")
                },
            ]
        );
    }

    #[test]
    fn leave_moves_the_deadline_and_brings_a_new_reminder() {
        // 3d from 1 Dec 2026 12:00 UTC: reminder 3 Dec 12:00 for 4 Dec 12:00.
        // On 3 Dec the player (UTC) books leave for 4..=5 December: the clock
        // stops from 4 Dec 00:00 for 48 h, so the deadline becomes 6 Dec 12:00
        // and a fresh reminder is due 24 h (of wall time) before it, 5 Dec 12:00.
        let mut clock =
            GameClock::new("3d".parse().unwrap(), Timeline::new(at("2026-12-01 12:00")));
        let mut done = Vec::new();
        for due in clock.due(&ReminderPlan::default(), &done, at("2026-12-03 12:00")) {
            done.push(due.key());
        }
        assert_eq!(done, [DueKey::new("reminder/ply1/24h/20261204T120000Z")]);
        let leave =
            Leave::new("2026-12-04".parse().unwrap(), "2026-12-05".parse().unwrap()).unwrap();
        clock.pauses.white = Pauses::from_leave(&[leave], None);
        let did = run(
            &clock,
            &ReminderPlan::default(),
            done,
            "2026-12-03 12:00",
            "2026-12-07 00:00",
            TimeDelta::hours(1),
        );
        assert_eq!(
            did,
            expect(&[
                // Black is told when White's leave begins, once.
                ("2026-12-04 00:00", "leave/white/20261204T000000Z"),
                ("2026-12-05 12:00", "reminder/ply1/24h/20261206T120000Z"),
                ("2026-12-06 12:00", "timeout"),
            ])
        );
    }

    #[test]
    fn a_move_that_came_after_the_deadline_is_a_timeout_at_the_deadline() {
        // The daemon slept through White's deadline (4 Mar 12:00); the move
        // mail arrived at 13:00. The game was lost at 12:00.
        let timeline =
            Timeline::new(at("2026-03-01 12:00")).with_move(at("2026-03-04 13:00"), None);
        let clock = GameClock::new("3d".parse().unwrap(), timeline);
        let due = clock.due(&ReminderPlan::default(), &[], at("2026-03-04 14:00"));
        assert_eq!(
            due,
            [Due::Timeout {
                side: Color::White,
                at: at("2026-03-04 12:00")
            }]
        );
        assert_eq!(
            clock.due(
                &ReminderPlan::default(),
                &[DueKey::new("timeout")],
                at("2026-03-04 14:00")
            ),
            []
        );
    }
}
