//! The one integration-test binary (STYLE.md): one module per area.

mod support;

mod cli;
mod clocks;
mod crash;
mod daemon;
mod digest;
mod e2e;
mod event_mail;
mod events;
mod inbound_fixtures;
mod languages;
mod move_cli;
mod outbound;
mod outbound_lang;
mod pgn_files;
mod stale;
mod store;
mod td_reports;
mod time_cli;
mod time_mail;
mod transport;
