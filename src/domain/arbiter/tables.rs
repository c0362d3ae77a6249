//! The endgame tables in play: claims judged on them, and what happens when
//! a move brings a game into them (a notice to both players once, or the
//! end of the game where the event says so).

use chrono::{DateTime, Utc};
use shakmaty::{Color, Move};

use super::State;
use super::notice::Notice;
use super::reason::{Claimed, Reason, Rejection, RejectionKind, TableRefusal, reject};
use crate::domain::chess::game::{ClaimRejected, Game};
use crate::domain::chess::outcome::{GameResult, Outcome};
use crate::domain::chess::tablebase::{
    Decider, TableNews, TableProof, TablebaseEnd, TablebasePolicy, TablebaseRule, Tables,
};

impl State<'_> {
    /// Whether a claim may be judged on the tables here at all: the event
    /// uses them and some are set up.
    pub(super) fn tables_in_play(&self) -> bool {
        self.tablebase.rule != TablebaseRule::None && self.tables.most_pieces() > 0
    }
}

/// Judges a claim of `claimed` by `me` on the tables, in the position after
/// `mv` (already parsed and checked legal) or in the current one. A valid
/// claim plays the move and ends the game as the tables say; an invalid one
/// changes nothing. `fide` is why a draw claim by repetition or the 50-move
/// rule failed, to be told too.
pub(super) fn claim(
    st: &mut State<'_>,
    me: Color,
    claimed: Claimed,
    mv: Option<Move>,
    wrote: &str,
    at: DateTime<Utc>,
    fide: Option<ClaimRejected>,
) -> Result<Option<String>, Rejection> {
    let refuse = |why: TableRefusal, fide: Option<ClaimRejected>| {
        reject(
            wrote,
            Reason::TableClaimInvalid {
                claimed,
                why,
                with_move: mv.is_some(),
                fide,
            },
            // A refused draw claim explains how draw claims work; a win
            // claim has nothing of that to learn.
            match claimed {
                Claimed::Draw => RejectionKind::Claim,
                Claimed::Win => RejectionKind::Other,
            },
        )
    };
    let rule = st.tablebase.rule;
    if rule == TablebaseRule::None {
        return Err(refuse(TableRefusal::EventUsesNone, fide));
    }
    let mut after = st.game.clone();
    if let Some(m) = &mv
        && let Some(ended) = after
            .play(m, Some(at))
            .map_err(|e| reject(wrote, Reason::Game(e), RejectionKind::Claim))?
    {
        // Mate or stalemate by the move itself: no claim is needed, and
        // none is granted (as for draw claims).
        return Err(reject(
            wrote,
            Reason::ClaimInvalid {
                why: ClaimRejected::MoveEndsGame(ended),
                with_move: true,
            },
            RejectionKind::Claim,
        ));
    }
    let reading = st
        .tables
        .read(after.position())
        .map_err(|u| refuse(TableRefusal::Unread(u), fide.clone()))?;
    let Some(result) = reading.result(rule) else {
        return Err(refuse(TableRefusal::Open { reading }, fide));
    };
    let wanted = match claimed {
        Claimed::Win => GameResult::win_for(me),
        Claimed::Draw => GameResult::Draw,
    };
    if result != wanted {
        return Err(refuse(
            TableRefusal::TablesSay {
                reading,
                rule,
                result,
            },
            fide,
        ));
    }
    let proof = TableProof::of(&reading, rule, Decider::Claim(me));
    after.rule(Outcome::new(result, proof.end_reason()));
    *st.game = after;
    *st.offer = None;
    Ok(Some(format!("{wrote}: granted by the tables ({proof})")))
}

/// After a mail's moves: where they brought the game into the tables, the
/// event either ends it as the tables say (`tablebase_end = "auto"`, also
/// once it is in them) or both players are told once what the tables say.
/// Returns what happened, for the inbound log.
pub(super) fn after_moves(
    before: &Game,
    next: &mut Game,
    tables: &dyn Tables,
    policy: TablebasePolicy,
    notices: &mut Vec<Notice>,
) -> Option<String> {
    if next.is_over() || next.plies().len() == before.plies().len() {
        return None;
    }
    if policy.rule == TablebaseRule::None {
        return None;
    }
    let reading = tables.read(next.position()).ok()?;
    if policy.end == TablebaseEnd::Auto
        && let Some(result) = reading.result(policy.rule)
    {
        let proof = TableProof::of(&reading, policy.rule, Decider::Itself);
        next.rule(Outcome::new(result, proof.end_reason()));
        return Some(format!("ended as the tables say ({proof})"));
    }
    let entered = tables.read(before.position()).is_err();
    if entered && policy.notice {
        notices.push(Notice::TablesSay {
            news: TableNews {
                reading,
                rule: policy.rule,
            },
        });
        return Some("told both players what the tables say".into());
    }
    None
}
