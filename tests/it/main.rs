//! The one integration-test binary (STYLE.md): one module per area.

mod support;

mod bounces;
mod calendar;
mod cli;
mod clocks;
mod club;
mod crash;
mod daemon;
mod digest;
mod dkim;
mod e2e;
mod english_left;
mod event_mail;
mod events;
mod exit;
mod faults;
mod gender;
mod inbound_fixtures;
mod languages;
mod layers;
mod maildir;
mod migrations;
mod move_cli;
mod outbound;
mod outbound_lang;
mod pgn_files;
mod quarantine;
mod setup;
mod stale;
mod store;
mod td_reports;
mod time_cli;
mod time_mail;
mod tls;
mod transport;
