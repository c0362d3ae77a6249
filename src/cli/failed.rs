//! `dopis failed`: what the daemon could not do and set aside — mails it
//! could not handle (kept byte-exact, out of the inbox) and scheduler work
//! that keeps failing — and putting a mail back to be read again.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Subcommand;

use super::Format;
use crate::service::app::App;
use crate::service::quarantine;

/// Subcommands of `dopis failed`.
#[derive(Debug, Subcommand)]
pub enum FailedCommand {
    /// List the mails that could not be handled and the work that keeps failing.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print a failed mail, byte for byte as it arrived.
    Show {
        /// The number `dopis failed list` shows.
        id: i64,
    },
    /// Put a failed mail back into the inbox, with its original arrival
    /// time, for the daemon to read again (after the cause was fixed).
    Retry {
        /// The number `dopis failed list` shows.
        id: i64,
    },
}

/// Runs a `dopis failed` subcommand.
pub async fn run(app: &App, cmd: FailedCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let store = &app.store;
    match cmd {
        FailedCommand::List { format } => {
            let mails = quarantine::failed_mails(store).await?;
            let stuck = quarantine::stuck_work(store).await?;
            match format {
                Format::Json => {
                    let json = serde_json::json!({ "mails": mails, "work": stuck });
                    writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
                }
                Format::Text => {
                    if mails.is_empty() && stuck.is_empty() {
                        writeln!(out, "nothing has failed")?;
                    }
                    for m in &mails {
                        let state = match (&m.quarantined_at, &m.kept_in) {
                            (Some(_), Some(place)) => format!("kept in {place}"),
                            (Some(_), None) => "given up; still in the inbox".to_string(),
                            (None, _) => format!("tried {} times, will try again", m.attempts),
                        };
                        writeln!(
                            out,
                            "mail {}  arrived {}  from {}  {} bytes\n    {}\n    {}",
                            m.id,
                            m.received_at.format("%Y-%m-%d %H:%M UTC"),
                            m.sender.as_deref().unwrap_or("(unreadable)"),
                            m.size,
                            m.reason,
                            state
                        )?;
                    }
                    for w in &stuck {
                        writeln!(
                            out,
                            "{}  failing since {} ({} times), next try {}\n    {}",
                            w.subject,
                            w.first_failed_at.format("%Y-%m-%d %H:%M UTC"),
                            w.attempts,
                            w.next_try_at.format("%Y-%m-%d %H:%M UTC"),
                            w.last_error
                        )?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        FailedCommand::Show { id } => {
            let Some((_, raw)) = quarantine::failed_mail(store, id).await? else {
                bail!("no failed mail {id}: `dopis failed list` shows the ones there are");
            };
            out.write_all(&raw)?;
            Ok(ExitCode::SUCCESS)
        }
        FailedCommand::Retry { id } => {
            // The mailbox is the daemon's: the CLI dispatches it there.
            let Some(place) = crate::daemon::retry_failed(app, id).await? else {
                bail!("no failed mail {id}: `dopis failed list` shows the ones there are");
            };
            writeln!(
                out,
                "mail {id} is back in the inbox ({place}); the daemon reads it on its next pass"
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
