//! `tribo-bench`: CPU time of the stepping loop of a tribo project, per step range, on one of
//! tribo's engines or on raw rapier3d-f64 with the same settings; and the project's scene as JSON
//! for building it in another simulator. `bench/anchors.py` drives it (samples/bench/README.md).
//!
//! ```sh
//! tribo-bench time samples/bench/pile-500.yaml --engine pgs --phases 1-200,201-1000
//! tribo-bench time samples/bench/pile-500.yaml --engine raw-rapier
//! tribo-bench describe samples/bench/sr1-standing.yaml > sr1.json
//! tribo-bench patches samples/slippy-walker/walker.yaml --engine cslc
//! ```
//!
//! `time` loads the project and builds the engine untimed, then steps it (controllers, then the
//! engine step, as `tribo run` does, without metrics or recording) and reads the process's user +
//! system CPU time at the start and end of each phase only. It prints one JSON object: the CPU
//! time of each phase, the contacts and the highest free root at the end, and, for tribo's
//! engines, the solver iterations summed, the steps whose solve stopped at its sweep cap with the
//! largest relative residual one left (`capped_steps`, `worst_capped_relative_residual`) and, with `--stages`, `stage_wall_s`, the wall time of
//! each stage the engine's step reports (`StepReport::stages`) summed over every step — where a
//! step's time goes, not a measurement to quote (the stage clocks are off otherwise: their reads
//! cost a few per cent of a small step).
//!
//! `--copies N` builds N independent copies of the project (each its own engine) and steps them
//! one after the other at every step: each copy's whole step then reads its own data while it is
//! in the cache, which is what an island-by-island step of one large scene could at best do
//! (BENCHMARKS.md, "pgs: twenty piles of 50 stepped in turn").
//!
//! `--repeat N` runs the whole measurement N times in the same process, each from a freshly built
//! engine (the build untimed), and reports each phase's median CPU time over the N runs with every
//! run's time beside it. A short scene (SR1 standing: ~25 ms of CPU) then carries less of the
//! machine's noise in one measurement; `bench/mujoco_time.py` repeats MuJoCo's runs the same way.
//!
//! `patches` steps the whole run (untimed) and counts, from the engine's contact records after
//! every step, how many of each pad's spheres touch (`patches.rs`; `bench/cslc_floor.py` reads it).

mod cpu;
mod describe;
mod error;
mod patches;
mod phases;
mod project;
mod raw;
mod tribo_stepper;

/// mimalloc: its size-segregated pages keep a large scene's per-body blocks close together, which
/// the per-body stages read every step (BENCHMARKS.md, "mimalloc"). `tribo` and `tribo-bench`
/// use the same allocator, so that what the bench times is what a run costs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::json;

use crate::error::BenchError;
use crate::phases::{parse_phases, time_phases, InTurn, Phase, Stepper};

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
        /// Runs of the whole measurement, each from a freshly built engine; each phase reports
        /// the median of its runs' CPU times.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        repeat: u32,
        /// Independent copies of the project, each its own engine, stepped one after the other
        /// at every step; a phase's time is that of all copies' steps.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        copies: u32,
    },
    /// Step a project's whole run (untimed) and print, per pad, how many of its spheres touched
    /// over the steps, as JSON.
    Patches {
        /// The project file (tribo YAML or Choreonoid .cnoid).
        project: PathBuf,
        /// An engine of `tribo engines` with compliant pads (`cslc`, `cslc-rapier`).
        #[arg(long, default_value = "cslc")]
        engine: String,
        /// tribo's share directory (default: as `tribo` finds it).
        #[arg(long)]
        share: Option<PathBuf>,
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
            repeat,
            copies,
        } => time(
            &project,
            &engine,
            TimeOptions {
                phases: phases.as_deref(),
                share,
                stages,
                repeat,
                copies: copies as usize,
            },
        ),
        Command::Patches { project, engine, share } => patches(&project, &engine, share),
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

