//! The drawing itself: piece shapes, coordinate glyphs and colours, shared by
//! the SVG writer and the PNG rasterizer so the two can never disagree.
//!
//! Everything is vector paths because resvg runs without its text feature:
//! there are no fonts to draw letters with. The piece shapes were drawn for
//! dopis on a 100 × 100 grid (y down); the glyphs on an 8 × 16 grid with the
//! baseline at y = 12. Path data uses only absolute `M L C Q Z`, which both
//! SVG and our small parser below understand.

use shakmaty::{Color, Role};

/// A colour as 8-bit sRGB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`, as SVG wants it.
    pub(crate) fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Board and frame colours.
pub(crate) const LIGHT_SQUARE: Rgb = Rgb(0xf0, 0xdc, 0xb4);
pub(crate) const DARK_SQUARE: Rgb = Rgb(0xb4, 0x87, 0x64);
/// The last move's squares: a yellow that still tells light from dark.
pub(crate) const LIGHT_LAST_MOVE: Rgb = Rgb(0xf5, 0xe8, 0x6e);
pub(crate) const DARK_LAST_MOVE: Rgb = Rgb(0xd4, 0xb6, 0x3c);
/// The centre of the glow under a king in check; it fades to the square colour.
pub(crate) const CHECK: Rgb = Rgb(0xe8, 0x1e, 0x1e);
pub(crate) const FRAME: Rgb = Rgb(0x3c, 0x3a, 0x37);
pub(crate) const LABEL: Rgb = Rgb(0xe6, 0xe2, 0xda);

/// How one kind of piece is painted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PieceColours {
    pub fill: Rgb,
    pub outline: Rgb,
    /// Inner lines (eye, slit, mane…): dark on white pieces, light on black
    /// ones, so black pieces do not turn into flat blobs.
    pub detail: Rgb,
}

pub(crate) fn piece_colours(color: Color) -> PieceColours {
    match color {
        Color::White => PieceColours {
            fill: Rgb(0xff, 0xff, 0xff),
            outline: Rgb(0x1c, 0x1c, 0x1c),
            detail: Rgb(0x1c, 0x1c, 0x1c),
        },
        Color::Black => PieceColours {
            fill: Rgb(0x2a, 0x2a, 0x2a),
            outline: Rgb(0x0a, 0x0a, 0x0a),
            detail: Rgb(0xe4, 0xe4, 0xe4),
        },
    }
}

/// Outline width in piece units (a square is 100 units).
pub(crate) const OUTLINE_WIDTH: f32 = 3.4;
/// Detail line width in piece units.
pub(crate) const DETAIL_WIDTH: f32 = 2.8;
/// Glyph stroke width in glyph units.
pub(crate) const GLYPH_WIDTH: f32 = 1.7;

/// A shape in piece units.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// SVG path data (absolute M L C Q Z only).
    Path(&'static str),
    /// A circle: centre x, centre y, radius.
    Circle(f32, f32, f32),
    /// An axis-aligned ellipse: centre x, centre y, radius x, radius y.
    Ellipse(f32, f32, f32, f32),
}

/// How a shape is painted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ink {
    /// Filled with the piece colour and outlined.
    Body,
    /// An open line in the detail colour.
    Detail,
    /// Filled with the detail colour, no outline (eyes, dots).
    DetailDot,
}

/// One layer of a piece, painted in order.
pub(crate) type Part = (Ink, Shape);

const BASE: Part = (
    Ink::Body,
    Shape::Path("M 22 90 L 78 90 L 78 84 Q 78 79 73 79 L 27 79 Q 22 79 22 84 Z"),
);

const PAWN: &[Part] = &[
    (
        Ink::Body,
        Shape::Path("M 31 81 C 31 68 40 62 43 50 L 57 50 C 60 62 69 68 69 81 Z"),
    ),
    (
        Ink::Body,
        Shape::Path("M 26 90 L 74 90 L 74 86 Q 74 81 69 81 L 31 81 Q 26 81 26 86 Z"),
    ),
    (Ink::Body, Shape::Ellipse(50.0, 50.0, 13.0, 4.0)),
    (Ink::Body, Shape::Circle(50.0, 33.0, 12.0)),
];

const ROOK: &[Part] = &[
    (Ink::Body, Shape::Path("M 33 79 L 35 44 L 65 44 L 67 79 Z")),
    (
        Ink::Body,
        Shape::Path(
            "M 27 18 L 37 18 L 37 25 L 45 25 L 45 18 L 55 18 L 55 25 L 63 25 \
             L 63 18 L 73 18 L 73 36 L 66 44 L 34 44 L 27 36 Z",
        ),
    ),
    BASE,
    (Ink::Detail, Shape::Path("M 30 36 L 70 36")),
    (Ink::Detail, Shape::Path("M 37 73 L 63 73")),
];

