//! `dopis event …` and the TD's game tools (`dopis game result|extend`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Subcommand, ValueEnum};
use serde::Serialize;
use shakmaty::Color;

use super::Format;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::GameResult;
use crate::domain::event::EventStatus;
use crate::domain::ids::EventId;
use crate::domain::ids::GameId;
use crate::domain::lang::Lang;
use crate::service::app::App;
use crate::service::post::Post;
use crate::service::td::{
    self, EntrantRecord, EventRecord, PairedGame, StoredEvent, TdAction, TeamRecord,
};

/// Event subcommands.
#[derive(Debug, Subcommand)]
pub enum EventCommand {
    /// Create an event from its TOML file (format: docs/td.md, "The event file"); prints its number.
    Create {
        /// The event file.
        file: PathBuf,
        /// A Swiss event moved into dopis mid-way: the TRF file of the
        /// rounds played so far (each TRF player is the event file's
        /// player of the same name); `event start` pairs the next round.
        #[arg(long, requires = "by")]
        trf: Option<PathBuf>,
        /// The TD moving the event in (one of the file's tds), with --trf.
        #[arg(long, requires = "trf")]
        by: Option<EmailAddress>,
    },
    /// Create an event that takes entries by mail (its file has an
    /// `[entries]` table), announce it to the players who asked to hear
    /// (`notify announcements`); prints its number and how to enter.
    Open {
        /// The event file.
        file: PathBuf,
    },
    /// An event's entries by mail (text or JSON); with --add or --refuse,
    /// a TD's change to them first (the entrant is told).
    Entries {
        /// The event's number.
        id: i64,
        /// Enter this address (registered now when --name is given).
        #[arg(long, value_name = "EMAIL", conflicts_with = "refuse")]
        add: Option<EmailAddress>,
        /// The name to register an --add address with, when it is no player.
        #[arg(long, requires = "add")]
        name: Option<String>,
        /// The language to register an --add address with.
        #[arg(long, default_value = "en", requires = "add")]
        lang: Lang,
        /// Refuse this address's entry (with --reason).
        #[arg(long, value_name = "EMAIL", requires = "reason")]
        refuse: Option<EmailAddress>,
        /// Why the entry is refused: recorded and told to the entrant.
        #[arg(long)]
        reason: Option<String>,
        /// The TD making the change (one of the event's TDs).
        #[arg(long)]
        by: Option<EmailAddress>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Add a player to a round robin before it starts.
    AddPlayer {
        /// The event's number.
        id: i64,
        /// The player's address (registered now if new).
        #[arg(long)]
        email: EmailAddress,
        /// The player's name, to register a new player.
        #[arg(long)]
        name: Option<String>,
        /// The player's language, to register a new player.
        #[arg(long, default_value = "en")]
        lang: Lang,
    },
    /// Add a team to an olympiad or team match before it starts.
    AddTeam {
        /// The event's number.
        id: i64,
        /// The team's name.
        #[arg(long)]
        name: String,
        /// A registered player's address, once per board, board 1 first.
        #[arg(long = "board", value_name = "EMAIL")]
        boards: Vec<EmailAddress>,
        /// A registered player's address, once per reserve.
        #[arg(long = "reserve", value_name = "EMAIL")]
        reserves: Vec<EmailAddress>,
    },
    /// Start every game of the event at once and send the first mails.
    Start {
        /// The event's number.
        id: i64,
    },
    /// Show an event: settings, entrants, TD log.
    Show {
        /// The event's number.
        id: i64,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// List events.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// The games by round: who plays whom with which colour (and, once
    /// started, the game numbers and results).
    Pairings {
        /// The event's number.
        id: i64,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Every game of the event as one PGN file (Event, Site, Round, Board,
    /// EventDate… tags; unfinished games end in `*`).
    Pgn {
        /// The event's number.
        id: i64,
        /// Write the PGN to this file instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
        /// The `Site` tag (default: the domain of `[mail] address`).
        #[arg(long)]
        site: Option<String>,
    },
    /// A Swiss event as a FIDE Tournament Report File (TRF16, with `XXR`,
    /// `XXC` and the points of TRF-2026), every paired round in it: check
    /// it with `dopis swiss check FILE` or a FIDE-endorsed pairing program.
    Trf {
        /// The event's number.
        id: i64,
        /// Write the file here instead of standard output.
        #[arg(long)]
        output: Option<PathBuf>,
        /// The file as it stood before this round was paired (the rounds
        /// before it, with results, and who was not to be paired in it):
        /// a FIDE-endorsed program pairs the round from it, to compare.
        #[arg(long, value_name = "ROUND")]
        before_round: Option<u32>,
    },
    /// The standings as a crosstable (a Swiss event: a column per round).
    Standings {
        /// The event's number.
        id: i64,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: TableFormat,
        /// Team events: after the match table, a table per board (each
        /// board's players, their points and their games).
        #[arg(long)]
        boards: bool,
    },
    /// Withdraw a player: their unfinished games close by the event's rule.
    Withdraw {
        /// The event's number.
        id: i64,
        /// The player's address.
        #[arg(long)]
        email: EmailAddress,
        /// The TD doing it (one of the event's TDs).
        #[arg(long)]
        by: EmailAddress,
        /// Why (told to the players and recorded).
        #[arg(long)]
        reason: String,
    },
    /// Give a player of a Swiss event a half-point bye in a round not yet
    /// paired: by the rules of the bye they may ask for by mail (up to the
    /// file's max_half_point_byes, which binds a TD too). Logged, and the
    /// player is told.
    Bye {
        /// The event's number.
        id: i64,
        /// The player's address.
        #[arg(long)]
        email: EmailAddress,
        /// The round (from 1) they are not paired in.
        #[arg(long)]
        round: u32,
        /// The TD doing it (one of the event's TDs).
        #[arg(long)]
        by: EmailAddress,
        /// Why (told to the player and recorded).
        #[arg(long)]
        reason: String,
    },
    /// Pair a Swiss event's current round again, before any of its games
    /// has a move (after a corrected result of the round before, or a late
    /// entry): its games are cancelled and their players told, and the
    /// round is paired anew with its mails, all in one transaction.
    RepairRound {
        /// The event's number.
        id: i64,
        /// The TD doing it (one of the event's TDs).
        #[arg(long)]
        by: EmailAddress,
        /// Why (told to the players and recorded).
        #[arg(long)]
        reason: String,
    },
    /// Enter many results at once from a CSV or PGN file, all or nothing.
    ///
    /// A FILE ending in .pgn is read as PGN: each game's Round, Board (team
    /// events), White, Black and Result tags, Termination for the kind
    /// (time forfeit, adjudication, abandoned = default), and its moves,
    /// stored when the game has none yet (else ignored, with a note).
    /// Any other FILE is CSV:
    ///
    /// The first line names the columns: round, board (team events),
    /// white, black, result, kind, reason (round, white, black and result
    /// required). Players by address or by name as the event knows them;
    /// result 1-0, 0-1, 1/2-1/2, empty for kind cancelled; kind board (the
    /// default), time, adjudication, default or cancelled; reason told to
    /// the players (default: the file's name and line). Any bad line
    /// refuses the whole file, naming each line and what to fix.
    ImportResults {
        /// The event's number.
        id: i64,
        /// The CSV file, or a PGN file (ending in .pgn).
        file: PathBuf,
        /// The TD doing it (one of the event's TDs).
        #[arg(long)]
        by: EmailAddress,
        /// Print what would change (each game: before -> after); change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Send no game-over mails (historical results).
        #[arg(long)]
        no_mail: bool,
    },
    /// Who may see the event's web pages (`dopis web`): prints it and the
    /// event page's address; with a value, sets it first. public: listed
    /// on the index; unlisted: by the printed link only; private: its own
    /// players only, through their private links.
    Visibility {
        /// The event's number.
        id: i64,
        /// public, unlisted or private (absent: print the current one).
        value: Option<crate::domain::event::Visibility>,
        /// The TD changing it (one of the event's TDs); needed with a value.
        #[arg(long)]
        by: Option<EmailAddress>,
        /// Why (recorded in the event's log).
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Replace a player by a registered substitute, who inherits the games.
    Replace {
        /// The event's number.
        id: i64,
        /// The player leaving.
        #[arg(long)]
        email: EmailAddress,
        /// The substitute.
        #[arg(long = "with", value_name = "EMAIL")]
        with: EmailAddress,
        /// The TD doing it (one of the event's TDs).
        #[arg(long)]
        by: EmailAddress,
        /// Why (told to the players and recorded).
        #[arg(long)]
        reason: String,
    },
}

/// Formats of a crosstable.
#[derive(Debug, Clone, Copy, Default, ValueEnum, PartialEq, Eq)]
pub enum TableFormat {
    /// Fixed-width text.
    #[default]
    Text,
    /// CSV (RFC 4180).
    Csv,
    /// JSON.
    Json,
    /// An HTML table.
    Html,
}

/// A game result as the TD writes it.
#[derive(Debug, Clone, Copy)]
pub struct ResultArg(pub GameResult);

impl std::str::FromStr for ResultArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().replace('½', "1/2");
        GameResult::from_pgn(&s)
            .map(ResultArg)
            .ok_or_else(|| format!("'{s}' is not a result: write 1-0, 0-1 or 1/2-1/2"))
    }
}

/// How a TD's result was reached (`--kind`).
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum KindArg {
    /// Lost on time (ICCF 1E/0E).
    Time,
    /// Adjudicated (ICCF 1A/½A/0A).
    Adjudication,
    /// Won without play: the loser never started or withdrew (ICCF +/-).
    Default,
    /// Cancelled: no result, counts for nobody.
    Cancelled,
}

impl KindArg {
    /// The result kind it names.
    pub fn kind(self) -> crate::domain::chess::outcome::ResultKind {
        use crate::domain::chess::outcome::ResultKind;
        match self {
            KindArg::Time => ResultKind::Time,
            KindArg::Adjudication => ResultKind::Adjudication,
            KindArg::Default => ResultKind::Default,
            KindArg::Cancelled => ResultKind::Cancelled,
        }
    }
}

/// A side of the board.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SideArg {
    /// White.
    White,
    /// Black.
    Black,
}

fn post(app: &App) -> Result<Post> {
    Ok(Post::new(&app.config.mail)?.with_pages(app.config.web.base()?))
}

/// Reads a results file as text: refused when it is too large, binary or
/// not UTF-8, before anything is parsed.
fn read_results_file(file: &std::path::Path) -> Result<String> {
    let shown = file.display();
    let size = std::fs::metadata(file)
        .with_context(|| format!("cannot read {shown}"))?
        .len();
    let max = crate::domain::event::import::MAX_BYTES;
    if size > max {
        anyhow::bail!(
            "{shown} is {size} bytes; a results file may have at most {max}: split it and import \
             each part"
        );
    }
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {shown}"))?;
    if bytes.contains(&0) {
        anyhow::bail!("{shown} is not a text file (it holds NUL bytes): give a CSV file");
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{shown} is not UTF-8 text (byte {}): save it as UTF-8 CSV",
            e.utf8_error().valid_up_to()
        )
    })
}

