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
    /// A tournament director recorded a loss on time (ICCF marks it `E`,
    /// as the clock's own [`EndReason::TimeForfeit`]); the text says why.
    TimeForfeitRuled(String),
    /// Won without play: the loser never started or withdrew (ICCF's
    /// "default", marked `+`/`-`); the text says why.
    Default(String),
}

impl EndReason {
    /// The PGN `Termination` tag value (PGN standard 9.8.1), by the
    /// result's [`ResultKind`]: `normal` over the board, `time forfeit`,
    /// `adjudication`, and `abandoned` for a game won or lost by default
    /// (the standard's word for a game a player abandoned or never began).
    pub fn pgn_termination(&self) -> &'static str {
        self.kind().pgn_termination()
    }

    /// How the result was reached, as ICCF records it. An adjudication
    /// whose text is a [`WithdrawalForfeit`] is a default: the withdrawn
    /// player did not play the game out.
    pub fn kind(&self) -> ResultKind {
        match self {
            EndReason::TimeForfeit
            | EndReason::TimeForfeitOpponentCannotMate
            | EndReason::TimeForfeitRuled(_) => ResultKind::Time,
            EndReason::Adjudication(why) if WithdrawalForfeit::read(why).is_some() => {
                ResultKind::Default
            }
            EndReason::Adjudication(_) => ResultKind::Adjudication,
            EndReason::Default(_) => ResultKind::Default,
            _ => ResultKind::Board,
        }
    }

    /// The TD's words, for the endings a TD decides (adjudication, a
    /// ruled time forfeit, a default).
    pub fn ruling(&self) -> Option<&str> {
        match self {
            EndReason::Adjudication(why)
            | EndReason::TimeForfeitRuled(why)
            | EndReason::Default(why) => Some(why),
            _ => None,
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
        type Ruled = fn(String) -> EndReason;
        let ruled: [(&str, Ruled); 3] = [
            (ADJUDICATED, EndReason::Adjudication),
            (RULED_ON_TIME, EndReason::TimeForfeitRuled),
            (BY_DEFAULT, EndReason::Default),
        ];
        for (prefix, reason) in ruled {
            if let Some(why) = text.strip_prefix(prefix) {
                return Some(Outcome::new(result, reason(why.trim().to_owned())));
            }
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
const RULED_ON_TIME: &str = "Lost on time, by the TD's ruling:";
const BY_DEFAULT: &str = "By default, without play:";
const CANCELLED: &str = "Cancelled:";

/// How a result was reached, as ICCF records it: the "kind" a TD gives with
/// `dopis game result --kind`, which crosstables, standings, PGN and XFCC
/// show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResultKind {
    /// Played out: mate, resignation, agreement, a claim, a dead position.
    Board,
    /// Lost on time (ICCF `1E`/`0E`): by the clock or by a TD's ruling.
    Time,
    /// Decided by an adjudicator (ICCF `1A`/`½A`/`0A`).
    Adjudication,
    /// Won or lost without play: a player never started or withdrew (ICCF
    /// `+`/`-`).
    Default,
    /// Cancelled by the TD: no result, counts for nobody.
    Cancelled,
}

impl ResultKind {
    /// Every kind, in the order of the docs.
    pub const ALL: [ResultKind; 5] = [
        ResultKind::Board,
        ResultKind::Time,
        ResultKind::Adjudication,
        ResultKind::Default,
        ResultKind::Cancelled,
    ];

    /// The key a TD writes (`--kind`, the import file's `kind` column).
    pub fn key(self) -> &'static str {
        match self {
            ResultKind::Board => "board",
            ResultKind::Time => "time",
            ResultKind::Adjudication => "adjudication",
            ResultKind::Default => "default",
            ResultKind::Cancelled => "cancelled",
        }
    }

    /// Reads a key written by [`ResultKind::key`] (any case, surrounding
    /// blanks ignored).
    pub fn from_key(key: &str) -> Option<ResultKind> {
        let key = key.trim().to_ascii_lowercase();
        ResultKind::ALL.into_iter().find(|k| k.key() == key)
    }

    /// The PGN `Termination` tag value: `normal`, `time forfeit`,
    /// `adjudication`, `abandoned` (default) or `unterminated` (cancelled:
    /// the game has no result, `*`).
    pub fn pgn_termination(self) -> &'static str {
        match self {
            ResultKind::Board => "normal",
            ResultKind::Time => "time forfeit",
            ResultKind::Adjudication => "adjudication",
            ResultKind::Default => "abandoned",
            ResultKind::Cancelled => "unterminated",
        }
    }

    /// The kind a PGN `Termination` value names (any case); `None` for
    /// values that say nothing about it (`normal`, `emergency`, …: the
    /// game counts as played out).
    pub fn from_pgn_termination(value: &str) -> Option<ResultKind> {
        match value.trim().to_ascii_lowercase().as_str() {
            "time forfeit" => Some(ResultKind::Time),
            "adjudication" => Some(ResultKind::Adjudication),
            "abandoned" | "rules infraction" => Some(ResultKind::Default),
            "unterminated" => Some(ResultKind::Cancelled),
            _ => None,
        }
    }

    /// The end reason a TD's ruling of this kind writes, with the TD's
    /// words; `None` for `cancelled` (no result) and `board` (a TD does not
    /// play the game out).
    pub fn ruled(self, why: impl Into<String>) -> Option<EndReason> {
        match self {
            ResultKind::Time => Some(EndReason::TimeForfeitRuled(why.into())),
            ResultKind::Adjudication => Some(EndReason::Adjudication(why.into())),
            ResultKind::Default => Some(EndReason::Default(why.into())),
            ResultKind::Board | ResultKind::Cancelled => None,
        }
    }
}

