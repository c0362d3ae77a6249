//! Swiss rounds with a closing date (issue 25), through the real binary on
//! both backends, the days passed with libfaketime: a round with a game
//! still played warns the TD once before its closing date and tells them
//! once at it; the next round waits for the TD's decision and is paired on
//! the first pass after it, as `dopis swiss check` agrees from the event's
//! TRF file.

use crate::club::{Club, Sent};
use crate::on_both_backends;
use crate::support::{TestDb, dopis, fails, ok};

const TD: &str = "td@chess.test";

fn player(n: u32) -> String {
    format!("p{n:02}@players.test")
}

/// A Swiss event file of six players over three rounds, with `extra`.
fn swiss_file(extra: &str) -> String {
    let mut file = format!(
        "name = \"Autumn open\"\nkind = \"swiss\"\nrounds = 3\ntds = [\"{TD}\"]\n\
         time_control = \"10/50d\"\n{extra}\n"
    );
    for n in 1..=6 {
        file.push_str(&format!(
            "[[players]]\nemail = \"{}\"\nname = \"Player {n:02}\"\n",
            player(n)
        ));
    }
    file
}

/// A game as `event pairings` lists it: (round, game, white, black, status).
type Game = (u64, i64, String, String, String);

struct Rounds<'a> {
    club: Club,
    db: &'a TestDb,
    seen: usize,
}

