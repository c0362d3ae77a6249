//! The real `dopis serve --once` watched from outside, as an admin would:
//! its exit status, whether anything panicked, how long each mail took (from
//! the log lines that bracket it) and its peak memory (GNU `time`). And what
//! the club's database says was done with each mail and sent to whom.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use chrono::{DateTime, FixedOffset};

use crate::support::{TestDb, dopis, ok};

/// GNU time, which reports a process's peak resident memory (`%M`, in kB).
/// Debian's package `time`; scripts/test.sh installs it where missing.
const GNU_TIME: &str = "/usr/bin/time";

/// One pass of the daemon, watched.
#[derive(Debug)]
pub struct Observed {
    /// How the process ended.
    pub status: ExitStatus,
    /// What it logged (info, and the debug line that starts each mail).
    pub log: String,
    /// Its peak resident memory, in kB.
    pub peak_rss_kb: u64,
    /// Each mail read (`maildir:NAME`) and the time from the start of its
    /// reading to its outcome (handled, or set aside).
    pub mail_times: Vec<(String, Duration)>,
}

impl Observed {
    /// Whether anything panicked: a dead process, or a panic caught inside
    /// it (the reader's thread catches panics, but the hook still prints
    /// "panicked at").
    pub fn panicked(&self) -> bool {
        self.log.contains("panicked")
            || self.log.contains("RUST_BACKTRACE")
            || self.status.code().is_none()
    }
}

impl Observed {
    /// What became of each mail (`maildir:NAME` → the logged outcome, e.g.
    /// `Duplicate`, `Done("played e4")`), from the "handled mail" lines.
    pub fn outcomes(&self) -> HashMap<String, String> {
        self.log
            .lines()
            .filter(|l| l.contains("handled mail"))
            .filter_map(|l| {
                let mail = field(l, "mail=")?;
                let outcome = l.split_once(" outcome=")?.1.to_string();
                Some((mail, outcome))
            })
            .collect()
    }
}

/// Runs `dopis serve --once` in the club's directory under GNU time.
pub fn serve_once(dir: &Path, db: &TestDb) -> Observed {
    assert!(
        Path::new(GNU_TIME).exists(),
        "{GNU_TIME} is missing: install Debian's package `time` (scripts/test.sh does)"
    );
    let rss = tempfile::NamedTempFile::new().unwrap();
    let out = Command::new(GNU_TIME)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(rss.path())
        .arg(env!("CARGO_BIN_EXE_dopis"))
        .args(["serve", "--once"])
        .current_dir(dir)
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_CRASH_AT")
        .env("DOPIS_DATABASE_URL", &db.url)
        .env("DOPIS_LOG", "info,dopis::daemon::run=debug")
        .env("NO_COLOR", "1")
        .output()
        .expect("run dopis serve --once under GNU time");
    let timed = std::fs::read_to_string(rss.path()).unwrap_or_default();
    // GNU time writes "Command terminated by signal 9" (or "exited with
    // non-zero status") before the figure.
    let peak_rss_kb = timed
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let mail_times = mail_times(&log);
    let status = if timed.contains("terminated by signal") {
        // time itself exits normally then; keep the death visible.
        use std::os::unix::process::ExitStatusExt;
        ExitStatus::from_raw(9)
    } else {
        out.status
    };
    Observed {
        status,
        log,
        peak_rss_kb,
        mail_times,
    }
}

/// The time of each mail from the log: from its "reading mail" line to the
/// line that ends it ("handled mail", or its failure), whichever comes
/// first; a mail whose end is not logged runs to the next mail's start.
fn mail_times(log: &str) -> Vec<(String, Duration)> {
    let mut times = Vec::new();
    let mut open: Option<(String, DateTime<FixedOffset>)> = None;
    for line in log.lines() {
        let Some((stamp, rest)) = line.split_once(' ') else {
            continue;
        };
        let Ok(at) = DateTime::parse_from_rfc3339(stamp) else {
            continue;
        };
        let mail = field(rest, "mail=");
        let starts = rest.contains("reading mail");
        let ends = rest.contains("handled mail")
            || rest.contains("mail could not be handled")
            || rest.contains("reading mail");
        if ends
            && let Some((name, since)) = open.take()
            && (starts || mail.as_deref() == Some(&name))
        {
            times.push((name, (at - since).to_std().unwrap_or_default()));
        }
        if starts && let Some(mail) = mail {
            open = Some((mail, at));
        }
    }
    times
}

