//! Why a mail was turned down, typed: templates write each reason in the
//! player's language (`templates/<lang>/reason.txt`).

use shakmaty::Color;

use crate::domain::chess::game::{ClaimRejected, GameError};
use crate::domain::chess::notation::MoveTextError;
use crate::domain::chess::outcome::{GameResult, Outcome};
use crate::domain::chess::tablebase::{Reading, TablebaseRule, Unread};
use crate::domain::clock::LeaveError;
use crate::domain::ids::GameId;

/// What a claim on the endgame tables asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claimed {
    /// A win for the claimant.
    Win,
    /// A draw.
    Draw,
}

/// Why a claim on the endgame tables does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRefusal {
    /// The event plays without the tables (`tablebase_rule = "none"`).
    EventUsesNone,
    /// The tables cannot say anything about the position.
    Unread(Unread),
    /// The tables say something else: `result` under `rule`.
    TablesSay {
        /// What the tables say.
        reading: Reading,
        /// The event's rule.
        rule: TablebaseRule,
        /// The result the rule makes of it.
        result: GameResult,
    },
    /// The 50-move rule leaves it open: the counter is near its line and the
    /// tables store this distance rounded.
    Open {
        /// What the tables say.
        reading: Reading,
    },
}

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
    /// A draw claim that cannot be granted (not valid, or not on the
    /// claimant's move): the mail explains how claims work.
    Claim,
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
            RejectionKind::Claim => "claim",
            RejectionKind::Other => "other",
        }
    }
}

