//! Inbound `.eml` fixtures written as real mail clients write them, each with
//! a golden `.expected` rendering of what dopis reads from it. On a mismatch
//! the actual rendering is written beside it as `.failed` (as mail-parser's
//! own tests do); set `DOPIS_BLESS=1` to accept new renderings as expected.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use dopis::adapter::mail::inbound::{self, AutomaticKind, ReturnPath, TextSource};
use dopis::domain::command::{self, Command, MoveText};
use dopis::domain::lang::Lang;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inbound")
}

fn mv(text: &str) -> MoveText {
    MoveText::new(text).unwrap_or_else(|| panic!("bad test move {text:?}"))
}

fn play(text: &str, offer_draw: bool) -> Command {
    Command::Move {
        text: mv(text),
        offer_draw,
    }
}

fn say(text: &str) -> Command {
    Command::Message(command::Message::new(text).unwrap_or_else(|| panic!("bad test message")))
}

/// What one fixture must read as, independent of its golden file.
struct Fixture {
    name: &'static str,
    /// The player's language, for reading commands.
    lang: Lang,
    /// The commands; `None` when the mail is unusable and `parse` must say so.
    commands: Option<Vec<Command>>,
    /// The automatic classification.
    automatic: Option<AutomaticKind>,
}

/// Every fixture as (name, language, commands, classification).
fn fixtures() -> Vec<Fixture> {
    use Command::*;
    type Row = (
        &'static str,
        Lang,
        Option<Vec<Command>>,
        Option<AutomaticKind>,
    );
    let rows: Vec<Row> = vec![
        (
            "gmail_top_posted",
            Lang::En,
            Some(vec![play("Nf3", false)]),
            None,
        ),
        (
            "outlook_windows1250_sl",
            Lang::Sl,
            Some(vec![
                play("Sf3", true),
                say("Še vedno mislim, da je pozicija izenačena.\nLp, Bojan"),
            ]),
            None,
        ),
        (
            "thunderbird_flowed_bottom_pl",
            Lang::Pl,
            Some(vec![
                play("Gxc4", false),
                say(
                    "Długo myślałem nad tym ruchem, ale chyba jest najlepszy w tej pozycji.\n\nPozdrawiam,\nJan",
                ),
            ]),
            None,
        ),
        (
            "thunderbird_html_bottom",
            Lang::En,
            Some(vec![
                play("0-0-0", false),
                say("Thanks for the game so far!"),
            ]),
            None,
        ),
        (
            "apple_mail_de",
            Lang::De,
            Some(vec![play("Lxf7+", true), say("Viele Grüße\nKlaus")]),
            None,
        ),
        (
            "iphone_de",
            Lang::De,
            Some(vec![Resign, say("Glückwunsch!")]),
            None,
        ),
        (
            "k9_base64_lv",
            Lang::Lv,
            Some(vec![play("Zf3", true)]),
            None,
        ),
        (
            "fairemail_conditionals",
            Lang::En,
            Some(vec![Conditional {
                lines: vec![
                    vec![mv("12...Nf6"), mv("13.e5"), mv("13...Nd5"), mv("14.c4")],
                    vec![mv("12...Bd7"), mv("13.Bxd7+")],
                ],
            }]),
            None,
        ),
        (
            "mutt_bottom_posted_lf",
            Lang::En,
            Some(vec![ClaimDraw { with_move: None }]),
            None,
        ),
        (
            "html_only_webmail_de",
            Lang::De,
            Some(vec![AcceptDraw, say("Viele Grüße,\nAnna")]),
            None,
        ),
        (
            "iso88592_qp_pl",
            Lang::Pl,
            Some(vec![AcceptDraw, say("Pozdrawiam\nAlicja")]),
            None,
        ),
        (
            "no_message_id",
            Lang::En,
            Some(vec![play("e2e4", false)]),
            None,
        ),
        (
            "bounce_dsn",
            Lang::En,
            // Never answered, whatever it reads as: a machine wrote it.
            Some(vec![say(
                "This is the mail system at host mail.example.org.\n\nI'm sorry to have to inform \
                 you that your message could not\nbe delivered to one or more recipients. It's \
                 attached below.\n\n                   The mail system\n\n<bob@nowhere.example>: \
                 host nowhere.example[192.0.2.7] said: 550 5.1.1\n    <bob@nowhere.example>: \
                 Recipient address rejected: User unknown",
            )]),
            Some(AutomaticKind::Bounce),
        ),
        (
            "vacation_autoreply",
            Lang::En,
            Some(vec![MoveThenWords {
                wrote: "Nf3 is what I would play anyway.".into(),
            }]),
            Some(AutomaticKind::AutoReply),
        ),
        (
            "exchange_out_of_office",
            Lang::Sl,
            Some(vec![say("Do 10. marca sem na dopustu.")]),
            Some(AutomaticKind::AutoReply),
        ),
        (
            "list_mail",
            Lang::En,
            Some(vec![play("Nf3", false)]),
            Some(AutomaticKind::List),
        ),
        (
            "broken_mime",
            Lang::En,
            Some(vec![Unknown {
                text: "TmYz!!!not base64".into(),
            }]),
            None,
        ),
        ("binary_junk", Lang::En, None, None),
        (
            "auto_reply_subject_only_pl",
            Lang::Pl,
            Some(vec![say(
                "Dzień dobry,\n\njestem na urlopie do 12 marca. W pilnych sprawach proszę \
                 dzwonić.\n\nAnna Kowalska",
            )]),
            Some(AutomaticKind::AutoReply),
        ),
        (
            "bounce_exim_plain",
            Lang::En,
            Some(vec![say(
                "This message was created automatically by mail delivery software.\n\nA message \
                 that you sent could not be delivered to one or more of its\nrecipients. This is a \
                 permanent error. The following address(es) failed:\n\n  carol@old-isp.example\n\
                 \x20   host mx.old-isp.example [192.0.2.9]\n    SMTP error from remote mail server \
                 after RCPT TO:<carol@old-isp.example>:\n    550 5.1.1 User unknown",
            )]),
            Some(AutomaticKind::Bounce),
        ),
    ];
    rows.into_iter()
        .map(|(name, lang, commands, automatic)| Fixture {
            name,
            lang,
            commands,
            automatic,
        })
        .collect()
}

