//! Sample trees for benchmarks and tests of code that uses this crate.
//!
//! [`humanoid`] is a 35-dof humanoid-shaped tree with plausible adult-sized link masses (≈ 60 kg in
//! total) and SR1-like joint data; it is not a model of a specific robot.

use crate::body::{Body, LinkInertia};
use crate::error::Error;
use crate::joint::Joint;
use crate::tree::Tree;
use nalgebra::{Isometry3, Vector3};

/// One revolute link of a chain: name, offset from the parent frame, joint axis, inertia, position
/// limits (rad).
type LinkSpec = (&'static str, Vector3<f64>, Vector3<f64>, LinkInertia, (f64, f64));

/// A floating pelvis (6 dofs), two 6-dof legs, a 3-dof waist, a fixed head and two 7-dof arms:
/// 31 bodies, nq = 36, nv = 35. Every revolute joint has armature 0.01 kg·m², damping
/// 0.5 N·m·s/rad, an effort limit and position limits.
pub fn humanoid() -> Result<Tree, Error> {
    let mut bodies = vec![Body::new(
        "pelvis",
        None,
        Joint::Free,
        Isometry3::identity(),
        LinkInertia::solid_box(8.0, Vector3::zeros(), Vector3::new(0.2, 0.3, 0.15)),
    )];
    for (side, sign) in [("R", -1.0), ("L", 1.0)] {
        let leg: [LinkSpec; 6] = [
            (
                "HIP_Y",
                Vector3::new(0.0, 0.1 * sign, -0.1),
                Vector3::z(),
                small(1.0),
                (-1.0, 1.0),
            ),
            (
                "HIP_R",
                Vector3::new(0.0, 0.0, -0.05),
                Vector3::x(),
                small(1.0),
                (-0.6, 0.6),
            ),
            (
                "HIP_P",
                Vector3::zeros(),
                Vector3::y(),
                rod(4.0, 0.06, 0.4),
                (-2.0, 0.8),
            ),
            (
                "KNEE",
                Vector3::new(0.0, 0.0, -0.4),
                Vector3::y(),
                rod(3.0, 0.05, 0.4),
                (0.0, 2.6),
            ),
            (
                "ANKLE_P",
                Vector3::new(0.0, 0.0, -0.4),
                Vector3::y(),
                small(0.5),
                (-1.2, 1.0),
            ),
            (
                "ANKLE_R",
                Vector3::zeros(),
                Vector3::x(),
                LinkInertia::solid_box(1.2, Vector3::new(0.03, 0.0, -0.05), Vector3::new(0.22, 0.1, 0.05)),
                (-0.6, 0.6),
            ),
        ];
        append_chain(&mut bodies, side, 0, &leg, 200.0);
    }
    let waist: [LinkSpec; 3] = [
        (
            "WAIST_Y",
            Vector3::new(0.0, 0.0, 0.1),
            Vector3::z(),
            small(1.0),
            (-1.5, 1.5),
        ),
        ("WAIST_P", Vector3::zeros(), Vector3::y(), small(1.0), (-0.5, 1.2)),
        (
            "CHEST",
            Vector3::zeros(),
            Vector3::x(),
            LinkInertia::solid_box(12.0, Vector3::new(0.0, 0.0, 0.2), Vector3::new(0.2, 0.35, 0.4)),
            (-0.4, 0.4),
        ),
    ];
    append_chain(&mut bodies, "", 0, &waist, 300.0);
    let chest = bodies.len() - 1;
    bodies.push(Body::new(
        "HEAD",
        Some(chest),
        Joint::Fixed,
        Isometry3::translation(0.0, 0.0, 0.45),
        LinkInertia::solid_box(3.0, Vector3::new(0.0, 0.0, 0.1), Vector3::new(0.18, 0.16, 0.22)),
    ));
    for (side, sign) in [("R", -1.0), ("L", 1.0)] {
        let arm: [LinkSpec; 7] = [
            (
                "SHOULDER_P",
                Vector3::new(0.0, 0.22 * sign, 0.35),
                Vector3::y(),
                small(0.8),
                (-3.0, 3.0),
            ),
            ("SHOULDER_R", Vector3::zeros(), Vector3::x(), small(0.8), (-1.5, 1.5)),
            (
                "SHOULDER_Y",
                Vector3::zeros(),
                Vector3::z(),
                rod(2.0, 0.04, 0.28),
                (-1.5, 1.5),
            ),
            (
                "ELBOW",
                Vector3::new(0.0, 0.0, -0.28),
                Vector3::y(),
                rod(1.2, 0.035, 0.25),
                (-2.5, 0.0),
            ),
            (
                "WRIST_Y",
                Vector3::new(0.0, 0.0, -0.25),
                Vector3::z(),
                small(0.3),
                (-1.5, 1.5),
            ),
            ("WRIST_P", Vector3::zeros(), Vector3::y(), small(0.3), (-1.2, 1.2)),
            (
                "WRIST_R",
                Vector3::zeros(),
                Vector3::x(),
                LinkInertia::solid_box(0.5, Vector3::new(0.0, 0.0, -0.06), Vector3::new(0.08, 0.03, 0.12)),
                (-1.2, 1.2),
            ),
        ];
        append_chain(&mut bodies, side, chest, &arm, 80.0);
    }
    Tree::new(bodies)
}

/// Appends a serial chain of revolute joints starting at `root`.
fn append_chain(bodies: &mut Vec<Body>, side: &str, root: usize, links: &[LinkSpec], effort: f64) {
    let mut parent = root;
    for (name, offset, axis, inertia, (lower, upper)) in links {
        let name = if side.is_empty() {
            name.to_string()
        } else {
            format!("{side}_{name}")
        };
        bodies.push(
            Body::new(
                name,
                Some(parent),
                Joint::Revolute { axis: *axis },
                Isometry3::translation(offset.x, offset.y, offset.z),
                *inertia,
            )
            .with_armature(0.01)
            .with_damping(0.5)
            .with_effort_limit(effort)
            .with_position_limits(*lower, *upper),
        );
        parent = bodies.len() - 1;
    }
}

/// A compact link (joint housing) of mass `mass` centred on the joint.
fn small(mass: f64) -> LinkInertia {
    LinkInertia::solid_box(mass, Vector3::zeros(), Vector3::new(0.08, 0.08, 0.08))
}

/// A limb segment hanging down (−z) from the joint: a cylinder of `length` centred half-way.
fn rod(mass: f64, radius: f64, length: f64) -> LinkInertia {
    LinkInertia::solid_cylinder(mass, Vector3::new(0.0, 0.0, -length / 2.0), radius, length)
}

#[cfg(test)]
mod tests {
    #[test]
    fn humanoid_has_35_dofs() {
        let tree = super::humanoid().expect("valid");
        assert_eq!((tree.len(), tree.nq(), tree.nv()), (31, 36, 35));
        assert_eq!(tree.body_index("L_ELBOW").expect("exists"), 27);
    }
}
