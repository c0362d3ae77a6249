//! The mails dopis sends: one [`Letter`] in, RFC 5322 bytes out.
//!
//! Every mail kind has a text and an HTML template in `templates/<lang>/`
//! (English is the fallback for any file a language lacks), embedded at
//! compile time. [`compose`] builds the template context from the letter
//! (board, moves in the recipient's letters, how to reply), renders both
//! parts and assembles the MIME tree:
//!
//! ```text
//! multipart/mixed                 only when a PGN or a calendar is attached
//! ├── multipart/alternative
//! │   ├── text/plain              ASCII and Unicode boards side by side
//! │   └── multipart/related       only when there is a board
//! │       ├── text/html           <img src="cid:…">
//! │       └── image/png           the board, inline
//! ├── application/x-chess-pgn     game-42.pgn
//! └── text/calendar               dopis-42.ics: a "your move" mail's deadline,
//!                                 or its cancellation once the player moved
//!                                 or the game ended
//! ```
//!
//! Pure: the date, the Message-ID and everything shown come from the letter,
//! so the same letter always gives the same bytes (the MIME boundaries are
//! derived from the Message-ID). lettre is used only as a message builder,
//! never as a transport.

mod calendar;
mod context;
mod mime;
mod tables;
mod templates;
mod words;

#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::adapter::mail::inbound::MessageId;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::Game;
use crate::domain::lang::Lang;

/// One mail to send, with everything it shows.
#[derive(Debug, Clone)]
pub struct Letter {
    /// What the mail is about.
    pub kind: LetterKind,
    /// The recipient's language: templates and piece letters.
    pub lang: Lang,
    /// Our name and address.
    pub from: Party,
    /// The recipient's name and address.
    pub to: Party,
    /// The plus-address carrying game and token; `None` for mails that need no reply.
    pub reply_to: Option<EmailAddress>,
    /// Our Message-ID for this mail, deterministic, chosen by the caller.
    pub message_id: MessageId,
    /// The player's mail this answers, if any (makes it `auto-replied`).
    pub in_reply_to: Option<MessageId>,
    /// The thread so far, oldest first.
    pub references: Vec<MessageId>,
    /// The `Date` header.
    pub date: DateTime<Utc>,
    /// The game the mail is about, if any.
    pub game: Option<GameView>,
    /// A message between the players that this mail carries, if any.
    pub talk: Option<Talk>,
    /// The web page of what the mail is about (the game from the
    /// recipient's side, the event), when `[web] base_url` is set.
    pub page: Option<String>,
    /// The address of the recipient's calendar feed of deadlines, in the
    /// mails that introduce a game or the commands (when pages are on).
    pub calendar: Option<String>,
    /// The one-click unsubscribe link (RFC 8058) of a mail the player
    /// chose to get in bulk (the digest, an announcement), when `[web]
    /// base_url` is https: `List-Unsubscribe` carries it, and
    /// `List-Unsubscribe-Post` says a POST to it is the whole of it.
    pub unsubscribe: Option<String>,
}

/// A message between the players, as a mail tells of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Talk {
    /// The recipient's opponent wrote them this.
    From {
        /// The writer's name.
        name: String,
        /// What they wrote (already capped).
        text: String,
        /// Whether it was cut at [`crate::domain::command::MAX_MESSAGE`] characters.
        shortened: bool,
    },
    /// The recipient's own message was passed on to `to`.
    Passed {
        /// The opponent's name.
        to: String,
        /// Whether it was cut at [`crate::domain::command::MAX_MESSAGE`] characters.
        shortened: bool,
    },
    /// The recipient's own message was not passed on: the event allows none.
    Held,
}

/// A name and an address, as in `From: "dopis" <chess@example.org>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Party {
    /// The display name; may be empty.
    pub name: String,
    /// The address.
    pub address: EmailAddress,
}

/// What a mail shows of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameView {
    /// The game number, shown as `#42` and in the subject tag `[dopis #42]`.
    pub id: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// Whose mail this is: the board is shown from that side; `None` for
    /// someone who does not play (the board is then seen by the side to move).
    pub recipient: Option<Color>,
    /// The game: position, moves, outcome.
    pub game: Game,
    /// The time control as shown, e.g. `3d`.
    pub time_control: String,
    /// The deadline, already formatted by the caller.
    pub deadline: Option<String>,
    /// The deadline of the side to move as an instant: a "your move" mail
    /// carries it as a calendar event (see `calendar`); `None` for none.
    pub deadline_at: Option<DateTime<Utc>>,
    /// A link that opens the position on an analysis board, when the
    /// server and the game's event allow one (see [`crate::domain::chess::analysis`]).
    pub analysis_url: Option<String>,
    /// The clocks, already formatted line(s).
    pub clocks: Option<String>,
    /// The side whose draw offer stands, if any.
    pub draw_offer_from: Option<Color>,
    /// The full PGN text: attached as `game-42.pgn` to [`LetterKind::GameOver`]
    /// and [`LetterKind::Pgn`] mails.
    pub pgn: Option<String>,
    /// White's and Black's ratings, shown beside their names; `None`: unrated.
    pub ratings: [Option<i32>; 2],
    /// What the endgame tables say, in the mails of the move that brought
    /// the game into them.
    pub tables: Option<crate::domain::chess::tablebase::TableNews>,
    /// An event game's first mails: its event, round and board, and in a
    /// Swiss event the standings the round was paired on.
    pub pairing: Option<PairingNote>,
}

