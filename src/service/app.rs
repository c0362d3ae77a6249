//! What every command and the daemon share: the config, the store, the clock.

use chrono::{DateTime, Utc};

use crate::adapter::config::{Config, ConfigError};
use crate::adapter::store::{Store, StoreError};

/// The source of "now". The one place the real clock is read, so tests can
/// control time (STYLE.md: inject the clock).
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> DateTime<Utc>;
}

/// The real clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    #[allow(clippy::disallowed_methods)] // the one sanctioned read of the real clock
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still unless moved: for tests.
#[derive(Debug)]
pub struct FixedClock(std::sync::Mutex<DateTime<Utc>>);

impl FixedClock {
    /// A clock showing `at`.
    pub fn new(at: DateTime<Utc>) -> Self {
        FixedClock(std::sync::Mutex::new(at))
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: chrono::Duration) {
        let mut t = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *t += by;
    }
}

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How the daemon's parts behave, from the config: the same for the
/// daemon, the demo and the tests.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Answers per hour to one address.
    pub answers_per_hour: u32,
    /// Regular leave days per player and calendar year.
    pub allowance: crate::domain::clock::Allowance,
    /// When reminders go out.
    pub plan: crate::domain::clock::ReminderPlan,
    /// The endgame tables (`[tablebase]`); none where none are set up.
    pub tables: std::sync::Arc<dyn crate::domain::chess::tablebase::Tables>,
}

impl Settings {
    /// The settings a config names.
    pub fn from_config(config: &Config) -> Result<Settings, ConfigError> {
        Ok(Settings {
            answers_per_hour: config.mail.answers_per_hour,
            allowance: crate::domain::clock::Allowance::days(config.clock.leave_days),
            plan: config.clock.plan()?,
            tables: open_tables(config)
                .map_err(|e| ConfigError::BadTablebase {
                    message: e.to_string(),
                })?
                .0,
        })
    }
}

/// The endgame tables of `[tablebase] syzygy_path` (none when it names
/// none), and what was found in them: opened once for the daemon, the web
/// and the commands that judge positions.
pub fn open_tables(
    config: &Config,
) -> Result<
    (
        std::sync::Arc<dyn crate::domain::chess::tablebase::Tables>,
        Option<crate::adapter::tablebase::Inventory>,
    ),
    crate::adapter::tablebase::TablebaseError,
> {
    let folders = &config.tablebase.syzygy_path;
    if folders.is_empty() {
        return Ok((
            std::sync::Arc::new(crate::domain::chess::tablebase::NoTables),
            None,
        ));
    }
    let (tables, inventory) = crate::adapter::tablebase::Syzygy::open(folders)?;
    Ok((std::sync::Arc::new(tables), Some(inventory)))
}

/// The config, an open store and a clock.
pub struct App {
    /// The loaded configuration.
    pub config: Config,
    /// The database.
    pub store: Store,
    /// The clock.
    pub clock: Box<dyn Clock>,
}

impl App {
    /// Opens the store named in the config, with the real clock; only a
    /// database `dopis init` set up (see [`Store::open_existing`]).
    pub async fn open(config: Config) -> Result<App, StoreError> {
        let store = Store::open_existing(config.database.url.expose()).await?;
        Ok(App {
            config,
            store,
            clock: Box::new(SystemClock),
        })
    }

    /// Creates (or updates) the store named in the config and opens it, as
    /// `dopis init` does: for the demo, which sets up a database of its own.
    pub async fn create(config: Config) -> Result<App, StoreError> {
        let store = Store::open(config.database.url.expose()).await?;
        Ok(App {
            config,
            store,
            clock: Box::new(SystemClock),
        })
    }
}
