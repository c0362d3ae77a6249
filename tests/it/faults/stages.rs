//! Crash while an event runs itself (issue 24): the real `dopis serve` dies
//! inside the transaction that closes entries and starts an open class's
//! sections, inside the one that records their promotions when they end,
//! and inside the one that builds and starts a final (the crash points
//! `before-entries-commit`, `before-promotions-commit`,
//! `before-final-commit`), just after
//! sending a mail (`after-send`), inside the one that pairs a Swiss
//! event's next round (`before-swiss-round-commit`, issue 25: each round
//! paired once, each game's first mail and each bye's mail sent once),
//! and with `kill -9` at random moments
//! besides, started again at once each time. No section or final may be
//! made twice or not at all, and every mail those changes cause must go out
//! exactly once: a mail sent again after a crash keeps its Message-ID (as
//! the outbox promises), two different mails for one thing are doubled.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::os::unix::process::ExitStatusExt;
use std::process::Child;
use std::time::{Duration, Instant};

use dopis::domain::ids::EventId;

use super::crash_load::{position_of, start_daemon};
use super::{Scale, figure};
use crate::club::{Club, Sent};
use crate::support::{TestDb, dopis, ok};

/// The daemon under fire: started with each crash point in turn (it dies
/// there by itself, and is started again with the next), then, with none
/// left, killed with `kill -9` at random moments and started again at once.
struct UnderFire<'a> {
    club: &'a Club,
    db: &'a TestDb,
    daemon: Child,
    /// The crash point the running daemon waits for.
    armed: Option<&'static str>,
    points: VecDeque<&'static str>,
    /// Deaths at a crash point.
    crashes: usize,
    /// `kill -9`s.
    kills: usize,
    next_kill: Instant,
}

impl<'a> UnderFire<'a> {
    fn start(club: &'a Club, db: &'a TestDb, points: &[&'static str]) -> UnderFire<'a> {
        let mut points: VecDeque<_> = points.iter().copied().collect();
        let armed = points.pop_front();
        UnderFire {
            club,
            db,
            daemon: start_daemon(club, db, armed),
            armed,
            points,
            crashes: 0,
            kills: 0,
            next_kill: Instant::now() + Duration::from_millis(300),
        }
    }

    fn restart(&mut self) {
        self.armed = self.points.pop_front();
        self.daemon = start_daemon(self.club, self.db, self.armed);
    }

    /// Kills the running daemon now (`kill -9`), does `meanwhile` while
    /// none runs, and starts the next.
    fn kill(&mut self, meanwhile: impl FnOnce()) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
        self.kills += 1;
        meanwhile();
        self.restart();
    }

    /// Arms `points` next, in turn: the running daemon is killed, then
    /// `meanwhile` done, and one that dies at the first of them started (its
    /// first pass finds what `meanwhile` did: a change made from the command
    /// line wakes no daemon before its next pass).
    fn arm(&mut self, points: &[&'static str], meanwhile: impl FnOnce()) {
        for point in points.iter().rev() {
            self.points.push_front(point);
        }
        self.kill(meanwhile);
    }

    /// Whether every crash point was reached and the running daemon waits
    /// for none.
    fn unarmed(&self) -> bool {
        self.armed.is_none() && self.points.is_empty()
    }

    /// Starts a daemon that died at its crash point again; kills an unarmed
    /// one when its moment has come, until `wanted` kills were made.
    fn step(&mut self, wanted: usize) {
        if let Some(status) = self.daemon.try_wait().unwrap() {
            // A crash point aborts (SIGABRT); any other death is a fault of
            // the daemon, not of the test.
            assert!(
                self.armed.is_some() && status.signal() == Some(SIGABRT),
                "dopis serve died by itself ({status}) with {:?} armed",
                self.armed
            );
            self.crashes += 1;
            self.restart();
            return;
        }
        if self.armed.is_none() && self.kills < wanted && Instant::now() >= self.next_kill {
            self.kill(|| ());
            self.next_kill =
                Instant::now() + Duration::from_millis(100 + rand::random::<u64>() % 900);
        }
    }

    fn stop(mut self) -> (usize, usize) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
        (self.crashes, self.kills)
    }
}

/// How a crash point ends the process (`std::process::abort`).
const SIGABRT: i32 = 6;

/// Lost and doubled mails of one kind: each of `expected` (a recipient or
/// a game) should have exactly one mail, by Message-ID.
#[derive(Debug, Default)]
struct Tally {
    lost: usize,
    doubled: usize,
}

impl Tally {
    fn of(mails: &[(String, String)], expected: &BTreeSet<String>) -> Tally {
        let mut ids: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (key, id) in mails {
            ids.entry(key).or_default().insert(id);
        }
        Tally {
            lost: expected
                .iter()
                .filter(|k| !ids.contains_key(k.as_str()))
                .count(),
            doubled: ids
                .values()
                .map(|s| s.len().saturating_sub(1))
                .sum::<usize>()
                + ids.keys().filter(|k| !expected.contains(**k)).count(),
        }
    }

