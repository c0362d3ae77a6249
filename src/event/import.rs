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

use crate::chess::game::GameResult;
use crate::chess::outcome::ResultKind;

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
            });
        }
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
