//! `SubBody` nodes in `links`: every link of another body file, renamed and hung below a link of
//! this one (docs/design/choreonoid-formats.md §2.3; StdBodyLoader `readSubBodyNode`,
//! `addSubBodyLinks`).
//!
//! The node names the file with `uri` (relative to the including file's directory). The
//! included body's links and joints are renamed `prefix + name + suffix`, its joint ids shifted by
//! `joint_id_offset`, and its root link hangs below the link named by `parent` (no parent: it is
//! this body's root). The node's own link keys then write over the included root link, key by
//! key: `translation` and `rotation` (its place in the parent link), the joint keys, `material`,
//! and `elements`, whose shapes are added to the root link's. Mass keys are not read there: the
//! included body keeps its mass properties, as in Choreonoid.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use nalgebra::{Translation3, UnitQuaternion};
use tribo_yaml::{Diagnostic, Error, Fields, Node};

use super::elements::{read_link_elements, LinkElements};
use super::geometry::ShapeContext;
use super::joint::{apply_joint_keys, JOINT_KEYS, MAX_JOINT_ID};
use super::keys::typo_warnings;
use super::link::{ParentName, ParsedLink};
use super::mass::COM_KEYS;
use super::pad::read_pad;
use super::pose::{read_rotation, read_translation};
use crate::{Body, ExtraJoint};

/// The keys of a `SubBody` node besides the link keys it may write over the included root link.
const SUB_BODY_KEYS: [&str; 11] = [
    "type",
    "uri",
    "prefix",
    "suffix",
    "device_prefix",
    "devicePrefix",
    "joint_id_offset",
    "jointIdOffset",
    "parent",
    "translation",
    "rotation",
];

/// Link keys a `SubBody` node may give for its root link.
const ROOT_KEYS: [&str; 3] = ["material", "elements", "pad"];

/// Keys of a link that a `SubBody` node does not read (Choreonoid ignores them there).
const NOT_READ: [&str; 5] = ["name", "joint_name", "jointName", "mass", "inertia"];

/// The body files being read, outermost first, and those already read (Choreonoid reads each
/// included file once per body).
pub struct Includes {
    /// Canonical path and the path as written, of every file being read.
    chain: Vec<(PathBuf, String)>,
    loaded: HashMap<PathBuf, Body>,
    /// The extra joints of the sub-bodies of the file being read, their links renamed.
    pub extra_joints: Vec<ExtraJoint>,
}

impl Includes {
    /// The includes of the file at `path` (as given; it need not exist for text parsed in
    /// memory).
    pub fn new(path: &Path) -> Self {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        Includes {
            chain: vec![(canonical, path.display().to_string())],
            loaded: HashMap::new(),
            extra_joints: Vec::new(),
        }
    }

    /// The body of the file `uri_node` names, relative to `dir`. Its notes go to `notes` the
    /// first time it is read.
    fn load(&mut self, uri_node: &Node, dir: &Path, notes: &mut Vec<Diagnostic>) -> Result<Body, Error> {
        let uri = uri_node.as_name()?;
        let path = lexically_normal(&dir.join(uri));
        let canonical = std::fs::canonicalize(&path)
            .map_err(|e| uri_node.error(format!("cannot read the sub-body file `{}`: {e}", path.display())))?;
        if let Some(first) = self.chain.iter().position(|(p, _)| *p == canonical) {
            let cycle: Vec<&str> = self.chain[first..]
                .iter()
                .map(|(_, shown)| shown.as_str())
                .chain(std::iter::once(uri))
                .collect();
            return Err(uri_node.error(format!(
                "the sub-body `{uri}` includes itself ({}): a body file cannot include itself, \
                 directly or through other files",
                cycle.join(" → ")
            )));
        }
        if let Some(body) = self.loaded.get(&canonical) {
            return Ok(body.clone());
        }
        self.chain.push((canonical.clone(), path.display().to_string()));
        let loaded = super::load_included(&path, self);
        self.chain.pop();
        let mut body = loaded.map_err(|mut e| {
            e.message = format!("{} (in the sub-body included at {})", e.message, uri_node.location);
            e
        })?;
        notes.append(&mut body.notes);
        self.loaded.insert(canonical, body.clone());
        Ok(body)
    }
}

