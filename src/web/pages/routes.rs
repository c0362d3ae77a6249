//! The pages' addresses and handlers: each reads its path, asks
//! [`crate::service::pages`] (which decides who may see what), and renders.
//!
//! Every refusal is a short page: 404 for anything that does not exist *or*
//! may not be seen (a wrong or revoked token, a private event, a game
//! outside events), so no answer tells whether a number is in use; 400 for
//! a path that is not text (a percent-escape that is not UTF-8). Numbers are
//! read as `i64` with `+`, signs and leading zeros refused, so nothing a
//! client writes reaches the store unchecked.

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::reader::Asked;
use super::render::{self, EventLinks, GameLinks, PlayerLinks, Site};
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::Player;
use crate::service::links::List;
use crate::service::links::{event_path, game_path};
use crate::service::pages::{self, Viewer};
use crate::service::unsubscribe::{self, Outcome, Standing};
use crate::web::Shared;

/// The pages' routes (merged into `web::router`).
pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/", get(index))
        .route("/style.css", get(style))
        .route("/events/{id}", get(event))
        .route("/events/{id}/pgn", get(event_pgn))
        .route("/games/{id}", get(game))
        .route("/games/{id}/pgn", get(game_pgn))
        .route("/me/{segment}", get(me))
        .route("/me/{segment}/games/{id}", get(my_game))
        .route("/me/{segment}/games/{id}/pgn", get(my_game_pgn))
        .route("/me/{segment}/events/{id}", get(my_event))
        .route("/me/{segment}/events/{id}/pgn", get(my_event_pgn))
        .route(
            "/unsubscribe/{link}",
            get(unsubscribe_page).post(unsubscribe_now),
        )
}

/// A number and the token after it: `7` or `7.TOKEN`. `None` for anything
/// else (signs, leading zeros, too large, empty parts).
pub fn numbered(text: &str) -> Option<(i64, Option<&str>)> {
    let (number, token) = match text.split_once('.') {
        Some((n, t)) => (n, Some(t)),
        None => (text, None),
    };
    let well_formed = !number.is_empty()
        && number.len() <= 18
        && number.bytes().all(|b| b.is_ascii_digit())
        && !(number.len() > 1 && number.starts_with('0'))
        && token.is_none_or(|t| {
            !t.is_empty() && t.len() <= 64 && t.bytes().all(|b| b.is_ascii_alphanumeric())
        });
    if !well_formed {
        return None;
    }
    let n: i64 = number.parse().ok()?;
    (n > 0).then_some((n, token))
}

fn site<'a>(web: &'a Shared, asked: &'a Asked) -> Site<'a> {
    Site {
        server: &web.post.name,
        home: "/",
        path: &asked.path,
    }
}

/// A page of HTML with the headers every page has.
fn html(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // Private pages carry their token in the address: never cached by a
    // shared cache, never sent on as a referrer.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'self'; img-src 'self' data:"),
    );
    response
}

fn refused(web: &Shared, asked: &Asked, status: StatusCode) -> Response {
    // The language links of a refusal go to the index: the page is then
    // the same for every refused address, and tells nothing of any.
    let site = Site {
        path: "/",
        ..site(web, asked)
    };
    asked.finish(html(
        status,
        render::error(site, asked.lang(), status.as_u16()),
    ))
}

fn not_found(web: &Shared, asked: &Asked) -> Response {
    refused(web, asked, StatusCode::NOT_FOUND)
}

/// The page for an address no route serves (the router's fallback).
pub(in crate::web) async fn nowhere(State(web): State<Shared>, asked: Asked) -> Response {
    not_found(&web, &asked)
}

/// A failure of ours (the database, a template): logged, said shortly.
fn failed(web: &Shared, asked: &Asked, what: &str, e: impl std::fmt::Display) -> Response {
    tracing::error!("web page {what}: {e}");
    refused(web, asked, StatusCode::INTERNAL_SERVER_ERROR)
}

fn pgn(name: String, text: String) -> Response {
    let mut response = text.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-chess-pgn; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    response
}

async fn style() -> Response {
    let mut response = render::STYLE.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    response
}

async fn index(State(web): State<Shared>, asked: Asked) -> Response {
    let lang = asked.lang();
    match pages::index(&web.store, lang, web.clock.now()).await {
        Ok(events) => {
            let tokens = &web.post.tokens;
            match render::index(site(&web, &asked), lang, &events, |id| {
                event_path(tokens, id, crate::domain::event::Visibility::Public)
            }) {
                Ok(body) => asked.finish(html(StatusCode::OK, body)),
                Err(e) => failed(&web, &asked, "index", e),
            }
        }
        Err(e) => failed(&web, &asked, "index", e),
    }
}

