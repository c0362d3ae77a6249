//! Splitting a move text into its move number, its body and its decorations,
//! before any reading against a position.

/// The most characters of move text worth reading: a move, a number and
/// decorations fit easily; anything longer is not one move.
const MAX_CHARS: usize = 48;

/// A move number as written (`12.` or `12...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct WrittenNumber {
    /// The number, saturated when absurdly large.
    pub number: u32,
    /// Written with `...` or `…`: Black's move.
    pub black: bool,
    /// As written, for messages.
    pub text: String,
}

/// A move text taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Written {
    /// The move number, if one was written.
    pub number: Option<WrittenNumber>,
    /// The move itself, without separators, spaces and decorations.
    pub body: Vec<char>,
    /// A capture mark (`x`, `:`, `×`) was written.
    pub capture: bool,
}

impl Written {
    /// The body as a string, for messages.
    pub fn read(&self) -> String {
        self.body.iter().collect()
    }
}

/// Takes a move text apart; `None` when it is too long to be one move.
pub(super) fn split(text: &str) -> Option<Written> {
    let text = text.trim();
    if text.chars().count() > MAX_CHARS {
        return None;
    }
    let (number, rest) = split_number(text);
    let rest = strip_decorations(rest);
    let mut body = Vec::new();
    let mut capture = false;
    for ch in rest.chars() {
        match ch {
            // A capture mark stands between parts; leading, it is no mark.
            'x' | 'X' | '×' | ':' if !body.is_empty() => capture = true,
            '-' | '–' | '—' | '=' | '/' | '(' | ')' => {}
            c if c.is_whitespace() => {}
            c => body.push(c),
        }
    }
    Some(Written {
        number,
        body,
        capture,
    })
}

/// Splits off `12.`, `12...`, `12…`, `12. ...` at the start. Digits not
/// followed by a dot are no move number: `5254` is an ICCF move.
fn split_number(text: &str) -> (Option<WrittenNumber>, &str) {
    let digits_end = text
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(text.len(), |(i, _)| i);
    if digits_end == 0 {
        return (None, text);
    }
    let after = &text[digits_end..];
    if !after.trim_start().starts_with(['.', '…']) {
        return (None, text);
    }
    let mut dots = 0;
    let mut end = after.len();
    for (i, c) in after.char_indices() {
        match c {
            '.' => dots += 1,
            '…' => dots += 3,
            c if c.is_whitespace() => {}
            _ => {
                end = i;
                break;
            }
        }
    }
    let digits = &text[..digits_end];
    let number = digits.parse::<u32>().unwrap_or(u32::MAX);
    let written = WrittenNumber {
        number,
        black: dots >= 2,
        text: format!("{digits}{}", if dots >= 2 { "..." } else { "." }),
    };
    (Some(written), &after[end..])
}

/// Removes check and mate signs, annotation glyphs and en passant marks from
/// the end: they say nothing the position does not.
fn strip_decorations(mut s: &str) -> &str {
    loop {
        let before = s.len();
        s = s.trim_end();
        s = s.trim_end_matches([
            '+', '#', '!', '?', '‼', '⁇', '⁈', '⁉', '†', '‡', '.', ',', ';',
        ]);
        for mark in ["e.p", "e. p", "ep"] {
            let cut = s.len().saturating_sub(mark.len());
            if s.len() > mark.len()
                && s.is_char_boundary(cut)
                && s[cut..].eq_ignore_ascii_case(mark)
            {
                s = &s[..cut];
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorations_and_numbers_come_off_the_move() {
        // (text, number as written, body, capture written)
        let table = [
            ("Nf3", None, "Nf3", false),
            ("  Nf3+ ", None, "Nf3", false),
            ("Qxf7#", None, "Qf7", true),
            ("e4!?", None, "e4", false),
            ("exd6 e.p.", None, "ed6", true),
            ("exd6ep", None, "ed6", true),
            ("e5:d6 e. p.", None, "e5d6", true),
            ("12. Nf3", Some("12."), "Nf3", false),
            ("12...Nf6", Some("12..."), "Nf6", false),
            ("12… Nf6!!", Some("12..."), "Nf6", false),
            ("12. ... Nf6", Some("12..."), "Nf6", false),
            ("5254", None, "5254", false),
            ("3. 5254", Some("3."), "5254", false),
            ("e8=Q+", None, "e8Q", false),
            ("e7-e8(Q)", None, "e7e8Q", false),
            ("O-O-O", None, "OOO", false),
            ("0-0", None, "00", false),
            ("Ng1 - f3", None, "Ng1f3", false),
            ("", None, "", false),
            ("ep", None, "ep", false),
        ];
        for (text, number, body, capture) in table {
            let w = split(text).unwrap_or_else(|| panic!("{text} too long"));
            assert_eq!(w.number.as_ref().map(|n| n.text.as_str()), number, "{text}");
            assert_eq!(w.read(), body, "{text}");
            assert_eq!(w.capture, capture, "{text}");
        }
    }

    #[test]
    fn dots_say_whose_move_the_number_is() {
        for (text, black) in [
            ("7.e4", false),
            ("7...e5", true),
            ("7…e5", true),
            ("7..e5", true),
        ] {
            let n = split(text).and_then(|w| w.number);
            assert_eq!(n.map(|n| (n.number, n.black)), Some((7, black)), "{text}");
        }
    }

    #[test]
    fn text_longer_than_a_move_is_refused() {
        assert!(split(&"e4 ".repeat(30)).is_none());
    }
}
