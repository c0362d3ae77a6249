//! Dates, deadlines and time controls as each language writes them.
//!
//! The mail templates carry the words; what the code formats before it
//! reaches a template (dates in deadlines) is written here, per language.
//! Languages without translated templates read English mails, so they get
//! the English (ISO 8601) dates too: one mail, one convention.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::domain::clock::Clocks;
use crate::domain::clock::TimeControl;
use crate::domain::clock::describe::describe_deadline_dated;
use crate::domain::lang::Lang;
use shakmaty::Color;

/// A calendar date as `lang` writes it: `2026-12-02` (English, ISO 8601),
/// `2. 12. 2026` (Slovenian), `02.12.2026` (Polish, German), `02.12.2026.`
/// (Latvian).
pub fn format_date(lang: Lang, date: NaiveDate) -> String {
    date_writer(lang)(date)
}

/// An instant in the reader's time zone (UTC without one), with the date
/// as `lang` writes it: `2. 12. 2026 18:00 CET`, `2026-12-02 17:00 UTC`.
/// For times already past (when a move arrived), where the deadline's
/// second, UTC time would only be noise.
pub fn describe_moment(instant: DateTime<Utc>, tz: Option<Tz>, lang: Lang) -> String {
    let date = date_writer(lang);
    match tz {
        Some(tz) => {
            let local = instant.with_timezone(&tz);
            let zone = local.format("%Z").to_string();
            let zone = if zone.starts_with(['+', '-']) {
                format!("UTC{zone}")
            } else {
                zone
            };
            format!(
                "{} {} {zone}",
                date(local.date_naive()),
                local.format("%H:%M")
            )
        }
        None => format!(
            "{} {} UTC",
            date(instant.date_naive()),
            instant.format("%H:%M")
        ),
    }
}

/// The mark between a number's whole and its fraction as `lang` writes
/// it: a point in English, a comma in the other written languages.
pub fn decimal_mark(lang: Lang) -> char {
    match lang {
        Lang::En => '.',
        l if l.is_written() => ',',
        _ => '.',
    }
}

/// What the reader of a web page asked for: a language picked on the page
/// (a link of the page's language switch), the languages their browser
/// names (`Accept-Language`, best first), and whether moves show
/// figurines instead of letters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reader {
    /// The language picked by a link, if any.
    pub chosen: Option<Lang>,
    /// The browser's languages, best first.
    pub accepted: Vec<Lang>,
    /// Figurines (♘f3) instead of the language's piece letters.
    pub figurines: bool,
}

impl Reader {
    /// The language of a page for this reader: the one they picked, else
    /// `own` (a player's language, on their own pages), else the first
    /// their browser names that the pages are written in, else `fallback`
    /// (a public event's `lang`), else English. Only languages the pages
    /// are written in are ever chosen.
    pub fn page_lang(&self, own: Option<Lang>, fallback: Option<Lang>) -> Lang {
        self.chosen
            .into_iter()
            .chain(own)
            .chain(self.accepted.iter().copied())
            .chain(fallback)
            .find(|l| l.is_written())
            .unwrap_or(Lang::En)
    }
}

/// A deadline in the reader's time zone and UTC, with dates as `lang`
/// writes them, e.g. `2. 12. 2026 18:00 CET (17:00 UTC)`.
pub fn describe_deadline(instant: DateTime<Utc>, tz: Option<Tz>, lang: Lang) -> String {
    describe_deadline_dated(instant, tz, date_writer(lang))
}

