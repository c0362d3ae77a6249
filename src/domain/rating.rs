//! Elo ratings computed as FIDE computes them (pure).
//!
//! The rules followed are the FIDE Rating Regulations effective from
//! 1 March 2024 (FIDE Handbook B.02), with the Council's amendment of
//! article 8.3.1 effective from 1 October 2025. Article by article:
//!
//! - **8.1.2, the table of expected scores.** A game's expected score `PD`
//!   comes from FIDE's table of rating difference `D` to scoring probability
//!   (0–3 → .50, 4–10 → .51, …, 620–735 → .99, over 735 → 1.00 for the
//!   higher rated player, one minus that for the lower), implemented as the
//!   table ([`expected_score`]), never as the logistic formula
//!   `1/(1+10^(-D/400))`, which only approximates it (the old Handbook said
//!   so in its comments on the system: "the tables are used as shown").
//! - **8.3.1, the 400-point rule.** "A difference in rating of more than 400
//!   points shall be counted for rating purposes as though it were a
//!   difference of 400 points, for players rated below 2650. For players
//!   rated 2650 and above, the difference between ratings shall be used in
//!   all cases." The rule is applied for the player whose change is computed,
//!   so the two players of one game may use different `D`.
//! - **8.3.2, the change.** `ΔR = score − PD` per game; the rating change
//!   for a rating period is `ΣΔR × K`.
//! - **8.3.3, K.** 40 for a player new to the rating list until they have
//!   completed at least 30 games; 20 as long as the rating remains under
//!   2400; 10 once the published rating has reached 2400, even if it drops
//!   below later. If `K × n` for the `n` games of a rating period exceeds
//!   700, K is the largest whole number with `K × n ≤ 700`. FIDE's K = 40 for
//!   players until the end of the year of their 18th birthday is **not**
//!   applied: dopis does not know players' birth dates.
//! - **8.3.4, rounding.** The rating change for a rating period is rounded
//!   to the nearest whole number, 0.5 away from zero.
//! - **8.2, a first rating.** An unrated player's games against rated
//!   opponents are kept until there are 5 (FIDE publishes a first rating
//!   once it rests on at least 5 games against rated opponents); then
//!   `Ru = Ra + dp`, where `Ra` is the average rating of the rated opponents
//!   plus two hypothetical opponents rated 1800 against whom the player is
//!   taken to have drawn, `dp` comes from the table of 8.1.1 for the
//!   fractional score `p` including those two draws, `Ru` is rounded to the
//!   nearest whole number, and at most 2200. A zero score is disregarded
//!   (8.2: "If an unrated player scores zero in their first event this
//!   score is disregarded"): games that brought no point are dropped and
//!   the player stays unrated.
//! - **Unplayed games** are not rated (the regulations: "Whether these occur
//!   because of forfeiture or any other reason, unplayed games are not
//!   counted. Any game where both players have made at least one move will
//!   be rated"). Which stored games count is the service's decision
//!   (`service::ratings`); this module rates what it is given.
//! - **Games against unrated players** do not change a rated player's
//!   rating (8.3.1 rates "each game played against a rated player").
//!
//! **The rating period.** FIDE publishes a list every month and rates each
//! player's games of the month against the ratings of the month's list
//! (a player's own `K` is fixed for the month too). dopis keeps a live list:
//! the calendar month (UTC) in which a game ends is its rating period; the
//! first game a player ends in a month opens the period with their rating at
//! that moment, `R0`, and each game of the period adds its `ΔR`, computed
//! against the opponent's `R0` of the same month. The rating shown is `R0 +
//! round(K × ΣΔR)`, so after the month's last game it is exactly the rating
//! FIDE's next list would publish from the same games, and during the month
//! it is what is often called a live rating.
//!
//! **Deviations, on purpose.** No rating floor (FIDE publishes no rating
//! under 1400; a club list shows everyone); the age rule of 8.3.3 (see
//! above); and a start rating a TD brings from ICCF or FIDE counts as
//! established: its K is 20 (or 10 from 2400) from the first game, not 40,
//! since the player is not new to rated play. A start rating the TD
//! estimates (source `td`) is treated as a new player's: K = 40 for 30 games.
//!
//! **Performance rating** ([`performance`]) is FIDE's: `Rp = Ra + dp`, the
//! average rating of the opponents played over the board plus `dp` from the
//! table of 8.1.1 for the fractional score, as the Tie-Break Regulations
//! define the Tournament Performance Rating (C.07, 10.2), without the
//! 400-point rule.

