//! One-click unsubscribe (RFC 8058) from the mails a player chose to get
//! in bulk: the daily digest (back to a mail per move) and the
//! announcements of events opening for entries (off).
//!
//! When `[web] base_url` is https, those mails carry `List-Unsubscribe:
//! <https://…/unsubscribe/LINK>` and `List-Unsubscribe-Post:
//! List-Unsubscribe=One-Click`; a mail program POSTs to the link, a reader
//! who opens it gets a page with a button that does the same. `LINK` is
//! `PLAYER.LIST.ISSUED.MAC`: the player, what it stops (`digest` or
//! `news`), when it was made (seconds since 1970), and an HMAC of the mail
//! secret over all three ([`Tokens::unsubscribe`]). So:
//!
//! - a forged or altered link (another player, another list, another
//!   time) fails the HMAC and changes nothing;
//! - a link is good once: its first use is recorded (`unsubscribes`) in
//!   the transaction of the change, and a replay (a second POST, a mail
//!   program retrying, someone who saw the link) finds it and changes
//!   nothing, even after the player chose the digest again by mail;
//! - using it when the player had already stopped changes nothing either,
//!   and says so.
//!
//! A change is told to the player by mail (in the same transaction), as
//! the same change made by mail would be, so an unwanted click is seen
//! and undone by one reply.

use chrono::{DateTime, Utc};

use crate::adapter::mail::compose::{EntryNews, LetterKind};
use crate::adapter::mail::route::Tokens;
use crate::adapter::store::{Store, StoreError, Tx};
use crate::domain::player::{Player, PlayerId};
pub use crate::service::links::{List, unsubscribe_url as url};
use crate::service::post::{Outgoing, Post};

/// A link's contents, as read from its address (not yet checked).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link<'a> {
    /// The player it is for.
    pub player: PlayerId,
    /// What it stops.
    pub list: List,
    /// When it was made, in seconds since 1970.
    pub issued: i64,
    mac: &'a str,
}

impl<'a> Link<'a> {
    /// Reads `PLAYER.LIST.ISSUED.MAC`; `None` for anything else.
    pub fn read(text: &'a str) -> Option<Link<'a>> {
        let mut parts = text.split('.');
        let (player, list, issued, mac) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 18 && s.bytes().all(|b| b.is_ascii_digit());
        if parts.next().is_some() || !digits(player) || !digits(issued) || mac.len() > 64 {
            return None;
        }
        Some(Link {
            player: PlayerId(player.parse().ok()?),
            list: List::from_key(list)?,
            issued: issued.parse().ok()?,
            mac,
        })
    }

    /// Whether the server's secret made this link.
    pub fn is_ours(&self, tokens: &Tokens) -> bool {
        tokens.is_unsubscribe(self.player.0, self.list.key(), self.issued, self.mac)
    }
}

/// Where a link stands, for its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// Not one of ours (forged, altered, or no such player).
    Refused,
    /// Good and not used yet: the player, and whether they still get it.
    Open {
        /// The player.
        player: Player,
        /// What it stops.
        list: List,
        /// Whether they still get it (else using the link changes nothing).
        on: bool,
    },
    /// Used before, when: nothing more will change.
    Used {
        /// The player.
        player: Player,
        /// What it stopped.
        list: List,
        /// When.
        at: DateTime<Utc>,
    },
}

/// What using a link did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Not one of ours: nothing changed.
    Refused,
    /// The player no longer gets it (`changed`), or had already stopped.
    Done {
        /// The player.
        player: Player,
        /// What it stopped.
        list: List,
        /// Whether this use changed their choice.
        changed: bool,
    },
    /// The link was used before: nothing changed.
    Replayed {
        /// The player.
        player: Player,
        /// What it stopped.
        list: List,
        /// When it was first used.
        at: DateTime<Utc>,
    },
}

