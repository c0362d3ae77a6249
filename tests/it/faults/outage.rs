//! Outages: several games are played over real mail (players read over
//! IMAP and answer over SMTP, the real `dopis serve` reads its mailbox over
//! IMAP and sends over SMTP, on PostgreSQL) while Postfix, then Dovecot,
//! then PostgreSQL is stopped for a while and started again. The players
//! keep answering meanwhile; a mail their server refuses is sent again by
//! their client until it is accepted, as mail clients do.
//!
//! Measured for each part: the daemon's CPU time while it is down (no spin),
//! that the daemon is the same process all along (no crash, no crash loop),
//! how long after the restart every waiting mail is handled and answered
//! (catch-up), and, while PostgreSQL is down, that the log says the passes
//! fail without flooding. At the end: no move lost or doubled, every move
//! told to the opponent.
//!
//! Stopping a part would break the other tests running at the same time, so
//! this test starts a mail system and a PostgreSQL cluster of its own, with
//! the project's scripts (`scripts/mailstack.sh`, `scripts/pg.sh`, and their
//! `pause`/`resume`), on ports and in directories of its own.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dopis::adapter::config::{ImapConfig, MailConfig};
use dopis::daemon::mailbox::{ImapMailbox, MailRef};
use dopis::daemon::mailer::Mailer;
use dopis::domain::address::EmailAddress;

use super::{Scale, figure};
use crate::support::{MAIL_PASSWORD, scratch_user};

const TEST: &str = "outages";

/// The moves every game plays: a Ruy Lopez, legal from the start, no mate.
const SCRIPT: [&str; 20] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
];

/// A part of the mail and database stack that can be stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Postfix,
    Dovecot,
    Postgres,
}

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Postfix => "Postfix",
            Part::Dovecot => "Dovecot",
            Part::Postgres => "PostgreSQL",
        }
    }
}

