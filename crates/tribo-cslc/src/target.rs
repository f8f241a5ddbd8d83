//! Contact targets through their signed distance (`docs/design/lattice-model.md` §3.3).
//!
//! Sign convention: `distance(x)` is the usual signed distance, **positive outside** the solid
//! and negative inside. A lattice sphere of radius `r` centred at `q` penetrates by
//! `φ = r − distance(q)`; it touches when `φ > 0`. `normal(x)` is the unit outward normal
//! (the gradient of the distance), along which the target pushes the sphere.
//! Cylinder, capsule and cone have their axis on local +Y (Choreonoid convention), centred at
//! the local origin.

use nalgebra::{Isometry3, Point3, Vector2, Vector3};

/// Rigid velocity of a body: linear velocity of its frame origin and angular velocity, world frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Twist {
    /// Velocity of the body-frame origin, m/s.
    pub linear: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub angular: Vector3<f64>,
}

impl Twist {
    /// Velocity of the body point at world position `x` when the frame origin is at `origin`.
    pub fn velocity_at(&self, origin: &Point3<f64>, x: &Point3<f64>) -> Vector3<f64> {
        self.linear + self.angular.cross(&(x - origin))
    }
}

/// Something a lattice sphere can touch (world frame).
pub trait Target: Sync {
    /// Signed distance of world point `x` to the surface, positive outside, m.
    fn distance(&self, x: &Point3<f64>) -> f64;
    /// Unit outward surface normal at (or nearest to) world point `x`.
    fn normal(&self, x: &Point3<f64>) -> Vector3<f64>;
    /// Velocity of the target's material at world point `x`, m/s.
    fn surface_velocity(&self, x: &Point3<f64>) -> Vector3<f64>;
    /// The target as a primitive and its pose, when it is one: a pad then queries it in the
    /// shape frame through one relative pose per step (`frames.rs`).
    fn posed_shape(&self) -> Option<(&dyn Shape, &Isometry3<f64>)> {
        None
    }
    /// The target's rigid motion, when it moves as one body: its twist and the point its linear
    /// velocity is of, so that [`Target::surface_velocity`] at `x` is
    /// [`Twist::velocity_at`]`(origin, x)` — a pad then evaluates it in line, sphere by sphere,
    /// instead of calling the target for each.
    fn rigid_motion(&self) -> Option<(Twist, Point3<f64>)> {
        None
    }
}

/// A primitive in its own frame.
pub trait Shape: Sync {
    /// Signed distance in the shape frame, positive outside.
    fn local_distance(&self, p: &Point3<f64>) -> f64;
    /// Outward unit normal (distance gradient) in the shape frame.
    fn local_normal(&self, p: &Point3<f64>) -> Vector3<f64>;
    /// Both at once (`local_distance`, `local_normal`); shapes whose two share their work
    /// override it.
    fn local_distance_and_normal(&self, p: &Point3<f64>) -> (f64, Vector3<f64>) {
        (self.local_distance(p), self.local_normal(p))
    }
    /// `local_distance` is the exact signed Euclidean distance of a convex solid, and
    /// `local_normal` its gradient (a subgradient where it has none). Such a distance is
    /// 1-Lipschitz (no point within `s` of `p` is nearer than `local_distance(p) − s`) and convex
    /// (never below its tangent plane `d(p₀) + n(p₀)·(p − p₀)`; Boyd & Vandenberghe, *Convex
    /// Optimization*, 2004, §3.1.3 and exercise 3.12's distance to a convex set). A pad then skips
    /// the shape for spheres provably out of its reach (`reach.rs`) or out of contact
    /// (`assemble.rs`, `solver.rs` `out_of_contact_at`); a shape that only bounds or approximates its distance, or is
    /// not convex, keeps the default `false` and is always queried.
    fn exact_convex_distance(&self) -> bool {
        false
    }
    /// The shape's distance as a closed form that holds in any frame, if it has one: a pad then
    /// places the shape in its own frame once per step and queries it without rotating each
    /// point into the shape frame (`frames.rs`). Such a shape must answer exactly as
    /// `local_distance_and_normal` does, up to rounding.
    fn frame_free(&self) -> Option<FrameFree> {
        None
    }
    /// A face whose plane the shape's distance follows over the whole shape-frame box
    /// `[lower, upper]`, if there is one: `(o, m)`, a point of the plane and its outward unit
    /// normal (shape frame), such that `local_distance_and_normal(p) = (m·(p − o), m)` up to
    /// rounding for every `p` in the box. A pad whose queries of a step all lie in that box
    /// queries the plane as a half-space instead (`frames.rs`): a floor under a foot.
    fn face_within(&self, _lower: &Vector3<f64>, _upper: &Vector3<f64>) -> Option<(Point3<f64>, Vector3<f64>)> {
        None
    }
}

