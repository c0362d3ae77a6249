//! A whole mail, heard once: the player's own settings (leave, language,
//! notify), the standings they ask for, time that ran out, and what the
//! mail does in its game. The caller carries out the steps in order.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use shakmaty::Color;

use super::notice::Notice;
use super::reason::{Reason, RejectionKind};
use super::{Seat, StateOfPlay, Verdict, apply};
use crate::domain::clock::leave::{self, regular_days_in_year};
use crate::domain::clock::{Allowance, Leave, LeaveError};
use crate::domain::command::{self, Command, Notify};
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;

/// What the arbiter knows of the player who wrote, beyond any one game.
#[derive(Debug, Clone)]
pub struct Writer {
    /// The language they write in now.
    pub lang: Lang,
    /// Their time zone, which says when their today is.
    pub tz: Option<Tz>,
    /// Their leave booked so far.
    pub leaves: Vec<Leave>,
    /// Regular leave days per calendar year.
    pub allowance: Allowance,
    /// When their words became known to be theirs (the mail, or the reply
    /// confirming it): leave is judged then.
    pub asked_at: DateTime<Utc>,
}

/// Where a mail is applied.
#[derive(Debug, Clone)]
pub enum Place<'a> {
    /// A game the writer plays.
    Game {
        /// The game's number.
        id: GameId,
        /// The game as the arbiter takes it.
        board: &'a StateOfPlay,
        /// The writer's side.
        side: Color,
        /// When the mail with the moves reached the mailbox.
        at: DateTime<Utc>,
        /// The side whose time had run out by `at`, and when it did.
        flagged: Option<(Color, DateTime<Utc>)>,
        /// Closed by a TD without a result (annulled after a withdrawal).
        annulled: bool,
        /// The event the game belongs to.
        event: Option<EventId>,
    },
    /// No game named: what the writer has.
    NoGame {
        /// Their games in progress.
        games: Vec<GameId>,
        /// The events they play in.
        events: Vec<EventId>,
        /// The mail's first line, to quote back.
        first_line: String,
    },
}

/// What a mail leads to, step by step.
#[derive(Debug, Clone)]
pub struct Ruling {
    /// What to carry out, in order.
    pub steps: Vec<Step>,
    /// What happened, in a few words, for the inbound log.
    pub summary: String,
}

/// One thing to carry out for a mail.
#[derive(Debug, Clone)]
pub enum Step {
    /// Book the leave (it applies to all the writer's games) and tell them,
    /// with the regular days left in each year it touches.
    BookLeave {
        /// The leave.
        leave: Leave,
        /// Days left per calendar year afterwards.
        left: Vec<(i32, u32)>,
    },
    /// Tell the writer why their leave cannot be booked.
    RefuseLeave {
        /// The first day asked for.
        from: NaiveDate,
        /// The last day asked for.
        to: NaiveDate,
        /// Why not.
        reason: LeaveError,
    },
    /// Store the writer's language and notification choice; answer each.
    Settings {
        /// The new language.
        lang: Option<Lang>,
        /// Whether they now want the daily digest.
        digest: Option<bool>,
    },
    /// Send standings.
    Standings(StandingsAsked),
    /// Make the writer a new XFCC password and mail it to their registered
    /// address (never to the sender's: a forged From learns nothing).
    XfccPassword,
    /// The time of `side` ran out at `at`, before the mail came: the game is
    /// lost on time (or drawn), whatever the mail says.
    EndOnTime {
        /// Whose time ran out.
        side: Color,
        /// When.
        at: DateTime<Utc>,
    },
    /// The mail's commands applied to the game.
    Play(Box<Verdict>),
    /// The answer to a mail that names no game.
    Answer(Answer),
}

/// Standings asked for, and which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StandingsAsked {
    /// In a game of an event: that event's.
    OfGame(EventId),
    /// In a game outside any event: there are none.
    NotInEvent(GameId),
    /// Without a game: every event the writer plays in.
    OfEvents(Vec<EventId>),
}

/// The answer to a mail without a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The writer's games in progress.
    Games(Vec<GameId>),
    /// How to play by mail.
    Help,
    /// Leave must come from a game's reply address.
    LeaveNeedsGame {
        /// The first day asked for.
        from: NaiveDate,
        /// The last day asked for.
        to: NaiveDate,
    },
    /// Nothing to apply the mail to.
    Rejected {
        /// What they wrote.
        wrote: String,
        /// Why.
        reason: Reason,
        /// The kind of refusal.
        kind: RejectionKind,
    },
}

