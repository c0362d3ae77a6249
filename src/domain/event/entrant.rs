//! A player as an event file names them: the one type the event file and
//! the kinds it describes (round robins, teams, consultation sides) share,
//! in a module of its own so that those kinds need not import the file's
//! reader (which imports them).

use crate::domain::address::EmailAddress;
use crate::domain::lang::Lang;

/// A player as the event file names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    /// Their registered address.
    pub email: EmailAddress,
    /// Their name as shown in tables.
    pub name: String,
    /// Their language, if the file says.
    pub lang: Option<Lang>,
}