/// A time control in words, e.g. `3 dni na potezo` or `10 Züge in 50 Tagen`;
/// the spec (`10/50d!20`) follows in brackets when the words leave out a
/// rule, and stands alone for Fischer controls.
/// A crosstable's column heading in `lang` (see
/// [`crate::domain::event::crosstable::Crosstable::relabel`]); `None` keeps the
/// English one. Abbreviations of tie-breaks named after people or used as
/// they are in every language's tables (`SB`, `DE`, `BB`, `Koya`) are kept,
/// and so are `Elo`, FIDE's `Rp` (performance) and the signs `+ = - %`.
pub fn crosstable_word(heading: &str, lang: Lang) -> Option<&'static str> {
    // "withdrawn" is the mark after a withdrawn player's name, in forms
    // right for anyone.
    // "Rk", "Rtg" and "R" (before a round's number) head a Swiss table,
    // as the pairing programs write them.
    let words: [&str; 12] = match lang {
        Lang::De => [
            "Rang",
            "Nr",
            "Name",
            "Pkt",
            "Siege",
            "Schwarz",
            "zurückgezogen",
            "Gesp",
            "Offen",
            "Rang",
            "Wertung",
            "R",
        ],
        Lang::Sl => [
            "Mesto", "Št", "Ime", "Točke", "Zmage", "Črni", "odstop", "Odig", "Ost", "Mesto",
            "Rating", "K",
        ],
        Lang::Pl => [
            "Miejsce",
            "Nr",
            "Zawodnik",
            "Pkt",
            "Wygrane",
            "Czarne",
            "wycofanie",
            "Rozeg",
            "Pozost",
            "Miejsce",
            "Ranking",
            "R",
        ],
        Lang::Lv => [
            "Vieta",
            "Nr",
            "Vārds",
            "Punkti",
            "Uzvaras",
            "Melnie",
            "izstāšanās",
            "Izsp",
            "Atlik",
            "Vieta",
            "Reitings",
            "K",
        ],
        _ => return None,
    };
    // FIDE's `WIN` (a Swiss table's rounds with a win's points) is an
    // English word to a reader of another language: it reads as the round
    // robin's `Wins` does.
    let heading = if heading == "WIN" { "Wins" } else { heading };
    let index = [
        "Rank",
        "No",
        "Name",
        "Pts",
        "Wins",
        "Black",
        "withdrawn",
        "Gms",
        "Left",
        "Rk",
        "Rtg",
        "R",
    ]
    .iter()
    .position(|h| *h == heading)?;
    words.get(index).copied()
}

pub fn describe_control(control: &TimeControl, lang: Lang) -> String {
    match *control {
        TimeControl::DaysPerMove { days } => days_per_move(lang, days),
        TimeControl::Cumulative {
            moves,
            days,
            double_after,
            max_per_move,
        } => {
            let words = moves_in_days(lang, moves, days);
            if double_after.is_none() && max_per_move.is_none() {
                words
            } else {
                format!("{words} ({control})")
            }
        }
        TimeControl::Fischer { .. } => control.to_string(),
    }
}

/// Which form a noun takes after a number, by the language's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// 1 (and in Latvian 21, 31 …).
    One,
    /// Slovenian dual: 2 (102 …).
    Two,
    /// Slovenian 3–4, Polish 2–4 (22–24 …).
    Few,
    /// Everything else.
    Many,
}

/// The form a noun takes after `n` in `lang` (the web pages' `plural`).
pub fn count(lang: Lang, n: u32) -> Count {
    match lang {
        Lang::Sl => match n % 100 {
            1 => Count::One,
            2 => Count::Two,
            3 | 4 => Count::Few,
            _ => Count::Many,
        },
        Lang::Pl if n == 1 => Count::One,
        Lang::Pl if (2..=4).contains(&(n % 10)) && !(12..=14).contains(&(n % 100)) => Count::Few,
        Lang::Lv if n % 10 == 1 && n % 100 != 11 => Count::One,
        _ if n == 1 => Count::One,
        _ => Count::Many,
    }
}

