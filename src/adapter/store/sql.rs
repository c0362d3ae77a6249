//! How every statement of the store reaches its database: one small query
//! API (`query(…).bind(…).fetch_all(…)`, rows read by column name) over two
//! ways of running it.
//!
//! - **SQLite** runs on [`rusqlite`] connections of the store's own pool,
//!   on the calling thread, each statement prepared once per connection
//!   and cached.
//! - **PostgreSQL** runs on sqlx's `Any` driver, as before.
//!
//! Why SQLite does not go through sqlx (issue 27). sqlx's SQLite driver
//! runs each connection on a worker thread of its own and hands every
//! statement to it and every row back over channels: two thread wake-ups a
//! statement. The daemon's ~28 statements per move mail spent 44% of its
//! samples in those hand-offs (futex, scheduler), more than SQLite and the
//! file system together, and that capped one core near 200 mails/s. A
//! statement on an open SQLite connection is a library call of a few
//! microseconds, so here it is one: the worker thread and its channels are
//! gone from the hot path, and the figures in `src/adapter/store/mod.rs`
//! say what that bought.
//!
//! What that costs, and why it is acceptable: a statement blocks the thread
//! it runs on, for as long as SQLite takes (microseconds; a commit waits
//! for its fsync) or, when another process holds the write lock, until
//! the busy timeout. The daemon does its steps one at a time, CLI commands
//! are short, and the runtime has more than one worker, so nothing waits
//! on a blocked thread that another could not run.
//!
//! rusqlite 0.39 is pinned because it links the same `libsqlite3-sys`
//! (0.37, bundled SQLite) as sqlx 0.9, which still runs the migrations: a
//! program must have one SQLite library, or two copies would each keep
//! their own POSIX locks on the file and could corrupt it.
//!
//! Both ways speak the same SQL: parameters are `$1`, `$2`, … (SQLite reads
//! `$1` as a parameter named `$1`, so each is bound by its name's number,
//! as sqlx does), and values are the few kinds both databases store alike
//! (BIGINT, DOUBLE, TEXT, BLOB/BYTEA, and BOOLEAN, which SQLite keeps as
//! 0/1).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sqlx::{Any, AnyPool, Arguments as _, Column as _, Row as _, Transaction, ValueRef as _};

use super::StoreError;

/// A value bound to a statement or read from a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// NULL, of the kind the parameter would have had (PostgreSQL is told
    /// the type of every parameter, NULL or not).
    Null(Kind),
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Real(f64),
    /// A text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// A boolean (SQLite stores it as 0 or 1).
    Bool(bool),
}

/// The kind of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// BIGINT.
    Int,
    /// DOUBLE PRECISION / REAL.
    Real,
    /// TEXT.
    Text,
    /// BLOB / BYTEA.
    Blob,
    /// BOOLEAN.
    Bool,
}

/// What can be bound to a statement.
pub trait Encode {
    /// The kind a NULL of this type is bound as.
    const KIND: Kind;
    /// The value to bind.
    fn encode(self) -> Value;
}

macro_rules! encode_as {
    ($kind:ident, $variant:ident, $($t:ty => $conv:expr),+ $(,)?) => {$(
        impl Encode for $t {
            const KIND: Kind = Kind::$kind;
            fn encode(self) -> Value {
                let f: fn($t) -> _ = $conv;
                Value::$variant(f(self))
            }
        }
    )+};
}

encode_as!(Int, Int, i64 => |v| v, i32 => i64::from, u32 => i64::from, i16 => i64::from);
encode_as!(Real, Real, f64 => |v| v);
encode_as!(Bool, Bool, bool => |v| v);
encode_as!(Text, Text, String => |v| v, &str => str::to_string, &String => String::clone);
encode_as!(Blob, Blob, Vec<u8> => |v| v, &[u8] => <[u8]>::to_vec, &Vec<u8> => Vec::clone);

impl<T: Encode> Encode for Option<T> {
    const KIND: Kind = T::KIND;
    fn encode(self) -> Value {
        match self {
            Some(v) => v.encode(),
            None => Value::Null(T::KIND),
        }
    }
}