impl fmt::Display for ResultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A game a TD cancelled: it has no result and counts for nobody. Stored
/// as the game's ending text (`Cancelled: <why>`) with no result, and read
/// back from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cancellation {
    /// The TD's words.
    pub why: String,
}

impl Cancellation {
    /// Reads back an ending text written by this type's `Display`.
    pub fn read(text: &str) -> Option<Cancellation> {
        let why = text.trim().strip_prefix(CANCELLED)?;
        Some(Cancellation {
            why: why.trim().to_owned(),
        })
    }
}

impl fmt::Display for Cancellation {
    /// `Cancelled: <why>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{CANCELLED} {}", self.why)
    }
}

/// A game's result as XFCC names it (the `result` of an `XfccGame`, see
/// `XFCC.md`): a pure function of the stored result and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum XfccResult {
    /// Still being played.
    Ongoing,
    /// 1-0, over the board or on time.
    WhiteWins,
    /// 0-1, over the board or on time.
    BlackWins,
    /// ½-½, over the board or on time.
    Draw,
    /// 1-0 by adjudication.
    WhiteWinAdjudicated,
    /// 0-1 by adjudication.
    BlackWinAdjudicated,
    /// ½-½ by adjudication.
    DrawAdjudicated,
    /// White lost by default (Black wins without play).
    WhiteDefaulted,
    /// Black lost by default (White wins without play).
    BlackDefaulted,
    /// Both players lost by default. dopis scores a game neither player
    /// can finish as annulled, so it never produces this one.
    BothDefaulted,
    /// Cancelled (or annulled): counts for nobody.
    Cancelled,
    /// Waiting for an adjudicator. dopis has no such state (a TD decides
    /// at once), so it never produces this one.
    AdjudicationPending,
}

impl XfccResult {
    /// The result of a game: `outcome` once it is over; `cancelled` when a
    /// TD cancelled it or a withdrawal annulled it (closed without a result).
    pub fn of(outcome: Option<&Outcome>, cancelled: bool) -> XfccResult {
        let Some(o) = outcome else {
            return if cancelled {
                XfccResult::Cancelled
            } else {
                XfccResult::Ongoing
            };
        };
        match (o.reason.kind(), o.result) {
            (ResultKind::Adjudication, GameResult::WhiteWins) => XfccResult::WhiteWinAdjudicated,
            (ResultKind::Adjudication, GameResult::BlackWins) => XfccResult::BlackWinAdjudicated,
            (ResultKind::Adjudication, GameResult::Draw) => XfccResult::DrawAdjudicated,
            (ResultKind::Default, GameResult::WhiteWins) => XfccResult::BlackDefaulted,
            (ResultKind::Default, GameResult::BlackWins) => XfccResult::WhiteDefaulted,
            (_, GameResult::WhiteWins) => XfccResult::WhiteWins,
            (_, GameResult::BlackWins) => XfccResult::BlackWins,
            (_, GameResult::Draw) => XfccResult::Draw,
        }
    }

