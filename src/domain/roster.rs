//! A roster: a CSV file of players that a TD registers at once
//! (`dopis player import FILE`). Pure: bytes in, checked players or every
//! problem with its line out.
//!
//! The format (RFC 4180, UTF-8, a byte order mark is skipped):
//!
//! ```text
//! email,name,lang,tz
//! ana.novak@example.si,Ana Novak,sl,Europe/Ljubljana
//! "bob@example.org","Smith, Bob",,
//! ```
//!
//! - The first line names the columns, in any order, in any case: `email`
//!   and `name` are required; `lang` (`language`) and `tz` (`timezone`,
//!   `time_zone`) are optional, as in `dopis player add`. An empty `lang`
//!   is English, an empty `tz` none.
//! - Values with a comma, a quote or a line break are quoted (`"Smith,
//!   Bob"`, `""` for a quote). A file whose header has semicolons and no
//!   commas is read with `;` between values, as spreadsheets write CSV in
//!   much of Europe.
//! - Blank lines are skipped. An address may appear once.
//!
//! A file is taken whole or not at all: every problem is reported, each with
//! its line, what is wrong and what to write instead.

use std::collections::HashMap;
use std::fmt;

use crate::domain::address::EmailAddress;
use crate::domain::lang::Lang;
use crate::domain::player::{BadPlayer, NewPlayer, Player};

/// The largest roster read, in bytes (a club's roster is far smaller).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;
/// The most players one roster registers.
pub const MAX_PLAYERS: usize = 10_000;
/// The most problems reported at once; the rest are counted.
const MAX_PROBLEMS: usize = 25;

/// One player of a roster, checked.
#[derive(Debug, Clone)]
pub struct RosterRow {
    /// The line the player's record starts on (the header is line 1).
    pub line: usize,
    /// The player as registered if new.
    pub player: NewPlayer,
    /// Whether the file gave a language (else English for a new player).
    pub lang_given: bool,
    /// Whether the file gave a time zone.
    pub tz_given: bool,
}

/// One thing wrong with a roster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The line (from 1), or 0 for the file as a whole.
    pub line: usize,
    /// What is wrong and what to write instead.
    pub text: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.text)
        } else {
            write!(f, "line {}: {}", self.line, self.text)
        }
    }
}

/// Why a roster was refused: every problem found, by line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct BadRoster(pub Vec<Problem>);

impl fmt::Display for BadRoster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().take(MAX_PROBLEMS).enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        if self.0.len() > MAX_PROBLEMS {
            write!(f, "\n… and {} more problems", self.0.len() - MAX_PROBLEMS)?;
        }
        Ok(())
    }
}

const HEADER_EXAMPLE: &str = "email,name,lang,tz";

fn whole(text: impl Into<String>) -> BadRoster {
    BadRoster(vec![Problem {
        line: 0,
        text: text.into(),
    }])
}

/// The columns a roster may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Column {
    Email,
    Name,
    Lang,
    Tz,
}

fn column(name: &str) -> Option<Column> {
    match name.trim().to_ascii_lowercase().as_str() {
        "email" | "e-mail" | "mail" => Some(Column::Email),
        "name" => Some(Column::Name),
        "lang" | "language" => Some(Column::Lang),
        "tz" | "timezone" | "time_zone" | "time zone" => Some(Column::Tz),
        _ => None,
    }
}

