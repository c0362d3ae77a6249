//! `dopis doctor`: the probe mail a running daemon must drop silently (in
//! process, on both backends), and the checks against the real test mail
//! system, each fault injected (the real binary).

use std::path::Path;
use std::process::Command;

use chrono::{TimeZone, Utc};

use dopis::daemon::mailbox::ImapMailbox;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{Handled, Ignored};

use crate::on_both_backends;
use crate::support::app::TestApp;
use crate::support::{MAIL_PASSWORD, TestDb, TlsStack, scratch_user, tls_mailstack};

async fn app(db: &TestDb) -> TestApp {
    TestApp::builder()
        .at(Utc.with_ymd_and_hms(2026, 11, 29, 9, 0, 0).unwrap())
        .address("chess@dopis.test")
        .secret("a test secret that is long enough")
        .open(db)
        .await
}

/// White's move `e4` to the game, with `extra` header lines.
fn move_mail(app: &TestApp, game: GameId, white: &Player, extra: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [dopis #{game}]\r\n\
         Message-ID: <{n:016x}@players.test>\r\n{extra}\
         Content-Type: text/plain; charset=utf-8\r\n\r\ne4\r\n",
        from = white.email,
        to = app.reply_address(game, white),
        game = game.0,
        n = rand::random::<u64>(),
    )
    .into_bytes()
}

async fn a_probe_marked_with_our_secret_is_dropped_unanswered_and_a_forged_mark_changes_nothing(
    db: &TestDb,
) {
    let app = app(db).await;
    let ana = app
        .player("ana@players.test", "Ana Novak", Lang::En, None)
        .await;
    let jan = app
        .player("jan@players.test", "Jan Kowalski", Lang::En, None)
        .await;
    let game = app.game(&ana, &jan, TimeControl::default()).await;
    app.sent().await;

    // Our own mark: dropped before anything, nothing recorded or sent.
    let mark = app.post().tokens.probe_mark("0123abcd");
    let genuine = move_mail(&app, game, &ana, &format!("X-Dopis-Doctor: {mark}\r\n"));
    let handled = app.deliver(&genuine).await;
    assert_eq!(handled, Handled::Ignored(Ignored::Probe));
    assert!(app.moves(game).await.is_empty());
    assert!(app.sent().await.is_empty(), "a probe is never answered");

    // A stranger's header (a mark made with another secret, or none that
    // verifies) cannot make a mail vanish: the move is played as usual.
    let other = dopis::adapter::mail::route::Tokens::new("not our secret").probe_mark("0123abcd");
    let forged = move_mail(&app, game, &ana, &format!("X-Dopis-Doctor: {other}\r\n"));
    let handled = app.deliver(&forged).await;
    assert!(matches!(handled, Handled::Done(_)), "{handled:?}");
    assert_eq!(app.moves(game).await, vec!["e4".to_string()]);
    assert!(!app.sent().await.is_empty(), "the move is answered");
}

on_both_backends!(
    a_probe_marked_with_our_secret_is_dropped_unanswered_and_a_forged_mark_changes_nothing,
);

/// The daemon's config for the test mail system over TLS and AUTH (as a
/// real provider's servers), logged in as `user`, with `change` applied to
/// the text.
fn config(stack: &TlsStack, user: &str, change: &dyn Fn(String) -> String) -> String {
    let text = format!(
        "[database]\nurl = \"sqlite://dopis.db\"\n\n\
         [mail]\naddress = \"{user}\"\nsecret = \"a doctor test secret, long enough\"\nreply_delimiter = \"+\"\n\n\
         {servers}",
        servers =
            crate::support::tls_mail_servers(stack, user, crate::support::MailLogin::Password),
    );
    change(text)
}

/// A port on this machine where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `dopis doctor --wait WAIT` on the config `text` in `dir`, optionally
/// with the clock shifted by libfaketime: (passed, stdout).
fn doctor(dir: &Path, text: &str, wait: u32, faketime: Option<&str>) -> (bool, String) {
    std::fs::write(dir.join("dopis.toml"), text).unwrap();
    let mut cmd = match faketime {
        Some(offset) => crate::support::faketime(offset, env!("CARGO_BIN_EXE_dopis")),
        None => Command::new(env!("CARGO_BIN_EXE_dopis")),
    };
    let out = cmd
        .current_dir(dir)
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_DATABASE_URL")
        .args([
            "--config",
            "dopis.toml",
            "doctor",
            "--wait",
            &wait.to_string(),
        ])
        .output()
        .expect("run dopis doctor");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.is_empty() || out.status.success(),
        "stderr: {stderr}"
    );
    (out.status.success(), stdout)
}

/// Asserts the run failed, with `line` (a check's verdict and name) and
/// `fix` in its fix.
fn finds(run: &(bool, String), line: &str, fix: &str, what: &str) {
    let (passed, out) = run;
    assert!(!passed, "{what}: the doctor passed:\n{out}");
    let at = out
        .find(line)
        .unwrap_or_else(|| panic!("{what}: no line '{line}':\n{out}"));
    let rest = &out[at..];
    let fix_line = rest
        .lines()
        .nth(1)
        .unwrap_or_else(|| panic!("{what}: no fix after '{line}':\n{out}"));
    assert!(
        fix_line.trim_start().starts_with("fix:") && fix_line.contains(fix),
        "{what}: fix '{fix}' not under '{line}':\n{out}"
    );
}

