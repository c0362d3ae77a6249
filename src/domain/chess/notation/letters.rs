//! Piece letters per language, for reading and writing SAN.
//!
//! Sources, per language (each verified before it went in here):
//!
//! - PGN standard (S. J. Edwards, 1994), section "Alternative chess piece
//!   letters", which lists pawn knight bishop rook queen king for Czech, Danish,
//!   Dutch, English, Estonian, Finnish, French, German, Hungarian, Icelandic,
//!   Italian, Norwegian, Polish, Portuguese, Romanian, Spanish and Swedish.
//! - Slovak: K D V S J, pawn P (Slovak chess federation's bulletin
//!   "Šachová notácia a jej význam", soks.sk, and chess.com/sk notation guide).
//! - Slovenian: K D T L S (PRODUCT.md; Slovenian Wikipedia "Dopisni šahovski
//!   zapis" writes Sg1-f3 and b7-b8D). The pawn (kmet) has no letter: K is the king.
//! - Croatian and Serbian (one pluricentric language): K D T L S, pawns
//!   unlettered (Serbian notation guides: "kralj K, dama D, top T, lovac L,
//!   skakač S, dok se pešak ne obeležava").
//! - Latvian: K D T L Z (karalis, dāma, tornis, laidnis, zirgs); the pawn
//!   (bandinieks) is not lettered in SAN.
//! - Lithuanian: K V B R Ž (karalius, valdovė, bokštas, rikis, žirgas;
//!   a64.puslapiai.lt rules page), pawns unlettered.
//!
//! Pawn letters are only listed where the source gives one; SAN never needs
//! them.

use shakmaty::Role;

use crate::domain::lang::Lang;

/// Letters in the order pawn, knight, bishop, rook, queen, king; `None` where
/// the language has no letter for the pawn.
type LetterSet = (Option<char>, [char; 5]);

fn set(lang: Lang) -> LetterSet {
    match lang {
        Lang::En => (Some('P'), ['N', 'B', 'R', 'Q', 'K']),
        Lang::Sl | Lang::Hr | Lang::Sr => (None, ['S', 'L', 'T', 'D', 'K']),
        Lang::Pl => (Some('P'), ['S', 'G', 'W', 'H', 'K']),
        Lang::Lv => (None, ['Z', 'L', 'T', 'D', 'K']),
        Lang::De | Lang::Sv | Lang::Da | Lang::No => (Some('B'), ['S', 'L', 'T', 'D', 'K']),
        Lang::Cs | Lang::Sk => (Some('P'), ['J', 'S', 'V', 'D', 'K']),
        Lang::Nl => (Some('O'), ['P', 'L', 'T', 'D', 'K']),
        Lang::Fr => (Some('P'), ['C', 'F', 'T', 'D', 'R']),
        Lang::Es | Lang::It => (Some('P'), ['C', 'A', 'T', 'D', 'R']),
        Lang::Pt => (Some('P'), ['C', 'B', 'T', 'D', 'R']),
        Lang::Ro => (Some('P'), ['C', 'N', 'T', 'D', 'R']),
        Lang::Fi => (Some('P'), ['R', 'L', 'T', 'D', 'K']),
        Lang::Et => (Some('P'), ['R', 'O', 'V', 'L', 'K']),
        Lang::Lt => (None, ['Ž', 'R', 'B', 'V', 'K']),
        Lang::Hu => (Some('G'), ['H', 'F', 'B', 'V', 'K']),
        Lang::Is => (Some('P'), ['R', 'B', 'H', 'D', 'K']),
    }
}

