//! Entries by mail: who may enter an event open for entries, when its
//! entries close, and in which order the entrants are seeded. Pure: the
//! service (`service::entries`) loads what these rules look at and carries
//! out what they decide.
//!
//! An event file opens an event for entries with an `[entries]` table (see
//! [`file`](super::file)):
//!
//! ```toml
//! [entries]
//! opens = "2027-01-01"           # optional: from when (a date, or RFC 3339); default at once
//! closes = "2027-02-01T12:00:00Z" # required: when the event starts with who entered
//! min = 5                        # optional: fewest entrants to start (default 3)
//! max = 12                       # optional: most entrants (default 100)
//! start_when_full = true         # optional: start at once when max is reached
//! rating_min = 1800              # optional: the rating an entrant needs at least
//! rating_max = 2200              # optional: … at most (the unrated may enter only without limits)
//! open_to = "anyone"             # "players" (the default: registered players) or "anyone"
//! invited = ["a@example.org"]    # optional: only these addresses may enter
//! section_size = 7               # optional: an open class (see below)
//! section_bands = [1800, 2200]   # optional, with section_size: rating bands
//! promotes = { place = 1, percent = 65, to = "Higher" } # optional, with section_size
//! requires = "Higher"            # optional: entering needs that qualification
//! ```
//!
//! With `section_size`, the event is an open class, as ICCF's class groups
//! are: a standing queue that never plays itself. Each time `section_size`
//! confirmed entries wait (within one rating band, when `section_bands`
//! names the bands' lower edges: below 1800, 1800 to 2199, 2200 and up;
//! the unrated wait in the lowest), a round-robin section of them starts
//! by itself, as its own event named after the class (`Open 12/3`, its
//! third section), the first to confirm first. The others wait and are told
//! their place in the queue; `closes` is when the queue stops taking
//! entries, and whoever still waits then is told.
//!
//! Classes build on each other as ICCF's do (a Higher class group is
//! entered with a promotion from an Open class group): `promotes` says
//! what a section's result earns (a place at or above `place` after the
//! section's tie-breaks, or at least `percent` of the points the player's
//! games could give; either is enough), and `to` names the qualification.
//! It is recorded when the section's last game ends, and the player is
//! told. An event with `requires` takes an entry only from a player who
//! holds such a qualification not already held by another of their
//! entries: each qualification is good for one entry, and a withdrawn or
//! left-out entry gives it back.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Points;
use crate::domain::address::EmailAddress;

/// Fewest entrants an event starts with unless its file says more: a round
/// robin of three.
pub const DEFAULT_MIN: u32 = super::berger::MIN_ENTRANTS as u32;
/// Most entrants a round robin takes.
pub const MAX_ENTRANTS: u32 = super::berger::MAX_ENTRANTS as u32;

/// Who may enter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenTo {
    /// Registered players only (the default).
    #[default]
    Players,
    /// Anyone with an address: a stranger becomes a player when it confirms.
    Anyone,
}

impl OpenTo {
    /// The word in the event file.
    pub fn key(self) -> &'static str {
        match self {
            OpenTo::Players => "players",
            OpenTo::Anyone => "anyone",
        }
    }
}

/// An event's rules for entries (`[entries]` in its file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryRules {
    /// From when entries are taken.
    pub opens: Option<DateTime<Utc>>,
    /// When entries close and the event starts.
    pub closes: DateTime<Utc>,
    /// Fewest confirmed entries the event starts with.
    pub min: u32,
    /// Most entries taken.
    pub max: u32,
    /// Whether the event starts as soon as `max` entries are confirmed.
    #[serde(default)]
    pub start_when_full: bool,
    /// The rating an entrant needs at least.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_min: Option<i32>,
    /// The rating an entrant may have at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_max: Option<i32>,
    /// Who may enter.
    #[serde(default)]
    pub open_to: OpenTo,
    /// When not empty, only these addresses may enter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invited: Vec<EmailAddress>,
    /// An open class: a section of this many starts as soon as they wait.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_size: Option<u32>,
    /// The rating bands of an open class's sections: their lower edges,
    /// ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub section_bands: Vec<i32>,
    /// What a section's result earns (an open class only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotes: Option<Promotion>,
    /// The qualification an entrant needs, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<String>,
}

