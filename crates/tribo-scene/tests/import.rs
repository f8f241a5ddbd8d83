#![allow(clippy::panic)]
//! `tribo_scene::import`: a `.cnoid` project or a URDF robot written as a project directory loads
//! to the project its source gives.

use std::path::{Path, PathBuf};

use tribo_scene::{import, ControllerSpec, LoadOptions, Project};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn choreonoid() -> PathBuf {
    manifest().join("../../share/choreonoid")
}

fn options(share: PathBuf) -> LoadOptions {
    LoadOptions {
        share_dir: share,
        ..Default::default()
    }
}

/// A fresh directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tribo-scene-import-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Everything of two projects that decides a run, compared: simulation, gravity, the material
/// table, every body as placed (model, pose, joint positions, materials), controllers, engine
/// options and metrics.
fn assert_same_run(a: &Project, b: &Project) {
    assert_eq!(a.name, b.name);
    assert_eq!(a.simulation, b.simulation);
    assert_eq!(a.scene.gravity, b.scene.gravity);
    assert_eq!(
        a.materials.to_yaml().ok(),
        b.materials.to_yaml().ok(),
        "material tables"
    );
    assert_eq!(a.scene.bodies.len(), b.scene.bodies.len());
    for (x, y) in a.scene.bodies.iter().zip(&b.scene.bodies) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.root_pose, y.root_pose, "{}", x.name);
        assert_eq!(x.initial_positions, y.initial_positions, "{}", x.name);
        assert_eq!(x.fixed_root, y.fixed_root, "{}", x.name);
        assert_eq!(x.self_collision, y.self_collision, "{}", x.name);
        assert_eq!(x.link_materials, y.link_materials, "{}", x.name);
        let links = |body: &tribo_scene::SceneBody| -> Vec<String> {
            body.model
                .links
                .iter()
                .map(|l| {
                    format!(
                        "{} {:?} {:?} {} {:?} {:?} {:?}",
                        l.name, l.joint, l.offset, l.mass, l.center_of_mass, l.inertia, l.shapes
                    )
                })
                .collect()
        };
        assert_eq!(links(x), links(y), "{}", x.name);
    }
    assert_eq!(a.controllers.len(), b.controllers.len());
    for (x, y) in a.controllers.iter().zip(&b.controllers) {
        match (x, y) {
            (ControllerSpec::JointPattern(p), ControllerSpec::JointPattern(q)) => {
                assert_eq!(
                    (p.body, p.mode, &p.gains, p.end_with_motion),
                    (q.body, q.mode, &q.gains, q.end_with_motion)
                );
                assert_eq!(
                    (p.motion.frame_rate, p.motion.num_parts, &p.motion.values),
                    (q.motion.frame_rate, q.motion.num_parts, &q.motion.values)
                );
            }
            _ => panic!("controllers differ: {x:?} vs {y:?}"),
        }
    }
    let options = |p: &Project| -> Vec<(String, String)> {
        p.engine_options
            .iter()
            .map(|(k, v)| (k.clone(), format!("{:?}", v.value)))
            .collect()
    };
    assert_eq!(options(a), options(b));
    assert_eq!(a.metrics, b.metrics);
}

