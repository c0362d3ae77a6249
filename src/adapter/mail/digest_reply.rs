//! A reply to a daily digest: one line per game, each naming its game.
//!
//! The digest lists several games, so a reply to it must say which game
//! each line is for. A line names its game by number (`#2 d5`, `#2: d5`,
//! `2: d5`, `2) d5`) or by the opponent's name (`Ana Novak: d5`, `Ana Novak
//! d5`, any case); what follows is read as a reply to that game's own mail
//! would be (a move, `draw`, `resign` …). `2. d5` is not a game number:
//! that is how a move number is written. When the digest showed one game,
//! a line without a name is for that game.
//!
//! Pure: the caller gives the text and the games, and carries out each line.

/// One game a line may name: its number and the opponent's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named<'a> {
    /// The game number.
    pub game: i64,
    /// The opponent's name, as the digest shows it.
    pub opponent: &'a str,
}

/// What one line of the reply says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// For a game: the rest of the line, to be read as a reply to it.
    Game {
        /// The game number.
        game: i64,
        /// What was written for it (`d5`, `Nf3 draw`).
        text: String,
    },
    /// A line that names no game (quoted back in the answer).
    Unnamed(String),
}

/// The most lines of one reply that are read: a digest shows a player's
/// games in progress, a line each, and every line read is a reply carried
/// out (a game loaded, the arbiter heard) in the mail's transaction, so a
/// mail of thousands of lines would hold the daemon for minutes. Lines
/// beyond it come back as one unnamed line, `… +N` (no words: it is quoted
/// back in the player's language), saying how many were not read.
pub const MAX_LINES: usize = 50;

/// Reads the lines of a reply. `known` are the player's games in progress
/// (names are looked up there); `shown` the games the digest showed (a
/// line without a name goes to the only one, when it showed one).
pub fn read(text: &str, known: &[Named<'_>], shown: &[i64]) -> Vec<Line> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = Vec::with_capacity(lines.len().min(MAX_LINES + 1));
    for line in lines.iter().take(MAX_LINES) {
        match named(line, known) {
            Some((game, rest)) => out.push(Line::Game {
                game,
                text: rest.to_owned(),
            }),
            None => out.push(Line::Unnamed((*line).to_owned())),
        }
    }
    // One game shown, and nothing named: the line is for it.
    if let [only] = shown
        && !out.iter().any(|l| matches!(l, Line::Game { .. }))
        && let [Line::Unnamed(text)] = out.as_slice()
    {
        let text = text.clone();
        out = vec![Line::Game { game: *only, text }];
    }
    if lines.len() > MAX_LINES {
        out.push(Line::Unnamed(format!("… +{}", lines.len() - MAX_LINES)));
    }
    out
}

/// The game a line names and the rest of it.
fn named<'t>(line: &'t str, known: &[Named<'_>]) -> Option<(i64, &'t str)> {
    if let Some(after) = line.strip_prefix('#') {
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let game = after[..digits].parse().ok()?;
        return Some((game, separator(&after[digits..], true)?));
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let rest = &line[digits..];
        // `2: d5`, `2) d5`; never `2. d5` (a move number) or `2 d5`.
        if let Some(rest) = rest.strip_prefix([':', ')']) {
            return Some((line[..digits].parse().ok()?, rest.trim()));
        }
        return None;
    }
    // The longest name first: "Ana Novak" before "Ana".
    let mut by_length: Vec<&Named<'_>> = known.iter().collect();
    by_length.sort_by_key(|n| std::cmp::Reverse(n.opponent.chars().count()));
    for n in by_length {
        let name = n.opponent.trim();
        if name.is_empty() {
            continue;
        }
        let Some(head) = line.get(..name.len()) else {
            continue;
        };
        if head.to_lowercase() == name.to_lowercase()
            && let Some(rest) = separator(&line[name.len()..], false)
        {
            return Some((n.game, rest));
        }
    }
    None
}

/// After a game's name or number: `:`, `-`, `–`, `)` or a space, then the
/// text; `None` when the name runs on into a word (`Anad5` is no name), but
/// a number may (`#2d5` is read as `#2 d5`).
fn separator(rest: &str, glued: bool) -> Option<&str> {
    if rest.is_empty() {
        return Some("");
    }
    let trimmed = rest.trim_start();
    let spaced = trimmed.len() < rest.len();
    if let Some(after) = trimmed.strip_prefix([':', '-', '–', ')']) {
        return Some(after.trim());
    }
    (spaced || glued).then_some(trimmed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_reply_of_thousands_of_lines_is_read_up_to_the_cap() {
        let known = [super::Named {
            game: 2,
            opponent: "Ana Novak",
        }];
        let text = "#2 e4\n".repeat(10_000);
        let lines = super::read(&text, &known, &[2]);
        assert_eq!(lines.len(), super::MAX_LINES + 1);
        assert_eq!(
            lines.last(),
            Some(&super::Line::Unnamed(format!(
                "… +{}",
                10_000 - super::MAX_LINES
            )))
        );
    }

    use super::*;

    fn known() -> Vec<Named<'static>> {
        vec![
            Named {
                game: 2,
                opponent: "Ana Novak",
            },
            Named {
                game: 5,
                opponent: "Piotr Wiśniewski",
            },
        ]
    }

    fn game(game: i64, text: &str) -> Line {
        Line::Game {
            game,
            text: text.to_owned(),
        }
    }

    #[test]
    fn each_line_names_its_game_by_number_or_opponent() {
        let text = "#2 d5\n\n  5: Nf3 draw\n#5: resign\n2) e4\nana novak: c5\nPiotr Wiśniewski – Sf6\nAna Novak exd5";
        assert_eq!(
            read(text, &known(), &[2, 5]),
            vec![
                game(2, "d5"),
                game(5, "Nf3 draw"),
                game(5, "resign"),
                game(2, "e4"),
                game(2, "c5"),
                game(5, "Sf6"),
                game(2, "exd5"),
            ]
        );
    }

    #[test]
    fn a_move_number_is_not_a_game_number() {
        assert_eq!(
            read("2. d5\n12... Nf6\n2 d5", &known(), &[2, 5]),
            vec![
                Line::Unnamed("2. d5".into()),
                Line::Unnamed("12... Nf6".into()),
                Line::Unnamed("2 d5".into()),
            ]
        );
    }

    #[test]
    fn a_digest_of_one_game_takes_a_bare_move() {
        assert_eq!(read("d5", &known(), &[5]), vec![game(5, "d5")]);
        assert_eq!(
            read("d5", &known(), &[2, 5]),
            vec![Line::Unnamed("d5".into())]
        );
        // Two bare lines are not guessed at.
        assert_eq!(
            read("d5\nc5", &known(), &[5]),
            vec![Line::Unnamed("d5".into()), Line::Unnamed("c5".into())]
        );
    }

    #[test]
    fn a_name_that_runs_into_a_word_is_no_name() {
        assert_eq!(
            read("Ana Novakova d5", &known(), &[2, 5]),
            vec![Line::Unnamed("Ana Novakova d5".into())]
        );
        assert_eq!(read("#2d5", &known(), &[2, 5]), vec![game(2, "d5")]);
        assert_eq!(
            read("#x d5", &known(), &[2, 5]),
            vec![Line::Unnamed("#x d5".into())]
        );
    }
}
