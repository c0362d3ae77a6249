//! Why a move that was read cannot be played: reasons in words a player
//! understands from a mail, worked out from the position.

use std::fmt;

use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, File, Piece, Position, Rank, Role, Square, attacks,
};

use super::letters::role_name;

/// Where a move text says its piece stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// On this square.
    Square(Square),
    /// On this file.
    File(File),
    /// On this rank.
    Rank(Rank),
}

impl fmt::Display for Area {
    /// In English words: "on b1", "on the b-file", "on rank 2".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Area::Square(s) => write!(f, "on {s}"),
            Area::File(file) => write!(f, "on the {}-file", file.char()),
            Area::Rank(rank) => write!(f, "on rank {}", rank.char()),
        }
    }
}

/// Why a move that was read is not legal here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalReason {
    /// The square a move starts from is empty.
    NoPieceOn {
        /// The empty square.
        square: Square,
    },
    /// The piece on the starting square belongs to the opponent.
    NotYourPiece {
        /// Where it stands.
        square: Square,
        /// What it is.
        role: Role,
    },
    /// The starting square holds another kind of piece than the one written.
    WrongPiece {
        /// The starting square.
        square: Square,
        /// The piece written.
        written: Role,
        /// The piece standing there.
        found: Role,
    },
    /// The player has no piece of that kind (where the text says).
    NoSuchPiece {
        /// The piece written.
        role: Role,
        /// Where the text said it stands: on a square, file or rank.
        place: Option<Area>,
    },
    /// No piece of that kind can get to the target square.
    CannotReach {
        /// The piece written.
        role: Role,
        /// The one piece meant, when the text or the board says which.
        from: Option<Square>,
        /// The target square.
        to: Square,
    },
    /// The target square holds one of the player's own pieces.
    OwnPieceOn {
        /// The target square.
        square: Square,
        /// The piece standing there.
        role: Role,
    },
    /// A capture was written but the target square is empty.
    NothingToCapture {
        /// The target square.
        square: Square,
    },
    /// A pawn reaching the last rank must say what it becomes.
    PromotionNeeded {
        /// The promotion square.
        to: Square,
    },
    /// A promotion was written for a move that does not promote.
    NoPromotionHere,
    /// A pawn cannot become a king or stay a pawn.
    CannotPromoteTo {
        /// The piece written.
        role: Role,
    },
    /// The piece is pinned against the player's king.
    Pinned {
        /// The pinned piece.
        role: Role,
        /// Where it stands.
        square: Square,
        /// The pinning piece.
        by_role: Role,
        /// Where that stands.
        by: Square,
    },
    /// The king is in check and the move does not end it.
    InCheck {
        /// A checking piece.
        by_role: Role,
        /// Where it stands.
        by: Square,
    },
    /// The move would leave or put the king in check.
    KingWouldBeInCheck {
        /// Where the king would stand, when it is the king that moves.
        on: Option<Square>,
    },
    /// Castling: the king has left its starting square.
    KingHasMoved,
    /// Castling: the rook is no longer in its corner.
    RookHasMoved {
        /// The corner.
        square: Square,
        /// Which castling.
        side: CastlingSide,
    },
    /// Castling: the right was lost earlier (king or rook moved).
    CastlingRightLost {
        /// Which castling.
        side: CastlingSide,
    },
    /// Castling: not allowed while in check.
    CastlingOutOfCheck {
        /// A checking piece.
        by_role: Role,
        /// Where it stands.
        by: Square,
    },
    /// Castling: a square between king and rook is occupied.
    CastlingBlocked {
        /// Which castling.
        side: CastlingSide,
        /// The occupied square.
        square: Square,
    },
    /// Castling: the king would cross an attacked square.
    CastlingThroughCheck {
        /// Which castling.
        side: CastlingSide,
        /// The attacked square.
        square: Square,
        /// An attacker.
        by_role: Role,
        /// Where it stands.
        by: Square,
    },
    /// Castling: the king would land in check.
    CastlingIntoCheck {
        /// Which castling.
        side: CastlingSide,
        /// Where the king would land.
        square: Square,
    },
}

impl IllegalReason {
    /// How much the reason tells the player: when several readings of a
    /// text are all illegal, the most telling reason is the one shown.
    pub(super) fn weight(&self) -> u8 {
        match self {
            IllegalReason::NoSuchPiece { .. } => 1,
            IllegalReason::NoPieceOn { .. }
            | IllegalReason::NotYourPiece { .. }
            | IllegalReason::WrongPiece { .. }
            | IllegalReason::CannotReach { .. }
            | IllegalReason::OwnPieceOn { .. } => 2,
            _ => 3,
        }
    }
}

