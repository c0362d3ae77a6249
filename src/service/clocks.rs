//! Clocks in the daemon: a stored game's [`GameClock`](crate::domain::clock::GameClock) (its move times and
//! both players' leave), keeping each game's schedule in its row, the
//! scheduler step that sends reminders, silence and leave notices and ends
//! games on time, and booking leave.
//!
//! **Move times.** A move's time is when its mail reached our mailbox
//! (`moves.received_at`); the opponent's clock starts when our mail telling
//! them was sent (`moves.sent_at`), else at the received time. A move
//! without a received time (entered by hand, imported, or stored by an old
//! version) is taken to have arrived when its opponent was told, else the
//! instant its own clock started: we charge no time we cannot show was used.
//!
//! **Scheduler.** [`Scheduler::step`] takes one game whose `next_due_at`
//! has come (locking its row; on PostgreSQL rows other daemons hold are
//! skipped), asks [`GameClock::due`](crate::domain::clock::GameClock::due) what is due given the keys already
//! recorded, queues the mails, records the keys, stores the new schedule,
//! and commits: mails and keys together or not at all. A daemon that was
//! down finds every game whose instant passed and catches up with one mail
//! each (the pure step sends only the latest reminder). Inbound mail is read
//! before the scheduler runs in each pass, so a move that reached the
//! mailbox in time is played rather than timed out.

use crate::service::ServiceError;
use chrono::{DateTime, NaiveDate, Timelike, Utc};
use shakmaty::Color;

/// The hour of the player's day from which their digest goes out.
pub const DIGEST_HOUR: u32 = 7;

use super::loaded_game::{LoadedGame, load_table};
use super::post::{Outgoing, Post};
use super::schedule::{reschedule, reschedule_game};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::store::Tx;
use crate::adapter::store::clocks::NewLeave;
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::{Store, StoreError};
use crate::domain::clock::leave::{self, regular_days_in_year};
use crate::domain::clock::{Allowance, Due, Leave, LeaveError, ReminderPlan};
use crate::domain::ids::GameId;
use crate::domain::locale::describe_deadline;
use crate::domain::player::{Player, PlayerId};

/// The tournament directors to tell about a game (timeouts, long silence):
/// the TDs of the game's event; games outside events have none.
pub async fn directors_of(tx: &mut Tx, game: GameId) -> Result<Vec<Player>, StoreError> {
    let Some(event) = tx.event_of_game(game).await? else {
        return Ok(Vec::new());
    };
    directors_of_event(tx, event).await
}

/// The tournament directors of an event, as mail recipients.
pub async fn directors_of_event(
    tx: &mut Tx,
    event: crate::domain::ids::EventId,
) -> Result<Vec<Player>, StoreError> {
    let mut directors = Vec::new();
    for address in tx.event_tds(event).await? {
        if let Some(player) = director(tx, &address).await? {
            directors.push(player);
        }
    }
    Ok(directors)
}

/// A TD's address as a mail recipient: the player of that address, else
/// (a TD need not play) someone who gets English mails in UTC; `None` when
/// the stored address does not parse.
pub async fn director(tx: &mut Tx, address: &str) -> Result<Option<Player>, StoreError> {
    if let Some(player) = tx.player_by_email(address).await? {
        return Ok(Some(player));
    }
    Ok(crate::domain::address::EmailAddress::parse(address)
        .ok()
        .map(not_a_player))
}

/// An address that is no player's as a mail recipient (a TD need not
/// play): English mails, times in UTC.
pub fn not_a_player(email: crate::domain::address::EmailAddress) -> Player {
    Player {
        id: crate::domain::player::PlayerId(0),
        name: email.to_string(),
        email,
        lang: crate::domain::lang::Lang::En,
        tz: None,
    }
}

