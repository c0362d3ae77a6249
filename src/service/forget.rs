//! `dopis player forget EMAIL`: a person's personal data erased, their
//! finished games kept for the standings under a placeholder name.
//!
//! The player's row stays (games, entrants, ratings point to it) with the
//! name "Forgotten player N" and the address `forgotten-N@forgotten.invalid`
//! (N their id: unique, and `.invalid` can never be delivered to, RFC 2606);
//! their time zone, digest choice and pause go. Reply tokens are made from
//! the server secret and the ids, and act only with the registered address,
//! which is gone, so nothing they hold acts any more. Then every trace of
//! their name and address in the database is replaced or removed (see
//! [`crate::adapter::store::Tx::forget_player`]): mail bodies to them or about their
//! games, their messages, inbound records and failed mails, the TD log.
//! The address is free to register again, as a new player.

use chrono::{DateTime, Utc};

use crate::adapter::store::privacy::ForgetCounts;
use crate::adapter::store::{Store, StoreError};
use crate::domain::address::EmailAddress;
use crate::domain::player::Player;

/// Why a player was not forgotten.
#[derive(Debug, thiserror::Error)]
pub enum ForgetError {
    /// Games of theirs are not finished.
    #[error(
        "{email} has unfinished games ({games}): withdraw them from their events \
         (`dopis event withdraw EVENT --email {email} …`) or finish those games \
         (`dopis game result ID …`) first. Nothing was changed"
    )]
    Unfinished {
        /// The address.
        email: String,
        /// The games, as `#3, #5`.
        games: String,
    },
    /// They are entered in an event that has not started.
    #[error(
        "{email} is entered in event {events}, which has not started: their games would be \
         made for a forgotten player. Withdraw them from it first. Nothing was changed"
    )]
    InOpenEvent {
        /// The address.
        email: String,
        /// The events, as `#2, #4`.
        events: String,
    },
    /// The player was forgotten before.
    #[error("{0} is a forgotten player already")]
    Already(String),
    /// The database failed, or there is no such player.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What forgetting a player does, or did.
#[derive(Debug, Clone)]
pub struct Forgotten {
    /// The player as they were.
    pub player: Player,
    /// Their name from now on.
    pub placeholder_name: String,
    /// Their address from now on.
    pub placeholder_email: String,
    /// Their finished games, kept.
    pub finished_games: i64,
    /// What was erased (all zero in a dry run).
    pub counts: ForgetCounts,
}

/// The placeholder name and address of a forgotten player.
pub fn placeholders(player: &Player) -> (String, String) {
    (
        format!("Forgotten player {}", player.id.0),
        format!("forgotten-{}@forgotten.invalid", player.id.0),
    )
}

fn numbers(ids: &[i64]) -> String {
    ids.iter()
        .map(|id| format!("#{id}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Forgets the player of `email` (with `apply` false: checks and says what
/// would happen, and changes nothing). One transaction.
pub async fn forget(
    store: &Store,
    email: &EmailAddress,
    apply: bool,
    now: DateTime<Utc>,
) -> Result<Forgotten, ForgetError> {
    let player = store.player_by_email(email).await?;
    let (placeholder_name, placeholder_email) = placeholders(&player);
    if player.email.as_str() == placeholder_email {
        return Err(ForgetError::Already(email.to_string()));
    }
    let mut tx = store.begin().await?;
    let unfinished = tx.unfinished_games_of(player.id).await?;
    if !unfinished.is_empty() {
        return Err(ForgetError::Unfinished {
            email: email.to_string(),
            games: numbers(&unfinished),
        });
    }
    let open = tx.open_events_of(player.id).await?;
    if !open.is_empty() {
        return Err(ForgetError::InOpenEvent {
            email: email.to_string(),
            events: numbers(&open),
        });
    }
    let finished_games = tx.finished_games_of(player.id).await?;
    let counts = if apply {
        let counts = tx
            .forget_player(
                player.id,
                player.email.as_str(),
                &player.name,
                &placeholder_email,
                &placeholder_name,
                now,
            )
            .await?;
        tx.commit().await?;
        counts
    } else {
        ForgetCounts::default()
    };
    Ok(Forgotten {
        player,
        placeholder_name,
        placeholder_email,
        finished_games,
        counts,
    })
}
