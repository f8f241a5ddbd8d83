//! Collision shapes: tribo's `Geometry` (Choreonoid conventions) as parry shapes, for every engine
//! that collides with parry (rapier and pgs).
//!
//! Choreonoid puts the axis of cylinders, capsules and cones along local **+Y**, centred on the
//! shape origin, a cone's apex at +h/2. parry 0.31 uses exactly the same convention
//! (`parry3d::shape::{Cylinder, Capsule, Cone}` docs: "aligned with the Y axis", cone "apex at
//! y = +half_height"), so no extra rotation is needed: only full extents become half extents.

use parry3d_f64::shape::SharedShape;
use tribo_model::Geometry;

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
