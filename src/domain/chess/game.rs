//! A game: its start position, its moves with their times, and its outcome.
//!
//! Pure: every time stamp is passed in by the caller (the mail's arrival
//! time), never read from a clock. A [`Game`] is always consistent: its
//! position is the replay of its moves, so the store saves only the start
//! position and the UCI moves ([`Game`] serializes to exactly that and
//! replays on load).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, MoveList,
    Position, Setup,
};

pub use super::outcome::{EndReason, GameResult, Outcome};

/// The number of Chess960 start positions (numbered 0..=959).
pub const CHESS960_POSITIONS: u16 = 960;

/// The Scharnagl number of the standard array in Chess960 numbering.
pub const CHESS960_STANDARD: u16 = 518;

/// The rules variant a game is played under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard chess.
    Standard,
    /// Chess960 (Fischer random).
    Chess960,
}

/// Where a game starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StartPosition {
    /// The standard initial position.
    Standard,
    /// A Chess960 start position by its Scharnagl number (0..=959; 518 is
    /// the standard array).
    Chess960(u16),
    /// Any legal position, as FEN (X-FEN or Shredder-FEN castling for
    /// Chess960 positions).
    Fen(String),
}

/// Why a start position cannot be used, and how to write it right.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartPositionError {
    /// The Chess960 number is out of range.
    #[error(
        "Chess960 position {0} does not exist: the numbers run from 0 to 959 (518 is the standard array)"
    )]
    Chess960OutOfRange(u16),
    /// The text is not FEN.
    #[error(
        "{fen:?} is not a valid FEN ({problem}); write six fields: pieces from rank 8 to rank 1 separated by '/', side to move (w or b), castling (KQkq or -), en passant square or -, halfmove clock, move number, e.g. \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\""
    )]
    UnreadableFen {
        /// The text given.
        fen: String,
        /// Which part of it is wrong.
        problem: String,
    },
    /// The FEN is readable but the position cannot occur in a game.
    #[error("the FEN {fen:?} is readable but not a legal position: {problem}")]
    IllegalPosition {
        /// The text given.
        fen: String,
        /// What is wrong with the position.
        problem: String,
    },
    /// A game cannot start in a position that is already mate or stalemate.
    #[error("the game would be over before it starts ({0}); give a position with a move to play")]
    OverAlready(Outcome),
    /// A game starts with White to move: the first mails say so.
    #[error(
        "Black is to move in {0:?}; a game starts with White to move, so give the position before Black's move, or one with 'w' as the side to move"
    )]
    BlackToMove(String),
}

impl StartPosition {
    /// A Chess960 start position, checked to be in 0..=959.
    pub fn chess960(number: u16) -> Result<StartPosition, StartPositionError> {
        if number < CHESS960_POSITIONS {
            Ok(StartPosition::Chess960(number))
        } else {
            Err(StartPositionError::Chess960OutOfRange(number))
        }
    }

    /// A Chess960 start position drawn from `rng` (the caller owns the
    /// randomness, so tests can seed it).
    pub fn random_chess960<R: rand::Rng + ?Sized>(rng: &mut R) -> StartPosition {
        StartPosition::Chess960(rng.random_range(0..CHESS960_POSITIONS))
    }

    /// A start position from FEN, checked to be readable and legal.
    pub fn fen(fen: &str) -> Result<StartPosition, StartPositionError> {
        let start = StartPosition::Fen(fen.trim().to_owned());
        start.to_position()?;
        Ok(start)
    }

    /// A position a new game can start from: a legal FEN, not mate or
    /// stalemate already, with White to move (the first mails go to White
    /// and tell Black that White moves first).
    pub fn playable_fen(fen: &str) -> Result<StartPosition, StartPositionError> {
        let start = StartPosition::fen(fen)?;
        let game = Game::new(start.clone())?;
        if let Some(outcome) = game.outcome() {
            return Err(StartPositionError::OverAlready(outcome.clone()));
        }
        if game.turn() == Color::Black {
            return Err(StartPositionError::BlackToMove(fen.trim().to_owned()));
        }
        Ok(start)
    }

    /// How castling moves are written: Chess960 (king takes rook in UCI)
    /// or standard.
    pub fn castling_mode(&self) -> CastlingMode {
        match self {
            StartPosition::Standard => CastlingMode::Standard,
            StartPosition::Chess960(_) => CastlingMode::Chess960,
            StartPosition::Fen(fen) => Fen::from_ascii(fen.as_bytes())
                .map(|f| CastlingMode::detect(&f.into_setup()))
                .unwrap_or(CastlingMode::Standard),
        }
    }

    /// Whether this is a Chess960 game (PGN `Variant "Chess960"`).
    pub fn is_chess960(&self) -> bool {
        match self {
            StartPosition::Standard => false,
            StartPosition::Chess960(_) => true,
            StartPosition::Fen(_) => self.castling_mode() == CastlingMode::Chess960,
        }
    }

