//! Time in correspondence chess, in days. Pure: every function takes the
//! instants it needs; nothing here reads a clock.
//!
//! - [`control`]: time control specs (`3d`, `10/50d`, `30d+3d`) and their rules.
//! - [`timeline`]: a game's clocks as a function of its move times, its
//!   control and the players' leave ([`GameClock::clocks`]).
//! - [`leave`]: booking leave within the yearly allowance, and the pauses
//!   leave puts on a clock.
//! - [`due`]: the scheduler's step: reminders, silence notices, leave
//!   notices, timeouts ([`GameClock::due`]).
//! - [`schedule`]: when a game next needs the scheduler, for storing.
//! - [`describe`]: deadlines in the player's time zone and UTC.

pub mod control;
pub mod describe;
pub mod due;
pub mod leave;
pub mod schedule;
pub mod timeline;

pub use control::TimeControl;
pub use describe::describe_deadline;
pub use due::{Due, DueKey, ReminderPlan};
pub use leave::{Allowance, Leave, LeaveError, LeaveKind, Pauses};
pub use schedule::Schedule;
pub use timeline::{ClockState, Clocks, GameClock, MoveTimes, Timeline};
