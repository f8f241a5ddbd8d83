//! `tribo compare PROJECT [--engines a,b,...]`: several engines in parallel, one table.

use rayon::prelude::*;
use serde_json::json;
use tribo_engine::RunOutcome;
use tribo_scene::Project;

use crate::cli::CompareArgs;
use crate::engines::registry;
use crate::failure::{CliResult, Failure};
use crate::materials::pretty;
use crate::run::{error_text, expected_text, load_project, metric_json, outcome_json, run_engine, write_outputs};
use crate::table;

pub fn execute(args: &CompareArgs) -> CliResult {
    let project = load_project(&args.project)?;
    let engines = engines_to_run(&project, &args.engines)?;
    let outcomes: Vec<Result<RunOutcome, Failure>> = engines
        .par_iter()
        .map(|engine| run_engine(&project, engine, &args.project))
        .collect();
    let outcomes: Vec<RunOutcome> = outcomes.into_iter().collect::<Result<_, _>>()?;
    if let Some(dir) = &args.project.out {
        for o in &outcomes {
            write_outputs(&dir.join(&o.engine), &project, o)?;
        }
    }
    if args.project.json {
        println!("{}", pretty(&compare_json(&project, &outcomes)));
    } else {
        print!("{}", compare_text(&project, &outcomes));
    }
    let failed: Vec<String> = outcomes
        .iter()
        .filter_map(|o| o.failure.as_ref().map(|f| format!("{}: {f}", o.engine)))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::run(format!(
            "{}: some runs failed:\n  {}",
            project.path.display(),
            failed.join("\n  ")
        )))
    }
}

/// The engines named on the command line, else the project's, else every registered engine.
fn engines_to_run(project: &Project, requested: &[String]) -> Result<Vec<String>, Failure> {
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

pub fn compare_json(project: &Project, outcomes: &[RunOutcome]) -> serde_json::Value {
    let engines: serde_json::Map<String, serde_json::Value> =
        outcomes.iter().map(|o| (o.engine.clone(), outcome_json(o))).collect();
    let _ = metric_json;
    json!({"project": project.name, "engines": engines})
}

/// Metric rows against engine columns, an expected column, and steps per second.
pub fn compare_text(project: &Project, outcomes: &[RunOutcome]) -> String {
    let mut header = vec!["metric".to_string(), "unit".into(), "expected".into()];
    header.extend(outcomes.iter().map(|o| o.engine.clone()));
    let mut rows = vec![header];
    for (i, spec) in project.metrics.iter().enumerate() {
        let first = outcomes.first().and_then(|o| o.metrics.get(i));
        let mut row = vec![
            spec.name.clone(),
            spec.unit.clone(),
            first.map(expected_text).unwrap_or_default(),
        ];
        for o in outcomes {
            let cell = o.metrics.get(i).map_or_else(String::new, |m| {
                let err = error_text(m);
                if err.is_empty() {
                    m.value.display()
                } else {
                    format!("{} ({err})", m.value.display())
                }
            });
            row.push(cell);
        }
        rows.push(row);
    }
    let mut speed = vec!["steps/s".to_string(), String::new(), String::new()];
    speed.extend(outcomes.iter().map(|o| format!("{:.0}", o.steps_per_second())));
    rows.push(speed);
    let mut out = format!("{}\n", project.name);
    if !project.description.is_empty() {
        out.push_str(&format!("{}\n", project.description.lines().next().unwrap_or_default()));
    }
    out.push('\n');
    out.push_str(&table::render(&rows));
    for o in outcomes {
        for w in &o.warnings {
            out.push_str(&format!("warning ({}): {w}\n", o.engine));
        }
        if let Some(f) = &o.failure {
            out.push_str(&format!("FAILED ({}): {f}\n", o.engine));
        }
    }
    out
}
