//! Events made real: an event file becomes stored rows, an event starts all
//! its games at once with their first mails, stored games become standings
//! and crosstables, and the tournament director's tools (set a result,
//! withdraw, replace, extend a deadline) change games, log who did what and
//! why, and tell the players — each in one transaction.
//!
//! The pairing, scoring and ranking rules are the pure [`event`](crate::event)
//! module's; this module maps stored seats to its indices and back.
//!
//! A seat is a starting number (round robin) or a board of a team. A
//! substitute takes over a seat: the game rows switch player, so the
//! standings keep the seat's line under the holder's name. A withdrawal
//! closes the player's unfinished games (no more moves) and marks them, so
//! the standings score them by the event's rule (forfeit or annulled)
//! whatever else happens later.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::address::EmailAddress;
use crate::chess::game::{EndReason, GameResult, Outcome, StartPosition};
use crate::chess::side;
use crate::clock::TimeControl;
use crate::event::berger::Cycles;
use crate::event::crosstable::{self, Crosstable};
use crate::event::file::{self, BadEventFile, Entrant, Event, EventKind, Pairings, Team};
use crate::event::olympiad::GamesPerPairing;
use crate::event::standings::{self, Counted};
use crate::event::tiebreak::{TeamCriterion, TieBreak};
use crate::event::{Decision, GameState, Points, Scoring, WithdrawalRule};
use crate::ids::EventId;
use crate::ids::GameId;
use crate::mail::compose::{LetterKind, ReplacementRole};
use crate::player::{NewPlayer, Player, PlayerId};
use crate::service::post::{LoadedGame, Outgoing, Post};
use crate::store::StoreError;
use crate::store::Tx;
use crate::store::events::{EntrantRecord, EventRecord, EventStatus, TeamRecord};
use crate::store::games::{EventGame, GameRecord, GameStatus, NewGame};
use crate::store::td_log::{DeadlineExtension, NewTdAction};

/// Why a TD command was not carried out, by what the TD does next.
#[derive(Debug, thiserror::Error)]
pub enum TdError {
    /// The event file has problems (each with its line and key).
    #[error("the event file has problems:\n{0}")]
    BadFile(#[from] BadEventFile),
    /// The request does not fit the event or game as it stands.
    #[error("{0}")]
    Refused(String),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn refused<T>(text: impl Into<String>) -> Result<T, TdError> {
    Err(TdError::Refused(text.into()))
}

/// Everything of an event but its entrants, as stored in `events.settings`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Settings {
    time_control: String,
    leave_days: u32,
    win: f64,
    draw: f64,
    loss: f64,
    withdrawal: String,
    /// Tie-breaks (round robin) or the team ranking order, by key.
    tie_breaks: Vec<String>,
    #[serde(default)]
    cycles: u32,
    #[serde(default)]
    boards: u32,
    #[serde(default)]
    games_per_pairing: u32,
    /// The draw offer rules (absent in events stored before they existed).
    #[serde(default)]
    draws: crate::event::DrawPolicy,
    /// The analysis board link of the event's mails, as written (absent:
    /// the server's setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    analysis_link: Option<String>,
    /// Whether players may pass messages (absent: they may).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    messages: bool,
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}

fn rule_key(rule: WithdrawalRule) -> &'static str {
    match rule {
        WithdrawalRule::ForfeitAll => "forfeit-all",
        WithdrawalRule::AnnulIfUnderHalf => "annul-if-under-half",
    }
}

fn kind_key(kind: &EventKind) -> &'static str {
    match kind {
        EventKind::RoundRobin { .. } => "round-robin",
        EventKind::Olympiad { .. } => "olympiad",
        EventKind::TeamMatch { .. } => "team-match",
    }
}

fn points(p: f64) -> Points {
    Points::from_quarters((p * 4.0).round() as i64)
}

impl Settings {
    fn of(event: &Event) -> Settings {
        let (tie_breaks, cycles, boards, games_per_pairing) = match &event.kind {
            EventKind::RoundRobin {
                cycles, tie_breaks, ..
            } => (
                tie_breaks.iter().map(|t| t.key().to_string()).collect(),
                if *cycles == Cycles::Double { 2 } else { 1 },
                0,
                0,
            ),
            EventKind::Olympiad {
                games_per_pairing,
                boards,
                order,
                ..
            } => (
                order.iter().map(|t| t.key().to_string()).collect(),
                0,
                *boards,
                if *games_per_pairing == GamesPerPairing::Two {
                    2
                } else {
                    1
                },
            ),
            EventKind::TeamMatch { boards, order, .. } => (
                order.iter().map(|t| t.key().to_string()).collect(),
                0,
                *boards,
                2,
            ),
        };
        Settings {
            time_control: event.time_control.to_string(),
            leave_days: event.leave_days,
            win: event.scoring.win.as_f64(),
            draw: event.scoring.draw.as_f64(),
            loss: event.scoring.loss.as_f64(),
            withdrawal: rule_key(event.withdrawal).to_string(),
            tie_breaks,
            cycles,
            boards,
            games_per_pairing,
            draws: event.draws,
            analysis_link: event
                .analysis_link
                .as_ref()
                .map(|a| a.as_setting().to_owned()),
            messages: event.messages,
        }
    }
}

