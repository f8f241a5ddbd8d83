//! A link's `elements` tree (docs/design/choreonoid-formats.md §2.6; StdBodyLoader `readElementContents`,
//! `readNode`, `readTransformContents`, `readVisualOrCollision`): shapes, RigidBody mass
//! contributions and devices, through the nested Transform frames.

use tribo_yaml::{did_you_mean, Diagnostic, Error, Fields, Node, Value};

use super::geometry::{place_mesh, read_shape, GeometryRead, ShapeContent, ShapeContext};
use super::mass::{read_inertia, read_mass, RigidBody, COM_KEYS};
use super::mesh::{read_collision, read_resource};
use super::plugin_devices::{plugin_device, PluginDevice, Treatment, PLUGIN_DEVICES};
use super::pose::{read_local_transform, Frame};
use super::units::AngleUnit;
use crate::Shape;
use nalgebra::{Matrix3, Vector3};
use tribo_yaml::Location;

/// Deeper nesting than this is certainly not a model (and would only exhaust the stack).
const MAX_DEPTH: usize = 64;

/// Node types the body loader handles itself.
const STRUCTURAL: [&str; 7] = [
    "Skip",
    "Group",
    "Transform",
    "RigidBody",
    "Visual",
    "Collision",
    "Resource",
];

/// Device node types: they load (with their child shapes) but tribo's engines do not simulate them.
const DEVICES: [&str; 16] = [
    "AccelerationSensor",
    "RateGyroSensor",
    "IMU",
    "ForceSensor",
    "Camera",
    "CameraDevice",
    "RangeSensor",
    "PointLight",
    "SpotLight",
    "Holder",
    "Attachment",
    "Conveyor",
    "DigitalIO",
    "MarkerDevice",
    "ZmpDevice",
    "LivoxMid360",
];

/// Scene-graph node types with nothing to collide.
const SCENE_ONLY: [&str; 7] = [
    "LineSet",
    "DirectionalLight",
    "PerspectiveCamera",
    "OrthographicCamera",
    "Fog",
    "Text",
    "Node",
];

/// What a link's elements hold, in the link frame.
#[derive(Debug, Clone, Default)]
pub struct LinkElements {
    /// Collision shapes (after the Visual/Collision split).
    pub shapes: Vec<Shape>,
    pub rigid_bodies: Vec<RigidBody>,
    /// Collided geometry that gave no collision shape (also in the notes).
    pub uncollided: Vec<Diagnostic>,
}

/// Read `elements` of link `link_name`. Notes (devices, unsupported geometry, …) go to `notes`.
pub fn read_link_elements(
    elements: &Node,
    cx: ShapeContext,
    link_name: &str,
    notes: &mut Vec<Diagnostic>,
) -> Result<LinkElements, Error> {
    let mut walker = Walker {
        unit: cx.unit,
        cx,
        link_name,
        notes,
        items: Vec::new(),
        rigid_bodies: Vec::new(),
        split: false,
    };
    walker.elements(elements, &Frame::link(), Model::Both, 0)?;
    let Walker {
        items,
        rigid_bodies,
        split,
        notes,
        ..
    } = walker;
    let mut shapes = Vec::new();
    let mut uncollided = Vec::new();
    for (model, content) in items {
        // With any Visual/Collision node, Visual-only shapes are not collided; otherwise all are.
        if split && model == Model::Visual {
            continue;
        }
        match content {
            ShapeContent::Collided(shape) => shapes.push(shape),
            ShapeContent::Unsupported { message, location } => {
                let note = Diagnostic::warning(
                    location,
                    format!("{message}; link `{link_name}` has no collision shape from it"),
                );
                notes.push(note.clone());
                uncollided.push(note);
            }
        }
    }
    Ok(LinkElements {
        shapes,
        rigid_bodies,
        uncollided,
    })
}

/// Which model a shape belongs to (StdBodyLoader `currentModelType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Model {
    Both,
    Visual,
    Collision,
}

struct Walker<'a> {
    unit: AngleUnit,
    cx: ShapeContext<'a>,
    link_name: &'a str,
    notes: &'a mut Vec<Diagnostic>,
    items: Vec<(Model, ShapeContent)>,
    rigid_bodies: Vec<RigidBody>,
    /// A Visual or Collision node produced content.
    split: bool,
}

