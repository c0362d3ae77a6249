//! `dopis web` (stand-in until the skeleton lands on main: the state the
//! XFCC routes need, as the skeleton gives it).

pub mod xfcc;

use std::sync::Arc;

use crate::service::Store;

/// What every handler needs.
pub struct Web {
    /// The database.
    pub store: Store,
    /// Addresses and tokens.
    pub post: crate::service::post::Post,
    /// Inbound handling: XFCC moves go through it.
    pub inbox: crate::service::inbox::Inbox,
    /// The clock.
    pub clock: Arc<dyn crate::app::Clock>,
    /// The public base URL, no trailing slash.
    pub base_url: Option<String>,
}

/// The state handlers share.
pub type Shared = Arc<Web>;
