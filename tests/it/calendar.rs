//! The deadline of a "your move" mail as an iCalendar attachment, read back
//! by real parsers: the `icalendar` crate's (in every golden mail's check,
//! see `outbound.rs`) and python's `icalendar` package (where installed:
//! `scripts/stack.sh` installs Debian's). A later mail about the same game
//! and side updates the same calendar entry: same UID, higher SEQUENCE,
//! later DTSTAMP.

use chrono::{DateTime, TimeZone, Utc};
use icalendar::{
    Calendar, CalendarComponent, CalendarDateTime, Component, DatePerhapsTime, EventStatus,
};
use mail_parser::{MessageParser, MimeHeaders};
use shakmaty::Color;

use dopis::adapter::mail::compose::{GameView, Letter, LetterKind, Party, compose};
use dopis::adapter::mail::inbound::MessageId;
use dopis::domain::address::EmailAddress;
use dopis::domain::chess::game::{Game, StartPosition};
use dopis::domain::lang::Lang;

use crate::support::python_reads;

/// Checks the `.ics` of a "your move" mail about `game` from `from`: one
/// event whose UID names the game and side, SEQUENCE the half-moves
/// played, DTSTART the deadline; lines folded to 75 octets with CRLF.
pub(crate) fn check_deadline_event(
    text: &str,
    game: &GameView,
    from: &Party,
) -> Result<(), String> {
    for line in text.split_inclusive('\n') {
        if !line.ends_with("\r\n") {
            return Err(format!("a line without CRLF: {line:?}"));
        }
        if line.len() > 77 {
            return Err(format!("a line of {} octets: {line:?}", line.len() - 2));
        }
    }
    let calendar: Calendar = text.parse().map_err(|e| format!("does not parse: {e}"))?;
    let events: Vec<_> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let [event] = events.as_slice() else {
        return Err(format!("{} events, want one", events.len()));
    };
    let side = game.recipient.ok_or("a mail to no player")?;
    let uid = format!(
        "dopis.g{}.{}@{}",
        game.id,
        if side.is_white() { "white" } else { "black" },
        from.address.domain()
    );
    if event.get_uid() != Some(uid.as_str()) {
        return Err(format!("UID {:?}, want {uid}", event.get_uid()));
    }
    let plies = u32::try_from(game.game.plies().len()).map_err(|e| e.to_string())?;
    if event.get_sequence() != Some(plies) {
        return Err(format!("SEQUENCE {:?}, want {plies}", event.get_sequence()));
    }
    let want = game.deadline_at.ok_or("no deadline")?;
    match event.get_start() {
        Some(DatePerhapsTime::DateTime(CalendarDateTime::Utc(t))) if t == want => {}
        other => return Err(format!("DTSTART {other:?}, want {want}")),
    }
    if event.get_timestamp().is_none() {
        return Err("no DTSTAMP".into());
    }
    let summary = event.get_summary().unwrap_or("");
    if !summary.contains(&format!("#{}", game.id)) {
        return Err(format!("SUMMARY {summary:?} does not name the game"));
    }
    Ok(())
}

