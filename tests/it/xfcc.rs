//! XFCC with real clients: Scid's own Xfcc code (Debian's scid-data, run
//! headless under tclsh by `tests/xfcc/scid.tcl`) fetches games, sends
//! moves and plays a whole game against a player who answers by mail, on
//! both backends, with the real `dopis serve` and `dopis web` and the test
//! mail system; Python's zeep drives the endpoint from its WSDL alone; and
//! hostile requests (DTDs, entity bombs, huge bodies, wrong content types,
//! unknown operations) get SOAP faults and leave the server serving.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dopis::adapter::config::MailConfig;
use dopis::daemon::mailer::Mailer;
use mail_parser::MimeHeaders;

use crate::e2e::{Player, Wire, reply};
use crate::support::web::{WebServer, request};
use crate::support::{Daemon, TestDb, dopis, mailstack, ok, python_with, sqlite};

const PATH: &str = "/xfcc/xfccbasic.asmx";

/// Debian's scid-data and tdom unpacked (scripts/stack.sh does it), or
/// `None` with a notice; in CI a missing one is a failure.
fn scid_root() -> Option<PathBuf> {
    let root = std::env::var_os("DOPIS_TEST_SCID_ROOT")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/dopis/scid/root"))
        })?;
    if root
        .join("usr/share/scid/tcl/tools/correspondence.tcl")
        .is_file()
    {
        return Some(root);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but Scid's files are missing: run the tests with scripts/test.sh");
    }
    eprintln!(
        "SKIPPED: Scid XFCC test (no scid-data under DOPIS_TEST_SCID_ROOT; scripts/test.sh unpacks it)"
    );
    None
}

/// Scid's Xfcc client with its own folder (config, inbox, state file).
struct Scid {
    root: PathBuf,
    work: tempfile::TempDir,
    uri: String,
    user: String,
}

impl Scid {
    fn new(root: PathBuf, uri: &str, user: &str, password: &str) -> Scid {
        let scid = Scid {
            root,
            work: tempfile::tempdir().expect("temp dir"),
            uri: uri.to_owned(),
            user: user.to_owned(),
        };
        scid.log_in_with(password);
        scid
    }

    /// Writes Scid's xfccrc: one server named `dopis`.
    fn log_in_with(&self, password: &str) {
        std::fs::write(
            self.work.path().join("xfccrc"),
            format!(
                "<xfcc><server><name>dopis</name><uri>{}</uri><user>{}</user><pass>{password}</pass><rating>ICCF</rating></server></xfcc>",
                self.uri, self.user
            ),
        )
        .expect("write xfccrc");
    }

