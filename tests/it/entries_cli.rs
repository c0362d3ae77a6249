//! Entries by mail from the command line, through the real binary, on both
//! databases: `dopis event open FILE` opens an event and says how to enter,
//! a bad `[entries]` table is refused naming the key and the fix with
//! nothing created, and `dopis event entries N` lists, adds and refuses —
//! only for one of the event's TDs.

use crate::support::{TestDb, dopis, fails, ok};

const TD: &str = "td@club.test";

/// A round robin taking entries, with `entries` as the body of its
/// `[entries]` table.
fn file(entries: &str) -> String {
    format!(
        "name = \"Spring open\"\nkind = \"round-robin\"\ntds = [\"{TD}\"]\n\
         time_control = \"10/50d\"\n\n[entries]\n{entries}\n"
    )
}

fn setup(db: &TestDb) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(&dopis(dir.path(), db, &["init"]));
    dir
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

async fn event_open_prints_the_number_and_how_to_enter(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    let f = write(
        d,
        "open.toml",
        &file("closes = \"2099-02-01\"\nmin = 4\nmax = 8\nopen_to = \"anyone\""),
    );
    let out = ok(&dopis(d, db, &["event", "open", &f]));
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("1"),
        "the number on a line of its own: {out}"
    );
    let how = lines.next().unwrap_or_default();
    assert!(
        how.contains("event #1 is open for entries")
            && how.contains("\"enter 1\" to chess@localhost"),
        "{out}"
    );
    assert!(how.contains("0 players who asked"), "{out}");
    let list = ok(&dopis(d, db, &["event", "list"]));
    assert!(list.contains("1\tSpring open\tround-robin\topen"), "{list}");
    let none = ok(&dopis(d, db, &["event", "entries", "1"]));
    assert_eq!(none.trim(), "event #1 has no entries yet");
}

