//! A club whose web pages show every page kind, for the tests that read
//! every page in every language (`english_left.rs`, `accessibility.rs`):
//! a Slovenian round robin (`lang = "sl"`) with a game mated, one
//! adjudicated, two running (one with a conditional move); a public team
//! match with a result; an event open for entries; an open class whose
//! first section has started; and players of each written language, each
//! with a private link. Names are the players' own (no English words), so
//! a test that looks for English left on a page finds only ours.

use chrono::Duration;

use dopis::domain::address::EmailAddress;
use dopis::domain::chess::game::GameResult;
use dopis::domain::chess::outcome::ResultKind;
use dopis::domain::ids::{EventId, GameId};
use dopis::domain::lang::Lang;
use dopis::service::Handled;

use super::TestDb;
use super::app::TestApp;
use super::mail::Mail;

/// The server's name on the pages: not English either.
pub const SERVER_NAME: &str = "Šahovski klub Triglav";

/// The players: address, name, language, time zone.
pub const PLAYERS: [(&str, &str, Lang, &str); 5] = [
    ("ana@club.test", "Ana Novak", Lang::Sl, "Europe/Ljubljana"),
    (
        "bor@club.test",
        "Bożena Wiśniewska",
        Lang::Pl,
        "Europe/Warsaw",
    ),
    ("cene@club.test", "Jānis Bērziņš", Lang::Lv, "Europe/Riga"),
    ("dora@club.test", "Dörte Müller", Lang::De, "Europe/Berlin"),
    ("eva@club.test", "Eva Kos", Lang::En, "Europe/London"),
];

