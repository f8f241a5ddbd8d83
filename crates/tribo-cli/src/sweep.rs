//! `tribo sweep PROJECT --param NAME=V1,V2,... [--param ...]`: the grid of parameter values ×
//! engines, run in parallel; a table (or JSON) and, with `--out`, plots of every metric against
//! every swept parameter. With `--shard K/N` only that shard's points run (see [`crate::shard`]);
//! `--merge` joins shards ([`crate::merge`]) into what the whole sweep would have produced.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde_json::{json, Value};
use tribo_report::{SweepPoint, SweepReport, SweepRun};
use tribo_runner::{RunOptions, RunRecord};
use tribo_scene::{LoadOptions, ParamValue, Project};

use crate::batch::{run_all, Job};
use crate::cli::{ProjectArgs, SweepArgs};
use crate::compare::engines_to_run;
use crate::failure::{CliResult, Failure};
use crate::fingerprint::Fingerprint;
use crate::materials::pretty;
use crate::run::{load_project, metric_json, share_dir};
use crate::shard_file::Grid;
use crate::table;

/// A swept parameter and its values, in command-line order.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<String>,
}

/// `NAME=V1,V2,...` → an axis. Values are trimmed; empty values are an error.
pub fn parse_axis(text: &str) -> Result<Axis, Failure> {
    let (name, values) = text
        .split_once('=')
        .ok_or_else(|| Failure::input(format!("--param expects NAME=V1,V2,..., found `{text}`")))?;
    let name = name.trim().to_string();
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if name.is_empty() || values.iter().any(String::is_empty) {
        return Err(Failure::input(format!(
            "--param expects NAME=V1,V2,... with no empty name or value, found `{text}`"
        )));
    }
    Ok(Axis { name, values })
}

/// Every combination of the axes' values, the first axis varying slowest (the library's
/// [`tribo::Grid`] order).
pub fn grid(axes: &[Axis]) -> Vec<Vec<String>> {
    axes.iter()
        .fold(tribo::Grid::new(), |grid, axis| grid.axis(&axis.name, &axis.values))
        .points()
}

fn overrides(args: &ProjectArgs, axes: &[Axis], values: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = crate::run::parse_overrides(&args.load.set)?;
    for (axis, value) in axes.iter().zip(values) {
        out.insert(axis.name.clone(), value.clone());
    }
    Ok(out)
}

pub fn execute(args: &SweepArgs) -> CliResult {
    if !args.merge.is_empty() {
        return crate::merge::execute(&args.merge, args.out.as_deref(), args.json, args.quiet);
    }
    let project_args = args
        .project_args()
        .ok_or_else(|| Failure::input("tribo sweep needs a project file (or --merge SHARD_DIR...)"))?;
    let shard = match (args.shard, args.out.as_deref()) {
        (Some(shard), Some(dir)) => Some((shard, dir)),
        (Some(shard), None) => {
            return Err(Failure::input(format!(
                "--shard {shard} needs --out DIR: the shard's runs go to DIR/{} for `tribo sweep --merge`",
                crate::shard_file::FILE_NAME
            )))
        }
        (None, _) => None,
    };
    let axes = checked_axes(args)?;
    // The project as written (with --set): its engines, and its errors reported once.
    let base = load_project(&project_args)?;
    let engines = engines_to_run(&base, &args.engines)?;
    let fingerprint = shard.map(|_| Fingerprint::of(&base)).transpose()?;
    let all = grid(&axes);
    let indices: Vec<usize> = match shard {
        Some((shard, _)) => shard.points(all.len()),
        None => (0..all.len()).collect(),
    };
    let points: Vec<Vec<String>> = indices.iter().map(|&i| all[i].clone()).collect();
    let report = SweepReport {
        project: base.name.clone(),
        parameters: axes.iter().map(|a| a.name.clone()).collect(),
        engines: engines.clone(),
        points: run_points(args, &project_args, &axes, points, &engines)?,
    };
    match (shard, fingerprint) {
        (Some((shard, dir)), Some(fingerprint)) => {
            let grid = Grid {
                project: project_args.project.display().to_string(),
                name: base.name.clone(),
                set: overrides(&project_args, &[], &[])?,
                materials: args.load.materials.iter().map(|p| p.display().to_string()).collect(),
                time: args.load.time,
                axes,
                engines,
                fingerprint,
            };
            crate::shard_run::finish(dir, shard, grid, &indices, report, args.json, args.quiet)
        }
        _ => finish(&report, &base.path, args.out.as_deref(), args.json, args.quiet),
    }
}

