//! Crosstables: the standings with every result, as fixed-width text (for
//! mails), CSV, JSON and HTML.
//!
//! Rows are in ranking order and numbered; the grid's columns use the same
//! numbers. An individual cell holds one mark per game between the two
//! players, in round order (two in a double round robin), as ICCF writes
//! them:
//!
//! | mark | the game |
//! |---|---|
//! | `1` `½` `0` | won, drawn, lost over the board |
//! | `1E` `½E` `0E` | won, drawn, lost on time (by the clock or a TD's ruling) |
//! | `1A` `½A` `0A` | won, drawn, lost by adjudication |
//! | `+` `-` | won, lost by default, without play (a player never started or withdrew) |
//! | `x` | cancelled by the TD: counts for nobody |
//! | `*` | not finished |
//!
//! `X` is the player's own cell. ICCF's tables leave a cancelled game's cell
//! empty; dopis writes `x` so that a cancelled game is not mistaken for one
//! never paired (a game annulled by a withdrawal has no mark: its player
//! has left the table). When any cell holds a two-character mark, the marks
//! of a double round robin's cells are separated by a space (`1E ½`, `0 1`). A team cell holds the row team's board points in that
//! match, with `*` while the match is not decided.
//!
//! An individual table also shows, per player: the rating (`Elo`, after
//! the name, when any player has one), games played and left, wins, draws
//! and losses (`+`, `=`, `-`, forfeits included), the percentage of the
//! points of the games played, and the performance rating `Rp` over the
//! games played over the board against rated opponents (FIDE's `Ra + dp`,
//! [`crate::domain::rating::performance`]). JSON adds these as fields of each row
//! (`rating`, `played`, `remaining`, `wins`, `draws`, `losses`, `percent`,
//! `performance`); nothing it had before changed.
//!
//! A table by rounds (a Swiss event's, built by
//! [`crate::domain::event::swiss::crosstable`]) has one column per round
//! (`R1`, `R2`, …) instead of one per row, and each row's `rounds` in JSON.

use serde::Serialize;

use super::Points;
use super::standings::{Counted, Standings, TeamStandings};
use super::{Decision, Side, SideResult};

/// A crosstable, ready to render in any format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Crosstable {
    /// The event's name.
    pub title: String,
    /// Headings of the value columns after the grid (`Pts`, `SB`, …).
    pub headings: Vec<String>,
    /// The rows, best first.
    pub rows: Vec<Row>,
    /// The headings of the first three columns (`Rank`, `No`, `Name`) and
    /// the mark after a withdrawn player's name (`withdrawn`): English until
    /// [`Crosstable::relabel`] says them in a reader's words.
    #[serde(skip)]
    pub labels: [String; 4],
    /// The headings of the columns after the values (`Gms`, `Left`, `+`,
    /// `=`, `-`, `%`, `Rp`) and of the rating column (`Elo`), in English
    /// until relabelled; empty for team tables.
    #[serde(skip)]
    pub more: Vec<String>,
    /// A table by rounds: the word before each round's number in the
    /// grid's headings (`R`, as in `R1`, English until relabelled). `None`:
    /// the grid has a column per row, headed by the rows' numbers.
    #[serde(skip)]
    pub round_word: Option<String>,
}

/// The headings of an individual table's further columns, in English: the
/// rating column comes first, the others after the values.
fn english_more() -> Vec<String> {
    ["Elo", "Gms", "Left", "+", "=", "-", "%", "Rp"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// A column of figures after the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Figure {
    Played,
    Remaining,
    Wins,
    Draws,
    Losses,
    /// Wins, draws and losses in one column (`2/1/0`), for text.
    Record,
    Percent,
    Performance,
}

/// A player's games in figures: played and left, wins, draws and losses,
/// the percentage, and the performance rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Figures {
    /// Games with a result (forfeits included).
    pub played: u32,
    /// Games still being played.
    pub remaining: u32,
    /// Won (`+`).
    pub wins: u32,
    /// Drawn (`=`).
    pub draws: u32,
    /// Lost (`-`).
    pub losses: u32,
    /// Points of the games played, in per cent (rounded, half up); `None`
    /// before any.
    pub percent: Option<u32>,
    /// The performance rating over the games played over the board against
    /// rated opponents; `None` without such games.
    pub performance: Option<i32>,
}

