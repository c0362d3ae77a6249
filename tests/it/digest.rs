//! The daily digest: a player who writes `notify digest` gets no mail per
//! move, but one mail a day with every game where it is their move.

use chrono::{DateTime, Duration, TimeZone, Utc};

use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{DigestLine, Done, Handled, Refused};

use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Mail;

fn start() -> DateTime<Utc> {
    // A Monday, 12:00 UTC.
    Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap()
}

async fn mail(app: &TestApp, from: &Player, to: &str, text: &str) -> Handled {
    let raw = Mail::new(from.email.as_str(), to)
        .subject("hi")
        .date(None)
        .body(text)
        .bytes();
    app.deliver(&raw).await
}

/// (recipient, subject) of the mails queued since the last call.
async fn new_mails(app: &TestApp) -> Vec<(String, String)> {
    app.sent()
        .await
        .into_iter()
        .map(|m| (m.to, m.subject))
        .collect()
}

async fn a_digest_player_gets_one_mail_a_day_with_all_their_games(db: &TestDb) {
    let app = TestApp::builder()
        .at(start())
        .secret("digest test")
        .answers_per_hour(100)
        .open(db)
        .await;
    let ana = app
        .player("ana@players.test", "Ana", Lang::En, Some("UTC"))
        .await;
    let bob = app
        .player("bob@players.test", "Bob", Lang::En, Some("UTC"))
        .await;
    let cene = app
        .player("cene@players.test", "Cene", Lang::En, Some("UTC"))
        .await;
    // Bob asks for the digest.
    let h = mail(&app, &bob, "chess@chess.test", "notify digest").await;
    assert!(
        matches!(&h, Handled::Done(Done::Ruled(r)) if r.digest == Some(true)),
        "{h:?}"
    );
    let first = new_mails(&app).await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].1.contains("daily digest"), "{first:?}");
    // Two games where Bob plays Black; Ana and Cene open with e4.
    let mut games: Vec<GameId> = Vec::new();
    for white in [&ana, &cene] {
        let id = app.game(white, &bob, TimeControl::default()).await;
        games.push(id);
        let to = app.reply_address(id, white);
        let h = mail(&app, white, &to, "e4").await;
        assert!(
            matches!(&h, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("e4")),
            "{h:?}"
        );
    }
    let after_moves = new_mails(&app).await;
    assert!(
        after_moves
            .iter()
            .all(|(to, subject)| to != "bob@players.test" || !subject.contains("Your move")),
        "no mail per move to a digest player: {after_moves:?}"
    );
    // The same day after 7:00 (it is 12:10): today's digest with both games.
    app.advance(Duration::minutes(10));
    assert_eq!(app.digests().await, 1);
    let digest = new_mails(&app).await;
    assert_eq!(digest.len(), 1, "{digest:?}");
    assert_eq!(digest[0].0, "bob@players.test");
    assert!(digest[0].1.contains("your move in 2 games"), "{digest:?}");
    // Once a day only.
    app.advance(Duration::hours(6));
    assert_eq!(app.digests().await, 0);
    // Bob answers one game from the digest's address; the next morning's
    // digest lists only the other.
    let to = app.reply_address(games[0], &bob);
    mail(&app, &bob, &to, "e5").await;
    app.advance(Duration::hours(14));
    assert_eq!(app.digests().await, 1);
    let next = new_mails(&app).await;
    let digests: Vec<_> = next
        .iter()
        .filter(|(to, s)| to == "bob@players.test" && s.contains("digest"))
        .collect();
    assert_eq!(digests.len(), 1, "{next:?}");
    assert!(digests[0].1.contains("your move in 1 game"), "{next:?}");
}

