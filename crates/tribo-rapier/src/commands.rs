//! Applying a step's [`Commands`] to the rapier world.
//!
//! - `Effort(τ)` on a 1-dof joint: an internal force pair, `+τ·a` on the child link and `−τ·a` on
//!   the parent (torques for a revolute joint; forces along the axis through the child link's
//!   origin for a prismatic joint). rapier projects link forces on multibodies through the link
//!   Jacobians (`Multibody::update_acceleration`, generalised force Jᵀf); for a pair of equal and
//!   opposite wrenches on the same line of action the projection is exactly τ on that joint's
//!   coordinate and zero on every other.
//! - `Pd { q_ref, v_ref, kp, kd, feedforward }`: rapier's multibody joint motor with the
//!   force-based model (gains in N·m/rad and N·m·s/rad, or N/m and N·s/m). The motor is an implicit
//!   spring-damper solved with the joint's effective inertia, stable at high gains; the feedforward
//!   is added as an effort. Zero gains leave the feedforward only (a motor with kp = kd = 0 would
//!   lock the joint's velocity in rapier). The motor is unclamped: the model's effort limit is not
//!   applied by this engine. In a body whose root is driven by `root_target` (below) the same law
//!   is the joint's implicit spring (stiffness kp, rest q_ref) and damping (kd, on top of the
//!   `joint_damping` option) of rapier's generalised dynamics, plus the effort kd v_ref +
//!   feedforward: rapier 0.36 builds a motor's constraint with the multibody's reduced inverse
//!   mass but full-length vectors, which panics once any degree of freedom is kinematic.
//! - `link_wrenches`: a force at the link origin and a torque, for this step only (rapier keeps
//!   user forces until they are reset, so every step starts by resetting the previous ones).
//! - `root_target`: the root must be at the target pose at the end of the step, moving over the
//!   step at the constant velocity that takes it there (for `kinematic_path` this is the target's
//!   own velocity; the velocity fields are not read, so the pose is always reached). The first
//!   target turns a fixed root into a driven one:
//!   - a single rigid body becomes a kinematic, position-based rapier body; rapier infers its
//!     velocity from the two poses;
//!   - the root of an articulated body (a rapier multibody) becomes a *floating* root whose six
//!     degrees of freedom are kinematic (`MultibodyJoint::kinematic`): their velocities are set
//!     here every step and integrated by rapier, and the solver never changes them. The links
//!     follow through their joints within the step, and contacts see the root's velocity through
//!     the link Jacobians. (rapier gives a multibody whose root body is not dynamic a welded root
//!     re-read from the body pose at the start of every step, and overwrites the body's next
//!     kinematic position with it, so a kinematic rapier body cannot move a multibody.) A step
//!     without a target holds the root where it is.

use nalgebra::{Isometry3, Vector3};
use rapier3d_f64::prelude::{JointAxesMask, MotorModel, PhysicsWorld, RigidBodyHandle, RigidBodyType};
use tribo_engine::Scene;
use tribo_engine::{BodyCommands, Commands, JointCommand, StepError};

use crate::convert;
use crate::error::CommandError;
use crate::world_build::{BuiltWorld, DofKind, JointSlot, RootType};

/// What drives a joint this step, kept to report the joint effort after the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum EffortLaw {
    /// A known effort (N·m or N); 0 for passive joints.
    Known(f64),
    /// The PD law of a motor, evaluated on the state after the step.
    Pd {
        q_ref: f64,
        v_ref: f64,
        kp: f64,
        kd: f64,
        feedforward: f64,
    },
}

