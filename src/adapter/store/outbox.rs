//! The outbox: each mail is queued once (by its key) in the transaction of
//! what caused it, and sent until delivered; leases keep two senders apart.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, Duration, Utc};

use super::{Backend, Store, StoreError, Tx, db_text, to_millis};
use crate::domain::ids::GameId;

/// Whether an outbox mail answers someone's mail (and so is rate-limited)
/// or is a notice we send of our own accord.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutboxKind {
    /// A reply to a mail we received.
    Answer,
    /// A mail caused by something else (an opponent's move, a new game).
    Notice,
}

/// A mail to queue.
#[derive(Debug, Clone)]
pub struct NewOutboxMail {
    /// Deterministic key: queueing the same key twice queues it once.
    pub mail_key: String,
    /// The Message-ID in the mail (without `<>`).
    pub message_id: String,
    /// Answer or notice.
    pub kind: OutboxKind,
    /// The envelope sender.
    pub envelope_from: String,
    /// The one recipient.
    pub recipient: String,
    /// The whole mail.
    pub raw: Vec<u8>,
    /// The game it is about.
    pub game_id: Option<GameId>,
    /// For a mail that tells a player of the opponent's move: that move's ply.
    pub ply: Option<i64>,
}

/// A mail taken from the outbox to send.
#[derive(Debug, Clone)]
pub struct OutboxMail {
    /// Row id.
    pub id: i64,
    /// Its key.
    pub mail_key: String,
    /// Envelope sender.
    pub envelope_from: String,
    /// Recipient.
    pub recipient: String,
    /// The mail.
    pub raw: Vec<u8>,
    /// Send attempts so far (including this one).
    pub attempts: i64,
    /// The game.
    pub game_id: Option<i64>,
    /// The move it tells of.
    pub ply: Option<i64>,
    /// The Message-ID in the mail (without `<>`).
    pub message_id: String,
}

/// One line of the outbox, for status listings and tests.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OutboxStatus {
    /// Key.
    pub mail_key: String,
    /// Recipient.
    pub recipient: String,
    /// pending / sent / failed.
    pub status: String,
    /// Attempts.
    pub attempts: i64,
    /// Last error.
    pub last_error: Option<String>,
    /// The whole mail.
    pub raw: Vec<u8>,
}

