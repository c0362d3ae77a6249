//! Each player's private calendar feed of their deadlines,
//! `GET /me/{segment}/deadlines.ics`, and each public event's Atom feed
//! of its rounds and results, `GET /events/{id}/feed.atom` (see
//! [`crate::service::feeds`]).

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use minijinja::Value;

use super::Shared;
use super::pages::reader::Asked;
use super::pages::render::word;
use crate::domain::event::Visibility;
use crate::domain::ids::EventId;
use crate::service::feeds::{EventNews, Happened, Worded};
use crate::service::{feeds, links};

/// The feeds' routes.
pub(super) fn routes() -> Router<Shared> {
    Router::new()
        .route("/me/{segment}/deadlines.ics", get(deadlines))
        .route("/events/{id}/feed.atom", get(event_feed))
}

async fn event_feed(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let Ok(Path(raw)) = p else {
        return not_found();
    };
    let Some((id, token)) = super::pages::numbered(&raw) else {
        return not_found();
    };
    let news = match feeds::event_news(
        &web.store,
        &web.post.tokens,
        EventId(id),
        token,
        &asked.reader,
    )
    .await
    {
        Ok(Some(news)) => news,
        Ok(None) => return not_found(),
        Err(e) => {
            tracing::error!(error = %e, "event feed failed");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                "The server cannot read its database just now; try again in a minute.\n",
            )
                .into_response();
        }
    };
    let page = format!("/events/{raw}");
    match event_atom(&web, &news, &page) {
        Ok(xml) => (
            [
                (header::CONTENT_TYPE, "application/atom+xml; charset=utf-8"),
                // Feed readers poll: a public feed may be kept a while by
                // anyone, an unlisted one (its address is its key) only by
                // the reader.
                (
                    header::CACHE_CONTROL,
                    if news.visibility == Visibility::Public {
                        "public, max-age=300"
                    } else {
                        "private, max-age=300"
                    },
                ),
            ],
            asked.finish(xml.into_response()),
        )
            .into_response(),
        Err(e) => {
            tracing::error!("event feed words: {e}");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "The feed could not be made.\n",
            )
                .into_response()
        }
    }
}

/// An event's news as an Atom feed, its words in the news's language; the
/// links relative to `[web] base_url` (the feed's `xml:base`) when set.
fn event_atom(
    web: &Shared,
    news: &EventNews,
    page: &str,
) -> Result<String, super::pages::render::RenderError> {
    let lang = news.lang;
    // Plain text: the words are not escaped here, the feed escapes them.
    let text = |s: &str| Value::from_safe_string(s.to_owned());
    // Each item's words (a failure is a missing word: a bug the tests
    // catch), then the feed from them.
    let mut worded = Vec::with_capacity(news.items.len());
    for item in &news.items {
        worded.push(match &item.what {
            Happened::Round { games } => {
                let list: Vec<String> = games.iter().map(|(w, b)| format!("{w} – {b}")).collect();
                Worded {
                    title: word(lang, "feed.round", &[("n", Value::from(item.round))])?,
                    summary: word(lang, "feed.pairings", &[("games", text(&list.join(", ")))])?,
                    link: Some(format!("{page}#round-{}", item.round)),
                }
            }
            Happened::Result {
                game,
                board,
                white,
                black,
                result,
                how,
            } => Worded {
                title: word(
                    lang,
                    "feed.result",
                    &[
                        ("round", Value::from(item.round)),
                        ("board", Value::from(*board)),
                        ("white", text(white)),
                        ("black", text(black)),
                        ("result", text(result)),
                    ],
                )?,
                summary: how.clone().unwrap_or_else(|| result.clone()),
                link: links::game_path(&web.post.tokens, *game, Some(news.visibility))
                    .or_else(|| Some(page.to_owned())),
            },
        });
    }
    let title = word(lang, "feed.title", &[("name", text(&news.name))])?;
    Ok(feeds::event_atom(
        news,
        web.post.ours.domain(),
        &web.post.name,
        page,
        web.base_url.as_deref(),
        title,
        worded,
    ))
}

async fn deadlines(State(web): State<Shared>, Path(segment): Path<String>) -> Response {
    let player = match links::player_by_segment(&web.store, &web.post.tokens, &segment).await {
        Ok(Some(player)) => player,
        // A wrong, old or revoked link: the same answer as for no player,
        // so a link tells nothing about who exists.
        Ok(None) => return not_found(),
        Err(e) => return unavailable(&e),
    };
    // Each event links to the player's own page of the game, when the
    // pages have a public address to link from a calendar.
    let link = |game: i64| {
        web.base_url
            .as_ref()
            .map(|base| format!("{base}/me/{segment}/games/{game}"))
    };
    match feeds::deadlines(&web.store, &web.post, &player, link, web.clock.now()).await {
        Ok(ics) => (
            [
                (header::CONTENT_TYPE, "text/calendar; charset=utf-8"),
                // Private: no shared cache may keep it; calendars refresh.
                (header::CACHE_CONTROL, "private, max-age=300"),
                (
                    header::CONTENT_DISPOSITION,
                    "inline; filename=\"dopis-deadlines.ics\"",
                ),
            ],
            ics,
        )
            .into_response(),
        Err(e) => unavailable(&e),
    }
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        "Not found. A private link that stopped working was revoked: ask for the new one \
         (`dopis player link` at the club, or the link in your latest mail).\n",
    )
        .into_response()
}

fn unavailable(e: &crate::service::StoreError) -> Response {
    tracing::error!(error = %e, "calendar feed failed");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "The server cannot read its database just now; try again in a minute.\n",
    )
        .into_response()
}