/// The value of a `name=value` log field (up to the next space).
fn field(line: &str, name: &str) -> Option<String> {
    let start = line.find(name)? + name.len();
    Some(
        line[start..]
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_string(),
    )
}

/// The value at `p` (0–100) of sorted durations.
pub fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = (sorted.len() * p).div_ceil(100).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// Milliseconds, for figures.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// What the daemon recorded of each mail it handled: `maildir:NAME` →
/// (idempotency key, outcome).
pub async fn inbound(store: &dopis::adapter::store::Store) -> HashMap<String, (String, String)> {
    dopis::adapter::store::sql::query("SELECT mailbox_ref, mail_key, outcome FROM inbound")
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(|r| {
            (
                r.try_get("mailbox_ref").unwrap(),
                (
                    r.try_get("mail_key").unwrap(),
                    r.try_get("outcome").unwrap(),
                ),
            )
        })
        .collect()
}

/// The mails `dopis failed list` shows as set aside: `maildir:NAME` → reason.
pub fn failed(dir: &Path, db: &TestDb) -> HashMap<String, String> {
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        dir,
        db,
        &["failed", "list", "--format", "json"],
    )))
    .unwrap();
    json["mails"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["mailbox_ref"].as_str().unwrap().to_string(),
                m["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// One mail of the outbox (sent or still to send), as its recipient gets it.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// The envelope recipient.
    pub recipient: String,
    /// Every address in To, Cc and Bcc.
    pub header_recipients: Vec<String>,
    /// The subject.
    pub subject: String,
    /// The mails it answers: In-Reply-To and References, without `<>`.
    pub answers: Vec<String>,
    /// `Auto-Submitted`.
    pub auto_submitted: String,
    /// `X-Loop`.
    pub x_loop: String,
    /// The names of its header fields.
    pub header_names: Vec<String>,
}

/// Every mail in the outbox, oldest first.
pub async fn outbox(store: &dopis::adapter::store::Store) -> Vec<Outgoing> {
    let rows = dopis::adapter::store::sql::query("SELECT recipient, raw FROM outbox ORDER BY id")
        .fetch_all(store.pool())
        .await
        .unwrap();
    rows.iter()
        .map(|r| {
            let raw: Vec<u8> = r.try_get("raw").unwrap();
            let msg = mail_parser::MessageParser::default()
                .parse(&raw)
                .expect("our own mail parses");
            let mut header_recipients = Vec::new();
            for list in [msg.to(), msg.cc(), msg.bcc()].into_iter().flatten() {
                for a in list.iter() {
                    header_recipients.push(a.address().unwrap_or("(none)").to_lowercase());
                }
            }
            let ids = |v: &mail_parser::HeaderValue<'_>| -> Vec<String> {
                match v {
                    mail_parser::HeaderValue::Text(t) => vec![t.to_string()],
                    mail_parser::HeaderValue::TextList(l) => {
                        l.iter().map(|t| t.to_string()).collect()
                    }
                    _ => Vec::new(),
                }
            };
            let mut answers = ids(msg.in_reply_to());
            answers.extend(ids(msg.references()));
            let header = |name: &str| msg.header_raw(name).unwrap_or("").trim().to_string();
            Outgoing {
                recipient: r.try_get::<String, _>("recipient").unwrap().to_lowercase(),
                header_recipients,
                subject: msg.subject().unwrap_or("").to_string(),
                answers,
                auto_submitted: header("Auto-Submitted"),
                x_loop: header("X-Loop"),
                header_names: msg
                    .headers_raw()
                    .map(|(n, _)| n.to_ascii_lowercase())
                    .collect(),
            }
        })
        .collect()
}

