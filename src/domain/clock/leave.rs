//! Leave (vacation): booking rules, the yearly allowance, and the pauses that
//! leave puts on a player's clock.
//!
//! Leave is booked in whole calendar days, first and last day included, as
//! ICCF counts it. The days are the player's own calendar days: in the
//! player's time zone when we know it, else in UTC. A player who writes
//! `leave 2026-12-24 2027-01-02` means their own Christmas Eve, so the pause
//! runs from local midnight at the start of the 24th to local midnight at the
//! end of 2 January (a DST day simply pauses 23 or 25 hours).
//!
//! Rules of a booking (see [`book`], [`change`], [`cancel`]):
//! - today and earlier days are fixed: they are already on the clock, and
//!   pausing them after the fact would hand the player time they have spent;
//!   so a new leave starts tomorrow at the earliest, and a leave under way
//!   can only be changed from tomorrow on;
//! - leave of one player never overlaps itself;
//! - regular leave is limited per calendar year ([`Allowance`], ICCF: 45
//!   days, reset on 1 January, unused days lost); a booking across New Year
//!   charges each year for its own days;
//! - special leave granted by a tournament director ([`LeaveKind::Special`])
//!   is not charged to the allowance; the date rules still hold.

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Utc};
use chrono_tz::Tz;
use serde::Serialize;

/// The longest single leave: anything longer is booked in parts, so a typo
/// in a year can't put a player away for a century.
pub const MAX_LEAVE_DAYS: u32 = 366;

/// Whether a leave counts against the yearly allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LeaveKind {
    /// Booked by the player, charged to the allowance.
    Regular,
    /// Granted by a tournament director beyond the allowance.
    Special,
}

/// One leave: whole calendar days `from..=to` in the player's calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Leave {
    from: NaiveDate,
    to: NaiveDate,
    kind: LeaveKind,
}

impl Leave {
    /// A regular leave from `from` to `to`, both days included.
    pub fn new(from: NaiveDate, to: NaiveDate) -> Result<Leave, LeaveError> {
        Leave::of_kind(from, to, LeaveKind::Regular)
    }

    /// Special leave granted by a TD: not charged to the allowance.
    pub fn special(from: NaiveDate, to: NaiveDate) -> Result<Leave, LeaveError> {
        Leave::of_kind(from, to, LeaveKind::Special)
    }

    /// A leave of the given kind, checked: `from <= to`, at most a year long.
    pub fn of_kind(from: NaiveDate, to: NaiveDate, kind: LeaveKind) -> Result<Leave, LeaveError> {
        if to < from {
            return Err(LeaveError::EndsBeforeItStarts { from, to });
        }
        let leave = Leave { from, to, kind };
        if leave.days() > MAX_LEAVE_DAYS {
            return Err(LeaveError::TooLong { days: leave.days() });
        }
        Ok(leave)
    }

    /// The first day of leave.
    pub fn from(&self) -> NaiveDate {
        self.from
    }

    /// The last day of leave.
    pub fn to(&self) -> NaiveDate {
        self.to
    }

    /// Regular or special.
    pub fn kind(&self) -> LeaveKind {
        self.kind
    }

    /// How many calendar days the leave covers.
    pub fn days(&self) -> u32 {
        days_between(self.from, self.to)
    }

    /// How many of its days fall in the calendar year `year`.
    pub fn days_in_year(&self, year: i32) -> u32 {
        let (Some(first), Some(last)) = (
            NaiveDate::from_ymd_opt(year, 1, 1),
            NaiveDate::from_ymd_opt(year, 12, 31),
        ) else {
            return 0;
        };
        let from = self.from.max(first);
        let to = self.to.min(last);
        if to < from { 0 } else { days_between(from, to) }
    }

