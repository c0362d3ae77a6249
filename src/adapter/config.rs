//! The config file (TOML) and its `DOPIS_…` environment overrides.
//!
//! Every key has a default, so no file is needed to start. A key the
//! program does not know — in the file or as a `DOPIS_…` variable — is an
//! error, not silently ignored: a typo'd key would otherwise look like a
//! setting that "does nothing".

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The whole configuration.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where games and players are stored.
    pub database: DatabaseConfig,
    /// How mail comes in and goes out.
    pub mail: MailConfig,
    /// Reminders, silence notices and leave.
    pub clock: ClockConfig,
    /// How `dopis serve` logs.
    pub log: LogConfig,
    /// How long mail bodies and inbound records are kept.
    pub retention: RetentionConfig,
    /// The daemon's health and metrics endpoints.
    pub metrics: MetricsConfig,
    /// `dopis web`: pages, calendar feeds and the XFCC endpoint.
    pub web: WebConfig,
    /// The endgame tables claims are judged on.
    pub tablebase: TablebaseConfig,
}

/// `[tablebase]`: the Syzygy endgame tables (docs/admin.md: "Endgame tables").
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TablebaseConfig {
    /// Folders holding `.rtbw` and `.rtbz` files; none: no tables (claims
    /// on them are refused with that reason).
    pub syzygy_path: Vec<PathBuf>,
}

/// `[retention]`: how long `dopis serve` keeps what it needs only for a
/// while (docs/admin.md, "What dopis keeps, and for how long"). 0 keeps for ever.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RetentionConfig {
    /// Days after sending that an outbox mail's body is dropped (its key,
    /// Message-ID, recipient and state stay).
    pub outbox_bodies_days: u32,
    /// Days after handling that an inbound record's sender and outcome are
    /// dropped (its key and fingerprint stay).
    pub inbound_days: u32,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        RetentionConfig {
            outbox_bodies_days: 30,
            inbound_days: 90,
        }
    }
}

/// `[web]`: what `dopis web` serves and where (see [`crate::web`]).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// The address and port to listen on.
    pub listen: String,
    /// The address people reach the pages at (e.g.
    /// `https://chess.example.org`); mails link to the pages only when set.
    pub base_url: Option<String>,
    /// The path of the XFCC endpoint chess programs are pointed at.
    pub xfcc_path: String,
    /// `dopis web` speaks plain HTTP and XFCC passwords travel in every
    /// request: it listens beyond the loopback only when this says a
    /// reverse proxy in front of it does TLS.
    pub behind_proxy: bool,
}

impl Default for WebConfig {
    fn default() -> Self {
        WebConfig {
            listen: "127.0.0.1:8080".into(),
            base_url: None,
            xfcc_path: "/xfcc/xfccbasic.asmx".into(),
            behind_proxy: false,
        }
    }
}

impl WebConfig {
    /// The address to listen on: plain HTTP beyond the loopback only
    /// behind a proxy.
    pub fn address(&self) -> Result<std::net::SocketAddr, ConfigError> {
        let listen = self.listen.trim();
        let address: std::net::SocketAddr = listen.parse().map_err(|_| ConfigError::BadWeb {
            message: format!(
                "listen = \"{}\" is not an IP address and port; write e.g. \
                 listen = \"127.0.0.1:8080\" (or \"[::1]:8080\")",
                listen.chars().take(80).collect::<String>()
            ),
        })?;
        if !address.ip().is_loopback() && !self.behind_proxy {
            return Err(ConfigError::BadWeb {
                message: format!(
                    "listen = \"{address}\" is not a loopback address: dopis web speaks plain \
                     HTTP and chess programs send XFCC passwords in every request. Put a \
                     reverse proxy that does TLS (nginx, Caddy) in front of it, listen on \
                     127.0.0.1 and set behind_proxy = true"
                ),
            });
        }
        Ok(address)
    }

    /// The public base URL without a trailing slash; `None` when unset.
    pub fn base(&self) -> Result<Option<String>, ConfigError> {
        let Some(url) = self
            .base_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
        else {
            return Ok(None);
        };
        let ok = (url.starts_with("https://") || url.starts_with("http://"))
            && !url.contains(char::is_whitespace)
            && !url.contains(['?', '#', '"', '<', '>']);
        if !ok {
            return Err(ConfigError::BadWeb {
                message: format!(
                    "base_url = \"{}\" is not an http(s) address; write e.g. \
                     base_url = \"https://chess.example.org\"",
                    url.chars().take(80).collect::<String>()
                ),
            });
        }
        Ok(Some(url.trim_end_matches('/').to_string()))
    }

    /// The XFCC path, checked: it starts with `/` and names no query.
    pub fn xfcc(&self) -> Result<String, ConfigError> {
        let path = self.xfcc_path.trim();
        let ok = path.starts_with('/')
            && path.len() > 1
            && path
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-~".contains(&b));
        if !ok {
            return Err(ConfigError::BadWeb {
                message: format!(
                    "xfcc_path = \"{}\" is not a plain path; write e.g. \
                     xfcc_path = \"/xfcc/xfccbasic.asmx\"",
                    path.chars().take(80).collect::<String>()
                ),
            });
        }
        Ok(path.to_string())
    }
}

/// `[metrics]`: `dopis serve`'s `/healthz` and Prometheus `/metrics`
/// endpoints (see [`crate::daemon::metrics`]). Off unless `listen` is set.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// The address and port to serve them on, e.g. `127.0.0.1:9187`;
    /// absent or empty: off. Anyone who can reach it can read the figures.
    pub listen: Option<String>,
}

impl MetricsConfig {
    /// The address to listen on; `None` when the endpoints are off.
    pub fn address(&self) -> Result<Option<std::net::SocketAddr>, ConfigError> {
        let Some(listen) = self
            .listen
            .as_deref()
            .map(str::trim)
            .filter(|l| !l.is_empty())
        else {
            return Ok(None);
        };
        listen
            .parse()
            .map(Some)
            .map_err(|_| ConfigError::BadMetrics {
                message: format!(
                    "listen = \"{listen}\" is not an IP address and port; write e.g. \
                 listen = \"127.0.0.1:9187\" (or \"[::1]:9187\")"
                ),
            })
    }
}

