//! Where players' mail comes in: an IMAP folder, or a local Maildir (the
//! embedded default).
//!
//! The daemon's loop is: [`Mailbox::fetch_new`] after its cursor (the
//! [`MailRef`] of the last mail it handled, kept in the database; IMAP reads
//! the UIDs above it, a Maildir needs none as its `new/` holds just the mail
//! not yet handled), handle each mail and commit its effects, then
//! [`Mailbox::mark_done`] it, and [`Mailbox::wait_for_new`] when there is
//! nothing left.
//!
//! Reconnecting: after a dropped IMAP connection every method reconnects by
//! itself, one attempt per call. A [`MailboxError::Transient`] tells the caller
//! to wait and call again; [`Backoff`] says how long, growing while failures
//! go on.

mod imap;
mod maildir;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::adapter::config::MailConfig;

pub use imap::{ImapMailbox, ImapProbe, Step as ImapStep, StepNote, diagnose as diagnose_imap};
pub use maildir::MaildirMailbox;

/// Mails bigger than this are not read by default (their body is skipped).
pub const DEFAULT_MAX_MAIL_BYTES: u64 = 25 * 1024 * 1024;

/// At most this much of a mail over the size cap is read: enough for its
/// header fields, to tell its sender why the mail was not read.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// At most this many mails come back from one [`Mailbox::fetch_new`].
pub const BATCH_SIZE: usize = 50;

/// A mailbox of either kind.
///
/// An enum rather than a trait object: async methods in traits cannot be
/// called through `dyn`.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per daemon: boxing would save nothing
pub enum Mailbox {
    /// An IMAP folder.
    Imap(ImapMailbox),
    /// A local Maildir.
    Maildir(MaildirMailbox),
}

/// One mail read from a mailbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incoming {
    /// Where it is, for [`Mailbox::mark_done`] and as the daemon's cursor.
    pub key: MailRef,
    /// The whole message as delivered; empty when `oversized` is set.
    pub raw: Vec<u8>,
    /// For an oversized mail, its beginning (at most [`MAX_HEAD_BYTES`]: its
    /// header fields), so that its sender can be told; else empty.
    pub head: Vec<u8>,
    /// When it reached the mailbox (IMAP INTERNALDATE, or the Maildir file's
    /// delivery time), never the sender's Date header: this is when a move
    /// was made, and a daemon outage must not cost the player time.
    pub received_at: DateTime<Utc>,
    /// `Some(size in bytes)` when the mail was bigger than the cap: its body
    /// was not read; the daemon refuses it from its `head`.
    pub oversized: Option<u64>,
}

/// Where a mail is in its mailbox. [`fmt::Display`] gives a stable text form
/// for the database (`imap:UIDVALIDITY:UID`, `maildir:NAME`) that
/// [`FromStr`] reads back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MailRef {
    /// An IMAP message: its UID, valid only while the folder's UIDVALIDITY
    /// stays the same.
    Imap {
        /// The folder's UIDVALIDITY when the UID was read.
        uid_validity: u32,
        /// The message's UID.
        uid: u32,
    },
    /// A Maildir message: its file name in `new/` (a unique name).
    Maildir {
        /// The file name.
        name: String,
    },
}

impl fmt::Display for MailRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MailRef::Imap { uid_validity, uid } => write!(f, "imap:{uid_validity}:{uid}"),
            MailRef::Maildir { name } => write!(f, "maildir:{name}"),
        }
    }
}

/// Why a text is not a [`MailRef`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a mail reference (imap:UIDVALIDITY:UID or maildir:NAME)")]
pub struct BadMailRef(String);

impl FromStr for MailRef {
    type Err = BadMailRef;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadMailRef(text.chars().take(80).collect());
        if let Some(rest) = text.strip_prefix("imap:") {
            let (validity, uid) = rest.split_once(':').ok_or_else(bad)?;
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if !digits(validity) || !digits(uid) {
                return Err(bad());
            }
            return Ok(MailRef::Imap {
                uid_validity: validity.parse().map_err(|_| bad())?,
                uid: uid.parse().map_err(|_| bad())?,
            });
        }
        if let Some(name) = text.strip_prefix("maildir:") {
            if !maildir::is_safe_name(name) {
                return Err(bad());
            }
            return Ok(MailRef::Maildir { name: name.into() });
        }
        Err(bad())
    }
}

