//! Unit tests of composing: templates, fallback, wrapping, subjects, and
//! that hostile text cannot break a mail. The golden mails are in
//! `tests/it/outbound.rs`.

use chrono::{TimeZone, Utc};
use shakmaty::Color;

use super::templates::{TEXT_WIDTH, names, wrap};
use super::*;
use crate::domain::arbiter::{ConditionalNote, Reason};
use crate::domain::chess::game::StartPosition;
use crate::domain::ids::GameId;

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
        ratings: [None, None],
        tables: None,
        pairing: None,
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
        talk: None,
        page: None,
        calendar: None,
        unsubscribe: None,
    }
}

fn every_kind() -> Vec<LetterKind> {
    vec![
        LetterKind::GameStarted,
        LetterKind::YourMove,
        LetterKind::MoveAccepted { ply: 0 },
        LetterKind::GameOver,
        LetterKind::DrawOfferDeclined,
        LetterKind::Rejected {
            wrote: "x".into(),
            reason: Reason::NotACommand,
            kind: RejectionKind::Unreadable,
        },
        LetterKind::ConfirmRequest {
            command: "e4".into(),
        },
        LetterKind::Refused {
            reason: Reason::WrongToken { game: GameId(1) },
        },
        LetterKind::NotHandled {
            subject: "Re: [dopis #1] your move".into(),
            cause: crate::adapter::mail::compose::NotHandledCause::TooSlow,
        },
        LetterKind::NotHandled {
            subject: String::new(),
            cause: crate::adapter::mail::compose::NotHandledCause::Failed,
        },
        LetterKind::Help {
            examples: Vec::new(),
        },
        LetterKind::Status,
        LetterKind::Games { games: Vec::new() },
        LetterKind::Pgn,
        LetterKind::Reminder {
            deadline: "2026-12-02 17:00 UTC".into(),
            before_minutes: 24 * 60,
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
            left: vec![(2026, 37)],
        },
        LetterKind::LeaveRefused {
            wrote: "leave 2026-12-24 2027-01-02".into(),
            reason: Reason::LeaveNeedsGame,
        },
        LetterKind::LanguageChanged,
        LetterKind::XfccPassword {
            username: "ana@example.org".into(),
            password: "k7Qm3xYt9PzA2bVw4nRc".into(),
        },
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
            report: ReportView::default(),
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
fn a_reminder_says_how_far_the_deadline_is_in_words() {
    for (minutes, words) in [
        (24 * 60, "24 hours away"),
        (3 * 24 * 60, "3 days away"),
        (60, "1 hour away"),
        (90, "90 minutes away"),
    ] {
        let kind = LetterKind::Reminder {
            deadline: "2026-12-02 18:05 CET (17:05 UTC)".into(),
            before_minutes: minutes,
        };
        let game = view(game_after(&["e2e4"]), Some(Color::Black));
        let bytes = compose(&letter(kind, Lang::En, Some(game))).expect("composes");
        let text = text_part(&bytes)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.contains(words), "{minutes}: {text}");
        let html = html_part(&bytes);
        assert!(html.contains(words), "{minutes}: {html}");
    }
}

#[test]
fn help_names_every_command_in_the_readers_words_in_text_and_html() {
    let fold = |t: &str| {
        t.to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    for lang in [Lang::En, Lang::Sl, Lang::Pl, Lang::De, Lang::Lv] {
        let kind = LetterKind::Help {
            examples: vec!["Nf3".into()],
        };
        let bytes = compose(&letter(kind, lang, None)).expect("composes");
        let text = fold(&text_part(&bytes));
        let html = fold(&html_part(&bytes));
        for (command, phrases) in crate::domain::command::every_command(lang) {
            for (part, body) in [("text", &text), ("html", &html)] {
                assert!(
                    phrases.iter().any(|p| body.contains(&fold(p))),
                    "{lang:?} help ({part}) does not name '{command}' ({phrases:?}):\n{body}"
                );
            }
        }
    }
}

#[test]
fn help_tells_a_consultation_member_their_move_is_their_vote() {
    // And of open classes, promotions and the events that require one.
    let vote_words = [
        (Lang::En, "your move is your vote"),
        (Lang::Sl, "je vaša poteza vaš glas"),
        (Lang::Pl, "twój ruch jest twoim głosem"),
        (Lang::Lv, "jūsu gājiens ir jūsu balss"),
        (Lang::De, "ist ihr zug ihre stimme"),
        (Lang::En, "each is good for one entry"),
        (Lang::Sl, "vsaka velja za eno prijavo"),
        (Lang::Pl, "każda wystarcza na jedno zgłoszenie"),
        (Lang::Lv, "katra der vienam pieteikumam"),
        (Lang::De, "jede gilt für eine anmeldung"),
    ];
    for (lang, words) in vote_words {
        let kind = LetterKind::Help {
            examples: vec!["Nf3".into()],
        };
        let bytes = compose(&letter(kind, lang, None)).expect("composes");
        for body in [text_part(&bytes), html_part(&bytes)] {
            let body = body
                .to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            assert!(body.contains(words), "{lang:?}: {body}");
        }
    }
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
fn every_embedded_template_parses() {
    for name in names() {
        if let Err(e) = super::templates::parse_check(name) {
            panic!("{e}");
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
            reason: Reason::ConditionalIllegal {
                text: "a & b <i>".into(),
            },
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
            reason: Reason::ConditionalIllegal {
                text: "\0\t weird".into(),
            },
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
            LetterKind::MoveAccepted { ply: 1 },
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
            reason: Reason::NotACommand,
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

/// Only the digest carries List-Unsubscribe, a mailto: to its own reply
/// address that survives every delimiter (`=` is percent-encoded, RFC 6068).
#[test]
fn only_the_digest_says_how_to_unsubscribe() {
    let digest = every_kind()
        .into_iter()
        .find(|k| matches!(k, LetterKind::Digest { .. }))
        .expect("a digest");
    for (reply_to, want) in [
        (
            "chess+d7.abc@chess.test",
            "<mailto:chess+d7.abc@chess.test?subject=notify%20each>",
        ),
        (
            "chess=d7.abc@chess.test",
            "<mailto:chess%3Dd7.abc@chess.test?subject=notify%20each>",
        ),
    ] {
        let mut l = letter(digest.clone(), Lang::En, None);
        l.reply_to = Some(addr(reply_to));
        let bytes = compose(&l).expect("composes");
        let mail = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("parses");
        assert_eq!(
            mail.header_raw("List-Unsubscribe").map(str::trim),
            Some(want)
        );
    }
    for kind in every_kind()
        .into_iter()
        .filter(|k| !matches!(k, LetterKind::Digest { .. }))
    {
        let bytes = compose(&letter(
            kind.clone(),
            Lang::En,
            Some(view(game_after(&[]), None)),
        ))
        .expect("composes");
        let mail = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("parses");
        assert!(mail.header_raw("List-Unsubscribe").is_none(), "{kind:?}");
        assert!(
            mail.header_raw("List-Unsubscribe-Post").is_none(),
            "{kind:?}"
        );
    }
}

/// A mail the player chose in bulk with a one-click link (RFC 8058): the
/// link first, then the digest's mailto:, and `List-Unsubscribe-Post`;
/// without a link, no `List-Unsubscribe-Post`.
#[test]
fn a_one_click_link_is_offered_with_its_post_header() {
    let link = "https://chess.example/unsubscribe/7.digest.1796212800.abcdefghijkmnpqrstuvwxyz23";
    let digest = every_kind()
        .into_iter()
        .find(|k| matches!(k, LetterKind::Digest { .. }))
        .expect("a digest");
    let read = |l: &Letter| {
        let bytes = compose(l).expect("composes");
        let mail = mail_parser::MessageParser::default()
            .parse(&bytes)
            .expect("parses");
        (
            // Unfolded: a long header is folded onto a second line.
            mail.header_raw("List-Unsubscribe")
                .map(|v| v.replace("\r\n ", " ").trim().to_owned()),
            mail.header_raw("List-Unsubscribe-Post")
                .map(|v| v.trim().to_owned()),
        )
    };
    let mut l = letter(digest.clone(), Lang::Sl, None);
    l.reply_to = Some(addr("chess+d7.abc@chess.test"));
    l.unsubscribe = Some(link.to_owned());
    assert_eq!(
        read(&l),
        (
            Some(format!(
                "<{link}>, <mailto:chess+d7.abc@chess.test?subject=notify%20each>"
            )),
            Some("List-Unsubscribe=One-Click".to_owned())
        )
    );
    l.unsubscribe = None;
    assert_eq!(read(&l).1, None, "no one-click without a link");
    let announced = LetterKind::Entry {
        news: EntryNews::Announced {
            event: OpenEvent {
                id: 12,
                name: "Open 12".into(),
                time_control: "3d".into(),
                closes: "2027-02-01 23:59 UTC".into(),
                entered: 5,
                min: 3,
                max: 7,
                start_when_full: false,
                anyone: true,
                rating: None,
            },
        },
    };
    let mut l = letter(announced, Lang::Pl, None);
    l.unsubscribe = Some(link.replace("digest", "news"));
    assert_eq!(
        read(&l),
        (
            Some(format!("<{}>", link.replace("digest", "news"))),
            Some("List-Unsubscribe=One-Click".to_owned())
        )
    );
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
            reason: Reason::NotACommand,
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
        // A move number goes with its move; a date's numbers do not glue.
        ("played at once: 4. dxe5.", 18, "played at once:\n4. dxe5."),
        ("then 12... Sf6 came", 12, "then\n12... Sf6\ncame"),
        ("Rok: 2. 12. 2026 18:05", 10, "Rok: 2.\n12. 2026\n18:05"),
        ("in Club 2027. Twoje", 12, "in Club\n2027. Twoje"),
        // An abbreviation of initials stays on one line.
        ("Schreiben Sie z. B. Sf3", 16, "Schreiben Sie\nz. B. Sf3"),
        ("etwa also d. h. gut", 12, "etwa also\nd. h. gut"),
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

#[test]
fn a_withdrawal_forfeit_is_told_in_the_reader_s_language() {
    use crate::domain::chess::game::{EndReason, GameResult};
    use crate::domain::chess::outcome::WithdrawalForfeit;
    let forfeit = WithdrawalForfeit {
        player: "Bor".into(),
        event: "Spring Cup".into(),
    };
    let EndReason::Adjudication(why) = forfeit.end_reason() else {
        panic!("a forfeit is an adjudication");
    };
    let mut g = game_after(&["e2e4"]);
    g.adjudicate(GameResult::WhiteWins, why);
    let said = [
        (Lang::En, "forfeit: Bor withdrew from Spring Cup"),
        (
            Lang::De,
            "Kampflos: Bor spielt nicht mehr im Turnier Spring Cup mit.",
        ),
        (
            Lang::Sl,
            "Brez boja: Bor ne igra več v turnirju Spring Cup.",
        ),
        (Lang::Pl, "Walkower: Bor nie gra już w turnieju Spring Cup."),
        (
            Lang::Lv,
            "Bez spēles: Bor vairs nepiedalās turnīrā Spring Cup.",
        ),
    ];
    for (lang, words) in said {
        let l = letter(
            LetterKind::GameOver,
            lang,
            Some(view(g.clone(), Some(Color::White))),
        );
        let bytes = compose(&l).expect("composes");
        let (text, html) = (text_part(&bytes), html_part(&bytes));
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(words), "{lang:?}: {text}");
        assert!(html.contains(words), "{lang:?}: {html}");
        if lang != Lang::En {
            assert!(!text.contains("withdrew"), "{lang:?}: {text}");
        }
    }
}

#[test]
fn the_deadline_report_is_written_in_the_reader_s_language_in_every_section() {
    let game = |n: i64, silent_days, band| ReportGame {
        game: n,
        tag: format!("#{n:<6}"),
        player: "Ana".into(),
        email: "ana@players.test".into(),
        opponent: "Bor".into(),
        time_control: "10/30d".into(),
        deadline: "2026-12-03 12:00 UTC".into(),
        silent_days,
        band,
        moves: None,
    };
    let report = ReportView {
        at: "2026-12-02 12:00 UTC".into(),
        due_until: "2026-12-05 12:00 UTC".into(),
        timeouts_since: "2026-12-01 12:00 UTC".into(),
        overdue: vec![game(1, 3, 0)],
        due_soon: vec![game(2, 5, 0)],
        silent: vec![game(3, 20, 14)],
        leave: vec![ReportLeave {
            player: "Bor".into(),
            email: "bor@players.test".into(),
            from: "2026-12-01".into(),
            to: "2026-12-09".into(),
            now: true,
            special: true,
        }],
        timeouts: vec![ReportTimeout {
            game: 4,
            tag: "#4     ".into(),
            white: "Ana".into(),
            black: "Bor".into(),
            result: "1/2-1/2".into(),
            drawn: true,
            at: "2026-12-01 17:00 UTC".into(),
        }],
    };
    let english = [
        "to move against",
        "deadline",
        "silent",
        "on time",
        "Past the",
        "Due by",
        "(now)",
        "special",
        "Days silent",
    ];
    for lang in [Lang::En, Lang::De, Lang::Sl, Lang::Pl, Lang::Lv] {
        let l = letter(
            LetterKind::DeadlineReport {
                event: "Mail cup".into(),
                report: report.clone(),
            },
            lang,
            None,
        );
        let bytes = compose(&l).expect("composes");
        let (text, html) = (text_part(&bytes), html_part(&bytes));
        for cell in ["#1 ", "#2 ", "#3 ", "#4 ", "(14/28/35: 14+)", "2026-12-09"] {
            assert!(text.contains(cell), "{lang:?}: {cell} in {text}");
        }
        assert!(
            html.contains("<td style=") && html.contains("#4</td>"),
            "{lang:?}: {html}"
        );
        assert!(
            text.lines().all(|l| l.chars().count() <= 78),
            "{lang:?}: {text}"
        );
        if lang == Lang::En {
            assert!(
                english.iter().all(|w| text.contains(w) || html.contains(w)),
                "{text}"
            );
        } else {
            for w in english {
                assert!(
                    !text.contains(w) && !html.contains(w),
                    "{lang:?}: {w:?} in {text}\n{html}"
                );
            }
        }
    }
}

/// One of every typed reason and note, each rules-core reason inside it
/// too, so that a sentence missing from a language shows.
fn every_reason() -> Vec<serde_json::Value> {
    let (reasons, notes) = every_reason_typed();
    let mut values: Vec<serde_json::Value> = reasons.iter().map(super::words::reason).collect();
    values.extend(notes.iter().map(|n| super::words::note(n, None, Lang::En)));
    values
}

fn every_reason_typed() -> (Vec<Reason>, Vec<ConditionalNote>) {
    use crate::domain::chess::game::{ClaimRejected, EndReason, GameError, GameResult, Outcome};
    use crate::domain::chess::notation::{Area, Candidate, IllegalReason, Meaning, MoveTextError};
    use crate::domain::clock::{Leave, LeaveError};
    use shakmaty::{CastlingSide, File, Rank, Role, Square};

    let day = |m, d| chrono::NaiveDate::from_ymd_opt(2026, m, d).expect("a date");
    let won = Outcome::new(GameResult::WhiteWins, EndReason::Checkmate);
    let outcomes = [
        won.clone(),
        Outcome::new(GameResult::BlackWins, EndReason::Resignation),
        Outcome::new(GameResult::WhiteWins, EndReason::TimeForfeit),
        Outcome::draw(EndReason::TimeForfeitOpponentCannotMate),
        Outcome::draw(EndReason::Stalemate),
        Outcome::draw(EndReason::DeadPosition),
        Outcome::draw(EndReason::FivefoldRepetition),
        Outcome::draw(EndReason::SeventyFiveMoveRule),
        Outcome::draw(EndReason::ThreefoldRepetition),
        Outcome::draw(EndReason::FiftyMoveRule),
        Outcome::draw(EndReason::Agreement),
        Outcome::new(
            GameResult::BlackWins,
            EndReason::Adjudication("forfeit".into()),
        ),
    ];
    let illegal = [
        IllegalReason::NoPieceOn { square: Square::E3 },
        IllegalReason::NotYourPiece {
            square: Square::E7,
            role: Role::Pawn,
        },
        IllegalReason::WrongPiece {
            square: Square::G1,
            written: Role::Bishop,
            found: Role::Knight,
        },
        IllegalReason::NoSuchPiece {
            role: Role::Queen,
            place: None,
        },
        IllegalReason::NoSuchPiece {
            role: Role::Rook,
            place: Some(Area::Square(Square::A3)),
        },
        IllegalReason::NoSuchPiece {
            role: Role::Knight,
            place: Some(Area::File(File::B)),
        },
        IllegalReason::NoSuchPiece {
            role: Role::Bishop,
            place: Some(Area::Rank(Rank::Second)),
        },
        IllegalReason::CannotReach {
            role: Role::Knight,
            from: Some(Square::B1),
            to: Square::D3,
        },
        IllegalReason::CannotReach {
            role: Role::Bishop,
            from: None,
            to: Square::H3,
        },
        IllegalReason::OwnPieceOn {
            square: Square::E2,
            role: Role::Pawn,
        },
        IllegalReason::NothingToCapture { square: Square::D5 },
        IllegalReason::PromotionNeeded { to: Square::A8 },
        IllegalReason::NoPromotionHere,
        IllegalReason::CannotPromoteTo { role: Role::King },
        IllegalReason::Pinned {
            role: Role::Knight,
            square: Square::C3,
            by_role: Role::Bishop,
            by: Square::B4,
        },
        IllegalReason::InCheck {
            by_role: Role::Queen,
            by: Square::H4,
        },
        IllegalReason::KingWouldBeInCheck {
            on: Some(Square::F2),
        },
        IllegalReason::KingWouldBeInCheck { on: None },
        IllegalReason::KingHasMoved,
        IllegalReason::RookHasMoved {
            square: Square::H1,
            side: CastlingSide::KingSide,
        },
        IllegalReason::CastlingRightLost {
            side: CastlingSide::QueenSide,
        },
        IllegalReason::CastlingOutOfCheck {
            by_role: Role::Rook,
            by: Square::E8,
        },
        IllegalReason::CastlingBlocked {
            side: CastlingSide::KingSide,
            square: Square::G1,
        },
        IllegalReason::CastlingThroughCheck {
            side: CastlingSide::KingSide,
            square: Square::F1,
            by_role: Role::Bishop,
            by: Square::C4,
        },
        IllegalReason::CastlingIntoCheck {
            side: CastlingSide::QueenSide,
            square: Square::C1,
        },
    ];
    let candidate = |meaning| Candidate {
        san: "Nbd2".into(),
        uci: "b1d2".into(),
        written: "Nbd2".into(),
        meaning,
    };
    let mut move_errors: Vec<MoveTextError> = illegal
        .into_iter()
        .map(|reason| MoveTextError::Illegal {
            text: "Nd3".into(),
            reason,
        })
        .collect();
    move_errors.extend([
        MoveTextError::Ambiguous {
            text: "Nd2".into(),
            candidates: vec![
                candidate(Meaning::Move {
                    role: Role::Knight,
                    from: Square::B1,
                    to: Square::D2,
                    promotion: None,
                }),
                candidate(Meaning::Move {
                    role: Role::Pawn,
                    from: Square::E7,
                    to: Square::D8,
                    promotion: Some(Role::Queen),
                }),
                candidate(Meaning::Castling(CastlingSide::KingSide)),
            ],
        },
        MoveTextError::Unreadable {
            text: "xyz".into(),
            read: "xyz".into(),
            examples: vec!["Nf3".into(), "g1-f3".into()],
        },
        MoveTextError::WrongMoveNumber {
            written: "12...".into(),
            expected: "13.".into(),
        },
    ]);
    let leave = Leave::new(day(12, 24), day(12, 31)).expect("a leave");
    let mut reasons: Vec<Reason> = move_errors.iter().cloned().map(Reason::Move).collect();
    reasons.extend(outcomes.iter().cloned().map(Reason::GameOver));
    reasons.extend(outcomes.iter().cloned().map(|o| Reason::ClaimInvalid {
        why: ClaimRejected::MoveEndsGame(o),
        with_move: true,
    }));
    reasons.extend([
        Reason::Game(GameError::GameOver(won.clone())),
        Reason::Game(GameError::IllegalMove { uci: "e2e5".into() }),
        Reason::Game(GameError::UnreadableUci("zz".into())),
        Reason::Game(GameError::NoSuchPly(9)),
        Reason::Leave(LeaveError::EndsBeforeItStarts {
            from: day(12, 24),
            to: day(12, 20),
        }),
        Reason::Leave(LeaveError::TooLong { days: 400 }),
        Reason::Leave(LeaveError::NotInFuture { today: day(11, 29) }),
        Reason::Leave(LeaveError::PastIsFixed { today: day(11, 29) }),
        Reason::Leave(LeaveError::Overlaps { other: leave }),
        Reason::Leave(LeaveError::OverAllowance {
            year: 2026,
            left: 3,
            needs: 8,
            allowance: 45,
        }),
        Reason::Leave(LeaveError::NotBooked { leave }),
        Reason::NotYourTurn {
            to_move: Color::White,
        },
        Reason::DrawTooEarly {
            first: 20,
            with_move: true,
        },
        Reason::DrawTooSoon {
            between: 5,
            next: 12,
            with_move: false,
        },
        Reason::DrawNeedsMove,
        Reason::DrawOfferStands,
        Reason::NoDrawToAccept,
        Reason::NoDrawToDecline,
        Reason::ClaimNotYourMove,
        Reason::ClaimInvalid {
            why: ClaimRejected::GameOver(won.clone()),
            with_move: false,
        },
        Reason::ClaimInvalid {
            why: ClaimRejected::IllegalMove { uci: "e2e5".into() },
            with_move: true,
        },
        Reason::ClaimInvalid {
            why: ClaimRejected::NotYet {
                with_move: true,
                occurrences: 2,
                quiet_moves: 12,
            },
            with_move: true,
        },
        Reason::ConditionalOnYourMove,
        Reason::ConditionalShape,
        Reason::ConditionalMove {
            yours: true,
            text: "Nf3".into(),
            index: 2,
            why: move_errors[0].clone(),
        },
        Reason::ConditionalMove {
            yours: false,
            text: "Nd2".into(),
            index: 1,
            why: move_errors[move_errors.len() - 3].clone(),
        },
        Reason::ConditionalIllegal { text: "Nf3".into() },
        Reason::Empty,
        Reason::NotACommand,
        Reason::ReportNotHere,
        Reason::Annulled,
        Reason::NoGameInProgress,
        Reason::WhichGame {
            games: vec![GameId(3), GameId(4)],
        },
        Reason::NotInEvent { game: GameId(3) },
        Reason::LeaveNeedsGame,
        Reason::ConfirmationNotYours {
            from: "eve@x.test".into(),
        },
        Reason::NoSuchGame { game: GameId(9) },
        Reason::NotYourAddress {
            game: GameId(9),
            from: "eve@x.test".into(),
        },
        Reason::WrongToken { game: GameId(9) },
        Reason::NotYourGame { game: GameId(9) },
        Reason::NotYourSidesMove {
            game: GameId(9),
            team: "Koper".into(),
        },
        Reason::MembersVote {
            game: GameId(9),
            captain: "Ana Novak".into(),
        },
        Reason::UnknownSender {
            from: "eve@x.test".into(),
        },
        Reason::Unsigned {
            from: "eve@x.test".into(),
        },
        Reason::DigestNotYourAddress {
            from: "eve@x.test".into(),
        },
        Reason::DigestWrongToken,
        Reason::XfccNeedsGame,
        Reason::DigestLinesUnnamed {
            example: GameId(9),
            games: vec!["#9 (Ana Novak)".into()],
        },
    ]);
    let notes = vec![
        ConditionalNote::Set,
        ConditionalNote::None,
        ConditionalNote::Listed,
        ConditionalNote::Cancelled,
        ConditionalNote::HadNone,
        ConditionalNote::Unexpected { ply: 0 },
    ];
    (reasons, notes)
}

#[test]
fn english_reasons_read_as_the_rules_core_words_them() {
    // The English template says what the typed errors' own Display says,
    // word for word, so English mails did not change when reasons got types.
    let en = |r: &Reason| super::templates::words(Lang::En, &super::words::reason(r)).unwrap();
    let (reasons, _) = every_reason_typed();
    let mut checked = 0;
    for r in &reasons {
        let expected = match r {
            Reason::Move(e) => e.to_string(),
            Reason::Game(e) => e.to_string(),
            Reason::Leave(e) => e.to_string(),
            Reason::GameOver(o) => {
                format!("the game is already over: {o} Nothing more can be played in it.")
            }
            Reason::ClaimInvalid { why, with_move } => format!(
                "the draw claim is not valid: {why}.{}",
                if *with_move {
                    " The move you named was NOT played either: the game goes on from the same position, and it is still your move."
                } else {
                    " The game goes on, and it is still your move."
                }
            ),
            _ => continue,
        };
        assert_eq!(
            en(r),
            expected.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        checked += 1;
    }
    assert!(checked > 40, "{checked}");
}

#[test]
fn no_reason_reaches_a_non_english_mail_in_english() {
    // Whole English words that none of the other languages uses; a
    // sentence missing from a language's reason.txt would come out empty,
    // and one taken from English would carry them.
    const ENGLISH: &[&str] = &[
        "the", "your", "you", "is", "not", "cannot", "move", "game", "castling", "draw", "piece",
        "there", "this", "with", "which", "can", "be", "played", "king", "queen", "rook", "bishop",
        "knight", "pawn", "leave", "wins", "drawn", "claim",
    ];
    for lang in [Lang::De, Lang::Sl, Lang::Pl, Lang::Lv] {
        assert!(
            names().any(|n| n == format!("{}/reason.txt", lang.code())),
            "{lang:?} has no reason.txt of its own"
        );
    }
    for value in every_reason() {
        let english = super::templates::words(Lang::En, &value).expect("renders");
        assert!(!english.is_empty(), "no English words for {value}");
        for lang in [Lang::De, Lang::Sl, Lang::Pl, Lang::Lv] {
            let text = super::templates::words(lang, &value).expect("renders");
            assert!(!text.is_empty(), "{lang:?}: no words for {value}");
            assert_ne!(text, english, "{lang:?}: {value}");
            let words: Vec<String> = text
                .split(|c: char| !c.is_alphanumeric())
                .map(str::to_lowercase)
                .collect();
            for w in ENGLISH {
                assert!(
                    !words.iter().any(|x| x == w),
                    "{lang:?}: English \"{w}\" in \"{text}\" ({value})"
                );
            }
        }
    }
}
