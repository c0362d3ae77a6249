//! Handling one inbound mail: read it, decide whom it is from and which
//! game it is for, check that it may act, apply it, and record the result
//! with the mails it causes — all in one transaction, keyed by the mail's
//! Message-ID so that it acts at most once.

mod digest;
mod director;
mod stale;
mod too_large;

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use self::stale::Written;
use super::clocks;
use super::loaded_game::{self, LoadedGame};
use super::post::{self, Answering, Outgoing, Post, answer_key};
use super::schedule;
use crate::adapter::mail::compose::{LetterKind, NotHandledCause};
use crate::adapter::mail::inbound::{self, InboundMail};
use crate::adapter::mail::key::sha256_hex;
use crate::adapter::mail::route::{self, ReplyTag};
use crate::adapter::store::Tx;
use crate::adapter::store::game_messages::GameMessage;
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::inbound::InboundRecord;
use crate::adapter::store::{Store, StoreError};
use crate::domain::arbiter::{
    self, Answer, Notice, Place, Reason, RejectionKind, Ruling, StandingsAsked, Step, Writer,
};
use crate::domain::clock::{Allowance, Leave};
use crate::domain::command::{self, Command};
use crate::domain::ids::GameId;
use crate::domain::lang::Lang;
use crate::domain::player::Player;

pub use super::{BounceNote, DigestLine, Done, Handled, Ignored, Limited, Refused, Ruled};

/// Settings for handling mail.
#[derive(Debug, Clone)]
pub struct Inbox {
    /// Addresses and tokens, and the hourly limit of answers.
    pub post: Post,
    /// Regular leave days per player and calendar year.
    pub allowance: Allowance,
    /// The endgame tables claims are judged on.
    pub tables: std::sync::Arc<dyn crate::domain::chess::tablebase::Tables>,
    /// When the scheduler sends reminders: a move plans its game's next
    /// look by it (see [`schedule::reschedule_after_move`]).
    pub plan: crate::domain::clock::ReminderPlan,
}

impl Inbox {
    /// Inbound handling with the daemon's settings.
    pub fn new(post: Post, settings: &crate::service::app::Settings) -> Inbox {
        Inbox {
            post: post.with_answer_limit(settings.answers_per_hour),
            allowance: settings.allowance,
            tables: settings.tables.clone(),
            plan: settings.plan.clone(),
        }
    }
}

/// Whom a mail is from and what it is for.
enum Route {
    /// The player may act in the game (loaded for the whole mail).
    Act {
        table: Box<LoadedGame>,
        player: Player,
    },
    /// A reply to a confirmation: apply the stored command.
    Confirm { id: i64, player: Player },
    /// A reply to the player's daily digest: one line per game.
    Digest { player: Player },
    /// A reply to an entry's address: confirms or withdraws it (see
    /// `service::entries`).
    EntryReply { id: i64, token: String },
    /// The player wrote from their address but without the token, about
    /// this game.
    NeedsConfirmation {
        table: Box<LoadedGame>,
        player: Player,
    },
    /// A registered player wrote without naming a game.
    NoGame { player: Player },
    /// Refuse; tell the registered address (if any) why.
    Refuse {
        player: Option<Player>,
        game: Option<GameId>,
        why: Reason,
        /// The same, in a few words for the inbound log.
        log: String,
    },
}

/// What a mail says, read as commands once in each language it is read
/// in: in practice once, in its sender's (the TD's report, entries, the
/// route and the game all read the same words).
pub(crate) struct Words<'m> {
    text: &'m str,
    read: Vec<(Lang, Vec<Command>)>,
}

impl<'m> Words<'m> {
    /// The words of `text`, not read yet.
    pub(crate) fn of(text: &'m str) -> Words<'m> {
        Words {
            text,
            read: Vec::new(),
        }
    }

    /// The commands as a writer of `lang` means them.
    pub(crate) fn in_lang(&mut self, lang: Lang) -> &[Command] {
        let at = match self.read.iter().position(|(l, _)| *l == lang) {
            Some(at) => at,
            None => {
                self.read
                    .push((lang, command::parse(self.text, lang).commands));
                self.read.len() - 1
            }
        };
        &self.read[at].1
    }
}

/// A mail as the inbox acts on it: read, recorded, its sender looked up.
struct Arrived<'a> {
    mail: &'a InboundMail,
    /// The registered player of its From, if any.
    sender: Option<Player>,
    answering: &'a Answering<'a>,
    received_at: DateTime<Utc>,
}

/// The transaction mails are handled in: several mails each after a
/// savepoint of its own, so that one commit (one fsync) serves them all
/// while a mail that fails is still undone alone (issue 15); a mail handled
/// alone is a batch of one. Nothing of it stands until
/// [`MailBatch::commit`], which also moves the mailbox's cursor (the one
/// place it moves); dropped, it is rolled back.
pub struct MailBatch {
    tx: Tx,
}

/// What became of one mail of a batch.
#[derive(Debug)]
pub enum InBatch {
    /// Handled: its effects stand once the batch commits.
    Handled(Handled),
    /// It failed (not an outage): what it did is undone. `batch_lost`: the
    /// database undid the whole transaction itself (SQLite does on some
    /// errors), so the mails before it in the batch are undone too.
    Failed {
        /// Why.
        error: ServiceError,
        /// Whether the batch before it was lost with it.
        batch_lost: bool,
    },
}

impl MailBatch {
    /// Begins a batch.
    pub async fn begin(store: &Store) -> Result<MailBatch, StoreError> {
        Ok(MailBatch {
            tx: store.begin().await?,
        })
    }

