//! Chebyshev acceleration (`docs/design/lattice-model.md` §4, "improve the conditioning") changes the
//! path, not the answer: both sweeps iterate the same local Newton map `δ ↦ δ̂(δ)`, whose fixed point
//! is the equilibrium; damped Jacobi takes `δ + ω (δ̂ − δ)` and Chebyshev a three-term recurrence with
//! the same fixed point (Golub & Van Loan §11.2.8).
//!
//! Agreement bound: at a relative force residual `r` the distance to the fixed point is about
//! `r / (1 − ρ_J)` in relative terms, `ρ_J` the block-Jacobi spectral radius (≤ 0.97 for these
//! pads: lateral/anchor ratio (ℓ/h)² = 4 and 16/16.5 for 4 neighbours). Solving to `r ≤ 1e-12`
//! leaves ≲ 3e-11 per solution, so displacements and total force must agree to `1e-6` relative
//! (the bound asked for) with a wide margin.
//!
//! Chebyshev's asymptotic rate is `1 − √(2(1 − ρ_J))`-ish versus `1 − ω (1 − ρ_J)` for damped
//! Jacobi, so it must need fewer iterations.

mod common;

use nalgebra::{Isometry3, Translation3};
use tribo_cslc::{Acceleration, CslcPad, CslcParams, Lattice, PadGeometry, PatchResult, Posed, Sphere, Target};

const AGREEMENT: f64 = 1e-6;

fn params(acceleration: Acceleration) -> CslcParams {
    CslcParams {
        acceleration,
        tolerance: 1e-12,
        max_iterations: 200_000,
        ..CslcParams::default()
    }
}

fn solve(
    lattice: &Lattice,
    acceleration: Acceleration,
    targets: &[&dyn Target],
    friction: f64,
) -> (PatchResult, CslcPad) {
    let mut pad = CslcPad::new(lattice.clone(), params(acceleration)).expect("pad");
    let result = common::step(&mut pad, targets, friction);
    assert!(result.converged, "{acceleration:?}: {:?}", result.warning);
    (result, pad)
}

/// `(max_i |δ_a − δ_b| / max_i |δ_a|, |F_a − F_b| / |F_a|)`.
fn gaps(a: &(PatchResult, CslcPad), b: &(PatchResult, CslcPad)) -> (f64, f64) {
    let scale = a.1.displacements().iter().map(|d| d.norm()).fold(0.0, f64::max);
    assert!(scale > 0.0);
    let worst =
        a.1.displacements()
            .iter()
            .zip(b.1.displacements())
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max);
    (
        worst / scale,
        (a.0.total_force - b.0.total_force).norm() / a.0.total_force.norm(),
    )
}

fn compare(name: &str, lattice: &Lattice, targets: &[&dyn Target], friction: f64) {
    let jacobi = solve(lattice, Acceleration::DampedJacobi, targets, friction);
    let chebyshev = solve(lattice, Acceleration::Chebyshev, targets, friction);
    // Red-black SOR iterates the same local map (Gauss–Seidel order), so it shares the fixed point.
    let red_black = solve(lattice, Acceleration::RedBlackSor, targets, friction);
    // The condensed solve (a flat pad's; a dome sweeps red-black) solves the same equations over
    // the touching spheres' forces (`tests/condensed.rs`).
    let condensed = solve(lattice, Acceleration::Condensed, targets, friction);
    let (displacement_gap, force_gap) = gaps(&jacobi, &chebyshev);
    let (rb_displacement_gap, rb_force_gap) = gaps(&jacobi, &red_black);
    let (c_displacement_gap, c_force_gap) = gaps(&jacobi, &condensed);
    println!(
        "{name} (μ = {friction}): damped Jacobi {} iterations, Chebyshev {} iterations (red-black SOR {}); \
         |F| = {:.6} N, {} spheres touching; Chebyshev vs Jacobi: max |Δδ| / max |δ| = {displacement_gap:.1e}, \
         |ΔF| / |F| = {force_gap:.1e} (red-black: {rb_displacement_gap:.1e}, {rb_force_gap:.1e}; condensed \
         {c_displacement_gap:.1e}, {c_force_gap:.1e})",
        jacobi.0.iterations,
        chebyshev.0.iterations,
        red_black.0.iterations,
        jacobi.0.total_force.norm(),
        jacobi.0.touching.iter().filter(|s| s.normal_force > 0.0).count(),
    );
    for (what, gap) in [
        ("Chebyshev displacements", displacement_gap),
        ("Chebyshev total force", force_gap),
        ("red-black displacements", rb_displacement_gap),
        ("red-black total force", rb_force_gap),
        ("condensed displacements", c_displacement_gap),
        ("condensed total force", c_force_gap),
    ] {
        assert!(
            gap <= AGREEMENT,
            "{name}: {what} differ from damped Jacobi's by {gap:e} (relative)"
        );
    }
    assert!(
        chebyshev.0.iterations < jacobi.0.iterations,
        "{name}: Chebyshev took {} iterations, damped Jacobi {}",
        chebyshev.0.iterations,
        jacobi.0.iterations
    );
}

#[test]
fn flat_pad_under_a_sphere_indenter() {
    let lattice = PadGeometry::flat(20, 20, 1e-3).build().expect("lattice");
    let ball = Posed::new(
        Sphere { radius: 0.05 },
        Isometry3::from(Translation3::new(0.002, -0.001, 0.05 - 2e-4)),
    );
    let targets: [&dyn Target; 1] = [&ball];
    for friction in [0.0, 0.5] {
        compare("flat 20×20 under a sphere", &lattice, &targets, friction);
    }
}

#[test]
fn dome_pad_on_a_plane() {
    let lattice = PadGeometry::dome(0.02, 0.6, 20).build().expect("lattice");
    let plane = common::plane_above(4e-4);
    let targets: [&dyn Target; 1] = [&plane];
    for friction in [0.0, 0.5] {
        compare(
            "dome R = 20 mm, α = 0.6, n = 20, on a plane",
            &lattice,
            &targets,
            friction,
        );
    }
}
