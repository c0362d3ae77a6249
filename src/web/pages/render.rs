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
    (
        "unsubscribe.html",
        include_str!("../../../templates/web/unsubscribe.html"),
    ),
];

/// The pages' words, one file per language the pages are written in
/// (`templates/web/words/<lang>.toml`): each value a small template the
/// pages call by key with `t("section.key", name=value)`.
pub(crate) const WORDS: &[(Lang, &str)] = &[
    (
        Lang::En,
        include_str!("../../../templates/web/words/en.toml"),
    ),
    (
        Lang::Sl,
        include_str!("../../../templates/web/words/sl.toml"),
    ),
    (
        Lang::Pl,
        include_str!("../../../templates/web/words/pl.toml"),
    ),
    (
        Lang::Lv,
        include_str!("../../../templates/web/words/lv.toml"),
    ),
    (
        Lang::De,
        include_str!("../../../templates/web/words/de.toml"),
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

/// The key of every word of one language's file, with its template
/// source: `section.key` for `[section] key = "…"`.
pub(crate) fn words_of(source: &str) -> Result<Vec<(String, String)>, String> {
    let table: toml::Table = source.parse().map_err(|e| format!("{e}"))?;
    let mut out = Vec::new();
    for (section, keys) in table {
        let toml::Value::Table(keys) = keys else {
            return Err(format!("{section}: not a [section] of words"));
        };
        for (key, value) in keys {
            let toml::Value::String(text) = value else {
                return Err(format!("{section}.{key}: not a string"));
            };
            out.push((format!("{section}.{key}"), text));
        }
    }
    Ok(out)
}

/// The template name of a word in a language.
fn word_name(lang: Lang, key: &str) -> String {
    format!("w/{}/{key}", lang.code())
}

/// The language of the page being rendered (its `lang` variable).
fn lang_of(state: &minijinja::State<'_, '_>) -> Lang {
    state
        .lookup("lang")
        .and_then(|v| v.as_str().and_then(|code| code.parse().ok()))
        .unwrap_or(Lang::En)
}

/// `t("section.key", name=value, …)`: the word in the page's language,
/// its values filled in and escaped. A key a language lacks is a bug the
/// tests catch; the page then says it in English rather than fail.
fn t(
    state: &minijinja::State<'_, '_>,
    key: &str,
    kwargs: minijinja::value::Kwargs,
) -> Result<Value, minijinja::Error> {
    let lang = lang_of(state);
    let env = state.env();
    let template = env
        .get_template(&word_name(lang, key))
        .or_else(|_| env.get_template(&word_name(Lang::En, key)))?;
    let names: Vec<String> = kwargs.args().map(str::to_owned).collect();
    let mut values = std::collections::BTreeMap::new();
    for name in names {
        let value: Value = kwargs.get(&name)?;
        values.insert(name, value);
    }
    values.insert("lang".to_owned(), Value::from(lang.code()));
    Ok(Value::from_safe_string(
        template.render(Value::from(values))?,
    ))
}

/// `n|plural(one=…, two=…, few=…, other=…)`: the form of a noun after `n`
/// by the page language's rules (Slovenian's dual, Polish's 2-4, …); a
/// form not given falls back to `few`, then `other`.
fn plural(
    state: &minijinja::State<'_, '_>,
    n: u32,
    kwargs: minijinja::value::Kwargs,
) -> Result<Value, minijinja::Error> {
    use crate::domain::locale::Count;
    let wanted: &[&str] = match locale::count(lang_of(state), n) {
        Count::One => &["one", "other"],
        Count::Two => &["two", "few", "other"],
        Count::Few => &["few", "other"],
        Count::Many => &["other"],
    };
    for form in wanted {
        if kwargs.has(form) {
            let value: Value = kwargs.get(form)?;
            return Ok(value);
        }
    }
    Err(minijinja::Error::new(
        minijinja::ErrorKind::MissingArgument,
        "plural needs other=",
    ))
}

static ENVIRONMENT: LazyLock<Result<Environment<'static>, String>> = LazyLock::new(|| {
    let mut env = Environment::new();
    env.set_formatter(formatter);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .map_err(|e| format!("{name}: {e}"))?;
    }
    for (lang, source) in WORDS {
        for (key, text) in words_of(source).map_err(|e| format!("{lang} words: {e}"))? {
            env.add_template_owned(word_name(*lang, &key), text)
                .map_err(|e| format!("{lang} word {key}: {e}"))?;
        }
    }
    env.add_function("t", t);
    env.add_filter("plural", plural);
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

/// One word in `lang`, for what the code words before a template shows
/// it (a rating band, a board table's title).
pub(crate) fn word(lang: Lang, key: &str, values: &[(&str, Value)]) -> Result<String, RenderError> {
    let env = ENVIRONMENT.as_ref().map_err(|e| RenderError(e.clone()))?;
    let mut ctx: std::collections::BTreeMap<&str, Value> = values.iter().cloned().collect();
    ctx.insert("lang", Value::from(lang.code()));
    env.get_template(&word_name(lang, key))
        .or_else(|_| env.get_template(&word_name(Lang::En, key)))
        .and_then(|t| t.render(Value::from(ctx)))
        .map_err(|e| RenderError(format!("{key}: {e:#}")))
}

/// What every page shows around its content.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    /// The server's name (`[mail] name`).
    pub server: &'a str,
    /// The index's address (`/` under the base).
    pub home: &'a str,
    /// The address of the page itself, which its language links repeat.
    pub path: &'a str,
}

