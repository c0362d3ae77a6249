//! The one enum for everything a player can say by mail, and its pure parser.
//!
//! Input is the newest text of a mail (see [`crate::adapter::mail::inbound`]). The
//! first line that reads as a command carries it; greeting and chat lines
//! before it are kept as [`Reading::unread`] so a reply can quote them.
//! Nothing here ever fails: text that is no command becomes
//! [`Command::Unknown`], which earns a help reply.

mod shape;
mod words;

use std::fmt;

use chrono::NaiveDate;

use crate::domain::lang::Lang;

pub(crate) use shape::fold;
use words::Words;

/// Longest move text accepted, in characters (`12... exd6 e.p.` fits with room).
pub const MAX_MOVE_TEXT: usize = 24;

/// Meaningful lines looked at for a command before giving up.
///
/// Enough for a greeting and a sentence or two above the move; beyond that a
/// mail is chat, and guessing at later lines would pick up stray text.
const MAX_LINES_SCANNED: usize = 8;

/// Longest line considered a command, in characters; longer lines are prose.
const MAX_COMMAND_LINE: usize = 300;

/// Longest text kept in [`Command::Unknown`] and [`Reading::unread`], in characters.
const MAX_QUOTED: usize = 200;

/// Longest message passed on to the opponent, in characters: a letter's
/// worth of chat; anything longer is cut and the cut is said.
pub const MAX_MESSAGE: usize = 2000;

/// Words of prose a mail without any command needs to be read as a message
/// (`Thanks for the game!`); fewer is more likely a mistyped command.
const MIN_MESSAGE_WORDS: usize = 3;

/// A move as the player wrote it: trimmed, one line, at most [`MAX_MOVE_TEXT`] characters.
///
/// Not yet checked against any position: `crate::domain::chess::notation` reads it later.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MoveText(String);

impl MoveText {
    /// Wraps a move text, or `None` when it is empty, too long or spans lines.
    pub fn new(text: &str) -> Option<MoveText> {
        let text = text.trim();
        let ok = !text.is_empty()
            && text.chars().count() <= MAX_MOVE_TEXT
            && !text.chars().any(char::is_control);
        ok.then(|| MoveText(text.to_string()))
    }

    /// The move text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Unicode's directional embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069) and marks (U+200E, U+200F, U+061C): in a passed-on
/// message they could make text read in another order than it was written
/// (the "Trojan Source" trick) and make a mail say what its writer did not.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A note to the opponent, as the player wrote it: trimmed, blank lines
/// between paragraphs kept (one), control characters and directional
/// controls dropped (they could reorder what the opponent reads), at most
/// [`MAX_MESSAGE`] characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Message {
    text: String,
    shortened: bool,
}

impl Message {
    /// Wraps a message, or `None` when it has no visible text.
    pub fn new(text: &str) -> Option<Message> {
        let mut lines: Vec<String> = Vec::new();
        for line in text.trim_start().lines() {
            let line: String = line
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .filter(|c| !c.is_control() && !is_bidi_control(*c))
                .collect();
            let line = line.trim_end().to_string();
            // One blank line between paragraphs is enough.
            if line.is_empty() && lines.last().is_none_or(String::is_empty) {
                continue;
            }
            lines.push(line);
        }
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        let whole = lines.join("\n");
        if whole.trim().is_empty() {
            return None;
        }
        let shortened = whole.chars().count() > MAX_MESSAGE;
        let text = if shortened {
            whole
                .chars()
                .take(MAX_MESSAGE)
                .collect::<String>()
                .trim_end()
                .to_string()
        } else {
            whole
        };
        Some(Message { text, shortened })
    }

    /// The message as passed on.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the player wrote more than [`MAX_MESSAGE`] characters and the rest was cut.
    pub fn shortened(&self) -> bool {
        self.shortened
    }
}

/// How a player wants to hear about their games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notify {
    /// One mail per move (the default).
    Each,
    /// One mail a day listing every game where it is their move.
    Digest,
}

