//! FIDE Tournament Report Files (TRF): the text format FIDE's rating
//! officers and every pairing program read.
//!
//! The layout is TRF16's (FIDE Handbook C.04 Annex 2): one `001` line per
//! player, fixed columns (counted from 1):
//!
//! | columns | field |
//! |---|---|
//! | 1–3 | `001` |
//! | 5–8 | pairing number |
//! | 10 | sex |
//! | 11–13 | title |
//! | 15–47 | name |
//! | 49–52 | rating |
//! | 54–56 | federation |
//! | 58–68 | FIDE id |
//! | 70–79 | birth date |
//! | 81–84 | points |
//! | 86–89 | rank |
//! | 92–95, 97, 99 | round 1: opponent (`0000` for none), colour (`w`, `b`, `-`), result |
//! | +10 per round | the next rounds |
//!
//! Results: `1` `0` `=` a game played (also `W` `L` `D`), `+` `-` a game
//! won or lost by forfeit, blank a game not finished; with no opponent,
//! `U` (or `+`) the pairing-allocated bye, `H` (or `=`) a half-point bye,
//! `F` a full-point bye, `Z` (or `-`, or blank) a round not paired.
//!
//! The lines the pairing programs add, as bbpPairings (the FIDE-endorsed
//! reference) and JaVaFo read them: `XXR n` (or TRF-2026's `142 n`) the
//! number of rounds; `XXC white1|black1` (or `152 W|B`) the colour of the
//! first player in round 1; `162`/`BBW`… the points per result; `192
//! FIDE_DUTCH_2025_BAKU` Baku acceleration; `XXA` a player's virtual
//! points per round; `XXP` players who must not meet; `240` byes and
//! absences of the round to pair. Every other line is kept as it is.
//!
//! A bad file is refused with the line and column of the first fault and
//! what to write instead; nothing is guessed.

use std::fmt;

use super::{Absence, Acceleration, Entry, PointSystem, Points, Side, SideResult, Tournament};
use crate::domain::event::swiss::Player as SwissPlayer;

/// What a TRF file says about one player beyond their games.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Person {
    /// Sex (column 10), as written.
    pub sex: String,
    /// Title (columns 11–13), as written.
    pub title: String,
    /// Name (columns 15–47).
    pub name: String,
    /// Federation (columns 54–56).
    pub federation: String,
    /// FIDE id (columns 58–68), as written.
    pub fide_id: String,
    /// Birth date (columns 70–79), as written.
    pub birth: String,
}

/// A TRF file read: the tournament for pairing plus what is kept to
/// write the file again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trf {
    /// The lines before the first player line, as written.
    pub header: Vec<String>,
    /// The lines after the last player line, as written.
    pub footer: Vec<String>,
    /// The players' details, by pairing number (index 0 is number 1).
    pub people: Vec<Person>,
    /// The tournament: games, byes, points, options.
    pub tournament: Tournament,
    /// Whether the file says how many rounds the tournament has.
    pub rounds_declared: bool,
    /// Whether the file says the first player's colour in round 1.
    pub colour_declared: bool,
}

