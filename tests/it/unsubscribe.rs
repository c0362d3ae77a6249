//! One-click unsubscribe (RFC 8058) end to end: with `[web] base_url` at
//! an https address, the real `dopis serve` sends a digest player their
//! digest through Postfix; read back over IMAP from Dovecot, it carries
//! `List-Unsubscribe` (the signed link and the mailto:) and
//! `List-Unsubscribe-Post: List-Unsubscribe=One-Click`. A POST to the link
//! on `dopis web`, as a mail program makes it, switches the player back to
//! a mail per move and they are told by mail; the same link again (a
//! replay) changes nothing, even after the player chose the digest again;
//! a link for another player or with its signature altered is refused and
//! changes nothing. The announcements' link is checked in-process.

use std::time::Duration;

use chrono::Timelike;
use dopis::adapter::config::MailConfig;
use dopis::adapter::store::Store;
use dopis::daemon::mailer::Mailer;
use dopis::domain::address::EmailAddress;
use dopis::domain::player::PlayerId;
use dopis::service::app::Clock;

use crate::e2e::{Player, Wire, reply};
use crate::support::web::{WebServer, request};
use crate::support::{TestDb, dopis, mailstack, ok, scratch_user};

/// The daemon's `serve --once`, its clock moved by `offset` (faketime):
/// `false` when the pass ended on SQLite's "database is locked" (a pass of
/// the running daemon then just logs it and the next pass does the work;
/// `--once` exits saying so), any other failure fails the test.
fn serve_once(dir: &std::path::Path, db: &TestDb, offset: &str) -> bool {
    let out = crate::support::faketime(offset, env!("CARGO_BIN_EXE_dopis"))
        .current_dir(dir)
        .env_remove("DOPIS_CONFIG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .env("DOPIS_LOG", "warn")
        .args(["serve", "--once"])
        .output()
        .expect("run dopis serve --once under faketime");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() || stderr.contains("database is locked"),
        "serve --once: {stderr}"
    );
    out.status.success()
}

/// Runs `serve --once` until `player` has a mail with `wanted` in its
/// subject: a mail just sent may reach the daemon's mailbox only after a
/// run has begun (and a pass may end on a locked SQLite file), so each run
/// is followed by a short look, up to a minute.
async fn serve_until(
    dir: &std::path::Path,
    db: &TestDb,
    offset: &str,
    player: &mut Player,
    wanted: &str,
) -> mail_parser::Message<'static> {
    for _ in 0..20 {
        let _ = serve_once(dir, db, offset);
        if let Some(mail) = player.poll_for(wanted, Duration::from_secs(3)).await {
            return mail;
        }
    }
    player.wait_for(wanted).await
}

/// Whether the player gets the daily digest, as stored.
async fn wants_digest(db: &TestDb, player: PlayerId) -> bool {
    let store = Store::open(&db.url).await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let digest = tx.wants_digest(player).await.unwrap();
    tx.commit().await.unwrap();
    store.close().await;
    digest
}

/// A mail from `from` to `to` with `text`, sent through the test SMTP.
async fn send(mailer: &Mailer, from: &str, to: &str, text: &str) {
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: settings\r\nMessage-ID: <{:016x}@players.test>\r\n\
         Date: Sun, 29 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
        rand::random::<u64>()
    );
    mailer
        .send(
            &EmailAddress::parse(from).unwrap(),
            &[EmailAddress::parse(to).unwrap()],
            raw.as_bytes(),
        )
        .await
        .unwrap();
}

