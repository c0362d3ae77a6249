//! Issue 26 by mail, on both backends, with the real Syzygy tables: every
//! mail goes through the daemon's inbox and outbox, as `dopis serve` runs
//! them. A K+R v K win claimed and granted; a K+B+N v K claim by the side
//! that loses refused with what the tables say; a cursed K+B+B v K+N win
//! judged both ways by the two rules (two events, every game from that
//! position); a claim in six men refused with the reason, then granted with
//! the capture that brings the game into the tables; and the notice as a
//! game enters the tables, sent once.

use std::sync::Arc;

use chrono::{Duration, TimeZone, Utc};

use dopis::domain::chess::game::StartPosition;
use dopis::domain::chess::tablebase::Tables;
use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent;

/// The shared tables, opened as the daemon opens them.
fn syzygy() -> Arc<dyn Tables> {
    let (tables, _) =
        dopis::adapter::tablebase::Syzygy::open(&[crate::tablebase::tables()]).unwrap();
    Arc::new(tables)
}

struct Club {
    app: TestApp,
    mails: Vec<Sent>,
}

impl Club {
    async fn new(db: &TestDb) -> Club {
        let app = TestApp::builder()
            .at(Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap())
            .address("chess@dopis.test")
            .name("dopis")
            .secret("a test secret that is long enough")
            .tables(syzygy())
            .open(db)
            .await;
        Club {
            app,
            mails: Vec::new(),
        }
    }

    async fn player(&self, email: &str, name: &str, lang: Lang) -> Player {
        self.app.player(email, name, lang, None).await
    }

    /// A game from `fen` (White to move); its first mails are read.
    async fn game(&mut self, white: &Player, black: &Player, fen: &str) -> GameId {
        let start = StartPosition::fen(fen).unwrap();
        let id = self
            .app
            .game_from(white, black, start, TimeControl::default())
            .await;
        self.read().await;
        id
    }

    /// Ana, Bor and Cene, enough for a round robin.
    async fn three(&self) -> [Player; 3] {
        [
            self.player("ana@players.test", "Ana Novak", Lang::En).await,
            self.player("bor@players.test", "Bor Kralj", Lang::En).await,
            self.player("cene@players.test", "Cene Zupan", Lang::En)
                .await,
        ]
    }

    /// A round robin of `players` from `fen` under tablebase_rule `rule`;
    /// its first mails are read.
    async fn endgame_event(
        &mut self,
        name: &str,
        rule: &str,
        fen: &str,
        players: &[Player],
    ) -> (dopis::domain::ids::EventId, Vec<GameId>) {
        let mut file = format!(
            "name = \"{name}\"\nkind = \"round-robin\"\ntds = [\"td@dopis.test\"]\n\
             tablebase_rule = \"{rule}\"\nstart = {{ fen = \"{fen}\" }}\n"
        );
        for p in players {
            file.push_str(&format!(
                "[[players]]\nemail = \"{}\"\nname = \"{}\"\n",
                p.email, p.name
            ));
        }
        let made = self.app.event(&file).await;
        self.read().await;
        made
    }

    async fn read(&mut self) -> Vec<Sent> {
        let sent = self.app.sent().await;
        self.mails.extend(sent.iter().cloned());
        sent
    }

    /// `who` replies `text` to their latest mail of `game`, as a mail
    /// client does; returns the mails this sent.
    async fn reply(&mut self, who: &Player, game: GameId, text: &str) -> Vec<Sent> {
        self.app.advance(Duration::hours(3));
        let tag = format!("+g{}.", game.0);
        let last = self
            .mails
            .iter()
            .rev()
            .find(|m| {
                m.to == who.email.to_string()
                    && m.reply_to.as_ref().is_some_and(|r| r.contains(&tag))
            })
            .unwrap_or_else(|| panic!("{} got no mail of game {} to answer", who.email, game.0))
            .clone();
        let raw = last.reply(
            &who.email.to_string(),
            text,
            &format!("tables.{}@players.test", self.mails.len()),
        );
        self.app.deliver(&raw).await;
        self.read().await
    }

