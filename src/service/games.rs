//! Games as the CLI lists and shows them.

/// The service's vocabulary for a stored game: plain data read from the
/// store (its players, start, moves with their times, status), which
/// `dopis game list|show` prints.
pub use crate::store::games::{GameRecord, StoredMove};
