//! An IMAP folder as the inbound mailbox (async-imap over tokio, TLS by
//! tokio-rustls).
//!
//! The cursor is the UID: mail "after" a [`MailRef::Imap`] is every message
//! with a higher UID, read or not (someone may have opened it in a mail
//! client). A UID means nothing once the folder's UIDVALIDITY changes; then
//! the cursor is void and all unseen mail is read again (the daemon drops
//! mail it has already handled by its Message-ID).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use async_imap::error::Error as ImapError;
use async_imap::extensions::idle::IdleResponse;
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use rustls::pki_types::CertificateDer;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::{BATCH_SIZE, DEFAULT_MAX_MAIL_BYTES, Incoming, MAX_HEAD_BYTES, MailRef, MailboxError};
use crate::adapter::config::{ImapConfig, Login, Secret, Tls};
use crate::daemon::net;
use crate::daemon::oauth::{self, TokenCommand};

mod probe;
pub use probe::{ImapProbe, diagnose};

/// Servers may drop an IDLE after 30 minutes (RFC 2177): re-issue before.
const IDLE_RENEW: Duration = Duration::from_secs(28 * 60);

/// How long connecting, the greeting and the TLS handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one command may take before the connection counts as dead.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// The connection under the IMAP session: plain TCP (loopback only) or TLS.
#[derive(Debug)]
pub enum ImapStream {
    /// Unencrypted.
    Plain(TcpStream),
    /// TLS, from the first byte or after STARTTLS.
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl AsyncRead for ImapStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for ImapStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_flush(cx),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            ImapStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            ImapStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

type Session = async_imap::Session<ImapStream>;

/// An open, logged-in session with the folder selected.
#[derive(Debug)]
struct Connected {
    session: Session,
    uid_validity: u32,
    has_idle: bool,
    has_move: bool,
    has_uidplus: bool,
}

/// An IMAP folder read as a mailbox.
#[derive(Debug)]
pub struct ImapMailbox {
    cfg: ImapConfig,
    /// `None` after a dropped connection: the next call reconnects.
    conn: Option<Connected>,
    /// The highest UID (with its UIDVALIDITY) the last fetch looked at:
    /// mail above it is what [`ImapMailbox::wait_for_new`] waits for.
    watermark: Option<(u32, u32)>,
    use_idle: bool,
    max_mail_bytes: u64,
    /// The CA certificates of `ca_file`, trusted besides the Mozilla roots.
    extra_roots: Vec<CertificateDer<'static>>,
    /// Connections opened so far (the first, then reconnects).
    connects: u64,
    /// Where reconnects are counted (`/metrics`), if anywhere.
    reconnects: Option<prometheus_client::metrics::counter::Counter>,
}

impl ImapMailbox {
    /// Connects, logs in and selects the folder; creates the done folder if
    /// one is configured and missing.
    pub async fn connect(cfg: ImapConfig) -> Result<ImapMailbox, MailboxError> {
        let extra_roots = extra_roots(&cfg).map_err(|f| f.error)?;
        let mut mailbox = ImapMailbox {
            extra_roots,
            cfg,
            conn: None,
            watermark: None,
            use_idle: true,
            max_mail_bytes: DEFAULT_MAX_MAIL_BYTES,
            connects: 0,
            reconnects: None,
        };
        mailbox.connected().await?;
        Ok(mailbox)
    }

    /// Never use IDLE, poll every `poll_seconds` instead (for servers that
    /// announce IDLE but break it, e.g. behind some proxies).
    pub fn poll_only(mut self) -> ImapMailbox {
        self.use_idle = false;
        self
    }

    /// Sets the size cap (see [`super::Mailbox::set_max_mail_bytes`]).
    pub fn set_max_mail_bytes(&mut self, bytes: u64) {
        self.max_mail_bytes = bytes;
    }

    /// Counts each connection opened after the first into `counter`.
    pub fn count_reconnects(&mut self, counter: prometheus_client::metrics::counter::Counter) {
        self.reconnects = Some(counter);
    }

    /// The size cap.
    pub fn max_mail_bytes(&self) -> u64 {
        self.max_mail_bytes
    }

    /// The folder's UIDVALIDITY on the current connection, if connected.
    pub fn uid_validity(&self) -> Option<u32> {
        self.conn.as_ref().map(|c| c.uid_validity)
    }

