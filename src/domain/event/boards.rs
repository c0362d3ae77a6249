//! Board tables of a team event: beside the match table, a table per board.
//!
//! In an olympiad (and a team match) board i plays only board i of the
//! other teams, so the players of one board form a round robin of their
//! own, one per team (two games per pairing in a team match or an olympiad
//! of `games_per_pairing = 2`). A board's table is that round robin's
//! crosstable: its players ranked by their points on the board, then the
//! event's individual tie-breaks (ICCF: wins, Sonneborn-Berger, direct
//! encounter), with every game's cell, as ICCF publishes an olympiad's
//! board results. Players are indexed by team, so a board's row `t` is
//! team `t`'s player on that board.

use super::crosstable::{self, Crosstable};
use super::standings::{self, Rules, ScoredGame, ScoredTeamGame};

/// One board's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardTable {
    /// The board, from 1.
    pub board: u32,
    /// Its crosstable (rows name the board's players).
    pub table: Crosstable,
}

/// The table of each board `1..=boards`: `names[board - 1][team]` names
/// the team's player on that board, `title(board)` titles its table, and
/// `withdrawn` lists the `(team, board)` seats that withdrew.
pub fn board_tables(
    boards: u32,
    names: &[Vec<String>],
    games: &[ScoredTeamGame],
    withdrawn: &[(usize, u32)],
    rules: &Rules,
    title: impl Fn(u32) -> String,
) -> Vec<BoardTable> {
    (1..=boards)
        .map(|board| {
            let teams = names.get(board as usize - 1).map_or(0, Vec::len);
            let played: Vec<ScoredGame> = games
                .iter()
                .filter(|g| g.board == board)
                .map(|g| ScoredGame {
                    round: g.round,
                    white: g.white_team,
                    black: g.black_team,
                    state: g.state,
                })
                .collect();
            let gone: Vec<usize> = withdrawn
                .iter()
                .filter(|(_, b)| *b == board)
                .map(|(t, _)| *t)
                .collect();
            let table = standings::individual(teams, &played, &gone, rules);
            let no_names = Vec::new();
            let names = names.get(board as usize - 1).unwrap_or(&no_names);
            BoardTable {
                board,
                table: crosstable::individual(&title(board), names, &gone, &table),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chess::game::GameResult;
    use crate::domain::event::olympiad::{self, GamesPerPairing};
    use crate::domain::event::{Decision, GameState, Points};

    fn rules() -> Rules {
        Rules {
            scoring: crate::domain::event::Scoring::default(),
            tie_breaks: crate::domain::event::tiebreak::TieBreak::ICCF.to_vec(),
            withdrawal: crate::domain::event::WithdrawalRule::ForfeitAll,
            sb_counts_unplayed: true,
        }
    }

    fn finished(outcome: GameResult) -> GameState {
        GameState::Finished {
            outcome,
            decision: Decision::Played,
        }
    }

    #[test]
    fn each_board_is_a_round_robin_of_its_players_ranked_by_their_points() {
        // Three teams of two boards: every white wins on board 1, every
        // board 2 game is drawn but one, which is still being played.
        let pairings = olympiad::olympiad(3, 2, GamesPerPairing::One).unwrap();
        let games: Vec<ScoredTeamGame> = pairings
            .iter()
            .enumerate()
            .map(|(i, p)| ScoredTeamGame {
                round: p.round,
                board: p.board,
                white_team: p.white_team,
                black_team: p.black_team,
                state: match (p.board, i) {
                    (1, _) => finished(GameResult::WhiteWins),
                    (_, 5) => GameState::Unfinished,
                    _ => finished(GameResult::Draw),
                },
            })
            .collect();
        let names: Vec<Vec<String>> = (1..=2)
            .map(|b| ["A", "B", "C"].iter().map(|t| format!("{t}{b}")).collect())
            .collect();
        let tables = board_tables(2, &names, &games, &[], &rules(), |b| {
            format!("Cup, board {b}")
        });
        assert_eq!(tables.len(), 2);
        let one = &tables[0].table;
        assert_eq!(one.title, "Cup, board 1");
        assert_eq!(one.rows.len(), 3);
        // On board 1 the whites won: each player's score is their whites.
        let whites = |t: usize| {
            pairings
                .iter()
                .filter(|p| p.board == 1 && p.white_team == t)
                .count() as i64
        };
        for row in &one.rows {
            let team = ["A1", "B1", "C1"]
                .iter()
                .position(|n| *n == row.name)
                .unwrap();
            assert_eq!(row.values[0], Some(Points::whole(whites(team))), "{row:?}");
            assert_eq!(row.results.iter().filter(|c| *c == "X").count(), 1);
        }
        let two = &tables[1].table;
        let cells: Vec<&String> = two.rows.iter().flat_map(|r| &r.results).collect();
        assert_eq!(cells.iter().filter(|c| c.as_str() == "*").count(), 2);
        assert_eq!(cells.iter().filter(|c| c.as_str() == "½").count(), 4);
    }

    #[test]
    fn a_withdrawn_board_is_marked_in_its_own_table_only() {
        let games: Vec<ScoredTeamGame> = olympiad::olympiad(3, 2, GamesPerPairing::One)
            .unwrap()
            .iter()
            .map(|p| ScoredTeamGame {
                round: p.round,
                board: p.board,
                white_team: p.white_team,
                black_team: p.black_team,
                state: finished(GameResult::Draw),
            })
            .collect();
        let names = vec![
            vec!["A1".to_string(), "B1".into(), "C1".into()],
            vec!["A2".to_string(), "B2".into(), "C2".into()],
        ];
        let tables = board_tables(2, &names, &games, &[(1, 2)], &rules(), |b| b.to_string());
        assert!(tables[0].table.rows.iter().all(|r| !r.withdrawn));
        let b2 = tables[1]
            .table
            .rows
            .iter()
            .find(|r| r.name == "B2")
            .unwrap();
        assert!(b2.withdrawn);
    }
}