/// A fault in a TRF file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct TrfError {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1 (0: the whole line).
    pub column: usize,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for TrfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.column > 0 {
            write!(
                f,
                "line {}, column {}: {}",
                self.line, self.column, self.message
            )
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

fn fault(line: usize, column: usize, message: impl Into<String>) -> TrfError {
    TrfError {
        line,
        column,
        message: message.into(),
    }
}

/// One 001 line as read, with where it was.
struct Row {
    line: usize,
    id: usize,
    person: Person,
    rating: u16,
    points: Option<Points>,
    cells: Vec<Option<Cell>>,
}

/// One round cell as read.
#[derive(Debug, Clone, Copy)]
struct Cell {
    column: usize,
    entry: Entry,
}

/// Text from `from` to `to` (columns from 1, inclusive), blanks trimmed.
fn field(chars: &[char], from: usize, to: usize) -> String {
    chars
        .iter()
        .skip(from - 1)
        .take(to + 1 - from)
        .collect::<String>()
        .trim()
        .to_string()
}

/// A decimal number of points (`2.5`, `10`, `0.25`), exact in quarters.
fn parse_points(text: &str) -> Option<Points> {
    let text = text.trim();
    if text.is_empty() || text.len() > 8 {
        return None;
    }
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if !whole.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let frac = frac.trim_end_matches('0');
    let quarters = match frac {
        "" => 0,
        "25" => 1,
        "5" => 2,
        "75" => 3,
        _ => return None,
    };
    Some(Points::from_quarters(whole * 4 + quarters))
}

/// Points as TRF writes them: one decimal (`2.5`, `10.0`), two for quarters.
fn format_points(p: Points) -> String {
    let q = p.quarters();
    match q.rem_euclid(4) {
        0 => format!("{}.0", q / 4),
        2 => format!("{}.5", q.div_euclid(4)),
        _ => p.decimal(),
    }
}

/// Reads a TRF file.
pub fn parse(text: &str) -> Result<Trf, TrfError> {
    let lines: Vec<&str> = text.split('\n').flat_map(|l| l.split('\r')).collect();
    let mut header = Vec::new();
    let mut footer = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut rounds: Option<(u32, usize)> = None;
    let mut colour: Option<Side> = None;
    let mut points = PointSystem::default();
    let mut pairing_bye_set = false;
    let mut acceleration = Acceleration::None;
    let mut accelerations: Vec<(usize, usize, Vec<Points>)> = Vec::new();
    let mut forbidden: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut byes: Vec<(usize, u32, usize, Absence)> = Vec::new();

    for (i, raw) in lines.iter().enumerate() {
        let line = i + 1;
        let chars: Vec<char> = raw.chars().collect();
        if chars.len() < 3 || raw.trim().is_empty() {
            if !raw.trim().is_empty() {
                return Err(fault(
                    line,
                    1,
                    "a line starts with a three-character code such as 001 or 012",
                ));
            }
            continue;
        }
        let code: String = chars[..3].iter().collect();
        let rest = || field(&chars, 4, chars.len().max(4));
        let keep = |header: &mut Vec<String>, footer: &mut Vec<String>, rows: &Vec<Row>| {
            if rows.is_empty() {
                header.push(raw.to_string());
            } else {
                footer.push(raw.to_string());
            }
        };
        match code.as_str() {
            "001" => rows.push(player_line(line, &chars)?),
            "XXR" | "142" => {
                let n = rest()
                    .parse::<u32>()
                    .ok()
                    .filter(|&n| n > 0 && n < 1000)
                    .ok_or_else(|| {
                        fault(
                            line,
                            5,
                            format!("{code} needs the number of rounds, e.g. `{code} 9`"),
                        )
                    })?;
                rounds = Some((n, line));
                keep(&mut header, &mut footer, &rows);
            }
            "XXC" => {
                for token in rest().split_whitespace() {
                    match token {
                        "white1" => colour = Some(Side::White),
                        "black1" => colour = Some(Side::Black),
                        "rank" => {
                            return Err(fault(
                                line,
                                5,
                                "XXC rank (pairing by the order of the lines) is not supported: number the players in their pairing order",
                            ));
                        }
                        _ => {}
                    }
                }
                keep(&mut header, &mut footer, &rows);
            }
            "152" => {
                colour = match rest().as_str() {
                    "W" => Some(Side::White),
                    "B" => Some(Side::Black),
                    _ => {
                        return Err(fault(
                            line,
                            5,
                            "152 needs W or B: the first player's colour in round 1",
                        ));
                    }
                };
                keep(&mut header, &mut footer, &rows);
            }
            "162" => {
                point_line(line, &chars, &mut points, &mut pairing_bye_set)?;
                keep(&mut header, &mut footer, &rows);
            }
            "BBW" | "BBD" | "BBL" | "BBZ" | "BBF" | "BBU" => {
                let value = parse_points(&rest()).ok_or_else(|| {
                    fault(line, 5, format!("{code} needs points, e.g. `{code}  1.0`"))
                })?;
                match code.as_str() {
                    "BBW" => {
                        points.win = value;
                        if !pairing_bye_set {
                            points.pairing_bye = value;
                        }
                    }
                    "BBD" => points.draw = value,
                    "BBL" => points.loss = value,
                    "BBZ" => points.zero_bye = value,
                    "BBF" => points.forfeit_loss = value,
                    _ => {
                        points.pairing_bye = value;
                        pairing_bye_set = true;
                    }
                }
                keep(&mut header, &mut footer, &rows);
            }
            "192" => {
                acceleration = match rest().as_str() {
                    "FIDE_DUTCH" | "FIDE_DUTCH_2025" | "FIDE_DUTCH_2026" => Acceleration::None,
                    "FIDE_DUTCH_BAKU" | "FIDE_DUTCH_2025_BAKU" | "FIDE_DUTCH_2026_BAKU" => {
                        Acceleration::Baku
                    }
                    other => {
                        return Err(fault(
                            line,
                            5,
                            format!(
                                "pairing system {other:?} is not supported: dopis pairs by the FIDE Dutch system (FIDE_DUTCH_2025, or FIDE_DUTCH_2025_BAKU with Baku acceleration)"
                            ),
                        ));
                    }
                };
                keep(&mut header, &mut footer, &rows);
            }
            "XXA" => {
                let id = number(
                    &chars,
                    line,
                    5,
                    8,
                    "XXA needs a pairing number in columns 5-8",
                )?;
                let mut values = Vec::new();
                let mut column = 10;
                while column + 3 <= chars.len() {
                    let text = field(&chars, column, column + 3);
                    values.push(if text.is_empty() {
                        Points::ZERO
                    } else {
                        parse_points(&text).ok_or_else(|| {
                            fault(
                                line,
                                column,
                                "XXA needs points in columns of five (e.g. ` 1.0`)",
                            )
                        })?
                    });
                    column += 5;
                }
                accelerations.push((line, id, values));
                keep(&mut header, &mut footer, &rows);
            }
            "XXP" => {
                let ids = rest()
                    .split_whitespace()
                    .map(|t| t.parse::<usize>().ok().filter(|&n| n > 0))
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(|| {
                        fault(
                            line,
                            5,
                            "XXP needs the pairing numbers of players who must not meet",
                        )
                    })?;
                forbidden.push((line, ids));
                keep(&mut header, &mut footer, &rows);
            }
            "240" => {
                let kind = match chars.get(4) {
                    Some('H') => Absence::Half,
                    Some('F') => Absence::Full,
                    Some('Z') | Some(' ') => Absence::Zero,
                    _ => {
                        return Err(fault(
                            line,
                            5,
                            "240 needs a bye type in column 5: H, F or Z",
                        ));
                    }
                };
                let round =
                    number(&chars, line, 7, 9, "240 needs the round in columns 7-9")? as u32;
                let mut column = 11;
                while column <= chars.len() {
                    let text = field(&chars, column, column + 3);
                    if !text.is_empty() {
                        let id = number(
                            &chars,
                            line,
                            column,
                            column + 3,
                            "240 needs pairing numbers in columns of five",
                        )?;
                        byes.push((line, round, id, kind));
                    }
                    column += 5;
                }
                keep(&mut header, &mut footer, &rows);
            }
            "013" | "310" => {
                return Err(fault(
                    line,
                    1,
                    "team tournaments are not supported: dopis pairs individual Swiss tournaments",
                ));
            }
            "299" => {
                return Err(fault(
                    line,
                    1,
                    "line 299 (abnormal points) is not supported",
                ));
            }
            _ => keep(&mut header, &mut footer, &rows),
        }
    }
    if rows.is_empty() {
        return Err(fault(
            lines.len().max(1),
            0,
            "the file has no player lines (001)",
        ));
    }
    build(
        rows,
        header,
        footer,
        Options {
            rounds,
            colour,
            points,
            acceleration,
            accelerations,
            forbidden,
            byes,
        },
    )
}

/// The lines that are not about one player.
struct Options {
    rounds: Option<(u32, usize)>,
    colour: Option<Side>,
    points: PointSystem,
    acceleration: Acceleration,
    accelerations: Vec<(usize, usize, Vec<Points>)>,
    forbidden: Vec<(usize, Vec<usize>)>,
    byes: Vec<(usize, u32, usize, Absence)>,
}

/// A positive number in columns `from`–`to`.
fn number(
    chars: &[char],
    line: usize,
    from: usize,
    to: usize,
    what: &str,
) -> Result<usize, TrfError> {
    field(chars, from, to)
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| fault(line, from, what.to_string()))
}

