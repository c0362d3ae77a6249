//! Swiss events played by mail (`kind = "swiss"`): `event start` gives
//! the players their pairing numbers (by rating, then name: FIDE C.04.2
//! Article 2) and pairs round 1; when every game of a round has ended the
//! daemon pairs the next one, until the event's `rounds` are played. The
//! pairing is the pure [`swiss`](crate::domain::event::swiss) engine's
//! (FIDE Dutch, C.04.3 as revised in 2025) on the tournament as stored:
//! the event's games, and the byes of `swiss_rounds`.
//!
//! A round is paired in one transaction with its games, their first mails,
//! the bye's mail and its `swiss_rounds` row, whose primary key refuses a
//! second pairing of the same round: a crash before the commit pairs
//! nothing, and the next pass pairs the round once.

use chrono::{DateTime, Utc};

use super::pairings::{add_event_game, event_game};
use super::swiss_table::{rating_of, rules_of, tournament};
use super::{StoredEvent, TdError, refused};
use crate::adapter::mail::compose::StandingLine;
use crate::adapter::store::Tx;
use crate::adapter::store::events::{EventStatus, SwissRound};
use crate::adapter::store::games::GameStatus;
use crate::domain::event::Side;
use crate::domain::event::file::EventKind;
use crate::domain::event::swiss::trf::{Person, Trf};
use crate::domain::event::swiss::{Absence, Entry, RoundPairing, Seed, initial_order};
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::PlayerId;
use crate::service::post::Post;

/// Starts a Swiss event: the pairing numbers by the initial order, then
/// round 1 paired with its games and mails. Returns round 1's games.
pub(super) async fn start(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let rules = rules_of(ev)?;
    let seated: Vec<_> = ev.entrants.iter().filter(|e| e.seat.is_some()).collect();
    if seated.len() <= rules.rounds as usize {
        return refused(format!(
            "event {} has {} players and {} rounds: every player needs a new opponent each round, so it needs at least {} players",
            ev.record.id,
            seated.len(),
            rules.rounds,
            rules.rounds + 1
        ));
    }
    // An event moved into dopis mid-way (created from a TRF file) keeps
    // the file's pairing numbers and rounds: its next round is paired.
    let stored = tx.swiss_rounds(ev.record.id).await?;
    if let Some(last) = stored.iter().map(|r| r.round).max() {
        tx.set_event_started(ev.record.id, now).await?;
        let ev = StoredEvent::load(tx, ev.record.id).await?;
        return pair_round(tx, post, &ev, last + 1, now).await;
    }
    let ids: Vec<PlayerId> = seated.iter().map(|e| e.player.id).collect();
    let ratings = tx.ratings_of(&ids).await?;
    let seeds: Vec<Seed<'_>> = seated
        .iter()
        .map(|e| Seed {
            rating: rating_of(&ratings, e.player.id),
            title: None,
            name: &e.player.name,
        })
        .collect();
    // C.04.2 Article 2: rating, then name; fixed now, so a rating that
    // changes during the event changes no pairing number.
    for (number, &i) in initial_order(&seeds).iter().enumerate() {
        if let Some(e) = seated.get(i) {
            tx.set_entrant_seat(e.id, number as u32 + 1).await?;
        }
    }
    tx.set_event_started(ev.record.id, now).await?;
    let ev = StoredEvent::load(tx, ev.record.id).await?;
    pair_round(tx, post, &ev, 1, now).await
}

/// Pairs `round` of a started Swiss event: its games with their first
/// mails, the bye's mail, and its `swiss_rounds` row. Returns the games.
pub(super) async fn pair_round(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    round: u32,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    pair_round_again(tx, post, ev, round, None, now).await
}

