//! The mail side of the database: the inbound log (each mail acts once),
//! the outbox (each mail is sent until delivered), pending confirmations
//! and the mailbox cursor. Changes to a game and the mails they cause are
//! written in one [`Tx`], so they commit together or not at all.

use chrono::{DateTime, Duration, Utc};
use shakmaty::Color;
use sqlx::any::AnyRow;
use sqlx::{Any, AssertSqlSafe, Row, Transaction};

use super::games::{GameRecord, NewGame};
use super::{Backend, Store, StoreError, db_text, from_millis, to_millis};
use crate::chess::game::Game;
use crate::chess::side;
use crate::ids::GameId;
use crate::player::PlayerId;

/// An open transaction.
pub struct Tx {
    // Visible to the sibling repositories (events) that add their own
    // statements to the same transaction.
    pub(super) tx: Transaction<'static, Any>,
    pub(super) backend: Backend,
}

/// An inbound mail, as recorded.
#[derive(Debug, Clone)]
pub struct InboundRecord<'a> {
    /// The idempotency key (Message-ID or hash).
    pub mail_key: &'a str,
    /// Where the mail was in the mailbox.
    pub mailbox_ref: &'a str,
    /// When it reached the mailbox.
    pub received_at: DateTime<Utc>,
    /// The From address, if readable.
    pub sender: Option<&'a str>,
}

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

/// A command waiting for the player to confirm it.
#[derive(Debug, Clone)]
pub struct Confirmation {
    /// Id (in the confirmation's reply address).
    pub id: i64,
    /// The game.
    pub game_id: GameId,
    /// The player who must confirm.
    pub player_id: PlayerId,
    /// The text of their mail.
    pub text: String,
    /// When their original mail arrived (the move's time).
    pub received_at: DateTime<Utc>,
    /// Whether it was used already.
    pub used: bool,
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
    /// Starts a transaction.
    pub async fn begin(&self) -> Result<Tx, StoreError> {
        Ok(Tx {
            tx: self.pool().begin().await?,
            backend: self.backend(),
        })
    }