    fn add(&mut self, other: Tally) {
        self.lost += other.lost;
        self.doubled += other.doubled;
    }
}

/// Mails sent again with a Message-ID already sent: what a crash after
/// sending, before the send is recorded, leaves (the same mail, not a
/// second one).
/// A TD enters `result` for `game` (`dopis game result`), with `reason`.
fn td_result(club: &Club, db: &TestDb, game: &str, result: &str, reason: &str) {
    ok(&dopis(
        club.path(),
        db,
        &[
            "game",
            "result",
            game,
            result,
            "--reason",
            reason,
            "--by",
            "td@chess.test",
        ],
    ));
}

fn resent(sent: &[Sent]) -> usize {
    let distinct: BTreeSet<&str> = sent.iter().map(|m| m.message_id.as_str()).collect();
    sent.len() - distinct.len()
}

/// The mails whose subject holds `kind`, as (recipient, Message-ID).
fn by_recipient(sent: &[Sent], kind: &str) -> Vec<(String, String)> {
    sent.iter()
        .filter(|m| m.subject.contains(kind))
        .map(|m| (m.to.clone(), m.message_id.clone()))
        .collect()
}

/// The first "your move" mail of each of `games` (the game's own number as
/// the key), as (game, Message-ID).
fn first_moves(sent: &[Sent], games: &BTreeSet<String>) -> Vec<(String, String)> {
    sent.iter()
        .filter(|m| m.subject.contains("Your move"))
        .filter_map(|m| {
            let (game, plies) = position_of(&m.message_id)?;
            (plies == 0 && games.contains(&game.to_string()))
                .then(|| (game.to_string(), m.message_id.clone()))
        })
        .collect()
}

async fn sections(store: &dopis::adapter::store::Store, event: EventId) -> Vec<EventId> {
    let mut tx = store.begin().await.unwrap();
    let s = tx.sections_of(event).await.unwrap();
    tx.commit().await.unwrap();
    s
}

/// The games of these events, by number.
async fn games_of(store: &dopis::adapter::store::Store, events: &[EventId]) -> BTreeSet<String> {
    let mut tx = store.begin().await.unwrap();
    let mut games = BTreeSet::new();
    for e in events {
        for g in tx.event_games(*e).await.unwrap() {
            games.insert(g.game.id.0.to_string());
        }
    }
    tx.commit().await.unwrap();
    games
}

/// The players who hold a qualification from these sections, by address.
async fn qualified(store: &dopis::adapter::store::Store, sections: &[EventId]) -> BTreeSet<String> {
    let mut tx = store.begin().await.unwrap();
    let mut who = BTreeSet::new();
    for s in sections {
        for e in tx.entrants(*s).await.unwrap() {
            if tx
                .qualifications_of(e.player.id)
                .await
                .unwrap()
                .iter()
                .any(|q| q.event == *s)
            {
                who.insert(e.player.email.to_string());
            }
        }
    }
    tx.commit().await.unwrap();
    who
}

fn backend(db: &TestDb, what: &str) -> String {
    if db.url.starts_with("sqlite") {
        format!("{what} (SQLite)")
    } else {
        format!("{what} (PostgreSQL)")
    }
}

async fn kill_9_while_entries_close_and_sections_start_makes_each_section_once_and_sends_each_mail_once(
    db: &TestDb,
) {
    let scale = Scale::from_env();
    let wanted_sections = scale.pick(3, 12);
    let kills_wanted = scale.pick(6, 40);
    let test = backend(db, "crash: open class");
    let club = Club::new(db);
    // One more than the sections take: the last waits in the queue.
    let entrants: Vec<String> = (1..=wanted_sections * 3 + 1)
        .map(|n| format!("e{n}@players.test"))
        .collect();
    for (n, email) in entrants.iter().enumerate() {
        club.add_player(db, email, &format!("Entrant {}", n + 1));
    }
    std::fs::write(
        club.path().join("class.toml"),
        "name = \"Open\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
         [entries]\ncloses = \"2099-01-01\"\nsection_size = 3\n\
         promotes = { place = 1, to = \"Higher\" }\n",
    )
    .unwrap();
    let out = ok(&dopis(club.path(), db, &["event", "open", "class.toml"]));
    let class = EventId(out.lines().next().unwrap().trim().parse().unwrap());
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();

    let started = Instant::now();
    let limit = Duration::from_secs(scale.pick(240, 3600));
    let mut fire = UnderFire::start(&club, db, &["before-entries-commit", "after-send"]);
    let mut delivered = 0;
    let mut round = 0u32;
    let mut confirmed: BTreeSet<String> = BTreeSet::new();
    loop {
        assert!(
            started.elapsed() < limit,
            "the sections did not all start within {limit:?}"
        );
        // An entry every third round, so that sections fill while the
        // daemon is killed.
        round += 1;
        if delivered < entrants.len() && round.is_multiple_of(3) {
            let who = &entrants[delivered];
            club.deliver(
                format!(
                    "From: {who}\r\nTo: chess@chess.test\r\nSubject: entry\r\n\
                     Message-ID: <{:016x}@players.test>\r\n\
                     Content-Type: text/plain; charset=utf-8\r\n\r\nenter {}\r\n",
                    rand::random::<u64>(),
                    class.0
                )
                .as_bytes(),
            );
            delivered += 1;
        }
        let sent = club.sent_mails();
        for ask in sent
            .iter()
            .filter(|m| m.subject.contains("Please confirm your entry"))
        {
            if confirmed.insert(ask.to.clone()) {
                club.reply_to_mail(ask, "yes");
            }
        }
        let made = sections(&store, class).await;
        let games = games_of(&store, &made).await;
        let seated: BTreeSet<String> = entrants[..wanted_sections * 3].iter().cloned().collect();
        let all_told = Tally::of(&by_recipient(&sent, "has started: you are in"), &seated).lost
            == 0
            && Tally::of(&first_moves(&sent, &games), &games).lost == 0;
        // Every entrant has entered and confirmed (the last one too, who
        // waits in the queue), not only the ones the sections took.
        let all_entered = confirmed.len() == entrants.len();
        if made.len() >= wanted_sections
            && all_told
            && all_entered
            && fire.kills >= kills_wanted
            && fire.unarmed()
        {
            break;
        }
        fire.step(kills_wanted);
        std::thread::sleep(Duration::from_millis(100));
    }
    // Then the sections end by the TD's results (every game won by
    // White): the last result arms the promotions' crash points, and
    // random kills go on until every promoted player was told.
    let made = sections(&store, class).await;
    // The first registered of each game wins it: one winner a section.
    let mut results: Vec<(String, &str)> = {
        let mut tx = store.begin().await.unwrap();
        let mut r = Vec::new();
        for e in &made {
            for g in tx.event_games(*e).await.unwrap() {
                let score = if g.game.white.0 < g.game.black.0 {
                    "1-0"
                } else {
                    "0-1"
                };
                r.push((g.game.id.0.to_string(), score));
            }
        }
        tx.commit().await.unwrap();
        r
    };
    let kills_before = fire.kills;
    let more_kills = kills_before + scale.pick(3, 20);
    let mut promoted: BTreeSet<String>;
    loop {
        assert!(
            started.elapsed() < limit,
            "the promotions were not all recorded and told within {limit:?}"
        );
        round += 1;
        if round.is_multiple_of(3)
            && fire.armed.is_none()
            && let Some((game, score)) = results.pop()
        {
            let enter = || {
                ok(&dopis(
                    club.path(),
                    db,
                    &[
                        "game",
                        "result",
                        &game,
                        score,
                        "--reason",
                        "agreed with the TD",
                        "--by",
                        "td@chess.test",
                    ],
                ));
            };
            if results.is_empty() {
                fire.arm(&["before-promotions-commit", "after-send"], enter);
            } else {
                enter();
            }
        }
        if results.is_empty() {
            promoted = qualified(&store, &made).await;
            let told = Tally::of(
                &by_recipient(&club.sent_mails(), "Promoted: Higher"),
                &promoted,
            )
            .lost
                == 0;
            if !promoted.is_empty() && told && fire.kills >= more_kills && fire.unarmed() {
                break;
            }
        }
        fire.step(more_kills);
        std::thread::sleep(Duration::from_millis(100));
    }
    // A last moment for the running daemon to send what it queued.
    std::thread::sleep(Duration::from_millis(500));
    let (crashes, kills) = fire.stop();

    let made = sections(&store, class).await;
    let games = games_of(&store, &made).await;
    let sent = club.sent_mails();
    let seated: BTreeSet<String> = entrants[..wanted_sections * 3].iter().cloned().collect();
    let everyone: BTreeSet<String> = entrants.iter().cloned().collect();
    let mut tally = Tally::of(&by_recipient(&sent, "Please confirm your entry"), &everyone);
    tally.add(Tally::of(
        &by_recipient(&sent, "has started: you are in"),
        &seated,
    ));
    tally.add(Tally::of(&first_moves(&sent, &games), &games));
    tally.add(Tally::of(
        &by_recipient(&sent, "Promoted: Higher"),
        &promoted,
    ));
    let mut tx = store.begin().await.unwrap();
    let entries = tx.entries(class).await.unwrap();
    tx.commit().await.unwrap();
    let waiting: Vec<&str> = entries
        .iter()
        .filter(|e| e.status == dopis::domain::event::entries::EntryStatus::Confirmed)
        .map(|e| e.email.as_str())
        .collect();
    figure(&test, "entrants", entrants.len());
    figure(&test, "sections", made.len());
    figure(&test, "games", games.len());
    figure(&test, "promoted", promoted.len());
    figure(&test, "died at a crash point", crashes);
    figure(&test, "kill -9", kills);
    figure(&test, "lost", tally.lost);
    figure(&test, "doubled", tally.doubled);
    let resent = resent(&sent);
    figure(&test, "resent (same Message-ID)", resent);
    figure(&test, "total", format!("{:?}", started.elapsed()));
    assert_eq!(made.len(), wanted_sections, "each section made once");
    assert_eq!(games.len(), wanted_sections * 3, "three games a section");
    assert_eq!(crashes, 4, "every crash point was reached");
    assert!(resent >= 2, "each mail sent as it died went out again");
    // Each section's winner: the first registered of its three.
    let winners: BTreeSet<String> = (0..wanted_sections)
        .map(|i| format!("e{}@players.test", 3 * i + 1))
        .collect();
    assert_eq!(promoted, winners);
    let shown = ok(&dopis(
        club.path(),
        db,
        &["player", "show", "e1@players.test"],
    ));
    assert!(
        shown.contains("qualified: Higher (place 1 with 2 of 2 in Open/1, event #"),
        "{shown}"
    );
    let shown = ok(&dopis(
        club.path(),
        db,
        &["player", "show", "e2@players.test"],
    ));
    assert!(!shown.contains("qualified:"), "{shown}");
    assert_eq!(
        waiting,
        [entrants.last().unwrap().as_str()],
        "the last waits"
    );
    assert_eq!((tally.lost, tally.doubled), (0, 0), "{tally:?}");
    store.close().await;
}

async fn kill_9_while_a_final_is_built_and_started_builds_it_once_and_sends_each_mail_once(
    db: &TestDb,
) {
    let scale = Scale::from_env();
    let (groups, per_group) = scale.pick((2, 3), (4, 5));
    let qualify = 2;
    let kills_wanted = scale.pick(6, 40);
    let test = backend(db, "crash: final");
    let club = Club::new(db);
    let mut file = format!(
        "name = \"Cup\"\nkind = \"round-robin\"\ntds = [\"td@chess.test\"]\n\
         [stages]\ngroups = {groups}\nqualify = {qualify}\ntie_at_line = \"starting-number\"\n"
    );
    let players: BTreeSet<String> = (1..=groups * per_group)
        .map(|n| format!("p{n}@players.test"))
        .collect();
    for (n, email) in players.iter().enumerate() {
        file.push_str(&format!(
            "[[players]]\nemail = \"{email}\"\nname = \"Player {}\"\n",
            n + 1
        ));
    }
    std::fs::write(club.path().join("cup.toml"), file).unwrap();
    let out = ok(&dopis(club.path(), db, &["event", "create", "cup.toml"]));
    let cup = EventId(out.lines().next().unwrap().trim().parse().unwrap());
    ok(&dopis(
        club.path(),
        db,
        &["event", "start", &cup.0.to_string()],
    ));
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let group_games = games_of(&store, &sections(&store, cup).await).await;
    assert_eq!(group_games.len(), groups * per_group * (per_group - 1) / 2);

    let started = Instant::now();
    let limit = Duration::from_secs(scale.pick(240, 3600));
    // Dies sending the groups' first mails, then is killed at random while
    // the TD enters the groups' results.
    let mut fire = UnderFire::start(&club, db, &["after-send"]);
    let mut results: Vec<&String> = group_games.iter().collect();
    let mut round = 0u32;
    let final_games = loop {
        assert!(
            started.elapsed() < limit,
            "the final was not built and told within {limit:?}"
        );
        // A result every third round while no crash point waits (a
        // random kill would take its place), so that kills fall among them.
        round += 1;
        if round.is_multiple_of(3)
            && fire.armed.is_none()
            && let Some(game) = results.pop()
        {
            let enter = || td_result(&club, db, game, "1/2-1/2", "agreed with the TD");
            if results.is_empty() {
                // The last result ends the groups: the daemon that builds
                // the final dies before that commits, the next one after
                // its first mail, and random kills go on after that.
                fire.arm(&["before-final-commit", "after-send"], enter);
            } else {
                enter();
            }
        }
        let stages = sections(&store, cup).await;
        if stages.len() > groups {
            let games = games_of(&store, &stages[groups..]).await;
            let sent = club.sent_mails();
            let told = Tally::of(&by_recipient(&sent, "through to the final"), &players).lost == 0
                && Tally::of(&first_moves(&sent, &games), &games).lost == 0;
            if told && fire.kills >= kills_wanted && fire.unarmed() {
                break games;
            }
        }
        fire.step(kills_wanted);
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep(Duration::from_millis(500));
    let (crashes, kills) = fire.stop();

    let stages = sections(&store, cup).await;
    let sent = club.sent_mails();
    let mut tally = Tally::of(&by_recipient(&sent, "through to the final"), &players);
    tally.add(Tally::of(&first_moves(&sent, &group_games), &group_games));
    tally.add(Tally::of(&first_moves(&sent, &final_games), &final_games));
    let finalists = groups * qualify;
    figure(&test, "players", players.len());
    figure(&test, "group games", group_games.len());
    figure(&test, "final games", final_games.len());
    figure(&test, "died at a crash point", crashes);
    figure(&test, "kill -9", kills);
    figure(&test, "lost", tally.lost);
    figure(&test, "doubled", tally.doubled);
    let resent = resent(&sent);
    figure(&test, "resent (same Message-ID)", resent);
    figure(&test, "total", format!("{:?}", started.elapsed()));
    assert_eq!(stages.len(), groups + 1, "the groups and one final");
    assert_eq!(final_games.len(), finalists * (finalists - 1) / 2);
    assert_eq!(crashes, 3, "every crash point was reached");
    assert!(resent >= 2, "each mail sent as it died went out again");
    assert_eq!((tally.lost, tally.doubled), (0, 0), "{tally:?}");
    store.close().await;
}

/// The games of a Swiss event still being played, by number, and its
/// paired rounds with the bye's address (issue 25).
async fn swiss_state(
    store: &dopis::adapter::store::Store,
    event: EventId,
) -> (Vec<String>, Vec<(u32, Option<String>)>) {
    let mut tx = store.begin().await.unwrap();
    let active = tx
        .event_games(event)
        .await
        .unwrap()
        .into_iter()
        .filter(|g| g.game.status == dopis::adapter::store::games::GameStatus::Active)
        .map(|g| g.game.id.0.to_string())
        .collect();
    let entrants = tx.entrants(event).await.unwrap();
    let rounds = tx
        .swiss_rounds(event)
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            let bye = r.bye_seat.and_then(|s| {
                entrants
                    .iter()
                    .find(|e| e.seat == Some(s))
                    .map(|e| e.player.email.to_string())
            });
            (r.round, bye)
        })
        .collect();
    tx.commit().await.unwrap();
    (active, rounds)
}

