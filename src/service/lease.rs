//! Who does what when several daemons share one database.
//!
//! - **PostgreSQL**: any number of `dopis serve` may run. Each holds, on a
//!   connection of its own, a session advisory lock on its instance number
//!   for as long as it lives; one of them also holds the lock of the mailbox
//!   and is the only one that reads it (the leader). The others (standbys)
//!   run the scheduler and the sender, which are shared safely by row locks
//!   (`FOR UPDATE SKIP LOCKED`), and try for the mailbox every couple of
//!   seconds: when the leader dies its session ends, PostgreSQL frees its
//!   locks, and a standby takes over. An outbox lease records its holder's
//!   instance number; a holder whose instance lock can be taken is dead, so
//!   its leases are taken over at once instead of after the lease time.
//! - **SQLite**: one daemon only (the database has one writer); a second is
//!   refused with a clear error, by an exclusive lock on a file beside the
//!   database that the system frees when the process ends, however it ends.
//!   The one daemon takes over every lease left by a previous one.

use std::io::Write;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use tokio::sync::Mutex;

use crate::adapter::store::locks::LockSession;
use crate::adapter::store::{Backend, Store, StoreError};

/// Advisory lock keys are 64 bits: the high half names what is locked.
const INSTANCE_SPACE: i64 = 0x646f_7069; // "dopi"
const MAILBOX_SPACE: i64 = 0x646f_706d; // "dopm"

