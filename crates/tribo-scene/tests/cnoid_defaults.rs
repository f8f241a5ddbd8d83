//! `.cnoid` projects Choreonoid accepts that need tribo's choices: BodyItems that share a name, and
//! default metrics chosen by what the main body is.

use std::path::{Path, PathBuf};

use tribo_scene::{Axis, LoadOptions, MetricKind, Project};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(fixture: &str) -> Project {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cnoid")
        .join(fixture);
    let options = LoadOptions {
        share_dir: root().join("share"),
        ..Default::default()
    };
    Project::load(&path, &options)
        .map_err(|e| format!("{fixture}: {e}"))
        .expect("the fixture loads")
}

fn metric_names(project: &Project) -> Vec<&str> {
    project.metrics.iter().map(|m| m.name.as_str()).collect()
}

fn kind<'a>(project: &'a Project, name: &str) -> &'a MetricKind {
    project
        .metrics
        .iter()
        .find(|m| m.name == name)
        .map(|m| &m.kind)
        .expect("a metric of that name")
}

#[test]
fn body_items_that_share_a_name_are_renamed_with_a_warning() {
    let project = load("same-names.cnoid");
    let names: Vec<&str> = project.scene.bodies.iter().map(|b| b.name.as_str()).collect();
    // `box-2` is taken by an item of that name, so the second `box` becomes `box-3`.
    assert_eq!(names, ["Floor", "box", "box-3", "box-2", "box-4"]);
    let heights: Vec<f64> = project
        .scene
        .bodies
        .iter()
        .map(|b| b.root_pose.translation.vector.z)
        .collect();
    assert_eq!(heights, [-0.1, 0.05, 0.15, 0.05, 0.25]);
    let warnings: Vec<String> = project.warnings.iter().map(ToString::to_string).collect();
    let file = "same-names.cnoid";
    let renamed: Vec<&String> = warnings.iter().filter(|w| w.contains("renamed")).collect();
    assert_eq!(renamed.len(), 1, "{warnings:#?}");
    assert!(
        renamed[0].ends_with(&format!(
            "{file}:26:17: warning: 3 BodyItems are named `box`; tribo names each body once, so the later ones \
             are renamed: `box-3` (line 34), `box-4` (line 50)"
        )),
        "{}",
        renamed[0]
    );
}

#[test]
fn a_dropped_ball_gets_free_body_metrics_not_walker_metrics() {
    let project = load("ball-drop.cnoid");
    assert_eq!(
        metric_names(&project),
        ["displacement", "height_change", "max_tilt", "max_penetration"]
    );
    assert!(matches!(
        kind(&project, "displacement"),
        MetricKind::Displacement { link, axis: Axis::Norm, .. } if link.body == 0 && link.link == 0
    ));
    assert!(matches!(
        kind(&project, "height_change"),
        MetricKind::Displacement { axis: Axis::Z, .. }
    ));
    assert_eq!(
        kind(&project, "max_penetration"),
        &MetricKind::MaxPenetration { body: Some(0) }
    );
}

#[test]
fn several_free_bodies_judge_penetration_over_all() {
    let project = load("same-names.cnoid");
    assert_eq!(
        metric_names(&project),
        ["displacement", "height_change", "max_tilt", "max_penetration"]
    );
    // The first free body is the subject; the deepest contact is any body's.
    assert!(matches!(
        kind(&project, "displacement"),
        MetricKind::Displacement { link, .. } if link.body == 1
    ));
    assert_eq!(
        kind(&project, "max_penetration"),
        &MetricKind::MaxPenetration { body: None }
    );
}

#[test]
fn nothing_free_is_judged_by_penetration_only() {
    let project = load("all-fixed.cnoid");
    assert_eq!(metric_names(&project), ["max_penetration"]);
    assert_eq!(
        kind(&project, "max_penetration"),
        &MetricKind::MaxPenetration { body: None }
    );
}

#[test]
fn a_walking_pattern_on_a_robot_with_soles_gets_walker_metrics() {
    let share = root().join("share/choreonoid");
    let options = LoadOptions {
        share_dir: share.clone(),
        ..Default::default()
    };
    let project = Project::load(&share.join("SR1WalkSlippy.cnoid"), &options).expect("SR1WalkSlippy loads");
    assert_eq!(
        metric_names(&project),
        [
            "forward_progress",
            "lateral_drift",
            "fell",
            "max_tilt",
            "max_yaw",
            "foot_slip"
        ]
    );
}
