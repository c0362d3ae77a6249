//! Entries by mail, carried out: a TD opens an event for entries (`dopis
//! event open FILE`), players (and, where the event says `open_to =
//! "anyone"`, addresses not yet registered) enter by mail, confirm by a
//! reply, may withdraw; a TD adds or refuses entries; and when entries
//! close the daemon starts the event with the confirmed entries, seeded by
//! rating, or tells the TDs there were too few. The rules are the pure
//! [`crate::domain::event::entries`]'s.
//!
//! A `From:` can be forged, so nothing an unsigned mail asks is done on its
//! word: an entry, and a withdrawal, count only when the address answers
//! the mail we sent it (its reply address `e<entry>.<token>` carries a
//! token only that mail had). A stranger is registered only when it
//! confirms (double opt-in), is sent one confirmation mail per event and
//! no more until it confirms, and strangers' entries are limited per
//! address and per hour, so a forger cannot make us mail a third party
//! over and over.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::inbox::{Inbox, Words};
use super::post::{Answering, Outgoing, Post};
use super::td::{StoredEvent, TdError};
use super::{Done, Handled, Ignored, Limited};
use crate::adapter::mail::compose::{EntryNews, LetterKind, OpenEvent};
use crate::adapter::mail::inbound::InboundMail;
use crate::adapter::store::entries::{EntryRecord, NewEntry, hour_before};
use crate::adapter::store::td_log::NewTdAction;
use crate::adapter::store::{Store, StoreError, Tx};
use crate::domain::address::EmailAddress;
use crate::domain::command::{self, Command};
use crate::domain::event::entries::{
    Applicant, Closing, EntryRefusal, EntryRules, EntryStatus, Queued, Seedable, sections, seed,
};
use crate::domain::ids::EventId;
use crate::domain::lang::Lang;
use crate::domain::player::{NewPlayer, Player, PlayerId};

/// Entries asked for by one address that is no player, per hour.
pub const STRANGER_ENTRIES_PER_ADDRESS_HOUR: u64 = 3;
/// Entries asked for by all addresses that are no players, per hour.
pub const STRANGER_ENTRIES_PER_HOUR: u64 = 60;
/// Entry commands read from one mail; more are chat.
const MAX_ENTRY_COMMANDS: usize = 5;

fn is_entry_command(c: &Command) -> bool {
    matches!(
        c,
        Command::Entries
            | Command::Enter { .. }
            | Command::WithdrawEntry { .. }
            | Command::Announcements(_)
    )
}

/// Someone mails may be addressed to: a player, or an address that is
/// none yet (its id is 0; nothing is stored under it).
fn addressee(email: &EmailAddress, name: &str, lang: Lang) -> Player {
    Player {
        id: PlayerId(0),
        email: email.clone(),
        name: name.to_string(),
        lang,
        tz: None,
    }
}

/// The language of a stranger's mail: the first whose words read an entry
/// command in it that English's do not (every language also reads English).
fn language_of(text: &str) -> Lang {
    let reads = |lang| {
        command::parse(text, lang)
            .commands
            .iter()
            .any(is_entry_command)
    };
    if reads(Lang::En) {
        return Lang::En;
    }
    Lang::ALL
        .into_iter()
        .find(|l| *l != Lang::En && reads(*l))
        .unwrap_or(Lang::En)
}

/// A name for a stranger: its mail's display name, or the address.
fn stranger_name(mail: &InboundMail) -> String {
    mail.from_name
        .as_deref()
        .map(|n| {
            n.chars()
                .filter(|c| !c.is_control() && !is_invisible_format(*c))
                .collect::<String>()
        })
        .map(|n| n.trim().chars().take(80).collect::<String>())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| mail.from.local_part().to_string())
}

/// The invisible formatting characters a display name may carry: the
/// bidirectional overrides and isolates (U+202E turns "Ann" around on the
/// event page and in every opponent's mail), zero-width ones and the BOM.
/// A name is shown to others, so only what it visibly says is kept.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// The event open for entries with that number, loaded, with its rules.
async fn taking_entries(
    tx: &mut Tx,
    number: i64,
) -> Result<Option<(StoredEvent, EntryRules)>, StoreError> {
    if number <= 0 || !tx.entries_open(EventId(number)).await? {
        return Ok(None);
    }
    let ev = match StoredEvent::load(tx, EventId(number)).await {
        Ok(ev) => ev,
        Err(TdError::Store(e)) => return Err(e),
        Err(_) => return Ok(None),
    };
    Ok(ev.event.entries.clone().map(|rules| (ev, rules)))
}

/// Entries that count: confirmed ones and the players the file seated.
async fn taken(tx: &mut Tx, ev: &StoredEvent) -> Result<u32, StoreError> {
    let confirmed = tx
        .entries(ev.record.id)
        .await?
        .iter()
        .filter(|e| e.status == EntryStatus::Confirmed)
        .count();
    let seated = ev.entrants.iter().filter(|e| e.seat.is_some()).count();
    Ok(u32::try_from(confirmed + seated).unwrap_or(u32::MAX))
}

