//! Creating an event from its file, and adding players and teams while it
//! is open.

use chrono::{DateTime, Utc};

use super::stored::{Settings, kind_key};
use super::{StoredEvent, TdError, corrupt, refused, registered};
use crate::adapter::store::Tx;
use crate::adapter::store::events::EventStatus;
use crate::domain::address::EmailAddress;
use crate::domain::event::file::{self, Entrant, EventKind};
use crate::domain::ids::EventId;
use crate::domain::lang::Lang;
use crate::domain::player::{NewPlayer, Player};

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
/// players it names who are not registered yet are registered. A file
/// with an `[entries]` table is refused: it is opened for entries with
/// [`crate::service::entries::open`], and created here it would never take
/// any.
pub async fn create(tx: &mut Tx, text: &str, now: DateTime<Utc>) -> Result<EventId, TdError> {
    let event = file::parse(text)?;
    if event.entries.is_some() {
        return refused(
            "the file has an [entries] table: open the event for entries by mail with \
             `dopis event open FILE` (`dopis event create` takes files that name all their \
             players)",
        );
    }
    store_event(tx, &event, now).await
}

/// Stores a checked event, open for more entrants, with the players it
/// names (registered first when they are not yet): an event file's, or a
/// section of an open class made from its class's settings.
pub async fn store_event(
    tx: &mut Tx,
    event: &crate::domain::event::file::Event,
    now: DateTime<Utc>,
) -> Result<EventId, TdError> {
    let settings = serde_json::to_string(&Settings::of(event))
        .map_err(|e| corrupt(format!("event settings: {e}")))?;
    let tds: Vec<String> = event.tds.iter().map(|t| t.to_string()).collect();
    let id = tx
        .add_event(&event.name, kind_key(event), &settings, &tds, now)
        .await?;
    tx.set_event_visibility(id, event.visibility).await?;
    // A consultation game's members vote without a seat: registered here,
    // seated in its game when it starts.
    for team in event.consultation.iter().flat_map(|s| &s.teams) {
        for e in &team.members {
            player_for(tx, e, now).await?;
        }
    }
    match &event.kind {
        EventKind::RoundRobin { players, .. } | EventKind::Swiss { players, .. } => {
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

/// Adds the player of an address to an open round robin, with the next
/// starting number, registering them first when `register` gives their
/// name and language. Returns the player and their number.
pub async fn add_player(
    tx: &mut Tx,
    event: EventId,
    email: &EmailAddress,
    register: Option<(&str, Lang)>,
    now: DateTime<Utc>,
) -> Result<(Player, u32), TdError> {
    let player = match (tx.player_by_email(email.as_str()).await?, register) {
        (Some(p), _) => p,
        (None, Some((name, lang))) => {
            let new = NewPlayer::new(email.clone(), name, lang, None)
                .map_err(|e| TdError::Refused(e.to_string()))?;
            tx.add_player(&new, now).await?
        }
        (None, None) => {
            return refused(format!(
                "{email} is not registered: give --name (and --lang) to register them"
            ));
        }
    };
    let seat = seat_player(tx, event, &player).await?;
    Ok((player, seat))
}

/// The registered players of addresses, in their order.
async fn all_registered(tx: &mut Tx, emails: &[EmailAddress]) -> Result<Vec<Player>, TdError> {
    let mut players = Vec::with_capacity(emails.len());
    for email in emails {
        players.push(registered(tx, email).await?);
    }
    Ok(players)
}

async fn seat_player(tx: &mut Tx, event: EventId, player: &Player) -> Result<u32, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    check_open(&ev)?;
    let (players, most) = match &ev.event.kind {
        EventKind::RoundRobin { players, .. } => {
            (players, crate::domain::event::berger::MAX_ENTRANTS)
        }
        EventKind::Swiss { players, .. } => {
            (players, crate::domain::event::file::MAX_SWISS_PLAYERS)
        }
        _ => {
            return refused(format!(
                "event {event} is a team event: add a whole team with `dopis event add-team`"
            ));
        }
    };
    if players.len() >= most {
        return refused(format!("event {event} is full"));
    }
    check_not_entered(tx, event, player).await?;
    let seat = players.len() as u32 + 1;
    tx.add_entrant(event, player.id, None, Some(seat)).await?;
    Ok(seat)
}

/// Adds a team (the registered players of the addresses by board, and
/// reserves) to an open team event.
pub async fn add_team(
    tx: &mut Tx,
    event: EventId,
    name: &str,
    boards: &[EmailAddress],
    reserves: &[EmailAddress],
) -> Result<u32, TdError> {
    let (boards, reserves) = (
        all_registered(tx, boards).await?,
        all_registered(tx, reserves).await?,
    );
    let (boards, reserves) = (boards.as_slice(), reserves.as_slice());
    let ev = StoredEvent::load(tx, event).await?;
    check_open(&ev)?;
    let (want, teams) = match &ev.event.kind {
        EventKind::RoundRobin { .. } | EventKind::Swiss { .. } => {
            return refused(format!(
                "event {event} is for single players: add players with `dopis event add-player`"
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
