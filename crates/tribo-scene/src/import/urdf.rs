//! A URDF robot as a tribo project: `ROBOT.body`, the model [`tribo_model::load_urdf`] reads,
//! written in Choreonoid's body format ([`tribo_model::write_body_with`]: links, joints with axes,
//! limits and ids, inertials, collision shapes in Choreonoid's axis convention — a URDF cylinder
//! along its z is a body-file cylinder along y, turned by the shape's rotation), and
//! `project.yaml` standing it on tribo's floor.
//!
//! - Collision meshes become `Resource` shapes naming the mesh file, copied beside the body file
//!   at its relative place (a file named by an absolute path or above the URDF's directory goes
//!   into `meshes/`); a mesh tribo does not read (another format, a `package://` address) is
//!   written the same way, so the imported model keeps the same note on that link.
//! - The project, as the samples are written: tribo's floor (`${SHARE}/model/floor.body`, its top
//!   at z = 0), the robot at its URDF pose raised so that its lowest collision point is 1 mm above
//!   the floor, Choreonoid's default material table copied as `default/materials.yaml` with its
//!   licence, and `link_materials` giving every link `Default` and the links the robot stands on
//!   `Sole` (URDF has no contact materials). Its metrics are those tribo gives a free body:
//!   displacement, height change, tilt and penetration of the robot.
//! - What the URDF holds that the body file cannot (joint damping and friction, mimic joints —
//!   already not simulated when the URDF is run directly), visuals, and the choices made (the
//!   floating root, no controller) are notes.

use std::path::{Path, PathBuf};

use nalgebra::{Isometry3, Vector3};
use serde_yaml::{Mapping, Value};
use tribo_model::{Body, BodyFileOptions, Geometry, JointKind, MeshResource};
use tribo_yaml::{Diagnostic, Location};

use super::cnoid::slashed;
use super::files::Files;
use super::yaml::{map, metric_value, number, project_text, text};
use super::{Import, Written};
use crate::{default_share_dir, LoadOptions, Project};

/// How far above the floor the robot's lowest collision point starts, m.
const CLEARANCE: f64 = 0.001;
/// Links whose lowest point is this close to the robot's lowest stand on the floor, m.
const FOOT_BAND: f64 = 0.001;
const TIME_STEP: f64 = 0.001;
const DURATION: f64 = 2.0;

