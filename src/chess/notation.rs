//! See the module list in [`crate::chess`].
