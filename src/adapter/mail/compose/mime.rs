//! The MIME tree and headers of a rendered letter, built with lettre's
//! message builder (never its transports: sending is the daemon's).

use std::time::SystemTime;

use crate::adapter::mail::key::sha256_hex;
use lettre::Message;
use lettre::message::header::{
    ContentTransferEncoding, ContentType, HeaderName, HeaderValue, InReplyTo, MessageId, References,
};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};

use super::context::Context;
use super::templates::Rendered;
use super::{ComposeError, Letter, LetterKind, Party};
use crate::adapter::mail::inbound;

/// The media type of a PGN file (as chess software registers it).
const PGN_TYPE: &str = "application/x-chess-pgn";

/// The whole mail as bytes.
pub(crate) fn assemble(
    letter: &Letter,
    ctx: &Context,
    subject: &str,
    rendered: &Rendered,
) -> Result<Vec<u8>, ComposeError> {
    let seed = boundary_seed(letter);
    let boundary = |level: &str| format!("=_dopis_{level}_{seed}");

    let text = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .header(ContentTransferEncoding::QuotedPrintable)
        .body(rendered.text.clone());
    let html = SinglePart::builder()
        .header(ContentType::TEXT_HTML)
        .header(ContentTransferEncoding::QuotedPrintable)
        .body(rendered.html.clone());

    // Every picture the HTML shows: the game's board, or each board of a digest.
    let mut images = Vec::new();
    if let (Some(board), Some(png)) = (&ctx.board, &ctx.png) {
        images.push((board.cid.clone(), png.clone()));
    }
    images.extend(ctx.digest_pngs.iter().cloned());
    let html_side = if images.is_empty() {
        None
    } else {
        let mut related = MultiPart::related()
            .boundary(boundary("related"))
            .singlepart(html.clone());
        for (cid, png) in images {
            let image = Attachment::new_inline_with_name(cid, "board.png".to_owned())
                .body(png, content_type("image/png")?);
            related = related.singlepart(image);
        }
        Some(related)
    };
    let alternative = MultiPart::alternative()
        .boundary(boundary("alternative"))
        .singlepart(text);
    let alternative = match html_side {
        Some(related) => alternative.multipart(related),
        None => alternative.singlepart(html),
    };

    let mut attachments = Vec::new();
    if let (Some(file), Some(pgn)) = (
        &ctx.pgn_file,
        letter.game.as_ref().and_then(|g| g.pgn.as_ref()),
    ) {
        attachments.push(
            SinglePart::builder()
                .header(ContentTransferEncoding::QuotedPrintable)
                .header(lettre::message::header::ContentDisposition::attachment(
                    file,
                ))
                .header(content_type(&format!("{PGN_TYPE}; charset=utf-8"))?)
                .body(pgn.clone()),
        );
    }
    if let Some(ics) = &ctx.ics {
        // The method as in the file: PUBLISH, and clients offer "add to
        // calendar" (no invitation to answer); CANCEL, and they remove the
        // entry. Base64 keeps its CRLF line ends exact.
        attachments.push(
            SinglePart::builder()
                .header(ContentTransferEncoding::Base64)
                .header(lettre::message::header::ContentDisposition::attachment(
                    &ics.file,
                ))
                .header(content_type(&format!(
                    "text/calendar; charset=utf-8; method={}",
                    ics.method
                ))?)
                .body(ics.text.clone()),
        );
    }
    let body = if attachments.is_empty() {
        alternative
    } else {
        let mut mixed = MultiPart::mixed()
            .boundary(boundary("mixed"))
            .multipart(alternative);
        for part in attachments {
            mixed = mixed.singlepart(part);
        }
        mixed
    };

    let message = headers(letter, subject)?
        .multipart(body)
        .map_err(|e| ComposeError::Build(e.to_string()))?;
    Ok(message.formatted())
}

