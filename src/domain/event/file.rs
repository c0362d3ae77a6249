//! The event file: one TOML file a TD writes to create an event
//! (`dopis event create FILE.toml`). Examples of every kind are in
//! `tests/fixtures/events/`.
//!
//! ```toml
//! name = "Club championship 2027"   # required
//! kind = "round-robin"              # required: round-robin | swiss | olympiad | team-match
//! time_control = "10/50d"           # default "3d"; see clock::control for specs
//! leave_days = 45                   # leave per player per calendar year, default 45
//! tds = ["td@example.org"]          # required: the TDs' addresses, at least one
//! withdrawal = "annul-if-under-half" # or "forfeit-all" (the default is annul-if-under-half)
//! sb_unplayed = "count"             # or "exclude": games won or lost by default
//!                                   # (without play) in Sonneborn-Berger; default "count"
//! tie_breaks = ["wins", "sonneborn-berger", "direct-encounter"]
//!
//! analysis_link = "off"             # optional: the board link in "your move" mails;
//!                                   # "off", "lichess" or an address template (see
//!                                   # chess::analysis); default: the server's [mail] setting
//! messages = false                  # optional: players may not pass messages to each
//!                                   # other with their moves (default true)
//! rated = false                     # optional: the games do not count for the rating
//!                                   # list (default true; see crate::domain::rating)
//! visibility = "public"             # optional: who may see its web pages (`dopis web`):
//!                                   # "public" (listed on the index), "unlisted" (the
//!                                   # default: by link only) or "private" (its own
//!                                   # players only); see super::Visibility
//! lang = "sl"                       # optional: the language of its public web pages
//!                                   # (and their Atom feed) for a reader whose browser
//!                                   # names none of the pages' languages: en (the
//!                                   # default), sl, pl, lv or de. A reader may still
//!                                   # switch; a player's own pages are in their language
//!
//! start = { moves = "1.e4 c5 2.Nf3 d6" }
//!                                   # optional, one of three forms (see "Where the
//!                                   # games start" below): a thematic line every game
//!                                   # starts with, a position (`fen`), or Chess960
//! tablebase_rule = "iccf"           # optional: what decides a claim on the endgame
//!                                   # tables: "iccf" (the default: the tables' result
//!                                   # without the 50-move rule), "fifty-move" (a cursed
//!                                   # win or a blessed loss is a draw) or "none" (claims
//!                                   # on the tables are refused)
//! tablebase_end = "claim"           # optional: "claim" (the default: a game in the
//!                                   # tables goes on until a player claims, as at ICCF)
//!                                   # or "auto" (it ends as the tables say at once)
//! tablebase_notice = false          # optional: do not tell the players when their game
//!                                   # enters the tables (default true)
//!
//! [draws]                           # optional; 0 (the default) means no limit
//! first_offer_move = 20             # no draw offers before move 20
//! moves_between_offers = 10         # a player offers at most once per 10 moves
//!
//! [scoring]                         # optional; default win = 1, draw = 0.5, loss = 0
//! win = 3
//! draw = 1
//! loss = 0
//! ```
//!
//! Where the games start (`start`, default the usual position):
//!
//! - `start = { moves = "1.e4 c5 2.Nf3 d6" }`: a thematic event. Every game
//!   starts with these moves, already played: they are the game's first
//!   moves (its PGN shows them, as ICCF's thematic events do), the first
//!   mails show the position after them and name the line, and the players'
//!   moves are numbered on from there (here White's first move by mail is
//!   move 3). The moves cost neither clock. The line is read as the
//!   players' mails are (English letters): SAN with or without move
//!   numbers, long algebraic (`Ng1-f3`), UCI, ICCF numeric; each move must
//!   be legal and clear, and the line may not end the game. A line that ends
//!   with White's move (`1.e4 e5 2.Nf3 Nc6 3.Bb5`) has Black move first.
//!   With `fen` beside it, the line is played from that position.
//! - `start = { fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1" }`: every game starts
//!   from this position (an endgame event); White must be to move.
//! - `start = { chess960 = "event" }`, `{ chess960 = "round" }` or
//!   `{ chess960 = 518 }`: a Chess960 event. One start position is drawn
//!   for the whole event, or one for each round (all the round's games play
//!   it), when the event starts (`dopis event start`); a number fixes the
//!   position (0 to 959, Scharnagl numbering; 518 is the usual array).
//!   Each game keeps its position: nothing draws again. Castling is by
//!   Chess960 rules (players write `O-O`/`O-O-O`); the first mails say it
//!   is Chess960 and give the number; the PGN carries `Variant "Chess960"`,
//!   `SetUp "1"` and `FEN`. `chess960` goes with neither `moves` nor `fen`.
//!
//! An illegal or unreadable move of the line is a problem naming the line,
//! `start.moves`, the move's number and side, and how to write the line.
//!
//! Events that run themselves (round robins; `[stages]` olympiads too):
//!
//! - `[entries]`: players enter by mail (`enter 12`) instead of, or beside,
//!   the `[[players]]` the file names; with `section_size` the event is an
//!   open class whose sections start as they fill; `promotes` and
//!   `requires` chain classes (Open → Higher) by the qualifications a
//!   section earns. The keys are in [`entries`](super::entries).
//! - `[stages]`: `groups = 3`, `qualify = 2` (from each group to the
//!   final), optionally `tie_at_line = "rating"` (the default: where the
//!   group's own tie-breaks leave a tie across the line, the higher rating
//!   goes through) or `"starting-number"`, and the names in the TD's words
//!   (`group_name = "Cup, group {n}"`, `final_name = "Cup final"`). `event
//!   start` splits the players into the groups by the snake of their
//!   ratings (an olympiad's teams by their boards' average rating, each
//!   group an olympiad); when the last group game ends the final is built
//!   and started by itself (see `service::td` stages).
//!
//! Then, by kind:
//!
//! - `round-robin`: `cycles = 1` (default) or `2`; 3 to 100 `[[players]]`,
//!   each `email`, `name` and optionally `lang` (`sl`, `pl`, `lv`, … see
//!   [`Lang`]). Starting numbers follow the order in the file.
//!   `tie_breaks` from `wins`, `games-won`, `sonneborn-berger`,
//!   `direct-encounter`, `koya`, `games-as-black`, and `baumbach` for ICCF's
//!   chain of wins, sonneborn-berger, direct-encounter (the default). Each is
//!   defined, with its source, in [`tiebreak`](super::tiebreak).
//! - `olympiad`: `boards = 6` (default 6; 1 to 20), `games_per_pairing = 1`
//!   (default) or `2`; at least 3 `[[teams]]`, each with a `name`, exactly
//!   `boards` players in `[[teams.boards]]` (board 1 first) and any number of
//!   `[[teams.reserves]]`. `tie_breaks` is the whole team ranking order from
//!   `game-points`, `match-points`, `direct-encounter`, `sonneborn-berger`,
//!   `board-sonneborn-berger` (default: ICCF's chain, `game-points`,
//!   `match-points`, `direct-encounter`, `board-sonneborn-berger`: board 1's
//!   Sonneborn-Berger, then board 2's, …).
//! - `swiss`: `rounds = 7` (required; fewer than the players), 3 to 1000
//!   `[[players]]` as for a round robin; `event start` gives them their
//!   pairing numbers by rating, then name (FIDE C.04.2), pairs round 1 by
//!   the FIDE Dutch system and the daemon pairs each next round when every
//!   game of the last one has ended (see [`swiss`](super::swiss)).
//!   `bye_points` (default a win's points) is what the pairing-allocated
//!   bye scores; `max_half_point_byes` (default 0) how many half-point
//!   byes a player may ask for; `acceleration = "baku"` (FIDE C.04.5) or
//!   `"none"` (the default). `round_days = 60` gives each round a closing
//!   date that many days after its pairing: the TDs are warned
//!   `round_warn_days` (default 3) days before it of games still played,
//!   and told at it to adjudicate them; without it a round lasts until its
//!   last game ends. `tie_breaks` by name or FIDE abbreviation
//!   (`BH-C1`, `BH`, `BH-M1`, `SB`, `PS`, `DE`, `WIN`, `WON`, `BPG`, `BWG`,
//!   `KS`), computed by FIDE C.07 with its rules for unplayed rounds;
//!   default `BH-C1, BH, SB, DE, WIN, BWG`. `[entries]` as for a round robin
//!   but without sections (`entries.min` above `rounds`); no `[stages]`.
//! - `team-match`: as an olympiad with exactly two teams and no
//!   `games_per_pairing` (every board plays two games); the default order is
//!   `game-points`, `match-points`, `direct-encounter`, `sonneborn-berger`.
//!
//! `withdrawal` decides a withdrawn player's row (see
//! [`standings`](super::standings)):
//!
//! - `"forfeit-all"`: the player stays in the table, as ICCF lists them:
//!   finished games stand, every unfinished one is lost by default (the
//!   crosstable shows `-` for the player and `+` for the opponent).
//! - `"annul-if-under-half"` (the default): a player who finished fewer than
//!   half of their games leaves the table, and every game of theirs counts
//!   for nobody (their opponents are told the game is annulled); a player
//!   who finished half or more stays, as with `"forfeit-all"`.
//!
//! `sb_unplayed = "exclude"` leaves games decided by default (a withdrawal's
//! forfeits, results entered with `--kind default`) out of Sonneborn-Berger:
//! they still give points and count as wins. Cancelled games count for
//! nobody, whatever the file says.
//!
//! Every key is checked: an unknown key, a key that does not belong to the
//! kind, a bad value, a duplicate address or a missing player is an error
//! naming the line and the key and saying what to write instead. All such
//! problems are reported at once. Key paths count from 1: `players[3].email`
//! is the third player's address.
//!
//! The file creates the event with its entrants in one go (`dopis event
//! create`, one transaction): a player or board named by an address that is
//! not registered yet is registered with the file's `name` and `lang`
//! (English when absent); a registered address keeps its registration.
//! A file with any problem creates nothing and registers nobody.
//!
//! ```toml
//! [[players]]                       # round robin: one per player, in starting order
//! email = "ana@example.si"
//! name = "Ana Novak"
//! lang = "sl"
//!
//! [[teams]]                         # olympiad or team match: one per team
//! name = "ŠK Koper"
//! [[teams.boards]]                  # exactly `boards` of them, board 1 first
//! email = "a@koper.example"
//! name = "Ana Kos"
//! [[teams.reserves]]                # any number
//! email = "r@koper.example"
//! name = "Rok Rezerva"
//! ```

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use toml::Spanned;

use super::berger::{self, Cycles, Pairing};
pub use super::entrant::Entrant;
use super::olympiad::{self, BoardGame, GamesPerPairing};
use super::standings::{Rules, TeamRules};
use super::tiebreak::{TeamCriterion, TieBreak};
use super::{Points, Scoring, WithdrawalRule};
use crate::domain::address::EmailAddress;
use crate::domain::clock::TimeControl;
use crate::domain::lang::Lang;

/// A validated event, ready to be stored and started.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's name.
    pub name: String,
    /// Round robin, olympiad or team match, with its entrants.
    pub kind: EventKind,
    /// Time control of every game.
    pub time_control: TimeControl,
    /// Leave days per player per calendar year.
    pub leave_days: u32,
    /// Points per result.
    pub scoring: Scoring,
    /// The TDs' addresses.
    pub tds: Vec<EmailAddress>,
    /// What a withdrawal does to a player's games.
    pub withdrawal: WithdrawalRule,
    /// Whether games won or lost by default count for Sonneborn-Berger
    /// (`sb_unplayed`, default `"count"`).
    pub sb_counts_unplayed: bool,
    /// The rules for draw offers.
    pub draws: super::DrawPolicy,
    /// The analysis board link of its mails; `None`: the server's setting.
    pub analysis_link: Option<crate::domain::chess::analysis::AnalysisLink>,
    /// Whether players may pass messages to each other (`messages`, default true).
    pub messages: bool,
    /// Who may see its web pages (`visibility`, default unlisted).
    pub visibility: super::Visibility,
    /// The language of its public pages for a reader whose browser names
    /// none of theirs (`lang`; `None`: English).
    pub lang: Option<Lang>,
    /// Whether its finished games count for the rating list (`rated`,
    /// default true).
    pub rated: bool,
    /// The rules for the endgame tables (`tablebase_rule`, `tablebase_end`,
    /// `tablebase_notice`).
    pub tablebase: crate::domain::chess::tablebase::TablebasePolicy,
    /// Where every game starts (`start = { fen = "…" }`; default the usual
    /// position).
    pub start: crate::domain::chess::game::StartPosition,
    /// The rules for entries by mail (`[entries]`), when the event takes
    /// them (see [`entries`](super::entries)).
    pub entries: Option<super::entries::EntryRules>,
    /// Preliminary groups and a final (`[stages]`), for a round robin or an olympiad.
    pub stages: Option<super::entries::Stages>,
    /// The thematic line every game starts with, played from `start`
    /// (`start = { moves = "1.e4 c5 2.Nf3 d6" }`).
    pub opening: Option<crate::domain::chess::opening::Opening>,
    /// How a Chess960 event draws its start positions (`start = { chess960
    /// = "event" | "round" | N }`); `None`: not a Chess960 event.
    pub chess960: Option<super::Chess960Draw>,
    /// A consultation game's two voting sides (`kind = "consultation"`):
    /// then `kind` is a round robin of the two captains.
    pub consultation: Option<super::consultation::Sides>,
}

