//! The mails in each translated language: every kind, the same letters as
//! the English goldens (`outbound.rs`), compared with golden files in
//! `tests/fixtures/outbound/<lang>/` and parsed back. Each table says what a
//! player of that language must read in the plain part: the words, the moves
//! in their piece letters, the deadline with their dates.

use dopis::lang::Lang;

use crate::outbound::{cases_in, check_golden};

fn slovenian(name: &str) -> Vec<&'static str> {
    match name {
        "game_started" => vec!["Igrate s črnimi.", "Prvo potezo naredi beli."],
        "your_move" => vec![
            "Bojan Kralj igra 3... Lg4.",
            "Na potezi ste: 4. ?",
            "Bojan Kralj ponuja remi.",
            "»sprejmem remi«",
            "1. e4 e5 2. Sf3 d6 3. d4 Lg4",
            "Rok: 2. 12. 2026 18:05 CET (17:05 UTC)",
            "»remi«",
        ],
        "move_accepted" => vec!["Vaša poteza 10. Sxb5 v partiji #42 je odigrana."],
        "game_over_won" => vec![
            "Izid: 1-0. Mat: zmaga Alice Novak.",
            "Čestitamo!",
            "game-42.pgn",
            "17. Td8#",
        ],
        "game_over_lost" => vec![
            "Izid: 1-0. Mat: zmaga Alice Novak.",
            "Več sreče v naslednji partiji.",
        ],
        "draw_offer_declined" => {
            vec!["Alice Novak ne sprejme vaše ponudbe remija v partiji #42."]
        }
        "rejected_illegal" => vec![
            "> Qxb7",
            "Pojasnilo (v angleščini):",
            "Kako pravilno zapisati:",
            "Vaša poteza 6. ? še čaka",
        ],
        "rejected_not_your_turn" => vec!["Niste na potezi: na potezi je Alice Novak."],
        "rejected_unknown_game" => vec![
            "Ni nobene vaše partije, h kateri bi spadalo to sporočilo.",
            "pišite na chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "odgovorite na to sporočilo"],
        "refused" => vec!["nismo sprejeli", "Razlog (v angleščini):"],
        "help" => vec!["npr. Sf3, e4, O-O", "sprejmem remi", "predaja", "jezik sl"],
        "status" => vec![
            "Na potezi ste: 7... ?",
            "[ ] označuje zadnjo potezo, 7. Db3.",
        ],
        "games" => vec!["Vaše partije:", "#42  Alice Novak"],
        "pgn" => vec!["v zapisu PGN", "7. Qb3 Qe7 *"],
        "not_yet_supported" => vec!["> if 12...Nf6 13.e5", "zaenkrat pa še ne"],
        "language_changed" => vec!["Od zdaj vam pišemo v slovenščini.", "jezik en"],
        other => panic!("no Slovenian phrases for {other}"),
    }
}

fn polish(name: &str) -> Vec<&'static str> {
    match name {
        "game_started" => vec!["Grasz czarnymi.", "Pierwszy ruch należy do białych."],
        "your_move" => vec![
            "Bojan Kralj gra 3... Gg4.",
            "Twój ruch: 4. ?",
            "Bojan Kralj proponuje remis.",
            "„przyjmuję remis”",
            "1. e4 e5 2. Sf3 d6 3. d4 Gg4",
            "Termin: 02.12.2026 18:05 CET (17:05 UTC)",
            "„poddaję się”",
        ],
        "move_accepted" => vec!["Twój ruch 10. Sxb5 w partii #42 został wykonany."],
        "game_over_won" => vec![
            "Wynik: 1-0. Mat: wygrywa Alice Novak.",
            "Gratulacje!",
            "game-42.pgn",
            "17. Wd8#",
        ],
        "game_over_lost" => vec![
            "Wynik: 1-0. Mat: wygrywa Alice Novak.",
            "Powodzenia w następnej partii!",
        ],
        "draw_offer_declined" => {
            vec!["Alice Novak odrzuca Twoją propozycję remisu w partii #42."]
        }
        "rejected_illegal" => vec![
            "> Qxb7",
            "Wyjaśnienie (po angielsku):",
            "Jak zapisać poprawnie:",
            "Twój ruch 6. ? nadal czeka",
        ],
        "rejected_not_your_turn" => vec!["To nie Twój ruch: teraz ruch ma Alice Novak."],
        "rejected_unknown_game" => vec![
            "Nie masz partii, do której należałaby ta wiadomość.",
            "napisz na chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "odpowiedz na tę wiadomość"],
        "refused" => vec!["nie została przyjęta", "Powód (po angielsku):"],
        "help" => vec![
            "np. Sf3, e4, O-O",
            "przyjmuję remis",
            "poddaję się",
            "język pl",
        ],
        "status" => vec!["Twój ruch: 7... ?", "[ ] oznacza ostatni ruch, 7. Hb3."],
        "games" => vec!["Twoje partie:", "#42  Alice Novak"],
        "pgn" => vec!["w formacie PGN", "7. Qb3 Qe7 *"],
        "not_yet_supported" => vec!["> if 12...Nf6 13.e5", "ale jeszcze nie teraz"],
        "language_changed" => vec!["Od teraz piszemy do Ciebie po polsku.", "język en"],
        other => panic!("no Polish phrases for {other}"),
    }
}

