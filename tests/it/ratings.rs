//! The rating list on both databases: a small rated event finishes (moves,
//! resignation, an agreed draw, a TD's adjudication, a loss on time) and the
//! list equals the hand calculation below; start ratings are set from the
//! command line, which answers bad input clearly; ratings show in the
//! crosstable, the pairings, the game mails and the PGN.

use chrono::{Duration, TimeZone, Utc};
use dopis::domain::address::EmailAddress;
use dopis::domain::chess::game::GameResult;
use dopis::domain::ids::{EventId, GameId};
use dopis::domain::player::Player;
use dopis::domain::rating::Source;
use dopis::service::Handled;

use crate::support::app::TestApp;
use crate::support::mail::Mail;
use crate::support::{TestDb, dopis, fails, ok};

/// Four players, a single round robin of 3-day moves, rated by default.
/// Berger for 4: round 1 Ana-Dora, Bor-Cene; round 2 Dora-Cene, Ana-Bor;
/// round 3 Bor-Dora, Cene-Ana (games 1-6 in that order).
const CUP: &str = r#"
name = "Rated cup"
kind = "round-robin"
time_control = "3d"
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
"#;

struct Cup {
    app: TestApp,
    games: Vec<GameId>,
    event: EventId,
}

impl Cup {
    async fn player(&self, email: &str) -> Player {
        self.app.player_by_email(email).await
    }

    /// `email` writes `text` to their reply address of game `n` (from 1).
    async fn says(&self, n: usize, email: &str, text: &str) {
        let player = self.player(email).await;
        let to = self.app.reply_address(self.games[n - 1], &player);
        self.app.advance(Duration::minutes(5));
        let handled = self
            .app
            .deliver(&Mail::new(email, &to).body(text).bytes())
            .await;
        assert!(matches!(handled, Handled::Done(_)), "{text}: {handled:?}");
    }

    async fn result(&self, n: usize) -> Option<String> {
        self.app.game_row(self.games[n - 1]).await.result
    }
}

