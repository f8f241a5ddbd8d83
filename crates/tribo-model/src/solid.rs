//! Mass properties of uniform solids, for bodies built in code.
//!
//! Textbook formulas for homogeneous solids (any dynamics text's table of moments of inertia;
//! the capsule is the sum of its cylinder and its two hemispheres, each hemisphere moved to its
//! own centre of mass by the parallel-axis theorem). Axes follow Choreonoid: cylinders, capsules
//! and cones along local +Y. A mesh is the solid its closed surface encloses
//! ([`crate::Mesh::mass_properties`]: the divergence theorem over tetrahedra).

use std::f64::consts::PI;

use nalgebra::{Isometry3, Matrix3, Vector3};
use tribo_yaml::Location;

use crate::{Body, Geometry, Joint, JointKind, Link, Shape};

impl Geometry {
    /// Volume, m³.
    pub fn volume(&self) -> f64 {
        match *self {
            Geometry::Box { size } => size.x * size.y * size.z,
            Geometry::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
            Geometry::Cylinder { radius, height } => PI * radius * radius * height,
            Geometry::Capsule { radius, height } => PI * radius * radius * (height + 4.0 / 3.0 * radius),
            Geometry::Cone { radius, height } => PI * radius * radius * height / 3.0,
            Geometry::Mesh(ref mesh) => mesh.mass_properties().volume,
        }
    }

    /// Centre of mass of the uniform solid in the geometry's own frame, m: the origin for every
    /// shape but the cone, whose centre of mass lies a quarter of its height above its base
    /// (y = −h/4, the base being at −h/2), and meshes, whose centre is that of the volume they
    /// enclose.
    pub fn centre_of_mass(&self) -> Vector3<f64> {
        match *self {
            Geometry::Cone { height, .. } => Vector3::new(0.0, -height / 4.0, 0.0),
            Geometry::Mesh(ref mesh) => mesh.mass_properties().centre,
            _ => Vector3::zeros(),
        }
    }

    /// Inertia tensor of the uniform solid of mass `mass` about its centre of mass, in the
    /// geometry's own axes, kg·m².
    ///
    /// - box a × b × c: diag(b² + c², a² + c², a² + b²) m/12;
    /// - sphere: 2/5 m r²;
    /// - cylinder (axis y): axial m r²/2, transverse m (3r² + h²)/12;
    /// - cone (axis y, about its centre of mass): axial 3/10 m r², transverse m (3r²/20 + 3h²/80);
    /// - capsule (axis y, cylinder h + two hemispheres of radius r, masses by volume): axial
    ///   m_c r²/2 + m_s 2r²/5, transverse m_c (r²/4 + h²/12) + m_s (83r²/320 + (h/2 + 3r/8)²),
    ///   where m_s is the mass of both hemispheres (83/320 r² is a hemisphere's transverse moment
    ///   about its own centre of mass, 3r/8 from its flat face);
    /// - a closed mesh: the volume integral of its tetrahedra ([`crate::Mesh::mass_properties`]),
    ///   scaled by the density m / V (zero for a mesh that encloses no volume).
    pub fn solid_inertia(&self, mass: f64) -> Matrix3<f64> {
        let diagonal = match *self {
            Geometry::Mesh(ref mesh) => {
                let p = mesh.mass_properties();
                return if p.volume > 0.0 {
                    p.unit_inertia * (mass / p.volume)
                } else {
                    Matrix3::zeros()
                };
            }
            Geometry::Box { size } => {
                let (x2, y2, z2) = (size.x * size.x, size.y * size.y, size.z * size.z);
                Vector3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 12.0)
            }
            Geometry::Sphere { radius } => Vector3::repeat(0.4 * mass * radius * radius),
            Geometry::Cylinder { radius, height } => {
                let side = mass * (3.0 * radius * radius + height * height) / 12.0;
                Vector3::new(side, 0.5 * mass * radius * radius, side)
            }
            Geometry::Cone { radius, height } => {
                let side = mass * (3.0 * radius * radius / 20.0 + 3.0 * height * height / 80.0);
                Vector3::new(side, 0.3 * mass * radius * radius, side)
            }
            Geometry::Capsule { radius, height } => {
                let cylinder_volume = PI * radius * radius * height;
                let spheres_volume = 4.0 / 3.0 * PI * radius.powi(3);
                let total = cylinder_volume + spheres_volume;
                let (m_c, m_s) = if total > 0.0 {
                    (mass * cylinder_volume / total, mass * spheres_volume / total)
                } else {
                    (0.0, 0.0)
                };
                let r2 = radius * radius;
                let axial = m_c * r2 / 2.0 + m_s * 0.4 * r2;
                let offset = height / 2.0 + 3.0 * radius / 8.0;
                let side = m_c * (r2 / 4.0 + height * height / 12.0) + m_s * (83.0 / 320.0 * r2 + offset * offset);
                Vector3::new(side, axial, side)
            }
        };
        Matrix3::from_diagonal(&diagonal)
    }
}

