//! Keeping one bad mail, game, digest or report from stopping the daemon.
//!
//! A failure that belongs to one item stays with that item: a mail is tried
//! again a few times, then quarantined (moved out of the inbox, byte-exact,
//! to the mailbox's failed folder, recorded with its reason for `dopis
//! failed`, its registered sender told); a game, digest or report the
//! scheduler cannot handle waits out a growing pause while everything else
//! goes on. Only an outage of the database or the mailbox stops a pass, and
//! the run loop tries again after a pause.
//!
//! Each is logged once when set aside (and at warning level for the few
//! retries before), not on every pass.

use crate::service::ServiceError;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

use crate::adapter::mail::compose::NotHandledCause;
use crate::adapter::mail::inbound::{self, Excess, InboundError, InboundMail};
use crate::adapter::store::failures::MailFailure;
use crate::adapter::store::{Blame, Store, StoreError};

/// How often a mail is tried before it is quarantined, when it is not clear
/// whether the mail or the moment is at fault.
pub const MAX_MAIL_ATTEMPTS: i64 = 3;

/// At most this much of a mail's head is read to find whom to tell when
/// the whole mail could not be read in time.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Why one mail could not be handled.
#[derive(Debug, thiserror::Error)]
pub enum MailFault {
    /// Reading it took longer than the per-mail budget.
    #[error("reading the mail took longer than {} ms", .0.as_millis())]
    TooSlow(Duration),
    /// Reading it crashed the reader (a bug; the mail is kept as evidence).
    #[error("reading the mail failed: {0}")]
    ReaderCrashed(String),
    /// It goes over a cap on what is read of one mail (size, MIME parts,
    /// nesting, work).
    #[error("the mail is not read: {0}")]
    TooComplex(Excess),
    /// The service failed while handling it: the database, or a mail it
    /// could not compose.
    #[error("{0}")]
    Service(#[from] ServiceError),
    /// The mailbox failed after the mail's effects were committed (its
    /// error, in words).
    #[error("{0}")]
    Mailbox(String),
}

/// A mail that could not be handled: why, and the mail as far as it was
/// read (to tell its sender).
#[derive(Debug)]
pub struct FailedMail {
    /// Why.
    pub fault: MailFault,
    /// The mail, if it was read.
    pub read: Option<InboundMail>,
}

impl MailFault {
    /// Whether the mail, the moment, or neither clearly is at fault.
    pub fn blame(&self) -> Blame {
        match self {
            MailFault::TooSlow(_) | MailFault::ReaderCrashed(_) | MailFault::TooComplex(_) => {
                Blame::Item
            }
            MailFault::Service(e) => e.blame(),
            MailFault::Mailbox(_) => Blame::Outage,
        }
    }

    /// Whether the database or the mailbox is away: the pass stops.
    pub fn is_outage(&self) -> bool {
        self.blame() == Blame::Outage
    }

    /// What the sender is told.
    pub fn cause(&self) -> NotHandledCause {
        match self {
            MailFault::TooSlow(_) => NotHandledCause::TooSlow,
            MailFault::TooComplex(excess) => {
                let (cap, found, max) = excess.figures();
                NotHandledCause::TooComplex { cap, found, max }
            }
            _ => NotHandledCause::Failed,
        }
    }
}

/// Reads a mail off the daemon's task, within `budget`: a mail that would
/// take longer, crash the reader or go over a cap on what is read is a
/// [`MailFault`], never a stalled or dead daemon. The reader is linear in the mail's size, so the budget is a
/// backstop; a reader still running after it is left to finish on its own
/// thread, and its result is dropped.
pub async fn read_within(
    raw: Arc<Vec<u8>>,
    budget: Duration,
) -> Result<Result<InboundMail, InboundError>, MailFault> {
    match tokio::time::timeout(budget, off_the_runtime(move || inbound::parse(&raw))).await {
        Ok(Ok(Err(InboundError::TooComplex { excess, .. }))) => Err(MailFault::TooComplex(excess)),
        Ok(Ok(read)) => Ok(read),
        Ok(Err(crash)) => Err(MailFault::ReaderCrashed(crash)),
        Err(_) => Err(MailFault::TooSlow(budget)),
    }
}

/// Runs `work` on a thread of its own and waits for it without blocking the
/// runtime. A plain thread rather than `spawn_blocking`: a runtime waits for
/// its blocking tasks when it shuts down, so `serve --once` would wait for a
/// reader that ran out of its budget; a plain thread is simply dropped when
/// the process ends. A panic comes back as its message.
async fn off_the_runtime<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (done, result) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("dopis-read".into())
        .spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = done.send(outcome.map_err(|p| {
                p.downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "the reader panicked".into())
            }));
        });
    if let Err(e) = spawned {
        return Err(format!("cannot start a thread to read the mail: {e}"));
    }
    result
        .await
        .unwrap_or_else(|_| Err("the reader stopped without an answer".into()))
}

