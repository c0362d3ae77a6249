//! A local Maildir as the inbound mailbox: mail is delivered into `new/`,
//! and moved to `cur/` with the `S` (seen) flag once handled.
//!
//! `new/` is exactly the mail not yet handled, so every file in it is read,
//! whatever its time or name. A cursor (read what sorts after the last mail
//! handled) would miss a mail renamed into `new/` after a later one was
//! handled, as a delivery agent does with a large mail, or one moved in with
//! an older time (a restore, a second delivery agent).

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use futures::StreamExt;

use super::{BATCH_SIZE, DEFAULT_MAX_MAIL_BYTES, Incoming, MAX_HEAD_BYTES, MailRef, MailboxError};

/// How often the directory is looked at while waiting for mail (no inotify:
/// polling works on every file system, network ones included).
const POLL_EVERY: Duration = Duration::from_millis(200);

/// A Maildir read as a mailbox.
#[derive(Debug)]
pub struct MaildirMailbox {
    dir: PathBuf,
    /// The names in `new/` at the last fetch: a name not among them is new.
    known: HashSet<String>,
    /// Handled mails that could not be moved to `cur/`. They are not handed
    /// out again (handling them again would only find them done, and a
    /// daemon that did so on every fetch would spin); moving them is tried
    /// again at each fetch. After a restart they are read once more, found
    /// already handled, and moved.
    unmoved: HashSet<String>,
    max_mail_bytes: u64,
    /// Wakes [`MaildirMailbox::wait_for_new`] as a mail lands in `new/`.
    watch: Watch,
    /// How often the wait looks at `new/` itself: at every turn without
    /// inotify, and as well with it (a Maildir on a network file system
    /// sees no inotify event for mail delivered by another machine).
    poll_every: Duration,
}

/// Linux inotify on `new/`: mail is read the moment it is delivered rather
/// than at the next look (the 200 ms poll alone put up to 200 ms on every
/// reply; issue 15). Started at the first wait, so that commands that only
/// read the Maildir take no inotify instance.
#[derive(Debug)]
enum Watch {
    /// Not wanted yet.
    NotYet,
    /// Watching `new/`.
    Watching(inotify::EventStream<Vec<u8>>),
    /// inotify could not be had (another system, no instance left) or
    /// failed: the wait polls.
    Unavailable,
}

/// Watches `dir` for files moved in (a delivery writes to `tmp/` and
/// renames into `new/`) or written in place (a careless writer).
fn watch_new(dir: &Path) -> std::io::Result<inotify::EventStream<Vec<u8>>> {
    let inotify = inotify::Inotify::init()?;
    inotify.watches().add(
        dir,
        inotify::WatchMask::MOVED_TO | inotify::WatchMask::CLOSE_WRITE,
    )?;
    inotify.into_event_stream(vec![0; 4096])
}

/// Whether a file name can be used safely inside the Maildir: no path
/// separators, not hidden, not `.`/`..`, no NUL.
pub(super) fn is_safe_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\', '\0'])
}

/// The mail files of a folder; an error names the file it is about (empty:
/// the folder).
fn list_folder(folder: &Path) -> Result<Vec<Entry>, (String, io::Error)> {
    let dir = std::fs::read_dir(folder).map_err(|e| (String::new(), e))?;
    let mut entries = Vec::new();
    for item in dir {
        let item = item.map_err(|e| (String::new(), e))?;
        let Ok(name) = item.file_name().into_string() else {
            continue; // not a name any Maildir writer makes
        };
        if !is_safe_name(&name) {
            continue;
        }
        let meta = match item.metadata() {
            Ok(meta) if meta.is_file() => meta,
            Ok(_) => continue,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err((name, e)),
        };
        entries.push(Entry {
            delivered: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            size: meta.len(),
            name,
        });
    }
    Ok(entries)
}

/// The beginning of a file, at most [`MAX_HEAD_BYTES`]: an oversized
/// mail's header fields. Empty when it cannot be read (the mail is then
/// refused without an answer).
async fn head_of_file(path: &Path) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut head = Vec::new();
    if let Ok(file) = tokio::fs::File::open(path).await {
        let _ = file
            .take(MAX_HEAD_BYTES as u64)
            .read_to_end(&mut head)
            .await;
    }
    head
}

