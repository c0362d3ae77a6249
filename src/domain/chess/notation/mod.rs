//! Move text as players write it: SAN in English and in the player's own
//! piece letters, figurines, long algebraic, UCI and ICCF numeric; read
//! against a position into a legal move, or into an error that tells the
//! player what is wrong (illegal and why, ambiguous with the candidates,
//! unreadable with what was read, or a move number that does not fit).
//!
//! Reading is by trying every reading a text allows (player's language and
//! English letters, a lower-case letter as file or as piece, a whole starting
//! square as "whatever stands there") and collecting the legal moves they
//! give. A lower-case file letter is a pawn's file, as in standard SAN; read
//! as a piece letter only where no standard reading is legal. One move: that
//! is the move. Several: the text is ambiguous and the player is asked, never
//! guessed for. None: the most telling reason why not is reported.

mod explain;
pub mod letters;
mod text;

use std::fmt;

use shakmaty::{
    CastlingMode, CastlingSide, Chess, File, Move, MoveList, Position, Rank, Role, Square,
    san::{San, SanPlus, Suffix},
    uci::UciMove,
};
use thiserror::Error;

pub use explain::{Area, IllegalReason};

use crate::domain::lang::Lang;
use explain::Coords;

/// How a move is written, for rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// SAN with the piece letters of a language (`Lang::En` gives PGN's SAN).
    San(Lang),
    /// SAN with figurines for the pieces (`♘f3`).
    Figurine,
    /// Long algebraic: `e2-e4`, `Ng1-f3`, `e7xd8=Q`, `O-O`.
    Long,
    /// UCI: `e2e4`, `e7e8q`; castling as UCI writes it in the castling mode.
    Uci,
    /// ICCF numeric: `5254`, promotion as a fifth digit, castling as the
    /// king's move.
    Iccf,
}

/// A legal move a text could mean, for an ambiguous answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// In English SAN, e.g. `Nbd2`.
    pub san: String,
    /// In UCI, for machines.
    pub uci: String,
    /// A way to write it that the player's language reads as this move only:
    /// their own SAN where that is clear, else long algebraic, else ICCF.
    pub written: String,
    /// What the move does, e.g. the knight from b1 to d2.
    pub meaning: Meaning,
}

/// What a candidate move does, for words in any language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Meaning {
    /// Castling on one side.
    Castling(CastlingSide),
    /// A piece from one square to another.
    Move {
        /// The piece.
        role: Role,
        /// Its square.
        from: Square,
        /// The target square.
        to: Square,
        /// The piece a pawn becomes.
        promotion: Option<Role>,
    },
    /// A move without a starting square (a drop), as UCI writes it.
    Other(String),
}

impl fmt::Display for Meaning {
    /// In English words, e.g. "knight b1 to d2, promoting to a queen".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Meaning::Castling(CastlingSide::KingSide) => f.write_str("castling king side"),
            Meaning::Castling(CastlingSide::QueenSide) => f.write_str("castling queen side"),
            Meaning::Move {
                role,
                from,
                to,
                promotion,
            } => {
                write!(f, "{} {from} to {to}", letters::role_name(*role))?;
                match promotion {
                    Some(p) => write!(f, ", promoting to a {}", letters::role_name(*p)),
                    None => Ok(()),
                }
            }
            Meaning::Other(text) => f.write_str(text),
        }
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.written, self.meaning)
    }
}

/// Why a move text is not a move that can be played.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveTextError {
    /// The text reads as a move, but that move is not legal here.
    #[error("\"{text}\" cannot be played: {reason}")]
    Illegal {
        /// The text as the player wrote it.
        text: String,
        /// Why not, in words.
        reason: IllegalReason,
    },
    /// The text fits more than one legal move.
    #[error(
        "\"{text}\" could be more than one move: {}; write the one you mean",
        join_or(candidates)
    )]
    Ambiguous {
        /// The text as the player wrote it.
        text: String,
        /// The legal moves it could mean.
        candidates: Vec<Candidate>,
    },
    /// The text does not read as a move at all.
    #[error(
        "could not read \"{text}\" as a move (read \"{read}\"); write it like {}",
        examples.join(", ")
    )]
    Unreadable {
        /// The text as the player wrote it.
        text: String,
        /// What was left after numbers and decorations came off.
        read: String,
        /// Accepted forms, in the player's letters.
        examples: Vec<String>,
    },
    /// A move number was written that is not the number of this move.
    #[error(
        "the move number \"{written}\" does not fit: this is move {expected}; write {expected} or leave the number out"
    )]
    WrongMoveNumber {
        /// The number as written, e.g. `12...`.
        written: String,
        /// The number of the move to play, e.g. `13.` or `12...`.
        expected: String,
    },
}

