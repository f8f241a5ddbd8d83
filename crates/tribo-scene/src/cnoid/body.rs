//! `BodyItem` → a tribo `bodies:` entry: model file, initial root pose, initial joint positions,
//! fixed root and self-collision.
//!
//! Choreonoid restores the *initial* state when a simulation starts from the beginning, so
//! `initial_root_translation`, `initial_root_rotation` and `initial_joint_displacements` win over the
//! current `root_translation`, `root_rotation` and `joint_displacements` (the old spellings
//! `initialRootPosition`, `initialRootAttitude`, `initialJointPositions` likewise).

use tribo_yaml::{Diagnostic, Fields, Node};

use super::paths::Resolver;
use super::pose;
use super::synth;
use super::tree::{data_fields, ignored, report_rest, Item};

/// A body of the project, as a tribo `bodies:` entry.
pub struct BodyOut {
    pub name: String,
    pub node: Node,
}

const FILE: [&str; 2] = ["file", "modelFile"];
const ROOT_TRANSLATION: [&str; 2] = ["root_translation", "rootPosition"];
const INITIAL_ROOT_TRANSLATION: [&str; 2] = ["initial_root_translation", "initialRootPosition"];
const JOINTS_DEG: [&str; 2] = ["joint_displacements", "jointDisplacements"];
const INITIAL_JOINTS_DEG: [&str; 2] = ["initial_joint_displacements", "initialJointDisplacements"];
const COLLISION: [&str; 2] = ["collision_detection", "collisionDetection"];
const SELF_COLLISION: [&str; 2] = ["self_collision_detection", "selfCollisionDetection"];

/// Keys that only hold editor state.
const EDITOR_KEYS: [&str; 11] = [
    "current_base_link",
    "currentBaseLink",
    "lock_location",
    "location_editable",
    "isEditable",
    "isSceneBodyDraggable",
    "scene_sensitive",
    "visible_link_selection_mode",
    "transparency",
    "link_kinematics",
    "zmp",
];
/// Keys with an effect tribo does not reproduce.
const ATTACHMENT_KEYS: [&str; 6] = [
    "parent_body_linkage",
    "local_translation",
    "local_rotation",
    "parent_link",
    "enable_attachment",
    "enable_joint_limits",
];
const KNOWN: [&str; 21] = [
    "file",
    "format",
    "root_translation",
    "root_rotation",
    "initial_root_translation",
    "initial_root_rotation",
    "joint_displacements",
    "initial_joint_displacements",
    "fix_root",
    "collision_detection",
    "self_collision_detection",
    "rootPosition",
    "rootAttitude",
    "initialRootPosition",
    "initialRootAttitude",
    "jointPositions",
    "initialJointPositions",
    "staticModel",
    "modelFile",
    "jointDisplacements",
    "initialJointDisplacements",
];