/// An event as mails about entries show it to `to`.
fn shown(ev: &StoredEvent, rules: &EntryRules, entered: u32, to: &Player) -> OpenEvent {
    OpenEvent {
        id: ev.record.id.0,
        name: ev.record.name.clone(),
        time_control: crate::domain::locale::describe_control(&ev.event.time_control, to.lang),
        closes: crate::domain::locale::describe_deadline(rules.closes, to.tz, to.lang),
        entered,
        min: rules.min,
        max: rules.max,
        start_when_full: rules.start_when_full,
        anyone: rules.open_to == crate::domain::event::entries::OpenTo::Anyone,
        rating: match (rules.rating_min, rules.rating_max) {
            (None, None) => None,
            (Some(lo), None) => Some(format!("≥ {lo}")),
            (None, Some(hi)) => Some(format!("≤ {hi}")),
            (Some(lo), Some(hi)) => Some(format!("{lo}–{hi}")),
        },
    }
}

/// The key and the detail of a refusal, as the templates read them.
fn refusal_words(why: &EntryRefusal, to: &Player) -> (&'static str, Option<String>) {
    match why {
        EntryRefusal::NotOpen { .. } => ("not-open", None),
        EntryRefusal::NotYet { opens } => (
            "not-yet",
            Some(crate::domain::locale::describe_deadline(
                *opens, to.tz, to.lang,
            )),
        ),
        EntryRefusal::Closed => ("closed", None),
        EntryRefusal::Full { max } => ("full", Some(max.to_string())),
        EntryRefusal::PlayersOnly => ("players-only", None),
        EntryRefusal::NotInvited => ("not-invited", None),
        EntryRefusal::Rating { rating, .. } => ("rating", rating.map(|r| r.to_string())),
        EntryRefusal::AlreadyEntered => ("already-entered", None),
        EntryRefusal::AlreadyAsked => ("already-asked", None),
        EntryRefusal::RefusedBefore => ("refused-before", None),
        EntryRefusal::NotEntered => ("not-entered", None),
        EntryRefusal::NeedsQualification { name } => ("needs-qualification", Some(name.clone())),
    }
}

/// Queues one mail about entries.
#[allow(clippy::too_many_arguments)]
async fn send(
    tx: &mut Tx,
    post: &Post,
    key: String,
    news: EntryNews,
    to: &Player,
    answering: Option<&Answering<'_>>,
    reply_to: Option<EmailAddress>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    post.queue(
        tx,
        Outgoing::new(key, LetterKind::Entry { news }, to)
            .answering(answering)
            .reply_to(reply_to),
        now,
    )
    .await
}

