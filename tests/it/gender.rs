//! Mails speak of players in forms right for anyone. Polish, Slovenian and
//! Latvian put a gender on nouns, adjectives and past tenses: "przeciwnikowi
//! (Ana Novak), który" is a man's form for a woman. The templates name a
//! player in the nominative after a verb that has no gender ("teraz ruch ma
//! Ana Novak", "na potezi je …"), say "the other side" where no name is
//! given, and German says "Gegenüber" (neuter) rather than "Gegner".
//!
//! The check reads the template sources: a form listed here is one that
//! was written once and is wrong for half the players.

use std::fs;
use std::path::Path;

/// Forms that take a gender a player may not have, by language.
const GENDERED: &[(&str, &[&str])] = &[
    (
        "pl",
        &[
            // "to the opponent (a name), who…", masculine
            "przeciwnikowi (",
            "który ma teraz ruch",
            "przeciwnik nie mógłby",
            "\"przeciwnik\"",
            // past tenses of a named player: "zagrał", "zaproponował", …
            "}} zagrał",
            "}} zaproponował",
            "}} odrzucił",
            "}} wycofał",
            "}} poddał",
        ],
    ),
    (
        "sl",
        &[
            "nasprotniku (",
            "nasprotnik ne bi mogel",
            "\"nasprotnik\"",
            "}} je odigral",
            "}} je ponudil",
            "}} je zavrnil",
            "}} je predal",
        ],
    ),
    ("lv", &["pretiniekam (", "kuram tagad", "\"pretinieks\""]),
    (
        "de",
        &["Gegner ", "Gegners", "Gegner\"", "Gegner\n", "Gegner)"],
    ),
];

#[test]
fn templates_name_players_in_forms_right_for_anyone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    let mut found = Vec::new();
    for (lang, forms) in GENDERED {
        let dir = root.join(lang);
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no templates in {}", dir.display());
        for file in files {
            let text = fs::read_to_string(&file).expect("a template");
            for form in *forms {
                if text.contains(form) {
                    found.push(format!("{}: {form:?}", file.display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "gendered forms:\n{}", found.join("\n"));
}
