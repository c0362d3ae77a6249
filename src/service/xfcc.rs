//! XFCC ("XfccBasic"): a player's chess program (Scid, Scid vs PC, Lucas
//! Chess…) fetches their games and sends moves with a password dopis gave
//! them. The wire (SOAP) is the web edge's (`web::xfcc`); this module is
//! what the two operations do:
//!
//! - [`authenticate`]: the XFCC password, checked against its Argon2 hash,
//!   with failed logins limited per user and per client address.
//! - [`my_games`]: every game of the player, running and finished, as
//!   `GetMyGames` lists them (clocks from the real clocks, SAN movetext).
//! - [`make_a_move`]: `MakeAMove` turned into the commands a mail would
//!   carry and heard by the same arbiter, in one transaction with the mails
//!   it causes: the opponent gets exactly the mails a mail move gives them.
//!
//! Passwords are made here ([`new_password`], [`revoke_password`]): random,
//! shown once, stored only as an Argon2id hash.

use crate::service::ServiceError;
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

use argon2::password_hash::{PasswordHash, PasswordVerifier};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use shakmaty::{Color, Position};

use super::Handled;
use super::credentials::{blocking, hash_password, set_new_password};
use super::inbox::Inbox;
use super::loaded_game::{self, LoadedGame};
use super::post::Answering;
use crate::adapter::store::games::GameStatus;
use crate::adapter::store::{Store, StoreError};
use crate::domain::arbiter::{Notice, Reason, Step};
use crate::domain::chess::game::{Game, StartPosition};
use crate::domain::chess::notation::{self, MoveTextError};
use crate::domain::chess::outcome::{EndReason, ResultKind, XfccResult};
use crate::domain::clock::TimeControl;
use crate::domain::command::{Command, Message, MoveText};
use crate::domain::ids::GameId;
use crate::domain::player::Player;

/// Failed logins allowed per user and per client address within
/// [`FAILURE_WINDOW_MINUTES`]; past it, logins fail without a check.
pub const MAX_FAILURES: usize = 10;
/// The window failed logins are counted in.
pub const FAILURE_WINDOW_MINUTES: i64 = 15;
/// Keys the limiter keeps at most (each is a few dozen bytes): a flood of
/// addresses cannot grow it without bound.
const MAX_KEYS: usize = 100_000;

/// Failed XFCC logins by user and by client address, to refuse guessing.
///
/// Kept in memory, on purpose: it is lost on a restart and not shared
/// between two `dopis web` processes, which at worst lets a guesser start
/// over after a restart (10 guesses per quarter hour against a 20-letter
/// random password stays hopeless). A table would cost a write per failed
/// login and a cleanup job for no real gain.
#[derive(Debug, Default)]
pub struct LoginLimiter {
    failures: Mutex<HashMap<String, VecDeque<DateTime<Utc>>>>,
}

impl LoginLimiter {
    /// A limiter with no failures yet.
    pub fn new() -> LoginLimiter {
        LoginLimiter::default()
    }

    fn keys(username: &str, client: Option<IpAddr>) -> Vec<String> {
        let mut keys = vec![format!("user:{}", username.trim().to_lowercase())];
        if let Some(ip) = client {
            keys.push(format!("addr:{ip}"));
        }
        keys
    }

    /// Whether a login for `username` from `client` may be checked at `now`.
    fn allows(&self, keys: &[String], now: DateTime<Utc>) -> bool {
        let since = now - Duration::minutes(FAILURE_WINDOW_MINUTES);
        let map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        keys.iter().all(|k| {
            map.get(k)
                .is_none_or(|times| times.iter().filter(|t| **t > since).count() < MAX_FAILURES)
        })
    }

    fn fail(&self, keys: &[String], now: DateTime<Utc>) {
        let since = now - Duration::minutes(FAILURE_WINDOW_MINUTES);
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= MAX_KEYS {
            map.retain(|_, times| times.back().is_some_and(|t| *t > since));
        }
        for key in keys {
            if map.len() >= MAX_KEYS && !map.contains_key(key) {
                continue;
            }
            let times = map.entry(key.clone()).or_default();
            while times.front().is_some_and(|t| *t <= since) {
                times.pop_front();
            }
            times.push_back(now);
            while times.len() > MAX_FAILURES {
                times.pop_front();
            }
        }
    }

