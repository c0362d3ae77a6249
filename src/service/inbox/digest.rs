//! A reply to a daily digest: each line names its game (`#2 d5`, `2: d5`,
//! the opponent's name, see [`crate::adapter::mail::digest_reply`]) and is carried
//! out as a reply to that game's own mail would be — the same stale check
//! (against the position the digest showed), the same arbiter, the same
//! answers. Lines that name no game of the player's get one answer that
//! quotes them and says how to write them.
//!
//! `notify each` / `notify digest` is the player's, not a game's: it may
//! stand on a line of its own, or be the subject of a mail with any body —
//! what a mail program's "unsubscribe" button sends to the digest's
//! `List-Unsubscribe` address (`mailto:…?subject=notify%20each`; Gmail adds
//! a line of its own to the body, which is then not read).

use crate::service::ServiceError;
use chrono::{DateTime, Utc};

use super::stale::Written;
use super::{Done, Handled, Inbox};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::mail::digest_reply::{self, Line, Named};
use crate::adapter::mail::inbound::InboundMail;
use crate::adapter::store::Tx;
use crate::domain::arbiter::{Reason, RejectionKind};
use crate::domain::command::{self, Command, Notify};
use crate::domain::ids::GameId;
use crate::domain::player::Player;
use crate::service::DigestLine;
use crate::service::loaded_game;
use crate::service::post::{Answering, Outgoing};

impl Inbox {
    /// Carries out a reply to `player`'s digest, line by line.
    pub(super) async fn digest_reply(
        &self,
        tx: &mut Tx,
        mail: &InboundMail,
        player: &Player,
        answering: &Answering<'_>,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(Option<GameId>, Handled), ServiceError> {
        // The digest answered, and the position it showed of each game.
        let mut shown = Vec::new();
        for id in mail.in_reply_to.iter().chain(mail.references.iter()) {
            shown = tx.digest_games_of(id.as_str()).await?;
            if !shown.is_empty() {
                break;
            }
        }
        // The player's games in progress, with the opponent's name.
        let mut known = Vec::new();
        for game in tx.active_games_of(player.id).await? {
            let record = tx.game_for_update(game).await?;
            let opponent = if record.white == player.id {
                record.black
            } else {
                record.white
            };
            known.push((game, tx.player(opponent).await?.name));
        }
        let named: Vec<Named<'_>> = known
            .iter()
            .map(|(game, name)| Named {
                game: game.0,
                opponent: name,
            })
            .collect();
        // An unsubscribe: the subject is the command, the body is not read.
        if let Some(digest) = notify_choice(&mail.subject, player) {
            let mut player = player.clone();
            self.settings(tx, &mut player, None, Some(digest), answering, now)
                .await?;
            return Ok((
                None,
                Handled::Done(Done::Digest(vec![DigestLine::Notify(digest)])),
            ));
        }
        let shown_ids: Vec<i64> = shown.iter().map(|(g, _)| g.0).collect();
        let lines = digest_reply::read(&mail.text, &named, &shown_ids);

        let mut done = Vec::new();
        let mut unread = Vec::new();
        let mut first_game = None;
        let mut notify = None;
        for (index, line) in lines.into_iter().enumerate() {
            let (game, text) = match line {
                Line::Game { game, text } if known.iter().any(|(g, _)| g.0 == game) => {
                    (GameId(game), text)
                }
                Line::Game { game, text } => {
                    unread.push(format!("#{game} {text}"));
                    continue;
                }
                Line::Unnamed(text) => {
                    match notify_choice(&text, player) {
                        Some(digest) => notify = Some(digest),
                        None => unread.push(text),
                    }
                    continue;
                }
            };
            if first_game.is_none() {
                first_game = Some(game);
            }
            // Each line answers as a mail of its own: its answers are keyed apart.
            let key = format!("{}.l{index}.g{}", answering.mail_key, game.0);
            let line_answering = Answering {
                mail_key: &key,
                message_id: answering.message_id,
            };
            // Each line's game is loaded once for its line (an earlier
            // line may have moved in it).
            let table = loaded_game::load_table_with(tx, game, Some(player)).await?;
            let commands = command::parse(&text, player.lang).commands;
            let written = Written {
                text: &text,
                commands: &commands,
                answered: shown.iter().find(|(g, _)| *g == game).map(|(_, ply)| *ply),
                received_at,
            };
            if let Some(outcome) = self
                .ask_if_stale(tx, &table, player, &written, &line_answering, now)
                .await?
            {
                done.push(DigestLine::Game { game, outcome });
                continue;
            }
            if commands.is_empty() {
                continue;
            }
            let outcome = self
                .apply(
                    tx,
                    table,
                    player,
                    &commands,
                    &line_answering,
                    (received_at, received_at),
                    now,
                )
                .await?;
            done.push(DigestLine::Game { game, outcome });
        }

        if let Some(digest) = notify {
            let mut player = player.clone();
            self.settings(tx, &mut player, None, Some(digest), answering, now)
                .await?;
            done.push(DigestLine::Notify(digest));
        }
        if !unread.is_empty() || done.is_empty() {
            let games: Vec<String> = known
                .iter()
                .map(|(g, name)| format!("#{} ({name})", g.0))
                .collect();
            let reason = match known.first() {
                None => Reason::NoGameInProgress,
                Some((example, _)) => Reason::DigestLinesUnnamed {
                    example: *example,
                    games,
                },
            };
            // Answered from the digest's address: a reply to it is read as
            // a reply to the digest, one line per game.
            let answer = Outgoing::new(
                answering.key("digest"),
                LetterKind::Rejected {
                    wrote: if unread.is_empty() {
                        String::new()
                    } else {
                        unread.join("\n")
                    },
                    reason,
                    kind: RejectionKind::UnknownGame,
                },
                player,
            )
            .answering(answering)
            .reply_to(self.post.digest_address(player));
            if self.post.answer(tx, answer, now).await? {
                done.push(DigestLine::Unnamed(unread.len()));
            }
        }
        Ok((first_game, Handled::Done(Done::Digest(done))))
    }
}

/// `Some(true)` for a text that is `notify digest` and nothing else,
/// `Some(false)` for `notify each`, in the player's words or English.
fn notify_choice(text: &str, player: &Player) -> Option<bool> {
    match command::parse(text, player.lang).commands.as_slice() {
        [Command::Notify(choice)] => Some(*choice == Notify::Digest),
        _ => None,
    }
}
