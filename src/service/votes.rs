//! The votes of consultation games as stored, read the way the rest of the
//! service needs them: each side's members, the votes on one half-move as
//! the tally counts them, and the PGN comments of the moves they chose.
//! Only reads, and below the game loader (`service::loaded_game`, which
//! carries the members and the PGN comments), so that hearing votes (`service::consultation`) and starting
//! the game (`service::td::consultation`) can both build on it.

use shakmaty::Color;

use crate::adapter::store::StoreError;
use crate::adapter::store::Tx;
use crate::adapter::store::consultation::{Member, StoredVote};
use crate::domain::event::consultation::{self as tally, Vote};
use crate::domain::ids::GameId;
use crate::domain::player::Player;

/// A game's sides as stored: each member with their player row.
#[derive(Debug, Clone, Default)]
pub struct Members(pub(crate) Vec<(Member, Player)>);

impl Members {
    pub(crate) async fn load(tx: &mut Tx, game: GameId) -> Result<Members, StoreError> {
        let mut out = Vec::new();
        for m in tx.consultation_members(game).await? {
            let player = tx.player(m.player).await?;
            out.push((m, player));
        }
        Ok(Members(out))
    }

    pub(crate) fn of(&self, side: Color) -> impl Iterator<Item = &(Member, Player)> {
        self.0.iter().filter(move |(m, _)| m.side == side)
    }

    pub(crate) fn team(&self, side: Color) -> String {
        self.of(side)
            .next()
            .map(|(m, _)| m.team.clone())
            .unwrap_or_default()
    }
}

/// The votes on half-move `ply` as the tally reads them.
pub(crate) fn votes_at(stored: &[StoredVote], ply: i64, members: &Members) -> Vec<Vote> {
    stored
        .iter()
        .filter(|v| v.ply == ply)
        .filter_map(|v| {
            let (member, player) = members.0.iter().find(|(m, _)| m.player == v.player)?;
            Some(Vote {
                voter: v.player.0,
                name: player.name.clone(),
                captain: member.captain,
                uci: v.uci.clone(),
                san: v.san.clone(),
                voted_at: v.voted_at,
            })
        })
        .collect()
}

/// Every decided move's PGN comment in a game of `played` half-moves, by
/// the half-moves played before the comment: the votes that chose the
/// move. None in any other game.
pub async fn vote_remarks(
    tx: &mut Tx,
    members: &Members,
    game: GameId,
    played: usize,
) -> Result<Vec<crate::domain::chess::pgn::Remark>, StoreError> {
    if members.0.is_empty() {
        return Ok(Vec::new());
    }
    let stored = tx.votes(game).await?;
    let mut plies: Vec<i64> = stored.iter().map(|v| v.ply).collect();
    plies.dedup();
    Ok(plies
        .into_iter()
        .filter_map(|ply| {
            let at = usize::try_from(ply).ok()?;
            // Only a move that was made: an open vote stays the side's own.
            (at < played).then(|| remark(at, &tally::tally(&votes_at(&stored, ply, members))))
        })
        .collect())
}

pub(crate) fn remark(ply: usize, counts: &[tally::Count]) -> crate::domain::chess::pgn::Remark {
    crate::domain::chess::pgn::Remark {
        after: ply + 1,
        text: tally::pgn_comment(counts),
    }
}
