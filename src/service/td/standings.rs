//! Standings and crosstables from an event's stored games.

use std::collections::HashMap;

use super::stored::state_of;
use super::{StoredEvent, TdError};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::store::Tx;
use crate::adapter::store::games::{EventGame, GameStatus};
use crate::domain::event::crosstable::{self, Crosstable};
use crate::domain::event::file::EventKind;
use crate::domain::event::standings::{self, Counted};
use crate::domain::event::swiss;
use crate::domain::ids::EventId;
use crate::domain::ids::GameId;
use crate::domain::player::PlayerId;

/// A round robin's pure table from its stored games: the table (player
/// indices are starting numbers less one), the games it counted, and the
/// withdrawn players' indices.
fn round_robin_table(
    ev: &StoredEvent,
    players: usize,
    games: &[EventGame],
) -> (standings::Standings, Vec<GameId>, Vec<usize>) {
    let index: HashMap<PlayerId, usize> = ev
        .entrants
        .iter()
        .filter_map(|e| e.seat.map(|s| (e.player.id, s as usize - 1)))
        .collect();
    let mut kept = Vec::new();
    let mut list = Vec::new();
    for g in games {
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
    let table = standings::individual(players, &list, &withdrawn, &ev.event.rules());
    (table, kept, withdrawn)
}

/// One player's line in a round robin's table, as qualifying for a final
/// and promotions look at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerResult {
    /// The player (the seat's holder now).
    pub player: PlayerId,
    /// Their place after the tie-breaks (a shared place: its best).
    pub rank: u32,
    /// The last place of the tie they share (= `rank` when alone).
    pub rank_to: u32,
    /// Their starting number.
    pub number: u32,
    /// What they scored.
    pub points: crate::domain::event::Points,
    /// What their games that count could give (a win each).
    pub possible: crate::domain::event::Points,
}

/// Every player's result in a round robin, best first (empty for other
/// kinds).
pub async fn player_results(tx: &mut Tx, ev: &StoredEvent) -> Result<Vec<PlayerResult>, TdError> {
    let EventKind::RoundRobin { players, .. } = &ev.event.kind else {
        return Ok(Vec::new());
    };
    let games = tx.event_games(ev.record.id).await?;
    let (table, _, _) = round_robin_table(ev, players.len(), &games);
    let win = ev.event.scoring.win.quarters();
    Ok(table
        .rows
        .iter()
        .filter_map(|row| {
            let number = u32::try_from(row.player + 1).ok()?;
            let holder = ev.holder(None, number)?;
            Some(PlayerResult {
                player: holder.player.id,
                rank: row.rank,
                rank_to: row.rank_to,
                number,
                points: row.points,
                possible: crate::domain::event::Points::from_quarters(
                    win * i64::from(row.finished),
                ),
            })
        })
        .collect())
}

/// A team event's table from its stored games, and the games it counts
/// (in the order of the table's `counted`).
fn team_table(ev: &StoredEvent, games: &[EventGame]) -> (standings::TeamStandings, Vec<GameId>) {
    let index: HashMap<PlayerId, (usize, u32)> = ev
        .entrants
        .iter()
        .filter_map(|e| match (e.team, e.seat) {
            (Some(t), Some(s)) => Some((e.player.id, (t as usize - 1, s))),
            _ => None,
        })
        .collect();
    let mut list = Vec::new();
    let mut kept = Vec::new();
    for g in games {
        if let (Some(&(wt, _)), Some(&(bt, _))) =
            (index.get(&g.game.white), index.get(&g.game.black))
            && wt != bt
        {
            kept.push(g.game.id);
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
    (table, kept)
}

/// Every team's place in a team event after its ranking order, best
/// first: (team's starting number, (rank, last rank of its tie)).
pub async fn ranked_teams(
    tx: &mut Tx,
    ev: &StoredEvent,
) -> Result<Vec<(u32, (u32, u32))>, TdError> {
    let games = tx.event_games(ev.record.id).await?;
    let (table, _) = team_table(ev, &games);
    Ok(table
        .rows
        .iter()
        .map(|r| (r.team as u32 + 1, (r.rank, r.rank_to)))
        .collect())
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
    let mut counted = HashMap::new();
    let swiss = matches!(ev.event.kind, EventKind::Swiss { .. });
    let players = match &ev.event.kind {
        EventKind::RoundRobin { players, .. } | EventKind::Swiss { players, .. } => Some(players),
        _ => None,
    };
    if let Some(players) = players {
        // Seats beyond the file's players: entrants from entries.
        let seats = ev
            .entrants
            .iter()
            .filter_map(|e| e.seat)
            .max()
            .map_or(0, |s| s as usize)
            .max(players.len());
        let mut names = vec![String::new(); seats];
        for e in &ev.entrants {
            if let Some(slot) = e.seat.and_then(|s| names.get_mut(s as usize - 1)) {
                *slot = e.player.name.clone();
            }
        }
        // Ratings as the list has them now, beside names and for each
        // player's performance.
        let ids: Vec<PlayerId> = ev.entrants.iter().map(|e| e.player.id).collect();
        let rated = crate::service::ratings::ratings_of(tx, &ids).await?;
        let mut ratings = vec![None; seats];
        for e in &ev.entrants {
            if let Some(slot) = e.seat.and_then(|s| ratings.get_mut(s as usize - 1)) {
                *slot = rated.get(&e.player.id).copied();
            }
        }
        if swiss {
            // A Swiss table has a column per round (`12w1`), not a grid of
            // every player against every other.
            let s = super::swiss_table::table(tx, ev).await?;
            counted.extend(s.kept.into_iter().zip(s.standings.counted.iter().copied()));
            return Ok(EventStandings {
                crosstable: swiss::crosstable::crosstable(
                    &ev.event.name,
                    &s.tournament,
                    &s.table,
                    &names,
                    &ratings,
                    &super::swiss_table::withdrawn_seats(ev),
                ),
                counted,
            });
        }
        let (table, kept, withdrawn) = round_robin_table(ev, players.len(), &games);
        counted.extend(kept.into_iter().zip(table.counted.iter().copied()));
        return Ok(EventStandings {
            crosstable: crosstable::individual_rated(
                &ev.event.name,
                &names,
                &withdrawn,
                &table,
                &ratings,
            ),
            counted,
        });
    }
    let (table, kept) = team_table(ev, &games);
    counted.extend(kept.into_iter().zip(table.counted.iter().copied()));
    let names: Vec<String> = ev.teams.iter().map(|t| t.name.clone()).collect();
    Ok(EventStandings {
        crosstable: crosstable::team(&ev.event.name, &names, &table),
        counted,
    })
}

/// The standings letter of an event: its crosstable as text and HTML,
/// said to be final once every game is over.
pub async fn standings_letter(tx: &mut Tx, event: EventId) -> Result<LetterKind, TdError> {
    standings_letter_with_bye(tx, event, None).await
}

/// The standings letter, told to a Swiss event's player who has the bye
/// of a round (`(round, its points)`).
pub(crate) async fn standings_letter_with_bye(
    tx: &mut Tx,
    event: EventId,
    bye: Option<(u32, String)>,
) -> Result<LetterKind, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    let table = standings(tx, &ev).await?;
    let games = tx.event_games(event).await?;
    // A Swiss event between rounds is not over: its next round comes.
    let over = !games.is_empty()
        && games.iter().all(|g| g.game.status == GameStatus::Finished)
        && super::swiss_table::all_rounds_paired(tx, &ev).await?;
    Ok(LetterKind::Standings {
        event: ev.event.name.clone(),
        table: table.crosstable,
        over,
        bye,
    })
}
