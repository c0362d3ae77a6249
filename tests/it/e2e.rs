//! End to end over real mail: the real `dopis serve` process reads its
//! mailbox over IMAP (Dovecot) and sends over SMTP (Postfix); two players
//! read their mail over IMAP and answer the mails they get by replying to
//! the Reply-To over SMTP, as a mail client would, until mate. One game
//! runs through TLS with AUTH, as with a real provider's servers (see
//! [`Wire::Tls`]); the other on the plaintext loopback ports.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dopis::adapter::config::{ImapConfig, MailConfig, Secret, SmtpConfig, Tls};
use dopis::daemon::mailbox::{ImapMailbox, MailRef};
use dopis::daemon::mailer::Mailer;
use dopis::domain::address::EmailAddress;
use mail_parser::MimeHeaders;

use crate::support::{
    Daemon, MAIL_PASSWORD, MailStack, TestDb, TlsStack, dopis, mailstack, ok, scratch_user,
    tls_mailstack,
};

/// How the daemon and the players reach the test mail system.
pub(crate) enum Wire {
    /// Plaintext on loopback, sending without AUTH.
    Plain(MailStack),
    /// TLS and AUTH, all four ways in one game: the daemon reads over IMAPS
    /// and sends through submission with STARTTLS, its host given by name
    /// (`localhost`, so the certificate's DNS name is checked); the players
    /// read with IMAP STARTTLS and send over smtps, by IP address.
    Tls(TlsStack),
}

impl Wire {
    fn player_imap(&self, user: &str) -> ImapConfig {
        let (port, tls, ca_file) = match self {
            Wire::Plain(stack) => (stack.imap_port, Tls::None, None),
            Wire::Tls(stack) => (stack.imap_port, Tls::Starttls, Some(stack.ca_file.clone())),
        };
        ImapConfig {
            tls,
            ca_file,
            ..crate::support::imap_login(port, user)
        }
    }

    /// The players' outgoing server (one client for both, logged in as `user`).
    pub(crate) fn player_smtp(&self, user: &str) -> SmtpConfig {
        match self {
            Wire::Plain(stack) => crate::support::smtp_plain(stack.smtp_port),
            Wire::Tls(stack) => SmtpConfig {
                tls: Tls::Tls,
                user: Some(user.into()),
                password: Some(Secret::new(MAIL_PASSWORD)),
                ca_file: Some(stack.ca_file.clone()),
                ..crate::support::smtp_plain(stack.smtps_port)
            },
        }
    }

    /// The daemon's `[mail.imap]` and `[mail.smtp]`, logged in as `server`.
    pub(crate) fn daemon_config(&self, server: &str) -> String {
        match self {
            Wire::Plain(stack) => crate::support::plain_mail_servers(stack, server),
            Wire::Tls(stack) => {
                crate::support::tls_mail_servers(stack, server, crate::support::MailLogin::Password)
            }
        }
    }
}

/// A player with a mailbox on the test mail system.
pub(crate) struct Player {
    pub(crate) address: String,
    mailbox: ImapMailbox,
    cursor: Option<MailRef>,
    inbox: Vec<mail_parser::Message<'static>>,
    slovenian: bool,
}

/// The Slovenian subject words of the mails the tests wait for.
fn slovenian(english: &str) -> &str {
    match english {
        "Your move" => "Na potezi ste",
        "Move accepted" => "Poteza sprejeta",
        "Game over" => "Konec partije",
        "Not played" => "Ni odigrano",
        "Conditional moves" => "Pogojne poteze",
        "Conditional move played" => "Pogojna poteza odigrana",
        other => other,
    }
}

impl Player {
    pub(crate) async fn new(wire: &Wire, slovenian: bool) -> Player {
        let address = scratch_user();
        let mailbox = ImapMailbox::connect(wire.player_imap(&address))
            .await
            .unwrap();
        Player {
            address,
            mailbox,
            cursor: None,
            inbox: Vec::new(),
            slovenian,
        }
    }

