//! Metrics of how links turn: tilt (roll/pitch: where the up axis points) and yaw (heading about
//! world z), kept apart so a walker turning on the spot is not reported as tipping over.

use nalgebra::{UnitQuaternion, Vector3};
use tribo_scene::{LinkRef, Reduce, Scene, Window};

use super::motion::in_window;
use super::{MetricProbe, MetricValue};
use crate::{LazyContacts, SceneState};

fn rotation(state: &SceneState, link: LinkRef) -> UnitQuaternion<f64> {
    state.bodies[link.body].links[link.link].pose.rotation
}

/// Angle between the link's up axis (local +z) now and at the reference orientation, degrees in
/// [0, 180]: `acos(R e_z · R₀ e_z)`, computed as `atan2(|a × b|, a · b)` so it stays accurate
/// near 0° and 180°. A rotation about the up axis leaves it at 0.
pub fn tilt_deg(reference: &UnitQuaternion<f64>, r: &UnitQuaternion<f64>) -> f64 {
    let a = reference * Vector3::z();
    let b = r * Vector3::z();
    a.cross(&b).norm().atan2(a.dot(&b)).to_degrees()
}

/// Heading change about world z from `reference` to `r`, degrees in (−180, 180]: the twist angle
/// about z of the world-frame rotation Δ = R R₀⁻¹ in its swing–twist decomposition Δ = T_z(ψ) S
/// (S about a horizontal axis). With Δ = (w, x, y, z) as a unit quaternion, T_z(ψ) S has
/// w = cos(ψ/2) s_w and z = sin(ψ/2) s_w, so ψ = 2 atan2(z, w) (for either order of T and S;
/// see e.g. Dobrowolski, "Swing-twist decomposition in Clifford algebra", 2015). Undefined only
/// when the swing is a half turn (w = z = 0), where it is reported as 0.
pub fn yaw_deg(reference: &UnitQuaternion<f64>, r: &UnitQuaternion<f64>) -> f64 {
    let delta = r * reference.inverse();
    let q = delta.quaternion();
    let psi = 2.0 * q.k.atan2(q.w);
    wrap_deg(psi.to_degrees())
}

/// An angle in degrees wrapped to (−180, 180].
fn wrap_deg(a: f64) -> f64 {
    let w = a - 360.0 * (a / 360.0).round();
    if w <= -180.0 {
        w + 360.0
    } else {
        w
    }
}

/// Which angle an [`AngleProbe`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Angle {
    Tilt,
    Yaw,
}

/// An angle of a link relative to its orientation at the window start, degrees, reduced over the
/// window: `max` is the value of largest magnitude (with its sign: tilt is never negative, a yaw
/// to the right is), `final` the value at the window end, `rms` the root mean square.
pub struct AngleProbe {
    link: LinkRef,
    window: Window,
    reduce: Reduce,
    angle: Angle,
    reference: Option<UnitQuaternion<f64>>,
    extreme: f64,
    last: f64,
    sum_squares: f64,
    samples: usize,
}

impl AngleProbe {
    pub fn new(link: LinkRef, window: Window, reduce: Reduce, angle: Angle) -> Self {
        AngleProbe {
            link,
            window,
            reduce,
            angle,
            reference: None,
            extreme: 0.0,
            last: 0.0,
            sum_squares: 0.0,
            samples: 0,
        }
    }

    /// One sample of the link's orientation at time `t`.
    fn sample(&mut self, t: f64, r: UnitQuaternion<f64>) {
        if !in_window(&self.window, t) {
            return;
        }
        let reference = *self.reference.get_or_insert(r);
        let a = match self.angle {
            Angle::Tilt => tilt_deg(&reference, &r),
            Angle::Yaw => yaw_deg(&reference, &r),
        };
        if a.abs() > self.extreme.abs() {
            self.extreme = a;
        }
        self.last = a;
        self.sum_squares += a * a;
        self.samples += 1;
    }
}

impl MetricProbe for AngleProbe {
    fn observe(&mut self, t: f64, _scene: &Scene, state: &SceneState, _contacts: LazyContacts<'_>) {
        self.sample(t, rotation(state, self.link));
    }

