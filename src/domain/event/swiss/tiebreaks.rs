//! The table of a Swiss tournament with FIDE's tie-breaks: the FIDE
//! Handbook's C.07 "Tie-Break Regulations" (in force from 2023; articles
//! numbered as in that text), with its rules for unplayed rounds:
//!
//! - Article 16.2 sorts a player's unplayed rounds: the pairing-allocated
//!   bye (16.2.1), a forfeit won (16.2.2), a bye or absence after which
//!   the player plays again (16.2.3), a forfeit lost (16.2.4), and byes or
//!   absences with no game after them, as after a withdrawal (16.2.5).
//! - 16.3: for the opponents' sums a player's score counts every 16.2.5
//!   round as a draw.
//! - 16.4: each unplayed round of a player counts, in their own sums, as a
//!   game against a dummy opponent whose score is the player's own, with
//!   the points the round gave.
//! - 16.5: a cut (Buchholz cut 1, cut 2, median) removes a voluntarily
//!   unplayed round (a bye asked for, an absence, a forfeit lost) rather
//!   than a lower opponent, when that round is worth more.
//!
//! The tie-breaks ([`TieBreak`]) by their FIDE abbreviations: BH (8.1,
//! Buchholz: the opponents' scores), BH-C1, BH-C2, BH-M1 (Article 14's
//! cuts), SB (9.1, Sonneborn-Berger: each opponent's score times the
//! result against them), KS (9.2, points against opponents with half the
//! points possible or more), PS (7.5, the scores after each round,
//! summed), DE (6, direct encounter: points among the tied players, when
//! they all met), WIN (7.1, rounds with a win's points, played or not),
//! WON (7.2, games won on the board), BPG (7.3, games played with Black)
//! and BWG (7.4, games won with Black).
//! The tests below reproduce FIDE's worked answers (the exercise set for
//! C.07-2023) value for value.

use super::super::standings::{self, Contribution, Standing};
use super::super::tiebreak::TieBreak;
use super::{Absence, Entry, Points, Side, SideResult, Tournament};

/// A Swiss table, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The lines, best first (ranks shared by those still tied).
    pub rows: Vec<Standing>,
    /// The tie-breaks, in the order of each line's values.
    pub tie_breaks: Vec<TieBreak>,
    /// The rounds counted.
    pub after: u32,
}

/// How one round counts for tie-breaks (16.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Round {
    /// A game on the board with a result.
    Played {
        opponent: usize,
        result: SideResult,
        colour: Side,
    },
    /// A game not finished yet: counts for nothing.
    Pending,
    /// An unplayed round: the points it gave, and whether the player chose
    /// not to play (16.1.2: a bye asked for, an absence, a forfeit lost).
    Unplayed { points: Points, voluntary: bool },
}

