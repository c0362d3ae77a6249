//! Placeholder: filled by the area's owner.