/// Where a new event game stands in its event, as its first mails say it:
/// the event, the round and board, and in a Swiss event the standings
/// after the rounds before (the score groups the pairing came from).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PairingNote {
    /// The event's name.
    pub event: String,
    /// The round, from 1.
    pub round: u32,
    /// The board in the round, from 1.
    pub board: u32,
    /// The standings the round was paired on, best first; empty before
    /// any round was played and outside Swiss events.
    pub standings: Vec<StandingLine>,
}

/// One line of the standings in a pairing mail.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StandingLine {
    /// The place, `3` or `3-7` for a shared one.
    pub place: String,
    /// The player's name.
    pub name: String,
    /// Their points, `2½`.
    pub points: String,
    /// Whether it is the recipient's line (set for each recipient from
    /// `player`).
    pub you: bool,
    /// Whose line it is.
    #[serde(skip)]
    pub player: crate::domain::player::PlayerId,
}

/// One game in a player's list of games (the `games` command): the
/// template says it in the player's words.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GameListEntry {
    /// The game number, `#42`.
    pub id: i64,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The event's name, if the game is one of an event's.
    pub event: Option<String>,
    /// The number of the move being played now (`7` for 7. or 7...).
    pub move_number: u32,
    /// Whether it is the recipient's move.
    pub your_move: bool,
    /// The deadline of the side to move, formatted for the recipient.
    pub deadline: Option<String>,
}

