//! Shared helpers for the cross-crate tests: load a sample, run it on an engine. A failure here is
//! a test failure, so panicking with the message is the point.
#![allow(clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tribo_runner::metrics::format_number;
use tribo_runner::{MetricResult, MetricValue, Registry, RunOptions, RunOutcome};
use tribo_scene::{ExpectedValue, LoadOptions, Project};

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

/// The metrics of a run as a snapshot that specifies behaviour, one line per metric:
///
/// ```text
/// forward_progress: 0.44 m, expected 0.4394 ± 0.066: pass
/// lateral_drift: 0.0029 m
/// foot_slip: 0.026 m, expected 0: unchecked (no tolerance)
/// ```
///
/// A number is rounded to its tolerance (to the power of ten at or below it: a tolerance of
/// 0.066 m shows centimetres), or to 2 significant digits when the metric has none; a number
/// without a tolerance whose magnitude is below [`NOISE`] of the metric's scale ([`noise_floor`])
/// reads 0, so creep at round-off level (1e-9 m) does not rewrite a snapshot when a solver
/// changes. Each metric with an expectation and a tolerance records `pass` or `FAIL`. A change
/// of the rounded value or of the verdict is a change of behaviour; bit-level drift is the
/// engines' golden digests' job (`tests/digests.rs`).
///
/// Regenerate after a deliberate change (cargo-insta is not needed):
/// `INSTA_FORCE_PASS=1 INSTA_UPDATE=new cargo test -p tribo-tests --test NAME`, then rename each
/// `tests/snapshots/*.snap.new` to `.snap` and drop its `assertion_line:` line.
pub fn metrics_snapshot(outcome: &RunOutcome) -> String {
    outcome.metrics.iter().map(metric_line).collect::<Vec<_>>().join("\n")
}

/// One metric as a snapshot line (see [`metrics_snapshot`]).
pub fn metric_line(m: &MetricResult) -> String {
    let unit = if m.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", m.unit)
    };
    let value = match &m.value {
        MetricValue::Number(v) => format!("{}{unit}", snapshot_number(*v, m)),
        MetricValue::Bool(b) => b.to_string(),
        MetricValue::Missing(why) => format!("— ({why})"),
    };
    let expected = match (m.expected, m.tolerance) {
        (Some(ExpectedValue::Number(e)), Some(t)) => {
            format!(
                ", expected {} ± {}",
                trimmed(format_number(e)),
                trimmed(two_significant(t))
            )
        }
        (Some(ExpectedValue::Number(e)), None) => format!(", expected {}", trimmed(format_number(e))),
        (Some(ExpectedValue::Bool(b)), _) => format!(", expected {b}"),
        (None, _) => String::new(),
    };
    let verdict = match m.passed() {
        Some(true) => ": pass",
        Some(false) => ": FAIL",
        None if m.expected.is_some() => ": unchecked (no tolerance)",
        None => "",
    };
    format!("{}: {value}{expected}{verdict}", m.name)
}

/// A number below this fraction of its metric's scale is noise and reads 0 in a snapshot.
pub const NOISE: f64 = 1e-4;

/// The magnitude below which a metric without a tolerance reads 0: [`NOISE`] times its scale,
/// the magnitude of its expected value when that is not 0, else the everyday size of its unit in
/// tribo's scenes (0.1 m bodies, 10° tilts, 10 N loads; 1 otherwise). So 10 µm, 0.001° and
/// 1e-4 of a ratio: rigid-engine creep (1e-9 … 2e-6 m) reads 0, a pad's tens of micrometres do not.
pub fn noise_floor(m: &MetricResult) -> f64 {
    let scale = match m.expected {
        Some(ExpectedValue::Number(e)) if e != 0.0 && e.is_finite() => e.abs(),
        _ => match m.unit.as_str() {
            "m" => 0.1,
            "deg" => 10.0,
            "rad" => 0.2,
            "N" => 10.0,
            _ => 1.0,
        },
    };
    NOISE * scale
}

/// A metric's number as a snapshot shows it: rounded to the tolerance's power of ten, else to 2
/// significant digits with noise as 0.
pub fn snapshot_number(v: f64, m: &MetricResult) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    match m.tolerance.filter(|t| t.is_finite() && *t > 0.0) {
        Some(t) => round_to_decade(v, t.log10().floor() as i32),
        None if v.abs() < noise_floor(m) => "0".to_string(),
        None => two_significant(v),
    }
}

