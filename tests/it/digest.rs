//! The daily digest: a player who writes `notify digest` gets no mail per
//! move, but one mail a day with every game where it is their move.

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};

use dopis::address::EmailAddress;
use dopis::app::{Clock, FixedClock};
use dopis::chess::game::StartPosition;
use dopis::clock::{Allowance, ReminderPlan, TimeControl};
use dopis::config::{MailConfig, Secret};
use dopis::daemon::inbox::Handled;
use dopis::daemon::post::Post;
use dopis::daemon::run::Daemon;
use dopis::daemon::start::start_game;
use dopis::lang::Lang;
use dopis::player::{NewPlayer, Player};
use dopis::store::Store;
use dopis::store::games::GameId;

use crate::support::TestDb;

fn start() -> DateTime<Utc> {
    // A Monday, 12:00 UTC.
    Utc.with_ymd_and_hms(2026, 3, 2, 12, 0, 0).unwrap()
}

async fn mail(daemon: &Daemon, from: &Player, to: &str, text: &str, at: DateTime<Utc>) -> Handled {
    let raw = format!(
        "From: {}\r\nTo: {to}\r\nSubject: hi\r\nMessage-ID: <{}@players.test>\r\n\r\n{text}\r\n",
        from.email,
        rand::random::<u64>()
    );
    daemon
        .inbox
        .handle(&daemon.store, "test", raw.as_bytes(), at, at)
        .await
        .unwrap()
}

/// (recipient, subject) of the mails queued since `from` (an outbox length).
async fn mails_since(store: &Store, from: usize) -> Vec<(String, String)> {
    let all = store
        .claim_outbox(start() + Duration::days(30), Duration::hours(1), 1000)
        .await
        .unwrap();
    let mut out = Vec::new();
    for m in all.iter().filter(|m| m.id as usize > from) {
        let msg = mail_parser::MessageParser::default().parse(&m.raw).unwrap();
        out.push((m.recipient.clone(), msg.subject().unwrap_or("").to_string()));
    }
    for m in &all {
        store.outbox_sent(m, start()).await.unwrap();
    }
    out
}

async fn a_digest_player_gets_one_mail_a_day_with_all_their_games(db: &TestDb) {
    let store = Store::open(&db.url).await.unwrap();
    let clock = Arc::new(FixedClock::new(start()));
    let post = Post::new(&MailConfig {
        address: "chess@chess.test".into(),
        secret: Secret::new("digest test"),
        ..MailConfig::default()
    })
    .unwrap();
    let add = |email: &str, name: &str| {
        NewPlayer::new(
            EmailAddress::parse(email).unwrap(),
            name,
            Lang::En,
            Some("UTC"),
        )
        .unwrap()
    };
    let ana = store
        .add_player(&add("ana@players.test", "Ana"), start())
        .await
        .unwrap();
    let bob = store
        .add_player(&add("bob@players.test", "Bob"), start())
        .await
        .unwrap();
    let cene = store
        .add_player(&add("cene@players.test", "Cene"), start())
        .await
        .unwrap();
    let daemon = Daemon::new(
        store.clone(),
        clock.clone(),
        post.clone(),
        &dopis::daemon::Settings {
            answers_per_hour: 100,
            allowance: Allowance::default(),
            plan: ReminderPlan::default(),
        },
        "test".into(),
    );
    // Bob asks for the digest.
    let h = mail(&daemon, &bob, "chess@chess.test", "notify digest", start()).await;
    assert_eq!(h, Handled::Done("notify digest".into()));
    let mut seen = 0;
    let first = mails_since(&store, seen).await;
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].1.contains("daily digest"), "{first:?}");
    seen = store.outbox().await.unwrap().len();
    // Two games where Bob plays Black; Ana and Cene open with e4.
    let mut games: Vec<GameId> = Vec::new();
    for white in [&ana, &cene] {
        let id = start_game(
            &store,
            &post,
            white.id,
            bob.id,
            StartPosition::Standard,
            TimeControl::default(),
            start(),
        )
        .await
        .unwrap();
        games.push(id);
        let to = post.reply_to(id, white).to_string();
        let h = mail(&daemon, white, &to, "e4", start() + Duration::minutes(5)).await;
        assert!(
            matches!(h, Handled::Done(ref s) if s.contains("played e4")),
            "{h:?}"
        );
    }
    let after_moves = mails_since(&store, seen).await;
    assert!(
        after_moves
            .iter()
            .all(|(to, subject)| to != "bob@players.test" || !subject.contains("Your move")),
        "no mail per move to a digest player: {after_moves:?}"
    );
    seen = store.outbox().await.unwrap().len();
    // The same day after 7:00 (it is 12:05): today's digest with both games.
    clock.advance(Duration::minutes(10));
    assert_eq!(daemon.digests().await.unwrap(), 1);
    let digest = mails_since(&store, seen).await;
    assert_eq!(digest.len(), 1, "{digest:?}");
    assert_eq!(digest[0].0, "bob@players.test");
    assert!(digest[0].1.contains("your move in 2 games"), "{digest:?}");
    seen = store.outbox().await.unwrap().len();
    // Once a day only.
    clock.advance(Duration::hours(6));
    assert_eq!(daemon.digests().await.unwrap(), 0);
    // Bob answers one game from the digest's address; the next morning's
    // digest lists only the other.
    let to = post.reply_to(games[0], &bob).to_string();
    mail(&daemon, &bob, &to, "e5", clock.now()).await;
    clock.advance(Duration::hours(14));
    assert_eq!(daemon.digests().await.unwrap(), 1);
    let next = mails_since(&store, seen).await;
    let digests: Vec<_> = next
        .iter()
        .filter(|(to, s)| to == "bob@players.test" && s.contains("digest"))
        .collect();
    assert_eq!(digests.len(), 1, "{next:?}");
    assert!(digests[0].1.contains("your move in 1 game"), "{next:?}");
}

crate::on_both_backends!(a_digest_player_gets_one_mail_a_day_with_all_their_games);
