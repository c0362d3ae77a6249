//! Issue 24's season, through the real binary on both backends: every mail
//! is dropped into the Maildir inbox as a delivery agent does, every answer
//! read from the sent Maildir, and `dopis serve --once` does all the rest,
//! its clock moved on by libfaketime for the days. No step is a TD's:
//!
//! - an open class (`section_size = 7`) that 30 players and 5 strangers
//!   enter, with forged, duplicated, unconfirmed, late and withdrawn entries
//!   among them: four sections start by themselves with exactly the first 28
//!   confirmed, the two after them wait and are told their place, and at
//!   `closes` are told the queue closed;
//! - a cup in two stages (3 groups of 5, then a final of 6) played to the
//!   end by mail: the final is built and started by itself with the right
//!   qualifiers, the ties at the line decided by the file's rule;
//! - a thematic event whose games all start from its position;
//! - a consultation game (three members against two) played to mate by
//!   votes, with a changed vote and a tie the captain's vote breaks at the
//!   votes' close (the daemon dying there, at `before-votes-commit` and
//!   just after a send, makes it once and tells each member once); the
//!   votes are in the event's PGN.

use std::collections::BTreeSet;

use crate::club::{Club, Sent};
use crate::on_both_backends;
use crate::support::{TestDb, dopis, ok};

const CLUB: &str = "chess@chess.test";

struct Season<'a> {
    club: Club,
    db: &'a TestDb,
    /// How many of the sent mails were read already.
    seen: usize,
    /// Days since the season began, as the daemon's clock has them.
    days: u32,
}

impl<'a> Season<'a> {
    fn new(db: &'a TestDb) -> Season<'a> {
        Season {
            club: Club::empty(db, ""),
            db,
            seen: 0,
            days: 0,
        }
    }

    fn run(&self, args: &[&str]) -> String {
        ok(&dopis(self.club.path(), self.db, args))
    }

    fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        serde_json::from_str(&self.run(&all)).unwrap()
    }