/// The headings of the first three columns and the withdrawn mark in English.
fn english_labels() -> [String; 4] {
    [
        "Rank".to_string(),
        "No".to_string(),
        "Name".to_string(),
        "withdrawn".to_string(),
    ]
}

/// One row of a crosstable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// Rank, `3` or `3-4` when shared.
    pub rank: String,
    /// The row's number, which is also its column in the grid.
    pub number: usize,
    /// Player or team name.
    pub name: String,
    /// One cell per row of the table, in row order.
    pub results: Vec<String>,
    /// One value per heading; `None` where a tie-break is not applied.
    pub values: Vec<Option<Points>>,
    /// Whether the player withdrew (the name is then marked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub withdrawn: bool,
    /// The player's rating, if rated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<i32>,
    /// Games in figures (individual tables only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub figures: Option<Figures>,
    /// A table by rounds: the player's rounds, one object each (its cell
    /// in `results` says the same in one word).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Vec<RoundResult>>,
}

/// One round of a player in a table by rounds, as JSON gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoundResult {
    /// The round, from 1.
    pub round: u32,
    /// The opponent's number (in a Swiss table the pairing number), or
    /// `None` without one (a bye, an absence).
    pub opponent: Option<usize>,
    /// The player's colour (`white`, `black`), or `None` without a game.
    pub colour: Option<&'static str>,
    /// The mark: `1` `½` `0` (played), `+` `-` (won, lost by forfeit),
    /// `*` (still being played), or a bye's or absence's worth (`1` `½`
    /// `0`).
    pub result: String,
    /// Whether the round is a game over the board (finished or not): false
    /// for a forfeit, a bye and an absence.
    pub played: bool,
    /// The points the round gave; `None` while its game goes on.
    pub points: Option<Points>,
    /// A round without a game: `pairing` (the pairing-allocated bye),
    /// `half` or `full` (a half- or full-point bye), `zero` (a zero-point
    /// bye or an absence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bye: Option<&'static str>,
}

pub(super) fn rank_text(rank: u32, rank_to: u32) -> String {
    if rank == rank_to {
        rank.to_string()
    } else {
        format!("{rank}-{rank_to}")
    }
}

fn name_of(names: &[String], index: usize) -> String {
    names
        .get(index)
        .cloned()
        .unwrap_or_else(|| format!("#{}", index + 1))
}

/// The ICCF mark of one player's result in one game (see the module docs).
pub fn mark(result: SideResult, decision: Decision) -> &'static str {
    match (decision, result) {
        (Decision::Forfeit, SideResult::Win) => "+",
        (Decision::Forfeit, SideResult::Loss) => "-",
        (Decision::Time, SideResult::Win) => "1E",
        (Decision::Time, SideResult::Draw) => "½E",
        (Decision::Time, SideResult::Loss) => "0E",
        (Decision::Adjudicated, SideResult::Win) => "1A",
        (Decision::Adjudicated, SideResult::Draw) => "½A",
        (Decision::Adjudicated, SideResult::Loss) => "0A",
        (_, SideResult::Win) => "1",
        (_, SideResult::Draw) => "½",
        (_, SideResult::Loss) => "0",
    }
}

/// The crosstable of an individual event; `names` by player index, and the
/// indices of the players who withdrew.
pub fn individual(
    title: &str,
    names: &[String],
    withdrawn: &[usize],
    standings: &Standings,
) -> Crosstable {
    individual_rated(title, names, withdrawn, standings, &[])
}

/// A player's games in figures, with the performance against `ratings`
/// (by player index).
fn figures_of(player: usize, standings: &Standings, ratings: &[Option<i32>]) -> Figures {
    let mut f = Figures::default();
    let mut opponents = Vec::new();
    let mut over_the_board = 0u32;
    for (g, c) in standings.games.iter().zip(&standings.counted) {
        let (side, them) = if g.white == player {
            (Side::White, g.black)
        } else if g.black == player {
            (Side::Black, g.white)
        } else {
            continue;
        };
        match *c {
            Counted::Pending => f.remaining += 1,
            Counted::Annulled | Counted::Cancelled => {}
            Counted::Result { outcome, decision } => {
                f.played += 1;
                let halves = match outcome.for_side(side) {
                    SideResult::Win => {
                        f.wins += 1;
                        2
                    }
                    SideResult::Draw => {
                        f.draws += 1;
                        1
                    }
                    SideResult::Loss => {
                        f.losses += 1;
                        0
                    }
                };
                if decision != Decision::Forfeit
                    && let Some(r) = ratings.get(them).copied().flatten()
                {
                    opponents.push(r);
                    over_the_board += halves;
                }
            }
        }
    }
    if f.played > 0 {
        let halves = 2 * f.wins + f.draws;
        // 100 × halves / (2 × played), rounded half up.
        f.percent = Some((100 * halves + f.played) / (2 * f.played));
    }
    f.performance = crate::domain::rating::performance(&opponents, over_the_board);
    f
}