/// Why the mailbox could not be read, by what the caller does next.
///
/// Messages name the fix and never carry a password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailboxError {
    /// The server is unreachable or the connection broke: wait (see
    /// [`Backoff`]) and call again; the mailbox reconnects by itself.
    #[error("{0} (will retry)")]
    Transient(String),
    /// Retrying will not help until the admin changes something: a refused
    /// login, a missing folder, an insecure setting.
    #[error("{0}")]
    Permanent(String),
    /// The mail a [`MailRef`] names is no longer where the key says (moved,
    /// deleted, or the IMAP folder was reset); nothing was changed.
    #[error("{0}")]
    Gone(String),
}

impl MailboxError {
    /// What went wrong, without the "(will retry)" of the log line.
    pub fn message(&self) -> &str {
        match self {
            MailboxError::Transient(m) | MailboxError::Permanent(m) | MailboxError::Gone(m) => m,
        }
    }

    /// Whether calling again later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, MailboxError::Transient(_))
    }
}

impl Mailbox {
    /// Opens the mailbox the config names: the IMAP folder if `[mail.imap]`
    /// is set, else the Maildir `PATH/inbox` (created when missing).
    pub async fn open(cfg: &MailConfig) -> Result<Mailbox, MailboxError> {
        match &cfg.imap {
            Some(imap) => Ok(Mailbox::Imap(ImapMailbox::connect(imap.clone()).await?)),
            None => Ok(Mailbox::Maildir(
                MaildirMailbox::open(cfg.maildir.path.join("inbox")).await?,
            )),
        }
    }

    /// Sets the size cap: bigger mails come back with `oversized` set and no
    /// body (default [`DEFAULT_MAX_MAIL_BYTES`]).
    pub fn set_max_mail_bytes(&mut self, bytes: u64) {
        match self {
            Mailbox::Imap(m) => m.set_max_mail_bytes(bytes),
            Mailbox::Maildir(m) => m.set_max_mail_bytes(bytes),
        }
    }

    /// Counts IMAP reconnects into `counter` (`/metrics`); a Maildir has
    /// no connection.
    pub fn count_reconnects(&mut self, counter: prometheus_client::metrics::counter::Counter) {
        if let Mailbox::Imap(m) = self {
            m.count_reconnects(counter);
        }
    }

    /// The size cap (see [`Mailbox::set_max_mail_bytes`]).
    pub fn max_mail_bytes(&self) -> u64 {
        match self {
            Mailbox::Imap(m) => m.max_mail_bytes(),
            Mailbox::Maildir(m) => m.max_mail_bytes(),
        }
    }

    /// Mail not yet handled, oldest first, at most [`BATCH_SIZE`]: for IMAP
    /// the mail after `after` (or, with no cursor or one that is no longer
    /// valid, all mail not yet done); for a Maildir all of `new/` but mail
    /// that could not be marked done.
    pub async fn fetch_new(
        &mut self,
        after: Option<&MailRef>,
    ) -> Result<Vec<Incoming>, MailboxError> {
        match self {
            Mailbox::Imap(m) => m.fetch_new(after).await,
            Mailbox::Maildir(m) => m.fetch_new(after).await,
        }
    }

    /// Marks a mail handled, so it is not read again after a restart: IMAP
    /// flags it `\Seen` (and moves it to the done folder if one is set);
    /// Maildir moves it from `new/` to `cur/` with the `S` flag.
    pub async fn mark_done(&mut self, key: &MailRef) -> Result<(), MailboxError> {
        match self {
            Mailbox::Imap(m) => m.mark_done(key).await,
            Mailbox::Maildir(m) => m.mark_done(key).await,
        }
    }

