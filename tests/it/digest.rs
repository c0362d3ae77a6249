//! The daily digest: a player who writes `notify digest` gets no mail per
//! move, but one mail a day with every game where it is their move.

use chrono::{DateTime, Duration, TimeZone, Utc};

use dopis::clock::TimeControl;
use dopis::ids::GameId;
use dopis::lang::Lang;
use dopis::player::Player;
use dopis::service::inbox::Handled;

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
    assert_eq!(h, Handled::Done("notify digest".into()));
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
            matches!(h, Handled::Done(ref s) if s.contains("played e4")),
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

crate::on_both_backends!(a_digest_player_gets_one_mail_a_day_with_all_their_games);