/// Free TCP ports on 127.0.0.1, distinct, for the private stack.
fn free_ports(n: usize) -> Vec<u16> {
    let listeners: Vec<std::net::TcpListener> = (0..n)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    listeners
        .iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

/// A mail system (Postfix + Dovecot) and a PostgreSQL cluster of this test
/// alone, started and stopped with the project's scripts.
struct PrivateStack {
    mail_dir: PathBuf,
    pg_dir: PathBuf,
    /// SMTP, IMAP, LMTP, IMAPS, submission, smtps.
    ports: Vec<u16>,
    pg_port: u16,
    /// The database the daemon and the CLI use.
    db_url: String,
}

impl PrivateStack {
    /// Starts the stack, or `None` (with a notice) outside the test command,
    /// which installs the packages it needs; in CI that is a failure.
    async fn start() -> Option<PrivateStack> {
        crate::support::mailstack()?;
        if std::env::var("DOPIS_TEST_POSTGRES_URL").is_err() {
            assert!(
                !std::env::var("CI").is_ok_and(|v| v == "true"),
                "CI=true but DOPIS_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh"
            );
            eprintln!("SKIPPED: outage test (no PostgreSQL; scripts/test.sh starts one)");
            return None;
        }
        let tag = format!("{:08x}", rand::random::<u32>());
        let mut ports = free_ports(7);
        let pg_port = ports.pop().unwrap();
        let mut stack = PrivateStack {
            mail_dir: PathBuf::from(format!("/tmp/dopis-outage-mail.{tag}")),
            pg_dir: PathBuf::from(format!("/tmp/dopis-outage-pg.{tag}")),
            ports,
            pg_port,
            db_url: String::new(),
        };
        stack.script("mailstack.sh", &["start"]).await;
        stack.db_url = stack.script("pg.sh", &["start"]).await.trim().to_string();
        Some(stack)
    }

    fn smtp_port(&self) -> u16 {
        self.ports[0]
    }

    fn imap_port(&self) -> u16 {
        self.ports[1]
    }

    fn command(&self, script: &str, args: &[&str]) -> std::process::Command {
        let names = [
            "MAILSTACK_SMTP_PORT",
            "MAILSTACK_IMAP_PORT",
            "MAILSTACK_LMTP_PORT",
            "MAILSTACK_IMAPS_PORT",
            "MAILSTACK_SUBMISSION_PORT",
            "MAILSTACK_SMTPS_PORT",
        ];
        let mut command = std::process::Command::new("bash");
        command
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("scripts")
                    .join(script),
            )
            .args(args)
            .env("MAILSTACK_DIR", &self.mail_dir)
            .env("DOPIS_PG_DIR", &self.pg_dir)
            .env("DOPIS_PG_PORT", self.pg_port.to_string())
            .stdin(Stdio::null());
        for (name, port) in names.iter().zip(&self.ports) {
            command.env(name, port.to_string());
        }
        command
    }

    /// Runs a script of the project's test stack; returns what it printed.
    async fn script(&self, script: &str, args: &[&str]) -> String {
        let out = tokio::process::Command::from(self.command(script, args))
            .output()
            .await
            .expect("run a stack script");
        assert!(
            out.status.success(),
            "scripts/{script} {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    async fn pause(&self, part: Part) {
        match part {
            Part::Postfix => self.script("mailstack.sh", &["pause", "postfix"]).await,
            Part::Dovecot => self.script("mailstack.sh", &["pause", "dovecot"]).await,
            Part::Postgres => self.script("pg.sh", &["pause"]).await,
        };
    }

    async fn resume(&self, part: Part) {
        match part {
            Part::Postfix => self.script("mailstack.sh", &["resume", "postfix"]).await,
            Part::Dovecot => self.script("mailstack.sh", &["resume", "dovecot"]).await,
            Part::Postgres => self.script("pg.sh", &["resume"]).await,
        };
    }
}

impl Drop for PrivateStack {
    fn drop(&mut self) {
        let _ = self.command("mailstack.sh", &["stop"]).output();
        let _ = self.command("pg.sh", &["stop"]).output();
        let _ = std::fs::remove_dir_all(&self.mail_dir);
        let _ = std::fs::remove_dir_all(&self.pg_dir);
    }
}

/// What the players did and saw, shared by their tasks and the test.
#[derive(Debug, Default)]
struct Ledger {
    /// Replies the players decided to send, by (game, plies played when
    /// the answered mail was written): sent or still being retried.
    replies: HashSet<(i64, usize)>,
    /// Replies their SMTP server accepted, with how often (exactly once each).
    accepted: BTreeMap<(i64, usize), usize>,
    /// Times a player's SMTP server refused a reply (sent again later).
    refused: usize,
    /// Times a player could not read their mailbox (tried again later).
    unreadable: usize,
    /// "Your move" mails the players got: (game, plies played).
    told: HashSet<(i64, usize)>,
}

impl Ledger {
    /// Every reply decided so far is played and told to the opponent.
    fn caught_up(&self, waiting: &HashSet<(i64, usize)>) -> bool {
        waiting
            .iter()
            .all(|&(game, at)| self.told.contains(&(game, at + 1)))
    }
}

/// Shared between the test and the players.
struct Table {
    ledger: Mutex<Ledger>,
    /// Games whose replies are held: players read their mail and decide
    /// their replies but send nothing for these games yet. The test uses it
    /// to have replies ready to go out the moment a part stops.
    held: Mutex<HashSet<i64>>,
    stop: AtomicBool,
    /// Plies each game plays.
    length: usize,
}

/// The game a mail of ours is about and the position (plies played) it
/// shows, from its Message-ID `dopis.g<game>.p<plies>.<hash>@…`.
fn position_of(message_id: &str) -> Option<(i64, usize)> {
    let rest = message_id.strip_prefix("dopis.g")?;
    let (game, rest) = rest.split_once(".p")?;
    let (plies, _) = rest.split_once('.')?;
    Some((game.parse().ok()?, plies.parse().ok()?))
}

fn imap_config(stack: &PrivateStack, user: &str) -> ImapConfig {
    crate::support::imap_login(stack.imap_port(), user)
}

/// A player's answer to a "your move" mail, as a mail client writes it: to
/// the Reply-To, "Re:" subject, threading headers, the mail quoted.
fn answer(from: &str, mail: &mail_parser::Message<'_>, text: &str) -> Option<(String, Vec<u8>)> {
    let to = mail.reply_to()?.first()?.address()?.to_string();
    let id = mail.message_id().unwrap_or("");
    let quoted: String = mail
        .body_text(0)
        .unwrap_or_default()
        .lines()
        .map(|l| format!("> {l}\r\n"))
        .collect();
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: {}\r\nMessage-ID: <{:016x}@players.test>\r\nIn-Reply-To: <{id}>\r\n\
         References: <{id}>\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\r\nOn Sunday dopis wrote:\r\n{quoted}",
        mail.subject().unwrap_or(""),
        rand::random::<u64>()
    );
    Some((to, raw.into_bytes()))
}

