//! Move a fixed-root body along waypoints or a velocity profile.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_scene::{KinematicPathSpec, PathSpec, VelocitySegment, Waypoint};

use crate::{Commands, Control, ControlInput, Controller, KinematicTarget};

pub struct KinematicPathController {
    spec: KinematicPathSpec,
    /// The pose the path starts from (velocity profiles integrate from it).
    start: Isometry3<f64>,
}

impl KinematicPathController {
    pub fn new(spec: KinematicPathSpec) -> Self {
        KinematicPathController {
            spec,
            start: Isometry3::identity(),
        }
    }

    /// Pose and velocity of the root at time `t`.
    fn at(&self, t: f64) -> (Isometry3<f64>, Vector3<f64>, Vector3<f64>) {
        match &self.spec.path {
            PathSpec::Waypoints(points) => waypoint_pose(points, t),
            PathSpec::Velocities(segments) => velocity_pose(&self.start, segments, t),
        }
    }
}

impl Controller for KinematicPathController {
    fn name(&self) -> String {
        "kinematic_path".to_string()
    }

    fn initialize(&mut self, input: &ControlInput) -> Result<(), String> {
        self.start = input.scene.bodies[self.spec.body].root_pose;
        Ok(())
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control {
        // The target is where the root must be at the end of the coming step.
        let (pose, _, _) = self.at(input.time + input.dt);
        let (now, _, _) = self.at(input.time);
        let linear_velocity = (pose.translation.vector - now.translation.vector) / input.dt;
        let angular_velocity = (pose.rotation * now.rotation.inverse()).scaled_axis() / input.dt;
        commands.bodies[self.spec.body].root_target = Some(KinematicTarget {
            pose,
            linear_velocity,
            angular_velocity,
        });
        Control::Continue
    }
}

/// Linear interpolation of positions, slerp of rotations; held outside the waypoints' times.
fn waypoint_pose(points: &[Waypoint], t: f64) -> (Isometry3<f64>, Vector3<f64>, Vector3<f64>) {
    let pose = |w: &Waypoint| Isometry3::from_parts(Translation3::from(w.translation), w.rotation);
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return (Isometry3::identity(), Vector3::zeros(), Vector3::zeros());
    };
    if t <= first.time {
        return (pose(first), Vector3::zeros(), Vector3::zeros());
    }
    if t >= last.time {
        return (pose(last), Vector3::zeros(), Vector3::zeros());
    }
    let i = points.windows(2).position(|w| t < w[1].time).unwrap_or(0);
    let (a, b) = (&points[i], &points[i + 1]);
    let span = b.time - a.time;
    let s = (t - a.time) / span;
    let translation = a.translation.lerp(&b.translation, s);
    let rotation = a.rotation.slerp(&b.rotation, s);
    let linear = (b.translation - a.translation) / span;
    let angular = (b.rotation * a.rotation.inverse()).scaled_axis() / span;
    (
        Isometry3::from_parts(Translation3::from(translation), rotation),
        linear,
        angular,
    )
}

/// Integrate piecewise-constant velocities from `start` (exact for constant velocity in each
/// window: translation grows linearly, rotation by exp of the angular displacement).
fn velocity_pose(
    start: &Isometry3<f64>,
    segments: &[VelocitySegment],
    t: f64,
) -> (Isometry3<f64>, Vector3<f64>, Vector3<f64>) {
    let mut translation = start.translation.vector;
    let mut rotation = start.rotation;
    let (mut linear, mut angular) = (Vector3::zeros(), Vector3::zeros());
    for s in segments {
        let active = (t.min(s.end) - s.start).max(0.0);
        translation += s.linear * active;
        rotation = UnitQuaternion::from_scaled_axis(s.angular * active) * rotation;
        if t >= s.start && t < s.end {
            linear += s.linear;
            angular += s.angular;
        }
    }
    (
        Isometry3::from_parts(Translation3::from(translation), rotation),
        linear,
        angular,
    )
}
