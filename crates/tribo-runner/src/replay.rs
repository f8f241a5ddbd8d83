//! Frames for a 3-D replay: every link's pose and the contact forces, at a fixed frame rate, and
//! the per-sphere pressures of distributed contact patches (CSLC pads) in a bounded track.

use tribo_scene::LinkRef;

use crate::{ContactRecord, SceneState};

/// Pressure frames a [`PressureTrack`] keeps at most: when full, neighbouring frames are merged
/// pairwise (keeping the one with the larger total normal force), so memory stays bounded however
/// long the run.
pub const MAX_PRESSURE_FRAMES: usize = 600;

/// Replay frames a run keeps at most: when a capture would exceed it, the runner calls
/// [`Replay::halve`] and captures half as often, so memory stays bounded however long the run.
/// (`tribo compare` asks for at most 20 000 frames, so its runs never reach it.)
pub const MAX_REPLAY_FRAMES: usize = 40_000;

/// Poses and contacts sampled every `interval` seconds of simulated time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    /// s between frames.
    pub interval: f64,
    pub frames: Vec<ReplayFrame>,
    /// Per-sphere pressures of the pads' patches, captured with the frames (empty without pads).
    pub pressure: PressureTrack,
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
    /// The patch's area, m² (0 for point contacts); its per-sphere pressures are in
    /// [`Replay::pressure`].
    pub area: f64,
}

impl Replay {
    pub fn new(interval: f64) -> Self {
        Replay {
            interval,
            frames: Vec::new(),
            pressure: PressureTrack::default(),
        }
    }

    pub fn capture(&mut self, time: f64, state: &SceneState, contacts: &[ContactRecord]) {
        self.pressure.capture(time, contacts);
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

    /// Keep every other frame (the first, third, …) and double the interval. A kept frame takes
    /// the contacts of the stronger (larger total force) of itself and the frame it absorbs, so a
    /// brief impact still shows.
    pub fn halve(&mut self) {
        let frames = std::mem::take(&mut self.frames);
        let mut kept = Vec::with_capacity(frames.len() / 2 + 1);
        let mut it = frames.into_iter();
        while let Some(mut a) = it.next() {
            if let Some(b) = it.next() {
                if total_force(&b.contacts) > total_force(&a.contacts) {
                    a.contacts = b.contacts;
                }
            }
            kept.push(a);
        }
        self.frames = kept;
        self.interval *= 2.0;
    }
}

fn total_force(contacts: &[ReplayContact]) -> f64 {
    contacts
        .iter()
        .map(|c| (c.force[0] * c.force[0] + c.force[1] * c.force[1] + c.force[2] * c.force[2]).sqrt())
        .sum()
}

/// The pressure distributions of a run's pads over time: each pad's lattice layout once, at most
/// [`MAX_PRESSURE_FRAMES`] frames, and each pad's distribution at its largest total normal force.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PressureTrack {
    /// The pads that had a patch at some capture, in pad index order.
    pub pads: Vec<PadTrack>,
    /// In time order, from the first capture with a patch. Each frame stands for `stride`
    /// consecutive captures (the last one for up to that many) and is the one of them with the
    /// largest total normal force, so a brief squeeze is not thinned away.
    pub frames: Vec<PressureFrame>,
    /// Captures per frame (0 before the first frame).
    stride: usize,
    /// Captures the last frame stands for so far.
    last_count: usize,
}

/// One pad of a [`PressureTrack`]: where its spheres sit and its strongest moment.
#[derive(Debug, Clone, PartialEq)]
pub struct PadTrack {
    /// Index of the pad in `Scene::pads`.
    pub pad: usize,
    /// The pad's link (`b` of its records).
    pub link: LinkRef,
    /// Links the pad touched (`a` of its records), sorted.
    pub touched: Vec<LinkRef>,
    /// Lattice spacing, m.
    pub cell: f64,
    /// Per-sphere rest position in the pad frame, `[x, y]`, m (lattice order).
    pub positions: Vec<[f64; 2]>,
    /// The capture with the pad's largest total normal force.
    pub peak: PadPressure,
}