    /// See [`super::Mailbox::fetch_new`].
    pub async fn fetch_new(
        &mut self,
        after: Option<&MailRef>,
    ) -> Result<Vec<Incoming>, MailboxError> {
        let max_bytes = self.max_mail_bytes;
        let server = self.server();
        let cfg = self.cfg.clone();
        // Selecting again each time is how a folder reset (a new UIDVALIDITY)
        // shows on a long-lived connection; a server need not announce it.
        let conn = self.connected().await?;
        let reselected = select(&mut conn.session, &server, &cfg).await;
        if let Ok(validity) = reselected {
            conn.uid_validity = validity;
        }
        let validity = self.keep_alive(reselected)?;
        let conn = self.connected().await?;
        let cursor = match after {
            Some(MailRef::Imap { uid_validity, uid }) if *uid_validity == validity => Some(*uid),
            _ => None,
        };
        let result = fetch_after(conn, cursor, max_bytes, &server).await;
        let (mails, watermark) = self.keep_alive(result)?;
        self.watermark = Some((validity, watermark));
        Ok(mails)
    }

    /// See [`super::Mailbox::mark_done`].
    pub async fn mark_done(&mut self, key: &MailRef) -> Result<(), MailboxError> {
        let MailRef::Imap { uid_validity, uid } = key else {
            return Err(MailboxError::Gone(format!("{key} is not an IMAP mail")));
        };
        let done_folder = self.cfg.done_folder.clone();
        let server = self.server();
        let conn = self.connected().await?;
        if *uid_validity != conn.uid_validity {
            return Err(MailboxError::Gone(format!(
                "{key} is from before the folder was reset (UIDVALIDITY is now {}); \
                 the mail will be read again and recognised as already handled",
                conn.uid_validity
            )));
        }
        let result = mark(conn, &server, *uid, done_folder.as_deref()).await;
        self.keep_alive(result)
    }

    /// See [`super::Mailbox::quarantine`]: moves the mail to the failed
    /// folder (created when missing).
    pub async fn quarantine(&mut self, key: &MailRef) -> Result<String, MailboxError> {
        let MailRef::Imap { uid_validity, uid } = key else {
            return Err(MailboxError::Gone(format!("{key} is not an IMAP mail")));
        };
        let folder = self.cfg.failed_folder.clone();
        let server = self.server();
        let conn = self.connected().await?;
        if *uid_validity != conn.uid_validity {
            return Err(MailboxError::Gone(format!(
                "{key} is from before the folder was reset (UIDVALIDITY is now {})",
                conn.uid_validity
            )));
        }
        let result = async {
            ensure_folder(&mut conn.session, &server, &folder, "failed_folder").await?;
            mark(conn, &server, *uid, Some(&folder)).await
        }
        .await;
        self.keep_alive(result)?;
        Ok(format!("IMAP folder {folder}"))
    }

    /// See [`super::Mailbox::put_back`]: appends the mail to the folder read,
    /// with its arrival time as its INTERNALDATE. The copy in the failed
    /// folder stays (IMAP has no way to name it safely); the admin may
    /// delete it.
    pub async fn put_back(
        &mut self,
        raw: &[u8],
        received_at: DateTime<Utc>,
    ) -> Result<String, MailboxError> {
        let folder = self.cfg.mailbox.clone();
        let server = self.server();
        let date = format!("\"{}\"", received_at.format("%d-%b-%Y %H:%M:%S +0000"));
        let conn = self.connected().await?;
        let result = timed(
            &server,
            "APPEND",
            conn.session.append(&folder, None, Some(&date), raw),
        )
        .await;
        self.keep_alive(result)?;
        Ok(format!("IMAP folder {folder}"))
    }

    /// See [`super::Mailbox::wait_for_new`]. Uses IDLE when the server has it,
    /// else polls every `poll_seconds` of the config.
    pub async fn wait_for_new(&mut self, max: Duration) -> Result<(), MailboxError> {
        let deadline = tokio::time::Instant::now() + max;
        let poll = Duration::from_secs(self.cfg.poll_seconds.max(1));
        let server = self.server();
        loop {
            // Mail that came between the last fetch and now wakes us at once:
            // IDLE would not report it again.
            let watermark = self.watermark;
            let conn = self.connected().await?;
            let above = match watermark {
                Some((validity, uid)) if validity == conn.uid_validity => uid,
                _ => 0,
            };
            let result = uids_above(&mut conn.session, &server, above).await;
            if !self.keep_alive(result)?.is_empty() {
                return Ok(());
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(());
            }
            let remaining = deadline - now;
            let use_idle = self.use_idle;
            let conn = self.connected().await?;
            if use_idle && conn.has_idle {
                self.idle(remaining.min(IDLE_RENEW)).await?;
            } else {
                tokio::time::sleep(remaining.min(poll)).await;
            }
        }
    }

