//! What an engine reports about its bodies after a step.

use nalgebra::{Isometry3, Vector3};

/// The state of every body of the scene, indexed like `Scene::bodies`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneState {
    pub bodies: Vec<BodyState>,
}

/// One body: per-link kinematics and per-link joint coordinates (indexed like `Body::links`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyState {
    pub links: Vec<LinkState>,
    /// Joint position per link index (rad or m); 0 for links without a 1-dof joint.
    pub joint_positions: Vec<f64>,
    /// Joint velocity per link index (rad/s or m/s).
    pub joint_velocities: Vec<f64>,
    /// Joint torque/force actually applied in the last step, per link index (N·m or N), where the
    /// engine knows it.
    pub joint_efforts: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkState {
    /// Pose of the link frame in the world.
    pub pose: Isometry3<f64>,
    /// Velocity of the link frame origin, world frame, m/s.
    pub linear_velocity: Vector3<f64>,
    /// Angular velocity, world frame, rad/s.
    pub angular_velocity: Vector3<f64>,
}

impl Default for LinkState {
    fn default() -> Self {
        LinkState {
            pose: Isometry3::identity(),
            linear_velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        }
    }
}

impl SceneState {
    /// First body/link whose state holds a non-finite number, if any.
    pub fn first_non_finite(&self) -> Option<(usize, usize)> {
        for (b, body) in self.bodies.iter().enumerate() {
            for (l, link) in body.links.iter().enumerate() {
                let finite = link.pose.translation.vector.iter().all(|x| x.is_finite())
                    && link.pose.rotation.coords.iter().all(|x| x.is_finite())
                    && link.linear_velocity.iter().all(|x| x.is_finite())
                    && link.angular_velocity.iter().all(|x| x.is_finite());
                if !finite {
                    return Some((b, l));
                }
            }
        }
        None
    }
}
