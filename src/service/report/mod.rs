//! The TD deadline report: games past or near their deadline, silent
//! players, players on leave now and next, and timeouts since the last
//! report, most urgent first; as text, CSV or JSON.
//!
//! It reads only indexed columns the daemon keeps on each game
//! (`deadline_at`, `waiting_since`; see [`crate::adapter::store::clocks`]), so it
//! costs what it reports, not the number of games. The game lines (the
//! part that can be long) are written out as they are read
//! ([`write_deadlines`]): memory stays flat however many games there are
//! and however many are listed; only leave and the timeouts of the window
//! are read whole. `at` is the instant the
//! report is made for: the stored clocks are projected to it, so a later
//! `at` shows what will be late by then; moves made after a past `at` are
//! not taken back out.

pub mod by_mail;

use std::io::Write;

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use serde::Serialize;

use crate::adapter::mail::compose::{ReportGame, ReportLeave, ReportTimeout, ReportView};
use crate::adapter::store::schedule::{ReportBand, ReportRow};
use crate::adapter::store::{Store, StoreError};
use crate::domain::chess::game::{EndReason, GameResult, Outcome};
use crate::domain::ids::EventId;
use crate::domain::player::PlayerId;

/// Why a game is in the report, most urgent first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Urgency {
    /// The deadline has passed (the scheduler ends such games at once; seen
    /// when the daemon is not running, or for a later `at`).
    Overdue,
    /// The deadline falls within the window asked for.
    DueSoon,
    /// The player to move has been silent for a threshold of days or more.
    Silent,
}

/// One game in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameLine {
    /// Why it is listed.
    pub urgency: Urgency,
    /// The game's number.
    pub game: i64,
    /// The player to move.
    pub player: String,
    /// Their address.
    pub email: String,
    /// Their opponent.
    pub opponent: String,
    /// The time control.
    pub time_control: String,
    /// The deadline of the player to move.
    pub deadline: Option<DateTime<Utc>>,
    /// When their clock started on this move.
    pub waiting_since: Option<DateTime<Utc>>,
    /// Whole days since then (wall time).
    pub silent_days: i64,
}

/// A player on leave now or next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaveLine {
    /// The player.
    pub player: String,
    /// Their address.
    pub email: String,
    /// First day.
    pub from: NaiveDate,
    /// Last day.
    pub to: NaiveDate,
    /// Whether the leave is under way at `at`.
    pub now: bool,
    /// Special leave granted by a TD.
    pub special: bool,
}

/// A game lost (or drawn) on time since the last report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeoutLine {
    /// The game's number.
    pub game: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The result.
    pub result: String,
    /// The ending in words.
    pub reason: String,
    /// When time ran out.
    pub at: DateTime<Utc>,
}

/// An active game whose position the endgame tables hold: a claim would be
/// judged at once (or a TD may adjudicate it, `game adjudicate --tablebase`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TablesLine {
    /// The game's number.
    pub game: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The table (`KRvK`).
    pub material: String,
    /// The result by the event's rule (`1-0`, `1/2-1/2`), or `open` where
    /// the 50-move rule leaves it open.
    pub result: String,
    /// The event's rule (`iccf`, `fifty-move`).
    pub rule: String,
    /// The distance to zeroing, in half-moves, where known.
    pub dtz: Option<u32>,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeadlineReport {
    /// The instant it is made for.
    pub at: DateTime<Utc>,
    /// Deadlines up to this instant count as due soon.
    pub due_until: DateTime<Utc>,
    /// Timeouts after this instant are listed.
    pub timeouts_since: DateTime<Utc>,
    /// Games, most urgent first.
    pub games: Vec<GameLine>,
    /// Leave under way, then leave to come, by first day.
    pub leave: Vec<LeaveLine>,
    /// Games ended on time, oldest first.
    pub timeouts: Vec<TimeoutLine>,
    /// Active games in the endgame tables, by number; `None` without tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_tables: Option<Vec<TablesLine>>,
}

/// What to report.
#[derive(Debug, Clone, Copy)]
pub struct ReportAsk {
    /// The instant to report for.
    pub at: DateTime<Utc>,
    /// Deadlines this soon after `at` count as due soon.
    pub within: TimeDelta,
    /// List timeouts after this instant.
    pub since: DateTime<Utc>,
    /// Silence thresholds in days (ICCF 14, 28, 35); the smallest selects.
    pub silence_days: &'static [i64],
}

