//! Crash anywhere: many games are played by mail while the real `dopis
//! serve` is killed with `kill -9` at random moments and started again at
//! once. No move may be lost or applied twice, and every accepted move must
//! be told to the opponent at least once.

use std::collections::{BTreeMap, HashSet};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{Scale, figure};
use crate::club::Club;
use crate::support::TestDb;

/// The moves every game plays: a Ruy Lopez, legal from the start.
const SCRIPT: [&str; 20] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
];

/// The real `dopis serve` on the club, in the background; with `crash_at`
/// it dies (as with `kill -9`) when it first reaches that crash point.
pub(super) fn start_daemon(club: &Club, db: &TestDb, crash_at: Option<&str>) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dopis"));
    cmd.current_dir(club.path())
        .env_remove("DOPIS_CONFIG")
        .env("DOPIS_DATABASE_URL", &db.url)
        .env("DOPIS_LOG", "error")
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    match crash_at {
        Some(point) => cmd.env("DOPIS_CRASH_AT", point),
        None => cmd.env_remove("DOPIS_CRASH_AT"),
    };
    cmd.spawn().expect("start dopis serve")
}

/// The number of moves stored per game, read from the database.
async fn plies(store: &dopis::adapter::store::Store) -> BTreeMap<i64, usize> {
    let rows = dopis::adapter::store::sql::query(
        "SELECT game_id, COUNT(*) AS n FROM moves GROUP BY game_id",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    rows.iter()
        .map(|r| {
            let n: i64 = r.try_get("n").unwrap();
            (r.try_get::<i64, _>("game_id").unwrap(), n as usize)
        })
        .collect()
}

/// The game a mail of ours is about and the position (plies played) it
/// shows, from its Message-ID `dopis.g<game>.p<plies>.<hash>@…`.
pub(super) fn position_of(message_id: &str) -> Option<(i64, usize)> {
    let rest = message_id.strip_prefix("dopis.g")?;
    let (game, rest) = rest.split_once(".p")?;
    let (plies, _) = rest.split_once('.')?;
    Some((game.parse().ok()?, plies.parse().ok()?))
}

/// Whether every game's plies 1..=length were told in a "your move" mail.
fn told_all(
    sent: &[crate::club::Sent],
    mut games: impl Iterator<Item = i64>,
    length: usize,
) -> bool {
    let told: HashSet<(i64, usize)> = sent
        .iter()
        .filter(|m| m.subject.contains("Your move"))
        .filter_map(|m| position_of(&m.message_id))
        .collect();
    games.all(|g| (1..=length).all(|p| told.contains(&(g, p))))
}

async fn kill_9_at_random_moments_under_load_loses_no_move_and_doubles_none(db: &TestDb) {
    let scale = Scale::from_env();
    let games = scale.pick(3, 30);
    let length = scale.pick(10, 20);
    let kills_wanted = scale.pick(8, 60);
    let test = if db.url.starts_with("sqlite") {
        "crash (SQLite)"
    } else {
        "crash (PostgreSQL)"
    };

    let club = Club::new(db);
    let mut players: BTreeMap<i64, (String, String)> = BTreeMap::new();
    players.insert(
        1,
        (
            "alice@players.test".to_string(),
            "bob@players.test".to_string(),
        ),
    );
    for g in 2..=games {
        let (w, b) = (format!("w{g}@players.test"), format!("b{g}@players.test"));
        club.add_player(db, &w, &format!("White {g}"));
        club.add_player(db, &b, &format!("Black {g}"));
        let id = club.new_game(db, &w, &b);
        players.insert(id, (w, b));
    }
    let store = dopis::adapter::store::Store::open(&db.url).await.unwrap();

    let mut daemon = start_daemon(&club, db, None);
    let mut kills = 0;
    let mut next_kill = Instant::now() + Duration::from_millis(300);
    let mut last_restart = Instant::now();
    let mut replied: HashSet<(i64, usize)> = HashSet::new();
    let started = Instant::now();
    let limit = Duration::from_secs(scale.pick(240, 3600));
    loop {
        assert!(
            started.elapsed() < limit,
            "the games did not finish within {limit:?}"
        );
        let done = plies(&store).await;
        // Done when every move is played and its "your move" sent: the last
        // moves' notices go out a moment after the moves are stored.
        if kills >= kills_wanted
            && players
                .keys()
                .all(|g| done.get(g).copied().unwrap_or(0) >= length)
            && told_all(&club.sent_mails(), players.keys().copied(), length)
        {
            break;
        }
        // Each player answers the mail that shows the current position.
        for mail in club.sent_mails() {
            let Some((game, at)) = position_of(&mail.message_id) else {
                continue;
            };
            let Some((white, black)) = players.get(&game) else {
                continue;
            };
            let to_move = if at % 2 == 0 { white } else { black };
            if mail.to != *to_move
                || !mail.subject.contains("Your move")
                || at >= length
                || done.get(&game).copied().unwrap_or(0) != at
                || !replied.insert((game, at))
            {
                continue;
            }
            club.reply_to_mail(&mail, SCRIPT[at]);
        }
        if kills < kills_wanted && Instant::now() >= next_kill {
            let _ = daemon.kill(); // SIGKILL: no clean-up of any kind
            let _ = daemon.wait();
            kills += 1;
            daemon = start_daemon(&club, db, None);
            last_restart = Instant::now();
            next_kill = Instant::now() + Duration::from_millis(100 + rand::random::<u64>() % 1400);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // The last move is stored before its mail is sent: the running daemon
    // is given time to send it (polled, with a deadline) before it stops.
    let told_all = |club: &Club| {
        let told: HashSet<(i64, usize)> = club
            .sent_mails()
            .iter()
            .filter(|m| m.subject.contains("Your move"))
            .filter_map(|m| position_of(&m.message_id))
            .collect();
        players.keys().all(|&g| told.contains(&(g, length)))
    };
    while !told_all(&club) && started.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(50));
    }
    let catch_up = last_restart.elapsed();
    let _ = daemon.kill();
    let _ = daemon.wait();

    // Every game holds exactly the script: nothing lost, nothing doubled.
    let mut lost = 0;
    let mut doubled = 0;
    for &game in players.keys() {
        let moves = club.moves_of(db, game);
        let expected: Vec<&str> = SCRIPT[..length].to_vec();
        lost += expected.len().saturating_sub(moves.len());
        doubled += moves.len().saturating_sub(expected.len());
        assert_eq!(moves, expected, "game {game}");
    }
    // Every move was told to the opponent at least once.
    let told: HashSet<(i64, usize)> = club
        .sent_mails()
        .iter()
        .filter(|m| m.subject.contains("Your move"))
        .filter_map(|m| position_of(&m.message_id))
        .collect();
    let unanswered: Vec<(i64, usize)> = players
        .keys()
        .flat_map(|&g| (1..=length).map(move |p| (g, p)))
        .filter(|k| !told.contains(k))
        .collect();
    figure(test, "games", games);
    figure(test, "moves", games * length);
    figure(test, "kill -9", kills);
    figure(test, "lost", lost);
    figure(test, "doubled", doubled);
    figure(test, "unanswered", unanswered.len());
    figure(
        test,
        "from last restart to all handled",
        format!("{catch_up:?}"),
    );
    figure(test, "total", format!("{:?}", started.elapsed()));
    assert!(kills >= kills_wanted.min(1), "the daemon was killed");
    assert!(unanswered.is_empty(), "moves never told: {unanswered:?}");
    store.close().await;
}

crate::on_both_backends!(kill_9_at_random_moments_under_load_loses_no_move_and_doubles_none);
