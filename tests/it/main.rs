//! The one integration-test binary (STYLE.md): one module per area.

mod support;

mod cli;
mod inbound_fixtures;
mod languages;
mod move_cli;
mod outbound;
mod outbound_lang;
mod pgn_files;
mod store;
mod transport;
