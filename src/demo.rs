//! `dopis demo`: a whole game by mail through the real pipeline — the
//! Maildir mailbox and mailer, the inbound parser, routing with reply
//! tokens, the arbiter, the outbox and the mail composer — on a fresh
//! SQLite file. Two players answer the mails they get as a mail client
//! would (replying to the Reply-To, quoting the mail), one in Slovenian
//! piece letters, one in English, and one move goes wrong on the way.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use tokio::sync::watch;

use crate::adapter::config::{Config, MailConfig, MaildirConfig, Secret};
use crate::daemon::mailbox::Mailbox;
use crate::daemon::mailer::Mailer;
use crate::daemon::run::Daemon;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::StartPosition;
use crate::domain::clock::TimeControl;
use crate::domain::lang::Lang;
use crate::domain::player::NewPlayer;
use crate::service::app::{App, Clock, SystemClock};
use crate::service::post::Post;

/// Légal's mate (Légal – Saint Brie, Paris 1750), as the two players write
/// it: Ana in Slovenian letters (S = knight, L = bishop), Bob in English
/// in several notations, with one illegal try.
const SCRIPT: &[(&str, &str)] = &[
    ("ana", "e4"),
    ("bob", "e7-e5"),
    ("ana", "Sf3"),
    ("bob", "d6"),
    ("ana", "Lc4"),
    ("bob", "Bg4"),
    ("ana", "Sc3"),
    ("bob", "g7g6"),
    ("ana", "Sxe5"),
    ("bob", "Bxd1"),
    ("ana", "Lxf7+"),
    ("bob", "Ke6"),
    ("bob", "Ke7"),
    ("ana", "Sd5#"),
];

/// Runs the demo in `dir` (created; must be empty or absent), printing the
/// transcript to `out`.
pub async fn run(dir: &Path, out: &mut dyn Write) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let db = dir.join("dopis.db");
    if db.exists() {
        anyhow::bail!(
            "{} already holds a demo; give an empty directory with --dir",
            dir.display()
        );
    }
    let mail_dir = dir.join("mail");
    let config = Config {
        database: crate::adapter::config::DatabaseConfig {
            url: Secret::new(format!("sqlite://{}", db.display())),
        },
        mail: MailConfig {
            address: "chess@dopis.test".into(),
            name: "dopis".into(),
            secret: Secret::new(format!("demo-{:032x}", rand::random::<u128>())),
            maildir: MaildirConfig {
                path: mail_dir.clone(),
            },
            ..MailConfig::default()
        },
        ..Config::default()
    };
    let app = App::create(config).await?;
    app.store
        .close_after(play(&app, dir, &db, &mail_dir, out))
        .await
}

/// The demo's game, on an open store.
async fn play(
    app: &App,
    dir: &Path,
    db: &Path,
    mail_dir: &Path,
    out: &mut dyn Write,
) -> Result<()> {
    let (store, config) = (&app.store, &app.config);
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let now = clock.now();
    let ana = store
        .add_player(
            &NewPlayer::new(
                EmailAddress::parse("ana@players.test")?,
                "Ana Novak",
                Lang::Sl,
                Some("Europe/Ljubljana"),
            )?,
            now,
        )
        .await?;
    let bob = store
        .add_player(
            &NewPlayer::new(
                EmailAddress::parse("bob@players.test")?,
                "Bob Smith",
                Lang::En,
                Some("Europe/London"),
            )?,
            now,
        )
        .await?;
    writeln!(
        out,
        "dopis demo: a whole game by mail, in {}",
        dir.display()
    )?;
    writeln!(out, "  database: {}", db.display())?;
    writeln!(
        out,
        "  mailbox:  {}/inbox (Maildir), mail sent to {}/sent",
        mail_dir.display(),
        mail_dir.display()
    )?;
    writeln!(
        out,
        "  players:  {} <{}> (writes Slovenian piece letters), {} <{}>",
        ana.name, ana.email, bob.name, bob.email
    )?;

    let post = Post::new(&config.mail)?;
    let game = crate::service::start::start_game(
        store,
        &post,
        ana.id,
        bob.id,
        StartPosition::Standard,
        TimeControl::default(),
        now,
    )
    .await?;
    writeln!(out, "  game {game} started, time control 3 days per move\n")?;

    let daemon = Daemon::new(
        store.clone(),
        clock.clone(),
        post,
        &crate::service::app::Settings {
            answers_per_hour: 100,
            allowance: crate::domain::clock::Allowance::default(),
            plan: crate::domain::clock::ReminderPlan::default(),
            tables: std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
        },
        "demo".into(),
    );
    let mut mailbox = Mailbox::open(&config.mail).await?;
    let mailer = Mailer::open(&config.mail)?;
    let (_stop, shutdown) = watch::channel(false);
    let mut seen = Vec::new();
    daemon.pass(&mut mailbox, &mailer, &shutdown).await?;
    let mut transcript = Transcript::new(mail_dir);
    for (who, text) in SCRIPT {
        for mail in transcript.new_mails()? {
            let full = seen.is_empty() || mail.subject.contains("Not played");
            print_mail(out, &mail, full)?;
            seen.push(mail);
        }
        let player = if *who == "ana" {
            &ana.email
        } else {
            &bob.email
        };
        // The player answers the latest mail they got that asks for a reply.
        let Some(last) = seen
            .iter()
            .rev()
            .find(|m| &m.to == player && m.reply_to.is_some())
        else {
            anyhow::bail!("{player} got no mail to answer");
        };
        let reply = reply_to(last, player, text);
        writeln!(out, ">>> {player} replies: {text}\n")?;
        deliver(&mail_dir.join("inbox"), &reply)?;
        daemon.pass(&mut mailbox, &mailer, &shutdown).await?;
    }
    for mail in transcript.new_mails()? {
        print_mail(out, &mail, mail.subject.contains("Game over"))?;
        seen.push(mail);
    }
    let (record, _, _) = crate::service::games::show(store, game).await?;
    writeln!(
        out,
        "Final state of game {game}: {}",
        record.end_reason.as_deref().unwrap_or("in progress")
    )?;
    writeln!(
        out,
        "{} mails exchanged. The PGN:\n",
        seen.len() + SCRIPT.len()
    )?;
    let table = crate::service::start::table(store, game).await?;
    writeln!(out, "{}", table.pgn())?;
    what_next(out, dir)
}

