//! Bounces and paused players: each hard bounce of one of our mails once,
//! and whether a player's mail is held (see `migrations/*/0010_bounces.sql`).

use chrono::{DateTime, Utc};

use super::{StoreError, Tx, to_millis};
use crate::domain::player::PlayerId;

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
    /// Records a hard bounce; `false` when that mail of ours had bounced
    /// already (it counts once).
    pub async fn record_bounce(&mut self, b: &NewBounce<'_>) -> Result<bool, StoreError> {
        let row = super::sql::query(
            "INSERT INTO bounces (player_id, message_id, status, mail_key, received_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player_id, message_id) DO NOTHING \
             RETURNING id",
        )
        .bind(b.player.0)
        .bind(b.message_id)
        .bind(b.status)
        .bind(b.mail_key)
        .bind(to_millis(b.received_at))
        .fetch_optional(&mut self.tx)
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
        let row = super::sql::query(
            "SELECT COUNT(*) AS n FROM bounces b JOIN players p ON p.id = b.player_id \
             WHERE b.player_id = $1 AND b.received_at >= $2 \
             AND b.received_at >= COALESCE(p.resumed_at, 0)",
        )
        .bind(player.0)
        .bind(to_millis(since))
        .fetch_one(&mut self.tx)
        .await?;
        row.try_get("n")
    }
}
