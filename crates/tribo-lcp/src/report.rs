//! What a solve reports, and the two error measures every solver is judged by.
//!
//! **Residual** (natural map, unit step): r(λ) = ‖λ − Π(λ − w)‖∞ with w = Aλ + b and Π the projection
//! onto the feasible set. For the LCP Π = max(0, ·) componentwise, so rᵢ = |min(λᵢ, wᵢ)|. For a contact,
//! the normal row is the same and the tangential pair uses the projection onto F(μλₙ) at the contact's
//! current λₙ. r = 0 exactly at a solution. It mixes units (N·s and m/s), as any natural map does;
//! near a solution it is dominated by the velocity error, so a tolerance of 1e-8 reads as 1e-8 m/s.
//!
//! **Complementarity error**: for the LCP, maxᵢ |λᵢ wᵢ| (N·m = J per row; the chapter's tolerance
//! fₙ·δₙ ≤ ε_comp, `docs/design/contact-mechanics.md` pitfall 2). For a contact, the larger of |λₙ wₙ|
//! and the dissipation gap |h_F(−wₜ) + wₜᵀλₜ|, where h_F is the support function of F(μλₙ): the gap is
//! zero exactly when λₜ dissipates the most energy the friction set allows (maximum dissipation, §4.2.1).

use nalgebra::DVector;

use crate::contact::{ContactProblem, NORMAL, TANGENT_1, TANGENT_2};
use crate::delassus::DelassusRows;

/// Outcome of a solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveReport {
    /// Sweeps (projected Gauss–Seidel) or pivots (Lemke) done.
    pub iterations: usize,
    /// Natural-map residual ‖λ − Π(λ − w)‖∞ at the returned λ (see the module docs).
    pub residual: f64,
    /// Complementarity error at the returned λ (see the module docs).
    pub complementarity: f64,
    /// Did the residual reach the requested tolerance? (Lemke: always true when it returns a solution.)
    pub converged: bool,
    /// Projected Gauss–Seidel stopped before its cap because its sweeps had stalled: the residual
    /// no longer changed from sweep to sweep (`crate::pgs`, *Termination*). Never set together with
    /// `converged`; the residual is the one left at the stop.
    pub stalled: bool,
}

impl SolveReport {
    /// The report of a solve with no contacts: nothing to iterate, exact.
    pub const NOTHING_TO_SOLVE: SolveReport = SolveReport {
        iterations: 0,
        residual: 0.0,
        complementarity: 0.0,
        converged: true,
        stalled: false,
    };

    /// The report of a solve that ended after `iterations` with these errors at its λ: converged
    /// when the residual is within `tolerance`, not stalled.
    pub fn ended(iterations: usize, residual: f64, complementarity: f64, tolerance: f64) -> SolveReport {
        SolveReport {
            iterations,
            residual,
            complementarity,
            converged: residual <= tolerance,
            stalled: false,
        }
    }
}

/// The worst [`contact_errors`] over contacts, each given as its friction, its λ and its
/// velocity `w = Aλ + b` (both in the contact's frame, normal first): (residual,
/// complementarity).
pub(crate) fn worst_contact_errors<'a>(
    contacts: impl Iterator<Item = (&'a crate::ContactFriction, [f64; 3], [f64; 3])>,
) -> (f64, f64) {
    let (mut residual, mut complementarity) = (0.0_f64, 0.0_f64);
    for (friction, lambda, velocity) in contacts {
        let (r, c) = contact_errors(lambda, velocity, friction.mu, friction.model);
        residual = worst(residual, r);
        complementarity = worst(complementarity, c);
    }
    (residual, complementarity)
}

/// Residual and complementarity error of λ for the LCP 0 ≤ λ ⊥ w ≥ 0, given w = Aλ + b.
pub fn lcp_errors(lambda: &[f64], w: &[f64]) -> (f64, f64) {
    lambda.iter().zip(w).fold((0.0_f64, 0.0_f64), |(res, comp), (&l, &w)| {
        // `f64::min` would drop a NaN; `l * w` keeps it, and `worst` turns it into ∞.
        let natural = if l.is_nan() || w.is_nan() {
            f64::NAN
        } else {
            l.min(w).abs()
        };
        (worst(res, natural), worst(comp, (l * w).abs()))
    })
}

/// The larger of two error measures, with NaN counting as infinitely bad (`f64::max` would drop it).
pub(crate) fn worst(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::INFINITY
    } else {
        a.max(b)
    }
}

