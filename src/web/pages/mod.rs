//! The web pages of `dopis web`: the index of public events, an event's
//! page, a game's page, a player's own page (by their private link) and the
//! PGN downloads. What they show and who may see it is
//! [`crate::service::pages`]'s; this module reads the address, asks the
//! service and renders ([`render`]).

pub mod render;

#[cfg(test)]
mod tests;
