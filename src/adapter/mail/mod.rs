//! Mail: reading what players send, and composing what we send.
//!
//! - [`inbound`]: a raw mail to its sender, recipients, headers and the newest
//!   text the player wrote (quoted history, signatures and HTML removed).
//! - [`route`]: reply tokens and plus-addresses: which game and player a mail is for.
//! - [`stale`]: which position a reply answers, and whether a mail came before.
//! - [`key`]: SHA-256 in hex, the one way keys and ids name bytes.
//! - [`compose`]: the mails we send, from templates to RFC 5322 bytes.
//! - [`digest_reply`]: a reply to a daily digest, one line per game.
//! - [`probe`]: the probe mail `dopis doctor` sends to a reply address.

pub mod compose;
pub mod digest_reply;
pub mod inbound;
pub mod key;
pub mod probe;
pub mod route;
pub mod stale;
