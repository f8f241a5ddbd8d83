//! Articulated bodies (rapier multibodies): pendulum, joint efforts, PD motors, floating base.

use nalgebra::{Isometry3, Matrix3, Vector3};
use tribo_engine::{Commands, Engine, JointCommand};
use tribo_engine::{LinkRef, Scene};
use tribo_model::{Geometry, JointKind};
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

const DT: f64 = 1e-3;
const ARM: f64 = 1.0;
const BOB_MASS: f64 = 1.0;
const BOB_RADIUS: f64 = 0.05;

/// A pendulum: a massless fixed base at z = 2 and an arm hinged about y at the base origin whose
/// mass is a small solid sphere at distance `ARM` below the hinge. The arm starts at `q0`.
fn pendulum(q0: f64) -> std::sync::Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let base = fixed_base();
    let mut arm = link(
        "arm",
        Some(0),
        joint(JointKind::Revolute, "hinge", Vector3::y()),
        Isometry3::identity(),
        BOB_MASS,
        "Thing",
    );
    arm.center_of_mass = Vector3::new(0.0, 0.0, -ARM);
    arm.inertia = Geometry::Sphere { radius: BOB_RADIUS }.solid_inertia(BOB_MASS);
    let mut placed = place(
        "pendulum",
        body("pendulum", vec![base, arm]),
        Isometry3::translation(0.0, 0.0, 2.0),
        true,
        &table,
    );
    placed.initial_positions = vec![0.0, q0];
    scene(vec![placed], table)
}

fn hinge(engine: &dyn Engine) -> (f64, f64, f64) {
    let b = &engine.state().bodies[0];
    (b.joint_positions[1], b.joint_velocities[1], b.joint_efforts[1])
}

#[test]
fn pendulum_period_matches_the_physical_pendulum() {
    // T = 2π √(I_pivot / (m g L)), I_pivot = I_c + m L², with the finite-amplitude series
    // T(θ₀) = T₀ (1 + θ₀²/16 + 11 θ₀⁴/3072) (Landau & Lifshitz, Mechanics, §11, problem 1).
    let q0: f64 = 0.05;
    let inertia = 0.4 * BOB_MASS * BOB_RADIUS * BOB_RADIUS + BOB_MASS * ARM * ARM;
    let period = 2.0
        * std::f64::consts::PI
        * (inertia / (BOB_MASS * G * ARM)).sqrt()
        * (1.0 + q0 * q0 / 16.0 + 11.0 * q0.powi(4) / 3072.0);

    let scene = pendulum(q0);
    let mut engine = engine(&RapierFactory, &scene);
    assert!((hinge(engine.as_ref()).0 - q0).abs() < 1e-12, "initial joint position");
    // The arm's link frame is at the hinge, rotated by q0 about y.
    let arm_pose = engine.state().bodies[0].links[1].pose;
    assert!((arm_pose.translation.vector - Vector3::new(0.0, 0.0, 2.0)).norm() < 1e-12);
    assert!((arm_pose.rotation.angle() - q0).abs() < 1e-12);

    let (mut crossings, mut previous, mut t) = (Vec::new(), q0, 0.0);
    run(engine.as_mut(), &scene, DT, (6.0 * period / DT) as usize, |state| {
        t += DT;
        let q = state.bodies[0].joint_positions[1];
        if previous > 0.0 && q <= 0.0 {
            crossings.push(t - DT * q / (q - previous));
        }
        previous = q;
    });
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let error = (measured - period) / period;
    eprintln!(
        "period {measured:.5} s, expected {period:.5} s ({:+.3} %)",
        error * 100.0
    );
    assert!(crossings.len() >= 5);
    assert!(error.abs() < 0.002, "period {measured} vs {period}");
    // Undamped: the amplitude after six periods stays within 1 % of q0.
    let amplitude = engine.state().bodies[0].joint_positions[1].abs().max(previous.abs());
    assert!(amplitude < q0 * 1.01, "no energy gain: {amplitude}");
}