/// Residual and complementarity error of one contact's block, given its λ and v = Aλ + b.
pub fn contact_errors(lambda: [f64; 3], velocity: [f64; 3], mu: f64, model: crate::FrictionModel) -> (f64, f64) {
    if lambda.iter().chain(&velocity).any(|v| v.is_nan()) {
        return (f64::INFINITY, f64::INFINITY);
    }
    let (ln, wn) = (lambda[NORMAL], velocity[NORMAL]);
    let lt = [lambda[TANGENT_1], lambda[TANGENT_2]];
    let wt = [velocity[TANGENT_1], velocity[TANGENT_2]];
    let radius = mu * ln.max(0.0);
    let projected = model.project([lt[0] - wt[0], lt[1] - wt[1]], radius);
    let residual = worst(
        worst(ln.min(wn).abs(), (lt[0] - projected[0]).abs()),
        (lt[1] - projected[1]).abs(),
    );
    let gap = model.support([-wt[0], -wt[1]], radius) + wt[0] * lt[0] + wt[1] * lt[1];
    (residual, worst((ln * wn).abs(), gap.abs()))
}

/// The report of an LCP solution λ (computes w = Aλ + b once).
pub fn lcp_report<D: DelassusRows + ?Sized>(
    a: &D,
    b: &DVector<f64>,
    lambda: &DVector<f64>,
    iterations: usize,
    tolerance: f64,
) -> SolveReport {
    let mut w = DVector::zeros(b.len());
    a.multiply(lambda.as_slice(), w.as_mut_slice());
    w += b;
    let (residual, complementarity) = lcp_errors(lambda.as_slice(), w.as_slice());
    SolveReport::ended(iterations, residual, complementarity, tolerance)
}

/// The report of a contact solution λ (computes v = Aλ + b once).
pub fn contact_report<D: DelassusRows>(
    problem: &ContactProblem<D>,
    lambda: &DVector<f64>,
    iterations: usize,
    tolerance: f64,
) -> SolveReport {
    let mut v = DVector::zeros(problem.free_velocity.len());
    problem.delassus.multiply(lambda.as_slice(), v.as_mut_slice());
    v += &problem.free_velocity;
    let contacts = problem
        .contacts
        .iter()
        .zip(lambda.as_slice().chunks_exact(3))
        .zip(v.as_slice().chunks_exact(3))
        .map(|((friction, l), w)| (friction, [l[0], l[1], l[2]], [w[0], w[1], w[2]]));
    let (residual, complementarity) = worst_contact_errors(contacts);
    SolveReport::ended(iterations, residual, complementarity, tolerance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FrictionModel;

    #[test]
    fn lcp_measures_by_hand() {
        // λ = (1, 0), w = (0.5, −0.2): rows give |min(1, 0.5)| = 0.5 and |min(0, −0.2)| = 0.2;
        // products 0.5 and 0.
        assert_eq!(lcp_errors(&[1.0, 0.0], &[0.5, -0.2]), (0.5, 0.5));
        assert_eq!(lcp_errors(&[0.0, 2.0], &[3.0, 0.0]), (0.0, 0.0));
        assert_eq!(lcp_errors(&[f64::NAN], &[1.0]).0, f64::INFINITY);
    }

    #[test]
    fn contact_measures_by_hand() {
        // Sticking inside the cone with no slip: a solution.
        assert_eq!(
            contact_errors([2.0, 0.3, -0.4], [0.0, 0.0, 0.0], 0.5, FrictionModel::Cone),
            (0.0, 0.0)
        );
        // Sliding along +t₁ at 0.1 m/s with friction at the limit against it: a solution.
        let (r, c) = contact_errors([2.0, -1.0, 0.0], [0.0, 0.1, 0.0], 0.5, FrictionModel::Cone);
        assert!(r < 1e-15 && c < 1e-15, "{r} {c}");
        // Friction pushing along the slip: gap h(−w) + wᵀλ = 0.5·2·0.1 + 0.1·1 = 0.2; the natural map moves
        // λₜ₁ from 1 to Π(1 − 0.1) = 0.9, residual 0.1.
        let (r, c) = contact_errors([2.0, 1.0, 0.0], [0.0, 0.1, 0.0], 0.5, FrictionModel::Cone);
        assert!((r - 0.1).abs() < 1e-15 && (c - 0.2).abs() < 1e-15, "{r} {c}");
    }
}