    /// Whether `day` is a day of this leave.
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.from <= day && day <= self.to
    }

    fn overlaps(&self, other: &Leave) -> bool {
        self.from <= other.to && other.from <= self.to
    }

    /// The days of this leave up to and including `day`, if any.
    fn until(&self, day: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
        (self.from <= day).then(|| (self.from, self.to.min(day)))
    }

    /// The UTC instants the leave runs between: local midnight at the start
    /// of `from` up to (not including) local midnight after `to`.
    pub fn span(&self, tz: Option<Tz>) -> (DateTime<Utc>, DateTime<Utc>) {
        let end = match self.to.succ_opt() {
            Some(next) => start_of_day(next, tz),
            None => DateTime::<Utc>::MAX_UTC,
        };
        (start_of_day(self.from, tz), end)
    }
}

impl fmt::Display for Leave {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from == self.to {
            write!(f, "{}", self.from)?;
        } else {
            write!(f, "{} to {}", self.from, self.to)?;
        }
        if self.kind == LeaveKind::Special {
            f.write_str(" (special)")?;
        }
        Ok(())
    }
}

fn days_between(from: NaiveDate, to: NaiveDate) -> u32 {
    u32::try_from((to - from).num_days() + 1).unwrap_or(0)
}

/// The instant a calendar day begins in `tz` (UTC when unknown). Where
/// midnight does not exist (a DST gap at midnight, as in some American
/// zones) the day begins at the first local time that does; where it
/// exists twice, at the first.
pub fn start_of_day(day: NaiveDate, tz: Option<Tz>) -> DateTime<Utc> {
    let midnight = NaiveDateTime::new(day, NaiveTime::MIN);
    let Some(tz) = tz else {
        return midnight.and_utc();
    };
    // Gaps are at most a few hours; step through them a quarter hour at a time.
    (0..=4 * 24)
        .filter_map(|quarter| midnight.checked_add_signed(TimeDelta::minutes(15 * quarter)))
        .find_map(|local| tz.from_local_datetime(&local).earliest())
        .map_or_else(|| midnight.and_utc(), |t| t.with_timezone(&Utc))
}

/// The calendar day `now` falls on for the player.
pub fn today(now: DateTime<Utc>, tz: Option<Tz>) -> NaiveDate {
    match tz {
        Some(tz) => now.with_timezone(&tz).date_naive(),
        None => now.date_naive(),
    }
}

/// Days of regular leave a player may take per calendar year in one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Allowance(u32);

impl Allowance {
    /// ICCF's allowance: 45 days a year.
    pub const ICCF: Allowance = Allowance(45);

    /// An allowance of `days` per calendar year (events use 0, 10, 30, 45).
    pub fn days(days: u32) -> Allowance {
        Allowance(days)
    }

    /// The days per year.
    pub fn per_year(self) -> u32 {
        self.0
    }
}

impl Default for Allowance {
    fn default() -> Self {
        Allowance::ICCF
    }
}

/// Regular leave days used and left in one calendar year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct YearLeave {
    /// The calendar year.
    pub year: i32,
    /// Regular leave days booked in that year.
    pub used: u32,
    /// Days of the allowance still free in that year.
    pub left: u32,
}

/// A booking that passed every rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Booking {
    /// All the player's leave after the booking, in date order.
    pub leaves: Vec<Leave>,
    /// For each year the new leave touches: days used and left there.
    pub years: Vec<YearLeave>,
}