    /// The position, or what is wrong with the start position.
    pub fn to_position(&self) -> Result<Chess, StartPositionError> {
        match self {
            StartPosition::Standard => Ok(Chess::default()),
            StartPosition::Chess960(number) => {
                if *number >= CHESS960_POSITIONS {
                    return Err(StartPositionError::Chess960OutOfRange(*number));
                }
                Chess::from_setup(chess960_setup(*number), CastlingMode::Chess960).map_err(|e| {
                    StartPositionError::IllegalPosition {
                        fen: format!("Chess960 #{number}"),
                        problem: e.to_string(),
                    }
                })
            }
            StartPosition::Fen(text) => {
                let fen = Fen::from_ascii(text.trim().as_bytes()).map_err(|e| {
                    StartPositionError::UnreadableFen {
                        fen: text.clone(),
                        problem: e.to_string(),
                    }
                })?;
                let setup = fen.into_setup();
                let mode = CastlingMode::detect(&setup);
                Chess::from_setup(setup, mode).map_err(|e| StartPositionError::IllegalPosition {
                    fen: text.clone(),
                    problem: e.to_string(),
                })
            }
        }
    }

    /// The start position as FEN (for the PGN `FEN` tag).
    pub fn to_fen(&self) -> Result<String, StartPositionError> {
        let position = self.to_position()?;
        Ok(Fen::from_position(&position, EnPassantMode::Legal).to_string())
    }

    /// The Chess960 number of a position given as FEN, when it is one of the
    /// 960 start positions with full castling rights, White to move, move 1.
    pub fn chess960_number_of(position: &Chess) -> Option<u16> {
        let setup = position.to_setup(EnPassantMode::Legal);
        (0..CHESS960_POSITIONS).find(|n| chess960_setup(*n) == setup)
    }
}

/// The Chess960 start setup for a number already checked to be below 960.
fn chess960_setup(number: u16) -> Setup {
    // Board::chess960 implements the Scharnagl numbering (518 = standard).
    let board = Board::chess960(u32::from(number) % u32::from(CHESS960_POSITIONS));
    let castling_rights = board.rooks()
        & (Bitboard::from_rank(shakmaty::Rank::First)
            | Bitboard::from_rank(shakmaty::Rank::Eighth));
    Setup {
        board,
        castling_rights,
        ..Setup::default()
    }
}

/// One half-move as played: UCI, English SAN, and when it came and went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ply {
    /// The move in UCI (Chess960 castling as king takes rook).
    pub uci: String,
    /// The move in English SAN with check/mate suffix.
    pub san: String,
    /// When the mail with this move reached our mailbox.
    pub received_at: Option<DateTime<Utc>>,
    /// When we sent the move on to the opponent.
    pub sent_at: Option<DateTime<Utc>>,
}

/// Why a move or an ending was not accepted; the game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The game has already ended.
    #[error("the game is over: {0}")]
    GameOver(Outcome),
    /// The move is not legal in the current position.
    #[error("{uci} is not a legal move in this position")]
    IllegalMove {
        /// The move as UCI.
        uci: String,
    },
    /// The text is not a UCI move.
    #[error("{0:?} is not a UCI move (write it like e2e4 or e7e8q)")]
    UnreadableUci(String),
    /// There is no such half-move in the game.
    #[error("the game has no half-move number {0}")]
    NoSuchPly(usize),
}

/// A move of a stored move list that could not be replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The start position itself is bad.
    #[error(transparent)]
    Start(#[from] StartPositionError),
    /// Half-move `ply` (1-based) failed.
    #[error("half-move {ply} ({uci}): {error}")]
    Move {
        /// 1-based half-move number.
        ply: usize,
        /// The move as stored.
        uci: String,
        /// Why it failed.
        error: GameError,
    },
}

/// A valid draw claim: the rule it rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ClaimReason {
    /// The position appears (or, after the named move, will appear) for at
    /// least the third time (FIDE 9.2).
    ThreefoldRepetition,
    /// The last 50 moves by each side (or those with the named move) had no
    /// pawn move and no capture (FIDE 9.3).
    FiftyMoveRule,
}

/// Why a draw claim is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimRejected {
    /// The game has already ended.
    #[error("the game is over: {0}")]
    GameOver(Outcome),
    /// The named move is not legal.
    #[error("{uci} is not a legal move in this position, so the claim cannot rest on it")]
    IllegalMove {
        /// The move as UCI.
        uci: String,
    },
    /// The named move ends the game by itself.
    #[error("the named move ends the game by itself: {0}")]
    MoveEndsGame(Outcome),
    /// Neither rule applies yet.
    #[error("no draw can be claimed {when}: the position has appeared {occurrences} time(s) (3 needed) and there have been {quiet_moves} move(s) by each side without a capture or pawn move (50 needed)", when = if *.with_move { "with that move" } else { "now" })]
    NotYet {
        /// Whether the claim named a move.
        with_move: bool,
        /// How often the claimed position has appeared, counting this time.
        occurrences: usize,
        /// Full moves by each side without capture or pawn move.
        quiet_moves: u32,
    },
}

