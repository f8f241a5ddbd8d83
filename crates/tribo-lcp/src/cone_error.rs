//! How far a pyramid is from the circular friction cone (`docs/design/contact-mechanics.md` §4.1.3, the
//! approximation error).
//!
//! The chapter defines ε = max over f ∈ 𝒦_poly of d(f, 𝒦)/‖f‖ and quotes about 29 %, 8 % and 2 % for
//! m = 4, 8 and 16 edges. Those figures are 1 − cos(π/m) (29.3 %, 7.6 %, 1.9 %): the relative error of
//! the friction limit in the worst tangential direction, independent of μ. They follow from the
//! chapter's definition when the distance is measured where the friction law acts, in the plane of
//! constant normal force, and relative to the tangential force ‖fₜ‖:
//!
//! - **circumscribed** pyramid (its faces touch the cone): f ∈ 𝒦_poly, distance to 𝒦, the chapter's
//!   ε literally; worst at a vertex, radius μfₙ/cos(π/m): ε = (1/cos(π/m) − 1)·cos(π/m) = 1 − cos(π/m);
//! - **inscribed** pyramid (its edges on the cone, as the chapter's dₖ and the solvers of this crate):
//!   𝒦_poly ⊂ 𝒦, so the chapter's ε is 0; the error is the other way round, f ∈ 𝒦, distance to
//!   𝒦_poly; worst at mid-face, where the limit is μfₙcos(π/m): ε = 1 − cos(π/m).
//!
//! [`pyramid_relative_error`] computes this by sampling the boundary, and
//! [`pyramid_relative_error_3d`] the same definition with the Euclidean distance in force space and
//! relative to ‖f‖, which depends on μ (the chapter's figures are not that measure: for the inscribed
//! square pyramid it gives 17 % at μ = 1 and 12 % at μ = 0.5).

use nalgebra::{Vector2, Vector3};
use std::f64::consts::PI;

use crate::friction::{edge_direction, project_onto_circular_cone, pyramid_edges};

/// Which pyramid approximates the cone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyramidFit {
    /// Edges on the cone (the chapter's dₖ; a subset of the cone, conservative).
    Inscribed,
    /// Faces tangent to the cone (a superset, admits forces the cone does not).
    Circumscribed,
}

/// Boundary samples per face: enough to hit the vertex and mid-face directions exactly.
const SAMPLES_PER_FACE: usize = 512;

/// Radius of the m-gon boundary in direction `angle` for a polygon with vertices at `vertex_radius`
/// and angles 2πk/m.
fn polygon_radius(angle: f64, vertex_radius: f64, m: usize) -> f64 {
    let sector = 2.0 * PI / m as f64;
    let offset = angle.rem_euclid(sector) - 0.5 * sector;
    vertex_radius * (PI / m as f64).cos() / offset.cos()
}

/// Worst-case relative error of the m-edge pyramid, measured in the plane of constant normal force and
/// relative to ‖fₜ‖ (module docs); sampled over the boundary. Equals 1 − cos(π/m) for both fits.
pub fn pyramid_relative_error(edges: usize, fit: PyramidFit) -> f64 {
    let m = edges.max(3);
    let samples = m * SAMPLES_PER_FACE;
    (0..samples)
        .map(|s| {
            let angle = 2.0 * PI * s as f64 / samples as f64;
            // Cone section: the unit circle. Circumscribed: the polygon point farthest out along this
            // direction (apothem 1), its radial distance to the disc, relative to its own radius.
            // Inscribed: the circle point, its Euclidean distance to the polygon, relative to 1.
            match fit {
                PyramidFit::Circumscribed => {
                    let r = polygon_radius(angle, 1.0 / (PI / m as f64).cos(), m);
                    (r - 1.0) / r
                }
                PyramidFit::Inscribed => distance_to_polygon(&Vector2::new(angle.cos(), angle.sin()), 1.0, m),
            }
        })
        .fold(0.0, f64::max)
}

/// Distance from a point of the plane to the m-gon with vertices r·(cos 2πk/m, sin 2πk/m).
fn distance_to_polygon(p: &Vector2<f64>, r: f64, m: usize) -> f64 {
    let q = crate::friction::project_onto_polygon([p.x, p.y], r, m);
    (p - Vector2::new(q[0], q[1])).norm()
}

/// The closed form 1 − cos(π/m) of [`pyramid_relative_error`].
pub fn pyramid_relative_error_closed_form(edges: usize) -> f64 {
    1.0 - (PI / edges.max(3) as f64).cos()
}

