//! Mail loops: a player whose mail client answers every mail we send with
//! an automatic reply (in the styles of the vendors: RFC 3834, Exchange's
//! headers, "Automatic reply:" in several languages, our own X-Loop copied
//! back, vacation with `Precedence: bulk` …), who still plays her games; and
//! a player whose address bounces every mail (a DSN returning our
//! Message-ID). Over many passes of the real `dopis serve --once`.
//!
//! PRODUCT.md: "No mail loops: never auto-answer auto-replies, bounces, or
//! list mail". So: no answer to any automatic mail, the auto-replies never
//! move a piece, the games go on; the bouncing player is paused and their
//! TD told once, and no more mail goes to the address.

use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

use super::observe::{self, Observed};
use super::play::{self, SCRIPT, Table};
use super::{Scale, figure};
use crate::club::{Club, Sent};
use crate::support::{TestDb, dopis, ok};

const RESPONDER: &str = "alice@players.test";
const BOUNCER: &str = "dave@players.test";
const TD: &str = "tina@club.test";

/// The automatic replies of the responder, one style after another.
const STYLES: [&str; 16] = [
    "RFC 3834 vacation (Auto-Submitted: auto-replied)",
    "Exchange out of office (X-Auto-Response-Suppress)",
    "Exchange inbox rule (X-MS-Exchange-Inbox-Rules-Loop)",
    "Automatic reply: (en)",
    "Samodejni odgovor: (sl)",
    "Autoodpowiedź: (pl)",
    "Automātiskā atbilde: (lv)",
    "Automatische Antwort: (de)",
    "Réponse automatique : (fr)",
    "Respuesta automática: (es)",
    "Out of Office: (older Exchange)",
    "our X-Loop copied back",
    "vacation with Precedence: bulk",
    "Precedence: auto_reply",
    "X-Autoreply: yes",
    "read receipt (disposition-notification)",
];

/// The responder's automatic reply to one of our mails in `style`: to the
/// mail's Reply-To (with her token) or to our From address, threaded, its
/// first line a move that is legal now (a machine must never play it).
fn auto_reply(style: &str, ours: &Sent, n: usize, legal_now: &str) -> (String, Vec<u8>) {
    let id = format!("auto{n}.{:08x}@players.test", rand::random::<u32>());
    let to = match (&ours.reply_to, n % 2) {
        (Some(reply_to), 0) => reply_to.clone(),
        _ => "chess@chess.test".to_string(),
    };
    let prefixed = |prefix: &str| format!("{prefix} {}", ours.subject);
    let (subject, headers) = match style {
        "RFC 3834 vacation (Auto-Submitted: auto-replied)" => (
            prefixed("Auto:"),
            "Auto-Submitted: auto-replied\r\n".to_string(),
        ),
        "Exchange out of office (X-Auto-Response-Suppress)" => (
            prefixed("Automatic reply:"),
            "X-Auto-Response-Suppress: All\r\nX-MS-Exchange-Organization-AutoReply: OOF\r\n"
                .to_string(),
        ),
        "Exchange inbox rule (X-MS-Exchange-Inbox-Rules-Loop)" => (
            prefixed("RE:"),
            format!("X-MS-Exchange-Inbox-Rules-Loop: {RESPONDER}\r\n"),
        ),
        "Automatic reply: (en)" => (prefixed("Automatic reply:"), String::new()),
        "Samodejni odgovor: (sl)" => (prefixed("Samodejni odgovor:"), String::new()),
        "Autoodpowiedź: (pl)" => (prefixed("Autoodpowiedź:"), String::new()),
        "Automātiskā atbilde: (lv)" => (prefixed("Automātiskā atbilde:"), String::new()),
        "Automatische Antwort: (de)" => (prefixed("Automatische Antwort:"), String::new()),
        "Réponse automatique : (fr)" => (prefixed("Réponse automatique :"), String::new()),
        "Respuesta automática: (es)" => (prefixed("Respuesta automática:"), String::new()),
        "Out of Office: (older Exchange)" => (prefixed("Out of Office:"), String::new()),
        "our X-Loop copied back" => (
            prefixed("Re:"),
            "X-Loop: chess@chess.test\r\nAuto-Submitted: no\r\n".to_string(),
        ),
        "vacation with Precedence: bulk" => (prefixed("Re:"), "Precedence: bulk\r\n".to_string()),
        "Precedence: auto_reply" => (prefixed("Re:"), "Precedence: auto_reply\r\n".to_string()),
        "X-Autoreply: yes" => (prefixed("Re:"), "X-Autoreply: yes\r\n".to_string()),
        "read receipt (disposition-notification)" => {
            let raw = format!(
                "From: Alice <{RESPONDER}>\r\nTo: {to}\r\nSubject: {}\r\nMessage-ID: <{id}>\r\n\
                 In-Reply-To: <{m}>\r\nReferences: <{m}>\r\nMIME-Version: 1.0\r\n\
                 Content-Type: multipart/report; report-type=disposition-notification; boundary=\"r\"\r\n\r\n\
                 --r\r\nContent-Type: text/plain\r\n\r\n{legal_now}\r\n\r\nYour message was read.\r\n\
                 --r\r\nContent-Type: message/disposition-notification\r\n\r\n\
                 Final-Recipient: rfc822;{RESPONDER}\r\nOriginal-Message-ID: <{m}>\r\n\
                 Disposition: automatic-action/MDN-sent-automatically; displayed\r\n--r--\r\n",
                prefixed("Read:"),
                m = ours.message_id,
            );
            return (id, raw.into_bytes());
        }
        other => panic!("no auto-reply style {other}"),
    };
    let raw = format!(
        "From: Alice <{RESPONDER}>\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\
         In-Reply-To: <{m}>\r\nReferences: <{m}>\r\nDate: Wed, 4 Mar 2026 09:00:00 +0000\r\n\
         {headers}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         {legal_now}\r\n\r\nI am away until Monday and will answer your mail then.\r\n\r\n\
         > {}\r\n",
        ours.subject,
        m = ours.message_id,
    );
    (id, raw.into_bytes())
}