impl<T: Encode + Clone> Encode for &Option<T> {
    const KIND: Kind = T::KIND;
    fn encode(self) -> Value {
        self.clone().encode()
    }
}

/// What can be read from a column.
pub trait Decode: Sized {
    /// The value as this type, or why not.
    fn decode(value: &Value) -> Result<Self, String>;
}

fn mismatch<T>(value: &Value, wanted: &str) -> Result<T, String> {
    Err(format!("expected {wanted}, found {value:?}"))
}

impl Decode for i64 {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Int(v) => Ok(*v),
            Value::Bool(b) => Ok(i64::from(*b)),
            other => mismatch(other, "an integer"),
        }
    }
}

impl Decode for i32 {
    fn decode(value: &Value) -> Result<Self, String> {
        let v = i64::decode(value)?;
        i32::try_from(v).map_err(|_| format!("integer {v} is out of range"))
    }
}

impl Decode for f64 {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Real(v) => Ok(*v),
            #[allow(clippy::cast_precision_loss)]
            Value::Int(v) => Ok(*v as f64),
            other => mismatch(other, "a number"),
        }
    }
}

impl Decode for bool {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Bool(b) => Ok(*b),
            Value::Int(v) => Ok(*v != 0),
            other => mismatch(other, "a boolean"),
        }
    }
}

impl Decode for String {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Text(s) => Ok(s.clone()),
            other => mismatch(other, "a text"),
        }
    }
}

impl Decode for Vec<u8> {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Blob(b) => Ok(b.clone()),
            // SQLite keeps what was bound: bytes bound as text read back as text.
            Value::Text(s) => Ok(s.as_bytes().to_vec()),
            other => mismatch(other, "bytes"),
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null(_) => Ok(None),
            other => T::decode(other).map(Some),
        }
    }
}

/// One row of a result, its values by column.
#[derive(Debug, Clone)]
pub struct Row {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

/// How a column is named: by its name or its position from 0.
pub trait ColumnIndex: std::fmt::Display + Copy {
    /// Its position in `row`.
    fn position(self, row: &Row) -> Option<usize>;
}

impl ColumnIndex for &str {
    fn position(self, row: &Row) -> Option<usize> {
        row.columns.iter().position(|c| c == self)
    }
}

impl ColumnIndex for usize {
    fn position(self, row: &Row) -> Option<usize> {
        (self < row.values.len()).then_some(self)
    }
}

impl Row {
    /// The value of a column as `T`.
    pub fn try_get<T: Decode, I: ColumnIndex>(&self, index: I) -> Result<T, StoreError> {
        let at = index
            .position(self)
            .ok_or_else(|| StoreError::Corrupt(format!("no column {index} in the result")))?;
        T::decode(&self.values[at]).map_err(|e| StoreError::Corrupt(format!("column {index}: {e}")))
    }
}

/// A statement's text. `&'static str` for a fixed one; a text built at run
/// time must be wrapped in [`AssertSqlSafe`], which says that whoever built
/// it put no outside input in it (that goes in parameters).
pub struct Sql(std::borrow::Cow<'static, str>);

/// A statement's text built at run time from trusted parts only.
pub struct AssertSqlSafe<T>(pub T);

impl From<&'static str> for Sql {
    fn from(s: &'static str) -> Sql {
        Sql(s.into())
    }
}

impl From<AssertSqlSafe<String>> for Sql {
    fn from(s: AssertSqlSafe<String>) -> Sql {
        Sql(s.0.into())
    }
}

impl From<AssertSqlSafe<&'static str>> for Sql {
    fn from(s: AssertSqlSafe<&'static str>) -> Sql {
        Sql(s.0.into())
    }
}

/// A statement and its parameters.
#[must_use = "a query does nothing until it is run"]
pub struct Query {
    sql: Sql,
    args: Vec<Value>,
}

/// A statement with its text.
pub fn query(sql: impl Into<Sql>) -> Query {
    Query {
        sql: sql.into(),
        args: Vec::new(),
    }
}

