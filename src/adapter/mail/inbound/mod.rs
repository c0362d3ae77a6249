//! Reading a raw mail: who sent it, to which addresses, its threading and
//! loop-prevention headers, and the newest text the sender wrote.
//!
//! Pure and total: any bytes give either an [`InboundMail`] or an
//! [`InboundError`] saying why nothing can be done with them; never a panic.
//! MIME, charsets and transfer encodings are mail-parser's; HTML becomes text
//! in one linear pass (`html`); what is quoted history is decided in `history`.

mod automatic;
mod dsn;
mod flowed;
mod history;
mod html;
mod limits;
mod sender;

use std::fmt;

use super::key::sha256_hex;
use chrono::{DateTime, FixedOffset};
use mail_parser::{HeaderValue, MessageParser, MimeHeaders, PartType};

use crate::domain::address::EmailAddress;

pub use automatic::{Automatic, AutomaticKind, LoopSignals, classify};
pub use dsn::BounceReport;
pub use limits::{
    Excess, MAX_BOUNDARY, MAX_MAIL_BYTES, MAX_MIME_DEPTH, MAX_MIME_PARTS, MAX_MULTIPARTS,
    MAX_PARSE_WORK,
};

/// Longest Message-ID kept (RFC 5322 lines are at most 998 characters).
const MAX_MESSAGE_ID: usize = 998;

/// Longest subject kept, in characters.
const MAX_SUBJECT: usize = 998;

/// Body text looked at, in bytes: the newest text is at the top or right after
/// the quote, and a multi-megabyte body is an attack or an attachment.
const MAX_BODY_SCANNED: usize = 256 * 1024;

/// Longest newest text returned, in characters.
const MAX_NEWEST_TEXT: usize = 16 * 1024;

/// A Message-ID without its angle brackets, e.g. `abc@mail.example.org`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageId(String);

impl MessageId {
    /// Reads a Message-ID, with or without `<>`; `None` when empty, too long or with spaces.
    pub fn parse(text: &str) -> Option<MessageId> {
        let t = text.trim();
        let t = t
            .strip_prefix('<')
            .and_then(|t| t.strip_suffix('>'))
            .unwrap_or(t)
            .trim();
        let ok = !t.is_empty()
            && t.len() <= MAX_MESSAGE_ID
            && !t.chars().any(|c| c.is_whitespace() || c.is_control());
        ok.then(|| MessageId(t.to_string()))
    }

    /// The id without angle brackets.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{}>", self.0)
    }
}

/// The key under which a mail is recorded as handled, so it is applied at most once.
///
/// `mid:<Message-ID>` when the mail has one, else `sha256:<hex of the raw bytes>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// The key as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The envelope sender recorded by the receiving server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReturnPath {
    /// `<>`: the null path of bounces and automatic replies.
    Null,
    /// A usable address.
    Address(EmailAddress),
    /// Present but not an address (kept, shortened, for the log).
    Unreadable(String),
}

/// Where the newest text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextSource {
    /// A text/plain part.
    Plain,
    /// An HTML part converted to text (the mail had no usable text/plain).
    Html,
    /// No text part at all.
    None,
}

/// A mail as dopis needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundMail {
    /// The Message-ID, if the mail has a readable one.
    pub message_id: Option<MessageId>,
    /// The key that makes handling idempotent.
    pub idempotency_key: IdempotencyKey,
    /// The From address (the first one, lower-cased).
    pub from: EmailAddress,
    /// The display name in From, if any.
    pub from_name: Option<String>,
    /// The Return-Path header, if any.
    pub return_path: Option<ReturnPath>,
    /// Every recipient address from To, Cc, Delivered-To, X-Original-To and
    /// Envelope-To, in that order, without repeats: reply tokens are read from these.
    pub recipients: Vec<EmailAddress>,
    /// The subject (decoded), empty when absent.
    pub subject: String,
    /// In-Reply-To ids.
    pub in_reply_to: Vec<MessageId>,
    /// References ids, oldest first.
    pub references: Vec<MessageId>,
    /// The sender's Date header: informational only, never the time of a move.
    pub date: Option<DateTime<FixedOffset>>,
    /// The headers that mark a machine's mail.
    pub loop_signals: LoopSignals,
    /// `Some` when a machine wrote the mail: never answer it.
    pub automatic: Option<Automatic>,
    /// For a bounce: which of our recipients failed, and which of our mails
    /// came back.
    pub bounce: Option<BounceReport>,
    /// Which part the newest text came from.
    pub text_source: TextSource,
    /// The newest text the sender wrote: no quoted history, signature or footer.
    pub text: String,
}