/// The ICCF silence thresholds.
pub const SILENCE_DAYS: &[i64] = &[14, 28, 35];

fn is_timeout(result: &str, reason: &str) -> bool {
    GameResult::from_pgn(result)
        .and_then(|r| Outcome::from_description(r, reason))
        .is_some_and(|o| {
            matches!(
                o.reason,
                EndReason::TimeForfeit | EndReason::TimeForfeitOpponentCannotMate
            )
        })
}

/// Whether an event of this number exists.
pub async fn event_exists(store: &Store, event: EventId) -> Result<bool, StoreError> {
    store.event_exists(event).await
}

/// The events that have games in progress: those whose TDs get the daily report.
pub async fn events_with_active_games(store: &Store) -> Result<Vec<EventId>, StoreError> {
    store.events_with_active_games().await
}

/// The report a TD asks for on the command line (`dopis report
/// deadlines`), written to `out` in `format` as it is read: of one event or
/// all, at `at` (the present if `None`), with the timeouts since `since` or
/// else since this report's last run of the present (a week back at most).
/// A report of the present is remembered as the last run, for the next
/// one's timeouts; one of another time is a look, not a report.
#[allow(clippy::too_many_arguments)]
pub async fn on_request(
    store: &Store,
    tables: Option<&dyn crate::domain::chess::tablebase::Tables>,
    event: Option<EventId>,
    at: Option<DateTime<Utc>>,
    within: TimeDelta,
    since: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), WriteError> {
    // Each event's report remembers its own last run, for its timeouts.
    let run = match event {
        Some(id) => format!("deadlines.e{}", id.0),
        None => "deadlines".to_string(),
    };
    let of_present = at.is_none();
    let at = at.unwrap_or(now);
    let since = match since {
        Some(s) => s,
        None => store
            .report_last_run(&run)
            .await?
            .filter(|last| *last < at)
            .unwrap_or(at - TimeDelta::days(7)),
    };
    let ask = ReportAsk {
        at,
        within,
        since,
        silence_days: SILENCE_DAYS,
    };
    write_deadlines(store, ask, event, tables, format, out).await?;
    if of_present {
        store.set_report_run(&run, now).await?;
    }
    Ok(())
}

/// Fills an empty scratch database with `games` active games (and some
/// finished on time, and leave) around `at`, for `dopis bench report`;
/// refuses a database that holds games, saying how many.
pub async fn seed_for_bench(store: &Store, games: u32, at: DateTime<Utc>) -> Result<(), BenchSeed> {
    let existing = store.game_count().await?;
    if existing > 0 {
        return Err(BenchSeed::NotEmpty(existing));
    }
    store.seed_bench(games, at).await?;
    Ok(())
}

