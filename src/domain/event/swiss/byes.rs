//! Half-point byes a player asks for (issue 25): whether one may be
//! granted. C.04.1 leaves it to the tournament's rules: a player may ask
//! not to be paired in a round, before it is paired, and scores a draw's
//! points for it (TRF `H`); dopis takes asks up to the event file's
//! `max_half_point_byes` per player, and none once the round is paired
//! (its pairing already counted the player in).

/// Why a half-point bye was not granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByeRefusal {
    /// The player has withdrawn from the event.
    Withdrawn,
    /// The event has not started: pairing numbers are given at its start.
    NotStarted,
    /// No such round: before 1 or after the event's last.
    NoRound,
    /// Every round is paired: the event has no round left to skip.
    Finished,
    /// The round is paired already; `next` is the next to be paired.
    Paired {
        /// The next round to be paired.
        next: u32,
    },
    /// The player has that bye already: nothing changes.
    Already,
    /// The event gives no half-point byes (`max_half_point_byes = 0`).
    NoneGiven,
    /// The player has every bye the event gives.
    Limit,
}

impl ByeRefusal {
    /// The key the mails' templates read.
    pub fn key(self) -> &'static str {
        match self {
            ByeRefusal::Withdrawn => "withdrawn",
            ByeRefusal::NotStarted => "not-started",
            ByeRefusal::NoRound => "no-round",
            ByeRefusal::Finished => "finished",
            ByeRefusal::Paired { .. } => "paired",
            ByeRefusal::Already => "already",
            ByeRefusal::NoneGiven => "none-given",
            ByeRefusal::Limit => "limit",
        }
    }
}

/// Where a seated player and the event stand when a bye is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByeAsk<'a> {
    /// The round asked for (0 when the number written was none we take).
    pub round: u32,
    /// The event's rounds.
    pub rounds: u32,
    /// The last round paired (0 before the start).
    pub paired: u32,
    /// Whether the event has started.
    pub started: bool,
    /// Whether the player has withdrawn.
    pub withdrawn: bool,
    /// The rounds the player has byes for already.
    pub mine: &'a [u32],
    /// `max_half_point_byes`.
    pub max: u32,
}

/// Whether the bye may be granted; the first reason against it if not.
/// Asking again for a bye held is answered as such before the round's
/// pairing is looked at, so a player who checks learns they have it.
pub fn may_have_bye(ask: &ByeAsk<'_>) -> Result<(), ByeRefusal> {
    if ask.withdrawn {
        return Err(ByeRefusal::Withdrawn);
    }
    if !ask.started {
        return Err(ByeRefusal::NotStarted);
    }
    if ask.round < 1 || ask.round > ask.rounds {
        return Err(ByeRefusal::NoRound);
    }
    if ask.mine.contains(&ask.round) {
        return Err(ByeRefusal::Already);
    }
    if ask.paired >= ask.rounds {
        return Err(ByeRefusal::Finished);
    }
    if ask.round <= ask.paired {
        return Err(ByeRefusal::Paired {
            next: ask.paired + 1,
        });
    }
    if ask.max == 0 {
        return Err(ByeRefusal::NoneGiven);
    }
    if ask.mine.len() >= ask.max as usize {
        return Err(ByeRefusal::Limit);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(round: u32, paired: u32, mine: &[u32], max: u32) -> Result<(), ByeRefusal> {
        may_have_bye(&ByeAsk {
            round,
            rounds: 5,
            paired,
            started: true,
            withdrawn: false,
            mine,
            max,
        })
    }

    #[test]
    fn a_bye_for_a_round_not_yet_paired_is_granted_up_to_the_limit() {
        assert_eq!(ask(3, 1, &[], 2), Ok(()));
        assert_eq!(ask(3, 1, &[2], 2), Ok(()));
        assert_eq!(ask(4, 1, &[2, 3], 2), Err(ByeRefusal::Limit));
        assert_eq!(ask(4, 1, &[], 0), Err(ByeRefusal::NoneGiven));
    }

    #[test]
    fn a_paired_round_is_refused_naming_the_next_one() {
        assert_eq!(ask(2, 2, &[], 2), Err(ByeRefusal::Paired { next: 3 }));
        assert_eq!(ask(1, 2, &[], 2), Err(ByeRefusal::Paired { next: 3 }));
        assert_eq!(ask(5, 5, &[], 2), Err(ByeRefusal::Finished));
    }

    #[test]
    fn rounds_outside_the_event_and_byes_held_are_refused() {
        assert_eq!(ask(0, 1, &[], 2), Err(ByeRefusal::NoRound));
        assert_eq!(ask(6, 1, &[], 2), Err(ByeRefusal::NoRound));
        // Held already: said so, even once the round is paired.
        assert_eq!(ask(3, 1, &[3], 1), Err(ByeRefusal::Already));
        assert_eq!(ask(3, 3, &[3], 1), Err(ByeRefusal::Already));
    }

    #[test]
    fn a_withdrawn_player_and_an_event_not_started_get_none() {
        let mut a = ByeAsk {
            round: 3,
            rounds: 5,
            paired: 1,
            started: true,
            withdrawn: true,
            mine: &[],
            max: 2,
        };
        assert_eq!(may_have_bye(&a), Err(ByeRefusal::Withdrawn));
        a.withdrawn = false;
        a.started = false;
        assert_eq!(may_have_bye(&a), Err(ByeRefusal::NotStarted));
    }
}
