//! The `dopis` command line: parses arguments, loads the config, and calls
//! into the library. Errors print as one line saying what is wrong and how
//! to fix it, with a non-zero exit code.

mod bench;
mod doctor;
mod event;
mod export;
mod failed;
mod game;
mod leave;
pub mod move_check;
mod player;
mod rating;
mod report;
mod swiss;
mod tablebase;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use crate::adapter::config::{Config, Secret};
use crate::service::app::App;

/// Correspondence chess by plain e-mail.
#[derive(Debug, Parser)]
#[command(name = "dopis", version, about, long_about = None)]
pub struct Cli {
    /// Config file (TOML). Default: ./dopis.toml if it exists.
    #[arg(long, global = true, env = "DOPIS_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Database URL (sqlite://FILE or postgres://…); overrides the config.
    #[arg(long, global = true, value_name = "URL")]
    pub database: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: DopisCommand,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum DopisCommand {
    /// Write an example config (if absent) or add a missing mail secret to it, and create or update the database.
    Init,
    /// Register and look up players.
    #[command(subcommand)]
    Player(player::PlayerCommand),
    /// Start and look at games.
    #[command(subcommand)]
    Game(game::GameCommand),
    /// Events: create, add entrants, start, pairings, standings, TD tools.
    #[command(subcommand)]
    Event(event::EventCommand),
    /// The rating list (FIDE's Elo from rated games): set start ratings, list.
    #[command(subcommand)]
    Rating(rating::RatingCommand),
    /// Book, list and cancel players' leave (vacation).
    #[command(subcommand)]
    Leave(leave::LeaveCommand),
    /// Reports for tournament directors.
    #[command(subcommand)]
    Report(report::ReportCommand),
    /// Mails the daemon could not handle (kept for you) and work that keeps failing.
    #[command(subcommand)]
    Failed(failed::FailedCommand),
    /// Measure dopis on this machine: move text, SAN, boards, CLI latency, reports, mail end to end.
    Bench(bench::BenchArgs),
    /// Check a move text against a position: prints `UCI SAN`, or why not.
    Move(move_check::MoveArgs),
    /// The endgame tables: what they say of a position.
    #[command(subcommand)]
    Tablebase(tablebase::TablebaseCommand),
    /// Swiss pairings (FIDE Dutch system) and tables on TRF files: pair a round, check a tournament, tie-breaks.
    #[command(subcommand)]
    Swiss(swiss::SwissCommand),
    /// Copy a SQLite database to FILE, consistently, while `serve` runs (PostgreSQL: pg_dump).
    Backup {
        /// The new file to write (never overwritten).
        file: PathBuf,
    },
    /// Write everything this server needs to carry on (players, games, events, mail state) to FILE, for `dopis import` elsewhere.
    Export {
        /// The new file to write (never overwritten).
        file: PathBuf,
    },
    /// Read a `dopis export` FILE into this database, which must be new (`dopis init`, no rows).
    Import {
        /// The file `dopis export` wrote.
        file: PathBuf,
        /// Import even if the file was made under another mail secret
        /// (reply addresses players already have stop working).
        #[arg(long)]
        new_secret: bool,
    },
    /// Check the set-up: config, database, IMAP, SMTP, a mail to a reply address, the clock.
    Doctor(doctor::DoctorArgs),
    /// Run the mail daemon: read the mailbox, play the moves, send the replies.
    Serve {
        /// Handle the mail that is waiting, send what is due, and exit.
        #[arg(long)]
        once: bool,
    },
    /// Serve the web pages, players' calendar feeds and the XFCC endpoint (`[web]` in the config).
    Web,
    /// Play a whole sample game by mail (local Maildir, fresh SQLite) and print the mails.
    Demo {
        /// Directory for the demo's database and mail (default: a new temp directory).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// How listings and single records are printed.
#[derive(Debug, Clone, Copy, Default, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Readable text.
    #[default]
    Text,
    /// JSON, for scripts.
    Json,
}

/// The config file to read: the one named, else ./dopis.toml if present.
fn config_path(cli: &Cli) -> Option<PathBuf> {
    match &cli.config {
        Some(path) => Some(path.clone()),
        None => {
            let default = Path::new("dopis.toml");
            default.exists().then(|| default.to_path_buf())
        }
    }
}

fn load_config(cli: &Cli) -> Result<Config> {
    load_config_from(config_path(cli).as_deref(), cli)
}

/// The config from `file` (or none), the environment and `--database`.
fn load_config_from(file: Option<&Path>, cli: &Cli) -> Result<Config> {
    let mut config = Config::load(file, std::env::vars())?;
    if let Some(url) = &cli.database {
        config.database.url = Secret::new(url.clone());
    }
    Ok(config)
}

/// `dopis init`: writes the config file (named with --config, else
/// ./dopis.toml) where it is missing, adds a `[mail] secret` to one that
/// has none, then creates or updates the database it names.
fn init(cli: &Cli, out: &mut dyn Write) -> Result<ExitCode> {
    let path = cli
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from("dopis.toml"));
    if path.exists() {
        // A config with a mistake is said so and left unchanged.
        let config = load_config_from(Some(&path), cli)?;
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read config file {}", path.display()))?;
        // A secret from DOPIS_MAIL_SECRET counts: the file is then left
        // alone (it may be read-only, as in a container or a service).
        let has_secret = !config.mail.secret.expose().is_empty();
        match crate::adapter::config::with_secret_added(&text) {
            Ok(Some(_)) if has_secret => {
                writeln!(out, "config {} exists, left as it is", path.display())?
            }
            Ok(Some(added)) => {
                std::fs::write(&path, added).with_context(|| {
                    format!(
                        "config file {} has no [mail] secret and cannot be written to add one; \
                         add a line `secret = \"…\"` (32 random bytes as hex, e.g. from \
                         `openssl rand -hex 32`) under [mail] yourself, or set DOPIS_MAIL_SECRET",
                        path.display()
                    )
                })?;
                writeln!(
                    out,
                    "added a [mail] secret to config {} (it had none)",
                    path.display()
                )?;
            }
            Ok(None) => writeln!(out, "config {} exists, left as it is", path.display())?,
            Err(message) => anyhow::bail!("config file {}: {message}", path.display()),
        }
    } else {
        // `--config club/dopis.toml` for a club not yet set up: its folder
        // is made, as `init` makes the rest of what it needs.
        if let Some(folder) = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty() && !p.exists())
        {
            std::fs::create_dir_all(folder).with_context(|| {
                format!(
                    "cannot make the folder {} for config file {}",
                    folder.display(),
                    path.display()
                )
            })?;
        }
        std::fs::write(&path, crate::adapter::config::example_with_secret())
            .with_context(|| format!("cannot write config file {}", path.display()))?;
        writeln!(out, "wrote example config {}", path.display())?;
    }
    // Loaded after writing, so that a config named with --config that did
    // not exist yet is the one read.
    let config = load_config_from(Some(&path), cli)?;
    let url = crate::service::redact_url(config.database.url.expose());
    runtime()?.block_on(async {
        let store = crate::service::create_store(config.database.url.expose()).await?;
        store.close().await;
        anyhow::Ok(())
    })?;
    writeln!(out, "database {url} is ready")?;
    Ok(ExitCode::SUCCESS)
}

