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
