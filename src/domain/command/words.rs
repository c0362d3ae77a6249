//! The command words players write, per language.
//!
//! Phrases are written here as a native speaker writes them, with their
//! diacritics; they are compared after folding (lower case, no accents) and
//! after dropping the language's filler words, so `Ich gebe auf!` matches the
//! phrase `gebe auf` and `poddaje sie` matches `poddaję się`.

use crate::domain::lang::Lang;

/// Everything a player can write in one language.
pub(super) struct Words {
    /// Offer a draw (alone, or with a move on the same line).
    pub offer_draw: &'static [&'static str],
    /// Accept the opponent's draw offer.
    pub accept_draw: &'static [&'static str],
    /// Decline the opponent's draw offer.
    pub decline_draw: &'static [&'static str],
    /// Resign the game.
    pub resign: &'static [&'static str],
    /// Claim a draw by threefold repetition, the 50-move rule or the endgame tables.
    pub claim_draw: &'static [&'static str],
    /// Claim a win by the endgame tables.
    pub claim_win: &'static [&'static str],
    /// Ask for the state of the game.
    pub status: &'static [&'static str],
    /// Ask for a list of all my games.
    pub games: &'static [&'static str],
    /// Ask for a new XFCC password (for chess programs).
    pub xfcc_password: &'static [&'static str],
    /// Ask for the game's PGN.
    pub pgn: &'static [&'static str],
    /// Ask for help.
    pub help: &'static [&'static str],
    /// Ask for the event's standings.
    pub standings: &'static [&'static str],
    /// Ask for the deadline report.
    pub report: &'static [&'static str],
    /// List my conditional moves.
    pub conditionals: &'static [&'static str],
    /// Drop my conditional moves.
    pub cancel_conditionals: &'static [&'static str],
    /// List the events open for entries.
    pub entries: &'static [&'static str],
    /// Enter an event (before its number).
    pub enter: &'static [&'static str],
    /// Withdraw an entry (before the event's number).
    pub withdraw_entry: &'static [&'static str],
    /// Ask for a half-point bye in a Swiss event (first, before the numbers).
    pub bye: &'static [&'static str],
    /// The word before a round's number (`round 4`).
    pub round_words: &'static [&'static str],
    /// The word before an event's number (`event 12`).
    pub event_words: &'static [&'static str],
    /// Words that may stand between a bye's numbers (`in`, `of`).
    pub bye_joiners: &'static [&'static str],
    /// Notification choice (after `notify`): a mail when an event opens for entries.
    pub announcements: &'static [&'static str],
    /// Notification choice: no such mails.
    pub no_announcements: &'static [&'static str],
    /// First word of a leave booking.
    pub leave: &'static [&'static str],
    /// First word of a language change.
    pub language: &'static [&'static str],
    /// First word of a notification preference.
    pub notify: &'static [&'static str],
    /// Notification preference: one mail per move.
    pub each: &'static [&'static str],
    /// Notification preference: a daily digest.
    pub digest: &'static [&'static str],
    /// First word of a conditional line.
    pub if_words: &'static [&'static str],
    /// Words between the moves of a conditional line.
    pub then_words: &'static [&'static str],
    /// Words between the two dates of a leave booking.
    pub date_joiners: &'static [&'static str],
    /// Words that carry no command (`I`, `please`, `my move`).
    pub fillers: &'static [&'static str],
}

