//! Standings: who is ahead, individual and team, with withdrawals applied.
//!
//! How each criterion is computed, and how unfinished and annulled games
//! count, is written out in [`tiebreak`](super::tiebreak).
//!
//! Withdrawals are applied first, by the event's [`WithdrawalRule`]:
//!
//! - `ForfeitAll`: each of the withdrawn player's unfinished games becomes a
//!   forfeit win for the opponent; finished games stand.
//! - `AnnulIfUnderHalf`: if the player finished fewer than half of their
//!   games (`2 × finished < games`), every game of theirs, finished or not, is
//!   annulled: it counts for nobody, and the player leaves the table.
//!   Otherwise their unfinished games are forfeited as above.
//!
//! An unfinished game between two withdrawn players whose games stand is
//! annulled: nobody played it, so nobody scores.
//!
//! In team events a player is a board of a team, `(team, board)`: a
//! substitute who inherits the games is the same board.

use std::collections::BTreeMap;

use super::tiebreak::{TeamColumn, TeamCriterion, TieBreak};
use super::{Decision, GameResult, GameState, Points, Scoring, Side, SideResult, WithdrawalRule};

/// One game of an individual event, as the standings see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredGame {
    /// Round, from 1 (orders the crosstable cells of a double round robin).
    pub round: u32,
    /// Index of the player with White.
    pub white: usize,
    /// Index of the player with Black.
    pub black: usize,
    /// Where the game stands.
    pub state: GameState,
}

/// One game of a team event, as the standings see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScoredTeamGame {
    /// Round of the team match, from 1.
    pub round: u32,
    /// Board, from 1.
    pub board: u32,
    /// Index of the team with White on this board.
    pub white_team: usize,
    /// Index of the team with Black on this board.
    pub black_team: usize,
    /// Where the game stands.
    pub state: GameState,
}

/// A game as it counts after withdrawals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Not finished yet: counts as not yet played.
    Pending,
    /// Finished (or forfeited by a withdrawal): counts with this result.
    Result {
        /// The result.
        outcome: GameResult,
        /// How it was decided.
        decision: Decision,
    },
    /// Annulled by a withdrawal: counts for nobody.
    Annulled,
    /// Cancelled by the TD: counts for nobody, but shown in the crosstable.
    Cancelled,
}

impl Counted {
    /// Whether the game counts for nobody: annulled by a withdrawal or
    /// cancelled by the TD.
    pub fn for_nobody(self) -> bool {
        matches!(self, Counted::Annulled | Counted::Cancelled)
    }
}

/// The rules an individual event ranks by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// Points per result.
    pub scoring: Scoring,
    /// Tie-breaks after points, in order.
    pub tie_breaks: Vec<TieBreak>,
    /// What a withdrawal does to a player's games.
    pub withdrawal: WithdrawalRule,
    /// Whether games won or lost by default (without play) count for
    /// Sonneborn-Berger (the event file's `sb_unplayed`; default yes).
    pub sb_counts_unplayed: bool,
}

/// The rules a team event ranks by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamRules {
    /// Points per board game.
    pub scoring: Scoring,
    /// Ranking criteria, in order (the first is the main score).
    pub order: Vec<TeamCriterion>,
    /// What a withdrawal does to a player's games.
    pub withdrawal: WithdrawalRule,
}

/// One line of an individual table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// Index of the player.
    pub player: usize,
    /// Rank, from 1; tied players share the rank of the first of them.
    pub rank: u32,
    /// The last rank of the tie this player shares (= `rank` when alone).
    pub rank_to: u32,
    /// Points under the event's scoring.
    pub points: Points,
    /// Games that count with a result.
    pub finished: u32,
    /// One value per tie-break of [`Rules::tie_breaks`]; `None` where a
    /// direct encounter is not applied.
    pub tie_breaks: Vec<Option<Points>>,
}

/// An individual table, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standings {
    /// The lines, best first.
    pub rows: Vec<Standing>,
    /// The tie-breaks, in the order of each line's values.
    pub tie_breaks: Vec<TieBreak>,
    /// The games as they count, in the order given.
    pub games: Vec<ScoredGame>,
    /// How each game of `games` counts.
    pub counted: Vec<Counted>,
    /// Players whose games were all annulled (not in `rows`).
    pub annulled: Vec<usize>,
}

/// One line of a team table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamStanding {
    /// Index of the team.
    pub team: usize,
    /// Rank, from 1; tied teams share the rank of the first of them.
    pub rank: u32,
    /// The last rank of the tie this team shares.
    pub rank_to: u32,
    /// Board points.
    pub game_points: Points,
    /// Match points.
    pub match_points: Points,
    /// One value per column of [`TeamStandings::columns`].
    pub values: Vec<Option<Points>>,
}

/// A team table, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamStandings {
    /// The lines, best first.
    pub rows: Vec<TeamStanding>,
    /// The value columns, in the order of each line's values: the
    /// criteria of [`TeamRules::order`], a per-board criterion making one
    /// column per board.
    pub columns: Vec<TeamColumn>,
    /// Every match between two teams.
    pub matches: Vec<Match>,
    /// How each board game counts after withdrawals, in the order given
    /// (games naming an unknown team left out).
    pub counted: Vec<Counted>,
}

/// A match: every board game between two teams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The lower team index.
    pub team_a: usize,
    /// The higher team index.
    pub team_b: usize,
    /// Board points of `team_a` so far.
    pub points_a: Points,
    /// Board points of `team_b` so far.
    pub points_b: Points,
    /// Every counting game is finished (and at least one counts).
    pub decided: bool,
}

impl Match {
    /// Match points (2/1/0) for `team`, once decided.
    pub fn match_points(&self, team: usize) -> Option<Points> {
        if !self.decided {
            return None;
        }
        let (mine, theirs) = if team == self.team_a {
            (self.points_a, self.points_b)
        } else {
            (self.points_b, self.points_a)
        };
        Some(Points::whole(match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => 2,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Less => 0,
        }))
    }

    /// The other team.
    pub fn opponent(&self, team: usize) -> usize {
        if team == self.team_a {
            self.team_b
        } else {
            self.team_a
        }
    }
}

