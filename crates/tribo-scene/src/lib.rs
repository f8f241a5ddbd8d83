//! tribo projects and the validated [`Scene`] they assemble into.
//!
//! A project file (YAML, documented in the README and in [`project`]) names material tables,
//! bodies, controllers, recorded signals, metrics and parameters. Loading it validates everything
//! against the models and the merged material table and yields an immutable [`Scene`] (what the
//! engines consume) plus the run's specs (what the runner consumes). Numbers may be formulas of
//! the parameters ([`expr`]); text may use `${SHARE}`, `${PROJECT_DIR}` and `${parameter}`.
//! [`import`] writes a `.cnoid` project or a URDF robot as a project directory (`tribo import`).

mod bodies;
mod cnoid;
mod code;
mod controllers;
pub mod expr;
pub mod import;
mod metrics;
mod pads;
mod params;
pub mod project;
mod reader;
mod share;
mod signals;

pub use controllers::{
    ControllerSpec, JointEffortSpec, JointPatternSpec, KinematicPathSpec, PathSpec, PatternMode, VelocitySegment,
    Waypoint, WrenchSpec,
};
pub use metrics::{Axis, Expected, ExpectedValue, MetricKind, MetricSpec, Reduce, Window};
pub use params::{ParamValue, Parameter, Parameters};
pub use project::{LoadOptions, Project, Simulation};
pub use share::default_share_dir;
pub use signals::{SignalKind, SignalSpec};
/// The scene types are the engine API's (`tribo-engine`); a project assembles them.
pub use tribo_engine::{LinkRef, Scene, SceneBody, ScenePad};
