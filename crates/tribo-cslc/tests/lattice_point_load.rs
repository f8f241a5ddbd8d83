//! The paper's experiment 1 (`docs/design/lattice-model.md` §6.1): a 15×15 flat lattice under a point
//! load. The normal deflection far from the load follows the 2-D screened-Poisson Green's function
//! `A K0(r/ℓ)` with `ℓ = h √(k_ℓ/k_a)`.
//!
//! Load: a rigid sphere indenter of radius `0.2 h` pressed on the centre sphere; it touches only
//! that sphere (its neighbours are `h` away laterally, farther than `0.2 h + r`), so the lattice
//! sees a single point force.
//!
//! Fit: [`tribo_cslc::fit_decay_length`], the same fit the `decay_length` metric runs (`K0` of
//! the source plus its mirror images across the four free edges, over the spheres two cells
//! outside the contact); the fitted `ℓ` is checked against the analytic `h √(k_ℓ/k_a)`.

mod common;

use nalgebra::{Isometry3, Translation3};
use tribo_cslc::{fit_decay_length, Posed, Sphere, Target};

const N: usize = 15;
const H: f64 = 1e-3;

/// The decay length the fit finds in the lattice's deflection under the indenter.
fn decay_length(ratio: f64) -> f64 {
    let params = common::params().with_lateral_ratio(ratio, H);
    let mut pad = common::flat_pad(N, N as f64 * H, params);
    let indenter_radius = 0.2 * H;
    let depth = 0.2 * H;
    let indenter = Posed::new(
        Sphere {
            radius: indenter_radius,
        },
        Isometry3::from(Translation3::new(0.0, 0.0, indenter_radius - depth)),
    );
    let targets: [&dyn Target; 1] = [&indenter];
    let result = common::step(&mut pad, &targets, 0.0);
    assert!(result.converged, "{:?}", result.warning);
    let touching = result.touching.iter().filter(|s| s.normal_force > 0.0).count();
    assert_eq!(touching, 1, "the indenter must load a single sphere");
    let spheres = pad.lattice().spheres();
    let positions: Vec<[f64; 2]> = spheres.iter().map(|s| [s.rest_position.x, s.rest_position.y]).collect();
    let deflections: Vec<f64> = spheres
        .iter()
        .zip(pad.displacements())
        .map(|(s, d)| -s.normal.dot(d))
        .collect();
    fit_decay_length(H, &positions, &deflections, &result.normal_forces(spheres.len()))
        .expect("a decay length (the error says why not)")
}

#[test]
fn deformation_decays_with_the_screened_poisson_length() {
    for ratio in [1.0, 4.0, 9.0] {
        let expected = H * f64::sqrt(ratio);
        let fitted = decay_length(ratio);
        let error = (fitted - expected).abs() / expected;
        println!(
            "k_l/k_a = {ratio}: decay_length = {:.4} h, expected {:.4} h",
            fitted / H,
            expected / H
        );
        assert!(
            error < 0.15,
            "k_l/k_a = {ratio}: fitted ℓ = {fitted:e}, expected {expected:e} (error {error:.3})"
        );
    }
}