/// English, read for every player.
pub(super) const EN: Words = Words {
    offer_draw: &[
        "draw",
        "offer draw",
        "draw offer",
        "draw offered",
        "propose draw",
        "offer",
    ],
    accept_draw: &[
        "accept draw",
        "draw accepted",
        "accept",
        "accepted",
        "agree draw",
        "agreed",
    ],
    decline_draw: &[
        "decline draw",
        "draw declined",
        "decline",
        "declined",
        "reject draw",
        "refuse draw",
        "no draw",
    ],
    resign: &["resign", "resigns", "resigned", "give up", "concede"],
    claim_draw: &["claim draw", "draw claim", "claim"],
    claim_win: &["claim win", "win claim", "claim the win", "claim a win"],
    status: &["status", "state"],
    games: &["games", "list games"],
    xfcc_password: &["xfcc password"],
    pgn: &["pgn", "send pgn"],
    help: &["help", "commands", "help me"],
    standings: &["standings", "table", "crosstable"],
    report: &["report"],
    conditionals: &[
        "conditionals",
        "conditional moves",
        "show conditionals",
        "list conditionals",
    ],
    cancel_conditionals: &[
        "cancel conditionals",
        "cancel conditional moves",
        "cancel conditional",
        "clear conditionals",
        "delete conditionals",
    ],
    entries: &["entries", "open events", "events", "list entries"],
    enter: &[
        "enter",
        "enter event",
        "join",
        "join event",
        "sign up",
        "sign up for",
        "entry",
        "entry for",
    ],
    withdraw_entry: &[
        "withdraw entry",
        "withdraw my entry",
        "cancel entry",
        "withdraw entry from",
        "leave queue",
    ],
    bye: &[
        "bye",
        "half-point bye",
        "half point bye",
        "request bye",
        "request a bye",
        "bye request",
    ],
    round_words: &["round", "rd"],
    event_words: &["event", "tournament"],
    bye_joiners: &["for", "in", "of"],
    announcements: &["announcements", "announce", "events"],
    no_announcements: &["no announcements", "announcements off", "no events"],
    leave: &["leave", "vacation", "holiday"],
    language: &["language", "lang"],
    notify: &["notify", "notifications", "notification"],
    each: &["each", "every", "each move", "every move"],
    digest: &["digest", "daily", "daily digest"],
    if_words: &["if"],
    then_words: &["then", "play", "reply", "->", "→", "=>"],
    date_joiners: &["to", "until", "till", "from", "through", "-", "–", "—"],
    fillers: &[
        "i", "the", "a", "and", "please", "pls", "plus", "+", "&", "my", "move", "with", "also",
        "now",
    ],
};

/// Slovenian.
const SL: Words = Words {
    offer_draw: &[
        "remi",
        "ponujam remi",
        "predlagam remi",
        "ponudba remija",
        "ponudim remi",
    ],
    accept_draw: &[
        "sprejmem remi",
        "sprejemam remi",
        "remi sprejet",
        "sprejmem",
        "se strinjam",
    ],
    decline_draw: &[
        "zavrnem remi",
        "zavračam remi",
        "remi zavrnjen",
        "zavrnem",
        "ne remi",
        "brez remija",
    ],
    resign: &["predaja", "predam", "predajam", "vdam se", "predam partijo"],
    claim_draw: &["zahtevam remi", "reklamiram remi", "uveljavljam remi"],
    claim_win: &["zahtevam zmago", "reklamiram zmago", "uveljavljam zmago"],
    status: &["stanje"],
    games: &["partije", "moje partije"],
    xfcc_password: &["xfcc geslo"],
    pgn: &["pgn"],
    help: &["pomoč"],
    standings: &["lestvica", "razpredelnica", "tabela"],
    report: &["poročilo", "poročilo o rokih"],
    conditionals: &["pogojne poteze", "pogojne"],
    cancel_conditionals: &["prekliči pogojne poteze", "prekliči pogojne"],
    entries: &["prijave", "turnirji", "odprti turnirji"],
    enter: &[
        "prijava",
        "prijavljam",
        "prijavljam se",
        "prijava na turnir",
    ],
    withdraw_entry: &[
        "odjava",
        "odjavljam",
        "odjavljam se",
        "preklic prijave",
        "prekliči prijavo",
    ],
    bye: &[
        "prosto kolo",
        "prost krog",
        "prosti krog",
        "prosim za prosto kolo",
    ],
    round_words: &["kolo", "krog", "kolu", "krogu"],
    event_words: &["turnir", "turnirju"],
    bye_joiners: &["v", "za", "na"],
    announcements: &["razpisi", "turnirji"],
    no_announcements: &["brez razpisov", "brez turnirjev"],
    leave: &["dopust"],
    language: &["jezik"],
    notify: &["obveščanje", "obvestila"],
    each: &["vsaka poteza", "vsako potezo", "sproti", "posamezno"],
    digest: &["povzetek", "dnevno", "dnevni povzetek"],
    if_words: &["če"],
    then_words: &["potem", "nato", "igram"],
    date_joiners: &["do", "od"],
    fillers: &["in", "prosim", "moja", "poteza", "jaz"],
};

