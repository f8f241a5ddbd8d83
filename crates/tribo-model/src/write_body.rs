//! A [`Body`] written as a Choreonoid `.body` file (`format_version: 2.0`, angles in degrees) with
//! serde_yaml, so that [`crate::load_body`] reads back the same model: every link's name, parent,
//! offset, joint (type, name, id, axis, range, velocity range, effort, armature, initial position),
//! mass, centre of mass, inertia, material, collision shapes (primitives, meshes inline or as
//! `Resource` files) and pad.
//!
//! **Exactness.** Lengths, masses and inertias are written as the shortest decimal that parses
//! back to the same `f64`. Three values go through arithmetic when read, and are chosen so that
//! the arithmetic gives the model's value back:
//! - angles (joint ranges, velocity limits and initial positions of revolute joints, rotations)
//!   are read in degrees and multiplied by π/180: the written degree value is the one, among the
//!   few `f64`s next to `value.to_degrees()`, whose conversion is exactly the model's radians
//!   (the shortest such decimal, so `90` stays `90`); a value that no degree value reaches (about
//!   one in ten radian values) is written as the nearest, 1 ulp away;
//! - a rotation is read as an axis-angle, turned into a matrix and then into a quaternion: the
//!   angle is chosen as above so that the quaternion read back is the model's (or its negative,
//!   the same rotation) where one exists. A rotation no single axis-angle gives exactly — one
//!   composed of several (SR1's camera shapes: a camera's two turns, then its shape's), a URDF
//!   roll-pitch-yaw — is written as the nearest over the angles and axes a rounding away: its
//!   quaternion within 1.2e-16 (an ulp of a coordinate near 1) of the model's;
//! - the centre of mass goes through the loader's mass-weighted sum (`c·m / m`): the written value
//!   is the one next to `c` that the sum gives back as `c`, where there is one (for some
//!   coordinates of some masses there is none, e.g. −0.1 m at 6 kg: then `c`, read back 1 ulp
//!   away).
//!
//! Mesh vertices written inline (`TriangleMesh`) or read from a `Resource` file are placed
//! through the shape's transform when loaded, so a mesh whose shape has an offset comes back
//! within rounding (1e-16 m for a metre-sized mesh) of its vertices.
//!
//! What the format cannot hold is listed in [`BodyFile::notes`], never dropped silently: geometry
//! the model kept no collision shape for ([`Link::uncollided`]) unless a [`MeshResource`] stands
//! for it, a second pad on a link, inertia on a link of zero mass (the loader zeroes it).

use std::collections::BTreeMap;

use nalgebra::{Isometry3, Rotation3, Unit, UnitQuaternion, Vector3};
use serde_yaml::{Mapping, Value};

use crate::{Body, Geometry, JointKind, Link, Mesh, MeshCollision, PadLayout, PadShape, Shape, DEFAULT_MATERIAL};

/// A mesh written as a `Resource` naming a file rather than inline.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshResource {
    /// Index of the link in [`Body::links`].
    pub link: usize,
    /// The shape of that link the file stands for (its pose and collision mode are the shape's);
    /// `None` for geometry the model has no shape for (a format tribo does not read): the
    /// `Resource` is written at `pose` so that loading the file gives the link the same
    /// [`Link::uncollided`] note.
    pub shape: Option<usize>,
    /// The `uri` as written, relative to the body file.
    pub uri: String,
    /// The resource's pose in the link frame, for `shape: None` (ignored otherwise).
    pub pose: Isometry3<f64>,
    /// Scale applied to the file's vertices (`scale:`), if any.
    pub scale: Option<Vector3<f64>>,
}

/// Options of [`write_body_with`].
#[derive(Debug, Clone, Default)]
pub struct BodyFileOptions {
    /// Comment lines put at the top of the file (without `#`).
    pub comment: Vec<String>,
    /// Meshes written as files, by link and shape.
    pub resources: Vec<MeshResource>,
}

/// A written body file.
#[derive(Debug, Clone)]
pub struct BodyFile {
    /// The YAML text.
    pub text: String,
    /// What the file does not hold that the model had, one sentence each.
    pub notes: Vec<String>,
}

/// The body as `.body` text, meshes inline ([`write_body_with`]).
pub fn write_body(body: &Body) -> Result<BodyFile, String> {
    write_body_with(body, &BodyFileOptions::default())
}

