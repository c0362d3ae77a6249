use super::*;
use proptest::prelude::*;

fn addr(text: &str) -> EmailAddress {
    EmailAddress::parse(text).unwrap_or_else(|e| panic!("test address: {e}"))
}

const SIMPLE: &str = "Return-Path: <Bob@Example.ORG>\r\n\
Delivered-To: chess+g42.k7f3q9@example.org\r\n\
From: Bob Player <Bob@Example.ORG>\r\n\
To: dopis <chess+g42.k7f3q9@example.org>\r\n\
Cc: Carol <carol@example.net>, chess+g42.k7f3q9@example.org\r\n\
Subject: Re: [dopis #42] Your move\r\n\
Date: Mon, 3 Mar 2025 10:15:00 +0100\r\n\
Message-ID: <abc.123@mail.example.org>\r\n\
In-Reply-To: <g42.m7@dopis.example.org>\r\n\
References: <g42.m1@dopis.example.org> <g42.m7@dopis.example.org>\r\n\
Content-Type: text/plain; charset=utf-8\r\n\
\r\n\
Nf3\r\n\
\r\n\
On Mon, 3 Mar 2025 at 09:00, dopis <chess@example.org> wrote:\r\n\
> Your move.\r\n";

#[test]
fn a_plain_reply_is_read_header_by_header() {
    let mail = parse(SIMPLE.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mail.from, addr("bob@example.org"));
    assert_eq!(mail.from_name.as_deref(), Some("Bob Player"));
    assert_eq!(
        mail.return_path,
        Some(ReturnPath::Address(addr("bob@example.org")))
    );
    assert_eq!(
        mail.recipients,
        vec![
            addr("chess+g42.k7f3q9@example.org"),
            addr("carol@example.net")
        ]
    );
    assert_eq!(mail.subject, "Re: [dopis #42] Your move");
    assert_eq!(
        mail.message_id.as_ref().map(MessageId::as_str),
        Some("abc.123@mail.example.org")
    );
    assert_eq!(
        mail.idempotency_key.as_str(),
        "mid:abc.123@mail.example.org"
    );
    let ids = |v: &[MessageId]| v.iter().map(|m| m.as_str().to_string()).collect::<Vec<_>>();
    assert_eq!(ids(&mail.in_reply_to), vec!["g42.m7@dopis.example.org"]);
    assert_eq!(
        ids(&mail.references),
        vec!["g42.m1@dopis.example.org", "g42.m7@dopis.example.org"]
    );
    assert_eq!(
        mail.date.map(|d| d.to_rfc3339()),
        Some("2025-03-03T10:15:00+01:00".to_string())
    );
    assert_eq!(mail.automatic, None);
    assert!(mail.may_answer());
    assert_eq!(mail.text_source, TextSource::Plain);
    assert_eq!(mail.text, "Nf3\n");
}

#[test]
fn a_mail_without_message_id_is_keyed_by_the_hash_of_its_bytes() {
    let raw = SIMPLE.replace("Message-ID: <abc.123@mail.example.org>\r\n", "");
    let mail = parse(raw.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mail.message_id, None);
    let key = mail.idempotency_key.as_str();
    assert!(key.starts_with("sha256:") && key.len() == 7 + 64, "{key}");
    let again = parse(raw.as_bytes()).map(|m| m.idempotency_key);
    assert_eq!(again.as_ref().map(IdempotencyKey::as_str), Ok(key));
    let other = parse(raw.replace("Nf3", "Nc3").as_bytes()).map(|m| m.idempotency_key);
    assert_ne!(other.as_ref().map(IdempotencyKey::as_str), Ok(key));
}

#[test]
fn unusable_input_says_what_is_wrong() {
    for (raw, expected) in [
        (&b""[..], InboundError::Empty),
        (&b" \r\n\r\n"[..], InboundError::Empty),
        (
            &b"\x89PNG\r\n\x1a\n\0\0junk: yes"[..],
            InboundError::NotAMail,
        ),
        (&b"Nf3\r\n"[..], InboundError::NotAMail),
        (
            &b"To: chess@example.org\r\nSubject: x\r\n\r\nNf3\r\n"[..],
            InboundError::NoFrom,
        ),
        (
            &b"From: undisclosed\r\nTo: chess@example.org\r\n\r\nNf3\r\n"[..],
            InboundError::BadFrom {
                text: "undisclosed".into(),
                why: "there is no @".into(),
            },
        ),
    ] {
        assert_eq!(
            parse(raw),
            Err(expected),
            "{:?}",
            String::from_utf8_lossy(raw)
        );
    }
    let msg = InboundError::NoFrom.to_string();
    assert!(msg.contains("no From header"), "{msg}");
}

