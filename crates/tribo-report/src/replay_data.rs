//! The replay as compact JSON for the page's viewer: the scene's shapes once, then per engine the
//! frames (every link's pose) and the contact forces, decimated to at most [`MAX_REPLAY_FRAMES`]
//! per engine (each kept frame showing the strongest contacts of the frames it replaces) and
//! rounded to 5 significant digits.
//!
//! ```text
//! { "bodies": [{ "name", "links": [{ "name", "shapes": [{ "kind", "size"|"radius"+"height"
//!                                                         |"vertices"+"triangles"+"extent",
//!                                                       "pose": [x,y,z,qw,qx,qy,qz], "color" }] }] }],
//!   "runs": [{ "engine", "times": [t…],
//!              "poses": [[x,y,z,qw,qx,qy,qz, …every link of every body…] per frame],
//!              "contacts": [[px,py,pz,fx,fy,fz, …per contact…] per frame],
//!              "pads": [pressure maps, see `pressure.rs`] }] }
//! ```

use serde_json::{json, Value};
use tribo_model::Geometry;
use tribo_runner::Replay;
use tribo_scene::Scene;

use crate::format::num;
use crate::EngineRun;

/// Meshes with more triangles are drawn as their bounding box (the page stays small and fast).
pub const MAX_DRAWN_TRIANGLES: usize = 20_000;

/// Frames kept per engine; longer replays keep every n-th frame (and the last).
pub const MAX_REPLAY_FRAMES: usize = 600;

/// The viewer's data for `runs` of `scene` (runs without a replay get no frames).
pub fn replay_json(scene: &Scene, runs: &[EngineRun]) -> Value {
    let bodies: Vec<Value> = scene
        .bodies
        .iter()
        .map(|b| {
            let links: Vec<Value> = b
                .model
                .links
                .iter()
                .map(|l| json!({"name": l.name, "shapes": l.shapes.iter().map(shape_json).collect::<Vec<_>>()}))
                .collect();
            json!({"name": b.name, "links": links})
        })
        .collect();
    let runs: Vec<Value> = runs.iter().map(run_json).collect();
    json!({"bodies": bodies, "runs": runs})
}

fn shape_json(shape: &tribo_model::Shape) -> Value {
    let mut pose = shape.pose;
    if let Geometry::Mesh(mesh) = &shape.geometry {
        if mesh.triangles.len() > MAX_DRAWN_TRIANGLES {
            // Drawn as its bounding box, placed at the box's centre.
            let (lo, hi) = mesh.bounds();
            pose *= nalgebra::Translation3::from((lo + hi) * 0.5);
        }
    }
    let t = pose.translation.vector;
    let q = shape.pose.rotation.into_inner();
    let pose: Vec<Value> = [t.x, t.y, t.z, q.w, q.i, q.j, q.k].into_iter().map(num).collect();
    let color: Vec<Value> = shape.color.unwrap_or([0.7, 0.7, 0.72]).into_iter().map(num).collect();
    let mut out = match &shape.geometry {
        Geometry::Box { size } => json!({"kind": "box", "size": [num(size.x), num(size.y), num(size.z)]}),
        Geometry::Sphere { radius } => json!({"kind": "sphere", "radius": num(*radius)}),
        Geometry::Cylinder { radius, height } => {
            json!({"kind": "cylinder", "radius": num(*radius), "height": num(*height)})
        }
        Geometry::Capsule { radius, height } => {
            json!({"kind": "capsule", "radius": num(*radius), "height": num(*height)})
        }
        Geometry::Cone { radius, height } => json!({"kind": "cone", "radius": num(*radius), "height": num(*height)}),
        Geometry::Mesh(mesh) => {
            let (lo, hi) = mesh.bounds();
            if mesh.triangles.len() > MAX_DRAWN_TRIANGLES {
                let size = hi - lo;
                json!({"kind": "box", "size": [num(size.x), num(size.y), num(size.z)]})
            } else {
                let vertices: Vec<Value> = mesh
                    .vertices
                    .iter()
                    .flat_map(|v| [num(v.x), num(v.y), num(v.z)])
                    .collect();
                let triangles: Vec<u32> = mesh.triangles.iter().flatten().copied().collect();
                let extent = 0.5 * (hi - lo).max();
                json!({"kind": "mesh", "vertices": vertices, "triangles": triangles, "extent": num(extent)})
            }
        }
    };
    if let Value::Object(map) = &mut out {
        map.insert("pose".into(), Value::Array(pose));
        map.insert("color".into(), Value::Array(color));
    }
    out
}

/// Indices of the frames kept: every `ceil(n / max)`-th, and always the last.
pub fn kept_frames(n: usize, max: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let stride = n.div_ceil(max.max(1));
    let mut kept: Vec<usize> = (0..n).step_by(stride).collect();
    if kept.last() != Some(&(n - 1)) {
        if kept.len() >= max {
            kept.pop();
        }
        kept.push(n - 1);
    }
    kept
}

