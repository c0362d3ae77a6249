//! dopis: correspondence chess by plain e-mail.
//!
//! The crate in four layers, each importing only from those above it in
//! this list (ARCHITECTURE.md has the map, the rules and the walk of one
//! move mail; `tests/it/layers.rs` checks the rules):
//!
//! - [`domain`]: the pure core — rules, notations, clocks, events, commands,
//!   the arbiter. No tokio, sqlx, lettre, file system or clock reads.
//! - [`adapter`]: the outside world's formats and the database — the store,
//!   mail in and out, the config, logging, endgame tables.
//! - [`service`]: the application — each inbound mail, the outbox, clocks
//!   and the scheduler, events and the TD tools, reports.
//! - the edges, named at the root because their paths are the log targets
//!   admins write (`dopis::daemon=debug`): [`daemon`] (`dopis serve`),
//!   [`web`] (`dopis web`), [`cli`] (the command line, a thin layer over
//!   the rest) and [`demo`] (`dopis demo`).

pub mod adapter;
pub mod cli;
pub mod daemon;
pub mod demo;
pub mod domain;
pub mod service;
pub mod web;
