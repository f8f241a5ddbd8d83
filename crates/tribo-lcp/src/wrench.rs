//! Wrenches: a force and a torque about a stated point (`docs/design/contact-mechanics.md` §4.4.1,
//! exercise 4.3).

use nalgebra::{Vector3, Vector6};
use std::ops::{Add, AddAssign};

/// A wrench w = [f; τ]: force f (N) and torque τ (N·m) about a reference point that the caller keeps
/// track of (the world origin unless said otherwise). As a 6-vector the force comes first, as in the
/// chapter.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Wrench {
    /// f, N.
    pub force: Vector3<f64>,
    /// τ, N·m, about the reference point.
    pub torque: Vector3<f64>,
}

impl Wrench {
    /// A wrench from its parts.
    pub fn new(force: Vector3<f64>, torque: Vector3<f64>) -> Self {
        Self { force, torque }
    }

    /// [f; τ].
    pub fn to_vector(&self) -> Vector6<f64> {
        Vector6::new(
            self.force.x,
            self.force.y,
            self.force.z,
            self.torque.x,
            self.torque.y,
            self.torque.z,
        )
    }

    /// From [f; τ].
    pub fn from_vector(v: &Vector6<f64>) -> Self {
        Self {
            force: v.fixed_rows::<3>(0).into_owned(),
            torque: v.fixed_rows::<3>(3).into_owned(),
        }
    }

    /// The same wrench with its torque taken about `to` instead of `from`: τ_to = τ_from + (from − to) × f.
    pub fn about(&self, from: &Vector3<f64>, to: &Vector3<f64>) -> Self {
        Self {
            force: self.force,
            torque: self.torque + (from - to).cross(&self.force),
        }
    }
}

impl Add for Wrench {
    type Output = Wrench;
    fn add(self, other: Wrench) -> Wrench {
        Wrench {
            force: self.force + other.force,
            torque: self.torque + other.torque,
        }
    }
}

impl AddAssign for Wrench {
    fn add_assign(&mut self, other: Wrench) {
        self.force += other.force;
        self.torque += other.torque;
    }
}

/// The wrench of a force f applied at a point p, about the origin: w = [f; p × f]
/// (`docs/design/contact-mechanics.md` §4.4.1, exercise 4.3).
pub fn point_contact_wrench(point: &Vector3<f64>, force: &Vector3<f64>) -> Wrench {
    Wrench {
        force: *force,
        torque: point.cross(force),
    }
}

/// The wrench of a force f applied at p, about the reference point c: w = [f; (p − c) × f].
pub fn point_contact_wrench_about(point: &Vector3<f64>, force: &Vector3<f64>, reference: &Vector3<f64>) -> Wrench {
    Wrench {
        force: *force,
        torque: (point - reference).cross(force),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changing_the_reference_point_matches_recomputing() {
        let (p, f) = (Vector3::new(0.3, -0.2, 0.5), Vector3::new(1.0, 2.0, -3.0));
        let c = Vector3::new(-1.0, 0.4, 0.2);
        let moved = point_contact_wrench(&p, &f).about(&Vector3::zeros(), &c);
        let direct = point_contact_wrench_about(&p, &f, &c);
        assert!((moved.torque - direct.torque).norm() < 1e-15);
        assert_eq!(Wrench::from_vector(&direct.to_vector()), direct);
    }
}
