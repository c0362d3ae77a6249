//! Swiss events played by mail (issue 25, the first slice), through the
//! real binary on both backends: `dopis event start` pairs round 1 by the
//! FIDE Dutch system and mails every player (the bye too), results come by
//! mail and from the TD, and `dopis serve --once` pairs each next round by
//! itself once the last one has ended, until the event's rounds are
//! played; then the final standings go out once. After every round the
//! event's TRF file (`dopis event trf`) is checked with `dopis swiss
//! check`, which pairs every round again from the rounds before it and
//! must find each as dopis paired it, and caissify-pairings (an
//! independent implementation, when the test stack installed it) pairs
//! every round of the finished event as dopis did. A daemon that dies just before a
//! round's commit pairs nothing; the next pass pairs it once.

use crate::club::{Club, Sent};
use crate::on_both_backends;
use crate::support::{TestDb, dopis, fails, ok};

pub(crate) const TD: &str = "td@chess.test";

pub(crate) fn player(n: u32) -> String {
    format!("p{n:02}@players.test")
}

/// A Swiss event file of `players` players (Player 1 rated highest by
/// name order only: nobody is rated) over `rounds` rounds, with `extra`
/// lines.
pub(crate) fn swiss_file(players: u32, rounds: u32, extra: &str) -> String {
    let mut file = format!(
        "name = \"Open\"\nkind = \"swiss\"\nrounds = {rounds}\ntds = [\"{TD}\"]\n\
         time_control = \"10/50d\"\nvisibility = \"public\"\n{extra}\n"
    );
    for n in 1..=players {
        file.push_str(&format!(
            "[[players]]\nemail = \"{}\"\nname = \"Player {n:02}\"\n{}",
            player(n),
            if n % 3 == 0 { "lang = \"sl\"\n" } else { "" }
        ));
    }
    file
}

pub(crate) struct Open<'a> {
    pub(crate) club: Club,
    pub(crate) db: &'a TestDb,
    pub(crate) seen: usize,
}

