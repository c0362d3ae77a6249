//! Messages between the players (`game_messages`): kept with the game, each
//! after the half-move it came with, for the PGN's comments.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::{StoreError, Tx, to_millis};
use crate::domain::chess::side;
use crate::domain::ids::GameId;

/// A message as stored with its game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameMessage {
    /// Half-moves played when it was written: it follows that move.
    pub ply: usize,
    /// Who wrote it.
    pub side: Color,
    /// What they wrote.
    pub body: String,
}

impl Tx {
    /// Keeps a message of `side` in `game` after `ply` half-moves; the
    /// inbound mail's key makes it once per mail.
    pub async fn add_game_message(
        &mut self,
        game: GameId,
        message: &GameMessage,
        mail_key: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO game_messages (game_id, ply, side, body, mail_key, written_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (mail_key, game_id) DO NOTHING",
        )
        .bind(game.0)
        .bind(i64::try_from(message.ply).unwrap_or(i64::MAX))
        .bind(side::key(message.side))
        .bind(message.body.as_str())
        .bind(mail_key)
        .bind(to_millis(at))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// A game's messages, in the order of the game.
    pub async fn game_messages(&mut self, game: GameId) -> Result<Vec<GameMessage>, StoreError> {
        super::sql::query(
            "SELECT ply, side, body FROM game_messages WHERE game_id = $1 ORDER BY ply, id",
        )
        .bind(game.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            let ply: i64 = r.try_get("ply")?;
            let name: String = r.try_get("side")?;
            Ok(GameMessage {
                ply: usize::try_from(ply).unwrap_or(0),
                side: side::from_key(&name).ok_or_else(|| {
                    StoreError::Corrupt(format!("game {game}: a message by '{name}'"))
                })?,
                body: r.try_get("body")?,
            })
        })
        .collect()
    }
}
