//! Bounces and paused players: each hard bounce of one of our mails once,
//! and whether a player's mail is held (see `migrations/*/0010_bounces.sql`).

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;

use super::mail::Tx;
use super::{Store, StoreError, from_millis, to_millis};
use crate::address::EmailAddress;
use crate::player::PlayerId;

/// Why and since when a player's mail is held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pause {
    /// When the player was paused.
    pub since: DateTime<Utc>,
    /// Why, in words (how many bounces, the last status).
    pub reason: String,
}

/// A bounce to record.
#[derive(Debug, Clone)]
pub struct NewBounce<'a> {
    /// The player whose address bounced.
    pub player: PlayerId,
    /// The Message-ID of our mail that came back.
    pub message_id: &'a str,
    /// The DSN status, e.g. `5.1.1`.
    pub status: Option<&'a str>,
    /// The inbound key of the bounce.
    pub mail_key: &'a str,
    /// When the bounce reached our mailbox.
    pub received_at: DateTime<Utc>,
}

impl Tx {
    /// The first of `message_ids` that the outbox holds as a mail to
    /// `recipient`: proof that a bounce is about a mail we sent them.
    pub async fn our_mail_to(
        &mut self,
        message_ids: &[&str],
        recipient: &str,
    ) -> Result<Option<String>, StoreError> {
        for id in message_ids {
            let row = sqlx::query(
                "SELECT message_id FROM outbox WHERE message_id = $1 AND recipient = $2 LIMIT 1",
            )
            .bind(*id)
            .bind(recipient)
            .fetch_optional(&mut *self.tx)
            .await?;
            if let Some(row) = row {
                return Ok(Some(row.try_get("message_id")?));
            }
        }
        Ok(None)
    }

    /// Records a hard bounce; `false` when that mail of ours had bounced
    /// already (it counts once).
    pub async fn record_bounce(&mut self, b: &NewBounce<'_>) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "INSERT INTO bounces (player_id, message_id, status, mail_key, received_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player_id, message_id) DO NOTHING \
             RETURNING id",
        )
        .bind(b.player.0)
        .bind(b.message_id)
        .bind(b.status)
        .bind(b.mail_key)
        .bind(to_millis(b.received_at))
        .fetch_optional(&mut *self.tx)
        .await?;
        Ok(row.is_some())
    }

    /// Hard bounces of a player's mail that arrived since `since` and since
    /// the player was last resumed.
    pub async fn bounces_since(
        &mut self,
        player: PlayerId,
        since: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM bounces b JOIN players p ON p.id = b.player_id \
             WHERE b.player_id = $1 AND b.received_at >= $2 \
             AND b.received_at >= COALESCE(p.resumed_at, 0)",
        )
        .bind(player.0)
        .bind(to_millis(since))
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(row.try_get("n")?)
    }

    /// Whether and why a player's mail is held.
    pub async fn pause_of(&mut self, player: PlayerId) -> Result<Option<Pause>, StoreError> {
        let row = sqlx::query("SELECT paused_at, paused_reason FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut *self.tx)
            .await?;
        pause_from(row)
    }

    /// Pauses a player's mail; `false` when it was paused already.
    pub async fn pause_player(
        &mut self,
        player: PlayerId,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE players SET paused_at = $1, paused_reason = $2 \
             WHERE id = $3 AND paused_at IS NULL",
        )
        .bind(to_millis(now))
        .bind(reason)
        .bind(player.0)
        .execute(&mut *self.tx)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Resumes a player's mail: the held mail goes out with the next send,
    /// and earlier bounces no longer count. `false` when not paused.
    pub async fn resume_player(
        &mut self,
        player: PlayerId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE players SET paused_at = NULL, paused_reason = NULL, resumed_at = $1 \
             WHERE id = $2 AND paused_at IS NOT NULL",
        )
        .bind(to_millis(now))
        .bind(player.0)
        .execute(&mut *self.tx)
        .await?;
        Ok(done.rows_affected() > 0)
    }
}

/// A game in progress, as a notice about one of its players lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameLine {
    /// The game.
    pub game: crate::ids::GameId,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Its event and the event's name, if it is one's.
    pub event: Option<(crate::ids::EventId, String)>,
}

impl Tx {
    /// A player's games in progress, with their players' and events' names.
    pub async fn game_lines_of(&mut self, player: PlayerId) -> Result<Vec<GameLine>, StoreError> {
        let rows = sqlx::query(
            "SELECT g.id AS id, w.name AS white, b.name AS black, e.id AS event_id, \
             e.name AS event FROM games g \
             JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id \
             LEFT JOIN events e ON e.id = g.event_id \
             WHERE g.status = 'active' AND (g.white_id = $1 OR g.black_id = $1) ORDER BY g.id",
        )
        .bind(player.0)
        .fetch_all(&mut *self.tx)
        .await?;
        rows.iter()
            .map(|r| {
                let event_id: Option<i64> = r.try_get("event_id")?;
                let event: Option<String> = r.try_get("event")?;
                Ok(GameLine {
                    game: crate::ids::GameId(r.try_get("id")?),
                    white: r.try_get("white")?,
                    black: r.try_get("black")?,
                    event: event_id
                        .zip(event)
                        .map(|(id, name)| (crate::ids::EventId(id), name)),
                })
            })
            .collect()
    }
}

fn pause_from(row: Option<sqlx::any::AnyRow>) -> Result<Option<Pause>, StoreError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let at: Option<i64> = row.try_get("paused_at")?;
    let Some(at) = at else {
        return Ok(None);
    };
    Ok(Some(Pause {
        since: from_millis(at)?,
        reason: row
            .try_get::<Option<String>, _>("paused_reason")?
            .unwrap_or_default(),
    }))
}

impl Store {
    /// Whether and why the player of an address has their mail held.
    pub async fn pause_of(&self, email: &EmailAddress) -> Result<Option<Pause>, StoreError> {
        let row = sqlx::query("SELECT paused_at, paused_reason FROM players WHERE email = $1")
            .bind(email.as_str())
            .fetch_optional(self.pool())
            .await?;
        pause_from(row)
    }

    /// Resumes the player of an address (`dopis player resume`); `false`
    /// when their mail was not paused.
    pub async fn resume_player(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let player = self.player_by_email(email).await?;
        let mut tx = self.begin().await?;
        let resumed = tx.resume_player(player.id, now).await?;
        tx.commit().await?;
        Ok(resumed)
    }
}