/// A mail from `from` to `to` answering the mail with Message-ID `answers`.
async fn reply(
    app: &TestApp,
    from: &Player,
    to: &str,
    answers: &str,
    text: &str,
    at: DateTime<Utc>,
) -> Handled {
    let raw = format!(
        "From: {}\r\nTo: {to}\r\nSubject: Re: digest\r\nMessage-ID: <{}@players.test>\r\n\
         In-Reply-To: <{answers}>\r\nReferences: <{answers}>\r\n\r\n{text}\r\n\r\n> quoted digest\r\n",
        from.email,
        rand::random::<u64>()
    );
    app.deliver_as_at(raw.as_bytes(), at).await
}

/// A mail from `from` to `to`, handled as if it arrived at `at`.
async fn mail_at(app: &TestApp, from: &Player, to: &str, text: &str, at: DateTime<Utc>) -> Handled {
    let raw = Mail::new(from.email.as_str(), to)
        .subject("hi")
        .date(None)
        .body(text)
        .bytes();
    app.deliver_as_at(&raw, at).await
}

/// Every mail in the outbox not yet sent, parsed: (recipient, subject,
/// Message-ID, Reply-To, text); marks them sent at `at`.
async fn deliver(
    store: &dopis::adapter::store::Store,
    at: DateTime<Utc>,
) -> Vec<(String, String, String, String, String)> {
    let all = store
        .claim_outbox(at + Duration::days(30), Duration::hours(1), 1000)
        .await
        .unwrap();
    let mut out = Vec::new();
    for m in &all {
        let msg = mail_parser::MessageParser::default().parse(&m.raw).unwrap();
        out.push((
            m.recipient.clone(),
            msg.subject().unwrap_or("").to_string(),
            msg.message_id().unwrap_or("").to_string(),
            msg.reply_to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .unwrap_or("")
                .to_string(),
            // Words as they read, whatever the wrapping.
            msg.body_text(0)
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .unwrap_or_default(),
        ));
        store.outbox_sent(&[(m, at)]).await.unwrap();
    }
    out
}