/// `dopis game result`: sets, adjudicates or cancels a result.
pub async fn result(
    app: &App,
    id: i64,
    result: Option<ResultArg>,
    kind: KindArg,
    reason: &str,
    by: &EmailAddress,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let ruling = match td::Ruling::new(result.map(|r| r.0), kind.kind()) {
        Ok(r) => r,
        Err(why) => anyhow::bail!("{why}"),
    };
    let post = post(app)?;
    let mut tx = app.store.begin().await?;
    td::set_result(
        &mut tx,
        &post,
        GameId(id),
        ruling,
        reason,
        by,
        app.clock.now(),
    )
    .await?;
    let late = td::late_for_final(&mut tx, GameId(id)).await?;
    let late_promotions = td::late_for_promotions(&mut tx, GameId(id)).await?;
    tx.commit().await?;
    match ruling {
        td::Ruling::Cancel => writeln!(out, "game #{id} cancelled; both players are told")?,
        td::Ruling::Result(..) => writeln!(
            out,
            "game #{id} set to {}; both players are told",
            ruling.describe()
        )?,
    }
    if let Some(late) = late {
        writeln!(out, "{}", late.describe())?;
    }
    if let Some(late) = late_promotions {
        writeln!(out, "{}", late.describe())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `dopis game extend`: extends a deadline.
pub async fn extend(
    app: &App,
    id: i64,
    days: u32,
    side: Option<SideArg>,
    reason: &str,
    by: &EmailAddress,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let post = post(app)?;
    let side = side.map(|s| match s {
        SideArg::White => Color::White,
        SideArg::Black => Color::Black,
    });
    let mut tx = app.store.begin().await?;
    td::extend(
        &mut tx,
        &post,
        GameId(id),
        days,
        side,
        reason,
        by,
        app.clock.now(),
    )
    .await?;
    tx.commit().await?;
    writeln!(
        out,
        "game #{id}: deadline extended by {days} days; both players are told"
    )?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct EventView<'a> {
    #[serde(flatten)]
    record: &'a EventRecord,
    time_control: String,
    leave_days: u32,
    withdrawal: &'static str,
    /// The event's analysis board link; absent: the server's `[mail] analysis_link`.
    #[serde(skip_serializing_if = "Option::is_none")]
    analysis_link: Option<String>,
    /// Whether players may pass messages to each other (`messages`).
    messages: bool,
    /// Whether the games count for the rating list (`rated`).
    rated: bool,
    tds: &'a [String],
    teams: &'a [TeamRecord],
    entrants: &'a [EntrantRecord],
    td_actions: &'a [TdAction],
}

/// Pairings as text (`Name (1834)` for a rated player) or JSON.
fn print_pairings(
    out: &mut dyn Write,
    games: &[PairedGame],
    ratings: &std::collections::HashMap<crate::domain::player::PlayerId, i32>,
    format: Format,
) -> Result<()> {
    let named = |p: &crate::domain::player::Player| match ratings.get(&p.id) {
        Some(r) => format!("{} ({r})", p.name),
        None => p.name.clone(),
    };
    match format {
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(games)?)?,
        Format::Text => {
            let mut round = 0;
            for g in games {
                if g.round != round {
                    round = g.round;
                    writeln!(out, "round {round}")?;
                    if let Some(bye) = &g.bye {
                        writeln!(out, "  bye: {bye}")?;
                    }
                }
                let team =
                    |t: &Option<String>| t.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
                let game = match (&g.game, &g.status) {
                    (Some(id), Some(status)) => format!("  game {id}  {status}"),
                    _ => String::new(),
                };
                writeln!(
                    out,
                    "  board {}: {}{} - {}{}{game}",
                    g.board,
                    named(&g.white),
                    team(&g.white_team),
                    named(&g.black),
                    team(&g.black_team)
                )?;
            }
        }
    }
    Ok(())
}

/// A team event's match table followed by its board tables: text and HTML
/// one after the other; CSV with a blank line and the board table's title
/// before each; JSON as `{"teams": table, "boards": [{"board": 1,
/// "table": table}, …]}`.
fn with_boards(
    teams: &crate::domain::event::crosstable::Crosstable,
    boards: &[crate::domain::event::boards::BoardTable],
    format: TableFormat,
) -> String {
    match format {
        TableFormat::Text => std::iter::once(teams.to_text())
            .chain(boards.iter().map(|b| b.table.to_text()))
            .collect::<Vec<_>>()
            .join("\n"),
        TableFormat::Html => std::iter::once(teams.to_html())
            .chain(boards.iter().map(|b| b.table.to_html()))
            .collect(),
        TableFormat::Csv => {
            let mut out = teams.to_csv();
            for b in boards {
                let title = b.table.title.replace('"', "\"\"");
                out.push_str(&format!("\r\n\"{title}\"\r\n{}", b.table.to_csv()));
            }
            out
        }
        TableFormat::Json => {
            let boards: Vec<serde_json::Value> = boards
                .iter()
                .map(|b| serde_json::json!({ "board": b.board, "table": b.table }))
                .collect();
            let all = serde_json::json!({ "teams": teams, "boards": boards });
            serde_json::to_string_pretty(&all).unwrap_or_default() + "\n"
        }
    }
}

/// The largest event file read (an olympiad of 20 teams of 20 boards is
/// far smaller).
const MAX_EVENT_FILE: u64 = 1024 * 1024;

/// An event file's text: refused when it cannot be read, is over
/// [`MAX_EVENT_FILE`] or is not UTF-8 text, with what to do instead.
fn read_event_file(file: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .and_then(|f| f.take(MAX_EVENT_FILE + 1).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read event file {}", file.display()))?;
    if bytes.len() as u64 > MAX_EVENT_FILE {
        anyhow::bail!(
            "event file {} is over {MAX_EVENT_FILE} bytes: is it the right file? An event file is a short TOML text",
            file.display()
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        let line = e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        anyhow::anyhow!(
            "event file {}: line {line} is not UTF-8 text (a binary file?): save the file as UTF-8 TOML",
            file.display()
        )
    })
}

/// The `Site` of an event's PGN when the TD names none: the domain of the
/// server's address (where a correspondence event is played), else `?`.
fn default_site(app: &App) -> String {
    EmailAddress::parse(&app.config.mail.address)
        .map_or_else(|_| "?".to_string(), |a| a.domain().to_string())
}

/// Runs an event subcommand.
pub async fn run(app: &App, cmd: EventCommand, out: &mut dyn Write) -> Result<ExitCode> {
    let now = app.clock.now();
    let mut tx = app.store.begin().await?;
    match cmd {
        EventCommand::Create {
            file,
            trf: Some(trf),
            by: Some(by),
        } => {
            let text = read_event_file(&file)?;
            let played = super::swiss::read(&trf)?;
            let resumed = td::create_from_trf(&mut tx, &text, &played, &by, now)
                .await
                .with_context(|| format!("event file {} with {}", file.display(), trf.display()))?;
            tx.commit().await?;
            writeln!(out, "{}", resumed.event.0)?;
            writeln!(
                out,
                "event #{} holds rounds 1 to {} of {} ({} games, finished as the file gives them);                  `dopis event start {}` pairs round {}",
                resumed.event.0,
                resumed.rounds_played,
                trf.display(),
                resumed.games,
                resumed.event.0,
                resumed.rounds_played + 1
            )?;
        }
        EventCommand::Create { file, .. } => {
            let text = read_event_file(&file)?;
            let id = td::create(&mut tx, &text, now)
                .await
                .with_context(|| format!("event file {}", file.display()))?;
            tx.commit().await?;
            writeln!(out, "{}", id.0)?;
        }
        EventCommand::Open { file } => {
            let text = read_event_file(&file)?;
            let post = post(app)?;
            let (id, told) = crate::service::entries::open(&mut tx, &post, &text, now)
                .await
                .with_context(|| format!("event file {}", file.display()))?;
            tx.commit().await?;
            writeln!(out, "{}", id.0)?;
            writeln!(
                out,
                "event #{} is open for entries: players enter by writing \"enter {}\" to {}; {told} players who asked for announcements were told",
                id.0, id.0, app.config.mail.address
            )?;
        }
        EventCommand::Entries {
            id,
            add,
            name,
            lang,
            refuse,
            reason,
            by,
            format,
        } => {
            use crate::service::entries::EntryChange;
            let change = match (add, refuse) {
                (Some(email), _) => Some(EntryChange::Add {
                    email,
                    register: name.map(|n| (n, lang)),
                }),
                (None, Some(email)) => Some(EntryChange::Refuse {
                    email,
                    reason: reason.unwrap_or_default(),
                }),
                (None, None) => None,
            };
            let by = match (&change, by) {
                (_, Some(by)) => by,
                (None, None) => {
                    // Only looking: any TD of the event will do.
                    let ev = StoredEvent::load(&mut tx, EventId(id)).await?;
                    ev.tds
                        .first()
                        .and_then(|t| EmailAddress::parse(t).ok())
                        .ok_or_else(|| anyhow::anyhow!("event #{id} has no TD"))?
                }
                (Some(_), None) => anyhow::bail!(
                    "say which TD makes the change with --by EMAIL (one of the event's TDs)"
                ),
            };
            let post = post(app)?;
            let entries =
                crate::service::entries::change(&mut tx, &post, EventId(id), change, &by, now)
                    .await?;
            tx.commit().await?;
            match format {
                Format::Json => {
                    serde_json::to_writer_pretty(&mut *out, &entries)?;
                    writeln!(out)?;
                }
                Format::Text => {
                    if entries.is_empty() {
                        writeln!(out, "event #{id} has no entries yet")?;
                    }
                    for e in &entries {
                        write!(
                            out,
                            "{:<10} {} <{}>{}",
                            e.status.key(),
                            e.name,
                            e.email,
                            if e.stranger { " (new address)" } else { "" }
                        )?;
                        match &e.reason {
                            Some(r) => writeln!(out, ": {r}")?,
                            None => writeln!(out)?,
                        }
                    }
                }
            }
        }
        EventCommand::AddPlayer {
            id,
            email,
            name,
            lang,
        } => {
            let register = name.as_deref().map(|n| (n, lang));
            let (player, seat) =
                td::add_player(&mut tx, EventId(id), &email, register, now).await?;
            tx.commit().await?;
            writeln!(out, "{} is number {seat} in event #{id}", player.name)?;
        }
        EventCommand::AddTeam {
            id,
            name,
            boards,
            reserves,
        } => {
            let number = td::add_team(&mut tx, EventId(id), &name, &boards, &reserves).await?;
            tx.commit().await?;
            writeln!(
                out,
                "team {} is number {number} in event #{id}",
                name.trim()
            )?;
        }
        EventCommand::Start { id } => {
            let post = post(app)?;
            let games = td::start(&mut tx, &post, EventId(id), now).await?;
            tx.commit().await?;
            writeln!(
                out,
                "event #{id} started: {} games, first mails queued (sent by `dopis serve`)",
                games.len()
            )?;
        }
        EventCommand::Show { id, format } => {
            let ev = StoredEvent::load(&mut tx, EventId(id)).await?;
            let actions = td::log(&mut tx, EventId(id)).await?;
            tx.commit().await?;
            match format {
                Format::Json => {
                    let view = EventView {
                        record: &ev.record,
                        time_control: ev.event.time_control.to_string(),
                        leave_days: ev.event.leave_days,
                        withdrawal: match ev.event.withdrawal {
                            crate::domain::event::WithdrawalRule::ForfeitAll => "forfeit-all",
                            crate::domain::event::WithdrawalRule::AnnulIfUnderHalf => {
                                "annul-if-under-half"
                            }
                        },
                        analysis_link: ev.event.analysis_link.as_ref().map(|a| a.to_string()),
                        messages: ev.event.messages,
                        rated: ev.event.rated,
                        tds: &ev.tds,
                        teams: &ev.teams,
                        entrants: &ev.entrants,
                        td_actions: &actions,
                    };
                    writeln!(out, "{}", serde_json::to_string_pretty(&view)?)?;
                }
                Format::Text => show_text(out, &ev, &actions)?,
            }
        }
        EventCommand::List { format } => {
            let events = td::events(&mut tx).await?;
            tx.commit().await?;
            match format {
                Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&events)?)?,
                Format::Text => {
                    for e in &events {
                        let status = match e.status {
                            EventStatus::Open => "open",
                            EventStatus::Started => "started",
                        };
                        writeln!(out, "{}\t{}\t{}\t{status}", e.id.0, e.name, e.kind)?;
                    }
                }
            }
        }
        EventCommand::Pairings { id, format } => {
            let ev = StoredEvent::load(&mut tx, EventId(id)).await?;
            let swiss = matches!(
                ev.event.kind,
                crate::domain::event::file::EventKind::Swiss { .. }
            );
            let games = match ev.record.status {
                // A Swiss event's pairings are the rounds it has paired:
                // none before it starts, but for one moved into dopis
                // mid-way (`event create --trf`).
                EventStatus::Open if !swiss => td::pairings(&ev)?,
                _ => td::started_pairings(&mut tx, &ev).await?,
            };
            let ids: Vec<_> = games
                .iter()
                .flat_map(|g| [g.white.id, g.black.id])
                .collect();
            let ratings = crate::service::ratings::ratings_of(&mut tx, &ids).await?;
            tx.commit().await?;
            print_pairings(out, &games, &ratings, format)?;
        }
        EventCommand::Pgn { id, output, site } => {
            let ev = StoredEvent::load(&mut tx, EventId(id)).await?;
            let site = site.unwrap_or_else(|| default_site(app));
            let text = td::event_pgn(&mut tx, &ev, &site).await?;
            tx.commit().await?;
            match output {
                Some(path) => {
                    std::fs::write(&path, &text)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    writeln!(out, "event #{id}: PGN written to {}", path.display())?;
                }
                None => write!(out, "{text}")?,
            }
        }
        EventCommand::Trf {
            id,
            output,
            before_round,
        } => {
            let text = td::event_trf(&mut tx, EventId(id), before_round).await?;
            tx.commit().await?;
            match output {
                Some(path) => {
                    std::fs::write(&path, &text)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    writeln!(out, "event #{id}: TRF written to {}", path.display())?;
                }
                None => write!(out, "{text}")?,
            }
        }
        EventCommand::Standings {
            id,
            format,
            boards: true,
        } => {
            let ev = StoredEvent::load(&mut tx, EventId(id)).await?;
            let table = td::standings(&mut tx, &ev).await?;
            let name = ev.event.name.clone();
            let boards = td::board_tables(&mut tx, &ev, |b| format!("{name}, board {b}")).await?;
            tx.commit().await?;
            write!(out, "{}", with_boards(&table.crosstable, &boards, format))?;
        }
        EventCommand::Standings { id, format, .. } => {
            let ev = StoredEvent::load(&mut tx, EventId(id)).await?;
            let table = td::standings(&mut tx, &ev).await?;
            tx.commit().await?;
            let c = &table.crosstable;
            let text = match format {
                TableFormat::Text => c.to_text(),
                TableFormat::Csv => c.to_csv(),
                TableFormat::Json => c.to_json() + "\n",
                TableFormat::Html => c.to_html(),
            };
            write!(out, "{text}")?;
        }
        EventCommand::Withdraw {
            id,
            email,
            by,
            reason,
        } => {
            let post = post(app)?;
            td::withdraw(&mut tx, &post, EventId(id), &email, &reason, &by, now).await?;
            tx.commit().await?;
            writeln!(
                out,
                "{email} withdrawn from event #{id}; their unfinished games are closed and the players told"
            )?;
        }
        EventCommand::Bye {
            id,
            email,
            round,
            by,
            reason,
        } => {
            let post = post(app)?;
            td::grant_bye(
                &mut tx,
                &post,
                EventId(id),
                &email,
                round,
                &reason,
                &by,
                now,
            )
            .await?;
            tx.commit().await?;
            writeln!(
                out,
                "{email} has a half-point bye in round {round} of event #{id}; they are told, and are not paired that round"
            )?;
        }
        EventCommand::RepairRound { id, by, reason } => {
            let post = post(app)?;
            let paired = td::repair_round(&mut tx, &post, EventId(id), &reason, &by, now).await?;
            tx.commit().await?;
            writeln!(
                out,
                "round {} of event #{id} paired again: games {}; the players are told",
                paired.round,
                paired
                    .games
                    .iter()
                    .map(|g| g.0.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
        EventCommand::ImportResults {
            id,
            file,
            by,
            dry_run,
            no_mail,
        } => {
            let text = read_results_file(&file)?;
            let shown = file.display().to_string();
            let is_pgn = file
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
            let read = if is_pgn {
                crate::domain::event::import::parse_pgn(&text)
            } else {
                crate::domain::event::import::parse(&text)
            };
            let lines = match read {
                Ok(l) => l,
                Err(problems) => anyhow::bail!(
                    "nothing was imported; fix these lines of {shown} and run it again:\n{}",
                    problems
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
            };
            let post = post(app)?;
            let changes = td::import_results(
                &mut tx,
                &post,
                EventId(id),
                &shown,
                &lines,
                &by,
                now,
                dry_run,
                !no_mail,
            )
            .await?;
            for c in &changes {
                writeln!(
                    out,
                    "line {}: game #{} {} - {}: {} -> {}",
                    c.line, c.game.0, c.players.0, c.players.1, c.before, c.after
                )?;
                if let Some(note) = &c.note {
                    writeln!(out, "  note: {note}")?;
                }
            }
            if dry_run {
                // A dry run wrote nothing; the transaction ends uncommitted.
                writeln!(
                    out,
                    "dry run: {} games would change; nothing changed",
                    changes.len()
                )?;
            } else {
                tx.commit().await?;
                let told = if no_mail {
                    "no mail sent"
                } else {
                    "the players are told"
                };
                writeln!(
                    out,
                    "{} results imported into event #{id}; {told}",
                    changes.len()
                )?;
            }
        }
        EventCommand::Visibility {
            id,
            value,
            by,
            reason,
        } => {
            let visibility = match value {
                Some(value) => {
                    let Some(by) = by else {
                        anyhow::bail!(
                            "say which TD changes it with --by EMAIL (one of the event's TDs)"
                        );
                    };
                    td::set_visibility(&mut tx, EventId(id), value, &by, &reason, now).await?;
                    value
                }
                None => {
                    StoredEvent::load(&mut tx, EventId(id))
                        .await?
                        .record
                        .visibility
                }
            };
            tx.commit().await?;
            let post = post(app)?;
            let root = app.config.web.base()?.unwrap_or_default();
            let page = format!(
                "{root}{}",
                crate::service::links::event_path(&post.tokens, EventId(id), visibility)
            );
            match visibility {
                crate::domain::event::Visibility::Private => writeln!(
                    out,
                    "event #{id} is private: only its players see it, through their own links"
                )?,
                v => writeln!(out, "event #{id} is {v}: {page}")?,
            }
        }
        EventCommand::Replace {
            id,
            email,
            with,
            by,
            reason,
        } => {
            let post = post(app)?;
            td::replace(
                &mut tx,
                &post,
                EventId(id),
                &email,
                &with,
                &reason,
                &by,
                now,
            )
            .await?;
            tx.commit().await?;
            writeln!(
                out,
                "{with} replaces {email} in event #{id} and takes over their games; the players are told"
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn show_text(out: &mut dyn Write, ev: &StoredEvent, actions: &[TdAction]) -> Result<()> {
    let r = &ev.record;
    writeln!(out, "event {}: {}", r.id, r.name)?;
    writeln!(out, "kind:         {}", r.kind)?;
    writeln!(
        out,
        "status:       {}",
        match r.status {
            EventStatus::Open => "open (entrants may be added)",
            EventStatus::Started => "started",
        }
    )?;
    if let crate::domain::event::file::EventKind::Swiss {
        tie_breaks, rules, ..
    } = &ev.event.kind
    {
        let names: Vec<&str> = tie_breaks.iter().map(|t| t.abbreviation()).collect();
        writeln!(
            out,
            "swiss:        {} rounds (FIDE Dutch), the bye scores {}, at most {} half-point byes, {}; tie-breaks {}",
            rules.rounds,
            rules.bye_points(),
            rules.max_half_point_byes,
            if rules.baku {
                "Baku acceleration"
            } else {
                "no acceleration"
            },
            names.join(", ")
        )?;
    }
    writeln!(out, "time control: {}", ev.event.time_control)?;
    writeln!(out, "start:        {}", ev.event.start_words())?;
    writeln!(out, "leave:        {} days a year", ev.event.leave_days)?;
    writeln!(
        out,
        "scoring:      win {}, draw {}, loss {}",
        ev.event.scoring.win, ev.event.scoring.draw, ev.event.scoring.loss
    )?;
    writeln!(
        out,
        "analysis:     {}",
        ev.event.analysis_link.as_ref().map_or_else(
            || "the server's [mail] analysis_link".to_string(),
            |a| a.to_string()
        )
    )?;
    writeln!(
        out,
        "messages:     {}",
        if ev.event.messages {
            "players may pass messages with their moves"
        } else {
            "none between players (messages = false)"
        }
    )?;
    writeln!(
        out,
        "rated:        {}",
        if ev.event.rated {
            "yes, finished games count for the rating list"
        } else {
            "no (rated = false)"
        }
    )?;
    writeln!(out, "TDs:          {}", ev.tds.join(", "))?;
    let line = |e: &EntrantRecord| {
        let seat = match e.seat {
            Some(s) if ev.is_team_event() => format!("board {s}"),
            Some(s) => format!("{s:>3}."),
            None => "reserve".into(),
        };
        let withdrawn = e
            .withdrawn_at
            .map(|at| format!("  withdrawn {}", at.format("%Y-%m-%d")))
            .unwrap_or_default();
        format!("  {seat} {} <{}>{withdrawn}", e.player.name, e.player.email)
    };
    if ev.is_team_event() {
        for t in &ev.teams {
            writeln!(out, "team {}. {}", t.number, t.name)?;
            for e in ev.entrants.iter().filter(|e| e.team == Some(t.number)) {
                writeln!(out, "{}", line(e))?;
            }
        }
    } else {
        writeln!(out, "players:")?;
        for e in &ev.entrants {
            writeln!(out, "{}", line(e))?;
        }
    }
    if !actions.is_empty() {
        writeln!(out, "TD actions:")?;
        for a in actions {
            writeln!(
                out,
                "  {} {} by {}: {} (why: {})",
                a.at.format("%Y-%m-%d %H:%M"),
                a.action,
                a.by,
                a.detail,
                a.reason
            )?;
        }
    }
    Ok(())
}
