//! The arbiter: applies what a player said to a game, by the rules, and
//! says who must be told what. Pure: the caller loads the game, passes the
//! instant the mail arrived, and stores the result together with the mails
//! the notices become.
//!
//! A mail's commands are applied in order to a copy of the game; the first
//! one that cannot be carried out rejects the whole mail and the game is left
//! exactly as it was (bad input never changes a game).

use chrono::{DateTime, Utc};
use shakmaty::{Color, Position};

use crate::chess::game::Game;
use crate::chess::notation::{self, MoveTextError, Notation};
use crate::command::Command;
use crate::event::DrawPolicy;
use crate::lang::Lang;

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
    /// `to`'s conditional moves: set, listed or cancelled (`note` says which).
    Conditionals {
        /// The owner.
        to: Color,
        /// What happened, in words.
        note: String,
        /// The lines as the owner writes them (`if 12...Nf6 13.e5`).
        lines: Vec<String>,
    },
    /// A conditional move of `to` was played for them.
    ConditionalPlayed {
        /// The owner.
        to: Color,
        /// Their move as they write it.
        written: String,
    },
    /// A command that a later version will carry out.
    NotYetSupported {
        /// Who asked.
        to: Color,
        /// The command, in words.
        command: String,
    },
}

/// Each side's conditional moves: lines of UCI moves, each starting with
/// the opponent's move and alternating with the owner's answers
/// (`if 12...Nf6 13.e5` is `["g8f6", "e4e5"]`). Hidden from the opponent.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Conditionals {
    /// White's lines.
    pub white: Vec<Vec<String>>,
    /// Black's lines.
    pub black: Vec<Vec<String>>,
}

