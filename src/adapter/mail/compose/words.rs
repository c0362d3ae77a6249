//! Typed reasons and notes as the values `templates/<lang>/reason.txt`
//! reads: `key` names the sentence, the other fields fill it in.

use serde_json::{Value, json};
use shakmaty::{CastlingSide, Role, Square};

use super::context::reason_key;
use super::tables::{result_key, table_proof, table_reading};
use crate::domain::arbiter::{Claimed, ConditionalNote, Reason, TableRefusal};
use crate::domain::chess::game::{ClaimRejected, Game, GameError};
use crate::domain::chess::notation::{Area, Candidate, IllegalReason, Meaning, MoveTextError};
use crate::domain::chess::outcome::Outcome;
use crate::domain::chess::side;
use crate::domain::chess::tablebase::TableProof;
use crate::domain::clock::{Leave, LeaveError, LeaveKind, leave::MAX_LEAVE_DAYS};
use crate::domain::lang::Lang;

/// The template value of a reason.
pub(crate) fn reason(r: &Reason) -> Value {
    match r {
        Reason::Move(e) => json!({"key": "move", "error": move_error(e)}),
        Reason::Game(e) => json!({"key": "game", "error": game_error(e)}),
        Reason::Leave(e) => json!({"key": "leave", "error": leave_error(e)}),
        Reason::GameOver(o) => json!({"key": "game_over", "outcome": outcome(o)}),
        Reason::NotYourTurn { to_move } => {
            json!({"key": "not_your_turn", "to_move": side::key(*to_move)})
        }
        Reason::DrawTooEarly { first, with_move } => {
            json!({"key": "draw_too_early", "first": first, "with_move": with_move})
        }
        Reason::DrawTooSoon {
            between,
            next,
            with_move,
        } => {
            json!({"key": "draw_too_soon", "between": between, "next": next, "with_move": with_move})
        }
        Reason::DrawNeedsMove => key("draw_needs_move"),
        Reason::DrawOfferStands => key("draw_offer_stands"),
        Reason::NoDrawToAccept => key("no_draw_to_accept"),
        Reason::NoDrawToDecline => key("no_draw_to_decline"),
        Reason::ClaimNotYourMove => key("claim_not_your_move"),
        Reason::ClaimInvalid { why, with_move } => {
            json!({"key": "claim_invalid", "error": claim(why), "with_move": with_move})
        }
        Reason::TableClaimInvalid {
            claimed,
            why,
            with_move,
            fide,
        } => json!({
            "key": "table_claim_invalid",
            "claimed": match claimed {
                Claimed::Win => "win",
                Claimed::Draw => "draw",
            },
            "why": table_refusal(why),
            "with_move": with_move,
            "fide": fide.as_ref().map(claim),
        }),
        Reason::ConditionalOnYourMove => key("conditional_on_your_move"),
        Reason::ConditionalShape => key("conditional_shape"),
        Reason::ConditionalMove {
            yours,
            text,
            index,
            why,
        } => json!({
            "key": "conditional_move",
            "yours": yours,
            "text": text,
            "index": index,
            "error": move_error(why),
        }),
        Reason::ConditionalIllegal { text } => json!({"key": "conditional_illegal", "text": text}),
        Reason::Empty => key("empty"),
        Reason::NotACommand => key("not_a_command"),
        Reason::MessageOnNextLine => key("message_on_next_line"),
        Reason::ReportNotHere => key("report_not_here"),
        Reason::Annulled => key("annulled"),
        Reason::NoGameInProgress => key("no_game_in_progress"),
        Reason::WhichGame { games } => {
            let games: Vec<String> = games.iter().map(|g| g.to_string()).collect();
            json!({"key": "which_game", "games": games})
        }
        Reason::NotInEvent { game } => json!({"key": "not_in_event", "game": game.to_string()}),
        Reason::LeaveNeedsGame => key("leave_needs_game"),
        Reason::ConfirmationNotYours { from } => {
            json!({"key": "confirmation_not_yours", "from": from})
        }
        Reason::NoSuchGame { game } => json!({"key": "no_such_game", "game": game.to_string()}),
        Reason::NotYourAddress { game, from } => {
            json!({"key": "not_your_address", "game": game.to_string(), "from": from})
        }
        Reason::WrongToken { game } => json!({"key": "wrong_token", "game": game.to_string()}),
        Reason::NotYourGame { game } => json!({"key": "not_your_game", "game": game.to_string()}),
        Reason::NotYourSidesMove { game, team } => {
            json!({"key": "not_your_sides_move", "game": game.to_string(), "team": team})
        }
        Reason::MembersVote { game, captain } => {
            json!({"key": "members_vote", "game": game.to_string(), "captain": captain})
        }
        Reason::UnknownSender { from } => json!({"key": "unknown_sender", "from": from}),
        Reason::Unsigned { from } => json!({"key": "unsigned", "from": from}),
        Reason::DigestNotYourAddress { from } => {
            json!({"key": "digest_not_your_address", "from": from})
        }
        Reason::DigestWrongToken => key("digest_wrong_token"),
        Reason::XfccNeedsGame => key("xfcc_needs_game"),
        Reason::DigestLinesUnnamed { example, games } => {
            json!({"key": "digest_lines_unnamed", "example": example.to_string(), "games": games})
        }
    }
}