    /// Commits the batch, with the mailbox's cursor moved to `cursor` when
    /// given (in the same transaction).
    pub async fn commit(
        mut self,
        mailbox: &str,
        cursor: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        if let Some(position) = cursor {
            self.tx.set_mailbox_cursor(mailbox, position, now).await?;
        }
        crate::service::crash_point("before-inbound-commit");
        self.tx.commit().await
    }
}

/// What the mailbox gave of a mail, for [`Inbox::check`].
#[allow(clippy::large_enum_variant)] // made and taken apart at once, one mail at a time
pub enum Content<'a> {
    /// The whole mail, and what [`inbound::parse`] made of it (the daemon
    /// reads it apart, within a time budget).
    Whole {
        /// The mail as delivered.
        raw: &'a [u8],
        /// What was read of it.
        read: Result<InboundMail, inbound::InboundError>,
    },
    /// A mail over the mailbox's size cap, not read: its header block.
    TooLarge {
        /// Its beginning (its header fields).
        head: &'a [u8],
        /// Its size in bytes.
        size: u64,
        /// The mailbox's cap.
        max: u64,
    },
}

/// A mail as far as [`Inbox::check`] got without the database, ready for
/// [`Inbox::handle`].
#[derive(Debug)]
pub struct CheckedMail {
    /// Where the mailbox has it (recorded with it).
    mailbox_ref: String,
    /// When it reached the mailbox.
    received_at: DateTime<Utc>,
    checked: Checked,
}

#[derive(Debug)]
enum Checked {
    /// A `dopis doctor` probe: dropped without a record or an answer.
    Probe,
    /// No usable sender: recorded (under a hash of the mail), never answered.
    Unreadable {
        key: String,
        error: inbound::InboundError,
    },
    /// Over the size cap: recorded as handled, its registered sender told
    /// (see `too_large`).
    TooLarge(Box<too_large::TooLarge>),
    /// A mail to act on.
    Read {
        /// The mail.
        mail: Box<InboundMail>,
        /// It carries our own X-Loop: one of our mails sent back.
        ours_back: bool,
        /// DKIM is required and the mail's signature did not pass.
        dkim_failed: bool,
    },
}

impl CheckedMail {
    /// The mail as far as it was read, so that its sender can be told
    /// when its handling fails.
    pub fn read(&self) -> Option<&InboundMail> {
        match &self.checked {
            Checked::Read { mail, .. } => Some(mail),
            Checked::TooLarge(large) => large.read.as_ref(),
            Checked::Probe | Checked::Unreadable { .. } => None,
        }
    }
}

impl Inbox {
    /// What can be known of a mail before the database is asked: whether it
    /// is a `dopis doctor` probe, could be read, and passed the DKIM check.
    /// Apart from [`Inbox::handle`] because the DKIM check may wait on DNS,
    /// which must not happen inside a transaction (the daemon handles
    /// several mails in one).
    pub async fn check(
        &self,
        mailbox_ref: &str,
        content: Content<'_>,
        received_at: DateTime<Utc>,
    ) -> CheckedMail {
        let checked = match content {
            Content::Whole { raw, read } => self.check_whole(raw, read).await,
            Content::TooLarge { head, size, max } => {
                Checked::TooLarge(Box::new(too_large::TooLarge::read(head, size, max).await))
            }
        };
        CheckedMail {
            mailbox_ref: mailbox_ref.to_owned(),
            received_at,
            checked,
        }
    }

    async fn check_whole(
        &self,
        raw: &[u8],
        read: Result<InboundMail, inbound::InboundError>,
    ) -> Checked {
        // A `dopis doctor` probe (its mark made with our secret) is dropped
        // without a record or an answer: the doctor removes it itself. A
        // mark that does not verify changes nothing, so nobody can make a
        // mail vanish by adding the header.
        if let Some(mark) = crate::adapter::mail::probe::mark_in(raw)
            && self.post.tokens.is_probe_mark(&mark)
        {
            return Checked::Probe;
        }
        let mail = match read {
            Ok(mail) => mail,
            Err(error) => {
                return Checked::Unreadable {
                    key: format!("sha256:{}", sha256_hex(raw, 32)),
                    error,
                };
            }
        };
        // One of our own mails sent back by a machine (it copied our X-Loop):
        // dropped before anything else, never answered.
        let ours_back = mail.carries_loop_of(&self.post.ours);
        let dkim_failed = self.post.require_dkim
            && !ours_back
            && mail.automatic.is_none()
            && !crate::service::dkim::aligned_pass(raw, mail.from.domain(), &self.post.dns_servers)
                .await;
        Checked::Read {
            mail: Box::new(mail),
            ours_back,
            dkim_failed,
        }
    }

    /// Whether [`Inbox::check`] of this mail may wait on DNS (a DKIM check).
    pub fn check_may_wait(&self) -> bool {
        self.post.require_dkim
    }

    /// Handles a checked mail in `batch`, after a savepoint of its own:
    /// the one way into the inbox, for every mail (the daemon's, a mail
    /// handled alone as a batch of one). `store` is only read, for the
    /// deadline report a TD asks for. An error is an outage: the batch is
    /// to be dropped.
    pub async fn handle(
        &self,
        store: &Store,
        batch: &mut MailBatch,
        mail: CheckedMail,
        now: DateTime<Utc>,
    ) -> Result<InBatch, ServiceError> {
        let tx = &mut batch.tx;
        tx.begin_item().await?;
        match self.handle_in(store, tx, mail, now).await {
            Ok(handled) => {
                tx.keep_item().await?;
                Ok(InBatch::Handled(handled))
            }
            Err(e) if e.is_outage() => Err(e),
            Err(error) => {
                let batch_lost = match tx.roll_back_item().await {
                    Ok(()) => false,
                    Err(undo) => {
                        tracing::warn!(error = %undo, "a failed mail undid its whole batch");
                        true
                    }
                };
                Ok(InBatch::Failed { error, batch_lost })
            }
        }
    }