    /// One IDLE of at most `span`; the session is taken for its duration and
    /// given back after DONE.
    async fn idle(&mut self, span: Duration) -> Result<(), MailboxError> {
        let server = self.server();
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        let mut handle = conn.session.idle();
        if let Err(e) = handle.init().await {
            return Err(transient(&server, "IDLE", e));
        }
        let (wait, stop) = handle.wait_with_timeout(span);
        // The server's keep-alives reset async-imap's own timeout: bound it here.
        let outcome = tokio::time::timeout(span, wait).await;
        drop(stop);
        match outcome {
            Ok(Err(e)) => return Err(transient(&server, "IDLE", e)),
            Ok(Ok(
                IdleResponse::NewData(_) | IdleResponse::Timeout | IdleResponse::ManualInterrupt,
            ))
            | Err(_) => {}
        }
        match tokio::time::timeout(COMMAND_TIMEOUT, handle.done()).await {
            Ok(Ok(session)) => {
                conn.session = session;
                self.conn = Some(conn);
                Ok(())
            }
            Ok(Err(e)) => Err(transient(&server, "IDLE", e)),
            Err(_) => Err(MailboxError::Transient(format!(
                "IMAP server {server} did not end IDLE in time"
            ))),
        }
    }

    /// The open connection, opening one first if there is none.
    async fn connected(&mut self) -> Result<&mut Connected, MailboxError> {
        if self.conn.is_none() {
            let opened = open(&self.cfg, &self.extra_roots, &mut |_, _| {}).await;
            self.conn = Some(opened.map_err(|f| f.error)?);
            self.connects += 1;
            if self.connects > 1
                && let Some(counter) = &self.reconnects
            {
                counter.inc();
            }
        }
        self.conn
            .as_mut()
            .ok_or_else(|| MailboxError::Transient("IMAP connection lost".into()))
    }

    /// Passes a result through, dropping the connection after a failure so
    /// the next call starts on a fresh one (a half-read response would
    /// otherwise confuse every later command).
    fn keep_alive<T>(&mut self, result: Result<T, MailboxError>) -> Result<T, MailboxError> {
        if result.is_err() {
            self.conn = None;
        }
        result
    }

    fn server(&self) -> String {
        format!("{}:{}", self.cfg.host, port(&self.cfg))
    }
}

fn port(cfg: &ImapConfig) -> u16 {
    cfg.port.unwrap_or(match cfg.tls {
        Tls::Tls => 993,
        Tls::Starttls | Tls::None => 143,
    })
}

fn transient(server: &str, what: &str, e: ImapError) -> MailboxError {
    MailboxError::Transient(format!("IMAP {what} on {server} failed: {e}"))
}

/// Runs one command future with [`COMMAND_TIMEOUT`].
async fn timed<T>(
    server: &str,
    what: &str,
    fut: impl Future<Output = Result<T, ImapError>>,
) -> Result<T, MailboxError> {
    match tokio::time::timeout(COMMAND_TIMEOUT, fut).await {
        Ok(result) => result.map_err(|e| transient(server, what, e)),
        Err(_) => Err(MailboxError::Transient(format!(
            "IMAP {what} on {server} got no answer in {} s",
            COMMAND_TIMEOUT.as_secs()
        ))),
    }
}

/// The steps of connecting, in order; `dopis doctor` names its lines by them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The TCP connection and the server's greeting.
    Connect,
    /// TLS from the start or by STARTTLS (or none, on this machine only).
    Tls,
    /// LOGIN or AUTHENTICATE XOAUTH2.
    Login,
    /// The server's capabilities: IDLE, else polling.
    Idle,
    /// The folder read (and the done folder, created if missing).
    Mailbox,
}

impl Step {
    /// The doctor's name of the step.
    pub fn name(self) -> &'static str {
        match self {
            Step::Connect => "imap connect",
            Step::Tls => "imap tls",
            Step::Login => "imap login",
            Step::Idle => "imap idle",
            Step::Mailbox => "imap mailbox",
        }
    }
}

/// How a step that did not fail went, told to whoever watches the connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepNote {
    /// Fine: what was found.
    Passed(String),
    /// Works, but worth knowing: what and what one may do.
    Warned { what: String, fix: String },
}

/// The step a connect failed at, the error the daemon acts on (retry or
/// not), and what to change, for the doctor's fix line.
#[derive(Debug)]
pub struct StepFailed {
    pub step: Step,
    pub error: MailboxError,
    pub fix: String,
}

/// Fails `step` with `error`, to be fixed by `fix`.
fn failed(step: Step, fix: &str) -> impl FnOnce(MailboxError) -> StepFailed {
    move |error| StepFailed {
        step,
        error,
        fix: fix.to_string(),
    }
}

/// Reads `[mail.imap] ca_file`: the CA certificates trusted besides the
/// Mozilla roots.
fn extra_roots(cfg: &ImapConfig) -> Result<Vec<CertificateDer<'static>>, StepFailed> {
    match &cfg.ca_file {
        Some(path) => net::read_ca_file(path, "[mail.imap] ca_file")
            .map_err(MailboxError::Permanent)
            .map_err(failed(Step::Tls, "fix [mail.imap] ca_file")),
        None => Ok(Vec::new()),
    }
}

