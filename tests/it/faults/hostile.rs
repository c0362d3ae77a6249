//! The hostile corpus: generated bad mail of every kind an attacker, a
//! broken client or a machine can send (NUL bytes, two From, header
//! injection, auto-replies and our own mail sent back, malformed MIME, huge
//! attachments (and mail over the size the mailbox reads) and HTML, random bytes, empty mails, huge move lists and
//! lines, malformed plus-addresses and forged tokens), delivered into the
//! inbox between the genuine moves of several games and read by the real
//! `dopis serve --once` until the inbox is empty.
//!
//! PRODUCT.md: "Bad input of any kind … gets a clear answer or a logged
//! refusal, never a panic, never a changed game", and "no mail loops". So:
//! no panic; every genuine move played exactly once and in order; nothing
//! else in any game changed; every bad mail recorded with what was done, or
//! kept for the admin; answers only to registered addresses, with no header
//! a sender smuggled in; no answer to a machine; the time per mail and the
//! memory of the daemon bounded (hang guards many times the figures).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use base64::Engine;
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

use super::observe::{self, Observed};
use super::play::{self, SCRIPT, Table};
use super::{Scale, figure};
use crate::club::Club;
use crate::support::TestDb;

/// One bad mail.
struct Hostile {
    class: &'static str,
    raw: Vec<u8>,
    /// A machine's mail (auto-reply, bounce, list, our own sent back): it
    /// must never be answered.
    automatic: bool,
    /// Its Message-ID, when it has a readable one.
    message_id: Option<String>,
}

/// Every kind of bad mail the corpus holds.
const CLASSES: [&str; 29] = [
    "NUL in From",
    "NUL in other headers and the body",
    "two From",
    "unclosed <",
    "header injection in the display name",
    "header injection in the subject",
    "Exchange-style auto-reply",
    "RFC 3834, list and bounce mail",
    "our X-Loop sent back",
    "bad MIME boundary",
    "unterminated MIME part",
    "deep multipart nesting",
    "thousands of MIME parts",
    "base64 garbage",
    "quoted-printable garbage",
    "unknown charset",
    "mislabelled charset",
    "8-bit bytes in headers",
    "20 MB attachment",
    "mail over the 25 MB cap",
    "250 kB HTML tag soup and nesting",
    "random bytes",
    "empty mail",
    "huge move list",
    "huge command line",
    "huge subject",
    "very long line",
    "malformed plus-address",
    "forged token",
];

/// What a generator needs to know of the games now.
struct Now<'a> {
    tables: &'a [Table],
    plies: &'a BTreeMap<i64, usize>,
    addresses: &'a HashMap<(i64, String), String>,
}

/// One game as the generator sees it: who moves, who waits, their reply
/// addresses, and the move the player to move is about to make.
struct Seen {
    game: i64,
    mover: String,
    waiting: String,
    mover_address: String,
    waiting_address: String,
    /// A move legal now: what a forged mail would like to play.
    next: &'static str,
}

impl Now<'_> {
    fn pick(&self, rng: &mut StdRng) -> Seen {
        let t = &self.tables[rng.random_range(0..self.tables.len())];
        let plies = self.plies.get(&t.game).copied().unwrap_or(0);
        let address = |p: &str| {
            self.addresses
                .get(&(t.game, p.to_string()))
                .cloned()
                .unwrap_or_else(|| panic!("no reply address of {p} in game {}", t.game))
        };
        Seen {
            game: t.game,
            mover: t.to_move(plies).to_string(),
            waiting: t.waiting(plies).to_string(),
            mover_address: address(t.to_move(plies)),
            waiting_address: address(t.waiting(plies)),
            next: SCRIPT[plies.min(SCRIPT.len() - 1)],
        }
    }
}

/// The token part of a reply address `chess+g1.TOKEN@chess.test`.
fn token_of(address: &str) -> &str {
    address
        .split_once('.')
        .and_then(|(_, rest)| rest.split_once('@'))
        .map(|(t, _)| t)
        .unwrap_or("")
}

fn head(from: &str, to: &str, subject: &str, id: &str, extra: &str) -> String {
    // A Date of its own (from the mail's number in the id), so that two bad
    // mails with the same text are two mails, not one sent twice.
    let n: u64 = id
        .trim_start_matches('h')
        .split('.')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\
         Date: Mon, 2 Mar 2026 {:02}:{:02}:{:02} +0000\r\n{extra}",
        n / 3600 % 24,
        n / 60 % 60,
        n % 60
    )
}

fn plain(from: &str, to: &str, subject: &str, id: &str, extra: &str, body: &str) -> Vec<u8> {
    format!(
        "{}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        head(from, to, subject, id, extra)
    )
    .into_bytes()
}

