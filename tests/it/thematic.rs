//! Issue 24, section 4, on both backends: thematic and Chess960 events
//! from their files (`tests/fixtures/events/thematic.toml`, `chess960.toml`),
//! started, played by mail through the inbox and outbox, their PGN written
//! by `dopis event pgn` and read back by python-chess (a reader we did not
//! write), and a Chess960 event reopened after a restart.

use std::path::Path;

use chrono::{Duration, TimeZone, Utc};
use shakmaty::{Color, Position, Role, Square};

use dopis::domain::ids::{EventId, GameId};
use dopis::domain::player::Player;

use crate::on_both_backends;
use crate::support::TestDb;
use crate::support::app::TestApp;
use crate::support::mail::Sent;
use crate::support::{dopis, fails, ok};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/events")
            .join(name),
    )
    .unwrap()
}

/// The position after 1.e4 c5 2.Nf3 d6.
const NAJDORF: &str = "rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3";

/// Chess960 position 3: king on f1 between rooks on e1 and g1, so after
/// 1.Ne3 Ne6 either side castles short at once (king and rook change
/// places: the move's UCI is king takes rook, f1g1).
const CASTLES_AT_ONCE: u16 = 3;
const POSITION_3: &str = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1";

struct Club {
    app: TestApp,
    mails: Vec<Sent>,
}

impl Club {
    async fn open(db: &TestDb) -> Club {
        let app = TestApp::builder()
            .at(Utc.with_ymd_and_hms(2027, 2, 1, 9, 0, 0).unwrap())
            .address("chess@dopis.test")
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

    /// `who` replies `text` to their latest mail of `game`; the mails it caused.
    async fn reply(&mut self, who: &Player, game: GameId, text: &str) -> Vec<Sent> {
        self.app.advance(Duration::hours(5));
        let last = self
            .mails
            .iter()
            .rev()
            .find(|m| m.to == who.email.to_string() && of_game(m, game))
            .unwrap_or_else(|| panic!("{} got no mail of game {} to answer", who.email, game.0))
            .clone();
        let raw = last.reply(
            &who.email.to_string(),
            text,
            &format!("thematic.{}@players.test", self.mails.len()),
        );
        self.app.deliver(&raw).await;
        self.read().await
    }

    async fn players_of(&self, game: GameId) -> (Player, Player) {
        let row = self.app.game_row(game).await;
        (
            self.app.player_row(row.white).await,
            self.app.player_row(row.black).await,
        )
    }

    /// Each game of the event with its round.
    async fn rounds(&self, event: EventId) -> Vec<(GameId, u32)> {
        let mut tx = self.app.store.begin().await.unwrap();
        let games = tx.event_games(event).await.unwrap();
        tx.commit().await.unwrap();
        games.into_iter().map(|g| (g.game.id, g.round)).collect()
    }
}

fn of_game(mail: &Sent, game: GameId) -> bool {
    let tag = format!("+g{}.", game.0);
    mail.reply_to.as_ref().is_some_and(|r| r.contains(&tag))
}

/// The text with its lines joined, as a reader reads wrapped sentences.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The one mail of `game` to `who` among `mails`; its text and HTML hold
/// every phrase.
fn one<'a>(mails: &'a [Sent], game: GameId, who: &Player, phrases: &[String]) -> &'a Sent {
    let theirs: Vec<&Sent> = mails
        .iter()
        .filter(|m| m.to == who.email.to_string() && of_game(m, game))
        .collect();
    let [mail] = theirs.as_slice() else {
        panic!(
            "want one mail of game {} to {}, got {:?}",
            game.0,
            who.email,
            theirs.iter().map(|m| &m.subject).collect::<Vec<_>>()
        )
    };
    let text = flat(&mail.text);
    let html = flat(&mail.html);
    for p in phrases {
        assert!(
            text.contains(p.as_str()),
            "{:?} lacks {p:?}:\n{}",
            mail.subject,
            mail.text
        );
        let in_html = p.replace("1. e4", "1.\u{a0}e4").replace("2. ", "2.\u{a0}");
        assert!(
            html.contains(p.as_str())
                || html.contains(&in_html)
                || strip(&html).contains(p.as_str()),
            "{:?} HTML lacks {p:?}:\n{}",
            mail.subject,
            mail.html
        );
    }
    mail
}

