//! The soak (issue 27): a running `dopis serve` under a steady load of
//! move mails for minutes (the test command) or an hour (by hand), its
//! figures printed every minute, so that a leak, a slowdown or retention
//! that prunes nothing shows as a trend:
//!
//! - the daemon's resident memory, open files and threads, from `/proc`;
//! - its CPU per mail, the mails offered and answered, and the p50, p99
//!   and largest latency from a mail's delivery into the Maildir to the
//!   first reply about the position it made;
//! - the database's size (and its free pages, which new rows reuse), the
//!   outbox waiting, and what `[retention]` has pruned so far.
//!
//! Games are played as players play them: a game's next move is written
//! only after the reply to its last one, every game plays the same 35
//! moves (ending in a draw by fivefold repetition, which the rules end by
//! themselves), and a new game between the same two players starts in its
//! place, as clubs start games while the daemon runs.
//!
//! Retention counts in days, and the daemon prunes at most once an hour
//! (`src/daemon/run.rs`): to see it prune within minutes, the daemon runs
//! under libfaketime, its clock moved on a day and an hour at the end of
//! every minute, with `[retention]` of one day. Each minute then stands
//! for a day of service: at the next pass the daemon prunes what it
//! handled before the jump, and what it handled since stays. Games are
//! started on the daemon's clock, with 30 days a move, so the jumps never
//! run one out of time. Without libfaketime the soak runs on the real
//! clock and says that retention was not exercised.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chrono::TimeDelta;

use super::e2e::{World, deliver, seed, stop};
use super::{grouped, percentile};
use crate::domain::chess::game::StartPosition;
use crate::domain::clock::TimeControl;
use crate::domain::ids::GameId;
use crate::domain::player::Player;
use crate::service::Store;
use crate::service::app::{Clock, SystemClock};
use crate::service::report::{bench_postgres, drop_bench_postgres};

/// The moves of every soak game: a Ruy Lopez to move 10, then White's
/// knight f3-h2 and Black's d7-b8 back and forth, until the position after
/// 10. d4 stands for the fifth time (White's 18th move): drawn by the rules.
const SCRIPT: [&str; 35] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7", "Nh2", "Nb8", "Nf3", "Nbd7", "Nh2", "Nb8", "Nf3",
    "Nbd7", "Nh2", "Nb8", "Nf3", "Nbd7", "Nh2", "Nb8", "Nf3",
];

/// How long and how hard to soak.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    /// Minutes of load.
    pub(super) minutes: u32,
    /// Move mails offered a second.
    pub(super) rate: u32,
}

/// SQLite, and PostgreSQL when given.
pub(super) async fn measure(
    plan: Plan,
    postgres: Option<&str>,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    let sqlite_dir = dir.join("soak-sqlite");
    std::fs::create_dir_all(&sqlite_dir)?;
    let file = sqlite_dir.join("soak.db");
    let url = format!("sqlite://{}", file.display());
    run("SQLite", &url, Some(&file), plan, &sqlite_dir, out).await?;
    match postgres {
        Some(admin) => {
            let pg_dir = dir.join("soak-postgres");
            std::fs::create_dir_all(&pg_dir)?;
            let (url, name) = bench_postgres(admin).await?;
            let result = run("PostgreSQL", &url, None, plan, &pg_dir, out).await;
            drop_bench_postgres(admin, &name).await?;
            result?;
        }
        None => writeln!(
            out,
            "soak PostgreSQL: skipped (give --postgres URL of a server to make scratch databases on)"
        )?,
    }
    Ok(())
}

/// The retention the soak runs with: a day, which each minute's jump of
/// the daemon's clock passes.
const RETENTION: &str = "\n[retention]\noutbox_bodies_days = 1\ninbound_days = 1\n";

/// How far the daemon's clock jumps at the end of each minute: past the
/// day of retention, and past the hour between two prunings.
const JUMP_HOURS: i64 = 25;

/// A mail with no answer after this long is counted as unanswered, and
/// its game given up for a new one.
const PATIENCE: Duration = Duration::from_secs(120);

async fn run(
    name: &str,
    url: &str,
    sqlite_file: Option<&Path>,
    plan: Plan,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    // Enough games that one is always waiting for its next move: each
    // waits a reply, well under a second, between two of its moves.
    let games = plan.rate.saturating_mul(4).max(8);
    let world = seed(url, games, dir, RETENTION, CONTROL).await?;
    let store = crate::service::open_store(url).await?;
    let result = soak(name, &world, &store, sqlite_file, plan, dir, out).await;
    store.close().await;
    result
}