    /// Waits (up to 60 s) for a new mail whose subject contains `wanted`
    /// (or, for a player who reads Slovenian, its Slovenian wording).
    pub(crate) async fn wait_for(&mut self, wanted: &str) -> mail_parser::Message<'static> {
        match self.poll_for(wanted, Duration::from_secs(60)).await {
            Some(mail) => mail,
            None => panic!(
                "{} got no mail with {wanted:?} in time; unread: {:?}",
                self.address,
                self.inbox
                    .iter()
                    .map(|m| m.subject().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
            ),
        }
    }

    /// As [`Player::wait_for`], giving up after `within`: `None` then.
    pub(crate) async fn poll_for(
        &mut self,
        wanted: &str,
        within: Duration,
    ) -> Option<mail_parser::Message<'static>> {
        let wanted = if self.slovenian {
            slovenian(wanted)
        } else {
            wanted
        };
        let deadline = Instant::now() + within;
        loop {
            if let Some(i) = self
                .inbox
                .iter()
                .position(|m| m.subject().unwrap_or("").contains(wanted))
            {
                return Some(self.inbox.remove(i));
            }
            if Instant::now() >= deadline {
                return None;
            }
            let batch = self.mailbox.fetch_new(self.cursor.as_ref()).await.unwrap();
            if batch.is_empty() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            for mail in batch {
                self.cursor = Some(mail.key.clone());
                let parsed = mail_parser::MessageParser::default()
                    .parse(&mail.raw)
                    .unwrap()
                    .into_owned();
                self.inbox.push(parsed);
            }
        }
    }
}

/// The player answers `mail` with `text` as a mail client does: to the
/// Reply-To, "Re:" subject, threading headers, the old mail quoted below.
pub(crate) async fn reply(
    mailer: &Mailer,
    from: &str,
    mail: &mail_parser::Message<'_>,
    text: &str,
) {
    let to = mail
        .reply_to()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .expect("a Reply-To")
        .to_string();
    let id = mail.message_id().unwrap_or("");
    let quoted: String = mail
        .body_text(0)
        .unwrap_or_default()
        .lines()
        .map(|l| format!("> {l}\r\n"))
        .collect();
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: {}\r\nMessage-ID: <{:016x}@players.test>\r\nIn-Reply-To: <{id}>\r\n\
         References: <{id}>\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\r\nOn Sunday dopis wrote:\r\n{quoted}",
        mail.subject().unwrap_or(""),
        rand::random::<u64>()
    );
    mailer
        .send(
            &EmailAddress::parse(from).unwrap(),
            &[EmailAddress::parse(&to).unwrap()],
            raw.as_bytes(),
        )
        .await
        .unwrap();
}

/// A running daemon with its config dir, a game between two players, and
/// an SMTP client for the players.
struct Match {
    dir: tempfile::TempDir,
    white: Player,
    black: Player,
    smtp: Mailer,
    id: String,
    _daemon: Daemon,
}

impl Match {
    /// The game's moves in SAN, and the arrival times, from `game show`.
    fn moves(&self, db: &TestDb) -> (Vec<String>, serde_json::Value) {
        crate::support::game_shown(self.dir.path(), db, &self.id)
    }

    /// `side` answers their newest mail whose subject has `wanted` with `text`.
    async fn answer(&mut self, white: bool, wanted: &str, text: &str) {
        let player = if white {
            &mut self.white
        } else {
            &mut self.black
        };
        let mail = player.wait_for(wanted).await;
        reply(&self.smtp, &player.address.clone(), &mail, text).await;
    }
}

async fn start_match(db: &TestDb, wire: Wire) -> Match {
    start_match_with(db, wire, |_| String::new(), &[]).await
}

