//! Forgery and replay: many generated attempts to move, resign or offer a
//! draw in someone else's name, or to make a mail act twice, delivered
//! between the genuine moves of several games (two casual ones and an event
//! with a TD) and read by the real `dopis serve --once`.
//!
//! PRODUCT.md: "a move counts only if it comes from the registered address
//! of the player to move AND carries that player's token … A forged From
//! never moves a piece", and "a crash at any point loses no move and applies
//! none twice". So: no attempt acts on a game, every genuine move is played
//! exactly once, and refusals go only to registered addresses.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::observe::{self, Observed};
use super::play::{self, SCRIPT, Table};
use super::{Scale, figure};
use crate::club::{Club, Sent};
use crate::support::{TestDb, dopis, ok};

const STRANGER: &str = "mallory@evil.test";
const TD: &str = "tina@club.test";

/// Every kind of attempt.
const KINDS: [&str; 16] = [
    "a stranger with the right token",
    "another game's player with the right token",
    "the opponent with the right token",
    "the player with the opponent's token",
    "the player with another game's token",
    "the player with a made-up token",
    "the player with a token one character off",
    "a replayed Message-ID with a new text",
    "the same bytes again",
    "the same bytes under a new Message-ID",
    "a stale reply to an old your-move mail",
    "another's confirmation address",
    "a confirmation token one character off",
    "a player to the TD's report address",
    "a stranger to the TD's report address",
    "the TD with a report token one character off",
];

/// One character of a plus-address token changed (`chess+g1.TOKEN@…`).
fn one_off(address: &str, rng: &mut StdRng) -> String {
    let (local, domain) = address.split_once('@').unwrap();
    let (tag, token) = local.rsplit_once('.').unwrap();
    let mut t: Vec<char> = token.chars().collect();
    let i = rng.random_range(0..t.len());
    t[i] = if t[i] == 'z' { 'y' } else { 'z' };
    format!("{tag}.{}@{domain}", t.into_iter().collect::<String>())
}

fn mail(from: &str, to: &str, subject: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\
         Date: Tue, 3 Mar 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         {body}\r\n"
    )
    .into_bytes()
}

/// A mail with its Message-ID replaced.
fn with_message_id(raw: &[u8], old: &str, new: &str) -> Vec<u8> {
    String::from_utf8_lossy(raw)
        .replacen(&format!("<{old}>"), &format!("<{new}>"), 1)
        .into_bytes()
}

/// The Message-ID of a mail, without `<>`.
fn message_id(raw: &[u8]) -> Option<String> {
    mail_parser::MessageParser::default()
        .parse(raw)?
        .message_id()
        .map(str::to_string)
}

/// A genuine mail delivered earlier: its Message-ID and bytes.
#[derive(Clone)]
struct Genuine {
    game: i64,
    ply: usize,
    id: String,
    raw: Vec<u8>,
    name: String,
}

/// What the attempts may use of the games as they are now.
struct Board<'a> {
    tables: &'a [Table],
    plies: &'a BTreeMap<i64, usize>,
    sent: &'a [Sent],
    addresses: &'a HashMap<(i64, String), String>,
    genuine: &'a [Genuine],
    report_address: &'a str,
}

/// Words that would act on a game if carried out.
fn danger(rng: &mut StdRng, next: &str) -> String {
    match rng.random_range(0..3) {
        0 => next.to_string(),
        1 => "resign".to_string(),
        _ => format!("{next} draw"),
    }
}

/// The newest confirmation address a player got about `game` at `plies`
/// (a confirmation request shows the position it asks about).
fn confirmation_address(sent: &[Sent], player: &str, game: i64, plies: usize) -> Option<String> {
    sent.iter()
        .rev()
        .filter(|m| m.to == player && play::position_of(&m.message_id) == Some((game, plies)))
        .find_map(|m| m.reply_to.clone().filter(|r| r.contains("+c")))
}

