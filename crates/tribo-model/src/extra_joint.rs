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
    /// The hinge or piston axis as written (`axis`/`jointAxis`, normalised; +Z when absent).
    pub axis: Vector3<f64>,
    /// Where the joint is written.
    pub location: Location,
}
