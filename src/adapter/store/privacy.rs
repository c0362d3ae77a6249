//! Personal data let go: a forgotten player (`dopis player forget`) and
//! retention (`[retention]`: sent mail bodies and inbound records pruned
//! after a while). What stays is what exactly-once and the standings need.

use chrono::{DateTime, Utc};

use super::dump::Kind;
use super::{Backend, Store, StoreError, Tx, to_millis};
use crate::domain::player::PlayerId;

/// Text columns a forgotten player's name and address are never replaced
/// in: keys that make a mail act or go out once, which never hold a name
/// (a changed key would let a mail act twice), and the players table,
/// which is changed row by row.
const KEY_COLUMNS: &[(&str, &str)] = &[
    ("inbound", "mail_key"),
    ("outbox", "mail_key"),
    ("outbox", "message_id"),
    ("bounces", "mail_key"),
    ("bounces", "message_id"),
    ("digest_games", "mail_key"),
    ("game_messages", "mail_key"),
    ("due_done", "due_key"),
    ("stuck_work", "subject"),
    ("report_runs", "report"),
    ("mailbox_cursor", "mailbox"),
];

/// What forgetting a player changed, in rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForgetCounts {
    /// Outbox mails whose body was dropped.
    pub mails: u64,
    /// Inbound records and failed mails of theirs let go.
    pub inbound: u64,
    /// Their messages to opponents deleted.
    pub messages: u64,
    /// Other texts (TD log, leave, confirmations…) where their name or
    /// address was replaced.
    pub texts: u64,
}

