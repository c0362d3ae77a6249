//! Replies written for an earlier position of their game, and mails that
//! come twice: asked about or answered, never carried out blindly (the
//! rules are in [`crate::adapter::mail::stale`]).
//!
//! A stale reply that would move or end the game becomes a confirmation,
//! as a mail without the reply token does, and the confirmation remembers
//! the position it asked about: confirming after the game moved on again
//! asks again (with the board as it is then) rather than playing a move
//! against a board the player was never shown. Asking again, not refusing,
//! because the rule is the same for every reply: a reply to a mail about an
//! earlier position is checked against the board now. A player who wants
//! something else replies to the newest mail, or writes the move with the
//! current move number.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::{Done, Handled, Ignored, Inbox, Limited, first_line};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::mail::inbound::InboundMail;
use crate::adapter::mail::stale::{self, Freshness, MovePoint};
use crate::adapter::store::Tx;
use crate::adapter::store::games::GameStatus;
use crate::domain::arbiter::{self, Seat};
use crate::domain::command::{self, Command};
use crate::domain::locale;
use crate::domain::player::Player;
use crate::service::loaded_game::LoadedGame;
use crate::service::post::{Answering, Outgoing};

/// A player's words for a game, and the position they were written for.
pub(super) struct Written<'a> {
    /// The text (a mail's, or a confirmation's stored one).
    pub text: &'a str,
    /// The commands it says, read once (in the player's language).
    pub commands: &'a [Command],
    /// The position it answers (half-moves played), when known.
    pub answered: Option<u32>,
    /// When the mail that brought it now reached the mailbox: the time a
    /// move confirmed from here counts from.
    pub received_at: DateTime<Utc>,
}

impl Inbox {
    /// When `mail` is a copy of a mail that reached this game before under
    /// another Message-ID (a client's outbox resending it): says so to the
    /// player and does nothing else. Every mail with the reply token leaves
    /// its fingerprint for the copies after it.
    pub(super) async fn repeated(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        table: &LoadedGame,
        player: &Player,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Handled>, ServiceError> {
        let Some(fingerprint) = stale::fingerprint(mail) else {
            return Ok(None);
        };
        let game = table.record.id;
        let fingerprint = format!("g{}.{fingerprint}", game.0);
        let first = tx
            .first_with_fingerprint(&fingerprint, answering.mail_key)
            .await?;
        tx.set_inbound_fingerprint(answering.mail_key, &fingerprint)
            .await?;
        let Some(first) = first else {
            return Ok(None);
        };
        let answer = Outgoing::new(
            answering.key("repeated"),
            LetterKind::Repeated {
                wrote: first_line(&mail.text),
                first: locale::describe_deadline(first, player.tz, player.lang),
            },
            player,
        )
        .about(table, table.record.side_of(player.id))
        .answering(answering)
        .reply_to(self.post.reply_to(game, player));
        if !self.post.answer(tx, answer, now).await? {
            return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::Repeated,
            ))));
        }
        Ok(Some(Handled::Done(Done::Repeated { first })))
    }

    /// Asks the player to confirm, against the board as it is now, words
    /// written for an earlier position that would move or end the game;
    /// `None` when they may be applied as they are. Words the arbiter would
    /// turn down anyway are not asked about: the usual answer says why.
    pub(super) async fn ask_if_stale(
        &self,
        tx: &mut Tx,
        table: &LoadedGame,
        player: &Player,
        written: &Written<'_>,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Handled>, ServiceError> {
        // Most replies answer the newest mail.
        let Some(answered) = written.answered else {
            return Ok(None);
        };
        let played = table.record.moves.len();
        if u32::try_from(played).is_ok_and(|played| played <= answered) {
            return Ok(None);
        }
        let game = table.record.id;
        let Some(side) = table.record.side_of(player.id) else {
            return Ok(None);
        };
        // An ended game, or time that ran out before the mail came: `apply`
        // says so (and ends the game on time); nothing to ask.
        let flagged = table
            .clock
            .as_ref()
            .and_then(|c| c.clocks(written.received_at).timeout());
        if table.record.status != GameStatus::Active || flagged.is_some() {
            return Ok(None);
        }
        let commands = written.commands;
        let Freshness::Stale { answered, current } =
            stale::judge(Some(answered), &table.game, commands)
        else {
            return Ok(None);
        };
        // Would it change the game? Read as `apply` reads it: in the
        // language the mail may switch to, without the commands that are
        // about no one position.
        let lang = commands
            .iter()
            .rev()
            .find_map(|c| match c {
                Command::Language(l) => Some(*l),
                _ => None,
            })
            .unwrap_or(player.lang);
        let moves: Vec<Command> = commands
            .iter()
            .filter(|c| {
                !matches!(
                    c,
                    Command::Leave { .. }
                        | Command::Language(_)
                        | Command::Notify(_)
                        | Command::Standings
                )
            })
            .cloned()
            .collect();
        let board = self.board(table);
        if !arbiter::apply(&board, Seat { side, lang }, &moves, written.received_at).changed {
            return Ok(None);
        }
        if !self.post.may_answer(tx, player.email.as_str(), now).await? {
            return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::Stale,
            ))));
        }
        let id = tx
            .add_confirmation(game, player.id, written.text, written.received_at, now)
            .await?;
        tx.set_confirmation_ply(id, current).await?;
        let then = MovePoint::at(&table.game, answered);
        let now_at = MovePoint::at(&table.game, current);
        let example = commands.iter().find_map(|c| match c {
            Command::Move { text, offer_draw } => Some(format!(
                "{now_at} {text}{}",
                if *offer_draw {
                    format!(" {}", command::draw_word(lang))
                } else {
                    String::new()
                }
            )),
            _ => None,
        });
        self.post
            .queue(
                tx,
                Outgoing::new(
                    answering.key("stale"),
                    LetterKind::ConfirmStale {
                        command: command::describe(commands, lang),
                        answered: then,
                        current: now_at,
                        example,
                    },
                    player,
                )
                .about(table, side)
                .answering(answering)
                .reply_to(self.post.confirmation_address(id)),
                now,
            )
            .await?;
        Ok(Some(Handled::Done(Done::AskedToConfirm {
            to: player.email.to_string(),
            stale: Some((then, now_at)),
        })))
    }

    /// The game as the arbiter takes it: with the standing offer, the
    /// conditional moves and the event's draw rules.
    pub(super) fn board(&self, table: &LoadedGame) -> arbiter::StateOfPlay {
        let record = &table.record;
        let rules = table.rules();
        arbiter::StateOfPlay {
            game: table.game.clone(),
            draw_offer_by: record.draw_offer_by,
            conditionals: record.conditionals.clone(),
            draw_policy: rules.draws,
            last_offers: record.last_offers,
            messages: rules.messages,
            tables: self.tables.clone(),
            tablebase: rules.tablebase,
        }
    }
}
