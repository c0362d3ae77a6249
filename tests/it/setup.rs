//! Setting dopis up as a new club does, through the real binary: a config
//! file read from another folder, a database that was never set up, and
//! `dopis init` on a config written by hand or not yet written.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{TestDb, fails, ok};

/// Runs `dopis` in `dir` with only the settings `args` and the files give:
/// no `DOPIS_DATABASE_URL` or `DOPIS_CONFIG` from the test's environment.
fn dopis_bare(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(dir)
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_DATABASE_URL")
        .args(args)
        .output()
        .expect("run dopis")
}

/// A club's config as a TD writes it: paths relative to the file.
fn club_config(db: &TestDb) -> String {
    let url = if db.url.starts_with("sqlite:") {
        "sqlite://dopis.db".to_string()
    } else {
        db.url.clone()
    };
    format!(
        "# Our club\n[database]\nurl = \"{url}\"\n\n[mail]\naddress = \"chess@club.test\"\n\
         secret = \"0123456789abcdef0123456789abcdef\"\n\n[mail.maildir]\npath = \"mail\"\n"
    )
}

async fn relative_paths_in_a_config_file_are_read_from_its_folder(db: &TestDb) {
    let root = tempfile::tempdir().unwrap();
    let club = root.path().join("club");
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&club).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(club.join("dopis.toml"), club_config(db)).unwrap();
    let config = ["--config", "../club/dopis.toml"];
    let run = |args: &[&str]| dopis_bare(&elsewhere, &[&config[..], args].concat());

    ok(&run(&["init"]));
    for (email, name) in [("ana@players.test", "Ana"), ("bob@players.test", "Bob")] {
        ok(&run(&["player", "add", "--email", email, "--name", name]));
    }
    ok(&run(&[
        "game",
        "new",
        "--white",
        "ana@players.test",
        "--black",
        "bob@players.test",
    ]));
    let listed = ok(&run(&["game", "list"]));
    assert!(listed.contains("Ana - Bob"), "{listed}");
    // The first mails of the game go to the club's Maildir.
    ok(&run(&["serve", "--once"]));
    let sent = std::fs::read_dir(club.join("mail/sent/new"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(sent, 2, "the game's first mails in club/mail/sent/new");

    if db.url.starts_with("sqlite:") {
        assert!(club.join("dopis.db").exists(), "the database is the club's");
    }
    let made_here: Vec<_> = std::fs::read_dir(&elsewhere)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        made_here.is_empty(),
        "nothing made in elsewhere/: {made_here:?}"
    );
}

async fn commands_refuse_a_database_that_was_never_set_up(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let url = db.url.as_str();
    // A config with a secret, so that `serve` gets as far as the database.
    std::fs::write(d.join("dopis.toml"), "[mail]\nsecret = \"s3cret-s3cret\"\n").unwrap();
    for args in [
        &["game", "list"][..],
        &[
            "player",
            "add",
            "--email",
            "ana@players.test",
            "--name",
            "Ana",
        ],
        &["event", "list"],
        &["report", "deadlines"],
        &["serve", "--once"],
    ] {
        let err = fails(&dopis_bare(d, &[&["--database", url][..], args].concat()));
        assert!(
            err.contains("has not been set up") && err.contains("run `dopis init`"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("--database") && err.contains("--config"),
            "{args:?} says how to name the right database: {err}"
        );
    }
    if let Some(file) = url.strip_prefix("sqlite://") {
        assert!(!Path::new(file).exists(), "no empty database was made");
    }
    // Nothing was set up by the refused commands either.
    let err = fails(&dopis_bare(d, &["--database", url, "game", "list"]));
    assert!(err.contains("has not been set up"), "{err}");

    ok(&dopis_bare(d, &["--database", url, "init"]));
    let listed = ok(&dopis_bare(d, &["--database", url, "game", "list"]));
    assert!(!listed.contains("error"), "{listed}");
}

/// A database a newer dopis migrated: an older binary refuses it with what
/// to do, and changes nothing (the newer schema's record stays, nothing
/// else is migrated or written).
async fn an_older_dopis_refuses_a_database_a_newer_one_upgraded(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let url = db.url.as_str();
    ok(&dopis_bare(d, &["--database", url, "init"]));
    let checksum = if url.starts_with("sqlite:") {
        "X'00'"
    } else {
        "'\\x00'::bytea"
    };
    let store = dopis::adapter::store::Store::open(url).await.unwrap();
    dopis::adapter::store::sql::query(dopis::adapter::store::sql::AssertSqlSafe(format!(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (99990001, 'from a newer dopis', TRUE, {checksum}, 0)"
    )))
    .execute(store.pool())
    .await
    .unwrap();
    store.close().await;
    for args in [&["game", "list"][..], &["init"], &["serve", "--once"]] {
        let err = fails(&dopis_bare(d, &[&["--database", url][..], args].concat()));
        assert!(
            err.contains("upgraded by a newer dopis")
                && err.contains("version 99990001")
                && err.contains("run the newer dopis"),
            "{args:?}: {err}"
        );
    }
    let err = dopis::adapter::store::Store::open(url)
        .await
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(
            err,
            dopis::adapter::store::StoreError::TooNew {
                found: 99990001,
                ..
            }
        ),
        "{err}"
    );
}

