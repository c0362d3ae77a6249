//! Data that lasts: `dopis export` and `dopis import` move a club from
//! SQLite to PostgreSQL and back, and the moved club plays on;
//! `dopis player forget` leaves no trace of a person; retention prunes old
//! mail bodies and inbound records and nothing exactly-once needs.

use chrono::Duration;
use dopis::adapter::store::Store;
use dopis::adapter::store::dump::Value;
use dopis::service::Handled;
use dopis::service::retention::{self, Retention};

use crate::club::Club;
use crate::support::app::TestApp;
use crate::support::mail::Mail;
use crate::support::{TestDb, dopis, fails, ok};

/// Four more players in a single round robin (games 2 to 7), rated.
const CUP: &str = r#"
name = "Winter cup"
kind = "round-robin"
time_control = "3d"
tds = ["td@club.test"]

[[players]]
email = "cid@players.test"
name = "Cid"

[[players]]
email = "dan@players.test"
name = "Dan"

[[players]]
email = "eve@players.test"
name = "Eve"

[[players]]
email = "fay@players.test"
name = "Fay"
"#;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// The games as `game list --format json` shows them.
fn games(club: &Club, db: &TestDb) -> Vec<serde_json::Value> {
    json(&ok(&dopis(
        club.path(),
        db,
        &["game", "list", "--format", "json"],
    )))
    .as_array()
    .unwrap()
    .clone()
}

/// A club with something in every corner: players with settings, a
/// friendly game with moves, a message and a standing draw offer; a started
/// round robin with a resigned game, a TD's result and unfinished games;
/// leave; start ratings.
fn populate(db: &TestDb) -> Club {
    let club = Club::new(db);
    let cup = club.path().join("cup.toml");
    std::fs::write(&cup, CUP).unwrap();
    let event = ok(&dopis(
        club.path(),
        db,
        &["event", "create", cup.to_str().unwrap()],
    ));
    let event = event.trim();
    ok(&dopis(club.path(), db, &["event", "start", event]));
    ok(&dopis(
        club.path(),
        db,
        &[
            "rating",
            "set",
            "cid@players.test",
            "1800",
            "--source",
            "fide",
        ],
    ));
    ok(&dopis(
        club.path(),
        db,
        &[
            "leave",
            "add",
            "--email",
            "dan@players.test",
            "2027-03-01",
            "2027-03-05",
        ],
    ));
    ok(&club.serve_once(db, None));
    club.reply("alice@players.test", "e4");
    ok(&club.serve_once(db, None));
    club.reply("bob@players.test", "e5\r\nGood luck, Alice!");
    ok(&club.serve_once(db, None));
    club.reply("alice@players.test", "Nf3 draw");
    // Cid resigns the event game he has White in; the TD decides another.
    club.reply("cid@players.test", "resign");
    ok(&club.serve_once(db, None));
    let active: Vec<i64> = games(&club, db)
        .iter()
        .filter(|g| g["status"] == "active" && g["id"] != 1)
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    ok(&dopis(
        club.path(),
        db,
        &[
            "game",
            "result",
            &active[0].to_string(),
            "1-0",
            "--reason",
            "agreed by phone",
            "--by",
            "td@club.test",
        ],
    ));
    ok(&club.serve_once(db, None));
    club
}

/// Writes an export of `db` to a new file in the club and returns its text.
fn export(club: &Club, db: &TestDb, name: &str) -> String {
    let file = club.path().join(name);
    let said = ok(&dopis(club.path(), db, &["export", file.to_str().unwrap()]));
    assert!(said.contains("exported"), "{said}");
    std::fs::read_to_string(file).unwrap()
}

/// Sets up `db` (`dopis init`, the club's config) and imports `file` into it.
fn import(club: &Club, db: &TestDb, file: &str) -> String {
    ok(&dopis(club.path(), db, &["init"]));
    ok(&dopis(club.path(), db, &["import", file]))
}

