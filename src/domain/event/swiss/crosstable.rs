//! A Swiss tournament's crosstable, as the pairing programs print it: one
//! row per player in the order of the table ([`super::tiebreaks`]), with
//! the rank, the pairing number, the name and the rating, then one column
//! per round, then the points and the event's tie-breaks by their FIDE
//! abbreviations (`BH-C1`, `BH`, `SB`, …).
//!
//! A round's cell is written as Swiss-Manager and the FIDE-endorsed
//! programs' crosstables write it: the opponent's pairing number, the
//! player's colour (`w`, `b`, the TRF's letters) and the result.
//!
//! | cell | the round |
//! |---|---|
//! | `12w1` `5b½` `3b0` | won, drawn, lost over the board against 12, 5, 3 |
//! | `12w+` `12b-` | won, lost by forfeit: not played (counts as unplayed for the tie-breaks) |
//! | `12w*` | paired against 12, still being played |
//! | `PAB` | the pairing-allocated bye (FIDE's abbreviation); it scores what the event gives |
//! | `-½` `-1` | not paired: a half-point bye asked for, a full-point bye |
//! | `-0` | not paired and no points: absent, withdrawn, not yet entered, a zero-point bye |
//!
//! JSON gives each round as an object too ([`RoundResult`]).

use super::super::crosstable::{Crosstable, RoundResult, Row, mark, rank_text};
use super::super::{Decision, Points, Side, SideResult};
use super::tiebreaks::Table;
use super::{Absence, Entry, Tournament};

/// The crosstable of a Swiss tournament after `table.after` rounds.
/// `names`, `ratings` and `withdrawn` are by player index (pairing number
/// less one); a missing name reads `#12`, a missing rating leaves the
/// cell empty.
pub fn crosstable(
    title: &str,
    t: &Tournament,
    table: &Table,
    names: &[String],
    ratings: &[Option<i32>],
    withdrawn: &[usize],
) -> Crosstable {
    let mut headings = vec!["Pts".to_string()];
    headings.extend(
        table
            .tie_breaks
            .iter()
            .map(|tb| tb.abbreviation().to_string()),
    );
    let rows = table
        .rows
        .iter()
        .map(|r| {
            let rounds: Vec<RoundResult> =
                (1..=table.after).map(|n| cell(t, r.player, n)).collect();
            Row {
                rank: rank_text(r.rank, r.rank_to),
                number: r.player + 1,
                name: names
                    .get(r.player)
                    .cloned()
                    .unwrap_or_else(|| format!("#{}", r.player + 1)),
                results: rounds.iter().map(text).collect(),
                values: std::iter::once(Some(r.points))
                    .chain(r.tie_breaks.iter().copied())
                    .collect(),
                withdrawn: withdrawn.contains(&r.player),
                rating: ratings.get(r.player).copied().flatten(),
                figures: None,
                rounds: Some(rounds),
            }
        })
        .collect();
    Crosstable {
        title: title.to_string(),
        headings,
        rows,
        // The pairing programs' headings; the reader's words replace them
        // in mails and on pages (`Crosstable::relabel`).
        labels: [
            "Rk".to_string(),
            "No".to_string(),
            "Name".to_string(),
            "withdrawn".to_string(),
        ],
        // The rating column only: a Swiss table has no per-player figures
        // (its tie-breaks say more, and a mail's width is spent on rounds).
        more: vec!["Rtg".to_string()],
        round_word: Some("R".to_string()),
    }
}

/// Player `player`'s round `round` (from 1), as its cell tells it.
pub fn cell(t: &Tournament, player: usize, round: u32) -> RoundResult {
    let entry = t.entry(player, round);
    let points = t.points.points(&entry);
    let unpaired = |result: &str, bye: &'static str| RoundResult {
        round,
        opponent: None,
        colour: None,
        result: result.to_string(),
        played: false,
        points: Some(points),
        bye: Some(bye),
    };
    match entry {
        Entry::Game {
            opponent,
            colour,
            result,
            played,
        } => RoundResult {
            round,
            opponent: Some(opponent + 1),
            colour: Some(match colour {
                Side::White => "white",
                Side::Black => "black",
            }),
            result: match result {
                None => "*".to_string(),
                Some(r) if played => mark(r, Decision::Played).to_string(),
                Some(r) => mark(r, Decision::Forfeit).to_string(),
            },
            played,
            points: result.map(|_| points),
            bye: None,
        },
        // What the bye scores is the event's (C.04.1 Article 3); the
        // points column and JSON say it.
        Entry::PairingBye => RoundResult {
            result: worth(t, points).to_string(),
            ..unpaired("", "pairing")
        },
        Entry::Unpaired(Absence::Half) => unpaired("½", "half"),
        Entry::Unpaired(Absence::Full) => unpaired("1", "full"),
        Entry::Unpaired(Absence::Zero) => unpaired("0", "zero"),
    }
}