/// One page of every kind, by a short name: `(kind, path)`.
pub struct Club {
    /// The app that played it all.
    pub app: TestApp,
    /// Every page kind's path.
    pub pages: Vec<(&'static str, String)>,
    /// The round robin and its games (1: mated, 2: adjudicated, 3 and
    /// 4: running, 4 with Bożena's conditional move).
    pub cup: (EventId, Vec<GameId>),
}

const CUP: &str = r#"
name = "Pokal Triglava 2027"
kind = "round-robin"
time_control = "3d"
tds = ["td@club.test"]
visibility = "public"
lang = "sl"

[[players]]
email = "ana@club.test"
name = "Ana Novak"

[[players]]
email = "bor@club.test"
name = "Bożena Wiśniewska"

[[players]]
email = "cene@club.test"
name = "Jānis Bērziņš"

[[players]]
email = "dora@club.test"
name = "Dörte Müller"
"#;

/// The club's address, where entries are written.
pub const CLUB: &str = "chess@chess.test";

impl Club {
    /// Plays it all on `db`.
    pub async fn play(db: &TestDb) -> Club {
        // A little before the real time: `dopis web` reads the real clock,
        // and the pages then show the games running, deadlines ahead.
        use dopis::service::app::Clock;
        let start = dopis::service::app::SystemClock.now() - Duration::hours(3);
        let app = TestApp::builder()
            .at(start)
            .name(SERVER_NAME)
            .open(db)
            .await;
        for (email, name, lang, tz) in PLAYERS {
            app.player(email, name, lang, Some(tz)).await;
        }
        let cup = app.event(CUP).await;
        let team_file = include_str!("../../fixtures/events/team-match.toml").replacen(
            "kind = ",
            "visibility = \"public\"\nkind = ",
            1,
        );
        let team = app.event(&team_file).await;
        let [a, b, c, d, _] = PLAYERS.map(|p| p.0);
        let games = &cup.1;
        // Game 1: Ana mates Dörte.
        scholars_mate(&app, games[0], a, d).await;
        // Game 2: a move each, then the TD rules a draw.
        says(&app, games[1], b, "d4").await;
        says(&app, games[1], c, "d5").await;
        rule(
            &app,
            games[1],
            GameResult::Draw,
            "remis po dogovoru s sodnikom",
            "td@club.test",
        )
        .await;
        // The team match: board 1's first game won by White, by the TD.
        rule(
            &app,
            team.1[0],
            GameResult::WhiteWins,
            "brez poteze v roku",
            "td@example.org",
        )
        .await;
        // Game 3 runs after 1. Nf3; game 4 after 1. e4 c5 with Bożena's
        // conditional answer to 2. Nf3.
        says(&app, games[2], d, "Nf3").await;
        says(&app, games[3], a, "e4").await;
        says(&app, games[3], b, "c5").await;
        says(&app, games[3], b, "if Nf3 d6").await;
        // An event open for entries, Ana in it.
        let (open, _) = app
            .open_event(
                "name = \"Jesenski turnir\"\nkind = \"round-robin\"\ntime_control = \"10/50d\"\n\
                 tds = [\"td@club.test\"]\nvisibility = \"public\"\nlang = \"pl\"\n\n[entries]\n\
                 closes = \"2099-06-30\"\nmin = 4\nmax = 10\nopen_to = \"anyone\"\n",
            )
            .await;
        enter(&app, a, open).await;
        // An open class: three wait, so its first section starts.
        let (class, _) = app
            .open_event(
                "name = \"Odprti razred\"\nkind = \"round-robin\"\ntime_control = \"5d\"\n\
                 tds = [\"td@club.test\"]\nvisibility = \"public\"\nlang = \"lv\"\n\n[entries]\n\
                 closes = \"2099-06-30\"\nsection_size = 3\nsection_bands = [1800]\n\
                 promotes = { place = 1, percent = 75, to = \"Višji razred\" }\n",
            )
            .await;
        for who in [a, b, c] {
            enter(&app, who, class).await;
        }
        // The daemon's pass starts a section of those who wait.
        app.close_entries().await;
        // A Swiss event with its first round paired: its table has a column
        // per round (games under way, the pairing-allocated bye).
        let mut swiss_file = String::from(
            "name = \"Švicarski turnir 2027\"\nkind = \"swiss\"\nrounds = 3\n\
             time_control = \"5d\"\ntds = [\"td@club.test\"]\nvisibility = \"public\"\n\
             lang = \"sl\"\n",
        );
        for (email, name, ..) in PLAYERS {
            swiss_file.push_str(&format!(
                "\n[[players]]\nemail = \"{email}\"\nname = \"{name}\"\n"
            ));
        }
        let (swiss, _) = app.event(&swiss_file).await;
        let mut links = Vec::new();
        for (email, ..) in PLAYERS {
            let player = app.player_by_email(email).await;
            let segment =
                dopis::service::links::segment_of(&app.store, &app.post().tokens, player.id)
                    .await
                    .unwrap()
                    .expect("a link generation");
            links.push(format!("/me/{segment}"));
        }
        // Ana gets the digest: her mails' one-click link opens a page with
        // the button that stops it.
        let ana = app.player_by_email(a).await;
        let mut tx = app.store.begin().await.unwrap();
        tx.set_player_digest(ana.id, true).await.unwrap();
        tx.commit().await.unwrap();
        let link = dopis::service::links::unsubscribe_url(
            Some("https://chess.test"),
            &app.post().tokens,
            ana.id,
            dopis::service::links::List::Digest,
            app.now(),
        )
        .expect("an https link");
        let unsubscribe = link
            .strip_prefix("https://chess.test")
            .expect("under the base")
            .to_owned();
        let section = EventId(class.0 + 1);
        let bor = &links[1];
        let pages = vec![
            ("index", "/".to_owned()),
            ("event", format!("/events/{}", cup.0.0)),
            ("team-event", format!("/events/{}", team.0.0)),
            ("swiss-event", format!("/events/{}", swiss.0)),
            ("entries", format!("/events/{}", open.0)),
            ("open-class", format!("/events/{}", class.0)),
            ("section", format!("/events/{}", section.0)),
            ("game", format!("/games/{}", games[0].0)),
            ("running-game", format!("/games/{}", games[2].0)),
            ("player", bor.clone()),
            ("own-game", format!("{bor}/games/{}", games[3].0)),
            ("own-event", format!("{bor}/events/{}", cup.0.0)),
            ("not-found", "/events/999999".to_owned()),
            ("bad-request", "/me/%FF%FE".to_owned()),
            ("unsubscribe", unsubscribe),
        ];
        Club {
            app,
            pages,
            cup: (cup.0, cup.1.clone()),
        }
    }
}

/// White mates Black in four moves in `game`, by mail.
pub async fn scholars_mate(app: &TestApp, game: GameId, white: &str, black: &str) {
    for (who, mv) in [
        (white, "e4"),
        (black, "e5"),
        (white, "Qh5"),
        (black, "Nc6"),
        (white, "Bc4"),
        (black, "Nf6"),
        (white, "Qxf7#"),
    ] {
        says(app, game, who, mv).await;
    }
}

/// `email` writes `text` to their reply address of `game`.
pub async fn says(app: &TestApp, game: GameId, email: &str, text: &str) {
    let player = app.player_by_email(email).await;
    let to = app.reply_address(game, &player);
    app.advance(Duration::minutes(7));
    let handled = app.deliver(&Mail::new(email, &to).body(text).bytes()).await;
    assert!(matches!(handled, Handled::Done(_)), "{text}: {handled:?}");
}

/// The TD `td` rules `result` in `game`, saying why (an adjudication).
pub async fn rule(app: &TestApp, game: GameId, result: GameResult, why: &str, td: &str) {
    rule_as(app, game, result, ResultKind::Adjudication, why, td).await;
}

/// The TD `td` rules `result` of `kind` in `game`, saying why.
pub async fn rule_as(
    app: &TestApp,
    game: GameId,
    result: GameResult,
    kind: ResultKind,
    why: &str,
    td: &str,
) {
    let mut tx = app.store.begin().await.unwrap();
    dopis::service::td::set_result(
        &mut tx,
        app.post(),
        game,
        dopis::service::td::Ruling::Result(result, kind),
        why,
        &EmailAddress::parse(td).unwrap(),
        app.now(),
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// `email` enters `event` and confirms by replying to the mail that asks.
async fn enter(app: &TestApp, email: &str, event: EventId) {
    // The mails so far (the games') are not what this waits for.
    app.sent().await;
    app.advance(Duration::minutes(5));
    let text = format!("enter {}", event.0);
    let done = app
        .deliver(&Mail::new(email, CLUB).subject("entry").body(&text).bytes())
        .await;
    assert!(matches!(done, Handled::Done(_)), "{email}: {done:?}");
    let sent = app.sent().await;
    let ask = sent
        .iter()
        .find(|m| m.to == email && m.reply_to.is_some())
        .unwrap_or_else(|| panic!("a mail asking {email} to confirm: {sent:#?}"));
    app.advance(Duration::minutes(5));
    let id = format!("{:016x}@players.test", rand::random::<u64>());
    let done = app.deliver(&ask.reply(email, "yes", &id)).await;
    assert!(
        matches!(done, Handled::Done(_)),
        "{email} confirms: {done:?}"
    );
    app.sent().await;
}

/// The config `dopis web` reads for the club: its database, address,
/// secret and name.
pub fn config(dir: &std::path::Path, db: &TestDb) -> std::path::PathBuf {
    let path = dir.join("dopis.toml");
    std::fs::write(
        &path,
        format!(
            "[database]\nurl = \"{}\"\n\n[mail]\naddress = \"{CLUB}\"\nsecret = \"test-secret\"\nname = \"{SERVER_NAME}\"\n\n[web]\nlisten = \"127.0.0.1:0\"\n",
            db.url
        ),
    )
    .unwrap();
    path
}
