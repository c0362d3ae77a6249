//! Consultation games (vote chess): each side is a team whose members vote
//! on its move by mail. This is the pure part: the sides as an event file
//! names them, when a side's votes close, and the tally that turns votes
//! into the side's move.
//!
//! The tally: the move with the most votes is played; a tie goes to the
//! move the captain voted for, and when the captain voted for none of the
//! tied moves (or did not vote), to the tied move voted for earliest. A
//! member has one vote per move of their side; a changed vote replaces the
//! old one (and counts from when it was changed).

use chrono::{DateTime, TimeDelta, Utc};

use super::entrant::Entrant;
use crate::domain::address::EmailAddress;

/// Most hours a side's votes may stay open (a year).
pub const MAX_VOTE_HOURS: u32 = 24 * 366;

/// The two sides of a consultation game as its event file names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    /// White's team, then Black's.
    pub teams: [VotingTeam; 2],
    /// How long a side's votes stay open after it was told it is its move.
    pub vote_hours: u32,
}

/// One side: a team of members (a team of one plays alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VotingTeam {
    /// The team's name.
    pub name: String,
    /// Its captain's address (one of `members`): their vote breaks a tie,
    /// and they stand for the side in the game (resigning, draws).
    pub captain: EmailAddress,
    /// Every member, the captain among them, in the file's order.
    pub members: Vec<Entrant>,
}

impl VotingTeam {
    /// The captain as an entrant.
    pub fn captain_entrant(&self) -> Option<&Entrant> {
        self.members.iter().find(|m| m.email == self.captain)
    }
}

/// When the votes of a side told of its move at `prompted` close: after
/// `vote_hours`, but a minute before the side's clock would flag (its
/// `deadline`), so that a side that voted never loses on time for the wait.
pub fn votes_close_at(
    prompted: DateTime<Utc>,
    vote_hours: u32,
    deadline: Option<DateTime<Utc>>,
) -> DateTime<Utc> {
    let open = prompted + TimeDelta::hours(i64::from(vote_hours));
    match deadline {
        Some(flag) => open.min(flag - TimeDelta::minutes(1)).max(prompted),
        None => open,
    }
}

/// One member's vote as it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vote {
    /// The member's player id.
    pub voter: i64,
    /// The member's name (for the PGN comment and the web page).
    pub name: String,
    /// Whether the member is the side's captain.
    pub captain: bool,
    /// The move in UCI (how votes for the same move are matched).
    pub uci: String,
    /// The move in English SAN (how it is shown in the PGN).
    pub san: String,
    /// When the vote as it stands was cast.
    pub voted_at: DateTime<Utc>,
}

/// The votes for one move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count {
    /// The move in UCI.
    pub uci: String,
    /// The move in English SAN.
    pub san: String,
    /// How many members voted for it.
    pub votes: u32,
    /// Their names, earliest vote first.
    pub voters: Vec<String>,
    /// Whether the captain is among them.
    captain: bool,
    /// The earliest vote for it.
    first: DateTime<Utc>,
}

/// The votes by move, the winner first: most votes, then the captain's
/// move, then the earliest voted. Empty when nobody voted.
pub fn tally(votes: &[Vote]) -> Vec<Count> {
    let mut in_order: Vec<&Vote> = votes.iter().collect();
    in_order.sort_by_key(|v| (v.voted_at, v.voter));
    let mut counts: Vec<Count> = Vec::new();
    for vote in in_order {
        match counts.iter_mut().find(|c| c.uci == vote.uci) {
            Some(count) => {
                count.votes += 1;
                count.voters.push(vote.name.clone());
                count.captain |= vote.captain;
            }
            None => counts.push(Count {
                uci: vote.uci.clone(),
                san: vote.san.clone(),
                votes: 1,
                voters: vec![vote.name.clone()],
                captain: vote.captain,
                first: vote.voted_at,
            }),
        }
    }
    counts.sort_by(|a, b| {
        b.votes
            .cmp(&a.votes)
            .then(b.captain.cmp(&a.captain))
            .then(a.first.cmp(&b.first))
    });
    counts
}

/// Casts `vote`: the member's earlier vote on the same move (if any) is
/// replaced. Returns whether there was one.
pub fn cast(votes: &mut Vec<Vote>, vote: Vote) -> bool {
    let before = votes.len();
    votes.retain(|v| v.voter != vote.voter);
    let changed = votes.len() != before;
    votes.push(vote);
    changed
}

