//! The games a daily digest told its player of (`digest_games`): when the
//! digest is delivered, each game's last move counts as reached its player
//! (their clock starts), and a reply to the digest is checked against the
//! position it showed.

use super::StoreError;
use super::Tx;
use crate::domain::ids::GameId;

impl Tx {
    /// Records that the digest queued as `mail_key` shows `game` after
    /// `ply` half-moves.
    pub async fn record_digest_game(
        &mut self,
        mail_key: &str,
        game: GameId,
        ply: i64,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO digest_games (mail_key, game_id, ply) VALUES ($1, $2, $3) \
             ON CONFLICT (mail_key, game_id) DO NOTHING",
        )
        .bind(mail_key)
        .bind(game.0)
        .bind(ply)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// The games of the digest with Message-ID `message_id`, each with the
    /// half-moves played when it was shown; empty when it is no digest.
    pub async fn digest_games_of(
        &mut self,
        message_id: &str,
    ) -> Result<Vec<(GameId, u32)>, StoreError> {
        super::sql::query(
            "SELECT d.game_id, d.ply FROM digest_games d JOIN outbox o ON o.mail_key = d.mail_key \
             WHERE o.message_id = $1 ORDER BY d.game_id",
        )
        .bind(message_id)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            let ply: i64 = r.try_get("ply")?;
            Ok((
                GameId(r.try_get("game_id")?),
                u32::try_from(ply).unwrap_or(u32::MAX),
            ))
        })
        .collect()
    }
}