/// `player` answers the newest "your move" mail of game `game` with `text`.
fn reply_in(club: &Club, player: &str, game: i64, text: &str) {
    let tag = format!("#{game}]");
    let mail = club
        .sent_mails()
        .into_iter()
        .rev()
        .find(|m| m.to == player && m.subject.contains("Your move") && m.subject.contains(&tag))
        .unwrap_or_else(|| panic!("{player} has no 'your move' mail of game {game}"));
    club.reply_to_mail(&mail, text);
}

/// What two exports must agree on: everything but when and from where.
fn content(text: &str) -> (serde_json::Value, serde_json::Value) {
    let doc = json(text);
    (doc["schema"].clone(), doc["tables"].clone())
}

fn rows_of<'a>(text: &'a serde_json::Value, table: &str) -> &'a Vec<serde_json::Value> {
    text["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == table)
        .unwrap_or_else(|| panic!("no table {table}"))["rows"]
        .as_array()
        .unwrap()
}

/// Moves `from` (populated) into `to` and back into `back` (both new),
/// checking each export equals the last, then that the club plays on in
/// each new home.
fn moving_keeps_everything(from: &TestDb, to: &TestDb, back: &TestDb) {
    let club = populate(from);
    let first = export(&club, from, "first.json");
    let doc = json(&first);
    assert_eq!(doc["format"], "dopis-export");
    assert_eq!(doc["version"], 1);
    for table in [
        "players",
        "games",
        "moves",
        "events",
        "event_tds",
        "entrants",
        "td_actions",
        "inbound",
        "outbox",
        "leave_bookings",
        "ratings",
        "rating_history",
        "game_messages",
    ] {
        assert!(!rows_of(&doc, table).is_empty(), "{table} is empty");
    }
    // The times moves reached the mailbox travel with them.
    assert!(
        rows_of(&doc, "moves").iter().all(|m| m[4].is_i64()),
        "{:?}",
        rows_of(&doc, "moves")
    );
    let said = import(&club, to, club.path().join("first.json").to_str().unwrap());
    assert!(said.contains("imported"), "{said}");
    let second = export(&club, to, "second.json");
    assert_eq!(content(&first), content(&second));

    // A second import is refused, and changes nothing.
    let err = fails(&dopis(club.path(), to, &["import", "first.json"]));
    assert!(
        err.contains("is not empty") && err.contains("Nothing was changed"),
        "{err}"
    );
    assert_eq!(content(&export(&club, to, "again.json")), content(&second));

    // The club plays on: Bob answers the mail he got before the move (its
    // reply address and token still match), and new rows get new ids.
    reply_in(&club, "bob@players.test", 1, "Nc6");
    ok(&club.serve_once(to, None));
    assert_eq!(club.moves(to), ["e4", "e5", "Nf3", "Nc6"]);
    club.add_player(to, "gus@players.test", "Gus");
    let id = club.new_game(to, "gus@players.test", "alice@players.test");
    assert_eq!(id, 8, "the next game after 7");
    ok(&club.serve_once(to, None));
    club.reply("gus@players.test", "d4");
    ok(&club.serve_once(to, None));
    assert_eq!(club.moves_of(to, 8), ["d4"]);

    // And back again.
    let third = export(&club, to, "third.json");
    import(
        &club,
        back,
        club.path().join("third.json").to_str().unwrap(),
    );
    let fourth = export(&club, back, "fourth.json");
    assert_eq!(content(&third), content(&fourth));
    let id = club.new_game(back, "gus@players.test", "bob@players.test");
    assert_eq!(id, 9);
    reply_in(&club, "alice@players.test", 1, "Bb5");
    ok(&club.serve_once(back, None));
    assert_eq!(club.moves(back), ["e4", "e5", "Nf3", "Nc6", "Bb5"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_club_moves_from_sqlite_to_postgres_and_back_whole() {
    let Some(to) = crate::support::postgres().await else {
        return;
    };
    moving_keeps_everything(&crate::support::sqlite(), &to, &crate::support::sqlite());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_club_moves_from_postgres_to_sqlite_and_back_whole() {
    let (Some(from), Some(back)) = (
        crate::support::postgres().await,
        crate::support::postgres().await,
    ) else {
        return;
    };
    moving_keeps_everything(&from, &crate::support::sqlite(), &back);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_club_moves_from_sqlite_to_sqlite_whole() {
    let (a, b, c) = (
        crate::support::sqlite(),
        crate::support::sqlite(),
        crate::support::sqlite(),
    );
    moving_keeps_everything(&a, &b, &c);
}

/// A newer, broken, foreign or wrongly typed file, or one made under
/// another secret, is refused with a clear message, and the database stays
/// empty (the good file imports afterwards).
async fn a_bad_export_is_refused_and_changes_nothing(db: &TestDb) {
    let source = crate::support::sqlite();
    let club = Club::new(&source);
    ok(&club.serve_once(&source, None));
    let good = export(&club, &source, "good.json");
    ok(&dopis(club.path(), db, &["init"]));
    let refused = |name: &str, text: &str| {
        std::fs::write(club.path().join(name), text).unwrap();
        fails(&dopis(club.path(), db, &["import", name]))
    };
    let err = refused("cut.json", &good[..good.len() / 2]);
    assert!(
        err.contains("not complete JSON") && err.contains("Nothing was changed"),
        "{err}"
    );
    let err = refused(
        "newer.json",
        &good.replace("\"version\":1", "\"version\":2"),
    );
    assert!(
        err.contains("newer dopis") && err.contains("format version 2"),
        "{err}"
    );
    // The schema the export carries is the newest migration's number,
    // which grows with every migration.
    let schema: String = good
        .split("\"schema\":")
        .nth(1)
        .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect())
        .expect("the export names its schema");
    let err = refused(
        "schema.json",
        &good.replace(&format!("\"schema\":{schema}"), "\"schema\":99"),
    );
    assert!(
        err.contains("newer dopis") && err.contains("schema 99"),
        "{err}"
    );
    let err = refused("foreign.json", "{\"players\": []}");
    assert!(err.contains("is not a dopis export"), "{err}");
    // A row the database refuses (a game without a time control) half-way
    // through: everything before it is rolled back.
    let mut doc = json(&good);
    let games = doc["tables"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["name"] == "games")
        .unwrap();
    let at = games["columns"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c[0] == "time_control")
        .unwrap();
    games["rows"][0][at] = serde_json::Value::Null;
    let err = refused("null.json", &doc.to_string());
    assert!(err.contains("Nothing was changed"), "{err}");
    // Another secret: refused unless asked for.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(
        other.path().join("dopis.toml"),
        "[mail]\naddress = \"chess@chess.test\"\nsecret = \"another-secret\"\n",
    )
    .unwrap();
    std::fs::write(other.path().join("good.json"), &good).unwrap();
    let err = fails(&dopis(other.path(), db, &["import", "good.json"]));
    assert!(
        err.contains("another [mail] secret") && err.contains("--new-secret"),
        "{err}"
    );
    // Nothing of all that stayed: the good file goes in whole.
    ok(&dopis(club.path(), db, &["import", "good.json"]));
    assert_eq!(
        content(&export(&club, db, "after.json")),
        content(&good),
        "imported whole"
    );
}

/// Every text (and every stored mail) in the database, for searching.
async fn everything_in(db: &TestDb) -> Vec<(String, String, String)> {
    let store = Store::open(&db.url).await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let mut found = Vec::new();
    for table in tx.table_names().await.unwrap() {
        if table == "_sqlx_migrations" {
            continue;
        }
        let columns = tx.columns(&table).await.unwrap();
        for row in tx.rows(&table, &columns).await.unwrap() {
            for (value, column) in row.iter().zip(&columns) {
                let text = match value {
                    Value::Text(t) => t.clone(),
                    Value::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                    _ => continue,
                };
                found.push((table.clone(), column.name.clone(), text));
            }
        }
    }
    drop(tx);
    store.close().await;
    found
}

/// Alice plays two games, writes Bob a message, books leave; while her
/// games run she cannot be forgotten; once they are over, she is, and
/// nothing in the database names her, while her games stay in the lists.
async fn a_forgotten_player_leaves_no_trace_but_her_finished_games(db: &TestDb) {
    let club = Club::new(db);
    club.add_player(db, "cid@players.test", "Cid");
    club.new_game(db, "alice@players.test", "cid@players.test");
    ok(&dopis(
        club.path(),
        db,
        &[
            "leave",
            "add",
            "--email",
            "alice@players.test",
            "2027-03-01",
            "2027-03-02",
            "--reason",
            "Alice's wedding",
        ],
    ));
    ok(&club.serve_once(db, None));
    reply_in(
        &club,
        "alice@players.test",
        1,
        "e4\r\nHi Bob, this is Alice from Alice@Players.test",
    );
    ok(&club.serve_once(db, None));
    reply_in(&club, "bob@players.test", 1, "e5\r\nHi Alice!");
    ok(&club.serve_once(db, None));

    let err = fails(&dopis(
        club.path(),
        db,
        &["player", "forget", "alice@players.test", "--yes"],
    ));
    assert!(
        err.contains("unfinished games (#1, #2)") && err.contains("Nothing was changed"),
        "{err}"
    );
    reply_in(&club, "alice@players.test", 1, "resign");
    ok(&dopis(
        club.path(),
        db,
        &[
            "game",
            "result",
            "2",
            "0-1",
            "--reason",
            "Alice left",
            "--by",
            "td@club.test",
        ],
    ));
    ok(&club.serve_once(db, None));
    let said = ok(&dopis(
        club.path(),
        db,
        &["player", "forget", "alice@players.test"],
    ));
    assert!(
        said.contains("would forget") && said.contains("--yes"),
        "{said}"
    );
    assert!(ok(&dopis(club.path(), db, &["player", "list"])).contains("alice@players.test"));
    let said = ok(&dopis(
        club.path(),
        db,
        &["player", "forget", "alice@players.test", "--yes"],
    ));
    assert!(said.contains("Forgotten player 1"), "{said}");

    for (table, column, text) in everything_in(db).await {
        let lower = text.to_lowercase();
        assert!(
            !lower.contains("alice@players.test") && !text.contains("Alice"),
            "{table}.{column} still names her: {text:?}"
        );
    }
    // Her games stay, under the placeholder, with their results.
    let list = games(&club, db);
    assert_eq!(list.len(), 2);
    assert!(list.iter().all(|g| g["status"] == "finished"), "{list:?}");
    let shown = ok(&dopis(club.path(), db, &["game", "show", "1"]));
    assert!(shown.contains("Forgotten player 1"), "{shown}");
    assert_eq!(club.moves(db), ["e4", "e5"]);
    // The address is free again, for a new player.
    club.add_player(db, "alice@players.test", "Alice");
    let again = ok(&dopis(
        club.path(),
        db,
        &["player", "show", "alice@players.test"],
    ));
    assert!(again.contains("Alice"), "{again}");
    let err = fails(&dopis(
        club.path(),
        db,
        &["player", "forget", "nobody@players.test"],
    ));
    assert!(err.contains("no player with e-mail"), "{err}");
}

/// The sender the first inbound record keeps.
async fn first_sender(store: &Store) -> Option<String> {
    dopis::adapter::store::sql::query_scalar::<Option<String>>(
        "SELECT sender FROM inbound ORDER BY id LIMIT 1",
    )
    .fetch_one(store.pool())
    .await
    .unwrap()
}

/// Sent bodies go after `outbox_bodies_days`, inbound senders after
/// `inbound_days`; keys stay, so a mail read again still acts once, and
/// the game goes on.
async fn retention_prunes_old_bodies_and_records_but_not_what_acts_once(db: &TestDb) {
    let app = TestApp::builder().open(db).await;
    let ana = app
        .player(
            "ana@players.test",
            "Ana",
            dopis::domain::lang::Lang::En,
            None,
        )
        .await;
    let bor = app
        .player(
            "bor@players.test",
            "Bor",
            dopis::domain::lang::Lang::En,
            None,
        )
        .await;
    let game = app.game(&ana, &bor, "10d".parse().unwrap()).await;
    app.sent().await;
    let first = Mail::new("ana@players.test", &app.reply_address(game, &ana))
        .body("e4")
        .bytes();
    assert!(matches!(app.deliver(&first).await, Handled::Done(_)));
    let early = app.outbox_rows().await.len();
    app.sent().await;
    app.advance(Duration::days(5));
    let reply = Mail::new("bor@players.test", &app.reply_address(game, &bor))
        .body("e5")
        .bytes();
    assert!(matches!(app.deliver(&reply).await, Handled::Done(_)));
    app.sent().await;
    let keep = Retention {
        outbox_bodies: Some(Duration::days(30)),
        inbound: Some(Duration::days(90)),
    };

    // Day 5: nothing is old enough.
    let pruned = retention::prune(&app.store, &keep, app.now())
        .await
        .unwrap();
    assert_eq!(pruned, retention::Pruned::default());
    // Day 31: the first day's mails lose their bodies, the later ones not.
    app.advance(Duration::days(26));
    let pruned = retention::prune(&app.store, &keep, app.now())
        .await
        .unwrap();
    assert_eq!(pruned.outbox_bodies, early as u64);
    assert_eq!(pruned.inbound, 0);
    let rows = app.outbox_rows().await;
    assert!(
        rows[..early]
            .iter()
            .all(|r| r.raw.is_empty() && r.status == "sent")
    );
    assert!(rows[early..].iter().all(|r| !r.raw.is_empty()));
    assert_eq!(
        first_sender(&app.store).await.as_deref(),
        Some("ana@players.test")
    );
    // Day 91: the first mail's record loses its sender, but keeps its key:
    // the same mail read again does nothing.
    app.advance(Duration::days(60));
    let pruned = retention::prune(&app.store, &keep, app.now())
        .await
        .unwrap();
    assert_eq!(pruned.inbound, 1);
    assert_eq!(first_sender(&app.store).await, None);
    assert_eq!(app.deliver(&first).await, Handled::Duplicate);
    assert_eq!(app.moves(game).await, ["e4", "e5"]);
    // A second pruning has nothing left to do, and keeping for ever nothing at all.
    let pruned = retention::prune(&app.store, &keep, app.now())
        .await
        .unwrap();
    assert_eq!(pruned.inbound, 0);
    let pruned = retention::prune(
        &app.store,
        &Retention::for_ever(),
        app.now() + Duration::days(999),
    )
    .await
    .unwrap();
    assert_eq!(pruned, retention::Pruned::default());
}

/// `dopis serve` prunes by `[retention]` in its pass.
async fn serve_prunes_by_the_config(db: &TestDb) {
    let club = Club::with_config(
        db,
        "\n[retention]\noutbox_bodies_days = 1\ninbound_days = 0\n",
    );
    ok(&club.serve_once(db, None));
    let empty = || async {
        let store = Store::open(&db.url).await.unwrap();
        let n: i64 = dopis::adapter::store::sql::query_scalar(
            "SELECT COUNT(*) FROM outbox WHERE status = 'sent' AND pruned_at IS NOT NULL",
        )
        .fetch_one(store.pool())
        .await
        .unwrap();
        store.close().await;
        n
    };
    assert_eq!(empty().await, 0, "sent today: kept");
    ok(&club.serve_once_at(db, None, Some("+2d")));
    assert_eq!(empty().await, 2, "sent two days ago: bodies dropped");
}

crate::on_both_backends!(
    a_bad_export_is_refused_and_changes_nothing,
    a_forgotten_player_leaves_no_trace_but_her_finished_games,
    retention_prunes_old_bodies_and_records_but_not_what_acts_once,
    serve_prunes_by_the_config,
);
