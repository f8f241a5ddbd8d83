//! A constant external force and torque on a link over a time window (a disturbance).

use tribo_scene::WrenchSpec;

use crate::{Commands, Control, ControlInput, Controller, LinkWrench};

pub struct WrenchController {
    spec: WrenchSpec,
}

impl WrenchController {
    pub fn new(spec: WrenchSpec) -> Self {
        WrenchController { spec }
    }
}

impl Controller for WrenchController {
    fn name(&self) -> String {
        "wrench".to_string()
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control {
        if input.time >= self.spec.start && input.time < self.spec.end {
            commands.bodies[self.spec.link.body].link_wrenches.push(LinkWrench {
                link: self.spec.link.link,
                force: self.spec.force,
                torque: self.spec.torque,
            });
        }
        Control::Continue
    }
}
