//! Metrics of where links go: displacement, relative slip, falling, holding.

use nalgebra::Vector3;
use tribo_scene::{Axis, LinkRef, Scene, Window};

use super::{MetricProbe, MetricValue};
use crate::{LazyContacts, SceneState};

fn position(state: &SceneState, link: LinkRef) -> Vector3<f64> {
    state.bodies[link.body].links[link.link].pose.translation.vector
}

/// The origin of `link` in the frame of `reference`: R_refᵀ (p − p_ref). Motion relative to a
/// reference is motion as seen from it, so a box riding a turntable, or an object in a gripper
/// that turns, has moved only if it moved on the turntable or in the gripper.
fn position_in(state: &SceneState, link: LinkRef, reference: LinkRef) -> Vector3<f64> {
    let frame = &state.bodies[reference.body].links[reference.link].pose;
    frame.rotation.inverse() * (position(state, link) - frame.translation.vector)
}

/// Whether `t` lies in the window (its ends included, to 1e-12 s).
pub(super) fn in_window(window: &Window, t: f64) -> bool {
    t >= window.start - 1e-12 && t <= window.end + 1e-12
}

/// The measure of a vector along an axis: a signed component, a component's magnitude, the norm
/// or the horizontal norm.
pub fn measure(v: &Vector3<f64>, axis: Axis) -> f64 {
    match axis {
        Axis::X => v.x,
        Axis::Y => v.y,
        Axis::Z => v.z,
        Axis::AbsX => v.x.abs(),
        Axis::AbsY => v.y.abs(),
        Axis::AbsZ => v.z.abs(),
        Axis::Norm => v.norm(),
        Axis::Horizontal => v.xy().norm(),
    }
}

/// Displacement of a link over a window, or (with a reference link) of its position relative to
/// the reference: `measure(p(t_end) − p(t_start))` — signed along `x`, `y`, `z`, so a box that
/// sank or a slide that went the other way does not pass a positive expectation.
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

impl Displacement {
    /// One sample of the (relative) position at time `t`.
    fn sample(&mut self, t: f64, p: Vector3<f64>) {
        if !in_window(&self.window, t) {
            return;
        }
        self.first.get_or_insert(p);
        self.last = Some(p);
    }
}

impl MetricProbe for Displacement {
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
        let p = match self.reference {
            Some(r) => position_in(state, self.link, r),
            None => position(state, self.link),
        };
        self.sample(t, p);
    }

    fn finish(&self) -> MetricValue {
        match (self.first, self.last) {
            (Some(a), Some(b)) => MetricValue::Number(measure(&(b - a), self.axis)),
            _ => MetricValue::Missing("the run ended before the window".into()),
        }
    }
}

/// Whether the link origin went below a height: the origin's world z only, so neither heading nor
/// tilt enter it.
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
    fn observe(&mut self, _t: f64, _scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
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
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
        if !in_window(&self.window, t) {
            return;
        }
        let rel = position_in(state, self.link, self.reference);
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

#[cfg(test)]
mod tests {
    use tribo_scene::{Expected, ExpectedValue, MetricKind, MetricSpec};

    use super::*;
    use crate::metrics::MetricResult;

    const BOX: LinkRef = LinkRef { body: 1, link: 0 };

    fn whole_run() -> Window {
        Window {
            start: 0.0,
            end: f64::INFINITY,
        }
    }

    fn displacement(axis: Axis, from: [f64; 3], to: [f64; 3]) -> f64 {
        let mut probe = Displacement::new(BOX, None, whole_run(), axis);
        probe.sample(0.0, Vector3::from(from));
        probe.sample(0.5, Vector3::from(to));
        probe.finish().as_number().unwrap_or(f64::NAN)
    }

    /// The result of a displacement metric measuring `value` against `expected ± tolerance`.
    fn judged(value: f64, expected: f64, tolerance: f64) -> Option<bool> {
        let spec = MetricSpec {
            name: "d".into(),
            kind: MetricKind::Displacement {
                link: BOX,
                window: whole_run(),
                axis: Axis::Z,
            },
            expected: Some(Expected {
                value: ExpectedValue::Number(expected),
                formula: expected.to_string(),
            }),
            tolerance: Some(tolerance),
            unit: "m".into(),
        };
        MetricResult::new(&spec, MetricValue::Number(value)).passed()
    }

    #[test]
    fn components_are_signed_and_a_sunk_box_fails_a_positive_expectation() {
        // A 0.1 m box resting at z = 0.05 that sank 0.98 mm into the floor.
        let sank = displacement(Axis::Z, [0.0, 0.0, 0.05], [0.0, 0.0, 0.04902]);
        assert!((sank + 0.00098).abs() < 1e-12, "{sank}");
        assert_eq!(judged(sank, 0.000981, 1e-5), Some(false));
        // The same magnitude upwards passes.
        assert_eq!(judged(-sank, 0.000981, 1e-5), Some(true));
        // A slide mirrored to −x: −0.4067 m against +0.4077 m ± 3 %.
        let mirrored = displacement(Axis::X, [-4.0, 0.0, 0.05], [-4.4067, 0.0, 0.05]);
        assert!((mirrored + 0.4067).abs() < 1e-12, "{mirrored}");
        assert_eq!(judged(mirrored, 0.4077, 0.03 * 0.4077), Some(false));
        assert_eq!(judged(-mirrored, 0.4077, 0.03 * 0.4077), Some(true));
        let y = displacement(Axis::Y, [0.0, 0.2, 0.0], [0.0, -0.1, 0.0]);
        assert!((y + 0.3).abs() < 1e-12, "{y}");
    }

    #[test]
    fn magnitudes_and_lengths_are_unsigned() {
        let (from, to) = ([1.0, 1.0, 1.0], [-2.0, -3.0, -11.0]);
        assert!((displacement(Axis::AbsX, from, to) - 3.0).abs() < 1e-12);
        assert!((displacement(Axis::AbsY, from, to) - 4.0).abs() < 1e-12);
        assert!((displacement(Axis::AbsZ, from, to) - 12.0).abs() < 1e-12);
        assert!((displacement(Axis::Horizontal, from, to) - 5.0).abs() < 1e-12);
        assert!((displacement(Axis::Norm, from, to) - 13.0).abs() < 1e-12);
    }

    #[test]
    fn only_samples_inside_the_window_count() {
        let window = Window { start: 1.0, end: 2.0 };
        let mut probe = Displacement::new(BOX, None, window, Axis::X);
        assert!(matches!(probe.finish(), MetricValue::Missing(_)));
        for (t, x) in [(0.5, 10.0), (1.0, 1.0), (1.5, 2.0), (2.0, 4.0), (2.5, 100.0)] {
            probe.sample(t, Vector3::new(x, 0.0, 0.0));
        }
        assert_eq!(probe.finish(), MetricValue::Number(3.0));
    }
}
