//! Telling a move-looking token from a word, and folding words for comparison.
//!
//! The shape test is deliberately lenient: it only decides that a token is
//! *meant* as a move. Whether it is a legal, unambiguous move is
//! `crate::domain::chess::notation`'s job, which can then explain what is wrong; a
//! token rejected here would only earn a generic help reply.

/// Lower-cases and strips diacritics, so `Poddaję SIĘ` compares equal to `poddaje sie`.
///
/// Players type on phones and foreign keyboards; a command word must be read
/// whether or not they managed the accents.
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            'ą' | 'ā' | 'á' | 'à' | 'â' | 'ä' | 'ã' | 'å' | 'ă' => out.push('a'),
            'ć' | 'č' | 'ç' => out.push('c'),
            'ď' | 'đ' => out.push('d'),
            'ę' | 'ē' | 'é' | 'è' | 'ê' | 'ë' | 'ě' | 'ė' => out.push('e'),
            'ģ' | 'ğ' => out.push('g'),
            'ī' | 'í' | 'ì' | 'î' | 'ï' | 'į' | 'ı' => out.push('i'),
            'ķ' => out.push('k'),
            'ł' | 'ļ' | 'ľ' | 'ĺ' => out.push('l'),
            'ń' | 'ņ' | 'ň' | 'ñ' => out.push('n'),
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'ő' | 'ø' | 'ō' => out.push('o'),
            'ŕ' | 'ř' => out.push('r'),
            'ś' | 'š' | 'ş' | 'ș' => out.push('s'),
            'ß' => out.push_str("ss"),
            'ť' | 'ţ' | 'ț' => out.push('t'),
            'ū' | 'ú' | 'ù' | 'û' | 'ü' | 'ů' | 'ű' | 'ų' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ź' | 'ż' | 'ž' => out.push('z'),
            _ => out.push(c),
        }
    }
    out
}

/// Longest token (in characters, after move number and annotations) that may be a move.
const MAX_MOVE_CHARS: usize = 12;

/// Splits a leading move number (`12.`, `12...`, `12…`, `12. `) from a token.
///
/// Returns the rest, or `None` when there is no move number.
pub(crate) fn strip_move_number(token: &str) -> Option<&str> {
    let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 4 {
        return None;
    }
    let after = token.get(digits..)?;
    let dots = after.trim_start_matches(['.', '…']);
    if dots.len() == after.len() {
        return None;
    }
    Some(dots.trim_start())
}

/// True when the token is only a move number (`12.`, `12...`), which belongs to the next token.
pub(crate) fn is_move_number(token: &str) -> bool {
    strip_move_number(token).is_some_and(str::is_empty)
}

/// True when the token is an en-passant mark written apart from its move.
pub(crate) fn is_en_passant_mark(token: &str) -> bool {
    matches!(token.to_ascii_lowercase().as_str(), "e.p." | "e.p" | "ep")
}

/// True when the token has the shape of a move in any notation dopis reads.
pub(crate) fn looks_like_move(token: &str) -> bool {
    let body = strip_move_number(token).unwrap_or(token);
    let body = strip_annotations(body);
    if body.is_empty() || body.chars().count() > MAX_MOVE_CHARS {
        return false;
    }
    is_castling(body) || is_iccf_numeric(body) || is_algebraic(body)
}

fn strip_annotations(token: &str) -> &str {
    let mut t = token.trim_end_matches(['+', '#', '!', '?', '‡', '†']);
    for mark in ["e.p.", "e.p", "ep"] {
        if t.len() > mark.len()
            && t.get(t.len() - mark.len()..)
                .is_some_and(|s| s.eq_ignore_ascii_case(mark))
        {
            t = t.get(..t.len() - mark.len()).unwrap_or(t);
            break;
        }
    }
    t.trim_end_matches(['+', '#', '!', '?'])
}

fn is_castling(t: &str) -> bool {
    let u: String = t
        .chars()
        .map(|c| match c {
            '0' | 'o' => 'O',
            '–' => '-',
            other => other,
        })
        .collect();
    u == "O-O" || u == "O-O-O"
}

