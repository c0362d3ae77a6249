//! The guides stay true: README.md and every `docs/*.md` are read block by
//! block, and everything they show is done or checked.
//!
//! - A fenced ```` ```sh ```` block is run, line by line, by `bash` with the
//!   real `dopis` binary first on `PATH`, in a fresh folder per guide (the
//!   guide's blocks in order, so a guide is one session: `dopis init`
//!   first), with the clock of every process set to [`GUIDE_TIME`] by
//!   libfaketime so the dates the guides write never fall into the past.
//!   Every line must exit 0, or the `exit=N` the block's info string says.
//!   `sqlite-only` runs a block on SQLite only; the guides run on SQLite,
//!   and on PostgreSQL too when the test cluster is there.
//! - ```` ```sh norun: WHY ```` is shown and not run (a daemon that runs
//!   for ever, `systemctl`, a tool that is not dopis's); the reason is
//!   required and the blocks are counted ([`NOT_RUN`]), so none slips in
//!   unnoticed.
//! - ```` ```toml file=NAME ```` (any kind with `file=`) writes the file the
//!   commands below read (an event file, a CSV of players).
//! - ```` ```mail LANG: READS ```` is a player's mail; the command parser
//!   (`dopis::domain::command::parse`) must read in it what READS says
//!   ([`reads`] writes a reading so). A table whose header is
//!   `| you write (LANG) | dopis reads |` is the same, a mail per backtick
//!   span of its first column. ```` ```digest LANG: READS ```` is a reply to
//!   a daily digest showing [`DIGEST_GAMES`].
//! - Any other fenced block (`toml`, `text`, `json`) is shown as it is, but
//!   may hold no `dopis` command line; a block without a kind, an indented
//!   `dopis` line and a `bash`/`console` fence are refused, so every
//!   command is in a block this test runs or counts.
//! - A `dopis …` command written inline in the text names a subcommand
//!   that exists and only flags its `--help` lists; every path in backticks
//!   under the project's folders exists, and every link to a file of the
//!   project (and to a heading in it, `td.md#web-pages`) finds it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use dopis::adapter::mail::digest_reply::{self, Named};
use dopis::domain::command::{self, Command as Said, Notify};
use dopis::domain::lang::Lang;
use dopis::service::app::{Clock, SystemClock};

use crate::support;

/// The time every guide command runs at (libfaketime): the dates in the
/// guides (leave, entries, reports) are written for it.
const GUIDE_TIME: &str = "2026-12-01T09:00:00Z";

/// How many `sh norun:` blocks the guides have. Adding one is a choice to
/// show a command that no test runs: change this number with it.
const NOT_RUN: usize = 19;

/// The games a ```` ```digest ```` block's reply is read against: the
/// digest showed these (number, opponent).
const DIGEST_GAMES: [(i64, &str); 2] = [(42, "Ana Novak"), (43, "Bor Kralj")];

/// Folders whose paths, written in backticks, must exist.
const PATH_ROOTS: [&str; 9] = [
    "src/",
    "tests/",
    "templates/",
    "scripts/",
    "migrations/",
    "packaging/",
    "benches/",
    "docs/",
    ".ci/",
];

/// One thing a guide shows, with the line it starts on.
#[derive(Debug, Clone, PartialEq)]
enum Shown {
    /// Shell commands run in order, each expected to exit with `exit`.
    Run {
        commands: Vec<(usize, String)>,
        exit: i32,
        sqlite_only: bool,
    },
    /// Shell commands shown and not run, and why.
    NotRun {
        line: usize,
        reason: String,
        commands: usize,
    },
    /// A file the commands after it read.
    File {
        line: usize,
        name: String,
        text: String,
    },
    /// A player's mail, and what dopis reads in it.
    Mail {
        line: usize,
        lang: Lang,
        text: String,
        reads: String,
    },
    /// A reply to a daily digest, and what dopis reads in it.
    Digest {
        line: usize,
        lang: Lang,
        text: String,
        reads: String,
    },
}

/// A guide read: what it shows, the inline commands it names, and what
/// the reader found wrong with it.
#[derive(Debug, Default)]
struct Guide {
    shown: Vec<Shown>,
    inline: Vec<(usize, String)>,
    problems: Vec<String>,
}

