//! Players as the CLI registers, lists, shows and resumes them.

use chrono::{DateTime, Utc};

use crate::adapter::store::{Store, StoreError, Tx};
use crate::domain::address::EmailAddress;
use crate::domain::player::{NewPlayer, Pause, Player};
use crate::domain::roster::{self, RosterRow};

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
) -> Result<(Player, Option<Pause>, Vec<Held>), StoreError> {
    let player = store.player_by_email(email).await?;
    let pause = store.pause_of(email).await?;
    let mut tx = store.begin().await?;
    let mut held = Vec::new();
    for q in tx.qualifications_of(player.id).await? {
        let section = tx.event(q.event).await?.name;
        held.push(Held {
            qualification: q,
            section,
        });
    }
    tx.commit().await?;
    Ok((player, pause, held))
}

/// A qualification a player holds, with the name of the section that
/// earned it (`dopis player show`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Held {
    /// The qualification.
    #[serde(flatten)]
    pub qualification: crate::adapter::store::qualifications::Qualification,
    /// The section's name.
    pub section: String,
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

/// What a roster line did (`dopis player import`).
#[derive(Debug, Clone)]
pub enum Imported {
    /// A new player, registered (or, in a dry run, to be).
    Added {
        /// The line of the roster.
        line: usize,
        /// The player.
        player: NewPlayer,
    },
    /// The address is registered already: the player is kept as
    /// registered (their name is in games and PGN, and a player sets their
    /// own language by mail), and how the file differs is reported.
    Known {
        /// The line of the roster.
        line: usize,
        /// The player as registered.
        player: Player,
        /// How the file's line differs (empty: it agrees).
        differences: Vec<String>,
    },
}

/// Registers a roster's new players in the caller's transaction (one for
/// the whole file: the caller commits it, or drops it for a dry run);
/// registered addresses are left as they are and reported.
pub async fn import(
    tx: &mut Tx,
    rows: &[RosterRow],
    now: DateTime<Utc>,
) -> Result<Vec<Imported>, StoreError> {
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        match tx.player_by_email(row.player.email.as_str()).await? {
            Some(player) => out.push(Imported::Known {
                line: row.line,
                differences: roster::differences(row, &player),
                player,
            }),
            None => {
                tx.add_player(&row.player, now).await?;
                out.push(Imported::Added {
                    line: row.line,
                    player: row.player.clone(),
                });
            }
        }
    }
    Ok(out)
}