/// Pressures of all pads in contact at one capture.
#[derive(Debug, Clone, PartialEq)]
pub struct PressureFrame {
    /// s.
    pub time: f64,
    /// Sum of the pads' normal forces, N.
    pub normal_force: f64,
    /// The pads in contact, in pad index order.
    pub pads: Vec<PadPressure>,
}

/// One pad's patch at one capture (all its records summed).
#[derive(Debug, Clone, PartialEq)]
pub struct PadPressure {
    /// Index of the pad in `Scene::pads`.
    pub pad: usize,
    /// s.
    pub time: f64,
    /// Total normal force of the pad's records, N.
    pub normal_force: f64,
    /// Per-sphere pressure, Pa (lattice order).
    pub pressures: Vec<f64>,
}

impl PressureTrack {
    /// Record the patches among `contacts` at `time`. Captures before the first patch are skipped.
    pub fn capture(&mut self, time: f64, contacts: &[ContactRecord]) {
        let mut pads: Vec<PadPressure> = Vec::new();
        for c in contacts {
            let Some(patch) = &c.patch else { continue };
            let k = match self.pads.binary_search_by_key(&patch.pad, |p| p.pad) {
                Ok(k) => k,
                Err(k) => {
                    let empty = PadPressure {
                        pad: patch.pad,
                        time,
                        normal_force: 0.0,
                        pressures: vec![0.0; patch.sphere_pressures.len()],
                    };
                    self.pads.insert(
                        k,
                        PadTrack {
                            pad: patch.pad,
                            link: c.b,
                            touched: Vec::new(),
                            cell: patch.cell,
                            positions: patch.sphere_positions.clone(),
                            peak: empty,
                        },
                    );
                    k
                }
            };
            let track = &mut self.pads[k];
            if let Err(i) = track.touched.binary_search(&c.a) {
                track.touched.insert(i, c.a);
            }
            let normal_force = if c.normal_force.is_finite() {
                c.normal_force
            } else {
                0.0
            };
            match pads.iter_mut().find(|p| p.pad == patch.pad) {
                // A pad touching several links: one record per link, each with its own spheres.
                Some(p) => {
                    p.normal_force += normal_force;
                    for (a, b) in p.pressures.iter_mut().zip(&patch.sphere_pressures) {
                        *a += b;
                    }
                }
                None => pads.push(PadPressure {
                    pad: patch.pad,
                    time,
                    normal_force,
                    pressures: patch.sphere_pressures.clone(),
                }),
            }
        }
        if self.pads.is_empty() {
            return;
        }
        pads.sort_by_key(|p| p.pad);
        for p in &pads {
            if let Some(track) = self.pads.iter_mut().find(|t| t.pad == p.pad) {
                if p.normal_force > track.peak.normal_force {
                    track.peak = p.clone();
                }
            }
        }
        let frame = PressureFrame {
            time,
            normal_force: pads.iter().map(|p| p.normal_force).sum(),
            pads,
        };
        self.push(frame);
    }

