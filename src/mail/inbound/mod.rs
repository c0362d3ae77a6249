//! See the module list in [`crate::mail`].
