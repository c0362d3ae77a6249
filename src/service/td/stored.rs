//! An event as stored: its settings (kept as JSON in `events.settings`)
//! and rows, rebuilt as the pure [`Event`] with its seats.

use super::{EntrantRecord, EventRecord, TdError, TeamRecord, corrupt, refused};
use crate::adapter::store::StoreError;
use crate::adapter::store::Tx;
use crate::domain::address::EmailAddress;
use crate::domain::clock::TimeControl;
use crate::domain::event::berger::Cycles;
use crate::domain::event::file::{Entrant, Event, EventKind, Team};
use crate::domain::event::olympiad::GamesPerPairing;
use crate::domain::event::tiebreak::{TeamCriterion, TieBreak};
use crate::domain::event::{Decision, GameState, Points, Scoring, WithdrawalRule};
use crate::domain::ids::EventId;
use crate::domain::player::PlayerId;
pub(super) use crate::service::event_settings::EventSettings as Settings;
pub use crate::service::event_settings::GameRules;
use crate::service::event_settings::{StoredSides, StoredTeam};

impl StoredSides {
    fn of(sides: &crate::domain::event::consultation::Sides) -> StoredSides {
        StoredSides {
            vote_hours: sides.vote_hours,
            teams: sides
                .teams
                .iter()
                .map(|t| StoredTeam {
                    name: t.name.clone(),
                    captain: t.captain.to_string(),
                    members: t.members.iter().map(|m| m.email.to_string()).collect(),
                })
                .collect(),
        }
    }

    /// The sides again, with each member as registered now.
    async fn load(
        &self,
        tx: &mut Tx,
        id: EventId,
    ) -> Result<crate::domain::event::consultation::Sides, TdError> {
        use crate::domain::event::consultation::{Sides, VotingTeam};
        let mut teams = Vec::new();
        for t in &self.teams {
            let mut members = Vec::new();
            for address in &t.members {
                let player = tx
                    .player_by_email(address)
                    .await?
                    .ok_or_else(|| corrupt(format!("event {id}: member {address} is no player")))?;
                members.push(Entrant {
                    email: player.email.clone(),
                    name: player.name.clone(),
                    lang: Some(player.lang),
                });
            }
            teams.push(VotingTeam {
                name: t.name.clone(),
                captain: EmailAddress::parse(&t.captain)
                    .map_err(|e| corrupt(format!("event {id} captain: {e}")))?,
                members,
            });
        }
        let teams: [VotingTeam; 2] = teams
            .try_into()
            .map_err(|_| corrupt(format!("event {id}: a consultation game needs two sides")))?;
        Ok(Sides {
            teams,
            vote_hours: self.vote_hours,
        })
    }
}

pub(super) fn rule_key(rule: WithdrawalRule) -> &'static str {
    match rule {
        WithdrawalRule::ForfeitAll => "forfeit-all",
        WithdrawalRule::AnnulIfUnderHalf => "annul-if-under-half",
    }
}

/// The kind an event is stored and listed as. A consultation game is a
/// round robin of its two captains underneath, but TDs, the lists and the
/// pages name it for what it is.
pub(super) fn kind_key(event: &crate::domain::event::file::Event) -> &'static str {
    match &event.kind {
        EventKind::RoundRobin { .. } if event.consultation.is_some() => "consultation",
        EventKind::RoundRobin { .. } => "round-robin",
        EventKind::Olympiad { .. } => "olympiad",
        EventKind::TeamMatch { .. } => "team-match",
        EventKind::Swiss { .. } => "swiss",
    }
}

fn points(p: f64) -> Points {
    Points::from_quarters((p * 4.0).round() as i64)
}

impl Settings {
    pub(super) fn of(event: &Event) -> Settings {
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
            EventKind::Swiss { tie_breaks, .. } => (
                tie_breaks.iter().map(|t| t.key().to_string()).collect(),
                0,
                0,
                0,
            ),
        };
        Settings {
            time_control: event.time_control.to_string(),
            leave_days: event.leave_days,
            win: event.scoring.win.as_f64(),
            draw: event.scoring.draw.as_f64(),
            loss: event.scoring.loss.as_f64(),
            withdrawal: rule_key(event.withdrawal).to_string(),
            sb_counts_unplayed: event.sb_counts_unplayed,
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
            rated: event.rated,
            tablebase: event.tablebase,
            start_fen: match &event.start {
                crate::domain::chess::game::StartPosition::Fen(fen) => Some(fen.clone()),
                _ => None,
            },
            entries: event.entries.clone(),
            stages: event.stages.clone(),
            start_moves: event.opening.as_ref().map(|o| o.text().to_owned()),
            chess960: event.chess960.map(|d| d.key()),
            consultation: event.consultation.as_ref().map(StoredSides::of),
            swiss: match &event.kind {
                EventKind::Swiss { rules, .. } => Some(*rules),
                _ => None,
            },
            lang: event.lang.map(|l| l.code().to_owned()),
        }
    }
}

