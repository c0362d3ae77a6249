//! Games and their moves.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AssertSqlSafe, Row};

use super::{Store, StoreError, from_millis};
use shakmaty::Color;

use crate::arbiter::{Conditionals, LastOffers};
use crate::chess::game::{Game, GameResult, Outcome, StartPosition};
use crate::chess::side;
use crate::clock::TimeControl;
use crate::ids::GameId;
use crate::player::PlayerId;

/// Where a game is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// Being played.
    Active,
    /// Over, with a result.
    Finished,
}

/// The rules variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Standard chess.
    Standard,
    /// Chess960 (Fischer random).
    Chess960,
}

impl Variant {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        }
    }
}

/// A game to be created.
#[derive(Debug, Clone)]
pub struct NewGame {
    /// White.
    pub white: PlayerId,
    /// Black.
    pub black: PlayerId,
    /// Where the game starts.
    pub start: StartPosition,
    /// The time control.
    pub time_control: TimeControl,
}

/// One stored half-move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoredMove {
    /// Half-move number, from 1.
    pub ply: i64,
    /// The move in UCI.
    pub uci: String,
    /// The move in English SAN.
    pub san: String,
    /// When the mail with the move reached our mailbox.
    pub received_at: Option<DateTime<Utc>>,
    /// When the opponent was sent the move.
    pub sent_at: Option<DateTime<Utc>>,
}

/// A game as stored.
#[derive(Debug, Clone, Serialize)]
pub struct GameRecord {
    /// The game's number.
    pub id: GameId,
    /// White.
    pub white: PlayerId,
    /// Black.
    pub black: PlayerId,
    /// The rules variant.
    pub variant: Variant,
    /// For Chess960: the starting position's number.
    pub chess960_number: Option<u16>,
    /// The starting position, when not the standard one.
    pub start_fen: Option<String>,
    /// The time control.
    pub time_control: TimeControl,
    /// Active or finished.
    pub status: GameStatus,
    /// `1-0`, `0-1` or `1/2-1/2` once finished.
    pub result: Option<String>,
    /// Why the game ended.
    pub end_reason: Option<String>,
    /// When the game was created.
    pub created_at: DateTime<Utc>,
    /// When the game ended.
    pub finished_at: Option<DateTime<Utc>>,
    /// The side with a standing draw offer.
    #[serde(serialize_with = "serialize_color")]
    pub draw_offer_by: Option<Color>,
    /// Conditional moves (hidden from the opponent, so never shown).
    #[serde(skip)]
    pub conditionals: Conditionals,
    /// When each side last offered a draw.
    #[serde(skip)]
    pub last_offers: LastOffers,
    /// The moves so far.
    pub moves: Vec<StoredMove>,
}

fn serialize_color<S: serde::Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
    match c {
        Some(c) => s.serialize_some(side::key(*c)),
        None => s.serialize_none(),
    }
}

fn color_from_name(name: &str) -> Result<Color, StoreError> {
    side::from_key(name).ok_or_else(|| corrupt(format!("unknown colour '{name}'")))
}

impl GameRecord {
    /// Where the game started.
    pub fn start(&self) -> StartPosition {
        match (self.chess960_number, &self.start_fen) {
            (Some(n), _) => StartPosition::Chess960(n),
            (None, Some(fen)) => StartPosition::Fen(fen.clone()),
            (None, None) => StartPosition::Standard,
        }
    }

