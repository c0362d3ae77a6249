//! `dopis doctor`: checks a set-up piece by piece, in the order the daemon
//! needs them, and says of each what is wrong and how to fix it.
//!
//! It lives with the daemon, not the services, because it speaks to the
//! mail servers, which only the daemon's edges do; it logs in to them by
//! the daemon's own connect. The probe mail, made by [`crate::service::probe`],
//! goes to one of the server's own reply addresses and is removed when
//! found.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::mailbox::{ImapProbe, ImapStep, MaildirMailbox, StepNote, diagnose_imap};
use super::mailer::{DkimSigning, SmtpFault, SmtpMailer};
use crate::adapter::config::{Config, MailConfig, SmtpConfig};
use crate::service::app::{Clock, Settings};
use crate::service::post::Post;
use crate::service::probe;
use crate::service::{StoreError, open_store, redact_url};

/// How far the clocks may differ before the doctor warns.
pub const SKEW_WARN: chrono::TimeDelta = chrono::TimeDelta::minutes(5);
/// How far before it fails: deadlines and move times would be off.
pub const SKEW_FAIL: chrono::TimeDelta = chrono::TimeDelta::hours(1);

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Fine.
    Ok,
    /// Works, but worth knowing.
    Warn,
    /// Broken: the daemon cannot work so.
    Fail,
}

/// One line of the doctor's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What was checked (`imap login`).
    pub name: String,
    /// How it came out.
    pub verdict: Verdict,
    /// What was found.
    pub text: String,
    /// How to fix it (warnings and failures).
    pub fix: Option<String>,
}

impl Check {
    /// A check that passed.
    pub fn ok(name: &str, text: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            verdict: Verdict::Ok,
            text: text.into(),
            fix: None,
        }
    }

    /// A warning, with what to do about it.
    pub fn warn(name: &str, text: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            verdict: Verdict::Warn,
            text: text.into(),
            fix: Some(fix.into()),
        }
    }

    /// A failure, with how to fix it.
    pub fn fail(name: &str, text: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name: name.into(),
            verdict: Verdict::Fail,
            text: text.into(),
            fix: Some(fix.into()),
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = match self.verdict {
            Verdict::Ok => "ok  ",
            Verdict::Warn => "WARN",
            Verdict::Fail => "FAIL",
        };
        write!(f, "{tag}  {}: {}", self.name, self.text)?;
        if let Some(fix) = &self.fix {
            write!(f, "\n      fix: {fix}")?;
        }
        Ok(())
    }
}

/// What the doctor may do.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// How long to wait for the probe mail.
    pub wait: Duration,
}

/// Runs every check after the config's own (the caller loaded it), giving
/// each line to `report` as soon as it is known. Returns whether none failed.
pub async fn run(
    config: &Config,
    options: Options,
    clock: &dyn Clock,
    report: &mut dyn FnMut(Check),
) -> bool {
    let mut failed = false;
    let mut note = |check: Check, report: &mut dyn FnMut(Check)| {
        failed |= check.verdict == Verdict::Fail;
        report(check);
    };
    let mut collected = Vec::new();
    let post = settings(config, &mut collected);
    for check in collected.drain(..) {
        note(check, report);
    }
    database(config, &mut collected).await;
    for check in collected.drain(..) {
        note(check, report);
    }
    let mail = &config.mail;
    let mut probe = None;
    match &mail.imap {
        Some(imap) => {
            let watch = &mut |step: ImapStep, note| {
                collected.push(match note {
                    StepNote::Passed(text) => Check::ok(step.name(), text),
                    StepNote::Warned { what, fix } => Check::warn(step.name(), what, fix),
                })
            };
            match diagnose_imap(imap, watch).await {
                Ok(found) => probe = Some(found),
                Err(f) => collected.push(Check::fail(f.step.name(), f.error.message(), f.fix)),
            }
        }
        None => maildir_inbox(&mail.maildir.path.join("inbox"), &mut collected).await,
    }
    for check in collected.drain(..) {
        note(check, report);
    }
    let smtp = match &mail.smtp {
        Some(smtp) => smtp_checks(smtp, &mut collected).await,
        None => {
            maildir_sent(&mail.maildir.path.join("sent"), &mut collected);
            None
        }
    };
    for check in collected.drain(..) {
        note(check, report);
    }
    reply_and_clock(
        mail,
        post.as_ref(),
        probe,
        smtp,
        options,
        clock,
        &mut collected,
    )
    .await;
    for check in collected.drain(..) {
        note(check, report);
    }
    !failed
}