impl<'a> Rounds<'a> {
    fn new(db: &'a TestDb) -> Rounds<'a> {
        Rounds {
            club: Club::empty(db, ""),
            db,
            seen: 0,
        }
    }

    /// A new club's event of six over three rounds with `extra`, started
    /// and its first mails sent: the club, the event and round 1's games.
    fn started(db: &'a TestDb, extra: &str) -> (Rounds<'a>, String, Vec<Game>) {
        let mut s = Rounds::new(db);
        let event = s.create(extra);
        s.run(&["event", "start", &event]);
        s.serve_at(None);
        let round1 = s.games(&event);
        (s, event, round1)
    }

    fn run(&self, args: &[&str]) -> String {
        ok(&dopis(self.club.path(), self.db, args))
    }

    /// The mails a `dopis serve --once` sent with the clock `offset` ahead
    /// (libfaketime's `+8d`), or now.
    fn serve_at(&mut self, offset: Option<&str>) -> Vec<Sent> {
        ok(&self.club.serve_once_at(self.db, None, offset));
        let all = self.club.sent_mails();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    /// Every game of the event: (round, game, white, black, status).
    fn games(&self, event: &str) -> Vec<Game> {
        let out = self.run(&["event", "pairings", event, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .filter(|p| p["game"].is_i64())
            .map(|p| {
                (
                    p["round"].as_u64().unwrap(),
                    p["game"].as_i64().unwrap(),
                    p["white"]["email"].as_str().unwrap().to_string(),
                    p["black"]["email"].as_str().unwrap().to_string(),
                    p["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// `dopis swiss check` on `dopis event trf`: every round as dopis paired it.
    fn check_trf(&self, event: &str, rounds: u32) {
        let path = self.club.path().join("autumn.trf");
        self.run(&["event", "trf", event, "--output", path.to_str().unwrap()]);
        let out = dopis(
            self.club.path(),
            self.db,
            &["swiss", "check", path.to_str().unwrap()],
        );
        let report = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "dopis swiss check:\n{report}");
        assert!(
            report.contains(&format!(
                "all {rounds} rounds are paired as dopis pairs them"
            )),
            "{report}"
        );
    }

    /// `dopis event repair-round` by `by`: its output, or its error.
    fn repair(&self, event: &str, by: &str, reason: &str) -> Result<String, String> {
        let out = dopis(
            self.club.path(),
            self.db,
            &[
                "event",
                "repair-round",
                event,
                "--by",
                by,
                "--reason",
                reason,
            ],
        );
        if out.status.success() {
            Ok(ok(&out))
        } else {
            Err(fails(&out))
        }
    }

    fn create(&self, extra: &str) -> String {
        std::fs::write(self.club.path().join("autumn.toml"), swiss_file(extra)).unwrap();
        self.run(&["event", "create", "autumn.toml"])
            .lines()
            .next()
            .unwrap()
            .trim()
            .to_string()
    }
}

/// The TD's mails about rounds (not the daily deadline report).
fn to_td(sent: &[Sent]) -> Vec<&Sent> {
    sent.iter()
        .filter(|m| m.to == TD && m.subject.contains("Round"))
        .collect()
}

async fn a_round_past_its_closing_date_waits_for_the_td_who_is_told_in_time(db: &TestDb) {
    let (mut s, event, round1) = Rounds::started(db, "round_days = 10");
    assert_eq!(round1.len(), 3, "{round1:?}");
    // Two games end by resignation; in the third White plays a move and
    // it goes on.
    for (_, game, white, _, _) in &round1[..2] {
        let mail = s.club.newest_in_game(white, *game);
        s.club.reply_to_mail(&mail, "resign");
    }
    let (_, open, white, black, _) = round1[2].clone();
    let mail = s.club.newest_in_game(&white, open);
    s.club.reply_to_mail(&mail, "e4");
    let sent = s.serve_at(None);
    assert!(to_td(&sent).is_empty(), "nothing to tell yet: {sent:?}");
    assert_eq!(s.games(&event).len(), 3, "round 2 waits for game {open}");

    // Eight days on (the round closes on day 10, the warning is three
    // days before): the TD is warned once, with the game still played.
    let sent = s.serve_at(Some("+8d"));
    let warned = to_td(&sent);
    assert_eq!(warned.len(), 1, "one warning: {sent:?}");
    let w = warned[0];
    assert!(
        w.subject.contains("Round 1 of Autumn open closes on"),
        "{}",
        w.subject
    );
    assert!(w.text.contains(&format!("#{open}")), "{}", w.text);
    assert!(w.text.contains("1 moves"), "the moves played: {}", w.text);
    assert!(
        w.text
            .contains("dopis game result GAME RESULT --kind adjudication"),
        "{}",
        w.text
    );
    let again = s.serve_at(Some("+8d"));
    assert!(to_td(&again).is_empty(), "warned once: {again:?}");

    // The closing date has come: the TD is told once to decide the game;
    // the round is not paired meanwhile.
    let sent = s.serve_at(Some("+11d"));
    let closed = to_td(&sent);
    assert_eq!(closed.len(), 1, "one closing notice: {sent:?}");
    assert!(
        closed[0]
            .subject
            .contains("Round 1 of Autumn open has closed"),
        "{}",
        closed[0].subject
    );
    assert!(closed[0].text.contains(&format!("#{open}")));
    assert!(
        closed[0].text.contains(&black),
        "the player to move and their address: {}",
        closed[0].text
    );
    let again = s.serve_at(Some("+11d"));
    assert!(to_td(&again).is_empty(), "told once: {again:?}");
    assert_eq!(s.games(&event).len(), 3, "round 2 waits for the TD");

    // The TD decides; the next pass pairs round 2.
    s.run(&[
        "game",
        "result",
        &open.to_string(),
        "1-0",
        "--kind",
        "adjudication",
        "--reason",
        "round 1 closed",
        "--by",
        TD,
    ]);
    s.serve_at(Some("+11d"));
    let games = s.games(&event);
    assert_eq!(
        games.iter().filter(|g| g.0 == 2).count(),
        3,
        "round 2 paired: {games:?}"
    );
    s.check_trf(&event, 2);
}

/// The pairs of a round's games still counted (not cancelled), by board.
fn pairs(games: &[Game], round: u64) -> Vec<(String, String)> {
    games
        .iter()
        .filter(|g| g.0 == round && g.4 != "cancelled")
        .map(|g| (g.2.clone(), g.3.clone()))
        .collect()
}

async fn a_round_is_paired_again_only_before_any_of_its_games_has_a_move(db: &TestDb) {
    let (mut s, event, round1) = Rounds::started(db, "");
    for (_, game, white, _, _) in &round1 {
        let mail = s.club.newest_in_game(white, *game);
        s.club.reply_to_mail(&mail, "resign");
    }
    s.serve_at(None);
    s.serve_at(None);
    let before = s.games(&event);
    let first = pairs(&before, 2);
    assert_eq!(first.len(), 3, "round 2 paired: {before:?}");
    let old: Vec<i64> = before.iter().filter(|g| g.0 == 2).map(|g| g.1).collect();

    // Nothing changed since: the same pairing, in new games; the players
    // of the old ones are told they are cancelled, and get the new ones.
    let out = s
        .repair(&event, TD, "a late entry was refused after all")
        .unwrap();
    assert!(out.contains("round 2 of event"), "{out}");
    let sent = s.serve_at(None);
    let after = s.games(&event);
    assert_eq!(pairs(&after, 2), first, "the same pairing: {after:?}");
    for id in &old {
        let g = after.iter().find(|g| g.1 == *id).unwrap();
        assert_eq!(g.4, "cancelled", "{after:?}");
        for p in [&g.2, &g.3] {
            assert!(
                sent.iter()
                    .any(|m| m.to == *p && m.subject.contains(&format!("Game #{id} is cancelled"))),
                "{p} told of game {id}: {sent:?}"
            );
        }
    }
    let new: Vec<&Game> = after
        .iter()
        .filter(|g| g.0 == 2 && g.4 == "active")
        .collect();
    assert_eq!(new.len(), 3, "{after:?}");
    for g in &new {
        assert!(
            sent.iter()
                .any(|m| m.to == g.2 && m.subject.contains(&format!("#{}", g.1))),
            "White of game {} hears of it: {sent:?}",
            g.1
        );
    }

    // The TD corrects a result of round 1; paired again, round 2 is as
    // the pairing now makes it (the TRF check pairs it again and agrees).
    let (_, corrected, ..) = &round1[0];
    s.run(&[
        "game",
        "result",
        &corrected.to_string(),
        "1/2-1/2",
        "--reason",
        "the resignation was a slip",
        "--by",
        TD,
    ]);
    s.repair(&event, TD, "round 1's result corrected").unwrap();
    s.serve_at(None);
    s.check_trf(&event, 2);
    let now = s.games(&event);
    assert_eq!(pairs(&now, 2).len(), 3, "{now:?}");
    assert_eq!(
        now.iter().filter(|g| g.0 == 2).count(),
        9,
        "three pairings of round 2"
    );

    // After a move, the round is not paired again; nothing changes.
    let (_, game, white, ..) = now
        .iter()
        .find(|g| g.0 == 2 && g.4 == "active")
        .unwrap()
        .clone();
    let mail = s.club.newest_in_game(&white, game);
    s.club.reply_to_mail(&mail, "d4");
    s.serve_at(None);
    let err = s.repair(&event, TD, "again").unwrap_err();
    assert!(
        err.contains(&format!("game #{game} of round 2 has a move already")),
        "{err}"
    );
    assert_eq!(
        pairs(&s.games(&event), 2),
        pairs(&now, 2),
        "nothing paired again"
    );
    assert_eq!(s.games(&event).len(), now.len());
    // Not a TD: refused.
    let err = s.repair(&event, "p01@players.test", "x").unwrap_err();
    assert!(err.contains("TD"), "{err}");
}

async fn a_round_that_cannot_be_paired_is_told_to_the_td_once(db: &TestDb) {
    let (mut s, event, round1) = Rounds::started(db, "");
    // Four of the six withdraw: the two left have met in round 1 (their
    // game is the one left), so round 2 has no legal pairing.
    let (_, kept, a, b, _) = round1[0].clone();
    for p in (1..=6).map(player).filter(|p| *p != a && *p != b) {
        s.run(&[
            "event", "withdraw", &event, "--email", &p, "--reason", "left", "--by", TD,
        ]);
    }
    s.run(&[
        "game",
        "result",
        &kept.to_string(),
        "1-0",
        "--reason",
        "agreed",
        "--by",
        TD,
    ]);
    let sent = s.serve_at(None);
    let told = to_td(&sent);
    assert_eq!(told.len(), 1, "{sent:?}");
    assert!(
        told[0]
            .subject
            .contains("Round 2 of Autumn open cannot be paired yet"),
        "{}",
        told[0].subject
    );
    assert!(
        told[0].text.contains("dopis game result"),
        "{}",
        told[0].text
    );
    assert_eq!(s.games(&event).len(), 3, "nothing paired");
    let again = s.serve_at(Some("+2h"));
    assert!(to_td(&again).is_empty(), "told once: {again:?}");
    assert_eq!(s.games(&event).len(), 3, "nothing paired");
}

async fn round_one_s_first_colour_is_drawn_by_lot_and_the_trf_file_says_which(db: &TestDb) {
    let s = Rounds::new(db);
    // Twenty events: both colours come up but once in half a million.
    let mut drawn = std::collections::BTreeMap::new();
    for _ in 0..20 {
        let event = s.create("");
        s.run(&["event", "start", &event]);
        let trf = s.run(&["event", "trf", &event]);
        let colour = if trf.contains("XXC white1") {
            "white1"
        } else {
            assert!(trf.contains("XXC black1"), "{trf}");
            "black1"
        };
        drawn.entry(colour).or_insert(event);
    }
    assert_eq!(drawn.len(), 2, "both colours drawn: {drawn:?}");
    for (colour, event) in &drawn {
        // Pairing number 1 (Player 01, first by name) has the colour drawn
        // on board 1, and `dopis swiss check` pairs round 1 so too.
        let games = s.games(event);
        let top = &games[0];
        let white_has_it = top.2 == player(1);
        assert_eq!(white_has_it, *colour == "white1", "{colour}: {games:?}");
        s.check_trf(event, 1);
    }
}

async fn bad_round_closing_keys_are_refused_with_the_key_and_the_fix(db: &TestDb) {
    let s = Rounds::new(db);
    for (extra, key, words) in [
        ("round_days = 0", "round_days", "from 1 to 366"),
        ("round_warn_days = 2", "round_warn_days", "needs round_days"),
        (
            "round_days = 5\nround_warn_days = 5",
            "round_warn_days",
            "fewer than the round's 5 days",
        ),
    ] {
        std::fs::write(s.club.path().join("bad.toml"), swiss_file(extra)).unwrap();
        let err = fails(&dopis(s.club.path(), db, &["event", "create", "bad.toml"]));
        assert!(err.contains(key) && err.contains(words), "{extra}: {err}");
    }
    assert!(
        !s.run(&["event", "list"]).contains("Autumn"),
        "nothing created"
    );
}

on_both_backends!(
    a_round_past_its_closing_date_waits_for_the_td_who_is_told_in_time,
    bad_round_closing_keys_are_refused_with_the_key_and_the_fix,
    a_round_is_paired_again_only_before_any_of_its_games_has_a_move,
    a_round_that_cannot_be_paired_is_told_to_the_td_once,
    round_one_s_first_colour_is_drawn_by_lot_and_the_trf_file_says_which,
);