/// As [`start_match`], with more `[mail]` keys (or tables after them), made
/// from the daemon's mailbox address, and more `game new` arguments.
async fn start_match_with(
    db: &TestDb,
    wire: Wire,
    mail_keys: impl Fn(&str) -> String,
    game_args: &[&str],
) -> Match {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = scratch_user();
    let white = Player::new(&wire, true).await;
    let black = Player::new(&wire, false).await;
    std::fs::write(
        d.join("dopis.toml"),
        format!(
            "[mail]\naddress = \"{server}\"\nsecret = \"e2e-secret\"\n{}\n{}",
            mail_keys(&server),
            wire.daemon_config(&server)
        ),
    )
    .unwrap();
    ok(&dopis(d, db, &["init"]));
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            &white.address,
            "--name",
            "Ana Novak",
            "--lang",
            "sl",
        ],
    ));
    ok(&dopis(
        d,
        db,
        &[
            "player",
            "add",
            "--email",
            &black.address,
            "--name",
            "Bob Smith",
        ],
    ));
    let mut args = vec![
        "game",
        "new",
        "--white",
        &white.address,
        "--black",
        &black.address,
    ];
    args.extend_from_slice(game_args);
    let id = ok(&dopis(d, db, &args));
    let id = id.trim().to_string();
    let log = std::fs::File::create(d.join("serve.log")).unwrap();
    let daemon = Daemon(
        Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(d)
            .env_remove("DOPIS_CONFIG")
            .env("DOPIS_DATABASE_URL", &db.url)
            .args(["serve"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    let smtp = Mailer::open(&MailConfig {
        smtp: Some(wire.player_smtp(&white.address)),
        ..MailConfig::default()
    })
    .unwrap();
    Match {
        dir,
        white,
        black,
        smtp,
        id,
        _daemon: daemon,
    }
}

async fn two_players_play_a_game_to_mate_by_replying_to_real_mail_over_tls_with_auth(db: &TestDb) {
    let Some(stack) = tls_mailstack() else { return };
    let m = start_match(db, Wire::Tls(stack)).await;
    let Match {
        dir,
        mut white,
        mut black,
        smtp,
        id,
        _daemon,
    } = m;
    let d = dir.path();

    // Légal's mate; Ana writes Slovenian piece letters (S knight, L bishop).
    let plies = [
        "e4", "e7-e5", "Sf3", "d6", "Lc4", "Bg4", "Sc3", "g7g6", "Sxe5", "Bxd1", "Lxf7+", "Ke7",
        "Sd5#",
    ];
    let started = black.wait_for("Game started").await;
    assert!(
        started
            .subject()
            .unwrap_or("")
            .contains(&format!("[dopis #{id}]"))
    );
    for (i, text) in plies.iter().enumerate() {
        let (player, other) = if i % 2 == 0 {
            (&mut white, &mut black)
        } else {
            (&mut black, &mut white)
        };
        let mail = player.wait_for("Your move").await;
        let reply_to = mail
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap()
            .to_string();
        assert!(reply_to.contains(&format!("+g{id}.")), "{reply_to}");
        reply(&smtp, &player.address.clone(), &mail, text).await;
        if i + 1 < plies.len() {
            player.wait_for("Move accepted").await;
        }
        let _ = other;
    }
    for player in [&mut white, &mut black] {
        let over = player.wait_for("Game over").await;
        let pgn = over
            .attachments()
            .find(|a| a.attachment_name().is_some_and(|n| n.ends_with(".pgn")))
            .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
            .expect("the PGN is attached");
        assert!(pgn.contains("7. Nd5#"), "{pgn}");
        assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    }
    let (sans, json) = crate::support::game_shown(d, db, &id);
    assert_eq!(
        sans,
        [
            "e4", "e5", "Nf3", "d6", "Bc4", "Bg4", "Nc3", "g6", "Nxe5", "Bxd1", "Bxf7+", "Ke7",
            "Nd5#"
        ]
    );
    assert_eq!(json["result"], "1-0");
    assert_eq!(json["status"], "finished");
    // Every move's time is when its mail reached the mailbox.
    assert!(
        json["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["received_at"].is_string())
    );
    // The listing shows the same moves (it showed `"moves": []`).
    let listed: serde_json::Value =
        serde_json::from_str(&ok(&dopis(d, db, &["game", "list", "--format", "json"]))).unwrap();
    let game = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == json["id"])
        .expect("the game is listed");
    assert_eq!(game["moves"], json["moves"]);
}

async fn conditional_moves_fire_and_draw_claims_are_judged_over_real_mail(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let mut m = start_match(db, Wire::Plain(stack)).await;
    // White (Ana, who writes Slovenian letters) moves and leaves a conditional
    // line: if 1...e5 then 2.Nf3, if 2...Nc6 then 3.Bb5.
    m.answer(true, "Your move", "e4\r\nif e5 Nf3 Nc6 Bb5").await;
    let set = m.white.wait_for("Conditional moves").await;
    assert!(
        set.body_text(0)
            .unwrap_or_default()
            .contains("če 1...e5 2.Sf3 2...Sc6 3.Lb5")
    );
    // Black plays e5: Nf3 follows at once, without White writing.
    m.answer(false, "Your move", "e5").await;
    let told = m.black.wait_for("Your move").await;
    assert!(
        told.subject().unwrap_or("").contains("Nf3"),
        "{:?}",
        told.subject()
    );
    // Black is told his 1... e5 was played, then White's pre-set 2. Nf3,
    // and that it is his move again; White reads it in her letters.
    let accepted = m.black.wait_for("Move accepted").await;
    let text = accepted.body_text(0).unwrap_or_default();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Your move 1... e5") && flat.contains("2. Nf3. It is your move now: 2... ?"),
        "{text}"
    );
    let fired = m.white.wait_for("Conditional move played").await;
    assert!(
        fired.subject().unwrap_or("").ends_with(": Sf3"),
        "{:?}",
        fired.subject()
    );
    let text = fired.body_text(0).unwrap_or_default();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("1... e5") && flat.contains("2. Sf3"),
        "{text}"
    );
    let (sans, json) = m.moves(db);
    assert_eq!(sans, ["e4", "e5", "Nf3"]);
    let times = json["moves"].as_array().unwrap();
    assert_eq!(
        times[1]["received_at"], times[2]["received_at"],
        "the conditional answer costs no time"
    );
    // Black does not play Nc6: the rest of White's line is cancelled.
    let black_address = m.black.address.clone();
    reply(&m.smtp, &black_address, &told, "d6").await;
    let cancelled = m.white.wait_for("Conditional moves").await;
    assert!(
        cancelled
            .body_text(0)
            .unwrap_or_default()
            .contains("preklicane"),
        "White reads the cancellation in Slovenian"
    );
    assert_eq!(m.moves(db).0, ["e4", "e5", "Nf3", "d6"]);
    // An invalid claim is refused, plays nothing, and White still has the move.
    m.answer(true, "Your move", "claim draw Ng1").await;
    let refused = m.white.wait_for("Not played").await;
    let why = refused.body_text(0).unwrap_or_default();
    assert!(
        why.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains("NI bila odigrana"),
        "White reads why the claim failed in Slovenian"
    );
    assert_eq!(m.moves(db).0, ["e4", "e5", "Nf3", "d6"]);
    // Knights out and back until the position after 2...d6 comes a third
    // time. White answers the refusal mail (it carries the reply address too).
    let white_address = m.white.address.clone();
    reply(&m.smtp, &white_address, &refused, "Ng1").await;
    let shuffle = [
        (false, "Nc6"),
        (true, "Nf3"),
        (false, "Nb8"),
        (true, "Ng1"),
        (false, "Nc6"),
        (true, "Nf3"),
    ];
    for (white, text) in shuffle {
        m.answer(white, "Your move", text).await;
    }
    m.answer(false, "Your move", "claim draw Nb8").await;
    m.white.wait_for("Game over").await;
    let over = m.black.wait_for("Game over").await;
    assert!(
        over.body_text(0).unwrap_or_default().contains("threefold"),
        "{:?}",
        over.body_text(0)
    );
    let (sans, json) = m.moves(db);
    assert_eq!(sans.len(), 12, "{sans:?}");
    assert_eq!(json["result"], "1/2-1/2");
}

