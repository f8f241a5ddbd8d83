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

use std::cell::{OnceCell, RefCell};

use nalgebra::Vector3;
use rapier3d_f64::geometry::{ContactData, ContactManifold, ContactPair, SolverContact, TrackedContact};
use rapier3d_f64::math::{Vector, MAX_MANIFOLD_POINTS};
use rapier3d_f64::prelude::RigidBodyHandle;
use rapier3d_f64::utils::OrthonormalBasis;
use tribo_engine::LinkRef;
use tribo_engine::{BodyState, ContactRecord, LinkState, SceneState};

use crate::commands::EffortLaw;
use crate::convert;
use crate::materials_hook::{decode_link, LinkMaterials};
use crate::options::FrictionModel;
use crate::world_build::BuiltWorld;
use tribo_material::MaterialId;

/// Link poses and velocities, joint coordinates and efforts of every body.
pub(crate) fn read_state(world: &BuiltWorld, laws: &[Vec<EffortLaw>]) -> SceneState {
    let mut state = SceneState::default();
    read_state_into(world, laws, &mut state);
    state
}

/// [`read_state`] into `state`, reusing its buffers.
pub(crate) fn read_state_into(world: &BuiltWorld, laws: &[Vec<EffortLaw>], out: &mut SceneState) {
    let physics = &world.physics;
    out.bodies.resize_with(world.bodies.len(), BodyState::default);
    for (b, (slots, state)) in world.bodies.iter().zip(out.bodies.iter_mut()).enumerate() {
        let n = slots.links.len();
        state.links.clear();
        state.links.reserve(n);
        for v in [
            &mut state.joint_positions,
            &mut state.joint_velocities,
            &mut state.joint_efforts,
        ] {
            v.clear();
            v.resize(n, 0.0);
        }
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
                }) => kp * (q_ref - state.joint_positions[l]) + kd * (v_ref - state.joint_velocities[l]) + feedforward,
                None => 0.0,
            };
        }
    }
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

/// The last step's contact records, read out of rapier's contact graph only when first asked
/// ([`tribo_engine::Engine::contacts`]): the world keeps the step's contact pairs until the next
/// step, so reading them later gives the same records, and a run whose controllers, metrics and
/// recordings never ask pays nothing (the readout is a tenth of a step on a 500-box pile).
#[derive(Default)]
pub(crate) struct LazyReadout {
    records: OnceCell<Vec<ContactRecord>>,
    /// The readout's buffers and the previous records' allocation, reused.
    buffers: RefCell<(ContactScratch, Vec<ContactRecord>)>,
    /// Step length, substeps and friction model of the step the world's contacts come from
    /// (`None` before the first step: no contacts).
    step: Option<(f64, usize, FrictionModel)>,
}

impl LazyReadout {
    /// A step replaced the world's contacts: forget the records read of the one before.
    pub fn new_step(&mut self, dt: f64, substeps: usize, friction_model: FrictionModel) {
        if let Some(records) = self.records.take() {
            self.buffers.get_mut().1 = records;
        }
        self.step = Some((dt, substeps, friction_model));
    }

    /// A step diverged and the world is no longer trustworthy: the records of the last good step
    /// stay if they were read; if they were not, there are none to give.
    pub fn freeze(&mut self) {
        self.records.get_or_init(Vec::new);
    }

    /// The records of the last step, read now if this is the first time they are asked for.
    pub fn get(&self, world: &BuiltWorld, materials: &LinkMaterials) -> &[ContactRecord] {
        self.records.get_or_init(|| {
            let Some((dt, substeps, friction_model)) = self.step else {
                return Vec::new();
            };
            let mut buffers = self.buffers.borrow_mut();
            let (scratch, spare) = &mut *buffers;
            let mut records = std::mem::take(spare);
            read_contacts(world, materials, dt, substeps, friction_model, scratch, &mut records);
            records
        })
    }
}

/// Buffers of the contact readout, kept between steps.
#[derive(Default)]
pub(crate) struct ContactScratch {
    /// Each contact pair's link pair, the range of its points in `points` and its materials.
    keys: Vec<PairKey>,
    /// The points in rapier's contact-pair order, without what their pair's key holds (a third of
    /// a record's size: the readout's buffers stay small next to rapier's own working set).
    points: Vec<PointData>,
}

struct PairKey {
    a: LinkRef,
    b: LinkRef,
    first: usize,
    end: usize,
    materials: (MaterialId, MaterialId),
}

#[derive(Clone, Copy)]
struct PointData {
    point: Vector3<f64>,
    normal: Vector3<f64>,
    depth: f64,
    normal_force: f64,
    friction_force: Vector3<f64>,
}

/// The link pair and materials of a rapier contact pair whose colliders carry tribo links, or
/// `None` for a pair the readout does not report (a collider without a link or material).
fn pair_links(
    physics: &rapier3d_f64::prelude::PhysicsWorld,
    materials: &LinkMaterials,
    pair: &ContactPair,
) -> Option<(LinkRef, LinkRef, (MaterialId, MaterialId))> {
    let c1 = physics.colliders.get(pair.collider1)?;
    let c2 = physics.colliders.get(pair.collider2)?;
    let (a, b) = (decode_link(c1.user_data), decode_link(c2.user_data));
    Some((a, b, (materials.get(a)?, materials.get(b)?)))
}

