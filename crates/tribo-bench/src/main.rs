//! `tribo-bench`: CPU time of the stepping loop of a tribo project, per step range, on one of
//! tribo's engines or on raw rapier3d-f64 with the same settings; and the project's scene as JSON
//! for building it in another simulator. `bench/anchors.py` drives it (samples/bench/README.md).
//!
//! ```sh
//! tribo-bench time samples/bench/pile-500.yaml --engine pgs --phases 1-200,201-1000
//! tribo-bench time samples/bench/pile-500.yaml --engine raw-rapier
//! tribo-bench describe samples/bench/sr1-standing.yaml > sr1.json
//! ```
//!
//! `time` loads the project and builds the engine untimed, then steps it (controllers, then the
//! engine step, as `tribo run` does, without metrics or recording) and reads the process's user +
//! system CPU time at the start and end of each phase only. It prints one JSON object: the CPU
//! time of each phase, the contacts and the highest free root at the end, and, for tribo's
//! engines, the solver iterations summed and, with `--stages`, `stage_wall_s`, the wall time of
//! each stage the engine's step reports (`StepReport::stages`) summed over every step — where a
//! step's time goes, not a measurement to quote (the stage clocks are off otherwise: their reads
//! cost a few per cent of a small step).

mod cpu;
mod describe;
mod error;
mod phases;
mod project;
mod raw;
mod tribo_stepper;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

use crate::error::BenchError;
use crate::phases::{parse_phases, time_phases, Stepper};

/// The name `time --engine` takes for raw rapier.
const RAW_RAPIER: &str = "raw-rapier";

#[derive(Parser)]
#[command(
    name = "tribo-bench",
    about = "Time the stepping loop of a tribo project on an engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Step a project and print the CPU time of each step range as JSON.
    Time {
        /// The project file (tribo YAML or Choreonoid .cnoid).
        project: PathBuf,
        /// An engine of `tribo engines`, or `raw-rapier`.
        #[arg(long, default_value = "pgs")]
        engine: String,
        /// Step ranges to time, counted from 1 (steps between ranges run untimed); default: the
        /// whole run as one range.
        #[arg(long)]
        phases: Option<String>,
        /// tribo's share directory (default: as `tribo` finds it).
        #[arg(long)]
        share: Option<PathBuf>,
        /// Time the engine's stages too (`stage_wall_s`); their clock reads then add to the
        /// phases' CPU time.
        #[arg(long)]
        stages: bool,
    },
    /// Print the project's scene as JSON (bodies, contact coefficients, joint patterns).
    Describe {
        project: PathBuf,
        #[arg(long)]
        share: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Time {
            project,
            engine,
            phases,
            share,
            stages,
        } => time(&project, &engine, phases.as_deref(), share, stages),
        Command::Describe { project, share } => describe(&project, share),
    };
    match result {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("tribo-bench: {e}");
            ExitCode::from(2)
        }
    }
}

fn planned_steps(project: &tribo_scene::Project) -> Result<u64, BenchError> {
    tribo_runner::planned_steps(project, &tribo_runner::RunOptions::default())
        .map_err(|e| BenchError::Project(format!("{}: {e}", project.path.display())))
}

fn time(
    path: &std::path::Path,
    engine: &str,
    phases: Option<&str>,
    share: Option<PathBuf>,
    stages: bool,
) -> Result<String, BenchError> {
    let project = project::load(path, share)?;
    let steps = planned_steps(&project)?;
    let phases = parse_phases(phases.unwrap_or(&format!("1-{steps}")))?;
    if let Some(last) = phases.last().filter(|p| p.last > steps) {
        return Err(BenchError::Project(format!(
            "{}: the run has {steps} steps; --phases asks for step {}",
            path.display(),
            last.last
        )));
    }
    let build_start = cpu::process_time();
    let (build, times, contacts, top, iterations, stages) = if engine == RAW_RAPIER {
        let mut sim = raw::RawRapier::new(&project)?;
        let build = cpu::process_time().saturating_sub(build_start);
        let times = time_phases(&mut sim as &mut dyn Stepper, &phases)?;
        (build, times, sim.contacts(), sim.top_height(), None, None)
    } else {
        let mut sim = tribo_stepper::TriboStepper::new(project.clone(), engine, stages)?;
        let build = cpu::process_time().saturating_sub(build_start);
        let times = time_phases(&mut sim as &mut dyn Stepper, &phases)?;
        let stages: serde_json::Map<String, serde_json::Value> = sim
            .stages
            .iter()
            .map(|(stage, time)| (stage.to_string(), json!(time.as_secs_f64())))
            .collect();
        (
            build,
            times,
            sim.contacts,
            sim.top_height(),
            Some(sim.iterations),
            Some(stages),
        )
    };
    let out = json!({
        "project": path.display().to_string(),
        "engine": engine,
        "time_step": project.simulation.time_step,
        "build_cpu_s": build.as_secs_f64(),
        "phases": times.iter().map(|t| json!({
            "steps": t.phase.to_string(),
            "count": t.phase.steps(),
            "cpu_s": t.cpu.as_secs_f64(),
            "per_step_s": t.cpu.as_secs_f64() / t.phase.steps() as f64,
        })).collect::<Vec<_>>(),
        "contacts_at_end": contacts,
        "top_height_at_end": top,
        "solver_iterations": iterations,
        "stage_wall_s": stages,
    });
    Ok(out.to_string())
}

fn describe(path: &std::path::Path, share: Option<PathBuf>) -> Result<String, BenchError> {
    let project = project::load(path, share)?;
    let steps = planned_steps(&project)?;
    Ok(describe::describe(&project, steps).to_string())
}
