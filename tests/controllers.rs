//! The built-in controllers driving real engines through the runner.
#![allow(clippy::panic)]

use tribo_tests::{expected, load, metric, run};

fn column(outcome: &tribo_runner::RunOutcome, name: &str) -> Vec<f64> {
    outcome
        .trajectory
        .column(name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// Choreonoid's SR1 PD law (torque mode) plays the motion; the run ends with the motion (2001
/// frames = 2001 control steps although the project asks for 5 s).
#[test]
fn joint_pattern_tracks_the_motion_and_ends_with_it() {
    for mode in ["torque", "position"] {
        let outcome = run(
            &load("tests/fixtures/controllers/arm-pattern.yaml", &[("mode", mode)], &[]),
            "rapier",
        );
        assert_eq!(outcome.steps, 2001, "{mode}: the run ends after the last frame");
        let (time, q) = (column(&outcome, "time"), column(&outcome, "q"));
        // After the start-up transient (0.5 s), q follows 0.3 sin(2π t) with a lag of a few ms.
        let mut worst: f64 = 0.0;
        for (t, q) in time.iter().zip(&q).filter(|(t, _)| **t > 0.5) {
            worst = worst.max((q - 0.3 * (2.0 * std::f64::consts::PI * t).sin()).abs());
        }
        assert!(
            worst < 0.03,
            "{mode}: worst tracking error {worst} rad (limit 0.03 rad = 10% of the amplitude)"
        );
    }
}

/// A constant torque equal to m g d holds the arm horizontal against gravity.
#[test]
fn joint_effort_holds_the_arm_against_gravity() {
    let outcome = run(&load("tests/fixtures/controllers/arm-effort.yaml", &[], &[]), "rapier");
    let q = column(&outcome, "q");
    let drift = q
        .iter()
        .map(|q| (q - std::f64::consts::FRAC_PI_2).abs())
        .fold(0.0, f64::max);
    assert!(
        drift < 1e-3,
        "the arm drifted {drift} rad from horizontal in 1 s (limit 1e-3 rad)"
    );
}

/// A kinematic path is followed exactly at every recorded step.
#[test]
fn kinematic_path_follows_the_waypoints() {
    let outcome = run(&load("tests/fixtures/controllers/lift.yaml", &[], &[]), "rapier");
    let (t, x, z, yaw) = (
        column(&outcome, "time"),
        column(&outcome, "lift.x"),
        column(&outcome, "lift.z"),
        column(&outcome, "lift_rpy.yaw"),
    );
    for i in 0..t.len() {
        let (ex, ez, eyaw) = if t[i] <= 1.0 {
            (0.0, 0.5 + 0.5 * t[i], 0.0)
        } else {
            let s = t[i] - 1.0;
            (0.2 * s, 1.0, s * std::f64::consts::FRAC_PI_2)
        };
        assert!(
            (x[i] - ex).abs() < 1e-6 && (z[i] - ez).abs() < 1e-6,
            "t = {}: ({}, {}) vs ({ex}, {ez})",
            t[i],
            x[i],
            z[i]
        );
        assert!((yaw[i] - eyaw).abs() < 1e-6, "t = {}: yaw {} vs {eyaw}", t[i], yaw[i]);
    }
}

/// A wrench over a window: x(1 s) = ½ (F/m) t₁² + (F/m) t₁ (1 − t₁) with t₁ = 0.5 s.
#[test]
fn wrench_pushes_for_its_window_only() {
    let outcome = run(&load("tests/fixtures/controllers/push.yaml", &[], &[]), "rapier");
    let travel = metric(&outcome, "travel");
    assert!((expected(&outcome, "travel") - 0.75).abs() < 1e-12);
    assert!(
        (travel - 0.75).abs() < 0.75 * 0.005,
        "travel {travel} m, expected 0.75 m ± 0.5%"
    );
}