/// Everything a player can say by mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Play a move, optionally offering a draw with it.
    Move {
        /// The move as written.
        text: MoveText,
        /// The player offers a draw together with the move.
        offer_draw: bool,
    },
    /// Offer a draw without a move (e.g. while the opponent is to move).
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline the opponent's draw offer (playing a move also declines it).
    DeclineDraw,
    /// Resign the game.
    Resign,
    /// Claim a draw (threefold repetition, 50-move rule, the endgame
    /// tables), optionally by the named move.
    ClaimDraw {
        /// The move that would make the draw claimable.
        with_move: Option<MoveText>,
    },
    /// Claim a win by the endgame tables, optionally by the named move (the
    /// claim is about the position after it).
    ClaimWin {
        /// The move that brings the position into the tables.
        with_move: Option<MoveText>,
    },
    /// Conditional moves: each line alternates the opponent's move and the answer.
    Conditional {
        /// One line per `if`, moves in the order written.
        lines: Vec<Vec<MoveText>>,
    },
    /// Book leave (vacation) for the whole days from `from` to `to`.
    Leave {
        /// First day of leave.
        from: NaiveDate,
        /// Last day of leave (not before `from`).
        to: NaiveDate,
    },
    /// The state of this game.
    Status,
    /// A list of all my games.
    Games,
    /// A new XFCC password for my chess program, mailed to my registered
    /// address (the old one stops working).
    XfccPassword,
    /// The PGN of this game.
    Pgn,
    /// How to write moves and commands.
    Help,
    /// The event's standings.
    Standings,
    /// The deadline report (for tournament directors).
    Report,
    /// Change the language of my mails and commands.
    Language(Lang),
    /// Change how I am notified.
    Notify(Notify),
    /// List my conditional moves.
    Conditionals,
    /// Drop my conditional moves.
    CancelConditionals,
    /// The events open for entries.
    Entries,
    /// Enter an event open for entries (`enter 12`).
    Enter {
        /// The event's number.
        event: i64,
    },
    /// Withdraw my entry before the event starts (`withdraw entry 12`).
    WithdrawEntry {
        /// The event's number.
        event: i64,
    },
    /// A half-point bye in a round of a Swiss event (`bye 12 round 4`):
    /// not paired that round, scoring a draw's points.
    SwissBye {
        /// The event's number.
        event: i64,
        /// The round (0 when the number written is none we take: the
        /// answer then says which rounds there are).
        round: u32,
    },
    /// Whether I get a mail when an event opens for entries.
    Announcements(bool),
    /// A note to the opponent: the lines after the commands, or a mail of
    /// prose only. Passed on with the next mail about the game.
    Message(Message),
    /// A line that starts with a move and goes on with words (`Gg4 thanks`):
    /// nothing is played, the player is asked to put the words on the next line.
    MoveThenWords {
        /// The line as written (shortened).
        wrote: String,
    },
    /// Nothing readable: earns a help reply quoting `text`.
    Unknown {
        /// The line that was read (shortened), empty when the mail had no text.
        text: String,
    },
}

/// What was read in a mail: the commands, and chat lines skipped before them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The commands in the order to apply them; never empty (at worst one `Unknown`).
    pub commands: Vec<Command>,
    /// Meaningful lines before the command that were not commands (shortened).
    pub unread: Vec<String>,
}

/// Reads the commands in the newest text of a mail, in English and the player's language.
///
/// The text after the commands (the rest of their line after a sentence
/// ends, and every line below) is a [`Command::Message`] to the opponent;
/// so is a mail of prose without any command.
pub fn parse(text: &str, lang: Lang) -> Reading {
    let vocab = words::for_lang(lang);
    let raw: Vec<&str> = text.lines().collect();
    let mut lines = raw
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.trim().trim_matches(['*', '_']).trim()))
        .filter(|(_, l)| !l.is_empty())
        .take(MAX_LINES_SCANNED)
        .flat_map(|(line, l)| {
            sentences(l)
                .into_iter()
                .map(move |(text, rest)| Sentence { line, text, rest })
        })
        .peekable();
    let mut unread = Vec::new();
    let mut first_line: Option<String> = None;
    while let Some(sentence) = lines.next() {
        let line = sentence.text;
        first_line.get_or_insert_with(|| shorten(line));
        match read_line(line, &vocab) {
            LineReading::Chat => unread.push(shorten(line)),
            LineReading::Garbled => {
                return Reading {
                    commands: vec![Command::Unknown {
                        text: shorten(line),
                    }],
                    unread,
                };
            }
            LineReading::MoveThenWords => {
                return Reading {
                    commands: vec![Command::MoveThenWords {
                        wrote: shorten(line),
                    }],
                    unread,
                };
            }
            LineReading::Commands(mut commands) => {
                let last = absorb_following_lines(&mut commands, &mut lines, &vocab, sentence);
                let below = raw.get(last.line + 1..).unwrap_or_default();
                let after = std::iter::once(last.rest)
                    .chain(below.iter().copied())
                    .collect::<Vec<_>>()
                    .join("\n");
                if let Some(message) = Message::new(&after) {
                    commands.push(Command::Message(message));
                }
                return Reading { commands, unread };
            }
        }
    }
    if is_prose(&unread)
        && let Some(message) = Message::new(text)
    {
        return Reading {
            commands: vec![Command::Message(message)],
            unread: Vec::new(),
        };
    }
    Reading {
        commands: vec![Command::Unknown {
            text: first_line.unwrap_or_default(),
        }],
        unread,
    }
}

