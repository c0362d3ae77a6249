//! The web pages of `dopis web`: the index of public events, an event's
//! page, a game's page, a player's own page (by their private link) and the
//! PGN downloads. What they show and who may see it is
//! [`crate::service::pages`]'s; [`routes`] reads the address and asks it,
//! [`render`] makes the HTML.

pub(super) mod reader;
pub mod render;
mod routes;

pub(super) use routes::{nowhere, numbered, routes};

#[cfg(test)]
mod tests;
