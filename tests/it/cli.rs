//! The `dopis` command line as an admin meets it, on both databases.

use crate::support::{TestDb, dopis, fails, ok};

async fn players_and_games_from_the_command_line(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let init = ok(&dopis(d, db, &["init"]));
    assert!(init.contains("wrote example config dopis.toml"), "{init}");
    assert!(init.contains("is ready"), "{init}");
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            "Alice@players.test",
            "--name",
            "Alice Novak",
            "--lang",
            "sl",
            "--tz",
            "Europe/Ljubljana",
        ],
    ));
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            "bob@players.test",
            "--name",
            "Bob",
        ],
    ));
    let id = ok(&dopis(
        d,
        db,
        &[
            "game",
            "new",
            "--white",
            "alice@players.test",
            "--black",
            "bob@players.test",
        ],
    ));
    let id = id.trim();
    assert!(
        id.parse::<i64>().is_ok(),
        "game new prints the id alone: {id:?}"
    );

    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["game", "show", id, "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["white_player"]["email"], "alice@players.test");
    assert_eq!(json["black_player"]["name"], "Bob");
    assert_eq!(json["time_control"], "3d");
    assert_eq!(json["status"], "active");

    let players: serde_json::Value =
        serde_json::from_str(&ok(&dopis(d, db, &["player", "list", "--format", "json"]))).unwrap();
    assert_eq!(players.as_array().unwrap().len(), 2);
    let shown = ok(&dopis(d, db, &["player", "show", "alice@players.test"]));
    assert!(shown.contains("language:  sl (Slovenian)"), "{shown}");
    let listed = ok(&dopis(d, db, &["game", "list", "--active"]));
    assert!(listed.contains("Alice Novak - Bob"), "{listed}");
}

async fn bad_input_gets_a_one_line_error_naming_the_fix(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    ok(&dopis(
        d,
        db,
        &["player", "add", "--email", "a@players.test", "--name", "A"],
    ));
    let cases: &[(&[&str], &str)] = &[
        (
            &["player", "add", "--email", "a@players.test", "--name", "A"],
            "a player with e-mail a@players.test already exists",
        ),
        (
            &["player", "show", "nobody@players.test"],
            "register them with `dopis player add --email nobody@players.test",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "nobody@players.test",
            ],
            "no player with e-mail nobody@players.test",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "a@players.test",
            ],
            "a player cannot play themselves",
        ),
        (
            &["game", "show", "4242"],
            "no game #4242: `dopis game list` shows the games there are",
        ),
        (
            &["player", "add", "--email", "not-an-address", "--name", "X"],
            "'not-an-address' is not an e-mail address (there is no @); write it as name@example.org",
        ),
        (
            &[
                "player",
                "add",
                "--email",
                "x@players.test",
                "--name",
                "X",
                "--lang",
                "xx",
            ],
            "unknown language 'xx': use one of en, sl, pl, lv",
        ),
        (
            &[
                "player",
                "add",
                "--email",
                "x@players.test",
                "--name",
                "X",
                "--tz",
                "Mars/Base",
            ],
            "unknown time zone 'Mars/Base'",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "b@players.test",
                "--control",
                "3",
            ],
            "write e.g. 3d (3 days per move)",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "b@players.test",
                "--chess960",
                "960",
            ],
            "give a number from 0 to 959",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "b@players.test",
                "--fen",
                "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
            ],
            "Black is to move",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "b@players.test",
                "--fen",
                "nonsense",
            ],
            "is not a valid FEN",
        ),
        (
            &[
                "game",
                "new",
                "--white",
                "a@players.test",
                "--black",
                "b@players.test",
                "--fen",
                "7k/5QQ1/8/8/8/8/8/K7 b - - 0 1",
            ],
            "would be over before it starts",
        ),
        (&["game", "show", "x"], "invalid value 'x'"),
    ];
    for (args, expected) in cases {
        let err = fails(&dopis(d, db, args));
        assert!(
            err.contains(expected),
            "{args:?}: expected {expected:?} in {err:?}"
        );
    }
}

crate::on_both_backends!(
    players_and_games_from_the_command_line,
    bad_input_gets_a_one_line_error_naming_the_fix,
);

mod config {
    use crate::support::{dopis, fails, ok, sqlite};

    #[test]
    fn a_typo_in_the_config_file_is_an_error_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dopis.toml"),
            "[database]\nulr = \"sqlite://x.db\"\n",
        )
        .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(dir.path())
            .env_remove("DOPIS_DATABASE_URL")
            .args(["player", "list"])
            .output()
            .unwrap();
        let err = fails(&out);
        assert!(
            err.contains("config file dopis.toml: line 2: unknown field `ulr`, expected `url`"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_type_in_the_config_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.toml"), "database = 5\n").unwrap();
        let err = fails(&dopis(
            dir.path(),
            &sqlite(),
            &["--config", "c.toml", "player", "list"],
        ));
        assert!(
            err.contains("config file c.toml: line 1: invalid type: integer `5`"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_config_file_named_on_the_command_line_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = fails(&dopis(
            dir.path(),
            &sqlite(),
            &["--config", "nope.toml", "player", "list"],
        ));
        assert!(err.contains("cannot read config file nope.toml"), "{err}");
    }

    #[test]
    fn an_unknown_dopis_variable_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(dir.path())
            .env("DOPIS_DATABSE_URL", "sqlite://x.db")
            .args(["player", "list"])
            .output()
            .unwrap();
        let err = fails(&out);
        assert!(
            err.contains("DOPIS_DATABSE_URL is not a dopis setting"),
            "{err}"
        );
    }

    #[test]
    fn databases_that_cannot_be_opened_say_why_and_hide_passwords() {
        let dir = tempfile::tempdir().unwrap();
        let db = sqlite();
        for (url, command, expected) in [
            (
                "mysql://u:pw@h/d",
                "player",
                "database URL 'mysql://u:***@h/d' is not supported",
            ),
            (
                "sqlite:///nonexistent/dir/x.db",
                "player",
                "database sqlite:///nonexistent/dir/x.db has not been set up for dopis \
                 (there is no file /nonexistent/dir/x.db): run `dopis init`",
            ),
            (
                "sqlite:///nonexistent/dir/x.db",
                "init",
                "cannot open database sqlite:///nonexistent/dir/x.db: unable to open database file",
            ),
            (
                "postgres://u:hunter2@127.0.0.1:1/x",
                "player",
                "cannot open database postgres://u:***@127.0.0.1:1/x: Connection refused",
            ),
        ] {
            let args: &[&str] = match command {
                "init" => &["init"],
                _ => &["player", "list"],
            };
            let err = fails(&dopis(
                dir.path(),
                &db,
                &[&["--database", url][..], args].concat(),
            ));
            assert!(err.contains(expected), "{url}: {err}");
            assert!(!err.contains("hunter2") && !err.contains(":pw@"), "{err}");
        }
    }

    #[test]
    fn help_lists_every_subcommand_with_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let out = ok(&dopis(dir.path(), &sqlite(), &["--help"]));
        for cmd in ["init", "player", "game"] {
            assert!(
                out.lines().any(|l| l.trim_start().starts_with(cmd)),
                "{cmd} missing in {out}"
            );
        }
    }
}
