//! Unit tests of composing: templates, fallback, wrapping, subjects, and
//! that hostile text cannot break a mail. The golden mails are in
//! `tests/it/outbound.rs`.

use chrono::{TimeZone, Utc};
use shakmaty::Color;

use super::templates::{TEXT_WIDTH, names, wrap};
use super::*;
use crate::chess::game::StartPosition;

fn addr(text: &str) -> EmailAddress {
    EmailAddress::parse(text).expect("test address")
}

fn game_after(ucis: &[&str]) -> Game {
    Game::replay(StartPosition::Standard, ucis).expect("test moves replay")
}

fn view(game: Game, recipient: Option<Color>) -> GameView {
    GameView {
        id: 7,
        white: "Ana".to_owned(),
        black: "Bor".to_owned(),
        recipient,
        game,
        time_control: "3d".to_owned(),
        deadline: None,
        deadline_at: None,
        analysis_url: None,
        clocks: None,
        draw_offer_from: None,
        pgn: None,
    }
}

fn letter(kind: LetterKind, lang: Lang, game: Option<GameView>) -> Letter {
    Letter {
        kind,
        lang,
        from: Party {
            name: "dopis".to_owned(),
            address: addr("chess@chess.test"),
        },
        to: Party {
            name: "Ana".to_owned(),
            address: addr("ana@players.test"),
        },
        reply_to: Some(addr("chess+g7.abc@chess.test")),
        message_id: MessageId::parse("dopis.g7.1@chess.test").expect("id"),
        in_reply_to: None,
        references: Vec::new(),
        date: Utc
            .with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
            .single()
            .expect("date"),
        game,
    }
}

fn every_kind() -> Vec<LetterKind> {
    vec![
        LetterKind::GameStarted,
        LetterKind::YourMove,
        LetterKind::MoveAccepted { san: "e4".into() },
        LetterKind::GameOver,
        LetterKind::DrawOfferDeclined,
        LetterKind::Rejected {
            wrote: "x".into(),
            explanation: "y".into(),
            kind: RejectionKind::Unreadable,
        },
        LetterKind::ConfirmRequest {
            command: "e4".into(),
        },
        LetterKind::Refused {
            explanation: "no".into(),
        },
        LetterKind::NotHandled {
            subject: "Re: [dopis #1] your move".into(),
            cause: crate::mail::compose::NotHandledCause::TooSlow,
        },
        LetterKind::NotHandled {
            subject: String::new(),
            cause: crate::mail::compose::NotHandledCause::Failed,
        },
        LetterKind::Help {
            examples: Vec::new(),
        },
        LetterKind::Status,
        LetterKind::Games { lines: Vec::new() },
        LetterKind::Pgn,
        LetterKind::NotYetSupported {
            command: "leave".into(),
        },
        LetterKind::Reminder {
            deadline: "2026-12-02 17:00 UTC".into(),
            before: "24 hours".into(),
        },
        LetterKind::Silence {
            days: 14,
            deadline: None,
        },
        LetterKind::LeaveNotice {
            player: "Ana".into(),
            until: "2027-01-03 00:00 UTC".into(),
        },
        LetterKind::LeaveBooked {
            from: "2026-12-24".into(),
            to: "2027-01-02".into(),
            days: 10,
            left: "37 days left in 2026".into(),
        },
        LetterKind::LeaveRefused {
            wrote: "leave 2026-12-24 2027-01-02".into(),
            explanation: "no".into(),
        },
        LetterKind::LanguageChanged,
        LetterKind::NotifyChanged {
            digest: true,
            at: "07:00 (UTC)".into(),
        },
        LetterKind::NotifyChanged {
            digest: false,
            at: "07:00 (UTC)".into(),
        },
        LetterKind::Digest {
            games: vec![
                DigestGame {
                    view: view(game_after(&["e2e4"]), Some(Color::Black)),
                    reply_to: EmailAddress::parse("chess+g7.abcdefghij@chess.test").unwrap(),
                },
                DigestGame {
                    view: view(game_after(&["d2d4", "d7d5", "c2c4"]), Some(Color::Black)),
                    reply_to: EmailAddress::parse("chess+g8.abcdefghij@chess.test").unwrap(),
                },
            ],
        },
        LetterKind::DeadlineReport {
            event: "Mail cup".into(),
            text: "Deadline report at 2026-12-02 12:00 UTC".into(),
            html: "<table class=\"report\"><tr><td>none</td></tr></table>".into(),
        },
        LetterKind::ReportInstructions {
            event: "Mail cup".into(),
        },
        LetterKind::AddressBounces {
            player: "Bor".into(),
            address: "bor@players.test".into(),
            bounces: 3,
            days: 7,
            status: "5.1.1".into(),
            games: vec!["#7: Ana – Bor".into()],
        },
    ]
}

