//! `Shape` nodes and their `geometry` (docs/design/choreonoid-formats.md §2.7; StdSceneReader `readShape`,
//! `readGeometry`). Primitives keep Choreonoid's convention: Cylinder, Capsule and Cone along
//! local +Y. Meshes ([`super::mesh`], [`super::mesh_generated`]) go through the whole Transform
//! stack, non-uniform scales included, into their shape's frame.

use std::path::Path;
use std::sync::Arc;

use nalgebra::Vector3;
use tribo_yaml::{did_you_mean, Diagnostic, Error, Fields, Location, Node};

use super::keys::typo_warnings;
use super::mesh::{read_collision, read_inline, read_resource, MeshRead, RESOURCE_KEYS};
use super::mesh_generated::{read_elevation_grid, read_extrusion};
use super::pose::{read_local_transform, Frame};
use super::units::AngleUnit;
use crate::{Geometry, Mesh, MeshCollision, Shape};

/// What a Shape contributes.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeContent {
    /// A shape tribo's engines collide (a primitive or a mesh), placed in the link frame.
    Collided(Shape),
    /// Geometry the engines cannot get (a mesh format without a reader, …): why, and where.
    Unsupported { message: String, location: Location },
}

/// What a body file's shapes need besides the node: angles and where relative files are.
#[derive(Debug, Clone, Copy)]
pub struct ShapeContext<'a> {
    pub unit: AngleUnit,
    /// The body file's directory (`Resource` uris are relative to it).
    pub dir: &'a Path,
}

const SHAPE_KEYS: [&str; 10] = [
    "type",
    "name",
    "geometry",
    "appearance",
    "translation",
    "rotation",
    "scale",
    "is_optional",
    "isOptional",
    "is_meta_scene",
];

const PRIMITIVES: [&str; 5] = ["Box", "Sphere", "Cylinder", "Capsule", "Cone"];
const MESHES: [&str; 5] = [
    "Extrusion",
    "ElevationGrid",
    "TriangleMesh",
    "IndexedFaceSet",
    "Resource",
];
const DIVISION_KEYS: [&str; 3] = ["division_number", "divisionNumber", "extra_division_number"];

/// A `Shape` node inside `frame`. `None` when it has no `geometry` (a note says so).
pub fn read_shape(
    node: &Node,
    frame: &Frame,
    cx: ShapeContext,
    link_name: &str,
    notes: &mut Vec<Diagnostic>,
) -> Result<Option<ShapeContent>, Error> {
    let unit = cx.unit;
    let f = Fields::new(node, "a Shape")?;
    f.skip(&["type", "name", "is_optional", "isOptional", "is_meta_scene"]);
    let context = format!("a Shape of link `{link_name}`");
    let local = read_local_transform(&f, unit, &context, notes)?;
    let color = f.get_value(&["appearance"]).map(read_color).transpose()?.flatten();
    let Some(geometry_node) = f.get_value(&["geometry"]) else {
        notes.push(node.warning(format!("{context} has no `geometry`; it has nothing to collide")));
        typo_warnings(&f, &context, &SHAPE_KEYS, notes);
        return Ok(None);
    };
    typo_warnings(&f, &context, &SHAPE_KEYS, notes);
    let frame = frame.then(&local);
    Ok(Some(match read_geometry(geometry_node, &frame, cx, notes)? {
        GeometryRead::Collided(geometry) => ShapeContent::Collided(Shape {
            geometry,
            pose: frame.shape_pose,
            color,
        }),
        GeometryRead::Unsupported(message) => ShapeContent::Unsupported {
            message,
            location: geometry_node.location.clone(),
        },
    }))
}

pub enum GeometryRead {
    Collided(Geometry),
    Unsupported(String),
}

/// A mesh read in geometry coordinates, placed in the shape frame of `frame` (its full affine
/// map, then the inverse of the shape pose), or why it has none.
pub fn place_mesh(read: MeshRead, frame: &Frame, collision: MeshCollision, node: &Node) -> Result<GeometryRead, Error> {
    let (vertices, mut triangles, what) = match read {
        MeshRead::Mesh {
            vertices,
            triangles,
            what,
        } => (vertices, triangles, what),
        MeshRead::Unsupported(message) => return Ok(GeometryRead::Unsupported(message)),
    };
    let to_shape = frame.shape_pose.inverse();
    let vertices = vertices
        .iter()
        .map(|v| to_shape * nalgebra::Point3::from(frame.linear * v + frame.translation))
        .map(|p| p.coords)
        .collect();
    if frame.linear.determinant() < 0.0 {
        // A mirroring scale turns the winding inside out.
        Mesh::flip_winding(&mut triangles);
    }
    let origin = format!("{what} ({})", node.location);
    let mesh = Mesh::new(vertices, triangles, collision, origin).map_err(|e| node.error(format!("{what}: {e}")))?;
    Ok(GeometryRead::Collided(Geometry::Mesh(Arc::new(mesh))))
}