/// One measurement: the build's CPU time, each phase's, and the state at the end.
struct Run {
    build: std::time::Duration,
    /// CPU time of each phase.
    times: Vec<std::time::Duration>,
    contacts: usize,
    top: f64,
    iterations: Option<u64>,
    /// Steps whose solve stopped at its cap, and the largest relative residual one left.
    capped: Option<(u64, f64)>,
    stages: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Builds `copies` engines (timed apart) and steps them through `phases`, one after the other at
/// every step ([`InTurn`]); the contacts and iterations at the end are the copies' sums, the top
/// height their highest.
fn run_once(
    project: &tribo_scene::Project,
    engine: &str,
    phases: &[Phase],
    stages: bool,
    copies: usize,
) -> Result<Run, BenchError> {
    let build_start = cpu::process_time();
    if engine == RAW_RAPIER {
        let sims = (0..copies)
            .map(|_| raw::RawRapier::new(project))
            .collect::<Result<Vec<_>, _>>()?;
        let mut sims = InTurn(sims);
        let build = cpu::process_time().saturating_sub(build_start);
        let times = time_phases(&mut sims as &mut dyn Stepper, phases)?;
        return Ok(Run {
            build,
            times,
            contacts: sims.0.iter().map(raw::RawRapier::contacts).sum(),
            top: sims
                .0
                .iter()
                .map(raw::RawRapier::top_height)
                .fold(f64::NEG_INFINITY, f64::max),
            iterations: None,
            capped: None,
            stages: None,
        });
    }
    let sims = (0..copies)
        .map(|_| tribo_stepper::TriboStepper::new(project.clone(), engine, stages))
        .collect::<Result<Vec<_>, _>>()?;
    let mut sims = InTurn(sims);
    let build = cpu::process_time().saturating_sub(build_start);
    let times = time_phases(&mut sims as &mut dyn Stepper, phases)?;
    let mut stage_totals = serde_json::Map::new();
    for (stage, time) in sims.0.iter().flat_map(|sim| &sim.stages) {
        let total = stage_totals
            .get(*stage)
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0);
        stage_totals.insert(stage.to_string(), json!(total + time.as_secs_f64()));
    }
    Ok(Run {
        build,
        times,
        contacts: sims.0.iter().map(|sim| sim.contacts).sum(),
        top: sims
            .0
            .iter()
            .map(|sim| sim.top_height())
            .fold(f64::NEG_INFINITY, f64::max),
        iterations: Some(sims.0.iter().map(|sim| sim.iterations).sum()),
        capped: Some((
            sims.0.iter().map(|sim| sim.capped).sum(),
            sims.0.iter().map(|sim| sim.worst_capped_residual).fold(0.0, f64::max),
        )),
        stages: Some(stage_totals),
    })
}

/// `time`'s options besides the project and the engine.
struct TimeOptions<'a> {
    phases: Option<&'a str>,
    share: Option<PathBuf>,
    stages: bool,
    repeat: u32,
    copies: usize,
}

/// The median of `values` (the mean of the middle two for an even count; NaN for none).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match (values.get(n.saturating_sub(1) / 2), values.get(n / 2)) {
        (Some(lower), Some(upper)) => 0.5 * (lower + upper),
        _ => f64::NAN,
    }
}

fn time(path: &std::path::Path, engine: &str, options: TimeOptions) -> Result<String, BenchError> {
    let TimeOptions {
        phases,
        share,
        stages,
        repeat,
        copies,
    } = options;
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
    let mut runs = Vec::with_capacity(repeat as usize);
    for _ in 0..repeat.max(1) {
        runs.push(run_once(&project, engine, &phases, stages, copies)?);
    }
    let phase_json = phases
        .iter()
        .enumerate()
        .map(|(k, phase)| {
            let mut cpu: Vec<f64> = runs
                .iter()
                .filter_map(|r| r.times.get(k))
                .map(|t| t.as_secs_f64())
                .collect();
            let all = cpu.clone();
            let cpu_s = median(&mut cpu);
            json!({
                "steps": phase.to_string(),
                "count": phase.steps(),
                "cpu_s": cpu_s,
                "per_step_s": cpu_s / phase.steps() as f64,
                "cpu_s_runs": all,
            })
        })
        .collect::<Vec<_>>();
    let mut builds: Vec<f64> = runs.iter().map(|r| r.build.as_secs_f64()).collect();
    let last = runs.last().ok_or_else(|| BenchError::Project("no run".to_string()))?;
    let out = json!({
        "project": path.display().to_string(),
        "engine": engine,
        "time_step": project.simulation.time_step,
        "repeat": runs.len(),
        "copies": copies,
        "build_cpu_s": median(&mut builds),
        "phases": phase_json,
        "contacts_at_end": last.contacts,
        "top_height_at_end": last.top,
        "solver_iterations": last.iterations,
        "capped_steps": last.capped.map(|(steps, _)| steps),
        "worst_capped_relative_residual": last.capped.map(|(_, worst)| worst),
        "stage_wall_s": last.stages,
    });
    Ok(out.to_string())
}

fn patches(path: &std::path::Path, engine: &str, share: Option<PathBuf>) -> Result<String, BenchError> {
    let project = project::load(path, share)?;
    let steps = planned_steps(&project)?;
    let mut sim = tribo_stepper::TriboStepper::new(project, engine, false)?;
    let mut counter = patches::PatchCounter::new(sim.pads());
    for step in 1..=steps {
        sim.step(step)?;
        counter.add_step(sim.contacts());
    }
    let mut out = counter.to_json();
    if let Some(map) = out.as_object_mut() {
        map.insert("project".to_string(), json!(path.display().to_string()));
        map.insert("engine".to_string(), json!(engine));
    }
    Ok(out.to_string())
}

fn describe(path: &std::path::Path, share: Option<PathBuf>) -> Result<String, BenchError> {
    let project = project::load(path, share)?;
    let steps = planned_steps(&project)?;
    Ok(describe::describe(&project, steps).to_string())
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_is_the_middle_run_or_the_mean_of_the_middle_two() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut [5.0]), 5.0);
        assert!(median(&mut []).is_nan());
    }
}
