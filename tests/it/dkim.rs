//! The DKIM check (`[mail] require_dkim = true`) on mail signed for real:
//! a test key signs the players' mail, and its public key is published by a
//! small DNS server on 127.0.0.1 that `[mail] dns_servers` names, so the
//! check runs the same path as for an admin with a local resolver (the
//! hickory resolver asking a DNS server over UDP), never DNS on the internet.

use std::net::SocketAddr;

use base64::Engine;
use chrono::Duration;
use mail_auth::common::crypto::Ed25519Key;
use mail_auth::common::headers::HeaderWriter;
use mail_auth::dkim::DkimSigner;
use mail_auth::hickory_resolver::proto::op::{Message, MessageType, ResponseCode};
use mail_auth::hickory_resolver::proto::rr::rdata::TXT;
use mail_auth::hickory_resolver::proto::rr::{RData, Record, RecordType};
use tokio::net::UdpSocket;

use dopis::domain::clock::TimeControl;
use dopis::domain::ids::GameId;
use dopis::domain::lang::Lang;
use dopis::domain::player::Player;
use dopis::service::inbox::{Done, Handled, Refused};

use crate::support::TestDb;
use crate::support::app::TestApp;

/// The DKIM selector the test keys are published under.
const SELECTOR: &str = "dopis";

/// A DNS server on 127.0.0.1 that answers TXT questions from its table, as
/// a domain's DNS publishes DKIM keys; any other question gets NXDOMAIN.
/// Stops when dropped.
struct TxtServer {
    address: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl TxtServer {
    async fn start(records: Vec<(String, String)>) -> TxtServer {
        let socket = UdpSocket::bind("127.0.0.1:0").await.expect("bind DNS");
        let address = socket.local_addr().expect("DNS address");
        let task = tokio::spawn(async move {
            let mut buffer = vec![0u8; 4096];
            loop {
                let Ok((len, peer)) = socket.recv_from(&mut buffer).await else {
                    return;
                };
                let Ok(query) = Message::from_vec(&buffer[..len]) else {
                    continue;
                };
                let answer = answer(&query, &records);
                if let Ok(bytes) = answer.to_vec() {
                    let _ = socket.send_to(&bytes, peer).await;
                }
            }
        });
        TxtServer { address, task }
    }
}

impl Drop for TxtServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn answer(query: &Message, records: &[(String, String)]) -> Message {
    let mut answer = Message::response(query.metadata.id, query.metadata.op_code);
    answer.metadata.message_type = MessageType::Response;
    answer.metadata.recursion_desired = query.metadata.recursion_desired;
    answer.metadata.recursion_available = true;
    answer.edns = query.edns.clone();
    for question in &query.queries {
        answer.add_query(question.clone());
        let name = question
            .name()
            .to_ascii()
            .trim_end_matches('.')
            .to_lowercase();
        if question.query_type() != RecordType::TXT {
            continue;
        }
        for (_, text) in records.iter().filter(|(n, _)| *n == name) {
            answer.add_answer(Record::from_rdata(
                question.name().clone(),
                60,
                // One TXT string holds at most 255 bytes (RFC 1035): a
                // longer record (an RSA key) is split, as DNS servers do.
                RData::TXT(TXT::new(
                    text.as_bytes()
                        .chunks(255)
                        .map(|c| String::from_utf8_lossy(c).into_owned())
                        .collect(),
                )),
            ));
        }
    }
    if answer.answers.is_empty() {
        answer.metadata.response_code = ResponseCode::NXDomain;
    }
    answer
}

/// A domain's DKIM key: signs mail and is published as `dopis._domainkey.DOMAIN`.
struct SigningDomain {
    domain: String,
    pkcs8: Vec<u8>,
}

impl SigningDomain {
    fn new(domain: &str) -> SigningDomain {
        SigningDomain {
            domain: domain.into(),
            pkcs8: Ed25519Key::generate_pkcs8().expect("an Ed25519 key"),
        }
    }

    fn key(&self) -> Ed25519Key {
        Ed25519Key::from_pkcs8_der(&self.pkcs8).expect("the key reads back")
    }

    /// The TXT record publishing the public key (RFC 8463).
    fn record(&self) -> (String, String) {
        let public = base64::engine::general_purpose::STANDARD.encode(self.key().public_key());
        (
            format!("{SELECTOR}._domainkey.{}", self.domain),
            format!("v=DKIM1; k=ed25519; p={public}"),
        )
    }

