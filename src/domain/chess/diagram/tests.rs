use proptest::prelude::*;
use resvg::tiny_skia::Pixmap;
use resvg::usvg;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Board, CastlingMode, Chess, Color, Move, Piece, Position, Role, Square};

use super::pieces::{self, Rgb};
use super::raster::{SQUARE_PX, square_colour, square_origin};
use super::{Diagram, PNG_SIZE_PX};

/// The position after `uci` is played from `fen`, and the move.
fn after(fen: &str, uci: &str, chess960: bool) -> (Chess, Move) {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let before: Chess = fen
        .parse::<Fen>()
        .expect("test FEN parses")
        .into_position(mode)
        .expect("test FEN is legal");
    let m = uci
        .parse::<UciMove>()
        .expect("test UCI parses")
        .to_move(&before)
        .expect("test move is legal");
    (before.play(m).expect("test move plays"), m)
}

fn diagram_after(fen: &str, uci: &str, chess960: bool) -> Diagram {
    let (position, m) = after(fen, uci, chess960);
    Diagram::new(&position, Some(&m))
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const BEFORE_SCHOLARS_MATE: &str =
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

#[test]
fn a_text_board_shows_the_readers_piece_letters() {
    let nf3 = diagram_after(START, "g1f3", false).seen_by(Color::White);
    let rows = |lang| -> Vec<String> {
        let text = nf3.to_ascii_in(lang);
        text.lines().map(str::to_string).collect()
    };
    let pl = rows(crate::domain::lang::Lang::Pl);
    assert_eq!(pl[1], "8  w  s  g  h  k  g  s  w  8");
    assert_eq!(pl[8], "1  W  S  G  H  K  G [.] W  1");
    assert_eq!(pl[7], "2  P  P  P  P  P  P  P  P  2");
    let lv = rows(crate::domain::lang::Lang::Lv);
    assert_eq!(lv[2], "7  b  b  b  b  b  b  b  b  7", "Latvian bandinieks");
    assert_eq!(lv[6], "3  .  .  .  .  . [Z] .  .  3");
    let lt = rows(crate::domain::lang::Lang::Lt);
    assert!(
        nf3.to_ascii_in(crate::domain::lang::Lang::Lt).is_ascii(),
        "{lt:?}"
    );
    assert_eq!(lt[8], "1  B  N  R  V  K  R [.] B  1", "Ž falls back to N");
}

#[test]
fn text_boards_show_the_position_from_either_side_with_the_last_move_in_brackets() {
    let nf3 = diagram_after(START, "g1f3", false);
    let mate = diagram_after(BEFORE_SCHOLARS_MATE, "h5f7", false);
    let cases: [(&str, String, &str); 4] = [
        (
            "1.Nf3, ASCII, White's view",
            nf3.clone().seen_by(Color::White).to_ascii(),
            "   a  b  c  d  e  f  g  h
8  r  n  b  q  k  b  n  r  8
7  p  p  p  p  p  p  p  p  7
6  .  .  .  .  .  .  .  .  6
5  .  .  .  .  .  .  .  .  5
4  .  .  .  .  .  .  .  .  4
3  .  .  .  .  . [N] .  .  3
2  P  P  P  P  P  P  P  P  2
1  R  N  B  Q  K  B [.] R  1
   a  b  c  d  e  f  g  h
",
        ),
        (
            "1.Nf3, ASCII, Black's view (Black to move, the default)",
            nf3.to_ascii(),
            "   h  g  f  e  d  c  b  a
1  R [.] B  K  Q  B  N  R  1
2  P  P  P  P  P  P  P  P  2
3  .  . [N] .  .  .  .  .  3
4  .  .  .  .  .  .  .  .  4
5  .  .  .  .  .  .  .  .  5
6  .  .  .  .  .  .  .  .  6
7  p  p  p  p  p  p  p  p  7
8  r  n  b  k  q  b  n  r  8
   h  g  f  e  d  c  b  a
",
        ),
        (
            "4.Qxf7#, Unicode, Black's view",
            mate.to_unicode(),
            "   h  g  f  e  d  c  b  a
1  ♖  ♘  ·  ♔  ·  ♗  ♘  ♖  1
2  ♙  ♙  ♙  ·  ♙  ♙  ♙  ♙  2
3  ·  ·  ·  ·  ·  ·  ·  ·  3
4  ·  ·  ·  ♙  ·  ♗  ·  ·  4
5 [·] ·  ·  ♟  ·  ·  ·  ·  5
6  ·  ·  ♞  ·  ·  ♞  ·  ·  6
7  ♟  ♟ [♕] ·  ♟  ♟  ♟  ♟  7
8  ♜  ·  ♝  ♚  ♛  ♝  ·  ♜  8
   h  g  f  e  d  c  b  a
",
        ),
        (
            "4.Qxf7#, Unicode, White's view",
            mate.clone().seen_by(Color::White).to_unicode(),
            "   a  b  c  d  e  f  g  h
8  ♜  ·  ♝  ♛  ♚  ♝  ·  ♜  8
7  ♟  ♟  ♟  ♟  · [♕] ♟  ♟  7
6  ·  ·  ♞  ·  ·  ♞  ·  ·  6
5  ·  ·  ·  ·  ♟  ·  · [·] 5
4  ·  ·  ♗  ·  ♙  ·  ·  ·  4
3  ·  ·  ·  ·  ·  ·  ·  ·  3
2  ♙  ♙  ♙  ♙  ·  ♙  ♙  ♙  2
1  ♖  ♘  ♗  ·  ♔  ·  ♘  ♖  1
   a  b  c  d  e  f  g  h
",
        ),
    ];
    for (name, got, expected) in cases {
        assert_eq!(got, expected, "{name}:\n{got}");
    }
}

#[test]
fn the_last_move_marks_the_squares_a_player_saw_change() {
    use Square::*;
    // FEN, move in UCI (castling as king takes rook), Chess960, marked squares.
    let cases: [(&str, &str, bool, (Square, Square)); 7] = [
        (START, "g1f3", false, (G1, F3)),
        (
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "e5f6",
            false,
            (E5, F6),
        ),
        ("8/1P4k1/8/8/8/8/6K1/8 w - - 0 1", "b7b8n", false, (B7, B8)),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "e1h1",
            false,
            (E1, G1),
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "e8a8",
            false,
            (E8, C8),
        ),
        // Chess960: the king takes its own rook and lands on c1.
        ("3k4/8/8/8/8/8/8/RK6 w A - 0 1", "b1a1", true, (B1, C1)),
        // Chess960: the king already stands on g1, so only the rook moves.
        ("3k4/8/8/8/8/8/8/6KR w H - 0 1", "g1h1", true, (H1, F1)),
    ];
    for (fen, uci, chess960, squares) in cases {
        let d = diagram_after(fen, uci, chess960);
        assert_eq!(d.last_move(), Some(squares), "{fen} {uci}");
    }
}

