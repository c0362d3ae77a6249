use super::*;
use proptest::prelude::*;

fn mv(text: &str) -> MoveText {
    MoveText::new(text).unwrap_or_else(|| panic!("test move text {text:?} is invalid"))
}

fn play(text: &str) -> Command {
    Command::Move {
        text: mv(text),
        offer_draw: false,
    }
}

fn play_and_offer(text: &str) -> Command {
    Command::Move {
        text: mv(text),
        offer_draw: true,
    }
}

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap_or_else(|| panic!("bad test date {y}-{m}-{d}"))
}

fn say(text: &str) -> Command {
    Command::Message(Message::new(text).expect("a message"))
}

fn unknown(text: &str) -> Command {
    Command::Unknown {
        text: text.to_string(),
    }
}

#[test]
fn each_way_of_writing_a_command_is_read_as_that_command() {
    use Command::*;
    let cases: Vec<(Lang, &str, Vec<Command>)> = vec![
        (Lang::En, "Nf3", vec![play("Nf3")]),
        (
            Lang::En,
            "  nf3 is not a move shape but Nf3 is\nNf3",
            vec![play("Nf3")],
        ),
        (Lang::En, "12...Nf6", vec![play("12...Nf6")]),
        (Lang::En, "12. Nf3", vec![play("12. Nf3")]),
        (Lang::En, "e2e4", vec![play("e2e4")]),
        (Lang::En, "5254", vec![play("5254")]),
        (Lang::Sl, "Sf3", vec![play("Sf3")]),
        (Lang::En, "♘f3", vec![play("♘f3")]),
        (Lang::En, "O-O!", vec![play("O-O!")]),
        (Lang::En, "Nf3.", vec![play("Nf3")]),
        (
            Lang::En,
            "Nf3. Good luck!",
            vec![play("Nf3"), say("Good luck!")],
        ),
        (Lang::En, "Thanks for the game! I resign.", vec![Resign]),
        (
            Lang::En,
            "Draw? The position is dead equal.",
            vec![OfferDraw, say("The position is dead equal.")],
        ),
        (
            Lang::De,
            "Ich gebe auf. Glückwunsch!",
            vec![Resign, say("Glückwunsch!")],
        ),
        (Lang::En, "exd6 e.p.", vec![play("exd6 e.p.")]),
        (Lang::En, "e4 draw", vec![play_and_offer("e4")]),
        (Lang::En, "Nf3, offer draw", vec![play_and_offer("Nf3")]),
        (Lang::En, "draw Nf3", vec![play_and_offer("Nf3")]),
        (
            Lang::En,
            "Nf3 and I offer a draw.",
            vec![play_and_offer("Nf3")],
        ),
        (Lang::En, "Nf3\ndraw?", vec![play_and_offer("Nf3")]),
        (Lang::En, "My move: Nf3", vec![play("Nf3")]),
        (Lang::En, "draw", vec![OfferDraw]),
        (Lang::En, "Accept draw", vec![AcceptDraw]),
        (Lang::En, "I accept the draw!", vec![AcceptDraw]),
        (Lang::En, "decline draw", vec![DeclineDraw]),
        (
            Lang::En,
            "decline draw, Nf3",
            vec![DeclineDraw, play("Nf3")],
        ),
        (Lang::En, "RESIGN", vec![Resign]),
        (Lang::En, "I resign.", vec![Resign]),
        (Lang::En, "claim draw", vec![ClaimDraw { with_move: None }]),
        (
            Lang::En,
            "claim draw Nf3",
            vec![ClaimDraw {
                with_move: Some(mv("Nf3")),
            }],
        ),
        (
            Lang::En,
            "if 12...Nf6 13.e5 13...Nd5 14.c4",
            vec![Conditional {
                lines: vec![vec![
                    mv("12...Nf6"),
                    mv("13.e5"),
                    mv("13...Nd5"),
                    mv("14.c4"),
                ]],
            }],
        ),
        (
            Lang::En,
            "If Nf6 then e5.",
            vec![Conditional {
                lines: vec![vec![mv("Nf6"), mv("e5")]],
            }],
        ),
        (
            Lang::En,
            "Nf3\nif Nc6 Bb5\nif d6 d4",
            vec![
                play("Nf3"),
                Conditional {
                    lines: vec![vec![mv("Nc6"), mv("Bb5")], vec![mv("d6"), mv("d4")]],
                },
            ],
        ),
        (
            Lang::En,
            "if 12... Nf6 13. e5\nif 12...Bg4 13.h3",
            vec![Conditional {
                lines: vec![
                    vec![mv("12... Nf6"), mv("13. e5")],
                    vec![mv("12...Bg4"), mv("13.h3")],
                ],
            }],
        ),
        (
            Lang::En,
            "leave 2026-12-24 2027-01-02",
            vec![Leave {
                from: day(2026, 12, 24),
                to: day(2027, 1, 2),
            }],
        ),
        (
            Lang::En,
            "Leave 2026-12-24 to 2027-01-02",
            vec![Leave {
                from: day(2026, 12, 24),
                to: day(2027, 1, 2),
            }],
        ),
        (Lang::En, "status", vec![Status]),
        (Lang::En, "my games", vec![Games]),
        (Lang::En, "PGN", vec![Pgn]),
        (Lang::En, "help", vec![Help]),
        (Lang::En, "standings", vec![Standings]),
        (Lang::En, "report", vec![Report]),
        (Lang::En, "language pl", vec![Language(Lang::Pl)]),
        (Lang::En, "language Slovenian", vec![Language(Lang::Sl)]),
        (
            Lang::En,
            "notify digest",
            vec![Notify(super::Notify::Digest)],
        ),
        (Lang::En, "notify each", vec![Notify(super::Notify::Each)]),
        (Lang::En, "conditionals", vec![Conditionals]),
        (Lang::En, "cancel conditionals", vec![CancelConditionals]),
        // Polish.
        (Lang::Pl, "remis", vec![OfferDraw]),
        (Lang::Pl, "Sf3 remis", vec![play_and_offer("Sf3")]),
        (Lang::Pl, "Poddaję się.", vec![Resign]),
        (Lang::Pl, "poddaje sie", vec![Resign]),
        (Lang::Pl, "Przyjmuję remis", vec![AcceptDraw]),
        (Lang::Pl, "przyjmuje remis", vec![AcceptDraw]),
        (Lang::Pl, "odrzucam remis", vec![DeclineDraw]),
        (
            Lang::Pl,
            "żądam remisu",
            vec![ClaimDraw { with_move: None }],
        ),
        (
            Lang::Pl,
            "jeśli Gg4 to h3",
            vec![Conditional {
                lines: vec![vec![mv("Gg4"), mv("h3")]],
            }],
        ),
        (
            Lang::Pl,
            "urlop 24.12.2026 do 2.01.2027",
            vec![Leave {
                from: day(2026, 12, 24),
                to: day(2027, 1, 2),
            }],
        ),
        (Lang::Pl, "język sl", vec![Language(Lang::Sl)]),
        (Lang::Pl, "pomoc", vec![Help]),
        // Slovenian.
        (Lang::Sl, "remi", vec![OfferDraw]),
        (Lang::Sl, "Sf3 remi", vec![play_and_offer("Sf3")]),
        (Lang::Sl, "predaja", vec![Resign]),
        (Lang::Sl, "Predam.", vec![Resign]),
        (Lang::Sl, "sprejmem remi", vec![AcceptDraw]),
        (
            Lang::Sl,
            "če Sf6 potem e5",
            vec![Conditional {
                lines: vec![vec![mv("Sf6"), mv("e5")]],
            }],
        ),
        (
            Lang::Sl,
            "ce Sf6 potem e5",
            vec![Conditional {
                lines: vec![vec![mv("Sf6"), mv("e5")]],
            }],
        ),
        (Lang::Sl, "pomoc", vec![Help]),
        // Latvian.
        (Lang::Lv, "neizšķirts", vec![OfferDraw]),
        (Lang::Lv, "neizskirts", vec![OfferDraw]),
        (Lang::Lv, "Zf3 neizšķirts", vec![play_and_offer("Zf3")]),
        (Lang::Lv, "Es padodos", vec![Resign]),
        (Lang::Lv, "pieņemu neizšķirtu", vec![AcceptDraw]),
        (
            Lang::Lv,
            "atvaļinājums 2026-07-01 līdz 2026-07-14",
            vec![Leave {
                from: day(2026, 7, 1),
                to: day(2026, 7, 14),
            }],
        ),
        // German.
        (Lang::De, "Remis", vec![OfferDraw]),
        (Lang::De, "Sf3 Remis", vec![play_and_offer("Sf3")]),
        (Lang::De, "aufgeben", vec![Resign]),
        (Lang::De, "Ich gebe auf!", vec![Resign]),
        (Lang::De, "Remis angenommen", vec![AcceptDraw]),
        (
            Lang::De,
            "wenn Sf6 dann e5",
            vec![Conditional {
                lines: vec![vec![mv("Sf6"), mv("e5")]],
            }],
        ),
        (
            Lang::De,
            "Urlaub 24.12.2026 bis 2.1.2027",
            vec![Leave {
                from: day(2026, 12, 24),
                to: day(2027, 1, 2),
            }],
        ),
        // What the conditional, standings and leave mails teach, as they
        // write it, and without diacritics.
        (Lang::Sl, "pogojne poteze", vec![Conditionals]),
        (
            Lang::Sl,
            "prekliči pogojne poteze",
            vec![CancelConditionals],
        ),
        (
            Lang::Sl,
            "preklici pogojne poteze",
            vec![CancelConditionals],
        ),
        (Lang::Sl, "lestvica", vec![Standings]),
        (
            Lang::Sl,
            "dopust 24.12.2026 do 2.1.2027",
            vec![Leave {
                from: day(2026, 12, 24),
                to: day(2027, 1, 2),
            }],
        ),
        (
            Lang::Sl,
            "če Sc6 Lb5",
            vec![Conditional {
                lines: vec![vec![mv("Sc6"), mv("Lb5")]],
            }],
        ),
        (Lang::Pl, "ruchy warunkowe", vec![Conditionals]),
        (Lang::Pl, "anuluj ruchy warunkowe", vec![CancelConditionals]),
        (Lang::Pl, "tabela", vec![Standings]),
        (
            Lang::Pl,
            "jesli Sc6 Gb5",
            vec![Conditional {
                lines: vec![vec![mv("Sc6"), mv("Gb5")]],
            }],
        ),
        (Lang::Lv, "nosacījuma gājieni", vec![Conditionals]),
        (Lang::Lv, "nosacijuma gajieni", vec![Conditionals]),
        (
            Lang::Lv,
            "atcelt nosacījuma gājienus",
            vec![CancelConditionals],
        ),
        (Lang::Lv, "tabula", vec![Standings]),
        (
            Lang::Lv,
            "ja Zc6 Lb5",
            vec![Conditional {
                lines: vec![vec![mv("Zc6"), mv("Lb5")]],
            }],
        ),
        (Lang::De, "bedingte Züge", vec![Conditionals]),
        (Lang::De, "bedingte Züge löschen", vec![CancelConditionals]),
        (
            Lang::De,
            "bedingte zuege loeschen",
            vec![CancelConditionals],
        ),
        (Lang::De, "Tabelle", vec![Standings]),
        (
            Lang::De,
            "Urlaub 1.7.2027 bis 14.7.2027",
            vec![Leave {
                from: day(2027, 7, 1),
                to: day(2027, 7, 14),
            }],
        ),
        // What the deadline report mails teach a TD, with and without
        // diacritics, and the report's name in full.
        (Lang::Sl, "poročilo", vec![Report]),
        (Lang::Sl, "porocilo", vec![Report]),
        (Lang::Sl, "Poročilo o rokih", vec![Report]),
        (Lang::Pl, "raport", vec![Report]),
        (Lang::Pl, "raport terminow", vec![Report]),
        (Lang::Lv, "pārskats", vec![Report]),
        (Lang::Lv, "parskats", vec![Report]),
        (Lang::Lv, "termiņu pārskats", vec![Report]),
        (Lang::De, "Bericht", vec![Report]),
        (Lang::De, "Fristenbericht", vec![Report]),
        // What the digest and notify mails teach, with and without diacritics.
        (
            Lang::Sl,
            "obveščanje sproti",
            vec![Notify(super::Notify::Each)],
        ),
        (
            Lang::Sl,
            "obvescanje sproti",
            vec![Notify(super::Notify::Each)],
        ),
        (
            Lang::Sl,
            "obveščanje dnevno",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::Sl,
            "Obvescanje dnevno",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::Pl,
            "powiadomienia osobno",
            vec![Notify(super::Notify::Each)],
        ),
        (
            Lang::Pl,
            "powiadomienia codziennie",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::Lv,
            "paziņojumi atsevišķi",
            vec![Notify(super::Notify::Each)],
        ),
        (
            Lang::Lv,
            "pazinojumi atseviski",
            vec![Notify(super::Notify::Each)],
        ),
        (
            Lang::Lv,
            "paziņojumi katru dienu",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::Lv,
            "pazinojumi katru dienu",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::De,
            "Benachrichtigung einzeln",
            vec![Notify(super::Notify::Each)],
        ),
        (
            Lang::De,
            "Benachrichtigung täglich",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::De,
            "Benachrichtigung taeglich",
            vec![Notify(super::Notify::Digest)],
        ),
        (
            Lang::De,
            "benachrichtigung taglich",
            vec![Notify(super::Notify::Digest)],
        ),
        // English is read whatever the player's language.
        (Lang::Pl, "resign", vec![Resign]),
        (Lang::Lv, "accept draw", vec![AcceptDraw]),
    ];
    for (lang, text, expected) in cases {
        assert_eq!(parse(text, lang).commands, expected, "{lang}: {text:?}");
    }
}