/// Whether a stored event lets its players pass messages to each other.
pub async fn messages_allowed(tx: &mut Tx, event: EventId) -> Result<bool, StoreError> {
    let record = tx.event(event).await?;
    let settings: Settings = serde_json::from_str(&record.settings)
        .map_err(|e| StoreError::Corrupt(format!("event {event} settings: {e}")))?;
    Ok(settings.messages)
}

/// The draw offer rules of a stored event.
pub async fn draw_policy(
    tx: &mut Tx,
    event: EventId,
) -> Result<crate::event::DrawPolicy, StoreError> {
    let record = tx.event(event).await?;
    let settings: Settings = serde_json::from_str(&record.settings)
        .map_err(|e| StoreError::Corrupt(format!("event {event} settings: {e}")))?;
    Ok(settings.draws)
}

fn stored_analysis_link(text: &str) -> Result<crate::chess::analysis::AnalysisLink, StoreError> {
    crate::chess::analysis::AnalysisLink::parse(text)
        .map_err(|e| StoreError::Corrupt(format!("event settings: analysis_link {e}")))
}

/// An event as stored, rebuilt as the pure [`Event`] with its seats.
#[derive(Debug, Clone)]
pub struct StoredEvent {
    /// The stored row.
    pub record: EventRecord,
    /// The event as the pure module sees it (entrants in seat order).
    pub event: Event,
    /// The TDs' addresses.
    pub tds: Vec<String>,
    /// The teams (team events).
    pub teams: Vec<TeamRecord>,
    /// Every entrant, reserves included.
    pub entrants: Vec<EntrantRecord>,
}

fn corrupt(what: impl std::fmt::Display) -> TdError {
    TdError::Store(StoreError::Corrupt(what.to_string()))
}

fn entrant_of(e: &EntrantRecord) -> Entrant {
    Entrant {
        email: e.player.email.clone(),
        name: e.player.name.clone(),
        lang: Some(e.player.lang),
    }
}

impl StoredEvent {
    /// Loads an event with everything that belongs to it.
    pub async fn load(tx: &mut Tx, id: EventId) -> Result<StoredEvent, TdError> {
        let record = tx.event(id).await?;
        let tds = tx.event_tds(id).await?;
        let teams = tx.teams(id).await?;
        let entrants = tx.entrants(id).await?;
        let s: Settings = serde_json::from_str(&record.settings)
            .map_err(|e| corrupt(format!("event {id} settings: {e}")))?;
        let time_control: TimeControl = s
            .time_control
            .parse()
            .map_err(|e| corrupt(format!("event {id}: {e}")))?;
        let withdrawal = match s.withdrawal.as_str() {
            "forfeit-all" => WithdrawalRule::ForfeitAll,
            _ => WithdrawalRule::AnnulIfUnderHalf,
        };
        let seated = |team: Option<u32>| -> Vec<Entrant> {
            entrants
                .iter()
                .filter(|e| e.team == team && e.seat.is_some())
                .map(entrant_of)
                .collect()
        };
        let team_list: Vec<Team> = teams
            .iter()
            .map(|t| Team {
                name: t.name.clone(),
                boards: seated(Some(t.number)),
                reserves: entrants
                    .iter()
                    .filter(|e| e.team == Some(t.number) && e.seat.is_none())
                    .map(entrant_of)
                    .collect(),
            })
            .collect();
        let order = || -> Vec<TeamCriterion> {
            s.tie_breaks.iter().filter_map(|t| t.parse().ok()).collect()
        };
        let kind = match record.kind.as_str() {
            "round-robin" => EventKind::RoundRobin {
                cycles: if s.cycles == 2 {
                    Cycles::Double
                } else {
                    Cycles::Single
                },
                players: seated(None),
                tie_breaks: s
                    .tie_breaks
                    .iter()
                    .filter_map(|t| t.parse::<TieBreak>().ok())
                    .collect(),
            },
            "olympiad" => EventKind::Olympiad {
                games_per_pairing: if s.games_per_pairing == 2 {
                    GamesPerPairing::Two
                } else {
                    GamesPerPairing::One
                },
                boards: s.boards,
                teams: team_list,
                order: order(),
            },
            "team-match" => EventKind::TeamMatch {
                boards: s.boards,
                teams: team_list,
                order: order(),
            },
            other => return Err(corrupt(format!("event {id}: unknown kind '{other}'"))),
        };
        let event = Event {
            name: record.name.clone(),
            kind,
            time_control,
            leave_days: s.leave_days,
            scoring: Scoring {
                win: points(s.win),
                draw: points(s.draw),
                loss: points(s.loss),
            },
            tds: tds
                .iter()
                .filter_map(|t| EmailAddress::parse(t).ok())
                .collect(),
            withdrawal,
            draws: s.draws,
            analysis_link: s
                .analysis_link
                .as_deref()
                .map(stored_analysis_link)
                .transpose()?,
            messages: s.messages,
        };
        Ok(StoredEvent {
            record,
            event,
            tds,
            teams,
            entrants,
        })
    }

