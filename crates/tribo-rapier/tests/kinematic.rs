//! A fixed root driven by `root_target` commands follows its path and carries what rests on it.

use nalgebra::{Isometry3, Vector3};
use tribo_engine::{JointCommand, KinematicTarget};
use tribo_model::{Geometry, JointKind};
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;

#[test]
fn kinematic_root_follows_its_target() {
    let table = pair_table(0.5, 0.5, 0.0);
    let plate = solid(
        "plate",
        Geometry::Box {
            size: Vector3::new(1.0, 1.0, 0.1),
        },
        5.0,
        "Thing",
    );
    let scene = scene(
        vec![place(
            "plate",
            plate,
            Isometry3::translation(0.0, 0.0, 1.0),
            true,
            &table,
        )],
        table,
    );
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    // 0.5 m/s along x while turning at 1 rad/s about z.
    let (velocity, spin) = (Vector3::new(0.5, 0.0, 0.0), Vector3::new(0.0, 0.0, 1.0));
    for k in 1..=500 {
        let t = k as f64 * DT;
        let pose = Isometry3::new(Vector3::new(0.0, 0.0, 1.0) + velocity * t, spin * t);
        commands.bodies[0].root_target = Some(KinematicTarget {
            pose,
            linear_velocity: velocity,
            angular_velocity: spin,
        });
        engine.step(DT, &commands).expect("step");
        let link = &engine.state().bodies[0].links[0];
        assert!(
            (link.pose.translation.vector - pose.translation.vector).norm() < 1e-12,
            "step {k}: {:?}",
            link.pose
        );
        assert!(link.pose.rotation.angle_to(&pose.rotation) < 1e-12);
        assert!(
            (link.linear_velocity - velocity).norm() < 1e-9,
            "step {k}: v = {:?}",
            link.linear_velocity
        );
        assert!((link.angular_velocity - spin).norm() < 1e-9);
    }
}

#[test]
fn kinematic_platform_carries_a_resting_box_by_friction() {
    // The platform accelerates at 1 m/s² < μ g, so static friction keeps the box with it.
    let table = table(
        "materials:\n  - name: Ground\n  - name: Thing\ncontact_materials:\n  - materials: [Thing, Thing]\n    \
         friction: 0.5\n",
        &["Ground", "Thing"],
    );
    let plate = solid(
        "plate",
        Geometry::Box {
            size: Vector3::new(2.0, 2.0, 0.1),
        },
        5.0,
        "Thing",
    );
    let cube = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(0.2),
        },
        1.0,
        "Thing",
    );
    let scene = scene(
        vec![
            place("plate", plate, Isometry3::translation(0.0, 0.0, 0.0), true, &table),
            place("box", cube, Isometry3::translation(0.0, 0.0, 0.15), false, &table),
        ],
        table,
    );
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    let accel = 1.0;
    for k in 1..=1000 {
        let t = k as f64 * DT;
        let pose = Isometry3::translation(0.5 * accel * t * t, 0.0, 0.0);
        commands.bodies[0].root_target = Some(KinematicTarget {
            pose,
            linear_velocity: Vector3::new(accel * t, 0.0, 0.0),
            angular_velocity: Vector3::zeros(),
        });
        engine.step(DT, &commands).expect("step");
    }
    let state = engine.state();
    let (plate_x, box_x) = (root_position(state, 0).x, root_position(state, 1).x);
    let slip = box_x - plate_x;
    eprintln!(
        "platform moved {plate_x:.4} m, box {box_x:.4} m (slip {:.3} mm)",
        slip * 1e3
    );
    assert!((plate_x - 0.5).abs() < 1e-9);
    assert!(slip.abs() < 1e-3, "the box stays on the platform: slip {slip}");
    assert!((state.bodies[1].links[0].linear_velocity.x - accel).abs() < 0.01);
}

/// Initial (and held) position of the slider's prismatic joint, m.
const Q0: f64 = 0.05;

/// A fixed-root two-link body at `pose`: a 2 kg carriage (0.4 × 0.2 × 0.1 m box, centre of mass
/// 5 cm off its link origin) and a 0.5 kg slider on a prismatic joint along the carriage's y
/// axis, 0.1 m to the side and 0.1 m below, starting at `Q0`.
fn carriage_and_slider(pose: Isometry3<f64>, table: &tribo_material::ContactTable) -> tribo_engine::SceneBody {
    let mut carriage = with_shape(
        link(
            "carriage",
            None,
            joint(JointKind::Free, "root", Vector3::z()),
            Isometry3::identity(),
            2.0,
            "Thing",
        ),
        Geometry::Box {
            size: Vector3::new(0.4, 0.2, 0.1),
        },
    );
    carriage.center_of_mass = Vector3::new(0.05, 0.0, 0.0);
    let slider = with_shape(
        link(
            "slider",
            Some(0),
            joint(JointKind::Prismatic, "slide", Vector3::y()),
            Isometry3::translation(0.0, 0.1, -0.1),
            0.5,
            "Thing",
        ),
        Geometry::Box {
            size: Vector3::repeat(0.05),
        },
    );
    let mut placed = place("carriage", body("carriage", vec![carriage, slider]), pose, true, table);
    placed.initial_positions = vec![0.0, Q0];
    placed
}

