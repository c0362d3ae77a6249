//! `[metrics] listen`: the real `dopis serve` answers `/healthz` and
//! `/metrics` over HTTP; the counters move when a move mail is handled, the
//! text is valid OpenMetrics (read by Python's `prometheus_client` parser
//! where installed, else checked line by line), and `/healthz` turns 503
//! when the database is gone (a PostgreSQL database dropped under it).

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::club::Club;
use crate::support::{Daemon, postgres, python_reads, python_with};

/// `GET path` on 127.0.0.1:`port`: (status, body), or `None` when nothing answers.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_string()))
}

/// Polls until `check` holds of `GET path`, or panics after a minute.
fn until(port: u16, path: &str, what: &str, check: impl Fn(u16, &str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut last = None;
    while Instant::now() < deadline {
        if let Some((status, body)) = get(port, path) {
            if check(status, &body) {
                return body;
            }
            last = Some((status, body));
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    panic!("{what}: {path} never did; last answer {last:?}");
}

/// Drops the test database at `url` with its connections (PostgreSQL 13+).
async fn drop_database(url: &str) {
    use sqlx::{Connection, Executor};
    let admin = std::env::var("DOPIS_TEST_POSTGRES_URL").unwrap();
    let name = url
        .rsplit_once('/')
        .map(|(_, rest)| rest.split('?').next().unwrap_or(rest))
        .unwrap()
        .to_string();
    let mut conn = sqlx::PgConnection::connect(&admin).await.unwrap();
    conn.execute(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE {name} WITH (FORCE)"
    )))
    .await
    .unwrap();
    let _ = conn.close().await;
}

/// A sample's value in the exposition text.
fn value(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(-1.0)
}

/// A strict line check of OpenMetrics text, for where Python's parser is
/// not installed: every line a `# HELP`/`# TYPE`/`# UNIT` comment or a
/// sample `name{labels} number`, each sample's family declared, `# EOF` last.
fn strict_check(text: &str) {
    let mut families = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "{text}");
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            && !n.starts_with(|c: char| c.is_ascii_digit())
    };
    for line in &lines[..lines.len() - 1] {
        if let Some(rest) = line.strip_prefix("# ") {
            let mut parts = rest.splitn(3, ' ');
            let kind = parts.next().unwrap_or("");
            let name = parts.next().unwrap_or("");
            assert!(["HELP", "TYPE", "UNIT"].contains(&kind), "{line}");
            assert!(name_ok(name), "{line}");
            if kind == "TYPE" {
                let t = parts.next().unwrap_or("");
                assert!(["counter", "gauge", "histogram"].contains(&t), "{line}");
                families.push(name.to_string());
            }
            continue;
        }
        let (series, number) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        assert!(number.parse::<f64>().is_ok(), "{line}");
        let name = series.split('{').next().unwrap();
        assert!(name_ok(name), "{line}");
        if let Some(labels) = series.strip_prefix(name) {
            assert!(
                labels.is_empty() || (labels.starts_with('{') && labels.ends_with('}')),
                "{line}"
            );
        }
        assert!(
            families.iter().any(|f| name.starts_with(f.as_str())),
            "{line}: no # TYPE before it"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_healthz_and_metrics_and_turns_unhealthy_when_the_database_is_gone() {
    let Some(db) = postgres().await else { return };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let club = Club::with_config(
        &db,
        &format!("\n[metrics]\nlisten = \"127.0.0.1:{port}\"\n"),
    );
    let _daemon = Daemon(
        Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(club.path())
            .env_remove("DOPIS_CONFIG")
            .env("DOPIS_DATABASE_URL", &db.url)
            .env("DOPIS_LOG", "warn")
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    );

    // The first pass sends Alice her "your move"; she answers it.
    until(port, "/healthz", "healthy", |status, _| status == 200);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !club
        .sent_mails()
        .iter()
        .any(|m| m.subject.contains("Your move"))
    {
        assert!(Instant::now() < deadline, "no 'your move' mail");
        std::thread::sleep(Duration::from_millis(200));
    }
    club.reply("alice@players.test", "e4");
    let text = until(port, "/metrics", "the move counted", |status, body| {
        status == 200 && value(body, "dopis_mails_handled_total") >= 1.0
    });
    assert_eq!(value(&text, "dopis_mails_failed_total"), 0.0, "{text}");
    assert!(
        value(&text, "dopis_pass_duration_seconds_count") >= 1.0,
        "{text}"
    );
    for name in [
        "dopis_mails_refused_total",
        "dopis_imap_reconnects_total",
        "dopis_outbox_pending",
        "dopis_outbox_oldest_pending_age_seconds",
        "dopis_due_games",
        "dopis_passes_failed_total",
    ] {
        assert!(value(&text, name) >= 0.0, "{name} missing:\n{text}");
    }
    match python_with("prometheus_client") {
        Some(python) => {
            let script = "import sys\n\
                from prometheus_client.openmetrics.parser import text_string_to_metric_families\n\
                for f in text_string_to_metric_families(sys.stdin.read()):\n    \
                print(f.name, f.type, len(f.samples))\n";
            let read = python_reads(python, script, &text)
                .unwrap_or_else(|e| panic!("not valid OpenMetrics: {e}\n{text}"));
            assert!(read.contains("dopis_mails_handled counter"), "{read}");
            assert!(
                read.contains("dopis_pass_duration_seconds histogram"),
                "{read}"
            );
        }
        None => {
            eprintln!("python prometheus_client not installed: checking the text line by line");
            strict_check(&text);
        }
    }
    let body = until(port, "/healthz", "healthy", |status, _| status == 200);
    assert!(body.starts_with("ok"), "{body}");

    // The database is dropped under the daemon: 503, saying why.
    drop_database(&db.url).await;
    let body = until(port, "/healthz", "unhealthy", |status, _| status == 503);
    assert!(body.contains("database"), "{body}");
}
