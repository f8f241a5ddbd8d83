//! The spine of tribo: one interface every contact engine implements, the controllers that drive
//! bodies, and the runner that steps an engine, records signals and computes metrics.
//!
//! Data flow: `Scene` → [`EngineFactory::build`] → loop { controllers → [`Commands`] →
//! [`Engine::step`] → [`StepReport`] } → [`Trajectory`] + [`MetricResult`]s ([`run`]).

mod command;
mod contact;
mod controller;
pub mod controllers;
mod engine;
mod ignored;
mod limits;
pub mod metrics;
mod options;
mod recorder;
mod recording;
mod registry;
mod replay;
mod report;
mod runner;
mod state;

pub use command::{BodyCommands, Commands, JointCommand, KinematicTarget, LinkWrench};
pub use contact::{ContactRecord, PatchDetail};
pub use controller::{Control, ControlInput, Controller};
pub use engine::{BuildError, Engine, EngineFactory, MaterialParameter, StepError};
pub use ignored::{engine_specific_notes, ignored_parameter_warnings, used_parameters, ENGINE_SPECIFIC};
pub use limits::{check_step_count, step_count, TooManySteps, MAX_STEPS};
pub use metrics::{MetricResult, MetricValue};
pub use options::EngineOptions;
pub use recorder::Trajectory;
pub use recording::{CsvSink, RowSink, MAX_TRAJECTORY_ROWS};
pub use registry::Registry;
pub use replay::{
    PadPressure, PadTrack, PressureFrame, PressureTrack, Replay, ReplayContact, ReplayFrame, MAX_REPLAY_FRAMES,
};
pub use report::{CapTally, CappedSolve, StepReport};
pub use runner::{
    planned_steps, run, run_with, RunError, RunHooks, RunOptions, RunOutcome, SolverSummary, MAX_WARNINGS,
};
pub use state::{BodyState, LinkState, SceneState};