/// The table after `after` rounds, ranked by points, then `tie_breaks`.
pub fn table(t: &Tournament, after: u32, tie_breaks: &[TieBreak]) -> Table {
    let n = t.players.len();
    let rounds: Vec<Vec<Round>> = (0..n)
        .map(|p| (1..=after).map(|r| classify(t, p, r)).collect())
        .collect();
    let score: Vec<Points> = (0..n).map(|p| t.score_after(p, after)).collect();
    // 16.3: a round with no game after it (a withdrawal) counts as a draw
    // for the opponents' sums.
    let adjusted: Vec<Points> = (0..n)
        .map(|p| {
            (1..=after)
                .map(|r| {
                    let entry = t.entry(p, r);
                    if !entry.paired() && !plays_after(t, p, r, after) {
                        t.points.draw
                    } else {
                        t.points.points(&entry)
                    }
                })
                .sum()
        })
        .collect();
    let fraction = |points: Points, of: Points| -> Points {
        // The opponent's score times the result: 1 for a win's points, ½
        // for a draw's, 0 otherwise.
        if points >= t.points.win {
            of
        } else if points >= t.points.draw && points > Points::ZERO {
            Points::from_quarters(of.quarters() / 2)
        } else {
            Points::ZERO
        }
    };
    let result_points = |r: SideResult| match r {
        SideResult::Win => t.points.win,
        SideResult::Draw => t.points.draw,
        SideResult::Loss => t.points.loss,
    };
    let contributions = |p: usize, sonneborn: bool| -> Vec<Contribution> {
        rounds[p]
            .iter()
            .filter_map(|round| match *round {
                Round::Played {
                    opponent, result, ..
                } => Some(Contribution {
                    key: adjusted[opponent],
                    value: if sonneborn {
                        fraction(result_points(result), adjusted[opponent])
                    } else {
                        adjusted[opponent]
                    },
                    voluntary: false,
                }),
                Round::Pending => None,
                // 16.4: the dummy opponent has the player's own score.
                Round::Unplayed { points, voluntary } => Some(Contribution {
                    key: score[p],
                    value: if sonneborn {
                        fraction(points, score[p])
                    } else {
                        score[p]
                    },
                    voluntary,
                }),
            })
            .collect()
    };
    let count = |p: usize, keep: &dyn Fn(&Round) -> bool| -> Points {
        Points::whole(rounds[p].iter().filter(|r| keep(r)).count() as i64)
    };
    let value_of = |tb: TieBreak, p: usize, group: &[usize]| -> Option<Points> {
        Some(match tb {
            TieBreak::Buchholz
            | TieBreak::BuchholzCut1
            | TieBreak::BuchholzCut2
            | TieBreak::BuchholzMedian1 => standings::buchholz(tb, contributions(p, false)),
            TieBreak::SonnebornBerger => contributions(p, true).iter().map(|c| c.value).sum(),
            TieBreak::Progressive => (1..=after).map(|r| t.score_after(p, r)).sum(),
            TieBreak::Wins => Points::whole(
                (1..=after)
                    .filter(|&r| {
                        let e = t.entry(p, r);
                        !matches!(e, Entry::Game { result: None, .. })
                            && t.points.points(&e) >= t.points.win
                    })
                    .count() as i64,
            ),
            TieBreak::GamesWon => count(p, &|r| {
                matches!(
                    r,
                    Round::Played {
                        result: SideResult::Win,
                        ..
                    }
                )
            }),
            TieBreak::GamesAsBlack => count(p, &|r| {
                matches!(
                    r,
                    Round::Played {
                        colour: Side::Black,
                        ..
                    }
                )
            }),
            TieBreak::GamesWonWithBlack => count(p, &|r| {
                matches!(
                    r,
                    Round::Played {
                        colour: Side::Black,
                        result: SideResult::Win,
                        ..
                    }
                )
            }),
            TieBreak::Koya => {
                let half = Points::from_quarters(t.points.win.quarters() * i64::from(after));
                rounds[p]
                    .iter()
                    .filter_map(|r| match *r {
                        Round::Played {
                            opponent, result, ..
                        } if Points::from_quarters(2 * adjusted[opponent].quarters()) >= half => {
                            Some(result_points(result))
                        }
                        _ => None,
                    })
                    .sum()
            }
            TieBreak::DirectEncounter => direct_encounter(t, after, p, group)?,
        })
    };
    let everyone: Vec<usize> = (0..n).collect();
    let (groups, values) =
        standings::rank_by(everyone, tie_breaks.len() + 1, |k, p, group| {
            match k.checked_sub(1).and_then(|i| tie_breaks.get(i)) {
                None => Some(score[p]),
                Some(&tb) => value_of(tb, p, group),
            }
        });
    let rows = standings::ranks(&groups)
        .into_iter()
        .map(|(p, rank, rank_to)| Standing {
            player: p,
            rank,
            rank_to,
            points: score[p],
            finished: rounds[p]
                .iter()
                .filter(|r| !matches!(r, Round::Pending))
                .count() as u32,
            tie_breaks: values
                .get(&p)
                .map(|v| v.iter().skip(1).copied().collect())
                .unwrap_or_default(),
        })
        .collect();
    Table {
        rows,
        tie_breaks: tie_breaks.to_vec(),
        after,
    }
}

