//! Time end to end over real mail: the real `dopis serve --once` process
//! against Postfix + Dovecot, its clock shifted with Debian's `faketime`
//! (`faketime -f +49h dopis serve --once`), while players read their mail
//! over IMAP and answer over SMTP. Mail times stay real (Dovecot's
//! INTERNALDATE), so every move and the leave booking happen "now", and the
//! shifted daemon sees days pass: a reminder before the deadline, a `3d`
//! game lost on time with mails to both, a leave that makes the timeout come
//! later, and an ICCF `10/50d` game lost on cumulative time.

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use mail_parser::MimeHeaders as _;

use dopis::adapter::config::MailConfig;
use dopis::daemon::mailbox::{ImapMailbox, MailRef};
use dopis::daemon::mailer::Mailer;
use dopis::domain::address::EmailAddress;
use dopis::service::app::{Clock, SystemClock};

use crate::support::{MailStack, TestDb, dopis, mailstack, ok, scratch_user};

/// How long a wait for mail may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A player's mailbox on the test mail system.
struct Reader {
    address: String,
    mailbox: ImapMailbox,
    cursor: Option<MailRef>,
    unread: Vec<mail_parser::Message<'static>>,
}

impl Reader {
    async fn new(stack: MailStack) -> Reader {
        let address = scratch_user();
        let mailbox = ImapMailbox::connect(crate::support::imap_login(stack.imap_port, &address))
            .await
            .unwrap();
        Reader {
            address,
            mailbox,
            cursor: None,
            unread: Vec::new(),
        }
    }

    /// Fetches new mail; takes the first whose subject contains `wanted`.
    async fn take(&mut self, wanted: &str) -> Option<mail_parser::Message<'static>> {
        for mail in self.mailbox.fetch_new(self.cursor.as_ref()).await.unwrap() {
            self.cursor = Some(mail.key.clone());
            let parsed = mail_parser::MessageParser::default()
                .parse(&mail.raw)
                .unwrap()
                .into_owned();
            self.unread.push(parsed);
        }
        let i = self
            .unread
            .iter()
            .position(|m| m.subject().unwrap_or("").contains(wanted))?;
        Some(self.unread.remove(i))
    }

    fn subjects(&self) -> Vec<String> {
        self.unread
            .iter()
            .map(|m| m.subject().unwrap_or("").to_string())
            .collect()
    }
}

/// The daemon's config dir and database, and an SMTP client for players.
struct Server<'a> {
    dir: tempfile::TempDir,
    db: &'a TestDb,
    smtp: Mailer,
    /// When the games were made (real time).
    started: DateTime<Utc>,
}

impl Server<'_> {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// One `dopis serve --once`, its clock `hours` ahead of real time.
    fn serve_once(&self, hours: i64) {
        let mut cmd = crate::support::faketime(&format!("+{hours}h"), env!("CARGO_BIN_EXE_dopis"));
        cmd.current_dir(self.path())
            .env_remove("DOPIS_CONFIG")
            .env_remove("DOPIS_CRASH_AT")
            .env("DOPIS_DATABASE_URL", &self.db.url)
            .env("DOPIS_LOG", "warn")
            .args(["serve", "--once"]);
        let out = cmd.output().expect("run faketime dopis serve --once");
        assert!(
            out.status.success(),
            "serve --once at +{hours}h failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs daemon passes `hours` ahead until `reader` has a mail whose
    /// subject contains `wanted` (mail takes a moment to travel).
    async fn serve_until(
        &self,
        hours: i64,
        reader: &mut Reader,
        wanted: &str,
    ) -> mail_parser::Message<'static> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            self.serve_once(hours);
            if let Some(mail) = reader.take(wanted).await {
                return mail;
            }
            assert!(
                Instant::now() < deadline,
                "{} got no {wanted:?} at +{hours}h; unread: {:?}",
                reader.address,
                reader.subjects()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// A game's status and result from `game show`.
    fn game(&self, id: &str) -> (String, String) {
        let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
            self.path(),
            self.db,
            &["game", "show", id, "--format", "json"],
        )))
        .unwrap();
        (
            json["status"].as_str().unwrap_or("").to_string(),
            json["result"].as_str().unwrap_or("").to_string(),
        )
    }

    /// `reader` replies to `mail` with `text`, to its Reply-To.
    async fn reply(&self, reader: &Reader, mail: &mail_parser::Message<'_>, text: &str) {
        let to = mail
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .expect("a Reply-To")
            .to_string();
        let raw = format!(
            "From: {from}\r\nTo: {to}\r\nSubject: Re: {subject}\r\nMessage-ID: <{id:016x}@players.test>\r\n\
             In-Reply-To: <{parent}>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
            from = reader.address,
            subject = mail.subject().unwrap_or(""),
            id = rand::random::<u64>(),
            parent = mail.message_id().unwrap_or(""),
        );
        self.smtp
            .send(
                &EmailAddress::parse(&reader.address).unwrap(),
                &[EmailAddress::parse(&to).unwrap()],
                raw.as_bytes(),
            )
            .await
            .unwrap();
    }
}

