//! Starting a consultation event's one game (vote chess): the members
//! stored with their sides, the first side asked for its votes. Hearing
//! and deciding the votes is `service::consultation`'s.

use crate::service::ServiceError;
use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::{StoredEvent, TdError};
use crate::adapter::mail::compose::{LetterKind, VoteNews};
use crate::adapter::store::Tx;
use crate::adapter::store::consultation::Member;
use crate::domain::event::consultation::{self as tally, Sides};
use crate::domain::ids::GameId;
use crate::service::loaded_game::{LoadedGame, load_table};
use crate::service::post::{Outgoing, Post};
use crate::service::votes::Members;

/// Starts a consultation event's one game: White is the first team (its
/// captain the game's White), every member is stored with their side,
/// White's members are asked for their votes and Black's told the game
/// started; marks the event started.
pub(crate) async fn start(
    tx: &mut Tx,
    post: &Post,
    ev: &StoredEvent,
    sides: &Sides,
    now: DateTime<Utc>,
) -> Result<Vec<GameId>, TdError> {
    let mut captains = Vec::new();
    for team in &sides.teams {
        let captain = tx
            .player_by_email(team.captain.as_str())
            .await?
            .ok_or_else(|| {
                TdError::Refused(format!("the captain {} is no player", team.captain))
            })?;
        captains.push(captain);
    }
    let game =
        super::pairings::event_game(ev, captains[0].id, captains[1].id, ev.event.start.clone());
    let id = tx.add_game(&game, now).await?;
    tx.link_game(id, ev.record.id, 1, 1).await?;
    let mut position = 0;
    for (team, side) in sides.teams.iter().zip([Color::White, Color::Black]) {
        for entrant in &team.members {
            let player = tx
                .player_by_email(entrant.email.as_str())
                .await?
                .ok_or_else(|| TdError::Refused(format!("{} is no player", entrant.email)))?;
            let member = Member {
                side,
                player: player.id,
                captain: entrant.email == team.captain,
                team: team.name.clone(),
            };
            tx.add_consultation_member(id, &member, position).await?;
            position += 1;
        }
    }
    let table = load_table(tx, id).await?;
    let closes = closes_at(&table, sides.vote_hours, now);
    tx.add_consultation(id, sides.vote_hours, closes).await?;
    let members = Members::load(tx, id).await?;
    let to_move = table.game.turn();
    post.to_player(
        tx,
        format!(
            "g{}.start.{}",
            id.0,
            crate::domain::chess::side::key(!to_move)
        ),
        LetterKind::GameStarted,
        &table,
        !to_move,
        now,
    )
    .await?;
    open_votes(tx, post, &table, &members, closes, now).await?;
    crate::service::schedule::reschedule(tx, &table, None, now).await?;
    tx.set_event_started(ev.record.id, now).await?;
    Ok(vec![id])
}

/// When the votes of the side to move close if it is told now.
pub(crate) fn closes_at(table: &LoadedGame, vote_hours: u32, now: DateTime<Utc>) -> DateTime<Utc> {
    let flag = table.clock.as_ref().and_then(|c| {
        let clocks = c.clocks(now);
        clocks.players.get(clocks.to_move).next_deadline
    });
    tally::votes_close_at(now, vote_hours, flag)
}

/// Asks every member of the side to move for their vote.
pub(crate) async fn open_votes(
    tx: &mut Tx,
    post: &Post,
    table: &LoadedGame,
    members: &Members,
    closes: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let side = table.game.turn();
    let ply = table.game.plies().len();
    let count = u32::try_from(members.of(side).count()).unwrap_or(u32::MAX);
    for (_, player) in members.of(side) {
        let news = VoteNews {
            what: "open",
            team: members.team(side),
            played: None,
            changed: false,
            votes_for: 0,
            votes: Vec::new(),
            voted: 0,
            members: count,
            closes: Some(crate::domain::locale::describe_deadline(
                closes,
                player.tz,
                player.lang,
            )),
        };
        post.queue(
            tx,
            Outgoing::new(
                format!("g{}.p{ply}.vote.open.m{}", table.record.id.0, player.id.0),
                LetterKind::Vote { news },
                player,
            )
            .about(table, side)
            .reply_to(post.reply_to(table.record.id, player))
            .after_ply(i64::try_from(ply).ok()),
            now,
        )
        .await?;
    }
    Ok(())
}