/// The kind of event, with its entrants and ranking order.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// Everyone plays everyone.
    RoundRobin {
        /// Single or double.
        cycles: Cycles,
        /// Players in starting-number order.
        players: Vec<Entrant>,
        /// Tie-breaks after points.
        tie_breaks: Vec<TieBreak>,
    },
    /// Teams in a section; board i plays board i of every other team.
    Olympiad {
        /// One game per board pairing, or two.
        games_per_pairing: GamesPerPairing,
        /// Boards per team.
        boards: u32,
        /// Teams in starting-number order.
        teams: Vec<Team>,
        /// Team ranking order.
        order: Vec<TeamCriterion>,
    },
    /// A Swiss tournament: paired round by round by the FIDE Dutch
    /// system (see [`swiss`](super::swiss)).
    Swiss {
        /// Players in the file's order; `event start` gives them their
        /// pairing numbers (by rating, then name: C.04.2).
        players: Vec<Entrant>,
        /// Tie-breaks after points (FIDE C.07).
        tie_breaks: Vec<TieBreak>,
        /// Rounds, the bye and acceleration.
        rules: SwissRules,
    },
    /// Two teams; board i plays board i twice.
    TeamMatch {
        /// Boards per team.
        boards: u32,
        /// The two teams (the first has White on board 1 in the first game).
        teams: Vec<Team>,
        /// Team ranking order.
        order: Vec<TeamCriterion>,
    },
}

/// A Swiss event's own rules (`kind = "swiss"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SwissRules {
    /// How many rounds are played (`rounds`).
    pub rounds: u32,
    /// What the pairing-allocated bye scores, in quarter points
    /// (`bye_points`; default a win's points, C.04.1 Article 3).
    pub bye_quarters: i64,
    /// How many half-point byes a player may ask for
    /// (`max_half_point_byes`, default 0).
    pub max_half_point_byes: u32,
    /// Baku acceleration (`acceleration = "baku"`, C.04.5).
    pub baku: bool,
    /// Days each round has from its pairing to its closing date
    /// (`round_days`); `None`: a round lasts until its last game ends.
    /// At the closing date the TDs adjudicate the games still played.
    /// Stored with the event: an event stored before it has none.
    #[serde(default)]
    pub round_days: Option<u32>,
    /// Days before a round's closing date that the TDs are warned of
    /// games still played (`round_warn_days`, default
    /// [`DEFAULT_ROUND_WARN_DAYS`]).
    #[serde(default = "default_round_warn_days")]
    pub round_warn_days: u32,
}

/// Days before a round's closing date that the TDs are warned by default.
pub const DEFAULT_ROUND_WARN_DAYS: u32 = 3;
/// Most days a Swiss round may last (`round_days`): a year.
pub const MAX_ROUND_DAYS: i64 = 366;

fn default_round_warn_days() -> u32 {
    DEFAULT_ROUND_WARN_DAYS
}

impl SwissRules {
    /// The points of the pairing-allocated bye.
    pub fn bye_points(&self) -> Points {
        Points::from_quarters(self.bye_quarters)
    }

    /// The pairing's point system under the event's scoring (a forfeit
    /// loses as a loss does; an absence scores nothing).
    pub fn point_system(&self, scoring: &Scoring) -> super::swiss::PointSystem {
        super::swiss::PointSystem {
            win: scoring.win,
            draw: scoring.draw,
            loss: scoring.loss,
            forfeit_loss: scoring.loss,
            zero_bye: Points::ZERO,
            pairing_bye: self.bye_points(),
        }
    }

    /// The acceleration the pairing applies.
    pub fn acceleration(&self) -> super::swiss::Acceleration {
        if self.baku {
            super::swiss::Acceleration::Baku
        } else {
            super::swiss::Acceleration::None
        }
    }
}

/// Most rounds a Swiss event may have.
pub const MAX_SWISS_ROUNDS: i64 = 50;
/// Most players a Swiss event may have.
pub const MAX_SWISS_PLAYERS: usize = 1000;

/// A team: players by board, and reserves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    /// The team's name.
    pub name: String,
    /// Players, board 1 first.
    pub boards: Vec<Entrant>,
    /// Reserves who may replace a board player.
    pub reserves: Vec<Entrant>,
}

/// Every game of an event, as its kind pairs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pairings {
    /// Round-robin games between player indices.
    Individual(Vec<Pairing>),
    /// Board games between team indices.
    Teams(Vec<BoardGame>),
}

impl Event {
    /// Where its games start, in words (`dopis event show`).
    pub fn start_words(&self) -> String {
        use super::Chess960Draw;
        use crate::domain::chess::game::StartPosition;
        let from = match &self.start {
            StartPosition::Standard => String::new(),
            StartPosition::Chess960(n) => format!("Chess960 position {n}"),
            StartPosition::Fen(fen) => format!("the position {fen}"),
        };
        match (&self.chess960, &self.opening) {
            (Some(Chess960Draw::PerEvent), _) => {
                "Chess960, one position for every game, drawn when the event starts".into()
            }
            (Some(Chess960Draw::PerRound), _) => {
                "Chess960, one position for each round, drawn when the event starts".into()
            }
            (Some(Chess960Draw::Fixed(n)), _) => format!("Chess960 position {n}"),
            (None, Some(line)) if from.is_empty() => format!("after the thematic line {line}"),
            (None, Some(line)) => format!("after the thematic line {line} from {from}"),
            (None, None) if from.is_empty() => "the usual position".into(),
            (None, None) => from,
        }
    }

    /// Every game of the event.
    pub fn pairings(&self) -> Pairings {
        match &self.kind {
            EventKind::RoundRobin {
                cycles, players, ..
            } => Pairings::Individual(
                berger::round_robin(players.len(), *cycles).unwrap_or_default(),
            ),
            EventKind::Olympiad {
                games_per_pairing,
                boards,
                teams,
                ..
            } => Pairings::Teams(
                olympiad::olympiad(teams.len(), *boards, *games_per_pairing).unwrap_or_default(),
            ),
            EventKind::TeamMatch { boards, .. } => Pairings::Teams(olympiad::team_match(*boards)),
            // A Swiss event is paired round by round from the results so
            // far: the stored rounds are its pairings.
            EventKind::Swiss { .. } => Pairings::Individual(Vec::new()),
        }
    }

    /// Who sits out each round: the player (round robin) or team (olympiad)
    /// the Berger table pairs with the dummy when the count is odd. Empty
    /// for even counts and team matches.
    pub fn byes(&self) -> Vec<berger::Bye> {
        match &self.kind {
            EventKind::RoundRobin {
                cycles, players, ..
            } => berger::byes(players.len(), *cycles).unwrap_or_default(),
            EventKind::Olympiad { teams, .. } => {
                berger::byes(teams.len(), Cycles::Single).unwrap_or_default()
            }
            EventKind::TeamMatch { .. } | EventKind::Swiss { .. } => Vec::new(),
        }
    }

    /// The rules individual standings rank by (for a round robin).
    pub fn rules(&self) -> Rules {
        let tie_breaks = match &self.kind {
            EventKind::RoundRobin { tie_breaks, .. } | EventKind::Swiss { tie_breaks, .. } => {
                tie_breaks.clone()
            }
            _ => TieBreak::ICCF.to_vec(),
        };
        Rules {
            scoring: self.scoring,
            tie_breaks,
            withdrawal: self.withdrawal,
            sb_counts_unplayed: self.sb_counts_unplayed,
        }
    }

    /// The rules team standings rank by (for an olympiad or team match).
    pub fn team_rules(&self) -> TeamRules {
        let order = match &self.kind {
            EventKind::Olympiad { order, .. } | EventKind::TeamMatch { order, .. } => order.clone(),
            EventKind::RoundRobin { .. } | EventKind::Swiss { .. } => {
                TeamCriterion::TEAM_MATCH.to_vec()
            }
        };
        TeamRules {
            scoring: self.scoring,
            order,
            withdrawal: self.withdrawal,
        }
    }
}

/// One thing wrong in an event file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Line in the file, from 1, where known.
    pub line: Option<usize>,
    /// The key, e.g. `players[3].email`.
    pub key: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}, {}: {}", self.key, self.message),
            None => write!(f, "{}: {}", self.key, self.message),
        }
    }
}

