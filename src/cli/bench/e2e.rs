//! End to end: move mails written into a Maildir inbox, handled by a
//! spawned `serve` (a new process, as in production), replies written to
//! the Maildir `sent/`. Throughput from one `--once` pass over N games'
//! mails; latency from a running daemon offered mails at a fixed rate.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::process::bench_config;
use super::{Sizes, Usage, grouped, percentile};
use crate::adapter::config::Config;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::StartPosition;
use crate::domain::clock::TimeControl;
use crate::domain::ids::GameId;
use crate::domain::lang::Lang;
use crate::domain::player::{NewPlayer, Player};
use crate::service::post::Post;
use crate::service::report::{bench_postgres, drop_bench_postgres};

/// SQLite, and PostgreSQL when given.
pub(super) async fn measure(
    sizes: &Sizes,
    postgres: Option<&str>,
    dir: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    let sqlite_dir = dir.join("e2e-sqlite");
    std::fs::create_dir_all(&sqlite_dir)?;
    let url = format!("sqlite://{}", sqlite_dir.join("e2e.db").display());
    run("SQLite", &url, sizes, &sqlite_dir, out).await?;
    match postgres {
        Some(admin) => {
            let pg_dir = dir.join("e2e-postgres");
            std::fs::create_dir_all(&pg_dir)?;
            let (url, name) = bench_postgres(admin).await?;
            let result = run("PostgreSQL", &url, sizes, &pg_dir, out).await;
            drop_bench_postgres(admin, &name).await?;
            result?;
        }
        None => writeln!(
            out,
            "e2e PostgreSQL: skipped (give --postgres URL of a server to make scratch databases on)"
        )?,
    }
    Ok(())
}

/// The players and games of a run, and where mail goes.
pub(super) struct World {
    pub(super) config: PathBuf,
    pub(super) post: Post,
    pub(super) inbox: PathBuf,
    pub(super) sent: PathBuf,
    /// By game: (game, White, Black).
    pub(super) games: Vec<(GameId, Player, Player)>,
}

