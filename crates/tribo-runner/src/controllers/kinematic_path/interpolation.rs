//! Poses between waypoints: piecewise (linear or minimum-jerk progress along each segment) or a
//! clamped C² cubic spline through all of them. Outside the waypoints' times the pose is held.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use tribo_scene::Waypoint;

fn pose(w: &Waypoint) -> Isometry3<f64> {
    Isometry3::from_parts(Translation3::from(w.translation), w.rotation)
}

/// Progress along a segment as a function of its normalised time s ∈ [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// σ(s) = s: constant velocity within the segment, a velocity jump at every waypoint.
    Linear,
    /// σ(s) = 10 s³ − 15 s⁴ + 6 s⁵, the rest-to-rest move minimising ∫ jerk² (Flash & Hogan,
    /// "The coordination of arm movements", J. Neurosci. 5(7), 1985, eq. 2): σ' and σ'' vanish
    /// at both ends, so velocity and acceleration are continuous (zero) at every waypoint. Peak
    /// acceleration (10/√3) D/T² at s = ½ ∓ √3/6, peak velocity 15/8 · D/T at s = ½.
    MinimumJerk,
}

impl Progress {
    pub fn at(self, s: f64) -> f64 {
        match self {
            Progress::Linear => s,
            Progress::MinimumJerk => s * s * s * (10.0 + s * (-15.0 + 6.0 * s)),
        }
    }
}

/// Position and rotation along the segment containing `t`, moving by `progress` between its ends
/// (lerp of positions, slerp of rotations); held outside the waypoints.
pub fn piecewise(points: &[Waypoint], progress: Progress, t: f64) -> Isometry3<f64> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Isometry3::identity();
    };
    if t <= first.time {
        return pose(first);
    }
    if t >= last.time {
        return pose(last);
    }
    let i = points.windows(2).position(|w| t < w[1].time).unwrap_or(0);
    let (a, b) = (&points[i], &points[i + 1]);
    let sigma = progress.at((t - a.time) / (b.time - a.time));
    Isometry3::from_parts(
        Translation3::from(a.translation.lerp(&b.translation, sigma)),
        a.rotation.slerp(&b.rotation, sigma),
    )
}

/// A clamped cubic spline y(t) through (tᵢ, yᵢ) with y'(t₀) = y'(tₙ) = 0: C² inside, the moments
/// Mᵢ = y''(tᵢ) from the tridiagonal system (Press et al., Numerical Recipes, 3rd ed., §3.3,
/// eqs. 3.3.7 with the clamped end conditions)
///   h₀ (2 M₀ + M₁) = 6 ((y₁ − y₀)/h₀ − y'₀),
///   hᵢ₋₁ Mᵢ₋₁ + 2 (hᵢ₋₁ + hᵢ) Mᵢ + hᵢ Mᵢ₊₁ = 6 ((yᵢ₊₁ − yᵢ)/hᵢ − (yᵢ − yᵢ₋₁)/hᵢ₋₁),
///   hₙ₋₁ (Mₙ₋₁ + 2 Mₙ) = 6 (y'ₙ − (yₙ − yₙ₋₁)/hₙ₋₁),
/// solved by the Thomas algorithm (the matrix is strictly diagonally dominant, so no pivoting).
#[derive(Debug, Clone)]
struct Spline {
    t: Vec<f64>,
    y: Vec<f64>,
    m: Vec<f64>,
}

impl Spline {
    /// `t` strictly increasing, as long as `y`.
    fn clamped(t: &[f64], y: &[f64]) -> Spline {
        let n = t.len();
        if n < 2 {
            return Spline {
                t: t.to_vec(),
                y: y.to_vec(),
                m: vec![0.0; n],
            };
        }
        let h: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
        let slope: Vec<f64> = (0..n - 1).map(|i| (y[i + 1] - y[i]) / h[i]).collect();
        // Rows: lower[i] M[i−1] + diag[i] M[i] + upper[i] M[i+1] = rhs[i].
        let mut lower = vec![0.0; n];
        let mut diag = vec![0.0; n];
        let mut upper = vec![0.0; n];
        let mut rhs = vec![0.0; n];
        diag[0] = 2.0 * h[0];
        upper[0] = h[0];
        rhs[0] = 6.0 * slope[0];
        for i in 1..n - 1 {
            lower[i] = h[i - 1];
            diag[i] = 2.0 * (h[i - 1] + h[i]);
            upper[i] = h[i];
            rhs[i] = 6.0 * (slope[i] - slope[i - 1]);
        }
        lower[n - 1] = h[n - 2];
        diag[n - 1] = 2.0 * h[n - 2];
        rhs[n - 1] = -6.0 * slope[n - 2];
        // Thomas algorithm: forward elimination, back substitution.
        for i in 1..n {
            let w = lower[i] / diag[i - 1];
            diag[i] -= w * upper[i - 1];
            rhs[i] -= w * rhs[i - 1];
        }
        let mut m = vec![0.0; n];
        m[n - 1] = rhs[n - 1] / diag[n - 1];
        for i in (0..n - 1).rev() {
            m[i] = (rhs[i] - upper[i] * m[i + 1]) / diag[i];
        }
        Spline {
            t: t.to_vec(),
            y: y.to_vec(),
            m,
        }
    }

