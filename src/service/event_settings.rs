//! An event's settings as the store keeps them (JSON in `events.settings`):
//! one schema, read by the TD tools (`td::stored`, which also writes it)
//! and by the game loader (`service::loaded_game`), which reads them once
//! with a game of the event for the arbiter (the game's rules), the post
//! (the analysis link) and the ratings (whether the event is rated). It
//! sits apart from `td` because `td` sends its mail through the post, and
//! the post needs these settings too.

use serde::{Deserialize, Serialize};

use crate::adapter::store::{StoreError, Tx};
use crate::domain::ids::EventId;

/// Everything of an event but its entrants, as stored in `events.settings`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EventSettings {
    pub(crate) time_control: String,
    pub(crate) leave_days: u32,
    pub(crate) win: f64,
    pub(crate) draw: f64,
    pub(crate) loss: f64,
    pub(crate) withdrawal: String,
    /// Whether default games count for Sonneborn-Berger (absent: they do).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub(crate) sb_counts_unplayed: bool,
    /// Tie-breaks (round robin) or the team ranking order, by key.
    pub(crate) tie_breaks: Vec<String>,
    #[serde(default)]
    pub(crate) cycles: u32,
    #[serde(default)]
    pub(crate) boards: u32,
    #[serde(default)]
    pub(crate) games_per_pairing: u32,
    /// The draw offer rules (absent in events stored before they existed).
    #[serde(default)]
    pub(crate) draws: crate::domain::event::DrawPolicy,
    /// The analysis board link of the event's mails, as written (absent:
    /// the server's setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) analysis_link: Option<String>,
    /// Whether players may pass messages (absent: they may).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub(crate) messages: bool,
    /// Whether the games count for the rating list (absent: they do).
    #[serde(default = "yes", skip_serializing_if = "is_yes")]
    pub(crate) rated: bool,
    /// The rules for the endgame tables (absent: ICCF's, claims, notices).
    #[serde(default)]
    pub(crate) tablebase: crate::domain::chess::tablebase::TablebasePolicy,
    /// The FEN every game starts from (absent: the usual position).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) start_fen: Option<String>,
    /// The rules for entries by mail (absent: the event takes none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) entries: Option<crate::domain::event::entries::EntryRules>,
    /// Preliminary groups and a final (absent: one stage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) stages: Option<crate::domain::event::entries::Stages>,
    /// The thematic line every game starts with, in SAN (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) start_moves: Option<String>,
    /// How a Chess960 event draws its positions: `event`, `round` or a
    /// number (absent: not Chess960).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) chess960: Option<String>,
    /// The language of its public web pages, by code (absent: English).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lang: Option<String>,
    /// A Swiss event's rounds, bye and acceleration (absent: not one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) swiss: Option<crate::domain::event::file::SwissRules>,
    /// A consultation game's sides (absent: not one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) consultation: Option<StoredSides>,
}

/// A consultation game's sides as stored: the members by address (they
/// are registered players; their names and languages are theirs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredSides {
    pub(crate) vote_hours: u32,
    pub(crate) teams: Vec<StoredTeam>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StoredTeam {
    pub(crate) name: String,
    pub(crate) captain: String,
    pub(crate) members: Vec<String>,
}

/// The rules of a stored event that the arbiter applies to each of its
/// games: draw offers, messages and the endgame tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameRules {
    /// The draw offer rules.
    pub draws: crate::domain::event::DrawPolicy,
    /// Whether players may pass messages to each other.
    pub messages: bool,
    /// The rules for the endgame tables.
    pub tablebase: crate::domain::chess::tablebase::TablebasePolicy,
}

impl Default for GameRules {
    /// The rules of a game outside any event.
    fn default() -> Self {
        GameRules {
            draws: crate::domain::event::DrawPolicy::default(),
            messages: true,
            tablebase: crate::domain::chess::tablebase::TablebasePolicy::default(),
        }
    }
}

impl EventSettings {
    /// The rules the event's games are played by.
    pub fn rules(&self) -> GameRules {
        GameRules {
            draws: self.draws,
            messages: self.messages,
            tablebase: self.tablebase,
        }
    }

    /// The analysis board link the event sets for its games' mails; `None`
    /// when it leaves it to the server's `[mail] analysis_link`.
    pub fn analysis_link(
        &self,
    ) -> Result<Option<crate::domain::chess::analysis::AnalysisLink>, StoreError> {
        self.analysis_link
            .as_deref()
            .map(|text| {
                crate::domain::chess::analysis::AnalysisLink::parse(text)
                    .map_err(|e| StoreError::Corrupt(format!("event settings: analysis_link {e}")))
            })
            .transpose()
    }

    /// Decodes the stored settings of event `event`.
    pub fn decode(event: EventId, json: &str) -> Result<EventSettings, StoreError> {
        serde_json::from_str(json)
            .map_err(|e| StoreError::Corrupt(format!("event {event} settings: {e}")))
    }

    /// The language of the event's public pages, if its file named one
    /// (a code stored by an older or newer dopis that this one does not
    /// know reads as none).
    pub fn page_lang(&self) -> Option<crate::domain::lang::Lang> {
        self.lang
            .as_deref()
            .and_then(|code| crate::domain::lang::Lang::of_pages(code).ok())
    }

    /// Reads and decodes the settings of event `event`.
    pub async fn read(tx: &mut Tx, event: EventId) -> Result<EventSettings, StoreError> {
        let record = tx.event(event).await?;
        EventSettings::decode(event, &record.settings)
    }
}

fn yes() -> bool {
    true
}

fn is_yes(b: &bool) -> bool {
    *b
}
