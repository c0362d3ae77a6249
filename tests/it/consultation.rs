//! Issue 24, section 5, on both backends: a consultation game (vote
//! chess) from its event file (`tests/fixtures/events/consultation.toml`),
//! played by mail through the inbox, the daemon's vote pass and the
//! outbox: votes, a changed vote, a tie the captain's vote breaks, a move
//! made at the votes' deadline, mate; a side that never votes losing on
//! time; and every refusal answered in the sender's language, changing
//! nothing.

use std::path::Path;

use chrono::{Duration, TimeZone, Utc};
use mail_parser::MimeHeaders;

use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::service::xfcc::{self, MoveRequest, MoveResult};

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent;

fn fixture() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/events/consultation.toml"),
    )
    .unwrap()
}

const ANN: &str = "ann@koper.example";
const BOB: &str = "bob@koper.example";
const CY: &str = "cy@koper.example";
const DAN: &str = "dan@bled.example";
const EVE: &str = "eve@bled.example";

struct Match {
    app: TestApp,
    game: GameId,
    mails: Vec<Sent>,
}

impl Match {
    async fn start(db: &TestDb) -> (Match, Vec<Sent>) {
        let app = TestApp::builder()
            .at(Utc.with_ymd_and_hms(2027, 3, 1, 9, 0, 0).unwrap())
            .address("chess@dopis.test")
            .name("dopis")
            .secret("a test secret that is long enough")
            .open(db)
            .await;
        let (_, games) = app.event(&fixture()).await;
        let [game] = games.as_slice() else {
            panic!("a consultation event has one game, got {games:?}");
        };
        let mut m = Match {
            app,
            game: *game,
            mails: Vec::new(),
        };
        let first = m.read().await;
        (m, first)
    }

    async fn read(&mut self) -> Vec<Sent> {
        let sent = self.app.sent().await;
        self.mails.extend(sent.iter().cloned());
        sent
    }

    /// `who` replies `text` to their latest mail of the game, an hour on;
    /// the mails it caused.
    async fn reply(&mut self, who: &str, text: &str) -> Vec<Sent> {
        self.app.advance(Duration::hours(1));
        let last = self
            .mails
            .iter()
            .rev()
            .find(|m| m.to == who && m.reply_to.as_ref().is_some_and(|r| r.contains("+g")))
            .unwrap_or_else(|| panic!("{who} got no mail of the game to answer"))
            .clone();
        let raw = last.reply(
            who,
            text,
            &format!("vote.{}@players.test", self.mails.len()),
        );
        self.app.deliver(&raw).await;
        self.read().await
    }

    async fn moves(&self) -> Vec<String> {
        self.app.moves(self.game).await
    }
}

fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The one mail to `who` among `mails`, whose text holds every phrase.
fn one<'a>(mails: &'a [Sent], who: &str, phrases: &[&str]) -> &'a Sent {
    let theirs: Vec<&Sent> = mails.iter().filter(|m| m.to == who).collect();
    let [mail] = theirs.as_slice() else {
        panic!(
            "want one mail to {who}, got {:?}",
            theirs.iter().map(|m| &m.subject).collect::<Vec<_>>()
        );
    };
    let text = flat(&mail.text);
    for phrase in phrases {
        assert!(
            text.contains(phrase),
            "the mail to {who} ({}) lacks {phrase:?}:\n{}",
            mail.subject,
            mail.text
        );
    }
    mail
}

