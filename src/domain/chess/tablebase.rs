//! The endgame tables' word on a position, and the rules that turn it into
//! a result (pure).
//!
//! ICCF's rule (Playing Rules, "Tablebase claims"): a position covered by
//! the endgame tables may be claimed as a win or a draw, and the tables
//! decide it without the 50-move rule, so a win that takes longer than 50
//! moves (a "cursed win") is still a win. Over the board the 50-move rule
//! stands, and such a position is a draw. The tables themselves are read by
//! an adapter behind [`Tables`]; this module only says what their answer
//! means.

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position};

use super::outcome::{EndReason, GameResult};

/// The tables' result for the side to move, as the Syzygy WDL tables hold
/// it: for the position as if it had just been reached by a capture or a
/// pawn move (the 50-move counter at zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wdl {
    /// Lost, within the 50-move rule.
    Loss,
    /// Lost, but the loser is saved by the 50-move rule.
    BlessedLoss,
    /// Drawn, whatever the rule.
    Draw,
    /// Won, but not within the 50-move rule.
    CursedWin,
    /// Won within the 50-move rule.
    Win,
}

impl Wdl {
    /// The same value from the other side's view.
    pub fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// The key written in JSON and read by the templates (`cursed-win`, …).
    pub fn key(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::BlessedLoss => "blessed-loss",
            Wdl::Draw => "draw",
            Wdl::CursedWin => "cursed-win",
            Wdl::Win => "win",
        }
    }

    /// Python-chess's number for the value (`-2..=2`), for comparing readers.
    pub fn as_number(self) -> i8 {
        match self {
            Wdl::Loss => -2,
            Wdl::BlessedLoss => -1,
            Wdl::Draw => 0,
            Wdl::CursedWin => 1,
            Wdl::Win => 2,
        }
    }
}

/// The tables' result for the side to move with the position's own 50-move
/// counter taken into account (Syzygy's WDL₅₀). Near the 50-move line the
/// DTZ tables' rounding can leave it open ([`Wdl50::MaybeWin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wdl50 {
    /// Lost, whatever the loser does.
    Loss,
    /// Lost or saved by the 50-move rule: the tables' rounding cannot tell.
    MaybeLoss,
    /// Saved by the 50-move rule.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won, but the 50-move rule comes first.
    CursedWin,
    /// Won or frustrated by the 50-move rule: the tables' rounding cannot tell.
    MaybeWin,
    /// Won within the 50-move rule.
    Win,
}

/// Distance to zeroing: half-moves to the next capture or pawn move with
/// best play, from the side to move's view (positive when winning,
/// negative when losing, zero in a draw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dtz {
    /// The half-moves, signed as above.
    pub plies: i32,
    /// Whether the tables store this value rounded (Syzygy keeps some DTZ
    /// values to within one ply where that cannot change the result).
    pub rounded: bool,
}

impl fmt::Display for Dtz {
    /// `15`, or `~16` where the tables round.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rounded {
            write!(f, "~{}", self.plies)
        } else {
            write!(f, "{}", self.plies)
        }
    }
}

/// One legal move and what the tables say of the position after it, from
/// the mover's view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveReading {
    /// The move in UCI.
    pub uci: String,
    /// The move in English SAN.
    pub san: String,
    /// The result for the mover after it.
    pub wdl: Wdl,
    /// The distance to zeroing after it, for the side then to move (as the
    /// tables give it), where there is a DTZ table.
    pub dtz: Option<Dtz>,
}

/// What the tables say about one position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// The table's name as Syzygy writes it, White's pieces first (`KRvK`).
    pub material: String,
    /// How many men are on the board, kings included.
    pub pieces: u32,
    /// The side to move.
    #[serde(serialize_with = "super::side::serialize_color")]
    pub turn: Color,
    /// The half-moves since the last capture or pawn move.
    pub halfmoves: u32,
    /// The result for the side to move, without the 50-move counter.
    pub wdl: Wdl,
    /// The result for the side to move, with the position's counter; `None`
    /// where the DTZ table is missing.
    pub wdl50: Option<Wdl50>,
    /// The distance to zeroing; `None` where the DTZ table is missing.
    pub dtz: Option<Dtz>,
}

