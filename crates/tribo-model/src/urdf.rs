//! URDF robots as [`Body`] models, read with the `urdf-rs` parser.
//!
//! The mapping (URDF's link and joint elements, ROS wiki *urdf/XML*):
//! - every `<link>` is a link; the one that is no joint's child is the root, whose joint is
//!   `free` (a project's `fixed: true` holds it);
//! - a `<joint>` gives its child link's joint: `revolute` (range `[lower, upper]`), `continuous`
//!   (a revolute joint without range), `prismatic`, `fixed`; `floating`, `planar` and
//!   `spherical` joints are refused (tribo's joints have one degree of freedom, or six at the
//!   root). The joint's `<origin>` is the child's offset in the parent link frame (Choreonoid's
//!   link `translation`/`rotation`), its `<axis>` is in the child frame (normalised), its
//!   `<limit effort velocity>` the effort bound and the symmetric velocity range (0 or absent:
//!   unbounded). Movable joints get ids 0, 1, … in file order (what `joint_positions:` lists and
//!   `.seq` columns use);
//! - `<inertial>`: the mass, the centre of mass at the inertial origin, and the inertia rotated
//!   from the inertial frame into the link frame, `I_link = R I Rᵀ` with `R` the origin's
//!   roll-pitch-yaw rotation;
//! - `<collision>` elements are the link's shapes (visuals are not collided): boxes and spheres
//!   as they are; cylinders and capsules, whose URDF axis is local z, turned by +90° about x
//!   onto tribo's (Choreonoid's) local +y; a capsule's URDF `length` is its cylindrical part;
//!   meshes are read from STL or OBJ files named relative to the URDF file (`scale` applied) and
//!   collided as their convex hull; a mesh tribo cannot read (another format, a `package://`
//!   address) leaves a note on the link that every run repeats ([`Link::uncollided`]);
//! - roll-pitch-yaw angles are fixed-axis x-y-z rotations, `R = Rz(yaw) Ry(pitch) Rx(roll)`;
//! - URDF has no materials for contact: every link has the `Default` material; a project maps
//!   links to materials (`link_materials:` with name patterns).

use std::path::Path;
use std::sync::Arc;

use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
use tribo_yaml::{Diagnostic, Error, Location};

use crate::{Body, Geometry, Joint, JointKind, Link, Shape};

/// Load a URDF file.
pub fn load_urdf(path: &Path) -> Result<Body, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Diagnostic::error(
            Location::file(path.display().to_string()),
            format!("cannot read URDF file: {e}"),
        )
    })?;
    parse_urdf(&text, &path.display().to_string())
}

