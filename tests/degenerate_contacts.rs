#![allow(clippy::panic)]
//! Contacts that can carry no impulse: a ragdoll whose non-adjacent links overlap along directions
//! their hinges cannot move (tests/fixtures/hostile/ragdoll.body), run with self-collision on.
//! pgs drops such contacts (their Delassus diagonal vanishes) and says so in the step warnings,
//! instead of failing the step.

use std::sync::Arc;

use tribo_runner::{Commands, EngineOptions, SceneState};
use tribo_scene::{LoadOptions, Project, Scene};

fn ragdoll() -> Project {
    let options = LoadOptions {
        share_dir: tribo_tests::root().join("share"),
        ..Default::default()
    };
    Project::load(
        &tribo_tests::root().join("tests/fixtures/hostile/ragdoll.yaml"),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Steps `scene` on `engine` for `steps` steps of 1 ms; the final state and every distinct warning.
fn simulate(scene: &Arc<Scene>, engine: &str, steps: usize) -> (SceneState, Vec<String>) {
    let registry = tribo_tests::registry();
    let factory = registry.get(engine).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = factory
        .build(scene, &EngineOptions::none())
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
    let commands = Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()));
    let mut warnings: Vec<String> = Vec::new();
    for step in 0..steps {
        let report = sim
            .step(1e-3, &commands)
            .unwrap_or_else(|e| panic!("{engine}, step {step}: {e}"));
        for w in report.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    (sim.state().clone(), warnings)
}

#[test]
fn the_ragdoll_falls_on_every_engine() {
    let project = ragdoll();
    for engine in ["rapier", "pgs"] {
        let (state, warnings) = simulate(&project.scene, engine, 500);
        let ragdoll = &state.bodies[1];
        let pelvis = ragdoll.links[0].pose.translation.vector;
        // Released at 0.95 m with its feet 5.5 cm above the floor, it lands and its knees and hips
        // fold (no actuation): after 0.5 s the pelvis is lower but well above the floor, near
        // where it started in x and y, and nothing moves faster than a fall from 1 m (4.5 m/s).
        assert!(pelvis.z > 0.3 && pelvis.z < 0.9, "{engine}: pelvis at {pelvis:?}");
        assert!(pelvis.xy().norm() < 0.2, "{engine}: pelvis at {pelvis:?}");
        for (link, model) in ragdoll.links.iter().zip(&project.scene.bodies[1].model.links) {
            let speed = link.linear_velocity.norm();
            assert!(speed < 4.5, "{engine}: {} moves at {speed} m/s", model.name);
        }
        if engine == "pgs" {
            // The thighs overlap by 1 cm along the hip axis from the first step: dropped, named.
            assert!(
                warnings.iter().any(|w| w.starts_with(
                    "contacts between link `THIGH_R` of `ragdoll` and link `THIGH_L` of `ragdoll` dropped"
                )),
                "{warnings:#?}"
            );
        }
    }
}

/// The rail fixture (tests/fixtures/hostile/rail-wall.yaml) with the wall at `(wall_x, wall_y)`.
fn rail_and_wall(wall_x: &str, wall_y: &str) -> Project {
    let options = LoadOptions {
        share_dir: tribo_tests::root().join("share"),
        overrides: [("wall_x", wall_x), ("wall_y", wall_y)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    Project::load(
        &tribo_tests::root().join("tests/fixtures/hostile/rail-wall.yaml"),
        &options,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A contact between two bodies whose normal no joint can move: a carriage on a rail along x
/// overlapping a fixed wall by 1 mm across the rail (normal ±y). Its Delassus diagonal vanishes, so
/// pgs drops it and names the pair (the screen then reads the assembled operator's diagonal,
/// degenerate.rs), and the carriage does not move. With the wall along the rail instead, the same
/// overlap is an ordinary contact: nothing is dropped and the carriage is pushed back along −x.
#[test]
fn a_contact_across_a_rail_is_dropped_and_one_along_it_pushes() {
    let dropped = "contacts between link `CARRIAGE` of `rail` and link `Box` of `wall` dropped";
    let (state, warnings) = simulate(&rail_and_wall("0", "0.099").scene, "pgs", 100);
    assert!(warnings.iter().any(|w| w.starts_with(dropped)), "{warnings:#?}");
    let q = state.bodies[0].joint_positions[1];
    assert!(q.abs() < 1e-12, "the carriage moved to {q} m");

    let (state, warnings) = simulate(&rail_and_wall("0.099", "0").scene, "pgs", 100);
    assert!(!warnings.iter().any(|w| w.starts_with(dropped)), "{warnings:#?}");
    let (q, v) = (state.bodies[0].joint_positions[1], state.bodies[0].joint_velocities[1]);
    assert!(
        q < -1e-4 && q.is_finite() && v.is_finite(),
        "carriage at {q} m, {v} m/s"
    );
}
