//! An event's pairings with the players of its seats, and starting an
//! event: every game at once, with its first mails.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{StoredEvent, TdError, corrupt};
use crate::adapter::mail::compose::{PairingNote, StandingLine};
use crate::adapter::store::Tx;
use crate::adapter::store::games::NewGame;
use crate::domain::event::file::Pairings;
use crate::domain::ids::GameId;
use crate::domain::player::{Player, PlayerId};
use crate::service::post::Post;

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
    /// Who has no game in this round (an odd round robin's player, an odd
    /// olympiad's team): the same on every game of the round.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bye: Option<String>,
}

/// The name of whoever sits out each round (odd round robins and olympiads).
fn bye_names(ev: &StoredEvent) -> HashMap<u32, String> {
    let team = ev.is_team_event();
    ev.event
        .byes()
        .into_iter()
        .filter_map(|b| {
            let number = b.entrant as u32 + 1;
            let name = if team {
                ev.teams
                    .iter()
                    .find(|t| t.number == number)
                    .map(|t| t.name.clone())
            } else {
                ev.holder(None, number).map(|e| e.player.name.clone())
            };
            name.map(|n| (b.round, n))
        })
        .collect()
}

/// The games the event's pairings make, with the seats' current players.
pub fn pairings(ev: &StoredEvent) -> Result<Vec<PairedGame>, TdError> {
    let missing = || corrupt(format!("event {}: a paired seat is empty", ev.record.id));
    let byes = bye_names(ev);
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
                    bye: byes.get(&p.round).cloned(),
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
                    bye: byes.get(&g.round).cloned(),
                });
            }
        }
    }
    Ok(out)
}

/// The event's games as started, in pairing form (for `event pairings`).
pub async fn started_pairings(tx: &mut Tx, ev: &StoredEvent) -> Result<Vec<PairedGame>, TdError> {
    let games = tx.event_games(ev.record.id).await?;
    let mut byes = bye_names(ev);
    // A Swiss event's byes are its stored rounds' (the pairing gave them).
    if matches!(
        ev.event.kind,
        crate::domain::event::file::EventKind::Swiss { .. }
    ) {
        for r in tx.swiss_rounds(ev.record.id).await? {
            if let Some(holder) = r.bye_seat.and_then(|s| ev.holder(None, s)) {
                byes.insert(r.round, holder.player.name.clone());
            }
        }
    }
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
        } else if g.game.is_cancelled() {
            // Finished without a result: not "active" (a round paired
            // again keeps its cancelled games beside the new ones).
            "cancelled".to_string()
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
            bye: byes.get(&g.round).cloned(),
        });
    }
    Ok(out)
}

/// Creates every game of a loaded open event (one stage) and queues their
/// first mails; marks the event started.
pub(super) async fn start_games(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let event = ev.record.id;
    let paired = pairings(ev)?;
    // Drawn once, here, in the transaction that stores every game with its
    // position: a start that fails stores nothing and a started event is
    // never started again, so no position is ever drawn twice.
    let chess960 = ev.event.chess960.map(|draw| {
        let mut rng = rand::rng();
        draw.positions(paired.iter().map(|p| p.round), || {
            rand::Rng::random_range(&mut rng, 0..crate::domain::chess::game::CHESS960_POSITIONS)
        })
    });
    let mut ids = Vec::new();
    for p in paired {
        let start = match chess960.as_ref().and_then(|c| c.get(&p.round)) {
            Some(n) => crate::domain::chess::game::StartPosition::Chess960(*n),
            None => ev.event.start.clone(),
        };
        let game = event_game(ev, p.white.id, p.black.id, start);
        ids.push(add_event_game(tx, post, ev, &game, (p.round, p.board), &[], now).await?);
    }
    tx.set_event_started(event, now).await?;
    Ok(ids)
}

/// A game of the event between two players, from `start`, under the
/// event's time control and with its thematic line.
pub(super) fn event_game(
    ev: &StoredEvent,
    white: PlayerId,
    black: PlayerId,
    start: crate::domain::chess::game::StartPosition,
) -> NewGame {
    NewGame {
        white,
        black,
        start,
        time_control: ev.event.time_control,
        // The thematic line is stored as the game's first moves, as
        // ICCF's thematic events show it: the PGN has them as moves
        // (readers replay them from the usual start) and the move
        // numbers and clocks go on after them.
        opening: ev
            .event
            .opening
            .as_ref()
            .map(|o| o.ucis().to_vec())
            .unwrap_or_default(),
    }
}

/// Stores a game of the event at its (round, board) and queues its first
/// mails, which say the event, round and board, and the `standings` the
/// round was paired on (a Swiss event's; none for others).
pub(super) async fn add_event_game(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    game: &NewGame,
    (round, board): (u32, u32),
    standings: &[StandingLine],
    now: DateTime<Utc>,
) -> Result<GameId, TdError> {
    // Linked to the event before its first mails, which follow the
    // event's settings.
    let id = tx.add_game(game, now).await?;
    tx.link_game(id, ev.record.id, round, board).await?;
    let note = PairingNote {
        event: ev.event.name.clone(),
        round,
        board,
        standings: standings.to_vec(),
    };
    crate::service::start::first_mails(tx, post, id, Some(note), now).await?;
    Ok(id)
}
