//! Sliding of standing feet.

use nalgebra::Vector3;
use tribo_scene::{LinkRef, Scene};

use super::{MetricProbe, MetricValue};
use crate::{ContactRecord, LazyContacts, SceneState};

/// Accumulated horizontal travel of each foot between consecutive samples in which it stands
/// (the ground pushes it with more than `threshold` newtons along the contact normals).
pub struct FootSlip {
    feet: Vec<LinkRef>,
    ground: usize,
    threshold: f64,
    /// Per foot: position and whether it stood at the previous sample.
    previous: Vec<Option<(Vector3<f64>, bool)>>,
    total: f64,
}

impl FootSlip {
    pub fn new(feet: Vec<LinkRef>, ground: usize, threshold: f64) -> Self {
        let previous = vec![None; feet.len()];
        FootSlip {
            feet,
            ground,
            threshold,
            previous,
            total: 0.0,
        }
    }
}

/// Normal force the ground body exerts on one link, N.
fn ground_force(foot: LinkRef, ground: usize, contacts: &[ContactRecord]) -> f64 {
    contacts
        .iter()
        .filter(|c| (c.a == foot && c.b.body == ground) || (c.b == foot && c.a.body == ground))
        .map(|c| c.normal_force)
        .sum()
}

impl MetricProbe for FootSlip {
    fn observe(&mut self, _t: f64, _scene: &Scene, state: &SceneState, contacts: LazyContacts<'_>) {
        for (foot, previous) in self.feet.iter().zip(self.previous.iter_mut()) {
            let p = state.bodies[foot.body].links[foot.link].pose.translation.vector;
            let standing = ground_force(*foot, self.ground, contacts.get()) > self.threshold;
            if let Some((before, stood)) = *previous {
                if stood && standing {
                    self.total += (p - before).xy().norm();
                }
            }
            *previous = Some((p, standing));
        }
    }

    fn finish(&self) -> MetricValue {
        MetricValue::Number(self.total)
    }
}
