//! Built-in controllers usable from project files.

mod joint_effort;
mod joint_pattern;
mod kinematic_path;
mod wrench;

pub use joint_effort::JointEffortController;
pub use joint_pattern::JointPatternController;
pub use kinematic_path::KinematicPathController;
pub use wrench::WrenchController;

use tribo_scene::ControllerSpec;

use crate::Controller;

/// The controller a project's spec describes.
pub fn build(spec: &ControllerSpec) -> Box<dyn Controller> {
    match spec {
        ControllerSpec::JointPattern(s) => Box::new(JointPatternController::new(s.clone())),
        ControllerSpec::KinematicPath(s) => Box::new(KinematicPathController::new(s.clone())),
        ControllerSpec::JointEffort(s) => Box::new(JointEffortController::new(s.clone())),
        ControllerSpec::Wrench(s) => Box::new(WrenchController::new(s.clone())),
    }
}