/// [`pair_round`], for the first pairing (`again` `None`) or a round
/// paired again by the TD action `again` (`dopis event repair-round`),
/// whose id keeps the bye's mail apart from the first pairing's.
pub(super) async fn pair_round_again(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    round: u32,
    again: Option<i64>,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let event = ev.record.id;
    let rules = rules_of(ev)?;
    let rounds = tx.swiss_rounds(event).await?;
    if rounds.iter().any(|r| r.round == round) {
        return refused(format!(
            "round {round} of event {event} is paired already; a round is paired once"
        ));
    }
    let mut t = tournament(tx, ev, &rounds).await?;
    // A half-point bye asked for this round: the player is not paired
    // (the engine pairs only those with no entry for the round yet).
    let asked: Vec<u32> = tx
        .swiss_byes(event)
        .await?
        .into_iter()
        .filter(|b| b.round == round)
        .map(|b| b.seat)
        .collect();
    for seat in &asked {
        if let Some(p) = seat
            .checked_sub(1)
            .and_then(|s| t.players.get_mut(s as usize))
        {
            p.rounds
                .resize(round as usize - 1, Entry::Unpaired(Absence::Zero));
            p.rounds.push(Entry::Unpaired(Absence::Half));
        }
    }
    // C.04.3 5.1: round 1's first colour by lot, drawn at its first
    // pairing; [`tournament`] reads it back from round 1's games after.
    if round == 1 && !tx.event_games(event).await?.iter().any(|g| g.round == 1) {
        t.initial_colour = if rand::random_bool(0.5) {
            Side::White
        } else {
            Side::Black
        };
    }
    // Withdrawn players are not paired again: an absence for this round.
    for e in ev.entrants.iter().filter(|e| e.withdrawn_at.is_some()) {
        if let Some(p) = e.seat.and_then(|s| t.players.get_mut(s as usize - 1)) {
            p.rounds
                .resize(round as usize - 1, Entry::Unpaired(Absence::Zero));
            p.rounds.push(Entry::Unpaired(Absence::Zero));
        }
    }
    let pairing = t.pair(round).map_err(|e| {
        TdError::Refused(format!(
            "event {event}: {e}; the TD must decide (a result, a withdrawal), and the round is paired on the next pass"
        ))
    })?;
    tx.add_swiss_round(
        event,
        SwissRound {
            round,
            bye_seat: pairing.bye.map(|b| b as u32 + 1),
        },
        now,
    )
    .await?;
    let games = create_games(tx, post, ev, &pairing, now).await?;
    let withdrawn = super::swiss_table::withdrawn_seats(ev);
    for seat in asked {
        if seat == 0 || withdrawn.contains(&(seat as usize - 1)) {
            continue;
        }
        if let Some(e) = ev.holder(None, seat) {
            super::swiss_byes::tell_paired(tx, post, ev, &e.player, round, now).await?;
        }
    }
    if let Some(bye) = pairing.bye.and_then(|b| ev.holder(None, b as u32 + 1)) {
        let letter = super::standings_letter_with_bye(
            tx,
            event,
            Some((round, rules.bye_points().to_string())),
        )
        .await?;
        super::tell(
            tx,
            post,
            match again {
                None => format!("e{}.bye.{round}.{}", event.0, bye.player.email),
                Some(a) => format!("td{a}.e{}.bye.{round}.{}", event.0, bye.player.email),
            },
            letter,
            &bye.player,
            now,
        )
        .await?;
    }
    Ok(games)
}

/// Creates the games of a paired round and queues their first mails.
async fn create_games(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    pairing: &RoundPairing,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let event = ev.record.id;
    let missing = || super::corrupt(format!("event {event}: a paired seat is empty"));
    // A Chess960 event drawn once for the event keeps round 1's position.
    let earlier = tx.event_games(event).await?.first().map(|g| g.game.start());
    let start = match (ev.event.chess960, earlier) {
        (None, _) => ev.event.start.clone(),
        (Some(crate::domain::event::Chess960Draw::Fixed(n)), _) => {
            crate::domain::chess::game::StartPosition::Chess960(n)
        }
        (Some(crate::domain::event::Chess960Draw::PerEvent), Some(first)) => first,
        (Some(_), _) => {
            let mut rng = rand::rng();
            crate::domain::chess::game::StartPosition::Chess960(rand::Rng::random_range(
                &mut rng,
                0..crate::domain::chess::game::CHESS960_POSITIONS,
            ))
        }
    };
    let standings = if pairing.round > 1 {
        standing_lines(tx, ev).await?
    } else {
        Vec::new()
    };
    let mut ids = Vec::new();
    for (board, p) in pairing.games.iter().enumerate() {
        let white = ev.holder(None, p.white as u32 + 1).ok_or_else(missing)?;
        let black = ev.holder(None, p.black as u32 + 1).ok_or_else(missing)?;
        let game = event_game(ev, white.player.id, black.player.id, start.clone());
        let at = (pairing.round, board as u32 + 1);
        ids.push(add_event_game(tx, post, ev, &game, at, &standings, now).await?);
    }
    Ok(ids)
}

/// The standings a round is paired on, as its pairing mails list them:
/// place (shared places as `3-7`), name and points, best first.
async fn standing_lines(tx: &mut Tx, ev: &StoredEvent) -> Result<Vec<StandingLine>, TdError> {
    let table = super::swiss_table::table(tx, ev).await?.table;
    Ok(table
        .rows
        .iter()
        .filter_map(|row| {
            let e = ev.holder(None, row.player as u32 + 1)?;
            Some(StandingLine {
                place: if row.rank_to > row.rank {
                    format!("{}-{}", row.rank, row.rank_to)
                } else {
                    row.rank.to_string()
                },
                name: e.player.name.clone(),
                points: row.points.to_string(),
                you: false,
                player: e.player.id,
            })
        })
        .collect())
}

/// What pairing a next round did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundPaired {
    /// The event.
    pub event: EventId,
    /// The round paired.
    pub round: u32,
    /// Its games.
    pub games: Vec<GameId>,
}

