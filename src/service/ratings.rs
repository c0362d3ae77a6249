//! The rating list in the database: every rated game moves it in the
//! transaction that ends the game, a TD sets start ratings, and the list is
//! read for `dopis rating list`, crosstables, mails and PGN. The maths is
//! the core's ([`crate::domain::rating`], which says which FIDE rules it follows).
//!
//! Which games are rated:
//! - games of an event whose file does not say `rated = false`;
//! - **not** casual games outside events (`dopis game new`): a TD decides
//!   what is rated through the event file, as FIDE rates only registered
//!   competitions, and two friends trying an opening should not move the
//!   club's list;
//! - only games played: ended over the board by any rule of play
//!   (checkmate, resignation, draws, claims), on time, or by a TD's
//!   adjudication (FIDE rates adjudicated games as played); never a game
//!   closed by a withdrawal (a forfeit without play), and only when both
//!   players made at least one move (FIDE: "Any game where both players
//!   have made at least one move will be rated"); a thematic line's moves,
//!   set before the game began, are nobody's.
//!
//! A game is rated once, when it first ends: a TD who later sets another
//! result for it does not re-rate it (the history shows the result it was
//! rated with). Recomputing the list from the history is not done yet.

use chrono::{DateTime, Datelike, Utc};
use shakmaty::Color;

use crate::adapter::store::games::GameRecord;
use crate::adapter::store::ratings::RatingChange;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::Game;
use crate::domain::chess::game::{EndReason, GameResult, Outcome};
use crate::domain::player::PlayerId;
use crate::domain::rating::{Effect, Period, Score, Source, Standing};

pub use crate::adapter::store::ratings::ListedRating;
use crate::adapter::store::{StoreError, Tx};

/// Whether a game that ended for `reason` was played, as rating counts
/// games: a default (won without play) is not; a TD's time forfeit is, as
/// the clock's is. (A cancelled game has no result and is never rated.)
pub fn played(reason: &EndReason) -> bool {
    match reason {
        EndReason::Checkmate
        | EndReason::Stalemate
        | EndReason::DeadPosition
        | EndReason::FivefoldRepetition
        | EndReason::SeventyFiveMoveRule
        | EndReason::ThreefoldRepetition
        | EndReason::FiftyMoveRule
        | EndReason::Resignation
        | EndReason::Agreement
        | EndReason::TimeForfeit
        | EndReason::TimeForfeitOpponentCannotMate
        | EndReason::TimeForfeitRuled(_)
        | EndReason::Adjudication(_) => true,
        EndReason::Default(_) => false,
    }
}

/// The rating period of an instant: its calendar month in UTC.
pub fn period_of(at: DateTime<Utc>) -> Period {
    Period::of(at.year(), at.month())
}

fn score_of(result: GameResult, side: Color) -> Score {
    match result.winner() {
        None => Score::DRAW,
        Some(w) if w == side => Score::WIN,
        Some(_) => Score::LOSS,
    }
}

/// Rates a game that has just ended, in the transaction that ended it:
/// nothing for a game that is not rated or was rated before. `rated`: its
/// event's `rated` setting (as loaded with the game), `None` outside events.
pub async fn rate_game(
    tx: &mut Tx,
    record: &GameRecord,
    game: &Game,
    rated: Option<bool>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(outcome) = game.outcome() else {
        return Ok(());
    };
    let id = record.id;
    if !counts(game, outcome, rated) || tx.game_in_rating_history(id).await? {
        return Ok(());
    }
    let at = record.finished_at.unwrap_or(now);
    let period = period_of(at);
    let (white, black) = (record.white, record.black);
    // Locked in id order, so two games locking the same two never wait on
    // each other crosswise.
    let (ws, bs) = if white.0 <= black.0 {
        let ws = tx.rating_standing(white).await?;
        (ws, tx.rating_standing(black).await?)
    } else {
        let bs = tx.rating_standing(black).await?;
        (tx.rating_standing(white).await?, bs)
    };
    let (w_for, b_for) = (ws.rating_for(period), bs.rating_for(period));
    for (me, them, mine, opp_rating, side) in [
        (white, black, &ws, b_for, Color::White),
        (black, white, &bs, w_for, Color::Black),
    ] {
        let score = score_of(outcome.result, side);
        let (next, effect) = mine.add_game(period, opp_rating, score);
        let change = history_row(me, them, id.0, period, score, opp_rating, &effect);
        tx.add_rating_change(&change, now).await?;
        tx.save_rating_standing(me, &next, now).await?;
    }
    Ok(())
}

