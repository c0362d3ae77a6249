//! The TD deadline report: games past or near their deadline, silent
//! players, players on leave now and next, and timeouts since the last
//! report, most urgent first; as text, CSV or JSON.
//!
//! It reads only indexed columns the daemon keeps on each game
//! (`deadline_at`, `waiting_since`; see [`crate::store::clocks`]), so it
//! costs what it reports, not the number of games. `at` is the instant the
//! report is made for: the stored clocks are projected to it, so a later
//! `at` shows what will be late by then; moves made after a past `at` are
//! not taken back out.

pub mod by_mail;

use std::collections::HashMap;
use std::fmt::Write as _;

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use serde::Serialize;

use crate::chess::game::{EndReason, GameResult, Outcome};
use crate::ids::EventId;
use crate::mail::compose::{ReportGame, ReportLeave, ReportTimeout, ReportView};
use crate::player::{Player, PlayerId};
use crate::store::schedule::WaitingGame;
use crate::store::{Store, StoreError};

/// Why a game is in the report, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    /// The deadline has passed (the scheduler ends such games at once; seen
    /// when the daemon is not running, or for a later `at`).
    Overdue,
    /// The deadline falls within the window asked for.
    DueSoon,
    /// The player to move has been silent for a threshold of days or more.
    Silent,
}

/// One game in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameLine {
    /// Why it is listed.
    pub urgency: Urgency,
    /// The game's number.
    pub game: i64,
    /// The player to move.
    pub player: String,
    /// Their address.
    pub email: String,
    /// Their opponent.
    pub opponent: String,
    /// The time control.
    pub time_control: String,
    /// The deadline of the player to move.
    pub deadline: Option<DateTime<Utc>>,
    /// When their clock started on this move.
    pub waiting_since: Option<DateTime<Utc>>,
    /// Whole days since then (wall time).
    pub silent_days: i64,
}

/// A player on leave now or next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaveLine {
    /// The player.
    pub player: String,
    /// Their address.
    pub email: String,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Whether the leave is under way at `at`.
    pub now: bool,
    /// Special leave granted by a TD.
    pub special: bool,
}

/// A game lost (or drawn) on time since the last report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeoutLine {
    /// The game's number.
    pub game: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The result.
    pub result: String,
    /// The ending in words.
    pub reason: String,
    /// When time ran out.
    pub at: DateTime<Utc>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeadlineReport {
    /// The instant it is made for.
    pub at: DateTime<Utc>,
    /// Deadlines up to this instant count as due soon.
    pub due_until: DateTime<Utc>,
    /// Timeouts after this instant are listed.
    pub timeouts_since: DateTime<Utc>,
    /// Games, most urgent first.
    pub games: Vec<GameLine>,
    /// Leave under way, then leave to come, by first day.
    pub leave: Vec<LeaveLine>,
    /// Games ended on time, oldest first.
    pub timeouts: Vec<TimeoutLine>,
}

/// What to report.
#[derive(Debug, Clone, Copy)]
pub struct ReportAsk {
    /// The instant to report for.
    pub at: DateTime<Utc>,
    /// Deadlines this soon after `at` count as due soon.
    pub within: TimeDelta,
    /// List timeouts after this instant.
    pub since: DateTime<Utc>,
    /// Silence thresholds in days (ICCF 14, 28, 35); the smallest selects.
    pub silence_days: &'static [i64],
}

/// The ICCF silence thresholds.
pub const SILENCE_DAYS: &[i64] = &[14, 28, 35];

fn is_timeout(result: &str, reason: &str) -> bool {
    GameResult::from_pgn(result)
        .and_then(|r| Outcome::from_description(r, reason))
        .is_some_and(|o| {
            matches!(
                o.reason,
                EndReason::TimeForfeit | EndReason::TimeForfeitOpponentCannotMate
            )
        })
}

/// The games and players of one event, to narrow a report to it.
struct Scope {
    games: std::collections::HashSet<i64>,
    players: std::collections::HashSet<PlayerId>,
}

impl Scope {
    async fn of(store: &Store, event: EventId) -> Result<Scope, StoreError> {
        let mut scope = Scope {
            games: Default::default(),
            players: Default::default(),
        };
        for (game, white, black) in store.event_game_players(event).await? {
            scope.games.insert(game.0);
            scope.players.insert(white);
            scope.players.insert(black);
        }
        Ok(scope)
    }
}

/// Whether an event of this number exists.
pub async fn event_exists(store: &Store, event: EventId) -> Result<bool, StoreError> {
    store.event_exists(event).await
}