impl Tx {
    /// The numbers of a player's games that are not finished.
    pub async fn unfinished_games_of(&mut self, player: PlayerId) -> Result<Vec<i64>, StoreError> {
        super::sql::query(
            "SELECT id FROM games WHERE status <> 'finished' AND (white_id = $1 OR black_id = $1) \
             ORDER BY id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| r.try_get("id"))
        .collect()
    }

    /// The events a player is entered in (not withdrawn) that have not started.
    pub async fn open_events_of(&mut self, player: PlayerId) -> Result<Vec<i64>, StoreError> {
        super::sql::query(
            "SELECT e.id FROM events e JOIN entrants n ON n.event_id = e.id \
             WHERE n.player_id = $1 AND n.withdrawn_at IS NULL AND e.status = 'open' ORDER BY e.id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| r.try_get("id"))
        .collect()
    }

    /// How many finished games a player has.
    pub async fn finished_games_of(&mut self, player: PlayerId) -> Result<i64, StoreError> {
        let row = super::sql::query(
            "SELECT COUNT(*) AS n FROM games WHERE status = 'finished' \
             AND (white_id = $1 OR black_id = $1)",
        )
        .bind(player.0)
        .fetch_one(&mut self.tx)
        .await?;
        row.try_get("n")
    }

    /// Erases a player's personal data: `email` and `name` become
    /// `placeholder_email` and `placeholder_name` everywhere (their games
    /// stay, under the placeholder); the bodies of mails to them, about
    /// their games or naming their address go; their messages, inbound
    /// records, failed mails and confirmations' texts go. The caller
    /// checked that no game of theirs is unfinished.
    pub async fn forget_player(
        &mut self,
        player: PlayerId,
        email: &str,
        name: &str,
        placeholder_email: &str,
        placeholder_name: &str,
        now: DateTime<Utc>,
    ) -> Result<ForgetCounts, StoreError> {
        let mut counts = ForgetCounts::default();
        let at = to_millis(now);
        super::sql::query(
            "UPDATE players SET email = $1, name = $2, tz = NULL, notify = 'each', \
             paused_at = NULL, paused_reason = NULL, xfcc_hash = NULL, forgotten_at = $3 WHERE id = $4",
        )
        .bind(placeholder_email)
        .bind(placeholder_name)
        .bind(at)
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        // Mail bodies: to them, about their games, or with their address
        // in it. Not sent yet: not sent at all (it names someone who asked
        // to be forgotten).
        let contains = match self.backend {
            Backend::Sqlite => "instr(raw, $4) > 0",
            Backend::Postgres => "position($4 IN raw) > 0",
        };
        let done = super::sql::query(super::sql::AssertSqlSafe(format!(
            "UPDATE outbox SET raw = $1, pruned_at = $2, \
             status = CASE WHEN status = 'pending' THEN 'failed' ELSE status END, \
             last_error = CASE WHEN status = 'pending' THEN 'not sent: it names a forgotten player' \
                          ELSE last_error END, leased_by = NULL \
             WHERE recipient = $3 OR {contains} \
             OR game_id IN (SELECT id FROM games WHERE white_id = $5 OR black_id = $5)"
        )))
        .bind(Vec::<u8>::new())
        .bind(at)
        .bind(email)
        .bind(email.as_bytes().to_vec())
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        counts.mails = done.rows_affected();
        super::sql::query("UPDATE outbox SET recipient = $1 WHERE recipient = $2")
            .bind(placeholder_email)
            .bind(email)
            .execute(&mut self.tx)
            .await?;
        // What they wrote: inbound records keep their key (a mail acts once)
        // but lose the sender and outcome; mails of theirs that failed go.
        let done = super::sql::query(
            "UPDATE inbound SET sender = NULL, outcome = 'forgotten', pruned_at = $1 \
             WHERE LOWER(sender) = $2",
        )
        .bind(at)
        .bind(email)
        .execute(&mut self.tx)
        .await?;
        counts.inbound = done.rows_affected();
        let done = super::sql::query("DELETE FROM failed_mail WHERE LOWER(sender) = $1")
            .bind(email)
            .execute(&mut self.tx)
            .await?;
        counts.inbound += done.rows_affected();
        super::sql::query("UPDATE confirmations SET text = '', used_at = COALESCE(used_at, $1) WHERE player_id = $2")
            .bind(at)
            .bind(player.0)
            .execute(&mut self.tx)
            .await?;
        super::sql::query("UPDATE leave_bookings SET reason = NULL WHERE player_id = $1")
            .bind(player.0)
            .execute(&mut self.tx)
            .await?;
        // Their messages to their opponents (the opponents' stay).
        let done = super::sql::query(
            "DELETE FROM game_messages WHERE EXISTS (SELECT 1 FROM games g \
             WHERE g.id = game_messages.game_id AND \
             ((game_messages.side = 'white' AND g.white_id = $1) \
              OR (game_messages.side = 'black' AND g.black_id = $1)))",
        )
        .bind(player.0)
        .execute(&mut self.tx)
        .await?;
        counts.messages = done.rows_affected();
        // Every other text that names them: the TD log, leave booked by
        // them, a TD's address, messages the opponent wrote…
        for table in self.table_names().await? {
            if table == "players" || table == "_sqlx_migrations" {
                continue;
            }
            for column in self.columns(&table).await? {
                if column.kind != Kind::Text
                    || KEY_COLUMNS.contains(&(table.as_str(), column.name.as_str()))
                {
                    continue;
                }
                let mut found = self.values_containing(&table, &column.name, email).await?;
                if !name.trim().is_empty() {
                    found.extend(self.values_containing(&table, &column.name, name).await?);
                }
                found.sort();
                found.dedup();
                for old in found {
                    let new =
                        without_person(&old, email, name, placeholder_email, placeholder_name);
                    if new != old {
                        counts.texts +=
                            self.replace_value(&table, &column.name, &old, &new).await?;
                    }
                }
            }
        }
        Ok(counts)
    }

    /// Drops the bodies of mails sent before `before` (keeping their rows);
    /// returns how many.
    pub async fn prune_sent_bodies(
        &mut self,
        before: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let done = super::sql::query(
            "UPDATE outbox SET raw = $1, pruned_at = $2 \
             WHERE status = 'sent' AND pruned_at IS NULL AND sent_at < $3",
        )
        .bind(Vec::<u8>::new())
        .bind(to_millis(now))
        .bind(to_millis(before))
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected())
    }

    /// Lets go of what inbound records handled before `before` say of their
    /// mail (the sender, the outcome in words) and of the texts of
    /// confirmations asked before then (unanswered ones expire), keeping
    /// the keys and fingerprints that make a mail act once. Returns how
    /// many inbound records.
    pub async fn prune_inbound(
        &mut self,
        before: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let done = super::sql::query(
            "UPDATE inbound SET sender = NULL, outcome = 'pruned', pruned_at = $1 \
             WHERE pruned_at IS NULL AND processed_at < $2",
        )
        .bind(to_millis(now))
        .bind(to_millis(before))
        .execute(&mut self.tx)
        .await?;
        super::sql::query(
            "UPDATE confirmations SET text = '', used_at = COALESCE(used_at, $1) \
             WHERE created_at < $2 AND text <> ''",
        )
        .bind(to_millis(now))
        .bind(to_millis(before))
        .execute(&mut self.tx)
        .await?;
        Ok(done.rows_affected())
    }
}

/// How much retention has let go of so far, in rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetentionTally {
    /// Outbox mails sent.
    pub outbox_sent: i64,
    /// Of them, those whose body was dropped.
    pub outbox_bodies_pruned: i64,
    /// Inbound records.
    pub inbound: i64,
    /// Of them, those whose sender and outcome were let go of.
    pub inbound_pruned: i64,
}