/// The crosstable of an individual event with the players' ratings (by
/// player index; `None` or missing: unrated): the rating column and each
/// player's performance.
pub fn individual_rated(
    title: &str,
    names: &[String],
    withdrawn: &[usize],
    standings: &Standings,
    ratings: &[Option<i32>],
) -> Crosstable {
    let order: Vec<usize> = standings.rows.iter().map(|r| r.player).collect();
    let mut games: Vec<_> = standings.games.iter().zip(&standings.counted).collect();
    games.sort_by_key(|(g, _)| g.round);
    let marks = |me: usize, them: usize| -> Vec<&'static str> {
        if me == them {
            return vec!["X"];
        }
        games
            .iter()
            .filter_map(|(g, c)| {
                let side = if (g.white, g.black) == (me, them) {
                    Side::White
                } else if (g.white, g.black) == (them, me) {
                    Side::Black
                } else {
                    return None;
                };
                match **c {
                    Counted::Pending => Some("*"),
                    Counted::Annulled => None,
                    Counted::Cancelled => Some("x"),
                    Counted::Result { outcome, decision } => {
                        Some(mark(outcome.for_side(side), decision))
                    }
                }
            })
            .collect()
    };
    let grid: Vec<Vec<Vec<&str>>> = order
        .iter()
        .map(|&me| order.iter().map(|&them| marks(me, them)).collect())
        .collect();
    // Two games in a cell read `1½` until a mark is two characters long
    // (`1E`): then every cell separates its marks, so the table reads one way.
    let long = grid
        .iter()
        .flatten()
        .flatten()
        .any(|m| m.chars().count() > 1);
    let joiner = if long { " " } else { "" };
    let mut headings = vec!["Pts".to_string()];
    headings.extend(standings.tie_breaks.iter().map(|t| t.heading().to_string()));
    let rows = standings
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| Row {
            rank: rank_text(r.rank, r.rank_to),
            number: i + 1,
            name: name_of(names, r.player),
            withdrawn: withdrawn.contains(&r.player),
            results: grid[i].iter().map(|m| m.join(joiner)).collect(),
            values: std::iter::once(Some(r.points))
                .chain(r.tie_breaks.iter().copied())
                .collect(),
            rating: ratings.get(r.player).copied().flatten(),
            figures: Some(figures_of(r.player, standings, ratings)),
            rounds: None,
        })
        .collect();
    Crosstable {
        title: title.to_string(),
        headings,
        rows,
        labels: english_labels(),
        more: english_more(),
        round_word: None,
    }
}

/// The crosstable of a team event; `names` by team index.
pub fn team(title: &str, names: &[String], standings: &TeamStandings) -> Crosstable {
    let order: Vec<usize> = standings.rows.iter().map(|r| r.team).collect();
    let cell = |me: usize, them: usize| -> String {
        if me == them {
            return "X".into();
        }
        let Some(m) = standings
            .matches
            .iter()
            .find(|m| (m.team_a, m.team_b) == (me.min(them), me.max(them)))
        else {
            return String::new();
        };
        let mine = if me == m.team_a {
            m.points_a
        } else {
            m.points_b
        };
        if m.decided {
            mine.to_string()
        } else {
            format!("{mine}*")
        }
    };
    let rows = standings
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| Row {
            rank: rank_text(r.rank, r.rank_to),
            number: i + 1,
            name: name_of(names, r.team),
            withdrawn: false,
            results: order.iter().map(|&them| cell(r.team, them)).collect(),
            values: r.values.clone(),
            rating: None,
            figures: None,
            rounds: None,
        })
        .collect();
    Crosstable {
        title: title.to_string(),
        headings: standings.columns.iter().map(|c| c.heading()).collect(),
        rows,
        labels: english_labels(),
        more: Vec::new(),
        round_word: None,
    }
}