/// HTML without its tags, for phrases with bold parts.
fn strip(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    flat(&out)
}

/// The thematic sentence and the line in a language's letters.
fn thematic_words(lang: dopis::domain::lang::Lang) -> (&'static str, &'static str) {
    use dopis::domain::lang::Lang;
    match lang {
        Lang::En => (
            "This is a thematic game: it starts after the line",
            "1. e4 c5 2. Nf3 d6",
        ),
        Lang::Sl => (
            "To je tematska partija: začne se po otvoritvi",
            "1. e4 c5 2. Sf3 d6",
        ),
        Lang::De => (
            "Dies ist eine Themenpartie: Sie beginnt nach der Zugfolge",
            "1. e4 c5 2. Sf3 d6",
        ),
        Lang::Pl => (
            "To partia tematyczna: zaczyna się po wariancie",
            "1. e4 c5 2. Sf3 d6",
        ),
        Lang::Lv => (
            "Šī ir tematiska partija: tā sākas pēc varianta",
            "1. e4 c5 2. Zf3 d6",
        ),
        other => panic!("the fixtures use five languages, not {other:?}"),
    }
}

fn chess960_words(lang: dopis::domain::lang::Lang, number: u16) -> String {
    use dopis::domain::lang::Lang;
    match lang {
        Lang::En => format!("This is a Chess960 game: start position number {number}."),
        Lang::Sl => format!("začetna postavitev št. {number}."),
        Lang::De => format!("Dies ist eine Chess960-Partie: Startstellung Nummer {number}."),
        Lang::Pl => format!("To partia Chess960: pozycja początkowa nr {number}."),
        Lang::Lv => format!("Šī ir Chess960 partija: sākuma pozīcija nr. {number}."),
        other => panic!("the fixtures use five languages, not {other:?}"),
    }
}

/// The first python with python-chess, if any (CI must have it).
fn python_with_chess() -> Option<&'static str> {
    let found = crate::support::python_with("chess.pgn");
    if found.is_none() && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but no python3 has python-chess: scripts/stack.sh installs it");
    }
    found
}

/// Every game as python-chess reads it: its headers, its moves replayed
/// (UCI, Chess960 castling as king takes rook), the final FEN and errors.
const READ_PGN: &str = r#"
import io, json, sys, chess.pgn
pgn = io.StringIO(sys.stdin.read())
games = []
while True:
    g = chess.pgn.read_game(pgn)
    if g is None:
        break
    board = g.board()
    for m in g.mainline_moves():
        board.push(m)
    games.append({
        "headers": dict(g.headers),
        "chess960": board.chess960,
        "moves": [m.uci() for m in g.mainline_moves()],
        "fen": board.fen(),
        "errors": [str(e) for e in g.errors],
    })
print(json.dumps(games))
"#;

/// `dopis event pgn` of an event, as python-chess reads it (`None`
/// without python-chess); the PGN text too.
fn event_pgn(db: &TestDb, event: EventId) -> (String, Option<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    let text = ok(&dopis(d, db, &["event", "pgn", &event.0.to_string()]));
    let Some(python) = python_with_chess() else {
        eprintln!("no python with python-chess: the PGN is checked by text only");
        return (text, None);
    };
    let out = crate::support::python_reads(python, READ_PGN, &text)
        .unwrap_or_else(|e| panic!("python-chess failed: {e}\n{text}"));
    (text, Some(serde_json::from_str(&out).expect("JSON")))
}