/// `[log]`: how `dopis serve` writes its log lines (on stderr).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// `text` for people, `json` for log collectors.
    pub format: LogFormat,
    /// The least important lines written: `error`, `warn`, `info`, `debug`,
    /// `trace`, or a tracing filter (`info,dopis::daemon=debug`).
    /// `DOPIS_LOG` wins when set.
    pub level: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            format: LogFormat::Text,
            level: "info".into(),
        }
    }
}

/// The shape of log lines.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One readable line per event: time, level, message, fields.
    Text,
    /// One JSON object per line (`timestamp`, `level`, `fields`, `target`).
    Json,
}

/// `[clock]`: when the scheduler reminds players, and the leave allowance.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ClockConfig {
    /// Reminders before a deadline, e.g. `24h` or `72h,24h,6h`.
    pub reminders: String,
    /// Silence reminders after this many days without a move, e.g. `14,28,35`.
    pub silence: String,
    /// Days of regular leave per player and calendar year.
    pub leave_days: u32,
}

impl Default for ClockConfig {
    fn default() -> Self {
        ClockConfig {
            reminders: "24h".into(),
            silence: "14,28,35".into(),
            leave_days: 45,
        }
    }
}

impl ClockConfig {
    /// The reminder plan these settings describe.
    pub fn plan(&self) -> Result<crate::domain::clock::ReminderPlan, ConfigError> {
        let bad = |message: String| ConfigError::BadClock { message };
        let before = crate::domain::clock::due::parse_reminders(&self.reminders)
            .map_err(|e| bad(format!("reminders: {e}")))?;
        let silence_days = self
            .silence
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.trim_end_matches('d').parse::<u32>().map_err(|_| {
                    bad(format!(
                        "silence: '{p}' is not a number of days; write e.g. silence = \"14,28,35\""
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(crate::domain::clock::ReminderPlan {
            before,
            silence_days,
        })
    }
}

/// `[mail]`: our address, and the mailbox and transport to use.
///
/// When neither `[mail.imap]` nor `[mail.smtp]` is given, mail comes from and
/// goes to the local Maildir of `[mail.maildir]` (the embedded default).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    /// The server's address; `local+TAG@domain` plus-addresses route to games.
    pub address: String,
    /// The character the mail provider puts between an address and its tag
    /// (subaddressing): `+` (the default: Gmail, Fastmail, Outlook.com,
    /// Postfix), `-` (Yahoo, qmail, many hosts), `_` or `=`.
    pub reply_delimiter: String,
    /// For a provider without subaddressing: a domain (or subdomain) whose
    /// every address reaches our mailbox (a catch-all). Reply addresses are
    /// then `g42.TOKEN@this.domain`, and `reply_delimiter` is not used.
    /// Empty (the default): subaddresses of `address`.
    pub reply_domain: String,
    /// The display name on mails we send.
    pub name: String,
    /// The server secret that reply tokens are made from (HMAC-SHA256).
    /// Changing it invalidates every reply address already sent.
    pub secret: Secret,
    /// Also require a DKIM/DMARC pass on mail that moves pieces.
    pub require_dkim: bool,
    /// The DNS servers the DKIM check asks for keys (`IP` or `IP:PORT`);
    /// empty means the system's resolver (`/etc/resolv.conf`).
    pub dns_servers: Vec<String>,
    /// At most this many answers per hour to one sender address.
    pub answers_per_hour: u32,
    /// The longest one mail may take to read, in milliseconds: a mail that
    /// takes longer is refused (the registered sender is told) and kept for
    /// the admin, so no mail can stall the daemon.
    pub read_budget_ms: u64,
    /// A player whose address bounces this many of our mails for good
    /// within `bounce_days` is paused: their mail is held and their TDs are
    /// told. 0 never pauses anyone.
    pub bounces_to_pause: u32,
    /// The days over which bounces are counted.
    pub bounce_days: u32,
    /// The link under the board of a "your move" mail that opens the
    /// position on an analysis board: `off` (the default: many events
    /// forbid engines), `lichess`, or an address template with `{fen}`
    /// (see [`crate::domain::chess::analysis`]). An event's own `analysis_link`
    /// wins for its games.
    pub analysis_link: String,
    /// Inbound from IMAP.
    pub imap: Option<ImapConfig>,
    /// Outbound via SMTP.
    pub smtp: Option<SmtpConfig>,
    /// DKIM-sign the mail we send.
    pub dkim: Option<DkimConfig>,
    /// The local Maildir used for whatever has no IMAP/SMTP server.
    pub maildir: MaildirConfig,
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig {
            address: "chess@localhost".into(),
            reply_delimiter: "+".into(),
            reply_domain: String::new(),
            name: "dopis".into(),
            secret: Secret::new(""),
            require_dkim: false,
            dns_servers: Vec::new(),
            answers_per_hour: 20,
            read_budget_ms: 10_000,
            bounces_to_pause: 3,
            bounce_days: 7,
            analysis_link: "off".into(),
            imap: None,
            smtp: None,
            dkim: None,
            maildir: MaildirConfig::default(),
        }
    }
}

/// How a connection to a mail server is secured.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Tls {
    /// No encryption: allowed only to a loopback address.
    None,
    /// Plain connection upgraded with STARTTLS.
    Starttls,
    /// TLS from the first byte.
    Tls,
}

/// `[mail.imap]`: the mailbox players' mail arrives in.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    /// Server host name.
    pub host: String,
    /// Server port (993 for tls, 143 otherwise).
    pub port: Option<u16>,
    /// `none`, `starttls` or `tls`.
    #[serde(default = "default_tls")]
    pub tls: Tls,
    /// Login name.
    pub user: String,
    /// Login password (or app password). Give this or `token_command`.
    #[serde(default)]
    pub password: Option<Secret>,
    /// A shell command (run with `sh -c`) whose first line of output is an
    /// OAuth2 access token: login is then XOAUTH2 instead of a password.
    /// Run again for each new login and when the server refuses the token.
    #[serde(default)]
    pub token_command: Option<String>,
    /// The folder to read.
    #[serde(default = "default_mailbox")]
    pub mailbox: String,
    /// Where handled mail is moved; when absent it is only flagged as seen.
    #[serde(default)]
    pub done_folder: Option<String>,
    /// Where mail that could not be handled is moved (created when needed),
    /// kept for the admin (`dopis failed`).
    #[serde(default = "default_failed_folder")]
    pub failed_folder: String,
    /// Seconds between polls when the server has no IDLE.
    #[serde(default = "default_poll_seconds")]
    pub poll_seconds: u64,
    /// A PEM file of CA certificates to trust besides the Mozilla roots
    /// (for a server whose certificate a private CA signed).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
}

