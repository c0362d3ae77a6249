//! OAuth2 (XOAUTH2) over real mail: the real `dopis serve` logs in to
//! Dovecot's IMAP and to Postfix's submission (whose SASL is Dovecot's)
//! with access tokens that a `token_command` prints, as with Microsoft 365
//! or Gmail. The test mail system accepts an HS256 JWT signed with its key
//! (`DOPIS_TEST_OAUTH2_KEY_FILE`) whose `sub` is the user, until its `exp`;
//! so this test issues the tokens itself, short-lived or already expired
//! when it wants them so, and hands them to the daemon through a command.
//!
//! The daemon's config has no password at all: every login it makes is
//! XOAUTH2. The players log in with passwords, on the same servers.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use dopis::adapter::config::{ImapConfig, MailConfig, Secret, SmtpConfig, Tls};
use dopis::daemon::mailbox::{ImapMailbox, MailRef};
use dopis::daemon::mailer::Mailer;
use dopis::domain::address::EmailAddress;
use dopis::service::app::{Clock, SystemClock};
use hmac::{Hmac, Mac};

use crate::support::mail::Sent;
use crate::support::{
    Daemon, MAIL_PASSWORD, OAuth2Stack, TestDb, dopis, fails, oauth2_mailstack, ok, scratch_user,
};

/// How long a mail may take to come (normally well under a second).
const DELIVERY: Duration = Duration::from_secs(60);

/// Issues access tokens as an authorization server would, for one user.
struct Issuer {
    key: Vec<u8>,
    user: String,
}

impl Issuer {
    /// A token valid until `lifetime` seconds from now (negative: one that
    /// expired that long ago), and that moment (Unix seconds).
    fn token(&self, lifetime: i64) -> (String, i64) {
        let now = SystemClock.now().timestamp();
        let expires = now + lifetime;
        let issued = now.min(expires) - 60;
        let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
        let claims = URL_SAFE_NO_PAD.encode(
            serde_json::json!({ "sub": self.user, "iat": issued, "exp": expires }).to_string(),
        );
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&self.key).unwrap();
        mac.update(format!("{header}.{claims}").as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        (format!("{header}.{claims}.{signature}"), expires)
    }
}

/// The daemon's token commands: `sh token.sh SIDE` (SIDE `imap` or
/// `smtp`) prints, at its Nth run, the file `SIDE.N` when the test left
/// one, else the file `SIDE`; it counts its runs in `SIDE.runs`.
struct Tokens {
    dir: PathBuf,
}

impl Tokens {
    fn new(dir: &Path) -> Tokens {
        let dir = dir.join("tokens");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("token.sh"),
            "dir=$(dirname \"$0\")\n\
             n=$(( $(cat \"$dir/$1.runs\" 2>/dev/null || echo 0) + 1 ))\n\
             echo $n > \"$dir/$1.runs\"\n\
             if [ -f \"$dir/$1.$n\" ]; then cat \"$dir/$1.$n\"; else cat \"$dir/$1\"; fi\n",
        )
        .unwrap();
        Tokens { dir }
    }

    /// The `token_command` of a side.
    fn command(&self, side: &str) -> String {
        format!("sh {} {side}", self.dir.join("token.sh").display())
    }

    /// What the command of `side` prints (at run `run`, or by default).
    fn set(&self, side: &str, run: Option<u32>, token: &str) {
        let name = match run {
            Some(n) => format!("{side}.{n}"),
            None => side.to_string(),
        };
        std::fs::write(self.dir.join(name), format!("{token}\n")).unwrap();
    }

    /// How many times the command of `side` ran.
    fn runs(&self, side: &str) -> u32 {
        std::fs::read_to_string(self.dir.join(format!("{side}.runs")))
            .ok()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0)
    }
}

