//! Contact force distribution (`docs/design/contact-mechanics.md` §4.4.3): the contact forces of least
//! total norm that produce a desired wrench,
//!
//! min Σᵢ ‖fᵢ‖²  subject to  Σᵢ Gᵢfᵢ = w_des,  fᵢ ∈ 𝒦ᵢ.
//!
//! Two solvers:
//!
//! - [`min_norm_distribution`] drops the cones: f = G⁺w_des (the chapter's pseudo-inverse solution with
//!   no internal force f₀). Each contact is then checked against its exact cone and the check reported
//!   ([`ConeCheck`]); the chapter warns (pitfall 5) that this solution can leave the cones.
//!   [`internal_force_projector`] gives I − G⁺G, whose range is the internal forces (G f₀ = 0).
//! - [`min_norm_distribution_in_cones`] keeps the exact circular cones and solves the problem through
//!   its six-dimensional dual. For a multiplier ν ∈ ℝ⁶ the Lagrangian ½‖f‖² − νᵀ(Gf − w) is minimised
//!   over the cones by fᵢ = Π_𝒦ᵢ(Gᵢᵀν) (projection onto the second-order cone,
//!   [`crate::friction::project_onto_circular_cone`]), so the dual is the concave, once differentiable
//!   problem max_ν g(ν) = νᵀw − ½Σᵢ‖Π_𝒦ᵢ(Gᵢᵀν)‖² with ∇g = w − Σᵢ Gᵢfᵢ. It is maximised by a semismooth
//!   Newton method: step H⁻¹∇g with H = Σᵢ GᵢJᵢGᵢᵀ (+ a tiny ridge), Jᵢ the generalised Jacobian of the
//!   projection, and an Armijo backtracking line search on g. It starts from the unconstrained
//!   solution's multiplier (GGᵀ)⁺w, so a pseudo-inverse solution already inside the cones is returned
//!   after one check. At the optimum Gf = w and every fᵢ is in its cone by construction; when w_des is
//!   outside the contact wrench cone the dual is unbounded and the solver reports
//!   [`Error::WrenchNotReached`].

use nalgebra::{DMatrix, DVector, Matrix6, Vector3, Vector6};

use crate::error::{Error, Result};
use crate::friction::project_onto_circular_cone_with_jacobian;
use crate::grasp::{grasp_matrix, ContactPoint};
use crate::wrench::Wrench;

/// One contact force against its exact friction cone ‖fₜ‖ ≤ μfₙ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConeCheck {
    /// fₙ, N (negative = pulling).
    pub normal_force: f64,
    /// ‖fₜ‖, N.
    pub tangential_force: f64,
    /// ‖fₜ‖/(μfₙ): at most 1 inside the cone; ∞ when μfₙ ≤ 0 and fₜ ≠ 0.
    pub utilisation: f64,
    /// fₙ ≥ 0 and ‖fₜ‖ ≤ μfₙ, up to a relative 1e-9.
    pub inside: bool,
}

impl ConeCheck {
    /// Check a force given in contact coordinates (t₁, t₂, n).
    pub fn of(force: &Vector3<f64>, mu: f64) -> Self {
        let (normal_force, tangential_force) = (force.z, force.x.hypot(force.y));
        let limit = mu * normal_force;
        let slack = 1e-9 * force.norm();
        let utilisation = if limit > 0.0 {
            tangential_force / limit
        } else if tangential_force == 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
        Self {
            normal_force,
            tangential_force,
            utilisation,
            inside: normal_force >= -slack && tangential_force <= limit + slack,
        }
    }
}

/// A distribution of contact forces.
#[derive(Debug, Clone, PartialEq)]
pub struct ForceDistribution {
    /// fᵢ in contact coordinates (t₁, t₂, n), N, one per contact.
    pub forces: Vec<Vector3<f64>>,
    /// ‖Gf − w_des‖ (Euclidean over N and N·m).
    pub wrench_residual: f64,
    /// Each force against its exact cone.
    pub cone_checks: Vec<ConeCheck>,
    /// Newton iterations (0 for the pseudo-inverse solution).
    pub iterations: usize,
}

impl ForceDistribution {
    /// Are all forces inside their cones?
    pub fn all_inside(&self) -> bool {
        self.cone_checks.iter().all(|c| c.inside)
    }

    /// √(Σ‖fᵢ‖²), N.
    pub fn norm(&self) -> f64 {
        self.forces.iter().map(|f| f.norm_squared()).sum::<f64>().sqrt()
    }

    /// The forces in world coordinates.
    pub fn world_forces(&self, contacts: &[ContactPoint]) -> Vec<Vector3<f64>> {
        self.forces
            .iter()
            .zip(contacts)
            .map(|(f, c)| c.frame.to_world(f))
            .collect()
    }
}

fn pseudo_inverse(m: DMatrix<f64>) -> Result<DMatrix<f64>> {
    let scale = m.iter().fold(0.0_f64, |s, v| s.max(v.abs()));
    let eps = 1e-12 * scale.max(f64::MIN_POSITIVE);
    m.try_svd(true, true, f64::EPSILON, 1000)
        .ok_or(Error::LinearAlgebra {
            what: "singular value decomposition did not converge",
        })?
        .pseudo_inverse(eps)
        .map_err(|_| Error::LinearAlgebra { what: "pseudo-inverse" })
}

fn check_inputs(contacts: &[ContactPoint], desired: &Wrench, reference: &Vector3<f64>) -> Result<()> {
    if contacts.is_empty() {
        return Err(Error::Empty { what: "contact list" });
    }
    crate::error::check_finite("desired wrench", desired.to_vector().as_slice())?;
    crate::error::check_finite("reference point", reference.as_slice())
}

