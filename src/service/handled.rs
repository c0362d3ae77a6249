//! What became of a mail: typed, so that the daemon's metrics and the tests
//! match on why, not on words; rendered as text (`Display`) for the log
//! line and the inbound record, in the words those always had.

use std::fmt;

use chrono::{DateTime, NaiveDate, Utc};
use shakmaty::Color;

use crate::adapter::mail::inbound::Automatic;
use crate::adapter::mail::stale::MovePoint;
use crate::domain::arbiter::Reason;
use crate::domain::ids::{EventId, GameId};
use crate::domain::lang::Lang;

/// What became of a mail, for logs, metrics and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// Seen before: did nothing.
    Duplicate,
    /// Not acted on and not answered, by rule: why.
    Ignored(Ignored),
    /// Acted on or answered: what was done.
    Done(Done),
}

/// Why a mail was neither acted on nor answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignored {
    /// A `dopis doctor` probe.
    Probe,
    /// No usable sender (what the reader said).
    Unreadable(String),
    /// One of our own mails sent back (it carries our X-Loop).
    OurLoop,
    /// A machine's mail (RFC 3834): never answered.
    Automatic(Automatic),
    /// A bounce, counted against the addresses it names (`None`: it names
    /// none that could be read).
    Bounce(Option<Vec<BounceNote>>),
    /// Its answer would go over the hourly limit of answers to the address.
    OverAnswerLimit(Limited),
    /// Entries from addresses that are no players, over their hourly limit.
    StrangerEntries {
        /// From this address in the last hour.
        mine: u64,
        /// The address.
        from: String,
        /// From all such addresses.
        everyone: u64,
    },
    /// A reply to an entry's address with a wrong token.
    EntryWrongToken,
    /// A reply to an entry that does not exist.
    NoSuchEntry,
    /// A reply to someone else's entry.
    NotTheirEntry {
        /// The entry's address.
        entry: String,
        /// Who wrote.
        from: String,
    },
    /// No aligned DKIM pass, from an address that is no player's.
    Unsigned {
        /// The sender.
        from: String,
    },
    /// A reply to a confirmation that does not exist.
    UnknownConfirmation,
    /// A reply to a confirmation used already.
    ConfirmationUsed,
    /// Refused, with nobody registered to tell.
    NobodyToTell {
        /// Why it was refused.
        why: Reason,
        /// The same, in a few words.
        log: String,
    },
    /// The sender does not play in the game.
    NotAPlayer,
    /// Too large to read, and from no one to tell (what went over).
    TooLarge(String),
    /// Too large to read, and its refusal could not be recorded.
    TooLargeUnrecorded {
        /// Its size in bytes.
        size: u64,
    },
    /// A consultation member's vote that plays no move.
    VoteUnplayable,
    /// A mail to an event's report address from someone not its TD.
    NotTheTd {
        /// The event.
        event: EventId,
        /// Who wrote.
        from: String,
    },
    /// A TD wrote to the report address without asking for the report.
    NoReportAsked {
        /// The TD.
        from: String,
    },
}

/// Which mail the hourly answer limit held back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    /// Any mail that would be answered.
    Answer,
    /// A copy of an earlier mail.
    Repeated,
    /// A reply to an earlier position.
    Stale,
    /// A mail with entry commands.
    Entry,
    /// A reply to an entry's address.
    EntryReply,
    /// A mail asking for half-point byes.
    Bye,
}

/// What a bounce did to one address it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BounceNote {
    /// It returns no mail we sent there: not counted.
    NotCounted {
        /// The address.
        address: String,
    },
    /// Counted, below the limit that pauses the player.
    Counted {
        /// The address.
        address: String,
        /// Bounces counted in the period.
        count: i64,
        /// The limit.
        of: u32,
        /// The period in days.
        days: u32,
    },
    /// Counted; the player was paused already.
    PausedAlready {
        /// The address.
        address: String,
    },
    /// The player is paused now, their TDs told.
    Paused {
        /// The address.
        address: String,
        /// Why, in words.
        reason: String,
        /// How many TDs were told.
        tds: usize,
    },
    /// The bounce names none of our players.
    NamesNoPlayer,
}

