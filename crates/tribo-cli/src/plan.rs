//! What a run will do, told before it starts: its step count against the limit
//! ([`tribo_runner::MAX_STEPS`], `--allow-long-run`), and how motion patterns are played.

use tribo_runner::{RunOptions, MAX_STEPS};
use tribo_scene::{ControllerSpec, Project};

use crate::failure::Failure;

/// The run's step count, or an invalid-input failure (exit 2) naming the numbers and the way out
/// when it is above [`MAX_STEPS`] without `--allow-long-run`.
pub fn check_steps(project: &Project, options: &RunOptions) -> Result<u64, Failure> {
    tribo_runner::planned_steps(project, options)
        .map_err(|e| Failure::input(format!("{}: {e}", project.path.display())))
}

/// A warning for an allowed run above the limit.
pub fn long_run_warning(steps: u64) -> Option<String> {
    (steps > MAX_STEPS).then(|| {
        format!(
            "warning: the run takes {steps} steps, more than the limit of {MAX_STEPS} (allowed by --allow-long-run)"
        )
    })
}

/// One note per joint pattern whose frame period is not the time step: the pattern is resampled
/// in time (linear interpolation at its own frame rate), so it keeps its length.
pub fn pattern_notes(project: &Project) -> Vec<String> {
    let dt = project.simulation.time_step;
    project
        .controllers
        .iter()
        .filter_map(|c| match c {
            ControllerSpec::JointPattern(p) => Some(&p.motion),
            _ => None,
        })
        .filter(|m| ((m.frame_rate * dt) - 1.0).abs() > 1e-9)
        .map(|m| {
            format!(
                "note: {} is {} Hz and the time step {} s ({} Hz): the pattern is resampled in time \
                 (interpolated between its frames), so it plays over its own {} s",
                m.source,
                m.frame_rate,
                dt,
                1.0 / dt,
                m.num_frames() as f64 / m.frame_rate
            )
        })
        .collect()
}
