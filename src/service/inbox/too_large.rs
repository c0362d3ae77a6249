//! A mail too large to read, refused from its header fields alone.
//!
//! The mailbox does not read a mail over its size cap (reading it would cost
//! that much memory and time, and more for whoever sends many). But such a
//! mail is still somebody's: a player who attached a large photo to a move
//! must learn that the move was not read, or their clock runs while they
//! wait. So the mail is recorded as handled, with why, and its registered
//! sender told in their language, as for a mail over the reader's other
//! caps, in one transaction; machines and strangers are not answered.

use chrono::{DateTime, Utc};

use super::{Handled, Inbox};
use crate::adapter::mail::compose::NotHandledCause;
use crate::adapter::mail::inbound::Excess;
use crate::adapter::mail::key::sha256_hex;
use crate::adapter::store::inbound::InboundRecord;
use crate::adapter::store::{Store, StoreError};

impl Inbox {
    /// Refuses a mail of `size` bytes, over the mailbox's cap of `max`,
    /// from its header block `head` (whatever of it could be read): recorded
    /// as handled, once (the same mail again is a duplicate), and its
    /// registered sender told unless a machine sent it.
    #[allow(clippy::too_many_arguments)]
    pub async fn refuse_too_large(
        &self,
        store: &Store,
        mailbox_ref: &str,
        head: &[u8],
        size: u64,
        max: u64,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Handled, StoreError> {
        let read = crate::service::quarantine::read_head(head).await;
        let excess = Excess::Size {
            bytes: usize::try_from(size).unwrap_or(usize::MAX),
            max: usize::try_from(max).unwrap_or(usize::MAX),
        };
        let key = match &read {
            Some(mail) => mail.idempotency_key.to_string(),
            None => format!(
                "sha256:{}",
                sha256_hex(&[head, &size.to_be_bytes()[..]].concat(), 32)
            ),
        };
        let mut tx = store.begin().await?;
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
                    &mut tx,
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
            Some(to) => Handled::Done(format!(
                "refused: the mail is not read: {excess}; told {to}"
            )),
            None => Handled::Ignored(format!("ignored: the mail is not read: {excess}")),
        };
        let text = match &outcome {
            Handled::Done(t) | Handled::Ignored(t) => t.as_str(),
            Handled::Duplicate => "duplicate",
        };
        tx.inbound_outcome(&key, None, text).await?;
        tx.commit().await?;
        Ok(outcome)
    }
}
