//! The `rapier` engine as a contact host (`tribo_engine::ContactHost`): the `cslc` lattice runs
//! on it as `cslc-rapier`.
//!
//! **Excluded pairs.** The colliders of the links an extension takes over get rapier's
//! contact-pair filter (`ActiveHooks::FILTER_CONTACT_PAIRS`); the material hook's
//! `filter_contact_pair` drops every listed pair, so the narrow phase computes no manifold for it,
//! the solver sees no contact, continuous collision detection ignores it (rapier's CCD asks the
//! same filter) and no contact record reports it.
//!
//! **Compliant points: one impulse joint each, its motors as implicit dashpots.** rapier has no
//! per-contact stiffness (its contacts share one global softness) and no user constraint rows;
//! what it solves implicitly with coefficients of the caller's choosing is a joint motor. Each
//! point becomes an impulse joint between the rigid bodies of its two links, both frames at the
//! point with axes `[n, t₁, t₂]`, no locked axis and three linear force-based motors with
//! stiffness 0, damping `c'_d = k_d h + c` and target velocity `f_d / c'_d` (`f_d` the point's
//! force at the start of the step along `d`). rapier solves such a motor as a soft row with
//! `cfm = 1/(h c')` (rapier 0.36 `MotorModel::combine_coefficients`, `motor_linear`), i.e. on `b`
//!
//! `f_d⁺ = f_d − (k_d h + c) v_d⁺`,
//!
//! the `CompliantPoint` law that `pgs` solves in its LCP, in the same constraint solve as the
//! joints and rigid contacts. Joints come from a pool per pair of rigid bodies: a step updates
//! the frames and motors of the joints it needs, inserts one only when a pair needs more than it
//! ever had, and disables the rest.
//!
//! **One substep, [`HOSTED_PGS_ITERATIONS`] sweeps.** A step that carries points runs one solver
//! substep with at least 16 Gauss–Seidel sweeps (the `pgs_iterations` option when larger),
//! whatever the `substeps` option. Both are needed to be the law above:
//! - the extension computes its forces from the state at the start of the step and the
//!   restitution of its patches assumes symplectic Euler (`tribo-cslc-engine` `restitution.rs`):
//!   the force, then positions advanced by the end velocity. rapier's substeps apply the
//!   start-of-step force over the whole step while positions follow the substep velocities —
//!   close to explicit Euler, which feeds energy into a stiff contact: with the default 4
//!   substeps, a ball dropped on a pad with restitution 0.8 rebounded to 1.06 times its height
//!   (0.64 expected; 0.65 with one substep), and one with restitution 0.5 to 0.42 (0.25; 0.25);
//! - a pad's points are several stiff rows on one body (up to four quadrants, three axes each), which
//!   one sweep leaves far from their solution, and rapier warm-starts no joint on a multibody: a
//!   cube resting on a pad received 10.23 N from the rows for its 9.81 N weight with one sweep
//!   per substep; with one substep, 8 sweeps leave 4·10⁻⁶ of its weight, 16 leave under 10⁻⁶.
//!   On the walker with sole pads, 4 substeps walked or fell depending on the sweep count (1 to
//!   24 tried); one substep walks with 8 to 32 sweeps.
//!
//! Rigid contacts in the same step are solved with that one substep too (the contact accuracy
//! table of the crate docs is for the plain engine's 4 substeps).
//!
//! **Unilateral normal.** A motor's impulse bounds are symmetric (`±max_force · h`). The normal
//! row gets an explicit push `M` along `n` on `b` (and `−M` on `a`) for the step, and its motor
//! the force `f_n − M` at the start with `max_force = M`: the total normal force is then the law
//! above clamped to `[0, 2M]` — exactly unilateral (the motor cancels the push at `−M` when the
//! point would pull), with `M = max(f_n, 0) + min(k h + c, m/h) max(−v_n, 0) + m g`: `m` the mass
//! of the lighter of the two links' bodies (their whole mass if their root is free, else
//! unbounded, without the weight term), `v_n` the approach speed at the start of the step. The cap
//! `2M` is at least twice the force that stops that body within the step and carries its weight.
//! The push is kept that small on purpose: the motor cancels it within the solver's sweeps, and
//! whatever a sweep-limited solve leaves of it is a spurious force.
//!
//! **Friction: two solves from the same start.** Motor bounds are per axis and fixed for a
//! solve, so the tangential force is held in a box of half-width `μ f̂_n` on `t₁` and `t₂` (`t₁`
//! along the point's tangential force at the start of the step, else against its slip). The `pgs`
//! host bounds it by the step's own normal force, `μ f_n⁺` in a circular cone. A step that carries
//! points therefore runs rapier twice from the same start (`world_snapshot.rs`): first with
//! `f̂_n = max(f_n, 0)`, the point's load at the start of the step, then, with the world put back,
//! with `f̂_n = max(f_n⁺, 0)`, the normal force the first solve gave the point — the cone of the
//! step's own normal force to one fixed-point iteration (the friction of the second solve changes
//! its normal forces only through the coupling of the rows). What is left against `pgs`: the box
//! reaches √2 `μ f̂_n` when both axes saturate, i.e. when the slip turns across the start-of-step
//! force within the step, and an anticipated point (`f_n < 0` at the start) that the first solve
//! leaves unloaded has no friction in the step.
//!
//! Why: with the start-of-step load alone, a landing sole's points carry 0.5 – 48 N at the
//! start of their first steps and 85 – 185 N at their end, so the sole slid on a fraction of its
//! friction; the walker (tests `walker.rs`) then rolled onto one toe corner and fell at every step
//! from 1.5 ms down (it walked at 1.8 and 2 ms). With the second solve it walks 1.051 – 1.055 m
//! at every step from 0.5 to 2 ms, as on `pgs` (1.053 – 1.055 m). Bounding by the normal force
//! the start velocity predicts made the landing feet grip with far more than `μ f_n` (a landing
//! point's prediction is the whole stopping force); bounding by the point's applied force of the
//! step before still fell at 1 and 1.25 ms. The second solve and the copy of the world cost the
//! `cslc-rapier` step 1.38 × its time on the walker (212 → 295 µs) and on the gentle grasp
//! (43 → 59 µs): `tribo-bench time`, medians of four interleaved rounds, load 1.1 – 1.2.
//!
//! **Reported force** (`HostedStep::point_forces`): the motor impulses rapier wrote back, divided
//! by the step, plus the explicit push — the force the step applied.
//!
//! **Wrenches** are added to the step's link wrenches (`HostedContacts::merged_commands`); a
//! wrench or push on a link that does not move under forces (a fixed or driven body) acts on the
//! world, which absorbs it like the force a fixed body receives from a contact.

