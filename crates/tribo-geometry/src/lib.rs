//! Collision shapes: tribo's `Geometry` (Choreonoid conventions) as parry shapes, for every engine
//! that collides with parry (rapier and pgs).
//!
//! Choreonoid puts the axis of cylinders, capsules and cones along local **+Y**, centred on the
//! shape origin, a cone's apex at +h/2. parry 0.31 uses exactly the same convention
//! (`parry3d::shape::{Cylinder, Capsule, Cone}` docs: "aligned with the Y axis", cone "apex at
//! y = +half_height"), so no extra rotation is needed: only full extents become half extents.
//!
//! A mesh becomes what its `collision` mode asks ([`tribo_model::MeshCollision`]): the convex
//! hull of its vertices (`ConvexPolyhedron::from_convex_hull`), a `TriMesh` (internal edges
//! fixed, so that objects slide over the seams between triangles), or parry's V-HACD convex
//! decomposition (a compound of hulls).

use parry3d_f64::math::Vector;
use parry3d_f64::shape::{SharedShape, TriMeshFlags};
use tribo_model::{Geometry, Mesh, MeshCollision};

/// The parry shape for `geometry`, or a message saying which dimension is unusable.
pub fn shared_shape(geometry: &Geometry) -> Result<SharedShape, String> {
    match geometry {
        Geometry::Box { size } => {
            for (axis, extent) in ["x", "y", "z"].iter().zip(size.iter()) {
                positive(&format!("Box size {axis}"), *extent)?;
            }
            Ok(SharedShape::cuboid(size.x / 2.0, size.y / 2.0, size.z / 2.0))
        }
        Geometry::Sphere { radius } => {
            positive("Sphere radius", *radius)?;
            Ok(SharedShape::ball(*radius))
        }
        Geometry::Cylinder { radius, height } => {
            positive("Cylinder radius", *radius)?;
            positive("Cylinder height", *height)?;
            Ok(SharedShape::cylinder(height / 2.0, *radius))
        }
        Geometry::Capsule { radius, height } => {
            positive("Capsule radius", *radius)?;
            // A capsule of zero cylindrical height is a sphere; parry accepts it.
            non_negative("Capsule height", *height)?;
            Ok(SharedShape::capsule_y(height / 2.0, *radius))
        }
        Geometry::Cone { radius, height } => {
            positive("Cone radius", *radius)?;
            positive("Cone height", *height)?;
            Ok(SharedShape::cone(height / 2.0, *radius))
        }
        Geometry::Mesh(mesh) => mesh_shape(mesh),
    }
}

/// The parry shape of a mesh in its collision mode, or why there is none.
fn mesh_shape(mesh: &Mesh) -> Result<SharedShape, String> {
    let points: Vec<Vector> = mesh.vertices.iter().map(|v| Vector::new(v.x, v.y, v.z)).collect();
    let what = &mesh.origin;
    match mesh.collision {
        MeshCollision::ConvexHull => {
            let flat = || format!("mesh {what} has no convex hull: its vertices are flat or fewer than four");
            let hull = SharedShape::convex_hull(&points).ok_or_else(flat)?;
            // A hull of coplanar points is a two-sided polygon with no inside: refused too.
            let (lo, hi) = mesh.bounds();
            let volume = hull.mass_properties(1.0).mass();
            if !volume.is_finite() || volume <= 1e-12 * (hi - lo).max().powi(3) {
                return Err(flat());
            }
            Ok(hull)
        }
        MeshCollision::TriangleMesh => {
            let fixed = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::DELETE_DEGENERATE_TRIANGLES;
            SharedShape::trimesh_with_flags(points.clone(), mesh.triangles.clone(), fixed)
                .or_else(|_| {
                    SharedShape::trimesh_with_flags(
                        points,
                        mesh.triangles.clone(),
                        TriMeshFlags::DELETE_DEGENERATE_TRIANGLES,
                    )
                })
                .map_err(|e| format!("mesh {what} is not a usable triangle mesh: {e}"))
        }
        MeshCollision::ConvexDecomposition => {
            let shape = SharedShape::convex_decomposition(&points, &mesh.triangles);
            match shape.as_compound() {
                Some(c) if c.shapes().is_empty() => Err(format!("mesh {what} gave no convex parts")),
                _ => Ok(shape),
            }
        }
    }
}

fn positive(what: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(format!("{what} must be a positive length, found {value}"))
    }
}