/// Every kind of mail dopis sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LetterKind {
    /// To Black at the start: White moves first, a mail will follow.
    GameStarted,
    /// To the side to move: board, last move, game so far, deadline, how to reply.
    YourMove,
    /// A short confirmation to the mover, with their move as they would
    /// write it, and the opponent's conditional answer when it set one off
    /// (it is then the mover's move again).
    MoveAccepted {
        /// Which half-move of the game (counted from 0) is theirs.
        ply: usize,
    },
    /// To both players: result, reason, final board, PGN attached.
    GameOver,
    /// To the offerer when the opponent declined the draw explicitly.
    DrawOfferDeclined,
    /// A command that was not carried out: what they wrote, why, how to do it right.
    Rejected {
        /// What the player wrote (quoted back).
        wrote: String,
        /// Why it was not carried out.
        reason: Reason,
        /// The kind of refusal.
        kind: RejectionKind,
    },
    /// A command came from the right address without the reply token: reply to confirm.
    ConfirmRequest {
        /// The command as read.
        command: String,
    },
    /// A reply written for an earlier position of the game (see
    /// `mail::stale`): nothing was done; reply to carry it out against the
    /// board as it is now.
    ConfirmStale {
        /// The command as read.
        command: String,
        /// The position the player's mail answered (half-moves played).
        answered: MovePoint,
        /// The position now.
        current: MovePoint,
        /// The move again, with the current move number (`14. Nf3`), when
        /// the mail played one: written so, it is played at once.
        example: Option<String>,
    },
    /// The same mail came again under a new Message-ID (resent by the
    /// player's mail program): it was not carried out a second time.
    Repeated {
        /// What the mail said (its first line).
        wrote: String,
        /// When its first copy reached us, in the player's time zone and UTC.
        first: String,
    },
    /// An authentication failure, to the registered address.
    Refused {
        /// What was wrong.
        reason: Reason,
    },
    /// A mail of theirs that could not be handled and was kept for the
    /// admin: nothing changed, send it again in plain text.
    NotHandled {
        /// The subject of their mail, to say which one.
        subject: String,
        /// Why.
        cause: NotHandledCause,
    },
    /// The commands and notation examples (examples in the player's letters).
    Help {
        /// Example move texts, in the player's letters.
        examples: Vec<String>,
    },
    /// The game's current state.
    Status,
    /// The player's games in progress, one line each.
    Games {
        /// The games, in the order shown.
        games: Vec<GameListEntry>,
    },
    /// The PGN, inline and attached.
    Pgn,
    /// The daily digest: every game where it is the player's move, each
    /// with its board and its own reply address.
    Digest {
        /// The games, oldest waiting first.
        games: Vec<DigestGame>,
    },
    /// The player chose one mail a day (`notify digest`) or one per move
    /// (`notify each`).
    NotifyChanged {
        /// Whether they now get the digest.
        digest: bool,
        /// When the digest comes, e.g. `07:00 (Europe/Ljubljana)`.
        at: String,
    },
    /// A conditional answer of the player's was played for them, after
    /// the opponent's move that its line expected.
    ConditionalPlayed {
        /// Which half-move of the game (counted from 0) the answer is.
        ply: usize,
    },
    /// The player's conditional moves: set, listed or cancelled.
    Conditionals {
        /// What happened to them.
        note: ConditionalNote,
        /// The lines as the player writes them.
        lines: Vec<String>,
    },
    /// An event's crosstable, on request (`standings`); final once every
    /// game is over.
    Standings {
        /// The event's name.
        event: String,
        /// The crosstable, with English headings: the mail says them in
        /// the recipient's words.
        table: crate::domain::event::crosstable::Crosstable,
        /// Every game of the event is over: the table is final.
        over: bool,
        /// A Swiss event's pairing-allocated bye told to its player: the
        /// round and what it scores (as the table writes points).
        bye: Option<(u32, String)>,
    },
    /// A player withdrew from an event: to each opponent about one game
    /// (with the game), and to the player about all of them (without).
    Withdrawal {
        /// The event's name.
        event: String,
        /// Who withdrew.
        player: String,
        /// What became of the game: `forfeit_win` (the recipient wins),
        /// `forfeit_loss`, `annulled`; empty in the mail to the player.
        effect: String,
        /// The TD's reason.
        reason: String,
        /// For the player: each game closed, and what became of it.
        games: Vec<WithdrawnGame>,
    },
    /// A substitute took over a player's seat and games.
    Replaced {
        /// The event's name.
        event: String,
        /// Who left.
        old: String,
        /// Who takes over.
        new: String,
        /// Whom the mail is for.
        role: ReplacementRole,
        /// The TD's reason.
        reason: String,
    },
    /// A TD cancelled a game: it is closed and counts for nobody.
    GameCancelled {
        /// The TD's reason.
        reason: String,
    },
    /// A TD extended a player's deadline in a game.
    DeadlineExtended {
        /// The name of the player whose deadline moved.
        player: String,
        /// Days added.
        days: u32,
        /// The TD's reason.
        reason: String,
    },
    /// To the player to move: their deadline is near.
    Reminder {
        /// The deadline, in the player's time zone and UTC.
        deadline: String,
        /// How long before it this reminder comes, in minutes (the
        /// template words it: `24 hours`, `3 days`).
        before_minutes: i64,
    },
    /// To the player to move (and TDs): no move for a long time.
    Silence {
        /// Days of clock time without a move.
        days: u32,
        /// The deadline, in the recipient's time zone and UTC.
        deadline: Option<String>,
    },
    /// To the opponent of a player whose leave has begun.
    LeaveNotice {
        /// The player on leave.
        player: String,
        /// When their clock runs again, in the recipient's time zone and UTC.
        until: String,
    },
    /// To a player whose leave was booked.
    LeaveBooked {
        /// The first day of leave.
        from: String,
        /// The last day of leave.
        to: String,
        /// Days booked.
        days: u32,
        /// Regular days left in each calendar year the leave touches.
        left: Vec<(i32, u32)>,
    },
    /// To a player whose leave could not be booked: why, and what to do.
    LeaveRefused {
        /// What they wrote.
        wrote: String,
        /// Why it was refused, with the fix.
        reason: Reason,
    },
    /// The player chose the language of their mails (`language pl`); the
    /// letter is written in the new language.
    LanguageChanged,
    /// A new XFCC password, asked for by mail (`xfcc password`): to the
    /// registered address only.
    XfccPassword {
        /// The XFCC username (the registered address).
        username: String,
        /// The password, shown this once.
        password: String,
    },
    /// An event's deadline report, to one of its TDs (daily, or on `report`).
    DeadlineReport {
        /// The event's name.
        event: String,
        /// The report's lines; the templates give them their words.
        report: ReportView,
    },
    /// To a TD who asked for the report without the report address's
    /// token: how to ask (reply to this mail, which carries it).
    ReportInstructions {
        /// The event's name.
        event: String,
    },
    /// To a Swiss event's TD: a round with a closing date (`round_days`)
    /// has games still played, its date near (`closed` false) or come
    /// (`closed` true: the TD adjudicates them, then the next round is
    /// paired).
    SwissRoundClosing {
        /// The event's name.
        event: String,
        /// The round.
        round: u32,
        /// The closing date, already written out.
        closes: String,
        /// Whether the date has come.
        closed: bool,
        /// The games still played, as the deadline report lists them.
        games: Vec<ReportGame>,
    },
    /// To a Swiss event's TD: the next round cannot be paired until the TD
    /// decides (a result, a withdrawal); why, from the pairing.
    SwissRoundUnpaired {
        /// The event's name.
        event: String,
        /// The round that cannot be paired.
        round: u32,
        /// Why, in the pairing's words.
        why: String,
    },
    /// A message between the players with no move to go with: to the
    /// opponent (the [`Letter::talk`] is [`Talk::From`]), and to the writer
    /// to say it was passed on or why not.
    Message {
        /// Whether the writer's mail held nothing but the message (it was
        /// read as one because it had no move and no command).
        alone: bool,
    },
    /// About an entry by mail, or the events open for entries.
    Entry {
        /// What it says.
        news: EntryNews,
    },
    /// About a half-point bye in a Swiss event: granted, refused (why,
    /// and how to ask right), or the round it is for was paired.
    SwissBye {
        /// What it says.
        news: ByeNews,
    },
    /// To a member of a consultation game's side: it is the side's move
    /// (vote), their vote was counted, or the side's move was decided.
    Vote {
        /// What it says.
        news: VoteNews,
    },
    /// To a TD: a player's address keeps bouncing, so their mail is held
    /// until they are resumed; what to do.
    AddressBounces {
        /// The player's name.
        player: String,
        /// The address that bounces.
        address: String,
        /// Hard bounces counted.
        bounces: u32,
        /// Over how many days.
        days: u32,
        /// The last DSN status, e.g. `5.1.1`; empty when none was given.
        status: String,
        /// The player's games in progress, one line each.
        games: Vec<String>,
    },
}

