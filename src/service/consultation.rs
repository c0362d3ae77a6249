//! Consultation games (vote chess): starting one from its event, hearing
//! a member's vote, and making the side's move when its votes close (its
//! deadline, or every member has voted) — each in the caller's
//! transaction, with the mails it causes.
//!
//! A consultation game is an ordinary game between the two captains
//! (`games.white_id`, `black_id`): the side's move is made as the captain's
//! move through the arbiter, so clocks, the other side's mails, the end of
//! the game and the PGN work as in any game. What is added here: every
//! member gets the side's mails, a move mail is a vote, and the tally
//! ([`crate::domain::event::consultation`]) picks the move.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};
use shakmaty::{Color, Position};

use super::inbox::Inbox;
use super::loaded_game::{LoadedGame, load_table};
use super::post::{Answering, Outgoing};
use super::td::consultation::{closes_at, open_votes};
use super::votes::{remark, votes_at};
use crate::adapter::mail::compose::{LetterKind, VoteLine, VoteNews};
use crate::adapter::store::StoreError;
use crate::adapter::store::Tx;
use crate::adapter::store::games::GameStatus;
use crate::domain::arbiter::{Notice, Reason, RejectionKind, Step};
use crate::domain::chess::notation::{Notation, render};
use crate::domain::command::{self, Command, MoveText};
use crate::domain::event::consultation as tally;
use crate::domain::ids::GameId;
use crate::domain::lang::Lang;
use crate::domain::player::Player;

pub use super::{Done, Handled, Ignored, Refused};

/// A move of the position as `lang` writes it; the UCI when it is none.
fn san_in(
    position: &shakmaty::Chess,
    game: &crate::domain::chess::game::Game,
    uci: &str,
    lang: Lang,
) -> String {
    uci.parse::<shakmaty::uci::UciMove>()
        .ok()
        .and_then(|u| u.to_move(position).ok())
        .map(|m| render(position, &m, Notation::San(lang), game.castling_mode()))
        .unwrap_or_else(|| uci.to_string())
}

/// The votes as a member reads them: the leader first, in their letters.
fn lines(
    counts: &[tally::Count],
    position: &shakmaty::Chess,
    table: &LoadedGame,
    lang: Lang,
) -> Vec<VoteLine> {
    counts
        .iter()
        .map(|c| VoteLine {
            san: san_in(position, &table.game, &c.uci, lang),
            votes: c.votes,
            voters: c.voters.clone(),
        })
        .collect()
}

impl Inbox {
    /// A consultation member's mail in `game` (see [`hear`]); `None`: the
    /// game is no consultation game or the sender no member, or the mail
    /// is the captain's to say as in any game. Defined here, with the
    /// votes, so that the inbox need not name this module.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn hear_vote(
        &self,
        tx: &mut Tx,
        table: &LoadedGame,
        voter: &Player,
        commands: &[Command],
        answering: &Answering<'_>,
        times: (DateTime<Utc>, DateTime<Utc>),
        now: DateTime<Utc>,
    ) -> Result<Option<Handled>, ServiceError> {
        hear(self, tx, table, voter, commands, answering, times, now).await
    }
}

