//! A game's result set, adjudicated or cancelled by a TD: one game
//! (`dopis game result`) or a whole file of them (`import`).

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError, event_of, reason_given, refused, table};
use crate::address::EmailAddress;
use crate::chess::game::{GameResult, Outcome};
use crate::chess::outcome::{Cancellation, ResultKind};
use crate::ids::GameId;
use crate::mail::compose::LetterKind;
use crate::service::post::Post;
use crate::store::Tx;
use crate::store::games::{GameRecord, GameStatus};
use crate::store::td_log::NewTdAction;

/// What a TD rules for one game: a result of a kind, or a cancellation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ruling {
    /// The game ends with this result, reached this way (time,
    /// adjudication or default).
    Result(GameResult, ResultKind),
    /// The game is cancelled: no result, it counts for nobody.
    Cancel,
}

impl Ruling {
    /// A ruling from what a TD wrote: a result (none for `cancelled`) and a
    /// kind. Refused, with what to write instead, when they do not fit.
    pub fn new(result: Option<GameResult>, kind: ResultKind) -> Result<Ruling, String> {
        match (kind, result) {
            (ResultKind::Cancelled, None) => Ok(Ruling::Cancel),
            (ResultKind::Cancelled, Some(r)) => Err(format!(
                "a cancelled game has no result: leave out '{}' (or give another kind)",
                r.as_pgn()
            )),
            (_, None) => Err(format!(
                "give the result (1-0, 0-1 or 1/2-1/2) for kind '{kind}'; only 'cancelled' takes none"
            )),
            (ResultKind::Board, Some(_)) => Err(
                "a TD does not play a game out: give kind time, adjudication, default or cancelled"
                    .to_string(),
            ),
            (ResultKind::Time | ResultKind::Default, Some(GameResult::Draw)) => Err(format!(
                "kind '{kind}' is a win for one side: write 1-0 or 0-1 (a draw is an adjudication)"
            )),
            (_, Some(r)) => Ok(Ruling::Result(r, kind)),
        }
    }

    /// The game's result after the ruling, as PGN writes it (`*` for a
    /// cancellation), with the kind: `1-0 (time)`, `* (cancelled)`.
    pub fn describe(self) -> String {
        match self {
            Ruling::Result(r, kind) => format!("{} ({kind})", r.as_pgn()),
            Ruling::Cancel => format!("* ({})", ResultKind::Cancelled),
        }
    }
}

/// How a stored game stands, as a TD reads it: `*`, `1-0 (time)`,
/// `* (cancelled)`, `* (annulled)`.
pub fn describe_stored(record: &GameRecord) -> String {
    if record.status != GameStatus::Finished {
        return "*".to_string();
    }
    if record.is_cancelled() {
        return Ruling::Cancel.describe();
    }
    let read = record
        .result
        .as_deref()
        .and_then(GameResult::from_pgn)
        .map(|r| {
            let kind = record
                .end_reason
                .as_deref()
                .and_then(|why| Outcome::from_description(r, why))
                .map_or(ResultKind::Board, |o| o.reason.kind());
            format!("{} ({kind})", r.as_pgn())
        });
    read.unwrap_or_else(|| "* (annulled)".to_string())
}

/// Checks that a ruling may be applied to a game as it stands, with no
/// change made: refused for a cancelled or annulled game, and for a
/// cancellation when either player has withdrawn from the event.
pub(super) fn check(
    record: &GameRecord,
    ev: Option<&StoredEvent>,
    ruling: Ruling,
) -> Result<(), TdError> {
    let game = record.id;
    if record.is_cancelled() {
        return refused(format!(
            "game {game} was cancelled: a cancelled game takes no result and cannot be \
             cancelled again"
        ));
    }
    if record.status == GameStatus::Finished && record.result.is_none() {
        return refused(format!(
            "game {game} was annulled by a withdrawal: it takes no result"
        ));
    }
    if ruling == Ruling::Cancel
        && let Some(ev) = ev
    {
        for player in [record.white, record.black] {
            if let Some(e) = ev
                .entrants
                .iter()
                .find(|e| e.player.id == player && e.withdrawn_at.is_some())
            {
                return refused(format!(
                    "{} <{}> has withdrawn from event {}: the withdrawal rule decides their \
                     games; cancel only games between two active players",
                    e.player.name, e.player.email, ev.record.id
                ));
            }
        }
    }
    Ok(())
}

