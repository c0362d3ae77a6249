//! The deadline of a "your move" mail as an iCalendar file (RFC 5545), so
//! it lands in the player's calendar.
//!
//! One `VEVENT` per game and side: its `UID` names the game and the side
//! (`dopis.g42.white@domain`), so the next "your move" mail of that game
//! updates the same calendar entry instead of adding one. Which copy is
//! newer is told by `SEQUENCE`, the half-moves played when the mail was
//! written (each "your move" mail to a side comes two half-moves after its
//! last, so it always grows, and stays a small integer: RFC 5545 makes it
//! a 32-bit INTEGER, and clients refuse timestamps there), then by
//! `DTSTAMP`, the mail's date (RFC 5546 §2.1.5).
//!
//! Written by hand, not with the `icalendar` crate: one event of a handful
//! of properties is a few lines, and the two things that go wrong in
//! generators — folding long lines (at 75 octets, never inside a UTF-8
//! character; the crate's fold let lines reach 76 octets until its
//! pull request 107 of 2024) and escaping
//! text (`\` `;` `,` and line breaks) — are done here and tested with the
//! crate's parser and with python's `icalendar` (tests/it/calendar.rs).
//!
//! The event starts at the deadline and has no end (RFC 5545 §3.6.1: it
//! then ends when it starts): the first instant the move is late, with an
//! alarm a day before it.
//!
//! When the deadline no longer stands (the player moved, or the game
//! ended), the mail the player gets anyway (their move's confirmation, the
//! game-over mail) carries [`cancel`]: `METHOD:CANCEL`, the same `UID`,
//! `STATUS:CANCELLED` and a higher `SEQUENCE` (RFC 5546 §3.2.5), so the
//! calendar entry goes away without a mail of its own. A cancel names us
//! as `ORGANIZER`, as iTIP requires of a CANCEL.

use chrono::{DateTime, Utc};

/// One deadline as a calendar event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Deadline<'a> {
    /// Stable per game and side: `dopis.g42.white@chess.example`.
    pub uid: String,
    /// Half-moves played: grows with every mail that moves the deadline.
    pub sequence: u32,
    /// When this copy was written (the mail's date).
    pub stamp: DateTime<Utc>,
    /// The deadline.
    pub at: DateTime<Utc>,
    /// One line: what is due.
    pub summary: &'a str,
    /// Any number of lines: how to answer.
    pub description: &'a str,
}

/// The longest content line, in octets, without its CRLF (RFC 5545 §3.1).
const LINE_OCTETS: usize = 75;

/// The `.ics` text, CRLF line ends, lines folded.
pub(crate) fn ics(d: &Deadline<'_>) -> String {
    let mut lines = calendar_head(Some("PUBLISH"));
    lines.extend(event(d, None));
    lines.push("END:VCALENDAR".to_owned());
    folded(&lines)
}

