//! Where the PNG's tiles come from: every piece on every kind of square,
//! and the two frames with their coordinates, drawn with tiny-skia from the
//! shapes in `pieces` and reduced to one palette.
//!
//! Only the tests draw: the result is checked in as `tiles.png`, which
//! `raster` reads (see `raster::tiles`). Drawing took about 30 ms of CPU,
//! once per process, which every `dopis game new` paid for its two boards;
//! reading the checked-in tiles takes well under a millisecond. The test
//! `the_checked_in_tiles_are_the_drawn_ones` draws them again and fails if
//! `tiles.png` differs; `DOPIS_BLESS=1` writes the new tiles.

use std::collections::HashMap;

use resvg::tiny_skia::{
    Color as SkColor, FillRule, GradientStop, LineCap, LineJoin, Paint, Path, PathBuilder, Pixmap,
    PixmapPaint, Point, RadialGradient, Rect, SpreadMode, Stroke, Transform,
};
use shakmaty::{Color, Role, Square};

use super::Diagram;
use super::pieces::{self, Ink, Rgb, Segment, Shape};
use super::raster::{
    CHECK_RADIUS, GLYPH_SCALE, GROUNDS, Ground, PIECE_OFFSET, PIECE_SCALE, PNG_SIZE_PX, ROLES,
    SQUARE_PX, Tiles, file_label_origin, rank_label_origin, square_colour,
};

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

pub(super) fn build_tiles() -> Option<Tiles> {
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