#[test]
fn pd_motor_holds_the_arm_where_the_spring_balances_gravity() {
    // Static balance: kp (q_ref − q) = m g L sin q.
    let (q_ref, kp, kd): (f64, f64, f64) = (0.5, 200.0, 20.0);
    let mgl = BOB_MASS * G * ARM;
    let mut q = q_ref;
    for _ in 0..50 {
        q -= (kp * (q_ref - q) - mgl * q.sin()) / (-kp - mgl * q.cos());
    }
    let scene = pendulum(0.0);
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    commands.bodies[0].joints[1] = JointCommand::Pd {
        q_ref,
        v_ref: 0.0,
        kp,
        kd,
        feedforward: 0.0,
    };
    for _ in 0..3000 {
        engine.step(DT, &commands).expect("step");
    }
    let (position, velocity, effort) = hinge(engine.as_ref());
    eprintln!("held at {position:.5} rad (balance {q:.5}), v = {velocity:.2e}, effort {effort:.4} N·m");
    assert!((position - q).abs() < 1e-3, "q = {position} vs {q}");
    assert!(velocity.abs() < 1e-3);
    assert!((effort - mgl * q.sin()).abs() < 0.01 * mgl * q.sin(), "effort {effort}");

    // A feedforward equal to the gravity torque at q_ref holds the arm exactly at q_ref.
    commands.bodies[0].joints[1] = JointCommand::Pd {
        q_ref,
        v_ref: 0.0,
        kp,
        kd,
        feedforward: mgl * q_ref.sin(),
    };
    for _ in 0..3000 {
        engine.step(DT, &commands).expect("step");
    }
    let (position, _, effort) = hinge(engine.as_ref());
    eprintln!("with feedforward: held at {position:.5} rad, effort {effort:.4} N·m");
    assert!((position - q_ref).abs() < 1e-3, "q = {position}");
}

#[test]
fn joint_effort_balances_gravity_at_its_equilibrium() {
    let q0: f64 = 0.3;
    let scene = pendulum(q0);
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    let torque = BOB_MASS * G * ARM * q0.sin();
    commands.bodies[0].joints[1] = JointCommand::Effort(torque);
    let mut worst: f64 = 0.0;
    for _ in 0..2000 {
        engine.step(DT, &commands).expect("step");
        worst = worst.max((hinge(engine.as_ref()).0 - q0).abs());
    }
    let (_, _, effort) = hinge(engine.as_ref());
    eprintln!("largest drift from {q0} rad in 2 s: {worst:.2e} rad");
    assert!(worst < 1e-3, "drift {worst}");
    assert_eq!(effort, torque);

    // Without the effort the arm swings back through the bottom.
    let mut passive = tribo_testkit::engine(&RapierFactory, &scene);
    run(passive.as_mut(), &scene, DT, 1000, |_| {});
    assert!(hinge(passive.as_ref()).0 < 0.0, "passive arm swings");
}

/// A 2 kg slider on a vertical prismatic joint (fixed base).
fn slider() -> std::sync::Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let base = fixed_base();
    let mut carriage = jointed("carriage", JointKind::Prismatic, "lift", Vector3::z(), 2.0);
    carriage.inertia = Matrix3::identity() * 0.01;
    carriage.center_of_mass = Vector3::new(0.1, 0.0, 0.0);
    scene(
        vec![place(
            "slider",
            body("slider", vec![base, carriage]),
            Isometry3::identity(),
            true,
            &table,
        )],
        table,
    )
}

#[test]
fn prismatic_effort_lifts_at_the_expected_acceleration() {
    let scene = slider();
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands: Commands = idle(&scene);
    // Twice the weight: a net upward acceleration of g.
    commands.bodies[0].joints[1] = JointCommand::Effort(2.0 * 2.0 * G);
    for _ in 0..1000 {
        engine.step(DT, &commands).expect("step");
    }
    let b = &engine.state().bodies[0];
    let (q, v) = (b.joint_positions[1], b.joint_velocities[1]);
    eprintln!("after 1 s: q = {q:.5} m (½ g t² = {:.5}), v = {v:.5} m/s", 0.5 * G);
    assert!((v - G).abs() < 1e-3 * G, "v = {v}");
    assert!((q - 0.5 * G).abs() < 0.005 * 0.5 * G, "q = {q}");
    assert!(
        (b.links[1].pose.translation.vector.z - q).abs() < 1e-9,
        "the link frame follows the joint"
    );
    assert!((b.links[1].linear_velocity.z - v).abs() < 1e-9);
}

