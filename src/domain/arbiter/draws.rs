//! Draw offers, acceptance, declining and claims, and the event's rules
//! for offers.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::notice::Notice;
use super::reason::{Claimed, Reason, Rejection, RejectionKind, reject, rejection_kind};
use super::{Seat, State, over, tables};
use crate::domain::chess::game::ClaimRejected;
use crate::domain::chess::notation;
use crate::domain::command::{Command, MoveText};

/// The half-move (ply count before it) at which each side last offered a draw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LastOffers {
    /// White's last offer.
    pub white: Option<u32>,
    /// Black's last offer.
    pub black: Option<u32>,
}

impl LastOffers {
    /// One side's last offer.
    pub fn of(&self, side: Color) -> Option<u32> {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    pub(super) fn set(&mut self, side: Color, ply: u32) {
        match side {
            Color::White => self.white = Some(ply),
            Color::Black => self.black = Some(ply),
        }
    }
}

impl State<'_> {
    /// Checks the event's draw rules for an offer by `side` now (before its
    /// move is played), and records the offer.
    pub(super) fn offer_draw(
        &mut self,
        side: Color,
        wrote: &str,
        with_move: bool,
    ) -> Result<(), Rejection> {
        let ply = u32::try_from(self.game.plies().len()).unwrap_or(u32::MAX);
        // The move number the offer goes with.
        let move_number = ply / 2 + 1;
        let first = self.policy.first_offer_move;
        if first > 0 && move_number < first {
            return Err(reject(
                wrote,
                Reason::DrawTooEarly { first, with_move },
                RejectionKind::Other,
            ));
        }
        let between = self.policy.moves_between_offers;
        if between > 0
            && let Some(last) = self.last_offers.of(side)
            && ply < last + 2 * between
        {
            let next = (last + 2 * between) / 2 + 1;
            return Err(reject(
                wrote,
                Reason::DrawTooSoon {
                    between,
                    next,
                    with_move,
                },
                RejectionKind::Other,
            ));
        }
        self.last_offers.set(side, ply);
        Ok(())
    }
}
/// A draw offer without a move.
pub(super) fn offer(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let them = !me;
    let wrote = seat.words(Command::OfferDraw);
    over(st.game, &wrote)?;
    if st.game.turn() == me {
        return Err(reject(wrote, Reason::DrawNeedsMove, RejectionKind::Other));
    }
    if *st.offer == Some(me) {
        return Err(reject(wrote, Reason::DrawOfferStands, RejectionKind::Other));
    }
    *st.offer = Some(me);
    st.notices.push(Notice::DrawOffered { to: them });
    Ok(Some("offered a draw".into()))
}

/// Accepting the opponent's offer.
pub(super) fn accept(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let them = !me;
    let wrote = seat.words(Command::AcceptDraw);
    over(st.game, &wrote)?;
    if *st.offer != Some(them) {
        return Err(reject(
            wrote.clone(),
            Reason::NoDrawToAccept,
            RejectionKind::Other,
        ));
    }
    st.game
        .agree_draw()
        .map_err(|e| reject(wrote, Reason::Game(e), RejectionKind::GameOver))?;
    *st.offer = None;
    Ok(Some("accepted the draw".into()))
}

/// Declining the opponent's offer.
pub(super) fn decline(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let them = !me;
    let wrote = seat.words(Command::DeclineDraw);
    over(st.game, &wrote)?;
    if *st.offer != Some(them) {
        return Err(reject(wrote, Reason::NoDrawToDecline, RejectionKind::Other));
    }
    *st.offer = None;
    st.notices.push(Notice::DrawOfferDeclined { to: them });
    Ok(Some("declined the draw".into()))
}

/// A draw claim, maybe with the move that makes it valid.
pub(super) fn claim(
    st: &mut State<'_>,
    seat: Seat,
    with_move: &Option<MoveText>,
    at: DateTime<Utc>,
) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let wrote = seat.words(Command::ClaimDraw {
        with_move: with_move.clone(),
    });
    over(st.game, &wrote)?;
    if st.game.turn() != me {
        // The tables' word holds whoever is to move; repetition and the
        // 50-move rule are claimed on one's own move only (FIDE 9.2, 9.3).
        if with_move.is_none() && st.tables_in_play() {
            return tables::claim(st, me, Claimed::Draw, None, &wrote, at, None);
        }
        return Err(reject(
            wrote,
            Reason::ClaimNotYourMove,
            RejectionKind::Claim,
        ));
    }
    let mv = named_move(st, seat, with_move, &wrote)?;
    match st.game.draw_by_claim(mv.as_ref(), Some(at)) {
        Ok(_) => {
            *st.offer = None;
            Ok(Some(wrote.clone()))
        }
        Err(e @ ClaimRejected::NotYet { .. }) if st.tables_in_play() => {
            tables::claim(st, me, Claimed::Draw, mv, &wrote, at, Some(e))
        }
        Err(e) => {
            // Documented choice: an invalid claim plays nothing, not
            // even the named move; the player is told so.
            Err(reject(
                wrote,
                Reason::ClaimInvalid {
                    why: e,
                    with_move: with_move.is_some(),
                },
                RejectionKind::Claim,
            ))
        }
    }
}

/// A win claimed on the endgame tables, maybe with the move that brings the
/// position into them (then on one's own move only).
pub(super) fn claim_win(
    st: &mut State<'_>,
    seat: Seat,
    with_move: &Option<MoveText>,
    at: DateTime<Utc>,
) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let wrote = seat.words(Command::ClaimWin {
        with_move: with_move.clone(),
    });
    over(st.game, &wrote)?;
    if with_move.is_some() && st.game.turn() != me {
        return Err(reject(
            wrote,
            Reason::NotYourTurn { to_move: !me },
            RejectionKind::NotYourTurn,
        ));
    }
    let mv = named_move(st, seat, with_move, &wrote)?;
    tables::claim(st, me, Claimed::Win, mv, &wrote, at, None)
}

/// The move a claim names, read in the claimant's notation.
fn named_move(
    st: &State<'_>,
    seat: Seat,
    with_move: &Option<MoveText>,
    wrote: &str,
) -> Result<Option<shakmaty::Move>, Rejection> {
    let Some(text) = with_move else {
        return Ok(None);
    };
    let mode = st.game.castling_mode();
    notation::parse_move(st.game.position(), text.as_str(), seat.lang, mode)
        .map(Some)
        .map_err(|e| {
            let kind = rejection_kind(&e);
            reject(wrote, Reason::Move(e), kind)
        })
}
