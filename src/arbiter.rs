//! The arbiter: applies what a player said to a game, by the rules, and
//! says who must be told what. Pure: the caller loads the game, passes the
//! instant the mail arrived, and stores the result together with the mails
//! the notices become.
//!
//! A mail's commands are applied in order to a copy of the game; the first
//! one that cannot be carried out rejects the whole mail and the game is left
//! exactly as it was (bad input never changes a game).

use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::chess::game::Game;
use crate::chess::notation::{self, MoveTextError, Notation};
use crate::lang::Lang;
use crate::mail::command::Command;

/// Why a mail was turned down, as the refusal mail names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionKind {
    /// The move is not legal here.
    Illegal,
    /// The text reads as more than one legal move.
    Ambiguous,
    /// The text reads as no move or command.
    Unreadable,
    /// It is the opponent's move.
    NotYourTurn,
    /// The game has ended.
    GameOver,
    /// No such game, or not the sender's.
    UnknownGame,
    /// Anything else (e.g. accepting a draw nobody offered).
    Other,
}

impl RejectionKind {
    /// The key templates switch on, e.g. `not_your_turn`.
    pub fn key(self) -> &'static str {
        match self {
            RejectionKind::Illegal => "illegal",
            RejectionKind::Ambiguous => "ambiguous",
            RejectionKind::Unreadable => "unreadable",
            RejectionKind::NotYourTurn => "not_your_turn",
            RejectionKind::GameOver => "game_over",
            RejectionKind::UnknownGame => "unknown_game",
            RejectionKind::Other => "other",
        }
    }
}

/// A mail to send because of what a player said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// It is `to`'s move: the board and the opponent's last move.
    YourMove {
        /// The side to move.
        to: Color,
    },
    /// `to`'s move was accepted; `written` is the move in their notation.
    MoveAccepted {
        /// The mover.
        to: Color,
        /// The move as the mover's language writes it.
        written: String,
    },
    /// The game ended: both players are told.
    GameOver,
    /// The opponent declined `to`'s draw offer.
    DrawOfferDeclined {
        /// The side that offered.
        to: Color,
    },
    /// `to`'s opponent offered a draw without a move (it was not their turn).
    DrawOffered {
        /// The side being offered the draw.
        to: Color,
    },
    /// The mail was turned down; nothing changed.
    Rejected {
        /// The sender.
        to: Color,
        /// What they wrote (the move text or command).
        wrote: String,
        /// Why, in words, with how to do it right.
        explanation: String,
        /// The kind of refusal.
        kind: RejectionKind,
    },
    /// The state of the game, on request.
    Status {
        /// Who asked.
        to: Color,
    },
    /// The PGN, on request.
    Pgn {
        /// Who asked.
        to: Color,
    },
    /// How to play by mail, on request.
    Help {
        /// Who asked.
        to: Color,
    },
    /// The player's games, on request.
    Games {
        /// Who asked.
        to: Color,
    },
    /// A command that a later version will carry out.
    NotYetSupported {
        /// Who asked.
        to: Color,
        /// The command, in words.
        command: String,
    },
}

/// What applying a mail's commands led to.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The game afterwards (unchanged when rejected).
    pub game: Game,
    /// The standing draw offer afterwards.
    pub draw_offer_by: Option<Color>,
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

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

fn rejection_kind(e: &MoveTextError) -> RejectionKind {
    match e {
        MoveTextError::Illegal { .. } | MoveTextError::WrongMoveNumber { .. } => {
            RejectionKind::Illegal
        }
        MoveTextError::Ambiguous { .. } => RejectionKind::Ambiguous,
        MoveTextError::Unreadable { .. } => RejectionKind::Unreadable,
    }
}

struct Rejection {
    wrote: String,
    explanation: String,
    kind: RejectionKind,
}

fn reject(
    wrote: impl Into<String>,
    explanation: impl Into<String>,
    kind: RejectionKind,
) -> Rejection {
    Rejection {
        wrote: wrote.into(),
        explanation: explanation.into(),
        kind,
    }
}

/// Applies the commands of one mail from the player in `seat`, which
/// arrived at `at`.
pub fn apply(
    game: &Game,
    draw_offer_by: Option<Color>,
    seat: Seat,
    commands: &[Command],
    at: DateTime<Utc>,
) -> Verdict {
    let mut next = game.clone();
    let mut offer = draw_offer_by;
    let mut notices = Vec::new();
    let mut done = Vec::new();
    let me = seat.side;
    for command in commands {
        match step(&mut next, &mut offer, seat, command, at, &mut notices) {
            Ok(Some(what)) => done.push(what),
            Ok(None) => {}
            Err(r) => {
                return Verdict {
                    game: game.clone(),
                    draw_offer_by,
                    summary: format!("rejected ({:?}): {}", r.kind, r.explanation),
                    notices: vec![Notice::Rejected {
                        to: me,
                        wrote: r.wrote,
                        explanation: r.explanation,
                        kind: r.kind,
                    }],
                    changed: false,
                };
            }
        }
    }
    let changed = next.plies().len() != game.plies().len()
        || next.outcome() != game.outcome()
        || offer != draw_offer_by;
    if next.is_over() && !game.is_over() {
        // One mail to each player says it all; drop the per-move mails.
        notices.retain(|n| !matches!(n, Notice::YourMove { .. } | Notice::MoveAccepted { .. }));
        notices.push(Notice::GameOver);
    }
    Verdict {
        game: next,
        draw_offer_by: offer,
        notices,
        summary: if done.is_empty() {
            "answered".to_string()
        } else {
            done.join("; ")
        },
        changed,
    }
}

