//! A mail too large to read, refused from its header fields alone.
//!
//! The mailbox does not read a mail over its size cap (reading it would cost
//! that much memory and time, and more for whoever sends many). But such a
//! mail is still somebody's: a player who attached a large photo to a move
//! must learn that the move was not read, or their clock runs while they
//! wait. So the mail is recorded as handled, with why, and its registered
//! sender told in their language, as for a mail over the reader's other
//! caps, in its batch's transaction; machines and strangers are not answered.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::{Done, Handled, Ignored, Inbox, Refused};
use crate::adapter::mail::compose::NotHandledCause;
use crate::adapter::mail::inbound::{Excess, InboundMail};
use crate::adapter::mail::key::sha256_hex;
use crate::adapter::store::Tx;
use crate::adapter::store::inbound::InboundRecord;

/// A mail over the mailbox's size cap, as far as its header block could be
/// read (outside the transaction: reading it may take a moment).
#[derive(Debug)]
pub(super) struct TooLarge {
    /// Its header fields, when they could be read.
    pub(super) read: Option<InboundMail>,
    /// Its key: the Message-ID's, else a hash of its head and size.
    key: String,
    excess: Excess,
}

impl TooLarge {
    /// Reads what can be read of a mail of `size` bytes, over the cap of
    /// `max`, from its header block `head`.
    pub(super) async fn read(head: &[u8], size: u64, max: u64) -> TooLarge {
        let read = crate::service::quarantine::read_head(head).await;
        let key = match &read {
            Some(mail) => mail.idempotency_key.to_string(),
            None => format!(
                "sha256:{}",
                sha256_hex(&[head, &size.to_be_bytes()[..]].concat(), 32)
            ),
        };
        TooLarge {
            read,
            key,
            excess: Excess::Size {
                bytes: usize::try_from(size).unwrap_or(usize::MAX),
                max: usize::try_from(max).unwrap_or(usize::MAX),
            },
        }
    }
}

impl Inbox {
    /// Refuses a mail too large to read: recorded as handled, once (the
    /// same mail again is a duplicate), and its registered sender told
    /// unless a machine sent it.
    pub(super) async fn refuse_too_large(
        &self,
        tx: &mut Tx,
        large: TooLarge,
        mailbox_ref: &str,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Handled, ServiceError> {
        let TooLarge { read, key, excess } = large;
        let record = InboundRecord {
            mail_key: &key,
            mailbox_ref,
            received_at,
            sender: read.as_ref().map(|m| m.from.as_str()),
        };
        if !tx.record_inbound(&record, now).await? {
            return Ok(Handled::Duplicate);
        }
        let told = match &read {
            Some(mail) => {
                let (cap, found, max) = excess.figures();
                self.tell_not_handled_in(
                    tx,
                    mail,
                    &format!("too-large:{key}"),
                    NotHandledCause::TooComplex { cap, found, max },
                    now,
                )
                .await?
                .then(|| mail.from.to_string())
            }
            None => None,
        };
        let outcome = match told {
            Some(told) => Handled::Done(Done::Refused(Refused::TooLarge {
                excess: excess.to_string(),
                told,
            })),
            None => Handled::Ignored(Ignored::TooLarge(excess.to_string())),
        };
        tx.inbound_outcome(&key, None, &outcome.to_string()).await?;
        Ok(outcome)
    }
}