/// A game from its start position through its moves to its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ReplayForm", into = "ReplayForm")]
pub struct Game {
    start: StartPosition,
    mode: CastlingMode,
    position: Chess,
    plies: Vec<Ply>,
    moves: Vec<Move>,
    /// Repetition keys (FIDE 9.2: pieces, side to move, castling rights and
    /// legal en passant) of the start position and after every ply.
    hashes: Vec<Zobrist64>,
    outcome: Option<Outcome>,
    /// How many of the first plies are the event's thematic line, set
    /// before the game began (see [`super::opening`]).
    opening: usize,
}

/// What the store keeps of a game: enough to replay it.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ReplayForm {
    start: StartPosition,
    plies: Vec<Ply>,
    outcome: Option<Outcome>,
    #[serde(default, skip_serializing_if = "is_zero")]
    opening: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl From<Game> for ReplayForm {
    fn from(game: Game) -> ReplayForm {
        ReplayForm {
            start: game.start,
            plies: game.plies,
            outcome: game.outcome,
            opening: game.opening,
        }
    }
}

impl TryFrom<ReplayForm> for Game {
    type Error = ReplayError;

    fn try_from(record: ReplayForm) -> Result<Game, ReplayError> {
        let mut game = Game::new(record.start)?;
        for (index, ply) in record.plies.into_iter().enumerate() {
            game.play_uci(&ply.uci, ply.received_at)
                .map_err(|error| ReplayError::Move {
                    ply: index + 1,
                    uci: ply.uci.clone(),
                    error,
                })?;
            if let Some(last) = game.plies.last_mut() {
                last.sent_at = ply.sent_at;
            }
        }
        // Automatic endings are recomputed; the others (resignation,
        // agreement, claims, time, adjudication) come from the record.
        if game.outcome.is_none() {
            game.outcome = record.outcome;
        }
        game.set_opening_plies(record.opening)
            .map_err(|error| ReplayError::Move {
                ply: record.opening,
                uci: String::new(),
                error,
            })?;
        Ok(game)
    }
}

fn repetition_key(position: &Chess) -> Zobrist64 {
    position.zobrist_hash(EnPassantMode::Legal)
}

/// The ending the rules impose without a claim, if any, in FIDE order:
/// checkmate first (it takes precedence over the 75-move rule, 9.6.2).
fn automatic_outcome(position: &Chess, hashes: &[Zobrist64]) -> Option<Outcome> {
    if position.is_checkmate() {
        return Some(Outcome::new(
            GameResult::win_for(!position.turn()),
            EndReason::Checkmate,
        ));
    }
    if position.is_stalemate() {
        return Some(Outcome::draw(EndReason::Stalemate));
    }
    if position.is_insufficient_material() {
        return Some(Outcome::draw(EndReason::DeadPosition));
    }
    let key = repetition_key(position);
    if hashes.iter().filter(|h| **h == key).count() >= 5 {
        return Some(Outcome::draw(EndReason::FivefoldRepetition));
    }
    if position.halfmoves() >= 150 {
        return Some(Outcome::draw(EndReason::SeventyFiveMoveRule));
    }
    None
}

impl Game {
    /// A game at its start, before any move.
    pub fn new(start: StartPosition) -> Result<Game, StartPositionError> {
        let position = start.to_position()?;
        let mode = start.castling_mode();
        let hashes = vec![repetition_key(&position)];
        // A FEN may already be mate or stalemate.
        let outcome = automatic_outcome(&position, &hashes);
        Ok(Game {
            start,
            mode,
            position,
            plies: Vec::new(),
            moves: Vec::new(),
            hashes,
            outcome,
            opening: 0,
        })
    }

    /// Replays a stored list of UCI moves from `start`.
    pub fn replay<S: AsRef<str>>(start: StartPosition, ucis: &[S]) -> Result<Game, ReplayError> {
        let mut game = Game::new(start)?;
        for (index, uci) in ucis.iter().enumerate() {
            let uci = uci.as_ref();
            game.play_uci(uci, None)
                .map_err(|error| ReplayError::Move {
                    ply: index + 1,
                    uci: uci.to_owned(),
                    error,
                })?;
        }
        Ok(game)
    }

    /// How many of the first half-moves are the event's thematic line,
    /// on the board before the players' first move (0: none).
    pub fn opening_plies(&self) -> usize {
        self.opening
    }

