//! Sending through an SMTP server with lettre (a pooled async transport).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use lettre::address::Envelope;
use lettre::transport::smtp::AsyncSmtpTransportBuilder;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{
    Certificate, CertificateStore, Tls as LettreTls, TlsParameters,
};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use super::{MailerError, SendError};
use crate::adapter::config::{Login, SmtpConfig, Tls};
use crate::daemon::net;
use crate::daemon::oauth::TokenCommand;
use crate::domain::address::EmailAddress;

/// How long one SMTP dialogue step may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Reply codes that refuse our own login: the setup is wrong, not the mail,
/// so the outbox must keep the mail and retry once the admin fixes it.
const AUTH_CODES: &[&str] = &["530", "534", "535", "538"];

type Transport = AsyncSmtpTransport<Tokio1Executor>;

/// Sends mail through one SMTP server.
pub struct SmtpMailer {
    /// The transport in use, and how many times it was built anew (a
    /// transport built with a fresh token replaces the one before).
    current: tokio::sync::Mutex<Option<(Arc<Transport>, u64)>>,
    /// Everything of the transport but the login, for building it again
    /// with a fresh token.
    builder: AsyncSmtpTransportBuilder,
    /// With `token_command`: the user and the command of XOAUTH2 logins.
    xoauth2: Option<(String, TokenCommand)>,
    server: String,
    host: String,
    ca_file: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("server", &self.server)
            .finish()
    }
}

impl SmtpMailer {
    /// Sets up the transport; connects only when the first mail is sent.
    /// Must be called inside the Tokio runtime (its connection pool runs
    /// there), and dropped inside it too.
    pub fn new(cfg: &SmtpConfig) -> Result<SmtpMailer, MailerError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(MailerError::Smtp {
                host: cfg.host.clone(),
                why: "the SMTP transport must be opened inside the Tokio runtime".into(),
            });
        }
        let port = cfg.port.unwrap_or(match cfg.tls {
            Tls::Tls => 465,
            Tls::Starttls => 587,
            Tls::None => 25,
        });
        let smtp_error = |why: String| MailerError::Smtp {
            host: cfg.host.clone(),
            why,
        };
        let extra_roots = match &cfg.ca_file {
            Some(path) => {
                net::read_ca_file(path, "[mail.smtp] ca_file").map_err(MailerError::CaFile)?
            }
            None => Vec::new(),
        };
        let tls = match cfg.tls {
            Tls::None => {
                if !net::is_loopback_host(&cfg.host) {
                    return Err(MailerError::Insecure {
                        host: cfg.host.clone(),
                    });
                }
                LettreTls::None
            }
            Tls::Starttls | Tls::Tls => {
                // lettre's rustls setup: the Mozilla roots (as for IMAP, see
                // net.rs) plus the CAs of ca_file, added as root certificates.
                // The store is named, not `Default`: with lettre's
                // rustls-platform-verifier feature `Default` would drop extra
                // roots it cannot parse (rustls-platform-verifier issue 175).
                // The file is read by net::read_ca_file, not lettre's
                // `Certificate::from_pem`, which takes a file without any
                // certificate as an empty list.
                let mut builder = TlsParameters::builder(cfg.host.clone())
                    .certificate_store(CertificateStore::WebpkiRoots);
                for certificate in extra_roots {
                    let certificate = Certificate::from_der(certificate.to_vec())
                        .map_err(|e| smtp_error(format!("TLS setup failed: {e}")))?;
                    builder = builder.add_root_certificate(certificate);
                }
                let params = builder
                    .build_rustls()
                    .map_err(|e| smtp_error(format!("TLS setup failed: {e}")))?;
                if cfg.tls == Tls::Tls {
                    LettreTls::Wrapper(params)
                } else {
                    LettreTls::Required(params)
                }
            }
        };
        let builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(cfg.host.as_str())
            .port(port)
            .tls(tls)
            .timeout(Some(TIMEOUT));
        let (current, xoauth2) = match cfg.login().map_err(MailerError::Login)? {
            Login::None => (Some(builder.clone().build()), None),
            Login::Password { user, password } => {
                let credentials = Credentials::new(user.into(), password.expose().into());
                (Some(builder.clone().credentials(credentials).build()), None)
            }
            // Built at the first mail, with the token the command prints then.
            Login::Token { user, command } => (
                None,
                Some((user.to_string(), TokenCommand::new("[mail.smtp]", command))),
            ),
        };
        Ok(SmtpMailer {
            current: tokio::sync::Mutex::new(current.map(|t| (Arc::new(t), 0))),
            builder,
            xoauth2,
            server: format!("{}:{port}", cfg.host),
            host: cfg.host.clone(),
            ca_file: cfg.ca_file.clone(),
        })
    }

    /// The transport to send with. With XOAUTH2 it is built with a token
    /// from the command when there is none yet, or when the one numbered
    /// `stale` is in use (the server refused its token): lettre's pool logs
    /// new connections in with the credentials the transport was built
    /// with, so a fresh token needs a new transport. The lock makes
    /// concurrent senders that met the same refusal run the command once.
    async fn transport(&self, stale: Option<u64>) -> Result<(Arc<Transport>, u64), SendError> {
        let mut current = self.current.lock().await;
        if let Some((transport, number)) = current.as_ref()
            && stale != Some(*number)
        {
            return Ok((Arc::clone(transport), *number));
        }
        let Some((user, tokens)) = &self.xoauth2 else {
            // Not reached: without a token command the transport is built
            // once, in `new`, and never refused as stale.
            let transport = Arc::new(self.builder.clone().build());
            *current = Some((Arc::clone(&transport), 0));
            return Ok((transport, 0));
        };
        let token = tokens.run().await.map_err(|e| {
            SendError::Unavailable(format!(
                "cannot log in to SMTP server {} with XOAUTH2: {e}",
                self.server
            ))
        })?;
        let credentials = Credentials::new(user.clone(), token.expose().into());
        let transport = Arc::new(
            self.builder
                .clone()
                .credentials(credentials)
                .authentication(vec![Mechanism::Xoauth2])
                .build(),
        );
        let number = current.as_ref().map_or(0, |(_, n)| n + 1);
        *current = Some((Arc::clone(&transport), number));
        Ok((transport, number))
    }

    /// See [`super::Mailer::send`].
    pub async fn send(
        &self,
        from: &EmailAddress,
        to: &[EmailAddress],
        raw: &[u8],
    ) -> Result<(), SendError> {
        let envelope = envelope(from, to)?;
        let (mut transport, number) = self.transport(None).await?;
        let Err(mut e) = transport.send_raw(&envelope, raw).await else {
            return Ok(());
        };
        if let Some((user, _)) = &self.xoauth2
            && token_refused(&e)
        {
            // The token may have expired since the command printed it:
            // once more with a fresh one, on a new connection.
            tracing::info!(
                server = %self.server,
                user = %user,
                "the SMTP server refused the XOAUTH2 token; running [mail.smtp] token_command again"
            );
            (transport, _) = self.transport(Some(number)).await?;
            let Err(again) = transport.send_raw(&envelope, raw).await else {
                return Ok(());
            };
            if token_refused(&again) {
                // Not this mail's fault: the outbox waits for the admin.
                return Err(SendError::Unavailable(format!(
                    "SMTP server {} refused the XOAUTH2 login of user '{user}': {again}; it \
                     refused a fresh token from [mail.smtp] token_command too (check that the \
                     token is for '{user}' and allows SMTP, e.g. the scope \
                     https://outlook.office.com/SMTP.Send for Microsoft 365 or \
                     https://mail.google.com/ for Gmail)",
                    self.server
                )));
            }
            e = again;
        }
        match self.classify(&e) {
            SendError::Transient(text) => {
                // Whether the server takes mail from us at all: if it does
                // not (stopped, unreachable, our login refused), the failure
                // is not this mail's, and the outbox waits for the server
                // instead of charging each mail a retry. Asked only after a
                // failure; one NOOP on a pooled connection.
                if transport.test_connection().await.unwrap_or(false) {
                    Err(SendError::Transient(text))
                } else {
                    Err(SendError::Unavailable(text))
                }
            }
            other => Err(other),
        }
    }
}

