//! A game's result set, adjudicated or cancelled by a TD: one game
//! (`dopis game result`) or a whole file of them (`import`).

use chrono::{DateTime, Utc};

use super::{StoredEvent, TdError, corrupt, event_of, reason_given, refused, table};
use crate::adapter::mail::compose::LetterKind;
use crate::adapter::store::Tx;
use crate::adapter::store::games::{GameRecord, GameStatus};
use crate::adapter::store::td_log::NewTdAction;
use crate::domain::address::EmailAddress;
use crate::domain::chess::game::{GameResult, Outcome};
use crate::domain::chess::outcome::{Cancellation, ResultKind};
use crate::domain::ids::GameId;
use crate::service::post::Post;

/// What a TD rules for one game: a result of a kind, or a cancellation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ruling {
    /// The game ends with this result, reached this way (time,
    /// adjudication or default).
    Result(GameResult, ResultKind),
    /// The game is cancelled: no result, it counts for nobody.
    Cancel,
}

impl Ruling {
    /// A ruling from what a TD wrote: a result (none for `cancelled`) and a
    /// kind. Refused, with what to write instead, when they do not fit.
    pub fn new(result: Option<GameResult>, kind: ResultKind) -> Result<Ruling, String> {
        match (kind, result) {
            (ResultKind::Cancelled, None) => Ok(Ruling::Cancel),
            (ResultKind::Cancelled, Some(r)) => Err(format!(
                "a cancelled game has no result: leave out '{}' (or give another kind)",
                r.as_pgn()
            )),
            (_, None) => Err(format!(
                "give the result (1-0, 0-1 or 1/2-1/2) for kind '{kind}'; only 'cancelled' takes none"
            )),
            (ResultKind::Board, Some(_)) => Err(
                "a TD does not play a game out: give kind time, adjudication, default or cancelled"
                    .to_string(),
            ),
            (ResultKind::Time | ResultKind::Default, Some(GameResult::Draw)) => Err(format!(
                "kind '{kind}' is a win for one side: write 1-0 or 0-1 (a draw is an adjudication)"
            )),
            (_, Some(r)) => Ok(Ruling::Result(r, kind)),
        }
    }

    /// The game's result after the ruling, as PGN writes it (`*` for a
    /// cancellation), with the kind: `1-0 (time)`, `* (cancelled)`.
    pub fn describe(self) -> String {
        match self {
            Ruling::Result(r, kind) => format!("{} ({kind})", r.as_pgn()),
            Ruling::Cancel => format!("* ({})", ResultKind::Cancelled),
        }
    }
}

/// How a stored game stands, as a TD reads it: `*`, `1-0 (time)`,
/// `* (cancelled)`, `* (annulled)`.
pub fn describe_stored(record: &GameRecord) -> String {
    if record.status != GameStatus::Finished {
        return "*".to_string();
    }
    if record.is_cancelled() {
        return Ruling::Cancel.describe();
    }
    let read = record
        .result
        .as_deref()
        .and_then(GameResult::from_pgn)
        .map(|r| {
            let kind = record
                .end_reason
                .as_deref()
                .and_then(|why| Outcome::from_description(r, why))
                .map_or(ResultKind::Board, |o| o.reason.kind());
            format!("{} ({kind})", r.as_pgn())
        });
    read.unwrap_or_else(|| "* (annulled)".to_string())
}

/// Checks that a ruling may be applied to a game as it stands, with no
/// change made: refused for a cancelled or annulled game, and for a
/// cancellation when either player has withdrawn from the event.
pub(super) fn check(
    record: &GameRecord,
    ev: Option<&StoredEvent>,
    ruling: Ruling,
) -> Result<(), TdError> {
    let game = record.id;
    if record.is_cancelled() {
        return refused(format!(
            "game {game} was cancelled: a cancelled game takes no result and cannot be \
             cancelled again"
        ));
    }
    if record.status == GameStatus::Finished && record.result.is_none() {
        return refused(format!(
            "game {game} was annulled by a withdrawal: it takes no result"
        ));
    }
    if ruling == Ruling::Cancel
        && let Some(ev) = ev
    {
        for player in [record.white, record.black] {
            if let Some(e) = ev
                .entrants
                .iter()
                .find(|e| e.player.id == player && e.withdrawn_at.is_some())
            {
                return refused(format!(
                    "{} <{}> has withdrawn from event {}: the withdrawal rule decides their \
                     games; cancel only games between two active players",
                    e.player.name, e.player.email, ev.record.id
                ));
            }
        }
    }
    Ok(())
}