#[test]
fn a_command_word_of_another_language_is_not_read() {
    for (lang, text) in [
        (Lang::En, "poddaję się"),
        (Lang::Sl, "padodos"),
        (Lang::Lv, "aufgeben"),
        (Lang::De, "predaja"),
    ] {
        assert_eq!(
            parse(text, lang).commands,
            vec![unknown(text)],
            "{lang}: {text}"
        );
    }
}

#[test]
fn greetings_before_the_command_are_kept_as_unread() {
    let reading = parse(
        "Hi Bob,\n\nthanks for the game so far.\n\nNf3\n\nCheers, Alice",
        Lang::En,
    );
    assert_eq!(reading.commands, vec![play("Nf3"), say("Cheers, Alice")]);
    assert_eq!(
        reading.unread,
        vec!["Hi Bob,", "thanks for the game so far."]
    );
}

#[test]
fn text_without_a_command_is_unknown_and_quotes_the_first_line() {
    for (text, quoted) in [
        ("", ""),
        ("   \n\n", ""),
        ("Hello there", "Hello there"),
        ("Nf3 or Ng5?", "Nf3 or Ng5?"),
        ("e4 e5", "e4 e5"),
        ("resign Nf3", "resign Nf3"),
        ("Thanks!", "Thanks!"),
        ("Good luck", "Good luck"),
        ("Nf9 please", "Nf9 please"),
    ] {
        assert_eq!(
            parse(text, Lang::En).commands,
            vec![unknown(quoted)],
            "{text:?}"
        );
    }
}

