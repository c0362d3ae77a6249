//! Storage: see docs in the crate map.