/// Whether player `p` takes part in a round after `round` (up to `after`).
fn plays_after(t: &Tournament, p: usize, round: u32, after: u32) -> bool {
    (round + 1..=after).any(|r| t.entry(p, r).paired())
}

fn classify(t: &Tournament, p: usize, round: u32) -> Round {
    let entry = t.entry(p, round);
    let points = t.points.points(&entry);
    match entry {
        Entry::Game {
            opponent,
            colour,
            result: Some(result),
            played: true,
        } => Round::Played {
            opponent,
            result,
            colour,
        },
        Entry::Game { result: None, .. } => Round::Pending,
        // 16.2.2 and 16.2.4: a forfeit won is not the player's choice, a
        // forfeit lost is.
        Entry::Game {
            result: Some(r), ..
        } => Round::Unplayed {
            points,
            voluntary: r != SideResult::Win,
        },
        // 16.2.1: the pairing-allocated bye.
        Entry::PairingBye => Round::Unplayed {
            points,
            voluntary: false,
        },
        // A full-point bye is the arbiter's, not the player's.
        Entry::Unpaired(Absence::Full) => Round::Unplayed {
            points,
            voluntary: false,
        },
        // 16.2.3 and 16.2.5: a bye asked for, an absence, a withdrawal.
        Entry::Unpaired(_) => Round::Unplayed {
            points,
            voluntary: true,
        },
    }
}

