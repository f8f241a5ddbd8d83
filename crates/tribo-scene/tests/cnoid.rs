//! Choreonoid `.cnoid` projects: Choreonoid's SR1WalkSlippy sample (kept in `share/choreonoid`)
//! and small projects in `tests/fixtures/cnoid/` that use tribo's own `share/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tribo_scene::{ControllerSpec, LoadOptions, MetricKind, PatternMode, Project};
use tribo_yaml::Diagnostic;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// tribo's `share/`.
fn tribo_share() -> PathBuf {
    manifest().join("../../share")
}

/// Choreonoid's files as the repository keeps them (`share/choreonoid`, MIT licence beside them).
fn choreonoid() -> PathBuf {
    manifest().join("../../share/choreonoid")
}

fn options(share: PathBuf, overrides: &[(&str, &str)]) -> LoadOptions {
    LoadOptions {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        share_dir: share,
        ..Default::default()
    }
}

fn fixture(name: &str) -> PathBuf {
    manifest().join("tests/fixtures/cnoid").join(name)
}

fn load_fixture(name: &str) -> Result<Project, Diagnostic> {
    Project::load(&fixture(name), &options(tribo_share(), &[]))
}

/// The warnings of a project as `LINE: message` (file names left out).
fn warning_lines(project: &Project) -> Vec<String> {
    project
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.location.line, w.message))
        .collect()
}

fn has(lines: &[String], wanted: &str) -> bool {
    lines.iter().any(|l| l == wanted)
}

#[test]
fn sr1_walk_slippy_becomes_a_tribo_project() {
    let dir = choreonoid();
    let path = dir.join("SR1WalkSlippy.cnoid");
    let project = Project::load(&path, &options(dir.clone(), &[])).expect("SR1WalkSlippy.cnoid loads");
    let scene = &project.scene;

    // Bodies: SR1 on its initial pose, the floor fixed with its top at z = 0.
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["SR1", "Floor"]);
    let sr1 = &scene.bodies[0];
    assert_eq!(sr1.model.links.len(), 30);
    assert!(!sr1.fixed_root);
    assert!((sr1.root_pose.translation.vector.z - 0.7135).abs() < 1e-12);
    assert!(sr1.root_pose.rotation.angle() < 1e-12);
    assert!(scene.bodies[1].fixed_root);
    assert!((scene.bodies[1].root_pose.translation.vector.z + 0.1).abs() < 1e-12);

    // joint_displacements are degrees in joint-id order: id 3 (RLEG_KNEE) 4.50001°, id 9
    // (RARM_ELBOW) −90°, id 14 (LLEG_HIP_P) −2.1°.
    let q = |id: usize| {
        let link = sr1.model.joint_link(id).expect("joint id");
        sr1.initial_positions[link]
    };
    assert!((q(3) - 4.50001_f64.to_radians()).abs() < 1e-12, "{}", q(3));
    assert!((q(9) + std::f64::consts::FRAC_PI_2).abs() < 1e-12, "{}", q(9));
    assert!((q(14) - (-2.1_f64).to_radians()).abs() < 1e-12, "{}", q(14));

    // The AIST simulator's settings; Choreonoid's default gravity; the run lasts the pattern.
    assert_eq!(project.simulation.time_step, 0.002);
    assert_eq!(scene.gravity.z, -9.80665);
    assert!(
        (project.simulation.duration - 13.4).abs() < 1e-9,
        "{}",
        project.simulation.duration
    );

    // The default table with SlippyMaterialSet.yaml merged over it.
    assert!(project
        .material_files
        .iter()
        .any(|p| p.ends_with("SlippyMaterialSet.yaml")));
    let ground = scene.contacts.id("Ground").expect("Ground");
    let sole = scene.contacts.id("Sole").expect("Sole");
    let pair = scene.contacts.pair(ground, sole);
    assert_eq!(pair.static_friction, 0.01);
    assert_eq!(pair.dynamic_friction, 0.01);

    // SR1WalkPatternController → joint_pattern, torque mode, Choreonoid's gains by joint id.
    assert_eq!(project.controllers.len(), 1);
    let ControllerSpec::JointPattern(pattern) = &project.controllers[0] else {
        unreachable!(
            "expected a joint_pattern controller, found {:?}",
            project.controllers[0]
        )
    };
    assert_eq!(pattern.body, 0);
    assert_eq!(pattern.mode, PatternMode::Torque);
    assert!(pattern.end_with_motion);
    assert_eq!(pattern.motion.num_parts, 29);
    assert_eq!(pattern.gains.len(), 29);
    for (id, gains) in pattern.gains.iter().enumerate() {
        let arm = (6..=12).contains(&id) || (19..=25).contains(&id);
        assert_eq!(*gains, (if arm { 3000.0 } else { 8000.0 }, 100.0), "joint id {id}");
    }

    // Default metrics on SR1's waist, foot slip on the Sole ankles against the floor.
    let metrics: Vec<&str> = project.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        metrics,
        [
            "forward_progress",
            "lateral_drift",
            "fell",
            "max_tilt",
            "max_yaw",
            "foot_slip"
        ]
    );
    let Some(MetricKind::FootSlip { feet, ground, .. }) = project.metrics.last().map(|m| &m.kind) else {
        unreachable!("foot_slip is last")
    };
    let feet: Vec<&str> = feet.iter().map(|l| sr1.model.links[l.link].name.as_str()).collect();
    assert_eq!(feet, ["LLEG_ANKLE_R", "RLEG_ANKLE_R"]);
    assert_eq!(*ground, 1);

    // Everything not simulated is listed with its line.
    let lines = warning_lines(&project);
    for wanted in [
        "1: ignored: top-level `optional_plugins` (Choreonoid plugins to load)",
        "17: ignored: `collision_detection` of WorldItem `World` (the GUI's collision display)",
        "18: ignored: `collision_detector` of WorldItem `World` (tribo's engines detect collisions themselves)",
        "30: ignored: `current_base_link`, `lock_location`, `scene_sensitive` of BodyItem `SR1` \
         (editor state, no effect on a simulation)",
        "51: ignored: `base_directory`, `reloading`, `export_symbols` of SimpleControllerItem \
         `SR1WalkController` (how Choreonoid loads the module)",
        "91: ignored: `time_length: 60` (the run lasts the controller's pattern, 13.4 s; `--time S` sets \
         another length)",
        "105: ignored: PhysXSimulatorItem `PhysXSimulator` (this run follows AISTSimulatorItem \
         `AISTSimulator`; pick another with --set simulator=NAME, and the engine with --engine)",
    ] {
        assert!(has(&lines, wanted), "missing `{wanted}` in\n{}", lines.join("\n"));
    }
    let simulators = lines.iter().filter(|l| l.contains("SimulatorItem `")).count();
    assert_eq!(simulators, 7, "{}", lines.join("\n"));
    assert!(project.warnings.iter().all(|w| !w.is_error()));
}