async fn set(app: &TestApp, email: &str, rating: i64, source: Source) {
    let mut tx = app.store.begin().await.unwrap();
    dopis::service::ratings::set_start(
        &mut tx,
        &EmailAddress::parse(email).unwrap(),
        rating,
        source,
        "td@club.test",
        app.now(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// By hand (FIDE Rating Regulations 2024, as `src/domain/rating.rs` cites them;
/// all games end in January 2027, one rating period; R0 = the ratings set:
/// Ana 2000, Bor 1900, Cene 1800 with K 20 as ratings brought from FIDE and
/// ICCF; Dora unrated):
///
/// 1. Ana–Dora 1-0 (Dora resigns): not rated for Ana (Dora unrated, 8.3.1);
///    Dora's zero is disregarded (8.2).
/// 2. Bor–Cene ½-½ (agreed): D = 100, PD .64/.36; Bor ΔR −0.14, Cene +0.14.
/// 3. Dora–Cene 1-0 (Cene resigns): Cene not rated; Dora's first game
///    towards a rating, against Cene's R0 1800.
/// 4. Ana–Bor 1-0 (TD's adjudication): Ana ΔR +0.36, Bor −0.36.
/// 5. Bor–Dora 0-1 (Bor resigns): Bor not rated; Dora's second game.
/// 6. Cene–Ana 0-1 (Cene loses on time): D = 200, PD .76/.24; Ana +0.24,
///    Cene −0.24.
///
/// Ana: ΣΔR 0.60 × 20 = 12 → 2012. Bor: −0.50 × 20 = −10 → 1890.
/// Cene: −0.10 × 20 = −2 → 1798. Dora: unrated, 2 of the 5 games a first
/// rating needs. After game 2 alone: Bor −2.8 → 1897, Cene 1803.
async fn a_rated_event_moves_the_list_as_worked_out_by_hand(db: &TestDb) {
    let app = TestApp::builder()
        .at(Utc.with_ymd_and_hms(2027, 1, 4, 9, 0, 0).unwrap())
        .open(db)
        .await;
    let (event, games) = app.event(CUP).await;
    set(&app, "a@club.test", 2000, Source::Fide).await;
    set(&app, "b@club.test", 1900, Source::Iccf).await;
    set(&app, "c@club.test", 1800, Source::Fide).await;
    let cup = Cup { app, games, event };
    let (a, b, c, d) = ("a@club.test", "b@club.test", "c@club.test", "d@club.test");

    // 1. Ana–Dora: Dora resigns after a move each.
    cup.says(1, a, "e4").await;
    cup.says(1, d, "e5").await;
    cup.says(1, d, "resign").await;
    assert_eq!(cup.result(1).await.as_deref(), Some("1-0"));
    // 2. Bor–Cene: agreed draw.
    cup.says(2, b, "e4").await;
    cup.says(2, c, "e5").await;
    cup.says(2, b, "Nf3 draw").await;
    cup.says(2, c, "accept draw").await;
    assert_eq!(cup.result(2).await.as_deref(), Some("1/2-1/2"));
    let list = rating_list(&cup.app).await;
    assert_eq!(list["b@club.test"], Some(1897), "{list:?}");
    assert_eq!(list["c@club.test"], Some(1803), "{list:?}");
    // 3. Dora–Cene: Cene resigns.
    cup.says(3, d, "d4").await;
    cup.says(3, c, "d5").await;
    cup.says(3, c, "resign").await;
    // 4. Ana–Bor: the TD adjudicates 1-0.
    cup.says(4, a, "c4").await;
    cup.says(4, b, "c5").await;
    {
        let mut tx = cup.app.store.begin().await.unwrap();
        dopis::service::td::set_result(
            &mut tx,
            cup.app.post(),
            cup.games[3],
            dopis::service::td::Ruling::Result(
                GameResult::WhiteWins,
                dopis::domain::chess::outcome::ResultKind::Adjudication,
            ),
            "White's position is won",
            &EmailAddress::parse("td@club.test").unwrap(),
            cup.app.now(),
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }
    // 5. Bor–Dora: Bor resigns.
    cup.says(5, b, "Nf3").await;
    cup.says(5, d, "Nf6").await;
    cup.says(5, b, "resign").await;
    // 6. Cene–Ana: Cene, to move after 1. e4 e5, lets the three days run out.
    cup.says(6, c, "e4").await;
    cup.says(6, a, "e5").await;
    cup.app.advance(Duration::days(4));
    cup.app.schedule().await;
    assert_eq!(cup.result(6).await.as_deref(), Some("0-1"));

    let list = rating_list(&cup.app).await;
    assert_eq!(list["a@club.test"], Some(2012), "{list:?}");
    assert_eq!(list["b@club.test"], Some(1890), "{list:?}");
    assert_eq!(list["c@club.test"], Some(1798), "{list:?}");
    assert_eq!(list["d@club.test"], None, "{list:?}");

    // The crosstable: ratings, the figures and the performance. Ana's
    // performance against the rated Bor (1890) and Cene (1798), both won:
    // Ra 1844 + dp(1.00) 800 = 2644. Dora's: 2 of 3 against 2012, 1798 and
    // 1890 (the list now): Ra 1900, p .67, dp 125: 2025.
    let csv = standings_csv(&cup).await;
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "Rank,No,Name,Elo,1,2,3,4,Pts,Wins,SB,DE,Gms,Left,+,=,-,%,Rp"
    );
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.iter()
            .any(|r| r.starts_with("1,1,Ana,2012,") && r.ends_with(",3,0,3,0,0,100,2644")),
        "{csv}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains(",Dora,,") && r.ends_with(",3,0,2,0,1,67,2025")),
        "{csv}"
    );

    // Each game's PGN names the ratings it was rated against.
    let t = {
        let mut tx = cup.app.store.begin().await.unwrap();
        let t = dopis::service::loaded_game::load_table(&mut tx, cup.games[3])
            .await
            .unwrap();
        tx.commit().await.unwrap();
        t
    };
    let pgn = t.pgn();
    assert!(pgn.contains("[WhiteElo \"2000\"]"), "{pgn}");
    assert!(pgn.contains("[BlackElo \"1900\"]"), "{pgn}");

    // The command line's list says the same.
    let dir = tempfile::tempdir().unwrap();
    let text = ok(&dopis(dir.path(), db, &["rating", "list"]));
    for want in ["1  Ana", "2012", "Bor", "1890", "Dora", "unrated (2/5)"] {
        assert!(text.contains(want), "{want:?} in {text}");
    }
    let pairings = ok(&dopis(dir.path(), db, &["event", "pairings", "1"]));
    assert!(pairings.contains("Ana (2012) - Bor (1890)"), "{pairings}");
    cup.app.close().await;
}

async fn rating_list(app: &TestApp) -> std::collections::HashMap<String, Option<i32>> {
    let mut tx = app.store.begin().await.unwrap();
    let list = dopis::service::ratings::list(&mut tx).await.unwrap();
    tx.commit().await.unwrap();
    list.into_iter()
        .map(|l| (l.email, l.standing.rating))
        .collect()
}

async fn standings_csv(cup: &Cup) -> String {
    let mut tx = cup.app.store.begin().await.unwrap();
    let ev = dopis::service::td::StoredEvent::load(&mut tx, cup.event)
        .await
        .unwrap();
    let table = dopis::service::td::standings(&mut tx, &ev).await.unwrap();
    tx.commit().await.unwrap();
    table.crosstable.to_csv()
}

/// Game mails show the ratings beside the names: "White: Ana (2000)" in
/// a move mail, "Ana (White, 2000)" in the game-started mail.
async fn game_mails_show_the_players_ratings(db: &TestDb) {
    let app = TestApp::builder().open(db).await;
    let ana = app
        .player("a@club.test", "Ana", dopis::domain::lang::Lang::En, None)
        .await;
    let bor = app
        .player("b@club.test", "Bor", dopis::domain::lang::Lang::En, None)
        .await;
    set(&app, "a@club.test", 2000, Source::Fide).await;
    set(&app, "b@club.test", 1834, Source::Iccf).await;
    app.game(
        &ana,
        &bor,
        dopis::domain::clock::TimeControl::DaysPerMove { days: 3 },
    )
    .await;
    let sent = app.sent().await;
    assert!(!sent.is_empty());
    // White's "your move" lists the players with their ratings; Black's
    // "game started" names them with their colours and ratings.
    for mail in &sent {
        let (w, b) = if mail.to == "a@club.test" {
            ("White: Ana (2000)", "Black: Bor (1834)")
        } else {
            ("Ana (White, 2000)", "Bor (Black, 1834)")
        };
        let text = mail.text.replace("\r\n", " ").replace('\n', " ");
        assert!(text.contains(w) && text.contains(b), "{}", mail.text);
        assert!(
            mail.html.contains("2000") && mail.html.contains("1834"),
            "{}",
            mail.html
        );
    }
    app.close().await;
}

/// A casual game outside events and a game of an event with `rated =
/// false` leave the list as it was.
async fn casual_games_and_unrated_events_are_not_rated(db: &TestDb) {
    let app = TestApp::builder().open(db).await;
    let ana = app
        .player("a@club.test", "Ana", dopis::domain::lang::Lang::En, None)
        .await;
    let bor = app
        .player("b@club.test", "Bor", dopis::domain::lang::Lang::En, None)
        .await;
    set(&app, "a@club.test", 2000, Source::Fide).await;
    set(&app, "b@club.test", 1900, Source::Fide).await;
    let game = app
        .game(
            &ana,
            &bor,
            dopis::domain::clock::TimeControl::DaysPerMove { days: 3 },
        )
        .await;
    for (who, text) in [(&ana, "e4"), (&bor, "e5"), (&ana, "resign")] {
        let to = app.reply_address(game, who);
        app.advance(Duration::minutes(5));
        let handled = app
            .deliver(&Mail::new(who.email.as_str(), &to).body(text).bytes())
            .await;
        assert!(matches!(handled, Handled::Done(_)), "{handled:?}");
    }
    assert_eq!(app.game_row(game).await.result.as_deref(), Some("0-1"));
    let unrated = CUP.replacen("time_control", "rated = false\ntime_control", 1);
    let (_, games) = app.event(&unrated).await;
    let dora = app.player_by_email("d@club.test").await;
    for (who, text) in [(&ana, "e4"), (&dora, "e5"), (&ana, "resign")] {
        let to = app.reply_address(games[0], who);
        app.advance(Duration::minutes(5));
        let handled = app
            .deliver(&Mail::new(who.email.as_str(), &to).body(text).bytes())
            .await;
        assert!(matches!(handled, Handled::Done(_)), "{handled:?}");
    }
    let list = rating_list(&app).await;
    assert_eq!(list["a@club.test"], Some(2000));
    assert_eq!(list["b@club.test"], Some(1900));
    assert!(!list.contains_key("d@club.test"), "{list:?}");
    app.close().await;
}

/// A thematic event's games: the line is nobody's move, so a player who
/// resigns right after it leaves the list as it was; once both have
/// moved, the game is rated.
async fn a_thematic_game_is_rated_only_once_both_players_moved_after_the_line(db: &TestDb) {
    let app = TestApp::builder()
        .at(Utc.with_ymd_and_hms(2027, 1, 4, 9, 0, 0).unwrap())
        .open(db)
        .await;
    let thematic = CUP.replacen(
        "time_control",
        "start = { moves = \"1.e4 c5 2.Nf3 d6\" }\ntime_control",
        1,
    );
    let (event, games) = app.event(&thematic).await;
    for (email, rating) in [
        ("a@club.test", 2000),
        ("b@club.test", 1900),
        ("c@club.test", 1800),
    ] {
        set(&app, email, rating, Source::Fide).await;
    }
    let cup = Cup { app, games, event };
    // Game 2, Bor-Cene: Bor resigns before any move of his own.
    cup.says(2, "b@club.test", "resign").await;
    assert_eq!(cup.result(2).await.as_deref(), Some("0-1"));
    let list = rating_list(&cup.app).await;
    assert_eq!(
        (list["b@club.test"], list["c@club.test"]),
        (Some(1900), Some(1800)),
        "the line is no one's move"
    );
    // Game 4, Ana-Bor: 3. d4 cxd4, and Ana resigns: both moved after the
    // line, so it is rated.
    cup.says(4, "a@club.test", "d4").await;
    cup.says(4, "b@club.test", "cxd4").await;
    cup.says(4, "a@club.test", "resign").await;
    assert_eq!(cup.result(4).await.as_deref(), Some("0-1"));
    let list = rating_list(&cup.app).await;
    assert!(list["b@club.test"] > Some(1900), "{list:?}");
    assert!(list["a@club.test"] < Some(2000), "{list:?}");
    cup.app.close().await;
}

/// `dopis rating set` answers bad input with what is wrong and changes
/// nothing.
async fn the_command_line_refuses_bad_ratings_clearly(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    ok(&dopis(
        d,
        db,
        &["player", "add", "--email", "a@club.test", "--name", "Ana"],
    ));
    let unknown = fails(&dopis(d, db, &["rating", "set", "x@club.test", "1800"]));
    assert!(
        unknown.contains("no player with the address x@club.test"),
        "{unknown}"
    );
    for bad in ["99", "3501", "-5"] {
        let out = fails(&dopis(d, db, &["rating", "set", "a@club.test", bad]));
        assert!(
            out.contains("out of range") && out.contains("100 to 3500"),
            "{bad}: {out}"
        );
    }
    let word = fails(&dopis(d, db, &["rating", "set", "a@club.test", "strong"]));
    assert!(word.contains("invalid value 'strong'"), "{word}");
    let source = fails(&dopis(
        d,
        db,
        &["rating", "set", "a@club.test", "1800", "--source", "uscf"],
    ));
    assert!(
        source.contains("possible values: iccf, fide, td"),
        "{source}"
    );
    let format = fails(&dopis(d, db, &["rating", "list", "--format", "xml"]));
    assert!(
        format.contains("possible values: text, csv, json"),
        "{format}"
    );
    assert_eq!(
        ok(&dopis(d, db, &["rating", "list"])).trim(),
        "no ratings yet"
    );

    let set = ok(&dopis(
        d,
        db,
        &["rating", "set", "a@club.test", "1834", "--source", "iccf"],
    ));
    assert_eq!(set.trim(), "a@club.test: rating 1834");
    let again = ok(&dopis(d, db, &["rating", "set", "a@club.test", "1850"]));
    assert_eq!(again.trim(), "a@club.test: rating 1850 (was 1834)");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&dopis(d, db, &["rating", "list", "--format", "json"]))).unwrap();
    assert_eq!(json[0]["rating"], 1850);
    assert_eq!(json[0]["source"], "td");
    assert_eq!(json[0]["provisional"], true);
    assert_eq!(json[0]["k"], 40);
    let csv = ok(&dopis(d, db, &["rating", "list", "--format", "csv"]));
    assert_eq!(
        csv,
        "Rank,Name,Email,Rating,Games,K,Provisional,Source\r\n1,Ana,a@club.test,1850,0,40,yes,td\r\n"
    );
}

crate::on_both_backends!(
    a_rated_event_moves_the_list_as_worked_out_by_hand,
    game_mails_show_the_players_ratings,
    casual_games_and_unrated_events_are_not_rated,
    a_thematic_game_is_rated_only_once_both_players_moved_after_the_line,
    the_command_line_refuses_bad_ratings_clearly,
);
