//! Per-pair contact materials: a rapier contact-modification hook.
//!
//! Every collider carries the [`LinkRef`] of its link in `user_data` (see [`encode_link`]). When
//! rapier hands a contact manifold to the solver, [`MaterialHook`] looks the pair up in the scene's
//! contact table and writes the manifold's friction and restitution. rapier 0.36 keeps one
//! coefficient pair per manifold (`ModifiableManifold::friction`), so the choice below is made per
//! manifold.
//!
//! **Static vs dynamic friction: a stick/slip state per manifold.** Choreonoid's AIST simulator
//! (choreonoid@25994f3eda src/Body/ConstraintForceSolver.cpp:1264-1267) uses `dynamicFriction` for a
//! contact point whose tangential relative speed exceeds 1e-4 m/s and `staticFriction` otherwise.
//! AIST's contacts are rigid, so a sticking contact has zero slip; rapier's are soft springs and a
//! sticking contact creeps (a box at rest on a 25° slope moves at ≈ 0.2 mm/s in its first steps). A
//! speed test alone would then switch a sticking contact to dynamic friction and never switch it back —
//! a box that Coulomb's law holds with μs would slide with μd. So each manifold keeps a state (in its
//! persistent `user_data`):
//! - a **new** manifold (no impulse in the previous step) slides when its slip speed exceeds the
//!   threshold (AIST's rule as it is: no soft solve has acted on these velocities yet), else sticks;
//! - **sticking**: static friction applies; the manifold starts to **slide** when two successive
//!   solves both needed all of it — the friction impulse reached the static cone,
//!   |λ_t| ≥ (1 − [`SATURATION_TOLERANCE`]) μs λ_n — while its points slipped faster than the
//!   threshold, and the slip grew between them by more than [`SLIP_GROWTH`]: even the full static
//!   cone does not stop the motion. Creep under an unsaturated cone is the soft contact's
//!   elasticity, not sliding, and so is a saturated onset whose slip does not grow: a new contact's
//!   first solves have no warm start and a normal spring still loading (a box released on a 30°
//!   slope with μs = 0.6 saturates its first two solves while its slip falls from 0.78 to
//!   0.59 mm/s, then holds with tan 30° = 0.577 of its normal impulse; at 30.9°, 0.25 % below the
//!   friction angle, the onset slip grows 1.7 % and then decays);
//! - **sliding**: dynamic friction applies until the slip speed falls to the threshold or below
//!   (AIST's rule), then the manifold sticks again.
//!
//! This is Coulomb's law with static and dynamic coefficients (`docs/design/contact-mechanics.md` §4.1
//! stick condition |f_t| ≤ μs f_n, slip at μd) with a one-step lag at each transition, as AIST's own
//! choice lags (it also reads the pre-solve velocities). Slip speeds are measured at every solver
//! point of the manifold from the bodies' velocities *before* this step's solve; impulses are the
//! previous solve's, as rapier left them in the manifold's points.

use std::collections::HashSet;

use rapier3d_f64::geometry::ContactManifold;
use rapier3d_f64::math::Vector;
use rapier3d_f64::prelude::{
    ContactModificationContext, PairFilterContext, PhysicsHooks, RigidBody, RigidBodyHandle, SolverFlags,
};
use tribo_engine::{LinkRef, Scene};
use tribo_material::MaterialId;

/// The material of every link of a scene in one flat table (`Scene::material_of` walks to each
/// body's own vector, a cache miss per lookup on large scenes; the hook and the contact readout
/// look up two links per manifold every step).
pub(crate) struct LinkMaterials {
    /// Index in `ids` of each body's first link, plus the total at the end.
    first: Vec<usize>,
    ids: Vec<MaterialId>,
}

impl LinkMaterials {
    pub fn of_scene(scene: &Scene) -> LinkMaterials {
        let mut first = Vec::with_capacity(scene.bodies.len() + 1);
        let mut ids = Vec::new();
        for body in &scene.bodies {
            first.push(ids.len());
            ids.extend_from_slice(&body.link_materials);
        }
        first.push(ids.len());
        LinkMaterials { first, ids }
    }