    fn succeed(&self, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&format!("user:{}", username.trim().to_lowercase()));
    }
}

/// Whether `password` matches the stored hash; a hash that does not read
/// matches nothing.
fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        argon2::Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash to check against when the user is unknown, so that a login for
/// an unknown user takes as long as one with a wrong password.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password("no such user: a decoy").unwrap_or_default())
}

/// Gives the player with address `email` a new XFCC password (the old one
/// stops working) and returns it: the only time it is ever shown. `None`:
/// no such player.
pub async fn new_password(store: &Store, email: &str) -> Result<Option<String>, ServiceError> {
    let mut tx = store.begin().await?;
    let Some(player) = tx.player_by_email(email).await? else {
        return Ok(None);
    };
    let password = set_new_password(&mut tx, &player).await?;
    tx.commit().await?;
    Ok(Some(password))
}

/// Takes away the XFCC password of the player with address `email`;
/// `false`: no such player.
pub async fn revoke_password(store: &Store, email: &str) -> Result<bool, StoreError> {
    let mut tx = store.begin().await?;
    let Some(player) = tx.player_by_email(email).await? else {
        return Ok(false);
    };
    tx.set_xfcc_hash(player.id, None).await?;
    tx.commit().await?;
    Ok(true)
}

/// The player whose XFCC username (their registered address, any case) and
/// password these are; `None` for a wrong or unknown login, or one refused
/// unchecked because of too many failures from that user or address.
pub async fn authenticate(
    store: &Store,
    limiter: &LoginLimiter,
    username: &str,
    password: &str,
    client: Option<IpAddr>,
    now: DateTime<Utc>,
) -> Result<Option<Player>, StoreError> {
    let keys = LoginLimiter::keys(username, client);
    if !limiter.allows(&keys, now) {
        tracing::warn!(
            username,
            ?client,
            "XFCC login refused unchecked: too many failures"
        );
        return Ok(None);
    }
    let mut tx = store.begin().await?;
    let player = tx.player_by_email(username.trim()).await?;
    let hash = match &player {
        Some(p) => tx.xfcc_hash(p.id).await?,
        None => None,
    };
    drop(tx);
    let (given, stored, known) = (
        password.to_owned(),
        hash.clone().unwrap_or_else(|| decoy_hash().to_owned()),
        hash.is_some(),
    );
    let matches = blocking(move || verify_password(&given, &stored)).await && known;
    if matches {
        limiter.succeed(username);
        Ok(player)
    } else {
        tracing::info!(username, ?client, "XFCC login failed");
        limiter.fail(&keys, now);
        Ok(None)
    }
}

/// Remaining reflection time, as XFCC counts it (days, hours, minutes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeLeft {
    /// Whole days.
    pub days: i64,
    /// Hours past the days.
    pub hours: i64,
    /// Minutes past the hours.
    pub minutes: i64,
}

impl TimeLeft {
    fn of(left: Duration) -> TimeLeft {
        let minutes = left.num_minutes().max(0);
        TimeLeft {
            days: minutes / (24 * 60),
            hours: minutes / 60 % 24,
            minutes: minutes % 60,
        }
    }
}

/// One game as `GetMyGames` lists it (an `XfccGame`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XfccGame {
    /// The game's number (also dopis's).
    pub id: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The event's name, or `dopis correspondence game`.
    pub event: String,
    /// Where it is played: the server's name.
    pub site: String,
    /// Whether the player is to move.
    pub my_turn: bool,
    /// Whether the player has White.
    pub has_white: bool,
    /// The player's remaining reflection time.
    pub player_left: TimeLeft,
    /// The opponent's.
    pub opponent_left: TimeLeft,
    /// The movetext: standard SAN with move numbers, no result token.
    pub moves: String,
    /// Whether the opponent's draw offer stands.
    pub draw_offered: bool,
    /// The result in XFCC's words.
    pub result: XfccResult,
    /// When the game started (PGN `Date`).
    pub event_date: NaiveDate,
    /// The start position, when not the standard one.
    pub fen: Option<String>,
    /// White's and Black's ratings for the game.
    pub elo: [Option<i32>; 2],
    /// The time control as XFCC writes it (`1/259200`, `10/4320000`, `0+86400`).
    pub time_control: String,
    /// The opponent's last message.
    pub message: Option<String>,
}

