//! `dopis bench`: the figures of issue 15, measured on this machine, each
//! with its unit and, where one exists, a reference measured in the same
//! run. Prints figures; asserts nothing about time.
//!
//! Parts (`--only a,b`): `parse` (move text per notation, on a prebuilt
//! board and from a FEN; python-chess as the reference), `san` (writing
//! SAN on a prebuilt board), `diagram` (PNG and SVG boards), `cli`
//! (`game new` and `player add` as spawned processes), `report` (the
//! deadline report and the daemon's due-scan, in a child process for its
//! peak memory), `e2e` (Maildir → database → reply mails, by a spawned
//! `serve`: throughput, CPU and bytes written per mail, latency at a fixed
//! offered rate), `soak` (a running `serve` under a steady load of move
//! mails for `--soak-minutes`, its memory, open files, database size,
//! latency and retention printed every minute; only when named).
//!
//! Rates inside this process are per CPU second of the measuring thread
//! (one core), so that other work on a shared machine moves them less;
//! children are measured by their own `getrusage`, `/proc/self/io` and
//! peak resident size (VmHWM).

mod chess;
mod e2e;
mod process;
mod report;
mod soak;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::{Subcommand, ValueEnum};

/// `dopis bench`: what to measure and how much.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// A child run the bench starts itself (not for people).
    #[command(subcommand)]
    pub child: Option<ChildCommand>,
    /// Only these parts (comma-separated); default: all but the soak.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<Part>,
    /// Active games seeded for the deadline report and the due-scan.
    #[arg(long, default_value_t = 100_000)]
    pub report_games: u32,
    /// Also seed 1,000,000 games for the report and the due-scan (minutes).
    #[arg(long)]
    pub million: bool,
    /// Concurrent games end to end: one move mail each.
    #[arg(long, default_value_t = 2_016)]
    pub games: u32,
    /// Mails a second offered for the latency figure.
    #[arg(long, default_value_t = 100)]
    pub rate: u32,
    /// How long the latency run offers mail, in seconds.
    #[arg(long, default_value_t = 10)]
    pub rate_seconds: u32,
    /// Minutes the soak runs (`--only soak`; an hour is its long form).
    #[arg(long, default_value_t = 60)]
    pub soak_minutes: u32,
    /// Move mails a second offered during the soak.
    #[arg(long, default_value_t = 20)]
    pub soak_rate: u32,
    /// A PostgreSQL server (URL of a database the bench may connect to)
    /// on which it creates, and drops afterwards, scratch databases.
    #[arg(long, value_name = "URL")]
    pub postgres: Option<String>,
    /// Tiny sizes, to check that every figure is printed (the smoke test).
    #[arg(long)]
    pub quick: bool,
}

/// The parts of the bench.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Part {
    /// Reading move text, per notation.
    Parse,
    /// Writing SAN.
    San,
    /// PNG and SVG boards.
    Diagram,
    /// CLI latency.
    Cli,
    /// The deadline report and the due-scan.
    Report,
    /// End to end through a spawned `serve`.
    E2e,
    /// A running `serve` under steady load for minutes (only when named).
    Soak,
}

/// Child runs: each prints its figures and a `usage` line of its own.
#[derive(Debug, Subcommand)]
pub enum ChildCommand {
    /// Times the report and the due-scan on a seeded database.
    #[command(hide = true)]
    ChildReport {
        /// The seeded database.
        #[arg(long)]
        url: String,
    },
    /// One `serve --once` pass with the config of `--config`.
    #[command(hide = true)]
    ChildServe {
        /// The config file.
        #[arg(long)]
        with: PathBuf,
        /// Keep serving until killed (the latency run) instead of one pass.
        #[arg(long)]
        keep: bool,
    },
}

/// Sizes of one run.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    /// How long each in-process rate is measured (CPU time).
    min_cpu: Duration,
    /// Lines fed to `move --batch` first (then as many as take a second
    /// of CPU, unless `quick`).
    batch_lines: usize,
    /// Tiny sizes: each figure once, for the smoke test.
    quick: bool,
    /// Calls of each CLI command.
    cli_calls: usize,
    report_games: u32,
    games: u32,
    rate: u32,
    rate_seconds: u32,
}

impl BenchArgs {
    fn sizes(&self) -> Sizes {
        if self.quick {
            Sizes {
                min_cpu: Duration::from_millis(10),
                batch_lines: 200,
                quick: true,
                cli_calls: 2,
                report_games: 200,
                games: 6,
                rate: 20,
                rate_seconds: 1,
            }
        } else {
            Sizes {
                min_cpu: Duration::from_millis(400),
                batch_lines: 40_000,
                quick: false,
                cli_calls: 10,
                report_games: self.report_games,
                games: self.games.max(1),
                rate: self.rate.max(1),
                rate_seconds: self.rate_seconds.max(1),
            }
        }
    }

    fn wants(&self, part: Part) -> bool {
        // The soak takes as long as it is told (an hour by default): never
        // part of a run that did not ask for it.
        self.only.contains(&part) || (self.only.is_empty() && part != Part::Soak)
    }
}

