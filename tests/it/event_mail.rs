//! An event end to end over the real mail system (Postfix + Dovecot from
//! `scripts/test.sh`): the event is created and started by the CLI, the
//! daemon sends the first mails over SMTP, the players read them over IMAP
//! and answer to the Reply-To over SMTP, games finish by mail, and a
//! player's `standings` gets the right crosstable back.
//!
//! Waiting is by polling with a deadline, never by a fixed sleep.

use std::time::Duration;

use futures::TryStreamExt;
use mail_parser::MessageParser;
use tokio::sync::watch;

use dopis::adapter::config::{MailConfig, Secret};
use dopis::daemon::mailbox::Mailbox;
use dopis::daemon::mailer::{Mailer, SmtpMailer};
use dopis::daemon::run::Daemon;
use dopis::domain::address::EmailAddress;

use crate::support::app::TestApp;
use crate::support::{self, MAIL_PASSWORD, MailStack, dopis, ok};

const PATIENCE: Duration = Duration::from_secs(60);
const SECRET: &str = "event-mail-test-secret-0123456789";

fn addr(a: &str) -> EmailAddress {
    EmailAddress::parse(a).expect("test address")
}

fn mail_config(stack: MailStack, server: &str) -> MailConfig {
    MailConfig {
        address: server.into(),
        secret: Secret::new(SECRET),
        imap: Some(crate::support::imap_login(stack.imap_port, server)),
        smtp: Some(crate::support::smtp_plain(stack.smtp_port)),
        ..MailConfig::default()
    }
}

/// A mail as a player's client shows it.
#[derive(Debug, Clone)]
struct Got {
    subject: String,
    reply_to: Option<String>,
    message_id: Option<String>,
    text: String,
}

/// Every mail in a user's INBOX, read over IMAP as a mail client would.
async fn inbox_of(stack: MailStack, user: &str) -> Vec<Got> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", stack.imap_port))
        .await
        .expect("connect to test IMAP");
    let mut client = async_imap::Client::new(tcp);
    client.read_response().await.expect("greeting");
    let mut session = client
        .login(user, MAIL_PASSWORD)
        .await
        .map_err(|(e, _)| e)
        .expect("login");
    let mailbox = session.select("INBOX").await.expect("select");
    let mut out = Vec::new();
    if mailbox.exists > 0 {
        let fetched: Vec<_> = session
            .fetch("1:*", "BODY.PEEK[]")
            .await
            .expect("fetch")
            .try_collect()
            .await
            .expect("collect");
        for f in &fetched {
            let Some(mail) = f.body().and_then(|b| MessageParser::default().parse(b)) else {
                continue;
            };
            out.push(Got {
                subject: mail.subject().unwrap_or("").to_owned(),
                reply_to: mail
                    .reply_to()
                    .and_then(|a| a.first())
                    .and_then(|a| a.address())
                    .map(str::to_owned),
                message_id: mail.message_id().map(str::to_owned),
                text: mail
                    .body_text(0)
                    .map(|t| t.into_owned())
                    .unwrap_or_default(),
            });
        }
    }
    let _ = session.logout().await;
    out
}

