//! Per-pair contact materials: a rapier contact-modification hook.
//!
//! Every collider carries the [`LinkRef`] of its link in `user_data` (see [`encode_link`]). When
//! rapier hands a contact manifold to the solver, [`MaterialHook`] looks the pair up in the scene's
//! contact table and writes the manifold's friction and restitution. rapier 0.36 keeps one
//! coefficient pair per manifold (`ModifiableManifold::friction`), so the choice below is made per
//! manifold.
//!
//! **Static vs dynamic friction, the AIST way.** Choreonoid's AIST simulator
//! (`ConstraintForceSolver.cpp`, lines 1262-1267) uses `dynamicFriction` for a contact point whose
//! tangential relative speed exceeds 1e-4 m/s and `staticFriction` otherwise. Here the slip speed
//! is measured at every solver point of the manifold from the bodies' velocities *before* this
//! step's solve (the velocities at the end of the previous step); the manifold uses dynamic
//! friction when any of its points slips faster than the threshold. The choice therefore lags the
//! motion by one step, exactly as AIST's, which also reads the pre-solve velocities.

use rapier3d_f64::math::Vector;
use rapier3d_f64::prelude::{ContactModificationContext, PhysicsHooks, RigidBodyHandle, RigidBodySet};
use tribo_scene::{LinkRef, Scene};

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

/// The hook given to `PhysicsPipeline::step`: the scene's contact table plus the slip threshold.
pub(crate) struct MaterialHook<'a> {
    pub scene: &'a Scene,
    /// m/s; above it the dynamic coefficient applies.
    pub slip_threshold: f64,
}

impl PhysicsHooks for MaterialHook<'_> {
    fn modify_solver_contacts(&self, ctx: &mut ContactModificationContext) {
        let (Some(c1), Some(c2)) = (ctx.colliders.get(ctx.collider1), ctx.colliders.get(ctx.collider2)) else {
            return;
        };
        let (a, b) = (decode_link(c1.user_data), decode_link(c2.user_data));
        if !self.knows(a) || !self.knows(b) {
            return;
        }
        let params = self.scene.contact_params(a, b);
        let (bodies, rb1, rb2) = (ctx.bodies, ctx.rigid_body1, ctx.rigid_body2);
        let Some(manifold) = ctx.rigid_mut() else {
            return;
        };
        let normal = *manifold.normal;
        let slip = manifold
            .solver_contacts
            .iter()
            .map(|sc| {
                // Inside the hook the anchors are world points on each surface.
                let point = (sc.anchor1 + sc.anchor2) * 0.5;
                tangential_speed(bodies, rb1, rb2, point, normal)
            })
            .fold(0.0, f64::max);
        *manifold.friction = if slip > self.slip_threshold {
            params.dynamic_friction
        } else {
            params.static_friction
        };
        *manifold.restitution = params.restitution;
    }
}

impl MaterialHook<'_> {
    fn knows(&self, link: LinkRef) -> bool {
        self.scene
            .bodies
            .get(link.body)
            .is_some_and(|b| link.link < b.link_materials.len())
    }
}

/// |v_t|: the speed of body 2 relative to body 1 at `point`, normal component removed.
fn tangential_speed(
    bodies: &RigidBodySet,
    rb1: Option<RigidBodyHandle>,
    rb2: Option<RigidBodyHandle>,
    point: Vector,
    normal: Vector,
) -> f64 {
    let velocity = |h: Option<RigidBodyHandle>| {
        h.and_then(|h| bodies.get(h))
            .map_or(Vector::ZERO, |rb| rb.velocity_at_point(point))
    };
    let relative = velocity(rb2) - velocity(rb1);
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
