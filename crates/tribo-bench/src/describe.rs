//! The project's scene as JSON, for building the same scene in another simulator
//! (`bench/anchors.py` builds MuJoCo models from it): bodies with their root poses, links,
//! inertia, shapes and initial joint positions; the contact coefficients of every pair of the
//! scene's materials; the joint-pattern controllers with their gains and motion frames, the
//! joint-effort controllers with their efforts and time windows, and the kinematic paths as the
//! root pose at every step's start and end (`t = k dt`, `k = 0 ..= steps`).
//! SI units; quaternions `[w, x, y, z]`; inertia 3 × 3 row by row about the centre of mass in
//! link axes.

use nalgebra::{Isometry3, Matrix3, Vector3};
use serde_json::{json, Value};
use tribo_model::{Geometry, JointKind};
use tribo_runner::controllers::KinematicPathController;
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
        "controllers": project
            .controllers
            .iter()
            .map(|c| controller(scene, c, project.simulation.time_step, steps))
            .collect::<Vec<_>>(),
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
                "armature": l.joint.armature,
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

/// An end of a time window: `null` for one that never ends.
fn time_or_null(t: f64) -> Value {
    if t.is_finite() {
        json!(t)
    } else {
        Value::Null
    }
}

fn controller(scene: &Scene, c: &ControllerSpec, dt: f64, steps: u64) -> Value {
    let p = match c {
        ControllerSpec::JointPattern(p) => p,
        ControllerSpec::JointEffort(e) => {
            let body = &scene.bodies[e.joint.body];
            return json!({
                "type": "joint_effort",
                "body": body.name,
                "joint": body.model.links.get(e.joint.link).map_or("", |l| l.joint.name.as_str()),
                "effort": e.effort,
                "start": e.start,
                "end": time_or_null(e.end),
            });
        }
        ControllerSpec::KinematicPath(k) => {
            let body = &scene.bodies[k.body];
            let path = KinematicPathController::starting_at(k.clone(), body.root_pose);
            let poses: Vec<Value> = (0..=steps).map(|i| pose(&path.pose_at(i as f64 * dt))).collect();
            return json!({ "type": "kinematic_path", "body": body.name, "poses": poses });
        }
        ControllerSpec::Wrench(_) => return json!({ "type": "other" }),
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::Value;

    use super::describe;

    /// The description of `steps` steps of the repository's project `path` (relative to the
    /// repository root), with the repository's `share/`.
    fn describe_sample(path: &str, steps: u64) -> Value {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let project = crate::project::load(&root.join(path), Some(root.join("share"))).expect("the sample loads");
        describe(&project, steps)
    }

    /// gentle-grasp's controllers as another simulator needs them: the squeeze effort of the
    /// project's formula, `1.5 m g / (2 μ)` with m 0.1 kg and μ 0.5, and the palm's minimum-jerk
    /// lift sampled at every step — at rest before 0.3 s, half-way (`10/8 − 15/16 + 6/32 = 1/2`
    /// of the 5 cm) at 0.9 s, at the top from 1.5 s.
    #[test]
    fn gentle_grasp_describes_its_efforts_and_its_lift_step_by_step() {
        let d = describe_sample("samples/gentle-grasp/gentle-grasp.yaml", 2000);
        let controllers = d["controllers"].as_array().expect("controllers");
        let efforts: Vec<_> = controllers.iter().filter(|c| c["type"] == "joint_effort").collect();
        assert_eq!(efforts.len(), 2);
        for (c, joint) in efforts.iter().zip(["left_finger", "right_finger"]) {
            assert_eq!(c["body"], "gripper");
            assert_eq!(c["joint"], joint);
            let effort = c["effort"].as_f64().expect("effort");
            assert!((effort - 1.5 * 0.1 * 9.81 / (2.0 * 0.5)).abs() < 1e-12, "{effort}");
            assert_eq!(c["start"], 0.0);
            assert!(c["end"].is_null());
        }
        let path = controllers
            .iter()
            .find(|c| c["type"] == "kinematic_path")
            .expect("the lift");
        let poses = path["poses"].as_array().expect("poses");
        assert_eq!(poses.len(), 2001);
        let z = |k: usize| poses[k]["translation"][2].as_f64().expect("z");
        assert_eq!(z(0), 0.07);
        assert_eq!(z(300), 0.07);
        assert!((z(900) - 0.095).abs() < 1e-12, "{}", z(900));
        assert!((z(1500) - 0.12).abs() < 1e-12 && (z(2000) - 0.12).abs() < 1e-12);
        assert!(
            (1..2001).all(|k| z(k) >= z(k - 1) - 1e-15),
            "the lift only rises (to rounding)"
        );
    }

    /// The walker as another simulator needs it: every leg joint carries its geared actuator's
    /// reflected inertia, `rotor_inertia · gear_ratio² = 1e-5 · 160² = 0.256 kg·m²`
    /// (share/model/walker.body), the fixed chest and the free waist none; its pattern is
    /// torque-mode with the project's gains (P 12000, D 200) on all twelve joints.
    #[test]
    fn the_walker_describes_its_joints_armature_and_its_torque_mode_pattern() {
        let d = describe_sample("samples/slippy-walker/walker.yaml", 10);
        let bodies = d["bodies"].as_array().expect("bodies");
        let walker = bodies.iter().find(|b| b["name"] == "walker").expect("the walker");
        let links = walker["links"].as_array().expect("links");
        assert_eq!(links.len(), 14);
        for link in links {
            let armature = link["armature"].as_f64().expect("armature");
            let expected = if link["joint"] == "revolute" {
                1e-5 * 160.0 * 160.0
            } else {
                0.0
            };
            assert!((armature - expected).abs() < 1e-12, "{}: {armature}", link["name"]);
        }
        let pattern = &d["controllers"][0];
        assert_eq!(pattern["type"], "joint_pattern");
        assert_eq!(pattern["mode"], "torque");
        let gains = pattern["gains"].as_array().expect("gains");
        assert_eq!(gains.len(), 12);
        assert!(gains.iter().all(|g| g[0] == 12000.0 && g[1] == 200.0));
    }
}
