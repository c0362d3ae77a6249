//! Mail over TLS with a password, as real mail servers want it: IMAP over
//! TLS from the first byte and over STARTTLS, SMTP submission with STARTTLS
//! and over TLS from the first byte, each with AUTH, against the test mail
//! system's throwaway CA (`[mail.imap] ca_file`, `[mail.smtp] ca_file`).
//! And what an admin is told when it goes wrong: a wrong password, a server
//! certificate nobody said to trust, an unusable CA file, plaintext to
//! another machine.

use std::path::Path;
use std::time::Duration;

use dopis::adapter::config::{ImapConfig, Secret, SmtpConfig, Tls};
use dopis::daemon::mailbox::{ImapMailbox, MailboxError};
use dopis::daemon::mailer::{SendError, SmtpMailer};
use dopis::domain::address::EmailAddress;

use crate::support::{self, MAIL_PASSWORD, TlsStack, dopis, fails};

/// How long a delivery may take before a test gives up (normally ~0.1 s).
const DELIVERY: Duration = Duration::from_secs(30);

fn imap(stack: &TlsStack, user: &str, tls: Tls, trust_ca: bool) -> ImapConfig {
    ImapConfig {
        tls,
        ca_file: trust_ca.then(|| stack.ca_file.clone()),
        ..crate::support::imap_login(
            match tls {
                Tls::Tls => stack.imaps_port,
                Tls::Starttls | Tls::None => stack.imap_port,
            },
            user,
        )
    }
}

fn smtp(stack: &TlsStack, user: Option<&str>, tls: Tls, trust_ca: bool) -> SmtpConfig {
    SmtpConfig {
        tls,
        user: user.map(str::to_string),
        password: user.map(|_| Secret::new(MAIL_PASSWORD)),
        ca_file: trust_ca.then(|| stack.ca_file.clone()),
        ..crate::support::smtp_plain(match tls {
            Tls::Tls => stack.smtps_port,
            Tls::Starttls | Tls::None => stack.submission_port,
        })
    }
}

fn mail(from: &str, to: &str, subject: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{:016x}@chess.test>\r\n\
         Date: Sun, 29 Nov 2026 12:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\ne4\r\n",
        rand::random::<u64>()
    )
    .into_bytes()
}

async fn send(cfg: &SmtpConfig, from: &str, to: &str, subject: &str) -> Result<(), SendError> {
    let mailer = SmtpMailer::new(cfg).expect("the SMTP settings are usable");
    let from = EmailAddress::parse(from).unwrap();
    let to = EmailAddress::parse(to).unwrap();
    mailer
        .send(
            &from,
            std::slice::from_ref(&to),
            &mail(from.as_str(), to.as_str(), subject),
        )
        .await
}