/// An event open for entries, as mails about entries show it (times
/// already written for the recipient).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct OpenEvent {
    /// The event's number (`enter 12`).
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Its time control, e.g. `10/50d`.
    pub time_control: String,
    /// When entries close, for the recipient.
    pub closes: String,
    /// Confirmed entries so far.
    pub entered: u32,
    /// Fewest entrants it starts with.
    pub min: u32,
    /// Most entrants it takes.
    pub max: u32,
    /// Whether it starts as soon as it is full.
    pub start_when_full: bool,
    /// Whether addresses that are no players may enter.
    pub anyone: bool,
    /// The rating band, e.g. `1800–2200`, when it has one.
    pub rating: Option<String>,
}

/// What a mail about a half-point bye says (every field is there for
/// every kind, so the templates read them alike).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ByeNews {
    /// `granted`, `refused`, or `paired` (its round was paired).
    pub kind: &'static str,
    /// The event's number as written.
    pub event: i64,
    /// The event's name; empty when there is no such event.
    pub name: String,
    /// The round asked for.
    pub round: u32,
    /// What the bye scores (a draw's points).
    pub points: String,
    /// Byes this player has in the event (this one too, when granted).
    pub used: u32,
    /// Most the event gives each player (`max_half_point_byes`).
    pub max: u32,
    /// The event's rounds.
    pub rounds: u32,
    /// The next round to be paired; 0 when none is left.
    pub next: u32,
    /// Why it was refused (`refused`): `no-event`, `not-swiss`,
    /// `not-yours`, `withdrawn`, `not-started`, `no-round`, `finished`,
    /// `paired`, `already`, `none-given`, `limit`; empty otherwise.
    pub why: &'static str,
    /// Whether a TD asked for it (the answer then goes to the player).
    pub by_td: bool,
    /// The TD's reason, when a TD asked.
    pub reason: String,
}

