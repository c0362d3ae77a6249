//! Finding the newest text in a reply: dropping quoted history, attribution
//! lines, forwarded-header blocks, signatures, mobile footers and disclaimers.
//!
//! Works line by line on plain text (HTML is converted first, blockquotes
//! becoming `>` lines). Top-posted replies are cut at the first sign of
//! history; bottom-posted ones skip the quoted part and keep what follows it.

use crate::domain::command::fold;

/// Verbs that end an attribution line (`On … wrote:`), folded, in the languages
/// players' mail clients speak.
const WROTE: &[&str] = &[
    "wrote",
    "writes",
    "napisal",    // sl napisal(a), pl napisał(a)
    "pisze",      // pl Thunderbird: W dniu … pisze:
    "rakstija",   // lv
    "schrieb",    // de
    "napsal",     // cs
    "a ecrit",    // fr
    "escribio",   // es
    "ha scritto", // it
    "schreef",    // nl
    "skrev",      // sv, da, no
    "kirjoitti",  // fi
    "irta",       // hu
    "escreveu",   // pt
    "a scris",    // ro
    "rase",       // lt rašė
];

/// Words an attribution line may start with (folded), for joining one that the
/// sender's client wrapped over two lines.
const ATTRIBUTION_STARTS: &[&str] = &[
    "on ", "dne ", "w dniu ", "am ", "le ", "el ", "il ", "op ", "den ", "em ",
];

/// Header names that open a forwarded/replied header block (`From:`), folded.
const FROM_NAMES: &[&str] = &[
    "from",
    "od",
    "von",
    "no",
    "de",
    "van",
    "fra",
    "fran",
    "lahettaja",
    "felado",
    "da",
];

/// Header names inside such a block (`Sent:`, `To:`, `Subject:` …), folded.
const BLOCK_NAMES: &[&str] = &[
    "sent",
    "date",
    "to",
    "cc",
    "subject", // en
    "wyslano",
    "wyslane",
    "data",
    "do",
    "dw",
    "temat", // pl
    "poslano",
    "za",
    "kp",
    "zadeva", // sl
    "nosutits",
    "datums",
    "kam",
    "tema",
    "temats", // lv
    "gesendet",
    "datum",
    "an",
    "betreff", // de
    "envoye",
    "a",
    "objet",
    "enviado",
    "para",
    "asunto",
    "inviato",
    "oggetto", // fr es it
    "verzonden",
    "aan",
    "onderwerp",
    "skickat",
    "till",
    "amne",
    "sendt",
    "til",
    "emne", // nl sv da no
];

/// Starts of mobile and webmail footers (folded), which end the new text.
const FOOTERS: &[&str] = &[
    "sent from my ",
    "sent from ",
    "sent with ",
    "sent via ",
    "sent using ",
    "get outlook for ",
    "download outlook for ",
    "von meinem ",
    "gesendet von ",
    "gesendet mit ",
    "wyslane z ",
    "wyslano z ",
    "poslano iz ",
    "poslano z ",
    "poslano s ",
    "sutits no ",
    "nosutits no ",
    "envoye de ",
    "enviado desde ",
    "inviato da ",
];

/// A separator line this long (or longer) ends the new text: disclaimers and
/// Outlook's `________________________________` before a header block.
const SEPARATOR_MIN: usize = 10;

/// Attribution lines longer than this are prose, not attribution.
const ATTRIBUTION_MAX: usize = 400;

/// What a line is, for finding the newest text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    /// `> …`: quoted history.
    Quoted,
    /// `On … wrote:`; the number is how many lines it spans.
    Attribution(usize),
    /// `-----Original Message-----` or a `From:`/`Sent:` header block: the rest is history.
    HistoryStart,
    /// `-- `: the signature follows.
    Signature,
    /// `Sent from my iPhone` and kin.
    Footer,
    /// A long line of `-`, `_`, `=`…: a disclaimer or history follows.
    Separator,
    Text,
}

