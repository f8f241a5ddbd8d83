//! The factory's public face: name, honoured parameters, option and scene errors, command errors,
//! divergence.

use std::sync::Arc;

use nalgebra::{Isometry3, Vector3};
use tribo_engine::{
    BuildError, EngineFactory, EngineOptions, JointCommand, KinematicTarget, LinkWrench, MaterialParameter, StepError,
};
use tribo_model::{Geometry, JointKind};
use tribo_rapier::RapierFactory;
use tribo_testkit::*;

fn falling_box() -> Arc<tribo_engine::Scene> {
    box_above_ground(0.0, 1.0)
}

#[test]
fn factory_names_itself_and_its_honoured_parameters() {
    assert_eq!(RapierFactory.name(), "rapier");
    assert!(!RapierFactory.description().is_empty());
    assert_eq!(
        RapierFactory.honoured_parameters(),
        [
            MaterialParameter::StaticFriction,
            MaterialParameter::DynamicFriction,
            MaterialParameter::Restitution
        ]
    );
    let engine = engine(&RapierFactory, &falling_box());
    assert_eq!(engine.name(), "rapier");
    assert_eq!(engine.time(), 0.0);
    assert!(engine.contacts().is_empty());
}

#[test]
fn unknown_option_is_a_located_error() {
    let node = tribo_yaml::parse_str("substeps: 4\nfriction_modle: coulomb\n", "project.yaml").expect("YAML");
    let error = RapierFactory
        .build(&falling_box(), &EngineOptions { node: Some(node) })
        .err()
        .expect("rejected");
    assert!(
        matches!(error, BuildError::Option(_)),
        "expected an option error, got {error}"
    );
    assert_eq!(
        error.to_string(),
        "project.yaml:2:1: unknown key `friction_modle` in the rapier engine options (did you mean `friction_model`?)"
    );
}

#[test]
fn unrepresentable_scenes_are_refused_with_a_reason() {
    let table = pair_table(0.5, 0.5, 0.0);
    let a = link(
        "a",
        None,
        joint(JointKind::Free, "root", Vector3::z()),
        Isometry3::identity(),
        1.0,
        "Thing",
    );
    let b = link(
        "b",
        Some(0),
        joint(JointKind::Free, "loose", Vector3::z()),
        Isometry3::identity(),
        1.0,
        "Thing",
    );
    let scene = scene(
        vec![place(
            "robot",
            body("robot", vec![a, b]),
            Isometry3::identity(),
            false,
            &table,
        )],
        table,
    );
    let error = RapierFactory
        .build(&scene, &EngineOptions::none())
        .err()
        .expect("refused");
    // The scene check every engine shares (`tribo_model::validate`), located at the link.
    let text = error.to_string();
    assert!(
        text.starts_with("engine `rapier` cannot simulate this scene: body `robot`: test")
            && text.contains("link `b` has a free joint, but only the root link of a body can be free"),
        "{text}"
    );

    let table = pair_table(0.5, 0.5, 0.0);
    let ghost = solid("ghost", Geometry::Sphere { radius: 0.1 }, 0.0, "Thing");
    let ghost_scene = tribo_testkit::scene(vec![place("ghost", ghost, Isometry3::identity(), false, &table)], table);
    let error = RapierFactory
        .build(&ghost_scene, &EngineOptions::none())
        .err()
        .expect("refused");
    assert!(
        error
            .to_string()
            .contains("link `ghost` has mass 0 but moves (a free root)"),
        "{error}"
    );

    let table = pair_table(0.5, 0.5, 0.0);
    let flat = solid(
        "flat",
        Geometry::Box {
            size: Vector3::new(1.0, 0.0, 1.0),
        },
        1.0,
        "Thing",
    );
    let flat_scene = tribo_testkit::scene(vec![place("flat", flat, Isometry3::identity(), false, &table)], table);
    let error = RapierFactory
        .build(&flat_scene, &EngineOptions::none())
        .err()
        .expect("refused");
    assert!(
        error
            .to_string()
            .ends_with("body `flat`: link `flat`: Box size y must be a positive length, found 0"),
        "{error}"
    );
}