use std::sync::Arc;

use nalgebra::{Isometry3, Matrix3, Rotation3, UnitQuaternion, Vector3};
use rapier3d_f64::prelude::{
    ActiveHooks, GenericJoint, ImpulseJointHandle, IntegrationParameters, JointAxesMask, JointAxis, MotorModel,
    RigidBodyHandle,
};
use tribo_engine::{
    BuildError, Commands, CompliantPoint, ContactHost, EngineOptions, HostFactory, HostedContacts, HostedStep, LinkRef,
    Scene, StepError,
};

use crate::convert;
use crate::materials_hook::decode_link;
use crate::step::RapierEngine;
use crate::world_build::{BuiltWorld, RootType};

/// Gauss–Seidel sweeps at least, in the one substep of a step that carries compliant points
/// (module docs).
pub(crate) const HOSTED_PGS_ITERATIONS: usize = 16;

/// Floor of the explicit normal push `M`, N (module docs): keeps the motor's bounds non-empty.
const PUSH_FLOOR: f64 = 1e-6;

const AXES: [JointAxis; 3] = [JointAxis::LinX, JointAxis::LinY, JointAxis::LinZ];

/// One pooled impulse joint and the rigid bodies it joins.
struct Pooled {
    handle: ImpulseJointHandle,
    bodies: (RigidBodyHandle, RigidBodyHandle),
    used: bool,
}

/// The joints carrying the compliant points (module docs).
#[derive(Default)]
pub(crate) struct HostedJoints {
    pool: Vec<Pooled>,
    /// Whether the current step carries points.
    active: bool,
}