    /// Handles a checked mail inside `tx`.
    async fn handle_in(
        &self,
        store: &Store,
        tx: &mut Tx,
        checked: CheckedMail,
        now: DateTime<Utc>,
    ) -> Result<Handled, ServiceError> {
        let CheckedMail {
            mailbox_ref,
            received_at,
            checked,
        } = checked;
        let mailbox_ref = mailbox_ref.as_str();
        let (mail, ours_back, dkim_failed) = match checked {
            Checked::Probe => return Ok(Handled::Ignored(Ignored::Probe)),
            Checked::Unreadable { key, error } => {
                // No usable sender: nobody to answer. Record it so it is not read again.
                let record = InboundRecord {
                    mail_key: &key,
                    mailbox_ref,
                    received_at,
                    sender: None,
                };
                if !tx.record_inbound(&record, now).await? {
                    return Ok(Handled::Duplicate);
                }
                let outcome = Handled::Ignored(Ignored::Unreadable(error.to_string()));
                tx.inbound_outcome(&key, None, &outcome.to_string()).await?;
                return Ok(outcome);
            }
            Checked::TooLarge(large) => {
                return self
                    .refuse_too_large(tx, *large, mailbox_ref, received_at, now)
                    .await;
            }
            Checked::Read {
                mail,
                ours_back,
                dkim_failed,
            } => (mail, ours_back, dkim_failed),
        };
        let key = mail.idempotency_key.to_string();
        let span = tracing::Span::current();
        span.record("key", key.as_str());
        span.record("player", mail.from.as_str());
        let record = InboundRecord {
            mail_key: &key,
            mailbox_ref,
            received_at,
            sender: Some(mail.from.as_str()),
        };
        if !tx.record_inbound(&record, now).await? {
            return Ok(Handled::Duplicate);
        }
        let answering = Answering {
            mail_key: &key,
            message_id: mail.message_id.as_ref(),
        };
        let (game, outcome) = if ours_back {
            (None, Handled::Ignored(Ignored::OurLoop))
        } else if let Some(auto) = &mail.automatic {
            // RFC 3834: never answer bounces, auto-replies or list mail; a
            // bounce is counted against the address it names.
            if auto.kind == inbound::AutomaticKind::Bounce {
                let done = super::bounces::record(&self.post, tx, &mail, received_at, now).await?;
                (None, done)
            } else {
                (None, Handled::Ignored(Ignored::Automatic(auto.clone())))
            }
        } else {
            // Whom it is from, read once for every way below.
            let sender = tx.player_by_email(mail.from.as_str()).await?;
            let mut words = Words::of(&mail.text);
            if dkim_failed {
                self.refuse_unsigned(tx, &mail, sender, &answering, now)
                    .await?
            } else if let Some(done) = director::answer_director(
                self,
                store,
                tx,
                &mail,
                sender.as_ref(),
                &mut words,
                &answering,
                now,
            )
            .await?
            {
                // A TD's `report`, or a mail to a report address.
                (None, done)
            } else {
                let mail = Arrived {
                    mail: &mail,
                    sender,
                    answering: &answering,
                    received_at,
                };
                Box::pin(self.act(tx, mail, &mut words, now)).await?
            }
        };
        if let Some(game) = game {
            span.record("game", game.0);
        }
        tx.inbound_outcome(&key, game, &outcome.to_string()).await?;
        Ok(outcome)
    }

