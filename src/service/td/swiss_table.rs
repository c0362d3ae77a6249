//! A Swiss event as the pairing engine sees it: the tournament rebuilt
//! from the stored games and the byes of `swiss_rounds` (seats are pairing
//! numbers), and its FIDE table (C.07 tie-breaks). Read by the pairing
//! (`swiss`), the standings and the final mail.

use std::collections::HashMap;

use super::stored::state_of;
use super::{StoredEvent, TdError, refused};
use crate::adapter::store::Tx;
use crate::adapter::store::events::SwissRound;
use crate::domain::event::file::{EventKind, SwissRules};
use crate::domain::event::swiss::{Absence, Entry, Player as SwissPlayer, Tournament};
use crate::domain::event::{Decision, GameState, Side, SideResult};
use crate::domain::ids::GameId;
use crate::domain::player::PlayerId;

/// The Swiss rules of an event, or a refusal naming its kind.
pub(super) fn rules_of(ev: &StoredEvent) -> Result<SwissRules, TdError> {
    match &ev.event.kind {
        EventKind::Swiss { rules, .. } => Ok(*rules),
        _ => refused(format!(
            "event {} is a {}, not a Swiss event",
            ev.record.id, ev.record.kind
        )),
    }
}

pub(super) fn rating_of(ratings: &HashMap<PlayerId, i32>, player: PlayerId) -> u16 {
    ratings
        .get(&player)
        .map_or(0, |r| u16::try_from((*r).max(0)).unwrap_or(u16::MAX))
}

/// The tournament as stored: every seat in pairing-number order with its
/// rounds (the games, the byes), ready for the engine, the TRF writer and
/// the tie-breaks.
pub(super) async fn tournament(
    tx: &mut Tx,
    ev: &StoredEvent,
    rounds: &[SwissRound],
) -> Result<Tournament, TdError> {
    let rules = rules_of(ev)?;
    let seats: usize = ev.entrants.iter().filter_map(|e| e.seat).max().unwrap_or(0) as usize;
    let index = seat_index(ev);
    let withdrawn = withdrawn_seats(ev);
    let ids: Vec<PlayerId> = ev.entrants.iter().map(|e| e.player.id).collect();
    let ratings = tx.ratings_of(&ids).await?;
    let mut players: Vec<SwissPlayer> = (0..seats)
        .map(|i| SwissPlayer {
            rating: ev
                .holder(None, i as u32 + 1)
                .map_or(0, |e| rating_of(&ratings, e.player.id)),
            rounds: Vec::new(),
            accelerations: Vec::new(),
        })
        .collect();
    let paired = rounds.iter().map(|r| r.round).max().unwrap_or(0);
    for p in &mut players {
        p.rounds = vec![Entry::Unpaired(Absence::Zero); paired as usize];
    }
    let set = |players: &mut Vec<SwissPlayer>, who: usize, round: u32, entry: Entry| {
        if let Some(slot) = players
            .get_mut(who)
            .and_then(|p| p.rounds.get_mut(round as usize - 1))
        {
            *slot = entry;
        }
    };
    for r in rounds {
        if let Some(seat) = r.bye_seat {
            set(&mut players, seat as usize - 1, r.round, Entry::PairingBye);
        }
    }
    // A half-point bye asked for (TRF `H`): the seat was left unpaired in
    // a paired round and scores a draw's points. Set before the games, so
    // a game the round has for the seat (none should) wins.
    for bye in tx.swiss_byes(ev.record.id).await? {
        if bye.round >= 1 && bye.round <= paired && bye.seat >= 1 {
            let entry = Entry::Unpaired(Absence::Half);
            set(&mut players, bye.seat as usize - 1, bye.round, entry);
        }
    }
    // C.04.3 5.1 leaves round 1's first colour to a lot, drawn when round
    // 1 is paired ([`super::swiss`]); it is read back from round 1's
    // first game (a cancelled one too: a round 1 paired again keeps its
    // lot): there the higher ranked player has the initial colour if
    // their pairing number is odd, the other one if even (5.2.5).
    let mut initial_colour = Side::White;
    let mut first_game = None;
    for g in tx.event_games(ev.record.id).await? {
        let (Some(&w), Some(&b)) = (index.get(&g.game.white), index.get(&g.game.black)) else {
            continue;
        };
        if g.round == 1 && first_game.is_none_or(|id| g.game.id.0 < id) {
            first_game = Some(g.game.id.0);
            // Seats from 0: an even index is an odd pairing number.
            let (higher, colour) = if w < b {
                (w, Side::White)
            } else {
                (b, Side::Black)
            };
            initial_colour = if higher % 2 == 0 {
                colour
            } else {
                colour.opposite()
            };
        }
        if g.round == 0 || g.round > paired {
            continue;
        }
        let state = swiss_state(&g, &withdrawn, w);
        let (result_of, played) = match state {
            // A cancelled game counts for nobody: the round is unplayed
            // for both, and they may meet again.
            GameState::Cancelled => continue,
            GameState::Unfinished => (None, true),
            GameState::Finished { outcome, decision } => {
                (Some(outcome), decision != Decision::Forfeit)
            }
        };
        let result = |side: Side| -> Option<SideResult> { result_of.map(|o| o.for_side(side)) };
        set(
            &mut players,
            w,
            g.round,
            Entry::Game {
                opponent: b,
                colour: Side::White,
                result: result(Side::White),
                played,
            },
        );
        set(
            &mut players,
            b,
            g.round,
            Entry::Game {
                opponent: w,
                colour: Side::Black,
                result: result(Side::Black),
                played,
            },
        );
    }
    Ok(Tournament {
        players,
        rounds: rules.rounds,
        points: rules.point_system(&ev.event.scoring),
        // Written in the TRF file (`XXC white1` or `black1`), so a
        // checking program pairs as dopis did.
        initial_colour,
        acceleration: rules.acceleration(),
        forbidden: Vec::new(),
    })
}

