//! An event's games as one PGN file (`dopis event pgn`), tagged as
//! tournament bulletins and databases expect.
//!
//! Tags, by the PGN standard (section 8.1.1 for the Seven Tag Roster, 9 for
//! the others):
//!
//! - `Event`: the event's name; `Site`: given by the caller (the CLI's
//!   `--site`, by default the domain of the server's `[mail] address`, the
//!   "place" a correspondence event is played at); `Date`: when the game
//!   started; `Round`: the round as a plain number (`3`; the standard
//!   writes a round as `3`, sub-rounds as `3.1`, so the board goes in a tag
//!   of its own); `White`, `Black`: the players' names; `Result`: `1-0`,
//!   `0-1`, `1/2-1/2`, or `*` for a game still being played (or annulled
//!   without a result); `Termination` from how the game ended.
//! - `EventDate`: when the event's games started (9.2.1).
//! - Team events: `Board` (the board the game was played on),
//!   `WhiteTeam` and `BlackTeam` (the teams' names).
//! - `WhiteElo`, `BlackElo` (9.1.1) when the players have a rating: see
//!   [`rating_tags`]; a tag of an unknown rating is left out, as PGN
//!   allows.
//! - `TimeControl`, `EndDate` as in a single game's PGN.
//!
//! Messages between the players are left out: they are kept in each
//! game's own PGN, which only its players get.

use super::{StoredEvent, TdError, refused};
use crate::adapter::store::Tx;
use crate::adapter::store::events::EventStatus;
use crate::domain::chess::pgn::{self, PgnTags};
use crate::domain::player::Player;
use crate::service::loaded_game::pgn_time_control;

/// The `WhiteElo` and `BlackElo` tags of a game: the ratings a rated game
/// was rated against, else the players' current ones (as a game's own PGN
/// has them, [`crate::service::ratings::game_ratings`]); an unrated player's
/// tag is left out.
fn rating_tags(ratings: [Option<i32>; 2]) -> Vec<(String, String)> {
    ["WhiteElo", "BlackElo"]
        .into_iter()
        .zip(ratings)
        .filter_map(|(tag, r)| r.map(|r| (tag.to_string(), r.to_string())))
        .collect()
}

/// Every game of a started event as one PGN text, by round, board and
/// number, each game's tags as the module says; `site` is the `Site` tag.
pub async fn event_pgn(tx: &mut Tx, ev: &StoredEvent, site: &str) -> Result<String, TdError> {
    let id = ev.record.id;
    if ev.record.status != EventStatus::Started {
        return refused(format!(
            "event {id} has not started, so it has no games yet: `dopis event start {}` starts them",
            id.0
        ));
    }
    let event_date = ev.record.started_at.map_or_else(
        || "????.??.??".to_string(),
        |t| pgn::pgn_date(t.date_naive()),
    );
    let team_of = |player: &Player| {
        ev.seat_of(player.id)
            .and_then(|e| e.team)
            .and_then(|n| ev.teams.iter().find(|t| t.number == n))
            .map(|t| t.name.clone())
    };
    let mut out = String::new();
    for g in tx.event_games(id).await? {
        let record = tx.game_to_read(g.game.id).await?;
        let game = record.to_game()?;
        let white = tx.player(record.white).await?;
        let black = tx.player(record.black).await?;
        let mut other = vec![("EventDate".to_string(), event_date.clone())];
        if ev.is_team_event() {
            other.push(("Board".into(), g.board.to_string()));
            if let Some(team) = team_of(&white) {
                other.push(("WhiteTeam".into(), team));
            }
            if let Some(team) = team_of(&black) {
                other.push(("BlackTeam".into(), team));
            }
        }
        other.extend(rating_tags(
            crate::service::ratings::game_ratings(tx, &record).await?,
        ));
        let tags = PgnTags {
            event: ev.record.name.clone(),
            site: site.to_string(),
            date: pgn::pgn_date(record.created_at.date_naive()),
            round: g.round.to_string(),
            white: white.name.clone(),
            black: black.name.clone(),
            time_control: Some(pgn_time_control(record.time_control)),
            end_date: record.finished_at.map(|t| pgn::pgn_date(t.date_naive())),
            other,
        };
        if !out.is_empty() {
            out.push('\n');
        }
        // A consultation game's moves carry the votes that chose them.
        let members = crate::service::votes::Members::load(tx, record.id).await?;
        let votes =
            crate::service::votes::vote_remarks(tx, &members, record.id, game.plies().len())
                .await?;
        out.push_str(&pgn::export_with_remarks(&game, &tags, &votes));
    }
    Ok(out)
}
