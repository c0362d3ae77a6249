//! The pages as HTML: plain functions from what `service::pages` read (and
//! the links the caller worked out for its viewer) to a document, with the
//! templates of `templates/web/` (minijinja, as the mails; every value is
//! escaped but the crosstables, which escape their own text, and the board's
//! SVG, which is drawn from the position alone).

use std::sync::LazyLock;

use minijinja::value::Serde;
use minijinja::{Environment, Value, context};
use serde::Serialize;

use crate::domain::event::Visibility;
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;
use crate::domain::locale;
use crate::service::pages::{EventPage, EventSummary, GamePage, PlayerPage};

/// Every page template, by name.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "layout.html",
        include_str!("../../../templates/web/layout.html"),
    ),
    (
        "index.html",
        include_str!("../../../templates/web/index.html"),
    ),
    (
        "event.html",
        include_str!("../../../templates/web/event.html"),
    ),
    (
        "game.html",
        include_str!("../../../templates/web/game.html"),
    ),
    (
        "player.html",
        include_str!("../../../templates/web/player.html"),
    ),
    (
        "error.html",
        include_str!("../../../templates/web/error.html"),
    ),
];

/// The stylesheet every page links (`/style.css`): kept out of the pages
/// so they stay small and cacheable, and carry no `@` (its media query).
pub const STYLE: &str = include_str!("../../../templates/web/style.css");

/// Escapes as [`crate::domain::html::escape`] (minijinja's own escaping also writes
/// `/` as `&#x2f;`, which makes every link and FEN in the source unreadable).
fn formatter(
    out: &mut minijinja::Output<'_>,
    _: &mut minijinja::State<'_, '_>,
    value: &Value,
) -> Result<(), minijinja::Error> {
    let text = if value.is_undefined() || value.is_none() {
        String::new()
    } else if value.is_safe() {
        value.to_string()
    } else {
        crate::domain::html::escape(&value.to_string())
    };
    out.write_str(&text)
        .map_err(|_| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "page output"))
}

static ENVIRONMENT: LazyLock<Result<Environment<'static>, String>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_formatter(formatter);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(env)
});

/// A page that could not be rendered: a template bug, caught by the tests.
#[derive(Debug, thiserror::Error)]
#[error("page template {0}")]
pub struct RenderError(String);

fn render(name: &str, ctx: minijinja::Value) -> Result<String, RenderError> {
    let env = ENVIRONMENT.as_ref().map_err(|e| RenderError(e.clone()))?;
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| RenderError(format!("{name}: {e:#}")))
}

/// What every page shows around its content.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    /// The server's name (`[mail] name`).
    pub server: &'a str,
    /// The index's address (`/` under the base).
    pub home: &'a str,
}

fn date(t: Option<chrono::DateTime<chrono::Utc>>) -> Option<String> {
    t.map(|t| t.format("%Y-%m-%d").to_string())
}

fn kind_words(kind: &str) -> &str {
    match kind {
        "round-robin" => "Round robin",
        "olympiad" => "Olympiad",
        "team-match" => "Team match",
        other => other,
    }
}

/// The index of public events; `link` gives each event's address.
pub fn index(
    site: Site<'_>,
    events: &[EventSummary],
    link: impl Fn(EventId) -> String,
) -> Result<String, RenderError> {
    #[derive(Serialize)]
    struct Line<'a> {
        id: i64,
        name: &'a str,
        kind: &'a str,
        status: String,
        started: Option<String>,
        link: String,
        entries: bool,
    }
    let events: Vec<Line<'_>> = events
        .iter()
        .map(|e| Line {
            id: e.id.0,
            name: &e.name,
            kind: kind_words(&e.kind),
            status: match (&e.entries, e.status) {
                (Some(n), _) if n.open => format!(
                    "open for entries until {}: {} of at most {} entered",
                    n.closes, n.entered, n.max
                ),
                (_, crate::domain::event::EventStatus::Open) => "not started yet".to_string(),
                (_, crate::domain::event::EventStatus::Started) => "being played".to_string(),
            },
            started: date(e.started_at),
            link: link(e.id),
            entries: e.entries.as_ref().is_some_and(|n| n.open),
        })
        .collect();
    let taking = events.iter().filter(|e| e.entries).count();
    render(
        "index.html",
        context! {
            lang => "en", server => site.server, home => site.home, indexable => true,
            events => Value::from(Serde(&events)), taking,
        },
    )
}