    /// Moves a mail that could not be handled out of the inbox, byte-exact,
    /// to where the admin finds it (IMAP: the failed folder; Maildir: the
    /// `.failed` subfolder); returns where it is now.
    pub async fn quarantine(&mut self, key: &MailRef) -> Result<String, MailboxError> {
        match self {
            Mailbox::Imap(m) => m.quarantine(key).await,
            Mailbox::Maildir(m) => m.quarantine(key).await,
        }
    }

    /// Puts a quarantined mail back into the inbox to be read again, with
    /// its original arrival time; returns where it is now.
    pub async fn put_back(
        &mut self,
        raw: &[u8],
        received_at: DateTime<Utc>,
        kept_in: Option<&str>,
    ) -> Result<String, MailboxError> {
        match self {
            Mailbox::Imap(m) => m.put_back(raw, received_at).await,
            Mailbox::Maildir(m) => m.put_back(raw, received_at, kept_in).await,
        }
    }

    /// Returns when mail newer than the last [`Mailbox::fetch_new`] may have
    /// arrived, or after `max` at the latest (IMAP IDLE, or polling).
    pub async fn wait_for_new(&mut self, max: Duration) -> Result<(), MailboxError> {
        match self {
            Mailbox::Imap(m) => m.wait_for_new(max).await,
            Mailbox::Maildir(m) => m.wait_for_new(max).await,
        }
    }
}

/// How long to wait before the next attempt after a transient failure:
/// doubling from `min` up to `max`, back to `min` after a success.
#[derive(Debug, Clone)]
pub struct Backoff {
    min: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    /// A backoff from `min` to `max`.
    pub fn new(min: Duration, max: Duration) -> Backoff {
        Backoff {
            min,
            max: max.max(min),
            next: min,
        }
    }

    /// The wait before the next attempt; each call doubles the one after.
    pub fn next_delay(&mut self) -> Duration {
        let delay = self.next;
        self.next = self.next.saturating_mul(2).min(self.max);
        delay
    }

    /// Starts again from `min` (after a success).
    pub fn reset(&mut self) {
        self.next = self.min;
    }
}

impl Default for Backoff {
    /// One second, doubling up to five minutes.
    fn default() -> Self {
        Backoff::new(Duration::from_secs(1), Duration::from_secs(300))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_refs_survive_their_text_form() {
        let refs = [
            MailRef::Imap {
                uid_validity: 1,
                uid: 1,
            },
            MailRef::Imap {
                uid_validity: u32::MAX,
                uid: u32::MAX,
            },
            MailRef::Imap {
                uid_validity: 1732900000,
                uid: 42,
            },
            MailRef::Maildir {
                name: "1732900000.M1P2.host:2,".into(),
            },
            MailRef::Maildir {
                name: "dopis.1.2.00ff".into(),
            },
        ];
        for r in refs {
            let text = r.to_string();
            assert_eq!(text.parse::<MailRef>(), Ok(r.clone()), "{text}");
        }
    }

    #[test]
    fn broken_or_hostile_mail_ref_texts_are_refused() {
        let texts = [
            "",
            "imap:",
            "imap:1",
            "imap:1:",
            "imap::1",
            "imap:1:2:3",
            "imap:-1:2",
            "imap:+1:2",
            "imap:4294967296:1",
            "imap:1:x",
            "maildir:",
            "maildir:.",
            "maildir:..",
            "maildir:../../etc/passwd",
            "maildir:a/b",
            "maildir:.hidden",
            "maildir:a\0b",
            "pop3:1",
            "IMAP:1:2",
        ];
        for text in texts {
            assert!(text.parse::<MailRef>().is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn backoff_doubles_up_to_its_ceiling_and_resets() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(10));
        let delays: Vec<u64> = (0..6).map(|_| b.next_delay().as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 10, 10]);
        b.reset();
        assert_eq!(b.next_delay(), Duration::from_secs(1));
    }

    #[test]
    fn only_transient_errors_say_to_retry() {
        assert!(MailboxError::Transient("x".into()).is_transient());
        assert!(!MailboxError::Permanent("x".into()).is_transient());
        assert!(!MailboxError::Gone("x".into()).is_transient());
    }
}
