//! `SubBody` nodes: a body composed of included bodies equals the same body written out link by
//! link, and refused includes (a missing file, a cycle) are located errors.

use std::path::{Path, PathBuf};

use tribo_model::{load_body, Body, Link};

/// Poses and mass properties of the composed and the flat body come from the same numbers
/// through the same conversions; this only absorbs a different order of rounding.
const TOLERANCE: f64 = 1e-12;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sub_body")
        .join(name)
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= TOLERANCE || x == y)
}

fn assert_same_link(a: &Link, b: &Link) {
    let name = &a.name;
    assert_eq!(a.name, b.name);
    assert_eq!(a.parent, b.parent, "{name}: parent");
    assert_eq!(a.children, b.children, "{name}: children");
    assert_eq!(a.joint.kind, b.joint.kind, "{name}: joint kind");
    assert_eq!(a.joint.name, b.joint.name, "{name}: joint name");
    assert_eq!(a.joint.id, b.joint.id, "{name}: joint id");
    assert!(close(a.joint.axis.as_slice(), b.joint.axis.as_slice()), "{name}: axis");
    assert!(close(&a.joint.range, &b.joint.range), "{name}: range");
    assert!(close(&[a.joint.armature], &[b.joint.armature]), "{name}: armature");
    let (pa, pb) = (a.offset.to_homogeneous(), b.offset.to_homogeneous());
    assert!(close(pa.as_slice(), pb.as_slice()), "{name}: offset {pa} vs {pb}");
    assert!(close(&[a.mass], &[b.mass]), "{name}: mass");
    assert!(
        close(a.center_of_mass.as_slice(), b.center_of_mass.as_slice()),
        "{name}: centre of mass"
    );
    assert!(close(a.inertia.as_slice(), b.inertia.as_slice()), "{name}: inertia");
    assert_eq!(a.material, b.material, "{name}: material");
    assert_eq!(a.shapes.len(), b.shapes.len(), "{name}: shapes");
    for (sa, sb) in a.shapes.iter().zip(&b.shapes) {
        assert_eq!(sa.geometry, sb.geometry, "{name}: geometry");
        let (pa, pb) = (sa.pose.to_homogeneous(), sb.pose.to_homogeneous());
        assert!(close(pa.as_slice(), pb.as_slice()), "{name}: shape pose {pa} vs {pb}");
    }
}

fn assert_same_body(a: &Body, b: &Body) {
    assert_eq!(a.name, b.name);
    let names = |body: &Body| body.links.iter().map(|l| l.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(a), names(b));
    for (la, lb) in a.links.iter().zip(&b.links) {
        assert_same_link(la, lb);
    }
    assert_eq!(a.joints_by_id, b.joints_by_id);
}

#[test]
fn composed_body_equals_the_flat_one() {
    let composed = load_body(&fixture("composed.body")).expect("composed body loads");
    let flat = load_body(&fixture("flat.body")).expect("flat body loads");
    assert_eq!(composed.links.len(), 7);
    assert_same_body(&composed, &flat);
    // The sub-body's links keep the locations of the file they are written in.
    let upper = &composed.links[2];
    assert_eq!(upper.name, "L_UPPER");
    assert!(upper.location.file.ends_with("arm.body"), "{}", upper.location);
    assert!(composed.notes.iter().all(|n| !n.is_error()), "{:?}", composed.notes);
}

#[test]
fn composed_text_resolves_includes_next_to_its_file_name() {
    let path = fixture("composed.body");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let body = tribo_model::parse_body(&text, &path.display().to_string()).expect("loads");
    let flat = load_body(&fixture("flat.body")).expect("flat body loads");
    assert_same_body(&body, &flat);
}

fn error_of(name: &str) -> tribo_yaml::Diagnostic {
    load_body(&fixture(name))
        .err()
        .unwrap_or_else(|| unreachable!("{name} should be refused"))
}

#[test]
fn missing_sub_body_file_is_located_at_its_uri() {
    let err = error_of("missing_uri.body");
    assert!(err.location.file.ends_with("missing_uri.body"), "{err}");
    assert_eq!((err.location.line, err.location.col), (7, 10), "{err}");
    assert!(
        err.message.contains("cannot read the sub-body file") && err.message.contains("no_such_arm.body"),
        "{err}"
    );
}

#[test]
fn include_cycle_is_located_where_it_closes() {
    let err = error_of("cycle_a.body");
    // cycle_a includes cycle_b, whose `uri: cycle_a.body` closes the cycle.
    assert!(err.location.file.ends_with("cycle_b.body"), "{err}");
    assert_eq!((err.location.line, err.location.col), (8, 10), "{err}");
    assert!(err.message.contains("includes itself"), "{err}");
    assert!(
        err.message.contains("cycle_a.body → ") && err.message.contains("cycle_b.body → cycle_a.body"),
        "{err}"
    );
    assert!(err.message.contains("in the sub-body included at"), "{err}");

    let err = error_of("self_include.body");
    assert!(err.location.file.ends_with("self_include.body"), "{err}");
    assert_eq!((err.location.line, err.location.col), (5, 41), "{err}");
    assert!(err.message.contains("includes itself"), "{err}");
}

#[test]
fn sub_body_links_that_clash_name_the_sub_body_node() {
    let path = fixture("doubled.body");
    let text = "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: BASE\n  \
                - { type: SubBody, parent: BASE, uri: arm.body }\n  \
                - { type: SubBody, parent: BASE, uri: arm.body, joint_id_offset: 2 }\n";
    let err = tribo_model::parse_body(text, &path.display().to_string()).expect_err("names clash");
    assert_eq!((err.location.line, err.location.col), (6, 5), "{err}");
    assert!(err.message.contains("duplicate link name `SHOULDER`"), "{err}");
    assert!(err.message.contains(":5:5"), "{err}");
}

#[test]
fn sub_body_without_uri_is_refused() {
    let path = fixture("no_uri.body");
    let text = "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: BASE\n  \
                - { type: SubBody, parent: BASE }\n";
    let err = tribo_model::parse_body(text, &path.display().to_string()).expect_err("no uri");
    assert_eq!((err.location.line, err.location.col), (5, 5), "{err}");
    assert!(err.message.contains("needs `uri`"), "{err}");
}

#[test]
fn keys_a_sub_body_node_does_not_read_are_warned() {
    let path = fixture("noted.body");
    let text = "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: BASE\n  \
                - { type: SubBody, parent: BASE, uri: arm.body, mass: 3, name: ARM, prefx: A_ }\n";
    let body = tribo_model::parse_body(text, &path.display().to_string()).expect("loads");
    let shoulder = &body.links[1];
    assert_eq!(shoulder.name, "SHOULDER", "no prefix was given (`prefx` is a typo)");
    assert!((shoulder.mass - 1.5).abs() < TOLERANCE, "the included mass is kept");
    let messages: Vec<String> = body.notes.iter().map(ToString::to_string).collect();
    for (key, col) in [("mass", 51), ("name", 60)] {
        assert!(
            messages
                .iter()
                .any(|m| m.contains(&format!(":5:{col}: warning: `{key}` is not read in a SubBody node"))),
            "{key}: {messages:#?}"
        );
    }
    assert!(
        messages
            .iter()
            .any(|m| m.contains("unknown key `prefx`") && m.contains("did you mean `prefix`?")),
        "{messages:#?}"
    );
}