/// `[mail.dkim]`: signing the mail we send with DKIM (RFC 6376), so that
/// receivers can check it came from our domain.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DkimConfig {
    /// The private key, PEM: Ed25519 (PKCS#8) or RSA (PKCS#1 or PKCS#8,
    /// 2048 bits or more).
    pub key_file: PathBuf,
    /// The selector its public key is published under
    /// (`SELECTOR._domainkey.DOMAIN`).
    pub selector: String,
    /// The signing domain (`d=`); default: the domain of `[mail] address`.
    #[serde(default)]
    pub domain: Option<String>,
}

/// `[mail.smtp]`: the server our mail is sent through.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    /// Server host name.
    pub host: String,
    /// Server port (465 for tls, 587 for starttls, 25 for none).
    pub port: Option<u16>,
    /// `none`, `starttls` or `tls`.
    #[serde(default = "default_tls")]
    pub tls: Tls,
    /// Login name; no AUTH when absent.
    #[serde(default)]
    pub user: Option<String>,
    /// Login password (or app password).
    #[serde(default)]
    pub password: Option<Secret>,
    /// A shell command (run with `sh -c`) whose first line of output is an
    /// OAuth2 access token: AUTH is then XOAUTH2 instead of a password.
    /// Run again when the server refuses the token.
    #[serde(default)]
    pub token_command: Option<String>,
    /// A PEM file of CA certificates to trust besides the Mozilla roots
    /// (for a server whose certificate a private CA signed).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
}

/// How dopis logs in to a mail server: what `user`, `password` and
/// `token_command` of `[mail.imap]` or `[mail.smtp]` say together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login<'a> {
    /// No login (`[mail.smtp]` without `user`).
    None,
    /// A password or app password.
    Password {
        /// Login name.
        user: &'a str,
        /// The password.
        password: &'a Secret,
    },
    /// XOAUTH2 with the OAuth2 access token this shell command prints.
    Token {
        /// Login name (the account the token is for).
        user: &'a str,
        /// The command, as written in the config.
        command: &'a str,
    },
}

/// What to write instead of both `password` and `token_command`.
const CHOOSE_ONE: &str = "choose one: token_command for OAuth2 (XOAUTH2, as Microsoft 365 and \
                          Gmail want), or password for a password or app password";

impl ImapConfig {
    /// How to log in. An error (naming the keys and what to write) when
    /// both or neither of `password` and `token_command` are given.
    pub fn login(&self) -> Result<Login<'_>, String> {
        let user = self.user.as_str();
        match (&self.password, &self.token_command) {
            (Some(_), Some(_)) => Err(format!(
                "[mail.imap] has both password and token_command; {CHOOSE_ONE}"
            )),
            (None, Some(command)) => token_login("[mail.imap]", user, command),
            (Some(password), None) => Ok(Login::Password { user, password }),
            (None, None) => Err(format!(
                "[mail.imap] needs password or token_command to log in as '{user}': write \
                 password = \"…\" (a password or app password), or token_command = \"…\" (a \
                 command that prints an OAuth2 access token, e.g. \"oama access {user}\")"
            )),
        }
    }
}

impl SmtpConfig {
    /// How to log in (no AUTH without `user`). An error (naming the keys and
    /// what to write) when both `password` and `token_command` are given, or
    /// `token_command` without `user`.
    pub fn login(&self) -> Result<Login<'_>, String> {
        match (&self.user, &self.password, &self.token_command) {
            (_, Some(_), Some(_)) => Err(format!(
                "[mail.smtp] has both password and token_command; {CHOOSE_ONE}"
            )),
            (None, _, Some(_)) => Err(
                "[mail.smtp] token_command needs user: write user = \"…\", the account the \
                 token is for (as in [mail.imap])"
                    .into(),
            ),
            (Some(user), None, Some(command)) => token_login("[mail.smtp]", user, command),
            (Some(user), password, None) => Ok(Login::Password {
                user,
                password: password.as_ref().unwrap_or(&NO_PASSWORD),
            }),
            (None, _, None) => Ok(Login::None),
        }
    }
}

/// The password of a `[mail.smtp] user` given without one.
static NO_PASSWORD: Secret = Secret(String::new());

fn token_login<'a>(section: &str, user: &'a str, command: &'a str) -> Result<Login<'a>, String> {
    if command.trim().is_empty() {
        return Err(format!(
            "{section} token_command is empty; write the command that prints the OAuth2 access \
             token, e.g. token_command = \"oama access {user}\""
        ));
    }
    Ok(Login::Token { user, command })
}

/// `[mail.maildir]`: the local mail directory (embedded default).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MaildirConfig {
    /// The directory: `PATH/inbox` is read as a Maildir, mail we send is
    /// written to the Maildir `PATH/sent`.
    pub path: PathBuf,
}

impl Default for MaildirConfig {
    fn default() -> Self {
        MaildirConfig {
            path: PathBuf::from("mail"),
        }
    }
}

fn default_tls() -> Tls {
    Tls::Tls
}

fn default_mailbox() -> String {
    "INBOX".into()
}

/// The IMAP folder for mail that could not be handled.
pub fn default_failed_folder() -> String {
    "dopis-failed".into()
}

