//! The `cslc` engines' typed errors: a bad time step is refused before any pad moves, a pad the
//! engine cannot build (a bad `cslc` block) names the pad, a body the host cannot build names the body under the
//! cslc engine's name.

use std::sync::Arc;

use nalgebra::{Isometry3, Translation3, Vector3};
use tribo_engine::{BuildError, EngineOptions, Scene, StepError};
use tribo_model::{Geometry, PadLayout, PadShape, PadSpec};
use tribo_testkit::*;

const SIDE: f64 = 0.04;

/// A 4 cm cube of material `material` with a 10 × 10 pad on its bottom face, 0.1 mm above the
/// ground.
fn cube_on_pad(material: &str) -> Arc<Scene> {
    let table = table(
        "materials:\n  - name: Ground\n  - name: Skin\n    cslc: {anchor_stiffness: 2e8, contact_stiffness: 1e12, \
         tangential_ratio: 0.5, lateral_length: 0.002}\n  - name: Bad\n    cslc: {relaxation: 2}\ncontact_materials:\n  - materials: [Ground, Skin]\n    \
         friction: 0.8\n",
        &["Ground", "Skin", "Bad"],
    );
    let mut model = solid(
        "cube",
        Geometry::Box {
            size: Vector3::repeat(SIDE),
        },
        1.0,
        material,
    );
    model.links[0].pads.push(PadSpec {
        shape: PadShape::Flat {
            resolution: [10, 10],
            spacing: SIDE / 10.0,
            layout: PadLayout::Cells,
        },
        pose: Isometry3::from_parts(
            Translation3::new(0.0, 0.0, -0.5 * SIDE),
            nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI),
        ),
        location: tribo_yaml::Location::file("test"),
    });
    let start = Isometry3::translation(0.0, 0.0, 0.5 * SIDE + 1e-4);
    scene_with_declared_pads(
        vec![ground(0.0, &table), place("cube", model, start, false, &table)],
        table,
    )
}

fn build(engine: &str, scene: &Arc<Scene>) -> Result<Box<dyn tribo_engine::Engine>, BuildError> {
    tribo::engines()
        .get(engine)
        .expect("registered")
        .build(scene, &EngineOptions::none())
}

#[test]
fn a_bad_time_step_is_refused_before_any_pad_moves() {
    let scene = cube_on_pad("Skin");
    let cslc_engines: Vec<&str> = tribo::engines()
        .names()
        .into_iter()
        .filter(|name| name.starts_with("cslc"))
        .collect();
    assert!(cslc_engines.contains(&"cslc"), "{cslc_engines:?}");
    for name in cslc_engines {
        let mut engine = build(name, &scene).expect("builds");
        engine.step(1e-3, &idle(&scene)).expect("a quiet step");
        let before = engine.state().clone();
        for dt in [f64::NAN, -1e-3, 0.0] {
            let error = engine.step(dt, &idle(&scene)).expect_err("bad dt");
            assert!(
                matches!(error, StepError::InvalidTimeStep { dt: found } if found.to_bits() == dt.to_bits()),
                "{name}: {error:?}"
            );
        }
        assert_eq!(engine.state(), &before, "{name}: a refused step changes nothing");
        engine.step(1e-3, &idle(&scene)).expect("the engine still steps");
    }
}

#[test]
fn a_pad_with_a_bad_lattice_material_is_a_pad_build_error() {
    let scene = cube_on_pad("Bad");
    let error = build("cslc", &scene).err().expect("relaxation above 1");
    match &error {
        BuildError::Pad { engine, pad, reason } => {
            assert_eq!(*engine, "cslc");
            assert_eq!(pad, "pad on `cube.cube` (test)");
            assert!(reason.contains("must be in (0, 1]"), "{reason}");
        }
        other => unreachable!("expected a pad error, got {other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("engine `cslc` cannot simulate this scene: pad on `cube.cube` (test): "),
        "{error}"
    );
    assert!(error.is_scene_error());
}

#[test]
fn a_body_the_host_cannot_build_is_named_under_the_cslc_engine() {
    let table = pair_table(0.5, 0.5, 0.0);
    let ghost = solid("ghost", Geometry::Sphere { radius: 0.1 }, 0.0, "Thing");
    let scene = scene(vec![place("ghost", ghost, Isometry3::identity(), false, &table)], table);
    let error = build("cslc", &scene).err().expect("a massless free body");
    assert!(
        matches!(&error, BuildError::Body { engine: "cslc", body, .. } if body == "ghost"),
        "{error:?}"
    );
}

#[test]
fn a_mesh_a_pad_could_touch_is_not_a_pad_target() {
    // The cube's pad and a free tetrahedron mesh 20 cm away: bodies move, so the pad could touch
    // the mesh, and a lattice touches primitives only: the engine refuses to build and names the
    // mesh's link.
    let mut scene = Arc::unwrap_or_clone(cube_on_pad("Skin"));
    let vertices = vec![
        Vector3::zeros(),
        Vector3::x() * 0.05,
        Vector3::y() * 0.05,
        Vector3::z() * 0.05,
    ];
    let mesh = tribo_model::Mesh::new(
        vertices,
        vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        tribo_model::MeshCollision::ConvexHull,
        "`tetra.stl` (tetra.body:9:19)",
    )
    .expect("a tetrahedron");
    let tetra = solid("tetra", Geometry::Mesh(Arc::new(mesh)), 0.1, "Ground");
    let tetra = place(
        "tetra",
        tetra,
        Isometry3::translation(0.2, 0.0, 0.0),
        false,
        &scene.contacts,
    );
    scene.bodies.push(tetra);
    let scene = Arc::new(scene);
    let error = build("cslc", &scene).err().expect("a mesh in reach");
    let text = error.to_string();
    assert!(
        text.contains("the mesh `tetra.stl` (tetra.body:9:19) of link `tetra.tetra` is not a pad target"),
        "{text}"
    );
    // rapier and pgs collide the same scene.
    for engine in ["rapier", "pgs"] {
        build(engine, &scene).unwrap_or_else(|e| unreachable!("{engine}: {e}"));
    }
}
