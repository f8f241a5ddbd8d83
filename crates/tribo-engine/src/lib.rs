//! The engine API of tribo: the interface every contact engine implements and the types it
//! exchanges with the rest of the project — the immutable [`Scene`] it simulates, the
//! [`Commands`] it applies, the [`SceneState`] and [`ContactRecord`]s it reads out, the
//! [`StepReport`] of each step, the [`MaterialParameter`]s it honours, and the [`ContactHost`]
//! interface through which a contact extension runs on a host engine.
//!
//! Engines depend on this crate, the model and material data types and nothing else of the
//! project: the runner, controllers and metrics live in `tribo-runner`, project files in
//! `tribo-scene`.
//!
//! Data flow: `Scene` → [`EngineFactory::build`] → loop { [`Commands`] → [`Engine::step`] →
//! [`StepReport`], [`Engine::state`], [`Engine::contacts`] }.

mod command;
mod contact;
mod engine;
mod host;
mod options;
mod registry;
mod report;
mod scene;
mod state;

pub use command::{BodyCommands, Commands, JointCommand, KinematicTarget, LinkWrench};
pub use contact::{ContactRecord, PatchDetail};
pub use engine::{BuildError, Engine, EngineFactory, LazyContacts, MaterialParameter, StepError};
pub use host::{CompliantPoint, ContactHost, HostFactory, HostWrench, HostedContacts, HostedStep};
pub use options::EngineOptions;
pub use registry::Registry;
pub use report::{CapTally, CappedSolve, StepReport};
pub use scene::{declared_pads, LinkRef, Scene, SceneBody, ScenePad};
pub use state::{BodyState, LinkState, SceneState};
/// The located message of a bad option (engines return it without depending on `tribo-yaml`).
pub use tribo_yaml::Diagnostic;
