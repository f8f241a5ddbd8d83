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

/// `M v` for a 3×3 `M`: row `r` is `(M_r0 v_0 + M_r1 v_1) + M_r2 v_2`, the sum in the order of
/// nalgebra's `Matrix3 * Vector3` (`gemv`: the first column's products, then each further
/// column's added), so the result is bit-identical to it. Written out because the generic product
/// is not unrolled in [`local_step`], which takes up to four of them per touching sphere and
/// sweep.
#[inline(always)]
pub(crate) fn mul3(m: &Matrix3<f64>, v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(
        m.m11 * v.x + m.m12 * v.y + m.m13 * v.z,
        m.m21 * v.x + m.m22 * v.y + m.m23 * v.z,
        m.m31 * v.x + m.m32 * v.y + m.m33 * v.z,
    )
}

/// Anchor plus lateral diagonal `K` of sphere `i`.
pub(crate) fn local_stiffness(normal: &Vector3<f64>, anchor: f64, ratio: f64, lateral_sum: f64) -> Matrix3<f64> {
    Matrix3::identity() * (anchor * ratio + lateral_sum) + normal * normal.transpose() * (anchor * (1.0 - ratio))
}

/// Hertz force and its tangent: `(k_c a φ^{3/2}, 1.5 k_c a φ^{1/2})`.
pub(crate) fn hertz(contact_coefficient: f64, penetration: f64) -> (f64, f64) {
    let (force, tangent, _) = hertz_with_root(contact_coefficient, penetration);
    (force, tangent)
}

/// [`hertz`] and `√φ` (`φ = max(penetration, 0)`).
fn hertz_with_root(contact_coefficient: f64, penetration: f64) -> (f64, f64, f64) {
    let phi = penetration.max(0.0);
    let root = phi.sqrt();
    (contact_coefficient * phi * root, 1.5 * contact_coefficient * root, root)
}

/// The terms of a touching sphere's stick and slide solutions that depend only on its stiffness,
/// the target normal `m` and the stick anchor: all three are fixed over a step's sweeps (the
/// surface is linearised once per step, the anchor is carried from the last step), so the terms
/// are computed at most once per sphere and step rather than in every sweep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StickTerms {
    /// `t* = u − m (m·u)`, the anchor's tangential part.
    pub anchor: Vector3<f64>,
    /// `K t*`.
    pub k_anchor: Vector3<f64>,
    /// `K m`.
    pub k_normal: Vector3<f64>,
    /// `1/κ`, `κ = m·K m > 0`: the sweeps multiply by it instead of dividing by `κ`.
    pub inverse_kappa: f64,
    /// `m·K t*`.
    pub normal_k_anchor: f64,
    /// `K⁻¹ m`.
    pub c_normal: Vector3<f64>,
}

impl StickTerms {
    /// The terms for stiffness `k` (compliance `c = K⁻¹`), unit normal `m` and stick anchor `u`.
    pub fn new(k: &Matrix3<f64>, c: &Matrix3<f64>, m: &Vector3<f64>, u: &Vector3<f64>) -> StickTerms {
        let anchor = u - m * m.dot(u);
        let k_normal = mul3(k, m);
        let k_anchor = mul3(k, &anchor);
        StickTerms {
            anchor,
            k_anchor,
            k_normal,
            inverse_kappa: 1.0 / m.dot(&k_normal),
            normal_k_anchor: m.dot(&k_anchor),
            c_normal: mul3(c, m),
        }
    }
}

/// Inputs of one local step.
pub(crate) struct LocalProblem<'a> {
    pub stiffness: &'a Matrix3<f64>,
    /// `K⁻¹` (constant per sphere, computed once).
    pub compliance: &'a Matrix3<f64>,
    pub neighbour_pull: Vector3<f64>,
    pub delta: Vector3<f64>,
    /// The contact at the current iterate with the stick terms of its normal.
    pub contact: Option<(Contact, &'a StickTerms)>,
    /// `k_c · a_i`, N/m^{1.5}.
    pub contact_coefficient: f64,
    /// Stick limit `μ_lim` (module docs): `μ_s` after a sticking step, `μ_d` after a sliding one.
    pub stick_limit: f64,
    /// Sliding friction `μ_d`.
    pub slide_friction: f64,
}

