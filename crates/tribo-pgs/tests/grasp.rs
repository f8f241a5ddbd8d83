//! A rigid face–face grasp on the `pgs` engine: a 0.6 kg box (0.20 × 0.03 × 0.15 m, the
//! book-rotation sample's book) held through its 3 cm thickness at its centre of mass by two
//! rigid 3 × 1 × 3 cm finger plates on prismatic joints, each pushed with a constant effort of
//! 1.5 × the Coulomb limit m g / (2 μ), μ = 0.5 (8.83 N per finger).
//!
//! Analytic answer: the grasp is at the centre of mass, so gravity has no moment about the grasp
//! axis, and each finger's friction capacity μ F = 4.41 N exceeds the m g / 2 = 2.94 N it must
//! carry, with the face's four corners able to carry it without any moment. A rigid grasp that
//! can stick must stick: the box neither rotates nor slides relative to the fingers, up to the
//! solver tolerance. Bound: less than 0.1° of rotation and 0.1 mm of slip over 1 s, hanging
//! (palm still) and lifted (palm rising at 5 cm/s), whatever the solver options.
//!
//! The rigid LCP alone does not decide how each plate's normal load spreads over its four contact
//! points; Gauss–Seidel piled it on one corner, which then carried all the friction while the
//! others slid freely, and the box pivoted about that corner (82° in 1 s, at any squeeze). The
//! engine's load sharing (solve.rs) spreads it; `load_sharing: 0` shows the old behaviour.

use std::sync::Arc;

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_engine::Scene;
use tribo_engine::{JointCommand, KinematicTarget};
use tribo_model::{Geometry, JointKind};
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;
const MASS: f64 = 0.6;
const MU: f64 = 0.5;
/// The palm's height; the fingers' centres are 0.11 m below it, at the box's centre.
const PALM_Z: f64 = 0.11;
/// The palm's acceleration up to the lift speed, m/s².
const RAMP: f64 = 0.5;

fn materials() -> tribo_material::ContactTable {
    table(
        "materials:\n  - name: Palm\n  - name: Skin\n  - name: Object\n\
         contact_materials:\n  - { materials: [ Skin, Object ], friction: 0.5, restitution: 0 }\n",
        &["Palm", "Skin", "Object"],
    )
}

fn plate() -> Geometry {
    Geometry::Box {
        size: Vector3::new(0.03, 0.01, 0.03),
    }
}

/// Body 0 the box (centre at the origin), body 1 the gripper: a fixed palm with two fingers whose
/// inner faces touch the box's ±y faces (finger 1 on +y, pushed along −y; finger 2 on −y).
fn grasp_scene() -> Arc<Scene> {
    let table = materials();
    let book = solid(
        "book",
        Geometry::Box {
            size: Vector3::new(0.20, 0.03, 0.15),
        },
        MASS,
        "Object",
    );
    let palm = link(
        "palm",
        None,
        joint(JointKind::Fixed, "palm", Vector3::z()),
        Isometry3::identity(),
        0.3,
        "Palm",
    );
    let finger = |name: &str, side: f64| {
        with_shape(
            link(
                name,
                Some(0),
                joint(JointKind::Prismatic, name, Vector3::new(0.0, -side, 0.0)),
                Isometry3::translation(0.0, side * 0.02, -PALM_Z),
                0.05,
                "Skin",
            ),
            plate(),
        )
    };
    let gripper = body("gripper", vec![palm, finger("left", 1.0), finger("right", -1.0)]);
    scene(
        vec![
            place("book", book, Isometry3::identity(), false, &table),
            place(
                "gripper",
                gripper,
                Isometry3::translation(0.0, 0.0, PALM_Z),
                true,
                &table,
            ),
        ],
        table,
    )
}