fn side_name(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "king side (O-O)",
        CastlingSide::QueenSide => "queen side (O-O-O)",
    }
}

fn plural(role: Role) -> &'static str {
    match role {
        Role::King => "kings",
        Role::Queen => "queens",
        Role::Rook => "rooks",
        Role::Bishop => "bishops",
        Role::Knight => "knights",
        Role::Pawn => "pawns",
    }
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use IllegalReason::*;
        match self {
            NoPieceOn { square } => write!(f, "there is no piece on {square}"),
            NotYourPiece { square, role } => {
                write!(f, "the {} on {square} is not yours", role_name(*role))
            }
            WrongPiece {
                square,
                written,
                found,
            } => write!(
                f,
                "the piece on {square} is your {}, not a {}",
                role_name(*found),
                role_name(*written)
            ),
            NoSuchPiece { role, place } => match place {
                Some(place) => write!(f, "you have no {} {place}", role_name(*role)),
                None => write!(f, "you have no {}", role_name(*role)),
            },
            CannotReach { role, from, to } => match from {
                Some(from) => write!(f, "the {} on {from} cannot reach {to}", role_name(*role)),
                None => write!(f, "none of your {} can reach {to}", plural(*role)),
            },
            OwnPieceOn { square, role } => {
                write!(f, "{square} is taken by your own {}", role_name(*role))
            }
            NothingToCapture { square } => write!(f, "there is nothing to capture on {square}"),
            PromotionNeeded { to } => write!(
                f,
                "a pawn reaching {to} must promote: write {to}=Q, {to}=R, {to}=B or {to}=N"
            ),
            NoPromotionHere => write!(f, "only a pawn reaching the last rank promotes"),
            CannotPromoteTo { role } => {
                write!(f, "a pawn cannot promote to a {}", role_name(*role))
            }
            Pinned {
                role,
                square,
                by_role,
                by,
            } => write!(
                f,
                "the {} on {square} is pinned: moving it would expose your king to the {} on {by}",
                role_name(*role),
                role_name(*by_role)
            ),
            InCheck { by_role, by } => write!(
                f,
                "your king is in check from the {} on {by}, and this move does not end the check",
                role_name(*by_role)
            ),
            KingWouldBeInCheck { on: Some(on) } => {
                write!(f, "your king would be in check on {on}")
            }
            KingWouldBeInCheck { on: None } => {
                write!(f, "this move would leave your king in check")
            }
            KingHasMoved => write!(f, "castling is not allowed because your king has moved"),
            RookHasMoved { square, side } => write!(
                f,
                "castling {} is not allowed because the rook on {square} has moved or been taken",
                side_name(*side)
            ),
            CastlingRightLost { side } => write!(
                f,
                "castling {} is not allowed any more: the king or that rook has moved earlier",
                side_name(*side)
            ),
            CastlingOutOfCheck { by_role, by } => write!(
                f,
                "castling is not allowed while your king is in check (from the {} on {by})",
                role_name(*by_role)
            ),
            CastlingBlocked { side, square } => write!(
                f,
                "castling {} is not possible: {square} between king and rook is not empty",
                side_name(*side)
            ),
            CastlingThroughCheck {
                side,
                square,
                by_role,
                by,
            } => write!(
                f,
                "castling {} is not allowed: your king would pass {square}, which the {} on {by} attacks",
                side_name(*side),
                role_name(*by_role)
            ),
            CastlingIntoCheck { side, square } => write!(
                f,
                "castling {} is not allowed: your king would be in check on {square}",
                side_name(*side)
            ),
        }
    }
}

/// A move as read from text, before it is checked against the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Coords {
    /// The piece written; `None` when the text names a whole starting square
    /// without a piece (UCI, long algebraic, ICCF): whatever stands there.
    pub role: Option<Role>,
    /// Starting file, if written.
    pub from_file: Option<File>,
    /// Starting rank, if written.
    pub from_rank: Option<Rank>,
    /// Target square.
    pub to: Square,
    /// Promotion piece, if written.
    pub promotion: Option<Role>,
}

impl Coords {
    /// The starting square when the text names it whole.
    pub fn from(&self) -> Option<Square> {
        Some(Square::from_coords(self.from_file?, self.from_rank?))
    }
}

fn first_checker(pos: &Chess) -> Option<(Role, Square)> {
    let sq = pos.checkers().first()?;
    Some((pos.board().role_at(sq)?, sq))
}

enum Reach {
    Yes,
    OwnPiece(Role),
    No,
}