/// A good link's player, what it stops, when it was made, and whether the
/// player still gets it; `None` for a link that is not ours (forged,
/// altered, no such player).
async fn read(
    tx: &mut Tx,
    tokens: &Tokens,
    text: &str,
) -> Result<Option<(Player, List, i64, bool)>, StoreError> {
    let Some(link) = Link::read(text).filter(|l| l.is_ours(tokens)) else {
        return Ok(None);
    };
    let player = match tx.player(link.player).await {
        Ok(p) => p,
        Err(StoreError::UnknownPlayer(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let on = match link.list {
        List::Digest => tx.wants_digest(link.player).await?,
        List::Announcements => tx.wants_announcements(link.player).await?,
    };
    Ok(Some((player, link.list, link.issued, on)))
}

/// Where the link `text` stands (for the page a reader opens).
pub async fn standing(store: &Store, tokens: &Tokens, text: &str) -> Result<Standing, StoreError> {
    let mut tx = store.begin().await?;
    let Some((player, list, issued, on)) = read(&mut tx, tokens, text).await? else {
        return Ok(Standing::Refused);
    };
    let used = tx.unsubscribe_used(player.id, list.key(), issued).await?;
    tx.commit().await?;
    Ok(match used {
        Some(at) => Standing::Used { player, list, at },
        None => Standing::Open { player, list, on },
    })
}

/// Uses the link `text`: stops what it names for its player, once, and
/// tells them by mail, all in one transaction.
pub async fn apply(
    store: &Store,
    post: &Post,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Outcome, StoreError> {
    let mut tx = store.begin().await?;
    let Some((player, list, issued, on)) = read(&mut tx, &post.tokens, text).await? else {
        return Ok(Outcome::Refused);
    };
    // Recorded first: of two uses at once, the second waits for the
    // first's row and then writes nothing.
    let key = list.key();
    if !tx
        .record_unsubscribe(player.id, key, issued, on, now)
        .await?
    {
        let at = tx
            .unsubscribe_used(player.id, key, issued)
            .await?
            .unwrap_or(now);
        // Nothing was written: the commit only ends the transaction.
        tx.commit().await?;
        return Ok(Outcome::Replayed { player, list, at });
    }
    if on {
        let mail_key = format!("unsubscribe.p{}.{key}.{}", player.id.0, issued);
        let kind = match list {
            List::Digest => {
                tx.set_player_digest(player.id, false).await?;
                LetterKind::NotifyChanged {
                    digest: false,
                    at: String::new(),
                }
            }
            List::Announcements => {
                tx.set_player_announcements(player.id, false).await?;
                LetterKind::Entry {
                    news: EntryNews::Announcements { on: false },
                }
            }
        };
        post.queue(&mut tx, Outgoing::new(mail_key, kind, &player), now)
            .await?;
    }
    tx.commit().await?;
    Ok(Outcome::Done {
        player,
        list,
        changed: on,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_link_is_https_signed_and_read_back_only_as_made() {
        let tokens = Tokens::new("secret");
        let at = Utc
            .with_ymd_and_hms(2027, 1, 2, 3, 4, 5)
            .single()
            .expect("an instant");
        assert_eq!(
            url(
                Some("http://chess.example"),
                &tokens,
                PlayerId(7),
                List::Digest,
                at
            ),
            None,
            "no one-click link without https"
        );
        assert_eq!(url(None, &tokens, PlayerId(7), List::Digest, at), None);
        let made = url(
            Some("https://chess.example/"),
            &tokens,
            PlayerId(7),
            List::Digest,
            at,
        )
        .expect("a link");
        let text = made
            .strip_prefix("https://chess.example/unsubscribe/")
            .expect("under the base");
        let link = Link::read(text).expect("reads");
        assert_eq!(link.player, PlayerId(7));
        assert_eq!(link.list, List::Digest);
        assert_eq!(link.issued, at.timestamp());
        assert!(link.is_ours(&tokens));
        assert!(!link.is_ours(&Tokens::new("another secret")));
        // Another player, another list, another time: the MAC no longer fits.
        let mac = text.rsplit('.').next().expect("a mac");
        for forged in [
            format!("8.digest.{}.{mac}", at.timestamp()),
            format!("7.news.{}.{mac}", at.timestamp()),
            format!("7.digest.{}.{mac}", at.timestamp() + 1),
        ] {
            let link = Link::read(&forged).expect("reads");
            assert!(!link.is_ours(&tokens), "{forged}");
        }
        for bad in [
            "",
            "7",
            "7.digest.1",
            "7.other.1.x",
            "-7.digest.1.x",
            "7.digest.1.x.y",
            "7.digest.+1.x",
        ] {
            assert_eq!(Link::read(bad), None, "{bad}");
        }
    }
}
