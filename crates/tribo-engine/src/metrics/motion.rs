//! Metrics of where links go: displacement, relative slip, tilt, falling, holding.

use nalgebra::{UnitQuaternion, Vector3};
use tribo_scene::{Axis, LinkRef, Reduce, Scene, Window};

use super::{MetricProbe, MetricValue};
use crate::{ContactRecord, SceneState};

fn position(state: &SceneState, link: LinkRef) -> Vector3<f64> {
    state.bodies[link.body].links[link.link].pose.translation.vector
}

fn rotation(state: &SceneState, link: LinkRef) -> UnitQuaternion<f64> {
    state.bodies[link.body].links[link.link].pose.rotation
}

/// The measure of a vector along an axis: a component, the norm or the horizontal norm.
pub fn measure(v: &Vector3<f64>, axis: Axis) -> f64 {
    match axis {
        Axis::X => v.x,
        Axis::Y => v.y,
        Axis::Z => v.z,
        Axis::Norm => v.norm(),
        Axis::Horizontal => v.xy().norm(),
    }
}

/// Displacement of a link over a window, or (with a reference link) of its position relative to
/// the reference: `measure(p(t_end) − p(t_start))`, reported as a magnitude for components.
pub struct Displacement {
    link: LinkRef,
    reference: Option<LinkRef>,
    window: Window,
    axis: Axis,
    first: Option<Vector3<f64>>,
    last: Option<Vector3<f64>>,
}

impl Displacement {
    pub fn new(link: LinkRef, reference: Option<LinkRef>, window: Window, axis: Axis) -> Self {
        Displacement {
            link,
            reference,
            window,
            axis,
            first: None,
            last: None,
        }
    }
}

impl MetricProbe for Displacement {
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, _contacts: &[ContactRecord]) {
        if t < self.window.start - 1e-12 || t > self.window.end + 1e-12 {
            return;
        }
        let mut p = position(state, self.link);
        if let Some(r) = self.reference {
            p -= position(state, r);
        }
        self.first.get_or_insert(p);
        self.last = Some(p);
    }

    fn finish(&self) -> MetricValue {
        match (self.first, self.last) {
            (Some(a), Some(b)) => MetricValue::Number(measure(&(b - a), self.axis).abs()),
            _ => MetricValue::Missing("the run ended before the window".into()),
        }
    }
}

/// Rotation angle of a link relative to its orientation at the window start, degrees.
pub struct Tilt {
    link: LinkRef,
    window: Window,
    reduce: Reduce,
    reference: Option<UnitQuaternion<f64>>,
    max: f64,
    last: f64,
    sum_squares: f64,
    samples: usize,
}

impl Tilt {
    pub fn new(link: LinkRef, window: Window, reduce: Reduce) -> Self {
        Tilt {
            link,
            window,
            reduce,
            reference: None,
            max: 0.0,
            last: 0.0,
            sum_squares: 0.0,
            samples: 0,
        }
    }
}

impl MetricProbe for Tilt {
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, _contacts: &[ContactRecord]) {
        if t < self.window.start - 1e-12 || t > self.window.end + 1e-12 {
            return;
        }
        let r = rotation(state, self.link);
        let reference = *self.reference.get_or_insert(r);
        let angle = reference.angle_to(&r).to_degrees();
        self.max = self.max.max(angle);
        self.last = angle;
        self.sum_squares += angle * angle;
        self.samples += 1;
    }

    fn finish(&self) -> MetricValue {
        if self.reference.is_none() {
            return MetricValue::Missing("the run ended before the window".into());
        }
        MetricValue::Number(match self.reduce {
            Reduce::Max => self.max,
            Reduce::Final => self.last,
            Reduce::Rms => (self.sum_squares / self.samples.max(1) as f64).sqrt(),
        })
    }
}

/// Whether the link origin went below a height.
pub struct Fell {
    link: LinkRef,
    height: f64,
    fell: bool,
}

impl Fell {
    pub fn new(link: LinkRef, height: f64) -> Self {
        Fell {
            link,
            height,
            fell: false,
        }
    }
}

impl MetricProbe for Fell {
    fn observe(&mut self, _t: f64, _scene: &Scene, state: &SceneState, _contacts: &[ContactRecord]) {
        self.fell |= position(state, self.link).z < self.height;
    }

    fn finish(&self) -> MetricValue {
        MetricValue::Bool(self.fell)
    }
}

/// Whether a link stayed within `distance` of where it was relative to a reference link, over a
/// window (an object held by a gripper).
pub struct Held {
    link: LinkRef,
    reference: LinkRef,
    window: Window,
    distance: f64,
    start: Option<Vector3<f64>>,
    worst: f64,
}

impl Held {
    pub fn new(link: LinkRef, reference: LinkRef, window: Window, distance: f64) -> Self {
        Held {
            link,
            reference,
            window,
            distance,
            start: None,
            worst: 0.0,
        }
    }
}

impl MetricProbe for Held {
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, _contacts: &[ContactRecord]) {
        if t < self.window.start - 1e-12 || t > self.window.end + 1e-12 {
            return;
        }
        let rel = position(state, self.link) - position(state, self.reference);
        let start = *self.start.get_or_insert(rel);
        self.worst = self.worst.max((rel - start).norm());
    }

    fn finish(&self) -> MetricValue {
        match self.start {
            Some(_) => MetricValue::Bool(self.worst <= self.distance),
            None => MetricValue::Missing("the run ended before the window".into()),
        }
    }
}
