//! The mails in each translated language: every kind, the same letters as
//! the English goldens (`outbound.rs`), compared with golden files in
//! `tests/fixtures/outbound/<lang>/` and parsed back. Each table says what a
//! player of that language must read in the plain part: the words, the moves
//! in their piece letters, the deadline with their dates.

use dopis::domain::lang::Lang;

use crate::outbound::{
    Case, bye_cases_in, cases_in, digest_of, entry_cases_in, event_and_time_cases_in,
    golden_problems, notify_cases_in, start_cases_in, tables_cases_in, talk_cases_in,
};

/// A translated language: the phrases each mail kind must say in it, and
/// the quotation marks its mails put around a command to write.
struct Translated {
    lang: Lang,
    says: fn(&str) -> Vec<&'static str>,
    quotes: (char, char),
}

/// The languages the mails are translated into (English, the source, is
/// checked by `outbound.rs`).
const TRANSLATED: [Translated; 4] = [
    Translated {
        lang: Lang::Sl,
        says: slovenian,
        quotes: ('»', '«'),
    },
    Translated {
        lang: Lang::Pl,
        says: polish,
        quotes: ('„', '”'),
    },
    Translated {
        lang: Lang::Lv,
        says: latvian,
        quotes: ('„', '“'),
    },
    Translated {
        lang: Lang::De,
        says: german,
        quotes: ('„', '“'),
    },
];

