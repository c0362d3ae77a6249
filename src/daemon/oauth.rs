//! OAuth2 logins (XOAUTH2) for IMAP and SMTP: the SASL string, and the
//! access token a configured `token_command` prints.
//!
//! The command follows the convention of mutt, aerc, isync and himalaya:
//! it is run with `sh -c`, and the first line of its standard output is
//! the access token. The tools made for it (`oama`, mutt's
//! `mutt_oauth2.py`) keep the refresh token and renew the access token
//! themselves, so running the command again is how dopis gets a fresh
//! token. It is run with a time limit and its output read only up to a
//! bound; the token is never logged, and nothing it prints on standard
//! output goes into an error message.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::adapter::config::Secret;

/// How long the command may take: long enough for a token endpoint on a
/// slow network, short enough that a command waiting for a person (a
/// password prompt, a browser) is noticed.
pub const TOKEN_TIMEOUT: Duration = Duration::from_secs(30);

/// The most output kept from the command, on each of stdout and stderr:
/// access tokens are a few KiB (Microsoft's JWTs about 2–3 KiB).
const MAX_OUTPUT: usize = 64 * 1024;

/// The longest stretch of the command's stderr quoted in an error.
const MAX_QUOTED: usize = 200;

/// The XOAUTH2 SASL message (before base64): `user=USER^Aauth=Bearer
/// TOKEN^A^A`, as Google and Microsoft define it. A secret, as it holds
/// the token.
pub fn xoauth2(user: &str, token: &Secret) -> Secret {
    Secret::new(format!(
        "user={user}\x01auth=Bearer {}\x01\x01",
        token.expose()
    ))
}

/// Why the command gave no token. The text names the setting and the
/// command, says what happened (exit status, the first line of its
/// stderr) and what to do; never anything of its standard output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TokenError {
    message: String,
    lasting: bool,
}

impl TokenError {
    /// Whether running the command again is pointless until the admin
    /// changes something (the program is missing, or prints no token);
    /// otherwise (a failure, a timeout) a later run may succeed, as when
    /// the token endpoint was unreachable for a while.
    pub fn is_lasting(&self) -> bool {
        self.lasting
    }
}

/// The `token_command` of `[mail.imap]` or `[mail.smtp]`.
#[derive(Debug, Clone)]
pub struct TokenCommand {
    section: &'static str,
    command: String,
    timeout: Duration,
}

impl TokenCommand {
    /// The command `command` of the config section `section`
    /// (`"[mail.imap]"`), run with [`TOKEN_TIMEOUT`].
    pub fn new(section: &'static str, command: &str) -> TokenCommand {
        TokenCommand {
            section,
            command: command.to_string(),
            timeout: TOKEN_TIMEOUT,
        }
    }

    /// The same command with another time limit.
    pub fn with_timeout(mut self, timeout: Duration) -> TokenCommand {
        self.timeout = timeout;
        self
    }

    /// Runs the command and returns the access token it prints.
    pub async fn run(&self) -> Result<Secret, TokenError> {
        let mut child = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A command that overruns its time is ended, not left behind.
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                self.error(
                    format!("could not be started (sh -c): {e}"),
                    "check that sh is installed and the command is right",
                    true,
                )
            })?;
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let finished = tokio::time::timeout(self.timeout, async {
            let (out, err) = tokio::join!(read_capped(&mut stdout), read_capped(&mut stderr));
            (out, err, child.wait().await)
        })
        .await;
        let Ok(((out, out_overflow), (err, _), status)) = finished else {
            let _ = child.start_kill();
            return Err(self.error(
                format!("gave no token within {} s", self.timeout.as_secs()),
                "it may be waiting for input (a password, a browser login): run it by hand \
                 once to authorize, so that it then prints a token without asking",
                false,
            ));
        };
        let status = status
            .map_err(|e| self.error(format!("could not be waited for: {e}"), "try again", false))?;
        let said = first_line(&err)
            .map(|line| format!("; its stderr says: \"{line}\""))
            .unwrap_or_default();
        if !status.success() {
            // sh answers 127 for a program not found, 126 for one it cannot run.
            let (fix, lasting) = match status.code() {
                Some(127) => (
                    "the program was not found: install it, or write its full path",
                    true,
                ),
                Some(126) => (
                    "the program cannot be run: check its permissions, or write its full path",
                    true,
                ),
                _ => (
                    "run the command by hand to see what it needs (often a new authorization \
                     with the tool that keeps the refresh token); dopis tries again later",
                    false,
                ),
            };
            return Err(self.error(format!("failed with {status}{said}"), fix, lasting));
        }
        if out_overflow {
            return Err(self.error(
                format!("printed more than {} KiB", MAX_OUTPUT / 1024),
                "make it print only the access token, on the first line",
                true,
            ));
        }
        let text = String::from_utf8_lossy(&out);
        let token = text.lines().next().unwrap_or("").trim();
        if token.is_empty() {
            return Err(self.error(
                format!("printed no token (the first line of its output is empty{said})"),
                "make it print the access token on the first line of its output",
                true,
            ));
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(self.error(
                "printed a first line that is not an access token (it has spaces or \
                 characters outside printable ASCII)"
                    .into(),
                "make it print only the access token, on the first line",
                true,
            ));
        }
        tracing::debug!(section = self.section, "token_command gave a fresh token");
        Ok(Secret::new(token))
    }

    fn error(&self, what: String, fix: &str, lasting: bool) -> TokenError {
        TokenError {
            message: format!(
                "{} token_command \"{}\" {what}; {fix}",
                self.section, self.command
            ),
            lasting,
        }
    }
}