fn point_line(
    line: usize,
    chars: &[char],
    points: &mut PointSystem,
    bye_set: &mut bool,
) -> Result<(), TrfError> {
    // "162  W 1.0  D 0.5 ...": a code letter, then four columns of points.
    let mut column = 6;
    while column + 4 <= chars.len() {
        let code = chars[column - 1];
        let value = parse_points(&field(chars, column + 1, column + 4)).ok_or_else(|| {
            fault(
                line,
                column + 1,
                "162 needs points after each code letter, e.g. `W 1.0`",
            )
        })?;
        match code {
            'W' => {
                points.win = value;
                if !*bye_set {
                    points.pairing_bye = value;
                }
            }
            'D' => points.draw = value,
            'L' => points.loss = value,
            'Z' | 'A' => {
                points.zero_bye = value;
                points.forfeit_loss = value;
            }
            'P' => {
                points.pairing_bye = value;
                *bye_set = true;
            }
            _ => {
                return Err(fault(
                    line,
                    column,
                    format!("162: unknown code {code:?}: use W, D, L, Z or P"),
                ));
            }
        }
        column += 9;
    }
    Ok(())
}

fn player_line(line: usize, chars: &[char]) -> Result<Row, TrfError> {
    if chars.len() < 84 {
        return Err(fault(
            line,
            chars.len() + 1,
            "a player line (001) reaches at least column 84 (the points in columns 81-84)",
        ));
    }
    let id = number(
        chars,
        line,
        5,
        8,
        "the pairing number (columns 5-8) must be a number from 1",
    )?;
    let rating_text = field(chars, 49, 52);
    let rating = if rating_text.is_empty() {
        0
    } else {
        rating_text.parse::<u16>().map_err(|_| {
            fault(
                line,
                49,
                format!("the rating (columns 49-52) must be a number, not {rating_text:?}"),
            )
        })?
    };
    let points_text = field(chars, 81, 84);
    let points = if points_text.is_empty() {
        None
    } else {
        Some(parse_points(&points_text).ok_or_else(|| {
            fault(
                line,
                81,
                format!(
                    "the points (columns 81-84) must be a number such as 2.5, not {points_text:?}"
                ),
            )
        })?)
    };
    let person = Person {
        sex: field(chars, 10, 10),
        title: field(chars, 11, 13),
        name: field(chars, 15, 47),
        federation: field(chars, 54, 56),
        fide_id: field(chars, 58, 68),
        birth: field(chars, 70, 79),
    };
    let mut cells = Vec::new();
    let mut column = 92;
    while column <= chars.len() {
        cells.push(cell(line, chars, column, id)?);
        column += 10;
    }
    // Blank cells at the end are no rounds.
    while matches!(cells.last(), Some(None)) {
        cells.pop();
    }
    Ok(Row {
        line,
        id,
        person,
        rating,
        points,
        cells,
    })
}