impl Walker<'_> {
    /// An `elements` value: a list of typed mappings, one typed mapping, or a mapping keyed by
    /// type. Returns whether any scene content was produced.
    fn elements(&mut self, node: &Node, frame: &Frame, model: Model, depth: usize) -> Result<bool, Error> {
        if depth > MAX_DEPTH {
            return Err(node.error(format!("elements are nested more than {MAX_DEPTH} levels deep")));
        }
        let mut produced = false;
        match &node.value {
            Value::Seq(items) => {
                for item in items {
                    let f = Fields::new(item, "an element")?;
                    let type_node = f.required(&["type"])?;
                    produced |= self.node(item, type_node.as_name()?, type_node, frame, model, depth)?;
                }
            }
            Value::Map(map) => match map.get("type") {
                Some(type_node) => produced |= self.node(node, type_node.as_name()?, type_node, frame, model, depth)?,
                None => {
                    for entry in &map.entries {
                        let element = &entry.value;
                        Fields::new(element, &format!("a `{}` element", entry.key))?;
                        produced |= self.node(element, &entry.key, element, frame, model, depth)?;
                    }
                }
            },
            _ => {
                return Err(node.error(format!(
                    "expected `elements` to be a list or a mapping, found {}",
                    node.kind_name()
                )))
            }
        }
        Ok(produced)
    }

    /// One element of type `type_name` (`type_at` locates the type for errors).
    fn node(
        &mut self,
        node: &Node,
        type_name: &str,
        type_at: &Node,
        frame: &Frame,
        model: Model,
        depth: usize,
    ) -> Result<bool, Error> {
        let f = Fields::new(node, &format!("a `{type_name}` element"))?;
        if let Some(inner) = f.get_value(&["type"]) {
            let inner_name = inner.as_name()?;
            if inner_name != type_name {
                return Err(inner.error(format!(
                    "the node type `{inner_name}` differs from the type `{type_name}` given by its key"
                )));
            }
        }
        let depth = depth + 1;
        if let Some(device) = plugin_device(type_name) {
            return self.plugin_device(device, &f, node, type_at, frame, model, depth);
        }
        match type_name {
            "Skip" => Ok(false),
            "Group" => self.children(&f, frame, model, depth),
            "Transform" => {
                let frame = self.enter(&f, frame, "a Transform")?;
                self.children(&f, &frame, model, depth)
            }
            "RigidBody" => {
                let frame = self.enter(&f, frame, "a RigidBody")?;
                self.rigid_body(&f, &frame)?;
                self.children(&f, &frame, model, depth)
            }
            "Visual" | "Collision" => self.visual_or_collision(&f, type_name, frame, model, depth),
            "Resource" => {
                let frame = self.enter(&f, frame, "a Resource")?;
                self.resource(node, &frame, model)?;
                Ok(true)
            }
            "Shape" => {
                if let Some(content) = read_shape(node, frame, self.cx, self.link_name, self.notes)? {
                    self.items.push((model, content));
                }
                Ok(true)
            }
            device if DEVICES.contains(&device) => {
                let frame = self.enter(&f, frame, &format!("a {device}"))?;
                let name = f.get_value(&["name"]).map(Node::as_str).transpose()?;
                let named = name.map(|n| format!("`{n}` ")).unwrap_or_default();
                self.notes.push(node.warning(format!(
                    "device {named}({device}) of link `{}` is loaded but not simulated by tribo's engines",
                    self.link_name
                )));
                self.children(&f, &frame, model, depth)
            }
            scene if SCENE_ONLY.contains(&scene) => {
                self.notes.push(node.warning(format!(
                    "`{scene}` in link `{}` has nothing to collide and is ignored",
                    self.link_name
                )));
                Ok(true)
            }
            unknown => {
                if f.bool_or(&["is_optional", "isOptional"], false)? {
                    self.notes.push(node.warning(format!(
                        "node type `{unknown}` is not defined; the optional node is skipped"
                    )));
                    return Ok(false);
                }
                let known = STRUCTURAL
                    .iter()
                    .chain(["Shape"].iter())
                    .chain(DEVICES.iter())
                    .chain(SCENE_ONLY.iter())
                    .copied()
                    .chain(PLUGIN_DEVICES.iter().map(|d| d.node_type));
                let hint = did_you_mean(unknown, known);
                Err(type_at.error(format!(
                    "unknown element type `{unknown}`{hint} (mark it `is_optional: true` to skip it)"
                )))
            }
        }
    }

    /// A device a Choreonoid plugin defines ([`PLUGIN_DEVICES`]): a note if it takes no part
    /// in contact dynamics, else an error unless the node is optional.
    #[allow(clippy::too_many_arguments)]
    fn plugin_device(
        &mut self,
        device: &PluginDevice,
        f: &Fields,
        node: &Node,
        type_at: &Node,
        frame: &Frame,
        model: Model,
        depth: usize,
    ) -> Result<bool, Error> {
        let PluginDevice {
            node_type,
            plugin,
            effect,
            treatment,
        } = *device;
        let name = f.get_value(&["name"]).map(Node::as_str).transpose()?;
        let named = name.map(|n| format!("`{n}` ")).unwrap_or_default();
        match treatment {
            Treatment::NotSimulated => {
                let frame = self.enter(f, frame, &format!("a {node_type}"))?;
                self.notes.push(node.warning(format!(
                    "device {named}({node_type} of Choreonoid's {plugin}: {effect}) of link `{}` is loaded but \
                     not simulated by tribo's engines",
                    self.link_name
                )));
                self.children(f, &frame, model, depth)
            }
            Treatment::Unsupported if f.bool_or(&["is_optional", "isOptional"], false)? => {
                self.notes.push(node.warning(format!(
                    "optional device {named}({node_type} of Choreonoid's {plugin}: {effect}) of link `{}` is skipped: \
                     tribo's engines do not simulate it",
                    self.link_name
                )));
                Ok(false)
            }
            Treatment::Unsupported => Err(type_at.error(format!(
                "unsupported device {named}({node_type} of Choreonoid's {plugin}: {effect}) in link `{}`: only that \
                 plugin's simulator has it, and a run without it would not be the same machine \
                 (mark it `is_optional: true` to load the body without it)",
                self.link_name
            ))),
        }
    }

    /// A Transform-like node's own translation/rotation/scale.
    fn enter(&mut self, f: &Fields, frame: &Frame, what: &str) -> Result<Frame, Error> {
        let context = format!("{what} of link `{}`", self.link_name);
        let local = read_local_transform(f, self.unit, &context, self.notes)?;
        Ok(frame.then(&local))
    }

    fn children(&mut self, f: &Fields, frame: &Frame, model: Model, depth: usize) -> Result<bool, Error> {
        match f.get_value(&["elements"]) {
            Some(elements) => self.elements(elements, frame, model, depth),
            None => Ok(false),
        }
    }

    /// RigidBody: c = L·c₀ + t, I = L·I₀·Lᵀ through the Transform stack; missing values are 0.
    fn rigid_body(&mut self, f: &Fields, frame: &Frame) -> Result<(), Error> {
        let com = f
            .get_value(&COM_KEYS)
            .map(|n| n.as_vec3().map(Vector3::from))
            .transpose()?;
        let mass = f.get_value(&["mass"]).map(read_mass).transpose()?.unwrap_or(0.0);
        let inertia = f
            .get_value(&["inertia"])
            .map(|n| read_inertia(n, self.notes))
            .transpose()?;
        let com = frame.linear * com.unwrap_or_else(Vector3::zeros) + frame.translation;
        let inertia = inertia.map_or_else(Matrix3::zeros, |i| frame.linear * i * frame.linear.transpose());
        self.rigid_bodies.push(RigidBody { mass, com, inertia });
        Ok(())
    }

    /// Visual or Collision: a Transform-like node whose contents (`resource:`, `shape:` and
    /// `elements`) belong to one model only. Nesting one inside the other is an error.
    fn visual_or_collision(
        &mut self,
        f: &Fields,
        type_name: &str,
        frame: &Frame,
        model: Model,
        depth: usize,
    ) -> Result<bool, Error> {
        let inner = if type_name == "Visual" {
            Model::Visual
        } else {
            Model::Collision
        };
        if model != Model::Both && model != inner {
            let outer = if model == Model::Visual { "Visual" } else { "Collision" };
            return Err(f
                .node()
                .error(format!("a {type_name} node cannot be inside a {outer} node")));
        }
        let frame = self.enter(f, frame, &format!("a {type_name} node"))?;
        let mut produced = false;
        if let Some(resource) = f.get_value(&["resource"]) {
            self.resource(resource, &frame, inner)?;
            produced = true;
        }
        if let Some(shape) = f.get_value(&["shape"]) {
            if let Some(content) = read_shape(shape, &frame, self.cx, self.link_name, self.notes)? {
                self.items.push((inner, content));
            }
            produced = true;
        }
        produced |= self.children(f, &frame, inner, depth)?;
        self.split |= produced;
        Ok(produced)
    }

    /// A `Resource` element (or a Visual/Collision `resource:`): the mesh file it names, as a
    /// shape of `model` (StdBodyLoader `readResource`; `super::mesh::read_resource`).
    fn resource(&mut self, node: &Node, frame: &Frame, model: Model) -> Result<(), Error> {
        let f = Fields::new(node, "a Resource")?;
        f.skip(&["type", "name", "translation", "rotation", "scale"]);
        let collision = read_collision(&f)?;
        let read = read_resource(&f, node, self.cx.dir)?;
        let location: Location = node.location.clone();
        let content = match place_mesh(read, frame, collision, node)? {
            GeometryRead::Collided(geometry) => ShapeContent::Collided(Shape {
                geometry,
                pose: frame.shape_pose,
                color: None,
            }),
            GeometryRead::Unsupported(message) => ShapeContent::Unsupported { message, location },
        };
        self.items.push((model, content));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Geometry;
    use tribo_yaml::parse_str;

    fn read(text: &str) -> (Result<LinkElements, Error>, Vec<Diagnostic>) {
        let node = parse_str(text, "e.body").expect("yaml");
        let mut notes = Vec::new();
        let cx = ShapeContext {
            unit: AngleUnit::Degree,
            dir: std::path::Path::new("."),
        };
        let r = read_link_elements(&node, cx, "L", &mut notes);
        (r, notes)
    }

    #[test]
    fn three_forms_of_elements() {
        let list = "- {type: Shape, geometry: {type: Sphere, radius: 0.1}}\n- {type: Shape, geometry: {type: Box}}\n";
        let (r, _) = read(list);
        assert_eq!(r.expect("list").shapes.len(), 2);
        let (r, _) = read("type: Shape\ngeometry: {type: Sphere, radius: 0.1}\n");
        assert_eq!(r.expect("single").shapes.len(), 1);
        let (r, _) = read(
            "Shape: {geometry: {type: Sphere, radius: 0.1}}\nTransform: {elements: {Shape: {geometry: {type: Box}}}}\n",
        );
        assert_eq!(r.expect("keyed").shapes.len(), 2);
        let (r, _) = read("Shape: {type: Transform}\n");
        assert!(r.expect_err("mismatch").message.contains("differs"));
    }

    #[test]
    fn visual_collision_split() {
        let text = "- {type: Visual, elements: {Shape: {geometry: {type: Box}}}}\n\
                    - {type: Collision, elements: {Shape: {geometry: {type: Sphere, radius: 0.5}}}}\n\
                    - {type: Shape, geometry: {type: Cylinder}}\n";
        let shapes = read(text).0.expect("split").shapes;
        let types: Vec<_> = shapes.iter().map(|s| s.geometry.type_name()).collect();
        assert_eq!(types, ["Sphere", "Cylinder"]);
        let (r, _) = read("type: Visual\nelements: {Collision: {shape: {geometry: {type: Box}}}}\n");
        assert!(r.expect_err("nested").message.contains("cannot be inside"));
    }

    #[test]
    fn devices_are_notes_with_shapes() {
        let text = "- type: Camera\n  name: Eye\n  translation: [0.1, 0, 0]\n  elements: {Shape: {geometry: {type: Sphere, radius: 0.01}}}\n\
                    - {type: ForceSensor, name: FS}\n";
        let (r, notes) = read(text);
        let shapes = r.expect("devices").shapes;
        assert_eq!(shapes.len(), 1);
        assert!((shapes[0].pose.translation.vector - Vector3::new(0.1, 0.0, 0.0)).norm() < 1e-15);
        assert_eq!(notes.len(), 2);
        assert!(notes[0].message.contains("device `Eye` (Camera)"), "{}", notes[0]);
    }

    #[test]
    fn scene_effect_devices_load_with_a_note_naming_their_plugin() {
        let text = "- {type: SmokeDevice, name: Smoke1, translation: [0, 0, 1]}\n\
                    - type: FireDevice\n  elements: {Shape: {geometry: {type: Sphere, radius: 0.1}}}\n\
                    - {type: RotorDevice, name: R0}\n";
        let (r, notes) = read(text);
        let elements = r.expect("plugin devices load");
        assert_eq!(elements.shapes.len(), 1, "the fire's child shape is kept");
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert_eq!(
            notes[0].to_string(),
            "e.body:1:3: warning: device `Smoke1` (SmokeDevice of Choreonoid's SceneEffectsPlugin: smoke particles, \
             drawn only) of link `L` is loaded but not simulated by tribo's engines"
        );
        assert!(
            notes[1]
                .message
                .contains("(FireDevice of Choreonoid's SceneEffectsPlugin"),
            "{}",
            notes[1]
        );
        assert!(
            notes[2]
                .message
                .contains("RotorDevice of Choreonoid's MulticopterPlugin"),
            "{}",
            notes[2]
        );
    }

    #[test]
    fn devices_with_contacts_or_constraints_of_their_own_are_refused() {
        let (r, _) = read("- {type: AGXWireDevice, name: W}\n");
        let err = r.expect_err("a wire changes the contacts");
        assert!(
            err.to_string()
                .starts_with("e.body:1:10: unsupported device `W` (AGXWireDevice of Choreonoid's AGXDynamicsPlugin"),
            "{err}"
        );
        assert!(err.message.contains("is_optional: true"), "{err}");
        let (r, notes) = read("- {type: PxContinuousTrack, isOptional: true}\n");
        assert!(r.expect("optional").shapes.is_empty());
        assert!(
            notes[0]
                .message
                .starts_with("optional device (PxContinuousTrack of Choreonoid's PhysXPlugin"),
            "{}",
            notes[0]
        );
        // A misspelt plugin device keeps the unknown-type error with the closest name.
        let (r, _) = read("- {type: SmokDevice}\n");
        let err = r.expect_err("unknown");
        assert!(
            err.message
                .contains("unknown element type `SmokDevice` (did you mean `SmokeDevice`?)"),
            "{err}"
        );
    }

    #[test]
    fn unknown_types_error_unless_optional() {
        let (r, _) = read("- {type: Shap, geometry: {type: Box}}\n");
        let err = r.expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "e.body:1:10: unknown element type `Shap` (did you mean `Shape`?) (mark it `is_optional: true` to skip it)"
        );
        let (r, notes) = read("- {type: FancyThing, is_optional: true}\n");
        assert!(r.expect("optional").shapes.is_empty());
        assert_eq!(notes.len(), 1);
    }

    /// A RigidBody of 2 kg at [0, 0, 0.5] inside a Transform rotated 90° about X and moved
    /// [1, 0, 0]: its CoM lands at [1, −0.5, 0] (Rx(90°)·z = −y), and its inertia
    /// diag(1, 2, 3) becomes Rx·I·Rxᵀ = diag(1, 3, 2).
    #[test]
    fn rigid_body_through_transforms() {
        let text = "Transform:\n  translation: [1, 0, 0]\n  rotation: [1, 0, 0, 90]\n  elements:\n    RigidBody: {center_of_mass: [0, 0, 0.5], mass: 2, inertia: [1, 0, 0, 2, 0, 3]}\n";
        let bodies = read(text).0.expect("rigid").rigid_bodies;
        assert_eq!(bodies.len(), 1);
        assert!((bodies[0].com - Vector3::new(1.0, -0.5, 0.0)).norm() < 1e-15);
        let expected = Matrix3::from_diagonal(&Vector3::new(1.0, 3.0, 2.0));
        assert!((bodies[0].inertia - expected).norm() < 1e-15, "{}", bodies[0].inertia);
    }

    #[test]
    fn unsupported_geometry_notes_only_when_collided() {
        let (r, notes) = read("Shape: {geometry: {type: Resource, uri: arm.wrl}}\n");
        let elements = r.expect("mesh");
        assert!(elements.shapes.is_empty());
        assert_eq!(notes.len(), 1);
        assert_eq!(elements.uncollided, notes);
        assert_eq!(
            notes[0].to_string(),
            "e.body:1:19: warning: `Resource` `arm.wrl`: VRML (.wrl) mesh files are not read by tribo (STL and OBJ \
             are); link `L` has no collision shape from it"
        );
        let text = "- {type: Visual, elements: {Shape: {geometry: {type: Resource, uri: arm.wrl}}}}\n\
                    - {type: Collision, elements: {Shape: {geometry: {type: Box}}}}\n";
        let (r, notes) = read(text);
        assert!(matches!(r.expect("split").shapes[0].geometry, Geometry::Box { .. }));
        assert!(notes.is_empty(), "{notes:?}");
    }
}