impl Body {
    /// A one-link free body made of one uniform solid of `mass` kg and the material `material`:
    /// its link is named `name`, its joint `root`, its centre of mass and inertia those of the
    /// solid ([`Geometry::centre_of_mass`], [`Geometry::solid_inertia`]).
    pub fn solid(name: impl Into<String>, geometry: Geometry, mass: f64, material: impl Into<String>) -> Body {
        let name = name.into();
        let mut link = Link::new(name.clone(), None, Location::file("<code>"));
        link.joint = Joint::new(JointKind::Free, "root");
        link.mass = mass;
        link.center_of_mass = geometry.centre_of_mass();
        link.inertia = geometry.solid_inertia(mass);
        link.material = material.into();
        link.shapes.push(Shape {
            geometry,
            pose: Isometry3::identity(),
            color: None,
        });
        Body {
            name,
            source: std::sync::Arc::from(""),
            links: vec![link],
            joints_by_id: Vec::new(),
            notes: Vec::new(),
            extra_joints: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inertia about the y axis through the origin of a capsule, integrated numerically over
    /// thin discs (each disc: m r_d²/4 about a diameter + m y², the parallel-axis theorem).
    fn capsule_transverse_by_discs(radius: f64, height: f64, mass: f64) -> f64 {
        let total_length = height + 2.0 * radius;
        let n = 200_000;
        let dy = total_length / n as f64;
        let density = mass / Geometry::Capsule { radius, height }.volume();
        (0..n)
            .map(|i| {
                let y = -total_length / 2.0 + (i as f64 + 0.5) * dy;
                let beyond = (y.abs() - height / 2.0).max(0.0);
                let r2 = (radius * radius - beyond * beyond).max(0.0);
                let dm = density * PI * r2 * dy;
                dm * (r2 / 4.0 + y * y)
            })
            .sum()
    }

    #[test]
    fn the_capsule_transverse_moment_matches_integration_over_discs() {
        let (r, h, m) = (0.05, 0.3, 2.0);
        let closed = Geometry::Capsule { radius: r, height: h }.solid_inertia(m)[(0, 0)];
        let integrated = capsule_transverse_by_discs(r, h, m);
        // Midpoint rule with 2e5 slices: relative error far below 1e-6.
        assert!(
            ((closed - integrated) / integrated).abs() < 1e-6,
            "{closed} vs {integrated}"
        );
    }

    #[test]
    fn the_cone_moments_match_integration_over_discs() {
        let (r, h, m) = (0.1, 0.4, 3.0);
        let cone = Geometry::Cone { radius: r, height: h };
        let density = m / cone.volume();
        let n = 200_000;
        let dy = h / n as f64;
        let com = cone.centre_of_mass().y;
        let (mut axial, mut side, mut mass, mut first_moment) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..n {
            let y = -h / 2.0 + (i as f64 + 0.5) * dy;
            let rd = r * (h / 2.0 - y) / h;
            let dm = density * PI * rd * rd * dy;
            mass += dm;
            first_moment += dm * y;
            axial += dm * rd * rd / 2.0;
            side += dm * (rd * rd / 4.0 + (y - com) * (y - com));
        }
        let inertia = cone.solid_inertia(m);
        assert!((mass - m).abs() < 1e-6 * m);
        assert!((first_moment / mass - com).abs() < 1e-9, "centre of mass");
        assert!(((inertia[(1, 1)] - axial) / axial).abs() < 1e-6);
        assert!(((inertia[(0, 0)] - side) / side).abs() < 1e-6);
    }

    #[test]
    fn a_solid_body_is_one_free_link_with_the_solid_mass_properties() {
        let body = Body::solid("ball", Geometry::Sphere { radius: 0.1 }, 2.0, "Ball");
        assert_eq!(body.links.len(), 1);
        assert_eq!(body.root().joint.kind, JointKind::Free);
        assert_eq!(body.root().material, "Ball");
        assert!((body.root().inertia[(2, 2)] - 0.4 * 2.0 * 0.01).abs() < 1e-15);
    }
}