/// One round: opponent in `column`..+3, colour at +5, result at +7.
fn cell(line: usize, chars: &[char], column: usize, id: usize) -> Result<Option<Cell>, TrfError> {
    let at = |c: usize| chars.get(c - 1).copied().unwrap_or(' ');
    let opponent_text = field(chars, column, column + 3);
    let colour = at(column + 5);
    let result = at(column + 7);
    for gap in [column + 4, column + 6, column + 8, column + 9] {
        if at(gap) != ' ' && gap <= chars.len() {
            return Err(fault(
                line,
                gap,
                "a round takes ten columns: opponent (4), a blank, colour, a blank, result, blanks",
            ));
        }
    }
    if opponent_text.is_empty() && colour == ' ' && result == ' ' {
        return Ok(None);
    }
    let round = (column - 92) / 10 + 1;
    let opponent = if opponent_text.is_empty() {
        0
    } else {
        opponent_text.parse::<usize>().map_err(|_| {
            fault(line, column, format!("round {round}: the opponent (columns {column}-{}) must be a pairing number or 0000", column + 3))
        })?
    };
    let entry = if opponent == 0 {
        if !matches!(colour, '-' | ' ') {
            return Err(fault(
                line,
                column + 5,
                format!(
                    "round {round}: a round without an opponent has colour `-`, not {colour:?}"
                ),
            ));
        }
        match result {
            'U' | '+' => Entry::PairingBye,
            'H' | '=' => Entry::Unpaired(Absence::Half),
            'F' => Entry::Unpaired(Absence::Full),
            'Z' | '-' | ' ' => Entry::Unpaired(Absence::Zero),
            other => {
                return Err(fault(
                    line,
                    column + 7,
                    format!(
                        "round {round}: without an opponent the result is U (pairing-allocated bye), H, F or Z, not {other:?}"
                    ),
                ));
            }
        }
    } else {
        if opponent == id {
            return Err(fault(
                line,
                column,
                format!("round {round}: player {id} cannot play themself"),
            ));
        }
        let side = match colour {
            'w' | 'W' => Side::White,
            'b' | 'B' => Side::Black,
            // A forfeit may have no colour; the colours of unplayed games
            // count for nothing (C.04.2 3.4), so any will do.
            '-' if matches!(result, '+' | '-') => {
                if id < opponent {
                    Side::White
                } else {
                    Side::Black
                }
            }
            other => {
                return Err(fault(
                    line,
                    column + 5,
                    format!("round {round}: the colour is w or b, not {other:?}"),
                ));
            }
        };
        let (result, played) = match result {
            '1' | 'W' => (Some(SideResult::Win), true),
            '0' | 'L' => (Some(SideResult::Loss), true),
            '=' | 'D' => (Some(SideResult::Draw), true),
            '+' => (Some(SideResult::Win), false),
            '-' => (Some(SideResult::Loss), false),
            ' ' => (None, true),
            other => {
                return Err(fault(
                    line,
                    column + 7,
                    format!(
                        "round {round}: a game's result is 1, =, 0, + or - (or blank while it goes on), not {other:?}"
                    ),
                ));
            }
        };
        Entry::Game {
            opponent: opponent - 1,
            colour: side,
            result,
            played,
        }
    };
    Ok(Some(Cell { column, entry }))
}