/// Hears a whole mail from `writer` at `place`.
pub fn hear(writer: &Writer, place: Place<'_>, commands: &[Command]) -> Ruling {
    match place {
        Place::Game {
            id,
            board,
            side,
            at,
            flagged,
            annulled,
            event,
        } => {
            let mut steps = Vec::new();
            // Leave applies to all the player's games, not to this one, and
            // is judged first (in the language the player had).
            let (commands, booked) = leave_steps(writer, commands, &mut steps);
            if commands.is_empty() && !booked.is_empty() {
                return Ruling {
                    steps,
                    summary: booked.join("; "),
                };
            }
            // A language change comes next: a move in the same mail is then
            // read in the new language, and every answer is written in it.
            let (commands, lang, settings) = settings_step(writer, &commands, &mut steps);
            if commands.is_empty() {
                return Ruling {
                    steps,
                    summary: settings,
                };
            }
            // `xfcc password` is about the player, not the game.
            let (xfcc, commands): (Vec<Command>, Vec<Command>) = commands
                .into_iter()
                .partition(|c| matches!(c, Command::XfccPassword));
            if !xfcc.is_empty() {
                steps.push(Step::XfccPassword);
                if commands.is_empty() {
                    return Ruling {
                        steps,
                        summary: "made a new XFCC password".into(),
                    };
                }
            }
            // `standings` is about the game's event, not the game.
            let (asked, commands): (Vec<Command>, Vec<Command>) = commands
                .into_iter()
                .partition(|c| matches!(c, Command::Standings));
            if !asked.is_empty() {
                steps.push(Step::Standings(match event {
                    Some(event) => StandingsAsked::OfGame(event),
                    None => StandingsAsked::NotInEvent(id),
                }));
                if commands.is_empty() {
                    return Ruling {
                        steps,
                        summary: "sent the standings".into(),
                    };
                }
            }
            // Time that ran out before this mail arrived ends the game first,
            // whatever the mail says (the scheduler may not have got to it yet).
            if let Some((side, at)) = flagged {
                steps.push(Step::EndOnTime { side, at });
                return Ruling {
                    steps,
                    summary: format!(
                        "{} ran out of time before this mail arrived",
                        if side.is_white() { "White" } else { "Black" }
                    ),
                };
            }
            let verdict = if annulled {
                closed(board, Seat { side, lang }, &commands)
            } else {
                apply(board, Seat { side, lang }, &commands, at)
            };
            let summary = verdict.summary.clone();
            steps.push(Step::Play(Box::new(verdict)));
            Ruling { steps, summary }
        }
        Place::NoGame {
            games,
            events,
            first_line,
        } => {
            let mut steps = Vec::new();
            let (commands, _, settings) = settings_step(writer, commands, &mut steps);
            if commands.is_empty() {
                return Ruling {
                    steps,
                    summary: settings,
                };
            }
            // Anyone can write a From: a new password (which ends the
            // old one) is made only for a mail to a game's reply address.
            if commands.iter().any(|c| matches!(c, Command::XfccPassword)) {
                steps.push(Step::Answer(Answer::Rejected {
                    wrote: first_line,
                    reason: Reason::XfccNeedsGame,
                    kind: RejectionKind::Other,
                }));
                return Ruling {
                    steps,
                    summary: "xfcc password asked without a game's reply address".into(),
                };
            }
            if commands.iter().any(|c| matches!(c, Command::Standings)) && !events.is_empty() {
                steps.push(Step::Standings(StandingsAsked::OfEvents(events)));
                return Ruling {
                    steps,
                    summary: "sent the standings".into(),
                };
            }
            steps.push(Step::Answer(without_game(&commands, games, first_line)));
            Ruling {
                steps,
                summary: "answered a mail without a game".into(),
            }
        }
    }
}

/// Judges each `leave` among `commands` (in order, each seeing the ones
/// before it booked) and returns the other commands, with what was done.
fn leave_steps(
    writer: &Writer,
    commands: &[Command],
    steps: &mut Vec<Step>,
) -> (Vec<Command>, Vec<String>) {
    let mut leaves = writer.leaves.clone();
    let mut rest = Vec::new();
    let mut done = Vec::new();
    for c in commands {
        let Command::Leave { from, to } = c else {
            rest.push(c.clone());
            continue;
        };
        let (from, to) = (*from, *to);
        let booked = Leave::new(from, to).and_then(|new| {
            leave::book(&leaves, new, writer.allowance, writer.asked_at, writer.tz)
                .map(|booking| (new, booking))
        });
        match booked {
            Ok((new, booking)) => {
                let left = booking
                    .years
                    .iter()
                    .map(|y| {
                        (
                            y.year,
                            writer
                                .allowance
                                .per_year()
                                .saturating_sub(regular_days_in_year(&booking.leaves, y.year)),
                        )
                    })
                    .collect();
                leaves = booking.leaves;
                steps.push(Step::BookLeave { leave: new, left });
                done.push(format!("booked leave {from} to {to}"));
            }
            Err(reason) => {
                done.push(format!("refused leave {from} to {to}: {reason}"));
                steps.push(Step::RefuseLeave { from, to, reason });
            }
        }
    }
    (rest, done)
}

