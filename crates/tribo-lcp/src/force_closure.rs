//! Force closure (`docs/design/contact-mechanics.md` §4.3.1): can the contacts resist every external
//! wrench?
//!
//! The chapter's test is rank(G) = 6 and 0 ∈ int(ConvexHull(G𝒦)). With the friction cones replaced by
//! their inscribed m-edge pyramids, G𝒦 is the cone spanned by the primitive wrenches wⱼ = Gᵢdᵢₖ
//! ([`crate::grasp::primitive_wrenches`]), and for a finite set of vectors
//!
//! 0 ∈ int(conv{wⱼ}) ⇔ {wⱼ} positively spans ℝ⁶ ⇔ rank[wⱼ] = 6 and Σⱼ cⱼwⱼ = 0 for some c > 0
//!
//! (if c > 0 exists, any wrench x = Σ aⱼwⱼ becomes a non-negative combination by adding a multiple of c;
//! conversely, writing −Σwⱼ as a non-negative combination gives such a c with cⱼ ≥ 1). So the test
//! needs no linear program:
//!
//! 1. rank: the singular values of W = [wⱼ], counted above `rank_tolerance`·σ_max;
//! 2. strictly positive null combination: by scale invariance look for c = 1 + y with y ≥ 0, i.e. the
//!    non-negative least-squares problem min ½‖W(1 + y)‖² over y ≥ 0, whose optimality conditions are the
//!    LCP 0 ≤ y ⊥ WᵀW y + WᵀW1 ≥ 0 (positive semidefinite, so Lemke's method solves it). The grasp is
//!    force-closed when the minimum is zero: ‖Wc‖ ≤ `residual_tolerance`·σ_max‖c‖.
//!
//! Torques are taken about the contacts' centroid and divided by their RMS distance from it, so that
//! both tolerances compare commensurate numbers; an invertible change of wrench coordinates does not
//! change whether a set positively spans ℝ⁶.
//!
//! Because the pyramids are inscribed, a grasp found force-closed here is force-closed with the exact
//! cones too; with very few edges a closed grasp can be missed.

use nalgebra::{DMatrix, DVector, Vector3};

use crate::error::{Error, Result};
use crate::grasp::{primitive_wrenches, ContactPoint};
use crate::lcp::Lcp;
use crate::lemke::{solve_lemke, LemkeOptions};

/// Options of [`force_closure`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForceClosureOptions {
    /// m, edges of each pyramid (≥ 3). Default 8.
    pub edges: usize,
    /// Relative threshold on singular values for the rank. Default 1e-9.
    pub rank_tolerance: f64,
    /// Relative threshold on ‖Wc‖/(σ_max‖c‖) for "Σcⱼwⱼ = 0". Default 1e-9.
    pub residual_tolerance: f64,
    /// Options of the Lemke solve of the non-negative least-squares problem.
    pub lemke: LemkeOptions,
}

impl Default for ForceClosureOptions {
    fn default() -> Self {
        Self {
            edges: 8,
            rank_tolerance: 1e-9,
            residual_tolerance: 1e-9,
            lemke: LemkeOptions::default(),
        }
    }
}

/// The evidence behind a force-closure verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct ForceClosureReport {
    /// Rank of the primitive wrenches (≤ 6).
    pub rank: usize,
    /// Number of primitive wrenches (contacts × edges).
    pub primitive_count: usize,
    /// The combination c ≥ 1 that best cancels the primitive wrenches (None when the rank is below 6).
    pub combination: Option<DVector<f64>>,
    /// ‖Wc‖/(σ_max‖c‖) of that combination (∞ when the rank is below 6).
    pub combination_residual: f64,
    /// The verdict: rank 6 and a strictly positive combination equal to zero.
    pub force_closure: bool,
}

/// Decide force closure of point contacts with friction (module docs).
pub fn force_closure(contacts: &[ContactPoint], options: &ForceClosureOptions) -> Result<ForceClosureReport> {
    if contacts.is_empty() {
        return Err(Error::Empty { what: "contact list" });
    }
    if options.edges < 3 {
        return Err(Error::TooFewEdges {
            contact: 0,
            edges: options.edges,
        });
    }
    let w = scaled_primitive_wrenches(contacts, options.edges);
    let primitive_count = w.ncols();

    let svd = w
        .clone()
        .try_svd(false, false, f64::EPSILON, 1000)
        .ok_or(Error::LinearAlgebra {
            what: "singular value decomposition did not converge",
        })?;
    let sigma: Vec<f64> = svd.singular_values.iter().copied().collect();
    let sigma_max = sigma.iter().copied().fold(0.0_f64, f64::max);
    let rank = sigma
        .iter()
        .filter(|&&s| s > options.rank_tolerance * sigma_max)
        .count();
    if rank < 6 || sigma_max == 0.0 {
        return Ok(ForceClosureReport {
            rank,
            primitive_count,
            combination: None,
            combination_residual: f64::INFINITY,
            force_closure: false,
        });
    }

    // min ½‖W(1 + y)‖², y ≥ 0  ⇔  0 ≤ y ⊥ WᵀW y + WᵀW 1 ≥ 0.
    let gram = w.transpose() * &w;
    let ones = DVector::from_element(primitive_count, 1.0);
    let q = &gram * &ones;
    let solution = solve_lemke(&Lcp::new(gram, q)?, &options.lemke)?;
    let c = solution.z + ones;
    let combination_residual = (&w * &c).norm() / (sigma_max * c.norm());
    Ok(ForceClosureReport {
        rank,
        primitive_count,
        force_closure: combination_residual <= options.residual_tolerance,
        combination: Some(c),
        combination_residual,
    })
}

/// The primitive wrenches used by [`force_closure`], about the contacts' centroid with torques divided
/// by the RMS contact distance (exposed for plots and diagnostics).
pub fn scaled_primitive_wrenches(contacts: &[ContactPoint], edges: usize) -> DMatrix<f64> {
    if contacts.is_empty() {
        return DMatrix::zeros(6, 0);
    }
    let count = contacts.len() as f64;
    let centroid = contacts.iter().map(|c| c.position).sum::<Vector3<f64>>() / count;
    let rms = (contacts
        .iter()
        .map(|c| (c.position - centroid).norm_squared())
        .sum::<f64>()
        / count)
        .sqrt();
    let length = if rms > 0.0 { rms } else { 1.0 };
    let mut w = primitive_wrenches(contacts, edges, &centroid);
    for mut column in w.column_iter_mut() {
        for row in 3..6 {
            column[row] /= length;
        }
    }
    w
}