/// Runs the bench (or one of its child runs).
pub fn run(args: BenchArgs, out: &mut dyn Write) -> Result<ExitCode> {
    match &args.child {
        Some(ChildCommand::ChildReport { url }) => {
            return runtime()?.block_on(report::child(url, out));
        }
        Some(ChildCommand::ChildServe { with, keep }) => return e2e::child(with, *keep, out),
        None => {}
    }
    let sizes = args.sizes();
    let dir = TempDir::new()?;
    writeln!(
        out,
        "dopis bench: {} ({} build), {} CPUs{}",
        env!("CARGO_PKG_VERSION"),
        if cfg!(debug_assertions) {
            "debug: figures mean little"
        } else {
            "release"
        },
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if args.quick { ", --quick sizes" } else { "" }
    )?;
    let python = chess::python_chess();
    if args.wants(Part::Parse) {
        chess::parse(&sizes, python.as_deref(), dir.path(), out)?;
    }
    if args.wants(Part::San) {
        chess::san(&sizes, python.as_deref(), dir.path(), out)?;
    }
    if args.wants(Part::Diagram) {
        chess::diagrams(&sizes, out)?;
    }
    if args.wants(Part::Cli) {
        runtime()?.block_on(process::cli_latency(&sizes, dir.path(), out))?;
    }
    if args.wants(Part::Report) {
        let mut counts = vec![sizes.report_games];
        if args.million && !args.quick {
            counts.push(1_000_000);
        }
        for games in counts {
            runtime()?.block_on(report::measure(
                games,
                args.postgres.as_deref(),
                dir.path(),
                out,
            ))?;
        }
    }
    if args.wants(Part::E2e) {
        runtime()?.block_on(e2e::measure(
            &sizes,
            args.postgres.as_deref(),
            dir.path(),
            out,
        ))?;
    }
    if args.wants(Part::Soak) {
        let plan = soak::Plan {
            minutes: args.soak_minutes.max(1),
            rate: args.soak_rate.max(1),
        };
        runtime()?.block_on(soak::measure(
            plan,
            args.postgres.as_deref(),
            dir.path(),
            out,
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?)
}

/// A scratch directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir> {
        let dir = std::env::temp_dir().join(format!(
            "dopis-bench-{}-{:08x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}

/// Items per CPU second of this thread: `round` does a batch of work and
/// says how many items it was; rounds run until `min` CPU time has passed.
fn per_cpu_second(min: Duration, mut round: impl FnMut() -> usize) -> f64 {
    let _ = round(); // warm-up: caches, lazily built tables
    let start = thread_cpu();
    let mut items = 0usize;
    loop {
        items += round();
        let spent = thread_cpu().saturating_sub(start);
        if spent >= min && items > 0 {
            return items as f64 / spent.as_secs_f64();
        }
    }
}

/// What a process used: from its own `getrusage`, `/proc/self/io` and
/// the peak resident size of `/proc/self/status`.
#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    user_s: f64,
    sys_s: f64,
    max_rss_kb: u64,
    read_bytes: u64,
    write_bytes: u64,
}

impl Usage {
    /// This process's usage so far.
    fn of_self() -> Usage {
        // SAFETY: getrusage fills one rusage, which `ru` is; zeroed is a
        // valid rusage.
        let ru = unsafe {
            let mut ru: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut ru);
            ru
        };
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
        let field = |name: &str| {
            io.lines()
                .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        // getrusage's ru_maxrss keeps the parent's size from before the
        // exec (the forked copy of its memory counts): VmHWM is of this
        // program alone.
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let peak_kb = status
            .lines()
            .find_map(|l| {
                l.strip_prefix("VmHWM:")?
                    .trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .unwrap_or_else(|| u64::try_from(ru.ru_maxrss).unwrap_or(0));
        Usage {
            user_s: secs(ru.ru_utime),
            sys_s: secs(ru.ru_stime),
            max_rss_kb: peak_kb,
            read_bytes: field("read_bytes:"),
            write_bytes: field("write_bytes:"),
        }
    }

    fn cpu_s(&self) -> f64 {
        self.user_s + self.sys_s
    }

    /// The line a child prints last.
    fn line(&self) -> String {
        format!(
            "usage user_s={:.6} sys_s={:.6} max_rss_kb={} read_bytes={} write_bytes={}",
            self.user_s, self.sys_s, self.max_rss_kb, self.read_bytes, self.write_bytes
        )
    }

    /// Reads a child's `usage` line from its output.
    fn parse(output: &str) -> Option<Usage> {
        let line = output.lines().rev().find(|l| l.starts_with("usage "))?;
        let mut u = Usage::default();
        for pair in line.split_whitespace().skip(1) {
            let (k, v) = pair.split_once('=')?;
            match k {
                "user_s" => u.user_s = v.parse().ok()?,
                "sys_s" => u.sys_s = v.parse().ok()?,
                "max_rss_kb" => u.max_rss_kb = v.parse().ok()?,
                "read_bytes" => u.read_bytes = v.parse().ok()?,
                "write_bytes" => u.write_bytes = v.parse().ok()?,
                _ => {}
            }
        }
        Some(u)
    }
}

/// CPU seconds (user + system) of the children this process has waited for.
fn children_cpu() -> f64 {
    // SAFETY: as in `Usage::of_self`.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru);
        ru
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(ru.ru_utime) + secs(ru.ru_stime)
}

/// The median of `values` (sorted here); 0 when empty.
fn median(values: &mut [f64]) -> f64 {
    percentile(values, 50.0)
}

/// The `p`-th percentile (nearest rank) of `values`; 0 when empty.
fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    values[rank.clamp(1, values.len()) - 1]
}

/// A rate with thousands separated, e.g. `512,300`.
fn grouped(x: f64) -> String {
    let n = x.round() as u64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
