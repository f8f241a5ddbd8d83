//! Thread-count independence and fast-impact reporting.

mod common;

use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_cslc::{PatchResult, Posed, Sphere, StepInput, Target, Twist};

fn run() -> (PatchResult, Vec<Vector3<f64>>) {
    let ball = Posed::new(
        Sphere { radius: 0.03 },
        Isometry3::from(Translation3::new(0.002, -0.001, 0.03 - 5e-5)),
    );
    let targets: [&dyn Target; 1] = [&ball];
    let mut pad = common::flat_pad(15, 0.02, common::params());
    let mut last = common::step(&mut pad, &targets, 0.5);
    for _ in 0..3 {
        let input = StepInput {
            pad_pose: Isometry3::identity(),
            pad_twist: Twist {
                linear: Vector3::new(0.02, 0.0, 0.0),
                angular: Vector3::new(0.0, 0.0, 1.0),
            },
            targets: &targets,
            friction: 0.5,
            dynamic_friction: 0.5,
            dt: 1e-3,
        };
        last = pad.step(&input).expect("step");
    }
    (last, pad.displacements().to_vec())
}

#[test]
fn results_are_bit_identical_across_thread_counts() {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool")
        .install(run);
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool")
        .install(run);
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
    assert!(one.0.total_force.norm() > 0.0);
}

#[test]
fn a_fast_impact_is_reported() {
    let mut pad = common::flat_pad(10, 0.02, common::params());
    let radius = pad.lattice().spheres()[0].radius;
    let gentle = common::plane_above(1e-6);
    let targets: [&dyn Target; 1] = [&gentle];
    let calm = common::step(&mut pad, &targets, 0.5);
    assert!(!calm.fast_impact && calm.warning.is_none(), "{:?}", calm.warning);
    // The target jumps two sphere radii into the skin within one step.
    let slam = common::plane_above(2.0 * radius);
    let targets: [&dyn Target; 1] = [&slam];
    let result = common::step(&mut pad, &targets, 0.5);
    assert!(result.fast_impact);
    assert!(
        result.warning.as_deref().is_some_and(|w| w.contains("fast impact")),
        "{:?}",
        result.warning
    );
}

/// A pad given back its patches (`recycle`) returns the same patches as one that is not: the
/// lists are storage only. The ball sinks in and leaves again, so spheres enter and leave contact.
#[test]
fn recycled_patches_change_nothing() {
    let mut fresh = common::flat_pad(12, 0.02, common::params());
    let mut recycling = common::flat_pad(12, 0.02, common::params());
    for k in 0..12 {
        let depth = 8e-5 * (1.0 - (k as f64 - 6.0).abs() / 6.0);
        let ball = Posed::new(
            Sphere { radius: 0.03 },
            Isometry3::from(Translation3::new(0.001 * k as f64, 0.0, 0.03 - depth)),
        );
        let plane = common::plane_above(-1e-3);
        let one: [&dyn Target; 1] = [&ball];
        let two: [&dyn Target; 2] = [&ball, &plane];
        let targets: &[&dyn Target] = if k % 3 == 0 { &two } else { &one };
        let expected = common::step(&mut fresh, targets, 0.5);
        let patch = common::step(&mut recycling, targets, 0.5);
        assert_eq!(patch, expected, "step {k}");
        if k == 6 {
            assert!(expected.total_force.norm() > 0.0, "the ball presses at its deepest");
        }
        recycling.recycle(patch);
    }
    assert_eq!(fresh.displacements(), recycling.displacements());
}