/// Why an event file was refused: every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct BadEventFile {
    /// The problems, in file order where known.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEvent {
    name: Option<Spanned<String>>,
    kind: Option<Spanned<String>>,
    cycles: Option<Spanned<i64>>,
    time_control: Option<Spanned<String>>,
    leave_days: Option<Spanned<i64>>,
    scoring: Option<RawScoring>,
    tie_breaks: Option<Spanned<Vec<Spanned<String>>>>,
    tds: Option<Spanned<Vec<Spanned<String>>>>,
    withdrawal: Option<Spanned<String>>,
    sb_unplayed: Option<Spanned<String>>,
    draws: Option<RawDraws>,
    analysis_link: Option<Spanned<String>>,
    messages: Option<bool>,
    rated: Option<bool>,
    visibility: Option<Spanned<String>>,
    lang: Option<Spanned<String>>,
    tablebase_rule: Option<Spanned<String>>,
    tablebase_end: Option<Spanned<String>>,
    tablebase_notice: Option<bool>,
    start: Option<RawStart>,
    entries: Option<Spanned<RawEntries>>,
    stages: Option<Spanned<RawStages>>,
    boards: Option<Spanned<i64>>,
    games_per_pairing: Option<Spanned<i64>>,
    players: Option<Spanned<Vec<RawEntrant>>>,
    teams: Option<Spanned<Vec<RawTeam>>>,
    vote_hours: Option<Spanned<i64>>,
    rounds: Option<Spanned<i64>>,
    bye_points: Option<Spanned<toml::Value>>,
    max_half_point_byes: Option<Spanned<i64>>,
    acceleration: Option<Spanned<String>>,
    round_days: Option<Spanned<i64>>,
    round_warn_days: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStart {
    fen: Option<Spanned<String>>,
    moves: Option<Spanned<String>>,
    chess960: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStages {
    groups: Option<Spanned<i64>>,
    qualify: Option<Spanned<i64>>,
    tie_at_line: Option<Spanned<String>>,
    group_name: Option<Spanned<String>>,
    final_name: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntries {
    opens: Option<Spanned<toml::Value>>,
    closes: Option<Spanned<toml::Value>>,
    min: Option<Spanned<i64>>,
    max: Option<Spanned<i64>>,
    start_when_full: Option<bool>,
    rating_min: Option<Spanned<i64>>,
    rating_max: Option<Spanned<i64>>,
    open_to: Option<Spanned<String>>,
    invited: Option<Vec<Spanned<String>>>,
    section_size: Option<Spanned<i64>>,
    section_bands: Option<Spanned<Vec<i64>>>,
    promotes: Option<Spanned<RawPromotes>>,
    requires: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPromotes {
    to: Option<Spanned<String>>,
    place: Option<Spanned<i64>>,
    percent: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDraws {
    first_offer_move: Option<Spanned<i64>>,
    moves_between_offers: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScoring {
    win: Option<Spanned<toml::Value>>,
    draw: Option<Spanned<toml::Value>>,
    loss: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntrant {
    email: Spanned<String>,
    name: Spanned<String>,
    lang: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTeam {
    name: Spanned<String>,
    boards: Option<Spanned<Vec<RawEntrant>>>,
    reserves: Option<Vec<RawEntrant>>,
    /// A consultation side's captain (one of `members`).
    captain: Option<Spanned<String>>,
    /// A consultation side's members.
    members: Option<Spanned<Vec<RawEntrant>>>,
}

/// Most boards a team may have.
const MAX_BOARDS: i64 = 20;
/// Most leave days a year an event may grant.
const MAX_LEAVE_DAYS: i64 = 365;

/// Collects problems with their lines while the file is checked.
struct Checker<'a> {
    text: &'a str,
    problems: Vec<Problem>,
}

impl Checker<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.text
            .get(..offset.min(self.text.len()))
            .unwrap_or(self.text)
            .matches('\n')
            .count()
            + 1
    }

    fn at<T>(&mut self, spanned: &Spanned<T>, key: &str, message: impl Into<String>) {
        let line = self.line_of(spanned.span().start);
        self.problems.push(Problem {
            line: Some(line),
            key: key.to_string(),
            message: message.into(),
        });
    }

    fn nowhere(&mut self, key: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            line: None,
            key: key.to_string(),
            message: message.into(),
        });
    }

    fn not_for_kind<T>(&mut self, value: &Option<Spanned<T>>, key: &str, kind: &str) {
        if let Some(v) = value {
            self.at(v, key, format!("{kind} events do not use it; remove it"));
        }
    }

    fn text(&mut self, value: &Spanned<String>, key: &str) -> String {
        let text = value.get_ref().trim().to_string();
        if text.is_empty() {
            self.at(value, key, "is empty; write a name");
        } else if text.chars().count() > 200 || text.chars().any(char::is_control) {
            self.at(value, key, "must be one line of at most 200 characters");
        }
        text
    }

    fn points(
        &mut self,
        value: &Option<Spanned<toml::Value>>,
        key: &str,
        default: Points,
    ) -> Points {
        let Some(v) = value else {
            return default;
        };
        let number = match v.get_ref() {
            toml::Value::Integer(i) => Some(*i as f64),
            toml::Value::Float(f) => Some(*f),
            _ => None,
        };
        match number {
            Some(n) if (0.0..=100.0).contains(&n) && (n * 2.0).fract() == 0.0 => {
                Points::halves((n * 2.0) as i64)
            }
            _ => {
                self.at(
                    v,
                    key,
                    "must be a number of whole or half points from 0 to 100, e.g. 1, 0.5 or 3",
                );
                default
            }
        }
    }

    fn entrant(
        &mut self,
        raw: &RawEntrant,
        key: &str,
        seen: &mut HashSet<EmailAddress>,
    ) -> Option<Entrant> {
        let name = self.text(&raw.name, &format!("{key}.name"));
        let email = match EmailAddress::parse(raw.email.get_ref()) {
            Ok(email) => {
                if !seen.insert(email.clone()) {
                    self.at(
                        &raw.email,
                        &format!("{key}.email"),
                        format!("{email} is already in this event; each player plays once"),
                    );
                }
                Some(email)
            }
            Err(e) => {
                self.at(&raw.email, &format!("{key}.email"), e.to_string());
                None
            }
        };
        let lang = match &raw.lang {
            None => None,
            Some(l) => match l.get_ref().parse::<Lang>() {
                Ok(lang) => Some(lang),
                Err(e) => {
                    self.at(l, &format!("{key}.lang"), e.to_string());
                    None
                }
            },
        };
        Some(Entrant {
            email: email?,
            name,
            lang,
        })
    }

    /// The ranking order `tie_breaks` lists; `named` reads one name (which
    /// may stand for several, as `baumbach` does).
    fn order<T: PartialEq + Copy>(
        &mut self,
        raw: &Option<Spanned<Vec<Spanned<String>>>>,
        default: &[T],
        named: impl Fn(&str) -> Result<Vec<T>, super::tiebreak::UnknownTieBreak>,
    ) -> Vec<T> {
        let Some(list) = raw else {
            return default.to_vec();
        };
        let chain = list
            .get_ref()
            .iter()
            .any(|n| n.get_ref().trim().eq_ignore_ascii_case("baumbach"));
        let twice = if chain {
            "is listed twice (`baumbach` stands for wins, sonneborn-berger and direct-encounter); keep one"
        } else {
            "is listed twice; keep one"
        };
        let mut out = Vec::new();
        for (i, name) in list.get_ref().iter().enumerate() {
            let key = format!("tie_breaks[{}]", i + 1);
            match named(name.get_ref()) {
                Ok(ts) if ts.iter().any(|t| out.contains(t)) => self.at(name, &key, twice),
                Ok(ts) => out.extend(ts),
                Err(e) => self.at(name, &key, e.to_string()),
            }
        }
        out
    }

    /// `entries.promotes`: what a section of an open class earns.
    fn promotes(
        &mut self,
        raw: &Spanned<RawPromotes>,
        section_size: Option<u32>,
    ) -> Option<super::entries::Promotion> {
        let p = raw.get_ref();
        let Some(size) = section_size else {
            self.at(
                raw,
                "entries.promotes",
                "promotions need sections: add section_size (an open class's sections promote), or remove promotes",
            );
            return None;
        };
        let to = match &p.to {
            Some(t) => {
                let name = t.get_ref().trim();
                if name.is_empty()
                    || name.chars().count() > 40
                    || name.chars().any(char::is_control)
                {
                    self.at(
                        t,
                        "entries.promotes.to",
                        "must name the qualification, in 1 to 40 characters, e.g. to = \"Higher\"",
                    );
                    None
                } else {
                    Some(name.to_string())
                }
            }
            None => {
                self.at(
                    raw,
                    "entries.promotes.to",
                    "is missing; name the qualification a section earns, e.g. promotes = { place = 1, to = \"Higher\" }",
                );
                None
            }
        };
        let place = p.place.as_ref().and_then(|v| {
            if (1..i64::from(size)).contains(v.get_ref()) {
                Some(*v.get_ref() as u32)
            } else {
                self.at(
                    v,
                    "entries.promotes.place",
                    format!(
                        "must be a place from 1 to {} (below the section's size, {size}): the places that earn the qualification",
                        size - 1
                    ),
                );
                None
            }
        });
        let percent = p.percent.as_ref().and_then(|v| {
            if (1..=100).contains(v.get_ref()) {
                Some(*v.get_ref() as u32)
            } else {
                self.at(
                    v,
                    "entries.promotes.percent",
                    "must be a share of the points from 1 to 100 (per cent of what the player's games could give), e.g. percent = 65",
                );
                None
            }
        });
        if p.place.is_none() && p.percent.is_none() {
            self.at(
                raw,
                "entries.promotes",
                "says nothing earns the qualification; add place (e.g. place = 1) or percent (e.g. percent = 65), or both",
            );
        }
        match (to, place.is_some() || percent.is_some()) {
            (Some(to), true) => Some(super::entries::Promotion { to, place, percent }),
            _ => None,
        }
    }

    /// The `[entries]` table.
    fn entries(&mut self, raw: &Spanned<RawEntries>, most: u32) -> super::entries::EntryRules {
        use super::entries::{DEFAULT_MIN, EntryRules, OpenTo};
        let e = raw.get_ref();
        let opens = e
            .opens
            .as_ref()
            .and_then(|v| self.moment(v, "entries.opens", false));
        let closes = match &e.closes {
            Some(v) => self.moment(v, "entries.closes", true),
            None => {
                self.at(
                    raw,
                    "entries.closes",
                    "is missing; say when entries close and the event starts, e.g. closes = \"2027-02-01\" (the end of that day, UTC) or \"2027-02-01T12:00:00Z\"",
                );
                None
            }
        };
        let max_n = i64::from(most);
        let min = self.count(
            &e.min,
            "entries.min",
            i64::from(DEFAULT_MIN)..=max_n,
            i64::from(DEFAULT_MIN),
            &format!(
                "must be a number of entrants from 3 to {most}: the fewest the event starts with"
            ),
        ) as u32;
        let max = self.count(
            &e.max,
            "entries.max",
            i64::from(DEFAULT_MIN)..=max_n,
            max_n,
            &format!("must be a number of entrants from 3 to {most}: the most the event takes"),
        ) as u32;
        if max < min
            && let Some(m) = &e.max
        {
            self.at(
                m,
                "entries.max",
                format!("is less than entries.min ({min}); make max at least min"),
            );
        }
        let rating = |c: &mut Self, v: &Option<Spanned<i64>>, key: &str| {
            v.as_ref().and_then(|v| {
                if (0..=4000).contains(v.get_ref()) {
                    Some(*v.get_ref() as i32)
                } else {
                    c.at(v, key, "must be a rating from 0 to 4000");
                    None
                }
            })
        };
        let rating_min = rating(self, &e.rating_min, "entries.rating_min");
        let rating_max = rating(self, &e.rating_max, "entries.rating_max");
        if let (Some(lo), Some(hi), Some(v)) = (rating_min, rating_max, &e.rating_max)
            && hi < lo
        {
            self.at(
                v,
                "entries.rating_max",
                format!("is below entries.rating_min ({lo}); the band must run from low to high"),
            );
        }
        let open_to = match &e.open_to {
            None => OpenTo::Players,
            Some(v) => match v.get_ref().as_str() {
                "players" => OpenTo::Players,
                "anyone" => OpenTo::Anyone,
                _ => {
                    self.at(
                        v,
                        "entries.open_to",
                        "must be \"players\" (registered players only) or \"anyone\" (an address not yet registered becomes a player when it confirms)",
                    );
                    OpenTo::Players
                }
            },
        };
        let mut invited = Vec::new();
        for (i, v) in e.invited.iter().flatten().enumerate() {
            match EmailAddress::parse(v.get_ref()) {
                Ok(a) if invited.contains(&a) => self.at(
                    v,
                    &format!("entries.invited[{}]", i + 1),
                    format!("{a} is invited twice; name each address once"),
                ),
                Ok(a) => invited.push(a),
                Err(err) => self.at(v, &format!("entries.invited[{}]", i + 1), err.to_string()),
            }
        }
        if let (Some(o), Some(c)) = (opens, closes)
            && c <= o
            && let Some(v) = &e.closes
        {
            self.at(
                v,
                "entries.closes",
                "is not after entries.opens; entries must close after they open",
            );
        }
        let section_size = e.section_size.as_ref().map(|_| {
            self.count(
                &e.section_size,
                "entries.section_size",
                i64::from(DEFAULT_MIN)..=max_n,
                7,
                "must be a section size from 3 to 100 (ICCF's class groups: 7)",
            ) as u32
        });
        let mut section_bands = Vec::new();
        if let Some(b) = &e.section_bands {
            if section_size.is_none() {
                self.at(
                    b,
                    "entries.section_bands",
                    "bands need sections: add section_size, or remove section_bands",
                );
            }
            let edges = b.get_ref();
            if edges.iter().any(|r| !(0..=4000).contains(r))
                || edges.windows(2).any(|w| w[0] >= w[1])
            {
                self.at(
                    b,
                    "entries.section_bands",
                    "must be the bands' lower edges, ratings from 0 to 4000 going up, e.g. [1800, 2200]",
                );
            } else {
                section_bands = edges.iter().map(|r| *r as i32).collect();
            }
        }
        let promotes = e
            .promotes
            .as_ref()
            .and_then(|p| self.promotes(p, section_size));
        let requires = e.requires.as_ref().and_then(|r| {
            let name = r.get_ref().trim();
            if name.is_empty() || name.chars().count() > 40 || name.chars().any(char::is_control) {
                self.at(
                    r,
                    "entries.requires",
                    "must name the qualification an entrant needs, in 1 to 40 characters, as another class's promotes.to names it, e.g. requires = \"Higher\"",
                );
                None
            } else {
                Some(name.to_string())
            }
        });
        EntryRules {
            promotes,
            requires,
            section_size,
            section_bands,
            opens,
            closes: closes.unwrap_or_default(),
            min,
            max,
            start_when_full: e.start_when_full.unwrap_or(false),
            rating_min,
            rating_max,
            open_to,
            invited,
        }
    }

    /// A moment: an RFC 3339 time (`2027-02-01T12:00:00Z`, quoted or as a
    /// TOML date-time) or a date alone, which means the start of that day
    /// (UTC) or, for a closing time (`end_of_day`), its end.
    fn moment(
        &mut self,
        value: &Spanned<toml::Value>,
        key: &str,
        end_of_day: bool,
    ) -> Option<chrono::DateTime<chrono::Utc>> {
        let text = match value.get_ref() {
            toml::Value::String(s) => s.trim().to_string(),
            toml::Value::Datetime(d) => d.to_string(),
            _ => String::new(),
        };
        if let Ok(t) = chrono::DateTime::parse_from_rfc3339(&text) {
            return Some(t.with_timezone(&chrono::Utc));
        }
        if let Ok(day) = chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d") {
            let time = if end_of_day {
                chrono::NaiveTime::from_hms_opt(23, 59, 59)
            } else {
                chrono::NaiveTime::from_hms_opt(0, 0, 0)
            };
            return time.map(|t| day.and_time(t).and_utc());
        }
        self.at(
            value,
            key,
            format!("{text:?} is no date; write a date (\"2027-02-01\") or a time with its zone (\"2027-02-01T12:00:00Z\")"),
        );
        None
    }

    /// The two voting sides of a consultation game: exactly two
    /// `[[teams]]`, each with a `name`, its `[[teams.members]]` and a
    /// `captain` who is one of them; `vote_hours`. Keys of other kinds are
    /// refused.
    fn consultation(
        &mut self,
        raw: &RawEvent,
        seen: &mut HashSet<EmailAddress>,
    ) -> Option<super::consultation::Sides> {
        use super::consultation::{MAX_VOTE_HOURS, Sides, VotingTeam};
        let kind = "consultation";
        self.not_for_kind(&raw.cycles, "cycles", kind);
        self.not_for_kind(&raw.players, "players", kind);
        self.not_for_kind(&raw.boards, "boards", kind);
        self.not_for_kind(&raw.games_per_pairing, "games_per_pairing", kind);
        self.not_for_kind(&raw.tie_breaks, "tie_breaks", kind);
        self.not_for_kind(&raw.entries, "entries", kind);
        self.not_for_kind(&raw.stages, "stages", kind);
        let vote_hours = match &raw.vote_hours {
            None => {
                self.nowhere(
                    "vote_hours",
                    "is missing; write how many hours a side's votes stay open after it is told it is its move, e.g. vote_hours = 48",
                );
                None
            }
            Some(v) if (1..=i64::from(MAX_VOTE_HOURS)).contains(v.get_ref()) => {
                u32::try_from(*v.get_ref()).ok()
            }
            Some(v) => {
                self.at(
                    v,
                    "vote_hours",
                    format!("must be a number of hours from 1 to {MAX_VOTE_HOURS}, e.g. 48"),
                );
                None
            }
        };
        let Some(list) = &raw.teams else {
            self.nowhere(
                "teams",
                "is missing; add two [[teams]] tables, each with a name, a captain and its [[teams.members]]",
            );
            return None;
        };
        if list.get_ref().len() != 2 {
            self.at(
                list,
                "teams",
                format!(
                    "a consultation game is between exactly 2 teams (a team of one member plays alone), this file has {}",
                    list.get_ref().len()
                ),
            );
        }
        let mut teams = Vec::new();
        for (i, t) in list.get_ref().iter().enumerate() {
            let key = format!("teams[{}]", i + 1);
            self.not_for_kind(&t.boards, &format!("{key}.boards"), kind);
            if t.reserves.is_some() {
                self.at(
                    &t.name,
                    &format!("{key}.reserves"),
                    "consultation events do not use it; list every member in [[teams.members]]",
                );
            }
            let name = self.text(&t.name, &format!("{key}.name"));
            if teams
                .iter()
                .any(|other: &VotingTeam| other.name.eq_ignore_ascii_case(&name))
            {
                self.at(
                    &t.name,
                    &format!("{key}.name"),
                    format!("'{name}' is already a team; give each team its own name"),
                );
            }
            let mut members = Vec::new();
            match &t.members {
                Some(list) if !list.get_ref().is_empty() => {
                    for (j, p) in list.get_ref().iter().enumerate() {
                        members.extend(self.entrant(p, &format!("{key}.members[{}]", j + 1), seen));
                    }
                }
                _ => self.at(
                    &t.name,
                    &format!("{key}.members"),
                    "is missing; list the team's players in [[teams.members]] (email, name, lang), at least one",
                ),
            }
            let captain = match &t.captain {
                None => {
                    self.at(
                        &t.name,
                        &format!("{key}.captain"),
                        "is missing; write captain = the address of one of the team's members (their vote breaks a tie)",
                    );
                    None
                }
                Some(v) => match EmailAddress::parse(v.get_ref()) {
                    Ok(email) if members.iter().any(|m: &Entrant| m.email == email) => Some(email),
                    Ok(email) => {
                        self.at(
                            v,
                            &format!("{key}.captain"),
                            format!("{email} is not one of the team's members; name one of its [[teams.members]]"),
                        );
                        None
                    }
                    Err(e) => {
                        self.at(v, &format!("{key}.captain"), e.to_string());
                        None
                    }
                },
            };
            if let Some(captain) = captain {
                teams.push(VotingTeam {
                    name,
                    captain,
                    members,
                });
            }
        }
        let teams: [VotingTeam; 2] = teams.try_into().ok()?;
        Some(Sides {
            teams,
            vote_hours: vote_hours?,
        })
    }

    /// A Swiss event: `rounds`, `[[players]]`, `tie_breaks` (FIDE's
    /// names or abbreviations), `bye_points`, `max_half_point_byes`,
    /// `acceleration`. Keys of other kinds are refused.
    fn swiss(
        &mut self,
        raw: &RawEvent,
        scoring: &Scoring,
        seen: &mut HashSet<EmailAddress>,
    ) -> Option<EventKind> {
        let kind = "swiss";
        self.not_for_kind(&raw.cycles, "cycles", kind);
        self.not_for_kind(&raw.boards, "boards", kind);
        self.not_for_kind(&raw.games_per_pairing, "games_per_pairing", kind);
        self.not_for_kind(&raw.teams, "teams", kind);
        let tie_breaks = self.order(&raw.tie_breaks, &TieBreak::SWISS, TieBreak::named);
        let mut players = Vec::new();
        // An event that takes entries by mail may name a few players (or
        // none) in its file: the rest come by mail.
        let entries = raw.entries.is_some();
        match &raw.players {
            None if entries => {}
            None => self.nowhere(
                "players",
                "is missing; add a [[players]] table (email, name, lang) for each player, or an [entries] table to take entries by mail",
            ),
            Some(list) => {
                for (i, p) in list.get_ref().iter().enumerate() {
                    players.extend(self.entrant(p, &format!("players[{}]", i + 1), seen));
                }
                let n = list.get_ref().len();
                let fewest = if entries { 0 } else { berger::MIN_ENTRANTS };
                if !(fewest..=MAX_SWISS_PLAYERS).contains(&n) {
                    self.at(
                        list,
                        "players",
                        format!(
                            "a Swiss event needs {} to {MAX_SWISS_PLAYERS} players, this file has {n}",
                            berger::MIN_ENTRANTS
                        ),
                    );
                }
            }
        }
        let rounds = match &raw.rounds {
            None => {
                self.nowhere(
                    "rounds",
                    "is missing; write how many rounds are played, e.g. rounds = 7",
                );
                None
            }
            Some(r) if (1..=MAX_SWISS_ROUNDS).contains(r.get_ref()) => {
                let rounds = *r.get_ref() as u32;
                let n = raw.players.as_ref().map_or(0, |l| l.get_ref().len());
                if !entries && n >= berger::MIN_ENTRANTS && rounds as usize >= n {
                    self.at(
                        r,
                        "rounds",
                        format!(
                            "{n} players can play at most {} rounds without meeting twice; write fewer rounds (or a round robin)",
                            n - 1
                        ),
                    );
                }
                Some(rounds)
            }
            Some(r) => {
                self.at(
                    r,
                    "rounds",
                    format!("must be a number of rounds from 1 to {MAX_SWISS_ROUNDS}, e.g. 7"),
                );
                None
            }
        };
        let bye_points = self.points(&raw.bye_points, "bye_points", scoring.win);
        if let Some(v) = &raw.bye_points
            && (bye_points > scoring.win || bye_points < scoring.loss)
        {
            self.at(
                v,
                "bye_points",
                format!(
                    "must be from a loss's points ({}) to a win's ({}): what the pairing-allocated bye scores; FIDE's default is a win's",
                    scoring.loss, scoring.win
                ),
            );
        }
        let max_half_point_byes = self.count(
            &raw.max_half_point_byes,
            "max_half_point_byes",
            0..=MAX_SWISS_ROUNDS,
            0,
            "must be how many half-point byes a player may ask for, from 0 (the default) to the number of rounds",
        ) as u32;
        if let (Some(v), Some(r)) = (&raw.max_half_point_byes, rounds)
            && max_half_point_byes > r
        {
            self.at(
                v,
                "max_half_point_byes",
                format!("is more than the event's {r} rounds; write at most {r}"),
            );
        }
        let baku = match &raw.acceleration {
            None => false,
            Some(v) => match v.get_ref().trim() {
                "baku" => true,
                "none" => false,
                other => {
                    self.at(
                        v,
                        "acceleration",
                        format!("unknown acceleration '{other}': write \"baku\" (FIDE C.04.5) or \"none\" (the default)"),
                    );
                    false
                }
            },
        };
        let (round_days, round_warn_days) = self.round_days(raw);
        Some(EventKind::Swiss {
            players,
            tie_breaks,
            rules: SwissRules {
                rounds: rounds?,
                bye_quarters: bye_points.quarters(),
                max_half_point_byes,
                baku,
                round_days,
                round_warn_days,
            },
        })
    }

    /// A Swiss event's `round_days` (none: a round lasts until its last
    /// game ends) and `round_warn_days` (only with `round_days`, and
    /// fewer days than it).
    fn round_days(&mut self, raw: &RawEvent) -> (Option<u32>, u32) {
        let days = raw.round_days.as_ref().and_then(|v| {
            if (1..=MAX_ROUND_DAYS).contains(v.get_ref()) {
                Some(*v.get_ref() as u32)
            } else {
                self.at(
                    v,
                    "round_days",
                    format!(
                        "must be the days a round lasts from its pairing to its closing date, from 1 to {MAX_ROUND_DAYS}, e.g. round_days = 60; leave it out for rounds that last until their last game ends"
                    ),
                );
                None
            }
        });
        let warn = self.count(
            &raw.round_warn_days,
            "round_warn_days",
            0..=MAX_ROUND_DAYS,
            i64::from(DEFAULT_ROUND_WARN_DAYS),
            "must be how many days before a round's closing date the TDs are warned of games still played, from 0 (on the day) up, e.g. round_warn_days = 3 (the default)",
        ) as u32;
        if let Some(v) = &raw.round_warn_days {
            match (&raw.round_days, days) {
                (None, _) => self.at(
                    v,
                    "round_warn_days",
                    "needs round_days: without a closing date there is nothing to warn of; add round_days = N or remove it",
                ),
                (Some(_), Some(d))
                    if warn >= d && (0..=MAX_ROUND_DAYS).contains(v.get_ref()) =>
                {
                    self.at(
                    v,
                    "round_warn_days",
                    format!("must be fewer than the round's {d} days (round_days), e.g. round_warn_days = {}", d / 2),
                    )
                }
                _ => {}
            }
        }
        (days, warn)
    }

    fn count(
        &mut self,
        value: &Option<Spanned<i64>>,
        key: &str,
        range: std::ops::RangeInclusive<i64>,
        default: i64,
        hint: &str,
    ) -> i64 {
        match value {
            None => default,
            Some(v) if range.contains(v.get_ref()) => *v.get_ref(),
            Some(v) => {
                self.at(v, key, hint.to_string());
                default
            }
        }
    }
}

/// The key a TOML error points at: the text before `=` on its line, or the
/// table header there.
fn key_at(text: &str, line: usize) -> String {
    let source = text
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .trim();
    match source.split_once('=') {
        Some((key, _)) => key.trim().to_string(),
        None if source.starts_with('[') => source.trim_matches(['[', ']']).to_string(),
        None => "the file".to_string(),
    }
}

/// Reads and checks an event file.
pub fn parse(text: &str) -> Result<Event, BadEventFile> {
    let raw: RawEvent = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            let mut c = Checker {
                text,
                problems: Vec::new(),
            };
            let line = e.span().map(|s| c.line_of(s.start));
            let message = e.message().trim().replace('\n', " ");
            let fix = if message.contains("unknown field") {
                "; check the spelling against the event file format"
            } else if message.contains("invalid type") || message.contains("missing field") {
                ""
            } else {
                "; check the TOML on that line: text in double quotes, lists in [ ]"
            };
            c.problems.push(Problem {
                line,
                key: line.map_or_else(|| "the file".to_string(), |l| key_at(text, l)),
                message: format!("{message}{fix}"),
            });
            return Err(BadEventFile {
                problems: c.problems,
            });
        }
    };
    let mut c = Checker {
        text,
        problems: Vec::new(),
    };

    let name = match &raw.name {
        Some(n) => c.text(n, "name"),
        None => {
            c.nowhere(
                "name",
                "is missing; write e.g. name = \"Club championship 2027\"",
            );
            String::new()
        }
    };
    let time_control = match &raw.time_control {
        None => TimeControl::default(),
        Some(t) => t.get_ref().parse().unwrap_or_else(
            |e: crate::domain::clock::control::BadTimeControl| {
                c.at(t, "time_control", e.to_string());
                TimeControl::default()
            },
        ),
    };
    let leave_days = c.count(
        &raw.leave_days,
        "leave_days",
        0..=MAX_LEAVE_DAYS,
        45,
        "must be a number of days from 0 to 365; ICCF grants 45",
    ) as u32;
    let draws = match &raw.draws {
        None => super::DrawPolicy::default(),
        Some(d) => super::DrawPolicy {
            first_offer_move: c.count(
                &d.first_offer_move,
                "draws.first_offer_move",
                0..=200,
                0,
                "must be a move number from 0 (no limit) to 200",
            ) as u32,
            moves_between_offers: c.count(
                &d.moves_between_offers,
                "draws.moves_between_offers",
                0..=200,
                0,
                "must be a number of moves from 0 (no limit) to 200",
            ) as u32,
        },
    };
    let tablebase = {
        use crate::domain::chess::tablebase::{TablebaseEnd, TablebasePolicy, TablebaseRule};
        let mut policy = TablebasePolicy::default();
        if let Some(v) = &raw.tablebase_rule {
            match TablebaseRule::from_key(v.get_ref()) {
                Some(rule) => policy.rule = rule,
                None => c.at(
                    v,
                    "tablebase_rule",
                    "must be \"iccf\" (the tables' result, without the 50-move rule), \"fifty-move\" (the 50-move rule stands) or \"none\" (no claims on the tables)",
                ),
            }
        }
        if let Some(v) = &raw.tablebase_end {
            match TablebaseEnd::from_key(v.get_ref()) {
                Some(end) => policy.end = end,
                None => c.at(
                    v,
                    "tablebase_end",
                    "must be \"claim\" (a player claims) or \"auto\" (the game ends as the tables say)",
                ),
            }
        }
        if let Some(notice) = raw.tablebase_notice {
            policy.notice = notice;
        }
        policy
    };
    let (start, opening) = {
        use crate::domain::chess::game::StartPosition;
        use crate::domain::chess::opening::Opening;
        match &raw.start {
            None => (StartPosition::Standard, None),
            Some(RawStart {
                fen: None,
                moves: None,
                chess960: None,
            }) => {
                c.nowhere(
                    "start",
                    "names no position; write start = { moves = \"1.e4 c5 2.Nf3 d6\" } with the line every game starts with, or start = { fen = \"…\" } with the position",
                );
                (StartPosition::Standard, None)
            }
            Some(RawStart {
                fen,
                moves,
                chess960: Some(_),
            }) if fen.is_some() || moves.is_some() => {
                for (given, key) in [(fen, "start.fen"), (moves, "start.moves")] {
                    if let Some(v) = given {
                        c.at(
                            v,
                            key,
                            "a Chess960 event starts every game from its drawn position; remove this key, or remove chess960 for a thematic event",
                        );
                    }
                }
                (StartPosition::Standard, None)
            }
            Some(RawStart {
                chess960: Some(_), ..
            }) => (StartPosition::Standard, None),
            Some(RawStart { fen, moves, .. }) => {
                // With a line the position after it must be playable, not
                // the FEN itself: it may have Black to move.
                let base = match fen {
                    None => Some(StartPosition::Standard),
                    Some(f) if moves.is_some() => StartPosition::fen(f.get_ref())
                        .map_err(|e| c.at(f, "start.fen", e.to_string()))
                        .ok(),
                    Some(f) => StartPosition::playable_fen(f.get_ref())
                        .map_err(|e| c.at(f, "start.fen", e.to_string()))
                        .ok(),
                };
                let opening = match (&base, moves) {
                    (Some(base), Some(m)) => Opening::read(base, m.get_ref())
                        .map_err(|e| c.at(m, "start.moves", e.to_string()))
                        .ok(),
                    _ => None,
                };
                (base.unwrap_or(StartPosition::Standard), opening)
            }
        }
    };
    // A Swiss event takes as many entrants as it may have players; every
    // other kind takes at most a round robin's.
    let most = if raw.kind.as_ref().is_some_and(|k| k.get_ref() == "swiss") {
        MAX_SWISS_PLAYERS as u32
    } else {
        super::entries::MAX_ENTRANTS
    };
    let entries = raw.entries.as_ref().map(|e| c.entries(e, most));
    let stages = raw.stages.as_ref().map(|st| {
        use super::entries::{Stages, TieAtLine};
        let r = st.get_ref();
        let groups = c.count(
            &r.groups,
            "stages.groups",
            2..=50,
            2,
            "must be a number of preliminary groups from 2 to 50",
        ) as u32;
        let qualify = c.count(
            &r.qualify,
            "stages.qualify",
            1..=50,
            2,
            "must be how many of each group go to the final, from 1",
        ) as u32;
        if r.groups.is_none() || r.qualify.is_none() {
            c.at(
                st,
                "stages",
                "needs groups and qualify, e.g. groups = 3 and qualify = 2 (3 groups, the best 2 of each to the final)",
            );
        }
        if groups * qualify < berger::MIN_ENTRANTS as u32 {
            c.at(
                st,
                "stages.qualify",
                format!("gives a final of {}; a final needs at least {}", groups * qualify, berger::MIN_ENTRANTS),
            );
        }
        let tie_at_line = match &r.tie_at_line {
            None => TieAtLine::default(),
            Some(v) => match v.get_ref().as_str() {
                "rating" => TieAtLine::Rating,
                "starting-number" => TieAtLine::StartingNumber,
                _ => {
                    c.at(
                        v,
                        "stages.tie_at_line",
                        "must be \"rating\" (the higher rating goes through) or \"starting-number\" (the lower number in the group goes through)",
                    );
                    TieAtLine::default()
                }
            },
        };
        let group_name = r.group_name.as_ref().map(|n| c.text(n, "stages.group_name"));
        if let (Some(n), Some(v)) = (&group_name, &r.group_name)
            && !n.contains("{n}")
        {
            c.at(
                v,
                "stages.group_name",
                "must hold {n} where the group's number goes, e.g. \"Cup, group {n}\"",
            );
        }
        let final_name = r.final_name.as_ref().map(|n| c.text(n, "stages.final_name"));
        Stages {
            groups,
            qualify,
            tie_at_line,
            group_name,
            final_name,
        }
    });
    let chess960 = raw.start.as_ref().and_then(|s| s.chess960.as_ref()).and_then(|v| {
        let key = match v.get_ref() {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Integer(i) => Some(i.to_string()),
            _ => None,
        };
        let draw = key.as_deref().and_then(super::Chess960Draw::from_key);
        if draw.is_none() {
            c.at(
                v,
                "start.chess960",
                "must be \"event\" (one position drawn for the whole event), \"round\" (one drawn for each round) or a position number from 0 to 959 (518 is the usual array)",
            );
        }
        draw
    });
    let visibility = raw
        .visibility
        .as_ref()
        .map_or(super::Visibility::default(), |v| {
            v.get_ref()
                .parse()
                .map_err(|e: String| c.at(v, "visibility", e))
                .unwrap_or_default()
        });
    let lang = raw.lang.as_ref().and_then(|l| {
        Lang::of_pages(l.get_ref())
            .map_err(|e| c.at(l, "lang", e))
            .ok()
    });
    let analysis_link = raw.analysis_link.as_ref().and_then(|a| {
        crate::domain::chess::analysis::AnalysisLink::parse(a.get_ref())
            .map_err(|e| c.at(a, "analysis_link", e.to_string()))
            .ok()
    });
    let scoring = match &raw.scoring {
        None => Scoring::default(),
        Some(s) => {
            let d = Scoring::default();
            let scoring = Scoring {
                win: c.points(&s.win, "scoring.win", d.win),
                draw: c.points(&s.draw, "scoring.draw", d.draw),
                loss: c.points(&s.loss, "scoring.loss", d.loss),
            };
            if !(scoring.win > scoring.loss
                && scoring.win >= scoring.draw
                && scoring.draw >= scoring.loss)
            {
                let problem = "must give a win more than a loss, and a draw neither more than a win nor less than a loss; e.g. win = 3, draw = 1, loss = 0";
                match s.win.as_ref() {
                    Some(w) => c.at(w, "scoring", problem),
                    None => c.nowhere("scoring", problem),
                }
            }
            scoring
        }
    };
    let mut tds = Vec::new();
    match &raw.tds {
        None => c.nowhere("tds", "is missing; write e.g. tds = [\"td@example.org\"]"),
        Some(list) if list.get_ref().is_empty() => c.at(
            list,
            "tds",
            "is empty; name at least one TD, e.g. tds = [\"td@example.org\"]",
        ),
        Some(list) => {
            for (i, t) in list.get_ref().iter().enumerate() {
                match EmailAddress::parse(t.get_ref()) {
                    Ok(a) => tds.push(a),
                    Err(e) => c.at(t, &format!("tds[{}]", i + 1), e.to_string()),
                }
            }
        }
    }
    let withdrawal = match &raw.withdrawal {
        None => WithdrawalRule::default(),
        Some(w) => {
            match w.get_ref().trim() {
                "forfeit-all" => WithdrawalRule::ForfeitAll,
                "annul-if-under-half" => WithdrawalRule::AnnulIfUnderHalf,
                other => {
                    c.at(
                    w,
                    "withdrawal",
                    format!("unknown rule '{other}': write \"forfeit-all\" or \"annul-if-under-half\""),
                );
                    WithdrawalRule::default()
                }
            }
        }
    };
    let sb_counts_unplayed = match &raw.sb_unplayed {
        None => true,
        Some(v) => match v.get_ref().trim() {
            "count" => true,
            "exclude" => false,
            other => {
                c.at(
                    v,
                    "sb_unplayed",
                    format!("unknown value '{other}': write \"count\" or \"exclude\""),
                );
                true
            }
        },
    };

    let mut seen = HashSet::new();
    let kind_text = raw.kind.as_ref().map(|k| k.get_ref().trim().to_string());
    if kind_text.as_deref() != Some("consultation") {
        c.not_for_kind(
            &raw.vote_hours,
            "vote_hours",
            kind_text.as_deref().unwrap_or("such"),
        );
    }
    if kind_text.as_deref() != Some("swiss") {
        let kind = kind_text.as_deref().unwrap_or("such");
        c.not_for_kind(&raw.rounds, "rounds", kind);
        c.not_for_kind(&raw.bye_points, "bye_points", kind);
        c.not_for_kind(&raw.max_half_point_byes, "max_half_point_byes", kind);
        c.not_for_kind(&raw.acceleration, "acceleration", kind);
        c.not_for_kind(&raw.round_days, "round_days", kind);
        c.not_for_kind(&raw.round_warn_days, "round_warn_days", kind);
    }
    let mut consultation = None;
    let kind = match kind_text.as_deref() {
        Some("swiss") => c.swiss(&raw, &scoring, &mut seen),
        Some("consultation") => {
            consultation = c.consultation(&raw, &mut seen);
            consultation.as_ref().map(|sides| EventKind::RoundRobin {
                cycles: Cycles::Single,
                players: sides
                    .teams
                    .iter()
                    .filter_map(|t| t.captain_entrant().cloned())
                    .collect(),
                tie_breaks: TieBreak::ICCF.to_vec(),
            })
        }
        Some("round-robin") => {
            c.not_for_kind(&raw.boards, "boards", "round-robin");
            c.not_for_kind(&raw.games_per_pairing, "games_per_pairing", "round-robin");
            c.not_for_kind(&raw.teams, "teams", "round-robin");
            let cycles = match c.count(
                &raw.cycles,
                "cycles",
                1..=2,
                1,
                "must be 1 (single round robin) or 2 (double)",
            ) {
                2 => Cycles::Double,
                _ => Cycles::Single,
            };
            let tie_breaks = c.order(&raw.tie_breaks, &TieBreak::ICCF, TieBreak::named);
            let mut players = Vec::new();
            match &raw.players {
                None if raw.entries.is_some() => {}
                None => c.nowhere(
                    "players",
                    "is missing; add a [[players]] table (email, name, lang) for each player, or an [entries] table to take entries by mail",
                ),
                Some(list) => {
                    for (i, p) in list.get_ref().iter().enumerate() {
                        players.extend(c.entrant(p, &format!("players[{}]", i + 1), &mut seen));
                    }
                    let n = list.get_ref().len();
                    // An event that takes entries may name a few players
                    // (or none) in its file: the rest come by mail.
                    if raw.entries.is_some() {
                        if n > berger::MAX_ENTRANTS {
                            c.at(
                                list,
                                "players",
                                format!(
                                    "a round robin takes at most {} players, this file has {n}",
                                    berger::MAX_ENTRANTS
                                ),
                            );
                        }
                    } else if !(berger::MIN_ENTRANTS..=berger::MAX_ENTRANTS).contains(&n) {
                        c.at(
                            list,
                            "players",
                            format!(
                                "a round robin needs {} to {} players, this file has {n}",
                                berger::MIN_ENTRANTS,
                                berger::MAX_ENTRANTS
                            ),
                        );
                    }
                }
            }
            Some(EventKind::RoundRobin {
                cycles,
                players,
                tie_breaks,
            })
        }
        Some(kind @ ("olympiad" | "team-match")) => {
            c.not_for_kind(&raw.cycles, "cycles", kind);
            c.not_for_kind(&raw.players, "players", kind);
            let olympiad = kind == "olympiad";
            let games_per_pairing = if olympiad {
                match c.count(&raw.games_per_pairing, "games_per_pairing", 1..=2, 1, "must be 1 (one game, colours alternating by board) or 2 (one game with each colour)") {
                    2 => GamesPerPairing::Two,
                    _ => GamesPerPairing::One,
                }
            } else {
                if let Some(g) = &raw.games_per_pairing {
                    c.at(
                        g,
                        "games_per_pairing",
                        "a team match always plays two games per board; remove it",
                    );
                }
                GamesPerPairing::Two
            };
            let boards = c.count(
                &raw.boards,
                "boards",
                1..=MAX_BOARDS,
                6,
                "must be a number of boards from 1 to 20 (ICCF olympiads: 6)",
            ) as u32;
            let default: &[TeamCriterion] = if olympiad {
                &TeamCriterion::ICCF
            } else {
                &TeamCriterion::TEAM_MATCH
            };
            let order = c.order(&raw.tie_breaks, default, |name| {
                name.parse().map(|t| vec![t])
            });
            let mut teams = Vec::new();
            match &raw.teams {
                None => c.nowhere(
                    "teams",
                    "is missing; add a [[teams]] table (name, boards, reserves) for each team",
                ),
                Some(list) => {
                    let n = list.get_ref().len();
                    let wrong_count = if olympiad {
                        (!(berger::MIN_ENTRANTS..=berger::MAX_ENTRANTS).contains(&n))
                            .then(|| format!("an olympiad needs 3 to 100 teams, this file has {n}; for two teams use kind = \"team-match\""))
                    } else {
                        (n != 2).then(|| {
                            format!("a team match is between exactly 2 teams, this file has {n}")
                        })
                    };
                    if let Some(message) = wrong_count {
                        c.at(list, "teams", message);
                    }
                    let mut names = HashSet::new();
                    for (i, t) in list.get_ref().iter().enumerate() {
                        let key = format!("teams[{}]", i + 1);
                        for (value, what) in [
                            (t.captain.as_ref().map(|v| v.span()), "captain"),
                            (t.members.as_ref().map(|v| v.span()), "members"),
                        ] {
                            if let Some(span) = value {
                                let line = c.line_of(span.start);
                                c.problems.push(Problem { line: Some(line), key: format!("{key}.{what}"), message: format!("{kind} teams play by boards; remove it (a captain and members are for kind = \"consultation\")") });
                            }
                        }
                        let name = c.text(&t.name, &format!("{key}.name"));
                        if !names.insert(name.to_lowercase()) {
                            c.at(
                                &t.name,
                                &format!("{key}.name"),
                                format!("'{name}' is already a team; give each team its own name"),
                            );
                        }
                        let mut board_players = Vec::new();
                        match &t.boards {
                            None => c.at(&t.name, &format!("{key}.boards"), format!("is missing; list {boards} players in [[teams.boards]], board 1 first")),
                            Some(b) => {
                                for (j, p) in b.get_ref().iter().enumerate() {
                                    board_players.extend(c.entrant(p, &format!("{key}.boards[{}]", j + 1), &mut seen));
                                }
                                if b.get_ref().len() != boards as usize {
                                    c.at(b, &format!("{key}.boards"), format!("lists {} players but the event has boards = {boards}; list exactly {boards}, board 1 first (extra players go in reserves)", b.get_ref().len()));
                                }
                            }
                        }
                        let mut reserves = Vec::new();
                        for (j, p) in t.reserves.iter().flatten().enumerate() {
                            reserves.extend(c.entrant(
                                p,
                                &format!("{key}.reserves[{}]", j + 1),
                                &mut seen,
                            ));
                        }
                        teams.push(Team {
                            name,
                            boards: board_players,
                            reserves,
                        });
                    }
                }
            }
            Some(if olympiad {
                EventKind::Olympiad {
                    games_per_pairing,
                    boards,
                    teams,
                    order,
                }
            } else {
                EventKind::TeamMatch {
                    boards,
                    teams,
                    order,
                }
            })
        }
        Some(other) => {
            if let Some(k) = &raw.kind {
                c.at(k, "kind", format!("unknown kind '{other}': write \"round-robin\", \"swiss\", \"olympiad\", \"team-match\" or \"consultation\""));
            }
            None
        }
        None => {
            c.nowhere(
                "kind",
                "is missing; write kind = \"round-robin\", \"swiss\", \"olympiad\", \"team-match\" or \"consultation\"",
            );
            None
        }
    };

    // A Swiss event's later rounds were paired on a withdrawn player's
    // results: they stand, and the unfinished games are lost by forfeit.
    let withdrawal = match (&kind, &raw.withdrawal) {
        (Some(EventKind::Swiss { .. }), Some(w)) if w.get_ref().trim() == "annul-if-under-half" => {
            c.at(
                w,
                "withdrawal",
                "a Swiss event cannot annul a withdrawn player's games: its later rounds were paired on their results; write \"forfeit-all\" (the default for Swiss events) or remove it",
            );
            withdrawal
        }
        (Some(EventKind::Swiss { .. }), _) => WithdrawalRule::ForfeitAll,
        _ => withdrawal,
    };
    // A Swiss event that takes entries starts with everyone who entered
    // (no sections: those are an open class's round robins), and only
    // with enough players to meet a new opponent every round.
    if let (Some(EventKind::Swiss { rules, .. }), Some(raw_e), Some(e)) =
        (&kind, &raw.entries, &entries)
    {
        let r = raw_e.get_ref();
        let sections = "a Swiss event is one field: sections and promotions are an open class's \
                        (a round robin's); remove it";
        if let Some(v) = &r.section_size {
            c.at(v, "entries.section_size", sections);
        }
        if let Some(v) = &r.section_bands {
            c.at(v, "entries.section_bands", sections);
        }
        if let Some(v) = &r.promotes {
            c.at(v, "entries.promotes", sections);
        }
        if e.min <= rules.rounds {
            let fix = format!(
                "is {}, but a Swiss event of {} rounds needs at least {} players (each meets a \
                 new opponent every round): make min at least {}",
                e.min,
                rules.rounds,
                rules.rounds + 1,
                rules.rounds + 1
            );
            match &r.min {
                Some(m) => c.at(m, "entries.min", fix),
                None => c.at(raw_e, "entries.min", fix),
            }
        }
    }
    match kind {
        Some(ref k)
            if (!matches!(k, EventKind::RoundRobin { .. } | EventKind::Swiss { .. })
                && raw.entries.is_some())
                || (matches!(k, EventKind::TeamMatch { .. } | EventKind::Swiss { .. })
                    && raw.stages.is_some()) =>
        {
            if let Some(e) = &raw.stages
                && matches!(k, EventKind::Swiss { .. })
            {
                c.at(
                    e,
                    "stages",
                    "a Swiss event is one tournament and has no stages; remove [stages]",
                );
            }
            if let Some(e) = &raw.stages
                && matches!(k, EventKind::TeamMatch { .. })
            {
                c.at(
                    e,
                    "stages",
                    "a team match is one match and has no stages; play preliminary groups as an olympiad with [stages]",
                );
            }
            if let Some(e) = &raw.entries
                && !matches!(k, EventKind::Swiss { .. })
            {
                c.at(
                    e,
                    "entries",
                    "entries by mail are taken for round robins and Swiss events only; name the teams in the file",
                );
            }
            c.problems.sort_by_key(|p| p.line.unwrap_or(0));
            Err(BadEventFile {
                problems: c.problems,
            })
        }
        Some(kind) if c.problems.is_empty() => Ok(Event {
            name,
            kind,
            time_control,
            leave_days,
            scoring,
            tds,
            withdrawal,
            sb_counts_unplayed,
            draws,
            analysis_link,
            messages: raw.messages.unwrap_or(true),
            rated: raw.rated.unwrap_or(true),
            visibility,
            lang,
            tablebase,
            start,
            entries,
            stages,
            opening,
            chess960,
            consultation,
        }),
        _ => {
            c.problems.sort_by_key(|p| p.line.unwrap_or(0));
            Err(BadEventFile {
                problems: c.problems,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND_ROBIN: &str = include_str!("../../../tests/fixtures/events/round-robin.toml");
    const OLYMPIAD: &str = include_str!("../../../tests/fixtures/events/olympiad.toml");
    const TEAM_MATCH: &str = include_str!("../../../tests/fixtures/events/team-match.toml");

    #[test]
    fn the_round_robin_example_reads_with_every_setting() {
        let event = parse(ROUND_ROBIN).unwrap();
        assert_eq!(event.name, "Slovenian correspondence championship 2027");
        assert_eq!(event.time_control, "10/50d".parse().unwrap());
        assert_eq!(event.leave_days, 45);
        assert_eq!(event.scoring.win, Points::whole(3));
        assert_eq!(event.scoring.draw, Points::whole(1));
        assert_eq!(event.withdrawal, WithdrawalRule::AnnulIfUnderHalf);
        let EventKind::RoundRobin {
            cycles,
            players,
            tie_breaks,
        } = &event.kind
        else {
            panic!("not a round robin: {:?}", event.kind);
        };
        assert_eq!(*cycles, Cycles::Double);
        assert_eq!(players.len(), 6);
        assert_eq!(players[2].name, "Līga Bērziņa");
        assert_eq!(players[3].lang, None);
        assert_eq!(players[5].lang, Some(Lang::Pl));
        assert_eq!(tie_breaks.last(), Some(&TieBreak::Koya));
        let Pairings::Individual(games) = event.pairings() else {
            panic!("individual pairings");
        };
        assert_eq!(games.len(), 30);
        assert_eq!(event.rules().tie_breaks.len(), 4);
    }

    #[test]
    fn baumbach_in_the_file_is_iccf_s_chain_and_may_be_followed_by_more() {
        let text = ROUND_ROBIN.replace(
            "tie_breaks = [\"wins\", \"sonneborn-berger\", \"direct-encounter\", \"koya\"]",
            "tie_breaks = [\"baumbach\", \"koya\"]",
        );
        assert_ne!(text, ROUND_ROBIN);
        let event = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            event.rules().tie_breaks,
            [
                TieBreak::Wins,
                TieBreak::SonnebornBerger,
                TieBreak::DirectEncounter,
                TieBreak::Koya
            ]
        );
    }

    #[test]
    fn an_event_sets_its_tablebase_rules_and_a_bad_value_names_the_choices() {
        use crate::domain::chess::tablebase::{TablebaseEnd, TablebasePolicy, TablebaseRule};
        assert_eq!(
            parse(ROUND_ROBIN).unwrap().tablebase,
            TablebasePolicy::default()
        );
        let text = ROUND_ROBIN.replacen(
            "kind = ",
            "tablebase_rule = \"fifty-move\"\ntablebase_end = \"auto\"\ntablebase_notice = false\nkind = ",
            1,
        );
        assert_eq!(
            parse(&text).unwrap().tablebase,
            TablebasePolicy {
                rule: TablebaseRule::FiftyMove,
                end: TablebaseEnd::Auto,
                notice: false,
            }
        );
        let text = ROUND_ROBIN.replacen(
            "kind = ",
            "tablebase_rule = \"fide\"\ntablebase_end = \"now\"\nkind = ",
            1,
        );
        let err = parse(&text).unwrap_err().to_string();
        assert!(err.contains("tablebase_rule: must be \"iccf\""), "{err}");
        assert!(err.contains("tablebase_end: must be \"claim\""), "{err}");
    }

    #[test]
    fn every_game_of_an_event_may_start_from_its_fen_if_white_can_move() {
        use crate::domain::chess::game::StartPosition;
        assert_eq!(parse(ROUND_ROBIN).unwrap().start, StartPosition::Standard);
        let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
        let text = ROUND_ROBIN.replacen(
            "kind = ",
            &format!("start = {{ fen = \"{fen}\" }}\nkind = "),
            1,
        );
        assert_eq!(parse(&text).unwrap().start, StartPosition::Fen(fen.into()));
        for (bad, says) in [
            ("8/8/8/4k3/8/8/8/R3K3 b - - 0 1", "Black is to move"),
            ("8/8/8", "is not a valid FEN"),
            ("7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", "over before it starts"),
        ] {
            let text = ROUND_ROBIN.replacen(
                "kind = ",
                &format!("start = {{ fen = \"{bad}\" }}\nkind = "),
                1,
            );
            let err = parse(&text).unwrap_err().to_string();
            assert!(
                err.contains("start.fen") && err.contains(says),
                "{bad}: {err}"
            );
        }
    }

    fn with_start(start: &str) -> String {
        ROUND_ROBIN.replacen("kind = ", &format!("start = {start}\nkind = "), 1)
    }

    #[test]
    fn a_thematic_event_reads_its_line_and_every_game_starts_after_it() {
        let event = parse(&with_start("{ moves = \"1. e4 c5 Nf3 d6\" }")).unwrap();
        let line = event.opening.expect("a thematic line");
        assert_eq!(line.text(), "1.e4 c5 2.Nf3 d6");
        assert_eq!(line.ucis(), ["e2e4", "c7c5", "g1f3", "d7d6"]);
        assert_eq!(
            event.start,
            crate::domain::chess::game::StartPosition::Standard
        );
        // A line that ends with White's move: Black moves first.
        let event = parse(&with_start("{ moves = \"1.e4 e5 2.Nf3 Nc6 3.Bb5\" }")).unwrap();
        assert_eq!(event.opening.unwrap().plies(), 5);
        // From a position, which may then have Black to move.
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        let event = parse(&with_start(&format!(
            "{{ fen = \"{fen}\", moves = \"1...c5\" }}"
        )))
        .unwrap();
        assert_eq!(event.opening.unwrap().text(), "1...c5");
    }

    #[test]
    fn an_illegal_thematic_line_is_a_problem_naming_the_line_the_move_and_the_fix() {
        let text = with_start("{ moves = \"1.e4 c5 2.Nf3 Ke7\" }");
        let line = text.lines().position(|l| l.starts_with("start")).unwrap() + 1;
        let err = parse(&text).unwrap_err();
        assert_eq!(err.problems.len(), 1, "{err}");
        let p = &err.problems[0];
        assert_eq!((p.line, p.key.as_str()), (Some(line), "start.moves"));
        assert!(
            p.message.starts_with("move 2... (Black's, \"Ke7\")"),
            "{}",
            p.message
        );
        assert!(
            p.message.contains("e.g. \"1.e4 c5 2.Nf3 d6\""),
            "{}",
            p.message
        );
        for (bad, says) in [
            (
                "{ moves = \"1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6 4.Qxf7#\" }",
                "would be over",
            ),
            ("{ moves = \"1.e4 zz\" }", "could not read \"zz\""),
            ("{ moves = \"\" }", "names no moves"),
            ("{ moves = \"2.e4\" }", "does not fit"),
        ] {
            let err = parse(&with_start(bad)).unwrap_err().to_string();
            assert!(
                err.contains("start.moves") && err.contains(says),
                "{bad}: {err}"
            );
        }
        let err = parse(&with_start("{ }")).unwrap_err().to_string();
        assert!(err.contains("start: names no position"), "{err}");
    }

    #[test]
    fn a_chess960_event_draws_per_event_or_per_round_or_fixes_a_number() {
        use super::super::Chess960Draw;
        for (value, want) in [
            ("\"event\"", Chess960Draw::PerEvent),
            ("\"round\"", Chess960Draw::PerRound),
            ("518", Chess960Draw::Fixed(518)),
            ("0", Chess960Draw::Fixed(0)),
        ] {
            let event = parse(&with_start(&format!("{{ chess960 = {value} }}"))).unwrap();
            assert_eq!(event.chess960, Some(want), "{value}");
            assert_eq!(Chess960Draw::from_key(&want.key()), Some(want));
        }
        assert_eq!(parse(ROUND_ROBIN).unwrap().chess960, None);
        for bad in ["960", "-1", "\"game\"", "true"] {
            let err = parse(&with_start(&format!("{{ chess960 = {bad} }}")))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("start.chess960: must be \"event\""),
                "{bad}: {err}"
            );
        }
        let err = parse(&with_start("{ chess960 = \"event\", moves = \"1.e4\" }"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("start.moves: a Chess960 event"), "{err}");
    }

    #[test]
    fn an_event_says_where_its_games_start_in_words() {
        for (start, words) in [
            ("", "the usual position"),
            ("{ moves = \"e4 c5\" }", "after the thematic line 1.e4 c5"),
            (
                "{ chess960 = \"round\" }",
                "Chess960, one position for each round, drawn when the event starts",
            ),
            (
                "{ chess960 = \"event\" }",
                "Chess960, one position for every game, drawn when the event starts",
            ),
            ("{ chess960 = 17 }", "Chess960 position 17"),
            (
                "{ fen = \"8/8/8/4k3/8/8/8/R3K3 w - - 0 1\" }",
                "the position 8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
            ),
        ] {
            let text = if start.is_empty() {
                ROUND_ROBIN.to_owned()
            } else {
                with_start(start)
            };
            assert_eq!(parse(&text).unwrap().start_words(), words, "{start}");
        }
    }

    #[test]
    fn chess960_positions_are_one_per_event_or_one_per_round() {
        use super::super::Chess960Draw;
        let mut next = 100;
        let mut draw = || {
            next += 1;
            next
        };
        let rounds = [1, 1, 2, 2, 3];
        let per_round = Chess960Draw::PerRound.positions(rounds, &mut draw);
        assert_eq!(
            per_round.into_iter().collect::<Vec<_>>(),
            [(1, 101), (2, 102), (3, 103)]
        );
        let per_event = Chess960Draw::PerEvent.positions(rounds, &mut draw);
        assert_eq!(
            per_event.values().copied().collect::<Vec<_>>(),
            [104, 104, 104]
        );
        let fixed = Chess960Draw::Fixed(7).positions(rounds, &mut draw);
        assert_eq!(fixed.values().copied().collect::<Vec<_>>(), [7, 7, 7]);
        assert_eq!(next, 104, "a fixed number draws nothing");
    }

    #[test]
    fn an_event_allows_messages_unless_it_says_messages_false() {
        assert!(parse(ROUND_ROBIN).unwrap().messages);
        for (value, want) in [("false", false), ("true", true)] {
            let text = ROUND_ROBIN.replacen("kind = ", &format!("messages = {value}\nkind = "), 1);
            assert_eq!(parse(&text).unwrap().messages, want, "{value}");
        }
        let text = ROUND_ROBIN.replacen("kind = ", "messages = \"no\"\nkind = ", 1);
        assert!(parse(&text).is_err());
    }

    #[test]
    fn an_event_is_unlisted_unless_its_file_says_public_or_private() {
        assert_eq!(
            parse(ROUND_ROBIN).unwrap().visibility,
            crate::domain::event::Visibility::Unlisted
        );
        for (value, want) in [
            ("public", crate::domain::event::Visibility::Public),
            ("unlisted", crate::domain::event::Visibility::Unlisted),
            ("private", crate::domain::event::Visibility::Private),
        ] {
            let text =
                ROUND_ROBIN.replacen("kind = ", &format!("visibility = \"{value}\"\nkind = "), 1);
            assert_eq!(parse(&text).unwrap().visibility, want, "{value}");
        }
        let text = ROUND_ROBIN.replacen("kind = ", "visibility = \"secret\"\nkind = ", 1);
        let err = parse(&text).unwrap_err().to_string();
        assert!(
            err.contains("visibility") && err.contains("\"unlisted\""),
            "{err}"
        );
    }

    #[test]
    fn an_events_pages_speak_the_language_its_file_names() {
        assert_eq!(parse(ROUND_ROBIN).unwrap().lang, None);
        for (value, want) in [("sl", Lang::Sl), ("de", Lang::De), ("PL", Lang::Pl)] {
            let text = ROUND_ROBIN.replacen("kind = ", &format!("lang = \"{value}\"\nkind = "), 1);
            assert_eq!(parse(&text).unwrap().lang, Some(want), "{value}");
        }
        // A language the pages are not written in, and no language at all.
        for (value, says) in [
            ("cs", "the web pages are written in en, sl, pl, lv and de"),
            ("klingon", "unknown language 'klingon'"),
        ] {
            let text = ROUND_ROBIN.replacen("kind = ", &format!("lang = \"{value}\"\nkind = "), 1);
            let err = parse(&text).unwrap_err().to_string();
            assert!(err.contains("lang") && err.contains(says), "{err}");
        }
    }

    #[test]
    fn an_event_is_rated_unless_it_says_rated_false() {
        assert!(parse(ROUND_ROBIN).unwrap().rated);
        let text = ROUND_ROBIN.replacen("kind = ", "rated = false\nkind = ", 1);
        assert!(!parse(&text).unwrap().rated);
        let text = ROUND_ROBIN.replacen("kind = ", "rated = \"no\"\nkind = ", 1);
        assert!(parse(&text).is_err());
    }

    #[test]
    fn an_event_may_set_its_own_analysis_link_or_leave_it_to_the_server() {
        use crate::domain::chess::analysis::AnalysisLink;
        assert_eq!(parse(ROUND_ROBIN).unwrap().analysis_link, None);
        for (value, want) in [
            ("off", AnalysisLink::Off),
            (
                "lichess",
                AnalysisLink::Template(crate::domain::chess::analysis::LICHESS.into()),
            ),
        ] {
            let text = ROUND_ROBIN.replacen(
                "kind = ",
                &format!("analysis_link = \"{value}\"\nkind = "),
                1,
            );
            assert_eq!(parse(&text).unwrap().analysis_link, Some(want), "{value}");
        }
    }

    #[test]
    fn the_olympiad_example_is_seven_teams_of_six_with_reserves() {
        let event = parse(OLYMPIAD).unwrap();
        let EventKind::Olympiad {
            games_per_pairing,
            boards,
            teams,
            order,
        } = &event.kind
        else {
            panic!("not an olympiad: {:?}", event.kind);
        };
        assert_eq!((*games_per_pairing, *boards), (GamesPerPairing::One, 6));
        assert_eq!(teams.len(), 7);
        assert!(
            teams
                .iter()
                .all(|t| t.boards.len() == 6 && t.reserves.len() == 1)
        );
        // The file names the match-point SB; without `tie_breaks` an
        // olympiad ranks by ICCF's chain with each board's SB.
        assert_eq!(order, &TeamCriterion::TEAM_MATCH.to_vec());
        let default = parse(&OLYMPIAD.replace(
            "tie_breaks = [\"game-points\", \"match-points\", \"direct-encounter\", \"sonneborn-berger\"]\n",
            "",
        ))
        .unwrap();
        assert_eq!(default.team_rules().order, TeamCriterion::ICCF.to_vec());
        assert_eq!(event.withdrawal, WithdrawalRule::ForfeitAll);
        assert_eq!(event.tds.len(), 2);
        let Pairings::Teams(games) = event.pairings() else {
            panic!("team pairings");
        };
        assert_eq!(games.len(), 21 * 6);
    }

    #[test]
    fn the_team_match_example_gives_twelve_games() {
        let event = parse(TEAM_MATCH).unwrap();
        assert_eq!(event.scoring, Scoring::default());
        assert_eq!(event.leave_days, 45);
        assert_eq!(event.withdrawal, WithdrawalRule::AnnulIfUnderHalf);
        let EventKind::TeamMatch { teams, boards, .. } = &event.kind else {
            panic!("not a team match: {:?}", event.kind);
        };
        assert_eq!((*boards, teams.len()), (6, 2));
        assert_eq!(teams[0].name, "ŠK Ljubljana");
        assert_eq!(teams[1].boards[5].name, "Ewa Woźniak");
        assert_eq!(event.pairings(), Pairings::Teams(olympiad::team_match(6)));
    }

    const PLAYERS: &str = "
[[players]]
email = \"a@example.org\"
name = \"A\"
[[players]]
email = \"b@example.org\"
name = \"B\"
[[players]]
email = \"c@example.org\"
name = \"C\"
";

    /// (file, line, key, words the message must contain)
    const BAD: &[(&str, Option<usize>, &str, &str)] = &[
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\ncolour = 1\n",
            Some(4),
            "colour",
            "unknown field `colour`",
        ),
        (
            "kind = \"knockout\"\ntds = [\"t@example.org\"]\nname = \"X\"\n",
            Some(1),
            "kind",
            "write \"round-robin\", \"swiss\"",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\ncycles = 3\n",
            Some(4),
            "cycles",
            "1 (single round robin) or 2",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\ntime_control = \"3 weeks\"\n",
            Some(4),
            "time_control",
            "write e.g. 3d",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\nleave_days = 400\n",
            Some(4),
            "leave_days",
            "from 0 to 365",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\ntie_breaks = [\"wins\", \"buchholtz\"]\n",
            Some(4),
            "tie_breaks[2]",
            "use one of wins",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\ntie_breaks = [\"koya\", \"koya\"]\n",
            Some(4),
            "tie_breaks[2]",
            "listed twice",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\ntie_breaks = [\"baumbach\", \"wins\"]\n",
            Some(4),
            "tie_breaks[2]",
            "`baumbach` stands for wins",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n[scoring]\nwin = 0.3\n",
            Some(5),
            "scoring.win",
            "half points",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n[scoring]\nwin = 0\nloss = 1\n",
            Some(5),
            "scoring",
            "more than a loss",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\nwithdrawal = \"vanish\"\n",
            Some(4),
            "withdrawal",
            "forfeit-all",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"td\"]\nname = \"X\"\n",
            Some(2),
            "tds[1]",
            "no @",
        ),
        (
            "kind = \"round-robin\"\ntds = []\nname = \"X\"\n",
            Some(2),
            "tds",
            "at least one TD",
        ),
        (
            "kind = \"round-robin\"\nname = \"X\"\n",
            None,
            "tds",
            "is missing",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"  \"\n",
            Some(3),
            "name",
            "is empty",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\nboards = 6\n",
            Some(4),
            "boards",
            "round-robin events do not use it",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n",
            None,
            "players",
            "[[players]]",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n[[players]]\nemail = \"a@example.org\"\nname = \"A\"\n",
            Some(4),
            "players",
            "3 to 100 players",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n[[players]]\nemail = \"a@example.org\"\nname = \"A\"\n[[players]]\nemail = \"A@Example.org\"\nname = \"B\"\n[[players]]\nemail = \"c@example.org\"\nname = \"C\"\n",
            Some(8),
            "players[2].email",
            "already in this event",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n[[players]]\nemail = \"a@example.org\"\nname = \"A\"\nlang = \"tlh\"\n",
            Some(7),
            "players[1].lang",
            "unknown language 'tlh'",
        ),
        (
            "kind = \"round-robin\"\ntds = [\"t@example.org\"]\nname = \"X\"\n[[players]]\nemail = \"a@example.org\"\nname = \"A\"\nrating = 2100\n",
            Some(7),
            "rating",
            "unknown field `rating`",
        ),
        (
            "kind = \"olympiad\"\ntds = [\"t@example.org\"]\nname = \"X\"\nboards = 2\n[[teams]]\nname = \"T\"\nboards = [{ email = \"a@example.org\", name = \"A\" }]\n",
            Some(7),
            "teams[1].boards",
            "list exactly 2",
        ),
        (
            "kind = \"olympiad\"\ntds = [\"t@example.org\"]\nname = \"X\"\nboards = 1\n[[teams]]\nname = \"T\"\nboards = [{ email = \"a@example.org\", name = \"A\" }]\n",
            Some(5),
            "teams",
            "3 to 100 teams",
        ),
        (
            "kind = \"olympiad\"\ntds = [\"t@example.org\"]\nname = \"X\"\nboards = 30\n",
            Some(4),
            "boards",
            "from 1 to 20",
        ),
        (
            "kind = \"olympiad\"\ntds = [\"t@example.org\"]\nname = \"X\"\ngames_per_pairing = 3\n",
            Some(4),
            "games_per_pairing",
            "1 (one game",
        ),
        (
            "kind = \"olympiad\"\ntds = [\"t@example.org\"]\nname = \"X\"\ncycles = 2\n",
            Some(4),
            "cycles",
            "olympiad events do not use it",
        ),
        (
            "kind = \"olympiad\"\ntds = [\"t@example.org\"]\nname = \"X\"\ntie_breaks = [\"koya\"]\n",
            Some(4),
            "tie_breaks[1]",
            "game-points",
        ),
        (
            "kind = \"team-match\"\ntds = [\"t@example.org\"]\nname = \"X\"\ngames_per_pairing = 1\n",
            Some(4),
            "games_per_pairing",
            "always plays two games",
        ),
        (
            "kind = \"team-match\"\ntds = [\"t@example.org\"]\nname = \"X\"\nboards = 1\n[[teams]]\nname = \"T\"\nboards = [{ email = \"a@example.org\", name = \"A\" }]\n",
            Some(5),
            "teams",
            "exactly 2 teams",
        ),
        (
            "kind = \"team-match\"\ntds = [\"t@example.org\"]\nname = \"X\"\nboards = 1\n[[teams]]\nname = \"T\"\nboards = [{ email = \"a@example.org\", name = \"A\" }]\n[[teams]]\nname = \"t\"\nboards = [{ email = \"b@example.org\", name = \"B\" }]\n",
            Some(9),
            "teams[2].name",
            "already a team",
        ),
        (
            "kind = \"olympiad\"\nname = \"X\ntds = []\n",
            Some(2),
            "name",
            "invalid basic string",
        ),
        ("name = 5\n", Some(1), "name", "invalid type"),
        (
            "kind = \"round-robin\"\nname = \"X\"\ntds = [\"t@example.org\"]\nanalysis_link = \"lichess.org\"\n",
            Some(4),
            "analysis_link",
            "Write \"off\"",
        ),
    ];

    #[test]
    fn bad_files_name_the_line_and_key_and_say_what_to_write() {
        for &(text, line, key, words) in BAD {
            let text =
                if text.contains("round-robin") && !text.contains("players") && key != "players" {
                    format!("{text}{PLAYERS}")
                } else {
                    text.to_string()
                };
            let err = parse(&text).expect_err(&text);
            let found = err
                .problems
                .iter()
                .find(|p| p.key == key)
                .unwrap_or_else(|| panic!("no problem with {key} in {err}\n--- file:\n{text}"));
            assert_eq!(found.line, line, "{key}: {err}");
            assert!(
                found.message.contains(words) || found.to_string().contains(words),
                "{key}: {err}"
            );
        }
    }

    const SWISS: &str = include_str!("../../../tests/fixtures/events/swiss.toml");

    #[test]
    fn the_swiss_example_reads_with_its_rounds_bye_and_fide_tie_breaks() {
        let event = parse(SWISS).unwrap();
        let EventKind::Swiss {
            players,
            tie_breaks,
            rules,
        } = &event.kind
        else {
            panic!("not a Swiss: {:?}", event.kind);
        };
        assert_eq!(players.len(), 8);
        assert_eq!(players[4].lang, Some(Lang::Pl));
        assert_eq!(
            tie_breaks,
            &TieBreak::SWISS.to_vec(),
            "the FIDE abbreviations name dopis's default order"
        );
        assert_eq!(
            *rules,
            SwissRules {
                rounds: 5,
                bye_quarters: 4,
                max_half_point_byes: 1,
                baku: true,
                round_days: None,
                round_warn_days: DEFAULT_ROUND_WARN_DAYS,
            }
        );
        assert_eq!(event.withdrawal, WithdrawalRule::ForfeitAll);
        assert_eq!(event.pairings(), Pairings::Individual(Vec::new()));
        let points = rules.point_system(&event.scoring);
        assert_eq!(points.pairing_bye, Points::whole(1));
        assert_eq!(points.draw, Points::halves(1));
    }

    #[test]
    fn a_swiss_without_its_options_takes_the_defaults() {
        let text = SWISS
            .lines()
            .filter(|l| {
                !["bye_points", "max_half", "acceleration", "tie_breaks"]
                    .iter()
                    .any(|k| l.starts_with(k))
            })
            .collect::<Vec<_>>()
            .join("\n")
            .replace("[scoring]", "");
        let event = parse(&format!("{text}\n[scoring]\nwin = 3\ndraw = 1\nloss = 0\n")).unwrap();
        let EventKind::Swiss {
            rules, tie_breaks, ..
        } = &event.kind
        else {
            panic!("not a Swiss");
        };
        assert_eq!(rules.bye_points(), Points::whole(3), "a win's points");
        assert!(!rules.baku);
        assert_eq!(rules.max_half_point_byes, 0);
        assert_eq!(tie_breaks, &TieBreak::SWISS.to_vec());
    }

    #[test]
    fn a_swiss_with_round_days_reads_its_closing_date_and_warning() {
        let text = SWISS.replace(
            "rounds = 5",
            "rounds = 5\nround_days = 30\nround_warn_days = 5",
        );
        let EventKind::Swiss { rules, .. } = parse(&text).unwrap().kind else {
            panic!("not a Swiss");
        };
        assert_eq!((rules.round_days, rules.round_warn_days), (Some(30), 5));
        let text = SWISS.replace("rounds = 5", "rounds = 5\nround_days = 30");
        let EventKind::Swiss { rules, .. } = parse(&text).unwrap().kind else {
            panic!("not a Swiss");
        };
        assert_eq!(rules.round_warn_days, 3, "the default warning");
    }

    #[test]
    fn bad_swiss_keys_name_the_key_and_the_fix() {
        let swap = |from: &str, to: &str| {
            assert!(SWISS.contains(from), "{from}");
            SWISS.replace(from, to)
        };
        for (text, key, words) in [
            (swap("rounds = 5\n", ""), "rounds", "is missing"),
            (
                swap("rounds = 5", "rounds = 8"),
                "rounds",
                "at most 7 rounds",
            ),
            (swap("rounds = 5", "rounds = 0"), "rounds", "from 1 to 50"),
            (
                swap("bye_points = 1", "bye_points = 1.5"),
                "bye_points",
                "a win's",
            ),
            (
                swap("bye_points = 1", "bye_points = \"win\""),
                "bye_points",
                "whole or half",
            ),
            (
                swap("max_half_point_byes = 1", "max_half_point_byes = 6"),
                "max_half_point_byes",
                "at most 5",
            ),
            (
                swap("acceleration = \"baku\"", "acceleration = \"quick\""),
                "acceleration",
                "\"baku\"",
            ),
            (
                swap("rounds = 5", "rounds = 5\nround_days = 0"),
                "round_days",
                "from 1 to 366",
            ),
            (
                swap("rounds = 5", "rounds = 5\nround_days = \"2 months\""),
                "round_days",
                "",
            ),
            (
                swap("rounds = 5", "rounds = 5\nround_warn_days = 3"),
                "round_warn_days",
                "needs round_days",
            ),
            (
                swap(
                    "rounds = 5",
                    "rounds = 5\nround_days = 10\nround_warn_days = 10",
                ),
                "round_warn_days",
                "fewer than the round's 10 days",
            ),
            (
                swap(
                    "rounds = 5",
                    "rounds = 5\nround_days = 10\nround_warn_days = -1",
                ),
                "round_warn_days",
                "from 0",
            ),
            (
                swap(
                    "kind = \"swiss\"",
                    "kind = \"round-robin\"\nround_days = 30",
                ),
                "round_days",
                "remove it",
            ),
            (swap("\"WIN\"", "\"XYZ\""), "tie_breaks[5]", "XYZ"),
            (
                swap("rounds = 5", "rounds = 5\ncycles = 2"),
                "cycles",
                "remove it",
            ),
            (
                swap("rounds = 5", "rounds = 5\nboards = 4"),
                "boards",
                "remove it",
            ),
            (
                format!("{SWISS}\n[stages]\ngroups = 2\nqualify = 2\n"),
                "stages",
                "no stages",
            ),
            (
                swap(
                    "rounds = 5",
                    "rounds = 5\nwithdrawal = \"annul-if-under-half\"",
                ),
                "withdrawal",
                "forfeit-all",
            ),
            (
                swap("kind = \"swiss\"", "kind = \"round-robin\""),
                "rounds",
                "remove it",
            ),
        ] {
            let err = parse(&text).expect_err(&text);
            let found = err
                .problems
                .iter()
                .find(|p| p.key == key)
                .unwrap_or_else(|| panic!("no problem with {key} in {err}"));
            assert!(found.message.contains(words), "{key}: {err}");
        }
    }

    #[test]
    fn every_problem_is_reported_at_once_in_file_order() {
        let text = format!(
            "kind = \"round-robin\"\nname = \"X\"\ntds = [\"t@example.org\"]\ncycles = 5\nleave_days = -1\nwithdrawal = \"x\"\n{PLAYERS}"
        );
        let err = parse(&text).unwrap_err();
        let keys: Vec<(&str, Option<usize>)> = err
            .problems
            .iter()
            .map(|p| (p.key.as_str(), p.line))
            .collect();
        assert_eq!(
            keys,
            vec![
                ("cycles", Some(4)),
                ("leave_days", Some(5)),
                ("withdrawal", Some(6))
            ]
        );
        let text = err.to_string();
        assert!(text.starts_with("line 4, cycles: must be 1"), "{text}");
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn junk_is_refused_with_an_error_not_a_panic() {
        for text in [
            "",
            "\u{0}\u{1}",
            "[[[",
            "kind = \"olympiad\"\n[[teams]]\n",
            "players = 3",
            "ä = \"ö\"\n\n\n",
        ] {
            assert!(parse(text).is_err(), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_gets_an_event_or_problems_never_a_panic(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }

        #[test]
        fn any_edit_of_an_example_file_gets_an_event_or_problems(
            at in 0usize..2000,
            junk in "[a-z=\\[\\]\"0-9 \n.#-]{0,12}",
        ) {
            let mut text = ROUND_ROBIN.to_string();
            let at = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            text.insert_str(at, &junk);
            if let Err(e) = parse(&text) {
                proptest::prop_assert!(!e.problems.is_empty());
            }
        }
    }
}
