//! `dopis web`: the web pages (placeholder until the skeleton lands).

pub mod pages;