/// The body as `.body` text (module docs); meshes named in `options.resources` as `Resource` files.
pub fn write_body_with(body: &Body, options: &BodyFileOptions) -> Result<BodyFile, String> {
    let mut notes = Vec::new();
    let mut resources: BTreeMap<(usize, usize), &MeshResource> = BTreeMap::new();
    let mut unread: BTreeMap<usize, Vec<&MeshResource>> = BTreeMap::new();
    for r in &options.resources {
        if r.link >= body.links.len() {
            return Err(format!(
                "a mesh resource names link {}, but the body has {} links",
                r.link,
                body.links.len()
            ));
        }
        match r.shape {
            Some(shape) => {
                let is_mesh = body.links[r.link]
                    .shapes
                    .get(shape)
                    .is_some_and(|s| matches!(s.geometry, Geometry::Mesh(_)));
                if !is_mesh {
                    return Err(format!(
                        "a mesh resource (`{}`) names shape {shape} of link `{}`, which is not a mesh",
                        r.uri, body.links[r.link].name
                    ));
                }
                resources.insert((r.link, shape), r);
            }
            None => unread.entry(r.link).or_default().push(r),
        }
    }
    let mut links = Vec::with_capacity(body.links.len());
    for (index, link) in body.links.iter().enumerate() {
        let parent = link.parent.map(|p| body.links[p].name.as_str());
        let extra = unread.get(&index).map(Vec::as_slice).unwrap_or_default();
        links.push(link_value(link, parent, index, &resources, extra, &mut notes));
    }
    let mut top = Mapping::new();
    top.insert("format".into(), "ChoreonoidBody".into());
    top.insert("format_version".into(), number(2.0));
    top.insert("angle_unit".into(), "degree".into());
    top.insert("name".into(), body.name.clone().into());
    top.insert("root_link".into(), body.root().name.clone().into());
    top.insert("links".into(), Value::Sequence(links));
    if !body.extra_joints.is_empty() {
        let joints = body.extra_joints.iter().map(extra_joint_value).collect();
        top.insert("extra_joints".into(), Value::Sequence(joints));
    }
    let yaml = serde_yaml::to_string(&Value::Mapping(top)).map_err(|e| format!("cannot write YAML: {e}"))?;
    let mut text: String = options
        .comment
        .iter()
        .map(|line| format!("# {line}\n").replace("# \n", "#\n"))
        .collect();
    text.push_str(&tribo_yaml::flow_scalar_lists(&yaml));
    Ok(BodyFile { text, notes })
}

fn link_value(
    link: &Link,
    parent: Option<&str>,
    index: usize,
    resources: &BTreeMap<(usize, usize), &MeshResource>,
    unread: &[&MeshResource],
    notes: &mut Vec<String>,
) -> Value {
    let mut m = Mapping::new();
    m.insert("name".into(), link.name.clone().into());
    if let Some(parent) = parent {
        m.insert("parent".into(), parent.into());
    }
    put_pose(&mut m, &link.offset);
    let joint = &link.joint;
    if joint.name != link.name {
        m.insert("joint_name".into(), joint.name.clone().into());
    }
    m.insert("joint_type".into(), joint.kind.name().into());
    if joint.kind.dofs() == 1 || joint.axis != Vector3::z() {
        m.insert("joint_axis".into(), axis_value(&joint.axis));
    }
    if let Some(id) = joint.id {
        m.insert("joint_id".into(), Value::Number((id as u64).into()));
    }
    // Revolute positions and speeds are degrees in the file; everything else is as it is.
    let revolute = joint.kind == JointKind::Revolute;
    let position = |v: f64| if revolute { degrees(v) } else { number(v) };
    if joint.range != [f64::NEG_INFINITY, f64::INFINITY] {
        m.insert(
            "joint_range".into(),
            Value::Sequence(joint.range.iter().map(|&v| limit(v, position)).collect()),
        );
    }
    let [low, high] = joint.velocity_range;
    if [low, high] != [f64::NEG_INFINITY, f64::INFINITY] {
        if low == -high && high >= 0.0 {
            m.insert("max_joint_velocity".into(), limit(high, position));
        } else {
            let pair = [low, high].iter().map(|&v| limit(v, position)).collect();
            m.insert("joint_velocity_range".into(), Value::Sequence(pair));
        }
    }
    if joint.max_effort.is_finite() {
        m.insert("max_joint_effort".into(), number(joint.max_effort));
    }
    if joint.armature != 0.0 {
        m.insert("joint_axis_inertia".into(), number(joint.armature));
    }
    if joint.initial_position != 0.0 {
        m.insert("joint_displacement".into(), position(joint.initial_position));
    }
    put_mass(&mut m, link, notes);
    if link.material != DEFAULT_MATERIAL || link.material_location.is_some() {
        m.insert("material".into(), link.material.clone().into());
    }
    if let Some(pad) = link.pads.first() {
        m.insert("pad".into(), pad_value(pad));
        if link.pads.len() > 1 {
            notes.push(format!(
                "link `{}` has {} pads; a body file holds one per link, so only the first is written \
                 (lay the others over the link with a project's `pads:`)",
                link.name,
                link.pads.len()
            ));
        }
    }
    let mut elements: Vec<Value> = link
        .shapes
        .iter()
        .enumerate()
        .map(|(s, shape)| shape_value(shape, resources.get(&(index, s)).copied()))
        .collect();
    elements.extend(unread.iter().map(|r| resource_shape(&r.pose, r, None)));
    for note in link.uncollided.iter().skip(unread.len()) {
        notes.push(format!(
            "link `{}`: geometry without a collision shape is not written ({})",
            link.name, note.message
        ));
    }
    if !elements.is_empty() {
        m.insert("elements".into(), Value::Sequence(elements));
    }
    Value::Mapping(m)
}