/// A Postfix delivery status notification: `failed` did not take our mail
/// `returned`.
fn dsn(failed: &str, returned: &str, n: usize) -> (String, Vec<u8>) {
    let id = format!("dsn{n}.{:08x}@mx.players.test", rand::random::<u32>());
    let raw = format!(
        "Return-Path: <>\r\nFrom: MAILER-DAEMON@mx.players.test (Mail Delivery System)\r\n\
         To: chess@chess.test\r\nSubject: Undelivered Mail Returned to Sender\r\n\
         Message-Id: <{id}>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"b{n}\"\r\n\r\n\
         --b{n}\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n\r\n\
         --b{n}\r\nContent-Type: message/delivery-status\r\n\r\n\
         Reporting-MTA: dns; mx.players.test\r\n\r\n\
         Final-Recipient: rfc822; {failed}\r\nAction: failed\r\nStatus: 5.1.1\r\n\
         Diagnostic-Code: smtp; 550 5.1.1 User unknown\r\n\r\n\
         --b{n}\r\nContent-Type: text/rfc822-headers\r\n\r\n\
         From: dopis <chess@chess.test>\r\nTo: {failed}\r\nMessage-ID: <{returned}>\r\n\
         X-Loop: chess@chess.test\r\n\r\n--b{n}--\r\n"
    );
    (id, raw.into_bytes())
}

