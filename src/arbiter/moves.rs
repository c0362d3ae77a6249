//! Moves and resignation.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::conditionals::{Conditionals, fire_conditionals};
use super::notice::Notice;
use super::reason::{Reason, Rejection, RejectionKind, reject, rejection_kind};
use super::{Seat, State, over};
use crate::chess::game::Game;
use crate::chess::notation;
use crate::command::{Command, MoveText};

/// A move, maybe with a draw offer.
pub(super) fn play(
    st: &mut State<'_>,
    seat: Seat,
    text: &MoveText,
    offer_draw: &bool,
    at: DateTime<Utc>,
) -> Result<Option<String>, Rejection> {
    let State {
        game,
        offer,
        conditionals,
        notices,
        ..
    } = st;
    let game: &mut Game = game;
    let offer: &mut Option<Color> = offer;
    let conditionals: &mut Conditionals = conditionals;
    let notices: &mut Vec<Notice> = notices;
    let me = seat.side;
    let them = !me;
    let wrote = text.as_str();
    over(game, wrote)?;
    if game.turn() != me {
        return Err(reject(
            wrote,
            Reason::NotYourTurn { to_move: them },
            RejectionKind::NotYourTurn,
        ));
    }
    let mode = game.castling_mode();
    let before = game.position().clone();
    let mv = notation::parse_move(&before, wrote, seat.lang, mode).map_err(|e| {
        let kind = rejection_kind(&e);
        reject(wrote, Reason::Move(e), kind)
    })?;
    game.play(&mv, Some(at))
        .map_err(|e| reject(wrote, Reason::Game(e), RejectionKind::Illegal))?;
    // A move answers a standing offer from the opponent: declined, and
    // the offerer is told so.
    if *offer == Some(them) {
        *offer = None;
        notices.push(Notice::DrawOfferDeclined { to: them });
    }
    if *offer_draw {
        *offer = Some(me);
    } else if *offer == Some(me) {
        // An offer stands until the opponent moves; our own next move ends it too.
        *offer = None;
    }
    notices.push(Notice::MoveAccepted {
        to: me,
        ply: game.plies().len().saturating_sub(1),
    });
    let mut what = format!(
        "played {}",
        game.plies().last().map(|p| p.san.as_str()).unwrap_or("")
    );
    if *offer_draw {
        what.push_str(" and offered a draw");
    }
    // Lines the mover set earlier belong to the old position.
    conditionals.of_mut(me).clear();
    let fired = fire_conditionals(game, conditionals, at, notices);
    if fired > 0 {
        what.push_str(&format!("; {fired} conditional move(s) played"));
    }
    if !game.is_over() {
        notices.push(Notice::YourMove { to: game.turn() });
    }
    Ok(Some(what))
}

/// Resigning.
pub(super) fn resign(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let State { game, offer, .. } = st;
    let game: &mut Game = game;
    let offer: &mut Option<Color> = offer;
    let me = seat.side;
    let wrote = seat.words(Command::Resign);
    over(game, &wrote)?;
    game.resign(me)
        .map_err(|e| reject(wrote, Reason::Game(e), RejectionKind::GameOver))?;
    *offer = None;
    Ok(Some("resigned".into()))
}
