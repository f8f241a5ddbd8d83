//! Friction sets and their projections (`docs/design/contact-mechanics.md` §4.1.2–4.1.3, §4.2.4).
//!
//! At a contact with normal impulse λₙ the tangential impulse λₜ = (λₜ₁, λₜ₂) must lie in a set F(μλₙ)
//! of "radius" r = μλₙ:
//!
//! | model | set F(r) | source |
//! |---|---|---|
//! | [`FrictionModel::Box`] | \|λₜ₁\| ≤ r and \|λₜ₂\| ≤ r, each direction on its own | the two-direction LCP friction of ODE/AIST |
//! | [`FrictionModel::Pyramid`] | the regular m-gon inscribed in the disc: vertices r·(cos 2πk/m, sin 2πk/m), k = 0..m−1 | §4.1.3, edges dₖ |
//! | [`FrictionModel::Cone`] | the disc ‖λₜ‖ ≤ r (exact Coulomb cone) | §4.1.2, second-order cone |
//!
//! The pyramid's first edge points along the first tangent t₁, as in the answer to exercise 4.2
//! (d₁ along +x). The chapter's formula in §4.1.3 numbers the edges i = 1..m with angle 2πi/m, which
//! would put d₁ along +y for m = 4; the set of edges is the same, only the numbering differs.

use nalgebra::{Matrix3, Vector2, Vector3};
use std::f64::consts::PI;

use crate::error::{Error, Result};

/// How the tangential impulse is bounded at one contact. See the module docs for the sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrictionModel {
    /// Each tangent direction bounded on its own: \|λₜₖ\| ≤ μλₙ.
    Box,
    /// Inscribed regular pyramid with `edges` ≥ 3 edges (`docs/design/contact-mechanics.md` §4.1.3:
    /// m = 4, 8, 16 are typical).
    Pyramid {
        /// m, the number of edges.
        edges: usize,
    },
    /// The exact circular cone ‖λₜ‖ ≤ μλₙ.
    Cone,
}

impl FrictionModel {
    /// Check the model's own parameters (`contact` only labels the error).
    pub fn validate(&self, contact: usize) -> Result<()> {
        match *self {
            FrictionModel::Pyramid { edges } if edges < 3 => Err(Error::TooFewEdges { contact, edges }),
            _ => Ok(()),
        }
    }

    /// Is the set polyhedral (so that the contact problem is an LCP Lemke can solve)?
    pub fn is_polyhedral(&self) -> bool {
        !matches!(self, FrictionModel::Cone)
    }

    /// Euclidean projection of a tangential impulse onto F(r) (r ≥ 0; a negative r is treated as 0).
    /// Inlined: the sweeps call it twice per contact visit.
    #[inline]
    pub fn project(&self, tangential: [f64; 2], radius: f64) -> [f64; 2] {
        let r = radius.max(0.0);
        match *self {
            FrictionModel::Box => [tangential[0].clamp(-r, r), tangential[1].clamp(-r, r)],
            FrictionModel::Cone => project_onto_disc(tangential, r),
            FrictionModel::Pyramid { edges } => project_onto_polygon(tangential, r, edges.max(3)),
        }
    }

    /// Support function h(v) = max over λₜ in F(r) of vᵀλₜ.
    pub fn support(&self, direction: [f64; 2], radius: f64) -> f64 {
        let r = radius.max(0.0);
        match *self {
            FrictionModel::Box => r * (direction[0].abs() + direction[1].abs()),
            // √(x² + y²), not `hypot`: the solvers' residual check calls this once per contact per
            // check, and the directions are velocities (m/s), far from where the squares could
            // overflow or underflow to matter (see `project_onto_disc`).
            FrictionModel::Cone => r * (direction[0] * direction[0] + direction[1] * direction[1]).sqrt(),
            FrictionModel::Pyramid { edges } => {
                let m = edges.max(3);
                (0..m)
                    .map(|k| {
                        let [c, s] = edge_direction(k, m);
                        r * (c * direction[0] + s * direction[1])
                    })
                    .fold(f64::NEG_INFINITY, f64::max)
            }
        }
    }
}

/// The k-th of m tangential edge directions, (cos 2πk/m, sin 2πk/m), k = 0..m−1.
pub fn edge_direction(k: usize, m: usize) -> [f64; 2] {
    let angle = 2.0 * PI * k as f64 / m.max(1) as f64;
    [angle.cos(), angle.sin()]
}