/// Why a bench database could not be seeded.
#[derive(Debug, thiserror::Error)]
pub enum BenchSeed {
    /// The database holds games already.
    #[error("the database already holds {0} games: give an empty scratch database")]
    NotEmpty(i64),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// How a report is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Readable text ([`DeadlineReport::to_text`]).
    Text,
    /// CSV ([`DeadlineReport::to_csv`]).
    Csv,
    /// Pretty JSON, as `serde_json::to_string_pretty` of a
    /// [`DeadlineReport`], and a newline.
    Json,
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The output could not be written.
    #[error("cannot write the report: {0}")]
    Io(#[from] std::io::Error),
    /// A line could not be made JSON.
    #[error("cannot write the report as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Makes the report from the store, of every game.
pub async fn deadlines(store: &Store, ask: ReportAsk) -> Result<DeadlineReport, StoreError> {
    deadlines_in(store, ask, None, None).await
}

/// The active games (of one event, or all) whose position the tables hold,
/// judged by each game's event's rule. Only with tables set up. Over a
/// million games the cost stays in the few that can be in the tables: the
/// store picks them by counting captures in the database
/// ([`Store::games_near_the_tables`]: 32 men less one per capture, games
/// from a FEN always), and only those are loaded and replayed, one at a
/// time; positions with more men than any table are not looked up.
pub async fn games_in_tables(
    store: &Store,
    tables: &dyn crate::domain::chess::tablebase::Tables,
    event: Option<EventId>,
) -> Result<Vec<TablesLine>, StoreError> {
    use crate::domain::chess::tablebase::TablebaseRule;
    let mut lines = Vec::new();
    let mut tx = store.begin().await?;
    for id in store
        .games_near_the_tables(tables.most_pieces(), event)
        .await?
    {
        let record = store.game(id).await?;
        let game = record.to_game()?;
        if game.is_over() {
            continue;
        }
        let rule = match record.event {
            Some(e) => {
                crate::service::td::game_rules(&mut tx, e)
                    .await?
                    .tablebase
                    .rule
            }
            None => TablebaseRule::default(),
        };
        if rule == TablebaseRule::None {
            continue;
        }
        let Ok(reading) = tables.read(game.position()) else {
            continue;
        };
        lines.push(TablesLine {
            game: record.id.0,
            white: tx.player(record.white).await?.name,
            black: tx.player(record.black).await?.name,
            material: reading.material.clone(),
            result: reading
                .result(rule)
                .map_or("open".to_string(), |r| r.as_pgn().to_string()),
            rule: rule.key().to_string(),
            dtz: reading.dtz.map(|d| d.plies.unsigned_abs()),
        });
    }
    tx.commit().await?;
    Ok(lines)
}

/// Makes the report of one event's games and players (`Some`), or of all,
/// whole in memory (for a mail, whose body is made whole anyway). The
/// event's games are picked by their `event_id` in the same indexed reads.
pub async fn deadlines_in(
    store: &Store,
    ask: ReportAsk,
    event: Option<EventId>,
    tables: Option<&dyn crate::domain::chess::tablebase::Tables>,
) -> Result<DeadlineReport, StoreError> {
    let mut sink = Collect(None, Vec::new());
    match read_into(store, ask, event, tables, &mut sink).await {
        Ok(()) => {}
        Err(WriteError::Store(e)) => return Err(e),
        // Collecting writes nothing.
        Err(e) => return Err(StoreError::Corrupt(e.to_string())),
    }
    let Collect(frame, games) = sink;
    let frame = frame.ok_or_else(|| StoreError::Corrupt("the report was not read".into()))?;
    Ok(DeadlineReport {
        at: frame.at,
        due_until: frame.due_until,
        timeouts_since: frame.timeouts_since,
        games,
        leave: frame.leave,
        timeouts: frame.timeouts,
        in_tables: frame.in_tables,
    })
}

/// Writes the report (of one event, or of all) to `out` in `format` while
/// its game lines are read, one at a time: memory does not grow with the
/// number of games, listed or not. Returns how many game lines it wrote.
pub async fn write_deadlines(
    store: &Store,
    ask: ReportAsk,
    event: Option<EventId>,
    tables: Option<&dyn crate::domain::chess::tablebase::Tables>,
    format: Format,
    out: &mut dyn Write,
) -> Result<u64, WriteError> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    let games = match format {
        Format::Text => {
            let mut sink = Text::new(&mut out);
            read_into(store, ask, event, tables, &mut sink).await?;
            sink.games
        }
        Format::Csv => {
            let mut sink = Csv::new(&mut out);
            read_into(store, ask, event, tables, &mut sink).await?;
            sink.games
        }
        Format::Json => {
            let mut sink = Json::new(&mut out);
            read_into(store, ask, event, tables, &mut sink).await?;
            sink.games
        }
    };
    out.flush()?;
    Ok(games)
}

/// What a report shows besides its game lines: few (the players on leave,
/// the games ended on time in the window), so read whole.
#[derive(Debug, Clone)]
struct Frame {
    at: DateTime<Utc>,
    due_until: DateTime<Utc>,
    timeouts_since: DateTime<Utc>,
    leave: Vec<LeaveLine>,
    timeouts: Vec<TimeoutLine>,
    in_tables: Option<Vec<TablesLine>>,
}

/// Where a report goes as it is read: its frame first, then each band's
/// count (if asked for) and games, most urgent first, then the end.
trait Sink {
    /// Whether [`Sink::section`] needs the band's count (one more read).
    fn wants_counts(&self) -> bool {
        false
    }
    fn begin(&mut self, frame: &Frame) -> Result<(), WriteError>;
    fn section(&mut self, urgency: Urgency, count: i64, frame: &Frame) -> Result<(), WriteError>;
    fn game(&mut self, line: GameLine) -> Result<(), WriteError>;
    fn end(&mut self, frame: Frame) -> Result<(), WriteError>;
}

fn name_of(id: PlayerId, name: Option<String>) -> String {
    name.unwrap_or_else(|| format!("player {}", id.0))
}

fn game_line(row: ReportRow, urgency: Urgency, at: DateTime<Utc>) -> GameLine {
    GameLine {
        urgency,
        game: row.game.0,
        player: name_of(row.player, row.player_name),
        email: row.player_email.unwrap_or_default(),
        opponent: name_of(row.opponent, row.opponent_name),
        time_control: row.time_control,
        deadline: row.deadline,
        waiting_since: row.waiting_since,
        silent_days: row.waiting_since.map_or(0, |s| (at - s).num_days().max(0)),
    }
}

/// Reads the report in one snapshot of the database into `sink`. Each band
/// is one indexed range of the games table, read in the report's order
/// (overdue and due soon by deadline, silent by the longest silence, then
/// by game); a game due soon is not listed again as silent.
async fn read_into(
    store: &Store,
    ask: ReportAsk,
    event: Option<EventId>,
    tables: Option<&dyn crate::domain::chess::tablebase::Tables>,
    sink: &mut impl Sink,
) -> Result<(), WriteError> {
    let in_tables = match tables {
        Some(t) if t.most_pieces() > 0 => Some(games_in_tables(store, t, event).await?),
        _ => None,
    };
    let mut tx = store.begin().await?;
    tx.read_one_snapshot().await?;
    let due_until = ask.at + ask.within;
    let first_silence = ask.silence_days.iter().copied().min().unwrap_or(14);
    let today = ask.at.date_naive();
    let mut leave: Vec<LeaveLine> = tx
        .leaves_ending_from(today, event)
        .await?
        .into_iter()
        .map(|l| LeaveLine {
            email: l.email.unwrap_or_default(),
            player: name_of(l.leave.player, l.name),
            from: l.leave.leave.from(),
            to: l.leave.leave.to(),
            now: l.leave.leave.contains(today),
            special: l.leave.leave.kind() == crate::domain::clock::LeaveKind::Special,
        })
        .collect();
    leave.sort_by(|a, b| {
        b.now
            .cmp(&a.now)
            .then(a.from.cmp(&b.from))
            .then(a.player.cmp(&b.player))
    });
    let timeouts = tx
        .games_finished_between(ask.since, ask.at, event)
        .await?
        .into_iter()
        .filter(|g| is_timeout(&g.result, &g.end_reason))
        .map(|g| TimeoutLine {
            game: g.game.0,
            white: name_of(g.white, g.white_name),
            black: name_of(g.black, g.black_name),
            result: g.result,
            reason: g.end_reason,
            at: g.finished_at,
        })
        .collect();
    let frame = Frame {
        at: ask.at,
        due_until,
        timeouts_since: ask.since,
        leave,
        timeouts,
        in_tables,
    };
    sink.begin(&frame)?;
    let bands = [
        (Urgency::Overdue, ReportBand::Overdue { at: ask.at }),
        (
            Urgency::DueSoon,
            ReportBand::DueSoon {
                at: ask.at,
                until: due_until,
            },
        ),
        (
            Urgency::Silent,
            ReportBand::Silent {
                since: ask.at - TimeDelta::days(first_silence),
                due_until,
            },
        ),
    ];
    for (urgency, band) in bands {
        let count = if sink.wants_counts() {
            tx.count_report_band(band, event).await?
        } else {
            0
        };
        sink.section(urgency, count, &frame)?;
        tx.each_in_report_band(band, event, |row| {
            sink.game(game_line(row, urgency, ask.at))
        })
        .await?;
    }
    tx.commit().await?;
    sink.end(frame)
}

/// Keeps the report in memory.
struct Collect(Option<Frame>, Vec<GameLine>);

impl Sink for Collect {
    fn begin(&mut self, _: &Frame) -> Result<(), WriteError> {
        Ok(())
    }
    fn section(&mut self, _: Urgency, _: i64, _: &Frame) -> Result<(), WriteError> {
        Ok(())
    }
    fn game(&mut self, line: GameLine) -> Result<(), WriteError> {
        self.1.push(line);
        Ok(())
    }
    fn end(&mut self, frame: Frame) -> Result<(), WriteError> {
        self.0 = Some(frame);
        Ok(())
    }
}

/// Writes the report as text.
struct Text<'a> {
    out: &'a mut dyn Write,
    games: u64,
}

