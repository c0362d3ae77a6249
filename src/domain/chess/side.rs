//! A colour as a key word: `white` or `black`, as mail keys, stored rows,
//! templates and JSON write it. One spelling for the whole crate.

use shakmaty::Color;

/// The key word of a colour: `white` or `black`.
pub fn key(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The colour a key word names, if it is one.
pub fn from_key(word: &str) -> Option<Color> {
    match word {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// Writes a colour as its key word (for `#[serde(serialize_with)]`).
pub fn serialize_color<S: serde::Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(key(*color))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_colour_reads_back_from_its_key() {
        for c in [Color::White, Color::Black] {
            assert_eq!(from_key(key(c)), Some(c));
        }
        assert_eq!(from_key("White"), None);
    }
}
