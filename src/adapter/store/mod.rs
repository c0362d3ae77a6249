//! The database: SQLite (the embedded default) or PostgreSQL.
//!
//! Every query is written once, in portable SQL, and runs unchanged on both
//! databases through one small query API ([`sql`]), so they cannot drift
//! apart, and the tests run the same code on both. Under it, SQLite runs on
//! rusqlite on the calling thread and PostgreSQL on sqlx's `Any` driver
//! ([`sql`] says why). The price of one API is no chrono types and no
//! compile-time checked queries: all times are stored as BIGINT
//! milliseconds since the Unix epoch (UTC), all integers as BIGINT, and the
//! few statements that must differ (DDL, row locking) branch on
//! [`Backend`].
//!
//! **Speed (issue 27).** `dopis bench --only e2e`: 2,016 games, one move
//! mail each, Maildir → SQLite → both reply mails written, one `serve
//! --once`, on this 2-core machine, quiet. Before: 158–206 move mails/s,
//! 4.3–5.4 ms CPU a mail (44% of it handing statements to sqlx's SQLite
//! worker thread and back). After: about 500 move mails/s, 1.9 ms CPU a
//! mail. What did it, in the order it was done, each measured alone:
//! statements on rusqlite on the calling thread (4.7 → 4.3 ms); the Maildir
//! read, moved and written with plain calls and mails recorded as sent a
//! batch at a time, one commit each (→ 2.6 ms); the boards' PNG deflated by
//! a compressor kept per thread (→ 2.1 ms); a move planning its game's next
//! look itself instead of leaving it to a second load by the scheduler,
//! and both players' leave and ratings read in one statement each (→ 1.9
//! ms). PostgreSQL on the same run: 110–114 → 168 move mails/s. The two migration sets in `migrations/sqlite` and
//! `migrations/postgres` carry the same versions and names and differ only
//! in DDL dialect.
//!
//! One file per table (or group of tables), each query written once; a
//! [`Tx`] is one transaction, so a change and the mails it causes commit
//! together or not at all.
//!
//! - [`players`]: players, their language, digest choice and pause.
//! - [`games`]: games and their moves; [`schedule`]: the games' schedule
//!   columns and what the deadline report reads of them.
//! - [`events`]: events, their TDs, teams and entrants; [`td_log`]: TD
//!   actions and deadline extensions.
//! - [`inbound`]: the inbound log, confirmations, the mailbox cursor.
//! - [`outbox`]: the mails to send, their leases and results.
//! - [`clocks`]: leave, the scheduler's due keys, report runs, digests sent.
//! - [`digest_games`]: the games each daily digest told of, and their positions.
//! - [`game_messages`]: messages between the players, kept with their games.
//! - [`ratings`]: the rating list and the history of its changes.
//! - [`bounces`]: hard bounces per player.
//! - [`locks`]: advisory locks on a session of their own.
//! - [`bench`](mod@bench): seeding a scratch database for `dopis bench`.
//! - [`failures`]: mails whose handling failed, scheduler work that failed.
//! - [`privacy`]: forgetting a player, pruning old mail bodies and inbound records.
//! - [`dump`]: whole tables read and written column by column (export, import).
//! - [`xfcc`]: XFCC password hashes, all of a player's games.
//! - [`unsubscribes`]: one-click unsubscribe links used, each once.

pub mod bench;
pub mod bounces;
pub mod clocks;
pub mod consultation;
pub mod digest_games;
pub mod dump;
pub mod entries;
pub mod events;
pub mod failures;
pub mod game_messages;
pub mod games;
pub mod health;
pub mod inbound;
pub mod locks;
pub mod outbox;
pub mod players;
pub mod privacy;
pub mod qualifications;
pub mod ratings;
pub mod schedule;
pub mod sql;
pub mod td_log;
pub mod unsubscribes;
pub mod xfcc;

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyConnection, Connection, Executor};

/// Which database engine a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// SQLite: one file, the embedded default.
    Sqlite,
    /// PostgreSQL (or a compatible server).
    Postgres,
}

