//! A link's joint keys (docs/design/choreonoid-formats.md §2.4; StdBodyLoader `readJointContents`).

use nalgebra::Vector3;
use tribo_yaml::{closest, did_you_mean, Diagnostic, Error, Fields, Node, Value};

use super::units::AngleUnit;
use crate::{Joint, JointKind};

/// Joint ids index tables; beyond this a value is a typo, not a robot.
pub const MAX_JOINT_ID: i64 = 65_535;

pub const JOINT_KEYS: [&str; 25] = [
    "joint_id",
    "jointId",
    "joint_type",
    "jointType",
    "joint_axis",
    "jointAxis",
    "actuation_mode",
    "actuationMode",
    "joint_angle",
    "jointAngle",
    "joint_displacement",
    "jointDisplacement",
    "joint_range",
    "jointRange",
    "max_joint_velocity",
    "maxJointVelocity",
    "joint_velocity_range",
    "jointVelocityRange",
    "max_joint_effort",
    "joint_axis_inertia",
    "rotor_inertia",
    "rotorInertia",
    "gear_ratio",
    "gearRatio",
    "joint_name",
];

const JOINT_TYPES: [&str; 7] = [
    "free",
    "fixed",
    "revolute",
    "prismatic",
    "slide",
    "pseudo_continuous_track",
    "pseudoContinuousTrack",
];

const ACTUATION_MODES: [&str; 12] = [
    "joint_effort",
    "jointEffort",
    "jointTorque",
    "jointForce",
    "joint_displacement",
    "jointDisplacement",
    "jointAngle",
    "joint_velocity",
    "jointVelocity",
    "link_position",
    "linkPosition",
    "jointSurfaceVelocity",
];

/// Read the joint of a link from its mapping. `name` is the joint name (`joint_name`, else the
/// link name).
pub fn read_joint(f: &Fields, unit: AngleUnit, name: String, notes: &mut Vec<Diagnostic>) -> Result<Joint, Error> {
    apply_joint_keys(f, unit, Joint::new(JointKind::Fixed, name), notes)
}

/// `joint` with the joint keys the mapping gives written over it, key by key, as Choreonoid's
/// `readJointContents` does (a `SubBody` node changes its root link's joint this way).
pub fn apply_joint_keys(
    f: &Fields,
    unit: AngleUnit,
    mut joint: Joint,
    notes: &mut Vec<Diagnostic>,
) -> Result<Joint, Error> {
    if let Some(node) = f.get_value(&["joint_id", "jointId"]) {
        joint.id = read_joint_id(node)?;
    }
    if let Some(node) = f.get_value(&["joint_type", "jointType"]) {
        joint.kind = read_joint_kind(node)?;
    }
    if let Some(node) = f.get_value(&["joint_axis", "jointAxis"]) {
        joint.axis = read_axis(node)?;
    }
    if let Some(node) = f.get_value(&["actuation_mode", "actuationMode"]) {
        read_actuation_mode(node)?;
    }
    let revolute = joint.kind == JointKind::Revolute;
    // An angle of a revolute joint in the file's unit; prismatic values are metres.
    let position = |v: f64| if revolute { unit.to_radians(v) } else { v };

    if let Some(node) = f.get_value(&["joint_angle", "jointAngle"]) {
        joint.initial_position = unit.to_radians(node.as_finite()?);
    }
    if let Some(node) = f.get_value(&["joint_displacement", "jointDisplacement"]) {
        joint.initial_position = position(node.as_finite()?);
    }
    if let Some(node) = f.get_value(&["joint_range", "jointRange"]) {
        let [lo, hi] = read_range(node)?;
        if lo > hi {
            notes.push(node.warning(format!("joint_range lower bound {lo} is above the upper bound {hi}")));
        }
        // ±∞ stays unlimited; finite bounds are converted.
        joint.range = [position(lo), position(hi)];
    }
    // `max_joint_velocity` wins over `joint_velocity_range`: Choreonoid reads the range only when
    // the maximum is absent (StdBodyLoader `readJointVelocityRange`).
    let max_velocity = f.get_value(&["max_joint_velocity", "maxJointVelocity"]);
    if let Some(node) = max_velocity {
        let v = read_limit(node, f64::INFINITY)?;
        if v < 0.0 {
            return Err(node.error(format!("max_joint_velocity must be ≥ 0, found {v}")));
        }
        joint.velocity_range = [-position(v), position(v)];
    }
    if let Some(node) = f.get_value(&["joint_velocity_range", "jointVelocityRange"]) {
        let [lo, hi] = read_pair(node, "joint_velocity_range")?;
        match max_velocity {
            None => joint.velocity_range = [position(lo), position(hi)],
            Some(max) => notes.push(node.warning(format!(
                "joint_velocity_range is not used: max_joint_velocity (at {}) sets the velocity limits, as in Choreonoid",
                max.location
            ))),
        }
    }
    if let Some(node) = f.get_value(&["max_joint_effort"]) {
        joint.max_effort = non_negative(node, "max_joint_effort")?;
    }
    let rotor = f.f64_opt(&["rotor_inertia", "rotorInertia"])?;
    let gear = f.f64_opt(&["gear_ratio", "gearRatio"])?;
    match f.get_value(&["joint_axis_inertia"]) {
        Some(node) => joint.armature = non_negative(node, "joint_axis_inertia")?,
        // Equivalent rotor inertia reflected through the gear: J = r²·J_rotor.
        None if rotor.is_some() || gear.is_some() => {
            let gear = gear.unwrap_or(1.0);
            joint.armature = gear * gear * rotor.unwrap_or(0.0);
        }
        None => {}
    }
    Ok(joint)
}

