//! Round-robin pairings by the FIDE Berger tables (FIDE Handbook C.05,
//! Annex 1): same rounds, same boards, same colours as the published tables.
//!
//! For an even number `n` of entrants, round 1 is `1-n, 2-(n-1), …`, the first
//! named having White. Each later round adds `n/2` to every number but `n`
//! (counting round 1…n-1), keeping boards and colours, except that `n` meets
//! the first board's other player with Black in odd rounds and with White in
//! even rounds. That rule reproduces the published tables exactly; the tests
//! hold the tables themselves, not this rule.
//!
//! An odd number of entrants uses the table for one more: the highest number
//! is a dummy, and whoever meets it has a bye that round.
//!
//! A double round robin repeats the cycle with colours reversed. As FIDE
//! recommends, the last two rounds of the first cycle swap places, so nobody
//! gets the same colour three times running across the join.

/// The fewest entrants a round robin takes.
pub const MIN_ENTRANTS: usize = 3;
/// The most entrants a round robin takes (a correspondence section is far
/// smaller; this only keeps the game count sane).
pub const MAX_ENTRANTS: usize = 100;

/// One game (or team match) of a round robin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pairing {
    /// Round, from 1. In correspondence play every round starts at once; the
    /// round still orders the crosstable and the colours.
    pub round: u32,
    /// Board (table) within the round, from 1, as in the published table.
    pub board: u32,
    /// Index of the entrant with White (or the home team).
    pub white: usize,
    /// Index of the entrant with Black (or the away team).
    pub black: usize,
}

/// Single or double round robin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cycles {
    /// Everyone meets everyone once.
    Single,
    /// Everyone meets everyone twice, once with each colour.
    Double,
}

/// Why no pairings can be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a round robin needs {MIN_ENTRANTS} to {MAX_ENTRANTS} entrants, not {0}")]
pub struct BadEntrantCount(pub usize);

/// The Berger table for an even `n`: for each round, the pairs of starting
/// numbers (from 1) as `(white, black)`, board by board.
///
/// `n` must be even and at least 2; anything else gives an empty table.
pub fn table(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 || !n.is_multiple_of(2) {
        return Vec::new();
    }
    let half = n / 2;
    let rotating = n - 1;
    // Every number but n moves on by n/2 (mod n-1) from one round to the next.
    let shift = |number: usize, round: usize| (number - 1 + round * half) % rotating + 1;
    (0..rotating)
        .map(|r| {
            (1..=half)
                .map(|board| {
                    if board == 1 {
                        let other = shift(1, r);
                        // r is 0-based: even r is an odd round, where n has Black.
                        if r.is_multiple_of(2) {
                            (other, n)
                        } else {
                            (n, other)
                        }
                    } else {
                        (shift(board, r), shift(n + 1 - board, r))
                    }
                })
                .collect()
        })
        .collect()
}

/// Every game of a round robin among `entrants` (indices `0..entrants`, in
/// starting-number order), byes left out.
pub fn round_robin(entrants: usize, cycles: Cycles) -> Result<Vec<Pairing>, BadEntrantCount> {
    if !(MIN_ENTRANTS..=MAX_ENTRANTS).contains(&entrants) {
        return Err(BadEntrantCount(entrants));
    }
    let table = table(entrants + entrants % 2);
    let mut games = Vec::new();
    for (played_as, (source, reversed)) in round_order(table.len(), cycles).into_iter().enumerate()
    {
        let Some(pairs) = table.get(source) else {
            continue;
        };
        for (board, &(white, black)) in pairs.iter().enumerate() {
            // The dummy (the highest number when the count is odd) is a bye.
            if white > entrants || black > entrants {
                continue;
            }
            let (white, black) = if reversed {
                (black, white)
            } else {
                (white, black)
            };
            games.push(Pairing {
                round: played_as as u32 + 1,
                board: board as u32 + 1,
                white: white - 1,
                black: black - 1,
            });
        }
    }
    Ok(games)
}

/// The order the table's rounds are played in: `(table round, colours
/// reversed)` for each round played, 0-based.
fn round_order(rounds: usize, cycles: Cycles) -> Vec<(usize, bool)> {
    let mut order: Vec<(usize, bool)> = (0..rounds).map(|r| (r, false)).collect();
    if cycles == Cycles::Double {
        if rounds >= 2 {
            order.swap(rounds - 2, rounds - 1);
        }
        order.extend((0..rounds).map(|r| (r, true)));
    }
    order
}

