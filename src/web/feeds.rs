//! Each player's private calendar feed of their deadlines:
//! `GET /me/{segment}/deadlines.ics` (see [`crate::service::feeds`]).

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::Shared;
use crate::service::{feeds, links};

/// The feeds' routes.
pub(super) fn routes() -> Router<Shared> {
    Router::new().route("/me/{segment}/deadlines.ics", get(deadlines))
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

fn unavailable(e: &dyn std::fmt::Display) -> Response {
    tracing::error!(error = %e, "calendar feed failed");
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "The server cannot read its database just now; try again in a minute.\n",
    )
        .into_response()
}
