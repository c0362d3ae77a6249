//! Maximum-weight matching on general graphs, with integer weights of
//! several hundred bits: the engine under dopis's Swiss pairings
//! (`dopis::domain::event::swiss`).
//!
//! A crate of its own, not a module of dopis, for one reason: speed where
//! the tests run. Pairing a round of a hundred players runs the matching a
//! hundred times or more, each O(n³) on these wide numbers; the test
//! command builds dopis without optimisation, which made that a minute a
//! tournament. As a dependency this crate is built with the optimisation
//! the workspace gives dependencies in development builds
//! (`[profile.dev.package]` in the root `Cargo.toml`), and the tests stay
//! quick. It holds no chess and no Swiss rules: only numbers and graphs.
//!
//! - [`wide`]: unsigned integers of a fixed number of 64-bit limbs.
//! - [`matching`]: Edmonds' blossom algorithm for maximum-weight matching.

pub mod matching;
pub mod wide;

pub use matching::{Dense, Weight, max_weight_matching};
pub use wide::Wide;
