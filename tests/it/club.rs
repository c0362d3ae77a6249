//! A club on the embedded default: a config in a temp dir with a Maildir
//! inbox and sent folder, players and games made with the real `dopis`
//! binary, and the real `dopis serve --once` run over it. Players "send"
//! mail by dropping files into the inbox, as a delivery agent does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{TestDb, dopis, ok};

/// One sent mail as a player's client shows it.
#[derive(Debug, Clone)]
pub struct Sent {
    /// The recipient.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The Message-ID, without `<>`.
    pub message_id: String,
    /// The Reply-To address.
    pub reply_to: Option<String>,
    /// The plain-text body.
    pub text: String,
}

/// A Maildir-based club in a temp dir: config, Alice (White) and Bob (Black)
/// in game 1.
pub struct Club {
    dir: tempfile::TempDir,
}

impl Club {
    /// The club with Alice and Bob playing game 1.
    pub fn new(db: &TestDb) -> Club {
        Club::with_config(db, "")
    }

    /// The same, with more config lines added to the file.
    pub fn with_config(db: &TestDb, extra: &str) -> Club {
        let club = Club::empty(db, extra);
        club.add_player(db, "alice@players.test", "Alice");
        club.add_player(db, "bob@players.test", "Bob");
        club.new_game(db, "alice@players.test", "bob@players.test");
        club
    }

    /// A club with no players yet: its config (with `extra` lines) and
    /// database made by `dopis init`.
    pub fn empty(db: &TestDb, extra: &str) -> Club {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dopis.toml"),
            format!(
                "[mail]\naddress = \"chess@chess.test\"\nsecret = \"crash-test-secret\"\n{extra}\n\n[mail.maildir]\npath = \"mail\"\n"
            ),
        )
        .unwrap();
        let club = Club { dir };
        ok(&dopis(club.path(), db, &["init"]));
        club
    }

    /// Registers a player.
    pub fn add_player(&self, db: &TestDb, email: &str, name: &str) {
        ok(&dopis(
            self.path(),
            db,
            &["player", "add", "--email", email, "--name", name],
        ));
    }

    /// Starts a game; returns its number.
    pub fn new_game(&self, db: &TestDb, white: &str, black: &str) -> i64 {
        ok(&dopis(
            self.path(),
            db,
            &["game", "new", "--white", white, "--black", black],
        ))
        .trim()
        .parse()
        .unwrap()
    }

    /// The club's directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The inbox Maildir.
    pub fn inbox(&self) -> PathBuf {
        self.path().join("mail/inbox")
    }

    /// `dopis serve --once`, optionally dying at a crash point.
    pub fn serve_once(&self, db: &TestDb, crash_at: Option<&str>) -> Output {
        self.serve_once_at(db, crash_at, None)
    }

    /// The same, with the process's clock shifted by `offset` (libfaketime,
    /// e.g. "+10m"), so that leases and retry times can pass.
    pub fn serve_once_at(
        &self,
        db: &TestDb,
        crash_at: Option<&str>,
        offset: Option<&str>,
    ) -> Output {
        let mut cmd = match offset {
            Some(offset) => crate::support::faketime(offset, env!("CARGO_BIN_EXE_dopis")),
            None => Command::new(env!("CARGO_BIN_EXE_dopis")),
        };
        cmd.current_dir(self.path())
            .env_remove("DOPIS_CONFIG")
            .env("DOPIS_DATABASE_URL", &db.url)
            .env("DOPIS_LOG", "warn")
            .args(["serve", "--once"]);
        match crash_at {
            Some(point) => cmd.env("DOPIS_CRASH_AT", point),
            None => cmd.env_remove("DOPIS_CRASH_AT"),
        };
        cmd.output().unwrap()
    }

    /// Every mail dopis wrote to the `sent` Maildir, oldest first.
    pub fn sent_mails(&self) -> Vec<Sent> {
        let dir = self.path().join("mail/sent/new");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort_by_key(|p| {
            (
                std::fs::metadata(p).and_then(|m| m.modified()).ok(),
                p.clone(),
            )
        });
        files
            .iter()
            .map(|p| {
                let raw = std::fs::read(p).unwrap();
                let msg = mail_parser::MessageParser::default().parse(&raw).unwrap();
                let addr = |a: Option<&mail_parser::Address>| {
                    a.and_then(|a| a.first())
                        .and_then(|a| a.address())
                        .map(str::to_string)
                };
                Sent {
                    to: addr(msg.to()).unwrap_or_default(),
                    subject: msg.subject().unwrap_or("").to_string(),
                    message_id: msg.message_id().unwrap_or("").to_string(),
                    reply_to: addr(msg.reply_to()),
                    text: msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The newest mail to `to` about game `game` (its reply address names
    /// the game).
    pub fn newest_in_game(&self, to: &str, game: i64) -> Sent {
        let tag = format!("+g{game}.");
        self.sent_mails()
            .into_iter()
            .rev()
            .find(|m| m.to == to && m.reply_to.as_deref().is_some_and(|r| r.contains(&tag)))
            .unwrap_or_else(|| panic!("no mail to {to} about game {game}"))
    }

    /// Every mail dopis wrote: (recipient, subject, Message-ID, Reply-To).
    pub fn sent(&self) -> Vec<(String, String, String, Option<String>)> {
        self.sent_mails()
            .into_iter()
            .map(|m| (m.to, m.subject, m.message_id, m.reply_to))
            .collect()
    }

    /// A player's newest "your move" mail.
    pub fn your_move(&self, player: &str) -> Sent {
        let sent = self.sent_mails();
        sent.iter()
            .rev()
            .find(|m| m.to == player && m.subject.contains("Your move"))
            .cloned()
            .unwrap_or_else(|| panic!("{player} has no 'your move' mail in {sent:?}"))
    }

    /// A player replies to the newest "your move" mail they got.
    pub fn reply(&self, player: &str, text: &str) {
        self.reply_to_mail(&self.your_move(player), text);
    }

    /// The recipient of a mail replies to it with `text`, as a mail client
    /// does: to its Reply-To, with In-Reply-To naming it.
    pub fn reply_to_mail(&self, mail: &Sent, text: &str) {
        let player = &mail.to;
        let raw = format!(
            "From: {player}\r\nTo: {}\r\nSubject: Re: {}\r\nMessage-ID: <{:016x}@players.test>\r\n\
             In-Reply-To: <{}>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
            mail.reply_to.clone().unwrap_or_default(),
            mail.subject,
            rand::random::<u64>(),
            mail.message_id,
        );
        self.deliver(raw.as_bytes());
    }

    /// Delivers raw bytes into the inbox as a delivery agent does (written
    /// to `tmp/`, renamed into `new/`); returns the file name.
    pub fn deliver(&self, raw: &[u8]) -> String {
        let inbox = self.inbox();
        for sub in ["tmp", "new", "cur"] {
            std::fs::create_dir_all(inbox.join(sub)).unwrap();
        }
        let name = format!("{:016x}.test", rand::random::<u64>());
        std::fs::write(inbox.join("tmp").join(&name), raw).unwrap();
        std::fs::rename(inbox.join("tmp").join(&name), inbox.join("new").join(&name)).unwrap();
        name
    }

    /// The moves of a game, in SAN.
    pub fn moves_of(&self, db: &TestDb, game: i64) -> Vec<String> {
        crate::support::game_shown(self.path(), db, &game.to_string()).0
    }

    /// The moves of game 1.
    pub fn moves(&self, db: &TestDb) -> Vec<String> {
        self.moves_of(db, 1)
    }
}
