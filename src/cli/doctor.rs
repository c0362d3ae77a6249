//! `dopis doctor`: prints one line per check of the set-up (see
//! [`crate::daemon::doctor`]) and exits non-zero when any failed.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;

use super::Cli;
use crate::daemon::doctor::{self, Check, Options, Verdict};
use crate::service::app::SystemClock;

/// The arguments of `dopis doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// How long to wait for the probe mail to reach the mailbox, in seconds.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    pub wait: u64,
}

/// Runs the checks, printing each as it is known.
pub fn run(cli: &Cli, args: &DoctorArgs, out: &mut dyn Write) -> Result<ExitCode> {
    let path = super::config_path(cli);
    let config = match super::load_config_from(path.as_deref(), cli) {
        Ok(config) => {
            let text = match &path {
                Some(path) => format!("{} read; every key is known and valid", path.display()),
                None => "no config file (./dopis.toml absent, no --config): defaults and \
                         DOPIS_… variables are used"
                    .to_string(),
            };
            writeln!(out, "{}", Check::ok("config", text))?;
            config
        }
        Err(e) => {
            let check = Check::fail(
                "config",
                format!("{e:#}"),
                "correct the config file as the message says; nothing else can be checked \
                 until it reads",
            );
            writeln!(out, "{check}")?;
            writeln!(out, "\n1 check failed")?;
            return Ok(ExitCode::FAILURE);
        }
    };
    let options = Options {
        wait: Duration::from_secs(args.wait),
    };
    let (mut failed, mut warned) = (0, 0);
    let mut io = Ok(());
    let passed =
        super::runtime()?.block_on(doctor::run(&config, options, &SystemClock, &mut |check| {
            match check.verdict {
                Verdict::Fail => failed += 1,
                Verdict::Warn => warned += 1,
                Verdict::Ok => {}
            }
            if io.is_ok() {
                io = writeln!(out, "{check}").and_then(|()| out.flush());
            }
        }));
    io?;
    let warnings = match warned {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    if passed {
        writeln!(out, "\nall checks passed{warnings}")?;
        Ok(ExitCode::SUCCESS)
    } else {
        let checks = if failed == 1 { "check" } else { "checks" };
        writeln!(out, "\n{failed} {checks} failed{warnings}")?;
        Ok(ExitCode::FAILURE)
    }
}
