//! Storage: the same behaviour on SQLite and PostgreSQL.

use chrono::{TimeZone, Utc};
use dopis::adapter::store::games::{GameStatus, NewGame, Variant};
use dopis::adapter::store::{Store, StoreError};
use dopis::domain::address::EmailAddress;
use dopis::domain::chess::game::StartPosition;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::NewPlayer;

use crate::support::TestDb;

fn player(email: &str, name: &str) -> NewPlayer {
    NewPlayer::new(
        EmailAddress::parse(email).unwrap(),
        name,
        Lang::Sl,
        Some("Europe/Ljubljana"),
    )
    .unwrap()
}

async fn players_are_stored_once_per_address(db: &TestDb) {
    let store = Store::open(&db.url).await.unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap();
    let alice = store
        .add_player(&player("alice@players.test", "Alice"), now)
        .await
        .unwrap();
    assert_eq!(alice.lang, Lang::Sl);
    assert_eq!(alice.tz, Some(chrono_tz::Europe::Ljubljana));
    let again = store
        .add_player(&player("ALICE@players.test", "Alice 2"), now)
        .await;
    assert!(matches!(again, Err(StoreError::DuplicatePlayer(e)) if e == "alice@players.test"));
    let found = store
        .player_by_email(&EmailAddress::parse("Alice@Players.test").unwrap())
        .await
        .unwrap();
    assert_eq!(found, alice);
    let missing = store
        .player_by_email(&EmailAddress::parse("zed@players.test").unwrap())
        .await;
    assert!(matches!(missing, Err(StoreError::UnknownPlayer(_))));
    assert_eq!(store.players().await.unwrap().len(), 1);
}

async fn games_keep_their_settings(db: &TestDb) {
    let store = Store::open(&db.url).await.unwrap();
    let now = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap();
    let w = store
        .add_player(&player("w@players.test", "W"), now)
        .await
        .unwrap();
    let b = store
        .add_player(&player("b@players.test", "B"), now)
        .await
        .unwrap();
    let control: TimeControl = "10/50d!20".parse().unwrap();
    let mut tx = store.begin().await.unwrap();
    let id = tx
        .add_game(
            &NewGame {
                white: w.id,
                black: b.id,
                start: StartPosition::Chess960(959),
                time_control: control,
                opening: Vec::new(),
            },
            now,
        )
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let g = store.game(id).await.unwrap();
    assert_eq!((g.white, g.black), (w.id, b.id));
    assert_eq!(g.variant, Variant::Chess960);
    assert_eq!(g.chess960_number, Some(959));
    assert_eq!(g.time_control, control);
    assert_eq!(g.status, GameStatus::Active);
    assert_eq!(g.created_at, now);
    assert!(g.moves.is_empty());
    assert_eq!(g.start(), StartPosition::Chess960(959));
    assert_eq!(
        g.start_fen.as_deref(),
        Some("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1")
    );
    let game = g.to_game().unwrap();
    assert_eq!(game.legal_moves().len(), 20);
    assert_eq!(store.games(true).await.unwrap().len(), 1);
    assert!(matches!(
        store.game(GameId(id.0 + 100)).await,
        Err(StoreError::UnknownGame(_))
    ));
}

async fn reopening_a_database_keeps_its_data(db: &TestDb) {
    let now = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap();
    {
        let store = Store::open(&db.url).await.unwrap();
        store
            .add_player(&player("k@players.test", "K"), now)
            .await
            .unwrap();
        store.close().await;
    }
    let store = Store::open(&db.url).await.unwrap();
    assert_eq!(store.players().await.unwrap().len(), 1);
}

/// sqlx-core 0.9.0's pool maintenance task can spin a core for ever (sqlx
/// issue 3645); it is not started when these options are off.
async fn an_open_store_never_starts_the_pool_task_that_can_spin(db: &TestDb) {
    let store = Store::open(&db.url).await.unwrap();
    // SQLite runs on the store's own pool (src/adapter/store/sql.rs), with no task.
    if let dopis::adapter::store::sql::Pool::Any(pool) = store.pool() {
        let options = pool.options();
        assert_eq!(options.get_idle_timeout(), None);
        assert_eq!(options.get_max_lifetime(), None);
        assert_eq!(options.get_min_connections(), 0);
        assert!(options.get_test_before_acquire());
    }
    store.close().await;
}

/// Opening reads the recorded migrations in one query and skips the
/// migrator when they are exactly this binary's; anything else still goes
/// through the migrator, which refuses a migration changed since it was
/// applied, or one left half done.
async fn a_schema_not_exactly_ours_still_goes_through_the_migrator(db: &TestDb) {
    use sqlx::Connection;
    Store::open(&db.url).await.unwrap().close().await;
    let latest = "version = (SELECT MAX(version) FROM _sqlx_migrations)";
    let edit = |sql: String, checksum: Option<Vec<u8>>| async move {
        let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        if let Some(checksum) = checksum {
            query = query.bind(checksum);
        }
        query.execute(&mut conn).await.unwrap();
        conn.close().await.unwrap();
    };
    let refused = |what: &'static str| async move {
        match Store::open_existing(&db.url).await {
            Err(StoreError::Migrate { .. }) => {}
            Err(other) => panic!("{what}: {other}"),
            Ok(_) => panic!("{what}: opened as if the schema were ours"),
        }
    };
    let original: Vec<u8> = {
        let mut conn = sqlx::AnyConnection::connect(&db.url).await.unwrap();
        let sql = format!("SELECT checksum FROM _sqlx_migrations WHERE {latest}");
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .fetch_one(&mut conn)
            .await
            .unwrap()
    };
    let set_checksum = format!("UPDATE _sqlx_migrations SET checksum = $1 WHERE {latest}");
    edit(set_checksum.clone(), Some(vec![0; original.len()])).await;
    refused("a changed checksum").await;
    edit(set_checksum, Some(original)).await;
    Store::open_existing(&db.url).await.unwrap().close().await;
    edit(
        format!("UPDATE _sqlx_migrations SET success = FALSE WHERE {latest}"),
        None,
    )
    .await;
    refused("a migration left half done").await;
}

crate::on_both_backends!(
    players_are_stored_once_per_address,
    games_keep_their_settings,
    reopening_a_database_keeps_its_data,
    an_open_store_never_starts_the_pool_task_that_can_spin,
    a_schema_not_exactly_ours_still_goes_through_the_migrator,
);

/// A move is on disk before its mail is marked handled: every SQLite
/// connection commits with `synchronous = FULL` in WAL mode (why: see
/// `SqlitePool::open` in src/adapter/store/sql.rs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sqlite_connection_commits_to_disk_before_it_returns() {
    use dopis::adapter::store::sql::query_scalar;
    let db = crate::support::sqlite();
    let store = Store::open(&db.url).await.unwrap();
    // Several connections at once (a transaction holds one), so that more
    // than the first is checked.
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut conn = store.pool().begin().await.unwrap();
        let sync: i64 = query_scalar("PRAGMA synchronous")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(sync, 2, "FULL");
        let mode: String = query_scalar("PRAGMA journal_mode")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(mode, "wal");
        let foreign_keys: i64 = query_scalar("PRAGMA foreign_keys")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(foreign_keys, 1, "foreign keys enforced");
        held.push(conn);
    }
    drop(held);
    store.close().await;
}