    async fn result(&self, game: GameId) -> (Option<String>, Option<String>) {
        let row = self.app.game_row(game).await;
        (row.result, row.end_reason)
    }
}

/// The text with its lines joined, as a reader reads wrapped sentences.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn to<'a>(mails: &'a [Sent], who: &Player) -> Vec<&'a Sent> {
    mails
        .iter()
        .filter(|m| m.to == who.email.to_string())
        .collect()
}

/// The one mail to `who` among `mails`, whose text must hold `phrases`.
fn one_to<'a>(mails: &'a [Sent], who: &Player, phrases: &[&str]) -> &'a Sent {
    let theirs = to(mails, who);
    let [mail] = theirs.as_slice() else {
        panic!(
            "want one mail to {}, got {:?}",
            who.email,
            theirs.iter().map(|m| &m.subject).collect::<Vec<_>>()
        )
    };
    let text = flat(&mail.text);
    for p in phrases {
        assert!(
            text.contains(p),
            "{:?} lacks {p:?}:\n{}",
            mail.subject,
            mail.text
        );
    }
    mail
}

const KRVK: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
const KBNVK: &str = "8/8/8/4k3/8/8/8/1BN1K3 w - - 0 1";
/// K+B+B v K+N, White to move: won, but in 113 plies to the next capture
/// or pawn move (python-chess agrees), so a draw by the 50-move rule.
const CURSED: &str = "1K6/1B6/4k3/4B3/8/8/8/2n5 w - - 0 1";
/// Six men (K+R+B v K+R+P): Bxa7 leaves K+R+B v K+R, a draw the tables hold.
const SIX: &str = "3r2k1/p7/8/8/8/4B3/8/3R2K1 w - - 0 1";

async fn claims_on_the_tables_are_judged_at_once_by_mail(db: &TestDb) {
    let mut club = Club::new(db).await;
    let ana = club.player("ana@players.test", "Ana Novak", Lang::Sl).await;
    let bor = club.player("bor@players.test", "Bor Kralj", Lang::En).await;

    // K+R v K: White claims the win and gets it, in Slovenian.
    let game = club.game(&ana, &bor, KRVK).await;
    let sent = club.reply(&ana, game, "zahtevam zmago").await;
    one_to(
        &sent,
        &ana,
        &[
            "Odločile so končniške",
            "(KRvK",
            "pravilo ICCF), na zahtevo belega",
        ],
    );
    one_to(
        &sent,
        &bor,
        &[
            "Decided by the endgame tables (KRvK",
            "ICCF rule), on White's claim",
        ],
    );
    let (result, reason) = club.result(game).await;
    assert_eq!(result.as_deref(), Some("1-0"));
    let reason = reason.unwrap_or_default();
    assert!(
        reason.starts_with("Adjudicated: endgame tables (Syzygy KRvK): win for White, DTZ"),
        "{reason}"
    );

    // K+B+N v K: Black claims a win the tables give White: refused, nothing changes.
    let game = club.game(&ana, &bor, KBNVK).await;
    let sent = club.reply(&bor, game, "claim win").await;
    one_to(
        &sent,
        &bor,
        &["the win claim is not valid: the endgame tables (KBNvK) say: White wins (DTZ 56)"],
    );
    assert!(to(&sent, &ana).is_empty(), "the opponent hears nothing");
    assert_eq!(club.result(game).await.0, None);
    // White still plays on, and may claim the win.
    let sent = club.reply(&ana, game, "zahtevam zmago").await;
    assert_eq!(sent.len(), 2, "game over to both");
    assert_eq!(club.result(game).await.0.as_deref(), Some("1-0"));

    // Six men with five-men tables: refused with the reason; the capture
    // into the tables with the claim: granted, and the move is played.
    let game = club.game(&ana, &bor, SIX).await;
    let sent = club.reply(&ana, game, "zahtevam remi").await;
    one_to(
        &sent,
        &ana,
        &["v položaju je 6 figur, tabele tukaj pa obsegajo največ 5"],
    );
    assert!(club.app.moves(game).await.is_empty(), "nothing played");
    let sent = club.reply(&ana, game, "zahtevam remi Lxa7").await;
    one_to(
        &sent,
        &bor,
        &["Decided by the endgame tables (KRBvKR", "on White's claim"],
    );
    assert_eq!(club.app.moves(game).await, ["Bxa7"]);
    assert_eq!(club.result(game).await.0.as_deref(), Some("1/2-1/2"));
}

