//! The pure core: plain functions over data, which never touch the clock,
//! the network, the file system or a database (no async runtime, database
//! or mail transport crate is named in this folder). Listed lowest first:
//! each imports only those above it.
//!
//! - [`lang`]: the languages players write in.
//! - [`address`]: e-mail addresses, validated once.
//! - [`ids`]: the numbers of games and events (`#42`).
//! - [`html`]: escaping for the HTML written by hand.
//! - [`rating`]: Elo ratings as FIDE computes them, article by article.
//! - [`player`]: players and their details.
//! - [`chess`]: rules core on shakmaty — move text in every notation, games
//!   and their endings, PGN, board diagrams.
//! - [`clock`]: time controls, clocks, leave, deadlines, what is due.
//! - [`roster`]: a CSV file of players to register at once.
//! - [`locale`]: dates and deadlines as each language writes them.
//! - [`event`]: round robins, olympiads, team matches, stages, entries,
//!   pairings, standings, tie-breaks, crosstables, the event file.
//! - [`command`]: what a player can say: one enum, one parser, every language.
//! - [`arbiter`]: applies a player's commands to a game by the rules.

pub mod address;
pub mod arbiter;
pub mod chess;
pub mod clock;
pub mod command;
pub mod event;
pub mod html;
pub mod ids;
pub mod lang;
pub mod locale;
pub mod player;
pub mod rating;
pub mod roster;
