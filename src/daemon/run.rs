//! The daemon's loops: read the mailbox, handle each mail, send the outbox.
//! Each is a public single step plus a thin loop; shutdown is checked only
//! between units of work, never inside a transaction or an SMTP dialogue.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tracing::Instrument;

use anyhow::Context;
use tokio::sync::watch;

use super::mailbox::{Incoming, MailRef, Mailbox, MailboxError};
use super::mailer::{Mailer, SendError};
use crate::domain::address::EmailAddress;
use crate::service::app::{Clock, Settings};
use crate::service::clocks::Scheduler;
use crate::service::delivery::{self, OutboxMail};
use crate::service::inbox::{self, Content, Handled, Inbox};
use crate::service::lease::Lease;
use crate::service::post::Post;
use crate::service::quarantine::{self, FailedMail, MailFault, SetAside, Unhandled};
use crate::service::retention::{self, Retention};
use crate::service::{ServiceError, Store, StoreError};

/// While the inbox is read, the outbox is sent after this many mails...
const SEND_EVERY_MAILS: usize = 8;
/// ... or after this long, whichever comes first.
const SEND_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// How often a standby daemon tries to take over the mailbox.
const STANDBY_POLL: std::time::Duration = std::time::Duration::from_secs(2);

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
    /// The longest one mail may take to read.
    read_budget: std::time::Duration,
    /// Its place among the daemons on the database; `None`: the only one
    /// (tests, the demo).
    lease: Option<Lease>,
    /// Mails that failed and are being tried again: their failure record is
    /// cleared once one is handled.
    retrying: Mutex<HashSet<String>>,
    /// How long sent mail bodies and inbound records are kept.
    retention: Retention,
    /// When old data was last pruned (at most once an hour).
    pruned_at: Mutex<Option<chrono::DateTime<chrono::Utc>>>,
    /// What `/metrics` shows; `None` when it is off.
    metrics: Option<Arc<super::metrics::Metrics>>,
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    /// Mails read and handled.
    pub received: usize,
    /// Mails that could not be handled: tried again later, or quarantined.
    pub failed: usize,
    /// Whether this daemon read the mailbox (a standby does not).
    pub read_mailbox: bool,
    /// Mails sent.
    pub sent: usize,
    /// Games the scheduler handled, and events whose daily report went out.
    pub scheduled: usize,
}

/// Mails handled in one open transaction, each after a savepoint of its
/// own, not yet committed nor marked done. Committed after
/// [`SEND_EVERY_MAILS`] mails or [`SEND_EVERY`], whichever comes first, so
/// a reply waits at most that long for its batch; and before a mail that
/// failed is set aside, or one handled alone (a batch of one: every mail
/// while DKIM is required, and the mails a failed one undid), so the mails
/// keep their order.
#[derive(Default)]
struct Batch<'m> {
    /// Begun with the batch's first mail.
    tx: Option<inbox::MailBatch>,
    /// When the first mail was handled.
    started: Option<std::time::Instant>,
    /// Handled in `tx`, in the mailbox's order.
    pending: Vec<Pending<'m>>,
    /// Mails whose effects the database undid with the whole batch (SQLite
    /// does on some errors): to be handled again, each on its own.
    undone: Vec<&'m Incoming>,
}

/// A mail handled inside a batch.
struct Pending<'m> {
    mail: &'m Incoming,
    handled: Handled,
    /// Its log span (with the key, player and game it was found to have).
    span: tracing::Span,
}

impl Batch<'_> {
    /// Whether the batch is to be committed now.
    fn is_due(&self) -> bool {
        self.pending.len() >= SEND_EVERY_MAILS
            || self.started.is_some_and(|t| t.elapsed() >= SEND_EVERY)
    }

    /// The database undid the transaction: its mails are handled again.
    fn undone(&mut self) {
        self.tx = None;
        self.started = None;
        self.undone.extend(
            std::mem::take(&mut self.pending)
                .into_iter()
                .map(|p| p.mail),
        );
    }
}

/// What became of a mail offered to a batch.
enum Offered {
    /// Handled in the batch; marked done once it commits.
    Pending,
    /// It failed; what it did is undone, the batch before it kept.
    Failed(Box<FailedMail>),
}

/// The log span of one mail: every line logged while it is handled carries
/// the mailbox's reference, and, once read, its key, sender and game
/// (recorded by the inbox as it learns them).
fn mail_span(mail: &Incoming) -> tracing::Span {
    tracing::info_span!(
        "mail",
        mail = %mail.key,
        key = tracing::field::Empty,
        player = tracing::field::Empty,
        game = tracing::field::Empty,
    )
}

/// What became of one mail the sender tried.
enum Delivery {
    /// The server took it, at that time (recorded with the others of its
    /// batch, see [`Daemon::send`]).
    Sent(chrono::DateTime<chrono::Utc>),
    /// Not sent: given up, or put off by its own backoff.
    NotSent,
    /// The server takes no mail now (why): not this mail's fault.
    ServerUnavailable(String),
}

