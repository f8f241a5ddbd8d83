//! Stepping an engine with its controllers for a project's duration.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tribo_scene::Project;

use crate::limits::{check_step_count, TooManySteps};
use crate::metrics::{self, MetricProbe, MetricResult};
use crate::recorder::Trajectory;
use crate::recording::{Recording, RowSink, MAX_TRAJECTORY_ROWS};
use crate::replay::{Replay, MAX_REPLAY_FRAMES};
use crate::{
    controllers, BuildError, Commands, Control, ControlInput, Controller, EngineOptions, LazyContacts, Registry,
    SceneState, StepError, StepReport,
};

/// Distinct engine warnings a run keeps; later new ones are counted in one closing line.
pub const MAX_WARNINGS: usize = 100;

/// Run settings beyond the project's own.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Override the project's duration, s.
    pub duration: Option<f64>,
    /// Record a trajectory row every this many seconds (default: every step).
    pub record_interval: Option<f64>,
    /// Capture replay frames (all link poses, contact forces) every this many seconds; none if
    /// `None`. At most [`MAX_REPLAY_FRAMES`](crate::MAX_REPLAY_FRAMES) are kept (thinned by
    /// halves).
    pub replay_interval: Option<f64>,
    /// Run even when the run takes more than [`MAX_STEPS`](crate::MAX_STEPS) steps (else
    /// [`RunError::TooManySteps`] before anything is built).
    pub allow_long_run: bool,
}

/// What a caller hears from a run while it goes.
pub struct RunHooks<'a> {
    /// `progress(step, total_steps)`, called after every step.
    pub progress: &'a mut dyn FnMut(u64, u64),
    /// Every recorded row, before the in-memory trajectory thins them (e.g. a
    /// [`CsvSink`](crate::CsvSink) streaming `trajectory.csv`). A sink error ends the run as a
    /// failure ([`RunError::OutputFailed`]).
    pub rows: Option<&'a mut dyn RowSink>,
    /// Called after every step with the state and the contacts the step left (e.g. to keep the
    /// contact forces of chosen steps, or to feed a learner); `None` to skip.
    pub on_step: Option<&'a mut dyn FnMut(&StepView)>,
}

impl<'a> RunHooks<'a> {
    /// Hooks that only report progress.
    pub fn progress(progress: &'a mut dyn FnMut(u64, u64)) -> RunHooks<'a> {
        RunHooks {
            progress,
            rows: None,
            on_step: None,
        }
    }
}

/// What [`RunHooks::on_step`] sees after a step.
#[derive(Debug, Clone, Copy)]
pub struct StepView<'a> {
    /// Steps completed (1 after the first step).
    pub step: u64,
    /// s.
    pub time: f64,
    pub state: &'a SceneState,
    /// The step's contacts (`contacts.get()`), read from the engine only if asked.
    pub contacts: LazyContacts<'a>,
}

/// What one run of one engine produced (up to the failure, for a failed run: see
/// [`RunError::Failed`]).
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub engine: String,
    pub steps: u64,
    /// s.
    pub simulated_time: f64,
    pub wall_time: Duration,
    pub metrics: Vec<MetricResult>,
    /// At most [`MAX_TRAJECTORY_ROWS`](crate::MAX_TRAJECTORY_ROWS) rows, evenly spaced, from
    /// t = 0 to the last step (every recorded row of a shorter run).
    pub trajectory: Trajectory,
    /// Replay frames, if asked for.
    pub replay: Option<Replay>,
    /// Engine warnings (each distinct message once) and ignored material parameters.
    pub warnings: Vec<String>,
    pub solver: SolverSummary,
}

impl RunOutcome {
    /// The outcome of a run of `engine` that did not take a step: no rows, no metrics.
    pub fn empty(engine: &str) -> RunOutcome {
        RunOutcome {
            engine: engine.to_string(),
            steps: 0,
            simulated_time: 0.0,
            wall_time: Duration::ZERO,
            metrics: Vec::new(),
            trajectory: Trajectory::default(),
            replay: None,
            warnings: Vec::new(),
            solver: SolverSummary::default(),
        }
    }

