//! Frames for a 3-D replay: every link's pose and the contact forces, at a fixed frame rate.

use crate::{ContactRecord, SceneState};

/// Poses and contacts sampled every `interval` seconds of simulated time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    /// s between frames.
    pub interval: f64,
    pub frames: Vec<ReplayFrame>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReplayFrame {
    /// s.
    pub time: f64,
    /// Per body, per link: `[x, y, z, qw, qx, qy, qz]` of the link frame in the world.
    pub poses: Vec<Vec<[f64; 7]>>,
    pub contacts: Vec<ReplayContact>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplayContact {
    /// World point, m.
    pub point: [f64; 3],
    /// Force on the second body (`b`), N.
    pub force: [f64; 3],
    /// Per-sphere pressures are in the engine's records; a replay keeps the patch's area, m² (0 for
    /// point contacts).
    pub area: f64,
}

impl Replay {
    pub fn new(interval: f64) -> Self {
        Replay {
            interval,
            frames: Vec::new(),
        }
    }

    pub fn capture(&mut self, time: f64, state: &SceneState, contacts: &[ContactRecord]) {
        let poses = state
            .bodies
            .iter()
            .map(|b| {
                b.links
                    .iter()
                    .map(|l| {
                        let t = l.pose.translation.vector;
                        let q = l.pose.rotation.into_inner();
                        [t.x, t.y, t.z, q.w, q.i, q.j, q.k]
                    })
                    .collect()
            })
            .collect();
        let contacts = contacts
            .iter()
            .map(|c| {
                let f = c.force_on_b();
                ReplayContact {
                    point: [c.point.x, c.point.y, c.point.z],
                    force: [f.x, f.y, f.z],
                    area: c.patch.as_ref().map_or(0.0, |p| p.area),
                }
            })
            .collect();
        self.frames.push(ReplayFrame { time, poses, contacts });
    }
}
