//! Maximum-weight matching on a general graph: Edmonds' blossom algorithm
//! in the primal-dual form of Galil, Micali and Gabow (O(n³)), the form
//! Joris van Rantwijk describes in "Maximum Weighted Matching" (2008) and
//! NetworkX's `max_weight_matching` follows.
//!
//! Why written here rather than taken from a crate: the weights are
//! integers of several hundred bits ([`Wide`](crate::wide::Wide)), which
//! none of the Rust crates for general weighted matching accept
//! (`mwmatching` takes `i32`, `integer-blossom` up to `i128`; `petgraph`
//! and `pathfinding` only match by cardinality or on bipartite graphs). The
//! tests below check it against every matching of small random graphs.
//!
//! dopis's pairing uses it as bbpPairings does: it asks for the best matching,
//! then reads from it only facts every best matching shares (how many
//! pairs, whether some best matching pairs a given player), so the answer
//! does not hang on which of several equally good matchings this
//! implementation happens to return.

/// What the algorithm needs of a weight: exact, non-negative integers.
pub trait Weight: Copy + Ord {
    /// Zero.
    const ZERO: Self;
    /// `self + other` (never overflows in use: the caller leaves headroom).
    fn plus(&self, other: &Self) -> Self;
    /// `self - other`, for `other <= self`.
    fn minus(&self, other: &Self) -> Self;
    /// `self / 2`, rounding down.
    fn halved(&self) -> Self;
}

impl<const L: usize> Weight for crate::wide::Wide<L> {
    const ZERO: Self = crate::wide::Wide::ZERO;
    fn plus(&self, other: &Self) -> Self {
        self.add(other)
    }
    fn minus(&self, other: &Self) -> Self {
        self.sub(other)
    }
    fn halved(&self) -> Self {
        self.half()
    }
}

impl Weight for u64 {
    const ZERO: Self = 0;
    fn plus(&self, other: &Self) -> Self {
        self + other
    }
    fn minus(&self, other: &Self) -> Self {
        self - other
    }
    fn halved(&self) -> Self {
        self / 2
    }
}

/// The best matching of a dense, symmetric weight matrix (row-major,
/// `n × n`; only `i < j` is read): each vertex's mate. Implemented here for
/// each width the pairing uses, so that the matching is compiled in this
/// crate, optimised, rather than in the caller's.
pub trait Dense: Sized {
    /// See [`max_weight_matching`].
    fn best_matching(n: usize, weights: &[Self]) -> Vec<Option<usize>>;
}

macro_rules! dense {
    ($($limbs:literal),*) => {$(
        impl Dense for crate::wide::Wide<$limbs> {
            fn best_matching(n: usize, weights: &[Self]) -> Vec<Option<usize>> {
                max_weight_matching(n, |i, j| weights[i * n + j])
            }
        }
    )*};
}

dense!(2, 4, 8, 16, 32, 64);

const NONE: usize = usize::MAX;

/// Labels of the alternating forest.
const FREE: u8 = 0;
const OUTER: u8 = 1;
const INNER: u8 = 2;
/// Marks a blossom while looking for a common base.
const BREADCRUMB: u8 = 4;

/// The best matching of `n` vertices where `weight(i, j)` (asked for
/// `i < j` only) is the weight of the edge between them and zero means no
/// edge: no zero-weight pair is ever matched. Returns each vertex's mate.
pub fn max_weight_matching<W: Weight>(
    n: usize,
    weight: impl Fn(usize, usize) -> W,
) -> Vec<Option<usize>> {
    let mut edges = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let w = weight(i, j);
            if w != W::ZERO {
                // Doubled, so that every dual variable stays an integer.
                edges.push((i, j, w.plus(&w)));
            }
        }
    }
    let mut solver = Solver::new(n, edges);
    solver.solve();
    (0..n)
        .map(|v| match solver.mate[v] {
            NONE => None,
            p => Some(solver.endpoint[p]),
        })
        .collect()
}

/// The state of one run (names as in van Rantwijk's description: an edge
/// `k` has the endpoints `2k` and `2k + 1`; blossoms are numbered from `n`).
struct Solver<W> {
    n: usize,
    edges: Vec<(usize, usize, W)>,
    endpoint: Vec<usize>,
    neighbend: Vec<Vec<usize>>,
    mate: Vec<usize>,
    label: Vec<u8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<W>,
    allowedge: Vec<bool>,
    queue: Vec<usize>,
}