async fn a_thematic_event_starts_every_game_after_its_line_and_play_goes_on_by_mail(db: &TestDb) {
    let mut club = Club::open(db).await;
    let (event, games) = club.app.event(&fixture("thematic.toml")).await;
    let first = club.read().await;
    assert_eq!(games.len(), 10, "five players, ten games");
    for &game in &games {
        let row = club.app.game_row(game).await;
        assert_eq!(row.opening_plies, 4, "game {}", game.0);
        let sans: Vec<&str> = row.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "c5", "Nf3", "d6"], "game {}", game.0);
        assert!(row.moves.iter().all(|m| m.received_at.is_none()));
        let played = row.to_game().unwrap();
        let fen =
            shakmaty::fen::Fen::from_position(played.position(), shakmaty::EnPassantMode::Legal);
        assert_eq!(fen.to_string(), NAJDORF, "game {}", game.0);
        // White is to move, at move 3, in every language: "your move" names
        // the line and asks for move 3; Black's "game started" names it too.
        let (white, black) = club.players_of(game).await;
        let (says, line) = thematic_words(white.lang);
        let mail = one(&first, game, &white, &[says.into(), line.into()]);
        assert!(flat(&mail.text).contains(": 3. ?"), "{}", mail.text);
        assert!(
            !mail.subject.contains("d6"),
            "no one played d6: {}",
            mail.subject
        );
        let (says, line) = thematic_words(black.lang);
        one(&first, game, &black, &[says.into(), line.into()]);
    }
    assert_eq!(first.len(), 20, "two first mails a game");

    // White's first move by mail is move 3; Black is told of it as such.
    let game = games[0];
    let (white, black) = club.players_of(game).await;
    let sent = club.reply(&white, game, "d4").await;
    let row = club.app.game_row(game).await;
    assert_eq!(row.moves.len(), 5);
    assert_eq!(row.moves[4].uci, "d2d4");
    assert!(row.moves[4].received_at.is_some());
    let told = one(&sent, game, &black, &["3. d4".into()]);
    assert!(
        !flat(&told.text).contains(thematic_words(black.lang).0),
        "the line is named in the first mails only"
    );
    let sent = club.reply(&black, game, "cxd4").await;
    one(&sent, game, &white, &["3... cxd4".into()]);
    club.app.close().await;

    let (text, read) = event_pgn(db, event);
    assert!(
        flat(&text).contains("1. e4 c5 2. Nf3 d6 3. d4 {[%rcv"),
        "{text}"
    );
    assert!(
        !text.contains("[SetUp"),
        "a thematic line starts from the usual position: {text}"
    );
    let Some(read) = read else { return };
    let read = read.as_array().unwrap();
    assert_eq!(read.len(), 10);
    for g in read {
        assert_eq!(g["errors"], serde_json::json!([]), "{g}");
        let moves: Vec<&str> = g["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(moves[..4], ["e2e4", "c7c5", "g1f3", "d7d6"], "{g}");
    }
    let played = read
        .iter()
        .find(|g| g["moves"].as_array().unwrap().len() == 6)
        .expect("the game played on by mail");
    assert_eq!(played["moves"][4], "d2d4");
    assert_eq!(played["moves"][5], "c5d4");
}

async fn a_line_that_ends_with_whites_move_has_black_move_first_by_mail(db: &TestDb) {
    let mut club = Club::open(db).await;
    let file = fixture("thematic.toml").replace("1.e4 c5 2.Nf3 d6", "1.e4 e5 2.Nf3 Nc6 3.Bb5");
    let (_, games) = club.app.event(&file).await;
    let first = club.read().await;
    for &game in &games {
        let (white, black) = club.players_of(game).await;
        assert_eq!(club.app.game_row(game).await.opening_plies, 5);
        // Black is to move: Black gets "your move" for 3..., White is told
        // the game started and who moves next.
        let mail = one(&first, game, &black, &[thematic_words(black.lang).0.into()]);
        assert!(flat(&mail.text).contains(": 3... ?"), "{}", mail.text);
        let mail = one(&first, game, &white, &[thematic_words(white.lang).0.into()]);
        let text = flat(&mail.text);
        assert!(
            text.contains(&black.name) && text.contains(" 3..."),
            "{}",
            mail.text
        );
    }
    let game = games[0];
    let (white, black) = club.players_of(game).await;
    let sent = club.reply(&black, game, "a6").await;
    one(&sent, game, &white, &["3... a6".into()]);
    assert_eq!(
        club.app.moves(game).await,
        ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    );
}

