//! `tribo import`: a Choreonoid project (`.cnoid`) or a URDF robot (`.urdf`) written as a tribo
//! project directory that loads and runs the same, for users who move to tribo's own files and
//! then edit them.
//!
//! - **`.cnoid`** (`import/cnoid.rs`): `project.yaml` holds exactly what tribo's `.cnoid` loader derives
//!   — bodies with their initial poses and joint positions, the material tables, the controller
//!   and its motion, time step, gravity, duration, contact settings and metrics — and the files
//!   it names (`.body` models and the meshes they name, `.seq` motions, material tables) are
//!   copied beside it in their relative layout, with the licence file found beside them
//!   (Choreonoid's `LICENSE`).
//! - **`.urdf`** (`import/urdf.rs`): `ROBOT.body` is the robot's model in Choreonoid's body format
//!   ([`tribo_model::write_body_with`]; collision meshes as `Resource` files copied beside it) and
//!   `project.yaml` places the robot on tribo's floor with the default material table and
//!   `link_materials` patterns for its links.
//!
//! Nothing is dropped silently: what the source holds that the written project cannot hold is in
//! [`Import::notes`], and the warnings loading the source gives are in [`Import::warnings`].
//! Project files are written with serde_yaml (`import/yaml.rs`).

mod cnoid;
mod files;
mod urdf;
mod yaml;

use std::path::{Path, PathBuf};

use tribo_yaml::{Diagnostic, Location};

use crate::LoadOptions;

/// The file kinds `tribo import` reads, as `(extension, what)`.
pub const SOURCES: [(&str, &str); 2] = [("cnoid", "a Choreonoid project"), ("urdf", "a URDF robot")];

/// An imported project, ready to be written into a directory.
#[derive(Debug, Clone)]
pub struct Import {
    /// Files written from scratch (`project.yaml`, a URDF robot's `.body`), by relative path.
    pub written: Vec<Written>,
    /// Files copied as they are.
    pub copies: Vec<Copied>,
    /// Licence files among the copies (relative paths).
    pub licences: Vec<PathBuf>,
    /// The warnings loading the source gives (what it holds that tribo does not simulate).
    pub warnings: Vec<Diagnostic>,
    /// What the source holds that the written project does not, and choices the import made.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Written {
    /// Relative to the output directory.
    pub path: PathBuf,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Copied {
    pub from: PathBuf,
    /// Relative to the output directory.
    pub to: PathBuf,
}

/// Import `path` by its extension (see [`SOURCES`]). `options.share_dir` is what `${SHARE}`
/// stands for; `options.overrides` may pick a `.cnoid`'s simulator item (`simulator`).
pub fn import(path: &Path, options: &LoadOptions) -> Result<Import, Diagnostic> {
    let at = Location::file(path.display().to_string());
    let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    let supported = || {
        SOURCES
            .iter()
            .map(|(ext, what)| format!("{what} (.{ext})"))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    let known = extension.as_deref().filter(|e| SOURCES.iter().any(|(ext, _)| ext == e));
    let Some(extension) = known else {
        let found = extension.map_or_else(
            || "a file without an extension".to_string(),
            |e| format!("a `.{e}` file"),
        );
        return Err(Diagnostic::error(
            at,
            format!("tribo import reads {}, not {found}", supported()),
        ));
    };
    if !path.is_file() {
        let why = if path.exists() { "not a file" } else { "no such file" };
        return Err(Diagnostic::error(at, why));
    }
    match extension {
        "cnoid" => cnoid::import(path, options),
        _ => urdf::import(path, options),
    }
}

impl Import {
    /// Write the files into `dir` (created if missing; files already there are replaced).
    pub fn write_to(&self, dir: &Path) -> Result<(), String> {
        let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
        for copy in &self.copies {
            let to = dir.join(&copy.to);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            // Importing into the source's own directory: the file is already in place.
            let same = matches!((copy.from.canonicalize(), to.canonicalize()), (Ok(a), Ok(b)) if a == b);
            if !same {
                std::fs::copy(&copy.from, &to).map_err(|e| io(&to, e))?;
            }
        }
        for file in &self.written {
            let to = dir.join(&file.path);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            }
            std::fs::write(&to, &file.text).map_err(|e| io(&to, e))?;
        }
        Ok(())
    }

    fn new(written: Vec<Written>, files: files::Files, warnings: Vec<Diagnostic>, notes: Vec<String>) -> Import {
        Import {
            written,
            copies: files
                .copies
                .iter()
                .map(|(to, from)| Copied {
                    from: from.clone(),
                    to: to.clone(),
                })
                .collect(),
            licences: files.licences,
            warnings,
            notes,
        }
    }
}