async fn an_auto_responder_and_a_bouncing_address_get_no_answer_and_no_loop(db: &TestDb) {
    let scale = Scale::from_env();
    let test = if db.url.starts_with("sqlite") {
        "loops (SQLite)"
    } else {
        "loops (PostgreSQL)"
    };
    let rounds = scale.pick(20, 200);

    // Alice (the auto-responder) plays Bob and Carol; Dave, whose address
    // bounces, plays in Tina's cup.
    let club = Club::new(db);
    club.add_player(db, "carol@players.test", "Carol");
    club.new_game(db, "carol@players.test", RESPONDER);
    club.add_player(db, TD, "Tina");
    std::fs::write(
        club.path().join("cup.toml"),
        format!(
            "name = \"Autumn cup\"\nkind = \"round-robin\"\ntds = [\"{TD}\"]\n\
             [[players]]\nemail = \"{BOUNCER}\"\nname = \"Dave\"\n\
             [[players]]\nemail = \"erin@players.test\"\nname = \"Erin\"\n\
             [[players]]\nemail = \"fran@players.test\"\nname = \"Fran\"\n"
        ),
    )
    .unwrap();
    ok(&dopis(club.path(), db, &["event", "create", "cup.toml"]));
    ok(&dopis(club.path(), db, &["event", "start", "1"]));
    let mut tables: Vec<Table> = play::all_tables(&club, db)
        .into_iter()
        .filter(|t| t.white == RESPONDER || t.black == RESPONDER)
        .collect();
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let started = Instant::now();
    let mut passes: Vec<Observed> = vec![observe::serve_once(club.path(), db)];

    let mut seen: HashSet<String> = HashSet::new();
    let mut automatic: Vec<(String, String)> = Vec::new(); // (Message-ID, style)
    let mut automatic_names: Vec<String> = Vec::new();
    let mut to_responder_per_round: Vec<usize> = Vec::new();
    let mut bounces = 0;
    let mut paused_at_round: Option<usize> = None;
    let mut to_bouncer_when_paused = 0;
    let mut finished = 0;
    let mut plies_played = 0;
    let mut n = 0;
    for round in 0..rounds {
        let sent = club.sent_mails();
        let plies = play::plies(&store).await;
        let fresh: Vec<&Sent> = sent
            .iter()
            .filter(|m| seen.insert(m.message_id.clone()))
            .collect();
        to_responder_per_round.push(fresh.iter().filter(|m| m.to == RESPONDER).count());
        for ours in fresh {
            n += 1;
            if ours.to == RESPONDER {
                // Her client answers every mail, with a move legal now.
                let legal_now = play::position_of(&ours.message_id)
                    .and_then(|(g, _)| plies.get(&g).copied().or(Some(0)))
                    .map(|p| SCRIPT[p.min(SCRIPT.len() - 1)])
                    .unwrap_or("e4");
                let style = STYLES[automatic.len() % STYLES.len()];
                let (id, raw) = auto_reply(style, ours, n, legal_now);
                automatic_names.push(club.deliver(&raw));
                automatic.push((id, style.to_string()));
            } else if ours.to == BOUNCER {
                // Every mail to Dave comes back, some reported twice (by two
                // relays): counted once.
                let copies = if n % 3 == 0 { 2 } else { 1 };
                for copy in 0..copies {
                    let (id, raw) = dsn(BOUNCER, &ours.message_id, n * 10 + copy);
                    automatic_names.push(club.deliver(&raw));
                    automatic.push((id, "bounce".to_string()));
                    bounces += 1;
                }
            }
        }
        // Dave still writes (his mail goes out; only mail to him bounces).
        club.deliver(
            format!(
                "From: {BOUNCER}\r\nTo: chess@chess.test\r\nSubject: my games\r\n\
                 Message-ID: <games{round}.{:08x}@players.test>\r\n\r\ngames\r\n",
                rand::random::<u32>()
            )
            .as_bytes(),
        );
        // The people play on: each game one move a round; a game at the end
        // of the script is resigned and a new one started.
        for t in &tables {
            let at = plies.get(&t.game).copied().unwrap_or(0);
            let Some(mail) = play::your_move_at(&sent, t.game, at) else {
                // A game started after the last pass: its first mail goes
                // out in the next.
                assert_eq!(at, 0, "no 'your move' mail of game {} at {at}", t.game);
                continue;
            };
            let text = SCRIPT.get(at).copied().unwrap_or("resign");
            let id = format!(
                "person.g{}.p{at}.{:08x}@players.test",
                t.game,
                rand::random::<u32>()
            );
            club.deliver(&play::reply_raw(mail, t.to_move(at), text, &id));
        }
        let pass = observe::serve_once(club.path(), db);
        let stop = pass.panicked() || !pass.status.success();
        passes.push(pass);
        assert!(!stop, "round {round}: {}", passes.last().unwrap().log);
        assert_eq!(play::waiting_in(&club.inbox()), 0, "round {round}");
        let now = play::plies(&store).await;
        for t in tables.iter_mut() {
            let at = now.get(&t.game).copied().unwrap_or(0);
            plies_played += at - plies.get(&t.game).copied().unwrap_or(0);
            if at == SCRIPT.len() && plies.get(&t.game) == Some(&at) {
                // Resigned this round: a new game of the same pair.
                finished += 1;
                t.game = club.new_game(db, &t.white, &t.black);
            }
        }
        if paused_at_round.is_none()
            && ok(&dopis(club.path(), db, &["player", "show", BOUNCER])).contains("paused since")
        {
            paused_at_round = Some(round);
            to_bouncer_when_paused = club.sent_mails().iter().filter(|m| m.to == BOUNCER).count();
        }
    }
    let elapsed = started.elapsed();

    // No answer to any automatic mail, and every one recorded as ignored.
    let outbox = observe::outbox(&store).await;
    let automatic_ids: HashSet<&str> = automatic.iter().map(|(id, _)| id.as_str()).collect();
    let answers_to_machines: Vec<&observe::Outgoing> = outbox
        .iter()
        .filter(|m| m.answers.iter().any(|a| automatic_ids.contains(a.as_str())))
        .collect();
    let inbound = observe::inbound(&store).await;
    let not_ignored: Vec<String> = automatic_names
        .iter()
        .filter_map(|name| {
            let (_, outcome) = inbound.get(&format!("maildir:{name}"))?;
            (!outcome.starts_with("ignored")).then(|| outcome.clone())
        })
        .collect();
    let unrecorded = automatic_names
        .iter()
        .filter(|name| !inbound.contains_key(&format!("maildir:{name}")))
        .count();
    // Our mails are marked as ours and as automatic.
    let unmarked: Vec<&observe::Outgoing> = outbox
        .iter()
        .filter(|m| m.x_loop != "chess@chess.test" || !m.auto_submitted.starts_with("auto-"))
        .collect();

    // The bouncing address: paused, its TD told once, nothing more sent to it.
    let notices: Vec<&observe::Outgoing> = outbox
        .iter()
        .filter(|m| m.recipient == TD && m.subject.contains("bounces"))
        .collect();
    let to_bouncer_at_end = club.sent_mails().iter().filter(|m| m.to == BOUNCER).count();
    let held = outbox.iter().filter(|m| m.recipient == BOUNCER).count() - to_bouncer_at_end;
    let mut per_style: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, style) in &automatic {
        *per_style.entry(style.as_str()).or_default() += 1;
    }

    figure(test, "rounds", rounds);
    figure(test, "automatic replies", automatic.len() - bounces);
    figure(test, "styles", per_style.len() - 1);
    figure(test, "bounces", bounces);
    figure(test, "answers to automatic mail", answers_to_machines.len());
    figure(test, "automatic mail not ignored", not_ignored.len());
    figure(
        test,
        "mails to the auto-responder per round, most",
        to_responder_per_round.iter().max().unwrap_or(&0),
    );
    figure(test, "moves played meanwhile", plies_played);
    figure(test, "games finished and started anew", finished);
    figure(
        test,
        "bouncing player paused in round",
        format!("{paused_at_round:?}"),
    );
    figure(test, "TD notices", notices.len());
    figure(
        test,
        "mails sent to the bouncing address (after its pause)",
        format!(
            "{to_bouncer_at_end} ({})",
            to_bouncer_at_end - to_bouncer_when_paused
        ),
    );
    figure(test, "mails held for it", held);
    figure(test, "total", format!("{elapsed:.1?}"));

    assert!(
        answers_to_machines.is_empty(),
        "answers to automatic mail: {answers_to_machines:#?}"
    );
    assert!(not_ignored.is_empty(), "{not_ignored:?}");
    assert_eq!(unrecorded, 0);
    assert!(unmarked.is_empty(), "{unmarked:#?}");
    assert_eq!(per_style.len(), STYLES.len() + 1, "{per_style:?}");
    assert!(plies_played >= rounds, "the games went on");
    for t in &tables {
        let moves = club.moves_of(db, t.game);
        let at = moves.len();
        assert_eq!(moves, SCRIPT[..at].to_vec(), "game {}", t.game);
    }
    assert!(paused_at_round.is_some(), "the bouncing player is paused");
    assert_eq!(notices.len(), 1, "the TD is told once: {notices:#?}");
    assert_eq!(
        to_bouncer_at_end, to_bouncer_when_paused,
        "mail went to the bouncing address after its pause"
    );
    assert!(held > 0, "Dave's answers are held");
    store.close().await;
}

crate::on_both_backends!(an_auto_responder_and_a_bouncing_address_get_no_answer_and_no_loop);
