//! Entries by mail (issue 24, part 1), on both backends, every mail through
//! the daemon's inbox and outbox: a TD opens an event for entries, players
//! who asked hear of it, players and strangers enter and confirm by a
//! reply, forged and repeated entries change nothing, a withdrawal needs a
//! reply too, and when entries close the event starts by itself with
//! exactly the confirmed entries, seeded by rating — or, with too few, the
//! TD is told and nothing starts.

use chrono::{Duration, TimeZone, Utc};

use dopis::domain::event::entries::EntryStatus;
use dopis::domain::ids::EventId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::Handled;

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::{Mail, Sent};

const CLUB: &str = "chess@dopis.test";

struct Club {
    app: TestApp,
    mails: Vec<Sent>,
}

impl Club {
    async fn new(db: &TestDb) -> Club {
        let app = TestApp::builder()
            .at(Utc.with_ymd_and_hms(2027, 1, 4, 9, 0, 0).unwrap())
            .address(CLUB)
            .name("dopis")
            .secret("a test secret that is long enough")
            .open(db)
            .await;
        Club {
            app,
            mails: Vec::new(),
        }
    }

    async fn read(&mut self) -> Vec<Sent> {
        let sent = self.app.sent().await;
        self.mails.extend(sent.iter().cloned());
        sent
    }

    /// `from` writes `text` to the club's address; the mails it caused.
    async fn write(&mut self, from: &str, text: &str) -> (Handled, Vec<Sent>) {
        self.app.advance(Duration::minutes(10));
        let done = self
            .app
            .deliver(&Mail::new(from, CLUB).subject("entry").body(text).bytes())
            .await;
        (done, self.read().await)
    }

    /// `from` replies `text` to the newest mail to `to` (a forger replies
    /// to a mail it saw, from its own address).
    async fn reply_to_last(&mut self, to: &str, from: &str, text: &str) -> (Handled, Vec<Sent>) {
        self.app.advance(Duration::minutes(10));
        let last = self
            .mails
            .iter()
            .rev()
            .find(|m| m.to == to)
            .expect("a mail to reply to")
            .clone();
        let id = format!("{:016x}@players.test", rand::random::<u64>());
        let done = self.app.deliver(&last.reply(from, text, &id)).await;
        (done, self.read().await)
    }

    async fn statuses(&self, event: EventId) -> Vec<(String, EntryStatus)> {
        let mut tx = self.app.store.begin().await.unwrap();
        let entries = tx.entries(event).await.unwrap();
        tx.commit().await.unwrap();
        entries.into_iter().map(|e| (e.email, e.status)).collect()
    }
}

fn one(sent: &[Sent], to: &str) -> Sent {
    let mine: Vec<&Sent> = sent.iter().filter(|m| m.to == to).collect();
    assert_eq!(mine.len(), 1, "one mail to {to}, got {sent:#?}");
    mine[0].clone()
}

fn event_file(name: &str, closes: &str, open_to: &str, max: u32) -> String {
    format!(
        "name = \"{name}\"\nkind = \"round-robin\"\ntds = [\"td@dopis.test\"]\n\
         time_control = \"10/50d\"\n\
         [entries]\ncloses = \"{closes}\"\nmin = 3\nmax = {max}\nopen_to = \"{open_to}\"\n"
    )
}

async fn players(club: &Club) -> [Player; 4] {
    [
        club.app
            .player("ana@players.test", "Ana Novak", Lang::En, None)
            .await,
        club.app
            .player("bor@players.test", "Bor Kralj", Lang::En, None)
            .await,
        club.app
            .player("cene@players.test", "Cene Zupan", Lang::En, None)
            .await,
        club.app
            .player("dana@players.test", "Dana Kos", Lang::Sl, None)
            .await,
    ]
}

on_both_backends!(
    a_season_of_entries_by_mail_starts_the_event_with_exactly_the_confirmed,
    too_few_entries_start_nothing_and_the_td_is_told,
    refusals_are_answered_in_the_senders_language_and_change_nothing,
    an_open_class_starts_a_section_each_time_enough_wait,
    three_groups_of_five_advance_to_a_final_of_six_by_themselves,
    a_section_promotes_and_the_class_above_takes_only_the_promoted,
    an_olympiad_plays_preliminary_groups_of_teams_then_a_final_by_itself,
    a_swiss_event_takes_its_players_by_mail_and_pairs_round_1_when_entries_close,
);

