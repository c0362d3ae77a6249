//! Qualifications as stored (`qualifications`): what a player earned by
//! their result in a section of an open class that promotes, and which of
//! their entries hold one (`event_entries.qualification`). See
//! [`crate::domain::event::entries`] for the rules.

use super::sql::AssertSqlSafe;
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{StoreError, Tx, from_millis, to_millis};
use crate::domain::event::Points;
use crate::domain::ids::EventId;
use crate::domain::player::PlayerId;

/// A qualification as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Qualification {
    /// The player who holds it.
    pub player: PlayerId,
    /// Its name (`Higher`).
    pub name: String,
    /// The section whose result earned it.
    pub event: EventId,
    /// The player's place there, after its tie-breaks.
    pub place: u32,
    /// What they scored there, in quarter points.
    pub points: Points,
    /// What their games there could give, in quarter points.
    pub possible: Points,
    /// When it was recorded.
    pub earned_at: DateTime<Utc>,
}

impl Tx {
    /// Records a qualification; `false` when the player has it from that
    /// section already (recording twice changes nothing).
    pub async fn add_qualification(&mut self, q: &Qualification) -> Result<bool, StoreError> {
        let done = super::sql::query(
            "INSERT INTO qualifications \
               (player_id, name, event_id, place, points, possible, earned_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (player_id, event_id, name) DO NOTHING",
        )
        .bind(q.player.0)
        .bind(&q.name)
        .bind(q.event.0)
        .bind(i64::from(q.place))
        .bind(q.points.quarters())
        .bind(q.possible.quarters())
        .bind(to_millis(q.earned_at))
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// A player's qualifications, oldest first.
    pub async fn qualifications_of(
        &mut self,
        player: PlayerId,
    ) -> Result<Vec<Qualification>, StoreError> {
        super::sql::query(
            "SELECT player_id, name, event_id, place, points, possible, earned_at \
             FROM qualifications WHERE player_id = $1 ORDER BY earned_at, id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(Qualification {
                player: PlayerId(r.try_get("player_id")?),
                name: r.try_get("name")?,
                event: EventId(r.try_get("event_id")?),
                place: u32::try_from(r.try_get::<i64, _>("place")?).unwrap_or(0),
                points: Points::from_quarters(r.try_get("points")?),
                possible: Points::from_quarters(r.try_get("possible")?),
                earned_at: from_millis(r.try_get("earned_at")?)?,
            })
        })
        .collect()
    }

    /// How many qualifications named `name` the player holds that none of
    /// their entries to other events than `except` holds (entries asked
    /// for, confirmed or seated hold one; withdrawn, refused and left-out
    /// ones gave it back).
    pub async fn spare_qualifications(
        &mut self,
        player: PlayerId,
        name: &str,
        except: EventId,
    ) -> Result<u32, StoreError> {
        let row = super::sql::query(
            "SELECT \
               (SELECT COUNT(*) FROM qualifications WHERE player_id = $1 AND name = $2) AS earned, \
               (SELECT COUNT(*) FROM event_entries WHERE player_id = $1 AND qualification = $2 \
                  AND event_id <> $3 AND status IN ('pending', 'confirmed', 'seated')) AS held",
        )
        .bind(player.0)
        .bind(name)
        .bind(except.0)
        .fetch_one(&mut self.tx)
        .await?;
        let earned: i64 = row.try_get("earned")?;
        let held: i64 = row.try_get("held")?;
        Ok(u32::try_from((earned - held).max(0)).unwrap_or(u32::MAX))
    }

    /// Marks a section of a class that promotes: its promotions are
    /// recorded when its last game ends.
    pub async fn set_promotions_due(&mut self, section: EventId) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET promotions_due = 1 WHERE id = $1")
            .bind(section.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The sections whose promotions are still to be recorded (for the
    /// daemon's pass).
    pub async fn sections_awaiting_promotions(&mut self) -> Result<Vec<EventId>, StoreError> {
        super::sql::query("SELECT id FROM events WHERE promotions_due = 1 ORDER BY id")
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| Ok(EventId(r.try_get("id")?)))
            .collect()
    }

    /// Whether a section's promotions are still to be recorded, locking its
    /// row on PostgreSQL so that two daemons cannot record them twice.
    pub async fn promotions_pending(&mut self, section: EventId) -> Result<bool, StoreError> {
        let lock = self.row_lock();
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT promotions_due FROM events WHERE id = $1{lock}"
        )))
        .bind(section.0)
        .fetch_optional(&mut self.tx)
        .await?;
        Ok(match row {
            Some(r) => r.try_get::<i64, _>("promotions_due")? == 1,
            None => false,
        })
    }

    /// Whether a section's promotions have been recorded.
    pub async fn promotions_recorded(&mut self, section: EventId) -> Result<bool, StoreError> {
        let row = super::sql::query("SELECT promotions_at FROM events WHERE id = $1")
            .bind(section.0)
            .fetch_optional(&mut self.tx)
            .await?;
        Ok(match row {
            Some(r) => r.try_get::<Option<i64>, _>("promotions_at")?.is_some(),
            None => false,
        })
    }

    /// Records that a section's promotions were recorded.
    pub async fn set_promotions_done(
        &mut self,
        section: EventId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET promotions_due = 0, promotions_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(section.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
}
