//! One-click unsubscribe links used (`unsubscribes`): the first use of a
//! link is recorded with the change it made, so a second use of the same
//! link changes nothing (see `service::unsubscribe`).

use chrono::{DateTime, Utc};

use super::{StoreError, Tx, from_millis, to_millis};
use crate::domain::player::PlayerId;

impl Tx {
    /// Records the first use of the link of `player`, `list` and `issued`:
    /// `true` if this is it, `false` if the link was used before (then
    /// nothing is written). `changed` says whether this use changed the
    /// player's choice.
    pub async fn record_unsubscribe(
        &mut self,
        player: PlayerId,
        list: &str,
        issued: i64,
        changed: bool,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = super::sql::query(
            "INSERT INTO unsubscribes (player_id, list, issued, used_at, changed) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (player_id, list, issued) DO NOTHING",
        )
        .bind(player.0)
        .bind(list)
        .bind(issued)
        .bind(to_millis(now))
        .bind(i64::from(changed))
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// When the link of `player`, `list` and `issued` was used, if it was.
    pub async fn unsubscribe_used(
        &mut self,
        player: PlayerId,
        list: &str,
        issued: i64,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let row = super::sql::query(
            "SELECT used_at FROM unsubscribes WHERE player_id = $1 AND list = $2 AND issued = $3",
        )
        .bind(player.0)
        .bind(list)
        .bind(issued)
        .fetch_optional(&mut self.tx)
        .await?;
        row.map(|r| from_millis(r.try_get("used_at")?)).transpose()
    }

    /// Whether a player hears when an event opens for entries.
    pub async fn wants_announcements(&mut self, player: PlayerId) -> Result<bool, StoreError> {
        let row = super::sql::query("SELECT announcements FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut self.tx)
            .await?;
        match row {
            Some(r) => Ok(r.try_get::<i64, _>("announcements")? == 1),
            None => Err(StoreError::UnknownPlayer(player.0.to_string())),
        }
    }
}
