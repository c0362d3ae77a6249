//! PostgreSQL advisory locks on a session of their own, outside the pool:
//! a lock lives exactly as long as the session that took it, so a daemon's
//! locks end with it (see `service::lease`).

use sqlx::{AnyConnection, Connection, Row};

use super::{Store, StoreError};

/// A database session of its own, holding advisory locks.
pub struct LockSession(AnyConnection);

impl std::fmt::Debug for LockSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LockSession")
    }
}

impl Store {
    /// Opens a session of its own, outside the pool.
    pub async fn lock_session(&self) -> Result<LockSession, StoreError> {
        Ok(LockSession(self.connect_alone().await?))
    }
}

impl LockSession {
    /// Takes the lock `key` if it is free; `false` when another session has it.
    pub async fn try_lock(&mut self, key: i64) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT pg_try_advisory_lock($1) AS got")
            .bind(key)
            .fetch_one(&mut self.0)
            .await?;
        Ok(row.try_get("got")?)
    }

    /// Lets go of the lock `key`.
    pub async fn unlock(&mut self, key: i64) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_advisory_unlock($1) AS done")
            .bind(key)
            .fetch_one(&mut self.0)
            .await?;
        Ok(())
    }

    /// Whether the session still answers.
    pub async fn ping(&mut self) -> Result<(), StoreError> {
        Ok(self.0.ping().await?)
    }
}