impl Open<'_> {
    pub(crate) fn run(&self, args: &[&str]) -> String {
        ok(&dopis(self.club.path(), self.db, args))
    }

    pub(crate) fn refused(&self, args: &[&str]) -> String {
        fails(&dopis(self.club.path(), self.db, args))
    }

    /// The mails a `dopis serve --once` sent.
    pub(crate) fn serve(&mut self) -> Vec<Sent> {
        ok(&self.club.serve_once(self.db, None));
        self.new_mails()
    }

    pub(crate) fn new_mails(&mut self) -> Vec<Sent> {
        let all = self.club.sent_mails();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    /// Every game of the event: (round, game, white, black, status).
    pub(crate) fn games(&self, event: &str) -> Vec<(u64, i64, String, String, String)> {
        let out = self.run(&["event", "pairings", event, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["round"].as_u64().unwrap(),
                    p["game"].as_i64().expect("started"),
                    p["white"]["email"].as_str().unwrap().to_string(),
                    p["black"]["email"].as_str().unwrap().to_string(),
                    p["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    /// `dopis event trf` checked by `dopis swiss check`: every round as
    /// dopis paired it. Returns the check's report.
    pub(crate) fn check_trf(&self, event: &str, rounds: u32) -> String {
        let path = self.club.path().join("open.trf");
        self.run(&["event", "trf", event, "--output", path.to_str().unwrap()]);
        let trf = std::fs::read_to_string(&path).unwrap();
        assert!(
            trf.contains("XXR 5") && (trf.contains("XXC white1") || trf.contains("XXC black1")),
            "round 1's colour by lot: {trf}"
        );
        let out = dopis(
            self.club.path(),
            self.db,
            &["swiss", "check", path.to_str().unwrap()],
        );
        let report = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "dopis swiss check on the event's TRF file:\n{report}\n{trf}"
        );
        assert!(
            report.contains(&format!(
                "all {rounds} rounds are paired as dopis pairs them"
            )),
            "{report}"
        );
        report
    }
}

async fn a_swiss_of_eleven_is_paired_round_by_round_by_the_daemon(db: &TestDb) {
    let mut s = Open {
        club: Club::empty(db, "\n[web]\nlisten = \"127.0.0.1:0\""),
        db,
        seen: 0,
    };
    std::fs::write(s.club.path().join("open.toml"), swiss_file(11, 5, "")).unwrap();
    let event = s
        .run(&["event", "create", "open.toml"])
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_string();
    assert!(
        s.run(&["event", "list"]).contains("swiss"),
        "event list names the kind"
    );
    s.run(&["event", "start", &event]);
    let again = s.refused(&["event", "start", &event]);
    assert!(again.contains("has started already"), "{again}");

    let mut withdrawn: Option<String> = None;
    for round in 1..=5u64 {
        let sent = s.serve();
        let games = s.games(&event);
        let this: Vec<_> = games.iter().filter(|g| g.0 == round).collect();
        // 11 players: 5 games and a bye; after the withdrawal in round 3,
        // 10 players: 5 games and no bye.
        let in_play = if withdrawn.is_some() { 10 } else { 11 };
        assert_eq!(this.len(), 5, "round {round} of {in_play}: {games:?}");
        assert!(
            games.iter().all(|g| g.0 <= round),
            "no round ahead of {round}"
        );
        // Each paired player hears of their game, the bye of the bye.
        let mut playing: Vec<&str> = this.iter().flat_map(|g| [&*g.2, &*g.3]).collect();
        playing.sort_unstable();
        playing.dedup();
        assert_eq!(playing.len(), 10, "ten different players: {this:?}");
        if let Some(gone) = &withdrawn {
            assert!(
                !playing.contains(&gone.as_str()),
                "{gone} is paired no more"
            );
        }
        let bye: Vec<String> = (1..=11)
            .map(player)
            .filter(|p| !playing.contains(&p.as_str()) && withdrawn.as_ref() != Some(p))
            .collect();
        assert_eq!(bye.len(), in_play - 10, "{bye:?}");
        let bye_mails: Vec<&Sent> = sent
            .iter()
            .filter(|m| {
                m.subject
                    .contains(&format!("Round {round}: you have the bye"))
                    || m.subject.contains(&format!("{round}. kolo: prosti ste"))
            })
            .collect();
        assert_eq!(bye_mails.len(), bye.len(), "round {round}: {sent:?}");
        if let Some(b) = bye.first() {
            assert_eq!(&bye_mails[0].to, b);
            // The pairings list names the bye beside the round's games.
            let listed = s.run(&["event", "pairings", &event, "--format", "json"]);
            let v: serde_json::Value = serde_json::from_str(&listed).unwrap();
            let name = format!("Player {}", &b[1..3]);
            assert!(
                v.as_array()
                    .unwrap()
                    .iter()
                    .any(|p| p["round"] == round && p["bye"] == name.as_str()),
                "round {round}'s bye {name} is listed: {listed}"
            );
        }
        for p in &playing {
            assert!(
                sent.iter().any(|m| m.to == *p && m.reply_to.is_some()),
                "{p} is told of their round {round} game"
            );
        }
        s.check_trf(&event, round as u32);
        // Results by mail and from the TD; the next round waits for
        // every game of this one.
        let (last, rest) = this.split_last().unwrap();
        for (i, (_, game, white, _, _)) in rest.iter().enumerate() {
            if i % 2 == 0 {
                let mail = s.club.newest_in_game(white, *game);
                s.club.reply_to_mail(&mail, "resign");
            } else {
                let g = game.to_string();
                s.run(&[
                    "game",
                    "result",
                    &g,
                    "1/2-1/2",
                    "--reason",
                    "agreed by phone",
                    "--by",
                    TD,
                ]);
            }
        }
        s.serve();
        assert_eq!(
            s.games(&event).len(),
            this.len() * round as usize,
            "round {} waits for the last game of round {round}",
            round + 1
        );
        if round == 3 {
            // White of the last game withdraws: that game is lost by
            // forfeit, which ends the round, and they are paired no more.
            let gone = last.2.clone();
            s.run(&[
                "event",
                "withdraw",
                &event,
                "--email",
                &gone,
                "--reason",
                "moved abroad",
                "--by",
                TD,
            ]);
            withdrawn = Some(gone);
        } else {
            let mail = s.club.newest_in_game(&last.3, last.1);
            s.club.reply_to_mail(&mail, "resign");
        }
        if round == 2 {
            // The daemon dies just before round 3 commits: nothing of it
            // is kept, and the next pass pairs it once.
            let out = s.club.serve_once(db, Some("before-swiss-round-commit"));
            assert!(!out.status.success(), "dies at the crash point");
            s.new_mails();
            assert_eq!(
                s.games(&event).len(),
                10,
                "round 3 not paired by the dead pass"
            );
        }
    }
    let sent = s.serve();
    let games = s.games(&event);
    assert_eq!(games.len(), 25, "five rounds of five games");
    assert!(games.iter().all(|g| g.4 != "active"), "{games:?}");
    let report = s.check_trf(&event, 5);
    // An implementation of the Dutch system independent of dopis's pairs
    // every round of the event the same (up to the oracle's known faults,
    // each explained with its rule in swiss_oracle.rs).
    if let Some(agreed) = crate::swiss_oracle::caissify_agrees(&s.run(&["event", "trf", &event])) {
        assert_eq!(agreed, Ok(5), "caissify-pairings on the event's TRF file");
    }
    let finals: Vec<&Sent> = sent
        .iter()
        .filter(|m| m.subject.contains("Final standings") || m.subject.contains("Končna lestvica"))
        .collect();
    assert_eq!(
        finals.len(),
        11,
        "every player gets the final standings once"
    );
    // The final table is the Swiss crosstable, a column per round.
    crate::swiss_table::the_final_mail_has_the_swiss_crosstable(&finals[0].text, 5);
    // Nothing more is paired, however often the daemon looks.
    let more = s.serve();
    assert!(
        !more.iter().any(|m| m.subject.contains("Final standings")),
        "the final standings go out once"
    );
    assert_eq!(s.games(&event).len(), 25);

    // A round is paired once: the store refuses a second pairing of a
    // round, so a transaction that tried would keep nothing.
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let id = dopis::domain::ids::EventId(event.parse().unwrap());
    let again = tx
        .add_swiss_round(
            id,
            dopis::adapter::store::events::SwissRound {
                round: 3,
                bye_seat: None,
            },
            chrono::DateTime::from_timestamp(1_900_000_000, 0).unwrap(),
        )
        .await;
    assert!(again.is_err(), "round 3 is paired already");
    drop(tx);
    store.close().await;

    let table = s.run(&["event", "standings", &event]);
    assert!(
        table.contains("BH-C1") && table.contains("Player"),
        "FIDE tie-breaks: {table}"
    );
    let trf = s.run(&["event", "trf", &event]);
    assert!(trf.contains("012 Open"), "{trf}");
    // The withdrawal's forfeit: a `-` for the one who left, a `+` for
    // their opponent, and absences (`Z`-less blanks) after it.
    assert!(
        trf.contains(" - ") && trf.contains(" + "),
        "{trf}\n{report}"
    );

    // The event's web page shows a Swiss event as any other.
    let server =
        crate::support::web::WebServer::start(s.club.path(), db, &s.club.path().join("dopis.toml"));
    let (status, page) = server.get(&format!("/events/{event}"));
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("Player 01") && page.contains("BH-C1"),
        "{page}"
    );
    crate::swiss_table::the_swiss_crosstable_is_in_every_format(
        s.club.path(),
        db,
        &server,
        &event,
        11,
        5,
    );
}

async fn a_bad_swiss_file_is_refused_with_the_key_and_the_fix(db: &TestDb) {
    let club = Club::empty(db, "");
    let bad = |name: &str, text: String| -> String {
        std::fs::write(club.path().join(name), text).unwrap();
        fails(&dopis(club.path(), db, &["event", "create", name]))
    };
    let too_many = bad("rounds.toml", swiss_file(6, 6, ""));
    assert!(
        too_many.contains("rounds") && too_many.contains("at most 5 rounds"),
        "{too_many}"
    );
    let accel = bad("accel.toml", swiss_file(8, 3, "acceleration = \"fast\""));
    assert!(
        accel.contains("acceleration") && accel.contains("\"baku\""),
        "{accel}"
    );
    let tb = bad(
        "tb.toml",
        swiss_file(8, 3, "tie_breaks = [\"BH-C1\", \"XYZ\"]"),
    );
    assert!(tb.contains("tie_breaks[2]"), "{tb}");
    let annul = bad(
        "annul.toml",
        swiss_file(8, 3, "withdrawal = \"annul-if-under-half\""),
    );
    assert!(
        annul.contains("withdrawal") && annul.contains("forfeit-all"),
        "{annul}"
    );
    // Entries by mail: enough to meet a new opponent each round, and no
    // sections (an open class's).
    let entries = bad(
        "entries.toml",
        swiss_file(
            2,
            3,
            "[entries]\ncloses = \"2099-01-01\"\nmin = 3\nsection_size = 4\n",
        ),
    );
    assert!(
        entries
            .contains("entries.min: is 3, but a Swiss event of 3 rounds needs at least 4 players")
            && entries.contains("entries.section_size: a Swiss event is one field"),
        "{entries}"
    );
    let bye = bad("bye.toml", swiss_file(8, 3, "bye_points = 2"));
    assert!(bye.contains("bye_points"), "{bye}");
    let cycles = bad("cycles.toml", swiss_file(8, 3, "cycles = 2"));
    assert!(
        cycles.contains("cycles") && cycles.contains("remove it"),
        "{cycles}"
    );
    let rr = bad(
        "rr.toml",
        "name = \"RR\"\nkind = \"round-robin\"\nrounds = 3\ntds = [\"td@chess.test\"]\n"
            .to_string()
            + &swiss_file(4, 3, "")[swiss_file(4, 3, "").find("[[players]]").unwrap()..],
    );
    assert!(rr.contains("rounds") && rr.contains("remove it"), "{rr}");
    let list = ok(&dopis(club.path(), db, &["event", "list"]));
    assert!(
        !list.contains("Open") && !list.contains("RR"),
        "nothing was created: {list}"
    );
    // A round robin has no TRF file.
    std::fs::write(
        club.path().join("good.toml"),
        swiss_file(8, 3, "").replace("kind = \"swiss\"\nrounds = 3\n", "kind = \"round-robin\"\n"),
    )
    .unwrap();
    ok(&dopis(club.path(), db, &["event", "create", "good.toml"]));
    let trf = fails(&dopis(club.path(), db, &["event", "trf", "1"]));
    assert!(trf.contains("not a Swiss event"), "{trf}");
}

/// The TRF file of docs/td.md after two rounds (no bye asked for).
const PLAYED: &str = "012 Autumn Open
XXR 5
XXC white1
001    1      Ana Novak                         2210                             1.0    3     5 w 1     2 b 0
001    2      Bor Kralj                         2175                             2.0    1     6 b 1     1 w 1
001    3      Cene Zupan                        2140                             1.0    4     7 w =     4 b =
001    4      Dana Horvat                       2105                             1.5    2     8 b 1     3 w =
001    5      Eva Kos                           2070                             1.0    5     1 b 0     8 w 1
001    6      Filip Mlakar                      2035                             1.0    6     2 w 0     7 b 1
001    7      Gaja Vidmar                       2000                             0.5    7     3 b =     6 w 0
001    8      Hana Golob                        1965                             0.0    8     4 w 0     5 b 0
";

async fn a_swiss_event_moved_in_mid_way_from_a_trf_file_pairs_its_next_round(db: &TestDb) {
    let mut s = Open {
        club: Club::empty(db, ""),
        db,
        seen: 0,
    };
    let names = [
        "Ana Novak",
        "Bor Kralj",
        "Cene Zupan",
        "Dana Horvat",
        "Eva Kos",
        "Filip Mlakar",
        "Gaja Vidmar",
        "Hana Golob",
    ];
    // The event file lists the players in another order, one name in
    // other case: the TRF file's numbers are kept, found by name.
    let mut file = format!(
        "name = \"Autumn Open\"\nkind = \"swiss\"\nrounds = 5\ntds = [\"{TD}\"]\n\
         time_control = \"10/50d\"\n"
    );
    for (n, name) in names.iter().enumerate().rev() {
        let name = if n == 4 {
            name.to_uppercase()
        } else {
            name.to_string()
        };
        file.push_str(&format!(
            "[[players]]\nemail = \"{}\"\nname = \"{name}\"\n",
            player(n as u32 + 1)
        ));
    }
    let dir = s.club.path().to_path_buf();
    std::fs::write(dir.join("autumn.toml"), &file).unwrap();
    // Gaja Vidmar asked for a half-point bye in round 3 before the move.
    let played = PLAYED
        .replace("6 w 0\n", "6 w 0  0000 - H\n")
        .replace("0.5    7", "1.0    7");
    std::fs::write(dir.join("played.trf"), &played).unwrap();

    // Refused, storing nothing: a TRF player the file does not name, a
    // round count that differs, a result missing, a TD who is none.
    let refused = |name: &str, trf: &str, by: &str| -> String {
        std::fs::write(dir.join(name), trf).unwrap();
        s.refused(&["event", "create", "autumn.toml", "--trf", name, "--by", by])
    };
    let renamed = refused(
        "renamed.trf",
        &PLAYED.replace("Hana Golob", "Hana Gulob"),
        TD,
    );
    assert!(
        renamed.contains("not in the event file: 8 \"Hana Gulob\"")
            && renamed.contains("but not the TRF file: hana golob"),
        "{renamed}"
    );
    let rounds = refused("rounds.trf", &PLAYED.replace("XXR 5", "XXR 7"), TD);
    assert!(
        rounds.contains("XXR 7") && rounds.contains("rounds = 5"),
        "{rounds}"
    );
    let open = refused(
        "open.trf",
        &PLAYED
            .replace("     2 b 0\n", "     2 b  \n")
            .replace("     1 w 1\n", "     1 w  \n")
            .replace("2.0    1", "1.0    1"),
        TD,
    );
    assert!(
        open.contains("round 2") && open.contains("has no result"),
        "{open}"
    );
    let stranger = refused("stranger.trf", PLAYED, "eve@players.test");
    assert!(
        stranger.contains("not one of the event file's tds"),
        "{stranger}"
    );
    let full = refused(
        "full.trf",
        &PLAYED
            .replace("6 w 0\n", "6 w 0  0000 - F\n")
            .replace("0.5    7", "1.5    7"),
        TD,
    );
    assert!(
        full.contains("round 3") && full.contains("full-point bye"),
        "{full}"
    );
    let twice = s.refused(&["event", "create", "autumn.toml", "--trf", "played.trf"]);
    assert!(twice.contains("--by"), "{twice}");
    assert!(
        !s.run(&["event", "list"]).contains("Autumn"),
        "nothing was stored"
    );

    let out = s.run(&[
        "event",
        "create",
        "autumn.toml",
        "--trf",
        "played.trf",
        "--by",
        TD,
    ]);
    let event = out.lines().next().unwrap().trim().to_string();
    assert!(
        out.contains("holds rounds 1 to 2") && out.contains("8 games"),
        "{out}"
    );
    let games = s.games(&event);
    assert_eq!(games.len(), 8, "{games:?}");
    assert!(games.iter().all(|g| g.4 != "active"), "finished: {games:?}");
    // Round 1 as the file has it: Filip Mlakar (6) White against Bor
    // Kralj (2), who won.
    assert!(
        games
            .iter()
            .any(|g| g.0 == 1 && g.2 == player(6) && g.3 == player(2) && g.4 == "0-1"),
        "{games:?}"
    );
    s.serve();
    assert!(s.new_mails().is_empty(), "nobody is told of old rounds");

    // `event start` pairs round 3 as `dopis swiss pair` pairs the file.
    s.run(&["event", "start", &event]);
    let expected = s.run(&["swiss", "pair", "played.trf", "--format", "pairs"]);
    let round3: Vec<String> = s
        .games(&event)
        .into_iter()
        .filter(|g| g.0 == 3)
        .map(|g| {
            format!(
                "{} {}",
                &g.2[1..3].parse::<u32>().unwrap(),
                &g.3[1..3].parse::<u32>().unwrap()
            )
        })
        .collect();
    // Seven to pair (Gaja has her bye): three games and the
    // pairing-allocated bye (`N 0`).
    let listed: Vec<&str> = expected
        .lines()
        .skip(1)
        .filter(|l| !l.ends_with(" 0"))
        .collect();
    assert_eq!(round3, listed, "{expected}");
    assert_eq!(listed.len(), 3, "{expected}");
    assert!(
        !round3.iter().any(|g| g.split(' ').any(|n| n == "7")),
        "Gaja Vidmar has her bye: {round3:?}"
    );
    let told: Vec<String> = s
        .serve()
        .into_iter()
        .filter(|m| m.to != TD)
        .map(|m| m.to)
        .collect();
    assert_eq!(told.len(), 8, "the players of round 3 are told: {told:?}");
    // The event's own TRF file is the moved one with round 3: checked.
    let trf = s.run(&["event", "trf", &event]);
    let path = dir.join("now.trf");
    std::fs::write(&path, &trf).unwrap();
    let report = s.run(&["swiss", "check", path.to_str().unwrap()]);
    assert!(
        report.contains("all 3 rounds are paired as dopis pairs them"),
        "{report}"
    );
}

on_both_backends!(
    a_swiss_event_moved_in_mid_way_from_a_trf_file_pairs_its_next_round,
    a_swiss_of_eleven_is_paired_round_by_round_by_the_daemon,
    a_bad_swiss_file_is_refused_with_the_key_and_the_fix,
);