    /// `raw` with a DKIM-Signature of this domain in front, as the sender's
    /// outgoing server adds it.
    fn sign(&self, raw: &[u8]) -> Vec<u8> {
        let signature = DkimSigner::from_key(self.key())
            .domain(self.domain.clone())
            .selector(SELECTOR)
            .headers(["From", "To", "Subject", "Message-ID", "Date"])
            .sign(raw)
            .expect("signing works");
        let mut signed = signature.to_header().into_bytes();
        signed.extend_from_slice(raw);
        signed
    }
}

/// A game between Alice (White) and Bob (Black) at players.test, and a
/// daemon's inbox that requires DKIM and asks `dns` for keys.
struct World {
    app: TestApp,
    game: GameId,
    alice: Player,
    _dns: TxtServer,
}

impl World {
    async fn new(db: &TestDb, published: &[&SigningDomain]) -> World {
        let dns = TxtServer::start(published.iter().map(|d| d.record()).collect()).await;
        let app = TestApp::builder()
            .answers_per_hour(5)
            .require_dkim(vec![dns.address.to_string()])
            .open(db)
            .await;
        let alice = app
            .player("alice@players.test", "Alice", Lang::En, None)
            .await;
        let bob = app.player("bob@players.test", "Bob", Lang::En, None).await;
        let game = app.game(&alice, &bob, TimeControl::default()).await;
        let world = World {
            app,
            game,
            alice,
            _dns: dns,
        };
        world.take_outbox().await;
        world
    }

    /// Alice's move `text` as her mail client writes it, to her reply address.
    fn alices_move(&self, text: &str) -> Vec<u8> {
        let to = self.app.reply_address(self.game, &self.alice);
        format!(
            "From: Alice <alice@players.test>\r\nTo: {to}\r\nSubject: Re: [dopis #1] Your move\r\n\
             Message-ID: <{:016x}@players.test>\r\nDate: Sun, 29 Nov 2026 12:00:00 +0000\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n",
            rand::random::<u64>()
        )
        .into_bytes()
    }

    async fn handle(&mut self, raw: &[u8]) -> Handled {
        self.app.advance(Duration::minutes(1));
        self.app.deliver(raw).await
    }

    async fn moves(&self) -> Vec<String> {
        self.app.moves(self.game).await
    }

    /// (recipient, text) of each mail queued since the last call.
    async fn take_outbox(&self) -> Vec<(String, String)> {
        self.app
            .sent()
            .await
            .into_iter()
            .map(|m| (m.to, m.text))
            .collect()
    }

    /// The mail was refused for want of a DKIM pass: nothing played, and
    /// Alice (a registered player) is told why.
    async fn assert_refused(&mut self, handled: Handled) {
        assert_eq!(handled, Handled::Done(Done::Refused(Refused::Unsigned)));
        assert!(self.moves().await.is_empty());
        let out = self.take_outbox().await;
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].0, "alice@players.test");
        assert!(out[0].1.contains("DKIM"), "{}", out[0].1);
    }
}

async fn a_move_signed_by_the_players_domain_is_played_with_require_dkim(db: &TestDb) {
    let players = SigningDomain::new("players.test");
    let mut w = World::new(db, &[&players]).await;
    let signed = players.sign(&w.alices_move("e4"));
    let handled = w.handle(&signed).await;
    assert!(
        matches!(&handled, Handled::Done(Done::Ruled(r)) if r.first_move() == Some("e4")),
        "{handled:?}"
    );
    assert_eq!(w.moves().await, ["e4"]);
}

async fn a_signed_mail_altered_after_signing_moves_nothing(db: &TestDb) {
    let players = SigningDomain::new("players.test");
    let mut w = World::new(db, &[&players]).await;
    let signed = players.sign(&w.alices_move("e4"));
    // Someone on the way changes the move; the body hash no longer matches.
    let text = String::from_utf8(signed).unwrap();
    let altered = text.replacen("\r\n\r\ne4\r\n", "\r\n\r\nd4\r\n", 1);
    assert_ne!(altered, text);
    let handled = w.handle(altered.as_bytes()).await;
    w.assert_refused(handled).await;
}

async fn a_mail_signed_by_another_domain_moves_nothing(db: &TestDb) {
    let players = SigningDomain::new("players.test");
    let relay = SigningDomain::new("relay.test");
    let mut w = World::new(db, &[&players, &relay]).await;
    // A valid signature, but of a domain that is not the From domain's.
    let signed = relay.sign(&w.alices_move("e4"));
    let handled = w.handle(&signed).await;
    w.assert_refused(handled).await;
}

async fn a_mail_signed_with_an_unpublished_key_moves_nothing(db: &TestDb) {
    let published = SigningDomain::new("players.test");
    let forger = SigningDomain::new("players.test");
    let mut w = World::new(db, &[&published]).await;
    let handled = w.handle(&forger.sign(&w.alices_move("e4"))).await;
    w.assert_refused(handled).await;
}

/// A PEM file of `der` (a PKCS#8 private key), as `openssl genpkey` writes.
fn pem(der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        lines.join("\n")
    )
}

/// An RSA key made by openssl, as an admin makes one: (PEM file text, the
/// TXT record's `p=`, the public key's SubjectPublicKeyInfo in base64).
fn openssl_rsa_key(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let key = dir.join("rsa.pem");
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl (installed with the test mail system)");
        assert!(out.status.success(), "{out:?}");
        out.stdout
    };
    run(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        key.to_str().unwrap(),
    ]);
    let spki = run(&[
        "pkey",
        "-in",
        key.to_str().unwrap(),
        "-pubout",
        "-outform",
        "DER",
    ]);
    (key, base64::engine::general_purpose::STANDARD.encode(spki))
}

