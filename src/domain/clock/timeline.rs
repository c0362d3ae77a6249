//! A game's clocks as a pure function of its move timeline, its time
//! control, the players' leave and the instant asked about.
//!
//! When a clock runs: the time of a move is when its mail reached our
//! mailbox (`received`). The clock of the side to move starts when the
//! opponent's move reached *them*: when our mail telling them was sent, if
//! we know it, else when the opponent's move was received. So a daemon or
//! SMTP outage between the two costs the waiting player nothing. The side
//! that moves first counts from the game start.
//!
//! How time is charged:
//! - `Nd` (days per move): each move must arrive less than N × 24 h of
//!   running time after its clock started.
//! - `M/Dd` (ICCF cumulative), `Fd+Id` (Fischer): whole days, `floor(hours
//!   / 24)` of running time, so a reply within 24 h costs nothing. The
//!   per-move maximum (`,maxXd`) compares those whole days too.
//! - Leave stops the player's own clock (see [`Pauses`]); the opponent's
//!   clock keeps running.
//!
//! A deadline is the first instant at which the move is late; the game is
//! lost on time at that instant, so a move must reach us before it.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;
use shakmaty::{ByColor, Color};

use super::control::TimeControl;
use super::leave::Pauses;

/// When one half-move's mail arrived and when its opponent was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MoveTimes {
    /// When the mail carrying the move reached our mailbox.
    pub received: DateTime<Utc>,
    /// When we sent the opponent the mail with this move, if known.
    pub sent: Option<DateTime<Utc>>,
}

impl MoveTimes {
    /// When the opponent's clock started on this move: the sent time, or the
    /// received time when we don't know it (never earlier than received).
    pub fn reached_opponent(&self) -> DateTime<Utc> {
        self.sent
            .map_or(self.received, |sent| sent.max(self.received))
    }
}

/// The times of a game: its start, who moves first, and each half-move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Timeline {
    /// When the game started: the first mover's clock starts here.
    pub start: DateTime<Utc>,
    /// Who moves first (White, unless the game starts from a set-up position).
    #[serde(skip)]
    pub first: Color,
    /// The half-moves so far, in order.
    pub moves: Vec<MoveTimes>,
}

impl Timeline {
    /// A game that started at `start` with White to move and no moves yet.
    pub fn new(start: DateTime<Utc>) -> Timeline {
        Timeline {
            start,
            first: Color::White,
            moves: Vec::new(),
        }
    }

    /// Adds a half-move received at `received` whose opponent was told at `sent`.
    pub fn with_move(mut self, received: DateTime<Utc>, sent: Option<DateTime<Utc>>) -> Timeline {
        self.moves.push(MoveTimes { received, sent });
        self
    }

    /// Who makes the half-move with index `ply` (0 for the first move).
    pub fn mover(&self, ply: usize) -> Color {
        if ply.is_multiple_of(2) {
            self.first
        } else {
            self.first.other()
        }
    }

    /// Whose move it is now.
    pub fn to_move(&self) -> Color {
        self.mover(self.moves.len())
    }

    /// When the clock for half-move `ply` started.
    pub fn clock_start(&self, ply: usize) -> DateTime<Utc> {
        match ply.checked_sub(1).and_then(|prev| self.moves.get(prev)) {
            Some(prev) => prev.reached_opponent(),
            None => self.start,
        }
    }
}

/// One player's clock at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClockState {
    /// Whole days charged so far, the running move included (doubling applied).
    pub days_used: u32,
    /// Whole days left: before the next time control (cumulative), in the
    /// bank (Fischer), or before this move's deadline (days per move, for
    /// the side to move; `None` for the other side, which has no bank).
    pub days_left: Option<u32>,
    /// When the move this player owes becomes late; `None` when it is not
    /// their move or the game was already lost on time.
    pub next_deadline: Option<DateTime<Utc>>,
    /// Whether the player is on leave at this instant.
    pub on_leave: bool,
    /// The instant this player's time ran out, if it did.
    pub flagged: Option<DateTime<Utc>>,
    /// Moves this player has made.
    pub moves: u32,
}

/// How one half-move was timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PlyTime {
    /// Who moved.
    #[serde(skip)]
    pub mover: Color,
    /// When the mover's clock started.
    pub started: DateTime<Utc>,
    /// When the move reached our mailbox.
    pub arrived: DateTime<Utc>,
    /// Whole days charged for it (doubling applied).
    pub days: u32,
}

/// Both clocks of a game at an instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clocks {
    /// White's and Black's clocks.
    pub players: ByColor<ClockState>,
    /// Whose move it is.
    pub to_move: Color,
    /// How each half-move was timed, up to a move that came too late.
    pub plies: Vec<PlyTime>,
}