fn default_poll_seconds() -> u64 {
    60
}

/// `[database]`: where games and players are stored.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DatabaseConfig {
    /// `sqlite://FILE` (created by `dopis init` if missing) or `postgres://…`.
    pub url: Secret,
}

impl Default for DatabaseConfig {
    fn default() -> Self {
        DatabaseConfig {
            url: Secret::new(DEFAULT_DATABASE_URL),
        }
    }
}

/// The embedded default database: a SQLite file in the working directory.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://dopis.db";

/// A value that must never be printed or logged (passwords, database URLs
/// that may carry one). `Debug` and `Display` show only a placeholder.
#[derive(Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// The kind of value a key holds, so an environment variable's text can be
/// turned into the right TOML type before the config is checked.
#[derive(Debug, Clone, Copy)]
enum KeyKind {
    Text,
    Number,
    Bool,
    /// A list, written in the variable as comma-separated items.
    List,
}

/// Every key the config knows, as its path of TOML table names. The
/// environment variable for a key is `DOPIS_` plus the path joined by `_`,
/// upper-cased: `database.url` is `DOPIS_DATABASE_URL`.
const KEYS: &[(&[&str], KeyKind)] = &[
    (&["database", "url"], KeyKind::Text),
    (&["mail", "address"], KeyKind::Text),
    (&["mail", "reply_delimiter"], KeyKind::Text),
    (&["mail", "reply_domain"], KeyKind::Text),
    (&["mail", "name"], KeyKind::Text),
    (&["mail", "secret"], KeyKind::Text),
    (&["mail", "require_dkim"], KeyKind::Bool),
    (&["mail", "dns_servers"], KeyKind::List),
    (&["mail", "answers_per_hour"], KeyKind::Number),
    (&["mail", "read_budget_ms"], KeyKind::Number),
    (&["mail", "bounces_to_pause"], KeyKind::Number),
    (&["mail", "bounce_days"], KeyKind::Number),
    (&["mail", "analysis_link"], KeyKind::Text),
    (&["mail", "imap", "host"], KeyKind::Text),
    (&["mail", "imap", "port"], KeyKind::Number),
    (&["mail", "imap", "tls"], KeyKind::Text),
    (&["mail", "imap", "user"], KeyKind::Text),
    (&["mail", "imap", "password"], KeyKind::Text),
    (&["mail", "imap", "token_command"], KeyKind::Text),
    (&["mail", "imap", "mailbox"], KeyKind::Text),
    (&["mail", "imap", "done_folder"], KeyKind::Text),
    (&["mail", "imap", "failed_folder"], KeyKind::Text),
    (&["mail", "imap", "poll_seconds"], KeyKind::Number),
    (&["mail", "imap", "ca_file"], KeyKind::Text),
    (&["mail", "smtp", "host"], KeyKind::Text),
    (&["mail", "smtp", "port"], KeyKind::Number),
    (&["mail", "smtp", "tls"], KeyKind::Text),
    (&["mail", "smtp", "user"], KeyKind::Text),
    (&["mail", "smtp", "password"], KeyKind::Text),
    (&["mail", "smtp", "token_command"], KeyKind::Text),
    (&["mail", "smtp", "ca_file"], KeyKind::Text),
    (&["mail", "maildir", "path"], KeyKind::Text),
    (&["mail", "dkim", "key_file"], KeyKind::Text),
    (&["mail", "dkim", "selector"], KeyKind::Text),
    (&["mail", "dkim", "domain"], KeyKind::Text),
    (&["clock", "reminders"], KeyKind::Text),
    (&["clock", "silence"], KeyKind::Text),
    (&["clock", "leave_days"], KeyKind::Number),
    (&["log", "format"], KeyKind::Text),
    (&["log", "level"], KeyKind::Text),
    (&["retention", "outbox_bodies_days"], KeyKind::Number),
    (&["retention", "inbound_days"], KeyKind::Number),
    (&["metrics", "listen"], KeyKind::Text),
    (&["tablebase", "syzygy_path"], KeyKind::List),
    (&["web", "listen"], KeyKind::Text),
    (&["web", "base_url"], KeyKind::Text),
    (&["web", "xfcc_path"], KeyKind::Text),
    (&["web", "behind_proxy"], KeyKind::Bool),
];

/// Environment variables that start with `DOPIS_` but are not config keys
/// (besides `DOPIS_TEST_…`, which `scripts/test.sh` sets for the tests and
/// the binary they run inherits).
const NON_KEY_VARS: &[&str] = &[
    "DOPIS_CONFIG",
    "DOPIS_LOG",
    "DOPIS_CRASH_AT",
    "DOPIS_PG_DIR",
    "DOPIS_PG_PORT",
    "DOPIS_BLESS",
    "DOPIS_STRESS_RUNS",
    "DOPIS_FAULTS",
    "DOPIS_FAULT_FIGURES",
];

/// Why the configuration could not be loaded; each says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A `[clock]` setting that cannot be read.
    #[error("[clock] {message}")]
    BadClock {
        /// What is wrong and how to write it.
        message: String,
    },
    /// A `[web]` setting that cannot be read.
    #[error("[web] {message}")]
    BadWeb {
        /// What is wrong and how to write it.
        message: String,
    },
    /// The `[tablebase]` tables cannot be used (a folder missing, no
    /// table in them); the message says which and how to fix it.
    #[error("{message}")]
    BadTablebase {
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A `[metrics]` setting that cannot be read.
    #[error("[metrics] {message}")]
    BadMetrics {
        /// What is wrong and how to write it.
        message: String,
    },
    /// The file named with `--config` could not be read.
    #[error("cannot read config file {path}: {source} (check the path given with --config)")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has a wrong key or type.
    #[error("config file {path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column where known.
        message: String,
    },
    /// A `DOPIS_…` variable names no key.
    #[error("environment variable {name} is not a dopis setting; known ones: {known}")]
    UnknownVariable {
        /// The variable.
        name: String,
        /// The variables that are settings.
        known: String,
    },
    /// A `DOPIS_…` variable holds a value of the wrong kind.
    #[error("environment variable {name}: {message}")]
    BadVariable {
        /// The variable.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// `[mail.imap]` or `[mail.smtp]` gives no single way to log in (the
    /// text names the keys and what to write).
    #[error("{0}")]
    BadLogin(String),
}