/// The template value of a note about conditional moves; a move it names
/// is written from `game` in `lang`'s letters.
pub(crate) fn note(n: &ConditionalNote, game: Option<&Game>, lang: Lang) -> Value {
    match n {
        ConditionalNote::Set => key("conditionals_set"),
        ConditionalNote::None => key("conditionals_none"),
        ConditionalNote::Listed => key("conditionals_listed"),
        ConditionalNote::Cancelled => key("conditionals_cancelled"),
        ConditionalNote::HadNone => key("conditionals_had_none"),
        ConditionalNote::Unexpected { ply } => {
            let san = game
                .and_then(|g| super::context::move_at(g, *ply, lang))
                .map(|(numbered, _)| numbered)
                .unwrap_or_default();
            json!({"key": "conditionals_unexpected", "san": san})
        }
    }
}

fn key(key: &str) -> Value {
    json!({ "key": key })
}

fn role(r: Role) -> &'static str {
    match r {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

fn castling(s: CastlingSide) -> &'static str {
    match s {
        CastlingSide::KingSide => "king",
        CastlingSide::QueenSide => "queen",
    }
}

fn sq(s: Square) -> String {
    s.to_string()
}

fn outcome(o: &Outcome) -> Value {
    let winner = o.result.winner();
    json!({
        "reason": reason_key(&o.reason),
        "winner": winner.map(side::key),
        "loser": winner.map(|w| side::key(!w)),
        "adjudication": o.reason.ruling(),
        "tables": match &o.reason {
            crate::domain::chess::outcome::EndReason::Adjudication(why) => {
                TableProof::read(why).map(|p| table_proof(&p))
            }
            _ => None,
        },
        "sentence": o.to_string(),
    })
}

fn move_error(e: &MoveTextError) -> Value {
    match e {
        MoveTextError::Illegal { text, reason } => {
            json!({"key": "illegal", "text": text, "why": illegal(reason)})
        }
        MoveTextError::Ambiguous { text, candidates } => json!({
            "key": "ambiguous",
            "text": text,
            "candidates": candidates.iter().map(candidate).collect::<Vec<_>>(),
        }),
        MoveTextError::Unreadable {
            text,
            read,
            examples,
        } => json!({"key": "unreadable", "text": text, "read": read, "examples": examples}),
        MoveTextError::WrongMoveNumber { written, expected } => {
            json!({"key": "wrong_move_number", "written": written, "expected": expected})
        }
    }
}

fn candidate(c: &Candidate) -> Value {
    let meaning = match &c.meaning {
        Meaning::Castling(s) => json!({"kind": "castling", "side": castling(*s)}),
        Meaning::Move {
            role: r,
            from,
            to,
            promotion,
        } => json!({
            "kind": "move",
            "role": role(*r),
            "from": sq(*from),
            "to": sq(*to),
            "promotion": promotion.map(role),
        }),
        Meaning::Other(uci) => json!({"kind": "other", "uci": uci}),
    };
    json!({"written": c.written, "meaning": meaning})
}