impl MoveTextError {
    /// One word for the kind of error, as `dopis move --batch` prints it.
    pub fn kind(&self) -> &'static str {
        match self {
            MoveTextError::Illegal { .. } | MoveTextError::WrongMoveNumber { .. } => "illegal",
            MoveTextError::Ambiguous { .. } => "ambiguous",
            MoveTextError::Unreadable { .. } => "unreadable",
        }
    }
}

fn join_or(candidates: &[Candidate]) -> String {
    let shown: Vec<String> = candidates.iter().map(Candidate::to_string).collect();
    match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => shown.join(""),
    }
}

/// A way to read a text as a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MoveReading {
    Castle(CastlingSide),
    Coords(Coords),
}

/// A position with its legal moves, generated once. Reading and writing
/// many texts against one position then generates them once, where the
/// free functions [`parse_move`] and [`render`] generate what each call
/// needs anew (`dopis move --batch`, whose lines often share a position,
/// spent most of its time generating the same moves again).
#[derive(Debug, Clone)]
pub struct LegalMoves {
    pos: Chess,
    legal: MoveList,
}

impl LegalMoves {
    /// The legal moves of `pos`.
    pub fn of(pos: Chess) -> LegalMoves {
        let legal = pos.legal_moves();
        LegalMoves { pos, legal }
    }

    /// The position.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// [`parse_move`] in this position.
    pub fn parse_move(
        &self,
        text: &str,
        lang: Lang,
        mode: CastlingMode,
    ) -> Result<Move, MoveTextError> {
        parse_among(&self.pos, &self.legal, text, lang, mode)
    }

    /// [`render`] in this position.
    pub fn render(&self, mv: &Move, notation: Notation, mode: CastlingMode) -> String {
        render_among(&self.pos, &self.legal, mv, notation, mode)
    }
}

/// Reads one move text against a position.
///
/// `lang` is the player's language: its piece letters are tried together
/// with English ones. A written move number must fit the position's turn
/// and fullmove number (`12.` is also accepted for Black's 12th move, as
/// players often write it so; `12...` is only Black's). `mode` is the
/// game's castling mode, used to write candidates in UCI.
pub fn parse_move(
    pos: &Chess,
    text: &str,
    lang: Lang,
    mode: CastlingMode,
) -> Result<Move, MoveTextError> {
    parse_among(pos, &pos.legal_moves(), text, lang, mode)
}

/// [`parse_move`] with the position's legal moves already generated.
fn parse_among(
    pos: &Chess,
    legal: &MoveList,
    text: &str,
    lang: Lang,
    mode: CastlingMode,
) -> Result<Move, MoveTextError> {
    match read(pos, legal, text, lang)?.as_slice() {
        [one] => Ok(*one),
        many => Err(MoveTextError::Ambiguous {
            text: text.trim().to_string(),
            candidates: many
                .iter()
                .map(|m| candidate(pos, legal, *m, lang, mode))
                .collect(),
        }),
    }
}

/// Describes a candidate move so the player can pick it unambiguously.
fn candidate(pos: &Chess, legal: &MoveList, m: Move, lang: Lang, mode: CastlingMode) -> Candidate {
    let forms = [
        Notation::San(lang),
        Notation::Long,
        Notation::San(Lang::En),
        Notation::Iccf,
    ];
    let clear = |text: &String| read(pos, legal, text, lang).is_ok_and(|ms| ms == [m]);
    let written = forms
        .into_iter()
        .map(|n| render_among(pos, legal, &m, n, mode))
        .find(clear)
        .unwrap_or_else(|| render_among(pos, legal, &m, Notation::Iccf, mode));
    let meaning = match (m.castling_side(), m.from()) {
        (Some(side), _) => Meaning::Castling(side),
        (None, Some(from)) => Meaning::Move {
            role: m.role(),
            from,
            to: m.to(),
            promotion: match m {
                Move::Normal { promotion, .. } => promotion,
                _ => None,
            },
        },
        (None, None) => Meaning::Other(m.to_string()),
    };
    Candidate {
        san: render_among(pos, legal, &m, Notation::San(Lang::En), mode),
        uci: render_among(pos, legal, &m, Notation::Uci, mode),
        written,
        meaning,
    }
}