/// The registered players' addresses, lower-cased.
pub async fn registered(store: &dopis::adapter::store::Store) -> Vec<String> {
    dopis::adapter::store::sql::query("SELECT email FROM players")
        .fetch_all(store.pool())
        .await
        .unwrap()
        .iter()
        .map(|r| r.try_get::<String, _>("email").unwrap().to_lowercase())
        .collect()
}

/// What a mail could change besides the moves, for every game: status,
/// result, draw offers, conditional moves; and, over all players, leave
/// booked, confirmations used, languages and pauses. Equal before and
/// after a mail: it changed nothing.
pub async fn state_besides_moves(store: &dopis::adapter::store::Store) -> Vec<String> {
    let mut state = Vec::new();
    for r in dopis::adapter::store::sql::query(
        "SELECT id, status, result, end_reason, draw_offer_by, conditionals, \
         white_offer_ply, black_offer_ply FROM games ORDER BY id",
    )
    .fetch_all(store.pool())
    .await
    .unwrap()
    {
        state.push(format!(
            "game {} {} {:?} {:?} offer {:?} if {:?} offers {:?}/{:?}",
            r.try_get::<i64, _>("id").unwrap(),
            r.try_get::<String, _>("status").unwrap(),
            r.try_get::<Option<String>, _>("result").unwrap(),
            r.try_get::<Option<String>, _>("end_reason").unwrap(),
            r.try_get::<Option<String>, _>("draw_offer_by").unwrap(),
            r.try_get::<Option<String>, _>("conditionals").unwrap(),
            r.try_get::<Option<i64>, _>("white_offer_ply").unwrap(),
            r.try_get::<Option<i64>, _>("black_offer_ply").unwrap(),
        ));
    }
    for r in
        dopis::adapter::store::sql::query("SELECT email, lang, paused_at FROM players ORDER BY id")
            .fetch_all(store.pool())
            .await
            .unwrap()
    {
        state.push(format!(
            "player {} {} paused {:?}",
            r.try_get::<String, _>("email").unwrap(),
            r.try_get::<String, _>("lang").unwrap(),
            r.try_get::<Option<i64>, _>("paused_at").unwrap(),
        ));
    }
    for (what, sql) in [
        ("leave booked", "SELECT COUNT(*) AS n FROM leave_bookings"),
        (
            "confirmations used",
            "SELECT COUNT(*) AS n FROM confirmations WHERE used_at IS NOT NULL",
        ),
    ] {
        let n: i64 = dopis::adapter::store::sql::query(sql)
            .fetch_one(store.pool())
            .await
            .unwrap()
            .try_get("n")
            .unwrap();
        state.push(format!("{what}: {n}"));
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_brackets_each_mail() {
        let log = "\
2026-01-01T00:00:00.000000Z DEBUG dopis::daemon::run: reading mail mail=maildir:a bytes=3
2026-01-01T00:00:00.010000Z  INFO dopis::daemon::run: handled mail mail=maildir:a outcome=Done(\"x\")
2026-01-01T00:00:00.020000Z DEBUG dopis::daemon::run: reading mail mail=maildir:b bytes=3
2026-01-01T00:00:00.050000Z  WARN dopis::daemon::run: mail could not be handled; will try again mail=maildir:b
2026-01-01T00:00:00.060000Z DEBUG dopis::daemon::run: reading mail mail=maildir:c bytes=3
2026-01-01T00:00:00.090000Z DEBUG dopis::daemon::run: reading mail mail=maildir:d bytes=3
2026-01-01T00:00:00.100000Z  INFO dopis::daemon::run: sent key=x to=y
";
        let times = mail_times(log);
        let ms: Vec<(String, u128)> = times.into_iter().map(|(m, d)| (m, d.as_millis())).collect();
        assert_eq!(
            ms,
            vec![
                ("maildir:a".to_string(), 10),
                ("maildir:b".to_string(), 30),
                ("maildir:c".to_string(), 30),
            ]
        );
    }

    #[test]
    fn percentiles_pick_from_the_sorted_list() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&d, 50), Duration::from_millis(50));
        assert_eq!(percentile(&d, 99), Duration::from_millis(99));
        assert_eq!(percentile(&d, 100), Duration::from_millis(100));
        assert_eq!(percentile(&d[..1], 99), Duration::from_millis(1));
    }
}
