//! Spatial (6D) vector algebra in Plücker coordinates — Featherstone, *Rigid Body Dynamics
//! Algorithms* (RBDA, 2008), ch. 2.
//!
//! Every spatial quantity in this crate is expressed in **world axes about one reference point**
//! (RBDA §5.3 calls working in one frame "in base coordinates"); the docs below say "world origin"
//! for that point. [`crate::Kinematics`] puts it at the root body's frame origin
//! ([`crate::Kinematics::origin`]), so levers stay as small as the body. With one common frame,
//! spatial inertias of different bodies add directly and no Plücker transforms are needed between
//! links; the price is that linear parts are "the velocity of the body point that currently passes
//! through the reference point", so use [`SpatialMotion::velocity_at`] with a position relative to
//! it to read the velocity of a real point.
//!
//! | RBDA symbol | type | meaning |
//! |---|---|---|
//! | v̂ = [ω; v_O] | [`SpatialMotion`] | angular velocity ω (rad/s), velocity v_O (m/s) of the body point at the origin |
//! | f̂ = [n_O; f] | [`SpatialForce`] | moment about the origin n_O (N·m), force f (N) |
//! | Î | [`SpatialInertia`] | mass m (kg), first moment h = m·c (kg·m), rotational inertia about the origin (kg·m²) |

use nalgebra::{Matrix3, Vector3, Vector6};
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

/// The skew-symmetric matrix `[a]×` with `[a]× b = a × b`.
pub fn skew(a: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// A spatial motion vector (velocity, acceleration or a joint's motion axis), RBDA ch. 2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpatialMotion {
    /// Angular part ω (rad/s for a velocity).
    pub angular: Vector3<f64>,
    /// Linear part v_O: the velocity of the body point at the world origin (m/s for a velocity).
    pub linear: Vector3<f64>,
}

impl SpatialMotion {
    pub fn new(angular: Vector3<f64>, linear: Vector3<f64>) -> Self {
        Self { angular, linear }
    }

    pub fn zero() -> Self {
        Self::default()
    }

    /// The motion cross product `m₁ × m₂` (RBDA ch. 2, the `crm` operator):
    /// `[ω₁; v₁] × [ω₂; v₂] = [ω₁ × ω₂; ω₁ × v₂ + v₁ × ω₂]`.
    pub fn cross_motion(&self, other: &SpatialMotion) -> SpatialMotion {
        SpatialMotion {
            angular: self.angular.cross(&other.angular),
            linear: self.angular.cross(&other.linear) + self.linear.cross(&other.angular),
        }
    }

    /// The force cross product `m ×* f` (RBDA ch. 2, the `crf` operator):
    /// `[ω; v] ×* [n; f] = [ω × n + v × f; ω × f]`.
    pub fn cross_force(&self, force: &SpatialForce) -> SpatialForce {
        SpatialForce {
            moment: self.angular.cross(&force.moment) + self.linear.cross(&force.force),
            force: self.angular.cross(&force.force),
        }
    }

    /// The scalar product `m · f` (power, W, when `m` is a velocity).
    pub fn dot(&self, force: &SpatialForce) -> f64 {
        self.angular.dot(&force.moment) + self.linear.dot(&force.force)
    }

    /// Linear velocity of the body point at world position `point`: `v_P = v_O + ω × P`.
    pub fn velocity_at(&self, point: &Vector3<f64>) -> Vector3<f64> {
        self.linear + self.angular.cross(point)
    }

    /// `[ω; v_O]` as one 6-vector, angular first.
    pub fn to_vector(&self) -> Vector6<f64> {
        Vector6::new(
            self.angular.x,
            self.angular.y,
            self.angular.z,
            self.linear.x,
            self.linear.y,
            self.linear.z,
        )
    }
}

impl Add for SpatialMotion {
    type Output = SpatialMotion;
    fn add(self, rhs: SpatialMotion) -> SpatialMotion {
        SpatialMotion::new(self.angular + rhs.angular, self.linear + rhs.linear)
    }
}

impl AddAssign for SpatialMotion {
    fn add_assign(&mut self, rhs: SpatialMotion) {
        self.angular += rhs.angular;
        self.linear += rhs.linear;
    }
}

