//! Reading the state and the contacts back out of rapier after a step.
//!
//! **Contact forces.** rapier stores, per solver contact point, the normal impulse summed over the
//! step's substeps (`ContactData::impulse`, rapier 0.36 `contact_constraint_element.rs`), so the
//! normal force is impulse / dt with the full step dt. Friction depends on the solver path:
//! - per-point Coulomb friction (the `coulomb` option, and every contact of an articulated link,
//!   which rapier always solves that way): `ContactData::tangent_impulse` is the step's total
//!   tangential impulse on collider 1's body in the solver basis t₁ = (−n)⊥ (rapier's
//!   `OrthonormalBasis::orthonormal_vector`), t₂ = (−n) × t₁; the force on body 2 is its opposite
//!   divided by dt;
//! - the `simplified` model (one friction cone and one twist constraint per manifold) writes back
//!   only the last substep's manifold friction impulse, in world axes
//!   (`ContactData::warmstart_tangent_world`, on body 1). The step's friction force on body 2 is
//!   estimated as −(that impulse) × substeps / dt, exact in steady sliding or sticking, and shared
//!   among the manifold's points in proportion to their normal impulses. The twist (torsional)
//!   friction moment is not reported.
//!
//! Points that carried no impulse (inactive or speculative contacts that never closed) are not
//! reported. A speculative point that did carry an impulse (a body arriving during the step) is
//! a real contact and is reported; its depth may then be slightly negative.

use nalgebra::Vector3;
use rapier3d_f64::math::MAX_MANIFOLD_POINTS;
use rapier3d_f64::prelude::RigidBodyHandle;
use rapier3d_f64::utils::OrthonormalBasis;
use tribo_engine::{BodyState, ContactRecord, LinkState, SceneState};
use tribo_engine::{LinkRef, Scene};

use crate::commands::EffortLaw;
use crate::convert;
use crate::materials_hook::decode_link;
use crate::options::FrictionModel;
use crate::world_build::BuiltWorld;

/// Link poses and velocities, joint coordinates and efforts of every body.
pub(crate) fn read_state(world: &BuiltWorld, laws: &[Vec<EffortLaw>]) -> SceneState {
    let physics = &world.physics;
    let bodies = world
        .bodies
        .iter()
        .enumerate()
        .map(|(b, slots)| {
            let n = slots.links.len();
            let mut state = BodyState {
                links: Vec::with_capacity(n),
                joint_positions: vec![0.0; n],
                joint_velocities: vec![0.0; n],
                joint_efforts: vec![0.0; n],
            };
            for (l, slot) in slots.links.iter().enumerate() {
                let link_state = match physics.bodies.get(slot.body) {
                    Some(rb) => {
                        let body_pose = convert::isometry(rb.position());
                        let pose = body_pose * slot.link_in_body;
                        let centre = body_pose
                            .transform_point(&convert::vector3(rb.local_center_of_mass()).into())
                            .coords;
                        let (v_centre, omega) = multibody_twist(physics, slot.body)
                            .unwrap_or_else(|| (convert::vector3(rb.linvel()), convert::vector3(rb.angvel())));
                        // Velocity of the link origin: v_o = v_c + ω × (o − c).
                        let origin = pose.translation.vector;
                        LinkState {
                            pose,
                            linear_velocity: v_centre + omega.cross(&(origin - centre)),
                            angular_velocity: omega,
                        }
                    }
                    None => LinkState {
                        linear_velocity: Vector3::repeat(f64::NAN),
                        ..LinkState::default()
                    },
                };
                state.links.push(link_state);
                if let Some(joint) = slot.joint {
                    if let Some((multibody, id)) = physics.multibody_joints.get(joint.handle) {
                        if let Some(link) = multibody.link(id) {
                            state.joint_positions[l] = link.joint().coords()[joint.kind.coordinate()];
                            state.joint_velocities[l] = multibody.joint_velocity(link).get(0).copied().unwrap_or(0.0);
                        }
                    }
                }
                state.joint_efforts[l] = match laws.get(b).and_then(|body| body.get(l)) {
                    Some(EffortLaw::Known(effort)) => *effort,
                    Some(EffortLaw::Pd {
                        q_ref,
                        v_ref,
                        kp,
                        kd,
                        feedforward,
                    }) => {
                        kp * (q_ref - state.joint_positions[l]) + kd * (v_ref - state.joint_velocities[l]) + feedforward
                    }
                    None => 0.0,
                };
            }
            state
        })
        .collect();
    SceneState { bodies }
}