    /// The material of `link`, if the scene has that link.
    #[inline]
    pub fn get(&self, link: LinkRef) -> Option<MaterialId> {
        let (start, end) = (*self.first.get(link.body)?, *self.first.get(link.body + 1)?);
        let index = start.checked_add(link.link).filter(|i| *i < end)?;
        self.ids.get(index).copied()
    }
}

/// Pack a link reference into a collider's `user_data`: body index in the high 64 bits, link
/// index in the low 64 bits.
pub(crate) fn encode_link(link: LinkRef) -> u128 {
    ((link.body as u128) << 64) | link.link as u128
}

/// The link reference packed by [`encode_link`].
pub(crate) fn decode_link(user_data: u128) -> LinkRef {
    LinkRef {
        body: (user_data >> 64) as usize,
        link: (user_data & u128::from(u64::MAX)) as usize,
    }
}

/// How close to the static cone the previous friction impulse must come to count as saturated:
/// a slope within 0.1 % of its friction angle (tan θ ≥ 0.999 μs) may be judged sliding.
pub(crate) const SATURATION_TOLERANCE: f64 = 1e-3;

/// Relative growth of the slip speed between two saturated solves that marks sliding (a new
/// contact's onset varies its slip by ≈ 2 % while its static cone still stops it).
pub(crate) const SLIP_GROWTH: f64 = 0.05;

/// A manifold's `user_data` in the sliding state. A sticking manifold holds the `f32` bits of the
/// slip speed its last solve left if that solve saturated the static cone, else 0 (no `f32`
/// speed has these bits: they are a NaN).
const SLIDING: u32 = u32::MAX;

/// The hook given to `PhysicsPipeline::step`: the scene's contact table plus the slip threshold.
pub(crate) struct MaterialHook<'a> {
    pub scene: &'a Scene,
    /// The scene's link materials, flat.
    pub materials: &'a LinkMaterials,
    /// m/s; above it the dynamic coefficient applies.
    pub slip_threshold: f64,
    /// Rigid bodies that are links of a multibody: rapier solves their contacts with per-point
    /// Coulomb friction whatever the friction model (see the readout's notes).
    pub per_point_friction: &'a HashSet<RigidBodyHandle>,
    /// The engine's friction model is per-point Coulomb for every contact.
    pub coulomb_everywhere: bool,
    /// Link pairs a hosted extension took over (both orders): no rigid contact between them
    /// (`host.rs`; asked only for colliders with `ActiveHooks::FILTER_CONTACT_PAIRS`).
    pub excluded: &'a HashSet<(LinkRef, LinkRef)>,
}