impl Clocks {
    /// The player whose time ran out, and when, if one did.
    pub fn timeout(&self) -> Option<(Color, DateTime<Utc>)> {
        [Color::White, Color::Black]
            .into_iter()
            .find_map(|c| self.players.get(c).flagged.map(|at| (c, at)))
    }
}

/// A game's time: everything its clocks are a function of, except the instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameClock {
    /// The time control.
    pub control: TimeControl,
    /// When the game started and each move arrived.
    pub timeline: Timeline,
    /// When each player's clock stands still for leave.
    pub pauses: ByColor<Pauses>,
}

fn days_delta(days: u64) -> TimeDelta {
    i64::try_from(days)
        .ok()
        .and_then(TimeDelta::try_days)
        .unwrap_or(TimeDelta::MAX)
}

/// Whole days in `running` (which is never negative here).
fn whole_days(running: TimeDelta) -> u64 {
    u64::try_from(running.num_days()).unwrap_or(0)
}

/// Whole days in the time left before a deadline, under days per move
/// (no bank: what is left is the time to this move's deadline). Counted to
/// the minute, as deadlines are shown: the mail that starts a move, sent
/// seconds after its clock started, says all of its days are left; past
/// that, days are cut, never rounded up.
fn days_before(left: TimeDelta) -> u32 {
    const MINUTE_MS: u64 = 60_000;
    const DAY_MINUTES: u64 = 24 * 60;
    let ms = u64::try_from(left.num_milliseconds()).unwrap_or(0);
    saturate(ms.div_ceil(MINUTE_MS) / DAY_MINUTES)
}

