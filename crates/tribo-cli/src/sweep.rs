//! `tribo sweep PROJECT --param NAME=V1,V2,... [--param ...]`: the grid of parameter values ×
//! engines, run in parallel; a table (or JSON) and, with `--out`, plots of every metric against
//! every swept parameter.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::{json, Value};
use tribo_report::{SweepPoint, SweepReport};
use tribo_runner::{RunOptions, RunRecord};
use tribo_scene::{LoadOptions, ParamValue, Project};

use crate::batch::{run_all, Job};
use crate::cli::{ProjectArgs, SweepArgs};
use crate::compare::engines_to_run;
use crate::failure::{CliResult, Failure};
use crate::materials::pretty;
use crate::run::{load_project, outcome_json, share_dir};
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

/// Every combination of the axes' values, the first axis varying slowest.
pub fn grid(axes: &[Axis]) -> Vec<Vec<String>> {
    let mut points = vec![Vec::new()];
    for axis in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.values.iter().map(move |v| {
                    let mut next = p.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    points
}

fn overrides(args: &ProjectArgs, axes: &[Axis], values: &[String]) -> Result<BTreeMap<String, String>, Failure> {
    let mut out = BTreeMap::new();
    for item in &args.set {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| Failure::input(format!("--set expects NAME=VALUE, found `{item}`")))?;
        out.insert(name.trim().to_string(), value.trim().to_string());
    }
    for (axis, value) in axes.iter().zip(values) {
        out.insert(axis.name.clone(), value.clone());
    }
    Ok(out)
}

pub fn execute(args: &SweepArgs) -> CliResult {
    let axes: Vec<Axis> = args.params.iter().map(|p| parse_axis(p)).collect::<Result<_, _>>()?;
    for (i, axis) in axes.iter().enumerate() {
        if axes[..i].iter().any(|a| a.name == axis.name) {
            return Err(Failure::input(format!("--param {} is given twice", axis.name)));
        }
        if args
            .project
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
    // The project as written (with --set): its engines, and its errors reported once.
    let base = load_project(&args.project)?;
    let engines = engines_to_run(&base, &args.engines)?;
    let points = grid(&axes);
    let projects: Vec<Project> = points
        .par_iter()
        .map(|values| {
            let options = LoadOptions {
                overrides: overrides(&args.project, &axes, values)?,
                extra_materials: args.project.materials.clone(),
                strict: args.project.strict,
                share_dir: share_dir(args.project.share.as_deref())?,
            };
            Project::load(&args.project.project, &options).map_err(Failure::from)
        })
        .collect::<Result<_, _>>()?;
    let options = RunOptions {
        duration: args.project.time,
        allow_long_run: args.project.allow_long_run,
        ..Default::default()
    };
    for project in &projects {
        crate::plan::check_steps(project, &options)?;
    }
    if let Some(dir) = &args.project.out {
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
    let quiet = args.project.quiet || args.project.json;
    let mut records = run_all(&jobs, &options, quiet).into_iter();
    let mut sweep_points = Vec::with_capacity(points.len());
    for values in points {
        let runs: Vec<RunRecord> = records.by_ref().take(engines.len()).collect::<Result<_, _>>()?;
        sweep_points.push(SweepPoint { values, runs });
    }
    let report = SweepReport {
        project: base.name.clone(),
        parameters: axes.iter().map(|a| a.name.clone()).collect(),
        engines: engines.clone(),
        points: sweep_points,
    };
    let summary = sweep_json(&report);
    if let Some(dir) = &args.project.out {
        let files = tribo_report::write_sweep_report(dir, &report).map_err(|e| Failure::run(e.to_string()))?;
        let path = dir.join("sweep.json");
        std::fs::write(&path, pretty(&summary) + "\n")
            .map_err(|e| Failure::run(format!("{}: cannot write: {e}", path.display())))?;
        if !quiet {
            eprintln!("report: {} ({} plots)", files.html.display(), files.plots.len());
        }
    }
    if args.project.json {
        crate::output::outln!("{}", pretty(&summary));
    } else {
        crate::output::out!("{}", sweep_text(&report));
    }
    let failed: Vec<String> = report
        .points
        .iter()
        .flat_map(|p| {
            p.runs.iter().filter_map(move |r| {
                r.failure_text()
                    .map(|f| format!("{} at {}: {f}", r.outcome.engine, p.values.join(", ")))
            })
        })
        .collect();
    crate::failure::runs_failed(&base.path, &failed)
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
            let engines: serde_json::Map<String, Value> = p
                .runs
                .iter()
                .map(|r| (r.outcome.engine.clone(), outcome_json(r)))
                .collect();
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
            row.push(r.outcome.engine.clone());
            for i in 0..metrics.len() {
                row.push(crate::compare::metric_cell(r, i));
            }
            row.push(match r.failure {
                Some(_) => "failed".to_string(),
                None => format!("{:.0}", r.outcome.steps_per_second()),
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
        for o in p.runs.iter().map(|r| &r.outcome) {
            for w in &o.warnings {
                out.push_str(&format!("warning ({}, {}): {w}\n", o.engine, p.values.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
