//! floor.body and ball.body, and body-level behaviour on small inputs.

mod common;

use nalgebra::{Matrix3, Vector3};
use tribo_model::{parse_body, Geometry, JointKind};

#[test]
fn floor_camel_case_version_1_with_element_map() {
    let body = parse_body(common::FLOOR_TEXT, "floor.body").expect("floor.body loads");
    assert_eq!(body.name, "Floor");
    assert_eq!(body.links.len(), 1);
    let floor = body.root();
    assert_eq!(floor.joint.kind, JointKind::Fixed);
    assert_eq!(floor.material, "Ground");
    assert_eq!(floor.offset.translation.vector, Vector3::new(0.0, 0.0, -0.1));
    // No mass keys: Choreonoid's Link defaults.
    assert_eq!((floor.mass, floor.inertia), (1.0, Matrix3::identity()));
    assert_eq!(floor.shapes.len(), 1);
    assert_eq!(
        floor.shapes[0].geometry,
        Geometry::Box {
            size: Vector3::new(10.0, 10.0, 0.2)
        }
    );
    assert_eq!(floor.shapes[0].color, Some([0.0, 0.0, 1.0]));
    assert!(body.joints_by_id.is_empty());
    assert!(body.notes.is_empty(), "{:?}", body.notes);
}

#[test]
fn ball_snake_case_version_2() {
    let body = tribo_model::load_body(&common::choreonoid("ball.body")).expect("ball.body loads");
    assert_eq!(body.name, "Ball");
    let ball = body.root();
    assert_eq!(ball.name, "ball");
    assert_eq!(ball.joint.kind, JointKind::Free);
    assert_eq!(ball.mass, 0.5);
    assert_eq!(ball.inertia, Matrix3::identity() * 0.0033);
    assert_eq!(ball.material, "Ball");
    assert_eq!(ball.offset.translation.vector, Vector3::new(0.0, 0.0, 0.1));
    assert_eq!(ball.shapes.len(), 1);
    assert_eq!(ball.shapes[0].geometry, Geometry::Sphere { radius: 0.1 });
    assert_eq!(ball.shapes[0].color, Some([1.0, 1.0, 1.0]));
    assert!(body.notes.is_empty(), "{:?}", body.notes);
}

const HEAD: &str = "format: ChoreonoidBody\nformat_version: 2.0\n";

fn body(links: &str) -> tribo_model::Body {
    parse_body(&format!("{HEAD}links:\n{links}"), "robot.body").expect("body loads")
}

#[test]
fn name_defaults_to_the_file_stem() {
    let b = body("  - {name: base}\n");
    assert_eq!(b.name, "robot");
    assert_eq!(b.root().material, "Default");
}

/// Mass properties (docs/design/choreonoid-formats.md §2.5) against a hand computation.
///
/// Bodies, in the link frame:
/// - A: RigidBody in a Transform [0.2, 0, 0] rotated 90° about Z: m = 2, c = Rz·[0.1, 0, 0] +
///   [0.2, 0, 0] = [0.2, 0.1, 0], I = Rz·diag(0.01, 0.02, 0.03)·Rzᵀ = diag(0.02, 0.01, 0.03);
/// - B: RigidBody with its own translation [0, 0, −0.3]: m = 3, c = [0, 0, −0.3], I = 0.1·E;
/// - C: the link-level `mass: 1` (with RigidBody elements, missing CoM and inertia are 0).
///
/// m = 6; c = (2·[0.2, 0.1, 0] + 3·[0, 0, −0.3]) / 6 = [1/15, 1/30, −3/20].
/// d = c − cᵢ: d_A = [−2/15, −1/15, −3/20], d_B = [1/15, 1/30, 3/20], d_C = [1/15, 1/30, −3/20].
/// Parallel axis, I = Σ Iᵢ + mᵢ(|dᵢ|²E − dᵢdᵢᵀ):
/// Ixx = 0.02 + 0.1 + 2(1/225 + 9/400) + 3(1/900 + 9/400) + (1/900 + 9/400) = 161/600
/// Iyy = 0.01 + 0.1 + 2(4/225 + 9/400) + 3(1/225 + 9/400) + (1/225 + 9/400) = 179/600
/// Izz = 0.03 + 0.1 + 2(4/225 + 1/225) + 3(1/225 + 1/900) + (1/225 + 1/900) = 59/300
/// Ixy = −[2·(−2/15)(−1/15) + 3·(1/15)(1/30) + (1/15)(1/30)] = −2/75
/// Ixz = −[2·(−2/15)(−3/20) + 3·(1/15)(3/20) + (1/15)(−3/20)] = −3/50
/// Iyz = −[2·(−1/15)(−3/20) + 3·(1/30)(3/20) + (1/30)(−3/20)] = −3/100
#[test]
fn rigid_bodies_through_transforms_combine_by_parallel_axis() {
    let b = body(
        "  - name: L\n    joint_type: free\n    mass: 1.0\n    elements:\n\
         \x20     - type: Transform\n        translation: [0.2, 0, 0]\n        rotation: [0, 0, 1, 90]\n\
         \x20       elements:\n          - {type: RigidBody, center_of_mass: [0.1, 0, 0], mass: 2.0, inertia: [0.01, 0, 0, 0.02, 0, 0.03]}\n\
         \x20     - {type: RigidBody, translation: [0, 0, -0.3], mass: 3.0, inertia: [0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1]}\n",
    );
    let l = b.root();
    assert!((l.mass - 6.0).abs() < 1e-15);
    assert!((l.center_of_mass - Vector3::new(1.0 / 15.0, 1.0 / 30.0, -0.15)).norm() < 1e-15);
    let (ixx, iyy, izz) = (161.0 / 600.0, 179.0 / 600.0, 59.0 / 300.0);
    let (ixy, ixz, iyz) = (-2.0 / 75.0, -3.0 / 50.0, -3.0 / 100.0);
    let expected = Matrix3::new(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);
    assert!(
        (l.inertia - expected).norm() < 1e-12,
        "got {}\nexpected {}",
        l.inertia,
        expected
    );
}

