//! `controllers:` — what drives the bodies during a run.

use std::sync::Arc;

use nalgebra::{UnitQuaternion, Vector3};
use tribo_model::{JointKind, JointMotion};
use tribo_yaml::{Diagnostic, Fields, Node};

use crate::bodies::{body_index, find_joint, read_link_ref, BodyEntry};
use crate::reader::Reader;
use crate::LinkRef;

/// A built-in controller, validated against the scene.
#[derive(Debug, Clone)]
pub enum ControllerSpec {
    JointPattern(JointPatternSpec),
    KinematicPath(KinematicPathSpec),
    JointEffort(JointEffortSpec),
    Wrench(WrenchSpec),
}

/// Play a `.seq` motion on a body's joints (Choreonoid's SR1WalkPatternController).
#[derive(Debug, Clone)]
pub struct JointPatternSpec {
    pub body: usize,
    pub motion: Arc<JointMotion>,
    pub mode: PatternMode,
    /// Per joint id: (P, D) gains in N·m/rad and N·m·s/rad (N/m, N·s/m for prismatic joints).
    pub gains: Vec<(f64, f64)>,
    /// The run ends after the last frame (Choreonoid's `control()` returning false).
    pub end_with_motion: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternMode {
    /// `u = P (q_ref − q) + D (dq_ref − dq)`, velocities by finite differences over dt, applied as
    /// joint torques — exactly Choreonoid's SR1 walk sample.
    Torque,
    /// The engine tracks `q_ref` with its own PD (implicit where the engine can), the high-gain
    /// mode.
    Position,
}

/// Move a fixed-root body along a path.
#[derive(Debug, Clone)]
pub struct KinematicPathSpec {
    pub body: usize,
    pub path: PathSpec,
}

/// The path of a kinematic body. Waypoint paths (`waypoints:` with `interpolation: linear |
/// cubic | minimum_jerk`, default linear) pass through every waypoint and are held at the first
/// before it and at the last after it.
#[derive(Debug, Clone)]
pub enum PathSpec {
    /// `interpolation: linear`: piecewise-linear positions and slerp of rotations (velocity jumps
    /// at every waypoint).
    Waypoints(Vec<Waypoint>),
    /// `interpolation: cubic`: a C²-continuous cubic spline through the waypoints with zero
    /// velocity at the first and last (clamped), positions and rotation vectors relative to the
    /// first waypoint's rotation; each waypoint's rotation must be within a half turn of the
    /// first's.
    CubicWaypoints(Vec<Waypoint>),
    /// `interpolation: minimum_jerk`: each segment a rest-to-rest minimum-jerk move (Flash &
    /// Hogan 1985), x(s) = x₀ + (x₁ − x₀)(10 s³ − 15 s⁴ + 6 s⁵); zero velocity and acceleration at
    /// every waypoint.
    MinimumJerkWaypoints(Vec<Waypoint>),
    /// Constant velocities over time windows, integrated from the initial pose.
    Velocities(Vec<VelocitySegment>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Waypoint {
    pub time: f64,
    pub translation: Vector3<f64>,
    pub rotation: UnitQuaternion<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VelocitySegment {
    pub start: f64,
    pub end: f64,
    pub linear: Vector3<f64>,
    pub angular: Vector3<f64>,
}

/// A constant joint force or torque over a time window.
#[derive(Debug, Clone, PartialEq)]
pub struct JointEffortSpec {
    pub joint: LinkRef,
    /// N·m or N.
    pub effort: f64,
    pub start: f64,
    pub end: f64,
}

/// A constant external wrench on a link over a time window (a disturbance).
#[derive(Debug, Clone, PartialEq)]
pub struct WrenchSpec {
    pub link: LinkRef,
    /// N, world frame.
    pub force: Vector3<f64>,
    /// N·m, world frame, about the link origin.
    pub torque: Vector3<f64>,
    pub start: f64,
    pub end: f64,
}

const KINDS: [&str; 4] = ["joint_pattern", "kinematic_path", "joint_effort", "wrench"];

/// `interpolation:` of a waypoint path.
const INTERPOLATIONS: [&str; 3] = ["linear", "cubic", "minimum_jerk"];

pub fn read_controller(node: &Node, bodies: &[BodyEntry], reader: &Reader) -> Result<ControllerSpec, Diagnostic> {
    let f = Fields::new(node, "a controller")?;
    let type_node = f.required(&["type"])?;
    let kind = type_node.as_name()?;
    let spec = match kind {
        "joint_pattern" => ControllerSpec::JointPattern(joint_pattern(&f, bodies, reader)?),
        "kinematic_path" => ControllerSpec::KinematicPath(kinematic_path(&f, bodies, reader)?),
        "joint_effort" => ControllerSpec::JointEffort(joint_effort(&f, bodies, reader)?),
        "wrench" => ControllerSpec::Wrench(wrench(&f, bodies, reader)?),
        other => {
            let hint = tribo_yaml::did_you_mean(other, KINDS);
            return Err(type_node.error(format!(
                "unknown controller type `{other}`{hint}; known types: {}",
                KINDS.join(", ")
            )));
        }
    };
    Ok(spec)
}

fn window(f: &Fields, reader: &Reader) -> Result<(f64, f64), Diagnostic> {
    let start = f
        .get_value(&["start"])
        .map(|n| reader.number(n))
        .transpose()?
        .unwrap_or(0.0);
    let end = match (f.get_value(&["end"]), f.get_value(&["duration"])) {
        (Some(n), _) => reader.number(n)?,
        (None, Some(n)) => start + reader.number(n)?,
        (None, None) => f64::INFINITY,
    };
    Ok((start, end))
}

fn joint_pattern(f: &Fields, bodies: &[BodyEntry], reader: &Reader) -> Result<JointPatternSpec, Diagnostic> {
    let body = body_index(bodies, f.required(&["body"])?, reader)?;
    let model = &bodies[body].model;
    let motion_node = f.required(&["motion"])?;
    let motion_path = reader.path(motion_node)?;
    let motion = tribo_model::load_motion(&motion_path).map_err(|e| {
        if e.location.line == 0 {
            motion_node.error(format!("cannot load motion `{}`: {}", motion_path.display(), e.message))
        } else {
            e
        }
    })?;
    let joints = model.joints_by_id.len();
    if motion.num_parts != joints {
        return Err(motion_node.error(format!(
            "motion has {} parts but model `{}` has {joints} joint ids",
            motion.num_parts, model.name
        )));
    }
    let mode = match f.get_value(&["mode"]) {
        None => PatternMode::Torque,
        Some(n) => match reader.text(n)?.as_str() {
            "torque" => PatternMode::Torque,
            "position" => PatternMode::Position,
            other => return Err(n.error(format!("unknown mode `{other}`; expected torque or position"))),
        },
    };
    let p = f
        .get_value(&["p"])
        .map(|n| reader.number(n))
        .transpose()?
        .unwrap_or(0.0);
    let d = f
        .get_value(&["d"])
        .map(|n| reader.number(n))
        .transpose()?
        .unwrap_or(0.0);
    let mut gains = vec![(p, d); joints];
    if let Some(groups) = f.get_value(&["gains"]) {
        for group in groups.as_seq()? {
            let g = Fields::new(group, "a gain group")?;
            let selector = g.required(&["joints"])?;
            let ids = select_joints(selector, &bodies[body], reader)?;
            let gp = g.get_value(&["p"]).map(|n| reader.number(n)).transpose()?;
            let gd = g.get_value(&["d"]).map(|n| reader.number(n)).transpose()?;
            reader.warn_unknown(&g, "a gain group", &["joints", "p", "d"]);
            for id in ids {
                if let Some(v) = gp {
                    gains[id].0 = v;
                }
                if let Some(v) = gd {
                    gains[id].1 = v;
                }
            }
        }
    }
    let end_with_motion = f.bool_or(&["end_with_motion"], true)?;
    reader.warn_unknown(
        f,
        "a joint_pattern controller",
        &["type", "body", "motion", "mode", "p", "d", "gains", "end_with_motion"],
    );
    Ok(JointPatternSpec {
        body,
        motion: Arc::new(motion),
        mode,
        gains,
        end_with_motion,
    })
}

/// Joint ids chosen by a list of names, `PREFIX*` globs or ids.
fn select_joints(node: &Node, body: &BodyEntry, reader: &Reader) -> Result<Vec<usize>, Diagnostic> {
    let model = &body.model;
    let items: Vec<&Node> = match node.as_seq() {
        Ok(items) => items.iter().collect(),
        Err(_) => vec![node],
    };
    let mut ids = Vec::new();
    for item in items {
        if let Ok(id) = item.as_index() {
            if model.joint_link(id).is_none() {
                return Err(item.error(format!("model `{}` has no joint id {id}", model.name)));
            }
            ids.push(id);
            continue;
        }
        let pattern = reader.text(item)?;
        let matched: Vec<usize> = match pattern.strip_suffix('*') {
            Some(prefix) => (0..model.joints_by_id.len())
                .filter(|&id| {
                    model
                        .joint_link(id)
                        .is_some_and(|l| model.links[l].joint.name.starts_with(prefix))
                })
                .collect(),
            None => {
                let link = find_joint(model, &pattern, &item.location)?;
                model.links[link].joint.id.into_iter().collect()
            }
        };
        if matched.is_empty() {
            return Err(item.error(format!(
                "`{pattern}` selects no joint with an id in model `{}`",
                model.name
            )));
        }
        ids.extend(matched);
    }
    Ok(ids)
}

fn kinematic_path(f: &Fields, bodies: &[BodyEntry], reader: &Reader) -> Result<KinematicPathSpec, Diagnostic> {
    let body_node = f.required(&["body"])?;
    let body = body_index(bodies, body_node, reader)?;
    if !bodies[body].fixed_root {
        return Err(body_node.error(format!(
            "a kinematic path moves a fixed-root body; body `{}` is free (set `fixed: true` on it)",
            bodies[body].name
        )));
    }
    let interpolation = f.get_value(&["interpolation"]);
    let path = match (f.get_value(&["waypoints"]), f.get_value(&["velocities"])) {
        (Some(n), None) => {
            let points = waypoints(n, &bodies[body], reader)?;
            match interpolation.map(|n| (n, n.as_name())) {
                None => PathSpec::Waypoints(points),
                Some((_, Ok("linear"))) => PathSpec::Waypoints(points),
                Some((_, Ok("cubic"))) => PathSpec::CubicWaypoints(points),
                Some((_, Ok("minimum_jerk"))) => PathSpec::MinimumJerkWaypoints(points),
                Some((node, Ok(other))) => {
                    let hint = tribo_yaml::did_you_mean(other, INTERPOLATIONS);
                    return Err(node.error(format!(
                        "unknown interpolation `{other}`{hint}; expected {}",
                        INTERPOLATIONS.join(", ")
                    )));
                }
                Some((_, Err(e))) => return Err(e),
            }
        }
        (None, Some(n)) => {
            if let Some(node) = interpolation {
                return Err(
                    node.error("`interpolation` applies to `waypoints`; `velocities` are constant over their windows")
                );
            }
            PathSpec::Velocities(velocities(n, reader)?)
        }
        _ => {
            return Err(f
                .node()
                .error("a kinematic path needs exactly one of `waypoints` or `velocities`"))
        }
    };
    reader.warn_unknown(
        f,
        "a kinematic_path controller",
        &["type", "body", "waypoints", "velocities", "interpolation"],
    );
    Ok(KinematicPathSpec { body, path })
}

fn waypoints(node: &Node, body: &BodyEntry, reader: &Reader) -> Result<Vec<Waypoint>, Diagnostic> {
    let mut out: Vec<Waypoint> = Vec::new();
    for item in node.as_seq()? {
        let w = Fields::new(item, "a waypoint")?;
        let time = reader.number(w.required(&["time"])?)?;
        if out.last().is_some_and(|p| time <= p.time) {
            return Err(item.error("waypoint times must increase"));
        }
        let translation = match w.get_value(&["translation"]) {
            Some(n) => reader.translation(n)?,
            None => out.last().map_or(body.root_pose.translation.vector, |p| p.translation),
        };
        let rotation = match w.get_value(&["rotation"]) {
            Some(n) => reader.rotation_deg(n)?,
            None => out.last().map_or(body.root_pose.rotation, |p| p.rotation),
        };
        reader.warn_unknown(&w, "a waypoint", &["time", "translation", "rotation"]);
        out.push(Waypoint {
            time,
            translation,
            rotation,
        });
    }
    if out.is_empty() {
        return Err(node.error("a kinematic path needs at least one waypoint"));
    }
    Ok(out)
}

fn velocities(node: &Node, reader: &Reader) -> Result<Vec<VelocitySegment>, Diagnostic> {
    let mut out = Vec::new();
    for item in node.as_seq()? {
        let s = Fields::new(item, "a velocity segment")?;
        let (start, end) = window(&s, reader)?;
        let linear = s
            .get_value(&["linear"])
            .map(|n| reader.vec3(n))
            .transpose()?
            .unwrap_or_default();
        let angular = s
            .get_value(&["angular"])
            .map(|n| reader.vec3(n))
            .transpose()?
            .unwrap_or_default();
        reader.warn_unknown(
            &s,
            "a velocity segment",
            &["start", "end", "duration", "linear", "angular"],
        );
        if end <= start {
            return Err(item.error("a velocity segment must end after it starts"));
        }
        out.push(VelocitySegment {
            start,
            end,
            linear,
            angular,
        });
    }
    Ok(out)
}

fn joint_effort(f: &Fields, bodies: &[BodyEntry], reader: &Reader) -> Result<JointEffortSpec, Diagnostic> {
    let body = body_index(bodies, f.required(&["body"])?, reader)?;
    let joint_node = f.required(&["joint"])?;
    let link = find_joint(&bodies[body].model, &reader.text(joint_node)?, &joint_node.location)?;
    if bodies[body].model.links[link].joint.kind == JointKind::Fixed {
        return Err(joint_node.error("a fixed joint cannot take an effort"));
    }
    let effort = reader.number(f.required(&["effort"])?)?;
    let (start, end) = window(f, reader)?;
    reader.warn_unknown(
        f,
        "a joint_effort controller",
        &["type", "body", "joint", "effort", "start", "end", "duration"],
    );
    Ok(JointEffortSpec {
        joint: LinkRef { body, link },
        effort,
        start,
        end,
    })
}

fn wrench(f: &Fields, bodies: &[BodyEntry], reader: &Reader) -> Result<WrenchSpec, Diagnostic> {
    let link = read_link_ref(f, bodies, reader)?;
    let force = f
        .get_value(&["force"])
        .map(|n| reader.vec3(n))
        .transpose()?
        .unwrap_or_default();
    let torque = f
        .get_value(&["torque"])
        .map(|n| reader.vec3(n))
        .transpose()?
        .unwrap_or_default();
    let (start, end) = window(f, reader)?;
    reader.warn_unknown(
        f,
        "a wrench controller",
        &["type", "body", "link", "force", "torque", "start", "end", "duration"],
    );
    Ok(WrenchSpec {
        link,
        force,
        torque,
        start,
        end,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::{ControllerSpec, LoadOptions, PathSpec, Project};

    /// A fixed box driven by one kinematic path whose extra keys are `extra`.
    fn load(extra: &str) -> Result<Project, tribo_yaml::Diagnostic> {
        let text = format!(
            "name: c\nbodies:\n  - {{ name: box, model: \"${{SHARE}}/model/box10.body\", fixed: true }}\n\
             controllers:\n  - {{ type: kinematic_path, body: box, {extra} }}\n"
        );
        let node = tribo_yaml::parse_str(&text, "c.yaml")?;
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let options = LoadOptions {
            share_dir: root.join("share"),
            ..Default::default()
        };
        Project::from_node(&node, &root.join("c.yaml"), &options)
    }

    const POINTS: &str = "waypoints: [ { time: 0 }, { time: 1, translation: [0, 0, 1] } ]";

    fn path(extra: &str) -> Option<PathSpec> {
        match load(extra).ok()?.controllers.first()? {
            ControllerSpec::KinematicPath(k) => Some(k.path.clone()),
            _ => None,
        }
    }

    #[test]
    fn waypoints_are_interpolated_as_asked() {
        assert!(matches!(path(POINTS), Some(PathSpec::Waypoints(p)) if p.len() == 2));
        let linear = format!("{POINTS}, interpolation: linear");
        assert!(matches!(path(&linear), Some(PathSpec::Waypoints(_))));
        let cubic = format!("{POINTS}, interpolation: cubic");
        assert!(matches!(path(&cubic), Some(PathSpec::CubicWaypoints(_))));
        let jerk = format!("{POINTS}, interpolation: minimum_jerk");
        assert!(matches!(path(&jerk), Some(PathSpec::MinimumJerkWaypoints(p)) if p.len() == 2));
    }

    #[test]
    fn a_misspelt_or_misplaced_interpolation_is_a_located_error() {
        let e = load(&format!("{POINTS}, interpolation: minimum_jerc"))
            .map(|_| ())
            .expect_err("an error")
            .to_string();
        assert!(
            e.starts_with("c.yaml:5:120: unknown interpolation `minimum_jerc` (did you mean `minimum_jerk`?)"),
            "{e}"
        );
        let e = load("velocities: [ { linear: [0, 0, 1], end: 1 } ], interpolation: cubic")
            .map(|_| ())
            .expect_err("an error")
            .to_string();
        assert!(e.contains("`interpolation` applies to `waypoints`"), "{e}");
    }
}