/// Why a command, a mail or a leave was turned down: one variant per
/// sentence, the rules core's own reasons wrapped whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// The move text cannot be played (illegal, ambiguous, unreadable).
    Move(MoveTextError),
    /// The game refused a move or an ending.
    Game(GameError),
    /// A leave cannot be booked.
    Leave(LeaveError),
    /// The game is already over.
    GameOver(Outcome),
    /// It is the opponent's move.
    NotYourTurn {
        /// The side to move.
        to_move: Color,
    },
    /// The event allows no draw offers before move `first`.
    DrawTooEarly {
        /// The first move a draw may be offered with.
        first: u32,
        /// Whether the offer came with a move (not played either).
        with_move: bool,
    },
    /// The event allows one draw offer per `between` moves.
    DrawTooSoon {
        /// Moves between offers.
        between: u32,
        /// The move the next offer may come with.
        next: u32,
        /// Whether the offer came with a move (not played either).
        with_move: bool,
    },
    /// A draw is offered with one's own move, not alone on one's turn.
    DrawNeedsMove,
    /// The player's draw offer already stands.
    DrawOfferStands,
    /// No draw offer to accept.
    NoDrawToAccept,
    /// No draw offer to decline.
    NoDrawToDecline,
    /// A draw is claimed on one's own move only.
    ClaimNotYourMove,
    /// The claim is not valid; nothing was played.
    ClaimInvalid {
        /// Why not, by the rules.
        why: ClaimRejected,
        /// Whether the claim named a move (not played either).
        with_move: bool,
    },
    /// A claim on the endgame tables that does not hold; nothing was
    /// played, not even the named move.
    TableClaimInvalid {
        /// What was claimed.
        claimed: Claimed,
        /// Why it does not hold.
        why: TableRefusal,
        /// Whether the claim named a move (not played either).
        with_move: bool,
        /// For a draw claim: why no draw by repetition or the 50-move rule
        /// could be granted either.
        fide: Option<ClaimRejected>,
    },
    /// Conditional moves are set while the opponent is to move.
    ConditionalOnYourMove,
    /// A conditional line is not pairs of moves ending with one's answer.
    ConditionalShape,
    /// A move of a conditional line cannot be read or played.
    ConditionalMove {
        /// Whether it is the player's answer (else the opponent's move).
        yours: bool,
        /// The move as written.
        text: String,
        /// Its place in the line, from 1.
        index: usize,
        /// Why, by the rules.
        why: MoveTextError,
    },
    /// A move of a conditional line is not legal where it stands.
    ConditionalIllegal {
        /// The move as written.
        text: String,
    },
    /// The mail had no text.
    Empty,
    /// The text is no move or command.
    NotACommand,
    /// A line starts with a move and goes on with words: a message goes on
    /// the lines below the move.
    MessageOnNextLine,
    /// `report` in a game: it is a TD's, from a report address.
    ReportNotHere,
    /// The game was closed by a TD (annulled after a withdrawal).
    Annulled,
    /// No game named, and none in progress.
    NoGameInProgress,
    /// No game named, and several (or one) in progress.
    WhichGame {
        /// The player's games in progress.
        games: Vec<GameId>,
    },
    /// `standings` in a game outside any event.
    NotInEvent {
        /// The game.
        game: GameId,
    },
    /// `leave` without a game's reply address.
    LeaveNeedsGame,
    /// A confirmation reply that did not come from its owner.
    ConfirmationNotYours {
        /// The sender.
        from: String,
    },
    /// A reply address names a game that does not exist.
    NoSuchGame {
        /// The game named.
        game: GameId,
    },
    /// The player's reply address, from another address.
    NotYourAddress {
        /// The game.
        game: GameId,
        /// The sender.
        from: String,
    },
    /// A game's reply address with a token that is not the player's.
    WrongToken {
        /// The game.
        game: GameId,
    },
    /// A game the sender does not play in.
    NotYourGame {
        /// The game.
        game: GameId,
    },
    /// A vote in a consultation game while the other side is to move.
    NotYourSidesMove {
        /// The game.
        game: GameId,
        /// The voter's team.
        team: String,
    },
    /// A consultation member's command that only the captain may give
    /// (resign, draws) or that is no vote.
    MembersVote {
        /// The game.
        game: GameId,
        /// The captain's name.
        captain: String,
    },
    /// A mail from an address no player has.
    UnknownSender {
        /// The sender.
        from: String,
    },
    /// No aligned DKIM pass, where one is required.
    Unsigned {
        /// The sender.
        from: String,
    },
    /// A player's digest reply address, from another address.
    DigestNotYourAddress {
        /// The sender.
        from: String,
    },
    /// A digest reply address with a token that is not the player's.
    DigestWrongToken,
    /// `xfcc password` in a mail to our plain address: its From proves
    /// nothing, and a new password ends the old one, so it is asked for
    /// from a game's reply address.
    XfccNeedsGame,
    /// Lines of a reply to a digest that name no game of the player's.
    DigestLinesUnnamed {
        /// A game number for the example.
        example: GameId,
        /// The player's games in progress, `#2 (Ana Novak)`.
        games: Vec<String>,
    },
}

/// What a mail about conditional moves says happened to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConditionalNote {
    /// They are set.
    Set,
    /// Listed: there are none.
    None,
    /// Listed: these are they.
    Listed,
    /// Cancelled on request.
    Cancelled,
    /// Cancel asked, but there were none.
    HadNone,
    /// The opponent's move was in no line: all cancelled.
    Unexpected {
        /// Which half-move of the game (counted from 0) the opponent's
        /// move is: the mail writes it in the owner's letters.
        ply: usize,
    },
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

/// A refusal on its way out of a command: what was written, why, and the
/// kind the mail names.
pub(super) struct Rejection {
    pub(super) wrote: String,
    // Boxed: a reason can hold a whole move error, and every command
    // returns a Result with this as its error.
    pub(super) reason: Box<Reason>,
    pub(super) kind: RejectionKind,
}

pub(super) fn reject(wrote: impl Into<String>, reason: Reason, kind: RejectionKind) -> Rejection {
    Rejection {
        wrote: wrote.into(),
        reason: Box::new(reason),
        kind,
    }
}