/// A statement whose rows are one value each, of type `T`.
#[must_use = "a query does nothing until it is run"]
pub struct QueryScalar<T> {
    query: Query,
    _value: std::marker::PhantomData<fn() -> T>,
}

/// A statement that reads one value a row.
pub fn query_scalar<T: Decode>(sql: impl Into<Sql>) -> QueryScalar<T> {
    QueryScalar {
        query: query(sql),
        _value: std::marker::PhantomData,
    }
}

impl<T: Decode> QueryScalar<T> {
    /// Binds the next parameter.
    pub fn bind(mut self, value: impl Encode) -> QueryScalar<T> {
        self.query = self.query.bind(value);
        self
    }

    /// The value of the first row; an error when there is none.
    pub async fn fetch_one<'a>(self, on: impl Into<Exec<'a>>) -> Result<T, StoreError> {
        self.query.fetch_one(on).await?.try_get(0)
    }
}

/// What a statement that returns no rows did.
#[derive(Debug, Clone, Copy)]
pub struct Done {
    rows: u64,
}

impl Done {
    /// How many rows it inserted, changed or deleted.
    pub fn rows_affected(&self) -> u64 {
        self.rows
    }
}

/// Where a statement runs: on a connection of the pool, or in a transaction.
pub enum Exec<'a> {
    /// Any connection of the pool, for one statement.
    Pool(&'a Pool),
    /// The connection of a transaction.
    Conn(&'a mut Conn),
}

impl<'a> From<&'a Pool> for Exec<'a> {
    fn from(pool: &'a Pool) -> Exec<'a> {
        Exec::Pool(pool)
    }
}

impl<'a> From<&'a mut Conn> for Exec<'a> {
    fn from(conn: &'a mut Conn) -> Exec<'a> {
        Exec::Conn(conn)
    }
}

impl Query {
    /// Binds the next parameter (`$1`, then `$2`, …).
    pub fn bind(mut self, value: impl Encode) -> Query {
        self.args.push(value.encode());
        self
    }

    /// Runs a statement; how many rows it changed.
    pub async fn execute<'a>(self, on: impl Into<Exec<'a>>) -> Result<Done, StoreError> {
        self.run(on.into(), false, |_| Ok(true)).await
    }

    /// Every row of the result.
    pub async fn fetch_all<'a>(self, on: impl Into<Exec<'a>>) -> Result<Vec<Row>, StoreError> {
        let mut rows = Vec::new();
        self.run(on.into(), true, |row| {
            rows.push(row);
            Ok(true)
        })
        .await?;
        Ok(rows)
    }

    /// The first row of the result, if there is one.
    pub async fn fetch_optional<'a>(
        self,
        on: impl Into<Exec<'a>>,
    ) -> Result<Option<Row>, StoreError> {
        let mut first = None;
        self.run(on.into(), true, |row| {
            first = Some(row);
            Ok(false)
        })
        .await?;
        Ok(first)
    }

    /// The first row of the result; an error when there is none.
    pub async fn fetch_one<'a>(self, on: impl Into<Exec<'a>>) -> Result<Row, StoreError> {
        self.fetch_optional(on)
            .await?
            .ok_or(StoreError::Database(sqlx::Error::RowNotFound))
    }

    /// Hands each row to `each` as it is read, so that memory does not grow
    /// with the rows (the deadline report over a million games).
    pub async fn for_each<'a, E: From<StoreError>>(
        self,
        on: impl Into<Exec<'a>>,
        mut each: impl FnMut(Row) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut failed = None;
        self.run(on.into(), true, |row| match each(row) {
            Ok(()) => Ok(true),
            Err(e) => {
                failed = Some(e);
                Ok(false)
            }
        })
        .await?;
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs the statement, handing each row to `each` until it says stop.
    async fn run(
        self,
        on: Exec<'_>,
        rows_wanted: bool,
        each: impl FnMut(Row) -> Result<bool, StoreError>,
    ) -> Result<Done, StoreError> {
        // Each statement, at trace level (`DOPIS_LOG=dopis::sql=trace`): to
        // count what a mail costs.
        tracing::trace!(target: "dopis::sql", statement = %self.sql.0);
        match on {
            Exec::Pool(Pool::Sqlite(pool)) => {
                let conn = pool.get()?;
                sqlite_run(conn.conn(), &self.sql.0, &self.args, each)
            }
            Exec::Conn(Conn::Sqlite(conn)) => {
                sqlite_run(conn.conn(), &self.sql.0, &self.args, each)
            }
            Exec::Pool(Pool::Any(pool)) => any_run(pool, self, rows_wanted, each).await,
            Exec::Conn(Conn::Any(tx)) => any_run(&mut **tx, self, rows_wanted, each).await,
        }
    }
}

