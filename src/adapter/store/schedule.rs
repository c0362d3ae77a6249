//! The games table's schedule columns: when each game next needs the
//! scheduler, whose move it is and by when, and the games the deadline
//! report lists (waiting, due, finished). Still the `games` table, kept in a
//! file of its own so each file holds one concern.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, Utc};
use serde::Serialize;
use shakmaty::Color;

use super::{Backend, StoreError, Tx, corrupt, from_millis, to_millis};
use crate::domain::chess::side;
use crate::domain::clock::Schedule;
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::PlayerId;

/// Which of the report's game lines to read: each band is one indexed
/// range of the games table, in the report's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportBand {
    /// Deadline at or before `at`, earliest first.
    Overdue {
        /// The report's instant.
        at: DateTime<Utc>,
    },
    /// Deadline after `at` and at or before `until`, earliest first.
    DueSoon {
        /// The report's instant.
        at: DateTime<Utc>,
        /// The end of the due window.
        until: DateTime<Utc>,
    },
    /// Waiting since `since` or longer and not due by `due_until` (those
    /// games are in the bands above), longest waiting first.
    Silent {
        /// The silence threshold as an instant.
        since: DateTime<Utc>,
        /// The end of the due window.
        due_until: DateTime<Utc>,
    },
}

impl ReportBand {
    /// The condition on `games g` and its parameters (`$1`, `$2`), and the order.
    fn sql(self) -> (&'static str, Vec<i64>, &'static str) {
        match self {
            ReportBand::Overdue { at } => (
                "g.deadline_at <= $1",
                vec![to_millis(at)],
                "g.deadline_at, g.id",
            ),
            ReportBand::DueSoon { at, until } => (
                "g.deadline_at > $1 AND g.deadline_at <= $2",
                vec![to_millis(at), to_millis(until)],
                "g.deadline_at, g.id",
            ),
            ReportBand::Silent { since, due_until } => (
                "g.waiting_since <= $1 AND (g.deadline_at IS NULL OR g.deadline_at > $2)",
                vec![to_millis(since), to_millis(due_until)],
                "g.waiting_since, g.id",
            ),
        }
    }
}

/// One active game as the deadline report lists it, with the names of its
/// players (`None`: no such player row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRow {
    /// The game.
    pub game: GameId,
    /// The player to move.
    pub player: PlayerId,
    /// Their name.
    pub player_name: Option<String>,
    /// Their address.
    pub player_email: Option<String>,
    /// Their opponent.
    pub opponent: PlayerId,
    /// The opponent's name.
    pub opponent_name: Option<String>,
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
    /// White's name (`None`: no such player row).
    pub white_name: Option<String>,
    /// Black.
    pub black: PlayerId,
    /// Black's name.
    pub black_name: Option<String>,
    /// `1-0`, `0-1`, `1/2-1/2`.
    pub result: String,
    /// The ending as stored.
    pub end_reason: String,
    /// When it ended.
    pub finished_at: DateTime<Utc>,
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

fn report_row(row: &Row) -> Result<ReportRow, StoreError> {
    let white = (
        PlayerId(row.try_get("white_id")?),
        row.try_get::<Option<String>, _>("white_name")?,
        row.try_get::<Option<String>, _>("white_email")?,
    );
    let black = (
        PlayerId(row.try_get("black_id")?),
        row.try_get::<Option<String>, _>("black_name")?,
        row.try_get::<Option<String>, _>("black_email")?,
    );
    let (player, opponent) = match color_from(row.try_get("to_move")?)? {
        Color::White => (white, black),
        Color::Black => (black, white),
    };
    let time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
        row.try_get::<Option<i64>, _>(name)?
            .map(from_millis)
            .transpose()
    };
    Ok(ReportRow {
        game: GameId(row.try_get("id")?),
        player: player.0,
        player_name: player.1,
        player_email: player.2,
        opponent: opponent.0,
        opponent_name: opponent.1,
        time_control: row.try_get("time_control")?,
        deadline: time("deadline_at")?,
        waiting_since: time("waiting_since")?,
    })
}

