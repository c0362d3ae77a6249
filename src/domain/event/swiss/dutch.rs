//! The pairing procedure of C.04.3 Articles 3 and 4, bracket by bracket,
//! by maximum-weight matching as bbpPairings does it.
//!
//! One matching spans all players still to pair; its edge weights
//! ([`criteria`](super::criteria)) rank every criterion. Brackets are
//! paired from the top score down (1.9.2). For each bracket the weights of
//! its pairs and of the next bracket's pairs (\[C8\] looks one bracket ahead)
//! are set, and the decisions Article 3 takes in turn are taken in turn
//! here, each as "does some best matching do this?", asked by nudging the
//! weights by one unit below every criterion and matching again:
//!
//! 1. which moved-down players (MDPs) are paired in the bracket (the best
//!    set in the order of 4.4: higher-ranked MDPs first);
//! 2. the opponent of each paired MDP (S2 in order, 3.3 and 4.2);
//! 3. how many exchanges the remainder needs (3.6, 4.3: fewest first, the
//!    smallest difference of the exchanged numbers);
//! 4. which S1 players go to S2 (the lowest first) and which S2 players to
//!    S1 (the highest first);
//! 5. each S1 player's opponent, the highest in S2 that the best pairing
//!    allows (4.2: transpositions in order).
//!
//! A decided pair is fixed in the matching; the players left over float
//! down to the next bracket. The bye goes to whoever is left at the end.

use std::collections::{HashMap, HashSet};

use super::card::{self, Card};
use super::colour::colour_of;
use super::criteria::{Context, Layout};
use super::{Entry, Pairing, PairingError, Points, RoundPairing, Tournament};
use dopis_matching::Dense;
use dopis_matching::Wide;

/// Pairs `round` of `tournament` (see [`Tournament::pair`]).
pub fn pair(tournament: &Tournament, round: u32) -> Result<RoundPairing, PairingError> {
    if round == 0 {
        return Err(PairingError::WrongRound {
            asked: 0,
            why: "rounds are numbered from 1".into(),
        });
    }
    let paired = tournament.paired_rounds();
    if round <= paired {
        return Err(PairingError::WrongRound {
            asked: round,
            why: format!("it is paired already (the history has {paired} rounds paired)"),
        });
    }
    if round > paired + 1 {
        return Err(PairingError::WrongRound {
            asked: round,
            why: format!("round {} has not been paired yet", paired + 1),
        });
    }
    check_history(tournament, round)?;
    let mut cards = card::cards(tournament, round);
    cards.sort_by(|a, b| {
        b.pairing_score
            .cmp(&a.pairing_score)
            .then(a.rank.cmp(&b.rank))
    });
    let layout = Layout::new(&cards, round - 1);
    // Room for the matching: weights are doubled, duals are sums of them,
    // and the bracket procedure adds small numbers in the lowest field.
    let needed = layout.max_bits() + 8;
    let mates = match needed {
        0..=256 => Bracketing::<4>::new(tournament, round, &cards, &layout).run()?,
        257..=512 => Bracketing::<8>::new(tournament, round, &cards, &layout).run()?,
        513..=1024 => Bracketing::<16>::new(tournament, round, &cards, &layout).run()?,
        1025..=2048 => Bracketing::<32>::new(tournament, round, &cards, &layout).run()?,
        2049..=4096 => Bracketing::<64>::new(tournament, round, &cards, &layout).run()?,
        _ => return Err(PairingError::TooLarge(cards.len())),
    };
    let mut games = Vec::new();
    let mut bye = None;
    for (v, mate) in mates.iter().enumerate() {
        match *mate {
            None => bye = Some(cards[v].player),
            Some(m) if cards[v].player < cards[m].player => {
                let (a, b) = (&cards[v], &cards[m]);
                let pairing = match colour_of(a, b, tournament.initial_colour) {
                    super::Side::White => Pairing {
                        white: a.player,
                        black: b.player,
                    },
                    super::Side::Black => Pairing {
                        white: b.player,
                        black: a.player,
                    },
                };
                games.push(pairing);
            }
            Some(_) => {}
        }
    }
    let mut pairing = RoundPairing { round, games, bye };
    board_order(tournament, round, &mut pairing);
    Ok(pairing)
}

