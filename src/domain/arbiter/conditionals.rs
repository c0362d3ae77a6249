//! Conditional moves: setting, listing and cancelling them, and playing
//! them when the opponent's move matches a line.

use chrono::{DateTime, Utc};
use shakmaty::{Color, Position};

use super::notice::Notice;
use super::reason::{ConditionalNote, Reason, Rejection, RejectionKind, reject, rejection_kind};
use super::{Seat, State, over};
use crate::domain::chess::game::Game;
use crate::domain::chess::notation::{self, Notation};
use crate::domain::command::{self, MoveText};
use crate::domain::lang::Lang;

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

    pub(super) fn of_mut(&mut self, side: Color) -> &mut Vec<Vec<String>> {
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

/// `if …`: sets lines (a mail's first `if` replaces earlier ones).
pub(super) fn set(
    st: &mut State<'_>,
    seat: Seat,
    lines: &[Vec<MoveText>],
) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let wrote = format!("{} …", command::if_word(seat.lang));
    over(st.game, &wrote)?;
    if st.game.turn() == me {
        return Err(reject(
            wrote,
            Reason::ConditionalOnYourMove,
            RejectionKind::Other,
        ));
    }
    let mut parsed = Vec::new();
    for line in lines {
        parsed.push(read_line(st.game, line, seat)?);
    }
    // A mail's first `if` replaces the lines set before; further `if`s
    // in the same mail add branches.
    let earlier = st
        .notices
        .iter()
        .position(|n| matches!(n, Notice::Conditionals { to, .. } if *to == me));
    if earlier.is_none() {
        st.conditionals.of_mut(me).clear();
    }
    st.conditionals.of_mut(me).extend(parsed);
    let shown: Vec<String> = st
        .conditionals
        .of(me)
        .iter()
        .map(|l| show_line(st.game, l, seat.lang))
        .collect();
    let notice = Notice::Conditionals {
        to: me,
        note: ConditionalNote::Set,
        lines: shown,
    };
    match earlier {
        Some(i) => st.notices[i] = notice,
        None => st.notices.push(notice),
    }
    Ok(Some(format!("set {} conditional line(s)", lines.len())))
}

/// `conditionals`: lists the lines.
pub(super) fn list(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let shown: Vec<String> = st
        .conditionals
        .of(me)
        .iter()
        .map(|l| show_line(st.game, l, seat.lang))
        .collect();
    let note = if shown.is_empty() {
        ConditionalNote::None
    } else {
        ConditionalNote::Listed
    };
    st.notices.push(Notice::Conditionals {
        to: me,
        note,
        lines: shown,
    });
    Ok(None)
}

/// `cancel conditionals`.
pub(super) fn cancel(st: &mut State<'_>, seat: Seat) -> Result<Option<String>, Rejection> {
    let me = seat.side;
    let had = !st.conditionals.of(me).is_empty();
    st.conditionals.of_mut(me).clear();
    st.notices.push(Notice::Conditionals {
        to: me,
        note: if had {
            ConditionalNote::Cancelled
        } else {
            ConditionalNote::HadNone
        },
        lines: Vec::new(),
    });
    Ok(had.then(|| "cancelled conditional moves".to_string()))
}

/// Reads a conditional line written by the player of `seat` while the
/// opponent is to move: moves alternate opponent, owner, …, and the line ends
/// with the owner's answer. Returns the moves in UCI.
pub(super) fn read_line(
    game: &Game,
    line: &[crate::domain::command::MoveText],
    seat: Seat,
) -> Result<Vec<String>, Rejection> {
    let written: Vec<&str> = line.iter().map(|m| m.as_str()).collect();
    let whole = format!("{} {}", command::if_word(seat.lang), written.join(" "));
    if line.len() < 2 || !line.len().is_multiple_of(2) {
        return Err(reject(
            whole,
            Reason::ConditionalShape,
            RejectionKind::Other,
        ));
    }
    let mode = game.castling_mode();
    let mut pos = game.position().clone();
    let mut ucis = Vec::new();
    for (i, text) in written.iter().enumerate() {
        let mv = notation::parse_move(&pos, text, seat.lang, mode).map_err(|e| {
            let kind = rejection_kind(&e);
            reject(
                whole.clone(),
                Reason::ConditionalMove {
                    yours: i % 2 == 1,
                    text: (*text).to_string(),
                    index: i + 1,
                    why: e,
                },
                kind,
            )
        })?;
        ucis.push(shakmaty::uci::UciMove::from_move(mv, mode).to_string());
        pos = match pos.clone().play(mv) {
            Ok(p) => p,
            Err(_) => {
                return Err(reject(
                    whole,
                    Reason::ConditionalIllegal {
                        text: (*text).to_string(),
                    },
                    RejectionKind::Illegal,
                ));
            }
        };
    }
    Ok(ucis)
}

/// A stored line as its owner writes it: `if 12...Nf6 13.e5`.
pub fn show_line(game: &Game, line: &[String], lang: Lang) -> String {
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
    format!("{} {}", command::if_word(lang), parts.join(" "))
}

/// After a move, plays the conditional answers it triggers, in a chain
/// (an answer may trigger the other side's line). A move no line expected
/// cancels the waiting side's lines. Returns how many were played.
pub(super) fn fire_conditionals(
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
            notices.push(Notice::Conditionals {
                to: owner,
                note: ConditionalNote::Unexpected {
                    ply: game.plies().len().saturating_sub(1),
                },
                lines: Vec::new(),
            });
            break;
        };
        let before = game.position().clone();
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
        notices.push(Notice::ConditionalPlayed {
            to: owner,
            ply: game.plies().len().saturating_sub(1),
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
