//! Shared helpers for the cross-crate tests: load a sample, run it on an engine. A failure here is
//! a test failure, so panicking with the message is the point.
#![allow(clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tribo_runner::{MetricValue, Registry, RunOptions, RunOutcome};
use tribo_scene::{LoadOptions, Project};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every engine the tests exercise.
pub fn registry() -> Registry {
    tribo::engines()
}

/// Load `samples/NAME/NAME.yaml` (or any project path relative to the root) with overrides.
pub fn load(project: &str, overrides: &[(&str, &str)], extra_materials: &[&str]) -> Project {
    let options = LoadOptions {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        extra_materials: extra_materials.iter().map(|p| root().join(p)).collect(),
        strict: false,
        share_dir: root().join("share"),
    };
    Project::load(&root().join(project), &options).unwrap_or_else(|e| panic!("{e}"))
}

/// Run a loaded project on an engine; panics (test failure) if the run fails.
pub fn run(project: &Project, engine: &str) -> RunOutcome {
    let result = tribo_runner::run(project, &registry(), engine, &RunOptions::default(), &mut |_, _| {});
    result.unwrap_or_else(|e| match e.partial() {
        Some(_) => panic!("{engine} failed: {e}"),
        None => panic!("{e}"),
    })
}

/// A numeric metric of a run.
pub fn metric(outcome: &RunOutcome, name: &str) -> f64 {
    let m = outcome
        .metrics
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"));
    match &m.value {
        MetricValue::Number(v) => *v,
        other => panic!("metric {name} is {other:?}"),
    }
}

/// The expected value of a numeric metric.
pub fn expected(outcome: &RunOutcome, name: &str) -> f64 {
    let m = outcome
        .metrics
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"));
    match m.expected {
        Some(tribo_scene::ExpectedValue::Number(v)) => v,
        other => panic!("metric {name} expects {other:?}"),
    }
}

/// Metrics rounded to 4 significant digits for snapshots (engine-independent formatting).
pub fn metrics_snapshot(outcome: &RunOutcome) -> String {
    outcome
        .metrics
        .iter()
        .map(|m| {
            let expected = match m.expected {
                Some(tribo_scene::ExpectedValue::Number(v)) => tribo_runner::metrics::format_number(v),
                Some(tribo_scene::ExpectedValue::Bool(b)) => b.to_string(),
                None => "-".to_string(),
            };
            format!("{}: {} (expected {expected}) {}", m.name, m.value.display(), m.unit)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A slide launched towards −x (`speed = -2`) stops at −v²/(2 μ g): displacement along x is
/// signed, so it fails the +v²/(2 μ g) expectation of a launch towards +x (an unsigned measure
/// passed it: +0.4067 against +0.4077) and passes the sample's signed one.
pub fn check_mirrored_slide(engine: &str) {
    let outcome = run(&load("samples/slide/slide.yaml", &[("speed", "-2")], &[]), engine);
    for (name, mu) in [("stop_distance_mu05", 0.5), ("stop_distance_mu02", 0.2)] {
        let analytic = 2.0_f64.powi(2) / (2.0 * mu * 9.81);
        let d = metric(&outcome, name);
        println!("{engine}: mirrored {name}: {d} m (analytic −{analytic} m)");
        assert!(
            (d + analytic).abs() / analytic < 0.03,
            "{name}: {d} m, expected −{analytic} m ± 3%"
        );
        let result = outcome.metrics.iter().find(|m| m.name == name).expect("the metric");
        assert!((expected(&outcome, name) + analytic).abs() < 1e-12);
        assert_eq!(result.passed(), Some(true), "{name}: {d} m fails its own expectation");
        let mut unmirrored = result.clone();
        unmirrored.expected = Some(tribo_scene::ExpectedValue::Number(analytic));
        assert_eq!(unmirrored.passed(), Some(false), "{name}: {d} m passes +{analytic} m");
    }
    let travel = metric(&outcome, "travel_mu0");
    assert!(
        (travel + 3.0).abs() / 3.0 < 0.03,
        "frictionless travel {travel} m, expected −3 m"
    );
}
