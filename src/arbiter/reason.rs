//! Why a mail was turned down.

use shakmaty::Color;

use crate::chess::notation::MoveTextError;

/// Why a mail was turned down, as the refusal mail names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionKind {
    /// The move is not legal here.
    Illegal,
    /// The text reads as more than one legal move.
    Ambiguous,
    /// The text reads as no move or command.
    Unreadable,
    /// It is the opponent's move.
    NotYourTurn,
    /// The game has ended.
    GameOver,
    /// No such game, or not the sender's.
    UnknownGame,
    /// Anything else (e.g. accepting a draw nobody offered).
    Other,
}

impl RejectionKind {
    /// The key templates switch on, e.g. `not_your_turn`.
    pub fn key(self) -> &'static str {
        match self {
            RejectionKind::Illegal => "illegal",
            RejectionKind::Ambiguous => "ambiguous",
            RejectionKind::Unreadable => "unreadable",
            RejectionKind::NotYourTurn => "not_your_turn",
            RejectionKind::GameOver => "game_over",
            RejectionKind::UnknownGame => "unknown_game",
            RejectionKind::Other => "other",
        }
    }
}

pub(super) fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

pub(super) fn rejection_kind(e: &MoveTextError) -> RejectionKind {
    match e {
        MoveTextError::Illegal { .. } | MoveTextError::WrongMoveNumber { .. } => {
            RejectionKind::Illegal
        }
        MoveTextError::Ambiguous { .. } => RejectionKind::Ambiguous,
        MoveTextError::Unreadable { .. } => RejectionKind::Unreadable,
    }
}

pub(super) struct Rejection {
    pub(super) wrote: String,
    pub(super) explanation: String,
    pub(super) kind: RejectionKind,
}

pub(super) fn reject(
    wrote: impl Into<String>,
    explanation: impl Into<String>,
    kind: RejectionKind,
) -> Rejection {
    Rejection {
        wrote: wrote.into(),
        explanation: explanation.into(),
        kind,
    }
}