impl<W: Weight> Solver<W> {
    fn new(n: usize, edges: Vec<(usize, usize, W)>) -> Self {
        let maxweight = edges.iter().map(|e| e.2).max().unwrap_or(W::ZERO);
        let mut endpoint = Vec::with_capacity(2 * edges.len());
        let mut neighbend = vec![Vec::new(); n];
        for (k, &(i, j, _)) in edges.iter().enumerate() {
            endpoint.push(i);
            endpoint.push(j);
            neighbend[i].push(2 * k + 1);
            neighbend[j].push(2 * k);
        }
        let mut blossombase: Vec<usize> = (0..n).collect();
        blossombase.resize(2 * n, NONE);
        let mut dualvar = vec![maxweight; n];
        dualvar.resize(2 * n, W::ZERO);
        let m = edges.len();
        Solver {
            n,
            edges,
            endpoint,
            neighbend,
            mate: vec![NONE; n],
            label: vec![FREE; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase,
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).rev().collect(),
            dualvar,
            allowedge: vec![false; m],
            queue: Vec::new(),
        }
    }

    /// The slack of edge `k` (never negative while the duals are feasible).
    fn slack(&self, k: usize) -> W {
        let (i, j, w) = self.edges[k];
        self.dualvar[i].plus(&self.dualvar[j]).minus(&w.plus(&w))
    }

    /// The vertices inside blossom `b`.
    fn leaves(&self, b: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack = vec![b];
        while let Some(t) = stack.pop() {
            if t < self.n {
                out.push(t);
            } else {
                // Reversed so the leaves come out in the children's order.
                stack.extend(self.blossomchilds[t].iter().rev());
            }
        }
        out
    }

    fn assign_label(&mut self, w: usize, t: u8, p: usize) {
        let b = self.inblossom[w];
        self.label[w] = t;
        self.label[b] = t;
        self.labelend[w] = p;
        self.labelend[b] = p;
        self.bestedge[w] = NONE;
        self.bestedge[b] = NONE;
        if t == OUTER {
            let leaves = self.leaves(b);
            self.queue.extend(leaves);
        } else if t == INNER {
            let base = self.blossombase[b];
            let mp = self.mate[base];
            self.assign_label(self.endpoint[mp], OUTER, mp ^ 1);
        }
    }

    /// Walks up from `v` and `w` to find a new blossom's base, or `NONE`
    /// when they sit in different trees (an augmenting path).
    fn scan_blossom(&mut self, mut v: usize, mut w: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        while v != NONE || w != NONE {
            let mut b = self.inblossom[v];
            if self.label[b] & BREADCRUMB != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = OUTER | BREADCRUMB;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                v = self.endpoint[self.labelend[b]];
                b = self.inblossom[v];
                v = self.endpoint[self.labelend[b]];
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = OUTER;
        }
        base
    }

