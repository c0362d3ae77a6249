//! Shared test helpers: fresh databases on both backends, running the binary.

use std::path::Path;
use std::process::{Command, Output};

use dopis::adapter::config::{ImapConfig, Secret, SmtpConfig, Tls};

/// A fresh, empty database for one test.
pub struct TestDb {
    /// The URL to open it with.
    pub url: String,
    /// Keeps a SQLite file's directory alive for the test.
    _dir: Option<tempfile::TempDir>,
}

/// A fresh SQLite database in a temp directory.
pub fn sqlite() -> TestDb {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite://{}", dir.path().join("dopis.db").display());
    TestDb {
        url,
        _dir: Some(dir),
    }
}

/// A fresh PostgreSQL database on the test cluster that `scripts/test.sh`
/// starts, or `None` (with a notice) when run outside it. In CI a missing
/// cluster is a failure, so the PostgreSQL tests can never pass by skipping.
pub async fn postgres() -> Option<TestDb> {
    let Ok(admin_url) = std::env::var("DOPIS_TEST_POSTGRES_URL") else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!(
                "CI=true but DOPIS_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh"
            );
        }
        eprintln!(
            "SKIPPED: PostgreSQL test (DOPIS_TEST_POSTGRES_URL not set; scripts/test.sh sets it)"
        );
        return None;
    };
    use sqlx::{Connection, Executor};
    let name = format!("dopis_t_{:016x}", rand::random::<u64>());
    let mut conn = sqlx::PgConnection::connect(&admin_url)
        .await
        .expect("connect to the test PostgreSQL");
    conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await
        .expect("create test database");
    let _ = conn.close().await;
    let (base, query) = match admin_url.split_once('?') {
        Some((b, q)) => (b.to_string(), format!("?{q}")),
        None => (admin_url.clone(), String::new()),
    };
    let server = base.rsplit_once('/').map(|(s, _)| s).unwrap_or(&base);
    Some(TestDb {
        url: format!("{server}/{name}{query}"),
        _dir: None,
    })
}

/// libfaketime's library, preloaded by [`faketime`].
const LIBFAKETIME: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
];

/// `program` with its clock (and its children's) shifted by `offset` as
/// libfaketime reads it (`+72h`, `-30`). The library is preloaded here,
/// not through the `faketime` wrapper: the wrapper names a semaphore
/// after its process id, one that a killed wrapper leaves behind fails
/// the next wrapper given the same id ("sem_open: File exists"), and a
/// whole test run starts enough processes for ids to come round again.
/// The wrapper stays the fallback where the library is elsewhere.
pub fn faketime(offset: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
    match LIBFAKETIME.iter().find(|p| Path::new(p).exists()) {
        Some(lib) => {
            let mut c = Command::new(program);
            c.env("LD_PRELOAD", lib).env("FAKETIME", offset);
            c
        }
        None => {
            let mut c = Command::new("faketime");
            c.arg("-f").arg(offset).arg(program);
            c
        }
    }
}

/// Runs the `dopis` binary in `dir` with `args`, and the database `db`.
pub fn dopis(dir: &Path, db: &TestDb, args: &[&str]) -> Output {
    dopis_at(dir, db, args, None)
}

/// The same, with the process's clock shifted by `offset` (libfaketime,
/// e.g. "+72h"): a TD's command days into an event.
pub fn dopis_at(dir: &Path, db: &TestDb, args: &[&str], offset: Option<&str>) -> Output {
    let mut cmd = match offset {
        Some(offset) => faketime(offset, env!("CARGO_BIN_EXE_dopis")),
        None => Command::new(env!("CARGO_BIN_EXE_dopis")),
    };
    cmd.current_dir(dir)
        .env_remove("DOPIS_CONFIG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .args(args)
        .output()
        .expect("run dopis")
}

/// A game as `dopis game show --format json` prints it (run in `dir` on
/// `db`), and its moves in SAN.
pub fn game_shown(dir: &Path, db: &TestDb, game: &str) -> (Vec<String>, serde_json::Value) {
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        dir,
        db,
        &["game", "show", game, "--format", "json"],
    )))
    .expect("game show prints JSON");
    (sans(&json), json)
}

/// The moves of a game `dopis game show --format json` printed, in SAN.
pub fn sans(shown: &serde_json::Value) -> Vec<String> {
    shown["moves"]
        .as_array()
        .expect("a game shown has its moves")
        .iter()
        .map(|m| {
            m["san"]
                .as_str()
                .expect("each move has its SAN")
                .to_string()
        })
        .collect()
}

/// Stdout of a run that must succeed.
pub fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "dopis failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Stderr of a run that must fail.
pub fn fails(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "dopis should have failed but printed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Defines each listed async test twice: in a `sqlite` and a `postgres`
/// module, each given a fresh database. Test names then say which backend ran.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let db = $crate::support::sqlite();
                    super::$name(&db).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    if let Some(db) = $crate::support::postgres().await {
                        super::$name(&db).await;
                    }
                }
            )*
        }
    };
}

