//! `dopis export FILE` and `dopis import FILE`: everything a server needs to
//! carry on, moved to another server or from SQLite to PostgreSQL and back.
//!
//! # The format
//!
//! One JSON document (UTF-8), a generic dump keyed by table and column
//! names:
//!
//! ```json
//! {"format": "dopis-export", "version": 1, "dopis": "0.1.0", "schema": 17,
//!  "from": "sqlite", "exported_at": "2026-12-02T01:00:00Z",
//!  "secret_check": "5f1c…",
//!  "tables": [
//!   {"name": "players",
//!    "columns": [["id", "integer"], ["email", "text"], …],
//!    "rows": [
//!     [1, "ana@club.example", …],
//!     …]},
//!   …]}
//! ```
//!
//! - `version` is the version of this format; a file of a newer version is
//!   refused. `schema` is the newest migration of the database it came
//!   from; a file from a newer schema than this dopis knows is refused.
//! - A value is JSON `null`, an integer (every BIGINT: ids, counts, 0/1
//!   flags, and every time, as milliseconds since the Unix epoch, UTC), a
//!   string (TEXT) or, for a `blob` column, the bytes in standard base64.
//!   The column kinds are written out so the file says what each value is;
//!   on import each value is checked against the kind of the column it goes
//!   into and bound with that type, so the same file reads the same into
//!   SQLite and PostgreSQL.
//! - Rows are sorted (by their values, ids first), one per line: two
//!   exports of the same data are the same text but for the header, and a
//!   diff between two exports reads as the change.
//! - `secret_check` is an HMAC of a fixed text under `[mail] secret`: the
//!   reply tokens in every address already sent are made from the secret
//!   and the game and player ids (`mail::route`), so the new server must
//!   carry the old secret and the same ids. Import refuses a config whose
//!   secret differs, unless told to go on.
//!
//! Why a generic dump and not a document of players, games and events:
//! it carries every column of every table, including ones added by later
//! migrations, without code for each; it cannot drift from the schema; and
//! importing it is the same few statements for every table. The catalog of
//! each database tells the column kinds, so the dump is typed the same way
//! on both backends.
//!
//! # What is carried, and what is not
//!
//! [`TABLES`] is every table the daemon needs to carry on, in the order
//! they are written (each after the tables it refers to). Left out:
//!
//! - `stuck_work`: the retry pauses of scheduler work that failed on the
//!   old server; the new one tries that work afresh.
//! - `_sqlx_migrations`: the new database is migrated by this dopis
//!   (`dopis init`) before the import; the file's `schema` is checked instead.
//! - the bodies of outbox mails that were sent (status `sent`): they were
//!   delivered and are not needed again (retention drops them after a while
//!   anyway). Their rows are carried: the key keeps a mail from being queued
//!   twice, the Message-ID and recipient prove a bounce is ours, the time
//!   counts for the rate limit. Mail not yet sent is carried whole.
//! - outbox leases (`leased_by`): they name daemons of the old server.
//!
//! The import runs in one transaction into a database with no rows at all
//! (freshly set up with `dopis init`), and sets PostgreSQL's id sequences
//! past the imported ids.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine as _;
use chrono::{DateTime, SecondsFormat, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::adapter::store::dump::{Column, Kind, Value};
use crate::adapter::store::{Backend, Store, StoreError, Tx};

/// The name in every export's `format`.
pub const FORMAT: &str = "dopis-export";
/// The version of the format this dopis writes and reads.
pub const VERSION: u64 = 1;

/// Every table carried, in the order they are written (a table after
/// the tables it refers to), and what it holds.
pub const TABLES: &[(&str, &str)] = &[
    (
        "players",
        "players, their language, zone, digest choice and pause",
    ),
    ("events", "events and their settings"),
    (
        "games",
        "games, clocks' schedule, draw offers, conditional moves",
    ),
    (
        "moves",
        "moves, when their mail arrived and when the opponent was told",
    ),
    ("event_tds", "each event's tournament directors"),
    ("event_teams", "teams of team events"),
    ("entrants", "seats in events, withdrawals"),
    (
        "event_entries",
        "entries by mail to events, from asked to seated",
    ),
    ("td_actions", "the TD log"),
    ("deadline_extensions", "deadlines a TD extended"),
    ("inbound", "the inbound log: each mail acts once"),
    (
        "outbox",
        "mail queued (whole) and sent (keys, for exactly-once)",
    ),
    (
        "confirmations",
        "commands waiting for the player to confirm",
    ),
    ("mailbox_cursor", "where reading each mailbox got to"),
    ("leave_bookings", "leave booked"),
    (
        "due_done",
        "reminders, notices and timeouts done (each once)",
    ),
    ("report_runs", "when each report was last made"),
    ("digests", "daily digests sent"),
    (
        "failed_mail",
        "mails that could not be handled, kept for the admin",
    ),
    ("bounces", "hard bounces, towards pausing a player"),
    ("digest_games", "the games and positions each digest showed"),
    (
        "unsubscribes",
        "one-click unsubscribe links used (each works once)",
    ),
    ("game_messages", "messages between the players"),
    (
        "consultation_games",
        "consultation games: how long votes stay open, when the open vote closes",
    ),
    ("consultation_members", "each consultation side's members"),
    ("consultation_votes", "every vote of a consultation game"),
    (
        "swiss_rounds",
        "the paired rounds of Swiss events and their byes",
    ),
    (
        "swiss_byes",
        "half-point byes players asked for in Swiss events",
    ),
    (
        "qualifications",
        "what sections of open classes earned their players (promotions)",
    ),
    ("ratings", "the rating list"),
    ("rating_history", "every rating change"),
];

/// Tables deliberately not carried, and why.
pub const NOT_CARRIED: &[(&str, &str)] = &[
    (
        "stuck_work",
        "retry pauses of the old server's failed scheduler work",
    ),
    (
        "_sqlx_migrations",
        "the new database is migrated by this dopis; the file's schema is checked",
    ),
];

/// Why an export or import did nothing.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The file is not an export, or is damaged.
    #[error("{file} is not a dopis export dopis can read: {why}. Nothing was changed")]
    Broken {
        /// The file.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// A newer dopis wrote the file, in a newer format.
    #[error(
        "{file} was written by a newer dopis (format version {version}; this dopis {ours} \
         reads version {v}): import it with that dopis or a newer one. Nothing was changed",
        v = VERSION
    )]
    NewerFormat {
        /// The file.
        file: String,
        /// The file's format version.
        version: u64,
        /// This dopis's version.
        ours: String,
    },
    /// The file comes from a database a newer dopis upgraded.
    #[error(
        "{file} was written by a newer dopis (its database had schema {schema}; this dopis \
         {ours} knows schemas up to {known}): import it with that dopis or a newer one. \
         Nothing was changed"
    )]
    NewerSchema {
        /// The file.
        file: String,
        /// The file's schema.
        schema: i64,
        /// This dopis's version.
        ours: String,
        /// The newest schema this database has.
        known: i64,
    },
    /// The database has data.
    #[error(
        "the database {url} is not empty (table {table} has rows): dopis import reads into a \
         new database only. Create one (a new SQLite file, or `createdb` on PostgreSQL), set \
         [database] url or --database to it, run `dopis init`, then import. Nothing was changed"
    )]
    NotEmpty {
        /// The database, password hidden.
        url: String,
        /// A table that has rows.
        table: String,
    },
    /// The config's secret is not the exporting server's.
    #[error(
        "the export was made under another [mail] secret than this config's: every reply \
         address players already have (in their mail clients) would stop working. Copy \
         `secret` from the old server's config into this one's [mail] section and import \
         again, or pass --new-secret to import anyway (players then confirm their next move \
         by mail). Nothing was changed"
    )]
    OtherSecret,
    /// The database has a table export does not know (a dopis bug).
    #[error(
        "the database has a table '{0}' that dopis export does not know: a dopis bug (add it to \
         TABLES or NOT_CARRIED in src/service/export.rs)"
    )]
    UnknownTable(String),
    /// The database failed (the import was rolled back).
    #[error("{0}. Nothing was changed")]
    Store(#[from] StoreError),
}