async fn a_cursed_win_is_a_win_by_the_iccf_rule_and_a_draw_by_the_fifty_move_rule(db: &TestDb) {
    let mut club = Club::new(db).await;
    let players = club.three().await;
    for rule in ["iccf", "fifty-move"] {
        let (_, games) = club
            .endgame_event(
                &format!("Endgames by the {rule} rule"),
                rule,
                CURSED,
                &players,
            )
            .await;
        // The first game; its White claims the win.
        let row = club.app.game_row(games[0]).await;
        assert_eq!(row.start_fen.as_deref(), Some(CURSED), "{rule}");
        let white = players.iter().find(|p| p.id == row.white).unwrap();
        let black = players.iter().find(|p| p.id == row.black).unwrap();
        let sent = club.reply(white, games[0], "claim win").await;
        if rule == "iccf" {
            one_to(
                &sent,
                white,
                &["Decided by the endgame tables (KBBvKN, DTZ 113, ICCF rule)"],
            );
            assert_eq!(club.result(games[0]).await.0.as_deref(), Some("1-0"));
        } else {
            one_to(
                &sent,
                white,
                &[
                    "the endgame tables (KBBvKN) say: a draw (DTZ 113), as this event's 50-move rule stands",
                ],
            );
            assert_eq!(club.result(games[0]).await.0, None);
            // Black, not to move, claims the draw the rule gives.
            let sent = club.reply(black, games[0], "claim draw").await;
            one_to(
                &sent,
                black,
                &[
                    "Decided by the endgame tables (KBBvKN, DTZ 113, 50-move rule), on Black's claim",
                ],
            );
            assert_eq!(club.result(games[0]).await.0.as_deref(), Some("1/2-1/2"));
        }
    }
}

async fn a_move_into_the_tables_is_told_to_both_players_once(db: &TestDb) {
    let mut club = Club::new(db).await;
    let ana = club.player("ana@players.test", "Ana Novak", Lang::Pl).await;
    let bor = club.player("bor@players.test", "Bor Kralj", Lang::En).await;
    let game = club.game(&ana, &bor, SIX).await;
    let sent = club.reply(&ana, game, "Gxa7").await;
    one_to(
        &sent,
        &ana,
        &["Tablice końcówek (KRBvKR) obejmują teraz tę pozycję i mówią: remis"],
    );
    one_to(
        &sent,
        &bor,
        &[
            "The endgame tables (KRBvKR) now hold this position, and they say: a draw",
            "write \"claim draw\"",
        ],
    );
    let sent = club.reply(&bor, game, "Kf7").await;
    for mail in &sent {
        assert!(
            !flat(&mail.text).contains("endgame tables") && !mail.text.contains("Tablice"),
            "told twice: {}",
            mail.text
        );
    }
    assert_eq!(club.result(game).await.0, None, "a claim is waited for");
}

