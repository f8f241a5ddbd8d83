//! `controllers:` — what drives the bodies during a run.

use std::sync::Arc;

use nalgebra::{UnitQuaternion, Vector3};
use serde::de::IgnoredAny;
use serde::Deserialize;
use tribo_model::{JointKind, JointMotion};
use tribo_yaml::{Diagnostic, Fields, Located, Node};

use crate::bodies::{body_index, find_joint, link_ref, BodyEntry};
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename = "mode", rename_all = "lowercase")]
pub enum PatternMode {
    /// `u = P (q_ref − q) + D (dq_ref − dq)`, velocities by finite differences over dt, applied as
    /// joint torques — exactly Choreonoid's SR1 walk sample.
    #[default]
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

pub fn read_controller(node: &Node, bodies: &[BodyEntry], reader: &Reader) -> Result<ControllerSpec, Diagnostic> {
    let type_node = Fields::new(node, "a controller")?.required(&["type"])?;
    let what = format!("a {} controller", type_node.as_name()?);
    let spec = match type_node.as_name()? {
        "joint_pattern" => ControllerSpec::JointPattern(joint_pattern(reader.read(node, &what)?, bodies, reader)?),
        "kinematic_path" => {
            ControllerSpec::KinematicPath(kinematic_path(reader.read(node, &what)?, node, bodies, reader)?)
        }
        "joint_effort" => ControllerSpec::JointEffort(joint_effort(reader.read(node, &what)?, bodies, reader)?),
        "wrench" => ControllerSpec::Wrench(wrench(reader.read(node, &what)?, bodies, reader)?),
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

/// `start` (default 0) to `end`, or to `start + duration`, or forever.
fn window(start: Option<f64>, end: Option<f64>, duration: Option<f64>) -> (f64, f64) {
    let start = start.unwrap_or(0.0);
    let end = end.or(duration.map(|d| start + d)).unwrap_or(f64::INFINITY);
    (start, end)
}

/// A `joint_pattern` controller as written.
#[derive(Deserialize)]
struct JointPatternFile {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    body: Node,
    motion: Node,
    #[serde(default)]
    mode: PatternMode,
    #[serde(default)]
    p: f64,
    #[serde(default)]
    d: f64,
    #[serde(default)]
    gains: Vec<GainGroup>,
    end_with_motion: Option<bool>,
}

/// Gains for some joints: `{joints: [names, PREFIX*, ids], p, d}`.
#[derive(Deserialize)]
struct GainGroup {
    joints: Node,
    p: Option<f64>,
    d: Option<f64>,
}

fn joint_pattern(c: JointPatternFile, bodies: &[BodyEntry], reader: &Reader) -> Result<JointPatternSpec, Diagnostic> {
    let body = body_index(bodies, &c.body, reader)?;
    let model = &bodies[body].model;
    let (_, motion) = reader.motion(&c.motion)?;
    let joints = model.joints_by_id.len();
    if motion.num_parts != joints {
        return Err(c.motion.error(format!(
            "motion has {} parts but model `{}` has {joints} joint ids",
            motion.num_parts, model.name
        )));
    }
    let mut gains = vec![(c.p, c.d); joints];
    for group in &c.gains {
        for id in select_joints(&group.joints, &bodies[body], reader)? {
            gains[id].0 = group.p.unwrap_or(gains[id].0);
            gains[id].1 = group.d.unwrap_or(gains[id].1);
        }
    }
    Ok(JointPatternSpec {
        body,
        motion: Arc::new(motion),
        mode: c.mode,
        gains,
        end_with_motion: c.end_with_motion.unwrap_or(true),
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

/// A `kinematic_path` controller as written.
#[derive(Deserialize)]
struct KinematicPathFile {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    body: Node,
    waypoints: Option<Located<Vec<Located<WaypointFile>>>>,
    velocities: Option<Vec<Located<VelocityFile>>>,
    interpolation: Option<Located<Interpolation>>,
}

/// `interpolation:` of a waypoint path.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Interpolation {
    #[default]
    Linear,
    Cubic,
    MinimumJerk,
}

#[derive(Deserialize)]
struct WaypointFile {
    time: f64,
    /// `[x, y, z]` or a list of them (`Reader::translation`).
    translation: Option<Node>,
    /// Axis-angle in degrees or a list of them (`Reader::rotation_deg`).
    rotation: Option<Node>,
}

#[derive(Deserialize)]
struct VelocityFile {
    start: Option<f64>,
    end: Option<f64>,
    duration: Option<f64>,
    #[serde(default)]
    linear: [f64; 3],
    #[serde(default)]
    angular: [f64; 3],
}

fn kinematic_path(
    c: KinematicPathFile,
    node: &Node,
    bodies: &[BodyEntry],
    reader: &Reader,
) -> Result<KinematicPathSpec, Diagnostic> {
    let body = body_index(bodies, &c.body, reader)?;
    if !bodies[body].fixed_root {
        return Err(c.body.error(format!(
            "a kinematic path moves a fixed-root body; body `{}` is free (set `fixed: true` on it)",
            bodies[body].name
        )));
    }
    let path = match (c.waypoints, c.velocities) {
        (Some(points), None) => {
            let points = waypoints(points, &bodies[body], reader)?;
            match c.interpolation.map_or(Interpolation::Linear, |i| *i) {
                Interpolation::Linear => PathSpec::Waypoints(points),
                Interpolation::Cubic => PathSpec::CubicWaypoints(points),
                Interpolation::MinimumJerk => PathSpec::MinimumJerkWaypoints(points),
            }
        }
        (None, Some(segments)) => {
            if let Some(i) = c.interpolation {
                return Err(
                    i.error("`interpolation` applies to `waypoints`; `velocities` are constant over their windows")
                );
            }
            PathSpec::Velocities(velocities(segments)?)
        }
        _ => return Err(node.error("a kinematic path needs exactly one of `waypoints` or `velocities`")),
    };
    Ok(KinematicPathSpec { body, path })
}

fn waypoints(
    list: Located<Vec<Located<WaypointFile>>>,
    body: &BodyEntry,
    reader: &Reader,
) -> Result<Vec<Waypoint>, Diagnostic> {
    if list.is_empty() {
        return Err(list.error("a kinematic path needs at least one waypoint"));
    }
    let mut out: Vec<Waypoint> = Vec::new();
    for w in &list.value {
        if out.last().is_some_and(|p| w.time <= p.time) {
            return Err(w.error("waypoint times must increase"));
        }
        let translation = match &w.translation {
            Some(n) => reader.translation(n)?,
            None => out.last().map_or(body.root_pose.translation.vector, |p| p.translation),
        };
        let rotation = match &w.rotation {
            Some(n) => reader.rotation_deg(n)?,
            None => out.last().map_or(body.root_pose.rotation, |p| p.rotation),
        };
        out.push(Waypoint {
            time: w.time,
            translation,
            rotation,
        });
    }
    Ok(out)
}

fn velocities(segments: Vec<Located<VelocityFile>>) -> Result<Vec<VelocitySegment>, Diagnostic> {
    segments
        .into_iter()
        .map(|s| {
            let (start, end) = window(s.start, s.end, s.duration);
            if end <= start {
                return Err(s.error("a velocity segment must end after it starts"));
            }
            Ok(VelocitySegment {
                start,
                end,
                linear: s.linear.into(),
                angular: s.angular.into(),
            })
        })
        .collect()
}

/// A `joint_effort` controller as written.
#[derive(Deserialize)]
struct JointEffortFile {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    body: Node,
    joint: Node,
    effort: f64,
    start: Option<f64>,
    end: Option<f64>,
    duration: Option<f64>,
}

fn joint_effort(c: JointEffortFile, bodies: &[BodyEntry], reader: &Reader) -> Result<JointEffortSpec, Diagnostic> {
    let body = body_index(bodies, &c.body, reader)?;
    let link = find_joint(&bodies[body].model, &reader.text(&c.joint)?, &c.joint.location)?;
    if bodies[body].model.links[link].joint.kind == JointKind::Fixed {
        return Err(c.joint.error("a fixed joint cannot take an effort"));
    }
    let (start, end) = window(c.start, c.end, c.duration);
    Ok(JointEffortSpec {
        joint: LinkRef { body, link },
        effort: c.effort,
        start,
        end,
    })
}

/// A `wrench` controller as written.
#[derive(Deserialize)]
struct WrenchFile {
    #[serde(rename = "type")]
    _type: IgnoredAny,
    body: Node,
    link: Option<Node>,
    #[serde(default)]
    force: [f64; 3],
    #[serde(default)]
    torque: [f64; 3],
    start: Option<f64>,
    end: Option<f64>,
    duration: Option<f64>,
}

fn wrench(c: WrenchFile, bodies: &[BodyEntry], reader: &Reader) -> Result<WrenchSpec, Diagnostic> {
    let (start, end) = window(c.start, c.end, c.duration);
    Ok(WrenchSpec {
        link: link_ref(bodies, &c.body, c.link.as_ref(), reader)?,
        force: c.force.into(),
        torque: c.torque.into(),
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
    fn segments_and_waypoints_are_checked_where_written() {
        let e = load("velocities: [ { linear: [0, 1], end: 1 } ]")
            .map(|_| ())
            .expect_err("two numbers")
            .to_string();
        assert_eq!(e, "c.yaml:5:64: expected a list of 3 values, found 2 values");
        let e = load("velocities: [ { start: 2, duration: -1 } ]")
            .map(|_| ())
            .expect_err("ends before it starts")
            .to_string();
        assert_eq!(e, "c.yaml:5:54: a velocity segment must end after it starts");
        let p = load("waypoints: [ { time: 0, tme: 1 } ]").expect("loads with a warning");
        let warnings: Vec<String> = p.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "c.yaml:5:64: warning: unknown key `tme` in `waypoints[0]` of a kinematic_path controller is not \
              read; did you mean `time`?"
            ]
        );
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