async fn a_season_of_entries_by_mail_starts_the_event_with_exactly_the_confirmed(db: &TestDb) {
    let mut club = Club::new(db).await;
    let [ana, bor, cene, dana] = players(&club).await;

    // Ana asks to hear of new events; the others did not.
    let (_, sent) = club.write("ana@players.test", "notify announcements").await;
    assert!(
        one(&sent, "ana@players.test")
            .subject
            .contains("You will hear of new events")
    );

    let (event, told) = club
        .app
        .open_event(&event_file("Open 2027", "2027-01-14", "anyone", 4))
        .await;
    assert_eq!(told, 1);
    let sent = club.read().await;
    let announced = one(&sent, "ana@players.test");
    assert!(
        announced.subject.contains("Open for entries: Open 2027"),
        "{}",
        announced.subject
    );
    assert!(
        announced.text.contains(&format!("enter {}", event.0)),
        "{}",
        announced.text
    );

    // `entries` lists it.
    let (_, sent) = club.write("bor@players.test", "entries").await;
    assert!(one(&sent, "bor@players.test").text.contains("Open 2027"));

    // Ana enters: asked to confirm; nothing counts yet.
    let (_, sent) = club
        .write("ana@players.test", &format!("enter {}", event.0))
        .await;
    let ask = one(&sent, "ana@players.test");
    assert!(
        ask.subject.contains("Please confirm your entry"),
        "{}",
        ask.subject
    );
    assert!(
        ask.reply_to.as_deref().unwrap().contains("+e"),
        "{:?}",
        ask.reply_to
    );
    assert_eq!(
        club.statuses(event).await,
        [("ana@players.test".to_string(), EntryStatus::Pending)]
    );
    // Bor replies to Ana's confirmation from his own address: ignored.
    let (done, sent) = club
        .reply_to_last("ana@players.test", "bor@players.test", "yes")
        .await;
    assert!(matches!(done, Handled::Ignored(_)), "{done:?}");
    assert!(sent.is_empty());
    assert_eq!(club.statuses(event).await[0].1, EntryStatus::Pending);
    // Ana confirms.
    let (_, sent) = club
        .reply_to_last("ana@players.test", "ana@players.test", "yes please")
        .await;
    assert!(
        one(&sent, "ana@players.test")
            .subject
            .contains("You have entered Open 2027")
    );
    assert_eq!(club.statuses(event).await[0].1, EntryStatus::Confirmed);
    // A second entry: told, nothing changes.
    let (_, sent) = club
        .write("ana@players.test", &format!("enter {}", event.0))
        .await;
    assert!(
        one(&sent, "ana@players.test")
            .text
            .contains("you have entered it already")
    );

    // A stranger enters in Slovenian: asked once, in Slovenian; asking again
    // (or a forger asking in its name) mails nothing more.
    let zoe = "Zoe Zupan <zoe@outside.test>";
    let (_, sent) = club.write(zoe, &format!("Prijava {}", event.0)).await;
    let ask = one(&sent, "zoe@outside.test");
    assert!(
        ask.subject.contains("Prosimo, potrdite prijavo"),
        "{}",
        ask.subject
    );
    let (_, sent) = club.write(zoe, &format!("prijava {}", event.0)).await;
    assert!(sent.is_empty(), "mailed twice before confirming: {sent:#?}");
    {
        let mut tx = club.app.store.begin().await.unwrap();
        assert!(
            tx.player_by_email("zoe@outside.test")
                .await
                .unwrap()
                .is_none()
        );
        tx.commit().await.unwrap();
    }
    let (_, sent) = club
        .reply_to_last("zoe@outside.test", "zoe@outside.test", "")
        .await;
    assert!(
        one(&sent, "zoe@outside.test")
            .subject
            .contains("Prijavljeni ste")
    );
    let zoe = club.app.player_by_email("zoe@outside.test").await;
    assert_eq!((zoe.name.as_str(), zoe.lang), ("Zoe Zupan", Lang::Sl));

    // Dana's address is forged into an entry: she is asked, never replies.
    let (_, sent) = club
        .write("dana@players.test", &format!("prijava {}", event.0))
        .await;
    assert!(one(&sent, "dana@players.test").subject.contains("potrdite"));

    // Bor enters and confirms; Cene enters, confirms and withdraws — the
    // withdrawal too only by a reply.
    for who in [&bor, &cene] {
        let addr = who.email.to_string();
        club.write(&addr, &format!("enter {}", event.0)).await;
        club.reply_to_last(&addr, &addr, "").await;
    }
    let (_, sent) = club
        .write("cene@players.test", &format!("withdraw entry {}", event.0))
        .await;
    assert!(
        one(&sent, "cene@players.test")
            .subject
            .contains("withdraw from Open 2027")
    );
    assert_eq!(club.statuses(event).await.len(), 5);
    let (_, sent) = club
        .reply_to_last(
            "cene@players.test",
            "cene@players.test",
            &format!("withdraw entry {}", event.0),
        )
        .await;
    assert!(
        one(&sent, "cene@players.test")
            .subject
            .contains("Entry withdrawn")
    );

    // Before `closes` nothing happens.
    assert_eq!(club.app.close_entries().await, 0);
    // At closes: Ana, Zoe and Bor play; Dana (unconfirmed) is told why not.
    club.app
        .set(Utc.with_ymd_and_hms(2027, 1, 15, 0, 0, 0).unwrap());
    assert_eq!(club.app.close_entries().await, 1);
    assert_eq!(club.app.close_entries().await, 0, "closed once");
    let sent = club.read().await;
    for p in [&ana, &bor, &zoe] {
        let mine: Vec<&Sent> = sent
            .iter()
            .filter(|m| m.to == p.email.to_string())
            .collect();
        assert!(
            mine.iter().any(|m| m.subject.contains("Open 2027")),
            "{} told: {mine:#?}",
            p.email
        );
        assert!(mine.len() >= 2, "{} gets a game mail too", p.email);
    }
    assert!(one(&sent, "dana@players.test").text.contains("potrdili"));
    assert!(!sent.iter().any(|m| m.to == "cene@players.test"));
    let statuses = club.statuses(event).await;
    let seated = statuses
        .iter()
        .filter(|(_, s)| *s == EntryStatus::Seated)
        .count();
    assert_eq!(seated, 3, "{statuses:?}");
    let games = {
        let mut tx = club.app.store.begin().await.unwrap();
        let g = tx.event_games(event).await.unwrap();
        tx.commit().await.unwrap();
        g
    };
    assert_eq!(games.len(), 3, "a round robin of three");
    let _ = dana;

    // A late entry: refused, nothing changes.
    let (_, sent) = club
        .write("cene@players.test", &format!("enter {}", event.0))
        .await;
    assert!(one(&sent, "cene@players.test").text.contains("closed"));
    assert_eq!(club.statuses(event).await, statuses);
}

