//! Every command exits, and closes its database first: thousands of CLI
//! commands and `serve --once` runs under CPU contention, each under a hang
//! guard, on both databases.
//!
//! sqlx-core 0.9.0's pool maintenance task could spin a core for ever at
//! exit (sqlx issue 3645; 3 hangs in about 4,000 runs of `dopis game new`);
//! the store no longer starts it (`src/adapter/store/mod.rs`). The short run is part
//! of the test command; the long one, by hand:
//!
//! ```text
//! DOPIS_STRESS_RUNS=4000 cargo test --release --test it exit:: -- --nocapture
//! ```
//!
//! (with `DOPIS_TEST_POSTGRES_URL` set, or under `scripts/test.sh`, for the
//! PostgreSQL half). Each backend prints its figures: runs, hangs, failures,
//! and the median and longest time of a run.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{TestDb, dopis, fails, ok};

/// Runs per backend in the test command: a few hundred in all, well under
/// a minute or two on a busy two-core machine.
const SHORT_RUNS: usize = 150;

/// A run that takes longer than this counts as hung and is killed. A run
/// takes tens of milliseconds (half a second for `game new` in a debug
/// build); this is many times that, for a machine that is busy.
const HANG_GUARD: Duration = Duration::from_secs(60);

/// Busy loops on every core while a stress run goes on, so the runs are
/// preempted at random points (as on the busy machine where the hangs were
/// seen). Shared by the tests that run at once: started by the first,
/// stopped when the last is done.
struct Contention;

static SPINNERS: Mutex<(usize, Option<Arc<AtomicBool>>)> = Mutex::new((0, None));

impl Contention {
    fn start() -> Contention {
        let mut spinners = SPINNERS.lock().unwrap_or_else(|e| e.into_inner());
        spinners.0 += 1;
        if spinners.1.is_none() {
            let stop = Arc::new(AtomicBool::new(false));
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            for _ in 0..cores {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                });
            }
            spinners.1 = Some(stop);
        }
        Contention
    }
}

