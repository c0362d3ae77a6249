//! Tie-breaks: what each one is and exactly how it is computed.
//!
//! Ranking is by a list of criteria applied in order: first the score, then
//! each tie-break of the event's `tie_breaks`. Every criterion splits only the
//! groups still tied on all earlier ones; more is better for every one.
//! Entrants still tied after the last criterion share a rank (shown `3-4`) and
//! are listed by starting number.
//!
//! Which games count, for every criterion below:
//!
//! - A **finished** game counts with its result, whatever its kind: played
//!   out, lost on time, adjudicated, or won/lost by default (without play:
//!   a player never started or withdrew). One exception: an event file with
//!   `sb_unplayed = "exclude"` leaves games decided by default out of
//!   `sonneborn-berger` (they still count for points, `wins` and the rest).
//! - A **cancelled** game (`dopis game result --kind cancelled`) counts for
//!   nobody, like an annulled one, and is not one of the players' games
//!   when a withdrawal rule counts how many they finished.
//! - An **unfinished** game counts as not yet played: no points, no win, it
//!   adds nothing to any sum, and it is not a game as Black.
//! - An **annulled** game (see [`standings`](super::standings) for when a
//!   withdrawal annuls games) counts for nobody and is left out everywhere;
//!   an entrant whose games are all annulled is not in the table at all.
//!
//! Individual tie-breaks ([`TieBreak`]), for player P with current points
//! `pts(X)` under the event's scoring. Names and abbreviations are FIDE's
//! (Tie-Break Regulations, FIDE Handbook C.07, in force from 1 July 2023;
//! unchanged in the 2024 edition), which correspondence federations use too:
//!
//! - `wins` (FIDE's WIN): the number of P's wins, forfeit and adjudicated
//!   wins included.
//! - `games-won` (FIDE's WON): the number of P's wins reached on the board —
//!   played out or adjudicated, not won by forfeit or default, so a
//!   withdrawal gives nobody a free win here.
//! - `sonneborn-berger` (SB): the sum over P's finished games (less the
//!   defaults when the event excludes them) of `pts(opponent)` for a win and `pts(opponent) / 2` for a draw (nothing for
//!   a loss), whatever the event's scoring; opponents' points are their
//!   current totals, so unfinished games elsewhere move it until the event
//!   ends.
//! - `direct-encounter` (DE): within a group of players tied so far, P's
//!   points in the games among the group. Applied only when every game among
//!   the group is finished (in a double round robin, both games of every
//!   pair); otherwise it is left blank and splits nothing.
//! - `koya` (KS): P's points against opponents who have at least half of the
//!   points they can get: `2 × pts(opp) ≥ win × games(opp)`, where
//!   `games(opp)` is all the opponent's games that are not annulled,
//!   unfinished ones included.
//! - `games-as-black` (FIDE's BPG): the number of P's finished games with
//!   Black.
//! - `buchholz` (BH): the sum of `pts(opponent)` over P's finished games;
//!   `buchholz-cut1` (BH-C1) and `buchholz-cut2` (BH-C2) leave out the
//!   lowest one or two, `buchholz-median1` (BH-M1) the lowest and the
//!   highest.
//! - `progressive` (PS): the sum of P's scores after each round.
//! - `games-won-with-black` (BWG): P's wins on the board with Black.
//!
//! In a round robin every pairing is fixed beforehand, so a game won or
//! lost by default counts for these as a game (FIDE C.07 Article 15.2). In
//! a Swiss event unplayed rounds follow FIDE's own rules (the dummy
//! opponent, the cut of voluntarily unplayed rounds): see
//! [`swiss::tiebreaks`](super::swiss::tiebreaks). Every tie-break is
//! also accepted by its FIDE abbreviation ([`TieBreak::abbreviation`]).
//!
//! `baumbach` is not one tie-break but ICCF's chain of three, and the event
//! file accepts it as a name for them ([`TieBreak::named`]): the number of
//! wins ("Baumbach tie-breaking system"), then Sonneborn-Berger, then the
//! results of the tied players against each other — the order ICCF events
//! state, e.g. "(a) number of wins of each tied player (Baumbach), (b) if
//! still tied, Sonneborn-Berger, (c) if still tied, the results of the tied
//! players against each other" (ICCF event pages, "Individual ties are broken
//! by the Baumbach tie breaking rule"). It is also the default
//! ([`TieBreak::ICCF`]). Before issue 13, dopis used `baumbach` for what is
//! now `games-won`.
//!
//! Team criteria ([`TeamCriterion`]), for team T, in any order the event file
//! gives:
//!
//! - `game-points` (FIDE's GP, ICCF's board points): T's points over all its
//!   finished board games (the event's scoring).
//! - `match-points` (MP): 2 for a match won, 1 drawn, 0 lost, summed over T's
//!   decided matches. A match (all board games between two teams) is won by
//!   the team with more board points in it, and is decided only when every
//!   game in it is finished (annulled ones left out); a match with only
//!   annulled games does not count.
//! - `direct-encounter` (DE): within a group of teams tied so far, T's match
//!   points in matches among the group; applied only when all those matches
//!   are decided.
//! - `sonneborn-berger` (SB, FIDE's match-point variant): the sum over T's
//!   decided matches of the opponent's match points for a match won and half
//!   of them for a match drawn.
//! - `board-sonneborn-berger`: one column per board, board 1 first: the
//!   Sonneborn-Berger of T's player on that board in that board's own table
//!   (the board games only, each team's board points on that board as the
//!   opponents' scores). Ties are split by board 1's value, then board 2's,
//!   and so on — how ICCF broke the tie for the 19th Olympiad final's bronze
//!   after game points, match points and the direct encounter left it.
//!
//! Olympiads rank by ICCF's chain by default ([`TeamCriterion::ICCF`]):
//! game points, match points, direct encounter, then board 1's
//! Sonneborn-Berger, board 2's, …. Team matches (two teams) by default rank
//! by game points, match points, direct encounter and match-point
//! Sonneborn-Berger ([`TeamCriterion::TEAM_MATCH`]).

