//! Board diagram benchmark: placeholder.
fn main() {}