impl Sub for SpatialMotion {
    type Output = SpatialMotion;
    fn sub(self, rhs: SpatialMotion) -> SpatialMotion {
        SpatialMotion::new(self.angular - rhs.angular, self.linear - rhs.linear)
    }
}

impl Neg for SpatialMotion {
    type Output = SpatialMotion;
    fn neg(self) -> SpatialMotion {
        SpatialMotion::new(-self.angular, -self.linear)
    }
}

impl Mul<f64> for SpatialMotion {
    type Output = SpatialMotion;
    fn mul(self, s: f64) -> SpatialMotion {
        SpatialMotion::new(self.angular * s, self.linear * s)
    }
}

/// A spatial force vector (wrench), RBDA ch. 2, referred to the world origin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpatialForce {
    /// Moment about the world origin n_O (N·m).
    pub moment: Vector3<f64>,
    /// Force f (N).
    pub force: Vector3<f64>,
}

impl SpatialForce {
    pub fn new(moment: Vector3<f64>, force: Vector3<f64>) -> Self {
        Self { moment, force }
    }

    pub fn zero() -> Self {
        Self::default()
    }

    /// A pure force `force` acting at world point `point`: `[P × f; f]`.
    pub fn from_force_at(force: &Vector3<f64>, point: &Vector3<f64>) -> Self {
        Self {
            moment: point.cross(force),
            force: *force,
        }
    }

    /// A pure couple (moment `torque`, no net force).
    pub fn from_torque(torque: &Vector3<f64>) -> Self {
        Self {
            moment: *torque,
            force: Vector3::zeros(),
        }
    }

    /// The moment of this wrench about world point `point`: `n_P = n_O − P × f`.
    pub fn moment_about(&self, point: &Vector3<f64>) -> Vector3<f64> {
        self.moment - point.cross(&self.force)
    }
}

impl Add for SpatialForce {
    type Output = SpatialForce;
    fn add(self, rhs: SpatialForce) -> SpatialForce {
        SpatialForce::new(self.moment + rhs.moment, self.force + rhs.force)
    }
}

impl AddAssign for SpatialForce {
    fn add_assign(&mut self, rhs: SpatialForce) {
        self.moment += rhs.moment;
        self.force += rhs.force;
    }
}

impl Sub for SpatialForce {
    type Output = SpatialForce;
    fn sub(self, rhs: SpatialForce) -> SpatialForce {
        SpatialForce::new(self.moment - rhs.moment, self.force - rhs.force)
    }
}

impl Neg for SpatialForce {
    type Output = SpatialForce;
    fn neg(self) -> SpatialForce {
        SpatialForce::new(-self.moment, -self.force)
    }
}

impl Mul<f64> for SpatialForce {
    type Output = SpatialForce;
    fn mul(self, s: f64) -> SpatialForce {
        SpatialForce::new(self.moment * s, self.force * s)
    }
}

/// A rigid-body spatial inertia referred to the world origin, RBDA ch. 2, eq. (2.63):
///
/// ```text
/// Î = [ I_c + m [c]×[c]×ᵀ   m [c]× ]   =   [ I_O     [h]× ]
///     [ m [c]×ᵀ             m 1    ]       [ [h]×ᵀ   m 1  ]
/// ```
///
/// with c the centre of mass, h = m·c and `I_O = I_c − m [c]×[c]×` the rotational inertia about the
/// origin. Inertias referred to the same point add, so composite bodies are plain sums.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpatialInertia {
    /// m (kg).
    pub mass: f64,
    /// h = m·c, the first mass moment about the origin (kg·m).
    pub first_moment: Vector3<f64>,
    /// I_O, rotational inertia about the origin (kg·m²), symmetric.
    pub rotational: Matrix3<f64>,
}

impl SpatialInertia {
    pub fn zero() -> Self {
        Self::default()
    }

    /// The inertia of a body of mass `mass` with centre of mass at world point `com` and rotational
    /// inertia `inertia_about_com` (world axes) about its centre of mass.
    pub fn from_com(mass: f64, com: &Vector3<f64>, inertia_about_com: &Matrix3<f64>) -> Self {
        let c = skew(com);
        Self {
            mass,
            first_moment: com * mass,
            rotational: inertia_about_com - c * c * mass,
        }
    }