/// Reads a roster: the players it names, or every problem with its line.
pub fn parse(bytes: &[u8]) -> Result<Vec<RosterRow>, BadRoster> {
    if bytes.len() > MAX_BYTES {
        return Err(whole(format!(
            "the file has {} bytes; a roster may have at most {MAX_BYTES} ({} players): split it into several files",
            bytes.len(),
            MAX_PLAYERS
        )));
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        return Err(BadRoster(vec![Problem {
            line: line_at(&bytes[..at]),
            text: "holds a NUL byte, so this is a binary file, not CSV: save the roster as \"CSV UTF-8\""
                .into(),
        }]));
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = line_at(&bytes[..e.valid_up_to()]);
            return Err(BadRoster(vec![Problem {
                line,
                text: "is not UTF-8 text (is this a spreadsheet or another binary file?): \
                       save the roster as \"CSV UTF-8\""
                    .into(),
            }]));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(whole(format!(
            "the file is empty: write a header line such as `{HEADER_EXAMPLE}`, then a line per player"
        )));
    }
    let first = text.lines().next().unwrap_or("");
    let separator = if !first.contains(',') && first.contains(';') {
        ';'
    } else {
        ','
    };
    let records = records(text, separator).map_err(|p| BadRoster(vec![p]))?;
    let mut records = records.into_iter();
    let Some((_, header)) = records.next() else {
        return Err(whole("the file has no header line"));
    };
    let mut problems = Vec::new();
    let mut columns: Vec<Option<Column>> = Vec::new();
    let mut seen = HashMap::new();
    for name in &header {
        let c = column(name);
        match c {
            None => problems.push(Problem {
                line: 1,
                text: format!(
                    "unknown column '{}': the columns are email, name, lang and tz (e.g. `{HEADER_EXAMPLE}`)",
                    name.trim()
                ),
            }),
            Some(c) => {
                if seen.insert(c, ()).is_some() {
                    problems.push(Problem {
                        line: 1,
                        text: format!("column '{}' is named twice: name it once", name.trim()),
                    });
                }
            }
        }
        columns.push(c);
    }
    for (needed, word) in [(Column::Email, "email"), (Column::Name, "name")] {
        if !seen.contains_key(&needed) {
            problems.push(Problem {
                line: 1,
                text: format!(
                    "the header has no '{word}' column: the first line names the columns, e.g. `{HEADER_EXAMPLE}`"
                ),
            });
        }
    }
    if !problems.is_empty() {
        return Err(BadRoster(problems));
    }
    let mut rows = Vec::new();
    let mut lines_of: HashMap<EmailAddress, usize> = HashMap::new();
    for (line, fields) in records {
        if fields.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        if rows.len() + problems.len() >= MAX_PLAYERS {
            problems.push(Problem {
                line,
                text: format!(
                    "a roster registers at most {MAX_PLAYERS} players: split the file into several"
                ),
            });
            break;
        }
        if fields.len() != columns.len() {
            problems.push(Problem {
                line,
                text: format!(
                    "has {} values, the header {}: put a value with a '{separator}' in double quotes (\"Smith{separator} Bob\"), and leave an unknown value empty, not out",
                    fields.len(),
                    columns.len()
                ),
            });
            continue;
        }
        let get = |want: Column| {
            columns
                .iter()
                .zip(&fields)
                .find(|(c, _)| **c == Some(want))
                .map(|(_, v)| v.trim())
        };
        let mut bad = |text: String| problems.push(Problem { line, text });
        let email = match EmailAddress::parse(get(Column::Email).unwrap_or("")) {
            Ok(e) => e,
            Err(e) => {
                bad(format!("email: {e}"));
                continue;
            }
        };
        if let Some(earlier) = lines_of.get(&email) {
            bad(format!(
                "{email} is on line {earlier} too: each player once in a roster"
            ));
            continue;
        }
        lines_of.insert(email.clone(), line);
        let lang_text = get(Column::Lang).unwrap_or("");
        let lang = if lang_text.is_empty() {
            Lang::default()
        } else {
            match lang_text.parse::<Lang>() {
                Ok(l) => l,
                Err(e) => {
                    bad(format!("lang: {e}"));
                    continue;
                }
            }
        };
        let tz = get(Column::Tz).filter(|t| !t.is_empty());
        let name = get(Column::Name).unwrap_or("");
        match NewPlayer::new(email.clone(), name, lang, tz) {
            Ok(player) => rows.push(RosterRow {
                line,
                player,
                lang_given: !lang_text.is_empty(),
                tz_given: tz.is_some(),
            }),
            Err(BadPlayer::Name(what)) => bad(format!(
                "name: the name of {email} {what}: write it in the name column"
            )),
            Err(e @ BadPlayer::TimeZone(_)) => bad(format!("tz: {e}")),
        }
    }
    if !problems.is_empty() {
        return Err(BadRoster(problems));
    }
    if rows.is_empty() {
        return Err(whole(format!(
            "the file has a header and no players: add a line per player under `{}`",
            first.trim()
        )));
    }
    Ok(rows)
}

/// How a registered player differs from their roster line (only what the
/// file gives); empty when they agree.
pub fn differences(row: &RosterRow, registered: &Player) -> Vec<String> {
    let mut out = Vec::new();
    if row.player.name != registered.name {
        out.push(format!(
            "name '{}' in the file, '{}' registered",
            row.player.name, registered.name
        ));
    }
    if row.lang_given && row.player.lang != registered.lang {
        out.push(format!(
            "lang {} in the file, {} registered",
            row.player.lang, registered.lang
        ));
    }
    if row.tz_given && row.player.tz != registered.tz {
        let name = |tz: Option<chrono_tz::Tz>| tz.map_or("none".to_string(), |t| t.to_string());
        out.push(format!(
            "tz {} in the file, {} registered",
            name(row.player.tz),
            name(registered.tz)
        ));
    }
    out
}

/// The line (from 1) a byte offset is on.
fn line_at(before: &[u8]) -> usize {
    before.iter().filter(|&&b| b == b'\n').count() + 1
}