const KNIGHT: &[Part] = &[
    (
        Ink::Body,
        Shape::Path(
            "M 32 79 C 33 70 39 63 45 55 C 38 57 31 59 25 58 C 19 57 15 53 15 48 \
             C 15 44 18 41 22 38 L 33 29 C 34 23 37 17 42 11 L 47 20 \
             C 64 20 77 33 77 53 C 77 63 75 71 72 79 Z",
        ),
    ),
    BASE,
    (Ink::DetailDot, Shape::Ellipse(36.0, 34.0, 3.4, 2.6)),
    (Ink::DetailDot, Shape::Circle(21.0, 50.0, 2.0)),
    (
        Ink::Detail,
        Shape::Path("M 52 25 C 64 29 71 40 71 55 C 71 63 69 71 67 77"),
    ),
];

const BISHOP: &[Part] = &[
    (
        Ink::Body,
        Shape::Path("M 41 70 L 59 70 C 60 74 65 78 70 79 L 30 79 C 35 78 40 74 41 70 Z"),
    ),
    BASE,
    (
        Ink::Body,
        Shape::Path("M 37 62 L 63 62 Q 65 66 63 70 L 37 70 Q 35 66 37 62 Z"),
    ),
    (
        Ink::Body,
        Shape::Path(
            "M 50 20 C 40 28 33 38 34 49 C 35 57 42 62 50 62 \
             C 58 62 65 57 66 49 C 67 38 60 28 50 20 Z",
        ),
    ),
    (Ink::Body, Shape::Circle(50.0, 15.0, 5.5)),
    (Ink::Detail, Shape::Path("M 50 34 L 50 52 M 42 43 L 58 43")),
];

const QUEEN: &[Part] = &[
    (
        Ink::Body,
        Shape::Path(
            "M 24 34 L 34 53 L 37 28 L 44 50 L 50 24 L 56 50 L 63 28 L 66 53 \
             L 76 34 L 68 66 L 32 66 Z",
        ),
    ),
    (
        Ink::Body,
        Shape::Path("M 32 66 L 68 66 C 66 71 68 76 72 79 L 28 79 C 32 76 34 71 32 66 Z"),
    ),
    BASE,
    (Ink::Body, Shape::Circle(24.0, 34.0, 4.5)),
    (Ink::Body, Shape::Circle(37.0, 28.0, 4.5)),
    (Ink::Body, Shape::Circle(50.0, 24.0, 4.5)),
    (Ink::Body, Shape::Circle(63.0, 28.0, 4.5)),
    (Ink::Body, Shape::Circle(76.0, 34.0, 4.5)),
    (Ink::Detail, Shape::Path("M 35 72 L 65 72")),
];

const KING: &[Part] = &[
    (
        Ink::Body,
        Shape::Path(
            "M 47 8 L 53 8 L 53 14 L 59 14 L 59 20 L 53 20 L 53 44 L 47 44 \
             L 47 20 L 41 20 L 41 14 L 47 14 Z",
        ),
    ),
    (
        Ink::Body,
        Shape::Path(
            "M 31 66 C 20 55 21 35 36 35 C 44 35 48 41 50 47 \
             C 52 41 56 35 64 35 C 79 35 80 55 69 66 Z",
        ),
    ),
    (
        Ink::Body,
        Shape::Path("M 31 66 L 69 66 C 67 71 69 76 73 79 L 27 79 C 31 76 33 71 31 66 Z"),
    ),
    BASE,
    (Ink::Detail, Shape::Path("M 50 50 L 50 64")),
    (Ink::Detail, Shape::Path("M 35 72 L 65 72")),
];

/// The layers of a piece, bottom first.
pub(crate) fn piece_parts(role: Role) -> &'static [Part] {
    match role {
        Role::Pawn => PAWN,
        Role::Knight => KNIGHT,
        Role::Bishop => BISHOP,
        Role::Rook => ROOK,
        Role::Queen => QUEEN,
        Role::King => KING,
    }
}