/// A file found in `new/`: its delivery time and name.
///
/// The delivery time is the file's modification time. Maildir records no
/// other: a delivery agent writes the file in `tmp/` and renames it into
/// `new/`, which keeps the time it was written (the change time, by
/// contrast, moves with the rename), and the leading seconds of the name
/// are only a habit of some writers. A file copied in with its time kept
/// (`cp -p`, `rsync -t`, a restore) keeps its first delivery time, which is
/// right; a plain `cp` makes it the time of the copy, later than the mail
/// came. A time in the future (a clock set wrong) is taken as the moment
/// the mail is read (see `Daemon::offer`), as it cannot have arrived
/// later; one from before the game began counts from its start.
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
            unmoved: HashSet::new(),
            max_mail_bytes: DEFAULT_MAX_MAIL_BYTES,
            watch: Watch::NotYet,
            poll_every: POLL_EVERY,
        })
    }

    /// Looks at `new/` itself only this often while waiting (tests: to see
    /// that inotify alone wakes the wait).
    pub fn set_poll_every(&mut self, every: Duration) {
        self.poll_every = every;
    }

    /// The inotify events on `new/`, started at the first call; `None` where
    /// there are none.
    fn events(&mut self) -> Option<&mut inotify::EventStream<Vec<u8>>> {
        if let Watch::NotYet = self.watch {
            self.watch = match watch_new(&self.dir.join("new")) {
                Ok(events) => Watch::Watching(events),
                Err(e) => {
                    tracing::info!(error = %e, "no inotify on the Maildir: it is looked at every {} ms", self.poll_every.as_millis());
                    Watch::Unavailable
                }
            };
        }
        match &mut self.watch {
            Watch::Watching(events) => Some(events),
            Watch::NotYet | Watch::Unavailable => None,
        }
    }

    /// The Maildir's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sets the size cap (see [`super::Mailbox::set_max_mail_bytes`]).
    pub fn set_max_mail_bytes(&mut self, bytes: u64) {
        self.max_mail_bytes = bytes;
    }

    /// The size cap.
    pub fn max_mail_bytes(&self) -> u64 {
        self.max_mail_bytes
    }

    /// The mail in `new/`, oldest first (by delivery time, then name), at
    /// most [`BATCH_SIZE`]. `_after`, the daemon's cursor, is not needed:
    /// handled mail leaves `new/`.
    pub async fn fetch_new(
        &mut self,
        _after: Option<&MailRef>,
    ) -> Result<Vec<Incoming>, MailboxError> {
        self.move_unmoved().await;
        let entries = self.list_new().await?;
        self.known = entries.iter().map(|e| e.name.clone()).collect();
        let mut fresh: Vec<Entry> = entries
            .into_iter()
            .filter(|e| !self.unmoved.contains(&e.name))
            .collect();
        fresh.sort_by(|a, b| (a.delivered, &a.name).cmp(&(b.delivered, &b.name)));
        fresh.truncate(BATCH_SIZE);

        let mut mails = Vec::with_capacity(fresh.len());
        for entry in fresh {
            let oversized = (entry.size > self.max_mail_bytes).then_some(entry.size);
            let path = self.dir.join("new").join(&entry.name);
            let (raw, head) = if oversized.is_some() {
                (Vec::new(), head_of_file(&path).await)
            } else {
                // A plain read: a local file of at most the size limit
                // takes microseconds, where `tokio::fs` would hand it to a
                // blocking thread and back (issue 27).
                match std::fs::read(&path) {
                    Ok(raw) => (raw, Vec::new()),
                    // taken away (by another reader) between listing and reading
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(self.io_error("read", &entry.name, e)),
                }
            };
            mails.push(Incoming {
                key: MailRef::Maildir { name: entry.name },
                raw,
                head,
                received_at: DateTime::<Utc>::from(entry.delivered),
                oversized,
            });
        }
        Ok(mails)
    }

    /// Moves a handled mail from `new/` to `cur/`, adding the `S` flag.
    /// Marking a mail that is already in `cur/` again is harmless. A mail
    /// that cannot be moved is a [`MailboxError::Permanent`] error, and is
    /// not handed out again by [`MaildirMailbox::fetch_new`], which tries
    /// to move it each time.
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
        match self.move_to_cur(name).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(MailboxError::Gone(format!(
                "mail {name} is in neither new/ nor cur/ of {}",
                self.dir.display()
            ))),
            Err(e) => {
                self.unmoved.insert(name.clone());
                Err(MailboxError::Permanent(format!(
                    "cannot move the handled mail {name} from new/ to cur/ in the Maildir {}: {e} \
                     (check that cur/ is a folder dopis may write to); it is not read again, \
                     and moving it is tried again with each look at the mailbox",
                    self.dir.display()
                )))
            }
        }
    }

    /// Moves `name` from `new/` to `cur/`: `Ok(false)` when it is in
    /// neither.
    async fn move_to_cur(&self, name: &str) -> io::Result<bool> {
        let from = self.dir.join("new").join(name);
        let to = self.dir.join("cur").join(seen_name(name));
        // Plain calls, as in `fetch_new`: a rename in one folder is quick.
        match std::fs::rename(&from, &to) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if std::fs::exists(&to).unwrap_or(false) {
                    Ok(true)
                } else if std::fs::exists(&from).unwrap_or(false) {
                    Err(e) // cur/ is missing
                } else {
                    Ok(false)
                }
            }
            Err(e) => Err(e),
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

    /// Tries again to move the mails [`MaildirMailbox::mark_done`] could
    /// not; quietly, as the failure was reported once already.
    async fn move_unmoved(&mut self) {
        let mut still = HashSet::new();
        for name in std::mem::take(&mut self.unmoved) {
            match self.move_to_cur(&name).await {
                Ok(true) => tracing::info!(mail = %name, "handled mail moved to cur/ at last"),
                Ok(false) => {} // taken away by someone else
                Err(_) => {
                    still.insert(name);
                }
            }
        }
        self.unmoved = still;
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
            let nap = self.poll_every.min(deadline - now);
            match self.events() {
                Some(events) => match tokio::time::timeout(nap, events.next()).await {
                    // Something landed (or an older event was left): look.
                    Ok(Some(Ok(_))) | Err(_) => {}
                    Ok(Some(Err(e))) => {
                        tracing::warn!(error = %e, "inotify on the Maildir failed: it is polled from now on");
                        self.watch = Watch::Unavailable;
                    }
                    Ok(None) => self.watch = Watch::Unavailable,
                },
                None => tokio::time::sleep(nap).await,
            }
        }
    }

    /// The files in `new/`. Listed on a blocking thread in one go: a
    /// folder of thousands of mails is thousands of `stat` calls, and
    /// through `tokio::fs` each was a hand-off to a blocking thread and
    /// back (issue 27).
    async fn list_new(&self) -> Result<Vec<Entry>, MailboxError> {
        let new = self.dir.join("new");
        match tokio::task::spawn_blocking(move || list_folder(&new)).await {
            Ok(Ok(entries)) => Ok(entries),
            Ok(Err((name, e))) => Err(self.io_error(
                if name.is_empty() { "list" } else { "look at" },
                if name.is_empty() { "new/" } else { &name },
                e,
            )),
            Err(e) => Err(self.io_error("list", "new/", io::Error::other(e))),
        }
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

    /// With the look at `new/` put off for a minute, only inotify can wake
    /// the wait within seconds: for a mail renamed in from `tmp/` (how
    /// deliveries write) and for one written straight into `new/`.
    #[tokio::test]
    async fn a_delivered_mail_wakes_the_wait_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut mailbox = MaildirMailbox::open(dir.path()).await.unwrap();
        mailbox.set_poll_every(Duration::from_secs(60));
        assert!(mailbox.fetch_new(None).await.unwrap().is_empty());
        for (n, renamed) in [(1, true), (2, false)] {
            let root = dir.path().to_path_buf();
            let deliver = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(300));
                let name = format!("{n}.test");
                let raw = b"From: a@b.test\r\n\r\ne4\r\n";
                if renamed {
                    std::fs::write(root.join("tmp").join(&name), raw).unwrap();
                    std::fs::rename(root.join("tmp").join(&name), root.join("new").join(&name))
                        .unwrap();
                } else {
                    std::fs::write(root.join("new").join(&name), raw).unwrap();
                }
            });
            let started = std::time::Instant::now();
            mailbox
                .wait_for_new(Duration::from_secs(120))
                .await
                .unwrap();
            let waited = started.elapsed();
            deliver.join().unwrap();
            assert!(waited < Duration::from_secs(30), "woken after {waited:?}");
            // Both are still in `new/` (neither was marked done).
            assert_eq!(mailbox.fetch_new(None).await.unwrap().len(), n, "mail {n}");
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
