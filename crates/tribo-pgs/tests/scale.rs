//! Ill-scaled but valid bodies: far from the world origin, or very heavy next to light. pgs used
//! to call both "massless" (a singular mass matrix): the spatial algebra about the world origin
//! lost ε |p|² of every rotational inertia, and the pivot test was relative to the largest
//! diagonal entry of the whole mass matrix.

use std::sync::Arc;

use nalgebra::{Isometry3, Vector3};
use tribo_engine::Scene;
use tribo_engine::SceneState;
use tribo_model::{Geometry, JointKind};
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;

/// Semi-implicit Euler from rest: after N steps of h, `z₀ − z = g h² N (N + 1) / 2`, which is
/// ½ g t² (t = N h) plus the scheme's first-order term ½ g h t.
fn euler_drop(steps: usize) -> f64 {
    let n = steps as f64;
    G * DT * DT * n * (n + 1.0) / 2.0
}

fn ball_at(position: Vector3<f64>) -> Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let ball = solid("ball", Geometry::Sphere { radius: 0.1 }, 1.0, "Thing");
    scene(
        vec![place(
            "ball",
            ball,
            Isometry3::translation(position.x, position.y, position.z),
            false,
            &table,
        )],
        table,
    )
}

fn final_state(scene: &Arc<Scene>, steps: usize) -> SceneState {
    let mut sim = engine(&PgsFactory, scene);
    run(sim.as_mut(), scene, DT, steps, |_| {});
    sim.state().clone()
}

#[test]
fn a_ball_ten_thousand_kilometres_out_falls_like_one_at_the_origin() {
    // 100 steps = 0.1 s of free fall. At 1e7 m an f64 coordinate is spaced 1.86e-9 m (2⁻²⁹ m), so
    // each of the 100 position updates may round by that much: the tolerance is 1e-6 m, far above
    // 100 × 1.86e-9 and far below the 0.049 m drop.
    let steps = 100;
    let start = Vector3::new(1e7, -1e7, 1e7);
    let state = final_state(&ball_at(start), steps);
    let position = root_position(&state, 0);
    let drop = start.z - position.z;
    assert!((drop - euler_drop(steps)).abs() < 1e-6, "fell {drop} m");
    let t = steps as f64 * DT;
    // ½ g t² = 0.04905 m, up to the scheme's ½ g h t = 4.9e-4 m (and the rounding above).
    assert!(
        (drop - 0.5 * G * t * t).abs() <= 0.5 * G * DT * t + 1e-6,
        "fell {drop} m"
    );
    assert!((position.xy() - start.xy()).norm() < 1e-6, "drifted to {position:?}");
    // The same fall at the origin, for comparison: identical to the rounding of the far one.
    let near = root_position(&final_state(&ball_at(Vector3::new(0.0, 0.0, 10.0)), steps), 0);
    assert!(((10.0 - near.z) - drop).abs() < 1e-6, "{} vs {drop}", 10.0 - near.z);
}

/// A 1e12 kg box (1 m cube) on the ground carrying a 0.1 kg arm on a hinge about +y through the
/// top face's centre, its mass 0.2 m out along +x (a point mass with a small solid-sphere inertia).
/// `fixed`: the base is welded to the world instead of resting on the ground.
fn heavy_base_with_light_arm(fixed: bool) -> Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let cube = Geometry::Box {
        size: Vector3::repeat(1.0),
    };
    let base = with_shape(
        link(
            "base",
            None,
            joint(JointKind::Free, "base", Vector3::z()),
            Isometry3::identity(),
            1e12,
            "Thing",
        ),
        cube,
    );
    let mut arm = link(
        "arm",
        Some(0),
        joint(JointKind::Revolute, "hinge", Vector3::y()),
        Isometry3::translation(0.0, 0.0, 0.5),
        0.1,
        "Thing",
    );
    arm.center_of_mass = Vector3::new(0.2, 0.0, 0.0);
    arm.inertia = Geometry::Sphere { radius: 0.01 }.solid_inertia(0.1);
    scene(
        vec![
            ground(0.0, &table),
            place(
                "robot",
                body("robot", vec![base, arm]),
                Isometry3::translation(0.0, 0.0, 0.5),
                fixed,
                &table,
            ),
        ],
        table,
    )
}

#[test]
fn a_light_arm_on_a_1e12_kg_base_swings_as_on_a_fixed_one() {
    // The arm's hinge inertia (4e-3 kg·m²) is 1e-14 of the base's mass-matrix entries: the old
    // pivot test (1e-14 × the largest diagonal) called it massless. Released horizontal, the arm
    // falls for 0.2 s; the base's recoil is 1e-13 of the arm's motion, so the hinge angle must
    // match the welded-base run to 1e-9 rad, and the base must stay on the ground.
    let steps = 200;
    let free = final_state(&heavy_base_with_light_arm(false), steps);
    let welded = final_state(&heavy_base_with_light_arm(true), steps);
    let angle = free.bodies[1].joint_positions[1];
    let reference = welded.bodies[1].joint_positions[1];
    assert!(reference > 0.5, "the arm fell by {reference} rad");
    assert!((angle - reference).abs() < 1e-9, "{angle} vs {reference}");
    let base = root_position(&free, 1);
    assert!((base - Vector3::new(0.0, 0.0, 0.5)).norm() < 1e-6, "base at {base:?}");
}