/// What was done with a mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Done {
    /// The arbiter's ruling on its commands, carried out.
    Ruled(Ruled),
    /// The player was asked to confirm: a mail without the reply token, or
    /// written for an earlier position (`stale`: the move it answers, the
    /// move the game is at).
    AskedToConfirm {
        /// The player.
        to: String,
        /// For a stale reply: the move it answers and the game's move now.
        stale: Option<(MovePoint, MovePoint)>,
    },
    /// Refused, and the sender told why.
    Refused(Refused),
    /// A copy of a mail that came before: not carried out again.
    Repeated {
        /// When the first came.
        first: DateTime<Utc>,
    },
    /// A consultation member's vote, counted.
    VoteCounted {
        /// The move voted for.
        san: String,
        /// Votes cast so far.
        voted: usize,
        /// Members of the side.
        members: usize,
    },
    /// A consultation member's vote, refused (the arbiter's words).
    VoteRefused(String),
    /// A reply to a daily digest, line by line.
    Digest(Vec<DigestLine>),
    /// Entry commands heard (their account, in words).
    Entries(String),
    /// Half-point byes asked for in Swiss events (their account, in words).
    SwissByes(String),
    /// The deadline report mailed to a TD who asked.
    ReportSent {
        /// The event.
        event: EventId,
        /// The TD.
        to: String,
    },
    /// A TD told how to ask for the report.
    ToldHowToAsk {
        /// The TD.
        td: String,
    },
    /// A TD's mail to the report address with a wrong token: told how to ask.
    WrongReportToken {
        /// The TD.
        td: String,
    },
}

/// Why a mail was refused (its sender told).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Routing refused it: why, and the same in a few words.
    Route {
        /// Why.
        why: Reason,
        /// The same, in a few words.
        log: String,
    },
    /// No aligned DKIM pass (when required).
    Unsigned,
    /// A consultation member who is not the captain said what only the
    /// captain says.
    NotCaptain {
        /// The member.
        member: String,
    },
    /// A vote when it is not the side's move.
    VoteOutOfTurn,
    /// Too large to read (what went over); its sender told.
    TooLarge {
        /// What went over, in words.
        excess: String,
        /// Who was told.
        told: String,
    },
}

/// One line of a reply to a daily digest, as carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestLine {
    /// A line for a game: what became of it.
    Game {
        /// The game.
        game: GameId,
        /// What became of the line.
        outcome: Handled,
    },
    /// `notify digest` (true) or `notify each`.
    Notify(bool),
    /// Lines that named no game of the player's.
    Unnamed(usize),
}

/// What the arbiter's ruling did, step by step, as carried out; `summary`
/// is the arbiter's own account (the log's words).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ruled {
    /// The arbiter's account of it all.
    pub summary: String,
    /// The moves the mail made in its game, in English SAN (a conditional
    /// reply it set off included).
    pub played: Vec<String>,
    /// Whether a command was turned down (told why).
    pub rejected: bool,
    /// Leave booked: first and last day.
    pub leave_booked: Vec<(NaiveDate, NaiveDate)>,
    /// Leave refused: first and last day asked for.
    pub leave_refused: Vec<(NaiveDate, NaiveDate)>,
    /// The language chosen.
    pub lang: Option<Lang>,
    /// The notification chosen: the daily digest (true) or each mail.
    pub digest: Option<bool>,
    /// The side whose time had run out before the mail came.
    pub out_of_time: Option<Color>,
}

impl Ruled {
    /// The first move the mail made, if any.
    pub fn first_move(&self) -> Option<&str> {
        self.played.first().map(String::as_str)
    }
}

impl fmt::Display for Handled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Handled::Duplicate => f.write_str("duplicate"),
            Handled::Ignored(why) => write!(f, "ignored: {why}"),
            Handled::Done(done) => done.fmt(f),
        }
    }
}

