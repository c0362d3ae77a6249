//! What could not be done, kept apart so that it never blocks the rest:
//! mails whose handling failed (retried, then quarantined) and scheduler
//! work that failed (a game, a digest, a report), tried again later.

use super::sql::Row;
use chrono::{DateTime, Utc};

use super::{Store, StoreError, db_text, from_millis, to_millis};

/// A mail whose handling failed, as recorded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FailedMail {
    /// Row id (`dopis failed show ID`).
    pub id: i64,
    /// The mailbox it came from.
    pub mailbox: String,
    /// Where it was in the mailbox.
    pub mailbox_ref: String,
    /// When it reached the mailbox.
    pub received_at: DateTime<Utc>,
    /// The From address as far as it could be read.
    pub sender: Option<String>,
    /// Why it failed (the last failure).
    pub reason: String,
    /// How often handling it was tried.
    pub attempts: i64,
    /// The first failure.
    pub first_failed_at: DateTime<Utc>,
    /// The last failure.
    pub last_failed_at: DateTime<Utc>,
    /// When it was given up on; `None` while it is still retried.
    pub quarantined_at: Option<DateTime<Utc>>,
    /// Where it is kept in the mailbox, once moved there.
    pub kept_in: Option<String>,
    /// Its size in bytes.
    pub size: i64,
}

/// One failure of a mail, to record.
#[derive(Debug, Clone)]
pub struct MailFailure<'a> {
    /// The mailbox it came from.
    pub mailbox: &'a str,
    /// Where it is in the mailbox.
    pub mailbox_ref: &'a str,
    /// The whole mail, byte-exact.
    pub raw: &'a [u8],
    /// When it reached the mailbox.
    pub received_at: DateTime<Utc>,
    /// The From address as far as it could be read.
    pub sender: Option<&'a str>,
    /// Why it failed.
    pub reason: &'a str,
}

/// Scheduler work that failed and waits to be tried again.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StuckWork {
    /// `game:42`, `digest:7`, `report:3`.
    pub subject: String,
    /// Failures so far.
    pub attempts: i64,
    /// The last error.
    pub last_error: String,
    /// The first failure.
    pub first_failed_at: DateTime<Utc>,
    /// The last failure.
    pub last_failed_at: DateTime<Utc>,
    /// When it is tried again.
    pub next_try_at: DateTime<Utc>,
}

const FAILED_COLUMNS: &str = "id, mailbox, mailbox_ref, received_at, sender, reason, attempts, \
     first_failed_at, last_failed_at, quarantined_at, kept_in, CAST(LENGTH(raw) AS BIGINT) AS size";

fn failed_from_row(row: &Row) -> Result<FailedMail, StoreError> {
    let opt_time = |name: &str| -> Result<Option<DateTime<Utc>>, StoreError> {
        row.try_get::<Option<i64>, _>(name)?
            .map(from_millis)
            .transpose()
    };
    Ok(FailedMail {
        id: row.try_get("id")?,
        mailbox: row.try_get("mailbox")?,
        mailbox_ref: row.try_get("mailbox_ref")?,
        received_at: from_millis(row.try_get("received_at")?)?,
        sender: row.try_get("sender")?,
        reason: row.try_get("reason")?,
        attempts: row.try_get("attempts")?,
        first_failed_at: from_millis(row.try_get("first_failed_at")?)?,
        last_failed_at: from_millis(row.try_get("last_failed_at")?)?,
        quarantined_at: opt_time("quarantined_at")?,
        kept_in: row.try_get("kept_in")?,
        size: row.try_get::<Option<i64>, _>("size")?.unwrap_or(0),
    })
}

impl Store {
    /// Records one failure of a mail (the first keeps its bytes); returns
    /// the row with the number of attempts so far.
    pub async fn record_mail_failure(
        &self,
        f: &MailFailure<'_>,
        now: DateTime<Utc>,
    ) -> Result<FailedMail, StoreError> {
        let reason = db_text(f.reason, 2000);
        let sender = f.sender.map(|s| db_text(s, 320));
        super::sql::query(
            "INSERT INTO failed_mail (mailbox, mailbox_ref, raw, received_at, sender, reason, attempts, \
             first_failed_at, last_failed_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $7) \
             ON CONFLICT (mailbox, mailbox_ref) DO UPDATE SET attempts = failed_mail.attempts + 1, \
             reason = excluded.reason, last_failed_at = excluded.last_failed_at",
        )
        .bind(db_text(f.mailbox, 1000))
        .bind(db_text(f.mailbox_ref, 1000))
        .bind(f.raw)
        .bind(to_millis(f.received_at))
        .bind(sender)
        .bind(reason)
        .bind(to_millis(now))
        .execute(self.pool())
        .await?;
        self.failed_mail_at(f.mailbox, f.mailbox_ref)
            .await?
            .ok_or_else(|| StoreError::Corrupt("a failed mail just recorded is missing".into()))
    }

