//! HTML escaping for the table we write by hand (the crosstable) outside
//! the mail templates, where minijinja escapes.
//! Names in them come from players and TDs.

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_and_quotes_are_escaped_and_the_rest_kept() {
        assert_eq!(
            super::escape(r#"<b>"Ana" & 'Bo' ž</b>"#),
            "&lt;b&gt;&quot;Ana&quot; &amp; &#39;Bo&#39; ž&lt;/b&gt;"
        );
    }
}
