//! A Swiss event moved into dopis mid-way: `dopis event create FILE
//! --trf PLAYED.trf --by TD` stores the event of the file with the rounds
//! the TRF file says were played elsewhere (their games finished with
//! their results, no moves; the pairing-allocated and half-point byes,
//! those of rounds to come too), and `dopis event
//! start` then pairs the next round from them as if dopis had paired them
//! all.
//!
//! The file names the players (their addresses, languages); the TRF file
//! their pairing numbers and history. Each TRF player is the file's player
//! of the same name (case and spacing aside), so a name the two spell
//! differently is refused, naming both lists, rather than guessed.
//! Everything commits in the caller's transaction: a refused file stores
//! nothing.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::pairings::event_game;
use super::results::{Ruling, apply};
use super::{StoredEvent, TdError, refused};
use crate::adapter::store::Tx;
use crate::adapter::store::events::{SwissBye, SwissRound};
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::GameResult;
use crate::domain::chess::outcome::ResultKind;
use crate::domain::event::SideResult;
use crate::domain::event::file::{self, EventKind};
use crate::domain::event::swiss::trf::Trf;
use crate::domain::event::swiss::{Absence, Entry};
use crate::domain::ids::EventId;

/// What an event created from a TRF file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumed {
    /// The event.
    pub event: EventId,
    /// The rounds the TRF file gave, stored as played.
    pub rounds_played: u32,
    /// The games stored.
    pub games: usize,
}

