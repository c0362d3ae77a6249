//! The application: what happens when a mail comes in, a clock runs out or
//! a TD acts. The daemon, the CLI and the demo call these; they call the
//! core (rules, clocks, events, the arbiter) and the adapters (the store,
//! mail in and out), never the daemon or the CLI.
//!
//! - [`app`]: the config, store and clock every command shares.
//! - [`inbox`]: an inbound mail routed, authenticated and applied.
//! - [`dkim`]: the optional DKIM check of an inbound mail.
//! - [`post`]: the mails a change causes, queued in its transaction.
//! - [`clocks`]: deadlines, reminders, leave and the scheduler.
//! - [`schedule`]: a game's schedule stored in its row after every change.
//! - [`start`]: starting a game; [`games`]: stored games as shown.
//! - [`players`]: players registered, listed, shown and resumed.
//! - [`td`]: events and what their directors do; [`event_settings`]: an
//!   event's stored settings, one schema for the TD tools, the post and the
//!   ratings.
//! - [`entries`]: entries by mail, and starting an event when they close.
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
pub mod inbox;
pub mod lease;
pub mod links;
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

/// What became of a mail, for logs and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// Seen before: did nothing.
    Duplicate,
    /// Not answered by rule (bounce, auto-reply, list, unreadable, rate limit).
    Ignored(String),
    /// Acted on or answered; the text says how.
    Done(String),
}

/// A test hook for crash-and-restart tests: when `DOPIS_CRASH_AT` names
/// this point, the process dies here at once, as if killed with `kill -9`
/// (no destructors, no flushing). Unset in normal operation.
pub(crate) fn crash_point(name: &str) {
    if std::env::var("DOPIS_CRASH_AT").is_ok_and(|v| v == name) {
        eprintln!("DOPIS_CRASH_AT={name}: aborting");
        std::process::abort();
    }
}
