//! Measured ZMP (centre of pressure of the ground reaction) against a motion's planned ZMP.
//!
//! # The math
//!
//! Contact forces fᵢ (on the feet, world frame) act at points pᵢ on the ground plane z = 0. The
//! centre of pressure is the point where the resultant of their vertical components acts:
//!
//! ```text
//! p_CoP = Σᵢ f_zᵢ pᵢ / Σᵢ f_zᵢ                                    (x and y components)
//! ```
//!
//! Source: the contact-mechanics chapter, `docs/design/contact-mechanics.md` §4.4.2: the centre of
//! pressure is the point where all contact forces act as one, p_CoP = Σ f_zi p_i / Σ f_zi, and the
//! ZMP is the point of the ground reaction about which the horizontal moment vanishes,
//! p_ZMP = n × (M_O + p_O × F) / (n · F) with n the ground normal.
//! With M = Σ pᵢ × fᵢ about the world origin and n = ẑ that is p_ZMP = (−M_y, M_x) / F_z
//! = Σ (f_zᵢ pᵢ − pᵢ_z f_xyᵢ) / Σ f_zᵢ, which for contact points on the plane (pᵢ_z = 0) is the CoP.
//! Kajita et al., *Introduction to Humanoid Robotics* (Springer, 2014), ch. 3 ("ZMP and
//! Dynamics"), define the ZMP the same way — the point on the floor where the horizontal moment of
//! the ground reaction forces is zero, equal to the centre of pressure of the vertical
//! components, p = Σ p_j f_jz / Σ f_jz — and show it is the point a walking pattern's ZMP plans.
//! Engines report contact points up to a penetration depth d (≲ 1 mm) off the plane; the term
//! pᵢ_z f_xyᵢ / F_z they would add is at most μ d and is left out, as in the CoP.
//!
//! The planned ZMP comes from the motion's `.seq` ZMP component (`Vector3Seq`, `content: ZMP`).
//! With `isRootRelative: true` its points are in the root link's frame; Choreonoid's
//! `makeRootRelative(zmpseq, motion, false)` (choreonoid@25994f3eda src/Body/ZMPSeq.cpp) makes them
//! global as p_world = R_root p + p_root, and so does this probe, with the root pose recorded in the run.
//! Otherwise the points are world coordinates (the project places the body where the pattern's
//! frame 0 has it).

use nalgebra::{Isometry3, Point3, Vector2};
use tribo_model::ZmpSeq;
use tribo_scene::{LinkRef, Reduce, Scene, Window};

use super::{MetricProbe, MetricValue};
use crate::{ContactRecord, LazyContacts, SceneState};

/// Centre of pressure on the ground plane of the vertical contact forces exerted by any link of
/// body `ground` on the links `feet`: (x, y of Σ f_zᵢ pᵢ / Σ f_zᵢ, Σ f_zᵢ in N). `None` when the
/// total vertical force is not positive. A CSLC patch counts at its own centre of pressure.
pub fn center_of_pressure(feet: &[LinkRef], ground: usize, contacts: &[ContactRecord]) -> Option<(Vector2<f64>, f64)> {
    let mut moment = Vector2::zeros();
    let mut total = 0.0;
    for c in contacts {
        let force = if feet.contains(&c.b) && c.a.body == ground {
            c.force_on_b()
        } else if feet.contains(&c.a) && c.b.body == ground {
            -c.force_on_b()
        } else {
            continue;
        };
        let point = c.patch.as_ref().map_or(c.point, |p| p.center_of_pressure);
        moment += force.z * point.xy();
        total += force.z;
    }
    (total > 0.0).then(|| (moment / total, total))
}

/// Horizontal distance between the measured and the planned ZMP, RMS or maximum over the samples
/// in the window where the feet carry at least `threshold` newtons.
pub struct ZmpError {
    feet: Vec<LinkRef>,
    ground: usize,
    planned: std::sync::Arc<ZmpSeq>,
    threshold: f64,
    window: Window,
    reduce: Reduce,
    sum_squares: f64,
    max: f64,
    samples: usize,
    skipped: usize,
}

