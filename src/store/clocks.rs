//! The time side of the database: leave bookings, what the scheduler has
//! done for each game (its due keys), each game's schedule, and the reads
//! the deadline report makes.
//!
//! The report and the scheduler read only indexed columns kept on the game
//! row (`next_due_at`, `deadline_at`, `to_move`, `waiting_since`), written by
//! [`Tx::set_schedule`] whenever a game or a player's leave changes, so
//! neither replays games to find the few that need attention.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use shakmaty::Color;
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use super::mail::Tx;
use super::{Backend, Store, StoreError, from_millis, to_millis};
use crate::chess::side;
use crate::clock::{DueKey, Leave, LeaveKind, Schedule};
use crate::ids::GameId;
use crate::player::PlayerId;

/// A leave as booked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredLeave {
    /// Row id.
    pub id: i64,
    /// Whose leave.
    pub player: PlayerId,
    /// The event it is for; `None` for the player's games outside events.
    pub event: Option<i64>,
    /// The days, and whether it is special leave.
    pub leave: Leave,
    /// Who booked it: the player's address or the TD.
    pub created_by: String,
    /// Why (special leave).
    pub reason: Option<String>,
    /// When it was booked.
    pub created_at: DateTime<Utc>,
}

/// A leave to book.
#[derive(Debug, Clone)]
pub struct NewLeave<'a> {
    /// Whose leave.
    pub player: PlayerId,
    /// The days and kind.
    pub leave: Leave,
    /// Who booked it.
    pub created_by: &'a str,
    /// Why (special leave).
    pub reason: Option<&'a str>,
}

/// One active game as the deadline report reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WaitingGame {
    /// The game.
    pub game: GameId,
    /// The side to move.
    #[serde(serialize_with = "serialize_side")]
    pub to_move: Color,
    /// The player to move.
    pub player: PlayerId,
    /// Their opponent.
    pub opponent: PlayerId,
    /// The time control spec.
    pub time_control: String,
    /// The deadline of the side to move, if it has one.
    pub deadline: Option<DateTime<Utc>>,
    /// When its clock started on this move.
    pub waiting_since: Option<DateTime<Utc>>,
}

/// A finished game, for "timeouts since the last report".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FinishedGame {
    /// The game.
    pub game: GameId,
    /// White.
    pub white: PlayerId,
    /// Black.
    pub black: PlayerId,
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: String,
    /// The ending as stored.
    pub end_reason: String,
    /// When it ended.
    pub finished_at: DateTime<Utc>,
}

fn serialize_side<S: serde::Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(side::key(*c))
}

const LEAVE_COLUMNS: &str =
    "id, player_id, event_id, first_day, last_day, special, created_by, reason, created_at";

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

fn day(text: &str) -> Result<NaiveDate, StoreError> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|e| corrupt(format!("day '{text}': {e}")))
}

fn leave_from_row(row: &AnyRow) -> Result<StoredLeave, StoreError> {
    let kind = if row.try_get::<i64, _>("special")? != 0 {
        LeaveKind::Special
    } else {
        LeaveKind::Regular
    };
    let (from, to) = (
        day(&row.try_get::<String, _>("first_day")?)?,
        day(&row.try_get::<String, _>("last_day")?)?,
    );
    Ok(StoredLeave {
        id: row.try_get("id")?,
        player: PlayerId(row.try_get("player_id")?),
        event: row.try_get("event_id")?,
        leave: Leave::of_kind(from, to, kind).map_err(corrupt)?,
        created_by: row.try_get("created_by")?,
        reason: row.try_get("reason")?,
        created_at: from_millis(row.try_get("created_at")?)?,
    })
}

fn color_from(text: Option<String>) -> Result<Color, StoreError> {
    // No side to move stored (a finished game): White, as before.
    match text.as_deref() {
        None => Ok(Color::White),
        Some(word) => {
            side::from_key(word).ok_or_else(|| corrupt(format!("unknown colour '{word}'")))
        }
    }
}