#[test]
fn the_king_in_check_is_marked_and_no_other() {
    let cases = [
        (BEFORE_SCHOLARS_MATE, "h5f7", Some(Square::E8)),
        (START, "e2e4", None),
        (
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
            "f8b4",
            None,
        ),
        (
            "rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 2",
            "f8b4",
            Some(Square::E1),
        ),
    ];
    for (fen, uci, check) in cases {
        assert_eq!(diagram_after(fen, uci, false).check(), check, "{fen} {uci}");
    }
}

#[test]
fn the_default_view_is_the_side_to_move() {
    assert_eq!(
        diagram_after(START, "e2e4", false).orientation(),
        Color::Black
    );
    let bare = Diagram::new(&Chess::default(), None);
    assert_eq!(bare.orientation(), Color::White);
    assert_eq!(bare.last_move(), None);
}

fn sample_diagrams() -> Vec<Diagram> {
    let samples = [
        (START, "g1f3", false),
        (BEFORE_SCHOLARS_MATE, "h5f7", false),
        ("8/1P4k1/8/8/8/8/6K1/8 w - - 0 1", "b7b8q", false),
        (
            "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8",
            "e1h1",
            false,
        ),
        ("3k4/8/8/8/8/8/8/RK6 w A - 0 1", "b1a1", true),
    ];
    samples
        .into_iter()
        .flat_map(|(fen, uci, c960)| {
            let d = diagram_after(fen, uci, c960);
            [d.clone().seen_by(Color::White), d.seen_by(Color::Black)]
        })
        .collect()
}