#[test]
fn a_null_return_path_is_read_as_null() {
    for (value, expected) in [
        ("<>", ReturnPath::Null),
        ("< >", ReturnPath::Null),
        (
            "<Bob@Example.org>",
            ReturnPath::Address(addr("bob@example.org")),
        ),
        (
            "<not an address>",
            ReturnPath::Unreadable("<not an address>".into()),
        ),
    ] {
        assert_eq!(read_return_path(value), expected, "{value}");
    }
}

#[test]
fn message_ids_are_read_with_or_without_brackets() {
    for (text, id) in [
        ("<a@b>", Some("a@b")),
        (" a@b ", Some("a@b")),
        ("<>", None),
        ("a b@c", None),
        ("", None),
    ] {
        assert_eq!(
            MessageId::parse(text).as_ref().map(MessageId::as_str),
            id,
            "{text}"
        );
    }
    assert_eq!(MessageId::parse(&"x".repeat(MAX_MESSAGE_ID + 1)), None);
}

#[test]
fn html_blockquotes_become_quoted_lines() {
    let text = html_to_text(
        "<div dir=\"ltr\">Nf3</div><br><div class=\"gmail_quote\"><div class=\"gmail_attr\">\
         On Mon, 3 Mar 2025 at 09:00, dopis &lt;<a href=\"mailto:chess@example.org\">chess@example.org</a>&gt; wrote:<br></div>\
         <blockquote class=\"gmail_quote\">Your move.</blockquote></div>",
    );
    assert_eq!(history::newest_text(&clean(&text)), "Nf3\n", "{text}");
}

#[test]
fn deeply_nested_html_does_not_overflow_the_stack() {
    let html = format!(
        "{}Nf3{}",
        "<div><blockquote>".repeat(5000),
        "</blockquote></div>".repeat(5000)
    );
    let raw =
        format!("From: a@example.org\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n");
    assert!(parse(raw.as_bytes()).is_ok());
}

/// Runs `parse` on another thread and fails when it has not finished after
/// `seconds`: a hang guard many times the expected time (milliseconds),
/// where the quadratic code this replaces took tens of seconds.
fn parse_within(seconds: u64, raw: Vec<u8>) -> Result<InboundMail, InboundError> {
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(parse(&raw));
    });
    wait.recv_timeout(std::time::Duration::from_secs(seconds))
        .unwrap_or_else(|_| panic!("parse took more than {seconds} s"))
}

fn html_mail(html: &str) -> Vec<u8> {
    format!(
        "From: Alice <alice@p.test>\r\nTo: chess@example.org\r\nSubject: help\r\n\
         Content-Type: text/html; charset=utf-8\r\n\r\n{html}"
    )
    .into_bytes()
}

fn too_complex(result: Result<InboundMail, InboundError>) -> (Option<EmailAddress>, Excess) {
    match result {
        Err(InboundError::TooComplex { from, excess }) => (from, excess),
        other => panic!("expected a refusal as too complex, got {other:?}"),
    }
}

#[test]
fn an_html_mail_of_31250_nested_list_items_is_read_in_linear_time() {
    // 250 kB: html2text took 17.5 s of CPU on it, quadratically.
    let html = format!("help {}", "<ul><li>".repeat(31_250));
    let mail = parse_within(10, html_mail(&html)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mail.text_source, TextSource::Html);
    assert_eq!(mail.text.trim(), "help");
    // Linear, shown by the converter's own count of its work: a constant per
    // input byte at every size, where a quadratic one doubles per doubling.
    for tag in ["<ul><li>", "<div>", "<blockquote>", "<br>"] {
        let per_byte: Vec<f64> = [31_250usize, 62_500, 125_000, 250_000]
            .iter()
            .map(|&bytes| {
                let html = format!("help {}", tag.repeat(bytes / tag.len()));
                html::to_text(&html).work as f64 / html.len() as f64
            })
            .collect();
        for w in &per_byte {
            assert!(
                *w <= 4.0,
                "{tag}: {per_byte:?} units of work per input byte"
            );
        }
        let growth = per_byte[3] / per_byte[0];
        assert!(
            (0.5..=1.5).contains(&growth),
            "{tag}: work per byte grew {growth}× from 31 kB to 250 kB"
        );
    }
}