    /// Whether this is a team event.
    pub fn is_team_event(&self) -> bool {
        !matches!(self.event.kind, EventKind::RoundRobin { .. })
    }

    /// The entrant holding a seat: `(team, seat)`; team `None` in a round robin.
    fn holder(&self, team: Option<u32>, seat: u32) -> Option<&EntrantRecord> {
        self.entrants
            .iter()
            .find(|e| e.team == team && e.seat == Some(seat))
    }

    /// The seated entrant a player is, if any.
    pub fn seat_of(&self, player: PlayerId) -> Option<&EntrantRecord> {
        self.entrants
            .iter()
            .find(|e| e.player.id == player && e.seat.is_some())
    }

    /// Whether an address is one of the event's TDs.
    pub fn is_td(&self, address: &EmailAddress) -> bool {
        self.tds.iter().any(|t| t == address.as_str())
    }

    fn check_td(&self, by: &EmailAddress) -> Result<(), TdError> {
        if self.is_td(by) {
            Ok(())
        } else {
            refused(format!(
                "{by} is not a TD of event {} (its TDs: {}); give one of them with --by",
                self.record.id,
                self.tds.join(", ")
            ))
        }
    }
}

/// Adds (or finds) a player named in an event file.
async fn player_for(tx: &mut Tx, e: &Entrant, now: DateTime<Utc>) -> Result<Player, TdError> {
    if let Some(p) = tx.player_by_email(e.email.as_str()).await? {
        return Ok(p);
    }
    let new = NewPlayer::new(
        e.email.clone(),
        &e.name,
        e.lang.unwrap_or_default(),
        None::<&str>,
    )
    .map_err(|err| TdError::Refused(format!("player {}: {err}", e.email)))?;
    Ok(tx.add_player(&new, now).await?)
}

/// Reads an event file and stores the event, open for more entrants;
/// players it names who are not registered yet are registered.
pub async fn create(tx: &mut Tx, text: &str, now: DateTime<Utc>) -> Result<EventId, TdError> {
    let event = file::parse(text)?;
    let settings = serde_json::to_string(&Settings::of(&event))
        .map_err(|e| corrupt(format!("event settings: {e}")))?;
    let tds: Vec<String> = event.tds.iter().map(|t| t.to_string()).collect();
    let id = tx
        .add_event(&event.name, kind_key(&event.kind), &settings, &tds, now)
        .await?;
    match &event.kind {
        EventKind::RoundRobin { players, .. } => {
            for (i, e) in players.iter().enumerate() {
                let p = player_for(tx, e, now).await?;
                tx.add_entrant(id, p.id, None, Some(i as u32 + 1)).await?;
            }
        }
        EventKind::Olympiad { teams, .. } | EventKind::TeamMatch { teams, .. } => {
            for (t, team) in teams.iter().enumerate() {
                let number = t as u32 + 1;
                tx.add_team(id, number, &team.name).await?;
                for (b, e) in team.boards.iter().enumerate() {
                    let p = player_for(tx, e, now).await?;
                    tx.add_entrant(id, p.id, Some(number), Some(b as u32 + 1))
                        .await?;
                }
                for e in &team.reserves {
                    let p = player_for(tx, e, now).await?;
                    tx.add_entrant(id, p.id, Some(number), None).await?;
                }
            }
        }
    }
    Ok(id)
}

fn check_open(ev: &StoredEvent) -> Result<(), TdError> {
    if ev.record.status != EventStatus::Open {
        return refused(format!(
            "event {} has started: entrants can only be added before `dopis event start`; \
             use `dopis event replace` to bring in a substitute",
            ev.record.id
        ));
    }
    Ok(())
}