use std::fmt;
use std::str::FromStr;

/// An individual tie-break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// Number of wins.
    Wins,
    /// Sonneborn-Berger.
    SonnebornBerger,
    /// Points among the tied players.
    DirectEncounter,
    /// Wins reached on the board (not by forfeit or default).
    GamesWon,
    /// Points against opponents on 50 % or more.
    Koya,
    /// Number of finished games as Black.
    GamesAsBlack,
    /// Buchholz: the sum of the opponents' points.
    Buchholz,
    /// Buchholz without the least significant opponent.
    BuchholzCut1,
    /// Buchholz without the two least significant opponents.
    BuchholzCut2,
    /// Buchholz without the least and the most significant opponent.
    BuchholzMedian1,
    /// The sum of the scores after each round.
    Progressive,
    /// Games won on the board with Black.
    GamesWonWithBlack,
}

impl TieBreak {
    /// Every individual tie-break.
    pub const ALL: [TieBreak; 12] = [
        TieBreak::Wins,
        TieBreak::SonnebornBerger,
        TieBreak::DirectEncounter,
        TieBreak::GamesWon,
        TieBreak::Koya,
        TieBreak::GamesAsBlack,
        TieBreak::Buchholz,
        TieBreak::BuchholzCut1,
        TieBreak::BuchholzCut2,
        TieBreak::BuchholzMedian1,
        TieBreak::Progressive,
        TieBreak::GamesWonWithBlack,
    ];

    /// dopis's order for Swiss events when the event file names none, a
    /// common one for open Swiss tournaments: Buchholz cut 1, Buchholz,
    /// Sonneborn-Berger, direct encounter, wins, games won with Black.
    pub const SWISS: [TieBreak; 6] = [
        TieBreak::BuchholzCut1,
        TieBreak::Buchholz,
        TieBreak::SonnebornBerger,
        TieBreak::DirectEncounter,
        TieBreak::Wins,
        TieBreak::GamesWonWithBlack,
    ];

    /// ICCF's order, its "Baumbach tie-breaking system": wins,
    /// Sonneborn-Berger, direct encounter.
    pub const ICCF: [TieBreak; 3] = [
        TieBreak::Wins,
        TieBreak::SonnebornBerger,
        TieBreak::DirectEncounter,
    ];

