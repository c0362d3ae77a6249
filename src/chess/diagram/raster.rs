//! The PNG: drawn with tiny-skia from the shapes in `pieces`.
//!
//! Every piece on every kind of square, and the two frames, are drawn once
//! per process and kept as palette indices; a board is then a copy of its
//! frame with 64 tiles pasted in, and the PNG encoder does the rest.

use std::collections::HashMap;
use std::sync::OnceLock;

use resvg::tiny_skia::{
    Color as SkColor, FillRule, GradientStop, LineCap, LineJoin, Paint, Path, PathBuilder, Pixmap,
    PixmapPaint, Point, RadialGradient, Rect, SpreadMode, Stroke, Transform,
};
use shakmaty::{Color, Piece, Role, Square};

use super::Diagram;
use super::pieces::{self, Ink, Rgb, Segment, Shape};

/// One square's side in pixels.
pub(crate) const SQUARE_PX: u32 = 40;
/// The frame around the board, which carries the coordinates.
pub(crate) const MARGIN_PX: u32 = 20;
/// The PNG's width and height in pixels.
pub const PNG_SIZE_PX: u32 = 8 * SQUARE_PX + 2 * MARGIN_PX;
/// How much the pieces are enlarged about the point (50, 52) of their
/// 100-unit grid: they were drawn with room to spare, and a tenth more reads
/// better at 40 px.
const PIECE_ZOOM: f32 = 1.1;
/// Piece units to pixels.
pub(crate) const PIECE_SCALE: f32 = SQUARE_PX as f32 / 100.0 * PIECE_ZOOM;
/// Where the piece grid's origin lands in its square, in pixels.
pub(crate) const PIECE_OFFSET: (f32, f32) = (
    SQUARE_PX as f32 / 100.0 * 50.0 * (1.0 - PIECE_ZOOM),
    SQUARE_PX as f32 / 100.0 * 52.0 * (1.0 - PIECE_ZOOM),
);
/// Glyph units to pixels: digits come out 10.8 px tall.
pub(crate) const GLYPH_SCALE: f32 = 0.9;
/// Glyph boxes are 8 units wide; digits 12 units tall.
pub(crate) const GLYPH_W: f32 = 8.0;
pub(crate) const GLYPH_H: f32 = 12.0;
/// The check glow's radius as a fraction of a square.
pub(crate) const CHECK_RADIUS: f32 = 0.7;

/// Why a PNG could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The drawing surface could not be set up (out of memory, or a bug).
    #[error("could not set up the drawing surface")]
    Surface,
    /// The PNG encoder failed.
    #[error("could not encode the PNG: {0}")]
    Encode(#[from] png::EncodingError),
}

/// Where a glyph's top-left corner goes, in pixels, for a label of the
/// file or rank at `index` (0..8, left to right / top to bottom as seen).
pub(crate) fn file_label_origin(index: u32) -> (f32, f32) {
    let x =
        MARGIN_PX as f32 + (index as f32 + 0.5) * SQUARE_PX as f32 - GLYPH_W * GLYPH_SCALE / 2.0;
    (x, (MARGIN_PX + 8 * SQUARE_PX) as f32 + 3.0)
}

/// See [`file_label_origin`].
pub(crate) fn rank_label_origin(index: u32) -> (f32, f32) {
    let x = (MARGIN_PX as f32 - GLYPH_W * GLYPH_SCALE) / 2.0;
    let y =
        MARGIN_PX as f32 + (index as f32 + 0.5) * SQUARE_PX as f32 - GLYPH_H * GLYPH_SCALE / 2.0;
    (x, y)
}

/// The colour a square is painted, before any piece.
pub(crate) fn square_colour(square: Square, marked: bool) -> Rgb {
    match (square.is_light(), marked) {
        (true, false) => pieces::LIGHT_SQUARE,
        (false, false) => pieces::DARK_SQUARE,
        (true, true) => pieces::LIGHT_LAST_MOVE,
        (false, true) => pieces::DARK_LAST_MOVE,
    }
}

/// The top-left pixel of `square` as seen from `orientation`.
pub(crate) fn square_origin(square: Square, orientation: Color) -> (u32, u32) {
    let file = u32::from(square.file());
    let rank = u32::from(square.rank());
    let (col, row) = match orientation {
        Color::White => (file, 7 - rank),
        Color::Black => (7 - file, rank),
    };
    (MARGIN_PX + col * SQUARE_PX, MARGIN_PX + row * SQUARE_PX)
}

fn sk(c: Rgb) -> SkColor {
    SkColor::from_rgba8(c.0, c.1, c.2, 255)
}

