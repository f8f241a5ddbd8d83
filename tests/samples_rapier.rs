//! The ball, slide and incline samples on the `rapier` engine against their analytic answers.

use tribo_tests::{expected, load, metric, metrics_snapshot, run};

#[test]
fn ball_bounce_ratio_is_e_squared() {
    let outcome = run(&load("samples/ball/ball.yaml", &[], &[]), "rapier");
    let ratio = metric(&outcome, "bounce_ratio");
    assert!((expected(&outcome, "bounce_ratio") - 0.64).abs() < 1e-12);
    assert!(
        (ratio - 0.64).abs() < 0.03,
        "bounce ratio {ratio}, expected 0.64 ± 0.03"
    );
    insta::assert_snapshot!("ball_rapier", metrics_snapshot(&outcome));
}

#[test]
fn ball_follows_a_merged_restitution_table() {
    let project = load("samples/ball/ball.yaml", &[], &["samples/ball/half-restitution.yaml"]);
    let outcome = run(&project, "rapier");
    let ratio = metric(&outcome, "bounce_ratio");
    assert!((expected(&outcome, "bounce_ratio") - 0.25).abs() < 1e-12);
    assert!(
        (ratio - 0.25).abs() < 0.03,
        "bounce ratio {ratio}, expected 0.25 ± 0.03"
    );
}

#[test]
fn slide_stops_after_v2_over_2_mu_g() {
    let outcome = run(&load("samples/slide/slide.yaml", &[], &[]), "rapier");
    for (name, mu) in [("stop_distance_mu05", 0.5), ("stop_distance_mu02", 0.2)] {
        let analytic = 2.0_f64.powi(2) / (2.0 * mu * 9.81);
        assert!((expected(&outcome, name) - analytic).abs() < 1e-12);
        let d = metric(&outcome, name);
        assert!(
            (d - analytic).abs() / analytic < 0.03,
            "{name}: {d} m, expected {analytic} m ± 3%"
        );
    }
    let travel = metric(&outcome, "travel_mu0");
    assert!(
        (travel - 3.0).abs() / 3.0 < 0.03,
        "frictionless travel {travel} m, expected 3 m ± 3%"
    );
    insta::assert_snapshot!("slide_rapier", metrics_snapshot(&outcome));
}

#[test]
fn incline_sticks_below_the_friction_angle() {
    for angle in ["20", "25"] {
        let outcome = run(
            &load("samples/incline/incline.yaml", &[("angle_deg", angle)], &[]),
            "rapier",
        );
        let d = metric(&outcome, "displacement");
        assert_eq!(expected(&outcome, "displacement"), 0.0);
        assert!(d < 0.5e-3, "at {angle}° the box moved {d} m in 2 s (limit 0.5 mm)");
        insta::assert_snapshot!(format!("incline_{angle}_rapier"), metrics_snapshot(&outcome));
    }
}

#[test]
fn incline_slides_above_the_friction_angle() {
    let outcome = run(
        &load("samples/incline/incline.yaml", &[("angle_deg", "30")], &[]),
        "rapier",
    );
    let theta = 30f64.to_radians();
    let analytic = 0.5 * 9.81 * (theta.sin() - 0.5 * theta.cos()) * 4.0;
    assert!((expected(&outcome, "displacement") - analytic).abs() < 1e-12);
    let d = metric(&outcome, "displacement");
    assert!(
        (d - analytic).abs() / analytic < 0.05,
        "at 30° the box slid {d} m, expected {analytic} m ± 5%"
    );
    insta::assert_snapshot!("incline_30_rapier", metrics_snapshot(&outcome));
}

/// A slide launched towards −x fails the +x expectation and passes its own (`check_mirrored_slide`).
#[test]
fn a_mirrored_slide_fails_the_unmirrored_expectation() {
    tribo_tests::check_mirrored_slide("rapier");
}
