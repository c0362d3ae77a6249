//! The daemon reading a Maildir inbox, on both databases: every file in
//! `new/` is read whatever its time or name, timed by its delivery, and a
//! mail that cannot be moved to `cur/` is handled once, not again and again.

use std::path::PathBuf;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, TimeZone, Utc};
use tokio::sync::watch;

use dopis::adapter::config::{MailConfig, MaildirConfig};
use dopis::adapter::store::games::GameStatus;
use dopis::daemon::mailbox::{Mailbox, MaildirMailbox};
use dopis::daemon::mailer::Mailer;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;

use crate::support::TestDb;
use crate::support::app::TestApp;

/// A receive that takes longer than this is a daemon spinning on a mail.
const HANG_GUARD: StdDuration = StdDuration::from_secs(60);

fn start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap()
}

/// Alice (White) and Bob (Black) in a game, Carol with none, a daemon with
/// a Maildir inbox and a clock the test moves.
struct World {
    _dir: tempfile::TempDir,
    inbox: PathBuf,
    app: TestApp,
    mailbox: Mailbox,
    alice: Player,
    bob: Player,
    carol: Player,
    game: GameId,
}

impl World {
    async fn new(db: &TestDb) -> World {
        let dir = tempfile::tempdir().unwrap();
        let inbox = dir.path().join("inbox");
        let app = TestApp::builder()
            .at(start())
            .secret("a maildir test secret")
            .answers_per_hour(100)
            .mailbox_name("maildir:test")
            .open(db)
            .await;
        let alice = app
            .player("alice@players.test", "Alice", Lang::En, None)
            .await;
        let bob = app.player("bob@players.test", "Bob", Lang::En, None).await;
        let carol = app
            .player("carol@players.test", "Carol", Lang::En, None)
            .await;
        let game = app.game(&alice, &bob, TimeControl::default()).await;
        let mailbox = Mailbox::Maildir(MaildirMailbox::open(&inbox).await.unwrap());
        World {
            _dir: dir,
            inbox,
            app,
            mailbox,
            alice,
            bob,
            carol,
            game,
        }
    }

    /// Writes `from`'s mail saying `text` into `tmp/`, as a delivery agent
    /// does, with the delivery time `at`; returns its file name. To the
    /// game's reply address for a player of the game, else to the plain
    /// address.
    fn write(&self, from: &Player, text: &str, at: DateTime<Utc>) -> String {
        let to = if from.id == self.alice.id || from.id == self.bob.id {
            self.app.reply_address(self.game, from)
        } else {
            "chess@chess.test".to_string()
        };
        let raw = format!(
            "From: {} <{}>\r\nTo: {to}\r\nSubject: Re: [dopis #{}]\r\n\
             Message-ID: <{:016x}@players.test>\r\n\r\n{text}\r\n",
            from.name,
            from.email,
            self.game.0,
            rand::random::<u64>()
        );
        let name = format!("{}.{:08x}.mda", at.timestamp(), rand::random::<u32>());
        let path = self.inbox.join("tmp").join(&name);
        std::fs::write(&path, raw).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(at.into())
            .unwrap();
        name
    }

    /// Renames a written mail from `tmp/` into `new/`: delivered.
    fn deliver(&self, name: &str) {
        std::fs::rename(
            self.inbox.join("tmp").join(name),
            self.inbox.join("new").join(name),
        )
        .unwrap();
    }

    /// One read of the mailbox as a daemon pass does it, at `now`.
    async fn receive(&mut self, now: DateTime<Utc>) -> anyhow::Result<usize> {
        self.app.set(now);
        let (_stop, shutdown) = watch::channel(false);
        tokio::time::timeout(
            HANG_GUARD,
            self.app.daemon.receive(&mut self.mailbox, &shutdown),
        )
        .await
        .expect("the daemon spun on the mailbox")
        .map(|(handled, _failed)| handled)
    }

    /// The moves played, with when each reached the mailbox.
    async fn moves(&self) -> Vec<(String, Option<DateTime<Utc>>)> {
        let game = self.app.game_row(self.game).await;
        game.moves
            .iter()
            .map(|m| (m.san.clone(), m.received_at))
            .collect()
    }

    fn files(&self, sub: &str) -> usize {
        std::fs::read_dir(self.inbox.join(sub)).unwrap().count()
    }
}

fn at(hours: i64) -> DateTime<Utc> {
    start() + Duration::hours(hours)
}

async fn a_reply_renamed_into_new_after_a_later_mail_was_handled_is_still_read(db: &TestDb) {
    let mut w = World::new(db).await;
    let (alice, bob, carol) = (w.alice.clone(), w.bob.clone(), w.carol.clone());
    let e4 = w.write(&alice, "e4", at(1));
    w.deliver(&e4);
    assert_eq!(w.receive(at(1)).await.unwrap(), 1);
    // Bob's reply is written at 3 h, but its delivery agent renames it into
    // new/ only after Carol's mail of 4 h has come and been handled (a large
    // mail, a second delivery agent, a restore).
    let e5 = w.write(&bob, "e5", at(3));
    let games = w.write(&carol, "games", at(4));
    w.deliver(&games);
    assert_eq!(w.receive(at(5)).await.unwrap(), 1);
    w.deliver(&e5);
    assert_eq!(w.receive(at(6)).await.unwrap(), 1, "Bob's reply is read");
    assert_eq!(
        w.moves().await,
        vec![("e4".into(), Some(at(1))), ("e5".into(), Some(at(3)))],
        "played, timed by its delivery"
    );
    assert_eq!((w.files("new"), w.files("cur")), (0, 3));
}