/// Why this daemon may not run.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// Another daemon runs on the same SQLite database.
    #[error(
        "another `dopis serve` is already running on the SQLite database {path} ({holder}); \
         SQLite allows one daemon at a time: stop it first, or move to PostgreSQL to run several"
    )]
    SqliteBusy {
        /// The database file.
        path: String,
        /// Who holds it, as far as the lock file says.
        holder: String,
    },
    /// The lock file could not be made.
    #[error(
        "cannot create the lock file {path}: {reason} (check the database folder's permissions)"
    )]
    LockFile {
        /// The lock file.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// This daemon's place among the daemons on its database.
#[derive(Debug)]
pub struct Lease {
    store: Store,
    mailbox_key: i64,
    state: Mutex<State>,
}

#[derive(Debug)]
enum State {
    /// The lock file held for the daemon's life (none for a database in
    /// memory, which only one process can see anyway).
    Sqlite {
        _file: Option<std::fs::File>,
        instance: i64,
    },
    /// The session holding this daemon's advisory locks (`None` after it
    /// broke: a new one, with a new instance number, is made on the next try).
    Postgres {
        session: Option<LockSession>,
        instance: i64,
        leader: bool,
    },
}

impl Lease {
    /// Takes this daemon's place: on SQLite the database's only daemon (or
    /// an error); on PostgreSQL an instance, and the mailbox if no other
    /// daemon reads it.
    pub async fn acquire(
        store: &Store,
        mailbox_name: &str,
        now: DateTime<Utc>,
    ) -> Result<Lease, LeaseError> {
        let mailbox_key = key(MAILBOX_SPACE, fnv32(mailbox_name));
        let state = match store.backend() {
            Backend::Sqlite => {
                let file = match store.sqlite_file() {
                    Some(db) => Some(lock_sqlite(db)?),
                    None => None,
                };
                let instance = key(INSTANCE_SPACE, rand::random::<u32>() >> 1);
                // No other daemon can be alive: every lease left is a dead one's.
                let released = store.release_outbox_leases(None, instance, now).await?;
                if released > 0 {
                    tracing::info!(
                        released,
                        "took over the outbox leases of a daemon that ended"
                    );
                }
                State::Sqlite {
                    _file: file,
                    instance,
                }
            }
            Backend::Postgres => {
                let (session, instance) = new_session(store).await?;
                State::Postgres {
                    session: Some(session),
                    instance,
                    leader: false,
                }
            }
        };
        let lease = Lease {
            store: store.clone(),
            mailbox_key,
            state: Mutex::new(state),
        };
        lease.may_read_mailbox().await?;
        Ok(lease)
    }

    /// The instance number outbox leases are recorded under.
    pub async fn instance(&self) -> i64 {
        match &*self.state.lock().await {
            State::Sqlite { instance, .. } | State::Postgres { instance, .. } => *instance,
        }
    }

    /// Whether this daemon reads the mailbox now: always on SQLite; on
    /// PostgreSQL while it holds the mailbox's lock on a live session
    /// (checked each time; a standby tries to take it each time).
    pub async fn may_read_mailbox(&self) -> Result<bool, StoreError> {
        let mut state = self.state.lock().await;
        let State::Postgres {
            session,
            instance,
            leader,
        } = &mut *state
        else {
            return Ok(true);
        };
        if !self.session_alive(session).await {
            // The session ended, and with it every lock of ours: start a new
            // one under a new number (our old leases may be taken over).
            *leader = false;
            let (fresh, number) = new_session(&self.store).await?;
            *session = Some(fresh);
            *instance = number;
            tracing::warn!(instance = number, "database session renewed");
        }
        if !*leader && let Some(conn) = session.as_mut() {
            *leader = conn.try_lock(self.mailbox_key).await?;
            if *leader {
                tracing::info!("this daemon now reads the mailbox");
            }
        }
        Ok(*leader)
    }

    /// Whether this daemon's session (and so its instance lock) is alive:
    /// a sender checks it before taking mails, so that nobody takes over
    /// leases it still acts on.
    pub async fn alive(&self) -> bool {
        let mut state = self.state.lock().await;
        match &mut *state {
            State::Sqlite { .. } => true,
            State::Postgres { session, .. } => self.session_alive(session).await,
        }
    }

    async fn session_alive(&self, session: &mut Option<LockSession>) -> bool {
        let Some(conn) = session.as_mut() else {
            return false;
        };
        let alive = tokio::time::timeout(std::time::Duration::from_secs(5), conn.ping())
            .await
            .is_ok_and(|r| r.is_ok());
        if !alive {
            *session = None;
        }
        alive
    }

    /// Takes over at once the outbox leases of daemons that are gone (on
    /// PostgreSQL: whose instance lock is free). Returns how many mails.
    pub async fn take_over_dead_leases(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut state = self.state.lock().await;
        let State::Postgres {
            session: Some(conn),
            instance,
            ..
        } = &mut *state
        else {
            return Ok(0);
        };
        let mut released = 0;
        for holder in self.store.outbox_lease_holders(*instance, now).await? {
            // Free means its session is gone; let go at once, it is not ours.
            if conn.try_lock(holder).await? {
                conn.unlock(holder).await?;
                let n = self
                    .store
                    .release_outbox_leases(Some(holder), *instance, now)
                    .await?;
                tracing::info!(
                    holder,
                    mails = n,
                    "took over the outbox leases of a daemon that died"
                );
                released += n;
            }
        }
        Ok(released)
    }
}

/// A new session with an instance lock of its own; the number is drawn at
/// random and drawn again in the unlikely case another daemon has it.
async fn new_session(store: &Store) -> Result<(LockSession, i64), StoreError> {
    let mut conn = store.lock_session().await?;
    loop {
        let instance = key(INSTANCE_SPACE, rand::random::<u32>() >> 1);
        if conn.try_lock(instance).await? {
            return Ok((conn, instance));
        }
    }
}

/// A lock key in one of our key spaces.
fn key(space: i64, n: u32) -> i64 {
    (space << 32) | i64::from(n)
}

/// FNV-1a, 32 bits: a stable number for a mailbox's name (the same in every
/// daemon and every version, which `Hash` does not promise).
fn fnv32(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Takes the exclusive lock on `<database>.serve-lock`, writing who holds it.
fn lock_sqlite(db: PathBuf) -> Result<std::fs::File, LeaseError> {
    let mut name = db.clone().into_os_string();
    name.push(".serve-lock");
    let path = PathBuf::from(name);
    let shown = path.display().to_string();
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| LeaseError::LockFile {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path)
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "holder unknown".into());
            return Err(LeaseError::SqliteBusy {
                path: db.display().to_string(),
                holder,
            });
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(LeaseError::LockFile {
                path: shown,
                reason: e.to_string(),
            });
        }
    }
    let host = std::env::var("HOSTNAME").unwrap_or_default();
    let who = format!(
        "pid {}{}{}",
        std::process::id(),
        if host.is_empty() { "" } else { " on " },
        host
    );
    let _ = file
        .set_len(0)
        .and_then(|()| file.write_all(who.as_bytes()));
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mailbox_keys_are_stable_and_apart_from_instance_keys() {
        assert_eq!(fnv32(""), 0x811c_9dc5);
        assert_eq!(fnv32("a"), 0xe40c_292c);
        let mailbox = key(MAILBOX_SPACE, fnv32("maildir:mail"));
        let instance = key(INSTANCE_SPACE, fnv32("maildir:mail"));
        assert_ne!(mailbox, instance);
        assert!(mailbox > 0 && instance > 0);
    }

    #[test]
    fn a_second_daemon_on_one_sqlite_file_is_refused_with_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("dopis.db");
        let first = lock_sqlite(db.clone()).unwrap();
        let second = lock_sqlite(db.clone()).unwrap_err().to_string();
        assert!(second.contains("already running"), "{second}");
        assert!(
            second.contains(&format!("pid {}", std::process::id())),
            "{second}"
        );
        drop(first);
        assert!(lock_sqlite(db).is_ok(), "free again once the first is gone");
    }
}
