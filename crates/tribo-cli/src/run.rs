//! `tribo run PROJECT [--engine NAME] ...`: one engine, its metrics, its files.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;
use tribo_engine::{MetricResult, MetricValue, RunOptions, RunOutcome};
use tribo_scene::{ExpectedValue, LoadOptions, Project};

use crate::cli::{ProjectArgs, RunArgs};
use crate::engines::registry;
use crate::failure::{CliResult, Failure};
use crate::materials::pretty;
use crate::progress::Progress;
use crate::table;

pub fn execute(args: &RunArgs) -> CliResult {
    let project = load_project(&args.project)?;
    let engine = args
        .engine
        .clone()
        .or_else(|| project.simulation.engines.first().cloned())
        .unwrap_or_else(|| "rapier".to_string());
    let outcome = run_engine(&project, &engine, &args.project)?;
    let mut images = Vec::new();
    if let Some(dir) = &args.project.out {
        write_outputs(dir, &project, &outcome)?;
        let maps = tribo_report::pressure_maps(&project.scene, &outcome);
        images = write_pressure_images(dir, &maps)?;
    }
    if args.project.json {
        let mut v = outcome_json(&outcome);
        if let (serde_json::Value::Object(map), false) = (&mut v, images.is_empty()) {
            let files: Vec<serde_json::Value> = images
                .iter()
                .map(|i| {
                    json!({
                        "pad": i.title,
                        "png": i.png,
                        "svg": i.svg,
                        "time_s": i.time,
                        "normal_force_n": i.normal_force,
                    })
                })
                .collect();
            map.insert("pressure_maps".into(), json!(files));
        }
        println!("{}", pretty(&v));
    } else {
        print!("{}", outcome_text(&project, &outcome));
        for i in &images {
            println!(
                "pressure map of {} at its peak total normal force {:.3} N (t = {:.3} s, up to {:.0} Pa): {}, {}",
                i.title,
                i.normal_force,
                i.time,
                i.peak_pressure,
                i.png.display(),
                i.svg.display()
            );
        }
    }
    match &outcome.failure {
        Some(f) => Err(Failure::run(format!(
            "{}: run failed on `{}`: {f}",
            project.path.display(),
            outcome.engine
        ))),
        None => Ok(()),
    }
}

/// Load the project with the command line's overrides.
pub fn load_project(args: &ProjectArgs) -> Result<Project, Failure> {
    let mut overrides = BTreeMap::new();
    for item in &args.set {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| Failure::input(format!("--set expects NAME=VALUE, found `{item}`")))?;
        overrides.insert(name.trim().to_string(), value.trim().to_string());
    }
    if let Some(t) = args.time {
        if !(t.is_finite() && t > 0.0) {
            return Err(Failure::input(format!(
                "--time must be a positive number of seconds, found {t}"
            )));
        }
    }
    let options = LoadOptions {
        overrides,
        extra_materials: args.materials.clone(),
        strict: args.strict,
        share_dir: share_dir(args.share.as_deref())?,
    };
    let project = Project::load(&args.project, &options)?;
    for w in &project.warnings {
        eprintln!("{w}");
    }
    Ok(project)
}

/// `--share DIR` (which must be a directory; a relative path is taken from the working
/// directory, not from the project's), else tribo's own `share/`.
pub fn share_dir(share: Option<&Path>) -> Result<std::path::PathBuf, Failure> {
    match share {
        Some(dir) if dir.is_dir() => Ok(std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf())),
        Some(dir) => Err(Failure::input(format!("--share {}: not a directory", dir.display()))),
        None => Ok(tribo_scene::default_share_dir()),
    }
}

/// Run one engine with a progress bar.
pub fn run_engine(project: &Project, engine: &str, args: &ProjectArgs) -> Result<RunOutcome, Failure> {
    let registry = registry();
    let mut progress = Progress::new(engine, args.quiet || args.json);
    // With --out, pads' pressures are captured (in the replay) for their pressure-map images.
    let capture = args.out.is_some() && !project.scene.pads.is_empty();
    let options = RunOptions {
        duration: args.time,
        replay_interval: capture.then(|| crate::compare::replay_interval(project, args.time)),
        ..Default::default()
    };
    let outcome = tribo_engine::run(project, &registry, engine, &options, &mut |s, n| progress.update(s, n))
        .map_err(|e| Failure::input(format!("{}: {e}", project.path.display())))?;
    progress.finish();
    Ok(outcome)
}

