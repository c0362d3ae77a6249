//! `dopis serve`: the daemon, the edge that reads and sends mail and runs
//! the loops; what a mail or a clock does is in [`crate::service`].
//!
//! - [`doctor`]: `dopis doctor`, a set-up checked piece by piece.
//! - [`mailbox`]: where players' mail comes in (IMAP or a local Maildir).
//! - [`mailer`]: where ours goes out (SMTP or a local Maildir).
//! - [`metrics`]: `/healthz` and `/metrics` (`[metrics] listen`).
//! - [`oauth`]: XOAUTH2 logins with the token a `token_command` prints.
//! - [`run`]: the loops, and `serve`.
//! - [`retry_failed`]: `dopis failed retry`, a failed mail put back into the mailbox.

pub mod doctor;
pub mod mailbox;
pub mod mailer;
pub mod metrics;
mod net;
pub mod oauth;
mod retry;
pub mod run;

pub use retry::retry_failed;
pub use run::serve;