    /// y(t), held at the ends: with A = (tᵢ₊₁ − t)/h, B = 1 − A,
    /// y = A yᵢ + B yᵢ₊₁ + ((A³ − A) Mᵢ + (B³ − B) Mᵢ₊₁) h²/6 (Numerical Recipes eq. 3.3.3).
    fn at(&self, t: f64) -> f64 {
        let (Some(&t0), Some(&tn)) = (self.t.first(), self.t.last()) else {
            return 0.0;
        };
        let n = self.t.len();
        if t <= t0 || n < 2 {
            return self.y[0];
        }
        if t >= tn {
            return self.y[n - 1];
        }
        let i = self.t.windows(2).position(|w| t < w[1]).unwrap_or(0);
        let h = self.t[i + 1] - self.t[i];
        let a = (self.t[i + 1] - t) / h;
        let b = 1.0 - a;
        a * self.y[i]
            + b * self.y[i + 1]
            + ((a * a * a - a) * self.m[i] + (b * b * b - b) * self.m[i + 1]) * h * h / 6.0
    }
}

/// A clamped cubic spline through the waypoints' positions and through their rotation vectors
/// log(Rᵢ R₀⁻¹) relative to the first waypoint's rotation R₀ (so every waypoint is met exactly;
/// the rotation stays smooth while the waypoints are within a half turn of the first).
#[derive(Debug, Clone)]
pub struct CubicPath {
    start: UnitQuaternion<f64>,
    position: [Spline; 3],
    rotation: [Spline; 3],
}

impl CubicPath {
    pub fn new(points: &[Waypoint]) -> CubicPath {
        let start = points.first().map_or_else(UnitQuaternion::identity, |w| w.rotation);
        let t: Vec<f64> = points.iter().map(|w| w.time).collect();
        let vectors: Vec<Vector3<f64>> = points
            .iter()
            .map(|w| (w.rotation * start.inverse()).scaled_axis())
            .collect();
        let component = |values: &dyn Fn(usize) -> f64| -> Spline {
            let y: Vec<f64> = (0..points.len()).map(values).collect();
            Spline::clamped(&t, &y)
        };
        CubicPath {
            start,
            position: [0, 1, 2].map(|k| component(&|i| points[i].translation[k])),
            rotation: [0, 1, 2].map(|k| component(&|i| vectors[i][k])),
        }
    }