impl ZmpError {
    pub fn new(
        feet: Vec<LinkRef>,
        ground: usize,
        planned: std::sync::Arc<ZmpSeq>,
        threshold: f64,
        window: Window,
        reduce: Reduce,
    ) -> Self {
        ZmpError {
            feet,
            ground,
            planned,
            threshold,
            window,
            reduce,
            sum_squares: 0.0,
            max: 0.0,
            samples: 0,
            skipped: 0,
        }
    }

    /// The planned ZMP at time `t` in the world, for the root pose `root` of the feet's body.
    pub fn planned_at(&self, t: f64, root: &Isometry3<f64>) -> Option<Vector2<f64>> {
        let [x, y, z] = self.planned.at(t)?;
        let p = Point3::new(x, y, z);
        let world = if self.planned.root_relative { root * p } else { p };
        Some(world.coords.xy())
    }

    /// One sample: the distance between measured and planned ZMP at `t`, if it counts. `root` is
    /// the pose of the feet's body's root link.
    pub fn sample(&mut self, t: f64, root: &Isometry3<f64>, contacts: &[ContactRecord]) -> Option<f64> {
        if t < self.window.start - 1e-12 || t > self.window.end + 1e-12 {
            return None;
        }
        let planned = self.planned_at(t, root)?;
        match center_of_pressure(&self.feet, self.ground, contacts) {
            Some((measured, force)) if force >= self.threshold => {
                let d = (measured - planned).norm();
                self.sum_squares += d * d;
                self.max = self.max.max(d);
                self.samples += 1;
                Some(d)
            }
            _ => {
                self.skipped += 1;
                None
            }
        }
    }
}

