//! The interface every contact engine implements.

use std::sync::Arc;

use crate::Scene;

use crate::{Commands, ContactRecord, EngineOptions, SceneState, StepReport};

/// A contact engine stepping one scene. It owns its mutable state; the scene is shared.
///
/// Every engine exposes the same read-out, so the runner, the controllers and the comparison
/// never need to know which engine they talk to.
pub trait Engine: Send {
    /// Registry name (`rapier`, `pgs`, `cslc`).
    fn name(&self) -> &'static str;

    /// Advance by `dt` seconds, applying `commands` during the step. A step that diverges returns
    /// [`StepError::Diverged`] naming the body; it never leaves NaN in the state.
    fn step(&mut self, dt: f64, commands: &Commands) -> Result<StepReport, StepError>;

    /// Simulated time, s.
    fn time(&self) -> f64;

    /// Link poses and velocities, joint positions and velocities, after the last step.
    fn state(&self) -> &SceneState;

    /// Contacts resolved in the last step.
    fn contacts(&self) -> &[ContactRecord];
}

/// Builds engines of one kind and says what they honour.
pub trait EngineFactory: Send + Sync {
    fn name(&self) -> &'static str;

    /// One line for `tribo engines`.
    fn description(&self) -> &'static str;

    /// Material and contact-material parameters this engine uses; the others are reported as
    /// ignored when a scene sets them.
    fn honoured_parameters(&self) -> &[MaterialParameter];

    fn build(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn Engine>, BuildError>;
}

/// The material parameters an engine may or may not honour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MaterialParameter {
    StaticFriction,
    /// Distinct dynamic friction above the slip threshold (1e-4 m/s, AIST semantics).
    DynamicFriction,
    Restitution,
    /// Material `stiffness`/`damping` (compliant contact).
    Compliance,
    /// `cullingDistance`, `cullingDepth`, `max_num_contact_points`.
    ContactCulling,
    /// The `cslc` block of a pad material.
    Cslc,
}

impl MaterialParameter {
    pub fn name(self) -> &'static str {
        match self {
            MaterialParameter::StaticFriction => "static_friction",
            MaterialParameter::DynamicFriction => "dynamic_friction",
            MaterialParameter::Restitution => "restitution",
            MaterialParameter::Compliance => "stiffness/damping",
            MaterialParameter::ContactCulling => "cullingDistance/cullingDepth/max_num_contact_points",
            MaterialParameter::Cslc => "cslc",
        }
    }

    pub const ALL: [MaterialParameter; 6] = [
        MaterialParameter::StaticFriction,
        MaterialParameter::DynamicFriction,
        MaterialParameter::Restitution,
        MaterialParameter::Compliance,
        MaterialParameter::ContactCulling,
        MaterialParameter::Cslc,
    ];
}

#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StepError {
    #[error("simulation diverged at step {step} (t = {time:.4} s): body `{body}` {what}")]
    Diverged {
        step: u64,
        time: f64,
        body: String,
        what: String,
    },
    /// A command or hosted contact the engine cannot apply (names a link the scene does not
    /// have, a non-finite value, …).
    #[error("invalid command: {what}")]
    InvalidCommand { what: String },
    #[error("{0}")]
    Other(String),
}

#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A bad engine option, located in the project file.
    #[error("{0}")]
    Option(tribo_yaml::Diagnostic),
    #[error("engine `{engine}` cannot simulate this scene: {reason}")]
    Unsupported { engine: &'static str, reason: String },
}