/// `dopis game adjudicate N --tablebase` on the binary: the result with the
/// tables' proof in the record and both mails; positions the tables cannot
/// judge refused with why, the game unchanged.
async fn a_td_adjudicates_by_the_tables_with_the_proof(db: &TestDb) {
    use crate::support::{dopis, fails, ok};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("dopis.toml"),
        format!(
            "[mail]\naddress = \"chess@dopis.test\"\nsecret = \"a test secret that is long enough\"\n\
             [tablebase]\nsyzygy_path = [{:?}]\n",
            crate::tablebase::tables().display().to_string()
        ),
    )
    .unwrap();
    ok(&dopis(d, db, &["init"]));
    for (email, name) in [
        ("ana@players.test", "Ana Novak"),
        ("bor@players.test", "Bor Kralj"),
    ] {
        ok(&dopis(
            d,
            db,
            &["player", "add", "--email", email, "--name", name],
        ));
    }
    let new = |fen: &str| {
        ok(&dopis(
            d,
            db,
            &[
                "game",
                "new",
                "--white",
                "ana@players.test",
                "--black",
                "bor@players.test",
                "--fen",
                fen,
            ],
        ))
        .trim()
        .to_string()
    };
    let (won, six) = (new(KRVK), new(SIX));
    let adjudicate = |id: &str| {
        dopis(
            d,
            db,
            &[
                "game",
                "adjudicate",
                id,
                "--tablebase",
                "--by",
                "td@dopis.test",
            ],
        )
    };
    let said = ok(&adjudicate(&won));
    assert!(
        said.contains(
            "adjudicated by the tables: endgame tables (Syzygy KRvK): win for White, DTZ"
        ),
        "{said}"
    );
    let show: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["game", "show", &won, "--format", "json"],
    )))
    .unwrap();
    assert_eq!(show["result"], "1-0", "{show}");
    let reason = show["end_reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("endgame tables (Syzygy KRvK): win for White"),
        "{show}"
    );
    assert!(reason.ends_with("ICCF rule; by the TD"), "{show}");
    // The daemon sends what the adjudication queued: both game-over mails.
    ok(&dopis(d, db, &["serve", "--once"]));
    let mut told = Vec::new();
    for dir in ["mail/sent/new", "mail/sent/cur"] {
        for file in std::fs::read_dir(d.join(dir))
            .into_iter()
            .flatten()
            .flatten()
        {
            let raw = std::fs::read(file.path()).unwrap();
            let mail = Sent::parse("", "", &raw);
            if flat(&mail.text).contains("Decided by the endgame tables (KRvK, DTZ 27, ICCF rule), at the tournament director's request") {
                told.push(mail.subject);
            }
        }
    }
    assert_eq!(told.len(), 2, "both players are told the proof: {told:?}");
    // Six men: refused with why; nothing changes.
    let err = fails(&adjudicate(&six));
    assert!(
        err.contains("the tables cannot judge game")
            && err.contains("the position has 6 pieces and the tables here hold at most 5"),
        "{err}"
    );
    let show: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["game", "show", &six, "--format", "json"],
    )))
    .unwrap();
    assert!(show["result"].is_null(), "{show}");
    // A finished game cannot be adjudicated again by the tables.
    let err = fails(&adjudicate(&won));
    assert!(err.contains("is over already"), "{err}");

    // The pages: the running game in the tables says their verdict; the
    // adjudicated one its proof, and its PGN the proof and the termination.
    let cut = new("8/8/8/4k3/8/8/8/1BN1K3 w - - 0 1");
    // The deadline report lists the running game in the tables (not the
    // six-men one, not the finished one), in each format.
    let report = ok(&dopis(d, db, &["report", "deadlines"]));
    assert!(report.contains("In the endgame tables (1):"), "{report}");
    assert!(
        report.contains(&format!(
            "#{cut:<6} Ana Novak - Bor Kralj: KBNvK, 1-0 by the iccf rule, DTZ 56"
        )),
        "{report}"
    );
    let json: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["report", "deadlines", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json["in_tables"][0]["material"], "KBNvK", "{json}");
    assert_eq!(
        json["in_tables"].as_array().map(Vec::len),
        Some(1),
        "{json}"
    );
    let csv = ok(&dopis(d, db, &["report", "deadlines", "--format", "csv"]));
    assert!(
        csv.contains(&format!(
            "in_tables,{cut},Ana Novak,,Bor Kralj,KBNvK,1-0,iccf,56"
        )),
        "{csv}"
    );
    // Without tables set up the adjudication is refused, and says how to
    // set them up; the game in the tables stays running.
    let config = std::fs::read_to_string(d.join("dopis.toml")).unwrap();
    let without = config.split("[tablebase]").next().unwrap().to_string();
    std::fs::write(d.join("dopis.toml"), &without).unwrap();
    let err = fails(&adjudicate(&cut));
    assert!(
        err.contains("no endgame tables are set up: set [tablebase] syzygy_path"),
        "{err}"
    );
    std::fs::write(d.join("dopis.toml"), &config).unwrap();
    let show: serde_json::Value = serde_json::from_str(&ok(&dopis(
        d,
        db,
        &["game", "show", &cut, "--format", "json"],
    )))
    .unwrap();
    assert!(show["result"].is_null(), "{show}");
    let mut config = config;
    config.push_str("[web]\nlisten = \"127.0.0.1:0\"\n");
    std::fs::write(d.join("dopis.toml"), config).unwrap();
    let web = crate::support::web::WebServer::start(d, db, &d.join("dopis.toml"));
    let link = ok(&dopis(d, db, &["player", "link", "ana@players.test"]));
    let me = link
        .split_whitespace()
        .find_map(|w| w.find("/me/").map(|i| w[i..].to_string()))
        .unwrap_or_else(|| panic!("no link in {link}"));
    let (status, page) = web.get(&format!("{me}/games/{cut}"));
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("The endgame tables (KBNvK) say White wins (DTZ 56) by ICCF's rule: White may claim it by mail"),
        "{page}"
    );
    // The page tells the end as the game's mails do, in the reader's words.
    let (_, page) = web.get(&format!("{me}/games/{won}"));
    assert!(
        page.contains(
            "Adjudicated: Ana Novak wins. Decided by the endgame tables (KRvK, DTZ 27, ICCF rule), \
             at the tournament director&#39;s request."
        ),
        "{page}"
    );
    assert!(
        !page.contains("The endgame tables (KRvK) say"),
        "a finished game has no verdict to claim"
    );
    let (status, pgn) = web.get(&format!("{me}/games/{won}/pgn"));
    assert_eq!(status, 200);
    assert!(pgn.contains("[Termination \"adjudication\"]"), "{pgn}");
    assert!(
        pgn.contains("endgame tables (Syzygy KRvK): win for White, DTZ"),
        "{pgn}"
    );
    assert!(
        pgn.contains("[SetUp \"1\"]") && pgn.contains("[FEN \"8/8/8/4k3/8/8/8/R3K3 w - - 0 1\"]"),
        "{pgn}"
    );
    // Our PGN import reads the export back: the position, the result and
    // that it was adjudicated.
    let back = dopis::domain::chess::pgn::import(&pgn).unwrap_or_else(|e| panic!("{e}\n{pgn}"));
    assert_eq!(
        back.game.start(),
        &StartPosition::fen(KRVK).unwrap(),
        "{pgn}"
    );
    let outcome = back
        .game
        .outcome()
        .unwrap_or_else(|| panic!("no result read: {pgn}"));
    assert_eq!(
        outcome.result,
        dopis::domain::chess::outcome::GameResult::WhiteWins,
        "{pgn}"
    );
    assert!(
        matches!(&outcome.reason, dopis::domain::chess::outcome::EndReason::Adjudication(why)
            if why.contains("endgame tables (Syzygy KRvK): win for White")),
        "{:?}: {pgn}",
        outcome.reason
    );
}

