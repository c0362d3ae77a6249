//! Consultation games (`consultation_games`, `consultation_members`,
//! `consultation_votes`): who votes for each side, when a side's votes
//! close, and every vote, kept after its move for the PGN and the pages.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use super::{StoreError, Tx, from_millis, to_millis};
use crate::domain::chess::side;
use crate::domain::ids::GameId;
use crate::domain::player::PlayerId;

/// A member of a side, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The side they vote for.
    pub side: Color,
    /// The member.
    pub player: PlayerId,
    /// Whether they are the side's captain.
    pub captain: bool,
    /// Their team's name.
    pub team: String,
}

/// A vote as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredVote {
    /// The half-move it is for (counted from 0).
    pub ply: i64,
    /// Who voted.
    pub player: PlayerId,
    /// The move in UCI.
    pub uci: String,
    /// The move in English SAN.
    pub san: String,
    /// When the vote as it stands was cast.
    pub voted_at: DateTime<Utc>,
    /// How often it was changed.
    pub changes: i64,
}

fn side_of(game: GameId, key: &str) -> Result<Color, StoreError> {
    side::from_key(key)
        .ok_or_else(|| StoreError::Corrupt(format!("game {game}: a member of side '{key}'")))
}

impl Tx {
    /// Makes `game` a consultation game whose first votes close at `closes_at`.
    pub async fn add_consultation(
        &mut self,
        game: GameId,
        vote_hours: u32,
        closes_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO consultation_games (game_id, vote_hours, votes_close_at) \
             VALUES ($1, $2, $3)",
        )
        .bind(game.0)
        .bind(i64::from(vote_hours))
        .bind(to_millis(closes_at))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// Adds a member to a side of a consultation game.
    pub async fn add_consultation_member(
        &mut self,
        game: GameId,
        member: &Member,
        position: usize,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "INSERT INTO consultation_members (game_id, side, player_id, captain, team, position) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(game.0)
        .bind(side::key(member.side))
        .bind(member.player.0)
        .bind(i64::from(member.captain))
        .bind(member.team.as_str())
        .bind(i64::try_from(position).unwrap_or(i64::MAX))
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }

    /// How long a consultation game's votes stay open and when the open
    /// vote closes; `None` when `game` is no consultation game.
    pub async fn consultation(
        &mut self,
        game: GameId,
    ) -> Result<Option<(u32, Option<DateTime<Utc>>)>, StoreError> {
        let Some(row) = super::sql::query(
            "SELECT vote_hours, votes_close_at FROM consultation_games WHERE game_id = $1",
        )
        .bind(game.0)
        .fetch_optional(&mut self.tx)
        .await?
        else {
            return Ok(None);
        };
        let hours: i64 = row.try_get("vote_hours")?;
        let closes: Option<i64> = row.try_get("votes_close_at")?;
        Ok(Some((
            super::small(hours, "vote_hours")?,
            closes.map(from_millis).transpose()?,
        )))
    }

    /// Sets when the open vote of a consultation game closes (`None`: no
    /// vote is open, the game is over).
    pub async fn set_votes_close_at(
        &mut self,
        game: GameId,
        closes_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        super::sql::query("UPDATE consultation_games SET votes_close_at = $2 WHERE game_id = $1")
            .bind(game.0)
            .bind(closes_at.map(to_millis))
            .execute(&mut self.tx)
            .await?;
        Ok(())
    }

    /// The consultation games whose open vote closed by `now`.
    pub async fn votes_closed(&mut self, now: DateTime<Utc>) -> Result<Vec<GameId>, StoreError> {
        super::sql::query(
            "SELECT game_id FROM consultation_games WHERE votes_close_at <= $1 ORDER BY game_id",
        )
        .bind(to_millis(now))
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(GameId(r.try_get("game_id")?)))
        .collect()
    }

    /// Every member of both sides, in the file's order (White's first).
    pub async fn consultation_members(&mut self, game: GameId) -> Result<Vec<Member>, StoreError> {
        super::sql::query(
            "SELECT side, player_id, captain, team FROM consultation_members \
             WHERE game_id = $1 ORDER BY position",
        )
        .bind(game.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            let key: String = r.try_get("side")?;
            let captain: i64 = r.try_get("captain")?;
            Ok(Member {
                side: side_of(game, &key)?,
                player: PlayerId(r.try_get("player_id")?),
                captain: captain != 0,
                team: r.try_get("team")?,
            })
        })
        .collect()
    }

    /// Casts or changes a member's vote on half-move `ply`; returns whether
    /// it changed an earlier one.
    pub async fn cast_vote(
        &mut self,
        game: GameId,
        ply: i64,
        player: PlayerId,
        (uci, san): (&str, &str),
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let changed = super::sql::query(
            "UPDATE consultation_votes SET uci = $4, san = $5, voted_at = $6, \
             changes = changes + 1 WHERE game_id = $1 AND ply = $2 AND player_id = $3",
        )
        .bind(game.0)
        .bind(ply)
        .bind(player.0)
        .bind(uci)
        .bind(san)
        .bind(to_millis(at))
        .execute(&mut self.tx)
        .await?
        .rows_affected()
            > 0;
        if !changed {
            super::sql::query(
                "INSERT INTO consultation_votes (game_id, ply, player_id, uci, san, voted_at) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(game.0)
            .bind(ply)
            .bind(player.0)
            .bind(uci)
            .bind(san)
            .bind(to_millis(at))
            .execute(&mut self.tx)
            .await?;
        }
        Ok(changed)
    }

    /// The votes of a game, by half-move, in the order they stand.
    pub async fn votes(&mut self, game: GameId) -> Result<Vec<StoredVote>, StoreError> {
        super::sql::query(
            "SELECT ply, player_id, uci, san, voted_at, changes FROM consultation_votes \
             WHERE game_id = $1 ORDER BY ply, voted_at, player_id",
        )
        .bind(game.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(StoredVote {
                ply: r.try_get("ply")?,
                player: PlayerId(r.try_get("player_id")?),
                uci: r.try_get("uci")?,
                san: r.try_get("san")?,
                voted_at: from_millis(r.try_get("voted_at")?)?,
                changes: r.try_get("changes")?,
            })
        })
        .collect()
    }
}