impl<'a> Text<'a> {
    fn new(out: &'a mut dyn Write) -> Text<'a> {
        Text { out, games: 0 }
    }
}

impl Sink for Text<'_> {
    fn wants_counts(&self) -> bool {
        true
    }
    fn begin(&mut self, frame: &Frame) -> Result<(), WriteError> {
        writeln!(self.out, "Deadline report at {}", when(Some(frame.at)))?;
        Ok(())
    }
    fn section(&mut self, urgency: Urgency, count: i64, frame: &Frame) -> Result<(), WriteError> {
        let title = match urgency {
            Urgency::Overdue => "Past the deadline".to_string(),
            Urgency::DueSoon => format!("Due by {}", when(Some(frame.due_until))),
            Urgency::Silent => "Silent 14+ days".to_string(),
        };
        writeln!(self.out, "\n{title} ({count}):")?;
        if count == 0 {
            writeln!(self.out, "  none")?;
        }
        Ok(())
    }
    fn game(&mut self, g: GameLine) -> Result<(), WriteError> {
        self.games += 1;
        let what = match g.urgency {
            Urgency::Silent => format!(
                "silent {} days (14/28/35: {}+), deadline {}",
                g.silent_days,
                band(g.silent_days, SILENCE_DAYS),
                when(g.deadline)
            ),
            _ => format!("deadline {}", when(g.deadline)),
        };
        // Two lines, so the report fits a mail's 78 columns.
        writeln!(
            self.out,
            "  #{:<6} {} <{}> to move against {} ({})\n          {what}",
            g.game, g.player, g.email, g.opponent, g.time_control
        )?;
        Ok(())
    }
    fn end(&mut self, frame: Frame) -> Result<(), WriteError> {
        let out = &mut self.out;
        writeln!(out, "\nOn leave now and next ({}):", frame.leave.len())?;
        if frame.leave.is_empty() {
            writeln!(out, "  none")?;
        }
        for l in &frame.leave {
            writeln!(
                out,
                "  {} <{}>: {} to {}{}{}",
                l.player,
                l.email,
                l.from,
                l.to,
                if l.now { " (now)" } else { "" },
                if l.special { " special" } else { "" }
            )?;
        }
        writeln!(
            out,
            "\nTimeouts since {} ({}):",
            when(Some(frame.timeouts_since)),
            frame.timeouts.len()
        )?;
        if frame.timeouts.is_empty() {
            writeln!(out, "  none")?;
        }
        for t in &frame.timeouts {
            writeln!(
                out,
                "  #{:<6} {} - {} {} at {}: {}",
                t.game,
                t.white,
                t.black,
                t.result,
                when(Some(t.at)),
                t.reason
            )?;
        }
        if let Some(lines) = &frame.in_tables {
            writeln!(out, "\nIn the endgame tables ({}):", lines.len())?;
            if lines.is_empty() {
                writeln!(out, "  none")?;
            }
            for t in lines {
                let dtz = t.dtz.map(|d| format!(", DTZ {d}")).unwrap_or_default();
                let verdict = match t.result.as_str() {
                    "open" => "left open by the 50-move rule".to_string(),
                    r => format!("{r} by the {} rule", t.rule),
                };
                writeln!(
                    out,
                    "  #{:<6} {} - {}: {}, {verdict}{dtz}",
                    t.game, t.white, t.black, t.material
                )?;
            }
        }
        Ok(())
    }
}

