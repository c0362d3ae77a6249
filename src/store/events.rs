//! Events as stored: the event with its settings, its TDs, teams and
//! entrants (seats and who holds them), its games, the TD action log and
//! deadline extensions. Every statement runs inside a [`Tx`], so a TD action,
//! its log line and the mails it causes commit together.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use super::games::GameRecord;
use super::mail::Tx;
use super::{StoreError, from_millis, to_millis};
use crate::ids::{EventId, GameId};
use crate::player::{NewPlayer, Player, PlayerId};

/// Where an event is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventStatus {
    /// Created; entrants may still be added.
    Open,
    /// Its games have started.
    Started,
}

/// An event as stored.
#[derive(Debug, Clone, Serialize)]
pub struct EventRecord {
    /// The event's number.
    pub id: EventId,
    /// Its name.
    pub name: String,
    /// `round-robin`, `olympiad` or `team-match`.
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

/// One game of an event, with its round and board.
#[derive(Debug, Clone)]
pub struct EventGame {
    /// The game (without its moves).
    pub game: GameRecord,
    /// Round, from 1.
    pub round: u32,
    /// Board, from 1.
    pub board: u32,
    /// Whether a withdrawal closed it (standings then apply the event's rule).
    pub closed_by_withdrawal: bool,
}

/// A TD action to record.
#[derive(Debug, Clone)]
pub struct NewTdAction<'a> {
    /// The event, if the action concerns one.
    pub event: Option<EventId>,
    /// The game, if the action concerns one.
    pub game: Option<GameId>,
    /// `result`, `withdraw`, `replace` or `extend`.
    pub action: &'a str,
    /// The TD's address.
    pub by: &'a str,
    /// What was done, in words.
    pub detail: &'a str,
    /// Why.
    pub reason: &'a str,
}

/// A recorded TD action.
#[derive(Debug, Clone, Serialize)]
pub struct TdAction {
    /// Row id.
    pub id: i64,
    /// The event.
    pub event: Option<EventId>,
    /// The game.
    pub game: Option<GameId>,
    /// What kind of action.
    pub action: String,
    /// Who did it.
    pub by: String,
    /// What was done.
    pub detail: String,
    /// Why.
    pub reason: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A deadline extension granted by a TD, for the clock to apply.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlineExtension {
    /// The game.
    pub game: GameId,
    /// `white` or `black`.
    pub side: String,
    /// Days added.
    pub days: u32,
    /// The TD.
    pub granted_by: String,
    /// Why.
    pub reason: String,
    /// When.
    pub granted_at: DateTime<Utc>,
}

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

fn small(n: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| corrupt(format!("{what} {n} is out of range")))
}

fn event_from_row(row: &AnyRow) -> Result<EventRecord, StoreError> {
    let status = match row.try_get::<String, _>("status")?.as_str() {
        "open" => EventStatus::Open,
        "started" => EventStatus::Started,
        other => return Err(corrupt(format!("unknown event status '{other}'"))),
    };
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
    })
}

const EVENT_COLUMNS: &str = "id, name, kind, settings, status, created_at, started_at";

impl Tx {
    /// Registers a player (an event file names them); an address is registered once.
    pub async fn add_player(
        &mut self,
        p: &NewPlayer,
        now: DateTime<Utc>,
    ) -> Result<Player, StoreError> {
        let row = sqlx::query(
            "INSERT INTO players (email, name, lang, tz, created_at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (email) DO NOTHING RETURNING id, email, name, lang, tz",
        )
        .bind(p.email.as_str())
        .bind(&p.name)
        .bind(p.lang.code())
        .bind(p.tz.map(|t| t.name().to_string()))
        .bind(to_millis(now))
        .fetch_optional(&mut *self.tx)
        .await?;
        match row {
            Some(row) => super::players::from_row(&row),
            None => Err(StoreError::DuplicatePlayer(p.email.to_string())),
        }
    }

