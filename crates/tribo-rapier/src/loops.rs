//! Closed kinematic loops (`extra_joints`, docs/design/choreonoid-formats.md §2.8): the tree of a
//! body is a rapier multibody, which cannot hold a loop, so each extra joint becomes an impulse
//! joint between the rigid bodies that carry its two links, as rapier closes loops.
//!
//! The joint frame in each link is the extra joint's frame there turned so that its local X is
//! the joint axis (rapier's revolute and prismatic axes are local X): a hinge leaves rotation about
//! it free, a piston sliding along and rotating about it, a ball every rotation, and a fixed joint
//! nothing; the frames' origins are kept together, as Choreonoid's constraint solver keeps the
//! two joint points together (`ConstraintForceSolver.cpp`).
//!
//! A loop must be closed in the initial pose: joint points more than [`MAX_OPENING`] apart are
//! refused. A loop that starts open is either pulled shut at once by the stiff joint (a jolt no
//! physical machine gives) or cannot close at all — Choreonoid's `DoubleArmV7-Upper.body` hand
//! loops start 6.5 mm apart along their hinge axes, which no joint of that planar tree can move,
//! and the run diverges within a few steps (`ClosedLinkSample.body` starts 40 mm apart the same
//! way). Initial joint positions that close the loop, or joint points that meet, are the fix.

use rapier3d_f64::prelude::{GenericJointBuilder, JointAxesMask, PhysicsWorld};
use tribo_model::{Body, ExtraJointKind};

use crate::convert;
use crate::error::BodyError;
use crate::world_build::{x_to, LinkSlot};

/// The largest distance between an extra joint's two points in the initial pose, m.
pub(crate) const MAX_OPENING: f64 = 1e-3;

fn locked_axes(kind: ExtraJointKind) -> JointAxesMask {
    match kind {
        ExtraJointKind::Fixed => JointAxesMask::LOCKED_FIXED_AXES,
        ExtraJointKind::Hinge => JointAxesMask::LOCKED_REVOLUTE_AXES,
        ExtraJointKind::Ball => JointAxesMask::LOCKED_SPHERICAL_AXES,
        ExtraJointKind::Piston => {
            JointAxesMask::LIN_Y | JointAxesMask::LIN_Z | JointAxesMask::ANG_Y | JointAxesMask::ANG_Z
        }
    }
}

/// One impulse joint per extra joint of `body`, whose links live in `slots`.
pub(crate) fn close_loops(physics: &mut PhysicsWorld, body: &Body, slots: &[LinkSlot]) -> Result<(), BodyError> {
    for joint in &body.extra_joints {
        let slot = |name: &str| {
            body.links
                .iter()
                .position(|l| l.name == name)
                .and_then(|i| slots.get(i))
                .ok_or_else(|| {
                    BodyError::Internal(format!(
                        "an extra joint names link `{name}`, which the body does not have"
                    ))
                })
        };
        let (a, b) = (slot(&joint.links[0])?, slot(&joint.links[1])?);
        if a.body == b.body {
            return Err(BodyError::LoopInOneRigidBody {
                links: joint.links.clone(),
            });
        }
        let x_to_axis = x_to(&joint.axis);
        let frame1 = a.link_in_body * joint.frames[0] * x_to_axis;
        let frame2 = b.link_in_body * joint.frames[1] * x_to_axis;
        let world = |handle| {
            physics
                .bodies
                .get(handle)
                .map(|b| convert::isometry(b.position()))
                .ok_or_else(|| BodyError::Internal(format!("the body of link `{}` is missing", joint.links[0])))
        };
        let opening =
            ((world(a.body)? * frame1).translation.vector - (world(b.body)? * frame2).translation.vector).norm();
        if opening > MAX_OPENING {
            return Err(BodyError::OpenLoop {
                links: joint.links.clone(),
                opening,
                at: joint.location.to_string(),
            });
        }
        let generic = GenericJointBuilder::new(locked_axes(joint.kind))
            .local_frame1(convert::pose(&frame1))
            .local_frame2(convert::pose(&frame2))
            .contacts_enabled(false)
            .build();
        physics.impulse_joints.insert(a.body, b.body, generic, true);
    }
    Ok(())
}
