//! HTML to plain text in one pass, in time linear in the input and with
//! bounded memory, whatever the nesting.
//!
//! Only html5ever's tokenizer is used (a state machine over the input), never
//! a tree builder: no DOM is built, so nothing costs more than a constant per
//! input character. html2text 0.17, used before, builds a tree and lays it
//! out; a mail of `<ul><li>` repeated 31,250 times (250 kB) took 17 s of CPU
//! there, quadratically (and its issue tracker has more of the kind: a hang
//! on nested tables, jugglerchris/rust-html2text#54; panics found by fuzzing,
//! #93, #187). HTML tree construction is itself superlinear on crafted input
//! (the "reconstruct the active formatting elements" step, e.g.
//! lexbor/lexbor#340), so the tokenizer is the right level: html5ever's is
//! the spec's state machine, kept by the Servo project, and its known
//! performance reports are about constant factors, not complexity.
//!
//! What it makes of HTML: text with runs of whitespace collapsed; a line
//! break at every block element and `<br>`, a blank line around paragraphs;
//! `> ` before every line inside a `<blockquote>` (so quoted history reads as
//! quoted); character references decoded (the tokenizer does that); nothing
//! from `<head>`, `<script>`, `<style>`, `<title>`, `<template>` or comments;
//! `<pre>` kept as written.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Deepest `<blockquote>` nesting written as `> ` prefixes: one level is what
/// finding quoted history needs, a few keep replies-to-replies readable, and
/// a bound keeps a line's prefix from growing with hostile nesting.
pub(super) const MAX_QUOTE_DEPTH: usize = 8;

/// Longest text produced, in bytes: well above what the newest text may be,
/// and a bound on the output whatever the input (`<br>` repeated costs five
/// input bytes per output line, plus its quote prefix).
pub(super) const MAX_OUTPUT: usize = 512 * 1024;

/// The text of an HTML document, and how much work making it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Converted {
    /// The text.
    pub text: String,
    /// Tokens handled plus bytes written: the whole work done in the sink,
    /// which tests hold against the input length to prove it linear.
    pub work: usize,
}

/// Converts HTML to plain text (see the module documentation).
pub(super) fn to_text(html: &str) -> Converted {
    let tokenizer = Tokenizer::new(Sink::default(), TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    // The sink never asks to pause (no scripts run, encodings are mail-parser's
    // business), so one feed consumes the whole input.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let state = tokenizer.sink.state.into_inner();
    let text = state.out.trim_matches('\n');
    Converted {
        text: if text.is_empty() {
            String::new()
        } else {
            format!("{text}\n")
        },
        work: state.work,
    }
}

#[derive(Default)]
struct Sink {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    out: String,
    /// Line ends owed before the next text: 1 ends the line, 2 leaves a blank
    /// line. Owed rather than written, so that nested blocks give one break.
    owed: u8,
    /// Line ends at the end of `out`.
    trailing: u8,
    /// Whitespace was seen since the last text on this line.
    space: bool,
    /// Open `<blockquote>` elements (counted, not stacked: an end tag without
    /// a start is ignored, so bad nesting cannot underflow or grow memory).
    quote: usize,
    /// The quote depth of the last line written.
    line_quote: usize,
    /// Open `<pre>` elements: whitespace and line ends are kept there.
    pre: usize,
    /// Inside `<head>` (until `</head>` or `<body>`, as browsers read it).
    head: bool,
    /// Inside an element whose text is not shown (script, style …).
    hidden: usize,
    work: usize,
}

/// Elements that end a line (before and after them).
const LINE_BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "div",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "legend",
    "li",
    "main",
    "nav",
    "section",
    "summary",
    "tr",
];

/// Elements that stand apart with a blank line around them.
const PARAGRAPHS: &[&str] = &[
    "blockquote",
    "dl",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "ol",
    "p",
    "pre",
    "table",
    "ul",
];

impl State {
    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        // Content that is raw text up to its own end tag, as a browser reads
        // it (so markup inside a script is not text), and not shown. The
        // tokenizer itself leaves that state only at the matching end tag.
        let raw = match name {
            "script" => Some(RawKind::ScriptData),
            "style" | "noscript" | "xmp" | "iframe" | "noembed" | "noframes" => {
                Some(RawKind::Rawtext)
            }
            "title" => Some(RawKind::Rcdata),
            _ => None,
        };
        if let Some(kind) = raw {
            if start {
                self.hidden += 1;
                return TokenSinkResult::RawData(kind);
            }
            self.hidden = self.hidden.saturating_sub(1);
            return TokenSinkResult::Continue;
        }
        match (name, start) {
            ("head", true) => self.head = true,
            ("head", false) | ("body", true) => self.head = false,
            ("br", _) => {
                // `<br>` (and the `</br>` browsers read as one) ends the line
                // at once: two of them leave a blank line, unlike block edges.
                self.newline();
                self.space = false;
            }
            ("blockquote", _) => {
                self.owed = 2;
                self.quote = if start {
                    self.quote.saturating_add(1)
                } else {
                    self.quote.saturating_sub(1)
                };
            }
            ("pre", _) => {
                self.owed = 2;
                self.pre = if start {
                    self.pre.saturating_add(1)
                } else {
                    self.pre.saturating_sub(1)
                };
            }
            ("td" | "th", true) => self.space = true,
            _ if PARAGRAPHS.contains(&name) => self.owed = 2,
            _ if LINE_BLOCKS.contains(&name) => self.owed = self.owed.max(1),
            _ => {}
        }
        TokenSinkResult::Continue
    }

    fn text(&mut self, text: &str) {
        if self.hidden > 0 || self.head {
            return;
        }
        for c in text.chars() {
            if self.out.len() >= MAX_OUTPUT {
                return;
            }
            if self.pre > 0 {
                if c == '\n' {
                    self.begin_text();
                    self.newline();
                    continue;
                }
            } else if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{c}') {
                // Collapsed to one space, none at the start of a line.
                self.space = self.trailing == 0 && !self.out.is_empty();
                continue;
            }
            self.begin_text();
            let mut buf = [0u8; 4];
            self.push(c.encode_utf8(&mut buf));
            self.trailing = 0;
        }
    }

    /// Before text: the owed line ends, the quote prefix of a new line, the
    /// collapsed space.
    fn begin_text(&mut self) {
        if !self.out.is_empty() {
            while self.trailing < self.owed {
                self.newline();
            }
        }
        self.owed = 0;
        if self.trailing > 0 || self.out.is_empty() {
            self.line_quote = self.quote.min(MAX_QUOTE_DEPTH);
            for _ in 0..self.line_quote {
                self.push("> ");
            }
            self.space = false;
        }
        if self.space {
            self.push(" ");
            self.space = false;
        }
    }

    fn newline(&mut self) {
        // A blank line between two quoted lines is still part of the quote.
        if self.trailing > 0 {
            for _ in 0..self.quote.min(self.line_quote) {
                self.push(">");
            }
        }
        self.push("\n");
        self.trailing = self.trailing.saturating_add(1);
    }

    fn push(&mut self, s: &str) {
        self.work += s.len();
        self.out.push_str(s);
    }
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        state.work += 1;
        match token {
            Token::TagToken(tag) => state.tag(&tag),
            Token::CharacterTokens(text) => {
                state.text(&text);
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        }
    }
}