/// Reads a guide's text (`name` only for the messages).
fn read_guide(name: &str, text: &str) -> Guide {
    let mut guide = Guide::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut table: Option<Lang> = None;
    while i < lines.len() {
        let line = lines[i];
        let at = i + 1;
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = line.len() - trimmed.len();
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && lines[i].trim() != "```" {
                let l = lines[i];
                let cut = l.len() - l.trim_start().len();
                body.push((i + 1, &l[cut.min(indent)..]));
                i += 1;
            }
            if i == lines.len() {
                guide
                    .problems
                    .push(format!("{name}:{at}: a code block that never closes"));
            }
            read_block(name, at, info.trim(), &body, &mut guide);
            i += 1;
            table = None;
            continue;
        }
        if line.starts_with("    ") && (trimmed.starts_with("dopis ") || trimmed.starts_with("$ "))
        {
            guide.problems.push(format!(
                "{name}:{at}: an indented command: write it in a ```sh block (run by the test) \
                 or a ```sh norun: WHY block"
            ));
        }
        if trimmed.starts_with('|') {
            let cells = cells(trimmed);
            if let Some(lang) = mail_table_header(&cells) {
                table = Some(lang);
            } else if let Some(lang) = table
                && !cells.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch)))
            {
                read_row(name, at, lang, &cells, &mut guide);
            }
        } else {
            table = None;
        }
        for span in code_spans(line) {
            if span.starts_with("dopis ") || span == "dopis" {
                guide.inline.push((at, span.to_string()));
            }
        }
        i += 1;
    }
    guide
}

/// A fenced block: its info string says what it is.
fn read_block(name: &str, at: usize, info: &str, body: &[(usize, &str)], guide: &mut Guide) {
    let (kind, rest) = info.split_once(' ').unwrap_or((info, ""));
    let rest = rest.trim();
    let text: String = body.iter().map(|(_, l)| format!("{l}\n")).collect();
    match kind {
        "" => guide.problems.push(format!(
            "{name}:{at}: a code block without a kind: write ```sh, ```toml, ```text …"
        )),
        "bash" | "shell" | "console" | "shell-session" => guide.problems.push(format!(
            "{name}:{at}: ```{kind}: write ```sh (run by the test) or ```sh norun: WHY"
        )),
        "sh" => {
            let commands = commands(body);
            if let Some(reason) = rest.strip_prefix("norun:") {
                if reason.trim().is_empty() {
                    guide.problems.push(format!(
                        "{name}:{at}: ```sh norun: says no reason; write why it is not run"
                    ));
                }
                guide.shown.push(Shown::NotRun {
                    line: at,
                    reason: reason.trim().to_string(),
                    commands: commands.len(),
                });
                return;
            }
            let mut exit = 0;
            let mut sqlite_only = false;
            for word in rest.split_whitespace() {
                match word.strip_prefix("exit=").map(str::parse::<i32>) {
                    Some(Ok(code)) => exit = code,
                    _ if word == "sqlite-only" => sqlite_only = true,
                    _ => guide.problems.push(format!(
                        "{name}:{at}: ```sh {word}: unknown; write exit=N, sqlite-only or norun: WHY"
                    )),
                }
            }
            if commands.is_empty() {
                guide
                    .problems
                    .push(format!("{name}:{at}: a ```sh block without a command"));
            }
            guide.shown.push(Shown::Run {
                commands,
                exit,
                sqlite_only,
            });
        }
        "mail" | "digest" => {
            let Some((lang, reads)) = rest.split_once(':') else {
                guide.problems.push(format!(
                    "{name}:{at}: ```{kind} needs a language and what dopis reads: ```{kind} sl: offer draw"
                ));
                return;
            };
            let Ok(lang) = lang.trim().parse::<Lang>() else {
                guide
                    .problems
                    .push(format!("{name}:{at}: ```{kind} {lang}: no such language"));
                return;
            };
            let (text, reads) = (text.trim_end().to_string(), reads.trim().to_string());
            guide.shown.push(if kind == "mail" {
                Shown::Mail {
                    line: at,
                    lang,
                    text,
                    reads,
                }
            } else {
                Shown::Digest {
                    line: at,
                    lang,
                    text,
                    reads,
                }
            });
        }
        _ => {
            if let Some(file) = rest
                .split_whitespace()
                .find_map(|w| w.strip_prefix("file="))
            {
                guide.shown.push(Shown::File {
                    line: at,
                    name: file.to_string(),
                    text,
                });
            } else if let Some((line, _)) = body.iter().find(|(_, l)| {
                let l = l.trim_start();
                l.starts_with("dopis ") || l.starts_with("$ dopis")
            }) {
                guide.problems.push(format!(
                    "{name}:{line}: a dopis command in a ```{kind} block: write it in a ```sh block"
                ));
            }
        }
    }
}