/// One sentence of a meaningful line: which raw line, its text, and the
/// rest of the line after it.
#[derive(Debug, Clone, Copy)]
struct Sentence<'a> {
    line: usize,
    text: &'a str,
    rest: &'a str,
}

/// Whether lines that read as no command are plainly prose: enough words
/// ([`MIN_MESSAGE_WORDS`]), at least two tokens in three words of letters
/// (not digits, addresses or MIME debris), and no line that starts with
/// something shaped like a move (`e4 e5`, `Nf3 Nc6`: a mistyped move is
/// answered, not passed on). A move inside a sentence is chat.
fn is_prose(lines: &[String]) -> bool {
    let mut words = 0;
    let mut tokens = 0;
    for line in lines {
        let mut line_tokens = line.split_whitespace().peekable();
        if line_tokens.peek().is_some_and(|t| {
            shape::is_move_number(t) || shape::looks_like_move(t.trim_end_matches(['.', ',']))
        }) {
            return false;
        }
        for token in line_tokens {
            tokens += 1;
            if is_word(token) {
                words += 1;
            }
        }
    }
    words >= MIN_MESSAGE_WORDS && words * 3 >= tokens * 2
}

/// A word of letters, maybe with inner `-` or `'` and punctuation around it.
fn is_word(token: &str) -> bool {
    let core = token.trim_matches(|c: char| ".,!?;:\"'()…„“”«»‚‘’¡¿".contains(c));
    core.chars().next().is_some_and(char::is_alphabetic)
        && core.chars().last().is_some_and(char::is_alphabetic)
        && core
            .chars()
            .all(|c| c.is_alphabetic() || c == '-' || c == '\'' || c == '’')
}

/// Further `if` lines join a conditional; a draw offer on the line after a
/// move joins the move; `if` lines after a move set conditionals from the
/// position after it (ICCF style: the move, then what to answer next).
/// Returns the last sentence read as commands.
fn absorb_following_lines<'a>(
    commands: &mut Vec<Command>,
    lines: &mut std::iter::Peekable<impl Iterator<Item = Sentence<'a>>>,
    vocab: &[&Words],
    mut last: Sentence<'a>,
) -> Sentence<'a> {
    while let Some(next) = lines.peek().copied() {
        let next_reading = read_line(next.text, vocab);
        match (commands.last_mut(), next_reading) {
            (Some(Command::Conditional { lines: mine }), LineReading::Commands(more))
                if matches!(more.as_slice(), [Command::Conditional { .. }]) =>
            {
                for c in more {
                    if let Command::Conditional { lines: theirs } = c {
                        mine.extend(theirs);
                    }
                }
            }
            (Some(Command::Move { .. }), LineReading::Commands(more))
                if matches!(more.as_slice(), [Command::Conditional { .. }]) =>
            {
                commands.extend(more);
            }
            (Some(Command::Move { offer_draw, .. }), LineReading::Commands(more))
                if more == [Command::OfferDraw] =>
            {
                *offer_draw = true;
                lines.next();
                return next;
            }
            _ => return last,
        }
        lines.next();
        last = next;
    }
    last
}

/// Splits a line after each token that ends a sentence (`Ich gebe auf. Glückwunsch!`),
/// so a command followed by a remark on the same line is still read.
///
/// Move numbers (`12.`) and `e.p.` end no sentence. Each sentence comes
/// with the rest of the line after it.
fn sentences(line: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut token_start = 0;
    let mut in_token = false;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        if c.is_whitespace() {
            if in_token {
                let token = line.get(token_start..i).unwrap_or_default();
                let ends_sentence = token.ends_with(['.', '!', '?'])
                    && !shape::is_move_number(token)
                    && !shape::is_en_passant_mark(token);
                if ends_sentence {
                    let sentence = line.get(start..i).unwrap_or_default().trim();
                    if !sentence.is_empty() {
                        out.push((sentence, line.get(i..).unwrap_or_default()));
                    }
                    start = i;
                }
            }
            in_token = false;
        } else if !in_token {
            in_token = true;
            token_start = i;
        }
    }
    let rest = line.get(start..).unwrap_or_default().trim();
    if !rest.is_empty() {
        out.push((rest, ""));
    }
    out
}