/// `[mail.dkim]`: every mail `dopis serve` sends is signed for the domain
/// of `[mail] address`, with an Ed25519 key and with an RSA key made by
/// openssl; a receiver checking it against the published key (dopis's own
/// check, the hickory resolver asking the test DNS) finds a pass, and a
/// mail altered after sending fails.
async fn the_mail_dopis_sends_is_dkim_signed_for_its_domain(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let ed25519 = SigningDomain::new("chess.test");
    let ed_file = dir.path().join("ed25519.pem");
    std::fs::write(&ed_file, pem(&ed25519.pkcs8)).unwrap();
    let (rsa_file, rsa_public) = openssl_rsa_key(dir.path());
    let club = crate::club::Club::new(db);
    let config = std::fs::read_to_string(club.path().join("dopis.toml")).unwrap();
    let mut seen = 0;
    for (kind, file, record) in [
        ("ed25519", &ed_file, ed25519.record().1),
        ("rsa", &rsa_file, format!("v=DKIM1; k=rsa; p={rsa_public}")),
    ] {
        let dns =
            TxtServer::start(vec![(format!("{SELECTOR}._domainkey.chess.test"), record)]).await;
        let servers = dopis::service::dkim::DnsServers::parse(&[dns.address.to_string()]).unwrap();
        std::fs::write(
            club.path().join("dopis.toml"),
            format!(
                "{config}\n[mail.dkim]\nkey_file = \"{}\"\nselector = \"{SELECTOR}\"\n",
                file.display()
            ),
        )
        .unwrap();
        if seen > 0 {
            club.new_game(db, "alice@players.test", "bob@players.test");
        }
        crate::support::ok(&club.serve_once(db, None));
        let mut sent: Vec<_> = std::fs::read_dir(club.path().join("mail/sent/new"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        sent.sort();
        let sent: Vec<Vec<u8>> = sent.iter().map(|p| std::fs::read(p).unwrap()).collect();
        let new = &sent[..];
        assert!(
            new.len() >= seen + 2,
            "{kind}: the game's start mails were sent"
        );
        seen = new.len();
        let signed_by_this_key: Vec<&Vec<u8>> = new
            .iter()
            .filter(|raw| {
                let text = String::from_utf8_lossy(raw);
                text.contains(&format!("a={kind}-sha256"))
            })
            .collect();
        assert!(signed_by_this_key.len() >= 2, "{kind}");
        for raw in signed_by_this_key {
            let text = String::from_utf8_lossy(raw);
            assert!(text.contains("c=relaxed/relaxed"), "{kind}: {text}");
            assert!(
                dopis::service::dkim::aligned_pass(raw, "chess.test", &servers).await,
                "{kind}: no pass for\n{text}"
            );
            let altered = text.replacen("Subject: ", "Subject: Fwd: ", 1);
            assert!(
                !dopis::service::dkim::aligned_pass(altered.as_bytes(), "chess.test", &servers)
                    .await,
                "{kind}: an altered mail still passes"
            );
        }
    }
}

/// A DKIM key that cannot be used stops `serve` at start, saying what to do,
/// rather than mail going out unsigned.
async fn an_unusable_dkim_key_stops_serve_with_what_to_do(db: &TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not a key\n").unwrap();
    let missing = dir.path().join("missing.pem");
    let club = crate::club::Club::new(db);
    let config = std::fs::read_to_string(club.path().join("dopis.toml")).unwrap();
    for (file, selector, words) in [
        (&missing, "dopis", "cannot be read"),
        (&garbage, "dopis", "openssl genpkey"),
        (&garbage, "bad selector!", "not a DNS label"),
    ] {
        std::fs::write(
            club.path().join("dopis.toml"),
            format!(
                "{config}\n[mail.dkim]\nkey_file = \"{}\"\nselector = \"{selector}\"\n",
                file.display()
            ),
        )
        .unwrap();
        let out = club.serve_once(db, None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{err}");
        assert!(
            err.contains("[mail.dkim]") && err.contains(words),
            "{words}: {err}"
        );
        let sent = club.path().join("mail/sent/new");
        assert!(
            !sent.exists() || std::fs::read_dir(&sent).unwrap().count() == 0,
            "nothing was sent unsigned"
        );
    }
}

crate::on_both_backends!(
    the_mail_dopis_sends_is_dkim_signed_for_its_domain,
    an_unusable_dkim_key_stops_serve_with_what_to_do,
    a_move_signed_by_the_players_domain_is_played_with_require_dkim,
    a_signed_mail_altered_after_signing_moves_nothing,
    a_mail_signed_by_another_domain_moves_nothing,
    a_mail_signed_with_an_unpublished_key_moves_nothing,
);
