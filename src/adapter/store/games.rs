//! Games and their moves.

use super::sql::{AssertSqlSafe, Row};
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Backend, Store, StoreError, Tx, corrupt, from_millis, small, to_millis};
use shakmaty::Color;

use crate::domain::arbiter::{Conditionals, LastOffers};
use crate::domain::chess::game::{Game, GameResult, Outcome, StartPosition};
use crate::domain::chess::side;
use crate::domain::clock::TimeControl;
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::PlayerId;

/// Where a game is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    /// Being played.
    Active,
    /// Over, with a result.
    Finished,
}

/// The rules variant: a word of the core, stored as its name.
pub use crate::domain::chess::game::Variant;

/// A variant's name in the `variant` column.
fn variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Standard => "standard",
        Variant::Chess960 => "chess960",
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
    /// The thematic line the game starts with (UCI moves played from
    /// `start`, stored as its first moves); empty for none.
    pub opening: Vec<String>,
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
    /// The event it is played in, if any (read with the game: asked for
    /// on every move, it cost a statement of its own each time).
    pub event: Option<EventId>,
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
    /// How many of the first moves are the event's thematic line.
    pub opening_plies: u32,
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

    /// The TD's cancellation of the game, if a TD cancelled it.
    pub fn cancellation(&self) -> Option<crate::domain::chess::outcome::Cancellation> {
        if self.result.is_some() {
            return None;
        }
        self.end_reason
            .as_deref()
            .and_then(crate::domain::chess::outcome::Cancellation::read)
    }

    /// Whether a TD cancelled the game (finished with no result and a
    /// cancellation as its ending).
    pub fn is_cancelled(&self) -> bool {
        self.status == GameStatus::Finished && self.cancellation().is_some()
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
        let opening = usize::try_from(self.opening_plies).unwrap_or(usize::MAX);
        game.set_opening_plies(opening)
            .map_err(|e| corrupt(format!("game {}: thematic line: {e}", self.id)))?;
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
                       white_offer_ply, black_offer_ply, event_id, opening_plies";

pub(super) fn from_row(row: &Row) -> Result<GameRecord, StoreError> {
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
        event: row.try_get::<Option<i64>, _>("event_id")?.map(EventId),
        white: PlayerId(row.try_get("white_id")?),
        black: PlayerId(row.try_get("black_id")?),
        variant,
        chess960_number: number
            .map(|n| u16::try_from(n).map_err(corrupt))
            .transpose()?,
        start_fen: row.try_get("start_fen")?,
        opening_plies: u32::try_from(row.try_get::<i64, _>("opening_plies")?).map_err(corrupt)?,
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

fn offer_ply(row: &Row, column: &str) -> Result<Option<u32>, StoreError> {
    row.try_get::<Option<i64>, _>(column)?
        .map(|p| u32::try_from(p).map_err(corrupt))
        .transpose()
}

pub(super) fn move_from_row(row: &Row) -> Result<StoredMove, StoreError> {
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
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM games WHERE id = $1"
        )))
        .bind(id.0)
        .fetch_optional(self.pool())
        .await?
        .ok_or(StoreError::UnknownGame(id.0))?;
        let mut game = from_row(&row)?;
        game.moves = super::sql::query(
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

    /// The active games (of one event, or all) that may have no more than
    /// `men` men on the board, by number, without building a position: a
    /// game from the usual start (or a Chess960 one) has 32 men less one per
    /// capture, and a capture's SAN is the one with an `x`, so the count is
    /// an index range of its moves read inside the database; a game from a
    /// FEN (thematic and endgame events, few) is always a candidate.
    pub async fn games_near_the_tables(
        &self,
        men: u32,
        event: Option<crate::domain::ids::EventId>,
    ) -> Result<Vec<GameId>, StoreError> {
        let captures = 32i64.saturating_sub(i64::from(men));
        let filter = if event.is_some() {
            "AND g.event_id = $2"
        } else {
            ""
        };
        let mut query = super::sql::query(AssertSqlSafe(format!(
            "SELECT g.id FROM games g WHERE g.status = 'active' {filter} AND \
             (g.start_fen IS NOT NULL OR \
              (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id AND m.san LIKE '%x%') >= $1) \
             ORDER BY g.id"
        )))
        .bind(captures);
        if let Some(e) = event {
            query = query.bind(e.0);
        }
        query
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|row| Ok(GameId(row.try_get("id")?)))
            .collect()
    }

    /// Games by number, without their moves; only active ones if asked.
    pub async fn games(&self, active_only: bool) -> Result<Vec<GameRecord>, StoreError> {
        let filter = if active_only {
            "WHERE status = 'active'"
        } else {
            ""
        };
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM games {filter} ORDER BY id"
        )))
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(from_row)
        .collect()
    }

    /// [`Store::games`] with every game's moves: two queries, however many
    /// games (a listing that shows moves must not show `[]` for a game that
    /// has them).
    pub async fn games_with_moves(&self, active_only: bool) -> Result<Vec<GameRecord>, StoreError> {
        let mut games = self.games(active_only).await?;
        let filter = if active_only {
            "WHERE g.status = 'active'"
        } else {
            ""
        };
        let rows = super::sql::query(AssertSqlSafe(format!(
            "SELECT m.game_id, m.ply, m.uci, m.san, m.received_at, m.sent_at \
             FROM moves m JOIN games g ON g.id = m.game_id {filter} ORDER BY m.game_id, m.ply"
        )))
        .fetch_all(self.pool())
        .await?;
        let index: std::collections::HashMap<i64, usize> =
            games.iter().enumerate().map(|(i, g)| (g.id.0, i)).collect();
        for row in &rows {
            let id: i64 = row.try_get("game_id")?;
            // A game added between the two queries has no record here yet.
            if let Some(game) = index.get(&id).and_then(|&i| games.get_mut(i)) {
                game.moves.push(move_from_row(row)?);
            }
        }
        Ok(games)
    }
}