fn shorten(text: &str) -> String {
    text.chars().take(MAX_QUOTED).collect()
}

/// Picks one phrase list out of a vocabulary.
type PhraseList = fn(&Words) -> &'static [&'static str];

/// What one line says.
#[derive(Debug)]
enum LineReading {
    /// One or more commands.
    Commands(Vec<Command>),
    /// Starts like a command (`leave`, `if`, `language`) but the rest is unreadable.
    Garbled,
    /// Starts with a move and goes on with words that are no command.
    MoveThenWords,
    /// Not a command: a greeting, a sentence.
    Chat,
}

/// One token of a line: the text as written, and its folded form for word lookup.
struct Token<'a> {
    raw: &'a str,
    word: String,
}

fn tokenize(line: &str) -> Vec<Token<'_>> {
    line.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .filter(|t| !t.is_empty())
        .map(|raw| Token {
            raw,
            word: fold(raw.trim_matches(|c: char| ".!?:()[]\"'„“”«»".contains(c))),
        })
        .collect()
}

/// A token that is a move, with a separate move number or `e.p.` joined to it.
enum Piece {
    Move(MoveText),
    Word(String),
}

fn pieces(tokens: &[Token<'_>]) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(t) = tokens.get(i) {
        i += 1;
        let as_move = |raw: &str| -> Option<String> {
            if shape::looks_like_move(raw) {
                Some(raw.to_string())
            } else {
                // A sentence may end right after the move: `Nf3.`
                let bare = raw.trim_end_matches(['.', ',']);
                shape::looks_like_move(bare).then(|| bare.to_string())
            }
        };
        let mut text = if shape::is_move_number(t.raw) {
            let next = tokens.get(i)?;
            i += 1;
            format!("{} {}", t.raw, as_move(next.raw)?)
        } else if let Some(m) = as_move(t.raw) {
            m
        } else {
            out.push(Piece::Word(t.word.clone()));
            continue;
        };
        if let Some(ep) = tokens.get(i)
            && shape::is_en_passant_mark(ep.raw)
        {
            text = format!("{text} {}", ep.raw);
            i += 1;
        }
        out.push(Piece::Move(MoveText::new(&text)?));
    }
    Some(out)
}

fn is_filler(word: &str, vocab: &[&Words]) -> bool {
    word.is_empty()
        || vocab
            .iter()
            .any(|w| w.fillers.iter().any(|f| fold(f) == word))
}

/// Folds a phrase and drops filler words, so table entries and lines compare alike.
fn normalize<'a>(words: impl Iterator<Item = &'a str>, vocab: &[&Words]) -> String {
    words
        .map(fold)
        .filter(|w| !is_filler(w, vocab))
        .collect::<Vec<_>>()
        .join(" ")
}

fn phrase_in(phrase: &str, table: PhraseList, vocab: &[&Words]) -> bool {
    !phrase.is_empty()
        && vocab.iter().any(|w| {
            table(w)
                .iter()
                .any(|entry| normalize(entry.split_whitespace(), vocab) == phrase)
        })
}

fn word_in(word: &str, table: PhraseList, vocab: &[&Words]) -> bool {
    vocab
        .iter()
        .any(|w| table(w).iter().any(|entry| fold(entry) == word))
}

