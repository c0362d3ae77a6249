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
//! `pts(X)` under the event's scoring:
//!
//! - `wins`: the number of P's wins, forfeit and adjudicated wins included.
//! - `sonneborn-berger`: the sum over P's finished games (less the defaults
//!   when the event excludes them) of `pts(opponent)`
//!   for a win and `pts(opponent) / 2` for a draw (nothing for a loss),
//!   whatever the event's scoring; opponents' points are their current
//!   totals, so unfinished games elsewhere move it until the event ends.
//! - `direct-encounter`: within a group of players tied so far, P's points in
//!   the games among the group. Applied only when every game among the group
//!   is finished (in a double round robin, both games of every pair);
//!   otherwise it is left blank and splits nothing.
//! - `baumbach`: the number of P's wins reached on the board: played out or
//!   adjudicated, not won by forfeit. (`wins` counts forfeits; this is the
//!   variant for TDs who want a withdrawal to give nobody a free win here.)
//! - `koya`: P's points against opponents who have at least half of the
//!   points they can get: `2 × pts(opp) ≥ win × games(opp)`, where
//!   `games(opp)` is all the opponent's games that are not annulled,
//!   unfinished ones included.
//! - `games-as-black`: the number of P's finished games with Black.
//!
//! Team criteria ([`TeamCriterion`]), for team T, in any order the event file
//! gives (default: game points, match points, direct encounter,
//! Sonneborn-Berger):
//!
//! - `game-points`: T's points over all its finished board games (the event's
//!   scoring).
//! - `match-points`: 2 for a match won, 1 drawn, 0 lost, summed over T's
//!   decided matches. A match (all board games between two teams) is won by
//!   the team with more board points in it, and is decided only when every
//!   game in it is finished (annulled ones left out); a match with only
//!   annulled games does not count.
//! - `direct-encounter`: within a group of teams tied so far, T's match points
//!   in matches among the group; applied only when all those matches are
//!   decided.
//! - `sonneborn-berger`: by match points: the sum over T's decided matches of
//!   the opponent's match points for a match won and half of them for a match
//!   drawn.

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
    /// Wins reached on the board (not by forfeit).
    Baumbach,
    /// Points against opponents on 50 % or more.
    Koya,
    /// Number of finished games as Black.
    GamesAsBlack,
}

impl TieBreak {
    /// Every individual tie-break.
    pub const ALL: [TieBreak; 6] = [
        TieBreak::Wins,
        TieBreak::SonnebornBerger,
        TieBreak::DirectEncounter,
        TieBreak::Baumbach,
        TieBreak::Koya,
        TieBreak::GamesAsBlack,
    ];

    /// ICCF's order: wins, Sonneborn-Berger, direct encounter.
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
            TieBreak::Baumbach => "baumbach",
            TieBreak::Koya => "koya",
            TieBreak::GamesAsBlack => "games-as-black",
        }
    }

    /// A short column heading for crosstables.
    pub fn heading(self) -> &'static str {
        match self {
            TieBreak::Wins => "Wins",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::DirectEncounter => "DE",
            TieBreak::Baumbach => "BB",
            TieBreak::Koya => "Koya",
            TieBreak::GamesAsBlack => "Black",
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
}

impl TeamCriterion {
    /// Every team criterion.
    pub const ALL: [TeamCriterion; 4] = [
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
        }
    }

    /// A short column heading for crosstables.
    pub fn heading(self) -> &'static str {
        match self {
            TeamCriterion::GamePoints => "GP",
            TeamCriterion::MatchPoints => "MP",
            TeamCriterion::DirectEncounter => "DE",
            TeamCriterion::SonnebornBerger => "SB",
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

fn unknown<T: Copy>(name: &str, all: &[T], key: fn(T) -> &'static str) -> UnknownTieBreak {
    UnknownTieBreak {
        name: name.chars().take(40).collect(),
        choices: all.iter().map(|&t| key(t)).collect::<Vec<_>>().join(", "),
    }
}

impl FromStr for TieBreak {
    type Err = UnknownTieBreak;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim().to_ascii_lowercase().replace('_', "-");
        TieBreak::ALL
            .into_iter()
            .find(|t| t.key() == name)
            .ok_or_else(|| unknown(s, &TieBreak::ALL, TieBreak::key))
    }
}

impl FromStr for TeamCriterion {
    type Err = UnknownTieBreak;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim().to_ascii_lowercase().replace('_', "-");
        TeamCriterion::ALL
            .into_iter()
            .find(|t| t.key() == name)
            .ok_or_else(|| unknown(s, &TeamCriterion::ALL, TeamCriterion::key))
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
        let err = "buchholz".parse::<TieBreak>().unwrap_err().to_string();
        assert!(err.contains("'buchholz'") && err.contains("koya"), "{err}");
        let err = "koya".parse::<TeamCriterion>().unwrap_err().to_string();
        assert!(err.contains("match-points"), "{err}");
    }
}