/// Whether a file's game may become a stored game's moves: the stored game
/// has none of its players' moves yet (a thematic line's are not theirs),
/// and the file's game starts where it does, with the same line; if not,
/// why not (`has moves already`).
fn file_moves_fit(
    record: &crate::adapter::store::games::GameRecord,
    file: &crate::domain::chess::game::Game,
) -> Result<(), &'static str> {
    let line = record.moves.len();
    if line > record.opening_plies as usize {
        return Err("has moves already");
    }
    if *file.start() != record.start() {
        return Err("starts from another position");
    }
    let same_line = file.plies().len() > line
        && file
            .plies()
            .iter()
            .zip(&record.moves)
            .all(|(a, b)| a.uci == b.uci);
    if !same_line {
        return Err(
            "starts with the event's thematic line and the file's game does not go on from it",
        );
    }
    Ok(())
}

/// Applies a ruling to one game and logs it, without mail. Returns the TD
/// action's id.
pub(super) async fn apply(
    tx: &mut Tx,
    game: GameId,
    ruling: Ruling,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
    played: Option<&crate::domain::chess::game::Game>,
) -> Result<i64, TdError> {
    let ev = event_of(tx, game, by).await?;
    let record = tx.game_for_update(game).await?;
    check(&record, ev.as_ref(), ruling)?;
    let detail = match ruling {
        Ruling::Result(result, kind) => {
            // The moves a PGN file gives become the game's when it has none
            // of its players' yet (and starts where the file's game starts).
            let played = played.filter(|p| file_moves_fit(&record, p).is_ok());
            let mut chess = match played {
                Some(p) => {
                    let mut p = p.clone();
                    p.set_opening_plies(record.opening_plies as usize)
                        .map_err(|e| corrupt(format!("game {game}: {e}")))?;
                    p
                }
                None => record.to_game()?,
            };
            // A result played out over the board that a TD enters (an
            // import of a finished event's results) ended as such results
            // mostly do: by resignation, or a draw by agreement.
            let reason = kind.ruled(reason).unwrap_or(match result {
                GameResult::Draw => crate::domain::chess::game::EndReason::Agreement,
                _ => crate::domain::chess::game::EndReason::Resignation,
            });
            match played.and_then(|p| p.outcome()) {
                // The file's own ending (a mate, a resignation) where it
                // gives the same result.
                Some(o) if o.result == result && kind == o.reason.kind() => chess.rule(o.clone()),
                _ => chess.rule(Outcome::new(result, reason)),
            };
            tx.save_game(
                &record,
                &chess,
                None,
                &Default::default(),
                record.last_offers,
                now,
            )
            .await?;
            // An adjudication is what `game result` always was: its log line
            // reads as before; other kinds say theirs.
            match kind {
                ResultKind::Adjudication => format!("set game {game} to {}", result.as_pgn()),
                _ => format!("set game {game} to {}", ruling.describe()),
            }
        }
        Ruling::Cancel => {
            let ending = Cancellation {
                why: reason.to_owned(),
            };
            tx.cancel_game(game, &ending.to_string(), now).await?;
            format!("cancelled game {game}")
        }
    };
    let action = tx
        .record_td_action(
            &NewTdAction {
                event: ev.as_ref().map(|e| e.record.id),
                game: Some(game),
                action: if ruling == Ruling::Cancel {
                    "cancel"
                } else {
                    "result"
                },
                by: by.as_str(),
                detail: &detail,
                reason,
            },
            now,
        )
        .await?;
    Ok(action)
}