impl Store {
    /// Takes up to `limit` mails that are due, leasing them for `lease` so
    /// that a second sender (or this one after a crash) leaves them alone
    /// until then. On PostgreSQL rows locked by another sender are skipped.
    /// Mail to a paused player (their address bounces) is held: left
    /// pending, and sent once they are resumed.
    pub async fn claim_outbox(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
        limit: i64,
    ) -> Result<Vec<OutboxMail>, StoreError> {
        self.claim_outbox_for(now, lease, limit, None).await
    }
    /// The same, recording the daemon that holds the leases (see
    /// [`crate::service::lease`]), so that its leases can be taken over at
    /// once when it dies. A row that cannot be read is marked failed, with
    /// why, rather than stopping every send.
    pub async fn claim_outbox_for(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
        limit: i64,
        holder: Option<i64>,
    ) -> Result<Vec<OutboxMail>, StoreError> {
        let mut tx = self.begin_writing().await?;
        let lock = match tx.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let rows = super::sql::query(AssertSqlSafe(format!(
            "SELECT id, mail_key, envelope_from, recipient, raw, attempts, game_id, ply, message_id FROM outbox \
             WHERE status = 'pending' AND next_attempt_at <= $1 \
             AND recipient NOT IN (SELECT email FROM players WHERE paused_at IS NOT NULL) \
             ORDER BY id LIMIT $2{lock}"
        )))
        .bind(to_millis(now))
        .bind(limit)
        .fetch_all(&mut tx.tx)
        .await?;
        let mut mails = Vec::with_capacity(rows.len());
        for row in &rows {
            let mail = match outbox_from_row(row) {
                Ok(mail) => mail,
                Err(e) => {
                    let id: i64 = row.try_get("id")?;
                    tracing::error!(outbox = id, error = %e, "outbox row cannot be read; marked failed");
                    super::sql::query(
                        "UPDATE outbox SET status = 'failed', last_error = $1, leased_by = NULL WHERE id = $2",
                    )
                    .bind(db_text(&format!("unreadable row: {e}"), 1000))
                    .bind(id)
                    .execute(&mut tx.tx)
                    .await?;
                    continue;
                }
            };
            mails.push(OutboxMail {
                attempts: mail.attempts + 1,
                ..mail
            });
        }
        // The lease of the whole batch in one statement, not one a mail
        // (each a round trip on PostgreSQL; issue 27). `limit` keeps the
        // list short, and slices keep it under SQLite's old parameter limit.
        for slice in mails.chunks(500) {
            let marks: Vec<String> = (0..slice.len()).map(|i| format!("${}", i + 3)).collect();
            let mut lease_them = super::sql::query(AssertSqlSafe(format!(
                "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = $1, leased_by = $2 \
                 WHERE id IN ({})",
                marks.join(", ")
            )))
            .bind(to_millis(now + lease))
            .bind(holder);
            for mail in slice {
                lease_them = lease_them.bind(mail.id);
            }
            lease_them.execute(&mut tx.tx).await?;
        }
        tx.commit().await?;
        Ok(mails)
    }
    /// The daemons (other than `me`) that hold leases on outbox mails now.
    pub async fn outbox_lease_holders(
        &self,
        me: i64,
        now: DateTime<Utc>,
    ) -> Result<Vec<i64>, StoreError> {
        super::sql::query(
            "SELECT DISTINCT leased_by FROM outbox WHERE status = 'pending' \
             AND leased_by IS NOT NULL AND leased_by <> $1 AND next_attempt_at > $2",
        )
        .bind(me)
        .bind(to_millis(now))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| r.try_get("leased_by"))
        .collect()
    }
    /// Ends the leases a daemon that is gone held (`None`: every daemon's
    /// but `keep`'s): those mails are due again at once. Returns how many.
    pub async fn release_outbox_leases(
        &self,
        holder: Option<i64>,
        keep: i64,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        const RELEASE: &str = "UPDATE outbox SET next_attempt_at = $1, leased_by = NULL \
             WHERE status = 'pending' AND leased_by IS NOT NULL AND leased_by <> $2";
        let query = match holder {
            Some(holder) => {
                super::sql::query(AssertSqlSafe(format!("{RELEASE} AND leased_by = $3")))
                    .bind(to_millis(now))
                    .bind(keep)
                    .bind(holder)
            }
            None => super::sql::query(RELEASE).bind(to_millis(now)).bind(keep),
        };
        let done = query.execute(self.pool()).await?;
        Ok(done.rows_affected())
    }
    /// Records delivered mails, each with the time it was sent, in one
    /// transaction; for a move notice, that is the time it reached the
    /// player (from then their clock runs).
    pub async fn outbox_sent(
        &self,
        mails: &[(&OutboxMail, DateTime<Utc>)],
    ) -> Result<(), StoreError> {
        if mails.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        for (mail, at) in mails {
            tx.outbox_sent_one(mail, *at).await?;
        }
        tx.commit().await
    }

    /// Gives a claimed mail back as it was before the claim, due again at
    /// `now` and not counted as an attempt: the mail server was away, which
    /// is no fault of this mail's. `error` (when the mail was tried) is kept
    /// as its last error.
    pub async fn outbox_unclaim(
        &self,
        mail: &OutboxMail,
        error: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        const UNCLAIM: &str = "UPDATE outbox SET attempts = attempts - 1, next_attempt_at = $1, \
             leased_by = NULL";
        let query = match error {
            Some(error) => super::sql::query(AssertSqlSafe(format!(
                "{UNCLAIM}, last_error = $2 WHERE id = $3 AND status = 'pending'"
            )))
            .bind(to_millis(now))
            .bind(db_text(error, 1000))
            .bind(mail.id),
            None => super::sql::query(AssertSqlSafe(format!(
                "{UNCLAIM} WHERE id = $2 AND status = 'pending'"
            )))
            .bind(to_millis(now))
            .bind(mail.id),
        };
        query.execute(self.pool()).await?;
        Ok(())
    }

    /// Records a failed attempt: retried at `retry_at`, or given up for good
    /// when `retry_at` is `None`.
    pub async fn outbox_failed(
        &self,
        mail: &OutboxMail,
        error: &str,
        retry_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        let error = db_text(error, 1000);
        match retry_at {
            Some(at) => {
                super::sql::query(
                    "UPDATE outbox SET last_error = $1, next_attempt_at = $2, leased_by = NULL \
                     WHERE id = $3",
                )
                .bind(error)
                .bind(to_millis(at))
                .bind(mail.id)
                .execute(self.pool())
                .await?;
            }
            None => {
                super::sql::query(
                    "UPDATE outbox SET status = 'failed', last_error = $1, leased_by = NULL WHERE id = $2",
                )
                    .bind(error)
                    .bind(mail.id)
                    .execute(self.pool())
                    .await?;
            }
        }
        Ok(())
    }
    /// Every outbox mail, oldest first.
    pub async fn outbox(&self) -> Result<Vec<OutboxStatus>, StoreError> {
        super::sql::query(
            "SELECT mail_key, recipient, status, attempts, last_error, raw FROM outbox ORDER BY id",
        )
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| {
            Ok(OutboxStatus {
                mail_key: r.try_get("mail_key")?,
                recipient: r.try_get("recipient")?,
                status: r.try_get("status")?,
                attempts: r.try_get("attempts")?,
                last_error: r.try_get("last_error")?,
                raw: r.try_get("raw")?,
            })
        })
        .collect()
    }
    /// How many mails are waiting to be sent (due or not).
    pub async fn outbox_pending(&self) -> Result<i64, StoreError> {
        let row = super::sql::query("SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending'")
            .fetch_one(self.pool())
            .await?;
        row.try_get("n")
    }
}

