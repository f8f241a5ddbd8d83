//! `bodies:` — body instances placed in the world.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_model::{Body, JointKind};
use tribo_yaml::{closest, Diagnostic, Fields, Location, Node};

use crate::reader::Reader;
use crate::LinkRef;

/// A body entry of the project, read but not yet given material ids.
pub struct BodyEntry {
    pub name: String,
    pub model: Arc<Body>,
    pub root_pose: Isometry3<f64>,
    pub linear_velocity: Vector3<f64>,
    pub angular_velocity: Vector3<f64>,
    pub fixed_root: bool,
    pub initial_positions: Vec<f64>,
    /// Material name per link (the model's, or the project's override).
    pub link_material_names: Vec<(String, Option<Location>)>,
    pub self_collision: bool,
    pub location: Location,
}

const BODY_KEYS: [&str; 11] = [
    "name",
    "model",
    "translation",
    "rotation",
    "fixed",
    "linear_velocity",
    "angular_velocity",
    "joint_positions",
    "material",
    "link_materials",
    "self_collision",
];

/// Read one `bodies:` entry. `models` caches loaded files so a model used twice loads once.
pub fn read_body(
    node: &Node,
    reader: &Reader,
    models: &mut BTreeMap<PathBuf, Arc<Body>>,
) -> Result<BodyEntry, Diagnostic> {
    let f = Fields::new(node, "a body")?;
    let model_node = f.required(&["model"])?;
    let path = reader.path(model_node)?;
    let model = match models.get(&path) {
        Some(m) => Arc::clone(m),
        None => {
            let body = tribo_model::load_model(&path).map_err(|e| {
                if e.location.line == 0 {
                    model_node.error(format!("cannot load model `{}`: {}", path.display(), e.message))
                } else {
                    e
                }
            })?;
            let body = Arc::new(body);
            models.insert(path.clone(), Arc::clone(&body));
            body
        }
    };
    let name = match f.get_value(&["name"]) {
        Some(n) => n.as_name()?.to_string(),
        None => model.name.clone(),
    };
    let root = model.root();
    let mut translation = root.offset.translation.vector;
    if let Some(n) = f.get_value(&["translation"]) {
        translation = reader.translation(n)?;
    }
    let mut rotation = root.offset.rotation;
    if let Some(n) = f.get_value(&["rotation"]) {
        rotation = reader.rotation_deg(n)?;
    }
    let fixed_root = match f.get_value(&["fixed"]) {
        Some(n) => n.as_bool()?,
        None => root.joint.kind == JointKind::Fixed,
    };
    let linear_velocity = f
        .get_value(&["linear_velocity"])
        .map(|n| reader.vec3(n))
        .transpose()?
        .unwrap_or_default();
    let angular_velocity = f
        .get_value(&["angular_velocity"])
        .map(|n| reader.vec3(n))
        .transpose()?
        .unwrap_or_default();
    let initial_positions = read_joint_positions(f.get_value(&["joint_positions"]), &model, reader)?;
    let link_material_names = read_link_materials(&f, &model, reader)?;
    let self_collision = f.bool_or(&["self_collision"], false)?;
    reader.warn_unknown(&f, "a body", &BODY_KEYS);
    Ok(BodyEntry {
        name,
        root_pose: Isometry3::from_parts(Translation3::from(translation), rotation),
        model,
        linear_velocity,
        angular_velocity,
        fixed_root,
        initial_positions,
        link_material_names,
        self_collision,
        location: node.location.clone(),
    })
}

/// `joint_positions`: a mapping joint name → value, or a list in joint-id order. Radians / metres.
fn read_joint_positions(node: Option<&Node>, model: &Body, reader: &Reader) -> Result<Vec<f64>, Diagnostic> {
    let mut q: Vec<f64> = model.links.iter().map(|l| l.joint.initial_position).collect();
    let Some(node) = node else { return Ok(q) };
    if let Ok(items) = node.as_seq() {
        for (id, item) in items.iter().enumerate() {
            let link = model.joint_link(id).ok_or_else(|| {
                item.error(format!(
                    "model `{}` has no joint with id {id} ({} joint ids)",
                    model.name,
                    model.joints_by_id.len()
                ))
            })?;
            q[link] = reader.number(item)?;
        }
        return Ok(q);
    }
    for entry in &node.as_map()?.entries {
        let link = find_joint(model, &entry.key, &entry.key_location)?;
        q[link] = reader.number(&entry.value)?;
    }
    Ok(q)
}