/// Which step of reaching an SMTP server failed, for `dopis doctor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SmtpFault {
    /// TLS (the handshake, or the server's certificate).
    Tls(String),
    /// The server refused our login.
    Login(String),
    /// Anything else (no connection, no answer, a server that is not SMTP).
    Other(String),
}

impl SmtpMailer {
    /// Connects, secures and logs in (as the first mail would), then says
    /// goodbye: for `dopis doctor`.
    pub async fn check(&self) -> Result<(), SmtpFault> {
        // With token_command this runs the command: a token it cannot get
        // is a login fault.
        let (transport, _) = self
            .transport(None)
            .await
            .map_err(|e| SmtpFault::Login(e.to_string()))?;
        let e = match transport.test_connection().await {
            Ok(true) => return Ok(()),
            Ok(false) => {
                return Err(SmtpFault::Other(format!(
                    "SMTP server {} did not answer NOOP",
                    self.server
                )));
            }
            Err(e) => e,
        };
        if let Some(problem) =
            net::certificate_problem(&e, &self.host, "[mail.smtp]", self.ca_file.as_deref())
        {
            return Err(SmtpFault::Tls(problem));
        }
        let text = format!("SMTP server {}: {e}", self.server);
        if let Some((user, _)) = &self.xoauth2
            && token_refused(&e)
        {
            return Err(SmtpFault::Login(format!(
                "{text} (the server refused the XOAUTH2 token of [mail.smtp] token_command \
                 for user '{user}')"
            )));
        }
        let code = e.status().map(|c| c.to_string());
        if code.is_some_and(|c| AUTH_CODES.contains(&c.as_str())) {
            return Err(SmtpFault::Login(text));
        }
        if e.is_tls() {
            return Err(SmtpFault::Tls(text));
        }
        Err(SmtpFault::Other(text))
    }