/// The newest text the sender wrote, from the plain text of their mail.
pub(crate) fn newest_text(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut has_text = false;
    let mut skipped_history = false;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let kind = kind_of(&lines, i);
        i += match kind {
            LineKind::Attribution(n) => n,
            _ => 1,
        };
        match kind {
            LineKind::Text => {
                if skipped_history && has_text {
                    kept.push("");
                }
                skipped_history = false;
                kept.push(line.trim_end());
                has_text = true;
            }
            LineKind::Blank => {
                if has_text && !skipped_history {
                    kept.push("");
                }
            }
            LineKind::Quoted => skipped_history = true,
            // Before any new text, an attribution introduces a bottom-posted
            // quote; after it, the history of a top-posted reply.
            LineKind::Attribution(_) if !has_text => skipped_history = true,
            LineKind::Separator if !has_text => {}
            LineKind::Attribution(_)
            | LineKind::HistoryStart
            | LineKind::Signature
            | LineKind::Footer
            | LineKind::Separator => break,
        }
    }
    while kept.last().is_some_and(|l| l.is_empty()) {
        kept.pop();
    }
    let mut out = String::new();
    let mut blank_run = false;
    for line in kept {
        if line.is_empty() {
            if blank_run {
                continue;
            }
            blank_run = true;
        } else {
            blank_run = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn kind_of(lines: &[&str], i: usize) -> LineKind {
    let Some(line) = lines.get(i) else {
        return LineKind::Blank;
    };
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return LineKind::Blank;
    }
    if trimmed.starts_with('>') {
        return LineKind::Quoted;
    }
    if trimmed == "--" || *line == "-- " {
        return LineKind::Signature;
    }
    if is_dashed_title(trimmed) {
        return LineKind::HistoryStart;
    }
    if is_separator(trimmed) {
        return LineKind::Separator;
    }
    if is_attribution(trimmed) {
        return LineKind::Attribution(1);
    }
    if let Some(next) = lines.get(i + 1)
        && may_continue_attribution(trimmed, next.trim())
        && is_attribution(&format!("{trimmed} {}", next.trim()))
    {
        return LineKind::Attribution(2);
    }
    if introduces_quote(lines, i, trimmed) {
        return LineKind::Attribution(1);
    }
    if is_header_block(lines, i) {
        return LineKind::HistoryStart;
    }
    let folded = fold(trimmed);
    if trimmed.chars().count() < 80 && FOOTERS.iter().any(|f| folded.starts_with(f)) {
        return LineKind::Footer;
    }
    LineKind::Text
}

/// `-----Original Message-----`, `---------- Forwarded message ---------`,
/// `-----Ursprüngliche Nachricht-----`, `-------- Wiadomość oryginalna --------`.
fn is_dashed_title(t: &str) -> bool {
    let inner = t.trim_matches('-');
    t.starts_with("---")
        && t.ends_with("---")
        && inner.chars().any(char::is_alphabetic)
        && inner.len() < 60
}

fn is_separator(t: &str) -> bool {
    t.chars().count() >= SEPARATOR_MIN && t.chars().all(|c| "-_=*~#+─━═—".contains(c) || c == ' ')
}

fn is_attribution(t: &str) -> bool {
    if t.len() > ATTRIBUTION_MAX || !t.ends_with(':') {
        return false;
    }
    let folded = fold(t);
    WROTE.iter().any(|w| folded.contains(w))
        && (t.contains('@') || t.chars().any(|c| c.is_ascii_digit()))
}

/// A verb-less attribution (FairEmail: `Mar 5, 2025 09:00:12 dopis <x@y>:`):
/// a line ending in `:` with a date or address, right before quoted lines;
/// or one with the verb but neither (`On Sunday dopis wrote:`), also right
/// before quoted lines: the text after a move is passed on as a message,
/// so an attribution must not be read as one.
fn introduces_quote(lines: &[&str], i: usize, t: &str) -> bool {
    t.ends_with(':')
        && t.len() <= ATTRIBUTION_MAX
        && (t.contains('@')
            || t.chars().any(|c| c.is_ascii_digit())
            || WROTE.iter().any(|w| fold(t).contains(w)))
        && lines
            .iter()
            .skip(i + 1)
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_start().starts_with('>'))
}

