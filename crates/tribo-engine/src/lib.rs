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
pub mod metrics;
mod options;
mod recorder;
mod registry;
mod replay;
mod report;
mod runner;
mod state;

pub use command::{BodyCommands, Commands, JointCommand, KinematicTarget, LinkWrench};
pub use contact::{ContactRecord, PatchDetail};
pub use controller::{Control, ControlInput, Controller};
pub use engine::{BuildError, Engine, EngineFactory, MaterialParameter, StepError};
pub use ignored::{ignored_parameter_warnings, used_parameters};
pub use metrics::{MetricResult, MetricValue};
pub use options::EngineOptions;
pub use recorder::Trajectory;
pub use registry::Registry;
pub use replay::{PadPressure, PadTrack, PressureFrame, PressureTrack, Replay, ReplayContact, ReplayFrame};
pub use report::StepReport;
pub use runner::{run, RunError, RunOptions, RunOutcome, SolverSummary};
pub use state::{BodyState, LinkState, SceneState};
