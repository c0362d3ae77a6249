//! `dopis web` for a test: started on a free port, killed when dropped,
//! and a small HTTP client for it (plain HTTP/1.1 over a socket: the tests
//! see exactly the bytes a browser or a chess program gets).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Daemon, TestDb};

/// A running `dopis web`.
pub struct WebServer {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub base: String,
    /// The process, killed when the server is dropped.
    _process: Daemon,
}

impl WebServer {
    /// Starts `dopis web` in `dir` with the config file `config` (which
    /// should say `[web] listen = "127.0.0.1:0"`) on the database `db`,
    /// and waits until it listens.
    pub fn start(dir: &Path, db: &TestDb, config: &Path) -> WebServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dopis"))
            .current_dir(dir)
            .env_remove("DOPIS_CONFIG")
            .env("DOPIS_DATABASE_URL", &db.url)
            .arg("--config")
            .arg(config)
            .arg("web")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start dopis web");
        let stderr = child.stderr.take().expect("piped stderr");
        let process = Daemon(child);
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads stderr to its end (so the server never blocks on a full
        // pipe) and hands over the listening line.
        std::thread::spawn(move || {
            let mut lines = Vec::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("dopis web: listening on ") {
                    let _ = tx.send(Ok(url.trim().to_string()));
                }
                lines.push(line);
                if lines.len() > 200 {
                    lines.remove(0);
                }
            }
            let _ = tx.send(Err(lines.join("\n")));
        });
        let base = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(Ok(base)) => base,
            Ok(Err(log)) => panic!("dopis web stopped before listening:\n{log}"),
            Err(_) => panic!("dopis web did not say it listens within 30 s"),
        };
        WebServer {
            base,
            _process: process,
        }
    }

    /// The host and port, for [`request`].
    pub fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    /// GET `path`: status and body.
    pub fn get(&self, path: &str) -> (u16, String) {
        let r = request(self.address(), "GET", path, &[], b"");
        (r.status, String::from_utf8_lossy(&r.body).into_owned())
    }
}

/// An HTTP response.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

impl Response {
    /// The first header of that (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one HTTP/1.1 request to `address` (host:port) and reads the whole
/// response (`Connection: close`), within 30 s.
pub fn request(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream = std::net::TcpStream::connect(address).expect("connect to dopis web");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send request");
    // A server may answer and close before reading a body it refuses.
    let _ = stream.write_all(body);
    let started = Instant::now();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "no answer within 30 s"
    );
    parse(&raw)
}

fn parse(raw: &[u8]) -> Response {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP head in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Response {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(
            String::from_utf8_lossy(&data[..end])
                .split(';')
                .next()
                .unwrap_or("0")
                .trim(),
            16,
        )
        .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..(start + size).min(data.len())]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}