#[test]
fn an_html_mail_of_deeply_nested_divs_is_read_in_linear_time() {
    let html = format!(
        "<div>{}resign{}</div>",
        "<div><blockquote>".repeat(15_000),
        "</blockquote></div>".repeat(15_000)
    );
    let mail = parse_within(10, html_mail(&html)).unwrap_or_else(|e| panic!("{e}"));
    // The move is inside 15,000 quotes: read as quoted history, so nothing
    // new, and every line's prefix stays short.
    assert!(mail.text.len() < 100, "{:?}", mail.text);
    let converted = html::to_text(&html);
    assert!(converted.work <= 4 * html.len(), "{}", converted.work);
    assert!(
        converted
            .text
            .lines()
            .all(|l| l.len() <= 2 * html::MAX_QUOTE_DEPTH + "resign".len()),
        "{:?}",
        converted.text.lines().map(str::len).max()
    );
}

#[test]
fn html_becomes_text_with_lines_entities_and_no_hidden_parts() {
    for (html, text) in [
        ("<p>Nf3</p><p>thanks</p>", "Nf3\n\nthanks\n"),
        ("<div>Nf3</div><div>draw</div>", "Nf3\ndraw\n"),
        ("Nf3<br>draw<br><br>Ana", "Nf3\ndraw\n\nAna\n"),
        ("<div><div><div>e4</div></div></div>", "e4\n"),
        ("  e4 \n\t  e5  ", "e4 e5\n"),
        (
            "Gr&uuml;&szlig;e &amp; &#x2654; &lt;b&gt;",
            "Grüße & ♔ <b>\n",
        ),
        (
            "<head><title>t</title><style>p{x:1}</style></head><body>e4</body>",
            "e4\n",
        ),
        (
            "<script>if (a<b) { document.write('<p>x') }</script>e4",
            "e4\n",
        ),
        ("<!-- Nf3 -->e4", "e4\n"),
        ("<ul><li>a</li><li>b</li></ul>", "a\nb\n"),
        ("<table><tr><td>a</td><td>b</td></tr></table>", "a b\n"),
        ("<pre>  e4\n  e5</pre>", "  e4\n  e5\n"),
        (
            "e4<blockquote>Your move<br>in game 1</blockquote>",
            "e4\n\n> Your move\n> in game 1\n",
        ),
        ("e4\0<b>x\u{1}</b>", "e4x\u{1}\n"),
        ("", ""),
    ] {
        assert_eq!(html::to_text(html).text, text, "{html:?}");
    }
}

#[test]
fn deeply_nested_multiparts_are_refused_by_name_without_parsing() {
    let mut raw = String::from("From: Alice <alice@p.test>\r\n");
    for i in 0..2000 {
        raw.push_str(&format!(
            "Content-Type: multipart/mixed; boundary=\"b{i}\"\r\n\r\n--b{i}\r\n"
        ));
    }
    raw.push_str("Content-Type: text/plain\r\n\r\nNf3\r\n");
    let (from, excess) = too_complex(parse_within(10, raw.into_bytes()));
    assert_eq!(from, Some(addr("alice@p.test")));
    assert_eq!(
        excess,
        Excess::Multiparts {
            count: 2000,
            max: MAX_MULTIPARTS
        }
    );
}

/// A mail whose parts nest `depth` multiparts deep (the text is the last level).
fn nested(depth: usize) -> Vec<u8> {
    let mut raw = String::from("From: Alice <alice@p.test>\r\nSubject: move\r\n");
    for i in 0..depth {
        raw.push_str(&format!(
            "Content-Type: multipart/mixed; boundary=\"b{i}\"\r\n\r\n--b{i}\r\n"
        ));
    }
    raw.push_str("Content-Type: text/plain\r\n\r\nNf3\r\n");
    for i in (0..depth).rev() {
        raw.push_str(&format!("--b{i}--\r\n"));
    }
    raw.into_bytes()
}