/// `path` without `.` and with each `dir/..` removed, as Choreonoid resolves a sub-body's `uri`
/// (`std::filesystem::path::lexically_normal`).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The links a `SubBody` node brings in, root first.
pub fn read_sub_body(
    node: &Node,
    cx: ShapeContext,
    includes: &mut Includes,
    notes: &mut Vec<Diagnostic>,
) -> Result<Vec<ParsedLink>, Error> {
    let f = Fields::new(node, "a SubBody node")?;
    f.skip(&["type"]);
    let uri_node = f
        .get_value(&["uri"])
        .ok_or_else(|| node.error("a SubBody node needs `uri`, the body file it includes"))?;
    let prefix = f.str_opt(&["prefix"])?.unwrap_or("");
    let suffix = f.str_opt(&["suffix"])?.unwrap_or("");
    // Devices are not kept by tribo, so their prefix only needs to be valid.
    f.str_opt(&["device_prefix", "devicePrefix"])?;
    let id_offset = f
        .get_value(&["joint_id_offset", "jointIdOffset"])
        .map(|n| n.as_i64().map(|v| (v, n)))
        .transpose()?;
    let parent = f.get_value(&["parent"]).map(ParentName::read).transpose()?;

    let body = includes.load(uri_node, cx.dir, notes)?;
    let rename = |name: &str| format!("{prefix}{name}{suffix}");
    let at = node.location.clone();
    let mut parsed = Vec::with_capacity(body.links.len());
    for link in &body.links {
        let mut link = link.clone();
        let own_joint_name = link.joint.name != link.name;
        link.name = rename(&link.name);
        link.joint.name = if own_joint_name {
            rename(&link.joint.name)
        } else {
            link.name.clone()
        };
        if let (Some(id), Some((offset, offset_node))) = (link.joint.id, id_offset) {
            link.joint.id = shifted_id(id, offset, offset_node, &link.name)?;
        }
        let link_parent = match link.parent {
            Some(p) => Some(ParentName {
                name: rename(&body.links[p].name),
                at: link.location.clone(),
            }),
            None => None,
        };
        link.parent = None;
        link.children.clear();
        parsed.push(ParsedLink {
            link,
            name_at: at.clone(),
            joint_name_at: own_joint_name.then(|| at.clone()),
            parent: link_parent,
        });
    }
    includes.extra_joints.extend(body.extra_joints.iter().map(|joint| {
        let mut joint = joint.clone();
        joint.links = joint.links.map(|name| rename(&name));
        joint
    }));
    let Some(root) = parsed.first_mut() else {
        return Err(uri_node.error("the sub-body has no link"));
    };
    root.parent = parent;
    write_root_keys(&f, cx, root, notes)?;

    let known: Vec<&str> = SUB_BODY_KEYS
        .iter()
        .chain(&ROOT_KEYS)
        .chain(&JOINT_KEYS)
        .copied()
        .collect();
    typo_warnings(
        &f,
        &format!("the SubBody node of `{}`", uri_node.as_str()?),
        &known,
        notes,
    );
    Ok(parsed)
}

/// A sub-body joint id shifted by `joint_id_offset`; a negative result means no id, as in
/// Choreonoid.
fn shifted_id(id: usize, offset: i64, offset_node: &Node, link: &str) -> Result<Option<usize>, Error> {
    let shifted = i64::try_from(id).unwrap_or(i64::MAX).saturating_add(offset);
    if shifted > MAX_JOINT_ID {
        return Err(offset_node.error(format!(
            "joint_id_offset {offset} makes the joint id of link `{link}` {shifted}, too large (at most {MAX_JOINT_ID})"
        )));
    }
    Ok(usize::try_from(shifted).ok())
}

/// The link keys of the `SubBody` node, written over the included root link.
fn write_root_keys(
    f: &Fields,
    cx: ShapeContext,
    root: &mut ParsedLink,
    notes: &mut Vec<Diagnostic>,
) -> Result<(), Error> {
    let link = &mut root.link;
    if let Some(node) = f.get_value(&["translation"]) {
        link.offset.translation = Translation3::from(read_translation(node)?);
    }
    if let Some(node) = f.get_value(&["rotation"]) {
        link.offset.rotation = UnitQuaternion::from_rotation_matrix(&read_rotation(node, cx.unit)?);
    }
    link.joint = apply_joint_keys(f, cx.unit, link.joint.clone(), notes)?;
    if let Some(node) = f.get_value(&["material"]) {
        link.material = node.as_name()?.to_string();
        link.material_location = Some(node.location.clone());
    }
    if let Some(elements) = f.get_value(&["elements"]) {
        let LinkElements {
            shapes,
            rigid_bodies,
            uncollided,
        } = read_link_elements(elements, cx, &link.name, notes)?;
        if !rigid_bodies.is_empty() {
            notes.push(elements.warning(format!(
                "the mass of RigidBody elements in the SubBody node is not added to link `{}`: \
                 an included body keeps its own mass properties",
                link.name
            )));
        }
        link.shapes.extend(shapes);
        link.uncollided.extend(uncollided);
    }
    if let Some(node) = f.get_value(&["pad"]) {
        link.pads.push(read_pad(node, cx.unit, &[])?);
    }
    for key in NOT_READ.iter().chain(&COM_KEYS) {
        if let Some(entry) = f.get(&[key]).and_then(|_| f.map().entry(key)) {
            notes.push(Diagnostic::warning(
                entry.key_location.clone(),
                format!(
                    "`{key}` is not read in a SubBody node: the included links keep their names \
                     (with `prefix` and `suffix`) and their mass properties"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_resolve_lexically() {
        let normal = lexically_normal(Path::new("/m/UniversalRobots/./../Robotiq/2F-85.body"));
        assert_eq!(normal, Path::new("/m/Robotiq/2F-85.body"));
        assert_eq!(lexically_normal(Path::new("../a/../b.body")), Path::new("../b.body"));
        assert_eq!(lexically_normal(Path::new("arm.body")), Path::new("arm.body"));
    }
}
