//! The SVG: the shapes from `pieces`, placed exactly where the PNG puts them.

use std::fmt::Write;

use shakmaty::{Color, Piece, Role, Square};

use super::Diagram;
use super::pieces::{self, Ink, Shape};
use super::raster::{
    CHECK_RADIUS, GLYPH_SCALE, PIECE_OFFSET, PIECE_SCALE, PNG_SIZE_PX, SQUARE_PX,
    file_label_origin, rank_label_origin, square_colour, square_origin,
};

/// A number as SVG wants it: no exponent, no needless digits.
fn num(x: f32) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

fn piece_id(piece: Piece) -> String {
    let colour = match piece.color {
        Color::White => 'w',
        Color::Black => 'b',
    };
    format!("{colour}{}", piece.role.upper_char())
}

fn shape_element(out: &mut String, shape: Shape, attributes: &str) {
    // Writing to a String cannot fail.
    let _ = match shape {
        Shape::Path(d) => writeln!(out, "<path d=\"{d}\" {attributes}/>"),
        Shape::Circle(cx, cy, r) => writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {attributes}/>",
            num(cx),
            num(cy),
            num(r)
        ),
        Shape::Ellipse(cx, cy, rx, ry) => writeln!(
            out,
            "<ellipse cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\" {attributes}/>",
            num(cx),
            num(cy),
            num(rx),
            num(ry)
        ),
    };
}

fn piece_definition(out: &mut String, piece: Piece) {
    let colours = pieces::piece_colours(piece.color);
    let _ = writeln!(
        out,
        "<g id=\"{}\" transform=\"matrix({s} 0 0 {s} {} {})\" stroke-linecap=\"round\" stroke-linejoin=\"round\">",
        piece_id(piece),
        num(PIECE_OFFSET.0),
        num(PIECE_OFFSET.1),
        s = num(PIECE_SCALE)
    );
    for &(ink, shape) in pieces::piece_parts(piece.role) {
        let attributes = match ink {
            Ink::Body => format!(
                "fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"",
                colours.fill.hex(),
                colours.outline.hex(),
                num(pieces::OUTLINE_WIDTH)
            ),
            Ink::Detail => format!(
                "fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"",
                colours.detail.hex(),
                num(pieces::DETAIL_WIDTH)
            ),
            Ink::DetailDot => format!("fill=\"{}\"", colours.detail.hex()),
        };
        shape_element(out, shape, &attributes);
    }
    out.push_str("</g>\n");
}

fn square_rect(out: &mut String, square: Square, orientation: Color, fill: &str, class: &str) {
    let (x, y) = square_origin(square, orientation);
    let _ = writeln!(
        out,
        "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{SQUARE_PX}\" height=\"{SQUARE_PX}\" fill=\"{fill}\"/>"
    );
}

fn glyph_element(out: &mut String, c: char, (x, y): (f32, f32)) {
    if let Some(d) = pieces::glyph(c) {
        let _ = writeln!(
            out,
            "<path d=\"{d}\" transform=\"translate({} {}) scale({})\"/>",
            num(x),
            num(y),
            num(GLYPH_SCALE)
        );
    }
}

pub(crate) fn render(diagram: &Diagram) -> String {
    let orientation = diagram.orientation;
    let size = PNG_SIZE_PX;
    let mut out = String::with_capacity(16 * 1024);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \
         width=\"{size}\" height=\"{size}\" viewBox=\"0 0 {size} {size}\">"
    );
    out.push_str("<defs>\n");
    let _ = writeln!(
        out,
        "<radialGradient id=\"check\" r=\"{}\">\
         <stop offset=\"0\" stop-color=\"{c}\"/>\
         <stop offset=\"0.5\" stop-color=\"{c}\" stop-opacity=\"0.8\"/>\
         <stop offset=\"1\" stop-color=\"{c}\" stop-opacity=\"0\"/></radialGradient>",
        num(CHECK_RADIUS),
        c = pieces::CHECK.hex()
    );
    for color in Color::ALL {
        for role in Role::ALL {
            let piece = Piece { color, role };
            if diagram.board.iter().any(|(_, p)| p == piece) {
                piece_definition(&mut out, piece);
            }
        }
    }
    out.push_str("</defs>\n");
    let _ = writeln!(
        out,
        "<rect width=\"{size}\" height=\"{size}\" fill=\"{}\"/>",
        pieces::FRAME.hex()
    );
    for square in Square::ALL {
        let marked = diagram.is_marked(square);
        let class = if marked { "square last-move" } else { "square" };
        square_rect(
            &mut out,
            square,
            orientation,
            &square_colour(square, marked).hex(),
            class,
        );
    }
    if let Some(king) = diagram.check {
        square_rect(&mut out, king, orientation, "url(#check)", "check");
    }
    let (files, ranks) = diagram.files_and_ranks();
    let _ = writeln!(
        out,
        "<g fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"round\" stroke-linejoin=\"round\">",
        pieces::LABEL.hex(),
        num(pieces::GLYPH_WIDTH)
    );
    for (i, file) in (0..).zip(files) {
        glyph_element(&mut out, file.char(), file_label_origin(i));
    }
    for (i, rank) in (0..).zip(ranks) {
        glyph_element(&mut out, rank.char(), rank_label_origin(i));
    }
    out.push_str("</g>\n");
    for (square, piece) in diagram.board.iter() {
        let (x, y) = square_origin(square, orientation);
        let _ = writeln!(
            out,
            "<use xlink:href=\"#{}\" x=\"{x}\" y=\"{y}\"/>",
            piece_id(piece)
        );
    }
    out.push_str("</svg>\n");
    out
}
