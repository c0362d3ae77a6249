//! The results file a TD imports (`dopis event import-results EVENT
//! FILE.csv`): one line per game, read into typed lines or every problem
//! found, each with its line number and what to write instead. Pure: the
//! service finds the games and applies the results.
//!
//! ```text
//! round,board,white,black,result,kind,reason
//! 1,,ana@club.test,Dora Kos,1-0,time,no move for 40 days
//! 2,,Bor,c@club.test,1/2-1/2,,
//! 3,,Ana,Bor,,cancelled,paired by mistake
//! ```
//!
//! - The first line names the columns, in any order (any case). `round`,
//!   `white`, `black` and `result` are required; `board` (team events:
//!   the board, from 1), `kind` and `reason` are optional.
//! - `white`/`black`: a player's address or their name as the event knows
//!   them.
//! - `result`: `1-0`, `0-1`, `1/2-1/2` (or `½-½`); empty for `cancelled`.
//! - `kind`: `board` (played out: the default when empty), `time`,
//!   `adjudication`, `default` or `cancelled`
//!   ([`ResultKind`]).
//! - `reason`: the TD's words, told to the players with the result; empty:
//!   the file's name and line.
//! - Fields with commas or quotes are quoted as in RFC 4180 (`"Kos, Dora"`).
//!   Blank lines are skipped.

use crate::domain::chess::game::GameResult;
use crate::domain::chess::outcome::ResultKind;

/// The largest results file read, in bytes (a club's whole season is a
/// few hundred kilobytes).
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// One line of a results file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultLine {
    /// Line in the file, from 1.
    pub line: usize,
    /// Round, from 1.
    pub round: u32,
    /// Board, from 1 (team events); `None` when the column is absent or empty.
    pub board: Option<u32>,
    /// White: an address or a name.
    pub white: String,
    /// Black: an address or a name.
    pub black: String,
    /// The result; `None` for a cancellation.
    pub result: Option<GameResult>,
    /// How it was reached.
    pub kind: ResultKind,
    /// The TD's words; empty when the file gives none.
    pub reason: String,
    /// The game as a PGN file gives it, moves and outcome (PGN files only).
    pub played: Option<crate::domain::chess::game::Game>,
}

/// One thing wrong with a results file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    /// Line in the file, from 1.
    pub line: usize,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl std::fmt::Display for LineProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Splits one CSV line into fields (RFC 4180 quoting, on one line).
fn fields(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut was_quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.trim().is_empty() && !was_quoted => {
                field.clear();
                quoted = true;
                was_quoted = true;
            }
            (false, ',') => {
                out.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err("a quoted field is not closed: end it with \"".into());
    }
    out.push(field);
    Ok(out.into_iter().map(|f| f.trim().to_owned()).collect())
}

const COLUMNS: [&str; 7] = [
    "round", "board", "white", "black", "result", "kind", "reason",
];
const REQUIRED: [&str; 4] = ["round", "white", "black", "result"];