/// Result of one local step: the undamped new displacement, the square of the force residual at
/// the current iterate `|J (δ_new − δ_k)|` (the unbalanced force the Newton step removes), and
/// the normal force `f_0` at the current iterate.
///
/// The residual is left squared: a sweep takes the square roots of its visits' residuals
/// together, after the visits, so that no visit waits on its root (`|r| = √|r|²`, nalgebra's
/// `norm`, bit for bit).
pub(crate) struct LocalStep {
    pub delta: Vector3<f64>,
    pub residual_squared: f64,
    pub normal_force: f64,
}

/// `K⁻¹` of an SPD local stiffness (identity if it is not SPD, which `local_stiffness` rules out).
pub(crate) fn local_compliance(k: &Matrix3<f64>) -> Matrix3<f64> {
    k.cholesky().map_or_else(Matrix3::identity, |c| c.inverse())
}

/// Relative Newton step after which `hertz_equilibrium` stops. Newton's error obeys
/// `e' ≤ e² g''/(2 g') ≤ e²/s` for the cubic (`g''/(2g') = (3βCs + 1)/(s (3βCs + 2)) < 1/s`), and a
/// step `Δs ≥ e/2` once `e ≤ s/2`, so after a step `|Δs| ≤ 3.5e-8 s` the error is at most
/// `4 Δs²/s ≤ 4.9e-15 s`: `u = s²` to 1e-14, the accuracy the extra confirming step gave before.
const CONVERGED_STEP: f64 = 3.5e-8;

/// Relative Halley step after which `hertz_equilibrium` stops: Halley's error obeys
/// `e' ≤ (g''²/(4g'²) + g'''/(6g')) e³ ≤ (4/3) e³/s²` for the cubic (`g''/g' < 2/s`,
/// `g'''/(6g') = βC/((3βCs + 2) s) < 1/(3s²)`), so after a step `|Δs| ≤ 1e-5 s` the error is at
/// most `1.4e-15 s`, as after Newton's [`CONVERGED_STEP`].
const HALLEY_STEP: f64 = 1e-5;

/// The normal force `f ≥ 0` with `f = C (U₀ − β f)₊^{3/2}`: the Hertz law at the penetration
/// `u = U₀ − β f` left when the sphere, moving linearly with its own normal force
/// (`δ(f) = δ₀ + f w`, `β = m·w > 0`), backs away from the target. In `u`,
/// `u + β C u^{3/2} − U₀ = 0`; with `s = √u` this is the cubic `g(s) = β C s³ + s² − U₀ = 0`,
/// increasing and convex for `s > 0` with `g(√U₀) = β C U₀^{3/2} ≥ 0`, so Newton's method started
/// at `s = √U₀` decreases monotonically to the root (no overshoot into separation, which a single
/// linearised Hertz step suffers at first touch) and needs no square root per iteration. Started
/// left of the root instead, one Newton step of a convex increasing `g` lands right of it (capped
/// at `√U₀`, itself right of the root), and the iteration decreases monotonically from there: the
/// start is `√min(U₀, φ_k)`, `φ_k > 0` the sphere's penetration at the current iterate, which the
/// root approaches as the sweeps settle. Near the root — once Halley's step
/// `2 g g' / (2 g'² − g g'')` is within a tenth of Newton's, `|g g''| ≤ g'²/5` — the iteration
/// takes Halley's step instead: cubically convergent for the same one division (Traub,
/// *Iterative Methods for the Solution of Equations*, 1964; Gander, *On Halley's iteration
/// method*, Amer. Math. Monthly 92, 1985), it lands within `(4/3) Δs³/s²` of the root, on either
/// side, and `s` stays above `0.77 s` of the step before. With the stopping tests
/// of [`CONVERGED_STEP`] and [`HALLEY_STEP`] that is 1.11 iterations per call on gentle-grasp and
/// 1.15 on the walker, against Newton's steps alone 1.39 and 1.64. The force is `C s³`.
///
/// `current_root` is `√φ_k`, which the caller has from the Hertz force at the current iterate.
fn hertz_equilibrium(coefficient: f64, reach: f64, beta: f64, current: f64, current_root: f64) -> f64 {
    if reach <= 0.0 || coefficient <= 0.0 {
        return 0.0;
    }
    let bc = beta.max(0.0) * coefficient;
    // The cap `√U₀`, taken when an iterate first passes `s`'s start: the start is at most the
    // cap (`√φ_k ≤ √U₀` for `φ_k < U₀`, the root being monotonic), so an iterate below it needs
    // no test against the cap, and most never pass it (a start right of the root decreases).
    let (mut s, mut upper) = if current > 0.0 && current < reach {
        (current_root, None)
    } else {
        let upper = reach.sqrt();
        (upper, Some(upper))
    };
    let start = s;
    for _ in 0..60 {
        let g = (bc * s + 1.0) * s * s - reach;
        let slope = (3.0 * bc * s + 2.0) * s;
        let bend = g * (6.0 * bc * s + 2.0);
        let square = slope * slope;
        // Halley's step `2 g g' / (2 g'² − g g'')` once it is within a tenth of Newton's
        // (`|g g''| ≤ g'²/5`, near the root), else Newton's `g / g'`: one division either way.
        let (step, converged_step) = if bend.abs() <= 0.2 * square {
            (2.0 * g * slope / (2.0 * square - bend), HALLEY_STEP)
        } else {
            (g / slope, CONVERGED_STEP)
        };
        // `(s − step).clamp(0, √U₀)`, test for test (a `−0` and a NaN kept as they are).
        let next = s - step;
        s = if next <= start {
            if next < 0.0 {
                0.0
            } else {
                next
            }
        } else {
            let cap = *upper.get_or_insert_with(|| reach.sqrt());
            if next > cap {
                cap
            } else {
                next
            }
        };
        if step.abs() <= converged_step * s {
            break;
        }
    }
    coefficient * s * s * s
}