fn solid(c: Rgb) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color(sk(c));
    paint.anti_alias = true;
    paint
}

fn stroke(width: f32) -> Stroke {
    Stroke {
        width,
        line_cap: LineCap::Round,
        line_join: LineJoin::Round,
        ..Stroke::default()
    }
}

fn path_of(shape: Shape) -> Option<Path> {
    match shape {
        Shape::Circle(cx, cy, r) => PathBuilder::from_circle(cx, cy, r),
        Shape::Ellipse(cx, cy, rx, ry) => {
            PathBuilder::from_oval(Rect::from_xywh(cx - rx, cy - ry, 2.0 * rx, 2.0 * ry)?)
        }
        Shape::Path(data) => {
            let mut pb = PathBuilder::new();
            for segment in pieces::parse_path(data)? {
                match segment {
                    Segment::MoveTo(x, y) => pb.move_to(x, y),
                    Segment::LineTo(x, y) => pb.line_to(x, y),
                    Segment::QuadTo(x1, y1, x, y) => pb.quad_to(x1, y1, x, y),
                    Segment::CubicTo(x1, y1, x2, y2, x, y) => pb.cubic_to(x1, y1, x2, y2, x, y),
                    Segment::Close => pb.close(),
                }
            }
            pb.finish()
        }
    }
}

/// Draws one piece into a transparent square-sized sprite.
fn piece_sprite(color: Color, role: Role) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(SQUARE_PX, SQUARE_PX)?;
    let colours = pieces::piece_colours(color);
    let (dx, dy) = PIECE_OFFSET;
    let transform = Transform::from_row(PIECE_SCALE, 0.0, 0.0, PIECE_SCALE, dx, dy);
    for &(ink, shape) in pieces::piece_parts(role) {
        let path = path_of(shape)?;
        match ink {
            Ink::Body => {
                pixmap.fill_path(
                    &path,
                    &solid(colours.fill),
                    FillRule::Winding,
                    transform,
                    None,
                );
                pixmap.stroke_path(
                    &path,
                    &solid(colours.outline),
                    &stroke(pieces::OUTLINE_WIDTH),
                    transform,
                    None,
                );
            }
            Ink::Detail => pixmap.stroke_path(
                &path,
                &solid(colours.detail),
                &stroke(pieces::DETAIL_WIDTH),
                transform,
                None,
            ),
            Ink::DetailDot => pixmap.fill_path(
                &path,
                &solid(colours.detail),
                FillRule::Winding,
                transform,
                None,
            ),
        }
    }
    Some(pixmap)
}

fn draw_glyph(pixmap: &mut Pixmap, c: char, (x, y): (f32, f32)) -> Option<()> {
    let path = path_of(Shape::Path(pieces::glyph(c)?))?;
    let transform = Transform::from_row(GLYPH_SCALE, 0.0, 0.0, GLYPH_SCALE, x, y);
    pixmap.stroke_path(
        &path,
        &solid(pieces::LABEL),
        &stroke(pieces::GLYPH_WIDTH),
        transform,
        None,
    );
    Some(())
}

/// The frame with its coordinates, seen from `orientation`. The squares are
/// left to the tiles.
fn frame(orientation: Color) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(PNG_SIZE_PX, PNG_SIZE_PX)?;
    pixmap.fill(sk(pieces::FRAME));
    let diagram = Diagram::from_board(shakmaty::Board::empty()).seen_by(orientation);
    let (files, ranks) = diagram.files_and_ranks();
    for (i, file) in (0..).zip(files) {
        draw_glyph(&mut pixmap, file.char(), file_label_origin(i))?;
    }
    for (i, rank) in (0..).zip(ranks) {
        draw_glyph(&mut pixmap, rank.char(), rank_label_origin(i))?;
    }
    Some(pixmap)
}

/// What lies under a piece: the square colour and its marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ground {
    Plain,
    LastMove,
    Check,
}

const GROUNDS: [Ground; 3] = [Ground::Plain, Ground::LastMove, Ground::Check];

