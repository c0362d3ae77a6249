//! What TDs did to an event's games (the action log) and the deadline
//! extensions they granted. Every statement runs inside a [`Tx`], so an
//! action, its log line and the mails it causes commit together.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{StoreError, Tx, from_millis, small, to_millis};
use crate::domain::ids::{EventId, GameId};

/// A TD action to record.
#[derive(Debug, Clone)]
pub struct NewTdAction<'a> {
    /// The event, if the action concerns one.
    pub event: Option<EventId>,
    /// The game, if the action concerns one.
    pub game: Option<GameId>,
    /// `result`, `withdraw`, `replace` or `extend`.
    pub action: &'a str,
    /// The TD's address.
    pub by: &'a str,
    /// What was done, in words.
    pub detail: &'a str,
    /// Why.
    pub reason: &'a str,
}

/// A recorded TD action.
#[derive(Debug, Clone, Serialize)]
pub struct TdAction {
    /// Row id.
    pub id: i64,
    /// The event.
    pub event: Option<EventId>,
    /// The game.
    pub game: Option<GameId>,
    /// What kind of action.
    pub action: String,
    /// Who did it.
    pub by: String,
    /// What was done.
    pub detail: String,
    /// Why.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A deadline extension granted by a TD, for the clock to apply.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlineExtension {
    /// The game.
    pub game: GameId,
    /// `white` or `black`.
    pub side: String,
    /// Days added.
    pub days: u32,
    /// The TD.
    pub granted_by: String,
    /// Why.
    pub reason: String,
    /// When.
    pub granted_at: DateTime<Utc>,
}

impl Tx {
    /// Records a TD action; returns its id.
    pub async fn record_td_action(
        &mut self,
        a: &NewTdAction<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = super::sql::query(
            "INSERT INTO td_actions (event_id, game_id, action, by_td, detail, reason, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(a.event.map(|e| e.0))
        .bind(a.game.map(|g| g.0))
        .bind(a.action)
        .bind(a.by)
        .bind(a.detail)
        .bind(a.reason)
        .bind(to_millis(now))
        .fetch_one(&mut self.tx)
        .await?;
        row.try_get("id")
    }
    /// The TD actions on an event and its games, oldest first.
    pub async fn td_actions(&mut self, event: EventId) -> Result<Vec<TdAction>, StoreError> {
        super::sql::query(
            "SELECT id, event_id, game_id, action, by_td, detail, reason, created_at FROM td_actions \
             WHERE event_id = $1 ORDER BY id",
        )
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(TdAction {
                id: r.try_get("id")?,
                event: r.try_get::<Option<i64>, _>("event_id")?.map(EventId),
                game: r.try_get::<Option<i64>, _>("game_id")?.map(GameId),
                action: r.try_get("action")?,
                by: r.try_get("by_td")?,
                detail: r.try_get("detail")?,
                reason: r.try_get("reason")?,
                at: from_millis(r.try_get("created_at")?)?,
            })
        })
        .collect()
    }
    /// Stores a deadline extension for the clock to apply.
    pub async fn add_deadline_extension(
        &mut self,
        e: &DeadlineExtension,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO deadline_extensions (game_id, side, days, granted_by, reason, granted_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(e.game.0)
        .bind(&e.side)
        .bind(i64::from(e.days))
        .bind(&e.granted_by)
        .bind(&e.reason)
        .bind(to_millis(e.granted_at))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
    /// The deadline extensions of a game, oldest first.
    pub async fn deadline_extensions(
        &mut self,
        game: GameId,
    ) -> Result<Vec<DeadlineExtension>, StoreError> {
        super::sql::query(
            "SELECT game_id, side, days, granted_by, reason, granted_at FROM deadline_extensions \
             WHERE game_id = $1 ORDER BY id",
        )
        .bind(game.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(DeadlineExtension {
                game: GameId(r.try_get("game_id")?),
                side: r.try_get("side")?,
                days: small(r.try_get("days")?, "days")?,
                granted_by: r.try_get("granted_by")?,
                reason: r.try_get("reason")?,
                granted_at: from_millis(r.try_get("granted_at")?)?,
            })
        })
        .collect()
    }
}