/// A player's deadline feed (`dopis web`, `/me/…/deadlines.ics`): one
/// event per game where it is their move, each as in the "your move"
/// mail (the same UID, so a calendar that has both keeps one entry) plus
/// the game page's `URL`. No METHOD: a subscribed calendar is not an iTIP
/// message (RFC 5545 §3.7.2); the calendar is replaced at each refresh, so
/// a deadline that no longer stands simply is not in it. `zone` (the
/// player's IANA zone) tells clients which zone to show times in
/// (`X-WR-TIMEZONE`); the times themselves are UTC.
pub(crate) fn feed(
    name: &str,
    zone: Option<&str>,
    events: &[(Deadline<'_>, Option<String>)],
) -> String {
    let mut lines = calendar_head(None);
    lines.push(format!("X-WR-CALNAME:{}", escape(name)));
    if let Some(zone) = zone {
        lines.push(format!("X-WR-TIMEZONE:{}", escape(zone)));
    }
    // How often to look again: an hour (RFC 7986 and its older name).
    lines.push("REFRESH-INTERVAL;VALUE=DURATION:PT1H".to_owned());
    lines.push("X-PUBLISHED-TTL:PT1H".to_owned());
    for (deadline, url) in events {
        lines.extend(event(deadline, url.as_deref()));
    }
    lines.push("END:VCALENDAR".to_owned());
    folded(&lines)
}

/// One deadline's VEVENT, from BEGIN to END.
fn event(d: &Deadline<'_>, url: Option<&str>) -> Vec<String> {
    let stamp = utc(d.stamp);
    let at = utc(d.at);
    let summary = escape(d.summary);
    let description = escape(d.description);
    let mut lines = event_head(&d.uid, d.sequence, &stamp);
    lines.extend([
        format!("DTSTART:{at}"),
        format!("SUMMARY:{summary}"),
        format!("DESCRIPTION:{description}"),
    ]);
    // A URI value, not TEXT: not escaped (RFC 5545 §3.8.4.6); ours has no
    // characters that would need it.
    lines.extend(url.map(|u| format!("URL:{u}")));
    lines.extend([
        "STATUS:CONFIRMED".to_owned(),
        // A deadline takes no time: it does not make the player look busy.
        "TRANSP:TRANSPARENT".to_owned(),
        "BEGIN:VALARM".to_owned(),
        "ACTION:DISPLAY".to_owned(),
        format!("DESCRIPTION:{summary}"),
        "TRIGGER:-PT24H".to_owned(),
        "END:VALARM".to_owned(),
        "END:VEVENT".to_owned(),
    ]);
    lines
}

/// A deadline that no longer stands, as a calendar cancellation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cancellation<'a> {
    /// The UID of the event it cancels.
    pub uid: String,
    /// Higher than the SEQUENCE of every copy of the event sent so far.
    pub sequence: u32,
    /// When this copy was written (the mail's date).
    pub stamp: DateTime<Utc>,
    /// Our address, as the organizer (`mailto:` is added).
    pub organizer: &'a str,
    /// One line: what is cancelled.
    pub summary: &'a str,
}

/// The `.ics` text that cancels an event: CRLF line ends, lines folded.
pub(crate) fn cancel(c: &Cancellation<'_>) -> String {
    let stamp = utc(c.stamp);
    let mut lines = calendar_head(Some("CANCEL"));
    lines.extend(event_head(&c.uid, c.sequence, &stamp));
    lines.extend([
        format!("ORGANIZER:mailto:{}", c.organizer),
        format!("SUMMARY:{}", escape(c.summary)),
        "STATUS:CANCELLED".to_owned(),
        "TRANSP:TRANSPARENT".to_owned(),
        "END:VEVENT".to_owned(),
        "END:VCALENDAR".to_owned(),
    ]);
    folded(&lines)
}

/// The lines every file of ours starts with: the calendar and its METHOD
/// (none for a feed).
fn calendar_head(method: Option<&str>) -> Vec<String> {
    let mut lines = vec![
        "BEGIN:VCALENDAR".to_owned(),
        "VERSION:2.0".to_owned(),
        "PRODID:-//dopis//correspondence chess by e-mail//EN".to_owned(),
        "CALSCALE:GREGORIAN".to_owned(),
    ];
    lines.extend(method.map(|m| format!("METHOD:{m}")));
    lines
}

/// An event's first lines, up to its LAST-MODIFIED: its UID and SEQUENCE.
fn event_head(uid: &str, sequence: u32, stamp: &str) -> Vec<String> {
    vec![
        "BEGIN:VEVENT".to_owned(),
        format!("UID:{}", escape(uid)),
        format!("SEQUENCE:{}", sequence.min(i32::MAX as u32)),
        format!("DTSTAMP:{stamp}"),
        format!("LAST-MODIFIED:{stamp}"),
    ]
}

/// Content lines joined with CRLF, each folded.
fn folded(lines: &[String]) -> String {
    let mut out = String::new();
    for line in lines {
        fold_into(line, &mut out);
    }
    out
}

/// A UTC DATE-TIME: `20261202T170500Z`.
fn utc(t: DateTime<Utc>) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

/// A TEXT value (RFC 5545 §3.3.11): backslash, semicolon and comma escaped,
/// line breaks as `\n`, other control characters dropped.
pub(crate) fn escape(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Appends `line` folded to lines of at most 75 octets (a continuation's
/// leading space counts), each cut on a character boundary, CRLF after each.
fn fold_into(line: &str, out: &mut String) {
    let mut room = LINE_OCTETS;
    let mut used = 0;
    for c in line.chars() {
        let len = c.len_utf8();
        if used + len > room {
            out.push_str("\r\n ");
            room = LINE_OCTETS - 1;
            used = 0;
        }
        out.push(c);
        used += len;
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 2, h, 5, 0)
            .single()
            .expect("fixed")
    }

    #[test]
    fn text_is_escaped_as_rfc_5545_says() {
        assert_eq!(
            escape("a\\b; c, d\r\ne\u{7}"),
            "a\\\\b\\; c\\, d\\ne".to_owned()
        );
    }

    #[test]
    fn long_lines_fold_at_75_octets_never_inside_a_character() {
        let summary = "Rok: tvoja poteza v partiji #42 proti Čedomirju Žužku, šah ".repeat(4);
        let text = ics(&Deadline {
            uid: "dopis.g42.white@chess.test".into(),
            sequence: 6,
            stamp: at(10),
            at: at(17),
            summary: &summary,
            description: "ž".repeat(100).as_str(),
        });
        for line in text.split("\r\n") {
            assert!(line.len() <= LINE_OCTETS, "{} octets: {line}", line.len());
        }
        assert!(text.ends_with("END:VCALENDAR\r\n"));
        assert!(!text.replace("\r\n", "").contains('\n'));
        // Unfolding gives the summary back.
        let unfolded = text.replace("\r\n ", "");
        assert!(unfolded.contains(&format!("SUMMARY:{}", escape(&summary))));
        assert!(unfolded.contains(&format!("DESCRIPTION:{}", "ž".repeat(100))));
    }
}