/// Checks the `.ics` that cancels the deadline event of `game`'s
/// recipient: METHOD:CANCEL, one event with the same UID as the "your
/// move" mails', STATUS:CANCELLED, a SEQUENCE above `above` (every earlier
/// copy's), and us as ORGANIZER.
pub(crate) fn check_cancel_event(
    text: &str,
    game: &GameView,
    from: &Party,
    above: u32,
) -> Result<(), String> {
    for line in text.split_inclusive('\n') {
        if !line.ends_with("\r\n") {
            return Err(format!("a line without CRLF: {line:?}"));
        }
        if line.len() > 77 {
            return Err(format!("a line of {} octets: {line:?}", line.len() - 2));
        }
    }
    let calendar: Calendar = text.parse().map_err(|e| format!("does not parse: {e}"))?;
    if calendar.property_value("METHOD") != Some("CANCEL") {
        return Err(format!(
            "METHOD {:?}, want CANCEL",
            calendar.property_value("METHOD")
        ));
    }
    let events: Vec<_> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let [event] = events.as_slice() else {
        return Err(format!("{} events, want one", events.len()));
    };
    let side = game.recipient.ok_or("a mail to no player")?;
    let uid = format!(
        "dopis.g{}.{}@{}",
        game.id,
        if side.is_white() { "white" } else { "black" },
        from.address.domain()
    );
    if event.get_uid() != Some(uid.as_str()) {
        return Err(format!("UID {:?}, want {uid}", event.get_uid()));
    }
    if event.get_status() != Some(EventStatus::Cancelled) {
        return Err(format!("STATUS {:?}, want CANCELLED", event.get_status()));
    }
    match event.get_sequence() {
        Some(n) if n > above => {}
        other => return Err(format!("SEQUENCE {other:?}, want above {above}")),
    }
    let organizer = format!("mailto:{}", from.address);
    if event.property_value("ORGANIZER") != Some(organizer.as_str()) {
        return Err(format!(
            "ORGANIZER {:?}, want {organizer}",
            event.property_value("ORGANIZER")
        ));
    }
    Ok(())
}

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, day, hour, 5, 0)
        .single()
        .expect("a fixed instant")
}

fn addr(text: &str) -> EmailAddress {
    EmailAddress::parse(text).expect("a test address")
}

/// A "your move" mail to Black after `moves`, due at `deadline`, written at
/// `date`; the players' names are hard on an iCalendar writer.
fn your_move(moves: &[&str], date: DateTime<Utc>, deadline: DateTime<Utc>, lang: Lang) -> Letter {
    let game = Game::replay(StartPosition::Standard, moves).expect("legal moves");
    Letter {
        kind: LetterKind::YourMove,
        lang,
        from: Party {
            name: "dopis".into(),
            address: addr("chess@chess.test"),
        },
        to: Party {
            name: "Żaneta Wróblewska".into(),
            address: addr("zaneta@players.test"),
        },
        reply_to: Some(addr("chess+g9.abcdefgh23@chess.test")),
        message_id: MessageId::parse(&format!("dopis.g9.p{}.x@chess.test", moves.len()))
            .expect("an id"),
        in_reply_to: None,
        references: Vec::new(),
        date,
        game: Some(GameView {
            id: 9,
            white: "Jan \"Fritz\" Müller, Jr.; the 3rd \\ Bayern-München-Süd".into(),
            black: "Żaneta Wróblewska".into(),
            recipient: Some(Color::Black),
            game,
            time_control: "3d".into(),
            deadline: Some(format!("{} UTC", deadline.format("%Y-%m-%d %H:%M"))),
            deadline_at: Some(deadline),
            analysis_url: None,
            clocks: None,
            draw_offer_from: None,
            pgn: None,
            ratings: [None, None],
            tables: None,
            pairing: None,
        }),
        talk: None,
        page: None,
        calendar: None,
        unsubscribe: None,
    }
}

/// The `.ics` attached to a composed mail.
fn ics_of(letter: &Letter) -> String {
    let bytes = compose(letter).expect("composes");
    let mail = MessageParser::default().parse(&bytes).expect("parses");
    let part = mail
        .attachments()
        .find(|p| p.attachment_name().is_some_and(|n| n.ends_with(".ics")))
        .expect("a calendar attachment");
    String::from_utf8(part.contents().to_vec()).expect("UTF-8")
}

