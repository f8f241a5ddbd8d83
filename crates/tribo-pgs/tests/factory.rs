//! The factory: name, honoured parameters, option errors, unsupported scenes.

use nalgebra::{Isometry3, Vector3};
use tribo_engine::{BuildError, EngineFactory, EngineOptions, MaterialParameter};
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
    let reason = match PgsFactory.build(&ghost_scene, &EngineOptions::none()) {
        Err(BuildError::Unsupported { reason, .. }) => reason,
        other => unreachable!("a massless free body cannot be simulated, got {:?}", other.err()),
    };
    assert!(
        reason.starts_with("body `ghost`: test") && reason.contains("link `ghost` has mass 0 but moves (a free root)"),
        "{reason}"
    );
}

#[test]
fn lemke_solves_small_problems_like_pgs() {
    let table = pair_table(0.5, 0.5, 0.0);
    let b = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(0.2),
        },
        1.0,
        "Thing",
    );
    let s = scene(
        vec![
            ground(0.0, &table),
            place("box", b, Isometry3::translation(0.0, 0.0, 0.1), false, &table),
        ],
        table,
    );
    let mut sim = engine_with(&PgsFactory, &s, "solver: lemke\nfriction_cone: pyramid8\n");
    run(sim.as_mut(), &s, 1e-3, 100, |_| {});
    let total: f64 = sim.contacts().iter().map(|c| c.normal_force).sum();
    assert!((total / G - 1.0).abs() < 1e-6, "{total}");
}