/// How a stored game counts for standings.
pub(super) fn state_of(g: &crate::adapter::store::games::EventGame) -> GameState {
    use crate::adapter::store::games::GameStatus;
    use crate::domain::chess::game::{GameResult, Outcome};
    if g.closed_by_withdrawal || g.game.status != GameStatus::Finished {
        return GameState::Unfinished;
    }
    if g.game.is_cancelled() {
        return GameState::Cancelled;
    }
    let (Some(result), Some(reason)) = (&g.game.result, &g.game.end_reason) else {
        return GameState::Unfinished;
    };
    let Some(result) = GameResult::from_pgn(result) else {
        return GameState::Unfinished;
    };
    let decision = Outcome::from_description(result, reason)
        .and_then(|o| Decision::of(o.reason.kind()))
        .unwrap_or(Decision::Played);
    GameState::Finished {
        outcome: result,
        decision,
    }
}

/// The rules a stored event's games are played by.
pub async fn game_rules(tx: &mut Tx, event: EventId) -> Result<GameRules, StoreError> {
    Ok(Settings::read(tx, event).await?.rules())
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
        let s = Settings::decode(id, &record.settings)?;
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
        let tie_breaks = || -> Vec<TieBreak> {
            s.tie_breaks
                .iter()
                .filter_map(|t| TieBreak::named(t).ok())
                .flatten()
                .fold(Vec::new(), |mut out, t| {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                    out
                })
        };
        let kind = match record.kind.as_str() {
            "swiss" => EventKind::Swiss {
                players: seated(None),
                tie_breaks: tie_breaks(),
                rules: s.swiss.ok_or_else(|| {
                    corrupt(format!("event {id}: a Swiss event without its rounds"))
                })?,
            },
            "round-robin" | "consultation" => EventKind::RoundRobin {
                cycles: if s.cycles == 2 {
                    Cycles::Double
                } else {
                    Cycles::Single
                },
                players: seated(None),
                // An event stored before `baumbach` named ICCF's chain has
                // `baumbach` in its list; it is read as the chain now.
                tie_breaks: tie_breaks(),
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
        let start = match &s.start_fen {
            Some(fen) => crate::domain::chess::game::StartPosition::fen(fen)
                .map_err(|e| corrupt(format!("event {id} start: {e}")))?,
            None => crate::domain::chess::game::StartPosition::Standard,
        };
        let opening = s
            .start_moves
            .as_deref()
            .map(|line| crate::domain::chess::opening::Opening::read(&start, line))
            .transpose()
            .map_err(|e| corrupt(format!("event {id} start moves: {e}")))?;
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
            sb_counts_unplayed: s.sb_counts_unplayed,
            draws: s.draws,
            analysis_link: s.analysis_link()?,
            messages: s.messages,
            rated: s.rated,
            visibility: record.visibility,
            lang: s.page_lang(),
            tablebase: s.tablebase,
            start,
            opening,
            chess960: s
                .chess960
                .as_deref()
                .map(|k| {
                    crate::domain::event::Chess960Draw::from_key(k)
                        .ok_or_else(|| corrupt(format!("event {id} chess960 '{k}'")))
                })
                .transpose()?,
            entries: s.entries,
            stages: s.stages,
            consultation: match &s.consultation {
                Some(sides) => Some(sides.load(tx, id).await?),
                None => None,
            },
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
        !matches!(
            self.event.kind,
            EventKind::RoundRobin { .. } | EventKind::Swiss { .. }
        )
    }

    /// The entrant holding a seat: `(team, seat)`; team `None` in a round robin.
    pub(super) fn holder(&self, team: Option<u32>, seat: u32) -> Option<&EntrantRecord> {
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

    pub(crate) fn check_td(&self, by: &EmailAddress) -> Result<(), TdError> {
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

/// Every event, by number (`dopis event list`).
pub async fn events(tx: &mut Tx) -> Result<Vec<super::EventRecord>, StoreError> {
    tx.events().await
}

/// What the TDs did in an event, oldest first (`dopis event show`).
pub async fn log(tx: &mut Tx, event: EventId) -> Result<Vec<super::TdAction>, StoreError> {
    tx.td_actions(event).await
}