/// Applies `commands` for a step of `dt` seconds; writes the effort law of every link into `laws`
/// (per body, per link; the vectors' storage is reused) and returns warnings in `warnings`. `forced` lists the rigid bodies that received user forces: they are
/// reset first and refilled.
pub(crate) fn apply_commands(
    world: &mut BuiltWorld,
    scene: &Scene,
    dt: f64,
    commands: &Commands,
    forced: &mut Vec<RigidBodyHandle>,
    warnings: &mut Vec<String>,
    laws: &mut Vec<Vec<EffortLaw>>,
) -> Result<(), StepError> {
    if commands.bodies.len() > scene.bodies.len() {
        return Err(invalid(format!(
            "commands name {} bodies but the scene has {}",
            commands.bodies.len(),
            scene.bodies.len()
        )));
    }
    for handle in forced.drain(..) {
        if let Some(rb) = world.physics.bodies.get_mut(handle) {
            rb.reset_forces(false);
            rb.reset_torques(false);
        }
    }
    let idle = BodyCommands::default();
    laws.resize_with(scene.bodies.len(), Vec::new);
    for ((b, scene_body), body_laws) in scene.bodies.iter().enumerate().zip(laws.iter_mut()) {
        let body_commands = commands.bodies.get(b).unwrap_or(&idle);
        let name = &scene_body.name;
        match &body_commands.root_target {
            Some(target) => move_root(world, b, &target.pose, dt),
            None => hold_root(world, b),
        }
        .map_err(|e| invalid(format!("body `{name}`: {e}")))?;
        let links = &scene_body.model.links;
        if body_commands.joints.len() > links.len() {
            return Err(invalid(format!(
                "body `{name}`: {} joint commands for {} links",
                body_commands.joints.len(),
                links.len()
            )));
        }
        body_laws.clear();
        for (l, link) in links.iter().enumerate() {
            let command = body_commands.joints.get(l).copied().unwrap_or_default();
            let joint = world.bodies.get(b).and_then(|s| s.links.get(l)).and_then(|s| s.joint);
            let law = match joint {
                Some(joint) => drive_joint(world, &joint, l, b, command, forced),
                None if command == JointCommand::None => Ok(EffortLaw::Known(0.0)),
                None => Err(CommandError::NotDriveable {
                    link: link.name.clone(),
                }),
            }
            .map_err(|e| invalid(format!("body `{name}`: {e}")))?;
            body_laws.push(law);
        }
        for wrench in &body_commands.link_wrenches {
            let link_name = links.get(wrench.link).map(|l| l.name.as_str()).unwrap_or("?");
            if !wrench.force.iter().chain(wrench.torque.iter()).all(|x| x.is_finite()) {
                return Err(invalid(format!(
                    "body `{name}`: non-finite wrench on link `{link_name}`"
                )));
            }
            let slot = world
                .bodies
                .get(b)
                .and_then(|s| s.links.get(wrench.link))
                .ok_or_else(|| {
                    invalid(format!(
                        "body `{name}`: wrench on link {} but it has {} links",
                        wrench.link,
                        links.len()
                    ))
                })?;
            let (handle, link_in_body) = (slot.body, slot.link_in_body);
            let free = moves_freely(world, b, handle);
            let Some(rb) = world.physics.bodies.get_mut(handle) else {
                continue;
            };
            if !free {
                warnings.push(format!(
                    "body `{name}`: wrench on link `{link_name}` ignored (the link does not move freely)"
                ));
                continue;
            }
            let origin = (convert::isometry(rb.position()) * link_in_body).translation.vector;
            rb.add_force_at_point(convert::vector(&wrench.force), convert::vector(&origin), true);
            rb.add_torque(convert::vector(&wrench.torque), true);
            forced.push(handle);
        }
    }
    Ok(())
}

/// A command the step cannot apply.
fn invalid(what: String) -> StepError {
    StepError::InvalidCommand { what }
}

/// Whether the rigid body `handle` of scene body `body` moves under forces: dynamic in rapier and
/// not a root driven by targets (whose rapier body is dynamic when it roots a multibody).
pub(crate) fn moves_freely(world: &BuiltWorld, body: usize, handle: RigidBodyHandle) -> bool {
    let driven_root = world
        .bodies
        .get(body)
        .is_some_and(|s| s.root == handle && s.root_type == RootType::Kinematic);
    !driven_root && world.physics.bodies.get(handle).is_some_and(|rb| rb.is_dynamic())
}

