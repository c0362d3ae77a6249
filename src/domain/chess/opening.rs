//! A thematic line: the moves every game of a thematic event starts with
//! (`start = { moves = "1.e4 c5 2.Nf3 d6" }` in the event file).
//!
//! The line is read with the same move reader as players' mails
//! ([`notation::parse_move`], English letters): SAN with or without move
//! numbers (`1.e4`, `1. e4`, `1...c5`), long algebraic (`Ng1-f3`), UCI
//! (`g1f3`), ICCF numeric (`7163`) and figurines. Each move must be legal
//! and unambiguous, a written move number must fit, and the line may not
//! end the game.
//!
//! The moves become the game's first moves (see
//! [`Game::set_opening_plies`]): the PGN shows them as moves and numbering
//! goes on after them, as ICCF's thematic events do.

use std::fmt;

use shakmaty::{Chess, Color, Position};

use super::game::{Game, StartPosition, StartPositionError};
use super::notation::{self, MoveTextError};
use crate::domain::lang::Lang;

/// A checked thematic line: its moves from a start position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    /// The moves in UCI, in the start position's castling mode.
    ucis: Vec<String>,
    /// The line in English SAN with move numbers: `1.e4 c5 2.Nf3 d6`.
    text: String,
}

/// Why a thematic line cannot be used, and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// The line has no moves.
    #[error("names no moves; write the line in SAN, e.g. \"1.e4 c5 2.Nf3 d6\"")]
    Empty,
    /// The position it starts from is bad.
    #[error(transparent)]
    Start(#[from] StartPositionError),
    /// One move is unreadable, illegal, ambiguous or has the wrong number.
    #[error(
        "move {number} ({side}'s, \"{written}\"): {error}; write the line in SAN from the start, with or without move numbers, e.g. \"1.e4 c5 2.Nf3 d6\""
    )]
    Move {
        /// The number of the move: `2.` or `2...`.
        number: String,
        /// Whose move it is: `White` or `Black`.
        side: &'static str,
        /// The move as written.
        written: String,
        /// Why it cannot be played (boxed: the error is large and rare).
        error: Box<MoveTextError>,
    },
    /// A number with no move after it (`1.e4 c5 2.`).
    #[error("ends with the move number \"{0}\" and no move after it; remove it or add the move")]
    DanglingNumber(String),
    /// The line ends the game (mate, stalemate, a dead position).
    #[error(
        "the game would be over after move {number} (\"{written}\"): {outcome}; give a line that leaves a move to play"
    )]
    EndsTheGame {
        /// The number of the move that ends it.
        number: String,
        /// The move as written.
        written: String,
        /// How it would end.
        outcome: String,
    },
}

fn number_of(pos: &Chess) -> String {
    let n = pos.fullmoves().get();
    match pos.turn() {
        Color::White => format!("{n}."),
        Color::Black => format!("{n}..."),
    }
}

/// Whether a word is a move number alone: `12.`, `12...`, `12…`.
fn is_number_alone(word: &str) -> bool {
    let digits = word.trim_end_matches(['.', '…']);
    !digits.is_empty() && digits.len() < word.len() && digits.chars().all(|c| c.is_ascii_digit())
}

impl Opening {
    /// Reads and checks a line played from `start`.
    pub fn read(start: &StartPosition, text: &str) -> Result<Opening, OpeningError> {
        let mut game = Game::new(start.clone())?;
        let mode = game.castling_mode();
        let mut number: Option<&str> = None;
        let mut played = 0;
        for word in text.split_whitespace() {
            if is_number_alone(word) {
                if let Some(n) = number {
                    return Err(OpeningError::DanglingNumber(n.to_owned()));
                }
                number = Some(word);
                continue;
            }
            // "1. e4" reads as "1.e4": the reader checks the number.
            let written = match number.take() {
                Some(n) => format!("{n}{word}"),
                None => word.to_owned(),
            };
            let pos = game.position().clone();
            let move_number = number_of(&pos);
            let side = match pos.turn() {
                Color::White => "White",
                Color::Black => "Black",
            };
            let m = notation::parse_move(&pos, &written, Lang::En, mode).map_err(|error| {
                OpeningError::Move {
                    number: move_number.clone(),
                    side,
                    written: written.clone(),
                    error: Box::new(error),
                }
            })?;
            // The reader gave a legal move and the game is not over (a line
            // that ends it stops here), so play cannot fail.
            let ended = game.play(&m, None).ok().flatten();
            played += 1;
            if let Some(outcome) = ended {
                return Err(OpeningError::EndsTheGame {
                    number: move_number,
                    written,
                    outcome: outcome.to_string(),
                });
            }
        }
        if let Some(n) = number {
            return Err(OpeningError::DanglingNumber(n.to_owned()));
        }
        if played == 0 {
            return Err(OpeningError::Empty);
        }
        let ucis = game.plies().iter().map(|p| p.uci.clone()).collect();
        let text = line_text(&game, game.plies().len());
        Ok(Opening { ucis, text })
    }

