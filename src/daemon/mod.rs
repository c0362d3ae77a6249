//! `dopis serve`: the daemon, the edge that reads and sends mail and runs
//! the loops; what a mail or a clock does is in [`crate::service`].
//!
//! - [`mailbox`]: where players' mail comes in (IMAP or a local Maildir).
//! - [`mailer`]: where ours goes out (SMTP or a local Maildir).
//! - [`lease`]: who reads the mailbox and whose outbox leases are alive,
//!   when several daemons share a database.
//! - [`run`]: the loops, and `serve`.

pub mod lease;
pub mod mailbox;
pub mod mailer;
mod net;
pub mod run;

pub use run::serve;