/// `translation` and `rotation` of a pose, each left out when zero or the identity.
fn put_pose(m: &mut Mapping, pose: &Isometry3<f64>) {
    let t = pose.translation.vector;
    if t != Vector3::zeros() {
        m.insert("translation".into(), numbers(t.as_slice()));
    }
    if let Some(rotation) = rotation_value(&pose.rotation) {
        m.insert("rotation".into(), rotation);
    }
}

/// `mass`, `center_of_mass` and `inertia` (9 values, row by row) of a link.
fn put_mass(m: &mut Mapping, link: &Link, notes: &mut Vec<String>) {
    m.insert("mass".into(), number(link.mass));
    if link.mass > 0.0 {
        let com = link.center_of_mass.map(|c| centre_component(c, link.mass));
        if com != Vector3::zeros() {
            m.insert("center_of_mass".into(), numbers(com.as_slice()));
        }
        m.insert("inertia".into(), numbers(link.inertia.transpose().as_slice()));
        return;
    }
    // The loader gives a link of no mass no centre of mass and no inertia (as Choreonoid).
    if link.center_of_mass != Vector3::zeros() || link.inertia.iter().any(|&v| v != 0.0) {
        notes.push(format!(
            "link `{}` has no mass but a centre of mass or inertia, which a body file cannot hold \
             (a link of zero mass loads with none)",
            link.name
        ));
    }
    m.insert("inertia".into(), numbers(&[0.0; 9]));
}

/// The value to write for one coordinate `c` of the centre of mass of a link of mass `m`: the
/// loader computes `(0 + c'·m) / m`, so the written `c'` is `c` or a neighbour that gives `c`.
fn centre_component(c: f64, mass: f64) -> f64 {
    let read = |w: f64| (0.0 + w * mass) / mass;
    neighbours(c, 4).into_iter().find(|&w| read(w) == c).unwrap_or(c)
}

/// `x` and the `f64`s up to `n` steps above and below it, nearest first.
fn neighbours(x: f64, n: usize) -> Vec<f64> {
    let mut out = vec![x];
    let (mut up, mut down) = (x, x);
    for _ in 0..n {
        up = next_up(up);
        down = next_down(down);
        out.push(up);
        out.push(down);
    }
    out
}

fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    f64::from_bits(if x > 0.0 { bits + 1 } else { bits - 1 })
}

fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// A number as the shortest decimal that reads back the same `f64`.
fn number(v: f64) -> Value {
    Value::Number(v.into())
}

fn numbers(values: &[f64]) -> Value {
    Value::Sequence(values.iter().map(|&v| number(v)).collect())
}

/// One bound of a range: `unlimited` when infinite.
fn limit(v: f64, write: impl Fn(f64) -> Value) -> Value {
    if v.is_infinite() {
        "unlimited".into()
    } else {
        write(v)
    }
}

/// The degree value whose conversion to radians (`to_radians`, as the loader converts) is `rad`.
fn degrees(rad: f64) -> Value {
    number(degrees_for(rad))
}

