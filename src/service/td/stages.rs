//! Events played in stages (`[stages]` in the file): `event start` (or the
//! close of its entries) splits the players into preliminary groups by the
//! snake of their ratings, each a round robin of its own (`Name group 2`);
//! when the last game of the last group ends, the daemon builds the final
//! of the best of each group as the file says (the groups' own tie-breaks,
//! then its `tie_at_line` rule), starts it and tells every player whether
//! they went through. A TD's late result changes who goes through only
//! until the final is built: the final is built once, from the groups as
//! they stand then.

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError, refused};
use crate::event::entries::{GroupLine, Seedable, Stages, qualifiers, seed, snake};
use crate::event::file::{Entrant, Event, EventKind};
use crate::ids::{EventId, GameId};
use crate::mail::compose::{EntryNews, LetterKind, OpenEvent};
use crate::player::{Player, PlayerId};
use crate::service::post::Post;
use crate::store::Tx;
use crate::store::events::EventStatus;
use crate::store::games::GameStatus;

/// One stage's event: the whole event's settings with these players.
fn stage_event(whole: &Event, name: String, players: Vec<Entrant>) -> Event {
    let mut stage = whole.clone();
    stage.name = name;
    stage.entries = None;
    stage.stages = None;
    if let EventKind::RoundRobin { players: p, .. } = &mut stage.kind {
        *p = players;
    }
    stage
}

fn entrant(p: &Player) -> Entrant {
    Entrant {
        email: p.email.clone(),
        name: p.name.clone(),
        lang: Some(p.lang),
    }
}

/// Starts an open event: creates every game and queues the first mails of
/// all of them (correspondence style: all games start together), or, for
/// an event played in stages, its preliminary groups; returns the games.
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
    if let Some(sides) = ev.event.consultation.clone() {
        return super::consultation::start(tx, post, &ev, &sides, now).await;
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
    match ev.event.stages.clone() {
        Some(stages) => start_groups(tx, post, &ev, stages, now).await,
        None => super::pairings::start_games(tx, post, &ev, now).await,
    }
}

/// Starts an event's preliminary groups; returns their games.
pub(super) async fn start_groups(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    stages: Stages,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let players: Vec<Player> = ev
        .entrants
        .iter()
        .filter(|e| e.seat.is_some() && e.withdrawn_at.is_none())
        .map(|e| e.player.clone())
        .collect();
    let least = stages.groups as usize * crate::event::berger::MIN_ENTRANTS;
    if players.len() < least {
        return refused(format!(
            "event {} has {} players; {} groups need at least {least}",
            ev.record.id,
            players.len(),
            stages.groups
        ));
    }
    let ids: Vec<_> = players.iter().map(|p| p.id).collect();
    let ratings = tx.ratings_of(&ids).await?;
    let (seeded, _) = seed(
        players
            .into_iter()
            .enumerate()
            .map(|(i, p)| Seedable {
                rating: ratings.get(&p.id).copied(),
                // Equal ratings keep the file's order.
                confirmed_at: DateTime::<Utc>::from_timestamp(i as i64, 0).unwrap_or(now),
                who: p,
            })
            .collect(),
        u32::MAX,
    );
    let mut games = Vec::new();
    for (k, group) in snake(seeded, stages.groups).into_iter().enumerate() {
        let number = k as u32 + 1;
        let name = stages.group(&ev.record.name, number);
        let stage = stage_event(&ev.event, name, group.iter().map(entrant).collect());
        let id = super::store_event(tx, &stage, now).await?;
        tx.set_section_of(id, ev.record.id, number).await?;
        let group = StoredEvent::load(tx, id).await?;
        games.extend(super::pairings::start_games(tx, post, &group, now).await?);
    }
    tx.set_event_takes_stages(ev.record.id).await?;
    tx.set_event_started(ev.record.id, now).await?;
    Ok(games)
}

/// Who of a group goes through by its table as it stands (best first),
/// and every player of the group.
async fn group_qualifiers(
    tx: &mut Tx,
    group: EventId,
    stages: &Stages,
) -> Result<(Vec<PlayerId>, Vec<PlayerId>), TdError> {
    let ev = StoredEvent::load(tx, group).await?;
    let ranked = super::standings::ranked_players(tx, &ev).await?;
    let ids: Vec<_> = ranked.iter().map(|(p, ..)| *p).collect();
    let ratings = tx.ratings_of(&ids).await?;
    let lines = ranked
        .iter()
        .map(|(p, rank, number)| GroupLine {
            who: *p,
            rank: *rank,
            rating: ratings.get(p).copied(),
            number: *number,
        })
        .collect();
    Ok((qualifiers(lines, stages.qualify, stages.tie_at_line), ids))
}

/// A TD's result in a group whose event's final was built already: the
/// final stays as it was built (its games are under way), so the TD must
/// rule; what the group's table now says of who goes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateResult {
    /// The group the game is in.
    pub group: String,
    /// The final's event and name.
    pub final_event: EventId,
    /// The final's name.
    pub final_name: String,
    /// Who would go through by the table now but is not in the final.
    pub now_through: Vec<String>,
    /// Who is in the final but would not go through by the table now.
    pub no_longer: Vec<String>,
}