#[test]
fn multipart_nesting_deeper_than_the_cap_is_refused_and_up_to_it_read() {
    let ok = parse(&nested(MAX_MIME_DEPTH - 1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ok.text, "Nf3\n");
    let (from, excess) = too_complex(parse(&nested(MAX_MIME_DEPTH)));
    assert_eq!(from, Some(addr("alice@p.test")));
    assert_eq!(
        excess,
        Excess::Depth {
            depth: MAX_MIME_DEPTH + 1,
            max: MAX_MIME_DEPTH
        }
    );
    let told = InboundError::TooComplex { from, excess }.to_string();
    assert!(
        told.contains("nested 11 deep") && told.contains("deeper than 10"),
        "{told}"
    );
}

/// One multipart with `parts` empty parts, 11 bytes each.
fn many_parts(parts: usize) -> Vec<u8> {
    let mut raw =
        String::from("From: alice@p.test\r\nContent-Type: multipart/mixed; boundary=\"t\"\r\n\r\n");
    raw.push_str("--t\r\nContent-Type: text/plain\r\n\r\nNf3\r\n");
    for _ in 1..parts {
        raw.push_str("--t\r\n\r\nx\r\n");
    }
    raw.push_str("--t--\r\n");
    raw.into_bytes()
}

#[test]
fn a_mail_of_many_parts_is_refused_with_their_number_in_linear_time() {
    assert!(parse(&many_parts(MAX_MIME_PARTS - 1)).is_ok());
    let (_, excess) = too_complex(parse(&many_parts(MAX_MIME_PARTS + 1)));
    assert_eq!(
        excess,
        Excess::Parts {
            count: MAX_MIME_PARTS + 2,
            max: MAX_MIME_PARTS
        }
    );
    // 400,000 parts in 4.4 MB: mail-parser reads them in linear time, then
    // the count refuses the mail.
    let (from, excess) = too_complex(parse_within(10, many_parts(400_000)));
    assert_eq!(from, Some(addr("alice@p.test")));
    assert!(matches!(excess, Excess::Parts { count, .. } if count > 400_000));
}

#[test]
fn multiparts_whose_boundary_never_comes_cannot_make_parsing_quadratic() {
    // mail-parser looks for a missing boundary to the end of the mail, once
    // per such part: 8,000 of them in 500 kB took 1.3 s (release build), 4×
    // per doubling.
    let mut raw = String::from(
        "From: alice@p.test\r\nContent-Type: multipart/mixed; boundary=\"top\"\r\n\r\n",
    );
    for i in 0..8000 {
        raw.push_str(&format!(
            "--top\r\nContent-Type: multipart/mixed; boundary=\"never{i}\"\r\n\r\nx\r\n"
        ));
    }
    let (_, excess) = too_complex(parse_within(10, raw.into_bytes()));
    assert!(
        matches!(excess, Excess::Multiparts { count: 8001, .. }),
        "{excess:?}"
    );
    // Few of them, but over a large mail: the estimate refuses it.
    let mut raw = String::from(
        "From: alice@p.test\r\nContent-Type: multipart/mixed; boundary=\"top\"\r\n\r\n",
    );
    for i in 0..MAX_MULTIPARTS - 1 {
        raw.push_str(&format!(
            "--top\r\nContent-Type: multipart/mixed; boundary=\"never{i}\"\r\n\r\nx\r\n"
        ));
    }
    raw.push_str(&"Nf3 is my move\r\n".repeat(20 * 1024 * 1024 / 16));
    let (_, excess) = too_complex(parse_within(10, raw.into_bytes()));
    assert!(matches!(excess, Excess::Work { .. }), "{excess:?}");
}

#[test]
fn a_long_boundary_over_many_dashes_is_refused_before_parsing() {
    // Every `--` is compared with the whole boundary: a 100 kB boundary over
    // 1 MB of dashes took mail-parser 1.7 s.
    let boundary = format!("{}x", "-".repeat(100_000));
    let raw = format!(
        "From: alice@p.test\r\nContent-Type: multipart/mixed; boundary=\"{boundary}\"\r\n\r\n{}",
        "-".repeat(1_000_000)
    );
    let (_, excess) = too_complex(parse_within(10, raw.into_bytes()));
    assert_eq!(
        excess,
        Excess::Boundary {
            length: 100_001,
            max: MAX_BOUNDARY
        }
    );
    // In RFC 2231 pieces, the pieces count together.
    let pieces: String = (0..10)
        .map(|i| format!(";\r\n boundary*{i}=\"{}\"", "b".repeat(30)))
        .collect();
    let raw = format!(
        "From: alice@p.test\r\nContent-Type: multipart/mixed{pieces}\r\n\r\n{}",
        "-".repeat(1000)
    );
    let (_, excess) = too_complex(parse(raw.as_bytes()));
    assert!(
        matches!(excess, Excess::Boundary { length: 300, .. }),
        "{excess:?}"
    );
    // Many dashes with an ordinary boundary: an estimate over the cap.
    let raw = format!(
        "From: alice@p.test\r\nContent-Type: multipart/mixed; boundary=\"{}\"\r\n\r\n{}",
        "b".repeat(70),
        "-".repeat(24 * 1024 * 1024)
    );
    let (_, excess) = too_complex(parse_within(10, raw.into_bytes()));
    assert!(matches!(excess, Excess::Work { .. }), "{excess:?}");
}

#[test]
fn an_encoded_nested_message_is_kept_opaque_and_not_parsed_again() {
    use base64::Engine;
    // mail-parser parses a base64 message/rfc822 part again from its decoded
    // bytes, where the prescan cannot see: here 8,000 missing boundaries.
    let mut inner =
        String::from("From: x@y.test\r\nContent-Type: multipart/mixed; boundary=\"top\"\r\n\r\n");
    for i in 0..8000 {
        inner.push_str(&format!(
            "--top\r\nContent-Type: multipart/mixed; boundary=\"never{i}\"\r\n\r\nx\r\n"
        ));
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(inner.as_bytes());
    let raw = format!(
        "From: alice@p.test\r\nContent-Type: multipart/mixed; boundary=\"o\"\r\n\r\n\
         --o\r\nContent-Type: text/plain\r\n\r\nNf3\r\n\
         --o\r\nContent-Type: message / (a comment) RFC822\r\nContent-Transfer-Encoding: base64\r\n\r\n\
         {encoded}\r\n--o--\r\n"
    );
    let mail = parse_within(10, raw.into_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mail.text, "Nf3\n");
    let (copy, _) = limits::prescan(b"Content-Type: message/rfc822\r\n\r\nrfc822 /global")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        copy.as_ref(),
        b"Content-Type: message/_fc822\r\n\r\nrfc822 /_lobal"
    );
}

#[test]
fn a_mail_over_the_size_cap_is_refused_with_its_sender() {
    let mut raw = b"From: Alice <alice@p.test>\r\nSubject: photo\r\n\r\nNf3\r\n".to_vec();
    raw.resize(MAX_MAIL_BYTES + 1, b'x');
    let (from, excess) = too_complex(parse_within(10, raw));
    assert_eq!(from, Some(addr("alice@p.test")));
    assert_eq!(
        excess,
        Excess::Size {
            bytes: MAX_MAIL_BYTES + 1,
            max: MAX_MAIL_BYTES
        }
    );
    let told = excess.to_string();
    assert!(told.contains("25.0 MB large"), "{told}");
}

#[test]
fn a_refused_mail_names_no_sender_when_its_from_is_unusable() {
    let mut raw = b"From: alice@p.test\r\nFrom: bob@p.test\r\n\r\nNf3\r\n".to_vec();
    raw.resize(MAX_MAIL_BYTES + 1, b'x');
    let (from, _) = too_complex(parse(&raw));
    assert_eq!(from, None);
}

#[test]
fn a_mail_with_two_from_headers_is_attributed_to_nobody() {
    // mail-parser alone reads the last one: this mail would be Alice's.
    let raw = b"From: bob@q.test\r\nFrom: alice@p.test\r\nSubject: x\r\n\r\nNf3\r\n";
    assert_eq!(parse(raw), Err(InboundError::DuplicateFrom { count: 2 }));
    let raw = b"from: alice@p.test\r\nSubject: x\r\nFROM: alice@p.test\r\n\r\nNf3\r\n";
    assert_eq!(parse(raw), Err(InboundError::DuplicateFrom { count: 2 }));
}

#[test]
fn a_from_that_reads_two_ways_is_unreadable() {
    for (from, why) in [
        ("<alice@p.test", "the address after < is not closed with >"),
        ("alice@p.test>", "it has a > without a <"),
        (
            "alice@p.test, bob@q.test",
            "it holds more than one address (a From with several needs a Sender, which a \
             person's mail does not have)",
        ),
        (
            "Friends: alice@p.test;",
            "it is a group of addresses, not one sender",
        ),
        ("\"Alice <alice@p.test>", "a quoted name is not closed"),
        (
            "=?utf-8?q?alice?=@p.test",
            "its address can be read more than one way",
        ),
    ] {
        let raw = format!("From: {from}\r\nSubject: x\r\n\r\nNf3\r\n");
        match parse(raw.as_bytes()) {
            Err(InboundError::BadFrom { why: got, .. }) => assert_eq!(got, why, "{from}"),
            other => panic!("{from}: {other:?}"),
        }
    }
}

#[test]
fn a_nul_or_control_character_in_from_is_never_attributed() {
    for raw in [
        &b"From: alice@p.test\0evil\r\n\r\nNf3\r\n"[..],
        b"From: stranger\0@nowhere.test\r\n\r\nNf3\r\n",
        b"From: Alice\0 <alice@p.test>\r\n\r\nNf3\r\n",
        b"From: alice@p.test\x1b\r\n\r\nNf3\r\n",
        b"From: Alice\rBob <alice@p.test>\r\n\r\nNf3\r\n",
    ] {
        let err = parse(raw).expect_err("attributed a From with a control character");
        assert!(matches!(err, InboundError::BadFrom { .. }), "{err:?}");
        let said = err.to_string();
        assert!(!said.chars().any(char::is_control), "{said:?}");
    }
}

#[test]
fn no_text_of_a_mail_holds_a_nul_or_a_line_break_where_one_line_is_meant() {
    let raw = b"From: =?utf-8?q?Ali=00ce=0D=0ABcc=3A_x=40y.test?= <alice@p.test>\r\n\
        Subject: =?utf-8?q?Re:_e4=00=0D=0ABcc:_evil@x.test?=\0 more\r\n\
        Message-ID: <a\0b@p.test>\r\n\
        In-Reply-To: <c\0d@p.test>\r\n\
        Content-Type: text/plain; charset=utf-8\r\n\r\nNf3\0\x01 draw\r\n";
    let mail = parse(raw).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(mail.from, addr("alice@p.test"));
    assert_eq!(mail.from_name.as_deref(), Some("Ali ce Bcc: x@y.test"));
    assert_eq!(mail.subject, "Re: e4 Bcc: evil@x.test more");
    assert_eq!(mail.text, "Nf3 draw\n");
    assert_eq!(mail.message_id, None);
    assert!(mail.in_reply_to.is_empty());
    assert!(mail.idempotency_key.as_str().starts_with("sha256:"));
}

proptest! {
    // 512 cases in the test command; `PROPTEST_CASES` for a deep run (the
    // fault suite's long run sets it: scripts/faults.sh --long).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512),
        ..ProptestConfig::default()
    })]

    #[test]
    fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        assert_storable(parse(&raw));
    }

    #[test]
    fn tag_soup_never_panics_and_costs_a_constant_per_byte(
        pieces in proptest::collection::vec(
            prop_oneof![
                Just("<script>".to_string()), Just("</script>".to_string()),
                Just("<style>".to_string()), Just("<title>".to_string()),
                Just("<blockquote>".to_string()), Just("</blockquote>".to_string()),
                Just("<pre>".to_string()), Just("</pre>".to_string()),
                Just("<br/>".to_string()), Just("<p>".to_string()), Just("<td>".to_string()),
                Just("<head>".to_string()), Just("<body>".to_string()), Just("<!--".to_string()),
                Just("-->".to_string()), Just("<![CDATA[".to_string()), Just("&amp".to_string()),
                Just("&#x110000;".to_string()), Just("<plaintext>".to_string()),
                Just("<svg><script/>".to_string()),
                "\\PC{0,12}",
            ],
            0..60,
        ),
    ) {
        let html: String = pieces.concat();
        let converted = html::to_text(&html);
        prop_assert!(converted.work <= 4 * html.len() + 8, "{} for {}", converted.work, html.len());
        prop_assert!(!converted.text.contains('\0'));
    }

    #[test]
    fn hostile_headers_never_panic_and_never_give_text_the_database_refuses(
        from in proptest::collection::vec(any::<u8>(), 0..80),
        subject in proptest::collection::vec(any::<u8>(), 0..80),
        body in proptest::collection::vec(any::<u8>(), 0..200),
        html in any::<bool>(),
    ) {
        let mut raw = b"From: ".to_vec();
        raw.extend_from_slice(&from);
        raw.extend_from_slice(b"\r\nSubject: ");
        raw.extend_from_slice(&subject);
        raw.extend_from_slice(if html {
            &b"\r\nContent-Type: text/html\r\n\r\n"[..]
        } else {
            b"\r\n\r\n"
        });
        raw.extend_from_slice(&body);
        assert_storable(parse(&raw));
    }

    #[test]
    fn random_mime_trees_never_panic_and_stay_within_the_work_cap(
        shape in proptest::collection::vec((0u8..6, 0usize..4), 1..40),
    ) {
        // A random sequence of part openings, texts, closings, missing and
        // wrong boundaries, nested messages and HTML: never a panic, and
        // whatever is read was estimated within the cap.
        let mut raw = String::from("From: a@p.test\r\n");
        let mut open: Vec<usize> = Vec::new();
        for (i, (what, arg)) in shape.iter().enumerate() {
            match what {
                0 => {
                    raw.push_str(&format!("Content-Type: multipart/mixed; boundary=\"b{i}\"\r\n\r\n--b{i}\r\n"));
                    open.push(i);
                }
                1 => raw.push_str("Content-Type: text/plain\r\n\r\nNf3\r\n"),
                2 => {
                    if let Some(b) = open.pop() {
                        raw.push_str(&format!("--b{b}--\r\n"));
                    }
                }
                3 => {
                    if let Some(b) = open.get(*arg % open.len().max(1)) {
                        raw.push_str(&format!("--b{b}\r\n"));
                    }
                }
                4 => raw.push_str("Content-Type: message/rfc822\r\n\r\nFrom: x@y.test\r\n"),
                _ => raw.push_str("Content-Type: text/html\r\n\r\n<ul><li><div>e4<blockquote>x\r\n"),
            }
        }
        if let Ok((_, scan)) = limits::prescan(raw.as_bytes()) {
            prop_assert!(scan.work <= MAX_PARSE_WORK);
        }
        assert_storable(parse(raw.as_bytes()));
    }

    #[test]
    fn mutated_mails_never_panic(
        cut in 0usize..SIMPLE.len(),
        junk in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut raw = SIMPLE.as_bytes().to_vec();
        let at = cut.min(raw.len());
        raw.splice(at..at, junk);
        assert_storable(parse(&raw));
    }

    #[test]
    fn arbitrary_text_bodies_never_panic(body in "\\PC{0,600}", html in any::<bool>()) {
        let ctype = if html { "text/html" } else { "text/plain; format=flowed; delsp=yes" };
        let raw = format!("From: a@example.org\r\nContent-Type: {ctype}; charset=utf-8\r\n\r\n{body}");
        prop_assert!(parse(raw.as_bytes()).is_ok());
    }
}

/// Every text a parse gives (the mail's fields or the error's words) can be
/// stored in PostgreSQL and put in a header: no NUL anywhere, no control
/// character in a one-line field.
fn assert_storable(result: Result<InboundMail, InboundError>) {
    let one_line = |name: &str, text: &str| {
        assert!(!text.chars().any(char::is_control), "{name}: {text:?}");
    };
    match result {
        Ok(mail) => {
            one_line("subject", &mail.subject);
            one_line("from", mail.from.as_str());
            one_line("from name", mail.from_name.as_deref().unwrap_or_default());
            one_line("key", mail.idempotency_key.as_str());
            for id in mail
                .message_id
                .iter()
                .chain(&mail.in_reply_to)
                .chain(&mail.references)
            {
                one_line("message id", id.as_str());
            }
            for r in &mail.recipients {
                one_line("recipient", r.as_str());
            }
            if let Some(a) = &mail.automatic {
                one_line("evidence", &a.evidence);
            }
            assert!(
                !mail
                    .text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "text: {:?}",
                mail.text
            );
        }
        Err(e) => one_line("error", &e.to_string()),
    }
}