/// A shape fixed in any frame by a point and a direction ([`Shape::frame_free`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameFree {
    /// A ball about the shape origin: distance `|p − c| − radius`, normal `(p − c)/|p − c|`
    /// (the shape frame's +Z at the centre itself).
    Ball {
        /// Radius, m.
        radius: f64,
    },
    /// The half-space below the shape frame's XY plane: distance `m·(p − o)`, normal `m`, with
    /// `o` the shape origin and `m` its +Z axis.
    HalfSpace,
}

/// A shape placed in the world with a pose and a rigid velocity.
#[derive(Debug, Clone, PartialEq)]
pub struct Posed<S: Shape> {
    /// The primitive.
    pub shape: S,
    /// Pose of the shape frame in the world.
    pub pose: Isometry3<f64>,
    /// Rigid velocity (world).
    pub twist: Twist,
}

impl<S: Shape> Posed<S> {
    /// A resting shape at `pose`.
    pub fn new(shape: S, pose: Isometry3<f64>) -> Self {
        Posed {
            shape,
            pose,
            twist: Twist::default(),
        }
    }

    /// The same shape moving with `twist`.
    pub fn moving(mut self, twist: Twist) -> Self {
        self.twist = twist;
        self
    }
}

impl<S: Shape> Target for Posed<S> {
    fn distance(&self, x: &Point3<f64>) -> f64 {
        self.shape.local_distance(&self.pose.inverse_transform_point(x))
    }
    fn normal(&self, x: &Point3<f64>) -> Vector3<f64> {
        self.pose.rotation * self.shape.local_normal(&self.pose.inverse_transform_point(x))
    }
    fn surface_velocity(&self, x: &Point3<f64>) -> Vector3<f64> {
        self.twist.velocity_at(&Point3::from(self.pose.translation.vector), x)
    }
    fn posed_shape(&self) -> Option<(&dyn Shape, &Isometry3<f64>)> {
        Some((&self.shape, &self.pose))
    }
    fn rigid_motion(&self) -> Option<(Twist, Point3<f64>)> {
        Some((self.twist, Point3::from(self.pose.translation.vector)))
    }
}

/// Half-space `z ≤ 0` of its frame; outward normal +Z.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Plane;

impl Shape for Plane {
    fn exact_convex_distance(&self) -> bool {
        true
    }
    fn local_distance(&self, p: &Point3<f64>) -> f64 {
        p.z
    }
    fn local_normal(&self, _p: &Point3<f64>) -> Vector3<f64> {
        Vector3::z()
    }
    fn frame_free(&self) -> Option<FrameFree> {
        Some(FrameFree::HalfSpace)
    }
}

/// Ball of radius `radius` centred at the origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    /// Radius, m.
    pub radius: f64,
}

impl Shape for Sphere {
    fn exact_convex_distance(&self) -> bool {
        true
    }
    fn local_distance(&self, p: &Point3<f64>) -> f64 {
        p.coords.norm() - self.radius
    }
    fn local_normal(&self, p: &Point3<f64>) -> Vector3<f64> {
        p.coords.try_normalize(1e-300).unwrap_or_else(Vector3::z)
    }
    fn local_distance_and_normal(&self, p: &Point3<f64>) -> (f64, Vector3<f64>) {
        let length = p.coords.norm();
        let normal = if length > 1e-300 {
            p.coords / length
        } else {
            Vector3::z()
        };
        (length - self.radius, normal)
    }
    fn frame_free(&self) -> Option<FrameFree> {
        Some(FrameFree::Ball { radius: self.radius })
    }
}

