//! Pairing cards: what the Dutch system needs to know of each player
//! before a round, read from their history (C.04.3 Article 1).

use super::{Acceleration, Entry, Points, Side, Tournament};

/// A float of an earlier round (C.04.3 1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Float {
    /// Paired with a lower score, or scored more than a loss without
    /// playing (1.4.2, 1.4.3).
    Down,
    /// Paired with a higher score (1.4.2).
    Up,
    /// Neither.
    None,
}

/// One player's pairing card before a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    /// The player (index into the tournament's players).
    pub player: usize,
    /// The effective pairing number, from 0: the place among the players
    /// who take part in this round or took part before (a late entrant
    /// counts from their first round, as bbpPairings counts).
    pub rank: usize,
    /// Points so far.
    pub score: Points,
    /// Points so far plus this round's acceleration: what the pairing
    /// ranks and groups by (1.2.1).
    pub pairing_score: Points,
    /// The colours of the games played, oldest first (unplayed rounds are
    /// left out, C.04.2 3.4).
    pub colours: Vec<Side>,
    /// Games with White minus games with Black, as an absolute value (1.6).
    pub imbalance: u32,
    /// The colour preferred, if any (1.7).
    pub preference: Option<Side>,
    /// The colour of the last two games, if they had the same.
    pub repeated: Option<Side>,
    /// A strong preference: colour difference ±1, not absolute (1.7.2).
    pub strong: bool,
    /// Games played over the board.
    pub played_games: u32,
    /// May receive the pairing-allocated bye (\[C2\]: no bye before, and
    /// never a win's points without playing).
    pub bye_eligible: bool,
    /// The floats of the last round and the one before (1.4).
    pub floats: [Float; 2],
}

impl Card {
    /// An absolute colour preference: a colour difference beyond ±1, or
    /// the same colour in the two latest games played (1.7.1).
    pub fn absolute(&self) -> bool {
        self.absolute_imbalance() || self.repeated.is_some()
    }

    /// A colour difference beyond ±1.
    pub fn absolute_imbalance(&self) -> bool {
        self.imbalance > 1
    }

    /// The float `back` rounds ago (1 or 2).
    pub fn float(&self, back: usize) -> Float {
        self.floats.get(back - 1).copied().unwrap_or(Float::None)
    }
}

/// The cards of the players to pair in `round` (those without an entry
/// for it yet), in pairing-number order.
pub fn cards(tournament: &Tournament, round: u32) -> Vec<Card> {
    let accelerate = Accelerations::new(tournament);
    ranks(tournament, round)
        .into_iter()
        .enumerate()
        .filter(|&(p, _)| tournament.players[p].entry(round).is_none())
        .filter_map(|(p, rank)| Some(card(tournament, &accelerate, p, rank?, round - 1)))
        .collect()
}