    async fn failed_mail_at(
        &self,
        mailbox: &str,
        mailbox_ref: &str,
    ) -> Result<Option<FailedMail>, StoreError> {
        let row = super::sql::query(super::sql::AssertSqlSafe(format!(
            "SELECT {FAILED_COLUMNS} FROM failed_mail WHERE mailbox = $1 AND mailbox_ref = $2"
        )))
        .bind(db_text(mailbox, 1000))
        .bind(db_text(mailbox_ref, 1000))
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(failed_from_row).transpose()
    }

    /// Marks a failed mail given up on, and where it is kept now.
    pub async fn quarantine_mail(
        &self,
        id: i64,
        kept_in: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE failed_mail SET quarantined_at = COALESCE(quarantined_at, $1), \
             kept_in = COALESCE($2, kept_in) WHERE id = $3",
        )
        .bind(to_millis(now))
        .bind(kept_in.map(|k| db_text(k, 1000)))
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Forgets the failures of a mail that has now been handled.
    pub async fn clear_mail_failure(
        &self,
        mailbox: &str,
        mailbox_ref: &str,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "DELETE FROM failed_mail WHERE mailbox = $1 AND mailbox_ref = $2 AND quarantined_at IS NULL",
        )
        .bind(db_text(mailbox, 1000))
        .bind(db_text(mailbox_ref, 1000))
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Every failed mail, newest first.
    pub async fn failed_mails(&self) -> Result<Vec<FailedMail>, StoreError> {
        super::sql::query(super::sql::AssertSqlSafe(format!(
            "SELECT {FAILED_COLUMNS} FROM failed_mail ORDER BY id DESC"
        )))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(failed_from_row)
        .collect()
    }

    /// One failed mail with its bytes.
    pub async fn failed_mail(&self, id: i64) -> Result<Option<(FailedMail, Vec<u8>)>, StoreError> {
        let row = super::sql::query(super::sql::AssertSqlSafe(format!(
            "SELECT {FAILED_COLUMNS}, raw FROM failed_mail WHERE id = $1"
        )))
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| Ok((failed_from_row(&r)?, r.try_get("raw")?)))
            .transpose()
    }

    /// Removes a failed mail's record (after it was put back in the inbox).
    pub async fn forget_failed_mail(&self, id: i64) -> Result<bool, StoreError> {
        let done = super::sql::query("DELETE FROM failed_mail WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Records a failure of scheduler work; it is tried again at `retry_at`.
    /// Returns how many times it has failed so far.
    pub async fn record_stuck(
        &self,
        subject: &str,
        error: &str,
        retry_at: impl Fn(i64) -> DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let attempts = self
            .stuck(subject)
            .await?
            .map(|s| s.attempts + 1)
            .unwrap_or(1);
        super::sql::query(
            "INSERT INTO stuck_work (subject, attempts, last_error, first_failed_at, last_failed_at, \
             next_try_at) VALUES ($1, $2, $3, $4, $4, $5) ON CONFLICT (subject) DO UPDATE SET \
             attempts = excluded.attempts, last_error = excluded.last_error, \
             last_failed_at = excluded.last_failed_at, next_try_at = excluded.next_try_at",
        )
        .bind(subject)
        .bind(attempts)
        .bind(db_text(error, 2000))
        .bind(to_millis(now))
        .bind(to_millis(retry_at(attempts)))
        .execute(self.pool())
        .await?;
        Ok(attempts)
    }

    /// The failure record of some scheduler work, if it is stuck.
    pub async fn stuck(&self, subject: &str) -> Result<Option<StuckWork>, StoreError> {
        let row = super::sql::query(
            "SELECT subject, attempts, last_error, first_failed_at, last_failed_at, next_try_at \
             FROM stuck_work WHERE subject = $1",
        )
        .bind(subject)
        .fetch_optional(self.pool())
        .await?;
        row.as_ref().map(stuck_from_row).transpose()
    }

    /// Whether some scheduler work is waiting out a pause after failing.
    pub async fn is_stuck(&self, subject: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        Ok(self
            .stuck(subject)
            .await?
            .is_some_and(|s| s.next_try_at > now))
    }

    /// Forgets the failures of scheduler work that has now succeeded.
    pub async fn clear_stuck(&self, subject: &str) -> Result<(), StoreError> {
        super::sql::query("DELETE FROM stuck_work WHERE subject = $1")
            .bind(subject)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// All scheduler work that is failing, oldest failure first.
    pub async fn stuck_work(&self) -> Result<Vec<StuckWork>, StoreError> {
        super::sql::query(
            "SELECT subject, attempts, last_error, first_failed_at, last_failed_at, next_try_at \
             FROM stuck_work ORDER BY first_failed_at, subject",
        )
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(stuck_from_row)
        .collect()
    }
}

fn stuck_from_row(row: &Row) -> Result<StuckWork, StoreError> {
    Ok(StuckWork {
        subject: row.try_get("subject")?,
        attempts: row.try_get("attempts")?,
        last_error: row.try_get("last_error")?,
        first_failed_at: from_millis(row.try_get("first_failed_at")?)?,
        last_failed_at: from_millis(row.try_get("last_failed_at")?)?,
        next_try_at: from_millis(row.try_get("next_try_at")?)?,
    })
}
