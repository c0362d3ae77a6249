//! The application: what happens when a mail comes in, a clock runs out or
//! a TD acts. The daemon, the CLI and the demo call these; they call the
//! core (rules, clocks, events, the arbiter) and the adapters (the store,
//! mail in and out), never the daemon or the CLI.
//!
//! - [`inbox`]: an inbound mail routed, authenticated and applied.
//! - [`dkim`]: the optional DKIM check of an inbound mail.
//! - [`post`]: the mails a change causes, queued in its transaction.
//! - [`clocks`]: deadlines, reminders, leave and the scheduler.
//! - [`start`]: starting a game.
//! - [`td`]: events and what their directors do.
//! - [`report`]: the deadline report, on the command line and by mail.
//! - [`bounces`]: bounced mail, and holding a player's mail.
//! - [`quarantine`]: mails whose handling failed.

pub mod bounces;
pub mod clocks;
pub mod dkim;
pub mod inbox;
pub mod post;
pub mod quarantine;
pub mod report;
pub mod start;
pub mod td;