fn b64(text: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; n];
    rng.fill_bytes(&mut bytes);
    bytes
}

const STRANGER: &str = "eve@evil.test";
const INJECTED: &str = "Bcc: eve@evil.test\r\nX-Injected: yes";

/// A multipart body nested `depth` deep with `status` innermost.
fn nested(depth: usize) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for d in 0..depth {
        if d > 0 {
            open.push_str(&format!("--n{}\r\n", d - 1));
        }
        open.push_str(&format!(
            "Content-Type: multipart/mixed; boundary=\"n{d}\"\r\n\r\n"
        ));
        close = format!("\r\n--n{d}--\r\n{close}");
    }
    format!(
        "{open}--n{}\r\nContent-Type: text/plain\r\n\r\nstatus{close}",
        depth.saturating_sub(1)
    )
}

/// A mail of `head` with `text` and a photo attached, `mb` megabytes in all.
fn with_attachment(rng: &mut StdRng, head: String, text: &str, mb: usize) -> Vec<u8> {
    let line = b64(&random_bytes(rng, 57));
    let lines = mb * 1024 * 1024 / (line.len() + 2);
    let mut raw = format!(
        "{head}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"big\"\r\n\r\n\
         --big\r\nContent-Type: text/plain\r\n\r\n{text}\r\n\
         --big\r\nContent-Type: image/jpeg; name=\"holiday.jpg\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n"
    );
    raw.reserve(lines * (line.len() + 2) + 16);
    for _ in 0..lines {
        raw.push_str(&line);
        raw.push_str("\r\n");
    }
    raw.push_str("--big--\r\n");
    raw.into_bytes()
}

