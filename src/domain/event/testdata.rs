//! Finished events used by the standings and crosstable tests.

use super::standings::{ScoredGame, ScoredTeamGame};
use super::{Decision, GameResult, GameState};

/// `"1-0"`, `"½-½"`, `"0-1"`, with ` adj` for an adjudication, ` time` for
/// a time forfeit, ` def` for a default; `"x"` cancelled; `"*"` unfinished.
pub fn state(text: &str) -> GameState {
    if text == "x" {
        return GameState::Cancelled;
    }
    let (result, decision) = [
        (" adj", Decision::Adjudicated),
        (" time", Decision::Time),
        (" def", Decision::Forfeit),
    ]
    .into_iter()
    .find_map(|(suffix, d)| text.strip_suffix(suffix).map(|r| (r, d)))
    .unwrap_or((text, Decision::Played));
    let outcome = match result {
        "1-0" => GameResult::WhiteWins,
        "½-½" => GameResult::Draw,
        "0-1" => GameResult::BlackWins,
        _ => return GameState::Unfinished,
    };
    GameState::Finished { outcome, decision }
}

/// Starting numbers from 1, as in the Berger table.
pub fn games(table: &[(u32, usize, usize, &str)]) -> Vec<ScoredGame> {
    table
        .iter()
        .map(|&(round, white, black, result)| ScoredGame {
            round,
            white: white - 1,
            black: black - 1,
            state: state(result),
        })
        .collect()
}

/// A 6-player round robin on the FIDE 6-table. Player 6 (F) withdraws
/// after finishing 3 of 5 games: 3 ≥ 5/2, so under either rule the
/// other two are forfeited (R4 6-5 → 0-1, R5 3-6 → 1-0). R3 3-1 was
/// adjudicated.
pub const SIX: &[(u32, usize, usize, &str)] = &[
    (1, 1, 6, "1-0"),
    (1, 2, 5, "½-½"),
    (1, 3, 4, "0-1"),
    (2, 6, 4, "½-½"),
    (2, 5, 3, "1-0"),
    (2, 1, 2, "½-½"),
    (3, 2, 6, "1-0"),
    (3, 3, 1, "0-1 adj"),
    (3, 4, 5, "½-½"),
    (4, 6, 5, "*"),
    (4, 1, 4, "½-½"),
    (4, 2, 3, "1-0"),
    (5, 3, 6, "*"),
    (5, 4, 2, "0-1"),
    (5, 5, 1, "½-½"),
];

/// A 4-team olympiad on 4 boards (FIDE 4-table over teams: R1 1-4, 2-3;
/// R2 4-3, 1-2; R3 2-4, 3-1; the home team, named first, has White on
/// boards 1 and 3). Results per board from the home team's side:
/// (round, home, away, [b1, b2, b3, b4]) with "+" home win, "=" draw,
/// "-" away win, "a" away win by adjudication, "*" unfinished.
/// Team 4's board 4 withdraws with the R3 game unfinished.
pub const OLYMPIAD: &[(u32, usize, usize, [&str; 4])] = &[
    (1, 1, 4, ["+", "=", "+", "-"]),
    (1, 2, 3, ["=", "=", "-", "+"]),
    (2, 4, 3, ["-", "a", "=", "="]),
    (2, 1, 2, ["=", "-", "+", "+"]),
    (3, 2, 4, ["-", "=", "+", "*"]),
    (3, 3, 1, ["-", "=", "=", "+"]),
];

/// Board games of team matches given as (round, home, away, one result per
/// board), the home team White on odd boards.
pub fn team_games<const BOARDS: usize>(
    table: &[(u32, usize, usize, [&str; BOARDS])],
) -> Vec<ScoredTeamGame> {
    let mut out = Vec::new();
    for &(round, home, away, boards) in table {
        for (i, r) in boards.iter().enumerate() {
            let board = i as u32 + 1;
            let home_white = board % 2 == 1;
            let (white_team, black_team) = if home_white {
                (home - 1, away - 1)
            } else {
                (away - 1, home - 1)
            };
            let home_wins = if home_white {
                GameResult::WhiteWins
            } else {
                GameResult::BlackWins
            };
            let away_wins = if home_white {
                GameResult::BlackWins
            } else {
                GameResult::WhiteWins
            };
            let (outcome, decision) = match *r {
                "+" => (home_wins, Decision::Played),
                "=" => (GameResult::Draw, Decision::Played),
                "-" => (away_wins, Decision::Played),
                "a" => (away_wins, Decision::Adjudicated),
                _ => {
                    out.push(ScoredTeamGame {
                        round,
                        board,
                        white_team,
                        black_team,
                        state: GameState::Unfinished,
                    });
                    continue;
                }
            };
            let state = GameState::Finished { outcome, decision };
            out.push(ScoredTeamGame {
                round,
                board,
                white_team,
                black_team,
                state,
            });
        }
    }
    out
}

/// A 3-team olympiad on 6 boards (R1 1-2, R2 3-1, R3 2-3) where teams 1 and
/// 2 tie on game points, match points and their direct encounter (their
/// match is drawn 3-3), and board 1's Sonneborn-Berger ties too: board 2's
/// decides (see the hand computation in the standings tests).
pub const TIED_OLYMPIAD: &[(u32, usize, usize, [&str; 6])] = &[
    (1, 1, 2, ["=", "+", "-", "=", "=", "="]),
    (2, 3, 1, ["-", "=", "-", "=", "=", "="]),
    (3, 2, 3, ["=", "+", "+", "=", "=", "="]),
];