pub fn import(path: &Path, options: &LoadOptions) -> Result<Import, Diagnostic> {
    let body = tribo_model::load_urdf(path)?;
    let at = Location::file(path.display().to_string());
    let located = |message: String| Diagnostic::error(at.clone(), message);
    let urdf_dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let share = default_share_dir();
    let mut files = Files::new(&[&options.share_dir, &share]);
    let mut notes = Vec::new();

    let model_file = PathBuf::from(format!("{}.body", file_stem(&body.name)));
    let resources = mesh_resources(path, &body, urdf_dir, &model_file, &mut files, &mut notes)?;
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let comment = vec![
        format!(
            "The robot `{}` of {file_name}, written by `tribo import` in Choreonoid's body format.",
            body.name
        ),
        "Cylinders and capsules lie along their shape's y axis here (URDF's lie along z): each one's".to_string(),
        "rotation turns it onto the URDF's axis. Angles are in degrees.".to_string(),
    ];
    let written_body = tribo_model::write_body_with(&body, &BodyFileOptions { comment, resources }).map_err(located)?;
    notes.extend(written_body.notes);
    files.licence_for(path, Path::new(""));
    // Meshes tribo does not read are in the body file as in the URDF (the notes above); the
    // URDF's other notes (joint dynamics, mimic joints) are about what the body file cannot hold.
    for note in body
        .notes
        .iter()
        .filter(|n| !body.links.iter().any(|l| l.uncollided.contains(n)))
    {
        notes.push(format!("not in {}: {}", model_file.display(), note));
    }
    if std::fs::read_to_string(path).is_ok_and(|t| t.contains("<visual")) {
        notes.push(format!(
            "the URDF's <visual> elements are not imported (tribo collides <collision> geometry only): \
             {} has no visual shapes",
            model_file.display()
        ));
    }

    let default_table = share.join("default").join("materials.yaml");
    let table = files.place(&default_table, "materials").map_err(located)?;
    let placement = placement(&body);
    let floor_name = if body.name == "floor" { "ground" } else { "floor" };
    let link_materials = link_materials(&body, &placement.feet);
    let entry = |model: String| -> Value {
        let mut robot = map([
            ("name", text(body.name.clone())),
            ("model", text(model)),
            (
                "translation",
                Value::Sequence(placement.translation.iter().map(|&v| number(v)).collect()),
            ),
        ]);
        robot.insert(text("link_materials"), Value::Mapping(link_materials.clone()));
        Value::Mapping(robot)
    };
    let floor = Value::Mapping(map([
        ("name", text(floor_name)),
        ("model", text("${SHARE}/model/floor.body")),
        ("fixed", Value::Bool(true)),
        (
            "translation",
            Value::Sequence(vec![number(0.0), number(0.0), number(-0.1)]),
        ),
    ]));
    let top = |model: String, table: String, metrics: Vec<Value>| {
        let mut top = map([
            ("name", text(body.name.clone())),
            (
                "description",
                text(format!(
                    "The URDF robot `{}` ({file_name}, imported by `tribo import`) standing on tribo's floor.",
                    body.name
                )),
            ),
            ("materials", Value::Sequence(vec![text(table)])),
            (
                "simulation",
                Value::Mapping(map([("time_step", number(TIME_STEP)), ("duration", number(DURATION))])),
            ),
            ("bodies", Value::Sequence(vec![floor.clone(), entry(model)])),
        ]);
        if !metrics.is_empty() {
            top.insert(text("metrics"), Value::Sequence(metrics));
        }
        top
    };

    // The project as it will load, with the URDF standing in for the body file (the same model):
    // its default metrics, and a check that it loads.
    let check = project_text(&[], top(path_text(path), path_text(&default_table), Vec::new())).map_err(located)?;
    let check_path = urdf_dir.join("project.yaml");
    let node = tribo_yaml::parse_str(&check, &check_path.display().to_string())?;
    let project = Project::from_node(&node, &check_path, options)?;
    let metrics = crate::cnoid::metrics::defaults(&project.scene, None)
        .iter()
        .map(|m| metric_value(m, &project.scene))
        .collect::<Result<Vec<_>, _>>()
        .map_err(located)?;

    let robot_name = &body.name;
    let root = &body.root().name;
    notes.push(format!(
        "`{robot_name}` stands on the floor with its lowest collision point {CLEARANCE} m above it (root `{root}` \
         at z = {}); its root is free, as a URDF root floats: add `fixed: true` to its body entry to bolt it to the world",
        placement.translation.z
    ));
    if placement.feet.is_empty() {
        notes.push(format!(
            "URDF has no contact materials: every link of `{robot_name}` has `Default` (link_materials in project.yaml)"
        ));
    } else {
        notes.push(format!(
            "URDF has no contact materials: the links `{robot_name}` stands on ({}) get `Sole`, the others `Default` \
             (link_materials in project.yaml; the materials are those of {})",
            placement.feet.join(", "),
            slashed(&table)
        ));
    }
    notes.push(format!(
        "no controller drives `{robot_name}`: its joints are limp (add a joint_pattern controller with a .seq motion)"
    ));
    let comment = vec![
        format!("tribo project for the URDF robot {file_name}, written by `tribo import`."),
        format!("{} is the robot in Choreonoid's body format.", model_file.display()),
    ];
    let project_yaml = project_text(&comment, top(slashed(&model_file), slashed(&table), metrics)).map_err(located)?;
    let written = vec![
        Written {
            path: model_file,
            text: written_body.text,
        },
        Written {
            path: PathBuf::from("project.yaml"),
            text: project_yaml,
        },
    ];
    // The URDF's own notes are the `not in ROBOT.body` notes above.
    let urdf_notes: Vec<String> = body.notes.iter().map(ToString::to_string).collect();
    let warnings = project
        .warnings
        .into_iter()
        .filter(|w| !urdf_notes.contains(&w.to_string()))
        .collect();
    Ok(Import::new(written, files, warnings, notes))
}

/// A file name for the robot's model: its name with characters other than letters, digits, `_`,
/// `-` and `.` replaced by `_`.
fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.is_empty() || stem.starts_with('.') {
        format!("robot{stem}")
    } else {
        stem
    }
}