    async fn act(
        &self,
        tx: &mut Tx,
        arrived: Arrived<'_>,
        words: &mut Words<'_>,
        now: DateTime<Utc>,
    ) -> Result<(Option<GameId>, Handled), ServiceError> {
        let Arrived {
            mail,
            sender,
            answering,
            received_at,
        } = arrived;
        let route = self.route(tx, mail, sender, words).await?;
        // A mail that authenticates shows the address works: a player paused
        // for bounces gets their held mail from now on.
        if let Route::Act { player, .. }
        | Route::Confirm { player, .. }
        | Route::Digest { player } = &route
        {
            super::bounces::resume_on_mail(tx, player, now).await?;
        }
        // Entries are about events, not games: heard first, from players
        // and (where an event is open to anyone) from addresses that are none.
        let entering = match &route {
            Route::Act { player, .. }
            | Route::NoGame { player }
            | Route::NeedsConfirmation { player, .. } => Some(Some(player)),
            Route::Refuse {
                why: Reason::UnknownSender { .. },
                ..
            } => Some(None),
            _ => None,
        };
        // A half-point bye in a Swiss event is about an event too: heard
        // from a registered player however the mail is addressed, granted
        // only from a reply to one of our mails (see `hear_byes`). That
        // reply is to a game's mail, and may carry more for the game (a
        // draw offer beside the bye, a message to the opponent below it):
        // then the game goes on with it (the arbiter passes over the bye),
        // so that nothing the player wrote is lost.
        if let Some(Some(player)) = entering
            && let Some(done) = self
                .hear_byes(
                    tx,
                    mail,
                    player,
                    matches!(route, Route::Act { .. }),
                    words,
                    answering,
                    now,
                )
                .await?
            && !(matches!(route, Route::Act { .. })
                && words
                    .in_lang(player.lang)
                    .iter()
                    .any(|c| !matches!(c, Command::SwissBye { .. } | Command::Unknown { .. })))
        {
            return Ok((None, done));
        }
        let in_game = !matches!(route, Route::NoGame { .. } | Route::Refuse { .. });
        if let Some(sender) = entering
            && let Some(done) = self
                .hear_entries(tx, mail, sender, in_game, words, answering, now)
                .await?
        {
            return Ok((None, done));
        }
        match route {
            Route::EntryReply { id, token } => {
                let done = self
                    .entry_reply(tx, mail, id, &token, answering, now)
                    .await?;
                Ok((None, done))
            }
            Route::Digest { player } => {
                self.digest_reply(tx, mail, &player, answering, received_at, now)
                    .await
            }
            Route::Act { table, player } => {
                let game = table.record.id;
                if let Some(done) = self
                    .repeated(tx, mail, &table, &player, answering, now)
                    .await?
                {
                    return Ok((Some(game), done));
                }
                let commands = words.in_lang(player.lang).to_vec();
                let written = Written {
                    text: &mail.text,
                    commands: &commands,
                    answered: crate::adapter::mail::stale::answered_ply(
                        game.0,
                        &mail.in_reply_to,
                        &mail.references,
                    ),
                    received_at,
                };
                if let Some(done) = self
                    .ask_if_stale(tx, &table, &player, &written, answering, now)
                    .await?
                {
                    return Ok((Some(game), done));
                }
                let done = self
                    .apply(
                        tx,
                        *table,
                        &player,
                        &commands,
                        answering,
                        (received_at, received_at),
                        now,
                    )
                    .await?;
                Ok((Some(game), done))
            }
            Route::Confirm { id, player } => {
                let Some(confirmation) = tx.confirmation(id).await? else {
                    return Ok((None, Handled::Ignored(Ignored::UnknownConfirmation)));
                };
                if confirmation.used {
                    return Ok((
                        Some(confirmation.game_id),
                        Handled::Ignored(Ignored::ConfirmationUsed),
                    ));
                }
                tx.use_confirmation(id, now).await?;
                let game = confirmation.game_id;
                let table = loaded_game::load_table_with(tx, game, Some(&player)).await?;
                // Asked about one position: if the game has moved on since,
                // asked again about the board as it is now.
                let commands = command::parse(&confirmation.text, player.lang).commands;
                let written = Written {
                    text: &confirmation.text,
                    commands: &commands,
                    answered: tx.confirmation_ply(id).await?,
                    received_at,
                };
                if let Some(done) = self
                    .ask_if_stale(tx, &table, &player, &written, answering, now)
                    .await?
                {
                    return Ok((Some(game), done));
                }
                // Leave is judged when the confirming reply arrived, not the
                // first mail: only then is the request known to be the
                // player's, and judging it earlier would let a player wait
                // and book, by confirming or not, days already past. The
                // move counts from when the original mail arrived.
                let done = self
                    .apply(
                        tx,
                        table,
                        &player,
                        &commands,
                        answering,
                        (received_at, confirmation.received_at),
                        now,
                    )
                    .await?;
                Ok((Some(game), done))
            }
            Route::NeedsConfirmation { table, player } => {
                let game = table.record.id;
                if !self
                    .post
                    .may_answer(tx, &player.email.to_string(), now)
                    .await?
                {
                    return Ok((
                        Some(game),
                        Handled::Ignored(Ignored::OverAnswerLimit(Limited::Answer)),
                    ));
                }
                let id = tx
                    .add_confirmation(game, player.id, &mail.text, received_at, now)
                    .await?;
                // The position asked about: a confirmation after the game
                // moved on is asked again (see `stale`).
                let ply = u32::try_from(table.game.plies().len()).unwrap_or(u32::MAX);
                tx.set_confirmation_ply(id, ply).await?;
                let command = command::describe(words.in_lang(player.lang), player.lang);
                self.post
                    .queue(
                        tx,
                        Outgoing::new(
                            answering.key("confirm"),
                            LetterKind::ConfirmRequest { command },
                            &player,
                        )
                        .about(&table, table.record.side_of(player.id))
                        .answering(answering)
                        .reply_to(self.post.confirmation_address(id)),
                        now,
                    )
                    .await?;
                Ok((
                    Some(game),
                    Handled::Done(Done::AskedToConfirm {
                        to: player.email.to_string(),
                        stale: None,
                    }),
                ))
            }
            Route::NoGame { player } => {
                if !self
                    .post
                    .may_answer(tx, &player.email.to_string(), now)
                    .await?
                {
                    return Ok((
                        None,
                        Handled::Ignored(Ignored::OverAnswerLimit(Limited::Answer)),
                    ));
                }
                let commands = words.in_lang(player.lang).to_vec();
                let games = tx.active_games_of(player.id).await?;
                let events = if commands.iter().any(|c| matches!(c, Command::Standings)) {
                    tx.events_of_player(player.id).await?
                } else {
                    Vec::new()
                };
                let writer = self.writer(&player, Vec::new(), received_at);
                let place = Place::NoGame {
                    games,
                    events,
                    first_line: first_line(&mail.text),
                };
                let ruling = arbiter::hear(&writer, place, &commands);
                let done = self
                    .carry_out(tx, ruling, &player, None, answering, now)
                    .await?;
                Ok((None, done))
            }
            Route::Refuse {
                player,
                game,
                why,
                log,
            } => {
                let Some(player) = player else {
                    return Ok((game, Handled::Ignored(Ignored::NobodyToTell { why, log })));
                };
                let done = Done::Refused(Refused::Route {
                    why: why.clone(),
                    log,
                });
                let handled = self
                    .tell_refused(tx, &player, "refused", why, done, answering, now)
                    .await?;
                Ok((game, handled))
            }
        }
    }

