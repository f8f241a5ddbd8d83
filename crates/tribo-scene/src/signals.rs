//! `record:` — signals written to `trajectory.csv`, one or more columns each.

use tribo_yaml::{Diagnostic, Fields, Node};

use crate::bodies::{body_index, find_joint, read_link_ref, BodyEntry};
use crate::reader::Reader;
use crate::LinkRef;

#[derive(Debug, Clone, PartialEq)]
pub struct SignalSpec {
    pub name: String,
    pub kind: SignalKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SignalKind {
    /// Link origin position, m (x, y, z).
    LinkPosition(LinkRef),
    /// Link orientation as roll, pitch, yaw (rad, XYZ fixed axes).
    LinkOrientation(LinkRef),
    /// Link origin linear velocity, m/s (x, y, z).
    LinkVelocity(LinkRef),
    /// Joint position, rad or m.
    JointPosition(LinkRef),
    /// Total contact force exerted by body `from` on body `on`, N (x, y, z).
    ContactForce { on: usize, from: usize },
    /// The CSLC patch of the pad(s) on a link, summed over touched links: normal force (N), centre
    /// of pressure (m, x y z, NaN without contact), friction moment (N·m), contact area (m²) and
    /// peak sphere pressure (Pa). Engines without pads record no force, no area and a NaN CoP.
    PadPatch(LinkRef),
}

impl SignalSpec {
    /// Column names this signal contributes.
    pub fn columns(&self) -> Vec<String> {
        let xyz = |suffixes: [&str; 3]| suffixes.iter().map(|s| format!("{}.{s}", self.name)).collect();
        match self.kind {
            SignalKind::LinkPosition(_) | SignalKind::LinkVelocity(_) | SignalKind::ContactForce { .. } => {
                xyz(["x", "y", "z"])
            }
            SignalKind::LinkOrientation(_) => xyz(["roll", "pitch", "yaw"]),
            SignalKind::JointPosition(_) => vec![self.name.clone()],
            SignalKind::PadPatch(_) => [
                "normal_force",
                "cop_x",
                "cop_y",
                "cop_z",
                "friction_moment",
                "area",
                "peak_pressure",
            ]
            .iter()
            .map(|s| format!("{}.{s}", self.name))
            .collect(),
        }
    }
}

const KINDS: [&str; 6] = [
    "link_position",
    "link_orientation",
    "link_velocity",
    "joint_position",
    "contact_force",
    "pad_patch",
];

pub fn read_signal(node: &Node, bodies: &[BodyEntry], reader: &Reader) -> Result<SignalSpec, Diagnostic> {
    let f = Fields::new(node, "a recorded signal")?;
    let kind_node = f.required(&["kind"])?;
    let kind_name = kind_node.as_name()?;
    let kind = match kind_name {
        "link_position" => SignalKind::LinkPosition(read_link_ref(&f, bodies, reader)?),
        "link_orientation" => SignalKind::LinkOrientation(read_link_ref(&f, bodies, reader)?),
        "link_velocity" => SignalKind::LinkVelocity(read_link_ref(&f, bodies, reader)?),
        "joint_position" => {
            let body = body_index(bodies, f.required(&["body"])?, reader)?;
            let joint = f.required(&["joint"])?;
            let link = find_joint(&bodies[body].model, &reader.text(joint)?, &joint.location)?;
            SignalKind::JointPosition(LinkRef { body, link })
        }
        "pad_patch" => SignalKind::PadPatch(read_link_ref(&f, bodies, reader)?),
        "contact_force" => {
            let on = body_index(bodies, f.required(&["on"])?, reader)?;
            let from = body_index(bodies, f.required(&["from"])?, reader)?;
            SignalKind::ContactForce { on, from }
        }
        other => {
            let hint = tribo_yaml::did_you_mean(other, KINDS);
            return Err(kind_node.error(format!(
                "unknown signal kind `{other}`{hint}; known kinds: {}",
                KINDS.join(", ")
            )));
        }
    };
    let name = match f.get_value(&["name"]) {
        Some(n) => n.as_name()?.to_string(),
        None => default_name(&kind, bodies),
    };
    reader.warn_unknown(
        &f,
        "a recorded signal",
        &["name", "kind", "body", "link", "joint", "on", "from"],
    );
    Ok(SignalSpec { name, kind })
}

fn default_name(kind: &SignalKind, bodies: &[BodyEntry]) -> String {
    let link_name = |r: &LinkRef| {
        let body = &bodies[r.body];
        if r.link == 0 {
            body.name.clone()
        } else {
            format!("{}.{}", body.name, body.model.links[r.link].name)
        }
    };
    match kind {
        SignalKind::LinkPosition(r) => format!("{}.pos", link_name(r)),
        SignalKind::LinkOrientation(r) => format!("{}.rpy", link_name(r)),
        SignalKind::LinkVelocity(r) => format!("{}.vel", link_name(r)),
        SignalKind::JointPosition(r) => format!(
            "{}.{}.q",
            bodies[r.body].name, bodies[r.body].model.links[r.link].joint.name
        ),
        SignalKind::ContactForce { on, from } => format!("force.{}.from.{}", bodies[*on].name, bodies[*from].name),
        SignalKind::PadPatch(r) => format!("{}.patch", link_name(r)),
    }
}

/// What is recorded when a project says nothing: the root position of every free body.
pub fn default_signals<'a>(bodies: impl IntoIterator<Item = (&'a str, bool)>) -> Vec<SignalSpec> {
    bodies
        .into_iter()
        .enumerate()
        .filter(|(_, (_, fixed_root))| !fixed_root)
        .map(|(i, (name, _))| SignalSpec {
            name: format!("{name}.pos"),
            kind: SignalKind::LinkPosition(LinkRef { body: i, link: 0 }),
        })
        .collect()
}
