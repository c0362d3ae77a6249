//! Mail: reading what players send, and the commands in it.
//!
//! - [`inbound`]: a raw mail to its sender, recipients, headers and the newest
//!   text the player wrote (quoted history, signatures and HTML removed).
//! - [`command`]: the one enum for everything a player can say, parsed from text.

pub mod command;
pub mod inbound;
