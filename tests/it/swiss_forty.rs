//! Issue 25's whole Swiss, through the real binary on both backends: 40
//! players, 7 rounds, played to the end by mail. Every mail is dropped
//! into the Maildir inbox as a delivery agent does, every answer read from
//! the sent Maildir; `dopis serve --once` pairs each round by itself, its
//! clock (and the TD's commands') moved on by libfaketime for the days.
//!
//! On the way: results by mail (resignations) and from the TD (agreed
//! draws), a half-point bye a player asks for by mail (and one asked for
//! too late, refused), a player withdrawn by the TD mid-round, a results
//! file for the wrong round refused, and a round that reaches its closing
//! date with a game unfinished: the TD is warned before it and told at it,
//! adjudicates the game late, and the next round is paired then. After every round the event's TRF file (`dopis
//! event trf`) is paired again by `dopis swiss check`, and at the end
//! caissify-pairings, an implementation of the Dutch system independent
//! of dopis's, pairs every round of the event as dopis did (up to its known
//! faults, each explained with its rule in swiss_oracle.rs).

use crate::club::{Club, Sent};
use crate::on_both_backends;
use crate::support::{TestDb, dopis_at, fails, ok};

const TD: &str = "td@chess.test";
const PLAYERS: u32 = 40;
const ROUNDS: u32 = 7;
/// Each round closes this many days after it is paired.
const ROUND_DAYS: u32 = 20;
/// The round whose last game is still played at its closing date.
const CLOSED_ROUND: u32 = 5;
/// The player who asks for a half-point bye in round 3 (English).
const BYE_PLAYER: u32 = 10;

fn player(n: u32) -> String {
    format!("p{n:02}@players.test")
}

/// The event file: 40 players in five languages, nobody rated (so the
/// initial order is by name).
fn event_file() -> String {
    let mut file = format!(
        "name = \"Forty\"\nkind = \"swiss\"\nrounds = {ROUNDS}\ntds = [\"{TD}\"]\n\
         time_control = \"10/50d\"\nvisibility = \"public\"\nmax_half_point_byes = 1\n\
         round_days = {ROUND_DAYS}\n"
    );
    let langs = ["en", "sl", "pl", "lv", "de"];
    for n in 1..=PLAYERS {
        file.push_str(&format!(
            "[[players]]\nemail = \"{}\"\nname = \"Player {n:02}\"\nlang = \"{}\"\n",
            player(n),
            langs[n as usize % langs.len()]
        ));
    }
    file
}

/// A game of the event as `dopis event pairings --format json` lists it.
#[derive(Debug, Clone)]
struct Game {
    round: u32,
    number: i64,
    white: String,
    black: String,
    status: String,
}

struct Forty<'a> {
    club: Club,
    db: &'a TestDb,
    event: String,
    /// How many of the sent mails were read already.
    seen: usize,
    /// Days since the event began, as the binary's clock has them.
    days: u32,
}

