//! A robot model file of any format, by its extension.

use std::path::Path;

use tribo_yaml::Error;

use crate::Body;

/// Whether `path` names a URDF file (`.urdf`, any case).
pub fn is_urdf(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("urdf"))
}

/// Whether `path` names an MJCF file (`.xml`, any case); [`crate::load_mjcf`] checks that its
/// root element is `<mujoco>`.
pub fn is_mjcf(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("xml"))
}

/// Load a robot model: a URDF file ([`crate::load_urdf`]), an MJCF file ([`crate::load_mjcf`])
/// or a Choreonoid `.body` file ([`crate::load_body`]).
pub fn load_model(path: &Path) -> Result<Body, Error> {
    if is_urdf(path) {
        crate::load_urdf(path)
    } else if is_mjcf(path) {
        crate::load_mjcf(path)
    } else {
        crate::load_body(path)
    }
}
