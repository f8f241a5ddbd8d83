//! Many runs at once: every (project, engine) job on the rayon pool, one progress display for all
//! of them, results in job order.
//!
//! Each run is single-threaded and independent of the others, so the results do not depend on the
//! number of threads; only the wall time does.

use rayon::prelude::*;
use tribo_engine::{RunOptions, RunOutcome};
use tribo_scene::Project;

use crate::batch_progress::BatchProgress;
use crate::engines::registry;
use crate::failure::Failure;

/// One run: a loaded project on one engine.
pub struct Job<'a> {
    pub project: &'a Project,
    pub engine: &'a str,
}

/// Steps a run of `project` takes with `options` (the runner's own count: duration / time step,
/// rounded).
fn expected_steps(project: &Project, options: &RunOptions) -> u64 {
    let duration = options.duration.unwrap_or(project.simulation.duration);
    let steps = (duration / project.simulation.time_step).round();
    if steps.is_finite() && steps > 0.0 {
        steps as u64
    } else {
        0
    }
}

/// Run every job in parallel; the outcomes come back in the order of `jobs`.
pub fn run_all(jobs: &[Job], options: &RunOptions, quiet: bool) -> Vec<Result<RunOutcome, Failure>> {
    let totals: Vec<u64> = jobs.iter().map(|j| expected_steps(j.project, options)).collect();
    let progress = BatchProgress::new(totals.iter().sum(), jobs.len(), quiet);
    let outcomes = jobs
        .par_iter()
        .zip(totals.par_iter())
        .map(|(job, &total)| {
            let registry = registry();
            let mut reported = 0u64;
            let result = tribo_engine::run(job.project, &registry, job.engine, options, &mut |step, _| {
                // Report in chunks: the shared bar is touched a few hundred times per run.
                if step >= reported + 200 {
                    progress.advance(step - reported);
                    reported = step;
                }
            });
            progress.run_done(total.saturating_sub(reported));
            result.map_err(|e| Failure::input(format!("{}: {e}", job.project.path.display())))
        })
        .collect();
    progress.finish();
    outcomes
}