async fn check_not_entered(tx: &mut Tx, event: EventId, player: &Player) -> Result<(), TdError> {
    if tx.events_of_player(player.id).await?.contains(&event) {
        return refused(format!(
            "{} is already in event {event}; each player plays once",
            player.email
        ));
    }
    Ok(())
}

/// Adds a player to an open round robin, with the next starting number.
pub async fn add_player(tx: &mut Tx, event: EventId, player: &Player) -> Result<u32, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    check_open(&ev)?;
    let EventKind::RoundRobin { players, .. } = &ev.event.kind else {
        return refused(format!(
            "event {event} is a team event: add a whole team with `dopis event add-team`"
        ));
    };
    if players.len() >= crate::event::berger::MAX_ENTRANTS {
        return refused(format!("event {event} is full"));
    }
    check_not_entered(tx, event, player).await?;
    let seat = players.len() as u32 + 1;
    tx.add_entrant(event, player.id, None, Some(seat)).await?;
    Ok(seat)
}

/// Adds a team (players by board, and reserves) to an open team event.
pub async fn add_team(
    tx: &mut Tx,
    event: EventId,
    name: &str,
    boards: &[Player],
    reserves: &[Player],
) -> Result<u32, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    check_open(&ev)?;
    let (want, teams) = match &ev.event.kind {
        EventKind::RoundRobin { .. } => {
            return refused(format!(
                "event {event} is a round robin: add players with `dopis event add-player`"
            ));
        }
        EventKind::TeamMatch { boards, teams, .. } if teams.len() >= 2 => {
            let _ = boards;
            return refused(format!(
                "event {event} is a team match, which is between exactly 2 teams"
            ));
        }
        EventKind::Olympiad { boards, teams, .. } | EventKind::TeamMatch { boards, teams, .. } => {
            (*boards as usize, teams)
        }
    };
    if boards.len() != want {
        return refused(format!(
            "the event has {want} boards: give exactly {want} --board addresses, board 1 first"
        ));
    }
    let name = name.trim();
    if name.is_empty() || teams.iter().any(|t| t.name.eq_ignore_ascii_case(name)) {
        return refused(format!(
            "'{name}' is empty or already a team; give each team its own name"
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for p in boards.iter().chain(reserves) {
        if !seen.insert(p.id) {
            return refused(format!(
                "{} is named twice; each player plays once",
                p.email
            ));
        }
        check_not_entered(tx, event, p).await?;
    }
    let number = teams.len() as u32 + 1;
    tx.add_team(event, number, name).await?;
    for (b, p) in boards.iter().enumerate() {
        tx.add_entrant(event, p.id, Some(number), Some(b as u32 + 1))
            .await?;
    }
    for p in reserves {
        tx.add_entrant(event, p.id, Some(number), None).await?;
    }
    Ok(number)
}

/// One game of an event's pairings, with the players of its seats.
#[derive(Debug, Clone, Serialize)]
pub struct PairedGame {
    /// Round, from 1.
    pub round: u32,
    /// Board, from 1.
    pub board: u32,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// The white team's name (team events).
    pub white_team: Option<String>,
    /// The black team's name (team events).
    pub black_team: Option<String>,
    /// The game, once the event has started.
    pub game: Option<GameId>,
    /// `active` or the result, once started.
    pub status: Option<String>,
}

/// The games the event's pairings make, with the seats' current players.
pub fn pairings(ev: &StoredEvent) -> Result<Vec<PairedGame>, TdError> {
    let missing = || corrupt(format!("event {}: a paired seat is empty", ev.record.id));
    let mut out = Vec::new();
    match ev.event.pairings() {
        Pairings::Individual(list) => {
            for p in list {
                let white = ev.holder(None, p.white as u32 + 1).ok_or_else(missing)?;
                let black = ev.holder(None, p.black as u32 + 1).ok_or_else(missing)?;
                out.push(PairedGame {
                    round: p.round,
                    board: p.board,
                    white: white.player.clone(),
                    black: black.player.clone(),
                    white_team: None,
                    black_team: None,
                    game: None,
                    status: None,
                });
            }
        }
        Pairings::Teams(list) => {
            for g in list {
                let (wt, bt) = (g.white_team as u32 + 1, g.black_team as u32 + 1);
                let white = ev.holder(Some(wt), g.board).ok_or_else(missing)?;
                let black = ev.holder(Some(bt), g.board).ok_or_else(missing)?;
                let team_name = |n: u32| {
                    ev.teams
                        .iter()
                        .find(|t| t.number == n)
                        .map(|t| t.name.clone())
                };
                out.push(PairedGame {
                    round: g.round,
                    board: g.board,
                    white: white.player.clone(),
                    black: black.player.clone(),
                    white_team: team_name(wt),
                    black_team: team_name(bt),
                    game: None,
                    status: None,
                });
            }
        }
    }
    Ok(out)
}

/// The event's games as started, in pairing form (for `event pairings`).
pub async fn started_pairings(tx: &mut Tx, ev: &StoredEvent) -> Result<Vec<PairedGame>, TdError> {
    let games = tx.event_games(ev.record.id).await?;
    let mut out = Vec::new();
    for g in games {
        let white = tx.player(g.game.white).await?;
        let black = tx.player(g.game.black).await?;
        let team_of = |p: PlayerId| {
            ev.seat_of(p)
                .and_then(|e| e.team)
                .and_then(|n| ev.teams.iter().find(|t| t.number == n))
                .map(|t| t.name.clone())
        };
        let status = if g.closed_by_withdrawal && g.game.result.is_none() {
            "annulled".to_string()
        } else {
            g.game.result.clone().unwrap_or_else(|| "active".into())
        };
        out.push(PairedGame {
            round: g.round,
            board: g.board,
            white_team: team_of(white.id),
            black_team: team_of(black.id),
            white,
            black,
            game: Some(g.game.id),
            status: Some(status),
        });
    }
    Ok(out)
}

/// Loads a game with its players and clock, as mails show it.
async fn table(tx: &mut Tx, id: GameId) -> Result<LoadedGame, StoreError> {
    crate::service::post::load_table(tx, id).await
}

/// Starts an open event: creates every game and queues the first mails of
/// all of them (correspondence style: all games start together); returns
/// the games.
pub async fn start(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    if ev.record.status != EventStatus::Open {
        return refused(format!("event {event} has started already"));
    }
    let count = match &ev.event.kind {
        EventKind::RoundRobin { players, .. } => players.len(),
        EventKind::Olympiad { teams, .. } => teams.len(),
        EventKind::TeamMatch { teams, .. } => teams.len().max(1) + 1,
    };
    let needed = match &ev.event.kind {
        EventKind::TeamMatch { teams, .. } if teams.len() != 2 => {
            return refused(format!(
                "event {event} is a team match and has {} teams; it needs 2",
                teams.len()
            ));
        }
        _ => crate::event::berger::MIN_ENTRANTS,
    };
    if count < needed {
        return refused(format!(
            "event {event} has {count} entrants; a round robin or olympiad needs at least {needed}"
        ));
    }
    let mut ids = Vec::new();
    for p in pairings(&ev)? {
        let game = NewGame {
            white: p.white.id,
            black: p.black.id,
            start: StartPosition::Standard,
            time_control: ev.event.time_control,
        };
        // Linked to the event before its first mails, which follow the
        // event's settings.
        let id = tx.add_game(&game, now).await?;
        tx.link_game(id, event, p.round, p.board).await?;
        crate::service::start::first_mails(tx, post, id, now).await?;
        ids.push(id);
    }
    tx.set_event_started(event, now).await?;
    Ok(ids)
}

/// How a stored game counts for standings.
fn state_of(g: &EventGame) -> GameState {
    if g.closed_by_withdrawal || g.game.status != GameStatus::Finished {
        return GameState::Unfinished;
    }
    let (Some(result), Some(reason)) = (&g.game.result, &g.game.end_reason) else {
        return GameState::Unfinished;
    };
    let Some(result) = GameResult::from_pgn(result) else {
        return GameState::Unfinished;
    };
    let decision = match Outcome::from_description(result, reason) {
        Some(o) if matches!(o.reason, EndReason::Adjudication(_)) => Decision::Adjudicated,
        _ => Decision::Played,
    };
    GameState::Finished {
        outcome: result,
        decision,
    }
}

/// The standings of a stored event as a crosstable, and how each of its
/// games counts (by game id).
pub struct EventStandings {
    /// The crosstable, ready to render.
    pub crosstable: Crosstable,
    /// How each game counts after withdrawals.
    pub counted: HashMap<GameId, Counted>,
}

/// Computes the standings of an event from its stored games.
pub async fn standings(tx: &mut Tx, ev: &StoredEvent) -> Result<EventStandings, TdError> {
    let games = tx.event_games(ev.record.id).await?;
    let withdrawn_mark = |e: &EntrantRecord| {
        if e.withdrawn_at.is_some() {
            format!("{} (withdrawn)", e.player.name)
        } else {
            e.player.name.clone()
        }
    };
    let mut counted = HashMap::new();
    if let EventKind::RoundRobin { players, .. } = &ev.event.kind {
        let index: HashMap<PlayerId, usize> = ev
            .entrants
            .iter()
            .filter_map(|e| e.seat.map(|s| (e.player.id, s as usize - 1)))
            .collect();
        let mut kept = Vec::new();
        let mut list = Vec::new();
        for g in &games {
            if let (Some(&w), Some(&b)) = (index.get(&g.game.white), index.get(&g.game.black)) {
                list.push(standings::ScoredGame {
                    round: g.round,
                    white: w,
                    black: b,
                    state: state_of(g),
                });
                kept.push(g.game.id);
            }
        }
        let withdrawn: Vec<usize> = ev
            .entrants
            .iter()
            .filter(|e| e.withdrawn_at.is_some())
            .filter_map(|e| e.seat.map(|s| s as usize - 1))
            .collect();
        let table = standings::individual(players.len(), &list, &withdrawn, &ev.event.rules());
        let mut names = vec![String::new(); players.len()];
        for e in &ev.entrants {
            if let Some(slot) = e.seat.and_then(|s| names.get_mut(s as usize - 1)) {
                *slot = withdrawn_mark(e);
            }
        }
        counted.extend(kept.into_iter().zip(table.counted.iter().copied()));
        return Ok(EventStandings {
            crosstable: crosstable::individual(&ev.event.name, &names, &table),
            counted,
        });
    }
    let index: HashMap<PlayerId, (usize, u32)> = ev
        .entrants
        .iter()
        .filter_map(|e| match (e.team, e.seat) {
            (Some(t), Some(s)) => Some((e.player.id, (t as usize - 1, s))),
            _ => None,
        })
        .collect();
    let mut list = Vec::new();
    for g in &games {
        if let (Some(&(wt, _)), Some(&(bt, _))) =
            (index.get(&g.game.white), index.get(&g.game.black))
        {
            list.push(standings::ScoredTeamGame {
                round: g.round,
                board: g.board,
                white_team: wt,
                black_team: bt,
                state: state_of(g),
            });
        }
    }
    let withdrawn: Vec<(usize, u32)> = ev
        .entrants
        .iter()
        .filter(|e| e.withdrawn_at.is_some())
        .filter_map(|e| index.get(&e.player.id).copied())
        .collect();
    let table = standings::team(ev.teams.len(), &list, &withdrawn, &ev.event.team_rules());
    // Team standings do not list how each game counts; a withdrawn board's
    // closed games are forfeits or annulled as individual standings say.
    let names: Vec<String> = ev.teams.iter().map(|t| t.name.clone()).collect();
    Ok(EventStandings {
        crosstable: crosstable::team(&ev.event.name, &names, &table),
        counted,
    })
}

/// The standings letter of an event: its crosstable as text and HTML.
pub async fn standings_letter(tx: &mut Tx, event: EventId) -> Result<LetterKind, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    let table = standings(tx, &ev).await?;
    Ok(LetterKind::Standings {
        event: ev.event.name.clone(),
        table: table.crosstable,
    })
}

/// The event of a game, loaded, if it has one; and a check that `by` is a TD.
async fn event_of(
    tx: &mut Tx,
    game: GameId,
    by: &EmailAddress,
) -> Result<Option<StoredEvent>, TdError> {
    match tx.event_of_game(game).await? {
        Some(id) => {
            let ev = StoredEvent::load(tx, id).await?;
            ev.check_td(by)?;
            Ok(Some(ev))
        }
        None => Ok(None),
    }
}

/// Sets or adjudicates a game's result; both players get the game-over mail
/// with the TD's reason. Returns the TD action's id.
pub async fn set_result(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    result: GameResult,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return refused("say why with --reason TEXT: it is recorded and told to both players");
    }
    let ev = event_of(tx, game, by).await?;
    let record = tx.game_for_update(game).await?;
    let mut chess = record.to_game()?;
    chess.adjudicate(result, reason);
    tx.save_game(
        &record,
        &chess,
        None,
        &Default::default(),
        record.last_offers,
        now,
    )
    .await?;
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: ev.as_ref().map(|e| e.record.id),
                game: Some(game),
                action: "result",
                by: by.as_str(),
                detail: &format!("set game {game} to {}", result.as_pgn()),
                reason,
            },
            now,
        )
        .await?;
    let t = table(tx, game).await?;
    post.game_over(tx, &format!("td{action}.g{}", game.0), &t, &[], now)
        .await?;
    Ok(action)
}