/// The earlier rounds must be over (every game with a result).
fn check_history(tournament: &Tournament, round: u32) -> Result<(), PairingError> {
    for (p, player) in tournament.players.iter().enumerate() {
        for (r, entry) in player.rounds.iter().enumerate().take(round as usize - 1) {
            if let Entry::Game {
                opponent,
                result: None,
                ..
            } = *entry
            {
                return Err(PairingError::Unfinished {
                    round: r as u32 + 1,
                    player: p + 1,
                    opponent: opponent + 1,
                });
            }
        }
    }
    Ok(())
}

/// Sorts the games by board (C.04.2, as bbpPairings orders them): the
/// higher score of the pair first, then the lower score, then the higher
/// player's pairing number.
pub fn board_order(tournament: &Tournament, round: u32, pairing: &mut RoundPairing) {
    let ranks = card::ranks(tournament, round);
    let score = |p: usize| tournament.score_after(p, round - 1);
    let rank = |p: usize| ranks.get(p).copied().flatten().unwrap_or(usize::MAX);
    let key = |g: &Pairing| {
        let (w, b) = (g.white, g.black);
        // The higher of the two by score, then pairing number.
        let w_below = (score(w), rank(b)) < (score(b), rank(w));
        let (hi, lo) = if w_below { (b, w) } else { (w, b) };
        (
            std::cmp::Reverse(score(hi)),
            std::cmp::Reverse(score(lo)),
            rank(hi),
        )
    };
    pairing.games.sort_by_key(key);
}

/// The state of one pairing: the players to pair in order (vertex `v` is
/// `cards[v]`) and the matching's weights.
struct Bracketing<'a, const L: usize>
where
    Wide<L>: Dense,
{
    cards: &'a [Card],
    context: Context<'a>,
    /// The weights, row-major, symmetric.
    weights: Vec<Wide<L>>,
    /// The largest weight an edge gets: a decided pair's.
    decided: Wide<L>,
    /// Each vertex's partner once its pair is decided.
    fixed: Vec<Option<usize>>,
    round: u32,
}