/// Sum of the contact force magnitudes of a frame, N.
fn total_force(frame: &tribo_runner::ReplayFrame) -> f64 {
    frame
        .contacts
        .iter()
        .map(|c| c.force.iter().map(|f| f * f).sum::<f64>().sqrt())
        .sum()
}

fn run_json(run: &EngineRun) -> Value {
    let empty = Replay::default();
    let replay = run.outcome.replay.as_ref().unwrap_or(&empty);
    let kept = kept_frames(replay.frames.len(), MAX_REPLAY_FRAMES);
    let mut times = Vec::new();
    let mut poses = Vec::new();
    let mut contacts = Vec::new();
    let mut previous: Option<usize> = None;
    for &i in &kept {
        let Some(frame) = replay.frames.get(i) else { continue };
        times.push(num(frame.time));
        let flat: Vec<Value> = frame.poses.iter().flatten().flatten().map(|&v| num(v)).collect();
        poses.push(Value::Array(flat));
        // Impacts last a few steps: a kept frame shows the strongest contacts of the frames it
        // stands for (those since the previous kept frame), so no impact is dropped.
        let first = previous.map_or(i, |p| p + 1);
        let strongest = (first..=i)
            .filter_map(|j| replay.frames.get(j))
            .max_by(|a, b| total_force(a).total_cmp(&total_force(b)))
            .unwrap_or(frame);
        let forces: Vec<Value> = strongest
            .contacts
            .iter()
            .flat_map(|c| c.point.into_iter().chain(c.force))
            .map(num)
            .collect();
        contacts.push(Value::Array(forces));
        previous = Some(i);
    }
    json!({
        "engine": run.outcome.engine,
        "times": times,
        "poses": poses,
        "contacts": contacts,
        "pads": run.pressure.iter().map(crate::pressure::PressureMap::to_json).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribo_runner::{ReplayContact, ReplayFrame, RunOutcome};

    #[test]
    fn contacts_are_point_then_force_per_contact() {
        let frame = ReplayFrame {
            time: 0.5,
            poses: vec![vec![[0.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0]]],
            contacts: vec![ReplayContact {
                point: [0.1, 0.2, 0.0],
                force: [0.0, 1.0 / 3.0, 4.9],
                area: 0.0,
            }],
        };
        let outcome = outcome(vec![frame]);
        let v = run_json(&EngineRun {
            outcome: &outcome,
            failure: None,
            pressure: &[],
        });
        assert_eq!(v["times"], json!([0.5]));
        assert_eq!(v["poses"][0], json!([0.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0]));
        assert_eq!(v["contacts"][0], json!([0.1, 0.2, 0.0, 0.0, 0.33333, 4.9]));
    }

    fn outcome(frames: Vec<ReplayFrame>) -> RunOutcome {
        RunOutcome {
            engine: "e".into(),
            steps: frames.len() as u64,
            simulated_time: 0.0,
            wall_time: std::time::Duration::ZERO,
            metrics: Vec::new(),
            trajectory: Default::default(),
            replay: Some(Replay {
                interval: 0.001,
                frames,
                pressure: Default::default(),
            }),
            warnings: Vec::new(),
            solver: Default::default(),
        }
    }

    #[test]
    fn decimation_keeps_a_brief_impact() {
        // 1201 frames → every 3rd kept; an impact only at frame 1000 (not kept) must still show,
        // on the kept frame that stands for it (1002).
        let frames: Vec<ReplayFrame> = (0..1201)
            .map(|i| ReplayFrame {
                time: i as f64 * 0.001,
                poses: vec![vec![[0.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0]]],
                contacts: if i == 1000 {
                    vec![ReplayContact {
                        point: [0.0; 3],
                        force: [0.0, 0.0, 250.0],
                        area: 0.0,
                    }]
                } else {
                    Vec::new()
                },
            })
            .collect();
        let v = run_json(&EngineRun {
            outcome: &outcome(frames),
            failure: None,
            pressure: &[],
        });
        let times = v["times"].as_array().expect("times");
        assert!(times.len() <= MAX_REPLAY_FRAMES);
        let with_force: Vec<f64> = (0..times.len())
            .filter(|&k| v["contacts"][k].as_array().is_some_and(|c| !c.is_empty()))
            .map(|k| times[k].as_f64().expect("time"))
            .collect();
        assert_eq!(with_force, vec![1.002]);
    }

    #[test]
    fn frames_are_decimated_to_the_limit_and_keep_the_last() {
        assert_eq!(kept_frames(0, 600), Vec::<usize>::new());
        assert_eq!(kept_frames(5, 600), vec![0, 1, 2, 3, 4]);
        let kept = kept_frames(3001, 600);
        assert!(kept.len() <= 600, "{}", kept.len());
        assert_eq!(kept.first(), Some(&0));
        assert_eq!(kept.last(), Some(&3000));
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        let exact = kept_frames(1200, 600);
        assert_eq!(exact.len(), 600);
        assert_eq!(exact.last(), Some(&1199));
    }
}