/// Names compared as people write them: case and runs of spaces aside.
fn same_name(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Creates the Swiss event of `file_text` with the rounds of `trf`
/// played (see the module's text), open to `dopis event start`.
pub async fn create_from_trf(
    tx: &mut Tx,
    file_text: &str,
    trf: &Trf,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<Resumed, TdError> {
    let mut event = file::parse(file_text)?;
    let EventKind::Swiss { players, rules, .. } = &mut event.kind else {
        return refused(
            "only a Swiss event (kind = \"swiss\") is created from a TRF file; create others \
             without --trf",
        );
    };
    let t = &trf.tournament;
    if trf.rounds_declared && t.rounds != rules.rounds {
        return refused(format!(
            "the TRF file says XXR {} but the event file has rounds = {}: make them the same",
            t.rounds, rules.rounds
        ));
    }
    // Round 1's colours (`XXC`) need no keeping: dopis reads the lot
    // back from round 1's games, which are the file's.
    if t.acceleration != rules.acceleration() {
        return refused(
            "the TRF file and the event file differ on Baku acceleration: set acceleration in \
             the event file as the TRF file has it",
        );
    }
    let played = t.paired_rounds();
    if played == 0 {
        return refused(
            "the TRF file has no round paired: create the event without --trf and start it",
        );
    }
    if played >= rules.rounds {
        return refused(format!(
            "the TRF file has all {played} rounds paired: there is nothing left to play"
        ));
    }
    // The file's players in pairing-number order, by name.
    let mut by_name: HashMap<String, usize> = HashMap::new();
    for (i, p) in players.iter().enumerate() {
        if by_name.insert(same_name(&p.name), i).is_some() {
            return refused(format!(
                "two players of the event file are named {:?}: a TRF player is found by name, \
                 so names must differ",
                p.name
            ));
        }
    }
    let mut order = Vec::with_capacity(trf.people.len());
    let mut missing = Vec::new();
    for (n, person) in trf.people.iter().enumerate() {
        match by_name.remove(&same_name(&person.name)) {
            Some(i) => order.push(i),
            None => missing.push(format!("{} {:?}", n + 1, person.name)),
        }
    }
    if !missing.is_empty() || !by_name.is_empty() {
        let mut left: Vec<&str> = by_name.keys().map(String::as_str).collect();
        left.sort_unstable();
        return refused(format!(
            "every TRF player must be a player of the event file with the same name: not in \
             the event file: {}; in the event file but not the TRF file: {}",
            if missing.is_empty() {
                "none".to_string()
            } else {
                missing.join(", ")
            },
            if left.is_empty() {
                "none".to_string()
            } else {
                left.join(", ")
            }
        ));
    }
    // Seats are pairing numbers: stored in the TRF file's order.
    let ordered: Vec<_> = order
        .iter()
        .filter_map(|&i| players.get(i).cloned())
        .collect();
    *players = ordered;
    // Every round the file has an entry for, paired or not: a bye asked
    // for a round to come is refused too, not dropped.
    let last = t.players.iter().map(|p| p.rounds.len()).max().unwrap_or(0) as u32;
    for round in 1..=last {
        check_round(trf, round)?;
    }

    if !event.tds.iter().any(|td| td == by) {
        return refused(format!(
            "{by} is not one of the event file's tds: give one of them with --by"
        ));
    }
    let id = super::store_event(tx, &event, now).await?;
    let ev = StoredEvent::load(tx, id).await?;
    // Half-point byes (H), of the rounds played and the rounds to come
    // (asked for before the move): kept as byes asked for by mail are.
    for (i, p) in t.players.iter().enumerate() {
        for (r, entry) in p.rounds.iter().enumerate() {
            if *entry == Entry::Unpaired(Absence::Half) {
                let bye = SwissBye {
                    seat: i as u32 + 1,
                    round: r as u32 + 1,
                };
                tx.add_swiss_bye(id, bye, now).await?;
            }
        }
    }
    let mut games = 0;
    for round in 1..=played {
        let pairing = t.pairing_of(round);
        tx.add_swiss_round(
            id,
            SwissRound {
                round,
                bye_seat: pairing.bye.map(|b| b as u32 + 1),
            },
            now,
        )
        .await?;
        for (board, p) in pairing.games.iter().enumerate() {
            let seat = |i: usize| {
                ev.holder(None, i as u32 + 1)
                    .map(|e| e.player.id)
                    .ok_or_else(|| super::corrupt(format!("event {id}: seat {} is empty", i + 1)))
            };
            let game = event_game(&ev, seat(p.white)?, seat(p.black)?, ev.event.start.clone());
            let number = tx.add_game(&game, now).await?;
            tx.link_game(number, id, round, board as u32 + 1).await?;
            let Entry::Game {
                result: Some(result),
                played,
                ..
            } = t.entry(p.white, round)
            else {
                return Err(super::corrupt(format!(
                    "round {round}: the game of {} has no result after the check",
                    p.white + 1
                )));
            };
            let result = match result {
                SideResult::Win => GameResult::WhiteWins,
                SideResult::Draw => GameResult::Draw,
                SideResult::Loss => GameResult::BlackWins,
            };
            let kind = if played {
                ResultKind::Board
            } else {
                ResultKind::Default
            };
            let reason = format!("round {round} as the TRF file gives it (played before dopis)");
            apply(
                tx,
                number,
                Ruling::Result(result, kind),
                &reason,
                by,
                now,
                None,
            )
            .await?;
            games += 1;
        }
    }
    Ok(Resumed {
        event: id,
        rounds_played: played,
        games,
    })
}

/// A round dopis can keep as the TRF file has it: every game with a
/// result one side won or both drew (not a double forfeit), and no
/// full-point bye (the arbiter's, which dopis does not give).
fn check_round(trf: &Trf, round: u32) -> Result<(), TdError> {
    let t = &trf.tournament;
    for (i, p) in t.players.iter().enumerate() {
        let who = || {
            format!(
                "player {} ({})",
                i + 1,
                trf.people.get(i).map_or("", |p| &p.name)
            )
        };
        match p.entry(round) {
            Some(Entry::Game { result: None, .. }) => {
                return refused(format!(
                    "round {round}: {} has no result: a TRF file moved into dopis gives every \
                     result of the rounds it holds (leave a round out until it is over)",
                    who()
                ));
            }
            Some(Entry::Game {
                opponent,
                result: Some(SideResult::Loss),
                played: false,
                ..
            }) if matches!(
                t.entry(*opponent, round),
                Entry::Game {
                    result: Some(SideResult::Loss),
                    ..
                }
            ) =>
            {
                return refused(format!(
                    "round {round}: {} and {} both lost by forfeit; dopis keeps a game's result \
                     for one side or a draw: make it a win by forfeit for one of them, or leave \
                     both unpaired (0000 - Z)",
                    who(),
                    opponent + 1
                ));
            }
            Some(Entry::Unpaired(Absence::Full)) => {
                return refused(format!(
                    "round {round}: {} has a full-point bye the arbiter gave (F); dopis gives \
                     none: write it as a win by forfeit against a player who was absent, or as \
                     0000 - H or - Z",
                    who()
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