/// Where an event page's links go, for the viewer at hand.
pub struct EventLinks<'a> {
    /// A game's page, if the viewer may open it.
    pub game: &'a dyn Fn(GameId) -> Option<String>,
    /// The PGN of all its games, once started.
    pub pgn: Option<String>,
    /// Back to the player's own page (private links).
    pub back: Option<String>,
    /// The words of the viewer (a player's language; English for anyone).
    pub lang: Lang,
    /// The club's address, where entries are written to.
    pub address: &'a str,
    /// Another event's page (a section, a stage, the event they are
    /// part of), for the viewer at hand.
    pub event: &'a dyn Fn(EventId, Visibility) -> String,
}

/// A rating band in words, for an event's entries.
fn band(min: Option<i32>, max: Option<i32>) -> Option<String> {
    match (min, max) {
        (None, None) => None,
        (Some(lo), None) => Some(format!("{lo} or more")),
        (None, Some(hi)) => Some(format!("{hi} or less")),
        (Some(lo), Some(hi)) => Some(format!("{lo} to {hi}")),
    }
}

/// An event's page: its entries by mail while they are taken; then
/// standings, board tables, pairings by round.
pub fn event(
    site: Site<'_>,
    page: &EventPage,
    links: &EventLinks<'_>,
) -> Result<String, RenderError> {
    #[derive(Serialize)]
    struct Game<'a> {
        board: u32,
        white: &'a str,
        black: &'a str,
        white_team: Option<&'a str>,
        black_team: Option<&'a str>,
        result: &'a str,
        game: Option<i64>,
        link: Option<String>,
    }
    #[derive(Serialize)]
    struct Round<'a> {
        number: u32,
        bye: Option<&'a str>,
        games: Vec<Game<'a>>,
    }
    let mut rounds: Vec<Round<'_>> = Vec::new();
    for p in &page.pairings {
        if rounds.last().is_none_or(|r| r.number != p.round) {
            rounds.push(Round {
                number: p.round,
                bye: p.bye.as_deref(),
                games: Vec::new(),
            });
        }
        if let Some(round) = rounds.last_mut() {
            round.games.push(Game {
                board: p.board,
                white: &p.white,
                black: &p.black,
                white_team: p.white_team.as_deref(),
                black_team: p.black_team.as_deref(),
                result: &p.result,
                game: p.game.map(|g| g.0),
                link: p.game.and_then(|g| (links.game)(g)),
            });
        }
    }
    let words = |h: &str| locale::crosstable_word(h, links.lang);
    let crosstable = page.crosstable.as_ref().map(|c| c.relabel(words).to_html());
    // The command in the viewer's words, and in English (always read).
    let enter = format!(
        "{} {}",
        crate::domain::command::enter_word(links.lang),
        page.id.0
    );
    let enter_en = format!(
        "{} {}",
        crate::domain::command::enter_word(Lang::En),
        page.id.0
    );
    let rating = page
        .entries
        .as_ref()
        .and_then(|e| band(e.rating_min, e.rating_max));
    #[derive(Serialize)]
    struct Part {
        name: String,
        state: &'static str,
        link: String,
    }
    let part = |p: &crate::service::pages::EventPart| Part {
        name: p.name.clone(),
        state: p.state,
        link: (links.event)(p.id, p.visibility),
    };
    let parts: Vec<Part> = page.parts.iter().map(part).collect();
    let part_of = page.part_of.as_ref().map(part);
    let boards: Vec<String> = page
        .boards
        .iter()
        .map(|b| b.table.relabel(words).to_html())
        .collect();
    render(
        "event.html",
        context! {
            lang => links.lang.code(), server => site.server, home => site.home,
            indexable => page.visibility == Visibility::Public,
            name => &page.name,
            kind => kind_words(&page.kind),
            team => !boards.is_empty() || page.kind != "round-robin",
            time_control => &page.time_control,
            status => match page.status {
                crate::domain::event::EventStatus::Open => "open",
                crate::domain::event::EventStatus::Started => "started",
            },
            started => date(page.started_at),
            over => page.over,
            crosstable, boards, rounds => Value::from(Serde(&rounds)),
            pgn => &links.pgn, back => &links.back,
            entries => Value::from(Serde(&page.entries)),
            enter, enter_en, rating, address => links.address,
            parts => Value::from(Serde(&parts)), staged => page.staged,
            part_of => Value::from(Serde(&part_of)),
        },
    )
}