impl<'a, const L: usize> Bracketing<'a, L>
where
    Wide<L>: Dense,
{
    fn new(tournament: &Tournament, round: u32, cards: &'a [Card], layout: &'a Layout) -> Self {
        let played = round - 1;
        let best = tournament.points.win.max(tournament.points.draw);
        let n = cards.len();
        Bracketing {
            cards,
            context: Context {
                layout,
                forbidden: forbidden_pairs(tournament, round),
                last_round: round >= tournament.rounds,
                // 1.8: more than half the points possible so far.
                topscorer_above: Points::from_quarters(i64::from(played) * best.quarters() / 2),
                bye_score: Points::ZERO,
                single_bye_downfloater: false,
                unplayed_rank: HashMap::new(),
            },
            weights: vec![Wide::ZERO; n * n],
            decided: Wide::bit(layout.max_bits()).sub_u64(1),
            fixed: vec![None; n],
            round,
        }
    }

    fn n(&self) -> usize {
        self.cards.len()
    }

    fn set(&mut self, a: usize, b: usize, w: Wide<L>) {
        let n = self.n();
        self.weights[a * n + b] = w;
        self.weights[b * n + a] = w;
    }

    /// The best matching of the current weights: each vertex's mate, or
    /// itself when unmatched.
    fn compute(&self) -> Vec<usize> {
        let n = self.n();
        // A decided pair keeps its one edge in every best matching, so it
        // is left out and the matching runs on the players still open.
        let open: Vec<usize> = (0..n).filter(|&v| self.fixed[v].is_none()).collect();
        let mut dense = Vec::with_capacity(open.len() * open.len());
        for &i in &open {
            dense.extend(open.iter().map(|&j| self.weights[i * n + j]));
        }
        let inner = Wide::<L>::best_matching(open.len(), &dense);
        let mut mates: Vec<usize> = (0..n).map(|v| self.fixed[v].unwrap_or(v)).collect();
        for (i, m) in inner.into_iter().enumerate() {
            if let Some(j) = m {
                mates[open[i]] = open[j];
            }
        }
        mates
    }

    /// Fixes the pair `a`–`b`: the heaviest possible edge between them,
    /// none to anyone else.
    fn decide(&mut self, a: usize, b: usize) {
        for v in 0..self.n() {
            if v != a {
                self.set(a, v, if v == b { self.decided } else { Wide::ZERO });
            }
            if v != b {
                self.set(b, v, if v == a { self.decided } else { Wide::ZERO });
            }
        }
        self.fixed[a] = Some(b);
        self.fixed[b] = Some(a);
    }

    fn score(&self, v: usize) -> Points {
        self.cards[v].pairing_score
    }

    /// Pairs every player; returns each vertex's mate.
    fn run(mut self) -> Result<Vec<Option<usize>>, PairingError> {
        let n = self.n();
        if n == 0 {
            return Ok(Vec::new());
        }
        let top = self.score(0);
        let odd = n % 2 == 1;

        // [C4]: a complete pairing must exist at all. With an odd number
        // of players this also finds [C5]'s lowest score for the bye.
        for i in 0..n {
            for j in 0..i {
                let w = if odd {
                    self.context.completion(&self.cards[i], &self.cards[j], top)
                } else {
                    self.context
                        .edge(&self.cards[j], &self.cards[i], false, false)
                };
                self.set(i, j, w);
            }
        }
        let mates = self.compute();
        let unmatched: Vec<usize> = (0..n).filter(|&v| mates[v] == v).collect();
        if unmatched.len() > 1 || unmatched.iter().any(|&v| !self.cards[v].bye_eligible) {
            return Err(PairingError::Impossible { round: self.round });
        }
        if let Some(&v) = unmatched.first() {
            let bye_score = self.score(v);
            self.context.bye_score = bye_score;
            // [C9] applies in a bracket that downfloats exactly the one
            // player who will get the bye: here, when the bye's score is
            // the top one and the top group pairs among itself.
            self.context.single_bye_downfloater = bye_score >= top
                && (0..n)
                    .take_while(|&v| self.score(v) >= top)
                    .all(|v| self.score(mates[v]) >= top);
            let mut games: Vec<u32> = (0..n)
                .filter(|&v| self.score(v) == bye_score)
                .map(|v| self.cards[v].played_games)
                .collect();
            games.sort_unstable_by(|a, b| b.cmp(a));
            for (rank, g) in games.into_iter().enumerate() {
                self.context.unplayed_rank.insert(g, rank as u64);
            }
            for i in 0..n {
                for j in 0..i {
                    let w = self
                        .context
                        .edge(&self.cards[j], &self.cards[i], false, false);
                    self.set(i, j, w);
                }
            }
        }

        let mut mate_of: Vec<Option<usize>> = vec![None; n];
        let mut matched = vec![false; n];
        // The bracket: its MDPs, then its residents, then the next score
        // group's players (as vertices, in order).
        let mut bracket: Vec<usize> = (0..n).take_while(|&v| self.score(v) >= top).collect();
        let mut next = bracket.len();
        let mut mdps = 0;
        let mut group_start = 0;
        while bracket.len() > 1 || next < n {
            let residents_end = bracket.len();
            let next_start_vertex = group_start + (residents_end - mdps);
            let next_group = next;
            if next < n {
                let s = self.score(next);
                while next < n && self.score(next) >= s {
                    bracket.push(next);
                    next += 1;
                }
            }
            let mut base = self.base_weights(&bracket, mdps, residents_end);
            for l in mdps..bracket.len() {
                for s in 0..l {
                    self.set(bracket[l], bracket[s], base[l][s]);
                }
            }
            let mut mates = self.compute();
            let in_group = |m: usize| m >= group_start && m < next_start_vertex;

            // 1. Which MDPs are paired here ([C6], [C7], 4.4: the set of
            //    pairable MDPs, higher scores and pairing numbers first).
            let mut mdp_score = Points::ZERO;
            let mut left = 0;
            let mut left_matched = 0;
            for p in 0..mdps {
                if p == 0 || self.score(bracket[p]) < mdp_score {
                    mdp_score = self.score(bracket[p]);
                    left = 0;
                    left_matched = 0;
                    let mut q = p;
                    while q < bracket.len() && self.score(bracket[q]) >= mdp_score {
                        left += 1;
                        if in_group(mates[bracket[q]]) {
                            left_matched += 1;
                        }
                        q += 1;
                    }
                }
                if left_matched == 0 {
                    continue;
                }
                let pv = bracket[p];
                if left <= left_matched {
                    matched[pv] = true;
                    continue;
                }
                left -= 1;
                if !in_group(mates[pv]) {
                    for o in mdps..residents_end {
                        let w = base[o][p];
                        if !w.is_zero() {
                            self.set(pv, bracket[o], w.or(&Wide::from_u64(1)));
                        }
                    }
                    mates = self.compute();
                }
                if in_group(mates[pv]) {
                    matched[pv] = true;
                    left_matched -= 1;
                    let residents = (residents_end - mdps) as u64;
                    for o in mdps..residents_end {
                        let w = base[o][p];
                        if !w.is_zero() {
                            self.set(pv, bracket[o], w.or(&Wide::from_u64(residents)).add_u64(1));
                        }
                    }
                }
            }

            // 2. Each paired MDP's opponent: the highest resident the best
            //    pairing allows (S2 in order).
            for p in 0..mdps {
                let pv = bracket[p];
                if !matched[pv] {
                    continue;
                }
                let mut addend = bracket.len() as u64;
                for o in (mdps..residents_end).rev() {
                    let ov = bracket[o];
                    if matched[ov] {
                        continue;
                    }
                    let w = base[o][p];
                    if !w.is_zero() {
                        self.set(pv, ov, w.add_u64(addend));
                        addend += 1;
                    }
                }
                mates = self.compute();
                let mv = mates[pv];
                matched[mv] = true;
                self.decide(pv, mv);
            }

            // 3. The remainder: residents not paired with an MDP. S1 is its
            //    first `pairs` players, S2 the rest (3.2).
            let mut remainder = Vec::new();
            let mut pairs = 0;
            for (p, &pv) in bracket.iter().enumerate().take(residents_end).skip(mdps) {
                if mates[pv] < group_start {
                    continue;
                }
                remainder.push(p);
                if mates[pv] < pv {
                    pairs += 1;
                }
            }
            let group_bits = self.context.layout.group_bits;
            let with_order =
                |base: &Vec<Vec<Wide<L>>>, s: usize, l: usize, s_index: usize| -> Wide<L> {
                    let w = base[l][s];
                    if w.is_zero() {
                        return w;
                    }
                    // Fewest exchanges (S1 players paired downwards), then the
                    // smallest sum of the exchanged numbers (4.3).
                    let in_s1 = if s_index < pairs {
                        Wide::bit(2 * group_bits + 1)
                    } else {
                        Wide::ZERO
                    };
                    w.add(&in_s1).sub_u64(2 * s_index as u64)
                };
            for (j, &o) in remainder.iter().enumerate() {
                for (i, &p) in remainder.iter().enumerate().take(j) {
                    let w = with_order(&base, p, o, i);
                    self.set(bracket[p], bracket[o], w);
                }
            }
            mates = self.compute();
            let downwards =
                |mates: &[usize], v: usize| mates[v] > v && mates[v] < next_start_vertex;
            let exchanges = remainder
                .iter()
                .take(pairs)
                .filter(|&&p| !downwards(&mates, bracket[p]))
                .count();

            // 4a. Which S1 players move to S2: the lowest first.
            let mut to_move = exchanges;
            let mut index = pairs;
            let mut pos = pairs;
            while pos > 0 && to_move > 0 {
                pos -= 1;
                index -= 1;
                let p = remainder[pos];
                let pv = bracket[p];
                if downwards(&mates, pv) {
                    for &o in &remainder[pos + 1..] {
                        let w = with_order(&base, p, o, index);
                        if !w.is_zero() {
                            self.set(pv, bracket[o], w.sub_u64(1));
                        }
                    }
                    mates = self.compute();
                }
                let exchange = !downwards(&mates, pv);
                if exchange {
                    to_move -= 1;
                }
                for &o in &remainder[pos + 1..] {
                    if exchange {
                        base[o][p] = Wide::ZERO;
                    }
                    let w = with_order(&base, p, o, index);
                    self.set(pv, bracket[o], w);
                }
            }

            // 4b. Which S2 players move to S1: the highest first.
            let mut to_move = exchanges;
            // An S2 player's place in the remainder is its number there.
            for pos in pairs..remainder.len() {
                if to_move <= 1 {
                    break;
                }
                let p = remainder[pos];
                let pv = bracket[p];
                let already = downwards(&mates, pv);
                if !already {
                    for &o in &remainder[pos + 1..] {
                        let w = with_order(&base, p, o, pos);
                        if !w.is_zero() {
                            self.set(pv, bracket[o], w.add_u64(1));
                        }
                    }
                    mates = self.compute();
                }
                if downwards(&mates, pv) {
                    to_move -= 1;
                    for &o in &remainder[..pos] {
                        base[p][o] = Wide::ZERO;
                        self.set(pv, bracket[o], Wide::ZERO);
                    }
                    for o in residents_end..bracket.len() {
                        base[o][p] = Wide::ZERO;
                        self.set(pv, bracket[o], Wide::ZERO);
                    }
                }
                if !already {
                    for &o in &remainder[pos + 1..] {
                        let w = with_order(&base, p, o, pos);
                        self.set(pv, bracket[o], w);
                    }
                }
            }

            // The exchanges are decided: only S1 (players paired downwards)
            // may meet S2, and the order bits are cleared.
            for (i, &p) in remainder.iter().enumerate() {
                let pv = bracket[p];
                for &o in &remainder[i + 1..] {
                    let ov = bracket[o];
                    if !downwards(&mates, pv) || downwards(&mates, ov) {
                        base[o][p] = Wide::ZERO;
                    }
                    self.set(pv, ov, base[o][p]);
                }
            }

            // 5. Each S1 player's opponent: the highest in S2 the best
            //    pairing allows (transpositions in order, 4.2).
            for &p in &remainder {
                let pv = bracket[p];
                if !downwards(&mates, pv) {
                    continue;
                }
                let mut addend = 0u64;
                for &o in remainder.iter().rev() {
                    let ov = bracket[o];
                    if o <= p || matched[ov] {
                        continue;
                    }
                    let w = base[o][p];
                    if !w.is_zero() {
                        self.set(pv, ov, w.add_u64(addend));
                    }
                    addend += 1;
                }
                mates = self.compute();
                let mv = mates[pv];
                matched[pv] = true;
                matched[mv] = true;
                self.decide(pv, mv);
            }

            // The unpaired players float down into the next bracket.
            let mut moved = Vec::new();
            let mut new_mdps = 0;
            let mut single =
                odd && next_group < n && self.context.bye_score >= self.score(next_group);
            for (p, &pv) in bracket.iter().enumerate() {
                if p < residents_end && matched[pv] {
                    mate_of[pv] = Some(mates[pv]);
                    mate_of[mates[pv]] = Some(pv);
                } else {
                    moved.push(pv);
                    if p < residents_end {
                        new_mdps += 1;
                    }
                    if single && next_group < n && self.score(mates[pv]) < self.score(next_group) {
                        single = false;
                    }
                }
            }
            self.context.single_bye_downfloater = single;
            bracket = moved;
            mdps = new_mdps;
            group_start = next_start_vertex;
        }
        Ok(mate_of)
    }

    /// The weights of the bracket's pairs and the next bracket's, indexed
    /// `[later][earlier]` by place in `bracket`.
    fn base_weights(
        &self,
        bracket: &[usize],
        mdps: usize,
        residents_end: usize,
    ) -> Vec<Vec<Wide<L>>> {
        (0..bracket.len())
            .map(|l| {
                if l < mdps {
                    return Vec::new();
                }
                (0..l)
                    .map(|s| {
                        self.context.edge(
                            &self.cards[bracket[s]],
                            &self.cards[bracket[l]],
                            l < residents_end,
                            l >= residents_end,
                        )
                    })
                    .collect()
            })
            .collect()
    }
}

