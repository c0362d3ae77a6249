//! Whole tables read and written generically, column by column, for
//! `dopis export` and `dopis import` (see [`crate::service::export`]) and
//! for `dopis player forget`'s sweep over every text column.
//!
//! The columns and their types are read from the database's own catalog
//! (SQLite's `pragma_table_info`, PostgreSQL's `information_schema`), so
//! a migration that adds a column is carried without a change here. Every
//! column dopis declares is one of three kinds on both databases: a
//! BIGINT (integers, times in milliseconds, the 0/1 flags), TEXT, or a
//! BLOB/BYTEA; anything else is refused, so a new kind of column cannot be
//! carried wrongly without a test failing.

use super::sql::AssertSqlSafe;

use super::{Backend, StoreError, Tx, corrupt};

/// The kind of a column, as both databases store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// BIGINT (or INTEGER): a 64-bit integer.
    Integer,
    /// TEXT.
    Text,
    /// BLOB (SQLite) or BYTEA (PostgreSQL).
    Blob,
}

impl Kind {
    /// The word the export file uses.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Integer => "integer",
            Kind::Text => "text",
            Kind::Blob => "blob",
        }
    }

    /// The kind an export file's word names.
    pub fn from_word(word: &str) -> Option<Kind> {
        match word {
            "integer" => Some(Kind::Integer),
            "text" => Some(Kind::Text),
            "blob" => Some(Kind::Blob),
            _ => None,
        }
    }

    fn from_declared(table: &str, column: &str, declared: &str) -> Result<Kind, StoreError> {
        let t = declared.to_ascii_lowercase();
        if t.contains("int") {
            Ok(Kind::Integer)
        } else if t.contains("text") || t.contains("char") {
            Ok(Kind::Text)
        } else if t.contains("blob") || t.contains("bytea") {
            Ok(Kind::Blob)
        } else {
            Err(corrupt(format!(
                "column {table}.{column} has the type '{declared}', which export and import \
                 cannot carry (a dopis bug: add the type to src/store/dump.rs)"
            )))
        }
    }
}

/// A column of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
}

/// One stored value. The order (null, integers, texts, blobs, each in
/// their natural order) sorts rows the same way on both databases.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Value {
    /// NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// A table or column name from the catalog, made safe to write into SQL
/// (dopis names are lower-case words; anything else is refused).
fn ident(name: &str) -> Result<String, StoreError> {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        Ok(format!("\"{name}\""))
    } else {
        Err(corrupt(format!("unexpected table or column name '{name}'")))
    }
}

/// The most parameters one statement binds (SQLite before 3.32 allowed 999).
const MAX_PARAMS: usize = 900;

impl Tx {
    /// Makes the transaction read one snapshot of the whole database, so an
    /// export taken while `serve` runs is consistent (SQLite's WAL readers
    /// always do; PostgreSQL reads each statement afresh unless told).
    /// Must be the first statement of the transaction.
    pub async fn read_one_snapshot(&mut self) -> Result<(), StoreError> {
        if self.backend == Backend::Postgres {
            super::sql::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                .execute(&mut self.tx)
                .await?;
        }
        Ok(())
    }

