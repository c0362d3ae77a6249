//! What the web pages of `dopis web` show, read from the store: the index
//! of public events, an event (standings, crosstable, pairings, a team
//! event's board tables), a game (board, moves with their times, clocks),
//! a player's own games, and the PGN downloads. The web layer renders
//! these plain records; every rule of who may see what is here.
//!
//! Who may see what (see [`Visibility`]):
//!
//! - A public event, and each of its games, is open to anyone by number
//!   (`/events/7`, `/games/42`) and listed on the index.
//! - An unlisted event is open to anyone with its link, whose number
//!   carries an HMAC of the server secret (`/events/7.TOKEN`, and its games
//!   `/games/42.TOKEN`); numbers are counted up, so a bare number would
//!   hand every unlisted event to whoever counts.
//! - A private event, and every game outside events, is open only to
//!   players, through their private links: a game to its two players and
//!   to the players of its event; an event to its entrants.
//!
//! Anything not open to a viewer is `None`, exactly as a thing that does
//! not exist: a page never says whether a number is in use.
//!
//! Numbers are the same as `dopis event standings` prints: the crosstable
//! comes from [`td::standings`] and the board tables from
//! [`td::board_tables`]. Reads take no locks: a page is a snapshot.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use shakmaty::{Color, Position};

use crate::adapter::mail::route::Tokens;
use crate::adapter::store::games::{GameRecord, GameStatus};
use crate::adapter::store::{Store, StoreError, Tx};
use crate::domain::chess::diagram::Diagram;
use crate::domain::chess::game::Game;
use crate::domain::chess::notation::{self, Notation};
use crate::domain::event::boards::BoardTable;
use crate::domain::event::crosstable::Crosstable;
use crate::domain::event::{EventStatus, Visibility};
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;
use crate::domain::locale::{self, Reader};
use crate::domain::player::Player;
use crate::service::event_settings::EventSettings;
use crate::service::loaded_game;
use crate::service::post::Post;
use crate::service::td::{self, StoredEvent, TdError};

/// The public paths of pages (kept with the private links, which the
/// mails use too).
pub use crate::service::links::{event_path, game_path};

/// Who is looking at a page.
#[derive(Debug, Clone, Copy)]
pub enum Viewer<'a> {
    /// Anyone, with the token the address carried after the number, if any.
    Anyone {
        /// `TOKEN` of `/events/7.TOKEN`.
        token: Option<&'a str>,
    },
    /// A player who followed their private link.
    Player(&'a Player),
}

/// An event as the index lists it.
#[derive(Debug, Clone, Serialize)]
pub struct EventSummary {
    /// Its number.
    pub id: EventId,
    /// Its name.
    pub name: String,
    /// `round-robin`, `olympiad`, `team-match` or `consultation`.
    pub kind: String,
    /// Open (entrants still come) or started.
    pub status: EventStatus,
    /// When its games started.
    pub started_at: Option<DateTime<Utc>>,
    /// Its entries by mail, while they are taken.
    pub entries: Option<EntriesInfo>,
}

/// An event's entries by mail as the pages show them: the rules, how many
/// have entered and the names of those who have (never an address, and
/// never an entry still waiting for its confirmation, withdrawn or
/// refused).
#[derive(Debug, Clone, Serialize)]
pub struct EntriesInfo {
    /// Whether entries are taken now; `false` once they closed with too
    /// few entrants (the event then never started).
    pub open: bool,
    /// From when entries are taken, if not at once.
    pub opens: Option<String>,
    /// Whether entries open later (`opens` is still ahead).
    pub not_yet: bool,
    /// When entries close, in the viewer's words and time zone.
    pub closes: String,
    /// How many have entered: confirmed entries and the players the
    /// event file names.
    pub entered: u32,
    /// The fewest the event starts with.
    pub min: u32,
    /// The most it takes.
    pub max: u32,
    /// Whether it starts as soon as `max` have entered.
    pub start_when_full: bool,
    /// Whether anyone may enter (else registered players only).
    pub anyone: bool,
    /// The rating an entrant needs at least.
    pub rating_min: Option<i32>,
    /// The rating an entrant may have at most.
    pub rating_max: Option<i32>,
    /// Whether only invited addresses may enter (the list is not shown).
    pub invited_only: bool,
    /// An open class: a section of this many starts each time they wait.
    pub section_size: Option<u32>,
    /// An open class's rating bands by their lower edges (`[1800,
    /// 2200]`: below 1800, 1800 to 2199, 2200 and up); empty for one band.
    pub section_bands: Vec<i32>,
    /// What a section earns, when the class promotes.
    pub promotes: Option<crate::domain::event::entries::Promotion>,
    /// The qualification an entrant needs, when the event requires one.
    pub requires: Option<String>,
    /// The names of those who have entered (in an open class: who wait
    /// for a section), in the order they did.
    pub entrants: Vec<String>,
}

