//! The paper's experiment 1 (`docs/design/lattice-model.md` §6.1): a 15×15 flat lattice under a point
//! load. The normal deflection far from the load follows the 2-D screened-Poisson Green's function
//! `A K0(r/ℓ)` with `ℓ = h √(k_ℓ/k_a)`.
//!
//! Load: a rigid sphere indenter of radius `0.2 h` pressed on the centre sphere; it touches only
//! that sphere (its neighbours are `h` away laterally, farther than `0.2 h + r`), so the lattice
//! sees a single point force.
//!
//! Fit: `ln δ_n(x) = ln A + ln G(x; ℓ)` by least squares over every sphere with
//! `2h ≤ r ≤ 5h` (beyond the discrete near field of the load, inside the lattice), where `G`
//! is `K0` of the source plus its mirror images across the four free edges (method of images:
//! a free edge of the lattice is a Neumann boundary half a cell outside the last sphere). `A` is
//! solved in closed form for each `ℓ`, and `ℓ` by golden-section search.

mod common;

use nalgebra::{Isometry3, Point2, Translation3};
use tribo_cslc::{bessel_k0, Posed, Sphere, Target};

const N: usize = 15;
const H: f64 = 1e-3;

fn green(x: &Point2<f64>, ell: f64) -> f64 {
    let edge = N as f64 * H; // distance between mirror planes ±7.5h
    let mut sum = 0.0;
    for ix in -1..=1 {
        for iy in -1..=1 {
            let source = Point2::new(ix as f64 * edge, iy as f64 * edge);
            sum += bessel_k0((x - source).norm() / ell);
        }
    }
    sum
}

fn misfit(samples: &[(Point2<f64>, f64)], ell: f64) -> f64 {
    let residuals: Vec<f64> = samples.iter().map(|(x, d)| d.ln() - green(x, ell).ln()).collect();
    let mean = residuals.iter().sum::<f64>() / residuals.len() as f64;
    residuals.iter().map(|r| (r - mean).powi(2)).sum()
}

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
    let touching = result.normal_forces.iter().filter(|f| **f > 0.0).count();
    assert_eq!(touching, 1, "the indenter must load a single sphere");
    let samples: Vec<(Point2<f64>, f64)> = pad
        .lattice()
        .spheres()
        .iter()
        .zip(pad.displacements())
        .filter_map(|(s, d)| {
            let x = Point2::new(s.rest_position.x, s.rest_position.y);
            let r = x.coords.norm();
            let deflection = -s.normal.dot(d);
            ((2.0 * H - 1e-12..=5.0 * H + 1e-12).contains(&r) && deflection > 0.0).then_some((x, deflection))
        })
        .collect();
    assert!(samples.len() > 40);
    // Golden-section search on ℓ ∈ [0.2h, 10h].
    let (mut a, mut b) = (0.2 * H, 10.0 * H);
    let g = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..100 {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if misfit(&samples, c) < misfit(&samples, d) {
            b = d;
        } else {
            a = c;
        }
    }
    0.5 * (a + b)
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