impl Config {
    /// Loads the config: defaults, then the file (if given and present),
    /// then `DOPIS_…` variables from `env`.
    ///
    /// `file` of `None` means "no file": defaults and environment only.
    pub fn load(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let mut table = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                })?;
                let invalid = |e: toml::de::Error| ConfigError::Invalid {
                    path: path.to_path_buf(),
                    message: describe_toml_error(&text, &e),
                };
                // Check the file on its own first, so errors carry its line numbers.
                toml::from_str::<Config>(&text).map_err(invalid)?;
                let mut table = text.parse::<toml::Table>().map_err(invalid)?;
                let folder = path.parent().unwrap_or(Path::new(""));
                resolve_paths(&mut table, folder);
                table
            }
            None => toml::Table::new(),
        };
        let overridden = apply_env(&mut table, env)?;
        let config = Config::deserialize(toml::Value::Table(table)).map_err(|e| {
            ConfigError::BadVariable {
                name: overridden.join(", "),
                message: e.message().trim().to_string(),
            }
        })?;
        if let Some(imap) = &config.mail.imap {
            imap.login().map_err(ConfigError::BadLogin)?;
        }
        if let Some(smtp) = &config.mail.smtp {
            smtp.login().map_err(ConfigError::BadLogin)?;
        }
        Ok(config)
    }

    /// The names of every environment variable that sets a key.
    pub fn env_var_names() -> Vec<String> {
        KEYS.iter().map(|(path, _)| env_name(path)).collect()
    }
}

/// Keys that name a file or folder.
const PATH_KEYS: &[&[&str]] = &[
    &["mail", "dkim", "key_file"],
    &["mail", "imap", "ca_file"],
    &["mail", "smtp", "ca_file"],
    &["mail", "maildir", "path"],
];

/// Makes the relative paths of a config file relative to the file's
/// `folder` (the database's SQLite file included), so a config works
/// whatever folder dopis is started in: `cd elsewhere && dopis --config
/// ../club/dopis.toml game list` uses `../club/dopis.db`, never a new empty
/// `elsewhere/dopis.db`. The default paths (`dopis.db`, `mail`) count as
/// written in the file, so they too are the file's neighbours. Values from
/// `DOPIS_…` variables and `--database` are applied afterwards and stay
/// relative to the working folder, as paths on a command line are.
fn resolve_paths(table: &mut toml::Table, folder: &Path) {
    if folder.as_os_str().is_empty() {
        return;
    }
    let defaults: [(&[&str], String); 2] = [
        (&["database", "url"], DEFAULT_DATABASE_URL.to_string()),
        (
            &["mail", "maildir", "path"],
            MaildirConfig::default().path.display().to_string(),
        ),
    ];
    for (key, default) in defaults {
        if lookup(table, key).is_none() {
            // Cannot fail: the file was checked against `Config` and these
            // keys are plain strings in plain tables.
            let _ = set_path(table, key, toml::Value::String(default));
        }
    }
    if let Some(toml::Value::String(url)) = lookup(table, &["database", "url"])
        && let Some(resolved) = sqlite_url_from(url, folder)
    {
        *url = resolved;
    }
    for key in PATH_KEYS {
        if let Some(toml::Value::String(value)) = lookup(table, key)
            && let Some(resolved) = path_from(value, folder)
        {
            *value = resolved;
        }
    }
    if let Some(toml::Value::Array(folders)) = lookup(table, &["tablebase", "syzygy_path"]) {
        for value in folders.iter_mut() {
            if let toml::Value::String(value) = value
                && let Some(resolved) = path_from(value, folder)
            {
                *value = resolved;
            }
        }
    }
}

/// The value at a key path of a TOML table.
fn lookup<'a>(table: &'a mut toml::Table, key: &[&str]) -> Option<&'a mut toml::Value> {
    let (last, parents) = key.split_last()?;
    let mut table = table;
    for name in parents {
        table = table.get_mut(*name)?.as_table_mut()?;
    }
    table.get_mut(*last)
}

/// A relative path made relative to `folder`; `None` for an absolute or
/// empty one, or one that cannot be written back as text (then it is left
/// as written).
fn path_from(value: &str, folder: &Path) -> Option<String> {
    let path = Path::new(value);
    if value.is_empty() || path.is_absolute() {
        return None;
    }
    folder.join(path).to_str().map(str::to_string)
}

/// A SQLite URL with a relative file (`sqlite://dopis.db`,
/// `sqlite:dopis.db?mode=rwc`) made relative to `folder`; `None` for any
/// other URL (PostgreSQL, an absolute file, an in-memory database).
fn sqlite_url_from(url: &str, folder: &Path) -> Option<String> {
    let rest = url.strip_prefix("sqlite:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let (file, query) = match rest.split_once('?') {
        Some((file, query)) => (file, Some(query)),
        None => (rest, None),
    };
    if file.contains(":memory:") {
        return None;
    }
    let file = path_from(file, folder)?;
    Some(match query {
        Some(query) => format!("sqlite://{file}?{query}"),
        None => format!("sqlite://{file}"),
    })
}

fn env_name(path: &[&str]) -> String {
    format!("DOPIS_{}", path.join("_").to_ascii_uppercase())
}