/// A `geometry:` mapping inside `frame`: primitives' lengths multiplied by the enclosing uniform
/// scale, meshes through the whole Transform stack.
fn read_geometry(
    node: &Node,
    frame: &Frame,
    cx: ShapeContext,
    notes: &mut Vec<Diagnostic>,
) -> Result<GeometryRead, Error> {
    let scale = frame.shape_scale;
    let f = Fields::new(node, "a geometry")?;
    let type_node = f.required(&["type"])?;
    let type_name = type_node.as_name()?;
    f.skip(&DIVISION_KEYS);
    let context = format!("a {type_name} geometry");
    if MESHES.contains(&type_name) {
        let collision = read_collision(&f)?;
        let read = match type_name {
            "TriangleMesh" => read_inline(&f, node, true)?,
            "IndexedFaceSet" => read_inline(&f, node, false)?,
            "Extrusion" => read_extrusion(&f, node, cx.unit, notes)?,
            "ElevationGrid" => read_elevation_grid(&f, node)?,
            _ => read_resource(&f, node, cx.dir)?,
        };
        let known: Vec<&str> = mesh_keys(type_name);
        typo_warnings(&f, &context, &known, notes);
        return place_mesh(read, frame, collision, node);
    }
    let geometry = match type_name {
        "Box" => {
            let size = f
                .get_value(&["size"])
                .map(|n| n.as_vec3())
                .transpose()?
                .unwrap_or([1.0; 3]);
            if size.iter().any(|&s| s < 0.0) {
                let at = f.get_value(&["size"]).unwrap_or(node);
                let [x, y, z] = size;
                return Err(at.error(format!(
                    "a Box size must be ≥ 0 in every direction, found [{x}, {y}, {z}]"
                )));
            }
            f.skip(&["extra_division_mode"]);
            typo_warnings(&f, &context, &["type", "size", "extra_division_mode"], notes);
            Geometry::Box {
                size: Vector3::from(size) * scale,
            }
        }
        "Sphere" => {
            let radius = positive(&f, node, "radius", 1.0, "a Sphere")?;
            typo_warnings(&f, &context, &["type", "radius"], notes);
            Geometry::Sphere { radius: radius * scale }
        }
        "Cylinder" => {
            let radius = positive(&f, node, "radius", 1.0, "a Cylinder")?;
            let height = positive(&f, node, "height", 1.0, "a Cylinder")?;
            f.bool_or(&["top"], true)?;
            f.bool_or(&["bottom"], true)?;
            typo_warnings(&f, &context, &["type", "radius", "height", "top", "bottom"], notes);
            Geometry::Cylinder {
                radius: radius * scale,
                height: height * scale,
            }
        }
        "Capsule" => {
            let radius = positive(&f, node, "radius", 1.0, "a Capsule")?;
            let height = f.f64_or(&["height"], 1.0)?;
            if height < 0.0 {
                let at = f.get_value(&["height"]).unwrap_or(node);
                return Err(at.error(format!("a Capsule height must be ≥ 0 m, found {height}")));
            }
            typo_warnings(&f, &context, &["type", "radius", "height"], notes);
            Geometry::Capsule {
                radius: radius * scale,
                height: height * scale,
            }
        }
        "Cone" => {
            let radius = positive(&f, node, "radius", 1.0, "a Cone")?;
            let height = positive(&f, node, "height", 1.0, "a Cone")?;
            f.bool_or(&["bottom"], true)?;
            typo_warnings(&f, &context, &["type", "radius", "height", "bottom"], notes);
            Geometry::Cone {
                radius: radius * scale,
                height: height * scale,
            }
        }
        other => {
            let hint = did_you_mean(other, PRIMITIVES.iter().chain(MESHES.iter()).copied());
            return Err(type_node.error(format!(
                "unknown geometry type `{other}`{hint}; expected one of {}, {}",
                PRIMITIVES.join(", "),
                MESHES.join(", ")
            )));
        }
    };
    Ok(GeometryRead::Collided(geometry))
}

