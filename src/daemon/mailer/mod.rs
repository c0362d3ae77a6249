//! Where our mail goes out: an SMTP server, or a local Maildir (the embedded
//! default, also what `dopis demo` and tests read).

mod dkim;
mod maildir;
mod smtp;

use crate::adapter::config::MailConfig;
use crate::domain::address::EmailAddress;

pub use dkim::{BadDkim, DkimSigning};
pub use maildir::MaildirMailer;
pub use smtp::{SmtpFault, SmtpMailer};

/// How our mail goes out: a transport, and the DKIM key that signs each
/// mail first when `[mail.dkim]` is set.
#[derive(Debug)]
pub struct Mailer {
    transport: Transport,
    dkim: Option<DkimSigning>,
}

/// A mail transport of either kind.
///
/// An enum rather than a trait object: async methods in traits cannot be
/// called through `dyn`.
#[derive(Debug)]
enum Transport {
    /// An SMTP server (boxed: it holds the transport builder, which is large).
    Smtp(Box<SmtpMailer>),
    /// A local Maildir.
    Maildir(MaildirMailer),
}

/// Why a mail was not sent, by what the outbox does next.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Try again later: the server is unreachable, answered 4xx, or refused
    /// our own login (a setup problem, not this mail's; fixed by the admin).
    #[error("{0}")]
    Transient(String),
    /// This mail will never go: the server answered 5xx for it (unknown
    /// recipient, refused content) or an address is unusable.
    #[error("{0}")]
    Permanent(String),
    /// The server takes no mail from us now: it cannot be reached, does not
    /// answer, or refuses our connection or login. Nothing is wrong with
    /// this mail or the ones after it: stop sending, charge no mail an
    /// attempt, and send them all as soon as the server is back.
    #[error("{0}")]
    Unavailable(String),
}

impl SendError {
    /// Whether sending again later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, SendError::Transient(_) | SendError::Unavailable(_))
    }
}

/// Why the transport could not be set up; each says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum MailerError {
    /// `tls = "none"` to a server that is not on this machine.
    #[error(
        "SMTP server {host}: tls = \"none\" is allowed only to this machine (localhost, 127.0.0.1, ::1), \
         as passwords and mail would cross the network unencrypted; set [mail.smtp] tls = \"tls\" or \"starttls\""
    )]
    Insecure {
        /// The configured host.
        host: String,
    },
    /// The SMTP settings cannot be used.
    #[error("SMTP server {host}: {why} (check [mail.smtp])")]
    Smtp {
        /// The configured host.
        host: String,
        /// What is wrong.
        why: String,
    },
    /// `[mail.smtp] ca_file` cannot be used (the text names the key and the fix).
    #[error("{0}")]
    CaFile(String),
    /// `[mail.smtp]` gives no single way to log in (the text names the keys
    /// and what to write).
    #[error("{0}")]
    Login(String),
    /// `[mail.dkim]` cannot be used.
    #[error("{0}")]
    Dkim(#[from] BadDkim),
    /// The Maildir cannot be created.
    #[error(
        "cannot create the Maildir {path}: {source} (check [mail.maildir] path and its permissions)"
    )]
    Maildir {
        /// The directory.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Mailer {
    /// The transport the config names: SMTP if `[mail.smtp]` is set, else
    /// the Maildir `PATH/sent` (created when missing).
    /// With `[mail.dkim]`, its key is read now: a key that cannot be used
    /// stops the start, rather than mail going out unsigned.
    pub fn open(cfg: &MailConfig) -> Result<Mailer, MailerError> {
        let dkim = match &cfg.dkim {
            Some(d) => {
                let domain = cfg.address.rsplit_once('@').map_or("", |(_, d)| d).trim();
                Some(DkimSigning::load(d, domain)?)
            }
            None => None,
        };
        let transport = match &cfg.smtp {
            Some(smtp) => Transport::Smtp(Box::new(SmtpMailer::new(smtp)?)),
            None => Transport::Maildir(MaildirMailer::open(cfg.maildir.path.join("sent"))?),
        };
        Ok(Mailer { transport, dkim })
    }

    /// Sends `raw` (a complete RFC 5322 message, sent byte for byte) with
    /// the envelope `from` and `to`; the headers are not read for addresses.
    pub async fn send(
        &self,
        from: &EmailAddress,
        to: &[EmailAddress],
        raw: &[u8],
    ) -> Result<(), SendError> {
        if to.is_empty() {
            return Err(SendError::Permanent(
                "a mail with no recipients cannot be sent".into(),
            ));
        }
        let signed;
        let raw = match &self.dkim {
            Some(dkim) => {
                signed = dkim.sign(raw).map_err(SendError::Transient)?;
                signed.as_slice()
            }
            None => raw,
        };
        match &self.transport {
            Transport::Smtp(m) => m.send(from, to, raw).await,
            Transport::Maildir(m) => m.send(from, to, raw).await,
        }
    }
}
