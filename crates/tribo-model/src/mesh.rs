//! Triangle meshes as collision geometry: the vertices and triangles a `.body` file gives inline
//! (`TriangleMesh`, `IndexedFaceSet`), builds (`Extrusion`, `ElevationGrid`) or names
//! (`Resource` with an STL or OBJ file), and how an engine should collide them.
//!
//! Mass properties of a closed mesh come from the divergence theorem: the solid is the signed sum
//! of the tetrahedra spanned by a reference point and each triangle, and every tetrahedron's
//! volume, first moment and second moment have closed forms (the covariance of a tetrahedron, as
//! in Tonon's and Mirtich's formulations of polyhedral mass properties). Outward- and
//! inward-wound meshes give the same result (the sign of the total volume is divided out).

use std::collections::BTreeMap;
use std::fmt;

use nalgebra::{Matrix3, Vector3};

/// How an engine collides a mesh (the `collision:` key of a mesh geometry in a `.body` file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MeshCollision {
    /// The convex hull of the vertices (the default): one convex shape, as cheap as a box for
    /// the narrow phase; concave parts are filled in.
    #[default]
    ConvexHull,
    /// The triangles themselves: exact, but a triangle mesh has no inside, so it only collides
    /// well as static (fixed) geometry such as terrain; a moving triangle mesh can tunnel and
    /// cannot rest on another triangle mesh.
    TriangleMesh,
    /// An approximate convex decomposition (V-HACD) into several hulls: concave moving bodies;
    /// the decomposition costs time when the scene is built (seconds for thousands of
    /// triangles), and each part is one more convex shape per step.
    ConvexDecomposition,
}

impl MeshCollision {
    /// The spellings of the `collision:` key, in declaration order.
    pub const NAMES: [&'static str; 3] = ["convex_hull", "triangle_mesh", "convex_decomposition"];

    pub fn name(self) -> &'static str {
        match self {
            MeshCollision::ConvexHull => "convex_hull",
            MeshCollision::TriangleMesh => "triangle_mesh",
            MeshCollision::ConvexDecomposition => "convex_decomposition",
        }
    }

    pub fn from_name(name: &str) -> Option<MeshCollision> {
        match name {
            "convex_hull" => Some(MeshCollision::ConvexHull),
            "triangle_mesh" => Some(MeshCollision::TriangleMesh),
            "convex_decomposition" => Some(MeshCollision::ConvexDecomposition),
            _ => None,
        }
    }
}

/// A triangle mesh in its shape's frame, m (any scale of the file already applied).
#[derive(Clone, PartialEq)]
pub struct Mesh {
    pub vertices: Vec<Vector3<f64>>,
    /// Vertex indices, counter-clockwise seen from outside for a closed mesh.
    pub triangles: Vec<[u32; 3]>,
    pub collision: MeshCollision,
    /// Where the mesh came from, for messages: e.g. "`box.stl` (obj.body:12:9)".
    pub origin: String,
}

impl fmt::Debug for Mesh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Mesh {{ {} vertices, {} triangles, {}, {} }}",
            self.vertices.len(),
            self.triangles.len(),
            self.collision.name(),
            self.origin
        )
    }
}

/// Volume, centre and unit-density inertia of a solid mesh.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshMassProperties {
    /// m³ (≥ 0).
    pub volume: f64,
    /// Centre of the enclosed volume in the shape frame, m.
    pub centre: Vector3<f64>,
    /// Inertia about `centre` for a density of 1 kg/m³, kg·m².
    pub unit_inertia: Matrix3<f64>,
}

impl Mesh {
    /// A mesh, checked: at least one triangle, every index in range, every coordinate finite.
    pub fn new(
        vertices: Vec<Vector3<f64>>,
        triangles: Vec<[u32; 3]>,
        collision: MeshCollision,
        origin: impl Into<String>,
    ) -> Result<Mesh, String> {
        if triangles.is_empty() {
            return Err("the mesh has no triangles".to_string());
        }
        if let Some((i, v)) = vertices
            .iter()
            .enumerate()
            .find(|(_, v)| !v.iter().all(|x| x.is_finite()))
        {
            return Err(format!(
                "vertex {i} has a non-finite coordinate [{}, {}, {}]",
                v.x, v.y, v.z
            ));
        }
        let n = vertices.len();
        for (t, triangle) in triangles.iter().enumerate() {
            if let Some(&bad) = triangle.iter().find(|&&i| i as usize >= n) {
                return Err(format!(
                    "triangle {t} uses vertex {bad}, but there are only {n} vertices"
                ));
            }
        }
        Ok(Mesh {
            vertices,
            triangles,
            collision,
            origin: origin.into(),
        })
    }

    /// The corners of the axis-aligned box around the vertices (zeros for no vertices).
    pub fn bounds(&self) -> (Vector3<f64>, Vector3<f64>) {
        let mut it = self.vertices.iter();
        let Some(first) = it.next() else {
            return (Vector3::zeros(), Vector3::zeros());
        };
        it.fold((*first, *first), |(lo, hi), v| (lo.inf(v), hi.sup(v)))
    }

