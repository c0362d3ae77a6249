//! Events: round robins, team olympiads and team matches — who plays whom,
//! with which colour, and who is ahead. Pure: plain functions over data; the
//! store, the CLI and the mails call in here with what they loaded.
//!
//! - [`file`](mod@file): the TOML event file a TD writes (format documented there).
//! - [`berger`]: FIDE Berger tables for round robins, single and double.
//! - [`olympiad`]: board-by-board pairings of team olympiads and team matches.
//! - [`standings`]: individual and team standings, withdrawals and annulment.
//! - [`tiebreak`]: the tie-breaks and exactly how each is computed.
//! - [`crosstable`]: crosstables as text, CSV, JSON and HTML.
//! - [`boards`]: a team event's table per board.
//! - [`import`]: the results file a TD imports (format documented there).
//! - [`consultation`]: consultation games (vote chess): the tally of a side's votes.
//! - [`swiss`]: Swiss tournaments: FIDE Dutch pairings, FIDE tie-breaks, TRF files.
//!
//! Players and teams are numbered by their place in the event file (index 0
//! is starting number 1); every function here works on those indices, and the
//! caller maps them to its own ids.

pub mod berger;
pub mod boards;
pub mod consultation;
pub mod crosstable;
pub mod entrant;
pub mod entries;
pub mod file;
pub mod import;

pub mod olympiad;
pub mod standings;
pub mod swiss;
pub mod tiebreak;

#[cfg(test)]
mod testdata;

use std::fmt;

use serde::Serialize;

use crate::domain::chess::game::GameResult;

/// Where an event is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventStatus {
    /// Created; entrants may still be added.
    Open,
    /// Its games have started.
    Started,
}

/// Who may look at an event's web pages (`visibility` in the event file).
///
/// The default is [`Visibility::Unlisted`]: an event made before the web
/// pages existed, or by a TD who never thought of them, must not appear on
/// a public index without a TD choosing so; yet its players and whoever they
/// pass the link to can follow it, as with most correspondence servers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Listed on the index page; its pages and games are open to all.
    Public,
    /// Reachable only by a link with an unguessable part; not listed.
    #[default]
    Unlisted,
    /// Only its own players, through their private links.
    Private,
}

impl Visibility {
    /// Every visibility, in the order the help lists them.
    pub const ALL: [Visibility; 3] = [
        Visibility::Public,
        Visibility::Unlisted,
        Visibility::Private,
    ];

    /// The word in the event file and the database.
    pub fn key(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Unlisted => "unlisted",
            Visibility::Private => "private",
        }
    }

    /// The visibility a word names.
    pub fn from_key(key: &str) -> Option<Visibility> {
        Visibility::ALL.into_iter().find(|v| v.key() == key)
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl std::str::FromStr for Visibility {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Visibility::from_key(s.trim()).ok_or_else(|| {
            format!("unknown visibility '{s}': write \"public\", \"unlisted\" or \"private\"")
        })
    }
}

/// How a Chess960 event chooses its start positions (`start = { chess960
/// = … }`): drawn when the event starts and stored with each game, so
/// nothing ever draws again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chess960Draw {
    /// One position drawn for every game of the event (`"event"`).
    PerEvent,
    /// One position drawn for each round, the same for all its games
    /// (`"round"`).
    PerRound,
    /// This position for every game (a number, 0 to 959).
    Fixed(u16),
}

impl Chess960Draw {
    /// The word (or number) in the event file and the stored settings.
    pub fn key(self) -> String {
        match self {
            Chess960Draw::PerEvent => "event".to_owned(),
            Chess960Draw::PerRound => "round".to_owned(),
            Chess960Draw::Fixed(n) => n.to_string(),
        }
    }

    /// The choice a word or number names.
    pub fn from_key(key: &str) -> Option<Chess960Draw> {
        match key.trim() {
            "event" => Some(Chess960Draw::PerEvent),
            "round" => Some(Chess960Draw::PerRound),
            n => n
                .parse::<u16>()
                .ok()
                .filter(|n| *n < crate::domain::chess::game::CHESS960_POSITIONS)
                .map(Chess960Draw::Fixed),
        }
    }

    /// The position of each round's games: `draw` gives a random number
    /// from 0 to 959 (the caller owns the randomness, so tests can fix it)
    /// and is called once for the event or once per round.
    pub fn positions(
        self,
        rounds: impl IntoIterator<Item = u32>,
        mut draw: impl FnMut() -> u16,
    ) -> std::collections::BTreeMap<u32, u16> {
        let mut out = std::collections::BTreeMap::new();
        let mut whole = None;
        for round in rounds {
            if out.contains_key(&round) {
                continue;
            }
            let n = match self {
                Chess960Draw::Fixed(n) => n,
                Chess960Draw::PerEvent => *whole.get_or_insert_with(&mut draw),
                Chess960Draw::PerRound => draw(),
            };
            out.insert(round, n);
        }
        out
    }
}

/// An event's rules for draw offers (none outside events).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DrawPolicy {
    /// No offer before this move number (0: no limit).
    pub first_offer_move: u32,
    /// A player offers at most once per this many of their moves (0: no limit).
    pub moves_between_offers: u32,
}

/// A score, a tie-break value or a sum of them, held exactly in quarter points.
///
/// Scores are whole or half points; Sonneborn-Berger takes half of a half
/// point for a draw against a player on x½, hence quarters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points(i64);

