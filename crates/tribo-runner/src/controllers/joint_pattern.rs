//! Play a `.seq` joint motion under PD control — Choreonoid's `SR1WalkPatternController`.

use tribo_model::JointMotion;
use tribo_scene::{JointPatternSpec, PatternMode};

use crate::{Commands, Control, ControlInput, Controller, JointCommand};

/// A simulation time within this fraction of a frame of a frame's own time reads that frame
/// exactly (so a pattern played at its own rate is not blurred by rounding in `t · rate`).
const FRAME_SNAP: f64 = 1e-9;

/// Plays the pattern in time, at its own `frameRate`, whatever the simulation time step: at the
/// step starting at time t the reference is the pattern at t, linearly interpolated between the
/// frames around `t · frameRate` (exactly frame i at t = i / frameRate). Frame i stands for
/// [i, i + 1) / frameRate, so the motion lasts `numFrames / frameRate` seconds at any time step —
/// one frame per step when the time step is the frame period, as in Choreonoid — and the
/// controller finishes at the first step starting at or after that.
///
/// In torque mode the law is exactly Choreonoid's sample
/// (`sample/SimpleController/SR1WalkPatternController.cpp`):
///
/// ```text
/// dq_ref = (q_ref − q_ref_old) / dt        dq = (q − q_old) / dt
/// u      = P (q_ref − q) + D (dq_ref − dq)
/// ```
///
/// with finite-difference velocities over the control step, not the engine's: `dq_ref` is the
/// slope of the resampled reference over the last step (the segment's slope frameRate · (f_{i+1}
/// − f_i) inside a frame interval), so positions and velocities stay consistent at any time step.
/// In position mode the engine tracks `q_ref` with its own PD at the same gains (implicitly
/// where it can), with the same `dq_ref`.
pub struct JointPatternController {
    spec: JointPatternSpec,
    /// Per joint id: link index.
    links: Vec<usize>,
    q_old: Vec<f64>,
    q_ref_old: Vec<f64>,
    q_ref: Vec<f64>,
}

impl JointPatternController {
    pub fn new(spec: JointPatternSpec) -> Self {
        JointPatternController {
            spec,
            links: Vec::new(),
            q_old: Vec::new(),
            q_ref_old: Vec::new(),
            q_ref: Vec::new(),
        }
    }
}

/// Where time `t` falls in `motion`: frame `i` and the fraction towards frame `i + 1`, or `None`
/// once the motion is over (t ≥ numFrames / frameRate).
pub fn pattern_position(motion: &JointMotion, t: f64) -> Option<(usize, f64)> {
    let n = motion.num_frames();
    let s = (t * motion.frame_rate).max(0.0);
    let nearest = s.round();
    let s = if (s - nearest).abs() <= FRAME_SNAP { nearest } else { s };
    if n == 0 || !s.is_finite() || s >= n as f64 {
        return None;
    }
    let i = s.floor();
    Some((i as usize, s - i))
}

/// The motion at (frame `i`, fraction `frac`) into `out`, by joint id (the last frame held).
pub fn sample_pattern(motion: &JointMotion, i: usize, frac: f64, out: &mut Vec<f64>) {
    let a = motion.frame(i);
    out.clear();
    if frac == 0.0 {
        out.extend_from_slice(a);
    } else {
        let b = motion.frame(i + 1);
        out.extend(a.iter().zip(b).map(|(a, b)| a + frac * (b - a)));
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
        Ok(())
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control {
        let motion = &self.spec.motion;
        let Some((frame, frac)) = pattern_position(motion, input.time) else {
            return Control::Finished;
        };
        sample_pattern(motion, frame, frac, &mut self.q_ref);
        let state = &input.state.bodies[self.spec.body];
        let joints = &mut commands.bodies[self.spec.body].joints;
        for (id, &link) in self.links.iter().enumerate() {
            let (p, d) = self.spec.gains[id];
            let q_ref = self.q_ref[id];
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
        Control::Continue
    }

    fn can_end_run(&self) -> bool {
        self.spec.end_with_motion
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn motion(rate: f64, frames: &[f64]) -> JointMotion {
        JointMotion {
            frame_rate: rate,
            num_parts: 1,
            values: frames.to_vec(),
            labels: Vec::new(),
            source: Arc::from("test.seq"),
            zmp: None,
        }
    }

    #[test]
    fn positions_snap_to_frames_and_interpolate_between() {
        let m = motion(500.0, &[0.0, 1.0, 3.0]);
        // 3 × 0.002 × 500 is not exactly 3 in floating point; it still reads frame 3's slot.
        assert_eq!(pattern_position(&m, 0.0), Some((0, 0.0)));
        assert_eq!(pattern_position(&m, 2.0 * 0.002), Some((2, 0.0)));
        assert_eq!(pattern_position(&m, 3.0 * 0.002), None);
        let (i, f) = pattern_position(&m, 0.003).expect("inside");
        assert_eq!(i, 1);
        assert!((f - 0.5).abs() < 1e-12);
        let mut out = Vec::new();
        sample_pattern(&m, i, f, &mut out);
        assert!((out[0] - 2.0).abs() < 1e-12);
        // The last frame is held for its own period.
        let (i, f) = pattern_position(&m, 0.005).expect("inside");
        sample_pattern(&m, i, f, &mut out);
        assert_eq!(out, vec![3.0]);
        assert_eq!(pattern_position(&motion(500.0, &[]), 0.0), None);
    }
}
