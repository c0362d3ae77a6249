//! PGN import: one game, replayed by the rules, with its times and outcome.

use chrono::{DateTime, NaiveDateTime, Utc};
use shakmaty::san::{SanError, SanPlus};
use shakmaty::{Color, Position};

use super::{DERIVED_TAGS, PgnTags, TIME_FORMAT};
use crate::domain::chess::game::{ClaimReason, Game, StartPosition, StartPositionError};
use crate::domain::chess::outcome::{EndReason, GameResult, Outcome};

/// A game read from PGN: its tags and the replayed game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnGame {
    /// The tags, with the derived ones (Result, FEN, …) taken out.
    pub tags: PgnTags,
    /// The game, replayed move by move, with its outcome.
    pub game: Game,
}

/// Why a PGN text could not be read; says where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    /// The text breaks the PGN syntax.
    #[error("line {line}: {problem}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// The `FEN` tag does not give a usable position.
    #[error("the FEN tag is not usable: {0}")]
    Start(#[from] StartPositionError),
    /// The game is of a variant dopis does not play.
    #[error("variant {0:?} is not supported (only standard chess and Chess960)")]
    Variant(String),
    /// A move in the movetext failed.
    #[error("line {line}, move {number} {token:?}: {problem}")]
    Move {
        /// 1-based line number.
        line: usize,
        /// The move number as PGN writes it, e.g. `12.` or `12...`.
        number: String,
        /// The token as written.
        token: String,
        /// What is wrong with it.
        problem: String,
    },
    /// There is no game in the text.
    #[error("no game found: the text has neither tags nor moves")]
    Empty,
}

/// One piece of the text, with the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PgnToken {
    Tag(String, String),
    Comment(String),
    Word(String),
}

struct Scanner<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    at_line_start: bool,
}

impl Scanner<'_> {
    fn new(text: &str) -> Scanner<'_> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Scanner {
            chars: text.chars().peekable(),
            line: 1,
            at_line_start: true,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        self.at_line_start = c == '\n';
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn syntax(&self, line: usize, problem: impl Into<String>) -> PgnError {
        PgnError::Syntax {
            line,
            problem: problem.into(),
        }
    }

    fn skip_line(&mut self) -> String {
        let mut text = String::new();
        while let Some(c) = self.chars.peek().copied() {
            if c == '\n' {
                break;
            }
            self.bump();
            text.push(c);
        }
        text
    }

    fn brace_comment(&mut self, line: usize) -> Result<String, PgnError> {
        let mut text = String::new();
        loop {
            match self.bump() {
                Some('}') => return Ok(text),
                Some(c) => text.push(c),
                None => return Err(self.syntax(line, "a comment '{' is never closed with '}'")),
            }
        }
    }

    fn tag(&mut self, line: usize) -> Result<PgnToken, PgnError> {
        let mut name = String::new();
        while let Some(c) = self.chars.peek().copied() {
            if c.is_whitespace() || c == '"' || c == ']' {
                break;
            }
            self.bump();
            name.push(c);
        }
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.bump();
        }
        if self.bump() != Some('"') {
            return Err(self.syntax(
                line,
                format!("tag {name:?} has no quoted value; write it like [Event \"Club match\"]"),
            ));
        }
        let mut value = String::new();
        loop {
            match self.bump() {
                Some('\\') => match self.bump() {
                    Some(c) => value.push(c),
                    None => break,
                },
                Some('"') => break,
                Some('\n') | None => {
                    return Err(self.syntax(
                        line,
                        format!("the value of tag {name:?} is not closed with '\"'"),
                    ));
                }
                Some(c) => value.push(c),
            }
        }
        while self.chars.peek().is_some_and(|c| *c != ']' && *c != '\n') {
            self.bump();
        }
        if self.bump() != Some(']') {
            return Err(self.syntax(line, format!("tag {name:?} is not closed with ']'")));
        }
        Ok(PgnToken::Tag(name, value))
    }

    /// Skips a variation whose `(` was just read, nested ones included.
    fn variation(&mut self, line: usize) -> Result<(), PgnError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.bump() {
                Some('(') => depth += 1,
                Some(')') => depth -= 1,
                Some('{') => {
                    self.brace_comment(self.line)?;
                }
                Some(';') => {
                    self.skip_line();
                }
                Some(_) => {}
                None => return Err(self.syntax(line, "a variation '(' is never closed with ')'")),
            }
        }
        Ok(())
    }

    /// The next token and its line, skipping NAGs, variations and escapes.
    fn next_token(&mut self) -> Result<Option<(usize, PgnToken)>, PgnError> {
        loop {
            if self.at_line_start && self.chars.peek() == Some(&'%') {
                self.skip_line();
                continue;
            }
            let line = self.line;
            let Some(c) = self.chars.peek().copied() else {
                return Ok(None);
            };
            match c {
                c if c.is_whitespace() => {
                    self.bump();
                }
                '[' => {
                    self.bump();
                    return self.tag(line).map(|t| Some((line, t)));
                }
                '{' => {
                    self.bump();
                    return self
                        .brace_comment(line)
                        .map(|text| Some((line, PgnToken::Comment(text))));
                }
                ';' => {
                    self.bump();
                    let text = self.skip_line();
                    return Ok(Some((line, PgnToken::Comment(text))));
                }
                '(' => {
                    self.bump();
                    self.variation(line)?;
                }
                ')' => {
                    return Err(self.syntax(line, "')' closes a variation that was never opened"));
                }
                '$' => {
                    self.bump();
                    while self.chars.peek().is_some_and(char::is_ascii_digit) {
                        self.bump();
                    }
                }
                _ => {
                    let mut word = String::new();
                    while let Some(c) = self.chars.peek().copied() {
                        if c.is_whitespace() || "{}();[$".contains(c) {
                            break;
                        }
                        self.bump();
                        word.push(c);
                    }
                    if word.is_empty() {
                        // Only a stray '}' gets here; never loop on it.
                        self.bump();
                        return Err(self.syntax(line, format!("{c:?} without an opening '{{'")));
                    }
                    return Ok(Some((line, PgnToken::Word(word))));
                }
            }
        }
    }
}

