//! The daemon's loops: read the mailbox, handle each mail, send the outbox.
//! Each is a public single step plus a thin loop; shutdown is checked only
//! between units of work, never inside a transaction or an SMTP dialogue.

use std::sync::Arc;

use chrono::{Duration, Timelike};
use tokio::sync::watch;

use super::clocks::Scheduler;
use super::inbox::{Handled, Inbox};
use super::mailbox::{Incoming, MailRef, Mailbox};
use super::mailer::{Mailer, SendError};
use crate::address::EmailAddress;
use crate::app::Clock;
use crate::store::Store;
use crate::store::mail::OutboxMail;

/// The hour of the player's day from which their digest goes out.
pub const DIGEST_HOUR: u32 = 7;

/// How long a claimed outbox mail is left alone by other senders.
const LEASE_SECONDS: i64 = 300;
/// After this many failed attempts a transiently failing mail is given up
/// (about two days of retries) and reported as failed.
const MAX_ATTEMPTS: i64 = 40;

/// A test hook for crash-and-restart tests: when `DOPIS_CRASH_AT` names
/// this point, the process dies here at once, as if killed with `kill -9`
/// (no destructors, no flushing). Unset in normal operation.
pub(crate) fn crash_point(name: &str) {
    if std::env::var("DOPIS_CRASH_AT").is_ok_and(|v| v == name) {
        eprintln!("DOPIS_CRASH_AT={name}: aborting");
        std::process::abort();
    }
}

/// The running parts of the daemon.
pub struct Daemon {
    /// The database.
    pub store: Store,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Inbound handling.
    pub inbox: Inbox,
    /// The name under which the mailbox cursor is stored.
    pub mailbox_name: String,
    /// Reminders, leave notices, timeouts.
    pub scheduler: Scheduler,
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// Mails read and handled.
    pub received: usize,
    /// Mails sent.
    pub sent: usize,
    /// Games the scheduler handled, and events whose daily report went out.
    pub scheduled: usize,
}

/// Delay before retry number `attempts` (1-based): 1, 2, 4 … minutes, at
/// most an hour.
fn backoff(attempts: i64) -> Duration {
    let exp = u32::try_from(attempts.clamp(1, 7) - 1).unwrap_or(0);
    Duration::minutes(2_i64.pow(exp).min(60))
}

impl Daemon {
    /// Handles one mail and marks it done in the mailbox once its effects
    /// are committed.
    pub async fn receive_one(
        &self,
        mailbox: &mut Mailbox,
        mail: &Incoming,
    ) -> anyhow::Result<Handled> {
        let now = self.clock.now();
        let reference = mail.key.to_string();
        // A mail cannot have arrived after it is read: a delivery time in the
        // future (a wrong clock, a touched file) would charge a move's
        // player for time to come.
        let received_at = mail.received_at.min(now);
        let handled = if let Some(size) = mail.oversized {
            tracing::warn!(mail = %reference, size, "mail too large: not read");
            Handled::Ignored(format!("ignored: mail of {size} bytes is too large"))
        } else {
            self.inbox
                .handle(&self.store, &reference, &mail.raw, received_at, now)
                .await?
        };
        tracing::info!(mail = %reference, outcome = ?handled, "handled mail");
        crash_point("after-inbound-commit");
        match mailbox.mark_done(&mail.key).await {
            Ok(()) => {}
            // The server is away: the pass is tried again later, the mail
            // read again (found handled) and marked then.
            Err(e) if e.is_transient() => return Err(e.into()),
            // Its effects are committed: said once, and the other mail goes
            // on. A Maildir does not hand such a mail out again; a reset IMAP
            // folder gives it a new UID, under which it is read again, found
            // handled, and marked.
            Err(e) => {
                tracing::warn!(mail = %reference, error = %e, "handled mail not marked done");
            }
        }
        let mut tx = self.store.begin().await?;
        tx.set_mailbox_cursor(&self.mailbox_name, &reference, now)
            .await?;
        tx.commit().await?;
        Ok(handled)
    }

