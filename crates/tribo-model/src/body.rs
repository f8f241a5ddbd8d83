//! The validated body model every engine consumes: a tree of links in SI units and radians.

use std::sync::Arc;

use nalgebra::{Isometry3, Matrix3, Vector3};
use tribo_yaml::Location;

use crate::Mesh;

/// A rigid multi-link body (a robot, an object, the floor).
#[derive(Debug, Clone)]
pub struct Body {
    /// Model name (`name:` in the file, else the file stem).
    pub name: String,
    /// The file it was loaded from, as given (empty for bodies built in code).
    pub source: Arc<str>,
    /// Links in depth-first pre-order from the root (index 0), children in file order —
    /// Choreonoid's link-index order.
    pub links: Vec<Link>,
    /// `joint_id` → link index. `None` marks a gap in the ids.
    pub joints_by_id: Vec<Option<usize>>,
    /// Notes about content that loaded but that no engine uses (devices, meshes, …).
    pub notes: Vec<tribo_yaml::Diagnostic>,
    /// Joints that close kinematic loops (`extra_joints`); an engine that cannot close them
    /// refuses the body ([`refuse_closed_loops`](crate::refuse_closed_loops)).
    pub extra_joints: Vec<crate::ExtraJoint>,
}

/// One link: its joint to the parent, its inertia, its material and its collision shapes.
#[derive(Debug, Clone)]
pub struct Link {
    pub name: String,
    /// Index of the parent link; `None` for the root.
    pub parent: Option<usize>,
    /// Child link indices in file order.
    pub children: Vec<usize>,
    pub joint: Joint,
    /// Pose of this link's frame in the parent's frame when the joint is at 0 (`translation`,
    /// `rotation`). For the root: its initial pose in the world.
    pub offset: Isometry3<f64>,
    /// kg.
    pub mass: f64,
    /// Centre of mass in the link frame, m.
    pub center_of_mass: Vector3<f64>,
    /// Inertia about the centre of mass in link-frame axes, kg·m².
    pub inertia: Matrix3<f64>,
    /// Contact material name. A link that names none has `"Default"`.
    pub material: String,
    /// Where the material was named (for "unknown material" warnings); `None` if not named.
    pub material_location: Option<Location>,
    /// Collision shapes in the link frame.
    pub shapes: Vec<Shape>,
    /// Geometry the file gave this link that could not become a collision shape (an unsupported
    /// mesh format, …), one located warning each; the runner repeats them in every run summary
    /// so that no link loses its collision silently.
    pub uncollided: Vec<tribo_yaml::Diagnostic>,
    /// CSLC pads on this link (read by the `cslc` engine, ignored by the others).
    pub pads: Vec<crate::PadSpec>,
    /// Where the link was defined.
    pub location: Location,
}

#[derive(Debug, Clone)]
pub struct Joint {
    pub kind: JointKind,
    /// `joint_name`, else the link name.
    pub name: String,
    /// `joint_id`: the column of a `.seq` motion and the index of `body.joint(i)` in Choreonoid.
    pub id: Option<usize>,
    /// Unit axis in the link frame (revolute: rotation axis; prismatic: direction).
    pub axis: Vector3<f64>,
    /// Position limits (rad or m); ±∞ when unlimited.
    pub range: [f64; 2],
    /// Velocity limits (rad/s or m/s); ±∞ when unlimited.
    pub velocity_range: [f64; 2],
    /// Symmetric effort limit (N·m or N); ∞ when unlimited.
    pub max_effort: f64,
    /// Initial position (rad or m).
    pub initial_position: f64,
    /// Rotor inertia reflected to the joint, kg·m² (or kg): `joint_axis_inertia` or
    /// `rotor_inertia · gear_ratio²`.
    pub armature: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JointKind {
    /// Six degrees of freedom (a floating base).
    Free,
    /// Welded to the parent (or to the world, for a root).
    Fixed,
    Revolute,
    Prismatic,
}

impl JointKind {
    /// Degrees of freedom of the joint.
    pub fn dofs(self) -> usize {
        match self {
            JointKind::Free => 6,
            JointKind::Fixed => 0,
            JointKind::Revolute | JointKind::Prismatic => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            JointKind::Free => "free",
            JointKind::Fixed => "fixed",
            JointKind::Revolute => "revolute",
            JointKind::Prismatic => "prismatic",
        }
    }
}

/// A collision shape placed in its link's frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub geometry: Geometry,
    /// Pose of the geometry's own frame in the link frame (the enclosing `Transform`s and the
    /// Shape's own `translation`/`rotation`).
    pub pose: Isometry3<f64>,
    /// Diffuse colour for viewers, if the file gave one.
    pub color: Option<[f64; 3]>,
}

