//! `dopis game …`

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Subcommand;
use serde::Serialize;

use super::Format;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::StartPosition;
use crate::domain::chess::game::Variant;
use crate::domain::clock::TimeControl;
use crate::domain::ids::GameId;
use crate::domain::player::Player;
use crate::service::app::App;
use crate::service::games::{self, GameRecord, StoredMove};
use crate::service::players;
use crate::service::post::Post;
use crate::service::start::start_game;

/// Game subcommands.
#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Start a game between two registered players and send them the first
    /// mails; prints the new game's number.
    New {
        /// White's e-mail address.
        #[arg(long)]
        white: EmailAddress,
        /// Black's e-mail address.
        #[arg(long)]
        black: EmailAddress,
        /// Time control: 3d, 10/50d, 30d+3d, … (see docs/td.md).
        #[arg(long, default_value = "3d")]
        control: TimeControl,
        /// Play Chess960 from position N (0-959), or `random`.
        #[arg(long, value_name = "N|random", conflicts_with = "fen")]
        chess960: Option<Chess960Choice>,
        /// Start from this position (FEN) instead of the usual one: a game
        /// moved into dopis mid-way, an endgame, a thematic opening. White
        /// must be to move (the first mails go to White).
        #[arg(long, value_name = "FEN")]
        fen: Option<String>,
    },
    /// List games.
    List {
        /// Only games being played.
        #[arg(long)]
        active: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Show one game.
    Show {
        /// The game's number.
        id: i64,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// TD: set, adjudicate or cancel a result; both players are told.
    ///
    /// The kind says how the result was reached, as ICCF records it:
    /// `adjudication` (the default), `time` (a loss on time), `default`
    /// (won without play: the loser never started or withdrew) or
    /// `cancelled` (no result: the game counts for nobody; give no
    /// RESULT). Crosstables mark them 1A/½A/0A, 1E/0E, +/- and x.
    Result {
        /// The game's number.
        id: i64,
        /// 1-0, 0-1 or 1/2-1/2 (none for --kind cancelled).
        result: Option<super::event::ResultArg>,
        /// How the result was reached.
        #[arg(long, value_enum, default_value_t = super::event::KindArg::Adjudication)]
        kind: super::event::KindArg,
        /// Why (told to the players and recorded).
        #[arg(long)]
        reason: String,
        /// The TD doing it (one of the event's TDs for an event game).
        #[arg(long)]
        by: EmailAddress,
    },
    /// TD: adjudicate a game by the endgame tables: the position now,
    /// judged under its event's tablebase_rule, becomes the result, with
    /// the table, DTZ and rule as the reason; both players are told.
    Adjudicate {
        /// The game's number.
        id: i64,
        /// Judge by the endgame tables (`[tablebase] syzygy_path`).
        #[arg(long, required = true)]
        tablebase: bool,
        /// The TD doing it (one of the event's TDs for an event game).
        #[arg(long)]
        by: EmailAddress,
    },
    /// TD: extend a player's deadline; both players are told.
    Extend {
        /// The game's number.
        id: i64,
        /// Days to add.
        #[arg(long)]
        days: u32,
        /// Whose deadline (default: the side to move).
        #[arg(long, value_enum)]
        side: Option<super::event::SideArg>,
        /// Why (told to the players and recorded).
        #[arg(long)]
        reason: String,
        /// The TD doing it (one of the event's TDs for an event game).
        #[arg(long)]
        by: EmailAddress,
    },
}

/// A Chess960 position by number, or one drawn at random.
#[derive(Debug, Clone, Copy)]
pub enum Chess960Choice {
    /// Position 0-959.
    Number(u16),
    /// Any of the 960.
    Random,
}

impl std::str::FromStr for Chess960Choice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("random") {
            return Ok(Chess960Choice::Random);
        }
        match s.parse::<u16>() {
            Ok(n) if n < 960 => Ok(Chess960Choice::Number(n)),
            _ => Err(format!(
                "'{s}' is not a Chess960 position: give a number from 0 to 959 (518 is the standard \
                 array) or `random`"
            )),
        }
    }
}

/// A game as `game show` and `game list` print it, with the players' details.
#[derive(Debug, Serialize)]
struct GameListing<'a> {
    #[serde(flatten)]
    game: &'a GameRecord,
    white_player: PlayerSummary<'a>,
    black_player: PlayerSummary<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clocks: Option<ClocksView>,
}

/// Both clocks as `game show --format json` prints them.
#[derive(Debug, Serialize)]
struct ClocksView {
    /// `white` or `black`.
    to_move: &'static str,
    /// The deadline of the side to move, while the game goes on.
    next_deadline: Option<chrono::DateTime<chrono::Utc>>,
    white: crate::domain::clock::ClockState,
    black: crate::domain::clock::ClockState,
}

fn clocks_view(clocks: &crate::domain::clock::Clocks, over: bool) -> ClocksView {
    ClocksView {
        to_move: crate::domain::chess::side::key(clocks.to_move),
        next_deadline: clocks
            .players
            .get(clocks.to_move)
            .next_deadline
            .filter(|_| !over),
        white: clocks.players.white,
        black: clocks.players.black,
    }
}

#[derive(Debug, Serialize)]
struct PlayerSummary<'a> {
    email: &'a EmailAddress,
    name: &'a str,
}

impl<'a> From<&'a Player> for PlayerSummary<'a> {
    fn from(p: &'a Player) -> Self {
        PlayerSummary {
            email: &p.email,
            name: &p.name,
        }
    }
}

