//! Mesh geometry through the `.body` loader: the committed STL and OBJ fixtures, errors that name
//! the file and the place, and the Choreonoid bodies the repository ships.

use std::path::{Path, PathBuf};

use tribo_model::{load_body, parse_body, Geometry, MeshCollision};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mesh")
}

fn only_mesh(body: &tribo_model::Body) -> std::sync::Arc<tribo_model::Mesh> {
    let shapes = &body.root().shapes;
    assert_eq!(shapes.len(), 1);
    match &shapes[0].geometry {
        Geometry::Mesh(mesh) => mesh.clone(),
        other => unreachable!("expected a mesh, got {other:?}"),
    }
}

#[test]
fn a_binary_stl_octahedron_is_the_analytic_solid() {
    let body = load_body(&fixtures().join("octahedron.body")).expect("loads");
    let mesh = only_mesh(&body);
    assert_eq!((mesh.vertices.len(), mesh.triangles.len()), (6, 8));
    assert_eq!(mesh.collision, MeshCollision::ConvexHull);
    assert!(mesh.is_closed());
    let r = 0.06;
    let geometry = Geometry::Mesh(mesh);
    // |x| + |y| + |z| ≤ r: volume 4/3 r³, inertia m r²/5 about every axis (f32 file: 1e-7 relative).
    assert!((geometry.volume() - 4.0 / 3.0 * r * r * r).abs() < 1e-7 * r * r * r);
    let inertia = geometry.solid_inertia(1.0);
    for k in 0..3 {
        assert!((inertia[(k, k)] - r * r / 5.0).abs() < 1e-9, "{inertia}");
    }
    assert!(geometry.centre_of_mass().norm() < 1e-9);
    assert!(body.notes.is_empty(), "{:?}", body.notes);
}

#[test]
fn an_obj_cube_is_the_box_it_replaces() {
    let body = load_body(&fixtures().join("cube-mesh.body")).expect("loads");
    let geometry = Geometry::Mesh(only_mesh(&body));
    let cube = Geometry::Box {
        size: nalgebra::Vector3::repeat(0.1),
    };
    assert!((geometry.volume() - cube.volume()).abs() < 1e-15);
    assert!((geometry.solid_inertia(1.0) - cube.solid_inertia(1.0)).norm() < 1e-15);
    assert!((geometry.solid_inertia(1.0) - body.root().inertia).norm() < 1e-15);
}

/// A one-link body whose shape is `geometry` (YAML flow mapping), written beside `mesh_files`
/// in a fresh directory.
fn body_with(name: &str, geometry: &str, mesh_files: &[(&str, &[u8])]) -> Result<tribo_model::Body, String> {
    let dir = std::env::temp_dir().join(format!("tribo-meshes-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for (file, bytes) in mesh_files {
        std::fs::write(dir.join(file), bytes).map_err(|e| e.to_string())?;
    }
    let text = format!(
        "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: L\n    joint_type: free\n    \
         elements:\n      - {{ type: Shape, geometry: {geometry} }}\n"
    );
    let path = dir.join("m.body");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let result = load_body(&path).map_err(|e| e.to_string().replace(&dir.display().to_string(), "DIR"));
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[test]
fn bad_mesh_files_are_located_errors_naming_the_file() {
    let err = body_with(
        "corrupt",
        "{ type: Resource, uri: broken.stl }",
        &[("broken.stl", b"not a mesh at all")],
    )
    .expect_err("corrupt");
    assert_eq!(
        err,
        "DIR/m.body:7:57: `Resource` `broken.stl`: DIR/broken.stl: not an STL file: 17 bytes is not the size of a \
         binary STL (84 + 50 × its triangle count) and the text does not start with `solid`"
    );
    let err = body_with("missing", "{ type: Resource, uri: gone.obj }", &[]).expect_err("missing");
    assert!(
        err.starts_with("DIR/m.body:7:57: `Resource` `gone.obj`: cannot read mesh file DIR/gone.obj"),
        "{err}"
    );
    let err = body_with(
        "badobj",
        "{ type: Resource, uri: bad.obj }",
        &[("bad.obj", b"v 0 0 0\nv 1 0 0\nf 1 2 9\n")],
    )
    .expect_err("index");
    assert!(
        err.starts_with("DIR/m.body:7:57: `Resource` `bad.obj`: DIR/bad.obj: "),
        "{err}"
    );
    let err = body_with("typo", "{ type: Resource, uir: a.stl }", &[]).expect_err("typo");
    assert_eq!(
        err,
        "DIR/m.body:7:52: a Resource needs a `uri` naming its file; found `uir` (did you mean `uri`?)"
    );
}

#[test]
fn key_typos_in_mesh_geometry_are_noted_with_the_closest_key() {
    let body = parse_body(
        "format: ChoreonoidBody\nformat_version: 2.0\nlinks:\n  - name: L\n    elements:\n      - { type: Shape, geometry: { type: TriangleMesh, \
         vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], faces: [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3], \
         colision: triangle_mesh } }\n",
        "t.body",
    )
    .expect("loads");
    assert!(
        body.notes
            .iter()
            .any(|n| n.message.contains("unknown key `colision`") && n.message.contains("did you mean `collision`?")),
        "{:?}",
        body.notes
    );
}

/// The Choreonoid bodies in `share/choreonoid/model` (the repository ships three of them: SR1,
/// the ball and the floor) all load with collision geometry on every link.
#[test]
fn every_shipped_choreonoid_body_collides_on_every_link() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../share/choreonoid/model");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("share")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "body"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    for file in &files {
        let body = load_body(file).expect("loads");
        for link in &body.links {
            assert!(
                !link.shapes.is_empty() && link.uncollided.is_empty(),
                "{}: link `{}` has no collision geometry",
                file.display(),
                link.name
            );
        }
    }
}