/// Why a leave cannot be booked, changed or cancelled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LeaveError {
    /// The last day is before the first.
    #[error(
        "the leave would end on {to}, before it starts on {from}: give the first day, \
         then the last, e.g. 'leave {to} {from}'"
    )]
    EndsBeforeItStarts {
        /// First day as given.
        from: NaiveDate,
        /// Last day as given.
        to: NaiveDate,
    },
    /// Longer than [`MAX_LEAVE_DAYS`].
    #[error(
        "this leave is {days} days long; one leave can be at most {MAX_LEAVE_DAYS} days: \
         check the years, or book it in parts"
    )]
    TooLong {
        /// Its length.
        days: u32,
    },
    /// A new or changed leave would touch today or an earlier day.
    #[error(
        "leave can't start on or before today ({today}): those days are already on the clock; \
         the earliest first day is {tomorrow}",
        tomorrow = day_after(*today)
    )]
    NotInFuture {
        /// The player's today.
        today: NaiveDate,
    },
    /// A change would alter days that have begun.
    #[error(
        "the days of leave up to today ({today}) can't be changed any more; only days from \
         {tomorrow} on can be moved, added or dropped",
        tomorrow = day_after(*today)
    )]
    PastIsFixed {
        /// The player's today.
        today: NaiveDate,
    },
    /// The new leave overlaps one already booked.
    #[error("this leave overlaps your leave {other}; change or cancel that booking instead")]
    Overlaps {
        /// The leave already booked.
        other: Leave,
    },
    /// Not enough allowance left in one of the years.
    #[error(
        "you have {left} days of leave left in {year}; this booking needs {needs} \
         (the allowance is {allowance} days a year; shorten the leave, or ask the \
         tournament director for special leave)"
    )]
    OverAllowance {
        /// The calendar year that runs short.
        year: i32,
        /// Days still free in that year.
        left: u32,
        /// Days the booking would take from that year.
        needs: u32,
        /// The yearly allowance.
        allowance: u32,
    },
    /// The leave to change or cancel is not booked.
    #[error("there is no leave {leave} booked to change or cancel")]
    NotBooked {
        /// The leave asked for.
        leave: Leave,
    },
}

fn day_after(day: NaiveDate) -> NaiveDate {
    day.succ_opt().unwrap_or(day)
}

/// Books `new` next to the player's `existing` leave in one event.
///
/// `now` and the player's `tz` say which day is today; `new` must start
/// after it. Regular leave must fit the allowance of every year it touches.
pub fn book(
    existing: &[Leave],
    new: Leave,
    allowance: Allowance,
    now: DateTime<Utc>,
    tz: Option<Tz>,
) -> Result<Booking, LeaveError> {
    let today = today(now, tz);
    if new.from <= today {
        return Err(LeaveError::NotInFuture { today });
    }
    fit(existing.to_vec(), new, allowance)
}

/// Replaces the booked leave `old` with `new`: the days up to today must stay
/// as they were (a leave under way can be shortened to end today, or
/// lengthened); the rest is checked as a new booking.
pub fn change(
    existing: &[Leave],
    old: Leave,
    new: Leave,
    allowance: Allowance,
    now: DateTime<Utc>,
    tz: Option<Tz>,
) -> Result<Booking, LeaveError> {
    let today = today(now, tz);
    let others = without(existing, old)?;
    if old.until(today) != new.until(today) {
        return Err(LeaveError::PastIsFixed { today });
    }
    fit(others, new, allowance)
}

/// Cancels the booked leave `leave`, which must not have begun.
pub fn cancel(
    existing: &[Leave],
    leave: Leave,
    now: DateTime<Utc>,
    tz: Option<Tz>,
) -> Result<Vec<Leave>, LeaveError> {
    let today = today(now, tz);
    let others = without(existing, leave)?;
    if leave.from <= today {
        return Err(LeaveError::PastIsFixed { today });
    }
    Ok(others)
}

fn without(existing: &[Leave], leave: Leave) -> Result<Vec<Leave>, LeaveError> {
    let Some(at) = existing.iter().position(|l| *l == leave) else {
        return Err(LeaveError::NotBooked { leave });
    };
    let mut others = existing.to_vec();
    others.remove(at);
    Ok(others)
}