/// Whether a piece could go from `from` to `to` by how it moves, before
/// asking whether the king would be safe.
fn reach(pos: &Chess, from: Square, role: Role, to: Square) -> Reach {
    let us = pos.turn();
    let board = pos.board();
    let occupied = board.occupied();
    if role == Role::Pawn {
        let ahead = |sq: Square| sq.offset(us.fold_wb(8, -8));
        let start_rank = us.fold_wb(Rank::Second, Rank::Seventh);
        let one = ahead(from);
        let push = one == Some(to) && !occupied.contains(to);
        let double = from.rank() == start_rank
            && one.is_some_and(|mid| !occupied.contains(mid) && ahead(mid) == Some(to))
            && !occupied.contains(to);
        let capture = attacks::pawn_attacks(us, from).contains(to)
            && (board.color_at(to) == Some(!us) || pos.maybe_ep_square() == Some(to));
        return if push || double || capture {
            Reach::Yes
        } else {
            match board.piece_at(to) {
                Some(p) if p.color == us && attacks::pawn_attacks(us, from).contains(to) => {
                    Reach::OwnPiece(p.role)
                }
                _ => Reach::No,
            }
        };
    }
    let piece = Piece { color: us, role };
    if !attacks::attacks(from, piece, occupied).contains(to) {
        return Reach::No;
    }
    match board.piece_at(to) {
        Some(p) if p.color == us => Reach::OwnPiece(p.role),
        _ => Reach::Yes,
    }
}

/// The enemy piece pinning the piece on `from` against our king, when the
/// move to `to` leaves the pin line.
fn pinner(pos: &Chess, from: Square, to: Square) -> Option<(Role, Square)> {
    let us = pos.turn();
    let board = pos.board();
    let king = board.king_of(us)?;
    if king == from {
        return None;
    }
    let occupied = board.occupied();
    let without = occupied.without(from);
    for s in board.by_color(!us) & board.sliders() {
        let Some(piece) = board.piece_at(s) else {
            continue;
        };
        let exposes = attacks::attacks(s, piece, without).contains(king)
            && !attacks::attacks(s, piece, occupied).contains(king);
        let stays_on_line = to == s || attacks::between(king, s).contains(to);
        if exposes && !stays_on_line {
            return Some((piece.role, s));
        }
    }
    None
}

fn last_rank(color: Color) -> Rank {
    color.fold_wb(Rank::Eighth, Rank::First)
}

/// Which castling a king move means: onto its own rook, or (with the whole
/// starting square written) two or more squares to its castling square.
fn castling_meant(pos: &Chess, from: Square, to: Square, whole: bool) -> Option<CastlingSide> {
    let us = pos.turn();
    if pos.board().king_of(us) != Some(from) || to.rank() != us.backrank() {
        return None;
    }
    // In standard chess the king from its home onto a corner rook means
    // castling even where the right is gone (then the answer says why);
    // elsewhere a king onto its own rook is just blocked.
    let home = us.fold_wb(Square::E1, Square::E8);
    let own_rook = pos.castles().mode() == CastlingMode::Standard
        && from == home
        && matches!(to.file(), File::A | File::H)
        && pos.board().piece_at(to)
            == Some(Piece {
                color: us,
                role: Role::Rook,
            });
    let towards = CastlingSide::from_king_side(to.file() > from.file());
    [CastlingSide::KingSide, CastlingSide::QueenSide]
        .into_iter()
        .find(|side| {
            (own_rook && towards == *side)
                || pos.castles().rook(us, *side) == Some(to)
                || (whole && side.king_to(us) == to && from.distance(to) >= 2)
        })
}