/// Whether a written move number is the number of the move to play in
/// `pos` (`12.` is also accepted for Black's 12th move, `12...` only for it).
fn number_fits(pos: &Chess, number: &text::WrittenNumber) -> bool {
    number.number == pos.fullmoves().get() && (!number.black || pos.turn().is_black())
}

/// Whether a move text carries the number of the move to play in `pos`:
/// `Some(true)` for `14. Nf3` at White's 14th move, `Some(false)` for a
/// number that does not fit, `None` when no number was written.
pub fn move_number_fits(pos: &Chess, text: &str) -> Option<bool> {
    let written = text::split(text)?;
    written.number.map(|n| number_fits(pos, &n))
}

/// Every legal move (of `legal`, the position's) a text can mean (at least
/// one), or why there is none.
fn read(pos: &Chess, legal: &MoveList, text: &str, lang: Lang) -> Result<Vec<Move>, MoveTextError> {
    let unreadable = |read: String| MoveTextError::Unreadable {
        text: text.trim().to_string(),
        read,
        examples: examples(lang),
    };
    let Some(written) = text::split(text) else {
        let read: String = text.trim().chars().take(24).collect();
        return Err(unreadable(format!("{read}…")));
    };
    if let Some(number) = &written.number
        && !number_fits(pos, number)
    {
        let expected_black = pos.turn().is_black();
        return Err(MoveTextError::WrongMoveNumber {
            written: number.text.clone(),
            expected: format!(
                "{}{}",
                pos.fullmoves(),
                if expected_black { "..." } else { "." }
            ),
        });
    }
    let mut readings = readings_of(&written.body, lang);
    if readings.is_empty() && written.body.iter().any(|c| c.is_uppercase()) {
        // "E4", "NF3": caps lock or a phone; try the text in lower case.
        // Such text is no SAN, so "BXC4" may be the bishop as well as the
        // pawn: both readings count alike and the player is asked.
        let lower: Vec<char> = written.body.iter().flat_map(|c| c.to_lowercase()).collect();
        readings = readings_of(&lower, lang)
            .into_iter()
            .map(|(reading, _)| (reading, Standing::Standard))
            .collect();
    }
    if readings.is_empty() {
        return Err(unreadable(written.read()));
    }

    let mut reason: Option<IllegalReason> = None;
    // The standard readings first; the kind ones only if those give no move.
    for standing in [Standing::Standard, Standing::Kindness] {
        let mut found: Vec<Move> = Vec::new();
        for (reading, _) in readings.iter().filter(|(_, s)| *s == standing) {
            let mut matched = false;
            for m in legal
                .iter()
                .filter(|m| fits(pos, legal, reading, **m, written.capture))
            {
                matched = true;
                if !found.contains(m) {
                    found.push(*m);
                }
            }
            if !matched {
                let why = match reading {
                    MoveReading::Castle(side) => explain::why_not_castle(pos, *side),
                    MoveReading::Coords(c) => explain::why_not(pos, c, written.capture),
                };
                if reason.as_ref().is_none_or(|r| why.weight() > r.weight()) {
                    reason = Some(why);
                }
            }
        }
        if !found.is_empty() {
            return Ok(found);
        }
    }
    Err(match reason {
        Some(reason) => MoveTextError::Illegal {
            text: text.trim().to_string(),
            reason,
        },
        None => unreadable(written.read()),
    })
}

/// Accepted forms to show a player whose text could not be read.
fn examples(lang: Lang) -> Vec<String> {
    let knight = letters::letter(lang, Role::Knight).unwrap_or('N');
    let mut shown = vec![format!("{knight}f3")];
    if knight != 'N' {
        shown.push("Nf3".to_string());
    }
    shown.extend(["exd5", "O-O", "e2-e4", "5254"].map(String::from));
    shown
}

