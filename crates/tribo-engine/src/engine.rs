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

    /// Contacts resolved in the last step. An engine may build these records only when first
    /// asked after a step (the `rapier` engine reads them out of rapier's contact graph), so a
    /// caller that may not need them passes a [`LazyContacts`] on instead of calling this.
    fn contacts(&self) -> &[ContactRecord];

    /// Whether the following steps time their stages into [`StepReport::stages`] (off until
    /// asked: the clock reads cost a few per cent of a small step). An engine that has no stages
    /// to time ignores this.
    fn set_stage_timing(&mut self, on: bool) {
        let _ = on;
    }
}

/// The contacts of the last step, read from the engine only when [`LazyContacts::get`] asks.
///
/// Controllers, metric probes and recordings see the contacts through this: a step whose contacts
/// nobody reads does not pay for building them (the readout of a 500-box pile is a tenth of a
/// `rapier` step).
#[derive(Clone, Copy)]
pub enum LazyContacts<'a> {
    /// Records already read (or none, before the first step).
    Read(&'a [ContactRecord]),
    /// The engine's last step, read on demand.
    Engine(&'a dyn Engine),
}

impl<'a> LazyContacts<'a> {
    /// No contacts (the initial state, before any step).
    pub const NONE: LazyContacts<'static> = LazyContacts::Read(&[]);

    /// The contacts of `engine`'s last step.
    pub fn of(engine: &'a dyn Engine) -> Self {
        LazyContacts::Engine(engine)
    }

    /// The records (built by the engine now if nothing asked for them since its last step).
    pub fn get(self) -> &'a [ContactRecord] {
        match self {
            LazyContacts::Read(records) => records,
            LazyContacts::Engine(engine) => engine.contacts(),
        }
    }
}

impl<'a> From<&'a [ContactRecord]> for LazyContacts<'a> {
    fn from(records: &'a [ContactRecord]) -> Self {
        LazyContacts::Read(records)
    }
}

impl std::fmt::Debug for LazyContacts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LazyContacts::Read(records) => f.debug_tuple("Read").field(&records.len()).finish(),
            LazyContacts::Engine(engine) => f.debug_tuple("Engine").field(&engine.name()).finish(),
        }
    }
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

/// Why a step failed. The engine keeps its last good state; after [`StepError::Diverged`] it
/// refuses further steps.
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
    /// The step size is zero, negative or not finite.
    #[error("the time step must be positive and finite, found {dt}")]
    InvalidTimeStep { dt: f64 },
    /// The contact solver could not solve the step's problem (or the problem could not be formed).
    /// `residual` is the solver's last residual, NaN when it has none.
    #[error("the {solver} contact solver failed{}: {what}", residual_note(*.residual))]
    SolverFailure {
        solver: &'static str,
        residual: f64,
        what: String,
    },
    /// A solver limited in problem size met a step with more contacts than its limit.
    #[error(
        "solver `{solver}` is limited to {limit} contacts (`{option}`), this step has {contacts}; \
         use solver `pgs` for large problems"
    )]
    TooManyContacts {
        solver: &'static str,
        /// The engine option that sets the limit.
        option: &'static str,
        limit: usize,
        contacts: usize,
    },
    /// A pad's lattice step failed (`pad` names the pad as its declaration does).
    #[error("{pad}: {what}")]
    Lattice { pad: String, what: String },
    /// The engine lost track of something it built (a bug in the engine, not in the scene).
    #[error("internal error in engine `{engine}`: {what}")]
    Internal { engine: &'static str, what: String },
}

fn residual_note(residual: f64) -> String {
    if residual.is_nan() {
        String::new()
    } else {
        format!(" (residual {residual:e})")
    }
}

/// Why an engine could not be built for a scene.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A bad engine option, located in the project file.
    #[error("{0}")]
    Option(tribo_yaml::Diagnostic),
    /// A scene the engine cannot simulate, for a reason that is not one body's, material's or
    /// pad's alone.
    #[error("engine `{engine}` cannot simulate this scene: {reason}")]
    Unsupported { engine: &'static str, reason: String },
    /// A body the engine cannot model (its links, shapes, masses or initial state).
    #[error("engine `{engine}` cannot simulate this scene: body `{body}`: {reason}")]
    Body {
        engine: &'static str,
        body: String,
        reason: String,
    },
    /// A contact material whose parameters the engine cannot use.
    #[error("engine `{engine}` cannot simulate this scene: {reason}")]
    ContactMaterial { engine: &'static str, reason: String },
    /// A pad (its material or lattice) the engine cannot simulate; `pad` names it as its
    /// declaration does.
    #[error("engine `{engine}` cannot simulate this scene: {pad}: {reason}")]
    Pad {
        engine: &'static str,
        pad: String,
        reason: String,
    },
}

impl BuildError {
    /// Whether the error is about the scene (the engine cannot simulate it: a failed run), not
    /// about the engine's options (invalid input).
    pub fn is_scene_error(&self) -> bool {
        !matches!(self, BuildError::Option(_))
    }

    /// The same error, naming `engine` (an engine built on another reports under its own name).
    pub fn for_engine(self, name: &'static str) -> BuildError {
        match self {
            BuildError::Unsupported { reason, .. } => BuildError::Unsupported { engine: name, reason },
            BuildError::Body { body, reason, .. } => BuildError::Body {
                engine: name,
                body,
                reason,
            },
            BuildError::ContactMaterial { reason, .. } => BuildError::ContactMaterial { engine: name, reason },
            BuildError::Pad { pad, reason, .. } => BuildError::Pad {
                engine: name,
                pad,
                reason,
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_errors_read_as_sentences() {
        assert_eq!(
            StepError::InvalidTimeStep { dt: -0.001 }.to_string(),
            "the time step must be positive and finite, found -0.001"
        );
        let failure = StepError::SolverFailure {
            solver: "Lemke",
            residual: 2.5e-3,
            what: "no solution".into(),
        };
        assert_eq!(
            failure.to_string(),
            "the Lemke contact solver failed (residual 2.5e-3): no solution"
        );
        let failure = StepError::SolverFailure {
            solver: "PGS",
            residual: f64::NAN,
            what: "no solution".into(),
        };
        assert_eq!(failure.to_string(), "the PGS contact solver failed: no solution");
        let lattice = StepError::Lattice {
            pad: "pad on `hand.finger` (hand.yaml:3:5)".into(),
            what: "cslc parameters: dt must be finite and >= 0, got NaN".into(),
        };
        assert_eq!(
            lattice.to_string(),
            "pad on `hand.finger` (hand.yaml:3:5): cslc parameters: dt must be finite and >= 0, got NaN"
        );
    }

    #[test]
    fn build_errors_keep_their_sentence_under_another_engine_name() {
        let pad = BuildError::Pad {
            engine: "pgs",
            pad: "pad on `hand.finger` (hand.yaml:3:5)".into(),
            reason: "no cslc block".into(),
        };
        let renamed = pad.for_engine("cslc");
        assert_eq!(
            renamed.to_string(),
            "engine `cslc` cannot simulate this scene: pad on `hand.finger` (hand.yaml:3:5): no cslc block"
        );
        assert!(renamed.is_scene_error());
        let body = BuildError::Body {
            engine: "rapier",
            body: "box".into(),
            reason: "link `box`: bad".into(),
        };
        assert_eq!(
            body.for_engine("cslc-rapier").to_string(),
            "engine `cslc-rapier` cannot simulate this scene: body `box`: link `box`: bad"
        );
    }
}