    fn add_blossom(&mut self, base: usize, k: usize) {
        let (mut v, mut w, _) = self.edges[k];
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let b = self.unusedblossoms.pop().unwrap_or(NONE);
        self.blossombase[b] = base;
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = b;
            path.push(bv);
            endps.push(self.labelend[bv]);
            v = self.endpoint[self.labelend[bv]];
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = b;
            path.push(bw);
            endps.push(self.labelend[bw] ^ 1);
            w = self.endpoint[self.labelend[bw]];
            bw = self.inblossom[w];
        }
        self.label[b] = OUTER;
        self.labelend[b] = self.labelend[bb];
        self.dualvar[b] = W::ZERO;
        for leaf in self.leaves_of(&path) {
            if self.label[self.inblossom[leaf]] == INNER {
                self.queue.push(leaf);
            }
            self.inblossom[leaf] = b;
        }
        let mut bestedgeto = vec![NONE; 2 * self.n];
        for &sub in &path {
            let lists: Vec<Vec<usize>> = match self.blossombestedges[sub].take() {
                Some(list) => vec![list],
                None => self
                    .leaves(sub)
                    .into_iter()
                    .map(|leaf| self.neighbend[leaf].iter().map(|p| p / 2).collect())
                    .collect(),
            };
            for list in lists {
                for k in list {
                    let (i, j, _) = self.edges[k];
                    // The end outside the new blossom.
                    let j = if self.inblossom[j] == b { i } else { j };
                    let bj = self.inblossom[j];
                    if bj != b
                        && self.label[bj] == OUTER
                        && (bestedgeto[bj] == NONE || self.slack(k) < self.slack(bestedgeto[bj]))
                    {
                        bestedgeto[bj] = k;
                    }
                }
            }
            self.bestedge[sub] = NONE;
        }
        let best: Vec<usize> = bestedgeto.into_iter().filter(|&k| k != NONE).collect();
        let mut bestedge = NONE;
        for &k in &best {
            if bestedge == NONE || self.slack(k) < self.slack(bestedge) {
                bestedge = k;
            }
        }
        self.bestedge[b] = bestedge;
        self.blossombestedges[b] = Some(best);
        self.blossomchilds[b] = path;
        self.blossomendps[b] = endps;
    }

    fn leaves_of(&self, subs: &[usize]) -> Vec<usize> {
        subs.iter().flat_map(|&s| self.leaves(s)).collect()
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.blossomparent[s] = NONE;
            if s < self.n {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s] == W::ZERO {
                self.expand_blossom(s, endstage);
            } else {
                for leaf in self.leaves(s) {
                    self.inblossom[leaf] = s;
                }
            }
        }
        if !endstage && self.label[b] == INNER {
            let len = childs.len() as isize;
            let at = |j: isize| childs[j.rem_euclid(len) as usize];
            let endps = self.blossomendps[b].clone();
            let endp = |j: isize| endps[j.rem_euclid(len) as usize];
            let entrychild = self.inblossom[self.endpoint[self.labelend[b] ^ 1]];
            let mut j = childs.iter().position(|&c| c == entrychild).unwrap_or(0) as isize;
            let (jstep, endptrick) = if j & 1 == 1 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let mut p = self.labelend[b];
            while j != 0 {
                self.label[self.endpoint[p ^ 1]] = FREE;
                self.label[self.endpoint[endp(j - endptrick) ^ endptrick as usize ^ 1]] = FREE;
                self.assign_label(self.endpoint[p ^ 1], INNER, p);
                self.allowedge[endp(j - endptrick) / 2] = true;
                j += jstep;
                p = endp(j - endptrick) ^ endptrick as usize;
                self.allowedge[p / 2] = true;
                j += jstep;
            }
            let bv = at(j);
            self.label[self.endpoint[p ^ 1]] = INNER;
            self.label[bv] = INNER;
            self.labelend[self.endpoint[p ^ 1]] = p;
            self.labelend[bv] = p;
            self.bestedge[bv] = NONE;
            j += jstep;
            while at(j) != entrychild {
                let bv = at(j);
                if self.label[bv] == OUTER {
                    j += jstep;
                    continue;
                }
                let labelled = self.leaves(bv).into_iter().find(|&v| self.label[v] != FREE);
                if let Some(v) = labelled {
                    self.label[v] = FREE;
                    let base_mate = self.mate[self.blossombase[bv]];
                    self.label[self.endpoint[base_mate]] = FREE;
                    self.assign_label(v, INNER, self.labelend[v]);
                }
                j += jstep;
            }
        }
        self.label[b] = FREE;
        self.labelend[b] = NONE;
        self.blossomchilds[b].clear();
        self.blossomendps[b].clear();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.unusedblossoms.push(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.blossomparent[t] != b {
            t = self.blossomparent[t];
        }
        if t >= self.n {
            self.augment_blossom(t, v);
        }
        let childs = self.blossomchilds[b].clone();
        let endps = self.blossomendps[b].clone();
        let len = childs.len() as isize;
        let at = |j: isize| childs[j.rem_euclid(len) as usize];
        let endp = |j: isize| endps[j.rem_euclid(len) as usize];
        let i = childs.iter().position(|&c| c == t).unwrap_or(0);
        let mut j = i as isize;
        let (jstep, endptrick) = if j & 1 == 1 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        while j != 0 {
            j += jstep;
            let t = at(j);
            let p = endp(j - endptrick) ^ endptrick as usize;
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p]);
            }
            j += jstep;
            let t = at(j);
            if t >= self.n {
                self.augment_blossom(t, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = p ^ 1;
            self.mate[self.endpoint[p ^ 1]] = p;
        }
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w, _) = self.edges[k];
        for (mut s, mut p) in [(v, 2 * k + 1), (w, 2 * k)] {
            loop {
                let bs = self.inblossom[s];
                if bs >= self.n {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = p;
                if self.labelend[bs] == NONE {
                    break;
                }
                let t = self.endpoint[self.labelend[bs]];
                let bt = self.inblossom[t];
                s = self.endpoint[self.labelend[bt]];
                let j = self.endpoint[self.labelend[bt] ^ 1];
                if bt >= self.n {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = self.labelend[bt] ^ 1;
            }
        }
    }

    fn solve(&mut self) {
        let n = self.n;
        for _stage in 0..n {
            self.label.iter_mut().for_each(|l| *l = FREE);
            self.bestedge.iter_mut().for_each(|e| *e = NONE);
            for b in n..2 * n {
                self.blossombestedges[b] = None;
            }
            self.allowedge.iter_mut().for_each(|a| *a = false);
            self.queue.clear();
            for v in 0..n {
                if self.mate[v] == NONE && self.label[self.inblossom[v]] == FREE {
                    self.assign_label(v, OUTER, NONE);
                }
            }
            let mut augmented = false;
            loop {
                while !augmented {
                    let Some(v) = self.queue.pop() else { break };
                    for idx in 0..self.neighbend[v].len() {
                        let p = self.neighbend[v][idx];
                        let k = p / 2;
                        let w = self.endpoint[p];
                        if self.inblossom[v] == self.inblossom[w] {
                            continue;
                        }
                        let mut kslack = W::ZERO;
                        if !self.allowedge[k] {
                            kslack = self.slack(k);
                            if kslack == W::ZERO {
                                self.allowedge[k] = true;
                            }
                        }
                        if self.allowedge[k] {
                            if self.label[self.inblossom[w]] == FREE {
                                self.assign_label(w, INNER, p ^ 1);
                            } else if self.label[self.inblossom[w]] == OUTER {
                                let base = self.scan_blossom(v, w);
                                if base != NONE {
                                    self.add_blossom(base, k);
                                } else {
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                            } else if self.label[w] == FREE {
                                self.label[w] = INNER;
                                self.labelend[w] = p ^ 1;
                            }
                        } else if self.label[self.inblossom[w]] == OUTER {
                            let b = self.inblossom[v];
                            if self.bestedge[b] == NONE || kslack < self.slack(self.bestedge[b]) {
                                self.bestedge[b] = k;
                            }
                        } else if self.label[w] == FREE
                            && (self.bestedge[w] == NONE || kslack < self.slack(self.bestedge[w]))
                        {
                            self.bestedge[w] = k;
                        }
                    }
                }
                if augmented {
                    break;
                }
                // No tight edge left: move the duals by the largest step
                // that keeps them feasible.
                let mut deltatype = 1;
                let mut delta = self.dualvar[..n].iter().copied().min().unwrap_or(W::ZERO);
                let mut deltaedge = NONE;
                let mut deltablossom = NONE;
                for v in 0..n {
                    if self.label[self.inblossom[v]] == FREE && self.bestedge[v] != NONE {
                        let d = self.slack(self.bestedge[v]);
                        if d < delta {
                            delta = d;
                            deltatype = 2;
                            deltaedge = self.bestedge[v];
                        }
                    }
                }
                for b in 0..2 * n {
                    if self.blossomparent[b] == NONE
                        && self.label[b] == OUTER
                        && self.bestedge[b] != NONE
                    {
                        let d = self.slack(self.bestedge[b]).halved();
                        if d < delta {
                            delta = d;
                            deltatype = 3;
                            deltaedge = self.bestedge[b];
                        }
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE
                        && self.blossomparent[b] == NONE
                        && self.label[b] == INNER
                        && self.dualvar[b] < delta
                    {
                        delta = self.dualvar[b];
                        deltatype = 4;
                        deltablossom = b;
                    }
                }
                for v in 0..n {
                    match self.label[self.inblossom[v]] {
                        OUTER => self.dualvar[v] = self.dualvar[v].minus(&delta),
                        INNER => self.dualvar[v] = self.dualvar[v].plus(&delta),
                        _ => {}
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE && self.blossomparent[b] == NONE {
                        match self.label[b] {
                            OUTER => self.dualvar[b] = self.dualvar[b].plus(&delta),
                            INNER => self.dualvar[b] = self.dualvar[b].minus(&delta),
                            _ => {}
                        }
                    }
                }
                match deltatype {
                    1 => break,
                    2 => {
                        self.allowedge[deltaedge] = true;
                        let (mut i, j, _) = self.edges[deltaedge];
                        if self.label[self.inblossom[i]] == FREE {
                            i = j;
                        }
                        self.queue.push(i);
                    }
                    3 => {
                        self.allowedge[deltaedge] = true;
                        let (i, _, _) = self.edges[deltaedge];
                        self.queue.push(i);
                    }
                    _ => self.expand_blossom(deltablossom, false),
                }
            }
            if !augmented {
                break;
            }
            for b in n..2 * n {
                if self.blossomparent[b] == NONE
                    && self.blossombase[b] != NONE
                    && self.label[b] == OUTER
                    && self.dualvar[b] == W::ZERO
                {
                    self.expand_blossom(b, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The best total weight over every matching, by brute force.
    fn best(n: usize, w: &[Vec<u64>], used: u32, from: usize) -> u64 {
        let Some(i) = (from..n).find(|&i| used & (1 << i) == 0) else {
            return 0;
        };
        let mut top = best(n, w, used | 1 << i, i + 1);
        for j in i + 1..n {
            if used & (1 << j) == 0 && w[i][j] > 0 {
                top = top.max(w[i][j] + best(n, w, used | 1 << i | 1 << j, i + 1));
            }
        }
        top
    }

    fn total(w: &[Vec<u64>], mates: &[Option<usize>]) -> u64 {
        let mut sum = 0;
        for (i, m) in mates.iter().enumerate() {
            if let Some(j) = *m {
                assert_eq!(mates[j], Some(i), "matching is not symmetric");
                assert!(w[i.min(j)][i.max(j)] > 0, "a pair without an edge");
                if i < j {
                    sum += w[i][j];
                }
            }
        }
        sum
    }

    #[test]
    fn the_matching_weighs_as_much_as_the_best_of_all_matchings_on_random_graphs() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for round in 0..3000 {
            let n = rng.random_range(0..11);
            let density = rng.random_range(0.2..1.0);
            let spread = [3, 10, 1000][round % 3];
            let mut w = vec![vec![0u64; n]; n];
            for (i, row) in w.iter_mut().enumerate() {
                for cell in row.iter_mut().skip(i + 1) {
                    if rng.random_bool(density) {
                        *cell = rng.random_range(1..=spread);
                    }
                }
            }
            let mates = max_weight_matching(n, |i, j| w[i][j]);
            assert_eq!(total(&w, &mates), best(n, &w, 0, 0), "graph {w:?}");
        }
    }

    #[test]
    fn wide_weights_give_the_same_matching_as_small_ones() {
        use crate::wide::Wide;
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for _ in 0..300 {
            let n = rng.random_range(2..12);
            let mut w = vec![vec![0u64; n]; n];
            for (i, row) in w.iter_mut().enumerate() {
                for cell in row.iter_mut().skip(i + 1) {
                    *cell = rng.random_range(0..50);
                }
            }
            // The same weights shifted high into a four-limb number.
            let wide = max_weight_matching(n, |i, j| Wide::<4>::from_u64(w[i][j]).shl(190));
            assert_eq!(total(&w, &wide), best(n, &w, 0, 0));
        }
    }

    #[test]
    fn an_odd_triangle_and_a_path_get_their_best_pairs() {
        // 0-1 (5), 1-2 (5), 2-3 (5), 0-2 (1): the best is 0-1 and 2-3.
        let w = [[0, 5, 1, 0], [0, 0, 5, 0], [0, 0, 0, 5], [0, 0, 0, 0]];
        let mates = max_weight_matching(4, |i, j| w[i][j]);
        assert_eq!(mates, vec![Some(1), Some(0), Some(3), Some(2)]);
        let lonely = max_weight_matching(3, |_, _| 0u64);
        assert_eq!(lonely, vec![None, None, None]);
    }
}
