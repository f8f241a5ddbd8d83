//! Centre of pressure and zero-moment point (`docs/design/contact-mechanics.md` §4.4.2).
//!
//! - CoP: p_CoP = Σᵢ fₙᵢ pᵢ / Σᵢ fₙᵢ, with fₙᵢ = n·fᵢ the force component along the plane normal
//!   (the chapter writes f_zᵢ for a horizontal floor).
//! - ZMP: the point p of the plane about which the contact forces have no moment tangent to the plane.
//!   With F the total force and M_c the total moment about a point c of the plane,
//!   p = c + n × M_c / (n·F). This is the chapter's p_ZMP = n × (M_O + p_O × F)/(n·F) for a plane
//!   through the origin (M_O + p_O × F is the moment about the origin of a wrench given about p_O);
//!   proof: n × M_p = n × M_c − n × ((p − c) × F) = n × M_c − (p − c)(n·F) = 0 for (p − c)·n = 0.
//!
//! For contact forces applied at points of the plane the two coincide; they differ when forces act
//! off the plane or when the wrench includes inertial terms (the cart-table model in the tests).

use nalgebra::Vector3;

use crate::error::{check_finite, Error, Result};
use crate::wrench::{point_contact_wrench, Wrench};

/// A plane through `point` with unit normal `normal` (pointing out of the ground, into the robot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plane {
    /// A point of the plane, m.
    pub point: Vector3<f64>,
    /// Unit normal.
    pub normal: Vector3<f64>,
}

impl Plane {
    /// A plane; the normal is normalised.
    pub fn new(point: Vector3<f64>, normal: Vector3<f64>) -> Result<Self> {
        check_finite("plane point", point.as_slice())?;
        let norm = normal.norm();
        if !(norm.is_finite() && norm > 0.0) {
            return Err(Error::ZeroNormal {
                what: "plane",
                index: 0,
            });
        }
        Ok(Self {
            point,
            normal: normal / norm,
        })
    }

    /// The floor z = 0 with normal +z.
    pub fn ground() -> Self {
        Self {
            point: Vector3::zeros(),
            normal: Vector3::z(),
        }
    }

    /// Signed height of a point above the plane, m.
    pub fn height(&self, p: &Vector3<f64>) -> f64 {
        self.normal.dot(&(p - self.point))
    }
}

/// A force (N, world) applied at a point (m, world).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointForce {
    /// Application point, m.
    pub point: Vector3<f64>,
    /// Force, N.
    pub force: Vector3<f64>,
}

impl PointForce {
    /// A force at a point.
    pub fn new(point: Vector3<f64>, force: Vector3<f64>) -> Self {
        Self { point, force }
    }
}

/// Centre of pressure of contact forces (`docs/design/contact-mechanics.md` §4.4.2):
/// p = Σ fₙᵢpᵢ / Σ fₙᵢ with fₙᵢ = n·fᵢ. Error when Σ fₙᵢ ≤ 0 (nothing presses on the plane).
pub fn centre_of_pressure(forces: &[PointForce], plane: &Plane) -> Result<Vector3<f64>> {
    let mut total = 0.0;
    let mut weighted = Vector3::zeros();
    for f in forces {
        let fn_ = plane.normal.dot(&f.force);
        total += fn_;
        weighted += f.point * fn_;
    }
    let p = weighted / total;
    if !(total > 0.0 && p.iter().all(|v| v.is_finite())) {
        return Err(Error::NoNormalForce { normal_force: total });
    }
    Ok(p)
}

/// ZMP of a total wrench whose torque is about the origin (module docs). Error when n·F ≤ 0.
pub fn zmp_from_wrench(wrench: &Wrench, plane: &Plane) -> Result<Vector3<f64>> {
    let normal_force = plane.normal.dot(&wrench.force);
    let about_plane_point = wrench.about(&Vector3::zeros(), &plane.point);
    let p = plane.point + plane.normal.cross(&about_plane_point.torque) / normal_force;
    if !(normal_force > 0.0 && p.iter().all(|v| v.is_finite())) {
        return Err(Error::NoNormalForce { normal_force });
    }
    Ok(p)
}

/// ZMP of a set of point forces: the ZMP of their total wrench.
pub fn zmp(forces: &[PointForce], plane: &Plane) -> Result<Vector3<f64>> {
    let total = forces.iter().fold(Wrench::default(), |acc, f| {
        acc + point_contact_wrench(&f.point, &f.force)
    });
    zmp_from_wrench(&total, plane)
}
