//! The command line.

pub mod move_check;

/// Entry point of the `dopis` binary.
pub fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}