/// Runs `seconds` with the squeeze on and the palm rising at `lift_speed`; returns the largest
/// rotation of the box (degrees) and the largest slip (m) of its centre relative to the palm.
fn hold(options: &str, seconds: f64, lift_speed: f64) -> (f64, f64) {
    let s = grasp_scene();
    let mut sim = if options.is_empty() {
        engine(&PgsFactory, &s)
    } else {
        engine_with(&PgsFactory, &s, options)
    };
    let squeeze = 1.5 * MASS * G / (2.0 * MU);
    let mut commands = idle(&s);
    commands.bodies[1].joints[1] = JointCommand::Effort(squeeze);
    commands.bodies[1].joints[2] = JointCommand::Effort(squeeze);
    let (mut rotation, mut slip) = (0.0_f64, 0.0_f64);
    let steps = (seconds / DT).round() as usize;
    let (mut z, mut speed) = (PALM_Z, 0.0);
    for _ in 0..steps {
        // The palm reaches `lift_speed` at RAMP m/s² (0.3 N more than the weight on the box).
        speed = (speed + RAMP * DT).min(lift_speed);
        z += speed * DT;
        commands.bodies[1].root_target = Some(KinematicTarget {
            pose: Isometry3::from_parts(Translation3::new(0.0, 0.0, z), UnitQuaternion::identity()),
            linear_velocity: Vector3::new(0.0, 0.0, speed),
            angular_velocity: Vector3::zeros(),
        });
        sim.step(DT, &commands).expect("the step succeeds");
        let pose = sim.state().bodies[0].links[0].pose;
        rotation = rotation.max(pose.rotation.angle().to_degrees());
        slip = slip.max((pose.translation.vector - Vector3::new(0.0, 0.0, z - PALM_Z)).norm());
    }
    (rotation, slip)
}

const MAX_ROTATION_DEG: f64 = 0.1;
const MAX_SLIP: f64 = 1e-4;

fn check(label: &str, options: &str, lift_speed: f64) {
    let (rotation, slip) = hold(options, 1.0, lift_speed);
    eprintln!("{label}: rotation {rotation:.3e}°, slip {slip:.3e} m");
    assert!(
        rotation < MAX_ROTATION_DEG,
        "{label}: the box rotated by {rotation}° in the grasp"
    );
    assert!(slip < MAX_SLIP, "{label}: the box slipped by {slip} m in the grasp");
}

#[test]
fn a_box_squeezed_between_two_plates_neither_rotates_nor_slides() {
    check("hanging", "", 0.0);
    check("lifted at 5 cm/s", "", 0.05);
}

#[test]
fn the_grasp_holds_with_every_cone_and_solver() {
    for options in [
        "iterations: 1000",
        "friction_cone: pyramid4",
        "friction_cone: box",
        "solver: lemke\nfriction_cone: pyramid4",
    ] {
        check(&options.replace('\n', ", "), options, 0.05);
    }
}

/// The scene is sensitive to the load spread: without load sharing the box pivots about one
/// corner of the plates (the rigid LCP admits that solution, and Gauss–Seidel finds it).
#[test]
fn without_load_sharing_the_box_pivots_about_a_corner() {
    let (rotation, _) = hold("load_sharing: 0", 1.0, 0.0);
    eprintln!("load_sharing 0: rotation {rotation:.3e}°");
    assert!(rotation > 10.0, "rotation {rotation}°");
}

/// A root target the engine refuses (a non-finite pose) leaves it exactly as it was: the root
/// moves only with a step that succeeds, so the engine that saw the refused step goes on bit for
/// bit like one that never saw it.
#[test]
fn a_refused_root_target_leaves_the_engine_unchanged() {
    let s = grasp_scene();
    let (mut seen, mut unseen) = (engine(&PgsFactory, &s), engine(&PgsFactory, &s));
    let squeeze = 1.5 * MASS * G / (2.0 * MU);
    let mut commands = idle(&s);
    commands.bodies[1].joints[1] = JointCommand::Effort(squeeze);
    commands.bodies[1].joints[2] = JointCommand::Effort(squeeze);
    let target = |z: f64| KinematicTarget {
        pose: Isometry3::from_parts(Translation3::new(0.0, 0.0, z), UnitQuaternion::identity()),
        linear_velocity: Vector3::new(0.0, 0.0, 0.05),
        angular_velocity: Vector3::zeros(),
    };
    for k in 0..40 {
        let z = PALM_Z + 0.05 * DT * k as f64;
        if k == 20 {
            let mut bad = commands.clone();
            bad.bodies[1].root_target = Some(target(f64::NAN));
            let error = seen.step(DT, &bad).expect_err("a non-finite root target is refused");
            assert!(
                error.to_string().contains("placement: expected a finite pose"),
                "{error}"
            );
        }
        commands.bodies[1].root_target = Some(target(z));
        seen.step(DT, &commands).expect("the step succeeds");
        unseen.step(DT, &commands).expect("the step succeeds");
        for (a, b) in seen.state().bodies.iter().zip(&unseen.state().bodies) {
            for (la, lb) in a.links.iter().zip(&b.links) {
                assert_eq!(la.pose, lb.pose, "step {k}");
                assert_eq!(la.linear_velocity, lb.linear_velocity, "step {k}");
            }
        }
    }
}