fn text_part(bytes: &[u8]) -> String {
    let mail = mail_parser::MessageParser::default()
        .parse(bytes)
        .expect("parses");
    mail.body_text(0)
        .map(|t| t.into_owned())
        .unwrap_or_default()
}

fn html_part(bytes: &[u8]) -> String {
    let mail = mail_parser::MessageParser::default()
        .parse(bytes)
        .expect("parses");
    mail.body_html(0)
        .map(|t| t.into_owned())
        .unwrap_or_default()
}

#[test]
fn every_kind_has_a_text_and_html_template_in_every_translated_language() {
    let all: Vec<&str> = names().collect();
    for lang in ["en", "sl", "pl", "lv", "de"] {
        for kind in every_kind() {
            for ext in ["txt", "html"] {
                let name = format!("{lang}/{}.{ext}", kind.template_name());
                assert!(all.contains(&name.as_str()), "missing {name}");
            }
        }
    }
}

#[test]
fn a_translation_has_no_file_that_english_lacks() {
    // A misspelt file name would silently never be used.
    let all: Vec<&str> = names().collect();
    for name in &all {
        let (_, file) = name.split_once('/').expect("lang/file");
        assert!(
            all.contains(&format!("en/{file}").as_str()),
            "{name} has no English original"
        );
    }
}

#[test]
fn every_kind_composes_with_and_without_a_game_in_several_languages() {
    let started = game_after(&["e2e4", "e7e5"]);
    for kind in every_kind() {
        for lang in [Lang::En, Lang::Sl, Lang::Pl, Lang::Lv, Lang::De] {
            for game in [None, Some(view(started.clone(), Some(Color::White)))] {
                let with_game = game.is_some();
                let l = letter(kind.clone(), lang, game);
                match compose(&l) {
                    Ok(bytes) => {
                        assert!(!text_part(&bytes).is_empty(), "{kind:?}: empty text");
                        assert!(!subject(&l).is_empty());
                    }
                    // A mail about a game without one is the caller's bug,
                    // reported as such rather than sent half empty.
                    Err(ComposeError::NeedsGame(name)) if !with_game => {
                        assert_eq!(name, kind.template_name());
                    }
                    Err(e) => panic!("{kind:?} {lang} game={with_game}: {e}"),
                }
            }
        }
    }
}

#[test]
fn moves_are_shown_in_the_recipients_piece_letters() {
    // 1. Nf3 Nf6: Slovenian knights are S, Polish S, German S, Latvian Z.
    let g = game_after(&["g1f3", "g8f6"]);
    for (lang, want) in [
        (Lang::En, "1. Nf3 Nf6"),
        (Lang::Sl, "1. Sf3 Sf6"),
        (Lang::Pl, "1. Sf3 Sf6"),
        (Lang::Lv, "1. Zf3 Zf6"),
        (Lang::De, "1. Sf3 Sf6"),
    ] {
        let l = letter(
            LetterKind::YourMove,
            lang,
            Some(view(g.clone(), Some(Color::White))),
        );
        let text = text_part(&compose(&l).expect("composes"));
        assert!(text.contains(want), "{lang}: {want:?} not in\n{text}");
    }
}

#[test]
fn the_board_is_seen_from_the_recipients_side() {
    let g = game_after(&["e2e4"]);
    for (side, first_rank_row) in [(Color::White, "1  R  N  B"), (Color::Black, "8  r  n  b")] {
        let l = letter(
            LetterKind::Status,
            Lang::En,
            Some(view(g.clone(), Some(side))),
        );
        let text = text_part(&compose(&l).expect("composes"));
        let last_board_row = text
            .lines()
            .rfind(|l| l.starts_with("1  ") || l.starts_with("8  "))
            .unwrap_or("");
        // The bottom row is the recipient's own back rank.
        assert!(
            last_board_row.starts_with(&first_rank_row[..1]),
            "{side:?}: bottom row {last_board_row:?}"
        );
    }
}