/// What a mail about entries says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum EntryNews {
    /// Reply to this mail to confirm the entry (nothing counts before).
    Confirm {
        /// The event.
        event: OpenEvent,
        /// Whether the address becomes a player by confirming.
        stranger: bool,
        /// The name it will be registered with.
        name: String,
    },
    /// The entry is confirmed.
    Entered {
        /// The event.
        event: OpenEvent,
        /// In an open class: the size of its sections, and the entrant's
        /// place in the queue.
        queue: Option<(u32, u32)>,
    },
    /// The entry (or its withdrawal) was not taken: why, and how to do it right.
    Refused {
        /// The event number written.
        number: i64,
        /// The event, when it is one open for entries.
        event: Option<OpenEvent>,
        /// Why, by key (`not-open`, `not-yet`, `closed`, `full`,
        /// `players-only`, `not-invited`, `rating`, `already-entered`,
        /// `already-asked`, `refused-before`, `not-entered`, `refused-by-td`,
        /// and `no-number`: an entry command without a usable event number,
        /// where `number` is 0).
        why: &'static str,
        /// A detail for the reason: the opening time, the TD's reason, the
        /// player's rating, the line written without a number.
        detail: Option<String>,
    },
    /// The entry was withdrawn.
    Withdrawn {
        /// The event.
        event: OpenEvent,
    },
    /// The events open for entries (`entries`).
    Open {
        /// The events.
        events: Vec<OpenEvent>,
    },
    /// An event opened for entries (to players who asked to hear).
    Announced {
        /// The event.
        event: OpenEvent,
    },
    /// The event started with the entrant in it; the games' mails follow.
    Seated {
        /// The event.
        event: OpenEvent,
        /// In an open class: the section's name and number of its event.
        section: Option<(String, i64)>,
    },
    /// The event started, or closed, without the entrant: why.
    LeftOut {
        /// The event.
        event: OpenEvent,
        /// `unconfirmed`, `over-max`, `too-few` or `queue-closed`.
        why: &'static str,
    },
    /// The preliminary groups of an event played in stages have ended:
    /// the player goes through to the final (`stage`), or does not.
    Qualified {
        /// The whole event.
        event: OpenEvent,
        /// The final's name and event number, when the player is in it.
        stage: Option<(String, i64)>,
    },
    /// A section of an open class has ended and the player's result earns
    /// them a qualification (a promotion).
    Promoted {
        /// The class.
        event: OpenEvent,
        /// The section's name and event number.
        section: (String, i64),
        /// The qualification's name.
        to: String,
        /// Their place after the section's tie-breaks.
        place: u32,
        /// Their points, and what their games could give.
        points: String,
        /// What their games could give.
        possible: String,
    },
    /// To the TDs: entries closed with too few; nothing started.
    TooFew {
        /// The event.
        event: OpenEvent,
    },
    /// The player chose whether to hear of events opening for entries.
    Announcements {
        /// Whether they will.
        on: bool,
    },
}

/// Why a player's mail could not be handled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotHandledCause {
    /// Reading it took longer than the per-mail budget.
    TooSlow,
    /// It went over one of the caps on what is read of one mail.
    TooComplex {
        /// Which cap: `size`, `multiparts`, `boundary`, `parts`, `depth`, `work`.
        cap: &'static str,
        /// What the mail had (a figure).
        found: String,
        /// The cap (a figure).
        max: String,
    },
    /// Handling it failed on our side (kept for the admin).
    Failed,
}

impl NotHandledCause {
    /// The key templates test, e.g. `too_slow`.
    pub fn key(&self) -> &'static str {
        match self {
            NotHandledCause::TooSlow => "too_slow",
            NotHandledCause::TooComplex { .. } => "too_complex",
            NotHandledCause::Failed => "failed",
        }
    }
}

/// One game in a digest: the game as mails show it, and the address that
/// answers in it (a reply to the digest itself names no game).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestGame {
    /// The game, seen by the recipient.
    pub view: GameView,
    /// The recipient's reply address for this game.
    pub reply_to: EmailAddress,
}

/// What a [`LetterKind::Vote`] mail tells a member of a consultation side.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VoteNews {
    /// `open` (the side's move: vote), `counted` (the member's vote was
    /// counted) or `decided` (the side's move was made).
    pub what: &'static str,
    /// The member's team.
    pub team: String,
    /// `counted`: the member's vote; `decided`: the move played, numbered
    /// (`12... Nf6`); in the member's piece letters.
    pub played: Option<String>,
    /// `counted`: it replaced an earlier vote of theirs.
    pub changed: bool,
    /// `decided`: how many votes the move played had.
    pub votes_for: u32,
    /// The side's votes so far (`decided`: all of them), the leader first.
    pub votes: Vec<VoteLine>,
    /// How many members voted, of how many.
    pub voted: u32,
    /// The side's members.
    pub members: u32,
    /// `open`, `counted`: when the votes close, for the member.
    pub closes: Option<String>,
}

/// One move and its votes, in a [`VoteNews`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VoteLine {
    /// The move, in the member's piece letters.
    pub san: String,
    /// Its votes.
    pub votes: u32,
    /// Who voted for it.
    pub voters: Vec<String>,
}

/// Whom a [`LetterKind::Replaced`] mail is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplacementRole {
    /// The substitute, about a game they take over.
    Substitute,
    /// The opponent in a game, who now plays the substitute.
    Opponent,
    /// The player who was replaced.
    Replaced,
}

impl ReplacementRole {
    /// The key templates switch on.
    pub fn key(self) -> &'static str {
        match self {
            ReplacementRole::Substitute => "substitute",
            ReplacementRole::Opponent => "opponent",
            ReplacementRole::Replaced => "replaced",
        }
    }
}

