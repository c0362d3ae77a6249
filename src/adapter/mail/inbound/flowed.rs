//! Undoing `format=flowed` (RFC 3676), as Thunderbird and K-9 send plain text.
//!
//! A flowed line ends in a space and continues on the next line at the same
//! quote depth. Joining them back matters for us because a long attribution
//! line (`On … wrote:`) or a long quoted line would otherwise be split, and
//! its tail would look like new text.

/// Joins soft-broken lines; `delsp` removes the space that marked the break.
pub(crate) fn unflow(text: &str, delsp: bool) -> String {
    let mut out = String::with_capacity(text.len());
    // The paragraph being joined: its quote depth and text so far.
    let mut open: Option<(usize, String)> = None;
    for line in text.lines() {
        let depth = line.chars().take_while(|&c| c == '>').count();
        let content = line.get(depth..).unwrap_or("");
        // Space-stuffing: one leading space was added by the sender.
        let content = content.strip_prefix(' ').unwrap_or(content);
        let is_signature = content == "-- ";
        let soft = content.ends_with(' ') && !is_signature;
        let content = if soft && delsp {
            content.strip_suffix(' ').unwrap_or(content)
        } else {
            content
        };
        match &mut open {
            Some((d, text)) if *d == depth => text.push_str(content),
            _ => {
                if let Some((d, text)) = open.take() {
                    push_line(&mut out, d, &text);
                }
                open = Some((depth, content.to_string()));
            }
        }
        if !soft && let Some((d, text)) = open.take() {
            push_line(&mut out, d, &text);
        }
    }
    if let Some((d, text)) = open.take() {
        push_line(&mut out, d, &text);
    }
    out
}

fn push_line(out: &mut String, depth: usize, text: &str) {
    for _ in 0..depth {
        out.push('>');
    }
    if depth > 0 && !text.is_empty() {
        out.push(' ');
    }
    out.push_str(text);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_breaks_are_joined_and_hard_breaks_kept() {
        for (flowed, delsp, plain) in [
            ("Nf3\r\n", false, "Nf3\n"),
            (
                "one two \r\nthree\r\nfour\r\n",
                false,
                "one two three\nfour\n",
            ),
            ("one two \r\nthree\r\n", true, "one twothree\n"),
            (
                "On Mon, 3 Mar 2025, Alice Novak \r\nwrote:\r\n> a quoted \r\n> line\r\n",
                false,
                "On Mon, 3 Mar 2025, Alice Novak wrote:\n> a quoted line\n",
            ),
            (">> deep \r\n> shallow\r\n", false, ">> deep \n> shallow\n"),
            (" From here\r\n", false, "From here\n"),
            ("text\r\n-- \r\nsig\r\n", false, "text\n-- \nsig\n"),
            ("no final newline", false, "no final newline\n"),
        ] {
            assert_eq!(unflow(flowed, delsp), plain, "{flowed:?}");
        }
    }
}