/// Whether the game counts for ratings (see the module's list): only in
/// an event whose stored settings say `rated` (absent: rated).
fn counts(game: &Game, outcome: &Outcome, rated: Option<bool>) -> bool {
    // A thematic line's moves are no one's: each player must have made a
    // move of their own.
    played(&outcome.reason) && game.plies().len() >= game.opening_plies() + 2 && rated == Some(true)
}

fn history_row(
    me: PlayerId,
    them: PlayerId,
    game: i64,
    period: Period,
    score: Score,
    opponent_rating: Option<i32>,
    effect: &Effect,
) -> RatingChange {
    let mut c = RatingChange {
        player: me.0,
        game: Some(game),
        period: Some(period.0),
        opponent: Some(them.0),
        opponent_rating,
        score_halves: Some(score.halves()),
        ..RatingChange::default()
    };
    match *effect {
        Effect::Rated {
            diff,
            expected,
            delta,
            k,
            before,
            after,
            ..
        } => {
            c.kind = "rated".into();
            c.diff = Some(diff);
            c.expected = Some(expected);
            c.delta = Some(delta);
            c.k = Some(k);
            c.before = Some(before);
            c.after = Some(after);
        }
        Effect::FirstGame { first, .. } => {
            c.kind = "first-game".into();
            c.after = first;
        }
        Effect::NotRated => c.kind = "not-rated".into(),
    }
    c
}

/// Why a start rating was refused.
#[derive(Debug, thiserror::Error)]
pub enum SetError {
    /// No player has that address.
    #[error("no player with the address {0}; register them first with `dopis player add`")]
    UnknownPlayer(String),
    /// The rating is outside what a TD may set.
    #[error(
        "rating {0} is out of range: a start rating is a whole number from {min} to {max}",
        min = crate::domain::rating::RANGE.start(),
        max = crate::domain::rating::RANGE.end()
    )]
    OutOfRange(i64),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Sets a player's start rating (brought from ICCF or FIDE, or the TD's
/// estimate): the player's list entry starts again from it, and the history
/// records who set it. Returns the rating before, if any.
pub async fn set_start(
    tx: &mut Tx,
    email: &EmailAddress,
    rating: i64,
    source: Source,
    by: &str,
    now: DateTime<Utc>,
) -> Result<Option<i32>, SetError> {
    let player = tx
        .player_by_email(email.as_str())
        .await?
        .ok_or_else(|| SetError::UnknownPlayer(email.to_string()))?;
    let value = i32::try_from(rating)
        .ok()
        .filter(|r| crate::domain::rating::RANGE.contains(r))
        .ok_or(SetError::OutOfRange(rating))?;
    let before = tx.rating_standing(player.id).await?;
    let mut next = Standing::with_start(value, source);
    // The games already played still count for K's 30 games.
    next.games = before.games;
    tx.save_rating_standing(player.id, &next, now).await?;
    tx.add_rating_change(
        &RatingChange {
            player: player.id.0,
            kind: "set".into(),
            before: before.rating,
            after: Some(value),
            source: Some(source.key().into()),
            set_by: Some(by.to_string()),
            ..RatingChange::default()
        },
        now,
    )
    .await?;
    Ok(before.rating)
}

/// The rating list, best first; the unrated with games towards a first
/// rating after them.
pub async fn list(tx: &mut Tx) -> Result<Vec<ListedRating>, StoreError> {
    tx.rating_list().await
}

/// The players' ratings for a game, white's and black's: those it was rated
/// against once it is rated, else the ratings of the list now.
pub async fn game_ratings(
    tx: &mut Tx,
    record: &GameRecord,
) -> Result<[Option<i32>; 2], StoreError> {
    let (white, black) = (record.white, record.black);
    let used = tx.ratings_in_game(record.id).await?;
    if !used.is_empty() {
        // Each row holds the rating its player's opponent was rated at.
        let of = |p: PlayerId| used.iter().find(|(me, _)| *me != p).and_then(|(_, r)| *r);
        return Ok([of(white), of(black)]);
    }
    let now = tx.ratings_of(&[white, black]).await?;
    Ok([now.get(&white).copied(), now.get(&black).copied()])
}

/// The ratings shown of some players (the unrated are absent).
pub async fn ratings_of(
    tx: &mut Tx,
    players: &[PlayerId],
) -> Result<std::collections::HashMap<PlayerId, i32>, StoreError> {
    tx.ratings_of(players).await
}
