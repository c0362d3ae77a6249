//! Starting a game: the game row and its first mails in one transaction
//! (White gets "your move", Black "game started"), and loading a game with
//! its players as mails show it.

use chrono::{DateTime, Utc};

use super::post::{Post, Table};
use crate::chess::game::StartPosition;
use crate::clock::TimeControl;
use crate::player::PlayerId;
use crate::store::games::{GameId, NewGame};
use crate::store::{Store, StoreError};

/// Creates a game and queues its first mails; returns its number.
pub async fn start_game(
    store: &Store,
    post: &Post,
    white: PlayerId,
    black: PlayerId,
    start: StartPosition,
    time_control: TimeControl,
    now: DateTime<Utc>,
) -> Result<GameId, StoreError> {
    let mut tx = store.begin().await?;
    let id = tx
        .add_game(
            &NewGame {
                white,
                black,
                start,
                time_control,
            },
            now,
        )
        .await?;
    let table = load(&mut tx, id).await?;
    post.game_started(&mut tx, &table, now).await?;
    tx.commit().await?;
    Ok(id)
}

async fn load(tx: &mut crate::store::mail::Tx, id: GameId) -> Result<Table, StoreError> {
    let record = tx.game_for_update(id).await?;
    let game = record.to_game()?;
    let white = tx.player(record.white).await?;
    let black = tx.player(record.black).await?;
    Ok(Table {
        draw_offer_by: record.draw_offer_by,
        record,
        game,
        white,
        black,
    })
}

/// A game with its players.
pub async fn table(store: &Store, id: GameId) -> Result<Table, StoreError> {
    let mut tx = store.begin().await?;
    let table = load(&mut tx, id).await?;
    tx.commit().await?;
    Ok(table)
}