#[test]
fn a_later_your_move_mail_updates_the_same_calendar_entry() {
    let first = your_move(&["e2e4"], at(1, 10), at(4, 10), Lang::Pl);
    let later = your_move(&["e2e4", "e7e5", "g1f3"], at(2, 9), at(5, 9), Lang::Pl);
    let (a, b) = (ics_of(&first), ics_of(&later));
    for (letter, text) in [(&first, &a), (&later, &b)] {
        check_deadline_event(text, letter.game.as_ref().expect("a game"), &letter.from)
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
    let event = |text: &str| {
        let calendar: Calendar = text.parse().expect("parses");
        match calendar.components.into_iter().next() {
            Some(CalendarComponent::Event(e)) => e,
            other => panic!("not an event: {other:?}"),
        }
    };
    let (a, b) = (event(&a), event(&b));
    assert_eq!(
        a.get_uid(),
        b.get_uid(),
        "one calendar entry per game and side"
    );
    assert!(b.get_sequence() > a.get_sequence(), "the later copy wins");
    assert!(b.get_timestamp() > a.get_timestamp());
    assert_ne!(a.get_start(), b.get_start(), "the deadline moved");
}

#[test]
fn only_your_move_mails_with_a_deadline_carry_a_calendar() {
    let mut letter = your_move(&["e2e4"], at(1, 10), at(4, 10), Lang::En);
    letter.kind = LetterKind::Status;
    let bytes = compose(&letter).expect("composes");
    assert!(!String::from_utf8_lossy(&bytes).contains("text/calendar"));
    let mut letter = your_move(&["e2e4"], at(1, 10), at(4, 10), Lang::En);
    if let Some(g) = letter.game.as_mut() {
        g.deadline_at = None;
    }
    let bytes = compose(&letter).expect("composes");
    assert!(!String::from_utf8_lossy(&bytes).contains("text/calendar"));
}

/// The calendar attached to a composed mail, if any: its MIME method and text.
fn calendar_of(letter: &Letter) -> Option<(String, String)> {
    let bytes = compose(letter).expect("composes");
    let mail = MessageParser::default().parse(&bytes).expect("parses");
    mail.attachments()
        .find(|p| p.attachment_name().is_some_and(|n| n.ends_with(".ics")))
        .map(|part| {
            let ctype = part
                .content_type()
                .and_then(|c| c.attribute("method"))
                .unwrap_or("")
                .to_owned();
            (
                ctype,
                String::from_utf8(part.contents().to_vec()).expect("UTF-8"),
            )
        })
}

#[test]
fn the_mail_saying_a_move_was_played_cancels_its_deadline_event() {
    // Black's deadline after 1. e4 came with SEQUENCE 1; Black plays 1... e5.
    let before = your_move(&["e2e4"], at(1, 10), at(4, 10), Lang::Pl);
    let mut after = your_move(&["e2e4", "e7e5"], at(2, 9), at(5, 9), Lang::Pl);
    after.kind = LetterKind::MoveAccepted { ply: 1 };
    let (method, text) = calendar_of(&after).expect("the confirmation carries a calendar");
    assert_eq!(method, "CANCEL");
    check_cancel_event(&text, after.game.as_ref().expect("a game"), &after.from, 1)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    // The same entry as the "your move" mail's.
    let published: Calendar = ics_of(&before).parse().expect("parses");
    let cancelled: Calendar = text.parse().expect("parses");
    let uid = |c: &Calendar| match c.components.first() {
        Some(CalendarComponent::Event(e)) => e.get_uid().map(str::to_owned),
        _ => None,
    };
    assert_eq!(uid(&published), uid(&cancelled));
    assert!(uid(&cancelled).is_some());
}

#[test]
fn a_confirmation_after_which_it_is_your_move_again_cancels_nothing() {
    // 1... e5 set off White's conditional 2. Nf3: Black is to move again,
    // and his "your move" mail updates the entry instead.
    let mut letter = your_move(&["e2e4", "e7e5", "g1f3"], at(2, 9), at(5, 9), Lang::En);
    letter.kind = LetterKind::MoveAccepted { ply: 1 };
    assert_eq!(calendar_of(&letter), None);
}

#[test]
fn the_game_over_mail_cancels_the_deadline_event_even_of_a_resignation_on_move() {
    // Black resigns on his move after 1. e4: no half-move was added, yet
    // the cancel's SEQUENCE is above the "your move" mail's (1).
    let mut letter = your_move(&["e2e4"], at(2, 9), at(5, 9), Lang::De);
    if let Some(view) = letter.game.as_mut() {
        view.game.resign(Color::Black).expect("resigns");
    }
    letter.kind = LetterKind::GameOver;
    let (method, text) = calendar_of(&letter).expect("the game-over mail carries a calendar");
    assert_eq!(method, "CANCEL");
    check_cancel_event(
        &text,
        letter.game.as_ref().expect("a game"),
        &letter.from,
        1,
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"));
    // A copy to a tournament director (no side) cancels nothing.
    if let Some(view) = letter.game.as_mut() {
        view.recipient = None;
    }
    assert_eq!(calendar_of(&letter), None);
}

/// The first python with the `icalendar` package, if any.
fn python_with_icalendar() -> Option<&'static str> {
    crate::support::python_with("icalendar")
}

const PYTHON_CHECK: &str = r#"
import sys, icalendar
data = sys.stdin.buffer.read()
cal = icalendar.Calendar.from_ical(data)
events = [c for c in cal.walk() if c.name == "VEVENT"]
assert len(events) == 1, len(events)
e = events[0]
alarms = [c for c in e.walk() if c.name == "VALARM"]
assert len(alarms) == 1, alarms
print(str(e["UID"]))
print(int(e["SEQUENCE"]))
print(e.decoded("DTSTART").strftime("%Y-%m-%dT%H:%M:%S%z"))
print(str(e["SUMMARY"]))
print(str(e["DESCRIPTION"]).replace("\n", "|"))
"#;

const PYTHON_CANCEL: &str = r#"
import sys, icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
events = [c for c in cal.walk() if c.name == "VEVENT"]
assert len(events) == 1, len(events)
e = events[0]
print(str(cal["METHOD"]))
print(str(e["UID"]))
print(int(e["SEQUENCE"]))
print(str(e["STATUS"]))
print(str(e["ORGANIZER"]))
"#;

#[test]
fn python_icalendar_reads_the_cancellation() {
    let Some(python) = python_with_icalendar() else {
        eprintln!("no python with the icalendar package: checked with the crate's parser only");
        return;
    };
    let mut letter = your_move(&["e2e4", "e7e5"], at(2, 9), at(5, 9), Lang::Sl);
    letter.kind = LetterKind::MoveAccepted { ply: 1 };
    let (_, text) = calendar_of(&letter).expect("a calendar");
    let stdout = python_reads(python, PYTHON_CANCEL, &text)
        .unwrap_or_else(|e| panic!("python's icalendar refused it: {e}\n{text}"));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "CANCEL",
            "dopis.g9.black@chess.test",
            "2",
            "CANCELLED",
            "mailto:chess@chess.test"
        ]
    );
}