/// Applies withdrawals to games between players of type `K`.
///
/// Returns how each game counts and which players are annulled.
fn resolve<K: Copy + Eq>(
    games: &[(K, K, GameState)],
    withdrawn: &[K],
    rule: WithdrawalRule,
) -> (Vec<Counted>, Vec<K>) {
    let mut counted: Vec<Counted> = games
        .iter()
        .map(|&(_, _, state)| match state {
            GameState::Unfinished => Counted::Pending,
            GameState::Finished { outcome, decision } => Counted::Result { outcome, decision },
            GameState::Cancelled => Counted::Cancelled,
        })
        .collect();
    let mut annulled = Vec::new();
    for &w in withdrawn {
        if annulled.contains(&w) {
            continue;
        }
        // A cancelled game is nobody's game: it is not one of theirs here.
        let theirs = || {
            games
                .iter()
                .filter(|(a, b, s)| (*a == w || *b == w) && *s != GameState::Cancelled)
        };
        let total = theirs().count();
        let finished = theirs()
            .filter(|(_, _, s)| matches!(s, GameState::Finished { .. }))
            .count();
        if rule == WithdrawalRule::AnnulIfUnderHalf && 2 * finished < total {
            annulled.push(w);
        }
    }
    for ((white, black, _), count) in games.iter().zip(counted.iter_mut()) {
        if annulled.contains(white) || annulled.contains(black) {
            *count = Counted::Annulled;
            continue;
        }
        if *count != Counted::Pending {
            continue;
        }
        let gone = (withdrawn.contains(white), withdrawn.contains(black));
        *count = match gone {
            (true, true) => Counted::Annulled,
            (true, false) => Counted::Result {
                outcome: GameResult::BlackWins,
                decision: Decision::Forfeit,
            },
            (false, true) => Counted::Result {
                outcome: GameResult::WhiteWins,
                decision: Decision::Forfeit,
            },
            (false, false) => Counted::Pending,
        };
    }
    (counted, annulled)
}

/// Every entrant's value for each criterion, in criteria order.
pub(crate) type Values = BTreeMap<usize, Vec<Option<Points>>>;

/// One counted game from one player's side.
#[derive(Debug, Clone, Copy)]
struct Played {
    round: u32,
    opponent: usize,
    verdict: SideResult,
    side: Side,
    decision: Decision,
}

/// Sorts `entrants` by the criteria in order, splitting ties step by step.
///
/// `value(k, e, group)` is criterion `k` for entrant `e` in its current tie
/// group. Returns the final tie groups (best first, each by index) and every
/// entrant's values.
pub(crate) fn rank_by(
    entrants: Vec<usize>,
    criteria: usize,
    mut value: impl FnMut(usize, usize, &[usize]) -> Option<Points>,
) -> (Vec<Vec<usize>>, Values) {
    let mut values = Values::new();
    let mut groups = vec![entrants];
    for k in 0..criteria {
        let mut next = Vec::new();
        for group in groups {
            let mut scored: Vec<(Option<Points>, usize)> =
                group.iter().map(|&e| (value(k, e, &group), e)).collect();
            for &(v, e) in &scored {
                values.entry(e).or_default().push(v);
            }
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut current: Vec<usize> = Vec::new();
            let mut current_value = None;
            for (v, e) in scored {
                if !current.is_empty() && current_value != Some(v) {
                    next.push(std::mem::take(&mut current));
                }
                current_value = Some(v);
                current.push(e);
            }
            if !current.is_empty() {
                next.push(current);
            }
        }
        groups = next;
    }
    for group in &mut groups {
        group.sort_unstable();
    }
    (groups, values)
}

/// One opponent's part in a Buchholz-like sum (FIDE C.07 Article 14):
/// what ranks it for a cut (the opponent's score), its value, and whether
/// it comes from a round the player chose not to play (Article 16.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Contribution {
    /// What orders it for a cut: the opponent's (or the dummy's) score.
    pub(crate) key: Points,
    /// What it adds to the sum.
    pub(crate) value: Points,
    /// From a voluntarily unplayed round: cut first (16.5.1).
    pub(crate) voluntary: bool,
}

impl Contribution {
    /// A contribution whose value is its key (Buchholz), from a game.
    pub(crate) fn plain(score: Points) -> Contribution {
        Contribution {
            key: score,
            value: score,
            voluntary: false,
        }
    }
}

/// Removes the least significant contribution (C.07 14.1: the lowest key,
/// then the lowest value). With voluntarily unplayed rounds the one of
/// them with the lowest value is cut instead when it is worth more
/// (16.5.1: a player gains nothing by not playing).
pub(crate) fn cut_least(contributions: &mut Vec<Contribution>) {
    let least =
        (0..contributions.len()).min_by_key(|&i| (contributions[i].key, contributions[i].value));
    let voluntary = (0..contributions.len())
        .filter(|&i| contributions[i].voluntary)
        .min_by_key(|&i| (contributions[i].value, contributions[i].key));
    let cut = match (least, voluntary) {
        (Some(l), Some(v)) if contributions[v].value > contributions[l].value => Some(v),
        (Some(l), _) => Some(l),
        _ => None,
    };
    if let Some(i) = cut {
        contributions.remove(i);
    }
}

/// A Buchholz-like sum with the cut `tb` names (14.1–14.3, 16.5.2: the
/// exception applies again at each cut).
pub(crate) fn buchholz(tb: TieBreak, mut contributions: Vec<Contribution>) -> Points {
    match tb {
        TieBreak::BuchholzCut1 => cut_least(&mut contributions),
        TieBreak::BuchholzCut2 => {
            cut_least(&mut contributions);
            cut_least(&mut contributions);
        }
        TieBreak::BuchholzMedian1 => {
            cut_least(&mut contributions);
            if let Some(i) = (0..contributions.len())
                .max_by_key(|&i| (contributions[i].key, contributions[i].value))
            {
                contributions.remove(i);
            }
        }
        _ => {}
    }
    contributions.iter().map(|c| c.value).sum()
}

/// Rank numbers for groups: (entrant, rank, rank_to) best first.
pub(crate) fn ranks(groups: &[Vec<usize>]) -> Vec<(usize, u32, u32)> {
    let mut out = Vec::new();
    let mut next = 1u32;
    for group in groups {
        let to = next + group.len() as u32 - 1;
        out.extend(group.iter().map(|&e| (e, next, to)));
        next = to + 1;
    }
    out
}

