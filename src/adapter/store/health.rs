//! What `dopis doctor` and the daemon's `/healthz` and `/metrics` ask of the
//! database: whether it answers and takes writes, its schema version, and
//! a few counts.

use chrono::{DateTime, Utc};

use super::{Backend, Store, StoreError, from_millis, to_millis};

/// Figures of the database for the metrics endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gauges {
    /// Outbox mails waiting to be sent (due or not).
    pub outbox_pending: i64,
    /// When the oldest of them was queued.
    pub oldest_pending: Option<DateTime<Utc>>,
    /// Active games whose scheduler work is due now.
    pub due_games: i64,
}

impl Store {
    /// Whether the database answers a trivial query.
    pub async fn ping(&self) -> Result<(), StoreError> {
        super::sql::query("SELECT 1").fetch_one(self.pool()).await?;
        Ok(())
    }

    /// The newest schema migration the database has applied.
    pub async fn schema_version(&self) -> Result<Option<i64>, StoreError> {
        super::sql::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(self.pool())
            .await
    }

    /// Whether the database takes writes: a write that changes nothing, in
    /// a transaction rolled back. A read-only SQLite file (or folder) or a
    /// read-only PostgreSQL session refuses it.
    pub async fn check_writable(&self) -> Result<(), StoreError> {
        let mut tx = self.pool().begin().await?;
        super::sql::query("DELETE FROM games WHERE id = -1")
            .execute(&mut tx)
            .await?;
        tx.rollback().await?;
        Ok(())
    }

    /// The database's size in bytes, and how much of it is free pages
    /// that new rows reuse (SQLite's main file, without its write-ahead
    /// log; PostgreSQL's whole database, free space not counted: 0).
    pub async fn size(&self) -> Result<(i64, i64), StoreError> {
        match self.backend {
            Backend::Sqlite => {
                let row = super::sql::query(
                    "SELECT p.page_count * s.page_size AS size, \
                     f.freelist_count * s.page_size AS free \
                     FROM pragma_page_count() AS p, pragma_page_size() AS s, \
                     pragma_freelist_count() AS f",
                )
                .fetch_one(self.pool())
                .await?;
                Ok((row.try_get("size")?, row.try_get("free")?))
            }
            Backend::Postgres => {
                let size: i64 =
                    super::sql::query_scalar("SELECT pg_database_size(current_database())")
                        .fetch_one(self.pool())
                        .await?;
                Ok((size, 0))
            }
        }
    }

    /// The figures the metrics endpoint shows, as of `now`.
    pub async fn gauges(&self, now: DateTime<Utc>) -> Result<Gauges, StoreError> {
        let row = super::sql::query(
            "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM outbox WHERE status = 'pending'",
        )
        .fetch_one(self.pool())
        .await?;
        let outbox_pending: i64 = row.try_get("n")?;
        let oldest: Option<i64> = row.try_get("oldest")?;
        let due: i64 = super::sql::query_scalar(
            "SELECT COUNT(*) FROM games WHERE status = 'active' AND next_due_at <= $1",
        )
        .bind(to_millis(now))
        .fetch_one(self.pool())
        .await?;
        Ok(Gauges {
            outbox_pending,
            oldest_pending: oldest.map(from_millis).transpose()?,
            due_games: due,
        })
    }
}