/// An absolute path as project text.
fn path_text(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The `Resource` each collision mesh of the URDF becomes, with its file placed: the URDF's
/// `<collision>` elements in order, matched to the model's shapes as the URDF loader makes them
/// (every primitive and every mesh it reads is one shape, a mesh it does not read is none).
fn mesh_resources(
    path: &Path,
    body: &Body,
    urdf_dir: &Path,
    model_file: &Path,
    files: &mut Files,
    notes: &mut Vec<String>,
) -> Result<Vec<MeshResource>, Diagnostic> {
    let at = Location::file(path.display().to_string());
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::error(at.clone(), format!("cannot read URDF file: {e}")))?;
    let robot = urdf_rs::read_from_string(&tribo_model::urdf_without_visuals(&text))
        .map_err(|e| Diagnostic::error(at.clone(), format!("not a valid URDF robot: {e}")))?;
    let mut out = Vec::new();
    for urdf_link in &robot.links {
        let Some(link) = body.link_index(&urdf_link.name) else {
            continue;
        };
        let mut shape = 0;
        for collision in &urdf_link.collision {
            let urdf_rs::Geometry::Mesh { filename, scale } = &collision.geometry else {
                shape += 1;
                continue;
            };
            let scale = scale.map(|s| Vector3::from(s.0));
            let address =
                filename.starts_with("package://") || (filename.contains("://") && !filename.starts_with("file://"));
            if address {
                notes.push(format!(
                    "link `{}`: the mesh `{filename}` is not a file tribo reads; {} names it as it is, and the link \
                     has no collision shape from it (as when the URDF is run)",
                    urdf_link.name,
                    model_file.display()
                ));
                out.push(MeshResource {
                    link,
                    shape: None,
                    uri: filename.clone(),
                    pose: tribo_model::urdf_origin_pose(&collision.origin),
                    scale,
                });
                continue;
            }
            let local = Path::new(filename.strip_prefix("file://").unwrap_or(filename));
            let source = if local.is_absolute() {
                local.to_path_buf()
            } else {
                urdf_dir.join(local)
            };
            let read = !matches!(
                tribo_model::load_mesh_file(&source),
                Err(tribo_model::MeshFileError::UnsupportedFormat { .. })
            );
            let uri = mesh_uri(local, &source);
            files
                .place_relative(&source, model_file, &uri)
                .map_err(|e| Diagnostic::error(at.clone(), e))?;
            if let Some(s) = scale.filter(|s| !(s.x == s.y && s.y == s.z && s.x > 0.0)) {
                notes.push(format!(
                    "link `{}`: the mesh `{uri}` is scaled by [{}, {}, {}]; loading {} warns that a scale that is not                      uniform leaves shapes unscaled, which holds for primitives only: the mesh is scaled",
                    urdf_link.name,
                    s.x,
                    s.y,
                    s.z,
                    model_file.display()
                ));
            }
            out.push(MeshResource {
                link,
                shape: read.then_some(shape),
                uri,
                pose: tribo_model::urdf_origin_pose(&collision.origin),
                scale,
            });
            if read {
                shape += 1;
            } else {
                notes.push(format!(
                    "link `{}`: tribo does not read the mesh `{filename}` (copied, and named in {}: the link has no \
                     collision shape from it, as when the URDF is run)",
                    urdf_link.name,
                    model_file.display()
                ));
            }
        }
    }
    Ok(out)
}

/// The `uri` a mesh gets beside the body file: its path relative to the URDF, or `meshes/NAME`
/// for a file named by an absolute path or above the URDF's directory.
fn mesh_uri(local: &Path, source: &Path) -> String {
    let inside = local.is_relative() && !local.components().any(|c| matches!(c, std::path::Component::ParentDir));
    if inside {
        slashed(local)
    } else {
        format!(
            "meshes/{}",
            source
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        )
    }
}

/// Where the robot starts and what it stands on.
struct Placement {
    /// The root's translation in the world, m.
    translation: Vector3<f64>,
    /// Links (not the root) whose lowest point is the robot's lowest, by name.
    feet: Vec<String>,
}

/// The robot at its model pose and initial joint positions, raised so that its lowest collision
/// point is [`CLEARANCE`] above z = 0 (1 m up if it has no collision shape).
fn placement(body: &Body) -> Placement {
    let poses = link_poses(body);
    let lowest: Vec<Option<f64>> = body
        .links
        .iter()
        .zip(&poses)
        .map(|(link, pose)| {
            link.shapes
                .iter()
                .map(|s| lowest_point(&s.geometry, &(pose * s.pose)))
                .min_by(f64::total_cmp)
        })
        .collect();
    let root = body.root().offset.translation.vector;
    let Some(bottom) = lowest.iter().flatten().copied().min_by(f64::total_cmp) else {
        return Placement {
            translation: root + Vector3::z(),
            feet: Vec::new(),
        };
    };
    let feet: Vec<String> = lowest
        .iter()
        .enumerate()
        .filter(|(_, low)| low.is_some_and(|l| l <= bottom + FOOT_BAND))
        .map(|(i, _)| i)
        .collect::<Vec<_>>()
        .into_iter()
        .filter(|&i| i != 0)
        .map(|i| body.links[i].name.clone())
        .collect();
    Placement {
        translation: root + Vector3::z() * (CLEARANCE - bottom),
        feet,
    }
}