async fn a_pgn_results_file_brings_moves_that_go_on_from_the_line(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    std::fs::write(d.join("thematic.toml"), fixture("thematic.toml")).unwrap();
    ok(&dopis(d, db, &["event", "create", "thematic.toml"]));
    ok(&dopis(d, db, &["event", "start", "1"]));
    // Round 1 (Berger, five players and a bye): #1 Peter Smith - Karl Weber,
    // #2 Jan Kowalski - Līga Bērziņa. The first goes on from the line; the
    // second is another opening, so its moves cannot be this event's.
    let pgn = "[Round \"1\"]\n[White \"Peter Smith\"]\n[Black \"Karl Weber\"]\n[Result \"1-0\"]\n\n\
               1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 1-0\n\n\
               [Round \"1\"]\n[White \"Jan Kowalski\"]\n[Black \"Līga Bērziņa\"]\n\
               [Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n";
    std::fs::write(d.join("round1.pgn"), pgn).unwrap();
    let out = ok(&dopis(
        d,
        db,
        &[
            "event",
            "import-results",
            "1",
            "round1.pgn",
            "--by",
            "td@example.org",
            "--no-mail",
        ],
    ));
    assert!(
        out.contains(
            "note: game #2 starts with the event's thematic line and the file's game does not go on from it"
        ),
        "{out}"
    );
    assert!(!out.contains("game #1 has moves already"), "{out}");
    let shown = ok(&dopis(d, db, &["game", "show", "1"]));
    assert!(
        shown.contains("moves:        1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6"),
        "{shown}"
    );
    let shown = ok(&dopis(d, db, &["game", "show", "2"]));
    assert!(
        shown.contains("moves:        1. e4 c5 2. Nf3 d6\n"),
        "{shown}"
    );
}

/// What a chess program sees and sends (XFCC `GetMyGames`, `MakeAMove`):
/// a thematic game lists the line as its moves and takes move 3; a Chess960
/// game gives its FEN and takes O-O.
async fn a_chess_program_plays_thematic_and_chess960_games_over_xfcc(db: &TestDb) {
    use dopis::service::xfcc::{self, MoveRequest, MoveResult};
    let mut club = Club::open(db).await;
    let (_, thematic) = club.app.event(&fixture("thematic.toml")).await;
    let file = fixture("chess960.toml")
        .replace(
            "chess960 = \"round\"",
            &format!("chess960 = {CASTLES_AT_ONCE}"),
        )
        .replace("Fischer random club cup 2027", "Fischer random blitz");
    let (_, chess960) = club.app.event(&file).await;
    club.read().await;
    let request = |game: GameId, movecount: i64, my_move: &str| MoveRequest {
        game_id: game.0,
        resign: false,
        accept_draw: false,
        movecount,
        my_move: my_move.into(),
        offer_draw: false,
        claim_draw: false,
        my_message: String::new(),
    };
    let play = |who: Player, game: GameId, movecount: i64, my_move: &'static str| {
        let store = &club.app.store;
        let inbox = club.app.inbox();
        let now = club.app.now();
        async move {
            xfcc::make_a_move(store, inbox, &who, &request(game, movecount, my_move), now)
                .await
                .unwrap()
        }
    };

    let (white, _) = club.players_of(thematic[0]).await;
    let listed = xfcc::my_games(&club.app.store, "dopis.test", &white, club.app.now())
        .await
        .unwrap();
    let game = listed.iter().find(|g| g.id == thematic[0].0).unwrap();
    assert_eq!(game.moves, "1. e4 c5 2. Nf3 d6");
    assert!(game.my_turn && game.fen.is_none(), "{game:?}");
    assert_eq!(
        play(white.clone(), thematic[0], 1, "d4").await,
        MoveResult::InvalidMoveNumber
    );
    assert_eq!(
        play(white.clone(), thematic[0], 3, "d4").await,
        MoveResult::Success
    );
    assert_eq!(club.app.moves(thematic[0]).await.len(), 5);

    let game = chess960[0];
    let (white, black) = club.players_of(game).await;
    let listed = xfcc::my_games(&club.app.store, "dopis.test", &white, club.app.now())
        .await
        .unwrap();
    let shown = listed.iter().find(|g| g.id == game.0).unwrap();
    assert_eq!(shown.fen.as_deref(), Some(POSITION_3));
    for (who, n, mv) in [(&white, 1, "Ne3"), (&black, 1, "Ne6"), (&white, 2, "O-O")] {
        assert_eq!(
            play(who.clone(), game, n, mv).await,
            MoveResult::Success,
            "{mv}"
        );
    }
    let row = club.app.game_row(game).await;
    assert_eq!(row.moves[2].uci, "f1g1");
    assert_eq!(row.moves[2].san, "O-O");
}

