//! Half-point byes in Swiss events (issue 25): a seated player asks by
//! mail (`bye 12 round 4`, see [`crate::service::swiss_byes`]), or a TD
//! asks for them (`dopis event bye`), before the round is paired, up to
//! the event file's `max_half_point_byes`; the rules are the pure
//! [`byes`](crate::domain::event::swiss::byes) module's, the same for
//! both. A granted bye is a `swiss_byes` row, committed with its answer;
//! the round's pairing leaves the seat unpaired (`swiss`) and the table
//! scores it a draw's points (`swiss_table`). A refusal changes nothing.

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError, refused, registered, tell};
use crate::adapter::mail::compose::{ByeNews, LetterKind};
use crate::adapter::store::events::{EventStatus, SwissBye};
use crate::adapter::store::td_log::NewTdAction;
use crate::adapter::store::{StoreError, Tx};
use crate::domain::address::EmailAddress;
use crate::domain::event::file::EventKind;
use crate::domain::event::swiss::byes::{ByeAsk, may_have_bye};
use crate::domain::ids::EventId;
use crate::domain::player::Player;
use crate::service::post::Post;

/// News about a bye in event `number` that names no event yet.
fn news(kind: &'static str, number: i64, round: u32) -> ByeNews {
    ByeNews {
        kind,
        event: number,
        name: String::new(),
        round,
        points: String::new(),
        used: 0,
        max: 0,
        rounds: 0,
        next: 0,
        why: "",
        by_td: false,
        reason: String::new(),
    }
}

/// Asks for `player`'s half-point bye in `round` of event `number`: the
/// bye recorded and the news that says so (`granted`), or the news of the
/// refusal (`refused`, with why), which changed nothing. `td` is the TD
/// who asks, with their reason.
pub(crate) async fn ask(
    tx: &mut Tx,
    number: i64,
    player: &Player,
    round: u32,
    td: Option<(&EmailAddress, &str)>,
    now: DateTime<Utc>,
) -> Result<ByeNews, TdError> {
    let mut said = news("refused", number, round);
    if let Some((_, reason)) = td {
        said.by_td = true;
        said.reason = reason.to_string();
    }
    let ev = match StoredEvent::load(tx, EventId(number)).await {
        Ok(ev) if number > 0 => ev,
        Ok(_) | Err(TdError::Store(StoreError::UnknownEvent(_))) => {
            said.why = "no-event";
            return Ok(said);
        }
        Err(e) => return Err(e),
    };
    said.name = ev.event.name.clone();
    let EventKind::Swiss { rules, .. } = &ev.event.kind else {
        said.why = "not-swiss";
        return Ok(said);
    };
    said.rounds = rules.rounds;
    said.max = rules.max_half_point_byes;
    said.points = rules.point_system(&ev.event.scoring).draw.to_string();
    let Some(seat) = ev.seat_of(player.id).and_then(|e| e.seat.map(|s| (s, e))) else {
        said.why = "not-yours";
        return Ok(said);
    };
    let (seat, entrant) = seat;
    let paired = tx
        .swiss_rounds(ev.record.id)
        .await?
        .iter()
        .map(|r| r.round)
        .max()
        .unwrap_or(0);
    said.next = if paired < rules.rounds { paired + 1 } else { 0 };
    let mine: Vec<u32> = tx
        .swiss_byes(ev.record.id)
        .await?
        .into_iter()
        .filter(|b| b.seat == seat)
        .map(|b| b.round)
        .collect();
    said.used = u32::try_from(mine.len()).unwrap_or(u32::MAX);
    let verdict = may_have_bye(&ByeAsk {
        round,
        rounds: rules.rounds,
        paired,
        started: ev.record.status == EventStatus::Started,
        withdrawn: entrant.withdrawn_at.is_some(),
        mine: &mine,
        max: rules.max_half_point_byes,
    });
    if let Err(why) = verdict {
        said.why = why.key();
        return Ok(said);
    }
    if !tx
        .add_swiss_bye(ev.record.id, SwissBye { seat, round }, now)
        .await?
    {
        // Asked at the same moment by another mail: held already.
        said.why = "already";
        return Ok(said);
    }
    said.kind = "granted";
    said.used += 1;
    Ok(said)
}

