//! PGN export: tags, movetext in export format, mail times and the outcome.

use shakmaty::{Color, Position};

use super::{DERIVED_TAGS, PgnTags, TIME_FORMAT};
use crate::domain::chess::game::{Game, StartPosition};

/// PGN export lines are shorter than 80 columns (PGN standard 8.2.6).
const MAX_LINE: usize = 79;

fn escape_tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A tag name is letters, digits and `_` (PGN standard 8.1.1); anything
/// else is dropped so a hostile name cannot break the file.
fn clean_tag_name(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// A comment may not contain `}`; it becomes `)`.
fn clean_comment(text: &str) -> String {
    text.replace('}', ")")
}

fn result_token(game: &Game) -> &'static str {
    game.outcome().map_or("*", |o| o.result.as_pgn())
}

/// A comment of the players' to put in the movetext: after half-move
/// `after` (0: before the first move), e.g. a message that came with a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remark {
    /// Half-moves played before it.
    pub after: usize,
    /// The text, e.g. `Ana Novak: thanks for the game`.
    pub text: String,
}

/// The game as PGN text, ready to mail or save.
pub fn export(game: &Game, tags: &PgnTags) -> String {
    export_with_remarks(game, tags, &[])
}

/// The game as PGN text, with the players' remarks as comments after the
/// moves they came with.
pub fn export_with_remarks(game: &Game, tags: &PgnTags, remarks: &[Remark]) -> String {
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", escape_tag_value(value)));
    };
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", result_token(game));
    let start = game.start();
    if start.is_chess960() {
        tag("Variant", "Chess960");
    }
    if *start != StartPosition::Standard {
        // A Game's start position was checked when the game was made.
        if let Ok(fen) = start.to_fen() {
            tag("SetUp", "1");
            tag("FEN", &fen);
        }
    }
    if let Some(tc) = &tags.time_control {
        tag("TimeControl", tc);
    }
    tag(
        "Termination",
        game.outcome()
            .map_or("unterminated", |o| o.reason.pgn_termination()),
    );
    if let Some(end) = &tags.end_date {
        tag("EndDate", end);
    }
    for (name, value) in &tags.other {
        let name = clean_tag_name(name);
        if !name.is_empty() && !DERIVED_TAGS.contains(&name.as_str()) {
            tag(&name, value);
        }
    }
    out.push('\n');
    out.push_str(&wrap(&movetext_words(game, remarks)));
    out.push('\n');
    out
}

/// Longest word of a remark kept whole: longer runs are cut into pieces,
/// so that no exported line nears PGN's 255-character limit (8.2.6).
const MAX_REMARK_WORD: usize = 60;

/// A remark's words: a remark never closes its comment early (`}`) nor
/// reads back as our mail times (`[%rcv …]`), and a word without spaces
/// longer than [`MAX_REMARK_WORD`] is cut into pieces.
fn remark_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for word in clean_comment(text).replace("[%", "[ %").split_whitespace() {
        let chars: Vec<char> = word.chars().collect();
        words.extend(
            chars
                .chunks(MAX_REMARK_WORD)
                .map(|c| c.iter().collect::<String>()),
        );
    }
    words
}

/// The movetext as words; a comment is split into words so it can wrap.
fn movetext_words(game: &Game, remarks: &[Remark]) -> Vec<String> {
    let mut words = Vec::new();
    let remarks_after = |words: &mut Vec<String>, ply: usize| -> bool {
        let mut any = false;
        for r in remarks.iter().filter(|r| r.after == ply) {
            let parts = remark_words(&r.text);
            if !parts.is_empty() {
                push_comment(words, parts);
                any = true;
            }
        }
        any
    };
    remarks_after(&mut words, 0);
    let first = game.start().to_position().ok();
    let mut number = first.as_ref().map_or(1, |p| p.fullmoves().get());
    let mut turn = first.as_ref().map_or(Color::White, |p| p.turn());
    let mut need_number = true;
    for (index, ply) in game.plies().iter().enumerate() {
        // A move number and its move are one word, so no line ends between.
        words.push(match turn {
            Color::White => format!("{number}. {}", ply.san),
            Color::Black if need_number => format!("{number}... {}", ply.san),
            Color::Black => ply.san.clone(),
        });
        let mut times = Vec::new();
        if let Some(at) = ply.received_at {
            times.push(format!("[%rcv {}]", at.format(TIME_FORMAT)));
        }
        if let Some(at) = ply.sent_at {
            times.push(format!("[%snt {}]", at.format(TIME_FORMAT)));
        }
        need_number = !times.is_empty();
        if !times.is_empty() {
            // Each `[%rcv …]` stays one word so a line never splits it.
            push_comment(&mut words, times);
        }
        if remarks_after(&mut words, index + 1) {
            need_number = true;
        }
        if turn == Color::Black {
            number = number.saturating_add(1);
        }
        turn = !turn;
    }
    if let Some(outcome) = game.outcome() {
        let sentence = clean_comment(&outcome.to_string());
        push_comment(
            &mut words,
            sentence.split_whitespace().map(str::to_owned).collect(),
        );
    }
    words.push(result_token(game).to_owned());
    words
}

/// Adds a `{…}` comment made of `parts`, which wrap as separate words.
fn push_comment(words: &mut Vec<String>, mut parts: Vec<String>) {
    match parts.as_mut_slice() {
        [] => words.push("{}".to_owned()),
        [only] => words.push(format!("{{{only}}}")),
        [first, .., last] => {
            first.insert(0, '{');
            last.push('}');
            words.extend(parts);
        }
    }
}

fn wrap(words: &[String]) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for word in words {
        let len = word.chars().count();
        // A `%` in a line's first column makes PGN readers skip the line
        // (the escape of PGN standard 6), so such a word never starts one.
        if line_len > 0 && line_len + 1 + len > MAX_LINE && !word.starts_with('%') {
            out.push('\n');
            line_len = 0;
        }
        if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += len;
    }
    out.push('\n');
    out
}