/// Extends a player's deadline in a game by `days`: stored for the clock,
/// logged, and both players told. `side` defaults to the side to move.
#[allow(clippy::too_many_arguments)]
pub async fn extend(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    days: u32,
    side: Option<Color>,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return refused("say why with --reason TEXT: it is recorded and told to both players");
    }
    if !(1..=365).contains(&days) {
        return refused("--days must be from 1 to 365");
    }
    let ev = event_of(tx, game, by).await?;
    let t = table(tx, game).await?;
    if t.game.is_over() || t.record.status == GameStatus::Finished {
        return refused(format!(
            "game {game} is over: there is no deadline to extend"
        ));
    }
    let side = side.unwrap_or_else(|| t.game.turn());
    let player = t.player(side).clone();
    tx.add_deadline_extension(&DeadlineExtension {
        game,
        side: side::key(side).to_string(),
        days,
        granted_by: by.to_string(),
        reason: reason.to_string(),
        granted_at: now,
    })
    .await?;
    // The clock now has the extra days: mails show the new deadline, and the
    // scheduler looks at the game afresh.
    let t = table(tx, game).await?;
    crate::service::clocks::reschedule(tx, &t, None, now).await?;
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: ev.as_ref().map(|e| e.record.id),
                game: Some(game),
                action: "extend",
                by: by.as_str(),
                detail: &format!(
                    "gave {} ({}) {days} more days in game {game}",
                    player.name,
                    side::key(side)
                ),
                reason,
            },
            now,
        )
        .await?;
    for to_side in [Color::White, Color::Black] {
        post.to_player(
            tx,
            format!("td{action}.g{}.extend.{}", game.0, side::key(to_side)),
            LetterKind::DeadlineExtended {
                player: player.name.clone(),
                days,
                reason: reason.to_string(),
            },
            &t,
            to_side,
            now,
        )
        .await?;
    }
    Ok(action)
}