/// Reads only the head of a mail (its header fields, at most
/// 64 KiB, so it takes a bounded time of its own): who sent it,
/// its subject and whether a machine did, to answer a mail whose whole could
/// not be read.
pub async fn read_head(raw: &[u8]) -> Option<InboundMail> {
    const HEAD_BUDGET: Duration = Duration::from_secs(2);
    let head = head_of(raw).to_vec();
    let read = off_the_runtime(move || inbound::parse(&head).ok());
    tokio::time::timeout(HEAD_BUDGET, read).await.ok()?.ok()?
}

/// The header block of a mail (up to the first empty line), at most
/// [`MAX_HEAD_BYTES`].
fn head_of(raw: &[u8]) -> &[u8] {
    let raw = &raw[..raw.len().min(MAX_HEAD_BYTES)];
    let end = raw
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| i + 2)
        .or_else(|| raw.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4));
    &raw[..end.unwrap_or(raw.len())]
}

/// The pause before stuck scheduler work is tried again: 1, 2, 4 … minutes
/// after each failure, at most six hours.
pub fn stuck_pause(attempts: i64, now: DateTime<Utc>) -> DateTime<Utc> {
    let exp = u32::try_from(attempts.clamp(1, 10) - 1).unwrap_or(0);
    now + TimeDelta::minutes(2_i64.pow(exp).min(360))
}

/// Whether a failure of one unit of work (a mail, a game, a digest, a
/// report) must stop the pass: only when the database itself is away.
pub fn is_outage(e: &StoreError) -> bool {
    e.blame() == Blame::Outage
}

/// A mail that could not be handled, as the mailbox holds it.
#[derive(Debug, Clone, Copy)]
pub struct Unhandled<'a> {
    /// The mailbox's name (its cursor's key).
    pub mailbox: &'a str,
    /// The mail's reference in the mailbox.
    pub reference: &'a str,
    /// The mail, byte-exact.
    pub raw: &'a [u8],
    /// When it arrived.
    pub received_at: DateTime<Utc>,
    /// Its sender, if its head could be read.
    pub sender: Option<&'a str>,
}

/// What to do with a mail whose failure was just recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetAside {
    /// Not clear the mail is at fault: read it again on the next pass
    /// (this was attempt number `attempts`).
    TryAgain {
        /// Attempts so far.
        attempts: i64,
    },
    /// Quarantine it: move it out of the inbox, then [`kept`].
    Quarantine {
        /// Its number for `dopis failed`.
        id: i64,
        /// Whether this is the first time it is given up on (its sender is
        /// told, and it is logged, only then).
        first_time: bool,
    },
}

/// Records one failure of a mail (kept byte-exact the first time) and
/// decides whether it is tried again or quarantined.
pub async fn record_failure(
    store: &Store,
    mail: &Unhandled<'_>,
    fault: &MailFault,
    now: DateTime<Utc>,
) -> Result<SetAside, StoreError> {
    let reason = fault.to_string();
    let failure = MailFailure {
        mailbox: mail.mailbox,
        mailbox_ref: mail.reference,
        raw: mail.raw,
        received_at: mail.received_at,
        sender: mail.sender,
        reason: &reason,
    };
    let record = store.record_mail_failure(&failure, now).await?;
    Ok(
        if fault.blame() == Blame::Unsure && record.attempts < MAX_MAIL_ATTEMPTS {
            SetAside::TryAgain {
                attempts: record.attempts,
            }
        } else {
            SetAside::Quarantine {
                id: record.id,
                first_time: record.quarantined_at.is_none(),
            }
        },
    )
}

/// Records that failed mail `id` is given up on, and where the mailbox
/// keeps it now (`None`: still in the inbox).
pub async fn kept(
    store: &Store,
    id: i64,
    kept_in: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    store.quarantine_mail(id, kept_in, now).await
}

