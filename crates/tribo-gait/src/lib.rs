//! ZMP walking-pattern generation for a biped described by a Choreonoid `.body` model.
//!
//! - [`plan_footsteps`]: footsteps and the piecewise, smoothed ZMP reference from a step length,
//!   width and time and a number of steps;
//! - [`PreviewController`]: ZMP preview control on the cart-table model (Kajita et al. 2003),
//!   with [`solve_dare`] for its Riccati equation;
//! - [`Walker`] and [`kinematics`]: leg chains, forward kinematics, CoM and leg inverse kinematics
//!   read from the body;
//! - [`generate`]: the whole pattern as joint angles ([`tribo_model::JointMotion`]) plus the planned
//!   ZMP and CoM per frame;
//! - [`write_seq`]: a Choreonoid `.seq` (CompositeSeq v2 BodyMotion) of the pattern;
//! - [`implied_progress`] and [`stance_replay`]: where a joint pattern carries the root when the
//!   stance foot does not slip (forward kinematics with the stance foot fixed), and
//!   [`implied_zmp`]: the multibody ZMP of that replay.

pub mod bounds;
mod error;
mod footsteps;
mod implied_zmp;
pub mod kinematics;
mod pattern;
mod preview;
mod progress;
mod seq_writer;
mod walker;

pub use error::GaitError;
pub use footsteps::{plan_footsteps, smoothstep, Footstep, FootstepPlan, GaitParams, Side, ZmpSegment};
pub use implied_zmp::implied_zmp;
pub use pattern::{generate, WalkingPattern};
pub use preview::{augmented, solve_dare, CartTable, PreviewController, PreviewWeights};
pub use progress::{implied_progress, stance_replay, StanceReplay, STANCE_HYSTERESIS};
pub use seq_writer::{seq_text, write_seq};
pub use walker::{Walker, WALKER_FEET};

/// The walker shipped in `share/model/walker.body`, for the unit tests of this crate.
#[cfg(test)]
pub(crate) fn shipped_walker() -> Walker {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../share/model/walker.body");
    let body = tribo_model::load_body(&path).expect("walker.body loads");
    Walker::new(body, WALKER_FEET).expect("a biped")
}