/// The records of a CSV text with the line each starts on: quoted values
/// may hold separators, `""` and line breaks; CRLF and LF both end a record.
fn records(text: &str, separator: char) -> Result<Vec<(usize, Vec<String>)>, Problem> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut line = 1;
    let mut start = 1;
    let mut quoted = false;
    let mut quote_line = 0;
    let mut chars = text.chars().peekable();
    let mut at_field_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push('\n');
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_field_start => {
                quoted = true;
                quote_line = line;
                at_field_start = false;
            }
            c if c == separator => {
                fields.push(std::mem::take(&mut field));
                at_field_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                fields.push(std::mem::take(&mut field));
                out.push((start, std::mem::take(&mut fields)));
                line += 1;
                start = line;
                at_field_start = true;
            }
            c => {
                field.push(c);
                at_field_start = false;
            }
        }
    }
    if quoted {
        return Err(Problem {
            line: quote_line,
            text: "a quoted value is not closed: end it with a '\"' (write a quote inside it as '\"\"')"
                .into(),
        });
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        out.push((start, fields));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &[u8]) -> String {
        parse(text).expect_err("refused").to_string()
    }

    #[test]
    fn a_roster_gives_its_players_with_their_lines() {
        let rows = parse(
            "\u{feff}Email,Name,Language,TZ\r\n\
             ana@x.si,Ana Novak,sl,Europe/Ljubljana\r\n\
             \r\n\
             \"BOB@x.org\",\"Smith, \"\"Bob\"\"\",,\r\n"
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].line, 2);
        assert_eq!(rows[0].player.name, "Ana Novak");
        assert_eq!(rows[0].player.lang, Lang::Sl);
        assert!(rows[0].lang_given && rows[0].tz_given);
        assert_eq!(rows[1].line, 4);
        assert_eq!(rows[1].player.email.as_str(), "bob@x.org");
        assert_eq!(rows[1].player.name, "Smith, \"Bob\"");
        assert_eq!(rows[1].player.lang, Lang::En);
        assert!(!rows[1].lang_given && !rows[1].tz_given);
    }

    #[test]
    fn columns_come_in_any_order_and_semicolons_separate_when_the_header_says_so() {
        let rows = parse(b"name;email\nAna;ana@x.si\n").unwrap();
        assert_eq!(rows[0].player.email.as_str(), "ana@x.si");
        // A quoted line break counts as a line (and is no part of a name).
        let err = problems(b"name,email\n\"Ana\nNovak\",ana@x.si\nBor,bor");
        assert!(
            err.contains("line 2: name: the name of ana@x.si contains control"),
            "{err}"
        );
        assert!(err.contains("line 4: email: "), "{err}");
    }

    #[test]
    fn every_bad_line_is_named_with_what_to_write_instead() {
        let text = "email,name,lang\n\
                    ana@x.si,Ana,sl\n\
                    not-an-address,Bor,en\n\
                    cene@x.si,Cene,xx\n\
                    ANA@x.si,Ana again,sl\n\
                    dora@x.si,,de\n\
                    eva@x.si,Eva\n";
        let err = problems(text.as_bytes());
        for want in [
            "line 3: email: ",
            "line 4: lang: unknown language 'xx': use one of en,",
            "line 5: ana@x.si is on line 2 too",
            "line 6: name: the name of dora@x.si is empty",
            "line 7: has 2 values, the header 3",
        ] {
            assert!(err.contains(want), "{want:?} in {err}");
        }
    }

    #[test]
    fn a_bad_header_is_refused_whole() {
        let err = problems(b"mail,fullname,shoe size\na@x.si,A,44\n");
        assert!(err.contains("unknown column 'fullname'"), "{err}");
        assert!(err.contains("unknown column 'shoe size'"), "{err}");
        assert!(err.contains("no 'name' column"), "{err}");
        let err = problems(b"name,lang\nAna,sl\n");
        assert!(err.contains("no 'email' column"), "{err}");
        let err = problems(b"email,name,email\n");
        assert!(err.contains("named twice"), "{err}");
    }

    #[test]
    fn empty_binary_unclosed_and_huge_files_are_refused_with_a_reason() {
        assert!(problems(b"").contains("the file is empty"));
        assert!(problems(b"\n \n").contains("the file is empty"));
        assert!(problems(b"email,name\n").contains("a header and no players"));
        let err = problems(b"email,name\nana@x.si,An\xffa\n");
        assert!(err.starts_with("line 2: is not UTF-8"), "{err}");
        let err = problems(b"PK\x03\x04\0\0\0 junk");
        assert!(err.contains("NUL byte"), "{err}");
        let err = problems(b"email,name\n\"ana@x.si,Ana\n");
        assert!(
            err.starts_with("line 2: a quoted value is not closed"),
            "{err}"
        );
        let huge = vec![b'a'; MAX_BYTES + 1];
        assert!(problems(&huge).contains("split it into several files"));
        let mut many = String::from("email,name\n");
        for i in 0..=MAX_PLAYERS {
            many.push_str(&format!("p{i}@x.si,P {i}\n"));
        }
        let err = problems(many.as_bytes());
        assert!(err.contains("at most 10000 players"), "{err}");
    }

    #[test]
    fn many_problems_are_cut_to_a_readable_list() {
        let mut text = String::from("email,name\n");
        for _ in 0..40 {
            text.push_str("bad,X\n");
        }
        let err = problems(text.as_bytes());
        assert_eq!(err.lines().count(), MAX_PROBLEMS + 1);
        assert!(err.ends_with("… and 15 more problems"), "{err}");
    }

    #[test]
    fn any_bytes_are_read_without_panicking() {
        let mut seed = 7u64;
        for len in 0..300 {
            let alphabet = b"ab,\"\n\r;@.x\xc5\xa1 \0";
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                })
                .collect();
            let _ = parse(&bytes);
        }
    }
}
