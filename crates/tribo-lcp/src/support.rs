//! The support polygon (`docs/design/contact-mechanics.md` §4.4.2: the CoP, and the ZMP for balance,
//! must lie in it): the convex hull of the contact points in the contact plane, and the signed distance
//! of a point to it.

use nalgebra::{Vector2, Vector3};
use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::friction::ContactFrame;
use crate::zmp::Plane;

/// Convex hull of contact points projected on a plane, counter-clockwise about the plane normal.
#[derive(Debug, Clone, PartialEq)]
pub struct SupportPolygon {
    plane: Plane,
    frame: ContactFrame,
    vertices: Vec<Vector2<f64>>,
}

impl SupportPolygon {
    /// The hull (Andrew's monotone chain; collinear points dropped; deterministic for a given input).
    pub fn new(points: &[Vector3<f64>], plane: &Plane) -> Result<Self> {
        if points.is_empty() {
            return Err(Error::Empty {
                what: "support point list",
            });
        }
        let frame = ContactFrame::from_normal(&plane.normal).ok_or(Error::ZeroNormal {
            what: "plane",
            index: 0,
        })?;
        let mut projected: Vec<Vector2<f64>> = points
            .iter()
            .map(|p| {
                let d = p - plane.point;
                Vector2::new(frame.t1.dot(&d), frame.t2.dot(&d))
            })
            .collect();
        projected.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
        projected.dedup();
        Ok(Self {
            plane: *plane,
            frame,
            vertices: monotone_chain(&projected),
        })
    }

    /// Vertices in plane coordinates (t₁, t₂ of [`ContactFrame::from_normal`] of the plane normal), CCW.
    pub fn vertices_2d(&self) -> &[Vector2<f64>] {
        &self.vertices
    }

    /// Vertices in world coordinates (on the plane), CCW about the normal.
    pub fn vertices(&self) -> Vec<Vector3<f64>> {
        self.vertices
            .iter()
            .map(|v| self.plane.point + self.frame.t1 * v.x + self.frame.t2 * v.y)
            .collect()
    }

    /// Signed distance (m) from the projection of `p` to the polygon boundary: positive inside (distance
    /// to the nearest edge, the stability margin), negative outside (minus the distance to the polygon).
    /// A hull of one or two points has no inside: the result is minus the distance to the point or segment.
    pub fn margin(&self, p: &Vector3<f64>) -> f64 {
        let d = p - self.plane.point;
        let q = Vector2::new(self.frame.t1.dot(&d), self.frame.t2.dot(&d));
        let edges: Vec<(Vector2<f64>, Vector2<f64>)> = match self.vertices.len() {
            0 => return f64::NEG_INFINITY,
            1 => return -(q - self.vertices[0]).norm(),
            2 => return -segment_distance(&q, &self.vertices[0], &self.vertices[1]),
            n => (0..n).map(|i| (self.vertices[i], self.vertices[(i + 1) % n])).collect(),
        };
        let inside = edges
            .iter()
            .map(|(a, b)| cross(&(b - a), &(q - a)) / (b - a).norm())
            .fold(f64::INFINITY, f64::min);
        if inside >= 0.0 {
            inside
        } else {
            -edges
                .iter()
                .map(|(a, b)| segment_distance(&q, a, b))
                .fold(f64::INFINITY, f64::min)
        }
    }

    /// Is the projection of `p` inside the polygon or on its boundary?
    pub fn contains(&self, p: &Vector3<f64>) -> bool {
        self.margin(p) >= 0.0
    }
}

fn cross(a: &Vector2<f64>, b: &Vector2<f64>) -> f64 {
    a.x * b.y - a.y * b.x
}

fn segment_distance(q: &Vector2<f64>, a: &Vector2<f64>, b: &Vector2<f64>) -> f64 {
    let e = b - a;
    let length2 = e.norm_squared();
    let s = if length2 > 0.0 {
        ((q - a).dot(&e) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (q - (a + e * s)).norm()
}

/// Andrew's monotone chain on points sorted by (x, y) without duplicates; CCW, collinear points dropped.
fn monotone_chain(sorted: &[Vector2<f64>]) -> Vec<Vector2<f64>> {
    if sorted.len() < 3 {
        return sorted.to_vec();
    }
    let turn = |hull: &[Vector2<f64>], p: &Vector2<f64>| -> Ordering {
        match hull {
            [.., a, b] => cross(&(b - a), &(p - a)).partial_cmp(&0.0).unwrap_or(Ordering::Equal),
            _ => Ordering::Greater,
        }
    };
    let mut lower: Vec<Vector2<f64>> = Vec::new();
    for p in sorted {
        while lower.len() >= 2 && turn(&lower, p) != Ordering::Greater {
            lower.pop();
        }
        lower.push(*p);
    }
    let mut upper: Vec<Vector2<f64>> = Vec::new();
    for p in sorted.iter().rev() {
        while upper.len() >= 2 && turn(&upper, p) != Ordering::Greater {
            upper.pop();
        }
        upper.push(*p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    if lower.len() == 2 && lower.first() == lower.last() {
        lower.truncate(1);
    }
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangle_hull_and_margins() {
        // A 0.2 × 0.1 m foot with an interior point that must be dropped.
        let points = [
            Vector3::new(0.1, 0.05, 0.0),
            Vector3::new(-0.1, 0.05, 0.0),
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(-0.1, -0.05, 0.0),
            Vector3::new(0.1, -0.05, 0.0),
        ];
        let polygon = SupportPolygon::new(&points, &Plane::ground()).expect("valid");
        assert_eq!(polygon.vertices().len(), 4);
        assert!((polygon.margin(&Vector3::new(0.0, 0.0, 0.3)) - 0.05).abs() < 1e-15);
        assert!((polygon.margin(&Vector3::new(0.08, 0.0, 0.0)) - 0.02).abs() < 1e-15);
        // Outside beyond a corner: minus the distance to the corner.
        assert!((polygon.margin(&Vector3::new(0.13, 0.09, 0.0)) + 0.05).abs() < 1e-15);
        assert!(!polygon.contains(&Vector3::new(0.0, 0.06, 0.0)));
    }

    #[test]
    fn degenerate_hulls() {
        let line = [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 0.0, 0.0),
            Vector3::new(0.5, 0.0, 0.0),
        ];
        let polygon = SupportPolygon::new(&line, &Plane::ground()).expect("valid");
        assert_eq!(polygon.vertices().len(), 2);
        assert!(polygon.contains(&Vector3::new(0.5, 0.0, 0.0)));
        assert!((polygon.margin(&Vector3::new(0.5, 0.2, 0.0)) + 0.2).abs() < 1e-15);
        assert!(SupportPolygon::new(&[], &Plane::ground()).is_err());
    }
}
