//! A Swiss event's current round paired again by a TD (`dopis event
//! repair-round`), before any of its games has a move: after a result of
//! the round before was corrected, or a late entry. In one transaction the
//! round's games are cancelled (they count for nobody, and the tournament
//! the pairing reads leaves them out), its `swiss_rounds` row is deleted
//! and the round is paired again from the tournament as it now stands;
//! the players of the cancelled games are told, and the new pairing's
//! mails go out. The TD action's id keeps every mail's outbox key apart
//! from the first pairing's (and from an earlier re-pairing's).

use chrono::{DateTime, Utc};

use super::swiss::{RoundPaired, pair_round_again};
use super::swiss_table::rules_of;
use super::{StoredEvent, TdError, reason_given, refused};
use crate::adapter::store::Tx;
use crate::adapter::store::events::EventStatus;
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::td_log::NewTdAction;
use crate::domain::address::EmailAddress;
use crate::domain::chess::outcome::Cancellation;
use crate::domain::ids::EventId;
use crate::service::post::Post;

/// Pairs the last paired round of a started Swiss event again; refused
/// once a game of the round has a move or has ended. Returns the new
/// pairing.
pub async fn repair_round(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<RoundPaired, TdError> {
    let reason = reason_given(reason, "the players")?;
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    rules_of(&ev)?;
    if ev.record.status != EventStatus::Started {
        return refused(format!(
            "event {event} is not being played: only a started event's current round is paired again"
        ));
    }
    let rounds = tx.swiss_rounds(event).await?;
    let Some(round) = rounds.iter().map(|r| r.round).max() else {
        return refused(format!("event {event} has no round paired yet"));
    };
    let games: Vec<_> = tx
        .event_games(event)
        .await?
        .into_iter()
        .filter(|g| g.round == round && !g.game.is_cancelled())
        .collect();
    for g in &games {
        let id = g.game.id;
        // With its moves (the event's list leaves them out), and on
        // PostgreSQL locked: a move arriving now waits for this decision.
        let record = tx.game_for_update(id).await?;
        if record.moves.len() > record.opening_plies as usize {
            return refused(format!(
                "game {id} of round {round} has a move already: a round is paired again only before any of its games has one; decide its games as any others (dopis game result)"
            ));
        }
        if g.game.status == GameStatus::Finished {
            return refused(format!(
                "game {id} of round {round} has ended: a round is paired again only while none of its games has; decide its games as any others (dopis game result)"
            ));
        }
    }
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: Some(event),
                game: None,
                action: "repair-round",
                by: by.as_str(),
                detail: &format!(
                    "paired round {round} again; {} games cancelled",
                    games.len()
                ),
                reason,
            },
            now,
        )
        .await?;
    let ending = Cancellation {
        why: reason.to_owned(),
    }
    .to_string();
    for g in &games {
        tx.cancel_game(g.game.id, &ending, now).await?;
    }
    tx.delete_swiss_round(event, round).await?;
    let ev = StoredEvent::load(tx, event).await?;
    let new = pair_round_again(tx, post, &ev, round, Some(action), now).await?;
    // Told after the new games exist: the event is not over meanwhile.
    for g in &games {
        super::results::tell_players(
            tx,
            post,
            action,
            g.game.id,
            super::results::Ruling::Cancel,
            reason,
            now,
        )
        .await?;
    }
    Ok(RoundPaired {
        event,
        round,
        games: new,
    })
}
