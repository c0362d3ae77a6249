//! Each player's private calendar feed (to be written).

use axum::Router;

use super::Shared;

/// The feeds' routes.
pub(super) fn routes() -> Router<Shared> {
    Router::new()
}