/// Parse URDF text; `file_name` names it in locations.
pub fn parse_urdf(text: &str, file_name: &str) -> Result<Body, Error> {
    let file: Arc<str> = Arc::from(file_name);
    let source = UrdfText { text, file: &file };
    let robot = urdf_rs::read_from_string(&without_visuals(text))
        .map_err(|e| Diagnostic::error(source.locate(&["<robot"]), format!("not a valid URDF robot: {e}")))?;
    let mut notes = Vec::new();
    let index_of = |name: &str| robot.links.iter().position(|l| l.name == name);
    let dir = Path::new(file_name).parent().unwrap_or(Path::new(""));
    let mut links: Vec<Link> = robot
        .links
        .iter()
        .map(|l| read_link(l, &source, dir, &mut notes))
        .collect::<Result<_, _>>()?;
    let mut next_id = 0;
    for joint in &robot.joints {
        let at = source.locate(&["<joint", &format!("name=\"{}\"", joint.name)]);
        let parent = index_of(&joint.parent.link).ok_or_else(|| unknown_link(&robot, &joint.parent.link, &at))?;
        let child = index_of(&joint.child.link).ok_or_else(|| unknown_link(&robot, &joint.child.link, &at))?;
        if links[child].parent.is_some() {
            return Err(Diagnostic::error(
                at,
                format!("link `{}` is the child of two joints", joint.child.link),
            ));
        }
        let link = &mut links[child];
        link.parent = Some(parent);
        link.offset = pose(&joint.origin);
        link.joint = read_joint(joint, &at)?;
        if link.joint.kind.dofs() == 1 {
            link.joint.id = Some(next_id);
            next_id += 1;
        }
        if let Some(d) = joint
            .dynamics
            .as_ref()
            .filter(|d| d.damping != 0.0 || d.friction != 0.0)
        {
            notes.push(Diagnostic::warning(
                at.clone(),
                format!(
                    "joint `{}`: <dynamics damping=\"{}\" friction=\"{}\"> is not simulated (tribo's joints have no viscous or Coulomb joint friction)",
                    joint.name, d.damping, d.friction
                ),
            ));
        }
        if joint.mimic.is_some() {
            notes.push(Diagnostic::warning(
                at.clone(),
                format!(
                    "joint `{}`: <mimic> is not simulated; the joint moves on its own",
                    joint.name
                ),
            ));
        }
    }
    for link in links.iter_mut().filter(|l| l.parent.is_none()) {
        link.joint = Joint::new(JointKind::Free, link.name.clone());
    }
    let name = if robot.name.is_empty() {
        Path::new(file_name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        robot.name.clone()
    };
    let mut body = Body::from_links(name, links)?;
    body.source = Arc::clone(&file);
    body.notes = notes;
    Ok(body)
}

/// The text with its `<visual>` elements cut out: tribo collides `<collision>` geometry only, and
/// the parser would otherwise refuse details of visuals no engine reads (a `<material>` without
/// a name, as Choreonoid's SR1.urdf has).
pub fn without_visuals(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("<visual") {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let open_end = after.find('>').map_or(after.len(), |e| e + 1);
        let end = if after[..open_end].ends_with("/>") {
            open_end
        } else {
            after.find("</visual>").map_or(after.len(), |e| e + "</visual>".len())
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The URDF text, for locating elements by their attributes.
struct UrdfText<'a> {
    text: &'a str,
    file: &'a Arc<str>,
}

impl UrdfText<'_> {
    /// The line and column of the first element whose opening tag contains every piece of
    /// `needles` (the first piece starts the tag, e.g. `<joint`); the file alone if none does.
    fn locate(&self, needles: &[&str]) -> Location {
        let Some((first, rest)) = needles.split_first() else {
            return Location::file(Arc::clone(self.file));
        };
        let mut from = 0;
        while let Some(found) = self.text[from..].find(first) {
            let start = from + found;
            let end = self.text[start..].find('>').map_or(self.text.len(), |e| start + e);
            let tag = &self.text[start..end];
            if rest.iter().all(|n| tag.contains(n)) {
                let before = &self.text[..start];
                let line = before.matches('\n').count() + 1;
                let col = before.rfind('\n').map_or(start, |nl| start - nl - 1) + 1;
                return Location::new(self.file, line, col);
            }
            from = start + first.len();
        }
        Location::file(Arc::clone(self.file))
    }
}

fn unknown_link(robot: &urdf_rs::Robot, name: &str, at: &Location) -> Diagnostic {
    let hint = tribo_yaml::did_you_mean(name, robot.links.iter().map(|l| l.name.as_str()));
    Diagnostic::error(
        at.clone(),
        format!("joint names link `{name}`, which the robot does not have{hint}"),
    )
}

fn read_link(link: &urdf_rs::Link, source: &UrdfText, dir: &Path, notes: &mut Vec<Diagnostic>) -> Result<Link, Error> {
    let at = source.locate(&["<link", &format!("name=\"{}\"", link.name)]);
    let mut out = Link::new(link.name.clone(), None, at.clone());
    let inertial = &link.inertial;
    let frame = pose(&inertial.origin);
    out.mass = inertial.mass.value;
    out.center_of_mass = frame.translation.vector;
    let i = &inertial.inertia;
    let in_inertial_frame = Matrix3::new(i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz);
    let r = frame.rotation.to_rotation_matrix();
    out.inertia = r.matrix() * in_inertial_frame * r.matrix().transpose();
    for collision in &link.collision {
        let shape_pose = pose(&collision.origin);
        let read = match &collision.geometry {
            urdf_rs::Geometry::Mesh { filename, scale } => mesh(filename, scale.map(|s| Vector3::from(s.0)), dir)
                .map_err(|e| {
                    Diagnostic::error(
                        at.clone(),
                        format!("link `{}`: <collision> mesh `{filename}`: {e}", link.name),
                    )
                })?,
            other => shape(other).ok_or_else(|| "not a collision shape".to_string()),
        };
        match read {
            Ok((geometry, axis_turn)) => out.shapes.push(Shape {
                geometry,
                pose: shape_pose * axis_turn,
                color: None,
            }),
            Err(why) => {
                let note = Diagnostic::warning(
                    at.clone(),
                    format!("link `{}`: {why}; the link has no collision shape from it", link.name),
                );
                notes.push(note.clone());
                out.uncollided.push(note);
            }
        }
    }
    if let Err(message) = out.check_numbers() {
        return Err(Diagnostic::error(at, message));
    }
    Ok(out)
}

/// A `<mesh>`: `Ok(Ok(shape))` when read, `Ok(Err(why))` when tribo cannot read it (the link
/// keeps a note), `Err` for a file that is missing or malformed.
#[allow(clippy::type_complexity)]
fn mesh(
    filename: &str,
    scale: Option<Vector3<f64>>,
    dir: &Path,
) -> Result<Result<(Geometry, Isometry3<f64>), String>, String> {
    if filename.starts_with("package://") || (filename.contains("://") && !filename.starts_with("file://")) {
        return Ok(Err(format!(
            "<collision> mesh `{filename}` is not a file path (tribo does not resolve ROS packages); name the \
             file relative to the URDF file"
        )));
    }
    let path = Path::new(filename.strip_prefix("file://").unwrap_or(filename));
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        dir.join(path)
    };
    let data = match crate::load_mesh_file(&path) {
        Ok(data) => data,
        Err(crate::MeshFileError::UnsupportedFormat { format }) => {
            return Ok(Err(format!(
                "<collision> mesh `{filename}`: {format} mesh files are not read by tribo (STL and OBJ are)"
            )))
        }
        Err(crate::MeshFileError::Invalid(message)) => return Err(message),
    };
    let scale = scale.unwrap_or_else(|| Vector3::repeat(1.0));
    let vertices = data.vertices.iter().map(|v| v.component_mul(&scale)).collect();
    let mut triangles = data.triangles;
    if scale.x * scale.y * scale.z < 0.0 {
        crate::Mesh::flip_winding(&mut triangles);
    }
    let mesh = crate::Mesh::new(
        vertices,
        triangles,
        crate::MeshCollision::ConvexHull,
        format!("`{filename}`"),
    )?;
    Ok(Ok((Geometry::Mesh(Arc::new(mesh)), Isometry3::identity())))
}

/// A URDF geometry as tribo's, with the turn from tribo's shape frame into URDF's (identity,
/// or +90° about x for axial shapes: URDF's axis z ← tribo's axis y); `None` for meshes.
fn shape(geometry: &urdf_rs::Geometry) -> Option<(Geometry, Isometry3<f64>)> {
    let axial = Isometry3::rotation(Vector3::x() * std::f64::consts::FRAC_PI_2);
    match geometry {
        urdf_rs::Geometry::Box { size } => Some((
            Geometry::Box {
                size: Vector3::from(size.0),
            },
            Isometry3::identity(),
        )),
        urdf_rs::Geometry::Sphere { radius } => Some((Geometry::Sphere { radius: *radius }, Isometry3::identity())),
        urdf_rs::Geometry::Cylinder { radius, length } => Some((
            Geometry::Cylinder {
                radius: *radius,
                height: *length,
            },
            axial,
        )),
        urdf_rs::Geometry::Capsule { radius, length } => Some((
            Geometry::Capsule {
                radius: *radius,
                height: *length,
            },
            axial,
        )),
        urdf_rs::Geometry::Mesh { .. } => None,
    }
}

fn read_joint(joint: &urdf_rs::Joint, at: &Location) -> Result<Joint, Error> {
    use urdf_rs::JointType;
    let kind = match joint.joint_type {
        JointType::Revolute | JointType::Continuous => JointKind::Revolute,
        JointType::Prismatic => JointKind::Prismatic,
        JointType::Fixed => JointKind::Fixed,
        JointType::Floating | JointType::Planar | JointType::Spherical => {
            return Err(Diagnostic::error(
                at.clone(),
                format!(
                    "joint `{}` is {:?}: tribo's joints are revolute, continuous, prismatic or fixed (only the root link floats)",
                    joint.name, joint.joint_type
                ),
            ))
        }
    };
    let mut out = Joint::new(kind, joint.name.clone());
    if kind.dofs() == 0 {
        return Ok(out);
    }
    let axis = Vector3::from(joint.axis.xyz.0);
    let norm = axis.norm();
    if !(norm.is_finite() && norm > 0.0) {
        return Err(Diagnostic::error(
            at.clone(),
            format!(
                "joint `{}` has a zero or non-finite axis {:?}",
                joint.name, joint.axis.xyz.0
            ),
        ));
    }
    out.axis = axis / norm;
    let limit = &joint.limit;
    if joint.joint_type != JointType::Continuous {
        if limit.lower > limit.upper {
            return Err(Diagnostic::error(
                at.clone(),
                format!(
                    "joint `{}` has lower limit {} above its upper limit {}",
                    joint.name, limit.lower, limit.upper
                ),
            ));
        }
        out.range = [limit.lower, limit.upper];
    }
    if limit.effort > 0.0 {
        out.max_effort = limit.effort;
    }
    if limit.velocity > 0.0 {
        out.velocity_range = [-limit.velocity, limit.velocity];
    }
    Ok(out)
}

/// A URDF `<origin xyz rpy>`: the rotation is `Rz(yaw) Ry(pitch) Rx(roll)` (fixed axes x, y, z).
pub fn pose(origin: &urdf_rs::Pose) -> Isometry3<f64> {
    let [x, y, z] = origin.xyz.0;
    let [roll, pitch, yaw] = origin.rpy.0;
    Isometry3::from_parts(
        Translation3::new(x, y, z),
        UnitQuaternion::from_euler_angles(roll, pitch, yaw),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_LINKS: &str = r#"<robot name="arm">
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial>
      <origin xyz="0 0 0.25" rpy="0 0 1.5707963267948966"/>
      <mass value="1"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.005"/>
    </inertial>
    <collision><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.05" length="0.5"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.05" rpy="0 0 0"/>
    <axis xyz="0 2 0"/>
    <limit lower="-1" upper="2" effort="30" velocity="3"/>
  </joint>
</robot>"#;

    #[test]
    fn links_joints_inertia_and_shapes_map_to_a_body() {
        let body = parse_urdf(TWO_LINKS, "arm.urdf").expect("valid URDF");
        assert_eq!(body.name, "arm");
        assert_eq!(body.links.len(), 2);
        let (base, upper) = (&body.links[0], &body.links[1]);
        assert_eq!(base.joint.kind, JointKind::Free);
        assert_eq!(upper.joint.kind, JointKind::Revolute);
        assert_eq!(upper.joint.axis, Vector3::y(), "normalised");
        assert_eq!(upper.joint.range, [-1.0, 2.0]);
        assert_eq!(upper.joint.velocity_range, [-3.0, 3.0]);
        assert_eq!(upper.joint.max_effort, 30.0);
        assert_eq!(upper.joint.id, Some(0));
        assert_eq!(body.joint_link(0), Some(1));
        assert_eq!(upper.offset.translation.vector, Vector3::new(0.0, 0.0, 0.05));
        // The inertial frame is turned 90° about z: its x and y moments swap in the link frame.
        assert!((upper.inertia - Matrix3::from_diagonal(&Vector3::new(0.01, 0.02, 0.005))).amax() < 1e-15);
        assert_eq!(upper.center_of_mass, Vector3::new(0.0, 0.0, 0.25));
        // The cylinder's URDF axis (z) is tribo's shape axis y turned onto z.
        let shape = &upper.shapes[0];
        let axis_in_link = shape.pose.rotation * Vector3::y();
        assert!((axis_in_link - Vector3::z()).norm() < 1e-15);
        assert!(matches!(shape.geometry, Geometry::Cylinder { radius, height } if radius == 0.05 && height == 0.5));
    }

    #[test]
    fn errors_name_the_line_and_column_of_the_element() {
        let text = TWO_LINKS.replace("<child link=\"upper\"/>", "<child link=\"uper\"/>");
        let error = parse_urdf(&text, "arm.urdf").expect_err("no link uper");
        assert_eq!((error.location.line, error.location.col), (14, 3), "{error}");
        assert!(error.message.contains("did you mean `upper`"), "{error}");

        let text = TWO_LINKS.replace("type=\"revolute\"", "type=\"planar\"");
        let error = parse_urdf(&text, "arm.urdf").expect_err("planar");
        assert_eq!(error.location.line, 14, "{error}");
        assert!(
            error.message.contains("revolute, continuous, prismatic or fixed"),
            "{error}"
        );

        let error = parse_urdf("<robot name=\"x\"><link></robot>", "bad.urdf").expect_err("not XML");
        assert!(error.to_string().starts_with("bad.urdf"), "{error}");
    }

    #[test]
    fn a_mesh_collision_is_a_note_not_a_silent_loss() {
        let text = TWO_LINKS.replace(
            "<geometry><box size=\"0.2 0.2 0.1\"/></geometry>",
            "<geometry><mesh filename=\"package://arm/base.dae\"/></geometry>",
        );
        let body = parse_urdf(&text, "arm.urdf").expect("loads");
        assert!(body.links[0].shapes.is_empty());
        assert_eq!(body.links[0].uncollided.len(), 1);
        assert!(body
            .notes
            .iter()
            .any(|n| n.message.contains("no collision shape from it") && n.location.line == 2));
        let text = TWO_LINKS.replace(
            "<geometry><box size=\"0.2 0.2 0.1\"/></geometry>",
            "<geometry><mesh filename=\"base.wrl\"/></geometry>",
        );
        let body = parse_urdf(&text, "arm.urdf").expect("loads");
        assert!(
            body.links[0].uncollided[0].message.contains("VRML (.wrl)"),
            "{:?}",
            body.notes
        );
        let text = TWO_LINKS.replace(
            "<geometry><box size=\"0.2 0.2 0.1\"/></geometry>",
            "<geometry><mesh filename=\"missing.stl\"/></geometry>",
        );
        let error = parse_urdf(&text, "arm.urdf").expect_err("missing");
        assert!(
            error
                .to_string()
                .contains("<collision> mesh `missing.stl`: cannot read mesh file"),
            "{error}"
        );
    }
}