async fn run(name: &str, url: &str, sizes: &Sizes, dir: &Path, out: &mut dyn Write) -> Result<()> {
    let world = seed(url, sizes.games, dir, "", TimeControl::default()).await?;
    // Throughput: every game's White moves, one pass handles them all.
    for (i, (game, white, _)) in world.games.iter().enumerate() {
        deliver(&world, *game, white, "e4", i)?;
    }
    let reference = python_parse_rate(&world.inbox.join("new"));
    let before = count(&world.sent.join("new"));
    let started = Instant::now();
    let output = Command::new(std::env::current_exe()?)
        .args(["bench", "child-serve", "--with"])
        .arg(&world.config)
        .stderr(Stdio::piped())
        .output()?;
    let wall = started.elapsed().as_secs_f64();
    let printed = String::from_utf8_lossy(&output.stdout);
    let Some(usage) = Usage::parse(&printed).filter(|_| output.status.success()) else {
        bail!(
            "the serve child failed: {printed}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let mails = world.games.len() as f64;
    let replies = count(&world.sent.join("new")).saturating_sub(before);
    writeln!(
        out,
        "e2e {name}: {} move mails/s ({} mails in {wall:.2} s by one `serve --once`, {replies} replies written)",
        grouped(mails / wall),
        world.games.len()
    )?;
    writeln!(
        out,
        "e2e {name}: {:.2} ms CPU per mail ({:.2} s user + {:.2} s system), {:.1} KB written per mail, peak memory {:.1} MB",
        usage.cpu_s() * 1e3 / mails,
        usage.user_s,
        usage.sys_s,
        usage.write_bytes as f64 / 1024.0 / mails,
        usage.max_rss_kb as f64 / 1024.0
    )?;
    match reference {
        Some(rate) => writeln!(
            out,
            "e2e {name} reference: Python's `email` only parses the same mails at {}/s (one process, \
             files read from new/); dopis handles them end to end at {:.2}x that",
            grouped(rate),
            mails / wall / rate
        )?,
        None => writeln!(out, "e2e {name} reference: python3 not found, none")?,
    }
    latency(name, &world, sizes, out)
}

/// How many of the mails in `folder` a second Python's `email` package
/// parses (`message_from_binary_file` with the default policy, every header
/// and the body walked): the reference the end-to-end rate is held
/// against (issue 27). `None` without python3.
fn python_parse_rate(folder: &Path) -> Option<f64> {
    const SCRIPT: &str = "import sys, os, time, email, email.policy\n\
        d = sys.argv[1]; names = sorted(os.listdir(d))\n\
        t = time.perf_counter()\n\
        for n in names:\n\
        \x20   with open(os.path.join(d, n), 'rb') as f:\n\
        \x20       m = email.message_from_binary_file(f, policy=email.policy.default)\n\
        \x20       [str(v) for v in m.values()]; [p.get_content() for p in m.walk() if not p.is_multipart()]\n\
        print(len(names) / (time.perf_counter() - t))\n";
    let output = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(folder)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stdout).trim().parse().ok()
}

/// Registers two players a game and starts the games, with `control`
/// and the config of `extra` (TOML added to the bench's); the daemon's
/// first pass sends their first mails (not timed).
pub(super) async fn seed(
    url: &str,
    games: u32,
    dir: &Path,
    extra: &str,
    control: TimeControl,
) -> Result<World> {
    let config_path = bench_config(dir, url, extra).await?;
    let config = Config::load(Some(&config_path), std::iter::empty())?;
    let post = Post::new(&config.mail)?;
    let store = crate::service::open_store(url).await?;
    let clock = crate::service::app::SystemClock;
    let seeded = store
        .close_after(async {
            let mut all = Vec::new();
            for i in 0..games {
                let mut pair = Vec::new();
                for side in 0..2 {
                    let n = 2 * i + side;
                    let email = EmailAddress::parse(&format!("p{n}@bench.test"))?;
                    let new = NewPlayer::new(email, &format!("Player {n}"), Lang::En, None)?;
                    let now = crate::service::app::Clock::now(&clock);
                    pair.push(crate::service::players::register(&store, &new, now).await?);
                }
                let (Some(black), Some(white)) = (pair.pop(), pair.pop()) else {
                    bail!("two players were registered");
                };
                let now = crate::service::app::Clock::now(&clock);
                let game = crate::service::start::start_game(
                    &store,
                    &post,
                    white.id,
                    black.id,
                    StartPosition::Standard,
                    control,
                    now,
                )
                .await?;
                all.push((game, white, black));
            }
            anyhow::Ok(all)
        })
        .await?;
    let mail_dir = config.mail.maildir.path.clone();
    let world = World {
        config: config_path,
        post,
        inbox: mail_dir.join("inbox"),
        sent: mail_dir.join("sent"),
        games: seeded,
    };
    // The first mails of the games: sent by a pass of its own.
    crate::daemon::serve(config, true, None)
        .await
        .context("the first pass, sending the games' first mails")?;
    Ok(world)
}

/// Writes `from`'s move mail into `tmp/` and moves it into `new/`, as a
/// delivery agent does.
pub(super) fn deliver(
    world: &World,
    game: GameId,
    from: &Player,
    text: &str,
    n: usize,
) -> Result<()> {
    let to = world.post.reply_to(game, from);
    let raw = format!(
        "From: {} <{}>\r\nTo: {to}\r\nSubject: Re: [dopis #{}]\r\n\
         Message-ID: <bench.{n}.{:016x}@players.test>\r\n\r\n{text}\r\n",
        from.name,
        from.email,
        game.0,
        rand::random::<u64>()
    );
    let name = format!("{n}.{:08x}.bench", rand::random::<u32>());
    let tmp = world.inbox.join("tmp").join(&name);
    std::fs::create_dir_all(world.inbox.join("tmp"))?;
    std::fs::create_dir_all(world.inbox.join("new"))?;
    std::fs::write(&tmp, raw)?;
    std::fs::rename(&tmp, world.inbox.join("new").join(&name))?;
    Ok(())
}

fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

/// A running daemon is offered Black's answers at `sizes.rate` a second;
/// a mail's latency is from its delivery into `new/` to the first reply
/// of its game in `sent/new/`.
fn latency(name: &str, world: &World, sizes: &Sizes, out: &mut dyn Write) -> Result<()> {
    let offered = (sizes.rate as usize * sizes.rate_seconds as usize).min(world.games.len());
    // Replies already written are moved out of the way, so that `new/`
    // holds only what this run causes.
    let (new, cur) = (world.sent.join("new"), world.sent.join("cur"));
    std::fs::create_dir_all(&cur)?;
    for entry in std::fs::read_dir(&new)? {
        let entry = entry?;
        std::fs::rename(entry.path(), cur.join(entry.file_name()))?;
    }
    let mut child = Command::new(std::env::current_exe()?)
        .args(["bench", "child-serve", "--keep", "--with"])
        .arg(&world.config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    // Give the daemon its start-up and first (empty) pass.
    std::thread::sleep(Duration::from_millis(if offered < 50 { 300 } else { 1500 }));
    let game_of_player: HashMap<String, usize> = world
        .games
        .iter()
        .enumerate()
        .flat_map(|(i, (_, w, b))| [(w.email.to_string(), i), (b.email.to_string(), i)])
        .collect();
    let mut delivered: HashMap<usize, Instant> = HashMap::new();
    let mut answered: HashMap<usize, f64> = HashMap::new();
    let mut seen: HashSet<std::ffi::OsString> = HashSet::new();
    let interval = Duration::from_secs_f64(1.0 / f64::from(sizes.rate));
    let start = Instant::now();
    let mut next = 0usize;
    let patience = Duration::from_secs(if offered < 50 { 10 } else { 60 });
    let result = (|| -> Result<()> {
        loop {
            let now = Instant::now();
            while next < offered && now >= start + interval * u32::try_from(next)? {
                let (game, _, black) = &world.games[next];
                deliver(world, *game, black, "e5", world.games.len() + next)?;
                delivered.insert(next, Instant::now());
                next += 1;
            }
            for entry in std::fs::read_dir(&new)? {
                let entry = entry?;
                if !seen.insert(entry.file_name()) {
                    continue;
                }
                let at = Instant::now();
                let mut head = [0u8; 512];
                let n = std::fs::File::open(entry.path())?.read(&mut head)?;
                let head = String::from_utf8_lossy(&head[..n]);
                let game = head
                    .lines()
                    .filter_map(|l| l.strip_prefix("X-Envelope-To: <"))
                    .filter_map(|a| game_of_player.get(a.trim_end_matches('>')))
                    .next();
                if let Some(&g) = game
                    && let Some(t) = delivered.get(&g)
                {
                    answered
                        .entry(g)
                        .or_insert_with(|| at.duration_since(*t).as_secs_f64() * 1e3);
                }
                let _ = std::fs::rename(entry.path(), cur.join(entry.file_name()));
            }
            if next >= offered && answered.len() >= offered {
                return Ok(());
            }
            if start.elapsed() > interval * u32::try_from(offered)? + patience {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    })();
    stop(&mut child);
    result?;
    let mut times: Vec<f64> = answered.values().copied().collect();
    let p50 = percentile(&mut times, 50.0);
    let p99 = percentile(&mut times, 99.0);
    writeln!(
        out,
        "e2e {name} latency at {}/s offered: p50 {p50:.0} ms, p99 {p99:.0} ms ({} of {offered} mails answered; \
         from delivery into new/ to the first reply in sent/new/, seen every 2 ms)",
        sizes.rate,
        answered.len()
    )?;
    Ok(())
}

/// Stops the latency run's daemon as systemd would (SIGTERM), then for good.
pub(super) fn stop(child: &mut std::process::Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill sends a signal to the child this process started.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The child: `serve` with the config at `with`, one pass (or until
/// stopped), then its usage line.
pub(super) fn child(with: &Path, keep: bool, out: &mut dyn Write) -> Result<ExitCode> {
    let config = Config::load(Some(with), std::iter::empty())?;
    super::runtime()?.block_on(crate::daemon::serve(config, !keep, None))?;
    writeln!(out, "{}", Usage::of_self().line())?;
    Ok(ExitCode::SUCCESS)
}
