//! Who plays White: C.04.3 Article 5, "Colour Allocation Rules".

use super::Side;
use super::card::Card;

/// Whether `a` ranks below `b` in the order of 1.2 (pairing score, then
/// pairing number).
pub fn ranks_below(a: &Card, b: &Card) -> bool {
    (a.pairing_score, b.rank) < (b.pairing_score, a.rank)
}

/// Whether two colour preferences can both be granted.
pub fn compatible(a: Option<Side>, b: Option<Side>) -> bool {
    a.is_none() || b.is_none() || a != b
}

/// The colour `a` gets against `b` (5.2), `initial` being the colour
/// drawn for the first round (5.1).
pub fn colour_of(a: &Card, b: &Card, initial: Side) -> Side {
    if let Some(colour) = by_preferences(a, b) {
        return colour;
    }
    let (higher, a_is_higher) = if ranks_below(a, b) {
        (b, false)
    } else {
        (a, true)
    };
    // 5.2.4: the higher ranked player's preference; 5.2.5: if none, an
    // odd pairing number (rank 0, 2, …) gets the initial colour.
    let higher_gets = higher.preference.unwrap_or(if higher.rank % 2 == 0 {
        initial
    } else {
        initial.opposite()
    });
    if a_is_higher {
        higher_gets
    } else {
        higher_gets.opposite()
    }
}

/// 5.2.1 to 5.2.3: the colour of `a` when the preferences or the
/// histories decide it.
fn by_preferences(a: &Card, b: &Card) -> Option<Side> {
    // 5.2.1: grant both preferences.
    if compatible(a.preference, b.preference) {
        return a.preference.or(b.preference.map(Side::opposite));
    }
    // Both prefer the same colour. 5.2.2: the stronger preference (both
    // absolute, as only topscorers may be: the wider colour difference).
    if a.absolute() && (a.imbalance > b.imbalance || !b.absolute()) {
        return a.preference;
    }
    if b.absolute() && (b.imbalance > a.imbalance || !a.absolute()) {
        return b.preference.map(Side::opposite);
    }
    if a.strong && !b.strong {
        return a.preference;
    }
    if b.strong && !a.strong {
        return b.preference.map(Side::opposite);
    }
    // 5.2.3: alternate to the latest round in which they had different
    // colours (unplayed rounds skipped, C.04.2 3.4).
    a.colours
        .iter()
        .rev()
        .zip(b.colours.iter().rev())
        .find(|(x, y)| x != y)
        .map(|(_, &theirs)| theirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::event::Points;
    use crate::domain::event::swiss::card::Float;

    fn card(rank: usize, colours: &[Side]) -> Card {
        let whites = colours.iter().filter(|&&c| c == Side::White).count() as i64;
        let blacks = colours.len() as i64 - whites;
        let imbalance = (whites - blacks).unsigned_abs() as u32;
        let fewer = if whites > blacks {
            Side::Black
        } else {
            Side::White
        };
        let last = colours.last().copied();
        let streak = last.map_or(0, |c| colours.iter().rev().take_while(|&&x| x == c).count());
        Card {
            player: rank,
            rank,
            score: Points::ZERO,
            pairing_score: Points::ZERO,
            colours: colours.to_vec(),
            imbalance,
            preference: if imbalance > 1 || (imbalance == 1 && streak < 2) {
                Some(fewer)
            } else {
                last.map(Side::opposite)
            },
            repeated: (streak > 1).then_some(last).flatten(),
            strong: imbalance == 1 && streak < 2,
            played_games: colours.len() as u32,
            bye_eligible: true,
            floats: [Float::None; 2],
        }
    }

    use Side::{Black as B, White as W};

    #[test]
    fn both_preferences_are_granted_when_they_differ() {
        let (a, b) = (card(0, &[W]), card(1, &[B]));
        assert_eq!(colour_of(&a, &b, W), B);
        assert_eq!(colour_of(&b, &a, W), W);
    }

    #[test]
    fn the_stronger_preference_wins_then_the_history_alternates() {
        // a: W B W (strong: black), b: B W (mild: black) -> a gets black.
        let (a, b) = (card(1, &[W, B, W]), card(0, &[B, W]));
        assert_eq!(colour_of(&a, &b, W), B);
        // Both mild for White: the last round they differed, a had Black
        // and b White, so a now gets White.
        let (a, b) = (card(0, &[W, B, W, B]), card(1, &[B, W, W, B]));
        assert_eq!((a.preference, b.preference), (Some(W), Some(W)));
        assert_eq!(colour_of(&a, &b, W), W);
        assert_eq!(colour_of(&b, &a, W), B);
    }

    #[test]
    fn without_preferences_the_higher_ranked_odd_number_gets_the_initial_colour() {
        let (a, b) = (card(0, &[]), card(5, &[]));
        assert_eq!(colour_of(&a, &b, W), W);
        assert_eq!(colour_of(&b, &a, W), B);
        let (a, b) = (card(3, &[]), card(5, &[]));
        assert_eq!(colour_of(&a, &b, W), B);
        assert_eq!(colour_of(&a, &b, B), W);
    }
}