impl Store {
    /// What retention has pruned so far (`dopis bench`'s soak shows it
    /// every minute).
    pub async fn retention_tally(&self) -> Result<RetentionTally, StoreError> {
        let outbox = super::sql::query(
            "SELECT COUNT(*) AS n, COUNT(pruned_at) AS pruned FROM outbox WHERE status = 'sent'",
        )
        .fetch_one(self.pool())
        .await?;
        let inbound =
            super::sql::query("SELECT COUNT(*) AS n, COUNT(pruned_at) AS pruned FROM inbound")
                .fetch_one(self.pool())
                .await?;
        Ok(RetentionTally {
            outbox_sent: outbox.try_get("n")?,
            outbox_bodies_pruned: outbox.try_get("pruned")?,
            inbound: inbound.try_get("n")?,
            inbound_pruned: inbound.try_get("pruned")?,
        })
    }
}

/// `text` with every `email` (in any case) replaced by `placeholder_email`
/// and every `name` standing as words of its own (not inside a longer
/// word: forgetting "Ana" leaves "Anastasia" alone) by `placeholder_name`.
pub fn without_person(
    text: &str,
    email: &str,
    name: &str,
    placeholder_email: &str,
    placeholder_name: &str,
) -> String {
    let text = replace_ascii_case_insensitive(text, email, placeholder_email);
    if name.trim().is_empty() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let mut before: Option<char> = None;
    while let Some(i) = rest.find(name) {
        let prev = rest[..i].chars().next_back().or(before);
        let next = rest[i + name.len()..].chars().next();
        let standalone =
            !prev.is_some_and(char::is_alphanumeric) && !next.is_some_and(char::is_alphanumeric);
        out.push_str(&rest[..i]);
        out.push_str(if standalone { placeholder_name } else { name });
        before = name.chars().next_back();
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

fn replace_ascii_case_insensitive(text: &str, needle: &str, with: &str) -> String {
    if needle.is_empty() {
        return text.to_string();
    }
    let lower = text.to_ascii_lowercase();
    let needle = needle.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    // ASCII lower-casing keeps every byte where it was, so the offsets
    // found in `lower` are those of `text`.
    for (i, _) in lower.match_indices(&needle) {
        if i < last {
            continue;
        }
        out.push_str(&text[last..i]);
        out.push_str(with);
        last = i + needle.len();
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forgotten_name_goes_where_it_stands_alone_and_the_address_in_any_case() {
        let f = |t: &str| {
            without_person(
                t,
                "ana@x.test",
                "Ana",
                "gone-1@forgotten.invalid",
                "Forgotten player 1",
            )
        };
        assert_eq!(
            f("withdrew Ana (ANA@X.test)"),
            "withdrew Forgotten player 1 (gone-1@forgotten.invalid)"
        );
        assert_eq!(
            f("Anastasia beat Ana."),
            "Anastasia beat Forgotten player 1."
        );
        assert_eq!(f("Ana"), "Forgotten player 1");
        assert_eq!(f("Banana"), "Banana");
        assert_eq!(f("Ana,Ana"), "Forgotten player 1,Forgotten player 1");
        assert_eq!(f("žAna"), "žAna");
    }
}