async fn too_few_entries_start_nothing_and_the_td_is_told(db: &TestDb) {
    let mut club = Club::new(db).await;
    let [ana, ..] = players(&club).await;
    let (event, _) = club
        .app
        .open_event(&event_file("Small", "2027-01-10", "players", 6))
        .await;
    let addr = ana.email.to_string();
    club.write(&addr, &format!("enter {}", event.0)).await;
    club.reply_to_last(&addr, &addr, "").await;
    club.app
        .set(Utc.with_ymd_and_hms(2027, 1, 11, 0, 0, 0).unwrap());
    assert_eq!(club.app.close_entries().await, 1);
    let sent = club.read().await;
    assert!(
        one(&sent, "td@dopis.test")
            .subject
            .contains("Too few entries")
    );
    assert!(one(&sent, &addr).text.contains("too few entered"));
    let mut tx = club.app.store.begin().await.unwrap();
    assert!(tx.event_games(event).await.unwrap().is_empty());
    assert_eq!(
        tx.event(event).await.unwrap().status,
        dopis::domain::event::EventStatus::Open
    );
    tx.commit().await.unwrap();
}

async fn refusals_are_answered_in_the_senders_language_and_change_nothing(db: &TestDb) {
    let mut club = Club::new(db).await;
    let [_, _, _, dana] = players(&club).await;
    let (event, _) = club
        .app
        .open_event(&event_file("Members", "2027-01-10", "players", 3))
        .await;
    // A stranger to a players-only event, in German.
    let (_, sent) = club
        .write("max@outside.test", &format!("anmelden {}", event.0))
        .await;
    let no = one(&sent, "max@outside.test");
    assert!(no.text.contains("nur eingetragene"), "{}", no.text);
    // No such event, in Dana's Slovenian.
    let (_, sent) = club.write("dana@players.test", "prijava 99").await;
    assert!(
        one(&sent, "dana@players.test")
            .text
            .contains("turnirja #99")
    );
    // Withdrawing an entry never made.
    let (_, sent) = club
        .write("dana@players.test", &format!("odjava {}", event.0))
        .await;
    assert!(
        one(&sent, "dana@players.test")
            .text
            .contains("niste prijavljeni")
    );
    // An entry command without a usable number is answered about entries,
    // in Dana's language, and not as a mail to no game.
    for wrote in ["prijava", "prijava -3", "odjava #x"] {
        let (_, sent) = club.write("dana@players.test", wrote).await;
        let no = one(&sent, "dana@players.test");
        assert!(
            no.text.contains("ne navaja turnirja"),
            "{wrote}: {}",
            no.text
        );
        assert!(no.subject.contains("številko turnirja"), "{}", no.subject);
    }
    assert!(club.statuses(event).await.is_empty());
    // Strangers are limited per address and hour: the fourth is not answered.
    for n in 0..3 {
        let other = club
            .app
            .open_event(&event_file(
                &format!("Anyone {n}"),
                "2027-01-10",
                "anyone",
                3,
            ))
            .await
            .0;
        let (_, sent) = club
            .write("spam@outside.test", &format!("enter {}", other.0))
            .await;
        assert_eq!(sent.len(), 1);
    }
    let fourth = club
        .app
        .open_event(&event_file("Anyone 4", "2027-01-10", "anyone", 3))
        .await
        .0;
    let (done, sent) = club
        .write("spam@outside.test", &format!("enter {}", fourth.0))
        .await;
    assert!(matches!(done, Handled::Ignored(_)), "{done:?}");
    assert!(sent.is_empty());
    // A stranger's display name keeps only what it visibly says: no
    // right-to-left override turning it around, no zero-width space.
    let (_, sent) = club
        .write(
            "\"\u{202e}Ann\u{200b} Lee\" <ann@outside.test>",
            &format!("enter {}", fourth.0),
        )
        .await;
    let ask = one(&sent, "ann@outside.test");
    assert!(ask.text.contains("as \"Ann Lee\""), "{}", ask.text);
    let _ = dana;
}

