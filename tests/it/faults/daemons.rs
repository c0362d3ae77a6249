//! Several `dopis serve` on one database: on PostgreSQL one reads the
//! mailbox at a time and a standby takes over within seconds when it dies;
//! on SQLite a second daemon is refused with a clear error.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Scale, figure};
use crate::club::Club;
use crate::support::TestDb;

/// A running `dopis serve`, its log in a file; killed when dropped.
struct Serve {
    child: Child,
    log: PathBuf,
}

impl Serve {
    fn start(club: &Club, db: &TestDb, name: &str) -> Serve {
        let log = club.path().join(format!("{name}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(club.path())
            .env_remove("DOPIS_CONFIG")
            .env_remove("DOPIS_CRASH_AT")
            .env("DOPIS_DATABASE_URL", &db.url)
            .env("DOPIS_LOG", "info")
            .env("NO_COLOR", "1")
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Serve { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn kill_9(&mut self) {
        let _ = self.child.kill(); // SIGKILL
        let _ = self.child.wait();
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        self.kill_9();
    }
}

/// Polls `done` until it holds, or fails after `limit` (a hang guard: the
/// test is about what happens, the time is printed, not asserted tightly).
fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_daemon_on_one_sqlite_database_is_refused_with_a_clear_error() {
    let db = crate::support::sqlite();
    let club = Club::new(&db);
    let first = Serve::start(&club, &db, "first");
    wait_for("the first daemon sends", Duration::from_secs(30), || {
        club.sent().len() >= 2
    });
    let second = club.serve_once(&db, None);
    assert!(!second.status.success(), "a second daemon ran");
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("already running"), "{err}");
    assert!(
        err.contains(&format!("pid {}", first.child.id())),
        "says who: {err}"
    );
    assert!(err.contains("PostgreSQL"), "says what to do: {err}");
    drop(first);
    crate::support::ok(&club.serve_once(&db, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_daemons_on_postgres_read_the_mailbox_one_at_a_time_and_a_standby_takes_over() {
    let Some(db) = crate::support::postgres().await else {
        return;
    };
    let club = Club::new(&db);
    let a = Serve::start(&club, &db, "a");
    wait_for("daemon a leads", Duration::from_secs(30), || {
        a.log().contains("this daemon now reads the mailbox")
    });
    let b = Serve::start(&club, &db, "b");
    wait_for("daemon b is up", Duration::from_secs(30), || {
        b.log().contains("dopis serve started")
    });
    // The leader sends the game's first mails after it leads, not with it:
    // on a busy machine they may come after b is up.
    wait_for("alice's first 'your move'", Duration::from_secs(30), || {
        club.sent_mails()
            .iter()
            .any(|m| m.to == "alice@players.test" && m.subject.contains("Your move"))
    });

    // A few moves: read by a alone, each once.
    let plies = ["e4", "e5", "Nf3", "Nc6"];
    for (i, ply) in plies.iter().enumerate() {
        let player = if i % 2 == 0 {
            "alice@players.test"
        } else {
            "bob@players.test"
        };
        club.reply(player, ply);
        wait_for("the move is played", Duration::from_secs(30), || {
            club.moves(&db).len() > i
        });
        // The opponent's "your move" before the next reply.
        let next = if i % 2 == 0 {
            "bob@players.test"
        } else {
            "alice@players.test"
        };
        wait_for("the opponent is told", Duration::from_secs(30), || {
            club.sent_mails()
                .iter()
                .any(|m| m.to == next && m.subject.contains("Your move") && m.text.contains(ply))
        });
    }
    assert_eq!(club.moves(&db), plies);
    let handled_by = |log: &str| log.matches("handled mail").count();
    assert_eq!(handled_by(&a.log()), plies.len(), "{}", a.log());
    assert_eq!(
        handled_by(&b.log()),
        0,
        "the standby read nothing: {}",
        b.log()
    );

    // The leader dies; the standby takes over within seconds. The long run
    // does it again and again, a fresh standby started each time.
    let rounds = Scale::from_env().pick(1, 10);
    let more = [
        "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    ];
    let mut leader = a;
    let mut standby = b;
    let mut worst = Duration::ZERO;
    for (round, ply) in more.iter().take(rounds).enumerate() {
        leader.kill_9();
        let played = plies.len() + round;
        let player = if played.is_multiple_of(2) {
            "alice@players.test"
        } else {
            "bob@players.test"
        };
        club.reply(player, ply);
        let took = wait_for(
            "the standby plays the move",
            Duration::from_secs(60),
            || club.moves(&db).len() == played + 1,
        );
        worst = worst.max(took);
        assert!(standby.log().contains("this daemon now reads the mailbox"));
        assert_eq!(handled_by(&standby.log()), 1);
        let next = if player == "alice@players.test" {
            "bob@players.test"
        } else {
            "alice@players.test"
        };
        wait_for("the opponent is told", Duration::from_secs(30), || {
            club.your_move(next).text.contains(ply)
        });
        leader = standby;
        standby = Serve::start(&club, &db, &format!("standby{round}"));
        wait_for("the new standby is up", Duration::from_secs(30), || {
            standby.log().contains("dopis serve started")
        });
    }
    figure("two daemons", "take-overs", rounds);
    figure(
        "two daemons",
        "longest from leader's death to its move played",
        format!("{worst:?}"),
    );

    // Two senders all along, and no mail went out twice.
    let ids: Vec<String> = club
        .sent_mails()
        .into_iter()
        .map(|m| m.message_id)
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "a mail went out twice: {ids:?}");
    drop(leader);
    drop(standby);
}
