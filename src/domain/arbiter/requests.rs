//! Requests answered from the game without changing it (`status`, `pgn`,
//! `help`, `games`), text that is no command, and `report` out of place.

use super::notice::Notice;
use super::reason::{Reason, Rejection, RejectionKind, reject};
use super::{Seat, State};
use crate::domain::command::Command;

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
                Reason::Empty
            } else {
                Reason::NotACommand
            },
            RejectionKind::Unreadable,
        )),
        Command::MoveThenWords { wrote } => Err(reject(
            wrote.clone(),
            Reason::MessageOnNextLine,
            RejectionKind::Unreadable,
        )),
        // A TD asks for the deadline report from the report address
        // (see `hear`'s caller); in a game it is nobody's business.
        Command::Report => Err(reject(
            "report",
            Reason::ReportNotHere,
            RejectionKind::Other,
        )),
        // The player's own settings, leave and standings are about no one
        // game: [`super::hear`] takes them out before the game is played.
        Command::Leave { .. }
        | Command::Language(_)
        | Command::Notify(_)
        | Command::Standings
        | Command::XfccPassword => Ok(None),
        // Entries and byes are about events, not this game: the inbox
        // hears them before any game is (see `service::entries`,
        // `service::swiss_byes`).
        Command::Entries
        | Command::Enter { .. }
        | Command::WithdrawEntry { .. }
        | Command::SwissBye { .. }
        | Command::Announcements(_) => Ok(None),
        Command::Move { .. }
        | Command::OfferDraw
        | Command::AcceptDraw
        | Command::DeclineDraw
        | Command::Resign
        | Command::ClaimDraw { .. }
        | Command::ClaimWin { .. }
        | Command::Conditional { .. }
        | Command::Conditionals
        | Command::CancelConditionals
        | Command::Message(_) => Ok(None),
    }
}