const PIECES: [Role; 5] = [
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The letter a language writes for a piece (`None` for a pawn without one).
pub fn letter(lang: Lang, role: Role) -> Option<char> {
    let (pawn, pieces) = set(lang);
    match role {
        Role::Pawn => pawn,
        _ => PIECES
            .iter()
            .position(|r| *r == role)
            .and_then(|i| pieces.get(i).copied()),
    }
}

/// The ASCII letter a text diagram shows for a piece (upper case) to a
/// reader of `lang`: the language's SAN letter, and for the pawn, which SAN
/// leaves unlettered in some languages, the initial of its name there
/// (Slovenian kmet/pešec `P`, Latvian bandinieks `B`, Lithuanian pėstininkas
/// `P`). A letter outside ASCII (Lithuanian `Ž`) falls back to English's: the
/// figurine board beside it says the piece either way.
pub fn board_letter(lang: Lang, role: Role) -> char {
    let pawn = match lang {
        Lang::Lv => 'B',
        _ => 'P',
    };
    let ours = match role {
        Role::Pawn => letter(lang, role).unwrap_or(pawn),
        _ => letter(lang, role).unwrap_or('?'),
    };
    if ours.is_ascii_alphabetic() {
        ours
    } else {
        letter(Lang::En, role).unwrap_or('?')
    }
}

/// What one letter may mean in one language, upper or lower case.
/// The second field is true when the letter is that language's pawn letter.
fn meaning(lang: Lang, ch: char) -> Option<(Role, bool)> {
    let up = ch.to_uppercase().next().unwrap_or(ch);
    let (pawn, pieces) = set(lang);
    if let Some(i) = pieces.iter().position(|c| *c == up) {
        return PIECES.get(i).map(|r| (*r, false));
    }
    (pawn == Some(up)).then_some((Role::Pawn, true))
}

/// The roles a letter can stand for when a player writing `lang` uses it:
/// the player's language and English are both tried.
///
/// A pawn letter loses to a piece letter: pawn letters are optional
/// decoration that SAN never needs, while piece letters are required, so a
/// Dutch `P` is a knight (not the English pawn) and a `B` from a German is
/// the English bishop (not the German pawn). Two different piece meanings
/// (a Hungarian `B` rook against the English bishop) are both kept, and the
/// caller reports the move as ambiguous when both are legal.
pub fn roles_for(lang: Lang, ch: char) -> Vec<Role> {
    let mut found: Vec<(Role, bool)> = [lang, Lang::En]
        .into_iter()
        .filter_map(|l| meaning(l, ch))
        .collect();
    if found.iter().any(|(_, pawn)| !pawn) {
        found.retain(|(_, pawn)| !pawn);
    }
    let mut roles: Vec<Role> = found.into_iter().map(|(r, _)| r).collect();
    roles.dedup();
    roles
}

/// The role of a figurine, either colour's glyph.
pub fn figurine_role(ch: char) -> Option<Role> {
    Some(match ch {
        '♔' | '♚' => Role::King,
        '♕' | '♛' => Role::Queen,
        '♖' | '♜' => Role::Rook,
        '♗' | '♝' => Role::Bishop,
        '♘' | '♞' => Role::Knight,
        '♙' | '♟' => Role::Pawn,
        _ => return None,
    })
}

/// The figurine written for a piece (the white glyphs, as printed books do
/// for both sides).
pub fn figurine(role: Role) -> char {
    match role {
        Role::King => '♔',
        Role::Queen => '♕',
        Role::Rook => '♖',
        Role::Bishop => '♗',
        Role::Knight => '♘',
        Role::Pawn => '♙',
    }
}

/// The English name of a piece, for explanations.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_letters_its_pieces_as_its_source_says() {
        // (language, knight bishop rook queen king as one string)
        let table = [
            (Lang::En, "NBRQK"),
            (Lang::Sl, "SLTDK"),
            (Lang::Pl, "SGWHK"),
            (Lang::Lv, "ZLTDK"),
            (Lang::De, "SLTDK"),
            (Lang::Cs, "JSVDK"),
            (Lang::Sk, "JSVDK"),
            (Lang::Hr, "SLTDK"),
            (Lang::Sr, "SLTDK"),
            (Lang::Nl, "PLTDK"),
            (Lang::Fr, "CFTDR"),
            (Lang::Es, "CATDR"),
            (Lang::It, "CATDR"),
            (Lang::Pt, "CBTDR"),
            (Lang::Ro, "CNTDR"),
            (Lang::Sv, "SLTDK"),
            (Lang::Da, "SLTDK"),
            (Lang::No, "SLTDK"),
            (Lang::Fi, "RLTDK"),
            (Lang::Et, "ROVLK"),
            (Lang::Lt, "ŽRBVK"),
            (Lang::Hu, "HFBVK"),
            (Lang::Is, "RBHDK"),
        ];
        assert_eq!(table.len(), Lang::ALL.len());
        for (lang, letters) in table {
            let got: String = PIECES.iter().filter_map(|r| letter(lang, *r)).collect();
            assert_eq!(got, letters, "{lang}");
        }
    }

    #[test]
    fn a_letter_means_what_the_player_language_or_english_says() {
        use Role::*;
        let table: [(Lang, char, &[Role]); 12] = [
            (Lang::Hu, 'B', &[Rook, Bishop]),
            (Lang::Fr, 'R', &[King, Rook]),
            (Lang::Ro, 'N', &[Bishop, Knight]),
            (Lang::Nl, 'P', &[Knight]),
            (Lang::Nl, 'O', &[Pawn]),
            (Lang::De, 'B', &[Bishop]),
            (Lang::De, 'b', &[Bishop]),
            (Lang::Pl, 'h', &[Queen]),
            (Lang::En, 'P', &[Pawn]),
            (Lang::Lt, 'ž', &[Knight]),
            (Lang::Sl, 'X', &[]),
            (Lang::Is, 'B', &[Bishop]),
        ];
        for (lang, ch, want) in table {
            assert_eq!(roles_for(lang, ch), want, "{lang} {ch}");
        }
    }
}