/// The command lines of a shell block: `\` continues a line; blank lines
/// and comments are not commands.
fn commands(body: &[(usize, &str)]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (at, line) in body {
        let (start, mut text) = match open.take() {
            Some((start, text)) => (start, text + " "),
            None => (*at, String::new()),
        };
        if text.is_empty() && (line.trim().is_empty() || line.trim_start().starts_with('#')) {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(part) => {
                text.push_str(part.trim());
                open = Some((start, text));
            }
            None => {
                text.push_str(line.trim());
                out.push((start, text));
            }
        }
    }
    out.extend(open);
    out
}

/// The cells of a table row, trimmed.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The language of a `| you write (LANG) | dopis reads |` header (more
/// columns may follow, for the reader).
fn mail_table_header(cells: &[String]) -> Option<Lang> {
    let [first, second, ..] = cells else {
        return None;
    };
    let lang = first.strip_prefix("you write (")?.strip_suffix(')')?;
    (second == "dopis reads").then_some(())?;
    lang.parse().ok()
}

/// One row of a mail table: every backtick span of the first cell is a
/// mail that reads as the second cell says.
fn read_row(name: &str, at: usize, lang: Lang, cells: &[String], guide: &mut Guide) {
    let spans = cells.first().map(|c| code_spans(c)).unwrap_or_default();
    let reads = cells.get(1).map(|c| c.replace('`', "")).unwrap_or_default();
    if spans.is_empty() || reads.is_empty() {
        guide.problems.push(format!(
            "{name}:{at}: a row of a mail table needs `mails` in backticks and what dopis reads"
        ));
    }
    for span in spans {
        guide.shown.push(Shown::Mail {
            line: at,
            lang,
            text: span.to_string(),
            reads: reads.trim().to_string(),
        });
    }
}

/// The inline code spans of a line of Markdown.
fn code_spans(line: &str) -> Vec<&str> {
    line.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s)
        .collect()
}

/// What dopis reads in a mail, written as the guides write it: the
/// commands in English, joined by `, ` (`move Sf3 and offer draw`, `if Nc6
/// Bb5; if d6 d4`, `leave from 2027-07-01 to 2027-07-14`, `message`).
fn reads(said: &[Said]) -> String {
    let one = |c: &Said| -> String {
        match c {
            Said::Move {
                text,
                offer_draw: false,
            } => format!("move {text}"),
            Said::Move {
                text,
                offer_draw: true,
            } => format!("move {text} and offer draw"),
            Said::OfferDraw => "offer draw".into(),
            Said::AcceptDraw => "accept draw".into(),
            Said::DeclineDraw => "decline draw".into(),
            Said::Resign => "resign".into(),
            Said::ClaimDraw { with_move: None } => "claim draw".into(),
            Said::ClaimDraw { with_move: Some(m) } => format!("claim draw with {m}"),
            Said::ClaimWin { with_move: None } => "claim win".into(),
            Said::ClaimWin { with_move: Some(m) } => format!("claim win with {m}"),
            Said::Conditional { lines } => lines
                .iter()
                .map(|l| {
                    let moves: Vec<&str> = l.iter().map(|m| m.as_str()).collect();
                    format!("if {}", moves.join(" "))
                })
                .collect::<Vec<_>>()
                .join("; "),
            Said::Leave { from, to } => format!("leave from {from} to {to}"),
            Said::Status => "status".into(),
            Said::Games => "games".into(),
            Said::XfccPassword => "xfcc password".into(),
            Said::Pgn => "pgn".into(),
            Said::Help => "help".into(),
            Said::Standings => "standings".into(),
            Said::Report => "report".into(),
            Said::Language(lang) => format!("language {}", lang.code()),
            Said::Notify(Notify::Each) => "notify each".into(),
            Said::Notify(Notify::Digest) => "notify digest".into(),
            Said::Conditionals => "conditionals".into(),
            Said::CancelConditionals => "cancel conditionals".into(),
            Said::Entries => "entries".into(),
            Said::Enter { event } => format!("enter {event}"),
            Said::WithdrawEntry { event } => format!("withdraw entry {event}"),
            Said::SwissBye { event, round } => format!("bye {event} round {round}"),
            Said::Announcements(true) => "notify announcements".into(),
            Said::Announcements(false) => "notify no announcements".into(),
            Said::Message(_) => "message".into(),
            Said::MoveThenWords { .. } => "nothing played: words after the move".into(),
            Said::Unknown { .. } => "unknown: answered with help".into(),
        }
    };
    said.iter().map(one).collect::<Vec<_>>().join(", ")
}