/// Reads `cfg`'s mailbox until a mail with `subject` is there.
async fn arrives(cfg: ImapConfig, subject: &str) {
    let mut mailbox = ImapMailbox::connect(cfg)
        .await
        .expect("IMAP login over TLS");
    let deadline = tokio::time::Instant::now() + DELIVERY;
    loop {
        let mails = mailbox.fetch_new(None).await.expect("fetch over TLS");
        if mails
            .iter()
            .any(|m| String::from_utf8_lossy(&m.raw).contains(&format!("Subject: {subject}")))
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{subject:?} did not arrive within {DELIVERY:?}"
        );
        let _ = mailbox.wait_for_new(Duration::from_millis(500)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_sent_over_smtps_with_auth_arrives_over_imaps() {
    let Some(stack) = support::tls_mailstack() else {
        return;
    };
    let user = support::scratch_user();
    send(
        &smtp(&stack, Some(&user), Tls::Tls, true),
        &user,
        &user,
        "over smtps",
    )
    .await
    .expect("send over TLS with AUTH");
    arrives(imap(&stack, &user, Tls::Tls, true), "over smtps").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_sent_over_submission_with_starttls_and_auth_arrives_over_imap_with_starttls() {
    let Some(stack) = support::tls_mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let submission = smtp(&stack, Some(&user), Tls::Starttls, true);
    send(&submission, &user, &user, "over submission")
        .await
        .expect("send with STARTTLS and AUTH");
    arrives(imap(&stack, &user, Tls::Starttls, true), "over submission").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_submission_services_take_no_mail_without_a_login() {
    let Some(stack) = support::tls_mailstack() else {
        return;
    };
    // What makes the AUTH tests above mean something: without a login the
    // test mail system refuses the mail.
    let user = support::scratch_user();
    for tls in [Tls::Starttls, Tls::Tls] {
        let refused = send(&smtp(&stack, None, tls, true), &user, &user, "no login").await;
        assert!(refused.is_err(), "{tls:?}: mail without AUTH was taken");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_refused_naming_the_settings_to_fix() {
    let Some(stack) = support::tls_mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let mut wrong_imap = imap(&stack, &user, Tls::Tls, true);
    wrong_imap.password = Some(Secret::new("not-the-password"));
    let err = ImapMailbox::connect(wrong_imap).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, MailboxError::Permanent(_)), "{text}");
    assert!(text.contains("refused the login"), "{text}");
    assert!(
        text.contains("check [mail.imap] user and password"),
        "{text}"
    );
    assert!(!text.contains("not-the-password"), "{text}");

    let mut wrong_smtp = smtp(&stack, Some(&user), Tls::Starttls, true);
    wrong_smtp.password = Some(Secret::new("not-the-password"));
    let err = send(&wrong_smtp, &user, &user, "wrong password")
        .await
        .unwrap_err();
    // Our own login is a setup problem, not the mail's: it stays queued.
    assert!(err.is_transient(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("check [mail.smtp] user and password"),
        "{text}"
    );
    assert!(!text.contains("not-the-password"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_certificate_fails_with_a_message_naming_ca_file() {
    let Some(stack) = support::tls_mailstack() else {
        return;
    };
    let user = support::scratch_user();
    for tls in [Tls::Tls, Tls::Starttls] {
        let err = ImapMailbox::connect(imap(&stack, &user, tls, false))
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, MailboxError::Permanent(_)), "{tls:?}: {text}");
        assert!(text.contains("not signed by a CA dopis trusts"), "{text}");
        assert!(text.contains("set [mail.imap] ca_file"), "{text}");
    }
    for tls in [Tls::Tls, Tls::Starttls] {
        let err = send(
            &smtp(&stack, Some(&user), tls, false),
            &user,
            &user,
            "untrusted",
        )
        .await
        .unwrap_err();
        // The mail stays in the outbox until the admin trusts the CA.
        assert!(err.is_transient(), "{tls:?}: {err}");
        let text = err.to_string();
        assert!(text.contains("not signed by a CA dopis trusts"), "{text}");
        assert!(text.contains("set [mail.smtp] ca_file"), "{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_starttls_is_never_spoken_to_unencrypted() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    // An IMAP server without STARTTLS: it greets and refuses every command,
    // and would see a LOGIN if the client went on in clear text.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        let (read, mut write) = socket.into_split();
        write
            .write_all(b"* OK IMAP4rev1 without TLS\r\n")
            .await
            .unwrap();
        let mut lines = BufReader::new(read).lines();
        let mut commands = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            let tag = line.split(' ').next().unwrap_or("*").to_string();
            commands.push(line);
            let _ = write
                .write_all(format!("{tag} BAD no\r\n").as_bytes())
                .await;
        }
        commands
    });
    let cfg = ImapConfig {
        tls: Tls::Starttls,
        password: Some(Secret::new("hunter2")),
        ..crate::support::imap_login(port, "chess@chess.test")
    };
    let err = ImapMailbox::connect(cfg).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, MailboxError::Permanent(_)), "{text}");
    assert!(text.contains("refused STARTTLS"), "{text}");
    let commands = server.await.unwrap();
    assert!(
        commands
            .iter()
            .all(|c| !c.contains("LOGIN") && !c.contains("hunter2")),
        "{commands:?}"
    );
}

/// Runs `dopis serve --once` with `config` as its dopis.toml; its stderr.
fn serve_fails(config: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = support::sqlite();
    std::fs::write(dir.path().join("dopis.toml"), config).unwrap();
    fails(&dopis(dir.path(), &db, &["serve", "--once"]))
}

fn mail_section(extra: &str) -> String {
    format!(
        "[mail]\naddress = \"chess@chess.test\"\nsecret = \"s\"\n\n\
         [mail.maildir]\npath = \"mail\"\n\n{extra}"
    )
}

#[test]
fn serve_refuses_an_unusable_ca_file_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let not_pem = dir.path().join("ca.txt");
    std::fs::write(&not_pem, "hello\n").unwrap();
    let missing = Path::new("/nonexistent/ca.pem");
    let cases = [
        (
            format!(
                "[mail.imap]\nhost = \"127.0.0.1\"\nport = 1\nuser = \"u\"\npassword = \"p\"\n\
                 ca_file = \"{}\"\n",
                missing.display()
            ),
            "[mail.imap] ca_file = \"/nonexistent/ca.pem\": the file cannot be read",
        ),
        (
            format!(
                "[mail.smtp]\nhost = \"127.0.0.1\"\nport = 1\nca_file = \"{}\"\n",
                not_pem.display()
            ),
            "[mail.smtp] ca_file = ",
        ),
    ];
    for (section, wanted) in cases {
        let stderr = serve_fails(&mail_section(&section));
        assert!(stderr.contains(wanted), "{stderr}");
        assert!(stderr.contains("BEGIN CERTIFICATE"), "{stderr}");
    }
}

#[test]
fn serve_refuses_plaintext_to_another_machine() {
    let cases = [
        "[mail.imap]\nhost = \"192.0.2.1\"\ntls = \"none\"\nuser = \"u\"\npassword = \"hunter2\"\n",
        "[mail.smtp]\nhost = \"mail.example.org\"\ntls = \"none\"\nuser = \"u\"\npassword = \"hunter2\"\n",
    ];
    for section in cases {
        let stderr = serve_fails(&mail_section(section));
        assert!(
            stderr.contains("tls = \"none\" is allowed only to this machine"),
            "{stderr}"
        );
        assert!(stderr.contains("tls = \"tls\" or \"starttls\""), "{stderr}");
        assert!(!stderr.contains("hunter2"), "{stderr}");
    }
}

#[test]
fn serve_stops_with_the_fix_named_on_an_untrusted_certificate_or_a_wrong_password() {
    let Some(stack) = support::tls_mailstack() else {
        return;
    };
    let user = support::scratch_user();
    let imaps = |password: &str, ca: &str| {
        format!(
            "[mail.imap]\nhost = \"127.0.0.1\"\nport = {}\ntls = \"tls\"\nuser = \"{user}\"\n\
             password = \"{password}\"\n{ca}",
            stack.imaps_port
        )
    };
    let stderr = serve_fails(&mail_section(&imaps(MAIL_PASSWORD, "")));
    assert!(stderr.contains("set [mail.imap] ca_file"), "{stderr}");
    let trusted = format!("ca_file = \"{}\"\n", stack.ca_file.display());
    let stderr = serve_fails(&mail_section(&imaps("not-the-password", &trusted)));
    assert!(stderr.contains("refused the login"), "{stderr}");
    assert!(
        stderr.contains("check [mail.imap] user and password"),
        "{stderr}"
    );
}
