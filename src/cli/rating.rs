//! `dopis rating set|list`: the rating list (FIDE's Elo, kept from rated
//! games; how: `src/domain/rating.rs`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Subcommand, ValueEnum};

use crate::domain::address::EmailAddress;
use crate::domain::rating::Source;
use crate::service::app::App;
use crate::service::ratings;

/// Where a start rating comes from.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SourceArg {
    /// The player's ICCF rating (established: K 20, or 10 from 2400).
    Iccf,
    /// The player's FIDE rating (established: K 20, or 10 from 2400).
    Fide,
    /// The TD's estimate (a new player's: K 40 for 30 games).
    Td,
}

impl From<SourceArg> for Source {
    fn from(s: SourceArg) -> Source {
        match s {
            SourceArg::Iccf => Source::Iccf,
            SourceArg::Fide => Source::Fide,
            SourceArg::Td => Source::Td,
        }
    }
}

/// How the list is printed.
#[derive(Debug, Clone, Copy, Default, ValueEnum, PartialEq, Eq)]
pub enum ListFormat {
    /// Aligned text.
    #[default]
    Text,
    /// CSV (RFC 4180).
    Csv,
    /// JSON, for scripts.
    Json,
}

/// Rating subcommands.
#[derive(Debug, Subcommand)]
pub enum RatingCommand {
    /// Set a player's start rating (one they bring from ICCF or FIDE, or the TD's estimate).
    Set {
        /// The player's e-mail address.
        email: EmailAddress,
        /// The rating, a whole number from 100 to 3500.
        #[arg(allow_negative_numbers = true)]
        rating: i64,
        /// Where the rating comes from.
        #[arg(long, value_enum, default_value = "td")]
        source: SourceArg,
        /// Who sets it (recorded in the rating history).
        #[arg(long, default_value = "admin")]
        by: String,
    },
    /// The rating list, best first.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: ListFormat,
    },
}

/// Runs a rating subcommand.
pub async fn run(app: &App, cmd: RatingCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let now = app.clock.now();
    match cmd {
        RatingCommand::Set {
            email,
            rating,
            source,
            by,
        } => {
            let mut tx = app.store.begin().await?;
            let before =
                ratings::set_start(&mut tx, &email, rating, source.into(), &by, now).await?;
            tx.commit().await?;
            match before {
                Some(b) => writeln!(out, "{email}: rating {rating} (was {b})")?,
                None => writeln!(out, "{email}: rating {rating}")?,
            }
        }
        RatingCommand::List { format } => {
            let mut tx = app.store.begin().await?;
            let list = ratings::list(&mut tx).await?;
            tx.commit().await?;
            print_list(out, &list, format)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A line's rating as shown: the number, or `unrated (n/5)` while a first
/// rating is being made.
fn shown(s: &crate::domain::rating::Standing) -> String {
    match s.rating {
        Some(r) => r.to_string(),
        None => format!(
            "unrated ({}/{})",
            s.first_games.len(),
            crate::domain::rating::FIRST_RATING_GAMES
        ),
    }
}

fn print_list(
    out: &mut dyn Write,
    list: &[ratings::ListedRating],
    format: ListFormat,
) -> Result<()> {
    match format {
        ListFormat::Json => {
            #[derive(serde::Serialize)]
            struct Line<'a> {
                rank: Option<usize>,
                name: &'a str,
                email: &'a str,
                rating: Option<i32>,
                games: u32,
                k: u32,
                provisional: bool,
                source: Option<&'static str>,
                games_towards_first_rating: usize,
            }
            let lines: Vec<Line> = list
                .iter()
                .enumerate()
                .map(|(i, l)| Line {
                    rank: l.standing.rating.map(|_| i + 1),
                    name: &l.name,
                    email: &l.email,
                    rating: l.standing.rating,
                    games: l.standing.games,
                    k: l.standing.k_now(),
                    provisional: l.standing.provisional(),
                    source: l.standing.source.map(Source::key),
                    games_towards_first_rating: l.standing.first_games.len(),
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&lines)?)?;
        }
        ListFormat::Csv => {
            writeln!(out, "Rank,Name,Email,Rating,Games,K,Provisional,Source\r")?;
            for (i, l) in list.iter().enumerate() {
                let field = |t: &str| {
                    if t.contains([',', '"', '\n', '\r']) {
                        format!("\"{}\"", t.replace('"', "\"\""))
                    } else {
                        t.to_string()
                    }
                };
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{}\r",
                    l.standing
                        .rating
                        .map(|_| (i + 1).to_string())
                        .unwrap_or_default(),
                    field(&l.name),
                    field(&l.email),
                    l.standing.rating.map(|r| r.to_string()).unwrap_or_default(),
                    l.standing.games,
                    l.standing.k_now(),
                    if l.standing.provisional() {
                        "yes"
                    } else {
                        "no"
                    },
                    l.standing.source.map(Source::key).unwrap_or_default()
                )?;
            }
        }
        ListFormat::Text => {
            if list.is_empty() {
                writeln!(out, "no ratings yet")?;
                return Ok(());
            }
            let name_w = list
                .iter()
                .map(|l| l.name.chars().count())
                .max()
                .unwrap_or(4)
                .max(4);
            writeln!(
                out,
                "{:>4}  {:<name_w$}  {:>15}  {:>5}  {:>2}",
                "Rank", "Name", "Rating", "Games", "K"
            )?;
            for (i, l) in list.iter().enumerate() {
                let rank = l
                    .standing
                    .rating
                    .map(|_| (i + 1).to_string())
                    .unwrap_or_default();
                let mark = if l.standing.provisional() {
                    " (provisional)"
                } else {
                    ""
                };
                writeln!(
                    out,
                    "{rank:>4}  {:<name_w$}  {:>15}  {:>5}  {:>2}{mark}",
                    l.name,
                    shown(&l.standing),
                    l.standing.games,
                    l.standing.k_now(),
                )?;
            }
        }
    }
    Ok(())
}