async fn an_open_class_starts_a_section_each_time_enough_wait(db: &TestDb) {
    let mut club = Club::new(db).await;
    let file = "name = \"Open 12\"\nkind = \"round-robin\"\ntds = [\"td@dopis.test\"]\n\
                [entries]\ncloses = \"2027-03-01\"\nopen_to = \"anyone\"\nsection_size = 3\n";
    let (class, _) = club.app.open_event(file).await;
    let mut queue_mails = Vec::new();
    for n in 1..=7 {
        let addr = format!("p{n}@players.test");
        club.write(
            &format!("Player {n} <{addr}>"),
            &format!("enter {}", class.0),
        )
        .await;
        let (_, sent) = club.reply_to_last(&addr, &addr, "").await;
        queue_mails.push(one(&sent, &addr));
        // Sections start at the daemon's pass.
        club.app.close_entries().await;
        club.read().await;
    }
    // The second entrant was told its place; the third filled a section.
    assert!(
        queue_mails[1].text.contains("number 2 in the queue"),
        "{}",
        queue_mails[1].text
    );
    let mut tx = club.app.store.begin().await.unwrap();
    let sections = tx.sections_of(class).await.unwrap();
    assert_eq!(sections.len(), 2, "two sections of three from seven");
    for (i, s) in sections.iter().enumerate() {
        let ev = tx.event(*s).await.unwrap();
        assert_eq!(ev.name, format!("Open 12/{}", i + 1));
        assert_eq!(ev.status, dopis::domain::event::EventStatus::Started);
        assert_eq!(tx.event_games(*s).await.unwrap().len(), 3);
    }
    tx.commit().await.unwrap();
    let seated = club
        .mails
        .iter()
        .filter(|m| m.subject.contains("has started: you are in"))
        .count();
    assert_eq!(seated, 6);
    assert!(
        club.mails
            .iter()
            .any(|m| m.to == "p4@players.test" && m.text.contains("Open 12/2")),
        "p4 is told its section"
    );
    // The seventh waits; at closes it is told the queue closed.
    let waiting: Vec<_> = club
        .statuses(class)
        .await
        .into_iter()
        .filter(|(_, s)| *s == EntryStatus::Confirmed)
        .collect();
    assert_eq!(
        waiting,
        [("p7@players.test".to_string(), EntryStatus::Confirmed)]
    );
    club.app
        .set(Utc.with_ymd_and_hms(2027, 3, 2, 0, 0, 0).unwrap());
    assert_eq!(club.app.close_entries().await, 1);
    let sent = club.read().await;
    assert!(one(&sent, "p7@players.test").text.contains("queue closed"));
}

