//! `tribo run PROJECT [--engine NAME] ...`: one engine, its metrics, its files.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;
use tribo_runner::{MetricResult, MetricValue, RowSink, RunError, RunHooks, RunOptions, RunOutcome, RunRecord};
use tribo_scene::{ExpectedValue, LoadOptions, Project};

use crate::cli::{ProjectArgs, RunArgs};
use crate::engines::registry;
use crate::failure::{CliResult, Failure};
use crate::materials::pretty;
use crate::progress::Progress;
use crate::{outputs, plan, table};

pub fn execute(args: &RunArgs) -> CliResult {
    let project = load_project(&args.project)?;
    let engine = args
        .engine
        .clone()
        .or_else(|| project.simulation.engines.first().cloned())
        .unwrap_or_else(|| "rapier".to_string());
    let options = run_options(&project, &args.project);
    plan::check_steps(&project, &options)?;
    if let Some(dir) = &args.project.out {
        outputs::check_out_dir(dir)?;
    }
    let record = run_engine(&project, &engine, &args.project, &options)?;
    let outcome = &record.outcome;
    let mut images = Vec::new();
    if let Some(dir) = &args.project.out {
        outputs::write_outputs(dir, &project, &record)?;
        let maps = tribo_report::pressure_maps(&project.scene, outcome);
        images = outputs::write_pressure_images(dir, &maps)?;
    }
    if args.project.json {
        let mut v = outcome_json(&record);
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
        crate::output::outln!("{}", pretty(&v));
    } else if !record.is_failed() || outcome.steps > 0 {
        // A run that failed before its first step has no metrics to show: only the failure.
        crate::output::out!("{}", outcome_text(&project, outcome));
        for i in &images {
            crate::output::outln!(
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
    match &record.failure {
        Some(f) => Err(Failure::run(format!(
            "{}: run failed on `{}` after {} completed steps: {f}",
            project.path.display(),
            outcome.engine,
            outcome.steps
        ))),
        None => Ok(()),
    }
}

/// The `--set NAME=VALUE` options as parameter overrides (names and values trimmed; a later
/// `--set` of a name wins).
pub fn parse_overrides(set: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    let mut overrides = BTreeMap::new();
    for item in set {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| Failure::input(format!("--set expects NAME=VALUE, found `{item}`")))?;
        overrides.insert(name.trim().to_string(), value.trim().to_string());
    }
    Ok(overrides)
}

/// Load the project with the command line's overrides; print its warnings (collapsed) and how
/// its motion patterns will be played.
pub fn load_project(args: &ProjectArgs) -> Result<Project, Failure> {
    let overrides = parse_overrides(&args.load.set)?;
    if let Some(t) = args.load.time {
        if !(t.is_finite() && t > 0.0) {
            return Err(Failure::input(format!(
                "--time must be a positive number of seconds, found {t}"
            )));
        }
    }
    let options = LoadOptions {
        overrides,
        extra_materials: args.load.materials.clone(),
        strict: args.load.strict,
        share_dir: share_dir(args.load.share.as_deref())?,
    };
    let project = Project::load(&args.project, &options)?;
    crate::warnings::eprint(&project.warnings);
    if !args.quiet && !args.json {
        for note in plan::pattern_notes(&project) {
            eprintln!("{note}");
        }
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

/// The run options of `tribo run`: the duration, the step-limit override and, with `--out` on a
/// scene with pads, replay frames for the pressure maps.
pub fn run_options(project: &Project, args: &ProjectArgs) -> RunOptions {
    let capture = args.out.is_some() && !project.scene.pads.is_empty();
    RunOptions {
        duration: args.load.time,
        replay_interval: capture.then(|| crate::compare::replay_interval(project, args.load.time)),
        allow_long_run: args.load.allow_long_run,
        ..Default::default()
    }
}

/// Run one engine with a progress bar; with `--out`, its trajectory streams to
/// `DIR/trajectory.csv`. A run that failed after it started is a record with its failure; one
/// that could not start is a [`Failure`].
pub fn run_engine(
    project: &Project,
    engine: &str,
    args: &ProjectArgs,
    options: &RunOptions,
) -> Result<RunRecord, Failure> {
    let registry = registry();
    let mut progress = Progress::new(engine, args.quiet || args.json);
    let mut sink = args.out.as_deref().map(outputs::trajectory_file).transpose()?;
    let hooks = RunHooks {
        progress: &mut |s, n| progress.update(s, n),
        rows: sink.as_mut().map(|s| s as &mut dyn RowSink),
        on_step: None,
    };
    let record = match tribo_runner::run_with(project, &registry, engine, options, hooks) {
        Ok(outcome) => RunRecord::finished(outcome),
        Err(e) if e.partial().is_some() => RunRecord::failed(engine, e),
        Err(e) => return Err(run_error(&project.path, engine, e)),
    };
    progress.finish();
    Ok(record)
}

/// A run that could not start: an engine that cannot simulate the scene is a failed run (exit
/// 1); anything else (a bad engine name or option, a controller that does not fit the model, a
/// run above the step limit) is invalid input (exit 2).
pub fn run_error(project: &Path, engine: &str, error: RunError) -> Failure {
    if crate::batch::is_unsupported_scene(&error) || matches!(error, RunError::Output(_)) {
        Failure::run(format!(
            "{}: run failed on `{engine}` before its first step: {error}",
            project.display()
        ))
    } else {
        Failure::input(format!("{}: {error}", project.display()))
    }
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
pub fn outcome_json(record: &RunRecord) -> serde_json::Value {
    let outcome = &record.outcome;
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
    if let (serde_json::Value::Object(map), Some(f)) = (&mut out, record.failure_text()) {
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
        Some(ExpectedValue::Number(v)) => tribo_runner::metrics::format_number(v),
        Some(ExpectedValue::Bool(b)) => b.to_string(),
        None => String::new(),
    }
}

pub fn error_text(m: &MetricResult) -> String {
    let err = match m.relative_error() {
        Some(e) if m.expected == Some(ExpectedValue::Number(0.0)) => {
            format!("{} abs", tribo_runner::metrics::format_number(e))
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