/// The refusal of a bye asked for by a mail that does not prove its
/// sender (no reply token): nothing is looked up, nothing changes.
pub(crate) fn unproven(number: i64, round: u32) -> ByeNews {
    ByeNews {
        why: "unproven",
        ..news("refused", number, round)
    }
}

/// The refusal in a TD's words (the CLI prints it; nothing was changed).
fn refusal_text(n: &ByeNews, email: &EmailAddress) -> String {
    let (event, round) = (n.event, n.round);
    let why = match n.why {
        "no-event" => format!("there is no event {event}; `dopis event list` lists them"),
        "not-swiss" => format!("event {event} is not a Swiss event: only Swiss events have byes"),
        "not-yours" => format!(
            "{email} plays in no seat of event {event}; `dopis event show {event}` lists its players"
        ),
        "withdrawn" => format!("{email} has withdrawn from event {event}"),
        "not-started" => format!(
            "event {event} has not started: pairing numbers are given at its start, and byes asked for after it"
        ),
        "no-round" => format!("event {event} has rounds 1 to {}", n.rounds),
        "finished" => format!("every round of event {event} is paired already"),
        "paired" => format!(
            "round {round} of event {event} is paired already; the next round to be paired is {}",
            n.next
        ),
        "already" => format!("{email} has a half-point bye in round {round} already"),
        "none-given" => format!(
            "event {event} gives no half-point byes (max_half_point_byes = 0), and the limit binds a TD too"
        ),
        "limit" => format!(
            "{email} has {} of the {} half-point byes event {event} gives; the limit binds a TD too",
            n.used, n.max
        ),
        other => other.to_string(),
    };
    format!("no bye given: {why}. Nothing was changed")
}

/// `dopis event bye`: a TD asks for a player's half-point bye, by the
/// same rules as the player's own mail. The TD's log records it and the
/// player is told. Returns the TD action's id.
#[allow(clippy::too_many_arguments)]
pub async fn grant_bye(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    email: &EmailAddress,
    round: u32,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = super::reason_given(reason, "the player")?;
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    let player = registered(tx, email).await?;
    let said = ask(tx, event.0, &player, round, Some((by, reason)), now).await?;
    if said.kind != "granted" {
        return refused(refusal_text(&said, email));
    }
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: Some(event),
                game: None,
                action: "bye",
                by: by.as_str(),
                detail: &format!(
                    "half-point bye for {} <{}> in round {round} ({} of {})",
                    player.name, player.email, said.used, said.max
                ),
                reason,
            },
            now,
        )
        .await?;
    let key = format!("td{action}.bye");
    tell(
        tx,
        post,
        key,
        LetterKind::SwissBye { news: said },
        &player,
        now,
    )
    .await?;
    Ok(action)
}

/// Tells a player whose asked-for bye's round was just paired that they
/// are not in it (sent with the round's pairing, in its transaction).
pub(super) async fn tell_paired(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    player: &Player,
    round: u32,
    now: DateTime<Utc>,
) -> Result<(), TdError> {
    let EventKind::Swiss { rules, .. } = &ev.event.kind else {
        return Ok(());
    };
    let mut said = news("paired", ev.record.id.0, round);
    said.name = ev.event.name.clone();
    said.rounds = rules.rounds;
    said.max = rules.max_half_point_byes;
    said.points = rules.point_system(&ev.event.scoring).draw.to_string();
    said.next = if round < rules.rounds { round + 1 } else { 0 };
    let key = format!("e{}.hbye.{round}.{}", ev.record.id.0, player.email);
    let kind = LetterKind::SwissBye { news: said };
    tell(tx, post, key, kind, player, now).await?;
    Ok(())
}
