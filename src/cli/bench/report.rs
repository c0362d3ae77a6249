//! The deadline report and the daemon's due-scan over many seeded games,
//! each timed in a child process, whose peak memory is the figure.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Result, bail};
use chrono::{DateTime, TimeDelta, TimeZone, Utc};

use super::{Usage, median};
use crate::service::clocks::next_due_game;
use crate::service::report::{
    Format, ReportAsk, SILENCE_DAYS, bench_postgres, drop_bench_postgres, seed_for_bench,
    write_deadlines,
};

/// Counts the bytes written to it, and keeps none.
struct Counted(usize);

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The instant the seeded clocks are set around (the report is made for it).
fn base() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 6, 1, 12, 0, 0)
        .single()
        .unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// Seeds `games` active games into SQLite (and PostgreSQL, when given) and
/// times the report and the due-scan on each in a child.
pub(super) async fn measure(
    games: u32,
    postgres: Option<&str>,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    let file = dir.join(format!("report-{games}.db"));
    let url = format!("sqlite://{}", file.display());
    seed_and_time("SQLite", &url, games, out).await?;
    let _ = std::fs::remove_file(&file);
    match postgres {
        Some(admin) => {
            let (url, name) = bench_postgres(admin).await?;
            let result = seed_and_time("PostgreSQL", &url, games, out).await;
            drop_bench_postgres(admin, &name).await?;
            result?;
        }
        None => writeln!(
            out,
            "report PostgreSQL: skipped (give --postgres URL of a server to make scratch databases on)"
        )?,
    }
    Ok(())
}

async fn seed_and_time(name: &str, url: &str, games: u32, out: &mut dyn Write) -> Result<()> {
    let started = Instant::now();
    let store = crate::service::create_store(url).await?;
    let seeded = store
        .close_after(seed_for_bench(&store, games, base()))
        .await;
    seeded?;
    let seed_s = started.elapsed().as_secs_f64();
    let output = Command::new(std::env::current_exe()?)
        .args(["bench", "child-report", "--url", url])
        .output()?;
    let printed = String::from_utf8_lossy(&output.stdout);
    let Some(usage) = Usage::parse(&printed).filter(|_| output.status.success()) else {
        bail!(
            "the report's child run failed: {}{}",
            printed,
            String::from_utf8_lossy(&output.stderr)
        );
    };
    for line in printed.lines().filter(|l| !l.starts_with("usage ")) {
        writeln!(out, "{name} {games} games: {line}")?;
    }
    writeln!(
        out,
        "report {name} {games} games: peak memory {:.1} MB (peak RSS of the child that ran the report and the scan), seeded in {seed_s:.1} s",
        usage.max_rss_kb as f64 / 1024.0
    )?;
    Ok(())
}

/// The child: times the report and the due-scan on the seeded database.
pub(super) async fn child(url: &str, out: &mut dyn Write) -> Result<std::process::ExitCode> {
    let store = crate::service::open_store(url).await?;
    let result = store.close_after(child_on(&store, out)).await;
    result?;
    writeln!(out, "{}", Usage::of_self().line())?;
    Ok(std::process::ExitCode::SUCCESS)
}

async fn child_on(store: &crate::service::Store, out: &mut dyn Write) -> Result<()> {
    let ask = ReportAsk {
        at: base(),
        within: TimeDelta::days(3),
        since: base() - TimeDelta::days(7),
        silence_days: SILENCE_DAYS,
    };
    // Each format as `dopis report deadlines` writes it (one read of the
    // database each), to a sink that only counts.
    let mut times = (Vec::new(), Vec::new());
    let mut listed = (0, 0, 0);
    for _ in 0..3 {
        let t = Instant::now();
        let mut text = Counted(0);
        let games = write_deadlines(store, ask, None, None, Format::Text, &mut text).await?;
        times.0.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut json = Counted(0);
        write_deadlines(store, ask, None, None, Format::Json, &mut json).await?;
        times.1.push(t.elapsed().as_secs_f64());
        listed = (games, text.0, json.0);
    }
    writeln!(
        out,
        "report deadlines: text {:.3} s and JSON {:.3} s median of 3 ({} games listed, {} + {} bytes)",
        median(&mut times.0),
        median(&mut times.1),
        listed.0,
        listed.1,
        listed.2
    )?;
    let mut scans = Vec::new();
    let mut found = None;
    for _ in 0..20 {
        let t = Instant::now();
        found = next_due_game(store, base()).await?;
        scans.push(t.elapsed().as_secs_f64() * 1e3);
    }
    writeln!(
        out,
        "due-scan (the scheduler's next due game): {:.3} ms median of 20 ({})",
        median(&mut scans),
        if found.is_some() {
            "a game due"
        } else {
            "none due"
        }
    )?;
    Ok(())
}