/// Checks overlap and allowance of `new` among `others`, and adds it.
fn fit(mut others: Vec<Leave>, new: Leave, allowance: Allowance) -> Result<Booking, LeaveError> {
    if let Some(other) = others.iter().find(|l| l.overlaps(&new)) {
        return Err(LeaveError::Overlaps { other: *other });
    }
    let mut years = Vec::new();
    for year in new.from.year()..=new.to.year() {
        let used_before = regular_days_in_year(&others, year);
        let needs = match new.kind {
            LeaveKind::Regular => new.days_in_year(year),
            LeaveKind::Special => 0,
        };
        let left = allowance.0.saturating_sub(used_before);
        if needs > left {
            return Err(LeaveError::OverAllowance {
                year,
                left,
                needs,
                allowance: allowance.0,
            });
        }
        years.push(YearLeave {
            year,
            used: used_before.saturating_add(needs),
            left: left - needs,
        });
    }
    others.push(new);
    others.sort();
    Ok(Booking {
        leaves: others,
        years,
    })
}

/// Regular leave days booked in the calendar year `year`.
pub fn regular_days_in_year(leaves: &[Leave], year: i32) -> u32 {
    leaves
        .iter()
        .filter(|l| l.kind == LeaveKind::Regular)
        .map(|l| l.days_in_year(year))
        .fold(0, u32::saturating_add)
}

/// The stretches of time a player's clock stands still, as UTC instants:
/// sorted, merged, half-open `[start, end)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pauses {
    spans: Vec<(DateTime<Utc>, DateTime<Utc>)>,
}

impl Pauses {
    /// No leave: the clock never stops.
    pub fn none() -> Pauses {
        Pauses::default()
    }

    /// The pauses of a player's leave, in their calendar (`tz`, else UTC).
    pub fn from_leave(leaves: &[Leave], tz: Option<Tz>) -> Pauses {
        Pauses::from_spans(leaves.iter().map(|l| l.span(tz)).collect())
    }