fn read_line(line: &str, vocab: &[&Words]) -> LineReading {
    if line.chars().count() > MAX_COMMAND_LINE {
        return LineReading::Chat;
    }
    let tokens = tokenize(line);
    let Some(first) = tokens.first() else {
        return LineReading::Chat;
    };
    let rest = tokens.get(1..).unwrap_or_default();
    if word_in(&first.word, |w| w.if_words, vocab) {
        return conditional(rest, vocab);
    }
    if word_in(&first.word, |w| w.leave, vocab) {
        return leave(rest, vocab);
    }
    if word_in(&first.word, |w| w.language, vocab) && rest.len() == 1 {
        return rest
            .first()
            .and_then(|t| language(&t.word))
            .map_or(LineReading::Garbled, |l| {
                LineReading::Commands(vec![Command::Language(l)])
            });
    }
    if let Some(command) = swiss_bye(&tokens, vocab) {
        return LineReading::Commands(vec![command]);
    }
    if let Some(command) = entry(&tokens, vocab) {
        return LineReading::Commands(vec![command]);
    }
    if word_in(&first.word, |w| w.notify, vocab) && !rest.is_empty() {
        let choice = normalize(rest.iter().map(|t| t.word.as_str()), vocab);
        return if phrase_in(&choice, |w| w.no_announcements, vocab) {
            LineReading::Commands(vec![Command::Announcements(false)])
        } else if phrase_in(&choice, |w| w.announcements, vocab) {
            LineReading::Commands(vec![Command::Announcements(true)])
        } else if phrase_in(&choice, |w| w.each, vocab) {
            LineReading::Commands(vec![Command::Notify(Notify::Each)])
        } else if phrase_in(&choice, |w| w.digest, vocab) {
            LineReading::Commands(vec![Command::Notify(Notify::Digest)])
        } else {
            LineReading::Garbled
        };
    }
    moves_and_words(&tokens, vocab)
}

