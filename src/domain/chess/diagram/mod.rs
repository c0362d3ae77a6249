//! Board diagrams: what a player sees of the position in a mail.
//!
//! A [`Diagram`] is a view of a position: the board, the side it is seen
//! from, the last move's squares and the king in check. It renders as
//!
//! - text for the plain part of a mail: [`Diagram::to_unicode`] with chess
//!   figurines and [`Diagram::to_ascii`] with letters for clients and fonts
//!   that mangle Unicode;
//! - [`Diagram::to_svg`] and [`Diagram::to_png`] for the HTML part.
//!
//! Pure: strings and bytes out, no I/O. The PNG is drawn straight from the
//! same vector shapes the SVG uses (see `pieces`), with tiny-skia, because
//! parsing SVG text for every board would cost more than the drawing.
//! The drawing is done ahead of time: its tiles are checked in as
//! `tiles.png`, which a test draws again and compares (see `draw`).

#[cfg(test)]
mod draw;
mod pieces;
mod raster;
mod svg;

use shakmaty::{Board, CastlingSide, Chess, Color, File, Move, Position, Rank, Square};

use crate::domain::chess::notation::letters;
use crate::domain::lang::Lang;

pub use raster::{PNG_SIZE_PX, RenderError};

/// A board seen from one side, with the last move and any check marked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    board: Board,
    orientation: Color,
    last_move: Option<(Square, Square)>,
    check: Option<Square>,
}

impl Diagram {
    /// The diagram of `position` (the position *after* `last_move`, if any),
    /// seen by the side to move: the player who gets the "your move" mail.
    ///
    /// Castling marks the king's two squares (for Chess960 king-takes-rook as
    /// well); when a Chess960 king does not move, the rook's two squares.
    pub fn new(position: &Chess, last_move: Option<&Move>) -> Diagram {
        let mover = position.turn().other();
        let check = if position.is_check() {
            position.board().king_of(position.turn())
        } else {
            None
        };
        Diagram {
            board: position.board().clone(),
            orientation: position.turn(),
            last_move: last_move.map(|m| move_squares(m, mover)),
            check,
        }
    }

    /// A bare board with nothing marked, seen by White.
    pub fn from_board(board: Board) -> Diagram {
        Diagram {
            board,
            orientation: Color::White,
            last_move: None,
            check: None,
        }
    }

    /// The same diagram seen from `side` (e.g. for the mover's confirmation).
    #[must_use]
    pub fn seen_by(mut self, side: Color) -> Diagram {
        self.orientation = side;
        self
    }

    /// The side whose pieces are at the bottom.
    pub fn orientation(&self) -> Color {
        self.orientation
    }

    /// The squares marked as the last move: from, to.
    pub fn last_move(&self) -> Option<(Square, Square)> {
        self.last_move
    }

    /// The square of the king in check, if the side to move is in check.
    pub fn check(&self) -> Option<Square> {
        self.check
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// An ASCII-only board: `KQRBNP` for White, `kqrbnp` for Black, `.` for
    /// empty squares, file letters and rank digits around it, and the last
    /// move's two squares in brackets, e.g. `[N]`.
    ///
    /// Lines are at most 28 characters, with no tabs and no trailing spaces, so it
    /// lines up in any monospace font and survives quoting and
    /// `format=flowed`.
    pub fn to_ascii(&self) -> String {
        self.to_ascii_in(Lang::En)
    }

    /// [`Diagram::to_ascii`] with the piece letters a reader of `lang`
    /// knows (a Polish board shows `H` and `w` where an English one shows
    /// `Q` and `r`; see [`letters::board_letter`]).
    pub fn to_ascii_in(&self, lang: Lang) -> String {
        self.to_text(|square| match self.board.piece_at(square) {
            Some(piece) => {
                let letter = letters::board_letter(lang, piece.role);
                if piece.color.is_white() {
                    letter
                } else {
                    letter.to_ascii_lowercase()
                }
            }
            None => '.',
        })
    }

    /// A board with chess figurines (♔♕♖♗♘♙ for White, ♚♛♜♝♞♟ for Black),
    /// `·` for empty squares, laid out like [`Diagram::to_ascii`].
    ///
    /// Some fonts draw figurines wider than a letter, or the black pawn as a
    /// coloured emoji, which breaks the columns; and in dark mode the white
    /// and black figurines swap their look. That is why every mail also
    /// carries the ASCII board.
    pub fn to_unicode(&self) -> String {
        self.to_text(|square| match self.board.piece_at(square) {
            Some(piece) => piece.unicode_char(),
            None => '·',
        })
    }

    /// The diagram as a standalone SVG document: pieces, coordinates and
    /// highlights are all paths and shapes, no text and no fonts.
    pub fn to_svg(&self) -> String {
        svg::render(self)
    }

    /// The diagram as a PNG of [`PNG_SIZE_PX`] × [`PNG_SIZE_PX`] pixels.
    pub fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        raster::render_png(self)
    }

    /// The files left to right and ranks top to bottom, as seen.
    fn files_and_ranks(&self) -> ([File; 8], [Rank; 8]) {
        let mut files = File::ALL;
        let mut ranks = Rank::ALL;
        match self.orientation {
            Color::White => ranks.reverse(),
            Color::Black => files.reverse(),
        }
        (files, ranks)
    }

    fn is_marked(&self, square: Square) -> bool {
        self.last_move
            .is_some_and(|(from, to)| square == from || square == to)
    }

    fn to_text(&self, symbol: impl Fn(Square) -> char) -> String {
        let (files, ranks) = self.files_and_ranks();
        let letters: String = files.iter().map(|f| format!(" {} ", f.char())).collect();
        let edge = format!("  {letters}");
        let edge = edge.trim_end();
        let mut out = String::with_capacity(10 * 32);
        out.push_str(edge);
        out.push('\n');
        for rank in ranks {
            let digit = rank.char();
            out.push(digit);
            out.push(' ');
            for file in files {
                let square = Square::from_coords(file, rank);
                let (open, close) = if self.is_marked(square) {
                    ('[', ']')
                } else {
                    (' ', ' ')
                };
                out.push(open);
                out.push(symbol(square));
                out.push(close);
            }
            out.push(' ');
            out.push(digit);
            out.push('\n');
        }
        out.push_str(edge);
        out.push('\n');
        out
    }
}

/// The two squares that show a move on the board.
fn move_squares(m: &Move, mover: Color) -> (Square, Square) {
    match *m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let king_to = side.king_to(mover);
            if king_to == king {
                (rook, side.rook_to(mover))
            } else {
                (king, king_to)
            }
        }
        Move::Put { to, .. } => (to, to),
    }
}

#[cfg(test)]
mod tests;
