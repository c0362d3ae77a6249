//! The endgame tables the config names, opened once for the daemon and the
//! commands that judge positions.

use std::sync::Arc;

use crate::chess::tablebase::{NoTables, Tables};
use crate::config::Config;
use crate::tablebase::{Inventory, Syzygy, TablebaseError};

/// The tables of `[tablebase] syzygy_path` (none when it names none), and
/// what was found in them.
pub fn open(config: &Config) -> Result<(Arc<dyn Tables>, Option<Inventory>), TablebaseError> {
    let folders = &config.tablebase.syzygy_path;
    if folders.is_empty() {
        return Ok((Arc::new(NoTables), None));
    }
    let (tables, inventory) = Syzygy::open(folders)?;
    Ok((Arc::new(tables), Some(inventory)))
}
