//! The pairing criteria of C.04.3 Article 2 as the weight of an edge
//! between two players: one field per criterion, the most important
//! highest, so that the heaviest matching of a bracket is the pairing the
//! criteria prefer, compared criterion by criterion. The fields and their
//! order are those of bbpPairings, the FIDE-endorsed program whose pairings
//! dopis reproduces:
//!
//! | field (high to low) | criterion |
//! |---|---|
//! | 0 if the players may not meet | \[C1\] no second game, \[C3\] no two players with the same absolute colour preference (topscorers excepted in the last round) |
//! | 1, plus 1 for each player who may not get the bye | \[C4\] a complete pairing exists, \[C2\] the bye goes to a player who may have it, \[C5\] (with the bye assignee's score fixed beforehand) |
//! | the pair is in the bracket | \[C6\] as few downfloaters as possible |
//! | the higher player's score, by score group | \[C7\] downfloaters' scores as low as possible |
//! | the pair is in the next bracket, and its score | \[C8\] the next bracket pairs as well as it can |
//! | the bye candidates' unplayed games | \[C9\] the bye assignee played as many games as possible |
//! | four colour fields | \[C10\]–\[C13\] colour differences beyond ±2, three same colours, preferences, strong preferences |
//! | repeated floats, one and two rounds back | \[C14\]–\[C17\] |
//! | scores of repeated floaters | \[C18\]–\[C21\] |
//! | room at the bottom | the order in which Article 4 generates candidates |

use std::collections::{HashMap, HashSet};

use super::card::{Card, Float};
use super::colour::compatible as preferences_compatible;
use super::{Points, Side};
use dopis_matching::Wide;

/// The number of bits needed to write `x`.
pub fn bits(x: usize) -> u32 {
    usize::BITS - x.leading_zeros()
}

/// The widths of the fields, fixed for the whole round.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Bits for a count of players of one score group (`sgsb`).
    pub group_bits: u32,
    /// Bits for the by-score-group fields: one sub-field per score.
    pub scores_bits: u32,
    /// Where each pairing score's sub-field starts (lowest score at 0).
    pub shift: HashMap<Points, u32>,
    /// Rounds played before this one.
    pub played: u32,
}

impl Layout {
    /// The layout for the players to pair (cards sorted by pairing score,
    /// highest first).
    pub fn new(sorted: &[Card], played: u32) -> Layout {
        let mut shift = HashMap::new();
        let mut scores_bits = 0;
        let mut largest = 0;
        let mut i = sorted.len();
        while i > 0 {
            let score = sorted[i - 1].pairing_score;
            let mut j = i;
            while j > 0 && sorted[j - 1].pairing_score == score {
                j -= 1;
            }
            let size = i - j;
            shift.insert(score, scores_bits);
            scores_bits += bits(size);
            largest = largest.max(size);
            i = j;
        }
        Layout {
            group_bits: bits(largest.max(1)),
            scores_bits,
            shift,
            played,
        }
    }

    /// The bits below the top field.
    pub fn low_bits(&self) -> u32 {
        let (g, s) = (self.group_bits, self.scores_bits);
        let mut total = g + s + g + s + 2 * g + 4 * g;
        if self.played > 0 {
            total += 2 * g + 2 * s;
        }
        if self.played > 1 {
            total += 2 * g + 2 * s;
        }
        total + 3 * g + 1
    }

    /// The largest weight an edge can have: all ones over the top field's
    /// two bits and every field below.
    pub fn max_bits(&self) -> u32 {
        self.low_bits() + 2
    }

    fn score_bit<const L: usize>(&self, score: Points) -> Wide<L> {
        Wide::bit(self.shift.get(&score).copied().unwrap_or(0))
    }
}