/// A stroked glyph for a file letter or rank digit, or `None` for any other
/// character.
pub(crate) fn glyph(c: char) -> Option<&'static str> {
    Some(match c {
        'a' => {
            "M 7 4 L 7 12 M 7 8 C 7 5.6 5.6 4 3.8 4 C 1.9 4 0.8 5.8 0.8 8 \
             C 0.8 10.2 1.9 12 3.8 12 C 5.6 12 7 10.4 7 8"
        }
        'b' => {
            "M 1 0 L 1 12 M 1 8 C 1 5.6 2.4 4 4.2 4 C 6.1 4 7.2 5.8 7.2 8 \
             C 7.2 10.2 6.1 12 4.2 12 C 2.4 12 1 10.4 1 8"
        }
        'c' => {
            "M 7 5.6 C 6.3 4.6 5.3 4 4.2 4 C 2.2 4 1 5.9 1 8 C 1 10.1 2.2 12 4.2 12 \
             C 5.3 12 6.3 11.4 7 10.4"
        }
        'd' => {
            "M 7 0 L 7 12 M 7 8 C 7 5.6 5.6 4 3.8 4 C 1.9 4 0.8 5.8 0.8 8 \
             C 0.8 10.2 1.9 12 3.8 12 C 5.6 12 7 10.4 7 8"
        }
        'e' => {
            "M 1 8 L 7.2 8 C 7.2 5.6 5.9 4 4.1 4 C 2.1 4 1 5.9 1 8 C 1 10.1 2.3 12 4.3 12 \
             C 5.5 12 6.4 11.5 7 10.6"
        }
        'f' => "M 6.8 0.6 C 6.3 0.2 5.7 0 5.1 0 C 3.8 0 3 0.9 3 2.6 L 3 12 M 1 4.5 L 6.2 4.5",
        'g' => {
            "M 7 4 L 7 13 C 7 15 5.8 16 4 16 C 2.8 16 1.8 15.5 1.2 14.6 \
             M 7 8 C 7 5.6 5.6 4 3.8 4 C 1.9 4 0.8 5.8 0.8 8 \
             C 0.8 10.2 1.9 12 3.8 12 C 5.6 12 7 10.4 7 8"
        }
        'h' => "M 1 0 L 1 12 M 1 7.6 C 1.5 5.2 2.9 4 4.5 4 C 6.2 4 7 5.3 7 7.2 L 7 12",
        '1' => "M 2 2.6 L 5 0 L 5 12 M 2 12 L 8 12",
        '2' => "M 1 3 C 1.5 1 2.9 0 4.5 0 C 6.3 0 7.5 1.3 7.5 3.2 C 7.5 5.6 5 7.2 1 12 L 7.6 12",
        '3' => {
            "M 1 1.5 C 2 0.5 3 0 4.3 0 C 6.2 0 7.3 1.2 7.3 3 C 7.3 4.8 5.8 5.8 3.8 5.8 \
             C 6 5.8 7.6 7 7.6 9 C 7.6 11 6 12 4.2 12 C 2.8 12 1.6 11.4 0.8 10.4"
        }
        '4' => "M 6 12 L 6 0 L 0.6 8.4 L 8 8.4",
        '5' => {
            "M 7.2 0 L 2 0 L 1.5 5.3 C 2.3 4.8 3.3 4.5 4.3 4.5 C 6.3 4.5 7.6 6 7.6 8.2 \
             C 7.6 10.5 6.2 12 4.1 12 C 2.8 12 1.7 11.5 0.9 10.6"
        }
        '6' => {
            "M 6.8 0.8 C 6 0.3 5.2 0 4.4 0 C 2 0 0.8 2.5 0.8 6.5 C 0.8 10 2 12 4.3 12 \
             C 6.3 12 7.5 10.5 7.5 8.3 C 7.5 6.2 6.3 4.8 4.3 4.8 C 2.6 4.8 1.3 5.8 0.8 7.5"
        }
        '7' => "M 0.8 0 L 7.5 0 C 5 3.5 3.5 7.5 3 12",
        '8' => {
            "M 4.2 5.6 C 2.4 5.6 1.2 4.6 1.2 2.9 C 1.2 1.1 2.5 0 4.2 0 C 5.9 0 7.2 1.1 7.2 2.9 \
             C 7.2 4.6 6 5.6 4.2 5.6 C 2.1 5.6 0.8 6.9 0.8 8.8 C 0.8 10.8 2.3 12 4.2 12 \
             C 6.1 12 7.6 10.8 7.6 8.8 C 7.6 6.9 6.3 5.6 4.2 5.6 Z"
        }
        _ => return None,
    })
}

/// One drawing command of our path-data subset. Only `draw`, which runs
/// in the tests, reads path data; the SVG copies it as it is.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Segment {
    MoveTo(f32, f32),
    LineTo(f32, f32),
    QuadTo(f32, f32, f32, f32),
    CubicTo(f32, f32, f32, f32, f32, f32),
    Close,
}

/// Parses path data in our subset (absolute `M L Q C Z`, numbers separated by
/// spaces or commas). `None` on anything else: the data is ours and a test
/// parses every shape, so this is a guard, not a feature.
#[cfg(test)]
pub(crate) fn parse_path(data: &str) -> Option<Vec<Segment>> {
    let mut segments = Vec::new();
    let mut rest = data;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        let Some(cmd) = rest.chars().next() else {
            break;
        };
        rest = &rest[cmd.len_utf8()..];
        let arity = match cmd {
            'M' | 'L' => 2,
            'Q' => 4,
            'C' => 6,
            'Z' => 0,
            _ => return None,
        };
        let mut args = Vec::with_capacity(arity);
        for _ in 0..arity {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
            let end = rest
                .find(|c: char| c.is_ascii_whitespace() || c == ',' || c.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            let x = rest[..end].parse::<f32>().ok().filter(|x| x.is_finite())?;
            args.push(x);
            rest = &rest[end..];
        }
        segments.push(match (cmd, args.as_slice()) {
            ('M', &[x, y]) => Segment::MoveTo(x, y),
            ('L', &[x, y]) => Segment::LineTo(x, y),
            ('Q', &[x1, y1, x, y]) => Segment::QuadTo(x1, y1, x, y),
            ('C', &[x1, y1, x2, y2, x, y]) => Segment::CubicTo(x1, y1, x2, y2, x, y),
            ('Z', &[]) => Segment::Close,
            _ => return None,
        });
    }
    Some(segments)
}