/// Forgets the failures of a mail that has now been handled.
pub async fn handled_at_last(
    store: &Store,
    mailbox: &str,
    reference: &str,
) -> Result<(), StoreError> {
    store.clear_mail_failure(mailbox, reference).await
}

/// The service's vocabulary for `dopis failed`: plain records of a mail set
/// aside and of scheduler work that keeps failing.
pub use crate::adapter::store::failures::{FailedMail as FailedMailRecord, StuckWork};

/// Every mail that failed (tried again or quarantined), oldest first.
pub async fn failed_mails(store: &Store) -> Result<Vec<FailedMailRecord>, StoreError> {
    store.failed_mails().await
}

/// A failed mail and its bytes.
pub async fn failed_mail(
    store: &Store,
    id: i64,
) -> Result<Option<(FailedMailRecord, Vec<u8>)>, StoreError> {
    store.failed_mail(id).await
}

/// Forgets a failed mail once it is back in the inbox.
pub async fn forget_failed_mail(store: &Store, id: i64) -> Result<bool, StoreError> {
    store.forget_failed_mail(id).await
}

/// Every piece of scheduler work that has failed; normally none.
pub async fn stuck_work(store: &Store) -> Result<Vec<StuckWork>, StoreError> {
    store.stuck_work().await
}

/// The subjects of scheduler work that has failed and, of those, the ones
/// whose pause after the failure has not ended yet.
pub async fn stuck_subjects(
    store: &Store,
    now: DateTime<Utc>,
) -> Result<(HashSet<String>, HashSet<String>), StoreError> {
    let stuck = store.stuck_work().await?;
    let waiting = stuck
        .iter()
        .filter(|s| s.next_try_at > now)
        .map(|s| s.subject.clone())
        .collect();
    Ok((stuck.into_iter().map(|s| s.subject).collect(), waiting))
}

/// Records a failure of scheduler work, put off for [`stuck_pause`];
/// logged as an error the first time only. Returns how often it has failed.
pub async fn record_stuck(
    store: &Store,
    subject: &str,
    e: &impl std::fmt::Display,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let attempts = store
        .record_stuck(subject, &e.to_string(), |a| stuck_pause(a, now), now)
        .await?;
    if attempts == 1 {
        tracing::error!(subject, error = %e, "scheduler work failed; put off, the rest goes on (dopis failed)");
    } else {
        tracing::debug!(subject, attempts, error = %e, "scheduler work failed again");
    }
    Ok(attempts)
}

/// Scheduler work that failed before has now been done.
pub async fn unstuck(store: &Store, subject: &str) -> Result<(), StoreError> {
    store.clear_stuck(subject).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_of_a_mail_ends_at_the_first_empty_line() {
        assert_eq!(
            head_of(b"From: a@b\nSubject: x\n\nbody\n\n"),
            b"From: a@b\nSubject: x\n\n"
        );
        assert_eq!(head_of(b"From: a@b\r\n\r\nbody"), b"From: a@b\r\n\r\n");
        assert_eq!(head_of(b"From: a@b"), b"From: a@b");
        let long = vec![b'x'; MAX_HEAD_BYTES * 2];
        assert_eq!(head_of(&long).len(), MAX_HEAD_BYTES);
    }

    #[test]
    fn stuck_work_waits_longer_after_each_failure_up_to_six_hours() {
        let now = DateTime::from_timestamp(0, 0).unwrap();
        let minutes: Vec<i64> = [1, 2, 3, 9, 10, 50]
            .iter()
            .map(|&a| (stuck_pause(a, now) - now).num_minutes())
            .collect();
        assert_eq!(minutes, vec![1, 2, 4, 256, 360, 360]);
    }

    #[test]
    fn a_mail_that_takes_too_long_or_crashes_the_reader_is_the_mail_s_fault() {
        assert_eq!(
            MailFault::TooSlow(Duration::from_secs(1)).blame(),
            Blame::Item
        );
        assert_eq!(MailFault::ReaderCrashed("x".into()).blame(), Blame::Item);
        assert_eq!(
            MailFault::Mailbox("x (will retry)".into()).blame(),
            Blame::Outage
        );
        assert_eq!(
            MailFault::Service(StoreError::Corrupt("x".into()).into()).blame(),
            Blame::Item
        );
    }
}