    /// The server, `host:port`.
    pub fn server(&self) -> &str {
        &self.server
    }
}

fn envelope(from: &EmailAddress, to: &[EmailAddress]) -> Result<Envelope, SendError> {
    let address = |a: &EmailAddress| {
        lettre::Address::from_str(a.as_str()).map_err(|e| {
            SendError::Permanent(format!("the address {a} cannot be used in SMTP: {e}"))
        })
    };
    let recipients = to.iter().map(address).collect::<Result<Vec<_>, _>>()?;
    Envelope::new(Some(address(from)?), recipients)
        .map_err(|e| SendError::Permanent(format!("no usable envelope: {e}")))
}

impl SmtpMailer {
    /// As [`classify`], with a refused server certificate explained: what
    /// was wrong with it and which `[mail.smtp]` setting fixes it.
    fn classify(&self, e: &lettre::transport::smtp::Error) -> SendError {
        let server = &self.server;
        // The mail stays in the outbox until the admin trusts the right CA.
        if let Some(problem) =
            net::certificate_problem(e, &self.host, "[mail.smtp]", self.ca_file.as_deref())
        {
            return SendError::Transient(format!("SMTP server {server}: TLS failed: {problem}"));
        }
        classify(server, e)
    }
}

/// Whether `e` is the server refusing our XOAUTH2 token: a 535 (or another
/// code that refuses a login), or, from a server that first explains the
/// refusal in a 334 challenge holding a JSON error (Gmail, Dovecot), the
/// client error lettre ends with: its XOAUTH2 expects no challenge.
fn token_refused(e: &lettre::transport::smtp::Error) -> bool {
    let code = e.status().map(|c| c.to_string());
    code.is_some_and(|code| AUTH_CODES.contains(&code.as_str()))
        || (e.is_client() && e.to_string().contains("does not expect a challenge"))
}

/// 5xx for the mail is permanent; everything else (4xx, no connection,
/// TLS trouble, our login refused) may pass.
fn classify(server: &str, e: &lettre::transport::smtp::Error) -> SendError {
    let code = e.status().map(|c| c.to_string());
    let text = format!("SMTP server {server}: {e}");
    match code {
        Some(code) if AUTH_CODES.contains(&code.as_str()) => SendError::Transient(format!(
            "{text} (our login was refused: check [mail.smtp] user and password)"
        )),
        _ if e.is_permanent() => SendError::Permanent(text),
        _ => SendError::Transient(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::config::Secret;

    fn config(host: &str, tls: Tls) -> SmtpConfig {
        SmtpConfig {
            host: host.into(),
            port: None,
            tls,
            user: Some("chess".into()),
            password: Some(Secret::new("hunter2")),
            token_command: None,
            ca_file: None,
        }
    }

    #[tokio::test]
    async fn plaintext_smtp_is_allowed_only_to_this_machine() {
        let cases = [
            ("localhost", Tls::None, true),
            ("127.0.0.1", Tls::None, true),
            ("mail.example.org", Tls::None, false),
            ("10.0.0.5", Tls::None, false),
            ("mail.example.org", Tls::Starttls, true),
            ("mail.example.org", Tls::Tls, true),
        ];
        for (host, tls, allowed) in cases {
            match SmtpMailer::new(&config(host, tls)) {
                Ok(_) => assert!(allowed, "{host} {tls:?} was allowed"),
                Err(e) => {
                    assert!(!allowed, "{host} {tls:?}: {e}");
                    assert!(!e.to_string().contains("hunter2"), "{e}");
                }
            }
        }
    }

    #[tokio::test]
    async fn the_debug_form_shows_no_password() {
        let mailer = SmtpMailer::new(&config("localhost", Tls::None)).unwrap();
        assert!(!format!("{mailer:?}").contains("hunter2"));
    }

    #[test]
    fn outside_the_runtime_opening_fails_instead_of_panicking() {
        let err = SmtpMailer::new(&config("localhost", Tls::None)).unwrap_err();
        assert!(err.to_string().contains("Tokio runtime"), "{err}");
    }

    #[test]
    fn an_address_smtp_cannot_carry_is_a_permanent_error() {
        let from = EmailAddress::parse("chess@example.org").unwrap();
        let odd = EmailAddress::parse("a..b@example.org").unwrap();
        assert!(matches!(
            envelope(&from, &[odd]),
            Err(SendError::Permanent(_))
        ));
        assert!(envelope(&from, std::slice::from_ref(&from)).is_ok());
    }
}
