//! The validated, immutable description every engine consumes.

use std::sync::Arc;

use nalgebra::{Isometry3, Vector3};
use tribo_material::{ContactParams, ContactTable, MaterialId};
use tribo_model::{Body, PadSpec};

/// Bodies, materials and gravity: everything an engine needs to build its own state.
/// Immutable; many engine instances can share one scene (`Arc<Scene>`).
#[derive(Debug, Clone)]
pub struct Scene {
    pub name: String,
    /// m/s², world frame (z up).
    pub gravity: Vector3<f64>,
    pub bodies: Vec<SceneBody>,
    /// The merged material table resolved for the materials the links use.
    pub contacts: ContactTable,
    /// CSLC pads: those declared on links in body files, then those a project laid over links.
    pub pads: Vec<ScenePad>,
}

/// A CSLC pad on a link of the scene (read by the `cslc` engine only).
#[derive(Debug, Clone, PartialEq)]
pub struct ScenePad {
    pub link: LinkRef,
    pub spec: PadSpec,
}

/// The pads the bodies' links declare (`pad:` in a body file), in body, link and declaration
/// order: the scene's pads before any a project lays over links.
pub fn declared_pads<'a>(models: impl IntoIterator<Item = &'a Body>) -> Vec<ScenePad> {
    models
        .into_iter()
        .enumerate()
        .flat_map(|(body, model)| {
            model.links.iter().enumerate().flat_map(move |(link, l)| {
                l.pads.iter().map(move |spec| ScenePad {
                    link: LinkRef { body, link },
                    spec: spec.clone(),
                })
            })
        })
        .collect()
}

/// One body instance placed in the world.
#[derive(Debug, Clone)]
pub struct SceneBody {
    /// Instance name, unique in the scene.
    pub name: String,
    pub model: Arc<Body>,
    /// Initial pose of the root link in the world.
    pub root_pose: Isometry3<f64>,
    /// Initial velocity of the root link origin (world frame), m/s.
    pub root_linear_velocity: Vector3<f64>,
    /// Initial angular velocity of the root link (world frame), rad/s.
    pub root_angular_velocity: Vector3<f64>,
    /// The root is welded to the world (or moved kinematically by a controller).
    pub fixed_root: bool,
    /// Initial joint position per link index (rad or m; 0 for links without a 1-dof joint).
    pub initial_positions: Vec<f64>,
    /// Contact material per link index.
    pub link_materials: Vec<MaterialId>,
    /// Whether links of this body collide with each other (adjacent links never do).
    pub self_collision: bool,
}

/// A link of a body of the scene: (body index, link index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkRef {
    pub body: usize,
    pub link: usize,
}

impl Scene {
    /// Contact parameters for two links (symmetric).
    pub fn contact_params(&self, a: LinkRef, b: LinkRef) -> &ContactParams {
        self.contacts.pair(self.material_of(a), self.material_of(b))
    }

    pub fn material_of(&self, link: LinkRef) -> MaterialId {
        self.bodies[link.body].link_materials[link.link]
    }

    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Every link of every body, in order.
    pub fn links(&self) -> impl Iterator<Item = LinkRef> + '_ {
        self.bodies
            .iter()
            .enumerate()
            .flat_map(|(body, b)| (0..b.model.links.len()).map(move |link| LinkRef { body, link }))
    }
}
