//! `dopis serve` reads its config again on SIGHUP: what it can change it
//! uses from the next step on (here the name on its mail and the log
//! level), a config that does not read is logged and the old one kept, and
//! the daemon never stops for either.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::club::Club;
use crate::support::{Daemon, TestDb};

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `ready` holds (at most 60 s), then says what it saw.
fn wait_for(what: &str, log: &Path, ready: &dyn Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "waited in vain for {what}; the log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The display name on the newest mail dopis sent to `to`, if any.
fn sender_name_of_mail_to(club: &Club, to: &str, subject: &str) -> Option<String> {
    let dir = club.path().join("mail/sent/new");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        let raw = std::fs::read(&path).ok()?;
        let msg = mail_parser::MessageParser::default().parse(&raw)?;
        let first = |a: Option<&mail_parser::Address>| {
            a.and_then(|a| a.first()).map(|a| {
                (
                    a.name().unwrap_or("").to_string(),
                    a.address().unwrap_or("").to_string(),
                )
            })
        };
        let (_, recipient) = first(msg.to())?;
        if recipient == to && msg.subject().is_some_and(|s| s.contains(subject)) {
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            names.push((modified, first(msg.from())?.0));
        }
    }
    names.sort();
    names.pop().map(|(_, name)| name)
}

async fn sighup_reloads_the_config_and_a_broken_one_is_logged_and_kept_out(db: &TestDb) {
    let club = Club::with_config(db, "name = \"Club A\"");
    let config = club.path().join("dopis.toml");
    let first = std::fs::read_to_string(&config).unwrap();
    let log = club.path().join("serve.log");
    let serve = Daemon(
        Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(club.path())
            .env_remove("DOPIS_CONFIG")
            .env_remove("DOPIS_LOG")
            .env("DOPIS_DATABASE_URL", &db.url)
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let log_says = |text: &str| {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains(text)
    };
    let alice = "alice@players.test";
    let bob = "bob@players.test";
    wait_for("Alice's first mail", &log, &|| {
        sender_name_of_mail_to(&club, alice, "Your move").is_some()
    });
    assert_eq!(
        sender_name_of_mail_to(&club, alice, "Your move").as_deref(),
        Some("Club A")
    );
    assert!(!log_says(" DEBUG "), "the log starts at info");
    assert!(!log_says("\u{1b}["), "no colour codes in a log file");

    // A new name and a finer log level, then SIGHUP.
    std::fs::write(
        &config,
        first.replace("Club A", "Club B") + "\n[log]\nlevel = \"debug\"\n",
    )
    .unwrap();
    signal(&serve.0, "HUP");
    wait_for("the reload", &log, &|| log_says("config reloaded"));
    club.reply(alice, "e4");
    wait_for("Bob's mail", &log, &|| {
        sender_name_of_mail_to(&club, bob, "Your move").is_some()
    });
    assert_eq!(
        sender_name_of_mail_to(&club, bob, "Your move").as_deref(),
        Some("Club B"),
        "the mail after the reload carries the new name"
    );
    assert!(
        log_says(" DEBUG "),
        "the new log level is used: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );

    // A broken config: said in the log; the daemon goes on as it was.
    std::fs::write(&config, "[mail\nname = \"Club C\"\n").unwrap();
    signal(&serve.0, "HUP");
    wait_for("the failed reload", &log, &|| {
        log_says("config reload failed: going on with the config as it was")
    });
    club.reply(bob, "e5");
    wait_for("Alice's second mail", &log, &|| {
        club.sent_mails()
            .iter()
            .any(|m| m.to == alice && m.subject.contains("e5"))
    });
    assert_eq!(
        sender_name_of_mail_to(&club, alice, "e5").as_deref(),
        Some("Club B")
    );

    // SIGTERM still stops it, cleanly.
    let mut serve = serve;
    signal(&serve.0, "TERM");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = serve.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "serve did not stop"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{status:?}");
    assert!(log_says("shut down"));
}

crate::on_both_backends!(sighup_reloads_the_config_and_a_broken_one_is_logged_and_kept_out);
