//! `Shape` nodes and their `geometry` (docs/design/choreonoid-formats.md §2.7; StdSceneReader `readShape`,
//! `readGeometry`). Primitives keep Choreonoid's convention: Cylinder, Capsule and Cone along
//! local +Y.

use nalgebra::Vector3;
use tribo_yaml::{did_you_mean, Diagnostic, Error, Fields, Location, Node};

use super::keys::typo_warnings;
use super::pose::{read_local_transform, Frame};
use super::units::AngleUnit;
use crate::{Geometry, Shape};

/// What a Shape contributes.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeContent {
    /// A primitive tribo's engines collide, placed in the link frame.
    Primitive(Shape),
    /// Geometry the engines cannot collide (meshes, extrusions, elevation grids, resources).
    Unsupported { type_name: String, location: Location },
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
const UNSUPPORTED: [&str; 5] = [
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
    unit: AngleUnit,
    link_name: &str,
    notes: &mut Vec<Diagnostic>,
) -> Result<Option<ShapeContent>, Error> {
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
    Ok(Some(match read_geometry(geometry_node, frame.shape_scale, notes)? {
        GeometryRead::Primitive(geometry) => ShapeContent::Primitive(Shape {
            geometry,
            pose: frame.shape_pose,
            color,
        }),
        GeometryRead::Unsupported(type_name) => ShapeContent::Unsupported {
            type_name,
            location: geometry_node.location.clone(),
        },
    }))
}

enum GeometryRead {
    Primitive(Geometry),
    Unsupported(String),
}

/// A `geometry:` mapping, its lengths multiplied by the enclosing uniform `scale`.
fn read_geometry(node: &Node, scale: f64, notes: &mut Vec<Diagnostic>) -> Result<GeometryRead, Error> {
    let f = Fields::new(node, "a geometry")?;
    let type_node = f.required(&["type"])?;
    let type_name = type_node.as_name()?;
    f.skip(&DIVISION_KEYS);
    let context = format!("a {type_name} geometry");
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
        other if UNSUPPORTED.contains(&other) => return Ok(GeometryRead::Unsupported(other.to_string())),
        other => {
            let hint = did_you_mean(other, PRIMITIVES.iter().chain(UNSUPPORTED.iter()).copied());
            return Err(type_node.error(format!(
                "unknown geometry type `{other}`{hint}; expected one of {}, {}",
                PRIMITIVES.join(", "),
                UNSUPPORTED.join(", ")
            )));
        }
    };
    Ok(GeometryRead::Primitive(geometry))
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
        read_shape(&node, &Frame::link(), AngleUnit::Degree, "L", &mut Vec::new())
    }

    fn primitive(text: &str) -> Shape {
        let content = shape(text).expect("shape").expect("has geometry");
        let ShapeContent::Primitive(s) = content else {
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
    fn meshes_are_unsupported_not_errors() {
        let content = shape("geometry: {type: Extrusion, crossSection: [0, 0, 1, 0, 1, 1], spine: [0, 0, 0, 0, 1, 0]}");
        assert!(
            matches!(&content, Ok(Some(ShapeContent::Unsupported { type_name, .. })) if type_name == "Extrusion"),
            "{content:?}"
        );
    }
}