impl PhysicsHooks for MaterialHook<'_> {
    fn filter_contact_pair(&self, ctx: &PairFilterContext) -> Option<SolverFlags> {
        let link = |h| ctx.colliders.get(h).map(|c| decode_link(c.user_data));
        match (link(ctx.collider1), link(ctx.collider2)) {
            (Some(a), Some(b)) if self.excluded.contains(&(a, b)) => None,
            _ => Some(SolverFlags::default()),
        }
    }

    fn modify_solver_contacts(&self, ctx: &mut ContactModificationContext) {
        let (Some(c1), Some(c2)) = (ctx.colliders.get(ctx.collider1), ctx.colliders.get(ctx.collider2)) else {
            return;
        };
        let (a, b) = (decode_link(c1.user_data), decode_link(c2.user_data));
        let (Some(material_a), Some(material_b)) = (self.materials.get(a), self.materials.get(b)) else {
            return;
        };
        let params = self.scene.contacts.pair(material_a, material_b);
        let (bodies, rb1, rb2) = (ctx.bodies, ctx.rigid_body1, ctx.rigid_body2);
        let Some(manifold) = ctx.rigid_mut() else {
            return;
        };
        if params.static_friction == params.dynamic_friction {
            // One coefficient: the stick/slip state cannot change it (the state is only read to
            // choose between the two), so neither slip speeds nor impulses need reading.
            *manifold.user_data = 0;
            *manifold.friction = params.static_friction;
            *manifold.restitution = params.restitution;
            return;
        }
        let normal = *manifold.normal;
        let (body1, body2) = (rb1.and_then(|h| bodies.get(h)), rb2.and_then(|h| bodies.get(h)));
        let slip = manifold
            .solver_contacts
            .iter()
            .map(|sc| {
                // Inside the hook the anchors are world points on each surface.
                let point = (sc.anchor1 + sc.anchor2) * 0.5;
                tangential_speed(body1, body2, point, normal)
            })
            .fold(0.0, f64::max);
        let slipping = slip > self.slip_threshold;
        let per_point = self.coulomb_everywhere
            || (!self.per_point_friction.is_empty()
                && [rb1, rb2]
                    .iter()
                    .any(|h| h.is_some_and(|h| self.per_point_friction.contains(&h))));
        let state = *manifold.user_data;
        let cone = previous_solve(manifold.manifold, per_point);
        let saturated = slipping
            && cone.normal > 0.0
            && cone.tangential >= (1.0 - SATURATION_TOLERANCE) * params.static_friction * cone.normal;
        let sliding = if state == SLIDING {
            slipping
        } else if cone.normal <= 0.0 {
            // A new contact: no soft solve has acted on these velocities yet (AIST's rule as is).
            slipping
        } else {
            // The slip speed the last saturated solve left (0: the last solve was not saturated).
            let previous = f64::from(f32::from_bits(state));
            saturated && previous > 0.0 && slip > previous * (1.0 + SLIP_GROWTH)
        };
        *manifold.user_data = if sliding {
            SLIDING
        } else if saturated {
            (slip as f32).to_bits()
        } else {
            0
        };
        *manifold.friction = if sliding {
            params.dynamic_friction
        } else {
            params.static_friction
        };
        *manifold.restitution = params.restitution;
    }
}

/// A manifold's impulses in the previous solve (both of its last substep).
struct PreviousSolve {
    normal: f64,
    tangential: f64,
}

/// rapier stores the last substep's impulses in each point: the normal one in
/// `warmstart_impulse`; the friction one in `warmstart_tangent_world`, per point under per-point
/// Coulomb friction and the whole manifold's (the same in every point) under the simplified model
/// (rapier 0.36 `contact_with_twist_friction.rs`, `writeback_impulses`). A manifold that did not
/// exist in the previous step has zero impulses.
fn previous_solve(manifold: &ContactManifold, per_point: bool) -> PreviousSolve {
    let normal = manifold.points.iter().map(|p| p.data.warmstart_impulse.max(0.0)).sum();
    let tangential = if per_point {
        manifold
            .points
            .iter()
            .map(|p| p.data.warmstart_tangent_world.length())
            .sum()
    } else {
        manifold
            .points
            .first()
            .map_or(0.0, |p| p.data.warmstart_tangent_world.length())
    };
    PreviousSolve { normal, tangential }
}

/// |v_t|: the speed of body 2 relative to body 1 at `point`, normal component removed.
fn tangential_speed(body1: Option<&RigidBody>, body2: Option<&RigidBody>, point: Vector, normal: Vector) -> f64 {
    let velocity = |body: Option<&RigidBody>| body.map_or(Vector::ZERO, |rb| rb.velocity_at_point(point));
    let relative = velocity(body2) - velocity(body1);
    (relative - normal * relative.dot(normal)).length()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_refs_survive_the_user_data_round_trip() {
        for link in [
            LinkRef { body: 0, link: 0 },
            LinkRef { body: 7, link: 31 },
            LinkRef {
                body: usize::MAX,
                link: 3,
            },
        ] {
            assert_eq!(decode_link(encode_link(link)), link);
        }
    }
}
