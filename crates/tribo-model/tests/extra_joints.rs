//! `extra_joints` (closed kinematic loops) load with their frames; an engine without loop-closure
//! constraints refuses a body that has them, at the joint.

use std::path::{Path, PathBuf};

use nalgebra::Vector3;
use tribo_model::{load_body, refuse_closed_loops, validate, ExtraJointKind};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/extra_joints")
        .join(name)
}

/// The joint's numbers are read, not computed; this only absorbs the degree conversion.
const TOLERANCE: f64 = 1e-12;

#[test]
fn extra_joints_load_with_their_frames() {
    let body = load_body(&fixture("four_bar.body")).expect("loads");
    assert_eq!(body.extra_joints.len(), 1);
    let joint = &body.extra_joints[0];
    assert_eq!(joint.kind, ExtraJointKind::Hinge);
    assert_eq!(joint.links, ["COUPLER".to_string(), "ROCKER".to_string()]);
    assert!(
        (joint.axis - Vector3::z()).norm() < TOLERANCE,
        "normalised axis {}",
        joint.axis
    );
    assert!((joint.frames[0].translation.vector - Vector3::new(0.4, 0.0, 0.0)).norm() < TOLERANCE);
    assert!((joint.frames[1].translation.vector - Vector3::new(0.0, 0.1, 0.0)).norm() < TOLERANCE);
    // rotation_in_link2: 90° about Z takes x to y.
    let x = joint.frames[1].rotation * Vector3::x();
    assert!((x - Vector3::y()).norm() < TOLERANCE, "{x}");
    assert!(joint.frames[0].rotation.angle() < TOLERANCE);
    assert_eq!((joint.location.line, joint.location.col), (41, 5), "{}", joint.location);
    assert!(
        body.notes
            .iter()
            .any(|n| n.message.contains("closes 1 kinematic loop(s)")
                && n.message.contains("hinge joint between `COUPLER` and `ROCKER`")
                && n.message.contains("the `rapier` engine closes them")
                && n.message
                    .contains("`pgs` (and `cslc` on it) has no loop-closure constraints")),
        "{:?}",
        body.notes
    );
}

#[test]
fn the_axis_defaults_to_x_as_in_choreonoid() {
    let text = std::fs::read_to_string(fixture("four_bar.body")).expect("fixture");
    let without_axis = text.replace("    axis: [ 0, 0, 2 ]\n", "");
    assert_ne!(without_axis, text);
    let body = tribo_model::parse_body(&without_axis, "no_axis.body").expect("loads");
    assert_eq!(body.extra_joints[0].axis, Vector3::x());
}

#[test]
fn an_engine_without_loop_closures_refuses_at_the_joint() {
    let body = load_body(&fixture("four_bar.body")).expect("loads");
    validate(&body, false).expect("the tree is simulable");
    let err = refuse_closed_loops(&body, "pgs").expect_err("pgs cannot close the loop");
    assert!(err.location.file.ends_with("four_bar.body"), "{err}");
    assert_eq!((err.location.line, err.location.col), (41, 5), "{err}");
    assert!(
        err.message
            .contains("the extra hinge joint between links `COUPLER` and `ROCKER`")
            && err.message.contains("the `pgs` engine has no loop-closure constraints"),
        "{err}"
    );

    let mut open = body;
    open.extra_joints.clear();
    refuse_closed_loops(&open, "pgs").expect("no loop, nothing to refuse");
}

#[test]
fn included_loops_follow_their_links_renamed() {
    let body = load_body(&fixture("gripper.body")).expect("loads");
    let pairs: Vec<[String; 2]> = body.extra_joints.iter().map(|j| j.links.clone()).collect();
    assert_eq!(
        pairs,
        [
            ["L_COUPLER".to_string(), "L_ROCKER".to_string()],
            ["R_COUPLER".to_string(), "R_ROCKER".to_string()]
        ]
    );
    let err = refuse_closed_loops(&body, "pgs").expect_err("two loops");
    assert!(err.message.contains("`L_COUPLER` and `L_ROCKER` (and 1 more)"), "{err}");
    assert!(err.location.file.ends_with("four_bar.body"), "{err}");
}

#[test]
fn bad_extra_joints_are_located() {
    let text = std::fs::read_to_string(fixture("four_bar.body")).expect("fixture");
    let typo = text.replace("link2_name: ROCKER", "link2_name: ROCKR");
    let err = tribo_model::parse_body(&typo, "typo.body").expect_err("unknown link");
    assert_eq!((err.location.line, err.location.col), (42, 17), "{err}");
    assert!(
        err.message
            .contains("names link `ROCKR`, which the body does not have (did you mean `ROCKER`?)"),
        "{err}"
    );
    let kind = text.replace("joint_type: hinge", "joint_type: hing");
    let err = tribo_model::parse_body(&kind, "kind.body").expect_err("unknown type");
    assert!(
        err.message
            .contains("unknown extra joint type `hing` (did you mean `hinge`?)"),
        "{err}"
    );
    let missing = text.replace("  - link1_name: COUPLER\n", "  - joint_name: X\n");
    let err = tribo_model::parse_body(&missing, "missing.body").expect_err("no link1");
    assert!(
        err.message.contains("missing required key `link1_name` or `link1Name`"),
        "{err}"
    );
}