#[test]
fn text_boards_line_up_and_survive_mail() {
    for d in sample_diagrams() {
        for text in [d.to_ascii(), d.to_unicode()] {
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 10, "{text}");
            for line in &lines {
                assert!(!line.contains('\t'), "tab in {line:?}");
                assert_eq!(line.trim_end(), *line, "trailing space in {line:?}");
                assert!(!line.starts_with('>') && !line.starts_with("From "));
            }
            // The eight board lines are all 28 characters wide.
            for line in &lines[1..9] {
                assert_eq!(line.chars().count(), 28, "{line:?}");
            }
        }
        assert!(d.to_ascii().is_ascii());
    }
}

/// The `<rect>` start tags of class `class` at the top-left pixel of `square`.
fn rect_at(svg: &str, class: &str, square: Square, orientation: Color) -> bool {
    let (x, y) = square_origin(square, orientation);
    svg.contains(&format!("<rect class=\"{class}\" x=\"{x}\" y=\"{y}\""))
}

#[test]
fn svg_parses_and_shows_last_move_and_check_without_fonts() {
    let mate = diagram_after(BEFORE_SCHOLARS_MATE, "h5f7", false);
    for side in Color::ALL {
        let svg = mate.clone().seen_by(side).to_svg();
        let tree = usvg::Tree::from_str(&svg, &usvg::Options::default());
        assert!(tree.is_ok(), "{:?}", tree.err());
        for square in [Square::H5, Square::F7] {
            assert!(
                rect_at(&svg, "square last-move", square, side),
                "{square} {side:?}"
            );
        }
        assert!(rect_at(&svg, "check", Square::E8, side));
        assert!(!rect_at(&svg, "square last-move", Square::E8, side));
        assert!(!svg.contains("<text") && !svg.contains("font"));
    }
    let quiet = diagram_after(START, "e2e4", false).to_svg();
    assert!(!quiet.contains("class=\"check\""));
    assert_eq!(quiet.matches("last-move").count(), 2);
}

fn pixel(pixmap: &Pixmap, x: u32, y: u32) -> Rgb {
    let p = pixmap.pixel(x, y).expect("pixel inside the image");
    Rgb(p.red(), p.green(), p.blue())
}

fn decode(d: &Diagram) -> Pixmap {
    let png = d.to_png().expect("PNG renders");
    Pixmap::decode_png(&png).expect("our PNG decodes")
}

#[test]
fn png_decodes_with_the_highlights_where_the_squares_are() {
    let mate = diagram_after(BEFORE_SCHOLARS_MATE, "h5f7", false);
    for side in Color::ALL {
        let image = decode(&mate.clone().seen_by(side));
        assert_eq!((image.width(), image.height()), (PNG_SIZE_PX, PNG_SIZE_PX));
        // Near a square's top-left corner no piece reaches.
        let corner = |square: Square| {
            let (x, y) = square_origin(square, side);
            pixel(&image, x + 2, y + 2)
        };
        for (square, marked) in [
            (Square::H5, true),
            (Square::F7, true),
            (Square::A3, false),
            (Square::D6, false),
        ] {
            assert_eq!(
                corner(square),
                square_colour(square, marked),
                "{square} {side:?}"
            );
        }
        // Left of the king in check, inside the red glow.
        let (x, y) = square_origin(Square::E8, side);
        let Rgb(r, g, b) = pixel(&image, x + 4, y + SQUARE_PX / 2);
        assert!(
            r > g.saturating_add(60) && r > b.saturating_add(60),
            "{r} {g} {b}"
        );
    }
}

#[test]
fn png_and_svg_draw_the_same_board() {
    for d in sample_diagrams() {
        let ours = decode(&d);
        let tree = usvg::Tree::from_str(&d.to_svg(), &usvg::Options::default()).expect("parses");
        let mut theirs = Pixmap::new(PNG_SIZE_PX, PNG_SIZE_PX).expect("pixmap");
        resvg::render(
            &tree,
            resvg::tiny_skia::Transform::identity(),
            &mut theirs.as_mut(),
        );
        let total: u64 = ours
            .pixels()
            .iter()
            .zip(theirs.pixels())
            .map(|(a, b)| {
                u64::from(a.red().abs_diff(b.red()))
                    + u64::from(a.green().abs_diff(b.green()))
                    + u64::from(a.blue().abs_diff(b.blue()))
            })
            .sum();
        let mean = total as f64 / f64::from(PNG_SIZE_PX * PNG_SIZE_PX * 3);
        assert!(mean < 1.0, "mean difference {mean:.3}\n{}", d.to_ascii());
    }
}

