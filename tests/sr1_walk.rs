#![allow(clippy::panic)]
//! Choreonoid's SR1 walk (SR1.body + SR1WalkPattern1.seq + SR1WalkPatternController's PD law,
//! kept in share/choreonoid) on every engine: it walks the 13.4 s pattern without falling
//! on the default table, and its stance feet slide with Choreonoid's SlippyMaterialSet. On the
//! default table its WAIST travels what the pattern's kinematics imply (within 15 %).

use tribo_tests::{expected, load, metric, metrics_snapshot, run};

const PROJECT: &str = "tests/fixtures/sr1-walk/sr1-walk.yaml";
const SLIPPY: &str = "share/choreonoid/materials/SlippyMaterialSet.yaml";

fn fell(outcome: &tribo_runner::RunOutcome) -> bool {
    let m = outcome.metrics.iter().find(|m| m.name == "fell").expect("fell metric");
    m.value == tribo_runner::MetricValue::Bool(true)
}

/// The forward distance SR1WalkPattern1.seq implies: the WAIST's travel when the pattern is
/// replayed by forward kinematics with the stance foot fixed (`tribo_gait::implied_progress`).
fn implied_progress(project: &tribo_scene::Project) -> f64 {
    let Some(tribo_scene::ControllerSpec::JointPattern(pattern)) = project.controllers.first() else {
        panic!("{PROJECT}: the first controller should play the walk pattern");
    };
    let body = &project.scene.bodies[pattern.body].model;
    tribo_gait::implied_progress(body, &pattern.motion, &["RLEG_ANKLE_R", "LLEG_ANKLE_R"])
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Adds a `zmp_error` metric (RMS) against the ZMP SR1WalkPattern1.seq implies. The file has no
/// ZMP component, so the project cannot name a plan; the implied one is the multibody ZMP of
/// the pattern replayed with the stance foot fixed (`tribo_gait::implied_zmp`), with
/// derivatives over ±50 ms to smooth the pattern's 3-digit rounding (the RMS error below changes
/// by < 1 mm between ±50 and ±120 ms; at ±20 ms the rounding adds 1.2 cm).
fn with_implied_zmp(project: &mut tribo_scene::Project) {
    const HALF_WINDOW: usize = 25;
    let Some(tribo_scene::ControllerSpec::JointPattern(pattern)) = project.controllers.first() else {
        panic!("{PROJECT}: the first controller should play the walk pattern");
    };
    let scene_body = &project.scene.bodies[pattern.body];
    let body = &scene_body.model;
    let feet = ["RLEG_ANKLE_R", "LLEG_ANKLE_R"];
    let replay = tribo_gait::stance_replay(
        body,
        &pattern.motion,
        &feet,
        &scene_body.root_pose,
        tribo_gait::STANCE_HYSTERESIS,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let gravity = project.scene.gravity.norm();
    let planned = tribo_gait::implied_zmp(body, &pattern.motion, &replay, gravity, 0.0, HALF_WINDOW);
    let links = feet.map(|f| tribo_scene::LinkRef {
        body: pattern.body,
        link: body.link_index(f).unwrap_or_else(|| panic!("no link {f}")),
    });
    let floor = project
        .scene
        .bodies
        .iter()
        .position(|b| b.name == "floor")
        .expect("a floor");
    project.metrics.push(tribo_scene::MetricSpec {
        name: "zmp_error".to_string(),
        kind: tribo_scene::MetricKind::ZmpError {
            feet: links.to_vec(),
            ground: floor,
            planned: std::sync::Arc::new(planned),
            force_threshold: 0.1 * body.total_mass() * gravity,
            window: tribo_scene::Window {
                start: 0.0,
                end: f64::INFINITY,
            },
            reduce: tribo_scene::Reduce::Rms,
        },
        expected: None,
        tolerance: None,
        unit: "m".into(),
    });
}

fn walk(engine: &str) {
    let mut project = load(PROJECT, &[], &[]);
    let implied = implied_progress(&project);
    with_implied_zmp(&mut project);
    let normal = run(&project, engine);
    assert!(!fell(&normal), "{engine}: SR1 fell on the default table");
    // Implied 0.4394 m; measured 0.4457 m on rapier, 0.4458 m on pgs (+1.4 %). The project's
    // `implied_progress` parameter, the metric's expectation, must be the computed value.
    let progress = metric(&normal, "forward_progress");
    println!("{engine}: SR1 forward progress {progress:.4} m; the pattern implies {implied:.4} m");
    let stated = expected(&normal, "forward_progress");
    assert!(
        (stated - implied).abs() < 5e-4,
        "{PROJECT} expects {stated} m but the pattern implies {implied} m"
    );
    assert!(
        (progress - implied).abs() <= 0.15 * implied,
        "{engine}: SR1 walked {progress} m, the pattern implies {implied} m ± 15 %"
    );
    // RMS distance between the floor's CoP under the feet and the implied ZMP: rapier 0.0763 m,
    // pgs 0.0766 m. Bound: about 1.5 ×.
    let zmp = metric(&normal, "zmp_error");
    println!("{engine}: SR1 RMS ZMP error {zmp:.4} m against the pattern's implied ZMP");
    assert!(zmp < 0.12, "{engine}: SR1's RMS ZMP error is {zmp} m (bound 0.12 m)");
    let slip = metric(&normal, "foot_slip");
    assert!(
        slip < 0.05,
        "{engine}: SR1's stance feet slid {slip} m on the default table"
    );
    insta::assert_snapshot!(format!("sr1_{engine}"), metrics_snapshot(&normal));

    let mut slippy = load(PROJECT, &[], &[SLIPPY]);
    with_implied_zmp(&mut slippy);
    let slippy = run(&slippy, engine);
    let slip = metric(&slippy, "foot_slip");
    assert!(
        slip > 0.05,
        "{engine}: with the slippy set SR1's feet slid only {slip} m"
    );
    insta::assert_snapshot!(format!("sr1_slippy_{engine}"), metrics_snapshot(&slippy));
}

#[test]
fn sr1_walks_on_pgs_and_slips_with_the_slippy_set() {
    walk("pgs");
}

#[test]
fn sr1_walks_on_rapier_and_slips_with_the_slippy_set() {
    walk("rapier");
}

/// On `cslc` the soles are 25 × 14 lattice pads with the stiff skin of the fixture's sole.yaml
/// (k_a 1e11 N/m³; measured 0.4449 m forward, foot slip 2.6 cm). With k_a ≤ 1e9 N/m³ SR1 falls
/// within 9 s: its high-gain gait, tuned on rigid contact, does not tolerate compliant feet.
#[test]
fn sr1_walks_on_cslc_and_slips_with_the_slippy_set() {
    walk("cslc");
}

/// SR1 from its URDF walks as SR1 from its body file: same joints (URDF file order gives the ids
/// the pattern's columns use), same dynamics (crates/tribo-pgs/tests/urdf_dynamics.rs), the soles
/// mapped to `Sole` by the project's `link_materials` pattern. The URDF's collision boxes are
/// the body file's shapes, so on pgs the two walks end within 1 mm of each other.
#[test]
fn sr1_from_its_urdf_walks_like_sr1_from_its_body_file() {
    let body_file = run(&load(PROJECT, &[], &[]), "pgs");
    let urdf = run(&load(PROJECT, &[("robot", "SR1.urdf")], &[]), "pgs");
    assert!(!fell(&urdf), "SR1.urdf fell");
    let (a, b) = (
        metric(&body_file, "forward_progress"),
        metric(&urdf, "forward_progress"),
    );
    println!("forward progress: SR1.body {a:.5} m, SR1.urdf {b:.5} m");
    assert!((a - b).abs() < 1e-3, "SR1.body walked {a} m, SR1.urdf {b} m");
}

/// `link_materials: {"*_ANKLE_R": Sole}` gives both ankle-roll links of the URDF robot `Sole`
/// and leaves the other 28 links on `Default`.
#[test]
fn a_link_materials_pattern_sets_every_link_it_matches() {
    let project = load(PROJECT, &[("robot", "SR1.urdf")], &[]);
    let scene = &project.scene;
    let sr1 = scene.body_index("SR1").expect("SR1");
    let body = &scene.bodies[sr1];
    let names: Vec<(&str, &str)> = body
        .model
        .links
        .iter()
        .zip(&body.link_materials)
        .map(|(l, m)| (l.name.as_str(), scene.contacts.name(*m)))
        .collect();
    let soles: Vec<&str> = names.iter().filter(|(_, m)| *m == "Sole").map(|(l, _)| *l).collect();
    assert_eq!(soles, ["RLEG_ANKLE_R", "LLEG_ANKLE_R"]);
    assert!(names.iter().filter(|(_, m)| *m != "Sole").all(|(_, m)| *m == "Default"));
}
