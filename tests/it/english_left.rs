//! No English word in a mail to a non-English player. Every golden mail of
//! a translated language (`tests/fixtures/outbound/<lang>/`, one per mail
//! kind, written by `outbound_lang.rs`) is read back — subject, plain part
//! and HTML part — and each word is looked up in English's vocabulary: the
//! words of `templates/en/`, less the words the language's own templates
//! use (`in` is Slovenian too, `No` German). What is left of a mail after
//! that must hold none of them.
//!
//! Left out on purpose, because the player or the standards wrote them:
//! lines quoting the player's own mail (`> …`), addresses and links, the
//! server's configured name, and PGN (tag names and SAN are PGN's own
//! English, which every chess program reads).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use mail_parser::MessageParser;

/// Words that are the same in every language the server writes, or names.
const SHARED: &[&str] = &["dopis", "pgn", "fen", "utc", "ics", "html", "ok"];

/// Mail kinds that still carry English, fixed in later commits (a ratchet:
/// the test fails on English anywhere else AND on a listed kind that has
/// none left, so each fixing commit deletes its line). The list ends empty.
const KNOWN: &[&str] = &[];

/// The server's name in the golden mails (`outbound.rs` sets it).
const SERVER_NAME: &str = "dopis chess";

#[test]
fn no_english_word_is_left_in_a_translated_mail() {
    let english = vocabulary("en");
    let mut problems = Vec::new();
    let mut known_seen = BTreeSet::new();
    for lang in ["de", "sl", "pl", "lv"] {
        let own = vocabulary(lang);
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/outbound/{lang}"));
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "eml"))
            .collect();
        files.sort();
        assert!(
            files.len() > 30,
            "{lang}: only {} golden mails",
            files.len()
        );
        for file in files {
            let bytes = fs::read(&file).expect("read golden");
            let mail = MessageParser::default()
                .parse(&bytes)
                .unwrap_or_else(|| panic!("{}: cannot parse", file.display()));
            let mut text = String::new();
            text.push_str(mail.subject().unwrap_or_default());
            text.push('\n');
            for i in 0..mail.text_body_count() {
                text.push_str(&mail.body_text(i).unwrap_or_default());
                text.push('\n');
            }
            for i in 0..mail.html_body_count() {
                text.push_str(&strip_tags(&mail.body_html(i).unwrap_or_default()));
                text.push('\n');
            }
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            for line in text.lines() {
                let left: BTreeSet<String> = words(&scrub(line))
                    .into_iter()
                    .filter(|w| english.contains(w) && !own.contains(w))
                    .filter(|w| !SHARED.contains(&w.as_str()))
                    .collect();
                if !left.is_empty() && KNOWN.contains(&name.as_ref()) {
                    known_seen.insert(name.to_string());
                } else if !left.is_empty() {
                    problems.push(format!("{lang}/{name}: {left:?} in {:?}", line.trim()));
                }
            }
        }
    }
    for known in KNOWN {
        if !known_seen.contains(*known) {
            problems.push(format!("{known}: no English left; delete it from KNOWN"));
        }
    }
    // Many mails share a line (the same footer, say): say each once.
    let problems: BTreeSet<String> = problems.into_iter().collect();
    assert!(
        problems.is_empty(),
        "English left in translated mails:\n{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The test itself can fail: an English sentence in a German mail is found.
#[test]
fn an_english_sentence_in_a_german_mail_is_found() {
    let english = vocabulary("en");
    let own = vocabulary("de");
    let found: Vec<String> = words("Ihr Zug: it is your move, deadline tomorrow")
        .into_iter()
        .filter(|w| english.contains(w) && !own.contains(w))
        .collect();
    assert!(found.contains(&"your".to_owned()), "{found:?}");
    assert!(found.contains(&"deadline".to_owned()), "{found:?}");
    assert!(!found.contains(&"ihr".to_owned()), "{found:?}");
}

/// Every word of a language's templates, template syntax and tags removed.
fn vocabulary(lang: &str) -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("templates/{lang}"));
    let mut all = BTreeSet::new();
    for entry in fs::read_dir(&dir)
        .expect("templates dir")
        .filter_map(Result::ok)
    {
        let source = fs::read_to_string(entry.path()).expect("read template");
        all.extend(words(&strip_tags(&strip_template_syntax(&source))));
    }
    assert!(all.len() > 200, "{lang}: only {} words", all.len());
    all
}

/// Removes `{{ … }}`, `{% … %}` and `{# … #}`, keeping the string literals
/// of the first two that are prose (`{{ "Witaj, " ~ recipient }}` says
/// "Witaj"; `w.key == "not_your_piece"` says nothing).
fn strip_template_syntax(source: &str) -> String {
    let mut out = String::new();
    let mut rest = source;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let close = match after.chars().next() {
            Some('{') => "}}",
            Some('%') => "%}",
            Some('#') => "#}",
            _ => {
                out.push('{');
                rest = after;
                continue;
            }
        };
        let Some(end) = after.find(close) else {
            break;
        };
        let inside = if close == "#}" { "" } else { &after[1..end] };
        for (i, literal) in inside.split('"').enumerate() {
            // Keys and names (`"not_your_piece"`, `"king"`) are not prose.
            let key = literal.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            if i % 2 == 1 && !key {
                out.push(' ');
                out.push_str(literal);
            }
        }
        out.push(' ');
        rest = &after[end + close.len()..];
    }
    out.push_str(rest);
    out
}

/// Drops HTML tags (and the styles inside them) and what `<blockquote>`
/// quotes (the player's or the TD's own words), keeping the text.
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut tag: Option<String> = None;
    let mut quoted = 0usize;
    for c in html.chars() {
        match (&mut tag, c) {
            (None, '<') => tag = Some(String::new()),
            (Some(name), '>') => {
                let name = name.to_ascii_lowercase();
                if name.starts_with("blockquote") {
                    quoted += 1;
                } else if name.starts_with("/blockquote") {
                    quoted = quoted.saturating_sub(1);
                }
                tag = None;
                out.push(' ');
            }
            (Some(name), c) => name.push(c),
            (None, c) if quoted == 0 => out.push(c),
            (None, _) => {}
        }
    }
    out.replace("&nbsp;", " ")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A line without what the player or a standard wrote: quotes of the
/// player's mail, PGN tag pairs, addresses, links, the server's name.
fn scrub(line: &str) -> String {
    let trimmed = line.trim_start();
    if trimmed.starts_with('>')
        || trimmed.starts_with("&gt;")
        || trimmed.starts_with("[") && trimmed.ends_with("\"]")
    {
        return String::new();
    }
    line.replace(SERVER_NAME, " ")
        .split_whitespace()
        .filter(|w| {
            !w.contains('@') && !w.contains("://") && !w.contains(".pgn") && !w.contains(".ics")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Lower-cased runs of letters, two or more long; runs with digits (SAN,
/// dates) are not words.
fn words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for token in text.split(|c: char| !c.is_alphanumeric()) {
        if token.chars().count() >= 2 && token.chars().all(char::is_alphabetic) {
            out.insert(token.to_lowercase());
        }
    }
    out
}