/// `enter 12`, `enter event #12`, `withdraw entry 12`: a phrase and an
/// event's number last.
fn entry(tokens: &[Token<'_>], vocab: &[&Words]) -> Option<Command> {
    let (last, words) = tokens.split_last()?;
    let number = last.word.strip_prefix('#').unwrap_or(&last.word);
    let event: i64 = number.parse().ok().filter(|n| *n > 0)?;
    if words.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let phrase = normalize(words.iter().map(|t| t.word.as_str()), vocab);
    if phrase_in(&phrase, |w| w.withdraw_entry, vocab) {
        Some(Command::WithdrawEntry { event })
    } else if phrase_in(&phrase, |w| w.enter, vocab) {
        Some(Command::Enter { event })
    } else {
        None
    }
}

/// `bye 12 round 4`, `bye round 4 event 12`, `prosto kolo 12 kolo 4`,
/// `spielfrei in Runde 4 von Turnier 12`: the bye's phrase first, then two
/// numbers, at least one named by the word before it (`round`, `event`);
/// the other is the other one. Words like `in`, `of` may stand between.
fn swiss_bye(tokens: &[Token<'_>], vocab: &[&Words]) -> Option<Command> {
    let number = |t: &Token<'_>| {
        let n = t.word.strip_prefix('#').unwrap_or(&t.word);
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(n.to_string())
    };
    let first_number = tokens.iter().position(|t| number(t).is_some())?;
    // The longest run of leading words that is a bye's phrase.
    let phrase_end = (1..=first_number).rev().find(|&end| {
        let words = tokens.get(..end).unwrap_or_default();
        let phrase = normalize(words.iter().map(|t| t.word.as_str()), vocab);
        phrase_in(&phrase, |w| w.bye, vocab)
    })?;
    #[derive(Clone, Copy, PartialEq)]
    enum Named {
        Round,
        Event,
        Neither,
    }
    let mut named = Named::Neither;
    let mut numbers: Vec<(Named, String)> = Vec::new();
    for t in tokens.get(phrase_end..).unwrap_or_default() {
        if let Some(n) = number(t) {
            numbers.push((named, n));
            named = Named::Neither;
        } else if word_in(&t.word, |w| w.round_words, vocab) {
            named = Named::Round;
        } else if word_in(&t.word, |w| w.event_words, vocab) {
            named = Named::Event;
        } else if !(is_filler(&t.word, vocab) || word_in(&t.word, |w| w.bye_joiners, vocab)) {
            return None;
        }
    }
    let [(a_named, a), (b_named, b)] = numbers.as_slice() else {
        return None;
    };
    let (event, round) = match (*a_named, *b_named) {
        (Named::Round, Named::Round) | (Named::Event, Named::Event) => return None,
        (Named::Neither, Named::Neither) => return None,
        (Named::Round, _) | (_, Named::Event) => (b, a),
        _ => (a, b),
    };
    let event: i64 = event.parse().ok().filter(|n| *n > 0)?;
    // A round no event has (0, or too long a number) is read, and
    // answered with the event's rounds.
    let round: u32 = round.parse().unwrap_or(0);
    Some(Command::SwissBye { event, round })
}

/// Whether `line` (as [`Command::Unknown`] keeps it) reads as an entry
/// command whose event number is missing or is no number we take: `enter`,
/// `enter -1`, `withdraw entry #x`, `enter １２`. Such a line is no game's
/// business, so a mail to no game is answered about entries, not games.
pub fn is_entry_without_number(line: &str, lang: Lang) -> bool {
    let vocab = words::for_lang(lang);
    let tokens = tokenize(line);
    if entry(&tokens, &vocab).is_some() {
        return false;
    }
    let words = match tokens.split_last() {
        // A last token with a digit (of any script) or a number's sign was
        // meant as the number.
        Some((last, words))
            if last.raw.chars().any(char::is_numeric) || last.raw.starts_with(['#', '-', '+']) =>
        {
            words
        }
        _ => &tokens[..],
    };
    let phrase = normalize(words.iter().map(|t| t.word.as_str()), &vocab);
    phrase_in(&phrase, |w| w.enter, &vocab) || phrase_in(&phrase, |w| w.withdraw_entry, &vocab)
}

/// A line of at most one move and a phrase: `Nf3`, `e4 draw`, `resign`, `claim draw Nf3`.
fn moves_and_words(tokens: &[Token<'_>], vocab: &[&Words]) -> LineReading {
    let Some(pieces) = pieces(tokens) else {
        return LineReading::Chat;
    };
    let pieces_first = pieces.first().map(|p| matches!(p, Piece::Move(_)));
    let mut moves = Vec::new();
    let mut words = Vec::new();
    for p in pieces {
        match p {
            Piece::Move(m) => moves.push(m),
            Piece::Word(w) => words.push(w),
        }
    }
    let phrase = normalize(words.iter().map(String::as_str), vocab);
    let is = |table: PhraseList| phrase_in(&phrase, table, vocab);
    let mv = match moves.as_slice() {
        [] => None,
        [m] => Some(m.clone()),
        _ => return LineReading::Chat,
    };
    let commands = match mv {
        Some(text) if phrase.is_empty() => vec![Command::Move {
            text,
            offer_draw: false,
        }],
        Some(text) if is(|w| w.offer_draw) => vec![Command::Move {
            text,
            offer_draw: true,
        }],
        with_move if is(|w| w.claim_draw) => vec![Command::ClaimDraw { with_move }],
        with_move if is(|w| w.claim_win) => vec![Command::ClaimWin { with_move }],
        Some(text) if is(|w| w.accept_draw) => vec![
            Command::AcceptDraw,
            Command::Move {
                text,
                offer_draw: false,
            },
        ],
        Some(text) if is(|w| w.decline_draw) => vec![
            Command::DeclineDraw,
            Command::Move {
                text,
                offer_draw: false,
            },
        ],
        Some(_) if matches!(pieces_first, Some(true)) => return LineReading::MoveThenWords,
        Some(_) => return LineReading::Chat,
        None => match simple_command(&phrase, vocab) {
            Some(c) => vec![c],
            None => return LineReading::Chat,
        },
    };
    LineReading::Commands(commands)
}

/// Commands that are a phrase alone.
fn simple_command(phrase: &str, vocab: &[&Words]) -> Option<Command> {
    let table: [(PhraseList, Command); 14] = [
        (|w| w.offer_draw, Command::OfferDraw),
        (|w| w.accept_draw, Command::AcceptDraw),
        (|w| w.decline_draw, Command::DeclineDraw),
        (|w| w.resign, Command::Resign),
        (|w| w.status, Command::Status),
        (|w| w.games, Command::Games),
        (|w| w.xfcc_password, Command::XfccPassword),
        (|w| w.pgn, Command::Pgn),
        (|w| w.help, Command::Help),
        (|w| w.standings, Command::Standings),
        (|w| w.report, Command::Report),
        (|w| w.conditionals, Command::Conditionals),
        (|w| w.cancel_conditionals, Command::CancelConditionals),
        (|w| w.entries, Command::Entries),
    ];
    table
        .into_iter()
        .find(|(t, _)| phrase_in(phrase, *t, vocab))
        .map(|(_, c)| c)
}

/// `if 12...Nf6 13.e5 13...Nd5 14.c4`, `if Nf6 then e5`: at least two moves.
fn conditional(rest: &[Token<'_>], vocab: &[&Words]) -> LineReading {
    let Some(pieces) = pieces(rest) else {
        return LineReading::Garbled;
    };
    let mut line = Vec::new();
    for p in pieces {
        match p {
            Piece::Move(m) => line.push(m),
            Piece::Word(w) if is_filler(&w, vocab) || word_in(&w, |v| v.then_words, vocab) => {}
            Piece::Word(_) => return LineReading::Garbled,
        }
    }
    if line.len() < 2 {
        return LineReading::Garbled;
    }
    LineReading::Commands(vec![Command::Conditional { lines: vec![line] }])
}

/// `leave 2026-12-24 2027-01-02`, also `leave 24.12.2026 - 2.1.2027`.
fn leave(rest: &[Token<'_>], vocab: &[&Words]) -> LineReading {
    let mut dates = Vec::new();
    for t in rest {
        // An en dash may join two dates without spaces.
        for part in t.raw.split(['–', '—']).filter(|p| !p.is_empty()) {
            if let Some(d) = date(part) {
                dates.push(d);
            } else {
                let w = fold(part.trim_matches(|c: char| ".!?:()".contains(c)));
                if !(w.is_empty() || is_filler(&w, vocab) || word_in(&w, |v| v.date_joiners, vocab))
                {
                    return LineReading::Garbled;
                }
            }
        }
    }
    match dates.as_slice() {
        [from, to] if from <= to => LineReading::Commands(vec![Command::Leave {
            from: *from,
            to: *to,
        }]),
        _ => LineReading::Garbled,
    }
}

/// ISO `2026-12-24` or `2026/12/24`, or day first as in sl/pl/lv/de: `24.12.2026`.
fn date(text: &str) -> Option<NaiveDate> {
    let text = text.trim_end_matches([',', '.', ';']);
    let nums: Vec<&str> = text.split(['-', '/', '.']).collect();
    let [a, b, c] = nums.as_slice() else {
        return None;
    };
    if a.is_empty()
        || b.is_empty()
        || c.is_empty()
        || !text
            .chars()
            .all(|ch| ch.is_ascii_digit() || "-/.".contains(ch))
    {
        return None;
    }
    let n = |s: &str| s.parse::<u32>().ok();
    let (y, m, d) = if a.len() == 4 {
        (n(a)?, n(b)?, n(c)?)
    } else if c.len() == 4 {
        (n(c)?, n(b)?, n(a)?)
    } else {
        return None;
    };
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
}

fn language(word: &str) -> Option<Lang> {
    word.parse::<Lang>().ok().or_else(|| {
        Lang::ALL
            .into_iter()
            .find(|l| fold(l.english_name()) == word)
    })
}

/// Commands in the words of the player's language (English's where the
/// language has none), so a mail quotes them as the player would write them
/// and the player can write back what it quotes (`parse(describe(c, l), l)
/// == c`: every language also reads English).
pub fn describe(commands: &[Command], lang: Lang) -> String {
    let w = |pick: fn(&words::Words) -> &'static [&'static str]| words::first(lang, pick);
    // A message goes below the commands, after a blank line, where it is read.
    let message = commands.iter().find_map(|c| match c {
        Command::Message(m) => Some(m.as_str()),
        _ => None,
    });
    let said = commands
        .iter()
        .filter(|c| !matches!(c, Command::Message(_)))
        .map(|c| match c {
            Command::Move {
                text,
                offer_draw: true,
            } if lang == Lang::En => format!("{} (and offer a draw)", text.as_str()),
            Command::Move {
                text,
                offer_draw: true,
            } => format!("{} {}", text.as_str(), draw_word(lang)),
            Command::Move { text, .. } => text.as_str().to_string(),
            Command::OfferDraw => w(|v| v.offer_draw).into(),
            Command::AcceptDraw => w(|v| v.accept_draw).into(),
            Command::DeclineDraw => w(|v| v.decline_draw).into(),
            Command::Resign => w(|v| v.resign).into(),
            Command::ClaimDraw { with_move: None } => w(|v| v.claim_draw).into(),
            Command::ClaimDraw {
                with_move: Some(text),
            } => format!("{} {text}", w(|v| v.claim_draw)),
            Command::ClaimWin { with_move: None } => w(|v| v.claim_win).into(),
            Command::ClaimWin {
                with_move: Some(text),
            } => format!("{} {text}", w(|v| v.claim_win)),
            Command::Conditional { lines } => lines
                .iter()
                .map(|line| {
                    let moves: Vec<&str> = line.iter().map(|m| m.as_str()).collect();
                    format!("{} {}", if_word(lang), moves.join(" "))
                })
                .collect::<Vec<_>>()
                .join(", "),
            Command::Leave { from, to } => format!("{} {from} {to}", w(|v| v.leave)),
            Command::Status => w(|v| v.status).into(),
            Command::Games => w(|v| v.games).into(),
            Command::XfccPassword => w(|v| v.xfcc_password).into(),
            Command::Pgn => w(|v| v.pgn).into(),
            Command::Help => w(|v| v.help).into(),
            Command::Standings => w(|v| v.standings).into(),
            Command::Report => w(|v| v.report).into(),
            Command::Language(l) => format!("{} {}", w(|v| v.language), l.code()),
            Command::Notify(Notify::Each) => format!("{} {}", w(|v| v.notify), w(|v| v.each)),
            Command::Notify(Notify::Digest) => {
                format!("{} {}", w(|v| v.notify), w(|v| v.digest))
            }
            Command::Conditionals => w(|v| v.conditionals).into(),
            Command::CancelConditionals => w(|v| v.cancel_conditionals).into(),
            Command::Entries => w(|v| v.entries).into(),
            Command::Enter { event } => format!("{} {event}", w(|v| v.enter)),
            Command::WithdrawEntry { event } => format!("{} {event}", w(|v| v.withdraw_entry)),
            Command::SwissBye { event, round } => {
                format!("{} {event} {} {round}", w(|v| v.bye), w(|v| v.round_words))
            }
            Command::Announcements(on) => format!(
                "{} {}",
                w(|v| v.notify),
                if *on {
                    w(|v| v.announcements)
                } else {
                    w(|v| v.no_announcements)
                }
            ),
            Command::Message(message) => message.as_str().to_string(),
            Command::MoveThenWords { wrote } => wrote.clone(),
            Command::Unknown { text } => text.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ");
    match message {
        Some(m) if said.is_empty() => m.to_string(),
        Some(m) => format!("{said}\n\n{m}"),
        None => said,
    }
}

/// Every command a player can give, each with the phrases `lang`'s own
/// vocabulary has for it (English's for English): for tests that check a
/// mail teaches them all.
#[cfg(test)]
pub(crate) fn every_command(lang: Lang) -> Vec<(&'static str, &'static [&'static str])> {
    let own = *words::for_lang(lang).last().expect("English at least");
    vec![
        ("offer draw", own.offer_draw),
        ("accept draw", own.accept_draw),
        ("decline draw", own.decline_draw),
        ("resign", own.resign),
        ("claim draw", own.claim_draw),
        ("claim win", own.claim_win),
        ("status", own.status),
        ("games", own.games),
        ("xfcc password", own.xfcc_password),
        ("pgn", own.pgn),
        ("help", own.help),
        ("standings", own.standings),
        ("report", own.report),
        ("conditionals", own.conditionals),
        ("cancel conditionals", own.cancel_conditionals),
        ("leave", own.leave),
        ("language", own.language),
        ("notify", own.notify),
        ("notify each", own.each),
        ("notify digest", own.digest),
        ("entries", own.entries),
        ("enter", own.enter),
        ("withdraw entry", own.withdraw_entry),
        ("notify announcements", own.announcements),
        ("notify no announcements", own.no_announcements),
        ("if", own.if_words),
    ]
}

/// The word that offers a draw in `lang` (`draw`, `remi`, `Remis`).
pub fn draw_word(lang: Lang) -> &'static str {
    words::first(lang, |v| v.offer_draw)
}

/// The word that enters an event in `lang`, before its number (`enter`,
/// `prijava`, `anmelden`).
pub fn enter_word(lang: Lang) -> &'static str {
    words::first(lang, |v| v.enter)
}

/// How to ask for a half-point bye in `lang`: `bye 12 round 4` for
/// event 12, round 4 (`prosto kolo 12 kolo 4`, `spielfrei 12 runde 4`).
pub fn bye_words(lang: Lang, event: i64, round: u32) -> String {
    describe(&[Command::SwissBye { event, round }], lang)
}

/// The words that claim a result the endgame tables give, in `lang`
/// (`claim win`, `zahtevam remi`).
pub fn claim_words(lang: Lang, win: bool) -> &'static str {
    if win {
        words::first(lang, |v| v.claim_win)
    } else {
        words::first(lang, |v| v.claim_draw)
    }
}

/// The word that starts a conditional line in `lang` (`if`, `če`, `wenn`).
pub fn if_word(lang: Lang) -> &'static str {
    words::first(lang, |v| v.if_words)
}

#[cfg(test)]
mod tests;
