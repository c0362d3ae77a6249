//! Event, game and player pages (to be written).

use axum::Router;
use axum::routing::get;

use super::Shared;

/// The pages' routes.
pub(super) fn routes() -> Router<Shared> {
    Router::new().route("/", get(index))
}

async fn index() -> &'static str {
    "dopis\n"
}
