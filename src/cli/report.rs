//! `dopis report deadlines`: the TD deadline report.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use clap::{Subcommand, ValueEnum};

use crate::domain::ids::EventId;
use crate::service::app::App;
use crate::service::report::{Format, event_exists, on_request};

/// Report subcommands.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Games past or near their deadline, silent players, leave, timeouts.
    Deadlines {
        /// Only games of this event.
        #[arg(long)]
        event: Option<i64>,
        /// Report as of this time (YYYY-MM-DD, YYYY-MM-DD HH:MM in UTC, or RFC 3339); default now.
        #[arg(long, value_parser = parse_time)]
        at: Option<DateTime<Utc>>,
        /// Deadlines this soon count as due: e.g. 3d, 72h.
        #[arg(long, default_value = "3d", value_parser = parse_span)]
        within: TimeDelta,
        /// List timeouts since this time; default: the last report (or 7 days).
        #[arg(long, value_parser = parse_time)]
        since: Option<DateTime<Utc>>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: ReportFormat,
    },
}

/// How the report is printed.
#[derive(Debug, Clone, Copy, Default, ValueEnum, PartialEq, Eq)]
pub enum ReportFormat {
    /// Readable text.
    #[default]
    Text,
    /// CSV, one row per line of the report.
    Csv,
    /// JSON.
    Json,
}

/// Reads `2026-12-24`, `2026-12-24 18:00` (UTC) or RFC 3339.
pub fn parse_time(text: &str) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(t.and_utc());
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(text, "%Y-%m-%d")
        && let Some(t) = d.and_hms_opt(0, 0, 0)
    {
        return Ok(t.and_utc());
    }
    Err(format!(
        "'{text}' is not a time: write 2026-12-24, '2026-12-24 18:00' (UTC) or 2026-12-24T18:00:00+01:00"
    ))
}

/// Reads one span such as `3d`, `72h` or `90m`.
pub fn parse_span(text: &str) -> Result<TimeDelta, String> {
    match crate::domain::clock::due::parse_reminders(text) {
        Ok(spans) if spans.len() == 1 => Ok(spans[0]),
        _ => Err(format!(
            "'{text}' is not a span of time: write e.g. 3d, 72h or 90m"
        )),
    }
}

/// Runs a report subcommand.
pub async fn run(app: &App, cmd: ReportCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let ReportCommand::Deadlines {
        event,
        at,
        within,
        since,
        format,
    } = cmd;
    let event = event.map(EventId);
    if let Some(id) = event
        && !event_exists(&app.store, id).await?
    {
        bail!("there is no event {id}; `dopis event list` shows the events");
    }
    let format = match format {
        ReportFormat::Text => Format::Text,
        ReportFormat::Csv => Format::Csv,
        ReportFormat::Json => Format::Json,
    };
    // With tables set up, the games in them are listed too.
    let (tables, _) = crate::service::app::open_tables(&app.config)?;
    // Written as it is read: a report of many games is never whole in memory.
    on_request(
        &app.store,
        Some(tables.as_ref()),
        event,
        at,
        within,
        since,
        app.clock.now(),
        format,
        out,
    )
    .await
    .context("cannot make the deadline report")?;
    Ok(ExitCode::SUCCESS)
}