/// An open, migrated database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: sql::Pool,
    backend: Backend,
    /// The URL connections are made with (holds the password: never shown).
    connect_url: std::sync::Arc<str>,
}

/// Why a storage operation failed, by what the caller does next.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL names no supported database.
    #[error(
        "database URL '{url}' is not supported: use sqlite://FILE or postgres://USER@HOST/DB \
         (set [database] url in the config, DOPIS_DATABASE_URL, or --database)"
    )]
    UnsupportedUrl {
        /// The URL, password hidden.
        url: String,
    },
    /// The database could not be opened or reached.
    #[error(
        "cannot open database {url}: {reason} (check that it exists and is reachable, or set \
         [database] url in the config, DOPIS_DATABASE_URL, or --database)"
    )]
    Open {
        /// The URL, password hidden.
        url: String,
        /// What the driver said.
        reason: String,
    },
    /// The database exists, or could, but `dopis init` never set it up:
    /// refused rather than made into an empty one, which would look like a
    /// club without players or games.
    #[error(
        "database {url} has not been set up for dopis ({reason}): run `dopis init` to set it up, \
         or name the right database (--database URL, --config FILE, [database] url in the \
         config file, or DOPIS_DATABASE_URL)"
    )]
    NotSetUp {
        /// The URL, password hidden.
        url: String,
        /// What was found instead: no file, or no dopis tables.
        reason: String,
    },
    /// A newer dopis upgraded the database past what this binary knows.
    #[error(
        "the database {url} was upgraded by a newer dopis (its schema is at version {found}, \
         this dopis {ours} knows versions up to {known}): run the newer dopis, or restore a \
         backup taken before the upgrade. Nothing was changed"
    )]
    TooNew {
        /// The URL, password hidden.
        url: String,
        /// The newest migration the database has applied.
        found: i64,
        /// The newest migration this binary carries.
        known: i64,
        /// This binary's version.
        ours: String,
    },
    /// The schema could not be brought up to date.
    #[error("cannot update the database schema of {url}: {reason}")]
    Migrate {
        /// The URL, password hidden.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// No player is registered with that address.
    #[error(
        "no player with e-mail {0}: register them with `dopis player add --email {0} --name NAME`"
    )]
    UnknownPlayer(String),
    /// A player with that address exists already.
    #[error("a player with e-mail {0} already exists: `dopis player show {0}` shows them")]
    DuplicatePlayer(String),
    /// No game has that id.
    #[error("no game #{0}: `dopis game list` shows the games there are")]
    UnknownGame(i64),
    /// No event has that id.
    #[error("no event #{0}: `dopis event list` shows the events there are")]
    UnknownEvent(i64),
    /// Stored data that the program cannot read back (a bug or a hand edit).
    #[error("the database holds data dopis cannot read: {0}")]
    Corrupt(String),
    /// Any other database failure.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// A failure of SQLite (which runs on rusqlite, see [`sql`]).
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// What a failure says about its cause, for the daemon to decide whether
/// one item (a mail, a game) is at fault and must be set aside, or the
/// database itself is away and everything must wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blame {
    /// The database is unreachable, restarting, full or busy: nothing is
    /// wrong with the item; try everything again later.
    Outage,
    /// The item's data cannot be stored or read (a text PostgreSQL refuses,
    /// a broken row): trying again will fail again.
    Item,
    /// Neither is clear (a serialization failure, an unexpected error):
    /// try the item again a few times, then set it aside.
    Unsure,
}

impl StoreError {
    /// What this failure says about its cause.
    pub fn blame(&self) -> Blame {
        match self {
            StoreError::Database(e) => blame_sqlx(e),
            StoreError::Sqlite(e) => blame_rusqlite(e),
            StoreError::Open { .. } => Blame::Outage,
            StoreError::Migrate { .. }
            | StoreError::TooNew { .. }
            | StoreError::UnsupportedUrl { .. }
            | StoreError::NotSetUp { .. } => Blame::Outage,
            StoreError::Corrupt(_)
            | StoreError::UnknownGame(_)
            | StoreError::UnknownPlayer(_)
            | StoreError::UnknownEvent(_)
            | StoreError::DuplicatePlayer(_) => Blame::Item,
        }
    }
}