/// How one point of a step was applied: its joint (none when both links share a rigid body or
/// neither moves), frame and explicit push.
pub(crate) struct Applied {
    joint: Option<ImpulseJointHandle>,
    /// The point's friction coefficient.
    friction: f64,
    frame: [Vector3<f64>; 3],
    push: f64,
    /// The force applied without a joint (between links that cannot move against each other), on
    /// `b`.
    fallback: Vector3<f64>,
}

/// The rigid body of `link`, if the world has it.
fn body_of(world: &BuiltWorld, link: LinkRef) -> Option<RigidBodyHandle> {
    world.bodies.get(link.body)?.links.get(link.link).map(|s| s.body)
}

/// The mass of `link`'s whole body when its root is free (an upper bound of the effective mass at
/// any of its points), else infinite, kg.
fn mass_bound(world: &BuiltWorld, scene: &Scene, link: LinkRef) -> f64 {
    let free = world
        .bodies
        .get(link.body)
        .is_some_and(|s| s.root_type == RootType::Dynamic);
    match scene.bodies.get(link.body) {
        Some(body) if free => body.model.links.iter().map(|l| l.mass).sum(),
        _ => f64::INFINITY,
    }
}

/// A right-handed frame `[n, t₁, t₂]`, `t₁` along the tangential part of the first of `preferred`
/// that has one.
fn frame(normal: &Vector3<f64>, preferred: &[Vector3<f64>]) -> [Vector3<f64>; 3] {
    let tangential = |v: &Vector3<f64>| v - normal * normal.dot(v);
    let t1 = preferred
        .iter()
        .map(tangential)
        .find_map(|t| t.try_normalize(1e-12))
        .unwrap_or_else(|| {
            let helper = if normal.x.abs() < 0.9 {
                Vector3::x()
            } else {
                Vector3::y()
            };
            tangential(&helper).normalize()
        });
    [*normal, t1, normal.cross(&t1)]
}

impl HostedJoints {
    /// A pooled joint between `bodies` not used yet this step, or a new one.
    fn joint_for(&mut self, world: &mut BuiltWorld, bodies: (RigidBodyHandle, RigidBodyHandle)) -> ImpulseJointHandle {
        if let Some(p) = self.pool.iter_mut().find(|p| !p.used && p.bodies == bodies) {
            p.used = true;
            return p.handle;
        }
        let handle =
            world
                .physics
                .impulse_joints
                .insert(bodies.0, bodies.1, GenericJoint::new(JointAxesMask::empty()), true);
        self.pool.push(Pooled {
            handle,
            bodies,
            used: true,
        });
        handle
    }

    /// The solver iterations of a step (module docs): one substep of at least
    /// [`HOSTED_PGS_ITERATIONS`] sweeps when the step carries points.
    pub(crate) fn tune(&self, parameters: &mut IntegrationParameters) {
        if self.active {
            parameters.num_solver_iterations = 1;
            parameters.num_internal_pgs_iterations = parameters.num_internal_pgs_iterations.max(HOSTED_PGS_ITERATIONS);
        }
    }

    /// Sets up the joints and pushes of `points` for a step of `dt` (module docs); `forced` collects the rigid bodies that received a push (reset at the next
    /// step).
    pub(crate) fn apply(
        &mut self,
        world: &mut BuiltWorld,
        scene: &Scene,
        points: &[CompliantPoint],
        dt: f64,
        forced: &mut Vec<RigidBodyHandle>,
    ) -> Result<Vec<Applied>, StepError> {
        for p in &mut self.pool {
            p.used = false;
        }
        self.active = !points.is_empty();
        let mut applied = Vec::with_capacity(points.len());
        for point in points {
            applied.push(self.apply_point(world, scene, point, dt, forced)?);
        }
        for p in self.pool.iter().filter(|p| !p.used) {
            if let Some(joint) = world.physics.impulse_joints.get_mut(p.handle, false) {
                joint.data.motor_axes = JointAxesMask::empty();
                joint.data.set_enabled(false);
            }
        }
        Ok(applied)
    }

