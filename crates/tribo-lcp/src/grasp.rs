//! Contact points, the grasp matrix G and the primitive wrenches of linearised friction cones
//! (`docs/design/contact-mechanics.md` §4.1.4, the feasible wrench set; §4.3.1, §4.4.3).

use nalgebra::{DMatrix, Matrix6x3, Vector3};

use crate::error::{check_finite, Error, Result};
use crate::friction::{pyramid_edges, ContactFrame};

/// A point contact on a body: position p (m, world), contact frame (normal pointing into the body, so
/// a compressive force has a positive normal component) and friction coefficient μ (≥ 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint {
    /// p, m, world frame.
    pub position: Vector3<f64>,
    /// Contact frame (t₁, t₂, n); forces at this contact are given in these coordinates.
    pub frame: ContactFrame,
    /// μ, dimensionless, ≥ 0.
    pub mu: f64,
}

impl ContactPoint {
    /// A checked contact with the frame of [`ContactFrame::from_normal`]. `index` labels errors.
    pub fn new(index: usize, position: Vector3<f64>, normal: Vector3<f64>, mu: f64) -> Result<Self> {
        check_finite("contact position", position.as_slice())?;
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(Error::InvalidFriction { contact: index, mu });
        }
        let frame = ContactFrame::from_normal(&normal).ok_or(Error::ZeroNormal { what: "contact", index })?;
        Ok(Self { position, frame, mu })
    }

    /// Gᵢ (6 × 3): the wrench about `reference` of a force given in contact coordinates (t₁, t₂, n):
    /// Gᵢ = [R; [p − c]× R], R = [t₁ t₂ n].
    pub fn wrench_map(&self, reference: &Vector3<f64>) -> Matrix6x3<f64> {
        let r = self.frame.rotation();
        let arm = (self.position - reference).cross_matrix();
        let mut g = Matrix6x3::zeros();
        g.fixed_view_mut::<3, 3>(0, 0).copy_from(&r);
        g.fixed_view_mut::<3, 3>(3, 0).copy_from(&(arm * r));
        g
    }
}

/// The grasp matrix G = [G₁ … Gₙ] (6 × 3n): w = G f maps the stacked contact forces (each in its
/// contact coordinates t₁, t₂, n; N) to the total wrench about `reference` (N, N·m).
/// `docs/design/contact-mechanics.md` §4.1.4: w = G f = Σᵢ Gᵢ fᵢ.
pub fn grasp_matrix(contacts: &[ContactPoint], reference: &Vector3<f64>) -> DMatrix<f64> {
    let mut g = DMatrix::zeros(6, 3 * contacts.len());
    for (i, contact) in contacts.iter().enumerate() {
        g.fixed_view_mut::<6, 3>(0, 3 * i)
            .copy_from(&contact.wrench_map(reference));
    }
    g
}

/// The primitive wrenches (6 × n·m): column i·m + k is Gᵢ dᵢₖ, the wrench of the unit force along the
/// k-th edge of contact i's inscribed m-edge pyramid (`docs/design/contact-mechanics.md` §4.1.3 edges;
/// their non-negative combinations are the wrenches the linearised cones can exert).
pub fn primitive_wrenches(contacts: &[ContactPoint], edges: usize, reference: &Vector3<f64>) -> DMatrix<f64> {
    let mut w = DMatrix::zeros(6, contacts.len() * edges);
    for (i, contact) in contacts.iter().enumerate() {
        let g = contact.wrench_map(reference);
        for (k, d) in pyramid_edges(contact.mu, edges).iter().enumerate() {
            w.fixed_view_mut::<6, 1>(0, i * edges + k).copy_from(&(g * d));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wrench::point_contact_wrench_about;

    #[test]
    fn grasp_matrix_sums_point_wrenches() {
        let contacts = [
            ContactPoint::new(0, Vector3::new(0.1, 0.0, 0.0), Vector3::new(-1.0, 0.0, 0.2), 0.5).expect("valid"),
            ContactPoint::new(1, Vector3::new(-0.1, 0.05, 0.02), Vector3::new(1.0, 0.3, 0.0), 0.5).expect("valid"),
        ];
        let reference = Vector3::new(0.0, 0.01, 0.03);
        let local = [Vector3::new(0.2, -0.1, 3.0), Vector3::new(-0.4, 0.3, 2.0)];
        let f = nalgebra::DVector::from_iterator(6, local.iter().flat_map(|v| v.iter().copied()));
        let w = grasp_matrix(&contacts, &reference) * f;
        let expected = contacts
            .iter()
            .zip(&local)
            .fold(crate::Wrench::default(), |acc, (c, fl)| {
                acc + point_contact_wrench_about(&c.position, &c.frame.to_world(fl), &reference)
            });
        for i in 0..6 {
            assert!((w[i] - expected.to_vector()[i]).abs() < 1e-14);
        }
    }

    #[test]
    fn bad_contacts_are_rejected() {
        assert_eq!(
            ContactPoint::new(3, Vector3::zeros(), Vector3::zeros(), 0.5),
            Err(Error::ZeroNormal {
                what: "contact",
                index: 3
            })
        );
        assert_eq!(
            ContactPoint::new(1, Vector3::zeros(), Vector3::z(), -0.1),
            Err(Error::InvalidFriction { contact: 1, mu: -0.1 })
        );
    }
}
