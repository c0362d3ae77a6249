//! The languages players write in: one code per language, used for piece
//! letters, command words and mail templates.

use std::fmt;
use std::str::FromStr;

/// A player's language, by ISO 639-1 code.
///
/// The seed languages (Slovenian, Polish, Latvian) and English have mail
/// templates; every language here has piece letters for move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Lang {
    /// English (also the fallback for everything).
    #[default]
    En,
    /// Slovenian.
    Sl,
    /// Polish.
    Pl,
    /// Latvian.
    Lv,
    /// German.
    De,
    /// Czech.
    Cs,
    /// Slovak.
    Sk,
    /// Croatian.
    Hr,
    /// Serbian (Latin script).
    Sr,
    /// Dutch.
    Nl,
    /// French.
    Fr,
    /// Spanish.
    Es,
    /// Italian.
    It,
    /// Portuguese.
    Pt,
    /// Romanian.
    Ro,
    /// Swedish.
    Sv,
    /// Danish.
    Da,
    /// Norwegian.
    No,
    /// Finnish.
    Fi,
    /// Estonian.
    Et,
    /// Lithuanian.
    Lt,
    /// Hungarian.
    Hu,
    /// Icelandic.
    Is,
}

impl Lang {
    /// Every language, in a stable order.
    pub const ALL: [Lang; 23] = [
        Lang::En,
        Lang::Sl,
        Lang::Pl,
        Lang::Lv,
        Lang::De,
        Lang::Cs,
        Lang::Sk,
        Lang::Hr,
        Lang::Sr,
        Lang::Nl,
        Lang::Fr,
        Lang::Es,
        Lang::It,
        Lang::Pt,
        Lang::Ro,
        Lang::Sv,
        Lang::Da,
        Lang::No,
        Lang::Fi,
        Lang::Et,
        Lang::Lt,
        Lang::Hu,
        Lang::Is,
    ];

    /// The languages the mail templates and the web pages are written in
    /// (every other language reads them in English).
    pub const WRITTEN: [Lang; 5] = [Lang::En, Lang::Sl, Lang::Pl, Lang::Lv, Lang::De];

    /// Whether the mails and pages are written in this language.
    pub fn is_written(self) -> bool {
        Lang::WRITTEN.contains(&self)
    }

    /// This language if the pages are written in it, else English.
    pub fn or_english(self) -> Lang {
        if self.is_written() { self } else { Lang::En }
    }

    /// A language the web pages are written in, from its code (an event
    /// file's `lang`); a clear refusal for any other.
    pub fn of_pages(code: &str) -> Result<Lang, String> {
        let lang: Lang = code.parse().map_err(|e: UnknownLang| e.to_string())?;
        if lang.is_written() {
            Ok(lang)
        } else {
            Err(format!(
                "'{}' ({}): the web pages are written in {}; write one of them",
                code.trim(),
                lang.english_name(),
                Lang::WRITTEN
                    .map(Lang::code)
                    .join(", ")
                    .replacen(", de", " and de", 1)
            ))
        }
    }

    /// The language's name in itself, for a page's language links
    /// (`Slovenščina`); the English name for languages the pages are not
    /// written in.
    pub fn own_name(self) -> &'static str {
        match self {
            Lang::Sl => "Slovenščina",
            Lang::Pl => "Polski",
            Lang::Lv => "Latviešu",
            Lang::De => "Deutsch",
            other => other.english_name(),
        }
    }

    /// The ISO 639-1 code, e.g. `sl`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Sl => "sl",
            Lang::Pl => "pl",
            Lang::Lv => "lv",
            Lang::De => "de",
            Lang::Cs => "cs",
            Lang::Sk => "sk",
            Lang::Hr => "hr",
            Lang::Sr => "sr",
            Lang::Nl => "nl",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::Pt => "pt",
            Lang::Ro => "ro",
            Lang::Sv => "sv",
            Lang::Da => "da",
            Lang::No => "no",
            Lang::Fi => "fi",
            Lang::Et => "et",
            Lang::Lt => "lt",
            Lang::Hu => "hu",
            Lang::Is => "is",
        }
    }

    /// The language's name in English, for help texts.
    pub fn english_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Sl => "Slovenian",
            Lang::Pl => "Polish",
            Lang::Lv => "Latvian",
            Lang::De => "German",
            Lang::Cs => "Czech",
            Lang::Sk => "Slovak",
            Lang::Hr => "Croatian",
            Lang::Sr => "Serbian",
            Lang::Nl => "Dutch",
            Lang::Fr => "French",
            Lang::Es => "Spanish",
            Lang::It => "Italian",
            Lang::Pt => "Portuguese",
            Lang::Ro => "Romanian",
            Lang::Sv => "Swedish",
            Lang::Da => "Danish",
            Lang::No => "Norwegian",
            Lang::Fi => "Finnish",
            Lang::Et => "Estonian",
            Lang::Lt => "Lithuanian",
            Lang::Hu => "Hungarian",
            Lang::Is => "Icelandic",
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A language code that dopis does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language '{0}': use one of {codes}", codes = all_codes())]
pub struct UnknownLang(pub String);

fn all_codes() -> String {
    Lang::ALL.map(Lang::code).join(", ")
}

impl serde::Serialize for Lang {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.code())
    }
}

impl<'de> serde::Deserialize<'de> for Lang {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        code.parse().map_err(serde::de::Error::custom)
    }
}

impl FromStr for Lang {
    type Err = UnknownLang;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let code = s.trim().to_ascii_lowercase();
        // Accept a region suffix as mail clients and locales write it (pl-PL, sl_SI).
        let base = code.split(['-', '_']).next().unwrap_or("");
        let base = if base == "nb" || base == "nn" {
            "no"
        } else {
            base
        };
        Lang::ALL
            .into_iter()
            .find(|l| l.code() == base)
            .ok_or_else(|| UnknownLang(s.trim().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_back_to_its_language() {
        for lang in Lang::ALL {
            assert_eq!(lang.code().parse::<Lang>(), Ok(lang));
        }
        assert_eq!("pl-PL".parse::<Lang>(), Ok(Lang::Pl));
        assert_eq!("nb".parse::<Lang>(), Ok(Lang::No));
    }

    #[test]
    fn unknown_code_names_the_choices() {
        let err = "xx".parse::<Lang>().unwrap_err().to_string();
        assert!(err.contains("unknown language 'xx'"), "{err}");
        assert!(err.contains("sl, pl, lv"), "{err}");
    }
}