    /// The player of a colour.
    pub fn player_of(&self, side: Color) -> PlayerId {
        match side {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    /// The colour a player has in this game, if they play in it.
    pub fn side_of(&self, player: PlayerId) -> Option<Color> {
        if player == self.white {
            Some(Color::White)
        } else if player == self.black {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The game in the rules core: the moves replayed from the start, with
    /// their times, and the stored ending if it was not on the board.
    pub fn to_game(&self) -> Result<Game, StoreError> {
        let ucis: Vec<&str> = self.moves.iter().map(|m| m.uci.as_str()).collect();
        let mut game = Game::replay(self.start(), &ucis)
            .map_err(|e| corrupt(format!("game {}: {e}", self.id)))?;
        for (i, m) in self.moves.iter().enumerate() {
            if let Some(at) = m.received_at {
                game.set_received_at(i, at).map_err(corrupt)?;
            }
            if let Some(at) = m.sent_at {
                game.set_sent_at(i, at).map_err(corrupt)?;
            }
        }
        if let (Some(result), Some(reason)) = (&self.result, &self.end_reason) {
            let result = GameResult::from_pgn(result)
                .ok_or_else(|| corrupt(format!("game {}: result '{result}'", self.id)))?;
            let outcome = Outcome::from_description(result, reason)
                .ok_or_else(|| corrupt(format!("game {}: ending '{reason}'", self.id)))?;
            game.restore_outcome(outcome);
        }
        Ok(game)
    }
}

pub(super) const COLUMNS: &str = "id, white_id, black_id, variant, chess960_number, start_fen, time_control, \
                       status, result, end_reason, created_at, finished_at, draw_offer_by, conditionals, \
                       white_offer_ply, black_offer_ply";

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(what.to_string())
}

pub(super) fn from_row(row: &AnyRow) -> Result<GameRecord, StoreError> {
    let variant = match row.try_get::<String, _>("variant")?.as_str() {
        "standard" => Variant::Standard,
        "chess960" => Variant::Chess960,
        other => return Err(corrupt(format!("unknown variant '{other}'"))),
    };
    let status = match row.try_get::<String, _>("status")?.as_str() {
        "active" => GameStatus::Active,
        "finished" => GameStatus::Finished,
        other => return Err(corrupt(format!("unknown game status '{other}'"))),
    };
    let number: Option<i64> = row.try_get("chess960_number")?;
    let control: String = row.try_get("time_control")?;
    Ok(GameRecord {
        id: GameId(row.try_get("id")?),
        white: PlayerId(row.try_get("white_id")?),
        black: PlayerId(row.try_get("black_id")?),
        variant,
        chess960_number: number
            .map(|n| u16::try_from(n).map_err(corrupt))
            .transpose()?,
        start_fen: row.try_get("start_fen")?,
        time_control: control.parse().map_err(corrupt)?,
        status,
        result: row.try_get("result")?,
        end_reason: row.try_get("end_reason")?,
        created_at: from_millis(row.try_get("created_at")?)?,
        finished_at: row
            .try_get::<Option<i64>, _>("finished_at")?
            .map(from_millis)
            .transpose()?,
        draw_offer_by: row
            .try_get::<Option<String>, _>("draw_offer_by")?
            .map(|c| color_from_name(&c))
            .transpose()?,
        conditionals: match row.try_get::<Option<String>, _>("conditionals")? {
            Some(json) => serde_json::from_str(&json).map_err(corrupt)?,
            None => Conditionals::default(),
        },
        last_offers: LastOffers {
            white: offer_ply(row, "white_offer_ply")?,
            black: offer_ply(row, "black_offer_ply")?,
        },
        moves: Vec::new(),
    })
}

fn offer_ply(row: &AnyRow, column: &str) -> Result<Option<u32>, StoreError> {
    row.try_get::<Option<i64>, _>(column)?
        .map(|p| u32::try_from(p).map_err(corrupt))
        .transpose()
}

pub(super) fn move_from_row(row: &AnyRow) -> Result<StoredMove, StoreError> {
    Ok(StoredMove {
        ply: row.try_get("ply")?,
        uci: row.try_get("uci")?,
        san: row.try_get("san")?,
        received_at: row
            .try_get::<Option<i64>, _>("received_at")?
            .map(from_millis)
            .transpose()?,
        sent_at: row
            .try_get::<Option<i64>, _>("sent_at")?
            .map(from_millis)
            .transpose()?,
    })
}

impl Store {
    /// A game with its moves.
    pub async fn game(&self, id: GameId) -> Result<GameRecord, StoreError> {
        let row = sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM games WHERE id = $1"
        )))
        .bind(id.0)
        .fetch_optional(self.pool())
        .await?
        .ok_or(StoreError::UnknownGame(id.0))?;
        let mut game = from_row(&row)?;
        game.moves = sqlx::query(
            "SELECT ply, uci, san, received_at, sent_at FROM moves WHERE game_id = $1 ORDER BY ply",
        )
        .bind(id.0)
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(move_from_row)
        .collect::<Result<_, _>>()?;
        Ok(game)
    }

    /// Games by number, without their moves; only active ones if asked.
    pub async fn games(&self, active_only: bool) -> Result<Vec<GameRecord>, StoreError> {
        let filter = if active_only {
            "WHERE status = 'active'"
        } else {
            ""
        };
        sqlx::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM games {filter} ORDER BY id"
        )))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(from_row)
        .collect()
    }
}