/// What an import or export moved: rows per table.
#[derive(Debug, Clone, Default)]
pub struct Moved {
    /// (table, rows), in the order written.
    pub tables: Vec<(String, usize)>,
}

impl Moved {
    /// All rows.
    pub fn rows(&self) -> usize {
        self.tables.iter().map(|(_, n)| n).sum()
    }
}

/// The check of `[mail] secret` an export carries: an HMAC of a fixed text,
/// which tells whether two secrets are the same and nothing of either.
pub fn secret_check(secret: &str) -> String {
    #[allow(clippy::expect_used)]
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .expect("HMAC-SHA256 takes keys of any length");
    mac.update(b"dopis export: the same [mail] secret");
    mac.finalize()
        .into_bytes()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn backend_word(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    }
}

/// Checks that every table of the database is either carried or left out
/// on purpose, so that a migration adding a table without saying which it
/// is fails here (and in the round-trip test) rather than losing data.
async fn check_tables(tx: &mut Tx) -> Result<(), ExportError> {
    for name in tx.table_names().await? {
        let known =
            TABLES.iter().any(|(t, _)| *t == name) || NOT_CARRIED.iter().any(|(t, _)| *t == name);
        if !known {
            return Err(ExportError::UnknownTable(name));
        }
    }
    Ok(())
}