    /// Writes an event file; `dopis event {verb}` on it; its number.
    fn event(&self, verb: &str, name: &str, text: &str) -> i64 {
        std::fs::write(self.club.path().join(name), text).unwrap();
        self.run(&["event", verb, name])
            .lines()
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    /// One `dopis serve --once`, `days` into the season: the mails it sent.
    fn serve(&mut self) -> Vec<Sent> {
        let offset = format!("+{}h", self.days * 24);
        ok(&self.club.serve_once_at(self.db, None, Some(&offset)));
        let all = self.club.sent_mails();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    /// One `dopis serve --once`, `days` into the season, that dies at the
    /// crash point `point` (it aborts): the mails it sent before it died.
    fn serve_dying_at(&mut self, point: &str) -> Vec<Sent> {
        let offset = format!("+{}h", self.days * 24);
        let out = self.club.serve_once_at(self.db, Some(point), Some(&offset));
        // faketime catches the abort and exits with a code of its own.
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && said.contains(&format!("DOPIS_CRASH_AT={point}: aborting")),
            "dopis serve dies at {point}: {said}"
        );
        let all = self.club.sent_mails();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    /// `from` writes `text` to `to`, as a reply to `in_reply_to` if given.
    fn write(&self, from: &str, to: &str, in_reply_to: Option<&Sent>, text: &str) {
        let threading = in_reply_to
            .map(|m| format!("In-Reply-To: <{}>\r\n", m.message_id))
            .unwrap_or_default();
        let raw = format!(
            "From: {from}\r\nTo: {to}\r\nSubject: season\r\nMessage-ID: <{:016x}@players.test>\r\n\
             {threading}Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
            rand::random::<u64>(),
        );
        self.club.deliver(raw.as_bytes());
    }

    /// `from` replies `text` to `mail` as a mail client does: to its
    /// Reply-To, or to its From, the club (a forger replies to a mail it saw).
    fn reply(&self, mail: &Sent, from: &str, text: &str) {
        let to = mail.reply_to.as_deref().unwrap_or(CLUB);
        self.write(from, to, Some(mail), text);
    }

    /// The entries of an event: address → status.
    fn statuses(&self, event: i64) -> Vec<(String, String)> {
        self.json(&["event", "entries", &event.to_string()])
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["email"].as_str().unwrap().to_string(),
                    e["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// The events made after `after` whose name starts with `prefix`.
    fn events_named(&self, after: i64, prefix: &str) -> Vec<(i64, String)> {
        self.json(&["event", "list"])
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["id"].as_i64().unwrap(),
                    e["name"].as_str().unwrap().to_string(),
                )
            })
            .filter(|(id, name)| *id > after && name.starts_with(prefix))
            .collect()
    }

    /// An event's games: (game, white's address, black's address).
    fn games(&self, event: i64) -> Vec<(i64, String, String)> {
        self.json(&["event", "pairings", &event.to_string()])
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["game"].as_i64().expect("started"),
                    p["white"]["email"].as_str().unwrap().to_string(),
                    p["black"]["email"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

/// The one mail of `sent` to `to` whose subject has `subject` in it.
fn one<'m>(sent: &'m [Sent], to: &str, subject: &str) -> &'m Sent {
    let found: Vec<&Sent> = sent
        .iter()
        .filter(|m| m.to == to && m.subject.contains(subject))
        .collect();
    assert_eq!(found.len(), 1, "one mail '{subject}' to {to}: {sent:#?}");
    found[0]
}

/// The `[[players]]` of an event file: Player n for each n.
fn players_table(numbers: std::ops::RangeInclusive<u32>) -> String {
    numbers
        .map(|n| {
            format!(
                "[[players]]\nemail = \"{}\"\nname = \"Player {n}\"\n",
                player(n)
            )
        })
        .collect()
}

fn player(n: u32) -> String {
    format!("p{n:02}@players.test")
}

fn stranger(n: u32) -> String {
    format!("s{n}@outside.test")
}

async fn an_open_class_of_35_runs_itself_by_mail(db: &TestDb) {
    let mut s = Season::new(db);
    let csv: String = std::iter::once("email,name".to_string())
        .chain((1..=30).map(|n| format!("{},Player {n}", player(n))))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(s.club.path().join("players.csv"), csv).unwrap();
    s.run(&["player", "import", "players.csv"]);
    // The binary runs on the wall clock (shifted by faketime), so the
    // file's dates are from it too.
    #[allow(clippy::disallowed_methods)]
    let closes = (chrono::Utc::now() + chrono::Duration::days(10)).format("%Y-%m-%d");
    let class = s.event(
        "open",
        "open.toml",
        &format!(
            "name = \"Open\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
             time_control = \"10/50d\"\nvisibility = \"public\"\n\n[entries]\n\
             closes = \"{closes}\"\nopen_to = \"anyone\"\nsection_size = 7\n"
        ),
    );
    let enter = format!("enter {class}");

    // Day 0: everyone enters but Player 29, who will be late; Player 2
    // twice, stranger 1 twice, and a forger enters Player 30, who never
    // answers.
    for n in (1..=30).filter(|n| *n != 29) {
        s.write(&player(n), CLUB, None, &enter);
    }
    for n in 1..=5 {
        s.write(&stranger(n), CLUB, None, &enter);
    }
    s.write(&player(2), CLUB, None, &enter);
    s.write(&stranger(1), CLUB, None, &enter);
    let sent = s.serve();
    let mut asks = std::collections::BTreeMap::new();
    for who in (1..=30)
        .filter(|n| *n != 29)
        .map(player)
        .chain((1..=5).map(stranger))
    {
        asks.insert(
            who.clone(),
            one(&sent, &who, "Please confirm your entry").clone(),
        );
    }
    // The second entry is answered once; the stranger's never twice.
    assert!(
        one(&sent, &player(2), "not taken")
            .text
            .contains("asked already")
    );
    assert_eq!(sent.iter().filter(|m| m.to == stranger(1)).count(), 1);
    assert!(
        s.events_named(class, "Open").is_empty(),
        "nothing starts on unconfirmed entries"
    );

    // Day 1: 28 confirm (25 players, 3 strangers); Player 29 replies to
    // Player 30's mail, seen somehow, from its own address: ignored.
    s.days = 1;
    let first: Vec<String> = (1..=25).map(player).chain((1..=3).map(stranger)).collect();
    for who in &first {
        s.reply(&asks[who], who, "yes");
    }
    s.reply(&asks[&player(30)], &player(29), "yes");
    let sent = s.serve();
    let sections = s.events_named(class, "Open");
    assert_eq!(sections.len(), 4, "{sections:?}");
    let mut seated = BTreeSet::new();
    for (section, name) in &sections {
        assert!(
            name.starts_with("Open/"),
            "a section is named by its number: {name}"
        );
        let games = s.games(*section);
        assert_eq!(games.len(), 21, "a round robin of seven in {name}");
        for (_, white, black) in games {
            seated.insert(white);
            seated.insert(black);
        }
    }
    assert_eq!(
        seated,
        first.iter().cloned().collect::<BTreeSet<_>>(),
        "exactly the confirmed"
    );
    for who in &first {
        one(&sent, who, "has started: you are in");
    }
    assert!(
        !sent.iter().any(|m| m.to == player(30)),
        "the forgery counts for nothing"
    );

    // Day 2: three more confirm and wait, told their place in the queue.
    s.days = 2;
    for n in 26..=28 {
        s.reply(&asks[&player(n)], &player(n), "yes");
    }
    let sent = s.serve();
    for (place, n) in (26..=28).enumerate() {
        let entered = one(&sent, &player(n), "You have entered");
        assert!(
            entered
                .text
                .contains(&format!("You are number {} in", place + 1)),
            "{}",
            entered.text
        );
    }
    assert_eq!(s.events_named(class, "Open").len(), 4);

    // Day 3: Player 28 leaves the queue by a reply to that mail.
    s.days = 3;
    let entered = one(&sent, &player(28), "You have entered").clone();
    let withdraw = format!("withdraw entry {class}");
    s.reply(&entered, &player(28), &withdraw);
    let sent = s.serve();
    let sure = one(&sent, &player(28), "Please confirm: withdraw").clone();
    s.reply(&sure, &player(28), &withdraw);
    let sent = s.serve();
    one(&sent, &player(28), "Entry withdrawn");

    // Day 11, past `closes`: a late entry and a late confirmation are
    // refused; the two still waiting are told the queue closed.
    s.days = 11;
    s.write(&player(29), CLUB, None, &enter);
    s.reply(&asks[&stranger(5)], &stranger(5), "yes");
    let sent = s.serve();
    let late = one(&sent, &player(29), "not taken");
    assert!(late.text.contains("entries have closed"), "{}", late.text);
    let late = one(&sent, &stranger(5), "not taken");
    assert!(late.text.contains("entries have closed"), "{}", late.text);
    for n in [26, 27] {
        assert!(
            one(&sent, &player(n), "you are not in")
                .text
                .contains("queue closed"),
            "{n}"
        );
    }
    assert_eq!(s.events_named(class, "Open").len(), 4, "no fifth section");
    let statuses = s.statuses(class);
    let of = |who: &str| {
        statuses
            .iter()
            .find(|(e, _)| e == who)
            .map(|(_, st)| st.as_str())
            .unwrap_or("none")
    };
    for who in &first {
        assert_eq!(of(who), "seated", "{who}");
    }
    assert_eq!(of(&player(28)), "withdrawn");
    for who in [stranger(4), stranger(5), player(29), player(30)] {
        assert_ne!(of(&who), "seated", "{who}");
        assert_ne!(of(&who), "confirmed", "{who}");
    }
    // The strangers who confirmed are players now; the others are not.
    let players = s.run(&["player", "list"]);
    for n in 1..=3 {
        assert!(players.contains(&stranger(n)), "{players}");
    }
    assert!(!players.contains(&stranger(4)) && !players.contains(&stranger(5)));
}

async fn a_cup_of_three_groups_builds_and_starts_its_final_by_itself(db: &TestDb) {
    let mut s = Season::new(db);
    let mut file = String::from(
        "name = \"Cup\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
         time_control = \"10/50d\"\n\
         [stages]\ngroups = 3\nqualify = 2\ntie_at_line = \"starting-number\"\n",
    );
    file.push_str(&players_table(1..=15));
    let cup = s.event("create", "cup.toml", &file);
    s.run(&["event", "start", &cup.to_string()]);
    s.serve();
    let groups = s.events_named(cup, "Cup");
    assert_eq!(groups.len(), 3, "{groups:?}");
    // Every game drawn but Player 14's, who wins all four in group 2: the
    // whole of groups 1 and 3 tie, and the four behind Player 14 too, so
    // the file's rule (the starting number) decides at each line.
    let p14 = player(14);
    let games: Vec<_> = groups.iter().flat_map(|(g, _)| s.games(*g)).collect();
    assert_eq!(games.len(), 30);
    for (game, white, black) in &games {
        if *white == p14 {
            s.reply(&s.club.newest_in_game(black, *game), black, "resign");
        } else if *black == p14 {
            s.reply(&s.club.newest_in_game(white, *game), white, "resign");
        } else {
            s.reply(&s.club.newest_in_game(white, *game), white, "e4 draw");
        }
    }
    s.days = 1;
    s.serve();
    assert!(
        s.events_named(cup, "Cup final").is_empty(),
        "no final while games are played"
    );
    for (game, white, black) in &games {
        if *white != p14 && *black != p14 {
            s.reply(&s.club.newest_in_game(black, *game), black, "accept draw");
        }
    }
    s.days = 2;
    let mut sent = s.serve();
    sent.extend(s.serve());
    let finals = s.events_named(cup, "Cup final");
    assert_eq!(finals.len(), 1, "the final is built once: {finals:?}");
    let final_games = s.games(finals[0].0);
    assert_eq!(final_games.len(), 15, "a round robin of six");
    let finalists: BTreeSet<String> = final_games
        .iter()
        .flat_map(|(_, w, b)| [w.clone(), b.clone()])
        .collect();
    // Snake of 15 in file order: group 1 = 1 6 7 12 13, group 2 = 2 5 8 11
    // 14, group 3 = 3 4 9 10 15.
    let expected: BTreeSet<String> = [1, 6, 14, 2, 3, 4].into_iter().map(player).collect();
    assert_eq!(finalists, expected);
    for n in 1..=15 {
        let told = one(&sent, &player(n), "the final");
        assert_eq!(
            told.subject.contains("You are through"),
            expected.contains(&player(n)),
            "{n}: {}",
            told.subject
        );
    }
    // and the final's games are under way: White has its first mail
    for (game, white, _) in &final_games {
        assert!(
            s.club
                .newest_in_game(white, *game)
                .subject
                .contains("Your move"),
            "{game}"
        );
    }
    // A late result: the TD makes Player 5 the winner of the drawn game
    // with Player 2 in group 2. By the table now 5 goes through, not 2; the
    // final is under way, so it stays as it is and the TD is told to rule.
    let (p2, p5) = (player(2), player(5));
    let (game, white, _) = games
        .iter()
        .find(|(_, w, b)| (*w == p2 && *b == p5) || (*w == p5 && *b == p2))
        .expect("2 and 5 meet in group 2");
    let result = if *white == p5 { "1-0" } else { "0-1" };
    let said = s.run(&[
        "game",
        "result",
        &game.to_string(),
        result,
        "--reason",
        "the draw was agreed after the deadline",
        "--by",
        "td@chess.test",
    ]);
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        said.contains(&format!(
            "final, event {} (Cup final), was built from its table before this result: the final is not changed, and by the table now Player 5 would go through instead of Player 2",
            finals[0].0
        )),
        "{said}"
    );
    let after: BTreeSet<String> = s
        .games(finals[0].0)
        .iter()
        .flat_map(|(_, w, b)| [w.clone(), b.clone()])
        .collect();
    assert_eq!(after, expected, "the final stays as it was built");
    s.serve();
    assert_eq!(
        s.events_named(cup, "Cup final").len(),
        1,
        "and is not built again"
    );
}

async fn a_thematic_event_starts_every_game_from_its_position(db: &TestDb) {
    let mut s = Season::new(db);
    let mut file = String::from(
        "name = \"Najdorf\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
         time_control = \"10/50d\"\nstart = { moves = \"1.e4 c5 2.Nf3 d6\" }\n",
    );
    file.push_str(&players_table(1..=4));
    let event = s.event("create", "najdorf.toml", &file);
    s.run(&["event", "start", &event.to_string()]);
    s.serve();
    let games = s.games(event);
    assert_eq!(games.len(), 6);
    for (game, white, black) in &games {
        let shown = s.json(&["game", "show", &game.to_string()]);
        let sans = crate::support::sans(&shown);
        assert_eq!(sans, ["e4", "c5", "Nf3", "d6"], "game {game}");
        assert_eq!(shown["opening_plies"], 4);
        // White is to move after 2...d6, and plays on by mail from there.
        s.reply(&s.club.newest_in_game(white, *game), white, "d4");
        let _ = black;
    }
    s.days = 1;
    let sent = s.serve();
    for (game, _, black) in &games {
        let shown = s.json(&["game", "show", &game.to_string()]);
        assert_eq!(shown["moves"].as_array().unwrap().len(), 5, "game {game}");
        assert!(
            sent.iter().any(|m| m.to == *black
                && m.reply_to
                    .as_deref()
                    .is_some_and(|r| r.contains(&format!("+g{game}.")))
                && m.text.contains("3. d4")),
            "{game}: {sent:#?}"
        );
    }
}

async fn a_consultation_game_is_played_to_mate_by_votes(db: &TestDb) {
    let mut s = Season::new(db);
    let file = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/events/consultation.toml"),
    )
    .unwrap();
    let event = s.event("create", "consultation.toml", &file);
    let listed = s.json(&["event", "list"]);
    assert_eq!(
        listed[0]["kind"], "consultation",
        "listed as what it is: {listed}"
    );
    s.run(&["event", "start", &event.to_string()]);
    s.serve();
    let games = s.games(event);
    let [(game, white, black)] = games.as_slice() else {
        panic!("one game: {games:?}")
    };
    let game = *game;
    assert_eq!((white.as_str(), black.as_str()), (ANN, DAN), "the captains");
    let moves = |s: &Season| s.club.moves_of(s.db, game);
    // Each member answers the newest mail of the game to them, the daemon
    // hears it at once.
    let vote = |s: &mut Season, who: &str, text: &str| {
        s.reply(&s.club.newest_in_game(who, game), who, text);
        s.serve()
    };
    // 1. f3 by 2 votes to 1, Cy changing from e4; Ann's is the last vote.
    vote(&mut s, BOB, "e4");
    vote(&mut s, CY, "e4");
    let sent = vote(&mut s, CY, "f3");
    assert!(
        sent.iter()
            .any(|m| m.to == CY && m.text.contains("changed vote for f3")),
        "{sent:#?}"
    );
    assert!(moves(&s).is_empty(), "two of three voted: nothing played");
    let sent = vote(&mut s, ANN, "f3");
    assert_eq!(moves(&s), ["f3"]);
    assert!(
        sent.iter()
            .any(|m| m.to == BOB && m.text.contains("f3: 2 (Cy Cole, Ann Archer)")),
        "{sent:#?}"
    );
    // 1... e5 in their own letters: both of Bled.
    vote(&mut s, DAN, "e5");
    vote(&mut s, EVE, "e5");
    assert_eq!(moves(&s), ["f3", "e5"]);
    // 2. A tie, Nc3 (Bob, in Slovenian) against g4 (Ann, the captain); Cy
    // does not vote: at the votes' close, 48 hours on, g4 is played.
    vote(&mut s, BOB, "Sc3");
    vote(&mut s, ANN, "g4");
    assert_eq!(moves(&s), ["f3", "e5"], "the votes stay open 48 hours");
    // At the votes' close the daemon dies inside the transaction that
    // makes the move (nothing is made, nothing sent), then just after
    // sending the first mail it caused; the next one finishes the pass.
    s.days = 3;
    let died = s.serve_dying_at("before-votes-commit");
    assert!(
        died.is_empty(),
        "nothing is sent before the commit: {died:#?}"
    );
    assert_eq!(moves(&s), ["f3", "e5"], "nothing is made before the commit");
    let mut sent = s.serve_dying_at("after-send");
    assert_eq!(sent.len(), 1, "one mail went out as it died: {sent:#?}");
    assert_eq!(moves(&s), ["f3", "e5", "g4"], "the move was committed");
    sent.extend(s.serve());
    assert_eq!(
        moves(&s),
        ["f3", "e5", "g4"],
        "the captain's vote breaks the tie, and the move is made once"
    );
    // Every member is told once: the mail sent as the daemon died goes out
    // again with its Message-ID, and no second mail says the same thing.
    let ids: BTreeSet<&str> = sent.iter().map(|m| m.message_id.as_str()).collect();
    let told: BTreeSet<(&str, &str)> = sent
        .iter()
        .map(|m| (m.to.as_str(), m.subject.as_str()))
        .collect();
    assert_eq!(ids.len(), told.len(), "a mail said twice: {sent:#?}");
    assert_eq!(sent.len(), ids.len() + 1, "the one cut short is sent again");
    for member in [ANN, BOB, CY, DAN, EVE] {
        assert!(
            sent.iter().any(|m| m.to == member),
            "{member} is told of g4: {sent:#?}"
        );
    }
    vote(&mut s, DAN, "Dh4");
    vote(&mut s, EVE, "Hh4#");
    assert_eq!(moves(&s), ["f3", "e5", "g4", "Qh4#"]);
    let shown = s.json(&["game", "show", &game.to_string()]);
    assert_eq!(shown["result"], "0-1", "{shown}");
    let pgn = s.run(&["event", "pgn", &event.to_string()]);
    let pgn = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        pgn.contains("{votes: g4 1 (Ann Archer), Nc3 1 (Bob Bizjak)}"),
        "the votes are PGN comments: {pgn}"
    );
}

const ANN: &str = "ann@koper.example";
const BOB: &str = "bob@koper.example";
const CY: &str = "cy@koper.example";
const DAN: &str = "dan@bled.example";
const EVE: &str = "eve@bled.example";

on_both_backends!(
    an_open_class_of_35_runs_itself_by_mail,
    a_cup_of_three_groups_builds_and_starts_its_final_by_itself,
    a_thematic_event_starts_every_game_from_its_position,
    a_consultation_game_is_played_to_mate_by_votes,
);