/// A text for a header: control characters (CR, LF, NUL …) as spaces,
/// whitespace runs as one space.
pub(super) fn one_line(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn content_type(text: &str) -> Result<ContentType, ComposeError> {
    ContentType::parse(text).map_err(|e| ComposeError::Build(format!("{text}: {e}")))
}

/// Boundaries from the Message-ID: the same letter gives the same bytes.
/// They start with `=_`, which quoted-printable and base64 bodies (all parts
/// here) can never contain, so no body can end a part early.
fn boundary_seed(letter: &Letter) -> String {
    sha256_hex(letter.message_id.as_str().as_bytes(), 12)
}

fn mailbox(party: &Party) -> Result<Mailbox, ComposeError> {
    let address = party
        .address
        .as_str()
        .parse::<lettre::Address>()
        .map_err(|e| ComposeError::Address {
            address: party.address.to_string(),
            message: e.to_string(),
        })?;
    // One line of printable text: a line break or a control character in a
    // name must never reach the header (lettre refuses some, and a CR LF
    // would start a header of its own).
    let name = one_line(&party.name);
    Ok(Mailbox::new((!name.is_empty()).then_some(name), address))
}

/// A Message-ID as a header wants it, or `None` for one that would need
/// encoding (an id from outside with non-ASCII in it is left out).
fn msg_id(id: &inbound::MessageId) -> Option<String> {
    let text = id.as_str();
    text.chars()
        .all(|c| c.is_ascii_graphic() && c != '<' && c != '>')
        .then(|| format!("<{text}>"))
}

fn raw_header(name: &str, value: &str) -> Result<HeaderValue, ComposeError> {
    let name = HeaderName::new_from_ascii(name.to_owned())
        .map_err(|e| ComposeError::Build(e.to_string()))?;
    Ok(HeaderValue::new(name, value.to_owned()))
}

/// An address as a `mailto:` URI's `to` wants it (RFC 6068 2: unreserved
/// characters and `!$'()*+,;:@` as they are, the rest percent-encoded), so
/// that a `=` delimiter (`chess=g4.…@`) survives.
fn mailto_address(address: &str) -> String {
    let mut out = String::with_capacity(address.len());
    for byte in address.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$'()*+,;:@".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn headers(
    letter: &Letter,
    subject: &str,
) -> Result<lettre::message::MessageBuilder, ComposeError> {
    let mut builder = Message::builder()
        .from(mailbox(&letter.from)?)
        .to(mailbox(&letter.to)?);
    if let Some(reply_to) = &letter.reply_to {
        builder = builder.reply_to(mailbox(&Party {
            name: letter.from.name.clone(),
            address: reply_to.clone(),
        })?);
    }
    builder = builder
        .subject(subject)
        .date(SystemTime::from(letter.date))
        .header(MessageId::from(msg_id(&letter.message_id).ok_or_else(
            || {
                ComposeError::Build(format!(
                    "our own Message-ID {} is not plain ASCII",
                    letter.message_id
                ))
            },
        )?));
    if let Some(id) = letter.in_reply_to.as_ref().and_then(msg_id) {
        builder = builder.header(InReplyTo::from(id));
    }
    let references: Vec<String> = letter.references.iter().filter_map(msg_id).collect();
    if !references.is_empty() {
        builder = builder.header(References::from(references.join(" ")));
    }
    // RFC 3834: answers to a player's mail are auto-replied, the rest
    // (deadlines, the opponent's move) auto-generated; either way no
    // well-behaved responder answers us back.
    let auto = if letter.in_reply_to.is_some() {
        "auto-replied"
    } else {
        "auto-generated"
    };
    // RFC 2369: the mails a player chose to get in bulk say how to stop
    // them. The digest: a mail to its own reply address with the subject
    // `notify each` (per-move mails instead; see service/inbox/digest.rs).
    // With an https `[web] base_url`, the digest and the announcements
    // also carry a one-click link (RFC 8058: `List-Unsubscribe-Post`, a
    // POST to the link is the whole of it; the DKIM signature covers
    // both headers). Game mails have none: a game cannot be unsubscribed
    // from, and Gmail and Yahoo ask it of bulk mail only.
    let mut ways = Vec::new();
    if let Some(link) = &letter.unsubscribe {
        ways.push(format!("<{}>", one_line(link)));
    }
    if let (LetterKind::Digest { .. }, Some(reply_to)) = (&letter.kind, &letter.reply_to) {
        ways.push(format!(
            "<mailto:{}?subject=notify%20each>",
            mailto_address(reply_to.as_str())
        ));
    }
    if !ways.is_empty() {
        builder = builder.raw_header(raw_header("List-Unsubscribe", &ways.join(", "))?);
    }
    if letter.unsubscribe.is_some() {
        builder = builder.raw_header(raw_header(
            "List-Unsubscribe-Post",
            "List-Unsubscribe=One-Click",
        )?);
    }
    // X-Loop names us: an auto-responder that copies it into its reply (as
    // procmail-style ones do) sends us back a mail we drop unanswered.
    builder = builder
        .raw_header(raw_header("Auto-Submitted", auto)?)
        .raw_header(raw_header("X-Auto-Response-Suppress", "All")?)
        .raw_header(raw_header("X-Loop", letter.from.address.as_str())?);
    Ok(builder)
}