/// Generates bad mail number `serial` of `class`.
fn generate(class: &'static str, serial: usize, rng: &mut StdRng, now: &Now<'_>) -> Hostile {
    let s = now.pick(rng);
    let id = format!("h{serial}.{:08x}@hostile.test", rng.random::<u32>());
    let subject = format!("Re: [dopis #{}] Your move", s.game);
    let variant = rng.random_range(0..6usize);
    let mut automatic = false;
    let mut message_id = Some(id.clone());
    let raw: Vec<u8> = match class {
        "NUL in From" => {
            let from = match variant % 3 {
                0 => format!("stranger{serial}\0@nowhere.test"),
                1 => format!("{}\0evil", s.mover),
                _ => format!("\"Al\0ice\" <{}>", s.mover),
            };
            plain(&from, &s.mover_address, &subject, &id, "", s.next)
        }
        "NUL in other headers and the body" => match variant % 3 {
            0 => plain(
                &s.waiting,
                &s.waiting_address,
                &format!("{subject}\0 hi"),
                &id,
                "X-Junk: \0\0\0\r\n",
                &format!("{}\0\0status", s.next),
            ),
            1 => plain(
                STRANGER,
                &format!("{}\0evil", s.mover_address),
                &subject,
                &id,
                "",
                s.next,
            ),
            _ => {
                message_id = None;
                format!(
                    "From: {}\r\nTo: {}\r\nSubject: {subject}\r\nMessage-ID: <{id}\0x>\r\n\r\nstatus\0\r\n",
                    s.waiting, s.waiting_address
                )
                .into_bytes()
            }
        },
        "two From" => {
            let from_lines = match variant % 3 {
                0 => format!("From: {}\r\nFrom: {STRANGER}\r\n", s.mover),
                1 => format!("From: {STRANGER}\r\nFrom: {}\r\n", s.mover),
                _ => format!("From: {STRANGER}, {}\r\n", s.mover),
            };
            format!(
                "{from_lines}To: {}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\r\n{}\r\n",
                s.mover_address, s.next
            )
            .into_bytes()
        }
        "unclosed <" => {
            let from = match variant % 3 {
                0 => format!("<{}", s.mover),
                1 => format!("Alice <{}", s.mover),
                _ => format!("\"Alice <{}", s.mover),
            };
            plain(&from, &s.mover_address, &subject, &id, "", s.next)
        }
        "header injection in the display name" => {
            let from = match variant % 3 {
                0 => format!(
                    "=?utf-8?b?{}?= <{}>",
                    b64(format!("Alice\r\n{INJECTED}\r\n").as_bytes()),
                    s.waiting
                ),
                1 => format!("\"Alice\r{INJECTED}\" <{}>", s.waiting),
                _ => format!(
                    "=?utf-8?q?Al=00ice=0D=0ABcc=3A_eve=40evil=2Etest?= <{}>",
                    s.waiting
                ),
            };
            plain(&from, &s.waiting_address, &subject, &id, "", "status")
        }
        "header injection in the subject" => {
            let subject = match variant % 3 {
                0 => format!(
                    "=?utf-8?b?{}?=",
                    b64(format!("{subject}\r\n{INJECTED}").as_bytes())
                ),
                1 => format!("{subject}\r{INJECTED}"),
                _ => format!("=?utf-8?q?{}=00=0D=0ABcc=3A_eve=40evil=2Etest?=", s.game),
            };
            // A text the arbiter rejects, so that the answer names the mail.
            plain(&s.waiting, &s.waiting_address, &subject, &id, "", "zz9")
        }
        "Exchange-style auto-reply" => {
            automatic = true;
            let (subject, extra) = match variant {
                0 => (
                    format!("Automatic reply: [dopis #{}] Your move", s.game),
                    "X-Auto-Response-Suppress: All\r\n".to_string(),
                ),
                1 => (
                    format!("RE: [dopis #{}] Your move", s.game),
                    format!("X-MS-Exchange-Inbox-Rules-Loop: {}\r\n", s.mover),
                ),
                2 => (
                    format!("Re: [dopis #{}] Your move", s.game),
                    "X-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent\r\n".to_string(),
                ),
                3 => (
                    format!("Réponse automatique : [dopis #{}] Your move", s.game),
                    String::new(),
                ),
                4 => (
                    format!("Samodejni odgovor: [dopis #{}] Na potezi ste", s.game),
                    String::new(),
                ),
                _ => (
                    format!("Abwesenheitsnotiz: [dopis #{}] Sie sind am Zug", s.game),
                    "X-Auto-Response-Suppress: DR, RN, NRN, OOF, AutoReply\r\n".to_string(),
                ),
            };
            plain(
                &s.mover,
                &s.mover_address,
                &subject,
                &id,
                &extra,
                &format!("I am out of the office until Monday.\r\n\r\n{}", s.next),
            )
        }
        "RFC 3834, list and bounce mail" => {
            automatic = true;
            match variant {
                0 => plain(
                    &s.mover,
                    &s.mover_address,
                    &subject,
                    &id,
                    "Auto-Submitted: auto-replied\r\n",
                    s.next,
                ),
                1 => plain(
                    &s.mover,
                    &s.mover_address,
                    &subject,
                    &id,
                    "Precedence: bulk\r\n",
                    s.next,
                ),
                2 => plain(
                    &s.mover,
                    &s.mover_address,
                    &subject,
                    &id,
                    "List-Id: <chess.lists.test>\r\nList-Unsubscribe: <mailto:x@lists.test>\r\n",
                    s.next,
                ),
                3 => plain(
                    &s.mover,
                    &s.mover_address,
                    &subject,
                    &id,
                    "Return-Path: <>\r\n",
                    s.next,
                ),
                4 => format!(
                    "Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.players.test\r\nTo: chess@chess.test\r\n\
                     Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <{id}>\r\n\
                     MIME-Version: 1.0\r\n\
                     Content-Type: multipart/report; report-type=delivery-status; boundary=\"d\"\r\n\r\n\
                     --d\r\nContent-Type: text/plain\r\n\r\nnot delivered\r\n\
                     --d\r\nContent-Type: message/delivery-status\r\n\r\n\
                     Final-Recipient: rfc822; {}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n\
                     --d\r\nContent-Type: text/rfc822-headers\r\n\r\n\
                     Message-ID: <dopis.g{}.p0.forged{serial}@chess.test>\r\n\r\n--d--\r\n",
                    s.waiting, s.game
                )
                .into_bytes(),
                _ => format!(
                    "From: {}\r\nTo: {}\r\nSubject: Read: [dopis #{}] Your move\r\nMessage-ID: <{id}>\r\n\
                     MIME-Version: 1.0\r\n\
                     Content-Type: multipart/report; report-type=disposition-notification; boundary=\"r\"\r\n\r\n\
                     --r\r\nContent-Type: text/plain\r\n\r\n{}\r\n--r--\r\n",
                    s.mover, s.mover_address, s.game, s.next
                )
                .into_bytes(),
            }
        }
        "our X-Loop sent back" => {
            automatic = true;
            plain(
                &s.mover,
                &s.mover_address,
                &format!("[dopis #{}] Your move", s.game),
                &id,
                "X-Loop: chess@chess.test\r\n",
                &format!("Your move.\r\n\r\n{}", s.next),
            )
        }
        "bad MIME boundary" => {
            let (ctype, parts) = match variant % 4 {
                0 => (
                    "multipart/mixed; boundary=\"abc\"",
                    "--xyz\r\n\r\nstatus\r\n--xyz--",
                ),
                1 => ("multipart/mixed", "--\r\n\r\nstatus\r\n----"),
                2 => (
                    "multipart/alternative; boundary=\"a b\\\"c\"",
                    "--a b\"c\r\n\r\nstatus\r\n",
                ),
                _ => (
                    "multipart/mixed; boundary=\"LONG\"",
                    "--LONG\r\nContent-Type: text/plain\r\n\r\nstatus\r\n--LONG--",
                ),
            };
            let long = "b".repeat(300);
            let ctype = ctype.replace("LONG", &long);
            let parts = parts.replace("LONG", &long);
            format!(
                "{}MIME-Version: 1.0\r\nContent-Type: {ctype}\r\n\r\n{parts}\r\n",
                head(&s.waiting, &s.waiting_address, &subject, &id, "")
            )
            .into_bytes()
        }
        "unterminated MIME part" => {
            let cut = b64(&random_bytes(rng, 3000));
            format!(
                "{}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"u\"\r\n\r\n\
                 --u\r\nContent-Type: text/plain\r\n\r\nstatus\r\n\
                 --u\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n{}",
                head(&s.waiting, &s.waiting_address, &subject, &id, ""),
                &cut[..cut.len() / 2 + 1]
            )
            .into_bytes()
        }
        "deep multipart nesting" => {
            let depth = [3, 9, 11, 40, 70, 500][variant];
            format!(
                "{}MIME-Version: 1.0\r\n{}",
                head(&s.waiting, &s.waiting_address, &subject, &id, ""),
                nested(depth)
            )
            .into_bytes()
        }
        "thousands of MIME parts" => {
            let n = [99, 101, 150, 1000, 3000, 6000][variant];
            let mut raw = format!(
                "{}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"p\"\r\n\r\n",
                head(&s.waiting, &s.waiting_address, &subject, &id, "")
            );
            for i in 0..n {
                raw.push_str(&format!(
                    "--p\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n"
                ));
            }
            raw.push_str("--p--\r\n");
            raw.into_bytes()
        }
        "base64 garbage" => {
            let mut raw = format!(
                "{}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
                 Content-Transfer-Encoding: base64\r\n\r\n",
                head(&s.waiting, &s.waiting_address, &subject, &id, "")
            )
            .into_bytes();
            match variant % 3 {
                0 => raw.extend_from_slice(b"!!!$$$%%%^^^ ZT=Q ==== c3RhdHVz=\r\n"),
                1 => raw.extend(random_bytes(rng, 2000)),
                _ => raw.extend_from_slice(b"c3RhdHV\r\n=\r\n==\r\nA\r\n"),
            }
            raw
        }
        "quoted-printable garbage" => {
            let mut raw = format!(
                "{}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
                 Content-Transfer-Encoding: quoted-printable\r\n\r\n",
                head(&s.waiting, &s.waiting_address, &subject, &id, "")
            );
            match variant % 3 {
                0 => raw.push_str("sta=ZZtus=G1=\r\n=\r\n=0"),
                1 => raw.push_str(&"=\r\n".repeat(5000)),
                _ => raw.push_str(&"=FF=FE=00".repeat(2000)),
            }
            raw.into_bytes()
        }
        "unknown charset" => {
            let (charset, body): (&str, &[u8]) = match variant % 5 {
                0 => ("x-no-such-charset", b"status"),
                1 => ("", b"status"),
                2 => ("utf-7", b"+AGUANA- status +ZeVnLIqe-"),
                3 => ("utf-16", b"\xff\xfes\x00t\x00a\x00"),
                _ => ("iso-2022-jp", b"\x1b$B\x1b(J\x1b$@garbage\x1b"),
            };
            let mut raw = format!(
                "{}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=\"{charset}\"\r\n\r\n",
                head(&s.waiting, &s.waiting_address, &subject, &id, "")
            )
            .into_bytes();
            raw.extend_from_slice(body);
            raw
        }
        "mislabelled charset" => {
            let (charset, body): (&str, Vec<u8>) = match variant % 4 {
                0 => ("utf-8", b"Dobr\xfd tah: \xe8\xb9\xbe status".to_vec()),
                1 => (
                    "us-ascii",
                    "Lieber Gegner, Zug: ♘f3 status".as_bytes().to_vec(),
                ),
                2 => (
                    "utf-8",
                    "status"
                        .encode_utf16()
                        .flat_map(|u| u.to_le_bytes())
                        .collect(),
                ),
                _ => ("iso-8859-2", b"\x93status\x94 \x85".to_vec()),
            };
            let mut raw = format!(
                "{}MIME-Version: 1.0\r\nContent-Type: text/plain; charset={charset}\r\n\
                 Content-Transfer-Encoding: 8bit\r\n\r\n",
                head(&s.waiting, &s.waiting_address, &subject, &id, "")
            )
            .into_bytes();
            raw.extend(body);
            raw
        }
        "8-bit bytes in headers" => {
            let mut raw = Vec::new();
            match variant % 4 {
                0 => {
                    raw.extend_from_slice(b"From: \xc5\xbdan \xc4\x8cop <");
                    raw.extend_from_slice(s.waiting.as_bytes());
                    raw.extend_from_slice(b">\r\nSubject: \xe8 Re: \xff\xfe [dopis]\r\n");
                }
                1 => {
                    raw.extend_from_slice(b"From: \xff\xfe@evil.test\r\nSubject: x\r\n");
                }
                2 => {
                    raw.extend_from_slice(format!("From: {}\r\n", s.waiting).as_bytes());
                    raw.extend_from_slice(b"S\xc3\xbcbject: \xe9t\xe9\r\nX-\xff: \xfe\r\n");
                }
                _ => {
                    raw.extend_from_slice(format!("From: {STRANGER}\r\n").as_bytes());
                    raw.extend_from_slice("Subject: Šah ♞ 國際象棋\r\n".as_bytes());
                }
            }
            raw.extend_from_slice(
                format!(
                    "To: {}\r\nMessage-ID: <{id}>\r\n\r\nstatus\r\n",
                    s.waiting_address
                )
                .as_bytes(),
            );
            raw
        }
        "20 MB attachment" => with_attachment(
            rng,
            head(&s.waiting, &s.waiting_address, &subject, &id, ""),
            "status",
            20,
        ),
        "mail over the 25 MB cap" => {
            if variant % 2 == 0 {
                // A player's: told it was not read.
                let h = head(&s.waiting, &s.waiting_address, &subject, &id, "");
                with_attachment(rng, h, "status", 26)
            } else {
                let h = head(STRANGER, &s.mover_address, &subject, &id, "");
                with_attachment(rng, h, s.next, 26)
            }
        }
        "250 kB HTML tag soup and nesting" => {
            let soup = match variant {
                0 => format!("help {}", "<ul><li>".repeat(31_250)),
                1 => format!("{}status", "<div>".repeat(50_000)),
                2 => format!("status <!-- {}", "<p>x".repeat(60_000)),
                3 => format!("<a href=\"{}", "e4 ".repeat(80_000)),
                4 => "&#99999999;&amp&#x;&lt;<".repeat(10_000),
                _ => format!(
                    "<script>{}</script>{}",
                    s.next,
                    "<table><tr><td>".repeat(16_000)
                ),
            };
            let (from, to) = if variant % 2 == 0 {
                (s.waiting.clone(), s.waiting_address.clone())
            } else {
                (STRANGER.to_string(), s.mover_address.clone())
            };
            format!(
                "{}MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{soup}\r\n",
                head(&from, &to, &subject, &id, "")
            )
            .into_bytes()
        }
        "random bytes" => {
            message_id = None;
            match variant % 3 {
                0 => {
                    let n = rng.random_range(1..65_536);
                    random_bytes(rng, n)
                }
                1 => {
                    let mut raw = format!(
                        "From: {}\r\nTo: {}\r\nSubject: {subject}\r\n\r\n",
                        s.waiting, s.waiting_address
                    )
                    .into_bytes();
                    raw.extend(random_bytes(rng, 4096));
                    raw
                }
                _ => {
                    let mut raw = b"Xx: ".to_vec();
                    raw.extend(random_bytes(rng, 4096));
                    raw
                }
            }
        }
        "empty mail" => {
            message_id = None;
            // Each mail unique (a mail with the same bytes is the same
            // mail): zero bytes only the first time.
            match variant % 3 {
                _ if serial < CLASSES.len() => Vec::new(),
                0 => " \r\n".repeat(serial + 1).into_bytes(),
                1 => format!("X-Serial: {serial}\r\n\r\n").into_bytes(),
                _ => format!(
                    "From: {}\r\nTo: {}\r\nX-Serial: {serial}\r\n",
                    s.waiting, s.waiting_address
                )
                .into_bytes(),
            }
        }
        "huge move list" => {
            let mut list = String::new();
            let mut n = 1;
            while list.len() < 200_000 {
                list.push_str(&format!("{n}. e4 e5 {}. Nf3 Nc6 ", n + 1));
                n += 2;
            }
            if variant % 2 == 0 {
                plain(&s.waiting, &s.waiting_address, &subject, &id, "", &list)
            } else {
                let conditional = format!("if {list}");
                plain(STRANGER, &s.mover_address, &subject, &id, "", &conditional)
            }
        }
        "huge command line" => match variant % 3 {
            0 => plain(
                &s.waiting,
                &s.waiting_address,
                &subject,
                &id,
                "",
                &"status ".repeat(30_000),
            ),
            1 => plain(
                STRANGER,
                &s.mover_address,
                &subject,
                &id,
                "",
                &"resign ".repeat(30_000),
            ),
            _ => plain(
                STRANGER,
                &s.mover_address,
                &subject,
                &id,
                "",
                &format!("{} draw accept draw ", s.next).repeat(10_000),
            ),
        },
        "huge subject" => {
            let subject = if variant % 2 == 0 {
                let words: Vec<String> = (0..15_000).map(|i| format!("w{i}")).collect();
                words
                    .chunks(10)
                    .map(|c| c.join(" "))
                    .collect::<Vec<_>>()
                    .join("\r\n ")
            } else {
                "x".repeat(1_000_000)
            };
            plain(&s.waiting, &s.waiting_address, &subject, &id, "", "status")
        }
        "very long line" => {
            if variant % 2 == 0 {
                plain(
                    STRANGER,
                    &s.mover_address,
                    &subject,
                    &id,
                    "",
                    &format!("{} ", s.next).repeat(700_000),
                )
            } else {
                plain(
                    &s.waiting,
                    &s.waiting_address,
                    &subject,
                    &id,
                    &format!("X-Long: {}\r\n", "y".repeat(500_000)),
                    "status",
                )
            }
        }
        "malformed plus-address" => {
            let tok = token_of(&s.mover_address);
            let game = s.game;
            let to = match rng.random_range(0..14) {
                0 => "chess+@chess.test".to_string(),
                1 => "chess+g@chess.test".to_string(),
                2 => "chess+g.@chess.test".to_string(),
                3 => format!("chess+g{}.{tok}@chess.test", "9".repeat(40)),
                4 => format!("chess+g-{game}.{tok}@chess.test"),
                5 => format!("chess+g{game}.@chess.test"),
                6 => format!("chess+g{game}.{tok}.x@chess.test"),
                7 => format!("chess+g{game}..{tok}@chess.test"),
                8 => format!("chess++g{game}.{tok}@chess.test"),
                9 => "chess+c99999999.abcdefghij@chess.test".to_string(),
                10 => "chess+r@chess.test".to_string(),
                11 => format!("chess+gx.{tok}@chess.test"),
                12 => format!("chess+g{game}.{tok}@other.test"),
                _ => format!("chess+g{game}.{tok}@chess.test.evil.test"),
            };
            // From the player to move, with the move they are about to
            // make: a malformed address must never let it through.
            plain(&s.mover, &to, "hello", &id, "", s.next)
        }
        "forged token" => {
            let tok = token_of(&s.mover_address).to_string();
            let (from, to) = match variant {
                // The player's own address, a token made up.
                0 => (
                    s.mover.clone(),
                    format!("chess+g{}.{:010x}@chess.test", s.game, rng.random::<u64>()),
                ),
                // The right token from a stranger.
                1 => (STRANGER.to_string(), s.mover_address.clone()),
                // The opponent's token.
                2 => (s.mover.clone(), s.waiting_address.clone()),
                // One character changed.
                3 => {
                    let mut t: Vec<char> = tok.chars().collect();
                    let i = rng.random_range(0..t.len().max(1));
                    if let Some(c) = t.get_mut(i) {
                        *c = if *c == 'a' { 'b' } else { 'a' };
                    }
                    let t: String = t.into_iter().collect();
                    (s.mover.clone(), format!("chess+g{}.{t}@chess.test", s.game))
                }
                // The right token from the opponent.
                4 => (s.waiting.clone(), s.mover_address.clone()),
                // Another game's address with the mover's token.
                _ => (
                    s.mover.clone(),
                    format!("chess+g{}.{tok}@chess.test", s.game + 1),
                ),
            };
            let body = match rng.random_range(0..3) {
                0 => s.next.to_string(),
                1 => "resign".to_string(),
                _ => format!("{} draw", s.next),
            };
            plain(&from, &to, &subject, &id, "", &body)
        }
        other => panic!("no generator for {other}"),
    };
    Hostile {
        class,
        raw,
        automatic,
        message_id,
    }
}

