//! Sending into a local Maildir: each mail is written to `tmp/` and renamed
//! into `new/`, so a reader never sees half a mail.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::{MailerError, SendError};
use crate::domain::address::EmailAddress;

/// Mails written by this process, for unique file names.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// Writes mail into a Maildir.
#[derive(Debug)]
pub struct MaildirMailer {
    dir: PathBuf,
}

impl MaildirMailer {
    /// Opens the Maildir at `dir`, creating `tmp/`, `new/` and `cur/` if missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<MaildirMailer, MailerError> {
        let dir = dir.into();
        for sub in ["tmp", "new", "cur"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path)
                .map_err(|source| MailerError::Maildir { path, source })?;
        }
        Ok(MaildirMailer { dir })
    }

    /// The Maildir's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the mail to `new/` with the envelope in front of it, as a
    /// delivery agent would: `Return-Path: <from>` and one
    /// `X-Envelope-To: <to>` per recipient (Bcc recipients appear nowhere else).
    pub async fn send(
        &self,
        from: &EmailAddress,
        to: &[EmailAddress],
        raw: &[u8],
    ) -> Result<(), SendError> {
        let name = unique_name();
        let tmp = self.dir.join("tmp").join(&name);
        let new = self.dir.join("new").join(&name);
        let mut mail = envelope_headers(from, to, raw);
        mail.extend_from_slice(raw);
        let failed = |what: &str, e: std::io::Error| {
            SendError::Transient(format!(
                "cannot {what} {} in the Maildir {}: {e}",
                name,
                self.dir.display()
            ))
        };
        // Plain calls: writing a mail to a local file takes microseconds,
        // where `tokio::fs` hands each call to a blocking thread and back
        // (two of them a mail, issue 27).
        std::fs::write(&tmp, &mail).map_err(|e| failed("write", e))?;
        if let Err(e) = std::fs::rename(&tmp, &new) {
            let _ = std::fs::remove_file(&tmp);
            return Err(failed("move into new/", e));
        }
        Ok(())
    }
}

/// A name no other writer uses: this process's id and count, plus randomness
/// for processes that reuse an id.
fn unique_name() -> String {
    let count = WRITTEN.fetch_add(1, Ordering::Relaxed);
    format!(
        "dopis.P{}Q{count}R{:016x}",
        std::process::id(),
        rand::random::<u64>()
    )
}

/// The envelope as header lines, with the line ending the mail itself uses.
fn envelope_headers(from: &EmailAddress, to: &[EmailAddress], raw: &[u8]) -> Vec<u8> {
    let first_newline = raw.iter().position(|b| *b == b'\n');
    let crlf = first_newline
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| raw.get(i))
        == Some(&b'\r');
    let eol = if crlf { "\r\n" } else { "\n" };
    let mut head = format!("Return-Path: <{from}>{eol}");
    for rcpt in to {
        head.push_str(&format!("X-Envelope-To: <{rcpt}>{eol}"));
    }
    head.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(a: &str) -> EmailAddress {
        EmailAddress::parse(a).unwrap()
    }

    #[test]
    fn envelope_lines_use_the_mails_own_line_ending() {
        let from = addr("chess@example.org");
        let to = [addr("alice@example.org"), addr("bob@example.org")];
        let cases: [(&[u8], &str); 3] = [
            (b"Subject: x\r\n\r\nbody\r\n", "\r\n"),
            (b"Subject: x\n\nbody\n", "\n"),
            (b"", "\n"),
        ];
        for (raw, eol) in cases {
            let head = String::from_utf8(envelope_headers(&from, &to, raw)).unwrap();
            assert_eq!(
                head,
                format!(
                    "Return-Path: <chess@example.org>{eol}X-Envelope-To: <alice@example.org>{eol}X-Envelope-To: <bob@example.org>{eol}"
                )
            );
        }
    }

    #[test]
    fn names_never_repeat() {
        let names: std::collections::HashSet<String> = (0..1000).map(|_| unique_name()).collect();
        assert_eq!(names.len(), 1000);
    }
}
