//! A player's deadline extended by a TD.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::{TdError, event_of, reason_given, refused, table};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::store::Tx;
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::td_log::{DeadlineExtension, NewTdAction};
use crate::domain::address::EmailAddress;
use crate::domain::chess::side;
use crate::domain::ids::GameId;
use crate::service::post::Post;

/// Extends a player's deadline in a game by `days`: stored for the clock,
/// logged, and both players told. `side` defaults to the side to move.
#[allow(clippy::too_many_arguments)]
pub async fn extend(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    days: u32,
    side: Option<Color>,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = reason_given(reason, "both players")?;
    if !(1..=365).contains(&days) {
        return refused("--days must be from 1 to 365");
    }
    let ev = event_of(tx, game, by).await?;
    let t = table(tx, game).await?;
    if t.game.is_over() || t.record.status == GameStatus::Finished {
        return refused(format!(
            "game {game} is over: there is no deadline to extend"
        ));
    }
    let side = side.unwrap_or_else(|| t.game.turn());
    let player = t.player(side).clone();
    tx.add_deadline_extension(&DeadlineExtension {
        game,
        side: side::key(side).to_string(),
        days,
        granted_by: by.to_string(),
        reason: reason.to_string(),
        granted_at: now,
    })
    .await?;
    // The clock now has the extra days: mails show the new deadline, and the
    // scheduler looks at the game afresh.
    let t = table(tx, game).await?;
    crate::service::schedule::reschedule(tx, &t, None, now).await?;
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: ev.as_ref().map(|e| e.record.id),
                game: Some(game),
                action: "extend",
                by: by.as_str(),
                detail: &format!(
                    "gave {} ({}) {days} more days in game {game}",
                    player.name,
                    side::key(side)
                ),
                reason,
            },
            now,
        )
        .await?;
    for to_side in [Color::White, Color::Black] {
        post.to_player(
            tx,
            format!("td{action}.g{}.extend.{}", game.0, side::key(to_side)),
            LetterKind::DeadlineExtended {
                player: player.name.clone(),
                days,
                reason: reason.to_string(),
            },
            &t,
            to_side,
            now,
        )
        .await?;
    }
    Ok(action)
}