/// The events that have games in progress: those whose TDs get the daily report.
pub async fn events_with_active_games(store: &Store) -> Result<Vec<EventId>, StoreError> {
    store.events_with_active_games().await
}

/// The report a TD asks for on the command line (`dopis report
/// deadlines`): of one event or all, at `at` (the present if `None`), with
/// the timeouts since `since` or else since this report's last run of the
/// present (a week back at most). A report of the present is remembered as
/// the last run, for the next one's timeouts; one of another time is a
/// look, not a report.
pub async fn on_request(
    store: &Store,
    event: Option<EventId>,
    at: Option<DateTime<Utc>>,
    within: TimeDelta,
    since: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<DeadlineReport, StoreError> {
    // Each event's report remembers its own last run, for its timeouts.
    let run = match event {
        Some(id) => format!("deadlines.e{}", id.0),
        None => "deadlines".to_string(),
    };
    let of_present = at.is_none();
    let at = at.unwrap_or(now);
    let since = match since {
        Some(s) => s,
        None => store
            .report_last_run(&run)
            .await?
            .filter(|last| *last < at)
            .unwrap_or(at - TimeDelta::days(7)),
    };
    let ask = ReportAsk {
        at,
        within,
        since,
        silence_days: SILENCE_DAYS,
    };
    let report = deadlines_in(store, ask, event).await?;
    if of_present {
        store.set_report_run(&run, now).await?;
    }
    Ok(report)
}

/// Fills an empty scratch database with `games` active games (and some
/// finished on time, and leave) around `at`, for `dopis bench report`;
/// refuses a database that holds games, saying how many.
pub async fn seed_for_bench(store: &Store, games: u32, at: DateTime<Utc>) -> Result<(), BenchSeed> {
    let existing = store.game_count().await?;
    if existing > 0 {
        return Err(BenchSeed::NotEmpty(existing));
    }
    store.seed_bench(games, at).await?;
    Ok(())
}

/// Why a bench database could not be seeded.
#[derive(Debug, thiserror::Error)]
pub enum BenchSeed {
    /// The database holds games already.
    #[error("the database already holds {0} games: give an empty scratch database")]
    NotEmpty(i64),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Makes the report from the store, of every game.
pub async fn deadlines(store: &Store, ask: ReportAsk) -> Result<DeadlineReport, StoreError> {
    deadlines_in(store, ask, None).await
}

/// Makes the report of one event's games and players (`Some`), or of all.
/// The event's games are looked up by their indexed `event_id` and the
/// report's lines kept to them: the report still reads only the games it
/// could list.
pub async fn deadlines_in(
    store: &Store,
    ask: ReportAsk,
    event: Option<EventId>,
) -> Result<DeadlineReport, StoreError> {
    let scope = match event {
        Some(e) => Some(Scope::of(store, e).await?),
        None => None,
    };
    let in_game = |id: i64| scope.as_ref().is_none_or(|s| s.games.contains(&id));
    let in_players = |id: PlayerId| scope.as_ref().is_none_or(|s| s.players.contains(&id));
    let players: HashMap<PlayerId, Player> = store
        .players()
        .await?
        .into_iter()
        .map(|p| (p.id, p))
        .collect();
    let name = |id: PlayerId| {
        players
            .get(&id)
            .map_or_else(|| format!("player {}", id.0), |p| p.name.clone())
    };
    let email = |id: PlayerId| {
        players
            .get(&id)
            .map_or_else(String::new, |p| p.email.to_string())
    };
    let due_until = ask.at + ask.within;
    let first_silence = ask.silence_days.iter().copied().min().unwrap_or(14);
    let due = store.games_due_by(due_until).await?;
    let silent = store
        .games_waiting_since(ask.at - TimeDelta::days(first_silence))
        .await?;
    let mut seen = std::collections::HashSet::new();
    let mut games = Vec::with_capacity(due.len() + silent.len());
    let line = |g: &WaitingGame, urgency: Urgency| GameLine {
        urgency,
        game: g.game.0,
        player: name(g.player),
        email: email(g.player),
        opponent: name(g.opponent),
        time_control: g.time_control.clone(),
        deadline: g.deadline,
        waiting_since: g.waiting_since,
        silent_days: g
            .waiting_since
            .map_or(0, |s| (ask.at - s).num_days().max(0)),
    };
    for g in due.iter().filter(|g| in_game(g.game.0)) {
        seen.insert(g.game);
        let urgency = if g.deadline.is_some_and(|d| d <= ask.at) {
            Urgency::Overdue
        } else {
            Urgency::DueSoon
        };
        games.push(line(g, urgency));
    }
    for g in silent
        .iter()
        .filter(|g| !seen.contains(&g.game) && in_game(g.game.0))
    {
        games.push(line(g, Urgency::Silent));
    }
    // Most urgent first: overdue and due by deadline, silent by the longest silence.
    games.sort_by(|a, b| {
        a.urgency
            .cmp(&b.urgency)
            .then_with(|| match a.urgency {
                Urgency::Silent => a.waiting_since.cmp(&b.waiting_since),
                _ => a.deadline.cmp(&b.deadline),
            })
            .then(a.game.cmp(&b.game))
    });
    let today = ask.at.date_naive();
    let mut leave: Vec<LeaveLine> = store
        .leaves_ending_from(today)
        .await?
        .into_iter()
        .filter(|l| in_players(l.player))
        .map(|l| LeaveLine {
            player: name(l.player),
            email: email(l.player),
            from: l.leave.from(),
            to: l.leave.to(),
            now: l.leave.contains(today),
            special: l.leave.kind() == crate::clock::LeaveKind::Special,
        })
        .collect();
    leave.sort_by(|a, b| {
        b.now
            .cmp(&a.now)
            .then(a.from.cmp(&b.from))
            .then(a.player.cmp(&b.player))
    });
    let timeouts = store
        .games_finished_between(ask.since, ask.at)
        .await?
        .into_iter()
        .filter(|g| in_game(g.game.0) && is_timeout(&g.result, &g.end_reason))
        .map(|g| TimeoutLine {
            game: g.game.0,
            white: name(g.white),
            black: name(g.black),
            result: g.result,
            reason: g.end_reason,
            at: g.finished_at,
        })
        .collect();
    Ok(DeadlineReport {
        at: ask.at,
        due_until,
        timeouts_since: ask.since,
        games,
        leave,
        timeouts,
    })
}

fn when(t: Option<DateTime<Utc>>) -> String {
    t.map_or_else(
        || "-".into(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

/// The silence band a number of days falls in: the largest threshold reached.
fn band(days: i64, thresholds: &[i64]) -> i64 {
    thresholds
        .iter()
        .copied()
        .filter(|t| days >= *t)
        .max()
        .unwrap_or(0)
}

impl DeadlineReport {
    /// The report as text for a TD.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Deadline report at {}", when(Some(self.at)));
        let section = |out: &mut String, title: &str, urgency: Urgency| {
            let lines: Vec<&GameLine> =
                self.games.iter().filter(|g| g.urgency == urgency).collect();
            let _ = writeln!(out, "\n{title} ({}):", lines.len());
            if lines.is_empty() {
                let _ = writeln!(out, "  none");
            }
            for g in lines {
                let what = match urgency {
                    Urgency::Silent => format!(
                        "silent {} days (14/28/35: {}+), deadline {}",
                        g.silent_days,
                        band(g.silent_days, SILENCE_DAYS),
                        when(g.deadline)
                    ),
                    _ => format!("deadline {}", when(g.deadline)),
                };
                // Two lines, so the report fits a mail's 78 columns.
                let _ = writeln!(
                    out,
                    "  #{:<6} {} <{}> to move against {} ({})\n          {what}",
                    g.game, g.player, g.email, g.opponent, g.time_control
                );
            }
        };
        section(&mut out, "Past the deadline", Urgency::Overdue);
        section(
            &mut out,
            &format!("Due by {}", when(Some(self.due_until))),
            Urgency::DueSoon,
        );
        section(&mut out, "Silent 14+ days", Urgency::Silent);
        let _ = writeln!(out, "\nOn leave now and next ({}):", self.leave.len());
        if self.leave.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for l in &self.leave {
            let _ = writeln!(
                out,
                "  {} <{}>: {} to {}{}{}",
                l.player,
                l.email,
                l.from,
                l.to,
                if l.now { " (now)" } else { "" },
                if l.special { " special" } else { "" }
            );
        }
        let _ = writeln!(
            out,
            "\nTimeouts since {} ({}):",
            when(Some(self.timeouts_since)),
            self.timeouts.len()
        );
        if self.timeouts.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for t in &self.timeouts {
            let _ = writeln!(
                out,
                "  #{:<6} {} - {} {} at {}: {}",
                t.game,
                t.white,
                t.black,
                t.result,
                when(Some(t.at)),
                t.reason
            );
        }
        out
    }

    /// The report as a mail shows it (the templates give it words in the
    /// reader's language).
    pub fn view(&self) -> ReportView {
        let games = |urgency: Urgency| -> Vec<ReportGame> {
            self.games
                .iter()
                .filter(|g| g.urgency == urgency)
                .map(|g| ReportGame {
                    game: g.game,
                    tag: format!("#{:<6}", g.game),
                    player: g.player.clone(),
                    email: g.email.clone(),
                    opponent: g.opponent.clone(),
                    time_control: g.time_control.clone(),
                    deadline: when(g.deadline),
                    silent_days: g.silent_days,
                    band: band(g.silent_days, SILENCE_DAYS),
                })
                .collect()
        };
        ReportView {
            at: when(Some(self.at)),
            due_until: when(Some(self.due_until)),
            timeouts_since: when(Some(self.timeouts_since)),
            overdue: games(Urgency::Overdue),
            due_soon: games(Urgency::DueSoon),
            silent: games(Urgency::Silent),
            leave: self
                .leave
                .iter()
                .map(|l| ReportLeave {
                    player: l.player.clone(),
                    email: l.email.clone(),
                    from: l.from.to_string(),
                    to: l.to.to_string(),
                    now: l.now,
                    special: l.special,
                })
                .collect(),
            timeouts: self
                .timeouts
                .iter()
                .map(|t| ReportTimeout {
                    game: t.game,
                    tag: format!("#{:<6}", t.game),
                    white: t.white.clone(),
                    black: t.black.clone(),
                    result: t.result.clone(),
                    drawn: GameResult::from_pgn(&t.result) == Some(GameResult::Draw),
                    at: when(Some(t.at)),
                })
                .collect(),
        }
    }

    /// The report as CSV: one row per game, leave and timeout, with a
    /// `section` column.
    pub fn to_csv(&self) -> String {
        let mut out =
            String::from("section,game,player,email,opponent,time_control,deadline,since,days\n");
        let cell = |s: &str| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let iso = |t: Option<DateTime<Utc>>| t.map(|t| t.to_rfc3339()).unwrap_or_default();
        for g in &self.games {
            let section = match g.urgency {
                Urgency::Overdue => "overdue",
                Urgency::DueSoon => "due_soon",
                Urgency::Silent => "silent",
            };
            let _ = writeln!(
                out,
                "{section},{},{},{},{},{},{},{},{}",
                g.game,
                cell(&g.player),
                cell(&g.email),
                cell(&g.opponent),
                cell(&g.time_control),
                iso(g.deadline),
                iso(g.waiting_since),
                g.silent_days
            );
        }
        for l in &self.leave {
            let _ = writeln!(
                out,
                "{},,{},{},,,{},{},",
                if l.now { "on_leave" } else { "leave_next" },
                cell(&l.player),
                cell(&l.email),
                l.to,
                l.from
            );
        }
        for t in &self.timeouts {
            let _ = writeln!(
                out,
                "timeout,{},{},,{},{},{},,",
                t.game,
                cell(&t.white),
                cell(&t.black),
                cell(&t.result),
                t.at.to_rfc3339()
            );
        }
        out
    }
}

/// An empty scratch database on the PostgreSQL server of `admin_url`, for
/// the bench: its URL and its name (to drop it with [`drop_bench_postgres`]).
pub async fn bench_postgres(admin_url: &str) -> Result<(String, String), StoreError> {
    crate::store::bench::scratch_postgres(admin_url).await
}

/// Drops a scratch database [`bench_postgres`] made.
pub async fn drop_bench_postgres(admin_url: &str, name: &str) -> Result<(), StoreError> {
    crate::store::bench::drop_scratch_postgres(admin_url, name).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_falls_in_the_largest_threshold_reached() {
        for (days, expected) in [(13, 0), (14, 14), (27, 14), (28, 28), (35, 35), (400, 35)] {
            assert_eq!(band(days, SILENCE_DAYS), expected, "{days}");
        }
    }

    #[test]
    fn only_time_endings_are_timeouts() {
        for (outcome, expected) in [
            (
                Outcome::new(GameResult::BlackWins, EndReason::TimeForfeit),
                true,
            ),
            (
                Outcome::draw(EndReason::TimeForfeitOpponentCannotMate),
                true,
            ),
            (
                Outcome::new(GameResult::WhiteWins, EndReason::Checkmate),
                false,
            ),
            (
                Outcome::new(GameResult::WhiteWins, EndReason::Resignation),
                false,
            ),
            (Outcome::draw(EndReason::Agreement), false),
        ] {
            let text = outcome.to_string();
            assert_eq!(
                is_timeout(outcome.result.as_pgn(), &text),
                expected,
                "{text}"
            );
        }
        assert!(!is_timeout("garbage", "White wins on time."));
    }
}