/// What a section of an open class earns (`promotes` in `[entries]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Promotion {
    /// The qualification it gives, by name (`Higher`).
    pub to: String,
    /// The places that earn it: 1 is the winner alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<u32>,
    /// The share of the points that earns it, in per cent of what the
    /// player's games could give.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<u32>,
}

impl Promotion {
    /// Whether a player's result in a finished section earns the
    /// qualification: `rank` is their place after the section's
    /// tie-breaks (a place still shared counts as the best of it, so
    /// players sharing first place after every tie-break are all first),
    /// `points` what they scored and `possible` what their games could
    /// give. Either rule is enough.
    pub fn earns(&self, rank: u32, points: Points, possible: Points) -> bool {
        let by_place = self.place.is_some_and(|p| rank >= 1 && rank <= p);
        let by_share = self.percent.is_some_and(|pc| {
            possible.quarters() > 0
                && points.quarters() * 100 >= i64::from(pc) * possible.quarters()
        });
        by_place || by_share
    }

    /// The rule in a few words, for the CLI and the web page
    /// (`first 1 place or 65% of the points → Higher`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = self.place {
            parts.push(if p == 1 {
                "first place".to_string()
            } else {
                format!("the first {p} places")
            });
        }
        if let Some(pc) = self.percent {
            parts.push(format!("{pc}% of the points"));
        }
        format!("{} → {}", parts.join(" or "), self.to)
    }
}

/// Where an entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntryStatus {
    /// Asked for; waits for the reply to its confirmation mail.
    Pending,
    /// Confirmed: counts.
    Confirmed,
    /// Withdrawn by the entrant before the start.
    Withdrawn,
    /// Refused by a TD.
    Refused,
    /// Given a seat when the event started.
    Seated,
    /// Not confirmed, or over the limit, when the event started.
    LeftOut,
}

impl EntryStatus {
    /// The word stored and printed.
    pub fn key(self) -> &'static str {
        match self {
            EntryStatus::Pending => "pending",
            EntryStatus::Confirmed => "confirmed",
            EntryStatus::Withdrawn => "withdrawn",
            EntryStatus::Refused => "refused",
            EntryStatus::Seated => "seated",
            EntryStatus::LeftOut => "left-out",
        }
    }

    /// The status a stored word names.
    pub fn from_key(key: &str) -> Option<EntryStatus> {
        [
            EntryStatus::Pending,
            EntryStatus::Confirmed,
            EntryStatus::Withdrawn,
            EntryStatus::Refused,
            EntryStatus::Seated,
            EntryStatus::LeftOut,
        ]
        .into_iter()
        .find(|s| s.key() == key)
    }

    /// Whether the entry is still live (it may be confirmed or seated).
    pub fn is_live(self) -> bool {
        matches!(self, EntryStatus::Pending | EntryStatus::Confirmed)
    }
}

/// Who asks to enter, as the rules look at them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applicant<'a> {
    /// The address.
    pub email: &'a EmailAddress,
    /// Whether the address is a registered player.
    pub registered: bool,
    /// The player's rating, if rated.
    pub rating: Option<i32>,
    /// The address's entry in this event so far, if it has one.
    pub entry: Option<EntryStatus>,
    /// How many qualifications of the name the event requires the player
    /// holds that no other entry of theirs holds (0 where none is
    /// required, or for a stranger).
    pub spare_qualifications: u32,
}

