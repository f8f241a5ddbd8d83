//! The engine's internal errors, each carrying what it is about; they become the engine API's
//! [`StepError`](tribo_engine::StepError) and [`BuildError`](tribo_engine::BuildError) at the
//! engine boundary (`step.rs`), where the body's name is added.

use tribo_engine::{JointCommand, LinkRef};

/// Why a scene body cannot be modelled (build.rs).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum BodyError {
    /// The body fails the scene's own checks (defensive: scene assembly runs them too).
    #[error("{0}")]
    Model(tribo_engine::Diagnostic),
    /// The multibody tree refuses the body.
    #[error("{0}")]
    Tree(#[from] tribo_multibody::Error),
    #[error("link `{link}`: {reason}")]
    Shape { link: String, reason: String },
    #[error("its mass matrix is singular (a massless link?): {0}")]
    SingularMass(tribo_multibody::Error),
}

/// A command of one body the step cannot apply (commands.rs).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum CommandError {
    #[error("link `{link}`: effort {effort} is not finite")]
    NonFiniteEffort { link: String, effort: f64 },
    #[error("link `{link}`: PD command needs finite targets and gains ≥ 0, found {command:?}")]
    InvalidPd { link: String, command: JointCommand },
    #[error("link `{link}` has no revolute or prismatic joint to drive")]
    NotDriveable { link: String },
    #[error("a link wrench names link {link}, which does not exist")]
    MissingWrenchLink { link: usize },
    #[error("the wrench on link {link} is not finite")]
    NonFiniteWrench { link: usize },
    #[error("{0}")]
    Multibody(#[from] tribo_multibody::Error),
}

/// A hosted compliant contact point the step cannot use (contacts.rs, compliant.rs).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum PointError {
    #[error("a compliant contact point names a missing body ({a:?}, {b:?})")]
    MissingBody { a: LinkRef, b: LinkRef },
    #[error("a compliant contact point between {a:?} and {b:?} has no normal direction")]
    NoNormal { a: LinkRef, b: LinkRef },
    /// Stiffness, damping or force out of range (`CompliantPoint::invalid`).
    #[error("{0}")]
    Invalid(String),
}

/// Forming or solving the step's contact problem failed (solve.rs, impacts.rs, degenerate.rs).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum SolveError {
    #[error("the Delassus operator of body #{body}: {source}")]
    Delassus {
        body: usize,
        source: tribo_multibody::Error,
    },
    #[error("the contact problem: {0}")]
    Problem(tribo_lcp::Error),
    #[error("{0}")]
    Solver(tribo_lcp::Error),
    #[error("a contact index of the assembled operator is out of range")]
    ContactIndex,
    #[error("impact pass: contact {contact} out of range")]
    ImpactContact { contact: usize },
    #[error("solver `lemke` is limited to {limit} contacts, this step has {contacts}")]
    TooManyContacts { limit: usize, contacts: usize },
}

/// Why a body's step diverged (integrate.rs); the step names the body.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum Divergence {
    #[error("link `{link}`: velocity coordinate {coordinate} reached {value:e} (limit {limit:e})")]
    Speed {
        link: String,
        coordinate: usize,
        value: f64,
        limit: f64,
    },
    #[error("{0}")]
    Multibody(#[from] tribo_multibody::Error),
}