/// `joint_id`: an integer; a negative id means "none" as in Choreonoid.
fn read_joint_id(node: &Node) -> Result<Option<usize>, Error> {
    let id = node.as_i64()?;
    if id > MAX_JOINT_ID {
        return Err(node.error(format!("joint_id {id} is too large (at most {MAX_JOINT_ID})")));
    }
    Ok(usize::try_from(id).ok())
}

fn read_joint_kind(node: &Node) -> Result<JointKind, Error> {
    let text = node.as_name()?;
    match text {
        "free" => Ok(JointKind::Free),
        "fixed" => Ok(JointKind::Fixed),
        "revolute" => Ok(JointKind::Revolute),
        "prismatic" | "slide" => Ok(JointKind::Prismatic),
        "pseudo_continuous_track" | "pseudoContinuousTrack" => Err(node.error(format!(
            "unsupported joint type `{text}`: tribo's engines have no continuous-track joints"
        ))),
        other => {
            let near = closest(other, JOINT_TYPES).filter(|c| !c.starts_with("pseudo"));
            let hint = near.map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
            Err(node.error(format!(
                "unsupported joint type `{other}`{hint}; expected free, fixed, revolute, prismatic or slide"
            )))
        }
    }
}

/// `joint_axis`: a 3-vector (normalised here), or `X`, `-Y`, … (case-insensitive).
fn read_axis(node: &Node) -> Result<Vector3<f64>, Error> {
    let axis = match &node.value {
        Value::Seq(_) => Vector3::from(node.as_vec3()?),
        Value::Scalar { text, .. } => match text.trim().to_ascii_uppercase().as_str() {
            "X" => Vector3::x(),
            "-X" => -Vector3::x(),
            "Y" => Vector3::y(),
            "-Y" => -Vector3::y(),
            "Z" => Vector3::z(),
            "-Z" => -Vector3::z(),
            _ => {
                return Err(node.error(format!(
                    "expected a joint axis [x, y, z] or one of X, Y, Z, -X, -Y, -Z, found `{text}`"
                )))
            }
        },
        _ => {
            return Err(node.error(format!(
                "expected a joint axis [x, y, z] or one of X, Y, Z, -X, -Y, -Z, found {}",
                node.kind_name()
            )))
        }
    };
    let norm = axis.norm();
    if !(norm > 1e-12 && norm.is_finite()) {
        return Err(node.error(format!(
            "the joint axis [{}, {}, {}] is the zero vector (or not finite)",
            axis.x, axis.y, axis.z
        )));
    }
    Ok(axis / norm)
}

fn read_actuation_mode(node: &Node) -> Result<(), Error> {
    let mode = node.as_name()?;
    if mode == "jointSurfaceVelocity" {
        return Err(node.error(
            "unsupported actuation mode `jointSurfaceVelocity`: it makes a continuous-track joint, which tribo's engines do not have",
        ));
    }
    if !ACTUATION_MODES.contains(&mode) {
        let hint = did_you_mean(mode, ACTUATION_MODES);
        return Err(node.error(format!(
            "unknown actuation mode `{mode}`{hint}; expected joint_effort, joint_displacement, joint_velocity or link_position"
        )));
    }
    Ok(())
}

