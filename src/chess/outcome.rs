//! How a game ends: the result (who scored) and the reason (which rule).
//!
//! The sentences here are what players read in game-over mails and what the
//! PGN export writes as its final comment, so [`Outcome::from_description`]
//! can read our own exports back exactly.

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

/// The score of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// 1-0.
    WhiteWins,
    /// 0-1.
    BlackWins,
    /// ½-½.
    Draw,
}

impl GameResult {
    /// The result in which `winner` wins.
    pub fn win_for(winner: Color) -> GameResult {
        match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The winner, or `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Reads a PGN result token; `*` (unfinished) and anything else give `None`.
    pub fn from_pgn(token: &str) -> Option<GameResult> {
        match token {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" => Some(GameResult::Draw),
            _ => None,
        }
    }
}

/// Why a game ended: the rule (FIDE Laws of Chess article in brackets).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndReason {
    /// The side to move is checkmated (5.1.1).
    Checkmate,
    /// The side to move has no legal move and is not in check (5.2.1).
    Stalemate,
    /// Neither side can mate by any series of legal moves (5.2.2); detected as
    /// shakmaty's insufficient material for both sides.
    DeadPosition,
    /// The same position appeared five times (9.6.1), automatic.
    FivefoldRepetition,
    /// 75 moves by each side without a pawn move or capture (9.6.2), automatic.
    SeventyFiveMoveRule,
    /// A correct claim of threefold repetition (9.2).
    ThreefoldRepetition,
    /// A correct claim under the 50-move rule (9.3).
    FiftyMoveRule,
    /// The loser resigned (5.1.2).
    Resignation,
    /// Both players agreed to a draw (5.2.3).
    Agreement,
    /// The loser ran out of time (6.9).
    TimeForfeit,
    /// One side ran out of time but the other cannot mate by any series of
    /// legal moves, so the game is drawn (6.9).
    TimeForfeitOpponentCannotMate,
    /// A tournament director decided the result; the text says why.
    Adjudication(String),
}

impl EndReason {
    /// The PGN `Termination` tag value (PGN standard 9.8.1).
    pub fn pgn_termination(&self) -> &'static str {
        match self {
            EndReason::TimeForfeit | EndReason::TimeForfeitOpponentCannotMate => "time forfeit",
            EndReason::Adjudication(_) => "adjudication",
            _ => "normal",
        }
    }

    /// Whether the rules end the game without anybody asking (mate,
    /// stalemate, dead position, fivefold, 75 moves).
    pub fn is_automatic(&self) -> bool {
        matches!(
            self,
            EndReason::Checkmate
                | EndReason::Stalemate
                | EndReason::DeadPosition
                | EndReason::FivefoldRepetition
                | EndReason::SeventyFiveMoveRule
        )
    }
}

/// A finished game: the score and the rule that ended it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// Who scored.
    pub result: GameResult,
    /// Which rule ended the game.
    pub reason: EndReason,
}

impl Outcome {
    /// An outcome from its parts.
    pub fn new(result: GameResult, reason: EndReason) -> Outcome {
        Outcome { result, reason }
    }

    /// A drawn outcome for `reason`.
    pub fn draw(reason: EndReason) -> Outcome {
        Outcome::new(GameResult::Draw, reason)
    }

    /// Reads back a sentence written by this type's `Display` for `result`.
    pub fn from_description(result: GameResult, text: &str) -> Option<Outcome> {
        let text = text.trim();
        if let Some(reason) = text.strip_prefix(ADJUDICATED) {
            return Some(Outcome::new(
                result,
                EndReason::Adjudication(reason.trim().to_owned()),
            ));
        }
        let fixed = [
            EndReason::Checkmate,
            EndReason::Stalemate,
            EndReason::DeadPosition,
            EndReason::FivefoldRepetition,
            EndReason::SeventyFiveMoveRule,
            EndReason::ThreefoldRepetition,
            EndReason::FiftyMoveRule,
            EndReason::Resignation,
            EndReason::Agreement,
            EndReason::TimeForfeit,
            EndReason::TimeForfeitOpponentCannotMate,
        ];
        fixed
            .into_iter()
            .map(|reason| Outcome::new(result, reason))
            .find(|candidate| candidate.to_string() == text)
    }
}

const ADJUDICATED: &str = "Adjudicated:";

/// The adjudication a withdrawal makes in a game the withdrawn player does
/// not finish: a typed reason, written as the adjudication's text (which is
/// what is stored and what PGN carries) and read back from it, so that
/// mails say it in the reader's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WithdrawalForfeit {
    /// Who withdrew.
    pub player: String,
    /// From which event.
    pub event: String,
}

const FORFEIT: &str = "forfeit: ";
const WITHDREW_FROM: &str = " withdrew from ";

impl WithdrawalForfeit {
    /// The end reason this forfeit is.
    pub fn end_reason(&self) -> EndReason {
        EndReason::Adjudication(self.to_string())
    }

    /// Reads back an adjudication's text written by this type's `Display`.
    pub fn read(why: &str) -> Option<WithdrawalForfeit> {
        let (player, event) = why.strip_prefix(FORFEIT)?.split_once(WITHDREW_FROM)?;
        Some(WithdrawalForfeit {
            player: player.to_owned(),
            event: event.to_owned(),
        })
    }
}

impl fmt::Display for WithdrawalForfeit {
    /// `forfeit: <player> withdrew from <event>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{FORFEIT}{}{WITHDREW_FROM}{}", self.player, self.event)
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl fmt::Display for Outcome {
    /// One English sentence, e.g. "Black resigns, White wins." The loser of a
    /// decisive game is the side that did not win; for a time-forfeit draw the
    /// side that ran out of time cannot be known from the result alone, so the
    /// sentence does not name it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let winner = self.result.winner();
        let won = |f: &mut fmt::Formatter<'_>, how: &str| match winner {
            Some(w) => write!(f, "{} wins {how}.", color_name(w)),
            None => write!(f, "Drawn {how}."),
        };
        match &self.reason {
            EndReason::Checkmate => won(f, "by checkmate"),
            EndReason::Stalemate => won(f, "by stalemate"),
            EndReason::DeadPosition => won(f, "as neither side can mate"),
            EndReason::FivefoldRepetition => won(f, "by fivefold repetition"),
            EndReason::SeventyFiveMoveRule => won(f, "by the 75-move rule"),
            EndReason::ThreefoldRepetition => won(f, "by a claim of threefold repetition"),
            EndReason::FiftyMoveRule => won(f, "by a claim under the 50-move rule"),
            EndReason::Resignation => match winner {
                Some(w) => write!(f, "{} resigns, {} wins.", color_name(!w), color_name(w)),
                None => f.write_str("Drawn by resignation."),
            },
            EndReason::Agreement => won(f, "by agreement"),
            EndReason::TimeForfeit => match winner {
                Some(w) => write!(
                    f,
                    "{} lost on time, {} wins.",
                    color_name(!w),
                    color_name(w)
                ),
                None => f.write_str("Drawn on time."),
            },
            EndReason::TimeForfeitOpponentCannotMate => {
                won(f, "on time, as the opponent cannot mate")
            }
            EndReason::Adjudication(why) => write!(f, "{ADJUDICATED} {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_withdrawal_forfeit_reads_back_from_its_adjudication_text() {
        let forfeit = WithdrawalForfeit {
            player: "Ana Novak".into(),
            event: "Spring Cup 2026".into(),
        };
        let text = Outcome::new(GameResult::WhiteWins, forfeit.end_reason()).to_string();
        assert_eq!(
            text,
            "Adjudicated: forfeit: Ana Novak withdrew from Spring Cup 2026"
        );
        let read = Outcome::from_description(GameResult::WhiteWins, &text);
        let Some(Outcome {
            reason: EndReason::Adjudication(why),
            ..
        }) = read
        else {
            panic!("not read back: {text}");
        };
        assert_eq!(WithdrawalForfeit::read(&why), Some(forfeit));
        assert_eq!(
            WithdrawalForfeit::read("White's attack wins by force"),
            None
        );
    }

    #[test]
    fn every_description_reads_back_to_the_same_outcome() {
        let reasons = [
            EndReason::Checkmate,
            EndReason::Stalemate,
            EndReason::DeadPosition,
            EndReason::FivefoldRepetition,
            EndReason::SeventyFiveMoveRule,
            EndReason::ThreefoldRepetition,
            EndReason::FiftyMoveRule,
            EndReason::Resignation,
            EndReason::Agreement,
            EndReason::TimeForfeit,
            EndReason::TimeForfeitOpponentCannotMate,
            EndReason::Adjudication("White's attack wins by force".to_owned()),
        ];
        for result in [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
        ] {
            for reason in reasons.clone() {
                let outcome = Outcome::new(result, reason);
                let text = outcome.to_string();
                assert_eq!(
                    Outcome::from_description(result, &text),
                    Some(outcome),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn sentences_name_the_loser_and_the_winner() {
        let table = [
            (
                Outcome::new(GameResult::BlackWins, EndReason::Resignation),
                "White resigns, Black wins.",
            ),
            (
                Outcome::new(GameResult::WhiteWins, EndReason::TimeForfeit),
                "Black lost on time, White wins.",
            ),
            (
                Outcome::new(GameResult::WhiteWins, EndReason::Checkmate),
                "White wins by checkmate.",
            ),
            (
                Outcome::draw(EndReason::TimeForfeitOpponentCannotMate),
                "Drawn on time, as the opponent cannot mate.",
            ),
        ];
        for (outcome, text) in table {
            assert_eq!(outcome.to_string(), text);
        }
    }

    #[test]
    fn result_tokens_read_back() {
        for result in [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
        ] {
            assert_eq!(GameResult::from_pgn(result.as_pgn()), Some(result));
        }
        assert_eq!(GameResult::from_pgn("*"), None);
    }
}
