//! Root poses and joint displacements as a `BodyItem` stores them.
//!
//! - `root_translation` / old `rootPosition`: `[x, y, z]`, m.
//! - `root_rotation`: an axis-angle in **degrees**, `[ax, ay, az, deg]`, or a list of such,
//!   composed left to right; old `rootAttitude`: a 3×3 matrix, 9 numbers row by row.
//! - `joint_displacements`: **degrees** for every joint (Choreonoid converts prismatic ones too),
//!   in joint-id order; old `jointPositions`: radians.

use nalgebra::{Matrix3, Rotation3, Unit, UnitQuaternion, Vector3};
use tribo_yaml::{Diagnostic, Node, Value};

pub fn translation(node: &Node) -> Result<Vector3<f64>, Diagnostic> {
    Ok(Vector3::from(node.as_vec3()?))
}

/// `[ax, ay, az, degrees]` or a list of them.
pub fn axis_angle_deg(node: &Node) -> Result<UnitQuaternion<f64>, Diagnostic> {
    let items = node.as_seq()?;
    if items.first().is_some_and(|n| matches!(n.value, Value::Seq(_))) {
        let mut r = UnitQuaternion::identity();
        for item in items {
            r *= axis_angle_deg(item)?;
        }
        return Ok(r);
    }
    let [ax, ay, az, deg] = node
        .as_array::<4>()
        .map_err(|_| node.error("expected an axis-angle [ax, ay, az, degrees] or a list of them"))?;
    if deg == 0.0 {
        return Ok(UnitQuaternion::identity());
    }
    let axis = Unit::try_new(Vector3::new(ax, ay, az), 1e-12)
        .ok_or_else(|| node.error("the rotation axis must not be zero"))?;
    Ok(UnitQuaternion::from_axis_angle(&axis, deg.to_radians()))
}

/// A 3×3 rotation matrix written as 9 numbers, row by row (Choreonoid's `rootAttitude`).
pub fn matrix(node: &Node) -> Result<UnitQuaternion<f64>, Diagnostic> {
    let v = node
        .as_array::<9>()
        .map_err(|_| node.error("expected a 3×3 rotation matrix: 9 numbers, row by row"))?;
    let m = Matrix3::from_row_slice(&v);
    let orthogonality = (m.transpose() * m - Matrix3::identity()).abs().max();
    if orthogonality > 1e-3 || m.determinant() <= 0.0 {
        return Err(node.error("this 3×3 matrix is not a rotation (its rows must be orthonormal, determinant +1)"));
    }
    Ok(UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix(&m)))
}

/// `[ax, ay, az, degrees]` for a rotation (the form tribo's project `rotation:` takes).
pub fn to_axis_angle_deg(r: &UnitQuaternion<f64>) -> [f64; 4] {
    match r.axis_angle() {
        Some((axis, angle)) => [axis.x, axis.y, axis.z, angle.to_degrees()],
        None => [1.0, 0.0, 0.0, 0.0],
    }
}

/// A list of numbers, each scaled (degrees to radians, or 1 for radians).
pub fn scaled_list(node: &Node, scale: f64) -> Result<Vec<f64>, Diagnostic> {
    let items = node
        .as_seq()
        .map_err(|_| node.error(format!("expected a list of joint values, found {}", node.kind_name())))?;
    items.iter().map(|n| Ok(n.as_finite()? * scale)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        tribo_yaml::parse_str(text, "t.cnoid").expect("yaml")
    }

    #[test]
    fn matrix_and_axis_angle_agree() {
        let m = matrix(&parse("[0, -1, 0, 1, 0, 0, 0, 0, 1]")).expect("matrix");
        let a = axis_angle_deg(&parse("[0, 0, 1, 90]")).expect("axis-angle");
        assert!(m.angle_to(&a) < 1e-12);
        let [x, y, z, deg] = to_axis_angle_deg(&m);
        assert!((x.abs() + y.abs()) < 1e-12 && (z - 1.0).abs() < 1e-12 && (deg - 90.0).abs() < 1e-9);
    }

    #[test]
    fn a_scaled_matrix_is_not_a_rotation() {
        let err = matrix(&parse("[2, 0, 0, 0, 1, 0, 0, 0, 1]"))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("t.cnoid:1:1: this 3×3 matrix is not a rotation (its rows must be orthonormal, determinant +1)")
        );
    }
}