fn distribution(
    contacts: &[ContactPoint],
    g: &DMatrix<f64>,
    f: &DVector<f64>,
    w: &Vector6<f64>,
    iterations: usize,
) -> ForceDistribution {
    let forces: Vec<Vector3<f64>> = f.as_slice().chunks_exact(3).map(Vector3::from_column_slice).collect();
    let residual = g * f - DVector::from_column_slice(w.as_slice());
    let cone_checks = forces
        .iter()
        .zip(contacts)
        .map(|(f, c)| ConeCheck::of(f, c.mu))
        .collect();
    ForceDistribution {
        forces,
        wrench_residual: residual.norm(),
        cone_checks,
        iterations,
    }
}

/// Minimum-norm forces ignoring the cones: f = G⁺w_des (module docs). `desired` is about `reference`.
pub fn min_norm_distribution(
    contacts: &[ContactPoint],
    desired: &Wrench,
    reference: &Vector3<f64>,
) -> Result<ForceDistribution> {
    check_inputs(contacts, desired, reference)?;
    let g = grasp_matrix(contacts, reference);
    let w = desired.to_vector();
    let f = pseudo_inverse(g.clone())? * DVector::from_column_slice(w.as_slice());
    Ok(distribution(contacts, &g, &f, &w, 0))
}

/// I − G⁺G (3n × 3n): projects any stacked force f₀ onto the internal forces, G(I − G⁺G)f₀ = 0.
pub fn internal_force_projector(contacts: &[ContactPoint], reference: &Vector3<f64>) -> Result<DMatrix<f64>> {
    let g = grasp_matrix(contacts, reference);
    let n = g.ncols();
    Ok(DMatrix::identity(n, n) - pseudo_inverse(g.clone())? * g)
}

/// Options of [`min_norm_distribution_in_cones`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConeDistributionOptions {
    /// Stop when ‖Gf − w‖ ≤ tolerance·max(‖w‖, 1 N). Default 1e-10.
    pub tolerance: f64,
    /// Newton iteration cap. Default 100.
    pub max_iterations: usize,
}

impl Default for ConeDistributionOptions {
    fn default() -> Self {
        Self {
            tolerance: 1e-10,
            max_iterations: 100,
        }
    }
}

/// Forces and per-contact Jacobian blocks of the dual at ν: fᵢ = Π(Gᵢᵀν), H = Σ GᵢJᵢGᵢᵀ, g(ν).
struct DualPoint {
    f: DVector<f64>,
    gradient: Vector6<f64>,
    hessian: Matrix6<f64>,
    value: f64,
}

fn dual_at(contacts: &[ContactPoint], g: &DMatrix<f64>, w: &Vector6<f64>, nu: &Vector6<f64>) -> DualPoint {
    let mut f = DVector::zeros(3 * contacts.len());
    let mut hessian = Matrix6::zeros();
    for (i, contact) in contacts.iter().enumerate() {
        let gi = g.fixed_view::<6, 3>(0, 3 * i);
        let (fi, ji) = project_onto_circular_cone_with_jacobian(&(gi.transpose() * nu), contact.mu);
        f.fixed_rows_mut::<3>(3 * i).copy_from(&fi);
        hessian += gi * ji * gi.transpose();
    }
    let gf = g * &f;
    let gradient = w - Vector6::from_column_slice(gf.as_slice());
    let value = nu.dot(w) - 0.5 * f.norm_squared();
    DualPoint {
        f,
        gradient,
        hessian,
        value,
    }
}

/// Minimum-norm forces inside the exact friction cones, by semismooth Newton on the dual (module docs).
/// `desired` is about `reference`.
pub fn min_norm_distribution_in_cones(
    contacts: &[ContactPoint],
    desired: &Wrench,
    reference: &Vector3<f64>,
    options: &ConeDistributionOptions,
) -> Result<ForceDistribution> {
    check_inputs(contacts, desired, reference)?;
    if !(options.tolerance.is_finite() && options.tolerance > 0.0) {
        return Err(Error::InvalidOption {
            name: "tolerance",
            value: options.tolerance,
            expected: "a finite number > 0",
        });
    }
    let g = grasp_matrix(contacts, reference);
    let w = desired.to_vector();
    let target = options.tolerance * w.norm().max(1.0);
    let ggt = &g * g.transpose();
    let ridge = 1e-12 * ggt.trace().max(f64::MIN_POSITIVE) / 6.0;

    // Start from the multiplier of the unconstrained minimum-norm solution.
    let start = pseudo_inverse(ggt)? * DVector::from_column_slice(w.as_slice());
    let mut nu = Vector6::from_column_slice(start.as_slice());
    let mut point = dual_at(contacts, &g, &w, &nu);
    for iteration in 0..=options.max_iterations {
        if point.gradient.norm() <= target {
            return Ok(distribution(contacts, &g, &point.f, &w, iteration));
        }
        if iteration == options.max_iterations {
            break;
        }
        let regularised = point.hessian + Matrix6::identity() * ridge;
        let mut step = regularised
            .cholesky()
            .map(|c| c.solve(&point.gradient))
            .unwrap_or(point.gradient);
        let newton_slope = point.gradient.dot(&step);
        if newton_slope.is_nan() || newton_slope <= 0.0 {
            step = point.gradient;
        }
        let slope = point.gradient.dot(&step);
        let mut t = 1.0;
        let next = loop {
            let trial = dual_at(contacts, &g, &w, &(nu + step * t));
            if trial.value >= point.value + 1e-4 * t * slope || t < 1e-12 {
                break trial;
            }
            t *= 0.5;
        };
        nu += step * t;
        point = next;
    }
    Err(Error::WrenchNotReached {
        iterations: options.max_iterations,
        residual: point.gradient.norm(),
    })
}