/// A game in progress, as a notice about one of its players lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameLine {
    /// The game.
    pub game: crate::domain::ids::GameId,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Its event and the event's name, if it is one's.
    pub event: Option<(crate::domain::ids::EventId, String)>,
}

/// One game of an event, with its round and board.
#[derive(Debug, Clone)]
pub struct EventGame {
    /// The game (without its moves).
    pub game: GameRecord,
    /// Round, from 1.
    pub round: u32,
    /// Board, from 1.
    pub board: u32,
    /// Whether a withdrawal closed it (standings then apply the event's rule).
    pub closed_by_withdrawal: bool,
}

impl Tx {
    /// Creates a game; it starts active with no moves.
    pub async fn add_game(
        &mut self,
        g: &NewGame,
        now: DateTime<Utc>,
    ) -> Result<GameId, StoreError> {
        let (variant, number, fen) = match &g.start {
            crate::domain::chess::game::StartPosition::Standard => {
                (super::games::Variant::Standard, None, None)
            }
            crate::domain::chess::game::StartPosition::Chess960(n) => (
                super::games::Variant::Chess960,
                Some(i64::from(*n)),
                Some(
                    g.start
                        .to_fen()
                        .map_err(|e| StoreError::Corrupt(e.to_string()))?,
                ),
            ),
            crate::domain::chess::game::StartPosition::Fen(fen) if g.start.is_chess960() => {
                (super::games::Variant::Chess960, None, Some(fen.clone()))
            }
            crate::domain::chess::game::StartPosition::Fen(fen) => {
                (super::games::Variant::Standard, None, Some(fen.clone()))
            }
        };
        // The thematic line is checked here too: a stored game always replays.
        let opening = Game::replay(g.start.clone(), &g.opening)
            .map_err(|e| StoreError::Corrupt(format!("thematic line: {e}")))?;
        let row = super::sql::query(
            "INSERT INTO games (white_id, black_id, variant, chess960_number, start_fen, \
             time_control, status, created_at, opening_plies) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
        )
        .bind(g.white.0)
        .bind(g.black.0)
        .bind(variant_name(variant))
        .bind(number)
        .bind(fen)
        .bind(g.time_control.to_string())
        .bind("active")
        .bind(to_millis(now))
        .bind(i64::try_from(g.opening.len()).unwrap_or(i64::MAX))
        .fetch_one(&mut self.tx)
        .await?;
        let id = GameId(row.try_get("id")?);
        // The line's moves are the game's first moves, with no mail times:
        // they cost no one's clock (see `service::loaded_game::timeline_of`).
        for (i, ply) in opening.plies().iter().enumerate() {
            super::sql::query("INSERT INTO moves (game_id, ply, uci, san) VALUES ($1, $2, $3, $4)")
                .bind(id.0)
                .bind(i64::try_from(i + 1).unwrap_or(i64::MAX))
                .bind(&ply.uci)
                .bind(&ply.san)
                .execute(&mut self.tx)
                .await?;
        }
        Ok(id)
    }
    /// Reads a game for changing it; on PostgreSQL the row stays locked until
    /// the transaction ends, so two daemons cannot move in one game at once.
    pub async fn game_for_update(&mut self, id: GameId) -> Result<GameRecord, StoreError> {
        self.game_with_moves(id, true).await
    }
    /// Reads a game with its moves, without locking it (exports).
    pub async fn game_to_read(&mut self, id: GameId) -> Result<GameRecord, StoreError> {
        self.game_with_moves(id, false).await
    }
    async fn game_with_moves(&mut self, id: GameId, lock: bool) -> Result<GameRecord, StoreError> {
        let lock = match self.backend {
            Backend::Postgres if lock => " FOR UPDATE",
            _ => "",
        };
        let row = super::sql::query(AssertSqlSafe(format!(
            "SELECT {} FROM games WHERE id = $1{lock}",
            super::games::COLUMNS
        )))
        .bind(id.0)
        .fetch_optional(&mut self.tx)
        .await?
        .ok_or(StoreError::UnknownGame(id.0))?;
        let mut record = super::games::from_row(&row)?;
        record.moves = super::sql::query(
            "SELECT ply, uci, san, received_at, sent_at FROM moves WHERE game_id = $1 ORDER BY ply",
        )
        .bind(id.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(super::games::move_from_row)
        .collect::<Result<_, _>>()?;
        Ok(record)
    }
    /// Saves a game's new moves (those beyond the stored ones), its ending,
    /// and its draw offer. Returns the record as it now stands, as a read
    /// of it would give it (times to the millisecond), so that a move need
    /// not read its game back.
    pub async fn save_game(
        &mut self,
        record: &GameRecord,
        game: &Game,
        draw_offer_by: Option<Color>,
        conditionals: &crate::domain::arbiter::Conditionals,
        last_offers: crate::domain::arbiter::LastOffers,
        now: DateTime<Utc>,
    ) -> Result<GameRecord, StoreError> {
        let stored = record.moves.len();
        let mut saved = record.clone();
        let as_read = |t: Option<DateTime<Utc>>| t.map(to_millis).map(from_millis).transpose();
        for (i, ply) in game.plies().iter().enumerate().skip(stored) {
            let number = i64::try_from(i + 1).unwrap_or(i64::MAX);
            saved.moves.push(StoredMove {
                ply: number,
                uci: ply.uci.clone(),
                san: ply.san.clone(),
                received_at: as_read(ply.received_at)?,
                sent_at: as_read(ply.sent_at)?,
            });
            super::sql::query(
                "INSERT INTO moves (game_id, ply, uci, san, received_at, sent_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(record.id.0)
            .bind(number)
            .bind(&ply.uci)
            .bind(&ply.san)
            .bind(ply.received_at.map(to_millis))
            .bind(ply.sent_at.map(to_millis))
            .execute(&mut self.tx)
            .await?;
        }
        let (status, result, reason, finished) = match game.outcome() {
            Some(o) => (
                "finished",
                Some(o.result.as_pgn().to_string()),
                Some(o.to_string()),
                Some(record.finished_at.map(to_millis).unwrap_or(to_millis(now))),
            ),
            None => ("active", None, None, None),
        };
        saved.status = if finished.is_some() {
            GameStatus::Finished
        } else {
            GameStatus::Active
        };
        saved.result.clone_from(&result);
        saved.end_reason.clone_from(&reason);
        saved.finished_at = finished.map(from_millis).transpose()?;
        saved.draw_offer_by = draw_offer_by;
        saved.conditionals = conditionals.clone();
        saved.last_offers = last_offers;
        let conditionals = if conditionals.is_empty() {
            None
        } else {
            Some(
                serde_json::to_string(conditionals)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?,
            )
        };
        super::sql::query(
            "UPDATE games SET status = $1, result = $2, end_reason = $3, finished_at = $4, \
             draw_offer_by = $5, conditionals = $6, white_offer_ply = $7, black_offer_ply = $8 \
             WHERE id = $9",
        )
        .bind(status)
        .bind(result)
        .bind(reason)
        .bind(finished)
        .bind(draw_offer_by.map(side::key))
        .bind(conditionals)
        .bind(last_offers.white.map(i64::from))
        .bind(last_offers.black.map(i64::from))
        .bind(record.id.0)
        .execute(&mut self.tx)
        .await?;
        Ok(saved)
    }
    /// The active games of a player, by number.
    pub async fn active_games_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        super::sql::query(
            "SELECT id FROM games WHERE status = 'active' AND (white_id = $1 OR black_id = $1) ORDER BY id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(GameId(r.try_get("id")?)))
        .collect()
    }
    /// Every game of a player, active or not, by number.
    pub async fn games_of(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        super::sql::query("SELECT id FROM games WHERE white_id = $1 OR black_id = $1 ORDER BY id")
            .bind(player.0)
            .fetch_all(&mut self.tx)
            .await?
            .iter()
            .map(|r| Ok(GameId(r.try_get("id")?)))
            .collect()
    }
    /// The active games where it is a player's move, longest waiting first.
    pub async fn games_to_move(&mut self, player: PlayerId) -> Result<Vec<GameId>, StoreError> {
        super::sql::query(
            "SELECT id FROM games WHERE status = 'active' AND \
             ((white_id = $1 AND to_move = 'white') OR (black_id = $1 AND to_move = 'black')) \
             ORDER BY waiting_since, id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| Ok(GameId(r.try_get("id")?)))
        .collect()
    }
    /// The event a game belongs to, if any.
    pub async fn event_of_game(&mut self, game: GameId) -> Result<Option<EventId>, StoreError> {
        let row = super::sql::query("SELECT event_id FROM games WHERE id = $1")
            .bind(game.0)
            .fetch_optional(&mut self.tx)
            .await?
            .ok_or(StoreError::UnknownGame(game.0))?;
        Ok(row.try_get::<Option<i64>, _>("event_id")?.map(EventId))
    }
    /// Makes a game one of an event's, in a round and on a board.
    pub async fn link_game(
        &mut self,
        game: GameId,
        event: EventId,
        round: u32,
        board: u32,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE games SET event_id = $1, event_round = $2, event_board = $3 WHERE id = $4",
        )
        .bind(event.0)
        .bind(i64::from(round))
        .bind(i64::from(board))
        .bind(game.0)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
    /// An event's games (without moves), by round, board and number.
    pub async fn event_games(&mut self, event: EventId) -> Result<Vec<EventGame>, StoreError> {
        super::sql::query(AssertSqlSafe(format!(
            "SELECT {}, event_round, event_board, closed_by_withdrawal FROM games \
             WHERE event_id = $1 ORDER BY event_round, event_board, id",
            super::games::COLUMNS
        )))
        .bind(event.0)
        .fetch_all(&mut self.tx)
        .await?
        .iter()
        .map(|r| {
            Ok(EventGame {
                game: super::games::from_row(r)?,
                round: small(
                    r.try_get::<Option<i64>, _>("event_round")?.unwrap_or(0),
                    "round",
                )?,
                board: small(
                    r.try_get::<Option<i64>, _>("event_board")?.unwrap_or(0),
                    "board",
                )?,
                closed_by_withdrawal: r.try_get::<i64, _>("closed_by_withdrawal")? != 0,
            })
        })
        .collect()
    }
    /// Puts `new` in `old`'s place in a game.
    pub async fn switch_game_player(
        &mut self,
        game: GameId,
        old: PlayerId,
        new: PlayerId,
    ) -> Result<(), StoreError> {
        for column in ["white_id", "black_id"] {
            super::sql::query(AssertSqlSafe(format!(
                "UPDATE games SET {column} = $1 WHERE id = $2 AND {column} = $3"
            )))
            .bind(new.0)
            .bind(game.0)
            .bind(old.0)
            .execute(&mut self.tx)
            .await?;
        }
        Ok(())
    }
    /// Closes a game because a player withdrew: with a forfeit result in
    /// words when `result` is given, else annulled (finished, no result).
    pub async fn close_by_withdrawal(
        &mut self,
        game: GameId,
        result: Option<(&str, &str)>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (result, reason) = match result {
            Some((r, why)) => (Some(r), Some(why)),
            None => (None, None),
        };
        super::sql::query(
            "UPDATE games SET status = 'finished', result = $1, end_reason = $2, finished_at = $3, \
             draw_offer_by = NULL, closed_by_withdrawal = 1 WHERE id = $4",
        )
        .bind(result)
        .bind(reason)
        .bind(to_millis(now))
        .bind(game.0)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
    /// Closes a game a TD cancelled: finished, no result, the cancellation
    /// as its ending (see [`crate::domain::chess::outcome::Cancellation`]).
    pub async fn cancel_game(
        &mut self,
        game: GameId,
        ending: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        super::sql::query(
            "UPDATE games SET status = 'finished', result = NULL, end_reason = $1, finished_at = $2, \
             draw_offer_by = NULL WHERE id = $3",
        )
        .bind(ending)
        .bind(to_millis(now))
        .bind(game.0)
        .execute(&mut self.tx)
        .await?;
        Ok(())
    }
    /// A player's games in progress, with their players' and events' names.
    pub async fn game_lines_of(&mut self, player: PlayerId) -> Result<Vec<GameLine>, StoreError> {
        let rows = super::sql::query(
            "SELECT g.id AS id, w.name AS white, b.name AS black, e.id AS event_id, \
             e.name AS event FROM games g \
             JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id \
             LEFT JOIN events e ON e.id = g.event_id \
             WHERE g.status = 'active' AND (g.white_id = $1 OR g.black_id = $1) ORDER BY g.id",
        )
        .bind(player.0)
        .fetch_all(&mut self.tx)
        .await?;
        rows.iter()
            .map(|r| {
                let event_id: Option<i64> = r.try_get("event_id")?;
                let event: Option<String> = r.try_get("event")?;
                Ok(GameLine {
                    game: crate::domain::ids::GameId(r.try_get("id")?),
                    white: r.try_get("white")?,
                    black: r.try_get("black")?,
                    event: event_id
                        .zip(event)
                        .map(|(id, name)| (crate::domain::ids::EventId(id), name)),
                })
            })
            .collect()
    }
}

impl Store {
    /// The events that have games in progress.
    pub async fn events_with_active_games(&self) -> Result<Vec<EventId>, StoreError> {
        // One probe of games (event_id, status) per event (migration
        // 0021), not a read of every active game as DISTINCT was.
        super::sql::query(
            "SELECT e.id AS event_id FROM events e WHERE EXISTS (SELECT 1 FROM games g \
             WHERE g.event_id = e.id AND g.status = 'active') ORDER BY e.id",
        )
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|row| Ok(EventId(row.try_get("event_id")?)))
        .collect()
    }
}