#[test]
fn link_level_keys_alone_keep_link_defaults() {
    let b = body("  - {name: a, mass: 2}\n  - {name: b, parent: a, inertia: [1, 0, 0, 2, 0, 3]}\n  - {name: c, parent: a, mass: 0}\n");
    assert_eq!((b.links[0].mass, b.links[0].inertia), (2.0, Matrix3::identity()));
    assert_eq!(b.links[1].mass, 1.0);
    assert_eq!(b.links[1].inertia, Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)));
    // A total mass of 0 makes the inertia 0 too.
    assert_eq!((b.links[2].mass, b.links[2].inertia), (0.0, Matrix3::zeros()));
}

#[test]
fn radian_unit_in_version_1() {
    let text = "format: ChoreonoidBody\nformatVersion: 1.0\nangleUnit: radian\nlinks:\n\
                \x20 - {name: a, rotation: [0, 0, 1, 1.5707963267948966]}\n\
                \x20 - {name: b, parent: a, jointType: revolute, jointAxis: -Y, jointRange: [-1, 1]}\n";
    let b = parse_body(text, "rad.body").expect("radian body");
    assert!((b.root().offset.rotation.angle() - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    assert_eq!(b.links[1].joint.range, [-1.0, 1.0]);
    assert_eq!(b.links[1].joint.axis, -Vector3::y());
}

#[test]
fn links_as_a_mapping_and_skip_nodes() {
    let b = body(
        "  - {name: a}\n  - {type: Skip, name: ignored}\n  - {name: b, parent: a, joint_type: slide, joint_id: 0}\n",
    );
    assert_eq!(b.links.len(), 2);
    assert_eq!(b.links[1].joint.kind, JointKind::Prismatic);
    let b = parse_body(&format!("{HEAD}links:\n  Link: {{name: only}}\n"), "map.body").expect("map");
    assert_eq!(b.root().name, "only");
}

#[test]
fn duplicate_and_missing_joint_ids_warn() {
    let b = body(
        "  - {name: a}\n  - {name: b, parent: a, joint_type: revolute, joint_id: 0}\n\
         \x20 - {name: c, parent: a, joint_type: revolute, joint_id: 0}\n  - {name: d, parent: a, joint_type: revolute, joint_id: 3}\n",
    );
    assert_eq!(b.joints_by_id, [Some(1), None, None, Some(3)]);
    let messages: Vec<String> = b.notes.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "robot.body:6:5: warning: joint_id 0 of link `c` duplicates that of link `b`, which keeps it",
            "robot.body:4:3: warning: joint ids 1, 2 are not given to any link (gaps in the ids)",
        ]
    );
}

#[test]
fn typos_in_link_keys_warn() {
    let b = body("  - {name: a}\n  - {name: b, parent: a, jont_type: revolute}\n");
    assert_eq!(b.links[1].joint.kind, JointKind::Fixed);
    let messages: Vec<String> = b.notes.iter().map(|n| n.message.clone()).collect();
    assert_eq!(
        messages,
        ["unknown key `jont_type` in link `b` is not read (did you mean `joint_type`?)"]
    );
}