/// What `points` are worth as a result's mark: a win's, a draw's, nothing.
fn worth(t: &Tournament, points: Points) -> &'static str {
    let win = mark(SideResult::Win, Decision::Played);
    let draw = mark(SideResult::Draw, Decision::Played);
    let loss = mark(SideResult::Loss, Decision::Played);
    if points >= t.points.win {
        win
    } else if points >= t.points.draw && points > Points::ZERO {
        draw
    } else {
        loss
    }
}

/// A round's cell in one word (see the module's table).
pub fn text(r: &RoundResult) -> String {
    match (r.opponent, r.colour, r.bye) {
        (Some(opponent), Some(colour), _) => {
            let letter = if colour == "white" { 'w' } else { 'b' };
            format!("{opponent}{letter}{}", r.result)
        }
        (_, _, Some("pairing")) => "PAB".to_string(),
        _ => format!("-{}", r.result),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tiebreak::TieBreak;
    use super::super::{Player, PointSystem, tiebreaks};
    use super::*;

    fn game(opponent: usize, colour: Side, result: Option<SideResult>, played: bool) -> Entry {
        Entry::Game {
            opponent,
            colour,
            result,
            played,
        }
    }

    /// Six players over four rounds with a cell of every kind (numbers
    /// are pairing numbers). Round 1: 1-4 1-0, 2-5 ½-½, 3-6 0-1. Round 2:
    /// 4-2 won by forfeit, 5-1 still being played, 3 asked for a
    /// half-point bye, 6 has the pairing-allocated bye. Round 3: 1-2 ½-½,
    /// 3-5 1-0, 4 a full-point bye, 6 absent. Round 4: 3-1 won by forfeit,
    /// 2-4 ½-½, 5 unpaired, 6 withdrawn.
    fn six() -> Tournament {
        use Side::{Black, White};
        use SideResult::{Draw, Loss, Win};
        let rounds: [[Entry; 4]; 6] = [
            [
                game(3, White, Some(Win), true),
                game(4, Black, None, true),
                game(1, White, Some(Draw), true),
                game(2, Black, Some(Loss), false),
            ],
            [
                game(4, White, Some(Draw), true),
                game(3, Black, Some(Loss), false),
                game(0, Black, Some(Draw), true),
                game(3, White, Some(Draw), true),
            ],
            [
                game(5, White, Some(Loss), true),
                Entry::Unpaired(Absence::Half),
                game(4, White, Some(Win), true),
                game(0, White, Some(Win), false),
            ],
            [
                game(0, Black, Some(Loss), true),
                game(1, White, Some(Win), false),
                Entry::Unpaired(Absence::Full),
                game(1, Black, Some(Draw), true),
            ],
            [
                game(1, Black, Some(Draw), true),
                game(0, White, None, true),
                game(2, Black, Some(Loss), true),
                Entry::Unpaired(Absence::Zero),
            ],
            [
                game(2, Black, Some(Win), true),
                Entry::PairingBye,
                Entry::Unpaired(Absence::Zero),
                Entry::Unpaired(Absence::Zero),
            ],
        ];
        Tournament {
            players: rounds
                .into_iter()
                .enumerate()
                .map(|(i, r)| Player {
                    rating: 2000 - 50 * i as u16,
                    rounds: r.to_vec(),
                    accelerations: Vec::new(),
                })
                .collect(),
            rounds: 4,
            points: PointSystem::default(),
            initial_colour: Side::White,
            acceleration: Default::default(),
            forbidden: Vec::new(),
        }
    }

    fn cells(t: &Tournament, player: usize) -> Vec<String> {
        (1..=4).map(|r| text(&cell(t, player, r))).collect()
    }

    #[test]
    fn a_game_s_cell_is_the_opponent_s_number_the_colour_and_the_result() {
        let t = six();
        assert_eq!(cells(&t, 0), ["4w1", "5b*", "2w½", "3b-"]);
        assert_eq!(cells(&t, 2), ["6w0", "-½", "5w1", "1w+"]);
        assert_eq!(cells(&t, 5), ["3b1", "PAB", "-0", "-0"]);
        let won = cell(&t, 0, 1);
        assert_eq!(
            (won.opponent, won.colour, won.played, won.points),
            (Some(4), Some("white"), true, Some(Points::whole(1)))
        );
        let drawn = cell(&t, 1, 3);
        assert_eq!(
            (text(&drawn).as_str(), drawn.colour),
            ("1b½", Some("black"))
        );
        assert_eq!(drawn.points, Some(Points::halves(1)));
        let lost = cell(&t, 4, 3);
        assert_eq!(text(&lost), "3b0");
        assert_eq!(lost.points, Some(Points::ZERO));
    }

    #[test]
    fn a_forfeit_is_plus_or_minus_and_not_played() {
        let t = six();
        assert_eq!(cells(&t, 1), ["5w½", "4b-", "1b½", "4w½"]);
        let won = cell(&t, 3, 2);
        assert_eq!((text(&won).as_str(), won.played), ("2w+", false));
        assert_eq!(won.points, Some(Points::whole(1)));
        let lost = cell(&t, 1, 2);
        assert_eq!((text(&lost).as_str(), lost.played), ("4b-", false));
        assert_eq!(lost.points, Some(Points::ZERO));
    }

    #[test]
    fn an_unfinished_game_shows_its_opponent_and_colour_with_a_star_and_no_points() {
        let t = six();
        let r = cell(&t, 4, 2);
        assert_eq!(text(&r), "1w*");
        assert_eq!(
            (r.opponent, r.colour, r.played, r.points),
            (Some(1), Some("white"), true, None)
        );
    }

    #[test]
    fn each_kind_of_bye_has_its_cell_and_its_points() {
        let t = six();
        let pab = cell(&t, 5, 2);
        assert_eq!(
            (text(&pab).as_str(), pab.bye, pab.opponent, pab.played),
            ("PAB", Some("pairing"), None, false)
        );
        assert_eq!(
            (pab.result.as_str(), pab.points),
            ("1", Some(Points::whole(1)))
        );
        let half = cell(&t, 2, 2);
        assert_eq!((text(&half).as_str(), half.bye), ("-½", Some("half")));
        assert_eq!(half.points, Some(Points::halves(1)));
        let full = cell(&t, 3, 3);
        assert_eq!((text(&full).as_str(), full.bye), ("-1", Some("full")));
        assert_eq!(full.points, Some(Points::whole(1)));
        let zero = cell(&t, 4, 4);
        assert_eq!((text(&zero).as_str(), zero.bye), ("-0", Some("zero")));
        assert_eq!(zero.points, Some(Points::ZERO));
        // A round past the history is an absence.
        assert_eq!(text(&cell(&t, 0, 9)), "-0");
        // A pairing-allocated bye the event scores as a draw says so.
        let mut half_bye = six();
        half_bye.points.pairing_bye = Points::halves(1);
        let pab = cell(&half_bye, 5, 2);
        assert_eq!(
            (pab.result.as_str(), pab.points),
            ("½", Some(Points::halves(1)))
        );
    }

    #[test]
    fn the_table_has_a_column_per_round_then_points_and_fide_tie_breaks() {
        let t = six();
        let table = tiebreaks::table(&t, 4, &[TieBreak::BuchholzCut1, TieBreak::Wins]);
        let names: Vec<String> = ["Ana", "Bor", "Cene", "Dan", "Eva", "Fran"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ratings = [Some(2000), Some(1950), None, Some(1850), Some(1800), None];
        let c = crosstable("Open 2027", &t, &table, &names, &ratings, &[5]);
        let text = c.to_text();
        let header = text.lines().nth(2).unwrap();
        assert_eq!(
            header.split_whitespace().collect::<Vec<_>>(),
            [
                "Rk", "No", "Name", "Rtg", "R1", "R2", "R3", "R4", "Pts", "BH-C1", "WIN"
            ],
            "{text}"
        );
        // Dan, 2½ points, shares the lead with Cene: his line in order.
        let dan = text.lines().find(|l| l.contains("Dan")).unwrap();
        assert_eq!(
            dan.split_whitespace().collect::<Vec<_>>()[1..9],
            ["4", "Dan", "1850", "1b0", "2w+", "-1", "2b½", "2½"],
            "{text}"
        );
        assert_eq!(c.rows[0].values[0], Some(Points::halves(5)));
        assert!(text.contains("Fran (withdrawn)"), "{text}");
        // Every line lines up within the header's width.
        let width = header.chars().count();
        assert!(
            text.lines().skip(4).all(|l| l.chars().count() <= width),
            "{text}"
        );
        // CSV: a field per heading on every line.
        let csv = c.to_csv();
        let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines[0], "Rk,No,Name,Rtg,R1,R2,R3,R4,Pts,BH-C1,WIN");
        assert!(lines.iter().all(|l| l.split(',').count() == 11), "{csv}");
        assert_eq!(lines.len(), 7);
        // JSON: the rounds as objects beside the cells.
        let json: serde_json::Value = serde_json::from_str(&c.to_json()).unwrap();
        let ana = json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "Ana")
            .unwrap();
        assert_eq!(ana["number"], 1);
        assert_eq!(ana["results"][1], "5b*");
        assert_eq!(
            ana["rounds"][1],
            serde_json::json!({"round": 2, "opponent": 5, "colour": "black",
                "result": "*", "played": true, "points": null})
        );
        assert_eq!(json["headings"], serde_json::json!(["Pts", "BH-C1", "WIN"]));
        // In another language the headings and the rounds' word change,
        // and FIDE's `WIN`, an English word, reads as the round robin's
        // `Wins` does.
        let sl =
            c.relabel(|h| crate::domain::locale::crosstable_word(h, crate::domain::lang::Lang::Sl));
        let html = sl.to_html();
        assert!(
            html.contains("<th>K1</th>")
                && html.contains("<th>Mesto</th>")
                && html.contains("<th>Zmage</th>"),
            "{html}"
        );
    }
}