/// The settings the config file cannot check by itself: the mail secret and
/// addresses, the clock settings, the DKIM key.
fn settings(config: &Config, out: &mut Vec<Check>) -> Option<Post> {
    let post = match Post::new(&config.mail) {
        Ok(post) => Some(post),
        Err(e) => {
            out.push(Check::fail(
                "config",
                e.to_string(),
                "fix the [mail] setting named",
            ));
            None
        }
    };
    match Settings::from_config(config) {
        // Told by the tablebase check below, with each file's fault.
        Err(crate::adapter::config::ConfigError::BadTablebase { .. }) | Ok(_) => {}
        Err(e) => out.push(Check::fail(
            "config",
            e.to_string(),
            "fix the [clock] setting named",
        )),
    }
    tablebase(config, out);
    if let Some(dkim) = &config.mail.dkim {
        let domain = config
            .mail
            .address
            .rsplit_once('@')
            .map_or("", |(_, d)| d)
            .trim();
        match DkimSigning::load(dkim, domain) {
            Ok(_) => out.push(Check::ok(
                "dkim",
                format!(
                    "the key {} is usable (selector {})",
                    dkim.key_file.display(),
                    dkim.selector
                ),
            )),
            Err(e) => out.push(Check::fail(
                "dkim",
                e.to_string(),
                "fix [mail.dkim] key_file",
            )),
        }
    }
    post
}

/// The endgame tables of `[tablebase] syzygy_path`: what was found, and
/// each file left out with why.
fn tablebase(config: &Config, out: &mut Vec<Check>) {
    if config.tablebase.syzygy_path.is_empty() {
        return;
    }
    match crate::service::app::open_tables(config) {
        Err(e) => out.push(Check::fail(
            "tablebase",
            e.to_string(),
            "fix [tablebase] syzygy_path",
        )),
        Ok((_, None)) => {}
        Ok((_, Some(found))) => {
            out.push(Check::ok("tablebase", found.summary()));
            for (problem, fix) in found.problems() {
                out.push(Check::warn("tablebase", problem, fix));
            }
        }
    }
}

async fn database(config: &Config, out: &mut Vec<Check>) {
    let url = config.database.url.expose();
    let shown = redact_url(url);
    let store = match open_store(url).await {
        Ok(store) => store,
        Err(e) => {
            let fix = match &e {
                StoreError::NotSetUp { .. } => {
                    "run `dopis init`, or point [database] url at the right database".to_string()
                }
                StoreError::TooNew { .. } => {
                    "run the newer dopis that upgraded it, or restore a backup taken before".into()
                }
                StoreError::UnsupportedUrl { .. } => {
                    "write [database] url as sqlite://FILE or postgres://USER:PASSWORD@HOST/NAME"
                        .into()
                }
                _ if e.to_string().contains("readonly") => format!(
                    "let the user dopis runs as write the database file and its folder ({shown})"
                ),
                _ => "check that the database server runs and that [database] url names it \
                      (host, port, user, password, database name); for SQLite, that the file's \
                      folder exists and is writable"
                    .into(),
            };
            out.push(Check::fail("database", e.to_string(), fix));
            return;
        }
    };
    match store.schema_version().await {
        Ok(version) => out.push(Check::ok(
            "database",
            format!(
                "{shown} opens; its schema is current (version {})",
                version.unwrap_or(0)
            ),
        )),
        Err(e) => out.push(Check::fail(
            "database",
            format!("{shown} opens but its schema version cannot be read: {e}"),
            "check that [database] url names the dopis database",
        )),
    }
    match store.check_writable().await {
        Ok(()) => out.push(Check::ok(
            "database writable",
            "a write transaction goes through",
        )),
        Err(e) => out.push(Check::fail(
            "database writable",
            format!("{shown} refuses writes: {e}"),
            "let the user dopis runs as write the database (for SQLite: the file and its \
             folder; for PostgreSQL: a role with write rights on a primary, not a replica)",
        )),
    }
    store.close().await;
}