/// The kind of a command, for the check that every language shows every
/// kind: the longest kind its reading starts with (`claim draw with Sf3`:
/// `claim draw`), a move, or the reading itself.
fn kind(reading: &str) -> &str {
    std::iter::once("move")
        .chain(WORDED)
        .filter(|k| reading == *k || reading.starts_with(&format!("{k} ")))
        .max_by_key(|k| k.len())
        .unwrap_or(reading)
}

/// Every kind of command a player says in words, which each language's
/// table must show (a message and a move need no words).
const WORDED: [&str; 25] = [
    "offer draw",
    "accept draw",
    "decline draw",
    "resign",
    "claim draw",
    "claim win",
    "if",
    "leave",
    "status",
    "games",
    "xfcc password",
    "pgn",
    "help",
    "standings",
    "report",
    "language",
    "notify each",
    "notify digest",
    "conditionals",
    "cancel conditionals",
    "entries",
    "enter",
    "withdraw entry",
    "notify announcements",
    "notify no announcements",
];

/// What is wrong with the mails a guide shows: each one that reads
/// otherwise than the guide says.
fn misread(name: &str, guide: &Guide) -> Vec<String> {
    let digest_games: Vec<Named<'_>> = DIGEST_GAMES
        .iter()
        .map(|(game, opponent)| Named {
            game: *game,
            opponent,
        })
        .collect();
    let shown_games: Vec<i64> = DIGEST_GAMES.iter().map(|(g, _)| *g).collect();
    let mut out = Vec::new();
    for shown in &guide.shown {
        let (line, lang, text, says, got) = match shown {
            Shown::Mail {
                line,
                lang,
                text,
                reads: says,
            } => (
                line,
                lang,
                text,
                says,
                reads(&command::parse(text, *lang).commands),
            ),
            Shown::Digest {
                line,
                lang,
                text,
                reads: says,
            } => {
                let got = digest_reply::read(text, &digest_games, &shown_games)
                    .into_iter()
                    .map(|l| match l {
                        digest_reply::Line::Game { game, text } => {
                            format!("#{game} {}", reads(&command::parse(&text, *lang).commands))
                        }
                        digest_reply::Line::Unnamed(_) => "no game named".to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("; ");
                (line, lang, text, says, got)
            }
            _ => continue,
        };
        if &got != says {
            out.push(format!(
                "{name}:{line}: the {} mail {text:?} reads as \"{got}\", the guide says \"{says}\"",
                lang.code()
            ));
        }
    }
    out
}

/// The kinds of worded command a guide shows in each language.
fn kinds_shown(guide: &Guide) -> BTreeMap<Lang, BTreeSet<String>> {
    let mut out: BTreeMap<Lang, BTreeSet<String>> = BTreeMap::new();
    for shown in &guide.shown {
        if let Shown::Mail { lang, reads, .. } = shown {
            for part in reads.split(", ") {
                for one in part.split("; ") {
                    out.entry(*lang).or_default().insert(kind(one).to_string());
                }
            }
        }
    }
    out
}

/// The project's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every guide in docs/, by path from the root.
fn guide_files() -> Vec<String> {
    let mut files = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ holds the guides")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn read_file(path: &str) -> Guide {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    read_guide(path, &text)
}

/// A folder where a guide's commands run: `dopis` first on its `PATH`,
/// the real binary.
struct Session {
    dir: tempfile::TempDir,
    database: Option<String>,
    offset: String,
}

impl Session {
    fn new(database: Option<String>) -> Session {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".bin")).unwrap();
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_dopis"),
            dir.path().join(".bin").join("dopis"),
        )
        .unwrap();
        let at = chrono::DateTime::parse_from_rfc3339(GUIDE_TIME).unwrap();
        let now = SystemClock.now();
        let offset = format!("{:+}", (at.to_utc() - now).num_seconds());
        Session {
            dir,
            database,
            offset,
        }
    }

    /// Runs one command line; its exit code and what it printed.
    fn run(&self, line: &str) -> (Option<i32>, String) {
        let path = format!(
            "{}:{}",
            self.dir.path().join(".bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = crate::support::faketime(&self.offset, "bash");
        cmd.args(["-c", line])
            .current_dir(self.dir.path())
            .env("PATH", path)
            .env("HOME", self.dir.path())
            .env("DOPIS_LOG", "warn");
        for (key, _) in std::env::vars() {
            if key.starts_with("DOPIS_") && key != "DOPIS_LOG" {
                cmd.env_remove(key);
            }
        }
        if let Some(url) = &self.database {
            cmd.env("DOPIS_DATABASE_URL", url);
        }
        let out = cmd
            .output()
            .expect("run faketime (Debian's faketime; scripts/stack.sh installs it)");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), said)
    }
}