#[test]
fn html_escapes_what_players_and_callers_wrote() {
    let l = letter(
        LetterKind::Rejected {
            wrote: "<script>alert(1)</script>".into(),
            explanation: "a & b <i>".into(),
            kind: RejectionKind::Unreadable,
        },
        Lang::En,
        Some(view(game_after(&[]), Some(Color::White))),
    );
    let html = html_part(&compose(&l).expect("composes"));
    assert!(!html.contains("<script>"), "{html}");
    assert!(html.contains("&lt;script&gt;"), "{html}");
    assert!(html.contains("a &amp; b &lt;i&gt;"), "{html}");
}

#[test]
fn hostile_names_and_quotes_cannot_add_headers_or_break_the_subject() {
    let mut v = view(game_after(&["e2e4"]), Some(Color::Black));
    v.white = "Eve\r\nBcc: victim@x.test".into();
    let mut l = letter(
        LetterKind::Rejected {
            wrote: "e5\r\nX-Evil: 1\n\n".into(),
            explanation: "\0\t weird".into(),
            kind: RejectionKind::Illegal,
        },
        Lang::En,
        Some(v),
    );
    l.to.name = "Mallory\r\nX-Injected: yes".into();
    let bytes = compose(&l).expect("composes");
    let mail = mail_parser::MessageParser::default()
        .parse(&bytes)
        .expect("parses");
    assert!(mail.header_raw("Bcc").is_none());
    assert!(mail.header_raw("X-Injected").is_none());
    assert!(mail.header_raw("X-Evil").is_none());
    let s = subject(&l);
    assert!(!s.contains('\n') && !s.contains('\r'), "{s:?}");
    assert_eq!(mail.subject(), Some(s.as_str()));
}

#[test]
fn subjects_carry_the_game_tag_and_say_what_happened() {
    let g = game_after(&["e2e4", "g8f6"]);
    let cases = [
        (
            LetterKind::YourMove,
            Lang::En,
            "[dopis #7] Your move: Bor played Nf6",
        ),
        (
            LetterKind::YourMove,
            Lang::Sl,
            "[dopis #7] Na potezi ste: Bor igra Sf6",
        ),
        (
            LetterKind::MoveAccepted { san: "Sf6".into() },
            Lang::Sl,
            "[dopis #7] Poteza sprejeta: Sf6",
        ),
        (
            LetterKind::YourMove,
            Lang::Pl,
            "[dopis #7] Twój ruch: Bor gra Sf6",
        ),
        (
            LetterKind::YourMove,
            Lang::Lv,
            "[dopis #7] Jūsu gājiens: Bor spēlēja Zf6",
        ),
        (
            LetterKind::YourMove,
            Lang::De,
            "[dopis #7] Sie sind am Zug: Bor spielte Sf6",
        ),
        (
            LetterKind::LanguageChanged,
            Lang::Pl,
            "[dopis #7] Język: polski",
        ),
        (LetterKind::Status, Lang::En, "[dopis #7] Status: your move"),
    ];
    for (kind, lang, want) in cases {
        let l = letter(kind, lang, Some(view(g.clone(), Some(Color::White))));
        assert_eq!(subject(&l), want);
    }
    let help = letter(LetterKind::Help { examples: vec![] }, Lang::En, None);
    assert_eq!(subject(&help), "[dopis] Help: how to play by e-mail");
}

#[test]
fn a_very_long_quoted_text_is_cut_in_the_subject() {
    let l = letter(
        LetterKind::Rejected {
            wrote: "Nf3 ".repeat(200),
            explanation: "too long".into(),
            kind: RejectionKind::Unreadable,
        },
        Lang::En,
        None,
    );
    let s = subject(&l);
    assert!(s.chars().count() <= 130, "{s}");
    assert!(s.ends_with('…'), "{s}");
}