/// Geometry in Choreonoid's conventions: Cylinder, Capsule and Cone along local **+Y**.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    /// Full extents, m.
    Box {
        size: Vector3<f64>,
    },
    Sphere {
        radius: f64,
    },
    /// Axis +Y, centred, y ∈ [−h/2, h/2].
    Cylinder {
        radius: f64,
        height: f64,
    },
    /// Axis +Y; `height` is the cylindrical part only (total length height + 2·radius).
    Capsule {
        radius: f64,
        height: f64,
    },
    /// Axis +Y, apex at +h/2, base at −h/2.
    Cone {
        radius: f64,
        height: f64,
    },
    /// A triangle mesh in the shape frame, collided as its [`crate::MeshCollision`] says (shared: a
    /// mesh is cloned with its body).
    Mesh(Arc<Mesh>),
}

impl Geometry {
    pub fn type_name(&self) -> &'static str {
        match self {
            Geometry::Box { .. } => "Box",
            Geometry::Sphere { .. } => "Sphere",
            Geometry::Cylinder { .. } => "Cylinder",
            Geometry::Capsule { .. } => "Capsule",
            Geometry::Cone { .. } => "Cone",
            Geometry::Mesh(_) => "Mesh",
        }
    }
}

impl Joint {
    /// A joint of `kind` named `name`: axis +Z, no id, unlimited, at 0, no armature.
    pub fn new(kind: JointKind, name: impl Into<String>) -> Self {
        Joint {
            kind,
            name: name.into(),
            id: None,
            axis: Vector3::z(),
            range: [f64::NEG_INFINITY, f64::INFINITY],
            velocity_range: [f64::NEG_INFINITY, f64::INFINITY],
            max_effort: f64::INFINITY,
            initial_position: 0.0,
            armature: 0.0,
        }
    }
}

impl Link {
    /// A link with Choreonoid's defaults (`Link.cpp`): a fixed joint, mass 1 kg, identity inertia,
    /// centre of mass at the origin, the `Default` material, no shapes, at the parent's origin.
    pub fn new(name: impl Into<String>, parent: Option<usize>, location: Location) -> Self {
        let name = name.into();
        Link {
            joint: Joint::new(JointKind::Fixed, name.clone()),
            name,
            parent,
            children: Vec::new(),
            offset: Isometry3::identity(),
            mass: 1.0,
            center_of_mass: Vector3::zeros(),
            inertia: Matrix3::identity(),
            material: DEFAULT_MATERIAL.to_string(),
            material_location: None,
            shapes: Vec::new(),
            uncollided: Vec::new(),
            pads: Vec::new(),
            location,
        }
    }
}

/// The material of a link that names none.
pub const DEFAULT_MATERIAL: &str = "Default";

impl Link {
    /// A message if the link's mass, centre of mass, inertia or offset holds a non-finite number or
    /// the mass is negative (bodies built in code skip the loader's checks).
    pub fn check_numbers(&self) -> Result<(), String> {
        let finite = self.mass.is_finite()
            && self.center_of_mass.iter().all(|x| x.is_finite())
            && self.inertia.iter().all(|x| x.is_finite())
            && self.offset.translation.vector.iter().all(|x| x.is_finite())
            && self.offset.rotation.coords.iter().all(|x| x.is_finite());
        if !finite {
            return Err(format!(
                "link `{}` has a non-finite mass, centre of mass, inertia or offset",
                self.name
            ));
        }
        if self.mass < 0.0 {
            return Err(format!("link `{}` has a negative mass ({} kg)", self.name, self.mass));
        }
        Ok(())
    }
}

impl Body {
    /// A body built in code. `links[i].parent` indexes `links`; exactly one link has no parent
    /// (the root). The links are reordered depth-first from the root (children in the given
    /// order), parents and children are renumbered, and `joints_by_id` is built from the joint
    /// ids. Errors (located at the offending link): no root or several roots, a parent index out
    /// of range, a parent cycle, a duplicate link name or joint id.
    pub fn from_links(name: impl Into<String>, links: Vec<Link>) -> Result<Body, tribo_yaml::Error> {
        crate::body_file::tree::assemble_code_body(name.into(), links)
    }

    /// Total mass of all links, kg.
    pub fn total_mass(&self) -> f64 {
        self.links.iter().map(|l| l.mass).sum()
    }

    /// Number of joints with one degree of freedom (revolute and prismatic).
    pub fn num_actuated_joints(&self) -> usize {
        self.links
            .iter()
            .filter(|l| matches!(l.joint.kind, JointKind::Revolute | JointKind::Prismatic))
            .count()
    }

    pub fn link_index(&self, name: &str) -> Option<usize> {
        self.links.iter().position(|l| l.name == name)
    }

    /// The link driven by joint `id`.
    pub fn joint_link(&self, id: usize) -> Option<usize> {
        self.joints_by_id.get(id).copied().flatten()
    }

    pub fn root(&self) -> &Link {
        &self.links[0]
    }
}