/// Makes one attempt of `kind`, or `None` when the games offer nothing to
/// try it on yet (no earlier mail to replay, no confirmation asked).
fn attempt(kind: &str, serial: usize, rng: &mut StdRng, b: &Board<'_>) -> Option<Vec<u8>> {
    let plies_of = |t: &Table| b.plies.get(&t.game).copied().unwrap_or(0);
    // A game the kind can be tried on: one with a confirmation pending, or
    // old enough to have an old mail to answer.
    let fits = |t: &&Table| match kind {
        "another's confirmation address" | "a confirmation token one character off" => {
            let at = plies_of(t);
            confirmation_address(b.sent, t.to_move(at), t.game, at).is_some()
        }
        "a stale reply to an old your-move mail" => plies_of(t) >= 2,
        _ => true,
    };
    let choices: Vec<&Table> = b.tables.iter().filter(fits).collect();
    let t = *choices.get(rng.random_range(0..choices.len().max(1)))?;
    let plies = plies_of(t);
    let (mover, waiting) = (t.to_move(plies), t.waiting(plies));
    let address = |game: i64, p: &str| b.addresses.get(&(game, p.to_string())).cloned();
    let mover_address = address(t.game, mover)?;
    let next = SCRIPT[plies.min(SCRIPT.len() - 1)];
    let other = b.tables.iter().find(|o| o.game != t.game)?;
    let id = format!("f{serial}.{:08x}@forged.test", rng.random::<u32>());
    let subject = format!("Re: [dopis #{}] Your move", t.game);
    let body = danger(rng, next);
    Some(match kind {
        "a stranger with the right token" => mail(STRANGER, &mover_address, &subject, &id, &body),
        "another game's player with the right token" => {
            mail(&other.white, &mover_address, &subject, &id, &body)
        }
        "the opponent with the right token" => mail(waiting, &mover_address, &subject, &id, &body),
        "the player with the opponent's token" => {
            mail(mover, &address(t.game, waiting)?, &subject, &id, &body)
        }
        "the player with another game's token" => mail(
            mover,
            &address(other.game, &other.white)?,
            &subject,
            &id,
            &body,
        ),
        "the player with a made-up token" => mail(
            mover,
            &format!("chess+g{}.{:010x}@chess.test", t.game, rng.random::<u64>()),
            &subject,
            &id,
            &body,
        ),
        "the player with a token one character off" => {
            mail(mover, &one_off(&mover_address, rng), &subject, &id, &body)
        }
        "a replayed Message-ID with a new text" => {
            // The player's own mail, right address and token, a move legal
            // now: but under the Message-ID of a mail already handled.
            let old = b.genuine.get(rng.random_range(0..b.genuine.len().max(1)))?;
            mail(mover, &mover_address, &subject, &old.id, &body)
        }
        "the same bytes again" => {
            let old = b.genuine.get(rng.random_range(0..b.genuine.len().max(1)))?;
            old.raw.clone()
        }
        "the same bytes under a new Message-ID" => {
            let old = b.genuine.get(rng.random_range(0..b.genuine.len().max(1)))?;
            with_message_id(&old.raw, &old.id, &id)
        }
        "a stale reply to an old your-move mail" => {
            // The player's reply to the "your move" mail before the last,
            // with a move that is legal now.
            let old = play::your_move_at(b.sent, t.game, plies.checked_sub(2)?)?;
            play::reply_raw(old, mover, next, &id)
        }
        "another's confirmation address" => {
            let to = confirmation_address(b.sent, mover, t.game, plies)?;
            let from = [waiting, STRANGER, other.black.as_str()][rng.random_range(0..3)];
            mail(from, &to, "Re: please confirm", &id, "yes")
        }
        "a confirmation token one character off" => {
            let to = confirmation_address(b.sent, mover, t.game, plies)?;
            mail(mover, &one_off(&to, rng), "Re: please confirm", &id, "yes")
        }
        "a player to the TD's report address" => {
            mail(mover, b.report_address, "Re: report", &id, "report")
        }
        "a stranger to the TD's report address" => {
            mail(STRANGER, b.report_address, "Re: report", &id, "report")
        }
        "the TD with a report token one character off" => mail(
            TD,
            &one_off(b.report_address, rng),
            "Re: report",
            &id,
            "report",
        ),
        other => panic!("no attempt of kind {other}"),
    })
}

/// Whether an outcome says the mail acted on a game (or leaked a report).
fn acted(outcome: &str) -> bool {
    [
        "played",
        "resigned",
        "offered a draw",
        "accepted the draw",
        "declined the draw",
        "conditional",
        "booked leave",
        "language set",
        "sent the deadline report",
    ]
    .iter()
    .any(|w| outcome.contains(w))
}

