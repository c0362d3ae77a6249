//! The mail transports against a real Postfix + Dovecot (started by
//! `scripts/test.sh`), and the Maildir ones on a temp directory.
//!
//! Each IMAP test has a mailbox user of its own (`support::scratch_user`),
//! so the tests run in parallel without seeing each other's mail. Waiting is
//! by polling with a deadline, never by a fixed sleep.

use std::time::Duration;

use chrono::Datelike;

use dopis::adapter::config::{ImapConfig, MailConfig, MaildirConfig, Secret, Tls};
use dopis::daemon::mailbox::{
    ImapMailbox, Incoming, MailRef, Mailbox, MailboxError, MaildirMailbox,
};
use dopis::daemon::mailer::{MaildirMailer, Mailer, SendError, SmtpMailer};
use dopis::domain::address::EmailAddress;

use crate::support::{self, MAIL_PASSWORD, MailStack};

/// How long a delivery may take before a test gives up (normally ~0.1 s).
const DELIVERY: Duration = Duration::from_secs(30);

fn addr(a: &str) -> EmailAddress {
    EmailAddress::parse(a).expect("test address")
}

/// A plain mail whose Date header is far in the past, so a test can tell
/// the delivery time from it.
fn mail(to: &str, subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Alice <alice@players.test>\r\nTo: {to}\r\nSubject: {subject}\r\n\
         Date: Mon, 1 Jan 2001 00:00:00 +0000\r\nMessage-ID: <{:016x}@players.test>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        rand::random::<u64>()
    )
    .into_bytes()
}

fn imap_config(stack: MailStack, user: &str) -> ImapConfig {
    crate::support::imap_login(stack.imap_port, user)
}

fn mail_config(stack: MailStack, user: &str) -> MailConfig {
    MailConfig {
        address: user.into(),
        imap: Some(imap_config(stack, user)),
        smtp: Some(crate::support::smtp_plain(stack.smtp_port)),
        ..MailConfig::default()
    }
}

async fn send(stack: MailStack, to: &str, subject: &str) {
    let mailer =
        SmtpMailer::new(&crate::support::smtp_plain(stack.smtp_port)).expect("smtp mailer");
    mailer
        .send(
            &addr("alice@players.test"),
            &[addr(to)],
            &mail(to, subject, "e4"),
        )
        .await
        .expect("send to the test mail system");
}

fn text(m: &Incoming) -> String {
    String::from_utf8_lossy(&m.raw).into_owned()
}

/// Fetches after `after` until `count` mails have come, waiting for new mail
/// in between; fails at the deadline.
async fn fetch_until(
    mailbox: &mut Mailbox,
    after: Option<&MailRef>,
    count: usize,
) -> Vec<Incoming> {
    let deadline = tokio::time::Instant::now() + DELIVERY;
    loop {
        match mailbox.fetch_new(after).await {
            Ok(mails) if mails.len() >= count => return mails,
            Ok(_) | Err(MailboxError::Transient(_)) => {}
            Err(e) => panic!("fetch failed: {e}"),
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "mail did not arrive within {DELIVERY:?}"
        );
        let _ = mailbox.wait_for_new(Duration::from_millis(500)).await;
    }
}

/// A plain IMAP session as a mail client would have, to look behind the
/// mailbox's back.
async fn raw_session(stack: MailStack, user: &str) -> async_imap::Session<tokio::net::TcpStream> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", stack.imap_port))
        .await
        .expect("connect to test IMAP");
    let mut client = async_imap::Client::new(tcp);
    client.read_response().await.expect("greeting");
    client
        .login(user, MAIL_PASSWORD)
        .await
        .map_err(|(e, _)| e)
        .expect("login")
}