fn degrees_for(rad: f64) -> f64 {
    let candidates = neighbours(rad.to_degrees(), 8);
    shortest_exact(&candidates, |d| d.to_radians() == rad).unwrap_or_else(|| {
        let error = |d: &f64| (d.to_radians() - rad).abs();
        candidates
            .iter()
            .copied()
            .min_by(|a, b| error(a).total_cmp(&error(b)))
            .unwrap_or(rad.to_degrees())
    })
}

/// Among `candidates`, the one with the shortest decimal form that passes `exact`.
fn shortest_exact(candidates: &[f64], exact: impl Fn(f64) -> bool) -> Option<f64> {
    candidates
        .iter()
        .copied()
        .filter(|&d| exact(d))
        .min_by_key(|d| format!("{d:?}").len())
}

/// A joint axis: `X`, `-Y`, … for a unit coordinate axis, else `[x, y, z]`.
fn axis_value(axis: &Vector3<f64>) -> Value {
    for (i, letter) in ["X", "Y", "Z"].iter().enumerate() {
        let unit = Vector3::ith(i, 1.0);
        if *axis == unit {
            return (*letter).into();
        }
        if *axis == -unit {
            return format!("-{letter}").into();
        }
    }
    numbers(axis.as_slice())
}

/// The rotation the loader builds from `[ax, ay, az, degrees]`.
fn read_rotation(axis: &Vector3<f64>, deg: f64) -> UnitQuaternion<f64> {
    let unit = Unit::new_unchecked(axis / axis.norm());
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_axis_angle(&unit, deg.to_radians()))
}

/// `[ax, ay, az, degrees]` for a rotation, `None` for the identity (module docs).
fn rotation_value(q: &UnitQuaternion<f64>) -> Option<Value> {
    let ([x, y, z], d) = axis_angle_for(q)?;
    Some(numbers(&[x, y, z, d]))
}

/// The axis and the angle in degrees to write for `q` (module docs); `None` for the identity.
fn axis_angle_for(q: &UnitQuaternion<f64>) -> Option<([f64; 3], f64)> {
    let identity = UnitQuaternion::identity();
    if q.coords == identity.coords || q.coords == -identity.coords {
        return None;
    }
    let (axis, angle) = q.axis_angle()?;
    // A unit coordinate axis is written exactly.
    let snapped: Vector3<f64> = axis.map(|c| {
        if (c.abs() - 1.0).abs() < 1e-12 {
            c.signum()
        } else if c.abs() < 1e-12 {
            0.0
        } else {
            c
        }
    });
    let axis = if (snapped.norm() - 1.0).abs() < 1e-12 {
        snapped
    } else {
        axis.into_inner()
    };
    let same = |r: &UnitQuaternion<f64>| r.coords == q.coords || r.coords == -q.coords;
    let candidates = neighbours(angle.to_degrees(), 16);
    if let Some(deg) = shortest_exact(&candidates, |d| same(&read_rotation(&axis, d))) {
        return Some(([axis.x, axis.y, axis.z], deg));
    }
    // Else the nearest rotation over the axes a rounding away.
    let error = |a: &Vector3<f64>, d: f64| {
        let r = read_rotation(a, d);
        (r.coords - q.coords).amax().min((r.coords + q.coords).amax())
    };
    let mut best = (f64::INFINITY, axis, angle.to_degrees());
    for x in neighbours(axis.x, 1) {
        for y in neighbours(axis.y, 1) {
            for z in neighbours(axis.z, 1) {
                let a = Vector3::new(x, y, z);
                for &d in &candidates {
                    let e = error(&a, d);
                    if e < best.0 {
                        best = (e, a, d);
                    }
                }
            }
        }
    }
    let (_, a, deg) = best;
    Some(([a.x, a.y, a.z], deg))
}

/// An `extra_joints` entry (Choreonoid's `link1_name`, `link2_name`, `joint_type`, `axis`, and
/// each link's joint frame as `translation_in_linkN` / `rotation_in_linkN`, the keys the loader
/// reads back).
fn extra_joint_value(joint: &crate::ExtraJoint) -> Value {
    let mut m = Mapping::new();
    m.insert("link1_name".into(), joint.links[0].clone().into());
    m.insert("link2_name".into(), joint.links[1].clone().into());
    m.insert("joint_type".into(), joint.kind.name().into());
    m.insert("axis".into(), numbers(joint.axis.as_slice()));
    for (i, frame) in joint.frames.iter().enumerate() {
        let t = frame.translation.vector;
        if t != Vector3::zeros() {
            m.insert(format!("translation_in_link{}", i + 1).into(), numbers(t.as_slice()));
        }
        if let Some(rotation) = rotation_value(&frame.rotation) {
            m.insert(format!("rotation_in_link{}", i + 1).into(), rotation);
        }
    }
    Value::Mapping(m)
}

