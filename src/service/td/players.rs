//! Players leaving a started event: withdrawn (their open games forfeited
//! or annulled) or replaced by a substitute.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::stored::rule_key;
use super::{
    StoredEvent, TdError, reason_given, refused, registered, standings::standings, table, tell,
};
use crate::adapter::mail::compose::{LetterKind, ReplacementRole, WithdrawnGame};
use crate::adapter::store::Tx;
use crate::adapter::store::events::EventStatus;
use crate::adapter::store::games::{EventGame, GameStatus};
use crate::adapter::store::td_log::NewTdAction;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::{GameResult, Outcome};
use crate::domain::chess::outcome::WithdrawalForfeit;
use crate::domain::event::standings::Counted;
use crate::domain::ids::EventId;
use crate::domain::ids::GameId;
use crate::domain::player::Player;
use crate::service::post::Post;

async fn seated(tx: &mut Tx, ev: &StoredEvent, email: &EmailAddress) -> Result<Player, TdError> {
    let player = registered(tx, email).await?;
    match ev.seat_of(player.id) {
        Some(e) if e.withdrawn_at.is_some() => refused(format!(
            "{email} has withdrawn from event {} already",
            ev.record.id
        )),
        Some(_) => Ok(player),
        None => refused(format!(
            "{email} plays in no seat of event {}; `dopis event show {}` lists its players",
            ev.record.id, ev.record.id
        )),
    }
}

fn check_started(ev: &StoredEvent) -> Result<(), TdError> {
    if ev.record.status != EventStatus::Started {
        return refused(format!(
            "event {} has not started: change its entrants with add-player/add-team, or \
             create it again from a corrected file",
            ev.record.id
        ));
    }
    Ok(())
}

/// What every TD action on a started event checks first: a reason (it is
/// recorded and told to the players), a TD of the event, and that the event
/// has started. Returns the event and the trimmed reason.
async fn started_event_action<'r>(
    tx: &mut Tx,
    event: EventId,
    reason: &'r str,
    by: &EmailAddress,
) -> Result<(StoredEvent, &'r str), TdError> {
    let reason = reason_given(reason, "the players")?;
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    check_started(&ev)?;
    Ok((ev, reason))
}

/// Withdraws a player from a started event: their unfinished games close,
/// scored by the event's rule (forfeit or annulled); every opponent is told
/// about their game and the player about all of them. Returns the TD
/// action's id.
pub async fn withdraw(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    email: &EmailAddress,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let (ev, reason) = started_event_action(tx, event, reason, by).await?;
    let player = seated(tx, &ev, email).await?;
    let rule = rule_key(ev.event.withdrawal);
    tx.withdraw_entrant(event, player.id, rule, now).await?;
    // The standings with the withdrawal say what each open game becomes.
    let ev = StoredEvent::load(tx, event).await?;
    let counted = standings(tx, &ev).await?.counted;
    let games = tx.event_games(event).await?;
    let mine: Vec<&EventGame> = games
        .iter()
        .filter(|g| g.game.status == GameStatus::Active)
        .filter(|g| g.game.side_of(player.id).is_some())
        .collect();
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: Some(event),
                game: None,
                action: "withdraw",
                by: by.as_str(),
                detail: &format!(
                    "withdrew {} <{}> under rule {rule}; {} unfinished games closed",
                    player.name,
                    player.email,
                    mine.len()
                ),
                reason,
            },
            now,
        )
        .await?;
    let mut closed = Vec::new();
    let mut last_closed = None;
    for g in mine {
        let id = g.game.id;
        let Some(side) = g.game.side_of(player.id) else {
            continue;
        };
        // What the standings make of the game is what the opponent is
        // told, in team events as in individual ones.
        let forfeit = match counted.get(&id) {
            Some(Counted::Annulled) => false,
            Some(_) | None => true,
        };
        if forfeit {
            let result = match side {
                Color::White => GameResult::BlackWins,
                Color::Black => GameResult::WhiteWins,
            };
            let forfeit = WithdrawalForfeit {
                player: player.name.clone(),
                event: ev.event.name.clone(),
            };
            let text = Outcome::new(result, forfeit.end_reason()).to_string();
            tx.close_by_withdrawal(id, Some((result.as_pgn(), &text)), now)
                .await?;
        } else {
            tx.close_by_withdrawal(id, None, now).await?;
        }
        let t = table(tx, id).await?;
        last_closed = Some(id);
        let opponent = t.player(!side).clone();
        closed.push(WithdrawnGame {
            game: id.0,
            opponent: opponent.name.clone(),
            forfeit,
        });
        post.to_player(
            tx,
            format!("td{action}.g{}.withdrawal", id.0),
            LetterKind::Withdrawal {
                event: ev.event.name.clone(),
                player: player.name.clone(),
                effect: if forfeit { "forfeit_win" } else { "annulled" }.into(),
                reason: reason.to_string(),
                games: Vec::new(),
            },
            &t,
            !side,
            now,
        )
        .await?;
    }
    // Games the player had finished that the withdrawal annuls (they
    // finished fewer than half): their opponents lose the result, and are
    // told so.
    let annulled_finished = games.iter().filter(|g| {
        g.game.status == GameStatus::Finished
            && g.game.result.is_some()
            && g.game.side_of(player.id).is_some()
            && counted.get(&g.game.id) == Some(&Counted::Annulled)
    });
    for g in annulled_finished {
        let Some(side) = g.game.side_of(player.id) else {
            continue;
        };
        let t = table(tx, g.game.id).await?;
        post.to_player(
            tx,
            format!("td{action}.g{}.withdrawal", g.game.id.0),
            LetterKind::Withdrawal {
                event: ev.event.name.clone(),
                player: player.name.clone(),
                effect: "annulled".into(),
                reason: reason.to_string(),
                games: Vec::new(),
            },
            &t,
            !side,
            now,
        )
        .await?;
    }
    tell(
        tx,
        post,
        format!("td{action}.withdrawn"),
        LetterKind::Withdrawal {
            event: ev.event.name.clone(),
            player: player.name.clone(),
            effect: String::new(),
            reason: reason.to_string(),
            games: closed,
        },
        &player,
        now,
    )
    .await?;
    // Closing the player's games may have ended the event.
    if let Some(last) = last_closed {
        super::finals::mail_final_standings(tx, post, last, now).await?;
    }
    Ok(action)
}

