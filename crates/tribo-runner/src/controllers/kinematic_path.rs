//! Move a fixed-root body along waypoints (linear, cubic or minimum-jerk interpolation) or a
//! velocity profile.

mod interpolation;

use nalgebra::{Isometry3, Translation3, UnitQuaternion};
use tribo_scene::{KinematicPathSpec, PathSpec, VelocitySegment, Waypoint};

use crate::{Commands, Control, ControlInput, Controller, KinematicTarget};
use interpolation::{piecewise, CubicPath, Progress};

/// The spec's path, ready to evaluate.
enum Path {
    Piecewise(Vec<Waypoint>, Progress),
    Cubic(Box<CubicPath>),
    Velocities(Vec<VelocitySegment>),
}

pub struct KinematicPathController {
    body: usize,
    path: Path,
    /// The pose the path starts from (velocity profiles integrate from it).
    start: Isometry3<f64>,
}

impl KinematicPathController {
    pub fn new(spec: KinematicPathSpec) -> Self {
        let path = match spec.path {
            PathSpec::Waypoints(points) => Path::Piecewise(points, Progress::Linear),
            PathSpec::MinimumJerkWaypoints(points) => Path::Piecewise(points, Progress::MinimumJerk),
            PathSpec::CubicWaypoints(points) => Path::Cubic(Box::new(CubicPath::new(&points))),
            PathSpec::Velocities(segments) => Path::Velocities(segments),
        };
        KinematicPathController {
            body: spec.body,
            path,
            start: Isometry3::identity(),
        }
    }

    /// The controller of `spec` for a body whose root starts at `start` (what
    /// [`Controller::initialize`] takes from the scene): its path can then be read with
    /// [`Self::pose_at`] without a run (`tribo-bench describe` samples it for other simulators).
    pub fn starting_at(spec: KinematicPathSpec, start: Isometry3<f64>) -> Self {
        KinematicPathController {
            start,
            ..Self::new(spec)
        }
    }

    /// Pose of the root at time `t`.
    pub fn pose_at(&self, t: f64) -> Isometry3<f64> {
        match &self.path {
            Path::Piecewise(points, progress) => piecewise(points, *progress, t),
            Path::Cubic(path) => path.pose(t),
            Path::Velocities(segments) => velocity_pose(&self.start, segments, t),
        }
    }
}

impl Controller for KinematicPathController {
    fn name(&self) -> String {
        "kinematic_path".to_string()
    }

    fn initialize(&mut self, input: &ControlInput) -> Result<(), String> {
        self.start = input.scene.bodies[self.body].root_pose;
        Ok(())
    }

    fn control(&mut self, input: &ControlInput, commands: &mut Commands) -> Control {
        // The target is where the root must be at the end of the coming step; the velocities
        // are the step's mean, so the engine lands on it.
        let pose = self.pose_at(input.time + input.dt);
        let now = self.pose_at(input.time);
        let linear_velocity = (pose.translation.vector - now.translation.vector) / input.dt;
        let angular_velocity = (pose.rotation * now.rotation.inverse()).scaled_axis() / input.dt;
        commands.bodies[self.body].root_target = Some(KinematicTarget {
            pose,
            linear_velocity,
            angular_velocity,
        });
        Control::Continue
    }
}

/// Integrate piecewise-constant velocities from `start` (exact for constant velocity in each
/// window: translation grows linearly, rotation by exp of the angular displacement).
fn velocity_pose(start: &Isometry3<f64>, segments: &[VelocitySegment], t: f64) -> Isometry3<f64> {
    let mut translation = start.translation.vector;
    let mut rotation = start.rotation;
    for s in segments {
        let active = (t.min(s.end) - s.start).max(0.0);
        translation += s.linear * active;
        rotation = UnitQuaternion::from_scaled_axis(s.angular * active) * rotation;
    }
    Isometry3::from_parts(Translation3::from(translation), rotation)
}
