//! nalgebra (tribo) to glam (rapier3d-f64 0.36), component by component, as tribo's rapier
//! engine converts.

use nalgebra::{Isometry3, Matrix3, UnitQuaternion, Vector3};
use rapier3d_f64::math::{Matrix, Pose, Rotation, Vector};

pub fn vector(v: &Vector3<f64>) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

pub fn pose(iso: &Isometry3<f64>) -> Pose {
    let q = &iso.rotation;
    Pose::from_parts(vector(&iso.translation.vector), Rotation::from_xyzw(q.i, q.j, q.k, q.w))
}

pub fn matrix(m: &Matrix3<f64>) -> Matrix {
    Matrix::from_cols(
        Vector::new(m[(0, 0)], m[(1, 0)], m[(2, 0)]),
        Vector::new(m[(0, 1)], m[(1, 1)], m[(2, 1)]),
        Vector::new(m[(0, 2)], m[(1, 2)], m[(2, 2)]),
    )
}

/// The smallest rotation taking +X to the unit vector `axis` (rapier's revolute and prismatic
/// joints free their local X).
pub fn x_to(axis: &Vector3<f64>) -> UnitQuaternion<f64> {
    UnitQuaternion::rotation_between(&Vector3::x(), axis)
        .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::PI))
}