/// Tells both players of a ruled game: the game-over mail with the TD's
/// reason, or, for a cancellation, that the game is cancelled.
pub(super) async fn tell_players(
    tx: &mut Tx,
    post: &Post,
    action: i64,
    game: GameId,
    ruling: Ruling,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<(), TdError> {
    let t = table(tx, game).await?;
    match ruling {
        Ruling::Result(..) => {
            post.game_over(tx, &format!("td{action}.g{}", game.0), &t, &[], now)
                .await?
        }
        Ruling::Cancel => {
            for side in [shakmaty::Color::White, shakmaty::Color::Black] {
                post.to_player(
                    tx,
                    format!(
                        "td{action}.g{}.cancelled.{}",
                        game.0,
                        crate::domain::chess::side::key(side)
                    ),
                    LetterKind::GameCancelled {
                        reason: reason.to_owned(),
                    },
                    &t,
                    side,
                    now,
                )
                .await?;
            }
        }
    }
    // The ruling may have ended the event's last game.
    super::finals::mail_final_standings(tx, post, game, now).await?;
    Ok(())
}

/// Sets, adjudicates or cancels a game's result; both players are told
/// (the game-over mail with the TD's reason, or that the game is
/// cancelled). Returns the TD action's id.
pub async fn set_result(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    ruling: Ruling,
    reason: &str,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<i64, TdError> {
    let reason = reason_given(reason, "both players")?;
    let action = apply(tx, game, ruling, reason, by, now, None).await?;
    tell_players(tx, post, action, game, ruling, reason, now).await?;
    Ok(action)
}

/// Adjudicates a game by the endgame tables (`dopis game adjudicate N
/// --tablebase`): its position now, judged under its event's rule (ICCF's
/// outside events), becomes the result, with the tables' proof as the
/// reason in the record, the PGN and both players' mails. A position the
/// tables cannot judge changes nothing and says why. Returns the proof.
pub async fn adjudicate_by_tables(
    tx: &mut Tx,
    post: &Post,
    game: GameId,
    tables: &dyn crate::domain::chess::tablebase::Tables,
    by: &EmailAddress,
    now: DateTime<Utc>,
) -> Result<crate::domain::chess::tablebase::TableProof, TdError> {
    use crate::domain::chess::tablebase::{Decider, TableProof, TablebaseRule};
    let record = tx.game_for_update(game).await?;
    let chess = record.to_game()?;
    if let Some(o) = chess.outcome() {
        return refused(format!("game {game} is over already: {o}"));
    }
    let rule = match record.event {
        Some(event) => super::game_rules(tx, event).await?.tablebase.rule,
        None => TablebaseRule::default(),
    };
    if rule == TablebaseRule::None {
        return refused(format!(
            "game {game}'s event is played without the endgame tables (tablebase_rule = \"none\"); adjudicate it with `dopis game result`"
        ));
    }
    let reading = tables
        .read(chess.position())
        .map_err(|why| TdError::Refused(format!("the tables cannot judge game {game}: {why}")))?;
    let Some(result) = reading.result(rule) else {
        return refused(format!(
            "the tables cannot judge game {game} by the 50-move rule yet: {} half-moves without a capture or pawn move, and the distance to the next one (DTZ {}) is too near the limit",
            reading.halfmoves,
            reading.dtz.map(|d| d.to_string()).unwrap_or_default()
        ));
    };
    let proof = TableProof::of(&reading, rule, Decider::Director);
    set_result(
        tx,
        post,
        game,
        Ruling::Result(result, ResultKind::Adjudication),
        &proof.to_string(),
        by,
        now,
    )
    .await?;
    Ok(proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ruling_takes_a_result_that_fits_its_kind() {
        use GameResult::*;
        use ResultKind::*;
        assert_eq!(Ruling::new(None, Cancelled), Ok(Ruling::Cancel));
        assert_eq!(
            Ruling::new(Some(WhiteWins), Time),
            Ok(Ruling::Result(WhiteWins, Time))
        );
        assert_eq!(
            Ruling::new(Some(Draw), Adjudication),
            Ok(Ruling::Result(Draw, Adjudication))
        );
        for (result, kind) in [
            (Some(WhiteWins), Cancelled),
            (None, Time),
            (None, Adjudication),
            (Some(Draw), Time),
            (Some(Draw), Default),
            (Some(WhiteWins), Board),
        ] {
            assert!(Ruling::new(result, kind).is_err(), "{result:?} {kind:?}");
        }
    }
}

/// One game an import changes: what it was and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedResult {
    /// The line of the file.
    pub line: usize,
    /// The game.
    pub game: GameId,
    /// White's and Black's names.
    pub players: (String, String),
    /// The game before (`*`, `1-0 (board)`, …).
    pub before: String,
    /// The game after.
    pub after: String,
    /// What else a TD should know (moves in the file that are not stored).
    pub note: Option<String>,
}

/// Imports a results file into a started event, all or nothing: every line
/// is checked first (its players, its game, its result against the game
/// as it stands), and any problem refuses the whole file, naming each line.
/// With `dry_run` nothing changes; otherwise each game takes its result,
/// and with `mail` both players are told as for `game result`. Returns
/// what changes, line by line.
#[allow(clippy::too_many_arguments)]
pub async fn import_results(
    tx: &mut Tx,
    post: &Post,
    event: crate::domain::ids::EventId,
    file: &str,
    lines: &[crate::domain::event::import::ResultLine],
    by: &EmailAddress,
    now: DateTime<Utc>,
    dry_run: bool,
    mail: bool,
) -> Result<Vec<ImportedResult>, TdError> {
    let ev = StoredEvent::load(tx, event).await?;
    ev.check_td(by)?;
    if ev.record.status != crate::adapter::store::events::EventStatus::Started {
        return refused(format!(
            "event {} has not started: start it first (`dopis event start {}`)",
            ev.record.id, ev.record.id
        ));
    }
    let games = tx.event_games(event).await?;
    let team = ev.is_team_event();
    let who = |text: &str| {
        let text = text.trim();
        ev.entrants.iter().find(|e| {
            // Names as a TD types them: any case, spaces trimmed.
            e.player.email.as_str().eq_ignore_ascii_case(text)
                || e.player.name.trim().to_lowercase() == text.trim().to_lowercase()
        })
    };
    let mut problems = Vec::new();
    let mut plan = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for l in lines {
        let mut wrong = |m: String| problems.push(format!("line {}: {m}", l.line));
        let (Some(white), Some(black)) = (who(&l.white), who(&l.black)) else {
            for name in [&l.white, &l.black] {
                if who(name).is_none() {
                    wrong(format!(
                        "'{name}' plays in no seat of event {}: write their address or name as `dopis event show {}` lists it",
                        ev.record.id, ev.record.id
                    ));
                }
            }
            continue;
        };
        if team && l.board.is_none() {
            wrong("give the board: this is a team event".into());
            continue;
        }
        let found = games.iter().find(|g| {
            g.round == l.round
                && (!team || Some(g.board) == l.board)
                && g.game.white == white.player.id
                && g.game.black == black.player.id
        });
        let Some(g) = found else {
            wrong(format!(
                "no game in round {}{} with White {} and Black {}: `dopis event pairings {}` lists the games (swap the players if the colours are the other way round)",
                l.round,
                l.board.map(|b| format!(", board {b}")).unwrap_or_default(),
                white.player.name,
                black.player.name,
                // The bare number: `#1` is how events are named, not how
                // the command takes them.
                ev.record.id.0
            ));
            continue;
        };
        if let Some(first) = seen.insert(g.game.id, l.line) {
            wrong(format!(
                "game {} is on line {first} already: give each game once",
                g.game.id
            ));
            continue;
        }
        let ruling = match (l.kind, l.result) {
            (ResultKind::Board, Some(r)) => Ruling::Result(r, ResultKind::Board),
            (kind, result) => match Ruling::new(result, kind) {
                Ok(r) => r,
                Err(e) => {
                    wrong(e);
                    continue;
                }
            },
        };
        if let Err(e) = check(&g.game, Some(&ev), ruling) {
            wrong(e.to_string());
            continue;
        }
        // The event's list of games carries no moves: read the game's own.
        let note = match &l.played {
            Some(p) if !p.plies().is_empty() => {
                let record = tx.game_for_update(g.game.id).await?;
                file_moves_fit(&record, p)
                    .err()
                    .map(|why| format!("game {} {why}; the file's moves are ignored", g.game.id))
            }
            _ => None,
        };
        plan.push((
            l,
            g.game.id,
            ruling,
            describe_stored(&g.game),
            white,
            black,
            note,
        ));
    }
    if !problems.is_empty() {
        return refused(format!(
            "nothing was imported; fix these lines of {file} and run it again:\n{}",
            problems.join("\n")
        ));
    }
    let mut changes = Vec::new();
    for (l, game, ruling, before, white, black, note) in plan {
        changes.push(ImportedResult {
            line: l.line,
            game,
            players: (white.player.name.clone(), black.player.name.clone()),
            before,
            after: ruling.describe(),
            note,
        });
        if dry_run {
            continue;
        }
        let reason = if l.reason.trim().is_empty() {
            format!("{file} line {}", l.line)
        } else {
            l.reason.trim().to_owned()
        };
        let action = apply(tx, game, ruling, &reason, by, now, l.played.as_ref()).await?;
        if mail {
            tell_players(tx, post, action, game, ruling, &reason, now).await?;
        }
    }
    Ok(changes)
}