/// Both clocks in the reader's language, a line each (the first ends in
/// `;`, so the two read as one sentence where lines are joined), with the
/// days left
/// under every control, e.g. `White 12 days used, 38 left until move 20;
/// Black 9 days used, 41 left until move 20, on leave` (cumulative: left in
/// the current control period), `White 2 days used, 1 left for this move;
/// Black 1 day used` (days per move: left before the deadline, for the side
/// to move; the other side has no bank), `White 12 days used, 38 left`
/// (Fischer: the bank). The other languages write the numbers after a
/// colon, which needs no plural agreement.
pub fn describe_clocks(clocks: &Clocks, control: TimeControl, lang: Lang) -> String {
    [Color::White, Color::Black]
        .into_iter()
        .map(|side| {
            let state = clocks.players.get(side);
            let words = clock_words(lang);
            let name = if side.is_white() {
                words.white
            } else {
                words.black
            };
            let mut text = match lang {
                Lang::Sl | Lang::Pl | Lang::Lv | Lang::De => {
                    format!("{name}: {}{}", words.used, state.days_used)
                }
                _ => {
                    let days = if state.days_used == 1 { "day" } else { "days" };
                    format!("{name} {} {days} used", state.days_used)
                }
            };
            if let Some(left) = state.days_left {
                let period_end = match control {
                    TimeControl::Cumulative { moves, .. } => {
                        let moves = moves.max(1);
                        Some(
                            state
                                .moves
                                .saturating_add(1)
                                .div_ceil(moves)
                                .saturating_mul(moves),
                        )
                    }
                    _ => None,
                };
                let what = match (control, period_end) {
                    (TimeControl::DaysPerMove { .. }, _) => words.left_for_move.to_string(),
                    (_, Some(end)) => (words.left_until_move)(end),
                    (_, None) => words.left.to_string(),
                };
                match lang {
                    Lang::Sl | Lang::Pl | Lang::Lv | Lang::De => {
                        text.push_str(&format!(", {what}: {left}"))
                    }
                    _ => text.push_str(&format!(", {left} {what}")),
                }
            }
            if state.flagged.is_some() {
                text.push_str(words.flagged);
            } else if state.on_leave {
                text.push_str(words.on_leave);
            }
            text
        })
        .collect::<Vec<_>>()
        .join(";\n")
}

/// The words of the clocks line in one language.
struct ClockWords {
    white: &'static str,
    black: &'static str,
    /// Before the days used.
    used: &'static str,
    /// Days left of a bank (Fischer).
    left: &'static str,
    /// Days left before this move's deadline (days per move).
    left_for_move: &'static str,
    /// Days left before the control at move N (cumulative).
    left_until_move: fn(u32) -> String,
    on_leave: &'static str,
    flagged: &'static str,
}

fn clock_words(lang: Lang) -> ClockWords {
    match lang {
        Lang::Sl => ClockWords {
            white: "beli",
            black: "črni",
            used: "porabljeno dni: ",
            left: "preostalo",
            left_for_move: "za to potezo preostalo",
            left_until_move: |n| format!("do {n}. poteze preostalo"),
            on_leave: ", na dopustu",
            flagged: ", čas je potekel",
        },
        Lang::Pl => ClockWords {
            white: "białe",
            black: "czarne",
            used: "zużyte dni: ",
            left: "pozostało",
            left_for_move: "na ten ruch pozostało",
            left_until_move: |n| format!("do {n}. ruchu pozostało"),
            on_leave: ", na urlopie",
            flagged: ", czas minął",
        },
        Lang::Lv => ClockWords {
            white: "baltie",
            black: "melnie",
            used: "izlietotas dienas: ",
            left: "atlikušas",
            left_for_move: "šim gājienam atlikušas",
            left_until_move: |n| format!("līdz {n}. gājienam atlikušas"),
            on_leave: ", atvaļinājumā",
            flagged: ", laiks beidzies",
        },
        Lang::De => ClockWords {
            white: "Weiß",
            black: "Schwarz",
            used: "verbrauchte Tage: ",
            left: "übrig",
            left_for_move: "für diesen Zug übrig",
            left_until_move: |n| format!("bis zum {n}. Zug übrig"),
            on_leave: ", im Urlaub",
            flagged: ", Zeit abgelaufen",
        },
        _ => ClockWords {
            white: "White",
            black: "Black",
            used: "",
            left: "left",
            left_for_move: "left for this move",
            left_until_move: |n| format!("left until move {n}"),
            on_leave: ", on leave",
            flagged: ", out of time",
        },
    }
}