async fn seated(tx: &mut Tx, ev: &StoredEvent, email: &EmailAddress) -> Result<Player, TdError> {
    let Some(player) = tx.player_by_email(email.as_str()).await? else {
        return Err(StoreError::UnknownPlayer(email.to_string()).into());
    };
    match ev.seat_of(player.id) {
        Some(e) if e.withdrawn_at.is_some() => refused(format!(
            "{email} has withdrawn from event {} already",
            ev.record.id
        )),
        Some(_) => Ok(player),
        None => refused(format!(
            "{email} plays in no seat of event {}; `dopis event show {}` lists its players",
            ev.record.id, ev.record.id
        )),
    }
}

fn check_started(ev: &StoredEvent) -> Result<(), TdError> {
    if ev.record.status != EventStatus::Started {
        return refused(format!(
            "event {} has not started: change its entrants with add-player/add-team, or \
             create it again from a corrected file",
            ev.record.id
        ));
    }
    Ok(())
}

/// What every TD action on a started event checks first: a reason (it is
/// recorded and told to the players), a TD of the event, and that the event
/// has started. Returns the event and the trimmed reason.
async fn started_event_action<'r>(
    tx: &mut Tx,
    event: EventId,
    reason: &'r str,
    by: &EmailAddress,
) -> Result<(StoredEvent, &'r str), TdError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return refused("say why with --reason TEXT: it is recorded and told to the players");
    }
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    check_started(&ev)?;
    Ok((ev, reason))
}

