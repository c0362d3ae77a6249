//! No English word in a mail to a non-English player, nor on a web page in
//! another language. Every golden mail of
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
//!
//! The pages (`dopis web`) are read the same way: every page kind of a
//! club that has them all (`support::pages`), in each translated language
//! (`?lang=`), against the words of `templates/web/words/`. Left out there
//! as well: `<code>` (commands as written, English's among them, and FEN),
//! the board's drawing, and the language switch's links, each in its own
//! language.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use mail_parser::MessageParser;

use crate::support::pages::{Club, SERVER_NAME as PAGES_SERVER};
use crate::support::sqlite;
use crate::support::web::WebServer;

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

/// Every word of a language's templates, template syntax and tags
/// removed: its mails' and its pages' (`templates/web/words/<lang>.toml`).
fn vocabulary(lang: &str) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    let mut all = BTreeSet::new();
    for entry in fs::read_dir(root.join(lang))
        .expect("templates dir")
        .filter_map(Result::ok)
    {
        let source = fs::read_to_string(entry.path()).expect("read template");
        all.extend(words(&strip_tags(&strip_template_syntax(&source))));
    }
    let pages =
        fs::read_to_string(root.join(format!("web/words/{lang}.toml"))).expect("the pages' words");
    let table: toml::Table = pages.parse().expect("the pages' words are TOML");
    for section in table.values().filter_map(toml::Value::as_table) {
        for text in section.values().filter_map(toml::Value::as_str) {
            all.extend(words(&strip_tags(&strip_template_syntax(text))));
        }
    }
    assert!(all.len() > 200, "{lang}: only {} words", all.len());
    all
}

/// The English words left in `text` written in `lang`: words of English's
/// templates that `lang`'s own templates do not use.
pub(crate) fn english_left(lang: &str, text: &str) -> BTreeSet<String> {
    let english = vocabulary("en");
    let own = vocabulary(lang);
    let mut left = BTreeSet::new();
    for line in text.lines() {
        left.extend(
            words(&scrub(line))
                .into_iter()
                .filter(|w| english.contains(w) && !own.contains(w))
                .filter(|w| !SHARED.contains(&w.as_str())),
        );
    }
    left
}

/// The text of a page as a reader of `lang` reads it: tags, `<code>`, the
/// board's drawing and what is marked as another language (the language
/// switch) taken out, and the pages' server name.
pub(crate) fn page_text(html: &str, lang: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    // Elements skipped with all they hold: (open tag, close tag).
    let own = format!("lang=\"{lang}\"");
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        let name: String = tag
            .trim_start_matches('<')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let foreign = tag.contains(" lang=\"") && !tag.contains(&own) && name != "html";
        if name == "svg" || name == "code" || foreign {
            let close = format!("</{name}>");
            rest = rest[end..]
                .find(&close)
                .map_or("", |c| &rest[end + c + close.len()..]);
        } else {
            rest = &rest[end..];
        }
        out.push(' ');
    }
    out.push_str(rest);
    out.replace("&nbsp;", " ")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .replace(PAGES_SERVER, " ")
}

/// Every page kind, in each translated language: no English word left.
#[tokio::test(flavor = "multi_thread")]
async fn no_english_word_is_left_on_a_translated_page() {
    let db = sqlite();
    let club = Club::play(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let config = crate::support::pages::config(dir.path(), &db);
    let server = WebServer::start(dir.path(), &db, &config);
    let mut problems = BTreeSet::new();
    for (kind, path) in &club.pages {
        for lang in ["de", "sl", "pl", "lv"] {
            let (status, html) = server.get(&format!("{path}?lang={lang}"));
            assert!(matches!(status, 200 | 400 | 404), "{kind} {path}: {status}");
            assert!(
                html.contains(&format!("<html lang=\"{lang}\">")),
                "{kind} in {lang}: {html}"
            );
            // To look at them: DOPIS_TEST_PAGES=DIR keeps each page there.
            if let Some(keep) = std::env::var_os("DOPIS_TEST_PAGES") {
                let file = Path::new(&keep).join(format!("{kind}.{lang}.html"));
                fs::write(&file, &html).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            }
            let left = english_left(lang, &page_text(&html, lang));
            if !left.is_empty() {
                problems.insert(format!("{kind} in {lang}: {left:?}"));
            }
        }
    }
    // What the unsubscribe page says once its button was pressed (the
    // first time: done; then: used before), in each language.
    let (_, unsubscribe) = club
        .pages
        .iter()
        .find(|(kind, _)| *kind == "unsubscribe")
        .expect("the unsubscribe page");
    for lang in ["de", "sl", "pl", "lv"] {
        let answer = crate::support::web::request(
            server.address(),
            "POST",
            &format!("{unsubscribe}?lang={lang}"),
            &[],
            b"List-Unsubscribe=One-Click",
        );
        assert_eq!(answer.status, 200, "{}", answer.text());
        let left = english_left(lang, &page_text(&answer.text(), lang));
        if !left.is_empty() {
            problems.insert(format!("unsubscribed in {lang}: {left:?}"));
        }
    }
    club.app.close().await;
    assert!(
        problems.is_empty(),
        "English left on translated pages:\n{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The page check can fail: an English heading on a German page is found,
/// the language switch's own names are not.
#[test]
fn an_english_heading_on_a_german_page_is_found() {
    let html = "<html lang=\"de\"><nav><a href=\"?lang=en\" lang=\"en\">English</a></nav>\
                <h1>Your games</h1><p>Sie spielen <code>enter 4</code></p></html>";
    let left = english_left("de", &page_text(html, "de"));
    assert!(left.contains("your") && left.contains("games"), "{left:?}");
    assert!(
        !left.contains("english") && !left.contains("enter"),
        "{left:?}"
    );
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