/// Carries out one command; `Ok(Some(text))` says what changed.
fn step(
    game: &mut Game,
    offer: &mut Option<Color>,
    seat: Seat,
    command: &Command,
    at: DateTime<Utc>,
    notices: &mut Vec<Notice>,
) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let them = !me;
    let over = |game: &Game, wrote: &str| -> Result<(), Rejection> {
        match game.outcome() {
            Some(o) => Err(reject(
                wrote,
                format!("the game is already over: {o} Nothing more can be played in it."),
                RejectionKind::GameOver,
            )),
            None => Ok(()),
        }
    };
    match command {
        Command::Move { text, offer_draw } => {
            let wrote = text.as_str();
            over(game, wrote)?;
            if game.turn() != me {
                return Err(reject(
                    wrote,
                    format!(
                        "it is not your turn: {} (your opponent) is to move. Wait for their move; you will get a mail with it.",
                        side_name(them),
                    ),
                    RejectionKind::NotYourTurn,
                ));
            }
            let mode = game.castling_mode();
            let before = game.position().clone();
            let mv = notation::parse_move(&before, wrote, seat.lang, mode).map_err(|e| {
                let kind = rejection_kind(&e);
                reject(wrote, e.to_string(), kind)
            })?;
            let written = notation::render(&before, &mv, Notation::San(seat.lang), mode);
            game.play(&mv, Some(at))
                .map_err(|e| reject(wrote, e.to_string(), RejectionKind::Illegal))?;
            // A move answers a standing offer from the opponent: declined.
            if *offer == Some(them) {
                *offer = None;
            }
            if *offer_draw {
                *offer = Some(me);
            } else if *offer == Some(me) {
                // An offer stands until the opponent moves; our own next move ends it too.
                *offer = None;
            }
            notices.push(Notice::YourMove { to: them });
            notices.push(Notice::MoveAccepted {
                to: me,
                written: written.clone(),
            });
            let mut what = format!(
                "played {}",
                game.plies().last().map(|p| p.san.as_str()).unwrap_or("")
            );
            if *offer_draw {
                what.push_str(" and offered a draw");
            }
            Ok(Some(what))
        }
        Command::OfferDraw => {
            over(game, "draw")?;
            if game.turn() == me {
                return Err(reject(
                    "draw",
                    "a draw is offered together with your move: write the move and the word draw, e.g. \"Nf3 draw\".",
                    RejectionKind::Other,
                ));
            }
            if *offer == Some(me) {
                return Err(reject(
                    "draw",
                    "your draw offer already stands.",
                    RejectionKind::Other,
                ));
            }
            *offer = Some(me);
            notices.push(Notice::DrawOffered { to: them });
            Ok(Some("offered a draw".into()))
        }
        Command::AcceptDraw => {
            over(game, "accept draw")?;
            if *offer != Some(them) {
                return Err(reject(
                    "accept draw",
                    "there is no draw offer from your opponent to accept. To offer a draw yourself, write your move and the word draw, e.g. \"Nf3 draw\".",
                    RejectionKind::Other,
                ));
            }
            game.agree_draw()
                .map_err(|e| reject("accept draw", e.to_string(), RejectionKind::GameOver))?;
            *offer = None;
            Ok(Some("accepted the draw".into()))
        }
        Command::DeclineDraw => {
            over(game, "decline draw")?;
            if *offer != Some(them) {
                return Err(reject(
                    "decline draw",
                    "there is no draw offer from your opponent to decline.",
                    RejectionKind::Other,
                ));
            }
            *offer = None;
            notices.push(Notice::DrawOfferDeclined { to: them });
            Ok(Some("declined the draw".into()))
        }
        Command::Resign => {
            over(game, "resign")?;
            game.resign(me)
                .map_err(|e| reject("resign", e.to_string(), RejectionKind::GameOver))?;
            *offer = None;
            Ok(Some("resigned".into()))
        }
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
        Command::ClaimDraw { .. } => "claim draw",
        Command::Conditional { .. } => "conditional moves (if …)",
        Command::Leave { .. } => "leave",
        Command::Standings => "standings",
        Command::Report => "report",
        Command::Language(_) => "language",
        Command::Notify(_) => "notify",
        Command::Conditionals => "conditionals",
        Command::CancelConditionals => "cancel conditionals",
        _ => "this command",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::game::{EndReason, GameResult, StartPosition};
    use crate::mail::command::{self, MoveText};
    use chrono::TimeZone;

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
    }

    fn seat(side: Color) -> Seat {
        Seat {
            side,
            lang: Lang::En,
        }
    }

    fn said(text: &str, lang: Lang) -> Vec<Command> {
        command::parse(text, lang).commands
    }

    fn mv(text: &str) -> Command {
        Command::Move {
            text: MoveText::new(text).unwrap(),
            offer_draw: false,
        }
    }

    #[test]
    fn a_legal_move_is_played_and_both_players_are_told() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(&game, None, seat(Color::White), &[mv("e4")], at());
        assert!(v.changed);
        assert_eq!(v.game.plies()[0].san, "e4");
        assert_eq!(v.game.plies()[0].received_at, Some(at()));
        assert_eq!(
            v.notices,
            vec![
                Notice::YourMove { to: Color::Black },
                Notice::MoveAccepted {
                    to: Color::White,
                    written: "e4".into()
                }
            ]
        );
    }

    #[test]
    fn a_move_in_the_players_own_letters_is_confirmed_in_them() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let s = Seat {
            side: Color::White,
            lang: Lang::Sl,
        };
        let v = apply(&game, None, s, &said("Sf3", Lang::Sl), at());
        assert_eq!(v.game.plies()[0].san, "Nf3");
        assert!(v.notices.contains(&Notice::MoveAccepted {
            to: Color::White,
            written: "Sf3".into()
        }));
    }

    #[test]
    fn bad_input_is_rejected_with_a_reason_and_changes_nothing() {
        let game = Game::new(StartPosition::Standard).unwrap();
        for (side, text, kind, says) in [
            (
                Color::White,
                "e5",
                RejectionKind::Illegal,
                "cannot be played",
            ),
            (
                Color::White,
                "Ke2",
                RejectionKind::Illegal,
                "cannot be played",
            ),
            (
                Color::Black,
                "e5",
                RejectionKind::NotYourTurn,
                "it is not your turn",
            ),
            (
                Color::White,
                "hello there",
                RejectionKind::Unreadable,
                "neither a move nor a command",
            ),
        ] {
            let v = apply(&game, None, seat(side), &said(text, Lang::En), at());
            assert!(!v.changed, "{text}");
            assert!(v.game.plies().is_empty());
            match &v.notices[..] {
                [
                    Notice::Rejected {
                        kind: k,
                        explanation,
                        ..
                    },
                ] => {
                    assert_eq!(*k, kind, "{text}: {explanation}");
                    assert!(explanation.contains(says), "{text}: {explanation}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_rejected_second_command_undoes_the_first() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(
            &game,
            None,
            seat(Color::White),
            &[mv("e4"), Command::AcceptDraw],
            at(),
        );
        assert!(!v.changed);
        assert!(v.game.plies().is_empty());
    }

    #[test]
    fn draw_offers_stand_until_accepted_or_answered_by_a_move() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(
            &game,
            None,
            seat(Color::White),
            &said("e4 draw", Lang::En),
            at(),
        );
        assert_eq!(v.draw_offer_by, Some(Color::White));
        // Black answers with a move: declined.
        let v2 = apply(
            &v.game,
            v.draw_offer_by,
            seat(Color::Black),
            &[mv("e5")],
            at(),
        );
        assert_eq!(v2.draw_offer_by, None);
        // Accepting a standing offer ends the game for both.
        let v3 = apply(
            &v.game,
            v.draw_offer_by,
            seat(Color::Black),
            &[Command::AcceptDraw],
            at(),
        );
        let o = v3.game.outcome().unwrap();
        assert_eq!(
            (o.result, &o.reason),
            (GameResult::Draw, &EndReason::Agreement)
        );
        assert_eq!(v3.notices, vec![Notice::GameOver]);
        // Nobody can accept their own offer.
        let v4 = apply(
            &v.game,
            v.draw_offer_by,
            seat(Color::White),
            &[Command::AcceptDraw],
            at(),
        );
        assert!(!v4.changed);
    }

    #[test]
    fn resigning_ends_the_game_and_later_moves_are_refused() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(&game, None, seat(Color::Black), &[Command::Resign], at());
        assert_eq!(v.game.outcome().unwrap().result, GameResult::WhiteWins);
        assert_eq!(v.notices, vec![Notice::GameOver]);
        let v2 = apply(&v.game, None, seat(Color::White), &[mv("e4")], at());
        assert!(matches!(
            &v2.notices[..],
            [Notice::Rejected {
                kind: RejectionKind::GameOver,
                ..
            }]
        ));
    }

    #[test]
    fn mate_ends_the_game_with_one_mail_to_each() {
        let game = Game::replay(StartPosition::Standard, &["f2f3", "e7e5", "g2g4"]).unwrap();
        let v = apply(&game, None, seat(Color::Black), &[mv("Qh4#")], at());
        assert_eq!(v.game.outcome().unwrap().reason, EndReason::Checkmate);
        assert_eq!(v.notices, vec![Notice::GameOver]);
    }

    #[test]
    fn later_commands_get_a_not_yet_answer() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(
            &game,
            None,
            seat(Color::White),
            &[Command::Conditionals],
            at(),
        );
        assert!(!v.changed);
        assert!(matches!(&v.notices[..], [Notice::NotYetSupported { .. }]));
    }
}