/// How a reading stands beside the others of the same text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// What the text means in standard SAN (python-chess and every PGN
    /// reader agree), or in the player's letters written as SAN writes them.
    Standard,
    /// A lower-case piece letter that is also a file letter (`bc4` for a
    /// bishop, Polish `hg5` for the queen): a kindness to the player, used
    /// only where no standard reading is a legal move, since in SAN a
    /// lower-case file letter is a pawn's file.
    Kindness,
}

/// Every way the body of a move text can be read, with how each stands.
fn readings_of(body: &[char], lang: Lang) -> Vec<(MoveReading, Standing)> {
    let standard = |r: MoveReading| vec![(r, Standing::Standard)];
    match body {
        ['O', 'O'] | ['o', 'o'] | ['0', '0'] => {
            return standard(MoveReading::Castle(CastlingSide::KingSide));
        }
        ['O', 'O', 'O'] | ['o', 'o', 'o'] | ['0', '0', '0'] => {
            return standard(MoveReading::Castle(CastlingSide::QueenSide));
        }
        _ => {}
    }
    if !body.is_empty() && body.iter().all(|c| c.is_ascii_digit()) {
        return iccf(body)
            .map(|c| (MoveReading::Coords(c), Standing::Standard))
            .into_iter()
            .collect();
    }
    let Some((&first, rest)) = body.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let piece_roles = match letters::figurine_role(first) {
        Some(role) => vec![role],
        None if first.is_alphabetic() => letters::roles_for(lang, first),
        None => Vec::new(),
    };
    // A lower-case letter that is also a file ("bc4") is read both ways,
    // the file first (see `Standing`); but "b1c3" is a square, never a
    // bishop on the first rank.
    let is_file = first.is_ascii_lowercase() && File::from_char(first).is_some();
    let rank_next = rest.first().is_some_and(|c| c.is_ascii_digit());
    let piece_standing = if is_file {
        Standing::Kindness
    } else {
        Standing::Standard
    };
    if !(is_file && rank_next) {
        for role in piece_roles {
            for (from_file, from_rank, to, promotion) in coords(rest, lang) {
                let reading = MoveReading::Coords(Coords {
                    role: Some(role),
                    from_file,
                    from_rank,
                    to,
                    promotion,
                });
                out.push((reading, piece_standing));
            }
        }
    }
    if is_file {
        for (from_file, from_rank, to, promotion) in coords(body, lang) {
            let whole = from_file.is_some() && from_rank.is_some();
            let reading = MoveReading::Coords(Coords {
                role: if whole { None } else { Some(Role::Pawn) },
                from_file,
                from_rank,
                to,
                promotion,
            });
            out.push((reading, Standing::Standard));
        }
    }
    out
}

type Parts = (Option<File>, Option<Rank>, Square, Option<Role>);

/// Reads `[file][rank]square[promotion]` (after any piece letter).
fn coords(chars: &[char], lang: Lang) -> Vec<Parts> {
    let (squares, promotions): (&[char], Vec<Option<Role>>) = match chars.split_last() {
        Some((last, init)) if !last.is_ascii_digit() => {
            let roles = match letters::figurine_role(*last) {
                Some(role) => vec![role],
                None => letters::roles_for(lang, *last),
            };
            (init, roles.into_iter().map(Some).collect())
        }
        _ => (chars, vec![None]),
    };
    let file = |c: &char| File::from_char(*c).filter(|_| c.is_ascii_lowercase());
    let rank = |c: &char| Rank::from_char(*c);
    let parsed = match squares {
        [tf, tr] => Some((None, None, file(tf), rank(tr))),
        [ff, tf, tr] if file(ff).is_some() => Some((file(ff), None, file(tf), rank(tr))),
        [fr, tf, tr] => rank(fr).map(|r| (None, Some(r), file(tf), rank(tr))),
        [ff, fr, tf, tr] => file(ff)
            .zip(rank(fr))
            .map(|(f, r)| (Some(f), Some(r), file(tf), rank(tr))),
        _ => None,
    };
    let Some((from_file, from_rank, Some(tf), Some(tr))) = parsed else {
        return Vec::new();
    };
    let to = Square::from_coords(tf, tr);
    promotions
        .into_iter()
        .map(|p| (from_file, from_rank, to, p))
        .collect()
}