#[test]
fn an_imported_cnoid_project_loads_to_the_project_of_the_cnoid() {
    let cnoid = choreonoid().join("SR1WalkSlippy.cnoid");
    let imported = import::import(&cnoid, &options(choreonoid())).expect("imports");
    let dir = temp_dir("cnoid");
    imported.write_to(&dir).expect("writes");
    let original = Project::load(&cnoid, &options(choreonoid())).expect("the .cnoid loads");
    // The imported project needs no share directory: every file it names is beside it.
    let empty = temp_dir("cnoid-share");
    let written = Project::load(&dir.join("project.yaml"), &options(empty.clone())).expect("the import loads");
    assert_same_run(&original, &written);
    assert_eq!(written.simulation.duration, 13.4, "the pattern's length");
    assert!(
        written.parameters.list.is_empty(),
        "no simulator parameter: the choice is made"
    );
    let copied: Vec<String> = imported.copies.iter().map(|c| c.to.display().to_string()).collect();
    assert_eq!(
        copied,
        [
            "LICENSE",
            "default/LICENSE-choreonoid.txt",
            "default/materials.yaml",
            "materials/SlippyMaterialSet.yaml",
            "model/SR1.body",
            "model/floor.body",
            "motion/SR1WalkPattern1.seq",
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&empty).ok();
}

/// `--set simulator=NAME` imports another simulator item's settings: AISTSimulator-HighGain
/// passes the `position` option, whose pattern (SR1WalkPattern2.seq) the repository does not
/// keep, so the import says the controller is not mapped, as loading the `.cnoid` does.
#[test]
fn a_simulator_item_is_chosen_as_for_a_run() {
    let cnoid = choreonoid().join("SR1WalkSlippy.cnoid");
    let mut options = options(choreonoid());
    options
        .overrides
        .insert("simulator".into(), "AISTSimulator-HighGain".into());
    let imported = import::import(&cnoid, &options).expect("imports");
    assert!(
        imported.notes[0].contains("the project holds the settings of `AISTSimulator-HighGain`"),
        "{:?}",
        imported.notes
    );
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.message.contains("SR1WalkPattern2.seq")),
        "{:?}",
        imported.warnings
    );
    let project = &imported.written[0].text;
    assert!(project.contains("controllers: []\n"), "{project}");
}

/// An ASCII STL tetrahedron (outward faces) with its corners at the origin and on the axes, `size`
/// long.
fn tetrahedron_stl(size: f64) -> String {
    let v = [[0.0, 0.0, 0.0], [size, 0.0, 0.0], [0.0, size, 0.0], [0.0, 0.0, size]];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let mut out = String::from("solid t\n");
    for f in faces {
        out.push_str("facet normal 0 0 0\nouter loop\n");
        for i in f {
            let [x, y, z] = v[i];
            out.push_str(&format!("vertex {x} {y} {z}\n"));
        }
        out.push_str("endloop\nendfacet\n");
    }
    out.push_str("endsolid t\n");
    out
}

const ARM: &str = r#"<robot name="arm">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><box size="0.2 0.2 0.1"/></geometry></visual>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
    <collision><geometry><mesh filename="package://arm/meshes/base.dae"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial><origin xyz="0 0 0.2"/><mass value="1"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.001"/></inertial>
    <collision><geometry><mesh filename="meshes/cover.dae"/></geometry></collision>
    <collision><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.03" length="0.4"/></geometry></collision>
    <collision><origin xyz="0.01 0 0.4" rpy="0 0.5 0"/><geometry><mesh filename="meshes/tip.stl" scale="1 2 1"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="20" velocity="2"/>
    <dynamics damping="0.5"/>
  </joint>
</robot>"#;