/// What export changes in a row as it writes it: the body of a sent mail
/// and outbox leases stay behind (see the module's notes).
fn carried(table: &str, columns: &[Column], row: &mut [Value]) {
    if table != "outbox" {
        return;
    }
    let at = |name: &str| columns.iter().position(|c| c.name == name);
    let sent = at("status").is_some_and(|i| row[i] == Value::Text("sent".into()));
    if sent && let Some(i) = at("raw") {
        row[i] = Value::Blob(Vec::new());
    }
    if let Some(i) = at("leased_by") {
        row[i] = Value::Null;
    }
}

fn json_value(value: &Value) -> serde_json::Value {
    match value {
        Value::Null => serde_json::Value::Null,
        Value::Int(v) => serde_json::Value::from(*v),
        Value::Text(v) => serde_json::Value::from(v.as_str()),
        Value::Blob(v) => {
            serde_json::Value::from(base64::engine::general_purpose::STANDARD.encode(v))
        }
    }
}

/// Writes the whole database as an export document, read from one snapshot
/// (so `serve` may go on meanwhile). `secret` is `[mail] secret`.
pub async fn export(
    store: &Store,
    secret: &str,
    now: DateTime<Utc>,
) -> Result<(String, Moved), ExportError> {
    let mut tx = store.begin().await?;
    tx.read_one_snapshot().await?;
    check_tables(&mut tx).await?;
    let schema = tx.schema_version().await?;
    let header = serde_json::json!({
        "format": FORMAT,
        "version": VERSION,
        "dopis": env!("CARGO_PKG_VERSION"),
        "schema": schema,
        "from": backend_word(store.backend()),
        "exported_at": now.to_rfc3339_opts(SecondsFormat::Secs, true),
        "secret_check": secret_check(secret),
    });
    let header = header.to_string();
    let mut out = String::new();
    // The header's fields, then the tables, one row a line.
    out.push_str(header.trim_end_matches('}'));
    out.push_str(",\n\"tables\": [\n");
    let mut moved = Moved::default();
    for (t, (table, _)) in TABLES.iter().enumerate() {
        let columns = tx.columns(table).await?;
        let mut rows = tx.rows(table, &columns).await?;
        for row in &mut rows {
            carried(table, &columns, row);
        }
        rows.sort();
        let cols: Vec<serde_json::Value> = columns
            .iter()
            .map(|c| serde_json::json!([c.name, c.kind.word()]))
            .collect();
        out.push_str(&format!(
            "{{\"name\": {}, \"columns\": {}, \"rows\": [",
            serde_json::Value::from(*table),
            serde_json::Value::from(cols)
        ));
        for (i, row) in rows.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            let values: Vec<serde_json::Value> = row.iter().map(json_value).collect();
            out.push_str(&serde_json::Value::from(values).to_string());
        }
        out.push_str(if t + 1 == TABLES.len() {
            "]}\n"
        } else {
            "]},\n"
        });
        moved.tables.push((table.to_string(), rows.len()));
    }
    out.push_str("]}\n");
    // Read-only: nothing to commit, but ending it cleanly frees the snapshot.
    tx.commit().await?;
    Ok((out, moved))
}

