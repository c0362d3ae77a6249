//! The PNG: a board is a copy of its frame with 64 tiles pasted in, as
//! palette indices, and the PNG encoder does the rest.
//!
//! Every piece on every kind of square, and the two frames, were drawn with
//! tiny-skia from the shapes in `pieces` (see `draw`) and are checked in as
//! one palette PNG, `tiles.png`, read once per process.

use std::sync::OnceLock;

use shakmaty::{Color, Piece, Role, Square};

use super::Diagram;
use super::pieces::{self, Rgb};

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
    /// The image data could not be compressed.
    #[error("could not compress the PNG's image data ({0:?})")]
    Deflate(miniz_oxide::deflate::core::TDEFLStatus),
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

/// What lies under a piece: the square colour and its marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ground {
    Plain,
    LastMove,
    Check,
}

#[cfg(test)]
pub(super) const GROUNDS: [Ground; 3] = [Ground::Plain, Ground::LastMove, Ground::Check];

/// Everything drawn once, as palette indices: a board is then only copied
/// together, and an 8-bit palette PNG is a third the size of an RGB one.
#[derive(PartialEq, Eq)]
pub(super) struct Tiles {
    /// At most 256 colours.
    pub(super) palette: Vec<Rgb>,
    /// By orientation (White, Black): the whole image, squares unset.
    pub(super) frames: [Vec<u8>; 2],
    /// By [`tile_index`].
    pub(super) tiles: Vec<Vec<u8>>,
}

/// How many tiles there are: see [`tile_index`].
pub(super) const TILE_COUNT: usize = 2 * 3 * 13;

/// Tiles come 13 to a ground (no piece, then 6 white and 6 black pieces),
/// 3 grounds to a square colour, light first.
pub(super) fn tile_index(light: bool, ground: Ground, piece: Option<Piece>) -> usize {
    let colour = usize::from(!light) * 3 * 13;
    let ground = match ground {
        Ground::Plain => 0,
        Ground::LastMove => 13,
        Ground::Check => 26,
    };
    let piece = piece.map_or(0, |p| 1 + color_index(p.color) * 6 + role_index(p.role));
    colour + ground + piece
}

/// The drawn tiles: `draw`'s output, written by the test
/// `the_checked_in_tiles_are_the_drawn_ones`.
static TILES_PNG: &[u8] = include_bytes!("tiles.png");

/// `tiles.png` is as wide as a board; the White frame is on top, the Black
/// one under it, then the tiles in index order, this many to a row.
const ATLAS_COLUMNS: usize = (PNG_SIZE_PX / SQUARE_PX) as usize;
/// See [`ATLAS_COLUMNS`].
pub(super) const ATLAS_HEIGHT_PX: u32 =
    2 * PNG_SIZE_PX + TILE_COUNT.div_ceil(ATLAS_COLUMNS) as u32 * SQUARE_PX;

/// Where tile `index` starts in `tiles.png`, as (x, y) in pixels.
fn atlas_origin(index: usize) -> (usize, usize) {
    let side = SQUARE_PX as usize;
    (
        index % ATLAS_COLUMNS * side,
        2 * PNG_SIZE_PX as usize + index / ATLAS_COLUMNS * side,
    )
}

impl Tiles {
    /// The tiles as `tiles.png`'s pixels (palette indices, row by row).
    #[cfg(test)]
    fn atlas_indices(&self) -> Vec<u8> {
        let width = PNG_SIZE_PX as usize;
        let side = SQUARE_PX as usize;
        let mut image = vec![0; width * ATLAS_HEIGHT_PX as usize];
        let [white, black] = &self.frames;
        image[..white.len()].copy_from_slice(white);
        image[white.len()..white.len() + black.len()].copy_from_slice(black);
        for (index, tile) in self.tiles.iter().enumerate() {
            let (x, y) = atlas_origin(index);
            for (row, line) in tile.chunks_exact(side).enumerate() {
                let start = (y + row) * width + x;
                image[start..start + side].copy_from_slice(line);
            }
        }
        image
    }