/// Why an entry is not taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum EntryRefusal {
    /// No event has that number, or it takes no entries.
    NotOpen {
        /// The number asked for.
        event: i64,
    },
    /// Entries open later.
    NotYet {
        /// When they open.
        opens: DateTime<Utc>,
    },
    /// Entries closed, or the event has started.
    Closed,
    /// The event has all the entries it takes.
    Full {
        /// How many.
        max: u32,
    },
    /// Only registered players may enter, and the address is not one.
    PlayersOnly,
    /// Only invited addresses may enter.
    NotInvited,
    /// The player's rating is outside the event's band (or they are
    /// unrated where a band is set).
    Rating {
        /// The player's rating.
        rating: Option<i32>,
        /// The band's lower end.
        min: Option<i32>,
        /// The band's upper end.
        max: Option<i32>,
    },
    /// The address has entered already (confirmed).
    AlreadyEntered,
    /// The address asked already; its confirmation mail waits for a reply.
    AlreadyAsked,
    /// The TD refused this address's entry.
    RefusedBefore,
    /// Withdrawing an entry the address does not have.
    NotEntered,
    /// The event takes only players qualified for it (a class above an
    /// open one), and the player holds no such qualification to spare.
    NeedsQualification {
        /// The qualification's name.
        name: String,
    },
}

impl<'a> EntryRules {
    /// Whether `who` may enter now, with `confirmed` entries already taken.
    pub fn may_enter(
        &self,
        who: &Applicant<'a>,
        confirmed: u32,
        now: DateTime<Utc>,
    ) -> Result<(), EntryRefusal> {
        match who.entry {
            Some(EntryStatus::Confirmed | EntryStatus::Seated) => {
                return Err(EntryRefusal::AlreadyEntered);
            }
            Some(EntryStatus::Pending) => return Err(EntryRefusal::AlreadyAsked),
            Some(EntryStatus::Refused) => return Err(EntryRefusal::RefusedBefore),
            Some(EntryStatus::Withdrawn | EntryStatus::LeftOut) | None => {}
        }
        if let Some(opens) = self.opens
            && now < opens
        {
            return Err(EntryRefusal::NotYet { opens });
        }
        if now >= self.closes {
            return Err(EntryRefusal::Closed);
        }
        if confirmed >= self.max {
            return Err(EntryRefusal::Full { max: self.max });
        }
        if !self.invited.is_empty() && !self.invited.contains(who.email) {
            return Err(EntryRefusal::NotInvited);
        }
        if !who.registered && self.open_to == OpenTo::Players {
            return Err(EntryRefusal::PlayersOnly);
        }
        if self.rating_min.is_some() || self.rating_max.is_some() {
            let inside = who.rating.is_some_and(|r| {
                self.rating_min.is_none_or(|m| r >= m) && self.rating_max.is_none_or(|m| r <= m)
            });
            if !inside {
                return Err(EntryRefusal::Rating {
                    rating: who.rating,
                    min: self.rating_min,
                    max: self.rating_max,
                });
            }
        }
        if let Some(name) = &self.requires
            && who.spare_qualifications == 0
        {
            return Err(EntryRefusal::NeedsQualification { name: name.clone() });
        }
        Ok(())
    }

    /// Whether a pending entry may still be confirmed: the same rules as
    /// entering, but the entry itself is not counted against it.
    pub fn may_confirm(
        &self,
        who: &Applicant<'a>,
        confirmed: u32,
        now: DateTime<Utc>,
    ) -> Result<(), EntryRefusal> {
        let fresh = Applicant {
            entry: None,
            ..who.clone()
        };
        self.may_enter(&fresh, confirmed, now)
    }

    /// What to do with the entries now.
    pub fn closing(&self, confirmed: u32, now: DateTime<Utc>) -> Closing {
        if self.section_size.is_some() {
            // An open class starts sections as they fill (see [`sections`]);
            // at `closes` the queue closes, whoever waits.
            return if now >= self.closes {
                Closing::QueueClosed
            } else {
                Closing::Wait
            };
        }
        let due = now >= self.closes || (self.start_when_full && confirmed >= self.max);
        if !due {
            Closing::Wait
        } else if confirmed < self.min {
            Closing::TooFew
        } else {
            Closing::Start
        }
    }
}