    /// Creates an open event with its TDs.
    pub async fn add_event(
        &mut self,
        name: &str,
        kind: &str,
        settings: &str,
        tds: &[String],
        now: DateTime<Utc>,
    ) -> Result<EventId, StoreError> {
        let row = sqlx::query(
            "INSERT INTO events (name, kind, settings, status, created_at) \
             VALUES ($1, $2, $3, 'open', $4) RETURNING id",
        )
        .bind(name)
        .bind(kind)
        .bind(settings)
        .bind(to_millis(now))
        .fetch_one(&mut *self.tx)
        .await?;
        let id = EventId(row.try_get("id")?);
        for td in tds {
            sqlx::query(
                "INSERT INTO event_tds (event_id, email) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .bind(id.0)
            .bind(td)
            .execute(&mut *self.tx)
            .await?;
        }
        Ok(id)
    }

    /// An event.
    pub async fn event(&mut self, id: EventId) -> Result<EventRecord, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE id = $1"
        )))
        .bind(id.0)
        .fetch_optional(&mut *self.tx)
        .await?
        .ok_or(StoreError::UnknownEvent(id.0))?;
        event_from_row(&row)
    }

    /// Every event, by number.
    pub async fn events(&mut self) -> Result<Vec<EventRecord>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events ORDER BY id"
        )))
        .fetch_all(&mut *self.tx)
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
        sqlx::query("UPDATE events SET status = 'started', started_at = $1 WHERE id = $2")
            .bind(to_millis(now))
            .bind(id.0)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// The TDs' addresses of an event.
    pub async fn event_tds(&mut self, id: EventId) -> Result<Vec<String>, StoreError> {
        sqlx::query("SELECT email FROM event_tds WHERE event_id = $1 ORDER BY email")
            .bind(id.0)
            .fetch_all(&mut *self.tx)
            .await?
            .iter()
            .map(|r| Ok(r.try_get("email")?))
            .collect()
    }

    /// Adds a team with its starting number.
    pub async fn add_team(
        &mut self,
        event: EventId,
        number: u32,
        name: &str,
    ) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO event_teams (event_id, number, name) VALUES ($1, $2, $3)")
            .bind(event.0)
            .bind(i64::from(number))
            .bind(name)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// The teams of an event, by starting number.
    pub async fn teams(&mut self, event: EventId) -> Result<Vec<TeamRecord>, StoreError> {
        sqlx::query("SELECT number, name FROM event_teams WHERE event_id = $1 ORDER BY number")
            .bind(event.0)
            .fetch_all(&mut *self.tx)
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
        sqlx::query(
            "INSERT INTO entrants (event_id, player_id, team, seat) VALUES ($1, $2, $3, $4)",
        )
        .bind(event.0)
        .bind(player.0)
        .bind(team.map(i64::from))
        .bind(seat.map(i64::from))
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Every entrant of an event: by team, then seat (reserves last), then
    /// when they were added.
    pub async fn entrants(&mut self, event: EventId) -> Result<Vec<EntrantRecord>, StoreError> {
        // COALESCE: SQLite and PostgreSQL put NULLs at opposite ends.
        sqlx::query(
            "SELECT e.id AS entrant_id, e.team, e.seat, e.withdrawn_at, e.withdrawal_rule, \
             p.id, p.email, p.name, p.lang, p.tz FROM entrants e JOIN players p ON p.id = e.player_id \
             WHERE e.event_id = $1 ORDER BY COALESCE(e.team, 0), COALESCE(e.seat, 1000000), e.id",
        )
        .bind(event.0)
        .fetch_all(&mut *self.tx)
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
        sqlx::query("SELECT event_id FROM entrants WHERE player_id = $1 ORDER BY event_id")
            .bind(player.0)
            .fetch_all(&mut *self.tx)
            .await?
            .iter()
            .map(|r| Ok(EventId(r.try_get("event_id")?)))
            .collect()
    }

    /// The event a game belongs to, if any.
    pub async fn event_of_game(&mut self, game: GameId) -> Result<Option<EventId>, StoreError> {
        let row = sqlx::query("SELECT event_id FROM games WHERE id = $1")
            .bind(game.0)
            .fetch_optional(&mut *self.tx)
            .await?
            .ok_or(StoreError::UnknownGame(game.0))?;
        Ok(row.try_get::<Option<i64>, _>("event_id")?.map(EventId))
    }

    /// Makes a game one of an event's, in a round and on a board.
    pub async fn link_game(
        &mut self,
        game: GameId,
        event: EventId,
        round: u32,
        board: u32,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE games SET event_id = $1, event_round = $2, event_board = $3 WHERE id = $4",
        )
        .bind(event.0)
        .bind(i64::from(round))
        .bind(i64::from(board))
        .bind(game.0)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// An event's games (without moves), by round, board and number.
    pub async fn event_games(&mut self, event: EventId) -> Result<Vec<EventGame>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {}, event_round, event_board, closed_by_withdrawal FROM games \
             WHERE event_id = $1 ORDER BY event_round, event_board, id",
            super::games::COLUMNS
        )))
        .bind(event.0)
        .fetch_all(&mut *self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(EventGame {
                game: super::games::from_row(r)?,
                round: small(
                    r.try_get::<Option<i64>, _>("event_round")?.unwrap_or(0),
                    "round",
                )?,
                board: small(
                    r.try_get::<Option<i64>, _>("event_board")?.unwrap_or(0),
                    "board",
                )?,
                closed_by_withdrawal: r.try_get::<i64, _>("closed_by_withdrawal")? != 0,
            })
        })
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
        sqlx::query(
            "UPDATE entrants SET withdrawn_at = $1, withdrawal_rule = $2 \
             WHERE event_id = $3 AND player_id = $4",
        )
        .bind(to_millis(now))
        .bind(rule)
        .bind(event.0)
        .bind(player.0)
        .execute(&mut *self.tx)
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
        sqlx::query("DELETE FROM entrants WHERE event_id = $1 AND player_id = $2 AND seat IS NULL")
            .bind(event.0)
            .bind(new.0)
            .execute(&mut *self.tx)
            .await?;
        sqlx::query("UPDATE entrants SET player_id = $1 WHERE event_id = $2 AND player_id = $3")
            .bind(new.0)
            .bind(event.0)
            .bind(old.0)
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    /// Puts `new` in `old`'s place in a game.
    pub async fn switch_game_player(
        &mut self,
        game: GameId,
        old: PlayerId,
        new: PlayerId,
    ) -> Result<(), StoreError> {
        for column in ["white_id", "black_id"] {
            sqlx::query(AssertSqlSafe(format!(
                "UPDATE games SET {column} = $1 WHERE id = $2 AND {column} = $3"
            )))
            .bind(new.0)
            .bind(game.0)
            .bind(old.0)
            .execute(&mut *self.tx)
            .await?;
        }
        Ok(())
    }

    /// Closes a game because a player withdrew: with a forfeit result in
    /// words when `result` is given, else annulled (finished, no result).
    pub async fn close_by_withdrawal(
        &mut self,
        game: GameId,
        result: Option<(&str, &str)>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (result, reason) = match result {
            Some((r, why)) => (Some(r), Some(why)),
            None => (None, None),
        };
        sqlx::query(
            "UPDATE games SET status = 'finished', result = $1, end_reason = $2, finished_at = $3, \
             draw_offer_by = NULL, closed_by_withdrawal = 1 WHERE id = $4",
        )
        .bind(result)
        .bind(reason)
        .bind(to_millis(now))
        .bind(game.0)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Records a TD action; returns its id.
    pub async fn record_td_action(
        &mut self,
        a: &NewTdAction<'_>,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "INSERT INTO td_actions (event_id, game_id, action, by_td, detail, reason, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
        )
        .bind(a.event.map(|e| e.0))
        .bind(a.game.map(|g| g.0))
        .bind(a.action)
        .bind(a.by)
        .bind(a.detail)
        .bind(a.reason)
        .bind(to_millis(now))
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(row.try_get("id")?)
    }

    /// The TD actions on an event and its games, oldest first.
    pub async fn td_actions(&mut self, event: EventId) -> Result<Vec<TdAction>, StoreError> {
        sqlx::query(
            "SELECT id, event_id, game_id, action, by_td, detail, reason, created_at FROM td_actions \
             WHERE event_id = $1 ORDER BY id",
        )
        .bind(event.0)
        .fetch_all(&mut *self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(TdAction {
                id: r.try_get("id")?,
                event: r.try_get::<Option<i64>, _>("event_id")?.map(EventId),
                game: r.try_get::<Option<i64>, _>("game_id")?.map(GameId),
                action: r.try_get("action")?,
                by: r.try_get("by_td")?,
                detail: r.try_get("detail")?,
                reason: r.try_get("reason")?,
                at: from_millis(r.try_get("created_at")?)?,
            })
        })
        .collect()
    }

    /// Stores a deadline extension for the clock to apply.
    pub async fn add_deadline_extension(
        &mut self,
        e: &DeadlineExtension,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO deadline_extensions (game_id, side, days, granted_by, reason, granted_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(e.game.0)
        .bind(&e.side)
        .bind(i64::from(e.days))
        .bind(&e.granted_by)
        .bind(&e.reason)
        .bind(to_millis(e.granted_at))
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// The deadline extensions of a game, oldest first.
    pub async fn deadline_extensions(
        &mut self,
        game: GameId,
    ) -> Result<Vec<DeadlineExtension>, StoreError> {
        sqlx::query(
            "SELECT game_id, side, days, granted_by, reason, granted_at FROM deadline_extensions \
             WHERE game_id = $1 ORDER BY id",
        )
        .bind(game.0)
        .fetch_all(&mut *self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(DeadlineExtension {
                game: GameId(r.try_get("game_id")?),
                side: r.try_get("side")?,
                days: small(r.try_get("days")?, "days")?,
                granted_by: r.try_get("granted_by")?,
                reason: r.try_get("reason")?,
                granted_at: from_millis(r.try_get("granted_at")?)?,
            })
        })
        .collect()
    }
}