/// The chapter's pyramid edges (§4.1.3, exercise 4.2), unit vectors in contact coordinates
/// (x = t₁, y = t₂, z = normal): dₖ = [μ cos(2πk/m), μ sin(2πk/m), 1]ᵀ / √(1 + μ²), k = 0..m−1.
/// A force f = Σ βₖ dₖ with βₖ ≥ 0 lies in the inscribed pyramid.
pub fn pyramid_edges(mu: f64, edges: usize) -> Vec<Vector3<f64>> {
    let scale = 1.0 / (1.0 + mu * mu).sqrt();
    (0..edges)
        .map(|k| {
            let [c, s] = edge_direction(k, edges);
            Vector3::new(mu * c, mu * s, 1.0) * scale
        })
        .collect()
}

/// Projection onto the disc of radius r (AIST-style cone step: scale λₜ back onto the circle).
pub fn project_onto_disc(t: [f64; 2], r: f64) -> [f64; 2] {
    // Not `hypot`: this runs once per contact per sweep and glibc's `hypot` (which guards against
    // overflow and underflow of the squares) cost 7 % of a 500-box pile's step. The squares cannot
    // overflow here: tangential impulses are N·s of bodies a simulation can hold, far below
    // 1e154 (√f64::MAX). Squares underflow only for impulses below about 1e-154 N·s: such a λₜ is
    // kept as it is rather than scaled onto the disc, an error below 1e-154 N·s.
    let squared = t[0] * t[0] + t[1] * t[1];
    // Well inside (a sticking contact, the common case): no square root. With the margin of 4
    // units of rounding, `squared ≤ r² (1 − 4ε)` implies `√squared ≤ r` as computed, so the test
    // below would keep λₜ too: the answer is the same bit for bit.
    if squared <= r * r * (1.0 - 4.0 * f64::EPSILON) {
        return t;
    }
    let norm = squared.sqrt();
    if norm <= r {
        t
    } else if norm > 0.0 {
        let s = r / norm;
        [t[0] * s, t[1] * s]
    } else {
        [0.0, 0.0]
    }
}

/// Euclidean projection onto the regular m-gon with vertices r·(cos 2πk/m, sin 2πk/m).
///
/// A point in the angular sector [2πk/m, 2π(k+1)/m] is inside exactly when it is on the inner side of
/// the edge from vertex k to vertex k+1; when outside, its nearest point lies on that edge (vertex
/// regions included), because the normal strips of the neighbouring edges do not reach into the sector.
pub fn project_onto_polygon(t: [f64; 2], r: f64, m: usize) -> [f64; 2] {
    let m = m.max(3);
    if r <= 0.0 {
        return [0.0, 0.0];
    }
    let p = Vector2::new(t[0], t[1]);
    let mut angle = t[1].atan2(t[0]);
    if angle < 0.0 {
        angle += 2.0 * PI;
    }
    let sector = ((angle / (2.0 * PI / m as f64)).floor() as usize).min(m - 1);
    let [c0, s0] = edge_direction(sector, m);
    let [c1, s1] = edge_direction((sector + 1) % m, m);
    let v0 = Vector2::new(c0, s0) * r;
    let v1 = Vector2::new(c1, s1) * r;
    let mid = (sector as f64 + 0.5) * 2.0 * PI / m as f64;
    let outward = Vector2::new(mid.cos(), mid.sin());
    let apothem = r * (PI / m as f64).cos();
    if outward.dot(&p) <= apothem {
        return t;
    }
    let edge = v1 - v0;
    let s = ((p - v0).dot(&edge) / edge.norm_squared()).clamp(0.0, 1.0);
    let q = v0 + edge * s;
    [q.x, q.y]
}

/// Euclidean projection of a force (contact coordinates x = t₁, y = t₂, z = n) onto the circular cone
/// K = {‖fₜ‖ ≤ μ fₙ}. Closed form for the second-order cone: inside → itself; in the polar cone
/// (μ‖fₜ‖ ≤ −fₙ) → 0; otherwise onto the boundary ray in the plane of n and fₜ with
/// fₙ' = (fₙ + μ‖fₜ‖)/(1 + μ²), fₜ' = μ fₙ' fₜ/‖fₜ‖.
pub fn project_onto_circular_cone(f: &Vector3<f64>, mu: f64) -> Vector3<f64> {
    project_onto_circular_cone_with_jacobian(f, mu).0
}