impl LateResult {
    /// What the TD is told, in the CLI's words.
    pub fn describe(&self) -> String {
        let changes = if self.now_through.is_empty() && self.no_longer.is_empty() {
            "it does not change who goes through".to_string()
        } else {
            format!(
                "by the table now {} would go through instead of {}",
                self.now_through.join(", "),
                self.no_longer.join(", ")
            )
        };
        format!(
            "note: {} has finished and its final, event {} ({}), was built from its table before this result: the final is not changed, and {changes}. Rule on it: a result in the final (`dopis game result`) or a withdrawal from the final (`dopis event withdraw {} --email … --by … --reason …`)",
            self.group, self.final_event.0, self.final_name, self.final_event.0
        )
    }
}

/// Whether a result in `game` came after its group's final was built
/// (see [`LateResult`]); `None` for a game of no group, or before.
pub async fn late_for_final(tx: &mut Tx, game: GameId) -> Result<Option<LateResult>, TdError> {
    let Some(group) = tx.event_of_game(game).await? else {
        return Ok(None);
    };
    let Some(whole) = tx.parent_of(group).await? else {
        return Ok(None);
    };
    let whole = StoredEvent::load(tx, whole).await?;
    let Some(stages) = whole.event.stages.clone() else {
        return Ok(None);
    };
    let parts = tx.sections_of(whole.record.id).await?;
    let groups = stages.groups as usize;
    let (Some(&final_event), true) = (
        parts.get(groups),
        parts[..groups.min(parts.len())].contains(&group),
    ) else {
        return Ok(None);
    };
    let (through, _) = group_qualifiers(tx, group, &stages).await?;
    let finalists = StoredEvent::load(tx, final_event).await?;
    let in_final: Vec<PlayerId> = finalists.entrants.iter().map(|e| e.player.id).collect();
    let group_ev = StoredEvent::load(tx, group).await?;
    let of_group: Vec<PlayerId> = group_ev.entrants.iter().map(|e| e.player.id).collect();
    let mut now_through = Vec::new();
    for p in through.iter().filter(|p| !in_final.contains(p)) {
        now_through.push(tx.player(*p).await?.name);
    }
    let mut no_longer = Vec::new();
    for p in in_final
        .iter()
        .filter(|p| of_group.contains(p) && !through.contains(p))
    {
        no_longer.push(tx.player(*p).await?.name);
    }
    Ok(Some(LateResult {
        group: group_ev.record.name.clone(),
        final_event,
        final_name: finalists.record.name.clone(),
        now_through,
        no_longer,
    }))
}

/// What building a final did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalBuilt {
    /// The final's event.
    pub event: EventId,
    /// Its players, in starting order.
    pub players: Vec<Player>,
}

/// Builds and starts the final of an event played in stages when the last
/// game of its last group has ended; `None` while any is still played (or
/// the final is built already).
pub async fn build_final_if_done(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<FinalBuilt>, TdError> {
    if !tx.final_pending(event).await? {
        return Ok(None);
    }
    let whole = StoredEvent::load(tx, event).await?;
    let Some(stages) = whole.event.stages.clone() else {
        return Ok(None);
    };
    let groups = tx.sections_of(event).await?;
    let mut by_group = Vec::new();
    let mut everyone = Vec::new();
    for group in &groups {
        let games = tx.event_games(*group).await?;
        if games.iter().any(|g| g.game.status != GameStatus::Finished) {
            return Ok(None);
        }
        let (through, ids) = group_qualifiers(tx, *group, &stages).await?;
        by_group.push(through);
        everyone.extend(ids);
    }
    // Starting order: every group's winner, then every group's second, ….
    let mut order = Vec::new();
    for place in 0..stages.qualify as usize {
        for q in &by_group {
            if let Some(p) = q.get(place) {
                order.push(*p);
            }
        }
    }
    let mut players = Vec::new();
    for id in &order {
        players.push(tx.player(*id).await?);
    }
    let name = stages.final_of(&whole.record.name);
    let stage = stage_event(
        &whole.event,
        name.clone(),
        players.iter().map(entrant).collect(),
    );
    let id = super::store_event(tx, &stage, now).await?;
    tx.set_section_of(id, event, groups.len() as u32 + 1)
        .await?;
    tx.set_final_built(event, now).await?;
    // Everyone of the groups hears whether they went through, before the
    // final's first mails.
    for p in everyone {
        let player = tx.player(p).await?;
        let through = order.contains(&p);
        let shown = OpenEvent {
            id: event.0,
            name: whole.record.name.clone(),
            time_control: crate::locale::describe_control(&whole.event.time_control, player.lang),
            closes: String::new(),
            entered: u32::try_from(order.len()).unwrap_or(u32::MAX),
            min: 0,
            max: 0,
            start_when_full: false,
            anyone: false,
            rating: None,
        };
        let news = if through {
            EntryNews::Qualified {
                event: shown,
                stage: Some((name.clone(), id.0)),
            }
        } else {
            EntryNews::Qualified {
                event: shown,
                stage: None,
            }
        };
        super::tell(
            tx,
            post,
            format!("event.{}.final.{}", event.0, p.0),
            LetterKind::Entry { news },
            &player,
            now,
        )
        .await?;
    }
    let final_event = StoredEvent::load(tx, id).await?;
    super::pairings::start_games(tx, post, &final_event, now).await?;
    Ok(Some(FinalBuilt { event: id, players }))
}