    fn apply_point(
        &mut self,
        world: &mut BuiltWorld,
        scene: &Scene,
        point: &CompliantPoint,
        dt: f64,
        forced: &mut Vec<RigidBodyHandle>,
    ) -> Result<Applied, StepError> {
        if let Some(why) = point.invalid(dt) {
            return Err(StepError::InvalidCommand { what: why });
        }
        let invalid = |what: &str| StepError::InvalidCommand {
            what: format!("a compliant point between {:?} and {:?} {what}", point.a, point.b),
        };
        let normal = point
            .normal
            .try_normalize(1e-12)
            .ok_or_else(|| invalid("has a zero normal"))?;
        let (Some(body_a), Some(body_b)) = (body_of(world, point.a), body_of(world, point.b)) else {
            return Err(invalid("names a link the scene does not have"));
        };
        let velocity = |h: RigidBodyHandle| {
            world.physics.bodies.get(h).map_or(Vector3::zeros(), |rb| {
                convert::vector3(rb.velocity_at_point(convert::vector(&point.point)))
            })
        };
        let relative = velocity(body_b) - velocity(body_a);
        let f_n = point.force.dot(&normal);
        let f_t = point.force - normal * f_n;
        let axes = frame(&normal, &[f_t, -relative]);
        let friction = point.friction * f_n.max(0.0);
        let moving = |h: RigidBodyHandle| world.physics.bodies.get(h).is_some_and(|rb| rb.is_dynamic());
        if body_a == body_b || !(moving(body_a) || moving(body_b)) {
            // Inside one rigid body, or between two immovable ones: nothing to integrate.
            let t = f_t.norm();
            let scale = if t > friction { friction / t } else { 1.0 };
            return Ok(Applied {
                joint: None,
                friction: point.friction,
                frame: axes,
                push: 0.0,
                fallback: normal * f_n.max(0.0) + f_t * scale,
            });
        }
        // The push: the lighter side's whole mass bounds the force that stops the approach within
        // the step and carries that side's weight (module docs).
        let mass = mass_bound(world, scene, point.a).min(mass_bound(world, scene, point.b));
        let v_n = relative.dot(&normal);
        let damper = point.normal_stiffness * dt + point.damping;
        let (stop, weight) = if mass.is_finite() {
            (damper.min(mass / dt), mass * scene.gravity.norm())
        } else {
            (damper, 0.0)
        };
        let push = f_n.max(0.0) + stop * (-v_n).max(0.0) + weight + PUSH_FLOOR;
        // The motor forces at the start of the step, their stiffnesses and bounds.
        let start = [f_n - push, f_t.dot(&axes[1]), f_t.dot(&axes[2])];
        let stiffness = [
            point.normal_stiffness,
            point.tangential_stiffness,
            point.tangential_stiffness,
        ];
        let bounds = [push, friction, friction];

        let handle = self.joint_for(world, (body_a, body_b));
        let pose_of = |h: RigidBodyHandle| world.physics.bodies.get(h).map(|rb| convert::isometry(rb.position()));
        let (Some(pose_a), Some(pose_b)) = (pose_of(body_a), pose_of(body_b)) else {
            return Err(StepError::Internal {
                engine: "rapier",
                what: "a compliant point's rigid body vanished".to_owned(),
            });
        };
        let rotation =
            UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(Matrix3::from_columns(&axes)));
        let world_frame = Isometry3::from_parts(point.point.into(), rotation);
        let joint = world
            .physics
            .impulse_joints
            .get_mut(handle, true)
            .ok_or_else(|| StepError::Internal {
                engine: "rapier",
                what: "a pooled joint vanished".to_owned(),
            })?;
        let data = &mut joint.data;
        data.set_enabled(true);
        data.set_contacts_enabled(true);
        data.set_local_frame1(convert::pose(&(pose_a.inverse() * world_frame)));
        data.set_local_frame2(convert::pose(&(pose_b.inverse() * world_frame)));
        for (d, axis) in AXES.into_iter().enumerate() {
            let c = stiffness[d] * dt + point.damping;
            data.set_motor_model(axis, MotorModel::ForceBased)
                .set_motor(axis, 0.0, start[d] / c, 0.0, c)
                .set_motor_max_force(axis, bounds[d]);
            data.motors[axis as usize].impulse = 0.0;
        }
        let push_force = convert::vector(&(normal * push));
        let at = convert::vector(&point.point);
        for (h, sign) in [(body_b, 1.0), (body_a, -1.0)] {
            if let Some(rb) = world.physics.bodies.get_mut(h).filter(|rb| rb.is_dynamic()) {
                rb.add_force_at_point(push_force * sign, at, true);
                forced.push(h);
            }
        }
        Ok(Applied {
            joint: Some(handle),
            friction: point.friction,
            frame: axes,
            push,
            fallback: Vector3::zeros(),
        })
    }
}

