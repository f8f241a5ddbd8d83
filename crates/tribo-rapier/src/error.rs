//! The engine's internal errors, each carrying what it is about; they become the engine API's
//! [`BuildError`](tribo_engine::BuildError) and [`StepError`](tribo_engine::StepError) at the
//! engine boundary, where the body's name is added.

/// Why a scene body cannot be built in the rapier world (world_build.rs, layout.rs).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum BodyError {
    /// The body fails the scene's own checks (defensive: scene assembly runs them too).
    #[error("{0}")]
    Model(tribo_engine::Diagnostic),
    #[error("{count} link materials for {links} links")]
    MaterialCount { count: usize, links: usize },
    #[error("link {link} has a material id outside the scene's contact table")]
    UnknownMaterial { link: usize },
    #[error("link `{link}` can move but neither it nor the links it carries have mass")]
    Massless { link: String },
    #[error("link `{link}`: a {shape} has a non-finite pose")]
    NonFiniteShapePose { link: String, shape: &'static str },
    #[error("link `{link}`: {reason}")]
    Shape { link: String, reason: String },
    #[error("joint `{joint}` has no usable axis ({axis:?})")]
    NoAxis { joint: String, axis: [f64; 3] },
    #[error("joint `{joint}` would close a kinematic loop")]
    KinematicLoop { joint: String },
    #[error("joint `{joint}` has no degree of freedom in the multibody")]
    NoDof { joint: String },
    #[error(
        "the extra joint between links `{}` and `{}` joins two links welded into one rigid body: it has nothing to close",
        links[0],
        links[1]
    )]
    LoopInOneRigidBody { links: [String; 2] },
    #[error(
        "the extra joint between links `{}` and `{}` ({at}) is open by {:.1} mm in the initial pose (at most {} mm): \
         set the initial joint positions so that the loop closes, or correct the joint's points \
         (`translation_in_link1`/`link1LocalPos`, `translation_in_link2`/`link2LocalPos`)",
        links[0],
        links[1],
        opening * 1e3,
        crate::loops::MAX_OPENING * 1e3
    )]
    OpenLoop {
        links: [String; 2],
        opening: f64,
        at: String,
    },
    /// rapier lost something it was just given (defensive).
    #[error("{0}")]
    Internal(String),
}

/// A command of one body the step cannot apply (commands.rs); the step names the body.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum CommandError {
    #[error("non-finite root target")]
    NonFiniteRootTarget,
    #[error("a root target needs a fixed root, but this root is free")]
    FreeRoot,
    #[error("non-finite root velocity")]
    NonFiniteRootVelocity,
    #[error("link `{link}` has no revolute or prismatic joint to drive")]
    NotDriveable { link: String },
    #[error("non-finite {what} {values:?}")]
    NonFinite { what: &'static str, values: Vec<f64> },
    #[error("negative PD gains (kp = {kp}, kd = {kd})")]
    NegativeGains { kp: f64, kd: f64 },
    /// rapier lost a body, joint or multibody the engine built (defensive).
    #[error("{0}")]
    Internal(&'static str),
}

impl From<&'static str> for CommandError {
    fn from(what: &'static str) -> Self {
        CommandError::Internal(what)
    }
}
