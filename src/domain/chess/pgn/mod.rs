//! PGN export and import of one game.
//!
//! # What the export writes
//!
//! - The Seven Tag Roster in its order (`Event`, `Site`, `Date`, `Round`,
//!   `White`, `Black`, `Result`), then `Variant "Chess960"` for Chess960
//!   games, `SetUp "1"` and `FEN` for any start but the standard one,
//!   `TimeControl`, `Termination` (PGN standard 9.8.1 values: `normal`,
//!   `time forfeit`, `adjudication`, `unterminated`), `EndDate`, then the
//!   caller's other tags. Tag values are escaped (`\` and `"`), control
//!   characters become spaces.
//! - Movetext in export format: SAN, move numbers, lines of at most 79
//!   characters (PGN standard 8.2.6: under 80 columns).
//! - After each move that has times, one comment with the mail times in UTC
//!   to the second: `{[%rcv 2026-11-29T17:02:13Z] [%snt 2026-11-29T17:05:00Z]}`;
//!   `%rcv` is when the move's mail reached our mailbox, `%snt` when we sent
//!   it on to the opponent. Either may be absent.
//! - After a move that came with a message between the players, the
//!   message as a comment `{Ana Novak: thanks for the game}` (a `}` in it
//!   becomes `)`, and `[%` becomes `[ %` so it never reads as a time).
//! - For a finished game, a last comment with the outcome sentence (e.g.
//!   `{White resigns, Black wins.}`), then the result token.
//!
//! # What the import reads
//!
//! One game (the first in the text): tags with escapes, SAN movetext with or
//! without move numbers (`12.`, `12...`, `12.e4`), `0-0` for `O-O`, the
//! annotation suffixes `! ? !! ?? !? ?!`, NAGs (`$1`), comments `{…}` and
//! `;…`, escape lines (`%…`), variations `(…)` (skipped, nested), and the
//! result token. The `[%rcv]`/`[%snt]` times come back onto their moves.
//! The outcome is, in this order: the rules' own ending of the final
//! position; our outcome sentence in the last comment; the `Termination`
//! tag (`time forfeit`, `adjudication`); else a decisive result is a
//! resignation and a draw is a valid draw claim or an agreement.

mod export;
mod import;
#[cfg(test)]
mod tests;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

pub use export::{Remark, export, export_with_remarks};
pub use import::{PgnError, PgnGame, import};

/// The tags of a game that are not derived from the game itself.
///
/// `Result`, `Variant`, `SetUp`, `FEN` and `Termination` come from the
/// [`Game`](crate::domain::chess::game::Game); the same names in `other` are not exported twice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PgnTags {
    /// `Event`: the event name, `?` if unknown.
    pub event: String,
    /// `Site`: where it is played, `?` if unknown.
    pub site: String,
    /// `Date`: when the game started, `YYYY.MM.DD` with `??` for unknown parts.
    pub date: String,
    /// `Round`: the round, `?` if unknown, `-` if not applicable.
    pub round: String,
    /// `White`: the white player, `Last, First` by convention.
    pub white: String,
    /// `Black`: the black player.
    pub black: String,
    /// `TimeControl`, e.g. `1/259200` (one move in three days, in seconds).
    pub time_control: Option<String>,
    /// `EndDate`: when a correspondence game ended, same format as `date`.
    pub end_date: Option<String>,
    /// Any other tags, in order.
    pub other: Vec<(String, String)>,
}

impl Default for PgnTags {
    fn default() -> PgnTags {
        PgnTags {
            event: "?".to_owned(),
            site: "?".to_owned(),
            date: "????.??.??".to_owned(),
            round: "?".to_owned(),
            white: "?".to_owned(),
            black: "?".to_owned(),
            time_control: None,
            end_date: None,
            other: Vec::new(),
        }
    }
}

/// A date as PGN writes it: `2026.11.29`.
pub fn pgn_date(date: NaiveDate) -> String {
    date.format("%Y.%m.%d").to_string()
}

/// Tags the export derives from the game or from [`PgnTags`] fields; a tag
/// of one of these names in [`PgnTags::other`] is ignored.
const DERIVED_TAGS: [&str; 13] = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "Variant",
    "SetUp",
    "FEN",
    "TimeControl",
    "Termination",
    "EndDate",
];

const TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%SZ";