/// `joint_range`: `[lo, hi]` or a scalar v meaning [−v, v]; a bound may be unlimited (see
/// [`read_limit`]).
fn read_range(node: &Node) -> Result<[f64; 2], Error> {
    match &node.value {
        Value::Seq(_) => read_pair(node, "joint_range"),
        Value::Scalar { .. } => {
            let v = read_limit(node, f64::INFINITY)?;
            Ok([-v, v])
        }
        _ => Err(node.error(format!(
            "expected joint_range [lower, upper] or a symmetric limit, found {}",
            node.kind_name()
        ))),
    }
}

/// `[lower, upper]`, each bound a number or unlimited.
fn read_pair(node: &Node, key: &str) -> Result<[f64; 2], Error> {
    match node.as_seq()? {
        [lo, hi] => Ok([read_limit(lo, f64::NEG_INFINITY)?, read_limit(hi, f64::INFINITY)?]),
        items => Err(node.error(format!("expected {key} [lower, upper], found {} values", items.len()))),
    }
}

/// One bound of a range: a finite number, or no limit on its side (→ `unlimited_value`, −∞ for a
/// lower bound, +∞ for an upper one). No limit is written `unlimited` or as an infinity, as
/// Choreonoid reads numbers with `strtod`: `inf`, `-inf`, `infinity`, YAML's `.inf` (any case,
/// any sign — an infinite bound means no limit on that side whatever its sign).
fn read_limit(node: &Node, unlimited_value: f64) -> Result<f64, Error> {
    let text = node.as_str().map(str::trim).unwrap_or_default();
    let word = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
    if matches!(word.as_str(), "unlimited" | "inf" | "infinity" | ".inf") {
        return Ok(unlimited_value);
    }
    match node.as_f64() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(v) if v.is_infinite() => Ok(unlimited_value),
        _ => Err(node.error(format!(
            "expected a number or `unlimited` (or `inf`), found {}",
            node.kind_name()
        ))),
    }
}