async fn a_consultation_game_is_played_to_mate_by_votes(db: &TestDb) {
    let (mut m, first) = Match::start(db).await;
    // Koper (White) is asked for its votes, each member at their own
    // address; Bled is told the game started.
    for who in [ANN, BOB, CY] {
        let mail = one(&first, who, &[]);
        assert!(
            mail.reply_to
                .as_deref()
                .is_some_and(|r| r.contains(&format!("+g{}.", m.game.0))),
            "{who} votes at their own game address: {:?}",
            mail.reply_to
        );
    }
    one(
        &first,
        ANN,
        &[
            "It is the move of your team, Koper",
            "No votes yet (3 member(s) vote)",
        ],
    );
    assert_eq!(
        first.len(),
        5,
        "{:?}",
        first
            .iter()
            .map(|s| (&s.to, &s.subject))
            .collect::<Vec<_>>()
    );
    let row = m.app.game_row(m.game).await;
    assert_eq!(m.app.player_row(row.white).await.email.to_string(), ANN);
    assert_eq!(m.app.player_row(row.black).await.email.to_string(), DAN);

    // 1. Bob and Cy vote e4; Cy changes to f3; Ann's f3 is the last vote:
    // every member voted, so the move is made at once, f3 by 2 to 1.
    let sent = m.reply(BOB, "e4").await;
    one(&sent, BOB, &["Vaš glas za e4", "(1 od 3 članov)"]);
    assert!(
        m.moves().await.is_empty(),
        "one vote of three plays nothing"
    );
    let sent = m.reply(CY, "e4").await;
    one(
        &sent,
        CY,
        &[
            "Your vote for e4",
            "Votes so far (2 of 3 members)",
            "e4: 2 (Bob Bizjak, Cy Cole)",
        ],
    );
    let sent = m.reply(CY, "f3").await;
    one(
        &sent,
        CY,
        &[
            "Your changed vote for f3",
            "(2 of 3 members)",
            "e4: 1 (Bob Bizjak)",
            "f3: 1 (Cy Cole)",
        ],
    );
    assert!(m.moves().await.is_empty());
    let sent = m.reply(ANN, "f3").await;
    assert_eq!(m.moves().await, ["f3"]);
    one(
        &sent,
        CY,
        &[
            "Your team, Koper, played 1. f3",
            "with 2 of 3 vote(s)",
            "f3: 2 (Cy Cole, Ann Archer)",
            "e4: 1 (Bob Bizjak)",
        ],
    );
    // Ann: her vote's answer and the move's news.
    assert_eq!(sent.iter().filter(|s| s.to == ANN).count(), 2);
    one(
        &sent,
        DAN,
        &["Ihr Team, Bled, ist in der Beratungspartie", "1... ?"],
    );
    one(&sent, EVE, &["Bled"]);

    // 1... e5: both of Bled vote it, in their own letters.
    m.reply(DAN, "e5").await;
    assert_eq!(m.moves().await, ["f3"], "one of two votes plays nothing");
    let sent = m.reply(EVE, "e5").await;
    assert_eq!(m.moves().await, ["f3", "e5"]);
    assert!(
        sent.iter()
            .any(|s| s.to == EVE && s.subject.contains("Twoja drużyna zagrała 1... e5")),
        "Eve hears the move in Polish"
    );

    // 2. A tie: Bob votes Nc3 (Slovenian Sc3), Ann g4; Cy does not vote.
    // At the deadline the captain's g4 is played.
    let sent = m.reply(BOB, "Sc3").await;
    one(&sent, BOB, &["Vaš glas za Sc3"]);
    m.reply(ANN, "g4").await;
    assert_eq!(
        m.app.close_votes().await,
        0,
        "the votes are open for 48 hours"
    );
    m.app.advance(Duration::hours(48));
    assert_eq!(m.app.close_votes().await, 1);
    assert_eq!(m.app.close_votes().await, 0, "decided once");
    assert_eq!(m.moves().await, ["f3", "e5", "g4"]);
    let sent = m.read().await;
    one(
        &sent,
        CY,
        &[
            "played 2. g4",
            "with 1 of 2 vote(s)",
            "g4: 1 (Ann Archer)",
            "Nc3: 1 (Bob Bizjak)",
        ],
    );
    one(&sent, BOB, &["odigrala 2. g4", "Sc3: 1"]);

    // 2... Qh4#: Dan writes it in German (Dh4), Eve in Polish (Hh4).
    m.reply(DAN, "Dh4").await;
    let sent = m.reply(EVE, "Hh4#").await;
    assert_eq!(m.moves().await, ["f3", "e5", "g4", "Qh4#"]);
    let row = m.app.game_row(m.game).await;
    assert_eq!(row.result.as_deref(), Some("0-1"));
    // Every member of both sides hears the result, with the PGN and its votes.
    for who in [ANN, BOB, CY, DAN, EVE] {
        let over: Vec<&Sent> = sent
            .iter()
            .filter(|s| s.to == who && String::from_utf8_lossy(&s.raw).contains("game-"))
            .collect();
        assert_eq!(over.len(), 1, "{who} gets one game-over mail with the PGN");
    }
    let over = sent
        .iter()
        .find(|s| s.to == CY && String::from_utf8_lossy(&s.raw).contains("game-"))
        .unwrap();
    let raw = String::from_utf8_lossy(&over.raw).to_string();
    let pgn = decoded_attachment(&raw);
    for comment in [
        "{votes: f3 2 (Cy Cole, Ann Archer), e4 1 (Bob Bizjak)}",
        "{votes: g4 1 (Ann Archer), Nc3 1 (Bob Bizjak)}",
        "{votes: Qh4# 2 (Dan Dorn, Eve Ewa)}",
    ] {
        assert!(
            flat(&pgn).contains(comment),
            "the PGN lacks {comment}:\n{pgn}"
        );
    }
    // A vote after the end changes nothing.
    let sent = m.reply(BOB, "a3").await;
    assert_eq!(m.moves().await.len(), 4);
    assert_eq!(sent.len(), 1, "Bob is told the game is over");
}