/// The solver contacts of `manifold` that carried a normal impulse in the step, with the
/// manifold point each one came from: the points the readout reports.
fn carrying_points(manifold: &ContactManifold) -> impl Iterator<Item = (&SolverContact, &TrackedContact<ContactData>)> {
    manifold
        .data
        .solver_contacts
        .iter()
        .take(MAX_MANIFOLD_POINTS)
        .filter_map(|sc| Some((sc, manifold.points.get(sc.contact_indices()[0] as usize)?)))
        .filter(|(_, contact)| contact.data.impulse > 0.0)
}

/// How many records [`read_contacts`] would write for the last step, without writing them (the
/// step report's count; the records themselves are read only when asked). Every collider the
/// world has is a scene link's (`world_build.rs`) and every scene link has a material, so every
/// pair passes [`pair_links`] and the count need not look the colliders up (two scattered
/// collider reads per pair, a third of the count's time on a 500-box pile);
/// `tests/lazy_readout.rs` checks the count against the records every step.
pub(crate) fn count_contacts(world: &BuiltWorld) -> usize {
    world
        .physics
        .narrow_phase
        .contact_pairs()
        .flat_map(|pair| pair.solver_manifolds())
        .map(|m| carrying_points(m).count())
        .sum()
}

/// Every contact point that carried force in the last step, into `records` (cleared first):
/// sorted by link pair, pairs of equal links in rapier's contact-pair order
/// (`NarrowPhase::contact_pairs`), and the points of a pair in manifold and solver-contact order.
/// The contact pairs are read once, in rapier's order (sequential in memory); then only their
/// keys are sorted, and the records are written in that order.
fn read_contacts(
    world: &BuiltWorld,
    materials: &LinkMaterials,
    dt: f64,
    substeps: usize,
    friction_model: FrictionModel,
    scratch: &mut ContactScratch,
    records: &mut Vec<ContactRecord>,
) {
    let physics = &world.physics;
    let has_multibodies = physics.multibody_joints.multibodies().next().is_some();
    let is_multibody_link = |h: Option<RigidBodyHandle>| {
        has_multibodies && h.and_then(|h| physics.multibody_joints.rigid_body_link(h)).is_some()
    };
    let ContactScratch { keys, points } = scratch;
    keys.clear();
    points.clear();
    for pair in physics.narrow_phase.contact_pairs() {
        let manifolds = pair.solver_manifolds();
        if manifolds.is_empty() {
            continue;
        }
        let Some((a, b, materials)) = pair_links(physics, materials, pair) else {
            continue;
        };
        let first = points.len();
        for manifold in manifolds {
            let data = &manifold.data;
            let n = data.normal;
            let per_point_friction = friction_model == FrictionModel::Coulomb
                || is_multibody_link(data.rigid_body1)
                || is_multibody_link(data.rigid_body2);
            let (t1, t2) = {
                let t1 = (-n).orthonormal_vector();
                (t1, (-n).cross(t1))
            };
            // (point 1, point 2, normal impulse, per-point friction on body 2, manifold friction
            // on body 2) of each point that carried an impulse.
            let mut active = [(Vector::ZERO, Vector::ZERO, 0.0, Vector::ZERO, Vector::ZERO); MAX_MANIFOLD_POINTS];
            let mut count = 0;
            for (sc, contact) in carrying_points(manifold) {
                let (p1, p2) = data.solver_contact_world_points(sc, &physics.bodies);
                let tangent = contact.data.tangent_impulse;
                let coulomb_on_2 = -(t1 * tangent.x + t2 * tangent.y);
                active[count] = (
                    p1,
                    p2,
                    contact.data.impulse,
                    coulomb_on_2,
                    -contact.data.warmstart_tangent_world,
                );
                count += 1;
            }
            let active = &active[..count];
            let total_impulse: f64 = active.iter().map(|p| p.2).sum();
            for &(p1, p2, impulse, coulomb_on_2, last_substep_on_2) in active {
                let friction_impulse = if per_point_friction {
                    coulomb_on_2
                } else {
                    last_substep_on_2 * (substeps as f64) * (impulse / total_impulse)
                };
                points.push(PointData {
                    point: convert::vector3((p1 + p2) * 0.5),
                    normal: convert::vector3(n),
                    depth: -(p2 - p1).dot(n),
                    normal_force: impulse / dt,
                    friction_force: convert::vector3(friction_impulse / dt),
                });
            }
        }
        if points.len() > first {
            keys.push(PairKey {
                a,
                b,
                first,
                end: points.len(),
                materials,
            });
        }
    }
    // Ranges are disjoint, so sorting by (a, b, first) is a stable sort by link pair.
    keys.sort_unstable_by_key(|k| (k.a, k.b, k.first));
    records.clear();
    for key in keys.iter() {
        records.extend(points[key.first..key.end].iter().map(|p| ContactRecord {
            a: key.a,
            b: key.b,
            materials: key.materials,
            point: p.point,
            normal: p.normal,
            depth: p.depth,
            normal_force: p.normal_force,
            friction_force: p.friction_force,
            patch: None,
        }));
    }
}