/// Runs one statement on a SQLite connection.
fn sqlite_run(
    conn: &rusqlite::Connection,
    sql: &str,
    args: &[Value],
    mut each: impl FnMut(Row) -> Result<bool, StoreError>,
) -> Result<Done, StoreError> {
    use rusqlite::types::{Null, ValueRef};
    let mut stmt = conn.prepare_cached(sql)?;
    for index in 1..=stmt.parameter_count() {
        let number = stmt
            .parameter_name(index)
            .and_then(|name| name.strip_prefix(['$', '?']))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(index);
        let value = args.get(number - 1).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "statement wants parameter ${number}, {} were bound: {sql}",
                args.len()
            ))
        })?;
        match value {
            Value::Null(_) => stmt.raw_bind_parameter(index, Null)?,
            Value::Int(v) => stmt.raw_bind_parameter(index, v)?,
            Value::Real(v) => stmt.raw_bind_parameter(index, v)?,
            Value::Text(v) => stmt.raw_bind_parameter(index, v.as_str())?,
            Value::Blob(v) => stmt.raw_bind_parameter(index, v.as_slice())?,
            Value::Bool(v) => stmt.raw_bind_parameter(index, i64::from(*v))?,
        }
    }
    let count = stmt.column_count();
    let columns: Arc<[String]> = stmt.column_names().iter().map(|c| c.to_string()).collect();
    let mut rows = stmt.raw_query();
    while let Some(row) = rows.next()? {
        let mut values = Vec::with_capacity(count);
        for i in 0..count {
            values.push(match row.get_ref(i)? {
                ValueRef::Null => Value::Null(Kind::Text),
                ValueRef::Integer(v) => Value::Int(v),
                ValueRef::Real(v) => Value::Real(v),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Blob(b.to_vec()),
            });
        }
        if !each(Row {
            columns: columns.clone(),
            values,
        })? {
            return Ok(Done { rows: 0 });
        }
    }
    drop(rows);
    Ok(Done {
        rows: conn.changes(),
    })
}

/// Runs one statement through sqlx's `Any` driver (PostgreSQL).
async fn any_run<'c, E>(
    on: E,
    q: Query,
    rows_wanted: bool,
    mut each: impl FnMut(Row) -> Result<bool, StoreError>,
) -> Result<Done, StoreError>
where
    E: sqlx::Executor<'c, Database = Any>,
{
    use futures::TryStreamExt as _;
    let mut args = sqlx::any::AnyArguments::default();
    for value in q.args {
        let added = match value {
            Value::Null(Kind::Int) => args.add(None::<i64>),
            Value::Null(Kind::Real) => args.add(None::<f64>),
            Value::Null(Kind::Text) => args.add(None::<String>),
            Value::Null(Kind::Blob) => args.add(None::<Vec<u8>>),
            Value::Null(Kind::Bool) => args.add(None::<bool>),
            Value::Int(v) => args.add(v),
            Value::Real(v) => args.add(v),
            Value::Text(v) => args.add(v),
            Value::Blob(v) => args.add(v),
            Value::Bool(v) => args.add(v),
        };
        added.map_err(|e| StoreError::Database(sqlx::Error::Encode(e)))?;
    }
    let query = sqlx::query_with(sqlx::AssertSqlSafe(q.sql.0), args);
    if !rows_wanted {
        let done = query.execute(on).await?;
        return Ok(Done {
            rows: done.rows_affected(),
        });
    }
    let mut stream = query.fetch(on);
    let mut columns: Option<Arc<[String]>> = None;
    while let Some(row) = stream.try_next().await? {
        let columns = columns
            .get_or_insert_with(|| row.columns().iter().map(|c| c.name().to_string()).collect())
            .clone();
        if !each(any_row(&row, columns)?)? {
            break;
        }
    }
    Ok(Done { rows: 0 })
}

