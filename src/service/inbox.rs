//! Handling one inbound mail: read it, decide whom it is from and which
//! game it is for, check that it may act, apply it, and record the result
//! with the mails it causes — all in one transaction, keyed by the mail's
//! Message-ID so that it acts at most once.

mod digest;
mod director;
mod stale;
mod too_large;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use self::stale::Written;
use super::clocks;
use super::post::{Answering, Outgoing, Post};
use crate::arbiter::{self, Notice, RejectionKind, Seat};
use crate::clock::{Allowance, Leave};
use crate::command;
use crate::ids::GameId;
use crate::mail::compose::{LetterKind, NotHandledCause};
use crate::mail::inbound::{self, InboundMail};
use crate::mail::key::sha256_hex;
use crate::mail::route::{self, PlusTag};
use crate::player::Player;
use crate::store::Tx;
use crate::store::games::GameStatus;
use crate::store::inbound::InboundRecord;
use crate::store::{Store, StoreError};

pub use super::Handled;

/// Settings for handling mail.
#[derive(Debug, Clone)]
pub struct Inbox {
    /// Addresses and tokens.
    pub post: Post,
    /// Answers per hour to one address.
    pub answers_per_hour: u32,
    /// Regular leave days per player and calendar year.
    pub allowance: Allowance,
}

impl Inbox {
    /// Inbound handling with the daemon's settings.
    pub fn new(post: Post, settings: &crate::app::Settings) -> Inbox {
        Inbox {
            post,
            answers_per_hour: settings.answers_per_hour,
            allowance: settings.allowance,
        }
    }
}

/// Whom a mail is from and what it is for.
enum Route {
    /// The player may act in the game.
    Act { game: GameId, player: Player },
    /// A reply to a confirmation: apply the stored command.
    Confirm { id: i64, player: Player },
    /// A reply to the player's daily digest: one line per game.
    Digest { player: Player },
    /// The player wrote from their address but without the token.
    NeedsConfirmation { game: GameId, player: Player },
    /// A registered player wrote without naming a game.
    NoGame { player: Player },
    /// Refuse; tell the registered address (if any) why.
    Refuse {
        player: Option<Player>,
        game: Option<GameId>,
        why: String,
    },
}