async fn three_groups_of_five_advance_to_a_final_of_six_by_themselves(db: &TestDb) {
    use dopis::domain::chess::outcome::GameResult;
    let mut club = Club::new(db).await;
    let mut file = String::from(
        "name = \"Cup\"\nkind = \"round-robin\"\ntds = [\"td@dopis.test\"]\n\
         [stages]\ngroups = 3\nqualify = 2\ntie_at_line = \"starting-number\"\n",
    );
    for n in 1..=15 {
        file.push_str(&format!(
            "[[players]]\nemail = \"p{n}@players.test\"\nname = \"Player {n}\"\n"
        ));
    }
    let (cup, games) = club.app.event(&file).await;
    assert_eq!(games.len(), 30, "three round robins of five: 10 games each");
    club.read().await;
    let groups = {
        let mut tx = club.app.store.begin().await.unwrap();
        let g = tx.sections_of(cup).await.unwrap();
        tx.commit().await.unwrap();
        g
    };
    assert_eq!(groups.len(), 3);
    let p14 = club.app.player_by_email("p14@players.test").await;
    // Every game drawn but Player 14's, who wins all four in group 2. Group
    // 1 and 3 tie whole: the file's rule (starting number) decides at the
    // line; in group 2 Player 14 is first and the four tied second go by
    // starting number too.
    let mut last = None;
    for group in &groups {
        let mut tx = club.app.store.begin().await.unwrap();
        let games = tx.event_games(*group).await.unwrap();
        tx.commit().await.unwrap();
        for g in games {
            let result = if g.game.white == p14.id {
                GameResult::WhiteWins
            } else if g.game.black == p14.id {
                GameResult::BlackWins
            } else {
                GameResult::Draw
            };
            // Before the last game, the final waits.
            if let Some(()) = last.take() {
                assert_eq!(club.app.close_entries().await, 0);
            }
            adjudicate(&club, g.game.id, result, "adjudicated for the test").await;
            last = Some(());
        }
    }
    club.read().await;
    assert_eq!(club.app.close_entries().await, 1, "the final is built");
    assert_eq!(club.app.close_entries().await, 0, "once");
    let sent = club.read().await;
    let mut tx = club.app.store.begin().await.unwrap();
    let stages = tx.sections_of(cup).await.unwrap();
    assert_eq!(stages.len(), 4);
    let final_event = tx.event(stages[3]).await.unwrap();
    assert_eq!(final_event.name, "Cup final");
    let entrants = tx.entrants(stages[3]).await.unwrap();
    tx.commit().await.unwrap();
    let names: Vec<String> = entrants.iter().map(|e| e.player.name.clone()).collect();
    // Snake of 15 in file order: group 1 = 1 6 7 12 13, group 2 = 2 5 8 11
    // 14, group 3 = 3 4 9 10 15; winners first, then the seconds.
    assert_eq!(
        names,
        [
            "Player 1",
            "Player 14",
            "Player 3",
            "Player 6",
            "Player 2",
            "Player 4"
        ]
    );
    let through = sent
        .iter()
        .filter(|m| m.subject.contains("through to the final"))
        .count();
    assert_eq!(through, 6 + 9, "every group player is told, in or out");
    assert!(
        sent.iter()
            .any(|m| m.to == "p14@players.test" && m.subject.starts_with("[dopis] You are through"))
    );
}