/// Ends a game on time: `side` ran out at `at`. A loss, or a draw when the
/// opponent cannot mate; both players and the TDs get the game-over mail.
pub async fn end_on_time(
    tx: &mut Tx,
    post: &Post,
    table: &mut LoadedGame,
    side: Color,
    at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    if table.game.is_over() {
        return Ok(());
    }
    table
        .game
        .time_forfeit(side)
        .map_err(|e| StoreError::Corrupt(format!("game {}: {e}", table.record.id)))?;
    // The game ended when the time ran out, not when we noticed.
    table.record.finished_at = Some(at);
    tx.save_game(
        &table.record,
        &table.game,
        None,
        &Default::default(),
        table.record.last_offers,
        now,
    )
    .await?;
    table.record.status = GameStatus::Finished;
    table.draw_offer_by = None;
    let id = table.record.id;
    let directors = directors_of(tx, id).await?;
    post.game_over(tx, &format!("g{}", id.0), table, &directors, now)
        .await?;
    crate::service::td::finals::mail_final_standings(tx, post, id, now).await
}

/// The scheduler: reminders, silence and leave notices, timeouts.
#[derive(Debug, Clone)]
pub struct Scheduler {
    /// Addresses and composing.
    pub post: Post,
    /// When reminders go out.
    pub plan: ReminderPlan,
}

/// The game the scheduler's next step would take at `now`, found as the
/// daemon's due-scan finds it and let go again (nothing changes): for the
/// bench.
pub async fn next_due_game(
    store: &Store,
    now: DateTime<Utc>,
) -> Result<Option<GameId>, StoreError> {
    let mut tx = store.begin().await?;
    let game = tx.claim_due_game(now).await?;
    // Dropping the transaction rolls it back.
    drop(tx);
    Ok(game)
}

impl Scheduler {
    /// The scheduler with the daemon's settings.
    pub fn new(post: Post, settings: &crate::service::app::Settings) -> Scheduler {
        Scheduler {
            post,
            plan: settings.plan.clone(),
        }
    }

