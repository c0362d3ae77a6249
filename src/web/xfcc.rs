//! The XFCC endpoint (to be written).

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;

use super::Shared;

/// The XFCC endpoint at `path`.
pub(super) fn routes(path: &str) -> Router<Shared> {
    Router::new().route(path, post(|| async { StatusCode::NOT_IMPLEMENTED }))
}