/// Reads ICCF numeric: four digits (file, rank, file, rank, each 1-8) and
/// an optional promotion digit 1=Q 2=R 3=B 4=N.
fn iccf(digits: &[char]) -> Option<Coords> {
    let d = |i: usize| -> Option<u32> {
        let v = digits.get(i)?.to_digit(10)?;
        (1..=8).contains(&v).then_some(v - 1)
    };
    let promotion = match digits.len() {
        4 => None,
        5 => Some(match digits.get(4)?.to_digit(10)? {
            1 => Role::Queen,
            2 => Role::Rook,
            3 => Role::Bishop,
            4 => Role::Knight,
            _ => return None,
        }),
        _ => return None,
    };
    Some(Coords {
        role: None,
        from_file: Some(File::new(d(0)?)),
        from_rank: Some(Rank::new(d(1)?)),
        to: Square::from_coords(File::new(d(2)?), Rank::new(d(3)?)),
        promotion,
    })
}

/// The square the king lands on when castling.
fn king_lands(pos: &Chess, side: CastlingSide) -> Square {
    side.king_to(pos.turn())
}

/// Whether a plain king move `from`→`to` is legal: then a whole-square
/// king move means that, not castling (Chess960 with the king beside its
/// castling square).
fn plain_king_move(legal: &shakmaty::MoveList, from: Square, to: Square) -> bool {
    legal.iter().any(|m| {
        matches!(m, Move::Normal { role: Role::King, from: f, to: t, .. } if *f == from && *t == to)
    })
}

/// Whether a legal move is one a reading means.
fn fits(
    pos: &Chess,
    legal: &shakmaty::MoveList,
    reading: &MoveReading,
    m: Move,
    capture: bool,
) -> bool {
    match (reading, m) {
        (MoveReading::Castle(side), Move::Castle { .. }) => m.castling_side() == Some(*side),
        (MoveReading::Castle(_), _) => false,
        (MoveReading::Coords(c), Move::Castle { king, rook }) => {
            let Some(side) = m.castling_side() else {
                return false;
            };
            let lands = king_lands(pos, side);
            // King takes its own rook (`Kxh1`, `e1h1`): nothing else it can mean.
            let takes_rook = c.to == rook;
            // The king's own move (`e1g1`, `5171`): only with the whole
            // starting square, and only where no plain king move is meant.
            let king_move = c.from() == Some(king)
                && c.to == lands
                && lands != king
                && !plain_king_move(legal, king, lands);
            matches!(c.role, None | Some(Role::King))
                && c.from_file.is_none_or(|f| f == king.file())
                && c.from_rank.is_none_or(|r| r == king.rank())
                && c.promotion.is_none()
                && (takes_rook || king_move)
        }
        // The target square first: it rules out most moves at once.
        (MoveReading::Coords(c), _) if c.to != m.to() => false,
        (MoveReading::Coords(c), _) => {
            let Some(from) = m.from() else {
                return false;
            };
            let promotion = match m {
                Move::Normal { promotion, .. } => promotion,
                _ => None,
            };
            let pawn_push_file = c.role == Some(Role::Pawn) && c.from_file.is_none();
            c.role.is_none_or(|r| r == m.role())
                && c.from_file.is_none_or(|f| f == from.file())
                && c.from_rank.is_none_or(|r| r == from.rank())
                && (!pawn_push_file || from.file() == c.to.file())
                && c.to == m.to()
                && c.promotion == promotion
                && (!capture || m.is_capture())
        }
    }
}

/// Writes a legal move in a notation; SAN forms carry `+` or `#`.
///
/// A move that is not legal in `pos` is written in plain long algebraic
/// (there is no SAN for it), so this never panics.
pub fn render(pos: &Chess, mv: &Move, notation: Notation, mode: CastlingMode) -> String {
    // The legal moves like `mv` (its piece to its square, or castling to
    // its side): what tells whether it is legal, and what SAN tells it
    // apart from. Fewer to generate than all of them.
    let alike = match *mv {
        Move::Normal { role, to, .. } | Move::Put { role, to } => pos.san_candidates(role, to),
        Move::EnPassant { to, .. } => pos.san_candidates(Role::Pawn, to),
        Move::Castle { .. } => match mv.castling_side() {
            Some(side) => pos.castling_moves(side),
            None => MoveList::new(),
        },
    };
    render_among(pos, &alike, mv, notation, mode)
}

