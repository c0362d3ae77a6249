//! The application: what happens when a mail comes in, a clock runs out or
//! a TD acts. The daemon, the CLI and the demo call these; they call the
//! core (rules, clocks, events, the arbiter) and the adapters (the store,
//! mail in and out), never the daemon or the CLI.
//!
//! - [`app`]: the config, store and clock every command shares.
//! - [`inbox`]: an inbound mail routed, authenticated and applied;
//!   [`handled`]: what became of it, typed.
//! - [`dkim`]: the optional DKIM check of an inbound mail.
//! - [`loaded_game`]: a stored game loaded once with its players, clock,
//!   ratings and event settings, for the inbox, the arbiter and the post.
//! - [`post`]: the mails a change causes, queued in its transaction.
//! - [`clocks`]: deadlines, reminders, leave and the scheduler.
//! - [`schedule`]: a game's schedule stored in its row after every change.
//! - [`start`]: starting a game; [`games`]: stored games as shown.
//! - [`players`]: players registered, listed, shown and resumed.
//! - [`td`]: events and what their directors do; [`event_settings`]: an
//!   event's stored settings, one schema for the TD tools, the post and the
//!   ratings.
//! - [`entries`]: entries by mail, and starting an event when they close.
//! - [`swiss_byes`]: half-point byes a player asks for by mail in a Swiss
//!   event (`bye 12 round 4`), answered in their language.
//! - [`consultation`]: consultation games (vote chess): votes heard, the
//!   side's move made when they close; `votes`: the stored votes as read.
//! - [`report`]: the deadline report, on the command line and by mail.
//! - [`ratings`]: the rating list, moved by every rated game's end.
//! - [`bounces`]: bounced mail, and holding a player's mail.
//! - [`probe`]: the probe mail `dopis doctor` sends to a reply address.
//! - [`quarantine`]: mails and scheduler work whose handling failed.
//! - [`lease`]: who reads the mailbox and whose outbox leases are alive,
//!   when several daemons share a database.
//! - [`delivery`]: what becomes of an outbox mail the daemon tried to send.
//! - [`forget`]: a player's personal data erased, their finished games kept.
//! - [`retention`]: old mail bodies and inbound records pruned.
//! - [`feeds`]: a player's calendar feed of deadlines.
//! - [`links`]: private web links to a player's pages and calendar feed.
//! - [`export`]: `dopis export` and `dopis import`, to move to another server;
//!   [`backup`]: `dopis backup`, a copy of a SQLite database while it runs.
//! - [`xfcc`]: what a chess program's XFCC requests do (logins, games,
//!   moves); `credentials`: XFCC passwords made and stored.
//! - [`pages`]: what the web pages show, and who may see them.
//! - [`unsubscribe`]: one-click unsubscribe from the digest and the
//!   announcements (RFC 8058), once per link.

pub mod app;
pub mod backup;
pub mod bounces;
pub mod clocks;
pub mod consultation;
pub(crate) mod credentials;
pub mod delivery;
pub mod dkim;
pub mod entries;
pub mod event_settings;
pub mod export;
pub mod feeds;
pub mod forget;
pub mod games;
pub mod handled;
pub mod inbox;
pub mod lease;
pub mod links;
pub mod loaded_game;
pub mod pages;
pub mod players;
pub mod post;
pub mod probe;
pub mod quarantine;
pub mod ratings;
pub mod report;
pub mod retention;
pub mod schedule;
pub mod start;
pub mod swiss_byes;
pub mod swiss_rounds;
pub mod td;
pub mod unsubscribe;
pub(crate) mod votes;
pub mod xfcc;

/// The database handle and its error, as the edges see them: the CLI and
/// the daemon open a store (through [`crate::service::app::App`] or
/// [`open_store`]), hold it, hand it to the services and close it; what is
/// read or written in it is the services' business, so the edges name
/// these two types and no other of the store's.
pub use crate::adapter::store::{Store, StoreError, redact_url};

/// Why a service step failed, kept apart by what went wrong: the
/// database (away, or holding what dopis cannot read), or a mail that could
/// not be composed (a template, the board picture, an address the mail
/// library will not take), which is no fault of the database.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The database failed, or holds data dopis cannot read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A mail could not be composed.
    #[error("cannot compose a mail: {0}")]
    Compose(#[from] crate::adapter::mail::compose::ComposeError),
    /// An XFCC password could not be hashed.
    #[error("hashing an XFCC password: {0}")]
    Password(String),
}

impl ServiceError {
    /// Whose fault it is: the database's is its own to say; a mail that
    /// cannot be composed is the item's (its player's address, its game),
    /// tried again a few times and then set aside like any item.
    pub fn blame(&self) -> crate::adapter::store::Blame {
        match self {
            ServiceError::Store(e) => e.blame(),
            ServiceError::Compose(_) | ServiceError::Password(_) => {
                crate::adapter::store::Blame::Item
            }
        }
    }

    /// Whether the database is away: the daemon's pass stops.
    pub fn is_outage(&self) -> bool {
        self.blame() == crate::adapter::store::Blame::Outage
    }
}

impl From<td::TdError> for ServiceError {
    /// A TD step on the way of a mail (the standings a player asked for, an
    /// event's final table): its database and mail failures as they are;
    /// anything else means the stored event cannot be read back.
    fn from(e: td::TdError) -> ServiceError {
        match e {
            td::TdError::Store(e) => ServiceError::Store(e),
            td::TdError::Service(e) => e,
            other => ServiceError::Store(StoreError::Corrupt(other.to_string())),
        }
    }
}

/// Creates (or brings up to date) the database at `url` and opens it, as
/// `dopis init` does.
pub async fn create_store(url: &str) -> Result<Store, StoreError> {
    Store::open(url).await
}

/// Opens the database at `url`, which `dopis init` set up (a missing or
/// older one is an error that says to run it).
pub async fn open_store(url: &str) -> Result<Store, StoreError> {
    Store::open_existing(url).await
}

pub use handled::{BounceNote, DigestLine, Done, Handled, Ignored, Limited, Refused, Ruled};

/// A test hook for crash-and-restart tests: when `DOPIS_CRASH_AT` names
/// this point, the process dies here at once, as if killed with `kill -9`
/// (no destructors, no flushing). Unset in normal operation.
pub(crate) fn crash_point(name: &str) {
    if std::env::var("DOPIS_CRASH_AT").is_ok_and(|v| v == name) {
        eprintln!("DOPIS_CRASH_AT={name}: aborting");
        std::process::abort();
    }
}