/// The keys a mesh geometry of `type_name` reads (for typo warnings).
fn mesh_keys(type_name: &str) -> Vec<&'static str> {
    let own: &[&'static str] = match type_name {
        "TriangleMesh" | "IndexedFaceSet" => &["vertices", "coordinate", "faces", "coordIndex"],
        "Extrusion" => &[
            "cross_section",
            "crossSection",
            "spine",
            "scale",
            "orientation",
            "begin_cap",
            "beginCap",
            "end_cap",
            "endCap",
        ],
        "ElevationGrid" => &[
            "x_dimension",
            "xDimension",
            "z_dimension",
            "zDimension",
            "x_spacing",
            "xSpacing",
            "z_spacing",
            "zSpacing",
            "height",
            "ccw",
        ],
        _ => &RESOURCE_KEYS,
    };
    ["type", "collision"].iter().chain(own).copied().collect()
}

/// A length > 0 with a default.
fn positive(f: &Fields, node: &Node, key: &str, default: f64, what: &str) -> Result<f64, Error> {
    let value = f.f64_or(&[key], default)?;
    if value <= 0.0 {
        let at = f.get_value(&[key]).unwrap_or(node);
        return Err(at.error(format!("{what} {key} must be > 0 m, found {value}")));
    }
    Ok(value)
}

