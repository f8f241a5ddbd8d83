//! Pressure maps of distributed contact patches (CSLC pads): per pad, the per-sphere pressure of
//! every captured frame, shown in the page as a grid image under the pad's engine view, moving
//! with the shared time slider.
//!
//! Spheres are laid out in lattice order, row by row, `columns` per row.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use tribo_engine::ContactRecord;
use tribo_scene::{LinkRef, Scene};

use crate::format::num;
use crate::replay_data::{kept_frames, MAX_REPLAY_FRAMES};

/// One pad's pressures over time.
#[derive(Debug, Clone, PartialEq)]
pub struct PressureMap {
    /// "body.link / body.link" of the two links the patch joins.
    pub label: String,
    /// Spheres per lattice row.
    pub columns: usize,
    /// s, one per frame.
    pub times: Vec<f64>,
    /// Per frame, per sphere (lattice order), Pa.
    pub frames: Vec<Vec<f64>>,
}

impl PressureMap {
    /// Highest pressure of any sphere in any frame, Pa (0 when empty).
    pub fn peak(&self) -> f64 {
        self.frames
            .iter()
            .flatten()
            .copied()
            .filter(|p| p.is_finite())
            .fold(0.0, f64::max)
    }

    /// `{"label", "columns", "peak", "times": [...], "values": [[...] per frame]}`, at most
    /// [`MAX_REPLAY_FRAMES`] frames.
    pub fn to_json(&self) -> Value {
        let kept = kept_frames(self.times.len().min(self.frames.len()), MAX_REPLAY_FRAMES);
        let times: Vec<Value> = kept
            .iter()
            .filter_map(|&i| self.times.get(i))
            .map(|&t| num(t))
            .collect();
        let values: Vec<Value> = kept
            .iter()
            .filter_map(|&i| self.frames.get(i))
            .map(|f| Value::Array(f.iter().map(|&p| num(p)).collect()))
            .collect();
        json!({
            "label": self.label,
            "columns": self.columns.max(1),
            "peak": num(self.peak()),
            "times": times,
            "values": values,
        })
    }
}

/// Collects pressure maps from contact records as a run proceeds: one map per pair of links that
/// ever had a patch. A pad out of contact at a capture gets a frame of zeros.
#[derive(Debug, Clone, Default)]
pub struct PressureRecorder {
    maps: BTreeMap<(LinkRef, LinkRef), PressureMap>,
}

impl PressureRecorder {
    pub fn new() -> Self {
        PressureRecorder::default()
    }

    /// Record the patches among `contacts` at time `time`.
    pub fn capture(&mut self, scene: &Scene, time: f64, contacts: &[ContactRecord]) {
        let mut seen = Vec::new();
        for c in contacts {
            let Some(patch) = &c.patch else { continue };
            let key = if c.a <= c.b { (c.a, c.b) } else { (c.b, c.a) };
            let map = self.maps.entry(key).or_insert_with(|| PressureMap {
                label: format!("{} / {}", link_name(scene, key.0), link_name(scene, key.1)),
                columns: lattice_columns(patch.sphere_pressures.len()),
                times: Vec::new(),
                frames: Vec::new(),
            });
            if map.times.last() == Some(&time) {
                // A second patch between the same links in the same frame: add its pressures.
                if let Some(last) = map.frames.last_mut() {
                    for (p, q) in last.iter_mut().zip(&patch.sphere_pressures) {
                        *p += q;
                    }
                }
            } else {
                map.times.push(time);
                map.frames.push(patch.sphere_pressures.clone());
            }
            seen.push(key);
        }
        for (key, map) in &mut self.maps {
            if !seen.contains(key) {
                let n = map.frames.last().map_or(0, Vec::len);
                map.times.push(time);
                map.frames.push(vec![0.0; n]);
            }
        }
    }

    pub fn finish(self) -> Vec<PressureMap> {
        self.maps.into_values().collect()
    }
}

/// A square-ish layout when the lattice's own is unknown: ⌈√n⌉ spheres per row.
pub fn lattice_columns(spheres: usize) -> usize {
    ((spheres as f64).sqrt().ceil() as usize).max(1)
}

fn link_name(scene: &Scene, link: LinkRef) -> String {
    let Some(body) = scene.bodies.get(link.body) else {
        return format!("body{}.link{}", link.body, link.link);
    };
    match body.model.links.get(link.link) {
        Some(l) => format!("{}.{}", body.name, l.name),
        None => format!("{}.link{}", body.name, link.link),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_square_ish() {
        assert_eq!(lattice_columns(0), 1);
        assert_eq!(lattice_columns(9), 3);
        assert_eq!(lattice_columns(10), 4);
    }

    #[test]
    fn json_keeps_frames_and_peak() {
        let map = PressureMap {
            label: "a / b".into(),
            columns: 2,
            times: vec![0.0, 0.5],
            frames: vec![vec![0.0; 4], vec![1.0, 2.0, 3.0, 1234.5678]],
        };
        let v = map.to_json();
        assert_eq!(v["peak"], 1234.6);
        assert_eq!(v["values"][1][3], 1234.6);
        assert_eq!(v["times"][1], 0.5);
        assert_eq!(v["columns"], 2);
    }
}