#[test]
fn a_command_started_but_not_finished_is_unknown_at_once() {
    for text in [
        "leave 2027-01-02 2026-12-24",
        "leave tomorrow\nNf3",
        "leave 2026-02-30 2026-03-02",
        "if Nf6",
        "if Nf6 then maybe e5",
        "language klingon",
        "notify sometimes",
    ] {
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(
            parse(text, Lang::En).commands,
            vec![unknown(first)],
            "{text:?}"
        );
    }
}

#[test]
fn only_the_first_lines_are_searched_for_a_command() {
    let chat = "la\n".repeat(MAX_LINES_SCANNED);
    let commands = parse(&format!("{chat}Nf3"), Lang::En).commands;
    assert!(
        !commands.iter().any(|c| matches!(c, Command::Move { .. })),
        "{commands:?}"
    );
    let chat = "la\n".repeat(MAX_LINES_SCANNED - 1);
    assert_eq!(
        parse(&format!("{chat}Nf3"), Lang::En).commands,
        vec![play("Nf3")]
    );
}

#[test]
fn the_lines_after_a_move_are_a_message_to_the_opponent() {
    for (text, lang, want) in [
        (
            "Gg4\nthanks for the game so far",
            Lang::Pl,
            vec![play("Gg4"), say("thanks for the game so far")],
        ),
        (
            "Nf3\n\nThanks for the game so far.\n\n\n\nSee you,\n  Ana",
            Lang::En,
            vec![
                play("Nf3"),
                say("Thanks for the game so far.\n\nSee you,\n  Ana"),
            ],
        ),
        (
            "e4 draw\nA draw would be fair, I think.",
            Lang::En,
            vec![play_and_offer("e4"), say("A draw would be fair, I think.")],
        ),
        (
            "e4\ndraw\nA draw would be fair.",
            Lang::En,
            vec![play_and_offer("e4"), say("A draw would be fair.")],
        ),
        (
            "e4\nif e5 Nf3\nif c5 Nc3\nMy plan, in case you wonder.",
            Lang::En,
            vec![
                play("e4"),
                Command::Conditional {
                    lines: vec![vec![mv("e5"), mv("Nf3")], vec![mv("c5"), mv("Nc3")]],
                },
                say("My plan, in case you wonder."),
            ],
        ),
        (
            "Ich gebe auf. Glückwunsch zum Sieg!",
            Lang::De,
            vec![Command::Resign, say("Glückwunsch zum Sieg!")],
        ),
        ("Nf3\n", Lang::En, vec![play("Nf3")]),
    ] {
        assert_eq!(parse(text, lang).commands, want, "{text:?}");
    }
}

