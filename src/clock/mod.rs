//! Time in correspondence chess, in days. Pure: every function takes the
//! instants it needs; nothing here reads a clock.
//!
//! - [`control`]: time control specs (`3d`, `10/50d`, `30d+3d`) and their rules.

pub mod control;

pub use control::TimeControl;