    /// Where reading a mailbox got to.
    pub async fn mailbox_cursor(&self, mailbox: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT position FROM mailbox_cursor WHERE mailbox = $1")
            .bind(mailbox)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.try_get("position")).transpose()?)
    }

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
    /// [`crate::daemon::lease`]), so that its leases can be taken over at
    /// once when it dies. A row that cannot be read is marked failed, with
    /// why, rather than stopping every send.
    pub async fn claim_outbox_for(
        &self,
        now: DateTime<Utc>,
        lease: Duration,
        limit: i64,
        holder: Option<i64>,
    ) -> Result<Vec<OutboxMail>, StoreError> {
        let mut tx = self.begin().await?;
        let lock = match tx.backend {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let rows = sqlx::query(AssertSqlSafe(format!(
            "SELECT id, mail_key, envelope_from, recipient, raw, attempts, game_id, ply, message_id FROM outbox \
             WHERE status = 'pending' AND next_attempt_at <= $1 \
             AND recipient NOT IN (SELECT email FROM players WHERE paused_at IS NOT NULL) \
             ORDER BY id LIMIT $2{lock}"
        )))
        .bind(to_millis(now))
        .bind(limit)
        .fetch_all(&mut *tx.tx)
        .await?;
        let mut mails = Vec::with_capacity(rows.len());
        for row in &rows {
            let mail = match outbox_from_row(row) {
                Ok(mail) => mail,
                Err(e) => {
                    let id: i64 = row.try_get("id")?;
                    tracing::error!(outbox = id, error = %e, "outbox row cannot be read; marked failed");
                    sqlx::query(
                        "UPDATE outbox SET status = 'failed', last_error = $1, leased_by = NULL WHERE id = $2",
                    )
                    .bind(db_text(&format!("unreadable row: {e}"), 1000))
                    .bind(id)
                    .execute(&mut *tx.tx)
                    .await?;
                    continue;
                }
            };
            sqlx::query(
                "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = $1, leased_by = $2 \
                 WHERE id = $3",
            )
            .bind(to_millis(now + lease))
            .bind(holder)
            .bind(mail.id)
            .execute(&mut *tx.tx)
            .await?;
            mails.push(OutboxMail {
                attempts: mail.attempts + 1,
                ..mail
            });
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
        sqlx::query(
            "SELECT DISTINCT leased_by FROM outbox WHERE status = 'pending' \
             AND leased_by IS NOT NULL AND leased_by <> $1 AND next_attempt_at > $2",
        )
        .bind(me)
        .bind(to_millis(now))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| Ok(r.try_get("leased_by")?))
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
            Some(holder) => sqlx::query(AssertSqlSafe(format!("{RELEASE} AND leased_by = $3")))
                .bind(to_millis(now))
                .bind(keep)
                .bind(holder),
            None => sqlx::query(RELEASE).bind(to_millis(now)).bind(keep),
        };
        let done = query.execute(self.pool()).await?;
        Ok(done.rows_affected())
    }

    /// Records a delivered mail; for a move notice, the time it reached the
    /// player (from then their clock runs).
    pub async fn outbox_sent(
        &self,
        mail: &OutboxMail,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        sqlx::query(
            "UPDATE outbox SET status = 'sent', sent_at = $1, last_error = NULL, leased_by = NULL \
             WHERE id = $2",
        )
        .bind(to_millis(at))
        .bind(mail.id)
        .execute(&mut *tx.tx)
        .await?;
        if let (Some(game), Some(ply)) = (mail.game_id, mail.ply) {
            sqlx::query(
                "UPDATE moves SET sent_at = $1 WHERE game_id = $2 AND ply = $3 AND sent_at IS NULL",
            )
            .bind(to_millis(at))
            .bind(game)
            .bind(ply)
            .execute(&mut *tx.tx)
            .await?;
        }
        tx.commit().await
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
                sqlx::query(
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
                sqlx::query(
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
        sqlx::query(
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
        let row = sqlx::query("SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending'")
            .fetch_one(self.pool())
            .await?;
        Ok(row.try_get("n")?)
    }
}

fn outbox_from_row(row: &AnyRow) -> Result<OutboxMail, StoreError> {
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
    /// The connection the transaction runs on, for other repositories.
    pub(super) fn conn(&mut self) -> &mut sqlx::AnyConnection {
        &mut self.tx
    }

    /// The database engine.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Creates a game; it starts active with no moves.
    pub async fn add_game(
        &mut self,
        g: &NewGame,
        now: DateTime<Utc>,
    ) -> Result<GameId, StoreError> {
        let (variant, number, fen) = match &g.start {
            crate::chess::game::StartPosition::Standard => {
                (super::games::Variant::Standard, None, None)
            }
            crate::chess::game::StartPosition::Chess960(n) => (
                super::games::Variant::Chess960,
                Some(i64::from(*n)),
                Some(
                    g.start
                        .to_fen()
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                ),
            ),
            crate::chess::game::StartPosition::Fen(fen) if g.start.is_chess960() => {
                (super::games::Variant::Chess960, None, Some(fen.clone()))
            }
            crate::chess::game::StartPosition::Fen(fen) => {
                (super::games::Variant::Standard, None, Some(fen.clone()))
            }
        };
        let row = sqlx::query(
            "INSERT INTO games (white_id, black_id, variant, chess960_number, start_fen, \
             time_control, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
        )
        .bind(g.white.0)
        .bind(g.black.0)
        .bind(variant.as_str())
        .bind(number)
        .bind(fen)
        .bind(g.time_control.to_string())
        .bind("active")
        .bind(to_millis(now))
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(GameId(row.try_get("id")?))
    }

    /// Commits everything done in the transaction.
    pub async fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().await?;
        Ok(())
    }

    /// Records an inbound mail; `false` when it was recorded before (it has
    /// acted already and must not act again).
    pub async fn record_inbound(
        &mut self,
        r: &InboundRecord<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "INSERT INTO inbound (mail_key, mailbox_ref, received_at, sender, outcome, processed_at) \
             VALUES ($1, $2, $3, $4, 'received', $5) ON CONFLICT (mail_key) DO NOTHING RETURNING id",
        )
        .bind(db_text(r.mail_key, 1100))
        .bind(db_text(r.mailbox_ref, 1000))
        .bind(to_millis(r.received_at))
        .bind(r.sender.map(|s| db_text(s, 320)))
        .bind(to_millis(now))
        .fetch_optional(&mut *self.tx)
        .await?;
        Ok(row.is_some())
    }

    /// Says what an inbound mail led to.
    pub async fn inbound_outcome(
        &mut self,
        mail_key: &str,
        game: Option<GameId>,
        outcome: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE inbound SET outcome = $1, game_id = $2 WHERE mail_key = $3")
            .bind(db_text(outcome, 500))
            .bind(game.map(|g| g.0))
            .bind(db_text(mail_key, 1100))
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Reads a game for changing it; on PostgreSQL the row stays locked until
    /// the transaction ends, so two daemons cannot move in one game at once.
    pub async fn game_for_update(&mut self, id: GameId) -> Result<GameRecord, StoreError> {
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        };
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {} FROM games WHERE id = $1{lock}",
            super::games::COLUMNS
        )))
        .bind(id.0)
        .fetch_optional(&mut *self.tx)
        .await?
        .ok_or(StoreError::UnknownGame(id.0))?;
        let mut record = super::games::from_row(&row)?;
        record.moves = sqlx::query(
            "SELECT ply, uci, san, received_at, sent_at FROM moves WHERE game_id = $1 ORDER BY ply",
        )
        .bind(id.0)
        .fetch_all(&mut *self.tx)
        .await?
        .iter()
        .map(super::games::move_from_row)
        .collect::<Result<_, _>>()?;
        Ok(record)
    }

    /// Saves a game's new moves (those beyond the stored ones), its ending,
    /// and its draw offer.
    pub async fn save_game(
        &mut self,
        record: &GameRecord,
        game: &Game,
        draw_offer_by: Option<Color>,
        conditionals: &crate::arbiter::Conditionals,
        last_offers: crate::arbiter::LastOffers,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let stored = record.moves.len();
        for (i, ply) in game.plies().iter().enumerate().skip(stored) {
            sqlx::query(
                "INSERT INTO moves (game_id, ply, uci, san, received_at, sent_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(record.id.0)
            .bind(i64::try_from(i + 1).unwrap_or(i64::MAX))
            .bind(&ply.uci)
            .bind(&ply.san)
            .bind(ply.received_at.map(to_millis))
            .bind(ply.sent_at.map(to_millis))
            .execute(&mut *self.tx)
            .await?;
        }
        let (status, result, reason, finished) = match game.outcome() {
            Some(o) => (
                "finished",
                Some(o.result.as_pgn().to_string()),
                Some(o.to_string()),
                Some(record.finished_at.map(to_millis).unwrap_or(to_millis(now))),
            ),
            None => ("active", None, None, None),
        };
        let conditionals = if conditionals.is_empty() {
            None
        } else {
            Some(
                serde_json::to_string(conditionals)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
            )
        };
        sqlx::query(
            "UPDATE games SET status = $1, result = $2, end_reason = $3, finished_at = $4, \
             draw_offer_by = $5, conditionals = $6, white_offer_ply = $7, black_offer_ply = $8 \
             WHERE id = $9",
        )
        .bind(status)
        .bind(result)
        .bind(reason)
        .bind(finished)
        .bind(draw_offer_by.map(side::key))
        .bind(conditionals)
        .bind(last_offers.white.map(i64::from))
        .bind(last_offers.black.map(i64::from))
        .bind(record.id.0)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Queues a mail; a key queued before is left as it is.
    pub async fn enqueue(
        &mut self,
        m: &NewOutboxMail,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlx::query(
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
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// How many answers went to a recipient since `since` (rate limit).
    pub async fn answers_since(
        &mut self,
        recipient: &str,
        since: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) AS n FROM outbox WHERE recipient = $1 AND kind = 'answer' AND created_at >= $2",
        )
        .bind(recipient)
        .bind(to_millis(since))
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(row.try_get("n")?)
    }

    /// Stores a command waiting for confirmation; returns its id.
    pub async fn add_confirmation(
        &mut self,
        game: GameId,
        player: PlayerId,
        text: &str,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO confirmations (game_id, player_id, text, received_at, created_at) \
             VALUES ($1, $2, $3, $4, $5) RETURNING id",
        )
        .bind(game.0)
        .bind(player.0)
        .bind(db_text(text, 64 * 1024))
        .bind(to_millis(received_at))
        .bind(to_millis(now))
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(row.try_get("id")?)
    }

    /// A pending confirmation.
    pub async fn confirmation(&mut self, id: i64) -> Result<Option<Confirmation>, StoreError> {
        let row = sqlx::query(
            "SELECT id, game_id, player_id, text, received_at, used_at FROM confirmations WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&mut *self.tx)
        .await?;
        row.map(|r| {
            Ok(Confirmation {
                id: r.try_get("id")?,
                game_id: GameId(r.try_get("game_id")?),
                player_id: PlayerId(r.try_get("player_id")?),
                text: r.try_get("text")?,
                received_at: from_millis(r.try_get("received_at")?)?,
                used: r.try_get::<Option<i64>, _>("used_at")?.is_some(),
            })
        })
        .transpose()
    }

    /// Marks a confirmation used, so a second reply does nothing.
    pub async fn use_confirmation(
        &mut self,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE confirmations SET used_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(id)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Remembers where reading a mailbox got to.
    pub async fn set_mailbox_cursor(
        &mut self,
        mailbox: &str,
        position: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO mailbox_cursor (mailbox, position, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (mailbox) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at",
        )
        .bind(mailbox)
        .bind(position)
        .bind(to_millis(now))
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// The player with an id.
    pub async fn player(&mut self, id: PlayerId) -> Result<crate::player::Player, StoreError> {
        let row = sqlx::query("SELECT id, email, name, lang, tz FROM players WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&mut *self.tx)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("player id {} is missing", id.0)))?;
        super::players::from_row(&row)
    }

    /// Sets the language of a player's mails and commands.
    pub async fn set_player_lang(
        &mut self,
        id: PlayerId,
        lang: crate::lang::Lang,
    ) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE players SET lang = $1 WHERE id = $2")
            .bind(lang.code())
            .bind(id.0)
            .execute(&mut *self.tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::Corrupt(format!(
                "player id {} is missing",
                id.0
            )));
        }
        Ok(())
    }

    /// The player registered with an address, if any.
    pub async fn player_by_email(
        &mut self,
        email: &str,
    ) -> Result<Option<crate::player::Player>, StoreError> {
        let row = sqlx::query("SELECT id, email, name, lang, tz FROM players WHERE email = $1")
            .bind(email)
            .fetch_optional(&mut *self.tx)
            .await?;
        row.map(|r| super::players::from_row(&r)).transpose()
    }

    /// The active games of a player, by number.
    pub async fn active_games_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        sqlx::query(
            "SELECT id FROM games WHERE status = 'active' AND (white_id = $1 OR black_id = $1) ORDER BY id",
        )
        .bind(player.0)
        .fetch_all(&mut *self.tx)
        .await?
        .iter()
        .map(|r| Ok(GameId(r.try_get("id")?)))
        .collect()
    }
}

/// Digests: the players who chose one mail a day, and what they get.
impl Tx {
    /// Sets how a player hears of their moves.
    pub async fn set_player_digest(
        &mut self,
        player: PlayerId,
        digest: bool,
    ) -> Result<(), StoreError> {
        sqlx::query("UPDATE players SET notify = $1 WHERE id = $2")
            .bind(if digest { "digest" } else { "each" })
            .bind(player.0)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Whether a player gets the daily digest instead of a mail per move.
    pub async fn wants_digest(&mut self, player: PlayerId) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT notify FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut *self.tx)
            .await?;
        Ok(match row {
            Some(r) => r.try_get::<String, _>("notify")? == "digest",
            None => false,
        })
    }

    /// Every player who gets the daily digest.
    pub async fn digest_players(&mut self) -> Result<Vec<PlayerId>, StoreError> {
        sqlx::query("SELECT id FROM players WHERE notify = 'digest' ORDER BY id")
            .fetch_all(&mut *self.tx)
            .await?
            .iter()
            .map(|r| Ok(PlayerId(r.try_get("id")?)))
            .collect()
    }

    /// Records a player's digest for a day; `false` when it was sent already.
    pub async fn record_digest(
        &mut self,
        player: PlayerId,
        day: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "INSERT INTO digests (player_id, day, sent_at) VALUES ($1, $2, $3) \
             ON CONFLICT (player_id, day) DO NOTHING RETURNING player_id",
        )
        .bind(player.0)
        .bind(day)
        .bind(to_millis(now))
        .fetch_optional(&mut *self.tx)
        .await?;
        Ok(row.is_some())
    }

    /// The active games where it is a player's move, longest waiting first.
    pub async fn games_to_move(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        sqlx::query(
            "SELECT id FROM games WHERE status = 'active' AND \
             ((white_id = $1 AND to_move = 'white') OR (black_id = $1 AND to_move = 'black')) \
             ORDER BY waiting_since, id",
        )
        .bind(player.0)
        .fetch_all(&mut *self.tx)
        .await?
        .iter()
        .map(|r| Ok(GameId(r.try_get("id")?)))
        .collect()
    }
}
