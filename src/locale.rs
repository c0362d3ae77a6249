//! Dates and deadlines as each language writes them.
//!
//! The mail templates carry the words; what the code formats before it
//! reaches a template (dates in deadlines) is written here, per language.
//! Languages without translated templates read English mails, so they get
//! the English (ISO 8601) dates too: one mail, one convention.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::clock::describe::describe_deadline_dated;
use crate::lang::Lang;

/// A calendar date as `lang` writes it: `2026-12-02` (English, ISO 8601),
/// `2. 12. 2026` (Slovenian), `02.12.2026` (Polish, German), `02.12.2026.`
/// (Latvian).
pub fn format_date(lang: Lang, date: NaiveDate) -> String {
    date_writer(lang)(date)
}

/// A deadline in the reader's time zone and UTC, with dates as `lang`
/// writes them, e.g. `2. 12. 2026 18:00 CET (17:00 UTC)`.
pub fn describe_deadline(instant: DateTime<Utc>, tz: Option<Tz>, lang: Lang) -> String {
    describe_deadline_dated(instant, tz, date_writer(lang))
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