/// Why a request gets no page (small, so results carrying it stay small).
enum Refusal {
    /// 400: the path is not text.
    Bad,
    /// 404: nothing there, or nothing this viewer may see.
    NotFound,
    /// 500: our failure, logged where it happened.
    Failed,
}

fn answer(web: &Shared, asked: &Asked, refusal: Refusal) -> Response {
    refused(
        web,
        asked,
        match refusal {
            Refusal::Bad => StatusCode::BAD_REQUEST,
            Refusal::NotFound => StatusCode::NOT_FOUND,
            Refusal::Failed => StatusCode::INTERNAL_SERVER_ERROR,
        },
    )
}

/// The path parameter, or the refusal to send instead.
fn param(p: Result<Path<String>, PathRejection>) -> Result<String, Refusal> {
    p.map(|Path(s)| s).map_err(|_| Refusal::Bad)
}

fn two_params(
    p: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), Refusal> {
    p.map(|Path(s)| s).map_err(|_| Refusal::Bad)
}

/// The player of a private link segment; `None` for a wrong or revoked one.
async fn player_of(web: &Shared, segment: &str) -> Result<Option<Player>, Refusal> {
    crate::service::links::player_by_segment(&web.store, &web.post.tokens, segment)
        .await
        .map_err(|e| {
            tracing::error!("web page private link: {e}");
            Refusal::Failed
        })
}

/// Renders an event for a viewer, with links fit for them.
async fn event_page(
    web: &Shared,
    asked: &Asked,
    id: i64,
    viewer: Viewer<'_>,
    me: Option<&str>,
) -> Response {
    let now = web.clock.now();
    let tokens = &web.post.tokens;
    let page = match pages::event(&web.store, tokens, EventId(id), viewer, &asked.reader, now).await
    {
        Ok(Some(page)) => page,
        Ok(None) => return not_found(web, asked),
        Err(e) => return failed(web, asked, "event", e),
    };
    let visibility = page.visibility;
    let game_link = |g: GameId| match me {
        Some(seg) => Some(format!("/me/{seg}/games/{}", g.0)),
        None => game_path(tokens, g, Some(visibility)),
    };
    let started = page.status == crate::domain::event::EventStatus::Started;
    let links = EventLinks {
        game: &game_link,
        pgn: started.then(|| match me {
            Some(seg) => format!("/me/{seg}/events/{id}/pgn"),
            None => format!("{}/pgn", event_path(tokens, EventId(id), visibility)),
        }),
        // The feed of an event anyone may see, at its public address.
        feed: (visibility != crate::domain::event::Visibility::Private)
            .then(|| format!("{}/feed.atom", event_path(tokens, EventId(id), visibility))),
        back: me.map(|seg| format!("/me/{seg}")),
        address: web.post.ours.as_str(),
        event: &|e: EventId, v: crate::domain::event::Visibility| match me {
            Some(seg) => format!("/me/{seg}/events/{}", e.0),
            None => event_path(tokens, e, v),
        },
    };
    match render::event(site(web, asked), &page, &links) {
        Ok(body) => asked.finish(html(StatusCode::OK, body)),
        Err(e) => failed(web, asked, "event", e),
    }
}

async fn event(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let raw = match param(p) {
        Ok(raw) => raw,
        Err(r) => return answer(&web, &asked, r),
    };
    let Some((id, token)) = numbered(&raw) else {
        return not_found(&web, &asked);
    };
    event_page(&web, &asked, id, Viewer::Anyone { token }, None).await
}

/// The `Site` tag of the PGN downloads: the domain of our address, as
/// `dopis event pgn` writes it by default.
fn pgn_site(web: &Shared) -> String {
    web.post.ours.domain().to_string()
}

async fn event_pgn_of(web: &Shared, asked: &Asked, id: i64, viewer: Viewer<'_>) -> Response {
    let site = pgn_site(web);
    match pages::event_pgn(&web.store, &web.post.tokens, EventId(id), viewer, &site).await {
        Ok(Some(text)) => pgn(format!("event-{id}.pgn"), text),
        Ok(None) => not_found(web, asked),
        Err(e) => failed(web, asked, "event PGN", e),
    }
}

async fn event_pgn(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let raw = match param(p) {
        Ok(raw) => raw,
        Err(r) => return answer(&web, &asked, r),
    };
    let Some((id, token)) = numbered(&raw) else {
        return not_found(&web, &asked);
    };
    event_pgn_of(&web, &asked, id, Viewer::Anyone { token }).await
}

