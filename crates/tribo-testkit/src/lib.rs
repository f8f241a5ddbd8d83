//! Scenes built in code for tribo's engine tests and benchmarks: single-link bodies from a
//! geometry, a mass and a material name; a material table from YAML text; a few standard
//! placements; engines built from any [`EngineFactory`] and stepped with idle commands.
//!
//! This is test support: the helpers `expect` valid inputs and panic with a message otherwise.

use std::sync::Arc;

use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
use tribo_engine::{Commands, Engine, EngineFactory, EngineOptions, SceneState};
use tribo_engine::{Scene, SceneBody};
use tribo_material::{ContactTable, MaterialTable};
use tribo_model::{Body, Geometry, Joint, JointKind, Link, Shape};

pub const G: f64 = 9.81;

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
        uncollided: Vec::new(),
        pads: Vec::new(),
        location: tribo_yaml::Location::file("test"),
    }
}

pub fn with_shape(mut link: Link, geometry: Geometry) -> Link {
    link.inertia = geometry.solid_inertia(link.mass);
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
        extra_joints: Vec::new(),
    }
}

/// A one-link free body made of one solid ([`Body::solid`]).
pub fn solid(name: &str, geometry: Geometry, mass: f64, material: &str) -> Body {
    Body::solid(name, geometry, mass, material)
}

/// The massless fixed root link `base` of an arm or a slider (material `Thing`).
pub fn fixed_base() -> Link {
    link(
        "base",
        None,
        joint(JointKind::Fixed, "base", Vector3::z()),
        Isometry3::identity(),
        0.0,
        "Thing",
    )
}

/// A child link `name` of the base on a one-dof joint of `kind` about/along `axis`, at the base's
/// origin, of mass `mass` (material `Thing`; centre of mass and inertia left to the caller).
pub fn jointed(name: &str, kind: JointKind, joint_name: &str, axis: Vector3<f64>, mass: f64) -> Link {
    link(
        name,
        Some(0),
        joint(kind, joint_name, axis),
        Isometry3::identity(),
        mass,
        "Thing",
    )
}

/// A 0.2 m, 1 kg box `box` (material `Thing`, μ 0.5, restitution `restitution`) whose centre starts
/// `height` above a flat ground.
pub fn box_above_ground(restitution: f64, height: f64) -> Arc<Scene> {
    let table = pair_table(0.5, 0.5, restitution);
    let cube = solid(
        "box",
        Geometry::Box {
            size: Vector3::repeat(0.2),
        },
        1.0,
        "Thing",
    );
    scene(
        vec![
            ground(0.0, &table),
            place("box", cube, Isometry3::translation(0.0, 0.0, height), false, &table),
        ],
        table,
    )
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
        pads: Vec::new(),
    })
}

/// A scene whose pads are the ones declared on the links of its bodies (`pad:` in a body file),
/// as a project's assembly lays them.
pub fn scene_with_declared_pads(bodies: Vec<SceneBody>, contacts: ContactTable) -> Arc<Scene> {
    let pads = tribo_engine::declared_pads(bodies.iter().map(|b| b.model.as_ref()));
    Arc::new(Scene {
        name: "test".to_owned(),
        gravity: Vector3::new(0.0, 0.0, -G),
        bodies,
        contacts,
        pads,
    })
}

/// An engine of `factory`'s kind for `scene`, with default options.
pub fn engine(factory: &dyn EngineFactory, scene: &Arc<Scene>) -> Box<dyn Engine> {
    factory
        .build(scene, &EngineOptions::none())
        .expect("the engine builds with these options")
}