/// The individual table of `players` players (indices `0..players`) after
/// `games`, with `withdrawn` players' games treated by the event's rule.
/// Games naming a player outside `0..players` are ignored.
pub fn individual(
    players: usize,
    games: &[ScoredGame],
    withdrawn: &[usize],
    rules: &Rules,
) -> Standings {
    let games: Vec<ScoredGame> = games
        .iter()
        .copied()
        .filter(|g| g.white < players && g.black < players && g.white != g.black)
        .collect();
    let keyed: Vec<_> = games.iter().map(|g| (g.white, g.black, g.state)).collect();
    let (counted, annulled) = resolve(&keyed, withdrawn, rules.withdrawal);
    let scoring = rules.scoring;

    let mut results: Vec<Vec<Played>> = vec![Vec::new(); players];
    // Games that are not annulled, finished or not (Koya's 50 % bar).
    let mut scheduled = vec![0i64; players];
    for (g, c) in games.iter().zip(&counted) {
        if !c.for_nobody() {
            scheduled[g.white] += 1;
            scheduled[g.black] += 1;
        }
        if let Counted::Result { outcome, decision } = *c {
            for (me, them, side) in [
                (g.white, g.black, Side::White),
                (g.black, g.white, Side::Black),
            ] {
                results[me].push(Played {
                    round: g.round,
                    opponent: them,
                    verdict: outcome.for_side(side),
                    side,
                    decision,
                });
            }
        }
    }
    let score = |v: SideResult| match v {
        SideResult::Win => scoring.win,
        SideResult::Draw => scoring.draw,
        SideResult::Loss => scoring.loss,
    };
    let points: Vec<Points> = results
        .iter()
        .map(|r| r.iter().map(|g| score(g.verdict)).sum())
        .collect();
    let count = |p: usize, keep: fn(&Played) -> bool| {
        Points::whole(results[p].iter().filter(|r| keep(r)).count() as i64)
    };

    let value_of = |tb: TieBreak, p: usize, group: &[usize]| -> Option<Points> {
        Some(match tb {
            TieBreak::Wins => count(p, |g| g.verdict == SideResult::Win),
            TieBreak::GamesWon => count(p, |g| {
                g.verdict == SideResult::Win && g.decision != Decision::Forfeit
            }),
            TieBreak::GamesAsBlack => count(p, |g| g.side == Side::Black),
            TieBreak::GamesWonWithBlack => count(p, |g| {
                g.side == Side::Black
                    && g.verdict == SideResult::Win
                    && g.decision != Decision::Forfeit
            }),
            TieBreak::Buchholz
            | TieBreak::BuchholzCut1
            | TieBreak::BuchholzCut2
            | TieBreak::BuchholzMedian1 => buchholz(
                tb,
                results[p]
                    .iter()
                    .map(|g| Contribution::plain(points[g.opponent]))
                    .collect(),
            ),
            TieBreak::Progressive => {
                let last = games.iter().map(|g| g.round).max().unwrap_or(0);
                let mut running = Points::ZERO;
                let mut total = Points::ZERO;
                for round in 1..=last {
                    running += results[p]
                        .iter()
                        .filter(|g| g.round == round)
                        .map(|g| score(g.verdict))
                        .sum();
                    total += running;
                }
                total
            }
            TieBreak::SonnebornBerger => results[p]
                .iter()
                .filter(|g| rules.sb_counts_unplayed || g.decision != Decision::Forfeit)
                .map(|g| match g.verdict {
                    SideResult::Win => points[g.opponent],
                    SideResult::Draw => Points::from_quarters(points[g.opponent].quarters() / 2),
                    SideResult::Loss => Points::ZERO,
                })
                .sum(),
            TieBreak::Koya => results[p]
                .iter()
                .filter(|g| {
                    2 * points[g.opponent].quarters()
                        >= scoring.win.quarters() * scheduled[g.opponent]
                })
                .map(|g| score(g.verdict))
                .sum(),
            TieBreak::DirectEncounter => {
                if group.len() < 2 {
                    return None;
                }
                let among = games
                    .iter()
                    .zip(&counted)
                    .filter(|(g, c)| {
                        !c.for_nobody() && group.contains(&g.white) && group.contains(&g.black)
                    })
                    .collect::<Vec<_>>();
                if among.is_empty() || among.iter().any(|(_, c)| **c == Counted::Pending) {
                    return None;
                }
                among
                    .iter()
                    .filter_map(|(g, c)| match **c {
                        Counted::Result { outcome, .. } if g.white == p => {
                            Some(scoring.points(outcome, Side::White))
                        }
                        Counted::Result { outcome, .. } if g.black == p => {
                            Some(scoring.points(outcome, Side::Black))
                        }
                        _ => None,
                    })
                    .sum()
            }
        })
    };

    let active: Vec<usize> = (0..players).filter(|p| !annulled.contains(p)).collect();
    let (groups, values) = rank_by(active, rules.tie_breaks.len() + 1, |k, p, group| {
        match k.checked_sub(1).and_then(|i| rules.tie_breaks.get(i)) {
            None => Some(points[p]),
            Some(&tb) => value_of(tb, p, group),
        }
    });
    let rows = ranks(&groups)
        .into_iter()
        .map(|(p, rank, rank_to)| Standing {
            player: p,
            rank,
            rank_to,
            points: points[p],
            finished: results[p].len() as u32,
            tie_breaks: values
                .get(&p)
                .map(|v| v.iter().skip(1).copied().collect())
                .unwrap_or_default(),
        })
        .collect();
    Standings {
        rows,
        tie_breaks: rules.tie_breaks.clone(),
        games,
        counted,
        annulled,
    }
}

