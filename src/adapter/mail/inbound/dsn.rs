//! Reading a bounce: which of our recipients failed for good, and which of
//! our mails came back.
//!
//! A delivery status notification (RFC 3464) is a `multipart/report;
//! report-type=delivery-status` whose `message/delivery-status` part holds
//! one block of fields per recipient (`Final-Recipient`, `Original-Recipient`,
//! `Action`, `Status`), usually followed by the returned mail or its headers.
//! Exim adds `X-Failed-Recipients` to its bounces, also in its older plain
//! text form. A hard bounce is `Action: failed` with a 5.x.x status (or
//! none): the address does not take mail. `delayed` and 4.x.x failures are
//! soft and do not count.

use mail_parser::{Message, MimeHeaders};

use super::MessageId;
use crate::domain::address::EmailAddress;

/// Most recipients and returned Message-IDs read from one bounce.
const MAX_ITEMS: usize = 32;

/// What a bounce says about our mail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BounceReport {
    /// Recipients whose delivery failed for good, with the status when given
    /// (e.g. `5.1.1`).
    pub failed: Vec<(EmailAddress, Option<String>)>,
    /// Recipients whose delivery was only delayed or failed for now.
    pub delayed: Vec<EmailAddress>,
    /// The Message-IDs of the mail that came back (from its returned headers),
    /// by which a bounce proves it is about a mail we sent.
    pub returned: Vec<MessageId>,
}

/// Reads the bounce report of a mail already classified as a bounce.
pub(super) fn read(message: &Message<'_>) -> BounceReport {
    let mut report = BounceReport::default();
    let mut from_dsn = false;
    for part in message.parts.iter().skip(1) {
        let Some(ct) = part.content_type() else {
            continue;
        };
        let subtype = ct.subtype().unwrap_or_default().to_ascii_lowercase();
        let is = |t: &str, s: &str| ct.ctype().eq_ignore_ascii_case(t) && subtype == s;
        if is("message", "delivery-status") || is("message", "global-delivery-status") {
            from_dsn = true;
            read_status(&String::from_utf8_lossy(part.contents()), &mut report);
        } else if ct.ctype().eq_ignore_ascii_case("text") && subtype.ends_with("822-headers")
            || ct.ctype().eq_ignore_ascii_case("message")
        {
            // The returned mail or its headers (nested messages are kept
            // opaque, so their bytes are read here as headers).
            returned_ids(&String::from_utf8_lossy(part.contents()), &mut report);
        }
    }
    if !from_dsn {
        for value in message
            .headers_raw()
            .filter(|(n, _)| n.eq_ignore_ascii_case("x-failed-recipients"))
            .map(|(_, v)| v)
        {
            for addr in value.split(',') {
                if let Ok(a) = EmailAddress::parse(addr) {
                    push(&mut report.failed, (a, None));
                }
            }
        }
    }
    // The bounce may thread to the mail it returns, too.
    for id in super::ids(message.in_reply_to())
        .into_iter()
        .chain(super::ids(message.references()))
    {
        push(&mut report.returned, id);
    }
    report
}

fn push<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if list.len() < MAX_ITEMS && !list.contains(&item) {
        list.push(item);
    }
}

/// The per-recipient blocks of a `message/delivery-status` body.
fn read_status(body: &str, report: &mut BounceReport) {
    // Blocks are separated by blank lines; the first is about the reporting
    // MTA and has no recipient, so it adds nothing.
    let mut block: Vec<(String, String)> = Vec::new();
    for line in body.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            recipient_block(&block, report);
            block.clear();
        } else if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = block.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            block.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
}

fn recipient_block(block: &[(String, String)], report: &mut BounceReport) {
    let field = |name: &str| {
        block
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    // `rfc822; alice@p.test`: the address type before the `;`.
    let address = |value: &str| {
        let addr = value.split_once(';').map_or(value, |(_, a)| a);
        EmailAddress::parse(addr.trim()).ok()
    };
    // The original recipient is the address we sent to; the final one may be
    // where a forward took it.
    let Some(recipient) = field("original-recipient")
        .and_then(address)
        .or_else(|| field("final-recipient").and_then(address))
    else {
        return;
    };
    let action = field("action").unwrap_or_default().to_ascii_lowercase();
    let status = field("status")
        .map(|s| s.split_whitespace().next().unwrap_or_default().to_string())
        .filter(|s| !s.is_empty());
    let hard = action.starts_with("failed") && status.as_deref().is_none_or(|s| s.starts_with('5'));
    if hard {
        push(&mut report.failed, (recipient, status));
    } else if action.starts_with("failed") || action.starts_with("delayed") {
        push(&mut report.delayed, recipient);
    }
}

/// The `Message-ID` header lines of returned headers.
fn returned_ids(headers: &str, report: &mut BounceReport) {
    let mut lines = headers.lines().peekable();
    while let Some(line) = lines.next() {
        if line.is_empty() {
            // The end of the returned headers: its body is not ours to read.
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if !name.trim().eq_ignore_ascii_case("message-id") {
            continue;
        }
        let mut value = value.trim().to_string();
        while lines.peek().is_some_and(|l| l.starts_with([' ', '\t'])) {
            value.push_str(lines.next().unwrap_or_default().trim());
        }
        if let Some(id) = MessageId::parse(&value) {
            push(&mut report.returned, id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(a: &str) -> EmailAddress {
        EmailAddress::parse(a).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn each_recipient_block_is_hard_soft_or_nothing() {
        let mut report = BounceReport::default();
        read_status(
            "Reporting-MTA: dns; mx.p.test\n\n\
             Final-Recipient: rfc822; alice@p.test\nAction: failed\nStatus: 5.1.1\n\n\
             Final-Recipient: rfc822; bob@p.test\nOriginal-Recipient: rfc822;Bob@Q.test\n\
             Action: failed\nStatus: 5.2.1 (disabled)\n\n\
             Final-Recipient: rfc822; carol@p.test\nAction: delayed\nStatus: 4.4.1\n\n\
             Final-Recipient: rfc822; dora@p.test\nAction: failed\nStatus: 4.2.2\n\n\
             Final-Recipient: rfc822; eve@p.test\nAction: delivered\nStatus: 2.0.0\n\n\
             Final-Recipient: rfc822;\n frank@p.test\nAction: Failed\n",
            &mut report,
        );
        assert_eq!(
            report.failed,
            vec![
                (addr("alice@p.test"), Some("5.1.1".into())),
                (addr("bob@q.test"), Some("5.2.1".into())),
                (addr("frank@p.test"), None),
            ]
        );
        assert_eq!(
            report.delayed,
            vec![addr("carol@p.test"), addr("dora@p.test")]
        );
    }

    #[test]
    fn returned_headers_give_the_message_ids_of_our_mail() {
        let mut report = BounceReport::default();
        returned_ids(
            "From: dopis <chess@p.test>\nMessage-ID:\n <dopis.g4.abc@p.test>\nSubject: x\n\n\
             Message-ID: <in.the.body@p.test>\n",
            &mut report,
        );
        let ids: Vec<&str> = report.returned.iter().map(MessageId::as_str).collect();
        assert_eq!(ids, vec!["dopis.g4.abc@p.test"]);
    }
}