/// A game closed by a player's withdrawal, as the mail to that player
/// lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WithdrawnGame {
    /// The game's number.
    pub game: i64,
    /// The opponent's name.
    pub opponent: String,
    /// Lost by forfeit (else annulled).
    pub forfeit: bool,
}

/// The TD deadline report as a mail shows it: times and cells already
/// written in the forms every language shares (UTC times, numbers, names,
/// addresses); the templates add the words.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReportView {
    /// The instant it is made for.
    pub at: String,
    /// Deadlines up to this instant count as due soon.
    pub due_until: String,
    /// Timeouts after this instant are listed.
    pub timeouts_since: String,
    /// Games past their deadline.
    pub overdue: Vec<ReportGame>,
    /// Games due soon.
    pub due_soon: Vec<ReportGame>,
    /// Games whose player to move has been silent 14 days or more.
    pub silent: Vec<ReportGame>,
    /// Leave under way, then leave to come.
    pub leave: Vec<ReportLeave>,
    /// Games ended on time.
    pub timeouts: Vec<ReportTimeout>,
}

/// One game in the report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReportGame {
    /// The game's number.
    pub game: i64,
    /// `#` and the number, padded to line up in text.
    pub tag: String,
    /// The player to move, and their address.
    pub player: String,
    /// Their address.
    pub email: String,
    /// Their opponent.
    pub opponent: String,
    /// The time control.
    pub time_control: String,
    /// The deadline, or `-`.
    pub deadline: String,
    /// Whole days silent.
    pub silent_days: i64,
    /// The silence threshold reached (14, 28 or 35; 0: none).
    pub band: i64,
    /// The moves played so far, where the mail tells them (a Swiss
    /// round's closing notice); `None` in the deadline report.
    pub moves: Option<usize>,
}

/// A player on leave now or next.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReportLeave {
    /// The player.
    pub player: String,
    /// Their address.
    pub email: String,
    /// First day.
    pub from: String,
    /// Last day.
    pub to: String,
    /// Whether the leave is under way.
    pub now: bool,
    /// Special leave granted by a TD.
    pub special: bool,
}

/// A game ended on time.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReportTimeout {
    /// The game's number.
    pub game: i64,
    /// `#` and the number, padded to line up in text.
    pub tag: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The result (`1-0`, `0-1`, `1/2-1/2`).
    pub result: String,
    /// Whether it is a draw (time ran out, but the other side could not mate).
    pub drawn: bool,
    /// When time ran out.
    pub at: String,
}

pub use crate::adapter::mail::stale::MovePoint;
pub use crate::domain::arbiter::{ConditionalNote, Reason, RejectionKind};

/// Why a mail could not be composed; a bug or bad data, never the player's fault.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// A template failed to render.
    #[error("template {name}: {message}")]
    Template {
        /// The template's name, e.g. `en/your_move.txt`.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// The board picture could not be drawn.
    #[error("board picture: {0}")]
    Board(String),
    /// An address lettre does not accept.
    #[error("address {address}: {message}")]
    Address {
        /// The address.
        address: String,
        /// Why it was refused.
        message: String,
    },
    /// A mail about a game was asked for without the game.
    #[error("a {0} mail needs a game")]
    NeedsGame(&'static str),
    /// lettre refused to build the message.
    #[error("building the message: {0}")]
    Build(String),
}

/// What each kind of letter is, one row a kind: the base name of its
/// templates, and whether it shows the board (when there is a game), cannot
/// go without a game, and carries the PGN as an attachment.
const BOARD: u8 = 1;
const GAME: u8 = 2;
const PGN: u8 = 4;

impl LetterKind {
    fn row(&self) -> (&'static str, u8) {
        use LetterKind as K;
        match self {
            K::GameStarted => ("game_started", BOARD | GAME),
            K::YourMove => ("your_move", BOARD | GAME),
            K::MoveAccepted { .. } => ("move_accepted", BOARD | GAME),
            K::GameOver => ("game_over", BOARD | GAME | PGN),
            K::DrawOfferDeclined => ("draw_offer_declined", BOARD | GAME),
            K::Rejected { .. } => ("rejected", BOARD),
            K::ConfirmRequest { .. } => ("confirm_request", 0),
            K::ConfirmStale { .. } => ("confirm_stale", BOARD | GAME),
            K::Repeated { .. } => ("repeated", BOARD | GAME),
            K::Refused { .. } => ("refused", 0),
            K::NotHandled { .. } => ("not_handled", 0),
            K::Help { .. } => ("help", 0),
            K::Status => ("status", BOARD | GAME),
            K::Games { .. } => ("games", 0),
            K::Pgn => ("pgn", BOARD | GAME | PGN),
            K::Conditionals { .. } => ("conditionals", 0),
            K::Digest { .. } => ("digest", 0),
            K::NotifyChanged { .. } => ("notify_changed", 0),
            K::ConditionalPlayed { .. } => ("conditional_played", BOARD | GAME),
            K::Standings { .. } => ("standings", 0),
            K::Withdrawal { .. } => ("withdrawal", BOARD),
            K::Replaced { .. } => ("replaced", BOARD),
            K::DeadlineExtended { .. } => ("deadline_extended", BOARD | GAME),
            K::GameCancelled { .. } => ("game_cancelled", BOARD | GAME),
            K::Reminder { .. } => ("reminder", BOARD | GAME),
            K::Silence { .. } => ("silence", GAME),
            K::LeaveNotice { .. } => ("leave_notice", GAME),
            K::LeaveBooked { .. } => ("leave_booked", 0),
            K::XfccPassword { .. } => ("xfcc_password", 0),
            K::LeaveRefused { .. } => ("leave_refused", 0),
            K::LanguageChanged => ("language_changed", 0),
            K::DeadlineReport { .. } => ("deadline_report", 0),
            K::ReportInstructions { .. } => ("report_instructions", 0),
            K::SwissRoundClosing { .. } => ("swiss_round_closing", 0),
            K::SwissRoundUnpaired { .. } => ("swiss_round_unpaired", 0),
            K::AddressBounces { .. } => ("address_bounces", 0),
            K::Entry { .. } => ("entry", 0),
            K::SwissBye { .. } => ("swiss_bye", 0),
            K::Vote { .. } => ("vote", BOARD | GAME),
            K::Message { .. } => ("message", GAME),
        }
    }

    /// The templates' base name, e.g. `your_move` for `your_move.txt`.
    pub fn template_name(&self) -> &'static str {
        self.row().0
    }

    fn shows_board(&self) -> bool {
        self.row().1 & BOARD != 0
    }

    fn needs_game(&self) -> bool {
        self.row().1 & GAME != 0
    }

    fn attaches_pgn(&self) -> bool {
        self.row().1 & PGN != 0
    }
}

