//! A local Maildir as the inbound mailbox: mail is delivered into `new/`,
//! and moved to `cur/` with the `S` (seen) flag once handled.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};

use super::{BATCH_SIZE, DEFAULT_MAX_MAIL_BYTES, Incoming, MailRef, MailboxError};

/// How often the directory is looked at while waiting for mail (no inotify:
/// polling works on every file system, network ones included).
const POLL_EVERY: Duration = Duration::from_millis(200);

/// A Maildir read as a mailbox.
#[derive(Debug)]
pub struct MaildirMailbox {
    dir: PathBuf,
    /// The names in `new/` at the last fetch: a name not among them is new.
    known: HashSet<String>,
    max_mail_bytes: u64,
}

/// Whether a file name can be used safely inside the Maildir: no path
/// separators, not hidden, not `.`/`..`, no NUL.
pub(super) fn is_safe_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

/// A file found in `new/`: its delivery time and name.
struct Entry {
    delivered: SystemTime,
    name: String,
    size: u64,
}

impl MaildirMailbox {
    /// Opens the Maildir at `dir`, creating `tmp/`, `new/` and `cur/` if missing.
    pub async fn open(dir: impl Into<PathBuf>) -> Result<MaildirMailbox, MailboxError> {
        let dir = dir.into();
        for sub in ["tmp", "new", "cur"] {
            let path = dir.join(sub);
            tokio::fs::create_dir_all(&path).await.map_err(|e| {
                MailboxError::Permanent(format!(
                    "cannot create the Maildir folder {}: {e} (check [mail.maildir] path and its permissions)",
                    path.display()
                ))
            })?;
        }
        Ok(MaildirMailbox {
            dir,
            known: HashSet::new(),
            max_mail_bytes: DEFAULT_MAX_MAIL_BYTES,
        })
    }

    /// The Maildir's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sets the size cap (see [`super::Mailbox::set_max_mail_bytes`]).
    pub fn set_max_mail_bytes(&mut self, bytes: u64) {
        self.max_mail_bytes = bytes;
    }

    /// Mail in `new/` delivered after `after` (by delivery time, then name),
    /// oldest first; all of `new/` when `after` is absent or names no file.
    pub async fn fetch_new(
        &mut self,
        after: Option<&MailRef>,
    ) -> Result<Vec<Incoming>, MailboxError> {
        let entries = self.list_new().await?;
        self.known = entries.iter().map(|e| e.name.clone()).collect();
        let cursor = match after {
            Some(MailRef::Maildir { name }) if is_safe_name(name) => {
                self.delivery_time(name).await.map(|t| (t, name.clone()))
            }
            _ => None,
        };
        let mut fresh: Vec<Entry> = entries
            .into_iter()
            .filter(|e| match &cursor {
                Some((t, name)) => (e.delivered, &e.name) > (*t, name),
                None => true,
            })
            .collect();
        fresh.sort_by(|a, b| (a.delivered, &a.name).cmp(&(b.delivered, &b.name)));
        fresh.truncate(BATCH_SIZE);

        let mut mails = Vec::with_capacity(fresh.len());
        for entry in fresh {
            let oversized = (entry.size > self.max_mail_bytes).then_some(entry.size);
            let raw = if oversized.is_some() {
                Vec::new()
            } else {
                match tokio::fs::read(self.dir.join("new").join(&entry.name)).await {
                    Ok(raw) => raw,
                    // taken away (by another reader) between listing and reading
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(self.io_error("read", &entry.name, e)),
                }
            };
            mails.push(Incoming {
                key: MailRef::Maildir { name: entry.name },
                raw,
                received_at: DateTime::<Utc>::from(entry.delivered),
                oversized,
            });
        }
        Ok(mails)
    }