/// Hears a member's mail in a consultation game: a move is their vote
/// (checked against the position, counted, answered with their side's
/// votes so far; when every member has voted the move is made at once);
/// anything else is the captain's to say (heard as in any game) and is
/// refused to other members. `times`: as [`Inbox::hear_game`]'s.
#[allow(clippy::too_many_arguments)]
async fn hear(
    inbox: &Inbox,
    tx: &mut Tx,
    table: &LoadedGame,
    voter: &Player,
    commands: &[Command],
    answering: &Answering<'_>,
    times: (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
) -> Result<Option<Handled>, ServiceError> {
    // The members came with the game (none in other games).
    let members = &table.members;
    let game = table.record.id;
    let Some((member, _)) = members.0.iter().find(|(_, p)| p.id == voter.id) else {
        return Ok(None);
    };
    let member = member.clone();
    let vote = commands.iter().find_map(|c| match c {
        Command::Move { text, .. } => Some(text.clone()),
        _ => None,
    });
    let Some(text) = vote else {
        if member.captain {
            // Resigning, draws, status: the captain speaks for the side.
            return Ok(None);
        }
        let captain = members
            .of(member.side)
            .find(|(m, _)| m.captain)
            .map(|(_, p)| p.name.clone())
            .unwrap_or_default();
        let kind = LetterKind::Rejected {
            wrote: command::describe(commands, voter.lang),
            reason: Reason::MembersVote { game, captain },
            kind: RejectionKind::Other,
        };
        refuse(inbox, tx, voter, kind, answering, now).await?;
        return Ok(Some(Handled::Done(Done::Refused(Refused::NotCaptain {
            member: voter.email.to_string(),
        }))));
    };
    if table.record.status == GameStatus::Active && table.game.turn() != member.side {
        let kind = LetterKind::Rejected {
            wrote: text.as_str().to_string(),
            reason: Reason::NotYourSidesMove {
                game,
                team: member.team.clone(),
            },
            kind: RejectionKind::Other,
        };
        refuse(inbox, tx, voter, kind, answering, now).await?;
        return Ok(Some(Handled::Done(Done::Refused(Refused::VoteOutOfTurn))));
    }
    // Judged as the side's move, in the voter's words, without playing it.
    let ply = table.game.plies().len();
    let ballot = [Command::Move {
        text,
        offer_draw: false,
    }];
    let (ruling, table) = inbox
        .hear_as(tx, table.clone(), voter, member.side, &ballot, times)
        .await?;
    let mut legal = None;
    for step in &ruling.steps {
        match step {
            Step::Play(verdict) if verdict.changed && verdict.game.plies().len() > ply => {
                legal = verdict.game.plies().get(ply).cloned();
            }
            Step::Play(verdict) => {
                for notice in &verdict.notices {
                    if let Notice::Rejected {
                        wrote,
                        reason,
                        kind,
                        ..
                    } = notice
                    {
                        let kind = LetterKind::Rejected {
                            wrote: wrote.clone(),
                            reason: reason.clone(),
                            kind: *kind,
                        };
                        refuse(inbox, tx, voter, kind, answering, now).await?;
                        return Ok(Some(Handled::Done(Done::VoteRefused(
                            verdict.summary.clone(),
                        ))));
                    }
                }
            }
            // Out of time: the game ends on time as it would for a move.
            Step::EndOnTime { .. } => {
                let captain = table.player(member.side).clone();
                return Box::pin(inbox.carry_out(
                    tx,
                    ruling,
                    &captain,
                    Some(table),
                    answering,
                    now,
                ))
                .await
                .map(Some);
            }
            _ => {}
        }
    }
    let Some(chosen) = legal else {
        return Ok(Some(Handled::Ignored(Ignored::VoteUnplayable)));
    };
    let ply = i64::try_from(ply).unwrap_or(i64::MAX);
    let changed = tx
        .cast_vote(game, ply, voter.id, (&chosen.uci, &chosen.san), times.1)
        .await?;
    let stored = tx.votes(game).await?;
    let votes = votes_at(&stored, ply, members);
    let counts = tally::tally(&votes);
    let (hours, closes) = tx.consultation(game).await?.unwrap_or((0, None));
    let side_ids: Vec<i64> = members.of(member.side).map(|(m, _)| m.player.0).collect();
    let news = VoteNews {
        what: "counted",
        team: member.team.clone(),
        played: Some(san_in(
            table.game.position(),
            &table.game,
            &chosen.uci,
            voter.lang,
        )),
        changed,
        votes_for: 0,
        votes: lines(&counts, table.game.position(), &table, voter.lang),
        voted: u32::try_from(votes.len()).unwrap_or(u32::MAX),
        members: u32::try_from(side_ids.len()).unwrap_or(u32::MAX),
        closes: closes.map(|c| crate::domain::locale::describe_deadline(c, voter.tz, voter.lang)),
    };
    inbox
        .post
        .queue(
            tx,
            Outgoing::new(answering.key("vote"), LetterKind::Vote { news }, voter)
                .about(&table, member.side)
                .answering(answering)
                .reply_to(inbox.post.reply_to(game, voter)),
            now,
        )
        .await?;
    // Everyone voted, or the deadline passed with no vote before this one
    // (the clock ran on): the move is made now.
    let late = closes.is_none_or(|c| c <= now);
    if tally::everyone_voted(&votes, &side_ids) || late {
        // Boxed: a move that ends the game nests deep (the game-over mails),
        // too deep for a thread's stack as one future.
        Box::pin(decide(inbox, tx, game, times.1, hours, now)).await?;
    }
    Ok(Some(Handled::Done(Done::VoteCounted {
        san: chosen.san.clone(),
        voted: votes.len(),
        members: side_ids.len(),
    })))
}

async fn refuse(
    inbox: &Inbox,
    tx: &mut Tx,
    to: &Player,
    kind: LetterKind,
    answering: &Answering<'_>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let answer = Outgoing::new(answering.key("vote"), kind, to).answering(answering);
    inbox.post.answer(tx, answer, now).await?;
    Ok(())
}

/// Makes the move of the side to move by its votes, as its captain's move
/// played at `at`; tells the side what was played and by how many votes,
/// and asks the other side for its votes. With no votes nothing is made
/// and no deadline stays set: the side's clock runs on (to a loss on time
/// unless a member votes first, which then makes the move). `vote_hours`:
/// how long the next side's votes stay open.
pub(crate) async fn decide(
    inbox: &Inbox,
    tx: &mut Tx,
    game: GameId,
    at: DateTime<Utc>,
    vote_hours: u32,
    now: DateTime<Utc>,
) -> Result<Option<String>, ServiceError> {
    let table = load_table(tx, game).await?;
    if table.record.status != GameStatus::Active || table.game.is_over() {
        tx.set_votes_close_at(game, None).await?;
        return Ok(None);
    }
    let members = table.members.clone();
    let side = table.game.turn();
    let ply = table.game.plies().len();
    let stored = tx.votes(game).await?;
    let votes = votes_at(&stored, i64::try_from(ply).unwrap_or(i64::MAX), &members);
    let counts = tally::tally(&votes);
    let Some(winner) = counts.first().cloned() else {
        tx.set_votes_close_at(game, None).await?;
        return Ok(None);
    };
    let before = table.game.position().clone();
    let Some(text) = MoveText::new(&winner.uci) else {
        return Err(StoreError::Corrupt(format!("game {game}: a vote '{}'", winner.uci)).into());
    };
    let captain = table.player(side).clone();
    let mail_key = format!("vote.g{}.p{ply}", game.0);
    let answering = Answering {
        mail_key: &mail_key,
        message_id: None,
    };
    // The game-over mail's PGN, made as the move is told, carries its votes.
    let mut table = table;
    table.vote_remarks.push(remark(ply, &counts));
    let (mut ruling, table) = inbox
        .hear_as(
            tx,
            table,
            &captain,
            side,
            &[Command::Move {
                text,
                offer_draw: false,
            }],
            (at, at),
        )
        .await?;
    // The side hears of its move from the vote mails below, and the other
    // side is asked for its votes: not the one-player mails.
    for step in &mut ruling.steps {
        if let Step::Play(verdict) = step {
            verdict
                .notices
                .retain(|n| !matches!(n, Notice::MoveAccepted { .. } | Notice::YourMove { .. }));
        }
    }
    Box::pin(inbox.carry_out(tx, ruling, &captain, Some(table), &answering, now)).await?;
    let table = load_table(tx, game).await?;
    if table.game.plies().len() <= ply {
        // Not played (the side was out of time): the game is over or goes on as it is.
        tx.set_votes_close_at(game, None).await?;
        return Ok(None);
    }
    let voted = u32::try_from(votes.len()).unwrap_or(u32::MAX);
    let count = u32::try_from(members.of(side).count()).unwrap_or(u32::MAX);
    for (_, player) in members.of(side) {
        let news = VoteNews {
            what: "decided",
            team: members.team(side),
            played: Some(numbered(&before, &table, &winner.uci, player.lang)),
            changed: false,
            votes_for: winner.votes,
            votes: lines(&counts, &before, &table, player.lang),
            voted,
            members: count,
            closes: None,
        };
        inbox
            .post
            .queue(
                tx,
                Outgoing::new(
                    format!("g{}.p{ply}.vote.decided.m{}", game.0, player.id.0),
                    LetterKind::Vote { news },
                    player,
                )
                .about(&table, side)
                .reply_to(inbox.post.reply_to(game, player)),
                now,
            )
            .await?;
    }
    if table.record.status == GameStatus::Active && !table.game.is_over() {
        let closes = closes_at(&table, vote_hours, now);
        tx.set_votes_close_at(game, Some(closes)).await?;
        open_votes(tx, &inbox.post, &table, &members, closes, now).await?;
    } else {
        tx.set_votes_close_at(game, None).await?;
    }
    Ok(Some(format!(
        "{} played by {} of {} vote(s)",
        winner.san, winner.votes, voted
    )))
}

/// `12... Nf6`: the move numbered, in the member's letters.
fn numbered(before: &shakmaty::Chess, table: &LoadedGame, uci: &str, lang: Lang) -> String {
    let san = san_in(before, &table.game, uci, lang);
    let number = before.fullmoves().get();
    match before.turn() {
        Color::White => format!("{number}. {san}"),
        Color::Black => format!("{number}... {san}"),
    }
}

/// The consultation games whose votes closed by `now` (for the daemon,
/// which makes each one's move with [`close_one`]).
pub async fn closed_votes(
    store: &crate::adapter::store::Store,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, StoreError> {
    let mut tx = store.begin().await?;
    let due = tx.votes_closed(now).await?;
    tx.commit().await?;
    Ok(due)
}

/// Makes the move of a consultation game whose votes closed, by its
/// votes, in a transaction of its own; what was played, if anything.
pub async fn close_one(
    store: &crate::adapter::store::Store,
    inbox: &Inbox,
    game: GameId,
    now: DateTime<Utc>,
) -> Result<Option<String>, ServiceError> {
    let mut tx = store.begin().await?;
    // Locked and read again: a last vote may have made the move meanwhile.
    tx.game_for_update(game).await?;
    let Some((hours, Some(closes))) = tx.consultation(game).await? else {
        return Ok(None);
    };
    if closes > now {
        return Ok(None);
    }
    let done = decide(inbox, &mut tx, game, closes, hours, now).await?;
    super::crash_point("before-votes-commit");
    tx.commit().await?;
    Ok(done)
}