    pub fn pose(&self, t: f64) -> Isometry3<f64> {
        let p = Vector3::from(self.position.each_ref().map(|s| s.at(t)));
        let r = Vector3::from(self.rotation.each_ref().map(|s| s.at(t)));
        Isometry3::from_parts(Translation3::from(p), UnitQuaternion::from_scaled_axis(r) * self.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lift(times: &[f64], heights: &[f64]) -> Vec<Waypoint> {
        times
            .iter()
            .zip(heights)
            .map(|(&time, &z)| Waypoint {
                time,
                translation: Vector3::new(0.0, 0.0, z),
                rotation: UnitQuaternion::identity(),
            })
            .collect()
    }

    /// Second difference of a pose's z over ±h, m/s².
    fn acceleration(z: impl Fn(f64) -> f64, t: f64, h: f64) -> f64 {
        (z(t + h) - 2.0 * z(t) + z(t - h)) / (h * h)
    }

    #[test]
    fn minimum_jerk_meets_the_flash_hogan_peaks() {
        // D = 0.05 m in T = 1.2 s: peak acceleration (10/√3) D/T² = 0.20047 m/s² at
        // s = ½ − √3/6, peak velocity 15/8 D/T = 0.078125 m/s at s = ½.
        let (d, big_t) = (0.05, 1.2);
        let points = lift(&[0.3, 1.5], &[0.07, 0.07 + d]);
        let z = |t: f64| piecewise(&points, Progress::MinimumJerk, t).translation.vector.z;
        let s_peak = 0.5 - 3f64.sqrt() / 6.0;
        let a = acceleration(z, 0.3 + s_peak * big_t, 1e-3);
        let a_peak = 10.0 / 3f64.sqrt() * d / (big_t * big_t);
        assert!((a - a_peak).abs() < 1e-5 * a_peak, "{a} vs {a_peak}");
        let v = (z(0.9 + 1e-4) - z(0.9 - 1e-4)) / 2e-4;
        assert!((v - 15.0 / 8.0 * d / big_t).abs() < 1e-8, "{v}");
        // No sample of the move accelerates harder than the peak.
        let worst = (1..1200)
            .map(|k| acceleration(z, 0.3 + k as f64 * 1e-3, 1e-3).abs())
            .fold(0.0, f64::max);
        assert!(worst <= a_peak * (1.0 + 1e-5), "{worst}");
        // Rest at both ends, waypoints met, held outside.
        assert!((z(0.3) - 0.07).abs() < 1e-15 && (z(1.5) - 0.12).abs() < 1e-15);
        assert!((z(0.0) - 0.07).abs() < 1e-15 && (z(9.0) - 0.12).abs() < 1e-15);
        // Across the ends the acceleration stays near 0 (jerk 60 D/T³ over ±0.1 ms: ~3e-5 m/s²);
        // the linear profile's velocity step would read 0.0417 m/s / 1e-4 s = 417 m/s² here.
        for t in [0.3, 1.5] {
            assert!(acceleration(z, t, 1e-4).abs() < 1e-3, "{}", acceleration(z, t, 1e-4));
        }
    }

    #[test]
    fn linear_progress_is_the_straight_segment() {
        let points = lift(&[0.0, 1.0, 3.0], &[0.0, 1.0, 0.0]);
        let z = |t: f64| piecewise(&points, Progress::Linear, t).translation.vector.z;
        assert!((z(0.25) - 0.25).abs() < 1e-15 && (z(2.0) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn the_cubic_spline_meets_every_waypoint_and_is_c2() {
        let times = [0.0, 0.3, 0.7, 1.0, 2.0];
        let heights = [0.0, 0.1, 0.05, 0.3, 0.2];
        let points = lift(&times, &heights);
        let path = CubicPath::new(&points);
        let z = |t: f64| path.pose(t).translation.vector.z;
        for (t, h) in times.iter().zip(heights) {
            assert!((z(*t) - h).abs() < 1e-12, "z({t}) = {} vs {h}", z(*t));
        }
        // Velocity zero at both ends (clamped), acceleration continuous across inner waypoints.
        assert!(((z(1e-6) - z(0.0)) / 1e-6).abs() < 1e-4);
        assert!(((z(2.0) - z(2.0 - 1e-6)) / 1e-6).abs() < 1e-4);
        for t in &times[1..4] {
            let before = acceleration(z, t - 1e-4, 5e-5);
            let after = acceleration(z, t + 1e-4, 5e-5);
            assert!(
                (before - after).abs() < 0.01 * (1.0 + before.abs()),
                "at {t}: {before} vs {after}"
            );
        }
        // Two waypoints: the clamped cubic is 3s² − 2s³.
        let two = CubicPath::new(&lift(&[1.0, 3.0], &[0.0, 1.0]));
        let s: f64 = 0.3;
        assert!((two.pose(1.0 + 2.0 * s).translation.vector.z - (3.0 * s * s - 2.0 * s * s * s)).abs() < 1e-12);
    }

    #[test]
    fn cubic_rotations_pass_through_the_waypoints() {
        let start = UnitQuaternion::from_euler_angles(0.0, 0.0, 0.5);
        let points: Vec<Waypoint> = [(0.0, 0.0), (1.0, 0.8), (2.0, -0.4)]
            .iter()
            .map(|&(time, roll)| Waypoint {
                time,
                translation: Vector3::zeros(),
                rotation: UnitQuaternion::from_euler_angles(roll, 0.2 * roll, 0.0) * start,
            })
            .collect();
        let path = CubicPath::new(&points);
        for w in &points {
            assert!(path.pose(w.time).rotation.angle_to(&w.rotation) < 1e-12);
        }
    }
}