async fn game_page(
    web: &Shared,
    asked: &Asked,
    id: i64,
    viewer: Viewer<'_>,
    me: Option<&str>,
) -> Response {
    let now = web.clock.now();
    let tables = web.inbox.tables.as_ref();
    let reader = &asked.reader;
    let page = match pages::game(
        &web.store,
        &web.post,
        tables,
        GameId(id),
        viewer,
        reader,
        now,
    )
    .await
    {
        Ok(Some(page)) => page,
        Ok(None) => return not_found(web, asked),
        Err(e) => return failed(web, asked, "game", e),
    };
    let tokens = &web.post.tokens;
    let event = page.event.as_ref().and_then(|(e, _, v, _, _)| match me {
        Some(seg) => Some(format!("/me/{seg}/events/{}", e.0)),
        None => {
            (*v != crate::domain::event::Visibility::Private).then(|| event_path(tokens, *e, *v))
        }
    });
    let pgn = match (me, &page.event) {
        (Some(seg), _) => format!("/me/{seg}/games/{id}/pgn"),
        (None, Some((_, _, v, _, _))) => {
            game_path(tokens, GameId(id), Some(*v)).map_or_else(String::new, |p| format!("{p}/pgn"))
        }
        (None, None) => String::new(),
    };
    let links = GameLinks {
        event,
        pgn,
        back: me.map(|seg| format!("/me/{seg}")),
    };
    match render::game(site(web, asked), &page, &links) {
        Ok(body) => asked.finish(html(StatusCode::OK, body)),
        Err(e) => failed(web, asked, "game", e),
    }
}

async fn game(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let raw = match param(p) {
        Ok(raw) => raw,
        Err(r) => return answer(&web, &asked, r),
    };
    let Some((id, token)) = numbered(&raw) else {
        return not_found(&web, &asked);
    };
    game_page(&web, &asked, id, Viewer::Anyone { token }, None).await
}

async fn game_pgn_of(web: &Shared, asked: &Asked, id: i64, viewer: Viewer<'_>) -> Response {
    match pages::game_pgn(&web.store, &web.post.tokens, GameId(id), viewer).await {
        Ok(Some(text)) => pgn(format!("game-{id}.pgn"), text),
        Ok(None) => not_found(web, asked),
        Err(e) => failed(web, asked, "game PGN", e),
    }
}

async fn game_pgn(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let raw = match param(p) {
        Ok(raw) => raw,
        Err(r) => return answer(&web, &asked, r),
    };
    let Some((id, token)) = numbered(&raw) else {
        return not_found(&web, &asked);
    };
    game_pgn_of(&web, &asked, id, Viewer::Anyone { token }).await
}

async fn me(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let segment = match param(p) {
        Ok(raw) => raw,
        Err(r) => return answer(&web, &asked, r),
    };
    let player = match player_of(&web, &segment).await {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(&web, &asked),
        Err(r) => return answer(&web, &asked, r),
    };
    let page = match pages::player(&web.store, &player, &asked.reader, web.clock.now()).await {
        Ok(page) => page,
        Err(e) => return failed(&web, &asked, "player", e),
    };
    let game = |g: GameId| format!("/me/{segment}/games/{}", g.0);
    let event = |e: EventId| format!("/me/{segment}/events/{}", e.0);
    let links = PlayerLinks {
        game: &game,
        event: &event,
        calendar: format!("/me/{segment}/deadlines.ics"),
    };
    match render::player(site(&web, &asked), &page, &links) {
        Ok(body) => asked.finish(html(StatusCode::OK, body)),
        Err(e) => failed(&web, &asked, "player", e),
    }
}

/// The player of a segment and the number after it, or the refusal.
async fn mine(
    web: &Shared,
    p: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, Player, i64), Refusal> {
    let (segment, raw) = two_params(p)?;
    let player = player_of(web, &segment).await?.ok_or(Refusal::NotFound)?;
    match numbered(&raw) {
        Some((id, None)) => Ok((segment, player, id)),
        _ => Err(Refusal::NotFound),
    }
}

async fn my_game(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    match mine(&web, p).await {
        Ok((segment, player, id)) => {
            game_page(&web, &asked, id, Viewer::Player(&player), Some(&segment)).await
        }
        Err(r) => answer(&web, &asked, r),
    }
}

async fn my_game_pgn(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    match mine(&web, p).await {
        Ok((_, player, id)) => game_pgn_of(&web, &asked, id, Viewer::Player(&player)).await,
        Err(r) => answer(&web, &asked, r),
    }
}

