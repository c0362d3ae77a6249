//! dopis: correspondence chess by plain e-mail.
//!
//! Map of the crate (pure modules never touch the clock, the network or a
//! database; a `grep -r 'sqlx\|tokio\|lettre' src/chess src/lang.rs` finds nothing):
//!
//! - [`address`]: e-mail addresses, validated once.
//! - [`lang`]: the languages players write in (pure).
//! - [`locale`]: dates and deadlines as each language writes them (pure).
//! - [`chess`]: rules core on shakmaty — move text in every notation, games and
//!   their endings, PGN, board diagrams (pure).
//! - [`ids`]: the numbers of games and events (`#42`).
//! - [`html`]: escaping for the HTML table written by hand (pure).
//! - [`player`]: players and their details.
//! - [`rating`]: Elo ratings as FIDE computes them, article by article (pure).
//! - [`roster`]: a CSV file of players to register at once (pure).
//! - [`clock`]: time controls, clocks, leave, deadlines, what is due (pure).
//! - [`event`]: round robins and team olympiads — pairings, standings,
//!   tie-breaks, crosstables, the event file (pure).
//! - [`command`]: what a player can say: one enum, one parser, every
//!   language (pure).
//! - [`mail`]: inbound mail parsing, routing and reply tokens (pure), and
//!   composing the mails we send.
//! - [`config`]: the TOML config file with `DOPIS_…` environment overrides.
//! - [`store`]: the database (sqlx on SQLite or PostgreSQL), migrations,
//!   players and games.
//! - [`tablebase`]: the Syzygy endgame tables a club supplies (read with
//!   shakmaty-syzygy).
//! - [`arbiter`]: applies a player's commands to a game by the rules (pure).
//! - [`app`]: the config, store and clock every command shares.
//! - [`service`]: the application — handling each inbound mail, the
//!   outbox, clocks and the scheduler, events and the TD tools, reports.
//! - [`daemon`]: `dopis serve` — mailboxes (IMAP, Maildir), mailers (SMTP,
//!   Maildir), the loops.
//! - [`demo`]: `dopis demo`, a whole game through the real pipeline.
//! - [`telemetry`]: logging for the daemon.
//! - [`cli`]: the `dopis` command line, a thin layer over the rest.

pub mod address;
pub mod app;
pub mod arbiter;
pub mod chess;
pub mod cli;
pub mod clock;
pub mod command;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod event;
pub mod html;
pub mod ids;
pub mod lang;
pub mod locale;
pub mod mail;
pub mod player;
pub mod rating;
pub mod roster;
pub mod service;
pub mod store;
pub mod tablebase;
pub mod telemetry;
pub mod web;