impl Reading {
    /// The result the tables give under `rule`; `None` where the rule
    /// leaves it open (the 50-move rule near its line, or without a DTZ
    /// table) or where the event uses no tables.
    pub fn result(&self, rule: TablebaseRule) -> Option<GameResult> {
        let for_mover = |won: bool| {
            if won {
                GameResult::win_for(self.turn)
            } else {
                GameResult::win_for(!self.turn)
            }
        };
        match rule {
            TablebaseRule::None => None,
            TablebaseRule::Iccf => Some(match self.wdl {
                Wdl::Win | Wdl::CursedWin => for_mover(true),
                Wdl::Loss | Wdl::BlessedLoss => for_mover(false),
                Wdl::Draw => GameResult::Draw,
            }),
            TablebaseRule::FiftyMove => match self.wdl {
                // No counter can turn a drawn position or a saved loss into
                // anything else.
                Wdl::Draw | Wdl::BlessedLoss | Wdl::CursedWin => Some(GameResult::Draw),
                Wdl::Win | Wdl::Loss => match self.wdl50? {
                    Wdl50::Win => Some(for_mover(true)),
                    Wdl50::Loss => Some(for_mover(false)),
                    Wdl50::CursedWin | Wdl50::BlessedLoss | Wdl50::Draw => Some(GameResult::Draw),
                    Wdl50::MaybeWin | Wdl50::MaybeLoss => None,
                },
            },
        }
    }

    /// The result from White's view, without the 50-move rule: what "the
    /// tables say" in a notice.
    pub fn for_white(&self) -> Wdl {
        match self.turn {
            Color::White => self.wdl,
            Color::Black => self.wdl.flip(),
        }
    }
}

/// What players are told as their game enters the tables: the reading and
/// the event's rule that will judge a claim on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableNews {
    /// What the tables say.
    pub reading: Reading,
    /// The event's rule.
    pub rule: TablebaseRule,
}

impl TableNews {
    /// The result a claim would get now; `None` where the rule leaves it open.
    pub fn result(&self) -> Option<GameResult> {
        self.reading.result(self.rule)
    }
}

/// Why the tables cannot say anything about a position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "key", rename_all = "snake_case")]
pub enum Unread {
    /// No tables are configured (`[tablebase] syzygy_path`).
    #[error("no endgame tables are set up here")]
    NoTables,
    /// The position still has castling rights, which no table holds.
    #[error("the position still has castling rights, which the endgame tables do not hold")]
    Castling,
    /// More men than the largest table here.
    #[error("the position has {pieces} pieces and the tables here hold at most {most}")]
    TooManyPieces {
        /// Men on the board, kings included.
        pieces: u32,
        /// The most any table here holds.
        most: u32,
    },
    /// This material, or one it can reach by a capture or promotion, has no
    /// table here.
    #[error("there is no table for {material} here")]
    NoTable {
        /// The table that is missing (`KQRvKP`).
        material: String,
    },
    /// A table is there but could not be read (unreadable, truncated,
    /// corrupt): the admin's `dopis doctor` says which.
    #[error("the table {material} could not be read ({detail})")]
    Broken {
        /// The table.
        material: String,
        /// What went wrong.
        detail: String,
    },
}

/// A set of endgame tables that can be asked about positions.
pub trait Tables: Send + Sync + fmt::Debug {
    /// What the tables say about `position`, or why they cannot. Without
    /// tables, with more men than any table holds or with castling rights,
    /// the answer is given without touching a table; everything else is
    /// [`Tables::probe`]'s. Every caller asks through here.
    fn read(&self, position: &Chess) -> Result<Reading, Unread> {
        let most = self.most_pieces();
        if most == 0 {
            return Err(Unread::NoTables);
        }
        let men = pieces(position);
        if men > most {
            return Err(Unread::TooManyPieces { pieces: men, most });
        }
        if position.castles().any() {
            return Err(Unread::Castling);
        }
        self.probe(position)
    }