/// A round in which one entrant of an odd round robin has no game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bye {
    /// Round, from 1, numbered as in [`round_robin`].
    pub round: u32,
    /// Index of the entrant without a game that round.
    pub entrant: usize,
}

/// Who has the bye in each round of a round robin among `entrants`: the one
/// the table pairs with the dummy (the highest number, when the count is
/// odd). Empty for an even count.
pub fn byes(entrants: usize, cycles: Cycles) -> Result<Vec<Bye>, BadEntrantCount> {
    if !(MIN_ENTRANTS..=MAX_ENTRANTS).contains(&entrants) {
        return Err(BadEntrantCount(entrants));
    }
    if entrants.is_multiple_of(2) {
        return Ok(Vec::new());
    }
    let dummy = entrants + 1;
    let table = table(dummy);
    let mut out = Vec::new();
    for (played_as, (source, _)) in round_order(table.len(), cycles).into_iter().enumerate() {
        let Some(pairs) = table.get(source) else {
            continue;
        };
        let idle = pairs.iter().find_map(|&(white, black)| {
            (white == dummy)
                .then_some(black)
                .or((black == dummy).then_some(white))
        });
        if let Some(idle) = idle {
            out.push(Bye {
                round: played_as as u32 + 1,
                entrant: idle - 1,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The FIDE Berger tables (Handbook C.05 Annex 1), copied by hand from the
    /// published tables (checked against two independent reprints: Chris Fox's
    /// Berger table page and the Crenshaw-Berger sheet for 4…14, and a
    /// handbook transcription for 16), one round per line, `white-black`.
    const FIDE_TABLES: &[(usize, &str)] = &[
        (
            4,
            "1-4, 2-3
             4-3, 1-2
             2-4, 3-1",
        ),
        (
            6,
            "1-6, 2-5, 3-4
             6-4, 5-3, 1-2
             2-6, 3-1, 4-5
             6-5, 1-4, 2-3
             3-6, 4-2, 5-1",
        ),
        (
            8,
            "1-8, 2-7, 3-6, 4-5
             8-5, 6-4, 7-3, 1-2
             2-8, 3-1, 4-7, 5-6
             8-6, 7-5, 1-4, 2-3
             3-8, 4-2, 5-1, 6-7
             8-7, 1-6, 2-5, 3-4
             4-8, 5-3, 6-2, 7-1",
        ),
        (
            10,
            "1-10, 2-9, 3-8, 4-7, 5-6
             10-6, 7-5, 8-4, 9-3, 1-2
             2-10, 3-1, 4-9, 5-8, 6-7
             10-7, 8-6, 9-5, 1-4, 2-3
             3-10, 4-2, 5-1, 6-9, 7-8
             10-8, 9-7, 1-6, 2-5, 3-4
             4-10, 5-3, 6-2, 7-1, 8-9
             10-9, 1-8, 2-7, 3-6, 4-5
             5-10, 6-4, 7-3, 8-2, 9-1",
        ),
        (
            12,
            "1-12, 2-11, 3-10, 4-9, 5-8, 6-7
             12-7, 8-6, 9-5, 10-4, 11-3, 1-2
             2-12, 3-1, 4-11, 5-10, 6-9, 7-8
             12-8, 9-7, 10-6, 11-5, 1-4, 2-3
             3-12, 4-2, 5-1, 6-11, 7-10, 8-9
             12-9, 10-8, 11-7, 1-6, 2-5, 3-4
             4-12, 5-3, 6-2, 7-1, 8-11, 9-10
             12-10, 11-9, 1-8, 2-7, 3-6, 4-5
             5-12, 6-4, 7-3, 8-2, 9-1, 10-11
             12-11, 1-10, 2-9, 3-8, 4-7, 5-6
             6-12, 7-5, 8-4, 9-3, 10-2, 11-1",
        ),
        (
            14,
            "1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8
             14-8, 9-7, 10-6, 11-5, 12-4, 13-3, 1-2
             2-14, 3-1, 4-13, 5-12, 6-11, 7-10, 8-9
             14-9, 10-8, 11-7, 12-6, 13-5, 1-4, 2-3
             3-14, 4-2, 5-1, 6-13, 7-12, 8-11, 9-10
             14-10, 11-9, 12-8, 13-7, 1-6, 2-5, 3-4
             4-14, 5-3, 6-2, 7-1, 8-13, 9-12, 10-11
             14-11, 12-10, 13-9, 1-8, 2-7, 3-6, 4-5
             5-14, 6-4, 7-3, 8-2, 9-1, 10-13, 11-12
             14-12, 13-11, 1-10, 2-9, 3-8, 4-7, 5-6
             6-14, 7-5, 8-4, 9-3, 10-2, 11-1, 12-13
             14-13, 1-12, 2-11, 3-10, 4-9, 5-8, 6-7
             7-14, 8-6, 9-5, 10-4, 11-3, 12-2, 13-1",
        ),
        (
            16,
            "1-16, 2-15, 3-14, 4-13, 5-12, 6-11, 7-10, 8-9
             16-9, 10-8, 11-7, 12-6, 13-5, 14-4, 15-3, 1-2
             2-16, 3-1, 4-15, 5-14, 6-13, 7-12, 8-11, 9-10
             16-10, 11-9, 12-8, 13-7, 14-6, 15-5, 1-4, 2-3
             3-16, 4-2, 5-1, 6-15, 7-14, 8-13, 9-12, 10-11
             16-11, 12-10, 13-9, 14-8, 15-7, 1-6, 2-5, 3-4
             4-16, 5-3, 6-2, 7-1, 8-15, 9-14, 10-13, 11-12
             16-12, 13-11, 14-10, 15-9, 1-8, 2-7, 3-6, 4-5
             5-16, 6-4, 7-3, 8-2, 9-1, 10-15, 11-14, 12-13
             16-13, 14-12, 15-11, 1-10, 2-9, 3-8, 4-7, 5-6
             6-16, 7-5, 8-4, 9-3, 10-2, 11-1, 12-15, 13-14
             16-14, 15-13, 1-12, 2-11, 3-10, 4-9, 5-8, 6-7
             7-16, 8-6, 9-5, 10-4, 11-3, 12-2, 13-1, 14-15
             16-15, 1-14, 2-13, 3-12, 4-11, 5-10, 6-9, 7-8
             8-16, 9-7, 10-6, 11-5, 12-4, 13-3, 14-2, 15-1",
        ),
    ];

    fn parse_table(text: &str) -> Vec<Vec<(usize, usize)>> {
        text.lines()
            .map(|line| {
                line.split(',')
                    .map(|pair| {
                        let (w, b) = pair.trim().split_once('-').expect("white-black");
                        (w.parse().expect("number"), b.parse().expect("number"))
                    })
                    .collect()
            })
            .collect()
    }

    /// The published table as `Pairing`s for `entrants` (0-based), byes dropped.
    fn published(entrants: usize) -> Vec<Pairing> {
        let n = entrants + entrants % 2;
        let (_, text) = FIDE_TABLES
            .iter()
            .find(|(size, _)| *size == n)
            .expect("a table for n");
        let mut games = Vec::new();
        for (r, pairs) in parse_table(text).into_iter().enumerate() {
            for (b, (w, bl)) in pairs.into_iter().enumerate() {
                if w <= entrants && bl <= entrants {
                    games.push(Pairing {
                        round: r as u32 + 1,
                        board: b as u32 + 1,
                        white: w - 1,
                        black: bl - 1,
                    });
                }
            }
        }
        games
    }

    #[test]
    fn every_table_matches_the_fide_handbook() {
        for &(n, text) in FIDE_TABLES {
            assert_eq!(table(n), parse_table(text), "Berger table for {n}");
        }
    }

    #[test]
    fn single_round_robins_of_3_to_16_are_the_fide_tables_with_byes_dropped() {
        for entrants in 3..=16 {
            let games = round_robin(entrants, Cycles::Single).unwrap();
            assert_eq!(games, published(entrants), "{entrants} entrants");
            assert_eq!(games.len(), entrants * (entrants - 1) / 2);
        }
    }

    #[test]
    fn odd_counts_give_the_highest_number_a_bye_each_round() {
        // 5 players use the 6-table: whoever meets 6 sits out.
        let games = round_robin(5, Cycles::Single).unwrap();
        let resting: Vec<usize> = (1..=5)
            .map(|round| {
                (0..5)
                    .find(|&p| {
                        !games
                            .iter()
                            .any(|g| g.round == round && (g.white == p || g.black == p))
                    })
                    .expect("someone rests")
            })
            .collect();
        // From the table: 1-6, 6-4, 2-6, 6-5, 3-6 (0-based below).
        assert_eq!(resting, vec![0, 3, 1, 4, 2]);
    }

    #[test]
    fn byes_name_the_one_entrant_without_a_game_in_every_round() {
        // 5 players, the 6-table: 1-6, 6-4, 2-6, 6-5, 3-6 (0-based below).
        let five = byes(5, Cycles::Single).unwrap();
        let resting: Vec<(u32, usize)> = five.iter().map(|b| (b.round, b.entrant)).collect();
        assert_eq!(resting, vec![(1, 0), (2, 3), (3, 1), (4, 4), (5, 2)]);
        for entrants in (3..=15).step_by(2) {
            for cycles in [Cycles::Single, Cycles::Double] {
                let games = round_robin(entrants, cycles).unwrap();
                let byes = byes(entrants, cycles).unwrap();
                let rounds = games.iter().map(|g| g.round).max().unwrap();
                assert_eq!(byes.len(), rounds as usize, "{entrants} {cycles:?}");
                for b in &byes {
                    let playing = games
                        .iter()
                        .filter(|g| g.round == b.round)
                        .any(|g| g.white == b.entrant || g.black == b.entrant);
                    assert!(!playing, "{entrants} {cycles:?}: {b:?} plays");
                    let in_round = games.iter().filter(|g| g.round == b.round).count();
                    assert_eq!(in_round, (entrants - 1) / 2, "everyone else plays");
                }
                // Each entrant sits out once per cycle.
                let per_cycle = if cycles == Cycles::Double { 2 } else { 1 };
                for e in 0..entrants {
                    let count = byes.iter().filter(|b| b.entrant == e).count();
                    assert_eq!(count, per_cycle, "{entrants} {cycles:?}: entrant {e}");
                }
            }
        }
    }

    #[test]
    fn even_round_robins_have_no_byes() {
        for entrants in (4..=16).step_by(2) {
            assert!(byes(entrants, Cycles::Double).unwrap().is_empty());
        }
        assert_eq!(byes(2, Cycles::Single), Err(BadEntrantCount(2)));
    }

    #[test]
    fn double_round_robin_swaps_the_last_two_first_cycle_rounds_and_reverses_colours() {
        for entrants in 3..=16 {
            let single = published(entrants);
            let rounds = (entrants + entrants % 2) as u32 - 1;
            let double = round_robin(entrants, Cycles::Double).unwrap();
            assert_eq!(double.len(), single.len() * 2);
            for g in &double {
                let (source, reversed) = if g.round <= rounds {
                    let source = match g.round {
                        r if r == rounds - 1 && rounds >= 2 => rounds,
                        r if r == rounds && rounds >= 2 => rounds - 1,
                        r => r,
                    };
                    (source, false)
                } else {
                    (g.round - rounds, true)
                };
                let original = single
                    .iter()
                    .find(|s| s.round == source && s.board == g.board)
                    .expect("same board in the published round");
                let expected = if reversed {
                    (original.black, original.white)
                } else {
                    (original.white, original.black)
                };
                assert_eq!((g.white, g.black), expected, "{entrants}: {g:?}");
            }
        }
    }

    #[test]
    fn double_round_robin_never_gives_three_same_colours_across_the_join() {
        for entrants in (4..=16).step_by(2) {
            let games = round_robin(entrants, Cycles::Double).unwrap();
            let rounds = (entrants - 1) as u32;
            for p in 0..entrants {
                let colour = |round: u32| {
                    games
                        .iter()
                        .find(|g| g.round == round && (g.white == p || g.black == p))
                        .map(|g| g.white == p)
                };
                let streak: Vec<_> = (rounds - 1..=rounds + 1).map(colour).collect();
                assert!(
                    !(streak[0] == streak[1] && streak[1] == streak[2]),
                    "player {} has {streak:?} around the join of {entrants}",
                    p + 1
                );
            }
        }
    }

    #[test]
    fn every_pair_meets_once_per_cycle_and_colours_differ_by_at_most_one() {
        for entrants in 3..=30 {
            let games = round_robin(entrants, Cycles::Single).unwrap();
            let mut met: HashMap<(usize, usize), u32> = HashMap::new();
            let mut whites = vec![0i32; entrants];
            for g in &games {
                *met.entry((g.white.min(g.black), g.white.max(g.black)))
                    .or_default() += 1;
                whites[g.white] += 1;
                whites[g.black] -= 1;
            }
            assert_eq!(met.len(), entrants * (entrants - 1) / 2);
            assert!(met.values().all(|&m| m == 1));
            assert!(
                whites.iter().all(|w| w.abs() <= 1),
                "{entrants}: {whites:?}"
            );
        }
    }

    #[test]
    fn too_few_or_too_many_entrants_are_refused() {
        for n in [0, 1, 2, 101] {
            assert_eq!(round_robin(n, Cycles::Single), Err(BadEntrantCount(n)));
        }
    }
}