async fn a_mail_that_cannot_be_moved_to_cur_is_handled_once_and_the_rest_goes_on(db: &TestDb) {
    let mut w = World::new(db).await;
    let (alice, carol) = (w.alice.clone(), w.carol.clone());
    // cur/ is not a folder: no mail can be moved there (even as root).
    let cur = w.inbox.join("cur");
    std::fs::remove_dir(&cur).unwrap();
    std::fs::write(&cur, b"not a folder").unwrap();
    for (who, text, hours) in [(&alice, "e4", 1), (&carol, "games", 2)] {
        let name = w.write(who, text, at(hours));
        w.deliver(&name);
    }
    let mails_before = w.app.outbox_rows().await.len();
    assert_eq!(
        w.receive(at(3)).await.unwrap(),
        2,
        "both are handled though neither can be moved"
    );
    assert_eq!(w.moves().await, vec![("e4".into(), Some(at(1)))]);
    let answered = w.app.outbox_rows().await.len();
    assert!(answered > mails_before, "the mails are answered");
    // Later passes do not handle them again.
    for hours in 4..8 {
        assert_eq!(w.receive(at(hours)).await.unwrap(), 0);
    }
    assert_eq!(w.app.outbox_rows().await.len(), answered);
    assert_eq!(w.files("new"), 2, "still there, unread");
    // Once cur/ is a folder again they are moved, still not handled again.
    std::fs::remove_file(&cur).unwrap();
    std::fs::create_dir(&cur).unwrap();
    assert_eq!(w.receive(at(9)).await.unwrap(), 0);
    assert_eq!((w.files("new"), w.files("cur")), (0, 2));
    assert_eq!(w.moves().await.len(), 1);
}

async fn a_mail_whose_file_time_is_in_the_future_counts_as_read_now(db: &TestDb) {
    let mut w = World::new(db).await;
    let alice = w.alice.clone();
    // A file time far ahead (a clock set wrong, a touched file) would have
    // charged Alice for decades and lost her the game on time.
    let e4 = w.write(
        &alice,
        "e4",
        Utc.with_ymd_and_hms(2100, 1, 1, 0, 0, 0).unwrap(),
    );
    w.deliver(&e4);
    assert_eq!(w.receive(at(2)).await.unwrap(), 1);
    assert_eq!(w.moves().await, vec![("e4".into(), Some(at(2)))]);
    let game = w.app.game_row(w.game).await;
    assert_eq!(game.status, GameStatus::Active);
}

async fn with_a_long_inbox_the_first_reply_is_sent_before_the_last_mail_is_read(db: &TestDb) {
    use std::os::unix::fs::MetadataExt;
    let mut w = World::new(db).await;
    let carol = w.carol.clone();
    // Twenty questions from Carol, each answered by a mail.
    for hours in 1..=20 {
        let name = w.write(&carol, "games", at(hours));
        w.deliver(&name);
    }
    w.app.set(at(21));
    let sent_dir = w._dir.path().join("out");
    let mailer = Mailer::open(&MailConfig {
        maildir: MaildirConfig {
            path: sent_dir.clone(),
        },
        ..MailConfig::default()
    })
    .unwrap();
    let (_stop, shutdown) = watch::channel(false);
    let pass = tokio::time::timeout(
        HANG_GUARD,
        w.app.daemon.pass(&mut w.mailbox, &mailer, &shutdown),
    )
    .await
    .expect("the pass ended")
    .unwrap();
    assert_eq!(pass.received, 20);
    // The game's first two mails, and an answer to each question.
    assert_eq!(pass.sent, 22, "every question answered");
    let nanos = |m: &std::fs::Metadata, changed: bool| {
        if changed {
            i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec())
        } else {
            i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec())
        }
    };
    let times = |dir: PathBuf, changed: bool| -> Vec<i128> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| nanos(&e.unwrap().metadata().unwrap(), changed))
            .collect()
    };
    // A mail is moved into cur/ (its ctime) once it is handled; a reply
    // is written into sent/new/ when it is sent.
    let last_read = times(w.inbox.join("cur"), true).into_iter().max().unwrap();
    let first_sent = times(sent_dir.join("sent").join("new"), false)
        .into_iter()
        .min()
        .unwrap();
    assert!(
        first_sent < last_read,
        "the first reply went out {} µs after the last mail was handled",
        (first_sent - last_read) / 1000
    );
}

crate::on_both_backends!(
    a_reply_renamed_into_new_after_a_later_mail_was_handled_is_still_read,
    a_mail_that_cannot_be_moved_to_cur_is_handled_once_and_the_rest_goes_on,
    a_mail_whose_file_time_is_in_the_future_counts_as_read_now,
    with_a_long_inbox_the_first_reply_is_sent_before_the_last_mail_is_read,
);
