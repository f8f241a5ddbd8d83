//! `translation`, `rotation` and `scale` (StdSceneReader's readTranslation / readRotation,
//! docs/design/choreonoid-formats.md §2.4), and the frames they build while elements nest.

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, Unit, UnitQuaternion, Vector3};
use tribo_yaml::{Diagnostic, Error, Fields, Node, Value};

use super::units::AngleUnit;

/// Choreonoid rejects rotation axes shorter than this (StdSceneReader `readAngleAxis`).
const MIN_AXIS_NORM: f64 = 1.0e-6;

/// The optional `translation` and `rotation` of a mapping (zero and identity when absent).
pub fn read_placement(f: &Fields, unit: AngleUnit) -> Result<(Vector3<f64>, Rotation3<f64>), Error> {
    let translation = f
        .get_value(&["translation"])
        .map(read_translation)
        .transpose()?
        .unwrap_or_else(Vector3::zeros);
    let rotation = f
        .get_value(&["rotation"])
        .map(|n| read_rotation(n, unit))
        .transpose()?
        .unwrap_or_else(Rotation3::identity);
    Ok((translation, rotation))
}

/// Lists of translations nest at most this deep (any real file nests two or three levels).
const MAX_TRANSLATION_DEPTH: usize = 16;

/// `translation`: `[x, y, z]`, or a list of translations, which are summed. The items of such a
/// list may be lists again (a file aliases a list of offsets and adds one:
/// `[ *DOOR_OFFSETS, [ 0, 0.03, 0.4 ] ]`): StdSceneReader `readTranslation` sums them recursively.
pub fn read_translation(node: &Node) -> Result<Vector3<f64>, Error> {
    let sum = sum_translations(node, 0)?;
    if sum.iter().all(|v| v.is_finite()) {
        Ok(sum)
    } else {
        Err(node.error("the translation is too large to represent"))
    }
}

fn sum_translations(node: &Node, depth: usize) -> Result<Vector3<f64>, Error> {
    let items = node.as_seq().map_err(|_| {
        node.error(format!(
            "expected a translation [x, y, z] or a list of them, found {}",
            node.kind_name()
        ))
    })?;
    let Some(first) = items.first() else {
        return Ok(Vector3::zeros());
    };
    if !matches!(first.value, Value::Seq(_)) {
        return Ok(Vector3::from(node.as_vec3()?));
    }
    if depth >= MAX_TRANSLATION_DEPTH {
        return Err(node.error(format!(
            "lists of translations nest more than {MAX_TRANSLATION_DEPTH} levels deep"
        )));
    }
    let mut sum = Vector3::zeros();
    for item in items {
        sum += sum_translations(item, depth + 1)?;
    }
    Ok(sum)
}

/// `rotation`: axis-angle `[ax, ay, az, angle]` (angle in the file's unit; the axis is
/// normalised), or a list of such entries composed left to right, R = R1·R2·…
pub fn read_rotation(node: &Node, unit: AngleUnit) -> Result<Rotation3<f64>, Error> {
    let items = node.as_seq().map_err(|_| {
        node.error(format!(
            "expected a rotation [ax, ay, az, angle] or a list of them, found {}",
            node.kind_name()
        ))
    })?;
    let Some(first) = items.first() else {
        return Ok(Rotation3::identity());
    };
    if matches!(first.value, Value::Seq(_)) {
        let mut r = Rotation3::identity();
        for item in items {
            r *= read_axis_angle(item, unit)?;
        }
        Ok(r)
    } else {
        read_axis_angle(node, unit)
    }
}

fn read_axis_angle(node: &Node, unit: AngleUnit) -> Result<Rotation3<f64>, Error> {
    let [x, y, z, angle] = node
        .as_array::<4>()
        .map_err(|e| Error::error(e.location, format!("{} (a rotation is [ax, ay, az, angle])", e.message)))?;
    let axis = Vector3::new(x, y, z);
    let norm = axis.norm();
    if !(norm >= MIN_AXIS_NORM && norm.is_finite()) {
        return Err(node.error(format!(
            "the rotation axis [{x}, {y}, {z}] is the zero vector (or not finite)"
        )));
    }
    Ok(Rotation3::from_axis_angle(
        &Unit::new_unchecked(axis / norm),
        unit.to_radians(angle),
    ))
}

/// `scale: [sx, sy, sz]`.
pub fn read_scale(node: &Node) -> Result<Vector3<f64>, Error> {
    Ok(Vector3::from(node.as_vec3()?))
}

/// A pose from a translation and a rotation matrix.
pub fn isometry(translation: Vector3<f64>, rotation: Rotation3<f64>) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::from(translation),
        UnitQuaternion::from_rotation_matrix(&rotation),
    )
}