async fn a_game_enters_the_endgame_tables_and_a_claim_ends_it_over_real_mail(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let tables = crate::tablebase::tables();
    let keys = move |_: &str| {
        format!(
            "[tablebase]\nsyzygy_path = [{:?}]\n",
            tables.display().to_string()
        )
    };
    // Six men (K+R+B v K+R+P): White's Bxa7 brings the game into the tables.
    let fen = ["--fen", "3r2k1/p7/8/8/8/4B3/8/3R2K1 w - - 0 1"];
    let mut m = start_match_with(db, Wire::Plain(stack), keys, &fen).await;
    // Ana writes Slovenian letters: L is the bishop.
    m.answer(true, "Your move", "Lxa7").await;
    let told = m.black.wait_for("Your move").await;
    let flat = |mail: &mail_parser::Message<'_>| {
        let text = mail.body_text(0).unwrap_or_default();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert!(
        flat(&told)
            .contains("The endgame tables (KRBvKR) now hold this position, and they say: a draw"),
        "{}",
        flat(&told)
    );
    let accepted = m.white.wait_for("Move accepted").await;
    assert!(
        flat(&accepted).contains("Končniške tabele (KRBvKR)"),
        "{}",
        flat(&accepted)
    );
    // Black, to move, claims the draw the tables give.
    let black_address = m.black.address.clone();
    reply(&m.smtp, &black_address, &told, "claim draw").await;
    let over = m.black.wait_for("Game over").await;
    assert!(
        flat(&over).contains("Decided by the endgame tables (KRBvKR")
            && flat(&over).contains("on Black's claim"),
        "{}",
        flat(&over)
    );
    m.white.wait_for("Game over").await;
    let (sans, json) = m.moves(db);
    assert_eq!(sans, ["Bxa7"]);
    assert_eq!(json["result"], "1/2-1/2");
}

