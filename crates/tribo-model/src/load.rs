//! A robot model file of either format, by its extension.

use std::path::Path;

use tribo_yaml::Error;

use crate::Body;

/// Whether `path` names a URDF file (`.urdf`, any case).
pub fn is_urdf(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf"))
}

/// Load a robot model: a URDF file ([`crate::load_urdf`]) or a Choreonoid `.body` file
/// ([`crate::load_body`]).
pub fn load_model(path: &Path) -> Result<Body, Error> {
    if is_urdf(path) {
        crate::load_urdf(path)
    } else {
        crate::load_body(path)
    }
}