impl InboundMail {
    /// True when the daemon may answer this mail (a person wrote it).
    pub fn may_answer(&self) -> bool {
        self.automatic.is_none()
    }

    /// True when the mail carries the `X-Loop` we stamp on our own mails
    /// (`X-Loop: <our address>`): a machine sent one of our mails back to us,
    /// and answering it would start a loop. A person's reply never has it
    /// (mail clients do not copy `X-Loop` into replies).
    pub fn carries_loop_of(&self, ours: &EmailAddress) -> bool {
        self.loop_signals
            .x_loop
            .iter()
            .any(|value| value.contains(ours.as_str()))
    }
}

/// Why a mail cannot be handled at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InboundError {
    /// Zero bytes.
    #[error("the mail is empty")]
    Empty,
    /// Nothing that parses as a mail.
    #[error("these bytes are not a mail: no header could be read")]
    NotAMail,
    /// No From header, so there is nobody to answer or to authenticate.
    #[error("the mail has no From header, so it cannot be attributed to a player")]
    NoFrom,
    /// A From header without exactly one usable address.
    #[error("the From header '{text}' holds no usable address ({why})")]
    BadFrom {
        /// The From header as read (shortened, control characters shown as �).
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// More than one From header: RFC 5322 allows one, and readers differ
    /// on which counts, so the mail is attributed to nobody.
    #[error(
        "the mail has {count} From headers; a mail has exactly one, so it cannot be attributed \
         to a player"
    )]
    DuplicateFrom {
        /// How many.
        count: usize,
    },
    /// Over one of the caps on what is read from one mail (see [`Excess`]):
    /// refused as a whole rather than half-read. The sender, when its From
    /// header could be read, may be told why.
    #[error("the mail is too large or too complex to read: {excess}")]
    TooComplex {
        /// The From address, when the top header block had a usable one.
        from: Option<EmailAddress>,
        /// Which cap, with the figures.
        excess: Excess,
    },
}

impl InboundError {
    /// Whom the refusal may be told to: the From of a mail refused as too
    /// complex, when it was readable; nobody for the other errors (their
    /// sender cannot be known).
    pub fn sender(&self) -> Option<&EmailAddress> {
        match self {
            InboundError::TooComplex { from, .. } => from.as_ref(),
            _ => None,
        }
    }
}