    /// Runs the harness; Scid's console lines.
    fn run(&self, args: &[&str]) -> String {
        let tcltk = std::fs::read_dir(self.root.join("usr/lib/tcltk"))
            .expect("tcltk folder")
            .map(|e| e.expect("entry").path())
            .next()
            .expect("an architecture folder");
        let libs = std::fs::read_dir(self.root.join("usr/lib"))
            .expect("lib folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.to_string_lossy().ends_with("-linux-gnu"))
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
        let out = Command::new("tclsh8.6")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/xfcc/scid.tcl"))
            .arg(
                self.root
                    .join("usr/share/scid/tcl/tools/correspondence.tcl"),
            )
            .arg(self.work.path())
            .args(args)
            .env("TCLLIBPATH", tcltk)
            .env("LD_LIBRARY_PATH", libs)
            .stdin(Stdio::null())
            .output()
            .expect("run tclsh8.6");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "Scid's Xfcc code failed: {}\n{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }

    fn fetch(&self) -> String {
        self.run(&["fetch"])
    }

    /// Sends a move as Scid's Send does (no resign or draw flags).
    fn send(&self, game: &str, movecount: u32, mv: &str, comment: &str) -> String {
        self.run(&[
            "send",
            "dopis",
            game,
            &movecount.to_string(),
            mv,
            comment,
            "false",
            "false",
            "false",
            "false",
        ])
    }

    /// The PGN Scid wrote for a game.
    fn pgn(&self, game: &str) -> String {
        std::fs::read_to_string(self.work.path().join(format!("inbox/dopis-{game}.pgn")))
            .unwrap_or_else(|e| panic!("Scid wrote no PGN for game {game}: {e}"))
    }

    /// Scid's state file (clocks, whose move, draw offers).
    fn state(&self) -> String {
        std::fs::read_to_string(self.work.path().join("xfccstate")).unwrap_or_default()
    }
}

/// The SAN moves of a PGN, read with dopis's own importer.
fn sans(pgn: &str) -> Vec<String> {
    dopis::domain::chess::pgn::import(pgn)
        .unwrap_or_else(|e| panic!("PGN does not read: {e}\n{pgn}"))
        .game
        .plies()
        .iter()
        .map(|p| p.san.clone())
        .collect()
}

/// The value of a PGN tag.
fn tag(pgn: &str, name: &str) -> String {
    pgn.lines()
        .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
        .and_then(|v| v.strip_suffix("\"]"))
        .unwrap_or_default()
        .to_owned()
}

/// The new password in `dopis player xfcc-password` output.
fn password_in(out: &str) -> String {
    out.lines()
        .find_map(|l| l.trim().strip_prefix("password: "))
        .unwrap_or_else(|| panic!("no password in {out}"))
        .trim()
        .to_owned()
}

/// The moves of a game, from `game show`.
fn moves_of(dir: &Path, db: &TestDb, id: &str) -> (Vec<String>, serde_json::Value) {
    crate::support::game_shown(dir, db, id)
}

/// Polls (up to 60 s) until the game has `n` moves.
fn wait_for_moves(dir: &Path, db: &TestDb, id: &str, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (sans, _) = moves_of(dir, db, id);
        if sans.len() >= n {
            return sans;
        }
        assert!(
            Instant::now() < deadline,
            "game {id} has {sans:?}, not {n} moves"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Fool's mate with White (Ana) answering her mails and Black (Bob) in
/// Scid: every refusal Scid can meet on the way, a move sent twice, the
/// games fetched into PGN that matches dopis's, the mails the opponent
/// reads over IMAP.
async fn a_game_finishes_with_one_side_in_scid_and_the_other_by_mail(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let Some(root) = scid_root() else { return };
    let wire = Wire::Plain(stack);
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let server = crate::support::scratch_user();
    let mut ana = Player::new(&wire, false).await;
    let mut bob = Player::new(&wire, false).await;
    let config = d.join("dopis.toml");
    std::fs::write(
        &config,
        format!(
            "[mail]\naddress = \"{server}\"\nsecret = \"xfcc-secret\"\n{}\n[web]\nlisten = \"127.0.0.1:0\"\n",
            wire.daemon_config(&server)
        ),
    )
    .expect("write config");
    ok(&dopis(d, db, &["init"]));
    for (who, name) in [(&ana, "Ana Novak"), (&bob, "Bob Smith")] {
        ok(&dopis(
            d,
            db,
            &["player", "add", "--email", &who.address, "--name", name],
        ));
    }
    let id = ok(&dopis(
        d,
        db,
        &[
            "game",
            "new",
            "--white",
            &ana.address,
            "--black",
            &bob.address,
        ],
    ))
    .trim()
    .to_string();
    let password = password_in(&ok(&dopis(
        d,
        db,
        &["player", "xfcc-password", &bob.address],
    )));
    let log = std::fs::File::create(d.join("serve.log")).expect("log");
    let _serve = Daemon(
        Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(d)
            .env_remove("DOPIS_CONFIG")
            .env("DOPIS_DATABASE_URL", &db.url)
            .arg("serve")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start serve"),
    );
    let web = WebServer::start(d, db, &config);
    let uri = format!("{}{PATH}", web.base);
    let smtp = Mailer::open(&MailConfig {
        smtp: Some(wire.player_smtp(&ana.address)),
        ..MailConfig::default()
    })
    .expect("smtp");

    // A wrong password: Scid says so (and shows its message box).
    let scid = Scid::new(root, &uri, &bob.address, "not-the-password");
    let said = scid.fetch();
    assert!(
        said.contains("CONSOLE info Authentication failed!"),
        "{said}"
    );
    scid.log_in_with(&password);

    // The game, before any move: Bob waits.
    let said = scid.fetch();
    assert!(said.contains(&format!("info dopis-{id}...")), "{said}");
    let pgn = scid.pgn(&id);
    assert_eq!(tag(&pgn, "White"), "Ana Novak", "{pgn}");
    assert_eq!(tag(&pgn, "Black"), "Bob Smith", "{pgn}");
    assert_eq!(tag(&pgn, "Result"), "*", "{pgn}");
    assert_eq!(tag(&pgn, "TimeControl"), "1/259200", "{pgn}");
    assert!(sans(&pgn).is_empty(), "{pgn}");
    let state = scid.state();
    assert!(state.contains(&format!("dopis-{id}")), "{state}");
    assert!(state.contains("{myTurn false}"), "{state}");
    // Bob's clock is the whole 3 days; Ana's runs.
    assert!(state.contains("{clockB { 3d  0: 0}}"), "{state}");

    // Not his move yet.
    let said = scid.send(&id, 1, "e5", "");
    assert!(said.contains("info Not your turn!"), "{said}");

    // Ana plays 1. f3 by mail.
    let mail = ana.wait_for("Your move").await;
    reply(&smtp, &ana.address.clone(), &mail, "f3").await;
    assert_eq!(wait_for_moves(d, db, &id, 1), ["f3"]);
    let said = scid.fetch();
    assert!(said.contains(&format!("dopis-{id}")), "{said}");
    assert_eq!(sans(&scid.pgn(&id)), ["f3"]);
    assert!(scid.state().contains("{myTurn true}"), "{}", scid.state());

    // A stale move number, an illegal move, then the move.
    let said = scid.send(&id, 2, "e5", "");
    // Scid's console says "Invalid move!" for it (see scid.tcl): the code
    // is read from the response Scid got.
    assert!(
        said.contains("<MakeAMoveResult>InvalidMoveNumber</MakeAMoveResult>"),
        "{said}"
    );
    let said = scid.send(&id, 1, "Ke7", "");
    assert!(said.contains("info Invalid move!"), "{said}");
    assert!(
        said.contains("<MakeAMoveResult>InvalidMove</MakeAMoveResult>"),
        "{said}"
    );
    assert_eq!(moves_of(d, db, &id).0, ["f3"], "refusals change nothing");
    let said = scid.send(&id, 1, "e5", "Good luck!");
    assert!(said.contains("info Processing successfull!"), "{said}");
    assert_eq!(moves_of(d, db, &id).0, ["f3", "e5"]);
    // Ana reads it over IMAP with Bob's message, as after a mail move.
    let told = ana.wait_for("Your move").await;
    assert!(
        told.subject().unwrap_or("").contains("e5"),
        "{:?}",
        told.subject()
    );
    assert!(
        told.body_text(0).unwrap_or_default().contains("Good luck!"),
        "{:?}",
        told.body_text(0)
    );
    // Bob gets his usual receipt.
    bob.wait_for("Move accepted").await;
    // The response was lost, Scid sends again: the same answer, one move.
    let said = scid.send(&id, 1, "e5", "Good luck!");
    assert!(said.contains("info Processing successfull!"), "{said}");
    assert_eq!(moves_of(d, db, &id).0, ["f3", "e5"]);

    // 2. g4 by mail, 2... Qh4# from Scid.
    reply(&smtp, &ana.address.clone(), &told, "g4").await;
    assert_eq!(wait_for_moves(d, db, &id, 3), ["f3", "e5", "g4"]);
    scid.fetch();
    assert_eq!(sans(&scid.pgn(&id)), ["f3", "e5", "g4"]);
    let said = scid.send(&id, 2, "Qh4#", "");
    assert!(said.contains("info Processing successfull!"), "{said}");
    let over = ana.wait_for("Game over").await;
    let dopis_pgn = over
        .attachments()
        .find(|a| a.attachment_name().is_some_and(|n| n.ends_with(".pgn")))
        .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
        .expect("the PGN is attached");
    bob.wait_for("Game over").await;
    let (final_sans, json) = moves_of(d, db, &id);
    assert_eq!(final_sans, ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(json["result"], "0-1");

    // Scid's PGN of the finished game matches dopis's.
    let said = scid.fetch();
    assert!(said.contains(&format!("dopis-{id}")), "{said}");
    let pgn = scid.pgn(&id);
    assert_eq!(sans(&pgn), sans(&dopis_pgn), "{pgn}\n{dopis_pgn}");
    for name in ["White", "Black", "Result", "Date"] {
        assert_eq!(tag(&pgn, name), tag(&dopis_pgn, name), "{name}: {pgn}");
    }
    assert_eq!(tag(&pgn, "Result"), "0-1");
    assert!(
        scid.state().contains("{result BlackWins}"),
        "{}",
        scid.state()
    );
    // After the end nothing more can be sent.
    let said = scid.send(&id, 3, "Qxe1", "");
    assert!(said.contains("info Not your turn!"), "{said}");
}

/// A SOAP request as go-chess-xfcc sends it (no SOAPAction, prefixed).
fn envelope(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:x=\"http://www.bennedik.com/webservices/XfccBasic\">\n  <soap:Header/>\n  <soap:Body>\n    {body}\n  </soap:Body>\n</soap:Envelope>\n"
    )
}

/// A club with two players, a game between them, Bob's XFCC password and
/// `dopis web` running (no mail daemon: mails stay queued).
struct Club {
    dir: tempfile::TempDir,
    db: TestDb,
    web: WebServer,
    game: String,
    password: String,
}

fn club() -> Club {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let db = sqlite();
    let config = d.join("dopis.toml");
    std::fs::write(
        &config,
        "[mail]\naddress = \"chess@club.test\"\nsecret = \"xfcc-secret\"\n\n[web]\nlisten = \"127.0.0.1:0\"\n",
    )
    .expect("config");
    ok(&dopis(d, &db, &["init"]));
    for (email, name) in [
        ("ana@club.test", "Ana Novak"),
        ("bob@club.test", "Bob Smith"),
    ] {
        ok(&dopis(
            d,
            &db,
            &["player", "add", "--email", email, "--name", name],
        ));
    }
    let game = ok(&dopis(
        d,
        &db,
        &[
            "game",
            "new",
            "--white",
            "bob@club.test",
            "--black",
            "ana@club.test",
        ],
    ))
    .trim()
    .to_string();
    let password = password_in(&ok(&dopis(
        d,
        &db,
        &["player", "xfcc-password", "bob@club.test"],
    )));
    let web = WebServer::start(d, &db, &config);
    Club {
        dir,
        db,
        web,
        game,
        password,
    }
}

impl Club {
    fn post(&self, content_type: Option<&str>, body: &[u8]) -> crate::support::web::Response {
        let mut headers = Vec::new();
        if let Some(ct) = content_type {
            headers.push(("Content-Type", ct));
        }
        request(self.web.address(), "POST", PATH, &headers, body)
    }

    fn get_my_games(&self, password: &str) -> crate::support::web::Response {
        self.post(
            Some("text/xml; charset=utf-8"),
            envelope(&format!(
                "<x:GetMyGames><x:username>bob@club.test</x:username><x:password>{password}</x:password></x:GetMyGames>"
            ))
            .as_bytes(),
        )
    }

    fn make_a_move(&self, fields: &str) -> String {
        let r = self.post(
            Some("text/xml"),
            envelope(&format!(
                "<x:MakeAMove><x:username>bob@club.test</x:username><x:password>{}</x:password><x:gameId>{}</x:gameId>{fields}</x:MakeAMove>",
                self.password, self.game
            ))
            .as_bytes(),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let text = r.text();
        text.split("<MakeAMoveResult>")
            .nth(1)
            .and_then(|t| t.split("</MakeAMoveResult>").next())
            .unwrap_or_else(|| panic!("no result in {text}"))
            .to_owned()
    }
}

fn assert_fault(r: &crate::support::web::Response, status: u16, words: &str) {
    let text = r.text();
    assert_eq!(r.status, status, "{text}");
    assert!(
        text.contains("<soap:Fault><faultcode>soap:Client</faultcode><faultstring>"),
        "{text}"
    );
    assert!(text.contains(words), "{words:?} not in {text}");
}

#[test]
fn hostile_requests_get_soap_faults_and_the_server_keeps_serving() {
    let c = club();
    let billion_laughs = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">{}]>{}",
        (1..10)
            .map(|i| format!(
                "<!ENTITY lol{i} \"{}\">",
                format!(
                    "&lol{};",
                    if i == 1 {
                        String::new()
                    } else {
                        (i - 1).to_string()
                    }
                )
                .repeat(10)
            ))
            .collect::<String>(),
        envelope("<x:GetMyGames><x:username>&lol9;</x:username></x:GetMyGames>")
    );
    assert_fault(
        &c.post(Some("text/xml"), billion_laughs.as_bytes()),
        500,
        "DTD",
    );
    let external = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>{}",
        envelope("<x:GetMyGames><x:username>&xxe;</x:username></x:GetMyGames>")
    );
    let r = c.post(Some("text/xml"), external.as_bytes());
    assert_fault(&r, 500, "DTD");
    assert!(!r.text().contains("root:"), "{}", r.text());
    assert_fault(
        &c.post(Some("text/xml"), b"<soap:Envelope><soap:Body><unclosed>"),
        500,
        "not well-formed XML",
    );
    assert_fault(
        &c.post(Some("text/xml"), envelope("<x:DeleteAllGames/>").as_bytes()),
        500,
        "unknown operation &apos;DeleteAllGames&apos;",
    );
    assert_fault(
        &c.post(Some("application/json"), b"{\"username\": \"bob\"}"),
        415,
        "not XML",
    );
    // 8 MiB: refused after the first 64 KiB, not read into memory.
    let mut huge = envelope("<x:GetMyGames><x:username>").into_bytes();
    huge.extend(std::iter::repeat_n(b'a', 8 << 20));
    assert_fault(&c.post(Some("text/xml"), &huge), 413, "larger than");
    assert_fault(
        &c.post(
            Some("text/xml; charset=utf-8"),
            b"<soap:Envelope>\xff\xfe not utf-8</soap:Envelope>",
        ),
        400,
        "charset",
    );
    // Still serving: a good request works.
    let r = c.get_my_games(&c.password);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(r.text().contains(&format!("<id>{}</id>", c.game)));
}

#[test]
fn make_a_move_answers_each_refusal_with_its_code_and_changes_nothing() {
    let c = club();
    let d = c.dir.path();
    let flags = |mv: &str, n: u32, extra: &str| {
        format!(
            "<x:resign>false</x:resign><x:acceptDraw>false</x:acceptDraw><x:movecount>{n}</x:movecount><x:myMove>{mv}</x:myMove><x:offerDraw>false</x:offerDraw><x:claimDraw>false</x:claimDraw>{extra}"
        )
    };
    assert_eq!(c.make_a_move(&flags("e4", 2, "")), "InvalidMoveNumber");
    assert_eq!(c.make_a_move(&flags("e5", 1, "")), "InvalidMove");
    assert_eq!(c.make_a_move(&flags("Nd2", 1, "")), "InvalidMove");
    assert_eq!(
        c.make_a_move("<x:acceptDraw>true</x:acceptDraw><x:movecount>1</x:movecount>"),
        "NoDrawWasOffered"
    );
    assert!(moves_of(d, &c.db, &c.game).0.is_empty());
    assert_eq!(c.make_a_move(&flags("e4", 1, "")), "Success");
    // Sent again after a lost answer: Success, still one move.
    assert_eq!(c.make_a_move(&flags("e4", 1, "")), "Success");
    assert_eq!(moves_of(d, &c.db, &c.game).0, ["e4"]);
    // Another move at the same number is not a resend.
    assert_eq!(c.make_a_move(&flags("d4", 1, "")), "NotYourTurn");
    let wrong = c.post(
        Some("text/xml"),
        envelope(&format!(
            "<x:MakeAMove><x:username>bob@club.test</x:username><x:password>wrong</x:password><x:gameId>{}</x:gameId></x:MakeAMove>",
            c.game
        ))
        .as_bytes(),
    );
    assert!(
        wrong
            .text()
            .contains("<MakeAMoveResult>AuthenticationFailed</MakeAMoveResult>")
    );
    let other = c.post(
        Some("text/xml"),
        envelope(&format!(
            "<x:MakeAMove><x:username>bob@club.test</x:username><x:password>{}</x:password><x:gameId>999</x:gameId></x:MakeAMove>",
            c.password
        ))
        .as_bytes(),
    );
    assert!(
        other
            .text()
            .contains("<MakeAMoveResult>InvalidGameID</MakeAMoveResult>"),
        "{}",
        other.text()
    );
    // Bob resigns; Scid puts the last move beside it, which is ignored.
    assert_eq!(
        c.make_a_move(
            "<x:resign>true</x:resign><x:movecount>1</x:movecount><x:myMove>e4</x:myMove>"
        ),
        "Success"
    );
    let (_, json) = moves_of(d, &c.db, &c.game);
    assert_eq!(json["result"], "0-1");
}

#[test]
fn failed_logins_are_limited_and_a_revoked_password_stops_working() {
    let c = club();
    for _ in 0..10 {
        assert_fault(&c.get_my_games("guess"), 500, "AuthenticationFailed");
    }
    // The eleventh is refused without a check, even with the right password.
    assert_fault(&c.get_my_games(&c.password), 500, "AuthenticationFailed");
    // A revoked password: a fresh server (the limiter is in memory), the
    // old password fails.
    let d = c.dir.path();
    ok(&dopis(
        d,
        &c.db,
        &["player", "xfcc-password", "bob@club.test", "--revoke"],
    ));
    let web = WebServer::start(d, &c.db, &d.join("dopis.toml"));
    let r = request(
        web.address(),
        "POST",
        PATH,
        &[("Content-Type", "text/xml")],
        envelope(&format!(
            "<x:GetMyGames><x:username>bob@club.test</x:username><x:password>{}</x:password></x:GetMyGames>",
            c.password
        ))
        .as_bytes(),
    );
    assert_fault(&r, 500, "AuthenticationFailed");
}

#[test]
fn zeep_drives_both_operations_from_the_wsdl_alone() {
    let Some(python) = python_with("zeep") else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true but python3-zeep is missing: run the tests with scripts/test.sh");
        }
        eprintln!("SKIPPED: zeep test (python3-zeep missing; scripts/test.sh installs it)");
        return;
    };
    let c = club();
    // The WSDL at ?WSDL (any case) names the endpoint it was fetched from.
    let (status, wsdl) = c.web.get(&format!("{PATH}?WSDL"));
    assert_eq!(status, 200, "{wsdl}");
    assert!(
        wsdl.contains(&format!("location=\"{}{PATH}\"", c.web.base)),
        "{wsdl}"
    );
    let script = format!(
        r#"
import sys, zeep
client = zeep.Client("{base}{PATH}?wsdl")
games = client.service.GetMyGames(username="bob@club.test", password="{pw}")
for g in games:
    print("game", g.id, g.white, g.black, g.myTurn, g.hasWhite, g.result, repr(g.moves), g.daysPlayer)
r = client.service.MakeAMove(username="bob@club.test", password="{pw}", gameId=int({game}),
    resign=False, acceptDraw=False, movecount=1, myMove="Nf3", offerDraw=False,
    claimDraw=False, myMessage="from zeep")
print("result", r)
r = client.service.MakeAMove(username="bob@club.test", password="{pw}", gameId=int({game}),
    resign=False, acceptDraw=False, movecount=2, myMove="Nc3", offerDraw=False,
    claimDraw=False, myMessage="")
print("result", r)
games = client.service.GetMyGames(username="bob@club.test", password="{pw}")
print("moves", repr(games[0].moves), games[0].myTurn)
try:
    client.service.GetMyGames(username="bob@club.test", password="wrong")
    print("no fault")
except zeep.exceptions.Fault as f:
    print("fault", f.message)
"#,
        base = c.web.base,
        pw = c.password,
        game = c.game,
    );
    let out = Command::new(python)
        .args(["-c", &script])
        .output()
        .expect("run python");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Bob (White, to move) has 2 days 23 hours and some minutes left.
    assert!(
        text.contains(&format!(
            "game {} Bob Smith Ana Novak True True Ongoing None 2",
            c.game
        )),
        "{text}"
    );
    assert!(
        text.contains("result Success\nresult NotYourTurn\n"),
        "{text}"
    );
    assert!(text.contains("moves '1. Nf3' False"), "{text}");
    assert!(text.contains("fault AuthenticationFailed"), "{text}");
}

/// `xfcc password` by mail: asked from a game's reply address, the new
/// password goes to the registered address and logs in; asked from the
/// plain address (whose From anyone can write) it is refused and nothing
/// changes; a stranger gets nothing; asking again ends the old one.
async fn a_password_asked_for_by_mail_goes_to_the_registered_address_only(db: &TestDb) {
    use crate::support::app::TestApp;
    use crate::support::mail::Mail;
    use dopis::domain::lang::Lang;
    use dopis::service::xfcc::{LoginLimiter, authenticate};
    let app = TestApp::builder().open(db).await;
    let ana = app
        .player("ana@players.test", "Ana Novak", Lang::Sl, None)
        .await;
    let bor = app
        .player("bor@players.test", "Bor Kralj", Lang::En, None)
        .await;
    let game = app
        .game(&ana, &bor, dopis::domain::clock::TimeControl::default())
        .await;
    let limiter = LoginLimiter::new();
    let ask = |from: &str| {
        Mail::new(from, "chess@chess.test")
            .subject("xfcc")
            .body("xfcc geslo\r\n")
            .bytes()
    };
    // To the plain address: refused (anyone can forge a From), no password.
    app.deliver(&ask("ana@players.test")).await;
    let sent = app.sent().await;
    assert!(
        sent.iter().all(|m| !m.subject.contains("XFCC")),
        "no password for a mail to the plain address: {sent:?}"
    );
    assert!(
        sent.iter()
            .any(|m| m.to == "ana@players.test" && m.text.contains("xfcc geslo")),
        "she is told to ask from a game's reply address: {sent:?}"
    );
    // From her game's reply address: the password.
    app.deliver(
        &Mail::new("ana@players.test", &app.reply_address(game, &ana))
            .subject("xfcc")
            .body("xfcc geslo\r\n")
            .bytes(),
    )
    .await;
    let sent = app.sent().await;
    let mail = sent
        .iter()
        .find(|m| m.subject.contains("XFCC"))
        .unwrap_or_else(|| panic!("no password mail: {sent:?}"));
    assert_eq!(mail.to, "ana@players.test");
    let password = mail
        .text
        .lines()
        .find_map(|l| l.trim().strip_prefix("geslo: "))
        .unwrap_or_else(|| panic!("no password in {}", mail.text))
        .trim()
        .to_owned();
    assert!(mail.text.contains("ana@players.test"), "{}", mail.text);
    let logged_in = authenticate(
        &app.store,
        &limiter,
        "ana@players.test",
        &password,
        None,
        app.now(),
    )
    .await
    .expect("store");
    assert_eq!(logged_in.map(|p| p.id), Some(ana.id));
    // A stranger writing the same gets nothing, and changes nothing.
    app.deliver(&ask("mallory@elsewhere.test")).await;
    assert!(
        app.sent().await.iter().all(|m| !m.subject.contains("XFCC")),
        "no password to a stranger"
    );
    // Asking again makes a new one: the old one stops working.
    app.deliver(
        &Mail::new("ana@players.test", &app.reply_address(game, &ana))
            .subject("again")
            .body("xfcc password\r\n")
            .bytes(),
    )
    .await;
    let still = authenticate(
        &app.store,
        &limiter,
        "ana@players.test",
        &password,
        None,
        app.now(),
    )
    .await
    .expect("store");
    assert!(still.is_none(), "the old password was replaced");
}

crate::on_both_backends!(
    a_game_finishes_with_one_side_in_scid_and_the_other_by_mail,
    a_password_asked_for_by_mail_goes_to_the_registered_address_only,
);
