//! The rating list (`ratings`) and its history (`rating_history`): each
//! player's place as [`crate::domain::rating::Standing`], and one row per game
//! rated and per start rating set, so the list can be audited.

use std::collections::HashMap;

use super::sql::Row;
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Backend, StoreError, Tx, corrupt, to_millis};
use crate::domain::ids::GameId;
use crate::domain::player::PlayerId;
use crate::domain::rating::{FirstGame, Period, Source, Standing};

/// One row of the history: what a game or a TD did to a player's rating.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RatingChange {
    /// The player.
    pub player: i64,
    /// The game, or `None` for a start rating.
    pub game: Option<i64>,
    /// `rated`, `first-game`, `not-rated` or `set`.
    pub kind: String,
    /// The rating period (`year * 12 + month - 1`).
    pub period: Option<i32>,
    /// The opponent.
    pub opponent: Option<i64>,
    /// The opponent's rating the game was rated against.
    pub opponent_rating: Option<i32>,
    /// 0 loss, 1 draw, 2 win.
    pub score_halves: Option<u8>,
    /// The rating difference counted (8.3.1).
    pub diff: Option<i32>,
    /// The expected score in hundredths (8.1.2).
    pub expected: Option<u8>,
    /// `ΔR` in hundredths.
    pub delta: Option<i64>,
    /// K used.
    pub k: Option<u32>,
    /// The rating before.
    pub before: Option<i32>,
    /// The rating after.
    pub after: Option<i32>,
    /// For `set`: where the rating came from.
    pub source: Option<String>,
    /// For `set`: who set it.
    pub set_by: Option<String>,
}

/// One line of the rating list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedRating {
    /// The player's address.
    pub email: String,
    /// The player's name.
    pub name: String,
    /// The player's place on the list.
    #[serde(flatten)]
    pub standing: Standing,
}

fn opt_i32(row: &Row, col: &str) -> Result<Option<i32>, StoreError> {
    row.try_get::<Option<i64>, _>(col)?
        .map(|v| i32::try_from(v).map_err(|_| corrupt(format!("{col} {v} out of range"))))
        .transpose()
}

fn standing_from_row(row: &Row) -> Result<Standing, StoreError> {
    let u = |col: &str| -> Result<u32, StoreError> {
        let v: i64 = row.try_get(col)?;
        u32::try_from(v).map_err(|_| corrupt(format!("{col} {v} out of range")))
    };
    let source: Option<String> = row.try_get("source")?;
    let first: String = row.try_get("first_games")?;
    let first_games: Vec<FirstGame> =
        serde_json::from_str(&first).map_err(|e| corrupt(format!("first_games: {e}")))?;
    Ok(Standing {
        rating: opt_i32(row, "rating")?,
        source: source
            .map(|s| Source::from_key(&s).ok_or_else(|| corrupt(format!("rating source '{s}'"))))
            .transpose()?,
        games: u("games")?,
        reached_2400: row.try_get::<i64, _>("reached_2400")? != 0,
        period: opt_i32(row, "period")?.map(Period),
        period_start: opt_i32(row, "period_start")?.unwrap_or(0),
        k: u("k")?,
        period_sum: row.try_get("period_sum")?,
        period_games: u("period_games")?,
        first_games,
    })
}

const COLUMNS: &str = "rating, source, games, reached_2400, period, period_start, k, \
                       period_sum, period_games, first_games";