async fn forged_and_replayed_mail_never_moves_a_piece_nor_acts_twice(db: &TestDb) {
    let scale = Scale::from_env();
    let test = if db.url.starts_with("sqlite") {
        "forgery (SQLite)"
    } else {
        "forgery (PostgreSQL)"
    };
    let rounds = scale.pick(6, 20);
    let per_round = scale.pick(9, 55);
    let seed = std::env::var("DOPIS_TEST_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    figure(test, "seed (DOPIS_TEST_FAULT_SEED)", seed);
    let mut rng = StdRng::seed_from_u64(seed);

    // Alice–Bob and Carol–Dave, and a round robin of three directed by Tina.
    // So many attempts in players' names would soon use up the answers a
    // player may get in an hour, and the genuine mail that asks for an answer
    // (a move without the token) would go unanswered: the limit is not what
    // this test is about.
    let club = Club::with_config(db, "answers_per_hour = 1000000");
    club.add_player(db, "carol@players.test", "Carol");
    club.add_player(db, "dave@players.test", "Dave");
    club.new_game(db, "carol@players.test", "dave@players.test");
    club.add_player(db, TD, "Tina");
    std::fs::write(
        club.path().join("cup.toml"),
        format!(
            "name = \"Spring cup\"\nkind = \"round-robin\"\ntds = [\"{TD}\"]\n\
             [[players]]\nemail = \"ana@players.test\"\nname = \"Ana\"\n\
             [[players]]\nemail = \"bor@players.test\"\nname = \"Bor\"\n\
             [[players]]\nemail = \"cene@players.test\"\nname = \"Cene\"\n"
        ),
    )
    .unwrap();
    ok(&dopis(club.path(), db, &["event", "create", "cup.toml"]));
    ok(&dopis(club.path(), db, &["event", "start", "1"]));
    let tables = play::all_tables(&club, db);
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let started = Instant::now();
    let mut passes: Vec<Observed> = vec![observe::serve_once(club.path(), db)];
    let report_address = club
        .sent_mails()
        .iter()
        .find(|m| m.to == TD)
        .and_then(|m| m.reply_to.clone())
        .filter(|r| r.contains("+r"))
        .expect("the TD's daily report with its report address");
    let reports_before = club
        .sent_mails()
        .iter()
        .filter(|m| m.subject.contains("Deadline report"))
        .count();

    let mut genuine: Vec<Genuine> = Vec::new();
    // (kind, file name, Message-ID) of every attempt.
    let mut attempts: Vec<(&str, String, Option<String>)> = Vec::new();
    let mut asked: Vec<(i64, usize, String)> = Vec::new();
    let mut serial = 0usize;
    for round in 0..rounds {
        let sent = club.sent_mails();
        let addresses = play::reply_addresses(&sent);
        let plies = play::plies(&store).await;
        let board = Board {
            tables: &tables,
            plies: &plies,
            sent: &sent,
            addresses: &addresses,
            genuine: &genuine,
            report_address: &report_address,
        };
        let mut batch: Vec<(&str, Vec<u8>)> = Vec::new();
        let mut tries = 0;
        while batch.len() < per_round && tries < per_round * 10 {
            let kind = KINDS[(serial + tries) % KINDS.len()];
            tries += 1;
            if let Some(raw) = attempt(kind, serial + tries, &mut rng, &board) {
                batch.push((kind, raw));
            }
        }
        serial += tries;
        for (kind, raw) in batch {
            attempts.push((kind, club.deliver(&raw), message_id(&raw)));
        }
        // The genuine mails after the attempts: a move by reply; every
        // third round a game's player writes without the token instead, and
        // is asked to confirm; the next round confirms that.
        let mut this_round = Vec::new();
        for t in &tables {
            let at = plies.get(&t.game).copied().unwrap_or(0);
            let mover = t.to_move(at);
            let id = format!(
                "genuine.g{}.p{at}.{:08x}@players.test",
                t.game,
                rng.random::<u32>()
            );
            let confirm = confirmation_address(&sent, mover, t.game, at)
                .filter(|_| asked.iter().any(|a| a.0 == t.game && a.1 == at));
            let raw = if let Some(to) = confirm {
                mail(mover, &to, "Re: please confirm", &id, "yes")
            } else if (round + t.game as usize).is_multiple_of(3) && at < SCRIPT.len() - 1 {
                let raw = mail(
                    mover,
                    "chess@chess.test",
                    &format!("Re: [dopis #{}] Your move", t.game),
                    &id,
                    SCRIPT[at],
                );
                asked.push((t.game, at, club.deliver(&raw)));
                continue;
            } else {
                let Some(your_move) = play::your_move_at(&sent, t.game, at) else {
                    panic!("no 'your move' mail of game {} at {at}", t.game);
                };
                play::reply_raw(your_move, mover, SCRIPT[at], &id)
            };
            let name = club.deliver(&raw);
            this_round.push(Genuine {
                game: t.game,
                ply: at,
                id,
                raw,
                name,
            });
        }
        // Right behind each genuine move, the same mail again under a new
        // Message-ID (a client's retry).
        for g in &this_round {
            let id = format!("retry.{:08x}@players.test", rng.random::<u32>());
            attempts.push((
                "the same bytes under a new Message-ID",
                club.deliver(&with_message_id(&g.raw, &g.id, &id)),
                Some(id),
            ));
        }
        genuine.extend(this_round);
        for _ in 0..5 {
            let pass = observe::serve_once(club.path(), db);
            let stop = pass.panicked() || !pass.status.success();
            passes.push(pass);
            if stop || play::waiting_in(&club.inbox()) == 0 {
                break;
            }
        }
        let last = passes.last().unwrap();
        assert!(
            !last.panicked() && last.status.success(),
            "round {round}: {}",
            last.log
        );
    }
    let elapsed = started.elapsed();

    // What became of each mail: recorded, or (a duplicate) only logged.
    let inbound = observe::inbound(&store).await;
    let logged: HashMap<String, String> = passes.iter().flat_map(|p| p.outcomes()).collect();
    let outcome = |name: &str| -> String {
        let reference = format!("maildir:{name}");
        inbound
            .get(&reference)
            .map(|(_, o)| o.clone())
            .or_else(|| logged.get(&reference).cloned())
            .unwrap_or_else(|| "(not handled)".into())
    };

    // Every genuine move played once, in order.
    let mut expected: BTreeMap<i64, Vec<&str>> = BTreeMap::new();
    for g in &genuine {
        let done = outcome(&g.name);
        assert!(
            done.contains(&format!("played {}", SCRIPT[g.ply])),
            "game {} ply {}: the genuine move was not played: {done}",
            g.game,
            g.ply
        );
        expected.entry(g.game).or_default().push(SCRIPT[g.ply]);
    }
    for (_, _, name) in &asked {
        let done = outcome(name);
        assert!(done.starts_with("asked"), "{done}");
    }
    let mut doubled = 0;
    for t in &tables {
        let moves = club.moves_of(db, t.game);
        let want = expected.get(&t.game).cloned().unwrap_or_default();
        doubled += moves.len().saturating_sub(want.len());
        assert_eq!(moves, want, "game {}", t.game);
    }

    // No attempt acted.
    let mut per_kind: BTreeMap<&str, usize> = BTreeMap::new();
    let mut applied = Vec::new();
    let mut duplicates = 0;
    for (kind, name, _) in &attempts {
        *per_kind.entry(kind).or_default() += 1;
        let done = outcome(name);
        if done == "Duplicate" {
            duplicates += 1;
        }
        if acted(&done) || done == "(not handled)" {
            applied.push(format!("{kind}: {done}"));
        }
    }
    let state = observe::state_besides_moves(&store).await;
    let games_changed: Vec<&String> = state
        .iter()
        .filter(|s| s.starts_with("game ") && !s.contains("active None None offer None if None"))
        .collect();

    // Refusals only to registered addresses; no report to anyone but its TD.
    let registered = observe::registered(&store).await;
    let outbox = observe::outbox(&store).await;
    let strangers: Vec<&observe::Outgoing> = outbox
        .iter()
        .filter(|m| {
            !registered.contains(&m.recipient)
                || m.header_recipients.iter().any(|r| !registered.contains(r))
        })
        .collect();
    let attempt_ids: std::collections::HashSet<&str> = attempts
        .iter()
        .filter_map(|(_, _, id)| id.as_deref())
        .collect();
    let refusals = outbox
        .iter()
        .filter(|m| m.answers.iter().any(|a| attempt_ids.contains(a.as_str())))
        .count();
    let reports = outbox
        .iter()
        .filter(|m| m.subject.contains("Deadline report"))
        .collect::<Vec<_>>();

    figure(test, "attempts", attempts.len());
    figure(test, "kinds", per_kind.len());
    figure(test, "genuine moves", genuine.len());
    figure(
        test,
        "of them by confirming a mail without the token",
        genuine
            .iter()
            .filter(|g| String::from_utf8_lossy(&g.raw).contains("please confirm"))
            .count(),
    );
    figure(test, "forged moves applied", applied.len());
    figure(test, "doubled", doubled);
    figure(test, "replays dropped as duplicates", duplicates);
    figure(test, "refusals and questions sent", refusals);
    figure(test, "mail to unregistered addresses", strangers.len());
    figure(test, "passes", passes.len());
    figure(test, "total", format!("{elapsed:.1?}"));

    assert!(applied.is_empty(), "attempts that acted: {applied:#?}");
    assert!(games_changed.is_empty(), "{games_changed:?}");
    assert!(strangers.is_empty(), "mail to strangers: {strangers:#?}");
    assert_eq!(per_kind.len(), KINDS.len(), "every kind: {per_kind:?}");
    assert_eq!(
        reports.len(),
        reports_before,
        "a report went out on a forged request: {reports:#?}"
    );
    assert!(reports.iter().all(|m| m.recipient == TD));
    store.close().await;
}

crate::on_both_backends!(forged_and_replayed_mail_never_moves_a_piece_nor_acts_twice);
