//! The daemon's edges to the mail system: where players' mail comes in
//! ([`mailbox`]: IMAP or a local Maildir) and where ours goes out
//! ([`mailer`]: SMTP or a local Maildir).

pub mod mailbox;
pub mod mailer;
mod net;
