//! What controllers ask engines to do in a step.

use nalgebra::{Isometry3, Vector3};

/// Commands for every body of the scene (indexed like `Scene::bodies`).
///
/// `clone_from` reuses the target's storage, body by body (`BodyCommands`' own `clone_from`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Commands {
    pub bodies: Vec<BodyCommands>,
}

#[derive(Debug, Default, PartialEq)]
pub struct BodyCommands {
    /// Per link index: what drives that link's joint this step.
    pub joints: Vec<JointCommand>,
    /// For a fixed-root body moved kinematically: the root pose to reach at the end of the step,
    /// and the root's velocity during the step (world frame).
    pub root_target: Option<KinematicTarget>,
    /// External wrenches on links for this step (world frame, applied at the link origin).
    pub link_wrenches: Vec<LinkWrench>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum JointCommand {
    /// Passive joint.
    #[default]
    None,
    /// Apply this torque (N·m) or force (N).
    Effort(f64),
    /// Track a position with a PD law `u = kp (q_ref − q) + kd (v_ref − v) + feedforward`.
    /// Engines may evaluate it implicitly (stable at high gains); `kp`, `kd` in SI.
    Pd {
        q_ref: f64,
        v_ref: f64,
        kp: f64,
        kd: f64,
        feedforward: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KinematicTarget {
    pub pose: Isometry3<f64>,
    pub linear_velocity: Vector3<f64>,
    pub angular_velocity: Vector3<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkWrench {
    pub link: usize,
    /// N, world frame.
    pub force: Vector3<f64>,
    /// N·m, world frame, about the link origin.
    pub torque: Vector3<f64>,
}

impl Clone for BodyCommands {
    fn clone(&self) -> Self {
        BodyCommands {
            joints: self.joints.clone(),
            root_target: self.root_target,
            link_wrenches: self.link_wrenches.clone(),
        }
    }

    /// A copy into `self`'s lists, reusing their storage.
    fn clone_from(&mut self, source: &Self) {
        self.joints.clone_from(&source.joints);
        self.root_target = source.root_target;
        self.link_wrenches.clone_from(&source.link_wrenches);
    }
}

impl BodyCommands {
    /// No command for a body of `links` links, keeping the lists' storage.
    pub fn make_idle(&mut self, links: usize) {
        self.joints.clear();
        self.joints.resize(links, JointCommand::None);
        self.root_target = None;
        self.link_wrenches.clear();
    }
}

impl Commands {
    /// No commands for a scene whose bodies have these link counts.
    pub fn idle(link_counts: impl IntoIterator<Item = usize>) -> Self {
        Commands {
            bodies: link_counts
                .into_iter()
                .map(|n| BodyCommands {
                    joints: vec![JointCommand::None; n],
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Back to idle, keeping the allocations.
    pub fn clear(&mut self) {
        for body in &mut self.bodies {
            body.joints.iter_mut().for_each(|j| *j = JointCommand::None);
            body.root_target = None;
            body.link_wrenches.clear();
        }
    }
}