impl Daemon {
    /// The daemon's parts, with the default budget for reading one mail.
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        post: Post,
        settings: &Settings,
        mailbox_name: String,
    ) -> Daemon {
        Daemon {
            store,
            clock,
            inbox: Inbox::new(post.clone(), settings),
            mailbox_name,
            scheduler: Scheduler::new(post, settings),
            read_budget: std::time::Duration::from_millis(
                crate::adapter::config::MailConfig::default().read_budget_ms,
            ),
            retrying: Mutex::new(HashSet::new()),
            lease: None,
            retention: Retention::for_ever(),
            pruned_at: Mutex::new(None),
            metrics: None,
        }
    }

    /// Prunes old mail bodies and inbound records (`[retention]`); a new
    /// daemon keeps everything.
    pub fn with_retention(mut self, retention: Retention) -> Daemon {
        self.retention = retention;
        self
    }

    /// Prunes what the retention periods let go, at most once an hour;
    /// returns what it pruned (nothing when it was not due).
    pub async fn prune(&self) -> Result<retention::Pruned, StoreError> {
        let now = self.clock.now();
        let due = {
            let last = self.pruned_at.lock().unwrap_or_else(|e| e.into_inner());
            last.is_none_or(|at| now - at >= chrono::Duration::hours(1))
        };
        if !due {
            return Ok(retention::Pruned::default());
        }
        let pruned = retention::prune(&self.store, &self.retention, now).await?;
        *self.pruned_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(now);
        if pruned != retention::Pruned::default() {
            tracing::info!(
                outbox_bodies = pruned.outbox_bodies,
                inbound = pruned.inbound,
                "pruned old mail bodies and inbound records ([retention])"
            );
        }
        Ok(pruned)
    }

    /// Counts what it does into `metrics` (`[metrics] listen`).
    pub fn with_metrics(mut self, metrics: Arc<super::metrics::Metrics>) -> Daemon {
        self.metrics = Some(metrics);
        self
    }

    /// Runs as one of several daemons on the database (see [`Lease`]).
    pub fn with_lease(mut self, lease: Lease) -> Daemon {
        self.lease = Some(lease);
        self
    }

    /// Sets the longest one mail may take to read (`[mail] read_budget_ms`).
    pub fn with_read_budget(mut self, budget: std::time::Duration) -> Daemon {
        self.read_budget = budget;
        self
    }

    /// Handles one mail outside any mailbox, as a pass handles each mail
    /// (read within the budget, checked, handled in a batch of its own,
    /// committed), but with nothing to mark done and no cursor to move: for
    /// tests and tools that hold a mail and no mailbox. A mail that could
    /// not be handled is an error, as is an outage.
    pub async fn handle_one(&self, mail: &Incoming) -> anyhow::Result<Handled> {
        let mut batch = Batch::default();
        if let Offered::Failed(failure) =
            Box::pin(self.offer(&mut batch, mail, super::mailbox::DEFAULT_MAX_MAIL_BYTES)).await?
        {
            return Err(
                anyhow::Error::new(failure.fault).context(format!("handling mail {}", mail.key))
            );
        }
        let handled = batch.pending.last().map(|p| p.handled.clone());
        self.commit_batch(&mut batch, None, false).await?;
        handled.context("a handled mail has an outcome")
    }

    /// Marks a mail done in the mailbox once its effects are committed, and
    /// clears the record of its earlier failures. An error means the
    /// mailbox is away (an outage).
    async fn after_commit(&self, mailbox: &mut Mailbox, mail: &Incoming) -> Result<(), MailFault> {
        let reference = mail.key.to_string();
        match mailbox.mark_done(&mail.key).await {
            Ok(()) => {}
            // The server is away: the pass is tried again later, the mail
            // read again (found handled) and marked then.
            Err(e) if e.is_transient() => return Err(MailFault::Mailbox(e.to_string())),
            // Its effects are committed: said once, and the other mail goes
            // on. A Maildir does not hand such a mail out again; a reset IMAP
            // folder gives it a new UID, under which it is read again, found
            // handled, and marked.
            Err(e) => {
                tracing::warn!(mail = %reference, error = %e, "handled mail not marked done");
            }
        }
        if self.retrying.lock().is_ok_and(|mut r| r.remove(&reference)) {
            // Best effort: a leftover record only shows in `dopis failed`.
            if let Err(e) =
                quarantine::handled_at_last(&self.store, &self.mailbox_name, &reference).await
            {
                tracing::warn!(mail = %reference, error = %e, "could not clear an old failure");
            }
        }
        Ok(())
    }

    /// Sets aside a mail that could not be handled: recorded with its
    /// reason; tried again on a later pass while it is not clear the mail is
    /// at fault (returns `false`), else quarantined, its sender told
    /// (returns `true`: done with). Returns an error only when the database
    /// or the mailbox is away, which stops the pass.
    async fn set_aside(
        &self,
        mailbox: &mut Mailbox,
        mail: &Incoming,
        failed: FailedMail,
    ) -> anyhow::Result<bool> {
        let FailedMail { fault, read } = failed;
        let reference = mail.key.to_string();
        if fault.is_outage() {
            return Err(anyhow::Error::new(fault).context(format!("handling mail {reference}")));
        }
        let now = self.clock.now();
        let read = match read {
            Some(mail) => Some(mail),
            None => quarantine::read_head(&mail.raw).await,
        };
        let reason = fault.to_string();
        let unhandled = Unhandled {
            mailbox: &self.mailbox_name,
            reference: &reference,
            raw: &mail.raw,
            received_at: mail.received_at,
            sender: read.as_ref().map(|m| m.from.as_str()),
        };
        let decided = quarantine::record_failure(&self.store, &unhandled, &fault, now)
            .await
            .with_context(|| format!("recording the failure of mail {reference}"))?;
        let (id, first_time) = match decided {
            SetAside::TryAgain { attempts } => {
                if let Ok(mut retrying) = self.retrying.lock() {
                    retrying.insert(reference.clone());
                }
                tracing::warn!(mail = %reference, attempt = attempts, error = %reason,
                    "mail could not be handled; will try again on the next pass");
                return Ok(false);
            }
            SetAside::Quarantine { id, first_time } => (id, first_time),
        };
        if first_time && let Some(read) = &read {
            let key = format!("failed:{}:{reference}", self.mailbox_name);
            match self
                .inbox
                .tell_not_handled(&self.store, read, &key, fault.cause(), now)
                .await
            {
                Ok(_) => {}
                Err(e) if e.is_outage() => return Err(e.into()),
                Err(e) => {
                    tracing::warn!(mail = %reference, error = %e, "could not tell the sender")
                }
            }
        }
        let kept_in = match mailbox.quarantine(&mail.key).await {
            Ok(place) => Some(place),
            Err(e @ MailboxError::Transient(_)) => return Err(e.into()),
            Err(e) => {
                tracing::warn!(mail = %reference, error = %e, "could not move the failed mail");
                None
            }
        };
        quarantine::kept(&self.store, id, kept_in.as_deref(), now).await?;
        if first_time {
            tracing::error!(mail = %reference, failed = id, error = %reason,
                kept_in = kept_in.as_deref().unwrap_or("the inbox"),
                "mail could not be handled; kept for the admin (dopis failed show {})", id);
        }
        Ok(true)
    }

    /// Reads and handles every mail that is waiting; a mail that cannot be
    /// handled is set aside and the others go on. Returns (handled, failed).
    ///
    /// The stored cursor moves only over mail that is done with (handled or
    /// quarantined): a mail waiting to be tried again keeps it where it is,
    /// so the next pass reads that mail again (and the ones after it, which
    /// are then recognised as handled), whatever the mailbox's order.
    pub async fn receive(
        &self,
        mailbox: &mut Mailbox,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<(usize, usize)> {
        let (received, failed, _) = self.receive_sending(mailbox, None, shutdown).await?;
        Ok((received, failed))
    }

    /// `receive`, sending the outbox with `mailer` every
    /// [`SEND_EVERY_MAILS`] mails or [`SEND_EVERY`] on the way, so that a
    /// reply's latency does not grow with the length of the inbox. Only
    /// committed replies are sent (the outbox holds nothing else); a send
    /// that fails here is left to the pass's own send after the inbox,
    /// which says why. Returns (handled, failed, sent).
    ///
    /// This is the one way mail goes through: in batches of the same size,
    /// one transaction each with a savepoint per mail (see [`Batch`]), a
    /// mail handled alone being a batch of one. A mail is marked done only
    /// once its batch committed.
    async fn receive_sending(
        &self,
        mailbox: &mut Mailbox,
        mut mailer: Option<&Mailer>,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<(usize, usize, usize)> {
        let (mut count, mut failed, mut sent) = (0, 0, 0);
        let mut after: Option<MailRef> = inbox::mailbox_cursor(&self.store, &self.mailbox_name)
            .await?
            .and_then(|c| c.parse().ok());
        // Whether every mail so far is done with (handled or quarantined):
        // the stored cursor moves only while it is.
        let mut all_done = true;
        // Each mail at most once a pass, even if it could not be moved out of the inbox.
        let mut seen = HashSet::new();
        let max = mailbox.max_mail_bytes();
        loop {
            let fetched = mailbox.fetch_new(after.as_ref()).await?;
            let fetched: Vec<Incoming> = fetched
                .into_iter()
                .filter(|m| seen.insert(m.key.clone()))
                .collect();
            let Some(last) = fetched.last() else {
                return Ok((count, failed, sent));
            };
            after = Some(last.key.clone());
            let mut batch = Batch::default();
            for mail in &fetched {
                if *shutdown.borrow() {
                    count += self
                        .commit_batch(&mut batch, Some(mailbox), all_done)
                        .await?;
                    return Ok((count, failed, sent));
                }
                // With DKIM required, the check may wait on DNS, which must
                // not hold a transaction open (other writers would wait on
                // SQLite's lock): such a daemon handles each mail alone, a
                // batch of one, checked before it begins.
                let alone = self.inbox.check_may_wait();
                if alone {
                    count += self
                        .commit_batch(&mut batch, Some(mailbox), all_done)
                        .await?;
                }
                let failure = match Box::pin(self.offer(&mut batch, mail, max)).await? {
                    Offered::Pending => None,
                    Offered::Failed(failure) => Some(failure),
                };
                if failure.is_some() || !batch.undone.is_empty() {
                    // What the batch did before this mail is kept; the mails
                    // the database undid with it are handled again, each alone.
                    count += self
                        .commit_batch(&mut batch, Some(mailbox), all_done)
                        .await?;
                    for undone in std::mem::take(&mut batch.undone) {
                        match Box::pin(self.offer(&mut batch, undone, max)).await? {
                            Offered::Pending => {
                                count += self
                                    .commit_batch(&mut batch, Some(mailbox), all_done)
                                    .await?;
                            }
                            Offered::Failed(failure) => {
                                failed += 1;
                                if let Some(metrics) = &self.metrics {
                                    metrics.mail_failed();
                                }
                                all_done &= self.set_aside(mailbox, undone, *failure).await?;
                                if all_done {
                                    self.move_cursor_past(undone).await?;
                                }
                            }
                        }
                    }
                }
                if let Some(failure) = failure {
                    failed += 1;
                    if let Some(metrics) = &self.metrics {
                        metrics.mail_failed();
                    }
                    all_done &= self.set_aside(mailbox, mail, *failure).await?;
                    if all_done {
                        self.move_cursor_past(mail).await?;
                    }
                }
                if alone || batch.is_due() {
                    count += self
                        .commit_batch(&mut batch, Some(mailbox), all_done)
                        .await?;
                    if let Some(sender) = mailer {
                        match self.send(sender, shutdown).await {
                            Ok(n) => sent += n,
                            Err(e) => {
                                // Not again before the inbox is read: a server that
                                // is away would slow every few mails.
                                tracing::debug!(error = %format!("{e:#}"), "sending between mails failed; the pass sends again after the inbox");
                                mailer = None;
                            }
                        }
                    }
                }
            }
            count += self
                .commit_batch(&mut batch, Some(mailbox), all_done)
                .await?;
        }
    }

    /// Reads, checks and handles `mail` inside the batch's transaction
    /// (begun with its first mail), after a savepoint of its own: the one
    /// function every mail goes through. A mail that fails is undone alone
    /// and comes back to be set aside; `max` is the mailbox's size cap (a
    /// mail over it is refused from its header fields). An error is an
    /// outage: the pass stops.
    async fn offer<'m>(
        &self,
        batch: &mut Batch<'m>,
        mail: &'m Incoming,
        max: u64,
    ) -> anyhow::Result<Offered> {
        let span = mail_span(mail);
        let now = self.clock.now();
        let reference = mail.key.to_string();
        // A mail cannot have arrived after it is read: a delivery time in the
        // future (a wrong clock, a touched file) would charge a move's
        // player for time to come.
        let received_at = mail.received_at.min(now);
        // With "handled mail" (or the failure) it brackets the time one mail
        // took, which the fault suite reads from the log.
        span.in_scope(
            || tracing::debug!(mail = %reference, bytes = mail.raw.len(), "reading mail"),
        );
        let content = match mail.oversized {
            Some(size) => {
                span.in_scope(
                    || tracing::warn!(mail = %reference, size, "mail too large: not read"),
                );
                Content::TooLarge {
                    head: &mail.head,
                    size,
                    max,
                }
            }
            None => {
                let raw = Arc::new(mail.raw.clone());
                match quarantine::read_within(raw, self.read_budget)
                    .instrument(span.clone())
                    .await
                {
                    Ok(read) => Content::Whole {
                        raw: &mail.raw,
                        read,
                    },
                    Err(fault) => {
                        return Ok(Offered::Failed(Box::new(FailedMail { fault, read: None })));
                    }
                }
            }
        };
        let checked = self
            .inbox
            .check(&reference, content, received_at)
            .instrument(span.clone())
            .await;
        let sender = checked.read().cloned();
        let open = match &mut batch.tx {
            Some(open) => open,
            None => {
                batch.started = Some(std::time::Instant::now());
                batch.tx.insert(inbox::MailBatch::begin(&self.store).await?)
            }
        };
        // An error is an outage: the caller drops the batch, nothing of it
        // committed or marked; its mails are read again on the next pass.
        // Boxed: the inbox's future is deep (a move that ends a game mails
        // the standings), too large to sit inline on a thread's stack.
        let handled = Box::pin(self.inbox.handle(&self.store, open, checked, now))
            .instrument(span.clone())
            .await
            .with_context(|| format!("handling mail {reference}"))?;
        let (error, batch_lost) = match handled {
            inbox::InBatch::Handled(handled) => {
                batch.pending.push(Pending {
                    mail,
                    handled,
                    span,
                });
                return Ok(Offered::Pending);
            }
            inbox::InBatch::Failed { error, batch_lost } => (error, batch_lost),
        };
        if batch_lost {
            // The mails before this one are handled again on their own
            // (their effects are gone, their mails not marked).
            batch.undone();
        }
        if let Some(size) = mail.oversized {
            // Not set aside: what is kept of a failed mail is what was read
            // of it, and this one's body was not read.
            span.in_scope(|| tracing::warn!(mail = %reference, error = %error, "the refusal of a mail too large could not be recorded"));
            batch.pending.push(Pending {
                mail,
                handled: Handled::Ignored(crate::service::Ignored::TooLargeUnrecorded { size }),
                span,
            });
            return Ok(Offered::Pending);
        }
        Ok(Offered::Failed(Box::new(FailedMail {
            fault: MailFault::Service(error),
            read: sender,
        })))
    }

    /// Moves the stored cursor past `mail`, a mail set aside for good, when
    /// every mail before it is done with: a batch with no mail but the cursor.
    async fn move_cursor_past(&self, mail: &Incoming) -> anyhow::Result<()> {
        inbox::MailBatch::begin(&self.store)
            .await?
            .commit(
                &self.mailbox_name,
                Some(&mail.key.to_string()),
                self.clock.now(),
            )
            .await
            .context("moving the mailbox cursor past a mail set aside")
    }

    /// Commits the batch (with the mailbox cursor after its last mail, when
    /// every mail before is done with), then marks its mails done in
    /// `mailbox` (none: a mail handled outside any mailbox, and no cursor).
    /// Returns how many mails it handled. An error is an outage: mails not
    /// marked are read again on the next pass (and found handled if
    /// committed).
    async fn commit_batch(
        &self,
        batch: &mut Batch<'_>,
        mut mailbox: Option<&mut Mailbox>,
        all_done: bool,
    ) -> anyhow::Result<usize> {
        let pending = std::mem::take(&mut batch.pending);
        batch.started = None;
        if let Some(open) = batch.tx.take() {
            let cursor = pending
                .last()
                .filter(|_| all_done && mailbox.is_some())
                .map(|last| last.mail.key.to_string());
            open.commit(&self.mailbox_name, cursor.as_deref(), self.clock.now())
                .await
                .context("committing a batch of handled mails")?;
        }
        let handled = pending.len();
        for Pending {
            mail,
            handled: outcome,
            span,
        } in pending
        {
            let reference = mail.key.to_string();
            span.in_scope(|| tracing::info!(mail = %reference, outcome = ?outcome, "handled mail"));
            crate::service::crash_point("after-inbound-commit");
            if let Some(mailbox) = mailbox.as_deref_mut() {
                self.after_commit(mailbox, mail)
                    .instrument(span)
                    .await
                    .map_err(|fault| {
                        anyhow::Error::new(fault).context(format!("handling mail {reference}"))
                    })?;
            }
            if let Some(metrics) = &self.metrics {
                metrics.mail(&outcome);
            }
        }
        Ok(handled)
    }

    /// Sends the outbox mails that are due; returns how many were delivered.
    pub async fn send(
        &self,
        mailer: &Mailer,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<usize> {
        let mut sent = 0;
        let holder = match &self.lease {
            Some(lease) => {
                lease.take_over_dead_leases(self.clock.now()).await?;
                Some(lease.instance().await)
            }
            None => None,
        };
        loop {
            if let Some(lease) = &self.lease
                && !lease.alive().await
            {
                // Our leases may be taken over now: take no more mails.
                anyhow::bail!("the database session holding this daemon's leases ended");
            }
            let now = self.clock.now();
            let batch = delivery::claim(&self.store, now, holder).await?;
            if batch.is_empty() {
                return Ok(sent);
            }
            // The mails the server took are recorded as sent together, in
            // one transaction after the batch (or before leaving it): one
            // commit, so one fsync, for up to a batch of mails rather than
            // one each (issue 27). A daemon that dies before that commit
            // sends those mails again, as it always did the one mail in
            // hand; each keeps its Message-ID.
            let mut taken = Vec::new();
            let mut outcome = Ok(None);
            for (i, mail) in batch.iter().enumerate() {
                if *shutdown.borrow() {
                    break;
                }
                match self.send_one(mailer, mail).await {
                    Ok(Delivery::Sent(at)) => taken.push((mail, at)),
                    Ok(Delivery::NotSent) => {}
                    Ok(Delivery::ServerUnavailable(why)) => {
                        outcome = Ok(Some((i, why)));
                        break;
                    }
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
            delivery::sent_all(&self.store, &taken).await?;
            sent += taken.len();
            match outcome? {
                _ if *shutdown.borrow() => return Ok(sent),
                None => {}
                Some((i, why)) => {
                    // The rest would fail the same way: all go back as
                    // they were, due at once, no attempt counted, and the
                    // pass fails, so the daemon's pause between failed
                    // passes (seconds, not each mail's growing backoff)
                    // sets when they are tried again.
                    delivery::put_back(&self.store, &batch[i..], &why, self.clock.now()).await?;
                    anyhow::bail!("{why}; the outbox waits for the server ({sent} sent this pass)");
                }
            }
        }
    }

    async fn send_one(&self, mailer: &Mailer, mail: &OutboxMail) -> anyhow::Result<Delivery> {
        let (Ok(from), Ok(to)) = (
            EmailAddress::parse(&mail.envelope_from),
            EmailAddress::parse(&mail.recipient),
        ) else {
            delivery::unaddressable(&self.store, mail).await?;
            return Ok(Delivery::NotSent);
        };
        match mailer
            .send(&from, std::slice::from_ref(&to), &mail.raw)
            .await
        {
            Ok(()) => {
                crate::service::crash_point("after-send");
                tracing::info!(key = %mail.mail_key, to = %to, "sent");
                Ok(Delivery::Sent(self.clock.now()))
            }
            Err(SendError::Permanent(e)) => {
                tracing::error!(key = %mail.mail_key, to = %to, error = %e, "delivery failed for good");
                let post = &self.inbox.post;
                delivery::refused(&self.store, post, mail, &e, self.clock.now()).await?;
                Ok(Delivery::NotSent)
            }
            Err(SendError::Transient(e)) => {
                let retry =
                    delivery::failed_for_now(&self.store, mail, &e, self.clock.now()).await?;
                tracing::warn!(key = %mail.mail_key, to = %to, error = %e, ?retry, "delivery failed; will retry");
                Ok(Delivery::NotSent)
            }
            Err(SendError::Unavailable(e)) => Ok(Delivery::ServerUnavailable(e)),
        }
    }

    /// Runs the scheduler for every game that is due (in steps of one game,
    /// checking `shutdown` between them); returns how many it handled. A
    /// game that cannot be handled is put off (after a growing pause) and
    /// the others go on.
    pub async fn schedule(&self, shutdown: &watch::Receiver<bool>) -> anyhow::Result<usize> {
        let mut handled = 0;
        let (stuck, _) = quarantine::stuck_subjects(&self.store, self.clock.now()).await?;
        while !*shutdown.borrow() {
            let now = self.clock.now();
            let Some((game, outcome)) = self.scheduler.step(&self.store, now).await? else {
                break;
            };
            let subject = format!("game:{}", game.0);
            match outcome {
                Ok(done) => {
                    for due in &done {
                        tracing::info!(game = game.0, due = %due.key(), "scheduler");
                    }
                    if stuck.contains(&subject) {
                        quarantine::unstuck(&self.store, &subject).await?;
                    }
                    handled += 1;
                }
                Err(e) if e.is_outage() => {
                    return Err(anyhow::Error::new(e).context(format!("scheduling game {game}")));
                }
                Err(e) => {
                    let attempts = quarantine::record_stuck(&self.store, &subject, &e, now).await?;
                    let until = quarantine::stuck_pause(attempts, now);
                    self.scheduler.put_off(&self.store, game, until).await?;
                }
            }
        }
        Ok(handled)
    }

    /// Runs one unit of scheduler work (a digest, a report) unless it is
    /// waiting out a pause after failing; a failure other than an outage is
    /// recorded and put off. `Ok(None)`: not done this time.
    async fn contained<T, E: Into<ServiceError>>(
        &self,
        subject: String,
        stuck: &HashSet<String>,
        waiting: &HashSet<String>,
        work: impl std::future::Future<Output = Result<T, E>>,
    ) -> anyhow::Result<Option<T>> {
        if waiting.contains(&subject) {
            return Ok(None);
        }
        match work.await.map_err(Into::into) {
            Ok(done) => {
                if stuck.contains(&subject) {
                    quarantine::unstuck(&self.store, &subject).await?;
                }
                Ok(Some(done))
            }
            Err(e) if e.is_outage() => Err(anyhow::Error::new(e).context(subject)),
            Err(e) => {
                quarantine::record_stuck(&self.store, &subject, &e, self.clock.now()).await?;
                Ok(None)
            }
        }
    }

    /// Makes the move of every consultation game whose votes closed (see
    /// [`crate::service::consultation::close_one`]), each in a transaction
    /// of its own; returns how many moves were made. Run before the
    /// scheduler, so that a side's move made at its votes' close is in
    /// before its clock is looked at. A game that fails is put off; the
    /// others go on.
    pub async fn votes(&self) -> anyhow::Result<usize> {
        let now = self.clock.now();
        let (stuck, waiting) = quarantine::stuck_subjects(&self.store, now).await?;
        let mut made = 0;
        for game in crate::service::consultation::closed_votes(&self.store, now).await? {
            let store = &self.store;
            let inbox = &self.inbox;
            let work = async move {
                let done = crate::service::consultation::close_one(store, inbox, game, now).await?;
                if let Some(done) = &done {
                    tracing::info!(game = game.0, done, "votes closed");
                }
                Ok::<bool, ServiceError>(done.is_some())
            };
            if self
                .contained(format!("votes:{}", game.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                made += 1;
            }
        }
        Ok(made)
    }

    /// Mails the daily deadline report of every event whose report is due;
    /// returns how many went out. An event whose report cannot be made is
    /// put off; the others go on.
    pub async fn reports(&self) -> anyhow::Result<usize> {
        let now = self.clock.now();
        let (stuck, waiting) = quarantine::stuck_subjects(&self.store, now).await?;
        let mut sent = 0;
        for event in self.scheduler.reports_due(&self.store, now).await? {
            let work = self.scheduler.daily_report(&self.store, event, now);
            if self
                .contained(format!("report:{}", event.0), &stuck, &waiting, work)
                .await?
                .is_some()
            {
                sent += 1;
            }
        }
        Ok(sent)
    }

    /// Closes the entries of every event whose time has come (see
    /// [`crate::service::entries::close_if_due`]) and builds the final of
    /// every event whose groups have ended, and records the promotions of
    /// every section of a class that promotes once it has ended, each in
    /// its own transaction; returns how many closed, were built or recorded. An event that cannot be closed
    /// is put off; the others go on.
    pub async fn entries(&self) -> anyhow::Result<usize> {
        let now = self.clock.now();
        let (stuck, waiting) = quarantine::stuck_subjects(&self.store, now).await?;
        let mut closed = 0;
        for event in crate::service::entries::open_events(&self.store).await? {
            let post = &self.scheduler.post;
            let store = &self.store;
            let work = async move {
                let done = crate::service::entries::close_due(store, post, event, now).await?;
                if let Some(done) = &done {
                    tracing::info!(event = event.0, ?done, "entries closed");
                }
                Ok::<bool, ServiceError>(done.is_some())
            };
            if self
                .contained(format!("entries:{}", event.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                closed += 1;
            }
        }
        // Events played in stages: the final, once the groups have ended.
        for event in crate::service::entries::awaiting_final(&self.store).await? {
            let post = &self.scheduler.post;
            let store = &self.store;
            let work = async move {
                let built =
                    crate::service::entries::build_final_due(store, post, event, now).await?;
                if let Some(built) = &built {
                    tracing::info!(event = event.0, final_event = built.event.0, "final built");
                }
                Ok::<bool, ServiceError>(built.is_some())
            };
            if self
                .contained(format!("stages:{}", event.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                closed += 1;
            }
        }
        // Swiss events: the next round, once every game of the last has ended.
        for event in crate::service::td::between_rounds(&self.store).await? {
            let post = &self.scheduler.post;
            let store = &self.store;
            let work = async move {
                let paired =
                    crate::service::swiss_rounds::pair_next_or_tell(store, post, event, now)
                        .await?;
                if let Some(paired) = &paired {
                    tracing::info!(
                        event = event.0,
                        round = paired.round,
                        games = paired.games.len(),
                        "swiss round paired"
                    );
                }
                Ok::<bool, ServiceError>(paired.is_some())
            };
            if self
                .contained(format!("swiss:{}", event.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                closed += 1;
            }
        }
        // Swiss rounds with a closing date: the TDs told as it nears and
        // when it has come, if games of the round are still played.
        for event in crate::service::swiss_rounds::started(&self.store).await? {
            let post = &self.scheduler.post;
            let store = &self.store;
            let work = async move {
                let told =
                    crate::service::swiss_rounds::closing_due(store, post, event, now).await?;
                if let Some(told) = told {
                    tracing::info!(event = event.0, ?told, "swiss round closing told");
                }
                Ok::<bool, ServiceError>(told.is_some())
            };
            if self
                .contained(format!("swiss-close:{}", event.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                closed += 1;
            }
        }
        // Sections of classes that promote: their promotions, once ended.
        for section in crate::service::entries::awaiting_promotions(&self.store).await? {
            let post = &self.scheduler.post;
            let store = &self.store;
            let work = async move {
                let done =
                    crate::service::entries::record_promotions_due(store, post, section, now)
                        .await?;
                if let Some(promoted) = &done {
                    tracing::info!(
                        event = section.0,
                        promoted = promoted.len(),
                        "promotions recorded"
                    );
                }
                Ok::<bool, ServiceError>(done.is_some())
            };
            if self
                .contained(format!("promotions:{}", section.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                closed += 1;
            }
        }
        Ok(closed)
    }

    /// Queues the daily digest of every player who chose one and whose
    /// digest is due (see [`Scheduler::digest`]). A digest that cannot be
    /// made is put off; the others go on.
    pub async fn digests(&self) -> anyhow::Result<usize> {
        let now = self.clock.now();
        let players = self.scheduler.digest_players(&self.store).await?;
        let (stuck, waiting) = quarantine::stuck_subjects(&self.store, now).await?;
        let mut queued = 0;
        for id in players {
            let work = self.scheduler.digest(&self.store, id, now);
            if self
                .contained(format!("digest:{}", id.0), &stuck, &waiting, work)
                .await?
                == Some(true)
            {
                queued += 1;
            }
        }
        Ok(queued)
    }

    /// One pass: everything waiting in the mailbox (sending the outbox on
    /// the way every few mails, so replies do not wait for the whole inbox), then the scheduler (so
    /// a move that reached the mailbox in time is played, not timed out)
    /// and the TDs' daily reports (after it, so they list its timeouts),
    /// then the outbox. Each stage runs even when an earlier one failed (a
    /// mailbox that is away does not stop the scheduler or the sender); the
    /// first failure is returned after all of them ran.
    pub async fn pass(
        &self,
        mailbox: &mut Mailbox,
        mailer: &Mailer,
        shutdown: &watch::Receiver<bool>,
    ) -> anyhow::Result<Pass> {
        let mut pass = Pass::default();
        let mut failures: Vec<anyhow::Error> = Vec::new();
        pass.read_mailbox = match &self.lease {
            Some(lease) => match lease.may_read_mailbox().await {
                Ok(leader) => leader,
                Err(e) => {
                    failures.push(anyhow::Error::new(e).context("taking the mailbox lease"));
                    false
                }
            },
            None => true,
        };
        if pass.read_mailbox {
            // Boxed: a pass's future holds the inbox's, too large to sit
            // inline on a thread's stack.
            match Box::pin(self.receive_sending(mailbox, Some(mailer), shutdown)).await {
                Ok((received, failed, sent)) => {
                    pass.received = received;
                    pass.failed = failed;
                    pass.sent = sent;
                }
                Err(e) => failures.push(e.context("reading the mailbox")),
            }
        }
        if !*shutdown.borrow() {
            match self.votes().await {
                Ok(n) => pass.scheduled += n,
                Err(e) => failures.push(e.context("closing consultation votes")),
            }
        }
        match self.schedule(shutdown).await {
            Ok(n) => pass.scheduled += n,
            Err(e) => failures.push(e.context("running the scheduler")),
        }
        if !*shutdown.borrow() {
            match self.reports().await {
                Ok(n) => pass.scheduled += n,
                Err(e) => failures.push(e.context("mailing the deadline reports")),
            }
            match self.entries().await {
                Ok(n) => pass.scheduled += n,
                Err(e) => failures.push(e.context("closing entries")),
            }
            if let Err(e) = self.digests().await {
                failures.push(e.context("queueing the digests"));
            }
        }
        match self.send(mailer, shutdown).await {
            Ok(n) => pass.sent += n,
            Err(e) => failures.push(e.context("sending the outbox")),
        }
        if !*shutdown.borrow()
            && let Err(e) = self.prune().await
        {
            failures.push(anyhow::Error::new(e).context("pruning old data ([retention])"));
        }
        match failures.into_iter().next() {
            Some(first) => Err(first),
            None => Ok(pass),
        }
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
            let started = std::time::Instant::now();
            let result = self.pass(&mut mailbox, &mailer, &shutdown).await;
            if let Some(metrics) = &self.metrics {
                metrics.pass(started.elapsed(), result.is_ok(), self.clock.now());
            }
            match result {
                Ok(pass) if !pass.read_mailbox => {
                    // A standby: try for the mailbox again soon, so that it
                    // takes over within seconds of the leader's end.
                    failures = 0;
                    tokio::select! {
                        _ = tokio::time::sleep(STANDBY_POLL.min(idle)) => {}
                        _ = shutdown.changed() => {}
                    }
                    continue;
                }
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
        Ok(())
    }
}

/// Reads the config again (the file and the `DOPIS_…` variables, as at
/// start): `serve` calls it on SIGHUP.
pub type ReloadConfig =
    Box<dyn Fn() -> anyhow::Result<crate::adapter::config::Config> + Send + Sync>;

/// What the daemon is asked to do by a signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Signal {
    /// SIGINT or SIGTERM: finish the current step and stop.
    Stop,
    /// SIGHUP: finish the current step, read the config again, go on.
    Reload,
}

/// The parts of a running daemon that come from the config: made at start
/// and again on each reload.
struct Parts {
    daemon: Daemon,
    mailbox: Mailbox,
    mailer: Mailer,
}

/// Opens the mailbox and sets up the mailer of `config`, with what the
/// daemon is made of besides: first at start, before the database (a wrong
/// mail setting is said before a database one), and on each reload.
async fn open_mail(
    config: &crate::adapter::config::Config,
) -> anyhow::Result<(Post, Settings, Mailbox, Mailer)> {
    let post = Post::new(&config.mail)?.with_pages(config.web.base()?);
    let settings = Settings::from_config(config)?;
    let mailbox = Mailbox::open(&config.mail)
        .await
        .context("cannot open the mailbox")?;
    let mailer = Mailer::open(&config.mail).context("cannot set up sending mail")?;
    Ok((post, settings, mailbox, mailer))
}

/// The daemon of `config` on `store`, with its mailbox and mailer.
fn parts_of(
    config: &crate::adapter::config::Config,
    store: &Store,
    (post, settings, mailbox, mailer): (Post, Settings, Mailbox, Mailer),
) -> Parts {
    let daemon = Daemon::new(
        store.clone(),
        Arc::new(crate::service::app::SystemClock),
        post,
        &settings,
        match &config.mail.imap {
            Some(imap) => format!("imap:{}@{}/{}", imap.user, imap.host, imap.mailbox),
            None => format!("maildir:{}", config.mail.maildir.path.display()),
        },
    )
    .with_read_budget(std::time::Duration::from_millis(
        config.mail.read_budget_ms.max(1),
    ))
    .with_retention(Retention::from_config(&config.retention));
    Parts {
        daemon,
        mailbox,
        mailer,
    }
}

/// Makes the daemon, its mailbox and its mailer from `config` anew (the
/// database stays open): on SIGHUP.
async fn assemble(config: &crate::adapter::config::Config, store: &Store) -> anyhow::Result<Parts> {
    Ok(parts_of(config, store, open_mail(config).await?))
}

/// The config `serve` goes on with after SIGHUP: the new one, but with
/// what only a new start can change kept as it was (each said in the log).
fn reloaded(
    current: &crate::adapter::config::Config,
    mut new: crate::adapter::config::Config,
) -> crate::adapter::config::Config {
    let kept = |what: &str| {
        tracing::warn!(
            "config reloaded, but {what} changed: that takes effect when dopis serve starts \
             again (restart it)"
        );
    };
    if new.database != current.database {
        kept("[database] url");
        new.database = current.database.clone();
    }
    if new.metrics != current.metrics {
        kept("[metrics] listen");
        new.metrics = current.metrics.clone();
    }
    if new.log.format != current.log.format {
        kept("[log] format");
        new.log.format = current.log.format;
    }
    if new
        .mail
        .imap
        .as_ref()
        .map(|i| (&i.host, &i.user, &i.mailbox))
        != current
            .mail
            .imap
            .as_ref()
            .map(|i| (&i.host, &i.user, &i.mailbox))
        || (new.mail.imap.is_none() && new.mail.maildir != current.mail.maildir)
    {
        // Another mailbox is another daemon's lease and cursor.
        kept("the mailbox ([mail.imap] host, user or mailbox, or [mail.maildir] path)");
        new.mail.imap = current.mail.imap.clone();
        new.mail.maildir = current.mail.maildir.clone();
    }
    new
}

/// `dopis serve`: opens the store, mailbox and mailer from the config and
/// runs until SIGINT/SIGTERM (or, with `once`, one pass). On SIGHUP it
/// finishes the step in hand, reads the config again with `reload` and goes
/// on with it: the mail servers, logins and DKIM key for the next
/// connection, the clock, retention and mail settings, the log level. A
/// config that does not read, or whose mail servers cannot be reached, is
/// logged and the daemon goes on as it was.
pub async fn serve(
    config: crate::adapter::config::Config,
    once: bool,
    reload: Option<ReloadConfig>,
) -> anyhow::Result<()> {
    let listen = config.metrics.address()?;
    // Listened to before anything else: a SIGHUP (`systemctl reload`)
    // while the mailbox opens must not end the process, as it would
    // before a handler is installed.
    let mut listening = (!once).then(Signals::listen);
    let mail = open_mail(&config).await?;
    // Opened last, so that every way out from here closes it.
    let store = crate::service::open_store(config.database.url.expose()).await?;
    let Parts {
        daemon,
        mut mailbox,
        mut mailer,
    } = parts_of(&config, &store, mail);
    let lease = match Lease::acquire(&store, &daemon.mailbox_name, daemon.clock.now()).await {
        Ok(lease) => lease,
        Err(e) => {
            store.close().await;
            return Err(e.into());
        }
    };
    if once {
        // A daemon that died a moment ago may still hold the mailbox until
        // the database notices its session is gone: wait a little for it.
        for _ in 0..20 {
            match lease.may_read_mailbox().await {
                Ok(true) => break,
                Ok(false) => tokio::time::sleep(std::time::Duration::from_millis(250)).await,
                Err(e) => {
                    store.close().await;
                    return Err(e.into());
                }
            }
        }
    }
    let mut daemon = daemon.with_lease(lease);
    let (stop, shutdown) = watch::channel(false);
    let mut endpoint = None;
    let mut metrics = None;
    if !once && let Some(listen) = listen {
        let counted = Arc::new(super::metrics::Metrics::new());
        mailbox.count_reconnects(counted.imap_reconnects());
        match super::metrics::serve(
            listen,
            counted.clone(),
            store.clone(),
            daemon.clock.clone(),
            shutdown.clone(),
        )
        .await
        {
            Ok(task) => endpoint = Some(task),
            Err(e) => {
                store.close().await;
                return Err(e);
            }
        }
        daemon = daemon.with_metrics(counted.clone());
        metrics = Some(counted);
    }
    if once {
        let pass = store
            .close_after(daemon.pass(&mut mailbox, &mailer, &shutdown))
            .await?;
        if !pass.read_mailbox {
            tracing::warn!("another daemon reads the mailbox: this pass only scheduled and sent");
        }
        tracing::info!(
            received = pass.received,
            failed = pass.failed,
            scheduled = pass.scheduled,
            sent = pass.sent,
            "one pass done"
        );
        return Ok(());
    }
    let (signal_tx, mut signals) = tokio::sync::mpsc::channel(4);
    let listening = listening.take().unwrap_or_else(Signals::listen);
    tokio::spawn(async move {
        let mut signals = listening;
        loop {
            let signal = signals.next().await;
            if signal_tx.send(signal).await.is_err() || signal == Signal::Stop {
                break;
            }
        }
    });
    tracing::info!(mailbox = %daemon.mailbox_name, "dopis serve started");
    let mut current = config;
    let result = loop {
        // Each run of the loop has its own pause: a signal pauses it after
        // the step in hand (every step is a transaction of its own).
        let (pause, paused) = watch::channel(false);
        let outcome = {
            let run = daemon.run(mailbox, mailer, paused, std::time::Duration::from_secs(30));
            tokio::pin!(run);
            tokio::select! {
                result = &mut run => Err(result),
                signal = signals.recv() => {
                    let signal = signal.unwrap_or(Signal::Stop);
                    if signal == Signal::Stop {
                        tracing::info!("shutting down after the current step");
                        let _ = stop.send(true);
                    } else {
                        tracing::info!("SIGHUP: reading the config again after the current step");
                    }
                    let _ = pause.send(true);
                    Ok((signal, run.await))
                }
            }
        };
        let (signal, ended) = match outcome {
            Err(result) => break result,
            Ok(stopped) => stopped,
        };
        if signal == Signal::Stop || ended.is_err() {
            break ended;
        }
        // SIGHUP: the new config, or the one in use when it will not do.
        let fresh = match reload.as_ref().map(|read| read()) {
            Some(Ok(new)) => Some(reloaded(&current, new)),
            Some(Err(e)) => {
                tracing::error!(
                    error = %format!("{e:#}"),
                    "config reload failed: going on with the config as it was (correct the file \
                     and send SIGHUP again)"
                );
                None
            }
            None => None,
        };
        let lease = daemon.lease.take();
        let mut parts = None;
        if let Some(new) = fresh {
            match assemble(&new, &store).await {
                Ok(p) => {
                    if let Err(e) = crate::adapter::telemetry::set_level(&new.log.level) {
                        tracing::error!(error = %e, "the new [log] level is not used");
                    }
                    current = new;
                    parts = Some(p);
                    tracing::info!("config reloaded");
                }
                Err(e) => tracing::error!(
                    error = %format!("{e:#}"),
                    "config reload failed: going on with the config as it was"
                ),
            }
        }
        // The config as it was: its mailbox was open a moment ago, but the
        // server may be away just now; tried again until it answers (or
        // the daemon is stopped), as a pass that fails is.
        let p = match parts {
            Some(p) => p,
            None => {
                let mut again = None;
                while again.is_none() {
                    match assemble(&current, &store).await {
                        Ok(p) => again = Some(p),
                        Err(e) => {
                            tracing::error!(error = %format!("{e:#}"), "cannot open the mailbox again; retrying in 10 s");
                            tokio::select! {
                                _ = tokio::time::sleep(std::time::Duration::from_secs(10)) => {}
                                signal = signals.recv() => if signal != Some(Signal::Reload) {
                                    tracing::info!("shutting down");
                                    break;
                                },
                            }
                        }
                    }
                }
                match again {
                    Some(p) => p,
                    None => break Ok(()),
                }
            }
        };
        daemon = p.daemon;
        if let Some(lease) = lease {
            daemon = daemon.with_lease(lease);
        }
        mailbox = p.mailbox;
        mailer = p.mailer;
        if let Some(counted) = &metrics {
            mailbox.count_reconnects(counted.imap_reconnects());
            daemon = daemon.with_metrics(counted.clone());
        }
    };
    tracing::info!("shut down");
    let _ = stop.send(true);
    if let Some(task) = endpoint {
        task.abort();
    }
    store.close().await;
    result
}

/// The signals `serve` listens to, registered once for its whole run (so
/// that none is missed between two).
struct Signals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn listen() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Signals {
                unix: signal(SignalKind::terminate())
                    .ok()
                    .zip(signal(SignalKind::hangup()).ok()),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    async fn next(&mut self) -> Signal {
        #[cfg(unix)]
        if let Some((term, hup)) = &mut self.unix {
            return tokio::select! {
                _ = tokio::signal::ctrl_c() => Signal::Stop,
                _ = term.recv() => Signal::Stop,
                _ = hup.recv() => Signal::Reload,
            };
        }
        let _ = tokio::signal::ctrl_c().await;
        Signal::Stop
    }
}
