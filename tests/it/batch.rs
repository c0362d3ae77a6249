//! A TD's batch work from the command line, on both databases: players
//! registered from a CSV file; who sits out each round of an odd round
//! robin or olympiad.

use std::path::Path;

use crate::support::{TestDb, dopis, fails, ok};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/events")
        .join(name)
        .display()
        .to_string()
}

fn setup(db: &TestDb) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&dopis(dir.path(), db, &["init"]));
    dir
}

/// A single round robin of five: the 6-table, whoever meets 6 sits out
/// (round 1: 1-6, round 2: 6-4, round 3: 2-6, round 4: 6-5, round 5: 3-6).
const FIVE: &str = r#"
name = "Odd cup"
kind = "round-robin"
tds = ["td@club.test"]

[[players]]
email = "a@club.test"
name = "Ana"

[[players]]
email = "b@club.test"
name = "Bor"

[[players]]
email = "c@club.test"
name = "Cene"

[[players]]
email = "d@club.test"
name = "Dora"

[[players]]
email = "e@club.test"
name = "Eva"
"#;

async fn odd_round_robin_pairings_say_who_has_the_bye_in_each_round(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    std::fs::write(d.join("five.toml"), FIVE).unwrap();
    ok(&dopis(d, db, &["event", "create", "five.toml"]));
    let want = ["Ana", "Dora", "Bor", "Eva", "Cene"];
    for started in [false, true] {
        if started {
            ok(&dopis(d, db, &["event", "start", "1"]));
        }
        let text = ok(&dopis(d, db, &["event", "pairings", "1"]));
        for (i, name) in want.iter().enumerate() {
            let round = format!("round {}\n  bye: {name}\n", i + 1);
            assert!(text.contains(&round), "{round:?} in {text}");
        }
        let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
            d,
            db,
            &["event", "pairings", "1", "--format", "json"],
        )))
        .unwrap();
        // Still one entry per game (10), each carrying its round's bye.
        let games = json.as_array().unwrap();
        assert_eq!(games.len(), 10);
        for g in games {
            let round = g["round"].as_u64().unwrap() as usize;
            assert_eq!(g["bye"], want[round - 1], "{g}");
            assert_ne!(g["white"]["name"], want[round - 1]);
            assert_ne!(g["black"]["name"], want[round - 1]);
        }
        // Round 1's board 1 is Ana's bye; board 2 is the table's 2-5.
        assert_eq!(games[0]["board"], 2);
        assert_eq!(games[0]["white"]["name"], "Bor");
        assert_eq!(games[0]["black"]["name"], "Eva");
    }
}

async fn even_round_robins_and_odd_olympiads(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    // Six players: no byes, and no `bye` key in the JSON.
    ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("round-robin.toml")],
    ));
    let text = ok(&dopis(d, db, &["event", "pairings", "1"]));
    assert!(!text.contains("bye"), "{text}");
    let json = ok(&dopis(
        d,
        db,
        &["event", "pairings", "1", "--format", "json"],
    ));
    assert!(!json.contains("\"bye\""), "{json}");
    // Seven teams: the 8-table over teams; round 1 team 1 sits out, round 2 team 5.
    ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("olympiad.toml")],
    ));
    let text = ok(&dopis(d, db, &["event", "pairings", "2"]));
    assert!(text.contains("round 1\n  bye: Slovenia\n"), "{text}");
    assert!(text.contains("round 2\n  bye: Czechia\n"), "{text}");
}

fn players(d: &Path, db: &TestDb) -> String {
    ok(&dopis(d, db, &["player", "list"]))
}

async fn a_roster_registers_its_new_players_in_one_go_and_reports_the_known(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            "bor@club.test",
            "--name",
            "Bor Kralj",
            "--lang",
            "sl",
        ],
    ));
    std::fs::write(
        d.join("club.csv"),
        "email,name,lang,tz\n\
         ana@club.test,Ana Novak,sl,Europe/Ljubljana\n\
         bor@club.test,Bor K.,de,\n\
         \"cene@club.test\",\"Zupan, Cene\",,\n",
    )
    .unwrap();
    let before = players(d, db);
    let dry = ok(&dopis(
        d,
        db,
        &["player", "import", "club.csv", "--dry-run"],
    ));
    for want in [
        "line 2: would add Ana Novak <ana@club.test> (sl, Europe/Ljubljana)",
        "line 3: bor@club.test is registered already and kept as registered \
         (name 'Bor K.' in the file, 'Bor Kralj' registered; lang de in the file, sl registered)",
        "line 4: would add Zupan, Cene <cene@club.test> (en)",
        "2 to add, 1 registered already (1 differing from the file, kept); dry run: nothing was changed",
    ] {
        assert!(dry.contains(want), "{want:?} in {dry}");
    }
    assert_eq!(players(d, db), before, "a dry run changes nothing");
    let done = ok(&dopis(d, db, &["player", "import", "club.csv"]));
    assert!(done.contains("line 2: added Ana Novak"), "{done}");
    assert!(done.contains("2 added, 1 registered already"), "{done}");
    let listed = players(d, db);
    assert!(
        listed.contains("ana@club.test\tAna Novak\tsl\tEurope/Ljubljana"),
        "{listed}"
    );
    assert!(listed.contains("bor@club.test\tBor Kralj\tsl"), "{listed}");
    assert!(
        listed.contains("cene@club.test\tZupan, Cene\ten\t-"),
        "{listed}"
    );
    let again = ok(&dopis(d, db, &["player", "import", "club.csv"]));
    assert!(
        again.contains("line 2: ana@club.test is registered already, as in the file"),
        "{again}"
    );
    assert!(again.contains("0 added, 3 registered already"), "{again}");
}