/// An export as read from its file, checked and typed.
#[derive(Debug, Clone)]
pub struct ReadExport {
    /// The schema of the database it came from.
    pub schema: i64,
    /// The secret check it carries.
    pub secret_check: String,
    /// Its tables: (name, columns, rows).
    pub tables: Vec<(String, Vec<Column>, Vec<Vec<Value>>)>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileV1 {
    #[allow(dead_code)]
    format: String,
    #[allow(dead_code)]
    version: u64,
    #[allow(dead_code)]
    dopis: String,
    schema: i64,
    #[allow(dead_code)]
    from: String,
    #[allow(dead_code)]
    exported_at: String,
    secret_check: String,
    tables: Vec<FileTable>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTable {
    name: String,
    columns: Vec<(String, String)>,
    rows: Vec<Vec<serde_json::Value>>,
}

/// Reads an export document: its format and version first (so a newer
/// file says so rather than failing to parse), then every value against
/// its column's kind. Nothing is written here.
pub fn read(file: &str, text: &str) -> Result<ReadExport, ExportError> {
    let broken = |why: String| ExportError::Broken {
        file: file.to_string(),
        why,
    };
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| broken(format!("it is not complete JSON ({e})")))?;
    if doc.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(broken(format!(
            "it has no \"format\": \"{FORMAT}\" (is it the file `dopis export` wrote?)"
        )));
    }
    let version = doc
        .get("version")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| broken("it has no format version".into()))?;
    if version > VERSION {
        return Err(ExportError::NewerFormat {
            file: file.to_string(),
            version,
            ours: env!("CARGO_PKG_VERSION").into(),
        });
    }
    if version != VERSION {
        return Err(broken(format!(
            "format version {version} is not one dopis wrote"
        )));
    }
    let parsed: FileV1 = serde_json::from_value(doc).map_err(|e| broken(e.to_string()))?;
    let mut seen = BTreeSet::new();
    let mut tables = Vec::with_capacity(parsed.tables.len());
    for t in parsed.tables {
        if !seen.insert(t.name.clone()) {
            return Err(broken(format!("table {} comes twice", t.name)));
        }
        let mut columns = Vec::with_capacity(t.columns.len());
        let mut names = BTreeSet::new();
        for (name, word) in &t.columns {
            let kind = Kind::from_word(word).ok_or_else(|| {
                broken(format!(
                    "column {}.{name} has an unknown kind '{word}'",
                    t.name
                ))
            })?;
            if !names.insert(name.clone()) {
                return Err(broken(format!("column {}.{name} comes twice", t.name)));
            }
            columns.push(Column {
                name: name.clone(),
                kind,
            });
        }
        let mut rows = Vec::with_capacity(t.rows.len());
        for (n, row) in t.rows.iter().enumerate() {
            if row.len() != columns.len() {
                return Err(broken(format!(
                    "row {} of {} has {} values for {} columns",
                    n + 1,
                    t.name,
                    row.len(),
                    columns.len()
                )));
            }
            let mut values = Vec::with_capacity(row.len());
            for (value, column) in row.iter().zip(&columns) {
                let typed = match (value, column.kind) {
                    (serde_json::Value::Null, _) => Some(Value::Null),
                    (serde_json::Value::Number(n), Kind::Integer) => n.as_i64().map(Value::Int),
                    (serde_json::Value::String(s), Kind::Text) => Some(Value::Text(s.clone())),
                    (serde_json::Value::String(s), Kind::Blob) => {
                        base64::engine::general_purpose::STANDARD
                            .decode(s)
                            .ok()
                            .map(Value::Blob)
                    }
                    _ => None,
                };
                values.push(typed.ok_or_else(|| {
                    broken(format!(
                        "row {} of {}: {} is not {} ({value})",
                        n + 1,
                        t.name,
                        column.name,
                        match column.kind {
                            Kind::Integer => "an integer",
                            Kind::Text => "a text",
                            Kind::Blob => "base64 bytes",
                        }
                    ))
                })?);
            }
            rows.push(values);
        }
        tables.push((t.name, columns, rows));
    }
    Ok(ReadExport {
        schema: parsed.schema,
        secret_check: parsed.secret_check,
        tables,
    })
}