/// Classes that build on each other, as ICCF's Open and Higher classes
/// do: a section of the open class promotes by place or by share of the
/// points when its last game ends; the class above takes an entry only
/// with a qualification to spare, each good for one entry; a TD's result
/// after the promotions were recorded is told, not applied.
async fn a_section_promotes_and_the_class_above_takes_only_the_promoted(db: &TestDb) {
    use dopis::domain::chess::outcome::{GameResult, ResultKind};
    use dopis::service::td::{self, Ruling};
    let mut club = Club::new(db).await;
    let open = "name = \"Open 12\"\nkind = \"round-robin\"\ntds = [\"td@dopis.test\"]\n\
                [entries]\ncloses = \"2027-03-01\"\nopen_to = \"anyone\"\nsection_size = 3\n\
                promotes = { place = 1, percent = 50, to = \"Higher\" }\n";
    let (class, _) = club.app.open_event(open).await;
    let higher = |name: &str| {
        format!(
            "name = \"{name}\"\nkind = \"round-robin\"\ntds = [\"td@dopis.test\"]\n\
             [entries]\ncloses = \"2027-06-01\"\nrequires = \"Higher\"\n"
        )
    };
    let (above, _) = club.app.open_event(&higher("Higher 1")).await;
    let (other, _) = club.app.open_event(&higher("Higher 2")).await;
    for n in 1..=3 {
        let addr = format!("p{n}@players.test");
        club.write(
            &format!("Player {n} <{addr}>"),
            &format!("enter {}", class.0),
        )
        .await;
        club.reply_to_last(&addr, &addr, "").await;
    }
    club.app.close_entries().await;
    club.read().await;
    let mut tx = club.app.store.begin().await.unwrap();
    let section = tx.sections_of(class).await.unwrap()[0];
    let games = tx.event_games(section).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(games.len(), 3);

    // Not promoted yet: the class above refuses, saying why and how.
    let (_, sent) = club
        .write("p1@players.test", &format!("enter {}", above.0))
        .await;
    let no = one(&sent, "p1@players.test");
    assert!(
        no.text.contains("only players holding the \"Higher\"")
            && no.text.contains("you hold none to spare"),
        "{}",
        no.text
    );
    assert!(club.statuses(above).await.is_empty(), "nothing entered");

    // Player 1 wins both; Player 2 beats Player 3: 1 of 2 is 50%.
    let ids = [
        club.app.player_by_email("p1@players.test").await.id,
        club.app.player_by_email("p2@players.test").await.id,
        club.app.player_by_email("p3@players.test").await.id,
    ];
    let td_addr = dopis::domain::address::EmailAddress::parse("td@dopis.test").unwrap();
    let rank = |id| ids.iter().position(|p| *p == id).unwrap();
    for (i, g) in games.iter().enumerate() {
        let (w, b) = (rank(g.game.white), rank(g.game.black));
        let result = if w < b {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        };
        adjudicate(&club, g.game.id, result, "adjudicated for the test").await;
        if i < 2 {
            club.app.close_entries().await;
            let mut tx = club.app.store.begin().await.unwrap();
            assert!(
                tx.qualifications_of(ids[0]).await.unwrap().is_empty(),
                "nothing recorded while a game is played"
            );
            tx.commit().await.unwrap();
        }
    }
    club.read().await;
    assert!(
        club.app.close_entries().await >= 1,
        "the promotions are recorded"
    );
    let sent = club.read().await;
    let promoted: Vec<&str> = sent
        .iter()
        .filter(|m| m.subject.contains("Promoted: Higher (Open 12/1)"))
        .map(|m| m.to.as_str())
        .collect();
    assert_eq!(
        promoted,
        ["p1@players.test", "p2@players.test"],
        "{sent:#?}"
    );
    let p1 = one(&sent, "p1@players.test");
    assert!(
        p1.text.contains("you finished in place 1 with 2 of 2"),
        "{}",
        p1.text
    );
    club.app.close_entries().await;
    assert!(club.read().await.is_empty(), "recorded once, told once");

    // Player 1 enters the class above; Player 3 is refused; Player 1's
    // one qualification is held by that entry, so a second class above
    // refuses them.
    club.write("p1@players.test", &format!("enter {}", above.0))
        .await;
    let (_, sent) = club
        .reply_to_last("p1@players.test", "p1@players.test", "")
        .await;
    assert!(
        one(&sent, "p1@players.test")
            .subject
            .contains("You have entered"),
        "{sent:#?}"
    );
    let (_, sent) = club
        .write("p3@players.test", &format!("enter {}", above.0))
        .await;
    assert!(
        one(&sent, "p3@players.test")
            .text
            .contains("you hold none to spare")
    );
    let (_, sent) = club
        .write("p1@players.test", &format!("enter {}", other.0))
        .await;
    assert!(
        one(&sent, "p1@players.test")
            .text
            .contains("you hold none to spare")
    );
    assert_eq!(
        club.statuses(above).await,
        [("p1@players.test".to_string(), EntryStatus::Confirmed)]
    );
    assert!(club.statuses(other).await.is_empty());

    // A TD's late result: Player 2 beat Player 3 is made a draw. The
    // promotions stay as recorded; the TD is told who would not earn it.
    let late_game = games
        .iter()
        .find(|g| ![g.game.white, g.game.black].contains(&ids[0]))
        .unwrap();
    let mut tx = club.app.store.begin().await.unwrap();
    td::set_result(
        &mut tx,
        club.app.post(),
        late_game.game.id,
        Ruling::Result(GameResult::Draw, ResultKind::Adjudication),
        "a late ruling",
        &td_addr,
        club.app.now(),
    )
    .await
    .unwrap();
    let late = td::late_for_promotions(&mut tx, late_game.game.id)
        .await
        .unwrap()
        .expect("a late result");
    assert_eq!(late.no_longer, ["Player 2"]);
    assert!(late.now_earns.is_empty());
    assert!(
        late.describe().contains("stay as recorded"),
        "{}",
        late.describe()
    );
    assert_eq!(tx.qualifications_of(ids[1]).await.unwrap().len(), 1);
    tx.commit().await.unwrap();
}