/// Applies a ruling to one game and logs it, without mail. Returns the TD
/// action's id.
pub(super) async fn apply(
    tx: &mut Tx,
    game: GameId,
    ruling: Ruling,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let ev = event_of(tx, game, by).await?;
    let record = tx.game_for_update(game).await?;
    check(&record, ev.as_ref(), ruling)?;
    let detail = match ruling {
        Ruling::Result(result, kind) => {
            let mut chess = record.to_game()?;
            let Some(reason) = kind.ruled(reason) else {
                return refused(format!("kind '{kind}' is not a ruling"));
            };
            chess.rule(Outcome::new(result, reason));
            tx.save_game(
                &record,
                &chess,
                None,
                &Default::default(),
                record.last_offers,
                now,
            )
            .await?;
            // An adjudication is what `game result` always was: its log line
            // reads as before; other kinds say theirs.
            match kind {
                ResultKind::Adjudication => format!("set game {game} to {}", result.as_pgn()),
                _ => format!("set game {game} to {}", ruling.describe()),
            }
        }
        Ruling::Cancel => {
            let ending = Cancellation {
                why: reason.to_owned(),
            };
            tx.cancel_game(game, &ending.to_string(), now).await?;
            format!("cancelled game {game}")
        }
    };
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: ev.as_ref().map(|e| e.record.id),
                game: Some(game),
                action: if ruling == Ruling::Cancel {
                    "cancel"
                } else {
                    "result"
                },
                by: by.as_str(),
                detail: &detail,
                reason,
            },
            now,
        )
        .await?;
    Ok(action)
}

/// Tells both players of a ruled game: the game-over mail with the TD's
/// reason, or, for a cancellation, that the game is cancelled.
pub(super) async fn tell_players(
    tx: &mut Tx,
    post: &Post,
    action: i64,
    game: GameId,
    ruling: Ruling,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<(), TdError> {
    let t = table(tx, game).await?;
    match ruling {
        Ruling::Result(..) => {
            post.game_over(tx, &format!("td{action}.g{}", game.0), &t, &[], now)
                .await?
        }
        Ruling::Cancel => {
            for side in [shakmaty::Color::White, shakmaty::Color::Black] {
                post.to_player(
                    tx,
                    format!(
                        "td{action}.g{}.cancelled.{}",
                        game.0,
                        crate::chess::side::key(side)
                    ),
                    LetterKind::GameCancelled {
                        reason: reason.to_owned(),
                    },
                    &t,
                    side,
                    now,
                )
                .await?;
            }
        }
    }
    // The ruling may have ended the event's last game.
    super::finals::mail_final_standings(tx, post, game, now).await?;
    Ok(())
}

/// Sets, adjudicates or cancels a game's result; both players are told
/// (the game-over mail with the TD's reason, or that the game is
/// cancelled). Returns the TD action's id.
pub async fn set_result(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    ruling: Ruling,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = reason_given(reason, "both players")?;
    let action = apply(tx, game, ruling, reason, by, now).await?;
    tell_players(tx, post, action, game, ruling, reason, now).await?;
    Ok(action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ruling_takes_a_result_that_fits_its_kind() {
        use GameResult::*;
        use ResultKind::*;
        assert_eq!(Ruling::new(None, Cancelled), Ok(Ruling::Cancel));
        assert_eq!(
            Ruling::new(Some(WhiteWins), Time),
            Ok(Ruling::Result(WhiteWins, Time))
        );
        assert_eq!(
            Ruling::new(Some(Draw), Adjudication),
            Ok(Ruling::Result(Draw, Adjudication))
        );
        for (result, kind) in [
            (Some(WhiteWins), Cancelled),
            (None, Time),
            (None, Adjudication),
            (Some(Draw), Time),
            (Some(Draw), Default),
            (Some(WhiteWins), Board),
        ] {
            assert!(Ruling::new(result, kind).is_err(), "{result:?} {kind:?}");
        }
    }
}