/// The golden rendering: every field dopis reads, then the commands.
fn render(raw: &[u8], lang: Lang) -> String {
    let mail = match inbound::parse(raw) {
        Ok(mail) => mail,
        Err(e) => return format!("error: {e}\n"),
    };
    let mut out = String::new();
    let ids = |v: &[inbound::MessageId]| {
        v.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(out, "from: {}", mail.from);
    let _ = writeln!(
        out,
        "from-name: {}",
        mail.from_name.as_deref().unwrap_or("-")
    );
    let return_path = match &mail.return_path {
        None => "-".to_string(),
        Some(ReturnPath::Null) => "<>".to_string(),
        Some(ReturnPath::Address(a)) => format!("<{a}>"),
        Some(ReturnPath::Unreadable(t)) => format!("unreadable {t}"),
    };
    let _ = writeln!(out, "return-path: {return_path}");
    let recipients: Vec<String> = mail.recipients.iter().map(ToString::to_string).collect();
    let _ = writeln!(out, "recipients: {}", recipients.join(", "));
    let _ = writeln!(
        out,
        "message-id: {}",
        mail.message_id
            .as_ref()
            .map_or("-".to_string(), ToString::to_string)
    );
    let _ = writeln!(out, "key: {}", mail.idempotency_key);
    let _ = writeln!(out, "subject: {}", mail.subject);
    let _ = writeln!(out, "in-reply-to: {}", ids(&mail.in_reply_to));
    let _ = writeln!(out, "references: {}", ids(&mail.references));
    let _ = writeln!(
        out,
        "date: {}",
        mail.date.map_or("-".to_string(), |d| d.to_rfc3339())
    );
    let automatic = mail.automatic.as_ref().map_or("no".to_string(), |a| {
        format!("{:?} ({})", a.kind, a.evidence)
    });
    let _ = writeln!(out, "automatic: {automatic}");
    if let Some(bounce) = &mail.bounce {
        for (addr, status) in &bounce.failed {
            let _ = writeln!(
                out,
                "bounce failed: {addr} {}",
                status.as_deref().unwrap_or("-")
            );
        }
        for addr in &bounce.delayed {
            let _ = writeln!(out, "bounce delayed: {addr}");
        }
        let _ = writeln!(out, "bounce returned: {}", ids(&bounce.returned));
    }
    let _ = writeln!(out, "text-source: {:?}", mail.text_source);
    let reading = command::parse(&mail.text, lang);
    let _ = writeln!(out, "lang: {lang}");
    for c in &reading.commands {
        let _ = writeln!(out, "command: {c:?}");
    }
    for u in &reading.unread {
        let _ = writeln!(out, "unread: {u}");
    }
    let _ = writeln!(out, "text:");
    for line in mail.text.lines() {
        let _ = writeln!(out, "| {line}");
    }
    out
}

#[test]
fn every_fixture_reads_as_its_golden_file() {
    let bless = std::env::var_os("DOPIS_BLESS").is_some();
    let mut failed = Vec::new();
    for Fixture { name, lang, .. } in fixtures() {
        let eml = dir().join(format!("{name}.eml"));
        let raw = fs::read(&eml).unwrap_or_else(|e| panic!("{}: {e}", eml.display()));
        let actual = render(&raw, lang);
        let expected_path = dir().join(format!("{name}.expected"));
        let failed_path = dir().join(format!("{name}.failed"));
        if bless {
            fs::write(&expected_path, &actual).unwrap_or_else(|e| panic!("{e}"));
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if actual == expected {
            let _ = fs::remove_file(&failed_path);
        } else {
            fs::write(&failed_path, &actual).unwrap_or_else(|e| panic!("{e}"));
            failed.push(name);
        }
    }
    assert!(
        failed.is_empty(),
        "these fixtures differ from their .expected (see the .failed beside them): {failed:?}"
    );
}

#[test]
fn every_fixture_gives_the_right_commands_and_classification() {
    for Fixture {
        name,
        lang,
        commands,
        automatic,
    } in fixtures()
    {
        let raw =
            fs::read(dir().join(format!("{name}.eml"))).unwrap_or_else(|e| panic!("{name}: {e}"));
        match (inbound::parse(&raw), commands) {
            (Ok(mail), Some(commands)) => {
                assert_eq!(
                    command::parse(&mail.text, lang).commands,
                    commands,
                    "{name}"
                );
                assert_eq!(mail.automatic.map(|a| a.kind), automatic, "{name}");
            }
            (Err(_), None) => {}
            (got, want) => panic!("{name}: parsed {got:?}, wanted commands {want:?}"),
        }
    }
}

#[test]
fn every_eml_in_the_folder_is_in_the_table() {
    let listed: Vec<&str> = fixtures().iter().map(|f| f.name).collect();
    let entries = fs::read_dir(dir()).unwrap_or_else(|e| panic!("{e}"));
    let mut count = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "eml") {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            assert!(
                listed.contains(&stem.as_str()),
                "{stem}.eml has no row in fixtures()"
            );
            count += 1;
        }
    }
    assert!(count >= 14, "only {count} fixtures");
}

#[test]
fn plain_and_html_sources_are_both_covered() {
    let mut sources = Vec::new();
    for Fixture { name, .. } in fixtures() {
        let raw = fs::read(dir().join(format!("{name}.eml"))).unwrap_or_default();
        if let Ok(mail) = inbound::parse(&raw) {
            sources.push(mail.text_source);
        }
    }
    for source in [TextSource::Plain, TextSource::Html] {
        assert!(
            sources.contains(&source),
            "no fixture reads from {source:?}"
        );
    }
}
