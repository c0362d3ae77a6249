//! Who may see an event's web pages, set by a TD after the event was made
//! (`dopis event visibility`); the event file's `visibility` sets it first.

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError};
use crate::adapter::store::Tx;
use crate::adapter::store::td_log::NewTdAction;
use crate::domain::address::EmailAddress;
use crate::domain::event::Visibility;
use crate::domain::ids::EventId;

/// Sets who may see an event's pages; `by` must be one of its TDs. The
/// change is logged with the TD's reason, as every TD action is.
pub async fn set_visibility(
    tx: &mut Tx,
    event: EventId,
    visibility: Visibility,
    by: &EmailAddress,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<Visibility, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    let before = ev.record.visibility;
    if before == visibility {
        return Ok(before);
    }
    tx.set_event_visibility(event, visibility).await?;
    tx.record_td_action(
        &NewTdAction {
            event: Some(event),
            game: None,
            action: "visibility",
            by: by.as_str(),
            detail: &format!("web pages {before} -> {visibility}"),
            reason: reason.trim(),
        },
        now,
    )
    .await?;
    Ok(before)
}