#[test]
fn bad_commands_are_step_errors() {
    let scene = falling_box();
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    commands.bodies[1].joints[0] = JointCommand::Pd {
        q_ref: 0.0,
        v_ref: 0.0,
        kp: 1.0,
        kd: 0.0,
        feedforward: 0.0,
    };
    let error = engine.step(1e-3, &commands).expect_err("no joint to drive");
    assert_eq!(
        error.to_string(),
        "invalid command: body `box`: link `box` has no revolute or prismatic joint to drive"
    );

    let mut commands = idle(&scene);
    commands.bodies[1].root_target = Some(KinematicTarget {
        pose: Isometry3::identity(),
        linear_velocity: Vector3::zeros(),
        angular_velocity: Vector3::zeros(),
    });
    let error = engine.step(1e-3, &commands).expect_err("free root");
    assert!(
        matches!(&error, StepError::InvalidCommand { what }
            if what == "body `box`: a root target needs a fixed root, but this root is free"),
        "{error:?}"
    );

    let mut commands = idle(&scene);
    commands.bodies[1].link_wrenches.push(LinkWrench {
        link: 3,
        force: Vector3::zeros(),
        torque: Vector3::zeros(),
    });
    let error = engine.step(1e-3, &commands).expect_err("a missing link");
    assert!(
        matches!(&error, StepError::InvalidCommand { what }
            if what == "body `box`: wrench on link 3 but it has 1 links"),
        "{error:?}"
    );

    for dt in [0.0, -1e-3, f64::NAN] {
        let error = engine.step(dt, &idle(&scene)).expect_err("bad dt");
        assert!(
            matches!(error, StepError::InvalidTimeStep { dt: found } if found.to_bits() == dt.to_bits()),
            "{error:?}"
        );
        assert!(error
            .to_string()
            .starts_with("the time step must be positive and finite, found "));
    }
    assert_eq!(engine.time(), 0.0, "failed steps do not advance time");
}

#[test]
fn link_wrench_lasts_one_step() {
    // 4 N upward on the 1 kg box for one 1 ms step: Δv = (F/m − g) dt, then free fall again.
    let scene = falling_box();
    let mut engine = engine(&RapierFactory, &scene);
    let mut commands = idle(&scene);
    commands.bodies[1].link_wrenches.push(LinkWrench {
        link: 0,
        force: Vector3::new(0.0, 0.0, 4.0),
        torque: Vector3::zeros(),
    });
    engine.step(1e-3, &commands).expect("step");
    let v1 = engine.state().bodies[1].links[0].linear_velocity.z;
    assert!((v1 - (4.0 - G) * 1e-3).abs() < 1e-12, "v = {v1}");
    engine.step(1e-3, &idle(&scene)).expect("step");
    let v2 = engine.state().bodies[1].links[0].linear_velocity.z;
    assert!(
        (v2 - v1 + G * 1e-3).abs() < 1e-12,
        "the wrench is gone: Δv = {}",
        v2 - v1
    );
}

#[test]
fn divergence_names_the_body_and_keeps_the_last_finite_state() {
    let scene = falling_box();
    let mut engine = engine(&RapierFactory, &scene);
    run(engine.as_mut(), &scene, 1e-3, 10, |_| {});
    let before = engine.state().clone();
    let mut commands = idle(&scene);
    commands.bodies[1].link_wrenches.push(LinkWrench {
        link: 0,
        force: Vector3::new(f64::MAX, 0.0, 0.0),
        torque: Vector3::new(0.0, f64::MAX, 0.0),
    });
    let error = engine.step(1e-3, &commands).expect_err("diverges");
    assert!(
        matches!(&error, StepError::Diverged { step: 11, body, .. } if body == "box"),
        "expected a divergence of `box` at step 11, got {error}"
    );
    eprintln!("{error}");
    assert!(engine.state().first_non_finite().is_none());
    assert_eq!(engine.state(), &before);
    assert_eq!(
        engine
            .step(1e-3, &idle(&scene))
            .expect_err("stays diverged")
            .to_string(),
        error.to_string()
    );
}