/// The mail as RFC 5322 bytes with CRLF line ends, ready for SMTP or a Maildir.
pub fn compose(letter: &Letter) -> Result<Vec<u8>, ComposeError> {
    let mut ctx = explained(letter, context::build(letter, true)?)?;
    let rendered = templates::render(letter.lang, letter.kind.template_name(), &ctx)?;
    let subject = full_subject(letter, &rendered.subject);
    ctx.ics = deadline_calendar(letter, &ctx)?;
    mime::assemble(letter, &ctx, &subject, &rendered)
}

/// The `.ics` file of a mail, if it carries one (see `calendar`): a
/// "your move" mail's deadline, one event per game and side, updated by
/// each later mail; the cancellation of that event in the mail that tells
/// the player their move was played (unless it is their move again: then
/// the "your move" mail updates it) or that the game is over.
fn deadline_calendar(
    letter: &Letter,
    ctx: &context::Context,
) -> Result<Option<context::Ics>, ComposeError> {
    let Some(view) = letter.game.as_ref() else {
        return Ok(None);
    };
    let Some(side) = view.recipient else {
        return Ok(None);
    };
    let plies = u32::try_from(view.game.plies().len()).unwrap_or(u32::MAX);
    let side_name = if side.is_white() { "white" } else { "black" };
    let uid = format!(
        "dopis.g{}.{side_name}@{}",
        view.id,
        letter.from.address.domain()
    );
    let file = format!("dopis-{}.ics", view.id);
    let over = view.game.is_over();
    let their_move = !over && view.game.turn() == side;
    // The last "your move" mail to this side had the half-moves played
    // then as its SEQUENCE: at most `plies` (a game ended on that side's
    // move, by resigning or on time, adds none), so `plies + 1` is higher.
    let cancel_after = match &letter.kind {
        LetterKind::MoveAccepted { .. } if !over && !their_move => Some(plies),
        LetterKind::GameOver if over => Some(plies.saturating_add(1)),
        _ => None,
    };
    if let Some(sequence) = cancel_after {
        let summary = format!("[dopis #{}] {} – {}", view.id, view.white, view.black);
        let text = calendar::cancel(&calendar::Cancellation {
            uid,
            sequence,
            stamp: letter.date,
            organizer: letter.from.address.as_str(),
            summary: &summary,
        });
        return Ok(Some(context::Ics {
            file,
            text,
            method: "CANCEL",
        }));
    }
    let (LetterKind::YourMove, Some(at), true) = (&letter.kind, view.deadline_at, their_move)
    else {
        return Ok(None);
    };
    let (summary, description) = templates::render_calendar(letter.lang, ctx)?;
    let text = calendar::ics(&calendar::Deadline {
        uid,
        sequence: plies,
        stamp: letter.date,
        at,
        summary: &summary,
        description: &description,
    });
    Ok(Some(context::Ics {
        file,
        text,
        method: "PUBLISH",
    }))
}

