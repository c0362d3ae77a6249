//! Games as the CLI lists and shows them.

/// The service's vocabulary for a stored game: plain data read from the
/// store (its players, start, moves with their times, status), which
/// `dopis game list|show` prints.
pub use crate::adapter::store::games::{GameRecord, GameStatus, StoredMove};

use crate::adapter::store::{Store, StoreError};
use crate::domain::ids::GameId;
use crate::domain::player::Player;

/// The games by number with both players (`dopis game list`); only active
/// ones if asked, and with their moves if asked (a listing that prints moves
/// must not show none for a game that has them).
pub async fn list(
    store: &Store,
    active_only: bool,
    with_moves: bool,
) -> Result<Vec<(GameRecord, Player, Player)>, StoreError> {
    let games = if with_moves {
        store.games_with_moves(active_only).await?
    } else {
        store.games(active_only).await?
    };
    let mut listed = Vec::with_capacity(games.len());
    for g in games {
        let (white, black) = (store.player(g.white).await?, store.player(g.black).await?);
        listed.push((g, white, black));
    }
    Ok(listed)
}

/// One game with its moves and both players (`dopis game show`).
pub async fn show(store: &Store, id: GameId) -> Result<(GameRecord, Player, Player), StoreError> {
    let g = store.game(id).await?;
    let (white, black) = (store.player(g.white).await?, store.player(g.black).await?);
    Ok((g, white, black))
}
