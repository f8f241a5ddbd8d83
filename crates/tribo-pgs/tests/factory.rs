//! The factory: name, honoured parameters, option errors, unsupported scenes.

use nalgebra::{Isometry3, Vector3};
use tribo_engine::{BuildError, EngineFactory, EngineOptions, JointCommand, LinkWrench, MaterialParameter, StepError};
use tribo_model::Geometry;
use tribo_pgs::PgsFactory;
use tribo_testkit::*;

#[test]
fn declares_what_it_honours() {
    assert_eq!(PgsFactory.name(), "pgs");
    assert!(PgsFactory
        .honoured_parameters()
        .contains(&MaterialParameter::ContactCulling));
    assert!(PgsFactory
        .honoured_parameters()
        .contains(&MaterialParameter::Compliance));
    assert!(!PgsFactory.honoured_parameters().contains(&MaterialParameter::Cslc));
}

#[test]
fn bad_options_and_scenes_are_build_errors() {
    let table = pair_table(0.5, 0.5, 0.0);
    let b = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(0.1),
        },
        1.0,
        "Thing",
    );
    let s = scene(
        vec![place("box", b, Isometry3::identity(), false, &table)],
        table.clone(),
    );
    let node = tribo_yaml::parse_str("iterations: 10\nfriction_cones: box\n", "project.yaml").expect("yaml");
    let d = match PgsFactory.build(&s, &EngineOptions { node: Some(node) }) {
        Err(BuildError::Option(d)) => d,
        other => unreachable!("expected an option error, got {:?}", other.err()),
    };
    assert_eq!(
        d.to_string(),
        "project.yaml:2:1: unknown key `friction_cones` in the pgs engine options (did you mean `friction_cone`?)"
    );

    let ghost = solid("ghost", Geometry::Sphere { radius: 0.1 }, 0.0, "Thing");
    let ghost_scene = tribo_testkit::scene(vec![place("ghost", ghost, Isometry3::identity(), false, &table)], table);
    let error = match PgsFactory.build(&ghost_scene, &EngineOptions::none()) {
        Err(error @ BuildError::Body { .. }) => error,
        other => unreachable!("a massless free body cannot be simulated, got {:?}", other.err()),
    };
    let BuildError::Body { engine, body, reason } = &error else {
        unreachable!()
    };
    assert_eq!((*engine, body.as_str()), ("pgs", "ghost"));
    assert!(
        reason.starts_with("<code>") && reason.contains("link `ghost` has mass 0 but moves (a free root)"),
        "{reason}"
    );
    assert!(
        error
            .to_string()
            .starts_with("engine `pgs` cannot simulate this scene: body `ghost`: <code>"),
        "{error}"
    );
    assert!(error.is_scene_error());
}

#[test]
fn lemke_solves_small_problems_like_pgs() {
    let s = box_above_ground(0.0, 0.1);
    let mut sim = engine_with(&PgsFactory, &s, "solver: lemke\nfriction_cone: pyramid8\n");
    run(sim.as_mut(), &s, 1e-3, 100, |_| {});
    let total: f64 = sim.contacts().iter().map(|c| c.normal_force).sum();
    assert!((total / G - 1.0).abs() < 1e-6, "{total}");
}

/// A 0.2 m box resting on the ground (4 corner contacts).
fn resting_box() -> std::sync::Arc<tribo_engine::Scene> {
    box_above_ground(0.0, 0.1)
}

#[test]
fn bad_steps_and_commands_are_typed_step_errors() {
    let s = resting_box();
    let mut sim = engine(&PgsFactory, &s);

    for dt in [0.0, -1e-3, f64::NAN, f64::INFINITY] {
        let error = sim.step(dt, &idle(&s)).expect_err("bad dt");
        assert!(
            matches!(error, StepError::InvalidTimeStep { dt: found } if found.to_bits() == dt.to_bits()),
            "{error:?}"
        );
        assert!(error
            .to_string()
            .starts_with("the time step must be positive and finite, found "));
    }

    let mut commands = idle(&s);
    commands.bodies[1].link_wrenches.push(LinkWrench {
        link: 7,
        force: Vector3::zeros(),
        torque: Vector3::zeros(),
    });
    let error = sim.step(1e-3, &commands).expect_err("a missing link");
    assert!(
        matches!(&error, StepError::InvalidCommand { what }
            if what == "body `box`: a link wrench names link 7, which does not exist"),
        "{error:?}"
    );

    let mut commands = idle(&s);
    commands.bodies[1].joints[0] = JointCommand::Effort(1.0);
    let error = sim
        .step(1e-3, &commands)
        .expect_err("a free root has no joint to drive");
    assert_eq!(
        error.to_string(),
        "invalid command: body `box`: link `box` has no revolute or prismatic joint to drive"
    );

    assert_eq!(sim.time(), 0.0, "failed steps do not advance time");
    sim.step(1e-3, &idle(&s)).expect("the engine still steps");
}

#[test]
fn lemke_above_its_contact_limit_is_a_typed_step_error() {
    let s = resting_box();
    let mut sim = engine_with(
        &PgsFactory,
        &s,
        "solver: lemke\nfriction_cone: pyramid4\nlemke_max_contacts: 1\n",
    );
    let error = sim.step(1e-3, &idle(&s)).expect_err("4 contacts, limit 1");
    match &error {
        StepError::TooManyContacts {
            solver,
            option,
            limit,
            contacts,
        } => {
            assert_eq!((*solver, *option, *limit), ("lemke", "lemke_max_contacts", 1));
            assert!(*contacts > 1, "{contacts}");
        }
        other => unreachable!("expected too many contacts, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("solver `lemke` is limited to 1 contacts (`lemke_max_contacts`), this step has "),
        "{error}"
    );
}