#[test]
fn a_mail_of_prose_alone_is_a_message_and_a_move_with_words_on_its_line_is_not_played() {
    for text in [
        "Thanks for the game, good luck!",
        "What a nice game!\nI need to think.",
        "I will play Nf3 tomorrow, I think",
        "Hi Ana,\n\nI am away next week, sorry for the slow replies.",
    ] {
        assert_eq!(parse(text, Lang::En).commands, vec![say(text)], "{text:?}");
    }
    for (text, lang, wrote) in [
        ("Gg4 thanks", Lang::Pl, "Gg4 thanks"),
        ("Gg4 dziękuję za grę", Lang::Pl, "Gg4 dziękuję za grę"),
        ("12... Nf6 what a game", Lang::En, "12... Nf6 what a game"),
        ("Hi Bob,\nNf3 is my move", Lang::En, "Nf3 is my move"),
    ] {
        assert_eq!(
            parse(text, lang).commands,
            vec![Command::MoveThenWords {
                wrote: wrote.into()
            }],
            "{text:?}"
        );
    }
}

#[test]
fn a_message_loses_the_controls_that_would_reorder_its_text() {
    let m =
        Message::new("pay \u{202E}gnp.exe\u{202C} now \u{2067}x\u{2069}\u{200F}").expect("text");
    assert_eq!(m.as_str(), "pay gnp.exe now x");
    // Joiners some scripts need stay.
    let m = Message::new("क्\u{200D}ष").expect("text");
    assert_eq!(m.as_str(), "क्\u{200D}ष");
}