/// One game of an event's pairings.
#[derive(Debug, Clone, Serialize)]
pub struct Pairing {
    /// Round, from 1.
    pub round: u32,
    /// Board, from 1.
    pub board: u32,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// White's team (team events).
    pub white_team: Option<String>,
    /// Black's team (team events).
    pub black_team: Option<String>,
    /// The game, once started.
    pub game: Option<GameId>,
    /// `1-0`, `0-1`, `1/2-1/2`, `annulled`, or empty while being played.
    pub result: String,
    /// Who sits out the round, if anyone.
    pub bye: Option<String>,
}

/// An event's page.
#[derive(Debug, Clone)]
pub struct EventPage {
    /// The language its words are in, for this reader.
    pub lang: Lang,
    /// Its number.
    pub id: EventId,
    /// Its name.
    pub name: String,
    /// `round-robin`, `olympiad`, `team-match` or `consultation`.
    pub kind: String,
    /// Who may see it: links to its games follow it.
    pub visibility: Visibility,
    /// Open or started.
    pub status: EventStatus,
    /// When its games started.
    pub started_at: Option<DateTime<Utc>>,
    /// The time control in words.
    pub time_control: String,
    /// Whether every game is over (the table is final).
    pub over: bool,
    /// The crosstable (a team event's match table); none while entries
    /// are taken.
    pub crosstable: Option<Crosstable>,
    /// A team event's table per board (empty for a round robin).
    pub boards: Vec<BoardTable>,
    /// The games by round and board.
    pub pairings: Vec<Pairing>,
    /// Its entries by mail, while it has not started.
    pub entries: Option<EntriesInfo>,
    /// An open class's sections, or a staged event's groups then its
    /// final, in order; each is an event with its own page.
    pub parts: Vec<EventPart>,
    /// Whether `parts` are a staged event's stages (else an open class's
    /// sections).
    pub staged: bool,
    /// The open class or staged event this one is a part of.
    pub part_of: Option<EventPart>,
}

/// A part of an event as its page links it: an open class's section, a
/// staged event's group or final, or the event a part belongs to.
#[derive(Debug, Clone, Serialize)]
pub struct EventPart {
    /// Its number.
    pub id: EventId,
    /// Its name (`Open 12/3`, `Cup, group 2`, `Cup final`).
    pub name: String,
    /// Who may see it: its link follows it.
    pub visibility: Visibility,
    /// `waiting` (not started), `playing` or `finished`.
    pub state: &'static str,
}

/// An event part's line.
async fn event_part(tx: &mut Tx, id: EventId) -> Result<EventPart, StoreError> {
    let record = tx.event(id).await?;
    let games = tx.event_games(id).await?;
    let state = if record.status == EventStatus::Open {
        "waiting"
    } else if !games.is_empty()
        && games
            .iter()
            .all(|g| g.game.status == crate::adapter::store::games::GameStatus::Finished)
    {
        "finished"
    } else {
        "playing"
    };
    Ok(EventPart {
        id,
        name: record.name,
        visibility: record.visibility,
        state,
    })
}

/// One row of a game's move list: a move number and both half-moves.
#[derive(Debug, Clone, Serialize)]
pub struct MoveRow {
    /// The move number.
    pub number: u32,
    /// White's move, if played (or `…` when the game started with Black).
    pub white: Option<PlayedMove>,
    /// Black's move, if played.
    pub black: Option<PlayedMove>,
}

/// A half-move and when it arrived.
#[derive(Debug, Clone, Serialize)]
pub struct PlayedMove {
    /// SAN in the reader's piece letters, or with figurines.
    pub san: String,
    /// When it reached the server, in the viewer's time zone.
    pub arrived: Option<String>,
    /// In a consultation game, the votes that chose it (`f3 2 (Cy Cole,
    /// Ann Archer), e4 1 (Bob Bizjak)`): shown once the move is made,
    /// never while a side still votes.
    pub votes: Option<String>,
}