/// A word without its leading move number (`12.`, `12...`, `12…`).
fn strip_move_number(word: &str) -> &str {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() == word.len() {
        return word;
    }
    let after = rest.trim_start_matches(['.', '…']);
    if after.len() == rest.len() && !rest.is_empty() {
        // Digits not followed by dots: not a move number (e.g. "1-0").
        return word;
    }
    after
}

fn is_result(word: &str) -> bool {
    matches!(word, "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")
}

fn result_of(word: &str) -> Option<GameResult> {
    match word {
        "½-½" => Some(GameResult::Draw),
        other => GameResult::from_pgn(other),
    }
}

/// SAN as written in files, made readable for shakmaty: annotation marks
/// dropped and castling with zeros written with letters.
fn normalize_san(token: &str) -> String {
    let bare = token.trim_end_matches(['!', '?']);
    if let Some(rest) = bare.strip_prefix("0-0-0") {
        format!("O-O-O{rest}")
    } else if let Some(rest) = bare.strip_prefix("0-0") {
        format!("O-O{rest}")
    } else {
        bare.to_owned()
    }
}

fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text, TIME_FORMAT)
        .ok()
        .map(|t| t.and_utc())
}

/// The `[%rcv …]` and `[%snt …]` times in a comment, and the rest of its text.
fn read_times(comment: &str) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>, String) {
    let mut received = None;
    let mut sent = None;
    let mut rest = String::new();
    let mut text = comment;
    while let Some(open) = text.find("[%") {
        rest.push_str(&text[..open]);
        let after = &text[open + 2..];
        let Some(close) = after.find(']') else {
            rest.push_str(&text[open..]);
            text = "";
            break;
        };
        let command = &after[..close];
        let mut parts = command.split_whitespace();
        match (parts.next(), parts.next()) {
            (Some("rcv"), Some(at)) => received = parse_time(at).or(received),
            (Some("snt"), Some(at)) => sent = parse_time(at).or(sent),
            _ => {}
        }
        text = &after[close + 1..];
    }
    rest.push_str(text);
    let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    (received, sent, rest)
}

fn start_from_tags(variant: Option<&str>, fen: Option<&str>) -> Result<StartPosition, PgnError> {
    let chess960 = match variant.map(|v| v.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) if v.is_empty() || v == "standard" || v == "normal" || v == "from position" => {
            false
        }
        Some(v)
            if v.replace([' ', '-'], "") == "chess960"
                || v == "fischerandom"
                || v == "fischer random" =>
        {
            true
        }
        Some(_) => return Err(PgnError::Variant(variant.unwrap_or_default().to_owned())),
    };
    match fen {
        None if chess960 => Ok(StartPosition::Chess960(
            crate::domain::chess::game::CHESS960_STANDARD,
        )),
        None => Ok(StartPosition::Standard),
        Some(fen) => {
            let start = StartPosition::fen(fen)?;
            let position = start.to_position()?;
            if chess960 && let Some(n) = StartPosition::chess960_number_of(&position) {
                return Ok(StartPosition::Chess960(n));
            }
            if !chess960
                && position == shakmaty::Chess::default()
                && position.halfmoves() == 0
                && position.fullmoves().get() == 1
            {
                return Ok(StartPosition::Standard);
            }
            Ok(start)
        }
    }
}