fn days_per_move(lang: Lang, days: u32) -> String {
    let c = count(lang, days);
    match lang {
        Lang::Sl => {
            let day = match c {
                Count::One => "dan",
                Count::Two => "dneva",
                Count::Few => "dnevi",
                Count::Many => "dni",
            };
            format!("{days} {day} na potezo")
        }
        Lang::Pl => {
            let day = if c == Count::One { "dzień" } else { "dni" };
            format!("{days} {day} na ruch")
        }
        Lang::Lv => {
            let day = if c == Count::One { "diena" } else { "dienas" };
            format!("{days} {day} katram gājienam")
        }
        Lang::De => {
            let day = if c == Count::One { "Tag" } else { "Tage" };
            format!("{days} {day} pro Zug")
        }
        _ => {
            let day = if c == Count::One { "day" } else { "days" };
            format!("{days} {day} per move")
        }
    }
}

fn moves_in_days(lang: Lang, moves: u32, days: u32) -> String {
    let (m, d) = (count(lang, moves), count(lang, days));
    match lang {
        Lang::Sl => {
            let mv = match m {
                Count::One => "poteza",
                Count::Two => "potezi",
                Count::Few => "poteze",
                Count::Many => "potez",
            };
            // Locative after "v": dnevu, dnevih (dual), dneh.
            let day = match d {
                Count::One => "dnevu",
                Count::Two => "dnevih",
                _ => "dneh",
            };
            format!("{moves} {mv} v {days} {day}")
        }
        Lang::Pl => {
            let mv = match m {
                Count::One => "ruch",
                Count::Few => "ruchy",
                _ => "ruchów",
            };
            let day = if d == Count::One { "dnia" } else { "dni" };
            format!("{moves} {mv} w ciągu {days} {day}")
        }
        Lang::Lv => {
            let mv = if m == Count::One {
                "gājiens"
            } else {
                "gājieni"
            };
            let day = if d == Count::One { "dienā" } else { "dienās" };
            format!("{moves} {mv} {days} {day}")
        }
        Lang::De => {
            let mv = if m == Count::One { "Zug" } else { "Züge" };
            let day = if d == Count::One { "Tag" } else { "Tagen" };
            format!("{moves} {mv} in {days} {day}")
        }
        _ => {
            let mv = if m == Count::One { "move" } else { "moves" };
            let day = if d == Count::One { "day" } else { "days" };
            format!("{moves} {mv} in {days} {day}")
        }
    }
}

fn date_writer(lang: Lang) -> fn(NaiveDate) -> String {
    match lang {
        Lang::Sl => slovenian,
        Lang::Pl | Lang::De => dotted,
        Lang::Lv => latvian,
        _ => iso,
    }
}