/// What running a guide did.
#[derive(Debug, Default, PartialEq)]
struct Ran {
    commands: usize,
    failures: Vec<String>,
}

/// Runs what a guide shows, in order, in a fresh session; the first
/// failing command stops it (what follows would fail for its sake).
fn run_guide(name: &str, guide: &Guide, database: Option<String>) -> Ran {
    let session = Session::new(database.clone());
    let mut ran = Ran::default();
    for shown in &guide.shown {
        match shown {
            Shown::File {
                line,
                name: file,
                text,
            } => {
                let path = session.dir.path().join(file);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).unwrap();
                }
                if let Err(e) = std::fs::write(&path, text) {
                    ran.failures
                        .push(format!("{name}:{line}: cannot write {file}: {e}"));
                    return ran;
                }
            }
            Shown::Run {
                commands,
                exit,
                sqlite_only,
            } => {
                if *sqlite_only && database.is_some() {
                    continue;
                }
                for (line, command) in commands {
                    let (code, said) = session.run(command);
                    ran.commands += 1;
                    // `GUIDES_PRINT=1` shows what each command printed, for
                    // whoever writes a guide.
                    if std::env::var_os("GUIDES_PRINT").is_some() {
                        println!("{name}:{line}: $ {command}  [exit {code:?}]\n{said}");
                    }
                    if code != Some(*exit) {
                        let said: String = said.chars().take(3000).collect();
                        ran.failures.push(format!(
                            "{name}:{line}: `{command}` exited {code:?}, the guide expects {exit}:\n{said}"
                        ));
                        return ran;
                    }
                }
            }
            _ => {}
        }
    }
    ran
}

/// The subcommand words and flags of an inline `dopis …` command
/// (`dopis event standings 2 --boards`: `event standings`, `--boards`).
fn subcommand_and_flags(span: &str) -> (Vec<String>, Vec<String>) {
    let words: Vec<&str> = span.split_whitespace().skip(1).collect();
    let mut path = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--config" || w == "--database" {
            i += 2;
            continue;
        }
        let is_word = w.chars().all(|c| c.is_ascii_lowercase() || c == '-') && !w.starts_with('-');
        if !is_word {
            break;
        }
        path.push(w.to_string());
        i += 1;
    }
    let flags = words
        .iter()
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.split(['=', '[', ']', ','])
                .next()
                .unwrap_or(w)
                .trim_end_matches(['.', ')'])
                .to_string()
        })
        .filter(|f| f != "--help" && f != "--version")
        .collect();
    (path, flags)
}

/// Whether `help` lists `flag` (as a whole word).
fn lists_flag(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(at, _)| {
        help[at + flag.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-'))
    })
}

