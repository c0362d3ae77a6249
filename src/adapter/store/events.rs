//! Events as stored: the event with its settings, its TDs, teams and
//! entrants (seats and who holds them), its games, the TD action log and
//! deadline extensions. Every statement runs inside a [`Tx`], so a TD action,
//! its log line and the mails it causes commit together.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{StoreError, Tx, corrupt, from_millis, small, to_millis};
use crate::domain::ids::EventId;
use crate::domain::player::{Player, PlayerId};

/// Where an event is in its life: a word of the core, stored as its name.
pub use crate::domain::event::EventStatus;
/// Who may see an event's web pages: a word of the core, stored as its key.
pub use crate::domain::event::Visibility;

/// An event as stored.
#[derive(Debug, Clone, Serialize)]
pub struct EventRecord {
    /// The event's number.
    pub id: EventId,
    /// Its name.
    pub name: String,
    /// `round-robin`, `olympiad`, `team-match` or `consultation`.
    pub kind: String,
    /// The settings as JSON text (read by `td::Settings`).
    #[serde(skip)]
    pub settings: String,
    /// Open or started.
    pub status: EventStatus,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When its games started.
    pub started_at: Option<DateTime<Utc>>,
    /// Who may see its web pages.
    pub visibility: Visibility,
}

/// A team of a team event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamRecord {
    /// Starting number, from 1.
    pub number: u32,
    /// The team's name.
    pub name: String,
}

/// A seat in an event and the player who holds it.
#[derive(Debug, Clone, Serialize)]
pub struct EntrantRecord {
    /// Row id.
    #[serde(skip)]
    pub id: i64,
    /// Who holds the seat.
    pub player: Player,
    /// The team's starting number (team events).
    pub team: Option<u32>,
    /// Starting number (round robin) or board (team); `None` for a reserve.
    pub seat: Option<u32>,
    /// When the player withdrew.
    pub withdrawn_at: Option<DateTime<Utc>>,
    /// The rule applied to their games then.
    pub withdrawal_rule: Option<String>,
}

fn event_from_row(row: &Row) -> Result<EventRecord, StoreError> {
    let status = match row.try_get::<String, _>("status")?.as_str() {
        "open" => EventStatus::Open,
        "started" => EventStatus::Started,
        other => return Err(corrupt(format!("unknown event status '{other}'"))),
    };
    let visibility: String = row.try_get("visibility")?;
    let visibility = Visibility::from_key(&visibility)
        .ok_or_else(|| corrupt(format!("unknown event visibility '{visibility}'")))?;
    Ok(EventRecord {
        id: EventId(row.try_get("id")?),
        name: row.try_get("name")?,
        kind: row.try_get("kind")?,
        settings: row.try_get("settings")?,
        status,
        created_at: from_millis(row.try_get("created_at")?)?,
        started_at: row
            .try_get::<Option<i64>, _>("started_at")?
            .map(from_millis)
            .transpose()?,
        visibility,
    })
}

const EVENT_COLUMNS: &str = "id, name, kind, settings, status, created_at, started_at, visibility";

impl Tx {
    /// Creates an open event with its TDs.
    pub async fn add_event(
        &mut self,
        name: &str,
        kind: &str,
        settings: &str,
        tds: &[String],
        now: DateTime<Utc>,
    ) -> Result<EventId, StoreError> {
        let row = super::sql::query(
            "INSERT INTO events (name, kind, settings, status, created_at) \
             VALUES ($1, $2, $3, 'open', $4) RETURNING id",
        )
        .bind(name)
        .bind(kind)
        .bind(settings)
        .bind(to_millis(now))
        .fetch_one(&mut self.tx)
        .await?;
        let id = EventId(row.try_get("id")?);
        for td in tds {
            super::sql::query(
                "INSERT INTO event_tds (event_id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .bind(id.0)
            .bind(td)
            .execute(&mut self.tx)
            .await?;
        }
        Ok(id)
    }

    /// Sets who may see an event's web pages.
    pub async fn set_event_visibility(
        &mut self,
        id: EventId,
        visibility: Visibility,
    ) -> Result<(), StoreError> {
        let done = super::sql::query("UPDATE events SET visibility = $1 WHERE id = $2")
            .bind(visibility.key())
            .bind(id.0)
            .execute(&mut self.tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::UnknownEvent(id.0));
        }
        Ok(())
    }

