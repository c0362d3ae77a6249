//! Half-point byes in a Swiss event (issue 25), through the real binary on
//! both backends: a player asks by mail to the club's address for a bye in
//! round 2 and is answered; round 2, paired by `dopis serve`, leaves them
//! out and tells them so; the event's TRF file shows the `H` and `dopis
//! swiss check` still pairs every round as dopis did; the standings give
//! them a draw's points. Asking too late, over the limit, in an event that
//! is not Swiss, in another's event or for a round the event has not is
//! answered with why and changes nothing (no row). A TD gives a bye by the
//! same rules (`dopis event bye`), the limit binding them too.

use dopis::adapter::store::Store;
use dopis::adapter::store::events::SwissBye;
use dopis::domain::ids::EventId;

use crate::club::{Club, Sent};
use crate::on_both_backends;
use crate::support::TestDb;
use crate::swiss_events::{Open, TD, player, swiss_file};

/// The byes stored for an event, straight from the store.
async fn byes(db: &TestDb, event: &str) -> Vec<SwissBye> {
    let store = Store::open(&db.url).await.unwrap();
    let mut tx = store.begin().await.unwrap();
    let byes = tx
        .swiss_byes(EventId(event.parse().unwrap()))
        .await
        .unwrap();
    drop(tx);
    store.close().await;
    byes
}

/// `from` replies `text` to their newest mail about a game (its reply
/// address proves the mail is theirs); the mails the next `dopis serve
/// --once` sent.
fn ask(s: &mut Open<'_>, from: &str, text: &str) -> Vec<Sent> {
    let mail = s
        .club
        .sent_mails()
        .into_iter()
        .rev()
        .find(|m| m.to == from && m.reply_to.as_deref().is_some_and(|r| r.contains("+g")))
        .unwrap_or_else(|| panic!("{from} has a mail about a game"));
    s.club.reply_to_mail(&mail, text);
    s.serve()
}

/// `from` writes `text` to the club's address, as anyone can.
fn ask_unproven(s: &mut Open<'_>, from: &str, text: &str) -> Vec<Sent> {
    let raw = format!(
        "From: {from}\r\nTo: chess@chess.test\r\nSubject: bye\r\nMessage-ID: <{:016x}@players.test>\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
        rand::random::<u64>(),
    );
    s.club.deliver(raw.as_bytes());
    s.serve()
}

/// The one answer about byes `sent` has for `to` (not the game's "your
/// message was passed on", when the reply had lines below the command),
/// its text unwrapped (one space between words) so a phrase is found
/// wherever the lines broke.
fn answer(sent: &[Sent], to: &str) -> Sent {
    let mine: Vec<&Sent> = sent
        .iter()
        .filter(|m| m.to == to && !m.subject.contains("Your message was passed on"))
        .collect();
    assert_eq!(mine.len(), 1, "one answer to {to}: {sent:?}");
    let mut got = mine[0].clone();
    got.text = got.text.split_whitespace().collect::<Vec<_>>().join(" ");
    got
}

