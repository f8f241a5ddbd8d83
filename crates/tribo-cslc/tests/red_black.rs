//! Red-black SOR reaches the same equilibrium as Jacobi/Chebyshev in fewer sweeps, on a flat pad
//! under a sphere indenter (a few spheres in contact, the rest pulled by the lateral springs) and
//! on a dome pressed on a plane; and it is thread-count independent.

mod common;

use common::{flat_pad, params, plane_above, step};
use nalgebra::{Isometry3, Vector3};
use tribo_cslc::{Acceleration, CslcParams, PadGeometry, Posed, Sphere, Target};

fn with(acceleration: Acceleration, lateral_length: f64) -> CslcParams {
    CslcParams {
        acceleration,
        lateral_length,
        tolerance: 1e-10,
        ..params()
    }
}

/// A sphere of radius 5 mm pressing 0.2 mm into the centre of a 15 × 15 pad (2 mm spacing).
fn indenter() -> Posed<Sphere> {
    Posed::new(Sphere { radius: 0.005 }, Isometry3::translation(0.0, 0.0, 0.005 - 2e-4))
}

#[test]
fn red_black_matches_chebyshev_on_an_indented_flat_pad_in_fewer_sweeps() {
    for ratio_length in [0.002, 0.004, 0.006] {
        let target = indenter();
        let targets: [&dyn Target; 1] = [&target];
        let mut reference = flat_pad(15, 0.03, with(Acceleration::Chebyshev, ratio_length));
        let mut red_black = flat_pad(15, 0.03, with(Acceleration::RedBlackSor, ratio_length));
        let a = step(&mut reference, &targets, 0.5);
        let b = step(&mut red_black, &targets, 0.5);
        assert!(a.converged && b.converged, "{:?} {:?}", a.warning, b.warning);
        println!(
            "ℓ = {ratio_length}: Chebyshev {} sweeps, red-black SOR {} sweeps, force {} N vs {} N",
            a.iterations, b.iterations, a.total_force.z, b.total_force.z
        );
        // Same fixed point: total force to 1e-6 relative, every displacement to 1e-6 of the peak.
        assert!((a.total_force - b.total_force).norm() <= 1e-6 * a.total_force.norm());
        let peak = reference.displacements().iter().map(|d| d.norm()).fold(0.0, f64::max);
        for (x, y) in reference.displacements().iter().zip(red_black.displacements()) {
            assert!((x - y).norm() <= 1e-6 * peak, "{x} vs {y}");
        }
        assert!(
            b.iterations < a.iterations,
            "red-black {} ≥ Chebyshev {}",
            b.iterations,
            a.iterations
        );
    }
}

#[test]
fn red_black_matches_jacobi_on_a_dome_against_a_plane() {
    let lattice = || {
        PadGeometry::dome_with_base_radius(0.015, 0.01, 12)
            .build()
            .expect("dome")
    };
    let plane = plane_above(3e-4);
    let targets: [&dyn Target; 1] = [&plane];
    let mut jacobi = tribo_cslc::CslcPad::new(lattice(), with(Acceleration::DampedJacobi, 0.002)).expect("pad");
    let mut red_black = tribo_cslc::CslcPad::new(lattice(), with(Acceleration::RedBlackSor, 0.002)).expect("pad");
    let a = step(&mut jacobi, &targets, 0.5);
    let b = step(&mut red_black, &targets, 0.5);
    println!(
        "dome: damped Jacobi {} sweeps, red-black SOR {} sweeps",
        a.iterations, b.iterations
    );
    assert!(a.converged && b.converged);
    assert!((a.total_force - b.total_force).norm() <= 1e-6 * a.total_force.norm());
    assert!(b.iterations < a.iterations);
}

#[test]
fn red_black_is_thread_count_independent() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let target = indenter();
            let targets: [&dyn Target; 1] = [&target];
            let mut pad = flat_pad(50, 0.1, with(Acceleration::RedBlackSor, 0.002));
            let r = step(&mut pad, &targets, 0.5);
            (r.total_force, pad.displacements().to_vec())
        })
    };
    let one = run(1);
    let two = run(2);
    assert_eq!(one.0, two.0);
    assert!(one.1.iter().zip(&two.1).all(|(a, b)| a == b));
    assert!(one.0.norm() > 0.0 && Vector3::z().dot(&one.0).abs() > 0.0);
}
