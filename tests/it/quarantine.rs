//! One bad mail or one broken game stays with itself: the real `dopis serve
//! --once` handles every other mail, runs the scheduler and sends, sets the
//! bad one aside (a failed mail is moved out of the inbox byte-exact,
//! recorded with its reason, listed by `dopis failed`, its registered sender
//! told), and says so once, not on every pass.

use crate::club::Club;
use crate::support::{TestDb, dopis, ok};

fn new_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir.join("new"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

/// Runs SQL on the test database (to break a row as a bug or a hand edit would).
async fn sql(db: &TestDb, statement: &str) {
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    dopis::adapter::store::sql::query(dopis::adapter::store::sql::AssertSqlSafe(
        statement.to_string(),
    ))
    .execute(store.pool())
    .await
    .unwrap();
    store.close().await;
}

async fn a_nul_byte_in_a_header_neither_stops_the_daemon_nor_blocks_the_mail_behind_it(
    db: &TestDb,
) {
    let club = Club::new(db);
    ok(&club.serve_once(db, None));
    // PostgreSQL refuses a NUL in a text: on main this stopped every pass.
    club.deliver(
        b"From: stranger\0@nowhere.test\r\nTo: chess@chess.test\r\nSubject: hello\r\n\
          Message-ID: <nul-1@nowhere.test>\r\n\r\nhelp\r\n",
    );
    club.deliver(
        b"From: alice@players.test\0evil\r\nTo: chess@chess.test\r\nSubject: hello\0there\r\n\
          Message-ID: <nul-2@nowhere.test>\r\n\r\nhelp\r\n",
    );
    club.reply("alice@players.test", "e4");
    let out = club.serve_once(db, None);
    ok(&out);
    assert_eq!(club.moves(db), vec!["e4"], "the move behind the bad mails");
    assert!(new_files(&club.inbox()).is_empty(), "every mail was read");
    let to_bob = club.your_move("bob@players.test");
    assert!(to_bob.text.contains("e4"), "{}", to_bob.text);
    // Nothing was attributed to Alice from the mangled From.
    let to_alice: Vec<_> = club
        .sent_mails()
        .into_iter()
        .filter(|m| m.to == "alice@players.test")
        .collect();
    assert!(
        to_alice.iter().all(|m| !m.subject.contains("hello")),
        "{to_alice:?}"
    );
}

async fn a_game_that_cannot_be_loaded_sets_aside_its_mail_and_schedule_and_the_rest_goes_on(
    db: &TestDb,
) {
    let club = Club::new(db);
    club.add_player(db, "carol@players.test", "Carol");
    club.add_player(db, "dave@players.test", "Dave");
    let second = club.new_game(db, "carol@players.test", "dave@players.test");
    ok(&club.serve_once(db, None));
    club.reply("alice@players.test", "e4");
    club.reply("carol@players.test", "d4");
    // Game 1 is broken between Alice's mail and its handling: a stored
    // move no rules allow (a bug or a hand edit).
    sql(
        db,
        "INSERT INTO moves (game_id, ply, uci, san) VALUES (1, 1, 'e2e5', 'e5')",
    )
    .await;
    // …and due for the scheduler, which cannot load it either.
    sql(db, "UPDATE games SET next_due_at = 0 WHERE id = 1").await;
    let first = club.serve_once(db, None);
    ok(&first);
    let log = String::from_utf8_lossy(&first.stderr).to_string();

    // Carol's move in the other game was played, and Dave told.
    assert_eq!(club.moves_of(db, second), vec!["d4"]);
    assert!(club.your_move("dave@players.test").text.contains("d4"));

    // Alice's mail is out of the inbox, kept byte-exact in the failed folder.
    assert!(new_files(&club.inbox()).is_empty(), "inbox emptied");
    let kept = new_files(&club.inbox().join(".failed"));
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept_raw = std::fs::read(&kept[0]).unwrap();
    assert!(String::from_utf8_lossy(&kept_raw).contains("\r\n\r\ne4\r\n"));

    // `dopis failed` lists it (and the game the scheduler could not handle)
    // and shows it byte for byte.
    let list = ok(&dopis(club.path(), db, &["failed", "list"]));
    assert!(list.contains("alice@players.test"), "{list}");
    assert!(list.contains("game #1"), "{list}");
    assert!(list.contains("game:1"), "the stuck schedule: {list}");
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        club.path(),
        db,
        &["failed", "list", "--format", "json"],
    )))
    .unwrap();
    let id = json["mails"][0]["id"].as_i64().unwrap();
    let shown = dopis(club.path(), db, &["failed", "show", &id.to_string()]);
    assert!(shown.status.success());
    assert_eq!(shown.stdout, kept_raw, "shown byte-exact");

    // Alice is told in her language that nothing changed and to send again.
    let told = club
        .sent_mails()
        .into_iter()
        .find(|m| m.to == "alice@players.test" && m.subject.contains("Not handled"))
        .expect("Alice is told");
    let words = told.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("Nothing was changed"), "{}", told.text);
    assert!(
        words.contains("The subject of your mail: Re: [dopis #1] Your move"),
        "{}",
        told.text
    );

    // Logged once: a second pass neither retries the mail nor the game.
    assert_eq!(log.matches("kept for the admin").count(), 1, "{log}");
    assert_eq!(log.matches("put off").count(), 1, "{log}");
    let second_pass = club.serve_once(db, None);
    ok(&second_pass);
    let log2 = String::from_utf8_lossy(&second_pass.stderr);
    assert!(
        !log2.contains("ERROR"),
        "nothing logged as an error again: {log2}"
    );

    // Fixed by the admin, the mail goes back into the inbox and is played
    // at its original arrival time.
    sql(db, "DELETE FROM moves WHERE game_id = 1").await;
    let back = ok(&dopis(
        club.path(),
        db,
        &["failed", "retry", &id.to_string()],
    ));
    assert!(back.contains("back in the inbox"), "{back}");
    assert!(new_files(&club.inbox().join(".failed")).is_empty());
    ok(&club.serve_once(db, None));
    assert_eq!(club.moves(db), vec!["e4"]);
    let list = ok(&dopis(
        club.path(),
        db,
        &["failed", "list", "--format", "json"],
    ));
    let json: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert!(json["mails"].as_array().unwrap().is_empty(), "{list}");
}