/// Sets the keys named by `DOPIS_…` variables; returns the variables used.
fn apply_env(
    table: &mut toml::Table,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<Vec<String>, ConfigError> {
    let mut used = Vec::new();
    for (name, value) in env {
        if !name.starts_with("DOPIS_")
            || name.starts_with("DOPIS_TEST_")
            || NON_KEY_VARS.contains(&name.as_str())
        {
            continue;
        }
        let Some((path, kind)) = KEYS.iter().find(|(path, _)| env_name(path) == name) else {
            return Err(ConfigError::UnknownVariable {
                name,
                known: Config::env_var_names().join(", "),
            });
        };
        let value = match kind {
            KeyKind::Text => toml::Value::String(value),
            KeyKind::Number => toml::Value::Integer(value.trim().parse().map_err(|_| {
                ConfigError::BadVariable {
                    name: name.clone(),
                    message: format!("'{value}' is not a whole number"),
                }
            })?),
            KeyKind::List => toml::Value::Array(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                    .map(|item| toml::Value::String(item.to_string()))
                    .collect(),
            ),
            KeyKind::Bool => match value.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => toml::Value::Boolean(true),
                "false" | "0" | "no" => toml::Value::Boolean(false),
                _ => {
                    return Err(ConfigError::BadVariable {
                        name,
                        message: format!("'{value}' is not true or false"),
                    });
                }
            },
        };
        set_path(table, path, value).map_err(|message| ConfigError::BadVariable {
            name: name.clone(),
            message,
        })?;
        used.push(name);
    }
    Ok(used)
}

fn set_path(table: &mut toml::Table, path: &[&str], value: toml::Value) -> Result<(), String> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(());
    };
    let mut current = table;
    for part in parents {
        let entry = current
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        current = match entry {
            toml::Value::Table(t) => t,
            _ => return Err(format!("[{part}] in the config file is not a table")),
        };
    }
    current.insert(last.to_string(), value);
    Ok(())
}

/// Turns a TOML error into one line: what is wrong, and where.
fn describe_toml_error(text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim().replace('\n', " ");
    match err.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("line {line}: {message}")
        }
        None => message,
    }
}

/// A commented example config.
pub const EXAMPLE: &str = include_str!("../../dopis.example.toml");

/// A fresh random server secret.
fn fresh_secret() -> String {
    (0..32)
        .map(|_| char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[rand::random_range(0..36)]))
        .collect()
}

/// The example config with a fresh random `[mail] secret`, as `dopis init`
/// writes it.
pub fn example_with_secret() -> String {
    EXAMPLE.replacen(
        "secret = \"\"",
        &format!("secret = \"{}\"", fresh_secret()),
        1,
    )
}

/// A config file's text with a fresh random `[mail] secret` where it has
/// none (no key, or an empty one), as `dopis init` adds it: every other
/// line, comment and the order of keys are kept. `None` when the file has
/// a secret already; an error when it is not TOML (the message has the
/// line).
pub fn with_secret_added(text: &str) -> Result<Option<String>, String> {
    use toml_edit::{DocumentMut, Item, Table, Value};
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| describe_edit_error(text, &e))?;
    let secret = fresh_secret();
    match doc.get_mut("mail") {
        None => {
            let mut mail = Table::new();
            mail.insert("secret", toml_edit::value(secret));
            doc.insert("mail", Item::Table(mail));
        }
        Some(Item::Table(mail)) => match mail.get_mut("secret") {
            Some(Item::Value(value)) if value.as_str() == Some("") => {
                let decor = value.decor().clone();
                *value = Value::from(secret);
                *value.decor_mut() = decor;
            }
            Some(_) => return Ok(None),
            None => {
                // `[mail.maildir]` alone makes `mail` an implicit table,
                // which has no header of its own to put the key under.
                if mail.is_implicit() {
                    mail.set_implicit(false);
                }
                mail.insert("secret", toml_edit::value(secret));
            }
        },
        Some(Item::Value(Value::InlineTable(mail))) => match mail.get_mut("secret") {
            Some(value) if value.as_str() == Some("") => {
                let decor = value.decor().clone();
                *value = Value::from(secret);
                *value.decor_mut() = decor;
            }
            Some(_) => return Ok(None),
            None => {
                mail.insert("secret", Value::from(secret));
            }
        },
        // Not a table: `Config::load` says what is wrong with it.
        Some(_) => return Ok(None),
    }
    Ok(Some(doc.to_string()))
}