/// `material: NAME` for every link, then `link_materials: {LINK: NAME}` in order: a key is a
/// link name, or a pattern (`*` any run of characters, `?` one, `[abc]` one of a set) that sets
/// every link it matches — URDF robots have no contact materials, so a project maps them, e.g.
/// `{"*": Robot, "*_ANKLE_R": Sole}` (later entries win). A key that matches no link is an error
/// naming the closest link.
fn read_link_materials(
    f: &Fields,
    model: &Body,
    reader: &Reader,
) -> Result<Vec<(String, Option<Location>)>, Diagnostic> {
    let mut names: Vec<(String, Option<Location>)> = model
        .links
        .iter()
        .map(|l| (l.material.clone(), l.material_location.clone()))
        .collect();
    if let Some(n) = f.get_value(&["material"]) {
        let name = reader.text(n)?;
        names
            .iter_mut()
            .for_each(|slot| *slot = (name.clone(), Some(n.location.clone())));
    }
    if let Some(n) = f.get_value(&["link_materials"]) {
        for entry in &n.as_map()?.entries {
            let material = reader.text(&entry.value)?;
            for link in links_matching(model, &entry.key, &entry.key_location)? {
                names[link] = (material.clone(), Some(entry.value.location.clone()));
            }
        }
    }
    Ok(names)
}

/// The links a `link_materials` key names: the link of that name, else every link the key
/// matches as a pattern; an error naming the closest link when none.
fn links_matching(model: &Body, key: &str, at: &Location) -> Result<Vec<usize>, Diagnostic> {
    if let Some(link) = model.link_index(key) {
        return Ok(vec![link]);
    }
    let pattern = glob::Pattern::new(key)
        .map_err(|e| Diagnostic::error(at.clone(), format!("`{key}` is not a link name pattern: {e}")))?;
    let matched: Vec<usize> = (0..model.links.len())
        .filter(|&i| pattern.matches(&model.links[i].name))
        .collect();
    if matched.is_empty() {
        return find_link(model, key, at).map(|link| vec![link]);
    }
    Ok(matched)
}

/// A link of `model` by name, with the closest name on failure.
pub fn find_link(model: &Body, name: &str, at: &Location) -> Result<usize, Diagnostic> {
    model.link_index(name).ok_or_else(|| {
        let hint = tribo_yaml::did_you_mean(name, model.links.iter().map(|l| l.name.as_str()));
        Diagnostic::error(at.clone(), format!("model `{}` has no link `{name}`{hint}", model.name))
    })
}

/// The link driven by the joint called `name` (joint name or link name).
pub fn find_joint(model: &Body, name: &str, at: &Location) -> Result<usize, Diagnostic> {
    let found = model
        .links
        .iter()
        .position(|l| l.joint.name == name || l.name == name)
        .filter(|&i| model.links[i].joint.kind.dofs() == 1);
    found.ok_or_else(|| {
        let names = model
            .links
            .iter()
            .filter(|l| l.joint.kind.dofs() == 1)
            .map(|l| l.joint.name.as_str());
        let hint = tribo_yaml::did_you_mean(name, names);
        Diagnostic::error(
            at.clone(),
            format!(
                "model `{}` has no revolute or prismatic joint `{name}`{hint}",
                model.name
            ),
        )
    })
}

/// `body: NAME` (+ optional `link: NAME`, default the root) among the project's bodies.
pub fn read_link_ref(f: &Fields, bodies: &[BodyEntry], reader: &Reader) -> Result<LinkRef, Diagnostic> {
    link_ref(bodies, f.required(&["body"])?, f.get_value(&["link"]), reader)
}

/// The link named by `link` (the root when absent) of the body named by `body`.
pub fn link_ref(
    bodies: &[BodyEntry],
    body: &Node,
    link: Option<&Node>,
    reader: &Reader,
) -> Result<LinkRef, Diagnostic> {
    let body = body_index(bodies, body, reader)?;
    let link = match link {
        Some(n) => find_link(&bodies[body].model, &reader.text(n)?, &n.location)?,
        None => 0,
    };
    Ok(LinkRef { body, link })
}

/// A body of the project by instance name.
pub fn body_index(bodies: &[BodyEntry], node: &Node, reader: &Reader) -> Result<usize, Diagnostic> {
    let name = reader.text(node)?;
    bodies.iter().position(|b| b.name == name).ok_or_else(|| {
        let hint = closest(&name, bodies.iter().map(|b| b.name.as_str()))
            .map(|c| format!(" (did you mean `{c}`?)"))
            .unwrap_or_default();
        node.error(format!("no body named `{name}` in this project{hint}"))
    })
}