#[test]
fn sr1_files_are_found_next_to_the_project_without_a_share_directory() {
    let dir = choreonoid();
    // tribo's share/ has neither SR1.body nor the pattern: they come from the project's directory
    // (model/, motion/, materials/), and each such find is reported.
    let project = Project::load(&dir.join("SR1WalkSlippy.cnoid"), &options(tribo_share(), &[])).expect("loads");
    assert_eq!(project.controllers.len(), 1);
    let lines = warning_lines(&project);
    assert!(
        lines.iter().any(|l| l
            .starts_with("28: body model `${SHARE}/model/SR1/SR1.body` is not at Choreonoid's location; using `")
            && l.ends_with("model/SR1.body`")),
        "{}",
        lines.join("\n")
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("76: material table `SlippyMaterialSet.yaml`")),
        "{}",
        lines.join("\n")
    );
}

#[test]
fn the_high_gain_simulator_wants_a_pattern_the_share_lacks() {
    let dir = choreonoid();
    let path = dir.join("SR1WalkSlippy.cnoid");
    let opts = options(dir.clone(), &[("simulator", "AISTSimulator-HighGain")]);
    let project = Project::load(&path, &opts).expect("loads");
    assert_eq!(
        project.parameters.get("simulator").map(|v| v.display()).as_deref(),
        Some("AISTSimulator-HighGain")
    );
    if dir.join("motion/SR1WalkPattern2.seq").is_file() || dir.join("motion/SR1/SR1WalkPattern2.seq").is_file() {
        let ControllerSpec::JointPattern(p) = &project.controllers[0] else {
            unreachable!()
        };
        assert_eq!(p.mode, PatternMode::Position);
        return;
    }
    assert!(project.controllers.is_empty());
    let lines = warning_lines(&project);
    assert!(
        lines.iter().any(|l| l.starts_with(
            "46: ignored: SimpleControllerItem `SR1WalkController`: its pattern `SR1WalkPattern2.seq` is in none of "
        ) && l.ends_with("so `SR1` is not driven")),
        "{}",
        lines.join("\n")
    );

    let wrong = options(dir, &[("simulator", "AISTSimulater")]);
    let err = Project::load(&path, &wrong).expect_err("unknown simulator");
    assert!(
        err.to_string().starts_with(
            "command line: no simulator item named `AISTSimulater` (did you mean `AISTSimulator`?); this project has: \
             AISTSimulator, AISTSimulator-HighGain, PhysXSimulator"
        ),
        "{err}"
    );
}

