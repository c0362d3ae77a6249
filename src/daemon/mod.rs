//! `dopis serve`: the daemon.
//!
//! - [`mailbox`]: where players' mail comes in (IMAP or a local Maildir).
//! - [`mailer`]: where ours goes out (SMTP or a local Maildir).
//! - [`clocks`]: game clocks, schedules, the scheduler step, booking leave.
//! - [`dkim`]: the optional DKIM check.
//! - [`inbox`]: handling one inbound mail, in one transaction.
//! - [`lease`]: who reads the mailbox and whose outbox leases are alive,
//!   when several daemons share a database.
//! - `bounces`: counting bounces per player; pausing a player whose address
//!   keeps bouncing, and telling their TDs.
//! - [`post`]: what happened, as mails in the outbox.
//! - [`start`]: starting a game with its first mails.
//! - [`quarantine`]: keeping one bad mail, game, digest or report from
//!   stopping the daemon.
//! - [`reports`]: the TD deadline report by mail, daily and on request.
//! - [`run`]: the loops, and `serve`.

mod bounces;
pub mod clocks;
pub mod dkim;
pub mod inbox;
pub mod lease;
pub mod mailbox;
pub mod mailer;
mod net;
pub mod post;
pub mod quarantine;
pub mod reports;
pub mod run;
pub mod start;

pub use run::serve;