/// Every game of `player`, running and finished, as at `now`.
pub async fn my_games(
    store: &Store,
    site: &str,
    player: &Player,
    now: DateTime<Utc>,
) -> Result<Vec<XfccGame>, StoreError> {
    let mut tx = store.begin().await?;
    let mut games = Vec::new();
    for id in tx.games_of(player.id).await? {
        let table = loaded_game::load_table(&mut tx, id).await?;
        // A consultation game's moves are its members' votes, which XFCC
        // cannot say: it is played by mail, so a chess program does not
        // show it as one to move in.
        if table.is_consultation() {
            continue;
        }
        let event = match tx.event_of_game(id).await? {
            Some(event) => tx.event(event).await?.name,
            None => "dopis correspondence game".to_owned(),
        };
        if let Some(game) = xfcc_game(&table, player, event, site, now) {
            games.push(game);
        }
    }
    drop(tx);
    Ok(games)
}

/// One game of `player` as XFCC shows it (pure); `None` if not theirs.
fn xfcc_game(
    table: &LoadedGame,
    player: &Player,
    event: String,
    site: &str,
    now: DateTime<Utc>,
) -> Option<XfccGame> {
    let me = table.record.side_of(player.id)?;
    let game = &table.game;
    let over = game.is_over() || table.record.status != GameStatus::Active;
    let (player_left, opponent_left) = match &table.clock {
        Some(clock) => {
            let at = if over {
                table.record.finished_at.unwrap_or(now)
            } else {
                now
            };
            let clocks = if over {
                clock.final_clocks(at)
            } else {
                clock.clocks(at)
            };
            let left = |side: Color| {
                let state = clocks.players.get(side);
                if state.flagged.is_some() {
                    return TimeLeft::default();
                }
                match state.next_deadline {
                    Some(deadline) if !over && clocks.to_move == side => {
                        TimeLeft::of(deadline - at)
                    }
                    _ => match (state.days_left, clock.control) {
                        (Some(days), _) => TimeLeft::of(Duration::days(i64::from(days))),
                        // Days per move: the side not to move has its
                        // whole allowance for its next move.
                        (None, TimeControl::DaysPerMove { days }) if !over => {
                            TimeLeft::of(Duration::days(i64::from(days)))
                        }
                        _ => TimeLeft::default(),
                    },
                }
            };
            (left(me), left(!me))
        }
        None => (TimeLeft::default(), TimeLeft::default()),
    };
    let fen = (*game.start() != StartPosition::Standard)
        .then(|| game.start().to_fen().ok())
        .flatten();
    Some(XfccGame {
        id: table.record.id.0,
        white: table.white.name.clone(),
        black: table.black.name.clone(),
        event,
        site: site.to_owned(),
        my_turn: !over && game.turn() == me,
        has_white: me == Color::White,
        player_left,
        opponent_left,
        moves: movetext(game),
        draw_offered: !over && table.draw_offer_by == Some(!me),
        result: XfccResult::of(
            game.outcome(),
            table.record.cancellation().is_some() || over,
        ),
        event_date: table.record.created_at.date_naive(),
        fen,
        elo: table.ratings,
        time_control: time_control(table.record.time_control),
        message: table
            .messages
            .iter()
            .rev()
            .find(|m| m.side != me)
            .map(|m| m.body.clone()),
    })
}

/// The time control as XFCC writes it: `moves/seconds` for a number of
/// moves in a time (days per move is `1/…`), `base+increment` in seconds
/// for Fischer.
pub fn time_control(control: TimeControl) -> String {
    const DAY: u64 = 86_400;
    match control {
        TimeControl::DaysPerMove { days } => format!("1/{}", u64::from(days) * DAY),
        TimeControl::Cumulative { moves, days, .. } => {
            format!("{moves}/{}", u64::from(days) * DAY)
        }
        TimeControl::Fischer {
            initial, increment, ..
        } => format!(
            "{}+{}",
            u64::from(initial) * DAY,
            u64::from(increment) * DAY
        ),
    }
}

