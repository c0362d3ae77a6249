//! `dopis bench report`: seeds a database with many active games and times
//! the deadline report on it. Prints figures; asserts nothing about time.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use clap::Subcommand;

use crate::service::Store;
use crate::service::report::{ReportAsk, SILENCE_DAYS, deadlines, seed_for_bench};

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

/// Seeds `games` active games (and some finished on time, and leave) into
/// an empty database.
async fn seed(store: &Store, games: u32) -> Result<()> {
    seed_for_bench(store, games, base()).await?;
    Ok(())
}

async fn measure(name: &str, url: &str, games: u32, out: &mut dyn Write) -> Result<()> {
    let store = crate::service::create_store(url).await?;
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
