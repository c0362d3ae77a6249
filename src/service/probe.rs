//! The probe mail `dopis doctor` sends to one of the server's own reply
//! addresses, to see that the mail system delivers them and how far the
//! clocks differ. The address is formed by the same code as every Reply-To
//! (so the configured delimiter or catch-all domain is what is tested); the
//! mark is signed, so a running `serve` that reads the probe first knows it
//! for ours and drops it unanswered (see [`crate::adapter::mail::probe`]).

use chrono::{DateTime, Utc};

use super::post::Post;
use crate::adapter::mail::route::ReplyTag;
use crate::domain::address::EmailAddress;

/// The header the probe's mark is in, to find it in the mailbox by.
pub const HEADER: &str = crate::adapter::mail::probe::HEADER;

/// A probe mail ready to send.
#[derive(Debug, Clone)]
pub struct ProbeMail {
    /// Where it goes: a reply address of game 0, which no game has.
    pub to: EmailAddress,
    /// The signed mark in its [`HEADER`].
    pub mark: String,
    /// The whole mail.
    pub raw: Vec<u8>,
}

/// The reply address a probe goes to.
pub fn reply_address(post: &Post) -> EmailAddress {
    post.replies.address(&ReplyTag::Game {
        game: 0,
        token: post.tokens.player(0, 0).as_str().to_string(),
    })
}

/// The probe mail, its mark made from `nonce`, dated `sent_at`.
pub fn probe_mail(post: &Post, nonce: &str, sent_at: DateTime<Utc>) -> ProbeMail {
    let to = reply_address(post);
    let mark = post.tokens.probe_mark(nonce);
    let raw = crate::adapter::mail::probe::compose(&post.ours, &to, &mark, sent_at);
    ProbeMail { to, mark, raw }
}