/// A pair of players and the game they play now.
struct Slot {
    game: GameId,
    white: Player,
    black: Player,
    /// Moves played in the game.
    played: usize,
    /// The move mail sent and not yet answered: when it was delivered.
    waiting: Option<Instant>,
}

impl Slot {
    fn mover(&self) -> &Player {
        if self.played.is_multiple_of(2) {
            &self.white
        } else {
            &self.black
        }
    }
}

/// What one minute saw.
#[derive(Default)]
struct Minute {
    offered: u64,
    answered: u64,
    /// Mails not offered when due, because no game was waiting for a move.
    held: u64,
    unanswered: u64,
    latencies_ms: Vec<f64>,
}

/// The daemon's clock: libfaketime's offset, in a file it reads again
/// every second.
struct FakeClock {
    file: PathBuf,
    hours: i64,
    /// When it last jumped, and the offset before: games started within
    /// a moment of a jump use the older offset, which the daemon may still
    /// be on (never a start in its future).
    jumped: Option<(Instant, i64)>,
}

impl FakeClock {
    fn jump(&mut self) -> Result<()> {
        self.jumped = Some((Instant::now(), self.hours));
        self.hours += JUMP_HOURS;
        std::fs::write(&self.file, format!("+{}h\n", self.hours))?;
        Ok(())
    }

    /// The offset to start games with now.
    fn hours_now(&self) -> i64 {
        match self.jumped {
            Some((at, before)) if at.elapsed() < Duration::from_secs(3) => before,
            _ => self.hours,
        }
    }
}

/// libfaketime, where Debian's `faketime` package (and others) put it; the
/// thread-safe build first, as the daemon has threads.
fn libfaketime() -> Option<PathBuf> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu/faketime",
        "/usr/lib/aarch64-linux-gnu/faketime",
        "/usr/lib64/faketime",
        "/usr/lib/faketime",
        "/usr/local/lib/faketime",
    ];
    ["libfaketimeMT.so.1", "libfaketime.so.1"]
        .iter()
        .flat_map(|lib| dirs.iter().map(move |d| Path::new(d).join(lib)))
        .find(|p| p.is_file())
}

/// The daemon's figures from `/proc`.
#[derive(Debug, Default, Clone, Copy)]
struct Proc {
    rss_kb: u64,
    peak_kb: u64,
    threads: u64,
    files: usize,
    /// User + system CPU seconds so far.
    cpu_s: f64,
}

impl Proc {
    fn of(pid: u32) -> Proc {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| {
                    l.strip_prefix(name)?
                        .trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .unwrap_or(0)
        };
        let files = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
        // Fields 14 and 15 of /proc/PID/stat (after the name in brackets,
        // which may hold spaces): user and system time in clock ticks.
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let ticks: Vec<u64> = after_name
            .split_whitespace()
            .skip(11)
            .take(2)
            .filter_map(|t| t.parse().ok())
            .collect();
        // SAFETY: sysconf only reads a system setting.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let hz = if hz > 0 { hz as f64 } else { 100.0 };
        Proc {
            rss_kb: field("VmRSS:"),
            peak_kb: field("VmHWM:"),
            threads: field("Threads:"),
            files,
            cpu_s: ticks.iter().sum::<u64>() as f64 / hz,
        }
    }
}

/// The figures of one minute, kept for the summary.
#[derive(Debug, Clone, Copy)]
struct Row {
    rss_mb: f64,
    files: usize,
    p99_ms: f64,
    db_mb: f64,
}