/// Every case in `lang`: the first mail kinds, the later ones, the digest
/// and the notify answers.
fn every_case(lang: Lang, says: fn(&str) -> Vec<&'static str>) -> Vec<Case> {
    let mut cases = cases_in(lang, says);
    cases.extend(event_and_time_cases_in(lang, says));
    cases.extend(notify_cases_in(lang, says));
    cases.extend(talk_cases_in(lang, says));
    cases.extend(tables_cases_in(lang, says));
    cases.extend(entry_cases_in(lang, says));
    cases.extend(bye_cases_in(lang, says));
    cases.extend(start_cases_in(lang, says));
    cases
}

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
            "Ure: beli: porabljeno dni: 4, za to potezo preostalo: 1;",
            "»remi«",
        ],
        "move_accepted" => vec!["Vaša poteza 10. Sxb5 v partiji #42 je odigrana."],
        "move_accepted_conditional" => vec![
            "Vaša poteza 3... Lg4 v partiji #42 je odigrana.",
            "4. dxe5. Zdaj ste spet na potezi: 4... ?",
            "Rok: 2. 12. 2026 18:05 CET (17:05 UTC)",
        ],
        "your_move_with_message" => vec![
            "Bojan Kralj piše:",
            "(Sporočilo je bilo daljše od 2000 znakov in je tam odrezano.)",
            "Bojan Kralj igra 3... Lg4.",
        ],
        "move_accepted_message_passed" => vec!["Vaše sporočilo smo posredovali naprej"],
        "message_from_opponent" => vec!["Bojan Kralj piše:", "To sporočilo je prišlo brez poteze"],
        "message_passed" => vec![
            "Vaše sporočilo smo posredovali naprej",
            "odigrano ni bilo nič",
        ],
        "message_held" => vec!["Vašega sporočila nismo posredovali"],
        "rejected_message_on_next_line" => vec!["> Sf3 thanks", "vsebuje le potezo"],
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
            vec![
                "Alice Novak ne sprejme vaše ponudbe remija v partiji #42 in igra",
                "5. Dxf3.",
                "Na potezi ste: 5... ?",
            ]
        }
        "rejected_game_over" => vec![
            "Ta partija je končana, zato v njej ni mogoče več igrati.",
            "Izid: 1-0. Mat: zmaga Alice Novak.",
            "Kako odgovoriti: odgovor ni potreben.",
        ],
        "rejected_claim" => vec![
            "Kako deluje zahteva za remi:",
            "(FIDE 9.2)",
            "»zahtevam remi Sd4«",
            "Vaša poteza 3. ? še čaka",
        ],
        "rejected_illegal" => vec![
            "> Qxb7",
            "Pojasnilo:",
            "Kako pravilno zapisati:",
            "Vaša poteza 6. ? še čaka",
        ],
        "rejected_not_your_turn" => vec!["Niste na potezi: na potezi je Alice Novak."],
        "rejected_unknown_game" => vec![
            "Ni nobene vaše partije, h kateri bi spadalo to sporočilo.",
            "pišite na chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "odgovorite na to sporočilo"],
        "confirm_stale" => vec![
            "> Sc3",
            "o 2. potezi belega",
            "do 4. poteze belega",
            "    4. Sc3",
        ],
        "repeated" => vec![
            "> d4",
            "Prvič je prispelo 29. 11. 2026 12:01 CET (11:01 UTC)",
            "zdaj nismo storili ničesar.",
        ],
        "refused" => vec!["nismo sprejeli", "Razlog:"],
        "help" => vec![
            "npr. Sf3, e4, O-O",
            "sprejmem remi",
            "predaja",
            "jezik sl",
            "Sporočila: potezo napišite v prvo vrstico",
        ],
        "status" => vec![
            "Na potezi ste: 7... ?",
            "[ ] označuje zadnjo potezo, 7. Db3.",
        ],
        "games" => vec!["Vaše partije:", "#42 Alice Novak - Bojan Kralj"],
        "pgn" => vec!["v zapisu PGN", "7. Qb3 Qe7 *"],
        "language_changed" => vec!["Od zdaj vam pišemo v slovenščini.", "jezik en"],
        "conditionals" => vec![
            "Obvestilo:",
            "Vaše pogojne poteze:",
            "  če 3...Lg4 4.dxe5",
            "»če Sc6 Lb5«",
            "»prekliči pogojne poteze«",
        ],
        "conditionals_unexpected" => vec!["Nasprotnik je odigral 3... Lg4, česar"],
        "conditional_played" => vec![
            "Nasprotnikova poteza 3... Lg4 je bila tista",
            "odgovor 4. dxe5 v partiji #42",
            "Na potezi je zdaj Bojan",
        ],
        "standings_bye" => vec![
            "V 3. kolu turnirja Club championship 2027 ste prosti",
            "Zanj dobite: 1.",
            "Mesto  Št  Ime           K1   K2   K3  Točke",
            "PAB je prosti krog",
        ],
        "standings" => vec![
            "Trenutna lestvica turnirja Club championship 2027:",
            "Mesto  Št  Ime          1  2  3  Točke  Zmage    SB  DE",
            "    1   1  Alice Novak  X  1  1      2      2     1",
            "zmaga in poraz brez boja",
            "»lestvica«",
        ],
        "withdrawal_opponent" => vec![
            "Bojan Kralj ne nastopa več na turnirju Club championship 2027",
            "vaša zmaga brez boja",
            "Obrazložitev turnirskega sodnika:",
            "> Moved abroad",
        ],
        "withdrawal_player" => vec![
            "Po odločitvi turnirskega sodnika ne nastopate več na turnirju Club",
            "partija #43 (druga stran: Carla Rossi): razveljavljena",
        ],
        "replaced_substitute" => vec![
            "nadomeščate Carla Rossi",
            "igrate s črnimi",
            "Na potezi ste: 3... ?",
        ],
        "replaced_opponent" => vec!["zdaj igrate proti Bojan Kralj"],
        "replaced_player" => vec!["nadomešča Bojan Kralj, ki prevzame vse vaše partije."],
        "deadline_extended" => vec![
            "ima Bojan Kralj v partiji #42",
            "rok podaljšan za 7 dni.",
            "> In hospital",
        ],
        "reminder" => vec![
            "Opomnik: v partiji #42 proti Bojan Kralj ste na potezi",
            "Rok: 2. 12. 2026 18:05 CET (17:05 UTC)",
            "Ure: beli: porabljeno dni: 4, za to potezo preostalo: 1;",
            "Bojan Kralj igra 3... Lg4. Na potezi ste: 4. ?",
            "»dopust 24.12.2026 do 2.1.2027«",
        ],
        "silence" => vec!["teče že 14 dni", "Rok: 30. 12. 2026 18:05 CET (17:05 UTC)"],
        "leave_notice" => vec![
            "Bojan Kralj je od danes na dopustu.",
            "3. 1. 2027 00:00 CET",
        ],
        "leave_booked" => vec![
            "od 2026-12-24 do 2027-01-02, 10 dni",
            "Preostanek dopusta: 37 dni v letu 2026",
        ],
        "leave_refused" => vec![
            "> leave 2026-11-29 2026-12-05",
            "Dopusta nismo vpisali. Razlog:",
        ],
        "digest" => vec![
            "Na potezi ste v 2 partijah.",
            "== Partija #42: Alice Novak - Bojan Kralj ==",
            "Bojan Kralj igra 3... Lg4.",
            "== Partija #45: Cecilija Zorman - Alice Novak ==",
            "Cecilija Zorman igra 3. d4.",
            "Rok: 3. 12. 2026 10:00 CET (09:00 UTC)",
            "Za potezo v tej partiji pišite na: chess+g45.r5t2w8yz3e@chess.test",
            "»obveščanje sproti«",
        ],
        "notify_digest" => vec!["enkrat na dan prejeli sporočilo", "»obveščanje sproti«"],
        "notify_each" => vec!["takoj ko boste na potezi", "»obveščanje dnevno«"],
        "deadline_report" => vec![
            "Poročilo o rokih turnirja Club championship 2027:",
            "Poročilo o rokih, stanje ob 2026-12-02 12:00 UTC",
            "Na dopustu zdaj in naslednji (1):",
            "  Bojan Kralj <bojan@players.test>: 2026-12-24 do 2027-01-02",
            "  #43     Alice Novak - Carla Rossi 1-0",
            "          ob 2026-12-01 17:00 UTC: prekoračen čas",
            "»poročilo«",
        ],
        "report_instructions" => vec!["zato poročila nismo poslali", "»poročilo«"],
        "swiss_round_warn" => vec![
            "Krog 3 turnirja Autumn open 2027 se zaključi 2027-01-31 12:00 UTC",
            "17 potez",
        ],
        "swiss_round_closed" => vec!["se je zaključil 2027-01-31 12:00 UTC"],
        "swiss_round_unpaired" => vec!["Žreb pravi:"],
        "address_bounces" => vec![
            "Naslov bojan@players.test (Bojan Kralj) ne sprejema naše pošte.",
            "(zadnje stanje 5.1.1)",
            "Partije v teku:",
            "    dopis player resume bojan@players.test",
        ],
        "not_handled_too_complex" => vec![
            "nismo prebrali: ima 151 delov MIME",
            "shranili za skrbnika strežnika",
        ],
        "not_handled_too_slow" => vec!["branje je", "shranili za skrbnika strežnika"],
        "not_handled_failed" => vec![
            "zaradi težave na tem strežniku",
            "shranili za skrbnika strežnika",
        ],
        "game_cancelled" => vec![
            "Turnirski sodnik je razveljavil partijo #42",
            "ne šteje za nikogar.",
            "> Both players",
        ],
        "your_move_tables_say" => vec![
            "Končniške tabele (KRvK) zdaj obsegajo ta položaj",
            "»zahtevam zmago«",
        ],
        "game_over_by_tables" => vec![
            "Odločile so končniške",
            "(KRvK, DTZ 23, pravilo ICCF), na zahtevo belega.",
        ],
        "refused_table_claim" => vec!["zahteva za zmago ni utemeljena: končniške tabele (KBBvKN)"],
        "entry_confirm" => vec![
            "Z vašega naslova smo prejeli prijavo na ta turnir:",
            "registriramo kot igralca z imenom \"Alice Novak\"",
        ],
        "entry_entered_queue" => vec!["V čakalni vrsti ste 3.: skupina 7"],
        "entry_refused_rating" => vec!["vaš rating (1650)"],
        "swiss_bye_granted" => vec![
            "Vodja turnirja vam je dodelil prosto kolo za pol točke v 4. kolu turnirja",
            "> Asked by phone.",
        ],
        "swiss_bye_paired" => vec!["v njem ne igrate", "5. kolu"],
        "swiss_bye_refused_paired" => vec![
            "nič ni bilo spremenjeno",
            "napišite »prosto kolo 12 kolo 5«.",
        ],
        "swiss_bye_refused_limit" => vec!["porabili ste že vsa prosta kola za"],
        "entry_qualified" => vec!["(turnir #15)"],
        "entry_refused_qualification" => vec!["kvalifikacijo \"Higher\", vi pa proste nimate"],
        "entry_promoted" => vec!["(turnir #16) je končan"],
        "your_move_thematic" => {
            vec!["To je tematska partija: začne se po otvoritvi 1. e4 c5 2. Sf3 d6, ki je"]
        }
        "game_started_thematic" => vec![
            "To je tematska partija: začne se po otvoritvi 1. e4 c5 2. Sf3 d6, ki je",
            "Naslednjo potezo naredi Alice Novak: 3.",
        ],
        "your_move_chess960" | "game_started_chess960" => vec![
            "To je partija Chess960 (Fischerjev naključni šah): začetna postavitev št.",
            "3. Rokirate z O-O ali O-O-O",
        ],
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
            "Zegary: białe: zużyte dni: 4, na ten ruch pozostało: 1;",
            "„poddaję się”",
        ],
        "move_accepted" => vec!["Twój ruch 10. Sxb5 w partii #42 został wykonany."],
        "move_accepted_conditional" => vec![
            "Twój ruch 3... Gg4 w partii #42 został wykonany.",
            "4. dxe5. Teraz znowu Twój ruch: 4... ?",
            "Termin: 02.12.2026 18:05 CET (17:05 UTC)",
        ],
        "your_move_with_message" => vec![
            "Bojan Kralj pisze:",
            "(Wiadomość była dłuższa niż 2000 znaków i została w tym miejscu",
        ],
        "move_accepted_message_passed" => vec!["Twoja wiadomość została przekazana dalej"],
        "message_from_opponent" => vec!["Bojan Kralj pisze:", "Ta wiadomość przyszła bez ruchu"],
        "message_passed" => vec![
            "Twoja wiadomość została przekazana dalej",
            "nic nie zostało",
        ],
        "message_held" => vec!["Twoja wiadomość nie została przekazana"],
        "rejected_message_on_next_line" => vec!["> Sf3 thanks", "zawiera tylko ruch"],
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
            vec![
                "Alice Novak odrzuca Twoją propozycję remisu w partii #42 i gra 5. Hxf3.",
                "Twój ruch: 5... ?",
            ]
        }
        "rejected_game_over" => vec![
            "Ta partia jest już zakończona, więc nie można w niej nic zagrać.",
            "Wynik: 1-0. Mat: wygrywa Alice Novak.",
            "Jak odpowiedzieć: odpowiedź nie jest potrzebna.",
        ],
        "rejected_claim" => vec![
            "Jak działa żądanie remisu:",
            "(FIDE 9.2)",
            "remisu Sd4”",
            "Twój ruch 3. ? nadal czeka",
        ],
        "rejected_illegal" => vec![
            "> Qxb7",
            "Wyjaśnienie:",
            "Jak zapisać poprawnie:",
            "Twój ruch 6. ? nadal czeka",
        ],
        "rejected_not_your_turn" => vec!["To nie Twój ruch: teraz ruch ma Alice Novak."],
        "rejected_unknown_game" => vec![
            "Nie masz partii, do której należałaby ta wiadomość.",
            "napisz na chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "odpowiedz na tę wiadomość"],
        "confirm_stale" => vec![
            "> Sc3",
            "o 2. ruchu białych",
            "doszła już do 4. ruchu białych",
            "    4. Sc3",
        ],
        "repeated" => vec![
            "> d4",
            "pierwsza kopia przyszła 29.11.2026 12:01 CET (11:01 UTC)",
            "teraz nic nie zostało",
        ],
        "refused" => vec!["nie została przyjęta", "Powód:"],
        "help" => vec![
            "Wiadomości: wpisz ruch w pierwszym wierszu",
            "np. Sf3, e4, O-O",
            "przyjmuję remis",
            "poddaję się",
            "język pl",
        ],
        "status" => vec!["Twój ruch: 7... ?", "[ ] oznacza ostatni ruch, 7. Hb3."],
        "games" => vec!["Twoje partie:", "#42 Alice Novak - Bojan Kralj"],
        "pgn" => vec!["w formacie PGN", "7. Qb3 Qe7 *"],
        "language_changed" => vec!["Od teraz piszemy do Ciebie po polsku.", "język en"],
        "conditionals" => vec![
            "Komunikat:",
            "Twoje ruchy warunkowe:",
            "  jeśli 3...Gg4 4.dxe5",
            "„jeśli Sc6 Gb5”",
            "„anuluj ruchy warunkowe”",
        ],
        "conditionals_unexpected" => vec!["Przeciwnik zagrał 3... Gg4, czego"],
        "conditional_played" => vec![
            "Ruch przeciwnika 3... Gg4 zgadza się z Twoim wariantem",
            "4. dxe5",
        ],
        "standings_bye" => vec![
            "W rundzie 3 turnieju Club championship 2027 masz wolny los",
            "Otrzymujesz za niego: 1.",
            "R1   R2   R3  Pkt",
            "PAB to wolny los",
        ],
        "standings" => vec![
            "Miejsce  Nr  Zawodnik     1  2  3  Pkt  Wygrane    SB  DE",
            "Aktualna tabela turnieju Club championship 2027:",
            "wygrana i przegrana walkowerem",
            "„tabela”",
        ],
        "withdrawal_opponent" => vec![
            "Bojan Kralj wycofuje się z turnieju Club championship 2027",
            "Twoja wygrana",
            "Uzasadnienie sędziego turnieju:",
        ],
        "withdrawal_player" => vec![
            "Decyzją sędziego turnieju nie grasz już w turnieju",
            "partia #43 (druga strona: Carla Rossi): anulowana",
        ],
        "replaced_substitute" => vec!["zastępujesz Carla Rossi", "Twój ruch: 3... ?"],
        "replaced_opponent" => vec!["Bojan Kralj zastępuje Carla Rossi"],
        "replaced_player" => vec!["przejmuje Bojan Kralj."],
        "deadline_extended" => vec!["termin przedłużony o 7 dni.", "> In hospital"],
        "reminder" => vec![
            "Przypomnienie: w partii #42 przeciwko Bojan Kralj masz ruch, a termin się",
            "Termin: 02.12.2026 18:05 CET (17:05 UTC)",
            "Zegary: białe: zużyte dni: 4, na ten ruch pozostało: 1;",
            "Bojan Kralj gra 3... Gg4. Twój ruch: 4. ?",
        ],
        "silence" => vec!["biegnie już 14 dni", "Termin: 30.12.2026 18:05 CET"],
        "leave_notice" => vec![
            "Bojan Kralj od dziś jest na urlopie.",
            "03.01.2027 00:00 CET",
        ],
        "leave_booked" => vec!["od 2026-12-24 do 2027-01-02, 10 dni", "Pozostały urlop"],
        "leave_refused" => vec!["> leave 2026-11-29 2026-12-05", "Powód:"],
        "digest" => vec![
            "Masz ruch w 2 partiach.",
            "== Partia #42: Alice Novak - Bojan Kralj ==",
            "Bojan Kralj gra 3... Gg4.",
            "== Partia #45: Cecilija Zorman - Alice Novak ==",
            "Cecilija Zorman gra 3. d4.",
            "Termin: 03.12.2026 10:00 CET (09:00 UTC)",
            "Ruch w tej partii wyślij na: chess+g45.r5t2w8yz3e@chess.test",
            "„powiadomienia osobno”",
        ],
        "notify_digest" => vec!["raz dziennie dostaniesz", "„powiadomienia osobno”"],
        "notify_each" => vec!["gdy tylko w którejś partii", "„powiadomienia codziennie”"],
        "deadline_report" => vec![
            "Raport terminów turnieju Club championship 2027:",
            "Raport terminów, stan na 2026-12-02 12:00 UTC",
            "Na urlopie teraz i najbliżej (1):",
            "  Bojan Kralj <bojan@players.test>: 2026-12-24 do 2027-01-02",
            "  #43     Alice Novak - Carla Rossi 1-0",
            "          o 2026-12-01 17:00 UTC: przekroczenie czasu",
            "„raport”",
        ],
        "report_instructions" => vec!["więc raport nie został wysłany", "„raport”"],
        "swiss_round_warn" => vec![
            "Runda 3 turnieju Autumn open 2027 zamyka się 2027-01-31 12:00 UTC",
            "17 posunięć",
        ],
        "swiss_round_closed" => vec!["zamknęła się 2027-01-31 12:00 UTC"],
        "swiss_round_unpaired" => {
            vec!["Kojarzenie mówi:"]
        }
        "address_bounces" => vec![
            "Adres bojan@players.test (Bojan Kralj) nie przyjmuje naszych wiadomości.",
            "(ostatni status",
            "Partie w toku:",
            "    dopis player resume bojan@players.test",
        ],
        "not_handled_too_complex" => vec![
            "nie została odczytana: ma 151 części MIME",
            "zachowana dla administratora serwera",
        ],
        "not_handled_too_slow" => vec!["czytanie jej", "zachowana dla administratora serwera"],
        "not_handled_failed" => vec!["z powodu", "zachowana dla administratora serwera"],
        "game_cancelled" => vec![
            "Sędzia turnieju anulował partię #42",
            "Nie można w niej już wykonywać ruchów",
            "> Both players",
        ],
        "your_move_tables_say" => vec![
            "Tablice końcówek (KRvK) obejmują teraz tę pozycję",
            "„żądam wygranej”",
        ],
        "game_over_by_tables" => vec![
            "Rozstrzygnęły tablice",
            "(KRvK, DTZ 23, zasada ICCF), na żądanie białych.",
        ],
        "refused_table_claim" => vec!["żądanie wygranej jest nieuzasadnione: tablice końcówek"],
        "entry_confirm" => vec![
            "Z Twojego adresu przyszło zgłoszenie do tego turnieju:",
            "Na razie nic nie obowiązuje.",
        ],
        "entry_entered_queue" => vec!["Jesteś 3. w kolejce: grupa 7"],
        "entry_refused_rating" => vec!["Twój ranking (1650)"],
        "swiss_bye_granted" => vec!["Sędzia turnieju przyznał Ci pauzę", "> Asked by phone."],
        "swiss_bye_paired" => vec!["więc w niej nie grasz", "rundzie 5"],
        "swiss_bye_refused_paired" => vec!["niczego nie zmieniono", "napisz „pauza 12 runda 5”."],
        "swiss_bye_refused_limit" => {
            vec!["niczego nie zmieniono: wykorzystano już wszystkie pauzy za pół punktu (2),"]
        }
        "entry_qualified" => vec!["(turniej #15)"],
        "entry_refused_qualification" => vec!["z kwalifikacją \"Higher\""],
        "entry_promoted" => vec!["(turniej #16) się zakończył"],
        "your_move_thematic" => {
            vec!["To partia tematyczna: zaczyna się po wariancie 1. e4 c5 2. Sf3 d6,"]
        }
        "game_started_thematic" => vec![
            "To partia tematyczna: zaczyna się po wariancie 1. e4 c5 2. Sf3 d6,",
            "Następny ruch wykonuje Alice Novak: 3.",
        ],
        "your_move_chess960" | "game_started_chess960" => {
            vec!["To partia Chess960: pozycja początkowa nr 3."]
        }
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
            "Pulksteņi: baltie: izlietotas dienas: 4, šim gājienam atlikušas: 1;",
            "„padodos“",
        ],
        "move_accepted" => vec!["Jūsu gājiens 10. Zxb5 partijā #42 ir izdarīts."],
        "move_accepted_conditional" => vec![
            "Jūsu gājiens 3... Lg4 partijā #42 ir izdarīts.",
            "4. dxe5. Tagad atkal Jūsu gājiens: 4... ?",
        ],
        "your_move_with_message" => vec![
            "Bojan Kralj raksta:",
            "(Ziņa bija garāka par 2000 rakstzīmēm",
        ],
        "move_accepted_message_passed" => vec!["Jūsu ziņa nodota tālāk"],
        "message_from_opponent" => vec!["Bojan Kralj raksta:", "Šī ziņa atnāca bez gājiena"],
        "message_passed" => vec!["Jūsu ziņa nodota tālāk", "nekas netika izspēlēts"],
        "message_held" => vec!["Jūsu ziņa netika nodota tālāk"],
        "rejected_message_on_next_line" => vec!["> Zf3 thanks", "ir tikai gājiens"],
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
            vec![
                "Alice Novak noraidīja Jūsu neizšķirta piedāvājumu partijā #42, izdarot",
                "gājienu 5. Dxf3.",
                "Jūsu gājiens: 5... ?",
            ]
        }
        "rejected_game_over" => vec![
            "Šī partija ir beigusies, tāpēc tajā vairs neko nevar spēlēt.",
            "Rezultāts: 1-0. Mats: uzvar Alice Novak.",
            "Kā atbildēt: atbilde nav vajadzīga.",
        ],
        "rejected_claim" => vec![
            "Kā darbojas neizšķirta pieprasījums:",
            "(FIDE 9.2)",
            "„pieprasu neizšķirtu Zd4“",
            "Jūsu gājiens 3. ? joprojām gaida",
        ],
        "rejected_illegal" => vec![
            "> Qxb7",
            "Paskaidrojums:",
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
        "confirm_stale" => vec![
            "> Zc3",
            "par balto 2. gājienu",
            "līdz balto 4. gājienam",
            "    4. Zc3",
        ],
        "repeated" => vec![
            "> d4",
            "pienāca 29.11.2026. 12:01 CET (11:01 UTC)",
            "tagad nekas netika izdarīts.",
        ],
        "refused" => vec!["netika pieņemta", "Iemesls:"],
        "help" => vec![
            "Ziņas: ierakstiet gājienu pirmajā rindā",
            "piem. Zf3, e4, O-O",
            "pieņemu neizšķirtu",
            "padodos",
            "valoda lv",
        ],
        "status" => vec!["Jūsu gājiens: 7... ?", "[ ] apzīmē pēdējo gājienu, 7. Db3."],
        "games" => vec!["Jūsu partijas:", "#42 Alice Novak - Bojan Kralj"],
        "pgn" => vec!["PGN formātā", "7. Qb3 Qe7 *"],
        "language_changed" => vec!["Turpmāk mēs Jums rakstīsim latviski.", "valoda en"],
        "conditionals" => vec![
            "Paziņojums:",
            "Jūsu nosacījuma gājieni:",
            "  ja 3...Lg4 4.dxe5",
            "„ja Zc6 Lb5“",
            "„atcelt nosacījuma gājienus“",
        ],
        "conditionals_unexpected" => vec!["Pretinieks izspēlēja 3... Lg4, ko"],
        "conditional_played" => vec![
            "Pretinieka gājiens 3... Lg4 sakrita ar Jūsu nosacījuma",
            "4. dxe5",
        ],
        "standings_bye" => vec![
            "Turnīrā Club championship 2027 3. kārtā",
            "Par to jūs saņemat: 1.",
            "K1   K2   K3  Punkti",
            "PAB ir pārošanas piešķirta brīvkārta",
        ],
        "standings" => vec![
            "Turnīra Club championship 2027 pašreizējā tabula:",
            "uzvara un zaudējums bez spēles",
            "„tabula“",
        ],
        "withdrawal_opponent" => vec![
            "Bojan Kralj izstājas no turnīra Club championship 2027",
            "Jūsu uzvara bez",
            "Turnīra tiesneša pamatojums:",
        ],
        "withdrawal_player" => vec![
            "Ar turnīra tiesneša lēmumu Jūs vairs nespēlējat",
            "partija #43 (otra puse: Carla Rossi): anulēta",
        ],
        "replaced_substitute" => vec!["Jūs aizstājat Carla Rossi", "Jūsu gājiens: 3... ?"],
        "replaced_opponent" => vec!["Jūs tagad spēlējat pret Bojan Kralj"],
        "replaced_player" => vec!["Jūs aizstāj Bojan"],
        "deadline_extended" => vec![
            "dienām partijā #42: Alice Novak (baltie) pret Bojan Kralj (melnie).",
            "> In hospital",
        ],
        "reminder" => vec![
            "Atgādinājums: partijā #42 pret Bojan Kralj ir Jūsu gājiens, un termiņš",
            "Termiņš: 02.12.2026. 18:05 CET (17:05 UTC)",
            "Pulksteņi: baltie: izlietotas dienas: 4, šim gājienam atlikušas: 1;",
            "Bojan Kralj spēlēja 3... Lg4. Jūsu gājiens: 4. ?",
        ],
        "silence" => vec!["iet jau 14 dienas", "Termiņš: 30.12.2026. 18:05 CET"],
        "leave_notice" => vec![
            "Bojan Kralj no šodienas ir atvaļinājumā.",
            "03.01.2027. 00:00 CET",
        ],
        "leave_booked" => vec![
            "no 2026-12-24 līdz 2027-01-02, 10 dienas",
            "Atlikušais atvaļinājums",
        ],
        "leave_refused" => vec!["> leave 2026-11-29 2026-12-05", "Iemesls:"],
        "digest" => vec![
            "Jūsu gājiens ir 2 partijās.",
            "== Partija #42: Alice Novak - Bojan Kralj ==",
            "Bojan Kralj spēlēja 3... Lg4.",
            "== Partija #45: Cecilija Zorman - Alice Novak ==",
            "Cecilija Zorman spēlēja 3. d4.",
            "Termiņš: 03.12.2026. 10:00 CET (09:00 UTC)",
            "Gājienu šajā partijā sūtiet uz: chess+g45.r5t2w8yz3e@chess.test",
            "„paziņojumi atsevišķi“",
        ],
        "notify_digest" => vec!["reizi dienā saņemsiet", "„paziņojumi atsevišķi“"],
        "notify_each" => vec!["tiklīdz kādā partijā", "„paziņojumi katru dienu“"],
        "deadline_report" => vec![
            "Turnīra Club championship 2027 termiņu pārskats:",
            "Termiņu pārskats uz 2026-12-02 12:00 UTC",
            "Atvaļinājumā tagad un nākamie (1):",
            "  Bojan Kralj <bojan@players.test>: 2026-12-24 līdz 2027-01-02",
            "  #43     Alice Novak - Carla Rossi 1-0",
            "          2026-12-01 17:00 UTC: laika pārsniegums",
            "„pārskats“",
        ],
        "report_instructions" => vec!["tāpēc pārskats netika nosūtīts", "„pārskats“"],
        "swiss_round_warn" => vec![
            "Turnīra Autumn open 2027 3. kārta noslēdzas 2027-01-31 12:00 UTC",
            "17 gājieni",
        ],
        "swiss_round_closed" => vec!["noslēdzās 2027-01-31 12:00 UTC"],
        "swiss_round_unpaired" => vec!["Izloze saka:"],
        "address_bounces" => vec![
            "Adrese bojan@players.test (Bojan Kralj) nepieņem mūsu vēstules",
            "(pēdējais statuss 5.1.1)",
            "Notiekošās partijas:",
            "    dopis player resume bojan@players.test",
        ],
        "not_handled_too_complex" => vec![
            "netika izlasīta: tajā ir 151 MIME daļas",
            "saglabāta servera administratoram",
        ],
        "not_handled_too_slow" => vec!["lasīšana ilga", "saglabāta servera administratoram"],
        "not_handled_failed" => vec!["šī servera", "saglabāta servera administratoram"],
        "game_cancelled" => vec![
            "Turnīra tiesnesis ir anulējis partiju #42",
            "Tajā vairs nevar izdarīt gājienus",
            "> Both players",
        ],
        "your_move_tables_say" => vec![
            "Galotņu tabulas (KRvK) tagad aptver šo pozīciju",
            "“pieprasu uzvaru”",
        ],
        "game_over_by_tables" => vec![
            "Izšķīra galotņu tabulas",
            "(KRvK, DTZ 23, ICCF noteikums), pēc balto pieprasījuma.",
        ],
        "refused_table_claim" => vec!["uzvaras pieprasījums nav pamatots: galotņu tabulas"],
        "entry_confirm" => vec![
            "No jūsu adreses saņēmām pieteikumu šim turnīram:",
            "reģistrēsim kā spēlētāju \"Alice Novak\"",
        ],
        "entry_entered_queue" => vec!["Jūs esat 3. rindā: 7 spēlētāju grupa"],
        "entry_refused_rating" => vec!["jūsu reitings (1650)"],
        "swiss_bye_granted" => vec![
            "Turnīra direktors jums piešķīra brīvkārtu",
            "> Asked by phone.",
        ],
        "swiss_bye_paired" => vec!["šajā kārtā nespēlējat", "5. kārtā"],
        "swiss_bye_refused_paired" => {
            vec!["nekas netika mainīts", "uzrakstiet „brīvkārta 12 kārta 5“."]
        }
        "swiss_bye_refused_limit" => vec!["\"Spring Open\", jau ir izmantotas."],
        "entry_qualified" => vec!["(turnīrs #15)"],
        "entry_refused_qualification" => vec!["ar kvalifikāciju \"Higher\""],
        "entry_promoted" => vec!["(turnīrs #16) ir beidzies"],
        "your_move_thematic" => {
            vec!["Šī ir tematiska partija: tā sākas pēc varianta 1. e4 c5 2. Zf3 d6, kas"]
        }
        "game_started_thematic" => vec![
            "Šī ir tematiska partija: tā sākas pēc varianta 1. e4 c5 2. Zf3 d6, kas",
            "Nākamo gājienu izdara Alice Novak: 3.",
        ],
        "your_move_chess960" | "game_started_chess960" => {
            vec!["Šī ir Chess960 partija: sākuma pozīcija nr. 3."]
        }
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
            "Uhren: Weiß: verbrauchte Tage: 4, für diesen Zug übrig: 1;",
            "„aufgeben“",
        ],
        "move_accepted" => vec!["Ihr Zug 10. Sxb5 in Partie #42 ist ausgeführt."],
        "move_accepted_conditional" => vec![
            "Ihr Zug 3... Lg4 in Partie #42 ist ausgeführt.",
            "4. dxe5. Jetzt sind Sie wieder am Zug: 4... ?",
        ],
        "your_move_with_message" => vec![
            "Bojan Kralj schreibt:",
            "(Die Nachricht war länger als 2000 Zeichen und wurde dort gekürzt.)",
        ],
        "move_accepted_message_passed" => {
            vec!["Ihre Nachricht wurde an Bojan Kralj weitergegeben."]
        }
        "message_from_opponent" => vec!["Bojan Kralj schreibt:", "Diese Nachricht kam ohne Zug"],
        "message_passed" => vec![
            "Ihre Nachricht wurde an Alice Novak weitergegeben.",
            "es wurde",
        ],
        "message_held" => vec!["Ihre Nachricht wurde nicht weitergegeben"],
        "rejected_message_on_next_line" => vec!["> Sf3 thanks", "enthält nur den Zug"],
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
            vec![
                "Alice Novak hat Ihr Remisangebot in Partie #42 abgelehnt und 5. Dxf3",
                "Sie sind am Zug: 5... ?",
            ]
        }
        "rejected_game_over" => vec![
            "Diese Partie ist beendet; in ihr kann nichts mehr gespielt werden.",
            "Ergebnis: 1-0. Matt: Alice Novak gewinnt.",
            "So antworten Sie: Eine Antwort ist nicht nötig.",
        ],
        "rejected_claim" => vec![
            "So funktioniert ein Remisantrag:",
            "(FIDE 9.2)",
            "„Remis reklamieren Sd4“",
            "Ihr Zug 3. ? steht noch aus",
        ],
        "rejected_illegal" => vec![
            "> Qxb7",
            "Erläuterung:",
            "So schreiben Sie es richtig:",
            "Ihr Zug 6. ? steht noch aus",
        ],
        "rejected_not_your_turn" => vec!["Sie sind nicht am Zug: Alice Novak ist am Zug."],
        "rejected_unknown_game" => vec![
            "Es gibt keine Partie von Ihnen, zu der diese Mail gehört.",
            "Schreiben Sie an chess@chess.test",
        ],
        "confirm_request" => vec!["> Nf3", "antworten Sie auf diese Mail"],
        "confirm_stale" => vec![
            "> Sc3",
            "zum 2. Zug von Weiß",
            "beim 4. Zug von Weiß",
            "    4. Sc3",
        ],
        "repeated" => vec![
            "> d4",
            "29.11.2026 12:01 CET (11:01 UTC)",
            "daher ist jetzt nichts geschehen.",
        ],
        "refused" => vec!["wurde nicht angenommen", "Grund:"],
        "help" => vec![
            "Nachrichten: Schreiben Sie Ihren Zug in die erste Zeile",
            "z. B. Sf3, e4, O-O",
            "Remis angenommen",
            "aufgeben",
            "Sprache de",
        ],
        "status" => vec![
            "Sie sind am Zug: 7... ?",
            "[ ] markiert den letzten Zug, 7. Db3.",
        ],
        "games" => vec!["Ihre Partien:", "#42 Alice Novak - Bojan Kralj"],
        "pgn" => vec!["als PGN", "7. Qb3 Qe7 *"],
        "language_changed" => vec!["ab jetzt schreiben wir Ihnen auf Deutsch.", "Sprache en"],
        "conditionals" => vec![
            "Mitteilung:",
            "Ihre bedingten Züge:",
            "  wenn 3...Lg4 4.dxe5",
            "„wenn Sc6 Lb5“",
            "„bedingte Züge löschen“",
        ],
        "conditionals_unexpected" => vec!["Ihr Gegenüber hat 3... Lg4 gespielt"],
        "conditional_played" => vec![
            "Der Zug Ihres Gegenübers, 3... Lg4, war der, den Ihre",
            "4. dxe5",
        ],
        "standings_bye" => vec![
            "In Runde 3 von Club championship 2027 sind Sie spielfrei",
            "Dafür erhalten Sie: 1.",
            "Rang  Nr  Name          R1   R2   R3  Pkt",
            "PAB ist das Freilos der Paarung",
        ],
        "standings" => vec![
            "Der aktuelle Stand von Club championship 2027:",
            "kampflos gewonnen und verloren",
            "„Tabelle“",
        ],
        "withdrawal_opponent" => vec![
            "Bojan Kralj hat sich aus Club championship 2027 zurückgezogen",
            "kampfloser Sieg für Sie",
            "Begründung der Turnierleitung:",
        ],
        "withdrawal_player" => vec![
            "Auf Beschluss der Turnierleitung nehmen Sie nicht mehr an",
            "Partie #43 gegen Carla Rossi: annulliert",
        ],
        "replaced_substitute" => vec!["Sie ersetzen Carla Rossi", "Sie sind am Zug: 3... ?"],
        "replaced_opponent" => vec!["spielen Sie jetzt gegen Bojan Kralj"],
        "replaced_player" => vec!["übernimmt Ihre Partien."],
        "deadline_extended" => vec!["um 7 Tage verlängert.", "> In hospital"],
        "reminder" => vec![
            "Zur Erinnerung: In Partie #42 gegen Bojan Kralj sind Sie am Zug, und Ihre",
            "Frist: 02.12.2026 18:05 CET (17:05 UTC)",
            "Uhren: Weiß: verbrauchte Tage: 4, für diesen Zug übrig: 1;",
            "Bojan Kralj spielte 3... Lg4. Sie sind am Zug: 4. ?",
        ],
        "silence" => vec![
            "Tage, und Ihr Zug ist noch nicht bei uns eingegangen.",
            "Frist: 30.12.2026 18:05 CET",
        ],
        "leave_notice" => vec![
            "Bojan Kralj ist ab heute im Urlaub.",
            "03.01.2027 00:00 CET",
        ],
        "leave_booked" => vec!["2026-12-24 bis 2027-01-02, 10 Tage", "Verbleibender"],
        "leave_refused" => vec!["> leave 2026-11-29 2026-12-05", "Grund:"],
        "digest" => vec![
            "Sie sind in 2 Partien am Zug.",
            "== Partie #42: Alice Novak - Bojan Kralj ==",
            "Bojan Kralj spielte 3... Lg4.",
            "== Partie #45: Cecilija Zorman - Alice Novak ==",
            "Cecilija Zorman spielte 3. d4.",
            "Frist: 03.12.2026 10:00 CET (09:00 UTC)",
            "Für Ihren Zug schreiben Sie an: chess+g45.r5t2w8yz3e@chess.test",
            "„Benachrichtigung einzeln“",
        ],
        "notify_digest" => vec!["einmal am Tag eine Mail", "„Benachrichtigung einzeln“"],
        "notify_each" => vec!["sobald Sie in einer Partie", "„Benachrichtigung täglich“"],
        "deadline_report" => vec![
            "Der Fristenbericht von Club championship 2027:",
            "Fristenbericht vom 2026-12-02 12:00 UTC",
            "Jetzt und demnächst im Urlaub (1):",
            "  Bojan Kralj <bojan@players.test>: 2026-12-24 bis 2027-01-02",
            "  #43     Alice Novak - Carla Rossi 1-0",
            "          um 2026-12-01 17:00 UTC: Zeit überschritten",
            "„Bericht“",
        ],
        "report_instructions" => vec!["daher wurde kein Bericht", "„Bericht“"],
        "swiss_round_warn" => vec![
            "Runde 3 von Autumn open 2027 schließt am 2027-01-31 12:00 UTC",
            "17 Züge",
        ],
        "swiss_round_closed" => vec!["wurde am 2027-01-31 12:00 UTC geschlossen"],
        "swiss_round_unpaired" => {
            vec!["Die Auslosung sagt:"]
        }
        "address_bounces" => vec![
            "Unsere Mails an Bojan Kralj <bojan@players.test> werden nicht zugestellt",
            "(letzter Status",
            "Laufende Partien:",
            "    dopis player resume bojan@players.test",
        ],
        "not_handled_too_complex" => vec![
            "wurde nicht gelesen: sie hat 151 MIME-Teile",
            "für den Administrator des Servers aufbewahrt",
        ],
        "not_handled_too_slow" => vec!["Das Lesen", "für den Administrator des Servers aufbewahrt"],
        "not_handled_failed" => vec![
            "wegen eines Problems auf diesem",
            "für den Administrator des Servers aufbewahrt",
        ],
        "game_cancelled" => vec![
            "Die Turnierleitung hat Partie #42",
            "Es können keine Züge mehr gespielt werden",
            "> Both players",
        ],
        "your_move_tables_say" => vec![
            "Die Endspieltabellen (KRvK) umfassen jetzt diese Stellung",
            "„reklamiere Gewinn“",
        ],
        "game_over_by_tables" => vec!["Entschieden durch die Endspieltabellen", "Antrag von Weiß."],
        "refused_table_claim" => {
            vec!["der Antrag auf Gewinn ist nicht begründet: die Endspieltabellen"]
        }
        "entry_confirm" => vec![
            "Von Ihrer Adresse kam eine Anmeldung zu diesem Turnier:",
            "als Spieler \"Alice Novak\"",
        ],
        "entry_entered_queue" => vec!["Sie sind Nummer 3 in der Warteschlange: eine Gruppe von 7"],
        "entry_refused_rating" => vec!["Ihre Wertung (1650)"],
        "swiss_bye_granted" => vec![
            "Die Turnierleitung hat Sie in Runde 4 von \"Spring Open\" (#12) mit halbem",
            "> Asked by phone.",
        ],
        "swiss_bye_paired" => vec!["Sie werden nicht gepaart", "Runde 5"],
        "swiss_bye_refused_paired" => vec!["nichts wurde geändert", "„spielfrei 12 Runde 5“"],
        "swiss_bye_refused_limit" => vec!["Sie haben alle 2"],
        "entry_qualified" => vec!["(Turnier #15)"],
        "entry_refused_qualification" => vec!["Qualifikation \"Higher\""],
        "entry_promoted" => vec!["(Turnier #16) ist beendet"],
        "your_move_thematic" => {
            vec!["Dies ist eine Themenpartie: Sie beginnt nach der Zugfolge 1. e4 c5 2. Sf3"]
        }
        "game_started_thematic" => vec![
            "Dies ist eine Themenpartie: Sie beginnt nach der Zugfolge 1. e4 c5 2. Sf3",
            "Als Nächstes zieht Alice Novak: 3.",
        ],
        "your_move_chess960" | "game_started_chess960" => {
            vec!["Dies ist eine Chess960-Partie: Startstellung Nummer 3."]
        }
        other => panic!("no German phrases for {other}"),
    }
}