async fn a_digest_player_plays_two_games_by_answering_only_digests(db: &TestDb) {
    let app = TestApp::builder()
        .at(start())
        .secret("digest replies")
        .answers_per_hour(100)
        .open(db)
        .await;
    let (store, clock, post) = (&app.store, &app.clock, app.post());
    let daemon = &app;
    let ana = app
        .player("ana@players.test", "Ana Novak", Lang::En, Some("UTC"))
        .await;
    let bob = app
        .player("bob@players.test", "Bob", Lang::En, Some("UTC"))
        .await;
    let cene = app
        .player("cene@players.test", "Cene Kralj", Lang::En, Some("UTC"))
        .await;
    mail_at(daemon, &bob, "chess@chess.test", "notify digest", start()).await;
    let told = deliver(store, start()).await;
    assert!(
        told[0].4.contains("soon after 07:00 (UTC)") && told[0].4.contains("\"#42 Nf3\""),
        "the notify answer says when the digest comes and how to answer it: {}",
        told[0].4
    );
    let mut games: Vec<GameId> = Vec::new();
    for white in [&ana, &cene] {
        let id = app.game(white, &bob, TimeControl::default()).await;
        games.push(id);
        let to = post.reply_to(id, white).to_string();
        mail_at(daemon, white, &to, "e4", start() + Duration::minutes(5)).await;
    }
    deliver(store, start() + Duration::minutes(5)).await;

    // The digest goes out at 12:15; Bob's clocks start then, not at 12:05.
    let sent = start() + Duration::minutes(15);
    clock.advance(Duration::minutes(15));
    assert_eq!(daemon.digests().await, 1);
    let out = deliver(store, sent).await;
    let [(to, subject, first_digest, digest_address, text)] = out.as_slice() else {
        panic!("one digest: {out:?}");
    };
    assert_eq!(to, "bob@players.test");
    assert!(subject.contains("your move in 2 games"), "{subject}");
    assert!(
        digest_address.starts_with(&format!("chess+d{}.", bob.id.0)),
        "the digest's own reply address: {digest_address}"
    );
    assert!(text.contains("one line per game"), "{text}");
    assert!(
        text.contains("Deadline: 2026-03-05 12:15"),
        "the deadline counts from the digest: {text}"
    );
    for game in &games {
        let record = store.game(*game).await.unwrap();
        assert_eq!(
            record.moves[0].sent_at,
            Some(sent),
            "game {game}: told by the digest"
        );
    }

    // Pressing Reply on the digest: one line per game, by number.
    let at = sent + Duration::hours(2);
    let h = reply(
        daemon,
        &bob,
        digest_address,
        first_digest,
        &format!("#{} e5\n{}: c5", games[0].0, games[1].0),
        at,
    )
    .await;
    assert!(played_lines(&h) == 2, "{h:?}");
    for game in &games {
        assert_eq!(
            store.game(*game).await.unwrap().moves.len(),
            2,
            "game {game}"
        );
    }
    let out = deliver(store, at).await;
    assert!(
        out.iter().filter(|m| m.0 == "bob@players.test").count() == 2
            && out
                .iter()
                .any(|m| m.0 == "ana@players.test" && m.1.contains("Your move"))
            && out
                .iter()
                .any(|m| m.0 == "cene@players.test" && m.1.contains("Your move")),
        "each move confirmed to Bob and told to its opponent: {out:?}"
    );

    // Ana and Cene answer; the next morning's digest has both games again.
    for (white, game) in [(&ana, games[0]), (&cene, games[1])] {
        let to = post.reply_to(game, white).to_string();
        mail_at(daemon, white, &to, "Nf3", at + Duration::hours(1)).await;
    }
    deliver(store, at + Duration::hours(1)).await;
    clock.advance(Duration::hours(20));
    assert_eq!(daemon.digests().await, 1);
    let next = app.now();
    let out = deliver(store, next).await;
    let [(_, _, second_digest, address, _)] = out.as_slice() else {
        panic!("one digest: {out:?}");
    };
    // By the opponents' names this time, in any case.
    let h = reply(
        daemon,
        &bob,
        address,
        second_digest,
        "ana novak: Nc6\nCene Kralj - Nc6",
        next + Duration::hours(1),
    )
    .await;
    assert!(played_lines(&h) == 2, "{h:?}");
    for game in &games {
        assert_eq!(
            store.game(*game).await.unwrap().moves.len(),
            4,
            "game {game}"
        );
    }
    deliver(store, next + Duration::hours(1)).await;
    let to = post.reply_to(games[0], &ana).to_string();
    mail_at(daemon, &ana, &to, "Bb5", next + Duration::hours(1)).await;
    deliver(store, next + Duration::hours(1)).await;

    // A reply to the first digest, written for a position long gone, is
    // asked about, not played; a line naming no game gets the format.
    let h = reply(
        daemon,
        &bob,
        address,
        first_digest,
        &format!("#{} a6\nd6", games[0].0),
        next + Duration::hours(2),
    )
    .await;
    assert_eq!(store.game(games[0]).await.unwrap().moves.len(), 5);
    let out = deliver(store, next + Duration::hours(2)).await;
    assert!(
        out.iter().any(|m| m.4.contains("has moved on")),
        "the stale line is asked about: {h:?} {out:?}"
    );
    assert!(
        out.iter()
            .any(|m| m.4.contains("> d6") && m.4.contains("one line per game")),
        "the unnamed line is quoted with the format: {out:?}"
    );

    // From another address, the digest's reply address does nothing.
    let eve = app
        .player("eve@players.test", "Eve", Lang::En, Some("UTC"))
        .await;
    let h = reply(
        daemon,
        &eve,
        address,
        second_digest,
        &format!("#{} a6", games[0].0),
        next + Duration::hours(3),
    )
    .await;
    assert!(
        matches!(&h, Handled::Done(Done::Refused(Refused::Route { .. }))),
        "{h:?}"
    );
    assert_eq!(store.game(games[0]).await.unwrap().moves.len(), 5);
}