#[test]
fn a_small_cnoid_with_tribos_share() {
    let project = load_fixture("ball-drop.cnoid").expect("ball-drop.cnoid loads");
    let scene = &project.scene;
    let ball = &scene.bodies[0];
    assert_eq!(ball.name, "Ball");
    // rootAttitude is a row-major 3×3 matrix: 90° about z.
    assert!((ball.root_pose.rotation.angle() - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    assert!((ball.root_pose.rotation.axis().expect("axis").z - 1.0).abs() < 1e-9);
    assert_eq!(ball.root_pose.translation.vector.z, 1.0);
    assert_eq!(project.simulation.time_step, 0.001);
    assert_eq!(project.simulation.duration, 2.0);
    assert_eq!(scene.gravity.z, -9.81);
    assert!(project.controllers.is_empty());
    // AIST culling depth goes to the pgs engine.
    let pgs = project.engine_options("pgs").expect("pgs options");
    let depth = pgs
        .as_map()
        .ok()
        .and_then(|m| m.get("culling_depth"))
        .and_then(|n| n.as_f64().ok());
    assert_eq!(depth, Some(0.04));
    // A free ball that no walking pattern drives gets free-body metrics, not a walker's.
    let metrics: Vec<&str> = project.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        metrics,
        ["displacement", "height_change", "max_tilt", "max_penetration"]
    );

    let lines = warning_lines(&project);
    let expected = [
        "2: ignored: top-level `optional_plugins` (Choreonoid plugins to load)",
        "15: ignored: `collision_detection` of WorldItem `World` (the GUI's collision display)",
        "27: ignored: `scene_sensitive` of BodyItem `Ball` (editor state, no effect on a simulation)",
        "28: ignored: unknown setting `wobble` of BodyItem `Ball`",
        "40: ignored: SensorVisualizerItem `Sensors` (tribo has no counterpart for this item class)",
        "51: no controller ends this run and time_range_mode is not `specified` (Choreonoid would run until \
         stopped): it runs time_length = 2 s; `--time S` sets another length",
        "52: ignored: `realtime_sync_mode` of AISTSimulatorItem `AISTSimulator` (recording, display and \
         threads: no effect on the results)",
        "53: ignored: `max_num_iterations` of AISTSimulatorItem `AISTSimulator` (AIST solver settings; tribo's \
         engines take their own, see `tribo engines` and engine_options)",
        "55: ignored: top-level `views` (GUI state)",
    ];
    assert_eq!(lines, expected, "\n{}", lines.join("\n"));
}

#[test]
fn malformed_projects_fail_with_located_errors() {
    let cases = [
        ("no-items.cnoid", "1:1: missing required key `items`"),
        ("bad-joint-value.cnoid", "11:39: expected a number, found `ninety`"),
        (
            "unknown-variable.cnoid",
            "10:19: cannot expand `${SHAER}` in `${SHAER}/model/ball.body` (did you mean `SHARE`?)",
        ),
        (
            "not-a-rotation.cnoid",
            "11:27: this 3×3 matrix is not a rotation (its rows must be orthonormal, determinant +1)",
        ),
        (
            "no-world.cnoid",
            "1:1: this project has no BodyItem under a WorldItem: nothing to simulate",
        ),
    ];
    for (name, wanted) in cases {
        let err = load_fixture(name).expect_err(name);
        let wanted = format!("{}:{wanted}", fixture(name).display());
        assert_eq!(err.to_string(), wanted);
    }
    let err = load_fixture("missing-model.cnoid").expect_err("missing model");
    let text = err.to_string();
    let head = format!(
        "{}:10:19: cannot find body model `${{SHARE}}/model/robot/robot.body` (looked at `",
        fixture("missing-model.cnoid").display()
    );
    assert!(text.starts_with(&head), "{text}");
    assert!(
        text.ends_with("give Choreonoid's share directory with --share DIR"),
        "{text}"
    );
    let err = load_fixture("bad-yaml.cnoid").expect_err("bad yaml");
    assert!(err
        .to_string()
        .starts_with(&format!("{}:", fixture("bad-yaml.cnoid").display())));
    assert!(err.location.line > 0, "{err}");
}