/// The chapter's ε with Euclidean distances in force space, relative to ‖f‖ (depends on μ):
/// circumscribed, max over f ∈ 𝒦_poly of d(f, 𝒦)/‖f‖; inscribed, max over f ∈ 𝒦 of d(f, 𝒦_poly)/‖f‖.
/// Sampled over the boundary generators.
pub fn pyramid_relative_error_3d(edges: usize, mu: f64, fit: PyramidFit) -> f64 {
    let m = edges.max(3);
    let samples = m * SAMPLES_PER_FACE;
    let apothem_to_vertex = 1.0 / (PI / m as f64).cos();
    (0..samples)
        .map(|s| {
            let angle = 2.0 * PI * s as f64 / samples as f64;
            match fit {
                PyramidFit::Circumscribed => {
                    let r = polygon_radius(angle, mu * apothem_to_vertex, m);
                    let f = Vector3::new(r * angle.cos(), r * angle.sin(), 1.0).normalize();
                    (f - project_onto_circular_cone(&f, mu)).norm()
                }
                PyramidFit::Inscribed => {
                    let f = Vector3::new(mu * angle.cos(), mu * angle.sin(), 1.0).normalize();
                    distance_to_pyramid(&f, mu, m)
                }
            }
        })
        .fold(0.0, f64::max)
}

/// Distance from f to the inscribed pyramid cone{d₀ … d_{m−1}}: 0 inside, else the least distance to a
/// face cone{dₖ, dₖ₊₁}.
fn distance_to_pyramid(f: &Vector3<f64>, mu: f64, m: usize) -> f64 {
    let edges = pyramid_edges(mu, m);
    let inside = (0..m).all(|k| {
        let [c, s] = edge_direction(k, m);
        let [c1, s1] = edge_direction((k + 1) % m, m);
        let normal = Vector3::new(mu * c, mu * s, 1.0).cross(&Vector3::new(mu * c1, mu * s1, 1.0));
        normal.dot(f) >= 0.0
    });
    if inside {
        return 0.0;
    }
    (0..m)
        .filter_map(|k| Some(distance_to_face(f, edges.get(k)?, edges.get((k + 1) % m)?)))
        .fold(f64::INFINITY, f64::min)
}

/// Distance from f to the two-generator cone {a e₁ + b e₂ : a, b ≥ 0}.
fn distance_to_face(f: &Vector3<f64>, e1: &Vector3<f64>, e2: &Vector3<f64>) -> f64 {
    let (g11, g12, g22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (r1, r2) = (e1.dot(f), e2.dot(f));
    let det = g11 * g22 - g12 * g12;
    if det > 0.0 {
        let a = (g22 * r1 - g12 * r2) / det;
        let b = (g11 * r2 - g12 * r1) / det;
        if a >= 0.0 && b >= 0.0 {
            return (f - e1 * a - e2 * b).norm();
        }
    }
    let ray = |e: &Vector3<f64>, r: f64, g: f64| (f - e * (r / g).max(0.0)).norm();
    ray(e1, r1, g11).min(ray(e2, r2, g22))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inscribed_3d_error_matches_the_mid_face_closed_form() {
        // Mid-face point f = (μ, 0, 1)/√(1+μ²) rotated to the face middle; the face plane has normal
        // ∝ (1, 0, −μcos(π/m)) there, so d/‖f‖ = μ(1 − cos(π/m)) / (√(1 + μ²cos²(π/m)) √(1 + μ²)).
        for (m, mu) in [(4, 0.5), (8, 1.0), (16, 0.3)] {
            let c = (PI / m as f64).cos();
            let expected = mu * (1.0 - c) / ((1.0 + mu * mu * c * c).sqrt() * (1.0 + mu * mu).sqrt());
            let sampled = pyramid_relative_error_3d(m, mu, PyramidFit::Inscribed);
            assert!(
                (sampled - expected).abs() < 1e-12,
                "m {m} μ {mu}: {sampled} vs {expected}"
            );
        }
    }

    #[test]
    fn circumscribed_3d_error_matches_the_vertex_closed_form() {
        // At a vertex, tan β = μ/cos(π/m) against the cone's tan α = μ: d/‖f‖ = sin(β − α).
        for (m, mu) in [(4, 1.0), (8, 0.5)] {
            let expected = ((mu / (PI / m as f64).cos()).atan() - mu.atan()).sin();
            let sampled = pyramid_relative_error_3d(m, mu, PyramidFit::Circumscribed);
            assert!(
                (sampled - expected).abs() < 1e-12,
                "m {m} μ {mu}: {sampled} vs {expected}"
            );
        }
    }
}