/// What the weights of a round share.
pub struct Context<'a> {
    /// The field widths.
    pub layout: &'a Layout,
    /// Pairs who may not meet (\[C1\], and the tournament's forbidden pairs).
    pub forbidden: HashSet<(usize, usize)>,
    /// Whether this is the last round (topscorers, 1.8).
    pub last_round: bool,
    /// A score above this makes a topscorer (1.8: more than half the
    /// points possible so far).
    pub topscorer_above: Points,
    /// The score the bye's assignee will have (\[C5\], found beforehand).
    pub bye_score: Points,
    /// Whether \[C9\] applies in this bracket: its only downfloater will get
    /// the bye.
    pub single_bye_downfloater: bool,
    /// For \[C9\]: among the players on the bye score, a rank growing as
    /// their number of games played falls.
    pub unplayed_rank: HashMap<u32, u64>,
}

impl Context<'_> {
    /// \[C1\] and \[C3\] (C.04.1 Articles 2, 6 and 7): whether the two may
    /// meet at all. Topscorers (and their opponents) may meet in the last
    /// round despite the same absolute colour preference.
    pub fn may_meet(&self, a: &Card, b: &Card) -> bool {
        let key = (a.player.min(b.player), a.player.max(b.player));
        if self.forbidden.contains(&key) {
            return false;
        }
        !a.absolute()
            || !b.absolute()
            || a.preference != b.preference
            || (self.last_round
                && (a.pairing_score > self.topscorer_above
                    || b.pairing_score > self.topscorer_above))
    }

    fn bye_candidate(&self, c: &Card) -> bool {
        c.bye_eligible && c.pairing_score <= self.bye_score
    }

    /// The weight of the edge between `higher` (earlier in the order) and
    /// `lower`, where `lower` is resident of the bracket being paired
    /// (`in_bracket`) or of the next one (`in_next`).
    pub fn edge<const L: usize>(
        &self,
        higher: &Card,
        lower: &Card,
        in_bracket: bool,
        in_next: bool,
    ) -> Wide<L> {
        if !self.may_meet(higher, lower) {
            return Wide::ZERO;
        }
        let lay = self.layout;
        let (g, s) = (lay.group_bits, lay.scores_bits);
        let mut w = Fields::<L>::default();
        // [C4], [C2], [C5]: every pair counts, and more if it keeps a
        // player who may not have the bye (or whose score is above the bye
        // score) away from it.
        w.push(
            2,
            1 + u64::from(!self.bye_candidate(higher)) + u64::from(!self.bye_candidate(lower)),
        );
        // [C6], [C7]: pairs in this bracket, and their scores.
        w.push(g, u64::from(in_bracket));
        w.push_wide(
            s,
            if in_bracket {
                lay.score_bit(higher.pairing_score)
            } else {
                Wide::ZERO
            },
        );
        // [C8]: the same in the next bracket.
        w.push(g, u64::from(in_next));
        w.push_wide(
            s,
            if in_next {
                lay.score_bit(higher.pairing_score)
            } else {
                Wide::ZERO
            },
        );
        // [C9]: pairing players with fewer games keeps the bye for one
        // with more.
        let mut unplayed = 0;
        if self.single_bye_downfloater {
            for c in [higher, lower] {
                if c.pairing_score == self.bye_score {
                    unplayed += self
                        .unplayed_rank
                        .get(&c.played_games)
                        .copied()
                        .unwrap_or(0);
                }
            }
        }
        w.push(2 * g, unplayed);
        self.colour_fields(&mut w, lower, higher, in_bracket);
        let p = lay.played;
        let down = |c: &Card, back| c.float(back) == Float::Down;
        let up = |c: &Card, back| c.float(back) == Float::Up;
        let above = higher.pairing_score > lower.pairing_score;
        for back in [1, 2] {
            if p < back as u32 {
                continue;
            }
            // [C14]/[C16]: players who downfloated before and do not
            // downfloat again.
            w.push(
                g,
                if in_bracket {
                    u64::from(down(lower, back)) + u64::from(!above && down(higher, back))
                } else {
                    0
                },
            );
            // [C15]/[C17]: an MDP's opponent who upfloated before.
            w.push(g, u64::from(in_bracket && !(above && up(lower, back))));
        }
        for back in [1, 2] {
            if p < back as u32 {
                continue;
            }
            // [C18]/[C20]: the scores of players who downfloated before.
            let mut v = Wide::ZERO;
            if in_bracket {
                if down(lower, back) {
                    v = v.add(&lay.score_bit(lower.pairing_score));
                }
                if down(higher, back) {
                    v = v.add(&lay.score_bit(higher.pairing_score));
                }
            }
            w.push_wide(s, v);
            // [C19]/[C21]: the scores of MDPs whose opponent upfloated before.
            w.push_wide(
                s,
                if in_bracket && !(up(lower, back) && above) {
                    lay.score_bit(higher.pairing_score)
                } else {
                    Wide::ZERO
                },
            );
        }
        // Room for Article 4's order of candidates (exchanges in S1 and
        // S2, and which players move), filled in by the bracket procedure.
        w.push(3 * g + 1, 0);
        w.0
    }

    /// \[C10\]–\[C13\], counted only for pairs inside the bracket. `p` is the
    /// lower player, `o` the higher.
    fn colour_fields<const L: usize>(
        &self,
        w: &mut Fields<L>,
        p: &Card,
        o: &Card,
        in_bracket: bool,
    ) {
        let g = self.layout.group_bits;
        let same = p.preference == o.preference;
        // [C10]: no colour difference beyond ±2 (only topscorers can meet
        // so in the last round).
        w.push(
            g,
            u64::from(in_bracket && !(p.absolute_imbalance() && o.absolute_imbalance() && same)),
        );
        // [C11]: no one gets the same colour three times in a row.
        let no_third = !p.absolute()
            || !o.absolute()
            || !same
            || if p.imbalance == o.imbalance {
                p.repeated.is_none() || p.repeated != o.repeated
            } else {
                let yielding = if p.imbalance > o.imbalance { o } else { p };
                yielding.repeated != p.preference.map(Side::opposite)
            };
        w.push(g, u64::from(in_bracket && no_third));
        // [C12]: both get their colour preference.
        w.push(
            g,
            u64::from(in_bracket && preferences_compatible(p.preference, o.preference)),
        );
        // [C13]: both get their strong preference.
        let strong_kept = (!p.strong && !p.absolute())
            || (!o.strong && !o.absolute())
            || (p.absolute() && o.absolute())
            || !same;
        w.push(g, u64::from(in_bracket && strong_kept));
    }

    /// The weight used to check that a complete pairing exists (\[C4\]) and
    /// to find the bye assignee's lowest possible score (\[C5\]) when the
    /// number of players is odd: every pair counts, the bye must go to a
    /// player who may have it, and the unpaired player's score group must
    /// be as low as possible.
    pub fn completion<const L: usize>(&self, lower: &Card, higher: &Card, top: Points) -> Wide<L> {
        if !self.may_meet(lower, higher) {
            return Wide::ZERO;
        }
        let lay = self.layout;
        let mut w = Fields::<L>::default();
        w.push(
            2,
            1 + u64::from(!lower.bye_eligible) + u64::from(!higher.bye_eligible),
        );
        let shifts = u64::from(lay.shift.get(&lower.pairing_score).copied().unwrap_or(0))
            + u64::from(lay.shift.get(&higher.pairing_score).copied().unwrap_or(0));
        w.push(lay.scores_bits, shifts);
        w.push(lay.group_bits, u64::from(lower.pairing_score >= top));
        w.0
    }
}

/// A weight built field by field, the most important first.
#[derive(Default)]
struct Fields<const L: usize>(Wide<L>);

impl<const L: usize> Fields<L> {
    /// Makes room for a field of `width` bits and writes `value` into it.
    fn push(&mut self, width: u32, value: u64) {
        self.0 = self.0.shl(width).add_u64(value);
    }

    fn push_wide(&mut self, width: u32, value: Wide<L>) {
        self.0 = self.0.shl(width).add(&value);
    }
}