impl MetricProbe for ZmpError {
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, contacts: LazyContacts<'_>) {
        let Some(body) = self.feet.first().map(|f| f.body) else {
            return;
        };
        let root = state.bodies[body].links[0].pose;
        self.sample(t, &root, contacts.get());
    }

    fn finish(&self) -> MetricValue {
        if self.samples == 0 {
            return MetricValue::Missing(format!(
                "no sample with at least {:.0} N on the feet ({} skipped)",
                self.threshold, self.skipped
            ));
        }
        MetricValue::Number(match self.reduce {
            Reduce::Max => self.max,
            Reduce::Rms | Reduce::Final => (self.sum_squares / self.samples as f64).sqrt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use nalgebra::{Translation3, UnitQuaternion, Vector3};
    use tribo_material::MaterialId;

    use super::*;

    const FOOT: LinkRef = LinkRef { body: 1, link: 3 };
    const OTHER_FOOT: LinkRef = LinkRef { body: 1, link: 5 };
    const FLOOR: LinkRef = LinkRef { body: 0, link: 0 };

    /// A floor (a) pushing a foot (b) up with `fz` at `point`, with some friction.
    fn contact(point: [f64; 3], fz: f64, foot: LinkRef) -> ContactRecord {
        ContactRecord {
            a: FLOOR,
            b: foot,
            materials: (MaterialId::DEFAULT, MaterialId::DEFAULT),
            point: Vector3::from(point),
            normal: Vector3::z(),
            depth: 1e-4,
            normal_force: fz,
            friction_force: Vector3::new(0.1 * fz, -0.05 * fz, 0.0),
            patch: None,
        }
    }

    fn seq(points: Vec<[f64; 3]>, root_relative: bool) -> Arc<ZmpSeq> {
        Arc::new(ZmpSeq {
            frame_rate: 10.0,
            points,
            root_relative,
        })
    }

    fn whole_run() -> Window {
        Window {
            start: 0.0,
            end: f64::INFINITY,
        }
    }

    #[test]
    fn two_contact_points_give_the_force_weighted_point() {
        // 300 N at (0.1, 0.2) and 100 N at (0.5, −0.2): CoP = (300·0.1 + 100·0.5, 300·0.2 − 100·0.2)/400
        // = (0.2, 0.1); the friction forces do not move it.
        let contacts = [
            contact([0.1, 0.2, 0.0], 300.0, FOOT),
            contact([0.5, -0.2, 0.0], 100.0, OTHER_FOOT).flipped(),
        ];
        let (p, total) = center_of_pressure(&[FOOT, OTHER_FOOT], FLOOR.body, &contacts).expect("a CoP");
        assert!((p - Vector2::new(0.2, 0.1)).norm() < 1e-12, "{p}");
        assert!((total - 400.0).abs() < 1e-12);
        // Only the named feet count, and only contacts with the ground body.
        let (p, total) = center_of_pressure(&[FOOT], FLOOR.body, &contacts).expect("a CoP");
        assert!((p - Vector2::new(0.1, 0.2)).norm() < 1e-12 && (total - 300.0).abs() < 1e-12);
        assert!(center_of_pressure(&[FOOT], 7, &contacts).is_none());
        assert!(center_of_pressure(&[FOOT], FLOOR.body, &[]).is_none());
    }

    #[test]
    fn distances_to_the_plan_reduce_to_rms_and_max_and_skip_flight() {
        let planned = seq(vec![[0.2, 0.1, 0.0], [0.2, 0.1, 0.0], [0.0, 0.0, 0.0]], false);
        let root = Isometry3::identity();
        let two = [
            contact([0.1, 0.2, 0.0], 300.0, FOOT),
            contact([0.5, -0.2, 0.0], 100.0, FOOT),
        ];
        for (reduce, expected) in [(Reduce::Rms, (0.04_f64 / 2.0).sqrt()), (Reduce::Max, 0.2)] {
            let mut probe = ZmpError::new(vec![FOOT], 0, Arc::clone(&planned), 50.0, whole_run(), reduce);
            assert_eq!(probe.sample(0.0, &root, &two), Some(0.0));
            // Flight (no contact) and a light touch are skipped.
            assert_eq!(probe.sample(0.05, &root, &[]), None);
            assert_eq!(probe.sample(0.1, &root, &[contact([0.3, 0.0, 0.0], 10.0, FOOT)]), None);
            // At t = 0.2 the plan is the origin: the CoP (0.2, 0) is 0.2 m away.
            let one = [contact([0.2, 0.0, 0.0], 400.0, FOOT)];
            let d = probe.sample(0.2, &root, &one).expect("a sample");
            assert!((d - 0.2).abs() < 1e-12);
            let v = probe.finish().as_number().expect("a value");
            assert!((v - expected).abs() < 1e-12, "{reduce:?}: {v} vs {expected}");
        }
        let mut empty = ZmpError::new(vec![FOOT], 0, planned, 50.0, whole_run(), Reduce::Rms);
        empty.sample(0.0, &root, &[]);
        assert!(matches!(empty.finish(), MetricValue::Missing(_)));
    }

    #[test]
    fn root_relative_plans_follow_the_root_pose() {
        // Choreonoid: p_world = R_root p + p_root.
        let planned = seq(vec![[0.1, 0.0, -0.7]], true);
        let probe = ZmpError::new(vec![FOOT], 0, planned, 0.0, whole_run(), Reduce::Rms);
        let root = Isometry3::from_parts(
            Translation3::new(1.0, 2.0, 0.7),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2),
        );
        let p = probe.planned_at(0.0, &root).expect("a plan");
        assert!((p - Vector2::new(1.0, 2.1)).norm() < 1e-12, "{p}");
        let world = seq(vec![[0.1, 0.0, 0.0]], false);
        let probe = ZmpError::new(vec![FOOT], 0, world, 0.0, whole_run(), Reduce::Rms);
        let p = probe.planned_at(0.0, &root).expect("a plan");
        assert!((p - Vector2::new(0.1, 0.0)).norm() < 1e-12);
    }
}