/// All of a stream, of which at most [`MAX_OUTPUT`] bytes are kept (the
/// rest is read and dropped, so the command never blocks on a full pipe);
/// and whether there was more.
async fn read_capped(stream: &mut Option<impl AsyncRead + Unpin>) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut overflow = false;
    let Some(stream) = stream else {
        return (kept, overflow);
    };
    let mut buf = [0u8; 8192];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return (kept, overflow),
            Ok(n) => {
                let room = MAX_OUTPUT - kept.len();
                if n > room {
                    overflow = true;
                }
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
}

/// The first non-empty line of `bytes`, trimmed, without control
/// characters, cut to [`MAX_QUOTED`] characters.
fn first_line(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut quoted: String = line
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_QUOTED)
        .collect();
    if line.chars().count() > MAX_QUOTED {
        quoted.push('…');
    }
    Some(quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(text: &str) -> TokenCommand {
        TokenCommand::new("[mail.imap]", text)
    }

    #[test]
    fn the_sasl_message_is_user_and_bearer_token_between_ctrl_a() {
        let message = xoauth2("chess@club.example", &Secret::new("ya29.a0AfB_byC"));
        assert_eq!(
            message.expose(),
            "user=chess@club.example\u{1}auth=Bearer ya29.a0AfB_byC\u{1}\u{1}"
        );
        // The example of Google's XOAUTH2 documentation, base64-encoded.
        use base64::Engine;
        let example = xoauth2(
            "someuser@example.com",
            &Secret::new("ya29.vF9dft4qmTc2Nvb3RlckBhdHRhdmlzdGEuY29tCg"),
        );
        assert_eq!(
            base64::engine::general_purpose::STANDARD.encode(example.expose()),
            "dXNlcj1zb21ldXNlckBleGFtcGxlLmNvbQFhdXRoPUJlYXJlciB5YTI5LnZGOWRmdDRxbVRjMk52YjNSbGNrQmhkSFJoZG1semRHRXVZMjl0Q2cBAQ=="
        );
        assert!(!format!("{message:?}").contains("ya29"));
    }

    #[tokio::test]
    async fn the_token_is_the_first_line_of_the_commands_output() {
        let table = [
            ("echo tok.en-1_a", "tok.en-1_a"),
            ("printf 'tok2\\r\\nsecond line\\n'", "tok2"),
            ("printf '  tok3  '", "tok3"),
            ("echo noise >&2; echo tok4", "tok4"),
        ];
        for (text, want) in table {
            let token = command(text).run().await.unwrap();
            assert_eq!(token.expose(), want, "{text}");
        }
    }

    #[tokio::test]
    async fn a_failing_command_names_itself_its_status_and_its_stderr_but_not_its_output() {
        // (the command, what the error must say, whether it lasts)
        let table: [(&str, &[&str], bool); 6] = [
            (
                // What it prints (tok + en-out) appears nowhere in the
                // command, nor does its second stderr line (upper-cased).
                "printf 'tok%s' en-out; echo 'oama: no refresh token for chess' >&2; \
                 echo more | tr a-z A-Z >&2; exit 3",
                &[
                    "[mail.imap] token_command \"printf 'tok%s' en-out;",
                    "exit status: 3",
                    "its stderr says: \"oama: no refresh token for chess\"",
                    "run the command by hand",
                ],
                false,
            ),
            (
                "no-such-token-tool --account chess",
                &[
                    "exit status: 127",
                    "not found",
                    "install it, or write its full path",
                ],
                true,
            ),
            (
                "echo",
                &[
                    "printed no token",
                    "first line of its output is empty",
                    "make it print",
                ],
                true,
            ),
            ("echo 'two words'", &["not an access token"], true),
            ("kill -9 $$", &["signal: 9"], false),
            (
                "head -c 70000 /dev/zero | tr '\\0' x; echo",
                &["printed more than 64 KiB"],
                true,
            ),
        ];
        for (text, wanted, lasting) in table {
            let err = command(text).run().await.unwrap_err();
            let message = err.to_string();
            for part in wanted {
                assert!(message.contains(part), "{text}: {message}");
            }
            assert!(!message.contains("token-out"), "{message}");
            assert!(!message.contains("MORE"), "only the first line: {message}");
            assert_eq!(err.is_lasting(), lasting, "{text}: {message}");
        }
    }

    #[tokio::test]
    async fn a_command_that_hangs_is_ended_at_the_time_limit() {
        // `exec`: the process ended at the limit is the sleep itself.
        let err = command("echo waiting >&2; exec sleep 600")
            .with_timeout(Duration::from_millis(300))
            .run()
            .await
            .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("gave no token within 0 s"), "{message}");
        assert!(message.contains("waiting for input"), "{message}");
        assert!(!err.is_lasting());
    }

    #[test]
    fn the_quoted_stderr_line_is_cut_and_cleaned() {
        assert_eq!(
            first_line(b"\n  \n first \x1b[31mred\n second"),
            Some("first [31mred".into())
        );
        let long = "x".repeat(500);
        let quoted = first_line(long.as_bytes()).unwrap();
        assert_eq!(quoted.chars().count(), MAX_QUOTED + 1);
        assert_eq!(first_line(b""), None);
    }
}