async fn a_bad_entries_table_is_refused_naming_the_key_and_creates_nothing(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    let before = ok(&dopis(d, db, &["event", "list"]));
    let olympiad = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/events/olympiad.toml"),
    )
    .unwrap();
    let (head, teams) = olympiad.split_once("[[teams]]").unwrap();
    let olympiad = format!("{head}[entries]\ncloses = \"2099-01-01\"\n\n[[teams]]{teams}");
    let team_match = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/events/team-match.toml"),
    )
    .unwrap();
    let (head, teams) = team_match.split_once("[[teams]]").unwrap();
    let team_match = format!("{head}[stages]\ngroups = 2\nqualify = 2\n\n[[teams]]{teams}");
    let no_entries = format!(
        "name = \"X\"\nkind = \"round-robin\"\ntds = [\"{TD}\"]\n\
         [[players]]\nemail = \"a@club.test\"\nname = \"A\"\n\
         [[players]]\nemail = \"b@club.test\"\nname = \"B\"\n\
         [[players]]\nemail = \"c@club.test\"\nname = \"C\"\n"
    );
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "no [entries]",
            no_entries,
            &["has no [entries] table", "dopis event create"],
        ),
        (
            "closes passed",
            file("closes = \"2020-01-01\""),
            &["entries.closes (2020-01-01 23:59 UTC) has passed", "later"],
        ),
        (
            "no closes",
            file("max = 8"),
            &["entries.closes: is missing", "closes = \"2027-02-01\""],
        ),
        (
            "min = 1",
            file("closes = \"2099-01-01\"\nmin = 1"),
            &["line 8, entries.min: must be a number of entrants from 3 to 100"],
        ),
        (
            "max < min",
            file("closes = \"2099-01-01\"\nmin = 6\nmax = 4"),
            &["line 9, entries.max: is less than entries.min (6); make max at least min"],
        ),
        (
            "open_to = all",
            file("closes = \"2099-01-01\"\nopen_to = \"all\""),
            &[
                "line 8, entries.open_to: must be \"players\"",
                "or \"anyone\"",
            ],
        ),
        (
            "a bad date",
            file("closes = \"next friday\""),
            &["line 7, entries.closes: \"next friday\" is no date; write a date (\"2027-02-01\")"],
        ),
        (
            "a bad opens",
            file("opens = \"soon\"\ncloses = \"2099-01-01\""),
            &["line 7, entries.opens: \"soon\" is no date"],
        ),
        (
            "closes before opens",
            file("opens = \"2099-02-01\"\ncloses = \"2099-01-01\""),
            &["entries.closes: is not after entries.opens"],
        ),
        (
            "rating_max < rating_min",
            file("closes = \"2099-01-01\"\nrating_min = 2000\nrating_max = 1800"),
            &["line 9, entries.rating_max: is below entries.rating_min (2000)"],
        ),
        (
            "a bad rating",
            file("closes = \"2099-01-01\"\nrating_min = -5"),
            &["entries.rating_min: must be a rating from 0 to 4000"],
        ),
        (
            "a bad invited address",
            file("closes = \"2099-01-01\"\ninvited = [\"a@club.test\", \"bob.club.test\"]"),
            &[
                "entries.invited[2]: 'bob.club.test' is not an e-mail address (there is no @)",
                "name@example.org",
            ],
        ),
        (
            "promotes without sections",
            file("closes = \"2099-01-01\"\npromotes = { place = 1, to = \"Higher\" }"),
            &["line 8, entries.promotes: promotions need sections: add section_size"],
        ),
        (
            "promotes without to",
            file("closes = \"2099-01-01\"\nsection_size = 5\npromotes = { place = 1 }"),
            &["line 9, entries.promotes.to: is missing", "to = \"Higher\""],
        ),
        (
            "promotes a place no section has",
            file(
                "closes = \"2099-01-01\"\nsection_size = 5\npromotes = { place = 5, to = \"Higher\" }",
            ),
            &[
                "line 9, entries.promotes.place: must be a place from 1 to 4 (below the section's size, 5)",
            ],
        ),
        (
            "promotes 120%",
            file(
                "closes = \"2099-01-01\"\nsection_size = 5\npromotes = { percent = 120, to = \"Higher\" }",
            ),
            &["line 9, entries.promotes.percent: must be a share of the points from 1 to 100"],
        ),
        (
            "promotes nothing",
            file("closes = \"2099-01-01\"\nsection_size = 5\npromotes = { to = \"Higher\" }"),
            &[
                "line 9, entries.promotes: says nothing earns the qualification",
                "percent = 65",
            ],
        ),
        (
            "promotes an unknown key",
            file(
                "closes = \"2099-01-01\"\nsection_size = 5\npromotes = { rank = 1, to = \"Higher\" }",
            ),
            &["rank"],
        ),
        (
            "an empty requires",
            file("closes = \"2099-01-01\"\nrequires = \" \""),
            &["line 8, entries.requires: must name the qualification an entrant needs"],
        ),
        (
            "an unknown key",
            file("closes = \"2099-01-01\"\nmaximum = 8"),
            &["maximum"],
        ),
        (
            "a team match in stages",
            team_match,
            &[
                "stages: a team match is one match and has no stages",
                "as an olympiad with [stages]",
            ],
        ),
        (
            "an olympiad",
            olympiad,
            &["entries: entries by mail are taken for round robins and Swiss events only"],
        ),
    ];
    for (what, text, want) in cases {
        let f = write(d, "bad.toml", &text);
        let out = dopis(d, db, &["event", "open", &f]);
        assert!(!out.status.success(), "{what}: should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("event file bad.toml"), "{what}: {err}");
        for w in want {
            assert!(err.contains(w), "{what}: {w:?} in {err}");
            if w.starts_with("line ") {
                assert_eq!(err.matches(w).count(), 1, "{what}: said once: {err}");
            }
        }
        assert!(out.stdout.is_empty(), "{what}: printed {:?}", out.stdout);
    }
    // `event create` of a file with [entries] would make an event that
    // never takes any: it points to `event open`.
    let f = write(d, "open.toml", &file("closes = \"2099-01-01\""));
    let err = fails(&dopis(d, db, &["event", "create", &f]));
    assert!(
        err.contains("has an [entries] table") && err.contains("dopis event open FILE"),
        "{err}"
    );
    assert_eq!(ok(&dopis(d, db, &["event", "list"])), before);
    let players = ok(&dopis(d, db, &["player", "list"]));
    assert!(!players.contains("club.test"), "{players}");
}

