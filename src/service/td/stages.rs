//! Events played in stages (`[stages]` in the file): `event start` (or the
//! close of its entries) splits the players into preliminary groups by the
//! snake of their ratings, each a round robin of its own (`Name group 2`);
//! an olympiad's teams likewise (by the average rating of their boards),
//! each group an olympiad of its own, as ICCF's olympiad preliminaries;
//! when the last game of the last group ends, the daemon builds the final
//! of the best of each group as the file says (the groups' own tie-breaks,
//! then its `tie_at_line` rule), starts it and tells every player whether
//! they went through. A TD's late result changes who goes through only
//! until the final is built: the final is built once, from the groups as
//! they stand then.

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError, refused};
use crate::adapter::mail::compose::{EntryNews, LetterKind, OpenEvent};
use crate::adapter::store::Tx;
use crate::adapter::store::events::EventStatus;
use crate::adapter::store::games::GameStatus;
use crate::domain::event::entries::{GroupLine, Seedable, Stages, qualifiers, seed, snake};
use crate::domain::event::file::{Entrant, Event, EventKind, Team};
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::{Player, PlayerId};
use crate::service::post::Post;

/// Who a stage's groups are made of: players, or an olympiad's teams.
#[derive(Debug, Clone)]
enum Unit {
    Player(Player),
    Team(Team),
}

/// One stage's event: the whole event's settings with these players (a
/// round robin) or teams (an olympiad).
fn stage_event(whole: &Event, name: String, units: Vec<Unit>) -> Event {
    let mut stage = whole.clone();
    stage.name = name;
    stage.entries = None;
    stage.stages = None;
    match &mut stage.kind {
        EventKind::RoundRobin { players, .. } => {
            *players = units
                .iter()
                .filter_map(|u| match u {
                    Unit::Player(p) => Some(entrant(p)),
                    Unit::Team(_) => None,
                })
                .collect();
        }
        EventKind::Olympiad { teams, .. } => {
            *teams = units
                .into_iter()
                .filter_map(|u| match u {
                    Unit::Team(t) => Some(t),
                    Unit::Player(_) => None,
                })
                .collect();
        }
        EventKind::TeamMatch { .. } | EventKind::Swiss { .. } => {}
    }
    stage
}

/// A team event's teams as they stand: each board's holder now (a
/// substitute where one replaced the player) and the reserves, by
/// starting number, with the average rating of the boards (the rated
/// ones; `None` when none is rated).
async fn teams_now(tx: &mut Tx, ev: &StoredEvent) -> Result<Vec<(Team, Option<i32>)>, TdError> {
    let ids: Vec<PlayerId> = ev.entrants.iter().map(|e| e.player.id).collect();
    let ratings = tx.ratings_of(&ids).await?;
    let mut out = Vec::new();
    for t in &ev.teams {
        let mut boards: Vec<(u32, &Player)> = ev
            .entrants
            .iter()
            .filter(|e| e.team == Some(t.number))
            .filter_map(|e| e.seat.map(|s| (s, &e.player)))
            .collect();
        boards.sort_by_key(|(s, _)| *s);
        let rated: Vec<i64> = boards
            .iter()
            .filter_map(|(_, p)| ratings.get(&p.id).map(|r| i64::from(*r)))
            .collect();
        let average =
            (!rated.is_empty()).then(|| (rated.iter().sum::<i64>() / rated.len() as i64) as i32);
        let reserves = ev
            .entrants
            .iter()
            .filter(|e| e.team == Some(t.number) && e.seat.is_none())
            .map(|e| entrant(&e.player))
            .collect();
        out.push((
            Team {
                name: t.name.clone(),
                boards: boards.iter().map(|(_, p)| entrant(p)).collect(),
                reserves,
            },
            average,
        ));
    }
    Ok(out)
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
        EventKind::RoundRobin { players, .. } | EventKind::Swiss { players, .. } => players.len(),
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
        _ => crate::domain::event::berger::MIN_ENTRANTS,
    };
    if count < needed {
        return refused(format!(
            "event {event} has {count} entrants; a {} needs at least {needed}",
            ev.record.kind
        ));
    }
    if let EventKind::Swiss { .. } = &ev.event.kind {
        return super::swiss::start(tx, post, &ev, now).await;
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
    let (units, what): (Vec<(Unit, Option<i32>)>, &str) = match &ev.event.kind {
        EventKind::Olympiad { .. } => (
            teams_now(tx, ev)
                .await?
                .into_iter()
                .map(|(t, r)| (Unit::Team(t), r))
                .collect(),
            "teams",
        ),
        _ => {
            let players: Vec<Player> = ev
                .entrants
                .iter()
                .filter(|e| e.seat.is_some() && e.withdrawn_at.is_none())
                .map(|e| e.player.clone())
                .collect();
            let ids: Vec<_> = players.iter().map(|p| p.id).collect();
            let ratings = tx.ratings_of(&ids).await?;
            (
                players
                    .into_iter()
                    .map(|p| {
                        let r = ratings.get(&p.id).copied();
                        (Unit::Player(p), r)
                    })
                    .collect(),
                "players",
            )
        }
    };
    let least = stages.groups as usize * crate::domain::event::berger::MIN_ENTRANTS;
    if units.len() < least {
        return refused(format!(
            "event {} has {} {what}; {} groups need at least {least}",
            ev.record.id,
            units.len(),
            stages.groups
        ));
    }
    let (seeded, _) = seed(
        units
            .into_iter()
            .enumerate()
            .map(|(i, (who, rating))| Seedable {
                rating,
                // Equal ratings keep the file's order.
                confirmed_at: DateTime::<Utc>::from_timestamp(i as i64, 0).unwrap_or(now),
                who,
            })
            .collect(),
        u32::MAX,
    );
    let mut games = Vec::new();
    for (k, group) in snake(seeded, stages.groups).into_iter().enumerate() {
        let number = k as u32 + 1;
        let name = stages.group(&ev.record.name, number);
        let stage = stage_event(&ev.event, name, group);
        let id = super::store_event(tx, &stage, now).await?;
        tx.set_section_of(id, ev.record.id, number).await?;
        let group = StoredEvent::load(tx, id).await?;
        games.extend(super::pairings::start_games(tx, post, &group, now).await?);
    }
    tx.set_event_takes_stages(ev.record.id).await?;
    tx.set_event_started(ev.record.id, now).await?;
    Ok(games)
}