impl Tx {
    /// A player's place on the rating list (unrated and empty if absent),
    /// read for changing it: on PostgreSQL the row stays locked until the
    /// transaction ends, so two games ending at once in two daemons cannot
    /// both start from the same rating (callers lock players in id order).
    pub async fn rating_standing(&mut self, player: PlayerId) -> Result<Standing, StoreError> {
        let lock = match self.backend {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        };
        super::sql::query(
            "INSERT INTO ratings (player_id, updated_at) VALUES ($1, 0) \
             ON CONFLICT (player_id) DO NOTHING",
        )
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        let row = super::sql::query(super::sql::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM ratings WHERE player_id = $1{lock}"
        )))
        .bind(player.0)
        .fetch_optional(&mut self.tx)
        .await?;
        row.as_ref()
            .map_or_else(|| Ok(Standing::default()), standing_from_row)
    }

    /// Stores a player's place on the rating list.
    pub async fn save_rating_standing(
        &mut self,
        player: PlayerId,
        s: &Standing,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let first = serde_json::to_string(&s.first_games).map_err(|e| corrupt(e.to_string()))?;
        super::sql::query(
            "UPDATE ratings SET rating = $2, source = $3, games = $4, reached_2400 = $5, \
             period = $6, period_start = $7, k = $8, period_sum = $9, period_games = $10, \
             first_games = $11, updated_at = $12 WHERE player_id = $1",
        )
        .bind(player.0)
        .bind(s.rating.map(i64::from))
        .bind(s.source.map(|s| s.key()))
        .bind(i64::from(s.games))
        .bind(i64::from(s.reached_2400))
        .bind(s.period.map(|p| i64::from(p.0)))
        .bind(i64::from(s.period_start))
        .bind(i64::from(s.k))
        .bind(s.period_sum)
        .bind(i64::from(s.period_games))
        .bind(first)
        .bind(to_millis(now))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Adds a row to the rating history.
    pub async fn add_rating_change(
        &mut self,
        c: &RatingChange,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO rating_history (player_id, game_id, kind, period, opponent_id, \
             opponent_rating, score_halves, diff, expected, delta, k, rating_before, \
             rating_after, source, set_by, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        )
        .bind(c.player)
        .bind(c.game)
        .bind(c.kind.as_str())
        .bind(c.period.map(i64::from))
        .bind(c.opponent)
        .bind(c.opponent_rating.map(i64::from))
        .bind(c.score_halves.map(i64::from))
        .bind(c.diff.map(i64::from))
        .bind(c.expected.map(i64::from))
        .bind(c.delta)
        .bind(c.k.map(i64::from))
        .bind(c.before.map(i64::from))
        .bind(c.after.map(i64::from))
        .bind(c.source.as_deref())
        .bind(c.set_by.as_deref())
        .bind(to_millis(at))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Whether a game is already in the rating history.
    pub async fn game_in_rating_history(&mut self, game: GameId) -> Result<bool, StoreError> {
        Ok(
            super::sql::query("SELECT 1 AS one FROM rating_history WHERE game_id = $1")
                .bind(game.0)
                .fetch_optional(&mut self.tx)
                .await?
                .is_some(),
        )
    }

    /// The opponent ratings a game was rated against, by the player whose
    /// row it is: `(player, their opponent's rating)`.
    pub async fn ratings_in_game(
        &mut self,
        game: GameId,
    ) -> Result<Vec<(PlayerId, Option<i32>)>, StoreError> {
        super::sql::query(
            "SELECT player_id, opponent_rating FROM rating_history WHERE game_id = $1",
        )
        .bind(game.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok((
                PlayerId(r.try_get("player_id")?),
                opt_i32(r, "opponent_rating")?,
            ))
        })
        .collect()
    }

    /// The rating list: every player with a rating or games towards one,
    /// best first, then by name.
    pub async fn rating_list(&mut self) -> Result<Vec<ListedRating>, StoreError> {
        super::sql::query(super::sql::AssertSqlSafe(format!(
            "SELECT p.email AS email, p.name AS name, {} FROM ratings r \
             JOIN players p ON p.id = r.player_id \
             WHERE r.rating IS NOT NULL OR r.first_games <> '[]' \
             ORDER BY CASE WHEN r.rating IS NULL THEN 1 ELSE 0 END, r.rating DESC, p.name, p.email",
            COLUMNS
                .split(", ")
                .map(|c| format!("r.{}", c.trim()))
                .collect::<Vec<_>>()
                .join(", ")
        )))
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(ListedRating {
                email: r.try_get("email")?,
                name: r.try_get("name")?,
                standing: standing_from_row(r)?,
            })
        })
        .collect()
    }

    /// The ratings shown of some players (the unrated are left out).
    pub async fn ratings_of(
        &mut self,
        players: &[PlayerId],
    ) -> Result<HashMap<PlayerId, i32>, StoreError> {
        // One statement for all (a game's two players on every move), in
        // slices that keep the parameters under SQLite's old limit.
        let mut wanted: Vec<i64> = players.iter().map(|p| p.0).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut out = HashMap::new();
        for slice in wanted.chunks(500) {
            let marks: Vec<String> = (1..=slice.len()).map(|i| format!("${i}")).collect();
            let mut query = super::sql::query(super::sql::AssertSqlSafe(format!(
                "SELECT player_id, rating FROM ratings WHERE player_id IN ({})",
                marks.join(", ")
            )));
            for id in slice {
                query = query.bind(*id);
            }
            for row in query.fetch_all(&mut self.tx).await? {
                if let Some(r) = opt_i32(&row, "rating")? {
                    out.insert(PlayerId(row.try_get("player_id")?), r);
                }
            }
        }
        Ok(out)
    }

    /// A player's rating history, oldest first.
    pub async fn rating_history_of(
        &mut self,
        player: PlayerId,
    ) -> Result<Vec<RatingChange>, StoreError> {
        super::sql::query(
            "SELECT player_id, game_id, kind, period, opponent_id, opponent_rating, score_halves, \
             diff, expected, delta, k, rating_before, rating_after, source, set_by \
             FROM rating_history WHERE player_id = $1 ORDER BY id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            let small = |col: &str| -> Result<Option<u8>, StoreError> {
                Ok(r.try_get::<Option<i64>, _>(col)?
                    .and_then(|v| u8::try_from(v).ok()))
            };
            Ok(RatingChange {
                player: r.try_get("player_id")?,
                game: r.try_get("game_id")?,
                kind: r.try_get("kind")?,
                period: opt_i32(r, "period")?,
                opponent: r.try_get("opponent_id")?,
                opponent_rating: opt_i32(r, "opponent_rating")?,
                score_halves: small("score_halves")?,
                diff: opt_i32(r, "diff")?,
                expected: small("expected")?,
                delta: r.try_get("delta")?,
                k: opt_i32(r, "k")?.and_then(|k| u32::try_from(k).ok()),
                before: opt_i32(r, "rating_before")?,
                after: opt_i32(r, "rating_after")?,
                source: r.try_get("source")?,
                set_by: r.try_get("set_by")?,
            })
        })
        .collect()
    }
}
