//! What a page's reader asked for, read from their request: a language
//! picked with the page's switch (`?lang=sl`, then remembered in a cookie
//! so the next page keeps it), the languages their browser names
//! (`Accept-Language`), and figurines or letters in move lists
//! (`?pieces=figurines`, remembered alike). No JavaScript: the switch is
//! plain links.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

use crate::domain::lang::Lang;
use crate::domain::locale::Reader;

/// The cookie that keeps a picked language.
const LANG_COOKIE: &str = "dopis_lang";
/// The cookie that keeps figurines or letters.
const PIECES_COOKIE: &str = "dopis_pieces";

/// A request's reader: what they asked for, and the page's own path.
#[derive(Debug, Clone)]
pub struct Asked {
    /// The language and pieces asked for.
    pub reader: Reader,
    /// The path of the page (its language links repeat it).
    pub path: String,
    /// Cookies to set: a choice made by a link of this request.
    remember: Vec<String>,
}

impl Asked {
    /// Reads a request's address and headers.
    pub fn read(path: &str, query: Option<&str>, headers: &HeaderMap) -> Asked {
        let cookies = cookies(headers);
        let mut remember = Vec::new();
        let mut chosen = cookies.lang;
        let mut figurines = cookies.figurines;
        for (name, value) in query
            .unwrap_or("")
            .split('&')
            .filter_map(|p| p.split_once('='))
        {
            match name {
                "lang" => {
                    if let Some(lang) = value.parse::<Lang>().ok().filter(|l| l.is_written()) {
                        chosen = Some(lang);
                        remember.push(format!("{LANG_COOKIE}={}", lang.code()));
                    }
                }
                "pieces" if value == "figurines" || value == "letters" => {
                    figurines = value == "figurines";
                    remember.push(format!("{PIECES_COOKIE}={value}"));
                }
                _ => {}
            }
        }
        Asked {
            reader: Reader {
                chosen,
                accepted: headers
                    .get(header::ACCEPT_LANGUAGE)
                    .and_then(|v| v.to_str().ok())
                    .map(accept_language)
                    .unwrap_or_default(),
                figurines,
            },
            path: path.to_owned(),
            remember,
        }
    }

    /// The language of a page that belongs to no event and no player (the
    /// index, an error).
    pub fn lang(&self) -> Lang {
        self.reader.page_lang(None, None)
    }

    /// `response` with the choices of this request remembered, and the
    /// headers a shared cache needs to keep readers apart.
    pub fn finish(&self, mut response: Response) -> Response {
        let headers = response.headers_mut();
        for cookie in &self.remember {
            // A year; the page's own path and below only matter to us, so
            // the whole site; no script reads it.
            let value = format!("{cookie}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly");
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.append(header::SET_COOKIE, v);
            }
        }
        headers.insert(
            header::VARY,
            HeaderValue::from_static("Accept-Language, Cookie"),
        );
        response
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Asked {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Asked::read(
            parts.uri.path(),
            parts.uri.query(),
            &parts.headers,
        ))
    }
}

/// What the cookies remember.
struct Remembered {
    lang: Option<Lang>,
    figurines: bool,
}

fn cookies(headers: &HeaderMap) -> Remembered {
    let mut out = Remembered {
        lang: None,
        figurines: false,
    };
    for line in headers.get_all(header::COOKIE) {
        let Ok(line) = line.to_str() else { continue };
        for pair in line.split(';') {
            match pair.trim().split_once('=') {
                Some((LANG_COOKIE, code)) => {
                    out.lang = code.parse::<Lang>().ok().filter(|l| l.is_written());
                }
                Some((PIECES_COOKIE, value)) => out.figurines = value == "figurines",
                _ => {}
            }
        }
    }
    out
}

/// The languages of an `Accept-Language` header, best first (RFC 9110
/// §12.5.4: by `q`, ties in the header's order; `q=0` means "not this";
/// `*` and unknown tags name nothing we can use).
pub fn accept_language(header: &str) -> Vec<Lang> {
    let mut ranked: Vec<(u16, usize, Lang)> = Vec::new();
    for (at, item) in header.split(',').enumerate().take(32) {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or("").trim();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .next()
            .map_or(Some(1000), quality);
        let (Some(q), Ok(lang)) = (q, tag.parse::<Lang>()) else {
            continue;
        };
        if q > 0 && !ranked.iter().any(|(_, _, l)| *l == lang) {
            ranked.push((q, at, lang));
        }
    }
    ranked.sort_by_key(|(q, at, _)| (std::cmp::Reverse(*q), *at));
    ranked.into_iter().map(|(_, _, l)| l).collect()
}

/// A `q` value in thousandths (`0.8` → 800); `None` when it is not one.
fn quality(text: &str) -> Option<u16> {
    let value: f32 = text.trim().parse().ok()?;
    (0.0..=1.0)
        .contains(&value)
        // In range, so the product fits: at most 1000.
        .then(|| (value * 1000.0).round() as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browsers_languages_are_read_best_first() {
        assert_eq!(
            accept_language("sl-SI,sl;q=0.9,en-US;q=0.8,en;q=0.7"),
            [Lang::Sl, Lang::En]
        );
        assert_eq!(
            accept_language("en;q=0.5, de-DE, pl;q=0.9"),
            [Lang::De, Lang::Pl, Lang::En]
        );
        assert_eq!(accept_language("lv;q=0, de"), [Lang::De]);
        for nothing in ["", "*", "xx-YY", "de;q=abc", "de;q=2", ";;;,,,"] {
            assert!(accept_language(nothing).is_empty(), "{nothing:?}");
        }
    }

    #[test]
    fn a_link_picks_a_language_and_a_cookie_keeps_it() {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_LANGUAGE, HeaderValue::from_static("de"));
        let asked = Asked::read("/events/1", Some("lang=sl"), &headers);
        assert_eq!(asked.reader.chosen, Some(Lang::Sl));
        assert_eq!(asked.reader.accepted, [Lang::De]);
        assert_eq!(asked.remember, ["dopis_lang=sl"]);
        // The next page: the cookie, no link.
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("x=1; dopis_lang=sl; dopis_pieces=figurines"),
        );
        let next = Asked::read("/games/3", None, &headers);
        assert_eq!(next.reader.chosen, Some(Lang::Sl));
        assert!(next.reader.figurines);
        assert!(next.remember.is_empty());
        // Languages the pages are not written in, and nonsense, pick nothing.
        for query in ["lang=cs", "lang=%FF", "lang=", "pieces=huge"] {
            let asked = Asked::read("/", Some(query), &HeaderMap::new());
            assert_eq!(asked.reader, Reader::default(), "{query}");
            assert!(asked.remember.is_empty(), "{query}");
        }
    }
}