/// Each player's effective pairing number in `round`, from 0: the place
/// among the players who are paired in it or took part in an earlier
/// round, so that a late entrant counts from their first round (as
/// bbpPairings counts); `None` for a player who has not taken part yet.
pub fn ranks(tournament: &Tournament, round: u32) -> Vec<Option<usize>> {
    let mut next = 0;
    (0..tournament.players.len())
        .map(|p| {
            // To be paired, paired already (a round in the history), or in
            // an earlier round.
            let now = tournament.players[p].entry(round).is_none_or(Entry::paired);
            let took_part = now || (1..round).any(|r| tournament.entry(p, r).paired());
            took_part.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// Every player's virtual points for pairing, round by round.
pub(crate) struct Accelerations {
    baku: Vec<Vec<Points>>,
}

impl Accelerations {
    pub(crate) fn new(tournament: &Tournament) -> Self {
        Accelerations {
            baku: match tournament.acceleration {
                Acceleration::None => Vec::new(),
                Acceleration::Baku => baku(tournament),
            },
        }
    }

    /// The virtual points of `player` in `round` (from 1).
    pub(crate) fn of(&self, tournament: &Tournament, player: usize, round: u32) -> Points {
        let index = round as usize - 1;
        let given = tournament.players[player]
            .accelerations
            .get(index)
            .copied()
            .unwrap_or(Points::ZERO);
        let baku = self
            .baku
            .get(player)
            .and_then(|a| a.get(index))
            .copied()
            .unwrap_or(Points::ZERO);
        given + baku
    }

    /// The score `player` was paired on in `round`: points after the
    /// rounds before it, plus that round's acceleration.
    pub(crate) fn pairing_score(
        &self,
        tournament: &Tournament,
        player: usize,
        round: u32,
    ) -> Points {
        tournament.score_after(player, round - 1) + self.of(tournament, player, round)
    }
}

/// Baku acceleration (C.04.5), as bbpPairings applies it: the first half
/// of the players by pairing number (rounded up) get a win's points in the
/// first ⌈k/2⌉ rounds of the k = ⌈rounds/2⌉ accelerated rounds, a draw's
/// in the rest of them.
fn baku(tournament: &Tournament) -> Vec<Vec<Points>> {
    let n = tournament.players.len();
    let rounds = tournament.rounds as usize;
    if n == 0 || rounds == 0 {
        return Vec::new();
    }
    let last_round = (rounds - 1) / 2;
    let last_full = last_round / 2;
    (0..n)
        .map(|p| {
            if p > (n - 1) / 2 {
                return Vec::new();
            }
            (0..=last_round)
                .map(|r| {
                    if r <= last_full {
                        tournament.points.win
                    } else {
                        tournament.points.draw
                    }
                })
                .collect()
        })
        .collect()
}

fn card(
    tournament: &Tournament,
    accelerate: &Accelerations,
    p: usize,
    rank: usize,
    before: u32,
) -> Card {
    let points = &tournament.points;
    let entries: Vec<Entry> = (1..=before).map(|r| tournament.entry(p, r)).collect();
    let score = entries.iter().map(|e| points.points(e)).sum();

    // Colours: of the games played only (C.04.2 3.4).
    let colours: Vec<Side> = entries
        .iter()
        .filter_map(|e| match *e {
            Entry::Game {
                colour,
                played: true,
                ..
            } => Some(colour),
            _ => None,
        })
        .collect();
    let whites = colours.iter().filter(|&&c| c == Side::White).count() as i64;
    let blacks = colours.len() as i64 - whites;
    let imbalance = (whites - blacks).unsigned_abs() as u32;
    let fewer = if whites > blacks {
        Side::Black
    } else {
        Side::White
    };
    let last = colours.last().copied();
    let streak = match last {
        Some(c) => colours.iter().rev().take_while(|&&x| x == c).count(),
        None => 0,
    };
    // 1.7: absolute (|CD| > 1, or the same colour twice in a row), strong
    // (|CD| = 1), mild (CD = 0: alternate), none before the first game.
    let preference = if imbalance > 1 {
        Some(fewer)
    } else if streak > 1 {
        last.map(Side::opposite)
    } else if imbalance > 0 {
        Some(fewer)
    } else {
        last.map(Side::opposite)
    };
    let repeated = if streak > 1 { last } else { None };
    let strong = imbalance == 1 && repeated.is_none();

    // [C2]: no second bye, and no bye for one who already scored a win's
    // points in a round without playing (C.04.1 Article 4).
    let bye_eligible = !entries
        .iter()
        .any(|e| matches!(e, Entry::PairingBye) || (!e.played() && points.points(e) >= points.win));

    let floats = [1, 2].map(|back| {
        if back > before {
            return Float::None;
        }
        let round = before + 1 - back;
        float(tournament, accelerate, p, round)
    });

    Card {
        player: p,
        rank,
        score,
        pairing_score: score + accelerate.of(tournament, p, before + 1),
        played_games: colours.len() as u32,
        colours,
        imbalance,
        preference,
        repeated,
        strong,
        bye_eligible,
        floats,
    }
}

/// The float a player got in `round` (1.4).
fn float(tournament: &Tournament, accelerate: &Accelerations, p: usize, round: u32) -> Float {
    let entry = tournament.entry(p, round);
    match entry {
        Entry::Game {
            opponent,
            played: true,
            ..
        } => {
            let mine = accelerate.pairing_score(tournament, p, round);
            let theirs = accelerate.pairing_score(tournament, opponent, round);
            match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => Float::Down,
                std::cmp::Ordering::Less => Float::Up,
                std::cmp::Ordering::Equal => Float::None,
            }
        }
        // 1.4.3: the bye, or more than a loss's points without playing.
        _ if tournament.points.points(&entry) > tournament.points.loss => Float::Down,
        _ => Float::None,
    }
}
