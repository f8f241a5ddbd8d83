//! Joint models (RBDA ch. 4, §4.4): how a joint's coordinates move the child frame relative to the
//! joint frame, and how its coordinates are integrated and differenced.
//!
//! | joint | nq | nv | q | v |
//! |---|---|---|---|---|
//! | `Free` | 7 | 6 | `[x, y, z, qw, qx, qy, qz]`: origin position (m) and unit orientation quaternion | `[ṗx, ṗy, ṗz, ωx, ωy, ωz]`: origin velocity (m/s) and angular velocity (rad/s), both in the joint frame (the world frame when the placement is the identity) |
//! | `Fixed` | 0 | 0 | — | — |
//! | `Revolute` | 1 | 1 | angle about the axis (rad) | angular rate (rad/s) |
//! | `Prismatic` | 1 | 1 | displacement along the axis (m) | rate (m/s) |

use nalgebra::{Isometry3, Quaternion, Translation3, Unit, UnitQuaternion, Vector3};

/// The joint between a body and its parent (or the world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Joint {
    /// Six degrees of freedom: a floating base. Only allowed on a body attached to the world.
    Free,
    /// Welded to the parent; no degree of freedom.
    Fixed,
    /// Rotation about `axis` (joint frame, normalised by [`crate::Tree::new`]) through the joint
    /// frame's origin.
    Revolute { axis: Vector3<f64> },
    /// Translation along `axis` (joint frame, normalised by [`crate::Tree::new`]).
    Prismatic { axis: Vector3<f64> },
}

impl Joint {
    /// Number of position coordinates.
    pub fn nq(&self) -> usize {
        match self {
            Joint::Free => 7,
            Joint::Fixed => 0,
            Joint::Revolute { .. } | Joint::Prismatic { .. } => 1,
        }
    }

    /// Number of velocity coordinates (degrees of freedom).
    pub fn nv(&self) -> usize {
        match self {
            Joint::Free => 6,
            Joint::Fixed => 0,
            Joint::Revolute { .. } | Joint::Prismatic { .. } => 1,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            Joint::Free => "free",
            Joint::Fixed => "fixed",
            Joint::Revolute { .. } => "revolute",
            Joint::Prismatic { .. } => "prismatic",
        }
    }

    /// The neutral coordinates: zero angle/displacement, identity pose.
    pub(crate) fn neutral(&self, q: &mut [f64]) {
        q.fill(0.0);
        if let (Joint::Free, Some(w)) = (self, q.get_mut(3)) {
            *w = 1.0;
        }
    }

    /// The child frame in the joint frame for coordinates `q` (`q.len() == self.nq()`, finite and,
    /// for a free joint, with a non-zero quaternion: checked by the callers).
    pub(crate) fn motion(&self, q: &[f64]) -> Isometry3<f64> {
        match (self, q) {
            (Joint::Free, [x, y, z, w, i, j, k]) => Isometry3::from_parts(
                Translation3::new(*x, *y, *z),
                UnitQuaternion::from_quaternion(Quaternion::new(*w, *i, *j, *k)),
            ),
            (Joint::Revolute { axis }, [angle]) => Isometry3::from_parts(
                Translation3::identity(),
                UnitQuaternion::from_axis_angle(&unit(axis), *angle),
            ),
            (Joint::Prismatic { axis }, [d]) => Isometry3::translation(axis.x * d, axis.y * d, axis.z * d),
            _ => Isometry3::identity(),
        }
    }

    /// `q ⊕ dt·v` for this joint (semi-implicit Euler position update).
    ///
    /// A free joint's position moves by `dt·ṗ`; its orientation is advanced on the rotation group
    /// with the exponential map, `R ← exp(dt [ω]×) R` (ω in the joint frame, hence the left
    /// product), i.e. `quat ← exp(dt ω / 2) ⊗ quat`, then renormalised.
    pub(crate) fn integrate(&self, q: &mut [f64], v: &[f64], dt: f64) {
        match (self, q, v) {
            (Joint::Free, [x, y, z, w, i, j, k], [vx, vy, vz, wx, wy, wz]) => {
                *x += dt * vx;
                *y += dt * vy;
                *z += dt * vz;
                let rotation = UnitQuaternion::from_scaled_axis(Vector3::new(*wx, *wy, *wz) * dt);
                let current = UnitQuaternion::from_quaternion(Quaternion::new(*w, *i, *j, *k));
                let next = (rotation * current).into_inner().normalize();
                (*w, *i, *j, *k) = (next.w, next.i, next.j, next.k);
            }
            (Joint::Revolute { .. } | Joint::Prismatic { .. }, [angle], [rate]) => *angle += dt * rate,
            _ => {}
        }
    }

    /// `q_to ⊖ q_from`: the velocity that carries `q_from` to `q_to` in unit time, so that
    /// `integrate(q_from, difference(q_to, q_from), 1) = q_to`. For a free joint the rotation part is
    /// the world-frame rotation vector `log(R_to R_fromᵀ)` (angle in [0, π]).
    pub(crate) fn difference(&self, q_to: &[f64], q_from: &[f64], out: &mut [f64]) {
        match (self, q_to, q_from, out) {
            (Joint::Free, [x1, y1, z1, w1, i1, j1, k1], [x0, y0, z0, w0, i0, j0, k0], [dx, dy, dz, rx, ry, rz]) => {
                (*dx, *dy, *dz) = (x1 - x0, y1 - y0, z1 - z0);
                let to = UnitQuaternion::from_quaternion(Quaternion::new(*w1, *i1, *j1, *k1));
                let from = UnitQuaternion::from_quaternion(Quaternion::new(*w0, *i0, *j0, *k0));
                let r = (to * from.inverse()).scaled_axis();
                (*rx, *ry, *rz) = (r.x, r.y, r.z);
            }
            (Joint::Revolute { .. } | Joint::Prismatic { .. }, [a1], [a0], [d]) => *d = a1 - a0,
            _ => {}
        }
    }
}

/// The axis as a unit vector (axes are normalised when the tree is built; a zero axis cannot reach
/// here, and would give the identity rotation).
fn unit(axis: &Vector3<f64>) -> Unit<Vector3<f64>> {
    Unit::new_unchecked(*axis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_joint_integration_is_the_exponential_map() {
        let joint = Joint::Free;
        let mut q = [0.0; 7];
        joint.neutral(&mut q);
        let omega = Vector3::new(0.3, -1.2, 0.5);
        for _ in 0..1000 {
            joint.integrate(&mut q, &[1.0, 0.0, 0.0, omega.x, omega.y, omega.z], 1e-3);
        }
        let expected = UnitQuaternion::from_scaled_axis(omega);
        let got = UnitQuaternion::from_quaternion(Quaternion::new(q[3], q[4], q[5], q[6]));
        assert!(got.angle_to(&expected) < 1e-12, "{}", got.angle_to(&expected));
        assert!((q[0] - 1.0).abs() < 1e-12);
        let norm = (q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]).sqrt();
        assert!((norm - 1.0).abs() < 1e-15);
    }

    #[test]
    fn difference_inverts_integration() {
        let joint = Joint::Free;
        let from = [0.1, -0.2, 0.3, 0.9, 0.1, -0.3, 0.2];
        let mut to = from;
        let v = [0.5, 0.4, -0.3, 0.7, -0.2, 1.1];
        joint.integrate(&mut to, &v, 1.0);
        let mut d = [0.0; 6];
        joint.difference(&to, &from, &mut d);
        for (a, b) in d.iter().zip(v.iter()) {
            assert!((a - b).abs() < 1e-12, "{d:?} vs {v:?}");
        }
    }
}
