#![allow(clippy::panic)]
//! Lattice point load (issue #5, the CSLC paper's experiment 1): a 15 × 15 flat pad pressed at its
//! centre sphere by a small rigid ball. The deflection decays as the 2-D screened-Poisson far field
//! K0(r/ℓ) with ℓ = h √(k_ℓ/k_a) (`docs/design/lattice-model.md` §3.2, §6.1); the `decay_length`
//! metric must find ℓ within 15 % for k_ℓ/k_a = 1, 4 and 9. Rigid engines have no lattice and report
//! the metric as not available (never a number, never a panic).

use tribo_runner::MetricValue;
use tribo_tests::{expected, load, metric, metrics_snapshot, run};

const PROJECT: &str = "samples/lattice-point-load/lattice-point-load.yaml";
/// The pad's spacing in `bed.body`, m.
const SPACING: f64 = 0.002;

/// On both lattice hosts (`cslc` on pgs, `cslc-rapier` on rapier): the lattice's equilibrium does
/// not depend on the host.
#[test]
fn decay_length_is_h_sqrt_of_the_stiffness_ratio() {
    for engine in ["cslc", "cslc-rapier"] {
        decay_length_on(engine);
    }
}

fn decay_length_on(engine: &str) {
    for ratio in [1, 4, 9] {
        let outcome = run(&load(PROJECT, &[("stiffness_ratio", &ratio.to_string())], &[]), engine);
        let ell = SPACING * f64::from(ratio).sqrt();
        assert!((expected(&outcome, "decay_length") - ell).abs() < 1e-12);
        let measured = metric(&outcome, "decay_length");
        let error = (measured - ell).abs() / ell;
        println!(
            "{engine} k_l/k_a = {ratio}: decay_length = {measured:.4e} m ({:.4} h), expected {ell:.4e} m, error {:.2} %",
            measured / SPACING,
            100.0 * error
        );
        assert!(
            error < 0.15,
            "{engine} k_l/k_a = {ratio}: decay length {measured} m, expected {ell} m"
        );
        insta::assert_snapshot!(
            format!("lattice_point_load_{engine}_ratio_{ratio}"),
            metrics_snapshot(&outcome)
        );
    }
}

#[test]
fn rigid_engines_have_no_lattice_and_say_so() {
    let project = load(PROJECT, &[], &[]);
    for engine in ["rapier", "pgs"] {
        let outcome = run(&project, engine);
        let m = outcome
            .metrics
            .iter()
            .find(|m| m.name == "decay_length")
            .expect("decay_length metric");
        assert!(
            matches!(&m.value, MetricValue::Missing(why) if why.contains("not available")),
            "{engine}: {:?}",
            m.value
        );
        insta::assert_snapshot!(format!("lattice_point_load_{engine}"), metrics_snapshot(&outcome));
    }
}