/// Whether every one of `members` has voted (then the move is made at once).
pub fn everyone_voted(votes: &[Vote], members: &[i64]) -> bool {
    members
        .iter()
        .all(|member| votes.iter().any(|v| v.voter == *member))
}

/// The PGN comment of a decided move: `votes: Nf3 3 (Ann, Bob, Cy), e4 2 (Dan, Eve)`.
pub fn pgn_comment(counts: &[Count]) -> String {
    let parts: Vec<String> = counts
        .iter()
        .map(|c| format!("{} {} ({})", c.san, c.votes, c.voters.join(", ")))
        .collect();
    format!("votes: {}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_700_000_000 + minute * 60, 0).unwrap()
    }

    fn vote(voter: i64, uci: &str, minute: i64) -> Vote {
        Vote {
            voter,
            name: format!("P{voter}"),
            captain: voter == 1,
            uci: uci.into(),
            san: uci.into(),
            voted_at: at(minute),
        }
    }

    fn winner(votes: &[Vote]) -> Option<String> {
        tally(votes).first().map(|c| c.uci.clone())
    }

    #[test]
    fn the_most_votes_win_whatever_the_captain_or_the_order() {
        let votes = [vote(1, "e2e4", 0), vote(2, "g1f3", 1), vote(3, "g1f3", 2)];
        assert_eq!(winner(&votes).as_deref(), Some("g1f3"));
        let counts = tally(&votes);
        assert_eq!((counts[0].votes, counts[1].votes), (2, 1));
        assert_eq!(counts[0].voters, ["P2", "P3"]);
    }

    #[test]
    fn a_tie_goes_to_the_captains_move_even_when_voted_last() {
        let votes = [
            vote(2, "g1f3", 0),
            vote(3, "e2e4", 1),
            vote(1, "e2e4", 5),
            vote(4, "g1f3", 2),
        ];
        assert_eq!(winner(&votes).as_deref(), Some("e2e4"));
    }

    #[test]
    fn a_tie_without_the_captain_goes_to_the_earliest_voted_move() {
        let votes = [vote(3, "d2d4", 4), vote(2, "c2c4", 3), vote(1, "e2e4", 9)];
        // One vote each: the captain's e4 wins.
        assert_eq!(winner(&votes).as_deref(), Some("e2e4"));
        let without_captain = [vote(3, "d2d4", 4), vote(2, "c2c4", 3)];
        assert_eq!(winner(&without_captain).as_deref(), Some("c2c4"));
    }

    #[test]
    fn nobody_voting_decides_nothing() {
        assert_eq!(winner(&[]), None);
    }

    #[test]
    fn a_changed_vote_replaces_the_old_one_and_counts_from_its_change() {
        let mut votes = vec![vote(2, "g1f3", 0), vote(3, "e2e4", 1)];
        assert!(!cast(&mut votes, vote(4, "g1f3", 2)));
        assert_eq!(winner(&votes).as_deref(), Some("g1f3"));
        // Member 2 changes to e4: e4 2, Nf3 1.
        assert!(cast(&mut votes, vote(2, "e2e4", 3)));
        assert_eq!(votes.len(), 3);
        let counts = tally(&votes);
        assert_eq!(counts[0].uci, "e2e4");
        assert_eq!(counts[0].voters, ["P3", "P2"]);
        assert_eq!((counts[0].votes, counts[1].votes), (2, 1));
    }

    #[test]
    fn the_move_is_made_once_every_member_voted() {
        let votes = [vote(1, "e2e4", 0), vote(2, "d2d4", 1)];
        assert!(everyone_voted(&votes, &[1, 2]));
        assert!(!everyone_voted(&votes, &[1, 2, 3]));
    }

    #[test]
    fn votes_close_after_the_hours_but_a_minute_before_the_flag() {
        assert_eq!(votes_close_at(at(0), 2, None), at(120));
        assert_eq!(votes_close_at(at(0), 2, Some(at(600))), at(120));
        assert_eq!(votes_close_at(at(0), 2, Some(at(60))), at(59));
        // A flag already past closes the votes at once.
        assert_eq!(votes_close_at(at(0), 2, Some(at(0))), at(0));
    }

    #[test]
    fn the_pgn_comment_names_each_move_with_its_voters() {
        let votes = [vote(2, "Nf3", 0), vote(3, "Nf3", 1), vote(4, "e4", 2)];
        assert_eq!(
            pgn_comment(&tally(&votes)),
            "votes: Nf3 2 (P2, P3), e4 1 (P4)"
        );
    }
}