#[test]
fn visual_and_collision_models() {
    let b = body(
        "  - name: a\n    elements:\n      - {type: Visual, shape: {geometry: {type: Box, size: [1, 1, 1]}}}\n\
         \x20     - {type: Collision, translation: [0, 0, 1], elements: [{type: Shape, geometry: {type: Capsule, radius: 0.1, height: 0.5}}]}\n",
    );
    assert_eq!(b.root().shapes.len(), 1);
    assert_eq!(
        b.root().shapes[0].geometry,
        Geometry::Capsule {
            radius: 0.1,
            height: 0.5
        }
    );
    assert_eq!(b.root().shapes[0].pose.translation.vector, Vector3::new(0.0, 0.0, 1.0));
}

#[test]
fn uniform_scale_applies_to_shapes_and_other_scales_are_noted() {
    let b = body(
        "  - name: a\n    elements:\n      - {type: Transform, scale: [2, 2, 2], translation: [1, 0, 0], elements: {Transform: {translation: [0, 0, 1], elements: {Shape: {geometry: {type: Cone, radius: 0.1, height: 0.2}}}}}}\n\
         \x20     - {type: Transform, scale: [1, 2, 1], elements: {Shape: {geometry: {type: Sphere, radius: 0.1}}}}\n",
    );
    let shapes = &b.root().shapes;
    assert_eq!(
        shapes[0].geometry,
        Geometry::Cone {
            radius: 0.2,
            height: 0.4
        }
    );
    assert_eq!(shapes[0].pose.translation.vector, Vector3::new(1.0, 0.0, 2.0));
    assert_eq!(shapes[1].geometry, Geometry::Sphere { radius: 0.1 });
    assert_eq!(b.notes.len(), 1);
    assert!(b.notes[0].message.contains("not uniform"), "{}", b.notes[0]);
}

#[test]
fn code_built_bodies() {
    let sr1 = common::sr1();
    // Rebuild SR1 with the root moved last (sibling order kept): the tree order comes back.
    let mut links = sr1.links.clone();
    let n = links.len();
    for link in &mut links {
        link.parent = link.parent.map(|p| (p + n - 1) % n);
    }
    links.rotate_left(1);
    let rebuilt = tribo_model::Body::from_links("SR1", links).expect("valid tree");
    let names = |b: &tribo_model::Body| b.links.iter().map(|l| l.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&rebuilt), names(&sr1));
    assert_eq!(rebuilt.joints_by_id, sr1.joints_by_id);
    assert!(rebuilt
        .links
        .iter()
        .zip(&sr1.links)
        .all(|(a, b)| a.parent == b.parent && a.children == b.children));
}

/// Choreonoid reads a bound of `jointRange` with `strtod`, so `inf` is a number there; an
/// infinite bound is no limit on its side.
#[test]
fn infinite_joint_limits_are_no_limit() {
    let b = body(
        "  - {name: a, joint_type: free}\n\
         \x20 - {name: b, parent: a, joint_type: revolute, joint_id: 0, jointRange: [0.0, inf]}\n\
         \x20 - {name: c, parent: a, joint_type: revolute, joint_id: 1, jointRange: [-inf, 45]}\n\
         \x20 - {name: d, parent: a, joint_type: prismatic, joint_id: 2, joint_range: [unlimited, 0.1]}\n\
         \x20 - {name: e, parent: a, joint_type: revolute, joint_id: 3, joint_range: .inf}\n",
    );
    let inf = f64::INFINITY;
    assert_eq!(b.links[1].joint.range, [0.0, inf]);
    assert_eq!(b.links[2].joint.range, [-inf, std::f64::consts::FRAC_PI_4]);
    assert_eq!(b.links[3].joint.range, [-inf, 0.1]);
    assert_eq!(b.links[4].joint.range, [-inf, inf]);
    assert!(b.notes.is_empty(), "{:?}", b.notes);
}

/// A `translation` may be a list of vectors, composed in order (summed), on links and elements.
#[test]
fn a_translation_may_be_a_list_of_vectors() {
    let b = body(
        "  - name: a\n    joint_type: free\n    translation: [[0, 0, 0.1], [0.2, 0, 0]]\n    elements:\n\
         \x20     - type: Transform\n        translation: [[1, 0, 0], [0, 2, 0], [0, 0, 3]]\n\
         \x20       elements:\n          - {type: Shape, geometry: {type: Box, size: [1, 1, 1]}}\n\
         \x20 - {name: b, parent: a, joint_type: revolute, joint_id: 0, translation: [[0, 0, -0.5]]}\n",
    );
    assert_eq!(b.root().offset.translation.vector, Vector3::new(0.2, 0.0, 0.1));
    assert_eq!(b.root().shapes[0].pose.translation.vector, Vector3::new(1.0, 2.0, 3.0));
    assert_eq!(b.links[1].offset.translation.vector, Vector3::new(0.0, 0.0, -0.5));
}
