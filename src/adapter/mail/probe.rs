//! The probe mail of `dopis doctor`: one mail to one of our own reply
//! addresses, to see that such mail reaches the mailbox (pure).
//!
//! It carries `X-Dopis-Doctor: NONCE.MAC`, the MAC an HMAC of the server
//! secret over the nonce ([`crate::adapter::mail::route::Tokens::probe_mark`]). A
//! running `dopis serve` that reads it before the doctor removes it drops it
//! without a trace or an answer, but only when the MAC verifies: a stranger
//! cannot make a mail vanish by adding the header, as they do not know the
//! secret. It also says `Auto-Submitted: auto-generated`, so that even a
//! daemon with another secret never answers it (RFC 3834).

use chrono::{DateTime, Utc};

use crate::domain::address::EmailAddress;

/// The header field that marks a probe.
pub const HEADER: &str = "X-Dopis-Doctor";

/// The probe mail, as sent: from `from` to `to`, marked with `mark`.
pub fn compose(from: &EmailAddress, to: &EmailAddress, mark: &str, now: DateTime<Utc>) -> Vec<u8> {
    let nonce = mark.split('.').next().unwrap_or(mark);
    format!(
        "From: dopis doctor <{from}>\r\n\
         To: <{to}>\r\n\
         Subject: dopis doctor: does mail to a reply address arrive?\r\n\
         Date: {date}\r\n\
         Message-ID: <doctor.{nonce}@{domain}>\r\n\
         Auto-Submitted: auto-generated\r\n\
         {HEADER}: {mark}\r\n\
         MIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 7bit\r\n\
         \r\n\
         `dopis doctor` sent this mail to one of the server's reply addresses, to\r\n\
         check that such mail reaches the mailbox. It removes the mail when it\r\n\
         finds it; if it is still here, it may be deleted.\r\n",
        date = now.to_rfc2822(),
        domain = from.domain(),
    )
    .into_bytes()
}

/// The value of the probe header of a raw mail, if it has one (only the
/// header section is read).
pub fn mark_in(raw: &[u8]) -> Option<String> {
    let end = header_end(raw);
    let head = mail_parser::MessageParser::new().parse_headers(&raw[..end])?;
    head.header_raw(HEADER).map(|v| v.trim().to_string())
}

/// Where the header section ends (the whole mail when no blank line).
fn header_end(raw: &[u8]) -> usize {
    let crlf = raw.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
    let lf = raw.windows(2).position(|w| w == b"\n\n").map(|i| i + 2);
    match (crlf, lf) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => raw.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::mail::route::Tokens;

    fn at() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap()
    }

    #[test]
    fn a_probe_carries_a_mark_that_only_our_secret_verifies() {
        let ours = Tokens::new("our secret");
        let theirs = Tokens::new("another secret");
        let mark = ours.probe_mark("n0nce");
        let raw = compose(
            &EmailAddress::parse("chess@club.example").unwrap(),
            &EmailAddress::parse("chess+g0.abc@club.example").unwrap(),
            &mark,
            at(),
        );
        let read = mark_in(&raw).unwrap();
        assert_eq!(read, mark);
        assert!(ours.is_probe_mark(&read));
        assert!(!theirs.is_probe_mark(&read));
        let text = String::from_utf8(raw).unwrap();
        assert!(text.contains("Auto-Submitted: auto-generated"), "{text}");
    }

    #[test]
    fn forged_or_broken_marks_do_not_verify() {
        let tokens = Tokens::new("our secret");
        let good = tokens.probe_mark("n0nce");
        let (nonce, mac) = good.rsplit_once('.').unwrap();
        let mut flipped = mac.to_string();
        flipped.replace_range(0..1, if mac.starts_with('0') { "1" } else { "0" });
        for forged in [
            String::new(),
            "n0nce".to_string(),
            format!("other.{mac}"),
            format!("{nonce}.{flipped}"),
            format!("{nonce}.{}", &mac[..8]),
            format!(".{mac}"),
        ] {
            assert!(!tokens.is_probe_mark(&forged), "{forged}");
        }
        assert!(
            tokens.is_probe_mark(
                &good
                    .to_ascii_uppercase()
                    .replace(&nonce.to_ascii_uppercase(), nonce)
            )
        );
    }

    #[test]
    fn the_mark_is_read_from_the_header_only() {
        assert_eq!(mark_in(b"Subject: hi\r\n\r\nX-Dopis-Doctor: a.b\r\n"), None);
        assert_eq!(
            mark_in(b"Subject: hi\nX-Dopis-Doctor:  a.b \n\nbody"),
            Some("a.b".into())
        );
        assert_eq!(mark_in(b""), None);
        assert_eq!(mark_in(&[0xff, 0xfe, 0x00]), None);
    }
}
