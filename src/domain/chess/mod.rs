//! The rules core, on shakmaty. Pure: no I/O, no clock reads.
//!
//! - [`notation`]: move text as players write it, in every notation and language.
//! - [`opening`]: a thematic line, the moves every game of an event starts with.
//! - [`game`]: a game from its start position through its moves to its outcome.
//! - [`outcome`]: how a game ends (result and rule).
//! - [`pgn`]: PGN export and import.
//! - [`diagram`]: board diagrams as text (Unicode, ASCII), SVG and PNG.
//! - [`side`]: a colour as a key word (`white`, `black`).
//! - [`tablebase`]: what the endgame tables say of a position, and the
//!   rules (ICCF's, the 50-move rule's) that make it a result.

pub mod analysis;
pub mod diagram;
pub mod game;
pub mod notation;
pub mod opening;
pub mod outcome;
pub mod pgn;
pub mod side;
pub mod tablebase;
