//! Caps on what one mail may make us read, so that no mail costs more than
//! time linear in its size, and a mail over a cap is refused by name rather
//! than half-read.
//!
//! What mail-parser 0.11.9 bounds by itself, read in its source: it never
//! recurses on multipart nesting (an explicit stack: 40,000 levels parse in
//! milliseconds), re-parses base64/quoted-printable `message/rfc822` parts at
//! most 3 levels deep, and keeps header names to 34 bytes. What it does not
//! bound, measured:
//!
//! - a `multipart` part whose boundary never occurs is looked for to the end
//!   of the mail, once per such part: 8,000 of them in 500 kB took 1.3 s in a
//!   release build, four times as long for each doubling;
//! - every `--` in a part is compared with the whole boundary, whatever its
//!   length: a 100 kB boundary over 1 MB of dashes took 1.7 s;
//! - an encoded `message/rfc822` part (which RFC 2046 forbids) is parsed again
//!   from its decoded bytes, where nothing outside can see what it holds;
//! - the number of parts: one per 10 bytes of mail.
//!
//! So before mail-parser sees a mail, [`prescan`] counts in one pass what
//! bounds its work (the size, the `multipart` declarations, the longest
//! boundary, the `--` pairs) and turns nested messages into opaque
//! attachments; after it, [`check_structure`] counts the parts and the depth.

use std::borrow::Cow;
use std::fmt;

use mail_parser::{Message, PartType};

/// Largest mail read, in bytes (the mailbox readers' default cap too).
pub const MAX_MAIL_BYTES: usize = 25 * 1024 * 1024;

/// Most `multipart` declarations in a mail. A reply is one to three deep
/// (mixed, alternative, related); a long forwarded thread a few more.
pub const MAX_MULTIPARTS: usize = 64;

/// Longest MIME boundary, in bytes. RFC 2046 allows 70; mailers use 30–70.
pub const MAX_BOUNDARY: usize = 200;

/// Most MIME parts in a mail: a reply with its inline pictures and a few
/// attachments has ten or twenty.
pub const MAX_MIME_PARTS: usize = 100;

/// Deepest multipart nesting (the mail itself is depth 1).
pub const MAX_MIME_DEPTH: usize = 10;

/// Upper bound on the bytes mail-parser may step over and compare, as
/// the prescan estimates it: every multipart may scan the whole mail once
/// (a boundary that never comes), comparing its boundary at every `--`.
/// Measured at the worst (63 multiparts with missing boundaries over 15 MB,
/// an estimate of 2^30): 1.5 s in the test profile, so half of that is
/// allowed; an ordinary 25 MB mail with an attachment estimates at a fifth.
pub const MAX_PARSE_WORK: u64 = 1 << 29;

/// Which cap a mail went over, with the figures, in words a sender can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Excess {
    /// The mail is larger than [`MAX_MAIL_BYTES`].
    Size {
        /// Its size in bytes.
        bytes: usize,
        /// The cap.
        max: usize,
    },
    /// More `multipart` sections than [`MAX_MULTIPARTS`].
    Multiparts {
        /// How many the mail declares.
        count: usize,
        /// The cap.
        max: usize,
    },
    /// A MIME boundary longer than [`MAX_BOUNDARY`].
    Boundary {
        /// Its length in bytes.
        length: usize,
        /// The cap.
        max: usize,
    },
    /// More MIME parts than [`MAX_MIME_PARTS`].
    Parts {
        /// How many the mail has.
        count: usize,
        /// The cap.
        max: usize,
    },
    /// Multipart nesting deeper than [`MAX_MIME_DEPTH`].
    Depth {
        /// How deep the mail nests (at least; counting stops past the cap).
        depth: usize,
        /// The cap.
        max: usize,
    },
    /// Its MIME structure would take too long to read: [`MAX_PARSE_WORK`].
    Work {
        /// The estimate.
        work: u64,
        /// The cap.
        max: u64,
    },
}