impl Inbox {
    /// Handles one mail that reached the mailbox at `received_at`.
    pub async fn handle(
        &self,
        store: &Store,
        mailbox_ref: &str,
        raw: &[u8],
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Handled, StoreError> {
        self.handle_read(
            store,
            mailbox_ref,
            raw,
            inbound::parse(raw),
            received_at,
            now,
        )
        .await
    }

    /// Handles one mail already read (the daemon reads mail apart, within a
    /// time budget): `read` is what [`inbound::parse`] made of `raw`.
    pub async fn handle_read(
        &self,
        store: &Store,
        mailbox_ref: &str,
        raw: &[u8],
        read: Result<InboundMail, inbound::InboundError>,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Handled, StoreError> {
        let mail = match read {
            Ok(mail) => mail,
            Err(e) => {
                // No usable sender: nobody to answer. Record it so it is not read again.
                let key = format!("sha256:{}", sha256_hex(raw, 32));
                let mut tx = store.begin().await?;
                let record = InboundRecord {
                    mail_key: &key,
                    mailbox_ref,
                    received_at,
                    sender: None,
                };
                if !tx.record_inbound(&record, now).await? {
                    return Ok(Handled::Duplicate);
                }
                let why = format!("ignored: unreadable mail ({e})");
                tx.inbound_outcome(&key, None, &why).await?;
                tx.commit().await?;
                return Ok(Handled::Ignored(why));
            }
        };
        let key = mail.idempotency_key.to_string();
        // Before the transaction: the DKIM check may wait on DNS.
        // One of our own mails sent back by a machine (it copied our X-Loop):
        // dropped before anything else, never answered.
        let ours_back = mail.carries_loop_of(&self.post.ours);
        let dkim_failed = self.post.require_dkim
            && !ours_back
            && mail.automatic.is_none()
            && !crate::service::dkim::aligned_pass(raw, mail.from.domain(), &self.post.dns_servers)
                .await;
        let mut tx = store.begin().await?;
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
            (
                None,
                Handled::Ignored("ignored: it carries our own X-Loop (a mail loop)".into()),
            )
        } else if let Some(auto) = &mail.automatic {
            // RFC 3834: never answer bounces, auto-replies or list mail; a
            // bounce is counted against the address it names.
            if auto.kind == inbound::AutomaticKind::Bounce {
                let done =
                    super::bounces::record(&self.post, &mut tx, &mail, received_at, now).await?;
                (None, done)
            } else {
                (None, Handled::Ignored(format!("ignored: {auto:?}")))
            }
        } else if dkim_failed {
            self.refuse_unsigned(&mut tx, &mail, &answering, now)
                .await?
        } else if let Some(done) =
            director::answer_director(self, store, &mut tx, &mail, &answering, now).await?
        {
            // A TD's `report`, or a mail to a report address.
            (None, done)
        } else {
            self.act(&mut tx, &mail, &answering, received_at, now)
                .await?
        };
        let text = match &outcome {
            Handled::Duplicate => "duplicate".to_string(),
            Handled::Ignored(t) | Handled::Done(t) => t.clone(),
        };
        tx.inbound_outcome(&key, game, &text).await?;
        crate::service::crash_point("before-inbound-commit");
        tx.commit().await?;
        Ok(outcome)
    }

    async fn act(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        answering: &Answering<'_>,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(Option<GameId>, Handled), StoreError> {
        let route = self.route(tx, mail).await?;
        // A mail that authenticates shows the address works: a player paused
        // for bounces gets their held mail from now on.
        if let Route::Act { player, .. }
        | Route::Confirm { player, .. }
        | Route::Digest { player } = &route
        {
            super::bounces::resume_on_mail(tx, player, now).await?;
        }
        match route {
            Route::Digest { player } => {
                self.digest_reply(tx, mail, &player, answering, received_at, now)
                    .await
            }
            Route::Act { game, player } => {
                if let Some(done) = self
                    .repeated(tx, mail, game, &player, answering, now)
                    .await?
                {
                    return Ok((Some(game), done));
                }
                let written = Written {
                    text: &mail.text,
                    answered: crate::mail::stale::answered_ply(
                        game.0,
                        &mail.in_reply_to,
                        &mail.references,
                    ),
                    received_at,
                };
                if let Some(done) = self
                    .ask_if_stale(tx, game, &player, &written, answering, now)
                    .await?
                {
                    return Ok((Some(game), done));
                }
                let reading = command::parse(&mail.text, player.lang);
                let (commands, booked) = self
                    .split_leave(tx, &player, reading.commands, answering, received_at, now)
                    .await?;
                if commands.is_empty() && !booked.is_empty() {
                    return Ok((Some(game), Handled::Done(booked.join("; "))));
                }
                let done = self
                    .apply(tx, game, &player, &commands, answering, received_at, now)
                    .await?;
                Ok((Some(game), done))
            }
            Route::Confirm { id, player } => {
                let Some(confirmation) = tx.confirmation(id).await? else {
                    return Ok((
                        None,
                        Handled::Ignored("ignored: unknown confirmation".into()),
                    ));
                };
                if confirmation.used {
                    return Ok((
                        Some(confirmation.game_id),
                        Handled::Ignored("ignored: confirmation already used".into()),
                    ));
                }
                tx.use_confirmation(id, now).await?;
                // Asked about one position: if the game has moved on since,
                // asked again about the board as it is now.
                let written = Written {
                    text: &confirmation.text,
                    answered: tx.confirmation_ply(id).await?,
                    received_at,
                };
                if let Some(done) = self
                    .ask_if_stale(tx, confirmation.game_id, &player, &written, answering, now)
                    .await?
                {
                    return Ok((Some(confirmation.game_id), done));
                }
                let reading = command::parse(&confirmation.text, player.lang);
                // Leave is judged when the confirming reply arrived, not the
                // first mail: only then is the request known to be the
                // player's, and judging it earlier would let a player wait
                // and book, by confirming or not, days already past.
                let (commands, booked) = self
                    .split_leave(tx, &player, reading.commands, answering, received_at, now)
                    .await?;
                if commands.is_empty() && !booked.is_empty() {
                    return Ok((Some(confirmation.game_id), Handled::Done(booked.join("; "))));
                }
                // The move counts from when the original mail arrived.
                let done = self
                    .apply(
                        tx,
                        confirmation.game_id,
                        &player,
                        &commands,
                        answering,
                        confirmation.received_at,
                        now,
                    )
                    .await?;
                Ok((Some(confirmation.game_id), done))
            }
            Route::NeedsConfirmation { game, player } => {
                if !self.may_answer(tx, &player.email.to_string(), now).await? {
                    return Ok((
                        Some(game),
                        Handled::Ignored("ignored: answer rate limit".into()),
                    ));
                }
                let id = tx
                    .add_confirmation(game, player.id, &mail.text, received_at, now)
                    .await?;
                // The position asked about: a confirmation after the game
                // moved on is asked again (see `stale`).
                let table = clocks::load_table(tx, game).await?;
                let ply = u32::try_from(table.game.plies().len()).unwrap_or(u32::MAX);
                tx.set_confirmation_ply(id, ply).await?;
                let reading = command::parse(&mail.text, player.lang);
                let command = describe(&reading.commands);
                self.post
                    .queue(
                        tx,
                        Outgoing {
                            key: format!(
                                "in.{}.confirm",
                                sha256_hex(answering.mail_key.as_bytes(), 32)
                            ),
                            kind: LetterKind::ConfirmRequest { command },
                            to: &player,
                            game: Some(&table),
                            side: table.record.side_of(player.id),
                            answering: Some(answering),
                            reply_to: Some(self.post.confirmation_address(id)),
                            ply: None,
                        },
                        now,
                    )
                    .await?;
                Ok((
                    Some(game),
                    Handled::Done(format!("asked {} to confirm", player.email)),
                ))
            }
            Route::NoGame { player } => {
                if !self.may_answer(tx, &player.email.to_string(), now).await? {
                    return Ok((None, Handled::Ignored("ignored: answer rate limit".into())));
                }
                let reading = command::parse(&mail.text, player.lang);
                let (player, commands, changed) = self
                    .change_language(tx, &player, &reading.commands, answering, now)
                    .await?;
                if commands.is_empty() {
                    return Ok((None, Handled::Done(changed)));
                }
                let games = tx.active_games_of(player.id).await?;
                let list: Vec<String> = games.iter().map(|g| g.to_string()).collect();
                if commands
                    .iter()
                    .any(|c| matches!(c, command::Command::Standings))
                {
                    // The standings of every event the player is in.
                    let events = tx.events_of_player(player.id).await?;
                    for event in &events {
                        let kind = standings_kind(tx, *event).await?;
                        self.post
                            .answer(
                                tx,
                                format!(
                                    "in.{}.standings.e{}",
                                    sha256_hex(answering.mail_key.as_bytes(), 32),
                                    event.0
                                ),
                                kind,
                                &player,
                                answering,
                                now,
                            )
                            .await?;
                    }
                    if !events.is_empty() {
                        return Ok((None, Handled::Done("sent the standings".into())));
                    }
                }
                let kind = if commands
                    .iter()
                    .any(|c| matches!(c, command::Command::Games))
                {
                    // `#42` reads the same in every language.
                    LetterKind::Games {
                        lines: list.clone(),
                    }
                } else if let Some(command::Command::Leave { from, to }) = commands
                    .iter()
                    .find(|c| matches!(c, command::Command::Leave { .. }))
                {
                    LetterKind::LeaveRefused {
                        wrote: format!("leave {from} {to}"),
                        explanation: "leave changes the clocks of all your games, so it must come with your \
                             personal reply address: reply to any mail of one of your games with the \
                             leave line, and it applies to all of them."
                            .to_string(),
                    }
                } else if commands.iter().any(|c| matches!(c, command::Command::Help)) {
                    // No game: compose takes the examples from the start
                    // position, in the player's piece letters.
                    LetterKind::Help {
                        examples: Vec::new(),
                    }
                } else {
                    LetterKind::Rejected {
                        wrote: first_line(&mail.text),
                        explanation: if list.is_empty() {
                            "you have no game in progress, so there is nothing to play this in."
                                .to_string()
                        } else {
                            format!(
                                "we could not tell which game this is for. Reply to the mail of the game \
                                 (its subject starts with [dopis #N]) so the reply address names it. \
                                 Your games in progress: {}.",
                                list.join(", ")
                            )
                        },
                        kind: RejectionKind::UnknownGame,
                    }
                };
                self.post
                    .answer(
                        tx,
                        format!(
                            "in.{}.nogame",
                            sha256_hex(answering.mail_key.as_bytes(), 32)
                        ),
                        kind,
                        &player,
                        answering,
                        now,
                    )
                    .await?;
                Ok((None, Handled::Done("answered a mail without a game".into())))
            }
            Route::Refuse { player, game, why } => {
                let Some(player) = player else {
                    return Ok((game, Handled::Ignored(format!("ignored: {why}"))));
                };
                if !self.may_answer(tx, &player.email.to_string(), now).await? {
                    return Ok((game, Handled::Ignored("ignored: answer rate limit".into())));
                }
                self.post
                    .answer(
                        tx,
                        format!(
                            "in.{}.refused",
                            sha256_hex(answering.mail_key.as_bytes(), 32)
                        ),
                        LetterKind::Refused {
                            explanation: why.clone(),
                        },
                        &player,
                        answering,
                        now,
                    )
                    .await?;
                Ok((game, Handled::Done(format!("refused: {why}"))))
            }
        }
    }

    /// Refuses a mail without an aligned DKIM pass (when required): told
    /// to the registered address, nothing else for strangers.
    async fn refuse_unsigned(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<(Option<GameId>, Handled), StoreError> {
        let why = format!(
            "this server acts only on mail with a valid DKIM signature of the sender's domain, \
             and your mail from {} had none that checked out, so nothing was done. Ask your mail \
             provider to sign outgoing mail (most do), or write from an address that is signed.",
            mail.from
        );
        let Some(player) = tx.player_by_email(mail.from.as_str()).await? else {
            return Ok((
                None,
                Handled::Ignored(format!("ignored: no DKIM pass from {}", mail.from)),
            ));
        };
        if !self.may_answer(tx, &player.email.to_string(), now).await? {
            return Ok((None, Handled::Ignored("ignored: answer rate limit".into())));
        }
        self.post
            .answer(
                tx,
                format!("in.{}.dkim", sha256_hex(answering.mail_key.as_bytes(), 32)),
                LetterKind::Refused { explanation: why },
                &player,
                answering,
                now,
            )
            .await?;
        Ok((None, Handled::Done("refused: no DKIM pass".into())))
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
    ) -> Result<bool, StoreError> {
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
    ) -> Result<bool, StoreError> {
        if mail.automatic.is_some() {
            return Ok(false);
        }
        let Some(player) = tx.player_by_email(mail.from.as_str()).await? else {
            return Ok(false);
        };
        if !self.may_answer(tx, &player.email.to_string(), now).await? {
            return Ok(false);
        }
        let answering = Answering {
            mail_key: failure_key,
            message_id: mail.message_id.as_ref(),
        };
        self.post
            .answer(
                tx,
                format!("in.{}.not-handled", sha256_hex(failure_key.as_bytes(), 32)),
                LetterKind::NotHandled {
                    subject: mail.subject.clone(),
                    cause,
                },
                &player,
                &answering,
                now,
            )
            .await?;
        Ok(true)
    }

    /// Whether another answer to this address stays within the hourly limit.
    async fn may_answer(
        &self,
        tx: &mut Tx,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let sent = tx.answers_since(address, now - Duration::hours(1)).await?;
        Ok(sent < i64::from(self.answers_per_hour))
    }

    /// Works out whom a mail is from and what it may do.
    async fn route(&self, tx: &mut Tx, mail: &InboundMail) -> Result<Route, StoreError> {
        let sender = tx.player_by_email(mail.from.as_str()).await?;
        let tags: Vec<PlusTag> = mail
            .recipients
            .iter()
            .filter_map(|a| route::read_plus_address(&self.post.ours, a))
            .collect();
        // A reply to a confirmation.
        if let Some((id, token)) = tags.iter().find_map(|t| match t {
            PlusTag::Confirmation { id, token } => Some((*id, token)),
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
                    why: format!(
                        "a confirmation reply came from {} that was not sent by you from your \
                         registered address, so nothing was done",
                        mail.from
                    ),
                },
            });
        }
        // A daily digest's reply address.
        if let Some((owner, token)) = tags.iter().find_map(|t| match t {
            PlusTag::Digest { player, token } => Some((*player, token)),
            _ => None,
        }) {
            let valid = self.post.tokens.digest(owner).matches(token);
            return Ok(match sender {
                Some(sender) if valid && sender.id.0 == owner => Route::Digest { player: sender },
                _ if valid => Route::Refuse {
                    player: Some(tx.player(crate::player::PlayerId(owner)).await?),
                    game: None,
                    why: format!(
                        "a reply to your daily digest came from {}, which is not your registered \
                         address, so nothing was done. If it was you, write from your registered \
                         address.",
                        mail.from
                    ),
                },
                sender => Route::Refuse {
                    player: sender,
                    game: None,
                    why: "your mail went to a digest address with a wrong token, so nothing was \
                          done. Reply to your latest digest instead."
                        .into(),
                },
            });
        }
        // A game's reply address.
        if let Some((game, token)) = tags.iter().find_map(|t| match t {
            PlusTag::Game { game, token } => Some((GameId(*game), token)),
            _ => None,
        }) {
            let record = match tx.game_for_update(game).await {
                Ok(r) => r,
                Err(StoreError::UnknownGame(_)) => {
                    return Ok(Route::Refuse {
                        player: sender,
                        game: None,
                        why: format!("there is no game {game}; `games` lists yours"),
                    });
                }
                Err(e) => return Err(e),
            };
            // Whose token is it?
            let owner = [record.white, record.black]
                .into_iter()
                .find(|p| self.post.tokens.player(game.0, p.0).matches(token));
            return Ok(match (owner, sender) {
                (Some(owner), Some(sender)) if owner == sender.id => Route::Act {
                    game,
                    player: sender,
                },
                (Some(owner), _) => Route::Refuse {
                    player: Some(tx.player(owner).await?),
                    game: Some(game),
                    why: format!(
                        "a mail for game {game} with your reply address came from {}, which is not \
                         your registered address, so it was not applied. If it was you, write from \
                         your registered address.",
                        mail.from
                    ),
                },
                (None, Some(sender)) if record.side_of(sender.id).is_some() => Route::Refuse {
                    player: Some(sender),
                    game: Some(game),
                    why: format!(
                        "your mail for game {game} went to an address with a wrong token, so it was \
                         not applied. Reply to the latest mail of the game instead."
                    ),
                },
                (None, sender) => Route::Refuse {
                    player: sender,
                    game: Some(game),
                    why: format!("you do not play in game {game}"),
                },
            });
        }
        // No token: a game named in the subject or the thread, from a player's address.
        let Some(player) = sender else {
            return Ok(Route::Refuse {
                player: None,
                game: None,
                why: format!("unknown sender {}", mail.from),
            });
        };
        let named = route::game_in_subject(&mail.subject).or_else(|| {
            mail.in_reply_to
                .iter()
                .chain(mail.references.iter())
                .find_map(|id| route::game_in_message_id(id.as_str()))
        });
        if let Some(game) = named
            && let Ok(record) = tx.game_for_update(GameId(game)).await
            && record.side_of(player.id).is_some()
        {
            return Ok(Route::NeedsConfirmation {
                game: GameId(game),
                player,
            });
        }
        // A single game in progress: that is the one.
        let games = tx.active_games_of(player.id).await?;
        let reading = command::parse(&mail.text, player.lang);
        let is_move = reading
            .commands
            .iter()
            .any(|c| matches!(c, command::Command::Move { .. }));
        if is_move && games.len() == 1 {
            return Ok(Route::NeedsConfirmation {
                game: games[0],
                player,
            });
        }
        Ok(Route::NoGame { player })
    }

