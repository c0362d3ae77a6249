//! The mails the arbiter asks for.

use shakmaty::Color;

use super::reason::{ConditionalNote, Reason, RejectionKind};
use crate::domain::chess::tablebase::TableNews;
use crate::domain::command::Message;

/// A mail to send because of what a player said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// It is `to`'s move: the board and the opponent's last move.
    YourMove {
        /// The side to move.
        to: Color,
    },
    /// `to`'s move was accepted: the half-move `ply` of the game (counted
    /// from 0). A conditional answer of the opponent's that it set off is
    /// the half-move after it; the mail names both in the mover's letters.
    MoveAccepted {
        /// The mover.
        to: Color,
        /// Which half-move of the game it is.
        ply: usize,
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
    /// A conditional move of `to` was played for them: the half-move
    /// `ply` of the game (counted from 0), answering the opponent's move
    /// before it. The mail writes both in the owner's letters.
    ConditionalPlayed {
        /// The owner.
        to: Color,
        /// Which half-move of the game their answer is.
        ply: usize,
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
    /// The mail's moves brought the game into the endgame tables: both
    /// players' mails about it say what the tables say (once: only the move
    /// that entered them).
    TablesSay {
        /// What the tables say of the position now, and the rule.
        news: TableNews,
    },
    /// `to`'s message was not passed on: the event allows no messages.
    MessageHeld {
        /// The writer.
        to: Color,
    },
}