fn iso(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// Slovenian orthography: day and month without leading zeros, each
/// followed by a full stop and a space (Slovenski pravopis 2001).
fn slovenian(date: NaiveDate) -> String {
    format!("{}. {}. {}", date.day(), date.month(), date.year())
}

/// `DD.MM.YYYY`, as Polish and German write dates in numbers.
fn dotted(date: NaiveDate) -> String {
    date.format("%d.%m.%Y").to_string()
}

/// Latvian reads the year as an ordinal (`2026. gada`), so a numeric date
/// ends with a full stop: `02.12.2026.`.
fn latvian(date: NaiveDate) -> String {
    date.format("%d.%m.%Y.").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use chrono_tz::Europe;

    #[test]
    fn each_language_writes_a_date_its_own_way() {
        let date = NaiveDate::from_ymd_opt(2026, 12, 2).expect("a real date");
        for (lang, want) in [
            (Lang::En, "2026-12-02"),
            (Lang::Sl, "2. 12. 2026"),
            (Lang::Pl, "02.12.2026"),
            (Lang::De, "02.12.2026"),
            (Lang::Lv, "02.12.2026."),
            // No translated mails: the English convention of the mail itself.
            (Lang::Cs, "2026-12-02"),
        ] {
            assert_eq!(format_date(lang, date), want, "{lang}");
        }
    }

    #[test]
    fn a_page_speaks_the_readers_choice_then_their_own_then_their_browsers() {
        let reader = |chosen: Option<Lang>, accepted: &[Lang]| Reader {
            chosen,
            accepted: accepted.to_vec(),
            figurines: false,
        };
        // A public page: the browser first, then the event's language.
        assert_eq!(
            reader(None, &[Lang::De]).page_lang(None, Some(Lang::Sl)),
            Lang::De
        );
        assert_eq!(reader(None, &[]).page_lang(None, Some(Lang::Sl)), Lang::Sl);
        // A language the pages are not written in is passed over.
        assert_eq!(
            reader(None, &[Lang::Fr, Lang::Pl]).page_lang(None, Some(Lang::Sl)),
            Lang::Pl
        );
        assert_eq!(
            reader(None, &[Lang::Fr]).page_lang(None, Some(Lang::Sl)),
            Lang::Sl
        );
        assert_eq!(reader(None, &[Lang::Fr]).page_lang(None, None), Lang::En);
        // A player's own page: theirs before the browser's.
        assert_eq!(
            reader(None, &[Lang::De]).page_lang(Some(Lang::Lv), None),
            Lang::Lv
        );
        assert_eq!(
            reader(None, &[Lang::De]).page_lang(Some(Lang::Cs), None),
            Lang::De
        );
        // The switch beats everything.
        assert_eq!(
            reader(Some(Lang::Pl), &[Lang::De]).page_lang(Some(Lang::Lv), Some(Lang::Sl)),
            Lang::Pl
        );
    }

    #[test]
    fn a_moment_is_written_in_the_readers_zone_with_their_dates() {
        let at = Utc
            .with_ymd_and_hms(2026, 12, 2, 17, 5, 0)
            .single()
            .expect("a real instant");
        assert_eq!(
            describe_moment(at, Some(Europe::Ljubljana), Lang::Sl),
            "2. 12. 2026 18:05 CET"
        );
        assert_eq!(describe_moment(at, None, Lang::Lv), "02.12.2026. 17:05 UTC");
        assert_eq!(describe_moment(at, None, Lang::En), "2026-12-02 17:05 UTC");
        assert_eq!(decimal_mark(Lang::De), ',');
        assert_eq!(decimal_mark(Lang::En), '.');
    }

    #[test]
    fn time_controls_are_written_in_words_with_the_right_plural() {
        let per_move = |days| TimeControl::DaysPerMove { days };
        let iccf = |moves, days| TimeControl::Cumulative {
            moves,
            days,
            double_after: None,
            max_per_move: None,
        };
        for (control, lang, want) in [
            (per_move(1), Lang::En, "1 day per move"),
            (per_move(3), Lang::En, "3 days per move"),
            (iccf(10, 50), Lang::En, "10 moves in 50 days"),
            (per_move(1), Lang::Sl, "1 dan na potezo"),
            (per_move(2), Lang::Sl, "2 dneva na potezo"),
            (per_move(3), Lang::Sl, "3 dnevi na potezo"),
            (per_move(5), Lang::Sl, "5 dni na potezo"),
            (per_move(102), Lang::Sl, "102 dneva na potezo"),
            (iccf(10, 50), Lang::Sl, "10 potez v 50 dneh"),
            (iccf(1, 2), Lang::Sl, "1 poteza v 2 dnevih"),
            (iccf(3, 1), Lang::Sl, "3 poteze v 1 dnevu"),
            (per_move(1), Lang::Pl, "1 dzień na ruch"),
            (per_move(3), Lang::Pl, "3 dni na ruch"),
            (iccf(10, 50), Lang::Pl, "10 ruchów w ciągu 50 dni"),
            (iccf(22, 1), Lang::Pl, "22 ruchy w ciągu 1 dnia"),
            (iccf(12, 30), Lang::Pl, "12 ruchów w ciągu 30 dni"),
            (per_move(1), Lang::Lv, "1 diena katram gājienam"),
            (per_move(21), Lang::Lv, "21 diena katram gājienam"),
            (per_move(11), Lang::Lv, "11 dienas katram gājienam"),
            (iccf(10, 50), Lang::Lv, "10 gājieni 50 dienās"),
            (iccf(1, 1), Lang::Lv, "1 gājiens 1 dienā"),
            (per_move(1), Lang::De, "1 Tag pro Zug"),
            (per_move(3), Lang::De, "3 Tage pro Zug"),
            (iccf(10, 50), Lang::De, "10 Züge in 50 Tagen"),
        ] {
            assert_eq!(describe_control(&control, lang), want, "{control} {lang}");
        }
        // Rules the words leave out follow as the spec; Fischer stays a spec.
        let strict: TimeControl = "10/50d!20".parse().expect("a control");
        assert_eq!(
            describe_control(&strict, Lang::De),
            "10 Züge in 50 Tagen (10/50d!20)"
        );
        let fischer: TimeControl = "30d+3d".parse().expect("a control");
        assert_eq!(describe_control(&fischer, Lang::Sl), fischer.to_string());
    }

    #[test]
    fn the_clocks_line_says_days_left_for_every_control_in_every_language() {
        use crate::domain::clock::{GameClock, Timeline};
        let at = |d, h| {
            Utc.with_ymd_and_hms(2026, 3, d, h, 0, 0)
                .single()
                .expect("a real instant")
        };
        // White took 1 day 2 h for the first move, Black 1 day 23 h; White's
        // clock has run 1 day 6 h since.
        let timeline = Timeline::new(at(1, 12))
            .with_move(at(2, 14), None)
            .with_move(at(4, 13), None);
        let now = at(5, 19);
        for (control, lang, want) in [
            (
                "3d",
                Lang::En,
                "White 2 days used, 1 left for this move;\nBlack 1 day used",
            ),
            (
                "10/50d",
                Lang::En,
                "White 2 days used, 48 left until move 10;\nBlack 1 day used, 49 left until move 10",
            ),
            (
                "30d+1d",
                Lang::En,
                "White 2 days used, 29 left;\nBlack 1 day used, 30 left",
            ),
            (
                "3d",
                Lang::Sl,
                "beli: porabljeno dni: 2, za to potezo preostalo: 1;\nčrni: porabljeno dni: 1",
            ),
            (
                "10/50d",
                Lang::Sl,
                "beli: porabljeno dni: 2, do 10. poteze preostalo: 48;\nčrni: porabljeno dni: 1, do 10. poteze preostalo: 49",
            ),
            (
                "30d+1d",
                Lang::Sl,
                "beli: porabljeno dni: 2, preostalo: 29;\nčrni: porabljeno dni: 1, preostalo: 30",
            ),
            (
                "3d",
                Lang::Pl,
                "białe: zużyte dni: 2, na ten ruch pozostało: 1;\nczarne: zużyte dni: 1",
            ),
            (
                "10/50d",
                Lang::Pl,
                "białe: zużyte dni: 2, do 10. ruchu pozostało: 48;\nczarne: zużyte dni: 1, do 10. ruchu pozostało: 49",
            ),
            (
                "30d+1d",
                Lang::Pl,
                "białe: zużyte dni: 2, pozostało: 29;\nczarne: zużyte dni: 1, pozostało: 30",
            ),
            (
                "3d",
                Lang::Lv,
                "baltie: izlietotas dienas: 2, šim gājienam atlikušas: 1;\nmelnie: izlietotas dienas: 1",
            ),
            (
                "10/50d",
                Lang::Lv,
                "baltie: izlietotas dienas: 2, līdz 10. gājienam atlikušas: 48;\nmelnie: izlietotas dienas: 1, līdz 10. gājienam atlikušas: 49",
            ),
            (
                "30d+1d",
                Lang::Lv,
                "baltie: izlietotas dienas: 2, atlikušas: 29;\nmelnie: izlietotas dienas: 1, atlikušas: 30",
            ),
            (
                "3d",
                Lang::De,
                "Weiß: verbrauchte Tage: 2, für diesen Zug übrig: 1;\nSchwarz: verbrauchte Tage: 1",
            ),
            (
                "10/50d",
                Lang::De,
                "Weiß: verbrauchte Tage: 2, bis zum 10. Zug übrig: 48;\nSchwarz: verbrauchte Tage: 1, bis zum 10. Zug übrig: 49",
            ),
            (
                "30d+1d",
                Lang::De,
                "Weiß: verbrauchte Tage: 2, übrig: 29;\nSchwarz: verbrauchte Tage: 1, übrig: 30",
            ),
        ] {
            let control: TimeControl = control.parse().expect("a control");
            let clocks = GameClock::new(control, timeline.clone()).clocks(now);
            assert_eq!(
                describe_clocks(&clocks, control, lang),
                want,
                "{control} {lang}"
            );
        }
    }

    #[test]
    fn the_second_period_of_a_cumulative_control_ends_at_its_own_move() {
        use crate::domain::clock::{GameClock, Timeline};
        let start = Utc
            .with_ymd_and_hms(2026, 3, 1, 12, 0, 0)
            .single()
            .expect("a real instant");
        // Two moves a side in a 2/10d control, a day each: the third move
        // of each is in the second period, which ends at move 4.
        let mut timeline = Timeline::new(start);
        for day in 1..=4 {
            timeline = timeline.with_move(start + chrono::TimeDelta::days(day), None);
        }
        let control: TimeControl = "2/10d".parse().expect("a control");
        let clocks = GameClock::new(control, timeline).clocks(start + chrono::TimeDelta::days(4));
        assert_eq!(
            describe_clocks(&clocks, control, Lang::En),
            "White 2 days used, 18 left until move 4;\nBlack 2 days used, 18 left until move 4"
        );
    }

    #[test]
    fn a_deadline_shows_local_and_utc_time_with_local_dates() {
        let at = |d, h| {
            Utc.with_ymd_and_hms(2026, 12, d, h, 0, 0)
                .single()
                .expect("a real instant")
        };
        for (instant, tz, lang, want) in [
            (
                at(2, 17),
                Some(Europe::Ljubljana),
                Lang::Sl,
                "2. 12. 2026 18:00 CET (17:00 UTC)",
            ),
            (
                at(2, 17),
                Some(Europe::Warsaw),
                Lang::Pl,
                "02.12.2026 18:00 CET (17:00 UTC)",
            ),
            (
                at(2, 17),
                Some(Europe::Riga),
                Lang::Lv,
                "02.12.2026. 19:00 EET (17:00 UTC)",
            ),
            (
                at(2, 17),
                Some(Europe::Berlin),
                Lang::De,
                "02.12.2026 18:00 CET (17:00 UTC)",
            ),
            // Past midnight in Riga: the UTC date is written out too.
            (
                at(2, 23),
                Some(Europe::Riga),
                Lang::Lv,
                "03.12.2026. 01:00 EET (02.12.2026. 23:00 UTC)",
            ),
            (at(2, 17), None, Lang::De, "02.12.2026 17:00 UTC"),
            // No zone, or one at UTC's time: read once, in every language.
            (at(2, 17), None, Lang::En, "2026-12-02 17:00 UTC"),
            (at(2, 17), None, Lang::Sl, "2. 12. 2026 17:00 UTC"),
            (at(2, 17), None, Lang::Pl, "02.12.2026 17:00 UTC"),
            (at(2, 17), None, Lang::Lv, "02.12.2026. 17:00 UTC"),
            (
                at(2, 7),
                Some(Europe::London),
                Lang::En,
                "2026-12-02 07:00 UTC",
            ),
            (
                at(2, 7),
                Some(Europe::London),
                Lang::Sl,
                "2. 12. 2026 07:00 UTC",
            ),
            (
                at(2, 7),
                Some(Europe::London),
                Lang::Pl,
                "02.12.2026 07:00 UTC",
            ),
            (
                at(2, 7),
                Some(Europe::London),
                Lang::Lv,
                "02.12.2026. 07:00 UTC",
            ),
            (
                at(2, 7),
                Some(Europe::Lisbon),
                Lang::De,
                "02.12.2026 07:00 UTC",
            ),
            (
                at(2, 17),
                Some(Europe::Ljubljana),
                Lang::En,
                "2026-12-02 18:00 CET (17:00 UTC)",
            ),
        ] {
            assert_eq!(describe_deadline(instant, tz, lang), want, "{lang} {tz:?}");
        }
    }
}