impl Conditionals {
    /// The lines of one side.
    pub fn of(&self, side: Color) -> &Vec<Vec<String>> {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    fn of_mut(&mut self, side: Color) -> &mut Vec<Vec<String>> {
        match side {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Whether neither side has any.
    pub fn is_empty(&self) -> bool {
        self.white.is_empty() && self.black.is_empty()
    }
}

/// The half-move (ply count before it) at which each side last offered a draw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LastOffers {
    /// White's last offer.
    pub white: Option<u32>,
    /// Black's last offer.
    pub black: Option<u32>,
}

impl LastOffers {
    /// One side's last offer.
    pub fn of(&self, side: Color) -> Option<u32> {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    fn set(&mut self, side: Color, ply: u32) {
        match side {
            Color::White => self.white = Some(ply),
            Color::Black => self.black = Some(ply),
        }
    }
}

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
    for command in commands {
        let mut state = State {
            game: &mut next,
            offer: &mut offer,
            conditionals: &mut conditionals,
            notices: &mut notices,
            policy: board.draw_policy,
            last_offers: &mut last_offers,
        };
        match step(&mut state, seat, command, at) {
            Ok(Some(what)) => done.push(what),
            Ok(None) => {}
            Err(r) => {
                return Verdict {
                    game: game.clone(),
                    draw_offer_by,
                    conditionals: board.conditionals.clone(),
                    last_offers: board.last_offers,
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
struct State<'a> {
    game: &'a mut Game,
    offer: &'a mut Option<Color>,
    conditionals: &'a mut Conditionals,
    notices: &'a mut Vec<Notice>,
    policy: DrawPolicy,
    last_offers: &'a mut LastOffers,
}

impl State<'_> {
    /// Checks the event's draw rules for an offer by `side` now (before its
    /// move is played), and records the offer.
    fn offer_draw(&mut self, side: Color, wrote: &str, with_move: bool) -> Result<(), Rejection> {
        let ply = u32::try_from(self.game.plies().len()).unwrap_or(u32::MAX);
        // The move number the offer goes with.
        let move_number = ply / 2 + 1;
        let not_played = if with_move {
            " Your move was not played either: send it again without the draw offer."
        } else {
            ""
        };
        let first = self.policy.first_offer_move;
        if first > 0 && move_number < first {
            return Err(reject(
                wrote,
                format!("this event allows no draw offers before move {first}.{not_played}"),
                RejectionKind::Other,
            ));
        }
        let between = self.policy.moves_between_offers;
        if between > 0
            && let Some(last) = self.last_offers.of(side)
            && ply < last + 2 * between
        {
            let next = (last + 2 * between) / 2 + 1;
            return Err(reject(
                wrote,
                format!(
                    "this event allows one draw offer per {between} moves: your next offer can come with move {next}.{not_played}"
                ),
                RejectionKind::Other,
            ));
        }
        self.last_offers.set(side, ply);
        Ok(())
    }
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
        st.offer_draw(seat.side, "draw", false)?;
    }
    let State {
        game,
        offer,
        conditionals,
        notices,
        ..
    } = st;
    let game: &mut Game = game;
    let offer: &mut Option<Color> = offer;
    let conditionals: &mut Conditionals = conditionals;
    let notices: &mut Vec<Notice> = notices;
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
            // Lines the mover set earlier belong to the old position.
            conditionals.of_mut(me).clear();
            let fired = fire_conditionals(game, conditionals, at, notices);
            if fired > 0 {
                what.push_str(&format!("; {fired} conditional move(s) played"));
            }
            if !game.is_over() {
                notices.push(Notice::YourMove { to: game.turn() });
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
        Command::ClaimDraw { with_move } => {
            let wrote = match with_move {
                Some(m) => format!("claim draw {}", m.as_str()),
                None => "claim draw".to_string(),
            };
            over(game, &wrote)?;
            if game.turn() != me {
                return Err(reject(
                    wrote,
                    "a draw can be claimed only when it is your move (FIDE 9.2 and 9.3): claim it in your reply to your opponent's move.",
                    RejectionKind::Other,
                ));
            }
            let mv = match with_move {
                Some(text) => {
                    let mode = game.castling_mode();
                    let mv = notation::parse_move(game.position(), text.as_str(), seat.lang, mode)
                        .map_err(|e| {
                            let kind = rejection_kind(&e);
                            reject(wrote.clone(), e.to_string(), kind)
                        })?;
                    Some(mv)
                }
                None => None,
            };
            match game.draw_by_claim(mv.as_ref(), Some(at)) {
                Ok(_) => {
                    *offer = None;
                    Ok(Some(wrote.clone()))
                }
                Err(e) => {
                    // Documented choice: an invalid claim plays nothing, not
                    // even the named move; the player is told so.
                    let named = if with_move.is_some() {
                        " The move you named was NOT played either: the game goes on from the same position, and it is still your move."
                    } else {
                        " The game goes on, and it is still your move."
                    };
                    Err(reject(
                        wrote,
                        format!("the draw claim is not valid: {e}.{named}"),
                        RejectionKind::Other,
                    ))
                }
            }
        }
        Command::Conditional { lines } => {
            over(game, "if …")?;
            if game.turn() == me {
                return Err(reject(
                    "if …",
                    "conditional moves are for when your opponent is to move. Send your move first and the conditional line after it in the same mail, e.g. \"Nf3\" on the first line and \"if Nc6 Bb5\" on the next.",
                    RejectionKind::Other,
                ));
            }
            let mut parsed = Vec::new();
            for line in lines {
                parsed.push(read_line(game, line, seat)?);
            }
            // A mail's first `if` replaces the lines set before; further `if`s
            // in the same mail add branches.
            let earlier = notices
                .iter()
                .position(|n| matches!(n, Notice::Conditionals { to, .. } if *to == me));
            if earlier.is_none() {
                conditionals.of_mut(me).clear();
            }
            conditionals.of_mut(me).extend(parsed);
            let shown: Vec<String> = conditionals
                .of(me)
                .iter()
                .map(|l| show_line(game, l, seat.lang))
                .collect();
            let notice = Notice::Conditionals {
                to: me,
                note: "Your conditional moves are set (they replace any earlier ones) and stay hidden from your opponent. When your opponent plays the first move of a line, your answer is played at once and costs you no time; any other move cancels them.".into(),
                lines: shown,
            };
            match earlier {
                Some(i) => notices[i] = notice,
                None => notices.push(notice),
            }
            Ok(Some(format!("set {} conditional line(s)", lines.len())))
        }
        Command::Conditionals => {
            let shown: Vec<String> = conditionals
                .of(me)
                .iter()
                .map(|l| show_line(game, l, seat.lang))
                .collect();
            let note = if shown.is_empty() {
                "You have no conditional moves in this game."
            } else {
                "Your conditional moves in this game:"
            };
            notices.push(Notice::Conditionals {
                to: me,
                note: note.into(),
                lines: shown,
            });
            Ok(None)
        }
        Command::CancelConditionals => {
            let had = !conditionals.of(me).is_empty();
            conditionals.of_mut(me).clear();
            notices.push(Notice::Conditionals {
                to: me,
                note: if had {
                    "Your conditional moves are cancelled.".into()
                } else {
                    "You had no conditional moves in this game.".into()
                },
                lines: Vec::new(),
            });
            Ok(had.then(|| "cancelled conditional moves".to_string()))
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

/// Reads a conditional line written by the player of `seat` while the
/// opponent is to move: moves alternate opponent, owner, …, and the line ends
/// with the owner's answer. Returns the moves in UCI.
fn read_line(
    game: &Game,
    line: &[crate::command::MoveText],
    seat: Seat,
) -> Result<Vec<String>, Rejection> {
    let written: Vec<&str> = line.iter().map(|m| m.as_str()).collect();
    let whole = format!("if {}", written.join(" "));
    if line.len() < 2 || !line.len().is_multiple_of(2) {
        return Err(reject(
            whole,
            "a conditional line pairs each move of your opponent with your answer and ends with your answer, e.g. \"if Nc6 Bb5\" or \"if 12...Nf6 13.e5 13...Nd5 14.c4\".",
            RejectionKind::Other,
        ));
    }
    let mode = game.castling_mode();
    let mut pos = game.position().clone();
    let mut ucis = Vec::new();
    for (i, text) in written.iter().enumerate() {
        let mv = notation::parse_move(&pos, text, seat.lang, mode).map_err(|e| {
            let whose = if i % 2 == 0 {
                "your opponent's move"
            } else {
                "your answer"
            };
            reject(
                whole.clone(),
                format!(
                    "the line is refused whole: {whose} \"{text}\" (move {} of the line): {e}",
                    i + 1
                ),
                rejection_kind(&e),
            )
        })?;
        ucis.push(shakmaty::uci::UciMove::from_move(mv, mode).to_string());
        pos = match pos.clone().play(mv) {
            Ok(p) => p,
            Err(_) => {
                return Err(reject(
                    whole,
                    format!("\"{text}\" is not legal there"),
                    RejectionKind::Illegal,
                ));
            }
        };
    }
    Ok(ucis)
}

/// A stored line as its owner writes it: `if 12...Nf6 13.e5`.
fn show_line(game: &Game, line: &[String], lang: Lang) -> String {
    let mode = game.castling_mode();
    let mut pos = game.position().clone();
    let mut parts = Vec::new();
    for uci in line {
        let Some(mv) = uci
            .parse::<shakmaty::uci::UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
        else {
            break;
        };
        let number = pos.fullmoves().get();
        let prefix = match pos.turn() {
            Color::White => format!("{number}."),
            Color::Black => format!("{number}..."),
        };
        parts.push(format!(
            "{prefix}{}",
            notation::render(&pos, &mv, Notation::San(lang), mode)
        ));
        match pos.clone().play(mv) {
            Ok(p) => pos = p,
            Err(_) => break,
        }
    }
    format!("if {}", parts.join(" "))
}

/// After a move, plays the conditional answers it triggers, in a chain
/// (an answer may trigger the other side's line). A move no line expected
/// cancels the waiting side's lines. Returns how many were played.
fn fire_conditionals(
    game: &mut Game,
    conditionals: &mut Conditionals,
    at: DateTime<Utc>,
    notices: &mut Vec<Notice>,
) -> usize {
    let mut played = 0;
    while !game.is_over() {
        let owner = game.turn();
        let lines = std::mem::take(conditionals.of_mut(owner));
        if lines.is_empty() {
            break;
        }
        let Some(last) = game.plies().last().map(|p| p.uci.clone()) else {
            break;
        };
        let matching: Vec<Vec<String>> = lines
            .into_iter()
            .filter(|l| l.first() == Some(&last))
            .collect();
        let Some(answer) = matching.first().and_then(|l| l.get(1)).cloned() else {
            let san = game
                .plies()
                .last()
                .map(|p| p.san.clone())
                .unwrap_or_default();
            notices.push(Notice::Conditionals {
                to: owner,
                note: format!("Your opponent played {san}, which none of your conditional lines expected, so they are all cancelled."),
                lines: Vec::new(),
            });
            break;
        };
        let before = game.position().clone();
        let mode = game.castling_mode();
        let Some(mv) = answer
            .parse::<shakmaty::uci::UciMove>()
            .ok()
            .and_then(|u| u.to_move(&before).ok())
        else {
            break;
        };
        // Played at the instant the opponent's move arrived: it costs no time.
        if game.play(&mv, Some(at)).is_err() {
            break;
        }
        played += 1;
        let lang_written = notation::render(&before, &mv, Notation::San(Lang::En), mode);
        notices.push(Notice::ConditionalPlayed {
            to: owner,
            written: lang_written,
        });
        // The rest of each line that agrees with what was played stays.
        *conditionals.of_mut(owner) = matching
            .into_iter()
            .filter(|l| l.get(1) == Some(&answer) && l.len() > 2)
            .map(|l| l[2..].to_vec())
            .collect();
    }
    played
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::game::{EndReason, GameResult, StartPosition};
    use crate::command::{self, MoveText};
    use chrono::TimeZone;

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap()
    }

    fn board(game: &Game, draw_offer_by: Option<Color>) -> StateOfPlay {
        StateOfPlay {
            game: game.clone(),
            draw_offer_by,
            conditionals: Conditionals::default(),
            draw_policy: DrawPolicy::default(),
            last_offers: LastOffers::default(),
        }
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
        let v = apply(&board(&game, None), seat(Color::White), &[mv("e4")], at());
        assert!(v.changed);
        assert_eq!(v.game.plies()[0].san, "e4");
        assert_eq!(v.game.plies()[0].received_at, Some(at()));
        assert_eq!(
            v.notices,
            vec![
                Notice::MoveAccepted {
                    to: Color::White,
                    written: "e4".into()
                },
                Notice::YourMove { to: Color::Black },
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
        let v = apply(&board(&game, None), s, &said("Sf3", Lang::Sl), at());
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
            let v = apply(&board(&game, None), seat(side), &said(text, Lang::En), at());
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
            &board(&game, None),
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
            &board(&game, None),
            seat(Color::White),
            &said("e4 draw", Lang::En),
            at(),
        );
        assert_eq!(v.draw_offer_by, Some(Color::White));
        // Black answers with a move: declined.
        let v2 = apply(
            &board(&v.game, v.draw_offer_by),
            seat(Color::Black),
            &[mv("e5")],
            at(),
        );
        assert_eq!(v2.draw_offer_by, None);
        // Accepting a standing offer ends the game for both.
        let v3 = apply(
            &board(&v.game, v.draw_offer_by),
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
            &board(&v.game, v.draw_offer_by),
            seat(Color::White),
            &[Command::AcceptDraw],
            at(),
        );
        assert!(!v4.changed);
    }

    #[test]
    fn resigning_ends_the_game_and_later_moves_are_refused() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(
            &board(&game, None),
            seat(Color::Black),
            &[Command::Resign],
            at(),
        );
        assert_eq!(v.game.outcome().unwrap().result, GameResult::WhiteWins);
        assert_eq!(v.notices, vec![Notice::GameOver]);
        let v2 = apply(&board(&v.game, None), seat(Color::White), &[mv("e4")], at());
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
        let v = apply(&board(&game, None), seat(Color::Black), &[mv("Qh4#")], at());
        assert_eq!(v.game.outcome().unwrap().reason, EndReason::Checkmate);
        assert_eq!(v.notices, vec![Notice::GameOver]);
    }

    #[test]
    fn later_commands_get_a_not_yet_answer() {
        let game = Game::new(StartPosition::Standard).unwrap();
        let v = apply(
            &board(&game, None),
            seat(Color::White),
            &[Command::Standings],
            at(),
        );
        assert!(!v.changed);
        assert!(matches!(&v.notices[..], [Notice::NotYetSupported { .. }]));
    }

    #[test]
    fn a_valid_claim_ends_the_game_and_an_invalid_one_plays_nothing() {
        // Nf3 Nf6 Ng1 Ng8 twice: the start position for the third time after Ng1.
        let ucis = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
        let game = Game::replay(StartPosition::Standard, &ucis).unwrap();
        // Black to move: claiming with Ng8 (the position's third time) is valid.
        let v = apply(
            &board(&game, None),
            seat(Color::Black),
            &said("claim draw Ng8", Lang::En),
            at(),
        );
        let o = v.game.outcome().unwrap();
        assert_eq!(
            (o.result, &o.reason),
            (GameResult::Draw, &EndReason::ThreefoldRepetition)
        );
        assert_eq!(v.notices, vec![Notice::GameOver]);
        // Claiming with another move is refused, and the move is not played.
        let v = apply(
            &board(&game, None),
            seat(Color::Black),
            &said("claim draw Nc6", Lang::En),
            at(),
        );
        assert!(!v.changed);
        match &v.notices[..] {
            [Notice::Rejected { explanation, .. }] => {
                assert!(explanation.contains("not valid"), "{explanation}");
                assert!(explanation.contains("NOT played"), "{explanation}");
            }
            other => panic!("{other:?}"),
        }
        // Only the side to move can claim.
        let v = apply(
            &board(&game, None),
            seat(Color::White),
            &said("claim draw", Lang::En),
            at(),
        );
        assert!(!v.changed);
    }

    fn cond(text: &str) -> Vec<Command> {
        said(text, Lang::En)
    }

    #[test]
    fn a_conditional_line_fires_at_once_and_a_wrong_guess_cancels_the_rest() {
        let game = Game::new(StartPosition::Standard).unwrap();
        // White plays e4 and sets: if e5 Nf3 (then if Nc6 Bb5), and if c5 Nf3.
        let mut cmds = cond("e4");
        cmds.extend(cond("if e5 Nf3 Nc6 Bb5"));
        cmds.extend(cond("if c5 Nc3"));
        let v = apply(&board(&game, None), seat(Color::White), &cmds, at());
        assert!(v.changed, "{:?}", v.notices);
        assert_eq!(v.conditionals.white.len(), 2, "{:?}", v.notices);
        // Black answers e5: Nf3 is played at once, at the same instant.
        let b = StateOfPlay {
            game: v.game.clone(),
            draw_offer_by: None,
            conditionals: v.conditionals.clone(),
            draw_policy: DrawPolicy::default(),
            last_offers: LastOffers::default(),
        };
        let later = at() + chrono::Duration::hours(5);
        let v2 = apply(&b, seat(Color::Black), &cond("e5"), later);
        let sans: Vec<&str> = v2.game.plies().iter().map(|p| p.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3"]);
        assert_eq!(v2.game.plies()[2].received_at, Some(later), "costs no time");
        assert!(v2.notices.contains(&Notice::ConditionalPlayed {
            to: Color::White,
            written: "Nf3".into()
        }));
        assert!(v2.notices.contains(&Notice::YourMove { to: Color::Black }));
        assert_eq!(
            v2.conditionals.white,
            vec![vec!["b8c6".to_string(), "f1b5".to_string()]]
        );
        // Black plays d6 instead of Nc6: White's remaining line is cancelled.
        let b2 = StateOfPlay {
            game: v2.game.clone(),
            draw_offer_by: None,
            conditionals: v2.conditionals.clone(),
            draw_policy: DrawPolicy::default(),
            last_offers: LastOffers::default(),
        };
        let v3 = apply(&b2, seat(Color::Black), &cond("d6"), later);
        assert!(v3.conditionals.white.is_empty());
        assert!(v3.notices.iter().any(|n| matches!(n, Notice::Conditionals { to: Color::White, note, .. } if note.contains("cancelled"))));
        assert!(v3.notices.contains(&Notice::YourMove { to: Color::White }));
    }

    #[test]
    fn an_illegal_conditional_line_is_refused_whole() {
        let game = Game::replay(StartPosition::Standard, &["e2e4"]).unwrap();
        let v = apply(
            &board(&game, None),
            seat(Color::White),
            &cond("if e5 Nf3 Nc6 Ke3"),
            at(),
        );
        assert!(!v.changed);
        match &v.notices[..] {
            [Notice::Rejected { explanation, .. }] => {
                assert!(explanation.contains("refused whole"), "{explanation}")
            }
            other => panic!("{other:?}"),
        }
        // On one's own move, conditionals are refused with the way to do it.
        let v = apply(
            &board(&game, None),
            seat(Color::Black),
            &cond("if Nf3 Nc6"),
            at(),
        );
        assert!(!v.changed);
    }

    #[test]
    fn an_events_draw_rules_refuse_early_and_repeated_offers() {
        let policy = DrawPolicy {
            first_offer_move: 3,
            moves_between_offers: 2,
        };
        let mut b = StateOfPlay {
            game: Game::new(StartPosition::Standard).unwrap(),
            draw_offer_by: None,
            conditionals: Conditionals::default(),
            draw_policy: policy,
            last_offers: LastOffers::default(),
        };
        // Move 1: too early; the move is not played either.
        let v = apply(&b, seat(Color::White), &said("e4 draw", Lang::En), at());
        assert!(!v.changed);
        match &v.notices[..] {
            [Notice::Rejected { explanation, .. }] => {
                assert!(
                    explanation.contains("no draw offers before move 3"),
                    "{explanation}"
                );
                assert!(explanation.contains("not played either"), "{explanation}");
            }
            other => panic!("{other:?}"),
        }
        // Play on to move 3 and offer then: allowed.
        for (side, m) in [
            (Color::White, "e4"),
            (Color::Black, "e5"),
            (Color::White, "Nf3"),
            (Color::Black, "Nc6"),
        ] {
            let v = apply(&b, seat(side), &[mv(m)], at());
            b.game = v.game;
        }
        let v = apply(&b, seat(Color::White), &said("Bc4 draw", Lang::En), at());
        assert_eq!(v.draw_offer_by, Some(Color::White), "{:?}", v.notices);
        assert_eq!(v.last_offers.white, Some(4));
        b = StateOfPlay {
            game: v.game,
            draw_offer_by: v.draw_offer_by,
            conditionals: v.conditionals,
            draw_policy: policy,
            last_offers: v.last_offers,
        };
        let v = apply(&b, seat(Color::Black), &[mv("Bc5")], at());
        b.game = v.game;
        b.draw_offer_by = v.draw_offer_by;
        // Move 4: within two moves of the last offer.
        let v = apply(&b, seat(Color::White), &said("c3 draw", Lang::En), at());
        match &v.notices[..] {
            [Notice::Rejected { explanation, .. }] => {
                assert!(
                    explanation.contains("next offer can come with move 5"),
                    "{explanation}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}