#[allow(clippy::too_many_arguments)]
async fn soak(
    name: &str,
    world: &World,
    store: &Store,
    sqlite_file: Option<&Path>,
    plan: Plan,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    let library = libfaketime();
    let mut clock = FakeClock {
        file: dir.join("faketime"),
        hours: 0,
        jumped: None,
    };
    std::fs::write(&clock.file, "+0h\n")?;
    let log = dir.join("serve.log");
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.args(["bench", "child-serve", "--keep", "--with"])
        .arg(&world.config)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log)?);
    for (key, _) in std::env::vars() {
        if key.starts_with("DOPIS_") {
            cmd.env_remove(key);
        }
    }
    if let Some(lib) = &library {
        // Only the daemon's wall clock moves: its timers (the monotonic
        // clock) keep real time.
        cmd.env("LD_PRELOAD", lib)
            .env("FAKETIME_TIMESTAMP_FILE", &clock.file)
            .env("FAKETIME_CACHE_DURATION", "1")
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }
    let mut child = cmd.spawn().context("starting dopis serve")?;
    let result = drive(
        name,
        world,
        store,
        sqlite_file,
        plan,
        &mut clock,
        library.is_some(),
        &mut child,
        &log,
        out,
    )
    .await;
    stop(&mut child);
    if result.is_err() {
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        let tail: Vec<&str> = said.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return result
            .with_context(|| format!("the daemon's last log lines:\n{}", tail.join("\n")));
    }
    result
}

/// The games in play and what the current minute saw.
struct Players<'a> {
    world: &'a World,
    store: &'a Store,
    slots: Vec<Slot>,
    /// The slot of each game in play.
    slot_of: HashMap<i64, usize>,
    /// Where the next mail's game is looked for.
    cursor: usize,
    /// Mails written so far (their names and Message-IDs).
    written: usize,
    minute: Minute,
}

impl Players<'_> {
    /// Offers one move mail to the next game waiting for its move.
    fn offer(&mut self) -> Result<()> {
        let count = self.slots.len();
        let ready = (0..count)
            .map(|k| (self.cursor + k) % count)
            .find(|&i| self.slots.get(i).is_some_and(|s| s.waiting.is_none()));
        let Some(slot) = ready.and_then(|i| {
            self.cursor = i + 1;
            self.slots.get_mut(i)
        }) else {
            self.minute.held += 1;
            return Ok(());
        };
        let text = SCRIPT.get(slot.played).copied().unwrap_or("Nf3");
        self.written += 1;
        deliver(self.world, slot.game, slot.mover(), text, self.written)?;
        slot.waiting = Some(Instant::now());
        self.minute.offered += 1;
        Ok(())
    }

    /// Reads the replies written since the last look (and removes them):
    /// the first about the position a move made answers it.
    async fn replies(&mut self, sent_new: &Path, clock: &FakeClock) -> Result<()> {
        for entry in std::fs::read_dir(sent_new)? {
            let entry = entry?;
            let at = Instant::now();
            let about = position_of_mail(&entry.path());
            let _ = std::fs::remove_file(entry.path());
            let Some((game, ply)) = about else { continue };
            let Some(&i) = self.slot_of.get(&game) else {
                continue;
            };
            let Some(slot) = self.slots.get_mut(i) else {
                continue;
            };
            let Some(delivered) = slot.waiting.filter(|_| ply > slot.played) else {
                continue;
            };
            self.minute.answered += 1;
            self.minute
                .latencies_ms
                .push(at.duration_since(delivered).as_secs_f64() * 1e3);
            slot.waiting = None;
            slot.played += 1;
            if slot.played >= SCRIPT.len() {
                self.renew(i, clock).await?;
            }
        }
        Ok(())
    }

    /// Counts the mails unanswered after `PATIENCE`, and gives their games up.
    async fn give_up_stale(&mut self, clock: &FakeClock) -> Result<()> {
        for i in 0..self.slots.len() {
            let stale = self
                .slots
                .get(i)
                .and_then(|s| s.waiting)
                .is_some_and(|t| t.elapsed() > PATIENCE);
            if stale {
                self.minute.unanswered += 1;
                self.renew(i, clock).await?;
            }
        }
        Ok(())
    }

    fn waiting(&self) -> usize {
        self.slots.iter().filter(|s| s.waiting.is_some()).count()
    }

    /// Gives a slot a new game between its two players, started on the
    /// daemon's clock.
    async fn renew(&mut self, i: usize, clock: &FakeClock) -> Result<()> {
        let Some(slot) = self.slots.get_mut(i) else {
            return Ok(());
        };
        let now = SystemClock.now() + TimeDelta::hours(clock.hours_now());
        let game = crate::service::start::start_game(
            self.store,
            &self.world.post,
            slot.white.id,
            slot.black.id,
            StartPosition::Standard,
            CONTROL,
            now,
        )
        .await?;
        self.slot_of.remove(&slot.game.0);
        self.slot_of.insert(game.0, i);
        slot.game = game;
        slot.played = 0;
        slot.waiting = None;
        Ok(())
    }
}