fn blame_sqlx(e: &sqlx::Error) -> Blame {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Configuration(_) => Blame::Outage,
        sqlx::Error::RowNotFound
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::ColumnIndexOutOfBounds { .. }
        | sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Decode(_)
        | sqlx::Error::Encode(_) => Blame::Item,
        sqlx::Error::Database(db) => {
            let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
            if db
                .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                .is_some()
            {
                blame_sqlstate(&code)
            } else {
                // A SQLite result code; the extended code's low byte is the primary one.
                code.parse::<u32>()
                    .map_or(Blame::Unsure, |n| blame_sqlite(n & 0xff))
            }
        }
        _ => Blame::Unsure,
    }
}

fn blame_rusqlite(e: &rusqlite::Error) -> Blame {
    match e {
        // The extended code's low byte is the primary one.
        rusqlite::Error::SqliteFailure(failure, _) => {
            blame_sqlite(u32::try_from(failure.extended_code).unwrap_or(0) & 0xff)
        }
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..)
        | rusqlite::Error::Utf8Error(..)
        | rusqlite::Error::NulError(..)
        | rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::ToSqlConversionFailure(..) => Blame::Item,
        _ => Blame::Unsure,
    }
}

/// PostgreSQL's SQLSTATE classes (the first two characters).
fn blame_sqlstate(code: &str) -> Blame {
    match code.get(..2).unwrap_or("") {
        // connection exception, insufficient resources, operator
        // intervention (shutdown), system error
        "08" | "53" | "57" | "58" => Blame::Outage,
        // data exception (e.g. 22021: a NUL in a text), integrity constraint
        "22" | "23" => Blame::Item,
        _ => Blame::Unsure,
    }
}

/// SQLite's primary result codes.
fn blame_sqlite(primary: u32) -> Blame {
    match primary {
        // BUSY, LOCKED, NOMEM, READONLY, IOERR, FULL, CANTOPEN, PROTOCOL
        5 | 6 | 7 | 8 | 10 | 13 | 14 | 15 => Blame::Outage,
        // TOOBIG, CONSTRAINT, MISMATCH, RANGE
        18 | 19 | 20 | 25 => Blame::Item,
        _ => Blame::Unsure,
    }
}

/// Hides the password in a database URL, for messages and logs.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            if userinfo.contains(':') {
                format!("{scheme}://{user}:***@{host}{path}")
            } else {
                format!("{scheme}://{user}@{host}{path}")
            }
        }
        None => url.to_string(),
    }
}

/// The file of a SQLite URL (`sqlite://FILE?…` or `sqlite:FILE`); `None`
/// for another database or an in-memory one.
fn sqlite_path(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite:")?;
    let path = rest.strip_prefix("//").unwrap_or(rest);
    let path = path.split('?').next().unwrap_or(path);
    (!path.is_empty() && !path.contains(":memory:")).then(|| path.into())
}

/// What opening a database may do to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setup {
    /// Create it (a SQLite file) and its tables where missing: `dopis init`,
    /// the demo, tests.
    Create,
    /// Only a database dopis set up before; its schema is still updated.
    Existing,
}

