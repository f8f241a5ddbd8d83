//! A pad pressed by a large box queries the box's face as a half-space (`frames.rs`,
//! `Shape::face_within`) and must answer as the box itself does: the same box hidden behind a
//! target that reveals no shape is queried point by point in the world, and both give the same
//! patch to the sweeps' tolerance. Pressed gently (the face holds over the whole step) and
//! pressed deeper in one step than the query region allows for (the solved field leaves it:
//! the patch is assembled on the box itself), and slid sideways under the box.
//!
//! Tolerance: the two differ in the rounding of each query (a few 1e-17 m on centimetre
//! lengths), which the sweeps, stopped at a relative residual of 1e-11, carry into the forces:
//! `1e-8` of the total force is far above that and far below any modelling difference.

mod common;

use common::{flat_pad, params};
use nalgebra::{Isometry3, Point3, Translation3, Vector3};
use tribo_cslc::{CslcPad, Cuboid, PatchResult, Posed, StepInput, Target, Twist};

/// The box seen only through its distance, normal and velocity: the world-frame queries.
struct Hidden(Posed<Cuboid>);

impl Target for Hidden {
    fn distance(&self, x: &Point3<f64>) -> f64 {
        self.0.distance(x)
    }
    fn normal(&self, x: &Point3<f64>) -> Vector3<f64> {
        self.0.normal(x)
    }
    fn surface_velocity(&self, x: &Point3<f64>) -> Vector3<f64> {
        self.0.surface_velocity(x)
    }
}

/// A 2 m × 2 m × 0.2 m box whose bottom face is `depth` below the spheres' tops (z = 0),
/// offset sideways by `shift`.
fn slab(depth: f64, shift: f64) -> Posed<Cuboid> {
    Posed::new(
        Cuboid {
            half_extents: Vector3::new(1.0, 1.0, 0.1),
        },
        Isometry3::from_parts(Translation3::new(0.3 + shift, -0.2, 0.1 - depth), Default::default()),
    )
}

fn step(pad: &mut CslcPad, target: &dyn Target) -> PatchResult {
    let targets = [target];
    pad.step(&StepInput {
        pad_pose: Isometry3::identity(),
        pad_twist: Twist::default(),
        targets: &targets,
        friction: 0.5,
        dynamic_friction: 0.4,
        dt: 1e-3,
    })
    .expect("step")
}

fn assert_same_patch(face: &PatchResult, shape: &PatchResult, what: &str) {
    let scale = shape.total_force.norm();
    assert!(scale > 0.0, "{what}: no load");
    assert!(
        (face.total_force - shape.total_force).norm() <= 1e-8 * scale,
        "{what}: {} against {}",
        face.total_force,
        shape.total_force
    );
    assert!((face.total_torque - shape.total_torque).norm() <= 1e-8 * scale * 0.03);
    assert_eq!(face.sphere_targets, shape.sphere_targets, "{what}: touching spheres");
}

#[test]
fn a_pad_under_a_box_answers_as_the_box_queried_in_the_world() {
    let mut by_face = flat_pad(15, 0.03, params());
    let mut by_shape = flat_pad(15, 0.03, params());
    // Gently, then sliding 0.1 mm per step.
    for k in 0..4 {
        let box_ = slab(2e-4, 1e-4 * k as f64);
        let face = step(&mut by_face, &box_);
        let shape = step(&mut by_shape, &Hidden(box_.clone()));
        assert!(face.converged && shape.converged);
        assert_same_patch(&face, &shape, &format!("gentle step {k}"));
    }
    // From rest, pressed 6 sphere radii deep in one step: deeper than the region the face was
    // chosen for (two radii of reach and two more, the pad at rest).
    let mut by_face = flat_pad(15, 0.03, params());
    let mut by_shape = flat_pad(15, 0.03, params());
    let radius = by_face.lattice().spheres()[0].radius;
    let box_ = slab(6.0 * radius, 0.0);
    let face = step(&mut by_face, &box_);
    let shape = step(&mut by_shape, &Hidden(box_.clone()));
    assert!(face.fast_impact && shape.fast_impact);
    let deepest = by_face.displacements().iter().map(|d| d.norm()).fold(0.0, f64::max);
    assert!(
        deepest > 4.0 * radius,
        "the solved field stayed within the region: {deepest}"
    );
    assert_same_patch(&face, &shape, "deep step");
}