    fn finish(&self) -> MetricValue {
        if self.reference.is_none() {
            return MetricValue::Missing("the run ended before the window".into());
        }
        MetricValue::Number(match self.reduce {
            Reduce::Max => self.extreme,
            Reduce::Final => self.last,
            Reduce::Rms => (self.sum_squares / self.samples.max(1) as f64).sqrt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn about(axis: Vector3<f64>, deg: f64) -> UnitQuaternion<f64> {
        UnitQuaternion::from_scaled_axis(axis.normalize() * deg.to_radians())
    }

    fn reduced(angle: Angle, reduce: Reduce, rotations: &[UnitQuaternion<f64>]) -> f64 {
        let window = Window {
            start: 0.0,
            end: f64::INFINITY,
        };
        let mut probe = AngleProbe::new(LinkRef { body: 0, link: 0 }, window, reduce, angle);
        for (i, r) in rotations.iter().enumerate() {
            probe.sample(i as f64 * 0.1, *r);
        }
        probe.finish().as_number().unwrap_or(f64::NAN)
    }

    #[test]
    fn a_turn_about_the_vertical_is_yaw_not_tilt() {
        let start = UnitQuaternion::identity();
        let turned = about(Vector3::z(), 59.0);
        assert!(tilt_deg(&start, &turned).abs() < 1e-12);
        assert!((yaw_deg(&start, &turned) - 59.0).abs() < 1e-12);
        // Roll and pitch are tilt and no yaw.
        for axis in [Vector3::x(), Vector3::y(), Vector3::new(1.0, -2.0, 0.0)] {
            let tipped = about(axis, 3.3);
            assert!((tilt_deg(&start, &tipped) - 3.3).abs() < 1e-12);
            assert!(yaw_deg(&start, &tipped).abs() < 1e-12);
        }
    }

    #[test]
    fn a_tilt_after_a_turn_keeps_both_angles() {
        // Turn 40° about world z, then pitch 3° about the (turned) link's y axis: the up axis is
        // 3° off, the heading 40°, from any starting heading.
        for start_heading in [0.0, 170.0, -120.0] {
            let start = about(Vector3::z(), start_heading);
            let r = about(Vector3::z(), 40.0) * start * about(Vector3::y(), 3.0);
            assert!((tilt_deg(&start, &r) - 3.0).abs() < 1e-9);
            assert!((yaw_deg(&start, &r) - 40.0).abs() < 1e-9, "{}", yaw_deg(&start, &r));
        }
    }

    #[test]
    fn yaw_is_wrapped_to_a_half_turn_either_way() {
        let start = UnitQuaternion::identity();
        assert!((yaw_deg(&start, &about(Vector3::z(), 190.0)) + 170.0).abs() < 1e-9);
        assert!((yaw_deg(&start, &about(Vector3::z(), -90.0)) + 90.0).abs() < 1e-9);
        assert!((yaw_deg(&start, &about(Vector3::z(), 180.0)) - 180.0).abs() < 1e-9);
        assert_eq!(wrap_deg(-180.0), 180.0);
        assert_eq!(wrap_deg(540.0), 180.0);
        assert!((wrap_deg(-190.0) - 170.0).abs() < 1e-12);
    }

    #[test]
    fn an_upside_down_link_is_tilted_a_half_turn() {
        let start = UnitQuaternion::identity();
        assert!((tilt_deg(&start, &about(Vector3::x(), 180.0)) - 180.0).abs() < 1e-9);
    }

    #[test]
    fn max_keeps_the_sign_of_the_largest_turn_and_final_the_last() {
        let path = [
            UnitQuaternion::identity(),
            about(Vector3::z(), 10.0),
            about(Vector3::z(), -25.0),
            about(Vector3::z(), 5.0) * about(Vector3::x(), 2.0),
        ];
        assert!((reduced(Angle::Yaw, Reduce::Max, &path) + 25.0).abs() < 1e-9);
        assert!((reduced(Angle::Yaw, Reduce::Final, &path) - 5.0).abs() < 1e-9);
        assert!((reduced(Angle::Tilt, Reduce::Max, &path) - 2.0).abs() < 1e-9);
        assert!((reduced(Angle::Tilt, Reduce::Final, &path) - 2.0).abs() < 1e-9);
        let rms = ((100.0 + 625.0 + 25.0) / 4.0_f64).sqrt();
        assert!((reduced(Angle::Yaw, Reduce::Rms, &path) - rms).abs() < 1e-6);
    }
}
