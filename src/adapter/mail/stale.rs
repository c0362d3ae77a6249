//! Whether a reply was written for the position its game is in now, and
//! whether a mail is one we have had before under another Message-ID.
//!
//! A player's reply token is per game, not per move, so a reply to an old
//! "your move" mail (a resend, a retry from a client's outbox, a reply to the
//! wrong mail of the thread) would otherwise be played whenever its move
//! happened to be legal again. Every mail we send about a game names the
//! position it shows in its Message-ID (`route::message_id_local`), and a
//! reply names the mail it answers in In-Reply-To and References. A reply
//! that answers an earlier position and would move or end the game is not
//! applied but asked to be confirmed against the board as it is now, unless
//! it carries the number of the current move (`14. Nf3`): that shows the
//! player knew where the game stands, which is why correspondence players
//! number their moves.
//!
//! What cannot be known is not stale: a mail without In-Reply-To (a fresh
//! mail to the reply address), a reply to one of our mails that names no
//! position (the thread root, mails sent before positions were named, the
//! daily digest, which covers several games and so names none). A written
//! move number that does not fit the position is refused by the move reader
//! as always ("the move number 12... does not fit"), stale or not.

use sha2::{Digest, Sha256};
use shakmaty::Position;

use crate::adapter::mail::inbound::{InboundMail, MessageId};
use crate::adapter::mail::route;
use crate::domain::chess::game::Game;
use crate::domain::chess::notation;
use crate::domain::command::{Command, MoveText};

/// The position (half-moves played) of `game` that a reply answers, when
/// its threading says so: the mail in In-Reply-To when it is ours, else
/// the newest of ours in References (a reply to one's own mail that
/// answered ours). `None` when it cannot be told.
pub fn answered_ply(game: i64, in_reply_to: &[MessageId], references: &[MessageId]) -> Option<u32> {
    let ours = |id: &MessageId| route::read_message_id(id.as_str()).filter(|o| o.game == game);
    match in_reply_to.iter().find_map(ours) {
        Some(answered) => answered.ply,
        None => references.iter().rev().find_map(ours).and_then(|o| o.ply),
    }
}

/// What a reply is, measured against the game now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Written for the current position, or no way to tell, or nothing in
    /// it depends on the position: apply it.
    Current,
    /// Written for an earlier position and it would move or end the game:
    /// ask the player first.
    Stale {
        /// The position the reply answers (half-moves played).
        answered: u32,
        /// The position now.
        current: u32,
    },
}

/// Judges a reply that answers position `answered` (if known) and says
/// `commands`, against `game` as it is now.
pub fn judge(answered: Option<u32>, game: &Game, commands: &[Command]) -> Freshness {
    let current = u32::try_from(game.plies().len()).unwrap_or(u32::MAX);
    let Some(answered) = answered else {
        return Freshness::Current;
    };
    // A game that ended is told so by the arbiter; asking would be noise.
    if answered >= current || game.is_over() || !commands.iter().any(decides) {
        return Freshness::Current;
    }
    if names_current_move(game, commands) {
        return Freshness::Current;
    }
    Freshness::Stale { answered, current }
}

/// Whether a command's effect depends on the position it was written for:
/// it moves (a move, a claim with a named move, conditional moves played
/// for the player later) or ends the game (resigning, accepting a draw,
/// claiming one). Offers, questions and settings do not.
fn decides(command: &Command) -> bool {
    matches!(
        command,
        Command::Move { .. }
            | Command::ClaimDraw { .. }
            | Command::ClaimWin { .. }
            | Command::AcceptDraw
            | Command::Resign
            | Command::Conditional { .. }
    )
}

/// Whether a move in the mail carries the number of the move to play now:
/// a move, a claim's named move, or the first move of a conditional line
/// (the opponent's next move).
fn names_current_move(game: &Game, commands: &[Command]) -> bool {
    let pos = game.position();
    let first_moves = commands.iter().flat_map(|c| -> Vec<&MoveText> {
        match c {
            Command::Move { text, .. } => vec![text],
            Command::ClaimDraw {
                with_move: Some(text),
            }
            | Command::ClaimWin {
                with_move: Some(text),
            } => vec![text],
            Command::Conditional { lines } => lines.iter().filter_map(|l| l.first()).collect(),
            _ => Vec::new(),
        }
    });
    first_moves
        .into_iter()
        .any(|t| notation::move_number_fits(pos, t.as_str()) == Some(true))
}