    /// Looks a position up in the tables (called by [`Tables::read`],
    /// which has checked the men and castling rights already).
    fn probe(&self, position: &Chess) -> Result<Reading, Unread>;

    /// The most men any table here holds (0 without tables): positions with
    /// more are not looked up at all.
    fn most_pieces(&self) -> u32;

    /// Every legal move with the tables' word on the position after it,
    /// best for the mover first.
    fn moves(&self, position: &Chess) -> Result<Vec<MoveReading>, Unread>;
}

/// No tables: every position is unread. The default where none are set up.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTables;

impl Tables for NoTables {
    fn probe(&self, _: &Chess) -> Result<Reading, Unread> {
        Err(Unread::NoTables)
    }

    fn most_pieces(&self) -> u32 {
        0
    }

    fn moves(&self, _: &Chess) -> Result<Vec<MoveReading>, Unread> {
        Err(Unread::NoTables)
    }
}

/// The men on the board, kings included.
pub fn pieces(position: &Chess) -> u32 {
    position.board().occupied().count() as u32
}

/// Which rule decides a claim on the tables (event file key
/// `tablebase_rule`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TablebaseRule {
    /// ICCF's: the tables' result without the 50-move rule (a cursed win
    /// is a win).
    #[default]
    Iccf,
    /// Over the board's: the 50-move rule stands (a cursed win or a blessed
    /// loss is a draw).
    FiftyMove,
    /// The event uses no tables: claims on them are refused.
    None,
}

impl TablebaseRule {
    /// Every rule, in the order of the docs.
    pub const ALL: [TablebaseRule; 3] = [
        TablebaseRule::Iccf,
        TablebaseRule::FiftyMove,
        TablebaseRule::None,
    ];

    /// The key an event file writes.
    pub fn key(self) -> &'static str {
        match self {
            TablebaseRule::Iccf => "iccf",
            TablebaseRule::FiftyMove => "fifty-move",
            TablebaseRule::None => "none",
        }
    }

    /// Reads a key written by [`TablebaseRule::key`].
    pub fn from_key(key: &str) -> Option<TablebaseRule> {
        TablebaseRule::ALL
            .into_iter()
            .find(|r| r.key() == key.trim())
    }
}

/// Whether a game that enters the tables waits for a claim or ends by
/// itself (event file key `tablebase_end`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TablebaseEnd {
    /// A player claims, as at ICCF.
    #[default]
    Claim,
    /// The game ends as the tables say the moment it enters them.
    Auto,
}

impl TablebaseEnd {
    /// The key an event file writes.
    pub fn key(self) -> &'static str {
        match self {
            TablebaseEnd::Claim => "claim",
            TablebaseEnd::Auto => "auto",
        }
    }

    /// Reads a key written by [`TablebaseEnd::key`].
    pub fn from_key(key: &str) -> Option<TablebaseEnd> {
        [TablebaseEnd::Claim, TablebaseEnd::Auto]
            .into_iter()
            .find(|r| r.key() == key.trim())
    }
}

/// An event's rules for the endgame tables (none outside events: the
/// defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TablebasePolicy {
    /// What decides a claim.
    pub rule: TablebaseRule,
    /// Claim or end by itself.
    pub end: TablebaseEnd,
    /// Whether both players are told when their game enters the tables.
    pub notice: bool,
}

impl Default for TablebasePolicy {
    fn default() -> Self {
        TablebasePolicy {
            rule: TablebaseRule::Iccf,
            end: TablebaseEnd::Claim,
            notice: true,
        }
    }
}

/// Who turned the tables' word into the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decider {
    /// A player's claim.
    Claim(#[serde(serialize_with = "super::side::serialize_color")] Color),
    /// The event ends such games by itself (`tablebase_end = "auto"`).
    Itself,
    /// A TD (`dopis game adjudicate N --tablebase`).
    Director,
}

/// The proof of a result the tables decided: the table, its verdict, the
/// distance to zeroing and the rule, written as the adjudication's text
/// (which is what is stored and what PGN carries) and read back from it, so
/// that mails and pages say it in the reader's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableProof {
    /// The table (`KRvK`).
    pub material: String,
    /// The verdict from White's view, without the 50-move rule.
    pub for_white: Wdl,
    /// The distance to zeroing for the side to move, where known.
    pub dtz: Option<Dtz>,
    /// The rule that made it a result.
    pub rule: TablebaseRule,
    /// Who asked for it.
    pub by: Decider,
}