/// Connects, secures, logs in and selects the folder, creating the done
/// folder if one is configured and missing. The one way in for the daemon
/// and the doctor alike: each step that passes is told to `watch` (the
/// daemon ignores it), the one that fails comes back with its fix.
async fn open(
    cfg: &ImapConfig,
    extra_roots: &[CertificateDer<'static>],
    watch: &mut (dyn FnMut(Step, StepNote) + Send),
) -> Result<Connected, StepFailed> {
    let server = format!("{}:{}", cfg.host, port(cfg));
    if cfg.tls == Tls::None && !net::is_loopback_host(&cfg.host) {
        return Err(StepFailed {
            step: Step::Tls,
            error: MailboxError::Permanent(format!(
                "IMAP server {server}: tls = \"none\" is allowed only to this machine \
                 (localhost, 127.0.0.1, ::1), as the password would cross the network \
                 unencrypted; set [mail.imap] tls = \"tls\" or \"starttls\""
            )),
            fix: "set [mail.imap] tls = \"tls\" (port 993) or \"starttls\" (port 143)".into(),
        });
    }
    let to_connect = "check that the server runs and that [mail.imap] host and port name it \
                      (993 for tls = \"tls\", 143 for starttls), and that no firewall drops \
                      the connection";
    let tcp = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect((cfg.host.as_str(), port(cfg))))
        .await
        .map_err(|_| {
            MailboxError::Transient(format!(
                "IMAP server {server} did not answer in {} s",
                CONNECT_TIMEOUT.as_secs()
            ))
        })
        .and_then(|r| {
            r.map_err(|e| {
                MailboxError::Transient(format!(
                    "cannot connect to IMAP server {server}: {e} (is it running? check [mail.imap] host and port)"
                ))
            })
        })
        .map_err(failed(Step::Connect, to_connect))?;
    watch(Step::Connect, StepNote::Passed(format!("{server} answers")));
    let to_secure =
        "check [mail.imap] tls (\"tls\" for port 993, \"starttls\" for 143), port and ca_file";
    let stream = match cfg.tls {
        Tls::Tls => ImapStream::Tls(Box::new(
            handshake(cfg, extra_roots, &server, tcp)
                .await
                .map_err(failed(Step::Tls, to_secure))?,
        )),
        Tls::None | Tls::Starttls => ImapStream::Plain(tcp),
    };
    let mut client = async_imap::Client::new(stream);
    greeting(&mut client, &server).await.map_err(failed(
        Step::Connect,
        "check that [mail.imap] port is the IMAP port (and tls matches it)",
    ))?;
    match cfg.tls {
        Tls::None => watch(
            Step::Tls,
            StepNote::Passed(
                "none (tls = \"none\"; allowed as the server is on this machine)".into(),
            ),
        ),
        Tls::Tls => watch(
            Step::Tls,
            StepNote::Passed("TLS from the start, certificate valid".into()),
        ),
        Tls::Starttls => {
            timed(
                &server,
                "STARTTLS",
                client.run_command_and_check_ok("STARTTLS", None),
            )
            .await
            .map_err(|_| {
                MailboxError::Permanent(format!(
                    "IMAP server {server} refused STARTTLS; use tls = \"tls\" (port 993) \
                         in [mail.imap], or \"none\" if the server is on this machine"
                ))
            })
            .map_err(failed(Step::Tls, to_secure))?;
            let ImapStream::Plain(tcp) = client.into_inner() else {
                return Err(StepFailed {
                    step: Step::Tls,
                    error: MailboxError::Permanent(format!(
                        "IMAP server {server}: STARTTLS on a connection that is already encrypted"
                    )),
                    fix: to_secure.into(),
                });
            };
            client = async_imap::Client::new(ImapStream::Tls(Box::new(
                handshake(cfg, extra_roots, &server, tcp)
                    .await
                    .map_err(failed(Step::Tls, to_secure))?,
            )));
            watch(
                Step::Tls,
                StepNote::Passed("STARTTLS, certificate valid".into()),
            );
        }
    }

    let login = cfg
        .login()
        .map_err(MailboxError::Permanent)
        .map_err(failed(
            Step::Login,
            "write [mail.imap] password or token_command, as the line above says",
        ))?;
    let mut session = match login {
        Login::Password { user, password } => password_login(client, &server, user, password)
            .await
            .map_err(failed(
                Step::Login,
                "check [mail.imap] user and password (with two-factor login, an app password)",
            ))?,
        Login::Token { user, command } => {
            let tokens = TokenCommand::new("[mail.imap]", command);
            xoauth2_login(client, &server, user, &tokens)
                .await
                .map_err(failed(
                    Step::Login,
                    "check [mail.imap] user and token_command: the command must print a \
                     fresh OAuth2 access token for that user, allowed to use IMAP",
                ))?
        }
        Login::None => {
            return Err(StepFailed {
                step: Step::Login,
                error: MailboxError::Permanent("[mail.imap] gives no way to log in".into()),
                fix: "write [mail.imap] password or token_command".into(),
            });
        }
    };
    watch(
        Step::Login,
        StepNote::Passed(format!("logged in as '{}'", cfg.user)),
    );

    let caps = timed(&server, "CAPABILITY", session.capabilities())
        .await
        .map_err(failed(
            Step::Idle,
            "try again; if it persists, the server misbehaves",
        ))?;
    let has_idle = caps.has_str("IDLE");
    let has_move = caps.has_str("MOVE");
    let has_uidplus = caps.has_str("UIDPLUS");
    watch(
        Step::Idle,
        if has_idle {
            StepNote::Passed("the server has IDLE: new mail is seen at once".into())
        } else {
            StepNote::Warned {
                what: format!(
                    "the server has no IDLE: dopis polls every {} s instead",
                    cfg.poll_seconds.max(1)
                ),
                fix: "nothing is needed; lower [mail.imap] poll_seconds for quicker answers".into(),
            }
        },
    );

    let to_open = format!(
        "create the folder '{}' in the mailbox, or set [mail.imap] mailbox to one that exists \
         (usually INBOX)",
        cfg.mailbox
    );
    if let Some(done) = &cfg.done_folder {
        ensure_folder(&mut session, &server, done, "done_folder")
            .await
            .map_err(failed(
                Step::Mailbox,
                "create it, or fix [mail.imap] done_folder",
            ))?;
    }
    let uid_validity = select(&mut session, &server, cfg)
        .await
        .map_err(failed(Step::Mailbox, &to_open))?;
    watch(
        Step::Mailbox,
        StepNote::Passed(format!("the folder '{}' exists and opens", cfg.mailbox)),
    );
    Ok(Connected {
        session,
        uid_validity,
        has_idle,
        has_move,
        has_uidplus,
    })
}

