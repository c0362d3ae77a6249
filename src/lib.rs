//! dopis: correspondence chess by plain e-mail.
//!
//! Map of the crate (pure modules never touch the clock, the network or a
//! database; a `grep -r 'sqlx\|tokio\|lettre' src/chess src/lang.rs` finds nothing):
//!
//! - [`address`]: e-mail addresses, validated once.
//! - [`lang`]: the languages players write in (pure).
//! - [`chess`]: rules core on shakmaty — move text in every notation, games and
//!   their endings, PGN, board diagrams (pure).
//! - [`player`]: players and their details.
//! - [`clock`]: time controls in days (pure).
//! - [`event`]: round robins and team olympiads — pairings, standings,
//!   tie-breaks, crosstables, the event file (pure).
//! - [`mail`]: inbound mail parsing and the commands players write (pure).
//! - [`config`]: the TOML config file with `DOPIS_…` environment overrides.
//! - [`store`]: the database (sqlx on SQLite or PostgreSQL), migrations,
//!   players and games.
//! - [`app`]: the config, store and clock every command shares.
//! - [`cli`]: the `dopis` command line, a thin layer over the rest.

pub mod address;
pub mod app;
pub mod chess;
pub mod cli;
pub mod clock;
pub mod config;
pub mod event;
pub mod lang;
pub mod mail;
pub mod player;
pub mod store;
