//! A player's calendar feed of deadlines (`dopis web`,
//! `/me/{link}/deadlines.ics`): one event per game where it is their move,
//! as the "your move" mail's calendar entry (see `mail::compose`).

use chrono::{DateTime, Utc};

use super::post::{self, Post};
use crate::adapter::store::{Store, StoreError};
use crate::domain::player::Player;

/// The `.ics` text of `player`'s deadlines at `now`. `game_link` makes the
/// link to a game's page from its id, when the pages have an address.
pub async fn deadlines(
    store: &Store,
    post: &Post,
    player: &Player,
    game_link: impl Fn(i64) -> Option<String>,
    now: DateTime<Utc>,
) -> Result<String, StoreError> {
    let mut tx = store.begin().await?;
    let mut entries = Vec::new();
    for game in tx.games_to_move(player.id).await? {
        // Read without locks: a feed is fetched often and changes nothing.
        let table = post::load_to_read(&mut tx, game, false).await?;
        entries.extend(post.feed_entry(&table, player, game_link(game.0), now)?);
    }
    // Read only: the commit ends the snapshot.
    tx.commit().await?;
    let name = format!("dopis: {}", player.name);
    let zone = player.tz.map(|tz| tz.name());
    Ok(crate::adapter::mail::compose::deadline_feed(
        &name, zone, &entries,
    ))
}

/// An event's news for its Atom feed (`dopis web`,
/// `/events/{id}/feed.atom`): each round as it started and each result as
/// it came, newest first, in the language `reader` and the event settle on.
#[derive(Debug, Clone)]
pub struct EventNews {
    /// The event.
    pub id: crate::domain::ids::EventId,
    /// Its name.
    pub name: String,
    /// The language of the words.
    pub lang: crate::domain::lang::Lang,
    /// Who may see it (its links follow it).
    pub visibility: crate::domain::event::Visibility,
    /// When it was created (the feed's id carries its year).
    pub created_at: DateTime<Utc>,
    /// The news, newest first.
    pub items: Vec<News>,
}

/// One piece of an event's news.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct News {
    /// The round it belongs to.
    pub round: u32,
    /// When it happened.
    pub at: DateTime<Utc>,
    /// What happened.
    pub what: Happened,
}

/// What happened in an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Happened {
    /// A round's games started: who plays whom (white, black), by board.
    Round {
        /// The pairings.
        games: Vec<(String, String)>,
    },
    /// A game ended.
    Result {
        /// The game.
        game: crate::domain::ids::GameId,
        /// Its board.
        board: u32,
        /// White's name.
        white: String,
        /// Black's name.
        black: String,
        /// `1-0`, `0-1` or `1/2-1/2`.
        result: String,
        /// How it ended, in the feed's language (as the mails say it).
        how: Option<String>,
    },
}

/// The most news a feed carries: a reader wants what is new, and a big
/// round robin's every result would make every fetch long.
const MOST_NEWS: usize = 200;

/// An event's news, if `token` (what follows the number in its address)
/// may see its pages; `None` as for an event that does not exist.
pub async fn event_news(
    store: &Store,
    tokens: &crate::adapter::mail::route::Tokens,
    id: crate::domain::ids::EventId,
    token: Option<&str>,
    reader: &crate::domain::locale::Reader,
) -> Result<Option<EventNews>, crate::service::td::TdError> {
    let mut tx = store.begin().await?;
    let viewer = super::pages::Viewer::Anyone { token };
    let Some(ev) = super::pages::event_for(&mut tx, tokens, id, viewer).await? else {
        return Ok(None);
    };
    let lang = reader.page_lang(None, ev.event.lang);
    // Each round: when its first game started, and its games (board,
    // white, black).
    type Round = (DateTime<Utc>, Vec<(u32, String, String)>);
    let mut rounds: std::collections::BTreeMap<u32, Round> = std::collections::BTreeMap::new();
    let mut items = Vec::new();
    for g in tx.event_games(id).await? {
        let white = tx.player(g.game.white).await?.name;
        let black = tx.player(g.game.black).await?.name;
        let round = rounds
            .entry(g.round)
            .or_insert_with(|| (g.game.created_at, Vec::new()));
        round.0 = round.0.min(g.game.created_at);
        round.1.push((g.board, white.clone(), black.clone()));
        if let (Some(result), Some(at)) = (&g.game.result, g.game.finished_at) {
            let record = tx.game_to_read(g.game.id).await?;
            let how = record.to_game().ok().and_then(|game| {
                crate::adapter::mail::compose::outcome_words(&game, &white, &black, lang)
            });
            items.push(News {
                round: g.round,
                at,
                what: Happened::Result {
                    game: g.game.id,
                    board: g.board,
                    white,
                    black,
                    result: result.clone(),
                    how,
                },
            });
        }
    }
    tx.commit().await?;
    for (round, (at, mut games)) in rounds {
        games.sort_by_key(|(board, _, _)| *board);
        items.push(News {
            round,
            at,
            what: Happened::Round {
                games: games.into_iter().map(|(_, w, b)| (w, b)).collect(),
            },
        });
    }
    // Newest first; at one instant a later round first, and a round's
    // results above its start (which came before them).
    let is_round = |n: &News| matches!(n.what, Happened::Round { .. });
    items.sort_by(|a, b| {
        b.at.cmp(&a.at)
            .then(b.round.cmp(&a.round))
            .then(is_round(a).cmp(&is_round(b)))
    });
    items.truncate(MOST_NEWS);
    Ok(Some(EventNews {
        id,
        name: ev.event.name.clone(),
        lang,
        visibility: ev.record.visibility,
        created_at: ev.record.created_at,
        items,
    }))
}

/// What a feed says of one piece of news, in the reader's words (the
/// caller has the words: the web pages').
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worded {
    /// The entry's title.
    pub title: String,
    /// What happened, in a sentence or a list.
    pub summary: String,
    /// The page it is about.
    pub link: Option<String>,
}

/// An event's news as an Atom feed: `title` the feed's, `worded` each
/// item's words (one per item, in order); `domain` (of our address) and
/// the event's year make the ids, `author` is the server's name, `page` the
/// event page's path and `base` the pages' address (`[web] base_url`),
/// when set.
pub fn event_atom(
    news: &EventNews,
    domain: &str,
    author: &str,
    page: &str,
    base: Option<&str>,
    title: String,
    worded: Vec<Worded>,
) -> String {
    use chrono::Datelike;
    let stem = format!(
        "tag:{domain},{}:dopis/events/{}",
        news.created_at.year(),
        news.id.0
    );
    let entries = news
        .items
        .iter()
        .zip(worded)
        .map(|(item, words)| crate::adapter::atom::Entry {
            id: match &item.what {
                Happened::Round { .. } => format!("{stem}/rounds/{}", item.round),
                Happened::Result { game, .. } => format!("{stem}/games/{}/result", game.0),
            },
            title: words.title,
            updated: item.at,
            link: words.link,
            summary: words.summary,
        })
        .collect();
    crate::adapter::atom::write(&crate::adapter::atom::Feed {
        id: stem,
        title,
        lang: news.lang.code().to_owned(),
        updated: news.items.first().map_or(news.created_at, |n| n.at),
        author: author.to_owned(),
        self_link: format!("{page}/feed.atom"),
        page: page.to_owned(),
        base: base.map(str::to_owned),
        entries,
    })
}