/// LOGIN with a password.
async fn password_login(
    client: async_imap::Client<ImapStream>,
    server: &str,
    user: &str,
    password: &Secret,
) -> Result<Session, MailboxError> {
    let login = tokio::time::timeout(COMMAND_TIMEOUT, client.login(user, password.expose()))
        .await
        .map_err(|_| {
            MailboxError::Transient(format!(
                "IMAP server {server} did not answer the login in time"
            ))
        })?;
    match login {
        Ok(session) => Ok(session),
        Err((ImapError::No(why) | ImapError::Bad(why), _client)) => {
            Err(MailboxError::Permanent(format!(
                "IMAP server {server} refused the login of user '{user}': {} \
                 (check [mail.imap] user and password)",
                why.trim()
            )))
        }
        Err((e, _client)) => Err(transient(server, "login", e)),
    }
}

/// AUTHENTICATE XOAUTH2 with a token from `tokens`, run for each new login
/// (the tool behind it renews the token when it is due). When the server
/// refuses it, the command is run once more and the login tried again: the
/// token may have expired between the tool's check and ours.
async fn xoauth2_login(
    mut client: async_imap::Client<ImapStream>,
    server: &str,
    user: &str,
    tokens: &TokenCommand,
) -> Result<Session, MailboxError> {
    let mut refused = String::new();
    for attempt in 0..2 {
        let token = tokens.run().await.map_err(|e| {
            let text = format!("cannot log in to IMAP server {server} with XOAUTH2: {e}");
            if e.is_lasting() {
                MailboxError::Permanent(text)
            } else {
                MailboxError::Transient(text)
            }
        })?;
        let mut answers = Xoauth2::new(user, &token);
        let outcome = tokio::time::timeout(
            COMMAND_TIMEOUT,
            client.authenticate("XOAUTH2", &mut answers),
        )
        .await
        .map_err(|_| {
            MailboxError::Transient(format!(
                "IMAP server {server} did not answer the XOAUTH2 login in time"
            ))
        })?;
        match outcome {
            Ok(session) => return Ok(session),
            Err((ImapError::No(why), back)) => {
                client = back;
                refused = format!("{}{}", why.trim(), answers.explained());
                if attempt == 0 {
                    tracing::info!(
                        %server, user = %user,
                        "the IMAP server refused the XOAUTH2 token; running [mail.imap] token_command again"
                    );
                }
            }
            Err((ImapError::Bad(why), _client)) => {
                return Err(MailboxError::Permanent(format!(
                    "IMAP server {server} does not take the XOAUTH2 login: {} (check \
                     [mail.imap] host; for a server without OAuth2 write password instead of \
                     token_command)",
                    why.trim()
                )));
            }
            Err((e, _client)) => return Err(transient(server, "XOAUTH2 login", e)),
        }
    }
    Err(MailboxError::Permanent(format!(
        "IMAP server {server} refused the XOAUTH2 login of user '{user}': {refused}; it \
         refused a fresh token from [mail.imap] token_command too (check that the token is \
         for '{user}' and allows IMAP, e.g. the scope https://outlook.office.com/IMAP.AccessAsUser.All \
         for Microsoft 365 or https://mail.google.com/ for Gmail)"
    )))
}

