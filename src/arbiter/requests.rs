//! Requests answered from the game without changing it (`status`, `pgn`,
//! `help`, `games`), and text that is no command.

use super::notice::Notice;
use super::reason::{Rejection, RejectionKind, reject};
use super::{Seat, State};
use crate::command::Command;

/// A request about the game, or an unreadable line.
pub(super) fn answer(
    st: &mut State<'_>,
    seat: Seat,
    command: &Command,
) -> Result<Option<String>, Rejection> {
    let notices = &mut *st.notices;
    let me = seat.side;
    match command {
        Command::Status => {
            notices.push(Notice::Status { to: me });
            Ok(None)
        }
        Command::Pgn => {
            notices.push(Notice::Pgn { to: me });
            Ok(None)
        }
        Command::Help => {
            notices.push(Notice::Help { to: me });
            Ok(None)
        }
        Command::Games => {
            notices.push(Notice::Games { to: me });
            Ok(None)
        }
        Command::Unknown { text } => Err(reject(
            text.clone(),
            if text.is_empty() {
                "your mail had no text we could read. Write your move on the first line of the reply, e.g. \"Nf3\" or \"e2-e4\"; write \"help\" for all commands.".to_string()
            } else {
                "this is neither a move nor a command we know. Write your move on the first line of the reply, e.g. \"Nf3\", \"e2-e4\" or \"5254\"; write \"help\" for all commands.".to_string()
            },
            RejectionKind::Unreadable,
        )),
        other => {
            let command = not_yet_supported(other);
            notices.push(Notice::NotYetSupported { to: me, command });
            Ok(None)
        }
    }
}

/// The name of a command this version does not carry out yet.
fn not_yet_supported(command: &Command) -> String {
    match command {
        Command::Leave { .. } => "leave",
        Command::Standings => "standings",
        Command::Report => "report",
        Command::Language(_) => "language",
        Command::Notify(_) => "notify",
        _ => "this command",
    }
    .to_string()
}