fn waiting_from_row(row: &AnyRow) -> Result<WaitingGame, StoreError> {
    let to_move = color_from(row.try_get("to_move")?)?;
    let (white, black) = (
        PlayerId(row.try_get("white_id")?),
        PlayerId(row.try_get("black_id")?),
    );
    let (player, opponent) = match to_move {
        Color::White => (white, black),
        Color::Black => (black, white),
    };
    let time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
        row.try_get::<Option<i64>, _>(name)?
            .map(from_millis)
            .transpose()
    };
    Ok(WaitingGame {
        game: GameId(row.try_get("id")?),
        to_move,
        player,
        opponent,
        time_control: row.try_get("time_control")?,
        deadline: time("deadline_at")?,
        waiting_since: time("waiting_since")?,
    })
}

const WAITING_COLUMNS: &str =
    "id, white_id, black_id, time_control, to_move, deadline_at, waiting_since";

impl Store {
    /// Leave booked (not cancelled), of one player or of all, by first day.
    pub async fn leaves(&self, player: Option<PlayerId>) -> Result<Vec<StoredLeave>, StoreError> {
        let filter = if player.is_some() {
            "AND player_id = $1"
        } else {
            ""
        };
        let query = format!(
            "SELECT {LEAVE_COLUMNS} FROM leave_bookings WHERE cancelled_at IS NULL {filter} \
             ORDER BY first_day, player_id"
        );
        let mut q = sqlx::query(AssertSqlSafe(query));
        if let Some(p) = player {
            q = q.bind(p.0);
        }
        q.fetch_all(self.pool())
            .await?
            .iter()
            .map(leave_from_row)
            .collect()
    }

    /// Leave (not cancelled) that has not ended by `day`, by first day.
    pub async fn leaves_ending_from(&self, day: NaiveDate) -> Result<Vec<StoredLeave>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {LEAVE_COLUMNS} FROM leave_bookings WHERE cancelled_at IS NULL AND last_day >= $1 \
             ORDER BY first_day, player_id"
        )))
        .bind(day.format("%Y-%m-%d").to_string())
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(leave_from_row)
        .collect()
    }

    /// Active games whose side to move has a deadline at or before `until`,
    /// most urgent first.
    pub async fn games_due_by(&self, until: DateTime<Utc>) -> Result<Vec<WaitingGame>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {WAITING_COLUMNS} FROM games WHERE status = 'active' AND deadline_at <= $1 \
             ORDER BY deadline_at, id"
        )))
        .bind(to_millis(until))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(waiting_from_row)
        .collect()
    }

    /// Active games whose side to move has waited since `since` or longer.
    pub async fn games_waiting_since(
        &self,
        since: DateTime<Utc>,
    ) -> Result<Vec<WaitingGame>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {WAITING_COLUMNS} FROM games WHERE status = 'active' AND waiting_since <= $1 \
             ORDER BY waiting_since, id"
        )))
        .bind(to_millis(since))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(waiting_from_row)
        .collect()
    }

    /// Games that finished after `from` and at or before `to`.
    pub async fn games_finished_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        sqlx::query(
            "SELECT id, white_id, black_id, result, end_reason, finished_at FROM games \
             WHERE status = 'finished' AND finished_at > $1 AND finished_at <= $2 ORDER BY finished_at, id",
        )
        .bind(to_millis(from))
        .bind(to_millis(to))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|row| {
            Ok(FinishedGame {
                game: GameId(row.try_get("id")?),
                white: PlayerId(row.try_get("white_id")?),
                black: PlayerId(row.try_get("black_id")?),
                result: row.try_get::<Option<String>, _>("result")?.unwrap_or_default(),
                end_reason: row
                    .try_get::<Option<String>, _>("end_reason")?
                    .unwrap_or_default(),
                finished_at: from_millis(row.try_get("finished_at")?)?,
            })
        })
        .collect()
    }

    /// When a report was last made.
    pub async fn report_last_run(&self, report: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let row = sqlx::query("SELECT last_at FROM report_runs WHERE report = $1")
            .bind(report)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| from_millis(r.try_get("last_at")?)).transpose()
    }

    /// Remembers that a report was made at `at`.
    pub async fn set_report_run(&self, report: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO report_runs (report, last_at) VALUES ($1, $2) \
             ON CONFLICT (report) DO UPDATE SET last_at = excluded.last_at",
        )
        .bind(report)
        .bind(to_millis(at))
        .execute(self.pool())
        .await?;
        Ok(())
    }
}

