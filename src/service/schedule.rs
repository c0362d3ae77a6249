//! A game's schedule in its row: when the scheduler next needs to look at
//! it, its deadline and whose move it is. Everything that changes a game's
//! clock (a move, leave, extra days from a TD, a game's start) stores it
//! here; the scheduler in [`super::clocks`] reads it. Kept apart from the
//! scheduler so that the TD tools and game starts, which the scheduler
//! itself calls when a game ends on time, need not import it back.

use chrono::{DateTime, TimeDelta, Utc};

use super::loaded_game::{LoadedGame, load_table};
use crate::adapter::store::{StoreError, Tx};
use crate::domain::clock::ReminderPlan;
use crate::domain::ids::GameId;

/// Stores when the game next needs the scheduler (never, once it is over),
/// its deadline and whose move it is. Without the scheduler's `plan` (mail
/// handling, the CLI), the game is marked to be looked at now: the
/// scheduler then plans its reminders by its own settings.
pub async fn reschedule(
    tx: &mut Tx,
    table: &LoadedGame,
    plan: Option<&ReminderPlan>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let schedule = match &table.clock {
        Some(clock) if !table.game.is_over() => {
            let mut schedule = clock.schedule(plan.unwrap_or(&ReminderPlan::default()), now);
            let flagged = clock.clocks(now).timeout().is_some();
            if plan.is_none() {
                schedule.next_due_at = Some(now);
            } else if schedule.next_due_at.is_some_and(|at| at <= now) && !flagged {
                // Defence against a game the step cannot settle (bad data):
                // look again in an hour rather than spin on it.
                tracing::warn!(game = %table.record.id, "schedule did not advance");
                schedule.next_due_at = Some(now + TimeDelta::hours(1));
            }
            Some(schedule)
        }
        _ => None,
    };
    tx.set_schedule(table.record.id, schedule.as_ref()).await
}

/// Stores the schedule of a game that a mail changed (a move, an offer, a
/// game ended on time), planned by the scheduler's `plan`: the game is due
/// at once only when something is due now that was not done yet (a leave
/// that began, a reminder whose time came while the mail waited), and
/// otherwise at its next instant.
///
/// Before, mail handling did not know the plan and marked every game it
/// changed to be looked at now, so each move cost the scheduler a second
/// load of the game a moment later only to plan it: some fifteen statements
/// a move mail, for nothing to send (issue 27).
pub async fn reschedule_after_move(
    tx: &mut Tx,
    table: &LoadedGame,
    plan: &ReminderPlan,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let schedule = match &table.clock {
        Some(clock) if !table.game.is_over() => {
            let mut schedule = clock.schedule(plan, now);
            let done = tx.due_keys(table.record.id).await?;
            if !clock.due(plan, &done, now).is_empty() {
                schedule.next_due_at = Some(now);
            }
            Some(schedule)
        }
        _ => None,
    };
    tx.set_schedule(table.record.id, schedule.as_ref()).await
}

/// Reloads a game's clock (after leave changed) and stores its schedule.
pub async fn reschedule_game(
    tx: &mut Tx,
    id: GameId,
    plan: Option<&ReminderPlan>,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let table = load_table(tx, id).await?;
    reschedule(tx, &table, plan, now).await
}