/// The projection of [`project_onto_circular_cone`] and its (generalised) Jacobian ∂Π/∂f.
///
/// On the boundary branch, with ρ = ‖fₜ‖, u = fₜ/ρ and s = (fₙ + μρ)/(1 + μ²):
/// ∂Π/∂f = 1/(1+μ²) [μ²uuᵀ, μu; μuᵀ, 1] + (μs/ρ) [I₂ − uuᵀ, 0; 0, 0] (rows and columns ordered t₁, t₂, n).
pub fn project_onto_circular_cone_with_jacobian(f: &Vector3<f64>, mu: f64) -> (Vector3<f64>, Matrix3<f64>) {
    let mu = mu.max(0.0);
    let (fn_, rho) = (f.z, f.x.hypot(f.y));
    if rho <= mu * fn_ {
        return (*f, Matrix3::identity());
    }
    // The polar cone (and non-finite input, for which every comparison above is false) maps to 0.
    if mu * rho <= -fn_ || rho.is_nan() || rho <= 0.0 {
        return (Vector3::zeros(), Matrix3::zeros());
    }
    let u = Vector2::new(f.x / rho, f.y / rho);
    let k = 1.0 + mu * mu;
    let s = (fn_ + mu * rho) / k;
    let projected = Vector3::new(mu * s * u.x, mu * s * u.y, s);
    let g = mu * s / rho;
    let jacobian = Matrix3::new(
        mu * mu * u.x * u.x / k + g * (1.0 - u.x * u.x),
        mu * mu * u.x * u.y / k - g * u.x * u.y,
        mu * u.x / k,
        mu * mu * u.y * u.x / k - g * u.y * u.x,
        mu * mu * u.y * u.y / k + g * (1.0 - u.y * u.y),
        mu * u.y / k,
        mu * u.x / k,
        mu * u.y / k,
        1.0 / k,
    );
    (projected, jacobian)
}

/// An orthonormal contact frame: normal n (the chapter's z axis, pointing into the body the contact
/// force acts on) and tangents t₁, t₂ (x, y) with t₁ × t₂ = n.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactFrame {
    /// First tangent t₁ (chapter's x).
    pub t1: Vector3<f64>,
    /// Second tangent t₂ (chapter's y).
    pub t2: Vector3<f64>,
    /// Normal n (chapter's z).
    pub normal: Vector3<f64>,
}

impl ContactFrame {
    /// A frame for a normal, tangents chosen deterministically and continuously except across
    /// n_z = 0⁻ (Duff et al., "Building an Orthonormal Basis, Revisited", JCGT 6(1), 2017).
    /// Returns `None` for a zero or non-finite normal.
    pub fn from_normal(normal: &Vector3<f64>) -> Option<Self> {
        let n = normalise(normal)?;
        let sign = if n.z >= 0.0 { 1.0 } else { -1.0 };
        let a = -1.0 / (sign + n.z);
        let b = n.x * n.y * a;
        let t1 = Vector3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
        let t2 = Vector3::new(b, sign + n.y * n.y * a, -n.y);
        Some(Self { t1, t2, normal: n })
    }

    /// A frame whose first tangent is the part of `tangent_hint` orthogonal to the normal (for example the
    /// slope's down-hill direction). Falls back to [`from_normal`](Self::from_normal) when the hint is
    /// parallel to the normal. Returns `None` for a zero or non-finite normal.
    pub fn with_tangent(normal: &Vector3<f64>, tangent_hint: &Vector3<f64>) -> Option<Self> {
        let n = normalise(normal)?;
        match normalise(&(tangent_hint - n * n.dot(tangent_hint))) {
            Some(t1) => Some(Self {
                t1,
                t2: n.cross(&t1),
                normal: n,
            }),
            None => Self::from_normal(&n),
        }
    }

    /// Rotation R = [t₁ t₂ n] from contact coordinates to world coordinates.
    pub fn rotation(&self) -> Matrix3<f64> {
        Matrix3::from_columns(&[self.t1, self.t2, self.normal])
    }

    /// World vector from contact coordinates (x = t₁, y = t₂, z = n).
    pub fn to_world(&self, local: &Vector3<f64>) -> Vector3<f64> {
        self.t1 * local.x + self.t2 * local.y + self.normal * local.z
    }

    /// Contact coordinates (x = t₁, y = t₂, z = n) of a world vector.
    pub fn to_local(&self, world: &Vector3<f64>) -> Vector3<f64> {
        Vector3::new(self.t1.dot(world), self.t2.dot(world), self.normal.dot(world))
    }
}

