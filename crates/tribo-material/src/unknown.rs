//! Material names that no table defines.

use tribo_yaml::{did_you_mean, Diagnostic, Location};

use crate::names::is_default;
use crate::table::MaterialTable;

impl MaterialTable {
    /// `None` if the table knows `name` (as a material, in a pair entry, or as the default
    /// material); otherwise a warning at `location`, with the closest known name. Choreonoid accepts
    /// any name and lets it stand in with the Default material's roughness and viscosity, so this is
    /// a warning; a caller running with `--strict` turns it into an error.
    pub fn check_name(&self, name: &str, location: &Location) -> Option<Diagnostic> {
        if is_default(name) || self.knows(name) {
            return None;
        }
        let hint = did_you_mean(name, self.known_names());
        Some(Diagnostic::warning(
            location.clone(),
            format!(
                "unknown material `{name}`: no table defines it; Choreonoid uses the Default material's roughness \
                 and viscosity for it{hint}"
            ),
        ))
    }
}