fn latvian(name: &str) -> Vec<&'static str> {
    match name {
        "game_started" => vec!["Jūs spēlējat ar melnajiem.", "Pirmo gājienu izdara baltie."],
        "your_move" => vec![
            "Bojan Kralj spēlēja 3... Lg4.",
            "Jūsu gājiens: 4. ?",
            "Bojan Kralj piedāvā neizšķirtu.",
            "„pieņemu neizšķirtu“",
            "1. e4 e5 2. Zf3 d6 3. d4 Lg4",
            "Termiņš: 02.12.2026. 18:05 CET (17:05 UTC)",
            "„padodos“",
        ],
        "move_accepted" => vec!["Jūsu gājiens 10. Zxb5 partijā #42 ir izdarīts."],
        "game_over_won" => vec![
            "Rezultāts: 1-0. Mats: uzvar Alice Novak.",
            "Apsveicam!",
            "game-42.pgn",
            "17. Td8#",
        ],
        "game_over_lost" => vec![
            "Rezultāts: 1-0. Mats: uzvar Alice Novak.",
            "Lai veicas nākamajā partijā!",
        ],
        "draw_offer_declined" => {
            vec!["Alice Novak noraidīja Jūsu neizšķirta piedāvājumu partijā #42."]
        }
        "rejected_illegal" => vec![
            "> Qxb7",
            "Paskaidrojums (angliski):",
            "Kā pierakstīt pareizi:",
            "Jūsu gājiens 6. ? joprojām gaida",
        ],
        "rejected_not_your_turn" => {
            vec!["Tagad nav Jūsu kārta: gājienu izdara Alice Novak."]
        }
        "rejected_unknown_game" => vec![
            "Jums nav nevienas partijas, kurai piederētu šī vēstule.",
            "rakstiet uz chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "atbildiet uz šo vēstuli"],
        "refused" => vec!["netika pieņemta", "Iemesls (angliski):"],
        "help" => vec![
            "piem. Zf3, e4, O-O",
            "pieņemu neizšķirtu",
            "padodos",
            "valoda lv",
        ],
        "status" => vec!["Jūsu gājiens: 7... ?", "[ ] apzīmē pēdējo gājienu, 7. Db3."],
        "games" => vec!["Jūsu partijas:", "#42  Alice Novak"],
        "pgn" => vec!["PGN formātā", "7. Qb3 Qe7 *"],
        "not_yet_supported" => vec!["> if 12...Nf6 13.e5", "bet pagaidām vēl ne"],
        "language_changed" => vec!["Turpmāk mēs Jums rakstīsim latviski.", "valoda en"],
        other => panic!("no Latvian phrases for {other}"),
    }
}

fn german(name: &str) -> Vec<&'static str> {
    match name {
        "game_started" => vec!["Sie spielen mit Schwarz.", "Weiß zieht zuerst."],
        "your_move" => vec![
            "Bojan Kralj spielte 3... Lg4.",
            "Sie sind am Zug: 4. ?",
            "Bojan Kralj bietet Remis an.",
            "„Remis angenommen“",
            "1. e4 e5 2. Sf3 d6 3. d4 Lg4",
            "Frist: 02.12.2026 18:05 CET (17:05 UTC)",
            "„aufgeben“",
        ],
        "move_accepted" => vec!["Ihr Zug 10. Sxb5 in Partie #42 ist ausgeführt."],
        "game_over_won" => vec![
            "Ergebnis: 1-0. Matt: Alice Novak gewinnt.",
            "Herzlichen Glückwunsch!",
            "game-42.pgn",
            "17. Td8#",
        ],
        "game_over_lost" => vec![
            "Ergebnis: 1-0. Matt: Alice Novak gewinnt.",
            "Viel Glück in der nächsten Partie!",
        ],
        "draw_offer_declined" => {
            vec!["Alice Novak hat Ihr Remisangebot in Partie #42 abgelehnt."]
        }
        "rejected_illegal" => vec![
            "> Qxb7",
            "Erläuterung (auf Englisch):",
            "So schreiben Sie es richtig:",
            "Ihr Zug 6. ? steht noch aus",
        ],
        "rejected_not_your_turn" => vec!["Sie sind nicht am Zug: Alice Novak ist am Zug."],
        "rejected_unknown_game" => vec![
            "Es gibt keine Partie von Ihnen, zu der diese Mail gehört.",
            "Schreiben Sie an chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "antworten Sie auf diese Mail"],
        "refused" => vec!["wurde nicht angenommen", "Grund (auf Englisch):"],
        "help" => vec![
            "z. B. Sf3, e4, O-O",
            "Remis angenommen",
            "aufgeben",
            "Sprache de",
        ],
        "status" => vec![
            "Sie sind am Zug: 7... ?",
            "[ ] markiert den letzten Zug, 7. Db3.",
        ],
        "games" => vec!["Ihre Partien:", "#42  Alice Novak"],
        "pgn" => vec!["als PGN", "7. Qb3 Qe7 *"],
        "not_yet_supported" => vec!["> if 12...Nf6 13.e5", "aber noch nicht jetzt"],
        "language_changed" => vec!["ab jetzt schreiben wir Ihnen auf Deutsch.", "Sprache en"],
        other => panic!("no German phrases for {other}"),
    }
}

