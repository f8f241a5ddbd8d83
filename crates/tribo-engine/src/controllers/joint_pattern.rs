//! Play a `.seq` joint motion under PD control — Choreonoid's `SR1WalkPatternController`.

use tribo_scene::{JointPatternSpec, PatternMode};

use crate::{Commands, Control, ControlInput, Controller, JointCommand};

/// One frame per control step. In torque mode the law is exactly Choreonoid's sample
/// (`sample/SimpleController/SR1WalkPatternController.cpp`):
///
/// ```text
/// dq_ref = (q_ref − q_ref_old) / dt        dq = (q − q_old) / dt
/// u      = P (q_ref − q) + D (dq_ref − dq)
/// ```
///
/// with finite-difference velocities, not the engine's. In position mode the engine tracks
/// `q_ref` with its own PD at the same gains (implicitly where it can).
pub struct JointPatternController {
    spec: JointPatternSpec,
    frame: usize,
    /// Per joint id: link index.
    links: Vec<usize>,
    q_old: Vec<f64>,
    q_ref_old: Vec<f64>,
}

impl JointPatternController {
    pub fn new(spec: JointPatternSpec) -> Self {
        JointPatternController {
            spec,
            frame: 0,
            links: Vec::new(),
            q_old: Vec::new(),
            q_ref_old: Vec::new(),
        }
    }
}

impl Controller for JointPatternController {
    fn name(&self) -> String {
        format!("joint_pattern({})", self.spec.motion.source)
    }

    fn initialize(&mut self, input: &ControlInput) -> Result<(), String> {
        let body = &input.scene.bodies[self.spec.body];
        let state = &input.state.bodies[self.spec.body];
        self.links = (0..self.spec.motion.num_parts)
            .map(|id| {
                body.model
                    .joint_link(id)
                    .ok_or_else(|| format!("model `{}` has no joint id {id}", body.model.name))
            })
            .collect::<Result<_, _>>()?;
        self.q_old = self.links.iter().map(|&l| state.joint_positions[l]).collect();
        self.q_ref_old = self.q_old.clone();
        self.frame = 0;
        Ok(())
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control {
        if self.frame >= self.spec.motion.num_frames() {
            return Control::Finished;
        }
        let frame = self.spec.motion.frame(self.frame);
        let state = &input.state.bodies[self.spec.body];
        let joints = &mut commands.bodies[self.spec.body].joints;
        for (id, &link) in self.links.iter().enumerate() {
            let (p, d) = self.spec.gains[id];
            let q_ref = frame[id];
            let q = state.joint_positions[link];
            let dq_ref = (q_ref - self.q_ref_old[id]) / input.dt;
            joints[link] = match self.spec.mode {
                PatternMode::Torque => {
                    let dq = (q - self.q_old[id]) / input.dt;
                    JointCommand::Effort(p * (q_ref - q) + d * (dq_ref - dq))
                }
                PatternMode::Position => JointCommand::Pd {
                    q_ref,
                    v_ref: dq_ref,
                    kp: p,
                    kd: d,
                    feedforward: 0.0,
                },
            };
            self.q_old[id] = q;
            self.q_ref_old[id] = q_ref;
        }
        self.frame += 1;
        Control::Continue
    }

    fn can_end_run(&self) -> bool {
        self.spec.end_with_motion
    }
}