/// Withdraws a player from a started event: their unfinished games close,
/// scored by the event's rule (forfeit or annulled); every opponent is told
/// about their game and the player about all of them. Returns the TD
/// action's id.
pub async fn withdraw(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    email: &EmailAddress,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let (ev, reason) = started_event_action(tx, event, reason, by).await?;
    let player = seated(tx, &ev, email).await?;
    let rule = rule_key(ev.event.withdrawal);
    tx.withdraw_entrant(event, player.id, rule, now).await?;
    // The standings with the withdrawal say what each open game becomes.
    let ev = StoredEvent::load(tx, event).await?;
    let counted = if ev.is_team_event() {
        HashMap::new()
    } else {
        standings(tx, &ev).await?.counted
    };
    let games = tx.event_games(event).await?;
    let mine: Vec<&EventGame> = games
        .iter()
        .filter(|g| g.game.status == GameStatus::Active)
        .filter(|g| g.game.side_of(player.id).is_some())
        .collect();
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: Some(event),
                game: None,
                action: "withdraw",
                by: by.as_str(),
                detail: &format!(
                    "withdrew {} <{}> under rule {rule}; {} unfinished games closed",
                    player.name,
                    player.email,
                    mine.len()
                ),
                reason,
            },
            now,
        )
        .await?;
    let mut lines = Vec::new();
    for g in mine {
        let id = g.game.id;
        let Some(side) = g.game.side_of(player.id) else {
            continue;
        };
        // Team events forfeit a withdrawn board's open games (the team
        // standings apply the rule themselves); so does an individual
        // event whose rule keeps the games.
        let forfeit = match counted.get(&id) {
            Some(Counted::Annulled) => false,
            Some(_) | None => true,
        };
        if forfeit {
            let result = match side {
                Color::White => GameResult::BlackWins,
                Color::Black => GameResult::WhiteWins,
            };
            let why = format!("forfeit: {} withdrew from {}", player.name, ev.event.name);
            let text = Outcome::new(result, EndReason::Adjudication(why)).to_string();
            tx.close_by_withdrawal(id, Some((result.as_pgn(), &text)), now)
                .await?;
        } else {
            tx.close_by_withdrawal(id, None, now).await?;
        }
        let t = table(tx, id).await?;
        let opponent = t.player(!side).clone();
        lines.push(format!(
            "game {id} against {}: {}",
            opponent.name,
            if forfeit {
                "lost by forfeit"
            } else {
                "annulled"
            }
        ));
        post.to_player(
            tx,
            format!("td{action}.g{}.withdrawal", id.0),
            LetterKind::Withdrawal {
                event: ev.event.name.clone(),
                player: player.name.clone(),
                effect: if forfeit { "forfeit_win" } else { "annulled" }.into(),
                reason: reason.to_string(),
                lines: Vec::new(),
            },
            &t,
            !side,
            now,
        )
        .await?;
    }
    post.queue(
        tx,
        Outgoing {
            key: format!("td{action}.withdrawn"),
            kind: LetterKind::Withdrawal {
                event: ev.event.name.clone(),
                player: player.name.clone(),
                effect: String::new(),
                reason: reason.to_string(),
                lines,
            },
            to: &player,
            game: None,
            side: None,
            answering: None,
            reply_to: None,
            ply: None,
        },
        now,
    )
    .await?;
    Ok(action)
}

