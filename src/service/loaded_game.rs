//! A stored game as the service works on it: its row and moves, both
//! players, the clock with their leave and extensions, the messages, the
//! ratings and, for a game of an event, the event with its settings read
//! once (and a consultation game's members). A mail loads its game here
//! once and hands it on, to the arbiter and to the post; the web pages,
//! the scheduler and the TD tools load theirs the same way.

use chrono::TimeDelta;
use shakmaty::{ByColor, Color};

use crate::adapter::store::games::GameRecord;
use crate::adapter::store::{StoreError, Tx};
use crate::domain::chess::game::Game;
use crate::domain::chess::pgn::{self, PgnTags};
use crate::domain::chess::side;
use crate::domain::clock::{GameClock, Leave, Pauses, TimeControl, Timeline};
use crate::domain::event::Visibility;
use crate::domain::ids::{EventId, GameId};
use crate::domain::player::Player;
use crate::service::event_settings::{EventSettings, GameRules};
use crate::service::votes::Members;

/// A game with its players, as a mail shows it.
#[derive(Debug, Clone)]
pub struct LoadedGame {
    /// The stored game.
    pub record: GameRecord,
    /// The game in the rules core (after the change being told of).
    pub game: Game,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// The standing draw offer.
    pub draw_offer_by: Option<Color>,
    /// The game's clocks with both players' leave; `None` shows no clocks.
    pub clock: Option<GameClock>,
    /// The messages between the players, in the order of the game.
    pub messages: Vec<crate::adapter::store::game_messages::GameMessage>,
    /// White's and Black's ratings for the game (see
    /// [`crate::service::ratings::game_ratings`]); `None`: unrated.
    pub ratings: [Option<i32>; 2],
    /// What the endgame tables say, in the mails of the move that brought
    /// the game into them (only there: players are told once).
    pub tables_news: Option<crate::domain::chess::tablebase::TableNews>,
    /// A consultation game's votes on each move made, as PGN comments
    /// (see `service::votes::vote_remarks`); none in other games.
    pub vote_remarks: Vec<pgn::Remark>,
    /// The event the game is played in, read with it; `None` outside events.
    /// Shared, not inline: a loaded game is held across many awaits, and
    /// the settings would make every such future that much larger.
    pub event: Option<std::sync::Arc<GameEvent>>,
    /// A new event game's place in its event, for its first mails only
    /// (see [`crate::service::start::first_mails`]); `None` in any other.
    pub pairing: Option<std::sync::Arc<crate::adapter::mail::compose::PairingNote>>,
    /// A consultation game's members, each with their player (none in
    /// other games): they get their side's mails, and a move of theirs is
    /// a vote.
    pub members: Members,
}

/// The event of a loaded game: what its mails and the arbiter need of it,
/// from one read of its row.
#[derive(Debug, Clone)]
pub struct GameEvent {
    /// Its number.
    pub id: EventId,
    /// Its name.
    pub name: String,
    /// Who may see its pages.
    pub visibility: Visibility,
    /// Its settings, decoded.
    pub settings: EventSettings,
}

impl LoadedGame {
    /// Whether its moves are voted by its sides' members (a consultation
    /// event's game), not made by the two players alone.
    pub fn is_consultation(&self) -> bool {
        self.event
            .as_ref()
            .is_some_and(|e| e.settings.consultation.is_some())
    }

    /// The rules the arbiter plays the game by: its event's, else those of
    /// a game outside events.
    pub fn rules(&self) -> GameRules {
        self.event
            .as_ref()
            .map_or_else(GameRules::default, |e| e.settings.rules())
    }