/// A row of sqlx's `Any` driver as a [`Row`].
fn any_row(row: &sqlx::any::AnyRow, columns: Arc<[String]>) -> Result<Row, StoreError> {
    use sqlx::any::AnyTypeInfoKind as K;
    let mut values = Vec::with_capacity(row.len());
    for i in 0..row.len() {
        let raw = row.try_get_raw(i)?;
        let value = if raw.is_null() {
            Value::Null(Kind::Text)
        } else {
            match raw.type_info().kind() {
                K::Null => Value::Null(Kind::Text),
                K::Bool => Value::Bool(row.try_get(i)?),
                K::SmallInt => Value::Int(i64::from(row.try_get::<i16, _>(i)?)),
                K::Integer => Value::Int(i64::from(row.try_get::<i32, _>(i)?)),
                K::BigInt => Value::Int(row.try_get(i)?),
                K::Real => Value::Real(f64::from(row.try_get::<f32, _>(i)?)),
                K::Double => Value::Real(row.try_get(i)?),
                K::Text => Value::Text(row.try_get(i)?),
                K::Blob => Value::Blob(row.try_get(i)?),
            }
        };
        values.push(value);
    }
    Ok(Row { columns, values })
}

/// The store's connections.
#[derive(Debug, Clone)]
pub enum Pool {
    /// SQLite: rusqlite connections, opened as needed and kept.
    Sqlite(Arc<SqlitePool>),
    /// PostgreSQL: sqlx's pool.
    Any(AnyPool),
}

/// An open transaction's connection.
pub enum Conn {
    /// SQLite.
    Sqlite(Pooled),
    /// PostgreSQL.
    Any(Transaction<'static, Any>),
}

impl Pool {
    /// Starts a transaction.
    pub async fn begin(&self) -> Result<Conn, StoreError> {
        self.begin_as("BEGIN").await
    }

    /// Starts a transaction that reads before it writes. On SQLite it takes
    /// the write lock at once (`BEGIN IMMEDIATE`, waiting out another
    /// writer as any write does): a plain `BEGIN` reads a snapshot first,
    /// and when another connection commits before the first write, that
    /// write fails at once with `SQLITE_BUSY` (the snapshot is stale; no
    /// waiting helps), and the daemon's whole pass waited 5 s to try again.
    /// Seen with CLI commands writing while `serve` claimed the outbox.
    /// PostgreSQL has no such case: a plain transaction.
    pub async fn begin_writing(&self) -> Result<Conn, StoreError> {
        self.begin_as("BEGIN IMMEDIATE").await
    }

    async fn begin_as(&self, begin: &str) -> Result<Conn, StoreError> {
        match self {
            Pool::Sqlite(pool) => {
                let conn = pool.get()?;
                conn.conn().execute_batch(begin)?;
                Ok(Conn::Sqlite(conn))
            }
            Pool::Any(pool) => Ok(Conn::Any(pool.begin().await?)),
        }
    }

    /// Closes every idle connection; no new one is opened after.
    pub async fn close(&self) {
        match self {
            Pool::Sqlite(pool) => pool.close(),
            Pool::Any(pool) => pool.close().await,
        }
    }
}

impl Conn {
    /// Commits the transaction.
    pub async fn commit(self) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(conn) => Ok(conn.conn().execute_batch("COMMIT")?),
            Conn::Any(tx) => Ok(tx.commit().await?),
        }
    }

    /// Undoes the transaction.
    pub async fn rollback(self) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(conn) => Ok(conn.conn().execute_batch("ROLLBACK")?),
            Conn::Any(tx) => Ok(tx.rollback().await?),
        }
    }

    /// Runs a statement without parameters or rows (savepoints).
    pub async fn execute_plain(&mut self, sql: &'static str) -> Result<(), StoreError> {
        query(sql).execute(self).await.map(|_| ())
    }
}