impl Unit {
    /// Tells units apart across an event (a player by their id, a team by
    /// its name, which the file keeps unique).
    fn key(&self) -> String {
        match self {
            Unit::Player(p) => format!("player {}", p.id.0),
            Unit::Team(t) => format!("team {}", t.name),
        }
    }

    /// The name a TD reads.
    fn name(&self) -> &str {
        match self {
            Unit::Player(p) => &p.name,
            Unit::Team(t) => &t.name,
        }
    }
}

/// Everyone of a group (or final), as units: its players, or its teams as
/// they stand.
async fn units_of(tx: &mut Tx, ev: &StoredEvent) -> Result<Vec<Unit>, TdError> {
    Ok(match &ev.event.kind {
        EventKind::Olympiad { .. } => teams_now(tx, ev)
            .await?
            .into_iter()
            .map(|(t, _)| Unit::Team(t))
            .collect(),
        _ => ev
            .entrants
            .iter()
            .filter(|e| e.seat.is_some())
            .map(|e| Unit::Player(e.player.clone()))
            .collect(),
    })
}

/// Who of a group goes through by its table as it stands (best first),
/// and every player of the group.
async fn group_qualifiers(
    tx: &mut Tx,
    group: EventId,
    stages: &Stages,
) -> Result<(Vec<Unit>, Vec<PlayerId>), TdError> {
    let ev = StoredEvent::load(tx, group).await?;
    let everyone: Vec<PlayerId> = ev.entrants.iter().map(|e| e.player.id).collect();
    let lines = match &ev.event.kind {
        EventKind::Olympiad { .. } => {
            let teams = teams_now(tx, &ev).await?;
            super::standings::ranked_teams(tx, &ev)
                .await?
                .into_iter()
                .filter_map(|(number, rank)| {
                    let (team, rating) = teams.get(number as usize - 1)?.clone();
                    Some(GroupLine {
                        who: Unit::Team(team),
                        rank,
                        rating,
                        number,
                    })
                })
                .collect()
        }
        _ => {
            let ranked = super::standings::player_results(tx, &ev).await?;
            let ids: Vec<_> = ranked.iter().map(|r| r.player).collect();
            let ratings = tx.ratings_of(&ids).await?;
            let mut lines = Vec::new();
            for r in ranked {
                lines.push(GroupLine {
                    who: Unit::Player(tx.player(r.player).await?),
                    rank: (r.rank, r.rank_to),
                    rating: ratings.get(&r.player).copied(),
                    number: r.number,
                });
            }
            lines
        }
    };
    Ok((
        qualifiers(lines, stages.qualify, stages.tie_at_line),
        everyone,
    ))
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
    let in_final: Vec<String> = units_of(tx, &finalists)
        .await?
        .iter()
        .map(Unit::key)
        .collect();
    let group_ev = StoredEvent::load(tx, group).await?;
    let of_group = units_of(tx, &group_ev).await?;
    let through_keys: Vec<String> = through.iter().map(Unit::key).collect();
    let now_through = through
        .iter()
        .filter(|u| !in_final.contains(&u.key()))
        .map(|u| u.name().to_string())
        .collect();
    let no_longer = of_group
        .iter()
        .filter(|u| in_final.contains(&u.key()) && !through_keys.contains(&u.key()))
        .map(|u| u.name().to_string())
        .collect();
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
            if let Some(u) = q.get(place) {
                order.push(u.clone());
            }
        }
    }
    let name = stages.final_of(&whole.record.name);
    let going = u32::try_from(order.len()).unwrap_or(u32::MAX);
    let stage = stage_event(&whole.event, name.clone(), order);
    let id = super::store_event(tx, &stage, now).await?;
    tx.set_section_of(id, event, groups.len() as u32 + 1)
        .await?;
    tx.set_final_built(event, now).await?;
    let final_event = StoredEvent::load(tx, id).await?;
    let finalists: Vec<PlayerId> = final_event.entrants.iter().map(|e| e.player.id).collect();
    // Everyone of the groups hears whether they (their team) went
    // through, before the final's first mails.
    for p in everyone {
        let player = tx.player(p).await?;
        let through = finalists.contains(&p);
        let shown = OpenEvent {
            id: event.0,
            name: whole.record.name.clone(),
            time_control: crate::domain::locale::describe_control(
                &whole.event.time_control,
                player.lang,
            ),
            closes: String::new(),
            entered: going,
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
    super::pairings::start_games(tx, post, &final_event, now).await?;
    let players = final_event
        .entrants
        .iter()
        .filter(|e| e.seat.is_some())
        .map(|e| e.player.clone())
        .collect();
    Ok(Some(FinalBuilt { event: id, players }))
}
