//! `dopis backup FILE` through the real binary: a consistent SQLite copy
//! taken while `dopis serve` runs on the same database, which then opens as
//! a club of its own; PostgreSQL is pointed to `pg_dump`, and the admins' guide's
//! `pg_dump` / `pg_restore` lines, run while `serve` runs, give the same club.

use std::process::{Command, Stdio};

use crate::support::{TestDb, dopis, fails, ok};

async fn a_backup_taken_while_serve_runs_holds_the_same_club(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("dopis.toml"),
        "[mail]\naddress = \"chess@club.test\"\nsecret = \"s3cret-s3cret\"\n\n[mail.maildir]\npath = \"mail\"\n",
    )
    .unwrap();
    ok(&dopis(d, db, &["init"]));
    for (email, name) in [("ana@players.test", "Ana"), ("bob@players.test", "Bob")] {
        ok(&dopis(
            d,
            db,
            &["player", "add", "--email", email, "--name", name],
        ));
    }
    ok(&dopis(
        d,
        db,
        &[
            "game",
            "new",
            "--white",
            "ana@players.test",
            "--black",
            "bob@players.test",
        ],
    ));
    let backup = d.join("club-backup.db");
    let backup_arg = backup.to_str().unwrap();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(d)
        .env_remove("DOPIS_CONFIG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The daemon has the database open (its lease taken) before the copy.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    if !db.url.starts_with("sqlite:") {
        let err = fails(&dopis(d, db, &["backup", backup_arg]));
        assert!(
            err.contains("pg_dump") && err.contains("docs/admin.md"),
            "{err}"
        );
        assert!(!backup.exists());
        let restored = pg_dump_and_restore(db, &d.join("club.dump")).await;
        let _ = serve.kill();
        let _ = serve.wait();
        let original = ok(&dopis(d, db, &["game", "list", "--format", "json"]));
        let copied = ok(&dopis(d, &restored, &["game", "list", "--format", "json"]));
        assert_eq!(copied, original);
        assert!(copied.contains("Ana"), "{copied}");
        return;
    }
    let said = ok(&dopis(d, db, &["backup", backup_arg]));
    assert!(said.contains("backed up the database to"), "{said}");
    let err = fails(&dopis(d, db, &["backup", backup_arg]));
    assert!(
        err.contains("exists") && err.contains("never overwrites"),
        "{err}"
    );
    let nowhere = d.join("no-such-folder/b.db");
    let err = fails(&dopis(d, db, &["backup", nowhere.to_str().unwrap()]));
    assert!(err.contains("does not exist"), "{err}");
    let _ = serve.kill();
    let _ = serve.wait();

    let original = ok(&dopis(d, db, &["game", "list", "--format", "json"]));
    let copy = format!("sqlite://{backup_arg}");
    let on_copy = |args: &[&str]| ok(&dopis(d, db, &[&["--database", &copy][..], args].concat()));
    let copied = on_copy(&["game", "list", "--format", "json"]);
    assert_eq!(copied, original);
    assert!(copied.contains("Ana"), "{copied}");
    let players = on_copy(&["player", "list"]);
    assert!(players.contains("Bob"), "{players}");
}

/// The admins' guide's PostgreSQL backup and restore: `pg_dump --format=custom`
/// of the live database, `pg_restore --no-owner` into a new, empty one.
async fn pg_dump_and_restore(db: &TestDb, file: &std::path::Path) -> TestDb {
    let libpq = |url: &str| {
        url.split_once('?')
            .map_or(url, |(base, _)| base)
            .to_string()
    };
    let dumped = Command::new("pg_dump")
        .args(["--format=custom", "--file"])
        .arg(file)
        .arg(libpq(&db.url))
        .output()
        .expect("pg_dump runs");
    assert!(dumped.status.success(), "pg_dump: {dumped:?}");
    let restored = crate::support::postgres().await.expect("a second database");
    let back = Command::new("pg_restore")
        .args(["--no-owner", "--exit-on-error", "--dbname"])
        .arg(libpq(&restored.url))
        .arg(file)
        .output()
        .expect("pg_restore runs");
    assert!(back.status.success(), "pg_restore: {back:?}");
    restored
}

crate::on_both_backends!(a_backup_taken_while_serve_runs_holds_the_same_club);
