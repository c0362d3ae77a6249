//! The fault suite: the real binary under crashes, outages, hostile mail,
//! forgery, loops and two daemons. Each test runs short here, inside the
//! test command, and long by hand (`bash scripts/faults.sh --long`, which
//! sets `DOPIS_FAULTS=long`), printing its figures either way.

mod crash_load;
mod daemons;
mod forgery;
mod hostile;
mod loops;
mod observe;
mod outage;
mod play;
mod soak;
mod stages;

/// How big a fault test runs.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    /// Whether this is the long run.
    pub long: bool,
}

impl Scale {
    /// `DOPIS_FAULTS=long` for the long run, else the short one.
    pub fn from_env() -> Scale {
        Scale {
            long: std::env::var("DOPIS_FAULTS").is_ok_and(|v| v == "long"),
        }
    }

    /// `short` in the test command, `long` by hand.
    pub fn pick<T>(self, short: T, long: T) -> T {
        if self.long { long } else { short }
    }
}

/// Prints a figure of a fault test, in one greppable form:
/// `fault-figure <test> | <name> = <value>` (names may hold spaces: the
/// scripts split at ` | ` and ` = ` to print a table), and adds it to the file
/// `DOPIS_FAULT_FIGURES` names (the test command prints that file at the
/// end, as cargo hides what passing tests print).
pub fn figure(test: &str, name: &str, value: impl std::fmt::Display) {
    let line = format!("fault-figure {test} | {name} = {value}");
    eprintln!("{line}");
    if let Ok(path) = std::env::var("DOPIS_FAULT_FIGURES") {
        use std::io::Write;
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(file, "{line}");
        }
    }
}