crate::on_both_backends!(
    relative_paths_in_a_config_file_are_read_from_its_folder,
    commands_refuse_a_database_that_was_never_set_up,
    an_older_dopis_refuses_a_database_a_newer_one_upgraded,
);

#[test]
fn a_sqlite_file_that_is_not_a_dopis_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("notes.db");
    let url = format!("sqlite://{}", file.display());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let tables = || {
        rt.block_on(async {
            use sqlx::Connection;
            let mut conn = sqlx::SqliteConnection::connect(&format!("{url}?mode=rwc"))
                .await
                .unwrap();
            sqlx::query("CREATE TABLE IF NOT EXISTS notes (body TEXT)")
                .execute(&mut conn)
                .await
                .unwrap();
            let names: Vec<(String,)> =
                sqlx::query_as("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .fetch_all(&mut conn)
                    .await
                    .unwrap();
            conn.close().await.unwrap();
            names.into_iter().map(|(n,)| n).collect::<Vec<_>>()
        })
    };
    // Another program's database: a file with a table of its own.
    assert_eq!(tables(), ["notes"]);
    let err = fails(&dopis_bare(
        dir.path(),
        &["--database", &url, "player", "list"],
    ));
    assert!(
        err.contains("has not been set up") && err.contains("no dopis tables"),
        "{err}"
    );
    assert_eq!(tables(), ["notes"], "the file is left alone");
}

#[test]
fn init_adds_a_missing_secret_and_keeps_the_files_comments_and_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let written = "# The club's settings, by hand.\n\
                   [database]\n\
                   url = \"sqlite://club.db\" # next to this file\n\
                   \n\
                   [mail]\n\
                   # Where players write.\n\
                   address = \"chess@club.test\"\n\
                   name = \"Club chess\"\n\
                   \n\
                   [clock]\n\
                   leave_days = 30 # our rule\n";
    std::fs::write(d.join("dopis.toml"), written).unwrap();
    // Without a secret every mail command is refused; init must fix that.
    let out = ok(&dopis_bare(d, &["init"]));
    assert!(
        out.contains("added a [mail] secret to config dopis.toml"),
        "{out}"
    );
    let now = std::fs::read_to_string(d.join("dopis.toml")).unwrap();
    let kept: Vec<&str> = now
        .lines()
        .filter(|l| !l.trim_start().starts_with("secret"))
        .collect();
    assert_eq!(kept, written.lines().collect::<Vec<_>>(), "{now}");
    let secret = now
        .lines()
        .find_map(|l| l.strip_prefix("secret = \""))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or_else(|| panic!("a secret line in {now}"));
    assert_eq!(secret.len(), 32, "{now}");
    let after_name = now.find("name = ").unwrap() < now.find("secret = ").unwrap()
        && now.find("secret = ").unwrap() < now.find("[clock]").unwrap();
    assert!(after_name, "the secret goes into [mail]: {now}");
    assert!(d.join("club.db").exists());
    // The daemon starts now (it refused an empty secret).
    ok(&dopis_bare(d, &["serve", "--once"]));

    // A second init leaves the file as it is.
    let again = ok(&dopis_bare(d, &["init"]));
    assert!(again.contains("left as it is"), "{again}");
    assert_eq!(std::fs::read_to_string(d.join("dopis.toml")).unwrap(), now);
}

#[test]
fn init_adds_a_secret_to_a_config_without_a_mail_table_or_with_an_empty_one() {
    for written in [
        "[database]\nurl = \"sqlite://a.db\"\n",
        "[mail]\naddress = \"chess@club.test\"\nsecret = \"\" # none yet\n",
        "[mail.maildir]\npath = \"box\"\n",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("dopis.toml"), written).unwrap();
        let out = ok(&dopis_bare(d, &["init"]));
        assert!(out.contains("added a [mail] secret"), "{written}: {out}");
        ok(&dopis_bare(d, &["serve", "--once"]));
    }
}

