//! Time in correspondence chess, in days. Pure: every function takes the
//! instants it needs; nothing here reads a clock.
//!
//! - [`control`]: time control specs (`3d`, `10/50d`, `30d+3d`) and their rules.
//! - [`leave`]: booking leave within the yearly allowance, and the pauses
//!   leave puts on a clock.

pub mod control;
pub mod leave;

pub use control::TimeControl;
pub use leave::{Allowance, Leave, LeaveError, LeaveKind, Pauses};