async fn kill_9_while_swiss_rounds_are_paired_pairs_each_round_once_and_sends_each_mail_once(
    db: &TestDb,
) {
    let scale = Scale::from_env();
    let (players_n, rounds) = scale.pick((7u32, 3u32), (15, 5));
    let kills_wanted = scale.pick(6, 40);
    let test = backend(db, "crash: swiss rounds");
    let club = Club::new(db);
    let mut file = format!(
        "name = \"Open\"\nkind = \"swiss\"\nrounds = {rounds}\ntds = [\"td@chess.test\"]\n"
    );
    for n in 1..=players_n {
        file.push_str(&format!(
            "[[players]]\nemail = \"p{n}@players.test\"\nname = \"Player {n:02}\"\n"
        ));
    }
    std::fs::write(club.path().join("open.toml"), file).unwrap();
    let out = ok(&dopis(club.path(), db, &["event", "create", "open.toml"]));
    let open = EventId(out.lines().next().unwrap().trim().parse().unwrap());
    ok(&dopis(
        club.path(),
        db,
        &["event", "start", &open.0.to_string()],
    ));
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();
    let per_round = (players_n / 2) as usize;

    let started = Instant::now();
    let limit = Duration::from_secs(scale.pick(240, 3600));
    // Dies sending round 1's first mails, then is killed at random while
    // the TD enters the results, round after round.
    let mut fire = UnderFire::start(&club, db, &["after-send"]);
    let mut tick = 0u32;
    let mut armed_once = false;
    loop {
        assert!(
            started.elapsed() < limit,
            "the rounds were not paired and told within {limit:?}"
        );
        let (active, paired) = swiss_state(&store, open).await;
        let last = paired.len() as u32;
        tick += 1;
        if last < rounds
            && tick.is_multiple_of(3)
            && fire.armed.is_none()
            && let Some(game) = active.first()
        {
            let enter = || td_result(&club, db, game, "1-0", "Black resigned by phone");
            if active.len() == 1 && !armed_once {
                // The round's last result: the daemon that pairs the next
                // round dies before that commits, the next one after its
                // first mail, and random kills go on after that.
                armed_once = true;
                fire.arm(&["before-swiss-round-commit", "after-send"], enter);
            } else {
                enter();
            }
        }
        if last == rounds {
            let games = games_of(&store, &[open]).await;
            let sent = club.sent_mails();
            let byes: BTreeSet<String> = paired.iter().filter_map(|(_, b)| b.clone()).collect();
            let told = Tally::of(&first_moves(&sent, &games), &games).lost == 0
                && Tally::of(&by_recipient(&sent, "you have the bye"), &byes).lost == 0;
            if told && fire.kills >= kills_wanted && fire.unarmed() {
                break;
            }
        }
        fire.step(kills_wanted);
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let (crashes, kills) = fire.stop();

    let (_, paired) = swiss_state(&store, open).await;
    let games = games_of(&store, &[open]).await;
    let sent = club.sent_mails();
    let byes: BTreeSet<String> = paired.iter().filter_map(|(_, b)| b.clone()).collect();
    let mut tally = Tally::of(&first_moves(&sent, &games), &games);
    tally.add(Tally::of(&by_recipient(&sent, "you have the bye"), &byes));
    figure(&test, "players", players_n);
    figure(&test, "rounds", paired.len());
    figure(&test, "games", games.len());
    figure(&test, "died at a crash point", crashes);
    figure(&test, "kill -9", kills);
    figure(&test, "lost", tally.lost);
    figure(&test, "doubled", tally.doubled);
    let resent = resent(&sent);
    figure(&test, "resent (same Message-ID)", resent);
    figure(&test, "total", format!("{:?}", started.elapsed()));
    assert_eq!(
        paired.iter().map(|(r, _)| *r).collect::<Vec<_>>(),
        (1..=rounds).collect::<Vec<_>>(),
        "each round paired once"
    );
    assert_eq!(
        games.len(),
        per_round * rounds as usize,
        "no round's games twice"
    );
    assert_eq!(byes.len(), rounds as usize, "a different bye each round");
    assert_eq!(crashes, 3, "every crash point was reached");
    assert!(resent >= 2, "each mail sent as it died went out again");
    assert_eq!((tally.lost, tally.doubled), (0, 0), "{tally:?}");
    store.close().await;
}

crate::on_both_backends!(
    kill_9_while_entries_close_and_sections_start_makes_each_section_once_and_sends_each_mail_once,
    kill_9_while_a_final_is_built_and_started_builds_it_once_and_sends_each_mail_once,
    kill_9_while_swiss_rounds_are_paired_pairs_each_round_once_and_sends_each_mail_once,
);
