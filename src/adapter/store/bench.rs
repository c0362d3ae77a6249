//! Seeding a scratch database for `dopis bench report`: many players and
//! games, written in large batches.

use super::sql::AssertSqlSafe;
use chrono::{DateTime, TimeDelta, Utc};

use super::{Store, StoreError};
use crate::domain::chess::game::{EndReason, GameResult, Outcome};

/// A small deterministic generator: the same seed gives the same database.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below.max(1)
    }
}

async fn exec(store: &Store, sql: String) -> Result<(), StoreError> {
    super::sql::query(AssertSqlSafe(sql))
        .execute(store.pool())
        .await?;
    Ok(())
}

impl Store {
    /// How many games the database holds.
    pub async fn game_count(&self) -> Result<i64, StoreError> {
        super::sql::query("SELECT COUNT(*) AS n FROM games")
            .fetch_one(self.pool())
            .await?
            .try_get("n")
    }

    /// Seeds `games` active games (and some finished on time, and leave)
    /// around `at`, for `dopis bench report`: a deterministic generator, so
    /// the same figures give the same database.
    pub async fn seed_bench(&self, games: u32, at: DateTime<Utc>) -> Result<(), StoreError> {
        let store = self;
        let today = at.date_naive();
        let base = at.timestamp_millis();
        let day = 86_400_000_i64;
        let players = 2_000_u64;
        for chunk in (0..players).collect::<Vec<_>>().chunks(500) {
            let values: Vec<String> = chunk
                .iter()
                .map(|i| format!("('p{i}@bench.test', 'Player {i}', 'en', NULL, {base})"))
                .collect();
            exec(
                store,
                format!(
                    "INSERT INTO players (email, name, lang, tz, created_at) VALUES {}",
                    values.join(", ")
                ),
            )
            .await?;
        }
        let mut rng = Lcg(42);
        let all: Vec<u32> = (0..games).collect();
        for chunk in all.chunks(1000) {
            let values: Vec<String> = chunk
            .iter()
            .map(|_| {
                let white = 1 + rng.next(players);
                let black = 1 + (white + rng.next(players - 1)) % players;
                // A tenth of the games are 3d (every one due within 3 days);
                // the others 10/50d, waiting up to 20 days with 1-50 days left.
                let (control, since, deadline) = if rng.next(10) == 0 {
                    let since = base - rng.next(3 * 24) as i64 * day / 24;
                    ("3d", since, since + 3 * day)
                } else {
                    let since = base - rng.next(20 * 24) as i64 * day / 24;
                    ("10/50d", since, base + (1 + rng.next(50 * 24) as i64) * day / 24)
                };
                let side = if rng.next(2) == 0 { "white" } else { "black" };
                format!(
                    "({white}, {black}, 'standard', '{control}', 'active', {since}, {deadline}, {deadline}, '{side}', {since})"
                )
            })
            .collect();
            exec(
            store,
            format!(
                "INSERT INTO games (white_id, black_id, variant, time_control, status, created_at, \
                 next_due_at, deadline_at, to_move, waiting_since) VALUES {}",
                values.join(", ")
            ),
        )
        .await?;
        }
        // Finished games: a tenth as many, one in ten on time.
        let finished: Vec<u32> = (0..games / 10).collect();
        for chunk in finished.chunks(1000) {
            let values: Vec<String> = chunk
            .iter()
            .map(|i| {
                let white = 1 + rng.next(players);
                let black = 1 + (white + rng.next(players - 1)) % players;
                let at = base - rng.next(60) as i64 * day;
                let outcome = if i % 10 == 0 {
                    Outcome::new(GameResult::BlackWins, EndReason::TimeForfeit)
                } else {
                    Outcome::new(GameResult::WhiteWins, EndReason::Checkmate)
                };
                let (result, reason) = (outcome.result.as_pgn(), outcome.to_string());
                format!(
                    "({white}, {black}, 'standard', '3d', 'finished', '{result}', '{reason}', {}, {at})",
                    at - 30 * day
                )
            })
            .collect();
            exec(
                store,
                format!(
                    "INSERT INTO games (white_id, black_id, variant, time_control, status, result, \
                 end_reason, created_at, finished_at) VALUES {}",
                    values.join(", ")
                ),
            )
            .await?;
        }
        let values: Vec<String> = (0..200)
            .map(|i| {
                let from = today + TimeDelta::days(rng.next(60) as i64 - 10);
                let to = from + TimeDelta::days(rng.next(10) as i64);
                format!(
                    "({}, NULL, '{from}', '{to}', 0, 'bench', NULL, {base})",
                    1 + i * 7
                )
            })
            .collect();
        exec(
            store,
            format!(
                "INSERT INTO leave_bookings (player_id, event_id, first_day, last_day, special, \
             created_by, reason, created_at) VALUES {}",
                values.join(", ")
            ),
        )
        .await?;
        // Fresh statistics, as a database in use has them.
        exec(store, "ANALYZE".into()).await?;
        Ok(())
    }
}

/// Creates an empty database on the PostgreSQL server of `admin_url` (a
/// database the bench may connect to and create others from); returns its
/// URL and its name, for [`drop_scratch_postgres`].
pub async fn scratch_postgres(admin_url: &str) -> Result<(String, String), StoreError> {
    use sqlx::{Connection, Executor};
    let name = format!("dopis_bench_{:016x}", rand::random::<u64>());
    let mut conn = sqlx::PgConnection::connect(admin_url).await?;
    conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await?;
    let _ = conn.close().await;
    let (base, query) = match admin_url.split_once('?') {
        Some((b, q)) => (b.to_string(), format!("?{q}")),
        None => (admin_url.to_string(), String::new()),
    };
    let server = base.rsplit_once('/').map_or(base.as_str(), |(s, _)| s);
    Ok((format!("{server}/{name}{query}"), name))
}

/// Drops a database [`scratch_postgres`] made (its name only: nothing else
/// is ever dropped).
pub async fn drop_scratch_postgres(admin_url: &str, name: &str) -> Result<(), StoreError> {
    use sqlx::{Connection, Executor};
    if !name.starts_with("dopis_bench_")
        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Ok(());
    }
    let mut conn = sqlx::PgConnection::connect(admin_url).await?;
    conn.execute(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .await?;
    let _ = conn.close().await;
    Ok(())
}