/// Gmail and others wrap a long attribution: `On Mon, … Alice <` / `alice@x.org> wrote:`.
fn may_continue_attribution(line: &str, next: &str) -> bool {
    if line.ends_with(':') || !next.ends_with(':') || next.len() > ATTRIBUTION_MAX {
        return false;
    }
    let folded = fold(line);
    ATTRIBUTION_STARTS.iter().any(|s| folded.starts_with(s))
        || ((line.contains('@') || line.ends_with('<')) && next.chars().count() <= 60)
}

/// The name of a header-like line (`Sent: …` → `sent`), folded, if it has a value.
fn header_name(line: &str) -> Option<String> {
    let t = line.trim().trim_start_matches('*');
    let (name, value) = t.split_once(':')?;
    let name = fold(name.trim().trim_end_matches('*'));
    let value = value.trim_start_matches('*').trim();
    (!value.is_empty() && name.len() <= 12 && !name.contains(' ')).then_some(name)
}

/// A block of at least three header lines in a row (`From:`, `Sent:`, `To:` …),
/// one of them a `From:`. Clients order them differently (web.de starts with
/// `Gesendet:`), so the block may start with any of them.
fn is_header_block(lines: &[&str], i: usize) -> bool {
    let is_block_name = |n: &str| FROM_NAMES.contains(&n) || BLOCK_NAMES.contains(&n);
    if !lines
        .get(i)
        .and_then(|l| header_name(l))
        .is_some_and(|n| is_block_name(&n))
    {
        return false;
    }
    let names: Vec<String> = lines
        .iter()
        .skip(i)
        .filter(|l| !l.trim().is_empty())
        .take(6)
        .map_while(|l| header_name(l).filter(|n| is_block_name(n)))
        .collect();
    names.len() >= 3 && names.iter().any(|n| FROM_NAMES.contains(&n.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_signatures_and_footers_are_dropped() {
        let cases: &[(&str, &str, &str)] = &[
            ("plain move", "Nf3\n", "Nf3\n"),
            (
                "top-posted with English attribution",
                "Nf3\n\nOn Mon, 3 Mar 2025 at 10:15, Alice <alice@example.org> wrote:\n> Your move.\n> 1. e4 e5\n",
                "Nf3\n",
            ),
            (
                "Gmail's wrapped attribution",
                "Nf3\n\nOn Mon, Mar 3, 2025 at 10:15 AM Alice Novak <alice@example.org>\nwrote:\n\n> Your move.\n",
                "Nf3\n",
            ),
            (
                "bottom-posted",
                "On 03.03.2025 10:15, Alice wrote:\n> Your move.\n> 1. e4 e5\n\nNf3\n\n-- \nBob\n",
                "Nf3\n",
            ),
            (
                "inline replies keep every new part",
                "> Your move.\nNf3\n> Any plans?\nNone yet.\n",
                "Nf3\n\nNone yet.\n",
            ),
            (
                "Slovenian attribution",
                "Sf3\n\nDne 3. 03. 2025 ob 10:15 je Alice Novak <alice@example.org> napisal(a):\n> Na potezi ste.\n",
                "Sf3\n",
            ),
            (
                "Polish Thunderbird attribution",
                "W dniu 3.03.2025 o 10:15, Alicja Nowak pisze:\n> Twój ruch.\n\nSf3\n",
                "Sf3\n",
            ),
            (
                "Latvian attribution",
                "Zf3\n\npirmd., 2025. g. 3. marts, plkst. 10:15 — lietotājs Alise (<alise@example.org>) rakstīja:\n> Jūsu gājiens.\n",
                "Zf3\n",
            ),
            (
                "German attribution",
                "Sf3\n\nAm 03.03.2025 um 10:15 schrieb Alice Novak <alice@example.org>:\n> Sie sind am Zug.\n",
                "Sf3\n",
            ),
            (
                "Outlook header block",
                "Nf3\n\n________________________________\nFrom: dopis <chess@example.org>\nSent: Monday, March 3, 2025 10:15 AM\nTo: Bob\nSubject: [dopis #42] Your move\n\nYour move.\n",
                "Nf3\n",
            ),
            (
                "Polish Outlook header block without separator",
                "Sf3\n\nOd: dopis <chess@example.org>\nWysłane: poniedziałek, 3 marca 2025 10:15\nDo: Bob\nTemat: [dopis #42] Twój ruch\n\nTwój ruch.\n",
                "Sf3\n",
            ),
            (
                "German Outlook header block in bold",
                "Sf3\n\n**Von:** dopis <chess@example.org>\n**Gesendet:** Montag, 3. März 2025 10:15\n**An:** Bob\n**Betreff:** Ihr Zug\n",
                "Sf3\n",
            ),
            (
                "Original Message title",
                "Nf3\n-----Original Message-----\nFrom: dopis\nYour move.\n",
                "Nf3\n",
            ),
            ("signature", "Nf3\n-- \nBob Smith\nChess Club\n", "Nf3\n"),
            ("signature without its space", "Nf3\n--\nBob\n", "Nf3\n"),
            (
                "iPhone footer",
                "Nf3\n\nSent from my iPhone\n\n> On 3 Mar 2025, at 10:15, dopis <chess@example.org> wrote:\n",
                "Nf3\n",
            ),
            (
                "attribution without date or address, before a quote",
                "Nf3\nThanks for the game.\n\nOn Sunday dopis wrote:\n> Your move.\n",
                "Nf3\nThanks for the game.\n",
            ),
            (
                "German attribution without date or address, before a quote",
                "Sf3\nDanke.\n\nAm Sonntag schrieb dopis:\n\n> Ihr Zug.\n",
                "Sf3\nDanke.\n",
            ),
            (
                "German iPhone footer",
                "Sf3\n\nVon meinem iPhone gesendet\n",
                "Sf3\n",
            ),
            (
                "Polish mobile footer",
                "Sf3\n\nWysłane z mojego telefonu\n",
                "Sf3\n",
            ),
            (
                "disclaimer after a separator",
                "Nf3\n\n==========================================\nThis e-mail is confidential.\n",
                "Nf3\n",
            ),
            (
                "separator before any text is skipped",
                "──────────────\nNf3\n",
                "Nf3\n",
            ),
            (
                "greeting and chat are kept",
                "Hi Alice,\n\n\n\nNf3 it is.\n\nBob\n",
                "Hi Alice,\n\nNf3 it is.\n\nBob\n",
            ),
            (
                "a sentence ending in a colon is not an attribution",
                "My move:\nNf3\n",
                "My move:\nNf3\n",
            ),
            (
                "web.de header block starting with Gesendet",
                "Remis angenommen.\n\nGesendet: Donnerstag, 06. März 2025 um 09:00 Uhr\nVon: dopis <chess@example.org>\nAn: Anna\nBetreff: Ihr Zug\n",
                "Remis angenommen.\n",
            ),
            (
                "FairEmail attribution without a verb",
                "Nf3\n\nMar 5, 2025 09:00:12 dopis <chess@example.org>:\n\n> Your move.\n",
                "Nf3\n",
            ),
            (
                "two header-like lines are not a header block",
                "Nf3\nTo: you\nFrom: me\n",
                "Nf3\nTo: you\nFrom: me\n",
            ),
            ("only history", "> Your move.\n", ""),
            ("nothing", "", ""),
        ];
        for (name, text, newest) in cases {
            assert_eq!(newest_text(text), *newest, "{name}");
        }
    }
}
