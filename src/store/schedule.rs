//! The games table's schedule columns: when each game next needs the
//! scheduler, whose move it is and by when, and the games the deadline
//! report lists (waiting, due, finished). Still the `games` table, kept in a
//! file of its own so each file holds one concern.

use chrono::{DateTime, Utc};
use serde::Serialize;
use shakmaty::Color;
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use super::{Backend, Store, StoreError, Tx, corrupt, from_millis, to_millis};
use crate::chess::side;
use crate::clock::Schedule;
use crate::ids::GameId;
use crate::player::PlayerId;

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
}

impl Tx {
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