/// Why a read move matches no legal move.
pub(super) fn why_not(pos: &Chess, c: &Coords, capture: bool) -> IllegalReason {
    let us = pos.turn();
    let board = pos.board();
    let origins: Vec<Square> = if let Some(sq) = c.from() {
        match board.piece_at(sq) {
            None => return IllegalReason::NoPieceOn { square: sq },
            Some(p) if p.color != us => {
                return IllegalReason::NotYourPiece {
                    square: sq,
                    role: p.role,
                };
            }
            Some(p) => match c.role {
                Some(written) if written != p.role => {
                    return IllegalReason::WrongPiece {
                        square: sq,
                        written,
                        found: p.role,
                    };
                }
                _ => vec![sq],
            },
        }
    } else {
        let role = c.role.unwrap_or(Role::Pawn);
        // A pawn written without a file moves straight ahead.
        let file = match (role, c.from_file) {
            (Role::Pawn, None) => Some(c.to.file()),
            (_, file) => file,
        };
        let mut ours = board.by_piece(Piece { color: us, role });
        if let Some(file) = file {
            ours &= shakmaty::Bitboard::from_file(file);
        }
        if let Some(rank) = c.from_rank {
            ours &= shakmaty::Bitboard::from_rank(rank);
        }
        if ours.is_empty() {
            let place = match (file, c.from_rank) {
                (Some(f), Some(r)) => Some(Area::Square(Square::from_coords(f, r))),
                (Some(f), None) => Some(Area::File(f)),
                (None, Some(r)) => Some(Area::Rank(r)),
                (None, None) => None,
            };
            return IllegalReason::NoSuchPiece { role, place };
        }
        ours.into_iter().collect()
    };

    let mut reaching = None;
    let mut own = None;
    for from in &origins {
        let Some(role) = board.role_at(*from) else {
            continue;
        };
        match reach(pos, *from, role, c.to) {
            Reach::Yes => {
                reaching = Some((*from, role));
                break;
            }
            Reach::OwnPiece(r) => own = Some(r),
            Reach::No => {}
        }
    }
    let Some((from, role)) = reaching else {
        let king = origins
            .first()
            .filter(|o| board.role_at(**o) == Some(Role::King));
        if let Some(side) = king.and_then(|k| castling_meant(pos, *k, c.to, c.from().is_some())) {
            return why_not_castle(pos, side);
        }
        if let Some(role) = own {
            return IllegalReason::OwnPieceOn { square: c.to, role };
        }
        let role = c
            .role
            .or_else(|| origins.first().and_then(|o| board.role_at(*o)))
            .unwrap_or(Role::Pawn);
        let from = match origins.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        return IllegalReason::CannotReach {
            role,
            from,
            to: c.to,
        };
    };

    if role == Role::Pawn && c.to.rank() == last_rank(us) {
        match c.promotion {
            None => return IllegalReason::PromotionNeeded { to: c.to },
            Some(r @ (Role::King | Role::Pawn)) => {
                return IllegalReason::CannotPromoteTo { role: r };
            }
            Some(_) => {}
        }
    } else if c.promotion.is_some() {
        return IllegalReason::NoPromotionHere;
    }
    let en_passant = role == Role::Pawn && pos.maybe_ep_square() == Some(c.to);
    if capture && !board.occupied().contains(c.to) && !en_passant {
        return IllegalReason::NothingToCapture { square: c.to };
    }
    if role == Role::King {
        return IllegalReason::KingWouldBeInCheck { on: Some(c.to) };
    }
    if let Some((by_role, by)) = first_checker(pos) {
        return IllegalReason::InCheck { by_role, by };
    }
    if let Some((by_role, by)) = pinner(pos, from, c.to) {
        return IllegalReason::Pinned {
            role,
            square: from,
            by_role,
            by,
        };
    }
    IllegalReason::KingWouldBeInCheck { on: None }
}

/// Why castling on one side is not legal here.
pub(super) fn why_not_castle(pos: &Chess, side: CastlingSide) -> IllegalReason {
    let us = pos.turn();
    let board = pos.board();
    let castles = pos.castles();
    let (Some(king), Some(rook)) = (board.king_of(us), castles.rook(us, side)) else {
        if castles.mode() == CastlingMode::Standard {
            let home = us.fold_wb(Square::E1, Square::E8);
            let corner = Square::from_coords(
                if side == CastlingSide::KingSide {
                    File::H
                } else {
                    File::A
                },
                us.backrank(),
            );
            let ours =
                |sq: Square, role: Role| board.piece_at(sq) == Some(Piece { color: us, role });
            if !ours(home, Role::King) {
                return IllegalReason::KingHasMoved;
            }
            if !ours(corner, Role::Rook) {
                return IllegalReason::RookHasMoved {
                    square: corner,
                    side,
                };
            }
        }
        return IllegalReason::CastlingRightLost { side };
    };
    if let Some((by_role, by)) = first_checker(pos) {
        return IllegalReason::CastlingOutOfCheck { by_role, by };
    }
    let blocked = castles.path(us, side) & board.occupied().without(king).without(rook);
    if let Some(square) = blocked.first() {
        return IllegalReason::CastlingBlocked { side, square };
    }
    let king_to = side.king_to(us);
    let occupied = board.occupied().without(king).without(rook);
    let mut walk: Vec<Square> = attacks::between(king, king_to)
        .with(king_to)
        .into_iter()
        .collect();
    walk.sort_by_key(|sq| king.distance(*sq));
    for square in walk {
        let attackers = board.attacks_to(square, !us, occupied);
        if let Some(by) = attackers.first() {
            if square == king_to {
                return IllegalReason::CastlingIntoCheck { side, square };
            }
            let by_role = board.role_at(by).unwrap_or(Role::Pawn);
            return IllegalReason::CastlingThroughCheck {
                side,
                square,
                by_role,
                by,
            };
        }
    }
    IllegalReason::KingWouldBeInCheck { on: Some(king_to) }
}
