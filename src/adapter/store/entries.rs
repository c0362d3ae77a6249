//! Entries by mail as stored (`event_entries`): one row per event and
//! address, from the first ask to the seat (or the end of it); the events
//! that take entries; and the players who want to hear when one opens.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::{Backend, StoreError, Tx, corrupt, from_millis, to_millis};
use crate::domain::event::entries::EntryStatus;
use crate::domain::ids::EventId;
use crate::domain::lang::Lang;
use crate::domain::player::{Player, PlayerId};

/// An entry as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryRecord {
    /// The entry's number (in its confirmation address).
    pub id: i64,
    /// The event.
    pub event: EventId,
    /// The address that asked.
    pub email: String,
    /// The player, once registered (a stranger's is set when it confirms).
    pub player: Option<PlayerId>,
    /// The name to register (a stranger's, from its mail).
    pub name: String,
    /// The language to register and to write in.
    pub lang: Lang,
    /// Whether the address was no player when it asked.
    pub stranger: bool,
    /// Where it stands.
    pub status: EntryStatus,
    /// A TD's reason for a refusal, or why it was left out at the start.
    pub reason: Option<String>,
    /// When it was asked for.
    pub created_at: DateTime<Utc>,
    /// When it was confirmed.
    pub confirmed_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, event_id, email, player_id, name, lang, stranger, status, reason, created_at, confirmed_at";

fn from_row(row: &Row) -> Result<EntryRecord, StoreError> {
    let status: String = row.try_get("status")?;
    let lang: String = row.try_get("lang")?;
    Ok(EntryRecord {
        id: row.try_get("id")?,
        event: EventId(row.try_get("event_id")?),
        email: row.try_get("email")?,
        player: row.try_get::<Option<i64>, _>("player_id")?.map(PlayerId),
        name: row.try_get("name")?,
        lang: lang
            .parse()
            .map_err(|e: crate::domain::lang::UnknownLang| corrupt(e.to_string()))?,
        stranger: row.try_get::<i64, _>("stranger")? != 0,
        status: EntryStatus::from_key(&status)
            .ok_or_else(|| corrupt(format!("unknown entry status '{status}'")))?,
        reason: row.try_get("reason")?,
        created_at: from_millis(row.try_get("created_at")?)?,
        confirmed_at: row
            .try_get::<Option<i64>, _>("confirmed_at")?
            .map(from_millis)
            .transpose()?,
    })
}

/// An entry to be asked for.
#[derive(Debug, Clone)]
pub struct NewEntry<'a> {
    /// The event.
    pub event: EventId,
    /// The address.
    pub email: &'a str,
    /// The player, if registered.
    pub player: Option<PlayerId>,
    /// The name to register.
    pub name: &'a str,
    /// The language.
    pub lang: Lang,
    /// Where it starts: pending (by mail) or confirmed (a TD's addition).
    pub status: EntryStatus,
    /// The qualification the entry holds, where its event requires one.
    pub qualification: Option<&'a str>,
}

