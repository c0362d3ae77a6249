//! Starting a game: the game row and its first mails in one transaction
//! (White gets "your move", Black "game started"), and loading a game with
//! its players as mails show it.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::loaded_game::{LoadedGame, load_table};
use super::post::Post;
use crate::adapter::mail::compose::PairingNote;
use crate::adapter::store::Tx;
use crate::adapter::store::games::NewGame;
use crate::adapter::store::{Store, StoreError};
use crate::domain::chess::game::StartPosition;
use crate::domain::clock::TimeControl;
use crate::domain::ids::GameId;
use crate::domain::player::PlayerId;

/// Creates a game and queues its first mails; returns its number.
pub async fn start_game(
    store: &Store,
    post: &Post,
    white: PlayerId,
    black: PlayerId,
    start: StartPosition,
    time_control: TimeControl,
    now: DateTime<Utc>,
) -> Result<GameId, ServiceError> {
    let mut tx = store.begin().await?;
    let game = NewGame {
        white,
        black,
        start,
        time_control,
        opening: Vec::new(),
    };
    let id = start_game_in(&mut tx, post, &game, now).await?;
    tx.commit().await?;
    Ok(id)
}

/// The same inside a caller's transaction (an event starts all its games
/// in one): the game row, its first mails, and its place in the scheduler.
pub async fn start_game_in(
    tx: &mut Tx,
    post: &Post,
    game: &NewGame,
    now: DateTime<Utc>,
) -> Result<GameId, ServiceError> {
    let id = tx.add_game(game, now).await?;
    first_mails(tx, post, id, None, now).await?;
    Ok(id)
}

/// A stored game's first mails and its place in the scheduler. An event
/// links its game before this: the mails follow the event's settings (its
/// analysis board link); its `pairing` (event, round, board, standings)
/// rides with these mails only.
pub async fn first_mails(
    tx: &mut Tx,
    post: &Post,
    id: GameId,
    pairing: Option<PairingNote>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let mut table = load_table(tx, id).await?;
    table.pairing = pairing.map(std::sync::Arc::new);
    post.game_started(tx, &table, now).await?;
    Ok(super::schedule::reschedule(tx, &table, None, now).await?)
}

/// A game with its players.
pub async fn table(store: &Store, id: GameId) -> Result<LoadedGame, StoreError> {
    let mut tx = store.begin().await?;
    let table = load_table(&mut tx, id).await?;
    tx.commit().await?;
    Ok(table)
}