/// Where a game page's links go, for the viewer at hand.
pub struct GameLinks {
    /// Its event's page, if the viewer may open it.
    pub event: Option<String>,
    /// Its PGN.
    pub pgn: String,
    /// Back to the player's own page (private links).
    pub back: Option<String>,
    /// The words of the viewer.
    pub lang: Lang,
}

/// A game's page: board, state, clocks, moves; the viewer's own side
/// when a player of it looks.
pub fn game(site: Site<'_>, page: &GamePage, links: &GameLinks) -> Result<String, RenderError> {
    let colour = |c: shakmaty::Color| crate::domain::chess::side::key(c);
    let event = page.event.as_ref().map(|(_, name, _, round, board)| {
        context! { name => name, round => round, board => board, link => &links.event }
    });
    render(
        "game.html",
        context! {
            lang => links.lang.code(), server => site.server, home => site.home,
            indexable => false,
            id => page.id.0,
            white => &page.white, black => &page.black,
            white_rating => page.white_rating, black_rating => page.black_rating,
            event,
            fen => &page.fen,
            orientation => colour(page.side.unwrap_or(shakmaty::Color::White)),
            svg => &page.svg,
            moves => Value::from(Serde(&page.moves)),
            to_move => page.to_move.map(colour),
            result => &page.result,
            end_reason => &page.end_reason,
            time_control => &page.time_control,
            clocks => &page.clocks,
            deadline => &page.deadline,
            draw_offer_by => page.draw_offer_by.map(colour),
            side => page.side.map(colour),
            reply_address => &page.reply_address,
            conditionals => &page.conditionals,
            tables => &page.tables,
            pgn => &links.pgn, back => &links.back,
        },
    )
}

/// Where a player page's links go.
pub struct PlayerLinks<'a> {
    /// A game's page from the player's side.
    pub game: &'a dyn Fn(GameId) -> String,
    /// An event's page from the player's side.
    pub event: &'a dyn Fn(EventId) -> String,
    /// The player's calendar feed.
    pub calendar: String,
}

/// A player's own page: their games, whose move, deadlines.
pub fn player(
    site: Site<'_>,
    page: &PlayerPage,
    links: &PlayerLinks<'_>,
) -> Result<String, RenderError> {
    #[derive(Serialize)]
    struct Line<'a> {
        #[serde(flatten)]
        game: &'a crate::service::pages::PlayerGame,
        link: String,
    }
    #[derive(Serialize)]
    struct Event<'a> {
        name: &'a str,
        link: String,
    }
    let games: Vec<Line<'_>> = page
        .games
        .iter()
        .map(|g| Line {
            game: g,
            link: (links.game)(g.id),
        })
        .collect();
    let events: Vec<Event<'_>> = page
        .events
        .iter()
        .map(|(id, name, _)| Event {
            name,
            link: (links.event)(*id),
        })
        .collect();
    render(
        "player.html",
        context! {
            lang => page.lang.code(), server => site.server, home => site.home,
            indexable => false,
            name => &page.name,
            games => Value::from(Serde(&games)),
            events => Value::from(Serde(&events)),
            calendar => &links.calendar,
        },
    )
}

/// A short page for a refused request: 404 says only "not found", never
/// whether the number exists.
pub fn error(site: Site<'_>, status: u16) -> String {
    let (heading, message) = match status {
        404 => (
            "Not found",
            "There is no page here, or this link is not (or no longer) valid.",
        ),
        400 => (
            "Bad request",
            "This address is not one of this site's pages.",
        ),
        405 => ("Method not allowed", "Pages here are only read."),
        _ => (
            "Something went wrong",
            "The page could not be made; try again later.",
        ),
    };
    render(
        "error.html",
        context! {
            lang => "en", server => site.server, home => site.home, indexable => false,
            heading, message,
        },
    )
    // The error page must not fail in turn: a bare text then.
    .unwrap_or_else(|_| format!("{heading}: {message}"))
}