/// The soak games' time control: long enough that the clock's jumps
/// never run a game out of time.
const CONTROL: TimeControl = TimeControl::DaysPerMove { days: 30 };

#[allow(clippy::too_many_arguments)]
async fn drive(
    name: &str,
    world: &World,
    store: &Store,
    sqlite_file: Option<&Path>,
    plan: Plan,
    clock: &mut FakeClock,
    jumps: bool,
    child: &mut Child,
    log: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    let slots: Vec<Slot> = world
        .games
        .iter()
        .map(|(game, white, black)| Slot {
            game: *game,
            white: white.clone(),
            black: black.clone(),
            played: 0,
            waiting: None,
        })
        .collect();
    let slot_of = slots
        .iter()
        .enumerate()
        .map(|(i, s)| (s.game.0, i))
        .collect();
    let mut players = Players {
        world,
        store,
        slots,
        slot_of,
        cursor: 0,
        written: 0,
        minute: Minute::default(),
    };
    let (new, cur) = (world.sent.join("new"), world.sent.join("cur"));
    // What the first pass sent is not this run's.
    clear(&new)?;
    clear(&cur)?;
    writeln!(
        out,
        "soak {name}: {} move mails/s offered for {} min to a running `dopis serve`, {} games at a time \
         ({} moves each, then a new one); {}",
        plan.rate,
        plan.minutes,
        players.slots.len(),
        SCRIPT.len(),
        if jumps {
            "retention of 1 day, the daemon's clock moved on 25 h at the end of every minute (libfaketime)"
        } else {
            "retention NOT exercised: libfaketime not found (apt-get install faketime), the daemon runs on the real clock"
        }
    )?;
    // Give the daemon its start-up and first (empty) pass.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let pid = child.id();
    let interval = Duration::from_secs_f64(1.0 / f64::from(plan.rate.max(1)));
    let start = Instant::now();
    let end = start + Duration::from_secs(u64::from(plan.minutes) * 60);
    let mut due = start;
    let mut next_minute = start + Duration::from_secs(60);
    let mut rows: Vec<Row> = Vec::new();
    let mut totals = Minute::default();
    let mut cpu_before = Proc::of(pid).cpu_s;
    let mut tally = None;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            bail!("dopis serve stopped during the soak ({status})");
        }
        let now = Instant::now();
        while due <= now && now < end {
            due += interval;
            players.offer()?;
        }
        players.replies(&new, clock).await?;
        players.give_up_stale(clock).await?;
        let last = now >= end;
        if last {
            // The mails still on their way are waited for (and counted in
            // the last minute): every mail offered is answered or counted
            // as unanswered.
            let drained = Instant::now();
            while players.waiting() > 0 && drained.elapsed() < PATIENCE {
                tokio::time::sleep(Duration::from_millis(20)).await;
                players.replies(&new, clock).await?;
            }
            players.minute.unanswered += players.waiting() as u64;
        }
        if last || now >= next_minute {
            let minute = std::mem::take(&mut players.minute);
            let proc = Proc::of(pid);
            let cpu = proc.cpu_s - cpu_before;
            cpu_before = proc.cpu_s;
            let (db, free) = store.size().await?;
            let wal = sqlite_file.map_or(0, |f| {
                let mut w = f.as_os_str().to_owned();
                w.push("-wal");
                std::fs::metadata(PathBuf::from(w)).map_or(0, |m| m.len())
            });
            let t = store.retention_tally().await?;
            let pending = store.gauges(SystemClock.now()).await?.outbox_pending;
            let log_lines = std::fs::read_to_string(log).map_or(0, |s| s.lines().count());
            let mut lat = minute.latencies_ms.clone();
            let (p50, p99, max) = (
                percentile(&mut lat, 50.0),
                percentile(&mut lat, 99.0),
                percentile(&mut lat, 100.0),
            );
            let mb = |b: f64| b / 1_048_576.0;
            let db_mb = mb(db as f64 + wal as f64);
            writeln!(
                out,
                "soak {name} minute {}/{}: {} mails offered, {} answered{}{}, latency p50 {p50:.0} ms, \
                 p99 {p99:.0} ms, max {max:.0} ms; serve {:.1} MB resident (peak {:.1} MB), {} open files, \
                 {} threads, {:.2} ms CPU per mail; database {db_mb:.1} MB ({:.1} MB of it free pages{}), \
                 outbox {pending} waiting; retention: outbox {} sent, {} bodies pruned; inbound {} handled, \
                 {} pruned; {log_lines} log lines; daemon's clock +{} h",
                rows.len() + 1,
                plan.minutes,
                grouped(minute.offered as f64),
                grouped(minute.answered as f64),
                if minute.held > 0 {
                    format!(", {} not offered (no game awaiting a move)", minute.held)
                } else {
                    String::new()
                },
                if minute.unanswered > 0 {
                    format!(", {} UNANSWERED", minute.unanswered)
                } else {
                    String::new()
                },
                proc.rss_kb as f64 / 1024.0,
                proc.peak_kb as f64 / 1024.0,
                proc.files,
                proc.threads,
                cpu * 1e3 / (minute.answered.max(1) as f64),
                mb(free as f64),
                if sqlite_file.is_some() {
                    format!(", WAL {:.1} MB", mb(wal as f64))
                } else {
                    String::new()
                },
                grouped(t.outbox_sent as f64),
                grouped(t.outbox_bodies_pruned as f64),
                grouped(t.inbound as f64),
                grouped(t.inbound_pruned as f64),
                clock.hours,
            )?;
            out.flush()?;
            rows.push(Row {
                rss_mb: proc.rss_kb as f64 / 1024.0,
                files: proc.files,
                p99_ms: p99,
                db_mb,
            });
            totals.offered += minute.offered;
            totals.answered += minute.answered;
            totals.held += minute.held;
            totals.unanswered += minute.unanswered;
            tally = Some(t);
            next_minute += Duration::from_secs(60);
            if jumps && !last {
                clock.jump()?;
            }
        }
        if last {
            break;
        }
        let wait = due.saturating_duration_since(Instant::now());
        tokio::time::sleep(wait.min(Duration::from_millis(5))).await;
    }
    let (Some(first), Some(last)) = (rows.first().copied(), rows.last().copied()) else {
        bail!("the soak ran no whole minute");
    };
    let max = |f: fn(&Row) -> f64| rows.iter().map(f).fold(0.0, f64::max);
    let tally = tally.unwrap_or_default();
    writeln!(
        out,
        "soak {name} summary: minutes={} offered={} answered={} held={} unanswered={} \
         rss_first_mb={:.1} rss_last_mb={:.1} rss_max_mb={:.1} files_first={} files_last={} files_max={} \
         p99_first_ms={:.0} p99_last_ms={:.0} p99_max_ms={:.0} db_first_mb={:.1} db_last_mb={:.1} \
         outbox_sent={} outbox_bodies_pruned={} inbound={} inbound_pruned={} clock_jumps={}",
        rows.len(),
        totals.offered,
        totals.answered,
        totals.held,
        totals.unanswered,
        first.rss_mb,
        last.rss_mb,
        max(|r| r.rss_mb),
        first.files,
        last.files,
        rows.iter().map(|r| r.files).max().unwrap_or(0),
        first.p99_ms,
        last.p99_ms,
        max(|r| r.p99_ms),
        first.db_mb,
        last.db_mb,
        tally.outbox_sent,
        tally.outbox_bodies_pruned,
        tally.inbound,
        tally.inbound_pruned,
        clock.hours / JUMP_HOURS,
    )?;
    Ok(())
}

/// Removes every file in `dir`.
fn clear(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let _ = std::fs::remove_file(entry?.path());
    }
    Ok(())
}

/// The game and the position (half-moves played) a mail of ours is
/// about, from its Message-ID `<dopis.g42.p12.HASH@…>`.
fn position_of_mail(path: &Path) -> Option<(i64, usize)> {
    let mut head = [0u8; 8192];
    let n = std::fs::File::open(path).ok()?.read(&mut head).ok()?;
    let head = String::from_utf8_lossy(head.get(..n)?);
    let id = head.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        key.eq_ignore_ascii_case("message-id").then_some(value)
    })?;
    let rest = id.split_once("<dopis.g")?.1;
    let (game, rest) = rest.split_once(".p")?;
    let plies: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((game.parse().ok()?, plies.parse().ok()?))
}