#[test]
fn every_mail_kind_in_slovenian_matches_its_golden_file() {
    check_golden(cases_in(Lang::Sl, slovenian), Some("sl"));
}

#[test]
fn every_mail_kind_in_polish_matches_its_golden_file() {
    check_golden(cases_in(Lang::Pl, polish), Some("pl"));
}

#[test]
fn every_mail_kind_in_latvian_matches_its_golden_file() {
    check_golden(cases_in(Lang::Lv, latvian), Some("lv"));
}

#[test]
fn every_mail_kind_in_german_matches_its_golden_file() {
    check_golden(cases_in(Lang::De, german), Some("de"));
}

/// The words a mail tells its reader to write, quoted in their language's
/// quotation marks (`»sprejmem remi«`, `„przyjmuję remis”` …), and the
/// command column of the help: every one of them must read as the command
/// it stands for, in that reader's language. Quoted names of buttons and
/// mails are not commands.
#[test]
fn every_command_a_mail_teaches_is_understood_in_its_language() {
    use dopis::mail::command::{Command, parse};
    use dopis::mail::compose::compose;

    let not_commands: &[&str] = &[
        "Na potezi ste",
        "Odpowiedz",
        "Twój ruch",
        "Atbildēt",
        "Jūsu gājiens",
        "Antworten",
        "Sie sind am Zug",
        "jezik",
        "język",
        "valoda",
        "Sprache",
    ];
    let mut problems = Vec::new();
    let mut checked = 0;
    for (lang, open, close) in [
        (Lang::Sl, '»', '«'),
        (Lang::Pl, '„', '”'),
        (Lang::Lv, '„', '“'),
        (Lang::De, '„', '“'),
    ] {
        let mut taught: Vec<String> = Vec::new();
        let mut kinds = std::collections::BTreeSet::new();
        for case in cases_in(lang, |_| Vec::new()) {
            let bytes = compose(&case.letter).unwrap_or_else(|e| panic!("{}: {e}", case.name));
            let mail = mail_parser::MessageParser::default()
                .parse(&bytes)
                .expect("parses");
            let text = mail
                .body_text(0)
                .map(|t| t.into_owned())
                .unwrap_or_default();
            for piece in text.split(open).skip(1) {
                if let Some((quoted, _)) = piece.split_once(close) {
                    taught.push(quoted.replace('\n', " "));
                }
            }
            if case.name == "help" {
                // "  stanje            šahovnica in ure": the first column, but
                // not the first row (a move) and not a quoted example.
                let rows = text
                    .lines()
                    .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
                    .skip(1);
                for row in rows {
                    if let Some((word, _)) = row.trim_start().split_once("  ") {
                        taught.push(word.to_owned());
                    }
                }
            }
        }
        taught.sort();
        taught.dedup();
        for words in taught
            .iter()
            .filter(|w| !not_commands.contains(&w.as_str()))
        {
            checked += 1;
            let commands = parse(words, lang).commands;
            if commands
                .iter()
                .any(|c| matches!(c, Command::Unknown { .. }))
            {
                problems.push(format!("{lang}: {words:?} reads as {commands:?}"));
            }
            for c in &commands {
                let name = format!("{c:?}");
                kinds.insert(name.split([' ', '(']).next().unwrap_or("").to_owned());
            }
        }
        // Every command a player needs to play is taught in their words.
        for kind in [
            "Move",
            "OfferDraw",
            "AcceptDraw",
            "DeclineDraw",
            "Resign",
            "Status",
            "Games",
            "Pgn",
            "Help",
            "Language",
        ] {
            if !kinds.contains(kind) {
                problems.push(format!("{lang}: no mail teaches {kind}"));
            }
        }
    }
    assert!(checked >= 40, "only {checked} words checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
