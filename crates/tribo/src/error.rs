//! What can go wrong, as one typed error.

use tribo_runner::{BuildError, Diagnostic, RunError, StepError, TooManySteps};

use crate::Run;

/// Why loading, running, comparing or stepping failed.
///
/// A run that diverged or whose step failed is an error too ([`Error::Diverged`],
/// [`Error::StepFailed`]): it names the engine, the step and time and (for a divergence) the
/// body, and keeps what the run produced up to the failure ([`Error::partial`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A project, model, motion or material file could not be read; the diagnostic names the
    /// file, line and column, what was expected and, for unknown names, the closest known one.
    #[error("{0}")]
    Load(#[from] Diagnostic),
    /// An argument given in code is not valid (an override without a value, an empty sweep
    /// axis, …).
    #[error("{0}")]
    Input(String),
    /// No engine has this name; the message names the closest one and lists them all.
    #[error("{0}")]
    UnknownEngine(String),
    /// The engine cannot simulate this scene (an option it does not know, a shape it does not
    /// support, …).
    #[error("engine `{engine}` cannot simulate this scene: {error}")]
    Build { engine: String, error: BuildError },
    /// A controller of the project failed to start.
    #[error("engine `{engine}`: controller `{name}` failed to start: {reason}")]
    Controller {
        engine: String,
        name: String,
        reason: String,
    },
    /// The run would take more steps than the runner's limit (see `tribo_runner::MAX_STEPS`;
    /// `RunSettings::allow_long_run` lifts it).
    #[error(transparent)]
    TooManySteps(#[from] TooManySteps),
    /// An output (a trajectory file) could not be written.
    #[error("{0}")]
    Output(String),
    /// Any other failure the runner reports.
    #[error(transparent)]
    Runner(RunError),
    /// The simulation diverged: `body` left the finite numbers (or the engine's bounds) at step
    /// `step`, time `time`.
    #[error("engine `{engine}`: simulation diverged at step {step} (t = {time:.4} s): body `{body}` {what}")]
    Diverged {
        engine: String,
        body: String,
        step: u64,
        /// s.
        time: f64,
        what: String,
        /// The run up to the divergence (`None` when stepping by hand).
        partial: Option<Box<Run>>,
    },
    /// Step `step` (the steps completed before it) at time `time` failed for another reason: a
    /// command the engine cannot apply, a solver failure, …
    #[error("engine `{engine}`: step {step} (t = {time:.4} s) failed: {error}")]
    StepFailed {
        engine: String,
        step: u64,
        /// s.
        time: f64,
        error: StepError,
        /// The run up to the failure (`None` when stepping by hand).
        partial: Option<Box<Run>>,
    },
}

impl Error {
    /// What a run produced before it failed, for a run that started.
    pub fn partial(&self) -> Option<&Run> {
        match self {
            Error::Diverged { partial, .. } | Error::StepFailed { partial, .. } => partial.as_deref(),
            _ => None,
        }
    }

    /// A failed step of `engine` at `step` (the steps completed before it), time `time`.
    pub(crate) fn from_step(engine: &str, step: u64, time: f64, error: StepError, partial: Option<Box<Run>>) -> Error {
        match error {
            StepError::Diverged { body, what, .. } => Error::Diverged {
                engine: engine.to_string(),
                body,
                step,
                time,
                what,
                partial,
            },
            error => Error::StepFailed {
                engine: engine.to_string(),
                step,
                time,
                error,
                partial,
            },
        }
    }

    /// The facade's error for a runner's, with the run's captured contacts kept on the partial
    /// run.
    pub(crate) fn from_run(engine: &str, error: RunError, keep: impl FnOnce(tribo_runner::RunOutcome) -> Run) -> Error {
        match error {
            RunError::UnknownEngine(message) => Error::UnknownEngine(message),
            RunError::Build(error) => Error::Build {
                engine: engine.to_string(),
                error,
            },
            RunError::Controller { name, reason } => Error::Controller {
                engine: engine.to_string(),
                name,
                reason,
            },
            RunError::TooManySteps(e) => Error::TooManySteps(e),
            RunError::Output(reason) => Error::Output(reason),
            RunError::Failed {
                engine,
                step,
                time,
                error,
                partial,
            } => Error::from_step(&engine, step, time, error, Some(Box::new(keep(*partial)))),
            RunError::OutputFailed { reason, step, .. } => Error::Output(format!("after {step} steps: {reason}")),
            other => Error::Runner(other),
        }
    }
}