/// Every link's pose in the world at the model pose and the initial joint positions.
fn link_poses(body: &Body) -> Vec<Isometry3<f64>> {
    let mut poses: Vec<Isometry3<f64>> = Vec::with_capacity(body.links.len());
    for link in &body.links {
        let joint = &link.joint;
        let q = joint.initial_position;
        let motion = match joint.kind {
            JointKind::Revolute => Isometry3::rotation(joint.axis * q),
            JointKind::Prismatic => Isometry3::translation(joint.axis.x * q, joint.axis.y * q, joint.axis.z * q),
            JointKind::Free | JointKind::Fixed => Isometry3::identity(),
        };
        let parent = link.parent.map_or_else(Isometry3::identity, |p| poses[p]);
        poses.push(parent * link.offset * motion);
    }
    poses
}

/// The lowest world z of a shape at `pose` (Cylinder, Capsule and Cone along their local y).
fn lowest_point(geometry: &Geometry, pose: &Isometry3<f64>) -> f64 {
    let z = pose.translation.vector.z;
    let r = pose.rotation.to_rotation_matrix();
    let axis_z = (r * Vector3::y()).z;
    let across = (1.0 - axis_z * axis_z).max(0.0).sqrt();
    match geometry {
        Geometry::Box { size } => z - (0..3).map(|i| r[(2, i)].abs() * size[i] / 2.0).sum::<f64>(),
        Geometry::Sphere { radius } => z - radius,
        Geometry::Cylinder { radius, height } => z - axis_z.abs() * height / 2.0 - radius * across,
        Geometry::Capsule { radius, height } => z - axis_z.abs() * height / 2.0 - radius,
        Geometry::Cone { radius, height } => {
            let apex = z + axis_z * height / 2.0;
            let base = z - axis_z * height / 2.0 - radius * across;
            apex.min(base)
        }
        Geometry::Mesh(mesh) => mesh
            .vertices
            .iter()
            .map(|v| (pose * nalgebra::Point3::from(*v)).z)
            .fold(f64::INFINITY, f64::min),
    }
}

/// `link_materials`: `"*": Default`, then each foot `Sole`.
fn link_materials(body: &Body, feet: &[String]) -> Mapping {
    let mut m = map([("*", text(tribo_model::DEFAULT_MATERIAL))]);
    for foot in feet {
        if body.link_index(foot).is_some() {
            m.insert(text(foot.clone()), text("Sole"));
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_reach_down_along_their_axes() {
        // At 1 m: along y (lying, as the shapes are defined), or turned +90° about x onto z
        // (standing), or −90° (standing on their +y end).
        let lying = Isometry3::translation(0.0, 0.0, 1.0);
        let standing = lying * Isometry3::rotation(Vector3::x() * std::f64::consts::FRAC_PI_2);
        let on_end = lying * Isometry3::rotation(-Vector3::x() * std::f64::consts::FRAC_PI_2);
        let (radius, height) = (0.1, 0.4);
        let cylinder = Geometry::Cylinder { radius, height };
        assert!((lowest_point(&cylinder, &lying) - 0.9).abs() < 1e-15);
        assert!((lowest_point(&cylinder, &standing) - 0.8).abs() < 1e-15);
        let capsule = Geometry::Capsule { radius, height };
        assert!((lowest_point(&capsule, &lying) - 0.9).abs() < 1e-15);
        assert!((lowest_point(&capsule, &standing) - 0.7).abs() < 1e-15);
        // A cone's base is at −y, its apex at +y.
        let cone = Geometry::Cone { radius, height };
        assert!((lowest_point(&cone, &lying) - 0.9).abs() < 1e-15);
        assert!((lowest_point(&cone, &standing) - 0.8).abs() < 1e-15);
        assert!((lowest_point(&cone, &on_end) - 0.8).abs() < 1e-15);
        let turned =
            Isometry3::translation(0.0, 0.0, 1.0) * Isometry3::rotation(Vector3::y() * std::f64::consts::FRAC_PI_2);
        let b = Geometry::Box {
            size: Vector3::new(1.0, 2.0, 0.5),
        };
        assert!((lowest_point(&b, &lying) - 0.75).abs() < 1e-15);
        assert!((lowest_point(&b, &turned) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn file_stems_are_plain() {
        assert_eq!(file_stem("SR1"), "SR1");
        assert_eq!(file_stem("my robot/v2"), "my_robot_v2");
        assert_eq!(file_stem(""), "robot");
    }
}