fn pad_value(pad: &crate::PadSpec) -> Value {
    let mut m = Mapping::new();
    match pad.shape {
        PadShape::Flat {
            resolution,
            spacing,
            layout,
        } => {
            m.insert("shape".into(), "flat".into());
            let [x, y] = resolution;
            m.insert(
                "resolution".into(),
                Value::Sequence(vec![Value::Number((x as u64).into()), Value::Number((y as u64).into())]),
            );
            m.insert("spacing".into(), number(spacing));
            // The default layout is left unwritten: a body written back reads as it was.
            if layout != PadLayout::Cells {
                m.insert("layout".into(), layout.name().into());
            }
        }
        PadShape::Dome {
            radius,
            base_radius,
            resolution,
        } => {
            m.insert("shape".into(), "dome".into());
            m.insert("radius".into(), number(radius));
            m.insert("base_radius".into(), number(base_radius));
            m.insert("resolution".into(), Value::Number((resolution as u64).into()));
        }
    }
    put_pose(&mut m, &pad.pose);
    Value::Mapping(m)
}

/// One collision shape as a `Shape` element.
fn shape_value(shape: &Shape, resource: Option<&MeshResource>) -> Value {
    if let (Some(r), Geometry::Mesh(mesh)) = (resource, &shape.geometry) {
        return resource_shape(&shape.pose, r, Some(mesh));
    }
    let mut m = Mapping::new();
    m.insert("type".into(), "Shape".into());
    put_pose(&mut m, &shape.pose);
    let mut g = Mapping::new();
    g.insert("type".into(), shape.geometry.type_name().into());
    match &shape.geometry {
        Geometry::Box { size } => {
            g.insert("size".into(), numbers(size.as_slice()));
        }
        Geometry::Sphere { radius } => {
            g.insert("radius".into(), number(*radius));
        }
        Geometry::Cylinder { radius, height }
        | Geometry::Capsule { radius, height }
        | Geometry::Cone { radius, height } => {
            g.insert("radius".into(), number(*radius));
            g.insert("height".into(), number(*height));
        }
        Geometry::Mesh(mesh) => {
            g.insert("type".into(), "TriangleMesh".into());
            put_collision(&mut g, mesh.collision);
            let vertices: Vec<f64> = mesh.vertices.iter().flat_map(|v| [v.x, v.y, v.z]).collect();
            g.insert("vertices".into(), numbers(&vertices));
            let faces = mesh
                .triangles
                .iter()
                .flatten()
                .map(|&i| Value::Number(u64::from(i).into()))
                .collect();
            g.insert("faces".into(), Value::Sequence(faces));
        }
    }
    m.insert("geometry".into(), Value::Mapping(g));
    if let Some(color) = shape.color {
        m.insert("appearance".into(), appearance(&color));
    }
    Value::Mapping(m)
}

/// A `Shape` whose geometry is a `Resource` file at `pose`, scaled by the resource's scale.
fn resource_shape(pose: &Isometry3<f64>, r: &MeshResource, mesh: Option<&Mesh>) -> Value {
    let mut m = Mapping::new();
    m.insert("type".into(), "Shape".into());
    put_pose(&mut m, pose);
    if let Some(scale) = r.scale.filter(|s| *s != Vector3::repeat(1.0)) {
        m.insert("scale".into(), numbers(scale.as_slice()));
    }
    let mut g = Mapping::new();
    g.insert("type".into(), "Resource".into());
    g.insert("uri".into(), r.uri.clone().into());
    if let Some(mesh) = mesh {
        put_collision(&mut g, mesh.collision);
    }
    m.insert("geometry".into(), Value::Mapping(g));
    Value::Mapping(m)
}

fn put_collision(g: &mut Mapping, collision: MeshCollision) {
    if collision != MeshCollision::ConvexHull {
        g.insert("collision".into(), collision.name().into());
    }
}

fn appearance(color: &[f64; 3]) -> Value {
    let mut material = Mapping::new();
    material.insert("diffuse".into(), numbers(color));
    let mut a = Mapping::new();
    a.insert("material".into(), Value::Mapping(material));
    Value::Mapping(a)
}
