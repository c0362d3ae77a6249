//! What becomes of an outbox mail the daemon tried to send: the outbox's
//! bookkeeping (claims, retries and their backoff, giving up, putting back)
//! and the hard bounce a refusal for good counts as. The daemon's sender
//! hands mails to the SMTP server and tells this module how it went.

use crate::service::ServiceError;
use chrono::{DateTime, Duration, Utc};

use super::post::Post;
use crate::adapter::store::{Store, StoreError};

/// The service's vocabulary for a mail to send: plain data read from the
/// outbox (envelope, recipient, the bytes, how often it was tried).
pub use crate::adapter::store::outbox::OutboxMail;

/// How long a claimed outbox mail is left alone by other senders.
const LEASE_SECONDS: i64 = 300;
/// How many mails one claim takes.
const BATCH: i64 = 20;
/// After this many failed attempts a transiently failing mail is given up
/// (about two days of retries) and reported as failed.
const MAX_ATTEMPTS: i64 = 40;

/// Delay before retry number `attempts` (1-based): 1, 2, 4 … minutes, at
/// most an hour.
fn backoff(attempts: i64) -> Duration {
    let exp = u32::try_from(attempts.clamp(1, 7) - 1).unwrap_or(0);
    Duration::minutes(2_i64.pow(exp).min(60))
}

/// Claims the next mails that are due, for `holder` (an instance number of
/// [`super::lease::Lease`]; `None`: the only daemon).
pub async fn claim(
    store: &Store,
    now: DateTime<Utc>,
    holder: Option<i64>,
) -> Result<Vec<OutboxMail>, StoreError> {
    store
        .claim_outbox_for(now, Duration::seconds(LEASE_SECONDS), BATCH, holder)
        .await
}

/// The server took these mails, each at its time: recorded in one transaction.
pub async fn sent_all(
    store: &Store,
    mails: &[(&OutboxMail, DateTime<Utc>)],
) -> Result<(), StoreError> {
    store.outbox_sent(mails).await
}

/// The mail's envelope or recipient is not an address: given up.
pub async fn unaddressable(store: &Store, mail: &OutboxMail) -> Result<(), StoreError> {
    store.outbox_failed(mail, "invalid address", None).await
}

/// The server failed the mail for a while: tried again after a growing
/// pause, or given up after 40 attempts. Returns when it is tried
/// again (`None`: given up).
pub async fn failed_for_now(
    store: &Store,
    mail: &OutboxMail,
    error: &str,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, StoreError> {
    let retry = (mail.attempts < MAX_ATTEMPTS).then(|| now + backoff(mail.attempts));
    store.outbox_failed(mail, error, retry).await?;
    Ok(retry)
}

/// Our SMTP server refused the mail for good: given up, and counted as a
/// hard bounce, as a returned DSN would count: an address refused at once,
/// again and again, pauses its player and tells their TDs too.
pub async fn refused(
    store: &Store,
    post: &Post,
    mail: &OutboxMail,
    error: &str,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    store.outbox_failed(mail, error, None).await?;
    let mut tx = store.begin().await?;
    let Some(player) = tx.player_by_email(&mail.recipient).await? else {
        return Ok(());
    };
    let said = super::bounces::hard_bounce(
        post,
        &mut tx,
        &player,
        &mail.message_id,
        super::bounces::smtp_status(error).as_deref(),
        &format!("smtp:{}", mail.mail_key),
        now,
        now,
    )
    .await?;
    tx.commit().await?;
    tracing::info!(to = %mail.recipient, "{said}");
    Ok(())
}

/// The server takes no mail now (`why`): the mails of a claim not sent yet
/// go back as they were, due at once, no attempt counted; the first of
/// them (the one that met the server's refusal) records why.
pub async fn put_back(
    store: &Store,
    mails: &[OutboxMail],
    why: &str,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    for (i, mail) in mails.iter().enumerate() {
        let said = (i == 0).then_some(why);
        store.outbox_unclaim(mail, said, now).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_to_an_hour() {
        let minutes: Vec<i64> = (1..=9).map(|a| backoff(a).num_minutes()).collect();
        assert_eq!(minutes, vec![1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }
}