async fn a_bad_roster_is_refused_whole_with_each_line_and_changes_nothing(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    let before = players(d, db);
    let mut huge = b"email,name\n".to_vec();
    huge.resize(5 * 1024 * 1024, b'x');
    let cases: Vec<(&str, Vec<u8>, &[&str])> = vec![
        (
            "lines.csv",
            b"email,name,lang\nana@club.test,Ana,sl\nbad address,Bor,en\n\
              cene@club.test,Cene,klingon\nANA@club.test,Ana,sl\ndora@club.test,Dora\n"
                .to_vec(),
            &[
                "lines.csv: nothing was registered",
                "line 3: email:",
                "line 4: lang: unknown language 'klingon': use one of en,",
                "line 5: ana@club.test is on line 2 too",
                "line 6: has 2 values, the header 3",
            ],
        ),
        (
            "columns.csv",
            b"mail,lang\nana@club.test,sl\n".to_vec(),
            &[
                "line 1: the header has no 'name' column",
                "e.g. `email,name,lang,tz`",
            ],
        ),
        (
            "empty.csv",
            Vec::new(),
            &["the file is empty: write a header line"],
        ),
        (
            "binary.csv",
            b"PK\x03\x04\x14\0\x06\0\x08\0\0\0!\0\xff\xfe".to_vec(),
            &["line 1: holds a NUL byte", "CSV UTF-8"],
        ),
        ("huge.csv", huge, &["split it into several files"]),
    ];
    for (name, bytes, wants) in cases {
        std::fs::write(d.join(name), bytes).unwrap();
        for dry in [false, true] {
            let mut args = vec!["player", "import", name];
            if dry {
                args.push("--dry-run");
            }
            let err = fails(&dopis(d, db, &args));
            assert!(!err.contains("panicked"), "{name}: {err}");
            for want in wants {
                assert!(err.contains(want), "{name}: {want:?} in {err}");
            }
        }
    }
    let missing = fails(&dopis(d, db, &["player", "import", "nowhere.csv"]));
    assert!(missing.contains("cannot read nowhere.csv"), "{missing}");
    assert_eq!(players(d, db), before, "nothing registered");
}