    /// Every table of the database (dopis's and sqlx's migration log), by name.
    pub async fn table_names(&mut self) -> Result<Vec<String>, StoreError> {
        let sql = match self.backend {
            Backend::Sqlite => {
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite_%' ORDER BY name"
            }
            Backend::Postgres => {
                "SELECT table_name::text AS name FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1"
            }
        };
        super::sql::query(sql)
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>("name"))
            .collect()
    }

    /// The columns of a table, in their order in the table.
    pub async fn columns(&mut self, table: &str) -> Result<Vec<Column>, StoreError> {
        let sql = match self.backend {
            Backend::Sqlite => "SELECT name, type FROM pragma_table_info($1) ORDER BY cid",
            Backend::Postgres => {
                "SELECT column_name::text AS name, data_type::text AS type \
                 FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 \
                 ORDER BY ordinal_position"
            }
        };
        let rows = super::sql::query(sql)
            .bind(table)
            .fetch_all(&mut self.tx)
            .await?;
        if rows.is_empty() {
            return Err(corrupt(format!("there is no table {table}")));
        }
        rows.iter()
            .map(|r| {
                let name: String = r.try_get("name")?;
                let declared: String = r.try_get("type")?;
                let kind = Kind::from_declared(table, &name, &declared)?;
                Ok(Column { name, kind })
            })
            .collect()
    }

    /// Every row of a table, each value read as its column's kind, sorted
    /// (so that the same rows come out in the same order on both databases,
    /// whatever their collations).
    pub async fn rows(
        &mut self,
        table: &str,
        columns: &[Column],
    ) -> Result<Vec<Vec<Value>>, StoreError> {
        let names = columns
            .iter()
            .map(|c| ident(&c.name))
            .collect::<Result<Vec<_>, _>>()?
            .join(", ");
        let sql = format!("SELECT {names} FROM {}", ident(table)?);
        let found = super::sql::query(AssertSqlSafe(sql))
            .fetch_all(&mut self.tx)
            .await?;
        let mut rows = Vec::with_capacity(found.len());
        for row in &found {
            let mut values = Vec::with_capacity(columns.len());
            for (i, c) in columns.iter().enumerate() {
                let value = match c.kind {
                    Kind::Integer => row.try_get::<Option<i64>, _>(i)?.map(Value::Int),
                    Kind::Text => row.try_get::<Option<String>, _>(i)?.map(Value::Text),
                    Kind::Blob => row.try_get::<Option<Vec<u8>>, _>(i)?.map(Value::Blob),
                };
                values.push(value.unwrap_or(Value::Null));
            }
            rows.push(values);
        }
        rows.sort();
        Ok(rows)
    }

    /// Whether a table has no rows.
    pub async fn table_is_empty(&mut self, table: &str) -> Result<bool, StoreError> {
        let sql = format!(
            "SELECT COUNT(*) AS n FROM (SELECT 1 FROM {} LIMIT 1) AS t",
            ident(table)?
        );
        let n: i64 = super::sql::query(AssertSqlSafe(sql))
            .fetch_one(&mut self.tx)
            .await?
            .try_get("n")?;
        Ok(n == 0)
    }

    /// Inserts rows into a table as they are (ids included), several rows
    /// per statement. Each value must be of its column's kind or NULL.
    pub async fn insert_rows(
        &mut self,
        table: &str,
        columns: &[Column],
        rows: &[Vec<Value>],
    ) -> Result<(), StoreError> {
        if columns.is_empty() || rows.is_empty() {
            return Ok(());
        }
        let names = columns
            .iter()
            .map(|c| ident(&c.name))
            .collect::<Result<Vec<_>, _>>()?
            .join(", ");
        let per_statement = (MAX_PARAMS / columns.len()).max(1);
        for chunk in rows.chunks(per_statement) {
            let mut sql = format!("INSERT INTO {} ({names}) VALUES ", ident(table)?);
            let mut n = 0;
            for (r, row) in chunk.iter().enumerate() {
                if row.len() != columns.len() {
                    return Err(corrupt(format!(
                        "a row of {table} has {} values for {} columns",
                        row.len(),
                        columns.len()
                    )));
                }
                sql.push_str(if r == 0 { "(" } else { ", (" });
                for i in 0..row.len() {
                    n += 1;
                    if i > 0 {
                        sql.push_str(", ");
                    }
                    sql.push_str(&format!("${n}"));
                }
                sql.push(')');
            }
            let mut query = super::sql::query(AssertSqlSafe(sql));
            for row in chunk {
                for (value, column) in row.iter().zip(columns) {
                    // A NULL is bound with its column's type: PostgreSQL
                    // refuses a BIGINT NULL for a TEXT column.
                    query = match (value, column.kind) {
                        (Value::Null, Kind::Integer) => query.bind(None::<i64>),
                        (Value::Null, Kind::Text) => query.bind(None::<String>),
                        (Value::Null, Kind::Blob) => query.bind(None::<Vec<u8>>),
                        (Value::Int(v), Kind::Integer) => query.bind(*v),
                        (Value::Text(v), Kind::Text) => query.bind(v.clone()),
                        (Value::Blob(v), Kind::Blob) => query.bind(v.clone()),
                        (_, kind) => {
                            return Err(corrupt(format!(
                                "a value for {table}.{} is not {}",
                                column.name,
                                kind.word()
                            )));
                        }
                    };
                }
            }
            query.execute(&mut self.tx).await?;
        }
        Ok(())
    }

    /// Sets a table's id counter past its largest id, after rows were
    /// inserted with their ids: PostgreSQL's identity sequence does not
    /// move by itself, so the next new row would collide. SQLite's
    /// AUTOINCREMENT counter follows inserted ids by itself.
    pub async fn reset_id_counter(&mut self, table: &str) -> Result<(), StoreError> {
        if self.backend == Backend::Postgres {
            let sql = format!(
                "SELECT setval(pg_get_serial_sequence($1, 'id'), \
                 (SELECT COALESCE(MAX(id), 0) + 1 FROM {}), false) AS n",
                ident(table)?
            );
            super::sql::query(AssertSqlSafe(sql))
                .bind(table)
                .execute(&mut self.tx)
                .await?;
        }
        Ok(())
    }

    /// The newest migration applied to the database.
    pub async fn schema_version(&mut self) -> Result<i64, StoreError> {
        let v: Option<i64> = super::sql::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&mut self.tx)
            .await?;
        Ok(v.unwrap_or(0))
    }

    /// The distinct values of a text column that contain `needle`, in any
    /// case (ASCII and what the database lower-cases).
    pub async fn values_containing(
        &mut self,
        table: &str,
        column: &str,
        needle: &str,
    ) -> Result<Vec<String>, StoreError> {
        let c = ident(column)?;
        let sql = format!(
            "SELECT DISTINCT {c} AS v FROM {} WHERE LOWER({c}) <> REPLACE(LOWER({c}), $1, '')",
            ident(table)?
        );
        super::sql::query(AssertSqlSafe(sql))
            .bind(needle.to_lowercase())
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>("v"))
            .collect()
    }

    /// Sets a text column to `new` wherever it is `old`; returns how many rows.
    pub async fn replace_value(
        &mut self,
        table: &str,
        column: &str,
        old: &str,
        new: &str,
    ) -> Result<u64, StoreError> {
        let c = ident(column)?;
        let sql = format!("UPDATE {} SET {c} = $1 WHERE {c} = $2", ident(table)?);
        let done = super::sql::query(AssertSqlSafe(sql))
            .bind(new)
            .bind(old)
            .execute(&mut self.tx)
            .await?;
        Ok(done.rows_affected())
    }
}