    /// The name in the event file, e.g. `sonneborn-berger`.
    pub fn key(self) -> &'static str {
        match self {
            TieBreak::Wins => "wins",
            TieBreak::SonnebornBerger => "sonneborn-berger",
            TieBreak::DirectEncounter => "direct-encounter",
            TieBreak::GamesWon => "games-won",
            TieBreak::Koya => "koya",
            TieBreak::GamesAsBlack => "games-as-black",
            TieBreak::Buchholz => "buchholz",
            TieBreak::BuchholzCut1 => "buchholz-cut1",
            TieBreak::BuchholzCut2 => "buchholz-cut2",
            TieBreak::BuchholzMedian1 => "buchholz-median1",
            TieBreak::Progressive => "progressive",
            TieBreak::GamesWonWithBlack => "games-won-with-black",
        }
    }

    /// FIDE's abbreviation (C.07), also accepted as a name: `WIN`, `SB`,
    /// `DE`, `WON`, `KS`, `BPG`, `BH`, `BH-C1`, `BH-C2`, `BH-M1`, `PS`, `BWG`.
    pub fn abbreviation(self) -> &'static str {
        match self {
            TieBreak::Wins => "WIN",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::DirectEncounter => "DE",
            TieBreak::GamesWon => "WON",
            TieBreak::Koya => "KS",
            TieBreak::GamesAsBlack => "BPG",
            TieBreak::Buchholz => "BH",
            TieBreak::BuchholzCut1 => "BH-C1",
            TieBreak::BuchholzCut2 => "BH-C2",
            TieBreak::BuchholzMedian1 => "BH-M1",
            TieBreak::Progressive => "PS",
            TieBreak::GamesWonWithBlack => "BWG",
        }
    }

    /// What a name in the event file stands for: one tie-break, or the
    /// chain `baumbach` names ([`TieBreak::ICCF`]).
    pub fn named(name: &str) -> Result<Vec<TieBreak>, UnknownTieBreak> {
        if normalized(name) == BAUMBACH {
            return Ok(TieBreak::ICCF.to_vec());
        }
        name.parse().map(|t| vec![t])
    }

    /// A short column heading for crosstables.
    pub fn heading(self) -> &'static str {
        match self {
            TieBreak::Wins => "Wins",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::DirectEncounter => "DE",
            TieBreak::GamesWon => "WON",
            TieBreak::Koya => "Koya",
            TieBreak::GamesAsBlack => "Black",
            other => other.abbreviation(),
        }
    }
}

/// A team ranking criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TeamCriterion {
    /// Board points over all games.
    GamePoints,
    /// 2/1/0 per match.
    MatchPoints,
    /// Match points among the tied teams.
    DirectEncounter,
    /// Sonneborn-Berger by match points.
    SonnebornBerger,
    /// Each board's Sonneborn-Berger in that board's table, board 1 first.
    BoardSonnebornBerger,
}

impl TeamCriterion {
    /// Every team criterion.
    pub const ALL: [TeamCriterion; 5] = [
        TeamCriterion::GamePoints,
        TeamCriterion::MatchPoints,
        TeamCriterion::DirectEncounter,
        TeamCriterion::SonnebornBerger,
        TeamCriterion::BoardSonnebornBerger,
    ];

    /// ICCF's chain for olympiads: game points, match points, direct
    /// encounter, then board 1's Sonneborn-Berger, board 2's, ….
    pub const ICCF: [TeamCriterion; 4] = [
        TeamCriterion::GamePoints,
        TeamCriterion::MatchPoints,
        TeamCriterion::DirectEncounter,
        TeamCriterion::BoardSonnebornBerger,
    ];

    /// The default for a match between two teams.
    pub const TEAM_MATCH: [TeamCriterion; 4] = [
        TeamCriterion::GamePoints,
        TeamCriterion::MatchPoints,
        TeamCriterion::DirectEncounter,
        TeamCriterion::SonnebornBerger,
    ];

    /// The name in the event file, e.g. `match-points`.
    pub fn key(self) -> &'static str {
        match self {
            TeamCriterion::GamePoints => "game-points",
            TeamCriterion::MatchPoints => "match-points",
            TeamCriterion::DirectEncounter => "direct-encounter",
            TeamCriterion::SonnebornBerger => "sonneborn-berger",
            TeamCriterion::BoardSonnebornBerger => "board-sonneborn-berger",
        }
    }

    /// A short column heading for crosstables (`SB` then the board number
    /// for each board's Sonneborn-Berger).
    pub fn heading(self) -> &'static str {
        match self {
            TeamCriterion::GamePoints => "GP",
            TeamCriterion::MatchPoints => "MP",
            TeamCriterion::DirectEncounter => "DE",
            TeamCriterion::SonnebornBerger | TeamCriterion::BoardSonnebornBerger => "SB",
        }
    }
}

/// One value column of a team table: a criterion, and for a per-board
/// criterion the board it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TeamColumn {
    /// The criterion.
    pub criterion: TeamCriterion,
    /// The board, from 1, for [`TeamCriterion::BoardSonnebornBerger`].
    pub board: Option<u32>,
}