fn build(
    mut rows: Vec<Row>,
    header: Vec<String>,
    footer: Vec<String>,
    options: Options,
) -> Result<Trf, TrfError> {
    rows.sort_by_key(|r| r.id);
    for pair in rows.windows(2) {
        if pair[0].id == pair[1].id {
            return Err(fault(
                pair[1].line.max(pair[0].line),
                5,
                format!(
                    "pairing number {} is on two lines ({} and {})",
                    pair[0].id,
                    pair[0].line.min(pair[1].line),
                    pair[0].line.max(pair[1].line)
                ),
            ));
        }
    }
    for (i, row) in rows.iter().enumerate() {
        if row.id != i + 1 {
            return Err(fault(
                row.line,
                5,
                format!(
                    "pairing number {} is missing: number the players 1 to {} without gaps",
                    i + 1,
                    rows.len()
                ),
            ));
        }
    }
    let n = rows.len();
    // Every opponent exists, and both players say the same of their game.
    for row in &rows {
        for (r, cell) in row.cells.iter().enumerate() {
            let Some(Cell {
                column,
                entry:
                    Entry::Game {
                        opponent,
                        colour,
                        result,
                        played,
                    },
            }) = *cell
            else {
                continue;
            };
            let round = r + 1;
            let Some(other) = rows.get(opponent) else {
                return Err(fault(
                    row.line,
                    column,
                    format!(
                        "round {round}: opponent {} does not exist (the players are numbered 1 to {n})",
                        opponent + 1
                    ),
                ));
            };
            let theirs = other.cells.get(r).copied().flatten().map(|c| c.entry);
            let me = row.id - 1;
            // The colours of a forfeit count for nothing (C.04.2 3.4), and
            // both sides may lose one (neither came: `-` against `-`).
            let double_forfeit = |tr| !played && result == Some(SideResult::Loss) && tr == result;
            let consistent = matches!(theirs, Some(Entry::Game { opponent: o, colour: c, result: tr, played: tp })
                if o == me && tp == played && (tr == mirrored_result(result) || double_forfeit(tr)) && (!played || c == colour.opposite()));
            if !consistent {
                let what = match theirs {
                    Some(Entry::Game { opponent: o, .. }) if o != row.id - 1 => format!(
                        "player {} is paired with player {} in round {round}, but player {}'s line pairs them with player {}: a player is paired twice in that round",
                        row.id,
                        opponent + 1,
                        opponent + 1,
                        o + 1
                    ),
                    Some(Entry::Game { .. }) => format!(
                        "round {round}: players {} and {} give their game different colours or results that cannot both be true (one's `1` is the other's `0`, `=` is `=`, `+` is `-`, and the colours are opposite)",
                        row.id,
                        opponent + 1
                    ),
                    _ => format!(
                        "round {round}: player {} is paired with player {}, whose line has no game in that round",
                        row.id,
                        opponent + 1
                    ),
                };
                return Err(fault(row.line, column, what));
            }
        }
    }
    let paired = rows
        .iter()
        .filter_map(|r| {
            r.cells
                .iter()
                .rposition(|c| matches!(c, Some(Cell { entry, .. }) if entry.paired()))
        })
        .map(|i| i + 1)
        .max()
        .unwrap_or(0);
    let longest = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    let rounds = match options.rounds {
        Some((declared, line)) => {
            if let Some(row) = rows.iter().find(|r| r.cells.len() > declared as usize) {
                let column = 92 + 10 * declared as usize;
                return Err(fault(
                    row.line,
                    column,
                    format!(
                        "player {} has an entry for round {}, but the tournament has {declared} rounds (line {line}: XXR {declared})",
                        row.id,
                        declared + 1
                    ),
                ));
            }
            declared
        }
        None => longest.max(paired) as u32,
    };
    let mut players: Vec<SwissPlayer> = rows
        .iter()
        .map(|r| SwissPlayer {
            rating: r.rating,
            rounds: r
                .cells
                .iter()
                .map(|c| c.map_or(Entry::Unpaired(Absence::Zero), |c| c.entry))
                .collect(),
            accelerations: Vec::new(),
        })
        .collect();
    for (line, id, values) in options.accelerations {
        let player = players
            .get_mut(id - 1)
            .ok_or_else(|| fault(line, 5, format!("XXA: player {id} does not exist")))?;
        player.accelerations = values;
    }
    let mut forbidden = Vec::new();
    for (line, ids) in options.forbidden {
        if let Some(bad) = ids.iter().find(|&&id| id > n) {
            return Err(fault(line, 5, format!("XXP: player {bad} does not exist")));
        }
        forbidden.push(ids.into_iter().map(|id| id - 1).collect());
    }
    for (line, round, id, kind) in options.byes {
        let player = players
            .get_mut(id - 1)
            .ok_or_else(|| fault(line, 11, format!("240: player {id} does not exist")))?;
        let index = round as usize - 1;
        if player.rounds.len() <= index {
            player.rounds.resize(index, Entry::Unpaired(Absence::Zero));
            player.rounds.push(Entry::Unpaired(kind));
        } else if player.rounds[index].paired() {
            return Err(fault(
                line,
                11,
                format!("240: player {id} is paired in round {round} already"),
            ));
        }
    }
    let mut tournament = Tournament {
        players,
        rounds,
        points: options.points,
        initial_colour: Side::White,
        acceleration: options.acceleration,
        forbidden,
    };
    let colour_declared = options.colour.is_some();
    tournament.initial_colour = options
        .colour
        .or_else(|| infer_colour(&tournament))
        .unwrap_or(Side::White);
    // The points column must agree with the results (as bbpPairings checks:
    // a file with another point system must say so).
    for row in &rows {
        let Some(written) = row.points else { continue };
        let p = row.id - 1;
        let all = tournament.score_after(p, tournament.players[p].rounds.len() as u32);
        let next = tournament.players[p].rounds.len() as u32 + 1;
        let accelerated =
            all + card_acceleration(&tournament, p, next.min(tournament.rounds.max(1)));
        if written != all && written != accelerated {
            return Err(fault(
                row.line,
                81,
                format!(
                    "player {}'s points are {}, but the results add up to {}: correct the points or the results (or give the point system in line 162)",
                    row.id,
                    format_points(written),
                    format_points(all)
                ),
            ));
        }
    }
    Ok(Trf {
        header,
        footer,
        people: rows.into_iter().map(|r| r.person).collect(),
        tournament,
        rounds_declared: options.rounds.is_some(),
        colour_declared,
    })
}

