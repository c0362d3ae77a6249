//! `dopis tablebase probe`: what the endgame tables say of a position, as
//! `dopis move --fen` says what a move text means.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Subcommand;
use serde_json::json;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

use super::Format;
use crate::adapter::config::Config;
use crate::domain::chess::tablebase::{MoveReading, Reading, TablebaseRule, Tables, Unread, Wdl};

/// `dopis tablebase …`.
#[derive(Debug, Subcommand)]
pub enum TablebaseCommand {
    /// What the tables say of a position: WDL, DTZ, the result by ICCF's
    /// rule and by the 50-move rule, and every move, best first. Exit code 0
    /// when the tables hold the position, 1 when they do not, 2 for a bad
    /// FEN or no tables.
    Probe {
        /// The position, as FEN.
        #[arg(long, required_unless_present = "batch")]
        fen: Option<String>,
        /// Read FENs from stdin, one a line, and answer a JSON line each
        /// (`wdl` as python-chess numbers it, -2..2, and `dtz`).
        #[arg(long, conflicts_with = "fen")]
        batch: bool,
        /// Folders of tables, instead of the config's `[tablebase] syzygy_path`.
        #[arg(long = "syzygy-path", value_name = "DIR")]
        syzygy_path: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
}

/// Runs `dopis tablebase …`.
pub fn run(command: &TablebaseCommand, config: &Config, out: &mut dyn Write) -> Result<ExitCode> {
    let TablebaseCommand::Probe {
        fen,
        batch,
        syzygy_path,
        format,
    } = command;
    let mut config = config.clone();
    if !syzygy_path.is_empty() {
        config.tablebase.syzygy_path = syzygy_path.clone();
    }
    if config.tablebase.syzygy_path.is_empty() {
        return usage(
            "no endgame tables: set [tablebase] syzygy_path in the config, or give --syzygy-path DIR",
        );
    }
    let (tables, _) = crate::service::app::open_tables(&config)?;
    if *batch {
        let stdin = std::io::stdin();
        return probe_batch(tables.as_ref(), &mut stdin.lock(), out);
    }
    let fen = fen.as_deref().unwrap_or_default();
    let position = match position(fen) {
        Ok(position) => position,
        Err(e) => return usage(&e.to_string()),
    };
    match (tables.read(&position), format) {
        (Err(why), Format::Json) => {
            writeln!(
                out,
                "{}",
                json!({"fen": fen, "unread": why, "error": why.to_string()})
            )?;
            Ok(ExitCode::FAILURE)
        }
        (Err(why), Format::Text) => {
            writeln!(out, "not in the tables: {why}")?;
            Ok(ExitCode::FAILURE)
        }
        (Ok(reading), format) => {
            let moves = tables.moves(&position).unwrap_or_default();
            match format {
                Format::Json => writeln!(
                    out,
                    "{}",
                    serde_json::to_string_pretty(&json!({
                        "fen": fen,
                        "reading": reading,
                        "result": {
                            "iccf": reading.result(TablebaseRule::Iccf).map(|r| r.as_pgn()),
                            "fifty-move": reading.result(TablebaseRule::FiftyMove).map(|r| r.as_pgn()),
                        },
                        "moves": moves,
                    }))?
                )?,
                Format::Text => text(&reading, &moves, out)?,
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A bad argument: said on stderr, exit code 2 (1 is "not in the tables").
fn usage(message: &str) -> Result<ExitCode> {
    eprintln!("dopis tablebase probe: {message}");
    Ok(ExitCode::from(2))
}

/// A FEN read as a position, or what is wrong with it.
fn position(fen: &str) -> Result<Chess> {
    let parsed: Fen = fen.trim().parse().map_err(|e| {
        anyhow::anyhow!(
            "--fen {fen:?} is not a FEN ({e}); write e.g. \"8/8/8/4k3/8/8/8/R3K3 w - - 0 1\""
        )
    })?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| anyhow::anyhow!("--fen {fen:?} is not a legal position: {e}"))
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The verdict in words, for the side to move.
fn verdict(wdl: Wdl, turn: Color) -> String {
    let (mover, other) = (colour(turn), colour(!turn));
    match wdl {
        Wdl::Win => format!("win for {mover} (the side to move)"),
        Wdl::CursedWin => {
            format!("cursed win for {mover}: won, but not within the 50-move rule")
        }
        Wdl::Draw => "draw".into(),
        Wdl::BlessedLoss => {
            format!(
                "blessed loss for {mover}: lost, but saved by the 50-move rule ({other} cannot win in time)"
            )
        }
        Wdl::Loss => format!("loss for {mover} ({other} wins)"),
    }
}

fn text(reading: &Reading, moves: &[MoveReading], out: &mut dyn Write) -> std::io::Result<()> {
    let result = |rule| {
        reading.result(rule).map_or(
            "open (the tables' rounding cannot tell so near the line)",
            |r| r.as_pgn(),
        )
    };
    writeln!(
        out,
        "{}, {} to move ({} pieces; {} half-moves since a capture or pawn move)",
        reading.material,
        colour(reading.turn),
        reading.pieces,
        reading.halfmoves
    )?;
    writeln!(out, "WDL: {}", verdict(reading.wdl, reading.turn))?;
    match reading.dtz {
        Some(dtz) => writeln!(out, "DTZ: {dtz}")?,
        None => writeln!(out, "DTZ: no DTZ table here")?,
    }
    writeln!(
        out,
        "by ICCF's rule: {}; by the 50-move rule: {}",
        result(TablebaseRule::Iccf),
        result(TablebaseRule::FiftyMove)
    )?;
    writeln!(out, "moves, best first:")?;
    for m in moves {
        let word = match m.wdl {
            Wdl::Win => "win",
            Wdl::CursedWin => "cursed win",
            Wdl::Draw => "draw",
            Wdl::BlessedLoss => "blessed loss",
            Wdl::Loss => "loss",
        };
        // The tables give the DTZ after the move for the opponent; the
        // mover reads it as their own distance.
        let dtz = m
            .dtz
            .map(|d| {
                let own = crate::domain::chess::tablebase::Dtz {
                    plies: -d.plies,
                    ..d
                };
                format!(", then DTZ {own}")
            })
            .unwrap_or_default();
        writeln!(out, "  {:<8} {:<6} {word}{dtz}", m.san, m.uci)?;
    }
    Ok(())
}

/// One JSON line per FEN of stdin; a line that is no position or that the
/// tables do not hold is answered with its error, and the batch goes on.
fn probe_batch(
    tables: &dyn Tables,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    for line in input.lines() {
        let line = line?;
        let fen = line.trim();
        if fen.is_empty() {
            continue;
        }
        let answer = match position(fen) {
            Err(e) => json!({"fen": fen, "error": e.to_string()}),
            Ok(position) => match tables.read(&position) {
                Ok(r) => json!({
                    "fen": fen,
                    "wdl": r.wdl.as_number(),
                    "dtz": r.dtz.map(|d| d.plies),
                    "rounded": r.dtz.map(|d| d.rounded),
                }),
                Err(why) => {
                    let why: Unread = why;
                    json!({"fen": fen, "error": why.to_string(), "unread": why})
                }
            },
        };
        writeln!(out, "{answer}")?;
    }
    Ok(ExitCode::SUCCESS)
}