/// A square-sized opaque tile: the ground, then the piece if any.
fn tile(light: bool, ground: Ground, piece: Option<&Pixmap>) -> Option<Pixmap> {
    let mut pixmap = Pixmap::new(SQUARE_PX, SQUARE_PX)?;
    // Any light (or dark) square stands for all of them here.
    let square = if light { Square::B1 } else { Square::A1 };
    pixmap.fill(sk(square_colour(square, ground == Ground::LastMove)));
    if ground == Ground::Check {
        let half = SQUARE_PX as f32 / 2.0;
        let centre = Point::from_xy(half, half);
        let glow = |alpha: f32| {
            let c = pieces::CHECK;
            let mut colour = sk(c);
            colour.set_alpha(alpha);
            colour
        };
        let shader = RadialGradient::new(
            centre,
            0.0,
            centre,
            CHECK_RADIUS * SQUARE_PX as f32,
            vec![
                GradientStop::new(0.0, glow(1.0)),
                GradientStop::new(0.5, glow(0.8)),
                GradientStop::new(1.0, glow(0.0)),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        )?;
        let paint = Paint {
            shader,
            ..Paint::default()
        };
        let rect = Rect::from_xywh(0.0, 0.0, SQUARE_PX as f32, SQUARE_PX as f32)?;
        pixmap.fill_rect(rect, &paint, Transform::identity(), None);
    }
    if let Some(piece) = piece {
        pixmap.draw_pixmap(
            0,
            0,
            piece.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
    }
    Some(pixmap)
}

/// Everything drawn once, as palette indices: a board is then only copied
/// together, and an 8-bit palette PNG is a third the size of an RGB one.
struct Tiles {
    /// At most 256 colours.
    palette: Vec<Rgb>,
    /// By orientation (White, Black): the whole image, squares unset.
    frames: [Vec<u8>; 2],
    /// By [`tile_index`].
    tiles: Vec<Vec<u8>>,
}

/// Tiles come 13 to a ground (no piece, then 6 white and 6 black pieces),
/// 3 grounds to a square colour, light first.
fn tile_index(light: bool, ground: Ground, piece: Option<Piece>) -> usize {
    let colour = usize::from(!light) * 3 * 13;
    let ground = match ground {
        Ground::Plain => 0,
        Ground::LastMove => 13,
        Ground::Check => 26,
    };
    let piece = piece.map_or(0, |p| 1 + color_index(p.color) * 6 + role_index(p.role));
    colour + ground + piece
}

fn opaque_rgb(pixmap: &Pixmap) -> impl Iterator<Item = Rgb> + '_ {
    // Every pixel is opaque (frame and tiles are filled first), so the
    // premultiplied colour is the colour.
    pixmap
        .pixels()
        .iter()
        .map(|p| Rgb(p.red(), p.green(), p.blue()))
}

fn distance(a: Rgb, b: Rgb) -> u32 {
    let d = |x: u8, y: u8| u32::from(x.abs_diff(y)).pow(2);
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)
}

/// `a` blended towards `b` by `step` of `steps`.
fn blend(a: Rgb, b: Rgb, step: u32, steps: u32) -> Rgb {
    let mix = |x: u8, y: u8| {
        let v = (u32::from(x) * (steps - step) + u32::from(y) * step + steps / 2) / steps;
        u8::try_from(v).unwrap_or(u8::MAX)
    };
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Picks the palette: the design's own colours first, so flat areas stay
/// exact; then even ramps between the colours that meet at anti-aliased
/// edges, so outlines stay smooth on every ground; then the commonest other
/// shades. Every shade not in the palette goes to its nearest entry.
fn build_palette(images: &[Pixmap]) -> (Vec<Rgb>, HashMap<Rgb, u8>) {
    let mut counts: HashMap<Rgb, u32> = HashMap::new();
    for image in images {
        for c in opaque_rgb(image) {
            *counts.entry(c).or_default() += 1;
        }
    }
    let grounds = [
        pieces::LIGHT_SQUARE,
        pieces::DARK_SQUARE,
        pieces::LIGHT_LAST_MOVE,
        pieces::DARK_LAST_MOVE,
    ];
    let white = pieces::piece_colours(Color::White);
    let black = pieces::piece_colours(Color::Black);
    let mut keys = vec![pieces::FRAME, pieces::LABEL, pieces::CHECK];
    keys.extend(grounds);
    keys.extend([white.fill, white.outline, white.detail]);
    keys.extend([black.fill, black.outline, black.detail]);
    // (from, to, steps): the outlines against every ground get the finest
    // ramps because they are most of the edges.
    let mut ramps: Vec<(Rgb, Rgb, u32)> = Vec::new();
    for ground in grounds {
        ramps.push((ground, white.outline, 14));
        ramps.push((ground, black.outline, 14));
    }
    ramps.extend([
        (white.fill, white.outline, 8),
        (black.fill, black.detail, 8),
        (black.fill, black.outline, 4),
        (pieces::FRAME, pieces::LABEL, 8),
        (pieces::LIGHT_SQUARE, pieces::CHECK, 8),
        (pieces::DARK_SQUARE, pieces::CHECK, 8),
    ]);
    for (from, to, steps) in ramps {
        keys.extend((1..steps).map(|step| blend(from, to, step, steps)));
    }
    let mut palette: Vec<Rgb> = Vec::with_capacity(256);
    for key in keys {
        if !palette.contains(&key) && palette.len() < 256 {
            palette.push(key);
        }
    }
    let mut rest: Vec<(Rgb, u32)> = counts
        .iter()
        .filter(|(c, _)| !palette.contains(c))
        .map(|(&c, &n)| (c, n))
        .collect();
    // Commonest first; ties by colour so the palette is the same every run.
    rest.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c.0, c.1, c.2));
    let room = 256_usize.saturating_sub(palette.len());
    palette.extend(rest.iter().take(room).map(|&(c, _)| c));
    let lookup = counts
        .keys()
        .map(|&c| {
            let nearest = (0..=255u8)
                .zip(&palette)
                .min_by_key(|&(_, &p)| distance(c, p))
                .map_or(0, |(i, _)| i);
            (c, nearest)
        })
        .collect();
    (palette, lookup)
}

