//! Logging for the daemon: structured lines on stderr, filtered by
//! `DOPIS_LOG` (e.g. `DOPIS_LOG=debug`, default `info`).

use tracing_subscriber::EnvFilter;

/// Starts logging; a second call does nothing.
pub fn init() {
    let filter = EnvFilter::try_from_env("DOPIS_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