/// `v` rounded to a multiple of `10^exponent`, written with as many decimals (never `-0`).
pub fn round_to_decade(v: f64, exponent: i32) -> String {
    let step = 10f64.powi(exponent);
    let n = (v / step).round();
    if n == 0.0 {
        return "0".to_string();
    }
    let decimals = (-exponent).max(0) as usize;
    format!("{:.decimals$}", n * step)
}

/// A decimal without its trailing zeros (`0.05000` → `0.05`, `3.000` → `3`): an expectation or a
/// tolerance is exact, its digits are not a resolution.
fn trimmed(text: String) -> String {
    if !text.contains('.') || text.contains('e') {
        return text;
    }
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `v` to 2 significant digits, without scientific notation for everyday magnitudes.
pub fn two_significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 { "0".to_string() } else { v.to_string() };
    }
    let mut magnitude = v.abs().log10().floor() as i32;
    let step = 10f64.powi(magnitude - 1);
    let rounded = (v / step).round() * step;
    magnitude = rounded.abs().log10().floor() as i32;
    if (-4..6).contains(&magnitude) {
        let decimals = (1 - magnitude).max(0) as usize;
        format!("{rounded:.decimals$}")
    } else {
        format!("{rounded:.1e}")
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: MetricValue, unit: &str, expected: Option<ExpectedValue>, tolerance: Option<f64>) -> MetricResult {
        MetricResult {
            name: "m".into(),
            unit: unit.into(),
            value,
            expected,
            formula: None,
            tolerance,
        }
    }

    #[test]
    fn numbers_round_to_their_tolerance_or_two_digits() {
        assert_eq!(round_to_decade(0.4446, -2), "0.44");
        assert_eq!(round_to_decade(-0.004, -2), "0");
        assert_eq!(round_to_decade(1234.0, 2), "1200");
        assert_eq!(two_significant(0.002948), "0.0029");
        assert_eq!(two_significant(-1.226e-5), "-1.2e-5");
        assert_eq!(two_significant(9.96), "10");
        assert_eq!(two_significant(31.43), "31");
        assert_eq!(two_significant(1.5e7), "1.5e7");
        let walk = result(
            MetricValue::Number(0.4446),
            "m",
            Some(ExpectedValue::Number(0.4394)),
            Some(0.04394),
        );
        assert_eq!(metric_line(&walk), "m: 0.44 m, expected 0.4394 ± 0.044: pass");
        let far = result(
            MetricValue::Number(0.3446),
            "m",
            Some(ExpectedValue::Number(0.4394)),
            Some(0.04394),
        );
        assert_eq!(metric_line(&far), "m: 0.34 m, expected 0.4394 ± 0.044: FAIL");
    }

    #[test]
    fn noise_reads_zero_whatever_its_sign_and_size() {
        for creep in [1e-9, -2.771e-8, 8.659e-8, 1.491e-6, -3.5e-7] {
            let free = result(MetricValue::Number(creep), "m", None, None);
            assert_eq!(metric_line(&free), "m: 0 m", "{creep}");
            let at_rest = result(
                MetricValue::Number(creep),
                "m",
                Some(ExpectedValue::Number(0.0)),
                Some(0.01),
            );
            assert_eq!(metric_line(&at_rest), "m: 0 m, expected 0 ± 0.01: pass", "{creep}");
        }
        let tilt = result(MetricValue::Number(1.259e-4), "deg", None, None);
        assert_eq!(metric_line(&tilt), "m: 0 deg");
        let pad_slip = result(MetricValue::Number(-1.226e-5), "m", None, None);
        assert_eq!(metric_line(&pad_slip), "m: -1.2e-5 m");
    }

    #[test]
    fn verdicts_and_missing_values_are_recorded() {
        let fell = result(MetricValue::Bool(false), "", Some(ExpectedValue::Bool(false)), None);
        assert_eq!(metric_line(&fell), "m: false, expected false: pass");
        let unchecked = result(
            MetricValue::Number(0.02614),
            "m",
            Some(ExpectedValue::Number(0.0)),
            None,
        );
        assert_eq!(
            metric_line(&unchecked),
            "m: 0.026 m, expected 0: unchecked (no tolerance)"
        );
        let missing = result(
            MetricValue::Missing("no pad".into()),
            "m",
            Some(ExpectedValue::Number(0.004)),
            Some(0.0006),
        );
        assert_eq!(metric_line(&missing), "m: — (no pad), expected 0.004 ± 0.0006: FAIL");
    }
}