impl fmt::Display for Ignored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ignored::Probe => f.write_str("a dopis doctor probe"),
            Ignored::Unreadable(e) => write!(f, "unreadable mail ({e})"),
            Ignored::OurLoop => f.write_str("it carries our own X-Loop (a mail loop)"),
            Ignored::Automatic(auto) => write!(f, "{auto:?}"),
            Ignored::Bounce(None) => f.write_str("bounce"),
            Ignored::Bounce(Some(notes)) => {
                f.write_str("bounce")?;
                for note in notes {
                    write!(f, "; {note}")?;
                }
                Ok(())
            }
            Ignored::OverAnswerLimit(limited) => f.write_str(match limited {
                Limited::Answer => "answer rate limit",
                Limited::Repeated => "a repeated mail (answer rate limit)",
                Limited::Stale => "a stale reply (answer rate limit)",
                Limited::Entry => "an entry mail over the answer rate limit",
                Limited::EntryReply => "an entry reply over the answer rate limit",
                Limited::Bye => "a bye mail over the answer rate limit",
            }),
            Ignored::StrangerEntries {
                mine,
                from,
                everyone,
            } => write!(
                f,
                "entries by addresses that are no players over the hourly limit ({mine} from \
                 {from}, {everyone} in all)"
            ),
            Ignored::EntryWrongToken => f.write_str("an entry reply with a wrong token"),
            Ignored::NoSuchEntry => f.write_str("no such entry"),
            Ignored::NotTheirEntry { entry, from } => {
                write!(f, "a reply to {entry}'s entry from {from}")
            }
            Ignored::Unsigned { from } => write!(f, "no DKIM pass from {from}"),
            Ignored::UnknownConfirmation => f.write_str("unknown confirmation"),
            Ignored::ConfirmationUsed => f.write_str("confirmation already used"),
            Ignored::NobodyToTell { log, .. } => f.write_str(log),
            Ignored::NotAPlayer => f.write_str("not a player of the game"),
            Ignored::TooLarge(excess) => write!(f, "the mail is not read: {excess}"),
            Ignored::TooLargeUnrecorded { size } => write!(f, "mail of {size} bytes is too large"),
            Ignored::VoteUnplayable => f.write_str("a vote that plays nothing"),
            Ignored::NotTheTd { event, from } => write!(
                f,
                "mail to the report address of event {event} from {from}, not its TD"
            ),
            Ignored::NoReportAsked { from } => {
                write!(f, "TD {from} wrote to the report address without `report`")
            }
        }
    }
}

impl fmt::Display for BounceNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BounceNote::NotCounted { address } => write!(
                f,
                "not counted for {address}: it returns no mail we sent there"
            ),
            BounceNote::Counted {
                address,
                count,
                of,
                days,
            } => write!(f, "{address} bounced ({count} of {of} in {days} days)"),
            BounceNote::PausedAlready { address } => {
                write!(f, "{address} bounced (paused already)")
            }
            BounceNote::Paused {
                address,
                reason,
                tds,
            } => write!(f, "paused {address}: {reason}; told {tds} TD(s)"),
            BounceNote::NamesNoPlayer => f.write_str("names none of our players"),
        }
    }
}

impl fmt::Display for Done {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Done::Ruled(ruled) => f.write_str(&ruled.summary),
            Done::AskedToConfirm { to, stale: None } => write!(f, "asked {to} to confirm"),
            Done::AskedToConfirm {
                to,
                stale: Some((answered, current)),
            } => write!(
                f,
                "asked {to} to confirm: the mail answers move {answered}, the game is at move \
                 {current}"
            ),
            Done::Refused(refused) => write!(f, "refused: {refused}"),
            Done::Repeated { first } => write!(
                f,
                "not carried out again: the same mail first came at {first}"
            ),
            Done::VoteCounted {
                san,
                voted,
                members,
            } => write!(f, "vote for {san} counted ({voted} of {members})"),
            Done::VoteRefused(summary) => write!(f, "vote refused: {summary}"),
            Done::Digest(lines) => {
                for (i, line) in lines.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    match line {
                        DigestLine::Game { game, outcome } => write!(f, "#{}: {outcome}", game.0)?,
                        DigestLine::Notify(digest) => write!(f, "{}", notify_words(*digest))?,
                        DigestLine::Unnamed(n) => {
                            write!(f, "{n} line(s) named no game of theirs")?;
                        }
                    }
                }
                Ok(())
            }
            Done::Entries(said) | Done::SwissByes(said) => f.write_str(said),
            Done::ReportSent { event, to } => {
                write!(f, "sent the deadline report of event {event} to {to}")
            }
            Done::ToldHowToAsk { td } => write!(f, "told TD {td} how to ask for the report"),
            Done::WrongReportToken { td } => {
                write!(f, "wrong report token from TD {td}: told how to ask")
            }
        }
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refused::Route { log, .. } => f.write_str(log),
            Refused::Unsigned => f.write_str("no DKIM pass"),
            Refused::NotCaptain { member } => write!(f, "{member} is a member, not the captain"),
            Refused::VoteOutOfTurn => f.write_str("a vote out of turn"),
            Refused::TooLarge { excess, told } => {
                write!(f, "the mail is not read: {excess}; told {told}")
            }
        }
    }
}

/// `notify digest` or `notify each`, as the log says it.
fn notify_words(digest: bool) -> &'static str {
    if digest {
        "notify digest"
    } else {
        "notify each"
    }
}