fn outbox_from_row(row: &Row) -> Result<OutboxMail, StoreError> {
    Ok(OutboxMail {
        id: row.try_get("id")?,
        mail_key: row.try_get("mail_key")?,
        envelope_from: row.try_get("envelope_from")?,
        recipient: row.try_get("recipient")?,
        raw: row.try_get("raw")?,
        attempts: row.try_get("attempts")?,
        game_id: row.try_get("game_id")?,
        ply: row.try_get("ply")?,
        message_id: row.try_get("message_id")?,
    })
}

impl Tx {
    /// Records one delivered mail (see [`Store::outbox_sent`]).
    async fn outbox_sent_one(
        &mut self,
        mail: &OutboxMail,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE outbox SET status = 'sent', sent_at = $1, last_error = NULL, leased_by = NULL \
             WHERE id = $2",
        )
        .bind(to_millis(at))
        .bind(mail.id)
        .execute(&mut self.tx)
        .await?;
        if let (Some(game), Some(ply)) = (mail.game_id, mail.ply) {
            super::sql::query(
                "UPDATE moves SET sent_at = $1 WHERE game_id = $2 AND ply = $3 AND sent_at IS NULL",
            )
            .bind(to_millis(at))
            .bind(game)
            .bind(ply)
            .execute(&mut self.tx)
            .await?;
        } else if mail.game_id.is_none() {
            // A digest (a mail of no one game) tells its player of several
            // games' last moves at once. Only then (it ran for every mail
            // sent), and as a row-value IN so both databases look the
            // digest's games up by key: the correlated EXISTS it replaces
            // made SQLite scan every move ever played, and a fresh
            // PostgreSQL plan a seq scan of `moves` (issue 15).
            super::sql::query(
                "UPDATE moves SET sent_at = $1 WHERE sent_at IS NULL AND (game_id, ply) IN \
                 (SELECT game_id, ply FROM digest_games WHERE mail_key = $2)",
            )
            .bind(to_millis(at))
            .bind(&mail.mail_key)
            .execute(&mut self.tx)
            .await?;
        }
        Ok(())
    }
}

impl Tx {
    /// Queues a mail; a key queued before is left as it is.
    pub async fn enqueue(
        &mut self,
        m: &NewOutboxMail,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO outbox (mail_key, message_id, kind, envelope_from, recipient, raw, game_id, ply, \
             status, attempts, next_attempt_at, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', 0, $9, $9) ON CONFLICT (mail_key) DO NOTHING",
        )
        .bind(&m.mail_key)
        .bind(&m.message_id)
        .bind(match m.kind {
            OutboxKind::Answer => "answer",
            OutboxKind::Notice => "notice",
        })
        .bind(&m.envelope_from)
        .bind(&m.recipient)
        .bind(&m.raw)
        .bind(m.game_id.map(|g| g.0))
        .bind(m.ply)
        .bind(to_millis(now))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
    /// Whether a mail of this key was queued (a notice sent once, looked
    /// up before the work of making it again).
    pub async fn outbox_has(&mut self, mail_key: &str) -> Result<bool, StoreError> {
        Ok(
            super::sql::query("SELECT 1 AS one FROM outbox WHERE mail_key = $1")
                .bind(mail_key)
                .fetch_optional(&mut self.tx)
                .await?
                .is_some(),
        )
    }
    /// How many answers went to a recipient since `since` (rate limit).
    pub async fn answers_since(
        &mut self,
        recipient: &str,
        since: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = super::sql::query(
            "SELECT COUNT(*) AS n FROM outbox WHERE recipient = $1 AND kind = 'answer' AND created_at >= $2",
        )
        .bind(recipient)
        .bind(to_millis(since))
        .fetch_one(&mut self.tx)
        .await?;
        row.try_get("n")
    }
    /// The first of `message_ids` that the outbox holds as a mail to
    /// `recipient`: proof that a bounce is about a mail we sent them.
    pub async fn our_mail_to(
        &mut self,
        message_ids: &[&str],
        recipient: &str,
    ) -> Result<Option<String>, StoreError> {
        for id in message_ids {
            let row = super::sql::query(
                "SELECT message_id FROM outbox WHERE message_id = $1 AND recipient = $2 LIMIT 1",
            )
            .bind(*id)
            .bind(recipient)
            .fetch_optional(&mut self.tx)
            .await?;
            if let Some(row) = row {
                return Ok(Some(row.try_get("message_id")?));
            }
        }
        Ok(None)
    }
}