/// Team stages, as ICCF's olympiad preliminaries: six teams of two boards
/// in two groups of three (by the snake), the best two teams of each to a
/// final olympiad of four, built and started by itself; every player, board
/// or reserve, is told whether their team went through; a TD's result that
/// changes the group's order after that is told, not applied.
async fn an_olympiad_plays_preliminary_groups_of_teams_then_a_final_by_itself(db: &TestDb) {
    use dopis::domain::chess::outcome::{GameResult, ResultKind};
    use dopis::service::td::{self, Ruling, StoredEvent};
    let mut club = Club::new(db).await;
    let mut file = String::from(
        "name = \"Olympiad\"\nkind = \"olympiad\"\nboards = 2\ntds = [\"td@dopis.test\"]\n\
         [stages]\ngroups = 2\nqualify = 2\ntie_at_line = \"starting-number\"\n",
    );
    for t in 1..=6 {
        file.push_str(&format!("[[teams]]\nname = \"Team {t}\"\n"));
        for b in 1..=2 {
            file.push_str(&format!(
                "[[teams.boards]]\nemail = \"t{t}b{b}@players.test\"\nname = \"T{t} B{b}\"\n"
            ));
        }
        if t == 1 {
            file.push_str("[[teams.reserves]]\nemail = \"t1r@players.test\"\nname = \"T1 R\"\n");
        }
    }
    let (olympiad, _) = club.app.event(&file).await;
    club.read().await;
    let mut tx = club.app.store.begin().await.unwrap();
    let groups = tx.sections_of(olympiad).await.unwrap();
    assert_eq!(groups.len(), 2);
    let mut names = Vec::new();
    for g in &groups {
        let ev = StoredEvent::load(&mut tx, *g).await.unwrap();
        names.push(ev.teams.iter().map(|t| t.name.clone()).collect::<Vec<_>>());
    }
    tx.commit().await.unwrap();
    // All unrated: the file's order, snaked.
    assert_eq!(
        names,
        [
            ["Team 1", "Team 4", "Team 5"],
            ["Team 2", "Team 3", "Team 6"]
        ]
    );
    // The team listed first wins every board.
    let team_of = |email: &str| -> u32 { email[1..2].parse().unwrap() };
    let td_addr = dopis::domain::address::EmailAddress::parse("td@dopis.test").unwrap();
    let mut games = Vec::new();
    for g in &groups {
        let mut tx = club.app.store.begin().await.unwrap();
        games.extend(tx.event_games(*g).await.unwrap());
        tx.commit().await.unwrap();
    }
    assert_eq!(
        games.len(),
        2 * 3 * 2,
        "three matches of two boards a group"
    );
    let mut white_of = std::collections::HashMap::new();
    for (i, g) in games.iter().enumerate() {
        let white = club.app.player_row(g.game.white).await.email.to_string();
        let black = club.app.player_row(g.game.black).await.email.to_string();
        white_of.insert(g.game.id, (team_of(&white), team_of(&black)));
        let result = if team_of(&white) < team_of(&black) {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        };
        if i > 0 {
            assert_eq!(club.app.close_entries().await, 0, "the final waits");
        }
        adjudicate(&club, g.game.id, result, "adjudicated for the test").await;
    }
    club.read().await;
    assert_eq!(club.app.close_entries().await, 1, "the final is built");
    assert_eq!(club.app.close_entries().await, 0, "once");
    let sent = club.read().await;
    let mut tx = club.app.store.begin().await.unwrap();
    let stages = tx.sections_of(olympiad).await.unwrap();
    assert_eq!(stages.len(), 3);
    let fin = StoredEvent::load(&mut tx, stages[2]).await.unwrap();
    let final_games = tx.event_games(stages[2]).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!(fin.record.name, "Olympiad final");
    let teams: Vec<&str> = fin.teams.iter().map(|t| t.name.as_str()).collect();
    // Winners first, then the seconds.
    assert_eq!(teams, ["Team 1", "Team 2", "Team 4", "Team 3"]);
    assert_eq!(final_games.len(), 6 * 2, "six matches of two boards");
    assert!(
        fin.entrants
            .iter()
            .any(|e| e.player.email.as_str() == "t1r@players.test" && e.seat.is_none()),
        "the reserve goes with the team"
    );
    let told: Vec<(&str, bool)> = sent
        .iter()
        .filter(|m| m.subject.contains("through to the final"))
        .map(|m| (m.to.as_str(), m.subject.contains("You are through")))
        .collect();
    assert_eq!(told.len(), 13, "every board and the reserve: {told:?}");
    assert_eq!(told.iter().filter(|(_, t)| *t).count(), 9);
    assert!(told.contains(&("t1r@players.test", true)));
    assert!(told.contains(&("t5b1@players.test", false)));
    assert!(
        sent.iter().any(|m| m.to == "t3b2@players.test"
            && (m.subject.contains("Your move") || m.subject.contains("has started"))),
        "the final's first mails follow"
    );

    // Team 5 is given both boards against Team 4 after the final was
    // built: the group's order changes, the final does not.
    let late: Vec<_> = games
        .iter()
        .filter(|g| {
            let (w, b) = white_of[&g.game.id];
            [w, b].contains(&4) && [w, b].contains(&5)
        })
        .collect();
    assert_eq!(late.len(), 2);
    let mut note = None;
    for g in late {
        let (w, _) = white_of[&g.game.id];
        let result = if w == 5 {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        };
        let mut tx = club.app.store.begin().await.unwrap();
        td::set_result(
            &mut tx,
            club.app.post(),
            g.game.id,
            Ruling::Result(result, ResultKind::Adjudication),
            "a late ruling",
            &td_addr,
            club.app.now(),
        )
        .await
        .unwrap();
        note = td::late_for_final(&mut tx, g.game.id).await.unwrap();
        tx.commit().await.unwrap();
    }
    let note = note.expect("told it is late");
    assert_eq!(note.now_through, ["Team 5"]);
    assert_eq!(note.no_longer, ["Team 4"]);
    assert_eq!(
        club.app.close_entries().await,
        0,
        "the final is not built again"
    );
}