/// Writes the report as CSV.
struct Csv<'a> {
    out: &'a mut dyn Write,
    games: u64,
}

impl<'a> Csv<'a> {
    fn new(out: &'a mut dyn Write) -> Csv<'a> {
        Csv { out, games: 0 }
    }
}

fn cell(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

fn iso(t: Option<DateTime<Utc>>) -> String {
    t.map(|t| t.to_rfc3339()).unwrap_or_default()
}

impl Sink for Csv<'_> {
    fn begin(&mut self, _: &Frame) -> Result<(), WriteError> {
        writeln!(
            self.out,
            "section,game,player,email,opponent,time_control,deadline,since,days"
        )?;
        Ok(())
    }
    fn section(&mut self, _: Urgency, _: i64, _: &Frame) -> Result<(), WriteError> {
        Ok(())
    }
    fn game(&mut self, g: GameLine) -> Result<(), WriteError> {
        self.games += 1;
        let section = match g.urgency {
            Urgency::Overdue => "overdue",
            Urgency::DueSoon => "due_soon",
            Urgency::Silent => "silent",
        };
        writeln!(
            self.out,
            "{section},{},{},{},{},{},{},{},{}",
            g.game,
            cell(&g.player),
            cell(&g.email),
            cell(&g.opponent),
            cell(&g.time_control),
            iso(g.deadline),
            iso(g.waiting_since),
            g.silent_days
        )?;
        Ok(())
    }
    fn end(&mut self, frame: Frame) -> Result<(), WriteError> {
        for l in &frame.leave {
            writeln!(
                self.out,
                "{},,{},{},,,{},{},",
                if l.now { "on_leave" } else { "leave_next" },
                cell(&l.player),
                cell(&l.email),
                l.to,
                l.from
            )?;
        }
        for t in &frame.timeouts {
            writeln!(
                self.out,
                "timeout,{},{},,{},{},{},,",
                t.game,
                cell(&t.white),
                cell(&t.black),
                cell(&t.result),
                t.at.to_rfc3339()
            )?;
        }
        // A game in the tables: White and Black in the player and opponent
        // columns, the table in time_control's, the result and the rule in
        // deadline's and since's, the DTZ in days'.
        for t in frame.in_tables.iter().flatten() {
            writeln!(
                self.out,
                "in_tables,{},{},,{},{},{},{},{}",
                t.game,
                cell(&t.white),
                cell(&t.black),
                cell(&t.material),
                cell(&t.result),
                t.rule,
                t.dtz.map(|d| d.to_string()).unwrap_or_default()
            )?;
        }
        Ok(())
    }
}

/// Writes the report as the pretty JSON of a [`DeadlineReport`], one game
/// at a time.
struct Json<'a> {
    out: &'a mut dyn Write,
    games: u64,
}