/// Waits until `user` has a mail whose subject contains `subject`.
async fn wait_for(stack: MailStack, user: &str, subject: &str) -> Got {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if let Some(m) = inbox_of(stack, user)
            .await
            .into_iter()
            .find(|m| m.subject.contains(subject))
        {
            return m;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{user} got no mail with {subject:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// A player answers a mail from their client: to its Reply-To, quoting it.
async fn reply(stack: MailStack, from: &str, to: &Got, text: &str) {
    let reply_to = to.reply_to.clone().expect("the mail has a Reply-To");
    let raw = format!(
        "From: {from}\r\nTo: {reply_to}\r\nSubject: Re: {}\r\nMessage-ID: <{:016x}@players.test>\r\n\
         In-Reply-To: <{}>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         {text}\r\n\r\n> earlier mail\r\n",
        to.subject,
        rand::random::<u64>(),
        to.message_id.clone().unwrap_or_default(),
    );
    SmtpMailer::new(mail_config(stack, from).smtp.as_ref().expect("smtp config"))
        .expect("smtp mailer")
        .send(&addr(from), &[addr(&reply_to)], raw.as_bytes())
        .await
        .expect("send the reply");
}

/// Runs daemon passes until `want` more mails have been handled.
async fn handle(daemon: &Daemon, mailbox: &mut Mailbox, mailer: &Mailer, want: usize) {
    let (_stop, shutdown) = watch::channel(false);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut received = 0;
    loop {
        let pass = daemon
            .pass(mailbox, mailer, &shutdown)
            .await
            .expect("daemon pass");
        received += pass.received;
        if received >= want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the daemon handled {received} of {want} mails"
        );
        let _ = mailbox.wait_for_new(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_started_by_cli_is_played_and_ranked_by_mail() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let server = support::scratch_user();
    let [ana, bor, cene] = [(); 3].map(|_| support::scratch_user());
    let db = support::sqlite();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("dopis.toml"),
        format!("[mail]\naddress = \"{server}\"\nsecret = \"{SECRET}\"\n"),
    )
    .unwrap();
    ok(&dopis(d, &db, &["init"]));
    // Three players: round 1 Bor-Cene, round 2 Ana-Bor, round 3 Cene-Ana
    // (games 1, 2, 3; the fourth number is the bye).
    std::fs::write(
        d.join("cup.toml"),
        format!(
            "name = \"Mail cup\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
             [[players]]\nemail = \"{ana}\"\nname = \"Ana\"\n\
             [[players]]\nemail = \"{bor}\"\nname = \"Bor\"\n\
             [[players]]\nemail = \"{cene}\"\nname = \"Cene\"\n"
        ),
    )
    .unwrap();
    let id = ok(&dopis(d, &db, &["event", "create", "cup.toml"]));
    let started = ok(&dopis(d, &db, &["event", "start", id.trim()]));
    assert!(started.contains("3 games"), "{started}");

    let config = mail_config(stack, &server);
    let app = TestApp::builder()
        .mail_config(config.clone())
        .system_clock()
        .answers_per_hour(100)
        .mailbox_name("event-mail-test")
        .open(&db)
        .await;
    let daemon = &app.daemon;
    let mut mailbox = Mailbox::open(&config).await.expect("mailbox");
    let mailer = Mailer::open(&config).expect("mailer");
    // The first mails go out over SMTP.
    handle(daemon, &mut mailbox, &mailer, 0).await;

    // Game 1: Bor (White) resigns at once.
    let g1 = wait_for(stack, &bor, "[dopis #1] Your move").await;
    wait_for(stack, &cene, "[dopis #1] Game started").await;
    reply(stack, &bor, &g1, "resign").await;
    handle(daemon, &mut mailbox, &mailer, 1).await;
    wait_for(stack, &cene, "[dopis #1] Game over").await;

    // Game 2: the fool's mate, Bor mates Ana.
    // Each answers the newest mail of the game (a reply to an older one
    // would be written for an earlier position, and asked about).
    wait_for(stack, &bor, "[dopis #2] Game started").await;
    for (who, newest, text) in [
        (&ana, "[dopis #2] Your move", "f3"),
        (&bor, "[dopis #2] Your move: Ana played f3", "e5"),
        (&ana, "[dopis #2] Your move: Bor played e5", "g4"),
        (&bor, "[dopis #2] Your move: Ana played g4", "Qh4#"),
    ] {
        let mail = wait_for(stack, who, newest).await;
        reply(stack, who, &mail, text).await;
        handle(daemon, &mut mailbox, &mailer, 1).await;
    }
    let over = wait_for(stack, &ana, "[dopis #2] Game over").await;
    assert!(over.text.contains("Result: 0-1"), "{}", over.text);

    // Game 3 goes on; Ana asks for the standings in it.
    let ana_g3 = wait_for(stack, &ana, "[dopis #3] Game started").await;
    reply(stack, &ana, &ana_g3, "standings").await;
    handle(daemon, &mut mailbox, &mailer, 1).await;
    let standings = wait_for(stack, &ana, "Standings: Mail cup").await;
    // Bor and Cene on 1 point; Cene beat Bor (1 point) and is ahead on
    // Sonneborn-Berger, Bor beat Ana (0).
    let rows: Vec<Vec<&str>> = standings
        .text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() > 3 && w[1].parse::<u32>().is_ok())
        .collect();
    let order: Vec<(&str, &str)> = rows.iter().map(|w| (w[0], w[2])).collect();
    assert_eq!(
        order,
        vec![("1", "Cene"), ("2", "Bor"), ("3", "Ana")],
        "{}",
        standings.text
    );
    let cene_row = rows.iter().find(|w| w[2] == "Cene").unwrap();
    // Against Ana (*, still playing) and Bor (1), then points 1.
    assert_eq!(&cene_row[3..6], &["X", "1", "*"], "{}", standings.text);
    app.close().await;
}