    /// The moves in UCI, as the store keeps them.
    pub fn ucis(&self) -> &[String] {
        &self.ucis
    }

    /// How many half-moves the line has.
    pub fn plies(&self) -> usize {
        self.ucis.len()
    }

    /// The line in English SAN with move numbers: `1.e4 c5 2.Nf3 d6`.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The first `plies` half-moves of a game in English SAN with move
/// numbers, as PGN and ICCF write a line: `1.e4 c5 2.Nf3 d6`.
pub fn line_text(game: &Game, plies: usize) -> String {
    let Ok(mut pos) = game.start().to_position() else {
        return String::new();
    };
    let mut words = Vec::new();
    for (i, (mv, ply)) in game
        .moves()
        .iter()
        .zip(game.plies())
        .take(plies)
        .enumerate()
    {
        let n = pos.fullmoves().get();
        words.push(match pos.turn() {
            Color::White => format!("{n}.{}", ply.san),
            Color::Black if i == 0 => format!("{n}...{}", ply.san),
            Color::Black => ply.san.clone(),
        });
        pos = match pos.play(*mv) {
            Ok(next) => next,
            Err(_) => break,
        };
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Opening, OpeningError> {
        Opening::read(&StartPosition::Standard, text)
    }

    #[test]
    fn a_line_reads_with_or_without_move_numbers_in_any_notation_the_mails_read() {
        for text in [
            "1.e4 c5 2.Nf3 d6",
            "1. e4 c5 2. Nf3 d6",
            "e4 c5 Nf3 d6",
            "1.e2e4 c7c5 2.Ng1-f3 d7-d6",
            "5254 3735 7163 4746",
            "1.e4 1...c5 2.Nf3 2...d6",
        ] {
            let line = read(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(line.text(), "1.e4 c5 2.Nf3 d6", "{text}");
            assert_eq!(line.ucis(), ["e2e4", "c7c5", "g1f3", "d7d6"], "{text}");
            assert_eq!(line.plies(), 4);
        }
    }

    #[test]
    fn a_bad_move_names_its_number_and_side_and_how_to_write_the_line() {
        let err = read("1.e4 c5 2.Nf3 Ke7 3.d4").unwrap_err().to_string();
        assert!(err.starts_with("move 2... (Black's, \"Ke7\")"), "{err}");
        assert!(err.contains("cannot be played"), "{err}");
        assert!(err.contains("e.g. \"1.e4 c5 2.Nf3 d6\""), "{err}");
        let err = read("1.e4 c5 Xy9").unwrap_err().to_string();
        assert!(err.starts_with("move 2. (White's, \"Xy9\")"), "{err}");
        assert!(err.contains("could not read"), "{err}");
        let err = read("1.e4 c5 3.Nf3").unwrap_err().to_string();
        assert!(err.contains("does not fit"), "{err}");
        let err = read("1.e4 e5 2.Nf3 Nc6 3.Nc3 Nf6 4.Ne2 Ng8 5.Ng1 N").unwrap_err();
        assert!(matches!(err, OpeningError::Move { .. }), "{err}");
    }

    #[test]
    fn a_line_may_not_be_empty_end_on_a_number_or_end_the_game() {
        assert_eq!(read("  ").unwrap_err(), OpeningError::Empty);
        assert_eq!(
            read("1.e4 e5 2.").unwrap_err(),
            OpeningError::DanglingNumber("2.".into())
        );
        let err = read("1.f3 e5 2.g4 Qh4#").unwrap_err().to_string();
        assert!(err.contains("over after move 2..."), "{err}");
        assert!(err.contains("checkmate"), "{err}");
    }

    #[test]
    fn a_line_that_ends_with_whites_move_leaves_black_to_move() {
        let line = read("1.e4 e5 2.Nf3 Nc6 3.Bb5").unwrap();
        let game = Game::replay(StartPosition::Standard, line.ucis()).unwrap();
        assert_eq!(game.turn(), Color::Black);
        assert_eq!(line.text(), "1.e4 e5 2.Nf3 Nc6 3.Bb5");
    }

    #[test]
    fn a_line_may_start_from_a_position_and_black_may_move_first_there() {
        let start =
            StartPosition::fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap();
        let line = Opening::read(&start, "1...c5 2.Nf3").unwrap();
        assert_eq!(line.text(), "1...c5 2.Nf3");
    }
}