/// Two 1 kg boxes joined by a hinge about y, floating (free root), no gravity, no ground.
fn floating_pair(gravity: bool) -> std::sync::Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let shape = Geometry::Box {
        size: Vector3::new(0.4, 0.1, 0.1),
    };
    let mut a = link(
        "a",
        None,
        joint(JointKind::Free, "root", Vector3::z()),
        Isometry3::identity(),
        1.0,
        "Thing",
    );
    a.center_of_mass = Vector3::new(0.2, 0.0, 0.0);
    a.inertia = shape.solid_inertia(1.0);
    let mut b = link(
        "b",
        Some(0),
        joint(JointKind::Revolute, "hinge", Vector3::y()),
        Isometry3::translation(0.4, 0.0, 0.0),
        1.0,
        "Thing",
    );
    b.center_of_mass = Vector3::new(0.2, 0.0, 0.0);
    b.inertia = shape.solid_inertia(1.0);
    let placed = place(
        "pair",
        body("pair", vec![a, b]),
        Isometry3::translation(0.0, 0.0, 3.0),
        false,
        &table,
    );
    let mut scene = (*scene(vec![placed], table)).clone();
    if !gravity {
        scene.gravity = Vector3::zeros();
    }
    std::sync::Arc::new(scene)
}

/// Centre of mass C, linear momentum p, angular momentum about C, and momentum scale Σ mᵢ|vᵢ| of
/// body 0, whose links have the given masses, centres (link frame) and inertias (about the
/// centre, link axes): p = Σ mᵢ vᵢ, L = Σ ((cᵢ − C) × mᵢ vᵢ + Rᵢ Iᵢ Rᵢᵀ ωᵢ).
fn momenta(
    engine: &dyn Engine,
    masses: &[f64],
    centres: &[Vector3<f64>],
    inertias: &[Matrix3<f64>],
) -> (Vector3<f64>, Vector3<f64>, Vector3<f64>, f64) {
    let links = &engine.state().bodies[0].links;
    let parts: Vec<(Vector3<f64>, Vector3<f64>, Vector3<f64>)> = links
        .iter()
        .zip(centres)
        .zip(inertias)
        .map(|((link, c), inertia)| {
            let r = link.pose.rotation * c;
            let rotation = link.pose.rotation.to_rotation_matrix();
            let spin = rotation.matrix() * inertia * rotation.matrix().transpose() * link.angular_velocity;
            (
                link.pose.translation.vector + r,
                link.linear_velocity + link.angular_velocity.cross(&r),
                spin,
            )
        })
        .collect();
    let total: f64 = masses.iter().sum();
    let com = parts
        .iter()
        .zip(masses)
        .map(|((c, _, _), m)| c * *m)
        .sum::<Vector3<f64>>()
        / total;
    let (mut p, mut l, mut scale) = (Vector3::zeros(), Vector3::zeros(), 0.0);
    for ((c, v, spin), m) in parts.iter().zip(masses) {
        p += v * *m;
        l += (c - com).cross(&(v * *m)) + spin;
        scale += m * v.norm();
    }
    (com, p, l, scale)
}

fn pair_properties() -> ([f64; 2], [Vector3<f64>; 2], [Matrix3<f64>; 2]) {
    let inertia = Geometry::Box {
        size: Vector3::new(0.4, 0.1, 0.1),
    }
    .solid_inertia(1.0);
    ([1.0, 1.0], [Vector3::new(0.2, 0.0, 0.0); 2], [inertia; 2])
}