const PROOF: &str = "endgame tables (Syzygy ";
const BY_ITSELF: &str = "ended as the tables say";
const BY_DIRECTOR: &str = "by the TD";
const CLAIMED_BY: &str = "claimed by ";

impl TableProof {
    /// The proof of `reading` decided under `rule` by `by`.
    pub fn of(reading: &Reading, rule: TablebaseRule, by: Decider) -> TableProof {
        TableProof {
            material: reading.material.clone(),
            for_white: reading.for_white(),
            dtz: reading.dtz,
            rule,
            by,
        }
    }

    /// The end reason this proof is.
    pub fn end_reason(&self) -> EndReason {
        EndReason::Adjudication(self.to_string())
    }

    /// Reads back an adjudication's text written by this type's `Display`.
    pub fn read(why: &str) -> Option<TableProof> {
        let rest = why.strip_prefix(PROOF)?;
        let (material, rest) = rest.split_once("): ")?;
        let mut parts = rest.split(", ");
        let verdict = parts.next()?;
        let for_white = [
            Wdl::Win,
            Wdl::CursedWin,
            Wdl::Draw,
            Wdl::BlessedLoss,
            Wdl::Loss,
        ]
        .into_iter()
        .find(|w| verdict_words(*w) == verdict)?;
        let mut dtz = None;
        let mut next = parts.next()?;
        if let Some(value) = next.strip_prefix("DTZ ") {
            let (rounded, digits) = match value.strip_prefix('~') {
                Some(d) => (true, d),
                None => (false, value),
            };
            dtz = Some(Dtz {
                plies: digits.parse().ok()?,
                rounded,
            });
            next = parts.next()?;
        }
        let (rule, by) = next.split_once("; ")?;
        let rule = TablebaseRule::ALL
            .into_iter()
            .find(|r| rule_words(*r) == rule)?;
        let by = match by {
            BY_ITSELF => Decider::Itself,
            BY_DIRECTOR => Decider::Director,
            other => Decider::Claim(match other.strip_prefix(CLAIMED_BY)? {
                "White" => Color::White,
                "Black" => Color::Black,
                _ => return None,
            }),
        };
        if parts.next().is_some() {
            return None;
        }
        Some(TableProof {
            material: material.to_owned(),
            for_white,
            dtz,
            rule,
            by,
        })
    }
}

/// The verdict from White's view in the proof's words.
fn verdict_words(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win for White",
        Wdl::CursedWin => "cursed win for White",
        Wdl::Draw => "draw",
        Wdl::BlessedLoss => "cursed win for Black",
        Wdl::Loss => "win for Black",
    }
}

fn rule_words(r: TablebaseRule) -> &'static str {
    match r {
        TablebaseRule::Iccf => "ICCF rule",
        TablebaseRule::FiftyMove => "50-move rule",
        TablebaseRule::None => "no rule",
    }
}