/// The team table of `teams` teams after `games`, with withdrawn players
/// (`(team, board)`) treated by the event's rule. Games naming a team outside
/// `0..teams` are ignored.
pub fn team(
    teams: usize,
    games: &[ScoredTeamGame],
    withdrawn: &[(usize, u32)],
    rules: &TeamRules,
) -> TeamStandings {
    let games: Vec<ScoredTeamGame> = games
        .iter()
        .copied()
        .filter(|g| g.white_team < teams && g.black_team < teams && g.white_team != g.black_team)
        .collect();
    let keyed: Vec<_> = games
        .iter()
        .map(|g| ((g.white_team, g.board), (g.black_team, g.board), g.state))
        .collect();
    let (counted, _) = resolve(&keyed, withdrawn, rules.withdrawal);
    let scoring = rules.scoring;

    let mut by_pair: BTreeMap<(usize, usize), Match> = BTreeMap::new();
    let mut game_points = vec![Points::ZERO; teams];
    for (g, c) in games.iter().zip(&counted) {
        let (a, b) = (
            g.white_team.min(g.black_team),
            g.white_team.max(g.black_team),
        );
        let m = by_pair.entry((a, b)).or_insert(Match {
            team_a: a,
            team_b: b,
            points_a: Points::ZERO,
            points_b: Points::ZERO,
            decided: true,
        });
        match *c {
            Counted::Annulled | Counted::Cancelled => {}
            Counted::Pending => m.decided = false,
            Counted::Result { outcome, .. } => {
                let white = scoring.points(outcome, Side::White);
                let black = scoring.points(outcome, Side::Black);
                game_points[g.white_team] += white;
                game_points[g.black_team] += black;
                if g.white_team == a {
                    m.points_a += white;
                    m.points_b += black;
                } else {
                    m.points_a += black;
                    m.points_b += white;
                }
            }
        }
    }
    // A match whose games were all annulled was never played.
    for ((a, b), m) in by_pair.iter_mut() {
        let any_counts = games.iter().zip(&counted).any(|(g, c)| {
            !c.for_nobody()
                && g.white_team.min(g.black_team) == *a
                && g.white_team.max(g.black_team) == *b
        });
        m.decided &= any_counts;
    }
    let matches: Vec<Match> = by_pair.into_values().collect();
    let match_points: Vec<Points> = (0..teams)
        .map(|t| {
            matches
                .iter()
                .filter(|m| m.team_a == t || m.team_b == t)
                .filter_map(|m| m.match_points(t))
                .sum()
        })
        .collect();

    let boards = games.iter().map(|g| g.board).max().unwrap_or(0);
    let board_sb = board_sonneborn_berger(teams, boards, &games, &counted, scoring);
    let columns = TeamColumn::expand(&rules.order, boards);

    let value_of = |column: TeamColumn, t: usize, group: &[usize]| -> Option<Points> {
        let theirs = || {
            matches
                .iter()
                .filter(move |m| m.team_a == t || m.team_b == t)
        };
        match column.criterion {
            TeamCriterion::GamePoints => Some(game_points[t]),
            TeamCriterion::BoardSonnebornBerger => {
                let board = column.board? as usize;
                board_sb.get(board - 1).map(|per_team| per_team[t])
            }
            TeamCriterion::MatchPoints => Some(match_points[t]),
            TeamCriterion::SonnebornBerger => Some(
                theirs()
                    .filter_map(|m| {
                        let opp = match_points[m.opponent(t)];
                        match m.match_points(t)?.quarters() {
                            8 => Some(opp),
                            4 => Some(Points::from_quarters(opp.quarters() / 2)),
                            _ => Some(Points::ZERO),
                        }
                    })
                    .sum(),
            ),
            TeamCriterion::DirectEncounter => {
                if group.len() < 2 {
                    return None;
                }
                let among: Vec<&Match> = matches
                    .iter()
                    .filter(|m| group.contains(&m.team_a) && group.contains(&m.team_b))
                    .collect();
                let pairs = group.len() * (group.len() - 1) / 2;
                if among.len() < pairs || among.iter().any(|m| !m.decided) {
                    return None;
                }
                among
                    .iter()
                    .filter(|m| m.team_a == t || m.team_b == t)
                    .map(|m| m.match_points(t))
                    .sum()
            }
        }
    };
    let (groups, values) = rank_by((0..teams).collect(), columns.len(), |k, t, group| {
        columns.get(k).and_then(|&c| value_of(c, t, group))
    });
    let rows = ranks(&groups)
        .into_iter()
        .map(|(t, rank, rank_to)| TeamStanding {
            team: t,
            rank,
            rank_to,
            game_points: game_points[t],
            match_points: match_points[t],
            values: values.get(&t).cloned().unwrap_or_default(),
        })
        .collect();
    TeamStandings {
        rows,
        columns,
        matches,
        counted,
    }
}