/// A Maildir (created when missing, as `serve` does) and whether a file
/// can be written into it.
fn maildir_writable(dir: &Path) -> Result<bool, String> {
    let existed = dir.join("new").is_dir();
    for sub in ["tmp", "new", "cur"] {
        std::fs::create_dir_all(dir.join(sub))
            .map_err(|e| format!("{} cannot be created: {e}", dir.join(sub).display()))?;
    }
    let test = dir.join("tmp").join(format!(
        "dopis-doctor-{}-{:08x}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::write(&test, b"dopis doctor")
        .map_err(|e| format!("{} is not writable: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&test);
    Ok(existed)
}

async fn maildir_inbox(dir: &Path, out: &mut Vec<Check>) {
    let fix = "let the user dopis runs as write [mail.maildir] path, or set it to a folder it may \
               write (or configure [mail.imap] and [mail.smtp] for a real mailbox)";
    match maildir_writable(dir) {
        Ok(existed) => match MaildirMailbox::open(dir).await {
            Ok(_) => out.push(Check::ok(
                "maildir inbox",
                format!(
                    "{} {}, writable: mail is read from it (no [mail.imap])",
                    dir.display(),
                    if existed { "exists" } else { "created" }
                ),
            )),
            Err(e) => out.push(Check::fail("maildir inbox", e.to_string(), fix)),
        },
        Err(e) => out.push(Check::fail("maildir inbox", e, fix)),
    }
}

fn maildir_sent(dir: &Path, out: &mut Vec<Check>) {
    match maildir_writable(dir) {
        Ok(existed) => out.push(Check::ok(
            "maildir sent",
            format!(
                "{} {}, writable: mail is written to it, not sent (no [mail.smtp])",
                dir.display(),
                if existed { "exists" } else { "created" }
            ),
        )),
        Err(e) => out.push(Check::fail(
            "maildir sent",
            e,
            "let the user dopis runs as write [mail.maildir] path, or configure [mail.smtp]",
        )),
    }
}

async fn smtp_checks(cfg: &SmtpConfig, out: &mut Vec<Check>) -> Option<SmtpMailer> {
    let mailer = match SmtpMailer::new(cfg) {
        Ok(mailer) => mailer,
        Err(e) => {
            out.push(Check::fail(
                "smtp",
                e.to_string(),
                "fix the [mail.smtp] setting named",
            ));
            return None;
        }
    };
    let server = mailer.server().to_string();
    let (host, port) = server.rsplit_once(':').unwrap_or((&server, ""));
    let port: u16 = port.parse().unwrap_or(25);
    match tokio::time::timeout(
        Duration::from_secs(30),
        tokio::net::TcpStream::connect((host, port)),
    )
    .await
    {
        Ok(Ok(_)) => out.push(Check::ok("smtp connect", format!("{server} answers"))),
        Ok(Err(e)) => {
            out.push(Check::fail(
                "smtp connect",
                format!("cannot connect to SMTP server {server}: {e}"),
                "check that the server runs and that [mail.smtp] host and port name it \
                 (465 for tls = \"tls\", 587 for starttls)",
            ));
            return None;
        }
        Err(_) => {
            out.push(Check::fail(
                "smtp connect",
                format!("SMTP server {server} did not answer in 30 s"),
                "check [mail.smtp] host and port, and that no firewall drops the connection",
            ));
            return None;
        }
    }
    let tls = match cfg.tls {
        crate::adapter::config::Tls::None => {
            "none (tls = \"none\"; allowed as the server is on this machine)"
        }
        crate::adapter::config::Tls::Tls => "TLS from the start, certificate valid",
        crate::adapter::config::Tls::Starttls => "STARTTLS, certificate valid",
    };
    match mailer.check().await {
        Ok(()) => {
            out.push(Check::ok("smtp tls", tls));
            out.push(Check::ok(
                "smtp login",
                match &cfg.user {
                    Some(user) => format!("logged in as '{user}'"),
                    None => "no login configured; the server took the connection".to_string(),
                },
            ));
            Some(mailer)
        }
        Err(SmtpFault::Tls(e)) => {
            out.push(Check::fail(
                "smtp tls",
                e,
                "check [mail.smtp] tls (\"tls\" for port 465, \"starttls\" for 587), port and ca_file",
            ));
            None
        }
        Err(SmtpFault::Login(e)) => {
            out.push(Check::ok("smtp tls", tls));
            out.push(Check::fail(
                "smtp login",
                e,
                if cfg.token_command.is_some() {
                    "check [mail.smtp] user and token_command: the command must print a fresh \
                     OAuth2 access token for that user, allowed to send mail (SMTP)"
                } else {
                    "check [mail.smtp] user and password (with two-factor login, an app password)"
                },
            ));
            None
        }
        Err(SmtpFault::Other(e)) => {
            out.push(Check::fail(
                "smtp",
                e,
                "check [mail.smtp] host, port, tls, user and password",
            ));
            None
        }
    }
}

/// The probe mail to a reply address, and the clocks compared by its
/// arrival time.
async fn reply_and_clock(
    mail: &MailConfig,
    post: Option<&Post>,
    probe: Option<ImapProbe>,
    smtp: Option<SmtpMailer>,
    options: Options,
    clock: &dyn Clock,
    out: &mut Vec<Check>,
) {
    let Some(post) = post else {
        out.push(Check::fail(
            "reply address",
            "not checked: the [mail] settings above are unusable",
            "fix them first",
        ));
        return;
    };
    let address = probe::reply_address(post);
    let (Some(mut probe), Some(smtp)) = (probe, smtp) else {
        let how = if mail.imap.is_none() && mail.smtp.is_none() {
            "with the local Maildir nothing is delivered, so"
        } else if mail.imap.is_none() || mail.smtp.is_none() {
            "it takes both [mail.imap] and [mail.smtp], so"
        } else {
            "IMAP or SMTP failed above, so"
        };
        let text = format!("{how} no mail was sent to the reply address {address}");
        if mail.imap.is_some() && mail.smtp.is_some() {
            out.push(Check::fail(
                "reply address",
                text,
                "fix the failures above first",
            ));
        } else {
            out.push(Check::ok("reply address", text));
        }
        out.push(Check::ok(
            "clock",
            "not compared: no mail server received a probe (this machine's clock is used for \
             every deadline; keep it synchronised, e.g. with NTP)",
        ));
        return;
    };
    let nonce = format!("{:016x}", rand::random::<u64>());
    let sent_at = clock.now();
    let probe_mail = probe::probe_mail(post, &nonce, sent_at);
    if let Err(e) = smtp
        .send(&post.ours, std::slice::from_ref(&address), &probe_mail.raw)
        .await
    {
        out.push(Check::fail(
            "reply address",
            format!("the SMTP server did not take a mail to {address}: {e}"),
            reply_fix(mail, &address),
        ));
        probe.close().await;
        return;
    }
    let started = tokio::time::Instant::now();
    let arrived = probe
        .await_and_remove(probe::HEADER, &probe_mail.mark, options.wait)
        .await;
    let took = started.elapsed();
    let mailbox = probe.mailbox().to_string();
    probe.close().await;
    let received = match arrived {
        Ok(Some(received)) => {
            out.push(Check::ok(
                "reply address",
                format!(
                    "a mail to {address} reached the folder '{mailbox}' in {:.1} s (removed again)",
                    took.as_secs_f64()
                ),
            ));
            received
        }
        Ok(None) => {
            out.push(Check::fail(
                "reply address",
                format!(
                    "a mail to {address} did not reach the folder '{mailbox}' within {} s",
                    options.wait.as_secs()
                ),
                reply_fix(mail, &address),
            ));
            out.push(Check::ok(
                "clock",
                "not compared: the probe mail did not arrive",
            ));
            return;
        }
        Err(e) => {
            out.push(Check::fail(
                "reply address",
                format!("looking for the mail to {address} failed: {e}"),
                "run the doctor again; if it persists, the IMAP server misbehaves",
            ));
            return;
        }
    };
    out.push(clock_check(sent_at, received));
}

fn reply_fix(mail: &MailConfig, address: &crate::domain::address::EmailAddress) -> String {
    if mail.reply_domain.trim().is_empty() {
        format!(
            "the mail system must deliver {address} to this mailbox: set [mail] reply_delimiter \
             to the character your provider puts between an address and its tag (\"+\" for \
             Gmail, Fastmail, Outlook.com and Postfix; \"-\" for Yahoo and qmail), or, if it has \
             none, set [mail] reply_domain to a catch-all domain; a slow server may need a \
             longer --wait"
        )
    } else {
        format!(
            "every address of the domain {} must reach this mailbox (a catch-all, or a \
             wildcard alias): set that up with your provider, or leave [mail] reply_domain \
             empty to use subaddresses; a slow server may need a longer --wait",
            mail.reply_domain.trim()
        )
    }
}

/// Compares this machine's clock when the probe was sent with the mail
/// server's when it received it (delivery takes seconds, so minutes apart
/// is a wrong clock).
pub fn clock_check(sent_at: DateTime<Utc>, received: DateTime<Utc>) -> Check {
    let apart = received - sent_at;
    let size = apart.abs();
    let which = if apart < chrono::TimeDelta::zero() {
        "ahead of"
    } else {
        "behind"
    };
    let text = format!(
        "this machine's clock is {} {which} the mail server's (it received the probe at {})",
        human(size),
        received.format("%Y-%m-%d %H:%M:%S UTC")
    );
    let fix = "synchronise this machine's clock (NTP: systemd-timesyncd, chrony or ntpd); \
               dopis times moves by the mail server's arrival time and deadlines by this clock";
    if size > SKEW_FAIL {
        Check::fail("clock", text, fix)
    } else if size > SKEW_WARN {
        Check::warn("clock", text, fix)
    } else {
        Check::ok(
            "clock",
            format!(
                "this machine's clock and the mail server's agree (within {} s)",
                size.num_seconds().max(1)
            ),
        )
    }
}

fn human(d: chrono::TimeDelta) -> String {
    let minutes = d.num_minutes();
    if minutes >= 120 {
        format!("{} h {} min", minutes / 60, minutes % 60)
    } else if minutes >= 1 {
        format!("{minutes} min")
    } else {
        format!("{} s", d.num_seconds())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_a_few_seconds_apart_agree_and_hours_apart_fail() {
        let at = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        let after = |s: i64| at + chrono::TimeDelta::seconds(s);
        assert_eq!(clock_check(at, after(2)).verdict, Verdict::Ok);
        assert_eq!(clock_check(at, after(-1)).verdict, Verdict::Ok);
        let warn = clock_check(at, after(-600));
        assert_eq!(warn.verdict, Verdict::Warn);
        assert!(warn.text.contains("10 min ahead of"), "{}", warn.text);
        let fail = clock_check(at, after(2 * 3600 + 60));
        assert_eq!(fail.verdict, Verdict::Fail);
        assert!(fail.text.contains("2 h 1 min behind"), "{}", fail.text);
        assert!(fail.to_string().contains("fix: synchronise"), "{fail}");
    }
}
