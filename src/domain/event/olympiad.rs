//! Team pairings: olympiads (teams in a section, board i against board i of
//! every other team) and team matches (two clubs, two games per board).
//!
//! Teams meet in the order of the Berger table over teams (see
//! [`berger`](mod@super::berger)); the table's White is the *home* team. In each
//! team match the home team has White on odd boards and Black on even boards,
//! as at FIDE and ICCF olympiads. So a team's whites in one match differ from
//! its blacks by at most one, and since the Berger table gives every team home
//! and away matches within one of each other, every player's whites and
//! blacks across the event differ by at most one too.
//!
//! With two games per pairing each board pair plays once with each colour;
//! a team match is that, between two teams.

use super::berger::{self, BadEntrantCount, Cycles};

/// One game of a team event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoardGame {
    /// Round of the team match (from the Berger table over teams), from 1.
    pub round: u32,
    /// Board, from 1: board 1 plays board 1.
    pub board: u32,
    /// Index of the team whose player on `board` has White.
    pub white_team: usize,
    /// Index of the team whose player on `board` has Black.
    pub black_team: usize,
}

/// Games per board pairing: one, or two with one of each colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GamesPerPairing {
    /// One game; colours alternate by board.
    One,
    /// Two games, one with each colour.
    Two,
}

/// Every game of an olympiad section of `teams` teams with `boards` boards.
pub fn olympiad(
    teams: usize,
    boards: u32,
    games: GamesPerPairing,
) -> Result<Vec<BoardGame>, BadEntrantCount> {
    let matches = berger::round_robin(teams, Cycles::Single)?;
    let mut out = Vec::new();
    for m in matches {
        out.extend(match_games(m.round, m.white, m.black, boards, games));
    }
    Ok(out)
}

/// Every game of a team match: board i against board i, two games each
/// (team 0 has White on odd boards in the first game).
pub fn team_match(boards: u32) -> Vec<BoardGame> {
    match_games(1, 0, 1, boards, GamesPerPairing::Two)
}

fn match_games(
    round: u32,
    home: usize,
    away: usize,
    boards: u32,
    games: GamesPerPairing,
) -> Vec<BoardGame> {
    let mut out = Vec::new();
    for board in 1..=boards {
        let (white_team, black_team) = if !board.is_multiple_of(2) {
            (home, away)
        } else {
            (away, home)
        };
        out.push(BoardGame {
            round,
            board,
            white_team,
            black_team,
        });
        if games == GamesPerPairing::Two {
            out.push(BoardGame {
                round,
                board,
                white_team: black_team,
                black_team: white_team,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// (teams, boards, games per pairing)
    const SECTIONS: &[(usize, u32, GamesPerPairing)] = &[
        (7, 6, GamesPerPairing::One),
        (7, 4, GamesPerPairing::One),
        (8, 6, GamesPerPairing::One),
        (3, 6, GamesPerPairing::One),
        (11, 6, GamesPerPairing::One),
        (7, 6, GamesPerPairing::Two),
        (6, 4, GamesPerPairing::Two),
    ];

    #[test]
    fn every_board_meets_the_same_board_of_every_other_team_as_often_as_the_event_says() {
        for &(teams, boards, per) in SECTIONS {
            let games = olympiad(teams, boards, per).unwrap();
            let times = match per {
                GamesPerPairing::One => 1,
                GamesPerPairing::Two => 2,
            };
            let mut met: HashMap<(u32, usize, usize), u32> = HashMap::new();
            for g in &games {
                assert_ne!(g.white_team, g.black_team);
                assert!((1..=boards).contains(&g.board));
                let pair = (
                    g.white_team.min(g.black_team),
                    g.white_team.max(g.black_team),
                );
                *met.entry((g.board, pair.0, pair.1)).or_default() += 1;
            }
            for board in 1..=boards {
                for a in 0..teams {
                    for b in a + 1..teams {
                        assert_eq!(
                            met.get(&(board, a, b)).copied(),
                            Some(times),
                            "{teams}x{boards}: board {board}, teams {a} and {b}"
                        );
                    }
                }
            }
            assert_eq!(
                games.len(),
                teams * (teams - 1) / 2 * boards as usize * times as usize
            );
        }
    }

    #[test]
    fn colours_balance_within_one_per_player_and_per_team_round() {
        for &(teams, boards, per) in SECTIONS {
            let games = olympiad(teams, boards, per).unwrap();
            // Per player (team, board): whites minus blacks over the event.
            let mut player: HashMap<(usize, u32), i32> = HashMap::new();
            // Per team and round: whites minus blacks over its boards.
            let mut team_round: HashMap<(usize, u32), i32> = HashMap::new();
            for g in &games {
                *player.entry((g.white_team, g.board)).or_default() += 1;
                *player.entry((g.black_team, g.board)).or_default() -= 1;
                *team_round.entry((g.white_team, g.round)).or_default() += 1;
                *team_round.entry((g.black_team, g.round)).or_default() -= 1;
            }
            assert_eq!(player.len(), teams * boards as usize);
            for (who, balance) in &player {
                assert!(balance.abs() <= 1, "{teams}x{boards}: {who:?} {balance}");
                if per == GamesPerPairing::Two {
                    assert_eq!(*balance, 0, "{teams}x{boards}: {who:?}");
                }
            }
            for (who, balance) in &team_round {
                assert!(balance.abs() <= 1, "{teams}x{boards}: {who:?} {balance}");
            }
        }
    }

    #[test]
    fn the_home_team_has_white_on_odd_boards() {
        let games = olympiad(4, 6, GamesPerPairing::One).unwrap();
        // Round 1 of the 4-table is 1-4, 2-3: team 0 at home to team 3.
        let first: Vec<(u32, usize, usize)> = games
            .iter()
            .filter(|g| g.round == 1 && (g.white_team == 0 || g.black_team == 0))
            .map(|g| (g.board, g.white_team, g.black_team))
            .collect();
        assert_eq!(
            first,
            vec![
                (1, 0, 3),
                (2, 3, 0),
                (3, 0, 3),
                (4, 3, 0),
                (5, 0, 3),
                (6, 3, 0)
            ]
        );
    }

    #[test]
    fn a_team_match_of_six_boards_is_twelve_games_one_each_colour_per_board() {
        let games = team_match(6);
        assert_eq!(games.len(), 12);
        for board in 1..=6 {
            let on_board: Vec<_> = games.iter().filter(|g| g.board == board).collect();
            assert_eq!(on_board.len(), 2);
            assert!(
                on_board
                    .iter()
                    .any(|g| g.white_team == 0 && g.black_team == 1)
            );
            assert!(
                on_board
                    .iter()
                    .any(|g| g.white_team == 1 && g.black_team == 0)
            );
        }
    }

    #[test]
    fn fewer_than_three_teams_is_not_an_olympiad() {
        assert!(olympiad(2, 6, GamesPerPairing::One).is_err());
    }
}