async fn an_illegal_thematic_line_is_refused_with_its_problem_and_creates_nothing(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&dopis(d, db, &["init"]));
    let bad = fixture("thematic.toml").replace("2.Nf3 d6", "2.Nf3 Ke7");
    let line = bad.lines().position(|l| l.starts_with("start")).unwrap() + 1;
    std::fs::write(d.join("bad.toml"), bad).unwrap();
    let err = fails(&dopis(d, db, &["event", "create", "bad.toml"]));
    assert!(
        err.contains(&format!(
            "line {line}, start.moves: move 2... (Black's, \"Ke7\"): \"Ke7\" cannot be played"
        )),
        "{err}"
    );
    assert!(err.contains("e.g. \"1.e4 c5 2.Nf3 d6\""), "{err}");
    let none = fails(&dopis(d, db, &["event", "show", "1"]));
    assert!(none.contains("no event #1"), "{none}");
    let club = Club::open(db).await;
    let address = dopis::domain::address::EmailAddress::parse("ana.novak@example.si").unwrap();
    assert!(
        club.app.store.player_by_email(&address).await.is_err(),
        "a refused file registers no one"
    );
    assert!(club.app.sent().await.is_empty());
    club.app.close().await;
    // The file put right is taken, and the event says where its games start.
    std::fs::write(d.join("good.toml"), fixture("thematic.toml")).unwrap();
    assert_eq!(
        ok(&dopis(d, db, &["event", "create", "good.toml"])).trim(),
        "1"
    );
    let shown = ok(&dopis(d, db, &["event", "show", "1"]));
    assert!(
        shown.contains("start:        after the thematic line 1.e4 c5 2.Nf3 d6"),
        "{shown}"
    );
}

async fn a_chess960_player_castles_by_mail_and_python_chess_replays_the_pgn(db: &TestDb) {
    let mut club = Club::open(db).await;
    let file = fixture("chess960.toml").replace(
        "chess960 = \"round\"",
        &format!("chess960 = {CASTLES_AT_ONCE}"),
    );
    let (event, games) = club.app.event(&file).await;
    let first = club.read().await;
    for &game in &games {
        let row = club.app.game_row(game).await;
        assert_eq!(row.chess960_number, Some(CASTLES_AT_ONCE));
        assert_eq!(row.variant, dopis::adapter::store::games::Variant::Chess960);
        let (white, black) = club.players_of(game).await;
        one(
            &first,
            game,
            &white,
            &[chess960_words(white.lang, CASTLES_AT_ONCE)],
        );
        one(
            &first,
            game,
            &black,
            &[chess960_words(black.lang, CASTLES_AT_ONCE)],
        );
    }

    let game = games[0];
    let (white, black) = club.players_of(game).await;
    club.reply(&white, game, "Ne3").await;
    club.reply(&black, game, "Ne6").await;
    let sent = club.reply(&white, game, "O-O").await;
    one(&sent, game, &black, &["2. O-O".into()]);
    // Black castles the same way, written with zeros as many players do.
    club.reply(&black, game, "0-0").await;
    let row = club.app.game_row(game).await;
    let ucis: Vec<&str> = row.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(ucis, ["d1e3", "d8e6", "f1g1", "f8g8"]);
    assert_eq!(row.moves[2].san, "O-O");
    let board = row.to_game().unwrap().position().board().clone();
    for (square, color, role) in [
        (Square::G1, Color::White, Role::King),
        (Square::F1, Color::White, Role::Rook),
        (Square::G8, Color::Black, Role::King),
        (Square::F8, Color::Black, Role::Rook),
    ] {
        let piece = board
            .piece_at(square)
            .unwrap_or_else(|| panic!("{square} empty"));
        assert_eq!((piece.color, piece.role), (color, role), "{square}");
    }
    club.app.close().await;

    let (text, read) = event_pgn(db, event);
    assert!(text.contains("[Variant \"Chess960\"]"), "{text}");
    assert!(text.contains("[SetUp \"1\"]"), "{text}");
    assert!(flat(&text).contains("2. O-O {[%rcv"), "{text}");
    let Some(read) = read else { return };
    for g in read.as_array().unwrap() {
        assert_eq!(g["errors"], serde_json::json!([]), "{g}");
        assert_eq!(g["chess960"], true, "{g}");
        assert_eq!(g["headers"]["Variant"], "Chess960", "{g}");
        assert_eq!(g["headers"]["FEN"], POSITION_3, "{g}");
    }
    let castled = read
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["moves"].as_array().unwrap().len() == 4)
        .expect("the game with castling");
    assert_eq!(
        castled["moves"],
        serde_json::json!(["d1e3", "d8e6", "f1g1", "f8g8"])
    );
    assert_eq!(
        castled["fen"],
        "bqn1rrkb/pppppppp/4n3/8/8/4N3/PPPPPPPP/BQN1RRKB w - - 4 3"
    );
}