/// Moves a fixed root to the link pose `link_pose` by the end of a step of `dt` seconds (see the
/// module docs).
fn move_root(world: &mut BuiltWorld, body: usize, link_pose: &Isometry3<f64>, dt: f64) -> Result<(), CommandError> {
    let finite = link_pose
        .translation
        .vector
        .iter()
        .chain(link_pose.rotation.coords.iter())
        .all(|x| x.is_finite());
    if !finite {
        return Err(CommandError::NonFiniteRootTarget);
    }
    let slots = world.bodies.get_mut(body).ok_or("no such body")?;
    let Some(root_slot) = slots.links.first() else {
        return Err("no root link".into());
    };
    let body_pose = link_pose * root_slot.link_in_body.inverse();
    let root = slots.root;
    let physics = &mut world.physics;
    let articulated = physics.multibody_joints.rigid_body_link(root).is_some();
    match slots.root_type {
        RootType::Dynamic => return Err(CommandError::FreeRoot),
        RootType::Fixed if articulated => drive_multibody_root(physics, root)?,
        RootType::Fixed => physics
            .bodies
            .get_mut(root)
            .ok_or("root body vanished")?
            .set_body_type(RigidBodyType::KinematicPositionBased, true),
        RootType::Kinematic => {}
    }
    slots.root_type = RootType::Kinematic;
    if !articulated {
        let rb = physics.bodies.get_mut(root).ok_or("root body vanished")?;
        rb.set_next_kinematic_position(convert::pose(&body_pose));
        return Ok(());
    }
    // The constant twist of the root body frame that reaches `body_pose` in `dt`: rapier
    // integrates the free root's translation linearly and its rotation as exp(ω h) per substep.
    let current = convert::isometry(physics.bodies.get(root).ok_or("root body vanished")?.position());
    let linear = (body_pose.translation.vector - current.translation.vector) / dt;
    let angular = (body_pose.rotation * current.rotation.inverse()).scaled_axis() / dt;
    set_root_velocity(physics, root, &linear, &angular)
}

/// Keeps a driven root of an articulated body where it is for a step without a target (a
/// kinematic rapier body stays put by itself).
fn hold_root(world: &mut BuiltWorld, body: usize) -> Result<(), CommandError> {
    let Some(slots) = world.bodies.get(body) else {
        return Ok(());
    };
    if slots.root_type != RootType::Kinematic || world.physics.multibody_joints.rigid_body_link(slots.root).is_none() {
        return Ok(());
    }
    set_root_velocity(&mut world.physics, slots.root, &Vector3::zeros(), &Vector3::zeros())
}

/// Turns the welded root of the multibody rooted at `root` into a floating root with kinematic
/// degrees of freedom, at rest where it is.
fn drive_multibody_root(physics: &mut PhysicsWorld, root: RigidBodyHandle) -> Result<(), CommandError> {
    let link = *physics
        .multibody_joints
        .rigid_body_link(root)
        .ok_or("the root is not part of a multibody")?;
    physics
        .bodies
        .get_mut(root)
        .ok_or("root body vanished")?
        .set_body_type(RigidBodyType::Dynamic, true);
    let multibody = physics
        .multibody_joints
        .get_multibody_mut(link.multibody)
        .ok_or("the multibody vanished")?;
    // Replaces the welded root by a free joint at the body's pose (six more degrees of freedom,
    // zero velocity), as rapier would at the start of the next step, so that it can be marked
    // kinematic before the solver sees it.
    multibody.forward_kinematics(&physics.bodies, true);
    if multibody.ndofs() < 6 || multibody.root().joint().ndofs() != 6 {
        return Err("rapier did not give the multibody a floating root".into());
    }
    multibody.root_mut().joint.kinematic = true;
    multibody.update_rigid_bodies(&mut physics.bodies, true);
    Ok(())
}

/// Sets the velocity of the kinematic floating root of the multibody rooted at `root`: the
/// linear velocity of the root body's frame origin and the angular velocity, world frame.
fn set_root_velocity(
    physics: &mut PhysicsWorld,
    root: RigidBodyHandle,
    linear: &Vector3<f64>,
    angular: &Vector3<f64>,
) -> Result<(), CommandError> {
    if !linear.iter().chain(angular.iter()).all(|x| x.is_finite()) {
        return Err(CommandError::NonFiniteRootVelocity);
    }
    let link = *physics
        .multibody_joints
        .rigid_body_link(root)
        .ok_or("the root is not part of a multibody")?;
    let multibody = physics
        .multibody_joints
        .get_multibody_mut(link.multibody)
        .ok_or("the multibody vanished")?;
    let mut velocity = multibody.generalized_velocity_mut();
    if velocity.len() < 6 {
        return Err("the multibody has no floating root".into());
    }
    for k in 0..3 {
        velocity[k] = linear[k];
        velocity[3 + k] = angular[k];
    }
    Ok(())
}