/// Replaces a player of a started event by a registered substitute, who
/// inherits the seat and every game; the substitute gets a mail for each
/// game still being played (with its reply address), the opponents are
/// told, and so is the player replaced. Returns the TD action's id.
#[allow(clippy::too_many_arguments)]
pub async fn replace(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    old: &EmailAddress,
    new: &EmailAddress,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let (ev, reason) = started_event_action(tx, event, reason, by).await?;
    let leaving = seated(tx, &ev, old).await?;
    let substitute = registered(tx, new).await?;
    if ev.seat_of(substitute.id).is_some() {
        return refused(format!(
            "{new} already plays in event {event}; a substitute must not hold a seat"
        ));
    }
    tx.replace_entrant(event, leaving.id, substitute.id).await?;
    let games = tx.event_games(event).await?;
    let theirs: Vec<GameId> = games
        .iter()
        .filter(|g| g.game.side_of(leaving.id).is_some())
        .map(|g| g.game.id)
        .collect();
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: Some(event),
                game: None,
                action: "replace",
                by: by.as_str(),
                detail: &format!(
                    "replaced {} <{}> by {} <{}> in {} games",
                    leaving.name,
                    leaving.email,
                    substitute.name,
                    substitute.email,
                    theirs.len()
                ),
                reason,
            },
            now,
        )
        .await?;
    for id in theirs {
        tx.switch_game_player(id, leaving.id, substitute.id).await?;
        let t = table(tx, id).await?;
        if t.record.status != GameStatus::Active {
            continue;
        }
        let Some(side) = t.record.side_of(substitute.id) else {
            continue;
        };
        for (to_side, role) in [
            (side, ReplacementRole::Substitute),
            (!side, ReplacementRole::Opponent),
        ] {
            post.to_player(
                tx,
                format!("td{action}.g{}.{}", id.0, role.key()),
                LetterKind::Replaced {
                    event: ev.event.name.clone(),
                    old: leaving.name.clone(),
                    new: substitute.name.clone(),
                    role,
                    reason: reason.to_string(),
                },
                &t,
                to_side,
                now,
            )
            .await?;
        }
    }
    tell(
        tx,
        post,
        format!("td{action}.replaced"),
        LetterKind::Replaced {
            event: ev.event.name.clone(),
            old: leaving.name.clone(),
            new: substitute.name.clone(),
            role: ReplacementRole::Replaced,
            reason: reason.to_string(),
        },
        &leaving,
        now,
    )
    .await?;
    Ok(action)
}