async fn a_stale_reply_over_real_mail_is_asked_about_before_it_is_played(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let mut m = start_match(db, Wire::Plain(stack)).await;
    // Ana (White, Slovenian letters) keeps her first "your move" mail.
    let first = m.white.wait_for("Your move").await;
    let ana = m.white.address.clone();
    reply(&m.smtp, &ana, &first, "Sf3").await;
    m.answer(false, "Your move", "Nf6").await;
    m.answer(true, "Your move", "Sg1").await;
    m.answer(false, "Your move", "Ng8").await;
    // Her "your move" after 2... Ng8 shows the daemon has played it.
    m.white.wait_for("Your move").await;
    assert_eq!(m.moves(db).0, ["Nf3", "Nf6", "Ng1", "Ng8"]);
    // She answers that first mail again: Nf3 is legal, but it was written
    // for the start position. She is asked; nothing is played.
    reply(&m.smtp, &ana, &first, "Nf3").await;
    let ask = m.white.wait_for("Prosimo, potrdite").await;
    let text = ask.body_text(0).unwrap_or_default().into_owned();
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("o 1. potezi belega"), "{text}");
    assert!(flat.contains("3. Nf3"), "{text}");
    assert_eq!(m.moves(db).0.len(), 4);
    // Confirming plays it; Bob is told.
    reply(&m.smtp, &ana, &ask, "ja").await;
    m.black.wait_for("Your move").await;
    assert_eq!(m.moves(db).0, ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3"]);
}

async fn players_send_messages_with_their_moves_over_real_mail(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let mut m = start_match(db, Wire::Plain(stack)).await;
    // Ana (Slovenian) plays with a message below her move, a signature
    // under it and our mail quoted below that, as her client replies.
    m.answer(
        true,
        "Your move",
        "Sf3\r\nHvala za igro & <b>srečno</b>!\r\n\r\nAna\r\n-- \r\nPoslano z mojega telefona",
    )
    .await;
    let told = m.black.wait_for("Your move").await;
    let text = told.body_text(0).unwrap_or_default().replace("\r\n", "\n");
    assert!(text.contains("Ana Novak writes:"), "{text}");
    assert!(
        text.contains("    Hvala za igro & <b>srečno</b>!\n\n    Ana"),
        "{text}"
    );
    assert!(!text.contains("Poslano z mojega"), "{text}");
    let html = told.body_html(0).unwrap_or_default().into_owned();
    assert!(
        html.contains("Hvala za igro &amp; &lt;b&gt;srečno&lt;"),
        "{html}"
    );
    let accepted = m.white.wait_for("Poteza sprejeta").await;
    assert!(
        accepted
            .body_text(0)
            .unwrap_or_default()
            .contains("Vaše sporočilo smo posredovali naprej"),
        "Ana is told in Slovenian that it went on"
    );
    // Bob answers that mail with a message alone: Ana gets it, Bob is told.
    let bob = m.black.address.clone();
    reply(
        &m.smtp,
        &bob,
        &told,
        "Thanks, the same to you, and good luck!",
    )
    .await;
    let note = m.white.wait_for("Sporočilo: Bob Smith").await;
    assert!(
        note.body_text(0)
            .unwrap_or_default()
            .contains("    Thanks, the same to you, and good luck!")
    );
    m.black.wait_for("Your message was passed on").await;
    // A move with words on its line is refused, plays nothing; written
    // right, it is played.
    reply(&m.smtp, &bob, &told, "d5 thanks").await;
    let refused = m.black.wait_for("Could not read \"d5 thanks\"").await;
    let why = refused.body_text(0).unwrap_or_default();
    assert!(
        why.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains("write the move on the first line and the message on the lines below it"),
        "{why}"
    );
    assert_eq!(m.moves(db).0, ["Nf3"]);
    reply(&m.smtp, &bob, &refused, "d5\r\nSorry, a typo.").await;
    let yours = m.white.wait_for("Your move").await;
    assert!(
        yours
            .body_text(0)
            .unwrap_or_default()
            .contains("    Sorry, a typo."),
        "the message rides with the move"
    );
    assert_eq!(m.moves(db).0, ["Nf3", "d5"]);
    // The PGN carries the messages after their moves, and reads back.
    let ana = m.white.address.clone();
    reply(&m.smtp, &ana, &yours, "pgn").await;
    let pgn_mail = m.white.wait_for("PGN").await;
    let pgn = pgn_mail
        .attachments()
        .find(|a| a.attachment_name().is_some_and(|n| n.ends_with(".pgn")))
        .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
        .expect("the PGN is attached");
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("{Ana Novak: Hvala za igro & <b>srečno</b>! Ana}")
            && flat.contains("{Bob Smith: Thanks, the same to you, and good luck!}")
            && flat.contains("{Bob Smith: Sorry, a typo.} *"),
        "{pgn}"
    );
    let read = dopis::domain::chess::pgn::import(&pgn).expect("the PGN reads back");
    assert_eq!(read.game.plies().len(), 2);
}