/// Where the slider's link frame is when the carriage's is at `root` and the joint at `q`.
fn slider_pose(root: &Isometry3<f64>, q: f64) -> Isometry3<f64> {
    root * Isometry3::translation(0.0, 0.1 + q, -0.1)
}

#[test]
fn articulated_kinematic_root_carries_a_passive_slider() {
    // Regression: a root target on an articulated body (a rapier multibody) used to leave the
    // root where it was. Here the carriage moves at 0.3 m/s along x and 0.5 m/s up, across the
    // slider's axis, so nothing pushes the passive slider along it: it must ride along rigidly.
    let table = pair_table(0.5, 0.5, 0.0);
    let start = Isometry3::translation(0.0, 0.0, 1.0);
    let scene = scene(vec![carriage_and_slider(start, &table)], table);
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    let velocity = Vector3::new(0.3, 0.0, 0.5);
    let mut pose = start;
    for k in 1..=500 {
        pose = start;
        pose.translation.vector += velocity * (k as f64 * DT);
        commands.bodies[0].root_target = Some(KinematicTarget {
            pose,
            linear_velocity: velocity,
            angular_velocity: Vector3::zeros(),
        });
        engine.step(DT, &commands).expect("step");
        let body = &engine.state().bodies[0];
        let (root, slider) = (&body.links[0], &body.links[1]);
        let root_error = (root.pose.translation.vector - pose.translation.vector).norm();
        assert!(root_error < 1e-9, "step {k}: root {root_error:e} m from its target");
        assert!(
            root.pose.rotation.angle_to(&pose.rotation) < 1e-9,
            "step {k}: root turned"
        );
        assert!(
            (root.linear_velocity - velocity).norm() < 1e-9,
            "step {k}: v = {:?}",
            root.linear_velocity
        );
        assert!(root.angular_velocity.norm() < 1e-9);
        assert!(
            (body.joint_positions[1] - Q0).abs() < 1e-9,
            "step {k}: q = {}",
            body.joint_positions[1]
        );
        let slider_error = (slider.pose.translation.vector - slider_pose(&pose, Q0).translation.vector).norm();
        assert!(slider_error < 1e-9, "step {k}: slider {slider_error:e} m off");
        assert!(
            (slider.linear_velocity - velocity).norm() < 1e-9,
            "step {k}: slider v = {:?}",
            slider.linear_velocity
        );
    }
    // Without targets the root stays where the last one put it.
    commands.bodies[0].root_target = None;
    for _ in 0..100 {
        engine.step(DT, &commands).expect("step");
    }
    let root = &engine.state().bodies[0].links[0];
    assert!((root.pose.translation.vector - pose.translation.vector).norm() < 1e-12);
    assert!(root.linear_velocity.norm() < 1e-12 && root.angular_velocity.norm() < 1e-12);
}