/// Whether every round of a Swiss event is paired (true for any other
/// kind): before then, a round's last game ending is no event's end.
pub async fn all_rounds_paired(tx: &mut Tx, ev: &StoredEvent) -> Result<bool, TdError> {
    let EventKind::Swiss { rules, .. } = &ev.event.kind else {
        return Ok(true);
    };
    let rounds = tx.swiss_rounds(ev.record.id).await?;
    Ok(rounds.iter().any(|r| r.round >= rules.rounds))
}

/// A Swiss event's table as the standings need it.
pub(super) struct SwissTable {
    /// The tournament the table counts.
    pub tournament: Tournament,
    /// The FIDE table (C.07 tie-breaks), rounds as the engine sees them.
    pub table: crate::domain::event::swiss::tiebreaks::Table,
    /// The same as the individual standings module's table.
    pub standings: crate::domain::event::standings::Standings,
    /// The games it counted by id, in the order of `standings.counted`.
    pub kept: Vec<GameId>,
}

/// The FIDE table of a Swiss event after the rounds played (C.07
/// tie-breaks, unplayed rounds by its Article 16), with the tournament it
/// counts, as the individual standings module's table too, and the games
/// it counted by id.
pub(super) async fn table(tx: &mut Tx, ev: &StoredEvent) -> Result<SwissTable, TdError> {
    use crate::domain::event::standings::{Counted, ScoredGame, Standings};
    let EventKind::Swiss { tie_breaks, .. } = &ev.event.kind else {
        return refused(format!("event {} is not a Swiss event", ev.record.id));
    };
    let rounds = tx.swiss_rounds(ev.record.id).await?;
    let t = tournament(tx, ev, &rounds).await?;
    let after = rounds.iter().map(|r| r.round).max().unwrap_or(0);
    let table = crate::domain::event::swiss::tiebreaks::table(&t, after, tie_breaks);
    let index = seat_index(ev);
    let withdrawn = withdrawn_seats(ev);
    let mut games = Vec::new();
    let mut counted = Vec::new();
    let mut kept = Vec::new();
    for g in tx.event_games(ev.record.id).await? {
        let (Some(&white), Some(&black)) = (index.get(&g.game.white), index.get(&g.game.black))
        else {
            continue;
        };
        let state = swiss_state(&g, &withdrawn, white);
        kept.push(g.game.id);
        games.push(ScoredGame {
            round: g.round,
            white,
            black,
            state,
        });
        counted.push(match state {
            GameState::Unfinished => Counted::Pending,
            GameState::Cancelled => Counted::Cancelled,
            GameState::Finished { outcome, decision } => Counted::Result { outcome, decision },
        });
    }
    Ok(SwissTable {
        standings: Standings {
            rows: table.rows.clone(),
            tie_breaks: table.tie_breaks.clone(),
            games,
            counted,
            annulled: Vec::new(),
        },
        tournament: t,
        table,
        kept,
    })
}

/// The pairing numbers (less one) of the withdrawn players.
pub(super) fn withdrawn_seats(ev: &StoredEvent) -> Vec<usize> {
    ev.entrants
        .iter()
        .filter(|e| e.withdrawn_at.is_some())
        .filter_map(|e| e.seat.map(|s| s as usize - 1))
        .collect()
}

/// How a stored game of a Swiss event counts: as any game, except that a
/// game a withdrawal closed is lost by the one who withdrew, by forfeit
/// (unplayed for C.07 16.2), whatever became of it in a round robin.
fn swiss_state(
    g: &crate::adapter::store::games::EventGame,
    withdrawn: &[usize],
    white: usize,
) -> GameState {
    use crate::domain::chess::game::GameResult;
    if !g.closed_by_withdrawal {
        return state_of(g);
    }
    GameState::Finished {
        outcome: if withdrawn.contains(&white) {
            GameResult::BlackWins
        } else {
            GameResult::WhiteWins
        },
        decision: Decision::Forfeit,
    }
}

/// Each seated player's pairing number, less one.
fn seat_index(ev: &StoredEvent) -> HashMap<PlayerId, usize> {
    ev.entrants
        .iter()
        .filter_map(|e| e.seat.map(|s| (e.player.id, s as usize - 1)))
        .collect()
}
