//! The frictional contact problem on the Delassus operator (`docs/design/contact-mechanics.md` §4.2.2,
//! §4.2.4).
//!
//! With n contacts, unknowns and velocities come in blocks of three, contact c owning rows 3c + k:
//! k = [`NORMAL`] (λₙ, vₙ), k = [`TANGENT_1`] and [`TANGENT_2`] (λₜ, vₜ). The contact velocity after the
//! step is v = Aλ + b and, per contact,
//!
//! - normal (Signorini, velocity level): 0 ≤ λₙ ⊥ vₙ ≥ 0;
//! - friction (maximum dissipation, §4.2.1): λₜ ∈ F(μλₙ) and λₜ minimises vₜᵀλₜ' over λₜ' ∈ F(μλₙ),
//!   where F is the contact's friction set ([`FrictionModel`]).

use nalgebra::{DMatrix, DVector};

use crate::delassus::DelassusRows;
use crate::error::{check_finite, check_len, Error, Result};
use crate::friction::FrictionModel;

/// Offset of the normal row inside a contact's block of three.
pub const NORMAL: usize = 0;
/// Offset of the first tangent row inside a contact's block of three.
pub const TANGENT_1: usize = 1;
/// Offset of the second tangent row inside a contact's block of three.
pub const TANGENT_2: usize = 2;

/// Friction at one contact: coefficient μ (dimensionless, ≥ 0) and the model of the friction set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactFriction {
    /// μ, dimensionless, ≥ 0 (0 = frictionless).
    pub mu: f64,
    /// Shape of the friction set.
    pub model: FrictionModel,
}

impl ContactFriction {
    /// Friction coefficient and model.
    pub fn new(mu: f64, model: FrictionModel) -> Self {
        Self { mu, model }
    }
}

/// A contact problem: Delassus operator A (3n × 3n, contact frame, rows ordered normal, t₁, t₂ per
/// contact), free velocity b (3n, m/s) and per-contact friction. The operator type `D` decides how
/// rows are read (see [`crate::delassus`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ContactProblem<D = DMatrix<f64>> {
    /// A = J M⁻¹ Jᵀ in contact coordinates, 1/kg (m/s per N·s).
    pub delassus: D,
    /// b = J(v⁻ + h M⁻¹ f_ext), m/s: the contact velocity if no contact impulse acted.
    pub free_velocity: DVector<f64>,
    /// One entry per contact.
    pub contacts: Vec<ContactFriction>,
}

/// An empty problem (no contacts), to be filled in place.
impl<D: Default> Default for ContactProblem<D> {
    fn default() -> Self {
        Self {
            delassus: D::default(),
            free_velocity: DVector::zeros(0),
            contacts: Vec::new(),
        }
    }
}

impl<D: DelassusRows> ContactProblem<D> {
    /// A checked problem (see [`validate`](Self::validate)).
    pub fn new(delassus: D, free_velocity: DVector<f64>, contacts: Vec<ContactFriction>) -> Result<Self> {
        let problem = Self {
            delassus,
            free_velocity,
            contacts,
        };
        problem.validate()?;
        Ok(problem)
    }

    /// Number of contacts.
    pub fn contact_count(&self) -> usize {
        self.contacts.len()
    }

    /// Check sizes, μ, friction models, finiteness of b and of A's diagonal blocks. (The rest of A is
    /// only read during the sweep; a non-finite entry there shows up as [`Error::Diverged`].)
    pub fn validate(&self) -> Result<()> {
        let n = 3 * self.contacts.len();
        check_len("A (3 × contacts)", n, self.delassus.dim())?;
        check_len("b", n, self.free_velocity.len())?;
        check_finite("b", self.free_velocity.as_slice())?;
        for (contact, friction) in self.contacts.iter().enumerate() {
            if !(friction.mu.is_finite() && friction.mu >= 0.0) {
                return Err(Error::InvalidFriction {
                    contact,
                    mu: friction.mu,
                });
            }
            friction.model.validate(contact)?;
            let block = self.delassus.diagonal_block(contact);
            for r in 0..3 {
                for c in 0..3 {
                    let (row, col) = (3 * contact + r, 3 * contact + c);
                    let value = block[(r, c)];
                    if !value.is_finite() {
                        return Err(Error::NonFinite {
                            what: "A",
                            index: row * n + col,
                            value,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The same problem with every circular cone replaced by the inscribed pyramid of `edges` edges
    /// (so that Lemke's method can solve it). Box and pyramid contacts are kept.
    pub fn with_cones_as_pyramids(&self, edges: usize) -> Self
    where
        D: Clone,
    {
        let contacts = self
            .contacts
            .iter()
            .map(|f| match f.model {
                FrictionModel::Cone => ContactFriction::new(f.mu, FrictionModel::Pyramid { edges }),
                _ => *f,
            })
            .collect();
        Self {
            delassus: self.delassus.clone(),
            free_velocity: self.free_velocity.clone(),
            contacts,
        }
    }

    /// The same problem with every contact's model set to `model` (μ kept).
    pub fn with_model(&self, model: FrictionModel) -> Self
    where
        D: Clone,
    {
        let contacts = self
            .contacts
            .iter()
            .map(|f| ContactFriction::new(f.mu, model))
            .collect();
        Self {
            delassus: self.delassus.clone(),
            free_velocity: self.free_velocity.clone(),
            contacts,
        }
    }

    /// v = Aλ + b, the contact velocity after the impulse λ (m/s).
    pub fn velocity(&self, lambda: &DVector<f64>) -> Result<DVector<f64>> {
        check_len("λ", self.free_velocity.len(), lambda.len())?;
        let mut v = DVector::zeros(lambda.len());
        self.delassus.multiply(lambda.as_slice(), v.as_mut_slice());
        v += &self.free_velocity;
        Ok(v)
    }
}

impl ContactProblem<DMatrix<f64>> {
    /// Build the problem from the dynamics of one step (`docs/design/contact-mechanics.md` §4.2.2):
    /// with contact Jacobian J (3n × d, rows normal, t₁, t₂ per contact), generalised mass M (d × d,
    /// symmetric positive definite), velocity v⁻ (d), external generalised force f_ext (d) and step h (s),
    /// A = J M⁻¹ Jᵀ and b = J(v⁻ + h M⁻¹ f_ext).
    pub fn from_dynamics(
        jacobian: &DMatrix<f64>,
        mass: &DMatrix<f64>,
        velocity: &DVector<f64>,
        external_force: &DVector<f64>,
        dt: f64,
        contacts: Vec<ContactFriction>,
    ) -> Result<Self> {
        let d = mass.nrows();
        check_len("M (columns)", d, mass.ncols())?;
        check_len("J (columns)", d, jacobian.ncols())?;
        check_len("J (rows)", 3 * contacts.len(), jacobian.nrows())?;
        check_len("v⁻", d, velocity.len())?;
        check_len("f_ext", d, external_force.len())?;
        check_finite("J", jacobian.as_slice())?;
        check_finite("M", mass.as_slice())?;
        check_finite("v⁻", velocity.as_slice())?;
        check_finite("f_ext", external_force.as_slice())?;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::InvalidOption {
                name: "dt",
                value: dt,
                expected: "a finite step > 0 s",
            });
        }
        let cholesky = mass
            .clone()
            .cholesky()
            .ok_or(Error::NotPositiveDefinite { what: "M" })?;
        let minv_jt = cholesky.solve(&jacobian.transpose());
        let delassus = jacobian * minv_jt;
        let free_velocity = jacobian * (velocity + cholesky.solve(external_force) * dt);
        Self::new(delassus, free_velocity, contacts)
    }
}