impl Store {
    /// Opens (creating a SQLite file if missing) and migrates a database:
    /// for `dopis init`, the demo and tests.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        Store::open_as(url, Setup::Create).await
    }

    /// Opens and migrates a database that `dopis init` set up before, and
    /// refuses any other ([`StoreError::NotSetUp`]): a SQLite file that
    /// does not exist is not created, a database without dopis's tables is
    /// left as it is. Every command but `init` opens its database so, so a
    /// wrong path or URL is an error, not an empty club.
    pub async fn open_existing(url: &str) -> Result<Store, StoreError> {
        Store::open_as(url, Setup::Existing).await
    }

    async fn open_as(url: &str, setup: Setup) -> Result<Store, StoreError> {
        install_default_drivers();
        let shown = redact_url(url);
        if setup == Setup::Existing
            && let Some(file) = sqlite_path(url)
            && !file.exists()
        {
            return Err(StoreError::NotSetUp {
                url: shown,
                reason: format!("there is no file {}", file.display()),
            });
        }
        let (backend, connect_url) = if let Some(rest) = url.strip_prefix("sqlite:") {
            // sqlx opens SQLite read-write without creating the file unless told.
            let connect = if rest.contains("mode=") || rest.contains(":memory:") {
                url.to_string()
            } else if rest.contains('?') {
                format!("{url}&mode=rwc")
            } else {
                format!("{url}?mode=rwc")
            };
            (Backend::Sqlite, connect)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_string())
        } else {
            return Err(StoreError::UnsupportedUrl { url: shown });
        };
        match backend {
            Backend::Postgres => {
                // One plain connection first: when the server is unreachable
                // its error says why ("connection refused"), where the pool
                // would retry until it only said it timed out.
                let _ = connect_one(&connect_url, &shown).await?.close().await;
                // The pool opens no connection of its own to test (`connect`
                // would, and hand it back only after a round trip, so the
                // first statement opened a second one): set-up takes the
                // first and checks with it.
                let pool =
                    pool_options()
                        .connect_lazy(&connect_url)
                        .map_err(|e| StoreError::Open {
                            url: shown.clone(),
                            reason: describe_open_error(&e),
                        })?;
                let store = Store {
                    pool: sql::Pool::Any(pool.clone()),
                    backend,
                    connect_url: connect_url.into(),
                };
                let prepared = match pool.acquire().await {
                    Ok(mut conn) => store.prepare(&mut conn, &shown, setup).await,
                    Err(e) => Err(StoreError::Open {
                        url: shown.clone(),
                        reason: describe_open_error(&e),
                    }),
                };
                if let Err(e) = prepared {
                    // Closed like every store a command opens (see [`Store::close`]).
                    store.close().await;
                    return Err(e);
                }
                Ok(store)
            }
            Backend::Sqlite => {
                // Set up (WAL, migrations) on one sqlx connection, the one
                // thing sqlx still does on SQLite (its migrator); every
                // statement after runs on the rusqlite pool (see [`sql`]).
                let Some(file) = sqlite_path(url) else {
                    return Err(StoreError::Open {
                        url: shown,
                        reason: "an in-memory database cannot be shared by the daemon's \
                                 connections: name a file (sqlite://dopis.db)"
                            .to_string(),
                    });
                };
                let mut conn = connect_one(&connect_url, &shown).await?;
                let mode = url
                    .split_once('?')
                    .and_then(|(_, q)| q.split('&').find_map(|kv| kv.strip_prefix("mode=")));
                let pool = std::sync::Arc::new(sql::SqlitePool::new(
                    &file.to_string_lossy(),
                    setup == Setup::Create && mode.is_none(),
                    mode,
                ));
                let store = Store {
                    pool: sql::Pool::Sqlite(pool),
                    backend,
                    connect_url: connect_url.into(),
                };
                let prepared = store.prepare(&mut conn, &shown, setup).await;
                let _ = conn.close().await;
                prepared?;
                Ok(store)
            }
        }
    }

    /// Switches SQLite to WAL and brings the schema up to date; with
    /// `Setup::Existing`, only where dopis's tables are there (checked
    /// first: WAL mode would change another program's SQLite file).
    ///
    /// All on one connection, `conn`: through the pool each statement took
    /// a connection of its own while the last one was being handed back, so
    /// a CLI command opened three (each a thread, and SQLite reading the
    /// whole schema again) for these few checks.
    async fn prepare(
        &self,
        conn: &mut AnyConnection,
        shown: &str,
        setup: Setup,
    ) -> Result<(), StoreError> {
        let (has_migrations, has_games) = self.dopis_tables(conn).await?;
        if setup == Setup::Existing && !(has_migrations && has_games) {
            return Err(StoreError::NotSetUp {
                url: shown.to_string(),
                reason: "it has no dopis tables".to_string(),
            });
        }
        if self.backend == Backend::Sqlite {
            // WAL lets the daemon and CLI commands read while one writes.
            // WAL is a property of the file, so this writes nothing once
            // `dopis init` has switched it.
            conn.execute("PRAGMA journal_mode = WAL")
                .await
                .map_err(|e| StoreError::Open {
                    url: shown.to_string(),
                    reason: e.to_string(),
                })?;
        }
        let migrator = match self.backend {
            Backend::Sqlite => sqlx::migrate!("migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("migrations/postgres"),
        };
        if has_migrations && self.schema_is_current(conn, shown, &migrator).await? {
            return Ok(());
        }
        migrator
            .run(&mut *conn)
            .await
            .map_err(|e| StoreError::Migrate {
                url: shown.to_string(),
                reason: e.to_string(),
            })
    }

    /// Whether the schema is exactly the one `migrator` makes: every
    /// migration recorded as applied, with the same checksum, and no
    /// other. Then the migrator has nothing to do, and one query saves its
    /// four (and its lock on PostgreSQL); anything else is left to it, to
    /// apply or to say what is wrong.
    ///
    /// Stops an older binary on a database a newer one migrated
    /// ([`StoreError::TooNew`]): sqlx would only say a migration "is
    /// missing", and the older code would misread the newer tables.
    /// Checked before anything is written.
    async fn schema_is_current(
        &self,
        conn: &mut AnyConnection,
        shown: &str,
        migrator: &sqlx::migrate::Migrator,
    ) -> Result<bool, StoreError> {
        let ours: std::collections::BTreeMap<i64, &[u8]> = migrator
            .iter()
            .filter(|m| !m.migration_type.is_down_migration())
            .map(|m| (m.version, &*m.checksum))
            .collect();
        let known = ours.keys().max().copied().unwrap_or(0);
        let recorded: Vec<(i64, Vec<u8>, i64)> = sqlx::query_as(
            "SELECT version, checksum, CAST(CASE WHEN success THEN 1 ELSE 0 END AS BIGINT) FROM _sqlx_migrations \
             ORDER BY version",
        )
        .fetch_all(&mut *conn)
        .await?;
        if let Some(&(found, _, _)) = recorded.iter().max_by_key(|(version, _, _)| *version)
            && found > known
        {
            return Err(StoreError::TooNew {
                url: shown.to_string(),
                found,
                known,
                ours: env!("CARGO_PKG_VERSION").to_string(),
            });
        }
        Ok(recorded.len() == ours.len()
            && recorded.iter().all(|(version, checksum, success)| {
                *success == 1 && ours.get(version) == Some(&checksum.as_slice())
            }))
    }

    /// Whether the database has the migrations sqlx records, and dopis's
    /// games (another sqlx program's database has the first only).
    async fn dopis_tables(&self, conn: &mut AnyConnection) -> Result<(bool, bool), StoreError> {
        let sql = match self.backend {
            Backend::Sqlite => {
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name IN ('_sqlx_migrations', 'games')"
            }
            Backend::Postgres => {
                "SELECT CAST(table_name AS TEXT) FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_name IN ('_sqlx_migrations', 'games')"
            }
        };
        let names: Vec<String> = sqlx::query_scalar(sql).fetch_all(&mut *conn).await?;
        let has = |name: &str| names.iter().any(|n| n == name);
        Ok((has("_sqlx_migrations"), has("games")))
    }

    /// A connection of its own, outside the pool: for a session whose
    /// locks must live exactly as long as one daemon (see
    /// [`crate::service::lease`]).
    pub async fn connect_alone(&self) -> Result<AnyConnection, StoreError> {
        Ok(AnyConnection::connect(&self.connect_url).await?)
    }

    /// The SQLite database file, if the store is one (not in memory).
    pub fn sqlite_file(&self) -> Option<std::path::PathBuf> {
        if self.backend != Backend::Sqlite {
            return None;
        }
        sqlite_path(&self.connect_url)
    }

    /// Writes a consistent copy of a SQLite database to `file` (which must
    /// not exist) while others read and write it: `VACUUM INTO` reads one
    /// snapshot, as a reader in WAL mode does, so the daemon goes on.
    /// Chosen over the online backup API, which sqlx does not expose and
    /// which restarts its copy whenever another connection writes.
    pub async fn backup_into(&self, file: &std::path::Path) -> Result<(), StoreError> {
        let path = file.to_string_lossy().into_owned();
        sql::query("VACUUM INTO $1")
            .bind(path)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The database engine.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The URL the store was opened with, password hidden: for messages.
    pub fn url_shown(&self) -> String {
        redact_url(&self.connect_url)
    }

    /// The connection pool, for repositories.
    pub fn pool(&self) -> &sql::Pool {
        &self.pool
    }

    /// Closes every connection (waits for running statements).
    ///
    /// Every command closes its store before it exits, on errors too: a
    /// closed SQLite database has its WAL folded back into the file (a copy
    /// of the file alone is then complete), PostgreSQL sees a clean
    /// goodbye rather than a dropped connection, and no pool work is left
    /// for the runtime's shutdown.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Awaits `work`, then closes the store whatever `work` returned.
    pub async fn close_after<T>(&self, work: impl Future<Output = T>) -> T {
        let result = work.await;
        self.close().await;
        result
    }
}

/// How PostgreSQL's connection pool is set up (SQLite has its own, see
/// [`sql`]).
///
/// sqlx-core 0.9.0's pool maintenance task can spin a core for ever: it runs
/// `for _ in 0..pool.num_idle()`, and `release()` lets another task pop a
/// connection before it counts it idle, so `num_idle` briefly underflows to
/// `usize::MAX` (sqlx issue 3645, "100% CPU in spawn_maintenance_tasks";
/// the fix, sqlx PR 4289, is in no released sqlx). dopis saw it as CLI
/// commands hanging at exit (3 in about 4,000 runs of `dopis game new`),
/// and a long-running daemon can hit it too. `spawn_maintenance_tasks`
/// (pool/inner.rs) starts no task when both `max_lifetime` and
/// `idle_timeout` are `None` and `min_connections` is 0, so that is how the
/// pool is set: the task never runs.
///
/// What the task did is not needed here. It closed connections idle for
/// 10 minutes or older than 30: a daemon keeps at most
/// `max_connections` idle connections open instead, which PostgreSQL
/// serves at no cost worth saving. A connection broken meanwhile (the
/// server restarted, a firewall dropped an idle link) is still found:
/// `test_before_acquire` pings each one before handing it out and opens a
/// new one in its place. When sqlx ships the fix, the defaults can come
/// back; the test `the_pool_never_runs_the_maintenance_task_that_can_spin`
/// keeps them off until then.
///
fn pool_options() -> AnyPoolOptions {
    AnyPoolOptions::new()
        .max_connections(8)
        .min_connections(0)
        .idle_timeout(None)
        .max_lifetime(None)
        .test_before_acquire(true)
        .acquire_timeout(Duration::from_secs(10))
}

/// One sqlx connection outside any pool, its failure said as an open error.
async fn connect_one(connect_url: &str, shown: &str) -> Result<AnyConnection, StoreError> {
    AnyConnection::connect(connect_url)
        .await
        .map_err(|e| StoreError::Open {
            url: shown.to_string(),
            reason: describe_open_error(&e),
        })
}

fn describe_open_error(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(db) => db.message().to_string(),
        sqlx::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}

/// A text from outside (a mail, an error message quoting one) made fit for
/// both databases and cut to at most `max_chars` characters: PostgreSQL
/// refuses a NUL character in TEXT ("invalid byte sequence for encoding
/// UTF8: 0x00"), where SQLite stores it, so one mail with a NUL in a header
/// would otherwise fail on one backend only. NUL becomes U+FFFD, as a
/// decoder shows a byte it cannot read.
pub(crate) fn db_text(text: &str, max_chars: usize) -> String {
    text.chars()
        .take(max_chars)
        .map(|c| if c == '\0' { '\u{FFFD}' } else { c })
        .collect()
}

/// Milliseconds since the epoch, the stored form of an instant.
/// A stored value that cannot be what it should be.
fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

/// A stored count that must fit a `u32`.
fn small(n: i64, what: &str) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| corrupt(format!("{what} {n} is out of range")))
}