impl<'a> Json<'a> {
    fn new(out: &'a mut dyn Write) -> Json<'a> {
        Json { out, games: 0 }
    }
}

/// A value as pretty JSON nested `indent` deep: its lines after the first
/// indented (a JSON string holds no raw line break, so every line break is
/// the layout's).
fn pretty_at(value: &impl Serialize, indent: &str) -> Result<String, WriteError> {
    Ok(serde_json::to_string_pretty(value)?.replace('\n', &format!("\n{indent}")))
}

impl Sink for Json<'_> {
    fn begin(&mut self, frame: &Frame) -> Result<(), WriteError> {
        write!(
            self.out,
            "{{\n  \"at\": {},\n  \"due_until\": {},\n  \"timeouts_since\": {},\n  \"games\": ",
            serde_json::to_string(&frame.at)?,
            serde_json::to_string(&frame.due_until)?,
            serde_json::to_string(&frame.timeouts_since)?
        )?;
        Ok(())
    }
    fn section(&mut self, _: Urgency, _: i64, _: &Frame) -> Result<(), WriteError> {
        Ok(())
    }
    fn game(&mut self, line: GameLine) -> Result<(), WriteError> {
        let open = if self.games == 0 { "[\n" } else { ",\n" };
        self.games += 1;
        write!(self.out, "{open}    {}", pretty_at(&line, "    ")?)?;
        Ok(())
    }
    fn end(&mut self, frame: Frame) -> Result<(), WriteError> {
        let close = if self.games == 0 { "[]" } else { "\n  ]" };
        let tables = match &frame.in_tables {
            Some(lines) => format!(",\n  \"in_tables\": {}", pretty_at(lines, "  ")?),
            None => String::new(),
        };
        writeln!(
            self.out,
            "{close},\n  \"leave\": {},\n  \"timeouts\": {}{tables}\n}}",
            pretty_at(&frame.leave, "  ")?,
            pretty_at(&frame.timeouts, "  ")?
        )?;
        Ok(())
    }
}

