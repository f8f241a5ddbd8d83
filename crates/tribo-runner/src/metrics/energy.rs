//! Metrics over contacts and energy.

use nalgebra::Vector3;
use tribo_scene::Scene;

use super::{MetricProbe, MetricValue};
use crate::{LazyContacts, SceneState};

/// Deepest penetration seen in any contact (optionally involving one body), m.
pub struct MaxPenetration {
    body: Option<usize>,
    max: f64,
}

impl MaxPenetration {
    pub fn new(body: Option<usize>) -> Self {
        MaxPenetration { body, max: 0.0 }
    }
}

impl MetricProbe for MaxPenetration {
    fn observe(&mut self, _t: f64, _scene: &Scene, _state: &SceneState, contacts: LazyContacts<'_>) {
        for c in contacts.get() {
            if self.body.is_none_or(|b| c.a.body == b || c.b.body == b) {
                self.max = self.max.max(c.depth);
            }
        }
    }

    fn finish(&self) -> MetricValue {
        MetricValue::Number(self.max)
    }
}

/// Total mechanical energy of the scene's moving links:
/// `E = Σ ½ m |v_c|² + ½ ωᵀ (R I Rᵀ) ω − m g·p_c`, with `v_c = v + ω × (R c)` the velocity of the
/// centre of mass `c` (Featherstone, Rigid Body Dynamics Algorithms, §2.13 for the kinetic
/// energy of a rigid body). The metric is the largest |E(t) − E(0)|, J.
#[derive(Default)]
pub struct EnergyDrift {
    initial: Option<f64>,
    worst: f64,
}

pub fn total_energy(scene: &Scene, state: &SceneState) -> f64 {
    let mut energy = 0.0;
    for (body, body_state) in scene.bodies.iter().zip(&state.bodies) {
        if body.fixed_root && body.model.links.len() == 1 {
            continue;
        }
        for (link, s) in body.model.links.iter().zip(&body_state.links) {
            let r = s.pose.rotation;
            let com_offset = r * link.center_of_mass;
            let p_c = s.pose.translation.vector + com_offset;
            let v_c: Vector3<f64> = s.linear_velocity + s.angular_velocity.cross(&com_offset);
            let inertia_world = r.to_rotation_matrix() * link.inertia * r.to_rotation_matrix().transpose();
            energy += 0.5 * link.mass * v_c.norm_squared()
                + 0.5 * s.angular_velocity.dot(&(inertia_world * s.angular_velocity))
                - link.mass * scene.gravity.dot(&p_c);
        }
    }
    energy
}

impl MetricProbe for EnergyDrift {
    fn observe(&mut self, _t: f64, scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
        let e = total_energy(scene, state);
        let e0 = *self.initial.get_or_insert(e);
        self.worst = self.worst.max((e - e0).abs());
    }

    fn finish(&self) -> MetricValue {
        MetricValue::Number(self.worst)
    }
}
