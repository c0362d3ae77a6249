//! Registering and finding players.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, Utc};

use super::{Store, StoreError, Tx, from_millis, to_millis};
use crate::domain::address::EmailAddress;
use crate::domain::player::{NewPlayer, Player, PlayerId, parse_tz};

pub(super) const COLUMNS: &str = "id, email, name, lang, tz";

pub(super) fn from_row(row: &Row) -> Result<Player, StoreError> {
    let email: String = row.try_get("email")?;
    let lang: String = row.try_get("lang")?;
    let tz: Option<String> = row.try_get("tz")?;
    Ok(Player {
        id: PlayerId(row.try_get("id")?),
        email: EmailAddress::parse(&email).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        name: row.try_get("name")?,
        lang: lang
            .parse()
            .map_err(|e: crate::domain::lang::UnknownLang| StoreError::Corrupt(e.to_string()))?,
        tz: tz
            .map(|t| parse_tz(&t))
            .transpose()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
    })
}

/// Inserts a player, `None` when the address is registered already.
async fn insert(
    on: super::sql::Exec<'_>,
    p: &NewPlayer,
    now: DateTime<Utc>,
) -> Result<Player, StoreError> {
    let row = super::sql::query(AssertSqlSafe(format!(
        "INSERT INTO players (email, name, lang, tz, created_at) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (email) DO NOTHING RETURNING {COLUMNS}"
    )))
    .bind(p.email.as_str())
    .bind(&p.name)
    .bind(p.lang.code())
    .bind(p.tz.map(|t| t.name().to_string()))
    .bind(to_millis(now))
    .fetch_optional(on)
    .await?;
    match row {
        Some(row) => from_row(&row),
        None => Err(StoreError::DuplicatePlayer(p.email.to_string())),
    }
}

/// The player registered with an address, if any.
async fn by_email(on: super::sql::Exec<'_>, email: &str) -> Result<Option<Player>, StoreError> {
    let row = super::sql::query(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM players WHERE email = $1"
    )))
    .bind(email)
    .fetch_optional(on)
    .await?;
    row.map(|r| from_row(&r)).transpose()
}

/// The player with an id (one must exist: games and entrants point to it).
async fn by_id(on: super::sql::Exec<'_>, id: PlayerId) -> Result<Player, StoreError> {
    let row = super::sql::query(AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM players WHERE id = $1"
    )))
    .bind(id.0)
    .fetch_optional(on)
    .await?
    .ok_or_else(|| StoreError::Corrupt(format!("player id {} is missing", id.0)))?;
    from_row(&row)
}

impl Store {
    /// Registers a player; an address can be registered once.
    pub async fn add_player(
        &self,
        p: &NewPlayer,
        now: DateTime<Utc>,
    ) -> Result<Player, StoreError> {
        insert(self.pool().into(), p, now).await
    }

    /// The player registered with an address.
    pub async fn player_by_email(&self, email: &EmailAddress) -> Result<Player, StoreError> {
        by_email(self.pool().into(), email.as_str())
            .await?
            .ok_or_else(|| StoreError::UnknownPlayer(email.to_string()))
    }

    /// The player with an id.
    pub async fn player(&self, id: PlayerId) -> Result<Player, StoreError> {
        by_id(self.pool().into(), id).await
    }

    /// Every player, by address.
    pub async fn players(&self) -> Result<Vec<Player>, StoreError> {
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM players ORDER BY email"
        )))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(from_row)
        .collect()
    }
}

impl Store {
    /// The generation of a player's private web links (see
    /// [`crate::adapter::mail::route::Tokens::web_link`]); `None` for no such player.
    pub async fn link_generation(&self, id: PlayerId) -> Result<Option<i64>, StoreError> {
        let row = super::sql::query("SELECT link_generation FROM players WHERE id = $1")
            .bind(id.0)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| r.try_get("link_generation")).transpose()
    }

    /// Starts a new generation of a player's private web links, so every
    /// link made before stops working; the new generation.
    pub async fn bump_link_generation(&self, id: PlayerId) -> Result<i64, StoreError> {
        let row = super::sql::query(
            "UPDATE players SET link_generation = link_generation + 1 WHERE id = $1 \
             RETURNING link_generation",
        )
        .bind(id.0)
        .fetch_optional(self.pool())
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("player id {} is missing", id.0)))?;
        row.try_get("link_generation")
    }
}

/// Why and since when a player's mail is held: a word of the core.
pub use crate::domain::player::Pause;