#[test]
fn a_message_keeps_one_blank_line_between_paragraphs_and_is_capped() {
    let m = Message::new("  \n\nHello\t you\u{7}\n\n\n\nBye  \n\n").expect("text");
    assert_eq!(m.as_str(), "Hello  you\n\nBye");
    assert!(!m.shortened());
    assert_eq!(Message::new(" \n \t\n"), None);
    let long = "word ".repeat(MAX_MESSAGE);
    let m = Message::new(&long).expect("text");
    assert!(m.shortened());
    assert!(m.as_str().chars().count() <= MAX_MESSAGE);
}

#[test]
fn lines_are_split_into_sentences_but_not_at_move_numbers() {
    for (line, expected) in [
        ("Nf3", vec!["Nf3"]),
        (
            "Ich gebe auf. Glückwunsch!",
            vec!["Ich gebe auf.", "Glückwunsch!"],
        ),
        ("12. Nf3", vec!["12. Nf3"]),
        ("if 12... Nf6 13. e5", vec!["if 12... Nf6 13. e5"]),
        ("exd6 e.p. draw", vec!["exd6 e.p. draw"]),
        ("Draw?  Really?", vec!["Draw?", "Really?"]),
        ("", vec![]),
    ] {
        let read: Vec<&str> = sentences(line).into_iter().map(|(s, _)| s).collect();
        assert_eq!(read, expected, "{line:?}");
    }
}

#[test]
fn move_text_is_trimmed_and_bounded() {
    assert_eq!(
        MoveText::new("  Nf3 ").map(|m| m.to_string()),
        Some("Nf3".to_string())
    );
    assert_eq!(MoveText::new(""), None);
    assert_eq!(MoveText::new("N\nf3"), None);
    assert_eq!(MoveText::new(&"a".repeat(MAX_MOVE_TEXT + 1)), None);
    assert!(MoveText::new(&"a".repeat(MAX_MOVE_TEXT)).is_some());
}