#[test]
fn the_doctor_passes_a_healthy_setup_and_finds_each_injected_fault() {
    let Some(stack) = tls_mailstack() else { return };
    let dir = tempfile::tempdir().unwrap();
    let user = scratch_user();
    let healthy = config(&stack, &user, &|t| t);
    std::fs::write(dir.path().join("dopis.toml"), &healthy).unwrap();
    let init = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(dir.path())
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_DATABASE_URL")
        .args(["--config", "dopis.toml", "init"])
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");

    // Healthy: every check passes, in order, and the probe is gone again.
    let (passed, out) = doctor(dir.path(), &healthy, 30, None);
    assert!(passed, "{out}");
    let mut at = 0;
    for name in [
        "ok    config:",
        "ok    database:",
        "ok    database writable:",
        "ok    imap connect:",
        "ok    imap tls: TLS from the start",
        "ok    imap login:",
        "ok    imap idle:",
        "ok    imap mailbox:",
        "ok    smtp connect:",
        "ok    smtp tls: STARTTLS",
        "ok    smtp login:",
        "ok    reply address:",
        "ok    clock:",
    ] {
        let found = out[at..]
            .find(name)
            .unwrap_or_else(|| panic!("no '{name}' after the checks before it:\n{out}"));
        at += found + name.len();
    }
    assert!(
        out.contains("+g0."),
        "the probe went to a reply address: {out}"
    );
    assert!(out.contains("all checks passed"), "{out}");
    let imap = crate::support::imap_login(stack.imap_port, &user);
    let left = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut mailbox = ImapMailbox::connect(imap).await.unwrap();
        mailbox.fetch_new(None).await.unwrap()
    });
    assert!(left.is_empty(), "the probe mail was removed: {left:?}");

    let faults: Vec<(&str, String, &str, &str)> = vec![
        (
            "a broken config file",
            "[mail\naddress = \"x\"\n".to_string(),
            "FAIL  config: config file",
            "correct the config file",
        ),
        (
            "a database never set up",
            healthy.replace("sqlite://dopis.db", "sqlite://elsewhere.db"),
            "FAIL  database:",
            "run `dopis init`",
        ),
        (
            "an unwritable SQLite database",
            healthy.replace("sqlite://dopis.db", "sqlite://dopis.db?mode=ro"),
            "FAIL  database",
            "write",
        ),
        (
            "an unreachable PostgreSQL",
            healthy.replace(
                "sqlite://dopis.db",
                &format!("postgres://dopis:pw@127.0.0.1:{}/dopis", closed_port()),
            ),
            "FAIL  database:",
            "check that the database server runs",
        ),
        (
            "a wrong IMAP password",
            healthy.replacen(
                &format!("password = \"{MAIL_PASSWORD}\""),
                "password = \"wrong\"",
                1,
            ),
            "FAIL  imap login:",
            "check [mail.imap] user and password",
        ),
        (
            "the IMAP port closed",
            healthy.replace(
                &format!("port = {}", stack.imaps_port),
                &format!("port = {}", closed_port()),
            ),
            "FAIL  imap connect:",
            "check that the server runs",
        ),
        (
            "a missing mailbox folder",
            healthy.replace("mailbox = \"INBOX\"", "mailbox = \"NoSuchFolder\""),
            "FAIL  imap mailbox: the folder 'NoSuchFolder'",
            "create the folder 'NoSuchFolder'",
        ),
        (
            "a wrong SMTP password",
            {
                let (imap, smtp) = healthy.split_once("[mail.smtp]").unwrap();
                format!(
                    "{imap}[mail.smtp]{}",
                    smtp.replace(
                        &format!("password = \"{MAIL_PASSWORD}\""),
                        "password = \"wrong\""
                    )
                )
            },
            "FAIL  smtp login:",
            "check [mail.smtp] user and password",
        ),
        (
            "the SMTP port closed",
            healthy.replace(
                &format!("port = {}", stack.submission_port),
                &format!("port = {}", closed_port()),
            ),
            "FAIL  smtp connect:",
            "check that the server runs",
        ),
        (
            "a delimiter the mail system does not know",
            healthy.replace("reply_delimiter = \"+\"", "reply_delimiter = \"=\""),
            "FAIL  reply address:",
            "set [mail] reply_delimiter",
        ),
    ];
    for (what, text, line, fix) in &faults {
        let run = doctor(dir.path(), text, 4, None);
        finds(&run, line, fix, what);
    }

    // A clock two hours ahead of the mail server's (libfaketime).
    let run = doctor(dir.path(), &healthy, 30, Some("+2h"));
    finds(
        &run,
        "FAIL  clock:",
        "synchronise this machine's clock",
        "clock skew",
    );
    assert!(run.1.contains("ahead of the mail server's"), "{}", run.1);
    assert!(run.1.contains("ok    reply address:"), "{}", run.1);
}