/// The adjudication follows the game's event's rule: an event played
/// without the tables (`tablebase_rule = "none"`) is refused and nothing
/// changes, no mail either; under the 50-move rule the proof names that
/// rule, in the record and in both players' mails.
async fn a_td_adjudication_by_the_tables_follows_the_events_rule(db: &TestDb) {
    let mut club = Club::new(db).await;
    let players = club.three().await;
    let by = dopis::domain::address::EmailAddress::parse("td@dopis.test").unwrap();
    let tables = syzygy();
    // K+R v K at 73 half-moves: DTZ ~27 is too near the 50-move line.
    let near = "8/8/8/4k3/8/8/8/R3K3 w - - 73 60";
    for (rule, fen) in [("none", KRVK), ("fifty-move", near), ("fifty-move", KRVK)] {
        let (_, games) = club
            .endgame_event(
                &format!("Rook endings, rule {rule}, {fen}"),
                rule,
                fen,
                &players,
            )
            .await;
        let mut tx = club.app.store.begin().await.unwrap();
        let got = dopis::service::td::adjudicate_by_tables(
            &mut tx,
            club.app.post(),
            games[0],
            tables.as_ref(),
            &by,
            club.app.now(),
        )
        .await;
        if rule == "none" || fen == near {
            let err = got.map(|p| p.to_string()).unwrap_err().to_string();
            drop(tx);
            let why = if rule == "none" {
                "played without the endgame tables (tablebase_rule = \"none\")"
            } else {
                "cannot judge game"
            };
            assert!(err.contains(why), "{err}");
            if fen == near {
                assert!(
                    err.contains("by the 50-move rule yet: 73 half-moves"),
                    "{err}"
                );
            }
            assert_eq!(club.result(games[0]).await, (None, None));
            assert!(club.read().await.is_empty(), "a refusal mails no one");
        } else {
            let proof = got.unwrap_or_else(|e| panic!("{e}"));
            tx.commit().await.unwrap();
            assert!(proof.to_string().contains("50-move rule"), "{proof}");
            let (result, reason) = club.result(games[0]).await;
            assert_eq!(result.as_deref(), Some("1-0"));
            assert!(
                reason
                    .as_deref()
                    .unwrap_or_default()
                    .contains("50-move rule; by the TD"),
                "{reason:?}"
            );
            let sent = club.read().await;
            let row = club.app.game_row(games[0]).await;
            for who in players
                .iter()
                .filter(|p| p.id == row.white || p.id == row.black)
            {
                one_to(
                    &sent,
                    who,
                    &[
                        "Decided by the endgame tables (KRvK, DTZ 27, 50-move rule), at the tournament director's request",
                    ],
                );
            }
        }
    }
}