pub(crate) fn to_millis(t: chrono::DateTime<chrono::Utc>) -> i64 {
    t.timestamp_millis()
}

/// An instant from its stored form.
pub(crate) fn from_millis(ms: i64) -> Result<chrono::DateTime<chrono::Utc>, StoreError> {
    chrono::DateTime::from_timestamp_millis(ms)
        .ok_or_else(|| StoreError::Corrupt(format!("timestamp {ms} is out of range")))
}

/// An open transaction.
pub struct Tx {
    // Visible to the files of the store, which add their statements to the
    // same transaction.
    tx: sql::Conn,
    backend: Backend,
}

impl Store {
    /// Starts a transaction.
    pub async fn begin(&self) -> Result<Tx, StoreError> {
        Ok(Tx {
            tx: self.pool().begin().await?,
            backend: self.backend(),
        })
    }

    /// Starts a transaction that reads before it writes: see
    /// [`sql::Pool::begin_writing`].
    pub async fn begin_writing(&self) -> Result<Tx, StoreError> {
        Ok(Tx {
            tx: self.pool().begin_writing().await?,
            backend: self.backend(),
        })
    }
}

impl Tx {
    /// The connection the transaction runs on, for other repositories.
    pub(super) fn conn(&mut self) -> &mut sql::Conn {
        &mut self.tx
    }
    /// The database engine.
    pub fn backend(&self) -> Backend {
        self.backend
    }
    /// Commits everything done in the transaction.
    pub async fn commit(self) -> Result<(), StoreError> {
        self.tx.commit().await?;
        Ok(())
    }

