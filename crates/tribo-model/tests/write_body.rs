#![allow(clippy::panic)]
//! `write_body`: a model written as a `.body` file loads back to the same model — every link's
//! name, parent, offset, joint (type, name, id, axis, range, limits, armature, initial position),
//! mass, centre of mass, inertia, material, collision shapes and pad — for the bodies tribo ships
//! (`share/model/`, `share/choreonoid/model/`) and Choreonoid's SR1 from its URDF.

use std::path::{Path, PathBuf};

use nalgebra::{Isometry3, UnitQuaternion};
use tribo_model::{load_model, parse_body, write_body, Body, Geometry, Link};

fn share(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../share").join(rel)
}

/// Written and loaded back from text (as if the file were next to the original).
fn round_trip(body: &Body) -> (Body, String, Vec<String>) {
    let written = write_body(body).unwrap_or_else(|e| panic!("{}: {e}", body.name));
    let back = parse_body(&written.text, "written.body")
        .unwrap_or_else(|e| panic!("{}: the written file does not load: {e}\n{}", body.name, written.text));
    (back, written.text, written.notes)
}

/// The largest difference between two poses: translation (m) and rotation (the quaternions'
/// coordinates, sign aside).
fn pose_difference(a: &Isometry3<f64>, b: &Isometry3<f64>) -> f64 {
    let t = (a.translation.vector - b.translation.vector).amax();
    (t).max(rotation_difference(&a.rotation, &b.rotation))
}

fn rotation_difference(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> f64 {
    (a.coords - b.coords).amax().min((a.coords + b.coords).amax())
}

fn range_difference(a: [f64; 2], b: [f64; 2]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| if x == &y { 0.0 } else { (x - y).abs() })
        .fold(0.0, f64::max)
}

fn geometry_difference(a: &Geometry, b: &Geometry) -> Option<f64> {
    Some(match (a, b) {
        (Geometry::Box { size: x }, Geometry::Box { size: y }) => (x - y).amax(),
        (Geometry::Sphere { radius: x }, Geometry::Sphere { radius: y }) => (x - y).abs(),
        (Geometry::Cylinder { radius: r1, height: h1 }, Geometry::Cylinder { radius: r2, height: h2 })
        | (Geometry::Capsule { radius: r1, height: h1 }, Geometry::Capsule { radius: r2, height: h2 })
        | (Geometry::Cone { radius: r1, height: h1 }, Geometry::Cone { radius: r2, height: h2 }) => {
            (r1 - r2).abs().max((h1 - h2).abs())
        }
        (Geometry::Mesh(x), Geometry::Mesh(y)) => {
            if x.triangles != y.triangles || x.collision != y.collision || x.vertices.len() != y.vertices.len() {
                return None;
            }
            x.vertices
                .iter()
                .zip(&y.vertices)
                .map(|(p, q)| (p - q).amax())
                .fold(0.0, f64::max)
        }
        _ => return None,
    })
}

/// Every difference between the two models as `what: size` (0 for none at all); a structural
/// difference (names, tree, kinds, ids, materials, shape types) is `f64::INFINITY`.
fn differences(a: &Body, b: &Body) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    let mut add = |what: String, d: f64| {
        if d != 0.0 {
            out.push((what, d));
        }
    };
    let structural = |same: bool| if same { 0.0 } else { f64::INFINITY };
    add("name".into(), structural(a.name == b.name));
    add("link count".into(), structural(a.links.len() == b.links.len()));
    add("joint ids".into(), structural(a.joints_by_id == b.joints_by_id));
    for (x, y) in a.links.iter().zip(&b.links) {
        let l = &x.name;
        add(
            format!("{l}: name, parent, children"),
            structural(x.name == y.name && x.parent == y.parent && x.children == y.children),
        );
        link_differences(x, y, &mut add, &structural);
    }
    out
}

