//! `dopis failed retry`: a failed mail put back into the daemon's mailbox
//! to be read again. The mailbox is the daemon's edge, so the CLI
//! dispatches this as it dispatches `dopis serve`; what is recorded of the
//! failure is the service's ([`crate::service::quarantine`]).

use anyhow::Context;

use super::mailbox::Mailbox;
use crate::service::app::App;
use crate::service::quarantine;

/// Puts failed mail `id` back into the inbox, with its original arrival
/// time, and forgets its failure; returns where it went (`None`: there is
/// no failed mail `id`).
pub async fn retry_failed(app: &App, id: i64) -> anyhow::Result<Option<String>> {
    let Some((mail, raw)) = quarantine::failed_mail(&app.store, id).await? else {
        return Ok(None);
    };
    let mut mailbox = Mailbox::open(&app.config.mail)
        .await
        .context("cannot open the mailbox to put the mail back")?;
    let place = mailbox
        .put_back(&raw, mail.received_at, mail.kept_in.as_deref())
        .await
        .context("cannot put the mail back into the inbox")?;
    quarantine::forget_failed_mail(&app.store, id).await?;
    Ok(Some(place))
}