    /// `Î m`: momentum for a velocity, force for an acceleration:
    /// `[I_O ω + h × v; m v − h × ω]`.
    pub fn apply(&self, motion: &SpatialMotion) -> SpatialForce {
        SpatialForce {
            moment: self.rotational * motion.angular + self.first_moment.cross(&motion.linear),
            force: motion.linear * self.mass - self.first_moment.cross(&motion.angular),
        }
    }

    /// The centre of mass, `None` for a massless inertia.
    pub fn center_of_mass(&self) -> Option<Vector3<f64>> {
        (self.mass > 0.0).then(|| self.first_moment / self.mass)
    }
}

impl Add for SpatialInertia {
    type Output = SpatialInertia;
    fn add(self, rhs: SpatialInertia) -> SpatialInertia {
        SpatialInertia {
            mass: self.mass + rhs.mass,
            first_moment: self.first_moment + rhs.first_moment,
            rotational: self.rotational + rhs.rotational,
        }
    }
}

impl AddAssign for SpatialInertia {
    fn add_assign(&mut self, rhs: SpatialInertia) {
        self.mass += rhs.mass;
        self.first_moment += rhs.first_moment;
        self.rotational += rhs.rotational;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inertia_apply_matches_the_6x6_matrix_of_eq_2_63() {
        let m = 2.5;
        let c = Vector3::new(0.3, -0.2, 0.7);
        let ic = Matrix3::new(0.4, 0.01, 0.02, 0.01, 0.5, -0.03, 0.02, -0.03, 0.6);
        let inertia = SpatialInertia::from_com(m, &c, &ic);
        let cx = skew(&c);
        let mut full = nalgebra::Matrix6::<f64>::zeros();
        full.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(ic + cx * cx.transpose() * m));
        full.fixed_view_mut::<3, 3>(0, 3).copy_from(&(cx * m));
        full.fixed_view_mut::<3, 3>(3, 0).copy_from(&(cx.transpose() * m));
        full.fixed_view_mut::<3, 3>(3, 3).copy_from(&(Matrix3::identity() * m));
        let motion = SpatialMotion::new(Vector3::new(0.1, 2.0, -0.5), Vector3::new(-1.0, 0.4, 0.9));
        let expected = full * motion.to_vector();
        let got = inertia.apply(&motion);
        let got = Vector6::new(
            got.moment.x,
            got.moment.y,
            got.moment.z,
            got.force.x,
            got.force.y,
            got.force.z,
        );
        assert!((got - expected).norm() < 1e-12, "{got} vs {expected}");
    }

    #[test]
    fn force_cross_is_minus_the_transpose_of_motion_cross() {
        // RBDA ch. 2: v×* = −(v×)ᵀ, so (v × m)·f = −m·(v ×* f).
        let v = SpatialMotion::new(Vector3::new(0.3, -1.0, 2.0), Vector3::new(0.5, 0.1, -0.4));
        let m = SpatialMotion::new(Vector3::new(-0.7, 0.2, 0.9), Vector3::new(1.5, -0.3, 0.2));
        let f = SpatialForce::new(Vector3::new(0.2, 0.8, -1.1), Vector3::new(-0.6, 0.4, 1.3));
        let lhs = v.cross_motion(&m).dot(&f);
        let rhs = -m.dot(&v.cross_force(&f));
        assert!((lhs - rhs).abs() < 1e-12);
    }

    #[test]
    fn point_velocity_and_moment_shift() {
        let v = SpatialMotion::new(Vector3::new(0.0, 0.0, 2.0), Vector3::zeros());
        // Rotation about the z axis through the origin: the point (1, 0, 0) moves along +y at 2 m/s.
        assert!((v.velocity_at(&Vector3::new(1.0, 0.0, 0.0)) - Vector3::new(0.0, 2.0, 0.0)).norm() < 1e-15);
        let f = SpatialForce::from_force_at(&Vector3::new(0.0, 0.0, -10.0), &Vector3::new(1.0, 0.0, 0.0));
        assert!(f.moment_about(&Vector3::new(1.0, 0.0, 0.0)).norm() < 1e-15);
        assert!((f.moment - Vector3::new(0.0, 10.0, 0.0)).norm() < 1e-15);
    }
}