const CATEGORIES: [(&str, PhraseList, Option<Command>); 13] = [
    ("offer_draw", |w| w.offer_draw, Some(Command::OfferDraw)),
    ("accept_draw", |w| w.accept_draw, Some(Command::AcceptDraw)),
    (
        "decline_draw",
        |w| w.decline_draw,
        Some(Command::DeclineDraw),
    ),
    ("resign", |w| w.resign, Some(Command::Resign)),
    (
        "claim_draw",
        |w| w.claim_draw,
        Some(Command::ClaimDraw { with_move: None }),
    ),
    (
        "claim_win",
        |w| w.claim_win,
        Some(Command::ClaimWin { with_move: None }),
    ),
    ("status", |w| w.status, Some(Command::Status)),
    ("games", |w| w.games, Some(Command::Games)),
    ("pgn", |w| w.pgn, Some(Command::Pgn)),
    ("help", |w| w.help, Some(Command::Help)),
    ("standings", |w| w.standings, Some(Command::Standings)),
    ("report", |w| w.report, Some(Command::Report)),
    (
        "cancel_conditionals",
        |w| w.cancel_conditionals,
        Some(Command::CancelConditionals),
    ),
];

#[test]
fn every_phrase_in_every_vocabulary_reads_as_its_command_with_and_without_accents() {
    for (code, vocab) in words::ALL {
        let lang: Lang = code.parse().unwrap_or_default();
        for (name, table, command) in CATEGORIES {
            for phrase in table(vocab) {
                for text in [phrase.to_string(), fold(phrase), phrase.to_uppercase()] {
                    let got = parse(&text, lang).commands;
                    assert_eq!(
                        Some(got.as_slice()),
                        command.as_ref().map(std::slice::from_ref),
                        "{code} {name}: {text:?}"
                    );
                }
            }
        }
        for phrase in vocab.conditionals {
            assert_eq!(
                parse(phrase, lang).commands,
                vec![Command::Conditionals],
                "{code}: {phrase}"
            );
        }
    }
}

#[test]
fn no_phrase_means_two_different_commands() {
    for (code, vocab) in words::ALL {
        let lang: Lang = code.parse().unwrap_or_default();
        let active = words::for_lang(lang);
        let mut seen: Vec<(String, &str)> = Vec::new();
        let mut tables: Vec<(&str, PhraseList)> =
            CATEGORIES.iter().map(|(n, t, _)| (*n, *t)).collect();
        tables.push(("conditionals", |w| w.conditionals));
        for (name, table) in tables {
            for w in &active {
                for phrase in table(w) {
                    let key = normalize(phrase.split_whitespace(), &active);
                    assert!(!key.is_empty(), "{code} {name}: {phrase} is only fillers");
                    if let Some((_, other)) = seen.iter().find(|(k, n)| *k == key && *n != name) {
                        panic!("{code}: '{phrase}' is both {name} and {other}");
                    }
                    seen.push((key, name));
                }
            }
        }
        assert!(!vocab.if_words.is_empty() && !vocab.leave.is_empty());
    }
}

proptest! {
    // proptest's default: 256 cases, or `PROPTEST_CASES` for a deep run (the
    // fault suite's long run sets it: scripts/faults.sh --long).
    #[test]
    fn any_text_is_read_without_panicking(text in "\\PC{0,400}", lang_index in 0usize..23) {
        let lang = Lang::ALL.get(lang_index).copied().unwrap_or_default();
        let reading = parse(&text, lang);
        prop_assert!(!reading.commands.is_empty());
    }

    #[test]
    fn command_like_text_is_read_without_panicking(
        parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "if", "then", "12.", "12...", "Nf3", "e.p.", "leave", "2026-12-24", "24.12.2026",
                "draw", "remis", "language", "notify", "each", "-", "–", "…", "1…", "e8=Q", "0-0",
                "\n", ",", "claim", "accept", "5254", "x", "♘", "ę", "",
            ]),
            0..12,
        ),
        lang_index in 0usize..23,
    ) {
        let lang = Lang::ALL.get(lang_index).copied().unwrap_or_default();
        let text = parts.join(" ");
        prop_assert!(!parse(&text, lang).commands.is_empty());
    }
}