    /// Refuses a mail without an aligned DKIM pass (when required): told
    /// to the registered address, nothing else for strangers.
    async fn refuse_unsigned(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        sender: Option<Player>,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<(Option<GameId>, Handled), ServiceError> {
        let why = Reason::Unsigned {
            from: mail.from.to_string(),
        };
        let Some(player) = sender else {
            return Ok((
                None,
                Handled::Ignored(Ignored::Unsigned {
                    from: mail.from.to_string(),
                }),
            ));
        };
        let done = Done::Refused(Refused::Unsigned);
        let handled = self
            .tell_refused(tx, &player, "dkim", why, done, answering, now)
            .await?;
        Ok((None, handled))
    }

    /// Tells `player` why their mail was refused (an answer keyed `what`,
    /// within the hourly answer limit): `done` once told.
    #[allow(clippy::too_many_arguments)]
    async fn tell_refused(
        &self,
        tx: &mut Tx,
        player: &Player,
        what: &str,
        why: Reason,
        done: Done,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Handled, ServiceError> {
        let answer = Outgoing::new(
            answering.key(what),
            LetterKind::Refused { reason: why },
            player,
        )
        .answering(answering);
        if !self.post.answer(tx, answer, now).await? {
            return Ok(Handled::Ignored(Ignored::OverAnswerLimit(Limited::Answer)));
        }
        Ok(Handled::Done(done))
    }

    /// Tells the registered sender of a mail that could not be handled (and
    /// was kept for the admin) that nothing changed and to send it again.
    /// Nobody else is answered: not strangers, not machines.
    pub async fn tell_not_handled(
        &self,
        store: &Store,
        mail: &InboundMail,
        failure_key: &str,
        cause: NotHandledCause,
        now: DateTime<Utc>,
    ) -> Result<bool, ServiceError> {
        let mut tx = store.begin().await?;
        let told = self
            .tell_not_handled_in(&mut tx, mail, failure_key, cause, now)
            .await?;
        if told {
            tx.commit().await?;
        }
        Ok(told)
    }

    /// The same, within a transaction.
    async fn tell_not_handled_in(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        failure_key: &str,
        cause: NotHandledCause,
        now: DateTime<Utc>,
    ) -> Result<bool, ServiceError> {
        if mail.automatic.is_some() {
            return Ok(false);
        }
        let Some(player) = tx.player_by_email(mail.from.as_str()).await? else {
            return Ok(false);
        };
        let answering = Answering {
            mail_key: failure_key,
            message_id: mail.message_id.as_ref(),
        };
        let kind = LetterKind::NotHandled {
            subject: mail.subject.clone(),
            cause,
        };
        let answer = Outgoing::new(answer_key(failure_key, "not-handled"), kind, &player);
        self.post
            .answer(tx, answer.answering(&answering), now)
            .await
    }

    /// Works out whom a mail is from and what it may do.
    async fn route(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        sender: Option<Player>,
        words: &mut Words<'_>,
    ) -> Result<Route, StoreError> {
        let tags: Vec<ReplyTag> = mail
            .recipients
            .iter()
            .filter_map(|a| self.post.replies.read(a))
            .collect();
        // A reply to a confirmation.
        if let Some((id, token)) = tags.iter().find_map(|t| match t {
            ReplyTag::Confirmation { id, token } => Some((*id, token)),
            _ => None,
        }) {
            let valid = self.post.tokens.confirmation(id).matches(token);
            let owner = match tx.confirmation(id).await? {
                Some(c) => Some(tx.player(c.player_id).await?),
                None => None,
            };
            return Ok(match (valid, owner, sender) {
                (true, Some(owner), Some(sender)) if owner.id == sender.id => {
                    Route::Confirm { id, player: sender }
                }
                (_, owner, _) => Route::Refuse {
                    player: owner,
                    game: None,
                    why: Reason::ConfirmationNotYours {
                        from: mail.from.to_string(),
                    },
                    log: format!("a confirmation reply from {}, not its owner", mail.from),
                },
            });
        }
        // An entry's reply address: the entry's own address is checked
        // there, as it may not be a player's yet.
        if let Some((id, token)) = tags.iter().find_map(|t| match t {
            ReplyTag::Entry { id, token } => Some((*id, token.clone())),
            _ => None,
        }) {
            return Ok(Route::EntryReply { id, token });
        }
        // A daily digest's reply address.
        if let Some((owner, token)) = tags.iter().find_map(|t| match t {
            ReplyTag::Digest { player, token } => Some((*player, token)),
            _ => None,
        }) {
            let valid = self.post.tokens.digest(owner).matches(token);
            return Ok(match sender {
                Some(sender) if valid && sender.id.0 == owner => Route::Digest { player: sender },
                _ if valid => Route::Refuse {
                    player: Some(tx.player(crate::domain::player::PlayerId(owner)).await?),
                    game: None,
                    why: Reason::DigestNotYourAddress {
                        from: mail.from.to_string(),
                    },
                    log: format!("a digest reply from {}, not its owner", mail.from),
                },
                sender => Route::Refuse {
                    player: sender,
                    game: None,
                    why: Reason::DigestWrongToken,
                    log: "a digest address with a wrong token".into(),
                },
            });
        }
        // A game's reply address.
        if let Some((game, token)) = tags.iter().find_map(|t| match t {
            ReplyTag::Game { game, token } => Some((GameId(*game), token)),
            _ => None,
        }) {
            // The game is loaded here, once for the whole mail: the token's
            // owner, the stale check, the arbiter and the post all read it.
            let table = match loaded_game::load_table_with(tx, game, sender.as_ref()).await {
                Ok(table) => table,
                Err(StoreError::UnknownGame(_)) => {
                    return Ok(Route::Refuse {
                        player: sender,
                        game: None,
                        why: Reason::NoSuchGame { game },
                        log: format!("there is no game {game}"),
                    });
                }
                Err(e) => return Err(e),
            };
            // Whose token is it? A consultation game's members each have
            // their own (a move of theirs is a vote).
            let players: Vec<_> = if table.members.0.is_empty() {
                vec![table.record.white, table.record.black]
            } else {
                table.members.0.iter().map(|(m, _)| m.player).collect()
            };
            let owner = players
                .iter()
                .copied()
                .find(|p| self.post.tokens.player(game.0, p.0).matches(token));
            return Ok(match (owner, sender) {
                (Some(owner), Some(sender)) if owner == sender.id => Route::Act {
                    table: Box::new(table),
                    player: sender,
                },
                (Some(owner), _) => Route::Refuse {
                    player: Some(tx.player(owner).await?),
                    game: Some(game),
                    why: Reason::NotYourAddress {
                        game,
                        from: mail.from.to_string(),
                    },
                    log: format!(
                        "a mail for game {game} with a player's reply address from {}",
                        mail.from
                    ),
                },
                (None, Some(sender)) if players.contains(&sender.id) => Route::Refuse {
                    player: Some(sender),
                    game: Some(game),
                    why: Reason::WrongToken { game },
                    log: format!("a mail for game {game} with a wrong token"),
                },
                (None, sender) => Route::Refuse {
                    player: sender,
                    game: Some(game),
                    why: Reason::NotYourGame { game },
                    log: format!("not a player of game {game}"),
                },
            });
        }
        // No token: a game named in the subject or the thread, from a player's address.
        let Some(player) = sender else {
            return Ok(Route::Refuse {
                player: None,
                game: None,
                why: Reason::UnknownSender {
                    from: mail.from.to_string(),
                },
                log: format!("unknown sender {}", mail.from),
            });
        };
        let named = route::game_in_subject(&mail.subject).or_else(|| {
            mail.in_reply_to
                .iter()
                .chain(mail.references.iter())
                .find_map(|id| route::game_in_message_id(id.as_str()))
        });
        if let Some(game) = named
            && let Ok(table) = loaded_game::load_table_with(tx, GameId(game), Some(&player)).await
            && table.record.side_of(player.id).is_some()
        {
            return Ok(Route::NeedsConfirmation {
                table: Box::new(table),
                player,
            });
        }
        // A single game in progress: that is the one.
        let games = tx.active_games_of(player.id).await?;
        let is_move = words
            .in_lang(player.lang)
            .iter()
            .any(|c| matches!(c, command::Command::Move { .. }));
        if is_move && let [game] = games[..] {
            let table = loaded_game::load_table_with(tx, game, Some(&player)).await?;
            return Ok(Route::NeedsConfirmation {
                table: Box::new(table),
                player,
            });
        }
        Ok(Route::NoGame { player })
    }

    /// Hears a mail's commands in its game, as loaded — one call into the
    /// arbiter — and carries out the ruling. Leave is judged at `asked_at`,
    /// moves count from `played_at`.
    #[allow(clippy::too_many_arguments)]
    async fn apply(
        &self,
        tx: &mut Tx,
        table: LoadedGame,
        player: &Player,
        commands: &[Command],
        answering: &Answering<'_>,
        times: (DateTime<Utc>, DateTime<Utc>),
        now: DateTime<Utc>,
    ) -> Result<Handled, ServiceError> {
        // A consultation member's move is a vote (the captain's too).
        if let Some(done) =
            Box::pin(self.hear_vote(tx, &table, player, commands, answering, times, now)).await?
        {
            return Ok(done);
        }
        let Some((ruling, current)) = self.hear_game(tx, table, player, commands, times).await?
        else {
            return Ok(Handled::Ignored(Ignored::NotAPlayer));
        };
        Box::pin(self.carry_out(tx, ruling, player, Some(current), answering, now)).await
    }

    /// Hears commands of `player` in the loaded game (its row locked for
    /// the transaction) — one call into the arbiter — without carrying
    /// anything out: the ruling and the game, for [`Inbox::carry_out`].
    /// `None` when the player does not play in the game. A mail and an
    /// XFCC request (`service::xfcc`) both come this way, so they are
    /// judged by the same rules. Leave is judged at `asked_at`, moves count
    /// from `played_at`.
    pub(crate) async fn hear_game(
        &self,
        tx: &mut Tx,
        current: LoadedGame,
        player: &Player,
        commands: &[Command],
        (asked_at, played_at): (DateTime<Utc>, DateTime<Utc>),
    ) -> Result<Option<(Ruling, LoadedGame)>, StoreError> {
        let Some(side) = current.record.side_of(player.id) else {
            return Ok(None);
        };
        self.hear_as(tx, current, player, side, commands, (asked_at, played_at))
            .await
            .map(Some)
    }

    /// Hears `player`'s commands as the player of `side` in the loaded
    /// game: a consultation member's vote is judged as a move of their
    /// side, in the member's own language (see `service::consultation`).
    pub(crate) async fn hear_as(
        &self,
        tx: &mut Tx,
        current: LoadedGame,
        player: &Player,
        side: shakmaty::Color,
        commands: &[Command],
        (asked_at, played_at): (DateTime<Utc>, DateTime<Utc>),
    ) -> Result<(Ruling, LoadedGame), StoreError> {
        let game = current.record.id;
        let leaves = if commands.iter().any(|c| matches!(c, Command::Leave { .. })) {
            tx.leaves_of(player.id)
                .await?
                .into_iter()
                .map(|l| l.leave)
                .collect()
        } else {
            Vec::new()
        };
        let writer = self.writer(player, leaves, asked_at);
        let flagged = if current.record.status == GameStatus::Active {
            current
                .clock
                .as_ref()
                .and_then(|c| c.clocks(played_at).timeout())
        } else {
            None
        };
        let board = self.board(&current);
        let event = current.record.event;
        let place = Place::Game {
            id: game,
            board: &board,
            side,
            at: played_at,
            flagged,
            annulled: crate::service::td::is_annulled(&current.record, board.game.is_over()),
            event,
        };
        let ruling = arbiter::hear(&writer, place, commands);
        Ok((ruling, current))
    }

    /// What the arbiter needs to know of a player.
    fn writer(&self, player: &Player, leaves: Vec<Leave>, asked_at: DateTime<Utc>) -> Writer {
        Writer {
            lang: player.lang,
            tz: player.tz,
            leaves,
            allowance: self.allowance,
            asked_at,
        }
    }

    /// Carries out a ruling's steps in order: the store writes and the mails
    /// they cause. `current` is the game the mail is for, as loaded.
    pub(crate) async fn carry_out(
        &self,
        tx: &mut Tx,
        ruling: Ruling,
        player: &Player,
        mut current: Option<LoadedGame>,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Handled, ServiceError> {
        let mut player = player.clone();
        let mut ruled = Ruled::default();
        for step in ruling.steps {
            match step {
                Step::BookLeave { leave, left } => {
                    ruled.leave_booked.push((leave.from(), leave.to()));
                    clocks::store_leave(tx, &player, leave, player.email.as_str(), None, now)
                        .await?;
                    // The game's clocks and deadlines now know the leave.
                    if let Some(table) = &current {
                        current = Some(loaded_game::load_table(tx, table.record.id).await?);
                    }
                    let kind = LetterKind::LeaveBooked {
                        from: leave.from().to_string(),
                        to: leave.to().to_string(),
                        days: leave.days(),
                        left,
                    };
                    let key = answering.key(&format!("leave.{}", leave.from()));
                    self.post
                        .answer(
                            tx,
                            Outgoing::new(key, kind, &player).answering(answering),
                            now,
                        )
                        .await?;
                }
                Step::RefuseLeave { from, to, reason } => {
                    ruled.leave_refused.push((from, to));
                    let kind = LetterKind::LeaveRefused {
                        wrote: format!("leave {from} {to}"),
                        reason: Reason::Leave(reason),
                    };
                    let key = answering.key(&format!("leave.{from}"));
                    self.post
                        .answer(
                            tx,
                            Outgoing::new(key, kind, &player).answering(answering),
                            now,
                        )
                        .await?;
                }
                Step::Settings { lang, digest } => {
                    (ruled.lang, ruled.digest) = (lang, digest);
                    self.settings(tx, &mut player, lang, digest, answering, now)
                        .await?;
                    // The game's mails are written in the language chosen.
                    if let Some(table) = &mut current {
                        for p in [&mut table.white, &mut table.black] {
                            if p.id == player.id {
                                p.lang = player.lang;
                            }
                        }
                    }
                }
                Step::Standings(asked) => {
                    let events = match asked {
                        StandingsAsked::OfEvents(events) => events
                            .into_iter()
                            .map(|e| (answering.key(&format!("standings.e{}", e.0)), Ok(e)))
                            .collect(),
                        StandingsAsked::OfGame(event) => {
                            vec![(answering.key("standings"), Ok(event))]
                        }
                        StandingsAsked::NotInEvent(game) => {
                            vec![(answering.key("standings"), Err(game))]
                        }
                    };
                    // In a game the rest of the mail waits on this answer;
                    // without one the limit was checked on the way in.
                    if current.is_some()
                        && !self
                            .post
                            .may_answer(tx, &player.email.to_string(), now)
                            .await?
                    {
                        return Ok(Handled::Ignored(Ignored::OverAnswerLimit(Limited::Answer)));
                    }
                    for (key, event) in events {
                        match event {
                            Ok(event) => {
                                let kind = standings_kind(tx, event).await?;
                                let mail = crate::service::post::Outgoing::new(key, kind, &player)
                                    .answering(answering);
                                self.post.queue_about_event(tx, mail, event, now).await?;
                            }
                            Err(game) => {
                                let kind = LetterKind::Rejected {
                                    wrote: "standings".into(),
                                    reason: Reason::NotInEvent { game },
                                    kind: RejectionKind::Other,
                                };
                                let answer = Outgoing::new(key, kind, &player).answering(answering);
                                self.post.answer(tx, answer, now).await?;
                            }
                        }
                    }
                }
                Step::XfccPassword => {
                    if current.is_some()
                        && !self
                            .post
                            .may_answer(tx, &player.email.to_string(), now)
                            .await?
                    {
                        return Ok(Handled::Ignored(Ignored::OverAnswerLimit(Limited::Answer)));
                    }
                    let password = super::credentials::set_new_password(tx, &player).await?;
                    // To the registered address only (`answer` writes to
                    // the player as registered, never to a From).
                    let kind = LetterKind::XfccPassword {
                        username: player.email.to_string(),
                        password,
                    };
                    let answer = Outgoing::new(answering.key("xfcc"), kind, &player);
                    self.post
                        .answer(tx, answer.answering(answering), now)
                        .await?;
                }
                Step::EndOnTime { side, at } => {
                    ruled.out_of_time = Some(side);
                    let Some(mut table) = current.take() else {
                        continue;
                    };
                    clocks::end_on_time(tx, &self.post, &mut table, side, at, now).await?;
                    schedule::reschedule_after_move(tx, &table, &self.plan, now).await?;
                }
                Step::Play(verdict) => {
                    let Some(table) = current.take() else {
                        continue;
                    };
                    let before = table.game.plies().len();
                    ruled.played = verdict
                        .game
                        .plies()
                        .iter()
                        .skip(before)
                        .map(|p| p.san.clone())
                        .collect();
                    ruled.rejected = verdict
                        .notices
                        .iter()
                        .any(|n| matches!(n, Notice::Rejected { .. }));
                    if let Some(ignored) =
                        Box::pin(self.play(tx, table, *verdict, &player, answering, now)).await?
                    {
                        return Ok(ignored);
                    }
                }
                Step::Answer(answer) => {
                    let kind = match answer {
                        Answer::Games(games) => LetterKind::Games {
                            games: post::game_list(tx, &games, &player, now).await?,
                        },
                        Answer::LeaveNeedsGame { from, to } => LetterKind::LeaveRefused {
                            wrote: command::describe(&[Command::Leave { from, to }], player.lang),
                            reason: Reason::LeaveNeedsGame,
                        },
                        // No game: compose takes the examples from the start
                        // position, in the player's piece letters.
                        Answer::Help => LetterKind::Help {
                            examples: Vec::new(),
                        },
                        Answer::Rejected {
                            wrote,
                            reason,
                            kind,
                        } => LetterKind::Rejected {
                            wrote,
                            reason,
                            kind,
                        },
                    };
                    let answer = Outgoing::new(answering.key("nogame"), kind, &player);
                    self.post
                        .answer(tx, answer.answering(answering), now)
                        .await?;
                }
            }
        }
        ruled.summary = ruling.summary;
        Ok(Handled::Done(Done::Ruled(ruled)))
    }

    /// Carries out the arbiter's verdict on a game: saves it and queues the
    /// mails its notices ask for. `Some` when held back by the rate limit.
    async fn play(
        &self,
        tx: &mut Tx,
        current: LoadedGame,
        verdict: arbiter::Verdict,
        player: &Player,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Handled>, ServiceError> {
        let rejected = verdict
            .notices
            .iter()
            .any(|n| matches!(n, Notice::Rejected { .. }));
        // A message alone is answered (it was passed on, or why not): it
        // counts against the sender's answers, which also bounds how many
        // mails one player can make the server send their opponent.
        let message_alone = !verdict.changed
            && verdict
                .notices
                .iter()
                .any(|n| matches!(n, Notice::Message { .. } | Notice::MessageHeld { .. }));
        if (rejected || message_alone)
            && !self
                .post
                .may_answer(tx, &player.email.to_string(), now)
                .await?
        {
            return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::Answer,
            ))));
        }
        let record = current.record.clone();
        let mut table = if verdict.changed {
            let saved = tx
                .save_game(
                    &record,
                    &verdict.game,
                    verdict.draw_offer_by,
                    &verdict.conditionals,
                    verdict.last_offers,
                    now,
                )
                .await?;
            // The clock with the new move, from the record as saved.
            loaded_game::after_move(tx, current, saved).await?
        } else {
            current
        };
        table.game = verdict.game;
        table.draw_offer_by = verdict.draw_offer_by;
        if table.game.is_over() && table.record.status == GameStatus::Active {
            table.record.status = GameStatus::Finished;
            table.record.finished_at = Some(now);
        }
        if verdict.changed {
            schedule::reschedule_after_move(tx, &table, &self.plan, now).await?;
        }
        for notice in &verdict.notices {
            if let Notice::Message { to, message, ply } = notice {
                let kept = GameMessage {
                    ply: *ply,
                    side: !*to,
                    body: message.as_str().to_string(),
                };
                tx.add_game_message(record.id, &kept, answering.mail_key, now)
                    .await?;
                table.messages.push(kept);
            }
        }
        // Boxed, as the other deep steps of a mail: the mails of a game's
        // end nest deep, and a future holding them inline would be too
        // large for a thread's stack (as the daemon's and a test's are).
        Box::pin(
            self.post
                .notices(tx, &table, &verdict.notices, answering, now),
        )
        .await?;
        if verdict.changed && table.game.is_over() {
            Box::pin(crate::service::td::finals::mail_final_standings(
                tx, &self.post, record.id, now,
            ))
            .await?;
        }
        Ok(None)
    }