/// A deadline in a player's calendar feed: a "your move" letter's event,
/// with the same UID, summary and description as the `.ics` the mail
/// carries, and a link (the game's page). `None` unless the letter is a
/// "your move" about a game with a deadline where it is the recipient's move.
pub fn feed_entry(
    letter: &Letter,
    link: Option<String>,
) -> Result<Option<FeedEntry>, ComposeError> {
    let Some(view) = letter.game.as_ref() else {
        return Ok(None);
    };
    let (LetterKind::YourMove, Some(side), Some(at)) =
        (&letter.kind, view.recipient, view.deadline_at)
    else {
        return Ok(None);
    };
    if view.game.is_over() || view.game.turn() != side {
        return Ok(None);
    }
    let ctx = explained(letter, context::build(letter, true)?)?;
    let (summary, mut description) = templates::render_calendar(letter.lang, &ctx)?;
    if let Some(link) = &link {
        description = format!("{description}\n\n{link}");
    }
    let side_name = if side.is_white() { "white" } else { "black" };
    Ok(Some(FeedEntry {
        uid: format!(
            "dopis.g{}.{side_name}@{}",
            view.id,
            letter.from.address.domain()
        ),
        sequence: u32::try_from(view.game.plies().len()).unwrap_or(u32::MAX),
        stamp: letter.date,
        at,
        summary,
        description,
        link,
    }))
}

/// One deadline of a calendar feed ([`feed_entry`], [`deadline_feed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEntry {
    uid: String,
    sequence: u32,
    stamp: DateTime<Utc>,
    at: DateTime<Utc>,
    summary: String,
    description: String,
    link: Option<String>,
}

/// A player's calendar feed of deadlines: `.ics` text, CRLF line ends.
pub fn deadline_feed(name: &str, zone: Option<&str>, entries: &[FeedEntry]) -> String {
    let events: Vec<_> = entries
        .iter()
        .map(|e| {
            (
                calendar::Deadline {
                    uid: e.uid.clone(),
                    sequence: e.sequence,
                    stamp: e.stamp,
                    at: e.at,
                    summary: &e.summary,
                    description: &e.description,
                },
                e.link.clone(),
            )
        })
        .collect();
    calendar::feed(name, zone, &events)
}

/// The context with the letter's typed reason or note in words, in the
/// letter's language (`reason.txt`).
fn explained(letter: &Letter, mut ctx: context::Context) -> Result<context::Context, ComposeError> {
    let words = match &letter.kind {
        LetterKind::Rejected { reason, .. }
        | LetterKind::Refused { reason }
        | LetterKind::LeaveRefused { reason, .. } => words::reason(reason),
        LetterKind::Conditionals { note, .. } => {
            words::note(note, letter.game.as_ref().map(|v| &v.game), letter.lang)
        }
        _ => return Ok(ctx),
    };
    ctx.explanation = Some(templates::words(letter.lang, &words)?);
    Ok(ctx)
}

/// How a game ended, in `lang`'s words as its mails say it (`Mat: zmaga
/// Ana Novak.`), with the players' names; `None` while it runs. For the
/// web pages, which tell the end of a game as the mails do.
pub fn outcome_words(game: &Game, white: &str, black: &str, lang: Lang) -> Option<String> {
    let name = |c: Color| match c {
        Color::White => white.to_owned(),
        Color::Black => black.to_owned(),
    };
    let ctx = context::outcome_context(game.outcome()?, &name, None);
    templates::outcome(lang, &ctx).ok()
}

/// The subject line, with the tag `[dopis #42]` when the mail is about a game.
pub fn subject(letter: &Letter) -> String {
    let line = context::build(letter, false)
        .and_then(|ctx| explained(letter, ctx))
        .and_then(|ctx| templates::render_subject(letter.lang, letter.kind.template_name(), &ctx))
        .unwrap_or_default();
    full_subject(letter, &line)
}

/// The longest subject text kept (before the tag), in characters.
const MAX_SUBJECT: usize = 120;

fn full_subject(letter: &Letter, line: &str) -> String {
    // One line of printable text, whatever a name or a quoted text brought in.
    let mut clean = mime::one_line(line);
    if clean.chars().count() > MAX_SUBJECT {
        clean = clean.chars().take(MAX_SUBJECT - 1).collect::<String>() + "…";
    }
    if clean.is_empty() {
        clean = "dopis".to_owned();
    }
    match &letter.game {
        Some(view) => format!("[dopis #{}] {clean}", view.id),
        None => format!("[dopis] {clean}"),
    }
}