/// A bad mail as delivered.
struct Delivered {
    name: String,
    class: &'static str,
    automatic: bool,
    message_id: Option<String>,
}

async fn a_hostile_corpus_between_real_moves_changes_no_game_and_panics_nothing(db: &TestDb) {
    let scale = Scale::from_env();
    let test = if db.url.starts_with("sqlite") {
        "hostile (SQLite)"
    } else {
        "hostile (PostgreSQL)"
    };
    let games = scale.pick(3, 6);
    let rounds = scale.pick(8, 20);
    let per_round = scale.pick(50, 60);
    let big_every = scale.pick(usize::MAX, 5);
    let seed = std::env::var("DOPIS_TEST_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    figure(test, "seed (DOPIS_TEST_FAULT_SEED)", seed);
    let mut rng = StdRng::seed_from_u64(seed);

    let club = Club::new(db);
    let tables = play::tables(&club, db, games - 1);
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let started = Instant::now();
    let mut passes: Vec<Observed> = vec![observe::serve_once(club.path(), db)];
    let before = observe::state_besides_moves(&store).await;

    let mut delivered: Vec<Delivered> = Vec::new();
    // Each genuine move's mail: (game, ply, file name).
    let mut genuine: Vec<(i64, usize, String)> = Vec::new();
    let mut serial = 0usize;
    for round in 0..rounds {
        let sent = club.sent_mails();
        let addresses = play::reply_addresses(&sent);
        let plies = play::plies(&store).await;
        let now = Now {
            tables: &tables,
            plies: &plies,
            addresses: &addresses,
        };
        let mut batch: Vec<Hostile> = Vec::new();
        for _ in 0..per_round {
            let mut class = CLASSES[serial % CLASSES.len()];
            // The big mails: one of each in the short run, every few rounds
            // in the long.
            if class.contains(" MB ") && !(round == 0 || round % big_every == 0) {
                class = "random bytes";
            }
            batch.push(generate(class, serial, &mut rng, &now));
            serial += 1;
        }
        let half = batch.len() / 2;
        let mut deliver = |h: Hostile| {
            let name = club.deliver(&h.raw);
            delivered.push(Delivered {
                name,
                class: h.class,
                automatic: h.automatic,
                message_id: h.message_id,
            });
        };
        let mut rest = batch.split_off(half);
        for h in batch {
            deliver(h);
        }
        // The genuine moves, between the bad mails.
        for t in &tables {
            let at = plies.get(&t.game).copied().unwrap_or(0);
            let mail = play::your_move_at(&sent, t.game, at)
                .unwrap_or_else(|| panic!("no 'your move' mail of game {} at ply {at}", t.game));
            let id = format!(
                "genuine.g{}.p{at}.{:08x}@players.test",
                t.game,
                rng.random::<u32>()
            );
            let name = club.deliver(&play::reply_raw(mail, t.to_move(at), SCRIPT[at], &id));
            genuine.push((t.game, at, name));
            if let Some(h) = rest.pop() {
                deliver(h);
            }
        }
        for h in rest {
            deliver(h);
        }
        // The daemon reads until the inbox is empty (a mail it could not
        // read in a pass is tried again in the next, then kept aside).
        for _ in 0..5 {
            let pass = observe::serve_once(club.path(), db);
            let failed = pass.panicked() || !pass.status.success();
            passes.push(pass);
            if failed || play::waiting_in(&club.inbox()) == 0 {
                break;
            }
        }
        let last = passes.last().unwrap();
        assert!(
            !last.panicked() && last.status.success(),
            "round {round}: the daemon failed ({:?}):\n{}",
            last.status,
            last.log
        );
        assert_eq!(
            play::waiting_in(&club.inbox()),
            0,
            "round {round}: mail left in the inbox"
        );
    }
    let elapsed = started.elapsed();

    // No panic, no failed pass.
    let panics = passes.iter().filter(|p| p.panicked()).count();
    let failed_passes = passes.iter().filter(|p| !p.status.success()).count();
    let logs: String = passes.iter().map(|p| p.log.as_str()).collect();

    // Every genuine move played, once, in order; nothing else changed.
    let inbound = observe::inbound(&store).await;
    for (game, ply, name) in &genuine {
        let outcome = inbound
            .get(&format!("maildir:{name}"))
            .map(|(_, o)| o.as_str())
            .unwrap_or("(not recorded)");
        assert!(
            outcome.contains(&format!("played {}", SCRIPT[*ply])),
            "game {game} ply {ply}: the genuine move was not played: {outcome}"
        );
    }
    for t in &tables {
        assert_eq!(
            club.moves_of(db, t.game),
            SCRIPT[..rounds].to_vec(),
            "game {}",
            t.game
        );
    }
    let after = observe::state_besides_moves(&store).await;
    assert_eq!(before, after, "a bad mail changed a game or a player");

    // Every bad mail accounted for: recorded with its outcome, or kept aside.
    let failed = observe::failed(club.path(), db);
    let mut per_class: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut ignored, mut quarantined, mut answered) = (0, 0, 0);
    let outbox = observe::outbox(&store).await;
    let answered_ids: std::collections::HashSet<&str> = outbox
        .iter()
        .flat_map(|m| m.answers.iter().map(String::as_str))
        .collect();
    let mut unaccounted = Vec::new();
    let mut machine_answered = Vec::new();
    for d in &delivered {
        *per_class.entry(d.class).or_default() += 1;
        let reference = format!("maildir:{}", d.name);
        let was_answered = d
            .message_id
            .as_deref()
            .is_some_and(|id| answered_ids.contains(id));
        if d.automatic && was_answered {
            machine_answered.push(format!("{}: {}", d.class, d.name));
        }
        match (inbound.get(&reference), failed.get(&reference)) {
            (_, Some(_)) => quarantined += 1,
            (Some((_, outcome)), None) => {
                if d.automatic && !outcome.starts_with("ignored") {
                    machine_answered.push(format!("{}: {outcome}", d.class));
                }
                // Ignored: a logged refusal, nobody told; otherwise the
                // registered sender got an answer (refused, rejected, asked).
                if outcome.starts_with("ignored") {
                    ignored += 1;
                } else {
                    answered += 1;
                }
            }
            (None, None) => unaccounted.push(format!("{}: {}", d.class, d.name)),
        }
    }

    // Answers only to registered addresses, nothing smuggled into them.
    let registered = observe::registered(&store).await;
    let strangers: Vec<&observe::Outgoing> = outbox
        .iter()
        .filter(|m| {
            !registered.contains(&m.recipient)
                || m.header_recipients.iter().any(|r| !registered.contains(r))
                || m.header_names
                    .iter()
                    .any(|n| n == "bcc" || n == "x-injected")
        })
        .collect();

    let mut times: Vec<Duration> = passes
        .iter()
        .flat_map(|p| p.mail_times.iter().map(|(_, d)| *d))
        .collect();
    times.sort();
    let slowest = passes
        .iter()
        .flat_map(|p| p.mail_times.iter())
        .max_by_key(|(_, d)| *d)
        .map(|(m, _)| {
            delivered
                .iter()
                .find(|d| m.ends_with(&d.name))
                .map(|d| d.class)
                .unwrap_or("a genuine move")
        })
        .unwrap_or("-");
    let peak_rss = passes.iter().map(|p| p.peak_rss_kb).max().unwrap_or(0);

    figure(test, "inputs", delivered.len());
    figure(test, "classes", per_class.len());
    figure(test, "genuine moves", genuine.len());
    figure(test, "passes", passes.len());
    figure(test, "panics", panics);
    figure(test, "failed passes", failed_passes);
    figure(test, "answered (refused, rejected or asked)", answered);
    figure(test, "ignored (logged, nobody told)", ignored);
    figure(test, "quarantined", quarantined);
    figure(test, "unaccounted", unaccounted.len());
    figure(test, "answers to machines", machine_answered.len());
    figure(test, "answers to strangers", strangers.len());
    figure(test, "mails read", times.len());
    figure(
        test,
        "p50 per mail",
        observe::ms(observe::percentile(&times, 50)),
    );
    figure(
        test,
        "p99 per mail",
        observe::ms(observe::percentile(&times, 99)),
    );
    figure(
        test,
        "max per mail",
        format!(
            "{} ({slowest})",
            observe::ms(times.last().copied().unwrap_or_default())
        ),
    );
    figure(test, "max RSS", format!("{} MB", peak_rss / 1024));
    figure(test, "total", format!("{elapsed:.1?}"));

    assert_eq!(panics, 0, "panics:\n{logs}");
    assert_eq!(failed_passes, 0);
    assert!(
        unaccounted.is_empty(),
        "bad mail not accounted for: {unaccounted:?}"
    );
    assert!(
        machine_answered.is_empty(),
        "machines answered: {machine_answered:?}"
    );
    assert!(strangers.is_empty(), "mail to strangers: {strangers:#?}");
    assert_eq!(per_class.len(), CLASSES.len(), "every class: {per_class:?}");
    // Hang guards, many times what is expected: the per-mail read budget is
    // 10 s, and the largest mail read is 20 MB.
    let slowest_time = times.last().copied().unwrap_or_default();
    assert!(
        slowest_time < Duration::from_secs(60),
        "one mail took {slowest_time:?}"
    );
    assert!(peak_rss < 2 * 1024 * 1024, "the daemon used {peak_rss} kB");
    store.close().await;
}

crate::on_both_backends!(a_hostile_corpus_between_real_moves_changes_no_game_and_panics_nothing);