fn to_indices(pixmap: &Pixmap, lookup: &HashMap<Rgb, u8>) -> Vec<u8> {
    opaque_rgb(pixmap)
        .map(|c| lookup.get(&c).copied().unwrap_or(0))
        .collect()
}

fn build_tiles() -> Option<Tiles> {
    let sprite = |color, role| piece_sprite(color, role);
    let mut sprites = Vec::with_capacity(12);
    for color in Color::ALL {
        for role in ROLES {
            sprites.push(sprite(color, role)?);
        }
    }
    let mut images = vec![frame(Color::White)?, frame(Color::Black)?];
    for light in [true, false] {
        for ground in GROUNDS {
            images.push(tile(light, ground, None)?);
            for s in &sprites {
                images.push(tile(light, ground, Some(s))?);
            }
        }
    }
    let (palette, lookup) = build_palette(&images);
    let mut indexed = images.iter().map(|image| to_indices(image, &lookup));
    let frames = [indexed.next()?, indexed.next()?];
    Some(Tiles {
        palette,
        frames,
        tiles: indexed.collect(),
    })
}

fn tiles() -> Option<&'static Tiles> {
    static TILES: OnceLock<Option<Tiles>> = OnceLock::new();
    TILES.get_or_init(build_tiles).as_ref()
}

/// The roles in the order of [`role_index`].
const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn role_index(role: Role) -> usize {
    match role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    }
}

/// The diagram as palette indices, row by row.
fn render_indices(diagram: &Diagram, tiles: &Tiles) -> Option<Vec<u8>> {
    let orientation = diagram.orientation;
    let mut image = tiles.frames.get(color_index(orientation))?.clone();
    let width = PNG_SIZE_PX as usize;
    let side = SQUARE_PX as usize;
    for square in Square::ALL {
        let ground = if diagram.check == Some(square) {
            Ground::Check
        } else if diagram.is_marked(square) {
            Ground::LastMove
        } else {
            Ground::Plain
        };
        let index = tile_index(square.is_light(), ground, diagram.board.piece_at(square));
        let tile = tiles.tiles.get(index)?;
        let (x, y) = square_origin(square, orientation);
        let (x, y) = (x as usize, y as usize);
        for (row, line) in tile.chunks_exact(side).enumerate() {
            let start = (y + row) * width + x;
            image.get_mut(start..start + side)?.copy_from_slice(line);
        }
    }
    Some(image)
}

/// Draws and encodes the diagram.
pub(crate) fn render_png(diagram: &Diagram) -> Result<Vec<u8>, RenderError> {
    let tiles = tiles().ok_or(RenderError::Surface)?;
    let image = render_indices(diagram, tiles).ok_or(RenderError::Surface)?;
    let mut out = Vec::with_capacity(16 * 1024);
    let mut encoder = png::Encoder::new(&mut out, PNG_SIZE_PX, PNG_SIZE_PX);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(
        tiles
            .palette
            .iter()
            .flat_map(|c| [c.0, c.1, c.2])
            .collect::<Vec<u8>>(),
    );
    // Measured on the bench's sample boards (release, one core): Balanced
    // gives ≤ 12 KB in 1.2 ms, Fast (fdeflate) ≤ 19 KB in 0.12 ms but 25.5
    // KB with the Up filter on the Opera Game's boards; the Up filter (the
    // tiles repeat row after row) with deflate level 2 kept ≤ 12 KB at
    // about 1,700 boards a second, level 1 keeps ≤ 13 KB at about 3,000
    // (`dopis bench --only diagram`; issue 15).
    encoder.set_filter(png::Filter::Up);
    encoder.set_deflate_compression(png::DeflateCompression::Level(1));
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image)?;
    writer.finish()?;
    Ok(out)
}