async fn setup<'a>(db: &'a TestDb, stack: MailStack) -> Server<'a> {
    let dir = tempfile::tempdir().unwrap();
    let server = scratch_user();
    std::fs::write(
        dir.path().join("dopis.toml"),
        format!(
            "[mail]\naddress = \"{server}\"\nsecret = \"time-mail-secret\"\n\n\
             {servers}",
            servers = crate::support::plain_mail_servers(&stack, &server),
        ),
    )
    .unwrap();
    ok(&dopis(dir.path(), db, &["init"]));
    let smtp = Mailer::open(&MailConfig {
        smtp: Some(crate::support::smtp_plain(stack.smtp_port)),
        ..MailConfig::default()
    })
    .unwrap();
    Server {
        dir,
        db,
        smtp,
        started: SystemClock.now(),
    }
}

/// Registers two readers and starts a game between them; returns its id.
fn new_game(
    s: &Server<'_>,
    (white, white_name): (&Reader, &str),
    (black, black_name): (&Reader, &str),
    control: &str,
) -> String {
    for (r, name) in [(white, white_name), (black, black_name)] {
        ok(&dopis(
            s.path(),
            s.db,
            &["player", "add", "--email", &r.address, "--name", name],
        ));
    }
    ok(&dopis(
        s.path(),
        s.db,
        &[
            "game",
            "new",
            "--white",
            &white.address,
            "--black",
            &black.address,
            "--control",
            control,
        ],
    ))
    .trim()
    .to_string()
}

async fn clocks_run_out_over_real_mail_under_a_shifted_clock(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let s = setup(db, stack).await;
    let mut readers = Vec::new();
    for _ in 0..6 {
        readers.push(Reader::new(stack).await);
    }
    let [mut ana, mut bob, mut cid, mut dan, mut eva, mut fay]: [Reader; 6] =
        readers.try_into().ok().unwrap();
    let quick = new_game(&s, (&ana, "Ana"), (&bob, "Bob"), "3d");
    let paused = new_game(&s, (&cid, "Cid"), (&dan, "Dan"), "3d");
    let iccf = new_game(&s, (&eva, "Eva"), (&fay, "Fay"), "10/50d");

    // Cid books leave by mail for tomorrow and the day after (in UTC, his
    // zone): whole days inside his 72 hours, so his clock stops for 48 h.
    let told = s.serve_until(0, &mut cid, "Your move").await;
    let from = (s.started + TimeDelta::days(1)).date_naive();
    let to = from + TimeDelta::days(1);
    s.reply(&cid, &told, &format!("leave {from} {to}")).await;
    s.serve_until(0, &mut cid, &format!("Leave booked: {from} to {to}"))
        .await;

    // While the leave runs (from the start of its first day to the end of
    // its second: an hour after its second day begins is inside it, at any
    // time of day the test starts), Dan hears that Cid is on leave.
    let second_day = (from + TimeDelta::days(1))
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc();
    let inside = (second_day - s.started).num_hours() + 1;
    assert!((25..=48).contains(&inside), "{inside}");
    s.serve_until(inside, &mut dan, "Cid is on leave").await;

    // 49 hours on: Ana's 24-hour reminder has come, before her deadline.
    let reminder = s.serve_until(49, &mut ana, "Reminder: your move").await;
    assert!(
        reminder.body_text(0).unwrap_or_default().contains("UTC"),
        "the reminder names the deadline"
    );
    assert_eq!(s.game(&quick).0, "active");

    // 73 hours on: Ana's game ended by itself; both players are told.
    let over = s.serve_until(73, &mut ana, "Game over").await;
    s.serve_until(73, &mut bob, "Game over").await;
    assert_eq!(s.game(&quick), ("finished".into(), "0-1".into()));
    let pgn = over
        .attachments()
        .find(|a| a.attachment_name().is_some_and(|n| n.ends_with(".pgn")))
        .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
        .unwrap_or_default();
    assert!(pgn.contains("time forfeit"), "{pgn}");
    // Cid's leave moved his deadline 48 hours: still playing.
    assert_eq!(s.game(&paused).0, "active");
    s.serve_once(119);
    assert_eq!(s.game(&paused).0, "active");
    s.serve_until(121, &mut cid, "Game over").await;
    s.serve_until(121, &mut dan, "Game over").await;
    assert_eq!(s.game(&paused), ("finished".into(), "0-1".into()));

    // ICCF 10/50d: Eva never makes her first move (which counts from the
    // start). Long past any days-per-move deadline she still plays, with
    // silence reminders; her 50 days for the first ten moves run out on day 51.
    s.serve_once(49 * 24);
    assert_eq!(s.game(&iccf).0, "active");
    s.serve_until(52 * 24, &mut eva, "Game over").await;
    s.serve_until(52 * 24, &mut fay, "Game over").await;
    assert_eq!(s.game(&iccf), ("finished".into(), "0-1".into()));
}

crate::on_both_backends!(clocks_run_out_over_real_mail_under_a_shifted_clock);