impl Tx {
    /// `FOR UPDATE` on PostgreSQL (SQLite's write transaction holds the
    /// whole database already).
    pub(super) fn row_lock(&self) -> &'static str {
        match self.backend {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        }
    }

    /// Asks for an entry, or asks again for one withdrawn or left out
    /// before (the same row, so an address has one entry per event).
    pub async fn add_entry(
        &mut self,
        e: &NewEntry<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let confirmed = (e.status == EntryStatus::Confirmed).then(|| to_millis(now));
        let row = super::sql::query(
            "INSERT INTO event_entries \
               (event_id, email, player_id, name, lang, stranger, status, created_at, confirmed_at, \
                qualification) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (event_id, email) DO UPDATE SET \
               player_id = $3, name = $4, lang = $5, stranger = $6, status = $7, \
               created_at = $8, confirmed_at = $9, reason = NULL, ended_at = NULL, \
               qualification = $10 \
             RETURNING id",
        )
        .bind(e.event.0)
        .bind(e.email)
        .bind(e.player.map(|p| p.0))
        .bind(e.name)
        .bind(e.lang.code())
        .bind(i64::from(e.player.is_none()))
        .bind(e.status.key())
        .bind(to_millis(now))
        .bind(confirmed)
        .bind(e.qualification)
        .fetch_one(&mut self.tx)
        .await?;
        row.try_get("id")
    }

    /// An entry by its number, locked for the transaction on PostgreSQL (a
    /// confirmation and a TD's refusal of it do not cross).
    pub async fn entry(&mut self, id: i64) -> Result<Option<EntryRecord>, StoreError> {
        let lock = self.row_lock();
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM event_entries WHERE id = $1{lock}"
        )))
        .bind(id)
        .fetch_optional(&mut self.tx)
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
    }

    /// An address's entry in an event, if it has one.
    pub async fn entry_of(
        &mut self,
        event: EventId,
        email: &str,
    ) -> Result<Option<EntryRecord>, StoreError> {
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM event_entries WHERE event_id = $1 AND email = $2"
        )))
        .bind(event.0)
        .bind(email)
        .fetch_optional(&mut self.tx)
        .await?
        .as_ref()
        .map(from_row)
        .transpose()
    }

    /// Every entry of an event, in the order they were asked for.
    pub async fn entries(&mut self, event: EventId) -> Result<Vec<EntryRecord>, StoreError> {
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM event_entries WHERE event_id = $1 ORDER BY created_at, id"
        )))
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(from_row)
        .collect()
    }

    /// Confirms an entry (and names the player a stranger became).
    pub async fn confirm_entry(
        &mut self,
        id: i64,
        player: PlayerId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE event_entries SET status = 'confirmed', player_id = $1, confirmed_at = $2 \
             WHERE id = $3",
        )
        .bind(player.0)
        .bind(to_millis(now))
        .bind(id)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Ends an entry: withdrawn, refused, seated or left out, with a reason.
    pub async fn end_entry(
        &mut self,
        id: i64,
        status: EntryStatus,
        reason: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE event_entries SET status = $1, reason = $2, ended_at = $3 WHERE id = $4",
        )
        .bind(status.key())
        .bind(reason)
        .bind(to_millis(now))
        .bind(id)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Entries asked for since `since` by addresses that were no players:
    /// `(by this address, by anyone)`, for the strangers' rate limits.
    pub async fn stranger_entries_since(
        &mut self,
        email: &str,
        since: DateTime<Utc>,
    ) -> Result<(u64, u64), StoreError> {
        let row = super::sql::query(
            "SELECT \
               COALESCE(SUM(CASE WHEN email = $1 THEN 1 ELSE 0 END), 0) AS mine, \
               COUNT(*) AS everyone \
             FROM event_entries WHERE stranger = 1 AND created_at >= $2",
        )
        .bind(email)
        .bind(to_millis(since))
        .fetch_one(&mut self.tx)
        .await?;
        let count = |c: &str| -> Result<u64, StoreError> {
            Ok(u64::try_from(row.try_get::<i64, _>(c)?).unwrap_or(0))
        };
        Ok((count("mine")?, count("everyone")?))
    }

    /// Marks an event as taking entries by mail.
    pub async fn set_event_takes_entries(&mut self, event: EventId) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET takes_entries = 1 WHERE id = $1")
            .bind(event.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The events whose entries are open: they take entries, have not
    /// started and their entries have not closed.
    pub async fn events_taking_entries(&mut self) -> Result<Vec<EventId>, StoreError> {
        super::sql::query(
            "SELECT id FROM events \
             WHERE takes_entries = 1 AND entries_closed_at IS NULL AND status = 'open' \
             ORDER BY id",
        )
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(EventId(r.try_get("id")?)))
        .collect()
    }

    /// Whether an event's entries are still open (it takes them and they
    /// have not closed), locking the event's row on PostgreSQL so that two
    /// daemons cannot close it twice.
    pub async fn entries_open(&mut self, event: EventId) -> Result<bool, StoreError> {
        let lock = self.row_lock();
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT takes_entries, entries_closed_at, status FROM events WHERE id = $1{lock}"
        )))
        .bind(event.0)
        .fetch_optional(&mut self.tx)
        .await?;
        Ok(match row {
            Some(r) => {
                r.try_get::<i64, _>("takes_entries")? == 1
                    && r.try_get::<Option<i64>, _>("entries_closed_at")?.is_none()
                    && r.try_get::<String, _>("status")? == "open"
            }
            None => false,
        })
    }

    /// Links a section to its open class, with its number there.
    pub async fn set_section_of(
        &mut self,
        section: EventId,
        class: EventId,
        number: u32,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET parent_event = $1, section_number = $2 WHERE id = $3")
            .bind(class.0)
            .bind(i64::from(number))
            .bind(section.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The sections of an open class, by number.
    pub async fn sections_of(&mut self, class: EventId) -> Result<Vec<EventId>, StoreError> {
        super::sql::query(
            "SELECT id FROM events WHERE parent_event = $1 ORDER BY section_number, id",
        )
        .bind(class.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(EventId(r.try_get("id")?)))
        .collect()
    }

    /// The open class or staged event a section, group or final is part of.
    pub async fn parent_of(&mut self, event: EventId) -> Result<Option<EventId>, StoreError> {
        let row = super::sql::query("SELECT parent_event FROM events WHERE id = $1")
            .bind(event.0)
            .fetch_optional(&mut self.tx)
            .await?;
        Ok(match row {
            Some(r) => r.try_get::<Option<i64>, _>("parent_event")?.map(EventId),
            None => None,
        })
    }

    /// Marks an entry seated in a section of its class.
    pub async fn seat_entry_in(
        &mut self,
        id: i64,
        section: EventId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE event_entries SET status = 'seated', section_event = $1, ended_at = $2 \
             WHERE id = $3",
        )
        .bind(section.0)
        .bind(to_millis(now))
        .bind(id)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Marks an event as played in stages (its groups started).
    pub async fn set_event_takes_stages(&mut self, event: EventId) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET takes_stages = 1 WHERE id = $1")
            .bind(event.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The events played in stages whose final is not built yet.
    pub async fn events_awaiting_final(&mut self) -> Result<Vec<EventId>, StoreError> {
        super::sql::query(
            "SELECT id FROM events WHERE takes_stages = 1 AND final_built_at IS NULL ORDER BY id",
        )
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(EventId(r.try_get("id")?)))
        .collect()
    }

    /// Whether an event's final is still to be built, locking its row on
    /// PostgreSQL so that two daemons cannot build it twice.
    pub async fn final_pending(&mut self, event: EventId) -> Result<bool, StoreError> {
        let lock = self.row_lock();
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT takes_stages, final_built_at FROM events WHERE id = $1{lock}"
        )))
        .bind(event.0)
        .fetch_optional(&mut self.tx)
        .await?;
        Ok(match row {
            Some(r) => {
                r.try_get::<i64, _>("takes_stages")? == 1
                    && r.try_get::<Option<i64>, _>("final_built_at")?.is_none()
            }
            None => false,
        })
    }

    /// Records that an event's final was built.
    pub async fn set_final_built(
        &mut self,
        event: EventId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET final_built_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(event.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// Whether an event took entries that have closed (or it started).
    pub async fn entries_of_event_closed(&mut self, event: EventId) -> Result<bool, StoreError> {
        let row = super::sql::query(
            "SELECT takes_entries, entries_closed_at, status FROM events WHERE id = $1",
        )
        .bind(event.0)
        .fetch_optional(&mut self.tx)
        .await?;
        Ok(match row {
            Some(r) => {
                r.try_get::<i64, _>("takes_entries")? == 1
                    && (r.try_get::<Option<i64>, _>("entries_closed_at")?.is_some()
                        || r.try_get::<String, _>("status")? != "open")
            }
            None => false,
        })
    }

    /// Closes an event's entries, once.
    pub async fn close_entries(
        &mut self,
        event: EventId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE events SET entries_closed_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(event.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// Sets whether a player hears when an event opens for entries.
    pub async fn set_player_announcements(
        &mut self,
        player: PlayerId,
        on: bool,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE players SET announcements = $1 WHERE id = $2")
            .bind(i64::from(on))
            .bind(player.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The players who asked to hear when an event opens for entries.
    pub async fn announcement_players(&mut self) -> Result<Vec<Player>, StoreError> {
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {} FROM players WHERE announcements = 1 ORDER BY id",
            super::players::COLUMNS
        )))
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(super::players::from_row)
        .collect()
    }
}

/// The start of the hour before `now`, for the rate limits.
pub fn hour_before(now: DateTime<Utc>) -> DateTime<Utc> {
    now - Duration::hours(1)
}
