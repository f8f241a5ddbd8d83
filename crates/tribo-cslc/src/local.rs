//! The local 3×3 Newton step of one sphere in a Jacobi sweep (`docs/design/lattice-model.md` §4).
//!
//! All vectors are in the pad frame. With the neighbours frozen at the previous iterate, sphere
//! `i` must satisfy
//! `−K δ + b + f_n(δ) m + f_f = 0`, where
//! `K = K_a (ρ I + (1 − ρ) n nᵀ) + L I` (anchor, `docs/design/lattice-model.md` §3.1, plus the diagonal
//! of the lateral coupling, `L = Σ_j K_ℓ`), `b = K_ℓ Σ_j δ_j` (§3.2), `f_n = k_c a φ^{3/2}` along the
//! target normal `m` (§3.3) and `f_f` the pre-sliding friction (§3.4). The target surface is linearised
//! at the current iterate, `φ(δ) = φ_k − m·(δ − δ_k)`, and the Hertz law is then solved exactly
//! along the sphere's path (`hertz_equilibrium`); its tangent `H = 1.5 k_c a φ^{1/2}` only
//! measures the residual.
//!
//! Friction, the "workable reading" of §3.4: a touching sphere sticks to the target surface, its
//! tangential displacement pinned at `t* = P_m u` (`u` = last step's displacement carried by the
//! relative surface motion); the friction force is the tangential reaction holding it there. If it
//! exceeds the stick limit `μ_lim f_n`, the sphere slides: the force is returned to the sliding
//! cone, `f_f = μ_d f_n d` along the trial direction `d`, and the displacement follows from
//! equilibrium (return mapping, Simo & Hughes, *Computational Inelasticity*, 1998, §2.2 (1-D
//! frictional return) and Wriggers, *Computational Contact Mechanics*, 2006, §5.2.2).
//!
//! Static and dynamic friction (two coefficients): a sphere that stuck in the previous step has
//! the stick limit `μ_lim = μ_s` (the saturation of its stick springs); once it slides its limit
//! is `μ_lim = μ_d`, so it keeps sliding at `μ_d f_n` until it sticks again: its stick reaction
//! falls within `μ_d f_n`, or its slip over the step falls below the slip speed
//! (`solver.rs`, `SLIP_SPEED`). With `μ_d ≤ μ_s` a sphere breaks loose at `μ_s f_n` and slides
//! at `μ_d f_n`. The limit is the sphere's state from the previous step (fixed during the sweeps).

use nalgebra::{Matrix3, Vector3};

/// A sphere's contact at the current iterate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contact {
    /// Index of the touched target.
    pub target: usize,
    /// Penetration `φ > 0`, m.
    pub penetration: f64,
    /// Target outward normal `m` in the pad frame.
    pub normal: Vector3<f64>,
}

/// Anchor plus lateral diagonal `K` of sphere `i`.
pub(crate) fn local_stiffness(normal: &Vector3<f64>, anchor: f64, ratio: f64, lateral_sum: f64) -> Matrix3<f64> {
    Matrix3::identity() * (anchor * ratio + lateral_sum) + normal * normal.transpose() * (anchor * (1.0 - ratio))
}

/// Hertz force and its tangent: `(k_c a φ^{3/2}, 1.5 k_c a φ^{1/2})`.
pub(crate) fn hertz(contact_coefficient: f64, penetration: f64) -> (f64, f64) {
    let phi = penetration.max(0.0);
    let root = phi.sqrt();
    (contact_coefficient * phi * root, 1.5 * contact_coefficient * root)
}

/// Inputs of one local step.
pub(crate) struct LocalProblem<'a> {
    pub stiffness: &'a Matrix3<f64>,
    /// `K⁻¹` (constant per sphere, computed once).
    pub compliance: &'a Matrix3<f64>,
    pub neighbour_pull: Vector3<f64>,
    pub delta: Vector3<f64>,
    pub stick_anchor: Vector3<f64>,
    pub contact: Option<Contact>,
    /// `k_c · a_i`, N/m^{1.5}.
    pub contact_coefficient: f64,
    /// Stick limit `μ_lim` (module docs): `μ_s` after a sticking step, `μ_d` after a sliding one.
    pub stick_limit: f64,
    /// Sliding friction `μ_d`.
    pub slide_friction: f64,
}