/// The movetext: standard SAN with move numbers (`1. e4 e5 2. Nf3`; a
/// start with Black to move begins `5... e5`), no comments, no result.
pub fn movetext(game: &Game) -> String {
    let first = game.start().to_position().ok();
    let mut number = first.as_ref().map_or(1, |p| p.fullmoves().get());
    let mut turn = first.as_ref().map_or(Color::White, |p| p.turn());
    let mut words = Vec::with_capacity(game.plies().len());
    for (i, ply) in game.plies().iter().enumerate() {
        words.push(match turn {
            Color::White => format!("{number}. {}", ply.san),
            Color::Black if i == 0 => format!("{number}... {}", ply.san),
            Color::Black => ply.san.clone(),
        });
        if turn == Color::Black {
            number = number.saturating_add(1);
        }
        turn = !turn;
    }
    words.join(" ")
}

/// What `MakeAMove` asks, as it came over the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveRequest {
    /// The game.
    pub game_id: i64,
    /// Resign (the move is then ignored).
    pub resign: bool,
    /// Accept the opponent's draw offer.
    pub accept_draw: bool,
    /// The full-move number of the move sent: a guard against a stale board.
    pub movecount: i64,
    /// The move in SAN; may be empty with resign or draw actions.
    pub my_move: String,
    /// Offer a draw (with the move, or alone on the opponent's move).
    pub offer_draw: bool,
    /// Claim a draw (by the move, or in the position).
    pub claim_draw: bool,
    /// A message to the opponent.
    pub my_message: String,
}

/// `MakeAMove`'s result codes (XFCC's spelling, `MoveIsAmbigous` included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveResult {
    /// Done.
    Success,
    /// Something failed on our side; nothing changed.
    ServerError,
    /// Wrong username or password (or too many failures).
    AuthenticationFailed,
    /// No such game.
    InvalidGameID,
    /// A game the player does not play in.
    NotYourGame,
    /// The opponent is to move, or the game is over.
    NotYourTurn,
    /// `movecount` is not the number of the move to play.
    InvalidMoveNumber,
    /// The move is illegal or unreadable, or a draw claim is not valid.
    InvalidMove,
    /// Accepting a draw nobody offered.
    NoDrawWasOffered,
    /// The player's time had run out.
    LostOnTime,
    /// Reserved: dopis lets players move while on leave, so never sent.
    YouAreOnLeave,
    /// The move fits more than one legal move.
    MoveIsAmbigous,
    /// The event's rules refuse the draw offer now.
    CannotOfferDraw,
}

impl MoveResult {
    /// The code as XFCC writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            MoveResult::Success => "Success",
            MoveResult::ServerError => "ServerError",
            MoveResult::AuthenticationFailed => "AuthenticationFailed",
            MoveResult::InvalidGameID => "InvalidGameID",
            MoveResult::NotYourGame => "NotYourGame",
            MoveResult::NotYourTurn => "NotYourTurn",
            MoveResult::InvalidMoveNumber => "InvalidMoveNumber",
            MoveResult::InvalidMove => "InvalidMove",
            MoveResult::NoDrawWasOffered => "NoDrawWasOffered",
            MoveResult::LostOnTime => "LostOnTime",
            MoveResult::YouAreOnLeave => "YouAreOnLeave",
            MoveResult::MoveIsAmbigous => "MoveIsAmbigous",
            MoveResult::CannotOfferDraw => "CannotOfferDraw",
        }
    }
}

/// The commands a mail would carry for this request (pure): resign alone
/// (a move beside it is ignored: Scid sends the last move on the board
/// there), accepting a draw, a claim (by the move), the move (with a draw
/// offer), or an offer alone; then the message. `None`: nothing to do.
pub fn commands_of(request: &MoveRequest) -> Option<Vec<Command>> {
    let mv = MoveText::new(&request.my_move);
    let mut commands = Vec::new();
    if request.resign {
        commands.push(Command::Resign);
    } else if request.accept_draw {
        commands.push(Command::AcceptDraw);
    } else if request.claim_draw {
        commands.push(Command::ClaimDraw { with_move: mv });
    } else if let Some(text) = mv {
        commands.push(Command::Move {
            text,
            offer_draw: request.offer_draw,
        });
    } else if request.offer_draw {
        commands.push(Command::OfferDraw);
    }
    if let Some(message) = Message::new(&request.my_message) {
        commands.push(Command::Message(message));
    }
    (!commands.is_empty()).then_some(commands)
}

