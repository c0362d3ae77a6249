//! `dopis leave add|list|cancel`: leave for a player's games, booked by a
//! TD or admin (players book it by mail with `leave FROM TO`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use chrono::NaiveDate;
use clap::Subcommand;

use super::Format;
use crate::domain::address::EmailAddress;
use crate::domain::clock::{Allowance, Leave, LeaveKind};
use crate::service::app::App;
use crate::service::clocks::{self, left_text};
use crate::service::players;

/// Leave subcommands.
#[derive(Debug, Subcommand)]
pub enum LeaveCommand {
    /// Book leave: whole days FROM to TO (both included, the player's calendar).
    Add {
        /// The player's e-mail address.
        #[arg(long)]
        email: EmailAddress,
        /// First day, YYYY-MM-DD.
        from: NaiveDate,
        /// Last day, YYYY-MM-DD.
        to: NaiveDate,
        /// Special leave granted by a TD: not charged to the yearly allowance.
        #[arg(long, requires = "by")]
        special: bool,
        /// Who grants it (the TD), recorded with the booking.
        #[arg(long)]
        by: Option<String>,
        /// Why, recorded with the booking.
        #[arg(long)]
        reason: Option<String>,
    },
    /// List booked leave (of one player, or everyone's).
    List {
        /// Only this player's.
        #[arg(long)]
        email: Option<EmailAddress>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Cancel leave that has not begun.
    Cancel {
        /// The player's e-mail address.
        #[arg(long)]
        email: EmailAddress,
        /// First day of the booked leave.
        from: NaiveDate,
        /// Last day of the booked leave.
        to: NaiveDate,
    },
}

/// Runs a leave subcommand.
pub async fn run(app: &App, cmd: LeaveCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let store = &app.store;
    let now = app.clock.now();
    match cmd {
        LeaveCommand::Add {
            email,
            from,
            to,
            special,
            by,
            reason,
        } => {
            let player = players::by_email(store, &email).await?;
            let kind = if special {
                LeaveKind::Special
            } else {
                LeaveKind::Regular
            };
            let leave = Leave::of_kind(from, to, kind)?;
            let by = by.unwrap_or_else(|| email.to_string());
            let mut tx = store.begin().await?;
            let booked = clocks::book_leave(
                &mut tx,
                &player,
                leave,
                Allowance::days(app.config.clock.leave_days),
                &by,
                reason.as_deref(),
                // An admin's booking is judged as they make it.
                now,
                now,
            )
            .await?;
            match booked {
                Ok(b) => {
                    tx.commit().await?;
                    writeln!(
                        out,
                        "booked {}leave {from} to {to} ({} days) for {email}; {}; {} active game(s) rescheduled",
                        if special { "special " } else { "" },
                        b.leave.days(),
                        left_text(&b.left),
                        b.games.len()
                    )?;
                }
                Err(e) => bail!("{e}"),
            }
        }
        LeaveCommand::List { email, format } => {
            let leaves = clocks::leaves(store, email.as_ref()).await?;
            match format {
                Format::Json => {
                    let records: Vec<_> = leaves.iter().map(|(l, _)| l).collect();
                    writeln!(out, "{}", serde_json::to_string_pretty(&records)?)?
                }
                Format::Text => {
                    if leaves.is_empty() {
                        writeln!(out, "no leave booked")?;
                    }
                    for (l, who) in &leaves {
                        writeln!(
                            out,
                            "{}\t{} to {}\t{} days\t{}\tby {}{}",
                            who.email,
                            l.leave.from(),
                            l.leave.to(),
                            l.leave.days(),
                            if l.leave.kind() == LeaveKind::Special {
                                "special"
                            } else {
                                "regular"
                            },
                            l.created_by,
                            l.reason
                                .as_ref()
                                .map(|r| format!(" ({r})"))
                                .unwrap_or_default()
                        )?;
                    }
                }
            }
        }
        LeaveCommand::Cancel { email, from, to } => {
            let player = players::by_email(store, &email).await?;
            let mut tx = store.begin().await?;
            match clocks::cancel_leave(&mut tx, &player, from, to, now).await? {
                Ok(leave) => {
                    tx.commit().await?;
                    writeln!(out, "cancelled leave {leave} of {email}")?;
                }
                Err(e) => bail!("{e}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
