//! tribo as a library: load a scene whose materials decide friction and bounce, run it on
//! several contact engines, and compare them — the `tribo` command's work, from Rust.
//!
//! # Data flow
//!
//! ```text
//! project file (.yaml / .cnoid) ─ Project::load ─▶ Project ─┬─ run(engine) ───────▶ Run (metrics, trajectory, contacts)
//!   materials, .body, .seq          (scene, materials,      ├─ compare(engines) ─▶ Comparison (one Run or Error per engine)
//! SceneBuilder (bodies in code) ──▶  controllers, metrics)  ├─ sweep(grid, …) ───▶ Sweep (grid points × engines)
//!                                                           └─ simulator(engine) ▶ Simulator: step by hand, your controller
//! ```
//!
//! [`engines()`] is the one list of engines (`rapier`, `pgs`, `cslc`, `cslc-rapier`); the
//! command-line tool and the tests take it from here. Everything is `f64`, SI units and
//! radians. Runs are deterministic: the same project, engine and settings give bit-identical
//! results whatever the thread count, so comparisons and sweeps run in parallel.
//!
//! Failures are typed ([`Error`]): a file error names file, line and column; an unknown engine
//! names the closest one; a run that diverges is an `Err` naming the engine, body, step and
//! time, with the run up to the failure in [`Error::partial`].
//!
//! # Example
//!
//! ```
//! # fn main() -> Result<(), tribo::Error> {
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/ball/ball.yaml");
//! let project = tribo::Project::builder(path).set("drop_height", 1.0).time(1.5).load()?;
//! let comparison = project.compare(&["rapier", "pgs"])?;
//! for (engine, ratio) in comparison.values("bounce_ratio") {
//!     let ratio = ratio.expect("the ball bounced");
//!     // Restitution 0.8 between Ground and Ball: each apex is e² = 0.64 of the one before.
//!     assert!((ratio - 0.64).abs() < 0.01, "{engine}: {ratio}");
//! }
//! # Ok(()) }
//! ```
//!
//! More in `examples/` (`cargo run --release -p tribo --example NAME`): `run_sample` (run a
//! sample, print its metrics), `own_controller` (step an engine by hand with your controller
//! and read contact forces), `scene_in_code` (compare engines on a scene built in code).

mod compare;
mod error;
mod project;
mod registry;
mod run;
mod scene_builder;
mod simulator;
mod sweep;

pub use compare::{Comparison, EngineRun};
pub use error::Error;
pub use project::{share_dir, Project, ProjectBuilder};
pub use registry::{engines, hosts};
pub use run::{Run, RunSettings};
pub use scene_builder::SceneBuilder;
pub use simulator::Simulator;
pub use sweep::{Grid, Sweep, SweepPoint};

pub use tribo_material::MaterialTable;
/// Models (`.body` files, bodies built in code) and material tables.
pub use tribo_model::{Body, Geometry, Joint, JointKind, Link, Shape};
/// The engine API, runner types and controllers (commands, state, contacts, metrics, …).
pub use tribo_runner as runner;
pub use tribo_runner::{
    Commands, ContactRecord, Control, ControlInput, Controller, JointCommand, LazyContacts, LinkWrench, MetricResult,
    MetricValue, SceneState,
};
pub use tribo_scene::ExpectedValue;