/// Pairs the next round of a started Swiss event when every game of its
/// last round has ended and rounds remain; `None` otherwise (a round still
/// played, the last round paired, not a Swiss event).
pub async fn pair_next_if_done(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<RoundPaired>, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    let EventKind::Swiss { rules, .. } = &ev.event.kind else {
        return Ok(None);
    };
    if ev.record.status != EventStatus::Started {
        return Ok(None);
    }
    // Read (and on PostgreSQL locked) before the games: a second daemon
    // waits here, then finds the round paired.
    let rounds = tx.swiss_rounds(event).await?;
    let last = rounds.iter().map(|r| r.round).max().unwrap_or(0);
    if last == 0 || last >= rules.rounds {
        return Ok(None);
    }
    let games = tx.event_games(event).await?;
    if games.iter().any(|g| g.game.status != GameStatus::Finished) {
        return Ok(None);
    }
    let round = last + 1;
    let games = pair_round(tx, post, &ev, round, now).await?;
    Ok(Some(RoundPaired {
        event,
        round,
        games,
    }))
}

/// The event as a FIDE Tournament Report File (TRF16 with the TRF-2026
/// lines the engine reads: `XXR`, `XXC`, the points), every paired round
/// in it, so a FIDE-endorsed program (or `dopis swiss check`) can pair
/// each round again and compare.
///
/// With `before` a round, the file as it stood before that round was
/// paired: the rounds before it with their results, and who was not to be
/// paired in it (byes asked for, withdrawals). A FIDE-endorsed program
/// pairs the round from it (`bbpPairings --dutch FILE -p`), to compare
/// with dopis's pairing; it reads no game without a result, so a round
/// still played is checked this way.
pub async fn event_trf(
    tx: &mut Tx,
    event: EventId,
    before: Option<u32>,
) -> Result<String, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    rules_of(&ev)?;
    let rounds = tx.swiss_rounds(event).await?;
    let mut t = tournament(tx, &ev, &rounds).await?;
    if let Some(round) = before {
        let paired = rounds.iter().map(|r| r.round).max().unwrap_or(0);
        if round < 1 || round > paired {
            return refused(format!(
                "event {event} has rounds 1 to {paired} paired: give one of them to --before-round \
                 (the file as it stood before that round was paired)"
            ));
        }
        t = t.before(round);
    }
    let people = (0..t.players.len())
        .map(|i| Person {
            name: ev
                .holder(None, i as u32 + 1)
                .map(|e| e.player.name.clone())
                .unwrap_or_default(),
            ..Person::default()
        })
        .collect();
    Ok(Trf::new(&ev.record.name, people, t).write())
}

/// The started Swiss events none of whose games is still being played
/// (for the daemon's pass): those whose next round may be due.
pub async fn between_rounds(
    store: &crate::adapter::store::Store,
) -> Result<Vec<EventId>, crate::adapter::store::StoreError> {
    let mut tx = store.begin().await?;
    let events = tx.swiss_events_between_rounds().await?;
    tx.commit().await?;
    Ok(events)
}

/// What the daemon's pass found for a Swiss event's next round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextRound {
    /// Paired, its games and mails committed.
    Paired(RoundPaired),
    /// Not due (a game still played, the last round paired).
    NotDue,
    /// Due, but the pairing refused: the TD must decide (a result, a
    /// withdrawal). Nothing was changed.
    Refused {
        /// The round that could not be paired.
        round: u32,
        /// Why, in the pairing's words.
        why: String,
    },
}

/// [`pair_next_if_done`] in a transaction of its own (the daemon's pass):
/// the round, its games and every mail commit together or not at all; a
/// refusal changes nothing and says why.
pub async fn next_round_due(
    store: &crate::adapter::store::Store,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<NextRound, crate::adapter::store::StoreError> {
    let mut tx = store.begin().await?;
    match pair_next_if_done(&mut tx, post, event, now).await {
        Ok(done) => {
            if done.is_some() {
                crate::service::crash_point("before-swiss-round-commit");
            }
            tx.commit().await?;
            Ok(done.map_or(NextRound::NotDue, NextRound::Paired))
        }
        Err(TdError::Store(e)) => Err(e),
        Err(TdError::Refused(why)) => {
            let round = tx.swiss_rounds(event).await?.len() as u32 + 1;
            Ok(NextRound::Refused { round, why })
        }
        Err(e) => Err(crate::adapter::store::StoreError::Corrupt(format!(
            "pairing the next round of event {event}: {e}"
        ))),
    }
}

/// [`next_round_due`], a refusal as an error (the work is put off and
/// logged).
pub async fn pair_next_due(
    store: &crate::adapter::store::Store,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<RoundPaired>, crate::adapter::store::StoreError> {
    match next_round_due(store, post, event, now).await? {
        NextRound::Paired(p) => Ok(Some(p)),
        NextRound::NotDue => Ok(None),
        NextRound::Refused { why, .. } => Err(crate::adapter::store::StoreError::Corrupt(format!(
            "pairing the next round of event {event}: {why}"
        ))),
    }
}
