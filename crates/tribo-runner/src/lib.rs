//! Runs a tribo project on an engine: the controllers that drive bodies, the step loop, the
//! bounded recorder and replay, and the metric probes.
//!
//! Data flow: `Project` (`tribo-scene`) → [`EngineFactory::build`] on its `Scene` → loop
//! { controllers → [`Commands`] → [`Engine::step`] → [`StepReport`] } → [`Trajectory`] +
//! [`MetricResult`]s ([`run`]). The engine API (`tribo-engine`) is re-exported, so a runner user
//! needs this one crate.

mod controller;
pub mod controllers;
mod ignored;
mod limits;
pub mod metrics;
mod recorder;
mod recording;
mod replay;
mod runner;
mod uncollided;

pub use tribo_engine::*;

pub use controller::{Control, ControlInput, Controller};
pub use ignored::{engine_specific_notes, ignored_parameter_warnings, used_parameters, ENGINE_SPECIFIC};
pub use limits::{check_step_count, step_count, TooManySteps, MAX_STEPS};
pub use metrics::{MetricResult, MetricValue};
pub use recorder::Trajectory;
pub use recording::{CsvSink, RowSink, MAX_TRAJECTORY_ROWS};
pub use replay::{
    PadPressure, PadTrack, PressureFrame, PressureTrack, Replay, ReplayContact, ReplayFrame, MAX_PRESSURE_FRAMES,
    MAX_REPLAY_FRAMES,
};
pub use runner::{
    planned_steps, run, run_with, RunError, RunHooks, RunOptions, RunOutcome, RunRecord, SolverSummary, StepView,
    MAX_WARNINGS,
};
pub use uncollided::uncollided_warnings;