/// The digest says how to stop it (RFC 2369 `List-Unsubscribe`, a mailto:
/// to its own reply address with the subject `notify each`); a mail program's
/// unsubscribe button sends just that, with a body of its own, and the
/// player gets a mail per move again. A forged one from another address
/// changes nothing.
async fn the_digest_s_unsubscribe_address_switches_back_to_a_mail_per_move(db: &TestDb) {
    let app = TestApp::builder()
        .at(start())
        .secret("digest unsubscribe")
        .answers_per_hour(100)
        .open(db)
        .await;
    let (store, clock, post) = (&app.store, &app.clock, app.post());
    let ana = app
        .player("ana@players.test", "Ana Novak", Lang::En, Some("UTC"))
        .await;
    let bob = app
        .player("bob@players.test", "Bob", Lang::Sl, Some("UTC"))
        .await;
    mail_at(&app, &bob, "chess@chess.test", "notify digest", start()).await;
    deliver(store, start()).await;
    let game = app.game(&ana, &bob, TimeControl::default()).await;
    let to_ana = post.reply_to(game, &ana).to_string();
    mail_at(&app, &ana, &to_ana, "e4", start() + Duration::minutes(5)).await;
    deliver(store, start() + Duration::minutes(5)).await;
    clock.advance(Duration::minutes(15));
    assert_eq!(app.digests().await, 1);
    let at = start() + Duration::minutes(15);
    let queued = store
        .claim_outbox(at + Duration::days(30), Duration::hours(1), 1000)
        .await
        .unwrap();
    let [digest] = queued.as_slice() else {
        panic!("one digest: {queued:?}");
    };
    store.outbox_sent(&[(digest, at)]).await.unwrap();
    let parsed = mail_parser::MessageParser::default()
        .parse(&digest.raw)
        .unwrap();
    let header = parsed
        .header_raw("List-Unsubscribe")
        .expect("the digest has List-Unsubscribe")
        .trim()
        .to_string();
    let mailto = header
        .strip_prefix("<mailto:")
        .and_then(|h| h.strip_suffix('>'))
        .unwrap_or_else(|| panic!("{header}"));
    let (address, query) = mailto.split_once('?').unwrap();
    assert_eq!(query, "subject=notify%20each", "{header}");
    assert!(
        address.starts_with(&format!("chess+d{}.", bob.id.0)),
        "{header}"
    );

    // A stranger (or a forger) at that address: refused, nothing changes.
    let eve = app
        .player("eve@players.test", "Eve", Lang::En, Some("UTC"))
        .await;
    let unsubscribe = |from: &Player| {
        Mail::new(from.email.as_str(), address)
            .subject("notify each")
            .date(None)
            .body("This message was automatically generated by Gmail.")
            .bytes()
    };
    let h = app.deliver_as_at(&unsubscribe(&eve), at).await;
    assert!(
        !matches!(&h, Handled::Done(Done::Digest(lines)) if lines.contains(&DigestLine::Notify(false))),
        "{h:?}"
    );
    // Bob's mail program unsubscribes.
    let h = app
        .deliver_as_at(&unsubscribe(&bob), at + Duration::minutes(1))
        .await;
    assert!(
        matches!(&h, Handled::Done(Done::Digest(lines)) if *lines == [DigestLine::Notify(false)]),
        "{h:?}"
    );
    let told = deliver(store, at + Duration::minutes(1)).await;
    assert!(
        told.iter().any(|m| m.0 == "bob@players.test"),
        "Bob is told (in Slovene) that he gets a mail per move: {told:?}"
    );
    // Bob moves by his game's address; Ana answers; Bob hears at once.
    let to_bob = post.reply_to(game, &bob).to_string();
    mail_at(&app, &bob, &to_bob, "e5", at + Duration::minutes(2)).await;
    mail_at(&app, &ana, &to_ana, "Nf3", at + Duration::minutes(3)).await;
    let out = deliver(store, at + Duration::minutes(3)).await;
    assert!(
        out.iter()
            .any(|m| m.0 == "bob@players.test" && m.1.contains("Ana Novak igra Sf3")),
        "a mail per move again (in Slovene: Sf3): {out:?}"
    );
}