/// Whether `request` sends again a move of `me` already played (a resend
/// after a lost response): the player's last move has the same full-move
/// number and is the same move. Pure.
fn already_played(game: &Game, me: Color, request: &MoveRequest, player: &Player) -> bool {
    if request.resign {
        return game
            .outcome()
            .is_some_and(|o| o.reason == EndReason::Resignation && o.result.winner() == Some(!me));
    }
    let first = game
        .start()
        .to_position()
        .map(|p| p.turn())
        .unwrap_or(Color::White);
    // Plies alternate from the start position's side.
    let mover = |ply: usize| if ply.is_multiple_of(2) { first } else { !first };
    let Some(index) = (0..game.plies().len()).rev().find(|&i| mover(i) == me) else {
        return false;
    };
    let ucis: Vec<&str> = game.plies()[..index]
        .iter()
        .map(|p| p.uci.as_str())
        .collect();
    let Ok(before) = Game::replay(game.start().clone(), &ucis) else {
        return false;
    };
    let number = i64::from(before.position().fullmoves().get());
    if number != request.movecount {
        return false;
    }
    let mode = before.castling_mode();
    notation::parse_move(before.position(), &request.my_move, player.lang, mode)
        .is_ok_and(|mv| game.moves().get(index) == Some(&mv))
}

/// The XFCC code for the arbiter's refusal.
fn code_of(reason: &Reason, me: Color) -> MoveResult {
    match reason {
        Reason::Move(MoveTextError::Ambiguous { .. }) => MoveResult::MoveIsAmbigous,
        Reason::Move(MoveTextError::WrongMoveNumber { .. }) => MoveResult::InvalidMoveNumber,
        Reason::Move(_) | Reason::Game(_) | Reason::ClaimInvalid { .. } => MoveResult::InvalidMove,
        Reason::NotYourTurn { .. } | Reason::ClaimNotYourMove => MoveResult::NotYourTurn,
        Reason::NoDrawToAccept => MoveResult::NoDrawWasOffered,
        Reason::DrawTooEarly { .. }
        | Reason::DrawTooSoon { .. }
        | Reason::DrawNeedsMove
        | Reason::DrawOfferStands => MoveResult::CannotOfferDraw,
        Reason::GameOver(o)
            if o.reason.kind() == ResultKind::Time && o.result.winner() == Some(!me) =>
        {
            MoveResult::LostOnTime
        }
        Reason::GameOver(_) | Reason::Annulled => MoveResult::NotYourTurn,
        _ => MoveResult::InvalidMove,
    }
}