/// `AND g.event_id = $n` when the report keeps to one event, `n` the
/// parameter after the band's own.
fn event_filter(event: Option<EventId>, n: usize) -> String {
    match event {
        Some(_) => format!("AND g.event_id = ${n}"),
        None => String::new(),
    }
}

/// A statement's parameters bound in order.
fn bound(sql: String, params: impl IntoIterator<Item = i64>) -> super::sql::Query {
    let mut q = super::sql::query(AssertSqlSafe(sql));
    for p in params {
        q = q.bind(p);
    }
    q
}

impl Tx {
    /// How many active games (of one event, or of all) a band of the
    /// deadline report lists.
    pub async fn count_report_band(
        &mut self,
        band: ReportBand,
        event: Option<EventId>,
    ) -> Result<i64, StoreError> {
        let (condition, mut params, _) = band.sql();
        let filter = event_filter(event, params.len() + 1);
        params.extend(event.map(|e| e.0));
        let sql = format!(
            "SELECT COUNT(*) AS n FROM games g WHERE g.status = 'active' AND {condition} {filter}"
        );
        bound(sql, params)
            .fetch_one(self.conn())
            .await?
            .try_get("n")
    }

    /// The active games (of one event, or of all) of a band of the deadline
    /// report, in the report's order, handed to `each` one at a time as
    /// they are read: memory does not grow with the games listed.
    pub async fn each_in_report_band<E: From<StoreError>>(
        &mut self,
        band: ReportBand,
        event: Option<EventId>,
        mut each: impl FnMut(ReportRow) -> Result<(), E>,
    ) -> Result<(), E> {
        let (condition, mut params, order) = band.sql();
        let filter = event_filter(event, params.len() + 1);
        params.extend(event.map(|e| e.0));
        let sql = format!(
            "SELECT g.id, g.white_id, g.black_id, g.time_control, g.to_move, g.deadline_at, \
             g.waiting_since, w.name AS white_name, w.email AS white_email, \
             b.name AS black_name, b.email AS black_email \
             FROM games g LEFT JOIN players w ON w.id = g.white_id \
             LEFT JOIN players b ON b.id = g.black_id \
             WHERE g.status = 'active' AND {condition} {filter} ORDER BY {order}"
        );
        bound(sql, params)
            .for_each(self.conn(), |row| each(report_row(&row)?))
            .await
    }

    /// Games (of one event, or of all) that finished after `from` and at
    /// or before `to`, with their players' names, by when they ended.
    pub async fn games_finished_between(
        &mut self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        event: Option<EventId>,
    ) -> Result<Vec<FinishedGame>, StoreError> {
        let filter = event_filter(event, 3);
        let sql = format!(
            "SELECT g.id, g.white_id, g.black_id, g.result, g.end_reason, g.finished_at, \
             w.name AS white_name, b.name AS black_name \
             FROM games g LEFT JOIN players w ON w.id = g.white_id \
             LEFT JOIN players b ON b.id = g.black_id \
             WHERE g.status = 'finished' AND g.finished_at > $1 AND g.finished_at <= $2 {filter} \
             ORDER BY g.finished_at, g.id"
        );
        let params = [to_millis(from), to_millis(to)]
            .into_iter()
            .chain(event.map(|e| e.0));
        bound(sql, params)
            .fetch_all(self.conn())
            .await?
            .iter()
            .map(|row| {
                Ok(FinishedGame {
                    game: GameId(row.try_get("id")?),
                    white: PlayerId(row.try_get("white_id")?),
                    white_name: row.try_get("white_name")?,
                    black: PlayerId(row.try_get("black_id")?),
                    black_name: row.try_get("black_name")?,
                    result: row
                        .try_get::<Option<String>, _>("result")?
                        .unwrap_or_default(),
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
        super::sql::query(
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
        super::sql::query("UPDATE games SET next_due_at = $1 WHERE id = $2")
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
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT id FROM games WHERE status = 'active' AND next_due_at <= $1 \
             ORDER BY next_due_at, id LIMIT 1{lock}"
        )))
        .bind(to_millis(now))
        .fetch_optional(self.conn())
        .await?;
        row.map(|r| Ok(GameId(r.try_get("id")?))).transpose()
    }
}