fn mirrored_result(result: Option<SideResult>) -> Option<SideResult> {
    result.map(|x| match x {
        SideResult::Win => SideResult::Loss,
        SideResult::Loss => SideResult::Win,
        SideResult::Draw => SideResult::Draw,
    })
}

fn card_acceleration(t: &Tournament, player: usize, round: u32) -> Points {
    super::card::Accelerations::new(t).of(t, player, round)
}

/// The colour of the first player in round 1 when the file does not say
/// it, as bbpPairings infers it: the colour of the highest player in the
/// first round with colours (reversed for an even rank).
fn infer_colour(t: &Tournament) -> Option<Side> {
    let first = t
        .players
        .iter()
        .filter_map(|p| {
            p.rounds
                .iter()
                .position(|e| matches!(e, Entry::Game { .. }))
        })
        .min()?;
    let mut rank = 0;
    for p in &t.players {
        let took_part = p.rounds.iter().take(first + 1).any(Entry::paired);
        if !took_part {
            continue;
        }
        if let Some(Entry::Game { colour, .. }) = p.rounds.get(first) {
            return Some(if rank % 2 == 1 {
                colour.opposite()
            } else {
                *colour
            });
        }
        rank += 1;
    }
    None
}

impl Trf {
    /// A new file for `tournament`, with `people` (by pairing number) and
    /// the tournament's name.
    pub fn new(name: &str, people: Vec<Person>, tournament: Tournament) -> Trf {
        let mut header = vec![format!("012 {name}")];
        header.push(format!("XXR {}", tournament.rounds));
        header.push(format!(
            "XXC {}",
            match tournament.initial_colour {
                Side::White => "white1",
                Side::Black => "black1",
            }
        ));
        let p = &tournament.points;
        if *p != PointSystem::default() {
            header.push(format!("BBW {:>4}", format_points(p.win)));
            header.push(format!("BBD {:>4}", format_points(p.draw)));
            header.push(format!("BBL {:>4}", format_points(p.loss)));
            header.push(format!("BBZ {:>4}", format_points(p.zero_bye)));
            header.push(format!("BBF {:>4}", format_points(p.forfeit_loss)));
            header.push(format!("BBU {:>4}", format_points(p.pairing_bye)));
        }
        if tournament.acceleration == Acceleration::Baku {
            header.push("192 FIDE_DUTCH_2025_BAKU".to_string());
        }
        for group in &tournament.forbidden {
            let ids: Vec<String> = group.iter().map(|p| (p + 1).to_string()).collect();
            header.push(format!("XXP {}", ids.join(" ")));
        }
        for (i, player) in tournament.players.iter().enumerate() {
            if !player.accelerations.is_empty() {
                let values: String = player
                    .accelerations
                    .iter()
                    .map(|a| format!(" {:>4}", format_points(*a)))
                    .collect();
                header.push(format!("XXA {:>4}{values}", i + 1));
            }
        }
        Trf {
            header,
            footer: Vec::new(),
            people,
            tournament,
            rounds_declared: true,
            colour_declared: true,
        }
    }

