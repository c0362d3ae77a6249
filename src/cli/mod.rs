//! The command line.

pub mod move_check;

/// Entry point of the `dopis` binary.
pub fn main() -> std::process::ExitCode {
    // TEMPORARY (notation branch): wires `dopis move` so tests/it/move_cli.rs
    // can run the binary before the lead's CLI lands; replace with the real
    // `Move(move_check::MoveArgs)` subcommand.
    use clap::Parser;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(subcommand)]
        command: Option<Command>,
    }

    #[derive(clap::Subcommand)]
    enum Command {
        /// Check a move text against a position.
        Move(move_check::MoveArgs),
    }

    match Cli::parse().command {
        Some(Command::Move(args)) => move_check::run(
            &args,
            &mut std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ),
        None => std::process::ExitCode::SUCCESS,
    }
}