impl Crosstable {
    /// The same table with its column headings in a reader's words: `word`
    /// gives the word for an English heading (`Rank`, `No`, `Name`, `Pts`,
    /// `Wins`, …), or `None` to keep it (`SB` reads the same everywhere).
    pub fn relabel(&self, word: impl Fn(&str) -> Option<&'static str>) -> Crosstable {
        let say = |h: &String| word(h).map_or_else(|| h.clone(), str::to_string);
        Crosstable {
            labels: [
                say(&self.labels[0]),
                say(&self.labels[1]),
                say(&self.labels[2]),
                say(&self.labels[3]),
            ],
            headings: self.headings.iter().map(say).collect(),
            more: self.more.iter().map(say).collect(),
            round_word: self.round_word.as_ref().map(say),
            ..self.clone()
        }
    }

    /// The number of the grid's columns: one per round in a table by
    /// rounds, else one per row.
    fn grid_width(&self) -> usize {
        match self.round_word {
            Some(_) => self.rows.iter().map(|r| r.results.len()).max().unwrap_or(0),
            None => self.rows.len(),
        }
    }

    /// Whether the rating column is shown: some player is rated.
    fn rated(&self) -> bool {
        !self.more.is_empty() && self.rows.iter().any(|r| r.rating.is_some())
    }

    /// Whether the performance column is shown: some player has one.
    fn performances(&self) -> bool {
        self.rows
            .iter()
            .any(|r| r.figures.is_some_and(|f| f.performance.is_some()))
    }

    /// The figure columns after the values, in order. `compact` (the text
    /// form, which must fit a mail's 78 columns) writes wins, draws and
    /// losses as one column (`2/1/0`) and leaves out `Left` once no game
    /// remains; the other forms have a column each, always.
    fn figure_columns(&self, compact: bool) -> Vec<Figure> {
        if self.more.len() < 8 || !self.rows.iter().any(|r| r.figures.is_some()) {
            return Vec::new();
        }
        let mut out = vec![Figure::Played];
        let remaining = self
            .rows
            .iter()
            .any(|r| r.figures.is_some_and(|f| f.remaining > 0));
        if !compact || remaining {
            out.push(Figure::Remaining);
        }
        if compact {
            out.push(Figure::Record);
        } else {
            out.extend([Figure::Wins, Figure::Draws, Figure::Losses]);
        }
        out.push(Figure::Percent);
        if self.performances() {
            out.push(Figure::Performance);
        }
        out
    }

    fn figure_heading(&self, column: Figure) -> String {
        let m = &self.more;
        match column {
            Figure::Played => m[1].clone(),
            Figure::Remaining => m[2].clone(),
            Figure::Wins => m[3].clone(),
            Figure::Draws => m[4].clone(),
            Figure::Losses => m[5].clone(),
            Figure::Record => format!("{}/{}/{}", m[3], m[4], m[5]),
            Figure::Percent => m[6].clone(),
            Figure::Performance => m[7].clone(),
        }
    }

    fn header(&self, compact: bool) -> Vec<String> {
        let mut header = self.labels[..3].to_vec();
        if self.rated() {
            header.push(self.more[0].clone());
        }
        let word = self.round_word.as_deref().unwrap_or_default();
        header.extend((1..=self.grid_width()).map(|n| format!("{word}{n}")));
        header.extend(self.headings.iter().cloned());
        header.extend(
            self.figure_columns(compact)
                .into_iter()
                .map(|c| self.figure_heading(c)),
        );
        header
    }

    /// Per value column: write it as decimals (`6.5`) rather than chess
    /// style (`6½`), because some value in it has quarters (`4.75`) and a
    /// column should read one way.
    fn decimal_columns(&self) -> Vec<bool> {
        (0..self.headings.len())
            .map(|i| {
                self.rows.iter().any(|r| {
                    r.values
                        .get(i)
                        .copied()
                        .flatten()
                        .is_some_and(|v| v.quarters() % 2 != 0)
                })
            })
            .collect()
    }