    /// Reads and handles every mail that is waiting.
    pub async fn receive(
        &self,
        mailbox: &mut Mailbox,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<usize> {
        let mut count = 0;
        loop {
            let cursor: Option<MailRef> = self
                .store
                .mailbox_cursor(&self.mailbox_name)
                .await?
                .and_then(|c| c.parse().ok());
            let batch = mailbox.fetch_new(cursor.as_ref()).await?;
            if batch.is_empty() {
                return Ok(count);
            }
            for mail in &batch {
                if *shutdown.borrow() {
                    return Ok(count);
                }
                self.receive_one(mailbox, mail).await?;
                count += 1;
            }
        }
    }

    /// Sends the outbox mails that are due; returns how many were delivered.
    pub async fn send(
        &self,
        mailer: &Mailer,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<usize> {
        let mut sent = 0;
        loop {
            let now = self.clock.now();
            let batch = self
                .store
                .claim_outbox(now, Duration::seconds(LEASE_SECONDS), 20)
                .await?;
            if batch.is_empty() {
                return Ok(sent);
            }
            for mail in &batch {
                if *shutdown.borrow() {
                    return Ok(sent);
                }
                if self.send_one(mailer, mail).await? {
                    sent += 1;
                }
            }
        }
    }

    async fn send_one(&self, mailer: &Mailer, mail: &OutboxMail) -> anyhow::Result<bool> {
        let (Ok(from), Ok(to)) = (
            EmailAddress::parse(&mail.envelope_from),
            EmailAddress::parse(&mail.recipient),
        ) else {
            self.store
                .outbox_failed(mail, "invalid address", None)
                .await?;
            return Ok(false);
        };
        match mailer
            .send(&from, std::slice::from_ref(&to), &mail.raw)
            .await
        {
            Ok(()) => {
                crash_point("after-send");
                self.store.outbox_sent(mail, self.clock.now()).await?;
                tracing::info!(key = %mail.mail_key, to = %to, "sent");
                Ok(true)
            }
            Err(SendError::Permanent(e)) => {
                tracing::error!(key = %mail.mail_key, to = %to, error = %e, "delivery failed for good");
                self.store.outbox_failed(mail, &e, None).await?;
                Ok(false)
            }
            Err(SendError::Transient(e)) => {
                let retry = (mail.attempts < MAX_ATTEMPTS)
                    .then(|| self.clock.now() + backoff(mail.attempts));
                tracing::warn!(key = %mail.mail_key, to = %to, error = %e, ?retry, "delivery failed; will retry");
                self.store.outbox_failed(mail, &e, retry).await?;
                Ok(false)
            }
        }
    }

    /// Runs the scheduler for every game that is due (in steps of one game,
    /// checking `shutdown` between them); returns how many it handled.
    pub async fn schedule(&self, shutdown: &watch::Receiver<bool>) -> anyhow::Result<usize> {
        let mut handled = 0;
        while !*shutdown.borrow() {
            let now = self.clock.now();
            match self.scheduler.step(&self.store, now).await? {
                Some((game, done)) => {
                    for due in &done {
                        tracing::info!(game = %game, due = %due.key(), "scheduler");
                    }
                    handled += 1;
                }
                None => break,
            }
        }
        Ok(handled)
    }

    /// Queues the daily digest of every player who chose one and whose day
    /// (in their time zone) has reached [`DIGEST_HOUR`] without one: every
    /// game where it is their move, in one mail. Once per player and day,
    /// recorded with the mail in one transaction.
    pub async fn digests(&self) -> anyhow::Result<usize> {
        let now = self.clock.now();
        let mut tx = self.store.begin().await?;
        let players = tx.digest_players().await?;
        tx.commit().await?;
        let mut queued = 0;
        for id in players {
            let mut tx = self.store.begin().await?;
            let player = tx.player(id).await?;
            let local = match player.tz {
                Some(tz) => now.with_timezone(&tz).naive_local(),
                None => now.naive_utc(),
            };
            if local.hour() < DIGEST_HOUR {
                continue;
            }
            let day = local.date().to_string();
            if !tx.record_digest(id, &day, now).await? {
                continue;
            }
            let mut tables = Vec::new();
            for game in tx.games_to_move(id).await? {
                tables.push(super::clocks::load_table(&mut tx, game).await?);
            }
            if !tables.is_empty() {
                self.inbox
                    .post
                    .digest(&mut tx, &player, &tables, &day, now)
                    .await?;
                queued += 1;
            }
            tx.commit().await?;
        }
        Ok(queued)
    }

    /// One pass: everything waiting in the mailbox, then the scheduler (so
    /// a move that reached the mailbox in time is played, not timed out)
    /// and the TDs' daily reports (after it, so they list its timeouts),
    /// then the outbox.
    pub async fn pass(
        &self,
        mailbox: &mut Mailbox,
        mailer: &Mailer,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<Pass> {
        let received = self.receive(mailbox, shutdown).await?;
        let mut scheduled = self.schedule(shutdown).await?;
        if !*shutdown.borrow() {
            scheduled += self
                .scheduler
                .daily_reports(&self.store, self.clock.now())
                .await?;
        }
        self.digests().await?;
        let sent = self.send(mailer, shutdown).await?;
        Ok(Pass {
            received,
            sent,
            scheduled,
        })
    }

    /// Runs until `shutdown` turns true: passes, then waits for new mail
    /// (IMAP IDLE or polling) at most `idle` before the next pass, so that
    /// retries and later work are not delayed longer than that.
    pub async fn run(
        &self,
        mut mailbox: Mailbox,
        mailer: Mailer,
        mut shutdown: watch::Receiver<bool>,
        idle: std::time::Duration,
    ) -> anyhow::Result<()> {
        let mut failures = 0u32;
        while !*shutdown.borrow() {
            match self.pass(&mut mailbox, &mailer, &shutdown).await {
                Ok(_) => failures = 0,
                Err(e) => {
                    // Transient trouble (database or mail server away): back off and retry.
                    failures += 1;
                    let wait = std::time::Duration::from_secs(u64::from(failures.min(6)) * 5);
                    tracing::error!(error = %format!("{e:#}"), ?wait, "pass failed; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = shutdown.changed() => {}
                    }
                    continue;
                }
            }
            tokio::select! {
                r = mailbox.wait_for_new(idle) => {
                    if let Err(e) = r {
                        tracing::warn!(error = %e, "waiting for mail failed");
                    }
                }
                _ = shutdown.changed() => {}
            }
        }
        tracing::info!("shut down");
        Ok(())
    }
}

/// `dopis serve`: opens the store, mailbox and mailer from the config and
/// runs until SIGINT/SIGTERM (or, with `once`, one pass).
pub async fn serve(config: crate::config::Config, once: bool) -> anyhow::Result<()> {
    use anyhow::Context;
    let post = super::post::Post::new(&config.mail)?;
    let mut mailbox = Mailbox::open(&config.mail)
        .await
        .context("cannot open the mailbox")?;
    let mailer = Mailer::open(&config.mail).context("cannot set up sending mail")?;
    let plan = config.clock.plan()?;
    // Opened last, so that every way out from here closes it.
    let store = Store::open(config.database.url.expose()).await?;
    let daemon = Daemon {
        store: store.clone(),
        clock: Arc::new(crate::app::SystemClock),
        scheduler: super::clocks::Scheduler {
            post: post.clone(),
            plan,
        },
        inbox: Inbox {
            post,
            answers_per_hour: config.mail.answers_per_hour,
            allowance: crate::clock::Allowance::days(config.clock.leave_days),
        },
        mailbox_name: match &config.mail.imap {
            Some(imap) => format!("imap:{}@{}/{}", imap.user, imap.host, imap.mailbox),
            None => format!("maildir:{}", config.mail.maildir.path.display()),
        },
    };
    let (stop, shutdown) = watch::channel(false);
    if once {
        let pass = store
            .close_after(daemon.pass(&mut mailbox, &mailer, &shutdown))
            .await?;
        tracing::info!(
            received = pass.received,
            scheduled = pass.scheduled,
            sent = pass.sent,
            "one pass done"
        );
        return Ok(());
    }
    tokio::spawn(async move {
        wait_for_signal().await;
        tracing::info!("shutting down after the current step");
        let _ = stop.send(true);
    });
    tracing::info!(mailbox = %daemon.mailbox_name, "dopis serve started");
    let result = daemon
        .run(
            mailbox,
            mailer,
            shutdown,
            std::time::Duration::from_secs(30),
        )
        .await;
    store.close().await;
    result
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
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