/// Box of half-extents `half_extents` centred at the origin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cuboid {
    /// Half-extents along X, Y and Z, m.
    pub half_extents: Vector3<f64>,
}

impl Shape for Cuboid {
    fn exact_convex_distance(&self) -> bool {
        true
    }
    /// Exact box distance (Quílez; e.g. Hart, "Sphere tracing", 1996 §A):
    /// `q = |p| − e`; `d = |max(q, 0)| + min(max_k q_k, 0)`.
    fn local_distance(&self, p: &Point3<f64>) -> f64 {
        let q = p.coords.abs() - self.half_extents;
        q.map(|v| v.max(0.0)).norm() + q.max().min(0.0)
    }
    fn local_normal(&self, p: &Point3<f64>) -> Vector3<f64> {
        self.local_distance_and_normal(p).1
    }
    fn local_distance_and_normal(&self, p: &Point3<f64>) -> (f64, Vector3<f64>) {
        let q = p.coords.abs() - self.half_extents;
        let sign = p.coords.map(|v| if v < 0.0 { -1.0 } else { 1.0 });
        let outside = q.map(|v| v.max(0.0));
        let outside_length = outside.norm();
        let distance = outside_length + q.max().min(0.0);
        if outside_length > 1e-300 {
            return (distance, (outside / outside_length).component_mul(&sign));
        }
        // Inside: the gradient is the outward normal of the nearest face.
        let axis = q.imax();
        let mut n = Vector3::zeros();
        if let (Some(c), Some(s)) = (n.get_mut(axis), sign.get(axis)) {
            *c = *s;
        }
        (distance, n)
    }
    /// Face `s·ê_k` (`s = ±1`) when, over the box, `s p_k > 0`, `|p_j| < e_j` and
    /// `q_k > q_j` for both other axes `j` (`q = |p| − e`, as in `local_distance`). Then `q_k`
    /// is the largest component and the only positive one, so the distance is `q_k = s p_k − e_k`
    /// whether the point is outside (`|max(q, 0)| = q_k`) or inside (`max_j q_j = q_k`), and the
    /// normal is `s ê_k` either way. Over the box, `s p_k ≥ n_k` (its near side along `s ê_k`)
    /// and `|p_j| ≤ r_j = max(|lower_j|, |upper_j|)`, so `n_k − e_k > r_j − e_j` suffices.
    fn face_within(&self, lower: &Vector3<f64>, upper: &Vector3<f64>) -> Option<(Point3<f64>, Vector3<f64>)> {
        let e = &self.half_extents;
        let reach = lower.abs().sup(&upper.abs());
        for k in 0..3 {
            for sign in [1.0, -1.0] {
                let near = if sign > 0.0 { lower[k] } else { -upper[k] };
                let gap = near - e[k];
                let others_inside = (0..3)
                    .filter(|&j| j != k)
                    .all(|j| reach[j] < e[j] && gap > reach[j] - e[j]);
                if near > 0.0 && others_inside {
                    let normal = Vector3::ith(k, sign);
                    return Some((Point3::from(normal * e[k]), normal));
                }
            }
        }
        None
    }
}

