//! Logging for the daemon: lines on stderr, as text or JSON (`[log]
//! format`), filtered by `[log] level` or, when set, `DOPIS_LOG` (e.g.
//! `DOPIS_LOG=debug`). Lines about a mail carry its `mail` reference, lines
//! about an outgoing mail its `key`, lines about a game its `game`, as
//! fields: in JSON they are keys of `fields`, so a collector can select
//! every line of one game or mail.

use tracing_subscriber::EnvFilter;

/// A `[log] level` that is not a filter.
#[derive(Debug, thiserror::Error)]
#[error(
    "[log] level '{0}' is not a log level: write error, warn, info, debug or trace \
     (or a filter such as \"info,dopis::daemon=debug\")"
)]
pub struct BadLevel(String);

const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// Whether every directive of `text` ends in a level: `info`, or
/// `dopis::daemon=debug`. (tracing reads a lone unknown word as a target
/// name, so `infoo` would silently log nothing.)
fn is_filter(text: &str) -> bool {
    text.split(',').map(str::trim).all(|directive| {
        let level = directive.rsplit_once('=').map_or(directive, |(_, l)| l);
        LEVELS.contains(&level.trim().to_ascii_lowercase().as_str())
    })
}

fn filter_of(level: &str) -> Result<EnvFilter, BadLevel> {
    if let Ok(filter) = EnvFilter::try_from_env("DOPIS_LOG") {
        return Ok(filter);
    }
    let bad = || BadLevel(level.chars().take(60).collect());
    let level = level.trim();
    if !is_filter(level) {
        return Err(bad());
    }
    EnvFilter::try_new(level).map_err(|_| bad())
}

/// Sets the running log filter anew (`serve` on SIGHUP); set by [`init`].
type SetFilter = Box<dyn Fn(EnvFilter) -> Result<(), String> + Send + Sync>;
static SET_FILTER: std::sync::OnceLock<SetFilter> = std::sync::OnceLock::new();

/// Starts logging at `level` (`[log] level`), as JSON lines when `json`
/// (`[log] format`); a second call does nothing. The level can be changed
/// later with [`set_level`]; the format only by starting again.
pub fn init(json: bool, level: &str) -> Result<(), BadLevel> {
    let filter = filter_of(level)?;
    // Colours only on a terminal: a log file or the journal would get
    // the escape codes as text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    // The two formats are two subscriber types, so each keeps its own
    // reload handle; both end up as one `SetFilter`.
    let set: SetFilter = if json {
        let builder = builder.json().flatten_event(false).with_filter_reloading();
        let handle = builder.reload_handle();
        if builder.try_init().is_err() {
            return Ok(());
        }
        Box::new(move |f| handle.reload(f).map_err(|e| e.to_string()))
    } else {
        let builder = builder.with_filter_reloading();
        let handle = builder.reload_handle();
        if builder.try_init().is_err() {
            return Ok(());
        }
        Box::new(move |f| handle.reload(f).map_err(|e| e.to_string()))
    };
    let _ = SET_FILTER.set(set);
    Ok(())
}

/// Changes the level of the logging [`init`] started (`DOPIS_LOG` still
/// wins when set). `Ok(false)` when there is no such logging to change.
pub fn set_level(level: &str) -> Result<bool, BadLevel> {
    let filter = filter_of(level)?;
    Ok(SET_FILTER.get().is_some_and(|set| set(filter).is_ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_per_module_filters_pass_and_typos_are_refused() {
        for good in ["info", "DEBUG", "warn,dopis::daemon=debug", "off"] {
            assert!(is_filter(good), "{good}");
        }
        for bad in ["infoo", "", "dopis=loud", "info,"] {
            assert!(!is_filter(bad), "{bad}");
        }
    }
}
