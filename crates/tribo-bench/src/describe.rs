//! The project's scene as JSON, for building the same scene in another simulator
//! (`bench/anchors.py` builds MuJoCo models from it): bodies with their root poses, links,
//! inertia, shapes and initial joint positions; the contact coefficients of every pair of the
//! scene's materials; the joint-pattern controllers with their gains and motion frames.
//! SI units; quaternions `[w, x, y, z]`; inertia 3 × 3 row by row about the centre of mass in
//! link axes.

use nalgebra::{Isometry3, Matrix3, Vector3};
use serde_json::{json, Value};
use tribo_model::{Geometry, JointKind};
use tribo_runner::{Scene, SceneBody};
use tribo_scene::{ControllerSpec, PatternMode, Project};

/// The description of `project`, with `steps` the run's step count.
pub fn describe(project: &Project, steps: u64) -> Value {
    let scene = &project.scene;
    json!({
        "project": project.path.display().to_string(),
        "name": project.name,
        "time_step": project.simulation.time_step,
        "steps": steps,
        "gravity": vec3(&scene.gravity),
        "bodies": scene.bodies.iter().map(|b| body(scene, b)).collect::<Vec<_>>(),
        "contacts": contacts(scene),
        "controllers": project.controllers.iter().map(|c| controller(scene, c)).collect::<Vec<_>>(),
    })
}

fn vec3(v: &Vector3<f64>) -> [f64; 3] {
    [v.x, v.y, v.z]
}

fn pose(p: &Isometry3<f64>) -> Value {
    let q = p.rotation;
    json!({ "translation": vec3(&p.translation.vector), "quaternion": [q.w, q.i, q.j, q.k] })
}

fn rows(m: &Matrix3<f64>) -> [[f64; 3]; 3] {
    [0, 1, 2].map(|r| [m[(r, 0)], m[(r, 1)], m[(r, 2)]])
}

fn kind(k: JointKind) -> &'static str {
    match k {
        JointKind::Free => "free",
        JointKind::Fixed => "fixed",
        JointKind::Revolute => "revolute",
        JointKind::Prismatic => "prismatic",
    }
}

fn geometry(g: &Geometry) -> Value {
    match g {
        Geometry::Box { size } => json!({ "type": "box", "size": vec3(size) }),
        Geometry::Sphere { radius } => json!({ "type": "sphere", "radius": radius }),
        Geometry::Cylinder { radius, height } => json!({ "type": "cylinder", "radius": radius, "height": height }),
        Geometry::Capsule { radius, height } => json!({ "type": "capsule", "radius": radius, "height": height }),
        Geometry::Cone { radius, height } => json!({ "type": "cone", "radius": radius, "height": height }),
        Geometry::Mesh(mesh) => json!({
            "type": "mesh",
            "vertices": mesh.vertices.iter().map(vec3).collect::<Vec<_>>(),
            "triangles": mesh.triangles,
            "collision": mesh.collision.name(),
        }),
    }
}

fn body(scene: &Scene, b: &SceneBody) -> Value {
    let links: Vec<Value> = b
        .model
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            json!({
                "name": l.name,
                "parent": l.parent,
                "joint": kind(l.joint.kind),
                "joint_name": l.joint.name,
                "joint_axis": vec3(&l.joint.axis),
                "offset": pose(&l.offset),
                "initial_position": b.initial_positions.get(i).copied().unwrap_or(0.0),
                "mass": l.mass,
                "center_of_mass": vec3(&l.center_of_mass),
                "inertia": rows(&l.inertia),
                "material": scene.contacts.name(b.link_materials[i]),
                "shapes": l.shapes.iter().map(|s| json!({ "geometry": geometry(&s.geometry), "pose": pose(&s.pose) })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "name": b.name,
        "model": b.model.name,
        "model_file": b.model.source.as_ref(),
        "fixed": b.fixed_root,
        "root_pose": pose(&b.root_pose),
        "self_collision": b.self_collision,
        "links": links,
    })
}

/// Every pair of the materials the scene's links use.
fn contacts(scene: &Scene) -> Vec<Value> {
    let mut used: Vec<_> = scene
        .bodies
        .iter()
        .flat_map(|b| b.link_materials.iter().copied())
        .collect();
    used.sort();
    used.dedup();
    let mut out = Vec::new();
    for (i, &a) in used.iter().enumerate() {
        for &b in &used[i..] {
            let p = scene.contacts.pair(a, b);
            out.push(json!({
                "materials": [scene.contacts.name(a), scene.contacts.name(b)],
                "static_friction": p.static_friction,
                "dynamic_friction": p.dynamic_friction,
                "restitution": p.restitution,
            }));
        }
    }
    out
}

fn controller(scene: &Scene, c: &ControllerSpec) -> Value {
    let ControllerSpec::JointPattern(p) = c else {
        return json!({ "type": "other" });
    };
    let body = &scene.bodies[p.body];
    let joints: Vec<String> = (0..p.motion.num_parts)
        .map(|id| {
            body.model
                .joint_link(id)
                .map_or_else(String::new, |l| body.model.links[l].joint.name.clone())
        })
        .collect();
    let frames: Vec<&[f64]> = (0..p.motion.num_frames()).map(|i| p.motion.frame(i)).collect();
    json!({
        "type": "joint_pattern",
        "body": body.name,
        "mode": match p.mode { PatternMode::Torque => "torque", PatternMode::Position => "position" },
        "joints": joints,
        "gains": p.gains.iter().map(|(kp, kd)| [kp, kd]).collect::<Vec<_>>(),
        "frame_rate": p.motion.frame_rate,
        "frames": frames,
        "end_with_motion": p.end_with_motion,
    })
}