use serde::{Deserialize, Serialize};

/// The lowest and highest rating a TD may set.
pub const RANGE: std::ops::RangeInclusive<i32> = 100..=3500;

/// Games against rated opponents needed for a first rating.
pub const FIRST_RATING_GAMES: usize = 5;

/// The highest first rating (8.2).
pub const MAX_FIRST_RATING: i32 = 2200;

/// Games a new player's K stays 40 (8.3.3).
pub const NEW_PLAYER_GAMES: u32 = 30;

/// Table 8.1.2: the upper bound of each band of rating differences, in order;
/// band `i` gives the higher rated player a scoring probability of
/// `0.50 + i/100` (and the lower one `0.50 − i/100`); a difference over the
/// last bound (735) gives 1.00.
const PD_BANDS: [u32; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162,
    170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374,
    391, 411, 432, 456, 484, 517, 559, 619, 735,
];

/// Table 8.1.1: the rating difference `dp` for a fractional score of
/// `p = i/100`, `i` from 0 to 100.
const DP: [i32; 101] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// A game's score for one player, in half points: 0 loss, 1 draw, 2 win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score(u8);

impl Score {
    /// A loss.
    pub const LOSS: Score = Score(0);
    /// A draw.
    pub const DRAW: Score = Score(1);
    /// A win.
    pub const WIN: Score = Score(2);

    /// The score in hundredths of a point.
    fn centi(self) -> i64 {
        i64::from(self.0) * 50
    }

    /// The opponent's score in the same game.
    pub fn reversed(self) -> Score {
        Score(2 - self.0.min(2))
    }

    /// Half points (0, 1 or 2).
    pub fn halves(self) -> u8 {
        self.0
    }

    /// The score from half points; `None` above 2.
    pub fn from_halves(halves: u8) -> Option<Score> {
        (halves <= 2).then_some(Score(halves))
    }
}

/// Table 8.1.2: the expected score, in hundredths, of a player whose rating
/// is `diff` above the opponent's (negative when below).
pub fn expected_score(diff: i32) -> u8 {
    let band = PD_BANDS
        .iter()
        .position(|&bound| diff.unsigned_abs() <= bound)
        .unwrap_or(PD_BANDS.len());
    let band = u8::try_from(band).unwrap_or(50);
    if diff >= 0 { 50 + band } else { 50 - band }
}

/// Article 8.3.1: the difference used for a player rated `own` against
/// `opponent`, capped at ±400 below 2650.
pub fn counted_difference(own: i32, opponent: i32) -> i32 {
    let d = own - opponent;
    if own >= 2650 { d } else { d.clamp(-400, 400) }
}

/// Table 8.1.1: `dp` for a fractional score of `score_centi / games` (in
/// hundredths of a point per game), `p` rounded to the nearest hundredth.
fn dp(score_halves: u32, games: u32) -> i32 {
    if games == 0 {
        return 0;
    }
    // p in hundredths, rounded half up: 100 × (halves/2) / games.
    let p = (u64::from(score_halves) * 100 + u64::from(games)) / (2 * u64::from(games));
    DP[usize::try_from(p.min(100)).unwrap_or(100)]
}

/// Rounds `num / den` to the nearest whole number, halves away from zero.
fn round_div(num: i64, den: i64) -> i64 {
    if den == 0 {
        return 0;
    }
    let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
    if num >= 0 {
        (2 * num + den) / (2 * den)
    } else {
        -((-2 * num + den) / (2 * den))
    }
}

/// A calendar month, the rating period: `2027 * 12 + month - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Period(pub i32);

impl Period {
    /// The period of a year and month (1–12).
    pub fn of(year: i32, month: u32) -> Period {
        Period(year * 12 + i32::try_from(month).unwrap_or(1) - 1)
    }

    /// `YYYY-MM`.
    pub fn label(self) -> String {
        format!(
            "{:04}-{:02}",
            self.0.div_euclid(12),
            self.0.rem_euclid(12) + 1
        )
    }
}

/// Where a start rating came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A rating of the ICCF's list: established.
    Iccf,
    /// A rating of FIDE's list: established.
    Fide,
    /// The TD's estimate: a new player's.
    Td,
    /// Computed here from a player's first games (8.2).
    First,
}

