//! What XFCC needs of the database: a player's XFCC password hash
//! (`players.xfcc_hash`, migration 0020) and all their games.

use sqlx::Row;

use super::{StoreError, Tx};
use crate::ids::GameId;
use crate::player::PlayerId;

impl Tx {
    /// The Argon2 hash of a player's XFCC password; `None`: they have none.
    pub async fn xfcc_hash(&mut self, player: PlayerId) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT xfcc_hash FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut *self.tx)
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
        sqlx::query("UPDATE players SET xfcc_hash = $1 WHERE id = $2")
            .bind(hash)
            .bind(player.0)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Every game of a player, running and finished, by number.
    pub async fn all_games_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        sqlx::query("SELECT id FROM games WHERE white_id = $1 OR black_id = $1 ORDER BY id")
            .bind(player.0)
            .fetch_all(&mut *self.tx)
            .await?
            .iter()
            .map(|r| Ok(GameId(r.try_get("id")?)))
            .collect()
    }
}