/// Read a `BodyItem`; `name` is its unique body name (see [`super::names`]).
pub fn read(
    item: &Item,
    name: String,
    resolver: &Resolver,
    warnings: &mut Vec<Diagnostic>,
) -> Result<BodyOut, Diagnostic> {
    let at = item.location();
    let f = data_fields(item)?.ok_or_else(|| item.node.error(format!("{} has no `data:`", item.label())))?;
    if let Some(n) = f.get_value(&["format"]) {
        let format = n.as_str()?;
        if format != "CHOREONOID-BODY" {
            return Err(n.error(format!(
                "body format `{format}` is not supported; tribo reads Choreonoid `.body` files (CHOREONOID-BODY)"
            )));
        }
    }
    let file_node = f.required(&FILE)?;
    let path = resolver.file(file_node, "body model", warnings)?;
    let model = tribo_model::load_body(&path).map_err(|e| {
        if e.location.line == 0 {
            file_node.error(format!("cannot load model `{}`: {}", path.display(), e.message))
        } else {
            e
        }
    })?;

    let mut entries = vec![
        ("name", synth::text(name.clone(), at)),
        ("model", synth::text(path.display().to_string(), &file_node.location)),
    ];
    if let Some(n) = f
        .get_value(&INITIAL_ROOT_TRANSLATION)
        .or_else(|| f.get_value(&ROOT_TRANSLATION))
    {
        entries.push((
            "translation",
            synth::numbers(pose::translation(n)?.as_slice(), &n.location),
        ));
    }
    if let Some((n, rotation)) = root_rotation(&f)? {
        entries.push((
            "rotation",
            synth::numbers(&pose::to_axis_angle_deg(&rotation), &n.location),
        ));
    }
    if let Some(n) = f.get_value(&["fix_root"]).or_else(|| f.get_value(&["staticModel"])) {
        entries.push(("fixed", synth::boolean(n.as_bool()?, &n.location)));
    }
    if let Some(n) = f.get_value(&SELF_COLLISION) {
        entries.push(("self_collision", synth::boolean(n.as_bool()?, &n.location)));
    }
    if let Some(n) = f.get_value(&COLLISION) {
        if !n.as_bool()? {
            warnings.push(ignored(
                &n.location,
                format!(
                    "`collision_detection: false` of {}: bodies always collide in tribo",
                    item.label()
                ),
            ));
        }
    }
    if let Some((n, q)) = joint_positions(&f, model.joints_by_id.len(), item, warnings)? {
        entries.push(("joint_positions", synth::numbers(&q, &n.location)));
    }
    // The current state (when an initial one is given) and the old spellings are superseded.
    KNOWN.iter().for_each(|k| f.skip(&[k]));
    report_rest(
        &f,
        item,
        &[
            (&EDITOR_KEYS, "editor state, no effect on a simulation"),
            (
                &ATTACHMENT_KEYS,
                "body attachments and joint-limit switches are not supported",
            ),
        ],
        &KNOWN,
        warnings,
    );
    Ok(BodyOut {
        name,
        node: synth::map(entries, at),
    })
}

/// The initial root rotation, if the item gives one, with the node it came from.
fn root_rotation<'a>(f: &Fields<'a>) -> Result<Option<(&'a Node, nalgebra::UnitQuaternion<f64>)>, Diagnostic> {
    let initial_aa = f.get_value(&["initial_root_rotation"]);
    let initial_m = f.get_value(&["initialRootAttitude"]);
    let current_aa = f.get_value(&["root_rotation"]);
    let current_m = f.get_value(&["rootAttitude"]);
    Ok(match (initial_aa, initial_m, current_aa, current_m) {
        (Some(n), ..) => Some((n, pose::axis_angle_deg(n)?)),
        (None, Some(n), ..) => Some((n, pose::matrix(n)?)),
        (None, None, Some(n), _) => Some((n, pose::axis_angle_deg(n)?)),
        (None, None, None, Some(n)) => Some((n, pose::matrix(n)?)),
        _ => None,
    })
}

/// Initial joint positions in radians, by joint id: `initial_joint_displacements` (degrees) over
/// `joint_displacements` (degrees), else the old radian lists. Values beyond the model's joint
/// ids are dropped with a warning, as Choreonoid drops them.
fn joint_positions<'a>(
    f: &Fields<'a>,
    joints: usize,
    item: &Item,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<(&'a Node, Vec<f64>)>, Diagnostic> {
    let deg = std::f64::consts::PI / 180.0;
    let (current, initial, scale) = match f.get_value(&JOINTS_DEG) {
        Some(n) => (Some(n), f.get_value(&INITIAL_JOINTS_DEG), deg),
        None => match f.get_value(&INITIAL_JOINTS_DEG) {
            Some(n) => (None, Some(n), deg),
            None => (
                f.get_value(&["jointPositions"]),
                f.get_value(&["initialJointPositions"]),
                1.0,
            ),
        },
    };
    let mut q = match current {
        Some(n) => pose::scaled_list(n, scale)?,
        None => Vec::new(),
    };
    if let Some(n) = initial {
        let initial = pose::scaled_list(n, scale)?;
        if q.len() < initial.len() {
            q.resize(initial.len(), 0.0);
        }
        q[..initial.len()].copy_from_slice(&initial);
    }
    let Some(node) = initial.or(current) else {
        return Ok(None);
    };
    if q.len() > joints {
        warnings.push(ignored(
            &node.location,
            format!(
                "{} joint value(s) of {} beyond the model's {joints} joint ids",
                q.len() - joints,
                item.label()
            ),
        ));
        q.truncate(joints);
    }
    Ok(Some((node, q)))
}