    /// Handles one game whose schedule has come, in one transaction;
    /// returns it and what was done — or why it could not be handled, in
    /// which case nothing of it was kept — or `None` when no game is due.
    /// The outer error is the database's (no game could be claimed).
    #[allow(clippy::type_complexity)]
    pub async fn step(
        &self,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<Option<(GameId, Result<Vec<Due>, ServiceError>)>, StoreError> {
        let mut tx = store.begin_writing().await?;
        let Some(id) = tx.claim_due_game(now).await? else {
            tx.commit().await?;
            return Ok(None);
        };
        match self.settle(&mut tx, id, now).await {
            Ok(done) => match tx.commit().await {
                Ok(()) => Ok(Some((id, Ok(done)))),
                Err(e) => Ok(Some((id, Err(e.into())))),
            },
            // Dropping the transaction rolls back what was begun.
            Err(e) => Ok(Some((id, Err(e)))),
        }
    }

    /// Sends what is due in one claimed game, and plans its next instant.
    async fn settle(
        &self,
        tx: &mut Tx,
        id: GameId,
        now: DateTime<Utc>,
    ) -> Result<Vec<Due>, ServiceError> {
        let mut table = load_table(tx, id).await?;
        let Some(clock) = table.clock.clone() else {
            // Nothing to time: no next instant, so the game is not claimed again.
            reschedule(tx, &table, Some(&self.plan), now).await?;
            return Ok(Vec::new());
        };
        let done_keys = tx.due_keys(id).await?;
        let dues = clock.due(&self.plan, &done_keys, now);
        let mut done = Vec::new();
        for due in dues {
            if !tx.record_due(id, &due.key(), now).await? {
                continue;
            }
            let key = format!("g{}.due.{}", id.0, due.key());
            match due {
                Due::Reminder {
                    side,
                    before,
                    deadline,
                    ..
                } => {
                    let to = table.player(side).clone();
                    let kind = LetterKind::Reminder {
                        deadline: describe_deadline(deadline, to.tz, to.lang),
                        before_minutes: before.num_minutes(),
                    };
                    self.tell(tx, key, kind, &to, &table, Some(side), now)
                        .await?;
                }
                Due::Silence { side, days, .. } => {
                    let to = table.player(side).clone();
                    let deadline = clock.clocks(now).players.get(side).next_deadline;
                    let kind = LetterKind::Silence {
                        days,
                        deadline: deadline.map(|d| describe_deadline(d, to.tz, to.lang)),
                    };
                    self.tell(tx, key.clone(), kind, &to, &table, Some(side), now)
                        .await?;
                    for td in directors_of(tx, id).await? {
                        let kind = LetterKind::Silence {
                            days,
                            deadline: deadline.map(|d| describe_deadline(d, td.tz, td.lang)),
                        };
                        let td_key = format!("{key}.td.{}", td.email);
                        self.tell(tx, td_key, kind, &td, &table, None, now).await?;
                    }
                }
                Due::LeaveBegins { side, until, .. } => {
                    let to = table.player(!side).clone();
                    let kind = LetterKind::LeaveNotice {
                        player: table.player(side).name.clone(),
                        until: describe_deadline(until, to.tz, to.lang),
                    };
                    self.tell(tx, key, kind, &to, &table, Some(!side), now)
                        .await?;
                }
                Due::Timeout { side, at } => {
                    end_on_time(tx, &self.post, &mut table, side, at, now).await?;
                }
            }
            done.push(due);
        }
        reschedule(tx, &table, Some(&self.plan), now).await?;
        Ok(done)
    }

    /// Puts off a game the scheduler could not handle, so that the other
    /// due games go on: it is looked at again after a growing pause.
    pub async fn put_off(
        &self,
        store: &Store,
        game: GameId,
        until: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = store.begin().await?;
        tx.put_off_game(game, until).await?;
        tx.commit().await
    }

    /// The players who chose a daily digest.
    pub async fn digest_players(&self, store: &Store) -> Result<Vec<PlayerId>, StoreError> {
        let mut tx = store.begin().await?;
        let players = tx.digest_players().await?;
        tx.commit().await?;
        Ok(players)
    }

    /// One player's daily digest, if due: their day (in their time zone)
    /// has reached [`DIGEST_HOUR`] without one, and some game waits for
    /// their move; every such game in one mail. Once per player and day,
    /// recorded with the mail in one transaction. `true` when one was queued.
    pub async fn digest(
        &self,
        store: &Store,
        id: PlayerId,
        now: DateTime<Utc>,
    ) -> Result<bool, ServiceError> {
        let mut tx = store.begin().await?;
        let player = tx.player(id).await?;
        let local = match player.tz {
            Some(tz) => now.with_timezone(&tz).naive_local(),
            None => now.naive_utc(),
        };
        if local.hour() < DIGEST_HOUR {
            return Ok(false);
        }
        let day = local.date().to_string();
        let games = tx.games_to_move(id).await?;
        // A day with nothing to tell is not used up: a move that comes later
        // that day goes out in that day's digest at the next pass, rather
        // than waiting for tomorrow's.
        if games.is_empty() || !tx.record_digest(id, &day, now).await? {
            return Ok(false);
        }
        let mut tables = Vec::new();
        for game in games {
            tables.push(load_table(&mut tx, game).await?);
        }
        self.post
            .digest(&mut tx, &player, &tables, &day, now)
            .await?;
        tx.commit().await?;
        Ok(true)
    }

    #[allow(clippy::too_many_arguments)]
    async fn tell(
        &self,
        tx: &mut Tx,
        key: String,
        kind: LetterKind,
        to: &Player,
        table: &LoadedGame,
        side: Option<Color>,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let reply_to = side.map(|_| self.post.reply_to(table.record.id, to));
        self.post
            .queue(
                tx,
                Outgoing::new(key, kind, to)
                    .about(table, side)
                    .reply_to(reply_to),
                now,
            )
            .await
    }
}

/// What booking a leave did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Booked {
    /// The leave's row id.
    pub id: i64,
    /// The leave.
    pub leave: Leave,
    /// Regular days left in each calendar year the leave touches.
    pub left: Vec<(i32, u32)>,
    /// The player's active games, now rescheduled.
    pub games: Vec<GameId>,
}