crate::on_both_backends!(
    a_digest_player_gets_one_mail_a_day_with_all_their_games,
    the_digest_s_unsubscribe_address_switches_back_to_a_mail_per_move,
    a_digest_player_plays_two_games_by_answering_only_digests,
    a_digest_player_plays_two_games_by_mail_answering_only_digests,
);

/// The same story by mail through the real binary: `dopis serve --once`
/// over the Maildir (mail files in, mail files out), its clock shifted
/// with `faketime` to past the digest hour (07:00 UTC) today, and a day later.
async fn a_digest_player_plays_two_games_by_mail_answering_only_digests(db: &TestDb) {
    use crate::club::Club;
    use chrono::Timelike;

    let club = Club::new(db);
    club.add_player(db, "cene@players.test", "Cene Kralj");
    let second = club.new_game(db, "cene@players.test", "bob@players.test");
    // Noon UTC of today (or tomorrow), whatever the hour the test runs at:
    // the real binary runs on the wall clock, shifted by faketime, so the
    // offset is worked out from the wall clock too.
    #[allow(clippy::disallowed_methods)]
    let hours = (36 - i64::from(Utc::now().hour())) % 24;
    let today = format!("+{hours}h");
    let tomorrow = format!("+{}h", hours + 24);
    let serve = |offset: &str| {
        let out = club.serve_once_at(db, None, Some(offset));
        assert!(
            out.status.success(),
            "serve --once: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let bob = "bob@players.test";
    let digests = || {
        club.sent_mails()
            .into_iter()
            .filter(|m| m.to == bob && m.subject.contains("Your daily digest"))
            .collect::<Vec<_>>()
    };

    club.deliver(
        b"From: bob@players.test\r\nTo: chess@chess.test\r\nSubject: settings\r\n\
          Message-ID: <notify.bob@players.test>\r\n\r\nnotify digest\r\n",
    );
    serve(&today);
    club.reply("alice@players.test", "e4");
    club.reply("cene@players.test", "e4");
    serve(&today);
    assert!(
        !club
            .sent_mails()
            .iter()
            .any(|m| m.to == bob && m.subject.contains("Your move")),
        "no mail per move to a digest player"
    );
    let [digest] = digests().try_into().unwrap_or_else(|d: Vec<_>| {
        panic!(
            "one digest after the moves, got {}: {:?}",
            d.len(),
            club.sent()
        )
    });
    assert!(
        digest.subject.contains("your move in 2 games"),
        "{}",
        digest.subject
    );
    club.reply_to_mail(&digest, &format!("#1 e5\n{second}: c5"));
    serve(&today);
    assert_eq!(club.moves_of(db, 1), ["e4", "e5"]);
    assert_eq!(club.moves_of(db, second), ["e4", "c5"]);

    club.reply("alice@players.test", "Nf3");
    club.reply("cene@players.test", "Nf3");
    serve(&tomorrow);
    let all = digests();
    assert_eq!(all.len(), 2, "a digest the next day: {:?}", club.sent());
    club.reply_to_mail(&all[1], "alice: Nc6\nCene Kralj - Nc6");
    serve(&tomorrow);
    assert_eq!(club.moves_of(db, 1), ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(club.moves_of(db, second), ["e4", "c5", "Nf3", "Nc6"]);
}

/// How many lines of a digest reply played a move.
fn played_lines(handled: &Handled) -> usize {
    match handled {
        Handled::Done(Done::Digest(lines)) => lines
            .iter()
            .filter(|line| {
                matches!(line, DigestLine::Game { outcome: Handled::Done(Done::Ruled(r)), .. } if r.first_move().is_some())
            })
            .count(),
        _ => 0,
    }
}