async fn flags_of(stack: MailStack, user: &str, folder: &str) -> Vec<String> {
    use futures::TryStreamExt;
    let mut session = raw_session(stack, user).await;
    session.select(folder).await.expect("select");
    let fetched: Vec<_> = session
        .fetch("1:*", "(FLAGS)")
        .await
        .expect("fetch flags")
        .try_collect()
        .await
        .expect("collect flags");
    let flags = fetched
        .iter()
        .map(|f| {
            f.flags()
                .map(|fl| format!("{fl:?}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let _ = session.logout().await;
    flags
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_to_a_plus_address_arrives_over_imap_timed_by_delivery_not_by_its_date() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let cfg = mail_config(stack, &user);
    let plus = user.replace('@', "+g1.k7f3q9@");
    let mailer = Mailer::open(&cfg).expect("mailer");
    mailer
        .send(
            &addr("alice@players.test"),
            &[addr(&plus)],
            &mail(&plus, "plus address", "Nf3"),
        )
        .await
        .expect("send");

    let mut mailbox = Mailbox::open(&cfg).await.expect("open IMAP mailbox");
    let mails = fetch_until(&mut mailbox, None, 1).await;
    assert_eq!(mails.len(), 1);
    let got = text(&mails[0]);
    assert!(got.contains(&format!("Delivered-To: {plus}")), "{got}");
    assert!(got.contains("Subject: plus address"), "{got}");
    assert!(got.contains("Nf3"), "{got}");
    assert_eq!(mails[0].oversized, None);
    // INTERNALDATE, not the 2001 Date header
    assert!(
        mails[0].received_at.year() >= 2024,
        "{}",
        mails[0].received_at
    );
    assert!(matches!(mails[0].key, MailRef::Imap { .. }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_wakes_the_wait_as_soon_as_mail_arrives() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let mut mailbox = ImapMailbox::connect(imap_config(stack, &user))
        .await
        .expect("connect");
    assert!(mailbox.fetch_new(None).await.expect("fetch").is_empty());

    // The wait asks for ten minutes; only IDLE reporting the delivery can end
    // it within the one-minute bound. The send waits a moment so that it
    // lands while the IDLE is running.
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        let (woke, ()) = tokio::join!(mailbox.wait_for_new(Duration::from_secs(600)), async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            send(stack, &user, "wake up").await;
        });
        woke
    })
    .await;
    waited.expect("IDLE did not wake the wait").expect("wait");
    let mails = mailbox.fetch_new(None).await.expect("fetch");
    assert_eq!(mails.len(), 1);
    assert!(text(&mails[0]).contains("Subject: wake up"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_idle_polling_finds_new_mail() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let mut mailbox = ImapMailbox::connect(imap_config(stack, &user))
        .await
        .expect("connect")
        .poll_only();
    assert!(mailbox.fetch_new(None).await.expect("fetch").is_empty());
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        let (woke, ()) = tokio::join!(mailbox.wait_for_new(Duration::from_secs(600)), async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            send(stack, &user, "polled").await;
        });
        woke
    })
    .await;
    waited
        .expect("polling did not notice the mail")
        .expect("wait");
    let mails = mailbox.fetch_new(None).await.expect("fetch");
    assert_eq!(mails.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cursor_gives_every_mail_once_and_skips_none() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let cfg = mail_config(stack, &user);
    let mut mailbox = Mailbox::open(&cfg).await.expect("open");
    // one at a time, so delivery order is send order
    for (i, subject) in ["one", "two", "three"].iter().enumerate() {
        send(stack, &user, subject).await;
        fetch_until(&mut mailbox, None, i + 1).await;
    }
    let all = mailbox.fetch_new(None).await.expect("fetch all");
    let subjects: Vec<bool> = ["one", "two", "three"]
        .iter()
        .zip(&all)
        .map(|(s, m)| text(m).contains(&format!("Subject: {s}")))
        .collect();
    assert_eq!(subjects, [true, true, true], "oldest first");

    let after_first = mailbox
        .fetch_new(Some(&all[0].key))
        .await
        .expect("after first");
    assert_eq!(after_first, all[1..].to_vec());
    // the highest UID is below `n` in `UID n:*`: still nothing comes back
    assert!(
        mailbox
            .fetch_new(Some(&all[2].key))
            .await
            .expect("after last")
            .is_empty()
    );

    send(stack, &user, "four").await;
    let later = fetch_until(&mut mailbox, Some(&all[2].key), 1).await;
    assert_eq!(later.len(), 1);
    assert!(text(&later[0]).contains("Subject: four"));
    // The text form in the database gives the same cursor back.
    let stored: MailRef = all[2].key.to_string().parse().expect("mail ref text");
    assert_eq!(
        mailbox.fetch_new(Some(&stored)).await.expect("fetch"),
        later
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handled_mail_is_flagged_seen_and_not_read_again_after_a_restart() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let cfg = mail_config(stack, &user);
    send(stack, &user, "handled").await;
    send(stack, &user, "pending").await;
    let mut mailbox = Mailbox::open(&cfg).await.expect("open");
    let mails = fetch_until(&mut mailbox, None, 2).await;
    let handled = mails
        .iter()
        .find(|m| text(m).contains("Subject: handled"))
        .expect("the handled mail");
    mailbox.mark_done(&handled.key).await.expect("mark done");
    mailbox
        .mark_done(&handled.key)
        .await
        .expect("marking twice is harmless");

    let flags = flags_of(stack, &user, "INBOX").await;
    assert_eq!(
        flags.iter().filter(|f| f.contains("Seen")).count(),
        1,
        "{flags:?}"
    );
    // a restart without a cursor reads only what is not done
    let mut restarted = Mailbox::open(&cfg).await.expect("reopen");
    let again = restarted.fetch_new(None).await.expect("fetch");
    assert_eq!(again.len(), 1);
    assert!(text(&again[0]).contains("Subject: pending"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handled_mail_moves_to_the_done_folder_which_is_created_if_missing() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let mut cfg = mail_config(stack, &user);
    if let Some(imap) = cfg.imap.as_mut() {
        imap.done_folder = Some("Done".into());
    }
    send(stack, &user, "to be moved").await;
    let mut mailbox = Mailbox::open(&cfg).await.expect("open");
    let mails = fetch_until(&mut mailbox, None, 1).await;
    mailbox.mark_done(&mails[0].key).await.expect("mark done");

    assert!(
        flags_of(stack, &user, "INBOX").await.is_empty(),
        "still in INBOX"
    );
    let done = flags_of(stack, &user, "Done").await;
    assert_eq!(done.len(), 1, "{done:?}");
    assert!(done[0].contains("Seen"), "{done:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_folder_voids_the_cursor_and_unseen_mail_is_read_again() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let mut raw = raw_session(stack, &user).await;
    raw.create("Games").await.expect("create folder");
    raw.append("Games", None, None, mail(&user, "before", "e4"))
        .await
        .expect("append");

    let mut cfg = imap_config(stack, &user);
    cfg.mailbox = "Games".into();
    let mut mailbox = Mailbox::Imap(ImapMailbox::connect(cfg).await.expect("connect"));
    let before = fetch_until(&mut mailbox, None, 1).await;
    let MailRef::Imap {
        uid_validity: old_validity,
        ..
    } = before[0].key
    else {
        panic!("not an IMAP key");
    };

    // The admin deletes and recreates the folder: UIDs start again.
    raw.delete("Games").await.expect("delete folder");
    raw.create("Games").await.expect("recreate folder");
    for subject in ["again 1", "again 2"] {
        raw.append("Games", None, None, mail(&user, subject, "d4"))
            .await
            .expect("append");
    }
    let _ = raw.logout().await;

    // The old cursor (UID 1 of the old folder) would skip the first new mail.
    let mails = fetch_until(&mut mailbox, Some(&before[0].key), 2).await;
    assert_eq!(mails.len(), 2);
    for m in &mails {
        let MailRef::Imap { uid_validity, .. } = m.key else {
            panic!("not an IMAP key")
        };
        assert_ne!(uid_validity, old_validity);
    }
    // and the old key no longer names anything: nothing is marked by mistake
    assert!(matches!(
        mailbox.mark_done(&before[0].key).await,
        Err(MailboxError::Gone(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_mail_comes_back_with_only_its_header_and_can_be_marked_done() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let cfg = mail_config(stack, &user);
    let big = mail(&user, "huge", &"0123456789abcdef\r\n".repeat(4000));
    Mailer::open(&cfg)
        .expect("mailer")
        .send(&addr("alice@players.test"), &[addr(&user)], &big)
        .await
        .expect("send");
    let mut mailbox = Mailbox::open(&cfg).await.expect("open");
    mailbox.set_max_mail_bytes(10_000);
    let mails = fetch_until(&mut mailbox, None, 1).await;
    assert!(mails[0].raw.is_empty());
    assert!(
        mails[0].oversized.is_some_and(|size| size > 70_000),
        "{:?}",
        mails[0].oversized
    );
    // Its header, to tell its sender; not its body.
    let head = String::from_utf8_lossy(&mails[0].head);
    assert!(
        head.contains("From: Alice <alice@players.test>") && head.contains("Subject: huge"),
        "{head}"
    );
    assert!(!head.contains("0123456789abcdef"), "{head}");
    mailbox.mark_done(&mails[0].key).await.expect("mark done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_and_folder_problems_are_permanent_and_say_what_to_fix() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let mut wrong = imap_config(stack, "alice@players.test");
    wrong.password = Some(Secret::new("not-the-password"));
    let mut missing = imap_config(stack, &user);
    missing.mailbox = "No such folder".into();
    let mut starttls = imap_config(stack, &user);
    starttls.tls = Tls::Starttls;
    let mut tls = imap_config(stack, &user);
    tls.tls = Tls::Tls;
    let cases = [
        (wrong, "check [mail.imap] user and password"),
        (missing, "fix [mail.imap] mailbox"),
        // The IMAP port has STARTTLS, with a certificate of the test CA
        // that this config does not trust (tls.rs trusts it; the refused
        // STARTTLS is there too).
        (starttls, "set [mail.imap] ca_file"),
        (tls, "is the port right"),
    ];
    for (cfg, hint) in cases {
        let err = ImapMailbox::connect(cfg).await.expect_err("must fail");
        let message = err.to_string();
        assert!(matches!(err, MailboxError::Permanent(_)), "{message}");
        assert!(message.contains(hint), "{message}");
        assert!(
            !message.contains("not-the-password") && !message.contains(MAIL_PASSWORD),
            "{message}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imap_server_that_is_down_is_a_transient_error() {
    let port = free_port();
    let err = ImapMailbox::connect(imap_config(
        MailStack {
            smtp_port: port,
            imap_port: port,
        },
        "x@chess.test",
    ))
    .await
    .expect_err("nothing listens there");
    assert!(err.is_transient(), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_user_at_a_test_domain_is_a_permanent_smtp_failure() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let mailer = SmtpMailer::new(&crate::support::smtp_plain(stack.smtp_port)).expect("mailer");
    let to = "nobody-here@chess.test";
    let err = mailer
        .send(
            &addr("alice@players.test"),
            &[addr(to)],
            &mail(to, "lost", "e4"),
        )
        .await
        .expect_err("unknown user");
    match err {
        SendError::Permanent(message) => assert!(message.contains("550"), "{message}"),
        SendError::Transient(message) | SendError::Unavailable(message) => {
            panic!("should be permanent: {message}")
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_smtp_connection_is_a_transient_failure() {
    let mailer = SmtpMailer::new(&crate::support::smtp_plain(free_port())).expect("mailer");
    let to = "alice@players.test";
    let err = mailer
        .send(
            &addr("chess@chess.test"),
            &[addr(to)],
            &mail(to, "later", "e4"),
        )
        .await
        .expect_err("nothing listens there");
    assert!(err.is_transient(), "{err}");
    // The server's fault, not the mail's: the outbox waits for the server.
    assert!(matches!(err, SendError::Unavailable(_)), "{err:?}");
}

/// A loopback port nothing listens on (bound, then released).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("local addr").port()
}

#[tokio::test]
async fn mail_written_to_a_maildir_is_read_back_once_in_order_and_marked_done() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mailer = MaildirMailer::open(dir.path()).expect("maildir mailer");
    let mut mailbox = Mailbox::Maildir(
        MaildirMailbox::open(dir.path())
            .await
            .expect("maildir mailbox"),
    );
    assert!(mailbox.fetch_new(None).await.expect("fetch").is_empty());

    let from = addr("chess@chess.test");
    for subject in ["one", "two", "three"] {
        let to = addr("alice@players.test");
        mailer
            .send(&from, &[to], &mail("alice@players.test", subject, "e4"))
            .await
            .expect("send");
    }
    let all = mailbox.fetch_new(None).await.expect("fetch");
    assert_eq!(all.len(), 3);
    let mut times: Vec<_> = all.iter().map(|m| m.received_at).collect();
    times.sort();
    assert_eq!(
        times,
        all.iter().map(|m| m.received_at).collect::<Vec<_>>(),
        "oldest first"
    );
    for m in &all {
        let t = text(m);
        assert!(
            t.starts_with(
                "Return-Path: <chess@chess.test>\r\nX-Envelope-To: <alice@players.test>\r\n"
            ),
            "{t}"
        );
    }
    // new/ is what is not yet handled: a cursor hides none of it
    let after_last = mailbox
        .fetch_new(Some(&all[2].key))
        .await
        .expect("after last");
    assert_eq!(after_last, all);

    mailbox.mark_done(&all[0].key).await.expect("mark done");
    mailbox
        .mark_done(&all[0].key)
        .await
        .expect("marking twice is harmless");
    let MailRef::Maildir { name } = &all[0].key else {
        panic!("not a Maildir key")
    };
    assert!(dir.path().join("cur").join(format!("{name}:2,S")).is_file());
    assert_eq!(
        mailbox.fetch_new(None).await.expect("not done"),
        all[1..].to_vec()
    );
    let unknown = MailRef::Maildir {
        name: "never.delivered".into(),
    };
    assert!(matches!(
        mailbox.mark_done(&unknown).await,
        Err(MailboxError::Gone(_))
    ));
}

#[tokio::test]
async fn the_embedded_default_reads_path_inbox_and_writes_path_sent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = MailConfig {
        maildir: MaildirConfig {
            path: dir.path().join("mail"),
        },
        ..MailConfig::default()
    };
    let mailer = Mailer::open(&cfg).expect("mailer");
    let mut mailbox = Mailbox::open(&cfg).await.expect("mailbox");
    mailer
        .send(
            &addr("chess@localhost"),
            &[addr("bob@players.test")],
            &mail("bob@players.test", "sent", "e4"),
        )
        .await
        .expect("send");
    let sent = std::fs::read_dir(dir.path().join("mail/sent/new"))
        .expect("sent/new")
        .count();
    assert_eq!(sent, 1);
    assert!(dir.path().join("mail/inbox/new").is_dir());

    // a delivery into the inbox: wait_for_new notices it, fetch reads it
    std::fs::write(
        dir.path().join("mail/inbox/new/1.delivered.host"),
        mail("chess@localhost", "in", "d4"),
    )
    .expect("deliver");
    tokio::time::timeout(
        Duration::from_secs(30),
        mailbox.wait_for_new(Duration::from_secs(600)),
    )
    .await
    .expect("the wait noticed the new file")
    .expect("wait");
    let mails = mailbox.fetch_new(None).await.expect("fetch");
    assert_eq!(mails.len(), 1);
    assert!(text(&mails[0]).contains("Subject: in"));
    // hidden and temporary files are no mail
    std::fs::write(dir.path().join("mail/inbox/new/.hidden"), b"x").expect("write");
    assert_eq!(mailbox.fetch_new(None).await.expect("fetch").len(), 1);
}

#[tokio::test]
async fn an_oversized_maildir_mail_is_returned_with_only_its_beginning() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut mailbox = MaildirMailbox::open(dir.path()).await.expect("mailbox");
    mailbox.set_max_mail_bytes(100);
    std::fs::write(dir.path().join("new/big.mail"), vec![b'x'; 1000]).expect("deliver");
    std::fs::write(dir.path().join("new/huge.mail"), vec![b'y'; 200_000]).expect("deliver");
    let mut mails = mailbox.fetch_new(None).await.expect("fetch");
    mails.sort_by_key(|m| m.key.to_string());
    assert_eq!(mails.len(), 2);
    assert!(mails.iter().all(|m| m.raw.is_empty()));
    assert_eq!(mails[0].oversized, Some(1000));
    assert_eq!(mails[0].head, vec![b'x'; 1000]);
    assert_eq!(mails[1].oversized, Some(200_000));
    assert_eq!(mails[1].head, vec![b'y'; 64 * 1024], "at most 64 kB");
}

/// A TCP relay to the IMAP server whose connections a test can cut, as a
/// network failure or a server restart would.
struct Relay {
    port: u16,
    links: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl Relay {
    async fn to(upstream: u16) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind relay");
        let port = listener.local_addr().expect("relay addr").port();
        let links = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = links.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let link = tokio::spawn(async move {
                    if let Ok(mut outbound) =
                        tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                    {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                kept.lock().expect("links").push(link);
            }
        });
        Relay {
            port,
            links,
            accept,
        }
    }

    /// Drops every open connection (new ones still get through).
    fn cut(&self) {
        for link in self.links.lock().expect("links").drain(..) {
            link.abort();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_is_a_transient_error_and_the_next_call_reconnects() {
    let Some(stack) = support::mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let relay = Relay::to(stack.imap_port).await;
    let mut cfg = imap_config(stack, &user);
    cfg.port = Some(relay.port);
    let mut mailbox = Mailbox::Imap(ImapMailbox::connect(cfg).await.expect("connect"));
    assert!(mailbox.fetch_new(None).await.expect("fetch").is_empty());

    relay.cut();
    send(stack, &user, "after the cut").await;
    // The first call may find the connection dead (transient); a later one
    // reconnects by itself and reads the mail. Nothing else is an answer.
    let mut backoff =
        dopis::daemon::mailbox::Backoff::new(Duration::from_millis(50), Duration::from_secs(1));
    let mut transient = 0;
    let deadline = tokio::time::Instant::now() + DELIVERY;
    let mails = loop {
        match mailbox.fetch_new(None).await {
            Ok(mails) if !mails.is_empty() => break mails,
            Ok(_) => {
                let _ = mailbox.wait_for_new(Duration::from_millis(500)).await;
            }
            Err(e) if e.is_transient() => {
                transient += 1;
                tokio::time::sleep(backoff.next_delay()).await;
            }
            Err(e) => panic!("not transient: {e}"),
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no reconnect within {DELIVERY:?}"
        );
    };
    assert!(
        transient >= 1,
        "the cut went unnoticed: was the relay in the path?"
    );
    assert!(text(&mails[0]).contains("Subject: after the cut"));
}