/// How to go on from the demo to a club of one's own: the steps of the
/// README's tour, each a command to copy (a test runs them).
fn what_next(out: &mut dyn Write, dir: &Path) -> Result<()> {
    writeln!(
        out,
        "What next: your own club, in a folder of its own.

  dopis init        # writes dopis.toml (set [mail] address, and [mail.imap]
                    # and [mail.smtp] for a real mailbox) and creates dopis.db
  dopis player add --email ana@example.org --name \"Ana Novak\" --lang sl --tz Europe/Ljubljana
  dopis player add --email bob@example.org --name \"Bob Smith\" --tz Europe/London
  dopis game new --white ana@example.org --black bob@example.org --control 3d
  dopis serve       # plays the games by mail until stopped (--once: one pass)

The demo's mails stay in {}; `dopis --help` lists every command.",
        dir.join("mail/sent/new").display()
    )?;
    Ok(())
}

/// A mail as the demo shows it.
struct ShownMail {
    to: EmailAddress,
    subject: String,
    reply_to: Option<String>,
    message_id: Option<String>,
    text: String,
}

/// Reads the mails dopis wrote to the `sent` Maildir, in order.
struct Transcript {
    dir: PathBuf,
    read: std::collections::HashSet<PathBuf>,
}

impl Transcript {
    fn new(mail_dir: &Path) -> Transcript {
        Transcript {
            dir: mail_dir.join("sent").join("new"),
            read: Default::default(),
        }
    }

    fn new_mails(&mut self) -> Result<Vec<ShownMail>> {
        let mut files: Vec<(std::time::SystemTime, String, PathBuf)> = Vec::new();
        for entry in std::fs::read_dir(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?
        {
            let path = entry?.path();
            if self.read.contains(&path) {
                continue;
            }
            let modified = std::fs::metadata(&path)?.modified()?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((modified, name, path));
        }
        files.sort();
        let mut mails = Vec::new();
        for (_, _, path) in files {
            let raw = std::fs::read(&path)?;
            self.read.insert(path);
            let Some(msg) = mail_parser::MessageParser::default().parse(&raw) else {
                continue;
            };
            let to = msg
                .to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .and_then(|a| EmailAddress::parse(a).ok());
            let Some(to) = to else { continue };
            mails.push(ShownMail {
                to,
                subject: msg.subject().unwrap_or("").to_string(),
                reply_to: msg
                    .reply_to()
                    .and_then(|a| a.first())
                    .and_then(|a| a.address())
                    .map(str::to_string),
                message_id: msg.message_id().map(str::to_string),
                text: msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
            });
        }
        Ok(mails)
    }
}

fn print_mail(out: &mut dyn Write, mail: &ShownMail, full: bool) -> Result<()> {
    writeln!(out, "--- mail to {} — {}", mail.to, mail.subject)?;
    if let Some(r) = &mail.reply_to {
        writeln!(out, "    Reply-To: {r}")?;
    }
    let lines: Vec<&str> = mail.text.lines().collect();
    let shown = if full {
        lines.len()
    } else {
        lines.len().min(6)
    };
    for line in &lines[..shown] {
        writeln!(out, "    {line}")?;
    }
    if shown < lines.len() {
        writeln!(out, "    [… {} more lines]", lines.len() - shown)?;
    }
    writeln!(out)?;
    Ok(())
}

/// A reply as a mail client writes it: to the Reply-To, threaded, the
/// move on the first line above the quoted mail.
fn reply_to(mail: &ShownMail, from: &EmailAddress, text: &str) -> Vec<u8> {
    let to = mail.reply_to.clone().unwrap_or_default();
    let id = format!("<demo.{:016x}@players.test>", rand::random::<u64>());
    let parent = mail
        .message_id
        .as_deref()
        .map(|m| format!("<{m}>"))
        .unwrap_or_default();
    let quoted: String = mail.text.lines().map(|l| format!("> {l}\r\n")).collect();
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: {subject}\r\nMessage-ID: {id}\r\nIn-Reply-To: {parent}\r\n\
         References: {parent}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\n{text}\r\n\r\nOn a fine day dopis <chess@dopis.test> wrote:\r\n{quoted}",
        subject = mail.subject,
    )
    .into_bytes()
}

/// Delivers a mail into a Maildir as a delivery agent would: tmp/, then new/.
fn deliver(maildir: &Path, raw: &[u8]) -> Result<()> {
    let name = format!(
        "{}.demo{:016x}.localhost",
        std::process::id(),
        rand::random::<u64>()
    );
    let tmp = maildir.join("tmp").join(&name);
    std::fs::write(&tmp, raw)?;
    std::fs::rename(&tmp, maildir.join("new").join(&name))?;
    Ok(())
}
