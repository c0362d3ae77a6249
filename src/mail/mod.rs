//! Mail: reading what players send, and the commands in it.
//!
//! - [`inbound`]: a raw mail to its sender, recipients, headers and the newest
//!   text the player wrote (quoted history, signatures and HTML removed).
//! - [`route`]: reply tokens and plus-addresses: which game and player a mail is for.
//! - [`stale`]: which position a reply answers, and whether a mail came before.
//! - [`compose`]: the mails we send, from templates to RFC 5322 bytes.
//! - [`command`]: the one enum for everything a player can say, parsed from text.
//! - [`analysis`]: the link that opens a position on an analysis board.
//! - [`digest_reply`]: a reply to a daily digest, one line per game.

pub mod analysis;
pub mod command;
pub mod compose;
pub mod digest_reply;
pub mod inbound;
pub mod route;
pub mod stale;
