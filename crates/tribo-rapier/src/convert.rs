//! Conversions between the scene's nalgebra types and rapier's glam types.
//!
//! rapier3d-f64 0.36 speaks `glam` (`DVec3`, `DQuat`, `DPose3`); tribo speaks nalgebra. The
//! conversions are written out component by component so that no conversion trait from a
//! dependency's feature set has to be relied on.

use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};
use rapier3d_f64::math::{Pose, Rotation, Vector};

pub(crate) fn vector(v: &Vector3<f64>) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

pub(crate) fn vector3(v: Vector) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

pub(crate) fn rotation(q: &UnitQuaternion<f64>) -> Rotation {
    Rotation::from_xyzw(q.i, q.j, q.k, q.w)
}

pub(crate) fn unit_quaternion(q: Rotation) -> UnitQuaternion<f64> {
    UnitQuaternion::new_normalize(Quaternion::new(q.w, q.x, q.y, q.z))
}

pub(crate) fn pose(iso: &Isometry3<f64>) -> Pose {
    Pose::from_parts(vector(&iso.translation.vector), rotation(&iso.rotation))
}

pub(crate) fn isometry(p: &Pose) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::from(vector3(p.translation)), unit_quaternion(p.rotation))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_round_trip_keeps_every_component() {
        let iso = Isometry3::new(Vector3::new(0.1, -2.0, 3.5), Vector3::new(0.3, -0.2, 1.1));
        let back = isometry(&pose(&iso));
        assert!((back.translation.vector - iso.translation.vector).norm() < 1e-15);
        assert!(back.rotation.angle_to(&iso.rotation) < 1e-12);
        // The same point maps to the same place in both libraries.
        let p = Vector3::new(0.7, 0.2, -0.4);
        let via_glam = vector3(pose(&iso) * vector(&p));
        let via_na = iso.transform_point(&p.into()).coords;
        assert!((via_glam - via_na).norm() < 1e-14);
    }
}
