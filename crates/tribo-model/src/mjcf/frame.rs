//! Positions and orientations of bodies, geoms and inertial frames (MuJoCo's XML reference,
//! *Frame orientations*). An element gives at most one of
//! - `quat="w x y z"` (normalised; never in degrees),
//! - `axisangle="x y z a"` (the axis normalised, the angle in the compiler's unit),
//! - `euler="a b c"` (angles in the compiler's unit, applied in `eulerseq` order: a lower-case
//!   axis is one of the frame as turned so far, an upper-case one a fixed axis),
//! - `xyaxes="x1 x2 x3 y1 y2 y3"` (x normalised, y made orthogonal to x and normalised, z = x × y),
//! - `zaxis="x y z"` (the smallest rotation taking +z onto the vector).

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, Unit, UnitQuaternion, Vector3};
use tribo_yaml::{Diagnostic, Error};

use super::compiler::Compiler;
use super::defaults::Attrs;

/// The names of the orientation attributes.
const ORIENTATIONS: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

/// `pos` and the orientation of an element (identity where absent).
pub(crate) fn pose(attrs: &Attrs, compiler: &Compiler) -> Result<Isometry3<f64>, Error> {
    let position = attrs.vector3("pos")?.unwrap_or_else(Vector3::zeros);
    Ok(Isometry3::from_parts(
        Translation3::from(position),
        orientation(attrs, compiler)?,
    ))
}

/// The element's orientation (identity where it gives none).
pub(crate) fn orientation(attrs: &Attrs, compiler: &Compiler) -> Result<UnitQuaternion<f64>, Error> {
    let given: Vec<&str> = ORIENTATIONS
        .iter()
        .copied()
        .filter(|n| attrs.element.attr(n).is_some())
        .collect();
    if let [first, second, ..] = given[..] {
        let at = attrs.element.attr(second).map_or_else(|| attrs.at(), |a| a.at.clone());
        return Err(Diagnostic::error(
            at,
            format!(
                "<{}> gives both `{first}` and `{second}`: an orientation is given once",
                attrs.element.tag
            ),
        ));
    }
    // The element's own orientation, else one its default class gives.
    let name = given
        .first()
        .copied()
        .or_else(|| ORIENTATIONS.iter().copied().find(|n| attrs.get(n).is_some()));
    let Some(name) = name else {
        return Ok(UnitQuaternion::identity());
    };
    let zero = |what: &str| -> Result<UnitQuaternion<f64>, Error> {
        let at = attrs.get(name).map_or_else(|| attrs.at(), |a| a.at.clone());
        Err(Diagnostic::error(at, format!("`{name}` has a zero {what}")))
    };
    Ok(match name {
        "quat" => {
            let q: [f64; 4] = fixed(attrs, "quat")?;
            let quaternion = nalgebra::Quaternion::new(q[0], q[1], q[2], q[3]);
            if quaternion.norm() == 0.0 {
                return zero("quaternion");
            }
            UnitQuaternion::from_quaternion(quaternion)
        }
        "axisangle" => {
            let v: [f64; 4] = fixed(attrs, "axisangle")?;
            let Some(axis) = Unit::try_new(Vector3::new(v[0], v[1], v[2]), 0.0) else {
                return zero("axis");
            };
            UnitQuaternion::from_axis_angle(&axis, compiler.angle(v[3]))
        }
        "euler" => {
            let v: [f64; 3] = fixed(attrs, "euler")?;
            euler(v.map(|a| compiler.angle(a)), compiler.euler_sequence)
        }
        "xyaxes" => {
            let v: [f64; 6] = fixed(attrs, "xyaxes")?;
            let x = Vector3::new(v[0], v[1], v[2]);
            let y = Vector3::new(v[3], v[4], v[5]);
            let Some(x) = x.try_normalize(0.0) else {
                return zero("x axis");
            };
            let Some(y) = (y - x * x.dot(&y)).try_normalize(0.0) else {
                return zero("y axis (or one along x)");
            };
            let z = x.cross(&y);
            UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[x, y, z])))
        }
        _ => {
            let v = attrs.vector3("zaxis")?.unwrap_or_else(Vector3::z);
            match z_onto(v) {
                Some(q) => q,
                None => return zero("axis"),
            }
        }
    })
}

/// Exactly `N` numbers of attribute `name` (an error when absent or of another count).
pub(crate) fn fixed<const N: usize>(attrs: &Attrs, name: &str) -> Result<[f64; N], Error> {
    let mut out = [0.0; N];
    match attrs.numbers(name, N, N)? {
        Some((values, _)) => out.copy_from_slice(&values),
        None => {
            return Err(Diagnostic::error(
                attrs.at(),
                format!("<{}> needs `{name}`", attrs.element.tag),
            ))
        }
    }
    Ok(out)
}

/// Euler angles (radians) applied in `sequence` (module docs).
pub(crate) fn euler(angles: [f64; 3], sequence: [char; 3]) -> UnitQuaternion<f64> {
    let mut q = UnitQuaternion::identity();
    for (angle, axis) in angles.into_iter().zip(sequence) {
        let unit = match axis.to_ascii_lowercase() {
            'x' => Vector3::x_axis(),
            'y' => Vector3::y_axis(),
            _ => Vector3::z_axis(),
        };
        let turn = UnitQuaternion::from_axis_angle(&unit, angle);
        q = if axis.is_ascii_lowercase() { q * turn } else { turn * q };
    }
    q
}

/// The smallest rotation taking +z onto `v` (a half turn about x when `v` points along −z);
/// `None` for a zero vector.
pub(crate) fn z_onto(v: Vector3<f64>) -> Option<UnitQuaternion<f64>> {
    let v = v.try_normalize(0.0)?;
    let cross = Vector3::z().cross(&v);
    let sine = cross.norm();
    let axis = if sine < 1e-10 {
        Vector3::x_axis()
    } else {
        Unit::new_unchecked(cross / sine)
    };
    Some(UnitQuaternion::from_axis_angle(&axis, sine.atan2(v.z)))
}