#[test]
fn the_same_letter_gives_the_same_bytes() {
    let l = letter(
        LetterKind::YourMove,
        Lang::En,
        Some(view(game_after(&["d2d4"]), Some(Color::Black))),
    );
    assert_eq!(compose(&l).expect("a"), compose(&l).expect("b"));
}

#[test]
fn auto_submitted_says_whether_the_mail_answers_a_player() {
    for (in_reply_to, want) in [
        (None, "auto-generated"),
        (MessageId::parse("p@players.test"), "auto-replied"),
    ] {
        let mut l = letter(LetterKind::Help { examples: vec![] }, Lang::En, None);
        l.in_reply_to = in_reply_to;
        let bytes = compose(&l).expect("composes");
        let mail = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("parses");
        assert_eq!(mail.header_raw("Auto-Submitted").map(str::trim), Some(want));
    }
}

#[test]
fn every_mail_names_us_in_x_loop() {
    let bytes = compose(&letter(
        LetterKind::Status,
        Lang::En,
        Some(view(game_after(&[]), None)),
    ))
    .expect("composes");
    let mail = mail_parser::MessageParser::default()
        .parse(&bytes)
        .expect("parses");
    assert_eq!(
        mail.header_raw("X-Loop").map(str::trim),
        Some("chess@chess.test")
    );
}

#[test]
fn line_breaks_and_control_characters_from_players_never_make_a_header() {
    // What a player wrote comes back in our subject ("Could not read …")
    // and names in From/To: none of it may end a header line and start
    // another, and no control character reaches a header.
    let wrote = "e4\r\nBcc: evil@x.test\r\n\r\nbody\0\x1b\u{85}X-Injected: 1\u{2028}more";
    let mut l = letter(
        LetterKind::Rejected {
            wrote: wrote.to_owned(),
            explanation: "x".to_owned(),
            kind: RejectionKind::Unreadable,
        },
        Lang::En,
        None,
    );
    l.to.name = "Ana\r\nBcc: evil@x.test\0".to_owned();
    l.from.name = "dopis\nX-Injected: 2".to_owned();
    let bytes = compose(&l).expect("composes");
    let head_end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&bytes[..head_end]);
    for line in head.split("\r\n") {
        let name = line.split(':').next().unwrap_or_default();
        assert!(
            line.starts_with([' ', '\t']) || !name.contains(' '),
            "not a header line: {line:?}"
        );
        assert!(!name.eq_ignore_ascii_case("bcc") && !name.eq_ignore_ascii_case("x-injected"));
        assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
    }
    let mail = mail_parser::MessageParser::default()
        .parse(&bytes)
        .expect("parses");
    assert!(mail.header("Bcc").is_none());
    assert_eq!(
        mail.to().and_then(|a| a.first()).and_then(|a| a.address()),
        Some("ana@players.test")
    );
    let subject = mail.subject().unwrap_or_default();
    assert!(subject.contains("Bcc: evil@x.test"), "{subject:?}");
    assert!(!subject.chars().any(char::is_control), "{subject:?}");
}

#[test]
fn wrapping_keeps_short_lines_and_breaks_long_ones_at_words() {
    let cases = [
        ("short  aligned  line", 20, "short  aligned  line"),
        ("one two three four five", 10, "one two\nthree four\nfive"),
        ("a\n\nb", 10, "a\n\nb"),
        ("averyveryverylongword x", 10, "averyveryverylongword\nx"),
    ];
    for (text, width, want) in cases {
        assert_eq!(wrap(text, width), want, "{text:?}");
    }
    let long = "word ".repeat(100);
    assert!(
        wrap(&long, TEXT_WIDTH)
            .lines()
            .all(|l| l.chars().count() <= TEXT_WIDTH)
    );
}

#[test]
fn a_language_without_its_own_templates_falls_back_to_english() {
    // Czech has piece letters but no templates: a Czech player gets
    // English words with Czech piece letters (J = knight).
    let g = game_after(&["g1f3"]);
    let l = letter(
        LetterKind::YourMove,
        Lang::Cs,
        Some(view(g, Some(Color::Black))),
    );
    let text = text_part(&compose(&l).expect("composes"));
    assert!(text.contains("It is your move"), "{text}");
    assert!(text.contains("1. Jf3"), "{text}");
}