#[test]
fn png_stays_under_25_kilobytes() {
    for d in sample_diagrams() {
        let size = d.to_png().expect("PNG renders").len();
        assert!(size < 25 * 1024, "{size} bytes for\n{}", d.to_ascii());
    }
}

#[test]
fn every_shape_and_glyph_parses() {
    for role in Role::ALL {
        for &(_, shape) in pieces::piece_parts(role) {
            if let pieces::Shape::Path(d) = shape {
                assert!(pieces::parse_path(d).is_some_and(|s| !s.is_empty()), "{d}");
            }
        }
    }
    for c in "abcdefgh12345678".chars() {
        let d = pieces::glyph(c).expect("a glyph for every coordinate");
        assert!(pieces::parse_path(d).is_some_and(|s| !s.is_empty()), "{c}");
    }
    assert_eq!(pieces::glyph('x'), None);
}

#[test]
fn path_data_outside_our_subset_is_refused() {
    use pieces::Segment::*;
    let cases: [(&str, Option<Vec<pieces::Segment>>); 8] = [
        ("", Some(vec![])),
        (
            "M 1 2 L 3,4 Z",
            Some(vec![MoveTo(1.0, 2.0), LineTo(3.0, 4.0), Close]),
        ),
        ("M1 2L3 4", Some(vec![MoveTo(1.0, 2.0), LineTo(3.0, 4.0)])),
        ("M 1", None),
        ("m 1 2", None),
        ("M 1 2 A 1 1 0 0 1 3 4", None),
        ("M NaN 2", None),
        ("M 1 inf", None),
    ];
    for (data, expected) in cases {
        assert_eq!(pieces::parse_path(data), expected, "{data:?}");
    }
}

fn any_piece() -> impl Strategy<Value = Option<Piece>> {
    prop_oneof![
        3 => Just(None),
        1 => (any::<bool>(), 0usize..6).prop_map(|(white, role)| {
            Some(Piece {
                color: if white { Color::White } else { Color::Black },
                role: Role::ALL[role],
            })
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Any board, even one no game reaches (no kings, nine queens), with any
    /// two squares as the "last move", renders in every form.
    #[test]
    fn any_board_and_marks_render_without_panicking(
        squares in proptest::collection::vec(any_piece(), 64),
        from in 0u32..64,
        to in 0u32..64,
        black in any::<bool>(),
    ) {
        let mut board = Board::empty();
        for (square, piece) in Square::ALL.into_iter().zip(squares) {
            if let Some(piece) = piece {
                board.set_piece_at(square, piece);
            }
        }
        let side = if black { Color::Black } else { Color::White };
        let (from, to) = (Square::new(from), Square::new(to));
        // A castling move that fits no position still marks two squares.
        let misfit = Diagram::new(&Chess::default(), Some(&Move::Castle { king: from, rook: to }));
        prop_assert!(misfit.last_move().is_some());
        let mut d = Diagram::from_board(board).seen_by(side);
        d.last_move = Some((from, to));
        d.check = Some(to);
        prop_assert_eq!(d.to_ascii().lines().count(), 10);
        prop_assert_eq!(d.to_unicode().lines().count(), 10);
        prop_assert!(usvg::Tree::from_str(&d.to_svg(), &usvg::Options::default()).is_ok());
        let image = decode(&d);
        prop_assert_eq!(image.width(), PNG_SIZE_PX);
    }
}

/// `tiles.png` holds what `draw` draws from the shapes in `pieces`: change a
/// shape or a colour and this fails until `DOPIS_BLESS=1` writes the new
/// tiles (the golden mails then change too, and say so).
#[test]
fn the_checked_in_tiles_are_the_drawn_ones() {
    use super::raster::Tiles;
    let drawn = super::draw::build_tiles().expect("the tiles draw");
    let png = drawn.to_png().expect("the tiles encode");
    assert!(
        Tiles::from_png(&png).is_some_and(|read| read == drawn),
        "tiles.png's layout reads back what it wrote"
    );
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/domain/chess/diagram/tiles.png");
    let checked_in = std::fs::read(&path).unwrap_or_default();
    if Tiles::from_png(&checked_in).is_some_and(|read| read == drawn) {
        return;
    }
    if std::env::var("DOPIS_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &png).expect("write tiles.png");
        return;
    }
    panic!(
        "{} differs from the tiles drawn from `pieces` (DOPIS_BLESS=1 writes them)",
        path.display()
    );
}