    /// Stores a player's language and notification choice and answers each
    /// (in the new language); `player` becomes the player as they now are.
    async fn settings(
        &self,
        tx: &mut Tx,
        player: &mut Player,
        chosen: Option<Lang>,
        notify: Option<bool>,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        if let Some(lang) = chosen {
            player.lang = lang;
            tx.set_player_lang(player.id, lang).await?;
        }
        if let Some(digest) = notify {
            tx.set_player_digest(player.id, digest).await?;
        }
        // The changes stand even when an answer is held back by the rate limit.
        let answers = [
            chosen.map(|_| ("lang", LetterKind::LanguageChanged)),
            notify.map(|digest| {
                let zone = player
                    .tz
                    .map_or_else(|| "UTC".to_owned(), |tz| tz.name().to_owned());
                let at = format!("{:02}:00 ({zone})", clocks::DIGEST_HOUR);
                ("notify", LetterKind::NotifyChanged { digest, at })
            }),
        ];
        for (what, kind) in answers.into_iter().flatten() {
            let answer = Outgoing::new(answering.key(what), kind, player).answering(answering);
            self.post.answer(tx, answer, now).await?;
        }
        Ok(())
    }
}

/// Where the daemon's reading of mailbox `mailbox` got to: the last mail
/// done with (handled or quarantined), as the mailbox names it.
pub async fn mailbox_cursor(store: &Store, mailbox: &str) -> Result<Option<String>, StoreError> {
    store.mailbox_cursor(mailbox).await
}

/// The standings letter of an event (see `ServiceError`'s `From<TdError>`:
/// a stored event that cannot be read back is corrupt).
async fn standings_kind(
    tx: &mut Tx,
    event: crate::domain::ids::EventId,
) -> Result<LetterKind, ServiceError> {
    Ok(crate::service::td::standings_letter(tx, event).await?)
}

fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .chars()
        .take(80)
        .collect()
}
