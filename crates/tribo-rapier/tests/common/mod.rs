//! Scenes built in code for the `rapier` engine's tests: single-link bodies from a geometry, a
//! mass and a material name; a material table from YAML text; a few standard placements.
#![allow(dead_code)]

use std::sync::Arc;

use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
use tribo_engine::{Commands, Engine, EngineFactory, EngineOptions, SceneState};
use tribo_material::{ContactTable, MaterialTable};
use tribo_model::{Body, Geometry, Joint, JointKind, Link, Shape};
use tribo_rapier::RapierFactory;
use tribo_scene::{Scene, SceneBody};

pub const G: f64 = 9.81;

/// Inertia of a solid of uniform density about its centre, in its own axes (textbook formulas;
/// cylinder axis along y, as in Choreonoid).
pub fn solid_inertia(geometry: &Geometry, mass: f64) -> Matrix3<f64> {
    let d = match geometry {
        Geometry::Box { size } => {
            let (x2, y2, z2) = (size.x * size.x, size.y * size.y, size.z * size.z);
            Vector3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 12.0)
        }
        Geometry::Sphere { radius } => Vector3::repeat(0.4 * mass * radius * radius),
        Geometry::Cylinder { radius, height }
        | Geometry::Capsule { radius, height }
        | Geometry::Cone { radius, height } => {
            let side = mass * (3.0 * radius * radius + height * height) / 12.0;
            Vector3::new(side, 0.5 * mass * radius * radius, side)
        }
    };
    Matrix3::from_diagonal(&d)
}

pub fn joint(kind: JointKind, name: &str, axis: Vector3<f64>) -> Joint {
    Joint {
        kind,
        name: name.to_owned(),
        id: None,
        axis,
        range: [f64::NEG_INFINITY, f64::INFINITY],
        velocity_range: [f64::NEG_INFINITY, f64::INFINITY],
        max_effort: f64::INFINITY,
        initial_position: 0.0,
        armature: 0.0,
    }
}

pub fn link(
    name: &str,
    parent: Option<usize>,
    joint: Joint,
    offset: Isometry3<f64>,
    mass: f64,
    material: &str,
) -> Link {
    Link {
        name: name.to_owned(),
        parent,
        children: Vec::new(),
        joint,
        offset,
        mass,
        center_of_mass: Vector3::zeros(),
        inertia: Matrix3::zeros(),
        material: material.to_owned(),
        material_location: None,
        shapes: Vec::new(),
        location: tribo_yaml::Location::file("test"),
    }
}

pub fn with_shape(mut link: Link, geometry: Geometry) -> Link {
    link.inertia = solid_inertia(&geometry, link.mass);
    link.shapes.push(Shape {
        geometry,
        pose: Isometry3::identity(),
        color: None,
    });
    link
}

/// A body from its links (children lists filled in from the parents).
pub fn body(name: &str, mut links: Vec<Link>) -> Body {
    for i in 0..links.len() {
        if let Some(p) = links[i].parent {
            links[p].children.push(i);
        }
    }
    Body {
        name: name.to_owned(),
        source: Arc::from(""),
        links,
        joints_by_id: Vec::new(),
        notes: Vec::new(),
    }
}

/// A one-link free body made of one solid.
pub fn solid(name: &str, geometry: Geometry, mass: f64, material: &str) -> Body {
    let root = link(
        name,
        None,
        joint(JointKind::Free, "root", Vector3::z()),
        Isometry3::identity(),
        mass,
        material,
    );
    body(name, vec![with_shape(root, geometry)])
}

/// A body instance at `pose`, at rest, with every link's material resolved in `table`.
pub fn place(name: &str, model: Body, pose: Isometry3<f64>, fixed: bool, table: &ContactTable) -> SceneBody {
    let link_materials = model
        .links
        .iter()
        .map(|l| table.id(&l.material).expect("material in the table"))
        .collect();
    let n = model.links.len();
    SceneBody {
        name: name.to_owned(),
        model: Arc::new(model),
        root_pose: pose,
        root_linear_velocity: Vector3::zeros(),
        root_angular_velocity: Vector3::zeros(),
        fixed_root: fixed,
        initial_positions: vec![0.0; n],
        link_materials,
        self_collision: false,
    }
}

/// The contact table of a YAML material table, for the given material names.
pub fn table(yaml: &str, names: &[&str]) -> ContactTable {
    let loaded = MaterialTable::parse_str(yaml, "test-materials.yaml").expect("valid material table");
    ContactTable::build(&loaded.table, names.iter().copied()).expect("contact table")
}

/// A table where `Ground` and `Thing` touch with the given numbers.
pub fn pair_table(static_friction: f64, dynamic_friction: f64, restitution: f64) -> ContactTable {
    let yaml = format!(
        "materials:\n  - name: Ground\n  - name: Thing\ncontact_materials:\n  - materials: [Ground, Thing]\n    \
         static_friction: {static_friction}\n    dynamic_friction: {dynamic_friction}\n    restitution: {restitution}\n"
    );
    table(&yaml, &["Ground", "Thing"])
}

/// A fixed 40 m × 40 m × 1 m slab whose top face passes through the origin with normal
/// `R_y(tilt) · z` (tilt > 0 makes the surface descend towards +x).
pub fn ground(tilt: f64, table: &ContactTable) -> SceneBody {
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt);
    let normal = rotation * Vector3::z();
    let slab = solid(
        "ground",
        Geometry::Box {
            size: Vector3::new(40.0, 40.0, 1.0),
        },
        0.0,
        "Ground",
    );
    place(
        "ground",
        slab,
        Isometry3::from_parts(Translation3::from(-normal * 0.5), rotation),
        true,
        table,
    )
}

/// Unit vector down the slope of `ground(tilt)`, and its normal.
pub fn slope_axes(tilt: f64) -> (Vector3<f64>, Vector3<f64>) {
    let rotation = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), tilt);
    (rotation * Vector3::x(), rotation * Vector3::z())
}

/// A scene with gravity −9.81 z.
pub fn scene(bodies: Vec<SceneBody>, contacts: ContactTable) -> Arc<Scene> {
    Arc::new(Scene {
        name: "test".to_owned(),
        gravity: Vector3::new(0.0, 0.0, -G),
        bodies,
        contacts,
    })
}

pub fn engine(scene: &Arc<Scene>) -> Box<dyn Engine> {
    RapierFactory
        .build(scene, &EngineOptions::none())
        .expect("the rapier engine builds")
}

pub fn engine_with(scene: &Arc<Scene>, options_yaml: &str) -> Box<dyn Engine> {
    let node = tribo_yaml::parse_str(options_yaml, "options.yaml").expect("valid YAML");
    RapierFactory
        .build(scene, &EngineOptions { node: Some(node) })
        .expect("the rapier engine builds")
}

pub fn idle(scene: &Scene) -> Commands {
    Commands::idle(scene.bodies.iter().map(|b| b.model.links.len()))
}

/// Step `steps` times with idle commands, calling `observe` after each step.
pub fn run(engine: &mut dyn Engine, scene: &Scene, dt: f64, steps: usize, mut observe: impl FnMut(&SceneState)) {
    let commands = idle(scene);
    for _ in 0..steps {
        engine.step(dt, &commands).expect("the step succeeds");
        observe(engine.state());
    }
}

pub fn root_position(state: &SceneState, body: usize) -> Vector3<f64> {
    state.bodies[body].links[0].pose.translation.vector
}