    /// The file as text (lines end with a line feed).
    pub fn write(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            out.push_str(line);
            out.push('\n');
        }
        if !self.rounds_declared
            && !self
                .header
                .iter()
                .any(|l| l.starts_with("XXR") || l.starts_with("142"))
        {
            out.push_str(&format!("XXR {}\n", self.tournament.rounds));
        }
        if !self.colour_declared {
            out.push_str(match self.tournament.initial_colour {
                Side::White => "XXC white1\n",
                Side::Black => "XXC black1\n",
            });
        }
        let t = &self.tournament;
        let length = t.players.iter().map(|p| p.rounds.len()).max().unwrap_or(0) as u32;
        let ranks = final_ranks(t, length);
        for (i, player) in t.players.iter().enumerate() {
            let person = self.people.get(i).cloned().unwrap_or_default();
            let score = t.score_after(i, player.rounds.len() as u32);
            let mut line = format!(
                "001 {:>4} {:1}{:>3} {:<33} {:>4} {:<3} {:>11} {:<10} {:>4} {:>4}",
                i + 1,
                clip(&person.sex, 1),
                clip(&person.title, 3),
                clip(&person.name, 33),
                if player.rating > 0 {
                    player.rating.to_string()
                } else {
                    String::new()
                },
                clip(&person.federation, 3),
                clip(&person.fide_id, 11),
                clip(&person.birth, 10),
                format_points(score),
                ranks[i] + 1,
            );
            for entry in &player.rounds {
                line.push_str("  ");
                line.push_str(&cell_text(entry));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for line in &self.footer {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

fn clip(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

/// A round's eight columns: opponent, colour, result.
fn cell_text(entry: &Entry) -> String {
    match *entry {
        Entry::Game {
            opponent,
            colour,
            result,
            played,
        } => {
            let c = match colour {
                Side::White => 'w',
                Side::Black => 'b',
            };
            let r = match (result, played) {
                (None, _) => ' ',
                (Some(SideResult::Win), true) => '1',
                (Some(SideResult::Draw), true) => '=',
                (Some(SideResult::Loss), true) => '0',
                (Some(SideResult::Win), false) => '+',
                (Some(SideResult::Loss), false) => '-',
                // A draw by forfeit is not a result TRF can say.
                (Some(SideResult::Draw), false) => '=',
            };
            format!("{:>4} {c} {r}", opponent + 1)
        }
        Entry::PairingBye => "0000 - U".to_string(),
        Entry::Unpaired(Absence::Half) => "0000 - H".to_string(),
        Entry::Unpaired(Absence::Full) => "0000 - F".to_string(),
        Entry::Unpaired(Absence::Zero) => "0000 - Z".to_string(),
    }
}

/// Each player's place after `rounds` rounds: points, then pairing number.
fn final_ranks(t: &Tournament, rounds: u32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..t.players.len()).collect();
    order.sort_by(|&a, &b| {
        t.score_after(b, rounds)
            .cmp(&t.score_after(a, rounds))
            .then(a.cmp(&b))
    });
    let mut ranks = vec![0; order.len()];
    for (place, p) in order.into_iter().enumerate() {
        ranks[p] = place;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "012 Test\nXXR 3\nXXC white1\n\
001    1      Player One                        2000                             1.5    1     3 w 1     2 b =\n\
001    2      Player Two                        1900                             1.5    2     4 w 1     1 w =\n\
001    3      Player Three                      1800                             0.0    3     1 b 0     4 b 0\n\
001    4      Player Four                       1700                             1.0    4     2 b 0     3 w 1\n";

    #[test]
    fn a_file_reads_and_writes_back_the_same_games() {
        let trf = parse(SMALL).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trf.tournament.rounds, 3);
        assert_eq!(trf.people[0].name, "Player One");
        assert_eq!(trf.tournament.players[2].rating, 1800);
        let again = parse(&trf.write()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(again.tournament, trf.tournament);
        assert_eq!(again.people, trf.people);
    }

    #[test]
    fn colours_that_disagree_are_refused_with_line_and_column() {
        let bad = SMALL.replace("2 b =", "2 w =");
        let err = parse(&bad).unwrap_err();
        assert_eq!((err.line, err.column), (4, 102), "{err}");
        assert!(err.to_string().contains("round 2"), "{err}");
    }

    #[test]
    fn a_player_paired_twice_in_a_round_is_refused() {
        // Player 3 also claims player 2 in round 2.
        let bad = SMALL.replace("4 b 0\n001    4", "2 b 0\n001    4");
        let err = parse(&bad).unwrap_err();
        assert!(err.to_string().contains("paired twice"), "{err}");
    }

    #[test]
    fn impossible_results_and_wrong_points_are_refused() {
        let both_won = SMALL.replace("001    3      Player Three                      1800                             0.0    3     1 b 0", "001    3      Player Three                      1800                             1.0    3     1 b 1");
        let err = parse(&both_won).unwrap_err();
        assert!(err.to_string().contains("cannot both be true"), "{err}");
        let points = SMALL.replace(
            "1700                             1.0",
            "1700                             2.0",
        );
        let err = parse(&points).unwrap_err();
        assert_eq!((err.line, err.column), (7, 81), "{err}");
        assert!(err.to_string().contains("add up to 1.0"), "{err}");
    }

    #[test]
    fn a_result_for_a_round_beyond_the_last_is_refused() {
        let bad = SMALL.replace("XXR 3", "XXR 1");
        let err = parse(&bad).unwrap_err();
        assert!(
            err.to_string()
                .contains("round 2, but the tournament has 1 rounds"),
            "{err}"
        );
    }

    #[test]
    fn points_read_exactly_in_quarters() {
        assert_eq!(parse_points("2.5"), Some(Points::halves(5)));
        assert_eq!(parse_points("10"), Some(Points::whole(10)));
        assert_eq!(parse_points("0.25"), Some(Points::from_quarters(1)));
        assert_eq!(parse_points("1.3"), None);
        assert_eq!(parse_points("x"), None);
        assert_eq!(format_points(Points::halves(5)), "2.5");
        assert_eq!(format_points(Points::whole(3)), "3.0");
    }
}
