//! What XFCC needs of the database: a player's XFCC password hash
//! (`players.xfcc_hash`, migration 0020); their games are
//! [`Tx::games_of`].

use super::{StoreError, Tx};
use crate::domain::player::PlayerId;

impl Tx {
    /// The Argon2 hash of a player's XFCC password; `None`: they have none.
    pub async fn xfcc_hash(&mut self, player: PlayerId) -> Result<Option<String>, StoreError> {
        let row = super::sql::query("SELECT xfcc_hash FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut self.tx)
            .await?;
        match row {
            Some(r) => Ok(r.try_get("xfcc_hash")?),
            None => Ok(None),
        }
    }

    /// Sets (or, with `None`, revokes) a player's XFCC password hash.
    pub async fn set_xfcc_hash(
        &mut self,
        player: PlayerId,
        hash: Option<&str>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE players SET xfcc_hash = $1 WHERE id = $2")
            .bind(hash)
            .bind(player.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
}