/// Takes `language` and `notify` out of `commands` (the last of each
/// counts) into a step; returns the other commands, the language the rest
/// is read in, and what was done.
fn settings_step(
    writer: &Writer,
    commands: &[Command],
    steps: &mut Vec<Step>,
) -> (Vec<Command>, Lang, String) {
    let mut rest = Vec::with_capacity(commands.len());
    let mut chosen = None;
    let mut notify = None;
    for c in commands {
        match c {
            Command::Language(lang) => chosen = Some(*lang),
            Command::Notify(n) => notify = Some(*n == Notify::Digest),
            other => rest.push(other.clone()),
        }
    }
    if chosen.is_some() || notify.is_some() {
        steps.push(Step::Settings {
            lang: chosen,
            digest: notify,
        });
    }
    let summary = [
        chosen.map(|l| format!("language set to {l}")),
        notify.map(|d| format!("notify {}", if d { "digest" } else { "each" })),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("; ");
    (rest, chosen.unwrap_or(writer.lang), summary)
}

/// A game closed by a TD (annulled after a withdrawal): nothing more can be
/// played in it.
fn closed(board: &StateOfPlay, seat: Seat, commands: &[Command]) -> Verdict {
    Verdict {
        game: board.game.clone(),
        draw_offer_by: board.draw_offer_by,
        conditionals: board.conditionals.clone(),
        last_offers: board.last_offers,
        notices: vec![Notice::Rejected {
            to: seat.side,
            wrote: command::describe(commands, seat.lang),
            reason: Reason::Annulled,
            kind: RejectionKind::GameOver,
        }],
        summary: "rejected: game annulled".into(),
        changed: false,
    }
}

/// The one answer to a mail that names no game.
fn without_game(commands: &[Command], games: Vec<GameId>, first_line: String) -> Answer {
    if commands.iter().any(|c| matches!(c, Command::Games)) {
        return Answer::Games(games);
    }
    if let Some(Command::Leave { from, to }) =
        commands.iter().find(|c| matches!(c, Command::Leave { .. }))
    {
        return Answer::LeaveNeedsGame {
            from: *from,
            to: *to,
        };
    }
    if commands.iter().any(|c| matches!(c, Command::Help)) {
        return Answer::Help;
    }
    Answer::Rejected {
        wrote: first_line,
        reason: if games.is_empty() {
            Reason::NoGameInProgress
        } else {
            Reason::WhichGame { games }
        },
        kind: RejectionKind::UnknownGame,
    }
}

/// How a tournament director's mail reached us.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectorAddress {
    /// To the server's plain address or a game's: no report address.
    Elsewhere,
    /// To the director's report address of an event, with its token.
    Report,
    /// To a report address with a token that is not this director's.
    WrongToken,
}

/// What a tournament director's mail gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectorAnswer {
    /// The event's deadline report.
    Report,
    /// A short mail saying how to ask for the report (reply to a report mail).
    HowToAsk,
    /// Nothing: not a request (logged, never answered).
    Nothing,
}

/// Hears a mail from a tournament director, which reached us at `address`;
/// `None` when it is no director's business (a mail they wrote as a player).
pub fn hear_director(commands: &[Command], address: DirectorAddress) -> Option<DirectorAnswer> {
    // Words after a command are a message between players: not a TD's.
    let commands: Vec<&Command> = commands
        .iter()
        .filter(|c| !matches!(c, Command::Message(_)))
        .collect();
    let asks_report = commands.iter().any(|c| matches!(c, Command::Report));
    match address {
        // Without the report address only `report` alone is theirs: anything
        // else is a player's mail.
        DirectorAddress::Elsewhere => {
            matches!(commands.as_slice(), [Command::Report]).then_some(DirectorAnswer::HowToAsk)
        }
        DirectorAddress::WrongToken => Some(DirectorAnswer::HowToAsk),
        DirectorAddress::Report if asks_report => Some(DirectorAnswer::Report),
        DirectorAddress::Report => Some(DirectorAnswer::Nothing),
    }
}

#[cfg(test)]
#[path = "ruling_tests.rs"]
mod tests;