/// `appearance: {material: {diffuse | diffuseColor: [r, g, b]}}`.
fn read_color(appearance: &Node) -> Result<Option<[f64; 3]>, Error> {
    let f = Fields::new(appearance, "an appearance")?;
    let Some(material) = f.get_value(&["material"]) else {
        return Ok(None);
    };
    let m = Fields::new(material, "an appearance material")?;
    m.get_value(&["diffuse", "diffuseColor"])
        .map(|n| n.as_vec3())
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Isometry3, Translation3, UnitQuaternion};
    use tribo_yaml::parse_str;

    fn shape(text: &str) -> Result<Option<ShapeContent>, Error> {
        let node = parse_str(text, "g.body").expect("yaml");
        let cx = ShapeContext {
            unit: AngleUnit::Degree,
            dir: Path::new("."),
        };
        read_shape(&node, &Frame::link(), cx, "L", &mut Vec::new())
    }

    fn primitive(text: &str) -> Shape {
        let content = shape(text).expect("shape").expect("has geometry");
        let ShapeContent::Collided(s) = content else {
            unreachable!("expected a primitive, got {content:?}");
        };
        s
    }

    #[test]
    fn capsule_and_cone() {
        let s = primitive("geometry: {type: Capsule, radius: 0.05, height: 0.2}");
        assert_eq!(
            s.geometry,
            Geometry::Capsule {
                radius: 0.05,
                height: 0.2
            }
        );
        let s = primitive("geometry: {type: Capsule, radius: 0.05, height: 0}");
        assert_eq!(
            s.geometry,
            Geometry::Capsule {
                radius: 0.05,
                height: 0.0
            }
        );
        let s = primitive("geometry: {type: Cone, radius: 0.1, height: 0.3, bottom: false}");
        assert_eq!(
            s.geometry,
            Geometry::Cone {
                radius: 0.1,
                height: 0.3
            }
        );
        assert!(shape("geometry: {type: Capsule, radius: 0.05, height: -1}").is_err());
        assert!(shape("geometry: {type: Cone, radius: 0.1, height: 0}").is_err());
    }

    #[test]
    fn defaults_are_one() {
        assert_eq!(
            primitive("geometry: {type: Box}").geometry,
            Geometry::Box {
                size: Vector3::repeat(1.0)
            }
        );
        assert_eq!(
            primitive("geometry: {type: Sphere}").geometry,
            Geometry::Sphere { radius: 1.0 }
        );
        assert_eq!(
            primitive("geometry: {type: Cylinder}").geometry,
            Geometry::Cylinder {
                radius: 1.0,
                height: 1.0
            }
        );
    }

    #[test]
    fn own_transform_scale_and_color() {
        let s = primitive(
            "translation: [1, 0, 0]\nrotation: [1, 0, 0, 90]\nscale: [2, 2, 2]\n\
             geometry: {type: Cylinder, radius: 0.1, height: 0.5}\nappearance: {material: {diffuseColor: [1, 0, 0]}}",
        );
        assert_eq!(
            s.geometry,
            Geometry::Cylinder {
                radius: 0.2,
                height: 1.0
            }
        );
        let expected = Isometry3::from_parts(
            Translation3::new(1.0, 0.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2),
        );
        assert!((s.pose.to_homogeneous() - expected.to_homogeneous()).norm() < 1e-15);
        // The cylinder's +Y axis now points along the link's +Z.
        assert!((s.pose.rotation * Vector3::y() - Vector3::z()).norm() < 1e-15);
        assert_eq!(s.color, Some([1.0, 0.0, 0.0]));
    }

    #[test]
    fn invalid_sizes_and_unknown_types() {
        let err = shape("geometry: {type: Sphere, radius: 0}").expect_err("r = 0");
        assert_eq!(err.to_string(), "g.body:1:34: a Sphere radius must be > 0 m, found 0");
        let err = shape("geometry: {type: Box, size: [1, -1, 1]}").expect_err("negative");
        assert!(err.message.contains("≥ 0"), "{err}");
        let err = shape("geometry: {type: Spere}").expect_err("typo");
        assert!(err.message.contains("did you mean `Sphere`"), "{err}");
    }

    #[test]
    fn inline_meshes_are_collided_and_a_mirror_keeps_them_outward() {
        // A unit cube as an IndexedFaceSet of quads, under a Shape mirrored in x and scaled 2×.
        let cube = "geometry:\n  type: IndexedFaceSet\n  collision: convex_hull\n  \
                    coordinate: [0,0,0, 1,0,0, 1,1,0, 0,1,0, 0,0,1, 1,0,1, 1,1,1, 0,1,1]\n  \
                    coordIndex: [0,3,2,1,-1, 4,5,6,7,-1, 0,1,5,4,-1, 2,3,7,6,-1, 0,4,7,3,-1, 1,2,6,5]\n";
        let s = primitive(cube);
        let Geometry::Mesh(mesh) = &s.geometry else {
            unreachable!("a mesh");
        };
        assert_eq!(mesh.triangles.len(), 12);
        assert!(mesh.is_closed());
        assert!((mesh.mass_properties().volume - 1.0).abs() < 1e-15);
        let mirrored = primitive(&format!("scale: [-2, 2, 2]\n{cube}"));
        let Geometry::Mesh(mesh) = &mirrored.geometry else {
            unreachable!("a mesh");
        };
        let p = mesh.mass_properties();
        assert!((p.volume - 8.0).abs() < 1e-12, "{}", p.volume);
        assert!((p.centre - Vector3::new(-1.0, 1.0, 1.0)).norm() < 1e-12, "{}", p.centre);
        // Outward winding survives the mirror: the signed volume stays positive.
        let signed: f64 = mesh
            .triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| mesh.vertices[i as usize]);
                a.dot(&b.cross(&c)) / 6.0
            })
            .sum();
        assert!(signed > 0.0);
    }

    #[test]
    fn mesh_errors_are_located() {
        let err = shape("geometry: {type: TriangleMesh, vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0], faces: [0, 1, 3]}")
            .expect_err("index 3");
        assert_eq!(
            err.to_string(),
            "g.body:1:85: vertex index 3 is out of range: there are 3 vertices"
        );
        let err =
            shape("geometry: {type: TriangleMesh, vertices: [0, 0, 0, 1], faces: [0, 1, 2]}").expect_err("4 numbers");
        assert!(err.message.contains("found 4 numbers"), "{err}");
        let err =
            shape("geometry: {type: IndexedFaceSet, coordinate: [0, 0, 0, 1, 0, 0, 0, 1, 0], coordIndex: [0, 1, -1]}")
                .expect_err("a 2-gon");
        assert!(err.message.contains("at least 3 vertices"), "{err}");
        let err = shape("geometry: {type: TriangleMesh, collision: triangle_mseh, vertices: [0, 0, 0], faces: []}")
            .expect_err("typo");
        assert_eq!(
            err.to_string(),
            "g.body:1:43: unknown mesh collision mode `triangle_mseh` (did you mean `triangle_mesh`?)"
        );
    }

    #[test]
    fn resources_of_unread_formats_are_unsupported_and_missing_files_are_errors() {
        let content = shape("geometry: {type: Resource, uri: robot/arm.dae}");
        let Ok(Some(ShapeContent::Unsupported { message, .. })) = &content else {
            unreachable!("unsupported, got {content:?}");
        };
        assert!(message.contains("Collada (.dae)"), "{message}");
        let err = shape("geometry: {type: Resource, uri: no/such/file.stl}").expect_err("missing");
        assert!(
            err.to_string()
                .starts_with("g.body:1:33: `Resource` `no/such/file.stl`: cannot read mesh file"),
            "{err}"
        );
    }
}
