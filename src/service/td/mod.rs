//! Events made real: an event file becomes stored rows, an event starts all
//! its games at once with their first mails, stored games become standings
//! and crosstables, and the tournament director's tools (set a result,
//! withdraw, replace, extend a deadline) change games, log who did what and
//! why, and tell the players — each in one transaction.
//!
//! The pairing, scoring and ranking rules are the pure [`event`](crate::domain::event)
//! module's; this module maps stored seats to its indices and back.
//!
//! A seat is a starting number (round robin) or a board of a team. A
//! substitute takes over a seat: the game rows switch player, so the
//! standings keep the seat's line under the holder's name. A withdrawal
//! closes the player's unfinished games (no more moves) and marks them, so
//! the standings score them by the event's rule (forfeit or annulled)
//! whatever else happens later.
//!
//! By concern, one file each: `stored` (an event as stored, rebuilt with
//! its seats), `entrants` (creating an event, adding players and teams),
//! `pairings` (its pairings, and starting it), `pgn` (its games as one
//! PGN file), `standings` (standings and crosstables), `boards` (a team
//! event's table per board), `finals` (the final table mailed to all), `results` (results set by a TD), `deadlines`
//! (deadlines extended by a TD), `players` (withdrawals and substitutes),
//! `visibility` (who sees its web pages), `swiss` (Swiss events paired
//! round by round), `swiss_byes` (half-point byes asked for),
//! `swiss_table` (a Swiss event as the pairing engine sees it, and its
//! FIDE table).

mod boards;
pub(crate) mod consultation;
mod deadlines;
mod entrants;
pub mod finals;
mod pairings;
mod pgn;
mod players;
mod promotions;
mod results;
mod stages;
mod standings;
mod stored;
mod swiss;
pub(crate) mod swiss_byes;
mod swiss_from_trf;
mod swiss_repair;
mod swiss_table;
mod visibility;

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use crate::adapter::mail::compose::LetterKind;
use crate::adapter::store::StoreError;
use crate::adapter::store::Tx;
use crate::adapter::store::games::{GameRecord, GameStatus};
use crate::domain::address::EmailAddress;
use crate::domain::event::file::BadEventFile;
use crate::domain::ids::GameId;
use crate::domain::player::Player;
use crate::service::loaded_game::LoadedGame;
use crate::service::post::{Outgoing, Post};

pub use boards::board_tables;
pub use deadlines::extend;
pub use entrants::{add_player, add_team, create, store_event};
pub use pairings::{PairedGame, pairings, started_pairings};
pub use pgn::event_pgn;
pub use players::{replace, withdraw};
pub use promotions::{LatePromotion, late_for_promotions, record_promotions_if_done};
pub use results::{
    ImportedResult, Ruling, adjudicate_by_tables, describe_stored, import_results, set_result,
};
pub use stages::{FinalBuilt, LateResult, build_final_if_done, late_for_final, start};
pub(crate) use standings::standings_letter_with_bye;
pub use standings::{EventStandings, standings, standings_letter};
pub use stored::{GameRules, StoredEvent, events, game_rules, log};
pub use swiss::{
    NextRound, RoundPaired, between_rounds, event_trf, next_round_due, pair_next_due,
    pair_next_if_done,
};
pub use swiss_byes::grant_bye;
pub use swiss_from_trf::{Resumed, create_from_trf};
pub use swiss_repair::repair_round;
pub use swiss_table::all_rounds_paired;
pub use visibility::set_visibility;

/// The service's vocabulary for events as stored: plain records the CLI
/// prints (an event, its teams and entrants, the TD's log).
pub use crate::adapter::store::events::{EntrantRecord, EventRecord, TeamRecord};
pub use crate::adapter::store::td_log::TdAction;

/// Why a TD command was not carried out, by what the TD does next.
#[derive(Debug, thiserror::Error)]
pub enum TdError {
    /// The event file has problems (each with its line and key). Not a
    /// `#[source]`: the message carries every problem already, and a
    /// source would print them all a second time after it (`{:#}`).
    #[error("the event file has problems:\n{0}")]
    BadFile(BadEventFile),
    /// The request does not fit the event or game as it stands.
    #[error("{0}")]
    Refused(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Another step failed: a mail could not be composed.
    #[error(transparent)]
    Service(ServiceError),
}

impl From<ServiceError> for TdError {
    fn from(e: ServiceError) -> TdError {
        match e {
            ServiceError::Store(e) => TdError::Store(e),
            other => TdError::Service(other),
        }
    }
}

impl From<BadEventFile> for TdError {
    fn from(bad: BadEventFile) -> TdError {
        TdError::BadFile(bad)
    }
}

fn refused<T>(text: impl Into<String>) -> Result<T, TdError> {
    Err(TdError::Refused(text.into()))
}

fn corrupt(what: impl std::fmt::Display) -> TdError {
    TdError::Store(StoreError::Corrupt(what.to_string()))
}

/// The event of a game, loaded, if it has one; and a check that `by` is a TD.
async fn event_of(
    tx: &mut Tx,
    game: GameId,
    by: &EmailAddress,
) -> Result<Option<StoredEvent>, TdError> {
    match tx.event_of_game(game).await? {
        Some(id) => {
            let ev = StoredEvent::load(tx, id).await?;
            ev.check_td(by)?;
            Ok(Some(ev))
        }
        None => Ok(None),
    }
}

/// The reason a TD gave, trimmed; refused when there is none (it is
/// recorded, and told to `told`).
fn reason_given<'r>(reason: &'r str, told: &str) -> Result<&'r str, TdError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return refused(format!(
            "say why with --reason TEXT: it is recorded and told to {told}"
        ));
    }
    Ok(reason)
}

/// The registered player of an address.
async fn registered(tx: &mut Tx, email: &EmailAddress) -> Result<Player, TdError> {
    match tx.player_by_email(email.as_str()).await? {
        Some(player) => Ok(player),
        None => Err(StoreError::UnknownPlayer(email.to_string()).into()),
    }
}

/// Queues a mail to a player about no one game, which answers no mail of
/// theirs (what a TD's action on an event means for them).
async fn tell(
    tx: &mut Tx,
    post: &Post,
    key: String,
    kind: LetterKind,
    to: &Player,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    post.queue(tx, Outgoing::new(key, kind, to), now).await
}

/// Loads a game with its players and clock, as mails show it.
async fn table(tx: &mut Tx, id: GameId) -> Result<LoadedGame, StoreError> {
    crate::service::loaded_game::load_table(tx, id).await
}

/// Whether a game was closed without a result (annulled by a withdrawal):
/// nothing more may be played in it.
pub fn is_annulled(record: &GameRecord, over: bool) -> bool {
    record.status == GameStatus::Finished && !over
}