fn saturate(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// One player's account under the control, between moves.
#[derive(Debug, Clone, Copy, Default)]
struct Account {
    moves: u64,
    /// Days charged, doubling included.
    used: u64,
    /// Fischer: days in the bank.
    bank: u64,
}

impl GameClock {
    /// A game's clock without any leave.
    pub fn new(control: TimeControl, timeline: Timeline) -> GameClock {
        GameClock {
            control,
            timeline,
            pauses: ByColor::new_with(|_| Pauses::none()),
        }
    }

    fn opening_account(&self) -> Account {
        let bank = match self.control {
            TimeControl::Fischer { initial, .. } => u64::from(initial),
            _ => 0,
        };
        Account {
            bank,
            ..Account::default()
        }
    }

    /// Days charged for a move of `raw` whole days: the excess over the
    /// doubling threshold counts twice.
    fn charge(&self, raw: u64) -> u64 {
        match self.control {
            TimeControl::Cumulative {
                double_after: Some(threshold),
                ..
            } if raw > u64::from(threshold) => raw.saturating_add(raw - u64::from(threshold)),
            _ => raw,
        }
    }

    /// The days a cumulative player may have used after their `m`-th move.
    fn limit_after(&self, m: u64) -> u64 {
        match self.control {
            TimeControl::Cumulative { moves, days, .. } => {
                u64::from(days).saturating_mul(m.div_ceil(u64::from(moves.max(1))))
            }
            _ => 0,
        }
    }

    /// Running time the next move may take: it is late once this much has run.
    fn budget(&self, account: Account) -> TimeDelta {
        let most_days = match self.control {
            TimeControl::DaysPerMove { days } => return days_delta(u64::from(days)),
            TimeControl::Cumulative {
                double_after,
                max_per_move,
                ..
            } => {
                let room = self
                    .limit_after(account.moves + 1)
                    .saturating_sub(account.used);
                // The most whole days c with charge(c) <= room: above the
                // threshold t, c + (c - t) <= room gives c <= (room + t) / 2.
                let most = match double_after.map(u64::from) {
                    Some(t) if room > t => room.saturating_add(t) / 2,
                    _ => room,
                };
                max_per_move.map_or(most, |max| most.min(u64::from(max)))
            }
            TimeControl::Fischer { .. } => account.bank,
        };
        // Charged floor(running / 24 h): late once a day more than allowed has run.
        days_delta(most_days.saturating_add(1))
    }

    fn settle(&self, account: &mut Account, raw: u64) {
        account.moves += 1;
        account.used = account.used.saturating_add(self.charge(raw));
        if let TimeControl::Fischer { increment, cap, .. } = self.control {
            let bank = account
                .bank
                .saturating_sub(raw)
                .saturating_add(u64::from(increment));
            account.bank = cap.map_or(bank, |cap| bank.min(u64::from(cap)));
        }
    }

    fn days_left(&self, account: Account, running_raw: u64) -> Option<u32> {
        let left = match self.control {
            TimeControl::DaysPerMove { .. } => return None,
            TimeControl::Cumulative { .. } => self
                .limit_after(account.moves + 1)
                .saturating_sub(account.used.saturating_add(self.charge(running_raw))),
            TimeControl::Fischer { .. } => account.bank.saturating_sub(running_raw),
        };
        Some(saturate(left))
    }

    /// Both clocks as they stand at `now`.
    pub fn clocks(&self, now: DateTime<Utc>) -> Clocks {
        self.clocks_running(now, true)
    }

    /// Both clocks of a game that ended at `end` (mate, resignation, a
    /// draw): the move that was never made charges nothing and has no
    /// deadline, so no days are left for it under days per move. A game
    /// lost on time still shows the side whose time ran out.
    pub fn final_clocks(&self, end: DateTime<Utc>) -> Clocks {
        self.clocks_running(end, false)
    }

    /// The clocks at `now`; with `running` false, the side to move's clock
    /// stands still unless its time had run out.
    fn clocks_running(&self, now: DateTime<Utc>, running: bool) -> Clocks {
        let timeline = &self.timeline;
        let mut accounts = ByColor::new_with(|_| self.opening_account());
        let mut plies = Vec::with_capacity(timeline.moves.len());
        let mut flagged: Option<(Color, DateTime<Utc>)> = None;
        for (ply, times) in timeline.moves.iter().enumerate() {
            let mover = timeline.mover(ply);
            let started = timeline.clock_start(ply);
            let pauses = self.pauses.get(mover);
            let account = accounts.get_mut(mover);
            let deadline = pauses.advance(started, self.budget(*account));
            if times.received >= deadline {
                flagged = Some((mover, deadline));
                break;
            }
            let raw = whole_days(pauses.running_time(started, times.received));
            plies.push(PlyTime {
                mover,
                started,
                arrived: times.received,
                days: saturate(self.charge(raw)),
            });
            self.settle(account, raw);
        }

        let to_move = timeline.to_move();
        let players = ByColor::new_with(|color| {
            let account = *accounts.get(color);
            let pauses = self.pauses.get(color);
            let mut state = ClockState {
                days_used: saturate(account.used),
                days_left: self.days_left(account, 0),
                next_deadline: None,
                on_leave: pauses.contains(now),
                flagged: None,
                moves: saturate(account.moves),
            };
            match flagged {
                Some((loser, at)) if loser == color => {
                    state.flagged = Some(at);
                    state.days_left = state.days_left.map(|_| 0);
                }
                Some(_) => {}
                None if color == to_move => {
                    let started = timeline.clock_start(timeline.moves.len());
                    let deadline = pauses.advance(started, self.budget(account));
                    if !running && now < deadline {
                        return state;
                    }
                    let running = pauses.running_time(started, now.min(deadline));
                    let raw = whole_days(running);
                    state.days_used = saturate(account.used.saturating_add(self.charge(raw)));
                    state.days_left = match self.control {
                        TimeControl::DaysPerMove { days } => Some(days_before(
                            days_delta(u64::from(days))
                                .checked_sub(&running)
                                .unwrap_or_default(),
                        )),
                        _ => self.days_left(account, raw),
                    };
                    state.next_deadline = Some(deadline);
                    if now >= deadline {
                        state.flagged = Some(deadline);
                        state.days_left = state.days_left.map(|_| 0);
                    }
                }
                None => {}
            }
            state
        });
        Clocks {
            players,
            to_move,
            plies,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::leave::Leave;
    use chrono::NaiveDateTime;

    fn at(text: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M")
            .unwrap()
            .and_utc()
    }

    /// A game starting at `start` whose moves arrive at the given instants,
    /// each one sent on to the opponent the moment it arrived.
    fn game(control: &str, start: &str, moves: &[&str]) -> GameClock {
        let mut timeline = Timeline::new(at(start));
        for m in moves {
            timeline = timeline.with_move(at(m), None);
        }
        GameClock::new(control.parse().unwrap(), timeline)
    }

    /// What we check of one clock: days used, days left, deadline, flagged.
    type Expect = (u32, Option<u32>, Option<&'static str>, Option<&'static str>);

    fn check(clock: &GameClock, now: &str, color: Color, expected: Expect, why: &str) {
        let state = *clock.clocks(at(now)).players.get(color);
        let (used, left, deadline, flagged) = expected;
        assert_eq!(
            (
                state.days_used,
                state.days_left,
                state.next_deadline,
                state.flagged
            ),
            (used, left, deadline.map(at), flagged.map(at)),
            "{why}: {color:?} at {now}"
        );
    }

    #[test]
    fn a_finished_game_has_no_running_move() {
        use Color::{Black, White};
        // 3d: after e4 (arrived 3 Mar 08:00) Black resigned on 4 Mar 20:00.
        let clock = game("3d", "2026-03-01 12:00", &["2026-03-03 08:00"]);
        let end = clock.final_clocks(at("2026-03-04 20:00"));
        let black = end.players.get(Black);
        assert_eq!(
            (black.days_used, black.days_left, black.next_deadline),
            (0, None, None)
        );
        assert_eq!(end.players.get(White).days_used, 1);
        // 10/50d: the days left stand as they were after the last move.
        let clock = game("10/50d", "2026-03-01 12:00", &["2026-03-03 08:00"]);
        let end = clock.final_clocks(at("2026-03-09 20:00"));
        assert_eq!(end.players.get(Black).days_left, Some(50));
        // Lost on time: the side whose time ran out shows it.
        let clock = game("3d", "2026-03-01 12:00", &[]);
        let end = clock.final_clocks(at("2026-03-04 12:00"));
        assert_eq!(end.players.get(White).flagged, Some(at("2026-03-04 12:00")));
    }

    #[test]
    fn days_per_move_gives_each_reply_n_times_24_hours() {
        use Color::{Black, White};
        // Start Sunday 1 March 2026 12:00 UTC, 3d. Days left are the whole
        // days before the deadline, for the side to move only.
        let cases: [(&str, &[&str], &str, Color, Expect); 7] = [
            // White's first move counts from the start: due 1 Mar 12:00 + 72 h = 4 Mar 12:00.
            (
                "fresh game",
                &[],
                "2026-03-02 12:00",
                White,
                (1, Some(2), Some("2026-03-04 12:00"), None),
            ),
            // Black's clock starts when White's move arrived (3 Mar 08:00): due 6 Mar 08:00.
            (
                "e4 arrives",
                &["2026-03-03 08:00"],
                "2026-03-03 08:00",
                Black,
                (0, Some(3), Some("2026-03-06 08:00"), None),
            ),
            (
                "after e4",
                &["2026-03-03 08:00"],
                "2026-03-03 09:00",
                Black,
                (0, Some(2), Some("2026-03-06 08:00"), None),
            ),
            // ... and White's used days remember the 1 day 20 h taken: 1 whole day.
            (
                "after e4",
                &["2026-03-03 08:00"],
                "2026-03-03 09:00",
                White,
                (1, None, None, None),
            ),
            // 71 h 59 min is in time.
            (
                "just in time",
                &["2026-03-04 11:59"],
                "2026-03-04 12:00",
                Black,
                (0, Some(2), Some("2026-03-07 11:59"), None),
            ),
            // At the deadline itself the game is lost.
            (
                "at the deadline",
                &[],
                "2026-03-04 12:00",
                White,
                (
                    3,
                    Some(0),
                    Some("2026-03-04 12:00"),
                    Some("2026-03-04 12:00"),
                ),
            ),
            // A move that arrives late (daemon was down) loses at the deadline, not on arrival.
            (
                "late move",
                &["2026-03-05 09:00"],
                "2026-03-05 10:00",
                White,
                (0, None, None, Some("2026-03-04 12:00")),
            ),
        ];
        for (why, moves, now, color, expected) in cases {
            check(
                &game("3d", "2026-03-01 12:00", moves),
                now,
                color,
                expected,
                why,
            );
        }
    }

    #[test]
    fn iccf_cumulative_charges_whole_days_and_carries_time_forward() {
        use Color::{Black, White};
        // 10/50d from Thursday 1 January 2026 00:00 UTC. White's 1st move after
        // 23 h (0 days), Black's 1st after 1 d 5 h (1 day), White's 2nd after
        // 10 d 23 h (10 days), Black's 2nd after 47 h 59 min (1 day).
        let moves = [
            "2026-01-01 23:00", // W1: 23 h -> 0
            "2026-01-03 04:00", // B1: 1 d 5 h -> 1
            "2026-01-14 03:00", // W2: 10 d 23 h -> 10
            "2026-01-16 02:59", // B2: 1 d 23 h 59 min -> 1
        ];
        let cases: [(&str, usize, &str, Color, Expect); 5] = [
            // W to move at the start: 50 days for moves 1-10; late after 51 × 24 h.
            (
                "start",
                0,
                "2026-01-01 00:00",
                White,
                (0, Some(50), Some("2026-02-21 00:00"), None),
            ),
            // After W1 (0) Black's clock runs from 1 Jan 23:00; 50 days left.
            (
                "after W1",
                1,
                "2026-01-02 23:00",
                Black,
                (1, Some(49), Some("2026-02-21 23:00"), None),
            ),
            // White used 0 + 10 = 10: 40 days left.
            (
                "after W2",
                3,
                "2026-01-14 03:00",
                White,
                (10, Some(40), None, None),
            ),
            // Black used 1 + 1 = 2; now W to move from 16 Jan 02:59 with 40 left:
            // late when 41 days have run: 26 Feb 02:59.
            (
                "after B2",
                4,
                "2026-01-16 03:00",
                White,
                (10, Some(40), Some("2026-02-26 02:59"), None),
            ),
            (
                "after B2",
                4,
                "2026-01-16 03:00",
                Black,
                (2, Some(48), None, None),
            ),
        ];
        for (why, n, now, color, expected) in cases {
            check(
                &game("10/50d", "2026-01-01 00:00", &moves[..n]),
                now,
                color,
                expected,
                why,
            );
        }
    }

    #[test]
    fn the_cumulative_limit_grows_with_each_period_of_moves() {
        // 2/10d: used after move m <= 10 × ceil(m / 2). White spends 9 days on
        // move 1 (9 <= 10), 1 day on move 2 (10 <= 10), then move 3 may use
        // up to 20 - 10 = 10 days. Black replies instantly (0 days) each time.
        let moves = [
            "2026-01-10 00:00", // W1 after 9 d
            "2026-01-10 01:00", // B1
            "2026-01-11 01:00", // W2 after 1 d
            "2026-01-11 02:00", // B2
        ];
        let clock = game("2/10d", "2026-01-01 00:00", &moves);
        // W3: 10 days left, late after 11 days: 22 Jan 02:00.
        check(
            &clock,
            "2026-01-12 00:00",
            Color::White,
            (10, Some(10), Some("2026-01-22 02:00"), None),
            "move 3",
        );
        // Had White spent 2 days on move 2 (11 > 10 after move 2), the move was
        // late at 10 Jan 01:00 + (10 - 9 + 1) days = 12 Jan 01:00.
        let late = ["2026-01-10 00:00", "2026-01-10 01:00", "2026-01-12 01:00"];
        let clock = game("2/10d", "2026-01-01 00:00", &late);
        check(
            &clock,
            "2026-01-12 02:00",
            Color::White,
            (9, Some(0), None, Some("2026-01-12 01:00")),
            "over on move 2",
        );
    }

    #[test]
    fn days_over_the_threshold_on_one_move_count_double() {
        // 10/50d!20: one move of 25 whole days costs 20 + 2 × 5 = 30.
        let clock = game("10/50d!20", "2026-01-01 00:00", &["2026-01-26 12:00"]);
        check(
            &clock,
            "2026-01-26 12:00",
            Color::White,
            (30, Some(20), None, None),
            "25 days",
        );
        // From the start, the most White can take on move 1 is the c with
        // 20 + 2(c - 20) <= 50: c = (50 + 20) / 2 = 35, so move 1 is late after
        // 36 days (6 Feb), not after 51 as without doubling.
        let clock = game("10/50d!20", "2026-01-01 00:00", &[]);
        check(
            &clock,
            "2026-01-01 00:00",
            Color::White,
            (0, Some(50), Some("2026-02-06 00:00"), None),
            "fresh",
        );
        // Running at 30 days on the clock: charged 20 + 2 × 10 = 40, 10 left.
        check(
            &clock,
            "2026-01-31 00:00",
            Color::White,
            (40, Some(10), Some("2026-02-06 00:00"), None),
            "day 30",
        );
        // Threshold 0: every day counts double. 50 days allow 25 days: late after 26.
        let clock = game("10/50d!0", "2026-01-01 00:00", &[]);
        check(
            &clock,
            "2026-01-01 00:00",
            Color::White,
            (0, Some(50), Some("2026-01-27 00:00"), None),
            "!0",
        );
    }

    #[test]
    fn a_per_move_maximum_caps_each_move_inside_the_cumulative_control() {
        // 10/50d,max10d: 50 days in the bank, but one move may take 10 whole
        // days at most, so it is late after 11 days.
        let clock = game("10/50d,max10d", "2026-01-01 00:00", &[]);
        check(
            &clock,
            "2026-01-05 00:00",
            Color::White,
            (4, Some(46), Some("2026-01-12 00:00"), None),
            "max 10",
        );
        check(
            &clock,
            "2026-01-12 00:00",
            Color::White,
            (
                11,
                Some(0),
                Some("2026-01-12 00:00"),
                Some("2026-01-12 00:00"),
            ),
            "over",
        );
        // Near the end of the period the cumulative limit binds first: five
        // moves of 9 days and one of 2 use 47 days (none over 10), so move 7
        // may take 3 whole days and is late after 4.
        let mut moves = Vec::new();
        let mut t = at("2026-01-01 00:00");
        for days in [9, 9, 9, 9, 9, 2] {
            t += TimeDelta::days(days);
            moves.push(t); // White's move
            t += TimeDelta::hours(1);
            moves.push(t); // Black's instant reply
        }
        let mut timeline = Timeline::new(at("2026-01-01 00:00"));
        for m in &moves {
            timeline = timeline.with_move(*m, None);
        }
        let clock = GameClock::new("10/50d,max10d".parse().unwrap(), timeline);
        let state = clock.clocks(t).players.white;
        assert_eq!((state.days_used, state.days_left), (47, Some(3)));
        assert_eq!(state.next_deadline, Some(t + TimeDelta::days(4)));
    }

    #[test]
    fn fischer_adds_the_increment_up_to_the_cap() {
        use Color::{Black, White};
        // 30d+3d<=45d from 1 Jan 2026. W1 after 10 d 2 h: bank 30 - 10 + 3 = 23.
        // B1 after 12 h: bank 30 - 0 + 3 = 33. W2 after 1 h: 23 + 3 = 26.
        // B2 after 1 h: 33 + 3 = 36 ... B keeps replying in an hour: 39, 42, 45, 45 (cap).
        let mut moves = vec![
            "2026-01-11 02:00",
            "2026-01-11 14:00",
            "2026-01-11 15:00",
            "2026-01-11 16:00",
        ];
        let cases: [(&str, usize, Color, Expect); 3] = [
            ("after W1", 1, White, (10, Some(23), None, None)),
            // Black, to move after W2 with 33 left: late after 34 days from 11 Jan 15:00.
            (
                "after W2",
                3,
                Black,
                (0, Some(33), Some("2026-02-14 15:00"), None),
            ),
            ("after B2", 4, Black, (0, Some(36), None, None)),
        ];
        for (why, n, color, expected) in cases {
            check(
                &game("30d+3d<=45d", "2026-01-01 00:00", &moves[..n]),
                "2026-01-11 16:00",
                color,
                expected,
                why,
            );
        }
        moves.extend([
            "2026-01-11 17:00",
            "2026-01-11 18:00",
            "2026-01-11 19:00",
            "2026-01-11 20:00",
            "2026-01-11 21:00",
            "2026-01-11 22:00",
            "2026-01-11 23:00",
            "2026-01-12 00:00",
        ]);
        // Black's moves 3..6 after an hour each: 39, 42, 45, 45.
        check(
            &game("30d+3d<=45d", "2026-01-01 00:00", &moves),
            "2026-01-12 00:00",
            Black,
            (0, Some(45), None, None),
            "capped",
        );
        // Without a cap the bank keeps growing: 36 + 4 × 3 = 48.
        check(
            &game("30d+3d", "2026-01-01 00:00", &moves),
            "2026-01-12 00:00",
            Black,
            (0, Some(48), None, None),
            "uncapped",
        );
        // An empty bank still leaves the 24 h that cost nothing.
        check(
            &game("1d+1d", "2026-01-01 00:00", &[]),
            "2026-01-01 00:00",
            White,
            (0, Some(1), Some("2026-01-03 00:00"), None),
            "1 day",
        );
    }

    #[test]
    fn the_clock_starts_when_our_mail_reached_the_player() {
        // White's move arrived 1 Mar 12:00 but the daemon was down: the mail to
        // Black went out 2 Mar 09:00. Black's 3 days count from then.
        let timeline = Timeline::new(at("2026-03-01 00:00"))
            .with_move(at("2026-03-01 12:00"), Some(at("2026-03-02 09:00")));
        let clock = GameClock::new(TimeControl::default(), timeline.clone());
        let state = clock.clocks(at("2026-03-02 10:00")).players.black;
        assert_eq!(state.next_deadline, Some(at("2026-03-05 09:00")));
        // Without a sent time, from the arrival of White's move.
        let mut unsent = timeline;
        unsent.moves[0].sent = None;
        let clock = GameClock::new(TimeControl::default(), unsent);
        let state = clock.clocks(at("2026-03-02 10:00")).players.black;
        assert_eq!(state.next_deadline, Some(at("2026-03-04 12:00")));
    }

    #[test]
    fn black_moves_first_from_a_set_up_position() {
        let mut timeline = Timeline::new(at("2026-03-01 00:00"));
        timeline.first = Color::Black;
        let clock = GameClock::new(TimeControl::default(), timeline);
        let clocks = clock.clocks(at("2026-03-01 00:00"));
        assert_eq!(clocks.to_move, Color::Black);
        assert_eq!(
            clocks.players.black.next_deadline,
            Some(at("2026-03-04 00:00"))
        );
        assert_eq!(clocks.players.white.next_deadline, None);
    }

    #[test]
    fn leave_stops_only_the_players_own_clock() {
        // 3d game from Tuesday 1 Dec 2026 12:00 UTC. Black on leave 2..=4 Dec
        // (UTC), which White's clock ignores.
        let leave =
            [Leave::new("2026-12-02".parse().unwrap(), "2026-12-04".parse().unwrap()).unwrap()];
        let mut clock = game("3d", "2026-12-01 12:00", &[]);
        clock.pauses.black = Pauses::from_leave(&leave, None);
        let white = clock.clocks(at("2026-12-03 00:00")).players.white;
        assert_eq!(white.next_deadline, Some(at("2026-12-04 12:00")));
        assert!(!white.on_leave);
        // Black to move from 1 Dec 13:00: 11 h run before the leave, 72 h of
        // leave, 61 h after 5 Dec 00:00 -> 7 Dec 13:00.
        clock.timeline = clock.timeline.with_move(at("2026-12-01 13:00"), None);
        let black = clock.clocks(at("2026-12-03 00:00")).players.black;
        assert_eq!(black.next_deadline, Some(at("2026-12-07 13:00")));
        assert!(black.on_leave);
        // A move 6 Dec 13:00 is 5 days of wall time but 2 days of clock time.
        clock.timeline = clock.timeline.with_move(at("2026-12-06 13:00"), None);
        let clocks = clock.clocks(at("2026-12-06 14:00"));
        assert_eq!(clocks.plies[1].days, 2);
        assert_eq!(clocks.players.black.flagged, None);
    }

    #[test]
    fn leave_pushes_an_iccf_deadline_by_its_calendar_days_in_the_players_zone() {
        // 10/50d, White in Ljubljana on leave 1..=10 March 2026 (10 days),
        // the game starting 1 Feb 2026 00:00 UTC: 51 days of clock time plus
        // 10 days of leave. Leave runs 28 Feb 23:00 UTC (local midnight,
        // UTC+1) to 10 Mar 23:00 UTC. Clock time to the leave: 27 d 23 h;
        // the remaining 23 d 1 h run from 10 Mar 23:00 -> 3 Apr 00:00.
        let leave =
            [Leave::new("2026-03-01".parse().unwrap(), "2026-03-10".parse().unwrap()).unwrap()];
        let mut clock = game("10/50d", "2026-02-01 00:00", &[]);
        clock.pauses.white = Pauses::from_leave(&leave, Some(chrono_tz::Europe::Ljubljana));
        check(
            &clock,
            "2026-03-05 00:00",
            Color::White,
            (27, Some(23), Some("2026-04-03 00:00"), None),
            "on leave",
        );
        let state = clock.clocks(at("2026-03-05 00:00")).players.white;
        assert!(state.on_leave);
    }

    #[test]
    fn odd_timelines_never_make_the_clock_panic() {
        // Moves out of order, in the far future, and controls at their limits.
        let far = DateTime::<Utc>::MAX_UTC;
        let timeline = Timeline::new(at("2026-03-01 00:00"))
            .with_move(at("2026-02-01 00:00"), Some(at("2020-01-01 00:00")))
            .with_move(far, None)
            .with_move(at("2026-01-01 00:00"), Some(far));
        for spec in ["3650d", "200/3650d!0,max3650d", "3650d+3650d", "1/1d"] {
            let mut clock = GameClock::new(spec.parse().unwrap(), timeline.clone());
            clock.pauses.white = Pauses::from_leave(
                &[Leave::special(
                    chrono::NaiveDate::MAX - TimeDelta::days(3),
                    chrono::NaiveDate::MAX,
                )
                .unwrap()],
                Some(chrono_tz::Pacific::Kiritimati),
            );
            for now in [DateTime::<Utc>::MIN_UTC, at("2026-03-01 00:00"), far] {
                let _ = clock.clocks(now);
            }
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::domain::clock::leave::Leave;
    use chrono::NaiveDate;
    use proptest::prelude::*;

    const CONTROLS: [&str; 8] = [
        "1d",
        "3d",
        "2/5d",
        "10/50d",
        "10/50d!20",
        "5/30d!3,max7d",
        "30d+3d<=45d",
        "2d+1d",
    ];

    fn base() -> DateTime<Utc> {
        NaiveDate::from_ymd_opt(2026, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc())
            .unwrap_or_default()
    }

    fn game() -> impl Strategy<Value = GameClock> {
        (
            0..CONTROLS.len(),
            // Each move: minutes to think, minutes until our mail went out.
            proptest::collection::vec((0i64..60 * 24 * 12, 0i64..60 * 30), 0..30),
            // Leave for each player: (start day, length) within the first year.
            proptest::collection::vec((0i64..360, 1i64..10), 0..4),
            proptest::collection::vec((0i64..360, 1i64..10), 0..4),
        )
            .prop_map(|(control, moves, white, black)| {
                let mut timeline = Timeline::new(base());
                let mut at = base();
                for (think, delay) in moves {
                    at += TimeDelta::minutes(think);
                    let sent = at + TimeDelta::minutes(delay);
                    timeline = timeline.with_move(at, Some(sent));
                    at = sent;
                }
                let leave = |spans: Vec<(i64, i64)>| {
                    let day0 = base().date_naive();
                    let leaves: Vec<Leave> = spans
                        .into_iter()
                        .filter_map(|(start, len)| {
                            let from = day0 + TimeDelta::days(start);
                            Leave::new(from, from + TimeDelta::days(len - 1)).ok()
                        })
                        .collect();
                    Pauses::from_leave(&leaves, Some(chrono_tz::Europe::Riga))
                };
                let mut clock =
                    GameClock::new(CONTROLS[control].parse().unwrap_or_default(), timeline);
                clock.pauses = ByColor {
                    white: leave(white),
                    black: leave(black),
                };
                clock
            })
    }

    /// The control's rule, written out again on its own: may a move that
    /// took `thought` of clock time follow the clock `before` it?
    fn obeys(control: TimeControl, before: &ClockState, thought: TimeDelta) -> bool {
        let raw = u32::try_from(thought.num_days()).unwrap_or(u32::MAX);
        match control {
            TimeControl::DaysPerMove { days } => thought < TimeDelta::days(i64::from(days)),
            TimeControl::Cumulative {
                moves,
                days,
                double_after,
                max_per_move,
            } => {
                let charged = raw + double_after.map_or(0, |t| raw.saturating_sub(t));
                let limit = days * (before.moves + 1).div_ceil(moves);
                before.days_used + charged <= limit && max_per_move.is_none_or(|max| raw <= max)
            }
            TimeControl::Fischer { .. } => before.days_left.is_some_and(|left| raw <= left),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The deadline and the charging agree: a move just before the
        /// deadline keeps the game going, a move at it loses on time then.
        #[test]
        fn a_move_before_the_deadline_is_in_time_and_one_at_it_is_not(clock in game()) {
            // Keep the moves that came in time.
            let mut clock = clock;
            let in_time = clock.clocks(base()).plies.len();
            clock.timeline.moves.truncate(in_time);
            let clocks = clock.clocks(base());
            prop_assert_eq!(clocks.timeout(), None);
            let side = clocks.to_move;
            let deadline = clocks.players.get(side).next_deadline;
            prop_assert!(deadline.is_some());
            let deadline = deadline.unwrap_or_default();
            let sent = |t: DateTime<Utc>| Some(t + TimeDelta::minutes(5));

            let mut in_time = clock.clone();
            let just_before = deadline - TimeDelta::milliseconds(1);
            in_time.timeline = in_time.timeline.with_move(just_before, sent(just_before));
            let after = in_time.clocks(just_before);
            prop_assert_eq!(after.timeout(), None);
            prop_assert_eq!(after.players.get(side).moves, clocks.players.get(side).moves + 1);

            let mut late = clock.clone();
            late.timeline = late.timeline.with_move(deadline, sent(deadline));
            prop_assert_eq!(late.clocks(deadline).timeout(), Some((side, deadline)));
            // ... and that is the control's own rule.
            let start = clock.timeline.clock_start(clock.timeline.moves.len());
            let pauses = clock.pauses.get(side);
            let before = clocks.players.get(side);
            prop_assert!(obeys(clock.control, before, pauses.running_time(start, just_before)));
            prop_assert!(!obeys(clock.control, before, pauses.running_time(start, deadline)));
            // Waiting for the move: lost exactly at the deadline, not a moment before.
            prop_assert_eq!(clock.clocks(just_before).timeout(), None);
            prop_assert_eq!(clock.clocks(deadline).timeout(), Some((side, deadline)));
        }

        /// Leave only ever gives a player time: never an earlier deadline.
        #[test]
        fn leave_never_brings_a_deadline_forward(clock in game()) {
            let mut no_leave = clock.clone();
            no_leave.pauses = ByColor::new_with(|_| Pauses::none());
            let with = clock.clocks(base());
            let without = no_leave.clocks(base());
            let side = with.to_move;
            if let (Some(a), Some(b)) = (
                with.players.get(side).next_deadline,
                without.players.get(side).next_deadline,
            ) {
                prop_assert!(a >= b, "with leave {a}, without {b}");
            }
        }
    }
}