/// A player's points in the event's standings (JSON).
fn points(s: &Open<'_>, event: &str, name: &str) -> f64 {
    let table = s.run(&["event", "standings", event, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&table).unwrap();
    let at = v["headings"]
        .as_array()
        .unwrap()
        .iter()
        .position(|h| h == "Pts")
        .unwrap_or_else(|| panic!("a Pts column: {table}"));
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {table}"))["values"][at]
        .as_f64()
        .unwrap()
}

async fn a_player_asks_by_mail_for_a_half_point_bye_and_round_two_pairs_without_them(db: &TestDb) {
    let mut s = Open {
        club: Club::empty(db, ""),
        db,
        seen: 0,
    };
    std::fs::write(
        s.club.path().join("open.toml"),
        swiss_file(8, 5, "max_half_point_byes = 1"),
    )
    .unwrap();
    let mut rr = format!(
        "name = \"Club RR\"\nkind = \"round-robin\"\ntds = [\"{TD}\"]\ntime_control = \"10/50d\"\n"
    );
    for n in 1..=4 {
        rr.push_str(&format!(
            "[[players]]\nemail = \"q{n}@players.test\"\nname = \"Other {n}\"\n"
        ));
    }
    std::fs::write(s.club.path().join("rr.toml"), rr).unwrap();
    let first_line = |out: String| out.lines().next().unwrap().trim().to_string();
    let event = first_line(s.run(&["event", "create", "open.toml"]));
    let other = first_line(s.run(&["event", "create", "rr.toml"]));
    s.run(&["event", "start", &event]);
    s.run(&["event", "start", &other]);
    s.serve();
    assert_eq!(
        s.games(&event).len(),
        4,
        "round 1: eight players, four games"
    );

    // Granted: answered, and one row.
    let p5 = player(5);
    let sent = ask(
        &mut s,
        &p5,
        &format!("Hello,\n\nbye {event} round 2\n\nThanks"),
    );
    let got = answer(&sent, &p5);
    assert!(
        got.subject.ends_with("] Half-point bye: round 2 of Open"),
        "{got:?}"
    );
    assert!(
        got.text.contains("you will not be paired that round")
            && got.text.contains("1 of the 1 half-point byes"),
        "{}",
        got.text
    );
    let held = byes(db, &event).await;
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0].round, 2);

    // From the address alone (no reply token), which anyone can forge:
    // refused, saying how to ask, and nothing changes.
    let p7 = player(7);
    let sent = ask_unproven(&mut s, &p7, &format!("bye {event} round 2"));
    let got = answer(&sent, &p7);
    assert!(
        got.text.contains("we cannot be sure it is from you")
            && got
                .text
                .contains(&format!("\"bye {event} round 2\" on the first line")),
        "{got:?}"
    );
    assert_eq!(byes(db, &event).await, held, "nothing changed");

    // Asked again: said so, nothing more.
    let sent = ask(&mut s, &p5, &format!("bye round 2 event {event}"));
    let got = answer(&sent, &p5);
    assert!(got.subject.contains("already"), "{got:?}");
    // Over the limit of one.
    let sent = ask(&mut s, &p5, &format!("bye {event} round 3"));
    let got = answer(&sent, &p5);
    assert!(
        got.subject.contains("] No bye in round 3")
            && got.text.contains("nothing was changed")
            && got.text.contains("you have used all 1 half-point byes"),
        "{got:?}"
    );
    // Not their event.
    let sent = ask(&mut s, "q1@players.test", &format!("bye {event} round 2"));
    let got = answer(&sent, "q1@players.test");
    assert!(got.text.contains("you do not play in \"Open\""), "{got:?}");
    // Not a Swiss event.
    let sent = ask(&mut s, &player(2), &format!("bye {other} round 2"));
    let got = answer(&sent, &player(2));
    assert!(
        got.text.contains("\"Club RR\" is not a Swiss event"),
        "{got:?}"
    );
    // A round the event has not, in Slovenian (player 3 reads Slovenian).
    let sent = ask(&mut s, &player(3), &format!("prosto kolo {event} kolo 9"));
    let got = answer(&sent, &player(3));
    assert!(
        got.subject.contains("Prostega kola v 9. kolu") && got.text.contains("kola od 1 do 5"),
        "{got:?}"
    );
    assert_eq!(byes(db, &event).await, held, "no refusal changed anything");

    // Round 1 ends (White resigns everywhere); round 2 pairs without
    // player 5, who is told.
    for (_, game, white, _, _) in s.games(&event) {
        let mail = s.club.newest_in_game(&white, game);
        s.club.reply_to_mail(&mail, "resign");
    }
    // One pass hears the results and pairs round 2; another finds nothing
    // more to do (either way, the mails of both are looked at).
    let mut sent = s.serve();
    sent.extend(s.serve());
    let games = s.games(&event);
    let round2: Vec<_> = games.iter().filter(|g| g.0 == 2).collect();
    assert_eq!(
        round2.len(),
        3,
        "seven to pair: three games and a bye: {games:?}"
    );
    assert!(
        round2.iter().all(|g| g.2 != p5 && g.3 != p5),
        "player 5 is not paired in round 2: {round2:?}"
    );
    let told: Vec<&Sent> = sent
        .iter()
        .filter(|m| m.to == p5 && m.subject.ends_with("Round 2 of Open: your half-point bye"))
        .collect();
    assert_eq!(told.len(), 1, "{sent:?}");
    let round1_points = {
        let (_, _, white, _, _) = games
            .iter()
            .find(|g| g.0 == 1 && (g.2 == p5 || g.3 == p5))
            .unwrap();
        if *white == p5 { 0.0 } else { 1.0 }
    };

    // Too late for round 2: the answer names round 3 as the next.
    let sent = ask(&mut s, &player(4), &format!("bye {event} round 2"));
    let got = answer(&sent, &player(4));
    assert!(
        got.text.contains("round 2 has been paired already")
            && got.text.contains(&format!("\"bye {event} round 3\"")),
        "{got:?}"
    );
    assert_eq!(byes(db, &event).await, held, "too late changes nothing");

    // A bye asked for in a reply to a game mail that says more for the
    // game (a line to the opponent below it): the bye is granted and the
    // game goes on with the rest, so the opponent gets the line.
    // (An English-reading player of round 2 with no bye yet.)
    let (asker, opponent) = round2
        .iter()
        .flat_map(|g| [(g.2.clone(), g.3.clone()), (g.3.clone(), g.2.clone())])
        .find(|(p, _)| [1, 2, 7, 8].map(player).contains(p))
        .unwrap();
    let sent = ask(
        &mut s,
        &asker,
        &format!("bye {event} round 3\nSorry, I travel that week."),
    );
    assert!(
        sent.iter()
            .any(|m| m.to == asker && m.subject.contains("Half-point bye: round 3 of Open")),
        "{sent:?}"
    );
    assert!(
        sent.iter()
            .any(|m| m.to == opponent && m.text.contains("Sorry, I travel that week.")),
        "the opponent gets the line: {sent:?}"
    );
    assert_eq!(byes(db, &event).await.len(), 2);

    // The TRF file shows the bye as `H`, and every round checks.
    let trf = s.run(&["event", "trf", &event]);
    assert!(trf.contains("0000 - H"), "{trf}");
    s.check_trf(&event, 2);
    // The standings give player 5 a draw's points for it.
    assert_eq!(points(&s, &event, "Player 05"), round1_points + 0.5);

    // A TD gives player 6 a bye in round 3: logged, and player 6 told (in
    // Slovenian).
    let out = s.run(&[
        "event",
        "bye",
        &event,
        "--email",
        &player(6),
        "--round",
        "3",
        "--reason",
        "asked by phone",
        "--by",
        TD,
    ]);
    assert!(out.contains("half-point bye in round 3"), "{out}");
    let sent = s.serve();
    let got = answer(&sent, &player(6));
    assert!(
        got.subject.contains("Prosto kolo za pol točke: 3. kolo")
            && got.text.contains("Vodja turnirja vam je dodelil")
            && got.text.contains("asked by phone"),
        "{got:?}"
    );
    let shown = s.run(&["event", "show", &event]);
    assert!(
        shown.contains("bye") && shown.contains("asked by phone"),
        "{shown}"
    );
    // The limit binds the TD too; nothing changes.
    let refused = s.refused(&[
        "event", "bye", &event, "--email", &p5, "--round", "4", "--reason", "asked", "--by", TD,
    ]);
    assert!(
        refused.contains("the limit binds a TD too") && refused.contains("Nothing was changed"),
        "{refused}"
    );
    assert_eq!(byes(db, &event).await.len(), 3);
}

on_both_backends!(a_player_asks_by_mail_for_a_half_point_bye_and_round_two_pairs_without_them,);