impl fmt::Display for Excess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Excess::Size { bytes, max } => write!(
                f,
                "it is {} large, and mails over {} are not read",
                size(*bytes as u64),
                size(*max as u64)
            ),
            Excess::Multiparts { count, max } => write!(
                f,
                "it has {count} multipart sections, and mails with more than {max} are not read"
            ),
            Excess::Boundary { length, max } => write!(
                f,
                "it has a MIME boundary of {length} characters, and at most {max} are read"
            ),
            Excess::Parts { count, max } => write!(
                f,
                "it has {count} MIME parts, and mails with more than {max} are not read"
            ),
            Excess::Depth { depth, max } => write!(
                f,
                "its MIME parts are nested {depth} deep, and mails nested deeper than {max} are \
                 not read"
            ),
            Excess::Work { .. } => write!(
                f,
                "its MIME structure (many sections and boundary-like lines) would take too long \
                 to read"
            ),
        }
    }
}

impl Excess {
    /// Which cap, as a key templates test (`size`, `multiparts`,
    /// `boundary`, `parts`, `depth`, `work`), with what the mail had and
    /// the cap, as figures any language shows as they are.
    pub fn figures(&self) -> (&'static str, String, String) {
        match self {
            Excess::Size { bytes, max } => ("size", size(*bytes as u64), size(*max as u64)),
            Excess::Multiparts { count, max } => ("multiparts", count.to_string(), max.to_string()),
            Excess::Boundary { length, max } => ("boundary", length.to_string(), max.to_string()),
            Excess::Parts { count, max } => ("parts", count.to_string(), max.to_string()),
            Excess::Depth { depth, max } => ("depth", depth.to_string(), max.to_string()),
            Excess::Work { work, max } => ("work", work.to_string(), max.to_string()),
        }
    }
}

fn size(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    } else {
        format!("{} kB", bytes.div_ceil(1024))
    }
}

/// What [`prescan`] counted, for tests and the refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Scan {
    /// Case-insensitive occurrences of `multipart`.
    pub multiparts: usize,
    /// Bound on the longest boundary mail-parser can build, in bytes.
    pub boundary: usize,
    /// Positions where a `-` follows a `-` (where mail-parser compares a boundary).
    pub dashes: usize,
    /// The work estimate.
    pub work: u64,
}

/// Checks the caps that bound mail-parser's work and returns the bytes to
/// give it: the mail itself, or a copy in which nested messages are opaque.
pub(super) fn prescan(raw: &[u8]) -> Result<(Cow<'_, [u8]>, Scan), Excess> {
    if raw.len() > MAX_MAIL_BYTES {
        return Err(Excess::Size {
            bytes: raw.len(),
            max: MAX_MAIL_BYTES,
        });
    }
    let mut scan = Scan::default();
    let mut continued = 0usize;
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'-' && i > 0 && raw[i - 1] == b'-' {
            scan.dashes += 1;
        } else if (b | 0x20) == b'm' && starts_with_ci(&raw[i..], b"multipart") {
            scan.multiparts += 1;
        } else if (b | 0x20) == b'b' && starts_with_ci(&raw[i..], b"boundary") {
            let (length, piece) = boundary_value(&raw[i + b"boundary".len()..]);
            if piece {
                // RFC 2231 pieces (`boundary*0=`, `boundary*1=` …) are joined
                // into one value: count them all towards it.
                continued += length;
            } else {
                scan.boundary = scan.boundary.max(length);
            }
        }
        i += 1;
    }
    // An encoded word or a charset can make a value longer once decoded:
    // three bytes per raw byte at the most (an invalid byte becomes U+FFFD).
    scan.boundary = scan.boundary.max(continued).saturating_mul(3);
    if scan.multiparts > MAX_MULTIPARTS {
        return Err(Excess::Multiparts {
            count: scan.multiparts,
            max: MAX_MULTIPARTS,
        });
    }
    if scan.boundary > MAX_BOUNDARY * 3 {
        return Err(Excess::Boundary {
            length: scan.boundary / 3,
            max: MAX_BOUNDARY,
        });
    }
    let passes = scan.multiparts as u64 + 1;
    let per_pass = raw.len() as u64 + scan.dashes as u64 * scan.boundary as u64;
    scan.work = passes.saturating_mul(per_pass);
    if scan.work > MAX_PARSE_WORK {
        return Err(Excess::Work {
            work: scan.work,
            max: MAX_PARSE_WORK,
        });
    }
    Ok((opaque_messages(raw), scan))
}

/// Whether `data` starts with `word`, ASCII case-insensitively.
fn starts_with_ci(data: &[u8], word: &[u8]) -> bool {
    data.get(..word.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(word))
}