/// Reads the first game of a PGN text.
pub fn import(text: &str) -> Result<PgnGame, PgnError> {
    let mut scanner = Scanner::new(text);
    let mut raw_tags: Vec<(String, String)> = Vec::new();
    // Tags first; the first non-tag token starts the movetext.
    let mut pending = None;
    while let Some((line, token)) = scanner.next_token()? {
        match token {
            PgnToken::Tag(name, value) => raw_tags.push((name, value)),
            other => {
                pending = Some((line, other));
                break;
            }
        }
    }
    if raw_tags.is_empty() && pending.is_none() {
        return Err(PgnError::Empty);
    }
    let tag = |name: &str| {
        raw_tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let start = start_from_tags(tag("Variant"), tag("FEN"))?;
    let mut game = Game::new(start)?;
    let mut result = tag("Result").and_then(result_of);
    let mut last_comment = String::new();

    let mut next = pending;
    loop {
        let (line, token) = match next.take() {
            Some(item) => item,
            None => match scanner.next_token()? {
                Some(item) => item,
                None => break,
            },
        };
        match token {
            // A tag after moves: the next game begins without a result token.
            PgnToken::Tag(..) => break,
            PgnToken::Comment(text) => {
                let (received, sent, rest) = read_times(&text);
                if let Some(index) = game.plies().len().checked_sub(1) {
                    if let Some(at) = received {
                        game.set_received_at(index, at).ok();
                    }
                    if let Some(at) = sent {
                        game.set_sent_at(index, at).ok();
                    }
                }
                last_comment = rest;
            }
            PgnToken::Word(word) => {
                if is_result(&word) {
                    result = result_of(&word);
                    break;
                }
                let san_text = strip_move_number(&word);
                if san_text.is_empty() || san_text.chars().all(|c| c == '.' || c == '…') {
                    continue;
                }
                if is_result(san_text) {
                    result = result_of(san_text);
                    break;
                }
                last_comment.clear();
                play_san(&mut game, line, san_text)?;
            }
        }
    }
    if game.outcome().is_none()
        && let Some(result) = result
    {
        let outcome = recorded_outcome(&game, result, &last_comment, tag("Termination"));
        game.record_outcome(outcome).ok();
    }
    Ok(PgnGame {
        tags: tags_from(&raw_tags),
        game,
    })
}

fn move_label(game: &Game) -> String {
    let position = game.position();
    let number = position.fullmoves().get();
    match position.turn() {
        Color::White => format!("{number}."),
        Color::Black => format!("{number}..."),
    }
}

fn play_san(game: &mut Game, line: usize, token: &str) -> Result<(), PgnError> {
    let fail = |game: &Game, problem: String| PgnError::Move {
        line,
        number: move_label(game),
        token: token.to_owned(),
        problem,
    };
    if game.is_over() {
        return Err(fail(game, "the game was already over".to_owned()));
    }
    let san = SanPlus::from_ascii(normalize_san(token).as_bytes())
        .map_err(|_| fail(game, "not a move in SAN".to_owned()))?;
    if matches!(san.san, shakmaty::san::San::Null) {
        return Err(fail(game, "null moves are not supported".to_owned()));
    }
    let m = san.san.to_move(game.position()).map_err(|e| {
        fail(
            game,
            match e {
                SanError::IllegalSan => "no legal move matches it in this position",
                SanError::AmbiguousSan => {
                    "it is ambiguous in this position: more than one piece can make it"
                }
            }
            .to_owned(),
        )
    })?;
    game.play(&m, None).map_err(|e| fail(game, e.to_string()))?;
    Ok(())
}

/// The outcome a PGN records for a game the rules did not end.
fn recorded_outcome(
    game: &Game,
    result: GameResult,
    last_comment: &str,
    termination: Option<&str>,
) -> Outcome {
    if let Some(outcome) = Outcome::from_description(result, last_comment) {
        return outcome;
    }
    let termination = termination.map(|t| t.trim().to_ascii_lowercase());
    let reason = match (termination.as_deref(), result) {
        (Some("time forfeit"), GameResult::Draw) => EndReason::TimeForfeitOpponentCannotMate,
        (Some("time forfeit"), _) => EndReason::TimeForfeit,
        (Some("adjudication"), _) => EndReason::Adjudication("recorded in PGN".to_owned()),
        (Some("abandoned" | "rules infraction"), GameResult::WhiteWins | GameResult::BlackWins) => {
            EndReason::Default("recorded in PGN".to_owned())
        }
        (_, GameResult::Draw) => match game.claim_draw(None) {
            Ok(ClaimReason::ThreefoldRepetition) => EndReason::ThreefoldRepetition,
            Ok(ClaimReason::FiftyMoveRule) => EndReason::FiftyMoveRule,
            Err(_) => EndReason::Agreement,
        },
        (_, _) => EndReason::Resignation,
    };
    Outcome::new(result, reason)
}

fn tags_from(raw: &[(String, String)]) -> PgnTags {
    let mut tags = PgnTags::default();
    for (name, value) in raw {
        let value = value.clone();
        match name.as_str() {
            "Event" => tags.event = value,
            "Site" => tags.site = value,
            "Date" => tags.date = value,
            "Round" => tags.round = value,
            "White" => tags.white = value,
            "Black" => tags.black = value,
            "TimeControl" => tags.time_control = Some(value),
            "EndDate" => tags.end_date = Some(value),
            n if DERIVED_TAGS.contains(&n) => {}
            _ => tags.other.push((name.clone(), value)),
        }
    }
    tags
}