/// The ports of the test mail system (Postfix + Dovecot) that
/// `scripts/test.sh` starts with `scripts/mailstack.sh`.
#[derive(Debug, Clone, Copy)]
pub struct MailStack {
    /// Postfix SMTP on 127.0.0.1.
    pub smtp_port: u16,
    /// Dovecot IMAP on 127.0.0.1.
    pub imap_port: u16,
}

/// The test mail system, or `None` (with a notice) when run outside
/// `scripts/test.sh`. In CI a missing mail system is a failure, so the mail
/// tests can never pass by skipping.
pub fn mailstack() -> Option<MailStack> {
    let port = |name: &str| std::env::var(name).ok().and_then(|p| p.parse::<u16>().ok());
    match (port("DOPIS_TEST_SMTP_PORT"), port("DOPIS_TEST_IMAP_PORT")) {
        (Some(smtp_port), Some(imap_port)) => Some(MailStack {
            smtp_port,
            imap_port,
        }),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "CI=true but DOPIS_TEST_SMTP_PORT/DOPIS_TEST_IMAP_PORT are not set: run the tests with scripts/test.sh"
                );
            }
            eprintln!(
                "SKIPPED: mail test (DOPIS_TEST_SMTP_PORT/DOPIS_TEST_IMAP_PORT not set; scripts/test.sh sets them)"
            );
            None
        }
    }
}

/// The TLS and AUTH side of the test mail system (`scripts/mailstack.sh`
/// makes a throwaway CA at start and signs a certificate for localhost and
/// 127.0.0.1 with it).
#[derive(Debug, Clone)]
pub struct TlsStack {
    /// Dovecot IMAP on 127.0.0.1, with STARTTLS.
    pub imap_port: u16,
    /// Dovecot IMAP over TLS from the first byte.
    pub imaps_port: u16,
    /// Postfix submission: STARTTLS and AUTH required.
    pub submission_port: u16,
    /// Postfix smtps: TLS from the first byte, AUTH required.
    pub smtps_port: u16,
    /// The CA certificate (PEM) that signed the servers' certificate.
    pub ca_file: std::path::PathBuf,
}

/// The TLS side of the test mail system, or `None` (with a notice) when run
/// outside `scripts/test.sh`; in CI its absence is a failure.
pub fn tls_mailstack() -> Option<TlsStack> {
    let port = |name: &str| std::env::var(name).ok().and_then(|p| p.parse::<u16>().ok());
    let ca_file = std::env::var("DOPIS_TEST_CA_FILE").ok();
    match (
        port("DOPIS_TEST_IMAP_PORT"),
        port("DOPIS_TEST_IMAPS_PORT"),
        port("DOPIS_TEST_SUBMISSION_PORT"),
        port("DOPIS_TEST_SMTPS_PORT"),
        ca_file,
    ) {
        (Some(imap_port), Some(imaps_port), Some(submission_port), Some(smtps_port), Some(ca)) => {
            Some(TlsStack {
                imap_port,
                imaps_port,
                submission_port,
                smtps_port,
                ca_file: ca.into(),
            })
        }
        _ => {
            let wanted = "DOPIS_TEST_IMAP_PORT/IMAPS_PORT/SUBMISSION_PORT/SMTPS_PORT/CA_FILE";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but {wanted} are not set: run the tests with scripts/test.sh");
            }
            eprintln!("SKIPPED: TLS mail test ({wanted} not set; scripts/test.sh sets them)");
            None
        }
    }
}

/// The OAuth2 side of the test mail system: IMAP and submission take
/// XOAUTH2 with an HS256 JWT signed by `key`, whose `sub` is the user.
#[derive(Debug, Clone)]
pub struct OAuth2Stack {
    /// The TLS ports and CA (XOAUTH2 is offered on all of them).
    pub tls: TlsStack,
    /// The key that signs access tokens (HS256).
    pub key: Vec<u8>,
    /// The stack's directory (`MAILSTACK_DIR`), for `scripts/mailstack.sh`.
    pub dir: std::path::PathBuf,
}

/// The OAuth2 test mail system, or `None` (with a notice) outside
/// `scripts/test.sh`; in CI a missing one is a failure.
pub fn oauth2_mailstack() -> Option<OAuth2Stack> {
    use base64::Engine;
    let tls = tls_mailstack()?;
    let file = std::env::var("DOPIS_TEST_OAUTH2_KEY_FILE").ok();
    // The key is DIR/oauth2/hs256.key.
    let dir = file
        .as_deref()
        .and_then(|f| Path::new(f).parent()?.parent())
        .map(Path::to_path_buf);
    let key = file
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| {
            base64::engine::general_purpose::STANDARD
                .decode(text.trim())
                .ok()
        });
    match (key, dir) {
        (Some(key), Some(dir)) => Some(OAuth2Stack { tls, key, dir }),
        _ => {
            let wanted = "DOPIS_TEST_OAUTH2_KEY_FILE (a readable base64 key)";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but {wanted} is not set: run the tests with scripts/test.sh");
            }
            eprintln!("SKIPPED: OAuth2 mail test ({wanted} not set; scripts/test.sh sets it)");
            None
        }
    }
}