    /// An event.
    pub async fn event(&mut self, id: EventId) -> Result<EventRecord, StoreError> {
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE id = $1"
        )))
        .bind(id.0)
        .fetch_optional(&mut self.tx)
        .await?
        .ok_or(StoreError::UnknownEvent(id.0))?;
        event_from_row(&row)
    }

    /// Every event, by number.
    pub async fn events(&mut self) -> Result<Vec<EventRecord>, StoreError> {
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events ORDER BY id"
        )))
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(event_from_row)
        .collect()
    }

    /// Marks an event started.
    pub async fn set_event_started(
        &mut self,
        id: EventId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET status = 'started', started_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(id.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The TDs' addresses of an event.
    pub async fn event_tds(&mut self, id: EventId) -> Result<Vec<String>, StoreError> {
        super::sql::query("SELECT email FROM event_tds WHERE event_id = $1 ORDER BY email")
            .bind(id.0)
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| r.try_get("email"))
            .collect()
    }

    /// Adds a team with its starting number.
    pub async fn add_team(
        &mut self,
        event: EventId,
        number: u32,
        name: &str,
    ) -> Result<(), StoreError> {
        super::sql::query("INSERT INTO event_teams (event_id, number, name) VALUES ($1, $2, $3)")
            .bind(event.0)
            .bind(i64::from(number))
            .bind(name)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The teams of an event, by starting number.
    pub async fn teams(&mut self, event: EventId) -> Result<Vec<TeamRecord>, StoreError> {
        super::sql::query(
            "SELECT number, name FROM event_teams WHERE event_id = $1 ORDER BY number",
        )
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(TeamRecord {
                number: small(r.try_get("number")?, "team number")?,
                name: r.try_get("name")?,
            })
        })
        .collect()
    }

    /// Gives a player a seat (or a reserve place when `seat` is `None`).
    pub async fn add_entrant(
        &mut self,
        event: EventId,
        player: PlayerId,
        team: Option<u32>,
        seat: Option<u32>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO entrants (event_id, player_id, team, seat) VALUES ($1, $2, $3, $4)",
        )
        .bind(event.0)
        .bind(player.0)
        .bind(team.map(i64::from))
        .bind(seat.map(i64::from))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Every entrant of an event: by team, then seat (reserves last), then
    /// when they were added.
    pub async fn entrants(&mut self, event: EventId) -> Result<Vec<EntrantRecord>, StoreError> {
        // COALESCE: SQLite and PostgreSQL put NULLs at opposite ends.
        super::sql::query(
            "SELECT e.id AS entrant_id, e.team, e.seat, e.withdrawn_at, e.withdrawal_rule, \
             p.id, p.email, p.name, p.lang, p.tz FROM entrants e JOIN players p ON p.id = e.player_id \
             WHERE e.event_id = $1 ORDER BY COALESCE(e.team, 0), COALESCE(e.seat, 1000000), e.id",
        )
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(EntrantRecord {
                id: r.try_get("entrant_id")?,
                player: super::players::from_row(r)?,
                team: r
                    .try_get::<Option<i64>, _>("team")?
                    .map(|t| small(t, "team"))
                    .transpose()?,
                seat: r
                    .try_get::<Option<i64>, _>("seat")?
                    .map(|s| small(s, "seat"))
                    .transpose()?,
                withdrawn_at: r
                    .try_get::<Option<i64>, _>("withdrawn_at")?
                    .map(from_millis)
                    .transpose()?,
                withdrawal_rule: r.try_get("withdrawal_rule")?,
            })
        })
        .collect()
    }

    /// The events a player holds (or held) a seat in, by number.
    pub async fn events_of_player(&mut self, player: PlayerId) -> Result<Vec<EventId>, StoreError> {
        super::sql::query("SELECT event_id FROM entrants WHERE player_id = $1 ORDER BY event_id")
            .bind(player.0)
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| Ok(EventId(r.try_get("event_id")?)))
            .collect()
    }

    /// Marks a player of an event withdrawn under `rule`.
    pub async fn withdraw_entrant(
        &mut self,
        event: EventId,
        player: PlayerId,
        rule: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE entrants SET withdrawn_at = $1, withdrawal_rule = $2 \
             WHERE event_id = $3 AND player_id = $4",
        )
        .bind(to_millis(now))
        .bind(rule)
        .bind(event.0)
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Hands `old`'s seat to `new`; a reserve place `new` held in the event
    /// is given up (the reserve now plays).
    pub async fn replace_entrant(
        &mut self,
        event: EventId,
        old: PlayerId,
        new: PlayerId,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "DELETE FROM entrants WHERE event_id = $1 AND player_id = $2 AND seat IS NULL",
        )
        .bind(event.0)
        .bind(new.0)
        .execute(&mut self.tx)
        .await?;
        super::sql::query(
            "UPDATE entrants SET player_id = $1 WHERE event_id = $2 AND player_id = $3",
        )
        .bind(new.0)
        .bind(event.0)
        .bind(old.0)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
}

/// A paired round of a Swiss event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SwissRound {
    /// The round, from 1.
    pub round: u32,
    /// The pairing number (seat) given the pairing-allocated bye, if any.
    pub bye_seat: Option<u32>,
}

/// A half-point bye a player asked for in a Swiss event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SwissBye {
    /// The pairing number (seat) not paired.
    pub seat: u32,
    /// The round, from 1.
    pub round: u32,
}