/// A move of a game as players number it: `12.` is White's 12th move,
/// `12...` Black's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MovePoint {
    /// The move number.
    pub number: u32,
    /// Whether it is Black's move.
    pub black: bool,
}

impl MovePoint {
    /// The move to play after `ply` half-moves of `game`.
    pub fn at(game: &Game, ply: u32) -> MovePoint {
        let pos = game.position();
        let played = u32::try_from(game.plies().len()).unwrap_or(u32::MAX);
        // Half-moves since White's move 1, counted back from now, so a game
        // set up from a position numbers its moves as it started.
        let now = 2 * (pos.fullmoves().get().saturating_sub(1)) + u32::from(pos.turn().is_black());
        let then = now.saturating_sub(played.saturating_sub(ply));
        MovePoint {
            number: then / 2 + 1,
            black: then % 2 == 1,
        }
    }
}

impl std::fmt::Display for MovePoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let dots = if self.black { "..." } else { "." };
        write!(f, "{}{dots}", self.number)
    }
}

/// What makes a mail the same mail when it comes again under a new
/// Message-ID (a client's outbox resending it): the sender, its Date, its
/// subject, what it answers and what it says. `None` for a mail without a
/// Date: without it two mails with the same words cannot be told apart, and
/// a second "Nf3" may be a new move.
pub fn fingerprint(mail: &InboundMail) -> Option<String> {
    let date = mail.date?;
    let mut hash = Sha256::new();
    let mut part = |text: &str| {
        // Lengths first, so no two different mails give the same stream.
        hash.update(text.len().to_be_bytes());
        hash.update(text.as_bytes());
    };
    part(mail.from.as_str());
    part(&date.to_rfc3339());
    part(&mail.subject);
    for id in mail.in_reply_to.iter().chain(mail.references.iter()) {
        part(id.as_str());
    }
    part(&mail.text);
    Some(super::key::hex(&hash.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chess::game::StartPosition;
    use crate::domain::command::parse;
    use crate::domain::lang::Lang;

    fn id(text: &str) -> MessageId {
        MessageId::parse(text).unwrap()
    }

    fn game(ucis: &[&str]) -> Game {
        Game::replay(StartPosition::Standard, ucis).unwrap()
    }

    /// 1. Nf3 Nf6 2. Ng1 Ng8: White's Nf3 is legal again.
    fn knights_back() -> Game {
        game(&["g1f3", "g8f6", "f3g1", "f6g8"])
    }

    fn commands(text: &str) -> Vec<Command> {
        parse(text, Lang::En).commands
    }

    #[test]
    fn the_answered_position_comes_from_our_mail_in_the_thread() {
        let ids = |texts: &[&str]| texts.iter().map(|t| id(t)).collect::<Vec<_>>();
        let at = |in_reply_to: &[&str], references: &[&str]| {
            answered_ply(42, &ids(in_reply_to), &ids(references))
        };
        let yours = "CAJ1x=own@mail.players.test";
        let root = "dopis.g42.start@chess.test";
        let (p10, p12, p14) = (
            "dopis.g42.p10.0123abcd@chess.test",
            "dopis.g42.p12.0123abcd@chess.test",
            "dopis.g42.p14.0123abcd@chess.test",
        );
        // A reply to our mail.
        assert_eq!(at(&[p12], &[root, p12]), Some(12));
        // In-Reply-To wins over older mails in References.
        assert_eq!(at(&[p14], &[p12]), Some(14));
        // A reply to one's own mail, which answered ours.
        assert_eq!(at(&[yours], &[root, p10, yours]), Some(10));
        // Nothing to tell by.
        assert_eq!(at(&[], &[]), None);
        assert_eq!(at(&[yours], &[yours]), None);
        assert_eq!(at(&[root], &[root]), None);
        // An old Message-ID of ours, before positions were named.
        let old = "dopis.g42.0123abcd4567ef89@chess.test";
        assert_eq!(at(&[old], &[old, p12]), None);
        // The digest names no game; another game's mail says nothing here.
        let digest = "dopis.x.0123abcd4567ef89@chess.test";
        assert_eq!(at(&[digest], &[digest]), None);
        assert_eq!(at(&["dopis.g41.p3.ab@chess.test"], &[]), None);
    }

    #[test]
    fn a_move_for_an_earlier_position_is_stale_unless_it_names_the_current_move() {
        let g = knights_back();
        let stale = Freshness::Stale {
            answered: 0,
            current: 4,
        };
        for (answered, text, want) in [
            (Some(0), "Nf3", stale),
            (Some(0), "Nf3 draw", stale),
            (Some(0), "resign", stale),
            (Some(0), "accept draw", stale),
            (Some(0), "claim draw", stale),
            (Some(0), "claim draw Nf3", stale),
            (Some(0), "Nf3\nif Nf6 Ng1", stale),
            (Some(0), "if Nf6 Ng1", stale),
            // The current move number: the player knew where the game stands.
            (Some(0), "3. Nf3", Freshness::Current),
            (Some(0), "3.Nf3 draw", Freshness::Current),
            (Some(0), "claim draw 3. Nf3", Freshness::Current),
            // An old number is no excuse: the move reader refuses it.
            (Some(0), "1. Nf3", stale),
            // Nothing that depends on the position.
            (Some(0), "status", Freshness::Current),
            (Some(0), "draw", Freshness::Current),
            (Some(0), "decline draw", Freshness::Current),
            (Some(0), "pgn", Freshness::Current),
            // The current position, or no way to tell.
            (Some(4), "Nf3", Freshness::Current),
            (None, "Nf3", Freshness::Current),
            (Some(9), "Nf3", Freshness::Current),
        ] {
            assert_eq!(
                judge(answered, &g, &commands(text)),
                want,
                "{answered:?} {text}"
            );
        }
        // A game that ended is told so by the arbiter, not asked about.
        let mut over = knights_back();
        over.resign(shakmaty::Color::Black).unwrap();
        assert_eq!(judge(Some(0), &over, &commands("Nf3")), Freshness::Current);
    }

    #[test]
    fn move_labels_number_moves_as_players_write_them() {
        let g = knights_back();
        let labels: Vec<String> = (0..=4).map(|p| MovePoint::at(&g, p).to_string()).collect();
        assert_eq!(labels, ["1.", "1...", "2.", "2...", "3."]);
        // A game set up with Black to move at move 30.
        let setup =
            Game::new(StartPosition::fen("4k3/8/8/8/8/8/8/4K3 b - - 0 30").unwrap()).unwrap();
        assert_eq!(MovePoint::at(&setup, 0).to_string(), "30...");
    }

    fn mail(date: &str, in_reply_to: &str, text: &str) -> InboundMail {
        let raw = format!(
            "From: alice@players.test\r\nTo: chess+g1.tok@chess.test\r\nSubject: Re: move\r\n\
             Message-ID: <{:x}@players.test>\r\n{date}In-Reply-To: <{in_reply_to}>\r\n\r\n{text}\r\n",
            rand::random::<u64>()
        );
        crate::adapter::mail::inbound::parse(raw.as_bytes()).unwrap()
    }

    #[test]
    fn the_same_mail_under_a_new_message_id_has_the_same_fingerprint() {
        let date = "Date: Sun, 29 Nov 2026 12:00:00 +0000\r\n";
        let a = mail(date, "dopis.g1.p0.ab@chess.test", "Nf3");
        let again = mail(date, "dopis.g1.p0.ab@chess.test", "Nf3");
        assert_ne!(a.message_id, again.message_id);
        assert!(fingerprint(&a).is_some());
        assert_eq!(fingerprint(&a), fingerprint(&again));
        // Written at another time, to another mail, or saying something else:
        // another mail.
        for other in [
            mail(
                "Date: Sun, 29 Nov 2026 12:00:01 +0000\r\n",
                "dopis.g1.p0.ab@chess.test",
                "Nf3",
            ),
            mail(date, "dopis.g1.p4.cd@chess.test", "Nf3"),
            mail(date, "dopis.g1.p0.ab@chess.test", "Nc3"),
        ] {
            assert_ne!(fingerprint(&a), fingerprint(&other));
        }
        // Without a Date, two mails with the same words may be two moves.
        assert_eq!(
            fingerprint(&mail("", "dopis.g1.p0.ab@chess.test", "Nf3")),
            None
        );
    }
}
