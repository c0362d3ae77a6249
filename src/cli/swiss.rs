//! `dopis swiss`: Swiss pairings and tables on FIDE Tournament Report
//! Files (TRF), so a TD (or a test) can check dopis's pairings against
//! any FIDE-endorsed program's without an event in the database.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::domain::event::Side;
use crate::domain::event::swiss::tiebreaks;
use crate::domain::event::swiss::trf::{self, Trf};
use crate::domain::event::swiss::{Entry, Pairing, RoundPairing};
use crate::domain::event::tiebreak::TieBreak;

/// `dopis swiss …`.
#[derive(Debug, Subcommand)]
pub enum SwissCommand {
    /// Pair the next round of a TRF file by the FIDE Dutch system (C.04.3,
    /// 2025 revision) and print the pairings; with --write, also write the
    /// file with the new round (its results blank).
    Pair {
        /// The TRF file (TRF16 layout; XXR, XXC and the TRF-2026 lines read).
        file: PathBuf,
        /// The round to pair (default: the next one). An earlier round is
        /// paired again from the rounds before it.
        #[arg(long)]
        round: Option<u32>,
        /// The number of rounds, when the file has no `XXR` line.
        #[arg(long)]
        rounds: Option<u32>,
        /// The colour of pairing number 1 in round 1 (C.04.3 5.1), when the
        /// file has no `XXC white1`/`black1` line and no round yet.
        #[arg(long, value_enum)]
        initial_colour: Option<Colour>,
        /// Write the file with the new round to this new path.
        #[arg(long, value_name = "OUT")]
        write: Option<PathBuf>,
        /// Output: text (boards with names), json, or pairs (the JaVaFo
        /// and bbpPairings output: the number of pairs, then `white black`
        /// lines, `N 0` for the bye).
        #[arg(long, value_enum, default_value_t)]
        format: PairFormat,
        /// Print each player's pairing card first (score, colours,
        /// preference, bye eligibility, floats), as a checklist.
        #[arg(long)]
        checklist: bool,
    },
    /// Pair every round of a TRF file again from the rounds before it and
    /// compare with the file's pairings, colours included. Exit code 1 when
    /// a round differs (the first such round is named at the end).
    Check {
        /// The TRF file.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: super::Format,
    },
    /// The table of a TRF file with FIDE's tie-breaks (C.07, unplayed rounds
    /// by its Article 16).
    Standings {
        /// The TRF file.
        file: PathBuf,
        /// Tie-breaks in order, by name or FIDE abbreviation, comma-separated
        /// (e.g. `BH-C1,BH,SB,DE,WIN,BWG`, the default).
        #[arg(long, value_delimiter = ',')]
        tie_breaks: Vec<String>,
        /// Count only the first N rounds (default: all played).
        #[arg(long)]
        after: Option<u32>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: super::Format,
    },
}

/// A colour on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Colour {
    /// White.
    White,
    /// Black.
    Black,
}

/// How `dopis swiss pair` prints.
#[derive(Debug, Clone, Copy, Default, ValueEnum, PartialEq, Eq)]
pub enum PairFormat {
    /// Boards with numbers and names.
    #[default]
    Text,
    /// JSON, for scripts.
    Json,
    /// As JaVaFo and bbpPairings print them.
    Pairs,
}

/// Runs `dopis swiss …`.
pub fn run(command: &SwissCommand, out: &mut dyn Write) -> Result<ExitCode> {
    match command {
        SwissCommand::Pair {
            file,
            round,
            rounds,
            initial_colour,
            write,
            format,
            checklist,
        } => {
            let options = PairOptions {
                round: *round,
                rounds: *rounds,
                initial_colour: *initial_colour,
                write: write.as_deref(),
                format: *format,
                checklist: *checklist,
            };
            pair(file, &options, out)
        }
        SwissCommand::Check { file, format } => check(file, *format, out),
        SwissCommand::Standings {
            file,
            tie_breaks,
            after,
            format,
        } => standings(file, tie_breaks, *after, *format, out),
    }
}