/// ICCF numeric: from file, from rank, to file, to rank, optional promotion 1-4.
fn is_iccf_numeric(t: &str) -> bool {
    let d: Vec<u32> = t.chars().filter_map(|c| c.to_digit(10)).collect();
    if d.len() != t.chars().count() {
        return false;
    }
    match d.as_slice() {
        [a, b, c, e] => [a, b, c, e].iter().all(|x| (1..=8).contains(*x)),
        [a, b, c, e, p] => [a, b, c, e].iter().all(|x| (1..=8).contains(*x)) && (1..=4).contains(p),
        _ => false,
    }
}

fn is_file(c: char) -> bool {
    ('a'..='h').contains(&c)
}

fn is_rank(c: char) -> bool {
    ('1'..='8').contains(&c)
}

fn is_piece(c: char) -> bool {
    c.is_uppercase() || ('♔'..='♟').contains(&c)
}

/// SAN, long algebraic and UCI in any language's piece letters:
/// `[piece][file][rank][-x:][file rank][promotion]`.
fn is_algebraic(t: &str) -> bool {
    let chars: Vec<char> = t.chars().collect();
    let body = strip_promotion(&chars);
    let [rest @ .., to_file, to_rank] = body else {
        return false;
    };
    if !is_file(*to_file) || !is_rank(*to_rank) {
        return false;
    }
    let mut rest = rest;
    if let [head @ .., sep] = rest
        && matches!(sep, '-' | 'x' | 'X' | ':' | '×' | '–')
    {
        rest = head;
    }
    if let [head @ .., r] = rest
        && is_rank(*r)
    {
        rest = head;
    }
    if let [head @ .., f] = rest
        && is_file(*f)
    {
        rest = head;
    }
    match rest {
        [] => true,
        [p] => is_piece(*p),
        _ => false,
    }
}

/// Drops a promotion suffix: `=Q`, `/Q`, `(Q)`, `Q` or UCI `q` after a last-rank square.
fn strip_promotion(chars: &[char]) -> &[char] {
    let promo = |c: char| is_piece(c) || matches!(c, 'q' | 'r' | 'b' | 'n');
    match chars {
        [head @ .., '(', p, ')'] if promo(*p) => head,
        [head @ .., '=' | '/', p] if promo(*p) => head,
        [.., r, p] if matches!(r, '1' | '8') && promo(*p) => {
            chars.get(..chars.len() - 1).unwrap_or(chars)
        }
        _ => chars,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_shapes_in_every_notation_are_recognised() {
        for token in [
            "Nf3", "e4", "exd5", "e8=Q", "e8Q", "e8(Q)", "O-O", "0-0-0", "o-o", "Nbd7", "R1e2",
            "Qh4xe1+", "e2-e4", "Ng1-f3", "e7xd8=Q", "e2e4", "e7e8q", "5254", "52541", "5171",
            "Sf3", "Hd1", "Wa1", "Gc4", "Zf3", "♘f3", "♕xd8#", "12.Nf3", "12...Nf6", "12…Nf6",
            "exd6e.p.", "Nf3!?", "bxc4", "Lc4",
        ] {
            assert!(looks_like_move(token), "{token} should look like a move");
        }
    }

    #[test]
    fn words_and_junk_do_not_look_like_moves() {
        for token in [
            "",
            "ok",
            "Hi",
            "draw",
            "remis",
            "B4",
            "e9",
            "i4",
            "9999",
            "5259",
            "52545",
            "Nf3f3f3",
            "12.",
            "Thanks!",
            "a1b2c3d4e5f6g7",
            "O-O-O-O",
            "-",
            "x",
        ] {
            assert!(
                !looks_like_move(token),
                "{token:?} should not look like a move"
            );
        }
    }

    #[test]
    fn folding_removes_the_accents_players_may_not_type() {
        for (text, folded) in [
            ("Poddaję SIĘ", "poddaje sie"),
            ("neizšķirts", "neizskirts"),
            ("Przyjmuję", "przyjmuje"),
            ("Züge löschen", "zuge loschen"),
            ("pomoč", "pomoc"),
            ("Straße", "strasse"),
        ] {
            assert_eq!(fold(text), folded);
        }
    }

    #[test]
    fn move_numbers_are_split_from_their_move() {
        for (token, rest) in [
            ("12.", Some("")),
            ("12...Nf6", Some("Nf6")),
            ("12…", Some("")),
            ("1.e4", Some("e4")),
            ("5254", None),
            ("Nf3", None),
        ] {
            assert_eq!(strip_move_number(token), rest, "{token}");
        }
    }
}