/// Entry point of the `dopis` binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if matches!(cli.command, DopisCommand::Serve { .. }) {
        ignore_hangup_until_serve_listens();
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match run(cli, &mut out) {
        Ok(code) => code,
        Err(e) => {
            let _ = out.flush();
            eprintln!("dopis: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `systemctl reload` sends SIGHUP, which `serve` answers by reading its
/// config again; but until its handler is installed (after the config is
/// read and the async runtime started) SIGHUP's default action would end
/// the process. Ignored from here on, a reload that early is simply lost
/// (the config being read is already the new one); the handler `serve`
/// installs replaces this disposition.
fn ignore_hangup_until_serve_listens() {
    #[cfg(unix)]
    // SAFETY: `signal` with SIG_IGN installs no handler code; it is called
    // once, before any thread of ours exists.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Runs a parsed command line, printing results to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<ExitCode> {
    // The demo brings its own config and database.
    if let DopisCommand::Demo { dir } = &cli.command {
        let dir = dir.clone().unwrap_or_else(|| {
            std::env::temp_dir().join(format!(
                "dopis-demo-{}-{:08x}",
                std::process::id(),
                rand::random::<u32>()
            ))
        });
        runtime()?.block_on(crate::demo::run(&dir, out))?;
        return Ok(ExitCode::SUCCESS);
    }
    // The bench brings its own configs and databases.
    if let DopisCommand::Bench(args) = cli.command {
        return bench::run(args, out);
    }
    // Checking a move text needs no config or database.
    if let DopisCommand::Move(args) = &cli.command {
        let stdin = std::io::stdin();
        return Ok(move_check::run(
            args,
            &mut stdin.lock(),
            out,
            &mut std::io::stderr(),
        ));
    }
    // Pairing a TRF file needs no config or database.
    if let DopisCommand::Swiss(command) = &cli.command {
        return swiss::run(command, out);
    }
    if let DopisCommand::Init = &cli.command {
        return init(&cli, out);
    }
    // The doctor reports a broken config as one of its checks.
    if let DopisCommand::Doctor(args) = &cli.command {
        return doctor::run(&cli, args, out);
    }
    let config = load_config(&cli)?;
    // Probing the tables needs the config's tables, no database.
    if let DopisCommand::Tablebase(command) = &cli.command {
        return tablebase::run(command, &config, out);
    }
    // What `serve` reads again on SIGHUP: the same file and variables.
    let (file, database) = (config_path(&cli), cli.database.clone());
    match cli.command {
        DopisCommand::Move(_)
        | DopisCommand::Demo { .. }
        | DopisCommand::Bench(_)
        | DopisCommand::Swiss(_)
        | DopisCommand::Tablebase(_) => {
            Ok(ExitCode::SUCCESS) // answered above
        }
        DopisCommand::Serve { once } => {
            let json = config.log.format == crate::adapter::config::LogFormat::Json;
            crate::adapter::telemetry::init(json, &config.log.level)?;
            let reload: Box<dyn Fn() -> Result<Config> + Send + Sync> = Box::new(move || {
                let mut config = Config::load(file.as_deref(), std::env::vars())?;
                if let Some(url) = &database {
                    config.database.url = Secret::new(url.clone());
                }
                Ok(config)
            });
            runtime()?.block_on(crate::daemon::serve(config, once, Some(reload)))?;
            Ok(ExitCode::SUCCESS)
        }
        DopisCommand::Web => {
            let json = config.log.format == crate::adapter::config::LogFormat::Json;
            crate::adapter::telemetry::init(json, &config.log.level)?;
            runtime()?.block_on(crate::web::serve(config))?;
            Ok(ExitCode::SUCCESS)
        }
        DopisCommand::Init | DopisCommand::Doctor(_) => Ok(ExitCode::SUCCESS), // answered above
        DopisCommand::Player(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = player::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Game(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = game::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Event(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = event::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Rating(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = rating::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Leave(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = leave::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Report(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = report::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Failed(cmd) => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = failed::run(&app, cmd, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Export { file } => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = export::export(&app, &file, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Import { file, new_secret } => runtime()?.block_on(async {
            let app = App::open(config).await?;
            let result = export::import(&app, &file, new_secret, out).await;
            app.store.close().await;
            result
        }),
        DopisCommand::Backup { file } => runtime()?.block_on(async {
            let store = crate::service::open_store(config.database.url.expose()).await?;
            let result = crate::service::backup::backup(&store, &file).await;
            store.close().await;
            let bytes = result?;
            writeln!(
                out,
                "backed up the database to {} ({bytes} bytes)",
                file.display()
            )?;
            Ok(ExitCode::SUCCESS)
        }),
    }
}