/// What an event open for entries does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// Entries stay open.
    Wait,
    /// Entries close and the event starts with the confirmed entries.
    Start,
    /// Entries close with fewer than `min`: nothing starts, the TD is told.
    TooFew,
    /// An open class's queue closes: whoever still waits is told.
    QueueClosed,
}

/// A confirmed entry waiting in an open class's queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued<T> {
    /// The caller's handle on the entry.
    pub who: T,
    /// The rating, if rated.
    pub rating: Option<i32>,
    /// When it was confirmed: the queue's order.
    pub confirmed_at: DateTime<Utc>,
}

/// The band a rating falls in: the number of lower edges at or below it
/// (the unrated are in band 0).
pub fn band(edges: &[i32], rating: Option<i32>) -> usize {
    rating.map_or(0, |r| edges.iter().filter(|e| **e <= r).count())
}

/// An open class's queue, sorted out: the sections to start now (each of
/// `size`, within one band, the first to confirm first) and who still
/// waits, each with their place in their band's queue (from 1).
pub fn sections<T>(
    mut queue: Vec<Queued<T>>,
    size: u32,
    edges: &[i32],
) -> (Vec<Vec<T>>, Vec<(T, u32)>) {
    queue.sort_by_key(|q| q.confirmed_at);
    let size = size.max(1) as usize;
    let mut by_band: Vec<Vec<Queued<T>>> = (0..=edges.len()).map(|_| Vec::new()).collect();
    for q in queue {
        let b = band(edges, q.rating).min(edges.len());
        by_band[b].push(q);
    }
    let mut started = Vec::new();
    let mut waiting = Vec::new();
    for mut band in by_band {
        while band.len() >= size {
            let rest = band.split_off(size);
            started.push(band.into_iter().map(|q| q.who).collect());
            band = rest;
        }
        waiting.extend(
            band.into_iter()
                .enumerate()
                .map(|(i, q)| (q.who, u32::try_from(i + 1).unwrap_or(u32::MAX))),
        );
    }
    (started, waiting)
}

/// A confirmed entry as seeding sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seedable<T> {
    /// The caller's handle on the entry.
    pub who: T,
    /// The rating, if rated.
    pub rating: Option<i32>,
    /// When it was confirmed.
    pub confirmed_at: DateTime<Utc>,
}

