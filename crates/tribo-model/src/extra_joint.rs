//! Joints that close kinematic loops (`extra_joints` in a `.body` file; Choreonoid's
//! `ExtraJoint`, read by StdBodyLoader `readExtraJoint`): a constraint between two links that are
//! already connected through the tree, such as the coupler of a four-bar linkage or a gripper's
//! finger tips.

use nalgebra::{Isometry3, Vector3};
use tribo_yaml::Location;

/// The constraint an extra joint makes between its two frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtraJointKind {
    /// The two frames are welded.
    Fixed,
    /// The frames share their origin and the axis; rotation about the axis is free.
    Hinge,
    /// The frames share their origin.
    Ball,
    /// The frames share the axis line; sliding along it and rotating about it are free.
    Piston,
}

impl ExtraJointKind {
    /// The name written in `.body` files.
    pub fn name(self) -> &'static str {
        match self {
            ExtraJointKind::Fixed => "fixed",
            ExtraJointKind::Hinge => "hinge",
            ExtraJointKind::Ball => "ball",
            ExtraJointKind::Piston => "piston",
        }
    }
}

/// A loop-closing joint between links `links[0]` and `links[1]` of the same body.
#[derive(Debug, Clone)]
pub struct ExtraJoint {
    pub kind: ExtraJointKind,
    /// The two link names.
    pub links: [String; 2],
    /// The joint frame in each link's frame (`translation_in_link1`/`link1LocalPos`,
    /// `rotation_in_link1`, and the same for link 2).
    pub frames: [Isometry3<f64>; 2],
    /// The hinge or piston axis in the joint frame (`axis`/`jointAxis`, normalised; +X when
    /// absent, as in Choreonoid): in link i it is `frames[i].rotation * axis`.
    pub axis: Vector3<f64>,
    /// Where the joint is written.
    pub location: Location,
}

/// `Ok` when `body` closes no loop; else an error at its first extra joint saying that `engine`
/// has no loop-closure constraints (without them the tree is another mechanism: a four-bar
/// linkage would fall apart into two pendulums).
pub fn refuse_closed_loops(body: &crate::Body, engine: &str) -> Result<(), tribo_yaml::Diagnostic> {
    let Some(joint) = body.extra_joints.first() else {
        return Ok(());
    };
    let more = match body.extra_joints.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Err(tribo_yaml::Diagnostic::error(
        joint.location.clone(),
        format!(
            "body `{}` closes a kinematic loop: the extra {} joint between links `{}` and `{}`{more}; the `{engine}` \
             engine has no loop-closure constraints, and without it the body would be a different mechanism \
             (the `rapier` engine closes such loops)",
            body.name,
            joint.kind.name(),
            joint.links[0],
            joint.links[1],
        ),
    ))
}