    /// The player of a colour.
    pub fn player(&self, side: Color) -> &Player {
        match side {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The game's PGN, with its players and dates.
    pub fn pgn(&self) -> String {
        let tags = PgnTags {
            event: "dopis correspondence game".into(),
            site: "dopis".into(),
            date: pgn::pgn_date(self.record.created_at.date_naive()),
            round: "-".into(),
            white: self.white.name.clone(),
            black: self.black.name.clone(),
            time_control: Some(pgn_time_control(self.record.time_control)),
            end_date: self
                .record
                .finished_at
                .map(|t| pgn::pgn_date(t.date_naive())),
            other: [("WhiteElo", self.ratings[0]), ("BlackElo", self.ratings[1])]
                .into_iter()
                .filter_map(|(tag, r)| r.map(|r| (tag.to_string(), r.to_string())))
                .collect(),
        };
        let mut remarks: Vec<pgn::Remark> = self.vote_remarks.clone();
        remarks.extend(self.messages.iter().map(|m| pgn::Remark {
            after: m.ply,
            text: format!("{}: {}", self.player(m.side).name, m.body),
        }));
        // A cancelled game has no outcome to write: its cancellation is the
        // last comment (its Result is `*`, its Termination `unterminated`).
        if let Some(c) = self.record.cancellation() {
            remarks.push(pgn::Remark {
                after: self.game.plies().len(),
                text: c.to_string(),
            });
        }
        pgn::export_with_remarks(&self.game, &tags, &remarks)
    }
}

/// The timeline of a stored game (a move without its arrival time counts as
/// arriving when its clock started; see `service::clocks`).
pub fn timeline_of(record: &GameRecord, game: &Game) -> Timeline {
    let first = game
        .start()
        .to_position()
        .map(|p| shakmaty::Position::turn(&p))
        .unwrap_or(Color::White);
    let mut timeline = Timeline {
        first,
        ..Timeline::new(record.created_at)
    };
    for m in &record.moves {
        let started = timeline.clock_start(timeline.moves.len());
        let received = m.received_at.or(m.sent_at).unwrap_or(started).max(started);
        timeline = timeline.with_move(received, m.sent_at);
    }
    timeline
}

/// A game's clock: its control, its move times, both players' leave.
pub async fn game_clock(
    tx: &mut Tx,
    record: &GameRecord,
    game: &Game,
    white: &Player,
    black: &Player,
) -> Result<GameClock, StoreError> {
    let mut pauses = ByColor::new_with(|_| Pauses::none());
    let extensions = tx.deadline_extensions(record.id).await?;
    let [white_leave, black_leave] = tx.leaves_of_both([white.id, black.id]).await?;
    for (side, player, booked) in [
        (Color::White, white, white_leave),
        (Color::Black, black, black_leave),
    ] {
        let leaves: Vec<Leave> = booked.into_iter().map(|l| l.leave).collect();
        let mut spans: Vec<_> = leaves.iter().map(|l| l.span(player.tz)).collect();
        // A TD's extension of N days stops that side's clock for N days from
        // when it was granted: the deadline they are thinking against moves
        // N days later (given to the side to move, as TDs do).
        let name = side::key(side);
        spans.extend(extensions.iter().filter(|e| e.side == name).map(|e| {
            (
                e.granted_at,
                e.granted_at + TimeDelta::days(i64::from(e.days)),
            )
        }));
        *pauses.get_mut(side) = Pauses::from_spans(spans);
    }
    Ok(GameClock {
        control: record.time_control,
        timeline: timeline_of(record, game),
        pauses,
    })
}

/// Loads a game with its players and clock, its row locked for the transaction.
pub async fn load_table(tx: &mut Tx, id: GameId) -> Result<LoadedGame, StoreError> {
    let record = tx.game_for_update(id).await?;
    load_with(tx, record, true, None).await
}

/// [`load_table`] for a mail whose writer is read already: when `writer`
/// plays in the game they are not read again.
pub async fn load_table_with(
    tx: &mut Tx,
    id: GameId,
    writer: Option<&Player>,
) -> Result<LoadedGame, StoreError> {
    let record = tx.game_for_update(id).await?;
    load_with(tx, record, true, writer).await
}

/// A game read without locks as a mail shows it (the web pages, the
/// calendar feed); `messages` only for its players (they are kept out of
/// public pages and PGN).
pub async fn load_to_read(
    tx: &mut Tx,
    id: GameId,
    messages: bool,
) -> Result<LoadedGame, StoreError> {
    let record = tx.game_to_read(id).await?;
    load_around(tx, record, messages).await
}

/// A stored game with its players, clock, ratings and (when asked for)
/// messages.
pub async fn load_around(
    tx: &mut Tx,
    record: GameRecord,
    messages: bool,
) -> Result<LoadedGame, StoreError> {
    load_with(tx, record, messages, None).await
}

async fn load_with(
    tx: &mut Tx,
    record: GameRecord,
    messages: bool,
    known: Option<&Player>,
) -> Result<LoadedGame, StoreError> {
    let game = record.to_game()?;
    let white = player(tx, record.white, known).await?;
    let black = player(tx, record.black, known).await?;
    let clock = game_clock(tx, &record, &game, &white, &black).await?;
    let messages = if messages {
        tx.game_messages(record.id).await?
    } else {
        Vec::new()
    };
    let ratings = crate::service::ratings::game_ratings(tx, &record).await?;
    let event = match record.event {
        Some(id) => Some(std::sync::Arc::new(game_event(tx, id).await?)),
        None => None,
    };
    // Only an event's settings say a game is a consultation game: other
    // games spend no statement on members they cannot have.
    let members = match &event {
        Some(e) if e.settings.consultation.is_some() => Members::load(tx, record.id).await?,
        _ => Members::default(),
    };
    let vote_remarks =
        crate::service::votes::vote_remarks(tx, &members, record.id, game.plies().len()).await?;
    Ok(LoadedGame {
        vote_remarks,
        messages,
        ratings,
        draw_offer_by: record.draw_offer_by,
        record,
        game,
        white,
        black,
        clock: Some(clock),
        tables_news: None,
        event,
        members,
        pairing: None,
    })
}

/// A player of a game, unless it is `known` already.
async fn player(
    tx: &mut Tx,
    id: crate::domain::player::PlayerId,
    known: Option<&Player>,
) -> Result<Player, StoreError> {
    match known {
        Some(p) if p.id == id => Ok(p.clone()),
        _ => tx.player(id).await,
    }
}

/// The event of a game, its settings decoded.
async fn game_event(tx: &mut Tx, id: EventId) -> Result<GameEvent, StoreError> {
    let record = tx.event(id).await?;
    Ok(GameEvent {
        settings: EventSettings::decode(id, &record.settings)?,
        id,
        name: record.name,
        visibility: record.visibility,
    })
}

/// The game as a move just saved left it: `saved` is its record as
/// [`Tx::save_game`] wrote it (its moves with their times: the clock's
/// timeline gains the move). What a move cannot change is kept from
/// `before`: the players (a language the same mail chose is set in
/// `before` by the inbox), both players' leave and deadline extensions (a
/// leave booked by the same mail reloaded the game in full), the messages
/// (the caller adds the move's own), the ratings (a game is rated after
/// this, when its end is told), its event and members. No statement: this
/// runs for every move (issue 15).
pub async fn after_move(
    tx: &mut Tx,
    before: LoadedGame,
    saved: GameRecord,
) -> Result<LoadedGame, StoreError> {
    let record = saved;
    let game = record.to_game()?;
    let (white, black) = (before.white, before.black);
    let clock = match before.clock {
        Some(clock) => GameClock {
            control: record.time_control,
            timeline: timeline_of(&record, &game),
            pauses: clock.pauses,
        },
        None => game_clock(tx, &record, &game, &white, &black).await?,
    };
    Ok(LoadedGame {
        draw_offer_by: record.draw_offer_by,
        record,
        game,
        white,
        black,
        clock: Some(clock),
        tables_news: None,
        pairing: None,
        ..before
    })
}

/// The PGN `TimeControl` tag: "moves/seconds" where the standard can say
/// it (N days per move is `1/(N×86400)`), else our spec string.
pub fn pgn_time_control(control: TimeControl) -> String {
    match control {
        TimeControl::DaysPerMove { days } => format!("1/{}", u64::from(days) * 86_400),
        other => other.to_string(),
    }
}
