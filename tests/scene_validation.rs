#![allow(clippy::panic)]
//! A scene that loads is a scene every engine builds: masses, inertias and joint types are checked
//! once, when the project is assembled (`tribo_model::validate`), and an error names the `.body`
//! line of the link. The engines run the same check, so a scene built in code gets the same
//! located message from each of them. Fixtures: `tests/fixtures/hostile/`.

use std::path::PathBuf;
use std::sync::Arc;

use tribo_runner::{Commands, EngineOptions};
use tribo_scene::{LoadOptions, Project, Scene};
use tribo_yaml::Diagnostic;

fn hostile(name: &str) -> PathBuf {
    tribo_tests::root().join("tests/fixtures/hostile").join(name)
}

fn load(name: &str) -> Result<Project, Diagnostic> {
    let options = LoadOptions {
        share_dir: tribo_tests::root().join("share"),
        ..Default::default()
    };
    Project::load(&hostile(name), &options)
}

/// The 1-based line of the first line of `body` that contains `needle`.
fn line_of(body: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(hostile(body)).unwrap_or_else(|e| panic!("{body}: {e}"));
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{body} has no `{needle}`"))
}

/// Loading `project` fails at `body`'s line holding `link_line`, with a message containing `what`.
fn rejected_at(project: &str, body: &str, link_line: &str, what: &str) -> Diagnostic {
    let error = match load(project) {
        Ok(_) => panic!("{project} loaded, but every engine rejects it"),
        Err(e) => e,
    };
    assert!(error.location.file.ends_with(body), "{error}");
    assert_eq!(error.location.line, line_of(body, link_line), "{error}");
    assert!(error.location.col > 0, "{error}");
    assert!(error.message.contains(what), "{error}");
    error
}

#[test]
fn a_massless_moving_link_is_rejected_at_its_body_line() {
    let error = rejected_at(
        "massless-hand.yaml",
        "massless-hand.body",
        "- name: HAND",
        "link `HAND` has mass 0 but moves (its revolute joint `HAND`)",
    );
    // The massless fixed base of the same body is fine: the error is about the hand only.
    assert!(!error.message.contains("BASE"), "{error}");
}

#[test]
fn an_all_zero_inertia_on_a_free_body_is_rejected_at_its_body_line() {
    rejected_at(
        "flat-inertia.yaml",
        "flat-inertia.body",
        "- name: BALL",
        "link `BALL` has an inertia tensor that is not positive definite",
    );
}

#[test]
fn a_free_joint_below_the_root_is_rejected_at_its_body_line() {
    rejected_at(
        "loose-child.yaml",
        "loose-child.body",
        "- name: LID",
        "link `LID` has a free joint, but only the root link of a body can be free",
    );
}

/// The massless-floor scene with body 1 replaced by `model` (materials: the floor's, Default).
fn scene_with(model: &str) -> Arc<Scene> {
    let project = load("massless-floor.yaml").unwrap_or_else(|e| panic!("{e}"));
    let body = tribo_model::load_body(&hostile(model)).unwrap_or_else(|e| panic!("{e}"));
    let mut scene = (*project.scene).clone();
    let default = scene.bodies[0].link_materials[0];
    let subject = &mut scene.bodies[1];
    subject.link_materials = vec![default; body.links.len()];
    subject.initial_positions = vec![0.0; body.links.len()];
    subject.fixed_root = false;
    subject.model = Arc::new(body);
    Arc::new(scene)
}

#[test]
fn engines_give_the_same_located_error_for_a_scene_built_in_code() {
    let registry = tribo_tests::registry();
    for (model, link) in [
        ("massless-hand.body", "- name: HAND"),
        ("flat-inertia.body", "- name: BALL"),
        ("loose-child.body", "- name: LID"),
    ] {
        let scene = scene_with(model);
        let expected = tribo_model::validate(&scene.bodies[1].model, false).expect_err("rejected");
        assert_eq!(expected.location.line, line_of(model, link));
        for engine in ["rapier", "pgs"] {
            let factory = registry.get(engine).unwrap_or_else(|e| panic!("{e}"));
            let error = match factory.build(&scene, &EngineOptions::none()) {
                Ok(_) => panic!("{engine} built {model}"),
                Err(e) => e.to_string(),
            };
            assert!(error.contains(&expected.to_string()), "{engine}: {error}");
        }
    }
}

/// Steps `scene` on `engine` for `steps` steps of 1 ms with idle commands; the final state.
pub fn simulate(scene: &Arc<Scene>, engine: &str, steps: usize) -> tribo_runner::SceneState {
    let registry = tribo_tests::registry();
    let factory = registry.get(engine).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = factory
        .build(scene, &EngineOptions::none())
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
    let commands = Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()));
    for step in 0..steps {
        if let Err(e) = sim.step(1e-3, &commands) {
            panic!("{engine}, step {step}: {e}");
        }
    }
    sim.state().clone()
}

#[test]
fn a_massless_fixed_floor_loads_and_runs_on_every_engine() {
    let project = load("massless-floor.yaml").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(project.scene.bodies[0].model.total_mass(), 0.0);
    for engine in ["rapier", "pgs"] {
        let state = simulate(&project.scene, engine, 300);
        // The ball (radius 0.1 m) stays on the slab's top face at z = 0: centre at 0.1 m, within
        // 2 mm, after 0.3 s.
        let z = state.bodies[1].links[0].pose.translation.vector.z;
        assert!((z - 0.1).abs() < 2e-3, "{engine}: ball centre at z = {z}");
    }
}

#[test]
fn every_sample_and_fixture_project_still_loads() {
    let root = tribo_tests::root();
    let mut projects = Vec::new();
    for dir in ["samples", "tests/fixtures/hostile"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                projects.push(path.join(format!("{name}.yaml")));
            }
        }
    }
    projects.retain(|p| p.exists());
    assert!(projects.len() >= 5, "{projects:?}");
    let options = LoadOptions {
        share_dir: root.join("share"),
        ..Default::default()
    };
    for project in &projects {
        if let Err(e) = Project::load(project, &options) {
            panic!("{}: {e}", project.display());
        }
    }
    for fine in ["massless-floor.yaml", "ragdoll.yaml"] {
        if let Err(e) = load(fine) {
            panic!("{fine}: {e}");
        }
    }
}
