//! The inbound log (each mail acts once, and the fingerprint of each that
//! acted on a game), confirmations waiting for their player (with the
//! position they asked about, see `mail::stale`), and the mailbox cursor.

use chrono::{DateTime, Utc};

use super::{Store, StoreError, Tx, db_text, from_millis, to_millis};
use crate::domain::ids::GameId;
use crate::domain::player::PlayerId;

/// An inbound mail, as recorded.
#[derive(Debug, Clone)]
pub struct InboundRecord<'a> {
    /// The idempotency key (Message-ID or hash).
    pub mail_key: &'a str,
    /// Where the mail was in the mailbox.
    pub mailbox_ref: &'a str,
    /// When it reached the mailbox.
    pub received_at: DateTime<Utc>,
    /// The From address, if readable.
    pub sender: Option<&'a str>,
}

/// A command waiting for the player to confirm it.
#[derive(Debug, Clone)]
pub struct Confirmation {
    /// Id (in the confirmation's reply address).
    pub id: i64,
    /// The game.
    pub game_id: GameId,
    /// The player who must confirm.
    pub player_id: PlayerId,
    /// The text of their mail.
    pub text: String,
    /// When their original mail arrived (the move's time).
    pub received_at: DateTime<Utc>,
    /// Whether it was used already.
    pub used: bool,
}

impl Store {
    /// Where reading a mailbox got to.
    pub async fn mailbox_cursor(&self, mailbox: &str) -> Result<Option<String>, StoreError> {
        let row = super::sql::query("SELECT position FROM mailbox_cursor WHERE mailbox = $1")
            .bind(mailbox)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| r.try_get("position")).transpose()
    }
}

impl Tx {
    /// Records an inbound mail; `false` when it was recorded before (it has
    /// acted already and must not act again).
    pub async fn record_inbound(
        &mut self,
        r: &InboundRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let row = super::sql::query(
            "INSERT INTO inbound (mail_key, mailbox_ref, received_at, sender, outcome, processed_at) \
             VALUES ($1, $2, $3, $4, 'received', $5) ON CONFLICT (mail_key) DO NOTHING RETURNING id",
        )
        .bind(db_text(r.mail_key, 1100))
        .bind(db_text(r.mailbox_ref, 1000))
        .bind(to_millis(r.received_at))
        .bind(r.sender.map(|s| db_text(s, 320)))
        .bind(to_millis(now))
        .fetch_optional(&mut self.tx)
        .await?;
        Ok(row.is_some())
    }
    /// Says what an inbound mail led to.
    pub async fn inbound_outcome(
        &mut self,
        mail_key: &str,
        game: Option<GameId>,
        outcome: &str,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE inbound SET outcome = $1, game_id = $2 WHERE mail_key = $3")
            .bind(db_text(outcome, 500))
            .bind(game.map(|g| g.0))
            .bind(db_text(mail_key, 1100))
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
    /// Stores a command waiting for confirmation; returns its id.
    pub async fn add_confirmation(
        &mut self,
        game: GameId,
        player: PlayerId,
        text: &str,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = super::sql::query(
            "INSERT INTO confirmations (game_id, player_id, text, received_at, created_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(game.0)
        .bind(player.0)
        .bind(db_text(text, 64 * 1024))
        .bind(to_millis(received_at))
        .bind(to_millis(now))
        .fetch_one(&mut self.tx)
        .await?;
        row.try_get("id")
    }
    /// A pending confirmation.
    pub async fn confirmation(&mut self, id: i64) -> Result<Option<Confirmation>, StoreError> {
        let row = super::sql::query(
            "SELECT id, game_id, player_id, text, received_at, used_at FROM confirmations WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&mut self.tx)
        .await?;
        row.map(|r| {
            Ok(Confirmation {
                id: r.try_get("id")?,
                game_id: GameId(r.try_get("game_id")?),
                player_id: PlayerId(r.try_get("player_id")?),
                text: r.try_get("text")?,
                received_at: from_millis(r.try_get("received_at")?)?,
                used: r.try_get::<Option<i64>, _>("used_at")?.is_some(),
            })
        })
        .transpose()
    }
    /// Marks a confirmation used, so a second reply does nothing.
    pub async fn use_confirmation(
        &mut self,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE confirmations SET used_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(id)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
    /// Remembers where reading a mailbox got to.
    pub async fn set_mailbox_cursor(
        &mut self,
        mailbox: &str,
        position: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO mailbox_cursor (mailbox, position, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (mailbox) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at",
        )
        .bind(mailbox)
        .bind(position)
        .bind(to_millis(now))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
    /// Records the position (half-moves played) a confirmation asks about.
    pub async fn set_confirmation_ply(&mut self, id: i64, ply: u32) -> Result<(), StoreError> {
        super::sql::query("UPDATE confirmations SET ply = $1 WHERE id = $2")
            .bind(i64::from(ply))
            .bind(id)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
    /// The position a confirmation asked about; `None` for one asked before
    /// positions were kept (or for no such confirmation).
    pub async fn confirmation_ply(&mut self, id: i64) -> Result<Option<u32>, StoreError> {
        let row = super::sql::query("SELECT ply FROM confirmations WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut self.tx)
            .await?;
        let ply: Option<i64> = match row {
            Some(r) => r.try_get("ply")?,
            None => None,
        };
        ply.map(|p| {
            u32::try_from(p).map_err(|_| StoreError::Corrupt(format!("confirmation {id}: ply {p}")))
        })
        .transpose()
    }
    /// Records the fingerprint of an inbound mail (recorded before).
    pub async fn set_inbound_fingerprint(
        &mut self,
        mail_key: &str,
        fingerprint: &str,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE inbound SET fingerprint = $1 WHERE mail_key = $2")
            .bind(fingerprint)
            .bind(mail_key)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
    /// When another mail (not `mail_key`) with this fingerprint reached the
    /// mailbox, the first of them; `None` when this mail is new.
    pub async fn first_with_fingerprint(
        &mut self,
        fingerprint: &str,
        mail_key: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let row = super::sql::query(
            "SELECT received_at FROM inbound WHERE fingerprint = $1 AND mail_key <> $2 \
             ORDER BY id LIMIT 1",
        )
        .bind(fingerprint)
        .bind(mail_key)
        .fetch_optional(&mut self.tx)
        .await?;
        row.map(|r| from_millis(r.try_get("received_at")?))
            .transpose()
    }
}
