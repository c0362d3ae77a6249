//! Registering and finding players.

use chrono::{DateTime, Utc};
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use super::{Store, StoreError, to_millis};
use crate::address::EmailAddress;
use crate::player::{NewPlayer, Player, PlayerId, parse_tz};

const COLUMNS: &str = "id, email, name, lang, tz";

pub(super) fn from_row(row: &AnyRow) -> Result<Player, StoreError> {
    let email: String = row.try_get("email")?;
    let lang: String = row.try_get("lang")?;
    let tz: Option<String> = row.try_get("tz")?;
    Ok(Player {
        id: PlayerId(row.try_get("id")?),
        email: EmailAddress::parse(&email).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        name: row.try_get("name")?,
        lang: lang
            .parse()
            .map_err(|e: crate::lang::UnknownLang| StoreError::Corrupt(e.to_string()))?,
        tz: tz
            .map(|t| parse_tz(&t))
            .transpose()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
    })
}

impl Store {
    /// Registers a player; an address can be registered once.
    pub async fn add_player(
        &self,
        p: &NewPlayer,
        now: DateTime<Utc>,
    ) -> Result<Player, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "INSERT INTO players (email, name, lang, tz, created_at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (email) DO NOTHING RETURNING {COLUMNS}"
        )))
        .bind(p.email.as_str())
        .bind(&p.name)
        .bind(p.lang.code())
        .bind(p.tz.map(|t| t.name().to_string()))
        .bind(to_millis(now))
        .fetch_optional(self.pool())
        .await?;
        match row {
            Some(row) => from_row(&row),
            None => Err(StoreError::DuplicatePlayer(p.email.to_string())),
        }
    }

    /// The player registered with an address.
    pub async fn player_by_email(&self, email: &EmailAddress) -> Result<Player, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM players WHERE email = $1"
        )))
        .bind(email.as_str())
        .fetch_optional(self.pool())
        .await?;
        match row {
            Some(row) => from_row(&row),
            None => Err(StoreError::UnknownPlayer(email.to_string())),
        }
    }

    /// The player with an id.
    pub async fn player(&self, id: PlayerId) -> Result<Player, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM players WHERE id = $1"
        )))
        .bind(id.0)
        .fetch_optional(self.pool())
        .await?;
        match row {
            Some(row) => from_row(&row),
            None => Err(StoreError::Corrupt(format!(
                "player id {} is missing",
                id.0
            ))),
        }
    }

    /// Every player, by address.
    pub async fn players(&self) -> Result<Vec<Player>, StoreError> {
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM players ORDER BY email"
        )))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(from_row)
        .collect()
    }
}