async fn a_digest_read_over_imap_unsubscribes_with_one_post_and_a_replay_changes_nothing(
    db: &TestDb,
) {
    let Some(stack) = mailstack() else { return };
    let wire = Wire::Plain(stack);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = scratch_user();
    let mut ana = Player::new(&wire, false).await;
    let mut bob = Player::new(&wire, false).await;
    let config = d.join("dopis.toml");
    std::fs::write(
        &config,
        format!(
            "[mail]\naddress = \"{server}\"\nsecret = \"unsubscribe-secret\"\n{}\n\
             [web]\nlisten = \"127.0.0.1:0\"\nbase_url = \"https://chess.club.test\"\n",
            wire.daemon_config(&server)
        ),
    )
    .unwrap();
    ok(&dopis(d, db, &["init"]));
    for (who, name) in [(&ana.address, "Ana Novak"), (&bob.address, "Bob Smith")] {
        ok(&dopis(
            d,
            db,
            &["player", "add", "--email", who, "--name", name],
        ));
    }
    ok(&dopis(
        d,
        db,
        &[
            "game",
            "new",
            "--white",
            &bob.address,
            "--black",
            &ana.address,
        ],
    ));
    let smtp = Mailer::open(&MailConfig {
        smtp: Some(wire.player_smtp(&ana.address)),
        ..MailConfig::default()
    })
    .unwrap();
    // Noon UTC today (or tomorrow): past the digest hour, 07:00 for a
    // player without a time zone, on the daemon's shifted clock.
    let hours = (36 - i64::from(dopis::service::app::SystemClock.now().hour())) % 24;
    let noon = format!("+{hours}h");

    // Ana chooses the digest; Bob opens; a digest comes.
    send(&smtp, &ana.address, &server, "notify digest").await;
    serve_until(d, db, &noon, &mut ana, "You get a daily digest now").await;
    let mail = bob.wait_for("Your move").await;
    reply(&smtp, &bob.address.clone(), &mail, "e4").await;
    let digest = serve_until(d, db, &noon, &mut ana, "Your daily digest").await;

    // Its headers, as Dovecot hands them over.
    let header = |name: &str| {
        digest
            .header_raw(name)
            .map(|v| v.replace("\r\n", "").trim().to_owned())
            .unwrap_or_else(|| panic!("no {name} in the digest"))
    };
    assert_eq!(
        header("List-Unsubscribe-Post"),
        "List-Unsubscribe=One-Click"
    );
    let list = header("List-Unsubscribe");
    let link = list
        .split(['<', '>'])
        .find(|part| part.starts_with("https://"))
        .unwrap_or_else(|| panic!("no https link in {list}"));
    assert!(list.contains("<mailto:"), "the mailto: stays: {list}");
    let path = link
        .strip_prefix("https://chess.club.test")
        .unwrap_or_else(|| panic!("{link} is under base_url"))
        .to_owned();
    let ana_id = PlayerId(
        path.trim_start_matches("/unsubscribe/")
            .split('.')
            .next()
            .and_then(|n| n.parse().ok())
            .expect("the link names its player"),
    );
    assert!(wants_digest(db, ana_id).await);

    // The mail program's POST (RFC 8058 §3.2), to `dopis web` behind its proxy.
    let web = WebServer::start(d, db, &config);
    let post = |target: &str| {
        request(
            web.address(),
            "POST",
            target,
            &[("Content-Type", "application/x-www-form-urlencoded")],
            b"List-Unsubscribe=One-Click",
        )
    };
    // A scanner's GET first: it changes nothing.
    let (status, page) = web.get(&path);
    assert_eq!(status, 200);
    assert!(
        page.contains("<button type=\"submit\">A mail per move</button>"),
        "{page}"
    );
    assert!(wants_digest(db, ana_id).await);

    let answer = post(&path);
    assert_eq!(answer.status, 200);
    assert!(
        answer
            .text()
            .contains("Done: from now on you get a mail as soon as it is your move."),
        "{}",
        answer.text()
    );
    assert!(!wants_digest(db, ana_id).await, "back to a mail per move");
    serve_until(d, db, &noon, &mut ana, "You get a mail for every move now").await;

    // Ana chooses the digest again; the old link, replayed, changes nothing.
    send(&smtp, &ana.address, &server, "notify digest").await;
    serve_until(d, db, &noon, &mut ana, "You get a daily digest now").await;
    assert!(wants_digest(db, ana_id).await);
    let again = post(&path);
    assert_eq!(again.status, 200);
    assert!(
        again.text().contains("This link was used on"),
        "{}",
        again.text()
    );
    assert!(wants_digest(db, ana_id).await, "a replay changes nothing");

    // Forged: another player's number, or an altered signature.
    let (_, rest) = path.rsplit_once('/').expect("a path");
    let mut parts: Vec<String> = rest.split('.').map(str::to_owned).collect();
    let other = format!("{}", ana_id.0 + 1);
    let mut for_bob = parts.clone();
    for_bob[0] = other;
    let mac = parts[3].clone();
    let flipped = if mac.starts_with('a') { "b" } else { "a" };
    parts[3] = format!("{flipped}{}", &mac[1..]);
    for forged in [for_bob.join("."), parts.join(".")] {
        let answer = post(&format!("/unsubscribe/{forged}"));
        assert_eq!(answer.status, 404, "{forged}");
        assert!(!answer.text().contains("Ana") && !answer.text().contains("Bob"));
    }
    assert!(wants_digest(db, ana_id).await);
    assert!(
        !wants_digest(db, PlayerId(ana_id.0 + 1)).await,
        "Bob is as he was"
    );
    drop(web);
}