impl Forty<'_> {
    fn offset(&self) -> String {
        format!("+{}h", self.days * 24)
    }

    fn run(&self, args: &[&str]) -> String {
        ok(&dopis_at(
            self.club.path(),
            self.db,
            args,
            Some(&self.offset()),
        ))
    }

    fn refused(&self, args: &[&str]) -> String {
        fails(&dopis_at(
            self.club.path(),
            self.db,
            args,
            Some(&self.offset()),
        ))
    }

    /// One `dopis serve --once`, `days` into the event: the mails it sent.
    fn serve(&mut self) -> Vec<Sent> {
        let offset = self.offset();
        ok(&self.club.serve_once_at(self.db, None, Some(&offset)));
        let all = self.club.sent_mails();
        let new = all[self.seen..].to_vec();
        self.seen = all.len();
        new
    }

    fn games(&self) -> Vec<Game> {
        let out = self.run(&["event", "pairings", &self.event, "--format", "json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .filter(|p| p["game"].is_i64())
            .map(|p| Game {
                round: p["round"].as_u64().unwrap() as u32,
                number: p["game"].as_i64().unwrap(),
                white: p["white"]["email"].as_str().unwrap().to_string(),
                black: p["black"]["email"].as_str().unwrap().to_string(),
                status: p["status"].as_str().unwrap().to_string(),
            })
            .collect()
    }

    fn round(&self, round: u32) -> Vec<Game> {
        self.games()
            .into_iter()
            .filter(|g| g.round == round)
            .collect()
    }

    /// The game ends: by a resignation mailed by the loser, or a draw the
    /// TD enters (agreed by phone), chosen by the game's place so that
    /// the score groups come out uneven.
    fn finish(&self, game: &Game, how: u32) {
        match how % 3 {
            0 => {
                let mail = self.club.newest_in_game(&game.black, game.number);
                self.club.reply_to_mail(&mail, "resign");
            }
            1 => {
                let mail = self.club.newest_in_game(&game.white, game.number);
                self.club.reply_to_mail(&mail, "resign");
            }
            _ => {
                self.run(&[
                    "game",
                    "result",
                    &game.number.to_string(),
                    "1/2-1/2",
                    "--reason",
                    "agreed by phone",
                    "--by",
                    TD,
                ]);
            }
        }
    }

    /// `dopis event trf`, paired again round by round by `dopis swiss
    /// check`: every round as dopis paired it. Returns the file.
    fn checked_trf(&self, rounds: u32) -> String {
        let path = self.club.path().join("forty.trf");
        self.run(&[
            "event",
            "trf",
            &self.event,
            "--output",
            path.to_str().unwrap(),
        ]);
        let trf = std::fs::read_to_string(&path).unwrap();
        let report = self.run(&["swiss", "check", path.to_str().unwrap()]);
        assert!(
            report.contains(&format!(
                "all {rounds} rounds are paired as dopis pairs them"
            )),
            "{report}\n{trf}"
        );
        trf
    }

    /// The round as a pairing program makes it from `dopis event trf
    /// --before-round`: the file as it stood before the round was paired.
    /// `dopis swiss pair` makes it in the test command; bbpPairings, the
    /// FIDE-endorsed program, by hand (`DOPIS_TEST_BBPPAIRINGS`). Both
    /// print `white black` by board and `bye 0`.
    fn paired_from_trf(&self, round: u32) -> Vec<String> {
        let path = self.club.path().join(format!("before{round}.trf"));
        self.run(&[
            "event",
            "trf",
            &self.event,
            "--before-round",
            &round.to_string(),
            "--output",
            path.to_str().unwrap(),
        ]);
        let file = path.to_str().unwrap();
        let ours = self.run(&["swiss", "pair", file, "--format", "pairs"]);
        let lines = |text: &str| -> Vec<String> {
            let mut l: Vec<String> = text.lines().skip(1).map(str::to_string).collect();
            l.sort_unstable();
            l
        };
        let pairs = lines(&ours);
        if let Ok(bbp) = std::env::var("DOPIS_TEST_BBPPAIRINGS") {
            let out = std::process::Command::new(bbp)
                .args(["--dutch", file, "-p"])
                .output()
                .expect("run bbpPairings");
            let theirs = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                lines(&theirs),
                pairs,
                "round {round}: bbpPairings -p on the file before it"
            );
        }
        pairs
    }
}

/// A round's games and bye as pairing programs print them, sorted: seat
/// numbers (Player NN has pairing number NN: nobody is rated, so the
/// initial order is by name).
fn as_pairs(games: &[Game], bye: Option<&str>) -> Vec<String> {
    let seat = |email: &str| email[1..3].parse::<u32>().unwrap();
    let mut pairs: Vec<String> = games
        .iter()
        .map(|g| format!("{} {}", seat(&g.white), seat(&g.black)))
        .chain(bye.map(|b| format!("{} 0", seat(b))))
        .collect();
    pairs.sort_unstable();
    pairs
}