    /// Applies commands to a game and queues the mails they cause.
    #[allow(clippy::too_many_arguments)]
    async fn apply(
        &self,
        tx: &mut Tx,
        game: GameId,
        player: &Player,
        commands: &[command::Command],
        answering: &Answering<'_>,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Handled, StoreError> {
        let current = clocks::load_table(tx, game).await?;
        let Some(side) = current.record.side_of(player.id) else {
            return Ok(Handled::Ignored("ignored: not a player of the game".into()));
        };
        // A language change comes first: a move in the same mail is then read
        // in the new language, and every answer is written in it.
        let (player, commands, changed) = self
            .change_language(tx, player, commands, answering, now)
            .await?;
        if commands.is_empty() {
            return Ok(Handled::Done(changed));
        }
        let (player, commands) = (&player, commands.as_slice());
        // `standings` is about the game's event, not the game: answered
        // here, the rest of the mail goes to the arbiter.
        let asked_standings = commands
            .iter()
            .any(|c| matches!(c, command::Command::Standings));
        let commands: Vec<command::Command> = commands
            .iter()
            .filter(|c| !matches!(c, command::Command::Standings))
            .cloned()
            .collect();
        if asked_standings {
            if !self.may_answer(tx, &player.email.to_string(), now).await? {
                return Ok(Handled::Ignored("ignored: answer rate limit".into()));
            }
            self.standings_for_game(tx, game, player, answering, now)
                .await?;
            if commands.is_empty() {
                return Ok(Handled::Done("sent the standings".into()));
            }
        }
        // Time that ran out before this mail arrived ends the game first,
        // whatever the mail says (the scheduler may not have got to it yet).
        if current.record.status == GameStatus::Active
            && let Some((flagged, at)) = current
                .clock
                .as_ref()
                .and_then(|c| c.clocks(received_at).timeout())
        {
            let mut table = current;
            clocks::end_on_time(tx, &self.post, &mut table, flagged, at, now).await?;
            clocks::reschedule(tx, &table, None, now).await?;
            return Ok(Handled::Done(format!(
                "{} ran out of time before this mail arrived",
                if flagged.is_white() { "White" } else { "Black" }
            )));
        }
        let record = current.record.clone();
        let seat = Seat {
            side,
            lang: player.lang,
        };
        let board = self.board(tx, &current).await?;
        let verdict = if crate::service::td::is_annulled(&record, board.game.is_over()) {
            // Closed by a TD (a withdrawal annulled it): no more moves.
            arbiter::Verdict {
                game: board.game.clone(),
                draw_offer_by: record.draw_offer_by,
                conditionals: record.conditionals.clone(),
                last_offers: record.last_offers,
                notices: vec![Notice::Rejected {
                    to: side,
                    wrote: describe(&commands),
                    explanation: "this game was closed by the tournament director (annulled after \
                                  a withdrawal), so nothing more can be played in it."
                        .into(),
                    kind: RejectionKind::GameOver,
                }],
                summary: "rejected: game annulled".into(),
                changed: false,
            }
        } else {
            arbiter::apply(&board, seat, &commands, received_at)
        };
        let rejected = verdict
            .notices
            .iter()
            .any(|n| matches!(n, Notice::Rejected { .. }));
        if rejected && !self.may_answer(tx, &player.email.to_string(), now).await? {
            return Ok(Handled::Ignored("ignored: answer rate limit".into()));
        }
        let mut table = if verdict.changed {
            tx.save_game(
                &record,
                &verdict.game,
                verdict.draw_offer_by,
                &verdict.conditionals,
                verdict.last_offers,
                now,
            )
            .await?;
            // Read back within the transaction: the clock with the new move.
            clocks::load_table(tx, game).await?
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
            clocks::reschedule(tx, &table, None, now).await?;
        }
        self.post
            .notices(tx, &table, &verdict.notices, answering, now)
            .await?;
        Ok(Handled::Done(verdict.summary))
    }

