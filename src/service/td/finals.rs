//! The final crosstable, mailed to every player of an event when its last
//! game ends.
//!
//! Called in the transaction that ends a game (a move or claim by mail, a
//! timeout, a TD's result, a withdrawal that closes games), after the game
//! is saved: when no game of the event is left active, each entrant gets the
//! standings letter (final, in their language). The outbox key
//! `e<event>.final.<address>` makes it once per player: a second game-over
//! of the same event (a TD correcting a result) queues nothing new, and a
//! crash before the commit loses the game's end and the mails together, so
//! the retried mail ends the game and queues them again.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::{StoredEvent, standings_letter};
use crate::adapter::store::Tx;
use crate::adapter::store::games::GameStatus;
use crate::domain::ids::GameId;
use crate::service::post::Outgoing;
use crate::service::post::Post;

/// Queues the final standings to every player of `game`'s event if that
/// game was the event's last one still being played; nothing otherwise.
pub async fn mail_final_standings(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let Some(event) = tx.event_of_game(game).await? else {
        return Ok(());
    };
    let games = tx.event_games(event).await?;
    if games.is_empty() || games.iter().any(|g| g.game.status != GameStatus::Finished) {
        return Ok(());
    }
    // A stored event that cannot be read back is corrupt (see
    // `ServiceError`'s `From<TdError>`).
    let ev = StoredEvent::load(tx, event).await?;
    // A Swiss event's round that ends is not the event's end, unless it
    // was the last round.
    if !super::swiss_table::all_rounds_paired(tx, &ev).await? {
        return Ok(());
    }
    let letter = standings_letter(tx, event).await?;
    let mut told = std::collections::HashSet::new();
    for e in &ev.entrants {
        if !told.insert(e.player.id) {
            continue;
        }
        let key = format!("e{}.final.{}", event.0, e.player.email);
        let mail = Outgoing::new(key, letter.clone(), &e.player);
        post.queue_about_event(tx, mail, event, now).await?;
    }
    Ok(())
}