/// Direct encounter (Article 6): the points a player of a tied group
/// scored against the others of the group, when every two of them met in
/// a finished game (in a Swiss tournament they often have not; then the
/// tie-break is left blank and splits nothing).
fn direct_encounter(t: &Tournament, after: u32, p: usize, group: &[usize]) -> Option<Points> {
    if group.len() < 2 {
        return None;
    }
    let met = |a: usize, b: usize| -> Option<Points> {
        let mut total = None;
        for r in 1..=after {
            if let Entry::Game {
                opponent,
                result: Some(_),
                ..
            } = t.entry(a, r)
                && opponent == b
            {
                let e = t.entry(a, r);
                total = Some(total.unwrap_or(Points::ZERO) + t.points.points(&e));
            }
        }
        total
    };
    for (i, &a) in group.iter().enumerate() {
        for &b in &group[i + 1..] {
            met(a, b)?;
        }
    }
    Some(
        group
            .iter()
            .filter(|&&q| q != p)
            .filter_map(|&q| met(p, q))
            .sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::event::swiss::{Player, PointSystem};

    /// The individual Swiss tournament of FIDE's "Exercises in
    /// tie-breaking" for C.07-2023 (section 2.1): 16 players, 5 rounds, a
    /// half-point bye (4 in round 2, 9 in round 3), pairing-allocated byes
    /// (12, 6, 9), forfeits (12 beat 14, 11 beat 9), a zero-point bye (14
    /// in round 4) and a withdrawal (12 after round 3). Games as
    /// (white, black, result for White), pairing numbers from 1.
    fn fide_exercise() -> Tournament {
        type G = (usize, usize, &'static str);
        type Byes<'a> = &'a [(usize, Entry)];
        let rounds: [(&[G], Byes); 5] = [
            (
                &[
                    (10, 2, "0"),
                    (1, 9, "1"),
                    (3, 11, "="),
                    (12, 4, "0"),
                    (16, 8, "="),
                    (14, 6, "1"),
                    (5, 13, "0"),
                    (7, 15, "1"),
                ],
                &[],
            ),
            (
                &[
                    (2, 7, "1"),
                    (13, 1, "="),
                    (6, 3, "0"),
                    (11, 16, "0"),
                    (15, 5, "1"),
                    (8, 14, "1"),
                    (9, 10, "0"),
                ],
                &[(4, Entry::Unpaired(Absence::Half)), (12, Entry::PairingBye)],
            ),
            (
                &[
                    (1, 2, "="),
                    (3, 8, "1"),
                    (4, 13, "1"),
                    (16, 7, "1"),
                    (5, 11, "1"),
                    (12, 14, "+"),
                    (10, 15, "0"),
                ],
                &[(6, Entry::PairingBye), (9, Entry::Unpaired(Absence::Half))],
            ),
            (
                &[
                    (2, 16, "1"),
                    (15, 1, "0"),
                    (4, 3, "="),
                    (6, 10, "1"),
                    (7, 5, "="),
                    (8, 13, "1"),
                    (11, 9, "+"),
                ],
                &[
                    (14, Entry::Unpaired(Absence::Zero)),
                    (12, Entry::Unpaired(Absence::Zero)),
                ],
            ),
            (
                &[
                    (3, 2, "="),
                    (1, 4, "="),
                    (16, 15, "1"),
                    (8, 6, "0"),
                    (5, 10, "1"),
                    (11, 7, "1"),
                    (13, 14, "0"),
                ],
                &[(9, Entry::PairingBye), (12, Entry::Unpaired(Absence::Zero))],
            ),
        ];
        let mut players = vec![Player::default(); 16];
        for (games, byes) in rounds {
            for &(w, b, r) in games {
                let (rw, rb, played) = match r {
                    "1" => (SideResult::Win, SideResult::Loss, true),
                    "0" => (SideResult::Loss, SideResult::Win, true),
                    "=" => (SideResult::Draw, SideResult::Draw, true),
                    _ => (SideResult::Win, SideResult::Loss, false),
                };
                players[w - 1].rounds.push(Entry::Game {
                    opponent: b - 1,
                    colour: Side::White,
                    result: Some(rw),
                    played,
                });
                players[b - 1].rounds.push(Entry::Game {
                    opponent: w - 1,
                    colour: Side::Black,
                    result: Some(rb),
                    played,
                });
            }
            for &(p, e) in byes {
                players[p - 1].rounds.push(e);
            }
        }
        Tournament {
            players,
            rounds: 5,
            points: PointSystem::default(),
            initial_colour: Side::White,
            acceleration: Default::default(),
            forbidden: Vec::new(),
        }
    }

    fn values(tb: TieBreak) -> Vec<(usize, f64)> {
        let t = fide_exercise();
        let table = table(&t, 5, &[tb]);
        let mut out: Vec<(usize, f64)> = table
            .rows
            .iter()
            .map(|r| {
                (
                    r.player + 1,
                    r.tie_breaks[0].map_or(f64::NAN, |v| v.as_f64()),
                )
            })
            .collect();
        out.sort_by_key(|v| v.0);
        out
    }

    fn check(tb: TieBreak, fide: &[(usize, f64)]) {
        let ours = values(tb);
        for &(player, want) in fide {
            let got = ours[player - 1].1;
            assert_eq!(
                got,
                want,
                "{} of player {player}: dopis {got}, FIDE {want}",
                tb.abbreviation()
            );
        }
    }

    #[test]
    fn the_scores_are_those_of_fide_s_crosstable() {
        let t = fide_exercise();
        let fide = [
            3.5, 4.0, 3.5, 3.5, 2.5, 3.0, 1.5, 2.5, 1.5, 1.0, 2.5, 2.0, 1.5, 2.0, 2.0, 3.5,
        ];
        for (p, want) in fide.iter().enumerate() {
            assert_eq!(t.score_after(p, 5).as_f64(), *want, "player {}", p + 1);
        }
    }

    #[test]
    fn buchholz_counts_dummies_and_a_withdrawal_as_fide_s_exercises_9_and_4_do() {
        // Exercise 9 (and 1-4): BH of every player. Player 4's 15 counts
        // the withdrawn player 12 at 3 (two absent rounds as draws, 16.3)
        // and the half-point bye as a dummy on 4's own 3.5 (16.4).
        check(
            TieBreak::Buchholz,
            &[
                (1, 12.5),
                (2, 13.0),
                (3, 15.5),
                (4, 15.0),
                (5, 8.5),
                (6, 12.0),
                (7, 14.5),
                (8, 13.5),
                (9, 9.0),
                (10, 13.0),
                (11, 13.5),
                (12, 11.5),
                (13, 14.0),
                (14, 11.0),
                (15, 12.0),
                (16, 12.5),
            ],
        );
    }

    #[test]
    fn buchholz_cut_1_cuts_a_voluntarily_unplayed_round_first_as_fide_s_exercises_5_to_8_do() {
        // Player 9's 7.5 and player 14's 9 cut a bye or forfeit lost (1.5,
        // 2) rather than a lower opponent (16.5.1).
        check(
            TieBreak::BuchholzCut1,
            &[
                (5, 7.5),
                (8, 12.0),
                (11, 12.0),
                (7, 12.5),
                (13, 12.0),
                (9, 7.5),
                (1, 11.0),
                (3, 13.0),
                (4, 11.5),
                (16, 11.0),
                (12, 9.5),
                (15, 11.0),
                (14, 9.0),
            ],
        );
    }

    #[test]
    fn sonneborn_berger_is_fide_s_exercise_12() {
        check(
            TieBreak::SonnebornBerger,
            &[
                (1, 8.0),
                (2, 9.5),
                (3, 10.5),
                (4, 9.75),
                (5, 4.25),
                (6, 6.5),
                (7, 3.25),
                (8, 5.25),
                (9, 2.25),
                (10, 1.5),
                (11, 5.75),
                (12, 4.0),
                (13, 4.25),
                (14, 4.5),
                (15, 3.5),
                (16, 7.25),
            ],
        );
    }

    #[test]
    fn wins_games_won_black_games_and_black_wins_are_fide_s_exercises_27_to_30() {
        let by_player = |v: [f64; 16]| -> Vec<(usize, f64)> {
            v.iter().enumerate().map(|(i, &x)| (i + 1, x)).collect()
        };
        check(
            TieBreak::Wins,
            &by_player([
                2., 3., 2., 2., 2., 3., 1., 2., 1., 1., 2., 2., 1., 2., 2., 3.,
            ]),
        );
        check(
            TieBreak::GamesWon,
            &by_player([
                2., 3., 2., 2., 2., 2., 1., 2., 0., 1., 1., 0., 1., 2., 2., 3.,
            ]),
        );
        check(
            TieBreak::GamesAsBlack,
            &by_player([
                2., 3., 2., 2., 2., 2., 3., 2., 1., 3., 2., 0., 3., 2., 3., 2.,
            ]),
        );
        check(
            TieBreak::GamesWonWithBlack,
            &by_player([
                1., 1., 1., 1., 0., 1., 0., 0., 0., 1., 0., 0., 1., 1., 1., 1.,
            ]),
        );
    }

    #[test]
    fn the_progressive_score_is_fide_s_exercise_32() {
        check(
            TieBreak::Progressive,
            &[
                (1, 11.0),
                (2, 13.0),
                (3, 11.0),
                (4, 11.5),
                (5, 5.0),
                (6, 6.0),
                (7, 6.0),
                (8, 8.5),
                (9, 2.5),
                (10, 4.0),
                (11, 5.5),
                (12, 7.0),
                (13, 7.0),
                (14, 6.0),
                (15, 7.0),
                (16, 10.5),
            ],
        );
    }

    #[test]
    fn the_table_ranks_by_points_then_each_tie_break() {
        let t = fide_exercise();
        let table = table(&t, 5, &[TieBreak::BuchholzCut1, TieBreak::Buchholz]);
        let top: Vec<(usize, u32)> = table
            .rows
            .iter()
            .take(5)
            .map(|r| (r.player + 1, r.rank))
            .collect();
        // 4.0: 2; 3.5: 3 (BH-C1 13), 4 (11.5), then 1 and 16 (11 each,
        // BH 12.5 each): shared fourth place.
        assert_eq!(top, vec![(2, 1), (3, 2), (4, 3), (1, 4), (16, 4)]);
    }

    #[test]
    fn direct_encounter_splits_only_players_who_all_met() {
        let t = fide_exercise();
        // 1, 3, 4 and 16 on 3.5: 16 met neither 1 nor 3, so no split.
        assert_eq!(direct_encounter(&t, 5, 0, &[0, 2, 3, 15]), None);
        // 1 and 4 met (a draw): ½ each.
        assert_eq!(direct_encounter(&t, 5, 0, &[0, 3]), Some(Points::halves(1)));
    }
}
