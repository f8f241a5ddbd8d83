//! The ball, slide and incline samples on the `pgs` engine against their analytic answers, with
//! the tighter tolerances a rigid LCP model must meet.

use tribo_tests::{expected, load, metric, metrics_snapshot, run};

#[test]
fn ball_bounce_ratio_is_e_squared_within_0_01() {
    let outcome = run(&load("samples/ball/ball.yaml", &[], &[]), "pgs");
    let ratio = metric(&outcome, "bounce_ratio");
    assert!(
        (ratio - 0.64).abs() < 0.01,
        "bounce ratio {ratio}, expected 0.64 ± 0.01"
    );
    insta::assert_snapshot!("ball_pgs", metrics_snapshot(&outcome));
}

#[test]
fn ball_follows_a_merged_restitution_table() {
    let outcome = run(
        &load("samples/ball/ball.yaml", &[], &["samples/ball/half-restitution.yaml"]),
        "pgs",
    );
    let ratio = metric(&outcome, "bounce_ratio");
    assert!(
        (ratio - 0.25).abs() < 0.01,
        "bounce ratio {ratio}, expected 0.25 ± 0.01"
    );
}

#[test]
fn slide_stops_within_1_percent_of_v2_over_2_mu_g() {
    let outcome = run(&load("samples/slide/slide.yaml", &[], &[]), "pgs");
    for (name, mu) in [("stop_distance_mu05", 0.5), ("stop_distance_mu02", 0.2)] {
        let analytic = 2.0_f64.powi(2) / (2.0 * mu * 9.81);
        let d = metric(&outcome, name);
        assert!(
            (d - analytic).abs() / analytic < 0.01,
            "{name}: {d} m, expected {analytic} m ± 1%"
        );
    }
    let travel = metric(&outcome, "travel_mu0");
    assert!(
        (travel - 3.0).abs() / 3.0 < 0.01,
        "frictionless travel {travel} m, expected 3 m ± 1%"
    );
    insta::assert_snapshot!("slide_pgs", metrics_snapshot(&outcome));
}

/// A rigid model must not creep below the friction angle (MuJoCo's soft contacts creep mm here).
#[test]
fn incline_does_not_creep_below_the_friction_angle() {
    for angle in ["20", "25"] {
        let outcome = run(
            &load("samples/incline/incline.yaml", &[("angle_deg", angle)], &[]),
            "pgs",
        );
        let d = metric(&outcome, "displacement");
        assert!(d < 0.05e-3, "at {angle}° the box moved {d} m in 2 s (limit 0.05 mm)");
    }
}

#[test]
fn incline_slides_within_2_percent_above_the_friction_angle() {
    for angle in [27.0_f64, 28.0, 30.0] {
        let text = format!("{angle}");
        let outcome = run(
            &load("samples/incline/incline.yaml", &[("angle_deg", &text)], &[]),
            "pgs",
        );
        let theta = angle.to_radians();
        let analytic = 0.5 * 9.81 * (theta.sin() - 0.5 * theta.cos()) * 4.0;
        assert!((expected(&outcome, "displacement") - analytic).abs() < 1e-12);
        let d = metric(&outcome, "displacement");
        assert!(
            (d - analytic).abs() / analytic < 0.02,
            "at {angle}° the box slid {d} m, expected {analytic} m ± 2%"
        );
        if angle == 30.0 {
            insta::assert_snapshot!("incline_30_pgs", metrics_snapshot(&outcome));
        }
    }
}

/// A slide launched towards −x fails the +x expectation and passes its own (`check_mirrored_slide`).
#[test]
fn a_mirrored_slide_fails_the_unmirrored_expectation() {
    tribo_tests::check_mirrored_slide("pgs");
}
