//! Many runs at once: every (project, engine) job on the rayon pool, one progress display for all
//! of them, results in job order.
//!
//! Each run is single-threaded and independent of the others, so the results do not depend on the
//! number of threads; only the wall time does.

use std::path::Path;

use rayon::prelude::*;
use tribo_runner::{RowSink, RunError, RunHooks, RunOptions, RunRecord};
use tribo_scene::Project;

use crate::batch_progress::BatchProgress;
use crate::engines::registry;
use crate::failure::Failure;
use crate::outputs::trajectory_file;

/// One run: a loaded project on one engine.
pub struct Job<'a> {
    pub project: &'a Project,
    pub engine: &'a str,
    /// Stream the trajectory into `DIR/trajectory.csv` (a checked, existing directory).
    pub out: Option<&'a Path>,
}

/// Steps a run of `project` takes with `options` (the runner's own count: duration / time step,
/// rounded).
fn expected_steps(project: &Project, options: &RunOptions) -> u64 {
    let duration = options.duration.unwrap_or(project.simulation.duration);
    tribo_runner::step_count(duration, project.simulation.time_step)
}

fn run_one(job: &Job, options: &RunOptions, progress: &mut dyn FnMut(u64, u64)) -> Result<RunRecord, Failure> {
    let registry = registry();
    let mut sink = job.out.map(trajectory_file).transpose()?;
    let hooks = RunHooks {
        progress,
        rows: sink.as_mut().map(|s| s as &mut dyn RowSink),
        on_step: None,
    };
    match tribo_runner::run_with(job.project, &registry, job.engine, options, hooks) {
        Ok(outcome) => Ok(RunRecord::finished(outcome)),
        // The run failed (it has a partial outcome), or the engine cannot simulate this scene:
        // the other engines go on.
        Err(e) if e.partial().is_some() || is_unsupported_scene(&e) => Ok(RunRecord::failed(job.engine, e)),
        Err(e) => Err(crate::run::run_error(&job.project.path, job.engine, e)),
    }
}

/// An engine that cannot simulate the scene (a failed run, not invalid input).
pub fn is_unsupported_scene(error: &RunError) -> bool {
    matches!(error, RunError::Build(e) if e.is_scene_error())
}

/// Run every job in parallel; the outcomes come back in the order of `jobs`.
pub fn run_all(jobs: &[Job], options: &RunOptions, quiet: bool) -> Vec<Result<RunRecord, Failure>> {
    let totals: Vec<u64> = jobs.iter().map(|j| expected_steps(j.project, options)).collect();
    let progress = BatchProgress::new(totals.iter().sum(), jobs.len(), quiet);
    let outcomes = jobs
        .par_iter()
        .zip(totals.par_iter())
        .map(|(job, &total)| {
            let mut reported = 0u64;
            let result = run_one(job, options, &mut |step, _| {
                // Report in chunks: the shared bar is touched a few hundred times per run.
                if step >= reported + 200 {
                    progress.advance(step - reported);
                    reported = step;
                }
            });
            progress.run_done(total.saturating_sub(reported));
            result
        })
        .collect();
    progress.finish();
    outcomes
}