impl Tx {
    /// A player's leave outside events (not cancelled), by first day.
    pub async fn leaves_of(&mut self, player: PlayerId) -> Result<Vec<StoredLeave>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {LEAVE_COLUMNS} FROM leave_bookings WHERE player_id = $1 AND event_id IS NULL \
             AND cancelled_at IS NULL ORDER BY first_day"
        )))
        .bind(player.0)
        .fetch_all(self.conn())
        .await?
        .iter()
        .map(leave_from_row)
        .collect()
    }

    /// Books a leave; returns its id.
    pub async fn add_leave(
        &mut self,
        new: &NewLeave<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO leave_bookings (player_id, event_id, first_day, last_day, special, created_by, \
             reason, created_at) VALUES ($1, NULL, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(new.player.0)
        .bind(new.leave.from().format("%Y-%m-%d").to_string())
        .bind(new.leave.to().format("%Y-%m-%d").to_string())
        .bind(i64::from(new.leave.kind() == LeaveKind::Special))
        .bind(new.created_by)
        .bind(new.reason)
        .bind(to_millis(now))
        .fetch_one(self.conn())
        .await?;
        Ok(row.try_get("id")?)
    }

    /// Cancels a booked leave.
    pub async fn cancel_leave(&mut self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        sqlx::query("UPDATE leave_bookings SET cancelled_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// What the scheduler already did for a game.
    pub async fn due_keys(&mut self, game: GameId) -> Result<Vec<DueKey>, StoreError> {
        sqlx::query("SELECT due_key FROM due_done WHERE game_id = $1 ORDER BY due_key")
            .bind(game.0)
            .fetch_all(self.conn())
            .await?
            .iter()
            .map(|r| Ok(DueKey::new(r.try_get::<String, _>("due_key")?)))
            .collect()
    }

    /// Records that a due thing was done; `false` if it was recorded before.
    pub async fn record_due(
        &mut self,
        game: GameId,
        key: &DueKey,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "INSERT INTO due_done (game_id, due_key, done_at) VALUES ($1, $2, $3) \
             ON CONFLICT (game_id, due_key) DO NOTHING RETURNING game_id",
        )
        .bind(game.0)
        .bind(key.as_str())
        .bind(to_millis(now))
        .fetch_optional(self.conn())
        .await?;
        Ok(row.is_some())
    }

    /// Stores a game's schedule; `None` for a finished game (never due).
    pub async fn set_schedule(
        &mut self,
        game: GameId,
        schedule: Option<&Schedule>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE games SET next_due_at = $1, deadline_at = $2, to_move = $3, waiting_since = $4 \
             WHERE id = $5",
        )
        .bind(schedule.and_then(|s| s.next_due_at).map(to_millis))
        .bind(schedule.and_then(|s| s.deadline).map(to_millis))
        .bind(schedule.map(|s| side::key(s.to_move)))
        .bind(schedule.map(|s| to_millis(s.waiting_since)))
        .bind(game.0)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Moves a game's next instant to `until` (a game the scheduler could
    /// not handle, set aside for a while).
    pub async fn put_off_game(
        &mut self,
        game: GameId,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE games SET next_due_at = $1 WHERE id = $2")
            .bind(to_millis(until))
            .bind(game.0)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// Takes the most overdue active game whose schedule has come, locking
    /// its row until the transaction ends; on PostgreSQL a game another
    /// daemon holds is skipped, so two schedulers never work on one game.
    pub async fn claim_due_game(
        &mut self,
        now: DateTime<Utc>,
    ) -> Result<Option<GameId>, StoreError> {
        let lock = match self.backend() {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT id FROM games WHERE status = 'active' AND next_due_at <= $1 \
             ORDER BY next_due_at, id LIMIT 1{lock}"
        )))
        .bind(to_millis(now))
        .fetch_optional(self.conn())
        .await?;
        row.map(|r| Ok(GameId(r.try_get("id")?))).transpose()
    }
}
