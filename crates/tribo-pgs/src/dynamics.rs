//! The articulated-body model pgs simulates for one scene body, for checking a model's dynamics
//! (mass matrix, bias forces) against another source of the same robot.

use tribo_engine::{BuildError, SceneBody};
use tribo_multibody::{State, Tree};

use crate::build::build_body;

/// One scene body as pgs's dynamics sees it: the multibody tree (links welded by fixed joints
/// merged into their carriers, a free root as a floating base), its initial state and where each
/// link's 1-dof joint sits in the state.
#[derive(Debug, Clone)]
pub struct BodyDynamics {
    pub tree: Tree,
    pub state: State,
    /// Position index (in `state.q`) of every link's 1-dof joint, by link index.
    pub link_q: Vec<Option<usize>>,
    /// Velocity index (in `state.v`) of every link's 1-dof joint, by link index.
    pub link_dof: Vec<Option<usize>>,
}

/// The dynamics pgs builds for `body` (the same build as the engine's).
pub fn body_dynamics(body: &SceneBody) -> Result<BodyDynamics, BuildError> {
    let (model, state) = build_body(body, None).map_err(|e| BuildError::Body {
        engine: "pgs",
        body: body.name.clone(),
        reason: e.to_string(),
    })?;
    Ok(BodyDynamics {
        tree: std::sync::Arc::unwrap_or_clone(model.tree),
        state,
        link_q: std::sync::Arc::unwrap_or_clone(model.link_q),
        link_dof: std::sync::Arc::unwrap_or_clone(model.link_dof),
    })
}