/// A game's page.
#[derive(Debug, Clone)]
pub struct GamePage {
    /// The language its words and piece letters are in, for this reader.
    pub lang: Lang,
    /// Whether its moves show figurines instead of letters.
    pub figurines: bool,
    /// Its number.
    pub id: GameId,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// White's rating for the game.
    pub white_rating: Option<i32>,
    /// Black's rating for the game.
    pub black_rating: Option<i32>,
    /// Its event: number, name and visibility, round and board.
    pub event: Option<(EventId, String, Visibility, u32, u32)>,
    /// The position's FEN.
    pub fen: String,
    /// The board as an SVG document.
    pub svg: String,
    /// The moves, by move number.
    pub moves: Vec<MoveRow>,
    /// The moves in order as one line (`1. e4 e5 2. Sf3`), the board's
    /// text beside its FEN.
    pub moves_text: String,
    /// Whose move it is, while being played.
    pub to_move: Option<Color>,
    /// `1-0`, `0-1`, `1/2-1/2` once over.
    pub result: Option<String>,
    /// How it ended.
    pub end_reason: Option<String>,
    /// The time control in words.
    pub time_control: String,
    /// Both clocks in words.
    pub clocks: Option<String>,
    /// The side to move's deadline, in the viewer's zone.
    pub deadline: Option<String>,
    /// The side with a standing draw offer.
    pub draw_offer_by: Option<Color>,
    /// The viewer's colour, when a player of the game looks.
    pub side: Option<Color>,
    /// Where the viewer sends their moves for this game (their own reply
    /// address, as their mails give it); only while the game runs.
    pub reply_address: Option<String>,
    /// The viewer's own conditional moves, as they write them.
    pub conditionals: Vec<String>,
    /// What the endgame tables say of the position while the game runs
    /// (none outside the tables, or without tables).
    pub tables: Option<TablesSay>,
}

/// What the endgame tables say of a running game's position, for the
/// page's words.
#[derive(Debug, Clone, Serialize)]
pub struct TablesSay {
    /// The material, e.g. `KRvK`.
    pub material: String,
    /// The distance to zeroing in half-moves, when the tables give one.
    pub dtz: Option<u32>,
    /// `iccf` or `fifty-move`: the event's rule.
    pub rule: &'static str,
    /// `white`, `black`, `draw`, or `open` where the 50-move rule leaves
    /// it open.
    pub result: &'static str,
    /// The command that claims it, in the reader's language.
    pub claim: &'static str,
}

/// A line of a player's page: one of their games.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerGame {
    /// The game.
    pub id: GameId,
    /// The player's colour: `white` or `black`.
    pub colour: &'static str,
    /// The opponent's name.
    pub opponent: String,
    /// The event's name, if any.
    pub event: Option<String>,
    /// The move being played now.
    pub move_number: u32,
    /// Whether it is the player's move.
    pub your_move: bool,
    /// The side to move's deadline, in the player's zone.
    pub deadline: Option<String>,
    /// The result, once over.
    pub result: Option<String>,
}

/// A player's own page.
#[derive(Debug, Clone)]
pub struct PlayerPage {
    /// The player's name.
    pub name: String,
    /// The language of their mails, used for their pages' words.
    pub lang: Lang,
    /// Their games: those being played first, then finished ones.
    pub games: Vec<PlayerGame>,
    /// The events they play in: number, name, visibility.
    pub events: Vec<(EventId, String, Visibility)>,
}

