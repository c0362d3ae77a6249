//! A team event's table per board (`dopis event standings --boards`), from
//! its stored games; the rules are [`event::boards`](crate::domain::event::boards)'.

use std::collections::HashMap;

use super::stored::state_of;
use super::{StoredEvent, TdError, refused};
use crate::adapter::store::Tx;
use crate::domain::event::boards::{self, BoardTable};
use crate::domain::event::file::EventKind;
use crate::domain::event::standings::ScoredTeamGame;
use crate::domain::player::PlayerId;

/// The table of each board of a team event; `title(board)` titles each.
/// Refused for a round robin, which has no boards.
pub async fn board_tables(
    tx: &mut Tx,
    ev: &StoredEvent,
    title: impl Fn(u32) -> String,
) -> Result<Vec<BoardTable>, TdError> {
    let boards = match &ev.event.kind {
        EventKind::Olympiad { boards, .. } | EventKind::TeamMatch { boards, .. } => *boards,
        EventKind::RoundRobin { .. } | EventKind::Swiss { .. } => {
            return refused(format!(
                "event {} is for single players: board tables are for team events; its crosstable is the table",
                ev.record.id
            ));
        }
    };
    let seat: HashMap<PlayerId, (usize, u32)> = ev
        .entrants
        .iter()
        .filter_map(|e| match (e.team, e.seat) {
            (Some(t), Some(s)) => Some((e.player.id, (t as usize - 1, s))),
            _ => None,
        })
        .collect();
    let mut games = Vec::new();
    for g in tx.event_games(ev.record.id).await? {
        if let (Some(&(wt, _)), Some(&(bt, _))) = (seat.get(&g.game.white), seat.get(&g.game.black))
        {
            games.push(ScoredTeamGame {
                round: g.round,
                board: g.board,
                white_team: wt,
                black_team: bt,
                state: state_of(&g),
            });
        }
    }
    let withdrawn: Vec<(usize, u32)> = ev
        .entrants
        .iter()
        .filter(|e| e.withdrawn_at.is_some())
        .filter_map(|e| seat.get(&e.player.id).copied())
        .collect();
    let names: Vec<Vec<String>> = (1..=boards)
        .map(|board| {
            ev.teams
                .iter()
                .map(|t| {
                    let player = ev
                        .holder(Some(t.number), board)
                        .map_or("?", |e| e.player.name.as_str());
                    format!("{player} ({})", t.name)
                })
                .collect()
        })
        .collect();
    Ok(boards::board_tables(
        boards,
        &names,
        &games,
        &withdrawn,
        &ev.event.rules(),
        title,
    ))
}