async fn team_standings_show_a_table_per_board_in_every_format(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("team-match.toml")],
    ));
    ok(&dopis(d, db, &["event", "start", "1"]));
    // Board 1's first game: Ana Kos (Ljubljana) beats Jan Wójcik (Kraków).
    ok(&dopis(
        d,
        db,
        &[
            "game",
            "result",
            "1",
            "1-0",
            "--reason",
            "adjourned and adjudicated",
            "--by",
            "td@example.org",
        ],
    ));
    let plain = ok(&dopis(d, db, &["event", "standings", "1"]));
    assert!(
        !plain.contains("board 1"),
        "no boards unless asked: {plain}"
    );
    let text = ok(&dopis(d, db, &["event", "standings", "1", "--boards"]));
    assert!(text.starts_with(&plain), "the match table first:\n{text}");
    assert!(
        text.contains("Ljubljana v Kraków 2027, board 1\n"),
        "{text}"
    );
    assert!(
        text.contains("   1   1  Ana Kos (ŠK Ljubljana)     X  1A *    1     1"),
        "{text}"
    );
    assert!(
        text.contains("   2   2  Jan Wójcik (KS Kraków)  0A *     X    0     0"),
        "{text}"
    );
    assert!(
        text.contains("Ljubljana v Kraków 2027, board 6\n"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["event", "standings", "1", "--boards", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["teams"]["rows"].as_array().unwrap().len(), 2);
    let boards = json["boards"].as_array().unwrap();
    assert_eq!(boards.len(), 6);
    assert_eq!(boards[0]["board"], 1);
    assert_eq!(
        boards[0]["table"]["rows"][0]["name"],
        "Ana Kos (ŠK Ljubljana)"
    );
    assert_eq!(boards[0]["table"]["rows"][0]["values"][0], 1.0);
    let csv = ok(&dopis(
        d,
        db,
        &["event", "standings", "1", "--boards", "--format", "csv"],
    ));
    assert!(
        csv.contains("\r\n\"Ljubljana v Kraków 2027, board 1\"\r\nRank,No,Name,"),
        "{csv}"
    );
    let html = ok(&dopis(
        d,
        db,
        &["event", "standings", "1", "--boards", "--format", "html"],
    ));
    assert_eq!(
        html.matches("<table class=\"crosstable\">").count(),
        7,
        "{html}"
    );
    // A round robin has no boards.
    ok(&dopis(
        d,
        db,
        &["event", "create", &fixture("round-robin.toml")],
    ));
    let err = fails(&dopis(d, db, &["event", "standings", "2", "--boards"]));
    assert!(err.contains("board tables are for team events"), "{err}");
}

/// Three players, one Slovenian: games 1-3.
const THREE: &str = r#"
name = "Trio"
kind = "round-robin"
tds = ["td@club.test"]

[[players]]
email = "a@club.test"
name = "Ana"
lang = "sl"

[[players]]
email = "b@club.test"
name = "Bor"

[[players]]
email = "c@club.test"
name = "Cene"
"#;

/// The TD (td@club.test) adjudicates `game` in `tx`, as `game result` does.
async fn adjudicate(
    tx: &mut dopis::adapter::store::Tx,
    app: &crate::support::app::TestApp,
    game: dopis::domain::ids::GameId,
    result: dopis::domain::chess::game::GameResult,
    reason: &str,
) {
    let td = dopis::domain::address::EmailAddress::parse("td@club.test").unwrap();
    let ruling = dopis::service::td::Ruling::Result(
        result,
        dopis::domain::chess::outcome::ResultKind::Adjudication,
    );
    dopis::service::td::set_result(tx, app.post(), game, ruling, reason, &td, app.now())
        .await
        .unwrap();
}

async fn the_last_game_of_an_event_mails_every_player_the_final_table_once(db: &TestDb) {
    use dopis::domain::chess::game::GameResult;

    let app = crate::support::app::TestApp::builder().open(db).await;
    let (_, games) = app.event(THREE).await;
    let ana = app.player_by_email("a@club.test").await;
    let bor = app.player_by_email("b@club.test").await;
    let ask = |who: &dopis::domain::player::Player, game| {
        format!(
            "From: {}\r\nTo: {}\r\nSubject: standings\r\nMessage-ID: <{:016x}@club.test>\r\n\r\nstandings\r\n",
            who.email,
            app.reply_address(game, who),
            rand::random::<u64>()
        )
    };
    let finals = |sent: &[crate::support::mail::Sent]| -> Vec<(String, String)> {
        sent.iter()
            .filter(|m| m.key.contains(".final."))
            .map(|m| (m.to.clone(), m.subject.clone()))
            .collect()
    };
    for (i, &game) in games.iter().enumerate() {
        let mut tx = app.store.begin().await.unwrap();
        adjudicate(&mut tx, &app, game, GameResult::Draw, "agreed").await;
        tx.commit().await.unwrap();
        let mut told = finals(&app.sent().await);
        if i < games.len() - 1 {
            assert!(told.is_empty(), "not over yet: {told:?}");
        } else {
            // The last game ends the event: every player gets the final
            // table, in their language, without asking.
            told.sort();
            let want = [
                ("a@club.test", "Končna lestvica: Trio"),
                ("b@club.test", "Final standings: Trio"),
                ("c@club.test", "Final standings: Trio"),
            ];
            assert_eq!(told.len(), 3, "{told:?}");
            for ((to, subject), (want_to, want_subject)) in told.iter().zip(want) {
                assert_eq!(to, want_to);
                assert!(subject.contains(want_subject), "{subject}");
            }
        }
        let asker = if i == 0 { &bor } else { &ana };
        let mut asked_in = games[0];
        for &g in &games {
            let row = app.game_row(g).await;
            if row.white == asker.id || row.black == asker.id {
                asked_in = g;
                break;
            }
        }
        app.deliver(ask(asker, asked_in).as_bytes()).await;
        let sent = app.sent().await;
        let subjects: Vec<&str> = sent.iter().map(|m| m.subject.as_str()).collect();
        let last = i == games.len() - 1;
        let want = match (last, i == 0) {
            (false, true) => "Standings: Trio",
            (false, false) => "Lestvica: Trio",
            (true, _) => "Končna lestvica: Trio",
        };
        assert!(
            subjects.iter().any(|s| s.contains(want)),
            "{want:?} in {subjects:?}"
        );
        if last {
            let mail = sent.iter().find(|m| m.subject.contains(want)).unwrap();
            assert!(
                mail.text.contains("vse partije so končane"),
                "{}",
                mail.text
            );
        }
    }
    // Once only: the TD corrects a result of the finished event; the
    // players get that game's mails, no second final table.
    let mut tx = app.store.begin().await.unwrap();
    adjudicate(&mut tx, &app, games[0], GameResult::WhiteWins, "corrected").await;
    tx.commit().await.unwrap();
    let sent = app.sent().await;
    assert!(!sent.is_empty(), "the correction is told");
    assert!(finals(&sent).is_empty(), "{:?}", finals(&sent));
}

async fn a_resignation_by_mail_that_ends_the_event_mails_the_final_table(db: &TestDb) {
    use dopis::domain::chess::game::GameResult;

    let app = crate::support::app::TestApp::builder().open(db).await;
    let (_, games) = app.event(THREE).await;
    let mut tx = app.store.begin().await.unwrap();
    for &game in &games[..2] {
        adjudicate(&mut tx, &app, game, GameResult::Draw, "agreed").await;
    }
    tx.commit().await.unwrap();
    app.sent().await;
    let last = app.game_row(games[2]).await;
    let white = app.player_row(last.white).await;
    let raw = format!(
        "From: {}\r\nTo: {}\r\nSubject: Re: [dopis #{}]\r\nMessage-ID: <resign@club.test>\r\n\r\nresign\r\n",
        white.email,
        app.reply_address(games[2], &white),
        games[2].0
    );
    app.deliver(raw.as_bytes()).await;
    let sent = app.sent().await;
    let mut finals: Vec<&str> = sent
        .iter()
        .filter(|m| m.key.contains(".final."))
        .map(|m| m.to.as_str())
        .collect();
    finals.sort();
    assert_eq!(finals, ["a@club.test", "b@club.test", "c@club.test"]);
    assert!(
        sent.iter().any(|m| m.key.contains(".over.")),
        "the game-over mails go too"
    );
    // The same mail again changes nothing and sends no second table.
    app.deliver(raw.as_bytes()).await;
    assert!(
        !app.sent().await.iter().any(|m| m.key.contains(".final.")),
        "once only"
    );
}

async fn an_event_file_registers_its_new_players_and_enters_everyone_or_nothing(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            "b@club.test",
            "--name",
            "Bor Kralj",
        ],
    ));
    let before = players(d, db);
    // One bad entrant: nothing is created, nobody registered.
    std::fs::write(d.join("bad.toml"), FIVE.replace("e@club.test", "e-at-club")).unwrap();
    let err = fails(&dopis(d, db, &["event", "create", "bad.toml"]));
    assert!(err.contains("players[5].email"), "{err}");
    assert_eq!(players(d, db), before);
    assert!(ok(&dopis(d, db, &["event", "list"])).is_empty());
    // Hostile files: binary, huge, empty.
    std::fs::write(d.join("bin.toml"), b"name = 1\n\xff\xfe\x00junk").unwrap();
    let err = fails(&dopis(d, db, &["event", "create", "bin.toml"]));
    assert!(err.contains("line 2 is not UTF-8 text"), "{err}");
    std::fs::write(d.join("huge.toml"), vec![b'#'; 2 * 1024 * 1024]).unwrap();
    let err = fails(&dopis(d, db, &["event", "create", "huge.toml"]));
    assert!(err.contains("is over 1048576 bytes"), "{err}");
    std::fs::write(d.join("empty.toml"), b"").unwrap();
    let err = fails(&dopis(d, db, &["event", "create", "empty.toml"]));
    assert!(err.contains("name: is missing"), "{err}");
    assert_eq!(players(d, db), before);
    // The good file: four new players registered, Bor kept, five entered.
    std::fs::write(d.join("five.toml"), FIVE).unwrap();
    assert_eq!(
        ok(&dopis(d, db, &["event", "create", "five.toml"])).trim(),
        "1"
    );
    let listed = players(d, db);
    assert_eq!(listed.lines().count(), 5, "{listed}");
    assert!(listed.contains("b@club.test\tBor Kralj"), "{listed}");
    let shown = ok(&dopis(d, db, &["event", "show", "1"]));
    assert!(shown.contains("    2. Bor Kralj <b@club.test>"), "{shown}");
    assert!(shown.contains("    5. Eva <e@club.test>"), "{shown}");
}

crate::on_both_backends!(
    an_event_file_registers_its_new_players_and_enters_everyone_or_nothing,
    a_resignation_by_mail_that_ends_the_event_mails_the_final_table,
    the_last_game_of_an_event_mails_every_player_the_final_table_once,
    team_standings_show_a_table_per_board_in_every_format,
    a_roster_registers_its_new_players_in_one_go_and_reports_the_known,
    a_bad_roster_is_refused_whole_with_each_line_and_changes_nothing,
    odd_round_robin_pairings_say_who_has_the_bye_in_each_round,
    even_round_robins_and_odd_olympiads,
);