/// A URDF with every kind of collision mesh: one tribo reads (STL, scaled and turned), a Collada
/// file (copied, no collision shape) and a `package://` address (named as it is). The written
/// model is the URDF's: the mesh comes back through its `Resource` within rounding, and the links
/// keep the notes about the meshes tribo does not read.
#[test]
fn a_urdf_robot_with_meshes_imports_with_its_mesh_files() {
    let src = temp_dir("urdf-src");
    std::fs::create_dir_all(src.join("meshes")).expect("dir");
    std::fs::write(src.join("meshes/tip.stl"), tetrahedron_stl(0.05)).expect("stl");
    std::fs::write(src.join("meshes/cover.dae"), "<COLLADA/>").expect("dae");
    std::fs::write(src.join("arm.urdf"), ARM).expect("urdf");
    let urdf = src.join("arm.urdf");
    let share = manifest().join("../../share");
    let imported = import::import(&urdf, &options(share.clone())).expect("imports");
    let out = temp_dir("urdf-out");
    imported.write_to(&out).expect("writes");
    assert!(out.join("meshes/tip.stl").is_file() && out.join("meshes/cover.dae").is_file());
    let notes = imported.notes.join("\n");
    for wanted in [
        "link `base`: the mesh `package://arm/meshes/base.dae` is not a file tribo reads",
        "link `upper`: tribo does not read the mesh `meshes/cover.dae`",
        "not in arm.body: ",
        "<dynamics damping=\"0.5\" friction=\"0\"> is not simulated",
        "the URDF's <visual> elements are not imported",
        "its root is free",
    ] {
        assert!(notes.contains(wanted), "{wanted}\n{notes}");
    }
    assert!(
        !notes.contains("not in arm.body: link"),
        "the meshes are in it: {notes}"
    );
    // The URDF's own notes are said once, as notes.
    assert!(
        !imported.warnings.iter().any(|w| w.message.contains("damping")),
        "{:?}",
        imported.warnings
    );

    let original = tribo_model::load_urdf(&urdf).expect("the URDF loads");
    let written = tribo_model::load_body(&out.join("arm.body")).expect("the written body loads");
    for (a, b) in original.links.iter().zip(&written.links) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.uncollided.len(), b.uncollided.len(), "{}", a.name);
        assert_eq!(a.shapes.len(), b.shapes.len(), "{}", a.name);
        assert_eq!(
            (a.mass, a.center_of_mass, a.inertia),
            (b.mass, b.center_of_mass, b.inertia)
        );
        assert_eq!(
            (a.joint.range, a.joint.velocity_range, a.joint.axis),
            (b.joint.range, b.joint.velocity_range, b.joint.axis)
        );
        for (s, t) in a.shapes.iter().zip(&b.shapes) {
            assert!((s.pose.translation.vector - t.pose.translation.vector).amax() < 1e-15);
            assert!(s.pose.rotation.angle_to(&t.pose.rotation) < 1e-15);
            match (&s.geometry, &t.geometry) {
                (tribo_model::Geometry::Mesh(m), tribo_model::Geometry::Mesh(n)) => {
                    assert_eq!(m.triangles, n.triangles);
                    let worst = m
                        .vertices
                        .iter()
                        .zip(&n.vertices)
                        .map(|(p, q)| (p - q).amax())
                        .fold(0.0, f64::max);
                    assert!(worst < 1e-16, "mesh vertices {worst:e} apart");
                    // The scale applied: the tip is 0.1 m along y (STL coordinates are f32).
                    assert!((n.bounds().1.y - 0.1).abs() < 1e-8, "{:?}", n.bounds());
                }
                (g, h) => assert_eq!(g, h),
            }
        }
    }

    // The project stands the arm on the floor and loads with the written model.
    let project = Project::load(&out.join("project.yaml"), &options(share)).expect("loads");
    let arm = &project.scene.bodies[1];
    assert_eq!(arm.name, "arm");
    assert!(!arm.fixed_root);
    // The base box reaches 0 below the link origin (its centre 0.05 up, 0.1 tall): the root at 1 mm.
    assert!(
        (arm.root_pose.translation.vector.z - 0.001).abs() < 1e-15,
        "{}",
        arm.root_pose
    );
    let metrics: Vec<&str> = project.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        metrics,
        ["displacement", "height_change", "max_tilt", "max_penetration"]
    );
    std::fs::remove_dir_all(&src).ok();
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn unsupported_and_missing_sources_are_errors() {
    let options = options(choreonoid());
    let error = import::import(Path::new("robot.sdf"), &options).expect_err("sdf");
    assert_eq!(
        error.to_string(),
        "robot.sdf: tribo import reads a Choreonoid project (.cnoid) or a URDF robot (.urdf), not a `.sdf` file"
    );
    let error = import::import(Path::new("no/robot.urdf"), &options).expect_err("missing");
    assert_eq!(error.to_string(), "no/robot.urdf: no such file");
}