/// After the word `boundary`: the raw length of the value if a parameter
/// follows (`= value`, `="value"`), and whether it is an RFC 2231 piece
/// (`*0=`, `*=`). Not a parameter: length 0.
fn boundary_value(rest: &[u8]) -> (usize, bool) {
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while rest.get(*i).is_some_and(|b| b" \t\r\n".contains(b)) {
            *i += 1;
        }
    };
    skip_space(&mut i);
    let piece = rest.get(i) == Some(&b'*');
    while rest
        .get(i)
        .is_some_and(|b| *b == b'*' || b.is_ascii_digit())
    {
        i += 1;
    }
    skip_space(&mut i);
    if rest.get(i) != Some(&b'=') {
        return (0, false);
    }
    i += 1;
    skip_space(&mut i);
    let mut start = i;
    if rest.get(i) == Some(&b'"') {
        i += 1;
        start = i;
        // To the closing quote, or the end of the (unfolded) header.
        while let Some(&b) = rest.get(i) {
            match b {
                b'\\' => i += 2,
                b'"' => break,
                b'\n' if !rest.get(i + 1).is_some_and(|c| *c == b' ' || *c == b'\t') => break,
                _ => i += 1,
            }
        }
    } else {
        while rest
            .get(i)
            .is_some_and(|b| !b"; \t\r\n".contains(b) && *b != b'(')
        {
            i += 1;
        }
    }
    (i.min(rest.len()) - start, piece)
}

/// Subtypes whose parts mail-parser parses as mails of their own (and again
/// from the decoded bytes when they are encoded), and `digest`, whose parts
/// default to such mails. dopis reads only the newest text, never a nested
/// mail, so their subtype is changed in a copy (same length, so every
/// offset stays) and mail-parser keeps them as opaque attachments.
const NESTED: &[&[u8]] = &[b"rfc822", b"global", b"digest"];

/// The mail with every `type/rfc822`, `type/global` and `type/digest` made
/// unrecognisable (`_fc822` …); borrowed when there is none.
fn opaque_messages(raw: &[u8]) -> Cow<'_, [u8]> {
    let mut copy: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'/' {
            let at = subtype_start(raw, i + 1);
            if NESTED
                .iter()
                .any(|word| starts_with_ci(raw.get(at..).unwrap_or_default(), word))
            {
                let bytes = copy.get_or_insert_with(|| raw.to_vec());
                if let Some(b) = bytes.get_mut(at) {
                    *b = b'_';
                }
            }
        }
        i += 1;
    }
    match copy {
        Some(bytes) => Cow::Owned(bytes),
        None => Cow::Borrowed(raw),
    }
}

/// Where the subtype after a `/` starts: past whitespace (folding included)
/// and comments, as mail-parser's content-type reader skips them. Comments
/// nest; the skip stops at the end of the line that ends the header.
fn subtype_start(raw: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    let mut escaped = false;
    while let Some(&b) = raw.get(i) {
        if depth > 0 {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'\n' if !raw.get(i + 1).is_some_and(|c| *c == b' ' || *c == b'\t') => return i,
                _ => {}
            }
        } else {
            match b {
                b' ' | b'\t' | b'\r' => {}
                b'\n' if raw.get(i + 1).is_some_and(|c| *c == b' ' || *c == b'\t') => {}
                b'(' => depth = 1,
                _ => return i,
            }
        }
        i += 1;
    }
    i
}

/// Checks the parts and the nesting of a parsed mail.
pub(super) fn check_structure(message: &Message<'_>) -> Result<(), Excess> {
    let parts = message.parts.len();
    if parts > MAX_MIME_PARTS {
        return Err(Excess::Parts {
            count: parts,
            max: MAX_MIME_PARTS,
        });
    }
    // Depth first over part ids with an explicit stack; each part is visited
    // at most once (a malformed tree cannot make it loop).
    let mut seen = vec![false; parts];
    let mut stack = vec![(0usize, 1usize)];
    while let Some((id, depth)) = stack.pop() {
        if depth > MAX_MIME_DEPTH {
            return Err(Excess::Depth {
                depth,
                max: MAX_MIME_DEPTH,
            });
        }
        let Some(part) = message.parts.get(id) else {
            continue;
        };
        if std::mem::replace(&mut seen[id], true) {
            continue;
        }
        if let PartType::Multipart(children) = &part.body {
            stack.extend(children.iter().map(|c| (*c as usize, depth + 1)));
        }
    }
    Ok(())
}