/// A TRF file read, or why not with its name, line and column.
pub(crate) fn read(file: &Path) -> Result<Trf> {
    let text = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let text = String::from_utf8(text).map_err(|e| {
        anyhow::anyhow!(
            "{}: the file is not UTF-8 text (byte {})",
            file.display(),
            e.utf8_error().valid_up_to() + 1
        )
    })?;
    trf::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))
}

fn name(trf: &Trf, player: usize) -> String {
    let n = trf
        .people
        .get(player)
        .map(|p| p.name.as_str())
        .unwrap_or("");
    if n.is_empty() {
        format!("{}", player + 1)
    } else {
        format!("{} {n}", player + 1)
    }
}

/// What `dopis swiss pair` was asked.
struct PairOptions<'a> {
    round: Option<u32>,
    rounds: Option<u32>,
    initial_colour: Option<Colour>,
    write: Option<&'a Path>,
    format: PairFormat,
    checklist: bool,
}

fn pair(file: &Path, options: &PairOptions<'_>, out: &mut dyn Write) -> Result<ExitCode> {
    let PairOptions {
        round,
        rounds,
        initial_colour,
        write,
        format,
        checklist,
    } = *options;
    let mut trf = read(file)?;
    let paired = trf.tournament.paired_rounds();
    let round = round.unwrap_or(paired + 1);
    if let Some(n) = rounds {
        trf.tournament.rounds = n;
        trf.rounds_declared = true;
    } else if !trf.rounds_declared {
        bail!(
            "{}: the file does not say how many rounds the tournament has (the last round's rules differ): add a line `XXR 9` (with the number of rounds) or give --rounds 9",
            file.display()
        );
    }
    if round == 0 || round > trf.tournament.rounds {
        bail!(
            "round {round} cannot be paired: the tournament has rounds 1 to {}",
            trf.tournament.rounds
        );
    }
    if round > paired + 1 {
        bail!(
            "round {round} cannot be paired: round {} has not been paired yet",
            paired + 1
        );
    }
    if let Some(c) = initial_colour {
        trf.tournament.initial_colour = match c {
            Colour::White => Side::White,
            Colour::Black => Side::Black,
        };
        trf.colour_declared = false;
    } else if !trf.colour_declared && paired == 0 {
        bail!(
            "{}: the file does not say which colour pairing number 1 has in round 1 (C.04.3 5.1: drawn by lot): add a line `XXC white1` or `XXC black1`, or give --initial-colour white",
            file.display()
        );
    }
    if write.is_some() && round <= paired {
        bail!(
            "--write adds the next round (round {}), not round {round}, which the file has already",
            paired + 1
        );
    }
    let before = trf.tournament.before(round);
    if checklist {
        print_checklist(&before, round, out)?;
    }
    let pairing = before.pair(round).map_err(|e| anyhow::anyhow!("{e}"))?;
    match format {
        PairFormat::Pairs => {
            writeln!(
                out,
                "{}",
                pairing.games.len() + usize::from(pairing.bye.is_some())
            )?;
            for g in &pairing.games {
                writeln!(out, "{} {}", g.white + 1, g.black + 1)?;
            }
            if let Some(b) = pairing.bye {
                writeln!(out, "{} 0", b + 1)?;
            }
        }
        PairFormat::Json => {
            let games: Vec<_> = pairing
                .games
                .iter()
                .enumerate()
                .map(|(i, g)| json!({"board": i + 1, "white": g.white + 1, "black": g.black + 1}))
                .collect();
            let v = json!({"round": round, "games": games, "bye": pairing.bye.map(|b| b + 1)});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        PairFormat::Text => {
            writeln!(out, "round {round}")?;
            for (i, g) in pairing.games.iter().enumerate() {
                writeln!(
                    out,
                    "{:>3}. {} - {}",
                    i + 1,
                    name(&trf, g.white),
                    name(&trf, g.black)
                )?;
            }
            if let Some(b) = pairing.bye {
                writeln!(out, "bye: {}", name(&trf, b))?;
            }
        }
    }
    if let Some(path) = write {
        add_round(&mut trf, &pairing);
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create {} (it must not exist yet)", path.display()))?;
        f.write_all(trf.write().as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The pairing cards of `round`, by pairing score then number: the
/// number, the score paired on, the colours played, the preference (`W`
/// absolute, `(W)` strong, `w` mild), whether the player may get the bye
/// (\[C2\]), and the floats of the last two rounds (`D`, `U`).
fn print_checklist(
    t: &crate::domain::event::swiss::Tournament,
    round: u32,
    out: &mut dyn Write,
) -> Result<()> {
    use crate::domain::event::swiss::card::{self, Float};
    let mut cards = card::cards(t, round);
    cards.sort_by(|a, b| {
        b.pairing_score
            .cmp(&a.pairing_score)
            .then(a.rank.cmp(&b.rank))
    });
    writeln!(
        out,
        "{:>4} {:>5} {:<12} {:>4} {:>2} {:>2} {:>2}",
        "no", "pts", "colours", "pref", "C2", "F1", "F2"
    )?;
    let letter = |s: Side| if s == Side::White { 'W' } else { 'B' };
    for c in &cards {
        let colours: String = c.colours.iter().map(|&s| letter(s)).collect();
        let pref = match c.preference {
            None => "-".to_string(),
            Some(s) if c.absolute() => letter(s).to_string(),
            Some(s) if c.strong => format!("({})", letter(s)),
            Some(s) => letter(s).to_ascii_lowercase().to_string(),
        };
        let float = |f: Float| match f {
            Float::Down => "D",
            Float::Up => "U",
            Float::None => "",
        };
        writeln!(
            out,
            "{:>4} {:>5} {:<12} {:>4} {:>2} {:>2} {:>2}",
            c.player + 1,
            c.pairing_score.decimal(),
            colours,
            pref,
            if c.bye_eligible { "Y" } else { "N" },
            float(c.float(1)),
            float(c.float(2))
        )?;
    }
    Ok(())
}

/// Adds a paired round to the file's tournament: games without results,
/// the bye.
fn add_round(trf: &mut Trf, pairing: &RoundPairing) {
    let index = pairing.round as usize - 1;
    let t = &mut trf.tournament;
    let mut put = |p: usize, e: Entry| {
        let rounds = &mut t.players[p].rounds;
        rounds.truncate(index);
        rounds.resize(
            index,
            Entry::Unpaired(crate::domain::event::swiss::Absence::Zero),
        );
        rounds.push(e);
    };
    for &Pairing { white, black } in &pairing.games {
        for (me, them, colour) in [(white, black, Side::White), (black, white, Side::Black)] {
            put(
                me,
                Entry::Game {
                    opponent: them,
                    colour,
                    result: None,
                    played: true,
                },
            );
        }
    }
    if let Some(b) = pairing.bye {
        put(b, Entry::PairingBye);
    }
}

fn check(file: &Path, format: super::Format, out: &mut dyn Write) -> Result<ExitCode> {
    let trf = read(file)?;
    let t = &trf.tournament;
    let paired = t.paired_rounds();
    let mut first = None;
    let mut report = Vec::new();
    for round in 1..=paired {
        let theirs = t.pairing_of(round);
        let ours = t.before(round).pair(round);
        let line = match &ours {
            Err(e) => {
                first.get_or_insert(round);
                json!({"round": round, "same": false, "error": e.to_string()})
            }
            Ok(ours) => match ours.difference(&theirs) {
                None => json!({"round": round, "same": true}),
                Some(d) => {
                    first.get_or_insert(round);
                    let games =
                        |v: &[Pairing]| v.iter().map(|g| format!("{g}")).collect::<Vec<_>>();
                    json!({
                        "round": round,
                        "same": false,
                        "dopis": games(&d.only_first),
                        "file": games(&d.only_second),
                        "bye": d.byes.map(|(a, b)| json!({"dopis": a.map(|x| x + 1), "file": b.map(|x| x + 1)})),
                    })
                }
            },
        };
        report.push(line);
    }
    match format {
        super::Format::Json => {
            let v = json!({"rounds": report, "first_difference": first});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        super::Format::Text => {
            for r in &report {
                let round = &r["round"];
                if r["same"] == true {
                    writeln!(out, "round {round}: the same")?;
                } else if let Some(e) = r["error"].as_str() {
                    writeln!(out, "round {round}: {e}")?;
                } else {
                    let list = |k: &str| {
                        r[k].as_array()
                            .map(|a| {
                                a.iter()
                                    .filter_map(|x| x.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            })
                            .unwrap_or_default()
                    };
                    writeln!(out, "round {round}: differs")?;
                    writeln!(out, "  dopis pairs: {}", list("dopis"))?;
                    writeln!(out, "  the file has: {}", list("file"))?;
                    if let Some(b) = r["bye"].as_object() {
                        writeln!(out, "  bye: dopis {}, the file {}", b["dopis"], b["file"])?;
                    }
                }
            }
            match first {
                Some(r) => writeln!(out, "first difference: round {r} (of {paired})")?,
                None => writeln!(out, "all {paired} rounds are paired as dopis pairs them")?,
            }
        }
    }
    Ok(if first.is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn standings(
    file: &Path,
    names: &[String],
    after: Option<u32>,
    format: super::Format,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let trf = read(file)?;
    let mut tie_breaks = Vec::new();
    for n in names {
        tie_breaks.extend(TieBreak::named(n).map_err(|e| anyhow::anyhow!("{e}"))?);
    }
    if tie_breaks.is_empty() {
        tie_breaks = TieBreak::SWISS.to_vec();
    }
    let played = trf.tournament.paired_rounds();
    let after = after.unwrap_or(played);
    if after > played {
        bail!("--after {after}: the file has {played} rounds");
    }
    let table = tiebreaks::table(&trf.tournament, after, &tie_breaks);
    match format {
        super::Format::Json => {
            let rows: Vec<_> = table
                .rows
                .iter()
                .map(|r| {
                    let values: serde_json::Map<String, serde_json::Value> = tie_breaks
                        .iter()
                        .zip(&r.tie_breaks)
                        .map(|(t, v)| (t.abbreviation().to_string(), json!(v.map(|v| v.as_f64()))))
                        .collect();
                    json!({
                        "rank": r.rank,
                        "player": r.player + 1,
                        "name": trf.people.get(r.player).map(|p| p.name.clone()),
                        "points": r.points.as_f64(),
                        "tie_breaks": values,
                    })
                })
                .collect();
            writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&json!({"after": after, "rows": rows}))?
            )?;
        }
        super::Format::Text => {
            let heads: Vec<String> = tie_breaks
                .iter()
                .map(|t| format!("{:>6}", t.abbreviation()))
                .collect();
            writeln!(
                out,
                "{:>5}  {:<32} {:>5} {}",
                "rank",
                "player",
                "pts",
                heads.join(" ")
            )?;
            for r in &table.rows {
                let rank = if r.rank == r.rank_to {
                    r.rank.to_string()
                } else {
                    format!("{}-{}", r.rank, r.rank_to)
                };
                let values: Vec<String> = r
                    .tie_breaks
                    .iter()
                    .map(|v| format!("{:>6}", v.map(|v| v.to_string()).unwrap_or_default()))
                    .collect();
                writeln!(
                    out,
                    "{rank:>5}  {:<32} {:>5} {}",
                    name(&trf, r.player),
                    r.points.to_string(),
                    values.join(" ")
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