/// A TD's result on a game (`dopis game result`), committed.
async fn adjudicate(
    club: &Club,
    game: dopis::domain::ids::GameId,
    result: dopis::domain::chess::outcome::GameResult,
    reason: &str,
) {
    use dopis::domain::chess::outcome::ResultKind;
    use dopis::service::td::{self, Ruling};
    let td = dopis::domain::address::EmailAddress::parse("td@dopis.test").unwrap();
    let mut tx = club.app.store.begin().await.unwrap();
    td::set_result(
        &mut tx,
        club.app.post(),
        game,
        Ruling::Result(result, ResultKind::Adjudication),
        reason,
        &td,
        club.app.now(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

async fn a_swiss_event_takes_its_players_by_mail_and_pairs_round_1_when_entries_close(db: &TestDb) {
    let mut club = Club::new(db).await;
    let four = players(&club).await;
    let mut all: Vec<String> = four.iter().map(|p| p.email.to_string()).collect();
    for (email, name) in [
        ("eva@players.test", "Eva Kos"),
        ("filip@players.test", "Filip Mlakar"),
    ] {
        club.app.player(email, name, Lang::En, None).await;
        all.push(email.to_string());
    }
    let file = "name = \"Swiss by mail\"\nkind = \"swiss\"\nrounds = 3\ntds = [\"td@dopis.test\"]\n\
                time_control = \"10/50d\"\n\
                [entries]\ncloses = \"2027-01-14\"\nmin = 4\nopen_to = \"players\"\n";
    let (event, _) = club.app.open_event(file).await;
    for who in &all {
        club.write(who, &format!("enter {}", event.0)).await;
        let (_, sent) = club.reply_to_last(who, who, "yes").await;
        // Told they are in, in their language (Dana's is Slovenian).
        let told = one(&sent, who).subject;
        assert!(told.contains("Swiss by mail"), "{who}: {told}");
    }
    club.app
        .set(Utc.with_ymd_and_hms(2027, 1, 15, 0, 0, 0).unwrap());
    assert_eq!(club.app.close_entries().await, 1);
    assert_eq!(club.app.close_entries().await, 0, "closed once");
    let sent = club.read().await;
    let mut tx = club.app.store.begin().await.unwrap();
    let games = tx.event_games(event).await.unwrap();
    let rounds = tx.swiss_rounds(event).await.unwrap();
    tx.commit().await.unwrap();
    // Six entrants: round 1 of the Swiss, three games, no bye; the
    // other rounds wait for it.
    assert_eq!(games.len(), 3, "{games:?}");
    assert!(games.iter().all(|g| g.round == 1));
    assert_eq!(rounds.len(), 1);
    for who in &all {
        assert!(
            sent.iter().any(|m| &m.to == who
                && (m.text.contains("Swiss by mail, round 1, board")
                    || m.text.contains("Swiss by mail, 1. kolo, "))),
            "{who} is told of their round 1 game: {:?}",
            sent.iter().map(|m| (&m.to, &m.subject)).collect::<Vec<_>>()
        );
    }
}