/// An engine of `factory`'s kind for `scene`, with options given as YAML text.
pub fn engine_with(factory: &dyn EngineFactory, scene: &Arc<Scene>, options_yaml: &str) -> Box<dyn Engine> {
    let node = tribo_yaml::parse_str(options_yaml, "options.yaml").expect("valid YAML");
    factory
        .build(scene, &EngineOptions { node: Some(node) })
        .expect("the engine builds with these options")
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

/// SR1's initial posture from Choreonoid's `SR1Walk*.cnoid` (`joint_displacements`, degrees, by
/// joint id).
pub const SR1_POSTURE_DEG: [f64; 29] = [
    0.0, -2.1, 0.0, 4.50001, -2.40001, 0.0, 10.0, -0.20002, 0.0, -90.0, 0.0, 0.0, 0.0, 0.0, -2.1, 0.0, 4.50001,
    -2.40001, 0.0, 10.0, -0.20002, 0.0, -90.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
];

/// Choreonoid's SR1 (`choreonoid_dir/model/SR1.body`, materials from
/// `choreonoid_dir/materials/default-materials.yaml`) standing on the floor (material Ground),
/// root at z = 0.7135 m in its initial posture, and the commands that hold it: PD on every joint,
/// P 8000 on legs, waist and chest, 3000 on arms, D 100 (Choreonoid's SR1 sample controller).
/// Body 0 is the floor, body 1 the robot.
pub fn sr1_standing(choreonoid_dir: &std::path::Path) -> (Arc<Scene>, Commands) {
    let model = tribo_model::load_body(&choreonoid_dir.join("model/SR1.body")).expect("SR1.body loads");
    let materials = std::fs::read_to_string(choreonoid_dir.join("materials/default-materials.yaml"))
        .expect("the default material table reads");
    let mut names: Vec<&str> = model.links.iter().map(|l| l.material.as_str()).collect();
    names.push("Ground");
    names.sort_unstable();
    names.dedup();
    let table = table(&materials, &names);
    let mut initial = vec![0.0; model.links.len()];
    let mut joints = vec![tribo_engine::JointCommand::None; model.links.len()];
    for (id, degrees) in SR1_POSTURE_DEG.iter().enumerate() {
        let link = model.joint_link(id).expect("joint id in SR1");
        let arm = (6..=12).contains(&id) || (19..=25).contains(&id);
        initial[link] = degrees.to_radians();
        joints[link] = tribo_engine::JointCommand::Pd {
            q_ref: degrees.to_radians(),
            v_ref: 0.0,
            kp: if arm { 3000.0 } else { 8000.0 },
            kd: 100.0,
            feedforward: 0.0,
        };
    }
    let mut robot = place("SR1", model, Isometry3::translation(0.0, 0.0, 0.7135), false, &table);
    robot.initial_positions = initial;
    let scene = scene(vec![ground(0.0, &table), robot], table);
    let mut commands = idle(&scene);
    commands.bodies[1].joints = joints;
    (scene, commands)
}

/// A pile of `nx × ny × nz` cubes of edge `size` (1 kg each, material Thing, μ 0.5) on the floor:
/// columns on a grid with `gap` between neighbouring columns, boxes of a column resting on each
/// other. Body 0 is the floor.
pub fn box_pile(nx: usize, ny: usize, nz: usize, size: f64, gap: f64) -> Arc<Scene> {
    let table = pair_table(0.5, 0.5, 0.0);
    let mut bodies = vec![ground(0.0, &table)];
    let pitch = size + gap;
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let cube = solid(
                    "box",
                    Geometry::Box {
                        size: Vector3::repeat(size),
                    },
                    1.0,
                    "Thing",
                );
                let position = Vector3::new(
                    (i as f64 - (nx as f64 - 1.0) / 2.0) * pitch,
                    (j as f64 - (ny as f64 - 1.0) / 2.0) * pitch,
                    size / 2.0 + k as f64 * size,
                );
                let name = format!("box_{i}_{j}_{k}");
                bodies.push(place(
                    &name,
                    cube,
                    Isometry3::translation(position.x, position.y, position.z),
                    false,
                    &table,
                ));
            }
        }
    }
    scene(bodies, table)
}