/// How the daemon logs in to the TLS side of the test mail system.
#[derive(Debug, Clone, Copy)]
pub enum MailLogin<'a> {
    /// `password = MAIL_PASSWORD` on both servers.
    Password,
    /// XOAUTH2, with each server's `token_command`.
    Tokens { imap: &'a str, smtp: &'a str },
}

/// A client's IMAP login to the test mail system: plaintext on loopback
/// `port`, as `user` with the test password, the INBOX. A test that needs
/// TLS or another port changes those fields (`ImapConfig { tls, ..imap_login(…) }`).
pub fn imap_login(port: u16, user: &str) -> ImapConfig {
    ImapConfig {
        host: "127.0.0.1".into(),
        port: Some(port),
        tls: Tls::None,
        user: user.into(),
        password: Some(Secret::new(MAIL_PASSWORD)),
        token_command: None,
        mailbox: "INBOX".into(),
        done_folder: None,
        failed_folder: dopis::adapter::config::default_failed_folder(),
        poll_seconds: 1,
        ca_file: None,
    }
}

/// Sending to the test mail system: plaintext SMTP on loopback `port`, no
/// AUTH. A test that logs in or needs TLS changes those fields.
pub fn smtp_plain(port: u16) -> SmtpConfig {
    SmtpConfig {
        host: "127.0.0.1".into(),
        port: Some(port),
        tls: Tls::None,
        user: None,
        password: None,
        token_command: None,
        ca_file: None,
    }
}

/// The daemon's `[mail.imap]` and `[mail.smtp]` on the plaintext side of
/// the test mail system: loopback only, logged in to IMAP as `user`,
/// sending without AUTH.
pub fn plain_mail_servers(stack: &MailStack, user: &str) -> String {
    format!(
        "[mail.imap]\nhost = \"127.0.0.1\"\nport = {imap}\ntls = \"none\"\nuser = \"{user}\"\n\
         password = \"{MAIL_PASSWORD}\"\n\n\
         [mail.smtp]\nhost = \"127.0.0.1\"\nport = {smtp}\ntls = \"none\"\n",
        imap = stack.imap_port,
        smtp = stack.smtp_port,
    )
}

/// The daemon's `[mail.imap]` and `[mail.smtp]` on the TLS side, as a real
/// provider's servers: IMAP over TLS and submission with STARTTLS, both
/// logged in as `user`, by host name (so the certificate's name is checked
/// too) and trusting the test CA.
pub fn tls_mail_servers(stack: &TlsStack, user: &str, login: MailLogin) -> String {
    let secret = |command: Option<&str>| match command {
        None => format!("password = \"{MAIL_PASSWORD}\"\n"),
        Some(command) => format!("token_command = \"{command}\"\n"),
    };
    let (imap, smtp) = match login {
        MailLogin::Password => (secret(None), secret(None)),
        MailLogin::Tokens { imap, smtp } => (secret(Some(imap)), secret(Some(smtp))),
    };
    format!(
        "[mail.imap]\nhost = \"localhost\"\nport = {imaps}\ntls = \"tls\"\nuser = \"{user}\"\n\
         {imap}mailbox = \"INBOX\"\nca_file = \"{ca}\"\n\n\
         [mail.smtp]\nhost = \"localhost\"\nport = {submission}\ntls = \"starttls\"\nuser = \"{user}\"\n\
         {smtp}ca_file = \"{ca}\"\n",
        imaps = stack.imaps_port,
        submission = stack.submission_port,
        ca = stack.ca_file.display(),
    )
}

/// A `dopis serve` (or any child) that is killed when the test ends,
/// however it ends.
pub struct Daemon(pub std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A mailbox user of its own for one test (`t-<random>@chess.test`): the
/// test mail system creates it on first use, password `secret`.
pub fn scratch_user() -> String {
    format!("t-{:016x}@chess.test", rand::random::<u64>())
}

/// The password of every user of the test mail system.
pub const MAIL_PASSWORD: &str = "secret";

/// The first python that can `import module` (e.g. `icalendar`,
/// `chess.pgn`), if any: the tests that read our files with it.
pub fn python_with(module: &str) -> Option<&'static str> {
    ["/usr/bin/python3", "python3"].into_iter().find(|python| {
        Command::new(python)
            .args(["-c", &format!("import {module}")])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// What python `script` prints reading `text` on its standard input, or
/// its error output when it fails.
pub fn python_reads(python: &str, script: &str, text: &str) -> Result<String, String> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("python ends");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8(out.stdout).expect("UTF-8"))
}

pub mod app;
pub mod mail;
pub mod pages;
pub mod web;
