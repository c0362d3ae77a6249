//! Retention (`[retention]`): `dopis serve` drops, once they are old
//! enough, what it needs only for a while.
//!
//! - The bodies of outbox mails sent more than `outbox_bodies_days` ago.
//!   The row stays: its key keeps the same mail from being queued again
//!   (exactly-once), its Message-ID and recipient prove that a bounce is
//!   about a mail of ours, its time counts for the answers-per-hour limit.
//!   Mail not yet sent, and mail that failed for good (for the admin to
//!   look at), is never pruned.
//! - The sender and outcome of inbound records handled more than
//!   `inbound_days` ago, and the texts of confirmations asked before then
//!   (one not answered by then expires). The key (Message-ID or hash) and
//!   fingerprint stay, so a mail read again still acts only once. dopis
//!   keeps no copy of a handled mail (the mailbox has it); the copies of
//!   mails it could not handle (`dopis failed`) are the admin's to retry,
//!   and are kept until then.

use chrono::{DateTime, Duration, Utc};

use crate::adapter::config::RetentionConfig;
use crate::adapter::store::{Store, StoreError};

/// How long things are kept; `None`: for ever.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retention {
    /// Sent mails' bodies.
    pub outbox_bodies: Option<Duration>,
    /// Handled inbound records' sender and outcome.
    pub inbound: Option<Duration>,
}

impl Retention {
    /// Keeps everything for ever (tests, the demo).
    pub fn for_ever() -> Retention {
        Retention::default()
    }

    /// The periods a config names (0 days: for ever).
    pub fn from_config(config: &RetentionConfig) -> Retention {
        let days = |d: u32| (d > 0).then(|| Duration::days(i64::from(d)));
        Retention {
            outbox_bodies: days(config.outbox_bodies_days),
            inbound: days(config.inbound_days),
        }
    }
}

/// What one pruning did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Outbox bodies dropped.
    pub outbox_bodies: u64,
    /// Inbound records let go of.
    pub inbound: u64,
}

/// Prunes what is older than the retention periods, in one transaction.
pub async fn prune(
    store: &Store,
    retention: &Retention,
    now: DateTime<Utc>,
) -> Result<Pruned, StoreError> {
    let mut pruned = Pruned::default();
    if retention.outbox_bodies.is_none() && retention.inbound.is_none() {
        return Ok(pruned);
    }
    let mut tx = store.begin().await?;
    if let Some(keep) = retention.outbox_bodies {
        pruned.outbox_bodies = tx.prune_sent_bodies(now - keep, now).await?;
    }
    if let Some(keep) = retention.inbound {
        pruned.inbound = tx.prune_inbound(now - keep, now).await?;
    }
    tx.commit().await?;
    Ok(pruned)
}