    /// Radius of the ball about the shape origin that contains every vertex, m.
    pub fn bounding_radius(&self) -> f64 {
        self.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max)
    }

    /// Whether every edge is shared by exactly two triangles, in opposite directions (a closed,
    /// consistently wound surface: what the mass properties need).
    pub fn is_closed(&self) -> bool {
        let mut edges: BTreeMap<(u32, u32), i32> = BTreeMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                if a == b {
                    continue;
                }
                let (key, sign) = if a < b { ((a, b), 1) } else { ((b, a), -1) };
                let e = edges.entry(key).or_insert(0);
                *e += sign;
                // Count uses in the upper bits to tell "twice, opposite" from "never".
                *e += 1 << 8;
            }
        }
        edges.values().all(|&e| e == 2 << 8)
    }

    /// Volume, centre and unit-density inertia of the enclosed solid (module docs). A mesh that
    /// encloses no volume (open, flat) gives volume 0, the mean vertex as centre and no inertia.
    pub fn mass_properties(&self) -> MeshMassProperties {
        let n = self.vertices.len().max(1) as f64;
        // Sums relative to the mean vertex are better conditioned than sums about the origin.
        let reference = self.vertices.iter().fold(Vector3::zeros(), |s, v| s + v) / n;
        let mut volume6 = 0.0; // six times the signed volume
        let mut first = Vector3::zeros(); // 24 × ∫ x dV
        let mut second = Matrix3::zeros(); // 120 × ∫ x xᵀ dV
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| self.vertices[i as usize] - reference);
            let d = a.dot(&b.cross(&c));
            volume6 += d;
            let s = a + b + c;
            first += d * s;
            // ∫ x xᵀ over the tetrahedron (0, a, b, c) = V/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ), V = d/6.
            second += d * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
        }
        let volume = volume6 / 6.0;
        let scale = 1e-12 * self.bounding_extent().powi(3);
        if !volume.is_finite() || volume.abs() <= scale {
            return MeshMassProperties {
                volume: 0.0,
                centre: reference,
                unit_inertia: Matrix3::zeros(),
            };
        }
        let sign = volume.signum();
        let centre_rel = first / 24.0 / volume; // ∫x dV = Σ V_t (a+b+c)/4 = Σ d s / 24
        let covariance = second / 120.0 * sign - volume.abs() * centre_rel * centre_rel.transpose();
        let unit_inertia = Matrix3::identity() * covariance.trace() - covariance;
        MeshMassProperties {
            volume: volume.abs(),
            centre: reference + centre_rel,
            unit_inertia: (unit_inertia + unit_inertia.transpose()) * 0.5,
        }
    }

    /// The largest extent of the bounding box, m.
    fn bounding_extent(&self) -> f64 {
        let (lo, hi) = self.bounds();
        (hi - lo).max()
    }

    /// Triangles with indices reversed (for a mirroring transform, which turns the winding).
    pub fn flip_winding(triangles: &mut [[u32; 3]]) {
        for t in triangles {
            t.swap(1, 2);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A box of full size `size` centred at `centre`, 8 vertices, 12 outward triangles.
    pub fn box_mesh(size: Vector3<f64>, centre: Vector3<f64>) -> Mesh {
        let h = size / 2.0;
        let vertices: Vec<_> = (0..8)
            .map(|i| {
                let s = |bit: u32| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
                centre + Vector3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)
            })
            .collect();
        // Faces as quads (outward, counter-clockwise), split in two.
        let quads = [
            [0, 2, 3, 1], // -z
            [4, 5, 7, 6], // +z
            [0, 1, 5, 4], // -y
            [2, 6, 7, 3], // +y
            [0, 4, 6, 2], // -x
            [1, 3, 7, 5], // +x
        ];
        let triangles = quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect();
        Mesh::new(vertices, triangles, MeshCollision::ConvexHull, "box").expect("valid box")
    }

    #[test]
    fn a_box_mesh_has_the_analytic_box_mass_properties() {
        let size = Vector3::new(0.3, 0.5, 0.7);
        let centre = Vector3::new(1.0, -2.0, 0.25);
        let mesh = box_mesh(size, centre);
        assert!(mesh.is_closed());
        let p = mesh.mass_properties();
        assert!((p.volume - 0.3 * 0.5 * 0.7).abs() < 1e-15, "{}", p.volume);
        assert!((p.centre - centre).norm() < 1e-15, "{}", p.centre);
        let mass = 2.5;
        let analytic = crate::Geometry::Box { size }.solid_inertia(mass);
        let from_mesh = p.unit_inertia * (mass / p.volume);
        assert!((from_mesh - analytic).norm() < 1e-14, "{from_mesh} vs {analytic}");
        // Inward winding gives the same solid.
        let mut inward = mesh.clone();
        Mesh::flip_winding(&mut inward.triangles);
        let q = inward.mass_properties();
        assert!((q.volume - p.volume).abs() < 1e-15 && (q.centre - p.centre).norm() < 1e-15);
        assert!((q.unit_inertia - p.unit_inertia).norm() < 1e-15);
    }

    #[test]
    fn a_rotated_box_mesh_has_the_rotated_inertia() {
        let size = Vector3::new(0.2, 0.4, 1.0);
        let r = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1);
        let mut mesh = box_mesh(size, Vector3::zeros());
        for v in &mut mesh.vertices {
            *v = r * *v;
        }
        let p = mesh.mass_properties();
        let analytic = r.matrix() * crate::Geometry::Box { size }.solid_inertia(1.0) * r.matrix().transpose();
        assert!((p.unit_inertia / p.volume - analytic).norm() < 1e-14);
    }

    #[test]
    fn open_meshes_have_no_volume_and_bad_indices_are_refused() {
        let flat = Mesh::new(
            vec![Vector3::zeros(), Vector3::x(), Vector3::y()],
            vec![[0, 1, 2]],
            MeshCollision::TriangleMesh,
            "t",
        )
        .expect("valid");
        assert!(!flat.is_closed());
        assert_eq!(flat.mass_properties().volume, 0.0);
        let err = Mesh::new(vec![Vector3::zeros()], vec![[0, 1, 2]], MeshCollision::ConvexHull, "t")
            .expect_err("index out of range");
        assert_eq!(err, "triangle 0 uses vertex 1, but there are only 1 vertices");
    }
}