/// `Ok(None)` for a number that names nothing: the page says "not found".
fn missing<T>(r: Result<T, StoreError>) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(StoreError::UnknownEvent(_) | StoreError::UnknownGame(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether anyone with `token` may open a thing of `kind` and `id` in an
/// event of `visibility`.
fn open_to_anyone(
    tokens: &Tokens,
    visibility: Visibility,
    kind: &str,
    id: i64,
    token: Option<&str>,
) -> bool {
    match visibility {
        Visibility::Public => true,
        Visibility::Unlisted => token.is_some_and(|t| tokens.page(kind, id).matches(t)),
        Visibility::Private => false,
    }
}

/// The public events, newest first; those open for entries say so (their
/// closing time in `lang`'s words).
pub async fn index(
    store: &Store,
    lang: Lang,
    now: DateTime<Utc>,
) -> Result<Vec<EventSummary>, StoreError> {
    let mut tx = store.begin().await?;
    let taking = tx.events_taking_entries().await?;
    let mut list = Vec::new();
    for e in td::events(&mut tx).await? {
        if e.visibility != Visibility::Public {
            continue;
        }
        let entries = if taking.contains(&e.id) {
            match StoredEvent::load(&mut tx, e.id).await {
                Ok(ev) => entries_info(&mut tx, &ev, true, None, lang, now).await?,
                Err(TdError::Store(err)) => return Err(err),
                Err(_) => None,
            }
        } else {
            None
        };
        list.push(EventSummary {
            id: e.id,
            name: e.name,
            kind: e.kind,
            status: e.status,
            started_at: e.started_at,
            entries,
        });
    }
    tx.commit().await?;
    list.reverse();
    Ok(list)
}

/// An event's entries by mail, if it took them and has not started:
/// `taking` says whether they are still open (else they closed with too
/// few). Times are in `tz` (UTC without one) and `lang`'s words.
async fn entries_info(
    tx: &mut Tx,
    ev: &StoredEvent,
    taking: bool,
    tz: Option<Tz>,
    lang: Lang,
    now: DateTime<Utc>,
) -> Result<Option<EntriesInfo>, StoreError> {
    let Some(rules) = &ev.event.entries else {
        return Ok(None);
    };
    if ev.record.status != EventStatus::Open
        || (!taking && !tx.entries_of_event_closed(ev.record.id).await?)
    {
        return Ok(None);
    }
    // The players the file names first (they are in from the start), then
    // the confirmed entries in the order they came.
    let mut entrants: Vec<String> = ev
        .entrants
        .iter()
        .filter(|e| e.seat.is_some())
        .map(|e| e.player.name.clone())
        .collect();
    entrants.extend(
        tx.entries(ev.record.id)
            .await?
            .into_iter()
            .filter(|e| e.status == crate::domain::event::entries::EntryStatus::Confirmed)
            .map(|e| e.name),
    );
    Ok(Some(EntriesInfo {
        open: taking,
        opens: rules.opens.map(|o| locale::describe_deadline(o, tz, lang)),
        not_yet: rules.opens.is_some_and(|o| now < o),
        closes: locale::describe_deadline(rules.closes, tz, lang),
        entered: u32::try_from(entrants.len()).unwrap_or(u32::MAX),
        min: rules.min,
        max: rules.max,
        start_when_full: rules.start_when_full,
        anyone: rules.open_to == crate::domain::event::entries::OpenTo::Anyone,
        rating_min: rules.rating_min,
        rating_max: rules.rating_max,
        invited_only: !rules.invited.is_empty(),
        section_size: rules.section_size,
        section_bands: rules.section_bands.clone(),
        promotes: rules.promotes.clone(),
        requires: rules.requires.clone(),
        entrants,
    }))
}

/// An event the viewer may see, loaded; `None` otherwise.
pub(crate) async fn event_for(
    tx: &mut Tx,
    tokens: &Tokens,
    id: EventId,
    viewer: Viewer<'_>,
) -> Result<Option<StoredEvent>, TdError> {
    let ev = match StoredEvent::load(tx, id).await {
        Ok(ev) => ev,
        Err(TdError::Store(StoreError::UnknownEvent(_))) => return Ok(None),
        Err(e) => return Err(e),
    };
    let open = match viewer {
        Viewer::Anyone { token } => {
            open_to_anyone(tokens, ev.record.visibility, "event", id.0, token)
        }
        Viewer::Player(p) => {
            ev.record.visibility == Visibility::Public
                || ev.entrants.iter().any(|e| e.player.id == p.id)
        }
    };
    Ok(open.then_some(ev))
}

/// The reader's time zone and the language of a page for them: a
/// player's own, else what the reader asked for, else `fallback` (the
/// event's).
fn reading(viewer: Viewer<'_>, reader: &Reader, fallback: Option<Lang>) -> (Option<Tz>, Lang) {
    match viewer {
        Viewer::Player(p) => (p.tz, reader.page_lang(Some(p.lang), fallback)),
        Viewer::Anyone { .. } => (None, reader.page_lang(None, fallback)),
    }
}

/// An event's page, if the viewer may see it, in the language `reader`
/// and the event settle on.
pub async fn event(
    store: &Store,
    tokens: &Tokens,
    id: EventId,
    viewer: Viewer<'_>,
    reader: &Reader,
    now: DateTime<Utc>,
) -> Result<Option<EventPage>, TdError> {
    let mut tx = store.begin().await?;
    let Some(ev) = event_for(&mut tx, tokens, id, viewer).await? else {
        return Ok(None);
    };
    let (tz, lang) = reading(viewer, reader, ev.event.lang);
    let taking = tx.events_taking_entries().await?.contains(&id);
    let entries = entries_info(&mut tx, &ev, taking, tz, lang, now).await?;
    let mut parts = Vec::new();
    for part in tx.sections_of(id).await? {
        parts.push(event_part(&mut tx, part).await?);
    }
    let part_of = match tx.parent_of(id).await? {
        Some(parent) => Some(event_part(&mut tx, parent).await?),
        None => None,
    };
    // A staged event's games are its groups' and its final's, an open
    // class's its sections': their own table would list every player with
    // no game, and their pairings would be no one's.
    let staged = ev.event.stages.is_some();
    let in_parts = staged
        || ev
            .event
            .entries
            .as_ref()
            .is_some_and(|e| e.section_size.is_some());
    // While entries come, who plays whom is not known yet (the entrants
    // are seeded when entries close): no table and no pairings.
    let crosstable = match entries {
        Some(_) => None,
        None if in_parts => None,
        None => Some(td::standings(&mut tx, &ev).await?.crosstable),
    };
    let boards = if ev.is_team_event() {
        let name = ev.event.name.clone();
        td::board_tables(&mut tx, &ev, |b| format!("{name}, board {b}")).await?
    } else {
        Vec::new()
    };
    let started = ev.record.status == EventStatus::Started;
    let paired = if started {
        td::started_pairings(&mut tx, &ev).await?
    } else if entries.is_some() || in_parts {
        Vec::new()
    } else {
        td::pairings(&ev)?
    };
    // A Swiss event between rounds is not over: its next round comes.
    let rounds_left = !td::all_rounds_paired(&mut tx, &ev).await?;
    tx.commit().await?;
    let over = started
        && !rounds_left
        && !paired.is_empty()
        && paired
            .iter()
            .all(|p| p.status.as_deref().is_some_and(|s| s != "active"));
    let pairings = paired
        .into_iter()
        .map(|p| Pairing {
            round: p.round,
            board: p.board,
            white: p.white.name,
            black: p.black.name,
            white_team: p.white_team,
            black_team: p.black_team,
            game: p.game,
            result: p.status.filter(|s| s != "active").unwrap_or_default(),
            bye: p.bye,
        })
        .collect();
    Ok(Some(EventPage {
        lang,
        id,
        name: ev.event.name.clone(),
        kind: ev.record.kind.clone(),
        visibility: ev.record.visibility,
        status: ev.record.status,
        started_at: ev.record.started_at,
        time_control: locale::describe_control(&ev.event.time_control, lang),
        over,
        crosstable,
        boards,
        pairings,
        entries,
        parts,
        staged,
        part_of,
    }))
}

/// Every game of an event as one PGN file (as `dopis event pgn`), if the
/// viewer may see the event and it has started.
pub async fn event_pgn(
    store: &Store,
    tokens: &Tokens,
    id: EventId,
    viewer: Viewer<'_>,
    site: &str,
) -> Result<Option<String>, TdError> {
    let mut tx = store.begin().await?;
    let Some(ev) = event_for(&mut tx, tokens, id, viewer).await? else {
        return Ok(None);
    };
    if ev.record.status != EventStatus::Started {
        return Ok(None);
    }
    let text = td::event_pgn(&mut tx, &ev, site).await?;
    tx.commit().await?;
    Ok(Some(text))
}

/// A game the viewer may see, read without locks, with its event
/// (number, name, visibility, round, board); `None` otherwise.
async fn game_for(
    tx: &mut Tx,
    tokens: &Tokens,
    id: GameId,
    viewer: Viewer<'_>,
) -> Result<Option<(GameRecord, Option<(EventId, String, Visibility, u32, u32)>)>, TdError> {
    let Some(record) = missing(tx.game_to_read(id).await)? else {
        return Ok(None);
    };
    let event = match tx.event_of_game(id).await? {
        Some(e) => {
            let ev = tx.event(e).await?;
            let (round, board) = tx
                .event_games(e)
                .await?
                .iter()
                .find(|g| g.game.id == id)
                .map_or((0, 0), |g| (g.round, g.board));
            Some((e, ev.name, ev.visibility, round, board))
        }
        None => None,
    };
    let open = match viewer {
        Viewer::Anyone { token } => event
            .as_ref()
            .is_some_and(|(_, _, v, _, _)| open_to_anyone(tokens, *v, "game", id.0, token)),
        Viewer::Player(p) => {
            record.side_of(p.id).is_some()
                || match &event {
                    Some((e, _, v, _, _)) => {
                        *v == Visibility::Public
                            || tx.entrants(*e).await?.iter().any(|n| n.player.id == p.id)
                    }
                    None => false,
                }
        }
    };
    Ok(open.then_some((record, event)))
}

/// The FEN of a position.
pub fn fen(pos: &shakmaty::Chess) -> String {
    shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string()
}

/// The moves of a game by move number, each in `notation` with when it
/// arrived (in `tz`, dates as `lang` writes them), and the same moves in
/// order as one line (`1. e4 e5 2. Sf3`).
fn move_rows(
    game: &Game,
    tz: Option<Tz>,
    lang: Lang,
    notation: Notation,
    votes: &[crate::domain::chess::pgn::Remark],
) -> (Vec<MoveRow>, String) {
    let mut rows: Vec<MoveRow> = Vec::new();
    let mut line: Vec<String> = Vec::new();
    let Ok(mut pos) = game.start().to_position() else {
        return (rows, String::new());
    };
    let mode = game.castling_mode();
    for (at, (mv, ply)) in game.moves().iter().zip(game.plies()).enumerate() {
        let (turn, number) = (pos.turn(), pos.fullmoves().get());
        let san = notation::render(&pos, mv, notation, mode);
        line.push(match turn {
            Color::White => format!("{number}. {san}"),
            Color::Black if line.is_empty() => format!("{number}... {san}"),
            Color::Black => san.clone(),
        });
        let played = PlayedMove {
            san,
            arrived: ply
                .received_at
                .map(|t| locale::describe_moment(t, tz, lang)),
            votes: votes
                .iter()
                .find(|r| r.after == at + 1)
                .map(|r| r.text.strip_prefix("votes: ").unwrap_or(&r.text).to_owned()),
        };
        match turn {
            Color::White => rows.push(MoveRow {
                number,
                white: Some(played),
                black: None,
            }),
            Color::Black => match rows.last_mut() {
                Some(row) if row.number == number && row.black.is_none() => {
                    row.black = Some(played);
                }
                _ => rows.push(MoveRow {
                    number,
                    white: None,
                    black: Some(played),
                }),
            },
        }
        pos = match pos.play(*mv) {
            Ok(next) => next,
            // A Game holds legal moves only; stop rather than show nonsense.
            Err(_) => break,
        };
    }
    (rows, line.join(" "))
}

/// A game's page, if the viewer may see it, in the language `reader`
/// and the game's event settle on.
pub async fn game(
    store: &Store,
    post: &Post,
    tables: &dyn crate::domain::chess::tablebase::Tables,
    id: GameId,
    viewer: Viewer<'_>,
    reader: &Reader,
    now: DateTime<Utc>,
) -> Result<Option<GamePage>, TdError> {
    let mut tx = store.begin().await?;
    let Some((record, event)) = game_for(&mut tx, &post.tokens, id, viewer).await? else {
        return Ok(None);
    };
    let me = match viewer {
        Viewer::Player(p) => record.side_of(p.id).map(|side| (p, side)),
        Viewer::Anyone { .. } => None,
    };
    let (rule, event_lang) = match record.event {
        Some(event) => {
            let settings = EventSettings::read(&mut tx, event).await?;
            (settings.tablebase.rule, settings.page_lang())
        }
        None => (
            crate::domain::chess::tablebase::TablebaseRule::default(),
            None,
        ),
    };
    let table = loaded_game::load_around(&mut tx, record, false).await?;
    tx.commit().await?;
    let (tz, lang) = reading(viewer, reader, event_lang);
    let notation = if reader.figurines {
        Notation::Figurine
    } else {
        Notation::San(lang)
    };
    let over = table.game.is_over();
    let clocks = table.clock.as_ref().map(|c| {
        if over {
            c.final_clocks(table.record.finished_at.unwrap_or(now))
        } else {
            c.clocks(now)
        }
    });
    let deadline = clocks
        .as_ref()
        .filter(|_| !over)
        .and_then(|c| c.players.get(c.to_move).next_deadline)
        .map(|d| locale::describe_deadline(d, tz, lang));
    let position = table.game.position();
    let seen_by = me.map_or(Color::White, |(_, side)| side);
    let diagram = Diagram::new(position, table.game.last_move()).seen_by(seen_by);
    let running = table.record.status == GameStatus::Active && !over;
    let (reply_address, conditionals) = match me {
        Some((p, side)) => (
            running.then(|| post.reply_to(id, p).to_string()),
            table
                .record
                .conditionals
                .of(side)
                .iter()
                .map(|line| crate::domain::arbiter::show_line(&table.game, line, lang))
                .collect(),
        ),
        None => (None, Vec::new()),
    };
    let (moves, moves_text) = move_rows(&table.game, tz, lang, notation, &table.vote_remarks);
    let end_reason = crate::adapter::mail::compose::outcome_words(
        &table.game,
        &table.white.name,
        &table.black.name,
        lang,
    )
    .or_else(|| table.record.end_reason.clone());
    Ok(Some(GamePage {
        lang,
        figurines: reader.figurines,
        id,
        white: table.white.name.clone(),
        black: table.black.name.clone(),
        white_rating: table.ratings[0],
        black_rating: table.ratings[1],
        event,
        fen: fen(position),
        svg: diagram.to_svg(),
        moves,
        moves_text,
        to_move: running.then(|| table.game.turn()),
        result: table.record.result.clone(),
        end_reason,
        time_control: locale::describe_control(&table.record.time_control, lang),
        clocks: clocks.map(|c| {
            locale::describe_clocks(&c, table.record.time_control, lang).replace('\n', " ")
        }),
        deadline,
        draw_offer_by: table.draw_offer_by.filter(|_| running),
        side: me.map(|(_, side)| side),
        reply_address,
        conditionals,
        tables: running
            .then(|| tables_say(tables, &table.game, rule, lang))
            .flatten(),
    }))
}

/// What the tables say of a running game's position: the verdict by the
/// event's rule and the command (in `lang`) that claims it.
fn tables_say(
    tables: &dyn crate::domain::chess::tablebase::Tables,
    game: &crate::domain::chess::game::Game,
    rule: crate::domain::chess::tablebase::TablebaseRule,
    lang: Lang,
) -> Option<TablesSay> {
    use crate::domain::chess::outcome::GameResult;
    use crate::domain::chess::tablebase::TablebaseRule;
    if rule == TablebaseRule::None {
        return None;
    }
    let reading = tables.read(game.position()).ok()?;
    let result = reading.result(rule);
    Some(TablesSay {
        material: reading.material.clone(),
        dtz: reading.dtz.map(|d| d.plies.unsigned_abs()),
        rule: match rule {
            TablebaseRule::FiftyMove => "fifty-move",
            _ => "iccf",
        },
        result: match result {
            Some(GameResult::Draw) => "draw",
            Some(GameResult::WhiteWins) => "white",
            Some(GameResult::BlackWins) => "black",
            None => "open",
        },
        claim: crate::domain::command::claim_words(
            lang,
            matches!(result, Some(GameResult::WhiteWins | GameResult::BlackWins)),
        ),
    })
}

/// A game's PGN, if the viewer may see it: with the players' messages for
/// its own players, without them for anyone else.
pub async fn game_pgn(
    store: &Store,
    tokens: &Tokens,
    id: GameId,
    viewer: Viewer<'_>,
) -> Result<Option<String>, TdError> {
    let mut tx = store.begin().await?;
    let Some((record, _)) = game_for(&mut tx, tokens, id, viewer).await? else {
        return Ok(None);
    };
    let plays = match viewer {
        Viewer::Player(p) => record.side_of(p.id).is_some(),
        Viewer::Anyone { .. } => false,
    };
    let table = loaded_game::load_around(&mut tx, record, plays).await?;
    tx.commit().await?;
    Ok(Some(table.pgn()))
}

/// A player's own page: their games (being played first, longest number
/// last) and their events, in their language unless `reader` picked
/// another.
pub async fn player(
    store: &Store,
    player: &Player,
    reader: &Reader,
    now: DateTime<Utc>,
) -> Result<PlayerPage, TdError> {
    let lang = reader.page_lang(Some(player.lang), None);
    let mut tx = store.begin().await?;
    let mut games = Vec::new();
    let mut events: Vec<(EventId, String, Visibility)> = Vec::new();
    for id in tx.games_of(player.id).await? {
        let record = tx.game_to_read(id).await?;
        let Some(side) = record.side_of(player.id) else {
            continue;
        };
        let event = match tx.event_of_game(id).await? {
            Some(e) => {
                let ev = tx.event(e).await?;
                if !events.iter().any(|(n, _, _)| *n == e) {
                    events.push((e, ev.name.clone(), ev.visibility));
                }
                Some(ev.name)
            }
            None => None,
        };
        let table = loaded_game::load_around(&mut tx, record, false).await?;
        let over = table.game.is_over() || table.record.status == GameStatus::Finished;
        let clocks = table.clock.as_ref().map(|c| c.clocks(now));
        games.push(PlayerGame {
            id,
            colour: crate::domain::chess::side::key(side),
            opponent: table.player(side.other()).name.clone(),
            event,
            move_number: table.game.position().fullmoves().get(),
            your_move: !over && table.game.turn() == side,
            deadline: clocks
                .filter(|_| !over)
                .and_then(|c| c.players.get(c.to_move).next_deadline)
                .map(|d| locale::describe_deadline(d, player.tz, lang)),
            result: over.then(|| table.record.result.clone().unwrap_or_default()),
        });
    }
    tx.commit().await?;
    // Being played first, the player's move first among them; then by number.
    games.sort_by_key(|g| (g.result.is_some(), !g.your_move, g.id.0));
    events.sort_by_key(|(e, _, _)| e.0);
    Ok(PlayerPage {
        name: player.name.clone(),
        lang,
        games,
        events,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::links::{event_path, game_path};

    #[test]
    fn an_unlisted_page_opens_only_with_its_own_token() {
        let tokens = Tokens::new("secret");
        let right = tokens.page("event", 7);
        let open = |v: Visibility, t: Option<&str>| open_to_anyone(&tokens, v, "event", 7, t);
        assert!(open(Visibility::Unlisted, Some(right.as_str())));
        assert!(!open(Visibility::Unlisted, None));
        assert!(!open(Visibility::Unlisted, Some("aaaaaaaaaa")));
        // The token of another event, or of the game with the same number.
        assert!(!open(
            Visibility::Unlisted,
            Some(tokens.page("event", 8).as_str())
        ));
        assert!(!open(
            Visibility::Unlisted,
            Some(tokens.page("game", 7).as_str())
        ));
        assert!(open(Visibility::Public, None));
        assert!(!open(Visibility::Private, Some(right.as_str())));
        assert_eq!(
            event_path(&tokens, EventId(7), Visibility::Unlisted),
            format!("/events/7.{}", right.as_str())
        );
        assert_eq!(
            event_path(&tokens, EventId(7), Visibility::Public),
            "/events/7"
        );
        assert_eq!(
            game_path(&tokens, GameId(7), Some(Visibility::Private)),
            None
        );
        assert_eq!(game_path(&tokens, GameId(7), None), None);
    }

    #[test]
    fn moves_are_listed_by_move_number_with_their_arrival() {
        let game = Game::replay(
            crate::domain::chess::game::StartPosition::Standard,
            &["e2e4", "e7e5", "g1f3"],
        )
        .expect("legal");
        let (rows, line) = move_rows(&game, None, Lang::En, Notation::San(Lang::En), &[]);
        assert_eq!(line, "1. e4 e5 2. Nf3");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].number, 1);
        assert_eq!(rows[0].white.as_ref().map(|m| m.san.as_str()), Some("e4"));
        assert_eq!(rows[0].black.as_ref().map(|m| m.san.as_str()), Some("e5"));
        assert_eq!(rows[1].white.as_ref().map(|m| m.san.as_str()), Some("Nf3"));
        assert!(rows[1].black.is_none());
    }

    #[test]
    fn a_game_from_a_position_with_black_to_move_starts_with_an_empty_white_half() {
        let start = crate::domain::chess::game::StartPosition::fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        )
        .expect("fen");
        let game = Game::replay(start, &["e7e5", "g1f3"]).expect("legal");
        let (rows, line) = move_rows(&game, None, Lang::En, Notation::San(Lang::En), &[]);
        assert_eq!(line, "1... e5 2. Nf3");
        assert_eq!(rows[0].number, 1);
        assert!(rows[0].white.is_none());
        assert_eq!(rows[1].number, 2);
        assert_eq!(rows[1].white.as_ref().map(|m| m.san.as_str()), Some("Nf3"));
    }

    #[test]
    fn moves_are_written_in_the_readers_letters_or_with_figurines() {
        let game = Game::replay(
            crate::domain::chess::game::StartPosition::Standard,
            &["g1f3", "g8f6", "b1c3"],
        )
        .expect("legal");
        for (notation, want) in [
            (Notation::San(Lang::Sl), "1. Sf3 Sf6 2. Sc3"),
            (Notation::San(Lang::De), "1. Sf3 Sf6 2. Sc3"),
            (Notation::San(Lang::Pl), "1. Sf3 Sf6 2. Sc3"),
            (Notation::San(Lang::Lv), "1. Zf3 Zf6 2. Zc3"),
            (Notation::Figurine, "1. ♘f3 ♘f6 2. ♘c3"),
        ] {
            let (rows, line) = move_rows(&game, None, Lang::Sl, notation, &[]);
            assert_eq!(line, want, "{notation:?}");
            let first = rows[0].white.as_ref().map(|m| m.san.clone());
            assert_eq!(first.as_deref(), want.split(' ').nth(1), "{notation:?}");
        }
    }
}