/// Books leave for a player in all their games outside events, checked by
/// the rules of [`crate::domain::clock::leave`]; reschedules their active games.
///
/// `asked_at` is when the player asked: its day is the "today" the leave
/// must start after. For a mail that is when it reached the mailbox, so a
/// daemon that reads it late costs the player nothing (as with moves); for
/// the CLI it is `now`.
#[allow(clippy::too_many_arguments)]
pub async fn book_leave(
    tx: &mut Tx,
    player: &Player,
    leave: Leave,
    allowance: Allowance,
    created_by: &str,
    reason: Option<&str>,
    asked_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Result<Booked, LeaveError>, StoreError> {
    let existing: Vec<Leave> = tx
        .leaves_of(player.id)
        .await?
        .into_iter()
        .map(|l| l.leave)
        .collect();
    let booking = match leave::book(&existing, leave, allowance, asked_at, player.tz) {
        Ok(b) => b,
        Err(e) => return Ok(Err(e)),
    };
    let (id, games) = store_leave(tx, player, leave, created_by, reason, now).await?;
    let left = booking
        .years
        .iter()
        .map(|y| {
            (
                y.year,
                allowance
                    .per_year()
                    .saturating_sub(regular_days_in_year(&booking.leaves, y.year)),
            )
        })
        .collect();
    Ok(Ok(Booked {
        id,
        leave,
        left,
        games,
    }))
}

/// Stores a leave already judged bookable (see [`leave::book`]) and
/// reschedules the player's active games; returns its row id and the games.
pub async fn store_leave(
    tx: &mut Tx,
    player: &Player,
    leave: Leave,
    created_by: &str,
    reason: Option<&str>,
    now: DateTime<Utc>,
) -> Result<(i64, Vec<GameId>), StoreError> {
    let id = tx
        .add_leave(
            &NewLeave {
                player: player.id,
                leave,
                created_by,
                reason,
            },
            now,
        )
        .await?;
    let games = tx.active_games_of(player.id).await?;
    for game in &games {
        reschedule_game(tx, *game, None, now).await?;
    }
    Ok((id, games))
}

/// Cancels a player's leave `from..=to` (which must not have begun);
/// reschedules their active games.
pub async fn cancel_leave(
    tx: &mut Tx,
    player: &Player,
    from: NaiveDate,
    to: NaiveDate,
    now: DateTime<Utc>,
) -> Result<Result<Leave, LeaveError>, StoreError> {
    let stored = tx.leaves_of(player.id).await?;
    let Some(found) = stored
        .iter()
        .find(|l| l.leave.from() == from && l.leave.to() == to)
    else {
        let leave = match Leave::new(from, to) {
            Ok(l) => l,
            Err(e) => return Ok(Err(e)),
        };
        return Ok(Err(LeaveError::NotBooked { leave }));
    };
    let all: Vec<Leave> = stored.iter().map(|l| l.leave).collect();
    if let Err(e) = leave::cancel(&all, found.leave, now, player.tz) {
        return Ok(Err(e));
    }
    tx.cancel_leave(found.id, now).await?;
    for game in tx.active_games_of(player.id).await? {
        reschedule_game(tx, game, None, now).await?;
    }
    Ok(Ok(found.leave))
}

/// The leave allowance left, in words: `35 days left in 2026`.
pub fn left_text(left: &[(i32, u32)]) -> String {
    let parts: Vec<String> = left
        .iter()
        .map(|(year, days)| {
            format!(
                "{days} day{} of leave left in {year}",
                if *days == 1 { "" } else { "s" }
            )
        })
        .collect();
    if parts.is_empty() {
        "your leave allowance as it was".into()
    } else {
        parts.join(", ")
    }
}

/// The leave booked, of the player of one address or of everyone, each
/// with its player (`dopis leave list`).
pub async fn leaves(
    store: &Store,
    email: Option<&crate::domain::address::EmailAddress>,
) -> Result<Vec<(crate::adapter::store::clocks::StoredLeave, Player)>, StoreError> {
    let player = match email {
        Some(e) => Some(store.player_by_email(e).await?),
        None => None,
    };
    let mut listed = Vec::new();
    for leave in store.leaves(player.as_ref().map(|p| p.id)).await? {
        let who = store.player(leave.player).await?;
        listed.push((leave, who));
    }
    Ok(listed)
}