impl Inbox {
    /// Hears the entry commands of a mail (`entries`, `enter 12`,
    /// `withdraw entry 12`, `notify announcements`) from a player or, where
    /// `sender` is `None`, from an address that is none: `None` when the
    /// mail has none, and is for the rest of the inbox.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn hear_entries(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        sender: Option<&Player>,
        in_game: bool,
        words: &mut Words<'_>,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<Handled>, ServiceError> {
        let lang = sender.map_or_else(|| language_of(&mail.text), |p| p.lang);
        let said = words.in_lang(lang).to_vec();
        // `enter` without a usable number, in a mail to no game: answered
        // about entries (a reply to a game mail goes on to the game, which
        // answers a line it does not understand as it always has).
        let without_number = match said.first() {
            Some(Command::Unknown { text })
                if !in_game && command::is_entry_without_number(text, lang) =>
            {
                Some(text.clone())
            }
            _ => None,
        };
        let commands: Vec<Command> = said
            .into_iter()
            .filter(is_entry_command)
            .take(MAX_ENTRY_COMMANDS)
            .collect();
        if commands.is_empty() && without_number.is_none() {
            return Ok(None);
        }
        let stranger = match sender {
            Some(_) => None,
            None => Some(addressee(&mail.from, &stranger_name(mail), lang)),
        };
        let me = sender.or(stranger.as_ref()).expect("one of the two");
        if !self.post.may_answer(tx, mail.from.as_str(), now).await? {
            return Ok(Some(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::Entry,
            ))));
        }
        if stranger.is_some() {
            let (mine, everyone) = tx
                .stranger_entries_since(mail.from.as_str(), hour_before(now))
                .await?;
            if mine >= STRANGER_ENTRIES_PER_ADDRESS_HOUR || everyone >= STRANGER_ENTRIES_PER_HOUR {
                return Ok(Some(Handled::Ignored(Ignored::StrangerEntries {
                    mine,
                    from: mail.from.to_string(),
                    everyone,
                })));
            }
        }
        if let Some(wrote) = without_number {
            let news = EntryNews::Refused {
                number: 0,
                event: None,
                why: "no-number",
                detail: Some(wrote),
            };
            let key = answering.key("entry.0");
            send(tx, &self.post, key, news, me, Some(answering), None, now).await?;
            return Ok(Some(Handled::Done(Done::Entries(
                "refused an entry command without an event number".into(),
            ))));
        }
        let mut said = Vec::new();
        for (i, c) in commands.iter().enumerate() {
            let key = answering.key(&format!("entry.{i}"));
            let done = match c {
                Command::Entries => self.list(tx, me, key, answering, now).await?,
                Command::Announcements(on) => match sender {
                    Some(p) => {
                        tx.set_player_announcements(p.id, *on).await?;
                        let news = EntryNews::Announcements { on: *on };
                        send(tx, &self.post, key, news, p, Some(answering), None, now).await?;
                        format!("announcements {}", if *on { "on" } else { "off" })
                    }
                    None => "ignored announcements from an address that is no player".into(),
                },
                Command::Enter { event } => {
                    self.enter(tx, mail, me, sender.is_none(), *event, key, answering, now)
                        .await?
                }
                Command::WithdrawEntry { event } => {
                    self.ask_withdraw(tx, me, *event, key, answering, now)
                        .await?
                }
                _ => continue,
            };
            said.push(done);
        }
        Ok(Some(Handled::Done(Done::Entries(said.join("; ")))))
    }

    /// `entries`: the events open for entries now.
    async fn list(
        &self,
        tx: &mut Tx,
        me: &Player,
        key: String,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<String, ServiceError> {
        let mut events = Vec::new();
        for id in tx.events_taking_entries().await? {
            if let Some((ev, rules)) = taking_entries(tx, id.0).await?
                && rules.opens.is_none_or(|o| o <= now)
                && now < rules.closes
            {
                let entered = taken(tx, &ev).await?;
                events.push(shown(&ev, &rules, entered, me));
            }
        }
        let n = events.len();
        send(
            tx,
            &self.post,
            key,
            EntryNews::Open { events },
            me,
            Some(answering),
            None,
            now,
        )
        .await?;
        Ok(format!("listed {n} events open for entries"))
    }

    /// `enter N`: asks the address to confirm by a reply, or says why not.
    #[allow(clippy::too_many_arguments)]
    async fn enter(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        me: &Player,
        stranger: bool,
        number: i64,
        key: String,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<String, ServiceError> {
        let Some((ev, rules)) = taking_entries(tx, number).await? else {
            let why = if number > 0
                && tx.event(EventId(number)).await.is_ok()
                && tx.entries_of_event_closed(EventId(number)).await?
            {
                EntryRefusal::Closed
            } else {
                EntryRefusal::NotOpen { event: number }
            };
            return self
                .refuse(tx, me, number, None, &why, key, answering, now)
                .await;
        };
        let entry = tx.entry_of(ev.record.id, me.email.as_str()).await?;
        let rating = if stranger {
            None
        } else {
            tx.ratings_of(&[me.id]).await?.get(&me.id).copied()
        };
        let spare_qualifications = match &rules.requires {
            Some(name) if !stranger => tx.spare_qualifications(me.id, name, ev.record.id).await?,
            _ => 0,
        };
        let who = Applicant {
            email: &me.email,
            registered: !stranger,
            rating,
            entry: entry.as_ref().map(|e| e.status),
            spare_qualifications,
        };
        // A player the file seated has entered already.
        let seated = !stranger && ev.seat_of(me.id).is_some();
        let entered = taken(tx, &ev).await?;
        let verdict = if seated {
            Err(EntryRefusal::AlreadyEntered)
        } else {
            rules.may_enter(&who, entered, now)
        };
        match verdict {
            // A stranger is mailed once until it confirms: asking again
            // (or a forger asking in its name) sends nothing more.
            Err(EntryRefusal::AlreadyAsked) if stranger => Ok(format!(
                "{} asked again to enter event {number}; not mailed twice before confirming",
                me.email
            )),
            Err(why) => {
                let shown = shown(&ev, &rules, entered, me);
                self.refuse(tx, me, number, Some(shown), &why, key, answering, now)
                    .await
            }
            Ok(()) => {
                let name = if stranger {
                    stranger_name(mail)
                } else {
                    me.name.clone()
                };
                let id = tx
                    .add_entry(
                        &NewEntry {
                            event: ev.record.id,
                            email: me.email.as_str(),
                            player: (!stranger).then_some(me.id),
                            name: &name,
                            lang: me.lang,
                            status: EntryStatus::Pending,
                            qualification: rules.requires.as_deref(),
                        },
                        now,
                    )
                    .await?;
                let news = EntryNews::Confirm {
                    event: shown(&ev, &rules, entered, me),
                    stranger,
                    name,
                };
                let reply_to = Some(self.post.entry_address(id));
                send(
                    tx,
                    &self.post,
                    key,
                    news,
                    me,
                    Some(answering),
                    reply_to,
                    now,
                )
                .await?;
                Ok(format!(
                    "asked {} to confirm their entry to event {number}",
                    me.email
                ))
            }
        }
    }

    /// `withdraw entry N` without the entry's token: the address is asked
    /// to reply to the mail we send it (a forger never sees that mail).
    async fn ask_withdraw(
        &self,
        tx: &mut Tx,
        me: &Player,
        number: i64,
        key: String,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<String, ServiceError> {
        let found = taking_entries(tx, number).await?;
        let entry = match &found {
            Some((ev, _)) => tx.entry_of(ev.record.id, me.email.as_str()).await?,
            None => None,
        };
        match (found, entry) {
            (Some((ev, rules)), Some(entry)) if entry.status.is_live() => {
                let entered = taken(tx, &ev).await?;
                let news = EntryNews::Refused {
                    number,
                    event: Some(shown(&ev, &rules, entered, me)),
                    why: "confirm-withdrawal",
                    detail: None,
                };
                let reply_to = Some(self.post.entry_address(entry.id));
                send(
                    tx,
                    &self.post,
                    key,
                    news,
                    me,
                    Some(answering),
                    reply_to,
                    now,
                )
                .await?;
                Ok(format!(
                    "asked {} to confirm withdrawing from event {number}",
                    me.email
                ))
            }
            (found, _) => {
                let why = if found.is_none()
                    && tx.event(EventId(number)).await.is_ok()
                    && tx.entries_of_event_closed(EventId(number)).await?
                {
                    EntryRefusal::Closed
                } else {
                    EntryRefusal::NotEntered
                };
                self.refuse(tx, me, number, None, &why, key, answering, now)
                    .await
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn refuse(
        &self,
        tx: &mut Tx,
        me: &Player,
        number: i64,
        event: Option<OpenEvent>,
        why: &EntryRefusal,
        key: String,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<String, ServiceError> {
        let (word, detail) = refusal_words(why, me);
        let news = EntryNews::Refused {
            number,
            event,
            why: word,
            detail,
        };
        send(tx, &self.post, key, news, me, Some(answering), None, now).await?;
        Ok(format!(
            "refused {}'s entry mail for event {number}: {word}",
            me.email
        ))
    }

    /// A reply to an entry's address (`e9.TOKEN`): from the entry's own
    /// address with the right token it confirms the entry, or withdraws it
    /// when it says so; anything else is ignored (the address's owner
    /// never asked, or a forger guessed).
    pub(super) async fn entry_reply(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        id: i64,
        token: &str,
        answering: &Answering<'_>,
        now: DateTime<Utc>,
    ) -> Result<Handled, ServiceError> {
        if !self.post.tokens.entry(id).matches(token) {
            return Ok(Handled::Ignored(Ignored::EntryWrongToken));
        }
        let Some(entry) = tx.entry(id).await? else {
            return Ok(Handled::Ignored(Ignored::NoSuchEntry));
        };
        if !entry.email.eq_ignore_ascii_case(mail.from.as_str()) {
            return Ok(Handled::Ignored(Ignored::NotTheirEntry {
                entry: entry.email.clone(),
                from: mail.from.to_string(),
            }));
        }
        if !self.post.may_answer(tx, mail.from.as_str(), now).await? {
            return Ok(Handled::Ignored(Ignored::OverAnswerLimit(
                Limited::EntryReply,
            )));
        }
        let player = tx.player_by_email(&entry.email).await?;
        let me = player
            .clone()
            .unwrap_or_else(|| addressee(&mail.from, &entry.name, entry.lang));
        let key = answering.key("entry");
        let number = entry.event.0;
        let Some((ev, rules)) = taking_entries(tx, number).await? else {
            return self
                .refuse(
                    tx,
                    &me,
                    number,
                    None,
                    &EntryRefusal::Closed,
                    key,
                    answering,
                    now,
                )
                .await
                .map(|said| Handled::Done(Done::Entries(said)));
        };
        let withdraw = command::parse(&mail.text, me.lang)
            .commands
            .iter()
            .any(|c| matches!(c, Command::WithdrawEntry { .. }));
        let entered = taken(tx, &ev).await?;
        if withdraw {
            if !entry.status.is_live() {
                return self
                    .refuse(
                        tx,
                        &me,
                        number,
                        None,
                        &EntryRefusal::NotEntered,
                        key,
                        answering,
                        now,
                    )
                    .await
                    .map(|said| Handled::Done(Done::Entries(said)));
            }
            tx.end_entry(id, EntryStatus::Withdrawn, None, now).await?;
            let left = entered - u32::from(entry.status == EntryStatus::Confirmed);
            let news = EntryNews::Withdrawn {
                event: shown(&ev, &rules, left, &me),
            };
            send(tx, &self.post, key, news, &me, Some(answering), None, now).await?;
            return Ok(Handled::Done(Done::Entries(format!(
                "{} withdrew their entry to event {number}",
                entry.email
            ))));
        }
        match entry.status {
            EntryStatus::Pending => {}
            EntryStatus::Confirmed => {
                let news = EntryNews::Refused {
                    number,
                    event: Some(shown(&ev, &rules, entered, &me)),
                    why: "already-entered",
                    detail: None,
                };
                send(tx, &self.post, key, news, &me, Some(answering), None, now).await?;
                return Ok(Handled::Done(Done::Entries(format!(
                    "{} confirmed again; entered already",
                    entry.email
                ))));
            }
            _ => {
                return self
                    .refuse(
                        tx,
                        &me,
                        number,
                        None,
                        &EntryRefusal::NotEntered,
                        key,
                        answering,
                        now,
                    )
                    .await
                    .map(|said| Handled::Done(Done::Entries(said)));
            }
        }
        let rating = match &player {
            Some(p) => tx.ratings_of(&[p.id]).await?.get(&p.id).copied(),
            None => None,
        };
        // The pending entry holds its qualification already: counted
        // against the other events only, as when it was asked for.
        let spare_qualifications = match (&rules.requires, &player) {
            (Some(name), Some(p)) => tx.spare_qualifications(p.id, name, ev.record.id).await?,
            _ => 0,
        };
        let who = Applicant {
            email: &me.email,
            registered: player.is_some()
                || rules.open_to == crate::domain::event::entries::OpenTo::Anyone,
            rating,
            entry: Some(entry.status),
            spare_qualifications,
        };
        if let Err(why) = rules.may_confirm(&who, entered, now) {
            let shown = shown(&ev, &rules, entered, &me);
            return self
                .refuse(tx, &me, number, Some(shown), &why, key, answering, now)
                .await
                .map(|said| Handled::Done(Done::Entries(said)));
        }
        // A stranger becomes a player now, with the name and language of
        // its mail (changeable later with `language`, or by the admin).
        let player = match player {
            Some(p) => p,
            None => {
                let new = match NewPlayer::new(mail.from.clone(), &entry.name, entry.lang, None) {
                    Ok(new) => new,
                    Err(_) => {
                        NewPlayer::new(mail.from.clone(), mail.from.local_part(), entry.lang, None)
                            .map_err(|e| StoreError::Corrupt(e.to_string()))?
                    }
                };
                tx.add_player(&new, now).await?
            }
        };
        tx.confirm_entry(id, player.id, now).await?;
        let queue = match rules.section_size {
            Some(size) => queue_place(tx, &ev, &rules, id)
                .await?
                .map(|place| (size, place)),
            None => None,
        };
        let news = EntryNews::Entered {
            event: shown(&ev, &rules, entered + 1, &player),
            queue,
        };
        send(
            tx,
            &self.post,
            key,
            news,
            &player,
            Some(answering),
            None,
            now,
        )
        .await?;
        Ok(Handled::Done(Done::Entries(format!(
            "{} confirmed their entry to event {number}",
            entry.email
        ))))
    }
}

/// Opens an event for entries from its file (`dopis event open FILE`):
/// creates it as `event create` does, marks it as taking entries, and
/// mails the players who asked to hear of new events. Returns the event
/// and how many were told.
pub async fn open(
    tx: &mut Tx,
    post: &Post,
    text: &str,
    now: DateTime<Utc>,
) -> Result<(EventId, usize), TdError> {
    let event = crate::domain::event::file::parse(text)?;
    let Some(rules) = event.entries.clone() else {
        return Err(TdError::Refused(
            "the file has no [entries] table: add one (closes = \"2027-02-01\", and optionally opens, min, max, open_to) to take entries by mail, or use `dopis event create` for an event with its players named".into(),
        ));
    };
    if rules.closes <= now {
        return Err(TdError::Refused(format!(
            "entries.closes ({}) has passed; give a later time",
            rules.closes.format("%Y-%m-%d %H:%M UTC")
        )));
    }
    let id = super::td::store_event(tx, &event, now).await?;
    tx.set_event_takes_entries(id).await?;
    let ev = StoredEvent::load(tx, id).await?;
    let entered = taken(tx, &ev).await?;
    let told = tx.announcement_players().await?;
    for p in &told {
        let news = EntryNews::Announced {
            event: shown(&ev, &rules, entered, p),
        };
        send(
            tx,
            post,
            format!("event.{}.open.{}", id.0, p.id.0),
            news,
            p,
            None,
            None,
            now,
        )
        .await?;
    }
    Ok((id, told.len()))
}

/// A TD's change to an event's entries (`dopis event entries N --add … |
/// --refuse …`).
#[derive(Debug, Clone)]
pub enum EntryChange {
    /// Enter an address (registered, or registered now with a name).
    Add {
        /// The address.
        email: EmailAddress,
        /// Name and language to register it with, when it is no player.
        register: Option<(String, Lang)>,
    },
    /// Refuse an address's entry, saying why.
    Refuse {
        /// The address.
        email: EmailAddress,
        /// Why: told to the address.
        reason: String,
    },
}

/// Carries out a TD's change to an event's entries, telling the entrant,
/// logging who did it; returns the event's entries after it.
pub async fn change(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    change: Option<EntryChange>,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<Vec<EntryRecord>, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    let Some(rules) = ev.event.entries.clone() else {
        return Err(TdError::Refused(format!(
            "event {event} takes no entries by mail (it has no [entries] table)"
        )));
    };
    let Some(change) = change else {
        return Ok(tx.entries(event).await?);
    };
    if !tx.entries_open(event).await? {
        return Err(TdError::Refused(format!(
            "event {event}'s entries are closed; add a player with `dopis event add-player` before `dopis event start`"
        )));
    }
    let entered = taken(tx, &ev).await?;
    match change {
        EntryChange::Add { email, register } => {
            let player = match (tx.player_by_email(email.as_str()).await?, register) {
                (Some(p), _) => p,
                (None, Some((name, lang))) => {
                    let new = NewPlayer::new(email.clone(), &name, lang, None)
                        .map_err(|e| TdError::Refused(e.to_string()))?;
                    tx.add_player(&new, now).await?
                }
                (None, None) => {
                    return Err(TdError::Refused(format!(
                        "{email} is not registered: give --name (and --lang) to register them"
                    )));
                }
            };
            if ev.seat_of(player.id).is_some()
                || tx
                    .entry_of(event, email.as_str())
                    .await?
                    .is_some_and(|e| e.status == EntryStatus::Confirmed)
            {
                return Err(TdError::Refused(format!(
                    "{email} has entered event {event} already"
                )));
            }
            tx.add_entry(
                &NewEntry {
                    event,
                    email: email.as_str(),
                    player: Some(player.id),
                    name: &player.name,
                    lang: player.lang,
                    status: EntryStatus::Confirmed,
                    // A TD's addition is their ruling: it holds a
                    // qualification where the event requires one (if
                    // the player has one; it is not checked).
                    qualification: rules.requires.as_deref(),
                },
                now,
            )
            .await?;
            tx.record_td_action(
                &NewTdAction {
                    event: Some(event),
                    game: None,
                    action: "entry-added",
                    by: by.as_str(),
                    detail: &format!("entered {email}"),
                    reason: "",
                },
                now,
            )
            .await?;
            let news = EntryNews::Entered {
                event: shown(&ev, &rules, entered + 1, &player),
                queue: None,
            };
            let key = format!(
                "event.{}.entry.added.{}.{}",
                event.0,
                player.id.0,
                now.timestamp_millis()
            );
            send(tx, post, key, news, &player, None, None, now).await?;
        }
        EntryChange::Refuse { email, reason } => {
            let reason = reason.trim();
            if reason.is_empty() {
                return Err(TdError::Refused(format!(
                    "say why with --reason TEXT: it is recorded and told to {email}"
                )));
            }
            let Some(entry) = tx.entry_of(event, email.as_str()).await? else {
                return Err(TdError::Refused(format!(
                    "{email} has no entry in event {event}"
                )));
            };
            if !entry.status.is_live() {
                return Err(TdError::Refused(format!(
                    "{email}'s entry to event {event} is {} already",
                    entry.status.key()
                )));
            }
            tx.end_entry(entry.id, EntryStatus::Refused, Some(reason), now)
                .await?;
            tx.record_td_action(
                &NewTdAction {
                    event: Some(event),
                    game: None,
                    action: "entry-refused",
                    by: by.as_str(),
                    detail: &format!("refused {email}'s entry"),
                    reason,
                },
                now,
            )
            .await?;
            // A stranger that never confirmed is not mailed (it may never
            // have asked: its From could be forged).
            if entry.status == EntryStatus::Confirmed {
                let to = match tx.player_by_email(&entry.email).await? {
                    Some(p) => p,
                    None => addressee(&email, &entry.name, entry.lang),
                };
                let news = EntryNews::Refused {
                    number: event.0,
                    event: Some(shown(&ev, &rules, entered.saturating_sub(1), &to)),
                    why: "refused-by-td",
                    detail: Some(reason.to_string()),
                };
                let key = format!("event.{}.entry.refused.{}", event.0, entry.id);
                send(tx, post, key, news, &to, None, None, now).await?;
            }
        }
    }
    Ok(tx.entries(event).await?)
}

/// What closing an event's entries did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Closed {
    /// The event started with these many entrants.
    Started(usize),
    /// Too few entered; the TDs were told.
    TooFew(u32),
    /// An open class started these sections (their events), and its queue
    /// closed if it was time.
    Sections {
        /// The sections started now.
        started: Vec<EventId>,
        /// Whether the queue closed.
        closed: bool,
    },
}

/// The confirmed entries waiting in an open class's queue, with their
/// ratings, for [`sections`].
async fn queue_of(tx: &mut Tx, event: EventId) -> Result<Vec<Queued<EntryRecord>>, StoreError> {
    let waiting: Vec<EntryRecord> = tx
        .entries(event)
        .await?
        .into_iter()
        .filter(|e| e.status == EntryStatus::Confirmed)
        .collect();
    let players: Vec<PlayerId> = waiting.iter().filter_map(|e| e.player).collect();
    let ratings = tx.ratings_of(&players).await?;
    Ok(waiting
        .into_iter()
        .map(|e| Queued {
            rating: e.player.and_then(|p| ratings.get(&p).copied()),
            confirmed_at: e.confirmed_at.unwrap_or(e.created_at),
            who: e,
        })
        .collect())
}

/// An entry's place in its band's queue of an open class (`None` when it
/// is about to go into a section).
async fn queue_place(
    tx: &mut Tx,
    ev: &StoredEvent,
    rules: &EntryRules,
    entry: i64,
) -> Result<Option<u32>, StoreError> {
    let size = rules.section_size.unwrap_or(u32::MAX);
    let (_, waiting) = sections(
        queue_of(tx, ev.record.id).await?,
        size,
        &rules.section_bands,
    );
    Ok(waiting
        .into_iter()
        .find(|(e, _)| e.id == entry)
        .map(|(_, place)| place))
}

/// An open class's pass: a section starts for each `size` entries waiting
/// in one band (a round robin of its own, seeded by rating, named after
/// the class and its number), and at `closes` the queue closes and whoever
/// waits is told.
async fn start_sections(
    tx: &mut Tx,
    post: &Post,
    class: &StoredEvent,
    rules: &EntryRules,
    size: u32,
    now: DateTime<Utc>,
) -> Result<Option<Closed>, TdError> {
    let event = class.record.id;
    let queue = queue_of(tx, event).await?;
    let ratings: std::collections::HashMap<i64, Option<i32>> =
        queue.iter().map(|q| (q.who.id, q.rating)).collect();
    let (groups, waiting) = sections(queue, size, &rules.section_bands);
    let mut number = u32::try_from(tx.sections_of(event).await?.len()).unwrap_or(u32::MAX);
    let mut started = Vec::new();
    for group in groups {
        number += 1;
        // Within the section, by rating as any round robin is seeded.
        let (seeded, _) = seed(
            group
                .into_iter()
                .map(|e| Seedable {
                    rating: ratings.get(&e.id).copied().flatten(),
                    confirmed_at: e.confirmed_at.unwrap_or(e.created_at),
                    who: e,
                })
                .collect(),
            u32::MAX,
        );
        let mut section = class.event.clone();
        section.name = format!("{}/{number}", class.record.name);
        section.entries = None;
        let mut players = Vec::new();
        for e in &seeded {
            let email = EmailAddress::parse(&e.email)
                .map_err(|err| StoreError::Corrupt(format!("entry {}: {err}", e.id)))?;
            players.push(crate::domain::event::file::Entrant {
                email,
                name: e.name.clone(),
                lang: Some(e.lang),
            });
        }
        if let crate::domain::event::file::EventKind::RoundRobin { players: p, .. } =
            &mut section.kind
        {
            *p = players;
        }
        let id = super::td::store_event(tx, &section, now).await?;
        tx.set_section_of(id, event, number).await?;
        if rules.promotes.is_some() {
            tx.set_promotions_due(id).await?;
        }
        for e in &seeded {
            tx.seat_entry_in(e.id, id, now).await?;
            if let Some(p) = tx.player_by_email(&e.email).await? {
                let news = EntryNews::Seated {
                    event: shown(class, rules, 0, &p),
                    section: Some((section.name.clone(), id.0)),
                };
                let key = format!("event.{}.entry.seated.{}", event.0, e.id);
                send(tx, post, key, news, &p, None, None, now).await?;
            }
        }
        super::td::start(tx, post, id, now).await?;
        started.push(id);
    }
    let closed = rules.closing(0, now) == Closing::QueueClosed;
    if closed {
        tx.close_entries(event, now).await?;
        for (e, _) in &waiting {
            tx.end_entry(e.id, EntryStatus::LeftOut, Some("queue-closed"), now)
                .await?;
            if let Some(p) = tx.player_by_email(&e.email).await? {
                let news = EntryNews::LeftOut {
                    event: shown(class, rules, 0, &p),
                    why: "queue-closed",
                };
                let key = format!("event.{}.entry.out.{}", event.0, e.id);
                send(tx, post, key, news, &p, None, None, now).await?;
            }
        }
        for e in tx.entries(event).await? {
            if e.status == EntryStatus::Pending {
                tx.end_entry(e.id, EntryStatus::LeftOut, Some("unconfirmed"), now)
                    .await?;
            }
        }
    }
    if started.is_empty() && !closed {
        return Ok(None);
    }
    Ok(Some(Closed::Sections { started, closed }))
}

/// The events whose entries are open (for the daemon's pass).
pub async fn open_events(store: &Store) -> Result<Vec<EventId>, StoreError> {
    let mut tx = store.begin().await?;
    let events = tx.events_taking_entries().await?;
    tx.commit().await?;
    Ok(events)
}

/// The events played in stages whose final is still to be built (for the
/// daemon's pass).
pub async fn awaiting_final(store: &Store) -> Result<Vec<EventId>, StoreError> {
    let mut tx = store.begin().await?;
    let events = tx.events_awaiting_final().await?;
    tx.commit().await?;
    Ok(events)
}

/// [`super::td::build_final_if_done`] in a transaction of its own (the
/// daemon's pass), as [`close_due`].
pub async fn build_final_due(
    store: &Store,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<super::td::FinalBuilt>, StoreError> {
    let mut tx = store.begin().await?;
    match super::td::build_final_if_done(&mut tx, post, event, now).await {
        Ok(done) => {
            if done.is_some() {
                super::crash_point("before-final-commit");
            }
            tx.commit().await?;
            Ok(done)
        }
        Err(TdError::Store(e)) => Err(e),
        Err(e) => Err(StoreError::Corrupt(format!(
            "building the final of event {event}: {e}"
        ))),
    }
}

/// The sections of open classes whose promotions are still to be
/// recorded (for the daemon's pass).
pub async fn awaiting_promotions(store: &Store) -> Result<Vec<EventId>, StoreError> {
    let mut tx = store.begin().await?;
    let sections = tx.sections_awaiting_promotions().await?;
    tx.commit().await?;
    Ok(sections)
}

/// [`super::td::record_promotions_if_done`] in a transaction of its own
/// (the daemon's pass), as [`close_due`].
pub async fn record_promotions_due(
    store: &Store,
    post: &Post,
    section: EventId,
    now: DateTime<Utc>,
) -> Result<Option<Vec<PlayerId>>, StoreError> {
    let mut tx = store.begin().await?;
    match super::td::record_promotions_if_done(&mut tx, post, section, now).await {
        Ok(done) => {
            if done.is_some() {
                super::crash_point("before-promotions-commit");
            }
            tx.commit().await?;
            Ok(done)
        }
        Err(TdError::Store(e)) => Err(e),
        Err(e) => Err(StoreError::Corrupt(format!(
            "recording the promotions of event {section}: {e}"
        ))),
    }
}

/// [`close_if_due`] in a transaction of its own (the daemon's pass): a
/// refusal of the TD layer (an event that cannot start) is kept as a
/// fault of this event, so the pass puts it off and goes on.
pub async fn close_due(
    store: &Store,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<Closed>, StoreError> {
    let mut tx = store.begin().await?;
    match close_if_due(&mut tx, post, event, now).await {
        Ok(done) => {
            if done.is_some() {
                super::crash_point("before-entries-commit");
            }
            tx.commit().await?;
            Ok(done)
        }
        Err(TdError::Store(e)) => Err(e),
        Err(e) => Err(StoreError::Corrupt(format!(
            "closing the entries of event {event}: {e}"
        ))),
    }
}

/// Closes an event's entries when it is time (see [`EntryRules::closing`]):
/// starts it with the confirmed entries seeded by rating, telling each
/// entrant they are in (their games' mails follow) or why not; or, with
/// too few, tells the TDs and the entrants and starts nothing. All in one
/// transaction, once (the event's row is locked and marked closed).
pub async fn close_if_due(
    tx: &mut Tx,
    post: &Post,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<Option<Closed>, TdError> {
    let Some((ev, rules)) = taking_entries(tx, event.0).await? else {
        return Ok(None);
    };
    if let Some(size) = rules.section_size {
        return start_sections(tx, post, &ev, &rules, size, now).await;
    }
    let entered = taken(tx, &ev).await?;
    let closing = rules.closing(entered, now);
    if closing == Closing::Wait {
        return Ok(None);
    }
    tx.close_entries(event, now).await?;
    let entries = tx.entries(event).await?;
    let shown_to = |p: &Player| shown(&ev, &rules, entered, p);
    // Unconfirmed entries: players are told; strangers are not mailed
    // again (they never confirmed that the address asked).
    for e in entries.iter().filter(|e| e.status == EntryStatus::Pending) {
        tx.end_entry(e.id, EntryStatus::LeftOut, Some("unconfirmed"), now)
            .await?;
        if let Some(p) = tx.player_by_email(&e.email).await? {
            let news = EntryNews::LeftOut {
                event: shown_to(&p),
                why: "unconfirmed",
            };
            send(
                tx,
                post,
                format!("event.{}.entry.out.{}", event.0, e.id),
                news,
                &p,
                None,
                None,
                now,
            )
            .await?;
        }
    }
    let confirmed: Vec<&EntryRecord> = entries
        .iter()
        .filter(|e| e.status == EntryStatus::Confirmed)
        .collect();
    if closing == Closing::TooFew {
        for e in &confirmed {
            tx.end_entry(e.id, EntryStatus::LeftOut, Some("too-few"), now)
                .await?;
            if let Some(p) = tx.player_by_email(&e.email).await? {
                let news = EntryNews::LeftOut {
                    event: shown_to(&p),
                    why: "too-few",
                };
                send(
                    tx,
                    post,
                    format!("event.{}.entry.out.{}", event.0, e.id),
                    news,
                    &p,
                    None,
                    None,
                    now,
                )
                .await?;
            }
        }
        for td in &ev.tds {
            if let Some(to) = super::clocks::director(tx, td).await? {
                let news = EntryNews::TooFew {
                    event: shown_to(&to),
                };
                send(
                    tx,
                    post,
                    format!("event.{}.entries.too-few.{td}", event.0),
                    news,
                    &to,
                    None,
                    None,
                    now,
                )
                .await?;
            }
        }
        return Ok(Some(Closed::TooFew(entered)));
    }
    let players: Vec<PlayerId> = confirmed.iter().filter_map(|e| e.player).collect();
    let ratings = tx.ratings_of(&players).await?;
    let already =
        u32::try_from(ev.entrants.iter().filter(|e| e.seat.is_some()).count()).unwrap_or(u32::MAX);
    let (seated, left) = seed(
        confirmed
            .iter()
            .map(|e| Seedable {
                who: *e,
                rating: e.player.and_then(|p| ratings.get(&p).copied()),
                confirmed_at: e.confirmed_at.unwrap_or(e.created_at),
            })
            .collect(),
        rules.max.saturating_sub(already),
    );
    let mut told = Vec::new();
    for e in &seated {
        let email = EmailAddress::parse(&e.email)
            .map_err(|err| StoreError::Corrupt(format!("entry {}: {err}", e.id)))?;
        let (player, _) = super::td::add_player(tx, event, &email, None, now).await?;
        tx.end_entry(e.id, EntryStatus::Seated, None, now).await?;
        told.push((e.id, player));
    }
    for e in &left {
        tx.end_entry(e.id, EntryStatus::LeftOut, Some("over-max"), now)
            .await?;
        if let Some(p) = tx.player_by_email(&e.email).await? {
            let news = EntryNews::LeftOut {
                event: shown_to(&p),
                why: "over-max",
            };
            send(
                tx,
                post,
                format!("event.{}.entry.out.{}", event.0, e.id),
                news,
                &p,
                None,
                None,
                now,
            )
            .await?;
        }
    }
    // Told they are in before their games' first mails are queued.
    for (id, p) in &told {
        let news = EntryNews::Seated {
            event: shown(&ev, &rules, already + told.len() as u32, p),
            section: None,
        };
        send(
            tx,
            post,
            format!("event.{}.entry.seated.{id}", event.0),
            news,
            p,
            None,
            None,
            now,
        )
        .await?;
    }
    let games = super::td::start(tx, post, event, now).await?;
    let _ = games;
    Ok(Some(Closed::Started(already as usize + told.len())))
}