/// Starting order: by rating, highest first; the unrated after the rated;
/// equal ratings (and the unrated) by who confirmed first. The first
/// `max` are seated; the rest are left out (the limit is kept when
/// entering, so only a TD's additions can pass it).
pub fn seed<T>(mut entries: Vec<Seedable<T>>, max: u32) -> (Vec<T>, Vec<T>) {
    entries.sort_by(|a, b| {
        b.rating
            .is_some()
            .cmp(&a.rating.is_some())
            .then(b.rating.cmp(&a.rating))
            .then(a.confirmed_at.cmp(&b.confirmed_at))
    });
    let mut seated: Vec<T> = entries.into_iter().map(|e| e.who).collect();
    let left = seated.split_off((max as usize).min(seated.len()));
    (seated, left)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn at(day: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2027, 1, day, 12, 0, 0).unwrap()
    }

    fn rules() -> EntryRules {
        EntryRules {
            opens: Some(at(2)),
            closes: at(20),
            min: 3,
            max: 4,
            start_when_full: false,
            rating_min: None,
            rating_max: None,
            open_to: OpenTo::Players,
            invited: Vec::new(),
            section_size: None,
            section_bands: Vec::new(),
            promotes: None,
            requires: None,
        }
    }

    fn ana() -> EmailAddress {
        EmailAddress::parse("ana@example.si").unwrap()
    }

    fn player(email: &EmailAddress) -> Applicant<'_> {
        Applicant {
            email,
            registered: true,
            rating: None,
            entry: None,
            spare_qualifications: 0,
        }
    }

    #[test]
    fn a_class_that_requires_a_qualification_takes_only_who_holds_one_to_spare() {
        let a = ana();
        let r = EntryRules {
            requires: Some("Higher".into()),
            ..rules()
        };
        assert_eq!(
            r.may_enter(&player(&a), 0, at(5)),
            Err(EntryRefusal::NeedsQualification {
                name: "Higher".into()
            })
        );
        let qualified = Applicant {
            spare_qualifications: 1,
            ..player(&a)
        };
        assert_eq!(r.may_enter(&qualified, 0, at(5)), Ok(()));
        // Without `requires`, nobody needs one.
        assert_eq!(rules().may_enter(&player(&a), 0, at(5)), Ok(()));
    }

    #[test]
    fn a_section_promotes_by_place_or_by_share_of_the_points() {
        let first = Promotion {
            to: "Higher".into(),
            place: Some(1),
            percent: None,
        };
        let six = Points::whole(6);
        assert!(first.earns(1, Points::halves(7), six));
        assert!(!first.earns(2, Points::whole(5), six));
        assert!(!first.earns(0, six, six), "no place is no promotion");
        let share = Promotion {
            to: "Higher".into(),
            place: None,
            percent: Some(65),
        };
        // 65% of 6 is 3.9: 4 is enough, 3½ is not.
        assert!(share.earns(3, Points::whole(4), six));
        assert!(!share.earns(2, Points::halves(7), six));
        assert!(!share.earns(1, Points::ZERO, Points::ZERO));
        let either = Promotion {
            place: Some(1),
            ..share
        };
        assert!(either.earns(1, Points::halves(7), six));
        assert!(either.earns(4, Points::whole(4), six));
        assert_eq!(
            either.describe(),
            "first place or 65% of the points → Higher"
        );
    }

    #[test]
    fn entries_are_taken_only_between_opens_and_closes_and_up_to_max() {
        let a = ana();
        let r = rules();
        assert_eq!(r.may_enter(&player(&a), 0, at(5)), Ok(()));
        assert_eq!(
            r.may_enter(&player(&a), 0, at(1)),
            Err(EntryRefusal::NotYet { opens: at(2) })
        );
        assert_eq!(
            r.may_enter(&player(&a), 0, at(20)),
            Err(EntryRefusal::Closed)
        );
        assert_eq!(
            r.may_enter(&player(&a), 4, at(5)),
            Err(EntryRefusal::Full { max: 4 })
        );
    }

    #[test]
    fn strangers_enter_only_events_open_to_anyone() {
        let a = ana();
        let stranger = Applicant {
            registered: false,
            ..player(&a)
        };
        let mut r = rules();
        assert_eq!(
            r.may_enter(&stranger, 0, at(5)),
            Err(EntryRefusal::PlayersOnly)
        );
        r.open_to = OpenTo::Anyone;
        assert_eq!(r.may_enter(&stranger, 0, at(5)), Ok(()));
    }

    #[test]
    fn a_second_entry_a_pending_one_and_a_refused_one_are_told_apart() {
        let a = ana();
        let r = rules();
        let with = |entry| Applicant {
            entry: Some(entry),
            ..player(&a)
        };
        assert_eq!(
            r.may_enter(&with(EntryStatus::Confirmed), 0, at(5)),
            Err(EntryRefusal::AlreadyEntered)
        );
        assert_eq!(
            r.may_enter(&with(EntryStatus::Pending), 0, at(5)),
            Err(EntryRefusal::AlreadyAsked)
        );
        assert_eq!(
            r.may_enter(&with(EntryStatus::Refused), 0, at(5)),
            Err(EntryRefusal::RefusedBefore)
        );
        // Withdrawn before: may enter again.
        assert_eq!(r.may_enter(&with(EntryStatus::Withdrawn), 0, at(5)), Ok(()));
        assert_eq!(r.may_confirm(&with(EntryStatus::Pending), 0, at(5)), Ok(()));
    }

    #[test]
    fn ratings_and_invitations_limit_who_enters() {
        let a = ana();
        let mut r = rules();
        r.rating_min = Some(1800);
        let rated = |rating| Applicant {
            rating,
            ..player(&a)
        };
        assert_eq!(r.may_enter(&rated(Some(1800)), 0, at(5)), Ok(()));
        assert!(matches!(
            r.may_enter(&rated(Some(1799)), 0, at(5)),
            Err(EntryRefusal::Rating { .. })
        ));
        assert!(matches!(
            r.may_enter(&rated(None), 0, at(5)),
            Err(EntryRefusal::Rating { .. })
        ));
        r.rating_min = None;
        r.invited = vec![EmailAddress::parse("bo@example.si").unwrap()];
        assert_eq!(
            r.may_enter(&player(&a), 0, at(5)),
            Err(EntryRefusal::NotInvited)
        );
    }

    #[test]
    fn entries_close_at_closes_or_when_full_if_the_event_says_so() {
        let mut r = rules();
        assert_eq!(r.closing(4, at(10)), Closing::Wait);
        assert_eq!(r.closing(3, at(20)), Closing::Start);
        assert_eq!(r.closing(2, at(20)), Closing::TooFew);
        r.start_when_full = true;
        assert_eq!(r.closing(4, at(10)), Closing::Start);
        assert_eq!(r.closing(3, at(10)), Closing::Wait);
    }

    #[test]
    fn an_open_class_starts_a_section_each_time_enough_wait_within_a_band() {
        let q = |who, rating, day| Queued {
            who,
            rating,
            confirmed_at: at(day),
        };
        let queue = vec![
            q("a", Some(1500), 1),
            q("b", None, 2),
            q("c", Some(2300), 3),
            q("d", Some(1700), 4),
            q("e", Some(1900), 5),
            q("f", Some(1600), 6),
            q("g", Some(1200), 7),
        ];
        // No bands: two sections of three, the first to confirm first.
        let (started, waiting) = sections(queue.clone(), 3, &[]);
        assert_eq!(started, [vec!["a", "b", "c"], vec!["d", "e", "f"]]);
        assert_eq!(waiting, [("g", 1)]);
        // Bands at 1800: below (a b d f g) and above (c e).
        let (started, waiting) = sections(queue, 3, &[1800]);
        assert_eq!(started, [vec!["a", "b", "d"]]);
        assert_eq!(waiting, [("f", 1), ("g", 2), ("c", 1), ("e", 2)]);
        assert_eq!(band(&[1800, 2200], Some(2200)), 2);
        assert_eq!(band(&[1800, 2200], None), 0);
    }

    #[test]
    fn seeding_puts_the_highest_rated_first_and_the_unrated_last() {
        let e = |who, rating, day| Seedable {
            who,
            rating,
            confirmed_at: at(day),
        };
        let (seated, left) = seed(
            vec![
                e("unrated-early", None, 3),
                e("1900", Some(1900), 5),
                e("2100-late", Some(2100), 9),
                e("2100-early", Some(2100), 4),
                e("unrated-late", None, 8),
            ],
            4,
        );
        assert_eq!(seated, ["2100-early", "2100-late", "1900", "unrated-early"]);
        assert_eq!(left, ["unrated-late"]);
    }
}