pub fn write_outputs(dir: &Path, project: &Project, outcome: &RunOutcome) -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::run(format!("{}: cannot write results: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    std::fs::write(dir.join("trajectory.csv"), outcome.trajectory.to_csv()).map_err(io)?;
    let mut metrics = outcome_json(outcome);
    if let serde_json::Value::Object(map) = &mut metrics {
        map.insert("project".into(), json!(project.name));
    }
    std::fs::write(dir.join("metrics.json"), pretty(&metrics) + "\n").map_err(io)?;
    Ok(())
}

/// Per pad that pressed, `dir/pressure_LINK.png` and `.svg` at its peak total normal force.
pub fn write_pressure_images(
    dir: &Path,
    maps: &[tribo_report::PressureMap],
) -> Result<Vec<tribo_report::PressureImage>, Failure> {
    tribo_report::write_pressure_images(dir, maps).map_err(|e| Failure::run(e.to_string()))
}

pub fn metric_json(m: &MetricResult) -> serde_json::Value {
    let expected = match m.expected {
        Some(ExpectedValue::Number(v)) => json!(v),
        Some(ExpectedValue::Bool(b)) => json!(b),
        None => serde_json::Value::Null,
    };
    let value = match &m.value {
        MetricValue::Number(v) => json!(v),
        MetricValue::Bool(b) => json!(b),
        MetricValue::Missing(_) => serde_json::Value::Null,
    };
    let mut out = json!({"value": value, "expected": expected, "unit": m.unit});
    if let (serde_json::Value::Object(map), Some(e)) = (&mut out, m.relative_error()) {
        map.insert("relative_error".into(), json!(e));
    }
    if let (serde_json::Value::Object(map), MetricValue::Missing(why)) = (&mut out, &m.value) {
        map.insert("missing".into(), json!(why));
    }
    out
}

/// `{"metrics": {...}, "steps_per_s": ..., "warnings": [...]}` (plus `failure` when the run failed).
pub fn outcome_json(outcome: &RunOutcome) -> serde_json::Value {
    let metrics: serde_json::Map<String, serde_json::Value> = outcome
        .metrics
        .iter()
        .map(|m| (m.name.clone(), metric_json(m)))
        .collect();
    let mut out = json!({
        "engine": outcome.engine,
        "metrics": metrics,
        "steps": outcome.steps,
        "simulated_time_s": outcome.simulated_time,
        "steps_per_s": outcome.steps_per_second().round(),
        "warnings": outcome.warnings,
    });
    if let (serde_json::Value::Object(map), Some(f)) = (&mut out, &outcome.failure) {
        map.insert("failure".into(), json!(f));
    }
    out
}

fn outcome_text(project: &Project, outcome: &RunOutcome) -> String {
    let mut rows = vec![vec![
        "metric".to_string(),
        "measured".into(),
        "expected".into(),
        "error".into(),
        "unit".into(),
    ]];
    for m in &outcome.metrics {
        rows.push(vec![
            m.name.clone(),
            m.value.display(),
            expected_text(m),
            error_text(m),
            m.unit.clone(),
        ]);
    }
    let mut out = format!(
        "{} on {}: {} steps, {:.3} s simulated, {:.0} steps/s\n",
        project.name,
        outcome.engine,
        outcome.steps,
        outcome.simulated_time,
        outcome.steps_per_second()
    );
    out.push_str(&table::render(&rows));
    for w in &outcome.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

pub fn expected_text(m: &MetricResult) -> String {
    match m.expected {
        Some(ExpectedValue::Number(v)) => tribo_engine::metrics::format_number(v),
        Some(ExpectedValue::Bool(b)) => b.to_string(),
        None => String::new(),
    }
}

pub fn error_text(m: &MetricResult) -> String {
    let err = match m.relative_error() {
        Some(e) if m.expected == Some(ExpectedValue::Number(0.0)) => {
            format!("{} abs", tribo_engine::metrics::format_number(e))
        }
        Some(e) => format!("{:.2}%", e * 100.0),
        None => String::new(),
    };
    match m.passed() {
        Some(true) => format!("{err} ok").trim().to_string(),
        Some(false) => format!("{err} FAIL").trim().to_string(),
        None => err,
    }
}