/// The `translation`/`rotation`/`scale` a Transform-like node puts between its parent and its
/// contents: x_parent = t + R·diag(s)·x.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalTransform {
    pub translation: Vector3<f64>,
    pub rotation: Rotation3<f64>,
    pub scale: Option<Vector3<f64>>,
}

impl LocalTransform {
    #[cfg(test)]
    pub fn identity() -> Self {
        LocalTransform {
            translation: Vector3::zeros(),
            rotation: Rotation3::identity(),
            scale: None,
        }
    }

    /// The uniform factor of `scale`, if it is uniform and positive (1 when absent).
    pub fn uniform_scale(&self) -> Option<f64> {
        match self.scale {
            None => Some(1.0),
            Some(s) if s.x > 0.0 && s.x == s.y && s.y == s.z => Some(s.x),
            Some(_) => None,
        }
    }
}

/// Where element contents sit in the link frame while the element tree is walked.
///
/// Two views of the same Transform stack are kept:
/// - `linear`/`translation`: the full affine map (rotation and any scale), which RigidBody mass
///   properties go through exactly as Choreonoid's `transformStack` (StdBodyLoader
///   `readRigidBody`: c = L·c₀ + t, I = L·I₀·Lᵀ);
/// - `shape_pose`/`shape_scale`: a similarity (rotation, translation, uniform scale) for
///   primitive shapes, which can only be scaled uniformly. A non-uniform scale is left out of
///   this view (the caller notes it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub linear: Matrix3<f64>,
    pub translation: Vector3<f64>,
    pub shape_pose: Isometry3<f64>,
    pub shape_scale: f64,
}

impl Frame {
    pub fn link() -> Self {
        Frame {
            linear: Matrix3::identity(),
            translation: Vector3::zeros(),
            shape_pose: Isometry3::identity(),
            shape_scale: 1.0,
        }
    }

    /// This frame followed by `local` (the child's contents expressed in the link frame).
    ///
    /// Affine: T' = T·[R·diag(s) | t]. Similarity with uniform s: p = t_p + s_p·R_p·(t + s·R·x),
    /// so t' = t_p + s_p·R_p·t, R' = R_p·R, s' = s_p·s.
    pub fn then(&self, local: &LocalTransform) -> Frame {
        let scale = local.scale.unwrap_or_else(|| Vector3::repeat(1.0));
        let local_linear = local.rotation.matrix() * Matrix3::from_diagonal(&scale);
        let uniform = local.uniform_scale().unwrap_or(1.0);
        let shape_translation =
            self.shape_pose.translation.vector + self.shape_pose.rotation * (local.translation * self.shape_scale);
        let shape_rotation = self.shape_pose.rotation * UnitQuaternion::from_rotation_matrix(&local.rotation);
        Frame {
            linear: self.linear * local_linear,
            translation: self.linear * local.translation + self.translation,
            shape_pose: Isometry3::from_parts(Translation3::from(shape_translation), shape_rotation),
            shape_scale: self.shape_scale * uniform,
        }
    }
}

/// The `translation`, `rotation` and `scale` keys of a Transform-like node. A scale that is not
/// uniform and positive cannot scale primitive shapes: it gets a note and is left out of the
/// shapes' frame (mass properties still go through it, as in Choreonoid).
pub fn read_local_transform(
    f: &Fields,
    unit: AngleUnit,
    context: &str,
    notes: &mut Vec<Diagnostic>,
) -> Result<LocalTransform, Error> {
    let (translation, rotation) = read_placement(f, unit)?;
    let scale_node = f.get_value(&["scale"]);
    let scale = scale_node.map(read_scale).transpose()?;
    let local = LocalTransform {
        translation,
        rotation,
        scale,
    };
    if let (Some(node), None) = (scale_node, local.uniform_scale()) {
        notes.push(node.warning(format!(
            "scale {} in {context} is not uniform and positive: shapes under it keep their unscaled size \
             (mass properties are scaled)",
            node_text(node)
        )));
    }
    Ok(local)
}

