//! A game's result set or adjudicated by a TD.

use chrono::{DateTime, Utc};

use super::{TdError, event_of, reason_given, table};
use crate::address::EmailAddress;
use crate::chess::game::GameResult;
use crate::ids::GameId;
use crate::service::post::Post;
use crate::store::Tx;
use crate::store::td_log::NewTdAction;

/// Sets or adjudicates a game's result; both players get the game-over mail
/// with the TD's reason. Returns the TD action's id.
pub async fn set_result(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    result: GameResult,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = reason_given(reason, "both players")?;
    let ev = event_of(tx, game, by).await?;
    let record = tx.game_for_update(game).await?;
    let mut chess = record.to_game()?;
    chess.adjudicate(result, reason);
    tx.save_game(
        &record,
        &chess,
        None,
        &Default::default(),
        record.last_offers,
        now,
    )
    .await?;
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: ev.as_ref().map(|e| e.record.id),
                game: Some(game),
                action: "result",
                by: by.as_str(),
                detail: &format!("set game {game} to {}", result.as_pgn()),
                reason,
            },
            now,
        )
        .await?;
    let t = table(tx, game).await?;
    post.game_over(tx, &format!("td{action}.g{}", game.0), &t, &[], now)
        .await?;
    super::finals::mail_final_standings(tx, post, game, now).await?;
    Ok(action)
}