/// One link of a page's language switch.
#[derive(Serialize)]
struct LangLink {
    code: &'static str,
    name: &'static str,
    href: String,
    current: bool,
}

/// What every page's layout reads: the language, the server, the switch.
fn around(site: Site<'_>, lang: Lang, indexable: bool) -> minijinja::Value {
    let langs: Vec<LangLink> = Lang::WRITTEN
        .iter()
        .map(|l| LangLink {
            code: l.code(),
            name: l.own_name(),
            href: format!("{}?lang={}", site.path, l.code()),
            current: *l == lang,
        })
        .collect();
    context! {
        lang => lang.code(), server => site.server, home => site.home,
        indexable, langs => Value::from(Serde(&langs)),
    }
}

fn date(t: Option<chrono::DateTime<chrono::Utc>>, lang: Lang) -> Option<String> {
    t.map(|t| locale::format_date(lang, t.date_naive()))
}

/// The key of an event kind's word (`round-robin` → `round_robin`).
fn kind_key(kind: &str) -> String {
    kind.replace('-', "_")
}

/// The index of public events in `lang`; `link` gives each event's address.
pub fn index(
    site: Site<'_>,
    lang: Lang,
    events: &[EventSummary],
    link: impl Fn(EventId) -> String,
) -> Result<String, RenderError> {
    #[derive(Serialize)]
    struct Entries<'a> {
        closes: &'a str,
        entered: u32,
        max: u32,
    }
    #[derive(Serialize)]
    struct Line<'a> {
        id: i64,
        name: &'a str,
        kind: String,
        playing: bool,
        started: Option<String>,
        link: String,
        entries: Option<Entries<'a>>,
    }
    let events: Vec<Line<'_>> = events
        .iter()
        .map(|e| Line {
            id: e.id.0,
            name: &e.name,
            kind: kind_key(&e.kind),
            playing: e.status == crate::domain::event::EventStatus::Started,
            started: date(e.started_at, lang),
            link: link(e.id),
            entries: e.entries.as_ref().filter(|n| n.open).map(|n| Entries {
                closes: &n.closes,
                entered: n.entered,
                max: n.max,
            }),
        })
        .collect();
    let taking = events.iter().filter(|e| e.entries.is_some()).count();
    render(
        "index.html",
        context! {
            events => Value::from(Serde(&events)), taking,
            ..around(site, lang, true)
        },
    )
}

