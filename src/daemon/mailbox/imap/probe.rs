//! `dopis doctor`'s look at the IMAP server: the daemon's own connect with
//! each step told (so that the one that fails is named), and finding and
//! removing the probe mail.

use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::TryStreamExt;

use super::{Session, Step, StepFailed, StepNote, extra_roots, open, port, timed};
use crate::adapter::config::ImapConfig;

/// A logged-in IMAP session the doctor keeps for the probe mail.
pub struct ImapProbe {
    session: Session,
    server: String,
    cfg: ImapConfig,
    has_uidplus: bool,
}

impl std::fmt::Debug for ImapProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapProbe")
            .field("server", &self.server)
            .finish()
    }
}

/// Connects as the daemon does (the same `open`), telling `watch` each
/// step that passes; keeps the session for the probe mail.
pub async fn diagnose(
    cfg: &ImapConfig,
    watch: &mut (dyn FnMut(Step, StepNote) + Send),
) -> Result<ImapProbe, StepFailed> {
    let roots = extra_roots(cfg)?;
    let connected = open(cfg, &roots, watch).await?;
    Ok(ImapProbe {
        session: connected.session,
        server: format!("{}:{}", cfg.host, port(cfg)),
        cfg: cfg.clone(),
        has_uidplus: connected.has_uidplus,
    })
}

impl ImapProbe {
    /// The folder mail is read from.
    pub fn mailbox(&self) -> &str {
        &self.cfg.mailbox
    }

    /// Waits up to `wait` for the mail whose `header` is `value`, in the
    /// folder read or (a running daemon may have handled it first) the
    /// done folder; removes it and returns when the server received it
    /// (its INTERNALDATE). `Ok(None)`: it did not come.
    pub async fn await_and_remove(
        &mut self,
        header: &str,
        value: &str,
        wait: Duration,
    ) -> Result<Option<DateTime<Utc>>, String> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut folders = vec![self.cfg.mailbox.clone()];
        folders.extend(self.cfg.done_folder.clone());
        loop {
            for folder in &folders {
                if let Some(at) = self.find_in(folder, header, value).await? {
                    return Ok(Some(at));
                }
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    async fn find_in(
        &mut self,
        folder: &str,
        header: &str,
        value: &str,
    ) -> Result<Option<DateTime<Utc>>, String> {
        let server = self.server.clone();
        // A folder that cannot be opened (a done folder not yet created)
        // holds no probe.
        if timed(&server, "SELECT", self.session.select(folder))
            .await
            .is_err()
        {
            return Ok(None);
        }
        let query = format!("HEADER {header} \"{value}\"");
        let found = timed(&server, "UID SEARCH", self.session.uid_search(query))
            .await
            .map_err(|e| e.to_string())?;
        let Some(uid) = found.into_iter().max() else {
            return Ok(None);
        };
        let fetched: Vec<_> = timed(&server, "UID FETCH", async {
            self.session
                .uid_fetch(uid.to_string(), "(UID INTERNALDATE)")
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await
        .map_err(|e| e.to_string())?;
        let received = fetched
            .iter()
            .find_map(|f| f.internal_date())
            .map(|d| d.with_timezone(&Utc));
        self.remove(uid).await?;
        Ok(Some(received.unwrap_or(DateTime::<Utc>::MIN_UTC)))
    }

    /// Deletes one mail; with UIDPLUS only that one is expunged, without
    /// it the mail stays flagged deleted (a plain EXPUNGE would also remove
    /// whatever else someone flagged).
    async fn remove(&mut self, uid: u32) -> Result<(), String> {
        let server = self.server.clone();
        timed(&server, "UID STORE", async {
            self.session
                .uid_store(uid.to_string(), "+FLAGS.SILENT (\\Seen \\Deleted)")
                .await?
                .try_collect::<Vec<_>>()
                .await
        })
        .await
        .map_err(|e| e.to_string())?;
        if self.has_uidplus {
            timed(&server, "UID EXPUNGE", async {
                self.session
                    .uid_expunge(uid.to_string())
                    .await?
                    .try_collect::<Vec<_>>()
                    .await
            })
            .await
            .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Logs out.
    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.session.logout()).await;
    }
}
