//! Articulated bodies on the `pgs` engine: implicit PD at Choreonoid's SR1 gains, SR1 standing,
//! determinism and divergence reports.

use std::sync::Arc;

use nalgebra::{Isometry3, UnitQuaternion, Vector3};
use tribo_engine::Scene;
use tribo_engine::{JointCommand, StepError};
use tribo_model::{Geometry, JointKind};
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

const DT: f64 = 2e-3;

/// A light arm (0.5 kg at 0.2 m, I ≈ 0.02 kg·m²) hinged about the vertical on a fixed base. At
/// P = 8000, D = 100 and h = 2 ms an explicit PD would need I > 0.108 kg·m² to be stable
/// (tribo-multibody pd.rs, Jury's criterion); the implicit one must settle on the target.
fn light_arm() -> Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let base = fixed_base();
    let mut arm = jointed("arm", JointKind::Revolute, "hinge", Vector3::z(), 0.5);
    arm.center_of_mass = Vector3::new(0.2, 0.0, 0.0);
    arm.inertia = Geometry::Sphere { radius: 0.02 }.solid_inertia(0.5);
    scene(
        vec![place(
            "arm",
            body("arm", vec![base, arm]),
            Isometry3::translation(0.0, 0.0, 1.0),
            true,
            &table,
        )],
        table,
    )
}

#[test]
fn implicit_pd_is_stable_at_sr1_gains() {
    let s = light_arm();
    let mut sim = engine(&PgsFactory, &s);
    let mut commands = idle(&s);
    let target = 0.3;
    commands.bodies[0].joints[1] = JointCommand::Pd {
        q_ref: target,
        v_ref: 0.0,
        kp: 8000.0,
        kd: 100.0,
        feedforward: 0.0,
    };
    let mut peak: f64 = 0.0;
    for _ in 0..500 {
        sim.step(DT, &commands).expect("stable step");
        peak = peak.max(sim.state().bodies[0].joint_positions[1].abs());
    }
    let q = sim.state().bodies[0].joint_positions[1];
    eprintln!("PD: final q = {q:.9}, peak {peak:.4}");
    assert!((q - target).abs() < 1e-6, "q = {q}");
    // Backward Euler on this over-damped servo (ζ = D / (2 √(P I)) ≈ 1.8) does not overshoot.
    assert!(peak <= target + 1e-9, "peak {peak}");
}

#[test]
fn sr1_stands_for_five_seconds() {
    let (s, commands) = sr1_standing(std::path::Path::new("../../share/choreonoid"));
    let mut sim = engine(&PgsFactory, &s);
    let z0 = root_position(sim.state(), 1).z;
    let mut worst: f64 = 0.0;
    for _ in 0..2500 {
        sim.step(DT, &commands).expect("SR1 step");
        worst = worst.max((root_position(sim.state(), 1).z - z0).abs());
    }
    let drift = (root_position(sim.state(), 1) - Vector3::new(0.0, 0.0, z0)).xy().norm();
    eprintln!("SR1: largest waist height change {worst:.4e} m, horizontal drift {drift:.3e} m");
    assert!(worst < 0.01, "waist height changed by {worst} m");
}

/// Eight boxes dropped with a tilt onto each other and the floor.
fn tumbling_boxes() -> Arc<Scene> {
    let table = pair_table(0.6, 0.4, 0.2);
    let mut bodies = vec![ground(0.0, &table)];
    for i in 0..8 {
        let b = solid(
            "box",
            Geometry::Box {
                size: Vector3::new(0.2, 0.1, 0.15),
            },
            1.0 + 0.1 * i as f64,
            "Thing",
        );
        let rotation = UnitQuaternion::from_euler_angles(0.3 * i as f64, 0.2, 0.1 * i as f64);
        let position = Vector3::new(0.05 * (i % 3) as f64, 0.04 * (i % 2) as f64, 0.2 + 0.22 * i as f64);
        bodies.push(place(
            &format!("box{i}"),
            b,
            Isometry3::from_parts(position.into(), rotation),
            false,
            &table,
        ));
    }
    scene(bodies, table)
}

#[test]
fn two_runs_are_bit_identical() {
    let s = tumbling_boxes();
    let trajectory = || {
        let mut sim = engine(&PgsFactory, &s);
        let mut states = Vec::new();
        run(sim.as_mut(), &s, DT, 400, |state| states.push(state.clone()));
        (states, sim.contacts().to_vec())
    };
    let (first, contacts) = trajectory();
    let (second, contacts_again) = trajectory();
    assert!(!contacts.is_empty());
    assert!(first == second, "two runs differ");
    assert_eq!(contacts, contacts_again);
}

#[test]
fn divergence_is_reported_without_nan() {
    // An explosive effort on the arm's joint.
    let s = light_arm();
    let mut sim = engine(&PgsFactory, &s);
    let mut commands = idle(&s);
    sim.step(DT, &commands).expect("a quiet step");
    let before = sim.state().clone();
    commands.bodies[0].joints[1] = JointCommand::Effort(1e12);
    let error = sim.step(DT, &commands).expect_err("diverges");
    assert!(
        matches!(&error, StepError::Diverged { body, step: 2, .. } if body == "arm"),
        "{error}"
    );
    assert_eq!(sim.state(), &before, "the last good state is kept");
    assert!(sim.state().first_non_finite().is_none());
    assert!(sim.step(DT, &idle(&s)).is_err(), "further steps are refused");

    // An absurd time step: gravity alone gives 1e7 m/s.
    let table = pair_table(0.5, 0.5, 0.0);
    let b = solid("box", Geometry::Sphere { radius: 0.1 }, 1.0, "Thing");
    let falling = scene(
        vec![place("ball", b, Isometry3::translation(0.0, 0.0, 1.0), false, &table)],
        table,
    );
    let mut sim = engine(&PgsFactory, &falling);
    let error = sim.step(1e6, &idle(&falling)).expect_err("diverges");
    assert!(
        matches!(&error, StepError::Diverged { body, .. } if body == "ball"),
        "{error}"
    );
    assert!(sim.state().first_non_finite().is_none());
}
