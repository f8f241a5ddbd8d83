//! Loading a benchmark project the way `tribo run` does.

use std::path::{Path, PathBuf};

use tribo_scene::{LoadOptions, Project};

use crate::error::BenchError;

/// Load `path` (a tribo project or a Choreonoid `.cnoid`) with tribo's share directory, or
/// `share` when given. Errors read `FILE:LINE:COL: message`.
pub fn load(path: &Path, share: Option<PathBuf>) -> Result<Project, BenchError> {
    let options = LoadOptions {
        share_dir: share.unwrap_or_else(tribo_scene::default_share_dir),
        ..LoadOptions::default()
    };
    if !path.is_file() {
        return Err(BenchError::Project(format!("{}: no such project file", path.display())));
    }
    Project::load(path, &options).map_err(|e| BenchError::Project(e.to_string()))
}