/// A toml_edit error in one line, with its line number.
fn describe_edit_error(text: &str, err: &toml_edit::TomlError) -> String {
    let message = err.message().trim().replace('\n', " ");
    match err.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("line {line}: {message}")
        }
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dopis.toml");
        std::fs::write(&path, text).unwrap();
        Config::load(
            Some(&path),
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())),
        )
    }

    #[test]
    fn no_file_gives_the_embedded_default() {
        let config = Config::load(None, Vec::new()).unwrap();
        assert_eq!(config.database.url.expose(), DEFAULT_DATABASE_URL);
    }

    #[test]
    fn the_example_config_loads_and_matches_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dopis.toml");
        std::fs::write(&path, EXAMPLE).unwrap();
        let mut want = Config::default();
        // Its paths are read from its folder.
        want.database.url = Secret::new(format!(
            "sqlite://{}",
            dir.path().join("dopis.db").display()
        ));
        want.mail.maildir.path = dir.path().join("mail");
        assert_eq!(Config::load(Some(&path), Vec::new()).unwrap(), want);
    }

    #[test]
    fn init_writes_a_random_secret() {
        let a = load_text(&example_with_secret(), &[]).unwrap();
        let b = load_text(&example_with_secret(), &[]).unwrap();
        assert_eq!(a.mail.secret.expose().len(), 32);
        assert_ne!(a.mail.secret, b.mail.secret);
    }

    #[test]
    fn a_missing_or_empty_secret_is_added_and_the_rest_kept_as_written() {
        // (the file, the file after with SECRET for the secret)
        let table = [
            (
                "# club\n[mail]\n# who we are\naddress = \"a@b\" # ours\n\n[clock]\nleave_days = 30\n",
                "# club\n[mail]\n# who we are\naddress = \"a@b\" # ours\nsecret = \"SECRET\"\n\n[clock]\nleave_days = 30\n",
            ),
            (
                "[mail]\nsecret = \"\"   # none yet\nname = \"x\"\n",
                "[mail]\nsecret = \"SECRET\"   # none yet\nname = \"x\"\n",
            ),
            (
                "[database]\nurl = \"sqlite://a.db\"\n",
                "[database]\nurl = \"sqlite://a.db\"\n\n[mail]\nsecret = \"SECRET\"\n",
            ),
            (
                "[mail.maildir]\npath = \"box\"\n",
                "[mail]\nsecret = \"SECRET\"\n[mail.maildir]\npath = \"box\"\n",
            ),
            (
                "mail = { address = \"a@b\" }\n",
                "mail = { address = \"a@b\" , secret = \"SECRET\" }\n",
            ),
            ("", "[mail]\nsecret = \"SECRET\"\n"),
        ];
        for (text, want) in table {
            let added = with_secret_added(text).unwrap().unwrap();
            let config: Config = toml::from_str(&added).unwrap();
            let secret = config.mail.secret.expose();
            assert_eq!(secret.len(), 32, "{added}");
            assert_eq!(added.replace(secret, "SECRET"), want, "{text}");
        }
        assert_eq!(with_secret_added("[mail]\nsecret = \"s3cret\"\n"), Ok(None));
        let err = with_secret_added("[mail]\nsecret = \n").unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
    }

    #[test]
    fn environment_overrides_the_file() {
        let config = load_text(
            "[database]\nurl = \"sqlite://a.db\"\n",
            &[("DOPIS_DATABASE_URL", "postgres://x/y")],
        )
        .unwrap();
        assert_eq!(config.database.url.expose(), "postgres://x/y");
    }

    #[test]
    fn a_misspelt_key_is_an_error_naming_it_and_its_line() {
        let err = load_text("[database]\n\nulr = \"x\"\n", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("unknown field `ulr`"), "{err}");
        assert!(err.contains("expected `url`"), "{err}");
    }

    #[test]
    fn a_wrong_type_is_an_error_naming_the_key() {
        let err = load_text("[database]\nurl = 5\n", &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(
            err.contains("invalid type: integer `5`, expected a string"),
            "{err}"
        );
    }

    #[test]
    fn an_unknown_environment_variable_is_an_error_listing_the_known_ones() {
        let err = load_text("", &[("DOPIS_DATABSE_URL", "x")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("DOPIS_DATABSE_URL is not a dopis setting"),
            "{err}"
        );
        assert!(err.contains("DOPIS_DATABASE_URL"), "{err}");
    }

    #[test]
    fn metrics_are_off_unless_listen_names_an_address_and_port() {
        assert_eq!(Config::default().metrics.address().unwrap(), None);
        let on = load_text("[metrics]\nlisten = \"127.0.0.1:9187\"\n", &[]).unwrap();
        assert_eq!(
            on.metrics.address().unwrap(),
            Some("127.0.0.1:9187".parse().unwrap())
        );
        let blank = load_text("[metrics]\nlisten = \" \"\n", &[]).unwrap();
        assert_eq!(blank.metrics.address().unwrap(), None);
        let bad = load_text("", &[("DOPIS_METRICS_LISTEN", "localhost")]).unwrap();
        let err = bad.metrics.address().unwrap_err().to_string();
        assert!(err.starts_with("[metrics] listen = \"localhost\""), "{err}");
        assert!(err.contains("127.0.0.1:9187"), "{err}");
    }

    #[test]
    fn every_key_has_an_environment_variable_that_sets_it() {
        // password and token_command exclude each other: the passwords here,
        // the commands in a second round.
        let env_without = |left_out: &str| -> Vec<(String, String)> {
            KEYS.iter()
                .filter(|(path, _)| path.last() != Some(&left_out))
                .map(|(path, kind)| {
                    let value = match (path.last(), kind) {
                        (Some(&"tls"), _) => "starttls",
                        (Some(&"format"), _) => "json",
                        (_, KeyKind::Number) => "7",
                        (_, KeyKind::Bool) => "true",
                        (_, KeyKind::List) => "127.0.0.1:5353, ::1",
                        (_, KeyKind::Text) => "x",
                    };
                    (env_name(path), value.to_string())
                })
                .collect()
        };
        let config = Config::load(None, env_without("password")).unwrap();
        let imap = config.mail.imap.as_ref().unwrap();
        assert_eq!(imap.token_command.as_deref(), Some("x"));
        let smtp = config.mail.smtp.as_ref().unwrap();
        assert_eq!(smtp.token_command.as_deref(), Some("x"));
        let config = Config::load(None, env_without("token_command")).unwrap();
        let imap = config.mail.imap.as_ref().unwrap();
        assert_eq!(imap.password.as_ref().map(Secret::expose), Some("x"));
        assert_eq!(config.mail.imap.as_ref().map(|i| i.port), Some(Some(7)));
        assert_eq!(
            config.mail.smtp.as_ref().map(|s| s.tls),
            Some(Tls::Starttls)
        );
        assert!(config.mail.require_dkim);
        assert_eq!(config.mail.dns_servers, ["127.0.0.1:5353", "::1"]);
        assert_eq!(
            config.mail.smtp.as_ref().and_then(|s| s.ca_file.clone()),
            Some(PathBuf::from("x"))
        );
        assert_eq!(config.mail.maildir.path, PathBuf::from("x"));
        assert_eq!(config.log.format, LogFormat::Json);
    }

    #[test]
    fn the_test_suites_variables_are_not_taken_for_settings() {
        let env = [
            ("DOPIS_TEST_IMAPS_PORT".to_string(), "1993".to_string()),
            ("DOPIS_TEST_CA_FILE".to_string(), "/tmp/ca.crt".to_string()),
        ];
        assert_eq!(Config::load(None, env).unwrap(), Config::default());
    }

    #[test]
    fn a_number_variable_must_hold_a_number() {
        let err = Config::load(None, [("DOPIS_MAIL_IMAP_PORT".into(), "imap".into())])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("DOPIS_MAIL_IMAP_PORT: 'imap' is not a whole number"),
            "{err}"
        );
    }

    #[test]
    fn relative_paths_in_a_config_file_are_read_from_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let club = dir.path().join("club");
        std::fs::create_dir(&club).unwrap();
        let file = club.join("dopis.toml");
        let load = |text: &str, env: &[(&str, &str)]| {
            std::fs::write(&file, text).unwrap();
            Config::load(
                Some(&file),
                env.iter().map(|(k, v)| (k.to_string(), v.to_string())),
            )
            .unwrap()
        };
        let at = |name: &str| club.join(name).display().to_string();
        let text = "[database]\nurl = \"sqlite://games/dopis.db?mode=rwc\"\n\
                    [mail.maildir]\npath = \"box\"\n\
                    [mail.imap]\nhost = \"h\"\nuser = \"u\"\npassword = \"p\"\nca_file = \"ca.pem\"\n\
                    [mail.smtp]\nhost = \"h\"\nca_file = \"/etc/ca.pem\"\n";
        let config = load(text, &[]);
        assert_eq!(
            config.database.url.expose(),
            format!("sqlite://{}?mode=rwc", at("games/dopis.db"))
        );
        assert_eq!(config.mail.maildir.path, club.join("box"));
        let imap_ca = config.mail.imap.and_then(|i| i.ca_file);
        assert_eq!(imap_ca, Some(club.join("ca.pem")));
        let smtp_ca = config.mail.smtp.and_then(|s| s.ca_file);
        assert_eq!(smtp_ca, Some(PathBuf::from("/etc/ca.pem")));

        // The defaults are the file's neighbours too.
        let config = load("[mail]\nname = \"x\"\n", &[]);
        assert_eq!(
            config.database.url.expose(),
            format!("sqlite://{}", at("dopis.db"))
        );
        assert_eq!(config.mail.maildir.path, club.join("mail"));

        // Other databases, and values from the environment, are as written.
        for url in [
            "sqlite:///srv/dopis.db",
            "sqlite::memory:",
            "postgres://h/db",
        ] {
            let config = load(&format!("[database]\nurl = \"{url}\"\n"), &[]);
            assert_eq!(config.database.url.expose(), url);
        }
        let config = load(
            "",
            &[
                ("DOPIS_DATABASE_URL", "sqlite://here.db"),
                ("DOPIS_MAIL_MAILDIR_PATH", "here"),
            ],
        );
        assert_eq!(config.database.url.expose(), "sqlite://here.db");
        assert_eq!(config.mail.maildir.path, PathBuf::from("here"));
    }

    #[test]
    fn a_config_file_in_the_working_folder_keeps_its_paths_as_written() {
        // `./dopis.toml`, the file found without --config: its folder is "".
        let mut table: toml::Table = "[database]\nurl = \"sqlite://dopis.db\"\n".parse().unwrap();
        let before = table.clone();
        resolve_paths(&mut table, Path::new("dopis.toml").parent().unwrap());
        assert_eq!(table, before);
    }

    #[test]
    fn a_token_command_logs_in_with_xoauth2_instead_of_a_password() {
        let config = load_text(
            "[mail.imap]\nhost = \"h\"\nuser = \"chess@club.example\"\n\
             token_command = \"oama access chess@club.example\"\n\
             [mail.smtp]\nhost = \"h\"\nuser = \"chess@club.example\"\n\
             token_command = \"oama access chess@club.example\"\n",
            &[],
        )
        .unwrap();
        let token = Login::Token {
            user: "chess@club.example",
            command: "oama access chess@club.example",
        };
        assert_eq!(config.mail.imap.as_ref().unwrap().login(), Ok(token));
        assert_eq!(config.mail.smtp.as_ref().unwrap().login(), Ok(token));

        // App passwords keep working; SMTP without user logs in not at all.
        let config = load_text(
            "[mail.imap]\nhost = \"h\"\nuser = \"u\"\npassword = \"app\"\n\
             [mail.smtp]\nhost = \"h\"\n",
            &[],
        )
        .unwrap();
        let imap = config.mail.imap.as_ref().unwrap().login().unwrap();
        assert!(
            matches!(imap, Login::Password { user: "u", password } if password.expose() == "app")
        );
        assert_eq!(config.mail.smtp.unwrap().login(), Ok(Login::None));
    }

    #[test]
    fn a_login_the_config_cannot_make_is_an_error_naming_the_keys_and_what_to_write() {
        let imap = "[mail.imap]\nhost = \"h\"\nuser = \"u@club.example\"\n";
        let smtp = "[mail.smtp]\nhost = \"h\"\n";
        // (the config, what the error must say)
        let table = [
            (
                format!("{imap}password = \"p\"\ntoken_command = \"oama access u\"\n"),
                vec![
                    "[mail.imap] has both password and token_command",
                    "choose one",
                ],
            ),
            (
                format!("{smtp}user = \"u\"\npassword = \"p\"\ntoken_command = \"c\"\n"),
                vec![
                    "[mail.smtp] has both password and token_command",
                    "choose one",
                ],
            ),
            (
                imap.to_string(),
                vec![
                    "[mail.imap] needs password or token_command",
                    "token_command = \"…\"",
                    "oama access u@club.example",
                ],
            ),
            (
                format!("{imap}token_command = \"  \"\n"),
                vec!["[mail.imap] token_command is empty", "token_command = \""],
            ),
            (
                format!("{smtp}token_command = \"c\"\n"),
                vec!["[mail.smtp] token_command needs user", "user = \"…\""],
            ),
        ];
        for (text, wanted) in table {
            let err = load_text(&text, &[]).unwrap_err().to_string();
            for part in wanted {
                assert!(err.contains(part), "{text}: {err}");
            }
            assert!(!err.contains("\"p\""), "{err}");
        }
        // A password from the environment meets a token command in the file.
        let err = load_text(
            &format!("{imap}token_command = \"c\"\n"),
            &[("DOPIS_MAIL_IMAP_PASSWORD", "p")],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("both password and token_command"), "{err}");
    }

    #[test]
    fn secrets_never_show_in_debug_output() {
        let config = load_text("[database]\nurl = \"postgres://u:hunter2@h/d\"\n", &[]).unwrap();
        assert!(!format!("{config:?}").contains("hunter2"));
    }
}