/// The daemon's `[mail]` config: IMAP over TLS and submission with
/// STARTTLS, both XOAUTH2 with the given commands, by host name (so the
/// certificate's name is checked too).
fn daemon_config(stack: &OAuth2Stack, server: &str, imap: &str, smtp: &str) -> String {
    format!(
        "[mail]\naddress = \"{server}\"\nsecret = \"oauth-secret\"\n\n\
         {servers}",
        servers = crate::support::tls_mail_servers(
            &stack.tls,
            server,
            crate::support::MailLogin::Tokens { imap, smtp }
        ),
    )
}

/// A player reading their mail over IMAP with a password.
struct Player {
    address: String,
    mailbox: ImapMailbox,
    cursor: Option<MailRef>,
    inbox: Vec<Sent>,
}

impl Player {
    async fn new(stack: &OAuth2Stack) -> Player {
        let address = scratch_user();
        let mailbox = ImapMailbox::connect(ImapConfig {
            tls: Tls::Starttls,
            ca_file: Some(stack.tls.ca_file.clone()),
            ..crate::support::imap_login(stack.tls.imap_port, &address)
        })
        .await
        .unwrap();
        Player {
            address,
            mailbox,
            cursor: None,
            inbox: Vec::new(),
        }
    }

    /// Waits for a new mail whose subject contains `wanted`.
    async fn wait_for(&mut self, wanted: &str, serve_log: &Path) -> Sent {
        let deadline = Instant::now() + DELIVERY;
        loop {
            if let Some(i) = self.inbox.iter().position(|m| m.subject.contains(wanted)) {
                return self.inbox.remove(i);
            }
            assert!(
                Instant::now() < deadline,
                "{} got no mail with {wanted:?} in time; unread: {:?}; the daemon's log:\n{}",
                self.address,
                self.inbox.iter().map(|m| &m.subject).collect::<Vec<_>>(),
                std::fs::read_to_string(serve_log).unwrap_or_default()
            );
            let batch = self.mailbox.fetch_new(self.cursor.as_ref()).await.unwrap();
            if batch.is_empty() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            for mail in batch {
                self.cursor = Some(mail.key.clone());
                self.inbox
                    .push(Sent::parse(&mail.key.to_string(), &self.address, &mail.raw));
            }
        }
    }
}

/// A game between two players, run by a daemon that logs in with XOAUTH2.
struct Game {
    dir: tempfile::TempDir,
    white: Player,
    black: Player,
    /// The players' outgoing server (submission, with a password).
    smtp: Mailer,
    server: String,
    id: String,
    tokens: Tokens,
    daemon: Option<Daemon>,
}

