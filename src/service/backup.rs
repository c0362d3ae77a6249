//! `dopis backup FILE`: a consistent copy of a SQLite database, taken while
//! `serve` runs. PostgreSQL has `pg_dump` for this (docs/admin.md, "Backups").

use std::path::Path;

use crate::adapter::store::{Backend, Store, StoreError};

/// Why no backup was written.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// The database is PostgreSQL.
    #[error(
        "dopis backup copies SQLite databases; for PostgreSQL use its own tool, e.g. \
         `pg_dump --format=custom --file=dopis.dump 'postgres://…'` (docs/admin.md, Backups), \
         which also runs while `dopis serve` does"
    )]
    Postgres,
    /// The target exists.
    #[error("{0} exists: dopis never overwrites a file with a backup; name a new file")]
    Exists(String),
    /// The target's folder does not exist.
    #[error(
        "the folder of {0} does not exist: create it first, or name a file in a folder that does"
    )]
    NoFolder(String),
    /// The database could not be copied.
    #[error("cannot write the backup {file}: {source}")]
    Copy {
        /// The target.
        file: String,
        /// What went wrong.
        source: StoreError,
    },
}

/// Copies the database to `file`; returns the copy's size in bytes.
pub async fn backup(store: &Store, file: &Path) -> Result<u64, BackupError> {
    if store.backend() == Backend::Postgres {
        return Err(BackupError::Postgres);
    }
    let shown = file.display().to_string();
    if file.exists() {
        return Err(BackupError::Exists(shown));
    }
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty());
    if folder.is_some_and(|f| !f.is_dir()) {
        return Err(BackupError::NoFolder(shown));
    }
    store
        .backup_into(file)
        .await
        .map_err(|source| BackupError::Copy {
            file: shown.clone(),
            source,
        })?;
    Ok(std::fs::metadata(file).map(|m| m.len()).unwrap_or(0))
}
