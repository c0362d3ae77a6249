//! The one integration-test binary (STYLE.md): one module per area.

mod inbound_fixtures;
mod move_cli;
mod pgn_files;
