//! Two runs of the same scene and commands give bit-identical states and contacts.

use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use tribo_engine::JointCommand;
use tribo_model::{Geometry, JointKind};
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

/// Everything a run produced, as raw bits.
fn run_bits() -> Vec<u64> {
    let table = table(
        "materials:\n  - name: Ground\n  - name: Thing\n  - name: Rubber\ncontact_materials:\n  \
         - materials: [Ground, Thing]\n    static_friction: 0.6\n    dynamic_friction: 0.4\n    restitution: 0.3\n  \
         - materials: [Ground, Rubber]\n    friction: 1.0\n    restitution: 0.7\n  \
         - materials: [Thing, Rubber, Thing]\n    friction: 0.8\n",
        &["Ground", "Thing", "Rubber"],
    );
    let mut bodies = vec![ground(0.05, &table)];
    let shapes = [
        Geometry::Box {
            size: Vector3::new(0.3, 0.2, 0.1),
        },
        Geometry::Sphere { radius: 0.1 },
        Geometry::Cylinder {
            radius: 0.08,
            height: 0.3,
        },
        Geometry::Capsule {
            radius: 0.05,
            height: 0.2,
        },
        Geometry::Cone {
            radius: 0.1,
            height: 0.2,
        },
    ];
    for (i, shape) in shapes.iter().enumerate() {
        let material = if i % 2 == 0 { "Thing" } else { "Rubber" };
        let pose = Isometry3::from_parts(
            Vector3::new(0.05 * i as f64, 0.03 * i as f64, 0.3 + 0.25 * i as f64).into(),
            UnitQuaternion::from_euler_angles(0.3 * i as f64, 0.2, 0.1 * i as f64),
        );
        bodies.push(place(
            &format!("s{i}"),
            solid(&format!("s{i}"), shape.clone(), 0.5 + 0.1 * i as f64, material),
            pose,
            false,
            &table,
        ));
    }
    // A floating two-link body with a driven hinge, falling among them.
    let mut a = with_shape(
        link(
            "a",
            None,
            joint(JointKind::Free, "root", Vector3::z()),
            Isometry3::identity(),
            1.0,
            "Thing",
        ),
        Geometry::Box {
            size: Vector3::new(0.3, 0.1, 0.1),
        },
    );
    a.center_of_mass = Vector3::zeros();
    let b = with_shape(
        link(
            "b",
            Some(0),
            joint(JointKind::Revolute, "hinge", Vector3::y()),
            Isometry3::translation(0.3, 0.0, 0.0),
            0.5,
            "Rubber",
        ),
        Geometry::Sphere { radius: 0.06 },
    );
    let robot = place(
        "robot",
        body("robot", vec![a, b]),
        Isometry3::translation(-0.5, 0.0, 0.6),
        false,
        &table,
    );
    bodies.push(robot);
    let scene = scene(bodies, table);
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    let robot_index = scene.bodies.len() - 1;
    let mut bits = Vec::new();
    let mut robot_contacts = 0;
    for k in 0..1500 {
        commands.bodies[robot_index].joints[1] = JointCommand::Pd {
            q_ref: (k as f64 * 0.01).sin(),
            v_ref: 0.0,
            kp: 20.0,
            kd: 1.0,
            feedforward: 0.0,
        };
        engine.step(2e-3, &commands).expect("step");
        for body in &engine.state().bodies {
            for link in &body.links {
                bits.extend(link.pose.translation.vector.iter().map(|x| x.to_bits()));
                bits.extend(link.pose.rotation.coords.iter().map(|x| x.to_bits()));
                bits.extend(
                    link.linear_velocity
                        .iter()
                        .chain(link.angular_velocity.iter())
                        .map(|x| x.to_bits()),
                );
            }
            bits.extend(
                body.joint_positions
                    .iter()
                    .chain(&body.joint_velocities)
                    .chain(&body.joint_efforts)
                    .map(|x| x.to_bits()),
            );
        }
        robot_contacts += engine
            .contacts()
            .iter()
            .filter(|c| c.a.body == robot_index || c.b.body == robot_index)
            .count();
        for c in engine.contacts() {
            bits.extend([c.a.body as u64, c.a.link as u64, c.b.body as u64, c.b.link as u64]);
            bits.extend(
                c.point
                    .iter()
                    .chain(c.normal.iter())
                    .chain(c.friction_force.iter())
                    .map(|x| x.to_bits()),
            );
            bits.extend([c.depth.to_bits(), c.normal_force.to_bits()]);
        }
    }
    assert!(
        robot_contacts > 100,
        "the articulated body touches things ({robot_contacts} contact records)"
    );
    bits
}

#[test]
fn two_runs_are_bit_identical() {
    let (first, second) = (run_bits(), run_bits());
    assert!(first.len() > 100_000, "the run recorded {} numbers", first.len());
    assert!(first == second, "the two runs differ");
}
