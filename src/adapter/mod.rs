//! The outside world's formats and the database, over the pure core: what
//! the services read and write through.
//!
//! - [`store`]: the database (sqlx on SQLite or PostgreSQL), migrations,
//!   one file per table or concern; no SQL anywhere else.
//! - [`mail`]: inbound mail parsing, routing and reply tokens, and composing
//!   the mails we send.
//! - [`config`]: the TOML config file with `DOPIS_…` environment overrides.
//! - [`telemetry`]: logging for the daemon.
//! - [`tablebase`]: the Syzygy endgame tables a club supplies (read with
//!   shakmaty-syzygy).
//! - [`atom`]: Atom feeds, an event's news for feed readers.

pub mod atom;
pub mod config;
pub mod mail;
pub mod store;
pub mod tablebase;
pub mod telemetry;
