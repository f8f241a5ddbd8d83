//! Joint motions: Choreonoid `BodyMotion` `.seq` files (`JointDisplacement` component).

use std::sync::Arc;

/// Joint trajectories sampled at a fixed rate. Column `j` drives the joint with `joint_id` j.
/// Revolute values are radians, prismatic values metres.
#[derive(Debug, Clone, PartialEq)]
pub struct JointMotion {
    /// Frames per second.
    pub frame_rate: f64,
    /// Values per frame.
    pub num_parts: usize,
    /// `frames.len() / num_parts` frames, row-major.
    pub values: Vec<f64>,
    /// Optional part labels.
    pub labels: Vec<String>,
    pub source: Arc<str>,
    /// The planned ZMP, if the file has a `Vector3Seq` component with `content: ZMP`.
    pub zmp: Option<ZmpSeq>,
}

/// A ZMP trajectory (`Vector3Seq`, `content: ZMP`), m.
#[derive(Debug, Clone, PartialEq)]
pub struct ZmpSeq {
    pub frame_rate: f64,
    pub points: Vec<[f64; 3]>,
    /// `is_root_relative`: the points are relative to the root link's position.
    pub root_relative: bool,
}

impl ZmpSeq {
    /// The point at time `t`, s (clamped to the first and last frames).
    pub fn at(&self, t: f64) -> Option<[f64; 3]> {
        let last = self.points.len().checked_sub(1)?;
        let i = ((t * self.frame_rate).round().max(0.0) as usize).min(last);
        self.points.get(i).copied()
    }
}

impl JointMotion {
    pub fn num_frames(&self) -> usize {
        self.values.len().checked_div(self.num_parts).unwrap_or(0)
    }

    /// Frame `i`, clamped to the last frame.
    pub fn frame(&self, i: usize) -> &[f64] {
        let n = self.num_frames();
        if n == 0 {
            return &[];
        }
        let i = i.min(n - 1);
        &self.values[i * self.num_parts..(i + 1) * self.num_parts]
    }

    /// Seconds covered: the time of the last frame.
    pub fn duration(&self) -> f64 {
        self.num_frames().saturating_sub(1) as f64 / self.frame_rate
    }
}
