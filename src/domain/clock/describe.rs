//! Deadlines as players read them: in their own time zone, and in UTC.

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

/// A deadline for a mail, e.g. `2026-12-02 18:00 CET (17:00 UTC)`.
///
/// The UTC date is repeated only when it differs from the local one. Without
/// a time zone, or where the local time is UTC's, UTC alone. Seconds are cut, never rounded up, so the time a
/// player reads is never later than the real deadline.
pub fn describe_deadline(instant: DateTime<Utc>, tz: Option<Tz>) -> String {
    describe_deadline_dated(instant, tz, iso_date)
}

/// [`describe_deadline`] with the dates written by `date`, so that a reader
/// sees them as their language writes them (`2. 12. 2026 18:00 CET`); the
/// times stay 24-hour `HH:MM`, which every locale here reads.
pub fn describe_deadline_dated(
    instant: DateTime<Utc>,
    tz: Option<Tz>,
    date: fn(NaiveDate) -> String,
) -> String {
    let utc = format!(
        "{} {} UTC",
        date(instant.date_naive()),
        instant.format("%H:%M")
    );
    let Some(tz) = tz else {
        return utc;
    };
    let local = instant.with_timezone(&tz);
    // At UTC's own time (London, Lisbon and Reykjavik in winter, Etc/GMT)
    // "17:00 GMT (17:00 UTC)" says one time twice: UTC alone, as for a
    // player without a time zone.
    if local.naive_local() == instant.naive_utc() {
        return utc;
    }
    let zone = local.format("%Z").to_string();
    // Zones without a common abbreviation show an offset such as "-03".
    let zone = if zone.starts_with(['+', '-']) {
        format!("UTC{zone}")
    } else {
        zone
    };
    let utc_part = if local.date_naive() == instant.date_naive() {
        instant.format("%H:%M UTC").to_string()
    } else {
        utc
    };
    format!(
        "{} {} {zone} ({utc_part})",
        date(local.date_naive()),
        local.format("%H:%M")
    )
}

/// `2026-12-02`: ISO 8601, the default.
fn iso_date(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::clock::{GameClock, Timeline};
    use chrono::NaiveDateTime;
    use chrono_tz::{America, Asia, Europe};

    fn at(text: &str) -> DateTime<Utc> {
        NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
            .unwrap()
            .and_utc()
    }

    #[test]
    fn deadlines_show_local_time_and_utc() {
        for (instant, tz, text) in [
            (
                "2026-12-02 17:00:00",
                Some(Europe::Ljubljana),
                "2026-12-02 18:00 CET (17:00 UTC)",
            ),
            (
                "2026-07-01 16:00:00",
                Some(Europe::Warsaw),
                "2026-07-01 18:00 CEST (16:00 UTC)",
            ),
            (
                "2026-07-01 16:00:00",
                Some(Europe::Riga),
                "2026-07-01 19:00 EEST (16:00 UTC)",
            ),
            (
                "2026-12-02 17:00:00",
                Some(America::New_York),
                "2026-12-02 12:00 EST (17:00 UTC)",
            ),
            // Another local day: the UTC date is spelled out too.
            (
                "2026-12-02 17:00:00",
                Some(Asia::Tokyo),
                "2026-12-03 02:00 JST (2026-12-02 17:00 UTC)",
            ),
            (
                "2026-12-02 17:00:00",
                Some(America::Sao_Paulo),
                "2026-12-02 14:00 UTC-03 (17:00 UTC)",
            ),
            // Where local time is UTC, it is written once.
            (
                "2026-12-02 17:00:00",
                Some(Europe::London),
                "2026-12-02 17:00 UTC",
            ),
            (
                "2026-07-01 16:00:00",
                Some(Europe::London),
                "2026-07-01 17:00 BST (16:00 UTC)",
            ),
            (
                "2026-12-02 17:00:00",
                Some(chrono_tz::Atlantic::Reykjavik),
                "2026-12-02 17:00 UTC",
            ),
            (
                "2026-12-02 17:00:00",
                Some(chrono_tz::Africa::Abidjan),
                "2026-12-02 17:00 UTC",
            ),
            (
                "2026-12-02 17:00:00",
                Some(chrono_tz::Etc::GMT),
                "2026-12-02 17:00 UTC",
            ),
            (
                "2026-12-02 17:00:00",
                Some(chrono_tz::UTC),
                "2026-12-02 17:00 UTC",
            ),
            ("2026-12-02 17:00:00", None, "2026-12-02 17:00 UTC"),
            // Seconds are cut, not rounded up.
            ("2026-12-02 17:59:59", None, "2026-12-02 17:59 UTC"),
        ] {
            assert_eq!(describe_deadline(at(instant), tz), text, "{instant} {tz:?}");
        }
    }

    #[test]
    fn a_deadline_across_the_dst_change_shows_the_new_local_time() {
        // 3d: 72 h of UTC after the move reached the player. Across the
        // European change the local hour moves with the offset.
        for (reached, deadline) in [
            // Sat 28 Mar 13:00 CET (12:00 UTC) -> Tue 31 Mar 12:00 UTC = 14:00 CEST.
            ("2026-03-28 12:00:00", "2026-03-31 14:00 CEST (12:00 UTC)"),
            // Sat 24 Oct 14:00 CEST (12:00 UTC) -> Tue 27 Oct 12:00 UTC = 13:00 CET.
            ("2026-10-24 12:00:00", "2026-10-27 13:00 CET (12:00 UTC)"),
            // 23:30 UTC on the Saturday before the change: the deadline, Tuesday
            // 23:30 UTC, is already Wednesday 01:30 in Ljubljana.
            (
                "2026-03-28 23:30:00",
                "2026-04-01 01:30 CEST (2026-03-31 23:30 UTC)",
            ),
        ] {
            let clock = GameClock::new("3d".parse().unwrap(), Timeline::new(at(reached)));
            let due = clock
                .clocks(at(reached))
                .players
                .white
                .next_deadline
                .unwrap();
            assert_eq!(
                describe_deadline(due, Some(Europe::Ljubljana)),
                deadline,
                "{reached}"
            );
        }
    }
}