#[test]
fn articulated_kinematic_root_turns_and_its_slider_follows_through_the_joint() {
    // The carriage moves at 0.5 m/s along x while turning at 2 rad/s about z; a stiff PD motor
    // (1e4 N/m, 200 N·s/m) holds the slider at Q0 against the centrifugal pull
    // m ω² r = 0.5 · 4 · 0.15 = 0.3 N, i.e. a 30 µm stretch at steady state (within 0.1 mm).
    let table = pair_table(0.5, 0.5, 0.0);
    let start = Isometry3::translation(0.0, 0.0, 1.0);
    let scene = scene(vec![carriage_and_slider(start, &table)], table);
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    commands.bodies[0].joints[1] = JointCommand::Pd {
        q_ref: Q0,
        v_ref: 0.0,
        kp: 1e4,
        kd: 200.0,
        feedforward: 0.0,
    };
    let (velocity, spin) = (Vector3::new(0.5, 0.0, 0.0), Vector3::new(0.0, 0.0, 2.0));
    let mut worst: f64 = 0.0;
    for k in 1..=1000 {
        let t = k as f64 * DT;
        let pose = Isometry3::new(Vector3::new(0.0, 0.0, 1.0) + velocity * t, spin * t);
        commands.bodies[0].root_target = Some(KinematicTarget {
            pose,
            linear_velocity: velocity,
            angular_velocity: spin,
        });
        engine.step(DT, &commands).expect("step");
        let body = &engine.state().bodies[0];
        let (root, slider) = (&body.links[0], &body.links[1]);
        let root_error = (root.pose.translation.vector - pose.translation.vector).norm();
        assert!(root_error < 1e-9, "step {k}: root {root_error:e} m from its target");
        assert!(
            root.pose.rotation.angle_to(&pose.rotation) < 1e-9,
            "step {k}: root rotation off"
        );
        // Over a step the root turns at exactly `spin`; its origin's velocity is that of the
        // step's chord, within ω² r dt / 2 of the target's.
        assert!(
            (root.angular_velocity - spin).norm() < 1e-9,
            "step {k}: ω = {:?}",
            root.angular_velocity
        );
        assert!(
            (root.linear_velocity - velocity).norm() < 1e-3,
            "step {k}: v = {:?}",
            root.linear_velocity
        );
        // The slider stays on its axis exactly and within 0.1 mm of Q0 along it.
        let expected = slider_pose(&pose, body.joint_positions[1]);
        let off_axis = (slider.pose.translation.vector - expected.translation.vector).norm();
        assert!(off_axis < 1e-9, "step {k}: slider {off_axis:e} m off its axis");
        assert!(slider.pose.rotation.angle_to(&pose.rotation) < 1e-9);
        let stretch = body.joint_positions[1] - Q0;
        worst = worst.max(stretch.abs());
        assert!(stretch.abs() < 1e-4, "step {k}: slider {stretch:e} m from Q0");
        // Its velocity is the carriage's rigid motion at the slider's origin, plus q̇ along the axis.
        let lever = slider.pose.translation.vector - root.pose.translation.vector;
        let rigid = root.linear_velocity + root.angular_velocity.cross(&lever);
        let axis = slider.pose.rotation * Vector3::y();
        let v_expected = rigid + axis * body.joint_velocities[1];
        assert!(
            (slider.linear_velocity - v_expected).norm() < 1e-9,
            "step {k}: slider velocity"
        );
        assert!((slider.angular_velocity - spin).norm() < 1e-9);
    }
    eprintln!("slider stretch: at most {:.2} µm", worst * 1e6);
}

#[test]
fn articulated_kinematic_platform_carries_a_resting_box() {
    // Contacts see the driven root as a moving boundary: the carriage's top carries a box that
    // rests on it while the carriage accelerates at 1 m/s² < μ g along x and rises at 0.2 m/s.
    let table = table(
        "materials:\n  - name: Ground\n  - name: Thing\ncontact_materials:\n  - materials: [Thing, Thing]\n    \
         friction: 0.5\n",
        &["Ground", "Thing"],
    );
    let cube = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(0.1),
        },
        1.0,
        "Thing",
    );
    let scene = scene(
        vec![
            carriage_and_slider(Isometry3::identity(), &table),
            place("box", cube, Isometry3::translation(0.0, 0.0, 0.1), false, &table),
        ],
        table,
    );
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    let (accel, rise) = (1.0, 0.2);
    // Let the box settle on the resting carriage first.
    for _ in 0..200 {
        commands.bodies[0].root_target = Some(KinematicTarget {
            pose: Isometry3::identity(),
            linear_velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        });
        engine.step(DT, &commands).expect("step");
    }
    let rest = root_position(engine.state(), 1) - root_position(engine.state(), 0);
    for k in 1..=1000 {
        let t = k as f64 * DT;
        commands.bodies[0].root_target = Some(KinematicTarget {
            pose: Isometry3::translation(0.5 * accel * t * t, 0.0, rise * t),
            linear_velocity: Vector3::new(accel * t, 0.0, rise),
            angular_velocity: Vector3::zeros(),
        });
        engine.step(DT, &commands).expect("step");
    }
    let state = engine.state();
    let (carriage, cube) = (root_position(state, 0), root_position(state, 1));
    let slip = cube - carriage - rest;
    eprintln!(
        "carriage at {:?}, box moved with it to within {:.3} mm",
        carriage.as_slice(),
        slip.norm() * 1e3
    );
    assert!((carriage - Vector3::new(0.5, 0.0, 0.2)).norm() < 1e-9);
    assert!(slip.norm() < 1e-3, "the box stays on the carriage: {slip:?}");
    let v = state.bodies[1].links[0].linear_velocity;
    assert!((v - Vector3::new(accel, 0.0, rise)).norm() < 0.01, "box velocity {v:?}");
}
