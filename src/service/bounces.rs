//! Bounces of our mail: a player whose address keeps bouncing is paused and
//! their TDs told, rather than mailed in a loop.
//!
//! A bounce counts against a player only when it is a hard failure (DSN
//! `Action: failed` with a 5.x.x status, or Exim's `X-Failed-Recipients`) of
//! the player's registered address, and it returns the Message-ID of a mail
//! our outbox sent to that address. Our Message-IDs carry a secret part, so
//! nobody can forge bounces to pause someone else; each mail of ours counts
//! once, however many reports come back for it. `[mail] bounces_to_pause`
//! of them within `bounce_days` pause the player:
//!
//! - the outbox holds their mail (pending, not sent, not lost) and sends it,
//!   oldest first, once they are resumed;
//! - their clocks are not stopped: deadlines, extensions and leave stay the
//!   TD's decision;
//! - the TDs of the events of their games in progress are told, each in
//!   their language, with those games. A game outside events has no TD: the
//!   server's operator, who runs those, reads it in the log and in
//!   `dopis player show`. The opponent is not mailed: they can do
//!   nothing about someone else's address, and a bounce is that player's
//!   private business until someone responsible acts;
//! - a mail from them that authenticates (their reply address and their
//!   registered From) resumes them, as does `dopis player resume`.
//!
//! Bounces are never answered (see `inbox`), so our own bounces cannot loop:
//! a notice to a TD whose address bounces in turn only counts against that
//! TD, and mail to a paused address is held.

use crate::service::ServiceError;
use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::clocks::directors_of_event;
use super::post::{Outgoing, Post};
use super::{BounceNote, Handled, Ignored};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::mail::inbound::InboundMail;
use crate::adapter::store::StoreError;
use crate::adapter::store::Tx;
use crate::adapter::store::bounces::NewBounce;
use crate::adapter::store::games::GameLine;
use crate::domain::player::Player;

/// Records what a bounce says about our players and pauses those whose
/// address keeps bouncing; never answers it.
pub(super) async fn record(
    post: &Post,
    tx: &mut Tx,
    mail: &InboundMail,
    received_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Handled, ServiceError> {
    let Some(report) = &mail.bounce else {
        return Ok(Handled::Ignored(Ignored::Bounce(None)));
    };
    let ours: Vec<&str> = report
        .returned
        .iter()
        .map(|id| id.as_str())
        .filter(|id| {
            id.rsplit_once('@')
                .is_some_and(|(_, domain)| domain.eq_ignore_ascii_case(post.ours.domain()))
        })
        .collect();
    let mut said = Vec::new();
    for (address, status) in &report.failed {
        let Some(player) = tx.player_by_email(address.as_str()).await? else {
            continue;
        };
        let Some(message_id) = tx.our_mail_to(&ours, address.as_str()).await? else {
            said.push(BounceNote::NotCounted {
                address: address.to_string(),
            });
            continue;
        };
        said.push(
            hard_bounce(
                post,
                tx,
                &player,
                &message_id,
                status.as_deref(),
                mail.idempotency_key.as_str(),
                received_at,
                now,
            )
            .await?,
        );
    }
    if said.is_empty() {
        said.push(BounceNote::NamesNoPlayer);
    }
    Ok(Handled::Ignored(Ignored::Bounce(Some(said))))
}

/// Counts one hard failure of a mail of ours (`message_id`) to a player's
/// address, reported by a bounce (`mail_key`: the bounce's inbound key) or
/// by our SMTP server's refusal at once; pauses the player when their
/// address has failed often enough. Returns what was done, for the log.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn hard_bounce(
    post: &Post,
    tx: &mut Tx,
    player: &Player,
    message_id: &str,
    status: Option<&str>,
    mail_key: &str,
    received_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<BounceNote, ServiceError> {
    let address = player.email.to_string();
    tx.record_bounce(&NewBounce {
        player: player.id,
        message_id,
        status,
        mail_key,
        received_at,
    })
    .await?;
    let policy = post.bounces;
    let since = received_at - Duration::days(i64::from(policy.days));
    let count = tx.bounces_since(player.id, since).await?;
    if policy.to_pause == 0 || count < i64::from(policy.to_pause) {
        return Ok(BounceNote::Counted {
            address,
            count,
            of: policy.to_pause,
            days: policy.days,
        });
    }
    let reason = format!(
        "{count} of our mails bounced in {} days (last status {})",
        policy.days,
        status.unwrap_or("none given")
    );
    if !tx.pause_player(player.id, &reason, now).await? {
        return Ok(BounceNote::PausedAlready { address });
    }
    tracing::warn!(player = %address, %reason, "address bounces: player paused, mail held");
    let told = tell_directors(post, tx, player, count, status, now).await?;
    Ok(BounceNote::Paused {
        address,
        reason,
        tds: told,
    })
}

/// The enhanced status code (`5.1.1`) in an SMTP server's refusal, if any.
pub(crate) fn smtp_status(reply: &str) -> Option<String> {
    reply
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() == 3
                && parts[0] == "5"
                && parts.iter().all(|p| !p.is_empty() && p.len() <= 3)
        })
        .map(str::to_string)
}

/// Mails the TDs of the events of a paused player's games in progress;
/// returns how many.
async fn tell_directors(
    post: &Post,
    tx: &mut Tx,
    player: &Player,
    count: i64,
    status: Option<&str>,
    now: DateTime<Utc>,
) -> Result<usize, ServiceError> {
    let lines = tx.game_lines_of(player.id).await?;
    // Each TD hears once, of the games of the events they direct.
    let mut directors: BTreeMap<String, (Player, Vec<String>)> = BTreeMap::new();
    for line in &lines {
        let Some((event, _)) = &line.event else {
            continue;
        };
        for td in directors_of_event(tx, *event).await? {
            directors
                .entry(td.email.to_string())
                .or_insert_with(|| (td, Vec::new()))
                .1
                .push(game_line(line));
        }
    }
    let stamp = now.timestamp_millis();
    for (email, (td, games)) in &directors {
        post.queue(
            tx,
            Outgoing::new(
                format!("bounce.p{}.{stamp}.td.{email}", player.id.0),
                LetterKind::AddressBounces {
                    player: player.name.clone(),
                    address: player.email.to_string(),
                    bounces: u32::try_from(count).unwrap_or(u32::MAX),
                    days: post.bounces.days,
                    status: status.unwrap_or_default().to_string(),
                    games: games.clone(),
                },
                td,
            ),
            now,
        )
        .await?;
    }
    Ok(directors.len())
}

fn game_line(line: &GameLine) -> String {
    match &line.event {
        Some((_, name)) => format!("#{}: {} - {} ({name})", line.game.0, line.white, line.black),
        None => format!("#{}: {} - {}", line.game.0, line.white, line.black),
    }
}

/// A mail from a paused player authenticated: their mail flows again (what
/// was held goes out with the next send). Returns whether they were paused.
pub(super) async fn resume_on_mail(
    tx: &mut Tx,
    player: &Player,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let resumed = tx.resume_player(player.id, now).await?;
    if resumed {
        tracing::info!(player = %player.email, "a mail of theirs authenticated: resumed, held mail released");
    }
    Ok(resumed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_code_is_read_from_an_smtp_refusal() {
        assert_eq!(
            smtp_status("permanent error (550): 5.1.1 <x@y>: Recipient address rejected")
                .as_deref(),
            Some("5.1.1")
        );
        assert_eq!(smtp_status("550 mailbox unavailable"), None);
        assert_eq!(
            smtp_status("554 5.7.1 Client host rejected").as_deref(),
            Some("5.7.1")
        );
    }
}