/// Reads a raw mail (RFC 5322 bytes, CRLF or LF line ends).
pub fn parse(raw: &[u8]) -> Result<InboundMail, InboundError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(InboundError::Empty);
    }
    if !starts_with_header(raw) {
        return Err(InboundError::NotAMail);
    }
    // Over a cap, the sender is read from the top header block alone (work
    // linear in its length), to be told why nothing was done.
    let too_complex = |excess| InboundError::TooComplex {
        from: MessageParser::default()
            .parse_headers(raw)
            .and_then(|m| sender::sender(&m).ok())
            .map(|(from, _)| from),
        excess,
    };
    let (bytes, _) = limits::prescan(raw).map_err(too_complex)?;
    let message = MessageParser::default()
        .parse(bytes.as_ref())
        .ok_or(InboundError::NotAMail)?;
    if message.headers().is_empty() {
        return Err(InboundError::NotAMail);
    }
    let (from, from_name) = sender::sender(&message)?;
    limits::check_structure(&message).map_err(|excess| InboundError::TooComplex {
        from: Some(from.clone()),
        excess,
    })?;
    let message_id = message.message_id().and_then(MessageId::parse);
    let idempotency_key = match &message_id {
        Some(id) => IdempotencyKey(format!("mid:{}", id.as_str())),
        None => IdempotencyKey(format!("sha256:{}", sha256_hex(raw, 32))),
    };
    let return_path = raw_header(&message, "return-path").map(|v| read_return_path(&v));
    let subject = sender::one_line(message.subject().unwrap_or_default(), MAX_SUBJECT);
    let loop_signals = loop_signals(&message, &from, return_path.as_ref(), &subject);
    let automatic = classify(&loop_signals);
    let bounce = automatic
        .as_ref()
        .filter(|a| a.kind == AutomaticKind::Bounce)
        .map(|_| dsn::read(&message));
    let (text_source, text) = newest_text(&message);
    Ok(InboundMail {
        message_id,
        idempotency_key,
        from,
        from_name,
        return_path,
        recipients: recipients(&message),
        subject,
        in_reply_to: ids(message.in_reply_to()),
        references: ids(message.references()),
        date: message
            .date()
            .and_then(|d| DateTime::parse_from_rfc3339(&d.to_rfc3339()).ok()),
        loop_signals,
        automatic,
        bounce,
        text_source,
        text,
    })
}

/// A mail starts with a header field (`Name:`), or an mbox `From ` line.
///
/// mail-parser reads anything as a mail; without this, binary junk would be
/// reported as "no From header" instead of "not a mail".
fn starts_with_header(raw: &[u8]) -> bool {
    let start = raw
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(raw.len());
    let head = raw.get(start..).unwrap_or_default();
    if head.starts_with(b"From ") {
        return true;
    }
    let name_len = head
        .iter()
        .take_while(|&&b| b.is_ascii_graphic() && b != b':')
        .count();
    (1..=76).contains(&name_len) && head.get(name_len) == Some(&b':')
}

/// The first header of that name, as raw text (unfolded, undecoded).
fn raw_header(message: &mail_parser::Message<'_>, name: &str) -> Option<String> {
    raw_headers(message, name).next()
}

fn raw_headers<'a>(
    message: &'a mail_parser::Message<'_>,
    name: &'a str,
) -> impl Iterator<Item = String> + 'a {
    message
        .headers_raw()
        .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| sender::one_line(v, usize::MAX))
}