async fn my_event(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    match mine(&web, p).await {
        Ok((segment, player, id)) => {
            event_page(&web, &asked, id, Viewer::Player(&player), Some(&segment)).await
        }
        Err(r) => answer(&web, &asked, r),
    }
}

async fn my_event_pgn(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    match mine(&web, p).await {
        Ok((_, player, id)) => event_pgn_of(&web, &asked, id, Viewer::Player(&player)).await,
        Err(r) => answer(&web, &asked, r),
    }
}

/// The command that undoes an unsubscribe, in `lang`'s words.
fn undo_command(list: List, lang: crate::domain::lang::Lang) -> String {
    use crate::domain::command::{Command, Notify, describe};
    let command = match list {
        List::Digest => Command::Notify(Notify::Digest),
        List::Announcements => Command::Announcements(true),
    };
    describe(&[command], lang)
}

/// A one-click unsubscribe link opened in a browser (or fetched by a
/// mail scanner): says what it would do, with a button that does it (a
/// POST to the same address); never changes anything itself.
async fn unsubscribe_page(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let link = match param(p) {
        Ok(link) => link,
        Err(r) => return answer(&web, &asked, r),
    };
    let page = match unsubscribe::standing(&web.store, &web.post.tokens, &link).await {
        Ok(Standing::Refused) => None,
        Ok(Standing::Open { player, list, on }) => {
            Some((player, list, if on { "ask" } else { "already" }, None))
        }
        Ok(Standing::Used { player, list, at }) => Some((player, list, "used", Some(at))),
        Err(e) => return failed(&web, &asked, "unsubscribe", e),
    };
    unsubscribe_answer(&web, &asked, page)
}

/// A one-click unsubscribe (RFC 8058): a mail program's POST with
/// `List-Unsubscribe=One-Click`, or the page's button. The link alone is
/// the authority (signed, for one player and one list, used once); the
/// body is not needed, so it is not read.
async fn unsubscribe_now(
    State(web): State<Shared>,
    asked: Asked,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let link = match param(p) {
        Ok(link) => link,
        Err(r) => return answer(&web, &asked, r),
    };
    let page = match unsubscribe::apply(&web.store, &web.post, &link, web.clock.now()).await {
        Ok(Outcome::Refused) => None,
        Ok(Outcome::Done {
            player,
            list,
            changed,
        }) => Some((player, list, if changed { "done" } else { "same" }, None)),
        Ok(Outcome::Replayed { player, list, at }) => Some((player, list, "used", Some(at))),
        Err(e) => return failed(&web, &asked, "unsubscribe", e),
    };
    unsubscribe_answer(&web, &asked, page)
}

/// The page about a link: for its player (in their language unless the
/// reader picked another) what it does or did, `state` as
/// [`render::UnsubscribePage`] has it, and when it was used; `None`: a
/// link that is not ours, answered 404 naming no one.
fn unsubscribe_answer(
    web: &Shared,
    asked: &Asked,
    page: Option<(
        Player,
        List,
        &'static str,
        Option<chrono::DateTime<chrono::Utc>>,
    )>,
) -> Response {
    let (status, lang, page) = match page {
        None => (StatusCode::NOT_FOUND, asked.lang(), refused_link()),
        Some((player, list, state, at)) => {
            let lang = asked.reader.page_lang(Some(player.lang), None);
            let page = render::UnsubscribePage {
                state,
                list: list.key(),
                name: player.name.clone(),
                date: at.map(|at| crate::domain::locale::describe_moment(at, player.tz, lang)),
                command: undo_command(list, lang),
            };
            (StatusCode::OK, lang, page)
        }
    };
    match render::unsubscribe(site(web, asked), lang, &page) {
        Ok(body) => asked.finish(html(status, body)),
        Err(e) => failed(web, asked, "unsubscribe", e),
    }
}

/// The page of a link that is not ours: it names no one.
fn refused_link() -> render::UnsubscribePage {
    render::UnsubscribePage {
        state: "refused",
        list: "",
        name: String::new(),
        date: None,
        command: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::numbered;

    #[test]
    fn numbers_in_paths_are_read_strictly() {
        assert_eq!(numbered("7"), Some((7, None)));
        assert_eq!(numbered("7.abc23"), Some((7, Some("abc23"))));
        for bad in [
            "",
            "0",
            "-1",
            "+1",
            "07",
            "1e3",
            "7.",
            ".x",
            "7.a.b",
            "7.a-b",
            "99999999999999999999999",
            "１",
            "7 ",
            "0x10",
        ] {
            assert_eq!(numbered(bad), None, "{bad:?}");
        }
        assert_eq!(
            numbered("999999999999999999"),
            Some((999_999_999_999_999_999, None))
        );
    }
}