    /// The tiles as a palette PNG, for `tiles.png`.
    #[cfg(test)]
    pub(super) fn to_png(&self) -> Result<Vec<u8>, RenderError> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, PNG_SIZE_PX, ATLAS_HEIGHT_PX);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(flat_palette(&self.palette));
        encoder.set_filter(png::Filter::Up);
        encoder.set_deflate_compression(png::DeflateCompression::Level(9));
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&self.atlas_indices())?;
        writer.finish()?;
        Ok(out)
    }

    /// Reads what [`Tiles::to_png`] wrote; `None` if `png` is not such an
    /// image.
    pub(super) fn from_png(png_bytes: &[u8]) -> Option<Tiles> {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        // The palette indices themselves, not the colours.
        decoder.set_transformations(png::Transformations::IDENTITY);
        let mut reader = decoder.read_info().ok()?;
        let mut image = vec![0; reader.output_buffer_size()?];
        let frame = reader.next_frame(&mut image).ok()?;
        let info = reader.info();
        if frame.color_type != png::ColorType::Indexed
            || frame.bit_depth != png::BitDepth::Eight
            || frame.width != PNG_SIZE_PX
            || frame.height != ATLAS_HEIGHT_PX
        {
            return None;
        }
        let palette: Vec<Rgb> = info
            .palette
            .as_deref()?
            .chunks_exact(3)
            .map(|c| Rgb(c[0], c[1], c[2]))
            .collect();
        let width = PNG_SIZE_PX as usize;
        let side = SQUARE_PX as usize;
        let frame_len = width * PNG_SIZE_PX as usize;
        let frames = [
            image.get(..frame_len)?.to_vec(),
            image.get(frame_len..2 * frame_len)?.to_vec(),
        ];
        let tiles = (0..TILE_COUNT)
            .map(|index| {
                let (x, y) = atlas_origin(index);
                let mut tile = Vec::with_capacity(side * side);
                for row in 0..side {
                    let start = (y + row) * width + x;
                    tile.extend_from_slice(image.get(start..start + side)?);
                }
                Some(tile)
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Tiles {
            palette,
            frames,
            tiles,
        })
    }
}

fn flat_palette(palette: &[Rgb]) -> Vec<u8> {
    palette.iter().flat_map(|c| [c.0, c.1, c.2]).collect()
}

/// The tiles, read from `tiles.png` once per process.
fn tiles() -> Option<&'static Tiles> {
    static TILES: OnceLock<Option<Tiles>> = OnceLock::new();
    TILES.get_or_init(|| Tiles::from_png(TILES_PNG)).as_ref()
}

/// The roles in the order of [`role_index`].
#[cfg(test)]
pub(super) const ROLES: [Role; 6] = [
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
///
/// The PNG's header and palette are written by the `png` crate; its image
/// data (each row "Up"-filtered, then zlib at deflate level 1) is made here
/// with a compressor kept per thread, and written as one IDAT chunk.
/// Measured on a board-sized image (release, one core): the `png` crate's
/// own encoder at level 1 took 0.41 ms, as it feeds the compressor row by
/// row through `flate2` and sets up a new one (some 300 KB of tables to
/// clear) each time; the same bytes compressed at once by a compressor set
/// up once take 0.06 ms, and the file is no larger. Two boards go out with
/// every move, so this was a third of the daemon's CPU per mail (issue 27).
/// Level 1 with the Up filter, because the tiles repeat row after row: it
/// keeps a board at ≤ 13 KB (`dopis bench --only diagram`; issue 15).
pub(crate) fn render_png(diagram: &Diagram) -> Result<Vec<u8>, RenderError> {
    let tiles = tiles().ok_or(RenderError::Surface)?;
    let image = render_indices(diagram, tiles).ok_or(RenderError::Surface)?;
    let mut out = Vec::with_capacity(16 * 1024);
    let mut encoder = png::Encoder::new(&mut out, PNG_SIZE_PX, PNG_SIZE_PX);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(flat_palette(&tiles.palette));
    let mut writer = encoder.write_header()?;
    writer.write_chunk(png::chunk::IDAT, &zlib_up_filtered(&image)?)?;
    writer.finish()?;
    Ok(out)
}

/// The image data of an 8-bit PNG of `image` (rows of [`PNG_SIZE_PX`]
/// bytes): each row with the Up filter (type 2: the difference from the row
/// above), the whole zlib-compressed at level 1.
fn zlib_up_filtered(image: &[u8]) -> Result<Vec<u8>, RenderError> {
    use miniz_oxide::deflate::core::{
        CompressorOxide, TDEFLFlush, TDEFLStatus, compress_to_output,
        create_comp_flags_from_zip_params,
    };
    thread_local! {
        static COMPRESSOR: std::cell::RefCell<Box<CompressorOxide>> = std::cell::RefCell::new(
            // Level 1, a zlib header and trailer (window bits > 0), default strategy.
            Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(1, 15, 0))),
        );
    }
    let width = PNG_SIZE_PX as usize;
    let mut filtered = Vec::with_capacity(image.len() + image.len() / width);
    let mut above: &[u8] = &[];
    for row in image.chunks(width) {
        filtered.push(2);
        if above.is_empty() {
            filtered.extend_from_slice(row);
        } else {
            filtered.extend(row.iter().zip(above).map(|(x, b)| x.wrapping_sub(*b)));
        }
        above = row;
    }
    let mut zlib = Vec::with_capacity(16 * 1024);
    let (status, _) = COMPRESSOR.with_borrow_mut(|compressor| {
        compressor.reset();
        compress_to_output(compressor, &filtered, TDEFLFlush::Finish, |chunk| {
            zlib.extend_from_slice(chunk);
            true
        })
    });
    match status {
        TDEFLStatus::Done => Ok(zlib),
        other => Err(RenderError::Deflate(other)),
    }
}
