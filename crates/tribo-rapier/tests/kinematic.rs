//! A fixed root driven by `root_target` commands follows its path and carries what rests on it.

use nalgebra::{Isometry3, Vector3};
use tribo_engine::KinematicTarget;
use tribo_model::Geometry;
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