/// Reads an export into the database, which must have no rows at all: in
/// one transaction, checked against this database's tables and columns,
/// with PostgreSQL's id sequences set past the imported ids afterwards.
/// `secret` is this config's `[mail] secret`; with `new_secret` a file
/// made under another secret is read all the same.
pub async fn import(
    store: &Store,
    file: &str,
    export: &ReadExport,
    secret: &str,
    new_secret: bool,
) -> Result<Moved, ExportError> {
    let broken = |why: String| ExportError::Broken {
        file: file.to_string(),
        why,
    };
    let mut tx = store.begin().await?;
    check_tables(&mut tx).await?;
    let known = tx.schema_version().await?;
    if export.schema > known {
        return Err(ExportError::NewerSchema {
            file: file.to_string(),
            schema: export.schema,
            ours: env!("CARGO_PKG_VERSION").into(),
            known,
        });
    }
    if !new_secret && export.secret_check != secret_check(secret) {
        return Err(ExportError::OtherSecret);
    }
    for name in tx.table_names().await? {
        if name != "_sqlx_migrations" && !tx.table_is_empty(&name).await? {
            return Err(ExportError::NotEmpty {
                url: store.url_shown(),
                table: name,
            });
        }
    }
    let by_name: BTreeMap<&str, _> = export
        .tables
        .iter()
        .map(|(name, columns, rows)| (name.as_str(), (columns, rows)))
        .collect();
    for name in by_name.keys() {
        if !TABLES.iter().any(|(t, _)| t == name) {
            return Err(broken(format!(
                "it has a table '{name}' that dopis does not import"
            )));
        }
    }
    let mut moved = Moved::default();
    for (table, _) in TABLES {
        let Some((columns, rows)) = by_name.get(table) else {
            continue;
        };
        let ours = tx.columns(table).await?;
        for c in columns.iter() {
            match ours.iter().find(|o| o.name == c.name) {
                Some(o) if o.kind == c.kind => {}
                Some(o) => {
                    return Err(broken(format!(
                        "column {table}.{} is {} in the file but {} here",
                        c.name,
                        c.kind.word(),
                        o.kind.word()
                    )));
                }
                None => {
                    return Err(broken(format!(
                        "column {table}.{} is not in this database",
                        c.name
                    )));
                }
            }
        }
        tx.insert_rows(table, columns, rows).await?;
        if ours.iter().any(|c| c.name == "id") {
            tx.reset_id_counter(table).await?;
        }
        moved.tables.push((table.to_string(), rows.len()));
    }
    tx.commit().await?;
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_check_tells_secrets_apart_and_is_stable() {
        assert_eq!(secret_check("a"), secret_check("a"));
        assert_ne!(secret_check("a"), secret_check("b"));
        assert_eq!(secret_check("a").len(), 24);
    }

    #[test]
    fn a_file_of_a_newer_format_says_so() {
        let text = r#"{"format": "dopis-export", "version": 2, "tables": {}}"#;
        let err = read("x.json", text).unwrap_err();
        assert!(matches!(err, ExportError::NewerFormat { .. }), "{err}");
        assert!(err.to_string().contains("format version 2"), "{err}");
    }

    #[test]
    fn a_broken_or_foreign_file_is_refused_clearly() {
        let cut = r#"{"format": "dopis-export", "version": 1, "tables": [{"na"#;
        let err = read("x.json", cut).unwrap_err().to_string();
        assert!(err.contains("not complete JSON"), "{err}");
        let other = r#"{"name": "something else"}"#;
        let err = read("x.json", other).unwrap_err().to_string();
        assert!(err.contains("\"format\": \"dopis-export\""), "{err}");
    }

    #[test]
    fn values_are_checked_against_their_column_kinds() {
        let doc = |value: &str| {
            format!(
                r#"{{"format": "dopis-export", "version": 1, "dopis": "0", "schema": 1,
                "from": "sqlite", "exported_at": "x", "secret_check": "",
                "tables": [{{"name": "players", "columns": [["id", "integer"]], "rows": [[{value}]]}}]}}"#
            )
        };
        assert!(read("x", &doc("7")).is_ok());
        assert!(read("x", &doc("null")).is_ok());
        let err = read("x", &doc("\"7\"")).unwrap_err().to_string();
        assert!(err.contains("id is not an integer"), "{err}");
        let err = read("x", &doc("1.5")).unwrap_err().to_string();
        assert!(err.contains("id is not an integer"), "{err}");
    }
}