/// Centre-of-mass velocity and angular velocity of a multibody link, from the generalised
/// velocities and the link Jacobian (`J q̇`, both as of the end of the step). rapier refreshes the
/// rigid-body velocities of multibody links before every substep but the last, so the bodies'
/// own `linvel`/`angvel` lag one substep behind.
fn multibody_twist(
    physics: &rapier3d_f64::prelude::PhysicsWorld,
    body: RigidBodyHandle,
) -> Option<(Vector3<f64>, Vector3<f64>)> {
    let link = physics.multibody_joints.rigid_body_link(body)?;
    let multibody = physics.multibody_joints.get_multibody(link.multibody)?;
    let jacobian = multibody.body_jacobian(link.id);
    let velocity = multibody.generalized_velocity();
    if jacobian.ncols() != velocity.len() || velocity.is_empty() {
        return None;
    }
    let twist = jacobian * velocity;
    Some((
        Vector3::new(twist[0], twist[1], twist[2]),
        Vector3::new(twist[3], twist[4], twist[5]),
    ))
}

/// Every contact point that carried force in the last step, sorted by link pair (stable).
pub(crate) fn read_contacts(
    world: &BuiltWorld,
    scene: &Scene,
    dt: f64,
    substeps: usize,
    friction_model: FrictionModel,
) -> Vec<ContactRecord> {
    let physics = &world.physics;
    let is_multibody_link =
        |h: Option<RigidBodyHandle>| h.and_then(|h| physics.multibody_joints.rigid_body_link(h)).is_some();
    let mut records = Vec::new();
    for pair in physics.narrow_phase.contact_pairs() {
        let (Some(c1), Some(c2)) = (
            physics.colliders.get(pair.collider1),
            physics.colliders.get(pair.collider2),
        ) else {
            continue;
        };
        let (a, b) = (decode_link(c1.user_data), decode_link(c2.user_data));
        let (Some(material_a), Some(material_b)) = (material(scene, a), material(scene, b)) else {
            continue;
        };
        for manifold in pair.solver_manifolds() {
            let data = &manifold.data;
            let n = data.normal;
            let per_point_friction = friction_model == FrictionModel::Coulomb
                || is_multibody_link(data.rigid_body1)
                || is_multibody_link(data.rigid_body2);
            let (t1, t2) = {
                let t1 = (-n).orthonormal_vector();
                (t1, (-n).cross(t1))
            };
            // (point, normal impulse, per-point friction on body 2, manifold friction on body 2)
            let active: Vec<_> = data
                .solver_contacts
                .iter()
                .take(MAX_MANIFOLD_POINTS)
                .filter_map(|sc| {
                    let contact = manifold.points.get(sc.contact_indices()[0] as usize)?;
                    let impulse = contact.data.impulse;
                    (impulse > 0.0).then(|| {
                        let (p1, p2) = data.solver_contact_world_points(sc, &physics.bodies);
                        let tangent = contact.data.tangent_impulse;
                        let coulomb_on_2 = -(t1 * tangent.x + t2 * tangent.y);
                        (p1, p2, impulse, coulomb_on_2, -contact.data.warmstart_tangent_world)
                    })
                })
                .collect();
            let total_impulse: f64 = active.iter().map(|p| p.2).sum();
            for (p1, p2, impulse, coulomb_on_2, last_substep_on_2) in active {
                let friction_impulse = if per_point_friction {
                    coulomb_on_2
                } else {
                    last_substep_on_2 * (substeps as f64) * (impulse / total_impulse)
                };
                records.push(ContactRecord {
                    a,
                    b,
                    materials: (material_a, material_b),
                    point: convert::vector3((p1 + p2) * 0.5),
                    normal: convert::vector3(n),
                    depth: -(p2 - p1).dot(n),
                    normal_force: impulse / dt,
                    friction_force: convert::vector3(friction_impulse / dt),
                    patch: None,
                });
            }
        }
    }
    records.sort_by_key(|r| (r.a, r.b));
    records
}

fn material(scene: &Scene, link: LinkRef) -> Option<tribo_material::MaterialId> {
    scene
        .bodies
        .get(link.body)
        .and_then(|b| b.link_materials.get(link.link))
        .copied()
}