/// The moves as numbered SAN movetext: `1. e4 e5 2. Nf3`.
fn movetext(moves: &[StoredMove]) -> String {
    let mut text = String::new();
    for m in moves {
        if m.ply % 2 == 1 {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&format!("{}. {}", (m.ply + 1) / 2, m.san));
        } else {
            text.push_str(&format!(" {}", m.san));
        }
    }
    text
}

fn status_text(g: &GameRecord) -> String {
    if let Some(c) = g.cancellation().filter(|_| g.is_cancelled()) {
        return format!("cancelled by the TD ({})", c.why);
    }
    if g.status == games::GameStatus::Finished && g.result.is_none() {
        return "annulled by a withdrawal".into();
    }
    match (&g.result, &g.end_reason) {
        (Some(result), Some(reason)) => format!("finished {result} ({reason})"),
        (Some(result), None) => format!("finished {result}"),
        _ => "active".into(),
    }
}

/// Runs a game subcommand.
pub async fn run(app: &App, cmd: GameCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let store = &app.store;
    match cmd {
        GameCommand::Result {
            id,
            result,
            kind,
            reason,
            by,
        } => return super::event::result(app, id, result, kind, &reason, &by, out).await,
        GameCommand::Extend {
            id,
            days,
            side,
            reason,
            by,
        } => return super::event::extend(app, id, days, side, &reason, &by, out).await,
        GameCommand::Adjudicate { id, by, .. } => {
            let (tables, _) = crate::service::app::open_tables(&app.config)?;
            if tables.most_pieces() == 0 {
                bail!(
                    "no endgame tables are set up: set [tablebase] syzygy_path in the config (docs/admin.md: Endgame tables)"
                );
            }
            let post = Post::new(&app.config.mail)?.with_pages(app.config.web.base()?);
            let mut tx = store.begin().await?;
            let proof = crate::service::td::adjudicate_by_tables(
                &mut tx,
                &post,
                GameId(id),
                tables.as_ref(),
                &by,
                app.clock.now(),
            )
            .await?;
            tx.commit().await?;
            writeln!(
                out,
                "game #{id} adjudicated by the tables: {proof}; both players are told"
            )?;
        }
        GameCommand::New {
            white,
            black,
            control,
            chess960,
            fen,
        } => {
            if white == black {
                bail!(
                    "a player cannot play themselves: give two different addresses to --white and --black"
                );
            }
            let start = match (chess960, fen) {
                (_, Some(fen)) => StartPosition::playable_fen(&fen)?,
                (None, None) => StartPosition::Standard,
                (Some(Chess960Choice::Number(n)), None) => StartPosition::chess960(n)?,
                (Some(Chess960Choice::Random), None) => {
                    StartPosition::random_chess960(&mut rand::rng())
                }
            };
            let w = players::by_email(store, &white).await?;
            let b = players::by_email(store, &black).await?;
            let post = Post::new(&app.config.mail)?.with_pages(app.config.web.base()?);
            let id = start_game(store, &post, w.id, b.id, start, control, app.clock.now()).await?;
            writeln!(out, "{}", id.0)?;
        }
        GameCommand::List { active, format } => {
            let views = games::list(store, active, format == Format::Json).await?;
            match format {
                Format::Json => {
                    let list: Vec<GameListing> = views
                        .iter()
                        .map(|(g, w, b)| GameListing {
                            game: g,
                            white_player: w.into(),
                            black_player: b.into(),
                            clocks: None,
                        })
                        .collect();
                    writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
                }
                Format::Text => {
                    for (g, w, b) in &views {
                        writeln!(
                            out,
                            "{}\t{} - {}\t{}\t{}",
                            g.id,
                            w.name,
                            b.name,
                            g.time_control,
                            status_text(g)
                        )?;
                    }
                }
            }
        }
        GameCommand::Show { id, format } => {
            let (g, w, b) = games::show(store, GameId(id)).await?;
            let table = crate::service::start::table(store, GameId(id)).await?;
            let now = app.clock.now();
            let over = table.game.is_over();
            let clocks = table.clock.as_ref().map(|c| c.clocks(now));
            match format {
                Format::Json => {
                    let view = GameListing {
                        game: &g,
                        white_player: (&w).into(),
                        black_player: (&b).into(),
                        clocks: clocks.as_ref().map(|c| clocks_view(c, over)),
                    };
                    writeln!(out, "{}", serde_json::to_string_pretty(&view)?)?;
                }
                Format::Text => {
                    writeln!(out, "game {}", g.id)?;
                    writeln!(out, "white:        {} <{}>", w.name, w.email)?;
                    writeln!(out, "black:        {} <{}>", b.name, b.email)?;
                    let variant = match (g.variant, g.chess960_number) {
                        (Variant::Chess960, Some(n)) => format!("Chess960 position {n}"),
                        (Variant::Chess960, None) => "Chess960".into(),
                        (Variant::Standard, _) => "standard".into(),
                    };
                    writeln!(out, "variant:      {variant}")?;
                    writeln!(out, "time control: {}", g.time_control)?;
                    writeln!(out, "status:       {}", status_text(&g))?;
                    if let Some(c) = &clocks {
                        writeln!(
                            out,
                            "clocks:       {}",
                            crate::service::post::clocks_text(c, g.time_control)
                        )?;
                        let side = c.to_move;
                        if let Some(deadline) = c.players.get(side).next_deadline.filter(|_| !over)
                        {
                            let player = if side.is_white() { &w } else { &b };
                            writeln!(
                                out,
                                "deadline:     {} ({} to move)",
                                crate::domain::clock::describe_deadline(deadline, player.tz),
                                player.name
                            )?;
                        }
                    }
                    let moves = movetext(&g.moves);
                    writeln!(
                        out,
                        "moves:        {}",
                        if moves.is_empty() { "none yet" } else { &moves }
                    )?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
