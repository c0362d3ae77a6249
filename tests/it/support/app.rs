//! The app in-process, on a database of its own and a clock the test
//! moves: the one place the tests build the daemon's parts, so that a test
//! file says what it tests and not how the parts fit together.

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use tokio::sync::watch;

use dopis::adapter::config::{MailConfig, Secret};
use dopis::adapter::store::Store;
use dopis::adapter::store::games::GameRecord;
use dopis::adapter::store::outbox::OutboxStatus;
use dopis::daemon::mailbox::{Incoming, MailRef};
use dopis::daemon::run::Daemon;
use dopis::domain::address::EmailAddress;
use dopis::domain::chess::game::StartPosition;
use dopis::domain::clock::{Allowance, ReminderPlan, TimeControl};
use dopis::domain::ids::EventId;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::{NewPlayer, Player, PlayerId};
use dopis::service::app::Settings;
use dopis::service::app::{Clock, FixedClock, SystemClock};
use dopis::service::inbox::{Handled, Inbox};
use dopis::service::post::Post;

use super::TestDb;
use super::mail::Sent;

/// The app: its store, its clock and the daemon's parts.
pub struct TestApp {
    /// The database.
    pub store: Store,
    /// The clock the test moves (the daemon's clock unless the builder
    /// asked for the system clock).
    pub clock: Arc<FixedClock>,
    /// Inbound handling, the scheduler, the outbox.
    pub daemon: Daemon,
}

/// How to build a [`TestApp`]: the defaults are those most tests share.
pub struct TestAppBuilder {
    at: DateTime<Utc>,
    pages: Option<String>,
    mail: MailConfig,
    settings: Settings,
    mailbox_name: String,
    system_clock: bool,
}

impl TestApp {
    /// Our address `chess@chess.test`, a test secret, the clock at
    /// 2026-11-29 12:00 UTC, 1000 answers an hour, default leave and reminders.
    pub fn builder() -> TestAppBuilder {
        TestAppBuilder {
            at: Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap(),
            pages: None,
            mail: MailConfig {
                address: "chess@chess.test".into(),
                secret: Secret::new("test-secret"),
                ..MailConfig::default()
            },
            settings: Settings {
                answers_per_hour: 1000,
                allowance: Allowance::default(),
                plan: ReminderPlan::default(),
                tables: std::sync::Arc::new(dopis::domain::chess::tablebase::NoTables),
            },
            mailbox_name: "test".into(),
            system_clock: false,
        }
    }

    /// Addresses, tokens and composing.
    pub fn post(&self) -> &Post {
        &self.daemon.inbox.post
    }

    /// Inbound handling.
    pub fn inbox(&self) -> &Inbox {
        &self.daemon.inbox
    }

    /// The clock's time.
    pub fn now(&self) -> DateTime<Utc> {
        self.daemon.clock.now()
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        assert!(by >= Duration::zero(), "time runs forward");
        self.clock.advance(by);
    }

    /// Sets the clock to `t`, which may not be earlier than now.
    pub fn set(&self, t: DateTime<Utc>) {
        let now = self.clock.now();
        assert!(t >= now, "time runs forward");
        self.clock.advance(t - now);
    }

    /// Registers a player.
    pub async fn player(&self, email: &str, name: &str, lang: Lang, tz: Option<&str>) -> Player {
        let new = NewPlayer::new(EmailAddress::parse(email).unwrap(), name, lang, tz).unwrap();
        self.store.add_player(&new, self.now()).await.unwrap()
    }

    /// Starts a game from the standard position (its first mails queued).
    pub async fn game(&self, white: &Player, black: &Player, control: TimeControl) -> GameId {
        self.game_from(white, black, StartPosition::Standard, control)
            .await
    }

    /// Starts a game from `start` (its first mails queued).
    pub async fn game_from(
        &self,
        white: &Player,
        black: &Player,
        start: StartPosition,
        control: TimeControl,
    ) -> GameId {
        dopis::service::start::start_game(
            &self.store,
            self.post(),
            white.id,
            black.id,
            start,
            control,
            self.now(),
        )
        .await
        .unwrap()
    }