fn non_negative(node: &Node, key: &str) -> Result<f64, Error> {
    let v = node.as_finite()?;
    if v < 0.0 {
        return Err(node.error(format!("{key} must be ≥ 0, found {v}")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;
    use tribo_yaml::parse_str;

    fn joint(text: &str, unit: AngleUnit) -> Result<Joint, Error> {
        let node = parse_str(text, "j.body").expect("yaml");
        let f = Fields::new(&node, "a link").expect("map");
        read_joint(&f, unit, "J".into(), &mut Vec::new())
    }

    #[test]
    fn letter_axes() {
        for (text, axis) in [
            ("X", Vector3::x()),
            ("-x", -Vector3::x()),
            ("y", Vector3::y()),
            ("-Y", -Vector3::y()),
            ("Z", Vector3::z()),
            ("-z", -Vector3::z()),
        ] {
            let j = joint(&format!("joint_type: revolute\njoint_axis: {text}"), AngleUnit::Degree).expect("axis");
            assert_eq!(j.axis, axis, "{text}");
        }
        let j = joint("jointType: revolute\njointAxis: [0, 3, 4]", AngleUnit::Degree).expect("vector");
        assert!((j.axis - Vector3::new(0.0, 0.6, 0.8)).norm() < 1e-15);
        let j = joint("joint_type: revolute", AngleUnit::Degree).expect("default");
        assert_eq!(j.axis, Vector3::z());
        assert!(joint("joint_axis: W", AngleUnit::Degree).is_err());
        let err = joint("joint_axis: [0, 0, 0]", AngleUnit::Degree).expect_err("zero");
        assert!(err.message.contains("zero vector"), "{err}");
    }

    #[test]
    fn degree_and_radian_conversion() {
        let text = "joint_type: revolute\njoint_range: [-90, unlimited]\nmax_joint_velocity: 180\njoint_angle: 45";
        let j = joint(text, AngleUnit::Degree).expect("deg");
        assert!((j.range[0] + PI / 2.0).abs() < 1e-15);
        assert_eq!(j.range[1], f64::INFINITY);
        assert!((j.velocity_range[1] - PI).abs() < 1e-15);
        assert!((j.initial_position - PI / 4.0).abs() < 1e-15);
        let j = joint(text, AngleUnit::Radian).expect("rad");
        assert_eq!(j.range, [-90.0, f64::INFINITY]);
        assert_eq!(j.velocity_range, [-180.0, 180.0]);
        // Prismatic limits and displacements are metres in every unit; joint_angle always converts.
        let j = joint(
            "joint_type: prismatic\njoint_range: 0.5\njoint_displacement: 0.1",
            AngleUnit::Degree,
        )
        .expect("prismatic");
        assert_eq!(j.range, [-0.5, 0.5]);
        assert_eq!(j.initial_position, 0.1);
        let j = joint("joint_type: revolute\njoint_displacement: 90", AngleUnit::Degree).expect("rev");
        assert!((j.initial_position - PI / 2.0).abs() < 1e-15);
    }

    #[test]
    fn infinite_bounds_are_no_limit_on_their_side() {
        let inf = f64::INFINITY;
        for (range, expected) in [
            ("[0.0, inf]", [0.0, inf]),
            ("[-inf, 0]", [-inf, 0.0]),
            ("[-Inf, +INF]", [-inf, inf]),
            ("[-.inf, .inf]", [-inf, inf]),
            ("[-infinity, 90]", [-inf, PI / 2.0]),
            ("[unlimited, -unlimited]", [-inf, inf]),
            // The side decides: an infinite bound is no limit there whatever its sign.
            ("[inf, -inf]", [-inf, inf]),
            ("inf", [-inf, inf]),
            ("unlimited", [-inf, inf]),
        ] {
            let text = format!("joint_type: revolute\njoint_range: {range}");
            let j = joint(&text, AngleUnit::Degree).expect(&text);
            assert_eq!(j.range, expected, "{range}");
        }
        let j = joint(
            "joint_type: revolute\njoint_velocity_range: [-inf, 10]",
            AngleUnit::Radian,
        )
        .expect("velocity");
        assert_eq!(j.velocity_range, [-inf, 10.0]);
        // Both given: the maximum wins and the range is a warning.
        let node = parse_str(
            "joint_type: revolute\nmax_joint_velocity: 2\njoint_velocity_range: [-inf, 10]",
            "j.body",
        )
        .expect("yaml");
        let mut notes = Vec::new();
        let f = Fields::new(&node, "a link").expect("map");
        let j = read_joint(&f, AngleUnit::Radian, "J".into(), &mut notes).expect("velocity");
        assert_eq!(j.velocity_range, [-2.0, 2.0]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].to_string().starts_with(
                "j.body:3:23: warning: joint_velocity_range is not used: max_joint_velocity (at j.body:2:21)"
            ),
            "{}",
            notes[0]
        );
        let j = joint("joint_type: revolute\nmax_joint_velocity: .inf", AngleUnit::Radian).expect("velocity");
        assert_eq!(j.velocity_range, [-inf, inf]);
        for (text, message) in [
            (
                "joint_range: [0, nan]",
                "j.body:1:18: expected a number or `unlimited` (or `inf`), found `nan`",
            ),
            (
                "joint_range: [0, .nan]",
                "j.body:1:18: expected a number or `unlimited` (or `inf`), found `.nan`",
            ),
            (
                "joint_range: [0, infinite]",
                "j.body:1:18: expected a number or `unlimited` (or `inf`), found `infinite`",
            ),
            (
                "max_joint_velocity: -1",
                "j.body:1:21: max_joint_velocity must be ≥ 0, found -1",
            ),
            (
                "joint_velocity_range: [1, 2, 3]",
                "j.body:1:23: expected joint_velocity_range [lower, upper], found 3 values",
            ),
        ] {
            let err = joint(text, AngleUnit::Degree).expect_err(text);
            assert_eq!(err.to_string(), message);
        }
    }

    #[test]
    fn joint_types_and_typos() {
        assert_eq!(
            joint("joint_type: slide", AngleUnit::Degree).expect("slide").kind,
            JointKind::Prismatic
        );
        let err = joint("joint_type: revolut", AngleUnit::Degree).expect_err("typo");
        assert!(err.message.contains("did you mean `revolute`"), "{err}");
        let err = joint("joint_type: pseudo_continuous_track", AngleUnit::Degree).expect_err("track");
        assert!(
            err.message
                .starts_with("unsupported joint type `pseudo_continuous_track`"),
            "{err}"
        );
    }

    #[test]
    fn armature_from_rotor_and_gear() {
        let j = joint("rotor_inertia: 0.001\ngear_ratio: 100", AngleUnit::Degree).expect("rotor");
        assert!((j.armature - 10.0).abs() < 1e-12);
        let j = joint(
            "joint_axis_inertia: 2\nrotor_inertia: 0.001\ngear_ratio: 100",
            AngleUnit::Degree,
        )
        .expect("j");
        assert_eq!(j.armature, 2.0);
    }
}