    /// The name XFCC writes (`WhiteWinAdjudicated`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            XfccResult::Ongoing => "Ongoing",
            XfccResult::WhiteWins => "WhiteWins",
            XfccResult::BlackWins => "BlackWins",
            XfccResult::Draw => "Draw",
            XfccResult::WhiteWinAdjudicated => "WhiteWinAdjudicated",
            XfccResult::BlackWinAdjudicated => "BlackWinAdjudicated",
            XfccResult::DrawAdjudicated => "DrawAdjudicated",
            XfccResult::WhiteDefaulted => "WhiteDefaulted",
            XfccResult::BlackDefaulted => "BlackDefaulted",
            XfccResult::BothDefaulted => "BothDefaulted",
            XfccResult::Cancelled => "Cancelled",
            XfccResult::AdjudicationPending => "AdjudicationPending",
        }
    }
}

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
            EndReason::TimeForfeitRuled(why) => write!(f, "{RULED_ON_TIME} {why}"),
            EndReason::Default(why) => write!(f, "{BY_DEFAULT} {why}"),
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
            EndReason::TimeForfeitRuled("no move for 40 days".to_owned()),
            EndReason::Default("never started".to_owned()),
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

    #[test]
    fn each_end_reason_has_its_iccf_kind_and_pgn_termination() {
        let forfeit = WithdrawalForfeit {
            player: "Ana".into(),
            event: "Cup".into(),
        };
        let table = [
            (EndReason::Checkmate, ResultKind::Board, "normal"),
            (EndReason::Agreement, ResultKind::Board, "normal"),
            (EndReason::TimeForfeit, ResultKind::Time, "time forfeit"),
            (
                EndReason::TimeForfeitOpponentCannotMate,
                ResultKind::Time,
                "time forfeit",
            ),
            (
                EndReason::TimeForfeitRuled("x".into()),
                ResultKind::Time,
                "time forfeit",
            ),
            (
                EndReason::Adjudication("x".into()),
                ResultKind::Adjudication,
                "adjudication",
            ),
            (
                EndReason::Default("x".into()),
                ResultKind::Default,
                "abandoned",
            ),
            (forfeit.end_reason(), ResultKind::Default, "abandoned"),
        ];
        for (reason, kind, termination) in table {
            assert_eq!(reason.kind(), kind, "{reason:?}");
            assert_eq!(reason.pgn_termination(), termination, "{reason:?}");
        }
        assert_eq!(ResultKind::Cancelled.pgn_termination(), "unterminated");
    }

    #[test]
    fn kind_keys_and_terminations_read_back() {
        for kind in ResultKind::ALL {
            assert_eq!(ResultKind::from_key(kind.key()), Some(kind));
            assert_eq!(ResultKind::from_key(&kind.key().to_uppercase()), Some(kind));
            if kind != ResultKind::Board {
                assert_eq!(
                    ResultKind::from_pgn_termination(kind.pgn_termination()),
                    Some(kind)
                );
            }
        }
        assert_eq!(ResultKind::from_key("forfeit"), None);
        assert_eq!(ResultKind::from_pgn_termination("normal"), None);
    }

    #[test]
    fn a_cancellation_reads_back_from_its_text() {
        let c = Cancellation {
            why: "both players agreed to annul".into(),
        };
        assert_eq!(c.to_string(), "Cancelled: both players agreed to annul");
        assert_eq!(Cancellation::read(&c.to_string()), Some(c));
        assert_eq!(Cancellation::read("Adjudicated: x"), None);
    }

    #[test]
    fn xfcc_result_names_follow_the_result_and_its_kind() {
        use GameResult::*;
        let o = |result, reason| Some(Outcome::new(result, reason));
        let table = [
            (None, false, "Ongoing"),
            (None, true, "Cancelled"),
            (o(WhiteWins, EndReason::Checkmate), false, "WhiteWins"),
            (o(BlackWins, EndReason::Resignation), false, "BlackWins"),
            (o(Draw, EndReason::Agreement), false, "Draw"),
            (o(WhiteWins, EndReason::TimeForfeit), false, "WhiteWins"),
            (
                o(BlackWins, EndReason::TimeForfeitRuled("x".into())),
                false,
                "BlackWins",
            ),
            (
                o(Draw, EndReason::TimeForfeitOpponentCannotMate),
                false,
                "Draw",
            ),
            (
                o(WhiteWins, EndReason::Adjudication("x".into())),
                false,
                "WhiteWinAdjudicated",
            ),
            (
                o(BlackWins, EndReason::Adjudication("x".into())),
                false,
                "BlackWinAdjudicated",
            ),
            (
                o(Draw, EndReason::Adjudication("x".into())),
                false,
                "DrawAdjudicated",
            ),
            (
                o(WhiteWins, EndReason::Default("x".into())),
                false,
                "BlackDefaulted",
            ),
            (
                o(BlackWins, EndReason::Default("x".into())),
                false,
                "WhiteDefaulted",
            ),
        ];
        for (outcome, cancelled, name) in table {
            assert_eq!(
                XfccResult::of(outcome.as_ref(), cancelled).as_str(),
                name,
                "{outcome:?}"
            );
        }
    }
}
