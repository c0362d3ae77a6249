//! Atom feeds (RFC 4287), written by hand: a feed is a few elements with
//! escaped text, and a dependency for that would be larger than the
//! writer. `dopis web` serves one per public event (its results and new
//! rounds, `/events/{id}/feed.atom`); a real feed parser reads it in the
//! tests (Python's `feedparser`).

use chrono::{DateTime, SecondsFormat, Utc};

use crate::domain::html::escape;

/// A feed and its entries, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feed {
    /// A permanent, unique IRI (a `tag:` URI).
    pub id: String,
    /// Its title.
    pub title: String,
    /// The language of its text (`xml:lang`).
    pub lang: String,
    /// When something in it last changed.
    pub updated: DateTime<Utc>,
    /// Who writes it (the server's name).
    pub author: String,
    /// The feed's own address.
    pub self_link: String,
    /// The page it follows (the event's page).
    pub page: String,
    /// Where relative addresses start from (`[web] base_url`), if known.
    pub base: Option<String>,
    /// Its entries.
    pub entries: Vec<Entry>,
}

/// One piece of news.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// A permanent, unique IRI.
    pub id: String,
    /// Its title (plain text).
    pub title: String,
    /// When it happened.
    pub updated: DateTime<Utc>,
    /// The page it is about.
    pub link: Option<String>,
    /// What happened, in a sentence or a list (plain text).
    pub summary: String,
}

fn instant(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The feed as an Atom document.
pub fn write(feed: &Feed) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    out.push_str(&format!(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\"{}>\n",
        escape(&feed.lang),
        feed.base
            .as_ref()
            .map(|b| format!(" xml:base=\"{}/\"", escape(b.trim_end_matches('/'))))
            .unwrap_or_default()
    ));
    out.push_str(&format!("  <id>{}</id>\n", escape(&feed.id)));
    out.push_str(&format!("  <title>{}</title>\n", escape(&feed.title)));
    out.push_str(&format!("  <updated>{}</updated>\n", instant(feed.updated)));
    out.push_str(&format!(
        "  <author><name>{}</name></author>\n",
        escape(&feed.author)
    ));
    out.push_str(&format!(
        "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n",
        escape(&feed.self_link)
    ));
    out.push_str(&format!(
        "  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
        escape(&feed.page)
    ));
    out.push_str("  <generator>dopis</generator>\n");
    for e in &feed.entries {
        out.push_str("  <entry>\n");
        out.push_str(&format!("    <id>{}</id>\n", escape(&e.id)));
        out.push_str(&format!("    <title>{}</title>\n", escape(&e.title)));
        out.push_str(&format!("    <updated>{}</updated>\n", instant(e.updated)));
        if let Some(link) = &e.link {
            out.push_str(&format!(
                "    <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n",
                escape(link)
            ));
        }
        out.push_str(&format!(
            "    <summary type=\"text\">{}</summary>\n",
            escape(&e.summary)
        ));
        out.push_str("  </entry>\n");
    }
    out.push_str("</feed>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_feed_escapes_every_text_and_writes_instants_in_utc() {
        let at = Utc
            .with_ymd_and_hms(2027, 3, 1, 9, 30, 0)
            .single()
            .expect("an instant");
        let feed = Feed {
            id: "tag:club.example,2027:events/7".into(),
            title: "Cup <2027> & co".into(),
            lang: "sl".into(),
            updated: at,
            author: "Club \"A\"".into(),
            self_link: "/events/7/feed.atom".into(),
            page: "/events/7".into(),
            base: Some("https://chess.example/".into()),
            entries: vec![Entry {
                id: "tag:club.example,2027:events/7/games/3/result".into(),
                title: "1. kolo: Ana – Bor 1-0".into(),
                updated: at,
                link: Some("/games/3".into()),
                summary: "<b>mat</b>".into(),
            }],
        };
        let xml = write(&feed);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"sl\" xml:base=\"https://chess.example/\">"), "{xml}");
        assert!(
            xml.contains("<title>Cup &lt;2027&gt; &amp; co</title>"),
            "{xml}"
        );
        assert!(
            xml.contains("<updated>2027-03-01T09:30:00Z</updated>"),
            "{xml}"
        );
        assert!(xml.contains("&lt;b&gt;mat&lt;/b&gt;"), "{xml}");
        assert!(!xml.contains("<b>"), "{xml}");
        assert_eq!(xml.matches("<entry>").count(), 1);
    }
}