fn link_differences(x: &Link, y: &Link, add: &mut impl FnMut(String, f64), structural: &impl Fn(bool) -> f64) {
    let l = &x.name;
    let (j, k) = (&x.joint, &y.joint);
    add(
        format!("{l}: joint kind, name, id"),
        structural(j.kind == k.kind && j.name == k.name && j.id == k.id),
    );
    add(format!("{l}: joint axis"), (j.axis - k.axis).amax());
    add(format!("{l}: joint range"), range_difference(j.range, k.range));
    add(
        format!("{l}: velocity range"),
        range_difference(j.velocity_range, k.velocity_range),
    );
    add(
        format!("{l}: max effort"),
        range_difference([j.max_effort; 2], [k.max_effort; 2]),
    );
    add(
        format!("{l}: initial position"),
        (j.initial_position - k.initial_position).abs(),
    );
    add(format!("{l}: armature"), (j.armature - k.armature).abs());
    add(format!("{l}: offset"), pose_difference(&x.offset, &y.offset));
    add(format!("{l}: mass"), (x.mass - y.mass).abs());
    add(
        format!("{l}: centre of mass"),
        (x.center_of_mass - y.center_of_mass).amax(),
    );
    add(format!("{l}: inertia"), (x.inertia - y.inertia).amax());
    add(format!("{l}: material"), structural(x.material == y.material));
    add(
        format!("{l}: shape count"),
        structural(x.shapes.len() == y.shapes.len()),
    );
    for (s, (p, q)) in x.shapes.iter().zip(&y.shapes).enumerate() {
        add(
            format!("{l}: shape {s} geometry"),
            geometry_difference(&p.geometry, &q.geometry).unwrap_or(f64::INFINITY),
        );
        add(format!("{l}: shape {s} pose"), pose_difference(&p.pose, &q.pose));
        add(format!("{l}: shape {s} colour"), structural(p.color == q.color));
    }
    add(
        format!("{l}: uncollided"),
        structural(x.uncollided.len() == y.uncollided.len()),
    );
    add(format!("{l}: pads"), structural(x.pads.len() == y.pads.len()));
    for (p, q) in x.pads.iter().zip(&y.pads) {
        add(format!("{l}: pad shape"), structural(p.shape == q.shape));
        add(format!("{l}: pad pose"), pose_difference(&p.pose, &q.pose));
    }
}

/// What a round trip may change, and by how much: a rotation no single axis-angle gives exactly
/// (composed of several in the original file, or a URDF roll-pitch-yaw) comes back within an ulp
/// of a quaternion coordinate near 1; a centre-of-mass coordinate for which the loader's
/// mass-weighted sum has no exact preimage (−0.1 m at 6 kg) comes back an ulp away. Everything
/// else is bit-identical.
const ROTATION_ULP: f64 = 1.2e-16;
const CENTRE_ULP: f64 = 1.4e-17;

fn unexplained(diff: &[(String, f64)]) -> Vec<&(String, f64)> {
    diff.iter()
        .filter(|(what, d)| {
            let rotation = what.ends_with("shape 0 pose") || what.contains("pose");
            !((rotation && *d <= ROTATION_ULP) || (what.ends_with("centre of mass") && *d <= CENTRE_ULP))
        })
        .collect()
}

/// A closed loop (`extra_joints`, the four-bar fixture of `tests/extra_joints.rs`) is written and
/// read back: the same links, kinds, axes and joint frames in both links.
#[test]
fn extra_joints_round_trip() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extra_joints/four_bar.body");
    let body = load_model(&path).unwrap_or_else(|e| panic!("four_bar.body: {e}"));
    assert!(!body.extra_joints.is_empty(), "the fixture closes a loop");
    let (back, text, notes) = round_trip(&body);
    assert!(notes.is_empty(), "{notes:?}");
    assert!(differences(&body, &back).is_empty(), "{text}");
    assert_eq!(back.extra_joints.len(), body.extra_joints.len(), "{text}");
    for (a, b) in body.extra_joints.iter().zip(&back.extra_joints) {
        assert_eq!((a.kind, &a.links), (b.kind, &b.links), "{text}");
        // The loader normalises the axis it reads: a unit axis comes back within an ulp.
        assert!(
            (a.axis - b.axis).amax() <= 2.0 * f64::EPSILON,
            "{:?} vs {:?}",
            a.axis,
            b.axis
        );
        for k in 0..2 {
            assert!(
                pose_difference(&a.frames[k], &b.frames[k]) <= 1e-15,
                "frame {k}\n{text}"
            );
        }
    }
}

