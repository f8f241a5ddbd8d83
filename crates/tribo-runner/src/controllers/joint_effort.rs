//! A constant joint force or torque over a time window.

use tribo_scene::JointEffortSpec;

use crate::{Commands, Control, ControlInput, Controller, JointCommand};

pub struct JointEffortController {
    spec: JointEffortSpec,
}

impl JointEffortController {
    pub fn new(spec: JointEffortSpec) -> Self {
        JointEffortController { spec }
    }
}

impl Controller for JointEffortController {
    fn name(&self) -> String {
        "joint_effort".to_string()
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control {
        if input.time >= self.spec.start && input.time < self.spec.end {
            commands.bodies[self.spec.joint.body].joints[self.spec.joint.link] = JointCommand::Effort(self.spec.effort);
        }
        Control::Continue
    }
}
