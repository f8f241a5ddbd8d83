//! Contact recycling (`recycle.rs`) against querying every pair every step: a pile whose cubes
//! drop onto each other, land and settle ends where it ends without recycling. The kept points
//! are stale by at most the recycling distance ε = 1e-5 m (the module's bound); the landing
//! queries every step (the cubes move faster than ε per step), the settled pile reuses its points.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_engine::Scene;
use tribo_model::Geometry;
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 2e-3;
/// The default recycling distance, m: the bound on how stale a reused point may be.
const EPSILON: f64 = 1e-5;
const EDGE: f64 = 0.1;
/// Gap under every cube at release, m: each lands at about √(2 g · 2 mm) = 0.2 m/s.
const DROP: f64 = 0.002;

/// 3 × 3 columns of three cubes, each yawed 15° and released `DROP` above what it lands on.
fn dropped_pile() -> std::sync::Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let mut bodies = vec![ground(0.0, &table)];
    for k in 0..3 {
        for j in 0..3 {
            for i in 0..3 {
                let cube = solid(
                    "box",
                    Geometry::Box {
                        size: Vector3::repeat(EDGE),
                    },
                    1.0,
                    "Thing",
                );
                let at = Translation3::new(
                    (i as f64 - 1.0) * 0.15,
                    (j as f64 - 1.0) * 0.15,
                    EDGE / 2.0 + k as f64 * EDGE + (k + 1) as f64 * DROP,
                );
                let yaw = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 15f64.to_radians());
                bodies.push(place(
                    &format!("box_{i}_{j}_{k}"),
                    cube,
                    Isometry3::from_parts(at, yaw),
                    false,
                    &table,
                ));
            }
        }
    }
    scene(bodies, table)
}

/// Every cube's position after `steps` steps with the given options.
fn positions(scene: &std::sync::Arc<Scene>, options: &str, steps: usize) -> Vec<Vector3<f64>> {
    let mut sim = engine_with(&PgsFactory, scene, options);
    run(sim.as_mut(), scene, DT, steps, |_| {});
    (1..scene.bodies.len()).map(|b| root_position(sim.state(), b)).collect()
}

#[test]
fn a_landing_pile_ends_where_it_ends_without_recycling() {
    let scene = dropped_pile();
    let recycled = positions(&scene, "{}", 500);
    let queried = positions(&scene, "contact_recycling_distance: 0", 500);
    let mut worst: f64 = 0.0;
    for (cube, (a, b)) in recycled.iter().zip(&queried).enumerate() {
        let apart = (a - b).norm();
        worst = worst.max(apart);
        assert!(
            apart <= EPSILON,
            "cube {cube}: {a} with recycling, {b} without ({apart} m apart)"
        );
    }
    eprintln!("largest difference: {worst:e} m");
    // The top layer (the last nine cubes; the pile is listed layer by layer) rests at 0.25 m
    // (three cubes of 0.1 m; the contact slop is 1e-4 m).
    for (cube, p) in recycled.iter().enumerate().skip(2 * 9) {
        assert!((p.z - 0.25).abs() < 5e-4, "top cube {cube} at {}", p.z);
    }
}
