//! The arbiter: applies what a player said to a game, by the rules, and
//! says who must be told what. Pure: the caller loads the game, passes the
//! instant the mail arrived, and stores the result together with the mails
//! the notices become.
//!
//! A mail's commands are applied in order to a copy of the game; the first
//! one that cannot be carried out rejects the whole mail and the game is left
//! exactly as it was (bad input never changes a game).

mod conditionals;
mod draws;
mod moves;
mod notice;
mod reason;
mod requests;
mod ruling;
mod tables;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::domain::chess::game::Game;
use crate::domain::chess::tablebase::{TablebasePolicy, Tables};
use crate::domain::command::Command;
use crate::domain::event::DrawPolicy;
use crate::domain::lang::Lang;

pub use conditionals::{Conditionals, show_line};
pub use draws::LastOffers;
pub use notice::Notice;
pub use reason::{Claimed, ConditionalNote, Reason, RejectionKind, TableRefusal};
use reason::{Rejection, reject};
pub use ruling::{
    Answer, DirectorAddress, DirectorAnswer, Place, Ruling, StandingsAsked, Step, Writer, hear,
    hear_director,
};

/// The state of a game the arbiter works on: the game, the standing draw
/// offer, the conditional moves, and the event's draw rules.
#[derive(Debug, Clone)]
pub struct StateOfPlay {
    /// The game.
    pub game: Game,
    /// The side with a standing draw offer.
    pub draw_offer_by: Option<Color>,
    /// Both sides' conditional moves.
    pub conditionals: Conditionals,
    /// The event's rules for draw offers.
    pub draw_policy: DrawPolicy,
    /// When each side last offered a draw.
    pub last_offers: LastOffers,
    /// Whether the event lets players pass messages to each other (`messages`).
    pub messages: bool,
    /// The endgame tables set up here (none: [`crate::domain::chess::tablebase::NoTables`]).
    pub tables: Arc<dyn Tables>,
    /// The event's rules for the tables.
    pub tablebase: TablebasePolicy,
}

/// What applying a mail's commands led to.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The game afterwards (unchanged when rejected).
    pub game: Game,
    /// The standing draw offer afterwards.
    pub draw_offer_by: Option<Color>,
    /// The conditional moves afterwards.
    pub conditionals: Conditionals,
    /// When each side last offered a draw, afterwards.
    pub last_offers: LastOffers,
    /// The mails to send.
    pub notices: Vec<Notice>,
    /// What happened, in a few words, for the inbound log.
    pub summary: String,
    /// Whether the game changed (and must be saved).
    pub changed: bool,
}

/// A player's seat at the board: their colour and language.
#[derive(Debug, Clone, Copy)]
pub struct Seat {
    /// The side they play.
    pub side: Color,
    /// The language they write moves in.
    pub lang: Lang,
}

impl Seat {
    /// A command as this player would write it, in their language, to quote
    /// it back in a refusal.
    fn words(&self, command: Command) -> String {
        crate::domain::command::describe(&[command], self.lang)
    }
}