    /// Books the leave a player asked for by mail (judged at `asked_at`, see
    /// [`clocks::book_leave`]) and answers with the booking or the refusal.
    async fn leave(
        &self,
        tx: &mut Tx,
        player: &Player,
        (from, to): (NaiveDate, NaiveDate),
        answering: &Answering<'_>,
        asked_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<String, StoreError> {
        let wrote = format!("leave {from} {to}");
        let booked = match Leave::new(from, to) {
            Ok(leave) => {
                clocks::book_leave(
                    tx,
                    player,
                    leave,
                    self.allowance,
                    player.email.as_str(),
                    None,
                    asked_at,
                    now,
                )
                .await?
            }
            Err(e) => Err(e),
        };
        let key = format!(
            "in.{}.leave.{from}",
            sha256_hex(answering.mail_key.as_bytes(), 32)
        );
        let (kind, outcome) = match booked {
            Ok(b) => (
                LetterKind::LeaveBooked {
                    from: from.to_string(),
                    to: to.to_string(),
                    days: b.leave.days(),
                    left: clocks::left_text(&b.left),
                },
                format!("booked leave {from} to {to}"),
            ),
            Err(e) => (
                LetterKind::LeaveRefused {
                    wrote,
                    explanation: e.to_string(),
                },
                format!("refused leave {from} to {to}: {e}"),
            ),
        };
        self.post
            .answer(tx, key, kind, player, answering, now)
            .await?;
        Ok(outcome)
    }

    /// Books the leave among `commands` (asked at `asked_at`) and returns the
    /// others, with what was done (leave applies to all the player's games,
    /// not to one).
    async fn split_leave(
        &self,
        tx: &mut Tx,
        player: &Player,
        commands: Vec<command::Command>,
        answering: &Answering<'_>,
        asked_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(Vec<command::Command>, Vec<String>), StoreError> {
        let mut rest = Vec::new();
        let mut done = Vec::new();
        for c in commands {
            match c {
                command::Command::Leave { from, to } => {
                    done.push(
                        self.leave(tx, player, (from, to), answering, asked_at, now)
                            .await?,
                    );
                }
                other => rest.push(other),
            }
        }
        Ok((rest, done))
    }

    /// Answers `standings` in a game: the crosstable of the game's event, or
    /// why there is none.
    async fn standings_for_game(
        &self,
        tx: &mut Tx,
        game: GameId,
        player: &Player,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let key = format!(
            "in.{}.standings",
            sha256_hex(answering.mail_key.as_bytes(), 32)
        );
        let kind = match tx.event_of_game(game).await? {
            Some(event) => standings_kind(tx, event).await?,
            None => LetterKind::Rejected {
                wrote: "standings".into(),
                explanation: format!(
                    "game {game} is not part of an event, so it has no standings."
                ),
                kind: RejectionKind::Other,
            },
        };
        self.post
            .answer(tx, key, kind, player, answering, now)
            .await
    }
}

/// The standings letter of an event, with event errors as store errors (a
/// stored event that cannot be read back is corrupt).
async fn standings_kind(tx: &mut Tx, event: crate::ids::EventId) -> Result<LetterKind, StoreError> {
    crate::service::td::standings_letter(tx, event)
        .await
        .map_err(|e| match e {
            crate::service::td::TdError::Store(e) => e,
            other => StoreError::Corrupt(other.to_string()),
        })
}

impl Inbox {
    /// Carries out `language xx` and `notify digest|each`: stores the
    /// player's choice and answers (in the new language). Returns the player
    /// as they now are and the other commands, still to be applied.
    async fn change_language(
        &self,
        tx: &mut Tx,
        player: &Player,
        commands: &[command::Command],
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<(Player, Vec<command::Command>, String), StoreError> {
        let mut player = player.clone();
        let mut rest = Vec::with_capacity(commands.len());
        let mut chosen = None;
        let mut notify = None;
        for c in commands {
            match c {
                command::Command::Language(lang) => chosen = Some(*lang),
                command::Command::Notify(n) => notify = Some(*n == command::Notify::Digest),
                other => rest.push(other.clone()),
            }
        }
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
            if self.may_answer(tx, &player.email.to_string(), now).await? {
                self.post
                    .answer(
                        tx,
                        format!(
                            "in.{}.{what}",
                            sha256_hex(answering.mail_key.as_bytes(), 32)
                        ),
                        kind,
                        &player,
                        answering,
                        now,
                    )
                    .await?;
            }
        }
        let summary = [
            chosen.map(|l| format!("language set to {l}")),
            notify.map(|d| format!("notify {}", if d { "digest" } else { "each" })),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ");
        Ok((player, rest, summary))
    }
}

fn describe(commands: &[command::Command]) -> String {
    use command::Command;
    // Game commands in the English words every language also reads, so a
    // player can write back what a mail quotes.
    commands
        .iter()
        .map(|c| match c {
            Command::Move {
                text,
                offer_draw: true,
            } => format!("{} (and offer a draw)", text.as_str()),
            Command::Move { text, .. } => text.as_str().to_string(),
            Command::OfferDraw => "draw".into(),
            Command::AcceptDraw => "accept draw".into(),
            Command::DeclineDraw => "decline draw".into(),
            Command::Resign => "resign".into(),
            Command::ClaimDraw { with_move: None } => "claim draw".into(),
            Command::ClaimDraw {
                with_move: Some(text),
            } => format!("claim draw {text}"),
            Command::Conditional { lines } => lines
                .iter()
                .map(|line| {
                    let moves: Vec<&str> = line.iter().map(|m| m.as_str()).collect();
                    format!("if {}", moves.join(" "))
                })
                .collect::<Vec<_>>()
                .join(", "),
            Command::Leave { from, to } => format!("leave {from} {to}"),
            Command::Status => "status".into(),
            Command::Games => "games".into(),
            Command::Pgn => "pgn".into(),
            Command::Help => "help".into(),
            Command::Standings => "standings".into(),
            Command::Report => "report".into(),
            Command::Language(lang) => format!("language {}", lang.code()),
            Command::Notify(command::Notify::Each) => "notify each".into(),
            Command::Notify(command::Notify::Digest) => "notify digest".into(),
            Command::Conditionals => "conditionals".into(),
            Command::CancelConditionals => "cancel conditionals".into(),
            Command::Unknown { text } => text.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
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
