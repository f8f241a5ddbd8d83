//! `tribo compare PROJECT [--engines a,b,...] [--out DIR]`: several engines in parallel, one table;
//! with `--out`, each engine's files and `DIR/report.html` (table, plots, 3-D replay).

use serde_json::json;
use tribo_report::{EngineRun, PressureMap};
use tribo_runner::{RunOptions, RunRecord};
use tribo_scene::Project;

use crate::batch::{run_all, Job};
use crate::cli::CompareArgs;
use crate::engines::registry;
use crate::failure::{CliResult, Failure};
use crate::materials::pretty;
use crate::outputs::{check_out_dir, write_outputs, write_pressure_images};
use crate::plan::check_steps;
use crate::run::{error_text, expected_text, load_project, metric_json, outcome_json};
use crate::table;

/// Replay frames a run captures at most: every step up to this many steps, else evenly spaced.
/// The report keeps at most 600 of them, each showing the strongest contacts of the frames it
/// stands for, so brief impacts still show as arrows.
pub const MAX_CAPTURED_FRAMES: f64 = 20_000.0;

/// Seconds between captured replay frames for a run of `project`.
pub fn replay_interval(project: &Project, duration: Option<f64>) -> f64 {
    let dt = project.simulation.time_step;
    let duration = duration.unwrap_or(project.simulation.duration);
    dt.max(duration / MAX_CAPTURED_FRAMES)
}

pub fn execute(args: &CompareArgs) -> CliResult {
    let project = load_project(&args.project)?;
    let engines = engines_to_run(&project, &args.engines)?;
    let options = RunOptions {
        duration: args.project.load.time,
        replay_interval: args
            .project
            .out
            .as_ref()
            .map(|_| replay_interval(&project, args.project.load.time)),
        allow_long_run: args.project.load.allow_long_run,
        ..Default::default()
    };
    check_steps(&project, &options)?;
    let engine_dirs: Vec<Option<std::path::PathBuf>> = engines
        .iter()
        .map(|e| args.project.out.as_ref().map(|dir| dir.join(e)))
        .collect();
    if let Some(dir) = &args.project.out {
        check_out_dir(dir)?;
        for d in engine_dirs.iter().flatten() {
            check_out_dir(d)?;
        }
    }
    let jobs: Vec<Job> = engines
        .iter()
        .zip(&engine_dirs)
        .map(|(engine, out)| Job {
            project: &project,
            engine,
            out: out.as_deref(),
        })
        .collect();
    let quiet = args.project.quiet || args.project.json;
    let records: Vec<RunRecord> = run_all(&jobs, &options, quiet).into_iter().collect::<Result<_, _>>()?;
    if let Some(dir) = &args.project.out {
        let pressure: Vec<Vec<PressureMap>> = records
            .iter()
            .map(|r| tribo_report::pressure_maps(&project.scene, &r.outcome))
            .collect();
        for (r, maps) in records.iter().zip(&pressure) {
            write_outputs(&dir.join(&r.outcome.engine), &project, r)?;
            write_pressure_images(&dir.join(&r.outcome.engine), maps)?;
        }
        // An engine that never started has nothing to replay or plot.
        let runs: Vec<EngineRun> = records
            .iter()
            .zip(&pressure)
            .filter(|(r, _)| !r.outcome.trajectory.rows.is_empty())
            .map(|(r, pressure)| EngineRun {
                outcome: &r.outcome,
                failure: r.failure.as_ref(),
                pressure,
            })
            .collect();
        let files =
            tribo_report::write_compare_report(dir, &project, &runs).map_err(|e| Failure::run(e.to_string()))?;
        if !quiet {
            eprintln!("report: {} ({} plots)", files.html.display(), files.plots.len());
        }
    }
    if args.project.json {
        crate::output::outln!("{}", pretty(&compare_json(&project, &records)));
    } else {
        crate::output::out!("{}", compare_text(&project, &records));
    }
    let failed: Vec<String> = records
        .iter()
        .filter_map(|r| {
            let o = &r.outcome;
            r.failure_text()
                .map(|f| format!("{} (after {} completed steps): {f}", o.engine, o.steps))
        })
        .collect();
    crate::failure::runs_failed(&project.path, &failed)
}

/// The engines named on the command line, else the project's, else every registered engine.
pub fn engines_to_run(project: &Project, requested: &[String]) -> Result<Vec<String>, Failure> {
    let registry = registry();
    let engines: Vec<String> = if !requested.is_empty() {
        requested.to_vec()
    } else if !project.simulation.engines.is_empty() {
        project.simulation.engines.clone()
    } else {
        registry.names().into_iter().map(str::to_string).collect()
    };
    for e in &engines {
        registry.get(e).map_err(Failure::input)?;
    }
    Ok(engines)
}

pub fn compare_json(project: &Project, records: &[RunRecord]) -> serde_json::Value {
    let engines: serde_json::Map<String, serde_json::Value> = records
        .iter()
        .map(|r| (r.outcome.engine.clone(), outcome_json(r)))
        .collect();
    let _ = metric_json;
    json!({"project": project.name, "engines": engines})
}

/// Metric rows against engine columns, an expected column, and steps per second.
pub fn compare_text(project: &Project, records: &[RunRecord]) -> String {
    let outcomes: Vec<&tribo_runner::RunOutcome> = records.iter().map(|r| &r.outcome).collect();
    let mut header = vec!["metric".to_string(), "unit".into(), "expected".into()];
    header.extend(outcomes.iter().map(|o| o.engine.clone()));
    let mut rows = vec![header];
    for (i, spec) in project.metrics.iter().enumerate() {
        let first = outcomes.iter().find_map(|o| o.metrics.get(i));
        let mut row = vec![
            spec.name.clone(),
            spec.unit.clone(),
            first.map(expected_text).unwrap_or_default(),
        ];
        for r in records {
            row.push(metric_cell(r, i));
        }
        rows.push(row);
    }
    let mut speed = vec!["steps/s".to_string(), String::new(), String::new()];
    speed.extend(records.iter().map(|r| match r.failure {
        Some(_) => "failed".to_string(),
        None => format!("{:.0}", r.outcome.steps_per_second()),
    }));
    rows.push(speed);
    let mut out = format!("{}\n", project.name);
    if !project.description.is_empty() {
        out.push_str(&format!("{}\n", project.description.lines().next().unwrap_or_default()));
    }
    out.push('\n');
    out.push_str(&table::render(&rows));
    for r in records {
        let o = &r.outcome;
        for w in &o.warnings {
            out.push_str(&format!("warning ({}): {w}\n", o.engine));
        }
        if let Some(f) = r.failure_text() {
            out.push_str(&format!(
                "FAILED ({}, after {} completed steps): {f}\n",
                o.engine, o.steps
            ));
        }
    }
    out
}

/// Metric `i` of a run as a table cell: value (error, ok/FAIL), or `failed` for a run that
/// failed (its numbers would describe a run cut short, not the scene).
pub fn metric_cell(r: &RunRecord, i: usize) -> String {
    metric_text(r.is_failed(), r.outcome.metrics.get(i))
}

/// A metric as a table cell ([`metric_cell`]), of a run that failed or not.
pub fn metric_text(failed: bool, metric: Option<&tribo_runner::MetricResult>) -> String {
    if failed {
        return "failed".to_string();
    }
    metric.map_or_else(String::new, |m| {
        let err = error_text(m);
        if err.is_empty() {
            m.value.display()
        } else {
            format!("{} ({err})", m.value.display())
        }
    })
}