/// How SQLite connections are opened.
#[derive(Debug)]
pub struct SqlitePool {
    file: String,
    flags: rusqlite::OpenFlags,
    idle: Mutex<Vec<rusqlite::Connection>>,
    closed: AtomicBool,
}

/// How long a statement waits for another connection's write lock: sqlx's
/// default, kept so that a CLI command and the daemon wait for each other
/// as they did.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Idle connections kept open (more are opened when needed, then closed).
const MAX_IDLE: usize = 4;

impl SqlitePool {
    /// A pool for the database file `file`; `create` makes the file when
    /// missing. `mode`, the URL's `mode=` (as sqlx read it): `ro` opens it
    /// read-only, `rwc` may create it.
    pub fn new(file: &str, create: bool, mode: Option<&str>) -> SqlitePool {
        use rusqlite::OpenFlags as F;
        let mut flags = F::SQLITE_OPEN_NO_MUTEX;
        flags |= match mode {
            Some("ro") => F::SQLITE_OPEN_READ_ONLY,
            _ => F::SQLITE_OPEN_READ_WRITE,
        };
        if create || mode == Some("rwc") {
            flags |= F::SQLITE_OPEN_CREATE;
        }
        SqlitePool {
            file: file.to_string(),
            flags,
            idle: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }
    }

    /// An idle connection, or a new one.
    pub fn get(self: &Arc<Self>) -> Result<Pooled, StoreError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(StoreError::Database(sqlx::Error::PoolClosed));
        }
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match idle {
            Some(conn) => conn,
            None => self.open()?,
        };
        Ok(Pooled {
            conn: Some(conn),
            pool: self.clone(),
        })
    }

    /// Opens a connection as every connection of the store is set up:
    /// foreign keys enforced and a busy timeout, as sqlx set them, and
    /// `synchronous = FULL`: with WAL, a commit then returns only once the
    /// WAL is on disk. That is what makes a move durable before its mail is
    /// marked handled (moved to `cur/`, flagged seen on IMAP): under
    /// `NORMAL` a commit survives a crash of the process but not a power
    /// loss, and after one the move would be gone while its mail no longer
    /// looks unread, so it would never be read again.
    fn open(&self) -> Result<rusqlite::Connection, StoreError> {
        let conn = rusqlite::Connection::open_with_flags(&self.file, self.flags)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // `temp_store = MEMORY`: the daemon undoes a failed mail alone with
        // a savepoint, and SQLite keeps what a savepoint may undo in a
        // sub-journal, by default a temporary file: a write system call for
        // each page a mail changes, 7% of the daemon's time (issue 27). It
        // holds a few pages a mail, and nothing in it needs to outlive the
        // transaction, so memory is the place for it.
        conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;",
        )?;
        conn.set_prepared_statement_cache_capacity(256);
        Ok(conn)
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|e| e.into_inner()));
        drop(idle);
    }
}

/// A connection taken from the pool; back to it when dropped, with any
/// transaction left open rolled back first.
pub struct Pooled {
    conn: Option<rusqlite::Connection>,
    pool: Arc<SqlitePool>,
}