/// The PGN attachment of a mail, decoded.
fn decoded_attachment(raw: &str) -> String {
    let msg = mail_parser::MessageParser::default()
        .parse(raw.as_bytes())
        .unwrap();
    msg.attachments()
        .find(|a| a.attachment_name().is_some_and(|n| n.ends_with(".pgn")))
        .map(|a| String::from_utf8_lossy(a.contents()).to_string())
        .unwrap_or_default()
}

async fn a_side_whose_members_never_vote_loses_on_time(db: &TestDb) {
    let (mut m, _) = Match::start(db).await;
    m.app.advance(Duration::hours(49));
    assert_eq!(m.app.close_votes().await, 0, "no votes: nothing is played");
    assert!(m.moves().await.is_empty());
    assert!(m.read().await.is_empty(), "nothing to tell at the close");
    // The side's clock runs on: 5 days a move.
    m.app.advance(Duration::days(4));
    m.app.schedule().await;
    let row = m.app.game_row(m.game).await;
    assert_eq!(row.result.as_deref(), Some("0-1"), "White lost on time");
    let sent = m.read().await;
    for who in [ANN, BOB, CY, DAN, EVE] {
        assert!(
            sent.iter().any(|s| s.to == who),
            "{who} hears of the end: {:?}",
            sent.iter().map(|s| (&s.to, &s.subject)).collect::<Vec<_>>()
        );
    }
    assert_eq!(m.app.close_votes().await, 0);
}

async fn every_refusal_is_answered_in_the_senders_language_and_changes_nothing(db: &TestDb) {
    let (mut m, _) = Match::start(db).await;
    // A vote of the side not to move (Dan writes German).
    let sent = m.reply(DAN, "e5").await;
    one(&sent, DAN, &["ist die andere Seite am Zug"]);
    // A vote that is no legal move (Bob writes Slovenian).
    let sent = m.reply(BOB, "Ke2").await;
    assert_eq!(sent.len(), 1);
    one(&sent, BOB, &["»Ke2« ni mogoče odigrati"]);
    // A member who is not the captain resigning (Eve writes Polish).
    let sent = m.reply(EVE, "resign").await;
    one(&sent, EVE, &["kapitana twojej drużyny, Dan Dorn"]);
    // Someone who is no member, with a member's reply address: the member
    // is told; and a registered player of no side with a made-up token.
    let ann_mail = m.mails.iter().rev().find(|s| s.to == ANN).unwrap().clone();
    m.app
        .player("zed@riga.example", "Zed Ozols", Lang::Lv, None)
        .await;
    m.app
        .deliver(&ann_mail.reply("zed@riga.example", "e4", "zed.1@players.test"))
        .await;
    let sent = m.read().await;
    one(&sent, ANN, &["zed@riga.example"]);
    // The game's address with a token of nobody's.
    let to = ann_mail.reply_to.clone().unwrap();
    let (local, domain) = to.split_once('@').unwrap();
    let (tag, _token) = local.rsplit_once('.').unwrap();
    let wrong = format!("{tag}.notatoken@{domain}");
    let mut forged_mail = ann_mail.clone();
    forged_mail.reply_to = Some(wrong);
    m.app
        .deliver(&forged_mail.reply("zed@riga.example", "e4", "zed.2@players.test"))
        .await;
    let sent = m.read().await;
    one(&sent, "zed@riga.example", &["Jūs nespēlējat partijā"]);
    // The captain's move by XFCC: a vote XFCC cannot say, so the game is
    // not among the captain's XFCC games and the move is refused.
    let ann = m.app.player_by_email(ANN).await;
    let listed = xfcc::my_games(&m.app.store, "dopis.test", &ann, m.app.now())
        .await
        .unwrap();
    assert!(listed.iter().all(|g| g.id != m.game.0), "{listed:?}");
    let request = MoveRequest {
        game_id: m.game.0,
        resign: false,
        accept_draw: false,
        movecount: 1,
        my_move: "e4".into(),
        offer_draw: false,
        claim_draw: false,
        my_message: String::new(),
    };
    let said = xfcc::make_a_move(&m.app.store, m.app.inbox(), &ann, &request, m.app.now())
        .await
        .unwrap();
    assert_eq!(said, MoveResult::NotYourGame);
    assert!(m.read().await.is_empty(), "nobody is mailed");
    // Nothing of it counted: the first real vote is the only one.
    assert!(m.moves().await.is_empty());
    let sent = m.reply(CY, "e4").await;
    one(
        &sent,
        CY,
        &["Votes so far (1 of 3 members)", "e4: 1 (Cy Cole)"],
    );
    let mut tx = m.app.store.begin().await.unwrap();
    let votes = tx.votes(m.game).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(votes.len(), 1, "{votes:?}");
}

on_both_backends!(
    a_consultation_game_is_played_to_mate_by_votes,
    a_side_whose_members_never_vote_loses_on_time,
    every_refusal_is_answered_in_the_senders_language_and_changes_nothing,
);
