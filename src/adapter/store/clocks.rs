//! The time side of the database: leave bookings, what the scheduler has
//! done for each game (its due keys), each game's schedule, and the reads
//! the deadline report makes.
//!
//! The report and the scheduler read only indexed columns kept on the game
//! row (`next_due_at`, `deadline_at`, `to_move`, `waiting_since`), written by
//! [`Tx::set_schedule`] whenever a game or a player's leave changes, so
//! neither replays games to find the few that need attention.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use super::{Store, StoreError, Tx, corrupt, from_millis, to_millis};
use crate::domain::clock::{DueKey, Leave, LeaveKind};
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::PlayerId;

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

const LEAVE_COLUMNS: &str =
    "id, player_id, event_id, first_day, last_day, special, created_by, reason, created_at";

fn day(text: &str) -> Result<NaiveDate, StoreError> {
    NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|e| corrupt(format!("day '{text}': {e}")))
}

fn leave_from_row(row: &Row) -> Result<StoredLeave, StoreError> {
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
        let mut q = super::sql::query(AssertSqlSafe(query));
        if let Some(p) = player {
            q = q.bind(p.0);
        }
        q.fetch_all(self.pool())
            .await?
            .iter()
            .map(leave_from_row)
            .collect()
    }

    /// When a report was last made.
    pub async fn report_last_run(&self, report: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let row = super::sql::query("SELECT last_at FROM report_runs WHERE report = $1")
            .bind(report)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| from_millis(r.try_get("last_at")?)).transpose()
    }

    /// Remembers that a report was made at `at`.
    pub async fn set_report_run(&self, report: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        super::sql::query(
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
        super::sql::query(AssertSqlSafe(format!(
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

    /// The leave of both players of a game, in one statement (it is read
    /// for every move): [`Tx::leaves_of`] for each of `players`.
    pub async fn leaves_of_both(
        &mut self,
        players: [PlayerId; 2],
    ) -> Result<[Vec<StoredLeave>; 2], StoreError> {
        let rows = super::sql::query(AssertSqlSafe(format!(
            "SELECT {LEAVE_COLUMNS} FROM leave_bookings WHERE player_id IN ($1, $2) \
             AND event_id IS NULL AND cancelled_at IS NULL ORDER BY first_day, id"
        )))
        .bind(players[0].0)
        .bind(players[1].0)
        .fetch_all(self.conn())
        .await?;
        let mut out = [Vec::new(), Vec::new()];
        for row in &rows {
            let leave = leave_from_row(row)?;
            for (i, p) in players.iter().enumerate() {
                if leave.player == *p {
                    out[i].push(leave.clone());
                }
            }
        }
        Ok(out)
    }

    /// Books a leave; returns its id.
    pub async fn add_leave(
        &mut self,
        new: &NewLeave<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = super::sql::query(
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
        row.try_get("id")
    }

    /// Cancels a booked leave.
    pub async fn cancel_leave(&mut self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        super::sql::query("UPDATE leave_bookings SET cancelled_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// What the scheduler already did for a game.
    pub async fn due_keys(&mut self, game: GameId) -> Result<Vec<DueKey>, StoreError> {
        super::sql::query("SELECT due_key FROM due_done WHERE game_id = $1 ORDER BY due_key")
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
        let row = super::sql::query(
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
}

impl Tx {
    /// Records a player's digest for a day; `false` when it was sent already.
    pub async fn record_digest(
        &mut self,
        player: PlayerId,
        day: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let row = super::sql::query(
            "INSERT INTO digests (player_id, day, sent_at) VALUES ($1, $2, $3) \
             ON CONFLICT (player_id, day) DO NOTHING RETURNING player_id",
        )
        .bind(player.0)
        .bind(day)
        .bind(to_millis(now))
        .fetch_optional(&mut self.tx)
        .await?;
        Ok(row.is_some())
    }
}

/// A leave as the deadline report lists it, with the player's name and
/// address (`None`: no such player row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedLeave {
    /// The leave.
    pub leave: StoredLeave,
    /// The player's name.
    pub name: Option<String>,
    /// The player's address.
    pub email: Option<String>,
}

impl Tx {
    /// Leave (not cancelled) that has not ended by `day`, by first day: of
    /// every player, or (`Some(event)`) of the players of that event's games.
    pub async fn leaves_ending_from(
        &mut self,
        day: NaiveDate,
        event: Option<EventId>,
    ) -> Result<Vec<NamedLeave>, StoreError> {
        let columns: Vec<String> = LEAVE_COLUMNS
            .split(", ")
            .map(|c| format!("l.{c}"))
            .collect();
        let filter = match event {
            Some(_) => {
                "AND EXISTS (SELECT 1 FROM games g WHERE g.event_id = $2 \
                 AND (g.white_id = l.player_id OR g.black_id = l.player_id))"
            }
            None => "",
        };
        let mut q = super::sql::query(AssertSqlSafe(format!(
            "SELECT {}, p.name AS player_name, p.email AS player_email \
             FROM leave_bookings l LEFT JOIN players p ON p.id = l.player_id \
             WHERE l.cancelled_at IS NULL AND l.last_day >= $1 {filter} \
             ORDER BY l.first_day, l.player_id",
            columns.join(", ")
        )))
        .bind(day.format("%Y-%m-%d").to_string());
        if let Some(e) = event {
            q = q.bind(e.0);
        }
        q.fetch_all(self.conn())
            .await?
            .iter()
            .map(|row| {
                Ok(NamedLeave {
                    leave: leave_from_row(row)?,
                    name: row.try_get("player_name")?,
                    email: row.try_get("player_email")?,
                })
            })
            .collect()
    }
}