fn node_text(node: &Node) -> String {
    match node.as_f64_list() {
        Ok(v) => format!("{v:?}"),
        Err(_) => node.kind_name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;
    use tribo_yaml::parse_str;

    fn node(text: &str) -> Node {
        parse_str(text, "t.body").expect("yaml")
    }

    #[test]
    fn translation_vector_and_sum() {
        assert_eq!(
            read_translation(&node("[1, 2, 3]")).expect("vec"),
            Vector3::new(1.0, 2.0, 3.0)
        );
        let sum = read_translation(&node("[[1, 0, 0], [0, 2, 0], [0, 0, -3]]")).expect("sum");
        assert_eq!(sum, Vector3::new(1.0, 2.0, -3.0));
        assert_eq!(read_translation(&node("[]")).expect("empty"), Vector3::zeros());
        // An aliased list of offsets plus one more offset (Choreonoid's WRS2018 CarT3 doors).
        let nested = node("a: &A [[0.875, -0.814, 0.328], [-0.012, 0, 0.002]]\nb: [*A, [-0.012, 0.03, 0.42]]\n");
        let b = nested.as_map().expect("map").get("b").expect("b");
        let sum = read_translation(b).expect("nested sum");
        assert!((sum - Vector3::new(0.851, -0.784, 0.75)).norm() < 1e-12, "{sum}");
        let deep = format!("{}[1, 2, 3]{}", "[".repeat(20), "]".repeat(20));
        let err = read_translation(&node(&deep)).expect_err("too deep");
        assert!(err.message.contains("nest more than 16 levels"), "{err}");
        let err = read_translation(&node("[[1, 2, 3], [[1, 2]]]")).expect_err("short inside");
        assert_eq!(
            err.to_string(),
            "t.body:1:14: expected a list of 3 numbers, found 2 values"
        );
        let err = read_translation(&node("[1, 2]")).expect_err("short");
        assert_eq!(
            err.to_string(),
            "t.body:1:1: expected a list of 3 numbers, found 2 values"
        );
    }

    #[test]
    fn rotation_degrees_and_radians() {
        let r = read_rotation(&node("[0, 0, 2, 90]"), AngleUnit::Degree).expect("rot");
        let x = r * Vector3::x();
        assert!((x - Vector3::y()).norm() < 1e-15, "Rz(90°)·x = y, got {x}");
        let r = read_rotation(&node("[0, 0, 1, 1.5707963267948966]"), AngleUnit::Radian).expect("rot");
        assert!((r * Vector3::x() - Vector3::y()).norm() < 1e-15);
    }

    #[test]
    fn rotation_list_composes_left_to_right() {
        // SR1's camera: [[0,1,0,-90],[0,0,1,-90]] = Ry(-90°)·Rz(-90°).
        let r = read_rotation(&node("[[0, 1, 0, -90], [0, 0, 1, -90]]"), AngleUnit::Degree).expect("rot");
        let expected = Rotation3::from_axis_angle(&Vector3::y_axis(), -FRAC_PI_2)
            * Rotation3::from_axis_angle(&Vector3::z_axis(), -FRAC_PI_2);
        assert!((r.matrix() - expected.matrix()).norm() < 1e-15);
        // The camera's optical axis (−Z) ends up along the link's +X.
        let view = r * -Vector3::z();
        assert!((view - Vector3::x()).norm() < 1e-15, "view direction {view}");
        // Not the reverse order.
        let reversed = Rotation3::from_axis_angle(&Vector3::z_axis(), -FRAC_PI_2)
            * Rotation3::from_axis_angle(&Vector3::y_axis(), -FRAC_PI_2);
        assert!((r.matrix() - reversed.matrix()).norm() > 0.5);
    }

    #[test]
    fn zero_axis_is_an_error() {
        let err = read_rotation(&node("[[0, 0, 1, 90], [0, 0, 0, 90]]"), AngleUnit::Degree).expect_err("zero");
        assert!(
            err.to_string()
                .starts_with("t.body:1:17: the rotation axis [0, 0, 0] is the zero vector"),
            "{err}"
        );
    }

    #[test]
    fn frames_compose_affine_and_similarity() {
        let a = LocalTransform {
            translation: Vector3::new(1.0, 0.0, 0.0),
            rotation: Rotation3::from_axis_angle(&Vector3::z_axis(), FRAC_PI_2),
            scale: Some(Vector3::repeat(2.0)),
        };
        let b = LocalTransform {
            translation: Vector3::new(1.0, 0.0, 0.0),
            ..LocalTransform::identity()
        };
        let f = Frame::link().then(&a).then(&b);
        // Point at b's origin: 1 + 2·Rz(90°)·[1,0,0] = [1, 2, 0].
        assert!((f.translation - Vector3::new(1.0, 2.0, 0.0)).norm() < 1e-15);
        assert!((f.shape_pose.translation.vector - Vector3::new(1.0, 2.0, 0.0)).norm() < 1e-15);
        assert_eq!(f.shape_scale, 2.0);
        assert!((f.linear - 2.0 * Rotation3::from_axis_angle(&Vector3::z_axis(), FRAC_PI_2).matrix()).norm() < 1e-15);
    }
}