#[test]
fn internal_joint_effort_conserves_the_momenta_of_a_floating_base() {
    // No gravity, no contact: the joint effort is internal, so the centre of mass stays still and
    // the angular momentum stays zero. A torque on the child link alone would add τ t to L.
    let scene = floating_pair(false);
    let mut engine = engine(&RapierFactory, &scene);
    let (masses, centres, inertias) = pair_properties();
    let (com0, ..) = momenta(engine.as_ref(), &masses, &centres, &inertias);
    let (torque, seconds) = (0.05, 0.5);
    let mut commands = idle(&scene);
    commands.bodies[0].joints[1] = JointCommand::Effort(torque);
    for _ in 0..(seconds / DT) as usize {
        engine.step(DT, &commands).expect("step");
    }
    let (com, p, l, scale) = momenta(engine.as_ref(), &masses, &centres, &inertias);
    let q = engine.state().bodies[0].joint_positions[1];
    eprintln!(
        "hinge turned {q:.4} rad; centre of mass moved {:.2e} m; |p| = {:.2e} (Σ m|v| = {scale:.2e}); |L| = {:.2e} (τ t = {:.2e})",
        (com - com0).norm(),
        p.norm(),
        l.norm(),
        torque * seconds
    );
    assert!(q.abs() > 0.1, "the effort turns the hinge");
    // rapier's multibody integrator conserves the momenta only to about 1e-4 of their scale
    // (measured: |p| = 2e-4 Σ m|v|, |L| = 6e-5 τ t); a one-sided torque would give |L| = τ t.
    assert!(
        (com - com0).norm() < 1e-5,
        "an internal effort cannot move the centre of mass"
    );
    assert!(p.norm() < 1e-3 * scale, "p = {p:?}");
    assert!(l.norm() < 1e-3 * torque * seconds, "L = {l:?}");
}

#[test]
fn floating_base_falls_freely() {
    let scene = floating_pair(true);
    let mut engine = engine(&RapierFactory, &scene);
    let (masses, centres, inertias) = pair_properties();
    let (com0, ..) = momenta(engine.as_ref(), &masses, &centres, &inertias);
    let t: f64 = 0.5;
    run(engine.as_mut(), &scene, DT, (t / DT) as usize, |_| {});
    let (com, p, l, _) = momenta(engine.as_ref(), &masses, &centres, &inertias);
    let drop = com0.z - com.z;
    eprintln!(
        "fell {drop:.6} m (½ g t² = {:.6}); p = {p:?}; L = {l:?}",
        0.5 * G * t * t
    );
    // Semi-implicit Euler is O(dt): |error| ≤ ½ g t dt.
    assert!((drop - 0.5 * G * t * t).abs() < 0.5 * G * t * DT);
    assert!((p - Vector3::new(0.0, 0.0, -2.0 * G * t)).norm() < 1e-9 * G);
    assert!((com.x - com0.x).abs() < 1e-12 && l.norm() < 1e-9);
}

#[test]
fn articulated_body_resting_on_the_ground_weighs_its_mass() {
    // The floating pair with collision boxes lies on the ground; its four-plus-four corners carry
    // 2 m g (these contacts go through rapier's articulated-body contact path).
    let table = pair_table(0.5, 0.5, 0.0);
    let shape = Geometry::Box {
        size: Vector3::new(0.4, 0.1, 0.1),
    };
    let mut links = Vec::new();
    for (i, name) in ["a", "b"].iter().enumerate() {
        let (parent, kind, offset) = if i == 0 {
            (None, JointKind::Free, Isometry3::identity())
        } else {
            (Some(0), JointKind::Revolute, Isometry3::translation(0.4, 0.0, 0.0))
        };
        let mut l = link(name, parent, joint(kind, name, Vector3::y()), offset, 1.0, "Thing");
        l = with_shape(l, shape.clone());
        l.shapes[0].pose = Isometry3::translation(0.2, 0.0, 0.0);
        l.center_of_mass = Vector3::new(0.2, 0.0, 0.0);
        links.push(l);
    }
    let placed = place(
        "pair",
        body("pair", links),
        Isometry3::translation(0.0, 0.0, 0.05),
        false,
        &table,
    );
    let scene = scene(vec![ground(0.0, &table), placed], table);
    let mut engine = engine(&RapierFactory, &scene);
    run(engine.as_mut(), &scene, DT, 1000, |_| {});
    let mut lift = 0.0;
    for c in engine.contacts() {
        let on_pair = if c.b.body == 1 { 1.0 } else { -1.0 };
        lift += c.normal.z * c.normal_force * on_pair;
    }
    eprintln!(
        "{} contact points carry {lift:.4} N (2 m g = {:.4} N)",
        engine.contacts().len(),
        2.0 * G
    );
    assert!((lift - 2.0 * G).abs() < 0.01 * 2.0 * G, "lift {lift}");
    assert!(engine
        .contacts()
        .iter()
        .any(|c| c.a == LinkRef { body: 1, link: 1 } || c.b == LinkRef { body: 1, link: 1 }));
}
