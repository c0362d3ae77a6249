//! A mail that is a TD's business: one to an event's report address, or
//! `report` alone from a TD's address (see [`crate::service::report::by_mail`]
//! for the rules). One of the inbox's routes, tried before players' mail.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::{Inbox, Words};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::mail::inbound::InboundMail;
use crate::adapter::mail::route::ReplyTag;
use crate::adapter::store::Tx;
use crate::adapter::store::{Store, StoreError};
use crate::domain::arbiter::{self, DirectorAddress, DirectorAnswer};
use crate::domain::ids::EventId;
use crate::domain::player::Player;
use crate::service::clocks::not_a_player;
use crate::service::post::Answering;
use crate::service::report::by_mail::{report_letter, to_director};
use crate::service::{Done, Handled, Ignored, Limited};

/// Whether `address` is among an event's TDs (addresses compare without case).
async fn directs(tx: &mut Tx, event: EventId, address: &str) -> Result<bool, StoreError> {
    Ok(tx
        .event_tds(event)
        .await?
        .iter()
        .any(|td| td.eq_ignore_ascii_case(address)))
}

/// Handles a mail that is a TD's business: one to a report address, or
/// `report` alone from a TD's address. `None` for any other mail, which
/// goes on to players' handling.
#[allow(clippy::too_many_arguments)]
pub async fn answer_director(
    inbox: &Inbox,
    store: &Store,
    tx: &mut Tx,
    mail: &InboundMail,
    sender: Option<&Player>,
    words: &mut Words<'_>,
    answering: &Answering<'_>,
    now: DateTime<Utc>,
) -> Result<Option<Handled>, ServiceError> {
    let post = &inbox.post;
    let from = mail.from.as_str();
    let tag = mail
        .recipients
        .iter()
        .filter_map(|a| post.replies.read(a))
        .find_map(|t| match t {
            ReplyTag::Report { event, token } => Some((EventId(event), token)),
            _ => None,
        });
    // The sender as a TD: the player of that address, else (a TD need not
    // play) someone who gets English mails.
    let td = sender
        .cloned()
        .unwrap_or_else(|| not_a_player(mail.from.clone()));
    let asks = words.in_lang(td.lang).to_vec();
    let Some((event, token)) = tag else {
        // Without the report address: the arbiter says whether it is the
        // TD's business at all, or a mail they wrote as a player.
        if arbiter::hear_director(&asks, DirectorAddress::Elsewhere).is_none() {
            return Ok(None);
        }
        let mut events = Vec::new();
        for e in tx.events().await? {
            if directs(tx, e.id, from).await? {
                events.push(e);
            }
        }
        if events.is_empty() {
            return Ok(None);
        }
        if !inbox.post.may_answer(tx, from, now).await? {
            return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::Answer,
            ))));
        }
        for e in &events {
            let key = answering.key(&format!("reporthow.e{}", e.id.0));
            let kind = LetterKind::ReportInstructions {
                event: e.name.clone(),
            };
            to_director(post, tx, key, kind, &td, e.id, Some(answering), now).await?;
        }
        return Ok(Some(Handled::Done(Done::ToldHowToAsk {
            td: from.to_owned(),
        })));
    };
    if !directs(tx, event, from).await? {
        return Ok(Some(Handled::Ignored(Ignored::NotTheTd {
            event,
            from: from.to_owned(),
        })));
    }
    if !inbox.post.may_answer(tx, from, now).await? {
        return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
            Limited::Answer,
        ))));
    }
    let name = tx.event(event).await?.name;
    let address = if post.tokens.director(event.0, from).matches(&token) {
        DirectorAddress::Report
    } else {
        DirectorAddress::WrongToken
    };
    match arbiter::hear_director(&asks, address) {
        Some(DirectorAnswer::HowToAsk) => {
            let key = answering.key(&format!("reporthow.e{}", event.0));
            let kind = LetterKind::ReportInstructions { event: name };
            to_director(post, tx, key, kind, &td, event, Some(answering), now).await?;
            Ok(Some(Handled::Done(Done::WrongReportToken {
                td: from.to_owned(),
            })))
        }
        Some(DirectorAnswer::Report) => {
            let kind = report_letter(store, tx, event, now).await?;
            let key = answering.key(&format!("report.e{}", event.0));
            to_director(post, tx, key, kind, &td, event, Some(answering), now).await?;
            Ok(Some(Handled::Done(Done::ReportSent {
                event,
                to: from.to_owned(),
            })))
        }
        Some(DirectorAnswer::Nothing) | None => {
            Ok(Some(Handled::Ignored(Ignored::NoReportAsked {
                from: from.to_owned(),
            })))
        }
    }
}