    pub fn steps_per_second(&self) -> f64 {
        let secs = self.wall_time.as_secs_f64();
        if secs > 0.0 {
            self.steps as f64 / secs
        } else {
            f64::INFINITY
        }
    }
}

/// Solver effort over the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SolverSummary {
    pub mean_iterations: f64,
    pub max_residual: f64,
    pub max_contacts: usize,
    /// Total wall time per stage, when the engine times its stages (`Engine::set_stage_timing`;
    /// off in runs: empty).
    pub stages: Vec<(&'static str, Duration)>,
}

/// Why a run did not finish. The first five stop it before its first step; [`RunError::Failed`]
/// and [`RunError::OutputFailed`] end a run that started, and carry what it produced up to the
/// failure.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error("{0}")]
    UnknownEngine(String),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error("controller `{name}` failed to start: {reason}")]
    Controller { name: String, reason: String },
    #[error(transparent)]
    TooManySteps(#[from] TooManySteps),
    /// The trajectory output could not be opened.
    #[error("cannot write the trajectory: {0}")]
    Output(String),
    /// Step `step` (0-based: the steps completed before it) at time `time` failed: a divergence
    /// (naming its step and body), a command the engine cannot apply, a solver failure, … The
    /// message is the divergence's own, else the step error with the step and time prefixed.
    #[error("{}", step_failure(.error, *.step, *.time))]
    Failed {
        engine: String,
        step: u64,
        /// s.
        time: f64,
        error: StepError,
        /// The run up to the failure: trajectory, metrics of the completed steps, warnings.
        partial: Box<RunOutcome>,
    },
    /// A recorded row could not be written (the trajectory sink failed) after `step` steps.
    #[error("cannot write the trajectory: {reason}")]
    OutputFailed {
        engine: String,
        step: u64,
        reason: String,
        /// The run up to the failure.
        partial: Box<RunOutcome>,
    },
}

impl RunError {
    /// What a run that started produced up to its failure ([`RunError::Failed`],
    /// [`RunError::OutputFailed`]); `None` for a run that never started.
    pub fn partial(&self) -> Option<&RunOutcome> {
        match self {
            RunError::Failed { partial, .. } | RunError::OutputFailed { partial, .. } => Some(partial),
            _ => None,
        }
    }
}

/// One engine's run as tables and reports show it: what it produced and, for a failed run, why
/// it failed.
#[derive(Debug, Clone)]
pub struct RunRecord {
    /// The whole run; up to the failure for a run that failed after it started; empty (no steps)
    /// for one that failed before its first step.
    pub outcome: RunOutcome,
    pub failure: Option<RunError>,
}

impl RunRecord {
    /// A finished run.
    pub fn finished(outcome: RunOutcome) -> RunRecord {
        RunRecord { outcome, failure: None }
    }

    /// A failed run of `engine`: its partial outcome if it started, else an empty one.
    pub fn failed(engine: &str, error: RunError) -> RunRecord {
        let outcome = error.partial().cloned().unwrap_or_else(|| RunOutcome::empty(engine));
        RunRecord {
            outcome,
            failure: Some(error),
        }
    }

    /// The record of a run's result.
    pub fn new(engine: &str, result: Result<RunOutcome, RunError>) -> RunRecord {
        match result {
            Ok(outcome) => RunRecord::finished(outcome),
            Err(error) => RunRecord::failed(engine, error),
        }
    }

    pub fn is_failed(&self) -> bool {
        self.failure.is_some()
    }

    /// Why the run failed, as one line: the run error's message; for a run that never started,
    /// `failed before its first step: …`.
    pub fn failure_text(&self) -> Option<String> {
        self.failure.as_ref().map(|error| match error.partial() {
            Some(_) => error.to_string(),
            None => format!("failed before its first step: {error}"),
        })
    }
}