async fn forty_players_play_a_seven_round_swiss_to_the_end_by_mail(db: &TestDb) {
    let mut s = Forty {
        club: Club::empty(db, "\n[web]\nlisten = \"127.0.0.1:0\""),
        db,
        event: String::new(),
        seen: 0,
        days: 0,
    };
    std::fs::write(s.club.path().join("forty.toml"), event_file()).unwrap();
    s.event = s
        .run(&["event", "create", "forty.toml"])
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_string();
    s.run(&["event", "start", &s.event.clone()]);

    let mut withdrawn: Option<String> = None;
    let bye_player = player(BYE_PLAYER);
    for round in 1..=ROUNDS {
        let paired_on = s.days;
        let sent = s.serve();
        let this = s.round(round);
        let on_bye = round == 3;
        let in_play = PLAYERS as usize - usize::from(withdrawn.is_some()) - usize::from(on_bye);
        assert_eq!(this.len(), in_play / 2, "round {round}: {this:?}");
        // Every paired player hears of their game, in their language, with
        // its reply address; the bye (39 players) of their bye.
        for g in &this {
            for p in [&g.white, &g.black] {
                assert!(
                    sent.iter().any(|m| &m.to == p
                        && m.reply_to
                            .as_deref()
                            .is_some_and(|r| r.contains(&format!("+g{}.", g.number)))),
                    "{p} is told of their round {round} game {}",
                    g.number
                );
                assert_ne!(withdrawn.as_ref(), Some(p), "{p} withdrew");
            }
        }
        if in_play % 2 == 1 {
            let playing: Vec<&str> = this
                .iter()
                .flat_map(|g| [g.white.as_str(), g.black.as_str()])
                .collect();
            let bye: Vec<String> = (1..=PLAYERS)
                .map(player)
                .filter(|p| !playing.contains(&p.as_str()) && withdrawn.as_ref() != Some(p))
                .filter(|p| !(on_bye && *p == bye_player))
                .collect();
            assert_eq!(bye.len(), 1, "round {round}: one bye");
            assert_eq!(
                s.paired_from_trf(round),
                as_pairs(&this, Some(&bye[0])),
                "round {round} as a pairing program pairs it"
            );
            assert!(
                sent.iter().any(|m| m.to == bye[0] && m.reply_to.is_none()),
                "round {round}: {} is told of the bye: {sent:?}",
                bye[0]
            );
        }
        // Each pairing mail says the round and board, and from round 2 the
        // standings it was paired on, the recipient's line marked: an
        // English-speaking player's (every fifth).
        let english = this
            .iter()
            .find(|g| g.white.ends_with("5@players.test"))
            .unwrap();
        let mail = s.club.newest_in_game(&english.white, english.number);
        assert!(
            mail.text.contains(&format!("Forty, round {round}, board")),
            "{}",
            mail.text
        );
        assert_eq!(
            mail.text.contains("paired on (place, name, points):"),
            round > 1,
            "{}",
            mail.text
        );
        if round > 1 {
            assert_eq!(mail.text.matches("  <- you").count(), 1, "{}", mail.text);
        }
        if in_play.is_multiple_of(2) {
            assert_eq!(
                s.paired_from_trf(round),
                as_pairs(&this, None),
                "round {round} as a pairing program pairs it"
            );
        }
        let trf = s.checked_trf(round);
        if on_bye {
            // The bye asked for: not paired, told so, `H` in the TRF file.
            assert!(
                !this
                    .iter()
                    .any(|g| g.white == bye_player || g.black == bye_player),
                "{bye_player} has their bye"
            );
            assert!(
                sent.iter().any(|m| m.to == bye_player
                    && m.subject.contains("Round 3 of Forty: your half-point bye")),
                "{bye_player} is told"
            );
            assert!(trf.contains("0000 - H"), "{trf}");
        }

        if round == 2 {
            // A half-point bye asked for by mail, in a reply to a game
            // mail, before its round is paired: granted. One asked for
            // the round already paired: refused, nothing changes.
            let mine = this
                .iter()
                .find(|g| g.white == bye_player || g.black == bye_player)
                .unwrap();
            let mail = s.club.newest_in_game(&bye_player, mine.number);
            s.club
                .reply_to_mail(&mail, &format!("bye {} round 3", s.event));
            let late = player(5);
            let game = this
                .iter()
                .find(|g| g.white == late || g.black == late)
                .unwrap();
            let mail = s.club.newest_in_game(&late, game.number);
            s.club
                .reply_to_mail(&mail, &format!("bye {} round 2", s.event));
            let answers = s.serve();
            let granted = answers.iter().find(|m| m.to == bye_player).unwrap();
            assert!(
                granted.subject.contains("Half-point bye: round 3 of Forty"),
                "{}",
                granted.subject
            );
            let refused = answers.iter().find(|m| m.to == late).unwrap();
            assert!(
                refused.subject.contains("No bye in round 2"),
                "{}",
                refused.subject
            );
        }

        if round == 4 {
            // A results file for the wrong round names a pairing of this
            // round as round 3's: refused whole, naming the line.
            let g = &this[0];
            std::fs::write(
                s.club.path().join("late.csv"),
                format!("round,white,black,result\n3,{},{},1-0\n", g.white, g.black),
            )
            .unwrap();
            let why = s.refused(&["event", "import-results", &s.event, "late.csv", "--by", TD]);
            assert!(why.contains("line 2"), "{why}");
            assert_eq!(s.round(4)[0].status, "active", "nothing changed");
        }

        let (last, rest) = this.split_last().unwrap();
        for (i, g) in rest.iter().enumerate() {
            s.finish(g, i as u32 + round);
        }
        s.serve();
        assert!(
            s.round(round + 1).is_empty(),
            "round {} waits for the last game of round {round}",
            round + 1
        );
        if round == CLOSED_ROUND {
            // The last game is still played when the round closes: the TD
            // is warned three days before (once), told at the closing date
            // (once), and the next round waits for their decision.
            s.days = paired_on + ROUND_DAYS - 2;
            let warned = s.serve();
            assert!(
                warned.iter().any(|m| m.to == TD
                    && m.subject
                        .contains(&format!("Round {round} of Forty closes on"))),
                "the TD is warned: {:?}",
                warned.iter().map(|m| &m.subject).collect::<Vec<_>>()
            );
            let again = s.serve();
            assert!(
                !again.iter().any(|m| m.subject.contains("closes on")),
                "warned once"
            );
            s.days = paired_on + ROUND_DAYS + 1;
            let closed = s.serve();
            assert!(
                closed.iter().any(|m| m.to == TD
                    && m.subject
                        .contains(&format!("Round {round} of Forty has closed"))
                    && m.text.contains(&format!("#{}", last.number))),
                "the TD is told at the closing date: {:?}",
                closed.iter().map(|m| &m.subject).collect::<Vec<_>>()
            );
            assert!(
                s.round(round + 1).is_empty(),
                "round {} waits for the TD",
                round + 1
            );
            // The TD's late result: an adjudication.
            s.run(&[
                "game",
                "result",
                &last.number.to_string(),
                "1-0",
                "--kind",
                "adjudication",
                "--reason",
                "round closed: White stands to win",
                "--by",
                TD,
            ]);
        } else if round == 3 {
            // White of the last game withdraws (the TD's command): the
            // game is lost by forfeit, which ends the round, and they are
            // paired no more.
            s.run(&[
                "event",
                "withdraw",
                &s.event,
                "--email",
                &last.white,
                "--reason",
                "moved abroad",
                "--by",
                TD,
            ]);
            withdrawn = Some(last.white.clone());
        } else {
            s.finish(last, round);
        }
        s.days += 2;
    }
    let sent = s.serve();
    let games = s.games();
    assert!(
        games.iter().all(|g| g.status != "active"),
        "every game ended: {games:?}"
    );
    assert!(s.round(ROUNDS + 1).is_empty(), "no eighth round");
    let trf = s.checked_trf(ROUNDS);
    if let Some(agreed) = crate::swiss_oracle::caissify_agrees(&trf) {
        assert_eq!(
            agreed,
            Ok(ROUNDS),
            "caissify-pairings on the event's TRF file"
        );
    }
    // By hand: bbpPairings, the FIDE-endorsed program, checks every round.
    if let Ok(bbp) = std::env::var("DOPIS_TEST_BBPPAIRINGS") {
        let file = s.club.path().join("forty.trf");
        let said = crate::swiss_oracle::bbp_disagrees(&bbp, &file);
        assert_eq!(said, None, "bbpPairings -c on the event's TRF file");
        eprintln!("bbpPairings -c agrees with all {ROUNDS} rounds");
    }
    let finals: Vec<&str> = sent
        .iter()
        .filter(|m| m.reply_to.is_none())
        .map(|m| m.to.as_str())
        .collect();
    assert_eq!(
        finals.len(),
        PLAYERS as usize,
        "every player gets the final standings once: {sent:?}"
    );
    let more = s.serve();
    assert!(more.is_empty(), "nothing more: {more:?}");
}

on_both_backends!(forty_players_play_a_seven_round_swiss_to_the_end_by_mail);