/// Where an event page's links go, for the viewer at hand.
pub struct EventLinks<'a> {
    /// A game's page, if the viewer may open it.
    pub game: &'a dyn Fn(GameId) -> Option<String>,
    /// The PGN of all its games, once started.
    pub pgn: Option<String>,
    /// Its Atom feed (public events).
    pub feed: Option<String>,
    /// Back to the player's own page (private links).
    pub back: Option<String>,
    /// The club's address, where entries are written to.
    pub address: &'a str,
    /// Another event's page (a section, a stage, the event they are
    /// part of), for the viewer at hand.
    pub event: &'a dyn Fn(EventId, Visibility) -> String,
}

/// A rating band in `lang`'s words, for an event's entries.
fn band(lang: Lang, min: Option<i32>, max: Option<i32>) -> Result<Option<String>, RenderError> {
    let n = |v: i32| Value::from(v);
    Ok(match (min, max) {
        (None, None) => None,
        (Some(lo), None) => Some(word(lang, "entries.rating_min", &[("n", n(lo))])?),
        (None, Some(hi)) => Some(word(lang, "entries.rating_max", &[("n", n(hi))])?),
        (Some(lo), Some(hi)) => Some(word(
            lang,
            "entries.band_between",
            &[("low", n(lo)), ("high", n(hi))],
        )?),
    })
}

/// An open class's bands from their lower edges, in `lang`'s words
/// (`below 1800, 1800 to 2199, 2200 and up`).
fn bands(lang: Lang, edges: &[i32]) -> Result<Vec<String>, RenderError> {
    let (Some(first), Some(last)) = (edges.first(), edges.last()) else {
        return Ok(Vec::new());
    };
    let mut out = vec![word(
        lang,
        "entries.band_below",
        &[("n", Value::from(*first))],
    )?];
    for pair in edges.windows(2) {
        out.push(word(
            lang,
            "entries.band_between",
            &[
                ("low", Value::from(pair[0])),
                ("high", Value::from(pair[1] - 1)),
            ],
        )?);
    }
    out.push(word(lang, "entries.band_up", &[("n", Value::from(*last))])?);
    Ok(out)
}