/// The client's side of AUTHENTICATE XOAUTH2: the SASL message to the
/// server's first (empty) challenge. A server that then explains a refusal
/// (a challenge holding a JSON error, as Gmail's) gets the empty answer
/// that ends the exchange, and its explanation is kept for the message.
struct Xoauth2 {
    message: Option<Secret>,
    explanation: Option<String>,
}

impl Xoauth2 {
    fn new(user: &str, token: &Secret) -> Xoauth2 {
        Xoauth2 {
            message: Some(oauth::xoauth2(user, token)),
            explanation: None,
        }
    }

    /// The server's explanation of a refusal, if it gave one, for the end
    /// of a message.
    fn explained(&self) -> String {
        match &self.explanation {
            Some(json) if !json.trim().is_empty() => {
                let json: String = json.chars().filter(|c| !c.is_control()).take(200).collect();
                format!(" ({json})")
            }
            _ => String::new(),
        }
    }
}

impl async_imap::Authenticator for &mut Xoauth2 {
    type Response = Vec<u8>;

    fn process(&mut self, challenge: &[u8]) -> Vec<u8> {
        match self.message.take() {
            Some(message) => message.expose().as_bytes().to_vec(),
            None => {
                self.explanation = Some(String::from_utf8_lossy(challenge).into_owned());
                Vec::new()
            }
        }
    }
}

/// Selects the folder; returns its UIDVALIDITY.
async fn select(
    session: &mut Session,
    server: &str,
    cfg: &ImapConfig,
) -> Result<u32, MailboxError> {
    match tokio::time::timeout(COMMAND_TIMEOUT, session.select(&cfg.mailbox)).await {
        // RFC 3501 makes UIDVALIDITY mandatory; a server without it gets one
        // constant validity, which is what it claims by leaving it out.
        Ok(Ok(selected)) => Ok(selected.uid_validity.unwrap_or(0)),
        Ok(Err(ImapError::No(why) | ImapError::Bad(why))) => Err(MailboxError::Permanent(format!(
            "the folder '{}' cannot be opened for user '{}' on IMAP server {server}: {} \
             (create it, or fix [mail.imap] mailbox)",
            cfg.mailbox,
            cfg.user,
            why.trim()
        ))),
        Ok(Err(e)) => Err(transient(server, "SELECT", e)),
        Err(_) => Err(MailboxError::Transient(format!(
            "IMAP server {server} did not answer SELECT in time"
        ))),
    }
}

