//! `dopis bench report`: seeds a database with many active games and times
//! the deadline report on it. Prints figures; asserts nothing about time.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, bail};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use clap::Subcommand;
use sqlx::{AssertSqlSafe, Row};

use crate::chess::game::{EndReason, GameResult, Outcome};
use crate::service::report::{ReportAsk, SILENCE_DAYS, deadlines};
use crate::store::Store;

/// Benchmark subcommands.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Seed N active games into a fresh SQLite file (and a PostgreSQL
    /// database, if given) and time `report deadlines` on each.
    Report {
        /// Active games to seed.
        #[arg(long, default_value_t = 100_000)]
        games: u32,
        /// An empty, scratch PostgreSQL database to seed as well.
        #[arg(long, value_name = "URL")]
        postgres: Option<String>,
    },
}

/// The instant the seeded clocks are set around (the report is made for it).
fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0)
        .single()
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

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

async fn exec(store: &Store, sql: String) -> Result<()> {
    sqlx::query(AssertSqlSafe(sql))
        .execute(store.pool())
        .await?;
    Ok(())
}

/// Seeds `games` active games (and some finished on time, and leave).
async fn seed(store: &Store, games: u32) -> Result<()> {
    let existing: i64 = sqlx::query("SELECT COUNT(*) AS n FROM games")
        .fetch_one(store.pool())
        .await?
        .try_get("n")?;
    if existing > 0 {
        bail!("the database already holds {existing} games: give an empty scratch database");
    }
    let today = base().date_naive();
    let base = base().timestamp_millis();
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

async fn measure(name: &str, url: &str, games: u32, out: &mut dyn Write) -> Result<()> {
    let store = Store::open(url).await?;
    store
        .close_after(measure_on(&store, name, games, out))
        .await
}

async fn measure_on(store: &Store, name: &str, games: u32, out: &mut dyn Write) -> Result<()> {
    let started = Instant::now();
    seed(store, games).await?;
    writeln!(
        out,
        "{name}: seeded {games} active games in {:.1} s",
        started.elapsed().as_secs_f64()
    )?;
    let ask = ReportAsk {
        at: base(),
        within: TimeDelta::days(3),
        since: base() - TimeDelta::days(7),
        silence_days: SILENCE_DAYS,
    };
    let mut times = Vec::new();
    let mut size = (0, 0, 0, 0);
    for _ in 0..5 {
        let t = Instant::now();
        let report = deadlines(store, ask).await?;
        let text = report.to_text();
        let json = serde_json::to_string(&report)?;
        times.push(t.elapsed().as_secs_f64());
        size = (
            report.games.len(),
            report.leave.len(),
            report.timeouts.len(),
            text.len() + json.len(),
        );
    }
    times.sort_by(f64::total_cmp);
    writeln!(
        out,
        "{name}: report deadlines (text + JSON) over {games} active games: median {:.3} s, \
         best {:.3} s, worst {:.3} s; {} games listed, {} leave, {} timeouts ({} bytes)",
        times[times.len() / 2],
        times[0],
        times[times.len() - 1],
        size.0,
        size.1,
        size.2,
        size.3
    )?;
    Ok(())
}

/// Runs a benchmark.
pub async fn run(cmd: BenchCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let BenchCommand::Report { games, postgres } = cmd;
    let dir = tempfile_dir()?;
    let url = format!("sqlite://{}", dir.join("bench.db").display());
    measure("SQLite", &url, games, out).await?;
    let _ = std::fs::remove_dir_all(&dir);
    match postgres {
        Some(url) => measure("PostgreSQL", &url, games, out).await?,
        None => writeln!(
            out,
            "PostgreSQL: skipped (give --postgres URL of a scratch database)"
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

fn tempfile_dir() -> Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!(
        "dopis-bench-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