/// The announcements of events opening for entries carry the one-click
/// link too (not the digest's mailto:); using it stops them, once, and
/// tells the player; a plain-http base gives no one-click link at all.
async fn an_announcement_unsubscribes_with_one_click_once(db: &TestDb) {
    use dopis::service::unsubscribe::{Outcome, apply};
    for (base, one_click) in [
        ("https://chess.club.test", true),
        ("http://chess.club.test", false),
    ] {
        let app = crate::support::app::TestApp::builder()
            .pages(base)
            .open(db)
            .await;
        let email = format!("eva{}@club.test", u8::from(one_click));
        let eva = app
            .player(&email, "Eva Kos", dopis::domain::lang::Lang::De, None)
            .await;
        let mut tx = app.store.begin().await.unwrap();
        tx.set_player_announcements(eva.id, true).await.unwrap();
        tx.commit().await.unwrap();
        let name = if one_click { "Herbst" } else { "Winter" };
        app.open_event(&format!(
            "name = \"{name}\"\nkind = \"round-robin\"\ntds = [\"td@club.test\"]\n\n[entries]\ncloses = \"2099-06-30\"\n"
        ))
        .await;
        let sent = app.sent().await;
        let told = sent
            .iter()
            .find(|m| m.to == email)
            .expect("an announcement to Eva");
        let mail = mail_parser::MessageParser::default()
            .parse(&told.raw)
            .unwrap();
        let list = mail
            .header_raw("List-Unsubscribe")
            .map(|v| v.replace("\r\n", ""));
        if !one_click {
            assert_eq!(list, None, "no link without https");
            assert!(mail.header_raw("List-Unsubscribe-Post").is_none());
            app.close().await;
            continue;
        }
        let list = list.expect("a List-Unsubscribe");
        assert!(!list.contains("mailto:"), "{list}");
        let text = list
            .trim()
            .trim_start_matches("<https://chess.club.test/unsubscribe/")
            .trim_end_matches('>')
            .to_owned();
        let first = apply(&app.store, app.post(), &text, app.now())
            .await
            .unwrap();
        assert!(
            matches!(first, Outcome::Done { changed: true, .. }),
            "{first:?}"
        );
        let mut tx = app.store.begin().await.unwrap();
        assert!(!tx.wants_announcements(eva.id).await.unwrap());
        tx.commit().await.unwrap();
        let told = app.sent().await;
        assert!(
            told.iter().any(|m| m.to == email && m.subject.contains("Keine Mails mehr über neue Turniere")),
            "Eva is told, in German: {told:?}"
        );
        let again = apply(&app.store, app.post(), &text, app.now())
            .await
            .unwrap();
        assert!(matches!(again, Outcome::Replayed { .. }), "{again:?}");
        assert!(app.sent().await.is_empty(), "a replay sends nothing");
        app.close().await;
    }
}

crate::on_both_backends!(
    a_digest_read_over_imap_unsubscribes_with_one_post_and_a_replay_changes_nothing,
    an_announcement_unsubscribes_with_one_click_once,
);
