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
//!   applied by this engine.
//! - `link_wrenches`: a force at the link origin and a torque, for this step only (rapier keeps
//!   user forces until they are reset, so every step starts by resetting the previous ones).
//! - `root_target`: the first target switches a fixed root to a kinematic, position-based rapier
//!   body; its velocity over the step is inferred by rapier from the two poses (the target's
//!   velocity fields are not needed).

use nalgebra::{Isometry3, Vector3};
use rapier3d_f64::prelude::{JointAxesMask, MotorModel, RigidBodyHandle, RigidBodyType};
use tribo_engine::{BodyCommands, Commands, JointCommand, StepError};
use tribo_scene::Scene;

use crate::convert;
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

/// Applies `commands`; returns the effort law of every link (per body, per link) and warnings.
/// `forced` lists the rigid bodies that received user forces: they are reset first and refilled.
pub(crate) fn apply_commands(
    world: &mut BuiltWorld,
    scene: &Scene,
    commands: &Commands,
    forced: &mut Vec<RigidBodyHandle>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec<EffortLaw>>, StepError> {
    if commands.bodies.len() > scene.bodies.len() {
        return Err(StepError::Other(format!(
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
    let mut laws = Vec::with_capacity(scene.bodies.len());
    for (b, scene_body) in scene.bodies.iter().enumerate() {
        let body_commands = commands.bodies.get(b).unwrap_or(&idle);
        let name = &scene_body.name;
        if let Some(target) = &body_commands.root_target {
            move_root(world, b, &target.pose).map_err(|e| StepError::Other(format!("body `{name}`: {e}")))?;
        }
        let links = &scene_body.model.links;
        if body_commands.joints.len() > links.len() {
            return Err(StepError::Other(format!(
                "body `{name}`: {} joint commands for {} links",
                body_commands.joints.len(),
                links.len()
            )));
        }
        let mut body_laws = Vec::with_capacity(links.len());
        for (l, link) in links.iter().enumerate() {
            let command = body_commands.joints.get(l).copied().unwrap_or_default();
            let joint = world.bodies.get(b).and_then(|s| s.links.get(l)).and_then(|s| s.joint);
            let law = match joint {
                Some(joint) => drive_joint(world, &joint, l, b, command, forced),
                None if command == JointCommand::None => Ok(EffortLaw::Known(0.0)),
                None => Err(format!(
                    "link `{}` has no revolute or prismatic joint to drive",
                    link.name
                )),
            }
            .map_err(|e| StepError::Other(format!("body `{name}`: {e}")))?;
            body_laws.push(law);
        }
        for wrench in &body_commands.link_wrenches {
            let link_name = links.get(wrench.link).map(|l| l.name.as_str()).unwrap_or("?");
            if !wrench.force.iter().chain(wrench.torque.iter()).all(|x| x.is_finite()) {
                return Err(StepError::Other(format!(
                    "body `{name}`: non-finite wrench on link `{link_name}`"
                )));
            }
            let slot = world
                .bodies
                .get(b)
                .and_then(|s| s.links.get(wrench.link))
                .ok_or_else(|| {
                    StepError::Other(format!(
                        "body `{name}`: wrench on link {} but it has {} links",
                        wrench.link,
                        links.len()
                    ))
                })?;
            let (handle, link_in_body) = (slot.body, slot.link_in_body);
            let Some(rb) = world.physics.bodies.get_mut(handle) else {
                continue;
            };
            if !rb.is_dynamic() {
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
        laws.push(body_laws);
    }
    Ok(laws)
}

/// Moves a fixed root kinematically to `link_pose` by the end of the step.
fn move_root(world: &mut BuiltWorld, body: usize, link_pose: &Isometry3<f64>) -> Result<(), String> {
    let finite = link_pose
        .translation
        .vector
        .iter()
        .chain(link_pose.rotation.coords.iter())
        .all(|x| x.is_finite());
    if !finite {
        return Err("non-finite root target".to_owned());
    }
    let slots = world.bodies.get_mut(body).ok_or("no such body")?;
    let Some(root_slot) = slots.links.first() else {
        return Err("no root link".to_owned());
    };
    let body_pose = link_pose * root_slot.link_in_body.inverse();
    let rb = world.physics.bodies.get_mut(slots.root).ok_or("root body vanished")?;
    match slots.root_type {
        RootType::Dynamic => return Err("a root target needs a fixed root, but this root is free".to_owned()),
        RootType::Fixed => {
            rb.set_body_type(RigidBodyType::KinematicPositionBased, true);
            slots.root_type = RootType::Kinematic;
        }
        RootType::Kinematic => {}
    }
    rb.set_next_kinematic_position(convert::pose(&body_pose));
    Ok(())
}

fn drive_joint(
    world: &mut BuiltWorld,
    joint: &JointSlot,
    link: usize,
    body: usize,
    command: JointCommand,
    forced: &mut Vec<RigidBodyHandle>,
) -> Result<EffortLaw, String> {
    let axis = joint.kind.axis();
    let (multibody, id) = world
        .physics
        .multibody_joints
        .get_mut(joint.handle)
        .ok_or("joint vanished")?;
    let data = &mut multibody.link_mut(id).ok_or("joint link vanished")?.joint.data;
    let law = match command {
        JointCommand::None => {
            data.motor_axes.remove(JointAxesMask::from(axis));
            EffortLaw::Known(0.0)
        }
        JointCommand::Effort(effort) => {
            check_finite(&[effort], "effort")?;
            data.motor_axes.remove(JointAxesMask::from(axis));
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
                return Err(format!("negative PD gains (kp = {kp}, kd = {kd})"));
            }
            if kp > 0.0 || kd > 0.0 {
                data.set_motor_model(axis, MotorModel::ForceBased)
                    .set_motor(axis, q_ref, v_ref, kp, kd);
            } else {
                data.motor_axes.remove(JointAxesMask::from(axis));
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
    let effort = match law {
        EffortLaw::Known(effort) => effort,
        EffortLaw::Pd { feedforward, .. } => feedforward,
    };
    if effort != 0.0 {
        let child = world
            .bodies
            .get(body)
            .and_then(|s| s.links.get(link))
            .map(|s| (s.body, s.link_in_body));
        if let Some((child_body, link_in_body)) = child {
            apply_effort(world, joint, child_body, &link_in_body, effort, forced);
        }
    }
    Ok(law)
}

/// The internal force pair of a joint effort (see the module docs).
fn apply_effort(
    world: &mut BuiltWorld,
    joint: &JointSlot,
    child_body: RigidBodyHandle,
    link_in_body: &Isometry3<f64>,
    effort: f64,
    forced: &mut Vec<RigidBodyHandle>,
) {
    let bodies = &mut world.physics.bodies;
    let Some(child_pose) = bodies.get(child_body).map(|rb| convert::isometry(rb.position())) else {
        return;
    };
    let axis_world: Vector3<f64> = child_pose.rotation * joint.axis_in_body;
    let joint_origin = (child_pose * link_in_body).translation.vector;
    for (handle, sign) in [(child_body, 1.0), (joint.parent_body, -1.0)] {
        let Some(rb) = bodies.get_mut(handle) else { continue };
        if !rb.is_dynamic() {
            continue;
        }
        let action = convert::vector(&(axis_world * (sign * effort)));
        match joint.kind {
            DofKind::Revolute => rb.add_torque(action, true),
            DofKind::Prismatic => rb.add_force_at_point(action, convert::vector(&joint_origin), true),
        }
        forced.push(handle);
    }
}

fn check_finite(values: &[f64], what: &str) -> Result<(), String> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(format!("non-finite {what} {values:?}"))
    }
}
