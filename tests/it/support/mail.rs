//! Mail in both directions: ours as a test reads it, players' as their
//! clients write it.

use mail_parser::MessageParser;

/// One of our mails as the test reads it.
#[derive(Debug, Clone)]
pub struct Sent {
    /// Its outbox key.
    pub key: String,
    /// The envelope recipient.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The Reply-To address, if any.
    pub reply_to: Option<String>,
    /// The Message-ID (without `<>`).
    pub message_id: String,
    /// The In-Reply-To (without `<>`), if any.
    pub in_reply_to: Option<String>,
    /// The text part.
    pub text: String,
    /// The HTML part.
    pub html: String,
    /// The whole mail.
    pub raw: Vec<u8>,
}

impl Sent {
    /// Reads one of our mails.
    pub fn parse(key: &str, to: &str, raw: &[u8]) -> Sent {
        let msg = MessageParser::default()
            .parse(raw)
            .expect("our mails parse");
        Sent {
            key: key.to_string(),
            to: to.to_string(),
            subject: msg.subject().unwrap_or("").to_string(),
            reply_to: msg
                .reply_to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .map(str::to_string),
            message_id: msg.message_id().unwrap_or("").to_string(),
            in_reply_to: msg.in_reply_to().as_text().map(str::to_string),
            text: msg.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
            html: msg.body_html(0).map(|t| t.into_owned()).unwrap_or_default(),
            raw: raw.to_vec(),
        }
    }

    /// A player's reply to this mail as a mail client writes it: to its
    /// Reply-To, a "Re:" subject, threaded, `text` above the quoted mail;
    /// `message_id` is the reply's own (`local@domain`).
    pub fn reply(&self, from: &str, text: &str, message_id: &str) -> Vec<u8> {
        let parent = format!("<{}>", self.message_id);
        let quoted: String = self.text.lines().map(|l| format!("> {l}\r\n")).collect();
        format!(
            "From: {from}\r\nTo: {to}\r\nSubject: Re: {subject}\r\n\
             Message-ID: <{message_id}>\r\nIn-Reply-To: {parent}\r\n\
             References: {parent}\r\nMIME-Version: 1.0\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\
             {text}\r\n\r\n{from} wrote:\r\n{quoted}",
            to = self.reply_to.as_deref().unwrap_or_default(),
            subject = self.subject,
        )
        .into_bytes()
    }

    /// A header's raw value, trimmed; empty when absent.
    pub fn header(&self, name: &str) -> String {
        MessageParser::default()
            .parse(&self.raw)
            .and_then(|m| m.header_raw(name).map(|v| v.trim().to_string()))
            .unwrap_or_default()
    }
}

/// A player's mail as a client writes it: plain text, UTF-8, CRLF.
#[derive(Debug, Clone)]
pub struct Mail {
    from: String,
    to: String,
    subject: String,
    body: String,
    message_id: String,
    date: Option<String>,
}

impl Mail {
    /// A mail from `from` to `to` with a fresh Message-ID and a fixed Date.
    pub fn new(from: &str, to: &str) -> Mail {
        Mail {
            from: from.into(),
            to: to.into(),
            subject: "Re: [dopis]".into(),
            body: String::new(),
            message_id: format!("{:016x}@players.test", rand::random::<u64>()),
            date: Some("Sun, 29 Nov 2026 12:00:00 +0000".into()),
        }
    }

    /// Its subject.
    pub fn subject(mut self, subject: &str) -> Mail {
        self.subject = subject.into();
        self
    }

    /// Its text.
    pub fn body(mut self, body: &str) -> Mail {
        self.body = body.into();
        self
    }

    /// Its Date header (RFC 2822), or none.
    pub fn date(mut self, date: Option<&str>) -> Mail {
        self.date = date.map(str::to_string);
        self
    }

    /// The mail as it reaches the mailbox.
    pub fn bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "From: {}\r\nTo: {}\r\nSubject: {}\r\nMessage-ID: <{}>\r\n",
            self.from, self.to, self.subject, self.message_id
        );
        if let Some(date) = &self.date {
            head.push_str(&format!("Date: {date}\r\n"));
        }
        head.push_str("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n");
        format!("{head}\r\n{}\r\n", self.body).into_bytes()
    }
}