/// Polish.
const PL: Words = Words {
    offer_draw: &[
        "remis",
        "proponuję remis",
        "oferuję remis",
        "propozycja remisu",
    ],
    accept_draw: &[
        "przyjmuję remis",
        "akceptuję remis",
        "remis przyjęty",
        "zgoda na remis",
        "zgoda",
        "przyjmuję",
    ],
    decline_draw: &[
        "odrzucam remis",
        "nie przyjmuję remisu",
        "remis odrzucony",
        "bez remisu",
        "odrzucam",
    ],
    resign: &["poddaję się", "poddaję partię", "poddaję", "kapituluję"],
    claim_draw: &["żądam remisu", "reklamuję remis", "zgłaszam remis"],
    claim_win: &["żądam wygranej", "reklamuję wygraną", "zgłaszam wygraną"],
    status: &["stan"],
    games: &["partie", "moje partie"],
    xfcc_password: &["hasło xfcc"],
    pgn: &["pgn"],
    help: &["pomoc"],
    standings: &["tabela", "klasyfikacja", "wyniki"],
    report: &["raport", "raport terminów"],
    conditionals: &["ruchy warunkowe", "warunkowe"],
    cancel_conditionals: &["anuluj ruchy warunkowe", "anuluj warunkowe"],
    entries: &["zapisy", "turnieje", "otwarte turnieje"],
    enter: &["zgłaszam się", "zgłoszenie", "zapisuję się", "zapis"],
    withdraw_entry: &[
        "wycofuję zgłoszenie",
        "wycofaj zgłoszenie",
        "rezygnuję",
        "rezygnacja",
    ],
    bye: &["pauza", "pauzuję", "proszę o pauzę", "pauzę"],
    round_words: &["runda", "rundzie", "rundę", "rundy"],
    event_words: &["turniej", "turnieju"],
    bye_joiners: &["w", "na", "z"],
    announcements: &["ogłoszenia", "turnieje"],
    no_announcements: &["bez ogłoszeń", "bez turnieju"],
    leave: &["urlop"],
    language: &["język"],
    notify: &["powiadomienia"],
    each: &["każdy ruch", "osobno", "pojedynczo"],
    digest: &["zbiorczo", "podsumowanie", "codziennie"],
    if_words: &["jeśli", "jeżeli", "gdy"],
    then_words: &["to", "wtedy", "gram"],
    date_joiners: &["do", "od"],
    fillers: &["i", "oraz", "proszę", "mój", "ruch", "ja"],
};

/// Latvian.
const LV: Words = Words {
    offer_draw: &[
        "neizšķirts",
        "piedāvāju neizšķirtu",
        "neizšķirta piedāvājums",
    ],
    accept_draw: &[
        "pieņemu neizšķirtu",
        "piekrītu neizšķirtam",
        "neizšķirts pieņemts",
        "pieņemu",
        "piekrītu",
    ],
    decline_draw: &[
        "noraidu neizšķirtu",
        "nepieņemu neizšķirtu",
        "neizšķirts noraidīts",
        "noraidu",
        "bez neizšķirta",
    ],
    resign: &["padodos", "padodu partiju"],
    claim_draw: &["pieprasu neizšķirtu"],
    claim_win: &["pieprasu uzvaru"],
    status: &["statuss", "stāvoklis"],
    games: &["partijas", "manas partijas"],
    xfcc_password: &["xfcc parole"],
    pgn: &["pgn"],
    help: &["palīdzība"],
    standings: &["tabula", "turnīra tabula"],
    report: &["pārskats", "termiņu pārskats", "atskaite"],
    conditionals: &["nosacījuma gājieni", "nosacītie gājieni"],
    cancel_conditionals: &["atcelt nosacījuma gājienus", "atcelt nosacītos gājienus"],
    entries: &["pieteikumi", "turnīri", "atvērtie turnīri"],
    enter: &["piesakos", "pieteikums", "pieteikties"],
    withdraw_entry: &["atsaucu pieteikumu", "atsaukt pieteikumu", "atsaucu"],
    bye: &["brīvkārta", "lūdzu brīvkārtu", "brīvkārtu"],
    round_words: &["kārta", "kārtā", "kārtai", "kārtu"],
    event_words: &["turnīrs", "turnīrā", "turnīra"],
    bye_joiners: &["uz", "par"],
    announcements: &["sludinājumi", "turnīri"],
    no_announcements: &["bez sludinājumiem", "bez turnīriem"],
    leave: &["atvaļinājums"],
    language: &["valoda"],
    notify: &["paziņojumi"],
    each: &["katrs gājiens", "katru gājienu", "atsevišķi"],
    digest: &["kopsavilkums", "dienas kopsavilkums", "katru dienu"],
    if_words: &["ja"],
    then_words: &["tad", "spēlēju"],
    date_joiners: &["līdz", "no"],
    fillers: &["un", "lūdzu", "mans", "gājiens", "es"],
};