impl Game {
    /// A game set up with the CLI; the daemon's mailbox user is issued
    /// tokens by the returned issuer. The daemon is not started yet.
    async fn new(db: &TestDb, stack: &OAuth2Stack) -> (Game, Issuer) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let server = scratch_user();
        let tokens = Tokens::new(d);
        std::fs::write(
            d.join("dopis.toml"),
            daemon_config(
                stack,
                &server,
                &tokens.command("imap"),
                &tokens.command("smtp"),
            ),
        )
        .unwrap();
        let white = Player::new(stack).await;
        let black = Player::new(stack).await;
        ok(&dopis(d, db, &["init"]));
        for (player, name) in [(&white, "Ana Novak"), (&black, "Bob Smith")] {
            ok(&dopis(
                d,
                db,
                &["player", "add", "--email", &player.address, "--name", name],
            ));
        }
        let id = ok(&dopis(
            d,
            db,
            &[
                "game",
                "new",
                "--white",
                &white.address,
                "--black",
                &black.address,
            ],
        ))
        .trim()
        .to_string();
        let smtp = Mailer::open(&MailConfig {
            smtp: Some(SmtpConfig {
                tls: Tls::Tls,
                user: Some(white.address.clone()),
                password: Some(Secret::new(MAIL_PASSWORD)),
                ca_file: Some(stack.tls.ca_file.clone()),
                ..crate::support::smtp_plain(stack.tls.smtps_port)
            }),
            ..MailConfig::default()
        })
        .unwrap();
        let issuer = Issuer {
            key: stack.key.clone(),
            user: server.clone(),
        };
        let game = Game {
            dir,
            white,
            black,
            smtp,
            server,
            id,
            tokens,
            daemon: None,
        };
        (game, issuer)
    }

    fn serve_log(&self) -> PathBuf {
        self.dir.path().join("serve.log")
    }

    /// Starts `dopis serve`.
    fn serve(&mut self, db: &TestDb) {
        let log = std::fs::File::create(self.serve_log()).unwrap();
        self.daemon = Some(Daemon(
            Command::new(env!("CARGO_BIN_EXE_dopis"))
                .current_dir(self.dir.path())
                .env_remove("DOPIS_CONFIG")
                .env("DOPIS_DATABASE_URL", &db.url)
                .args(["serve"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .unwrap(),
        ));
    }

    /// `dopis serve --once`, which must fail: its stderr.
    fn serve_once_fails(&self, db: &TestDb) -> String {
        fails(&dopis(self.dir.path(), db, &["serve", "--once"]))
    }

    /// The player to move answers their "Your move" mail with `text`.
    async fn play(&mut self, white: bool, text: &str) {
        let log = self.serve_log();
        let player = if white {
            &mut self.white
        } else {
            &mut self.black
        };
        let mail = player.wait_for("Your move", &log).await;
        let from = player.address.clone();
        let raw = mail.reply(
            &from,
            text,
            &format!("{:016x}@players.test", rand::random::<u64>()),
        );
        let to = mail.reply_to.as_deref().expect("a Reply-To");
        self.smtp
            .send(
                &EmailAddress::parse(&from).unwrap(),
                &[EmailAddress::parse(to).unwrap()],
                &raw,
            )
            .await
            .unwrap();
    }

    /// The game's moves in SAN and its result, from `game show`.
    fn state(&self, db: &TestDb) -> (Vec<String>, String) {
        let (sans, json) = crate::support::game_shown(self.dir.path(), db, &self.id);
        (sans, json["result"].as_str().unwrap_or("").to_string())
    }

    /// Whether the daemon is still running.
    fn daemon_runs(&mut self) -> bool {
        self.daemon
            .as_mut()
            .is_some_and(|d| d.0.try_wait().unwrap().is_none())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_played_with_the_daemon_logging_in_to_imap_and_smtp_with_xoauth2() {
    let Some(stack) = oauth2_mailstack() else {
        return;
    };
    let db = crate::support::sqlite();
    let (mut game, issuer) = Game::new(&db, &stack).await;
    game.tokens.set("imap", None, &issuer.token(3600).0);
    game.tokens.set("smtp", None, &issuer.token(3600).0);
    game.serve(&db);
    // Fool's mate: each move read over IMAP, each answer sent through
    // submission, both logged in with a token from the command.
    for (i, text) in ["f3", "e5", "g4", "Qh4#"].iter().enumerate() {
        game.play(i % 2 == 0, text).await;
    }
    let log = game.serve_log();
    game.white.wait_for("Game over", &log).await;
    game.black.wait_for("Game over", &log).await;
    assert_eq!(
        game.state(&db),
        (
            vec!["f3".into(), "e5".into(), "g4".into(), "Qh4#".into()],
            "0-1".into()
        )
    );
    // One IMAP login and one SMTP transport: the command ran once for each.
    assert_eq!((game.tokens.runs("imap"), game.tokens.runs("smtp")), (1, 1));
    assert!(game.daemon_runs());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expiring_tokens_are_replaced_by_fresh_ones_and_the_daemon_goes_on() {
    let Some(stack) = oauth2_mailstack() else {
        return;
    };
    let db = crate::support::sqlite();
    let (mut game, issuer) = Game::new(&db, &stack).await;
    // IMAP: first a token valid for 15 s (time enough to start); at the next login a token the
    // tool's cache still held though it has expired; then fresh ones.
    let (short, short_expiry) = issuer.token(15);
    game.tokens.set("imap", Some(1), &short);
    game.tokens.set("imap", Some(2), &issuer.token(-60).0);
    game.tokens.set("imap", None, &issuer.token(3600).0);
    // SMTP: the first token has expired already; then fresh ones.
    game.tokens.set("smtp", Some(1), &issuer.token(-60).0);
    game.tokens.set("smtp", None, &issuer.token(3600).0);
    game.serve(&db);

    // The game's first mails went out: the refused token was replaced.
    game.play(true, "f3").await;
    let log = game.serve_log();
    game.white.wait_for("Move accepted", &log).await;
    assert_eq!(game.tokens.runs("smtp"), 2);
    assert_eq!(game.tokens.runs("imap"), 1);

    // Once the IMAP token has expired (Dovecot checks it against the real
    // clock, so this waits for real time), the server drops the daemon's
    // connection. Its next login runs the command again, gets the expired
    // token, is refused, runs it once more and logs in.
    while SystemClock.now().timestamp() <= short_expiry {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    kick(&stack, &game.server).await;
    game.play(false, "e5").await;
    game.play(true, "g4").await;
    game.play(false, "Qh4#").await;
    game.white.wait_for("Game over", &log).await;
    assert_eq!(game.state(&db).1, "0-1");
    assert_eq!(game.tokens.runs("imap"), 3);
    assert!(game.daemon_runs(), "the daemon stopped");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("refused the XOAUTH2 token; running [mail.imap] token_command again"),
        "{text}"
    );
    assert!(
        text.contains("refused the XOAUTH2 token; running [mail.smtp] token_command again"),
        "{text}"
    );
    // No token reaches the log.
    assert!(!text.contains("eyJ"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_token_command_is_an_error_naming_it_its_status_and_its_complaint() {
    let Some(stack) = oauth2_mailstack() else {
        return;
    };
    let db = crate::support::sqlite();
    let (mut game, issuer) = Game::new(&db, &stack).await;
    let failing = "echo 'oama: no refresh token for this account; run oama authorize' >&2; exit 4";

    // IMAP: `serve` cannot open the mailbox, and says why.
    let dir = game.dir.path().to_path_buf();
    let config = daemon_config(&stack, &game.server, failing, &game.tokens.command("smtp"));
    std::fs::write(dir.join("dopis.toml"), config).unwrap();
    let err = game.serve_once_fails(&db);
    for part in [
        "cannot open the mailbox",
        "cannot log in to IMAP server localhost:",
        "with XOAUTH2",
        &format!("[mail.imap] token_command \"{failing}\" failed with exit status: 4"),
        "its stderr says: \"oama: no refresh token for this account; run oama authorize\"",
        "run the command by hand",
    ] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }

    // SMTP: the mail stays in the outbox and the pass fails, saying why.
    game.tokens.set("imap", None, &issuer.token(3600).0);
    let config = daemon_config(
        &stack,
        &game.server,
        &game.tokens.command("imap"),
        "no-such-oauth-tool",
    );
    std::fs::write(dir.join("dopis.toml"), config).unwrap();
    let err = game.serve_once_fails(&db);
    for part in [
        "cannot log in to SMTP server localhost:",
        "[mail.smtp] token_command \"no-such-oauth-tool\" failed with exit status: 127",
        "not found",
        "the outbox waits for the server",
    ] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }
    // Nothing was lost: with a working command the game's mails go out.
    game.tokens.set("smtp", None, &issuer.token(3600).0);
    let config = daemon_config(
        &stack,
        &game.server,
        &game.tokens.command("imap"),
        &game.tokens.command("smtp"),
    );
    std::fs::write(dir.join("dopis.toml"), config).unwrap();
    game.serve(&db);
    game.play(true, "e4").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_the_server_refuses_is_an_authentication_failure_naming_xoauth2() {
    let Some(stack) = oauth2_mailstack() else {
        return;
    };
    let db = crate::support::sqlite();
    let (game, issuer) = Game::new(&db, &stack).await;
    // A token for another user: well made, but not for this mailbox.
    let other = Issuer {
        key: issuer.key.clone(),
        user: scratch_user(),
    };
    game.tokens.set("imap", None, &other.token(3600).0);
    game.tokens.set("smtp", None, &other.token(3600).0);
    let err = game.serve_once_fails(&db);
    for part in [
        "refused the XOAUTH2 login of user",
        &game.server,
        "it refused a fresh token from [mail.imap] token_command too",
        "check that the token is for",
    ] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }
    // Refused, the command ran again once before giving up.
    assert_eq!(game.tokens.runs("imap"), 2);
    assert!(!err.contains("eyJ"), "no token in the message: {err}");

    // SMTP the same, once the mailbox can be read.
    game.tokens.set("imap", None, &issuer.token(3600).0);
    let err = game.serve_once_fails(&db);
    for part in [
        "SMTP server localhost:",
        "refused the XOAUTH2 login of user",
        "it refused a fresh token from [mail.smtp] token_command too",
    ] {
        assert!(err.contains(part), "{part:?} not in: {err}");
    }
    assert_eq!(game.tokens.runs("smtp"), 2);
    assert!(!err.contains("eyJ"), "no token in the message: {err}");
}

/// `dopis doctor` logs in as `serve` does: with tokens from the commands
/// every check passes (the probe mail goes out and is found over XOAUTH2);
/// a failing IMAP command or a refused SMTP token is its login's failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_doctor_logs_in_with_xoauth2_and_finds_a_failing_token_command() {
    let Some(stack) = oauth2_mailstack() else {
        return;
    };
    let db = crate::support::sqlite();
    let (game, issuer) = Game::new(&db, &stack).await;
    game.tokens.set("imap", None, &issuer.token(3600).0);
    game.tokens.set("smtp", None, &issuer.token(3600).0);
    let dir = game.dir.path();
    let doctor = || {
        let out = dopis(dir, &db, &["doctor", "--wait", "30"]);
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (passed, out) = doctor();
    assert!(passed, "{out}");
    for line in [
        "ok    imap login:",
        "ok    smtp login:",
        "ok    reply address:",
    ] {
        assert!(out.contains(line), "{line:?} not in: {out}");
    }

    let failing = "echo 'no refresh token' >&2; exit 4";
    let config = daemon_config(&stack, &game.server, failing, &game.tokens.command("smtp"));
    std::fs::write(dir.join("dopis.toml"), config).unwrap();
    let (passed, out) = doctor();
    assert!(!passed, "{out}");
    assert!(
        out.contains("FAIL  imap login:") && out.contains("failed with exit status: 4"),
        "{out}"
    );

    let other = Issuer {
        key: stack.key.clone(),
        user: scratch_user(),
    };
    game.tokens.set("smtp", None, &other.token(3600).0);
    let config = daemon_config(
        &stack,
        &game.server,
        &game.tokens.command("imap"),
        &game.tokens.command("smtp"),
    );
    std::fs::write(dir.join("dopis.toml"), config).unwrap();
    let (passed, out) = doctor();
    assert!(!passed, "{out}");
    assert!(out.contains("ok    imap login:"), "{out}");
    assert!(
        out.contains("FAIL  smtp login:")
            && out.contains("fix: check [mail.smtp] user and token_command"),
        "{out}"
    );
    assert!(!out.contains("eyJ"), "no token in the output: {out}");
}

/// Ends the IMAP sessions of `user` on the test mail system
/// (`scripts/mailstack.sh kick`), as a server dropping a connection: tried
/// until the user has a session to end.
async fn kick(stack: &OAuth2Stack, user: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/mailstack.sh");
    let deadline = Instant::now() + DELIVERY;
    loop {
        let out = tokio::process::Command::new("bash")
            .arg(&script)
            .args(["kick", user])
            .env("MAILSTACK_DIR", &stack.dir)
            .output()
            .await
            .expect("run scripts/mailstack.sh");
        if out.status.success() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no IMAP session of {user} to end: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