async fn event_entries_lists_adds_and_refuses_for_a_td_only(db: &TestDb) {
    let dir = setup(db);
    let d = dir.path();
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            "ana@club.test",
            "--name",
            "Ana Novak",
        ],
    ));
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            "outsider@club.test",
            "--name",
            "Oto",
        ],
    ));
    let f = write(d, "open.toml", &file("closes = \"2099-02-01\"\nmax = 6"));
    ok(&dopis(d, db, &["event", "open", &f]));
    let entries = |extra: &[&str]| {
        let mut args = vec!["event", "entries", "1"];
        args.extend_from_slice(extra);
        dopis(d, db, &args)
    };

    // A registered player, and a new address registered with its name.
    let added = ok(&entries(&["--add", "ana@club.test", "--by", TD]));
    assert_eq!(added.trim(), "confirmed  Ana Novak <ana@club.test>");
    let added = ok(&entries(&[
        "--add",
        "Zoe@Outside.test",
        "--name",
        "Zoe Zupan",
        "--lang",
        "sl",
        "--by",
        TD,
    ]));
    assert!(
        added.contains("confirmed  Zoe Zupan <zoe@outside.test>"),
        "{added}"
    );
    let zoe = ok(&dopis(d, db, &["player", "show", "zoe@outside.test"]));
    assert!(zoe.contains("sl (Slovenian)"), "{zoe}");

    // Refused, each with its reason and nothing changed.
    let before = ok(&entries(&["--format", "json"]));
    let refusals: &[(&[&str], &str)] = &[
        (
            &["--add", "ana@club.test", "--by", TD],
            "ana@club.test has entered event #1 already",
        ),
        (
            &["--add", "new@outside.test", "--by", TD],
            "new@outside.test is not registered: give --name",
        ),
        (&["--refuse", "ana@club.test", "--by", TD], "--reason"),
        (
            &["--refuse", "ana@club.test", "--reason", "  ", "--by", TD],
            "say why with --reason TEXT",
        ),
        (
            &["--refuse", "nobody@club.test", "--reason", "x", "--by", TD],
            "nobody@club.test has no entry in event #1",
        ),
        (
            &["--add", "outsider@club.test"],
            "say which TD makes the change with --by EMAIL",
        ),
        (
            &["--refuse", "ana@club.test", "--reason", "x"],
            "say which TD makes the change with --by EMAIL",
        ),
        (
            &["--add", "outsider@club.test", "--by", "ana@club.test"],
            "ana@club.test is not a TD of event",
        ),
        (
            &["--add", "outsider@club.test", "--refuse", "ana@club.test"],
            "cannot be used with",
        ),
        (&["--name", "Oto"], "--add"),
    ];
    for (args, want) in refusals {
        let err = fails(&entries(args));
        assert!(err.contains(want), "{args:?}: {want:?} in {err}");
    }
    assert_eq!(ok(&entries(&["--format", "json"])), before);
    let none = fails(&dopis(d, db, &["event", "entries", "9"]));
    assert!(none.contains("no event #9"), "{none}");

    // A refusal with its reason; the list says it, in text and JSON.
    let refused = ok(&entries(&[
        "--refuse",
        "zoe@outside.test",
        "--reason",
        "not a club member",
        "--by",
        TD,
    ]));
    assert!(
        refused.contains("refused    Zoe Zupan <zoe@outside.test>: not a club member"),
        "{refused}"
    );
    let again = fails(&entries(&[
        "--refuse",
        "zoe@outside.test",
        "--reason",
        "twice",
        "--by",
        TD,
    ]));
    assert!(again.contains("is refused already"), "{again}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(&entries(&["--format", "json"]))).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), 2, "{json:#}");
    let zoe = list
        .iter()
        .find(|e| e["email"] == "zoe@outside.test")
        .unwrap();
    assert_eq!(zoe["status"], "refused");
    assert_eq!(zoe["reason"], "not a club member");
    let ana = list.iter().find(|e| e["email"] == "ana@club.test").unwrap();
    assert_eq!(ana["status"], "confirmed");
    assert_eq!(ana["name"], "Ana Novak");

    // An event that takes no entries says so.
    let plain = write(
        d,
        "plain.toml",
        &format!(
            "name = \"Plain\"\nkind = \"round-robin\"\ntds = [\"{TD}\"]\n\
             [[players]]\nemail = \"a@club.test\"\nname = \"A\"\n\
             [[players]]\nemail = \"b@club.test\"\nname = \"B\"\n\
             [[players]]\nemail = \"c@club.test\"\nname = \"C\"\n"
        ),
    );
    let id = ok(&dopis(d, db, &["event", "create", &plain]));
    let err = fails(&dopis(d, db, &["event", "entries", id.trim()]));
    assert!(err.contains("takes no entries by mail"), "{err}");
}

crate::on_both_backends!(
    event_open_prints_the_number_and_how_to_enter,
    a_bad_entries_table_is_refused_naming_the_key_and_creates_nothing,
    event_entries_lists_adds_and_refuses_for_a_td_only,
);