/// The `--param` axes, each named once and none also `--set`.
fn checked_axes(args: &SweepArgs) -> Result<Vec<Axis>, Failure> {
    let axes: Vec<Axis> = args.params.iter().map(|p| parse_axis(p)).collect::<Result<_, _>>()?;
    for (i, axis) in axes.iter().enumerate() {
        if axes[..i].iter().any(|a| a.name == axis.name) {
            return Err(Failure::input(format!("--param {} is given twice", axis.name)));
        }
        if args
            .load
            .set
            .iter()
            .any(|s| s.split('=').next().map(str::trim) == Some(axis.name.as_str()))
        {
            return Err(Failure::input(format!(
                "{} is both swept (--param) and set (--set); keep one",
                axis.name
            )));
        }
    }
    Ok(axes)
}

/// Load the project at each of `points` (the axes' values) and run it on every engine, all runs in
/// parallel; the points in the order given, each with its runs in the order of `engines`.
fn run_points(
    args: &SweepArgs,
    project_args: &ProjectArgs,
    axes: &[Axis],
    points: Vec<Vec<String>>,
    engines: &[String],
) -> Result<Vec<SweepPoint>, Failure> {
    let projects: Vec<Project> = points
        .par_iter()
        .map(|values| {
            let options = LoadOptions {
                overrides: overrides(project_args, axes, values)?,
                extra_materials: args.load.materials.clone(),
                strict: args.load.strict,
                share_dir: share_dir(args.load.share.as_deref())?,
            };
            Project::load(&project_args.project, &options).map_err(Failure::from)
        })
        .collect::<Result<_, _>>()?;
    let options = RunOptions {
        duration: args.load.time,
        allow_long_run: args.load.allow_long_run,
        ..Default::default()
    };
    for project in &projects {
        crate::plan::check_steps(project, &options)?;
    }
    if let Some(dir) = &args.out {
        crate::outputs::check_out_dir(dir)?;
    }
    let jobs: Vec<Job> = projects
        .iter()
        .flat_map(|project| {
            engines.iter().map(move |engine| Job {
                project,
                engine,
                out: None,
            })
        })
        .collect();
    let mut records = run_all(&jobs, &options, args.quiet || args.json).into_iter();
    let mut sweep_points = Vec::with_capacity(points.len());
    for values in points {
        let runs: Vec<RunRecord> = records.by_ref().take(engines.len()).collect::<Result<_, _>>()?;
        sweep_points.push(SweepPoint {
            values,
            runs: runs.into_iter().map(SweepRun::from).collect(),
        });
    }
    Ok(sweep_points)
}

/// What every sweep ends with, run on one machine or joined from shards (`--merge`): with `--out`,
/// `sweep.html`, `sweep.json` and the plots; the table or `--json` on stdout; a failure listing
/// every failed run (exit status 1), if any.
pub fn finish(report: &SweepReport, project: &Path, out: Option<&Path>, json: bool, quiet: bool) -> CliResult {
    let summary = sweep_json(report);
    if let Some(dir) = out {
        let files = tribo_report::write_sweep_report(dir, report).map_err(|e| Failure::run(e.to_string()))?;
        let path = dir.join("sweep.json");
        std::fs::write(&path, pretty(&summary) + "\n")
            .map_err(|e| Failure::run(format!("{}: cannot write: {e}", path.display())))?;
        if !(quiet || json) {
            eprintln!("report: {} ({} plots)", files.html.display(), files.plots.len());
        }
    }
    if json {
        crate::output::outln!("{}", pretty(&summary));
    } else {
        crate::output::out!("{}", sweep_text(report));
    }
    crate::failure::runs_failed(project, &failed_runs(report))
}

/// `ENGINE at VALUES: why` for every failed run.
pub fn failed_runs(report: &SweepReport) -> Vec<String> {
    report
        .points
        .iter()
        .flat_map(|p| {
            p.runs.iter().filter_map(move |r| {
                r.failure
                    .as_ref()
                    .map(|f| format!("{} at {}: {f}", r.engine, p.values.join(", ")))
            })
        })
        .collect()
}

fn value_json(text: &str) -> Value {
    match ParamValue::parse(text) {
        ParamValue::Number(v) => json!(v),
        ParamValue::Text(t) => json!(t),
    }
}

/// `{"project", "parameters": [...], "engines": [...], "points": [{"parameters": {NAME: value},
/// "engines": {ENGINE: {metrics, steps_per_s, ...}}}]}`.
pub fn sweep_json(report: &SweepReport) -> Value {
    let points: Vec<Value> = report
        .points
        .iter()
        .map(|p| {
            let parameters: serde_json::Map<String, Value> = report
                .parameters
                .iter()
                .zip(&p.values)
                .map(|(n, v)| (n.clone(), value_json(v)))
                .collect();
            let engines: serde_json::Map<String, Value> =
                p.runs.iter().map(|r| (r.engine.clone(), run_json(r))).collect();
            json!({"parameters": parameters, "engines": engines})
        })
        .collect();
    json!({
        "project": report.project,
        "parameters": report.parameters,
        "engines": report.engines,
        "points": points,
    })
}

