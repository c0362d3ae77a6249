//! The deadline report by mail, to each event's tournament directors.
//!
//! **Daily.** [`Scheduler::daily_reports`] runs in every daemon pass after
//! the game scheduler. Each event with games in progress gets its report
//! once per calendar day (UTC): the first pass of the day sends it. The due
//! key is the outbox key `e<event>.report.<day>.<td>`, unique in the
//! outbox, so two daemons (or a crash and a restart) never send a day's
//! report twice; `report_runs` remembers the last report of each event, so
//! a pass skips events already done today without building their report,
//! and the next report lists the timeouts since this one.
//!
//! **On request.** A TD asks by mail with `report`. A TD need not play, so
//! has no game token: every report mail carries a Reply-To of its own,
//! `local+r<event>.<token>@domain`, with a token over the event and the
//! TD's address ([`crate::adapter::mail::route::Tokens::director`]). `report` is
//! carried out only from a TD's address AND to that TD's report address,
//! as a move is only from a player's address with the player's token. From
//! a TD's address without it, the TD gets a short mail saying how (reply to
//! a report mail), whose own Reply-To is the report address: replying to it
//! works, and a forged From reaches only the TD. Anyone else writing to a
//! report address is ignored and logged, never answered.

use crate::service::ServiceError;
use chrono::{DateTime, TimeDelta, Utc};

use crate::adapter::mail::compose::LetterKind;
use crate::adapter::store::Tx;
use crate::adapter::store::{Store, StoreError};
use crate::domain::ids::EventId;
use crate::domain::player::Player;
use crate::service::clocks::directors_of_event;
use crate::service::post::{Answering, Outgoing, Post};
use crate::service::report::{self, ReportAsk, SILENCE_DAYS};

use crate::service::clocks::Scheduler;

/// Deadlines this soon after the report count as due soon (as the CLI's default).
const DUE_WITHIN: TimeDelta = TimeDelta::days(3);

/// The `report_runs` name of an event's mailed report.
fn run_name(event: EventId) -> String {
    format!("deadlines.mail.e{}", event.0)
}

/// An event's report letter as of `now`, with the timeouts since its last
/// mailed report (or the last day).
pub(crate) async fn report_letter(
    store: &Store,
    tx: &mut Tx,
    event: EventId,
    now: DateTime<Utc>,
) -> Result<LetterKind, StoreError> {
    let since = store
        .report_last_run(&run_name(event))
        .await?
        .filter(|last| *last < now)
        .unwrap_or(now - TimeDelta::days(1));
    let report = report::deadlines_in(
        store,
        ReportAsk {
            at: now,
            within: DUE_WITHIN,
            since,
            silence_days: SILENCE_DAYS,
        },
        Some(event),
        // The mailed report leaves the tables to `dopis report deadlines`.
        None,
    )
    .await?;
    Ok(LetterKind::DeadlineReport {
        event: tx.event(event).await?.name,
        report: report.view(),
    })
}

/// Queues a mail to a TD with their report address as Reply-To.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn to_director(
    post: &Post,
    tx: &mut Tx,
    key: String,
    kind: LetterKind,
    td: &Player,
    event: EventId,
    answering: Option<&Answering<'_>>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let reply_to = post.report_address(event.0, &td.email);
    post.queue(
        tx,
        Outgoing::new(key, kind, td)
            .answering(answering)
            .reply_to(reply_to),
        now,
    )
    .await
}

impl Scheduler {
    /// The events whose daily deadline report has not gone out today and
    /// that have games in progress.
    pub async fn reports_due(
        &self,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<Vec<EventId>, StoreError> {
        let today = now.date_naive();
        let mut due = Vec::new();
        for event in report::events_with_active_games(store).await? {
            let last = store.report_last_run(&run_name(event)).await?;
            if last.is_none_or(|l| l.date_naive() < today) {
                due.push(event);
            }
        }
        Ok(due)
    }

    /// Mails today's deadline report of an event to its TDs.
    pub async fn daily_report(
        &self,
        store: &Store,
        event: EventId,
        now: DateTime<Utc>,
    ) -> Result<(), ServiceError> {
        let today = now.date_naive();
        let mut tx = store.begin().await?;
        let kind = report_letter(store, &mut tx, event, now).await?;
        for td in directors_of_event(&mut tx, event).await? {
            let key = format!("e{}.report.{today}.{}", event.0, td.email);
            to_director(
                &self.post,
                &mut tx,
                key,
                kind.clone(),
                &td,
                event,
                None,
                now,
            )
            .await?;
        }
        tx.commit().await?;
        // After the commit: a crash in between sends nothing twice (the
        // outbox keys), it only makes the next pass build the report again.
        store.set_report_run(&run_name(event), now).await?;
        tracing::info!(event = %event, "deadline report mailed");
        Ok(())
    }

    /// Mails today's deadline report of every event with games in progress
    /// to its TDs, where not done yet today; returns how many events got one.
    pub async fn daily_reports(
        &self,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<usize, ServiceError> {
        let due = self.reports_due(store, now).await?;
        for &event in &due {
            self.daily_report(store, event, now).await?;
        }
        Ok(due.len())
    }
}