    /// Pauses from any spans (leave, a TD's deadline extension), merged
    /// where they touch or overlap.
    pub fn from_spans(mut spans: Vec<(DateTime<Utc>, DateTime<Utc>)>) -> Pauses {
        spans.sort();
        let mut merged: Vec<(DateTime<Utc>, DateTime<Utc>)> = Vec::with_capacity(spans.len());
        for (start, end) in spans {
            match merged.last_mut() {
                // Back-to-back leaves are one pause.
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        Pauses { spans: merged }
    }

    /// The pauses as `[start, end)` spans, sorted and merged.
    pub fn spans(&self) -> &[(DateTime<Utc>, DateTime<Utc>)] {
        &self.spans
    }

    /// Whether the clock stands still at `at`.
    pub fn contains(&self, at: DateTime<Utc>) -> bool {
        self.current(at).is_some()
    }

    /// The pause `at` falls in, as `(start, end)`, if any.
    pub fn current(&self, at: DateTime<Utc>) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        self.spans
            .iter()
            .copied()
            .find(|&(start, end)| start <= at && at < end)
    }

    /// The clock time that runs from `from` to `to`: the wall time less
    /// the pauses in between (zero when `to` is not after `from`).
    pub fn running_time(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> TimeDelta {
        if to <= from {
            return TimeDelta::zero();
        }
        let paused: TimeDelta = self
            .spans
            .iter()
            .map(|&(start, end)| {
                let (start, end) = (start.max(from), end.min(to));
                if end > start {
                    end - start
                } else {
                    TimeDelta::zero()
                }
            })
            .sum();
        (to - from) - paused
    }

    /// The first instant at which `budget` of clock time has run since
    /// `from`, the pauses pushing it later.
    pub fn advance(&self, from: DateTime<Utc>, budget: TimeDelta) -> DateTime<Utc> {
        let mut at = from;
        let mut left = budget.max(TimeDelta::zero());
        for &(start, end) in &self.spans {
            if end <= at {
                continue;
            }
            if start > at {
                let running = start - at;
                if running >= left {
                    break;
                }
                left -= running;
            }
            at = end;
        }
        at.checked_add_signed(left)
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Europe::Ljubljana;

    fn day(text: &str) -> NaiveDate {
        text.parse().unwrap()
    }

    fn at(text: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
            .unwrap()
            .and_utc()
    }

    fn leave(from: &str, to: &str) -> Leave {
        Leave::new(day(from), day(to)).unwrap()
    }

    #[test]
    fn leave_counts_whole_calendar_days_per_year() {
        // (from, to, days, days in the first year, days in the second year)
        for (from, to, days, first, second) in [
            ("2026-12-24", "2026-12-24", 1, 1, 0),
            // 24..=31 December is 8 days, 1..=2 January 2 more.
            ("2026-12-24", "2027-01-02", 10, 8, 2),
            // 2028 is a leap year: 28 Feb, 29 Feb, 1 Mar.
            ("2028-02-28", "2028-03-01", 3, 3, 0),
            ("2026-01-01", "2026-12-31", 365, 365, 0),
        ] {
            let l = leave(from, to);
            let year = l.from().year();
            assert_eq!(l.days(), days, "{l}");
            assert_eq!(l.days_in_year(year), first, "{l}");
            assert_eq!(l.days_in_year(year + 1), second, "{l}");
            assert_eq!(l.days_in_year(year - 1), 0, "{l}");
        }
    }

    #[test]
    fn a_leave_must_end_after_it_starts_and_be_at_most_a_year() {
        let err = Leave::new(day("2026-12-24"), day("2026-12-20")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the leave would end on 2026-12-20, before it starts on 2026-12-24: give the \
             first day, then the last, e.g. 'leave 2026-12-20 2026-12-24'"
        );
        // 2026-01-01..=2027-01-01 is 366 days: allowed; one more day is not.
        assert!(Leave::new(day("2026-01-01"), day("2027-01-01")).is_ok());
        let err = Leave::special(day("2026-01-01"), day("2027-01-02")).unwrap_err();
        assert_eq!(err, LeaveError::TooLong { days: 367 });
    }

    #[test]
    fn bookings_follow_the_rules_and_say_what_is_wrong() {
        // Today is Sunday 2026-11-29 (UTC and Ljubljana alike at noon).
        let now = at("2026-11-29 12:00");
        let allowance = Allowance::ICCF;
        let booked = [
            leave("2026-06-01", "2026-06-30"),
            leave("2026-12-10", "2026-12-12"),
        ];
        // 2026 so far: 30 (June) + 3 (December) = 33 days; 45 - 33 = 12 left.
        type Case = (&'static str, Leave, Result<Vec<YearLeave>, &'static str>);
        let cases: [Case; 8] = [
            (
                "12 days fit exactly: 2026-12-13..=24",
                leave("2026-12-13", "2026-12-24"),
                Ok(vec![YearLeave {
                    year: 2026,
                    used: 45,
                    left: 0,
                }]),
            ),
            (
                "15 days do not",
                leave("2026-12-15", "2026-12-29"),
                Err(
                    "you have 12 days of leave left in 2026; this booking needs 15 (the \
                     allowance is 45 days a year; shorten the leave, or ask the tournament \
                     director for special leave)",
                ),
            ),
            (
                // 2026: 27..=31 Dec = 5 (33 + 5 = 38, 7 left); 2027: 1..=10 Jan = 10.
                "across New Year each year pays its own days",
                leave("2026-12-27", "2027-01-10"),
                Ok(vec![
                    YearLeave {
                        year: 2026,
                        used: 38,
                        left: 7,
                    },
                    YearLeave {
                        year: 2027,
                        used: 10,
                        left: 35,
                    },
                ]),
            ),
            (
                // 2026 has 12 left but 2027's fresh 45 can't lend to 2026: 17 > 12.
                "unused days of the new year do not help the old one",
                leave("2026-12-15", "2027-01-02"),
                Err(
                    "you have 12 days of leave left in 2026; this booking needs 17 (the \
                     allowance is 45 days a year; shorten the leave, or ask the tournament \
                     director for special leave)",
                ),
            ),
            (
                "today is already on the clock",
                leave("2026-11-29", "2026-11-30"),
                Err(
                    "leave can't start on or before today (2026-11-29): those days are \
                     already on the clock; the earliest first day is 2026-11-30",
                ),
            ),
            (
                "tomorrow is fine",
                leave("2026-11-30", "2026-11-30"),
                Ok(vec![YearLeave {
                    year: 2026,
                    used: 34,
                    left: 11,
                }]),
            ),
            (
                "overlap with a booked leave",
                leave("2026-12-12", "2026-12-13"),
                Err(
                    "this leave overlaps your leave 2026-12-10 to 2026-12-12; change or \
                     cancel that booking instead",
                ),
            ),
            (
                "special leave from the TD bypasses the allowance",
                Leave::special(day("2026-12-13"), day("2026-12-31")).unwrap(),
                Ok(vec![YearLeave {
                    year: 2026,
                    used: 33,
                    left: 12,
                }]),
            ),
        ];
        for (why, new, expected) in cases {
            let got = book(&booked, new, allowance, now, Some(Ljubljana));
            match (got, expected) {
                (Ok(booking), Ok(years)) => {
                    assert_eq!(booking.years, years, "{why}");
                    assert_eq!(booking.leaves.len(), 3, "{why}");
                    assert!(booking.leaves.is_sorted(), "{why}");
                }
                (Err(err), Err(message)) => assert_eq!(err.to_string(), message, "{why}"),
                (got, expected) => panic!("{why}: got {got:?}, expected {expected:?}"),
            }
        }
    }

    #[test]
    fn the_allowance_resets_on_the_first_of_january() {
        // 45 days used in 2026; on 1 January 2027 the player has 45 again.
        let booked = [leave("2026-02-01", "2026-03-17")];
        assert_eq!(regular_days_in_year(&booked, 2026), 45);
        let now = at("2026-12-30 09:00");
        let next_year = leave("2027-01-01", "2027-02-14");
        let booking = book(&booked, next_year, Allowance::ICCF, now, None).unwrap();
        assert_eq!(
            booking.years,
            [YearLeave {
                year: 2027,
                used: 45,
                left: 0
            }]
        );
        let last_day = leave("2026-12-31", "2026-12-31");
        let err = book(&booked, last_day, Allowance::ICCF, now, None).unwrap_err();
        assert_eq!(
            err,
            LeaveError::OverAllowance {
                year: 2026,
                left: 0,
                needs: 1,
                allowance: 45
            }
        );
    }

    #[test]
    fn events_may_allow_less_leave_or_none() {
        let now = at("2026-11-29 12:00");
        let week = leave("2026-12-01", "2026-12-07");
        for (allowance, fits) in [(0, false), (6, false), (7, true), (10, true), (30, true)] {
            let got = book(&[], week, Allowance::days(allowance), now, None);
            assert_eq!(got.is_ok(), fits, "allowance {allowance}");
        }
    }

    #[test]
    fn today_is_the_players_own_today() {
        // 23:30 UTC on 29 November is already 30 November in Ljubljana (UTC+1):
        // there, the 30th is today and can't be booked; in UTC it is tomorrow.
        let now = at("2026-11-29 23:30");
        let l = leave("2026-11-30", "2026-12-01");
        assert!(book(&[], l, Allowance::ICCF, now, None).is_ok());
        assert_eq!(
            book(&[], l, Allowance::ICCF, now, Some(Ljubljana)),
            Err(LeaveError::NotInFuture {
                today: day("2026-11-30")
            })
        );
    }

    #[test]
    fn future_leave_can_change_but_days_begun_cannot() {
        let now = at("2026-12-05 12:00"); // today: 5 December
        let running = leave("2026-12-01", "2026-12-10");
        let future = leave("2026-12-20", "2026-12-24");
        let booked = [running, future];
        // (old, new, ok?)
        let cases = [
            // a future leave moves freely
            (future, leave("2026-12-21", "2026-12-27"), Ok(())),
            // ... but not onto today
            (
                future,
                leave("2026-12-05", "2026-12-06"),
                Err(LeaveError::PastIsFixed {
                    today: day("2026-12-05"),
                }),
            ),
            // a running leave can end today (back early) or later
            (running, leave("2026-12-01", "2026-12-05"), Ok(())),
            (running, leave("2026-12-01", "2026-12-15"), Ok(())),
            // ... but not end yesterday, nor start on another day
            (
                running,
                leave("2026-12-01", "2026-12-04"),
                Err(LeaveError::PastIsFixed {
                    today: day("2026-12-05"),
                }),
            ),
            (
                running,
                leave("2026-12-02", "2026-12-10"),
                Err(LeaveError::PastIsFixed {
                    today: day("2026-12-05"),
                }),
            ),
            // lengthening onto the other booking overlaps it
            (
                running,
                leave("2026-12-01", "2026-12-21"),
                Err(LeaveError::Overlaps { other: future }),
            ),
        ];
        for (old, new, expected) in cases {
            let got = change(&booked, old, new, Allowance::ICCF, now, None).map(|_| ());
            assert_eq!(got, expected, "{old} -> {new}");
        }
        assert_eq!(cancel(&booked, future, now, None), Ok(vec![running]));
        assert_eq!(
            cancel(&booked, running, now, None),
            Err(LeaveError::PastIsFixed {
                today: day("2026-12-05")
            })
        );
        let unknown = leave("2027-01-01", "2027-01-02");
        assert_eq!(
            cancel(&booked, unknown, now, None).unwrap_err().to_string(),
            "there is no leave 2027-01-01 to 2027-01-02 booked to change or cancel"
        );
    }

    #[test]
    fn a_changed_leave_is_charged_once_not_twice() {
        // 40 days booked (Jan 1..=Feb 9); lengthening by 5 to Feb 14 needs
        // only the 5 new days: 45 in all, still within the allowance.
        let now = at("2025-12-01 12:00");
        let old = leave("2026-01-01", "2026-02-09");
        let new = leave("2026-01-01", "2026-02-14");
        let booking = change(&[old], old, new, Allowance::ICCF, now, None).unwrap();
        assert_eq!(booking.leaves, [new]);
        assert_eq!(
            booking.years,
            [YearLeave {
                year: 2026,
                used: 45,
                left: 0
            }]
        );
    }

    #[test]
    fn leave_pauses_run_from_local_midnight_to_local_midnight() {
        // (leave, tz, start UTC, end UTC)
        let cases = [
            // Winter in Ljubljana is UTC+1: local midnight is 23:00 UTC the day before.
            (
                leave("2026-12-24", "2026-12-26"),
                Some(Ljubljana),
                "2026-12-23 23:00",
                "2026-12-26 23:00",
            ),
            (
                leave("2026-12-24", "2026-12-26"),
                None,
                "2026-12-24 00:00",
                "2026-12-27 00:00",
            ),
            // Sunday 29 March 2026: clocks go 02:00 -> 03:00, a 23-hour day.
            // Starts at 23:00 UTC on the 28th (UTC+1), ends at 22:00 UTC on the 29th (UTC+2).
            (
                leave("2026-03-29", "2026-03-29"),
                Some(Ljubljana),
                "2026-03-28 23:00",
                "2026-03-29 22:00",
            ),
            // Sunday 25 October 2026: 03:00 -> 02:00, a 25-hour day.
            (
                leave("2026-10-25", "2026-10-25"),
                Some(Ljubljana),
                "2026-10-24 22:00",
                "2026-10-25 23:00",
            ),
            // Santiago skips midnight on 6 September 2026 (00:00 -> 01:00, UTC-4 -> UTC-3):
            // the day begins at 01:00 local, 04:00 UTC.
            (
                leave("2026-09-06", "2026-09-06"),
                Some(chrono_tz::America::Santiago),
                "2026-09-06 04:00",
                "2026-09-07 03:00",
            ),
        ];
        for (l, tz, start, end) in cases {
            assert_eq!(l.span(tz), (at(start), at(end)), "{l} in {tz:?}");
        }
    }

    #[test]
    fn pauses_stop_running_time_and_push_deadlines() {
        // Leave 10..=11 December and 12 December back to back (merged), and 20 December. UTC.
        let pauses = Pauses::from_leave(
            &[
                leave("2026-12-12", "2026-12-12"),
                leave("2026-12-10", "2026-12-11"),
                leave("2026-12-20", "2026-12-20"),
            ],
            None,
        );
        assert_eq!(pauses.spans.len(), 2, "back-to-back leave merges");
        let hours = TimeDelta::hours;
        // (from, to, running hours)
        for (from, to, running) in [
            // 9 Dec 12:00 -> 13 Dec 12:00 is 96 h, of which 72 h paused: 24 h run.
            ("2026-12-09 12:00", "2026-12-13 12:00", 24),
            // inside a pause nothing runs
            ("2026-12-10 06:00", "2026-12-11 06:00", 0),
            // 19 Dec 00:00 -> 22 Dec 00:00 is 72 h less 24 h on 20 Dec: 48 h.
            ("2026-12-19 00:00", "2026-12-22 00:00", 48),
            ("2026-12-22 00:00", "2026-12-19 00:00", 0),
        ] {
            assert_eq!(
                pauses.running_time(at(from), at(to)),
                hours(running),
                "{from}..{to}"
            );
        }
        // (from, budget hours, deadline)
        for (from, budget, deadline) in [
            // 12 h to the leave, the other 60 h after it ends on 13 Dec 00:00.
            ("2026-12-09 12:00", 72, "2026-12-15 12:00"),
            // starting inside a pause: the clock starts when the leave ends
            ("2026-12-11 15:00", 24, "2026-12-14 00:00"),
            // a budget that runs out exactly as a leave begins ends there
            ("2026-12-09 00:00", 24, "2026-12-10 00:00"),
            // 9 Dec 00:00 + 24 h run, 72 h leave, 7 days to 20 Dec, 1 day leave, 1 h more
            ("2026-12-09 00:00", 24 + 7 * 24 + 1, "2026-12-21 01:00"),
        ] {
            assert_eq!(
                pauses.advance(at(from), hours(budget)),
                at(deadline),
                "{from}+{budget}h"
            );
        }
        assert!(pauses.contains(at("2026-12-12 23:59")));
        assert!(!pauses.contains(at("2026-12-13 00:00")));
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `advance` finds exactly the instant by which `budget` has run,
        /// whatever the leave and wherever the clock starts.
        #[test]
        fn advancing_by_a_budget_runs_exactly_that_budget(
            spans in proptest::collection::vec((0i64..400, 0i64..20), 0..6),
            start_minutes in 0i64..400 * 24 * 60,
            budget_minutes in 0i64..60 * 24 * 60,
            zone in prop::sample::select(vec![None, Some(chrono_tz::Europe::Ljubljana), Some(chrono_tz::America::Santiago)]),
        ) {
            let day0 = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap_or_default();
            let leaves: Vec<Leave> = spans
                .into_iter()
                .filter_map(|(start, len)| {
                    let from = day0 + TimeDelta::days(start);
                    Leave::new(from, from + TimeDelta::days(len)).ok()
                })
                .collect();
            let pauses = Pauses::from_leave(&leaves, zone);
            let from = day0.and_time(NaiveTime::MIN).and_utc() + TimeDelta::minutes(start_minutes);
            let budget = TimeDelta::minutes(budget_minutes);
            let deadline = pauses.advance(from, budget);
            prop_assert_eq!(pauses.running_time(from, deadline), budget);
            // ... and not a moment earlier, unless the clock stood still then.
            let earlier = deadline - TimeDelta::minutes(1);
            if budget > TimeDelta::zero() && !pauses.contains(earlier) {
                prop_assert!(pauses.running_time(from, earlier) < budget);
            }
        }
    }
}