/// A run as `outcome_json` shows it in `run --json` and `compare --json`: `{"engine", "metrics",
/// "steps", "simulated_time_s", "steps_per_s", "warnings"}` (plus `failure` when it failed).
pub fn run_json(r: &SweepRun) -> Value {
    let metrics: serde_json::Map<String, Value> = r.metrics.iter().map(|m| (m.name.clone(), metric_json(m))).collect();
    let mut out = json!({
        "engine": r.engine,
        "metrics": metrics,
        "steps": r.steps,
        "simulated_time_s": r.simulated_time,
        "steps_per_s": r.steps_per_second().round(),
        "warnings": r.warnings,
    });
    if let (Value::Object(map), Some(f)) = (&mut out, &r.failure) {
        map.insert("failure".into(), json!(f));
    }
    out
}

/// One row per point and engine: parameter values, engine, each metric (with its error), steps/s.
pub fn sweep_text(report: &SweepReport) -> String {
    let metrics = report.metric_names();
    let mut header: Vec<String> = report.parameters.clone();
    header.push("engine".into());
    header.extend(metrics.iter().cloned());
    header.push("steps/s".into());
    let mut rows = vec![header];
    for p in &report.points {
        for r in &p.runs {
            let mut row = p.values.clone();
            row.push(r.engine.clone());
            for i in 0..metrics.len() {
                row.push(crate::compare::metric_text(r.is_failed(), r.metrics.get(i)));
            }
            row.push(match r.failure {
                Some(_) => "failed".to_string(),
                None => format!("{:.0}", r.steps_per_second()),
            });
            rows.push(row);
        }
    }
    let mut out = format!(
        "{}: {} points × {} engines\n\n",
        report.project,
        report.points.len(),
        report.engines.len()
    );
    out.push_str(&table::render(&rows));
    for p in &report.points {
        for r in &p.runs {
            for w in &r.warnings {
                out.push_str(&format!("warning ({}, {}): {w}\n", r.engine, p.values.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tribo_runner::{MetricResult, MetricValue, RunError, RunOutcome};
    use tribo_scene::ExpectedValue;

    use super::*;
    use crate::run::outcome_json;

    #[test]
    fn a_sweep_run_shows_as_run_and_compare_show_its_record() {
        let mut outcome = RunOutcome::empty("pgs");
        outcome.steps = 1200;
        outcome.simulated_time = 1.2;
        outcome.wall_time = Duration::from_millis(7);
        outcome.warnings = vec!["rolling friction is ignored".into()];
        outcome.metrics = vec![
            MetricResult {
                name: "first_apex".into(),
                unit: "m".into(),
                value: MetricValue::Number(0.6381),
                expected: Some(ExpectedValue::Number(0.64)),
                formula: Some("drop_height * 0.64".into()),
                tolerance: Some(0.01),
            },
            MetricResult {
                name: "bounce_ratio".into(),
                unit: String::new(),
                value: MetricValue::Missing("fewer than 3 bounces".into()),
                expected: None,
                formula: None,
                tolerance: None,
            },
        ];
        let finished = RunRecord::finished(outcome);
        let failed = RunRecord::failed("pgs", RunError::UnknownEngine("no engine `pgz`".into()));
        for record in [finished, failed] {
            assert_eq!(run_json(&SweepRun::from(record.clone())), outcome_json(&record));
        }
    }

    #[test]
    fn axes_parse_and_reject_empty_values() {
        let axis = parse_axis("squeeze_factor = 0.5, 1,2").ok();
        let expected = Axis {
            name: "squeeze_factor".into(),
            values: vec!["0.5".into(), "1".into(), "2".into()],
        };
        assert_eq!(axis, Some(expected));
        assert!(parse_axis("speed").is_err());
        assert!(parse_axis("speed=1,,2").is_err());
        assert!(parse_axis("=1").is_err());
    }

    #[test]
    fn grid_is_every_combination_first_axis_slowest() {
        let axes = [
            Axis {
                name: "a".into(),
                values: vec!["1".into(), "2".into()],
            },
            Axis {
                name: "b".into(),
                values: vec!["x".into(), "y".into(), "z".into()],
            },
        ];
        let g = grid(&axes);
        assert_eq!(g.len(), 6);
        assert_eq!(g[0], vec!["1", "x"]);
        assert_eq!(g[2], vec!["1", "z"]);
        assert_eq!(g[3], vec!["2", "x"]);
    }
}