impl fmt::Display for TableProof {
    /// `endgame tables (Syzygy KRvK): win for White, DTZ 15, ICCF rule;
    /// claimed by White`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{PROOF}{}): {}",
            self.material,
            verdict_words(self.for_white)
        )?;
        if let Some(dtz) = self.dtz {
            write!(f, ", DTZ {dtz}")?;
        }
        write!(f, ", {}; ", rule_words(self.rule))?;
        match self.by {
            Decider::Claim(side) => write!(
                f,
                "{CLAIMED_BY}{}",
                match side {
                    Color::White => "White",
                    Color::Black => "Black",
                }
            ),
            Decider::Itself => f.write_str(BY_ITSELF),
            Decider::Director => f.write_str(BY_DIRECTOR),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(turn: Color, wdl: Wdl, wdl50: Option<Wdl50>) -> Reading {
        Reading {
            material: "KBBvKN".into(),
            pieces: 5,
            turn,
            halfmoves: 0,
            wdl,
            wdl50,
            dtz: None,
        }
    }

    #[test]
    fn a_cursed_win_is_a_win_by_iccf_and_a_draw_by_the_fifty_move_rule() {
        let r = reading(Color::White, Wdl::CursedWin, Some(Wdl50::CursedWin));
        assert_eq!(r.result(TablebaseRule::Iccf), Some(GameResult::WhiteWins));
        assert_eq!(r.result(TablebaseRule::FiftyMove), Some(GameResult::Draw));
        assert_eq!(r.result(TablebaseRule::None), None);
        let r = reading(Color::Black, Wdl::BlessedLoss, Some(Wdl50::BlessedLoss));
        assert_eq!(r.result(TablebaseRule::Iccf), Some(GameResult::WhiteWins));
        assert_eq!(r.result(TablebaseRule::FiftyMove), Some(GameResult::Draw));
    }

    #[test]
    fn the_fifty_move_rule_follows_the_counter_and_leaves_rounding_open() {
        // A win at zero that the counter has since made a draw.
        let r = reading(Color::Black, Wdl::Win, Some(Wdl50::CursedWin));
        assert_eq!(r.result(TablebaseRule::FiftyMove), Some(GameResult::Draw));
        assert_eq!(r.result(TablebaseRule::Iccf), Some(GameResult::BlackWins));
        let r = reading(Color::Black, Wdl::Win, Some(Wdl50::MaybeWin));
        assert_eq!(r.result(TablebaseRule::FiftyMove), None);
        let r = reading(Color::Black, Wdl::Win, None);
        assert_eq!(r.result(TablebaseRule::FiftyMove), None);
        let r = reading(Color::White, Wdl::Loss, Some(Wdl50::Loss));
        assert_eq!(
            r.result(TablebaseRule::FiftyMove),
            Some(GameResult::BlackWins)
        );
        assert_eq!(r.for_white(), Wdl::Loss);
    }

    #[test]
    fn a_proof_reads_back_from_its_adjudication_text() {
        use super::super::outcome::Outcome;
        let proofs = [
            TableProof {
                material: "KRvK".into(),
                for_white: Wdl::Win,
                dtz: Some(Dtz {
                    plies: 15,
                    rounded: false,
                }),
                rule: TablebaseRule::Iccf,
                by: Decider::Claim(Color::White),
            },
            TableProof {
                material: "KBBvKN".into(),
                for_white: Wdl::BlessedLoss,
                dtz: Some(Dtz {
                    plies: -112,
                    rounded: true,
                }),
                rule: TablebaseRule::FiftyMove,
                by: Decider::Itself,
            },
            TableProof {
                material: "KvKQ".into(),
                for_white: Wdl::Draw,
                dtz: None,
                rule: TablebaseRule::Iccf,
                by: Decider::Director,
            },
        ];
        for proof in proofs {
            let text = Outcome::new(GameResult::WhiteWins, proof.end_reason()).to_string();
            let Some(Outcome {
                reason: EndReason::Adjudication(why),
                ..
            }) = Outcome::from_description(GameResult::WhiteWins, &text)
            else {
                panic!("not read back: {text}");
            };
            assert_eq!(TableProof::read(&why), Some(proof), "{text}");
        }
        assert_eq!(
            TableProof::read(
                "endgame tables (Syzygy KRvK): win for White, DTZ 15, ICCF rule; claimed by White"
            )
            .map(|p| p.material),
            Some("KRvK".to_string())
        );
        assert_eq!(TableProof::read("White's attack wins by force"), None);
        assert_eq!(
            TableProof::read("endgame tables (Syzygy KRvK): win for White, ICCF rule"),
            None
        );
    }

    #[test]
    fn rule_keys_read_back() {
        for rule in TablebaseRule::ALL {
            assert_eq!(TablebaseRule::from_key(rule.key()), Some(rule));
        }
        assert_eq!(TablebaseRule::from_key("fide"), None);
        for end in [TablebaseEnd::Claim, TablebaseEnd::Auto] {
            assert_eq!(TablebaseEnd::from_key(end.key()), Some(end));
        }
    }
}
