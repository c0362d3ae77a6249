//! `dopis doctor`'s look at the IMAP server: the steps of connecting one by
//! one (so that the one that fails is named), and finding and removing the
//! probe mail.

use std::time::Duration;

use async_imap::error::Error as ImapError;
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use tokio::net::TcpStream;

use super::{
    COMMAND_TIMEOUT, CONNECT_TIMEOUT, ImapStream, Session, greeting, handshake, port, timed,
};
use crate::config::{ImapConfig, Login, Secret, Tls};
use crate::daemon::doctor::Check;
use crate::daemon::net;
use crate::daemon::oauth::TokenCommand;

/// A logged-in IMAP session the doctor keeps for the probe mail.
pub struct ImapProbe {
    session: Session,
    server: String,
    cfg: ImapConfig,
    has_uidplus: bool,
}

impl std::fmt::Debug for ImapProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapProbe")
            .field("server", &self.server)
            .finish()
    }
}

/// Connects to the server step by step, reporting each step: connect, TLS,
/// login, IDLE, the folder. Returns the session when every step that
/// matters passed.
pub async fn diagnose(cfg: &ImapConfig, report: &mut dyn FnMut(Check)) -> Option<ImapProbe> {
    let server = format!("{}:{}", cfg.host, port(cfg));
    let extra_roots = match &cfg.ca_file {
        Some(path) => match net::read_ca_file(path, "[mail.imap] ca_file") {
            Ok(roots) => roots,
            Err(e) => {
                report(Check::fail("imap tls", e, "fix [mail.imap] ca_file"));
                return None;
            }
        },
        None => Vec::new(),
    };
    if cfg.tls == Tls::None && !net::is_loopback_host(&cfg.host) {
        report(Check::fail(
            "imap tls",
            format!(
                "tls = \"none\" to {server}, which is not this machine: the password would cross the network unencrypted"
            ),
            "set [mail.imap] tls = \"tls\" (port 993) or \"starttls\" (port 143)",
        ));
        return None;
    }
    let tcp = match tokio::time::timeout(
        CONNECT_TIMEOUT,
        TcpStream::connect((cfg.host.as_str(), port(cfg))),
    )
    .await
    {
        Ok(Ok(tcp)) => tcp,
        Ok(Err(e)) => {
            report(Check::fail(
                "imap connect",
                format!("cannot connect to IMAP server {server}: {e}"),
                "check that the server runs and that [mail.imap] host and port name it \
                 (993 for tls = \"tls\", 143 for starttls)",
            ));
            return None;
        }
        Err(_) => {
            report(Check::fail(
                "imap connect",
                format!(
                    "IMAP server {server} did not answer in {} s",
                    CONNECT_TIMEOUT.as_secs()
                ),
                "check [mail.imap] host and port, and that no firewall drops the connection",
            ));
            return None;
        }
    };
    report(Check::ok("imap connect", format!("{server} answers")));
    let stream = match cfg.tls {
        Tls::Tls => match handshake(cfg, &extra_roots, &server, tcp).await {
            Ok(tls) => ImapStream::Tls(Box::new(tls)),
            Err(e) => {
                report(Check::fail(
                    "imap tls",
                    e.to_string(),
                    "check [mail.imap] tls, port and ca_file",
                ));
                return None;
            }
        },
        Tls::None | Tls::Starttls => ImapStream::Plain(tcp),
    };
    let mut client = async_imap::Client::new(stream);
    if let Err(e) = greeting(&mut client, &server).await {
        report(Check::fail(
            "imap connect",
            e.to_string(),
            "check that [mail.imap] port is the IMAP port (and tls matches it)",
        ));
        return None;
    }
    match cfg.tls {
        Tls::None => report(Check::ok(
            "imap tls",
            "none (tls = \"none\"; allowed as the server is on this machine)",
        )),
        Tls::Tls => report(Check::ok(
            "imap tls",
            "TLS from the start, certificate valid",
        )),
        Tls::Starttls => {
            let started = timed(
                &server,
                "STARTTLS",
                client.run_command_and_check_ok("STARTTLS", None),
            )
            .await;
            let upgraded = match (started, client.into_inner()) {
                (Ok(()), ImapStream::Plain(tcp)) => {
                    handshake(cfg, &extra_roots, &server, tcp).await
                }
                (Ok(()), ImapStream::Tls(_)) => Err(super::MailboxError::Permanent(
                    "STARTTLS on a connection that is already encrypted".into(),
                )),
                (Err(_), _) => Err(super::MailboxError::Permanent(format!(
                    "IMAP server {server} refused STARTTLS"
                ))),
            };
            match upgraded {
                Ok(tls) => {
                    client = async_imap::Client::new(ImapStream::Tls(Box::new(tls)));
                    report(Check::ok("imap tls", "STARTTLS, certificate valid"));
                }
                Err(e) => {
                    report(Check::fail(
                        "imap tls",
                        e.to_string(),
                        "check [mail.imap] tls (\"tls\" for port 993), port and ca_file",
                    ));
                    return None;
                }
            }
        }
    }
    let mut session = match cfg.login() {
        Err(problem) => {
            report(Check::fail(
                "imap login",
                problem,
                "write [mail.imap] password or token_command, as the line above says",
            ));
            return None;
        }
        Ok(Login::Token { user, command }) => {
            let tokens = TokenCommand::new("[mail.imap]", command);
            match super::xoauth2_login(client, &server, user, &tokens).await {
                Ok(session) => session,
                Err(e) => {
                    report(Check::fail(
                        "imap login",
                        e.to_string(),
                        "check [mail.imap] user and token_command: the command must print a \
                         fresh OAuth2 access token for that user, allowed to use IMAP",
                    ));
                    return None;
                }
            }
        }
        Ok(Login::None) => {
            report(Check::fail(
                "imap login",
                "[mail.imap] gives no way to log in",
                "write [mail.imap] password or token_command",
            ));
            return None;
        }
        Ok(Login::Password { user, password }) => {
            password_login(client, user, password, report).await?
        }
    };
    report(Check::ok(
        "imap login",
        format!("logged in as '{}'", cfg.user),
    ));
    let caps = match timed(&server, "CAPABILITY", session.capabilities()).await {
        Ok(caps) => caps,
        Err(e) => {
            report(Check::fail(
                "imap idle",
                e.to_string(),
                "try again; if it persists, the server misbehaves",
            ));
            return None;
        }
    };
    if caps.has_str("IDLE") {
        report(Check::ok(
            "imap idle",
            "the server has IDLE: new mail is seen at once",
        ));
    } else {
        report(Check::warn(
            "imap idle",
            format!(
                "the server has no IDLE: dopis polls every {} s instead",
                cfg.poll_seconds.max(1)
            ),
            "nothing is needed; lower [mail.imap] poll_seconds for quicker answers",
        ));
    }
    let has_uidplus = caps.has_str("UIDPLUS");
    match tokio::time::timeout(COMMAND_TIMEOUT, session.select(&cfg.mailbox)).await {
        Ok(Ok(_)) => report(Check::ok(
            "imap mailbox",
            format!("the folder '{}' exists and opens", cfg.mailbox),
        )),
        Ok(Err(e)) => {
            report(Check::fail(
                "imap mailbox",
                format!(
                    "the folder '{}' cannot be opened: {}",
                    cfg.mailbox,
                    describe(&e)
                ),
                format!(
                    "create the folder '{}' in the mailbox, or set [mail.imap] mailbox to one that exists (usually INBOX)",
                    cfg.mailbox
                ),
            ));
            return None;
        }
        Err(_) => {
            report(Check::fail(
                "imap mailbox",
                format!("the server did not answer SELECT '{}' in time", cfg.mailbox),
                "try again; if it persists, the server misbehaves",
            ));
            return None;
        }
    }
    Some(ImapProbe {
        session,
        server,
        cfg: cfg.clone(),
        has_uidplus,
    })
}