pub(crate) fn when(t: Option<DateTime<Utc>>) -> String {
    t.map_or_else(
        || "-".into(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

/// The silence band a number of days falls in: the largest threshold reached.
fn band(days: i64, thresholds: &[i64]) -> i64 {
    thresholds
        .iter()
        .copied()
        .filter(|t| days >= *t)
        .max()
        .unwrap_or(0)
}

impl DeadlineReport {
    /// The report as text for a TD.
    pub fn to_text(&self) -> String {
        let mut out = Vec::new();
        self.replay(&mut Text::new(&mut out));
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Hands the report to a sink as if it were read (writing to memory
    /// does not fail).
    fn replay(&self, sink: &mut impl Sink) {
        let frame = Frame {
            at: self.at,
            due_until: self.due_until,
            timeouts_since: self.timeouts_since,
            leave: self.leave.clone(),
            timeouts: self.timeouts.clone(),
            in_tables: self.in_tables.clone(),
        };
        let _ = sink.begin(&frame);
        for urgency in [Urgency::Overdue, Urgency::DueSoon, Urgency::Silent] {
            let lines = self.games.iter().filter(|g| g.urgency == urgency);
            let _ = sink.section(urgency, lines.clone().count() as i64, &frame);
            for g in lines {
                let _ = sink.game(g.clone());
            }
        }
        let _ = sink.end(frame);
    }

    /// The report as a mail shows it (the templates give it words in the
    /// reader's language).
    pub fn view(&self) -> ReportView {
        let games = |urgency: Urgency| -> Vec<ReportGame> {
            self.games
                .iter()
                .filter(|g| g.urgency == urgency)
                .map(|g| ReportGame {
                    game: g.game,
                    tag: format!("#{:<6}", g.game),
                    player: g.player.clone(),
                    email: g.email.clone(),
                    opponent: g.opponent.clone(),
                    time_control: g.time_control.clone(),
                    deadline: when(g.deadline),
                    silent_days: g.silent_days,
                    band: band(g.silent_days, SILENCE_DAYS),
                    moves: None,
                })
                .collect()
        };
        ReportView {
            at: when(Some(self.at)),
            due_until: when(Some(self.due_until)),
            timeouts_since: when(Some(self.timeouts_since)),
            overdue: games(Urgency::Overdue),
            due_soon: games(Urgency::DueSoon),
            silent: games(Urgency::Silent),
            leave: self
                .leave
                .iter()
                .map(|l| ReportLeave {
                    player: l.player.clone(),
                    email: l.email.clone(),
                    from: l.from.to_string(),
                    to: l.to.to_string(),
                    now: l.now,
                    special: l.special,
                })
                .collect(),
            timeouts: self
                .timeouts
                .iter()
                .map(|t| ReportTimeout {
                    game: t.game,
                    tag: format!("#{:<6}", t.game),
                    white: t.white.clone(),
                    black: t.black.clone(),
                    result: t.result.clone(),
                    drawn: GameResult::from_pgn(&t.result) == Some(GameResult::Draw),
                    at: when(Some(t.at)),
                })
                .collect(),
        }
    }

    /// The report as CSV: one row per game, leave and timeout, with a
    /// `section` column.
    pub fn to_csv(&self) -> String {
        let mut out = Vec::new();
        self.replay(&mut Csv::new(&mut out));
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// An empty scratch database on the PostgreSQL server of `admin_url`, for
/// the bench: its URL and its name (to drop it with [`drop_bench_postgres`]).
pub async fn bench_postgres(admin_url: &str) -> Result<(String, String), StoreError> {
    crate::adapter::store::bench::scratch_postgres(admin_url).await
}

/// Drops a scratch database [`bench_postgres`] made.
pub async fn drop_bench_postgres(admin_url: &str, name: &str) -> Result<(), StoreError> {
    crate::adapter::store::bench::drop_scratch_postgres(admin_url, name).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_falls_in_the_largest_threshold_reached() {
        for (days, expected) in [(13, 0), (14, 14), (27, 14), (28, 28), (35, 35), (400, 35)] {
            assert_eq!(band(days, SILENCE_DAYS), expected, "{days}");
        }
    }

    #[test]
    fn only_time_endings_are_timeouts() {
        for (outcome, expected) in [
            (
                Outcome::new(GameResult::BlackWins, EndReason::TimeForfeit),
                true,
            ),
            (
                Outcome::draw(EndReason::TimeForfeitOpponentCannotMate),
                true,
            ),
            (
                Outcome::new(GameResult::WhiteWins, EndReason::Checkmate),
                false,
            ),
            (
                Outcome::new(GameResult::WhiteWins, EndReason::Resignation),
                false,
            ),
            (Outcome::draw(EndReason::Agreement), false),
        ] {
            let text = outcome.to_string();
            assert_eq!(
                is_timeout(outcome.result.as_pgn(), &text),
                expected,
                "{text}"
            );
        }
        assert!(!is_timeout("garbage", "White wins on time."));
    }
}