/// What is wrong with the inline commands of a guide: a subcommand that
/// does not exist, a flag its `--help` does not list.
fn inline_problems(name: &str, guide: &Guide) -> Vec<String> {
    let mut helps: BTreeMap<Vec<String>, Option<String>> = BTreeMap::new();
    let mut out = Vec::new();
    for (line, span) in &guide.inline {
        let (path, flags) = subcommand_and_flags(span);
        let help = helps.entry(path.clone()).or_insert_with(|| {
            let out = Command::new(env!("CARGO_BIN_EXE_dopis"))
                .args(&path)
                .arg("--help")
                .env_remove("DOPIS_CONFIG")
                .output()
                .unwrap();
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
        });
        match help {
            None => out.push(format!(
                "{name}:{line}: `{span}`: `dopis {} --help` fails: no such command",
                path.join(" ")
            )),
            Some(help) => {
                for flag in flags.iter().filter(|f| !lists_flag(help, f)) {
                    out.push(format!(
                        "{name}:{line}: `{span}`: `dopis {}` has no {flag}",
                        path.join(" ")
                    ));
                }
            }
        }
    }
    out
}

/// The project paths a text names in backticks that do not exist under
/// `root` (a `<lang>` in a path stands for `en`).
fn missing_paths(root: &Path, name: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for span in code_spans(line) {
            for word in span.split_whitespace() {
                let word = word.trim_end_matches([',', '.', ';', ':', ')']);
                // `templates/<lang>/` stands for each language's folder;
                // another placeholder (`src/…`, `templates/<code>/`) names
                // no path.
                let path = word.replace("<lang>", "en");
                if !PATH_ROOTS.iter().any(|r| word.starts_with(r))
                    || path.contains(['*', '{', '|', '<', '…'])
                {
                    continue;
                }
                if !root.join(path.trim_end_matches('/')).exists() {
                    out.push(format!("{name}:{}: `{word}` does not exist", n + 1));
                }
            }
        }
    }
    out
}

/// The anchors of a Markdown text's headings, as GitHub makes them: lower
/// case, punctuation dropped, spaces as `-` (`## The web server: \`dopis
/// web\``: `the-web-server-dopis-web`).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let Some(title) = line.strip_prefix('#').filter(|_| !fenced) else {
            continue;
        };
        let title = title.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.insert(slug);
    }
    out
}

/// The links of the guide at `path` (from `root`) to the project's files
/// that find no file, or no heading of the anchor they name.
fn broken_links(root: &Path, path: &str, text: &str) -> Vec<String> {
    let folder = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let Some(target) = rest.split(')').next() else {
                continue;
            };
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                root.join(path)
            } else {
                root.join(folder).join(file)
            };
            let Ok(linked) = std::fs::read_to_string(&file) else {
                if !file.exists() {
                    out.push(format!("{path}:{}: ({target}): no such file", n + 1));
                }
                continue;
            };
            if !anchor.is_empty() && !anchors(&linked).contains(anchor) {
                out.push(format!("{path}:{}: ({target}): no such heading", n + 1));
            }
        }
    }
    out
}

