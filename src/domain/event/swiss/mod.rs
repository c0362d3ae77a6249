//! Swiss tournaments: pairings by the FIDE (Dutch) system, tie-breaks by
//! FIDE's regulations, and the FIDE Tournament Report File. Pure: the
//! tournament so far in, the next round's pairing (or a table) out.
//!
//! The text followed is the FIDE Handbook's C.04.3 "FIDE (Dutch) System",
//! approved by the FIDE Council on 28/10/2025 and applied from 1 February
//! 2026 (the "2025 revision": criteria \[C1\]–\[C21\], Articles 1–5), with
//! C.04.1 (basic rules for Swiss systems), C.04.2 (general handling rules:
//! initial order, late entries, unplayed rounds in colour histories) and
//! C.04.5 (Baku acceleration). The pairing reproduces the FIDE-endorsed
//! program bbpPairings (v6, the same rules) pairing for pairing: the
//! criteria become the fields of one large edge weight
//! ([`criteria`]) and a maximum-weight matching finds the
//! best pairing of each bracket ([`dutch`]; the matching is the
//! `dopis-matching` crate), as bbpPairings does, instead
//! of trying transpositions and exchanges one by one (Article 3's
//! procedure; the rules allow any method that gives the same pairing).
//!
//! - [`byes`]: whether a half-point bye a player asks for is granted.
//! - [`card`]: each player's pairing card: score, colour preference,
//!   floats, whether they may receive the bye.
//! - [`criteria`]: the criteria of Article 2 as one edge weight.
//! - [`dutch`]: Articles 3 and 4, bracket by bracket.
//! - [`colour`]: Article 5, who plays White.
//! - [`trf`]: reading and writing TRF files.
//! - [`tiebreaks`]: FIDE's tie-breaks (C.07) with their rules for
//!   unplayed rounds.
//! - [`crosstable`]: the table as the pairing programs print it, a column
//!   per round (`12w1`, `5b½`, `PAB`).
//!
//! Players are numbered by their place in [`Tournament::players`]: index 0
//! is tournament pairing number (TPN) 1. Rounds are numbered from 1.

pub mod byes;
pub mod card;
pub mod colour;
pub mod criteria;
pub mod crosstable;
pub mod dutch;
pub mod tiebreaks;
pub mod trf;

use std::fmt;

use super::{Points, Side, SideResult};

/// One player's part in one round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Paired against `opponent` (an index into the players) with `colour`.
    Game {
        /// The opponent.
        opponent: usize,
        /// This player's colour.
        colour: Side,
        /// This player's result; `None` while the game goes on.
        result: Option<SideResult>,
        /// Whether the game was played: `false` for a result by forfeit
        /// (one side did not play; the colours stand but count for nothing).
        played: bool,
    },
    /// The pairing-allocated bye (C.04.1 Article 3).
    PairingBye,
    /// Not paired in this round: absent, withdrawn, not yet entered, or
    /// a bye the player asked for.
    Unpaired(Absence),
}

/// What a player who was not paired in a round scores for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Absence {
    /// Nothing (TRF `Z`): absent, withdrawn, not yet entered, or a
    /// zero-point bye.
    Zero,
    /// A draw's points (TRF `H`): a half-point bye, asked for.
    Half,
    /// A win's points (TRF `F`): a full-point bye given by the arbiter.
    Full,
}

impl Entry {
    /// Whether the player took part in the round's pairing (a game, even
    /// one decided by forfeit, or the pairing-allocated bye).
    pub fn paired(&self) -> bool {
        !matches!(self, Entry::Unpaired(_))
    }

    /// Whether a game was played over the board.
    pub fn played(&self) -> bool {
        matches!(self, Entry::Game { played: true, .. })
    }
}

/// Points for each kind of result (TRF-2026's line 162, bbpPairings'
/// `BBW`…`BBU`). The default is 1, ½, 0 and a win for the bye.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointSystem {
    /// A win, on the board or by forfeit, and a full-point bye.
    pub win: Points,
    /// A draw, and a half-point bye.
    pub draw: Points,
    /// A loss on the board.
    pub loss: Points,
    /// A loss by forfeit.
    pub forfeit_loss: Points,
    /// A round not paired (absence, zero-point bye).
    pub zero_bye: Points,
    /// The pairing-allocated bye (C.04.1 Article 3: a win unless the
    /// tournament's rules say otherwise).
    pub pairing_bye: Points,
}

impl Default for PointSystem {
    fn default() -> Self {
        PointSystem {
            win: Points::whole(1),
            draw: Points::halves(1),
            loss: Points::ZERO,
            forfeit_loss: Points::ZERO,
            zero_bye: Points::ZERO,
            pairing_bye: Points::whole(1),
        }
    }
}

