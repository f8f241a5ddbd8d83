//! Run a sample on one engine and print its metrics with their expectations.
//!
//! `cargo run --release -p tribo --example run_sample -- [PROJECT] [ENGINE]`
//! (default: `samples/ball/ball.yaml` on `pgs`).

use std::process::ExitCode;

use tribo::{ExpectedValue, MetricValue, Project};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "samples/ball/ball.yaml".to_string());
    let engine = args.next().unwrap_or_else(|| "pgs".to_string());
    match run(&path, &engine) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(path: &str, engine: &str) -> Result<(), tribo::Error> {
    let project = Project::load(path)?;
    let run = project.run(engine)?;
    println!(
        "{} on {}: {} steps, {:.3} s simulated",
        project.name(),
        run.engine(),
        run.steps(),
        run.simulated_time()
    );
    for metric in run.metrics() {
        let value = match &metric.value {
            MetricValue::Missing(why) => format!("not measured ({why})"),
            other => format!("{} {}", other.display(), metric.unit),
        };
        let verdict = match (&metric.expected, metric.passed()) {
            (Some(ExpectedValue::Number(x)), Some(ok)) => format!("  expected {x:.6}: {}", verdict(ok)),
            (Some(ExpectedValue::Bool(x)), Some(ok)) => format!("  expected {x}: {}", verdict(ok)),
            _ => String::new(),
        };
        println!("  {:<24} {value}{verdict}", metric.name);
    }
    for warning in run.warnings() {
        println!("  warning: {warning}");
    }
    Ok(())
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "FAIL"
    }
}