fn normalise(v: &Vector3<f64>) -> Option<Vector3<f64>> {
    let norm = v.norm();
    (norm.is_finite() && norm > 1e-300).then(|| v / norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force_polygon(t: [f64; 2], r: f64, m: usize) -> [f64; 2] {
        // Nearest point over all edges (or the point itself when inside every half-plane).
        let p = Vector2::new(t[0], t[1]);
        let inside = (0..m).all(|k| {
            let mid = (k as f64 + 0.5) * 2.0 * PI / m as f64;
            Vector2::new(mid.cos(), mid.sin()).dot(&p) <= r * (PI / m as f64).cos() + 1e-15
        });
        if inside {
            return t;
        }
        let mut best = (f64::INFINITY, Vector2::zeros());
        for k in 0..m {
            let [c0, s0] = edge_direction(k, m);
            let [c1, s1] = edge_direction((k + 1) % m, m);
            let (v0, v1) = (Vector2::new(c0, s0) * r, Vector2::new(c1, s1) * r);
            let e = v1 - v0;
            let q = v0 + e * ((p - v0).dot(&e) / e.norm_squared()).clamp(0.0, 1.0);
            if (q - p).norm() < best.0 {
                best = ((q - p).norm(), q);
            }
        }
        [best.1.x, best.1.y]
    }

    #[test]
    fn polygon_projection_matches_brute_force() {
        for m in [3, 4, 5, 8, 16] {
            for i in 0..400 {
                let angle = i as f64 * 0.0731;
                let radius = 0.2 + 2.5 * ((i * 7919 % 101) as f64 / 100.0);
                let t = [radius * angle.cos(), radius * angle.sin()];
                let fast = project_onto_polygon(t, 1.3, m);
                let slow = brute_force_polygon(t, 1.3, m);
                assert!(
                    (fast[0] - slow[0]).hypot(fast[1] - slow[1]) < 1e-12,
                    "m {m} t {t:?}: {fast:?} vs {slow:?}"
                );
            }
        }
    }

    #[test]
    fn support_of_each_model_matches_its_vertices() {
        let d = [0.3, -0.8];
        assert!((FrictionModel::Box.support(d, 2.0) - 2.0 * 1.1).abs() < 1e-15);
        assert!((FrictionModel::Cone.support(d, 2.0) - 2.0 * 0.3f64.hypot(0.8)).abs() < 1e-15);
        // Square pyramid: vertices ±r e₁, ±r e₂, so h = r·max(|d₁|, |d₂|).
        assert!((FrictionModel::Pyramid { edges: 4 }.support(d, 2.0) - 1.6).abs() < 1e-15);
    }

    #[test]
    fn cone_projection_and_jacobian() {
        let mu = 0.6;
        let inside = Vector3::new(0.1, 0.2, 1.0);
        assert_eq!(project_onto_circular_cone(&inside, mu), inside);
        assert_eq!(
            project_onto_circular_cone(&Vector3::new(0.1, 0.0, -1.0), mu),
            Vector3::zeros()
        );
        let f = Vector3::new(2.0, -1.0, 0.5);
        let (p, jac) = project_onto_circular_cone_with_jacobian(&f, mu);
        // On the boundary, and f − p is normal to the cone at p (orthogonal to p).
        assert!((p.xy().norm() - mu * p.z).abs() < 1e-14);
        assert!((f - p).dot(&p).abs() < 1e-13);
        // Jacobian by central differences.
        for c in 0..3 {
            let mut e = Vector3::zeros();
            e[c] = 1e-6;
            let fd = (project_onto_circular_cone(&(f + e), mu) - project_onto_circular_cone(&(f - e), mu)) / 2e-6;
            for r in 0..3 {
                assert!(
                    (fd[r] - jac[(r, c)]).abs() < 1e-8,
                    "({r},{c}) {} vs {}",
                    fd[r],
                    jac[(r, c)]
                );
            }
        }
    }

    #[test]
    fn frames_are_right_handed_and_orthonormal() {
        for n in [
            Vector3::z(),
            -Vector3::z(),
            Vector3::new(1.0, 2.0, -3.0),
            Vector3::new(0.0, -1.0, 1e-9),
        ] {
            let frame = ContactFrame::from_normal(&n).expect("non-zero normal");
            let r = frame.rotation();
            assert!((r.transpose() * r - Matrix3::identity()).norm() < 1e-14);
            assert!((frame.t1.cross(&frame.t2) - frame.normal).norm() < 1e-14);
            assert!((frame.normal - n.normalize()).norm() < 1e-15);
            let v = Vector3::new(0.3, -0.2, 0.9);
            assert!((frame.to_local(&frame.to_world(&v)) - v).norm() < 1e-15);
        }
        assert!(ContactFrame::from_normal(&Vector3::zeros()).is_none());
        let slope = ContactFrame::with_tangent(&Vector3::new(0.0, 0.0, 1.0), &Vector3::new(1.0, 0.0, 5.0))
            .expect("non-zero normal");
        assert!((slope.t1 - Vector3::x()).norm() < 1e-15 && (slope.t2 - Vector3::y()).norm() < 1e-15);
    }
}
