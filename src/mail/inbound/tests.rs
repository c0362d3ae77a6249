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
                why: "no address in it".into(),
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

#[test]
fn deeply_nested_multiparts_do_not_overflow_the_stack() {
    let mut raw = String::from("From: a@example.org\r\n");
    for i in 0..2000 {
        raw.push_str(&format!(
            "Content-Type: multipart/mixed; boundary=\"b{i}\"\r\n\r\n--b{i}\r\n"
        ));
    }
    raw.push_str("Content-Type: text/plain\r\n\r\nNf3\r\n");
    assert!(parse(raw.as_bytes()).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse(&raw);
    }

    #[test]
    fn mutated_mails_never_panic(
        cut in 0usize..SIMPLE.len(),
        junk in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let mut raw = SIMPLE.as_bytes().to_vec();
        let at = cut.min(raw.len());
        raw.splice(at..at, junk);
        let _ = parse(&raw);
    }

    #[test]
    fn arbitrary_text_bodies_never_panic(body in "\\PC{0,600}", html in any::<bool>()) {
        let ctype = if html { "text/html" } else { "text/plain; format=flowed; delsp=yes" };
        let raw = format!("From: a@example.org\r\nContent-Type: {ctype}; charset=utf-8\r\n\r\n{body}");
        prop_assert!(parse(raw.as_bytes()).is_ok());
    }
}