/// [`render`], where `alike` holds at least every legal move of `pos`
/// alike to `mv` (all of them will do).
fn render_among(
    pos: &Chess,
    alike: &MoveList,
    mv: &Move,
    notation: Notation,
    mode: CastlingMode,
) -> String {
    if !alike.contains(mv) {
        return mv.to_string();
    }
    let san = || san_plus(pos, alike, *mv).to_string();
    match notation {
        // English letters are SAN's own.
        Notation::San(Lang::En) => san(),
        Notation::San(lang) => san()
            .chars()
            .map(|c| match english_role(c) {
                Some(role) => letters::letter(lang, role).unwrap_or(c),
                None => c,
            })
            .collect(),
        Notation::Figurine => san()
            .chars()
            .map(|c| english_role(c).map_or(c, letters::figurine))
            .collect(),
        Notation::Long => long(pos, alike, *mv),
        Notation::Uci => UciMove::from_move(*mv, mode).to_string(),
        Notation::Iccf => iccf_text(pos, *mv),
    }
}

/// SAN with its check or mate sign, for a legal move; `alike` as for
/// [`render_among`]. What `SanPlus::from_move` gives, without generating
/// the moves alike again, and without the outcome it works the sign out
/// from (which generates every move after the move, where only a move
/// that gives check needs them: mate or not).
fn san_plus(pos: &Chess, alike: &MoveList, mv: Move) -> SanPlus {
    let san = San::disambiguate(mv, alike);
    let mut after = pos.clone();
    after.play_unchecked(mv);
    let suffix = if after.checkers().is_empty() {
        None
    } else if after.legal_moves().is_empty() {
        Some(Suffix::Checkmate)
    } else {
        Some(Suffix::Check)
    };
    SanPlus { san, suffix }
}

/// The role of an English SAN piece letter (the `O` of castling is none).
fn english_role(c: char) -> Option<Role> {
    match c {
        'N' => Some(Role::Knight),
        'B' => Some(Role::Bishop),
        'R' => Some(Role::Rook),
        'Q' => Some(Role::Queen),
        'K' => Some(Role::King),
        _ => None,
    }
}

fn long(pos: &Chess, alike: &MoveList, mv: Move) -> String {
    let plus = san_plus(pos, alike, mv);
    let suffix = plus.suffix.map(|s| s.to_string()).unwrap_or_default();
    if let San::Castle(side) = plus.san {
        return format!("{}{suffix}", San::Castle(side));
    }
    let (Some(from), to) = (mv.from(), mv.to()) else {
        return mv.to_string();
    };
    let letter = if mv.role() == Role::Pawn {
        String::new()
    } else {
        mv.role().upper_char().to_string()
    };
    let sep = if mv.is_capture() { 'x' } else { '-' };
    let promotion = match mv {
        Move::Normal {
            promotion: Some(p), ..
        } => format!("={}", p.upper_char()),
        _ => String::new(),
    };
    format!("{letter}{from}{sep}{to}{promotion}{suffix}")
}

fn iccf_square(sq: Square) -> String {
    format!("{}{}", sq.file().to_u32() + 1, sq.rank().to_u32() + 1)
}

fn iccf_text(pos: &Chess, mv: Move) -> String {
    match mv {
        Move::Castle { king, rook } => {
            let lands = mv.castling_side().map(|side| king_lands(pos, side));
            // The king's move, as ICCF writes castling; where that square is
            // also a plain king move (or the king does not move, Chess960),
            // king onto its own rook says castling without doubt.
            let to = match lands {
                Some(l)
                    if l != king
                        && !plain_king_move(&pos.san_candidates(Role::King, l), king, l) =>
                {
                    l
                }
                _ => rook,
            };
            format!("{}{}", iccf_square(king), iccf_square(to))
        }
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            let digit = match promotion {
                Some(Role::Queen) => "1",
                Some(Role::Rook) => "2",
                Some(Role::Bishop) => "3",
                Some(Role::Knight) => "4",
                _ => "",
            };
            format!("{}{}{digit}", iccf_square(from), iccf_square(to))
        }
        Move::EnPassant { from, to } => format!("{}{}", iccf_square(from), iccf_square(to)),
        Move::Put { .. } => mv.to_string(),
    }
}

#[cfg(test)]
mod tests;