    /// Marks where one item of a batch begins (the daemon handles several
    /// mails in one transaction, each after its own savepoint), so that a
    /// failing item can be undone alone with [`Tx::roll_back_item`].
    /// Plain SQL rather than sqlx's nested `begin`, which would borrow the
    /// transaction and hide it from the store's methods; both databases
    /// speak it the same way. Items do not nest.
    pub async fn begin_item(&mut self) -> Result<(), StoreError> {
        self.tx.execute_plain("SAVEPOINT item").await?;
        Ok(())
    }

    /// Keeps what the item since [`Tx::begin_item`] did.
    pub async fn keep_item(&mut self) -> Result<(), StoreError> {
        self.tx.execute_plain("RELEASE SAVEPOINT item").await?;
        Ok(())
    }

    /// Undoes what the item since [`Tx::begin_item`] did; the batch before
    /// it stays. Fails when the database undid the whole transaction itself
    /// (SQLite does on some errors): then nothing of the batch is left.
    pub async fn roll_back_item(&mut self) -> Result<(), StoreError> {
        self.tx.execute_plain("ROLLBACK TO SAVEPOINT item").await?;
        self.tx.execute_plain("RELEASE SAVEPOINT item").await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_for_the_database_have_no_nul_and_are_cut() {
        assert_eq!(db_text("a\0b", 10), "a\u{FFFD}b");
        assert_eq!(db_text("žžžž", 2), "žž");
        assert_eq!(db_text("", 5), "");
    }

    #[test]
    fn passwords_never_show_in_database_urls() {
        assert_eq!(
            redact_url("postgres://dopis:hunter2@db.example:5432/dopis"),
            "postgres://dopis:***@db.example:5432/dopis"
        );
        assert_eq!(redact_url("postgres://u@h/d"), "postgres://u@h/d");
        assert_eq!(redact_url("sqlite://dopis.db"), "sqlite://dopis.db");
    }

    #[test]
    fn the_pool_never_runs_the_maintenance_task_that_can_spin() {
        // sqlx-core 0.9.0 spawns the task (which can loop for ever, sqlx
        // issue 3645) unless all three hold; see `pool_options`.
        let options = pool_options();
        assert_eq!(options.get_idle_timeout(), None);
        assert_eq!(options.get_max_lifetime(), None);
        assert_eq!(options.get_min_connections(), 0);
        // Broken connections are still replaced before use.
        assert!(options.get_test_before_acquire());
    }
}