impl Source {
    /// The word for the command line and the lists.
    pub fn key(self) -> &'static str {
        match self {
            Source::Iccf => "iccf",
            Source::Fide => "fide",
            Source::Td => "td",
            Source::First => "first",
        }
    }

    /// Reads [`Source::key`].
    pub fn from_key(key: &str) -> Option<Source> {
        Some(match key {
            "iccf" => Source::Iccf,
            "fide" => Source::Fide,
            "td" => Source::Td,
            "first" => Source::First,
            _ => return None,
        })
    }
}

/// A game an unrated player played against a rated opponent, kept towards
/// the first rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstGame {
    /// The opponent's rating for the game.
    pub opponent: i32,
    /// The unrated player's score.
    pub score: Score,
}

/// One player's place on the list: everything the next game needs.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Standing {
    /// The rating shown; `None` while unrated.
    pub rating: Option<i32>,
    /// Where the rating came from.
    pub source: Option<Source>,
    /// Rated games so far (for K's 30 games).
    pub games: u32,
    /// Whether the rating at a period's start ever reached 2400 (K = 10).
    pub reached_2400: bool,
    /// The running rating period, once the player has a game in it.
    pub period: Option<Period>,
    /// The rating at the period's start, `R0`.
    pub period_start: i32,
    /// K for the period.
    pub k: u32,
    /// `ΣΔR` of the period's games, in hundredths.
    pub period_sum: i64,
    /// Games in the period.
    pub period_games: u32,
    /// While unrated: the games towards a first rating.
    pub first_games: Vec<FirstGame>,
}

/// What one game did to one player's rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Effect {
    /// A rated game: the change in hundredths before rounding, and the rating
    /// after.
    Rated {
        /// The opponent's rating used (their `R0`).
        opponent: i32,
        /// The difference counted (8.3.1).
        diff: i32,
        /// The expected score in hundredths (8.1.2).
        expected: u8,
        /// `ΔR` in hundredths.
        delta: i64,
        /// K used for the period so far (after the 700 cap).
        k: u32,
        /// The rating before and after.
        before: i32,
        /// The rating after.
        after: i32,
    },
    /// An unrated player's game kept towards the first rating; `first` is
    /// the first rating once it could be computed with this game.
    FirstGame {
        /// The opponent's rating used.
        opponent: i32,
        /// Games kept so far.
        kept: usize,
        /// The first rating, when this game completed it.
        first: Option<i32>,
    },
    /// Not rated for this player: the opponent is unrated (and so is the
    /// player, or the player is rated: 8.3.1).
    NotRated,
}

impl Effect {
    /// The rating after the game, if the player has one.
    pub fn after(&self) -> Option<i32> {
        match *self {
            Effect::Rated { after, .. } => Some(after),
            Effect::FirstGame { first, .. } => first,
            Effect::NotRated => None,
        }
    }
}

impl Standing {
    /// A start rating set by a TD (or brought along); the period restarts.
    pub fn with_start(rating: i32, source: Source) -> Standing {
        Standing {
            rating: Some(rating),
            source: Some(source),
            reached_2400: rating >= 2400,
            period_start: rating,
            ..Standing::default()
        }
    }

    /// Whether the rating is a new player's (K = 40 by the 30-game rule).
    pub fn provisional(&self) -> bool {
        self.rating.is_some()
            && matches!(self.source, Some(Source::Td | Source::First) | None)
            && self.games < NEW_PLAYER_GAMES
    }

    /// K for a period starting now (8.3.3, without the age rule).
    pub fn k_now(&self) -> u32 {
        let rating = self.rating.unwrap_or(0);
        if self.reached_2400 || rating >= 2400 {
            10
        } else if self.provisional() {
            40
        } else {
            20
        }
    }

    /// The standing as seen in `period`: a new period starts from the
    /// rating shown, with K fixed for it.
    pub fn in_period(&self, period: Period) -> Standing {
        let mut s = self.clone();
        if let Some(rating) = s.rating
            && s.period != Some(period)
        {
            s.reached_2400 |= rating >= 2400;
            s.k = s.k_now();
            s.period = Some(period);
            s.period_start = rating;
            s.period_sum = 0;
            s.period_games = 0;
        }
        s
    }