/// Text from outside, shortened to `max` characters, with every control
/// character shown as `�`: for logs and the stored outcome of a mail (a NUL
/// byte is not valid in PostgreSQL text).
pub(crate) fn printable(text: &str, max: usize) -> String {
    text.chars()
        .take(max)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

fn read_return_path(value: &str) -> ReturnPath {
    let inner = value
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    if inner.is_empty() {
        return ReturnPath::Null;
    }
    match EmailAddress::parse(inner) {
        Ok(a) => ReturnPath::Address(a),
        Err(_) => ReturnPath::Unreadable(value.trim().chars().take(80).collect()),
    }
}

fn recipients(message: &mail_parser::Message<'_>) -> Vec<EmailAddress> {
    let mut out: Vec<EmailAddress> = Vec::new();
    let mut add = |text: &str| {
        if let Ok(a) = EmailAddress::parse(text)
            && !out.contains(&a)
        {
            out.push(a);
        }
    };
    for list in message.all_to().chain(message.all_cc()) {
        for a in list.iter() {
            if let Some(addr) = a.address.as_deref() {
                add(addr);
            }
        }
    }
    for name in ["delivered-to", "x-original-to", "envelope-to"] {
        for value in raw_headers(message, name) {
            add(&value);
        }
    }
    out
}

fn ids(value: &HeaderValue<'_>) -> Vec<MessageId> {
    match value {
        HeaderValue::Text(t) => MessageId::parse(t).into_iter().collect(),
        HeaderValue::TextList(list) => list.iter().filter_map(|t| MessageId::parse(t)).collect(),
        _ => Vec::new(),
    }
}

fn loop_signals(
    message: &mail_parser::Message<'_>,
    from: &EmailAddress,
    return_path: Option<&ReturnPath>,
    subject: &str,
) -> LoopSignals {
    let keyword = |name: &str| {
        raw_header(message, name).map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
    };
    let mut list_headers = Vec::new();
    let mut vendor_auto_reply = Vec::new();
    for (name, value) in message.headers_raw() {
        let lower = name.to_ascii_lowercase();
        let value = sender::one_line(value, usize::MAX);
        if lower.starts_with("list-")
            && lower != "list-id"
            && !list_headers
                .iter()
                .any(|n: &String| n.eq_ignore_ascii_case(name))
        {
            list_headers.push(name.to_string());
        }
        let says_no = matches!(value.to_ascii_lowercase().as_str(), "no" | "false" | "0");
        if automatic::VENDOR_AUTO_REPLY.contains(&lower.as_str()) && !says_no {
            vendor_auto_reply.push(format!(
                "{name}: {}",
                value.chars().take(80).collect::<String>()
            ));
        }
    }
    let root = message.root_part();
    let report_type = root
        .content_type()
        .filter(|ct| {
            ct.ctype().eq_ignore_ascii_case("multipart")
                && ct
                    .subtype()
                    .is_some_and(|s| s.eq_ignore_ascii_case("report"))
        })
        .map(|ct| {
            ct.attribute("report-type")
                .unwrap_or("unknown")
                .to_ascii_lowercase()
        });
    let local = from.local_part();
    LoopSignals {
        auto_submitted: keyword("auto-submitted"),
        precedence: keyword("precedence"),
        list_id: raw_header(message, "list-id").map(|v| v.chars().take(200).collect()),
        list_headers,
        vendor_auto_reply,
        failed_recipients: raw_header(message, "x-failed-recipients").is_some(),
        null_return_path: matches!(return_path, Some(ReturnPath::Null)),
        from_mailer_daemon: local == "mailer-daemon" || local == "postmaster",
        report_type,
        x_loop: raw_headers(message, "x-loop")
            .map(|v| v.to_lowercase())
            .collect(),
        auto_reply_subject: automatic::auto_reply_subject(subject),
    }
}

/// The newest text: text/plain preferred (unflowed), else HTML converted.
fn newest_text(message: &mail_parser::Message<'_>) -> (TextSource, String) {
    let plain = message.text_bodies().find_map(|part| match &part.body {
        PartType::Text(text) if !text.trim().is_empty() => {
            let ct = part.content_type();
            let flowed = ct
                .and_then(|c| c.attribute("format"))
                .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
            let delsp = ct
                .and_then(|c| c.attribute("delsp"))
                .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
            let text = head(text);
            Some(if flowed {
                flowed::unflow(text, delsp)
            } else {
                text.to_string()
            })
        }
        _ => None,
    });
    let (source, text) = match plain {
        Some(text) => (TextSource::Plain, text),
        None => match message.html_bodies().find_map(|part| match &part.body {
            PartType::Html(html) => Some(html_to_text(head(html))),
            _ => None,
        }) {
            Some(text) => (TextSource::Html, text),
            None => return (TextSource::None, String::new()),
        },
    };
    let text = clean(&text);
    let newest = history::newest_text(&text);
    (source, newest.chars().take(MAX_NEWEST_TEXT).collect())
}

/// The first [`MAX_BODY_SCANNED`] bytes, cut at a character boundary.
fn head(text: &str) -> &str {
    let mut end = text.len().min(MAX_BODY_SCANNED);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// Normalises what clients put in text: no-break spaces, zero-width marks,
/// CR, and control characters other than line ends and tabs (a NUL byte
/// is not text, and PostgreSQL refuses it).
fn clean(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            '\u{a0}' | '\u{2007}' | '\u{202f}' => Some(' '),
            '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{feff}' | '\r' => None,
            '\n' | '\t' => Some(c),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

fn html_to_text(html: &str) -> String {
    html::to_text(html).text
}

#[cfg(test)]
mod tests;