fn drive_joint(
    world: &mut BuiltWorld,
    joint: &JointSlot,
    link: usize,
    body: usize,
    command: JointCommand,
    forced: &mut Vec<RigidBodyHandle>,
) -> Result<EffortLaw, CommandError> {
    let law = match command {
        JointCommand::None => EffortLaw::Known(0.0),
        JointCommand::Effort(effort) => {
            check_finite(&[effort], "effort")?;
            EffortLaw::Known(effort)
        }
        JointCommand::Pd {
            q_ref,
            v_ref,
            kp,
            kd,
            feedforward,
        } => {
            check_finite(&[q_ref, v_ref, kp, kd, feedforward], "PD command")?;
            if kp < 0.0 || kd < 0.0 {
                return Err(CommandError::NegativeGains { kp, kd });
            }
            EffortLaw::Pd {
                q_ref,
                v_ref,
                kp,
                kd,
                feedforward,
            }
        }
    };
    let driven_root = world
        .bodies
        .get(body)
        .is_some_and(|s| s.root_type == RootType::Kinematic);
    let joint_damping = world.joint_damping;
    let axis = joint.kind.axis();
    let (multibody, id) = world
        .physics
        .multibody_joints
        .get_mut(joint.handle)
        .ok_or("joint vanished")?;
    let multibody_link = multibody.link_mut(id).ok_or("joint link vanished")?;
    let dof = multibody_link.assembly_id();
    let mut effort = match law {
        EffortLaw::Known(effort) => effort,
        EffortLaw::Pd { feedforward, .. } => feedforward,
    };
    let motor = match law {
        EffortLaw::Pd {
            q_ref, v_ref, kp, kd, ..
        } if kp > 0.0 || kd > 0.0 => Some((q_ref, v_ref, kp, kd)),
        _ => None,
    };
    if driven_root {
        // rapier 0.36 cannot build a joint motor's constraint in a multibody with kinematic
        // degrees of freedom (see the module docs): the PD law becomes the joint's implicit
        // spring (kp toward q_ref) and damping (kd), with kd v_ref added to the effort.
        multibody_link.joint.data.motor_axes.remove(JointAxesMask::from(axis));
        let (kp, q_ref, kd) = match motor {
            Some((q_ref, v_ref, kp, kd)) => {
                effort += kd * v_ref;
                (kp, q_ref, kd)
            }
            None => (0.0, 0.0, 0.0),
        };
        multibody_link.joint.set_spring(joint.kind.coordinate(), kp, q_ref);
        let damping = multibody.damping_mut();
        if dof >= damping.len() {
            return Err("joint has no degree of freedom in its multibody".into());
        }
        damping[dof] = joint_damping + kd;
    } else {
        let data = &mut multibody_link.joint.data;
        match motor {
            Some((q_ref, v_ref, kp, kd)) => {
                data.set_motor_model(axis, MotorModel::ForceBased)
                    .set_motor(axis, q_ref, v_ref, kp, kd);
            }
            None => {
                data.motor_axes.remove(JointAxesMask::from(axis));
            }
        }
    }
    if effort != 0.0 {
        let child = world
            .bodies
            .get(body)
            .and_then(|s| s.links.get(link))
            .map(|s| (s.body, s.link_in_body));
        if let Some((child_body, link_in_body)) = child {
            apply_effort(world, joint, body, child_body, &link_in_body, effort, forced);
        }
    }
    Ok(law)
}

/// The internal force pair of a joint effort (see the module docs).
fn apply_effort(
    world: &mut BuiltWorld,
    joint: &JointSlot,
    body: usize,
    child_body: RigidBodyHandle,
    link_in_body: &Isometry3<f64>,
    effort: f64,
    forced: &mut Vec<RigidBodyHandle>,
) {
    let Some(child_pose) = world
        .physics
        .bodies
        .get(child_body)
        .map(|rb| convert::isometry(rb.position()))
    else {
        return;
    };
    let axis_world: Vector3<f64> = child_pose.rotation * joint.axis_in_body;
    let joint_origin = (child_pose * link_in_body).translation.vector;
    for (handle, sign) in [(child_body, 1.0), (joint.parent_body, -1.0)] {
        if !moves_freely(world, body, handle) {
            continue;
        }
        let Some(rb) = world.physics.bodies.get_mut(handle) else {
            continue;
        };
        let action = convert::vector(&(axis_world * (sign * effort)));
        match joint.kind {
            DofKind::Revolute => rb.add_torque(action, true),
            DofKind::Prismatic => rb.add_force_at_point(action, convert::vector(&joint_origin), true),
        }
        forced.push(handle);
    }
}

fn check_finite(values: &[f64], what: &'static str) -> Result<(), CommandError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(CommandError::NonFinite {
            what,
            values: values.to_vec(),
        })
    }
}