    fn cells(&self, row: &Row, decimal: &[bool], compact: bool) -> Vec<String> {
        let name = if row.withdrawn {
            format!("{} ({})", row.name, self.labels[3])
        } else {
            row.name.clone()
        };
        let mut cells = vec![row.rank.clone(), row.number.to_string(), name];
        if self.rated() {
            cells.push(row.rating.map(|r| r.to_string()).unwrap_or_default());
        }
        cells.extend(row.results.iter().cloned());
        cells.extend(row.values.iter().enumerate().map(|(i, v)| match v {
            None => String::new(),
            Some(v) if decimal.get(i).copied().unwrap_or(true) => v.decimal(),
            Some(v) => v.to_string(),
        }));
        let f = row.figures.unwrap_or_default();
        cells.extend(self.figure_columns(compact).into_iter().map(|c| match c {
            Figure::Played => f.played.to_string(),
            Figure::Remaining => f.remaining.to_string(),
            Figure::Wins => f.wins.to_string(),
            Figure::Draws => f.draws.to_string(),
            Figure::Losses => f.losses.to_string(),
            Figure::Record => format!("{}/{}/{}", f.wins, f.draws, f.losses),
            Figure::Percent => f.percent.map(|p| p.to_string()).unwrap_or_default(),
            Figure::Performance => f.performance.map(|p| p.to_string()).unwrap_or_default(),
        }));
        cells
    }