/// Every mail kind in each translated language matches its golden file in
/// `tests/fixtures/outbound/<lang>/`, parses back, and says its phrases.
#[test]
fn every_mail_kind_in_every_translated_language_matches_its_golden_file() {
    let mut problems = Vec::new();
    for t in &TRANSLATED {
        let code = t.lang.code();
        for problem in golden_problems(every_case(t.lang, t.says), Some(code)) {
            problems.push(format!("{code}: {problem}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The words a mail tells its reader to write, quoted in their language's
/// quotation marks (`»sprejmem remi«`, `„przyjmuję remis”` …), and the
/// command column of the help: every one of them must read as the command
/// it stands for, in that reader's language. Quoted names of buttons and
/// mails are not commands.
#[test]
fn every_command_a_mail_teaches_is_understood_in_its_language() {
    use dopis::adapter::mail::compose::compose;
    use dopis::domain::command::{Command, parse};

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
        // The word a conditional line starts with, named alone ("each line
        // starting with »če«"): the whole examples beside it are checked.
        "če",
        "jeśli",
        "ja",
        "wenn",
    ];
    let mut problems = Vec::new();
    let mut checked = 0;
    for &Translated {
        lang,
        quotes: (open, close),
        ..
    } in &TRANSLATED
    {
        let mut taught: Vec<String> = Vec::new();
        let mut kinds = std::collections::BTreeSet::new();
        for case in every_case(lang, |_| Vec::new()) {
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
            // A line of a reply to the digest names its game (`#42 Sf3`,
            // `42: Sf3`): what follows the name is read as a command.
            let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
            let words = match dopis::adapter::mail::digest_reply::read(&words, &[], &[]).as_slice()
            {
                [dopis::adapter::mail::digest_reply::Line::Game { text, .. }] => text.clone(),
                _ => words,
            };
            let commands = parse(&words, lang).commands;
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
            "Conditional",
            "Conditionals",
            "CancelConditionals",
            "Standings",
            "Leave",
            "Notify",
        ] {
            if !kinds.contains(kind) {
                problems.push(format!("{lang}: no mail teaches {kind}"));
            }
        }
    }
    assert!(checked >= 60, "only {checked} words checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// How the digest counts the games where it is the reader's move, in the
/// subject: each language declines "game" after the number as it must
/// (Slovenian by the last two digits, Latvian by the last one except 11,
/// Polish and German only for one).
#[test]
fn the_digest_subject_declines_the_number_of_games_in_each_language() {
    use dopis::adapter::mail::compose::subject;

    let cases: &[(Lang, usize, &str)] = &[
        (Lang::En, 1, "your move in 1 game"),
        (Lang::En, 2, "your move in 2 games"),
        (Lang::Sl, 1, "na potezi ste v 1 partiji"),
        (Lang::Sl, 2, "na potezi ste v 2 partijah"),
        (Lang::Sl, 5, "na potezi ste v 5 partijah"),
        (Lang::Sl, 21, "na potezi ste v 21 partijah"),
        (Lang::Sl, 101, "na potezi ste v 101 partiji"),
        (Lang::Pl, 1, "Twój ruch w 1 partii"),
        (Lang::Pl, 2, "Twój ruch w 2 partiach"),
        (Lang::Pl, 21, "Twój ruch w 21 partiach"),
        (Lang::Lv, 1, "Jūsu gājiens 1 partijā"),
        (Lang::Lv, 2, "Jūsu gājiens 2 partijās"),
        (Lang::Lv, 11, "Jūsu gājiens 11 partijās"),
        (Lang::Lv, 21, "Jūsu gājiens 21 partijā"),
        (Lang::Lv, 111, "Jūsu gājiens 111 partijās"),
        (Lang::De, 1, "Sie sind in 1 Partie am Zug"),
        (Lang::De, 2, "Sie sind in 2 Partien am Zug"),
        (Lang::De, 21, "Sie sind in 21 Partien am Zug"),
    ];
    let mut problems = Vec::new();
    for &(lang, n, want) in cases {
        let got = subject(&digest_of(lang, n));
        if !got.ends_with(want) {
            problems.push(format!("{lang}, {n} games: {got:?} should end {want:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