impl Pooled {
    fn conn(&self) -> &rusqlite::Connection {
        self.conn
            .as_ref()
            .expect("a pooled connection is there until dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else {
            return;
        };
        // A transaction dropped without commit (an error, a panic) is undone
        // here; a connection that cannot undo it is closed, not reused.
        if !conn.is_autocommit() && conn.execute_batch("ROLLBACK").is_err() {
            return;
        }
        if self.pool.closed.load(Ordering::Acquire) {
            return;
        }
        let mut idle = self.pool.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_are_bound_with_their_kind() {
        assert_eq!(None::<i64>.encode(), Value::Null(Kind::Int));
        assert_eq!(None::<String>.encode(), Value::Null(Kind::Text));
        assert_eq!(Some("a").encode(), Value::Text("a".into()));
    }

    /// A new SQLite file in a folder of its own, and a pool on it.
    fn scratch_pool() -> (std::path::PathBuf, std::path::PathBuf, Pool) {
        let dir = std::env::temp_dir().join(format!("dopis-sql-{:08x}", rand::random::<u32>()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("t.db");
        let pool = Pool::Sqlite(Arc::new(SqlitePool::new(
            &file.to_string_lossy(),
            true,
            None,
        )));
        (dir, file, pool)
    }

    #[tokio::test]
    async fn parameters_are_bound_by_their_number_not_their_place() {
        let (dir, _, pool) = scratch_pool();
        let mut tx = pool.begin().await.unwrap();
        query("CREATE TABLE t (a BIGINT, b TEXT)")
            .execute(&mut tx)
            .await
            .unwrap();
        let done = query("INSERT INTO t (b, a) VALUES ($2, $1)")
            .bind(7)
            .bind("seven")
            .execute(&mut tx)
            .await
            .unwrap();
        assert_eq!(done.rows_affected(), 1);
        tx.commit().await.unwrap();
        let row = query("SELECT a, b, NULL AS c FROM t WHERE a = $1 AND b = $1 || '' OR b = $2")
            .bind(7)
            .bind("seven")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(row.try_get::<i64, _>("a").unwrap(), 7);
        assert_eq!(row.try_get::<String, _>(1).unwrap(), "seven");
        assert_eq!(row.try_get::<Option<i64>, _>("c").unwrap(), None);
        assert!(row.try_get::<i64, _>("b").is_err());
        assert!(row.try_get::<i64, _>("nope").is_err());
        // A transaction dropped without commit is rolled back.
        let mut tx = pool.begin().await.unwrap();
        query("DELETE FROM t").execute(&mut tx).await.unwrap();
        drop(tx);
        let n = query("SELECT COUNT(*) AS n FROM t")
            .fetch_one(&pool)
            .await
            .unwrap();
        assert_eq!(n.try_get::<i64, _>("n").unwrap(), 1);
        pool.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }

    /// Reads in `tx`, lets another connection (which does not wait for
    /// locks) write to `file`, then writes in `tx` and commits: whether the
    /// other write got in, and what became of this one.
    async fn read_other_write(
        mut tx: Conn,
        file: &std::path::Path,
    ) -> (bool, Result<(), StoreError>) {
        if let Err(e) = query("SELECT COUNT(*) FROM t").fetch_one(&mut tx).await {
            return (false, Err(e));
        }
        let other = rusqlite::Connection::open(file).unwrap();
        other.busy_timeout(Duration::ZERO).unwrap();
        let overtaken = other.execute_batch("INSERT INTO t (a) VALUES (2)").is_ok();
        let written = query("INSERT INTO t (a) VALUES (1)").execute(&mut tx).await;
        let done = match written {
            Ok(_) => tx.commit().await,
            Err(e) => Err(e),
        };
        (overtaken, done)
    }

    #[tokio::test]
    async fn a_transaction_begun_for_writing_cannot_be_overtaken_between_its_read_and_write() {
        let (dir, file, pool) = scratch_pool();
        query("PRAGMA journal_mode = WAL")
            .fetch_all(&pool)
            .await
            .unwrap();
        query("CREATE TABLE t (a BIGINT)")
            .execute(&pool)
            .await
            .unwrap();
        // A plain transaction: the other write gets in between, and this
        // one's write then fails at once (its snapshot is stale), an outage
        // to the daemon.
        let (overtaken, written) = read_other_write(pool.begin().await.unwrap(), &file).await;
        assert!(overtaken);
        let e = written.unwrap_err();
        assert_eq!(e.blame(), super::super::Blame::Outage, "{e}");
        // Begun for writing: the other write is the one that must wait
        // (here it does not, so it fails), and this one goes through.
        let (overtaken, written) =
            read_other_write(pool.begin_writing().await.unwrap(), &file).await;
        assert!(!overtaken);
        written.unwrap();
        pool.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }
}