fn non_negative(what: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!("{what} must not be negative, found {value}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;
    use parry3d_f64::math::{Pose, Vector};
    use parry3d_f64::query;
    use parry3d_f64::shape::HalfSpace;

    /// Signed distance from the shape, placed at `y` above the ground plane y = 0 (normal +Y),
    /// to that plane: the lowest point of the shape along −Y.
    fn lowest_point(geometry: Geometry, y: f64) -> f64 {
        let shape = shared_shape(&geometry).expect("valid geometry");
        let contact = query::contact(
            &Pose::IDENTITY,
            &HalfSpace::new(Vector::Y),
            &Pose::translation(0.0, y, 0.0),
            shape.as_ref(),
            10.0,
        )
        .expect("supported pair")
        .expect("within the margin");
        contact.dist
    }

    #[test]
    fn axis_shapes_extend_along_local_y_like_choreonoid() {
        // Cylinder of height 1: its bottom face is at y − 0.5.
        assert!(
            (lowest_point(
                Geometry::Cylinder {
                    radius: 0.2,
                    height: 1.0
                },
                0.49
            ) + 0.01)
                .abs()
                < 1e-9
        );
        // Capsule of cylindrical height 1 and radius 0.1: bottom at y − 0.5 − 0.1.
        assert!(
            (lowest_point(
                Geometry::Capsule {
                    radius: 0.1,
                    height: 1.0
                },
                0.7
            ) - 0.1)
                .abs()
                < 1e-9
        );
        // Cone of height 1: base (its lowest face) at y − 0.5.
        assert!(
            (lowest_point(
                Geometry::Cone {
                    radius: 0.3,
                    height: 1.0
                },
                0.6
            ) - 0.1)
                .abs()
                < 1e-9
        );
        // Box of full size (1, 2, 3): bottom at y − 1.
        assert!(
            (lowest_point(
                Geometry::Box {
                    size: Vector3::new(1.0, 2.0, 3.0)
                },
                1.25
            ) - 0.25)
                .abs()
                < 1e-9
        );
        assert!((lowest_point(Geometry::Sphere { radius: 0.3 }, 0.5) - 0.2).abs() < 1e-9);
    }

    #[test]
    fn cone_apex_is_at_plus_half_height() {
        // Flipped upside down (rotated π about X), the apex becomes the lowest point: the
        // distance to the plane is then set by the apex, at y − h/2 as well.
        let shape = shared_shape(&Geometry::Cone {
            radius: 0.3,
            height: 1.0,
        })
        .expect("valid cone");
        let flipped = Pose::from_parts(
            Vector::new(0.0, 0.6, 0.0),
            parry3d_f64::math::Rotation::from_rotation_x(std::f64::consts::PI),
        );
        let up = query::contact(
            &Pose::IDENTITY,
            &HalfSpace::new(Vector::Y),
            &flipped,
            shape.as_ref(),
            10.0,
        )
        .expect("supported")
        .expect("close");
        assert!((up.dist - 0.1).abs() < 1e-9);
        // The contact point is the single apex, on the axis.
        assert!(up.point2.x.abs() < 1e-9 && up.point2.z.abs() < 1e-9);
    }

    /// The octahedron |x| + |y| + |z| ≤ r as a mesh.
    fn octahedron(r: f64, collision: MeshCollision) -> Geometry {
        let vertices = vec![
            Vector3::new(r, 0.0, 0.0),
            Vector3::new(-r, 0.0, 0.0),
            Vector3::new(0.0, r, 0.0),
            Vector3::new(0.0, -r, 0.0),
            Vector3::new(0.0, 0.0, r),
            Vector3::new(0.0, 0.0, -r),
        ];
        let mut triangles = Vec::new();
        for (x, sx) in [(0u32, 1.0), (1, -1.0)] {
            for (y, sy) in [(2u32, 1.0), (3, -1.0)] {
                for (z, sz) in [(4u32, 1.0), (5, -1.0)] {
                    // Outward: counter-clockwise seen from the octant's direction.
                    let flip: f64 = sx * sy * sz;
                    triangles.push(if flip > 0.0 { [x, y, z] } else { [x, z, y] });
                }
            }
        }
        Geometry::Mesh(std::sync::Arc::new(
            Mesh::new(vertices, triangles, collision, "octahedron").expect("valid"),
        ))
    }

    #[test]
    fn meshes_become_hulls_triangle_meshes_or_decompositions() {
        for collision in [
            MeshCollision::ConvexHull,
            MeshCollision::TriangleMesh,
            MeshCollision::ConvexDecomposition,
        ] {
            // A vertex is the lowest point: at y − r above the top face (y = 0) of a slab.
            let shape = shared_shape(&octahedron(0.2, collision)).expect("mesh shape");
            let slab = parry3d_f64::shape::Cuboid::new(Vector::new(5.0, 0.5, 5.0));
            let contact = query::contact(
                &Pose::translation(0.0, -0.5, 0.0),
                &slab,
                &Pose::translation(0.0, 0.5, 0.0),
                shape.as_ref(),
                10.0,
            )
            .expect("supported pair")
            .expect("within the margin");
            assert!((contact.dist - 0.3).abs() < 1e-9, "{collision:?}: {}", contact.dist);
        }
        assert!(shared_shape(&octahedron(0.2, MeshCollision::ConvexHull))
            .expect("hull")
            .as_convex_polyhedron()
            .is_some());
        let flat = Geometry::Mesh(std::sync::Arc::new(
            Mesh::new(
                vec![Vector3::zeros(), Vector3::x(), Vector3::y()],
                vec![[0, 1, 2]],
                MeshCollision::ConvexHull,
                "`flat.stl`",
            )
            .expect("valid"),
        ));
        let err = shared_shape(&flat).expect_err("flat");
        assert!(err.starts_with("mesh `flat.stl` has no convex hull"), "{err}");
    }

    #[test]
    fn unusable_dimensions_are_reported() {
        let err = shared_shape(&Geometry::Sphere { radius: 0.0 }).expect_err("zero radius");
        assert_eq!(err, "Sphere radius must be a positive length, found 0");
        let err = shared_shape(&Geometry::Box {
            size: Vector3::new(1.0, f64::NAN, 1.0),
        })
        .expect_err("NaN");
        assert_eq!(err, "Box size y must be a positive length, found NaN");
    }
}