    /// Creates an event from the text of its event file and starts it
    /// (its games' first mails queued).
    pub async fn event(&self, file: &str) -> (EventId, Vec<GameId>) {
        let mut tx = self.store.begin().await.unwrap();
        let event = dopis::service::td::create(&mut tx, file, self.now())
            .await
            .unwrap();
        let games = dopis::service::td::start(&mut tx, self.post(), event, self.now())
            .await
            .unwrap();
        tx.commit().await.unwrap();
        (event, games)
    }

    /// A player's reply address in a game (with its token).
    pub fn reply_address(&self, game: GameId, player: &Player) -> String {
        self.post().reply_to(game, player).to_string()
    }

    /// A mail that reaches the mailbox now and is handled at once.
    pub async fn deliver(&self, raw: &[u8]) -> Handled {
        self.deliver_at(raw, self.now()).await
    }

    /// A mail that reached the mailbox at `arrived`, handled now the way
    /// the daemon handles every mail (a batch of one). A mail cannot be
    /// read before it arrives: one that arrives after the clock's time is
    /// handled as the clock will read then, the clock left as it is.
    pub async fn deliver_at(&self, raw: &[u8], arrived: DateTime<Utc>) -> Handled {
        if arrived > self.now() {
            return self.deliver_as_at(raw, arrived).await;
        }
        self.handle(raw, arrived).await
    }

    /// A mail handled as if the clock read `at` (it arrived then), the
    /// clock left as it is: for tests that name their instants.
    pub async fn deliver_as_at(&self, raw: &[u8], at: DateTime<Utc>) -> Handled {
        let now = self.clock.now();
        self.clock.advance(at - now);
        let handled = self.handle(raw, at).await;
        self.clock.advance(now - at);
        handled
    }

    /// The daemon's way with one mail that arrived at `arrived`.
    async fn handle(&self, raw: &[u8], arrived: DateTime<Utc>) -> Handled {
        let mail = Incoming {
            key: MailRef::Maildir {
                name: "test".into(),
            },
            raw: raw.to_vec(),
            head: Vec::new(),
            received_at: arrived,
            oversized: None,
        };
        self.daemon.handle_one(&mail).await.unwrap()
    }

    /// The daily deadline reports due at `at`; how many events got one.
    pub async fn daily_reports(&self, at: DateTime<Utc>) -> usize {
        self.daemon
            .scheduler
            .daily_reports(&self.store, at)
            .await
            .unwrap()
    }

    /// One scheduler run over every game that is due; how many it handled.
    pub async fn schedule(&self) -> usize {
        let (_stop, shutdown) = watch::channel(false);
        self.daemon.schedule(&shutdown).await.unwrap()
    }

    /// Closes the entries of the events whose time has come, as the
    /// daemon's pass does; how many closed.
    pub async fn close_entries(&self) -> usize {
        self.daemon.entries().await.unwrap()
    }

    /// Makes the move of the consultation games whose votes closed, as
    /// the daemon's pass does; how many moves were made.
    pub async fn close_votes(&self) -> usize {
        self.daemon.votes().await.unwrap()
    }

    /// Opens an event for entries from the text of its file (`dopis event
    /// open`); how many players were told.
    pub async fn open_event(&self, file: &str) -> (EventId, usize) {
        let mut tx = self.store.begin().await.unwrap();
        let opened = dopis::service::entries::open(&mut tx, self.post(), file, self.now())
            .await
            .unwrap();
        tx.commit().await.unwrap();
        opened
    }

    /// The daily digests that are due; how many were queued.
    pub async fn digests(&self) -> usize {
        self.daemon.digests().await.unwrap()
    }

    /// Every mail that may be sent, as the sender takes them (a paused
    /// player's held mail stays), parsed and marked sent: each is seen once.
    pub async fn sent(&self) -> Vec<Sent> {
        let far = self.now() + Duration::days(400);
        let mut out = Vec::new();
        loop {
            let batch = self
                .store
                .claim_outbox(far, Duration::days(1000), 100)
                .await
                .unwrap();
            if batch.is_empty() {
                return out;
            }
            for mail in batch {
                out.push(Sent::parse(&mail.mail_key, &mail.recipient, &mail.raw));
                self.store
                    .outbox_sent(&[(&mail, self.now())])
                    .await
                    .unwrap();
            }
        }
    }

