//! Moves and resignation.

use chrono::{DateTime, Utc};

use super::conditionals::fire_conditionals;
use super::notice::Notice;
use super::reason::{Reason, Rejection, RejectionKind, reject, rejection_kind};
use super::{Seat, State, over};
use crate::domain::chess::notation;
use crate::domain::command::{Command, MoveText};

/// A move, maybe with a draw offer.
pub(super) fn play(
    st: &mut State<'_>,
    seat: Seat,
    text: &MoveText,
    offer_draw: &bool,
    at: DateTime<Utc>,
) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let them = !me;
    let wrote = text.as_str();
    over(st.game, wrote)?;
    if st.game.turn() != me {
        return Err(reject(
            wrote,
            Reason::NotYourTurn { to_move: them },
            RejectionKind::NotYourTurn,
        ));
    }
    let mode = st.game.castling_mode();
    let before = st.game.position().clone();
    let mv = notation::parse_move(&before, wrote, seat.lang, mode).map_err(|e| {
        let kind = rejection_kind(&e);
        reject(wrote, Reason::Move(e), kind)
    })?;
    st.game
        .play(&mv, Some(at))
        .map_err(|e| reject(wrote, Reason::Game(e), RejectionKind::Illegal))?;
    // A move answers a standing offer from the opponent: declined, and
    // the offerer is told so.
    if *st.offer == Some(them) {
        *st.offer = None;
        st.notices.push(Notice::DrawOfferDeclined { to: them });
    }
    if *offer_draw {
        *st.offer = Some(me);
    } else if *st.offer == Some(me) {
        // An offer stands until the opponent moves; our own next move ends it too.
        *st.offer = None;
    }
    st.notices.push(Notice::MoveAccepted {
        to: me,
        ply: st.game.plies().len().saturating_sub(1),
    });
    let mut what = format!(
        "played {}",
        st.game.plies().last().map(|p| p.san.as_str()).unwrap_or("")
    );
    if *offer_draw {
        what.push_str(" and offered a draw");
    }
    // Lines the mover set earlier belong to the old position.
    st.conditionals.of_mut(me).clear();
    let fired = fire_conditionals(st.game, st.conditionals, at, st.notices);
    if fired > 0 {
        what.push_str(&format!("; {fired} conditional move(s) played"));
    }
    if !st.game.is_over() {
        st.notices.push(Notice::YourMove { to: st.game.turn() });
    }
    Ok(Some(what))
}

/// Resigning.
pub(super) fn resign(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let wrote = seat.words(Command::Resign);
    over(st.game, &wrote)?;
    st.game
        .resign(me)
        .map_err(|e| reject(wrote, Reason::Game(e), RejectionKind::GameOver))?;
    *st.offer = None;
    Ok(Some("resigned".into()))
}