impl Drop for Contention {
    fn drop(&mut self) {
        let mut spinners = SPINNERS.lock().unwrap_or_else(|e| e.into_inner());
        spinners.0 -= 1;
        if spinners.0 == 0
            && let Some(stop) = spinners.1.take()
        {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

/// A config, two players and a game, as an admin sets them up.
fn setup(dir: &Path, db: &TestDb) {
    std::fs::write(
        dir.join("dopis.toml"),
        "[mail]\naddress = \"chess@chess.test\"\nsecret = \"stress-test-secret\"\n\n\
         [mail.maildir]\npath = \"mail\"\n",
    )
    .unwrap();
    ok(&dopis(dir, db, &["init"]));
    for (email, name) in [("alice@players.test", "Alice"), ("bob@players.test", "Bob")] {
        ok(&dopis(
            dir,
            db,
            &["player", "add", "--email", email, "--name", name],
        ));
    }
    new_game(dir, db);
}

fn new_game(dir: &Path, db: &TestDb) {
    ok(&dopis(
        dir,
        db,
        &[
            "game",
            "new",
            "--white",
            "alice@players.test",
            "--black",
            "bob@players.test",
        ],
    ));
}

/// A mail from Alice asking for her games, as a mail delivery agent puts it
/// into the Maildir, for `serve --once` to handle.
fn deliver(dir: &Path, n: usize) {
    let inbox = dir.join("mail/inbox");
    std::fs::create_dir_all(inbox.join("tmp")).unwrap();
    std::fs::create_dir_all(inbox.join("new")).unwrap();
    let name = format!("{n}.{:016x}.stress", rand::random::<u64>());
    let raw = format!(
        "From: alice@players.test\r\nTo: chess@chess.test\r\nSubject: games\r\n\
         Message-ID: <{n}.{:016x}@players.test>\r\n\r\ngames\r\n",
        rand::random::<u64>()
    );
    std::fs::write(inbox.join("tmp").join(&name), raw).unwrap();
    std::fs::rename(inbox.join("tmp").join(&name), inbox.join("new").join(&name)).unwrap();
}

/// The command of run `n`: mostly reads, a `serve --once` with a mail to
/// handle every fourth run, a `game new` every twentieth.
fn command(n: usize) -> &'static [&'static str] {
    match n % 20 {
        0 => &[
            "game",
            "new",
            "--white",
            "alice@players.test",
            "--black",
            "bob@players.test",
        ],
        3 | 7 | 11 | 15 | 19 => &["serve", "--once"],
        1 | 9 | 17 => &["game", "list"],
        5 | 13 => &["player", "show", "alice@players.test"],
        _ => &["game", "show", "1"],
    }
}

/// What a stress run saw.
#[derive(Debug)]
struct Figures {
    runs: usize,
    hangs: Vec<String>,
    failures: Vec<String>,
    times: Vec<Duration>,
}

impl Figures {
    fn quantile(&self, q: f64) -> Duration {
        let mut times = self.times.clone();
        times.sort();
        let at = ((times.len().saturating_sub(1)) as f64 * q).round() as usize;
        times.get(at).copied().unwrap_or_default()
    }
}

async fn run_many(dir: &Path, db: &TestDb, runs: usize) -> Figures {
    let mut figures = Figures {
        runs,
        hangs: Vec::new(),
        failures: Vec::new(),
        times: Vec::with_capacity(runs),
    };
    for n in 0..runs {
        let args = command(n);
        if args[0] == "serve" {
            deliver(dir, n);
        }
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_dopis"));
        cmd.current_dir(dir)
            .env_remove("DOPIS_CONFIG")
            .env_remove("DOPIS_CRASH_AT")
            .env("DOPIS_DATABASE_URL", &db.url)
            .env("DOPIS_LOG", "warn")
            .args(args)
            .kill_on_drop(true);
        let started = Instant::now();
        // On a timeout the future is dropped, and with it the child: killed.
        match tokio::time::timeout(HANG_GUARD, cmd.output()).await {
            Err(_) => figures
                .hangs
                .push(format!("run {n}: dopis {} (killed)", args.join(" "))),
            Ok(out) => {
                let out = out.expect("start dopis");
                figures.times.push(started.elapsed());
                if !out.status.success() {
                    figures.failures.push(format!(
                        "run {n}: dopis {}: {}",
                        args.join(" "),
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
            }
        }
    }
    figures
}

async fn thousands_of_commands_under_cpu_contention_never_hang(db: &TestDb) {
    let runs = std::env::var("DOPIS_STRESS_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(SHORT_RUNS);
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), db);
    let contention = Contention::start();
    let started = Instant::now();
    let figures = run_many(dir.path(), db, runs).await;
    let total = started.elapsed();
    drop(contention);
    let backend = if db.url.starts_with("sqlite") {
        "SQLite"
    } else {
        "PostgreSQL"
    };
    println!(
        "stress ({backend}): {} runs, {} hung, {} failed; per run median {:.3} s, \
         90th percentile {:.3} s, longest {:.3} s; {:.1} s in all, with {} busy loops",
        figures.runs,
        figures.hangs.len(),
        figures.failures.len(),
        figures.quantile(0.5).as_secs_f64(),
        figures.quantile(0.9).as_secs_f64(),
        figures.quantile(1.0).as_secs_f64(),
        total.as_secs_f64(),
        std::thread::available_parallelism().map_or(2, |n| n.get()),
    );
    assert!(figures.hangs.is_empty(), "hung: {:#?}", figures.hangs);
    assert!(
        figures.failures.is_empty(),
        "failed: {:#?}",
        figures.failures
    );
    // Every mail was handled: nothing is left unread in new/.
    let left = std::fs::read_dir(dir.path().join("mail/inbox/new"))
        .unwrap()
        .count();
    assert_eq!(left, 0, "mails left unread");
}

/// A SQLite database whose WAL was folded back into it, as closing the last
/// connection does: no `-wal` file is left beside it.
fn closed_cleanly(db_file: &Path) -> bool {
    let wal = db_file.with_file_name(format!(
        "{}-wal",
        db_file.file_name().unwrap().to_string_lossy()
    ));
    !wal.exists()
}

#[test]
fn a_command_that_fails_after_opening_the_database_still_closes_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let db = crate::support::sqlite();
    let file = Path::new(db.url.strip_prefix("sqlite://").unwrap()).to_path_buf();
    ok(&dopis(d, &db, &["init"]));
    assert!(closed_cleanly(&file), "init left its WAL");
    record_a_migration_from_a_newer_dopis(&file);
    // Opening the database now fails after the pool is up. Unclosed, its
    // connections die with the process (or not, in a race with the exit)
    // and the WAL stays beside the file: so it is tried a few times.
    for _ in 0..10 {
        let err = fails(&dopis(d, &db, &["game", "list"]));
        assert!(err.contains("upgraded by a newer dopis"), "{err}");
        assert!(closed_cleanly(&file), "a failed open left the WAL: {err}");
    }
}

/// Records a migration this dopis does not have, as a newer dopis would.
fn record_a_migration_from_a_newer_dopis(file: &Path) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use sqlx::{Connection, Executor};
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", file.display()))
            .await
            .unwrap();
        conn.execute(
            "INSERT INTO _sqlx_migrations (version, description, installed_on, success, \
             checksum, execution_time) VALUES (99991231000000, 'from a newer dopis', \
             CURRENT_TIMESTAMP, TRUE, X'00', 0)",
        )
        .await
        .unwrap();
        conn.close().await.unwrap();
    });
}

crate::on_both_backends!(thousands_of_commands_under_cpu_contention_never_hang);