    /// Every row of the outbox, oldest first, whatever its state; nothing
    /// is claimed.
    pub async fn outbox_rows(&self) -> Vec<OutboxStatus> {
        self.store.outbox().await.unwrap()
    }

    /// A game's row with its moves.
    pub async fn game_row(&self, id: GameId) -> GameRecord {
        self.store.game(id).await.unwrap()
    }

    /// A registered player, by address.
    pub async fn player_by_email(&self, email: &str) -> Player {
        self.store
            .player_by_email(&EmailAddress::parse(email).unwrap())
            .await
            .unwrap()
    }

    /// A player as stored now.
    pub async fn player_row(&self, id: PlayerId) -> Player {
        self.store.player(id).await.unwrap()
    }

    /// Closes the database (a test that opens many apps in a row).
    pub async fn close(&self) {
        self.store.close().await;
    }

    /// The SAN of a game's moves.
    pub async fn moves(&self, id: GameId) -> Vec<String> {
        self.game_row(id)
            .await
            .moves
            .iter()
            .map(|m| m.san.clone())
            .collect()
    }
}

impl TestAppBuilder {
    /// The clock's first reading.
    pub fn at(mut self, at: DateTime<Utc>) -> Self {
        self.at = at;
        self
    }

    /// The web pages' address (`[web] base_url`): mails link to them.
    pub fn pages(mut self, base: &str) -> Self {
        self.pages = Some(base.to_owned());
        self
    }

    /// The daemon reads the real clock (for tests that mix in the CLI,
    /// which does); `TestApp::clock` is then not the daemon's.
    pub fn system_clock(mut self) -> Self {
        self.system_clock = true;
        self
    }

    /// The mail settings as a whole (a test on the real mail system).
    pub fn mail_config(mut self, mail: MailConfig) -> Self {
        self.mail = mail;
        self
    }

    /// Our address.
    pub fn address(mut self, address: &str) -> Self {
        self.mail.address = address.into();
        self
    }

    /// Our display name.
    pub fn name(mut self, name: &str) -> Self {
        self.mail.name = name.into();
        self
    }

    /// The secret of the reply tokens.
    pub fn secret(mut self, secret: &str) -> Self {
        self.mail.secret = Secret::new(secret);
        self
    }

    /// Answers per hour to one address.
    pub fn answers_per_hour(mut self, n: u32) -> Self {
        self.settings.answers_per_hour = n;
        self
    }

    /// Mail must carry an aligned DKIM pass, looked up at these servers.
    pub fn require_dkim(mut self, dns_servers: Vec<String>) -> Self {
        self.mail.require_dkim = true;
        self.mail.dns_servers = dns_servers;
        self
    }

    /// Hard bounces that pause a player, and over how many days.
    pub fn bounces(mut self, to_pause: u32, days: u32) -> Self {
        self.mail.bounces_to_pause = to_pause;
        self.mail.bounce_days = days;
        self
    }

    /// The endgame tables claims are judged on (none by default).
    pub fn tables(mut self, tables: Arc<dyn dopis::domain::chess::tablebase::Tables>) -> Self {
        self.settings.tables = tables;
        self
    }

    /// The name under which the mailbox cursor is kept.
    pub fn mailbox_name(mut self, name: &str) -> Self {
        self.mailbox_name = name.into();
        self
    }

    /// Opens the app on `db`.
    pub async fn open(self, db: &TestDb) -> TestApp {
        let store = Store::open(&db.url).await.unwrap();
        let clock = Arc::new(FixedClock::new(self.at));
        let daemon_clock: Arc<dyn Clock> = if self.system_clock {
            Arc::new(SystemClock)
        } else {
            clock.clone()
        };
        let post = Post::new(&self.mail).unwrap().with_pages(self.pages);
        let daemon = Daemon::new(
            store.clone(),
            daemon_clock,
            post,
            &self.settings,
            self.mailbox_name,
        );
        TestApp {
            store,
            clock,
            daemon,
        }
    }
}

/// Every row of the outbox of a database the CLI or `dopis serve` wrote,
/// oldest first; nothing is claimed.
pub async fn outbox_rows_of(db: &TestDb) -> Vec<OutboxStatus> {
    let store = Store::open(&db.url).await.unwrap();
    let rows = store.outbox().await.unwrap();
    store.close().await;
    rows
}