/// The daemon handles several mails in one transaction, each after a
/// savepoint of its own: a mail that fails amid others is undone alone,
/// the mails before and after it in the same batch are played once, and
/// nothing is played again on the next pass.
async fn a_failing_mail_amid_a_batch_undoes_only_itself(db: &TestDb) {
    let club = Club::new(db);
    for (address, name) in [
        ("carol@players.test", "Carol"),
        ("dave@players.test", "Dave"),
        ("erin@players.test", "Erin"),
        ("frank@players.test", "Frank"),
    ] {
        club.add_player(db, address, name);
    }
    let second = club.new_game(db, "carol@players.test", "dave@players.test");
    let third = club.new_game(db, "erin@players.test", "frank@players.test");
    ok(&club.serve_once(db, None));
    // In this order in the inbox (it is read by arrival time): a good mail,
    // the one that fails, a good mail.
    for (player, text) in [
        ("carol@players.test", "d4"),
        ("alice@players.test", "e4"),
        ("erin@players.test", "c4"),
    ] {
        club.reply(player, text);
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    sql(
        db,
        "INSERT INTO moves (game_id, ply, uci, san) VALUES (1, 1, 'e2e5', 'e5')",
    )
    .await;
    let first = club.serve_once(db, None);
    ok(&first);
    let log = String::from_utf8_lossy(&first.stderr).to_string();
    assert_eq!(log.matches("kept for the admin").count(), 1, "{log}");
    assert!(new_files(&club.inbox()).is_empty(), "inbox emptied");
    assert_eq!(new_files(&club.inbox().join(".failed")).len(), 1);

    let told = |player: &str| {
        club.sent_mails()
            .into_iter()
            .filter(|m| m.to == player && m.subject.contains("Your move"))
            .count()
    };
    for _pass in 0..2 {
        assert_eq!(club.moves_of(db, second), vec!["d4"]);
        assert_eq!(club.moves_of(db, third), vec!["c4"]);
        assert_eq!(told("dave@players.test"), 1, "Dave told once");
        assert_eq!(told("frank@players.test"), 1, "Frank told once");
        ok(&club.serve_once(db, None));
    }
    // The failed mail left nothing behind (not even its inbound record,
    // which would make it a duplicate): once the game is mended and the
    // mail put back, it is played.
    let list = ok(&dopis(
        club.path(),
        db,
        &["failed", "list", "--format", "json"],
    ));
    let json: serde_json::Value = serde_json::from_str(&list).unwrap();
    let failed = json["mails"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{list}");
    let id = failed[0]["id"].as_i64().unwrap().to_string();
    sql(db, "DELETE FROM moves WHERE game_id = 1").await;
    ok(&dopis(club.path(), db, &["failed", "retry", &id]));
    ok(&club.serve_once(db, None));
    assert_eq!(club.moves(db), vec!["e4"]);
}

async fn a_mail_that_takes_longer_than_its_budget_is_refused_and_kept(db: &TestDb) {
    // A budget no mail can meet: every mail is "too slow" to read.
    let club = Club::with_config(db, "read_budget_ms = 1");
    ok(&club.serve_once(db, None));
    let body = format!("help {}", "<ul><li>".repeat(20_000));
    let raw = format!(
        "From: Bob <bob@players.test>\r\nTo: chess@chess.test\r\nSubject: my move\r\n\
         Message-ID: <slow-1@players.test>\r\nContent-Type: text/html\r\n\r\n{body}\r\n"
    );
    club.deliver(raw.as_bytes());
    let out = club.serve_once(db, None);
    ok(&out);
    assert!(new_files(&club.inbox()).is_empty());
    assert_eq!(new_files(&club.inbox().join(".failed")).len(), 1);
    let told = club
        .sent_mails()
        .into_iter()
        .find(|m| m.to == "bob@players.test" && m.subject.contains("Not handled"))
        .expect("Bob is told");
    assert!(told.text.contains("could not be read"), "{}", told.text);
    assert!(
        told.text.contains("The subject of your mail: my move"),
        "{}",
        told.text
    );
}

async fn a_mail_over_a_cap_is_refused_in_the_sender_s_language_and_kept(db: &TestDb) {
    let club = Club::new(db);
    ok(&dopis(
        club.path(),
        db,
        &[
            "player",
            "add",
            "--email",
            "ewa@players.test",
            "--name",
            "Ewa",
            "--lang",
            "pl",
        ],
    ));
    ok(&club.serve_once(db, None));
    let mut raw = String::from(
        "From: Ewa <ewa@players.test>\r\nTo: chess@chess.test\r\nSubject: moja partia\r\n\
         Message-ID: <parts-1@players.test>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n",
    );
    for i in 0..150 {
        raw.push_str(&format!(
            "--b\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n"
        ));
    }
    raw.push_str("--b--\r\n");
    club.deliver(raw.as_bytes());
    club.reply("alice@players.test", "e4");
    ok(&club.serve_once(db, None));
    assert_eq!(club.moves(db), vec!["e4"], "the mail behind it");
    assert_eq!(new_files(&club.inbox().join(".failed")).len(), 1);
    let told = club
        .sent_mails()
        .into_iter()
        .find(|m| m.to == "ewa@players.test")
        .expect("Ewa is told");
    assert!(told.subject.contains("Nie obsłużono"), "{}", told.subject);
    assert!(
        told.text.contains("151 części MIME") && told.text.contains("najwyżej 100"),
        "{}",
        told.text
    );
}

/// A mail of `mb` megabytes from `from` to `to` with `text`, most of it an
/// attachment; `extra` header lines.
fn huge_mail(from: &str, to: &str, extra: &str, text: &str, mb: usize) -> Vec<u8> {
    let mut raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [dopis #1] Your move\r\n\
         Message-ID: <{:016x}@players.test>\r\n{extra}MIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\n{text}\r\n\
         --b\r\nContent-Type: image/jpeg\r\nContent-Transfer-Encoding: base64\r\n\r\n",
        rand::random::<u64>()
    )
    .into_bytes();
    let line = format!("{}\r\n", "QUJD".repeat(19));
    while raw.len() < mb * 1024 * 1024 {
        raw.extend_from_slice(line.as_bytes());
    }
    raw.extend_from_slice(b"--b--\r\n");
    raw
}

async fn a_mail_over_the_size_cap_is_refused_to_its_registered_sender_and_recorded(db: &TestDb) {
    let club = Club::new(db);
    ok(&club.serve_once(db, None));
    let alice_in = club.your_move("alice@players.test").reply_to.unwrap();
    // Alice's move with a photo too large to read; a stranger's and an
    // auto-reply as large.
    let hers = club.deliver(&huge_mail(
        "Alice <alice@players.test>",
        &alice_in,
        "",
        "e4",
        26,
    ));
    let strangers = club.deliver(&huge_mail("eve@evil.test", &alice_in, "", "e4", 26));
    let machines = club.deliver(&huge_mail(
        "bob@players.test",
        "chess@chess.test",
        "Auto-Submitted: auto-replied\r\n",
        "I am away",
        26,
    ));
    ok(&club.serve_once(db, None));
    assert!(new_files(&club.inbox()).is_empty(), "every mail was read");
    assert!(club.moves(db).is_empty(), "nothing was played");

    // Each is recorded with why; only Alice is told, in her language.
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    for (name, wanted) in [
        (
            &hers,
            "refused: the mail is not read: it is 26.0 MB large, and mails over 25.0 MB are not read; told alice@players.test",
        ),
        (
            &strangers,
            "ignored: the mail is not read: it is 26.0 MB large",
        ),
        (
            &machines,
            "ignored: the mail is not read: it is 26.0 MB large",
        ),
    ] {
        let outcome: String =
            dopis::adapter::store::sql::query("SELECT outcome FROM inbound WHERE mailbox_ref = $1")
                .bind(format!("maildir:{name}"))
                .fetch_one(store.pool())
                .await
                .and_then(|r| r.try_get("outcome"))
                .unwrap_or_else(|e| panic!("mail {name} not recorded: {e}"));
        assert!(outcome.starts_with(wanted), "{outcome}");
    }
    store.close().await;
    let told: Vec<_> = club
        .sent_mails()
        .into_iter()
        .filter(|m| m.subject.contains("Not handled"))
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0].to, "alice@players.test");
    let words = told[0]
        .text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("it is 26.0 MB large, and this server reads mails of up to 25.0 MB"),
        "{}",
        told[0].text
    );

    // Sent again without the photo, the move is played.
    club.reply("alice@players.test", "e4");
    ok(&club.serve_once(db, None));
    assert_eq!(club.moves(db), vec!["e4"]);
}

async fn the_failed_list_says_when_nothing_failed_and_refuses_unknown_numbers(db: &TestDb) {
    let club = Club::new(db);
    let list = ok(&dopis(club.path(), db, &["failed", "list"]));
    assert!(list.contains("nothing has failed"), "{list}");
    let out = dopis(club.path(), db, &["failed", "show", "7"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no failed mail 7") && err.contains("dopis failed list"),
        "{err}"
    );
}

crate::on_both_backends!(
    a_nul_byte_in_a_header_neither_stops_the_daemon_nor_blocks_the_mail_behind_it,
    a_game_that_cannot_be_loaded_sets_aside_its_mail_and_schedule_and_the_rest_goes_on,
    a_failing_mail_amid_a_batch_undoes_only_itself,
    a_mail_that_takes_longer_than_its_budget_is_refused_and_kept,
    a_mail_over_a_cap_is_refused_in_the_sender_s_language_and_kept,
    a_mail_over_the_size_cap_is_refused_to_its_registered_sender_and_recorded,
    the_failed_list_says_when_nothing_failed_and_refuses_unknown_numbers,
);