/// A solid of revolution about local +Y whose meridian profile `(ρ, y)`, `ρ ≥ 0`, is a convex
/// polygon closed by the axis. `edges` are the non-axis boundary segments.
fn revolved_distance_and_normal(edges: &[(Vector2<f64>, Vector2<f64>)], p: &Point3<f64>) -> (f64, Vector3<f64>) {
    let rho = (p.x * p.x + p.z * p.z).sqrt();
    let q = Vector2::new(rho, p.y);
    let mut best = (f64::INFINITY, Vector2::new(0.0, 1.0), Vector2::new(0.0, 1.0));
    let mut inside = true;
    for (a, b) in edges {
        let e = b - a;
        let len2 = e.norm_squared();
        let t = if len2 > 0.0 {
            ((q - a).dot(&e) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let c = a + e * t;
        let d = (q - c).norm();
        // Outward normal of a counter-clockwise-oriented edge in (ρ, y): (e_y, −e_x).
        let outward = Vector2::new(e.y, -e.x)
            .try_normalize(1e-300)
            .unwrap_or(Vector2::new(0.0, 1.0));
        if (q - a).dot(&outward) > 0.0 {
            inside = false;
        }
        if d < best.0 {
            best = (d, c, outward);
        }
    }
    let (d, c, edge_normal) = best;
    let n2 = if inside {
        edge_normal
    } else {
        (q - c).try_normalize(1e-300).unwrap_or(edge_normal)
    };
    let radial = Vector3::new(p.x, 0.0, p.z)
        .try_normalize(1e-300)
        .unwrap_or_else(Vector3::x);
    let normal = radial * n2.x + Vector3::y() * n2.y;
    (if inside { -d } else { d }, normal)
}

/// Cylinder of radius `radius` and total height `height` along local Y, centred.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cylinder {
    /// Radius, m.
    pub radius: f64,
    /// Height along Y, m.
    pub height: f64,
}

impl Cylinder {
    fn edges(&self) -> [(Vector2<f64>, Vector2<f64>); 3] {
        let (r, h) = (self.radius, 0.5 * self.height);
        [
            (Vector2::new(0.0, -h), Vector2::new(r, -h)),
            (Vector2::new(r, -h), Vector2::new(r, h)),
            (Vector2::new(r, h), Vector2::new(0.0, h)),
        ]
    }
}

/// [`Shape`] for a solid of revolution whose `edges()` give its meridian profile
/// ([`revolved_distance_and_normal`]): convex, its distance exact.
macro_rules! revolved_shape {
    ($solid:ty) => {
        impl Shape for $solid {
            fn exact_convex_distance(&self) -> bool {
                true
            }
            fn local_distance(&self, p: &Point3<f64>) -> f64 {
                revolved_distance_and_normal(&self.edges(), p).0
            }
            fn local_normal(&self, p: &Point3<f64>) -> Vector3<f64> {
                revolved_distance_and_normal(&self.edges(), p).1
            }
            fn local_distance_and_normal(&self, p: &Point3<f64>) -> (f64, Vector3<f64>) {
                revolved_distance_and_normal(&self.edges(), p)
            }
        }
    };
}

revolved_shape!(Cylinder);

/// Cone of base radius `radius` and height `height` along local +Y, centred: base at
/// `y = −height/2`, apex at `y = +height/2`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cone {
    /// Base radius, m.
    pub radius: f64,
    /// Height, m.
    pub height: f64,
}

impl Cone {
    fn edges(&self) -> [(Vector2<f64>, Vector2<f64>); 2] {
        let (r, h) = (self.radius, 0.5 * self.height);
        [
            (Vector2::new(0.0, -h), Vector2::new(r, -h)),
            (Vector2::new(r, -h), Vector2::new(0.0, h)),
        ]
    }
}

revolved_shape!(Cone);

/// Capsule: the points within `radius` of the segment `y ∈ [−length/2, length/2]` on local Y.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    /// Radius, m.
    pub radius: f64,
    /// Length of the axis segment (cylindrical part), m.
    pub length: f64,
}

impl Capsule {
    fn offset(&self, p: &Point3<f64>) -> Vector3<f64> {
        let h = 0.5 * self.length;
        p.coords - Vector3::new(0.0, p.y.clamp(-h, h), 0.0)
    }
}

impl Shape for Capsule {
    fn exact_convex_distance(&self) -> bool {
        true
    }
    fn local_distance(&self, p: &Point3<f64>) -> f64 {
        self.offset(p).norm() - self.radius
    }
    fn local_normal(&self, p: &Point3<f64>) -> Vector3<f64> {
        self.offset(p).try_normalize(1e-300).unwrap_or_else(Vector3::x)
    }
    fn local_distance_and_normal(&self, p: &Point3<f64>) -> (f64, Vector3<f64>) {
        let offset = self.offset(p);
        let length = offset.norm();
        let normal = if length > 1e-300 { offset / length } else { Vector3::x() };
        (length - self.radius, normal)
    }
}