async fn a_chess960_event_draws_a_position_per_round_and_a_restart_does_not_redraw(db: &TestDb) {
    let mut club = Club::open(db).await;
    let (event, games) = club.app.event(&fixture("chess960.toml")).await;
    let first = club.read().await;
    assert_eq!(games.len(), 6, "four players, three rounds of two games");
    let mut drawn = std::collections::BTreeMap::new();
    for (game, round) in club.rounds(event).await {
        let row = club.app.game_row(game).await;
        let n = row.chess960_number.expect("a Chess960 game");
        assert!(n < 960);
        assert_eq!(
            *drawn.entry(round).or_insert(n),
            n,
            "round {round}: one position"
        );
        let (white, black) = club.players_of(game).await;
        one(&first, game, &white, &[chess960_words(white.lang, n)]);
        one(&first, game, &black, &[chess960_words(black.lang, n)]);
    }
    assert_eq!(drawn.len(), 3);
    club.app.close().await;

    // A restart: the same positions, read back, and nothing drawn or sent again.
    let mut club = Club::open(db).await;
    for (game, round) in club.rounds(event).await {
        assert_eq!(
            club.app.game_row(game).await.chess960_number,
            drawn.get(&round).copied()
        );
    }
    let mut tx = club.app.store.begin().await.unwrap();
    let again = dopis::service::td::start(&mut tx, club.app.post(), event, club.app.now()).await;
    assert!(again.is_err(), "a started event does not start again");
    drop(tx);
    assert!(club.read().await.is_empty());
    // Play goes on from the stored position: a2-a3 is legal in all 960.
    club.mails = first;
    let game = games[0];
    let (white, black) = club.players_of(game).await;
    let sent = club.reply(&white, game, "a3").await;
    one(&sent, game, &black, &["1. a3".into()]);
    let row = club.app.game_row(game).await;
    assert_eq!(row.moves.len(), 1);
    assert!(row.to_game().unwrap().start().is_chess960());
}

on_both_backends!(
    a_thematic_event_starts_every_game_after_its_line_and_play_goes_on_by_mail,
    a_line_that_ends_with_whites_move_has_black_move_first_by_mail,
    a_pgn_results_file_brings_moves_that_go_on_from_the_line,
    a_chess_program_plays_thematic_and_chess960_games_over_xfcc,
    an_illegal_thematic_line_is_refused_with_its_problem_and_creates_nothing,
    a_chess960_player_castles_by_mail_and_python_chess_replays_the_pgn,
    a_chess960_event_draws_a_position_per_round_and_a_restart_does_not_redraw,
);