fn describe(e: &ImapError) -> String {
    match e {
        ImapError::No(why) | ImapError::Bad(why) => why.trim().to_string(),
        other => other.to_string(),
    }
}

impl ImapProbe {
    /// The folder mail is read from.
    pub fn mailbox(&self) -> &str {
        &self.cfg.mailbox
    }

    /// Waits up to `wait` for the mail whose `header` is `value`, in the
    /// folder read or (a running daemon may have handled it first) the
    /// done folder; removes it and returns when the server received it
    /// (its INTERNALDATE). `Ok(None)`: it did not come.
    pub async fn await_and_remove(
        &mut self,
        header: &str,
        value: &str,
        wait: Duration,
    ) -> Result<Option<DateTime<Utc>>, String> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut folders = vec![self.cfg.mailbox.clone()];
        folders.extend(self.cfg.done_folder.clone());
        loop {
            for folder in &folders {
                if let Some(at) = self.find_in(folder, header, value).await? {
                    return Ok(Some(at));
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    async fn find_in(
        &mut self,
        folder: &str,
        header: &str,
        value: &str,
    ) -> Result<Option<DateTime<Utc>>, String> {
        let server = self.server.clone();
        // A folder that cannot be opened (a done folder not yet created)
        // holds no probe.
        if timed(&server, "SELECT", self.session.select(folder))
            .await
            .is_err()
        {
            return Ok(None);
        }
        let query = format!("HEADER {header} \"{value}\"");
        let found = timed(&server, "UID SEARCH", self.session.uid_search(query))
            .await
            .map_err(|e| e.to_string())?;
        let Some(uid) = found.into_iter().max() else {
            return Ok(None);
        };
        let fetched: Vec<_> = timed(&server, "UID FETCH", async {
            self.session
                .uid_fetch(uid.to_string(), "(UID INTERNALDATE)")
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await
        .map_err(|e| e.to_string())?;
        let received = fetched
            .iter()
            .find_map(|f| f.internal_date())
            .map(|d| d.with_timezone(&Utc));
        self.remove(uid).await?;
        Ok(Some(received.unwrap_or(DateTime::<Utc>::MIN_UTC)))
    }

    /// Deletes one mail; with UIDPLUS only that one is expunged, without
    /// it the mail stays flagged deleted (a plain EXPUNGE would also remove
    /// whatever else someone flagged).
    async fn remove(&mut self, uid: u32) -> Result<(), String> {
        let server = self.server.clone();
        timed(&server, "UID STORE", async {
            self.session
                .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Seen \\Deleted)")
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await
        .map_err(|e| e.to_string())?;
        if self.has_uidplus {
            timed(&server, "UID EXPUNGE", async {
                self.session
                    .uid_expunge(uid.to_string())
                    .await?
                    .try_collect::<Vec<_>>()
                    .await
            })
            .await
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Logs out.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.session.logout()).await;
    }
}

/// LOGIN with a password, each refusal reported with its fix.
async fn password_login(
    client: async_imap::Client<ImapStream>,
    user: &str,
    password: &Secret,
    report: &mut dyn FnMut(Check),
) -> Option<Session> {
    let login = tokio::time::timeout(COMMAND_TIMEOUT, client.login(user, password.expose())).await;
    match login {
        Ok(Ok(session)) => Some(session),
        Ok(Err((ImapError::No(why) | ImapError::Bad(why), _))) => {
            report(Check::fail(
                "imap login",
                format!(
                    "the server refused the login of user '{user}': {}",
                    why.trim()
                ),
                "check [mail.imap] user and password (with two-factor login, an app password)",
            ));
            None
        }
        Ok(Err((e, _))) => {
            report(Check::fail(
                "imap login",
                format!("the login of user '{user}' failed: {e}"),
                "check [mail.imap] user and password",
            ));
            None
        }
        Err(_) => {
            report(Check::fail(
                "imap login",
                "the server did not answer the login in time",
                "check that [mail.imap] host and port name an IMAP server",
            ));
            None
        }
    }
}