impl Store {
    /// Whether and why the player of an address has their mail held.
    pub async fn pause_of(&self, email: &EmailAddress) -> Result<Option<Pause>, StoreError> {
        let row =
            super::sql::query("SELECT paused_at, paused_reason FROM players WHERE email = $1")
                .bind(email.as_str())
                .fetch_optional(self.pool())
                .await?;
        pause_from(row)
    }
    /// Resumes the player of an address (`dopis player resume`); `false`
    /// when their mail was not paused.
    pub async fn resume_player(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let player = self.player_by_email(email).await?;
        let mut tx = self.begin().await?;
        let resumed = tx.resume_player(player.id, now).await?;
        tx.commit().await?;
        Ok(resumed)
    }
}

impl Tx {
    /// [`Store::link_generation`] inside a transaction (a mail's link to
    /// the player's pages is made as the mail is queued).
    pub async fn link_generation(&mut self, id: PlayerId) -> Result<Option<i64>, StoreError> {
        let row = super::sql::query("SELECT link_generation FROM players WHERE id = $1")
            .bind(id.0)
            .fetch_optional(&mut self.tx)
            .await?;
        row.map(|r| r.try_get("link_generation")).transpose()
    }

    /// Registers a player (an event file names them); an address is registered once.
    pub async fn add_player(
        &mut self,
        p: &NewPlayer,
        now: DateTime<Utc>,
    ) -> Result<Player, StoreError> {
        insert(self.conn().into(), p, now).await
    }
    /// The player with an id.
    pub async fn player(&mut self, id: PlayerId) -> Result<Player, StoreError> {
        by_id(self.conn().into(), id).await
    }
    /// Sets the language of a player's mails and commands.
    pub async fn set_player_lang(
        &mut self,
        id: PlayerId,
        lang: crate::domain::lang::Lang,
    ) -> Result<(), StoreError> {
        let done = super::sql::query("UPDATE players SET lang = $1 WHERE id = $2")
            .bind(lang.code())
            .bind(id.0)
            .execute(&mut self.tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::Corrupt(format!(
                "player id {} is missing",
                id.0
            )));
        }
        Ok(())
    }
    /// The player registered with an address, if any.
    pub async fn player_by_email(&mut self, email: &str) -> Result<Option<Player>, StoreError> {
        by_email(self.conn().into(), email).await
    }
    /// Sets how a player hears of their moves.
    pub async fn set_player_digest(
        &mut self,
        player: PlayerId,
        digest: bool,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE players SET notify = $1 WHERE id = $2")
            .bind(if digest { "digest" } else { "each" })
            .bind(player.0)
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }
    /// Whether a player gets the daily digest instead of a mail per move.
    pub async fn wants_digest(&mut self, player: PlayerId) -> Result<bool, StoreError> {
        let row = super::sql::query("SELECT notify FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut self.tx)
            .await?;
        Ok(match row {
            Some(r) => r.try_get::<String, _>("notify")? == "digest",
            None => false,
        })
    }
    /// Every player who gets the daily digest.
    pub async fn digest_players(&mut self) -> Result<Vec<PlayerId>, StoreError> {
        super::sql::query("SELECT id FROM players WHERE notify = 'digest' ORDER BY id")
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| Ok(PlayerId(r.try_get("id")?)))
            .collect()
    }
    /// Whether and why a player's mail is held.
    pub async fn pause_of(&mut self, player: PlayerId) -> Result<Option<Pause>, StoreError> {
        let row = super::sql::query("SELECT paused_at, paused_reason FROM players WHERE id = $1")
            .bind(player.0)
            .fetch_optional(&mut self.tx)
            .await?;
        pause_from(row)
    }
    /// Pauses a player's mail; `false` when it was paused already.
    pub async fn pause_player(
        &mut self,
        player: PlayerId,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = super::sql::query(
            "UPDATE players SET paused_at = $1, paused_reason = $2 \
             WHERE id = $3 AND paused_at IS NULL",
        )
        .bind(to_millis(now))
        .bind(reason)
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected() > 0)
    }
    /// Resumes a player's mail: the held mail goes out with the next send,
    /// and earlier bounces no longer count. `false` when not paused.
    pub async fn resume_player(
        &mut self,
        player: PlayerId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let done = super::sql::query(
            "UPDATE players SET paused_at = NULL, paused_reason = NULL, resumed_at = $1 \
             WHERE id = $2 AND paused_at IS NOT NULL",
        )
        .bind(to_millis(now))
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected() > 0)
    }
}

fn pause_from(row: Option<super::sql::Row>) -> Result<Option<Pause>, StoreError> {
    let Some(row) = row else {
        return Ok(None);
    };
    let at: Option<i64> = row.try_get("paused_at")?;
    let Some(at) = at else {
        return Ok(None);
    };
    Ok(Some(Pause {
        since: from_millis(at)?,
        reason: row
            .try_get::<Option<String>, _>("paused_reason")?
            .unwrap_or_default(),
    }))
}
