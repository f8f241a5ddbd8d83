//! The local 3×3 Newton step of one sphere in a Jacobi sweep (`cslc.md` §4).
//!
//! All vectors are in the pad frame. With the neighbours frozen at the previous iterate, sphere
//! `i` must satisfy
//! `−K δ + b + f_n(δ) m + f_f = 0`, where
//! `K = K_a (ρ I + (1 − ρ) n nᵀ) + L I` (anchor, `cslc.md` §3.1, plus the diagonal of the lateral
//! coupling, `L = Σ_j K_ℓ`), `b = K_ℓ Σ_j δ_j` (§3.2), `f_n = k_c a φ^{3/2}` along the target
//! normal `m` (§3.3) and `f_f` the pre-sliding friction (§3.4). The Hertz force is linearised at
//! the current iterate: `f_n(δ) ≈ f_0 − H m·(δ − δ_k)`, `H = 1.5 k_c a φ^{1/2}` (`φ` decreases
//! by `m·dδ`).
//!
//! Friction, the "workable reading" of §3.4: a touching sphere sticks to the target surface, its
//! tangential displacement pinned at `t* = P_m u` (`u` = last step's displacement carried by the
//! relative surface motion); the friction force is the tangential reaction holding it there. If it
//! exceeds `μ f_n`, the sphere slides: the force is returned to the cone, `f_f = μ f_n d` along
//! the trial direction `d`, and the displacement follows from equilibrium (return mapping).

use nalgebra::{Matrix3, Vector3};

/// A sphere's contact at the current iterate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Contact {
    /// Index of the touched target.
    pub target: usize,
    /// Penetration `φ > 0` [m].
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
    pub neighbour_pull: Vector3<f64>,
    pub delta: Vector3<f64>,
    pub stick_anchor: Vector3<f64>,
    pub contact: Option<Contact>,
    /// `k_c · a_i` [N/m^{1.5}].
    pub contact_coefficient: f64,
    pub friction: f64,
}

/// Result of one local step: the undamped new displacement, the force residual at the current
/// iterate `|J (δ_new − δ_k)|` (the unbalanced force the Newton step removes), and the normal
/// force `f_0` at the current iterate.
pub(crate) struct LocalStep {
    pub delta: Vector3<f64>,
    pub residual: f64,
    pub normal_force: f64,
}

fn solve_spd(k: &Matrix3<f64>, rhs: &Vector3<f64>) -> Option<Vector3<f64>> {
    k.cholesky().map(|c| c.solve(rhs))
}

pub(crate) fn local_step(p: &LocalProblem) -> LocalStep {
    let k = p.stiffness;
    let b = p.neighbour_pull;
    let free = solve_spd(k, &b).unwrap_or(p.delta);
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
    let along = m.dot(&p.delta);
    // Stick: δ = t* + s m.
    let t_star = p.stick_anchor - m * m.dot(&p.stick_anchor);
    let s = (m.dot(&(b - k * t_star)) + f0 + tangent * along) / (m.dot(&(k * m)) + tangent);
    let stick = t_star + m * s;
    let normal_at = |d: &Vector3<f64>| f0 - tangent * (m.dot(d) - along);
    let mut new = stick;
    let fn_stick = normal_at(&stick);
    if fn_stick <= 0.0 {
        new = free;
    } else {
        let trial = k * stick - b;
        let trial_t = trial - m * m.dot(&trial);
        let magnitude = trial_t.norm();
        if magnitude > p.friction * fn_stick {
            // Slide: f_f = μ f_n d, solve (K + H g mᵀ) δ = b + (f_0 + H m·δ_k) g with g = m + μ d.
            let g = m + trial_t * (p.friction / magnitude);
            let a = k + g * m.transpose() * tangent;
            let rhs = b + g * (f0 + tangent * along);
            new = a.lu().solve(&rhs).unwrap_or(stick);
            if normal_at(&new) <= 0.0 {
                new = free;
            }
        }
    }
    LocalStep {
        delta: new,
        residual: (jacobian * (new - p.delta)).norm(),
        normal_force: f0,
    }
}