impl PointSystem {
    /// The points one entry is worth (an unfinished game: nothing yet).
    pub fn points(&self, entry: &Entry) -> Points {
        match *entry {
            Entry::Game { result: None, .. } => Points::ZERO,
            Entry::Game {
                result: Some(result),
                played,
                ..
            } => match result {
                SideResult::Win => self.win,
                SideResult::Draw => self.draw,
                SideResult::Loss if played => self.loss,
                SideResult::Loss => self.forfeit_loss,
            },
            Entry::PairingBye => self.pairing_bye,
            Entry::Unpaired(Absence::Zero) => self.zero_bye,
            Entry::Unpaired(Absence::Half) => self.draw,
            Entry::Unpaired(Absence::Full) => self.win,
        }
    }
}

/// How scores are raised for pairing in the first rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Acceleration {
    /// None: players are paired on their scores.
    #[default]
    None,
    /// Baku acceleration (C.04.5): the first half of the players (rounded
    /// up) get a virtual win's points for pairing in the first half of the
    /// first half of the rounds and a draw's in the rest of the first
    /// half, as bbpPairings applies it.
    Baku,
}

/// One player, as the pairing sees them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Player {
    /// The rating (0 if none); only the initial order uses it.
    pub rating: u16,
    /// Round by round, from round 1. A round missing at the end (or
    /// anywhere) counts as [`Absence::Zero`], except the round being paired,
    /// where a missing entry means the player is to be paired.
    pub rounds: Vec<Entry>,
    /// Extra points for pairing only, round by round (TRF `XXA`), added to
    /// whatever [`Tournament::acceleration`] gives.
    pub accelerations: Vec<Points>,
}

impl Player {
    /// The entry for `round` (from 1), if the history has one.
    pub fn entry(&self, round: u32) -> Option<&Entry> {
        self.rounds.get(round.checked_sub(1)? as usize)
    }
}

/// A Swiss tournament as far as it has gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    /// The players in pairing-number order.
    pub players: Vec<Player>,
    /// The number of rounds the tournament will have (the last round's
    /// topscorers follow other rules, C.04.3 1.8 and \[C3\]).
    pub rounds: u32,
    /// Points per result.
    pub points: PointSystem,
    /// The colour the top-ranked player gets in round 1 (C.04.3 5.1: drawn
    /// by lot before the first round).
    pub initial_colour: Side,
    /// How scores are accelerated.
    pub acceleration: Acceleration,
    /// Groups of players who must not meet (TRF `XXP`), e.g. from one club.
    pub forbidden: Vec<Vec<usize>>,
}

/// One game of a paired round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pairing {
    /// The player with White.
    pub white: usize,
    /// The player with Black.
    pub black: usize,
}

/// A round's pairing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RoundPairing {
    /// The round, from 1.
    pub round: u32,
    /// The games, by board: the highest scores first (C.04.2 board order).
    pub games: Vec<Pairing>,
    /// The player who gets the pairing-allocated bye, if the number of
    /// players to pair is odd.
    pub bye: Option<usize>,
}

/// Why a round cannot be paired.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    /// The round asked for is not the next one the history allows.
    #[error("round {asked} cannot be paired: {why}")]
    WrongRound {
        /// The round asked for.
        asked: u32,
        /// What is wrong.
        why: String,
    },
    /// A game of an earlier round has no result yet.
    #[error(
        "round {round} is not finished: the game of player {player} against player {opponent} has no result yet"
    )]
    Unfinished {
        /// The round.
        round: u32,
        /// A player of the game (pairing number).
        player: usize,
        /// The opponent (pairing number).
        opponent: usize,
    },
    /// No pairing meets the absolute criteria (C.04.3 1.9.3: the chief
    /// arbiter decides).
    #[error(
        "no pairing of round {round} meets the absolute criteria (no player meets an opponent twice, no two players with the same absolute colour preference meet, the bye goes to a player who may receive it): the arbiter must decide (C.04.3 1.9.3)"
    )]
    Impossible {
        /// The round.
        round: u32,
    },
    /// The tournament is too large for the pairing's number width.
    #[error("the tournament is too large to pair ({0} players to pair)")]
    TooLarge(usize),
}

impl Tournament {
    /// The number of rounds with any game or bye: the rounds paired so far.
    pub fn paired_rounds(&self) -> u32 {
        self.players
            .iter()
            .filter_map(|p| p.rounds.iter().rposition(Entry::paired))
            .map(|i| i as u32 + 1)
            .max()
            .unwrap_or(0)
    }

    /// A player's entry for `round`, an absence where the history has none.
    pub fn entry(&self, player: usize, round: u32) -> Entry {
        self.players
            .get(player)
            .and_then(|p| p.entry(round))
            .copied()
            .unwrap_or(Entry::Unpaired(Absence::Zero))
    }

    /// The points a player has after `round` rounds.
    pub fn score_after(&self, player: usize, round: u32) -> Points {
        (1..=round)
            .map(|r| self.points.points(&self.entry(player, r)))
            .sum()
    }

    /// Pairs `round` by the Dutch system from the rounds before it.
    /// Players with an entry for `round` already (an absence, a bye they
    /// asked for) are not paired; every other player is.
    pub fn pair(&self, round: u32) -> Result<RoundPairing, PairingError> {
        dutch::pair(self, round)
    }