impl Tx {
    /// Records that a Swiss event's round is paired (with its bye). The
    /// primary key refuses a second pairing of the same round: the whole
    /// transaction then fails and nothing of it is kept.
    pub async fn add_swiss_round(
        &mut self,
        event: EventId,
        round: SwissRound,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO swiss_rounds (event_id, round, bye_seat, paired_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(event.0)
        .bind(i64::from(round.round))
        .bind(round.bye_seat.map(i64::from))
        .bind(to_millis(now))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// The paired rounds of a Swiss event, first round first. On
    /// PostgreSQL the event's row is locked first, so that two daemons
    /// looking at once wait for each other rather than pair a round twice.
    pub async fn swiss_rounds(&mut self, event: EventId) -> Result<Vec<SwissRound>, StoreError> {
        let lock = self.row_lock();
        super::sql::query(AssertSqlSafe(format!(
            "SELECT id FROM events WHERE id = $1{lock}"
        )))
        .bind(event.0)
        .fetch_optional(&mut self.tx)
        .await?;
        super::sql::query(
            "SELECT round, bye_seat FROM swiss_rounds WHERE event_id = $1 ORDER BY round",
        )
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(SwissRound {
                round: small(r.try_get("round")?, "round")?,
                bye_seat: r
                    .try_get::<Option<i64>, _>("bye_seat")?
                    .map(|s| small(s, "bye seat"))
                    .transpose()?,
            })
        })
        .collect()
    }

    /// Forgets a Swiss event's round's pairing (`dopis event repair-round`,
    /// in the transaction that pairs it again).
    pub async fn delete_swiss_round(
        &mut self,
        event: EventId,
        round: u32,
    ) -> Result<(), StoreError> {
        super::sql::query("DELETE FROM swiss_rounds WHERE event_id = $1 AND round = $2")
            .bind(event.0)
            .bind(i64::from(round))
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// When a Swiss event's round was paired (its closing date counts
    /// from it); `None` when it is not paired.
    pub async fn swiss_round_paired_at(
        &mut self,
        event: EventId,
        round: u32,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        super::sql::query("SELECT paired_at FROM swiss_rounds WHERE event_id = $1 AND round = $2")
            .bind(event.0)
            .bind(i64::from(round))
            .fetch_optional(&mut self.tx)
            .await?
            .map(|r| from_millis(r.try_get("paired_at")?))
            .transpose()
    }

    /// The started Swiss events (for the daemon's pass over their
    /// rounds' closing dates).
    pub async fn started_swiss_events(&mut self) -> Result<Vec<EventId>, StoreError> {
        super::sql::query(
            "SELECT id FROM events WHERE kind = 'swiss' AND status = 'started' ORDER BY id",
        )
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(EventId(r.try_get("id")?)))
        .collect()
    }

    /// The started Swiss events none of whose games is still being
    /// played: those whose next round may be due.
    pub async fn swiss_events_between_rounds(&mut self) -> Result<Vec<EventId>, StoreError> {
        super::sql::query(
            "SELECT e.id FROM events e WHERE e.kind = 'swiss' AND e.status = 'started' \
             AND NOT EXISTS (SELECT 1 FROM games g WHERE g.event_id = e.id AND g.status <> 'finished') \
             ORDER BY e.id",
        )
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(EventId(r.try_get("id")?)))
        .collect()
    }

    /// Records a half-point bye asked for: `seat` is not paired in
    /// `round`. Returns false, changing nothing, when that bye is recorded
    /// already (the primary key).
    pub async fn add_swiss_bye(
        &mut self,
        event: EventId,
        bye: SwissBye,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = super::sql::query(
            "INSERT INTO swiss_byes (event_id, seat, round, requested_at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT DO NOTHING",
        )
        .bind(event.0)
        .bind(i64::from(bye.seat))
        .bind(i64::from(bye.round))
        .bind(to_millis(now))
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The half-point byes asked for in a Swiss event, by round, then seat.
    pub async fn swiss_byes(&mut self, event: EventId) -> Result<Vec<SwissBye>, StoreError> {
        super::sql::query(
            "SELECT seat, round FROM swiss_byes WHERE event_id = $1 ORDER BY round, seat",
        )
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(SwissBye {
                seat: small(r.try_get("seat")?, "bye seat")?,
                round: small(r.try_get("round")?, "bye round")?,
            })
        })
        .collect()
    }

    /// Gives an entrant another seat (a Swiss event's pairing numbers,
    /// set when it starts).
    pub async fn set_entrant_seat(&mut self, entrant: i64, seat: u32) -> Result<(), StoreError> {
        super::sql::query("UPDATE entrants SET seat = $1 WHERE id = $2")
            .bind(i64::from(seat))
            .bind(entrant)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
}

impl super::Store {
    /// Whether an event of this number exists.
    pub async fn event_exists(&self, event: EventId) -> Result<bool, StoreError> {
        Ok(super::sql::query("SELECT id FROM events WHERE id = $1")
            .bind(event.0)
            .fetch_optional(self.pool())
            .await?
            .is_some())
    }
}