/// Each board's Sonneborn-Berger, `[board - 1][team]`: in the table of one
/// board's games alone, the sum over the team's games on that board of the
/// opponent team's points on that board for a win and half of them for a
/// draw (as [`TieBreak::SonnebornBerger`] in an individual table whose
/// players are the teams' players on that board).
fn board_sonneborn_berger(
    teams: usize,
    boards: u32,
    games: &[ScoredTeamGame],
    counted: &[Counted],
    scoring: Scoring,
) -> Vec<Vec<Points>> {
    (1..=boards)
        .map(|board| {
            let on_board: Vec<(&ScoredTeamGame, GameResult)> = games
                .iter()
                .zip(counted)
                .filter(|(g, _)| g.board == board)
                .filter_map(|(g, c)| match *c {
                    Counted::Result { outcome, .. } => Some((g, outcome)),
                    _ => None,
                })
                .collect();
            let mut points = vec![Points::ZERO; teams];
            for (g, outcome) in &on_board {
                points[g.white_team] += scoring.points(*outcome, Side::White);
                points[g.black_team] += scoring.points(*outcome, Side::Black);
            }
            let mut sb = vec![Points::ZERO; teams];
            for (g, outcome) in &on_board {
                for (me, them, side) in [
                    (g.white_team, g.black_team, Side::White),
                    (g.black_team, g.white_team, Side::Black),
                ] {
                    sb[me] += match outcome.for_side(side) {
                        SideResult::Win => points[them],
                        SideResult::Draw => Points::from_quarters(points[them].quarters() / 2),
                        SideResult::Loss => Points::ZERO,
                    };
                }
            }
            sb
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testdata::{OLYMPIAD, SIX, TIED_OLYMPIAD, games, state, team_games};
    use super::*;

    fn rules(tie_breaks: &[TieBreak]) -> Rules {
        Rules {
            scoring: Scoring::default(),
            tie_breaks: tie_breaks.to_vec(),
            withdrawal: WithdrawalRule::AnnulIfUnderHalf,
            sb_counts_unplayed: true,
        }
    }

    fn q(quarters: i64) -> Option<Points> {
        Some(Points::from_quarters(quarters))
    }

    /// (player from 1, rank, rank_to, points in quarters, tie-breaks in quarters)
    type Line = (usize, u32, u32, i64, Vec<Option<Points>>);

    fn lines(s: &Standings) -> Vec<Line> {
        s.rows
            .iter()
            .map(|r| {
                (
                    r.player + 1,
                    r.rank,
                    r.rank_to,
                    r.points.quarters(),
                    r.tie_breaks.clone(),
                )
            })
            .collect()
    }

    // Hand computation for SIX (1 / ½ / 0), per player, round by round:
    //   1 A: W 6, D 2, W 3 (adj), D 4, D 5         = 3½   wins 2
    //   2 B: D 5, D 1, W 6, W 3, W 4               = 4    wins 3
    //   3 C: L 4, L 5, L 1, L 2, W 6 (forfeit)     = 1    wins 1
    //   4 D: W 3, D 6, D 5, D 1, L 2               = 2½   wins 1
    //   5 E: D 2, W 3, D 4, W 6 (forfeit), D 1     = 3½   wins 2
    //   6 F: L 1, D 4, L 2, L 5 (forf.), L 3 (f.)  = ½    wins 0
    //   (sum 15 = 15 games)
    // Sonneborn-Berger (opponent's points for a win, half for a draw):
    //   A: ½ (6) + 4/2 (2) + 1 (3) + 2½/2 (4) + 3½/2 (5) = ½+2+1+1¼+1¾ = 6½
    //   E: 4/2 (2) + 1 (3) + 2½/2 (4) + ½ (6) + 3½/2 (1) = 2+1+1¼+½+1¾ = 6½
    //   B: 3½/2 + 3½/2 + ½ + 1 + 2½ = 7½     D: 1 + ½/2 + 3½/2 + 3½/2 = 4¾
    //   C: ½                                  F: 2½/2 = 1¼
    // A and E tie on points, wins and SB; their game (R5 5-1) was drawn, so
    // direct encounter gives both ½: they share 2nd-3rd.
    // Baumbach (wins not by forfeit): B 3, A 2, E 1, D 1, C 0, F 0.
    // Koya (points against those on ≥ 2½ of 5: B, A, E, D):
    //   B: ½ (E) + ½ (A) + 1 (D) = 2;  A: ½+½+½ = 1½;  E: ½+½+½ = 1½;
    //   D: ½ (A) + ½ (E) + 0 (B) = 1;  C: 0;  F: ½ (D).
    // Games as Black (forfeits included): A 2, B 2, C 2, D 3, E 3, F 3.
    // Buchholz for A: its opponents' points F ½, B 4, C 1, D 2½, E 3½ =
    // 11½; cut 1 drops ½ (11), cut 2 also 1 (10), median 1 drops ½ and 4
    // (7). Progressive: A's scores after each round 1, 1½, 2½, 3, 3½ = 11½.
    #[test]
    fn a_round_robin_has_buchholz_its_cuts_and_the_progressive_score() {
        let order = [
            TieBreak::Buchholz,
            TieBreak::BuchholzCut1,
            TieBreak::BuchholzCut2,
            TieBreak::BuchholzMedian1,
            TieBreak::Progressive,
        ];
        let s = individual(6, &games(SIX), &[5], &rules(&order));
        let a = s.rows.iter().find(|r| r.player == 0).expect("A is ranked");
        assert_eq!(a.tie_breaks, vec![q(46), q(44), q(40), q(28), q(46)]);
    }

    #[test]
    fn six_player_round_robin_matches_the_hand_computed_iccf_table() {
        let s = individual(6, &games(SIX), &[5], &rules(&TieBreak::ICCF));
        assert!(s.annulled.is_empty());
        assert_eq!(
            lines(&s),
            vec![
                (2, 1, 1, 16, vec![q(12), q(30), None]),
                (1, 2, 3, 14, vec![q(8), q(26), q(2)]),
                (5, 2, 3, 14, vec![q(8), q(26), q(2)]),
                (4, 4, 4, 10, vec![q(4), q(19), None]),
                (3, 5, 5, 4, vec![q(4), q(2), None]),
                (6, 6, 6, 2, vec![q(0), q(5), None]),
            ]
        );
        assert!(s.rows.iter().all(|r| r.finished == 5));
    }

    #[test]
    fn baumbach_koya_and_black_games_split_what_iccf_order_leaves_tied() {
        let order = [TieBreak::GamesWon, TieBreak::Koya, TieBreak::GamesAsBlack];
        let s = individual(6, &games(SIX), &[5], &rules(&order));
        assert_eq!(
            lines(&s),
            vec![
                (2, 1, 1, 16, vec![q(12), q(8), q(8)]),
                (1, 2, 2, 14, vec![q(8), q(6), q(8)]),
                (5, 3, 3, 14, vec![q(4), q(6), q(12)]),
                (4, 4, 4, 10, vec![q(4), q(4), q(12)]),
                (3, 5, 5, 4, vec![q(0), q(0), q(8)]),
                (6, 6, 6, 2, vec![q(0), q(2), q(12)]),
            ]
        );
    }

    #[test]
    fn three_one_zero_scoring_counts_wins_three_and_draws_one() {
        // B 3W 2D = 11, A and E 2W 3D = 9, D 1W 3D = 6, C 1W = 3, F 1D = 1.
        let mut r = rules(&[]);
        r.scoring = Scoring {
            win: Points::whole(3),
            draw: Points::whole(1),
            loss: Points::ZERO,
        };
        let s = individual(6, &games(SIX), &[5], &r);
        let points: Vec<(usize, i64)> = s
            .rows
            .iter()
            .map(|r| (r.player + 1, r.points.quarters() / 4))
            .collect();
        assert_eq!(
            points,
            vec![(2, 11), (1, 9), (5, 9), (4, 6), (3, 3), (6, 1)]
        );
    }

    #[test]
    fn a_player_who_finished_under_half_is_annulled_and_counts_for_nobody() {
        // As SIX, but R3 2-6 was unfinished too: F finished 2 of 5, 2·2 < 5,
        // so every F game is annulled. Without them:
        //   A 2½ (lost W 6), B 3 (lost W 6), C 0 (lost forfeit W 6),
        //   D 2 (lost D 6), E 2½ (lost forfeit W 6); sum 10 = 10 games.
        let mut table = SIX.to_vec();
        table[6].3 = "*";
        let s = individual(6, &games(&table), &[5], &rules(&TieBreak::ICCF));
        assert_eq!(s.annulled, vec![5]);
        let points: Vec<(usize, u32, u32, i64)> = s
            .rows
            .iter()
            .map(|r| (r.player + 1, r.rank, r.rank_to, r.points.quarters()))
            .collect();
        assert_eq!(
            points,
            vec![
                (2, 1, 1, 12),
                (1, 2, 3, 10),
                (5, 2, 3, 10),
                (4, 4, 4, 8),
                (3, 5, 5, 0)
            ]
        );
        assert!(s.rows.iter().all(|r| r.finished == 4));
        let annulled = s
            .counted
            .iter()
            .filter(|c| **c == Counted::Annulled)
            .count();
        assert_eq!(annulled, 5);
    }

    #[test]
    fn forfeit_all_keeps_a_short_stayer_in_the_table_and_forfeits_the_rest() {
        // Same games as above under ForfeitAll: F stays, R3 2-6 becomes a
        // forfeit win for B, so B has 3 wins but Baumbach 2.
        let mut table = SIX.to_vec();
        table[6].3 = "*";
        let mut r = rules(&[TieBreak::Wins, TieBreak::GamesWon]);
        r.withdrawal = WithdrawalRule::ForfeitAll;
        let s = individual(6, &games(&table), &[5], &r);
        assert!(s.annulled.is_empty());
        let b = s.rows.iter().find(|r| r.player == 1).unwrap();
        assert_eq!(
            (b.points, b.tie_breaks.clone()),
            (Points::whole(4), vec![q(12), q(8)])
        );
    }

    #[test]
    fn unplayed_games_leave_sonneborn_berger_when_the_event_says_so() {
        // SIX's forfeits (R4 6-5, R5 3-6) are defaults. Counted, A and E tie
        // on SB 6½ (see above); without them E loses the ½ of its win over
        // F and C its ½: A 6½ > E 6, and E drops to third.
        let mut r = rules(&TieBreak::ICCF);
        r.sb_counts_unplayed = false;
        let s = individual(6, &games(SIX), &[5], &r);
        assert_eq!(
            lines(&s),
            vec![
                (2, 1, 1, 16, vec![q(12), q(30), None]),
                (1, 2, 2, 14, vec![q(8), q(26), None]),
                (5, 3, 3, 14, vec![q(8), q(24), None]),
                (4, 4, 4, 10, vec![q(4), q(19), None]),
                (3, 5, 5, 4, vec![q(4), q(0), None]),
                (6, 6, 6, 2, vec![q(0), q(5), None]),
            ]
        );
        // Points and wins are the same either way.
        let counted = individual(6, &games(SIX), &[5], &rules(&TieBreak::ICCF));
        for a in &s.rows {
            let b = counted.rows.iter().find(|x| x.player == a.player).unwrap();
            assert_eq!((a.points, a.tie_breaks[0]), (b.points, b.tie_breaks[0]));
        }
    }

    #[test]
    fn a_cancelled_game_counts_for_nobody_not_even_in_the_withdrawal_rule() {
        // 3-4 cancelled. 4 withdraws having finished 1 of the 2 games that
        // are theirs (the cancelled one is nobody's): half, so 4 stays and
        // 4-1 is a default win for 1.
        let table = [
            (1, 1, 2, "1-0"),
            (1, 3, 4, "x"),
            (2, 1, 3, "½-½"),
            (2, 2, 4, "0-1"),
            (3, 4, 1, "*"),
            (3, 2, 3, "1-0"),
        ];
        let s = individual(4, &games(&table), &[3], &rules(&[TieBreak::Wins]));
        assert!(s.annulled.is_empty());
        assert_eq!(s.counted[1], Counted::Cancelled);
        assert_eq!(
            s.counted[4],
            Counted::Result {
                outcome: GameResult::BlackWins,
                decision: Decision::Forfeit
            }
        );
        assert_eq!(
            lines(&s),
            vec![
                (1, 1, 1, 10, vec![q(8)]),
                (2, 2, 3, 4, vec![q(4)]),
                (4, 2, 3, 4, vec![q(4)]),
                (3, 4, 4, 2, vec![q(0)]),
            ]
        );
        let finished: Vec<u32> = s.rows.iter().map(|r| r.finished).collect();
        assert_eq!(finished, vec![3, 3, 2, 2]);
    }

    #[test]
    fn unfinished_games_count_as_not_played_and_hold_back_direct_encounter() {
        // 1-2 drawn, 2-3 and 3-1 unfinished: 1 and 2 tie on ½, and the only
        // game between them is finished, so direct encounter applies (½ each);
        // 3 has nothing yet, and alone in its group gets no DE value.
        let table = [(1, 1, 2, "½-½"), (2, 2, 3, "*"), (3, 3, 1, "*")];
        let s = individual(3, &games(&table), &[], &rules(&[TieBreak::DirectEncounter]));
        assert_eq!(
            lines(&s),
            vec![
                (1, 1, 2, 2, vec![q(2)]),
                (2, 1, 2, 2, vec![q(2)]),
                (3, 3, 3, 0, vec![None])
            ]
        );
        // Then 1 beats 3 while 2-3 is still on: 1 leads alone.
        let table = [(1, 1, 2, "½-½"), (2, 2, 3, "*"), (3, 3, 1, "0-1")];
        let s = individual(3, &games(&table), &[], &rules(&[TieBreak::Wins]));
        assert_eq!(s.rows[0].player, 0);
        assert_eq!(s.rows[0].finished, 2);
        assert_eq!(s.rows[2].finished, 1);
        // Three tied on 1 each, with one of their games unfinished: DE blank.
        let table = [
            (1, 1, 2, "1-0"),
            (2, 2, 3, "1-0"),
            (3, 3, 1, "1-0"),
            (4, 1, 2, "*"),
        ];
        let s = individual(3, &games(&table), &[], &rules(&[TieBreak::DirectEncounter]));
        assert!(
            s.rows
                .iter()
                .all(|r| r.rank == 1 && r.rank_to == 3 && r.tie_breaks == vec![None])
        );
    }

    #[test]
    fn games_naming_unknown_players_are_ignored_not_a_panic() {
        let table = [(1, 1, 9, "1-0"), (1, 2, 2, "1-0"), (1, 1, 2, "0-1")];
        let s = individual(2, &games(&table), &[7], &rules(&TieBreak::ALL));
        assert_eq!(s.games.len(), 1);
        assert_eq!(s.rows[0].player, 1);
    }

    fn team_rules() -> TeamRules {
        TeamRules {
            scoring: Scoring::default(),
            order: TeamCriterion::TEAM_MATCH.to_vec(),
            withdrawal: WithdrawalRule::AnnulIfUnderHalf,
        }
    }

    // Hand computation for OLYMPIAD. Team 4 board 4 finished 2 of 3 games
    // (R1 won, R2 drawn): 2·2 ≥ 3, so the R3 game is forfeited to team 2.
    //   R1  T1 2½ – 1½ T4      T2 2 – 2 T3
    //   R2  T4 1 – 3 T3 (b2 adjudicated)   T1 2½ – 1½ T2
    //   R3  T2 2½ – 1½ T4 (b4 by forfeit)  T3 2 – 2 T1
    // Game points: T1 2½+2½+2 = 7, T2 2+1½+2½ = 6, T3 2+3+2 = 7,
    //   T4 1½+1+1½ = 4 (sum 24 = 24 games).
    // Match points: T1 2+2+1 = 5, T2 1+0+2 = 3, T3 1+2+1 = 4, T4 0.
    // T1 and T3 tie on game points; match points split them.
    // SB by match points: T1 0 (T4) + 3 (T2) + 4/2 (T3) = 5;
    //   T3 3/2 (T2) + 0 (T4) + 5/2 (T1) = 4; T2 4/2 (T3) + 0 (T4) = 2; T4 0.
    #[test]
    fn four_team_olympiad_matches_the_hand_computed_table() {
        let s = team(4, &team_games(OLYMPIAD), &[(3, 4)], &team_rules());
        let rows: Vec<_> = s
            .rows
            .iter()
            .map(|r| (r.team + 1, r.rank, r.values.clone()))
            .collect();
        assert_eq!(
            rows,
            vec![
                (1, 1, vec![q(28), q(20), None, q(20)]),
                (3, 2, vec![q(28), q(16), None, q(16)]),
                (2, 3, vec![q(24), q(12), None, q(8)]),
                (4, 4, vec![q(16), q(0), None, q(0)]),
            ]
        );
        assert!(s.matches.iter().all(|m| m.decided));
        assert_eq!(s.matches.len(), 6);
    }

    // Hand computation for TIED_OLYMPIAD under ICCF's chain (A, B, C are
    // teams 1, 2, 3; results per board from the first-named team's side):
    //   A–B  b1 ½  b2 1  b3 0  b4-6 ½      A 3 – 3 B
    //   A–C  b1 1  b2 ½  b3 1  b4-6 ½      A 4 – 2 C
    //   B–C  b1 ½  b2 1  b3 1  b4-6 ½      B 4 – 2 C
    // Game points A 7, B 7, C 4; match points A 1+2 = 3, B 1+2 = 3, C 0.
    // Direct encounter between A and B: their match was drawn, 1 each.
    // Each board's table (the board's points, then SB = the opponent's
    // board points for a win, half for a draw):
    //   b1: A 1½, B 1, C ½.  SB A ½·1 + ½ = 1,  B ½·1½ + ½·½ = 1,  C ½·1 = ½
    //   b2: A 1½, B 1, C ½.  SB A 1 + ½·½ = 1¼,  B ½,  C ½·1½ = ¾
    //   b3: A 1, B 2, C 0.   SB A 0,  B 1 + 0 = 1,  C 0
    //   b4-6: 1 each, all drawn: SB 1 each.
    // A and B stay tied after board 1; board 2 puts A first.
    #[test]
    fn six_board_olympiad_tie_is_decided_by_iccf_s_chain_board_by_board() {
        let rules = TeamRules {
            order: TeamCriterion::ICCF.to_vec(),
            ..team_rules()
        };
        let s = team(3, &team_games(TIED_OLYMPIAD), &[], &rules);
        let headings: Vec<String> = s.columns.iter().map(|c| c.heading()).collect();
        assert_eq!(
            headings,
            ["GP", "MP", "DE", "SB1", "SB2", "SB3", "SB4", "SB5", "SB6"]
        );
        let rows: Vec<_> = s
            .rows
            .iter()
            .map(|r| (r.team + 1, r.rank, r.values.clone()))
            .collect();
        let sb = |quarters: [i64; 6]| quarters.map(q);
        let line = |gp, mp, de, sbs: [Option<Points>; 6]| {
            let mut v = vec![q(gp), q(mp), de];
            v.extend(sbs);
            v
        };
        assert_eq!(
            rows,
            vec![
                (1, 1, line(28, 12, q(4), sb([4, 5, 0, 4, 4, 4]))),
                (2, 2, line(28, 12, q(4), sb([4, 2, 4, 4, 4, 4]))),
                (3, 3, line(16, 0, None, sb([2, 3, 0, 4, 4, 4]))),
            ]
        );
        // Under the match-point SB instead, A and B stay tied: both beat C
        // (0 match points) and drew with each other (3 match points each).
        let s = team(3, &team_games(TIED_OLYMPIAD), &[], &team_rules());
        assert_eq!((s.rows[0].rank, s.rows[0].rank_to), (1, 2));
    }

    #[test]
    fn annulling_a_board_changes_match_results_and_counts_it_for_nobody() {
        // As OLYMPIAD, but R2 b4 (T4–T3) unfinished too: T4's board 4 has
        // finished 1 of 3, 2·1 < 3, so all three of its games are annulled.
        //   R1 T1 2½ – ½ T4; R2 T4 ½ – 2½ T3; R3 T2 1½ – 1½ T4 (now a draw).
        // Game points: T1 7, T2 2+1½+1½ = 5, T3 2+2½+2 = 6½, T4 ½+½+1½ = 2½.
        // Match points: T1 5, T2 1+0+1 = 2, T3 4, T4 0+0+1 = 1.
        let mut table = OLYMPIAD.to_vec();
        table[2].3[3] = "*";
        let s = team(4, &team_games(&table), &[(3, 4)], &team_rules());
        let rows: Vec<_> = s
            .rows
            .iter()
            .map(|r| {
                (
                    r.team + 1,
                    r.game_points.quarters(),
                    r.match_points.quarters(),
                )
            })
            .collect();
        assert_eq!(rows, vec![(1, 28, 20), (3, 26, 16), (2, 20, 8), (4, 10, 4)]);
    }

    #[test]
    fn direct_encounter_splits_teams_tied_on_match_points() {
        // One board per match. T1 beats T2, T3 beats T1, T2 beats T3: every
        // team has 2 match points, and each won one match inside the group,
        // so direct encounter gives each 2 and splits nothing.
        let games = vec![
            ScoredTeamGame {
                round: 1,
                board: 1,
                white_team: 0,
                black_team: 1,
                state: state("1-0"),
            },
            ScoredTeamGame {
                round: 2,
                board: 1,
                white_team: 2,
                black_team: 0,
                state: state("1-0"),
            },
            ScoredTeamGame {
                round: 3,
                board: 1,
                white_team: 1,
                black_team: 2,
                state: state("1-0"),
            },
        ];
        let rules = TeamRules {
            order: vec![TeamCriterion::MatchPoints, TeamCriterion::DirectEncounter],
            ..team_rules()
        };
        let s = team(3, &games, &[], &rules);
        assert!(s.rows.iter().all(|r| (r.rank, r.rank_to) == (1, 3)));
        // Add T4: T3 beats it, T1 and T2 draw with it. Match points: T3 4,
        // T1 3, T2 3, T4 2. T1 beat T2 in their match, so direct encounter
        // (T1 2, T2 0) puts T1 above T2.
        let mut games = games;
        games.push(ScoredTeamGame {
            round: 4,
            board: 1,
            white_team: 2,
            black_team: 3,
            state: state("1-0"),
        });
        games.push(ScoredTeamGame {
            round: 5,
            board: 1,
            white_team: 0,
            black_team: 3,
            state: state("½-½"),
        });
        games.push(ScoredTeamGame {
            round: 6,
            board: 1,
            white_team: 1,
            black_team: 3,
            state: state("½-½"),
        });
        let s = team(4, &games, &[], &rules);
        let rows: Vec<_> = s
            .rows
            .iter()
            .map(|r| (r.team + 1, r.rank, r.values.clone()))
            .collect();
        assert_eq!(
            rows,
            vec![
                (3, 1, vec![q(16), None]),
                (1, 2, vec![q(12), q(8)]),
                (2, 3, vec![q(12), q(0)]),
                (4, 4, vec![q(8), None]),
            ]
        );
    }
}

#[cfg(test)]
mod properties {
    use super::super::tiebreak::{TeamCriterion, TieBreak};
    use super::*;
    use proptest::prelude::*;

    fn any_state() -> impl Strategy<Value = GameState> {
        prop_oneof![
            Just(GameState::Unfinished),
            Just(GameState::Cancelled),
            (0..3u8, 0..4u8).prop_map(|(o, d)| GameState::Finished {
                outcome: [
                    GameResult::WhiteWins,
                    GameResult::Draw,
                    GameResult::BlackWins
                ][o as usize],
                decision: [
                    Decision::Played,
                    Decision::Time,
                    Decision::Adjudicated,
                    Decision::Forfeit
                ][d as usize],
            }),
        ]
    }

    fn total(counted: &[Counted]) -> Points {
        // Every counted game hands out exactly 1 point under 1/½/0.
        Points::whole(
            counted
                .iter()
                .filter(|c| matches!(c, Counted::Result { .. }))
                .count() as i64,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
            ..ProptestConfig::default()
        })]

        #[test]
        fn any_games_rank_every_player_once_and_hand_out_every_point(
            players in 0usize..9,
            games in proptest::collection::vec((0usize..10, 0usize..10, any_state()), 0..40),
            withdrawn in proptest::collection::vec(0usize..10, 0..3),
            rule in prop_oneof![Just(WithdrawalRule::ForfeitAll), Just(WithdrawalRule::AnnulIfUnderHalf)],
            sb_counts_unplayed in any::<bool>(),
        ) {
            let games: Vec<ScoredGame> = games
                .into_iter()
                .map(|(white, black, state)| ScoredGame { round: 1, white, black, state })
                .collect();
            let rules = Rules { scoring: Scoring::default(), tie_breaks: TieBreak::ALL.to_vec(), withdrawal: rule, sb_counts_unplayed };
            let s = individual(players, &games, &withdrawn, &rules);
            let mut seen: Vec<usize> = s.rows.iter().map(|r| r.player).chain(s.annulled.iter().copied()).collect();
            seen.sort_unstable();
            let everyone: Vec<usize> = (0..players).collect();
            prop_assert_eq!(seen, everyone);
            let points: Points = s.rows.iter().map(|r| r.points).sum();
            prop_assert_eq!(points, total(&s.counted));
            for pair in s.rows.windows(2) {
                prop_assert!(pair[0].rank <= pair[1].rank);
                prop_assert!(pair[0].points >= pair[1].points);
            }
            let table = super::super::crosstable::individual("t", &[], &[], &s);
            prop_assert_eq!(table.rows.len(), s.rows.len());
        }

        #[test]
        fn any_team_games_rank_every_team_once_and_hand_out_every_point(
            teams in 0usize..6,
            games in proptest::collection::vec((0usize..7, 0usize..7, 1u32..4, any_state()), 0..40),
            withdrawn in proptest::collection::vec((0usize..7, 1u32..4), 0..3),
        ) {
            let games: Vec<ScoredTeamGame> = games
                .into_iter()
                .map(|(white_team, black_team, board, state)| ScoredTeamGame { round: 1, board, white_team, black_team, state })
                .collect();
            let rules = TeamRules {
                scoring: Scoring::default(),
                order: TeamCriterion::TEAM_MATCH.to_vec(),
                withdrawal: WithdrawalRule::AnnulIfUnderHalf,
            };
            let s = team(teams, &games, &withdrawn, &rules);
            prop_assert_eq!(s.rows.len(), teams);
            let board_points: Points = s.rows.iter().map(|r| r.game_points).sum();
            let from_matches: Points = s.matches.iter().map(|m| m.points_a + m.points_b).sum();
            prop_assert_eq!(board_points, from_matches);
            let table = super::super::crosstable::team("t", &[], &s);
            prop_assert_eq!(table.rows.len(), teams);
        }
    }
}
