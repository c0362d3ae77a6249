//! `dopis player …`

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;

use super::Format;
use crate::domain::address::EmailAddress;
use crate::domain::lang::Lang;
use crate::domain::player::{NewPlayer, Player};
use crate::service::app::App;
use crate::service::{links, players};

/// Player subcommands.
#[derive(Debug, Subcommand)]
pub enum PlayerCommand {
    /// Register a player.
    Add {
        /// The player's e-mail address: only mail from it moves their pieces.
        #[arg(long)]
        email: EmailAddress,
        /// The player's name, as opponents and PGN see it.
        #[arg(long)]
        name: String,
        /// Language of mails and piece letters (en, sl, pl, lv, de, …).
        #[arg(long, default_value = "en")]
        lang: Lang,
        /// Time zone for deadlines in mails (IANA name, e.g. Europe/Ljubljana).
        #[arg(long)]
        tz: Option<String>,
    },
    /// Register the players of a CSV file (header `email,name,lang,tz`;
    /// lang and tz optional) in one go: all or none. Registered addresses
    /// are kept as they are and reported.
    Import {
        /// The CSV file (format: `src/domain/roster.rs`, docs/td.md "Players").
        file: PathBuf,
        /// Show what would change, and change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// List the registered players.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Send a paused player's mail again (paused because their address kept
    /// bouncing): the held mail goes out with the daemon's next send.
    Resume {
        /// The player's e-mail address.
        email: EmailAddress,
    },
    /// Erase a player's personal data (name, address, their mail and
    /// messages); their finished games stay for the standings under a
    /// placeholder name. Without --yes, says what it would do.
    Forget {
        /// The player's e-mail address.
        email: EmailAddress,
        /// Do it (it cannot be undone); without it, nothing is changed.
        #[arg(long)]
        yes: bool,
    },
    /// Give a player a new XFCC password, for chess programs (Scid…) that
    /// fetch games and send moves over XFCC; the old one stops working. It
    /// is printed once and stored only as a hash. With --revoke, take it
    /// away instead.
    XfccPassword {
        /// The player's e-mail address (also their XFCC username).
        email: EmailAddress,
        /// Take the password away: XFCC logins fail until a new one is made.
        #[arg(long)]
        revoke: bool,
    },
    /// Print a player's private web links (their pages and calendar feed
    /// in `dopis web`); with --revoke, end the links given out so far and
    /// print new ones.
    Link {
        /// The player's e-mail address.
        email: EmailAddress,
        /// Make new links; the old ones stop working at once.
        #[arg(long)]
        revoke: bool,
    },
    /// Show one player.
    Show {
        /// The player's e-mail address.
        email: EmailAddress,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

fn line(p: &Player) -> String {
    let tz =
        p.tz.map(|t| t.name().to_string())
            .unwrap_or_else(|| "-".into());
    format!("{}\t{}\t{}\t{}", p.email, p.name, p.lang, tz)
}

/// Runs a player subcommand.
pub async fn run(app: &App, cmd: PlayerCommand, out: &mut dyn Write) -> Result<ExitCode> {
    match cmd {
        PlayerCommand::Add {
            email,
            name,
            lang,
            tz,
        } => {
            let new = NewPlayer::new(email, &name, lang, tz.as_deref())?;
            let player = players::register(&app.store, &new, app.clock.now()).await?;
            writeln!(out, "added player {} <{}>", player.name, player.email)?;
        }
        PlayerCommand::Import { file, dry_run } => import(app, &file, dry_run, out).await?,
        PlayerCommand::List { format } => {
            let players = players::all(&app.store).await?;
            match format {
                Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&players)?)?,
                Format::Text => {
                    for p in &players {
                        writeln!(out, "{}", line(p))?;
                    }
                }
            }
        }
        PlayerCommand::Resume { email } => {
            if players::resume(&app.store, &email, app.clock.now()).await? {
                writeln!(
                    out,
                    "resumed {email}: their held mail goes out with the daemon's next send"
                )?;
            } else {
                writeln!(out, "{email} is not paused; nothing to do")?;
            }
        }
        PlayerCommand::Forget { email, yes } => {
            let done =
                crate::service::forget::forget(&app.store, &email, yes, app.clock.now()).await?;
            let who = format!("{} <{}>", done.player.name, done.player.email);
            if yes {
                writeln!(
                    out,
                    "forgot {who}: now \"{}\" <{}>; {} finished games kept for the standings; \
                     {} mails' bodies, {} inbound records and {} messages erased, {} other texts \
                     rewritten. {email} can register again as a new player",
                    done.placeholder_name,
                    done.placeholder_email,
                    done.finished_games,
                    done.counts.mails,
                    done.counts.inbound,
                    done.counts.messages,
                    done.counts.texts,
                )?;
            } else {
                writeln!(
                    out,
                    "would forget {who}: their name and address become \"{}\" <{}> everywhere \
                     ({} finished games kept for the standings); the mail sent to them or about \
                     their games, their messages and the records of their mail are erased. \
                     This cannot be undone: run again with --yes to do it. Nothing was changed",
                    done.placeholder_name, done.placeholder_email, done.finished_games,
                )?;
            }
        }
        PlayerCommand::XfccPassword { email, revoke } => {
            use crate::service::xfcc;
            if revoke {
                if !xfcc::revoke_password(&app.store, email.as_str()).await? {
                    anyhow::bail!("no player has the address {email}: nothing was changed");
                }
                writeln!(
                    out,
                    "revoked the XFCC password of {email}: their chess program's logins fail \
                     until a new one is made"
                )?;
            } else {
                let Some(password) = xfcc::new_password(&app.store, email.as_str()).await? else {
                    anyhow::bail!("no player has the address {email}: nothing was changed");
                };
                writeln!(
                    out,
                    "XFCC login for {email} (shown this once; a new one replaces it):\n  \
                     username: {email}\n  password: {password}"
                )?;
            }
        }
        PlayerCommand::Link { email, revoke } => {
            let post = crate::service::post::Post::new(&app.config.mail)?;
            let player = players::by_email(&app.store, &email).await?;
            let segment = if revoke {
                links::revoke(&app.store, &post.tokens, player.id).await?
            } else {
                links::segment_of(&app.store, &post.tokens, player.id)
                    .await?
                    .ok_or_else(|| anyhow::anyhow!("no player {email}"))?
            };
            let base = app.config.web.base()?;
            let root = base.clone().unwrap_or_default();
            if revoke {
                writeln!(
                    out,
                    "revoked the private links of {} <{}>; the new ones:",
                    player.name, player.email
                )?;
            } else {
                writeln!(
                    out,
                    "private links of {} <{}> (whoever has them sees the player's games and \
                     deadlines; `dopis player link {} --revoke` ends them):",
                    player.name, player.email, player.email
                )?;
            }
            writeln!(out, "  pages:    {root}/me/{segment}")?;
            writeln!(out, "  calendar: {root}/me/{segment}/deadlines.ics")?;
            if base.is_none() {
                writeln!(
                    out,
                    "(paths only: set [web] base_url to the address `dopis web` is reached at \
                     for whole links)"
                )?;
            }
        }
        PlayerCommand::Show { email, format } => {
            let (p, paused, qualifications) = players::show(&app.store, &email).await?;
            match format {
                Format::Json => {
                    #[derive(serde::Serialize)]
                    struct Shown<'a> {
                        #[serde(flatten)]
                        player: &'a Player,
                        paused: Option<crate::domain::player::Pause>,
                        qualifications: Vec<players::Held>,
                    }
                    let shown = Shown {
                        player: &p,
                        paused,
                        qualifications,
                    };
                    writeln!(out, "{}", serde_json::to_string_pretty(&shown)?)?;
                }
                Format::Text => {
                    writeln!(out, "e-mail:    {}", p.email)?;
                    writeln!(out, "name:      {}", p.name)?;
                    writeln!(out, "language:  {} ({})", p.lang, p.lang.english_name())?;
                    let tz =
                        p.tz.map(|t| t.name().to_string())
                            .unwrap_or_else(|| "not set".into());
                    writeln!(out, "time zone: {tz}")?;
                    match paused {
                        Some(pause) => writeln!(
                            out,
                            "mail:      paused since {}: {}; their mail is held until \
                             `dopis player resume {}` or a mail from them",
                            pause.since.format("%Y-%m-%d %H:%M UTC"),
                            pause.reason,
                            p.email
                        )?,
                        None => writeln!(out, "mail:      sent as usual")?,
                    }
                    // Each is good for one entry to an event that requires
                    // it (entries holding one are in `dopis event entries`).
                    for h in &qualifications {
                        let q = &h.qualification;
                        writeln!(
                            out,
                            "qualified: {} (place {} with {} of {} in {}, event #{}, {})",
                            q.name,
                            q.place,
                            q.points.decimal(),
                            q.possible.decimal(),
                            h.section,
                            q.event.0,
                            q.earned_at.format("%Y-%m-%d")
                        )?;
                    }
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `dopis player import`: reads the roster whole, registers its new players
/// in one transaction (none in a dry run), says what became of each line.
async fn import(app: &App, file: &Path, dry_run: bool, out: &mut dyn Write) -> Result<()> {
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| {
            f.take(crate::domain::roster::MAX_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
        .with_context(|| format!("cannot read {}", file.display()))?;
    let rows = crate::domain::roster::parse(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: nothing was registered:\n{e}", file.display()))?;
    let mut tx = app.store.begin().await?;
    let done = players::import(&mut tx, &rows, app.clock.now()).await?;
    if !dry_run {
        tx.commit().await?;
    }
    let (mut added, mut known, mut differ) = (0, 0, 0);
    let would = if dry_run { "would add" } else { "added" };
    for d in &done {
        match d {
            players::Imported::Added { line, player } => {
                added += 1;
                let tz = player.tz.map(|t| format!(", {t}")).unwrap_or_default();
                writeln!(
                    out,
                    "line {line}: {would} {} <{}> ({}{tz})",
                    player.name, player.email, player.lang
                )?;
            }
            players::Imported::Known {
                line,
                player,
                differences,
            } => {
                known += 1;
                if differences.is_empty() {
                    writeln!(
                        out,
                        "line {line}: {} is registered already, as in the file",
                        player.email
                    )?;
                } else {
                    differ += 1;
                    writeln!(
                        out,
                        "line {line}: {} is registered already and kept as registered ({}): \
                         a player's name is in their games, and players set their own language by mail",
                        player.email,
                        differences.join("; ")
                    )?;
                }
            }
        }
    }
    let summary = format!(
        "{added} {}, {known} registered already ({differ} differing from the file, kept)",
        if dry_run { "to add" } else { "added" }
    );
    if dry_run {
        writeln!(out, "{summary}; dry run: nothing was changed")?;
    } else {
        writeln!(out, "{summary}")?;
    }
    Ok(())
}
