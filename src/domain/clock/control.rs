//! Time controls, written as short specs that TDs type and players read.
//!
//! | spec            | meaning                                                     |
//! |-----------------|-------------------------------------------------------------|
//! | `3d`            | each reply within 3 days (default)                          |
//! | `10/50d`        | ICCF: 10 moves in 50 days, cumulative, whole days charged   |
//! | `10/50d!20`     | as above, days over 20 on one move count double             |
//! | `10/50d,max10d` | as above, and no single move may take more than 10 days     |
//! | `30d+3d`        | Fischer: 30 days, plus 3 per move                           |
//! | `30d+3d<=45d`   | Fischer with the time bank capped at 45 days                |

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A game's time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum TimeControl {
    /// Each reply is due `days` × 24 h after the opponent's move arrived.
    DaysPerMove {
        /// Days per move.
        days: u32,
    },
    /// ICCF cumulative: `moves` moves in `days` days, whole days charged.
    Cumulative {
        /// Moves per period.
        moves: u32,
        /// Days per period.
        days: u32,
        /// Days over this on a single move count double (ICCF: 20).
        double_after: Option<u32>,
        /// A cap on any single move, in days.
        max_per_move: Option<u32>,
    },
    /// Fischer in days: an initial bank plus an increment per move.
    Fischer {
        /// Initial days.
        initial: u32,
        /// Days added after each move.
        increment: u32,
        /// The bank never grows beyond this many days.
        cap: Option<u32>,
    },
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl::DaysPerMove { days: 3 }
    }
}

/// A time control spec that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot read time control '{spec}': {why}; write e.g. 3d (3 days per move), \
     10/50d (10 moves in 50 days), 10/50d!20, 10/50d,max10d, 30d+3d or 30d+3d<=45d"
)]
pub struct BadTimeControl {
    /// What was given.
    pub spec: String,
    /// What is wrong.
    pub why: String,
}

/// Longest period accepted anywhere in a spec: ten years is plenty.
const MAX_DAYS: u32 = 3650;

fn days(text: &str, what: &str) -> Result<u32, String> {
    let Some(number) = text.strip_suffix('d') else {
        return Err(format!("{what} '{text}' needs a 'd' for days"));
    };
    let n: u32 = number
        .parse()
        .map_err(|_| format!("{what} '{text}' is not a whole number of days"))?;
    if n == 0 || n > MAX_DAYS {
        return Err(format!("{what} must be between 1 and {MAX_DAYS} days"));
    }
    Ok(n)
}

impl FromStr for TimeControl {
    type Err = BadTimeControl;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let text: String = spec
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        let bad = |why: String| BadTimeControl {
            spec: spec.trim().chars().take(40).collect(),
            why,
        };
        if text.is_empty() {
            return Err(bad("it is empty".into()));
        }
        if let Some((moves, rest)) = text.split_once('/') {
            let moves: u32 = moves
                .parse()
                .map_err(|_| bad(format!("'{moves}' is not a number of moves")))?;
            if moves == 0 || moves > 200 {
                return Err(bad("the number of moves must be between 1 and 200".into()));
            }
            let (rest, max_per_move) = match rest.split_once(",max") {
                Some((rest, max)) => (rest, Some(days(max, "the per-move maximum").map_err(bad)?)),
                None => (rest, None),
            };
            let (period, double_after) = match rest.split_once('!') {
                Some((period, threshold)) => {
                    let t: u32 = threshold.trim_end_matches('d').parse().map_err(|_| {
                        bad(format!("'{threshold}' after ! is not a number of days"))
                    })?;
                    (period, Some(t))
                }
                None => (rest, None),
            };
            let days = days(period, "the period").map_err(bad)?;
            return Ok(TimeControl::Cumulative {
                moves,
                days,
                double_after,
                max_per_move,
            });
        }
        if let Some((initial, rest)) = text.split_once('+') {
            let initial = days(initial, "the initial time").map_err(bad)?;
            let (increment, cap) = match rest.split_once("<=") {
                Some((inc, cap)) => (inc, Some(days(cap, "the cap").map_err(bad)?)),
                None => (rest, None),
            };
            let increment = days(increment, "the increment").map_err(bad)?;
            if cap.is_some_and(|c| c < initial) {
                return Err(bad("the cap is smaller than the initial time".into()));
            }
            return Ok(TimeControl::Fischer {
                initial,
                increment,
                cap,
            });
        }
        Ok(TimeControl::DaysPerMove {
            days: days(&text, "the time per move").map_err(bad)?,
        })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::DaysPerMove { days } => write!(f, "{days}d"),
            TimeControl::Cumulative {
                moves,
                days,
                double_after,
                max_per_move,
            } => {
                write!(f, "{moves}/{days}d")?;
                if let Some(t) = double_after {
                    write!(f, "!{t}")?;
                }
                if let Some(m) = max_per_move {
                    write!(f, ",max{m}d")?;
                }
                Ok(())
            }
            TimeControl::Fischer {
                initial,
                increment,
                cap,
            } => {
                write!(f, "{initial}d+{increment}d")?;
                if let Some(c) = cap {
                    write!(f, "<={c}d")?;
                }
                Ok(())
            }
        }
    }
}

impl TryFrom<String> for TimeControl {
    type Error = BadTimeControl;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

impl From<TimeControl> for String {
    fn from(c: TimeControl) -> String {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back_the_same() {
        for spec in [
            "3d",
            "14d",
            "10/50d",
            "10/50d!20",
            "10/50d,max10d",
            "10/50d!20,max10d",
            "30d+3d",
            "30d+3d<=45d",
        ] {
            let control: TimeControl = spec.parse().unwrap();
            assert_eq!(control.to_string(), spec);
        }
        assert_eq!(
            " 10 / 50D ".parse::<TimeControl>().unwrap(),
            TimeControl::Cumulative {
                moves: 10,
                days: 50,
                double_after: None,
                max_per_move: None
            }
        );
    }

    #[test]
    fn bad_specs_say_what_is_wrong_and_show_examples() {
        for (spec, why) in [
            ("", "it is empty"),
            ("3", "the time per move '3' needs a 'd' for days"),
            ("0d", "the time per move must be between 1 and 3650 days"),
            ("x/50d", "'x' is not a number of moves"),
            ("10/50", "the period '50' needs a 'd' for days"),
            ("30d+3d<=10d", "the cap is smaller than the initial time"),
        ] {
            let err = spec.parse::<TimeControl>().unwrap_err();
            assert_eq!(err.why, why, "{spec}");
            assert!(err.to_string().contains("10/50d (10 moves in 50 days)"));
        }
    }
}