/// An answer in a player's outbox, sent until their server accepts it.
struct Outgoing {
    /// When it may go (after a moment's thought, or the client's retry pause).
    when: Instant,
    to: EmailAddress,
    raw: Vec<u8>,
    /// The (game, plies played) it answers.
    key: (i64, usize),
}

/// One player: reads their mailbox, answers each "your move" with the
/// script's move after a moment's thought, and sends each answer until
/// their server accepts it. Runs until the test says stop.
async fn play(address: String, stack_imap: ImapConfig, smtp: Arc<Mailer>, table: Arc<Table>) {
    let mut mailbox: Option<ImapMailbox> = None;
    let mut cursor: Option<MailRef> = None;
    let mut outbox: Vec<Outgoing> = Vec::new();
    let me = EmailAddress::parse(&address).unwrap();
    while !table.stop.load(Ordering::Relaxed) {
        if mailbox.is_none() {
            mailbox = ImapMailbox::connect(stack_imap.clone()).await.ok();
        }
        let batch = match mailbox.as_mut() {
            Some(m) => m.fetch_new(cursor.as_ref()).await.ok(),
            None => None,
        };
        match batch {
            Some(batch) => {
                for mail in batch {
                    cursor = Some(mail.key.clone());
                    let Some(parsed) = mail_parser::MessageParser::default().parse(&mail.raw)
                    else {
                        continue;
                    };
                    let subject = parsed.subject().unwrap_or("");
                    let Some((game, at)) = parsed.message_id().and_then(position_of) else {
                        continue;
                    };
                    if !subject.contains("Your move") {
                        continue;
                    }
                    let mut ledger = table.ledger.lock().unwrap();
                    ledger.told.insert((game, at));
                    if at < table.length
                        && ledger.replies.insert((game, at))
                        && let Some((to, raw)) = answer(&address, &parsed, SCRIPT[at])
                    {
                        let think = Duration::from_millis(rand::random::<u64>() % 800);
                        outbox.push(Outgoing {
                            when: Instant::now() + think,
                            to: EmailAddress::parse(&to).unwrap(),
                            raw,
                            key: (game, at),
                        });
                    }
                }
            }
            None => {
                table.ledger.lock().unwrap().unreadable += 1;
                mailbox = None;
            }
        }
        let held = table.held.lock().unwrap().clone();
        let mut still = Vec::new();
        for mut mail in outbox.drain(..) {
            if mail.when > Instant::now() || held.contains(&mail.key.0) {
                still.push(mail);
                continue;
            }
            match smtp
                .send(&me, std::slice::from_ref(&mail.to), &mail.raw)
                .await
            {
                Ok(()) => {
                    let mut ledger = table.ledger.lock().unwrap();
                    *ledger.accepted.entry(mail.key).or_default() += 1;
                }
                Err(_) => {
                    // The client keeps it in its outbox and tries again.
                    table.ledger.lock().unwrap().refused += 1;
                    mail.when = Instant::now() + Duration::from_millis(500);
                    still.push(mail);
                }
            }
        }
        outbox = still;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The CPU time (user + system) a process has used so far, from
/// /proc/PID/stat.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the daemon runs");
    // Fields after the command name (which may hold spaces) in parentheses.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64)
}

/// Clock ticks per second of /proc's times.
fn clock_ticks() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

/// Runs `dopis` with the test's config dir and database.
fn dopis(dir: &Path, db_url: &str, args: &[&str]) -> String {
    crate::support::ok(
        &std::process::Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(dir)
            .env_remove("DOPIS_CONFIG")
            .env("DOPIS_DATABASE_URL", db_url)
            .args(args)
            .output()
            .expect("run dopis"),
    )
}

/// Polls `done` every 100 ms until it holds; fails after `limit` (a hang
/// guard: the time is printed as a figure, not asserted).
async fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    start.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postfix_dovecot_and_postgresql_stopped_under_load_cost_no_spin_no_crash_and_no_move() {
    let Some(stack) = PrivateStack::start().await else {
        return;
    };
    let scale = Scale::from_env();
    let games = scale.pick(3, 8);
    let length = SCRIPT.len();
    let outage = Duration::from_secs(scale.pick(6, 180));

    // The club: a config for the daemon, the players and their games.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = scratch_user();
    std::fs::write(
        d.join("dopis.toml"),
        format!(
            "[mail]\naddress = \"{server}\"\nsecret = \"outage-secret\"\n\n\
             [mail.imap]\nhost = \"127.0.0.1\"\nport = {imap}\ntls = \"none\"\nuser = \"{server}\"\npassword = \"{MAIL_PASSWORD}\"\n\n\
             [mail.smtp]\nhost = \"127.0.0.1\"\nport = {smtp}\ntls = \"none\"\n",
            imap = stack.imap_port(),
            smtp = stack.smtp_port(),
        ),
    )
    .unwrap();
    let table = Arc::new(Table {
        ledger: Mutex::new(Ledger::default()),
        held: Mutex::new(HashSet::new()),
        stop: AtomicBool::new(false),
        length,
    });
    dopis(d, &stack.db_url, &["init"]);
    let mut pairs: BTreeMap<i64, (String, String)> = BTreeMap::new();
    for g in 0..games {
        let (white, black) = (scratch_user(), scratch_user());
        for (who, name) in [
            (&white, format!("White {g}")),
            (&black, format!("Black {g}")),
        ] {
            dopis(
                d,
                &stack.db_url,
                &["player", "add", "--email", who, "--name", &name],
            );
        }
        let id: i64 = dopis(
            d,
            &stack.db_url,
            &["game", "new", "--white", &white, "--black", &black],
        )
        .trim()
        .parse()
        .unwrap();
        pairs.insert(id, (white, black));
    }

    let log_path = d.join("serve.log");
    let mut daemon = std::process::Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(d)
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_CRASH_AT")
        .env("DOPIS_DATABASE_URL", &stack.db_url)
        .env("DOPIS_LOG", "info")
        .env("NO_COLOR", "1")
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log_path).unwrap())
        .spawn()
        .expect("start dopis serve");
    let pid = daemon.id();
    let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
    let still_running = |daemon: &mut std::process::Child, when: &str| {
        assert!(
            daemon.try_wait().unwrap().is_none(),
            "the daemon ended {when}; its log:\n{}",
            log()
        );
    };

    let smtp = Arc::new(
        Mailer::open(&MailConfig {
            smtp: Some(crate::support::smtp_plain(stack.smtp_port())),
            ..MailConfig::default()
        })
        .unwrap(),
    );
    let mut players = Vec::new();
    for (white, black) in pairs.values() {
        for who in [white, black] {
            players.push(tokio::spawn(play(
                who.clone(),
                imap_config(&stack, who),
                smtp.clone(),
                table.clone(),
            )));
        }
    }
    let started = Instant::now();

    // Play a little first, so that every game is under way.
    wait_for("every game under way", Duration::from_secs(120), || {
        let ledger = table.ledger.lock().unwrap();
        pairs.keys().all(|g| ledger.told.contains(&(*g, 2)))
    })
    .await;

    let all_games: HashSet<i64> = pairs.keys().copied().collect();
    for part in [Part::Postfix, Part::Dovecot, Part::Postgres] {
        let name = part.name();
        // Every game still being played waits for a reply ready to go.
        *table.held.lock().unwrap() = all_games.clone();
        wait_for(
            "a reply ready in every game",
            Duration::from_secs(120),
            || {
                let ledger = table.ledger.lock().unwrap();
                let ready: HashSet<i64> = ledger
                    .replies
                    .iter()
                    .filter(|k| !ledger.accepted.contains_key(k))
                    .map(|k| k.0)
                    .collect();
                let playing: HashSet<i64> = all_games
                    .iter()
                    .copied()
                    .filter(|g| !ledger.told.contains(&(*g, length)))
                    .collect();
                assert!(
                    !playing.is_empty(),
                    "the games ended before {name} was stopped"
                );
                ready == playing
            },
        )
        .await;
        if part == Part::Postfix {
            // One reply reaches the daemon's mailbox just before: it is
            // handled while Postfix is down, and its answers cannot go out.
            let (first, before) = {
                let ledger = table.ledger.lock().unwrap();
                let first = ledger
                    .replies
                    .iter()
                    .filter(|k| !ledger.accepted.contains_key(k))
                    .map(|k| k.0)
                    .min()
                    .unwrap();
                (first, ledger.accepted.len())
            };
            table.held.lock().unwrap().remove(&first);
            wait_for("the first reply accepted", Duration::from_secs(60), || {
                table.ledger.lock().unwrap().accepted.len() > before
            })
            .await;
        }
        let log_before = log().lines().count();
        let (refused_before, accepted_before) = {
            let ledger = table.ledger.lock().unwrap();
            (ledger.refused, ledger.accepted.len())
        };
        let down = Instant::now();
        let cpu_before = cpu_time(pid);
        stack.pause(part).await;
        // The others are sent now: refused by a stopped Postfix and sent
        // again until accepted; queued by Postfix while Dovecot is down;
        // delivered while PostgreSQL is down.
        table.held.lock().unwrap().clear();
        // The outage itself: its length is what is tested, nothing is waited for.
        while down.elapsed() < outage {
            still_running(&mut daemon, &format!("while {name} was down"));
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let cpu = cpu_time(pid) - cpu_before;
        let wall = down.elapsed();
        let (refused, accepted_while_down) = {
            let ledger = table.ledger.lock().unwrap();
            (
                ledger.refused - refused_before,
                ledger.accepted.len() - accepted_before,
            )
        };
        stack.resume(part).await;
        let waiting = table.ledger.lock().unwrap().replies.clone();
        let catch_up = wait_for(
            &format!("every waiting mail handled and answered after {name} came back"),
            Duration::from_secs(scale.pick(300, 900)),
            || table.ledger.lock().unwrap().caught_up(&waiting),
        )
        .await;
        still_running(&mut daemon, &format!("after {name} came back"));
        // What the daemon said from the stop until it caught up, but for
        // the mail it handled and sent (work, not noise).
        let episode = down.elapsed();
        let lines: Vec<String> = log()
            .lines()
            .skip(log_before)
            .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
            .map(String::from)
            .collect();

        figure(TEST, &format!("{name} down for"), format!("{wall:.1?}"));
        figure(
            TEST,
            &format!("{name} down: daemon CPU"),
            format!(
                "{cpu:.2?} ({:.1}% of the outage)",
                100.0 * cpu.as_secs_f64() / wall.as_secs_f64()
            ),
        );
        figure(
            TEST,
            &format!("{name}: warnings and errors logged"),
            format!(
                "{} in {episode:.1?} (from the stop to caught up)",
                lines.len()
            ),
        );
        figure(
            TEST,
            &format!("{name} down: player sends refused, sent again"),
            refused,
        );
        figure(
            TEST,
            &format!("{name} down: player replies accepted"),
            accepted_while_down,
        );
        figure(
            TEST,
            &format!("{name} back: catch-up"),
            format!("{catch_up:.1?} (until all waiting mail is handled and answered)"),
        );

        // No spin: a daemon that only waits for the part to come back uses
        // next to no CPU (a generous bound: a fifth of the outage).
        assert!(
            cpu.as_secs_f64() < 0.2 * wall.as_secs_f64(),
            "the daemon used {cpu:?} of CPU in {wall:?} while {name} was down; its log:\n{}",
            lines.join("\n")
        );
        // The log says so, and does not flood: the failed passes back off
        // (5 s and growing), each logged in a line or a few.
        let flood_bound = 4 * (episode.as_secs() as usize / 5 + 2);
        assert!(
            lines.len() <= flood_bound,
            "{} warnings and errors in {episode:?} from the stop of {name} (at most {flood_bound}):\n{}",
            lines.len(),
            lines.join("\n")
        );
        assert!(
            lines.iter().any(|l| l.contains("pass failed; retrying")),
            "the log says the passes fail while {name} is down:\n{}",
            lines.join("\n")
        );
        match part {
            Part::Postfix => assert!(refused > 0, "the players sent while Postfix was down"),
            Part::Dovecot | Part::Postgres => {
                assert!(
                    accepted_while_down > 0,
                    "the players sent while {name} was down"
                )
            }
        }
    }

    // The games are played to the end of the script.
    wait_for(
        "every game played to its end",
        Duration::from_secs(scale.pick(300, 1800)),
        || {
            let ledger = table.ledger.lock().unwrap();
            pairs.keys().all(|g| ledger.told.contains(&(*g, length)))
        },
    )
    .await;
    still_running(&mut daemon, "at the end");
    table.stop.store(true, Ordering::Relaxed);
    for player in players {
        let _ = player.await;
    }
    let _ = daemon.kill();
    let _ = daemon.wait();

    // Every move played exactly once, in order; every one told.
    let (mut lost, mut doubled) = (0, 0);
    for &game in pairs.keys() {
        let json: serde_json::Value = serde_json::from_str(&dopis(
            d,
            &stack.db_url,
            &["game", "show", &game.to_string(), "--format", "json"],
        ))
        .unwrap();
        let moves = crate::support::sans(&json);
        lost += length.saturating_sub(moves.len());
        doubled += moves.len().saturating_sub(length);
        assert_eq!(moves, SCRIPT, "game {game}");
    }
    let ledger = table.ledger.lock().unwrap();
    let untold = pairs
        .keys()
        .flat_map(|&g| (1..=length).map(move |p| (g, p)))
        .filter(|k| !ledger.told.contains(k))
        .count();
    let log = log();
    figure(TEST, "games", games);
    figure(TEST, "moves", games * length);
    figure(TEST, "lost", lost);
    figure(TEST, "doubled", doubled);
    figure(TEST, "moves never told", untold);
    figure(
        TEST,
        "daemon processes (one pid all along)",
        log.matches("dopis serve started").count(),
    );
    figure(
        TEST,
        "player mailbox reads failed (while Dovecot was down)",
        ledger.unreadable,
    );
    figure(TEST, "total", format!("{:.1?}", started.elapsed()));
    assert_eq!(untold, 0, "every accepted move is told to the opponent");
    assert!(
        ledger.accepted.values().all(|&n| n == 1),
        "each reply was accepted once"
    );
    assert_eq!(log.matches("dopis serve started").count(), 1, "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

/// Mail that could not go out while the SMTP server was down: the sender
/// stops at the first mail the server does not take (the others would fail
/// the same way) and the pass says why; no mail is charged an attempt, so
/// none is given up however long the outage, and every one goes out at the
/// first pass after the server is back, not after a backoff of its own.
async fn mail_held_back_by_a_stopped_smtp_server_goes_out_at_the_first_pass_after_and_is_never_given_up(
    db: &crate::support::TestDb,
) {
    use chrono::TimeZone;
    use dopis::domain::clock::TimeControl;
    use dopis::domain::lang::Lang;

    let start = chrono::Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap();
    let app = crate::support::app::TestApp::builder()
        .at(start)
        .secret("outage test")
        .answers_per_hour(100)
        .open(db)
        .await;
    let ana = app.player("ana@players.test", "Ana", Lang::En, None).await;
    let bob = app.player("bob@players.test", "Bob", Lang::En, None).await;
    app.game(&ana, &bob, TimeControl::default()).await;
    let (store, clock, daemon) = (&app.store, &app.clock, &app.daemon);
    let (_stop, shutdown) = tokio::sync::watch::channel(false);

    // Nothing listens on the SMTP port: Postfix is stopped.
    let port = free_ports(1)[0];
    let stopped = Mailer::open(&MailConfig {
        smtp: Some(crate::support::smtp_plain(port)),
        ..MailConfig::default()
    })
    .unwrap();
    // Two days of passes, far beyond the attempts after which a mail the
    // server refuses for itself is given up.
    for _ in 0..100 {
        clock.advance(chrono::Duration::minutes(30));
        let err = daemon
            .send(&stopped, &shutdown)
            .await
            .expect_err("sending fails while the server is down");
        let text = format!("{err:#}");
        assert!(
            text.contains(&format!("SMTP server 127.0.0.1:{port}")),
            "{text}"
        );
        let outbox = store.outbox().await.unwrap();
        assert_eq!(outbox.len(), 2);
        for mail in &outbox {
            assert_eq!(mail.status, "pending", "{mail:?}");
            assert_eq!(mail.attempts, 0, "not the mail's fault: {mail:?}");
        }
    }

    // The server is back (here: a Maildir, which takes every mail): all
    // the mail goes out at the very next pass.
    let dir = tempfile::tempdir().unwrap();
    let back = Mailer::open(&MailConfig {
        maildir: dopis::adapter::config::MaildirConfig {
            path: dir.path().to_path_buf(),
        },
        ..MailConfig::default()
    })
    .unwrap();
    assert_eq!(daemon.send(&back, &shutdown).await.unwrap(), 2);
    store.close().await;
}

crate::on_both_backends!(
    mail_held_back_by_a_stopped_smtp_server_goes_out_at_the_first_pass_after_and_is_never_given_up
);