    /// Moves a handled mail from `new/` to `cur/`, adding the `S` flag.
    /// Marking a mail that is already in `cur/` again is harmless.
    pub async fn mark_done(&mut self, key: &MailRef) -> Result<(), MailboxError> {
        let MailRef::Maildir { name } = key else {
            return Err(MailboxError::Gone(format!(
                "{key} is not a Maildir mail; it cannot be marked in {}",
                self.dir.display()
            )));
        };
        if !is_safe_name(name) {
            return Err(MailboxError::Gone(format!(
                "'{name}' is not a Maildir file name"
            )));
        }
        let from = self.dir.join("new").join(name);
        let to = self.dir.join("cur").join(seen_name(name));
        match tokio::fs::rename(&from, &to).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if tokio::fs::try_exists(&to).await.unwrap_or(false) {
                    Ok(())
                } else {
                    Err(MailboxError::Gone(format!(
                        "mail {name} is in neither new/ nor cur/ of {}",
                        self.dir.display()
                    )))
                }
            }
            Err(e) => Err(self.io_error("move to cur/", name, e)),
        }
    }

    /// Moves a mail that could not be handled out of `new/` into the Maildir++
    /// subfolder `.failed` (its `new/`, unread for the admin), byte-exact;
    /// returns where it is now.
    pub async fn quarantine(&mut self, key: &MailRef) -> Result<String, MailboxError> {
        let MailRef::Maildir { name } = key else {
            return Err(MailboxError::Gone(format!("{key} is not a Maildir mail")));
        };
        if !is_safe_name(name) {
            return Err(MailboxError::Gone(format!(
                "'{name}' is not a Maildir file name"
            )));
        }
        let failed = self.dir.join(".failed");
        for sub in ["tmp", "new", "cur"] {
            tokio::fs::create_dir_all(failed.join(sub))
                .await
                .map_err(|e| self.io_error("create", ".failed/", e))?;
        }
        let to = failed.join("new").join(name);
        for from in [
            self.dir.join("new").join(name),
            self.dir.join("cur").join(seen_name(name)),
        ] {
            match tokio::fs::rename(&from, &to).await {
                Ok(()) => return Ok(to.display().to_string()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(self.io_error("move to .failed/", name, e)),
            }
        }
        if tokio::fs::try_exists(&to).await.unwrap_or(false) {
            return Ok(to.display().to_string());
        }
        Err(MailboxError::Gone(format!(
            "mail {name} is no longer in {}",
            self.dir.display()
        )))
    }

    /// Puts a mail back into `new/` to be read again, with its delivery
    /// time as its modification time (the time of a move it holds); removes
    /// the copy kept in `.failed/` at `kept_in`, if that is where it is.
    pub async fn put_back(
        &mut self,
        raw: &[u8],
        received_at: DateTime<Utc>,
        kept_in: Option<&str>,
    ) -> Result<String, MailboxError> {
        let name = format!(
            "{}.R{:016x}.dopis",
            received_at.timestamp(),
            rand::random::<u64>()
        );
        let tmp = self.dir.join("tmp").join(&name);
        let new = self.dir.join("new").join(&name);
        let written = std::fs::File::create(&tmp).and_then(|mut f| {
            use std::io::Write;
            f.write_all(raw)?;
            f.set_modified(SystemTime::from(received_at))?;
            f.sync_all()
        });
        written.map_err(|e| self.io_error("write", &name, e))?;
        tokio::fs::rename(&tmp, &new)
            .await
            .map_err(|e| self.io_error("move to new/", &name, e))?;
        if let Some(kept) = kept_in.map(Path::new)
            && kept.starts_with(self.dir.join(".failed"))
            && let Err(e) = tokio::fs::remove_file(kept).await
            && e.kind() != io::ErrorKind::NotFound
        {
            return Err(self.io_error("remove", &kept.display().to_string(), e));
        }
        Ok(new.display().to_string())
    }

    /// Returns as soon as `new/` holds a file the last fetch did not see, or
    /// after `max`.
    pub async fn wait_for_new(&mut self, max: Duration) -> Result<(), MailboxError> {
        let deadline = tokio::time::Instant::now() + max;
        loop {
            let entries = self.list_new().await?;
            if entries.iter().any(|e| !self.known.contains(&e.name)) {
                return Ok(());
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(());
            }
            tokio::time::sleep(POLL_EVERY.min(deadline - now)).await;
        }
    }

    async fn list_new(&self) -> Result<Vec<Entry>, MailboxError> {
        let new = self.dir.join("new");
        let mut dir = tokio::fs::read_dir(&new)
            .await
            .map_err(|e| self.io_error("list", "new/", e))?;
        let mut entries = Vec::new();
        while let Some(item) = dir
            .next_entry()
            .await
            .map_err(|e| self.io_error("list", "new/", e))?
        {
            let Ok(name) = item.file_name().into_string() else {
                continue; // not a name any Maildir writer makes
            };
            if !is_safe_name(&name) {
                continue;
            }
            let meta = match item.metadata().await {
                Ok(meta) if meta.is_file() => meta,
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(self.io_error("look at", &name, e)),
            };
            entries.push(Entry {
                delivered: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                size: meta.len(),
                name,
            });
        }
        Ok(entries)
    }

    /// When the mail `name` was delivered, wherever it is now.
    async fn delivery_time(&self, name: &str) -> Option<SystemTime> {
        for path in [
            self.dir.join("new").join(name),
            self.dir.join("cur").join(seen_name(name)),
        ] {
            if let Ok(meta) = tokio::fs::metadata(&path).await {
                return meta.modified().ok();
            }
        }
        None
    }

    fn io_error(&self, what: &str, name: &str, e: io::Error) -> MailboxError {
        let message = format!(
            "cannot {what} {name} in the Maildir {}: {e}",
            self.dir.display()
        );
        match e.kind() {
            io::ErrorKind::PermissionDenied | io::ErrorKind::NotFound => MailboxError::Permanent(
                format!("{message} (check [mail.maildir] path and its permissions)"),
            ),
            _ => MailboxError::Transient(message),
        }
    }
}

/// The name a mail gets in `cur/`: its `:2,` info with `S` added.
fn seen_name(name: &str) -> String {
    match name.split_once(":2,") {
        Some((base, flags)) if flags.contains('S') => format!("{base}:2,{flags}"),
        Some((base, flags)) => {
            let mut flags: Vec<char> = flags.chars().chain(['S']).collect();
            flags.sort_unstable(); // Maildir flags are kept in ASCII order
            format!("{base}:2,{}", flags.into_iter().collect::<String>())
        }
        None => format!("{name}:2,S"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handled_mail_gets_the_seen_flag_in_its_name() {
        let cases = [
            ("1.2.host", "1.2.host:2,S"),
            ("1.2.host:2,", "1.2.host:2,S"),
            ("1.2.host:2,F", "1.2.host:2,FS"),
            ("1.2.host:2,RT", "1.2.host:2,RST"),
            ("1.2.host:2,S", "1.2.host:2,S"),
        ];
        for (name, expected) in cases {
            assert_eq!(seen_name(name), expected, "{name}");
        }
    }

    #[test]
    fn file_names_that_would_leave_the_maildir_are_unsafe() {
        for name in ["a/b", "..", ".", ".x", "", "a\\b", "a\0"] {
            assert!(!is_safe_name(name), "{name:?}");
        }
        assert!(is_safe_name("1732900000.M1P2.host:2,S"));
    }
}
