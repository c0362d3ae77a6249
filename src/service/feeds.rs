//! A player's calendar feed of deadlines (`dopis web`,
//! `/me/{link}/deadlines.ics`): one event per game where it is their move,
//! as the "your move" mail's calendar entry (see `mail::compose`).

use chrono::{DateTime, Utc};

use super::ServiceError;
use super::loaded_game;
use super::post::Post;
use crate::adapter::store::Store;
use crate::domain::player::Player;

/// The `.ics` text of `player`'s deadlines at `now`. `game_link` makes the
/// link to a game's page from its id, when the pages have an address.
pub async fn deadlines(
    store: &Store,
    post: &Post,
    player: &Player,
    game_link: impl Fn(i64) -> Option<String>,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let mut tx = store.begin().await?;
    let mut entries = Vec::new();
    for game in tx.games_to_move(player.id).await? {
        // Read without locks: a feed is fetched often and changes nothing.
        let table = loaded_game::load_to_read(&mut tx, game, false).await?;
        entries.extend(post.feed_entry(&table, player, game_link(game.0), now)?);
    }
    // Read only: the commit ends the snapshot.
    tx.commit().await?;
    let name = format!("dopis: {}", player.name);
    let zone = player.tz.map(|tz| tz.name());
    Ok(crate::adapter::mail::compose::deadline_feed(
        &name, zone, &entries,
    ))
}