/// The local step of [`LocalProblem`] `p` (module docs). Always inlined: called from the
/// red-black sweeps' `local_step_of` and from the condensed sweeps, it was otherwise left out of
/// line in both, and the walker's step ran 12 % slower.
#[inline(always)]
pub(crate) fn local_step(p: &LocalProblem) -> LocalStep {
    let k = p.stiffness;
    let b = p.neighbour_pull;
    // The step without contact, `K⁻¹ b`: the answer of a free sphere, and of a touching one that
    // separates or slides; a sticking sphere does not need it.
    let free = || mul3(p.compliance, &b);
    let Some((c, terms)) = p.contact else {
        return LocalStep {
            delta: free(),
            residual_squared: (b - mul3(k, &p.delta)).norm_squared(),
            normal_force: 0.0,
        };
    };
    let m = c.normal;
    let (f0, tangent, root) = hertz_with_root(p.contact_coefficient, c.penetration);
    // Penetration as the sphere moves: φ(δ) = φ_k − m·(δ − δ_k) (exact for a plane).
    let reach_at = |delta0: &Vector3<f64>| c.penetration - m.dot(&(delta0 - p.delta));
    // Stick: δ = t* + σ m with m·(b − K δ) + f = 0, i.e. σ(f) = σ₀ + f/κ,
    // σ₀ = m·(b − K t*)/κ (`StickTerms` holds t*, K t*, K m and κ).
    // Divisions by κ are products with 1/κ, taken once per step (`StickTerms`).
    let sigma0 = (m.dot(&b) - terms.normal_k_anchor) * terms.inverse_kappa;
    let stick0 = terms.anchor + m * sigma0;
    let fn_stick = hertz_equilibrium(
        p.contact_coefficient,
        reach_at(&stick0),
        terms.inverse_kappa,
        c.penetration,
        root,
    );
    let new = if fn_stick > 0.0 {
        let sigma = sigma0 + fn_stick * terms.inverse_kappa;
        // K δ − b at the stick solution: K t* + σ K m − b.
        let trial = terms.k_anchor + terms.k_normal * sigma - b;
        let trial_t = trial - m * m.dot(&trial);
        // |t| > μ f compared squared: the root is taken only for a sphere that slides.
        let limit = p.stick_limit * fn_stick;
        if trial_t.norm_squared() > limit * limit {
            let magnitude = trial_t.norm();
            // Slide: K δ = b + f (m + μ_d d), d the trial friction direction (return mapping):
            // δ(f) = K⁻¹ b + f w, w = K⁻¹ m + (μ_d/|t|) K⁻¹ t.
            let free = free();
            let slide_w = terms.c_normal + mul3(p.compliance, &trial_t) * (p.slide_friction / magnitude);
            let fn_slide = hertz_equilibrium(
                p.contact_coefficient,
                reach_at(&free),
                m.dot(&slide_w),
                c.penetration,
                root,
            );
            if fn_slide > 0.0 {
                free + slide_w * fn_slide
            } else {
                free
            }
        } else {
            terms.anchor + m * sigma
        }
    } else {
        free()
    };
    // The Newton jacobian J = K + H m mᵀ applied to the step.
    let step = new - p.delta;
    LocalStep {
        delta: new,
        residual_squared: (mul3(k, &step) + m * (tangent * m.dot(&step))).norm_squared(),
        normal_force: f0,
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Matrix3, Vector3};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::{hertz_equilibrium, mul3};

    /// An entry of every kind the sum order or a zero's sign could tell apart: signed zeros,
    /// subnormals, infinities, and finite values of wildly different magnitudes.
    fn entry(rng: &mut ChaCha8Rng) -> f64 {
        match rng.random_range(0..10) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::MIN_POSITIVE * rng.random_range(-1.0..1.0),
            3 => f64::INFINITY * if rng.random_bool(0.5) { 1.0 } else { -1.0 },
            _ => rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-20..20)),
        }
    }

    /// The root of `g(s) = β C s³ + s² − U₀` by bisection on `[0, √U₀]`, to the last bit.
    fn root_by_bisection(coefficient: f64, reach: f64, beta: f64) -> f64 {
        let (mut low, mut high) = (0.0f64, reach.sqrt());
        for _ in 0..200 {
            let mid = 0.5 * (low + high);
            if mid <= low || mid >= high {
                break;
            }
            if (beta * coefficient * mid + 1.0) * mid * mid - reach > 0.0 {
                high = mid;
            } else {
                low = mid;
            }
        }
        0.5 * (low + high)
    }

    /// The Hertz equilibrium (Newton's steps far from the root, Halley's near it) against
    /// bisection, from every kind of start the sweeps give it — at rest (`φ_k = 0`), beyond the
    /// reach, and from either side of the root, near and far — over six decades of skin
    /// stiffness and penetration: the force to 1e-13 relative (`u = s²` to ~1e-14, the stopping
    /// tests' bound), never negative.
    #[test]
    fn hertz_equilibrium_matches_bisection_from_any_start() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..20_000 {
            let coefficient = 10f64.powf(rng.random_range(5.0..11.0));
            let reach = 10f64.powf(rng.random_range(-9.0..-3.0));
            let beta = 10f64.powf(rng.random_range(-7.0..-1.0));
            let root = root_by_bisection(coefficient, reach, beta);
            let expected = coefficient * root * root * root;
            let near = root * root * (1.0 + rng.random_range(-1e-3..1e-3));
            for current in [0.0, 2.0 * reach, 0.25 * root * root, near, 0.5 * (root * root + reach)] {
                let got = hertz_equilibrium(coefficient, reach, beta, current, current.max(0.0).sqrt());
                assert!(got >= 0.0, "negative force {got}");
                assert!(
                    (got - expected).abs() <= 1e-13 * expected,
                    "C {coefficient:e}, U₀ {reach:e}, β {beta:e}, φ_k {current:e}: {got:e} against {expected:e}"
                );
            }
        }
    }

    #[test]
    fn mul3_is_bit_identical_to_the_nalgebra_product() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20_000 {
            let m = Matrix3::from_fn(|_, _| entry(&mut rng));
            let v = Vector3::from_fn(|_, _| entry(&mut rng));
            let expected = m * v;
            let got = mul3(&m, &v);
            for (g, e) in got.iter().zip(expected.iter()) {
                assert!(
                    g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()),
                    "{m} · {v}: {got} against {expected}"
                );
            }
        }
    }
}