    /// Marks the first `plies` half-moves as the thematic line the game
    /// was set up with; refused past the moves played.
    pub fn set_opening_plies(&mut self, plies: usize) -> Result<(), GameError> {
        if plies > self.plies.len() {
            return Err(GameError::NoSuchPly(plies));
        }
        self.opening = plies;
        Ok(())
    }

    /// Whether the game stands at its start: no move, or only the thematic
    /// line (its first mails show this position).
    pub fn at_start(&self) -> bool {
        self.plies.len() == self.opening
    }

    /// The start position.
    pub fn start(&self) -> &StartPosition {
        &self.start
    }

    /// The castling mode (Chess960 or standard) moves are written in.
    pub fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.position.turn()
    }

    /// The half-moves played so far.
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }

    /// The moves played so far, as shakmaty moves.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The last move played, if any (for diagrams).
    pub fn last_move(&self) -> Option<&Move> {
        self.moves.last()
    }

    /// How the game ended, or `None` while it goes on.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Whether the game has ended.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The legal moves now; none once the game is over.
    pub fn legal_moves(&self) -> MoveList {
        if self.is_over() {
            MoveList::new()
        } else {
            self.position.legal_moves()
        }
    }

    /// A move written as UCI in this game's castling mode.
    pub fn uci_of(&self, m: &Move) -> String {
        UciMove::from_move(*m, self.mode).to_string()
    }

    /// How often the current position has appeared, counting now.
    pub fn repetitions(&self) -> usize {
        let key = repetition_key(&self.position);
        self.hashes.iter().filter(|h| **h == key).count()
    }

    fn check_not_over(&self) -> Result<(), GameError> {
        match &self.outcome {
            Some(outcome) => Err(GameError::GameOver(outcome.clone())),
            None => Ok(()),
        }
    }

    /// Plays a move that reached us at `received_at`; returns the outcome if
    /// the move ended the game. On error the game is unchanged.
    pub fn play(
        &mut self,
        m: &Move,
        received_at: Option<DateTime<Utc>>,
    ) -> Result<Option<Outcome>, GameError> {
        self.check_not_over()?;
        if !self.position.is_legal(*m) {
            return Err(GameError::IllegalMove {
                uci: self.uci_of(m),
            });
        }
        let uci = self.uci_of(m);
        let san = SanPlus::from_move_and_play_unchecked(&mut self.position, *m).to_string();
        self.plies.push(Ply {
            uci,
            san,
            received_at,
            sent_at: None,
        });
        self.moves.push(*m);
        self.hashes.push(repetition_key(&self.position));
        self.outcome = automatic_outcome(&self.position, &self.hashes);
        Ok(self.outcome.clone())
    }

    /// Plays a move given as UCI (as stored); see [`Game::play`].
    pub fn play_uci(
        &mut self,
        uci: &str,
        received_at: Option<DateTime<Utc>>,
    ) -> Result<Option<Outcome>, GameError> {
        self.check_not_over()?;
        let parsed = UciMove::from_ascii(uci.trim().as_bytes())
            .map_err(|_| GameError::UnreadableUci(uci.to_owned()))?;
        let m = parsed
            .to_move(&self.position)
            .map_err(|_| GameError::IllegalMove {
                uci: uci.to_owned(),
            })?;
        self.play(&m, received_at)
    }

    /// Records when half-move `index` (0-based) was sent to the opponent.
    pub fn set_sent_at(&mut self, index: usize, at: DateTime<Utc>) -> Result<(), GameError> {
        let ply = self
            .plies
            .get_mut(index)
            .ok_or(GameError::NoSuchPly(index))?;
        ply.sent_at = Some(at);
        Ok(())
    }

    /// Records when the mail with half-move `index` (0-based) reached us.
    pub fn set_received_at(&mut self, index: usize, at: DateTime<Utc>) -> Result<(), GameError> {
        let ply = self
            .plies
            .get_mut(index)
            .ok_or(GameError::NoSuchPly(index))?;
        ply.received_at = Some(at);
        Ok(())
    }

    /// Ends the game with an outcome recorded elsewhere (a PGN result), for
    /// importers only: the rules' own endings are set by [`Game::play`].
    pub(super) fn record_outcome(&mut self, outcome: Outcome) -> Result<Outcome, GameError> {
        self.finish(outcome)
    }

    /// Whether the side to move may claim a draw now (`with_move: None`) or
    /// by writing down `with_move` and claiming before playing it (FIDE 9.2,
    /// 9.3). Changes nothing; see [`Game::draw_by_claim`].
    ///
    /// The claimant is the side to move: FIDE lets only the player having
    /// the move claim, so the caller checks who is asking.
    pub fn claim_draw(&self, with_move: Option<&Move>) -> Result<ClaimReason, ClaimRejected> {
        if let Some(outcome) = &self.outcome {
            return Err(ClaimRejected::GameOver(outcome.clone()));
        }
        let (occurrences, halfmoves) = match with_move {
            None => (self.repetitions(), self.position.halfmoves()),
            Some(m) => {
                if !self.position.is_legal(*m) {
                    return Err(ClaimRejected::IllegalMove {
                        uci: self.uci_of(m),
                    });
                }
                let mut after = self.position.clone();
                after.play_unchecked(*m);
                let key = repetition_key(&after);
                let mut hashes = self.hashes.clone();
                hashes.push(key);
                if let Some(outcome) = automatic_outcome(&after, &hashes) {
                    return Err(ClaimRejected::MoveEndsGame(outcome));
                }
                let occurrences = hashes.iter().filter(|h| **h == key).count();
                (occurrences, after.halfmoves())
            }
        };
        if occurrences >= 3 {
            Ok(ClaimReason::ThreefoldRepetition)
        } else if halfmoves >= 100 {
            Ok(ClaimReason::FiftyMoveRule)
        } else {
            Err(ClaimRejected::NotYet {
                with_move: with_move.is_some(),
                occurrences,
                quiet_moves: halfmoves / 2,
            })
        }
    }

    /// Ends the game as a draw on a valid claim, playing the named move
    /// first. An invalid claim changes nothing (under FIDE 9.5.2 a named move
    /// then still stands: the caller plays it with [`Game::play`]).
    pub fn draw_by_claim(
        &mut self,
        with_move: Option<&Move>,
        received_at: Option<DateTime<Utc>>,
    ) -> Result<Outcome, ClaimRejected> {
        let reason = self.claim_draw(with_move)?;
        if let Some(m) = with_move {
            // claim_draw checked legality and that the move does not end the
            // game, so this cannot fail; map the error anyway, never panic.
            self.play(m, received_at)
                .map_err(|_| ClaimRejected::IllegalMove {
                    uci: self.uci_of(m),
                })?;
        }
        let outcome = Outcome::draw(match reason {
            ClaimReason::ThreefoldRepetition => EndReason::ThreefoldRepetition,
            ClaimReason::FiftyMoveRule => EndReason::FiftyMoveRule,
        });
        self.outcome = Some(outcome.clone());
        Ok(outcome)
    }

    fn finish(&mut self, outcome: Outcome) -> Result<Outcome, GameError> {
        self.check_not_over()?;
        self.outcome = Some(outcome.clone());
        Ok(outcome)
    }

    /// `loser` resigns.
    pub fn resign(&mut self, loser: Color) -> Result<Outcome, GameError> {
        self.finish(Outcome::new(
            GameResult::win_for(!loser),
            EndReason::Resignation,
        ))
    }

    /// Both players agreed to a draw.
    pub fn agree_draw(&mut self) -> Result<Outcome, GameError> {
        self.finish(Outcome::draw(EndReason::Agreement))
    }

    /// `flagged` ran out of time (FIDE 6.9): a loss, or a draw when the
    /// opponent cannot mate by any series of legal moves.
    ///
    /// "Cannot mate" is decided as shakmaty's `has_insufficient_material` for
    /// the opponent: by material alone (bishop colour complexes counted,
    /// piece placement not), can there be any position with this material in
    /// which the opponent mates, the flagged side's own pieces included as
    /// helpers? So K+N v K+P is a loss for the side with the pawn (it can
    /// block a mate), K+R v K a draw when the rook side flags, bishops all on
    /// one colour never mate, and a locked pawn wall is still a loss.
    pub fn time_forfeit(&mut self, flagged: Color) -> Result<Outcome, GameError> {
        let outcome = if self.position.has_insufficient_material(!flagged) {
            Outcome::draw(EndReason::TimeForfeitOpponentCannotMate)
        } else {
            Outcome::new(GameResult::win_for(!flagged), EndReason::TimeForfeit)
        };
        self.finish(outcome)
    }

    /// Puts back the outcome of a game loaded from storage whose ending was
    /// not on the board (resignation, agreement, time, adjudication). An
    /// ending the moves themselves produce is kept as replayed.
    pub fn restore_outcome(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// A tournament director's decision: any result with the reason in
    /// words. It replaces any earlier outcome, as the director's word is final.
    pub fn adjudicate(&mut self, result: GameResult, reason: impl Into<String>) -> Outcome {
        self.rule(Outcome::new(result, EndReason::Adjudication(reason.into())))
    }

    /// A tournament director's ruling of any kind (an adjudication, a loss
    /// on time, a default): it replaces any earlier outcome.
    pub fn rule(&mut self, outcome: Outcome) -> Outcome {
        self.outcome = Some(outcome.clone());
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn play_all(game: &mut Game, ucis: &str) -> Option<Outcome> {
        let mut last = None;
        for uci in ucis.split_whitespace() {
            last = game
                .play_uci(uci, None)
                .unwrap_or_else(|e| panic!("{uci}: {e}"));
        }
        last
    }

    fn from_fen(fen: &str) -> Game {
        Game::new(StartPosition::fen(fen).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn chess960_numbers_follow_the_scharnagl_scheme() {
        // Back ranks from the Scharnagl table (Wikipedia, "Chess960
        // numbering scheme"), checked by hand against the algorithm.
        let table = [
            (
                0,
                "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1",
            ),
            (
                1,
                "bqnbnrkr/pppppppp/8/8/8/8/PPPPPPPP/BQNBNRKR w KQkq - 0 1",
            ),
            (
                518,
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            ),
            (
                959,
                "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1",
            ),
        ];
        for (number, fen) in table {
            let start = StartPosition::chess960(number).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(start.to_fen().as_deref(), Ok(fen), "#{number}");
            let position = start.to_position().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(StartPosition::chess960_number_of(&position), Some(number));
        }
    }

    #[test]
    fn random_chess960_positions_are_valid_and_vary() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(960);
        let numbers: std::collections::HashSet<u16> = (0..50)
            .map(|_| match StartPosition::random_chess960(&mut rng) {
                StartPosition::Chess960(n) if n < CHESS960_POSITIONS => n,
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(numbers.len() > 40, "{numbers:?}");
    }

    #[test]
    fn bad_start_positions_say_what_is_wrong() {
        let table: [(Result<StartPosition, StartPositionError>, &str); 4] = [
            (StartPosition::chess960(960), "numbers run from 0 to 959"),
            (StartPosition::fen("hello"), "not a valid FEN"),
            (
                StartPosition::fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"),
                "side to move (w or b)",
            ),
            (
                StartPosition::fen("8/8/8/8/8/8/8/K7 w - - 0 1"),
                "not a legal position",
            ),
        ];
        for (result, needle) in table {
            let message = match result {
                Ok(start) => panic!("{start:?} accepted"),
                Err(e) => e.to_string(),
            };
            assert!(message.contains(needle), "{message}");
        }
        assert!(
            Game::new(StartPosition::Chess960(2000)).is_err(),
            "an unchecked enum value is still refused"
        );
    }

    #[test]
    fn chess960_castling_is_king_takes_rook_in_uci_and_o_o_in_san() {
        // #518 is the standard array, but castling is still written the
        // Chess960 way in UCI.
        let mut game = Game::new(StartPosition::Chess960(518)).unwrap_or_else(|e| panic!("{e}"));
        play_all(&mut game, "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5");
        let castle = game
            .legal_moves()
            .into_iter()
            .find(|m| m.is_castle())
            .unwrap_or_else(|| panic!("castling is legal"));
        game.play(&castle, None).unwrap_or_else(|e| panic!("{e}"));
        let last = game.plies().last().unwrap_or_else(|| panic!("one ply"));
        assert_eq!((last.uci.as_str(), last.san.as_str()), ("e1h1", "O-O"));
    }

    #[test]
    fn each_automatic_ending_is_detected() {
        // (start FEN, moves leading into the ending, expected outcome)
        let table = [
            (
                StartPosition::Standard,
                "f2f3 e7e5 g2g4 d8h4",
                Outcome::new(GameResult::BlackWins, EndReason::Checkmate),
            ),
            (
                StartPosition::Fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1".into()),
                "",
                Outcome::draw(EndReason::Stalemate),
            ),
            (
                StartPosition::Fen("k7/8/8/8/8/8/5q2/5K2 w - - 0 1".into()),
                "f1f2",
                Outcome::draw(EndReason::DeadPosition),
            ),
            (
                StartPosition::Standard,
                "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
                Outcome::draw(EndReason::FivefoldRepetition),
            ),
            (
                StartPosition::Fen("k7/8/8/8/8/8/1R6/K7 w - - 149 120".into()),
                "b2c2",
                Outcome::draw(EndReason::SeventyFiveMoveRule),
            ),
            (
                // Mate on the 150th quiet half-move: checkmate takes precedence.
                StartPosition::Fen("k7/8/1K6/8/8/8/8/7R w - - 149 120".into()),
                "h1h8",
                Outcome::new(GameResult::WhiteWins, EndReason::Checkmate),
            ),
        ];
        for (start, moves, expected) in table {
            let mut game = Game::new(start.clone()).unwrap_or_else(|e| panic!("{e}"));
            let ended = if moves.is_empty() {
                game.outcome().cloned()
            } else {
                play_all(&mut game, moves)
            };
            assert_eq!(ended.as_ref(), Some(&expected), "{start:?} {moves}");
            assert_eq!(game.outcome(), Some(&expected));
            assert!(game.legal_moves().is_empty());
        }
    }

    #[test]
    fn fourfold_repetition_does_not_end_the_game() {
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        let ended = play_all(
            &mut game,
            "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
        );
        assert_eq!(ended, None);
        assert_eq!(game.repetitions(), 4);
    }

    #[test]
    fn a_move_after_the_end_is_refused_and_changes_nothing() {
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        play_all(&mut game, "f2f3 e7e5 g2g4 d8h4");
        let before = game.clone();
        assert!(matches!(
            game.play_uci("a2a3", None),
            Err(GameError::GameOver(_))
        ));
        assert!(matches!(
            game.resign(Color::Black),
            Err(GameError::GameOver(_))
        ));
        assert_eq!(game, before);
    }

    #[test]
    fn illegal_and_unreadable_moves_change_nothing() {
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        let before = game.clone();
        let table = ["e2e5", "e7e5", "zz", "", "e1g1", "a1a1", "P@e4"];
        for uci in table {
            assert!(game.play_uci(uci, None).is_err(), "{uci}");
            assert_eq!(game, before, "{uci}");
        }
        let put = Move::Put {
            role: shakmaty::Role::Queen,
            to: shakmaty::Square::E4,
        };
        assert!(matches!(
            game.play(&put, None),
            Err(GameError::IllegalMove { .. })
        ));
    }

    const KNIGHTS_TWICE: &str = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1";

    fn claim_with(game: &Game, uci: Option<&str>) -> Result<ClaimReason, ClaimRejected> {
        let m = uci.map(|u| {
            UciMove::from_ascii(u.as_bytes())
                .ok()
                .and_then(|p| p.to_move(game.position()).ok())
                .unwrap_or_else(|| panic!("{u} is legal"))
        });
        game.claim_draw(m.as_ref())
    }

    /// Start (FEN or "startpos"), moves, the move named with the claim, and
    /// the rule the claim rests on (`None`: rejected as too early).
    type ClaimCase = (
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<ClaimReason>,
    );

    #[test]
    fn draw_claims_are_judged_now_and_with_a_named_move() {
        // (start, moves, move named with the claim, expected)
        let table: [ClaimCase; 8] = [
            // Start position has appeared twice; Black's f6g8 would make it three.
            ("startpos", KNIGHTS_TWICE, None, None),
            (
                "startpos",
                KNIGHTS_TWICE,
                Some("f6g8"),
                Some(ClaimReason::ThreefoldRepetition),
            ),
            ("startpos", KNIGHTS_TWICE, Some("e7e5"), None),
            (
                "startpos",
                "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
                None,
                Some(ClaimReason::ThreefoldRepetition),
            ),
            // 99 quiet half-moves: a named quiet move completes 50 moves each.
            ("k7/8/8/8/8/8/1R6/K7 w - - 99 80", "", None, None),
            (
                "k7/8/8/8/8/8/1R6/K7 w - - 99 80",
                "",
                Some("b2c2"),
                Some(ClaimReason::FiftyMoveRule),
            ),
            (
                "k7/8/8/8/8/8/1R6/K7 w - - 100 80",
                "",
                None,
                Some(ClaimReason::FiftyMoveRule),
            ),
            // A capture resets the count, so naming it ruins the claim.
            ("k7/8/8/8/8/8/r7/RK6 w - - 99 80", "", Some("a1a2"), None),
        ];
        for (start, moves, named, expected) in table {
            let start = if start == "startpos" {
                StartPosition::Standard
            } else {
                StartPosition::Fen(start.into())
            };
            let mut game = Game::new(start).unwrap_or_else(|e| panic!("{e}"));
            play_all(&mut game, moves);
            let got = claim_with(&game, named);
            match expected {
                Some(reason) => assert_eq!(got, Ok(reason), "{moves} + {named:?}"),
                None => assert!(
                    matches!(got, Err(ClaimRejected::NotYet { .. })),
                    "{moves} + {named:?}: {got:?}"
                ),
            }
        }
    }

    #[test]
    fn repetition_respects_castling_rights_and_en_passant() {
        // The king goes out and back: same squares, but castling rights lost,
        // so the start position never repeats.
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        play_all(
            &mut game,
            "e2e4 e7e5 e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8",
        );
        assert_eq!(game.repetitions(), 2, "position after the first return");
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        play_all(&mut game, "e2e4 e7e5 e1e2 e8e7 e2e1 e7e8");
        assert_eq!(game.repetitions(), 1, "castling rights differ from 2...e5");

        // After d2d4 (no legal ep capture) the position equals the one
        // reached by a different order; with a legal ep capture it would not.
        let start = StartPosition::Fen("4k3/8/8/8/4p3/8/3P4/4K3 w - - 0 1".into());
        let mut game = Game::new(start).unwrap_or_else(|e| panic!("{e}"));
        play_all(&mut game, "d2d4 e8d8 e1d1 d8e8 d1e1");
        assert_eq!(
            game.repetitions(),
            1,
            "after d2d4 Black could take en passant; later positions cannot"
        );
        let start = StartPosition::Fen("4k3/8/8/8/8/4p3/3P4/4K3 w - - 0 1".into());
        let mut game = Game::new(start).unwrap_or_else(|e| panic!("{e}"));
        play_all(&mut game, "d2d4 e8d8 e1d1 d8e8 d1e1");
        assert_eq!(
            game.repetitions(),
            2,
            "no ep capture possible: a plain repeat"
        );
    }

    #[test]
    fn a_claim_with_a_named_move_plays_it_and_ends_the_game() {
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        play_all(&mut game, KNIGHTS_TWICE);
        let m = UciMove::from_ascii(b"f6g8")
            .ok()
            .and_then(|u| u.to_move(game.position()).ok())
            .unwrap_or_else(|| panic!("legal"));
        let outcome = game
            .draw_by_claim(Some(&m), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(outcome, Outcome::draw(EndReason::ThreefoldRepetition));
        assert_eq!(game.plies().len(), 8);
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        let rejected = game.draw_by_claim(None, None);
        assert!(
            rejected
                .as_ref()
                .is_err_and(|e| e.to_string().contains("appeared 1 time(s)")),
            "{rejected:?}"
        );
        assert!(!game.is_over());
    }

    #[test]
    fn time_forfeit_is_a_draw_only_when_the_opponent_cannot_mate() {
        // (position, side that ran out of time, expected result)
        let table = [
            (
                "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
                Color::White,
                GameResult::Draw,
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
                Color::Black,
                GameResult::WhiteWins,
            ),
            (
                "4k3/8/8/8/8/8/8/4KN1R w - - 0 1",
                Color::White,
                GameResult::Draw,
            ),
            // Bishops on one colour never mate (shakmaty's rule, even with a
            // rook to block); on both colours they can.
            (
                "4k2r/8/8/8/8/8/8/3BKB2 w - - 0 1",
                Color::Black,
                GameResult::Draw,
            ),
            (
                "4k2r/8/8/8/8/8/8/2B1KB2 w - - 0 1",
                Color::Black,
                GameResult::WhiteWins,
            ),
            // A lone knight mates only with the opponent's pawn helping.
            (
                "4k3/4p3/8/8/8/8/8/4KN2 w - - 0 1",
                Color::Black,
                GameResult::WhiteWins,
            ),
            (
                "4k3/4p3/8/8/8/8/8/4KN2 w - - 0 1",
                Color::White,
                GameResult::BlackWins,
            ),
        ];
        for (fen, flagged, expected) in table {
            let mut game = from_fen(fen);
            let outcome = game.time_forfeit(flagged).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(outcome.result, expected, "{fen} {flagged:?}");
            let reason = if expected == GameResult::Draw {
                EndReason::TimeForfeitOpponentCannotMate
            } else {
                EndReason::TimeForfeit
            };
            assert_eq!(outcome.reason, reason);
        }
    }

    #[test]
    fn resignation_agreement_and_adjudication_end_the_game() {
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            game.resign(Color::White).map(|o| o.result),
            Ok(GameResult::BlackWins)
        );
        let mut game = Game::new(StartPosition::Standard).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            game.agree_draw().map(|o| o.reason),
            Ok(EndReason::Agreement)
        );
        let overruled = game.adjudicate(GameResult::WhiteWins, "Black's draw offer was forged");
        assert_eq!(game.outcome(), Some(&overruled));
    }

    #[test]
    fn a_game_survives_serialization_with_times_and_outcome() {
        let t = |minute| Utc.with_ymd_and_hms(2026, 11, 29, 17, minute, 0).single();
        let mut game = Game::new(StartPosition::Chess960(0)).unwrap_or_else(|e| panic!("{e}"));
        game.play_uci("g2g3", t(1))
            .unwrap_or_else(|e| panic!("{e}"));
        game.set_sent_at(0, t(2).unwrap_or_else(|| panic!("date")))
            .unwrap_or_else(|e| panic!("{e}"));
        game.play_uci("g7g6", t(3))
            .unwrap_or_else(|e| panic!("{e}"));
        game.resign(Color::White).unwrap_or_else(|e| panic!("{e}"));
        let json = serde_json::to_string(&game).unwrap_or_else(|e| panic!("{e}"));
        let back: Game = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, game);
        let forged = json.replace("g7g6", "g7g4");
        assert!(serde_json::from_str::<Game>(&forged).is_err(), "{forged}");
    }

    #[test]
    fn replay_names_the_failing_half_move() {
        let error = Game::replay(StartPosition::Standard, &["e2e4", "e7e5", "e4e5"]);
        assert_eq!(
            error.map(|_| ()).map_err(|e| e.to_string()),
            Err("half-move 3 (e4e5): e4e5 is not a legal move in this position".to_owned())
        );
    }
}