fn illegal(w: &IllegalReason) -> Value {
    use IllegalReason::*;
    match w {
        NoPieceOn { square } => json!({"key": "no_piece_on", "square": sq(*square)}),
        NotYourPiece { square, role: r } => {
            json!({"key": "not_your_piece", "square": sq(*square), "role": role(*r)})
        }
        WrongPiece {
            square,
            written,
            found,
        } => json!({
            "key": "wrong_piece",
            "square": sq(*square),
            "written": role(*written),
            "found": role(*found),
        }),
        NoSuchPiece { role: r, place } => {
            let (area, place) = match place {
                Some(Area::Square(s)) => (Some("square"), Some(sq(*s))),
                Some(Area::File(f)) => (Some("file"), Some(f.char().to_string())),
                Some(Area::Rank(r)) => (Some("rank"), Some(r.char().to_string())),
                None => (None, None),
            };
            json!({"key": "no_such_piece", "role": role(*r), "area": area, "place": place})
        }
        CannotReach { role: r, from, to } => json!({
            "key": "cannot_reach",
            "role": role(*r),
            "from": from.map(sq),
            "to": sq(*to),
        }),
        OwnPieceOn { square, role: r } => {
            json!({"key": "own_piece_on", "square": sq(*square), "role": role(*r)})
        }
        NothingToCapture { square } => {
            json!({"key": "nothing_to_capture", "square": sq(*square)})
        }
        PromotionNeeded { to } => json!({"key": "promotion_needed", "to": sq(*to)}),
        NoPromotionHere => key("no_promotion_here"),
        CannotPromoteTo { role: r } => json!({"key": "cannot_promote_to", "role": role(*r)}),
        Pinned {
            role: r,
            square,
            by_role,
            by,
        } => json!({
            "key": "pinned",
            "role": role(*r),
            "square": sq(*square),
            "by_role": role(*by_role),
            "by": sq(*by),
        }),
        InCheck { by_role, by } => {
            json!({"key": "in_check", "by_role": role(*by_role), "by": sq(*by)})
        }
        KingWouldBeInCheck { on } => {
            json!({"key": "king_would_be_in_check", "on": on.map(sq)})
        }
        KingHasMoved => key("king_has_moved"),
        RookHasMoved { square, side } => json!({
            "key": "rook_has_moved",
            "square": sq(*square),
            "side": castling(*side),
        }),
        CastlingRightLost { side } => {
            json!({"key": "castling_right_lost", "side": castling(*side)})
        }
        CastlingOutOfCheck { by_role, by } => json!({
            "key": "castling_out_of_check",
            "by_role": role(*by_role),
            "by": sq(*by),
        }),
        CastlingBlocked { side, square } => json!({
            "key": "castling_blocked",
            "side": castling(*side),
            "square": sq(*square),
        }),
        CastlingThroughCheck {
            side,
            square,
            by_role,
            by,
        } => json!({
            "key": "castling_through_check",
            "side": castling(*side),
            "square": sq(*square),
            "by_role": role(*by_role),
            "by": sq(*by),
        }),
        CastlingIntoCheck { side, square } => json!({
            "key": "castling_into_check",
            "side": castling(*side),
            "square": sq(*square),
        }),
    }
}

fn game_error(e: &GameError) -> Value {
    match e {
        GameError::GameOver(o) => json!({"key": "game_over", "outcome": outcome(o)}),
        GameError::IllegalMove { uci } => json!({"key": "illegal_move", "uci": uci}),
        GameError::UnreadableUci(text) => json!({"key": "unreadable_uci", "text": text}),
        GameError::NoSuchPly(ply) => json!({"key": "no_such_ply", "ply": ply}),
    }
}

fn claim(c: &ClaimRejected) -> Value {
    match c {
        ClaimRejected::GameOver(o) => json!({"key": "game_over", "outcome": outcome(o)}),
        ClaimRejected::IllegalMove { uci } => json!({"key": "illegal_move", "uci": uci}),
        ClaimRejected::MoveEndsGame(o) => json!({"key": "move_ends_game", "outcome": outcome(o)}),
        ClaimRejected::NotYet {
            with_move,
            occurrences,
            quiet_moves,
        } => json!({
            "key": "not_yet",
            "with_move": with_move,
            "occurrences": occurrences,
            "quiet_moves": quiet_moves,
        }),
    }
}

fn table_refusal(r: &TableRefusal) -> Value {
    match r {
        TableRefusal::EventUsesNone => key("event_uses_none"),
        TableRefusal::Unread(u) => json!({"key": "unread", "unread": u}),
        TableRefusal::TablesSay {
            reading,
            rule,
            result,
        } => json!({
            "key": "tables_say",
            "reading": table_reading(reading),
            "rule": rule.key(),
            "result": result_key(*result),
        }),
        TableRefusal::Open { reading } => json!({"key": "open", "reading": table_reading(reading)}),
    }
}

fn leave_days(l: &Leave) -> Value {
    json!({
        "from": l.from().to_string(),
        "to": l.to().to_string(),
        "special": l.kind() == LeaveKind::Special,
    })
}

fn leave_error(e: &LeaveError) -> Value {
    let next = |d: chrono::NaiveDate| d.succ_opt().unwrap_or(d).to_string();
    match e {
        LeaveError::EndsBeforeItStarts { from, to } => json!({
            "key": "ends_before_it_starts",
            "from": from.to_string(),
            "to": to.to_string(),
        }),
        LeaveError::TooLong { days } => {
            json!({"key": "too_long", "days": days, "max": MAX_LEAVE_DAYS})
        }
        LeaveError::NotInFuture { today } => json!({
            "key": "not_in_future",
            "today": today.to_string(),
            "tomorrow": next(*today),
        }),
        LeaveError::PastIsFixed { today } => json!({
            "key": "past_is_fixed",
            "today": today.to_string(),
            "tomorrow": next(*today),
        }),
        LeaveError::Overlaps { other } => json!({"key": "overlaps", "other": leave_days(other)}),
        LeaveError::OverAllowance {
            year,
            left,
            needs,
            allowance,
        } => json!({
            "key": "over_allowance",
            "year": year,
            "left": left,
            "needs": needs,
            "allowance": allowance,
        }),
        LeaveError::NotBooked { leave } => json!({"key": "not_booked", "other": leave_days(leave)}),
    }
}
