//! The database: sqlx on SQLite (embedded default) or PostgreSQL.
//!
//! Why `sqlx::Any` with portable SQL rather than two typed backends: every
//! query is written once and runs unchanged on both databases, so they
//! cannot drift apart, and the tests run the same code on both. The price is
//! that `Any` has no chrono types and no compile-time checked `query!`: all
//! times are stored as BIGINT milliseconds since the Unix epoch (UTC), all
//! integers as BIGINT (a PostgreSQL INTEGER would decode as i32 and fail),
//! and the few statements that must differ (DDL, row locking) branch on
//! [`Backend`]. The two migration sets in `migrations/sqlite` and
//! `migrations/postgres` carry the same versions and names and differ only
//! in DDL dialect.
//!
//! - [`clocks`]: leave, the scheduler's due keys and schedules, deadline-report reads.
//! - [`players`]: registering and finding players.
//! - [`games`]: games and their moves.
//! - [`mail`]: inbound log, outbox, confirmations, mailbox cursor; transactions.
//! - [`events`]: events, their entrants and games, TD actions, deadline extensions.
//! - [`replies`]: what keeps a stale or repeated reply from acting: the position
//!   a confirmation asked about, fingerprints of mails that acted.

pub mod clocks;
pub mod events;
pub mod games;
pub mod mail;
pub mod players;
pub mod replies;

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyConnection, AnyPool, Connection, Executor};

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
    pool: AnyPool,
    backend: Backend,
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

impl Store {
    /// Opens (creating a SQLite file if missing) and migrates a database.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        install_default_drivers();
        let shown = redact_url(url);
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
        // One plain connection first: when the database is unreachable its
        // error says why ("connection refused", "no such file"), where the
        // pool would only say it timed out.
        let probe = AnyConnection::connect(&connect_url)
            .await
            .map_err(|e| StoreError::Open {
                url: shown.clone(),
                reason: describe_open_error(&e),
            })?;
        let _ = probe.close().await;
        let pool = AnyPoolOptions::new()
            .max_connections(match backend {
                Backend::Sqlite => 4,
                Backend::Postgres => 8,
            })
            .acquire_timeout(Duration::from_secs(10))
            .connect(&connect_url)
            .await
            .map_err(|e| StoreError::Open {
                url: shown.clone(),
                reason: describe_open_error(&e),
            })?;
        if backend == Backend::Sqlite {
            // WAL lets the daemon and CLI commands read while one writes.
            pool.execute("PRAGMA journal_mode = WAL")
                .await
                .map_err(|e| StoreError::Open {
                    url: shown.clone(),
                    reason: e.to_string(),
                })?;
        }
        let migrator = match backend {
            Backend::Sqlite => sqlx::migrate!("migrations/sqlite"),
            Backend::Postgres => sqlx::migrate!("migrations/postgres"),
        };
        migrator.run(&pool).await.map_err(|e| StoreError::Migrate {
            url: shown,
            reason: e.to_string(),
        })?;
        Ok(Store { pool, backend })
    }

    /// The database engine.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The connection pool, for repositories.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Closes every connection (waits for running statements).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

fn describe_open_error(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(db) => db.message().to_string(),
        sqlx::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}

/// Milliseconds since the epoch, the stored form of an instant.
pub(crate) fn to_millis(t: chrono::DateTime<chrono::Utc>) -> i64 {
    t.timestamp_millis()
}

/// An instant from its stored form.
pub(crate) fn from_millis(ms: i64) -> Result<chrono::DateTime<chrono::Utc>, StoreError> {
    chrono::DateTime::from_timestamp_millis(ms)
        .ok_or_else(|| StoreError::Corrupt(format!("timestamp {ms} is out of range")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show_in_database_urls() {
        assert_eq!(
            redact_url("postgres://dopis:hunter2@db.example:5432/dopis"),
            "postgres://dopis:***@db.example:5432/dopis"
        );
        assert_eq!(redact_url("postgres://u@h/d"), "postgres://u@h/d");
        assert_eq!(redact_url("sqlite://dopis.db"), "sqlite://dopis.db");
    }
}