/// The step count of a run of `project` with `options`, or [`TooManySteps`] when it is above
/// [`MAX_STEPS`](crate::MAX_STEPS) and `options.allow_long_run` is not set. [`run`] checks this
/// before building anything; callers can check it earlier.
pub fn planned_steps(project: &Project, options: &RunOptions) -> Result<u64, TooManySteps> {
    let duration = options.duration.unwrap_or(project.simulation.duration);
    check_step_count(duration, project.simulation.time_step, options.allow_long_run)
}

/// Run `project` on the engine called `engine`. `progress(step, total_steps)` is called every step.
pub fn run(
    project: &Project,
    registry: &Registry,
    engine: &str,
    options: &RunOptions,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<RunOutcome, RunError> {
    run_with(project, registry, engine, options, RunHooks::progress(progress))
}

/// [`run`], with every recorded row also handed to `hooks.rows`.
pub fn run_with(
    project: &Project,
    registry: &Registry,
    engine: &str,
    options: &RunOptions,
    hooks: RunHooks,
) -> Result<RunOutcome, RunError> {
    let RunHooks {
        progress,
        rows,
        mut on_step,
    } = hooks;
    let total_steps = planned_steps(project, options)?;
    let factory = registry.get(engine).map_err(RunError::UnknownEngine)?;
    let engine_options = EngineOptions {
        node: project.engine_options(engine).cloned(),
    };
    let scene = Arc::clone(&project.scene);
    let mut engine = factory.build(&scene, &engine_options)?;
    let mut warnings: Vec<String> = crate::ignored_parameter_warnings(&scene, factory.honoured_parameters());
    warnings.extend(crate::uncollided_warnings(&scene));
    let mut dropped_warnings = false;
    let mut caps = crate::CapTally::default();

    let dt = project.simulation.time_step;
    let record_every = options.record_interval.map_or(1, |i| ((i / dt).round() as u64).max(1));
    let mut replay_every = options.replay_interval.map(|i| ((i / dt).round() as u64).max(1));
    let mut replay = replay_every.map(|n| Replay::new(n as f64 * dt));

    let mut controllers: Vec<Box<dyn Controller>> = project.controllers.iter().map(controllers::build).collect();
    let mut probes: Vec<Box<dyn MetricProbe>> = project.metrics.iter().map(metrics::probe).collect();
    let mut recording = Recording::new(&project.signals, record_every, MAX_TRAJECTORY_ROWS, rows)
        .map_err(|e| RunError::Output(e.to_string()))?;
    let link_counts = scene.bodies.iter().map(|b| b.model.links.len());
    let mut commands = Commands::idle(link_counts);

    {
        let input = ControlInput {
            time: 0.0,
            dt,
            step: 0,
            scene: &scene,
            state: engine.state(),
            contacts: LazyContacts::NONE,
        };
        for c in &mut controllers {
            c.initialize(&input)
                .map_err(|reason| RunError::Controller { name: c.name(), reason })?;
        }
        for p in &mut probes {
            p.observe(0.0, &scene, engine.state(), LazyContacts::NONE);
        }
        recording
            .sample(
                0,
                0.0,
                &project.signals,
                engine.state(),
                LazyContacts::NONE,
                total_steps == 0,
            )
            .map_err(|e| RunError::Output(e.to_string()))?;
        if let Some(r) = replay.as_mut() {
            r.capture(0.0, engine.state(), &[]);
        }
    }

    let mut summary = SolverSummary::default();
    let mut iterations_total = 0u64;
    let mut failure: Option<Stop> = None;
    let mut steps = 0u64;
    let started = Instant::now();
    while steps < total_steps {
        let time = steps as f64 * dt;
        commands.clear();
        let input = ControlInput {
            time,
            dt,
            step: steps,
            scene: &scene,
            state: engine.state(),
            contacts: LazyContacts::of(engine.as_ref()),
        };
        let mut finished = false;
        for c in &mut controllers {
            if c.control(&input, &mut commands) == Control::Finished && c.can_end_run() {
                finished = true;
            }
        }
        if finished {
            break;
        }
        let report = match engine.step(dt, &commands) {
            Ok(r) => r,
            Err(error) => {
                failure = Some(Stop::Step { time, error });
                break;
            }
        };
        steps += 1;
        let t = steps as f64 * dt;
        caps.absorb(&report);
        absorb(
            &mut summary,
            &mut iterations_total,
            &mut warnings,
            &mut dropped_warnings,
            report,
        );
        for p in &mut probes {
            p.observe(t, &scene, engine.state(), LazyContacts::of(engine.as_ref()));
        }
        if let Some(observe) = on_step.as_mut() {
            observe(&StepView {
                step: steps,
                time: t,
                state: engine.state(),
                contacts: LazyContacts::of(engine.as_ref()),
            });
        }
        if steps.is_multiple_of(record_every) || steps == total_steps {
            let last = steps == total_steps;
            if let Err(e) = recording.sample(
                steps,
                t,
                &project.signals,
                engine.state(),
                LazyContacts::of(engine.as_ref()),
                last,
            ) {
                failure = Some(Stop::Output(e.to_string()));
                break;
            }
        }
        if let (Some(r), Some(n)) = (replay.as_mut(), replay_every.as_mut()) {
            if steps.is_multiple_of(*n) {
                r.capture(t, engine.state(), engine.contacts());
                if r.frames.len() > MAX_REPLAY_FRAMES {
                    r.halve();
                    *n *= 2;
                }
            }
        }
        progress(steps, total_steps);
    }
    let wall_time = started.elapsed();
    let (trajectory, closed) = recording.finish();
    if let (Err(e), None) = (closed, &failure) {
        failure = Some(Stop::Output(e.to_string()));
    }
    warnings.extend(caps.warning());
    if dropped_warnings {
        warnings.push(format!(
            "… and more distinct warnings (only the first {MAX_WARNINGS} are kept)"
        ));
    }
    if steps > 0 {
        summary.mean_iterations = iterations_total as f64 / steps as f64;
    }
    let metrics = project
        .metrics
        .iter()
        .zip(&probes)
        .map(|(spec, p)| MetricResult::new(spec, p.finish()))
        .collect();
    let outcome = RunOutcome {
        engine: engine.name().to_string(),
        steps,
        simulated_time: steps as f64 * dt,
        wall_time,
        metrics,
        trajectory,
        replay,
        warnings,
        solver: summary,
    };
    match failure {
        None => Ok(outcome),
        Some(Stop::Step { time, error }) => Err(RunError::Failed {
            engine: outcome.engine.clone(),
            step: steps,
            time,
            error,
            partial: Box::new(outcome),
        }),
        Some(Stop::Output(reason)) => Err(RunError::OutputFailed {
            engine: outcome.engine.clone(),
            step: steps,
            reason,
            partial: Box::new(outcome),
        }),
    }
}

/// Why the stepping loop stopped early.
enum Stop {
    Step { time: f64, error: StepError },
    Output(String),
}

/// A failed step as the run reports it: a divergence names its step, body and what; any other
/// error gets the step and time prefixed.
fn step_failure(error: &StepError, step: u64, time: f64) -> String {
    match error {
        StepError::Diverged { .. } => error.to_string(),
        other => format!("step {step} (t = {time:.4} s) failed: {other}"),
    }
}

fn absorb(
    summary: &mut SolverSummary,
    iterations: &mut u64,
    warnings: &mut Vec<String>,
    dropped: &mut bool,
    report: StepReport,
) {
    *iterations += u64::from(report.iterations);
    summary.max_residual = summary.max_residual.max(report.residual);
    summary.max_contacts = summary.max_contacts.max(report.contacts);
    for w in report.warnings {
        if warnings.contains(&w) {
            continue;
        }
        if warnings.len() < MAX_WARNINGS {
            warnings.push(w);
        } else {
            *dropped = true;
        }
    }
    for (stage, time) in report.stages {
        match summary.stages.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, total)) => *total += time,
            None => summary.stages.push((stage, time)),
        }
    }
}
