//! Choreonoid's `ChoreonoidBody` format (`.body`), versions 1.0 and 2.0
//! (docs/design/choreonoid-formats.md §2).
//!
//! Reading goes top level ([`header`]) → links ([`link`], with [`joint`], [`elements`],
//! [`geometry`] and [`mass`]) → the tree ([`tree`]). Content that loads but that no engine
//! uses (devices, meshes, …) becomes a warning in [`Body::notes`]; everything else that is
//! wrong is a located error.

mod elements;
mod extra_joints;
mod geometry;
mod header;
mod joint;
mod keys;
mod link;
mod mass;
mod mesh;
mod mesh_generated;
mod pad;
mod plugin_devices;
mod pose;
mod sub_body;
pub(crate) mod tree;
mod units;

use std::path::Path;
use std::sync::Arc;

use tribo_yaml::{Diagnostic, Error, Node};

use crate::Body;

/// Reads a pad declared in a project file (`pads:`), angles in degrees; `extra` names the keys
/// the caller reads itself.
pub fn read_project_pad(node: &Node, extra: &[&str]) -> Result<crate::PadSpec, Error> {
    pad::read_pad(node, units::AngleUnit::Degree, extra)
}

/// Load a `.body` file. Locations in errors and notes name the path as given.
pub fn load_body(path: &Path) -> Result<Body, Error> {
    let tribo_yaml::Document { root, warnings } = tribo_yaml::parse_file_with_warnings(path)?;
    let mut body = build_body(
        &root,
        path.display().to_string().into(),
        file_stem(path),
        directory(path),
        &mut sub_body::Includes::new(path),
    )?;
    body.notes.splice(0..0, warnings);
    Ok(body)
}

/// Load a body file a `SubBody` node includes, with the files being read in `includes`.
fn load_included(path: &Path, includes: &mut sub_body::Includes) -> Result<Body, Error> {
    let tribo_yaml::Document { root, warnings } = tribo_yaml::parse_file_with_warnings(path)?;
    let source = path.display().to_string().into();
    let mut body = build_body(&root, source, file_stem(path), directory(path), includes)?;
    body.notes.splice(0..0, warnings);
    Ok(body)
}

/// Parse `.body` text; `file_name` names it in locations and gives the default model name
/// (its stem); mesh files it names are read relative to `file_name`'s directory.
pub fn parse_body(text: &str, file_name: &str) -> Result<Body, Error> {
    let tribo_yaml::Document { root, warnings } = tribo_yaml::parse_str_with_warnings(text, file_name)?;
    let path = Path::new(file_name);
    let mut includes = sub_body::Includes::new(path);
    let mut body = build_body(&root, file_name.into(), file_stem(path), directory(path), &mut includes)?;
    body.notes.splice(0..0, warnings);
    Ok(body)
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The directory relative paths in the file at `path` start from.
fn directory(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new(""))
}

fn build_body(
    doc: &Node,
    source: Arc<str>,
    stem: String,
    dir: &Path,
    includes: &mut sub_body::Includes,
) -> Result<Body, Error> {
    let mut notes = Vec::new();
    let header = header::read_header(doc, &mut notes)?;
    let cx = geometry::ShapeContext { unit: header.unit, dir };
    // Sub-bodies leave their extra joints in `includes`; this file's own start empty.
    let outer_extra_joints = std::mem::take(&mut includes.extra_joints);
    let parsed = link::read_links(header.links, cx, includes, &mut notes);
    let mut extra_joints = std::mem::replace(&mut includes.extra_joints, outer_extra_joints);
    let name = header.name.unwrap_or(stem);
    let mut body = tree::assemble_file_body(parsed?, header.root_link, header.links, name, source, notes)?;
    if let Some(node) = header.extra_joints {
        let own = extra_joints::read_extra_joints(node, header.unit, &body.links)?;
        if let Some(first) = own.first() {
            body.notes.push(Diagnostic::warning(
                first.location.clone(),
                format!(
                    "body `{}` closes {} kinematic loop(s) with extra_joints (the first: a {} joint between `{}` and \
                     `{}`): the `rapier` engine closes them; `pgs` (and `cslc` on it) has no loop-closure \
                     constraints and refuses this body",
                    body.name,
                    own.len(),
                    first.kind.name(),
                    first.links[0],
                    first.links[1]
                ),
            ));
        }
        extra_joints.extend(own);
    }
    body.extra_joints = extra_joints;
    Ok(body)
}