impl TeamColumn {
    /// The columns a ranking order makes in an event of `boards` boards: one
    /// per criterion, and one per board for a per-board criterion.
    pub fn expand(order: &[TeamCriterion], boards: u32) -> Vec<TeamColumn> {
        order
            .iter()
            .flat_map(|&criterion| match criterion {
                TeamCriterion::BoardSonnebornBerger => (1..=boards)
                    .map(|b| TeamColumn {
                        criterion,
                        board: Some(b),
                    })
                    .collect::<Vec<_>>(),
                _ => vec![TeamColumn {
                    criterion,
                    board: None,
                }],
            })
            .collect()
    }

    /// The column heading: `GP`, `MP`, …, `SB1` for board 1's SB.
    pub fn heading(self) -> String {
        match self.board {
            Some(b) => format!("{}{b}", self.criterion.heading()),
            None => self.criterion.heading().to_string(),
        }
    }
}

/// A tie-break name that dopis does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tie-break '{name}': use one of {choices}")]
pub struct UnknownTieBreak {
    /// What was given.
    pub name: String,
    /// The names that would have been accepted.
    pub choices: String,
}

/// The name of ICCF's chain of individual tie-breaks.
const BAUMBACH: &str = "baumbach";

fn normalized(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('_', "-")
}

fn unknown<T: Copy>(
    name: &str,
    all: &[T],
    key: fn(T) -> &'static str,
    also: &[&str],
) -> UnknownTieBreak {
    let mut choices: Vec<&str> = all.iter().map(|&t| key(t)).collect();
    choices.extend(also);
    UnknownTieBreak {
        name: name.chars().take(40).collect(),
        choices: choices.join(", "),
    }
}

impl FromStr for TieBreak {
    type Err = UnknownTieBreak;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = normalized(s);
        TieBreak::ALL
            .into_iter()
            .find(|t| t.key() == name || t.abbreviation().eq_ignore_ascii_case(&name))
            .ok_or_else(|| unknown(s, &TieBreak::ALL, TieBreak::key, &[BAUMBACH]))
    }
}

impl FromStr for TeamCriterion {
    type Err = UnknownTieBreak;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = normalized(s);
        TeamCriterion::ALL
            .into_iter()
            .find(|t| t.key() == name)
            .ok_or_else(|| unknown(s, &TeamCriterion::ALL, TeamCriterion::key, &[]))
    }
}

impl fmt::Display for TieBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl fmt::Display for TeamCriterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_and_unknown_names_list_the_choices() {
        for t in TieBreak::ALL {
            assert_eq!(t.key().parse::<TieBreak>(), Ok(t));
        }
        for t in TeamCriterion::ALL {
            assert_eq!(t.key().parse::<TeamCriterion>(), Ok(t));
        }
        assert_eq!("Sonneborn_Berger".parse(), Ok(TieBreak::SonnebornBerger));
        for t in TieBreak::ALL {
            assert_eq!(t.abbreviation().parse::<TieBreak>(), Ok(t));
        }
        assert_eq!("bh-c1".parse(), Ok(TieBreak::BuchholzCut1));
        let err = "buchholtz".parse::<TieBreak>().unwrap_err().to_string();
        assert!(err.contains("'buchholtz'") && err.contains("koya"), "{err}");
        let err = "koya".parse::<TeamCriterion>().unwrap_err().to_string();
        assert!(err.contains("match-points"), "{err}");
        let err = "buchholtz".parse::<TieBreak>().unwrap_err().to_string();
        assert!(err.contains("baumbach"), "the chain is offered too: {err}");
    }

    #[test]
    fn baumbach_is_iccf_s_chain_of_wins_sonneborn_berger_and_direct_encounter() {
        let chain = vec![
            TieBreak::Wins,
            TieBreak::SonnebornBerger,
            TieBreak::DirectEncounter,
        ];
        assert_eq!(TieBreak::named("Baumbach"), Ok(chain.clone()));
        assert_eq!(TieBreak::ICCF.to_vec(), chain);
        assert_eq!(TieBreak::named("games-won"), Ok(vec![TieBreak::GamesWon]));
        assert!(TieBreak::named("baumbach-ish").is_err());
    }

    #[test]
    fn the_board_sonneborn_berger_makes_one_column_per_board() {
        let columns = TeamColumn::expand(&TeamCriterion::ICCF, 3);
        let headings: Vec<String> = columns.iter().map(|c| c.heading()).collect();
        assert_eq!(headings, ["GP", "MP", "DE", "SB1", "SB2", "SB3"]);
        let plain = TeamColumn::expand(&TeamCriterion::TEAM_MATCH, 3);
        assert_eq!(plain.len(), 4);
    }
}