    /// The rating the opponent's game in `period` is rated against: `R0`.
    pub fn rating_for(&self, period: Period) -> Option<i32> {
        self.rating.map(|_| self.in_period(period).period_start)
    }

    /// Adds one game against an opponent rated `opponent` (their `R0` in
    /// `period`, `None` when unrated), scoring `score`.
    pub fn add_game(
        &self,
        period: Period,
        opponent: Option<i32>,
        score: Score,
    ) -> (Standing, Effect) {
        let Some(opponent) = opponent else {
            return (self.clone(), Effect::NotRated);
        };
        if self.rating.is_none() {
            return self.add_first_game(opponent, score);
        }
        let mut s = self.in_period(period);
        let diff = counted_difference(s.period_start, opponent);
        let expected = expected_score(diff);
        let delta = score.centi() - i64::from(expected);
        s.period_sum += delta;
        s.period_games += 1;
        s.games += 1;
        // 8.3.3: K × n must not exceed 700 within the period.
        let k = s.k.min(700 / s.period_games.max(1));
        let change = round_div(i64::from(k) * s.period_sum, 100);
        let before = self.rating.unwrap_or(s.period_start);
        let after = s.period_start + i32::try_from(change).unwrap_or(0);
        s.rating = Some(after);
        (
            s,
            Effect::Rated {
                opponent,
                diff,
                expected,
                delta,
                k,
                before,
                after,
            },
        )
    }

    fn add_first_game(&self, opponent: i32, score: Score) -> (Standing, Effect) {
        let mut s = self.clone();
        s.first_games.push(FirstGame { opponent, score });
        // A zero score is disregarded (8.2): keep nothing until a point.
        if s.first_games.iter().all(|g| g.score == Score::LOSS) {
            s.first_games.clear();
        }
        let kept = s.first_games.len();
        let first = (kept >= FIRST_RATING_GAMES).then(|| first_rating(&s.first_games));
        if let Some(r) = first {
            s.rating = Some(r);
            s.source = Some(Source::First);
            s.games = u32::try_from(kept).unwrap_or(u32::MAX);
            s.period = None;
            s.period_start = r;
            s.first_games.clear();
        }
        (
            s,
            Effect::FirstGame {
                opponent,
                kept,
                first,
            },
        )
    }
}

/// Article 8.2: a first rating from games against rated opponents, with two
/// hypothetical draws against opponents rated 1800; at most 2200.
pub fn first_rating(games: &[FirstGame]) -> i32 {
    let n = u32::try_from(games.len())
        .unwrap_or(u32::MAX)
        .saturating_add(2);
    let halves: u32 = games.iter().map(|g| u32::from(g.score.0)).sum::<u32>() + 2;
    let sum: i64 = games.iter().map(|g| i64::from(g.opponent)).sum::<i64>() + 3600;
    // Ru = Ra + dp, Ra = sum / n, rounded once at the end.
    let ru = round_div(sum + i64::from(dp(halves, n)) * i64::from(n), i64::from(n));
    i32::try_from(ru).unwrap_or(0).min(MAX_FIRST_RATING)
}

/// The performance rating `Ra + dp` of a score against rated opponents
/// (C.07 10.2 with table 8.1.1): `None` without games.
pub fn performance(opponents: &[i32], score_halves: u32) -> Option<i32> {
    let n = u32::try_from(opponents.len()).ok().filter(|&n| n > 0)?;
    let sum: i64 = opponents.iter().map(|&r| i64::from(r)).sum();
    let ra = round_div(sum, i64::from(n));
    i32::try_from(ra).ok().map(|ra| ra + dp(score_halves, n))
}

/// One whole rating period for one player, as FIDE rates it: `ΣΔR × K`,
/// rounded (8.3.2–8.3.4). `games` are the opponents' ratings and scores.
pub fn period_change(own: i32, k: u32, games: &[(i32, Score)]) -> i32 {
    let n = u32::try_from(games.len()).unwrap_or(u32::MAX).max(1);
    let k = k.min(700 / n);
    let sum: i64 = games
        .iter()
        .map(|&(opp, score)| {
            score.centi() - i64::from(expected_score(counted_difference(own, opp)))
        })
        .sum();
    i32::try_from(round_div(i64::from(k) * sum, 100)).unwrap_or(0)
}

#[cfg(test)]
mod tests;