/// Applies the commands of one mail from the player in `seat`, which
/// arrived at `at`.
pub fn apply(board: &StateOfPlay, seat: Seat, commands: &[Command], at: DateTime<Utc>) -> Verdict {
    let game = &board.game;
    let draw_offer_by = board.draw_offer_by;
    let mut next = game.clone();
    let mut offer = draw_offer_by;
    let mut conditionals = board.conditionals.clone();
    let mut last_offers = board.last_offers;
    let mut notices = Vec::new();
    let mut done = Vec::new();
    let me = seat.side;
    // The half-move the writer played in this mail: their message is told
    // with it (and filed after it), even when a conditional answer followed.
    let mut my_ply = None;
    for command in commands {
        if let Command::Message(message) = command {
            let ply = my_ply.unwrap_or(next.plies().len());
            notices.push(if board.messages {
                Notice::Message {
                    to: !me,
                    message: message.clone(),
                    ply,
                }
            } else {
                Notice::MessageHeld { to: me }
            });
            done.push(if board.messages {
                "passed on a message".to_string()
            } else {
                "held a message (the event allows none)".to_string()
            });
            continue;
        }
        let before = next.plies().len();
        let mut state = State {
            game: &mut next,
            offer: &mut offer,
            conditionals: &mut conditionals,
            notices: &mut notices,
            policy: board.draw_policy,
            last_offers: &mut last_offers,
            tables: board.tables.as_ref(),
            tablebase: board.tablebase,
        };
        let stepped = step(&mut state, seat, command, at);
        if matches!(command, Command::Move { .. }) && next.plies().len() > before {
            my_ply = Some(before + 1);
        }
        match stepped {
            Ok(Some(what)) => done.push(what),
            Ok(None) => {}
            Err(r) => {
                return Verdict {
                    game: game.clone(),
                    draw_offer_by,
                    conditionals: board.conditionals.clone(),
                    last_offers: board.last_offers,
                    summary: format!("rejected ({}): {:?}", r.kind.key(), r.reason),
                    notices: vec![Notice::Rejected {
                        to: me,
                        wrote: r.wrote,
                        reason: *r.reason,
                        kind: r.kind,
                    }],
                    changed: false,
                };
            }
        }
    }
    if let Some(what) = tables::after_moves(
        game,
        &mut next,
        board.tables.as_ref(),
        board.tablebase,
        &mut notices,
    ) {
        done.push(what);
    }
    if next.is_over() {
        conditionals = Conditionals::default();
    }
    let changed = next.plies().len() != game.plies().len()
        || next.outcome() != game.outcome()
        || offer != draw_offer_by
        || conditionals != board.conditionals
        || last_offers != board.last_offers;
    if next.is_over() && !game.is_over() {
        // One mail to each player says it all; drop the per-move mails.
        notices.retain(|n| {
            !matches!(
                n,
                Notice::YourMove { .. }
                    | Notice::MoveAccepted { .. }
                    | Notice::ConditionalPlayed { .. }
                    | Notice::DrawOfferDeclined { .. }
            )
        });
        notices.push(Notice::GameOver);
    }
    Verdict {
        game: next,
        draw_offer_by: offer,
        conditionals,
        last_offers,
        notices,
        summary: if done.is_empty() {
            "answered".to_string()
        } else {
            done.join("; ")
        },
        changed,
    }
}

/// What one command may change.
pub(crate) struct State<'a> {
    game: &'a mut Game,
    offer: &'a mut Option<Color>,
    conditionals: &'a mut Conditionals,
    notices: &'a mut Vec<Notice>,
    policy: DrawPolicy,
    last_offers: &'a mut LastOffers,
    tables: &'a dyn Tables,
    tablebase: TablebasePolicy,
}

/// Carries out one command; `Ok(Some(text))` says what changed.
fn step(
    st: &mut State<'_>,
    seat: Seat,
    command: &Command,
    at: DateTime<Utc>,
) -> Result<Option<String>, Rejection> {
    if let Command::Move {
        text,
        offer_draw: true,
    } = command
        && st.game.turn() == seat.side
        && !st.game.is_over()
    {
        st.offer_draw(seat.side, text.as_str(), true)?;
    }
    if matches!(command, Command::OfferDraw)
        && st.game.turn() != seat.side
        && !st.game.is_over()
        && *st.offer != Some(seat.side)
    {
        st.offer_draw(seat.side, &seat.words(Command::OfferDraw), false)?;
    }
    match command {
        Command::Move { text, offer_draw } => moves::play(st, seat, text, offer_draw, at),
        Command::OfferDraw => draws::offer(st, seat),
        Command::AcceptDraw => draws::accept(st, seat),
        Command::DeclineDraw => draws::decline(st, seat),
        Command::Resign => moves::resign(st, seat),
        Command::ClaimDraw { with_move } => draws::claim(st, seat, with_move, at),
        Command::ClaimWin { with_move } => draws::claim_win(st, seat, with_move, at),
        Command::Conditional { lines } => conditionals::set(st, seat, lines),
        Command::Conditionals => conditionals::list(st, seat),
        Command::CancelConditionals => conditionals::cancel(st, seat),
        other => requests::answer(st, seat, other),
    }
}

/// Rejects any command on a game that is over.
fn over(game: &Game, wrote: &str) -> Result<(), Rejection> {
    match game.outcome() {
        Some(o) => Err(reject(
            wrote,
            Reason::GameOver(o.clone()),
            RejectionKind::GameOver,
        )),
        None => Ok(()),
    }
}
