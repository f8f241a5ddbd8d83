//! Turns the solved displacement field into the patch result (`docs/design/lattice-model.md` §5).

use nalgebra::{Point3, Vector3};

use crate::frames::TargetFrame;
use crate::local::{hertz, mul3};
use crate::result::{refill, ApproachingSphere, PatchResult, TouchingSphere, Wrench};
use crate::solver::{CslcPad, Prepared, StepInput, SweepEnd};

impl CslcPad {
    /// Evaluates the forces at the solved field, stores the per-sphere contact state for the
    /// next step and sums the wrenches.
    pub(crate) fn assemble(
        &mut self,
        input: &StepInput,
        frames: &[TargetFrame],
        prepared: &[Prepared],
        sweeps: SweepEnd,
        fast_impact_sphere: Option<(usize, f64, f64)>,
    ) -> PatchResult {
        let SweepEnd {
            iterations,
            residual,
            converged,
        } = sweeps;
        let pose = input.pad_pose;
        let origin = Point3::from(pose.translation.vector);
        // The pad's rotation as a matrix, formed once: every sphere's centre and most normals are
        // rotated into the world, and a 3×3 product (`mul3`) costs half the quaternion's.
        let rotation = *pose.rotation.to_rotation_matrix().matrix();
        let to_world = |v: &Vector3<f64>| mul3(&rotation, v);
        // The lists of a patch given back (`recycle`), else empty ones.
        let mut lists = self.take_patch_lists();
        let mut touching = std::mem::take(&mut lists.touching);
        touching.clear();
        let mut approaching = std::mem::take(&mut lists.approaching);
        approaching.clear();
        let mut target_wrenches = std::mem::take(&mut lists.target_wrenches);
        refill(&mut target_wrenches, input.targets.len(), Wrench::default());
        let mut pad = Wrench::default();
        let mut contact_area = 0.0;
        let mut weighted_center = Vector3::zeros();
        let mut normal_sum = Vector3::zeros();
        let mut total_normal = 0.0;
        let mut bottomed_out = None;
        // The contact state the next step starts from, written sphere by sphere below.
        let mut state = self.take_contact_state();
        // One pass over the spheres the set-up reached (ascending): only they can touch or
        // approach a target; only a touching or approaching sphere is reported, and only its
        // world centre is formed. A sphere's final state reads only the solved field, never the
        // sliding and contact flags the pass updates.
        let spheres = self.lattice().spheres();
        let field = self.displacements();
        for &i in self.reached() {
            let (Some(sphere), Some(&delta), Some(here)) = (spheres.get(i), field.get(i), prepared.get(i)) else {
                continue;
            };
            let (area, radius) = (sphere.area, sphere.radius);
            let surface = here.surface;
            // The linearised penetration at the solved field, `φ₀ − m·(δ − δ₀)`.
            let linear = surface.map(|s| s.penetration - s.normal.dot(&(delta - s.delta)));
            let center = sphere.rest_position + delta;
            let world_center = || Point3::from(to_world(&center.coords) + pose.translation.vector);
            if let Some((s, gap)) = surface.zip(linear).filter(|(_, gap)| *gap <= 0.0 && *gap > -radius) {
                approaching.push(ApproachingSphere {
                    index: i,
                    target: s.target,
                    gap,
                    normal: to_world(&s.normal),
                    center: world_center(),
                });
            }
            let out = surface
                .zip(linear)
                .is_some_and(|(s, linear)| self.out_of_contact_at(frames, &s, &center, radius, linear));
            let contact = if out {
                None
            } else {
                self.contact_on_surface(frames, i, &delta, surface)
            };
            let Some(c) = contact else {
                continue;
            };
            let (force_normal, friction, sliding) = self.contact_forces(input, prepared, i, &c, &delta, area);
            state.record(i, c.target, c.penetration, sliding);
            if c.penetration > radius && bottomed_out.is_none() {
                bottomed_out = Some((i, c.penetration, radius));
            }
            let center = world_center();
            let normal_world = to_world(&c.normal);
            let friction_world = to_world(&friction);
            let force = normal_world * force_normal + friction_world;
            let torque = (center - origin).cross(&force);
            pad.force += force;
            pad.torque += torque;
            if let Some(w) = target_wrenches.get_mut(c.target) {
                w.force -= force;
                w.torque -= torque;
            }
            touching.push(TouchingSphere {
                index: i,
                target: c.target,
                normal_force: force_normal,
                pressure: if area > 0.0 { force_normal / area } else { 0.0 },
                force,
                friction: friction_world,
                center,
                normal: normal_world,
                penetration: c.penetration,
                deflection: -delta.dot(&sphere.normal),
                friction_coefficient: if sliding {
                    input.dynamic_friction
                } else {
                    input.friction
                },
                sliding,
            });
            contact_area += area;
            weighted_center += center.coords * force_normal;
            normal_sum += normal_world * force_normal;
            total_normal += force_normal;
        }
        self.keep_contact_state(state);
        let center_of_pressure = (total_normal > 0.0).then(|| Point3::from(weighted_center / total_normal));
        let patch_normal = normal_sum.try_normalize(1e-300).unwrap_or_else(Vector3::zeros);
        // Only touching spheres carry friction (the others' terms are zero).
        let friction_moment = center_of_pressure.map_or(0.0, |cop| {
            touching
                .iter()
                .map(|s| (s.center - cop).cross(&s.friction).dot(&patch_normal))
                .sum()
        });
        let mut messages = Vec::new();
        if !converged {
            messages.push(format!(
                "lattice did not reach equilibrium: relative force residual {residual:.3e} after {iterations} iterations \
                 (tolerance {:.1e}, cap {})",
                self.params().tolerance,
                self.params().max_iterations
            ));
        }
        if let Some((i, jump, radius)) = fast_impact_sphere {
            messages.push(format!(
                "fast impact: sphere {i} penetration grew by {jump:.3e} m in one step (> {} × radius {radius:.3e} m); \
                 the quasi-static skin cannot absorb it",
                self.params().impact_fraction
            ));
        }
        if let Some((i, depth, radius)) = bottomed_out {
            messages.push(format!(
                "fast impact: sphere {i} penetrates {depth:.3e} m, deeper than its radius {radius:.3e} m (skin pushed through)"
            ));
        }
        let fast_impact = fast_impact_sphere.is_some() || bottomed_out.is_some();
        self.keep_patch_lists(lists);
        PatchResult {
            total_force: pad.force,
            total_torque: pad.torque,
            pad_wrench: pad,
            target_wrenches,
            center_of_pressure,
            patch_normal,
            friction_moment,
            contact_area,
            touching,
            approaching,
            iterations,
            residual,
            converged,
            fast_impact,
            warning: (!messages.is_empty()).then(|| messages.join("; ")),
        }
    }
}

/// Exact (non-linearised) Hertz force at the solved penetration.
pub(crate) fn normal_force(contact_coefficient: f64, penetration: f64) -> f64 {
    hertz(contact_coefficient, penetration).0
}