#[test]
fn python_icalendar_reads_the_deadline_names_and_all() {
    let Some(python) = python_with_icalendar() else {
        eprintln!("no python with the icalendar package: checked with the crate's parser only");
        return;
    };
    for lang in [Lang::En, Lang::Sl, Lang::Pl, Lang::Lv, Lang::De] {
        // White's mail after two half-moves.
        let mut letter = your_move(&["e2e4", "e7e5", "g1f3"], at(2, 9), at(5, 9), lang);
        if let Some(g) = letter.game.as_mut() {
            g.recipient = Some(Color::White);
            g.game = Game::replay(StartPosition::Standard, &["e2e4", "e7e5"]).expect("legal");
        }
        let text = ics_of(&letter);
        let stdout = python_reads(python, PYTHON_CHECK, &text)
            .unwrap_or_else(|e| panic!("{lang:?}: python's icalendar refused it: {e}\n{text}"));
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines[0], "dopis.g9.white@chess.test", "{lang:?}");
        assert_eq!(lines[1], "2", "{lang:?}");
        assert_eq!(lines[2], "2026-12-05T09:05:00+0000", "{lang:?}");
        // The names come back exactly, escapes and folds undone.
        let names = "Jan \"Fritz\" Müller, Jr.; the 3rd \\ Bayern-München-Süd – Żaneta Wróblewska";
        assert!(lines[3].contains(names), "{lang:?}: {}", lines[3]);
        assert!(lines[3].contains("#9"), "{lang:?}: {}", lines[3]);
        assert!(
            lines[4].contains("chess+g9.abcdefgh23@chess.test"),
            "{lang:?}: {}",
            lines[4]
        );
    }
}
