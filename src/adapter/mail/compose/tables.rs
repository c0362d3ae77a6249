//! What the endgame tables say, as the values the templates read
//! (`tables.txt`, the `tables` of an outcome, a refused claim).

use serde_json::{Value, json};

use crate::domain::chess::outcome::GameResult;
use crate::domain::chess::side;
use crate::domain::chess::tablebase::{Decider, Dtz, Reading, TableNews, TableProof, Wdl};

/// `white`, `black` (the winner) or `draw`.
pub(super) fn result_key(r: GameResult) -> &'static str {
    r.winner().map_or("draw", side::key)
}

/// A cursed win or a blessed loss: decided beyond the 50-move rule.
fn cursed(w: Wdl) -> bool {
    matches!(w, Wdl::CursedWin | Wdl::BlessedLoss)
}

pub(super) fn table_reading(r: &Reading) -> Value {
    json!({
        "material": r.material,
        "pieces": r.pieces,
        "turn": side::key(r.turn),
        "halfmoves": r.halfmoves,
        "for_white": r.for_white().key(),
        "cursed": cursed(r.wdl),
        "dtz": r.dtz.map(shown),
    })
}

/// What the tables say as a game enters them, for the mails of that move:
/// the reading, the event's rule and what a claim would get (`white`,
/// `black`, `draw`, or `open` where the 50-move rule leaves it open).
pub(super) fn table_news(n: &TableNews) -> Value {
    json!({
        "reading": table_reading(&n.reading),
        "rule": n.rule.key(),
        "result": n.result().map_or("open", result_key),
    })
}

/// A distance to zeroing as players read it: half-moves, without the
/// sign (whose win it is, the sentence says) or Syzygy's rounding mark
/// (a ply either way; the rules judge it, not the reader).
fn shown(d: Dtz) -> String {
    d.plies.unsigned_abs().to_string()
}

/// The proof of a result the tables decided.
pub(super) fn table_proof(p: &TableProof) -> Value {
    json!({
        "material": p.material,
        "for_white": p.for_white.key(),
        "cursed": cursed(p.for_white),
        "dtz": p.dtz.map(shown),
        "rule": p.rule.key(),
        "by": match p.by {
            Decider::Claim(side) => side::key(side),
            Decider::Itself => "itself",
            Decider::Director => "director",
        },
    })
}