async fn handshake(
    cfg: &ImapConfig,
    extra_roots: &[CertificateDer<'static>],
    server: &str,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, MailboxError> {
    let connector = net::tls_connector(extra_roots).map_err(MailboxError::Permanent)?;
    let name = net::server_name(&cfg.host).map_err(MailboxError::Permanent)?;
    match tokio::time::timeout(CONNECT_TIMEOUT, connector.connect(name, tcp)).await {
        Ok(Ok(tls)) => Ok(tls),
        // Retrying cannot help until the admin trusts the right CA or host name.
        Ok(Err(e))
            if let Some(problem) =
                net::certificate_problem(&e, &cfg.host, "[mail.imap]", cfg.ca_file.as_deref()) =>
        {
            Err(MailboxError::Permanent(format!(
                "TLS with IMAP server {server} failed: {problem}"
            )))
        }
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::InvalidData => {
            Err(MailboxError::Permanent(format!(
                "TLS with IMAP server {server} failed: {e} (is the port right for tls = \"{}\"? \
                 993 is TLS from the start, 143 is for starttls)",
                match cfg.tls {
                    Tls::Tls => "tls",
                    _ => "starttls",
                }
            )))
        }
        Ok(Err(e)) => Err(MailboxError::Transient(format!(
            "TLS with IMAP server {server} failed: {e}"
        ))),
        Err(_) => Err(MailboxError::Transient(format!(
            "TLS with IMAP server {server} did not finish in time"
        ))),
    }
}

/// Reads the server's greeting, which must come before any command.
async fn greeting(
    client: &mut async_imap::Client<ImapStream>,
    server: &str,
) -> Result<(), MailboxError> {
    match tokio::time::timeout(CONNECT_TIMEOUT, client.read_response()).await {
        Ok(Ok(Some(_))) => Ok(()),
        Ok(Ok(None)) => Err(MailboxError::Transient(format!(
            "IMAP server {server} closed the connection before greeting"
        ))),
        Ok(Err(e)) => Err(MailboxError::Transient(format!(
            "IMAP server {server} sent no greeting: {e}"
        ))),
        Err(_) => Err(MailboxError::Transient(format!(
            "IMAP server {server} sent no greeting in time"
        ))),
    }
}

/// Creates `folder` unless it exists.
async fn ensure_folder(
    session: &mut Session,
    server: &str,
    folder: &str,
    key: &str,
) -> Result<(), MailboxError> {
    let exists = tokio::time::timeout(COMMAND_TIMEOUT, session.status(folder, "(MESSAGES)"))
        .await
        .map_err(|_| {
            MailboxError::Transient(format!("IMAP server {server} did not answer STATUS"))
        })?;
    match exists {
        Ok(_) => Ok(()),
        Err(ImapError::No(_)) => match timed(server, "CREATE", session.create(folder)).await {
            Ok(()) => Ok(()),
            Err(e) => Err(MailboxError::Permanent(format!(
                "the folder '{folder}' does not exist and cannot be created: {e} \
                 (create it, or fix [mail.imap] {key})"
            ))),
        },
        Err(e) => Err(transient(server, "STATUS", e)),
    }
}

/// UIDs in the folder above `uid`, sorted.
async fn uids_above(
    session: &mut Session,
    server: &str,
    uid: u32,
) -> Result<Vec<u32>, MailboxError> {
    let Some(first) = uid.checked_add(1) else {
        return Ok(Vec::new());
    };
    // `n:*` always includes the highest UID, even when it is below n: filter.
    let found = timed(
        server,
        "UID SEARCH",
        session.uid_search(format!("UID {first}:*")),
    )
    .await?;
    let mut uids: Vec<u32> = found.into_iter().filter(|u| *u > uid).collect();
    uids.sort_unstable();
    Ok(uids)
}

/// Mail after `cursor` (every unseen one without), oldest first, one batch;
/// with the UID to wait above next.
async fn fetch_after(
    conn: &mut Connected,
    cursor: Option<u32>,
    max_bytes: u64,
    server: &str,
) -> Result<(Vec<Incoming>, u32), MailboxError> {
    let session = &mut conn.session;
    let (mut uids, highest) = match cursor {
        Some(after) => {
            let uids = uids_above(session, server, after).await?;
            let highest = uids.last().copied().unwrap_or(after);
            (uids, highest)
        }
        None => {
            // The highest UID first: anything arriving after it is above it.
            let top = timed(server, "UID SEARCH", session.uid_search("UID *")).await?;
            let highest = top.into_iter().max().unwrap_or(0);
            let unseen = timed(server, "UID SEARCH", session.uid_search("UNSEEN")).await?;
            let mut uids: Vec<u32> = unseen.into_iter().filter(|u| *u <= highest).collect();
            uids.sort_unstable();
            (uids, highest)
        }
    };
    let watermark = if uids.len() > BATCH_SIZE {
        uids.truncate(BATCH_SIZE);
        // More are waiting: wait_for_new must not sleep over them.
        uids.last().copied().unwrap_or(highest)
    } else {
        highest
    };
    if uids.is_empty() {
        return Ok((Vec::new(), watermark));
    }

    let set = uid_set(&uids);
    let meta: Vec<_> = timed(server, "UID FETCH", async {
        session
            .uid_fetch(&set, "(UID RFC822.SIZE INTERNALDATE)")
            .await?
            .try_collect::<Vec<_>>()
            .await
    })
    .await?;
    let mut found: Vec<(u32, u64, chrono::DateTime<Utc>)> = Vec::new();
    for fetch in &meta {
        let Some(uid) = fetch.uid else { continue };
        let Some(date) = fetch.internal_date() else {
            return Err(MailboxError::Permanent(format!(
                "IMAP server {server} sent no INTERNALDATE for UID {uid}; dopis needs it to time moves"
            )));
        };
        found.push((
            uid,
            u64::from(fetch.size.unwrap_or(0)),
            date.with_timezone(&Utc),
        ));
    }
    found.sort_by_key(|(uid, _, _)| *uid);
    found.dedup_by_key(|(uid, _, _)| *uid);

    let small: Vec<u32> = found
        .iter()
        .filter(|(_, size, _)| *size <= max_bytes)
        .map(|(uid, _, _)| *uid)
        .collect();
    let mut bodies = std::collections::HashMap::new();
    if !small.is_empty() {
        let fetched: Vec<_> = timed(server, "UID FETCH", async {
            session
                .uid_fetch(uid_set(&small), "(UID BODY.PEEK[])")
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await?;
        for fetch in fetched {
            if let (Some(uid), Some(body)) = (fetch.uid, fetch.body()) {
                bodies.insert(uid, body.to_vec());
            }
        }
    }
    // Of a mail over the cap, only the beginning of its header: whom to tell.
    let large: Vec<u32> = found
        .iter()
        .filter(|(_, size, _)| *size > max_bytes)
        .map(|(uid, _, _)| *uid)
        .collect();
    let mut heads = std::collections::HashMap::new();
    if !large.is_empty() {
        let fetched: Vec<_> = timed(server, "UID FETCH", async {
            session
                .uid_fetch(
                    uid_set(&large),
                    format!("(UID BODY.PEEK[HEADER]<0.{MAX_HEAD_BYTES}>)"),
                )
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await?;
        for fetch in fetched {
            if let (Some(uid), Some(head)) = (fetch.uid, fetch.header()) {
                heads.insert(uid, head.to_vec());
            }
        }
    }
    let validity = conn.uid_validity;
    let mails = found
        .into_iter()
        .filter_map(|(uid, size, received_at)| {
            let key = MailRef::Imap {
                uid_validity: validity,
                uid,
            };
            if size > max_bytes {
                return Some(Incoming {
                    key,
                    raw: Vec::new(),
                    head: heads.remove(&uid).unwrap_or_default(),
                    received_at,
                    oversized: Some(size),
                });
            }
            // A mail expunged between the two fetches is simply not there.
            let raw = bodies.remove(&uid)?;
            Some(Incoming {
                key,
                raw,
                head: Vec::new(),
                received_at,
                oversized: None,
            })
        })
        .collect();
    Ok((mails, watermark))
}

/// Flags a mail seen and moves it to `done_folder` if set.
async fn mark(
    conn: &mut Connected,
    server: &str,
    uid: u32,
    done_folder: Option<&str>,
) -> Result<(), MailboxError> {
    let session = &mut conn.session;
    let uid = uid.to_string();
    timed(server, "UID STORE", async {
        session
            .uid_store(&uid, "+FLAGS.SILENT (\\Seen)")
            .await?
            .try_collect::<Vec<_>>()
            .await
    })
    .await?;
    let Some(folder) = done_folder else {
        return Ok(());
    };
    if conn.has_move {
        timed(server, "UID MOVE", session.uid_mv(&uid, folder)).await?;
        return Ok(());
    }
    timed(server, "UID COPY", session.uid_copy(&uid, folder)).await?;
    timed(server, "UID STORE", async {
        session
            .uid_store(&uid, "+FLAGS.SILENT (\\Deleted)")
            .await?
            .try_collect::<Vec<_>>()
            .await
    })
    .await?;
    if conn.has_uidplus {
        timed(server, "UID EXPUNGE", async {
            session
                .uid_expunge(&uid)
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await?;
    } else {
        // Without UIDPLUS only a plain EXPUNGE exists; it also removes other
        // mail flagged \Deleted in this folder, which is what that flag asks.
        timed(server, "EXPUNGE", async {
            session.expunge().await?.try_collect::<Vec<_>>().await
        })
        .await?;
    }
    Ok(())
}

/// `1,5,7`: a UID set for a command.
fn uid_set(uids: &[u32]) -> String {
    let parts: Vec<String> = uids.iter().map(u32::to_string).collect();
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(tls: Tls, port: Option<u16>, host: &str) -> ImapConfig {
        ImapConfig {
            host: host.into(),
            port,
            tls,
            user: "chess@example.org".into(),
            password: Some(Secret::new("hunter2")),
            token_command: None,
            mailbox: "INBOX".into(),
            done_folder: None,
            failed_folder: crate::adapter::config::default_failed_folder(),
            poll_seconds: 60,
            ca_file: None,
        }
    }

    #[test]
    fn the_port_follows_the_tls_mode_unless_given() {
        let cases = [
            (Tls::Tls, None, 993),
            (Tls::Starttls, None, 143),
            (Tls::None, None, 143),
            (Tls::Tls, Some(1993), 1993),
        ];
        for (tls, given, expected) in cases {
            assert_eq!(
                port(&config(tls, given, "h")),
                expected,
                "{tls:?} {given:?}"
            );
        }
    }

    #[test]
    fn uid_sets_list_every_uid() {
        assert_eq!(uid_set(&[1]), "1");
        assert_eq!(uid_set(&[3, 9, 12]), "3,9,12");
    }

    #[tokio::test]
    async fn plaintext_to_another_machine_is_refused_without_revealing_the_password() {
        for host in ["imap.example.org", "10.1.2.3"] {
            let err = ImapMailbox::connect(config(Tls::None, Some(1), host))
                .await
                .expect_err("plaintext to a remote host must be refused");
            let text = err.to_string();
            assert!(matches!(err, MailboxError::Permanent(_)), "{text}");
            assert!(text.contains("tls = \"tls\" or \"starttls\""), "{text}");
            assert!(!text.contains("hunter2"), "{text}");
        }
    }
}