    /// Fixed-width text: the title, then aligned columns (names left, all
    /// else right), for the plain part of a mail.
    pub fn to_text(&self) -> String {
        let header = self.header(true);
        let decimal = self.decimal_columns();
        let body: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| self.cells(r, &decimal, true))
            .collect();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for row in &body {
            for (w, c) in widths.iter_mut().zip(row) {
                *w = (*w).max(c.chars().count());
            }
        }
        let line = |cells: &[String]| -> String {
            let parts: Vec<String> = cells
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (c, &w))| {
                    if i == 2 {
                        format!("{c:<w$}")
                    } else {
                        format!("{c:>w$}")
                    }
                })
                .collect();
            parts.join("  ").trim_end().to_string()
        };
        let mut out = format!("{}\n\n", self.title);
        out.push_str(&line(&header));
        out.push('\n');
        let total = widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1);
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for row in &body {
            out.push_str(&line(row));
            out.push('\n');
        }
        out
    }

    /// CSV (RFC 4180, comma-separated, CRLF line ends), numbers as decimals.
    pub fn to_csv(&self) -> String {
        let field = |text: &str| -> String {
            if text.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", text.replace('"', "\"\""))
            } else {
                text.to_string()
            }
        };
        let record = |cells: &[String]| -> String {
            let fields: Vec<String> = cells.iter().map(|c| field(c)).collect();
            fields.join(",") + "\r\n"
        };
        let all_decimal = vec![true; self.headings.len()];
        let mut out = record(&self.header(false));
        for row in &self.rows {
            out.push_str(&record(&self.cells(row, &all_decimal, false)));
        }
        out
    }

    /// JSON: the crosstable as an object (`title`, `headings`, `rows` with
    /// `rank`, `number`, `name`, `results`, `values`; values are numbers or
    /// null).
    pub fn to_json(&self) -> String {
        // Serializing plain strings, numbers and vectors cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// HTML: one `<table class="crosstable">` with the title as caption,
    /// every text escaped.
    pub fn to_html(&self) -> String {
        self.html(false, '.')
    }

    /// HTML for a web page: as [`Crosstable::to_html`], with every column
    /// heading scoped for screen readers and the fractions of tie-break
    /// values written with `decimal_mark` (`10,25` where the reader's
    /// language writes a comma).
    pub fn to_page_html(&self, decimal_mark: char) -> String {
        self.html(true, decimal_mark)
    }

    fn html(&self, scoped: bool, decimal_mark: char) -> String {
        let mut out = String::from("<table class=\"crosstable\">\n");
        out.push_str(&format!(
            "<caption>{}</caption>\n<thead><tr>",
            crate::domain::html::escape(&self.title)
        ));
        let th = if scoped { "<th scope=\"col\">" } else { "<th>" };
        for h in self.header(false) {
            out.push_str(&format!("{th}{}</th>", crate::domain::html::escape(&h)));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        let decimal = self.decimal_columns();
        // The value columns (tie-breaks) follow the name, the rating and
        // the grid; only their fractions take the reader's mark.
        let values = 3 + usize::from(self.rated()) + self.grid_width();
        for row in &self.rows {
            out.push_str("<tr>");
            for (i, c) in self.cells(row, &decimal, false).iter().enumerate() {
                let tag = if i == 2 { "th scope=\"row\"" } else { "td" };
                let close = if i == 2 { "th" } else { "td" };
                let text =
                    if decimal_mark != '.' && (values..values + self.headings.len()).contains(&i) {
                        c.replace('.', &decimal_mark.to_string())
                    } else {
                        c.clone()
                    };
                out.push_str(&format!(
                    "<{tag}>{}</{close}>",
                    crate::domain::html::escape(&text)
                ));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::standings::{self, Rules, TeamRules};
    use super::super::testdata::{OLYMPIAD, SIX, games, team_games};
    use super::super::tiebreak::{TeamCriterion, TieBreak};
    use super::super::{Scoring, WithdrawalRule};
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn six() -> Crosstable {
        let rules = Rules {
            scoring: Scoring::default(),
            tie_breaks: TieBreak::ICCF.to_vec(),
            withdrawal: WithdrawalRule::AnnulIfUnderHalf,
            sb_counts_unplayed: true,
        };
        let s = standings::individual(6, &games(SIX), &[5], &rules);
        let players = names(&["Ana", "Boris", "Cene", "Darja", "Eva", "Franc"]);
        individual("Club championship 2027", &players, &[], &s)
    }

    #[test]
    fn a_withdrawn_players_name_is_marked_in_the_readers_words() {
        let rules = Rules {
            scoring: Scoring::default(),
            tie_breaks: TieBreak::ICCF.to_vec(),
            withdrawal: WithdrawalRule::ForfeitAll,
            sb_counts_unplayed: true,
        };
        let s = standings::individual(6, &games(SIX), &[5], &rules);
        let players = names(&["Ana", "Boris", "Cene", "Darja", "Eva", "Franc"]);
        let table = individual("t", &players, &[5], &s);
        assert!(
            table.to_text().contains("Franc (withdrawn)"),
            "{}",
            table.to_text()
        );
        assert!(table.to_json().contains("\"withdrawn\": true"));
        let german = table.relabel(|h| {
            if h == "withdrawn" {
                Some("zurückgezogen")
            } else {
                None
            }
        });
        assert!(german.to_html().contains("Franc (zurückgezogen)"));
        assert!(german.to_csv().contains("Franc (zurückgezogen)"));
    }

    /// A double round robin of four with a game of every kind: round 1
    /// 1-2 on time, 3-4 adjudicated a draw; round 2 1-3 by default (3 never
    /// started), 2-4 cancelled; round 3 1-4 over the board, 2-3 on time
    /// drawn (the flagger's opponent could not mate); the second cycle
    /// repeats it all with colours reversed and over the board, save 4-2 left
    /// unfinished.
    const KINDS: &[(u32, usize, usize, &str)] = &[
        (1, 1, 2, "1-0 time"),
        (1, 3, 4, "½-½ adj"),
        (2, 1, 3, "1-0 def"),
        (2, 2, 4, "x"),
        (3, 1, 4, "0-1"),
        (3, 2, 3, "½-½ time"),
        (4, 2, 1, "1-0"),
        (4, 4, 3, "1-0"),
        (5, 3, 1, "½-½"),
        (5, 4, 2, "*"),
        (6, 4, 1, "0-1"),
        (6, 3, 2, "0-1"),
    ];

    #[test]
    fn every_result_kind_has_its_iccf_mark() {
        let rules = Rules {
            scoring: Scoring::default(),
            tie_breaks: vec![TieBreak::Wins],
            withdrawal: WithdrawalRule::AnnulIfUnderHalf,
            sb_counts_unplayed: true,
        };
        let s = standings::individual(4, &games(KINDS), &[], &rules);
        let table = individual("Kinds", &names(&["A", "B", "C", "D"]), &[], &s);
        // A: 1E, +, 0, 0, ½, 1 = 3½ (wins 3); B: 0E, x, ½E, 1, *, 1 = 2½;
        // C: ½A, -, ½E, 0, ½, 0 = 1½; D: ½A, x, 1, 1, *, 0 = 2½.
        let expected = "\
Kinds

Rank  No  Name     1     2     3     4  Pts  Wins  Gms  Left  +/=/-   %
-----------------------------------------------------------------------
   1   1  A        X  1E 0   0 1   + ½   3½     3    6     0  3/1/2  58
 2-3   2  B     0E 1     X   x *  ½E 1   2½     2    4     1  2/1/1  63
 2-3   3  D      1 0   x *     X  ½A 1   2½     2    4     1  2/1/1  63
   4   4  C      - ½  ½E 0  ½A 0     X   1½     0    6     0  0/3/3  25
";
        assert_eq!(table.to_text(), expected);
    }

    fn olympiad() -> Crosstable {
        let rules = TeamRules {
            scoring: Scoring::default(),
            order: TeamCriterion::TEAM_MATCH.to_vec(),
            withdrawal: WithdrawalRule::AnnulIfUnderHalf,
        };
        let s = standings::team(4, &team_games(OLYMPIAD), &[(3, 4)], &rules);
        let teams = names(&["Slovenia", "Poland", "Latvia", "<Czechia & co>"]);
        team("Olympiad 1, section A", &teams, &s)
    }

    #[test]
    fn text_crosstable_lines_up_results_points_and_tie_breaks() {
        let expected = "\
Club championship 2027

Rank  No  Name   1   2  3  4   5  6  Pts  Wins    SB  DE  Gms  +/=/-   %
------------------------------------------------------------------------
   1   1  Boris  X   ½  ½  1   1  1    4     3   7.5        5  3/2/0  80
 2-3   2  Ana    ½   X  ½  ½  1A  1   3½     2   6.5   ½    5  2/3/0  70
 2-3   3  Eva    ½   ½  X  ½   1  +   3½     2   6.5   ½    5  2/3/0  70
   4   4  Darja  0   ½  ½  X   1  ½   2½     1  4.75        5  1/3/1  50
   5   5  Cene   0  0A  0  0   X  +    1     1   0.5        5  1/0/4  20
   6   6  Franc  0   0  -  ½   -  X    ½     0  1.25        5  0/1/4  10
";
        assert_eq!(six().to_text(), expected);
    }

    #[test]
    fn team_crosstable_shows_board_points_per_match() {
        let expected = "\
Olympiad 1, section A

Rank  No  Name             1  2   3   4  GP  MP  DE  SB
-------------------------------------------------------
   1   1  Slovenia         X  2  2½  2½   7   5       5
   2   2  Latvia           2  X   2   3   7   4       4
   3   3  Poland          1½  2   X  2½   6   3       2
   4   4  <Czechia & co>  1½  1  1½   X   4   0       0
";
        assert_eq!(olympiad().to_text(), expected);
    }

    #[test]
    fn csv_quotes_what_needs_quoting_and_writes_decimals() {
        let csv = olympiad().to_csv();
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(lines[0], "Rank,No,Name,1,2,3,4,GP,MP,DE,SB");
        assert_eq!(lines[1], "1,1,Slovenia,X,2,2½,2½,7,5,,5");
        let mut table = six();
        table.rows[0].name = "Boris \"the Wall\", jr.".into();
        let csv = table.to_csv();
        let lines: Vec<&str> = csv.split("\r\n").collect();
        assert_eq!(
            lines[1],
            "1,1,\"Boris \"\"the Wall\"\", jr.\",X,½,½,1,1,1,4,3,7.5,,5,0,3,2,0,80"
        );
        assert_eq!(
            lines[2],
            "2-3,2,Ana,½,X,½,½,1A,1,3.5,2,6.5,0.5,5,0,2,3,0,70"
        );
    }

    #[test]
    fn json_carries_numbers_and_nulls() {
        let json: serde_json::Value = serde_json::from_str(&six().to_json()).unwrap();
        assert_eq!(json["title"], "Club championship 2027");
        assert_eq!(
            json["headings"],
            serde_json::json!(["Pts", "Wins", "SB", "DE"])
        );
        let eva = &json["rows"][2];
        assert_eq!(eva["name"], "Eva");
        assert_eq!(eva["rank"], "2-3");
        assert_eq!(eva["values"], serde_json::json!([3.5, 2.0, 6.5, 0.5]));
        assert_eq!(json["rows"][0]["values"][3], serde_json::Value::Null);
        assert_eq!(eva["results"][5], "+");
        // The figures are fields of their own beside the old ones.
        assert_eq!(eva["played"], 5);
        assert_eq!(eva["remaining"], 0);
        assert_eq!(
            (&eva["wins"], &eva["draws"], &eva["losses"]),
            (
                &serde_json::json!(2),
                &serde_json::json!(3),
                &serde_json::json!(0)
            )
        );
        assert_eq!(eva["percent"], 70);
        assert_eq!(eva["performance"], serde_json::Value::Null);
        assert!(eva.get("rating").is_none(), "no rating: no field");
    }

    /// With ratings: the `Elo` column after the name and the performance
    /// `Rp` (Ra + dp of table 8.1.1) over games played over the board
    /// against rated opponents; forfeits and unrated opponents left out.
    #[test]
    fn a_rated_table_shows_ratings_and_performances() {
        let rules = Rules {
            scoring: Scoring::default(),
            tie_breaks: vec![TieBreak::Wins],
            withdrawal: WithdrawalRule::ForfeitAll,
            sb_counts_unplayed: true,
        };
        let s = standings::individual(6, &games(SIX), &[5], &rules);
        let players = names(&["Ana", "Boris", "Cene", "Darja", "Eva", "Franc"]);
        // Cene unrated.
        let ratings = [
            Some(2000),
            Some(2100),
            None,
            Some(1900),
            Some(1950),
            Some(1800),
        ];
        let table = individual_rated("t", &players, &[], &s, &ratings);
        let text = table.to_text();
        let header = text.lines().nth(2).unwrap();
        assert_eq!(
            header,
            "Rank  No  Name    Elo  1   2  3  4   5  6  Pts  Wins  Gms  +/=/-   %    Rp"
        );
        // Boris: ½ Ana (2000), ½ Eva (1950), 1 Darja (1900), 1 Franc (1800)
        // over the board, Cene unrated: 3 of 4, Ra = 7650/4 = 1912.5 →
        // 1913, p .75, dp 193: 2106.
        let boris = table.rows.iter().find(|r| r.name == "Boris").unwrap();
        assert_eq!(boris.rating, Some(2100));
        assert_eq!(boris.figures.unwrap().performance, Some(2106));
        assert!(
            text.lines()
                .any(|l| l.contains("Boris  2100") && l.ends_with("2106")),
            "{text}"
        );
        let cene = table.rows.iter().find(|r| r.name == "Cene").unwrap();
        assert_eq!(cene.rating, None);
        // CSV keeps a column for each figure, `Left` included.
        let csv = table.to_csv();
        assert_eq!(
            csv.lines().next().unwrap(),
            "Rank,No,Name,Elo,1,2,3,4,5,6,Pts,Wins,Gms,Left,+,=,-,%,Rp"
        );
        // While a game is being played the text shows what is left.
        let mut pending = games(SIX);
        pending[1].state = crate::domain::event::GameState::Unfinished;
        let s = standings::individual(6, &pending, &[5], &rules);
        let text = individual_rated("t", &players, &[], &s, &ratings).to_text();
        assert!(text.contains("Gms  Left  +/=/-"), "{text}");
        // The team table is as it was: no figures, no rating.
        assert!(!olympiad().to_text().contains("Gms"));
    }

    #[test]
    fn html_escapes_every_name() {
        let html = olympiad().to_html();
        assert!(
            html.contains("<th scope=\"row\">&lt;Czechia &amp; co&gt;</th>"),
            "{html}"
        );
        assert!(!html.contains("<Czechia"));
        assert!(
            html.starts_with(
                "<table class=\"crosstable\">\n<caption>Olympiad 1, section A</caption>"
            )
        );
        assert_eq!(html.matches("<tr>").count(), 5);
    }

    #[test]
    fn a_page_table_scopes_its_headings_and_writes_fractions_as_the_reader_does() {
        let table = six();
        let page = table.to_page_html(',');
        assert!(page.contains("<th scope=\"col\">"), "{page}");
        assert!(!page.contains("<th>"), "{page}");
        // Sonneborn-Berger's quarter points take the comma; the points' ½ stay.
        let english = table.to_html();
        let fractions = english.matches(".25<").count()
            + english.matches(".5<").count()
            + english.matches(".75<").count();
        assert!(fractions > 0, "{english}");
        let commas = page.matches(",25<").count()
            + page.matches(",5<").count()
            + page.matches(",75<").count();
        assert_eq!(commas, fractions, "{page}");
        assert_eq!(
            table.to_page_html('.').replace(" scope=\"col\"", ""),
            english
        );
    }
}