/// Providers without `+`: one that delimits the tag with `-`
/// (`t-NAME-g1.TOKEN@chess.test`) and a catch-all domain
/// (`g1.TOKEN@NAME.catch.test`); the test mail system delivers both to the
/// daemon's mailbox as such providers do. A game is played to mate by
/// replies to those addresses.
async fn replies_reach_games_through_a_dash_provider_and_a_catch_all_domain(db: &TestDb) {
    let Some(stack) = mailstack() else { return };
    let dash = |_: &str| "reply_delimiter = \"-\"\n".to_string();
    let catch_all = |server: &str| {
        let name = server
            .split('@')
            .next()
            .and_then(|l| l.strip_prefix("t-"))
            .unwrap_or_default();
        format!("reply_domain = \"{name}.catch.test\"\n")
    };
    for (form, keys) in [
        ("dash", &dash as &dyn Fn(&str) -> String),
        ("catch-all", &catch_all),
    ] {
        let mut m = start_match_with(db, Wire::Plain(stack), keys, &[]).await;
        // Fool's mate: four replies, each to the Reply-To of the mail it answers.
        for (i, text) in ["f3", "e5", "g4", "Qh4#"].iter().enumerate() {
            let player = if i % 2 == 0 {
                &mut m.white
            } else {
                &mut m.black
            };
            let mail = player.wait_for("Your move").await;
            let reply_to = mail
                .reply_to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .unwrap()
                .to_string();
            let wanted = match form {
                "dash" => format!("-g{}.", m.id),
                _ => ".catch.test".to_string(),
            };
            assert!(reply_to.contains(&wanted), "{form}: {reply_to}");
            assert!(!reply_to.contains('+'), "{form}: {reply_to}");
            reply(&m.smtp, &player.address.clone(), &mail, text).await;
        }
        m.white.wait_for("Game over").await;
        let (sans, json) = m.moves(db);
        assert_eq!(sans, ["f3", "e5", "g4", "Qh4#"], "{form}");
        assert_eq!(json["result"], "0-1", "{form}");
    }
}

crate::on_both_backends!(
    a_game_enters_the_endgame_tables_and_a_claim_ends_it_over_real_mail,
    replies_reach_games_through_a_dash_provider_and_a_catch_all_domain,
    two_players_play_a_game_to_mate_by_replying_to_real_mail_over_tls_with_auth,
    players_send_messages_with_their_moves_over_real_mail,
    conditional_moves_fire_and_draw_claims_are_judged_over_real_mail,
    a_stale_reply_over_real_mail_is_asked_about_before_it_is_played,
);