#[test]
fn shipped_body_files_round_trip() {
    for rel in [
        "model/ball.body",
        "model/box10.body",
        "model/floor.body",
        "model/walker.body",
        "choreonoid/model/SR1.body",
        "choreonoid/model/ball.body",
        "choreonoid/model/floor.body",
    ] {
        let body = load_model(&share(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let (back, text, notes) = round_trip(&body);
        let diff = differences(&body, &back);
        assert!(notes.is_empty(), "{rel}: {notes:?}");
        if rel != "choreonoid/model/SR1.body" {
            assert!(diff.is_empty(), "{rel}: {diff:?}\n{text}");
            continue;
        }
        // SR1's two camera shapes turn by the camera's [[0,1,0,-90],[0,0,1,-90]] and then the
        // shape's own [1,0,0,90]: no single axis-angle gives that quaternion to the last bit.
        let off: Vec<&str> = diff.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(off, ["CHEST: shape 4 pose", "CHEST: shape 5 pose"], "{diff:?}");
        assert!(unexplained(&diff).is_empty(), "{diff:?}");
    }
}

#[test]
fn sr1_from_its_urdf_round_trips() {
    let body = load_model(&share("choreonoid/model/SR1.urdf")).expect("SR1.urdf");
    let (back, text, notes) = round_trip(&body);
    assert!(notes.is_empty(), "{notes:?}");
    let diff = differences(&body, &back);
    // Only the cylinders' roll-pitch-yaw rotations and some centres of mass, by an ulp.
    assert!(unexplained(&diff).is_empty(), "{:?}\n{text}", unexplained(&diff));
    assert!(
        diff.iter()
            .all(|(w, _)| w.ends_with("shape 0 pose") || w.ends_with("centre of mass")),
        "{diff:?}"
    );
    // Joint limits written in degrees read back as the URDF's radians, bit for bit.
    for (a, b) in body.links.iter().zip(&back.links) {
        assert_eq!(a.joint.range, b.joint.range, "{}", a.name);
        assert_eq!(a.joint.velocity_range, b.joint.velocity_range, "{}", a.name);
    }
}

/// Every key the writer knows, on a body made for it: a prismatic joint with an asymmetric
/// velocity range, armature and an initial position, a named joint, a revolute joint with an
/// unlimited side, capsules, cones, an inline mesh at an offset, colours, materials, both pad
/// shapes and a link of zero mass.
const EVERYTHING: &str = "
format: ChoreonoidBody
format_version: 2.0
name: Everything
root_link: base
links:
  - name: base
    joint_type: fixed
    translation: [0.1, -0.2, 0.3]
    rotation: [0, 0, 1, 30]
    mass: 0
    material: Ground
    pad: {shape: flat, resolution: [4, 3], spacing: 0.01, layout: nodes, translation: [0, 0, 0.05], rotation: [1, 0, 0, 180]}
  - name: slider
    parent: base
    joint_type: prismatic
    joint_name: SLIDE
    joint_axis: [0, 0.6, 0.8]
    joint_id: 1
    joint_range: [-0.1, 0.25]
    joint_velocity_range: [-0.5, 2]
    max_joint_effort: 40
    rotor_inertia: 0.001
    gear_ratio: 30
    joint_displacement: 0.05
    mass: 1.5
    center_of_mass: [0.01, 0.02, -0.03]
    inertia: [0.01, 0.001, 0, 0.001, 0.02, 0.002, 0, 0.002, 0.03]
    material: Hand
    elements:
      - {type: Shape, translation: [0, 0, 0.1], rotation: [1, 0, 0, 90], geometry: {type: Capsule, radius: 0.02, height: 0.1}}
      - {type: Shape, geometry: {type: Cone, radius: 0.03, height: 0.05}, appearance: {material: {diffuse: [0.1, 0.2, 0.3]}}}
      - type: Shape
        translation: [0.5, 0, 0]
        geometry:
          type: TriangleMesh
          collision: convex_decomposition
          vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]
          faces: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
  - name: arm
    parent: slider
    joint_type: revolute
    joint_axis: -X
    joint_id: 0
    joint_range: [-45, unlimited]
    max_joint_velocity: 180
    joint_displacement: 12.5
    mass: 0.5
    pad: {shape: dome, radius: 0.03, base_radius: 0.012, resolution: 6}
    elements:
      Shape: {geometry: {type: Cylinder, radius: 0.01, height: 0.2}}
";

#[test]
fn every_key_round_trips() {
    let body = parse_body(EVERYTHING, "everything.body").expect("loads");
    let (back, text, notes) = round_trip(&body);
    assert!(notes.is_empty(), "{notes:?}");
    let diff = differences(&body, &back);
    // The mesh's vertices go through its shape's offset when loaded: x + 0.5 − 0.5.
    assert!(
        unexplained(&diff)
            .iter()
            .all(|(w, d)| w == "slider: shape 2 geometry" && *d < 1e-15),
        "{diff:?}\n{text}"
    );
    assert!(text.contains("  joint_range: [-45.0, unlimited]\n"), "{text}");
}

/// What a body file cannot hold is a note: a second pad, inertia without mass, geometry that
/// gave no collision shape.
#[test]
fn what_a_body_file_cannot_hold_is_a_note() {
    let mut body = parse_body(EVERYTHING, "everything.body").expect("loads");
    let pad = body.links[2].pads[0].clone();
    body.links[2].pads.push(pad);
    body.links[0].inertia[(0, 0)] = 1.0;
    let note = tribo_yaml::Diagnostic::warning(tribo_yaml::Location::file("x.body"), "a Collada mesh");
    body.links[1].uncollided.push(note);
    let written = write_body(&body).expect("writes");
    let notes = written.notes.join("\n");
    assert!(notes.contains("link `arm` has 2 pads"), "{notes}");
    assert!(
        notes.contains("link `base` has no mass but a centre of mass or inertia"),
        "{notes}"
    );
    assert!(
        notes.contains("link `slider`: geometry without a collision shape is not written (a Collada mesh)"),
        "{notes}"
    );
}
