//! Players as the CLI registers, lists, shows and resumes them.

use chrono::{DateTime, Utc};

use crate::address::EmailAddress;
use crate::player::{NewPlayer, Pause, Player};
use crate::store::{Store, StoreError};

/// Registers a player (`dopis player add`); an address is registered once.
pub async fn register(
    store: &Store,
    new: &NewPlayer,
    now: DateTime<Utc>,
) -> Result<Player, StoreError> {
    store.add_player(new, now).await
}

/// Every player, by address.
pub async fn all(store: &Store) -> Result<Vec<Player>, StoreError> {
    store.players().await
}

/// The player registered with an address, and whether and why their mail
/// is held (`dopis player show`).
pub async fn show(
    store: &Store,
    email: &EmailAddress,
) -> Result<(Player, Option<Pause>), StoreError> {
    let player = store.player_by_email(email).await?;
    let pause = store.pause_of(email).await?;
    Ok((player, pause))
}

/// The player registered with an address.
pub async fn by_email(store: &Store, email: &EmailAddress) -> Result<Player, StoreError> {
    store.player_by_email(email).await
}

/// Lets a held player's mail go out again (`dopis player resume`); `false`
/// when it was not held.
pub async fn resume(
    store: &Store,
    email: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    store.resume_player(email, now).await
}
