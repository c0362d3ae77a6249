//! Half-point byes asked for by mail (`bye 12 round 4`): heard from a
//! registered player's mail, however it is addressed, and answered in
//! their language: granted, or refused with why and how to ask right. The
//! rules, and the TD's way to ask ([`grant_bye`](crate::service::td::grant_bye),
//! `dopis event bye`), are `td::swiss_byes`'s; the bye's row
//! and its answer commit together with the mail's inbound record.
//!
//! As for entries, the sender is the registered player of the mail's
//! `From:` (a mail whose DKIM signature fails was refused before); the
//! answer goes to that registered address, so a bye its player did not
//! ask for does not go unseen.

use chrono::{DateTime, Utc};

use super::inbox::{Inbox, Words};
use super::post::{Answering, Outgoing};
use super::td::TdError;
use super::{Done, Handled, Ignored, Limited, ServiceError};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::mail::inbound::InboundMail;
use crate::adapter::store::Tx;
use crate::domain::command::Command;
use crate::domain::player::Player;

/// Byes asked for in one mail; more are chat.
const MAX_BYE_COMMANDS: usize = 5;

impl Inbox {
    /// Hears the bye commands of a registered player's mail: `None` when
    /// it has none, and is for the rest of the inbox.
    /// `proven`: the mail came to the reply address of one of our mails
    /// to the sender (its token is theirs alone). A bye takes a round from
    /// a player, so one asked for by a mail from their address alone,
    /// which anyone can forge, is refused, saying how to ask instead.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn hear_byes(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        sender: &Player,
        proven: bool,
        words: &mut Words<'_>,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Handled>, ServiceError> {
        let asked: Vec<(i64, u32)> = words
            .in_lang(sender.lang)
            .iter()
            .filter_map(|c| match c {
                Command::SwissBye { event, round } => Some((*event, *round)),
                _ => None,
            })
            .take(MAX_BYE_COMMANDS)
            .collect();
        if asked.is_empty() {
            return Ok(None);
        }
        if !self.post.may_answer(tx, mail.from.as_str(), now).await? {
            return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::Bye,
            ))));
        }
        let mut said = Vec::new();
        for (i, (event, round)) in asked.into_iter().enumerate() {
            let asked = if proven {
                crate::service::td::swiss_byes::ask(tx, event, sender, round, None, now).await
            } else {
                Ok(crate::service::td::swiss_byes::unproven(event, round))
            };
            let news = match asked {
                Ok(news) => news,
                Err(TdError::Store(e)) => return Err(e.into()),
                Err(TdError::Service(e)) => return Err(e),
                Err(e) => return Err(ServiceError::Store(corrupt(e))),
            };
            said.push(format!(
                "{} {}'s half-point bye in round {round} of event {event}{}",
                news.kind,
                sender.email,
                if news.why.is_empty() {
                    String::new()
                } else {
                    format!(": {}", news.why)
                }
            ));
            let key = answering.key(&format!("bye.{i}"));
            let letter = Outgoing::new(key, LetterKind::SwissBye { news }, sender)
                .answering(Some(answering))
                .reply_to(None);
            self.post.queue(tx, letter, now).await?;
        }
        Ok(Some(Handled::Done(Done::SwissByes(said.join("; ")))))
    }
}

fn corrupt(e: TdError) -> crate::adapter::store::StoreError {
    crate::adapter::store::StoreError::Corrupt(format!("asking for a bye: {e}"))
}
