//! A Swiss event's rounds as time passes, for the daemon's pass: the TDs
//! told when a round nears its closing date (`round_days` in the event
//! file) with games still played, again when the date has come (they then
//! adjudicate those games; the next round is paired, as always, on the
//! first pass after the last game of the round has ended), and when the
//! next round cannot be paired until they decide.
//!
//! Each notice is sent once: its outbox key (`e<event>.r<round>.<paired
//! at>.warn.<td>`, `….closed.<td>`, `e<event>.r<round>.unpaired.<td>`)
//! is unique, so a second pass or a second daemon queues nothing again.
//! The instant the round was paired is in the key, so a round paired
//! again (`dopis event repair-round`) gets its own notices. The game lines
//! are the deadline report's ([`crate::service::report`]).

use chrono::{DateTime, TimeDelta, Utc};

use crate::adapter::mail::compose::{LetterKind, ReportGame};
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::{Store, StoreError, Tx};
use crate::domain::event::file::EventKind;
use crate::domain::ids::EventId;
use crate::service::ServiceError;
use crate::service::clocks::directors_of_event;
use crate::service::post::Post;
use crate::service::report::by_mail::to_director;
use crate::service::report::when;
use crate::service::td::{NextRound, RoundPaired, StoredEvent, TdError};

/// What a pass told the TDs of a round's closing date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundNotice {
    /// The round closes soon and has games still played.
    Warned(u32),
    /// The round has closed with games still played: the TDs decide them.
    Closed(u32),
}

/// The started Swiss events (those whose rounds may have a closing date).
pub async fn started(store: &Store) -> Result<Vec<EventId>, StoreError> {
    let mut tx = store.begin().await?;
    let events = tx.started_swiss_events().await?;
    tx.commit().await?;
    Ok(events)
}

/// Tells the TDs of a Swiss event about its last paired round's closing
/// date when it is near or has come and games of the round are still
/// played, once for each; `None` when there was nothing (new) to tell.
pub async fn closing_due(
    store: &Store,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<RoundNotice>, ServiceError> {
    let mut tx = store.begin().await?;
    let told = match closing(&mut tx, post, event, now).await {
        Ok(told) => told,
        Err(TdError::Store(e)) => return Err(e.into()),
        Err(TdError::Service(e)) => return Err(e),
        Err(e) => {
            return Err(StoreError::Corrupt(format!("event {event}'s round closing: {e}")).into());
        }
    };
    tx.commit().await?;
    Ok(told)
}

async fn closing(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<RoundNotice>, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    let EventKind::Swiss { rules, .. } = &ev.event.kind else {
        return Ok(None);
    };
    let Some(days) = rules.round_days else {
        return Ok(None);
    };
    // Read (and on PostgreSQL locked) first: a second daemon waits here.
    let rounds = tx.swiss_rounds(event).await?;
    let Some(round) = rounds.iter().map(|r| r.round).max() else {
        return Ok(None);
    };
    let Some(paired_at) = tx.swiss_round_paired_at(event, round).await? else {
        return Ok(None);
    };
    let closes = paired_at + TimeDelta::days(i64::from(days));
    let warn_at = closes - TimeDelta::days(i64::from(rules.round_warn_days));
    let closed = now >= closes;
    // A warning due at the pairing itself (round_warn_days as long as the
    // round) would tell nothing: only the closing is told then.
    if !closed && (now < warn_at || warn_at <= paired_at) {
        return Ok(None);
    }
    let stage = if closed { "closed" } else { "warn" };
    let key = |td: &str| {
        format!(
            "e{}.r{round}.{}.{stage}.{td}",
            event.0,
            paired_at.timestamp_millis()
        )
    };
    let tds = directors_of_event(tx, event).await?;
    let mut unsent = Vec::new();
    for td in tds {
        if !tx.outbox_has(&key(td.email.as_str())).await? {
            unsent.push(td);
        }
    }
    if unsent.is_empty() {
        return Ok(None);
    }
    let games = playing(tx, event, round, now).await?;
    if games.is_empty() {
        return Ok(None);
    }
    let kind = LetterKind::SwissRoundClosing {
        event: ev.record.name.clone(),
        round,
        closes: when(Some(closes)),
        closed,
        games,
    };
    for td in &unsent {
        to_director(
            post,
            tx,
            key(td.email.as_str()),
            kind.clone(),
            td,
            event,
            None,
            now,
        )
        .await?;
    }
    Ok(Some(if closed {
        RoundNotice::Closed(round)
    } else {
        RoundNotice::Warned(round)
    }))
}

/// The games of a round still played, as the deadline report lists them
/// (with the moves played so far), by game number.
async fn playing(
    tx: &mut Tx,
    event: EventId,
    round: u32,
    now: DateTime<Utc>,
) -> Result<Vec<ReportGame>, TdError> {
    let mut lines = Vec::new();
    for g in tx.event_games(event).await? {
        if g.round != round || g.game.status != GameStatus::Active {
            continue;
        }
        let t = crate::service::loaded_game::load_table(tx, g.game.id).await?;
        let to_move = t.game.turn();
        let deadline = t
            .clock
            .as_ref()
            .and_then(|c| c.clocks(now).players.get(to_move).next_deadline);
        let (player, opponent) = match to_move {
            shakmaty::Color::White => (&t.white, &t.black),
            shakmaty::Color::Black => (&t.black, &t.white),
        };
        lines.push(ReportGame {
            game: g.game.id.0,
            tag: format!("#{:<6}", g.game.id.0),
            player: player.name.clone(),
            email: player.email.to_string(),
            opponent: opponent.name.clone(),
            time_control: g.game.time_control.to_string(),
            deadline: when(deadline),
            silent_days: 0,
            band: 0,
            moves: Some(t.game.plies().len().div_ceil(2)),
        });
    }
    lines.sort_by_key(|l| l.game);
    Ok(lines)
}

/// Pairs a Swiss event's next round when it is due (the daemon's pass);
/// when the pairing refuses, the TDs are told once and the refusal is
/// returned as an error, so that the work is logged and put off until
/// they decide.
pub async fn pair_next_or_tell(
    store: &Store,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<RoundPaired>, ServiceError> {
    match crate::service::td::next_round_due(store, post, event, now).await? {
        NextRound::Paired(paired) => Ok(Some(paired)),
        NextRound::NotDue => Ok(None),
        NextRound::Refused { round, why } => {
            tell_unpaired(store, post, event, round, &why, now).await?;
            Err(
                StoreError::Corrupt(format!("pairing round {round} of event {event}: {why}"))
                    .into(),
            )
        }
    }
}

/// Tells the TDs of a Swiss event that its next round cannot be paired
/// until they decide, and why; once for each round. Returns whether a
/// mail was queued.
async fn tell_unpaired(
    store: &Store,
    post: &Post,
    event: EventId,
    round: u32,
    why: &str,
    now: DateTime<Utc>,
) -> Result<bool, ServiceError> {
    let mut tx = store.begin().await?;
    let name = tx.event(event).await?.name;
    let mut queued = false;
    for td in directors_of_event(&mut tx, event).await? {
        let key = format!("e{}.r{round}.unpaired.{}", event.0, td.email);
        if tx.outbox_has(&key).await? {
            continue;
        }
        let kind = LetterKind::SwissRoundUnpaired {
            event: name.clone(),
            round,
            why: why.to_owned(),
        };
        to_director(post, &mut tx, key, kind, &td, event, None, now).await?;
        queued = true;
    }
    tx.commit().await?;
    Ok(queued)
}