    fn push(&mut self, frame: PressureFrame) {
        self.stride = self.stride.max(1);
        match self.frames.last_mut() {
            Some(last) if self.last_count < self.stride => {
                if frame.normal_force > last.normal_force {
                    *last = frame;
                }
                self.last_count += 1;
            }
            _ => {
                self.frames.push(frame);
                self.last_count = 1;
            }
        }
        if self.frames.len() > MAX_PRESSURE_FRAMES {
            let odd = self.frames.len() % 2 == 1;
            let frames = std::mem::take(&mut self.frames);
            let mut merged = Vec::with_capacity(frames.len() / 2 + 1);
            let mut it = frames.into_iter();
            while let Some(a) = it.next() {
                match it.next() {
                    Some(b) if b.normal_force > a.normal_force => merged.push(b),
                    _ => merged.push(a),
                }
            }
            self.frames = merged;
            if !odd {
                self.last_count += self.stride;
            }
            self.stride *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::Vector3;
    use tribo_material::MaterialId;

    use super::*;
    use crate::PatchDetail;

    fn patch(pad: usize, a: LinkRef, force: f64, pressures: Vec<f64>) -> ContactRecord {
        ContactRecord {
            a,
            b: LinkRef { body: 2, link: pad + 1 },
            materials: (MaterialId::DEFAULT, MaterialId::DEFAULT),
            point: Vector3::zeros(),
            normal: Vector3::z(),
            depth: 0.0,
            normal_force: force,
            friction_force: Vector3::zeros(),
            patch: Some(PatchDetail {
                pad,
                cell: 0.002,
                sphere_positions: (0..pressures.len()).map(|i| [i as f64 * 0.002, 0.0]).collect(),
                sphere_deflections: vec![0.0; pressures.len()],
                center_of_pressure: Vector3::zeros(),
                friction_moment: 0.0,
                area: 1e-4,
                sphere_normal_forces: vec![0.0; pressures.len()],
                sphere_pressures: pressures,
            }),
        }
    }

    const OBJECT: LinkRef = LinkRef { body: 1, link: 0 };
    const TABLE: LinkRef = LinkRef { body: 0, link: 0 };

    #[test]
    fn halving_keeps_every_other_frame_and_the_stronger_contacts() {
        let frame = |i: usize, force: f64| ReplayFrame {
            time: i as f64,
            poses: vec![vec![[i as f64, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]],
            contacts: vec![ReplayContact {
                point: [0.0; 3],
                force: [0.0, 0.0, force],
                area: 0.0,
            }],
        };
        let mut replay = Replay::new(0.5);
        replay.frames = (0..5).map(|i| frame(i, if i == 3 { 9.0 } else { 1.0 })).collect();
        replay.halve();
        assert_eq!(replay.interval, 1.0);
        let times: Vec<f64> = replay.frames.iter().map(|f| f.time).collect();
        assert_eq!(times, vec![0.0, 2.0, 4.0]);
        assert_eq!(replay.frames[1].poses[0][0][0], 2.0);
        assert_eq!(replay.frames[1].contacts[0].force[2], 9.0);
        assert_eq!(replay.frames[0].contacts[0].force[2], 1.0);
    }

    #[test]
    fn pads_are_summed_per_pad_and_peaks_kept() {
        let mut track = PressureTrack::default();
        track.capture(0.0, &[]);
        assert!(track.frames.is_empty() && track.pads.is_empty());
        track.capture(0.1, &[patch(1, OBJECT, 2.0, vec![1.0, 0.0, 0.0])]);
        track.capture(
            0.2,
            &[
                patch(1, OBJECT, 3.0, vec![1.0, 2.0, 0.0]),
                patch(1, TABLE, 1.0, vec![0.0, 0.0, 5.0]),
                patch(0, OBJECT, 1.0, vec![7.0, 7.0]),
            ],
        );
        track.capture(0.3, &[patch(1, OBJECT, 0.5, vec![0.1, 0.0, 0.0])]);
        assert_eq!(track.pads.iter().map(|p| p.pad).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(track.pads[1].touched, vec![TABLE, OBJECT]);
        assert_eq!(track.pads[1].positions.len(), 3);
        assert_eq!(track.frames.len(), 3);
        let f = &track.frames[1];
        assert_eq!(f.normal_force, 5.0);
        assert_eq!(f.pads[1].pressures, vec![1.0, 2.0, 5.0]);
        assert_eq!(f.pads[0].pressures, vec![7.0, 7.0]);
        assert_eq!(track.pads[1].peak.time, 0.2);
        assert_eq!(track.pads[1].peak.normal_force, 4.0);
        assert!(track.frames[2].pads.iter().all(|p| p.pad == 1));
    }

    #[test]
    fn frames_stay_bounded_and_keep_the_strongest() {
        let mut track = PressureTrack::default();
        let n = 10 * MAX_PRESSURE_FRAMES + 7;
        for i in 0..n {
            let force = if i == 4321 { 100.0 } else { 1.0 };
            track.capture(i as f64, &[patch(0, OBJECT, force, vec![force])]);
            assert!(track.frames.len() <= MAX_PRESSURE_FRAMES);
        }
        assert!(track.frames.len() >= MAX_PRESSURE_FRAMES / 2);
        assert!(track.frames.windows(2).all(|w| w[0].time < w[1].time));
        assert!(track.frames.iter().any(|f| f.time == 4321.0));
        assert_eq!(track.pads[0].peak.time, 4321.0);
        // The last frame covers the latest captures.
        let last = track.frames.last().map_or(0.0, |f| f.time);
        assert!(last >= (n - track.stride) as f64, "{last}");
    }
}