/// How a tie at the qualifying line, left by the group's own tie-breaks,
/// is decided (`tie_at_line` in `[stages]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieAtLine {
    /// The higher rating goes through; the unrated last (the default).
    #[default]
    Rating,
    /// The lower starting number in the group goes through.
    StartingNumber,
}

impl TieAtLine {
    /// The word in the event file.
    pub fn key(self) -> &'static str {
        match self {
            TieAtLine::Rating => "rating",
            TieAtLine::StartingNumber => "starting-number",
        }
    }
}

/// An event played in two stages: preliminary groups, then a final of the
/// best of each (`[stages]` in its file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stages {
    /// Preliminary groups.
    pub groups: u32,
    /// Players from each group in the final.
    pub qualify: u32,
    /// How a tie at the line is decided.
    #[serde(default)]
    pub tie_at_line: TieAtLine,
    /// The groups' names, `{n}` for the group's number (the TD's words;
    /// default `<event> group {n}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    /// The final's name (default `<event> final`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_name: Option<String>,
}

impl Stages {
    /// The name of group `n` of the event `event`.
    pub fn group(&self, event: &str, n: u32) -> String {
        match &self.group_name {
            Some(pattern) => pattern.replace("{n}", &n.to_string()),
            None => format!("{event} group {n}"),
        }
    }