/// Result of one local step: the undamped new displacement, the force residual at the current
/// iterate `|J (δ_new − δ_k)|` (the unbalanced force the Newton step removes), and the normal
/// force `f_0` at the current iterate.
pub(crate) struct LocalStep {
    pub delta: Vector3<f64>,
    pub residual: f64,
    pub normal_force: f64,
}

/// `K⁻¹` of an SPD local stiffness (identity if it is not SPD, which `local_stiffness` rules out).
pub(crate) fn local_compliance(k: &Matrix3<f64>) -> Matrix3<f64> {
    k.cholesky().map_or_else(Matrix3::identity, |c| c.inverse())
}

/// The normal force `f ≥ 0` with `f = C (U₀ − β f)₊^{3/2}`: the Hertz law at the penetration
/// `u = U₀ − β f` left when the sphere, moving linearly with its own normal force
/// (`δ(f) = δ₀ + f w`, `β = m·w > 0`), backs away from the target. In `u`,
/// `h(u) = u + β C u^{3/2} − U₀ = 0` is increasing and convex on `[0, U₀]` with `h(0) < 0 ≤ h(U₀)`,
/// so Newton's method started at `u = U₀` converges monotonically (no overshoot into separation,
/// which a single linearised Hertz step suffers at first touch).
fn hertz_equilibrium(coefficient: f64, reach: f64, beta: f64) -> f64 {
    if reach <= 0.0 || coefficient <= 0.0 {
        return 0.0;
    }
    let bc = beta.max(0.0) * coefficient;
    let mut u = reach;
    for _ in 0..60 {
        let root = u.sqrt();
        let h = u + bc * u * root - reach;
        let slope = 1.0 + 1.5 * bc * root;
        let next = (u - h / slope).max(0.0);
        if (u - next).abs() <= 1e-14 * reach {
            u = next;
            break;
        }
        u = next;
    }
    coefficient * u * u.sqrt()
}

pub(crate) fn local_step(p: &LocalProblem) -> LocalStep {
    let k = p.stiffness;
    let b = p.neighbour_pull;
    let free = p.compliance * b;
    let Some(c) = p.contact else {
        return LocalStep {
            delta: free,
            residual: (b - k * p.delta).norm(),
            normal_force: 0.0,
        };
    };
    let m = c.normal;
    let (f0, tangent) = hertz(p.contact_coefficient, c.penetration);
    let jacobian = k + m * m.transpose() * tangent;
    // Penetration as the sphere moves: φ(δ) = φ_k − m·(δ − δ_k) (exact for a plane).
    let reach_at = |delta0: &Vector3<f64>| c.penetration - m.dot(&(delta0 - p.delta));
    // Stick: δ = t* + s m with m·(b − K δ) + f = 0, i.e. δ(f) = δ₀ + f m/κ.
    let t_star = p.stick_anchor - m * m.dot(&p.stick_anchor);
    let kappa = m.dot(&(k * m));
    let stick0 = t_star + m * (m.dot(&(b - k * t_star)) / kappa);
    let stick_w = m / kappa;
    let fn_stick = hertz_equilibrium(p.contact_coefficient, reach_at(&stick0), m.dot(&stick_w));
    let mut new = free;
    if fn_stick > 0.0 {
        let stick = stick0 + stick_w * fn_stick;
        new = stick;
        let trial = k * stick - b;
        let trial_t = trial - m * m.dot(&trial);
        let magnitude = trial_t.norm();
        if magnitude > p.stick_limit * fn_stick {
            // Slide: K δ = b + f (m + μ_d d), d the trial friction direction (return mapping).
            let g = m + trial_t * (p.slide_friction / magnitude);
            let (slide0, slide_w) = (free, p.compliance * g);
            let fn_slide = hertz_equilibrium(p.contact_coefficient, reach_at(&slide0), m.dot(&slide_w));
            new = if fn_slide > 0.0 {
                slide0 + slide_w * fn_slide
            } else {
                free
            };
        }
    }
    LocalStep {
        delta: new,
        residual: (jacobian * (new - p.delta)).norm(),
        normal_force: f0,
    }
}
