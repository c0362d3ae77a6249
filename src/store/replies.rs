//! What the database keeps so that no reply is carried out for a position
//! it was not written for: the position a confirmation asked about, and the
//! fingerprint of each mail that acted on a game (see `mail::stale`).

use chrono::{DateTime, Utc};
use sqlx::Row;

use super::mail::Tx;
use super::{StoreError, from_millis};

impl Tx {
    /// Records the position (half-moves played) a confirmation asks about.
    pub async fn set_confirmation_ply(&mut self, id: i64, ply: u32) -> Result<(), StoreError> {
        sqlx::query("UPDATE confirmations SET ply = $1 WHERE id = $2")
            .bind(i64::from(ply))
            .bind(id)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// The position a confirmation asked about; `None` for one asked before
    /// positions were kept (or for no such confirmation).
    pub async fn confirmation_ply(&mut self, id: i64) -> Result<Option<u32>, StoreError> {
        let row = sqlx::query("SELECT ply FROM confirmations WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *self.tx)
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
        sqlx::query("UPDATE inbound SET fingerprint = $1 WHERE mail_key = $2")
            .bind(fingerprint)
            .bind(mail_key)
            .execute(&mut *self.tx)
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
        let row = sqlx::query(
            "SELECT received_at FROM inbound WHERE fingerprint = $1 AND mail_key <> $2 \
             ORDER BY id LIMIT 1",
        )
        .bind(fingerprint)
        .bind(mail_key)
        .fetch_optional(&mut *self.tx)
        .await?;
        row.map(|r| from_millis(r.try_get("received_at")?))
            .transpose()
    }
}