/// German.
const DE: Words = Words {
    offer_draw: &[
        "remis",
        "remis angeboten",
        "biete remis",
        "biete remis an",
        "remisangebot",
    ],
    accept_draw: &[
        "remis angenommen",
        "nehme remis an",
        "remis annehmen",
        "angenommen",
        "einverstanden",
    ],
    decline_draw: &[
        "remis abgelehnt",
        "lehne remis ab",
        "remis ablehnen",
        "abgelehnt",
        "kein remis",
    ],
    resign: &["aufgeben", "gebe auf", "aufgegeben"],
    claim_draw: &[
        "remis reklamieren",
        "reklamiere remis",
        "remis beanspruchen",
        "beanspruche remis",
    ],
    claim_win: &[
        "gewinn reklamieren",
        "reklamiere gewinn",
        "gewinn beanspruchen",
        "beanspruche gewinn",
    ],
    status: &["status", "stand"],
    games: &["partien", "meine partien", "spiele"],
    xfcc_password: &["xfcc passwort", "xfcc kennwort"],
    pgn: &["pgn"],
    help: &["hilfe"],
    standings: &["tabelle", "rangliste"],
    report: &["bericht", "fristenbericht"],
    conditionals: &["bedingte züge", "bedingte zuege"],
    cancel_conditionals: &[
        "bedingte züge löschen",
        "bedingte zuege loeschen",
        "lösche bedingte züge",
    ],
    entries: &["anmeldungen", "turniere", "offene turniere"],
    enter: &[
        "anmelden",
        "anmeldung",
        "melde mich an",
        "ich melde mich an",
    ],
    withdraw_entry: &[
        "abmelden",
        "abmeldung",
        "melde mich ab",
        "anmeldung zurückziehen",
    ],
    bye: &["spielfrei", "spielfrei bitte", "ich bin spielfrei"],
    round_words: &["runde"],
    event_words: &["turnier", "event"],
    bye_joiners: &["in", "im", "von", "für"],
    announcements: &["ankündigungen", "turniere"],
    no_announcements: &["keine ankündigungen", "keine turniere"],
    leave: &["urlaub"],
    language: &["sprache"],
    notify: &["benachrichtigung", "benachrichtigungen"],
    each: &["einzeln", "jeder zug", "jeden zug"],
    // Folding reads "taglich" for "täglich"; a German keyboard without
    // umlauts writes "taeglich".
    digest: &[
        "zusammenfassung",
        "täglich",
        "taeglich",
        "tägliche zusammenfassung",
        "taegliche zusammenfassung",
    ],
    if_words: &["wenn", "falls"],
    then_words: &["dann", "spiele"],
    date_joiners: &["bis", "vom", "von"],
    fillers: &["ich", "und", "bitte", "mein", "zug"],
};

/// The vocabularies read for a player: English always, then their own language.
pub(super) fn for_lang(lang: Lang) -> Vec<&'static Words> {
    let own = match lang {
        Lang::Sl => Some(&SL),
        Lang::Pl => Some(&PL),
        Lang::Lv => Some(&LV),
        Lang::De => Some(&DE),
        _ => None,
    };
    std::iter::once(&EN).chain(own).collect()
}

/// The first (most usual) phrase of one kind in `lang`'s own vocabulary, or
/// English's where the language has none.
pub(super) fn first(lang: Lang, pick: fn(&Words) -> &'static [&'static str]) -> &'static str {
    for words in for_lang(lang).into_iter().rev() {
        if let Some(phrase) = pick(words).first() {
            return phrase;
        }
    }
    ""
}

/// Every vocabulary, for tests that check them all.
#[cfg(test)]
pub(super) const ALL: [(&str, &Words); 5] = [
    ("en", &EN),
    ("sl", &SL),
    ("pl", &PL),
    ("lv", &LV),
    ("de", &DE),
];