/// A config mounted read-only (a container, a service) with the secret in
/// DOPIS_MAIL_SECRET: `init` leaves the file alone and sets up the database.
#[test]
fn init_with_the_secret_in_the_environment_leaves_the_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let written = "[database]\nurl = \"sqlite://club.db\"\n";
    std::fs::write(d.join("dopis.toml"), written).unwrap();
    let out = ok(&Command::new(env!("CARGO_BIN_EXE_dopis"))
        .current_dir(d)
        .env_remove("DOPIS_CONFIG")
        .env_remove("DOPIS_DATABASE_URL")
        .env("DOPIS_MAIL_SECRET", "0123456789abcdef0123456789abcdef")
        .arg("init")
        .output()
        .expect("run dopis"));
    assert!(out.contains("left as it is"), "{out}");
    assert_eq!(
        std::fs::read_to_string(d.join("dopis.toml")).unwrap(),
        written
    );
    assert!(d.join("club.db").exists(), "{out}");
}

#[test]
fn init_leaves_a_config_with_a_mistake_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let written = "[mail]\nadress = \"chess@club.test\"\n";
    std::fs::write(d.join("dopis.toml"), written).unwrap();
    let err = fails(&dopis_bare(d, &["init"]));
    assert!(err.contains("unknown field `adress`"), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("dopis.toml")).unwrap(),
        written
    );
    assert!(!d.join("dopis.db").exists());
}

#[test]
fn init_with_a_new_config_file_writes_it_there() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("club")).unwrap();
    let out = ok(&dopis_bare(d, &["--config", "club/new.toml", "init"]));
    assert!(out.contains("wrote example config club/new.toml"), "{out}");
    let text = std::fs::read_to_string(d.join("club/new.toml")).unwrap();
    assert!(
        !text.contains("secret = \"\""),
        "a secret is written: {text}"
    );
    // Its database is the file's neighbour, as its relative URL says.
    assert!(d.join("club/dopis.db").exists());
    assert!(!d.join("dopis.db").exists());
    ok(&dopis_bare(
        d,
        &["--config", "club/new.toml", "player", "list"],
    ));
    // A folder that is not there yet is made.
    ok(&dopis_bare(d, &["--config", "new/club/dopis.toml", "init"]));
    assert!(d.join("new/club/dopis.toml").exists());
    assert!(d.join("new/club/dopis.db").exists());
}

/// A command line as the demo prints it, split into words (double quotes
/// keep spaces); the comment after `#` left off.
fn words(line: &str) -> Vec<String> {
    let line = line.split(" #").next().unwrap_or(line);
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.trim().chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn the_demo_ends_saying_what_to_do_next_and_those_steps_work() {
    let dir = tempfile::tempdir().unwrap();
    let demo_dir = dir.path().join("demo");
    let demo_arg = demo_dir.display().to_string();
    let out = ok(&dopis_bare(dir.path(), &["demo", "--dir", &demo_arg]));
    // Bob's deadline, in London in winter, reads once.
    assert!(!out.contains(" GMT ("), "{out}");
    // The clocks say the days left: all three at the start of Ana's move
    // (in Slovenian), none for a move of a finished game.
    assert!(out.contains("za to potezo preostalo: 3"), "{out}");
    let (_, over) = out.split_once("Game over").unwrap_or_default();
    let over = over.split("Final state").next().unwrap_or_default();
    assert!(
        over.contains("Clocks: White 0 days used;") && !over.contains("left for this move"),
        "{over}"
    );
    let (_, next) = out
        .split_once("What next")
        .unwrap_or_else(|| panic!("the demo ends with what to do next: {out}"));
    let steps: Vec<Vec<String>> = next
        .lines()
        .filter(|l| l.trim_start().starts_with("dopis "))
        .map(words)
        .collect();
    let names: Vec<String> = steps.iter().map(|s| s[..2].join(" ")).collect();
    assert_eq!(
        names,
        [
            "dopis init",
            "dopis player",
            "dopis player",
            "dopis game",
            "dopis serve"
        ],
        "{next}"
    );
    // Followed in a fresh folder, they set up a club and start its game.
    let club = dir.path().join("club");
    std::fs::create_dir(&club).unwrap();
    for step in &steps {
        let mut args: Vec<&str> = step[1..].iter().map(String::as_str).collect();
        if args == ["serve"] {
            args.push("--once");
        }
        ok(&dopis_bare(&club, &args));
    }
    let sent = std::fs::read_dir(club.join("mail/sent/new"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(sent, 2, "the game's first mails went out");
}