/// A game's result as the pairings show it: PGN's own (`1-0`,
/// `1/2-1/2`), or a word (`annulled`).
fn result_text(lang: Lang, result: &str) -> Result<String, RenderError> {
    match result {
        "" | "1-0" | "0-1" | "1/2-1/2" => Ok(result.to_owned()),
        other => word(lang, &format!("result.{other}"), &[]),
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
        result: String,
        game: Option<i64>,
        link: Option<String>,
    }
    #[derive(Serialize)]
    struct Round<'a> {
        number: u32,
        bye: Option<&'a str>,
        games: Vec<Game<'a>>,
    }
    let lang = page.lang;
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
                result: result_text(lang, &p.result)?,
                game: p.game.map(|g| g.0),
                link: p.game.and_then(|g| (links.game)(g)),
            });
        }
    }
    let words = |h: &str| locale::crosstable_word(h, lang);
    let mark = locale::decimal_mark(lang);
    let crosstable = page
        .crosstable
        .as_ref()
        .map(|c| c.relabel(words).to_page_html(mark));
    // The command in the reader's words, and in English (always read).
    let code = |l: Lang| {
        Value::from_safe_string(format!(
            "<code>{} {}</code>",
            crate::domain::command::enter_word(l),
            page.id.0
        ))
    };
    let command = code(lang);
    let command_en = (crate::domain::command::enter_word(lang)
        != crate::domain::command::enter_word(Lang::En))
    .then(|| code(Lang::En));
    let address = crate::domain::html::escape(links.address);
    let mailto = Value::from_safe_string(format!("<a href=\"mailto:{address}\">{address}</a>"));
    let rating = match &page.entries {
        Some(e) => band(lang, e.rating_min, e.rating_max)?,
        None => None,
    };
    let bands = match &page.entries {
        Some(e) => bands(lang, &e.section_bands)?.join(", "),
        None => String::new(),
    };
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
    #[derive(Serialize)]
    struct Board {
        title: String,
        html: String,
    }
    let mut boards = Vec::new();
    for b in &page.boards {
        let mut table = b.table.relabel(words);
        table.title = word(
            lang,
            "event.board_title",
            &[
                ("name", Value::from(page.name.as_str())),
                ("board", Value::from(b.board)),
            ],
        )?;
        boards.push(Board {
            html: table.to_page_html(mark),
            title: table.title,
        });
    }
    render(
        "event.html",
        context! {
            name => &page.name,
            kind => kind_key(&page.kind),
            team => !boards.is_empty() || !matches!(page.kind.as_str(), "round-robin" | "consultation" | "swiss"),
            time_control => &page.time_control,
            status => match page.status {
                crate::domain::event::EventStatus::Open => "open",
                crate::domain::event::EventStatus::Started => "started",
            },
            started => date(page.started_at, lang),
            over => page.over,
            crosstable, boards => Value::from(Serde(&boards)), rounds => Value::from(Serde(&rounds)),
            pgn => &links.pgn, feed => &links.feed, back => &links.back,
            entries => Value::from(Serde(&page.entries)),
            command, command_en, mailto, rating, bands,
            parts => Value::from(Serde(&parts)), staged => page.staged,
            part_of => Value::from(Serde(&part_of)),
            ..around(site, lang, page.visibility == Visibility::Public)
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
}

/// A game's page: board, state, clocks, moves; the viewer's own side
/// when a player of it looks.
pub fn game(site: Site<'_>, page: &GamePage, links: &GameLinks) -> Result<String, RenderError> {
    let colour = |c: shakmaty::Color| crate::domain::chess::side::key(c);
    let event = page.event.as_ref().map(|(_, name, _, round, board)| {
        context! { name => name, round => round, board => board, link => &links.event }
    });
    let pieces = if page.figurines {
        "letters"
    } else {
        "figurines"
    };
    render(
        "game.html",
        context! {
            id => page.id.0,
            white => &page.white, black => &page.black,
            white_rating => page.white_rating, black_rating => page.black_rating,
            event,
            fen => &page.fen,
            orientation => colour(page.side.unwrap_or(shakmaty::Color::White)),
            svg => &page.svg,
            moves => Value::from(Serde(&page.moves)),
            moves_text => &page.moves_text,
            figurines => page.figurines,
            pieces_link => format!("{}?pieces={pieces}", site.path),
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
            tables => Value::from(Serde(&page.tables)),
            pgn => &links.pgn, back => &links.back,
            ..around(site, page.lang, false)
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
            name => &page.name,
            games => Value::from(Serde(&games)),
            events => Value::from(Serde(&events)),
            calendar => &links.calendar,
            ..around(site, page.lang, false)
        },
    )
}

/// What the page of a one-click unsubscribe link says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsubscribePage {
    /// `ask` (with the button), `already`, `done`, `same`, `used` or
    /// `refused`.
    pub state: &'static str,
    /// `digest` or `news`.
    pub list: &'static str,
    /// The player's name.
    pub name: String,
    /// When the link was used, in the reader's words.
    pub date: Option<String>,
    /// The command that undoes it, in the reader's words.
    pub command: String,
}

/// The page of a one-click unsubscribe link, in `lang`: the button that
/// uses it (a form posting to the link itself), or what using it did.
pub fn unsubscribe(
    site: Site<'_>,
    lang: Lang,
    page: &UnsubscribePage,
) -> Result<String, RenderError> {
    let code = format!(
        "<code>{}</code>",
        crate::domain::html::escape(&page.command)
    );
    render(
        "unsubscribe.html",
        context! {
            state => page.state, list => page.list, name => &page.name,
            date => &page.date, command => Value::from_safe_string(code),
            action => site.path,
            ..around(site, lang, false)
        },
    )
}

/// A short page for a refused request, in `lang`: 404 says only "not
/// found", never whether the number exists.
pub fn error(site: Site<'_>, lang: Lang, status: u16) -> String {
    let status = match status {
        400 | 404 | 405 => status,
        _ => 500,
    };
    render(
        "error.html",
        context! { status, ..around(site, lang, false) },
    )
    // The error page must not fail in turn: a bare text then.
    .unwrap_or_else(|_| format!("{status}"))
}
