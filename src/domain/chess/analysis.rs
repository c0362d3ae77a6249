//! The link under a "your move" board that opens the position on an
//! analysis board (`[mail] analysis_link`, and an event's own
//! `analysis_link`).
//!
//! Off unless switched on: an analysis board runs an engine, and many
//! correspondence events forbid engines. The setting is `"off"`,
//! `"lichess"` (lichess.org's analysis board), or an address with
//! placeholders: `{fen}` the position as FEN with `_` for each space (the
//! form lichess reads in a path), `{color}` `white` or `black` (the side the
//! board is seen from), `{variant}` `standard` or `chess960`.

use std::fmt;

use shakmaty::{Chess, Color, EnPassantMode, fen::Fen};

/// The address lichess.org opens a position at.
pub const LICHESS: &str = "https://lichess.org/analysis/{variant}/{fen}?color={color}";

/// Whether mails link to an analysis board, and which.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AnalysisLink {
    /// No link (the default).
    #[default]
    Off,
    /// A link made from this address template.
    Template(String),
}

/// A setting that is not `off`, `lichess` or a usable address template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{value}' is not a link setting: {why}. Write \"off\" (no link, the default), \"lichess\", \
     or an https:// address with {{fen}} in it (also {{color}}, {{variant}}), e.g. \
     \"https://lichess.org/analysis/{{variant}}/{{fen}}?color={{color}}\""
)]
pub struct BadAnalysisLink {
    /// What was written.
    pub value: String,
    /// What is wrong with it.
    pub why: &'static str,
}

const PLACEHOLDERS: [&str; 3] = ["{fen}", "{color}", "{variant}"];

impl AnalysisLink {
    /// Reads a setting: `off` (or empty), `lichess`, or an address template.
    pub fn parse(value: &str) -> Result<AnalysisLink, BadAnalysisLink> {
        let text = value.trim();
        let bad = |why| {
            Err(BadAnalysisLink {
                value: value.to_owned(),
                why,
            })
        };
        match text.to_ascii_lowercase().as_str() {
            "" | "off" | "no" | "none" | "false" => return Ok(AnalysisLink::Off),
            "lichess" => return Ok(AnalysisLink::Template(LICHESS.to_owned())),
            _ => {}
        }
        let lower = text.to_ascii_lowercase();
        if !(lower.starts_with("https://") || lower.starts_with("http://")) {
            return bad("it is neither a known name nor an https:// address");
        }
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return bad("an address has no spaces or control characters");
        }
        if !text.contains("{fen}") {
            return bad("the address has no {fen} for the position");
        }
        // Every `{…}` must be one of ours: a typo would stay in every link.
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let tail = &rest[open..];
            match PLACEHOLDERS.iter().find(|p| tail.starts_with(**p)) {
                Some(p) => rest = &tail[p.len()..],
                None => return bad("it has a {…} that is not {fen}, {color} or {variant}"),
            }
        }
        if text.len() > 500 {
            return bad("the address is longer than 500 characters");
        }
        Ok(AnalysisLink::Template(text.to_owned()))
    }

    /// The link to `pos`, seen by `side`; `None` when off.
    pub fn url(&self, pos: &Chess, side: Color, chess960: bool) -> Option<String> {
        let AnalysisLink::Template(template) = self else {
            return None;
        };
        // A FEN has letters, digits, `/`, `-` and spaces: with `_` for the
        // spaces it is safe in a path and in a query.
        let fen = Fen::from_position(pos, EnPassantMode::Legal)
            .to_string()
            .replace(' ', "_");
        Some(
            template
                .replace("{fen}", &fen)
                .replace("{color}", if side.is_white() { "white" } else { "black" })
                .replace("{variant}", if chess960 { "chess960" } else { "standard" }),
        )
    }

    /// The setting as written in a config (`off`, or the template).
    pub fn as_setting(&self) -> &str {
        match self {
            AnalysisLink::Off => "off",
            AnalysisLink::Template(t) => t,
        }
    }
}

impl fmt::Display for AnalysisLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_setting())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_the_default_and_reads_several_ways() {
        assert_eq!(AnalysisLink::default(), AnalysisLink::Off);
        for text in ["", "off", "OFF", " none ", "no", "false"] {
            assert_eq!(AnalysisLink::parse(text), Ok(AnalysisLink::Off), "{text:?}");
        }
        assert_eq!(
            AnalysisLink::Off.url(&Chess::default(), Color::White, false),
            None
        );
    }

    #[test]
    fn lichess_opens_the_position_seen_by_the_recipient() {
        let link = AnalysisLink::parse("lichess").expect("a known name");
        assert_eq!(
            link.url(&Chess::default(), Color::Black, false).as_deref(),
            Some(
                "https://lichess.org/analysis/standard/\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1?color=black"
            )
        );
        let own = AnalysisLink::parse("https://chess.example/board?fen={fen}&side={color}")
            .expect("a template");
        assert_eq!(
            own.url(&Chess::default(), Color::White, true).as_deref(),
            Some(
                "https://chess.example/board?fen=\
                 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1&side=white"
            )
        );
    }

    #[test]
    fn a_bad_setting_says_what_to_write() {
        for (text, why) in [
            ("lichess.org", "neither a known name"),
            ("ftp://x/{fen}", "neither a known name"),
            ("https://x.example/analysis", "no {fen}"),
            ("https://x.example/{fen} x", "no spaces"),
            (
                "https://x.example/{fen}?c={colour}",
                "not {fen}, {color} or {variant}",
            ),
        ] {
            let e = AnalysisLink::parse(text).expect_err(text);
            let message = e.to_string();
            assert!(message.contains(why), "{text}: {message}");
            assert!(message.contains("\"lichess\""), "{message}");
        }
    }
}
