//! The mails the arbiter asks for.

use shakmaty::Color;

use super::reason::{ConditionalNote, Reason, RejectionKind};
use crate::command::Message;

/// A mail to send because of what a player said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// It is `to`'s move: the board and the opponent's last move.
    YourMove {
        /// The side to move.
        to: Color,
    },
    /// `to`'s move was accepted; `written` is the move in their notation.
    MoveAccepted {
        /// The mover.
        to: Color,
        /// The move as the mover's language writes it.
        written: String,
    },
    /// The game ended: both players are told.
    GameOver,
    /// The opponent declined `to`'s draw offer.
    DrawOfferDeclined {
        /// The side that offered.
        to: Color,
    },
    /// `to`'s opponent offered a draw without a move (it was not their turn).
    DrawOffered {
        /// The side being offered the draw.
        to: Color,
    },
    /// The mail was turned down; nothing changed.
    Rejected {
        /// The sender.
        to: Color,
        /// What they wrote (the move text or command).
        wrote: String,
        /// Why, with how to do it right.
        reason: Reason,
        /// The kind of refusal.
        kind: RejectionKind,
    },
    /// The state of the game, on request.
    Status {
        /// Who asked.
        to: Color,
    },
    /// The PGN, on request.
    Pgn {
        /// Who asked.
        to: Color,
    },
    /// How to play by mail, on request.
    Help {
        /// Who asked.
        to: Color,
    },
    /// The player's games, on request.
    Games {
        /// Who asked.
        to: Color,
    },
    /// `to`'s conditional moves: set, listed or cancelled (`note` says which).
    Conditionals {
        /// The owner.
        to: Color,
        /// What happened to them.
        note: ConditionalNote,
        /// The lines as the owner writes them (`if 12...Nf6 13.e5`).
        lines: Vec<String>,
    },
    /// A conditional move of `to` was played for them.
    ConditionalPlayed {
        /// The owner.
        to: Color,
        /// Their move as they write it.
        written: String,
    },
    /// The opponent of `to` wrote them a message: it goes with the mail
    /// about the move it came with, or alone when there is none.
    Message {
        /// The recipient.
        to: Color,
        /// The message.
        message: Message,
        /// The half-moves played when it was written (it is filed after that move).
        ply: usize,
    },
    /// `to`'s message was not passed on: the event allows no messages.
    MessageHeld {
        /// The writer.
        to: Color,
    },
}