on_both_backends!(
    claims_on_the_tables_are_judged_at_once_by_mail,
    a_cursed_win_is_a_win_by_the_iccf_rule_and_a_draw_by_the_fifty_move_rule,
    a_move_into_the_tables_is_told_to_both_players_once,
    a_td_adjudicates_by_the_tables_with_the_proof,
    a_td_adjudication_by_the_tables_follows_the_events_rule,
    the_deadline_report_builds_only_positions_with_few_enough_men,
);

/// The deadline report's candidates for the tables are picked in the
/// database, without building positions: a game from the usual start has 32
/// men less its captures; a game from a FEN is always looked at; finished
/// games and other events' games never.
async fn the_deadline_report_builds_only_positions_with_few_enough_men(db: &TestDb) {
    let mut club = Club::new(db).await;
    let players = club.three().await;
    let [ana, bor, _] = &players;
    let usual = club.app.game(ana, bor, TimeControl::default()).await;
    let from_fen = club.game(ana, bor, KRVK).await;
    let store = &club.app.store;
    assert_eq!(
        store.games_near_the_tables(32, None).await.unwrap(),
        vec![usual, from_fen]
    );
    assert_eq!(
        store.games_near_the_tables(31, None).await.unwrap(),
        vec![from_fen]
    );
    // 1. e4 d5 2. exd5: one capture, so 31 men.
    for (who, text) in [(ana, "e4"), (bor, "d5"), (ana, "exd5")] {
        club.reply(who, usual, text).await;
    }
    assert_eq!(
        club.app.moves(usual).await.len(),
        3,
        "the moves were played"
    );
    assert_eq!(
        club.app
            .store
            .games_near_the_tables(31, None)
            .await
            .unwrap(),
        vec![usual, from_fen]
    );
    assert_eq!(
        club.app
            .store
            .games_near_the_tables(30, None)
            .await
            .unwrap(),
        vec![from_fen]
    );
    // An event's report looks at that event's games only.
    let (event, games) = club
        .endgame_event("Rook endings", "iccf", KRVK, &players)
        .await;
    let mut of_event = club
        .app
        .store
        .games_near_the_tables(5, Some(event))
        .await
        .unwrap();
    of_event.sort_by_key(|g| g.0);
    assert_eq!(of_event, games);
}