impl Points {
    /// No points.
    pub const ZERO: Points = Points(0);

    /// A whole number of points.
    pub const fn whole(n: i64) -> Points {
        Points(n * 4)
    }

    /// A number of half points (`halves(5)` is 2½).
    pub const fn halves(n: i64) -> Points {
        Points(n * 2)
    }

    /// The value in quarter points.
    pub const fn quarters(self) -> i64 {
        self.0
    }

    /// A number of quarter points.
    pub const fn from_quarters(q: i64) -> Points {
        Points(q)
    }

    /// The value as a float, exact for every value dopis produces (for JSON).
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 4.0
    }

    /// The value as a plain decimal (`2.5`, `10.25`, `3`), for CSV and machines.
    pub fn decimal(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let q = self.0.unsigned_abs();
        let (whole, frac) = (q / 4, q % 4);
        match frac {
            0 => format!("{sign}{whole}"),
            1 => format!("{sign}{whole}.25"),
            2 => format!("{sign}{whole}.5"),
            _ => format!("{sign}{whole}.75"),
        }
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        self.0 += other.0;
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        Points(iter.map(|p| p.0).sum())
    }
}

/// Chess-table style: `2½`, `3`, `½`, and `10.25` for quarters.
impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if self.0 % 4 == 2 || self.0 % 4 == -2 {
            let whole = self.0 / 4;
            match (whole, self.0 < 0) {
                (0, false) => "½".to_string(),
                (0, true) => "-½".to_string(),
                (w, _) => format!("{w}½"),
            }
        } else {
            self.decimal()
        };
        f.pad(&text)
    }
}

impl Serialize for Points {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

/// Points for a win, a draw and a loss (default 1, ½, 0; e.g. 3, 1, 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scoring {
    /// Points for a win.
    pub win: Points,
    /// Points for a draw.
    pub draw: Points,
    /// Points for a loss.
    pub loss: Points,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            win: Points::whole(1),
            draw: Points::halves(1),
            loss: Points::ZERO,
        }
    }
}

impl Scoring {
    /// The points one side gets for a game's outcome.
    pub fn points(&self, outcome: GameResult, side: Side) -> Points {
        match (outcome, side) {
            (GameResult::Draw, _) => self.draw,
            (GameResult::WhiteWins, Side::White) | (GameResult::BlackWins, Side::Black) => self.win,
            _ => self.loss,
        }
    }
}

/// Which side of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The side that moves first.
    White,
    /// The other side.
    Black,
}

impl Side {
    /// The other side.
    pub fn opposite(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

impl GameResult {
    /// Win, draw or loss for one side.
    pub fn for_side(self, side: Side) -> SideResult {
        match (self, side) {
            (GameResult::Draw, _) => SideResult::Draw,
            (GameResult::WhiteWins, Side::White) | (GameResult::BlackWins, Side::Black) => {
                SideResult::Win
            }
            _ => SideResult::Loss,
        }
    }
}

/// One player's result in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SideResult {
    /// Won.
    Win,
    /// Drawn.
    Draw,
    /// Lost.
    Loss,
}

/// How a finished game was decided: the event's view of the game's
/// [`ResultKind`](crate::domain::chess::outcome::ResultKind) (a cancelled game is
/// [`GameState::Cancelled`], not a decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Played out (mate, resignation, agreed draw, claim…).
    Played,
    /// Lost on time, by the clock or a TD's ruling (ICCF `E`); counts as
    /// played.
    Time,
    /// Adjudicated by the TD (ICCF `A`); counts as played.
    Adjudicated,
    /// Won or lost by default, without play: a player never started or
    /// withdrew (ICCF `+`/`-`). Counts for points and wins; the event file's
    /// `sb_unplayed` says whether it counts for Sonneborn-Berger.
    Forfeit,
}

impl Decision {
    /// The decision a result kind makes; `None` for a cancelled game.
    pub fn of(kind: crate::domain::chess::outcome::ResultKind) -> Option<Decision> {
        use crate::domain::chess::outcome::ResultKind;
        match kind {
            ResultKind::Board => Some(Decision::Played),
            ResultKind::Time => Some(Decision::Time),
            ResultKind::Adjudication => Some(Decision::Adjudicated),
            ResultKind::Default => Some(Decision::Forfeit),
            ResultKind::Cancelled => None,
        }
    }
}

/// Where a game stands, as far as standings care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameState {
    /// Still being played: counts as not yet played.
    Unfinished,
    /// Over, with a result.
    Finished {
        /// The result.
        outcome: GameResult,
        /// How it was reached.
        decision: Decision,
    },
    /// Cancelled by the TD: no result, counts for nobody (as an annulled
    /// game), but the crosstable shows it (`x`).
    Cancelled,
}

/// What a withdrawn player's games become (the event file's `withdrawal`),
/// and so whether their row stays in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WithdrawalRule {
    /// ICCF lists a withdrawn player: the row stays, finished games stand
    /// and every unfinished game is lost by default (`-` for the player,
    /// `+` for the opponent).
    ForfeitAll,
    /// ICCF style: if fewer than half of the player's games were finished, all
    /// of them are annulled (the player leaves the table and counts for
    /// nobody); otherwise the unfinished ones are lost by forfeit.
    #[default]
    AnnulIfUnderHalf,
}
