//! Whom a mail is from, read strictly: the From header decides who moves
//! pieces, so a From that could be read two ways is read no way.
//!
//! RFC 5322 §3.6 allows exactly one From header, and a From with more than
//! one mailbox only together with a Sender (§3.6.2); a person's mail client
//! writes neither. mail-parser reads such headers best-effort (the last of
//! two From headers wins, `<alice@p.test` without its `>` is Alice, a NUL
//! byte stays in the address), which is right for showing mail and wrong
//! for attributing a move. So the raw header is checked here first: one
//! header, one mailbox, brackets, quotes and comments closed, no control
//! characters; and the address read from it must be the one mail-parser read.

use mail_parser::{Address, Message};

use super::{InboundError, printable};
use crate::domain::address::EmailAddress;

/// Longest display name kept, in characters.
const MAX_NAME: usize = 200;

/// The From address and display name of a mail, or why it has none that
/// can be trusted.
pub(super) fn sender(
    message: &Message<'_>,
) -> Result<(EmailAddress, Option<String>), InboundError> {
    let mut headers = message
        .headers_raw()
        .filter(|(name, _)| name.eq_ignore_ascii_case("from"))
        .map(|(_, value)| value);
    let Some(raw) = headers.next() else {
        return Err(InboundError::NoFrom);
    };
    let others = headers.count();
    if others > 0 {
        return Err(InboundError::DuplicateFrom { count: others + 1 });
    }
    let bad = |why: &str| InboundError::BadFrom {
        text: printable(raw.trim(), 80),
        why: why.to_string(),
    };
    let spec = addr_spec(raw).map_err(bad)?;
    let email = EmailAddress::parse(&spec).map_err(|e| bad(e.why))?;
    // mail-parser must have read the same one address: anything else means
    // the header reads differently to different readers.
    let addresses: Vec<_> = message
        .from()
        .map(|a| match a {
            Address::List(list) => list.iter().collect(),
            Address::Group(groups) => groups.iter().flat_map(|g| g.addresses.iter()).collect(),
        })
        .unwrap_or_default();
    let [only] = addresses.as_slice() else {
        return Err(bad("it does not hold exactly one address"));
    };
    let same = only
        .address
        .as_deref()
        .and_then(|a| EmailAddress::parse(a).ok())
        .is_some_and(|a| a == email);
    if !same {
        return Err(bad("its address can be read more than one way"));
    }
    let name = only
        .name
        .as_deref()
        .map(|n| one_line(n, MAX_NAME))
        .filter(|n| !n.is_empty());
    Ok((email, name))
}

/// The addr-spec of a From header value with exactly one mailbox
/// (`Name <a@b>`, `a@b`, `a@b (Name)`), or why there is not exactly one.
fn addr_spec(raw: &str) -> Result<String, &'static str> {
    let value = unfold(raw)?;
    let mut quoted = false;
    let mut escaped = false;
    let mut comment = 0usize;
    let mut angle: Option<String> = None;
    let mut in_angle = false;
    let mut after_angle = false;
    let mut bare = String::new();
    for c in value.chars() {
        if escaped {
            escaped = false;
            if in_angle {
                angle.get_or_insert_with(String::new).push(c);
            }
            continue;
        }
        if comment > 0 {
            match c {
                '\\' => escaped = true,
                '(' => comment += 1,
                ')' => comment -= 1,
                _ => {}
            }
            continue;
        }
        if quoted {
            match c {
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            if in_angle {
                angle.get_or_insert_with(String::new).push(c);
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                if in_angle {
                    angle.get_or_insert_with(String::new).push(c);
                }
            }
            '(' => comment = 1,
            '<' if in_angle || after_angle => return Err("it has more than one <"),
            '<' => {
                in_angle = true;
                angle = Some(String::new());
            }
            '>' if !in_angle => return Err("it has a > without a <"),
            '>' => {
                in_angle = false;
                after_angle = true;
            }
            ',' | ';' if !in_angle => {
                return Err(
                    "it holds more than one address (a From with several needs a Sender, \
                            which a person's mail does not have)",
                );
            }
            ':' if !in_angle => return Err("it is a group of addresses, not one sender"),
            c if in_angle => angle.get_or_insert_with(String::new).push(c),
            c if after_angle && !c.is_whitespace() => {
                return Err("it has text after the address in <>");
            }
            c => bare.push(c),
        }
    }
    if quoted {
        return Err("a quoted name is not closed");
    }
    if comment > 0 {
        return Err("a comment in ( ) is not closed");
    }
    if in_angle {
        return Err("the address after < is not closed with >");
    }
    let spec = match angle {
        Some(inside) => inside,
        None => bare,
    };
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("no address in it");
    }
    Ok(spec.to_string())
}

/// The header value on one line (folding removed), refused when it holds a
/// control character: a NUL or a bare line break in a From is never a
/// person's mail client, and a reader stopping at it would see someone else.
fn unfold(raw: &str) -> Result<String, &'static str> {
    let raw = raw.trim_end_matches(['\r', '\n']);
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' if chars.peek().is_some_and(|n| *n == ' ' || *n == '\t') => {}
            '\t' => out.push(' '),
            c if c.is_control() => return Err("it contains a control character"),
            c => out.push(c),
        }
    }
    Ok(out)
}

/// A header text as one printable line: control characters (line breaks,
/// NUL, C1 controls) become spaces, runs of whitespace one space, at most
/// `max` characters. Safe to store, log, and put back into a header.
pub(super) fn one_line(text: &str, max: usize) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(max)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_from_value_has_exactly_one_mailbox() {
        for (value, spec) in [
            ("alice@p.test", Ok("alice@p.test")),
            ("Alice <alice@p.test>", Ok("alice@p.test")),
            ("\"Novak, Alice\" <alice@p.test>", Ok("alice@p.test")),
            ("alice@p.test (Alice, at home)", Ok("alice@p.test")),
            ("Alice\r\n <alice@p.test>\r\n", Ok("alice@p.test")),
            (
                "<alice@p.test",
                Err("the address after < is not closed with >"),
            ),
            ("alice@p.test>", Err("it has a > without a <")),
            ("<a@p.test> <b@p.test>", Err("it has more than one <")),
            (
                "<a@p.test> b@p.test",
                Err("it has text after the address in <>"),
            ),
            (
                "g: a@p.test;",
                Err("it is a group of addresses, not one sender"),
            ),
            ("\"Alice <alice@p.test>", Err("a quoted name is not closed")),
            ("alice@p.test (Alice", Err("a comment in ( ) is not closed")),
            ("alice@p.test\0evil", Err("it contains a control character")),
            (
                "stranger\0@nowhere.test",
                Err("it contains a control character"),
            ),
            (
                "Al\rice <alice@p.test>",
                Err("it contains a control character"),
            ),
            ("", Err("no address in it")),
        ] {
            assert_eq!(addr_spec(value), spec.map(str::to_string), "{value:?}");
        }
        let several = addr_spec("a@p.test, b@p.test").unwrap_err();
        assert!(several.contains("more than one address"), "{several}");
    }

    #[test]
    fn header_texts_become_one_printable_line() {
        assert_eq!(one_line("Re: e4\r\nBcc: x@y\0z", 100), "Re: e4 Bcc: x@y z");
        assert_eq!(one_line("  a \u{85} b\u{2028}c\u{1b}d ", 100), "a b c d");
        assert_eq!(one_line("abcdef", 3), "abc");
    }
}