/// Carries out `MakeAMove` for an authenticated `player`, whose request
/// arrived at `now` (the move's time, as a mail's is when it reached the
/// mailbox). One transaction: the game, its clocks and the mails it causes
/// commit together; a refused request changes nothing and sends nothing.
pub async fn make_a_move(
    store: &Store,
    inbox: &Inbox,
    player: &Player,
    request: &MoveRequest,
    now: DateTime<Utc>,
) -> Result<MoveResult, ServiceError> {
    let game = GameId(request.game_id);
    let mut tx = store.begin().await?;
    // Loaded once, for the checks below and the arbiter.
    let table = match loaded_game::load_table_with(&mut tx, game, Some(player)).await {
        Ok(table) => table,
        Err(StoreError::UnknownGame(_)) => return Ok(MoveResult::InvalidGameID),
        Err(e) => return Err(e.into()),
    };
    let record = &table.record;
    // A captain's move in a consultation game is a vote among the side's
    // members, heard by mail only (see `my_games`).
    let Some(me) = record
        .side_of(player.id)
        .filter(|_| !table.is_consultation())
    else {
        return Ok(MoveResult::NotYourGame);
    };
    let board = &table.game;
    if already_played(board, me, request, player) {
        return Ok(MoveResult::Success);
    }
    let Some(commands) = commands_of(request) else {
        return Ok(MoveResult::InvalidMove);
    };
    // The stale-position guard: a move (or a claim, or an offer with a
    // move) names the full-move number it is for.
    let moves = commands
        .iter()
        .any(|c| matches!(c, Command::Move { .. } | Command::ClaimDraw { .. }));
    if moves && record.status == GameStatus::Active && !board.is_over() {
        if board.turn() != me {
            return Ok(MoveResult::NotYourTurn);
        }
        if i64::from(board.position().fullmoves().get()) != request.movecount {
            return Ok(MoveResult::InvalidMoveNumber);
        }
    }
    let Some((ruling, current)) = inbox
        .hear_game(&mut tx, table, player, &commands, (now, now))
        .await?
    else {
        return Ok(MoveResult::NotYourGame);
    };
    let mut result = MoveResult::Success;
    for step in &ruling.steps {
        match step {
            Step::EndOnTime { side, .. } => {
                result = if *side == me {
                    MoveResult::LostOnTime
                } else {
                    MoveResult::NotYourTurn
                };
            }
            Step::Play(verdict) => {
                if let Some(Notice::Rejected { reason, .. }) = verdict
                    .notices
                    .iter()
                    .find(|n| matches!(n, Notice::Rejected { .. }))
                {
                    // Refused: nothing is carried out, no mail is sent (the
                    // code is the answer).
                    return Ok(code_of(reason, me));
                }
            }
            _ => {}
        }
    }
    // One key per request: the mails it causes are queued once, the
    // message it carries is kept once.
    let key = format!(
        "xfcc.g{}.p{}.{}.{}",
        game.0,
        current.game.plies().len(),
        crate::domain::chess::side::key(me),
        now.timestamp_millis()
    );
    let answering = Answering {
        mail_key: &key,
        message_id: None,
    };
    // The mover gets their usual answer too (the move accepted, with the
    // board): a receipt in their mailbox that a move was made with their
    // XFCC password, and the same mails as a mail move, from the same code.
    let done = inbox
        .carry_out(&mut tx, ruling, player, Some(current), &answering, now)
        .await?;
    if let Handled::Ignored(why) = &done {
        // Held back (the hourly answer limit): nothing was saved.
        tracing::warn!(game = game.0, %why, "XFCC move not carried out");
        return Ok(MoveResult::ServerError);
    }
    tx.commit().await?;
    tracing::info!(game = game.0, player = %player.email, result = result.as_str(), "XFCC MakeAMove");
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::credentials::{PASSWORD_LENGTH, generate_password};

    #[test]
    fn movetext_has_move_numbers_and_standard_san() {
        let game = Game::replay(StartPosition::Standard, &["e2e4", "e7e5", "g1f3"]).unwrap();
        assert_eq!(movetext(&game), "1. e4 e5 2. Nf3");
        let empty = Game::new(StartPosition::Standard).unwrap();
        assert_eq!(movetext(&empty), "");
    }

    #[test]
    fn movetext_from_a_position_with_black_to_move_starts_with_dots() {
        let start =
            StartPosition::fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
                .unwrap();
        let game = Game::replay(start, &["e7e5", "g1f3"]).unwrap();
        assert_eq!(movetext(&game), "1... e5 2. Nf3");
    }

    #[test]
    fn time_controls_are_written_as_xfcc_reads_them() {
        assert_eq!(
            time_control(TimeControl::DaysPerMove { days: 3 }),
            "1/259200"
        );
        assert_eq!(
            time_control(TimeControl::Cumulative {
                moves: 10,
                days: 50,
                double_after: None,
                max_per_move: None
            }),
            "10/4320000"
        );
        assert_eq!(
            time_control(TimeControl::Fischer {
                initial: 30,
                increment: 1,
                cap: None
            }),
            "2592000+86400"
        );
    }

    #[test]
    fn time_left_is_split_into_days_hours_minutes() {
        let left = TimeLeft::of(Duration::minutes(2 * 1440 + 5 * 60 + 7) + Duration::seconds(59));
        assert_eq!(
            left,
            TimeLeft {
                days: 2,
                hours: 5,
                minutes: 7
            }
        );
        assert_eq!(TimeLeft::of(Duration::minutes(-5)), TimeLeft::default());
    }

    #[test]
    fn requests_become_the_commands_of_a_mail() {
        let req = |f: fn(&mut MoveRequest)| {
            let mut r = MoveRequest {
                my_move: "Nf3".into(),
                ..MoveRequest::default()
            };
            f(&mut r);
            commands_of(&r)
        };
        assert_eq!(
            req(|_| {}),
            Some(vec![Command::Move {
                text: MoveText::new("Nf3").unwrap(),
                offer_draw: false
            }])
        );
        // Resign ignores the move Scid puts beside it.
        assert_eq!(req(|r| r.resign = true), Some(vec![Command::Resign]));
        assert_eq!(
            req(|r| r.accept_draw = true),
            Some(vec![Command::AcceptDraw])
        );
        assert_eq!(
            req(|r| {
                r.my_move.clear();
                r.offer_draw = true;
            }),
            Some(vec![Command::OfferDraw])
        );
        assert_eq!(
            req(|r| r.my_message = "good luck".into()),
            Some(vec![
                Command::Move {
                    text: MoveText::new("Nf3").unwrap(),
                    offer_draw: false
                },
                Command::Message(Message::new("good luck").unwrap())
            ])
        );
        assert_eq!(req(|r| r.my_move.clear()), None);
    }

    #[test]
    fn a_password_is_random_and_checks_only_against_its_own_hash() {
        let (a, b) = (generate_password(), generate_password());
        assert_ne!(a, b);
        assert_eq!(a.len(), PASSWORD_LENGTH);
        let hash = hash_password(&a).unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(!hash.contains(&a));
        assert!(verify_password(&a, &hash));
        assert!(!verify_password(&b, &hash));
        assert!(!verify_password(&a, "not a hash"));
    }

    #[test]
    fn ten_failures_lock_the_user_and_the_address_for_the_window() {
        let limiter = LoginLimiter::new();
        let t0 = DateTime::parse_from_rfc3339("2026-12-01T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        let keys = LoginLimiter::keys("Ana@Example.org", Some(ip));
        for _ in 0..MAX_FAILURES {
            assert!(limiter.allows(&keys, t0));
            limiter.fail(&keys, t0);
        }
        assert!(!limiter.allows(&keys, t0));
        // Another user from the same address is refused too; the same user
        // in another case from elsewhere as well.
        let other_ip: IpAddr = "192.0.2.8".parse().unwrap();
        assert!(!limiter.allows(&LoginLimiter::keys("bo@example.org", Some(ip)), t0));
        assert!(!limiter.allows(&LoginLimiter::keys("ana@example.org", Some(other_ip)), t0));
        assert!(limiter.allows(&LoginLimiter::keys("bo@example.org", Some(other_ip)), t0));
        // After the window, allowed again.
        let later = t0 + Duration::minutes(FAILURE_WINDOW_MINUTES) + Duration::seconds(1);
        assert!(limiter.allows(&keys, later));
    }

    #[test]
    fn a_resent_move_is_recognised_and_another_is_not() {
        let player = Player {
            id: crate::domain::player::PlayerId(1),
            email: crate::domain::address::EmailAddress::parse("a@example.org").unwrap(),
            name: "A".into(),
            lang: crate::domain::lang::Lang::En,
            tz: None,
        };
        let game = Game::replay(StartPosition::Standard, &["e2e4", "e7e5", "g1f3"]).unwrap();
        let req = |mv: &str, n: i64| MoveRequest {
            my_move: mv.into(),
            movecount: n,
            ..MoveRequest::default()
        };
        assert!(already_played(&game, Color::White, &req("Nf3", 2), &player));
        assert!(!already_played(
            &game,
            Color::White,
            &req("Nc3", 2),
            &player
        ));
        assert!(!already_played(
            &game,
            Color::White,
            &req("Nf3", 3),
            &player
        ));
        assert!(already_played(&game, Color::Black, &req("e5", 1), &player));
        assert!(!already_played(
            &game,
            Color::Black,
            &req("Nf6", 2),
            &player
        ));
    }
}