#[test]
fn a_confirmation_quotes_commands_in_words_that_read_back_as_the_same_commands() {
    for text in [
        "Nf3",
        "draw",
        "accept draw",
        "decline draw",
        "resign",
        "claim draw",
        "claim draw Nf3",
        "if Nc6 Bb5",
        "leave 2026-12-24 2027-01-02",
        "status",
        "games",
        "pgn",
        "help",
        "standings",
        "language sl",
        "notify digest",
        "notify each",
        "conditionals",
        "cancel conditionals",
        "Nf3\nThanks for the game so far.",
        "Nf3 draw\n\nA draw is fair, I think.\n\nAna",
        "Thanks for the game, good luck!",
    ] {
        let commands = parse(text, Lang::Sl).commands;
        for lang in [Lang::En, Lang::Sl, Lang::Pl, Lang::De, Lang::Lv] {
            let quoted = describe(&commands, lang);
            assert_eq!(
                parse(&quoted, lang).commands,
                commands,
                "{lang:?}: {text} -> {quoted}"
            );
        }
    }
}

#[test]
fn an_entry_command_without_a_usable_number_is_known_as_one() {
    for (line, lang) in [
        ("enter", Lang::En),
        ("enter -1", Lang::En),
        ("ENTER #x", Lang::En),
        ("enter １２", Lang::En),
        ("withdraw entry", Lang::En),
        ("prijava", Lang::Sl),
        ("zgłaszam się +3", Lang::Pl),
        ("anmelden", Lang::De),
    ] {
        assert!(is_entry_without_number(line, lang), "{line}");
        // and the parser itself takes it for no command it knows
        assert!(
            matches!(
                parse(line, lang).commands.as_slice(),
                [Command::Unknown { .. }]
            ),
            "{line}: {:?}",
            parse(line, lang).commands
        );
    }
    for (line, lang) in [
        ("enter 12", Lang::En),
        ("e4", Lang::En),
        ("resign", Lang::En),
        ("entries", Lang::En),
        ("i will enter the next one", Lang::En),
    ] {
        assert!(!is_entry_without_number(line, lang), "{line}");
    }
}

#[test]
fn a_half_point_bye_is_read_in_each_language_with_the_event_and_the_round_in_either_order() {
    let bye = |event, round| vec![Command::SwissBye { event, round }];
    for (line, lang) in [
        ("bye 12 round 4", Lang::En),
        ("Bye round 4 event 12", Lang::En),
        ("please bye for round 4 of event #12", Lang::En),
        ("half-point bye 12 round 4", Lang::En),
        ("prosto kolo 12 kolo 4", Lang::Sl),
        ("Prost krog v krogu 4 turnir 12", Lang::Sl),
        ("pauza 12 runda 4", Lang::Pl),
        ("Proszę o pauzę w rundzie 4 turnieju 12", Lang::Pl),
        ("brīvkārta 12 kārta 4", Lang::Lv),
        ("Lūdzu brīvkārtu 4. kārtā turnīrā 12", Lang::Lv),
        ("spielfrei 12 Runde 4", Lang::De),
        ("Ich bin spielfrei in Runde 4 von Turnier 12", Lang::De),
        // every language reads English too
        ("bye 12 round 4", Lang::De),
    ] {
        assert_eq!(parse(line, lang).commands, bye(12, 4), "{lang:?}: {line}");
    }
    // A round no event has is read, to be answered with the event's rounds.
    assert_eq!(parse("bye 12 round 0", Lang::En).commands, bye(12, 0));
    // Two numbers neither of which is named, two rounds, or no number: no bye.
    for line in [
        "bye 12 4",
        "bye round 4 round 5",
        "bye",
        "bye 12",
        "bye 12 round 4 now or never",
    ] {
        assert!(
            !parse(line, Lang::En)
                .commands
                .iter()
                .any(|c| matches!(c, Command::SwissBye { .. })),
            "{line}: {:?}",
            parse(line, Lang::En).commands
        );
    }
}

#[test]
fn a_bye_quoted_in_a_mail_reads_back_as_the_same_bye_in_each_language() {
    let commands = vec![Command::SwissBye {
        event: 12,
        round: 4,
    }];
    for lang in [Lang::En, Lang::Sl, Lang::Pl, Lang::De, Lang::Lv] {
        let quoted = describe(&commands, lang);
        assert_eq!(
            parse(&quoted, lang).commands,
            commands,
            "{lang:?}: {quoted}"
        );
        assert_eq!(bye_words(lang, 12, 4), quoted);
    }
}
