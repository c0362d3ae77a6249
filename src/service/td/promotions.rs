//! Promotions of open classes (`promotes` in a class's `[entries]`): when
//! the last game of one of its sections ends, the daemon's next pass
//! records the
//! qualification of every player whose result earns it (a place, or a
//! share of the points, as the class's file says) and tells them. A
//! section is recorded once; a TD's late result afterwards is reported to
//! the TD to rule on ([`late_for_promotions`]), as with a final already
//! built.

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError};
use crate::adapter::mail::compose::{EntryNews, LetterKind, OpenEvent};
use crate::adapter::store::Tx;
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::qualifications::Qualification;
use crate::domain::event::entries::Promotion;
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::PlayerId;
use crate::service::post::Post;

/// The class a section belongs to, and what it promotes (`None` for an
/// event that is no section of a class that promotes).
async fn class_promotion(
    tx: &mut Tx,
    section: EventId,
) -> Result<Option<(StoredEvent, Promotion)>, TdError> {
    let Some(class) = tx.parent_of(section).await? else {
        return Ok(None);
    };
    let class = StoredEvent::load(tx, class).await?;
    let promotes = class
        .event
        .entries
        .as_ref()
        .and_then(|r| r.promotes.clone());
    Ok(promotes.map(|p| (class, p)))
}

/// Who a finished section promotes, with their results, best first.
async fn earners(
    tx: &mut Tx,
    section: &StoredEvent,
    promotion: &Promotion,
) -> Result<Vec<super::standings::PlayerResult>, TdError> {
    Ok(super::standings::player_results(tx, section)
        .await?
        .into_iter()
        .filter(|r| promotion.earns(r.rank, r.points, r.possible))
        .collect())
}

/// Records the promotions of a section of a class whose last game has
/// ended, telling each player promoted; `None` while a game is still
/// played (or they are recorded already). Returns who was promoted.
pub async fn record_promotions_if_done(
    tx: &mut Tx,
    post: &Post,
    section: EventId,
    now: DateTime<Utc>,
) -> Result<Option<Vec<PlayerId>>, TdError> {
    if !tx.promotions_pending(section).await? {
        return Ok(None);
    }
    let games = tx.event_games(section).await?;
    if games.is_empty() || games.iter().any(|g| g.game.status != GameStatus::Finished) {
        return Ok(None);
    }
    let Some((class, promotion)) = class_promotion(tx, section).await? else {
        tx.set_promotions_done(section, now).await?;
        return Ok(Some(Vec::new()));
    };
    let ev = StoredEvent::load(tx, section).await?;
    let mut promoted = Vec::new();
    for r in earners(tx, &ev, &promotion).await? {
        let new = tx
            .add_qualification(&Qualification {
                player: r.player,
                name: promotion.to.clone(),
                event: section,
                place: r.rank,
                points: r.points,
                possible: r.possible,
                earned_at: now,
            })
            .await?;
        if !new {
            continue;
        }
        let player = tx.player(r.player).await?;
        let news = EntryNews::Promoted {
            event: OpenEvent {
                id: class.record.id.0,
                name: class.record.name.clone(),
                time_control: crate::domain::locale::describe_control(
                    &class.event.time_control,
                    player.lang,
                ),
                closes: String::new(),
                entered: 0,
                min: 0,
                max: 0,
                start_when_full: false,
                anyone: false,
                rating: None,
            },
            section: (ev.record.name.clone(), section.0),
            to: promotion.to.clone(),
            place: r.rank,
            points: r.points.decimal(),
            possible: r.possible.decimal(),
        };
        super::tell(
            tx,
            post,
            format!("event.{}.promoted.{}", section.0, r.player.0),
            LetterKind::Entry { news },
            &player,
            now,
        )
        .await?;
        promoted.push(r.player);
    }
    tx.set_promotions_done(section, now).await?;
    Ok(Some(promoted))
}

/// A TD's result in a section whose promotions were recorded already: the
/// qualifications stay as recorded (one may be held by an entry by now),
/// so the TD must rule; what the section's table now says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatePromotion {
    /// The section's name.
    pub section: String,
    /// The qualification's name.
    pub to: String,
    /// Who would earn it by the table now but was not promoted.
    pub now_earns: Vec<String>,
    /// Who was promoted but would not earn it by the table now.
    pub no_longer: Vec<String>,
}

impl LatePromotion {
    /// What the TD is told, in the CLI's words.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "note: the promotions of {} ({}) were recorded when its last game ended and stay as recorded",
            self.section, self.to
        );
        if self.now_earns.is_empty() && self.no_longer.is_empty() {
            out.push_str("; this result changes nobody's promotion.");
        } else {
            out.push_str(&format!(
                "; by the table now {} would earn it and {} would not. Rule on it: \
                 a qualification a TD grants is an entry added with `dopis event entries N --add EMAIL`.",
                if self.now_earns.is_empty() {
                    "nobody else".to_string()
                } else {
                    self.now_earns.join(", ")
                },
                if self.no_longer.is_empty() {
                    "everyone promoted still".to_string()
                } else {
                    self.no_longer.join(", ")
                },
            ));
        }
        out
    }
}

/// Whether a TD's result on `game` falls in a section whose promotions
/// were recorded, and what the table says now.
pub async fn late_for_promotions(
    tx: &mut Tx,
    game: GameId,
) -> Result<Option<LatePromotion>, TdError> {
    let Some(section) = tx.event_of_game(game).await? else {
        return Ok(None);
    };
    let Some((_, promotion)) = class_promotion(tx, section).await? else {
        return Ok(None);
    };
    // A section still played has none recorded: the result counts as any.
    if !tx.promotions_recorded(section).await? {
        return Ok(None);
    }
    let ev = StoredEvent::load(tx, section).await?;
    let mut recorded = Vec::new();
    for e in &ev.entrants {
        if tx
            .qualifications_of(e.player.id)
            .await?
            .iter()
            .any(|q| q.event == section && q.name == promotion.to)
        {
            recorded.push(e.player.id);
        }
    }
    let now: Vec<PlayerId> = earners(tx, &ev, &promotion)
        .await?
        .iter()
        .map(|r| r.player)
        .collect();
    let name = |id: &PlayerId| {
        ev.entrants
            .iter()
            .find(|e| e.player.id == *id)
            .map(|e| e.player.name.clone())
            .unwrap_or_default()
    };
    Ok(Some(LatePromotion {
        section: ev.record.name.clone(),
        to: promotion.to,
        now_earns: now
            .iter()
            .filter(|p| !recorded.contains(p))
            .map(name)
            .collect(),
        no_longer: recorded
            .iter()
            .filter(|p| !now.contains(p))
            .map(name)
            .collect(),
    }))
}