#[test]
fn every_block_of_the_guides_is_run_checked_or_marked_not_run_with_a_reason() {
    let mut problems = Vec::new();
    let (mut run, mut not_run, mut not_run_lines) = (0, 0, 0);
    let (mut mails, mut files, mut inline) = (0, 0, 0);
    for file in guide_files() {
        let guide = read_file(&file);
        problems.extend(guide.problems.iter().cloned());
        inline += guide.inline.len();
        for shown in &guide.shown {
            match shown {
                Shown::Run { commands, .. } => run += commands.len(),
                Shown::NotRun { commands, .. } => {
                    not_run += 1;
                    not_run_lines += commands;
                }
                Shown::Mail { .. } | Shown::Digest { .. } => mails += 1,
                Shown::File { .. } => files += 1,
            }
        }
    }
    println!(
        "guides: {run} commands run, {not_run} blocks of {not_run_lines} commands not run \
         (each with its reason), {mails} mails read, {files} files written, \
         {inline} inline commands checked"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(
        not_run, NOT_RUN,
        "the guides have {not_run} `sh norun:` blocks, the test expects {NOT_RUN}: \
         run the new command in a ```sh block if it can be, or change NOT_RUN"
    );
}

/// Runs every guide, each in its own session and thread, on SQLite (`None`)
/// or on a database of its own; asserts each ran as it says.
fn run_every_guide(backend: &str, guides: Vec<(String, Option<String>)>) {
    let threads: Vec<_> = guides
        .into_iter()
        .map(|(file, database)| {
            std::thread::spawn(move || run_guide(&file, &read_file(&file), database))
        })
        .collect();
    let mut failures = Vec::new();
    let mut commands = 0;
    for thread in threads {
        let ran = thread.join().unwrap();
        commands += ran.commands;
        failures.extend(ran.failures);
    }
    println!("guides on {backend}: {commands} commands run");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(commands > 100, "only {commands} commands ran");
}

#[test]
fn every_command_the_guides_show_runs_as_they_say_on_sqlite() {
    run_every_guide(
        "SQLite",
        guide_files().into_iter().map(|f| (f, None)).collect(),
    );
}

#[tokio::test]
async fn every_command_the_guides_show_runs_as_they_say_on_postgresql() {
    let mut guides = Vec::new();
    let mut databases = Vec::new();
    for file in guide_files() {
        let Some(db) = support::postgres().await else {
            return;
        };
        guides.push((file, Some(db.url.clone())));
        databases.push(db);
    }
    run_every_guide("PostgreSQL", guides);
}

/// Asserts that `check(path, text)` finds nothing wrong in any of `files`.
fn none_in(files: Vec<String>, check: impl Fn(&str, &str) -> Vec<String>) {
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        problems.extend(check(&file, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The guides and the architecture map.
fn with_the_map() -> Vec<String> {
    let mut files = guide_files();
    files.push("ARCHITECTURE.md".into());
    files
}

#[test]
fn every_mail_the_guides_show_reads_as_they_say() {
    none_in(guide_files(), |file, text| {
        misread(file, &read_guide(file, text))
    });
}

#[test]
fn the_players_guide_shows_every_command_in_each_of_the_five_languages() {
    let shown = kinds_shown(&read_file("docs/players.md"));
    for lang in [Lang::En, Lang::Sl, Lang::Pl, Lang::Lv, Lang::De] {
        let have = shown.get(&lang).cloned().unwrap_or_default();
        let lacking: Vec<&str> = WORDED.into_iter().filter(|k| !have.contains(*k)).collect();
        assert!(
            lacking.is_empty(),
            "docs/players.md shows no {} mail for: {lacking:?}",
            lang.code()
        );
    }
}

#[test]
fn every_dopis_command_the_text_names_exists_with_the_flags_it_names() {
    none_in(guide_files(), |file, text| {
        inline_problems(file, &read_guide(file, text))
    });
}

#[test]
fn every_project_path_the_guides_name_exists() {
    none_in(with_the_map(), |file, text| {
        missing_paths(root(), file, text)
    });
}

#[test]
fn every_link_of_the_guides_finds_its_file_and_heading() {
    none_in(with_the_map(), |file, text| {
        broken_links(root(), file, text)
    });
}

// The checks can fail: each on a small guide with one mistake.

#[test]
fn a_command_with_a_wrong_flag_fails_the_guide() {
    let text = "```sh\ndopis init\ndopis player add --mail ana@example.org --name Ana\n```\n";
    let guide = read_guide("bad.md", text);
    assert!(guide.problems.is_empty(), "{:?}", guide.problems);
    let ran = run_guide("bad.md", &guide, None);
    assert_eq!(ran.commands, 2);
    assert_eq!(ran.failures.len(), 1, "{:?}", ran.failures);
    assert!(
        ran.failures[0].starts_with("bad.md:3: `dopis player add --mail")
            && ran.failures[0].contains("--mail"),
        "{}",
        ran.failures[0]
    );
    // The same command is right when the guide says it fails, and wrong
    // when a right one is said to fail.
    let text = "```sh\ndopis init\n```\n```sh exit=2\ndopis player add --mail a@example.org\n```\n\
                ```sh exit=1\ndopis player list\n```\n";
    let ran = run_guide("bad.md", &read_guide("bad.md", text), None);
    assert_eq!(ran.commands, 3);
    assert_eq!(ran.failures.len(), 1, "{:?}", ran.failures);
    assert!(ran.failures[0].starts_with("bad.md:8: `dopis player list` exited Some(0)"));
}

#[test]
fn a_file_block_is_written_before_the_commands_that_read_it() {
    let text = "```sh\ndopis init\n```\n\
                ```csv file=club.csv\nemail,name\nana@example.org,Ana Novak\n```\n\
                ```sh\ndopis player import club.csv\ngrep -q 'Ana Novak' club.csv\n```\n";
    let ran = run_guide("files.md", &read_guide("files.md", text), None);
    assert_eq!(
        ran,
        Ran {
            commands: 3,
            failures: vec![]
        }
    );
}

#[test]
fn a_mail_that_reads_otherwise_than_the_guide_says_is_caught() {
    let text = "| you write (sl) | dopis reads |\n|---|---|\n\
                | `remi`, `ponujam remi` | offer draw |\n| `predaja` | accept draw |\n\n\
                ```mail de: move Sf3 and offer draw\nSf3 Remis\n```\n\
                ```digest en: #42 move Nf3; #43 resign\n#42 Nf3\nBor Kralj: draw\n```\n";
    let guide = read_guide("mail.md", text);
    assert!(guide.problems.is_empty(), "{:?}", guide.problems);
    assert_eq!(guide.shown.len(), 5);
    assert_eq!(
        misread("mail.md", &guide),
        [
            "mail.md:4: the sl mail \"predaja\" reads as \"resign\", the guide says \"accept draw\"",
            "mail.md:9: the en mail \"#42 Nf3\\nBor Kralj: draw\" reads as \
             \"#42 move Nf3; #43 offer draw\", the guide says \"#42 move Nf3; #43 resign\"",
        ]
    );
    let kinds = kinds_shown(&guide);
    assert_eq!(
        kinds[&Lang::Sl],
        BTreeSet::from(["offer draw".to_string(), "accept draw".to_string()])
    );
    assert_eq!(kinds[&Lang::De], BTreeSet::from(["move".to_string()]));
}

#[test]
fn a_command_the_test_would_not_run_is_refused() {
    let text = "Run:\n\n    dopis init\n\n```\ndopis init\n```\n\
                ```bash\ndopis init\n```\n```sh norun:\ndopis serve\n```\n\
                ```text\ndopis web\n```\n```sh retry=3\ndopis init\n```\n";
    let guide = read_guide("slip.md", text);
    assert_eq!(
        guide.problems,
        [
            "slip.md:3: an indented command: write it in a ```sh block (run by the test) \
             or a ```sh norun: WHY block",
            "slip.md:5: a code block without a kind: write ```sh, ```toml, ```text …",
            "slip.md:8: ```bash: write ```sh (run by the test) or ```sh norun: WHY",
            "slip.md:11: ```sh norun: says no reason; write why it is not run",
            "slip.md:15: a dopis command in a ```text block: write it in a ```sh block",
            "slip.md:17: ```sh retry=3: unknown; write exit=N, sqlite-only or norun: WHY",
        ]
    );
}

#[test]
fn an_inline_command_or_flag_that_does_not_exist_is_caught() {
    let text = "Use `dopis event standings 2 --boards` and `dopis event standings 2 --bords`,\n\
                `dopis --config club/dopis.toml init`, and `dopis game forfeit 7`.\n";
    let guide = read_guide("inline.md", text);
    assert_eq!(guide.inline.len(), 4);
    assert_eq!(
        subcommand_and_flags("dopis --config club/dopis.toml init"),
        (vec!["init".to_string()], vec!["--config".to_string()])
    );
    assert_eq!(
        inline_problems("inline.md", &guide),
        [
            "inline.md:1: `dopis event standings 2 --bords`: `dopis event standings` has no --bords",
            "inline.md:2: `dopis game forfeit 7`: `dopis game forfeit --help` fails: no such command",
        ]
    );
}

#[test]
fn a_path_that_does_not_exist_is_caught() {
    let text = "The rules are in `src/domain/chess/` and `templates/<lang>/help.txt`;\n\
                the store was `src/store/games.rs`.\n";
    assert_eq!(
        missing_paths(root(), "paths.md", text),
        ["paths.md:2: `src/store/games.rs` does not exist"]
    );
}

#[test]
fn a_link_to_a_missing_file_or_heading_is_caught() {
    assert!(anchors("## The web server: `dopis web`\n").contains("the-web-server-dopis-web"));
    let text = "See [the TDs](td.md#web-pages), [players](players.md#no-such-part),\n\
                [gone](docs/nowhere.md), [here](#where-to-read-on), [web](https://example.org).\n";
    assert_eq!(
        broken_links(root(), "docs/links.md", text),
        [
            "docs/links.md:1: (players.md#no-such-part): no such heading",
            "docs/links.md:2: (docs/nowhere.md): no such file",
            "docs/links.md:2: (#where-to-read-on): no such file",
        ]
    );
    assert!(broken_links(root(), "README.md", "[here](#where-to-read-on)\n").is_empty());
}
