//! Crash and restart: the real `dopis serve` process dies at the risky
//! points (as with `kill -9`) and is started again. No accepted move may be
//! lost or applied twice, and every answer goes out at least once, with the
//! same Message-ID when it goes out twice.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{TestDb, dopis, ok};

/// A Maildir-based setup in a temp dir: config, two players, one game.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(db: &TestDb) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dopis.toml"),
            "[mail]\naddress = \"chess@chess.test\"\nsecret = \"crash-test-secret\"\n\n[mail.maildir]\npath = \"mail\"\n",
        )
        .unwrap();
        let d = dir.path();
        ok(&dopis(
            d,
            db,
            &[
                "player",
                "add",
                "--email",
                "alice@players.test",
                "--name",
                "Alice",
            ],
        ));
        ok(&dopis(
            d,
            db,
            &[
                "player",
                "add",
                "--email",
                "bob@players.test",
                "--name",
                "Bob",
            ],
        ));
        ok(&dopis(
            d,
            db,
            &[
                "game",
                "new",
                "--white",
                "alice@players.test",
                "--black",
                "bob@players.test",
            ],
        ));
        Setup { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `dopis serve --once`, optionally dying at a crash point.
    fn serve_once(&self, db: &TestDb, crash_at: Option<&str>) -> Output {
        self.serve_once_at(db, crash_at, None)
    }

    /// The same, with the process's clock shifted by `offset` (libfaketime,
    /// e.g. "+10m"), so that leases and retry times can pass.
    fn serve_once_at(&self, db: &TestDb, crash_at: Option<&str>, offset: Option<&str>) -> Output {
        let mut cmd = match offset {
            Some(offset) => {
                let mut c = Command::new("faketime");
                c.args(["-f", offset, env!("CARGO_BIN_EXE_dopis")]);
                c
            }
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

    /// Every mail dopis wrote to the `sent` Maildir: (recipient, subject, Message-ID, Reply-To).
    fn sent(&self) -> Vec<(String, String, String, Option<String>)> {
        let dir = self.path().join("mail/sent/new");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
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
                (
                    addr(msg.to()).unwrap_or_default(),
                    msg.subject().unwrap_or("").to_string(),
                    msg.message_id().unwrap_or("").to_string(),
                    addr(msg.reply_to()),
                )
            })
            .collect()
    }

    /// A player replies to the newest "your move" mail they got.
    fn reply(&self, player: &str, text: &str) {
        let sent = self.sent();
        let (_, subject, id, reply_to) = sent
            .iter()
            .rev()
            .find(|(to, subject, ..)| to == player && subject.contains("Your move"))
            .unwrap_or_else(|| panic!("{player} has no 'your move' mail in {sent:?}"));
        let raw = format!(
            "From: {player}\r\nTo: {}\r\nSubject: Re: {subject}\r\nMessage-ID: <{:016x}@players.test>\r\n\
             In-Reply-To: <{id}>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
            reply_to.clone().unwrap_or_default(),
            rand::random::<u64>()
        );
        let inbox = self.path().join("mail/inbox");
        let name = format!("{:016x}.test", rand::random::<u64>());
        std::fs::write(inbox.join("tmp").join(&name), raw).unwrap();
        std::fs::rename(inbox.join("tmp").join(&name), inbox.join("new").join(&name)).unwrap();
    }

    fn moves(&self, db: &TestDb) -> Vec<String> {
        let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
            self.path(),
            db,
            &["game", "show", "1", "--format", "json"],
        )))
        .unwrap();
        json["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap().to_string())
            .collect()
    }
}

fn died(out: &Output) -> bool {
    !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("DOPIS_CRASH_AT")
}

async fn a_crash_at_any_risky_point_loses_no_move_and_applies_none_twice(db: &TestDb) {
    let s = Setup::new(db);
    ok(&s.serve_once(db, None));
    assert_eq!(s.sent().len(), 2, "the game's first mails");

    // 1. Dies after the move is committed but before the mail is marked done:
    //    on restart the mail is read again and recognised as handled.
    s.reply("alice@players.test", "e4");
    assert!(died(&s.serve_once(db, Some("after-inbound-commit"))));
    assert_eq!(s.moves(db), vec!["e4"]);
    ok(&s.serve_once(db, None));
    ok(&s.serve_once(db, None));
    assert_eq!(s.moves(db), vec!["e4"], "applied once");
    let to_bob: Vec<_> = s
        .sent()
        .into_iter()
        .filter(|m| m.0 == "bob@players.test" && m.1.contains("Your move"))
        .collect();
    assert_eq!(to_bob.len(), 1, "{to_bob:?}");

    // 2. Dies after sending but before recording the mail as sent: the mail
    //    stays leased for five minutes (so a second daemon would not send it
    //    meanwhile), then goes out again, with the same Message-ID.
    s.reply("bob@players.test", "e5");
    assert!(died(&s.serve_once(db, Some("after-send"))));
    ok(&s.serve_once(db, None));
    let before_lease_ends = s.sent().len();
    ok(&s.serve_once_at(db, None, Some("+10m")));
    assert!(s.sent().len() > before_lease_ends, "resent after the lease");
    assert_eq!(s.moves(db), vec!["e4", "e5"]);
    let sent = s.sent();
    let ids: Vec<&str> = sent.iter().map(|m| m.2.as_str()).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert!(ids.len() > unique.len(), "a mail was sent twice: {ids:?}");
    for id in &unique {
        let copies: Vec<_> = sent.iter().filter(|m| m.2 == *id).collect();
        assert!(
            copies
                .windows(2)
                .all(|w| w[0].0 == w[1].0 && w[0].1 == w[1].1),
            "same mail each time: {copies:?}"
        );
    }

    // 3. Dies inside the transaction, before it commits: nothing of the mail
    //    is in the database, and the restart applies it once.
    s.reply("alice@players.test", "Nf3");
    assert!(died(&s.serve_once(db, Some("before-inbound-commit"))));
    assert_eq!(s.moves(db), vec!["e4", "e5"], "nothing half-done");
    ok(&s.serve_once(db, None));
    assert_eq!(s.moves(db), vec!["e4", "e5", "Nf3"]);
    ok(&s.serve_once(db, None));
    assert_eq!(s.moves(db), vec!["e4", "e5", "Nf3"]);
}

crate::on_both_backends!(a_crash_at_any_risky_point_loses_no_move_and_applies_none_twice);