/// Replaces a player of a started event by a registered substitute, who
/// inherits the seat and every game; the substitute gets a mail for each
/// game still being played (with its reply address), the opponents are
/// told, and so is the player replaced. Returns the TD action's id.
#[allow(clippy::too_many_arguments)]
pub async fn replace(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    old: &EmailAddress,
    new: &EmailAddress,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let (ev, reason) = started_event_action(tx, event, reason, by).await?;
    let leaving = seated(tx, &ev, old).await?;
    let Some(substitute) = tx.player_by_email(new.as_str()).await? else {
        return Err(StoreError::UnknownPlayer(new.to_string()).into());
    };
    if ev.seat_of(substitute.id).is_some() {
        return refused(format!(
            "{new} already plays in event {event}; a substitute must not hold a seat"
        ));
    }
    tx.replace_entrant(event, leaving.id, substitute.id).await?;
    let games = tx.event_games(event).await?;
    let theirs: Vec<GameId> = games
        .iter()
        .filter(|g| g.game.side_of(leaving.id).is_some())
        .map(|g| g.game.id)
        .collect();
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: Some(event),
                game: None,
                action: "replace",
                by: by.as_str(),
                detail: &format!(
                    "replaced {} <{}> by {} <{}> in {} games",
                    leaving.name,
                    leaving.email,
                    substitute.name,
                    substitute.email,
                    theirs.len()
                ),
                reason,
            },
            now,
        )
        .await?;
    for id in theirs {
        tx.switch_game_player(id, leaving.id, substitute.id).await?;
        let t = table(tx, id).await?;
        if t.record.status != GameStatus::Active {
            continue;
        }
        let Some(side) = t.record.side_of(substitute.id) else {
            continue;
        };
        for (to_side, role) in [
            (side, ReplacementRole::Substitute),
            (!side, ReplacementRole::Opponent),
        ] {
            post.to_player(
                tx,
                format!("td{action}.g{}.{}", id.0, role.key()),
                LetterKind::Replaced {
                    event: ev.event.name.clone(),
                    old: leaving.name.clone(),
                    new: substitute.name.clone(),
                    role,
                    reason: reason.to_string(),
                },
                &t,
                to_side,
                now,
            )
            .await?;
        }
    }
    post.queue(
        tx,
        Outgoing {
            key: format!("td{action}.replaced"),
            kind: LetterKind::Replaced {
                event: ev.event.name.clone(),
                old: leaving.name.clone(),
                new: substitute.name.clone(),
                role: ReplacementRole::Replaced,
                reason: reason.to_string(),
            },
            to: &leaving,
            game: None,
            side: None,
            answering: None,
            reply_to: None,
            ply: None,
        },
        now,
    )
    .await?;
    Ok(action)
}

/// Whether a game was closed without a result (annulled by a withdrawal):
/// nothing more may be played in it.
pub fn is_annulled(record: &GameRecord, over: bool) -> bool {
    record.status == GameStatus::Finished && !over
}