    /// The name of the final of the event `event`.
    pub fn final_of(&self, event: &str) -> String {
        self.final_name
            .clone()
            .unwrap_or_else(|| format!("{event} final"))
    }
}

/// A player's line in a finished group, as qualifying sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupLine<T> {
    /// The caller's handle.
    pub who: T,
    /// Rank from 1, and the last rank of the tie it shares.
    pub rank: (u32, u32),
    /// The rating, if rated.
    pub rating: Option<i32>,
    /// The starting number in the group.
    pub number: u32,
}

/// Who of a finished group goes to the final: the first `qualify` by the
/// group's own ranking; where a tie spans the line, the file's rule
/// decides among the tied (then the starting number). Returns them best first.
pub fn qualifiers<T: Clone>(mut lines: Vec<GroupLine<T>>, qualify: u32, rule: TieAtLine) -> Vec<T> {
    lines.sort_by(|a, b| {
        a.rank.0.cmp(&b.rank.0).then_with(|| match rule {
            TieAtLine::Rating => b
                .rating
                .is_some()
                .cmp(&a.rating.is_some())
                .then(b.rating.cmp(&a.rating))
                .then(a.number.cmp(&b.number)),
            TieAtLine::StartingNumber => a.number.cmp(&b.number),
        })
    });
    lines
        .into_iter()
        .take(qualify as usize)
        .map(|l| l.who)
        .collect()
}

/// Players split into `groups` preliminary groups by the snake, as
/// federations seed them: by rating, highest first, the first to group 1,
/// …, the `groups`-th to the last group, then back.
pub fn snake<T>(seeded: Vec<T>, groups: u32) -> Vec<Vec<T>> {
    let g = groups.max(1) as usize;
    let mut out: Vec<Vec<T>> = (0..g).map(|_| Vec::new()).collect();
    for (i, who) in seeded.into_iter().enumerate() {
        let lap = i / g;
        let at = if lap.is_multiple_of(2) {
            i % g
        } else {
            g - 1 - i % g
        };
        out[at].push(who);
    }
    out
}

#[cfg(test)]
mod stage_tests {
    use super::*;

    #[test]
    fn the_snake_spreads_the_seeds_over_the_groups() {
        let groups = snake((1..=7).collect(), 3);
        assert_eq!(groups, [vec![1, 6, 7], vec![2, 5], vec![3, 4]]);
    }

    #[test]
    fn a_tie_at_the_line_is_decided_by_the_files_rule() {
        let line = |who, rank, rating, number| GroupLine {
            who,
            rank,
            rating,
            number,
        };
        let lines = vec![
            line("first", (1, 1), Some(1900), 3),
            line("tied-low", (2, 3), Some(1800), 1),
            line("tied-high", (2, 3), Some(2000), 2),
            line("last", (4, 4), Some(2400), 4),
        ];
        assert_eq!(
            qualifiers(lines.clone(), 2, TieAtLine::Rating),
            ["first", "tied-high"]
        );
        assert_eq!(
            qualifiers(lines, 2, TieAtLine::StartingNumber),
            ["first", "tied-low"]
        );
    }
}
