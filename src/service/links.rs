//! Web links: the part of a URL that opens a player's own pages and
//! calendar feed in `dopis web` (`/me/{segment}/…`), and the paths of
//! event and game pages (an unlisted one carries a token).
//!
//! A segment is `{player id}.{token}`, the token an HMAC of the mail secret
//! over the id and the player's link generation
//! ([`crate::adapter::mail::route::Tokens::web_link`]): nothing is stored per link,
//! a new secret ends every link, and `dopis player link EMAIL --revoke`
//! bumps the generation so the links given out so far stop working.

use chrono::{DateTime, Utc};

use crate::adapter::mail::compose::{EntryNews, LetterKind};
use crate::adapter::mail::route::Tokens;
use crate::adapter::store::{Store, StoreError};
use crate::domain::event::Visibility;
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::{Player, PlayerId};

/// The link segment of a player at their current generation.
pub async fn segment_of(
    store: &Store,
    tokens: &Tokens,
    player: PlayerId,
) -> Result<Option<String>, StoreError> {
    Ok(store
        .link_generation(player)
        .await?
        .map(|generation| segment(tokens, player, generation)))
}

/// The segment for a player at a generation.
pub fn segment(tokens: &Tokens, player: PlayerId, generation: i64) -> String {
    format!("{}.{}", player.0, tokens.web_link(player.0, generation))
}

/// The player whose current link `segment` is; `None` for anything else
/// (unknown player, old generation, wrong token, not a segment at all),
/// so a caller can answer every failure alike.
pub async fn player_by_segment(
    store: &Store,
    tokens: &Tokens,
    segment: &str,
) -> Result<Option<Player>, StoreError> {
    let Some((id, token)) = segment.split_once('.') else {
        return Ok(None);
    };
    // Digits only: `parse` would also take a sign.
    if id.is_empty() || id.len() > 18 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let Ok(id) = id.parse::<i64>() else {
        return Ok(None);
    };
    let player = PlayerId(id);
    let Some(generation) = store.link_generation(player).await? else {
        return Ok(None);
    };
    if !tokens.is_web_link(id, generation, token) {
        return Ok(None);
    }
    Ok(Some(store.player(player).await?))
}

/// Ends a player's links given out so far; the new segment.
pub async fn revoke(
    store: &Store,
    tokens: &Tokens,
    player: PlayerId,
) -> Result<String, StoreError> {
    let generation = store.bump_link_generation(player).await?;
    Ok(segment(tokens, player, generation))
}

/// The path of an event's page for anyone who may see it: `/events/7`
/// when public, `/events/7.TOKEN` when unlisted (a private event's path is
/// the unlisted form, which is refused while it is private).
pub fn event_path(tokens: &Tokens, id: EventId, visibility: Visibility) -> String {
    match visibility {
        Visibility::Public => format!("/events/{}", id.0),
        _ => format!("/events/{}.{}", id.0, tokens.page("event", id.0).as_str()),
    }
}

/// The path of a game's page for anyone who may see it, as
/// [`event_path`]: `None` for a game no public link may show.
pub fn game_path(tokens: &Tokens, id: GameId, visibility: Option<Visibility>) -> Option<String> {
    match visibility? {
        Visibility::Public => Some(format!("/games/{}", id.0)),
        Visibility::Unlisted => Some(format!(
            "/games/{}.{}",
            id.0,
            tokens.page("game", id.0).as_str()
        )),
        Visibility::Private => None,
    }
}

/// What a one-click unsubscribe link stops (see `service::unsubscribe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// The daily digest: the player gets a mail per move again.
    Digest,
    /// The announcements of events opening for entries.
    Announcements,
}

impl List {
    /// Its word in links and in the store.
    pub fn key(self) -> &'static str {
        match self {
            List::Digest => "digest",
            List::Announcements => "news",
        }
    }

    /// The list of a word of [`List::key`].
    pub fn from_key(key: &str) -> Option<List> {
        match key {
            "digest" => Some(List::Digest),
            "news" => Some(List::Announcements),
            _ => None,
        }
    }

    /// The list a mail kind may be unsubscribed from, if any: the mails a
    /// player chose to get in bulk.
    pub fn of(kind: &LetterKind) -> Option<List> {
        match kind {
            LetterKind::Digest { .. } => Some(List::Digest),
            LetterKind::Entry {
                news: EntryNews::Announced { .. },
            } => Some(List::Announcements),
            _ => None,
        }
    }
}

/// The one-click unsubscribe link of `player` for `list`, made at `now`,
/// under `base` (`[web] base_url`): `BASE/unsubscribe/PLAYER.LIST.ISSUED.MAC`.
/// Only an https base gets one: RFC 8058 asks for https, and mail programs
/// POST nowhere else.
pub fn unsubscribe_url(
    base: Option<&str>,
    tokens: &Tokens,
    player: PlayerId,
    list: List,
    now: DateTime<Utc>,
) -> Option<String> {
    let base = base?.trim_end_matches('/');
    if !base.starts_with("https://") {
        return None;
    }
    let issued = now.timestamp();
    Some(format!(
        "{base}/unsubscribe/{}.{}.{issued}.{}",
        player.0,
        list.key(),
        tokens.unsubscribe(player.0, list.key(), issued)
    ))
}