/// Reads a results file: every line, or every problem found.
pub fn parse(text: &str) -> Result<Vec<ResultLine>, Vec<LineProblem>> {
    let problem = |line: usize, message: String| LineProblem { line, message };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((head_no, head)) = lines.next() else {
        return Err(vec![problem(
            1,
            format!(
                "the file is empty: its first line names the columns ({})",
                COLUMNS.join(",")
            ),
        )]);
    };
    let head = fields(head).map_err(|e| vec![problem(head_no, e)])?;
    let mut index = [None; 7];
    let mut problems = Vec::new();
    for (i, name) in head.iter().enumerate() {
        let name = name.trim_start_matches('\u{feff}').to_ascii_lowercase();
        match COLUMNS.iter().position(|c| *c == name) {
            Some(k) if index[k].is_some() => {
                problems.push(problem(head_no, format!("column '{name}' is named twice")))
            }
            Some(k) => index[k] = Some(i),
            None => problems.push(problem(
                head_no,
                format!(
                    "unknown column '{name}': the columns are {}",
                    COLUMNS.join(", ")
                ),
            )),
        }
    }
    for name in REQUIRED {
        let k = COLUMNS.iter().position(|c| *c == name).unwrap_or(0);
        if index[k].is_none() {
            problems.push(problem(
                head_no,
                format!(
                    "column '{name}' is missing: the first line names the columns, at least {}",
                    REQUIRED.join(",")
                ),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut out = Vec::new();
    for (no, text) in lines {
        let row = match fields(text) {
            Ok(r) => r,
            Err(e) => {
                problems.push(problem(no, e));
                continue;
            }
        };
        if row.len() > head.len() {
            problems.push(problem(
                no,
                format!(
                    "{} fields for {} columns: quote a field that holds a comma (\"Kos, Dora\")",
                    row.len(),
                    head.len()
                ),
            ));
            continue;
        }
        let get = |k: usize| -> &str {
            index[k]
                .and_then(|i| row.get(i))
                .map(String::as_str)
                .unwrap_or("")
        };
        let mut wrong = |m: String| problems.push(problem(no, m));
        let round = match get(0).parse::<u32>() {
            Ok(r) if r >= 1 => Some(r),
            _ => {
                wrong(format!(
                    "round '{}' is not a round number (1, 2, …)",
                    get(0)
                ));
                None
            }
        };
        let board = match get(1) {
            "" => Some(None),
            b => match b.parse::<u32>() {
                Ok(n) if n >= 1 => Some(Some(n)),
                _ => {
                    wrong(format!("board '{b}' is not a board number (1, 2, …)"));
                    None
                }
            },
        };
        let (white, black) = (get(2).to_owned(), get(3).to_owned());
        if white.is_empty() || black.is_empty() {
            wrong("give both players, White and Black, by address or name".into());
        }
        let kind = match get(5) {
            "" => Some(ResultKind::Board),
            k => ResultKind::from_key(k).or_else(|| {
                wrong(format!(
                    "kind '{k}' is unknown: write board, time, adjudication, default or cancelled"
                ));
                None
            }),
        };
        let result = match get(4).replace('½', "1/2").as_str() {
            "" | "*" => Some(None),
            r => match GameResult::from_pgn(r) {
                Some(r) => Some(Some(r)),
                None => {
                    wrong(format!(
                        "result '{r}' is not a result: write 1-0, 0-1 or 1/2-1/2 (empty to cancel)"
                    ));
                    None
                }
            },
        };
        if let (Some(round), Some(board), Some(kind), Some(result)) = (round, board, kind, result)
            && !white.is_empty()
            && !black.is_empty()
        {
            out.push(ResultLine {
                line: no,
                round,
                board,
                white,
                black,
                result,
                kind,
                reason: get(6).to_owned(),
                played: None,
            });
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Splits a PGN file into its games: (first line, text of the game).
fn pgn_games(text: &str) -> Vec<(usize, String)> {
    let mut games = Vec::new();
    let mut current = String::new();
    let mut start = 1;
    let mut in_moves = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with('[') && in_moves {
            games.push((start, std::mem::take(&mut current)));
            in_moves = false;
        }
        if current.trim().is_empty() {
            start = i + 1;
        }
        if !t.is_empty() && !t.starts_with('[') {
            in_moves = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.trim().is_empty() {
        games.push((start, current));
    }
    games
}

/// Reads a PGN results file: each game's `Round` (`3`, or `3.1`: the part
/// before the dot), `Board` (team events), `White`, `Black` and `Result`
/// (with `Termination` for the kind: `time forfeit`, `adjudication`,
/// `abandoned` for a default, anything else over the board), and its moves.
/// A game without a result (`*`) is a problem: a file cannot cancel a game.
pub fn parse_pgn(text: &str) -> Result<Vec<ResultLine>, Vec<LineProblem>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (line, chunk) in pgn_games(text) {
        let mut wrong = |message: String| problems.push(LineProblem { line, message });
        let read = match crate::domain::chess::pgn::import(&chunk) {
            Ok(r) => r,
            Err(e) => {
                wrong(format!("the game starting here cannot be read: {e}"));
                continue;
            }
        };
        let tags = &read.tags;
        let round = tags
            .round
            .split('.')
            .next()
            .and_then(|r| r.trim().parse::<u32>().ok())
            .filter(|r| *r >= 1);
        let Some(round) = round else {
            wrong(format!(
                "Round \"{}\" is not a round number: write [Round \"3\"]",
                tags.round
            ));
            continue;
        };
        let board = match tags.other.iter().find(|(k, _)| k == "Board") {
            None => None,
            Some((_, b)) => match b.trim().parse::<u32>() {
                Ok(n) if n >= 1 => Some(n),
                _ => {
                    wrong(format!(
                        "Board \"{b}\" is not a board number: write [Board \"2\"]"
                    ));
                    continue;
                }
            },
        };
        let Some(outcome) = read.game.outcome().cloned() else {
            wrong("the game has no result (*): give 1-0, 0-1 or 1/2-1/2".into());
            continue;
        };
        out.push(ResultLine {
            line,
            round,
            board,
            white: tags.white.clone(),
            black: tags.black.clone(),
            result: Some(outcome.result),
            kind: outcome.reason.kind(),
            reason: outcome.reason.ruling().unwrap_or_default().to_owned(),
            played: Some(read.game),
        });
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_results_file_reads_into_typed_lines() {
        let text = "Round,White,Black,Result,Kind,Reason\r\n\
                    1,ana@club.test,\"Kos, Dora\",1-0,time,\"no move, 40 days\"\r\n\
                    \r\n\
                    2,Bor,Cene,½-½,,\n\
                    3,Ana,Bor,,cancelled,paired twice\n";
        let lines = parse(text).unwrap();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].black, "Kos, Dora");
        assert_eq!(lines[0].reason, "no move, 40 days");
        assert_eq!(lines[0].kind, ResultKind::Time);
        assert_eq!(lines[1].line, 4);
        assert_eq!(lines[1].result, Some(GameResult::Draw));
        assert_eq!(lines[1].kind, ResultKind::Board);
        assert_eq!(lines[2].result, None);
        assert_eq!(lines[2].board, None);
    }

    #[test]
    fn a_pgn_results_file_reads_each_games_tags_result_and_kind() {
        let text = "[Event \"Cup\"]\n[Round \"1\"]\n[White \"Ana\"]\n[Black \"Dora\"]\n\
                    [Result \"1-0\"]\n[Termination \"time forfeit\"]\n\n1. e4 e5 1-0\n\n\
                    [Event \"Cup\"]\n[Round \"2.1\"]\n[Board \"3\"]\n[White \"Bor\"]\n\
                    [Black \"Cene\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n\
                    [Round \"3\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n*\n";
        let err = parse_pgn(text).unwrap_err();
        assert_eq!(err.len(), 1);
        assert_eq!(err[0].line, 19);
        let text = text.split("\n\n[Round \"3\"]").next().unwrap();
        let lines = parse_pgn(text).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            (lines[0].line, lines[0].round, lines[0].kind),
            (1, 1, ResultKind::Time)
        );
        assert_eq!(lines[0].played.as_ref().map(|g| g.plies().len()), Some(2));
        assert_eq!((lines[1].round, lines[1].board), (2, Some(3)));
        assert_eq!(lines[1].result, Some(GameResult::Draw));
    }

    #[test]
    fn every_problem_is_named_with_its_line() {
        let missing = parse("round,white,black\n1,a,b\n").unwrap_err();
        assert_eq!(missing[0].line, 1);
        assert!(missing[0].message.contains("column 'result' is missing"));
        let bad = parse(
            "round,white,black,result,kind\nx,a,b,1-0,\n1,a,b,2-0,\n1,a,,1-0,\n1,a,b,1-0,forfeit\n1,\"a,b,1-0\n",
        )
        .unwrap_err();
        let said: Vec<String> = bad.iter().map(|p| p.to_string()).collect();
        assert_eq!(said.len(), 5, "{said:?}");
        assert!(said[0].starts_with("line 2: round 'x'"));
        assert!(said[1].starts_with("line 3: result '2-0'"));
        assert!(said[2].starts_with("line 4: give both players"));
        assert!(said[3].starts_with("line 5: kind 'forfeit' is unknown"));
        assert!(said[4].starts_with("line 6: a quoted field is not closed"));
        assert!(
            parse("").unwrap_err()[0]
                .message
                .contains("the file is empty")
        );
    }
}