    /// This tournament as it stood before `round` was paired: every entry
    /// of that round and later is dropped, except the absences of `round`
    /// itself (they are known before pairing).
    pub fn before(&self, round: u32) -> Tournament {
        let mut t = self.clone();
        for p in &mut t.players {
            let keep = round.saturating_sub(1) as usize;
            let absent = match p.rounds.get(keep) {
                Some(e @ Entry::Unpaired(_)) => Some(*e),
                _ => None,
            };
            p.rounds.truncate(keep);
            if let Some(e) = absent {
                while p.rounds.len() < keep {
                    p.rounds.push(Entry::Unpaired(Absence::Zero));
                }
                p.rounds.push(e);
            }
        }
        t
    }

    /// The pairing `round` has in the history (games and the bye), to
    /// compare with what [`Tournament::pair`] makes of it.
    pub fn pairing_of(&self, round: u32) -> RoundPairing {
        let mut games = Vec::new();
        let mut bye = None;
        for (i, p) in self.players.iter().enumerate() {
            match p.entry(round) {
                Some(Entry::Game {
                    opponent,
                    colour: Side::White,
                    ..
                }) => games.push(Pairing {
                    white: i,
                    black: *opponent,
                }),
                Some(Entry::PairingBye) => bye = Some(i),
                _ => {}
            }
        }
        let mut pairing = RoundPairing { round, games, bye };
        dutch::board_order(self, round, &mut pairing);
        pairing
    }
}

/// Where two pairings of one round differ, for `dopis swiss check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Games (white, black) only in the first pairing.
    pub only_first: Vec<Pairing>,
    /// Games only in the second.
    pub only_second: Vec<Pairing>,
    /// The byes, if they differ.
    pub byes: Option<(Option<usize>, Option<usize>)>,
}

impl RoundPairing {
    /// How this pairing differs from `other` (games with their colours),
    /// or `None` when they are the same.
    pub fn difference(&self, other: &RoundPairing) -> Option<Difference> {
        let only = |a: &RoundPairing, b: &RoundPairing| -> Vec<Pairing> {
            a.games
                .iter()
                .filter(|g| !b.games.contains(g))
                .copied()
                .collect()
        };
        let d = Difference {
            only_first: only(self, other),
            only_second: only(other, self),
            byes: (self.bye != other.bye).then_some((self.bye, other.bye)),
        };
        (!d.only_first.is_empty() || !d.only_second.is_empty() || d.byes.is_some()).then_some(d)
    }
}

impl fmt::Display for Pairing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} - {}", self.white + 1, self.black + 1)
    }
}

/// The initial order of C.04.2 Article 2 (2026): by rating, highest first,
/// then by title, then by name; returns the entrants' indices in that
/// order, so that position 0 gets pairing number 1. Equal entrants keep
/// their given order.
pub fn initial_order(entrants: &[Seed<'_>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..entrants.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&entrants[a], &entrants[b]);
        b.rating
            .cmp(&a.rating)
            .then(title_rank(a.title).cmp(&title_rank(b.title)))
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
    });
    order
}

/// What the initial order looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seed<'a> {
    /// The rating, 0 if none.
    pub rating: u16,
    /// A FIDE title (`GM`, `IM`, `WGM`, `FM`, `WIM`, `CM`, `WFM`, `WCM`), if any.
    pub title: Option<&'a str>,
    /// The name.
    pub name: &'a str,
}

/// FIDE's titles, strongest first (C.04.2: "title", for equal ratings).
fn title_rank(title: Option<&str>) -> usize {
    const TITLES: [&str; 8] = ["GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM"];
    title
        .and_then(|t| TITLES.iter().position(|x| x.eq_ignore_ascii_case(t.trim())))
        .unwrap_or(TITLES.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_initial_order_is_rating_then_title_then_name() {
        let seeds = [
            Seed {
                rating: 2000,
                title: None,
                name: "Zora",
            },
            Seed {
                rating: 2100,
                title: None,
                name: "Ana",
            },
            Seed {
                rating: 2000,
                title: Some("FM"),
                name: "Yves",
            },
            Seed {
                rating: 2000,
                title: None,
                name: "ada",
            },
            Seed {
                rating: 0,
                title: None,
                name: "Bor",
            },
        ];
        assert_eq!(initial_order(&seeds), vec![1, 2, 3, 0, 4]);
    }

    #[test]
    fn the_points_follow_the_kind_of_result() {
        let p = PointSystem::default();
        let game = |result, played| Entry::Game {
            opponent: 1,
            colour: Side::White,
            result: Some(result),
            played,
        };
        assert_eq!(p.points(&game(SideResult::Win, false)), Points::whole(1));
        assert_eq!(p.points(&game(SideResult::Draw, true)), Points::halves(1));
        assert_eq!(p.points(&Entry::Unpaired(Absence::Half)), Points::halves(1));
        assert_eq!(p.points(&Entry::Unpaired(Absence::Zero)), Points::ZERO);
        assert_eq!(p.points(&Entry::PairingBye), Points::whole(1));
    }
}