/// The force on `b` of every applied point after the step, from the motor impulses of the (last)
/// substep of length `substep` (module docs).
pub(crate) fn applied_forces(world: &BuiltWorld, applied: &[Applied], substep: f64) -> Vec<Vector3<f64>> {
    applied
        .iter()
        .map(|a| {
            let Some(joint) = a.joint.and_then(|h| world.physics.impulse_joints.get(h)) else {
                return a.fallback;
            };
            let m = &joint.data.motors;
            a.frame[0] * a.push
                - (a.frame[0] * m[0].impulse + a.frame[1] * m[1].impulse + a.frame[2] * m[2].impulse) / substep
        })
        .collect()
}

/// The normal force on `b` of every applied point after the step (module docs), N.
pub(crate) fn normal_forces(world: &BuiltWorld, applied: &[Applied], substep: f64) -> Vec<f64> {
    applied_forces(world, applied, substep)
        .iter()
        .zip(applied)
        .map(|(force, a)| force.dot(&a.frame[0]))
        .collect()
}

/// Bounds each applied point's tangential motors by `μ max(f_n, 0)` with `f_n` its entry of
/// `normal` (the normal force a first solve of the step gave it; module docs, *Friction*).
pub(crate) fn bound_friction(world: &mut BuiltWorld, applied: &[Applied], normal: &[f64]) {
    for (a, &f_n) in applied.iter().zip(normal) {
        let Some(joint) = a.joint.and_then(|h| world.physics.impulse_joints.get_mut(h, false)) else {
            continue;
        };
        let bound = a.friction * f_n.max(0.0);
        for axis in [JointAxis::LinY, JointAxis::LinZ] {
            joint.data.set_motor_max_force(axis, bound);
        }
    }
}

impl ContactHost for RapierEngine {
    /// The scene's flag: a multibody's self-contacts are on exactly when it is set.
    fn self_collides(&self, body: usize) -> bool {
        self.scene().bodies.get(body).is_some_and(|b| b.self_collision)
    }

    /// The listed links' colliders get the pair filter; the pairs are dropped from now on.
    fn exclude_pairs(&mut self, pairs: &[(LinkRef, LinkRef)]) {
        for &(a, b) in pairs {
            self.excluded.insert((a, b));
            self.excluded.insert((b, a));
        }
        let listed: Vec<LinkRef> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
        for (_, collider) in self.world_mut().physics.colliders.iter_mut() {
            if listed.contains(&decode_link(collider.user_data)) {
                collider.set_active_hooks(collider.active_hooks() | ActiveHooks::FILTER_CONTACT_PAIRS);
            }
        }
    }

    fn step_with(&mut self, dt: f64, commands: &Commands, extension: &HostedContacts) -> Result<HostedStep, StepError> {
        let scene = Arc::clone(self.scene());
        extension.check_links(&scene)?;
        // Wrenches on links that do not move under forces act on the world (module docs).
        let movable = HostedContacts {
            points: Vec::new(),
            wrenches: extension
                .wrenches
                .iter()
                .filter(|w| self.moves_freely(w.link))
                .copied()
                .collect(),
        };
        let merged = movable.merged_commands(commands, &scene);
        let (report, point_forces) = self.advance(dt, &merged, &extension.points)?;
        Ok(HostedStep { report, point_forces })
    }
}

impl HostFactory for crate::RapierFactory {
    fn host_name(&self) -> &'static str {
        "rapier"
    }

    fn coupling(&self) -> &'static str {
        "implicit: compliant points are joint-motor dashpots in rapier's solver (one substep, 16 sweeps; each step solved twice, the friction box of the second bounded by the first's normal forces)"
    }

    fn build_host(&self, scene: &Arc<Scene>, options: &EngineOptions) -> Result<Box<dyn ContactHost>, BuildError> {
        Ok(Box::new(crate::build_engine(scene, options)?))
    }
}