/// The pairs who may not meet in `round`: those who played each other
/// before (\[C1\]; a forfeit is no game, C.04.1 Article 2) and the
/// tournament's forbidden groups.
fn forbidden_pairs(tournament: &Tournament, round: u32) -> HashSet<(usize, usize)> {
    let mut set = HashSet::new();
    for (p, player) in tournament.players.iter().enumerate() {
        for entry in player.rounds.iter().take(round as usize - 1) {
            if let Entry::Game {
                opponent,
                played: true,
                ..
            } = *entry
            {
                set.insert((p.min(opponent), p.max(opponent)));
            }
        }
    }
    for group in &tournament.forbidden {
        for (i, &a) in group.iter().enumerate() {
            for &b in &group[i + 1..] {
                if a != b {
                    set.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::super::trf;
    use super::*;

    fn tournament(lines: &[&str]) -> Tournament {
        let text = lines.join("\n");
        trf::parse(&text)
            .unwrap_or_else(|e| panic!("{e}"))
            .tournament
    }

    /// A player line: number, points, then the rounds' cells.
    fn line(id: usize, points: &str, rounds: &[&str]) -> String {
        // The columns of TRF16: number 5-8, name 15-47, rating 49-52,
        // points 81-84, rank 86-89, rounds from 92.
        let mut l = format!(
            "001 {id:>4} {:1}{:>3} {:<33} {:>4} {:<3} {:>11} {:<10} {points:>4} {id:>4}",
            "",
            "",
            format!("Player {id}"),
            2800 - id * 10,
            "",
            "",
            ""
        );
        for r in rounds {
            l.push_str("  ");
            l.push_str(r);
        }
        l
    }

    fn games(p: &RoundPairing) -> Vec<(usize, usize)> {
        p.games.iter().map(|g| (g.white + 1, g.black + 1)).collect()
    }

    #[test]
    fn round_one_pairs_the_top_half_against_the_bottom_half_alternating_colours() {
        let mut lines = vec![
            "012 t".to_string(),
            "XXR 5".to_string(),
            "XXC white1".to_string(),
        ];
        lines.extend((1..=8).map(|i| line(i, "0.0", &[])));
        let t = tournament(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        let p = t.pair(1).expect("pairs");
        assert_eq!(games(&p), vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
        assert_eq!(p.bye, None);
    }

    #[test]
    fn the_bye_goes_to_the_lowest_score_possible_c5() {
        // Six players, player 4 absent in round 3: of the five to pair the
        // bye goes to player 6 on 0 points ([C5]), not to a player on 1.
        let rows = [
            line(1, "2.0", &["   4 w 1", "   2 b 1"]),
            line(2, "1.0", &["   5 b 1", "   1 w 0"]),
            line(3, "2.0", &["   6 w 1", "   4 b 1"]),
            line(4, "0.0", &["   1 b 0", "   3 w 0", "0000 - Z"]),
            line(5, "1.0", &["   2 w 0", "   6 b 1"]),
            line(6, "0.0", &["   3 b 0", "   5 w 0"]),
        ];
        let mut lines = vec!["012 t", "XXR 3"];
        lines.extend(rows.iter().map(String::as_str));
        let p = tournament(&lines).pair(3).expect("pairs");
        assert_eq!(games(&p), vec![(1, 5), (3, 2)]);
        assert_eq!(p.bye, Some(5));
    }

    #[test]
    fn the_bye_goes_to_a_player_who_played_most_c9() {
        // Player 5 was absent in round 1: among the three on 0 points the
        // bye goes to one who played, not to 5 ([C9]).
        let rows = [
            line(1, "1.0", &["   3 w 1"]),
            line(2, "1.0", &["   4 b 1"]),
            line(3, "0.0", &["   1 b 0"]),
            line(4, "0.0", &["   2 w 0"]),
            line(5, "0.0", &["0000 - Z"]),
        ];
        let mut lines = vec!["012 t", "XXR 3"];
        lines.extend(rows.iter().map(String::as_str));
        let p = tournament(&lines).pair(2).expect("pairs");
        assert_eq!(games(&p), vec![(2, 1), (3, 5)]);
        assert_eq!(p.bye, Some(3));
    }

    #[test]
    fn a_round_is_paired_only_after_the_one_before_and_with_every_result() {
        let rows = [line(1, "0.0", &["   2 w  "]), line(2, "0.0", &["   1 b  "])];
        let mut lines = vec!["012 t", "XXR 3"];
        lines.extend(rows.iter().map(String::as_str));
        let t = tournament(&lines);
        assert!(matches!(
            t.pair(1),
            Err(PairingError::WrongRound { asked: 1, .. })
        ));
        assert!(matches!(
            t.pair(3),
            Err(PairingError::WrongRound { asked: 3, .. })
        ));
        let err = t.pair(2).unwrap_err();
        assert_eq!(
            err,
            PairingError::Unfinished {
                round: 1,
                player: 1,
                opponent: 2
            }
        );
        assert!(err.to_string().contains("no result yet"), "{err}");
    }

    #[test]
    fn two_players_who_met_cannot_be_paired_again() {
        let rows = [line(1, "1.0", &["   2 w 1"]), line(2, "0.0", &["   1 b 0"])];
        let mut lines = vec!["012 t", "XXR 3"];
        lines.extend(rows.iter().map(String::as_str));
        let err = tournament(&lines).pair(2).unwrap_err();
        assert_eq!(err, PairingError::Impossible { round: 2 });
        assert!(err.to_string().contains("arbiter must decide"), "{err}");
    }
}
